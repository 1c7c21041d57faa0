"""Where real games spend their time: CPU cycles per turn in each part of the turn, counted inside
the running kernel.

    .venv/bin/python benchmarks/profile_cycles.py [--games 3000] [--players 4] [--strategies greedy]

Builds the kernel with its cycle probe on (``SSB_CYCLE_PROBE=1``: a separate build, compiled afresh
each run, about a minute), plays the games, and prints for every probed part its cycles per turn, its
share of the whole turn, its calls per turn and its cycles per call. Unlike the micro-timings of
``profile_turn.py``, which replay a sample of states with warm branch predictors, these figures
include the mispredictions and cache misses of real play. The probe itself costs a few percent.
Indented parts lie inside the part above them.
"""

import argparse
import os
import time

os.environ["SSB_CYCLE_PROBE"] = "1"

from simulator.kernel_common import N_PROBE, PROBE_COUNTERS  # noqa: E402
from simulator.shuffle_swing.kernel.core import PROBE_PARTS, PR_TURN  # noqa: E402
from simulator.shuffle_swing.playout import GameSetup, play_many  # noqa: E402
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary  # noqa: E402

# Display depth of each part: 0 the turn, 1 a part of it, 2 a part of a part.
DEPTH = {
    "whole turn": 0,
    "choice: construct estimates": 2,
    "choice: inspector entry worths": 2,
    "choice: inspector route searches": 2,
    "choice: brag and pickup worths": 2,
    "choice: refresh worths": 2,
    "construct: placement choices": 2,
    "construct: paying cats": 2,
}


def probe_args(doc, games, extra=()):
    """The profile scripts' options (``extra``: more (flag, default) pairs): (args, seat names)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=games)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--strategies", default="greedy", help="comma-separated, one per seat, or one for all")
    ap.add_argument("--seed", type=int, default=3)
    for flag, default in extra:
        ap.add_argument(flag, default=default)
    args = ap.parse_args()
    names = args.strategies.split(",")
    if len(names) == 1:
        names = names * args.players
    return args, names


def compile_probed(play_many, setup, strat, seeds):
    """Compile the probed build on one game, then zero the counters."""
    t = time.perf_counter()
    play_many(setup, strat, seeds[:1])
    print(f"probed kernel compiled in {time.perf_counter() - t:.0f} s")
    PROBE_COUNTERS[:] = 0


def main():
    args, names = probe_args(__doc__, 3000)
    setup = GameSetup(nplayers=args.players)
    strat = StrategyLibrary().matrix(names)
    seeds = [game_seed(args.seed, i) for i in range(args.games)]
    compile_probed(play_many, setup, strat, seeds)
    t = time.perf_counter()
    play_many(setup, strat, seeds)
    dt = time.perf_counter() - t
    c = PROBE_COUNTERS.copy()
    turns = c[N_PROBE + PR_TURN]
    total = c[PR_TURN]
    print(f"{args.games} games, {turns / args.games:.1f} turns/game, {args.games / dt:.0f} games/s with the probe on")
    print_parts(PROBE_PARTS, c, turns, total, [DEPTH.get(name, 1) for name in PROBE_PARTS])


def print_parts(names, c, turns, total, depths):
    """The table: per part (counters ``c``: cycles of part k at k, its calls at N_PROBE + k) its
    cycles per turn, share of ``total``, calls per turn and cycles per call, indented by depth."""
    print(f"{'part':40s} {'cycles/turn':>12s} {'share':>7s} {'calls/turn':>11s} {'cycles/call':>12s}")
    for k, name in enumerate(names):
        calls = c[N_PROBE + k]
        indent = "  " * depths[k]
        per_call = c[k] / calls if calls else 0.0
        print(
            f"{indent + name:40s} {c[k] / turns:12.0f} {100.0 * c[k] / total:6.1f}% "
            f"{calls / turns:11.2f} {per_call:12.0f}"
        )


if __name__ == "__main__":
    main()
