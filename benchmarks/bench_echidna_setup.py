"""Echidna Shuffle set-up weights: what each is worth as one seat against three greedy players.

    .venv/bin/python benchmarks/bench_echidna_setup.py [--deals 300] [--seed 11] [--hero greedy] [--field greedy]

The hero is a profile (``--hero``) with one set-up weight changed (``setup_radius``,
``stump_traffic``, ``stump_far``), seated in each seat in turn against ``--field`` players at 4
players on both boards; a deal's score is the hero's mean win over its four rotations, and the
interval (normal, 95%) counts deals. Par is 25%. This is the sweep behind the ``lookahead-near``
profile (``setup_radius = 5``): run with seeds 11 and 12 to pick, then measure the pick on fresh
deals (``ssb strategies ladder --game echidna``).
"""

import argparse
from dataclasses import replace

import numpy as np

from simulator.echidna.board import EchidnaSetup
from simulator.echidna.layout import S_WINNER
from simulator.seeds import game_seed
from simulator.echidna.playout import play_many
from simulator.echidna.strategies import EchidnaStrategyLibrary

CANDIDATES = (
    {},
    *({"setup_radius": r} for r in (2, 3, 4, 5, 6, 12, 16)),
    *({"stump_traffic": t} for t in (-2, -1, -0.5, 0.5, 1)),
    {"stump_far": 0.0, "stump_traffic": -1.0},
)


def one_against_three(row, field_row, board, deals, seed, n=4):
    setup = EchidnaSetup(n, board)
    seeds = np.array([game_seed(seed, i) for i in range(deals)], dtype=np.uint64)
    per = np.zeros(deals)
    for seat in range(n):
        m = np.repeat(field_row[None, :], n, axis=0)
        m[seat] = row
        states, _ = play_many(setup, m, seeds)
        per += states[:, S_WINNER] == seat
    per /= n
    return float(per.mean()), 1.96 * float(per.std(ddof=1)) / np.sqrt(deals)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--hero", default="greedy")
    ap.add_argument("--field", default="greedy")
    args = ap.parse_args()
    lib = EchidnaStrategyLibrary()
    hero, field_row = lib.get(args.hero), lib.get(args.field).row()
    print(f"{args.hero} with one set-up change, one seat against three {args.field}, 4 players, {args.deals} deals, par 25%")
    for change in CANDIDATES:
        s = replace(hero, weights={**hero.weights, **change})
        cells = []
        for board in ("forest", "snow"):
            m, h = one_against_three(s.row(), field_row, board, args.deals, args.seed)
            cells.append(f"{board} {100 * m:5.1f} +- {100 * h:.1f}")
        label = ", ".join(f"{k}={v:g}" for k, v in change.items()) or "(profile as is)"
        print(f"  {label:34s} " + "   ".join(cells), flush=True)


if __name__ == "__main__":
    main()
