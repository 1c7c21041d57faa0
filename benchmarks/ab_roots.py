"""A/B timing of two source trees of the lab, process against process: old and new kernels of both games.

    .venv/bin/python benchmarks/ab_roots.py OLD_ROOT NEW_ROOT [--repeat 7] [--workloads ...]
        [--games sns-greedy=2000,sns-random=20000,ech-greedy=2000,ech-random=20000] [--cold 3]

Each root is a checkout of the project (e.g. ``git worktree add /tmp/old main``); each timed batch
runs in a process of its own with ``PYTHONPATH`` set to that root, so each side imports its own
``simulator`` package with its own numba cache. Per workload the processes alternate old, new,
old, new, ... (``--repeat`` of each); every process first plays a few games (loading the compiled
kernel from the cache, not timed), then times the fixed batch with CPU time
(``time.process_time``: time the process was not running does not count). Before the timing one
process per root compiles (or loads) every workload's kernel, so every timed process starts warm.
Printed per workload: the median CPU seconds of each side and the median of the pair ratios
new time / old time (below 1: the new tree is faster) with their range. Both sides must reach
identical final states (a digest of the batch's states), or the script stops.

``--cold N`` also times a cold compile N times per side, alternating: a process with
``NUMBA_CACHE_DIR`` set to an empty folder plays one game of each game's batch entry point
(``play_many``: greedy at 4 players), CPU time of the first call each.
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WORKLOADS = {
    # name: (game, strategy of every seat, players, default games)
    "sns-greedy": ("sns", "greedy", 4, 2000),
    "sns-random": ("sns", "random", 4, 20000),
    "ech-greedy": ("echidna", "greedy", 4, 2000),
    "ech-random": ("echidna", "random", 4, 20000),
}
SEED = 20261201
WARM_GAMES = 8

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
game, strat_name, players, games, seed, warm, cold = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7] == "1"
from simulator.seeds import game_seed
if game == "sns":
    from simulator.shuffle_swing.playout import GameSetup, play_many
    from simulator.shuffle_swing.strategies import StrategyLibrary
    setup, strat = GameSetup(nplayers=players), StrategyLibrary().matrix([strat_name] * players)
else:
    from simulator.echidna.board import EchidnaSetup, Variants
    from simulator.echidna.playout import play_many
    from simulator.echidna.strategies import EchidnaStrategyLibrary
    setup, strat = EchidnaSetup(players, "forest", Variants()), EchidnaStrategyLibrary().matrix([strat_name] * players)
seeds = np.array([game_seed(seed, i) for i in range(games)], dtype=np.uint64)
t = time.process_time()
play_many(setup, strat, seeds[:warm])  # compile, or load from the cache: not the timed batch
first = time.process_time() - t
if cold:
    print(json.dumps({"first": first}))
    sys.exit(0)
t = time.process_time()
states, _ = play_many(setup, strat, seeds)
cpu = time.process_time() - t
print(json.dumps({"first": first, "cpu": cpu, "digest": hashlib.sha256(np.ascontiguousarray(states).astype(np.int64).tobytes()).hexdigest()}))
"""


def run_child(root, workload, games, warm=WARM_GAMES, env_extra=None):
    game, strat, players, _ = WORKLOADS[workload]
    env = {**os.environ, "PYTHONPATH": str(root), **(env_extra or {})}
    argv = [sys.executable, "-c", CHILD, game, strat, str(players), str(games), str(SEED), str(warm), "1" if env_extra else "0"]
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{root} {workload}: the child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cpu_model():
    try:
        for line in subprocess.check_output(["lscpu"], text=True).splitlines():
            if line.startswith("Model name"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return "unknown CPU"


def load():
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def summary(old, new):
    ratios = [b / a for a, b in zip(old, new)]
    return statistics.median(old), statistics.median(new), statistics.median(ratios), min(ratios), max(ratios)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", type=Path, help="source root of the old tree")
    ap.add_argument("new", type=Path, help="source root of the new tree")
    ap.add_argument("--repeat", type=int, default=7, help="timed processes per side and workload")
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help=f"comma-separated: {', '.join(WORKLOADS)}")
    ap.add_argument("--games", default="", help="per workload, e.g. sns-greedy=2000,ech-random=20000")
    ap.add_argument("--cold", type=int, default=0, help="cold compiles per side and game (0: none)")
    ap.add_argument("--json", type=Path, help="also write every time measured to this file")
    args = ap.parse_args()
    roots = {"old": args.old.resolve(), "new": args.new.resolve()}
    names = [w for w in args.workloads.split(",") if w]
    games = {w: WORKLOADS[w][3] for w in names}
    for item in filter(None, args.games.split(",")):
        k, _, v = item.partition("=")
        games[k] = int(v)
    print(f"CPU: {cpu_model()}; load average {load()} at the start")
    print(f"old: {roots['old']}\nnew: {roots['new']}")
    out = {"cpu": cpu_model(), "load_start": load(), "roots": {k: str(v) for k, v in roots.items()}, "workloads": {}}
    for w in names:  # compile (or load) once per side, and the decisions check
        digests = {side: run_child(root, w, WARM_GAMES * 4)["digest"] for side, root in roots.items()}
        if digests["old"] != digests["new"]:
            raise SystemExit(f"{w}: the two trees' final states differ")
    print(f"{'workload':11s} {'games':>6s} {'old s':>7s} {'new s':>7s} {'new/old':>8s} {'(min..max)':>14s}")
    for w in names:
        times = {"old": [], "new": []}
        digests = set()
        for _ in range(args.repeat):
            for side in ("old", "new"):
                r = run_child(roots[side], w, games[w])
                times[side].append(r["cpu"])
                digests.add(r["digest"])
        if len(digests) != 1:
            raise SystemExit(f"{w}: the two trees' final states differ")
        mo, mn, med, lo, hi = summary(times["old"], times["new"])
        print(f"{w:11s} {games[w]:6d} {mo:7.3f} {mn:7.3f} {med:8.3f} {f'({lo:.3f}..{hi:.3f})':>14s}", flush=True)
        out["workloads"][w] = {"games": games[w], "old": times["old"], "new": times["new"], "ratio_median": med,
                               "ratio_min": lo, "ratio_max": hi}
    if args.cold:
        print(f"cold compile, CPU seconds of the first batch call (median of {args.cold}):")
        for w in ("sns-greedy", "ech-greedy"):
            times = {"old": [], "new": []}
            for _ in range(args.cold):
                for side in ("old", "new"):
                    with tempfile.TemporaryDirectory(prefix="ab-cold-") as empty:
                        times[side].append(run_child(roots[side], w, 1, warm=1, env_extra={"NUMBA_CACHE_DIR": empty})["first"])
            mo, mn = statistics.median(times["old"]), statistics.median(times["new"])
            runs = ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(times["old"], times["new"]))
            print(f"  {WORKLOADS[w][0]:8s} old {mo:6.1f} s  new {mn:6.1f} s  new/old {mn / mo:.3f}  (old/new per run: {runs})", flush=True)
            out.setdefault("cold", {})[WORKLOADS[w][0]] = times
    print(f"load average {load()} at the end")
    out["load_end"] = load()
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
