"""Skill ladder benchmark: the win-rate matrix over the rungs, the monotone-ladder check, each rung as
one seat against three greedy (and three tuned) seats, the skill depth of the search player, and each
rung's cost per game as a ratio to greedy measured in the same run. Prints the CPU model.

    .venv/bin/python benchmarks/bench_ladder.py                     # small: a few minutes on 2 cores
    .venv/bin/python benchmarks/bench_ladder.py --deals 400 --against-deals 1000 --depth-deals 200 --jobs 2
    .venv/bin/python benchmarks/bench_ladder.py --rungs greedy@temperature=2,greedy,tuned --players 2,4

The default rungs are the shipped ladder (``simulator.shuffle_swing.strategies.DEFAULT_RUNGS``: softmax rungs of greedy,
greedy, tuned, the fast and the strong search player; the lookahead stands in where no search player
is installed). The starter set, paired deals, every seat arrangement, intervals counting deals; see
``strategies/ladder.py`` for the definitions. ``ssb strategies ladder`` runs the same code. Exits 1 if
the ladder is not monotone at 2 and 4 players.
"""

import argparse
import json
import sys

from strategies.ladder import LadderConfig, format_ladder, run_ladder


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rungs", default=None, help="comma-separated rungs, weakest first (NAME@param=value)")
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--deals", type=int, default=40, help="deals per matrix cell")
    ap.add_argument("--against-deals", type=int, default=None, help="deals of the one-against-three table (default: --deals)")
    ap.add_argument("--depth-budgets", default="1,2,4", help="budgets b of the skill depth (2b against b); '' to skip")
    ap.add_argument("--depth-rung", default=None)
    ap.add_argument("--depth-deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None, help="write every figure to this file")
    args = ap.parse_args()
    cfg = LadderConfig(
        rungs=tuple(r for r in args.rungs.split(",") if r) if args.rungs else None,
        players=tuple(int(p) for p in args.players.split(",")),
        deals=args.deals,
        against_deals=args.against_deals,
        depth_budgets=tuple(int(b) for b in args.depth_budgets.split(",") if b.strip()),
        depth_rung=args.depth_rung,
        depth_deals=args.depth_deals,
        seed=args.seed,
    )
    result = run_ladder(cfg, jobs=args.jobs, log=lambda m: print(m, file=sys.stderr, flush=True))
    print(format_ladder(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
    return 0 if result["monotone"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
