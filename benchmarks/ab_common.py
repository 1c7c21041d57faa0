"""What the same-process A/B timings of two kernels share (``ab_echidna.py``, ``ab_kernel.py``):
a git revision's files taken out into a folder of their own, and the alternating timing loop."""

import statistics
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def full_commit(rev):
    """The 40-digit commit of a git revision of this repository."""
    return subprocess.check_output(["git", "-C", str(REPO), "rev-parse", rev], text=True).strip()


def git_text(commit, path):
    """A file's text at a commit."""
    return subprocess.check_output(["git", "-C", str(REPO), "show", f"{commit}:{path}"], text=True)


def write_if_changed(path, text):
    """Write ``text`` to ``path`` unless it holds it already (an unchanged file keeps its time
    stamp, so numba's cache of it stays valid)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def time_alternately(jobs, repeat, ref=None):
    """CPU seconds of each job per repeat (``{key: [seconds, ...]}``), every job run once per
    repeat, the order reversed every other repeat; ``ref`` (a job) is timed after each repeat and
    its times returned under the key None."""
    times = {k: [] for k in jobs}
    if ref is not None:
        times[None] = []
    for r in range(repeat):
        order = list(jobs)
        if r % 2:
            order.reverse()
        for k in order:
            t = time.process_time()
            jobs[k]()
            times[k].append(time.process_time() - t)
        if ref is not None:
            t = time.process_time()
            ref()
            times[None].append(time.process_time() - t)
    return times


def ratio_stats(old_times, new_times):
    """(median, min, max) of the per-repeat ratios old time / new time (above 1: the new is faster)."""
    ratios = [a / b for a, b in zip(old_times, new_times)]
    return statistics.median(ratios), min(ratios), max(ratios)
