"""Peak memory (and wall / CPU time) of ``ssb report`` against the games of a run: flat in the games.

For each size it plays (once, cached) a run of the ``ci`` scenario at 4 players, greedy in every
seat, ``--jobs 2``: ``ssb run ci --games N --set players=[4] --jobs 2 --out CACHE/gN`` (seed 1, the
scenario's), then times ``ssb report`` on it in a child process and reads the child's peak resident
memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` of that child alone, via ``os.wait4``).
Every run is a real one: nothing is synthesized. Playing 3,000,000 games takes about 15 minutes of
both cores; the run folders stay in the cache (default ``/tmp/mem-bench``) for the next time.

    .venv/bin/python benchmarks/bench_report_memory.py                 # 1e5, 1e6, 3e6 games
    .venv/bin/python benchmarks/bench_report_memory.py --games 100000 --games 1000000
    .venv/bin/python benchmarks/bench_report_memory.py --code /path/to/other/checkout   # before/after

Prints one line per size: games, Parquet size, report wall and CPU seconds, peak RSS in MB.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _child(args, code):
    """``(wall s, cpu s, peak RSS MB)`` of one child process (its own rusage, not the others')."""
    env = dict(os.environ, PYTHONPATH=str(code), MPLBACKEND="Agg")
    t0 = time.perf_counter()
    p = subprocess.Popen(args, env=env, cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed:\n{err[-2000:]}")
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def _ssb(*args):
    return [sys.executable, "-c", "from ssb.cli import main; main()", *map(str, args)]


def ensure_run(cache, games):
    out = Path(cache) / f"g{games}"
    if (out / "manifest.json").is_file() and '"complete"' in (out / "manifest.json").read_text():
        return out
    print(f"playing {games:,} games into {out} (once) ...", flush=True)
    _child(_ssb("run", "ci", "--games", games, "--set", "players=[4]", "--jobs", 2, "-q", "--force", "--out", out), REPO)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, action="append", help="games of a run (repeatable; default 1e5, 1e6, 3e6)")
    ap.add_argument("--cache", default="/tmp/mem-bench", help="folder of the cached run folders")
    ap.add_argument("--code", default=str(REPO), help="checkout whose `ssb report` is measured")
    ap.add_argument("--repeat", type=int, default=1, help="reports per size (the smallest peak and time are kept)")
    a = ap.parse_args(argv)
    sizes = a.games or [100_000, 1_000_000, 3_000_000]
    print(f"CPU {_cpu_model()}, {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}; code {a.code}")
    print(f"{'games':>10}  {'parquet MB':>10}  {'wall s':>7}  {'cpu s':>7}  {'peak RSS MB':>11}")
    for n in sizes:
        run = ensure_run(a.cache, n)
        size = sum(p.stat().st_size for p in run.rglob("*.parquet")) / 2**20
        best = None
        for _ in range(a.repeat):
            res = _child(_ssb("report", run, "--out", Path(a.cache) / f"report-g{n}"), a.code)
            best = res if best is None else tuple(min(x, y) for x, y in zip(best, res, strict=True))
        wall, cpu, rss = best
        print(f"{n:>10,}  {size:>10.0f}  {wall:>7.1f}  {cpu:>7.1f}  {rss:>11.0f}", flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
