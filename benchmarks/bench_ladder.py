"""Skill ladder: random < greedy < lookahead, in mixed 4-player games over every seat rotation.

    .venv/bin/python benchmarks/bench_ladder.py [--deals 25] [--budget 4] [--jobs 2]

Each deal is played in the four cyclic rotations of the lineup (lookahead, greedy, random, random), so
every strategy meets the same deals from every seat. Prints win rates with Wilson intervals and the
mean score per strategy; exits 1 if the ladder is out of order.
"""

import argparse
import sys
import time

import numpy as np
from joblib import Parallel, delayed
from statsmodels.stats.proportion import proportion_confint

from simulator.layout import P_BUDGET, S_SCORE, S_WINNER
from simulator.playout import GameSetup, game_seed, play_many
from strategies.library import StrategyLibrary

LINEUP = ["lookahead", "greedy", "random", "random"]


def play_rotation(rot, deals, budget, seed):
    lib = StrategyLibrary()
    setup = GameSetup(nplayers=4)
    names = LINEUP[rot:] + LINEUP[:rot]
    strat = lib.matrix(names)
    for i, n in enumerate(names):
        if n == "lookahead":
            strat[i, P_BUDGET] = budget
    states, _ = play_many(setup, strat, [game_seed(seed, d) for d in range(deals)])
    return names, states[:, S_WINNER].copy(), states[:, S_SCORE : S_SCORE + 4].copy()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=25)
    ap.add_argument("--budget", type=int, default=4, help="rollouts per candidate move of the lookahead")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    t = time.perf_counter()
    out = Parallel(n_jobs=args.jobs)(
        delayed(play_rotation)(r, args.deals, args.budget, args.seed) for r in range(4)
    )
    wall = time.perf_counter() - t
    wins = {"lookahead": 0, "greedy": 0, "random": 0}
    seats = {"lookahead": 0, "greedy": 0, "random": 0}
    score = {"lookahead": [], "greedy": [], "random": []}
    for names, winners, scores in out:
        for seat, n in enumerate(names):
            seats[n] += len(winners)
            wins[n] += int((winners == seat).sum())
            score[n] += list(scores[:, seat])
    games = 4 * args.deals
    print(f"{games} games (4 rotations x {args.deals} deals), lookahead budget {args.budget}, {wall:.0f} s")
    rates = {}
    for n in ("lookahead", "greedy", "random"):
        lo, hi = proportion_confint(wins[n], seats[n], method="wilson")
        rates[n] = wins[n] / seats[n]
        print(
            f"{n:10s} wins {wins[n]:4d} of {seats[n]:4d} seat-games  win rate {rates[n]:6.1%} "
            f"[{lo:.1%}, {hi:.1%}]  mean score {np.mean(score[n]):6.1f}"
        )
    ok = rates["random"] < rates["greedy"] < rates["lookahead"]
    print("ladder in order: random < greedy < lookahead" if ok else "LADDER OUT OF ORDER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
