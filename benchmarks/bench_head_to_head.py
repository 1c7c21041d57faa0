"""Head to head: a challenger rung against an opponent rung, the seats split between them.

    .venv/bin/python benchmarks/bench_head_to_head.py search_sharp:search_deep --players 2,4 --deals 40 --seed 7501
    .venv/bin/python benchmarks/bench_head_to_head.py 'search@candidates=2:search' --players 2 --deals 30

Each PAIR is ``CHALLENGER:OPPONENT`` (rungs as the ladder spells them, ``NAME@param=value``). The
share is the challenger's share of the wins with the seats split as the ladder splits them (1-1 at
2 players with Pri, 2-2 at 4), every seat arrangement of every deal, on the ladder's matrix deals of
``--seed`` (``ssb strategies ladder --seed S --deals N`` plays the same games). 95% Student-t
interval over deals (the deal, with all its arrangements, is the independent unit), par 50%.
This is the ladder's own cell, one pair at a time, for the pairs a full ladder run cannot afford.
"""

import argparse
import json
import time

from simulator.seeds import stage_seeds
from strategies import ladder as LD


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pairs", nargs="+", metavar="CHALLENGER:OPPONENT")
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", default=None, help="append every figure as a JSON line to this file")
    args = ap.parse_args()
    cfg = LD.LadderConfig(deals=args.deals, seed=args.seed)
    _, ladder, lib, _ = LD.game_ladder(cfg)
    print(f"CPU: {LD.cpu_model()}; seed {args.seed}, {args.deals} deals, every seat arrangement")
    for pair in args.pairs:
        a, _, b = pair.rpartition(":")
        ra, rb = ladder.parse_rung(a, lib).row(), ladder.parse_rung(b, lib).row()
        for n in (int(x) for x in args.players.split(",")):
            t = time.perf_counter()
            seeds = stage_seeds(args.seed, "matrix", n, args.deals)
            x = LD.share(ra, rb, n, seeds, cfg, args.jobs)
            c = LD.deal_share_interval(x)
            wall = time.perf_counter() - t
            print(f"{n}p  {a} vs {b}: {c['share']:.1%} [{c['lo']:.1%}, {c['hi']:.1%}]  ({c['deals']} deals, {wall:.0f} s)", flush=True)
            if args.json:
                with open(args.json, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"challenger": a, "opponent": b, "players": n, "seed": args.seed, **c}) + "\n")


if __name__ == "__main__":
    main()
