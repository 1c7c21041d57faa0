"""Boost tokens gained, spent and left at the end, per profile and player count (mirror games).

    .venv/bin/python benchmarks/bench_tokens.py [--games 400] [--profiles greedy greedy_plus]
"""

import argparse

from simulator.shuffle_swing.layout import N_STAT, S_STAT, S_TOKENS, ST_TOKENS_GAINED, ST_TOKENS_SPENT, TOKEN_NAMES
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--profiles", nargs="+", default=["greedy", "greedy_plus"])
    ap.add_argument("--seed", type=int, default=44)
    args = ap.parse_args()
    lib = StrategyLibrary()
    g = args.games
    for prof in args.profiles:
        for n in (2, 3, 4):
            st, _ = play_many(GameSetup(nplayers=n), lib.matrix([prof] * n), [game_seed(args.seed, i) for i in range(g)])
            gained = sum(int(st[:, S_STAT + p * N_STAT + ST_TOKENS_GAINED].sum()) for p in range(n))
            spent = sum(int(st[:, S_STAT + p * N_STAT + ST_TOKENS_SPENT].sum()) for p in range(n))
            left = [sum(int(st[:, S_TOKENS + p * 3 + k].sum()) for p in range(n)) / (g * n) for k in range(3)]
            kinds = ", ".join(f"{TOKEN_NAMES[k]} {left[k]:.2f}" for k in range(3))
            print(
                f"{prof:<12} {n}p  per seat: gained {gained / g / n:.2f}, spent {spent / g / n:.2f}, "
                f"unspent {100 * (gained - spent) / gained:.1f}% (left: {kinds})"
            )


if __name__ == "__main__":
    main()
