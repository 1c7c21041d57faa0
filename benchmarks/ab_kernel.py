"""Same-process A/B timing of two Shuffle and Swing kernels: a git revision's against the working tree's.

    .venv/bin/python benchmarks/ab_kernel.py [--base REV] [--games 1000] [--repeat 7]
        [--workloads greedy,random,greedy-2p,search]

On a shared machine absolute games/s drift by tens of percent from minute to minute; a ratio of two
kernels timed in turn, in one process, on identical seeds, drifts far less. ``--base`` (default:
the kernel before the speed experiment, ``BASE``) has its whole ``simulator/`` package taken out of
git into a package of its own, ``abs_<commit>``, under ``$TMPDIR/sns-ab/`` (imports rewritten to it;
its kernel's cache folder is named after its own sources, so it never shares the working tree's),
and both kernels live side by side. The strategy rows come from the working tree's library for both.
Each repeat times every workload on each kernel one after another, the order reversed every other
repeat, with CPU time (``time.process_time``: time the process was not running does not count).
Printed per workload: median games/s of each kernel and the median of the per-repeat ratios
old time / new time ("new/old" speed: above 1, the working tree is faster), with their range.

Before timing it checks that both kernels reach identical final states on the timed seeds.
"""

import argparse
import importlib
import io
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ab_common import full_commit, ratio_stats, time_alternately, write_if_changed  # noqa: E402
from bench_echidna import cpu_model  # noqa: E402
from simulator.shuffle_swing import playout as playout_now  # noqa: E402
from simulator.seeds import game_seed  # noqa: E402
from simulator.shuffle_swing.strategies import StrategyLibrary  # noqa: E402

BASE = "2712961"  # the kernel before the speed experiment

WORKLOADS = {
    # name: (players, strategies by seat, share of --games played)
    "greedy": (4, ["greedy"] * 4, 1),
    "random": (4, ["random"] * 4, 1),
    "greedy-2p": (2, ["greedy"] * 2, 1),
    "tuned": (4, ["tuned"] * 4, 1),
    "search": (4, ["search", "greedy", "greedy", "greedy"], 0.02),
    "lookahead": (4, ["lookahead", "greedy", "greedy", "greedy"], 0.02),
}


def playout_from_git(rev):
    """The revision's ``simulator`` package as ``abs_<commit>`` (its ``playout`` module)."""
    full = full_commit(rev)
    name = f"abs_{full[:10]}"
    root = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "sns-ab" / full[:10]
    tar = subprocess.check_output(["git", "-C", str(REPO), "archive", full, "simulator"])
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        for member in tf.getmembers():
            if not member.isfile():
                continue
            data = tf.extractfile(member).read()
            path = root / name / member.name.split("/", 1)[1]
            if member.name.endswith(".py"):
                text = re.sub(r"\bsimulator\b(?=[. ])", name, data.decode())
                write_if_changed(path, text)
            elif not path.exists() or path.read_bytes() != data:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:  # the first game's package (simulator/shuffle_swing/), or the root of simulator/ before it moved
        playout = importlib.import_module(f"{name}.shuffle_swing.playout")
    except ModuleNotFoundError:
        playout = importlib.import_module(f"{name}.playout")
    return f"{rev} ({full[:7]})", playout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default=BASE, help="git revision of the old kernel")
    ap.add_argument("--games", type=int, default=1000, help="games per timed batch (a share for slow workloads)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--workloads", default="greedy,random,greedy-2p,search", help=f"comma-separated: {', '.join(WORKLOADS)}")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    old_label, playout_old = playout_from_git(args.base)
    lib = StrategyLibrary()
    names = args.workloads.split(",")
    jobs, games = {}, {}
    for w in names:
        players, lineup, share = WORKLOADS[w]
        games[w] = max(4, int(args.games * share))
        seeds = np.array([game_seed(args.seed, i) for i in range(games[w])], dtype=np.uint64)
        strat = lib.matrix(lineup)
        for label, po in ((old_label, playout_old), ("working tree", playout_now)):
            setup = po.GameSetup(nplayers=players)
            jobs[(w, label)] = lambda po=po, setup=setup, strat=strat, seeds=seeds: po.play_many(setup, strat, seeds)
    t = time.perf_counter()
    for w in names:  # compile or load, and the decisions check
        a, bad_a = jobs[(w, old_label)]()
        b, bad_b = jobs[(w, "working tree")]()
        assert len(bad_a) == len(bad_b) == 0
        assert np.array_equal(a, b), f"{w}: the kernels' final states differ"
    print(f"CPU: {cpu_model()}; load average {os.getloadavg()[0]:.2f} at the start")
    print(f"compiled or loaded, final states identical on every timed game ({time.perf_counter() - t:.0f} s)")
    times = time_alternately(jobs, args.repeat)
    print(f"{'workload':12s} {'games':>6s} {'old g/s':>9s} {'new g/s':>9s} {'new/old':>8s} {'(min..max)':>13s}")
    for w in names:
        to, tn = times[(w, old_label)], times[(w, "working tree")]
        med, lo, hi = ratio_stats(to, tn)
        ro, rn = games[w] / statistics.median(to), games[w] / statistics.median(tn)
        print(f"{w:12s} {games[w]:6d} {ro:9.0f} {rn:9.0f} {med:8.3f}  {lo:5.2f}..{hi:5.2f}")
    print(f"old: {old_label}; new: working tree; CPU time, median of {args.repeat}; load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
