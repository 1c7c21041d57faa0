"""One challenger seat against a field of one profile: its win rate, every seat rotation, paired deals.

    .venv/bin/python benchmarks/bench_challenger.py greedy_plus [--field greedy] [--players 4] [--deals 500]

Each deal (setup seed) is played once with the challenger in every seat (the other seats hold the
field profile), so the challenger and the field meet the same deals from every seat. The win rate is
the mean over deals of the challenger's wins in that deal's rotations divided by the rotations; its
95% interval is a t interval over deals (the deals are the independent unit, not the games). Par is
1 / players. Also prints the cost per game as a ratio to a field-only mirror on the same deals,
measured in the same run (process CPU time, so a busy machine moves both alike).
"""

import argparse
import time

import numpy as np
from scipy import stats

from simulator.shuffle_swing.layout import S_WINNER
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("challenger")
    ap.add_argument("--field", default="greedy")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args()
    lib = StrategyLibrary()
    n = args.players
    setup = GameSetup(nplayers=n)
    seeds = [game_seed(args.seed, d) for d in range(args.deals)]
    wins = np.zeros(args.deals)
    t_chal = 0.0
    for seat in range(n):
        names = [args.field] * n
        names[seat] = args.challenger
        t = time.process_time()
        states, _ = play_many(setup, lib.matrix(names), seeds)
        t_chal += time.process_time() - t
        wins += states[:, S_WINNER] == seat
    t = time.process_time()
    play_many(setup, lib.matrix([args.field] * n), seeds)
    t_field = (time.process_time() - t) * n
    rate = wins / n
    m = rate.mean()
    half = stats.t.ppf(0.975, args.deals - 1) * rate.std(ddof=1) / np.sqrt(args.deals)
    print(
        f"{args.challenger} as one seat against {n - 1} x {args.field}, {n} players, {args.deals} deals x {n} rotations: "
        f"win rate {100 * m:.1f}% (95% CI {100 * (m - half):.1f} .. {100 * (m + half):.1f}; par {100 / n:.1f}%); "
        f"cost per game x{t_chal / t_field:.2f} of the {args.field} mirror"
    )


if __name__ == "__main__":
    main()
