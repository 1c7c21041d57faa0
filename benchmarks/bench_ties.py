"""Share of the greedy turn choices that the 1e-6 noise term decided, per player count and profile.

    .venv/bin/python benchmarks/bench_ties.py [--games 400] [--players 2 3 4] [--profiles greedy greedy_plus]

Each profile plays mirror games (every seat the same profile) on the starter set. The kernel counts,
per game, its greedy turn choices (``S_CHOICES``) and those where another candidate's worth lay
within 1e-6 of the chosen one's, so that the noise decided (``S_TIES_SPOT``); a *genuine* tie
(``S_TIES``) is one where such a candidate differs in more than the pawn spot within the department
(the spots of one department give the same turn, R1, so a tie between them decides nothing). The
interval is a 95% normal interval of the ratio with each game (one deal) as the independent unit.
"""

import argparse
import math
import time

import numpy as np

from simulator.shuffle_swing.layout import S_CHOICES, S_TIES, S_TIES_SPOT
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary


def ratio_interval(num, den):
    """Ratio sum(num) / sum(den) and its 95% half-width, games as clusters (delta method)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    g = len(num)
    r = num.sum() / den.sum()
    if g < 2:
        return r, float("nan")
    resid = num - r * den
    se = math.sqrt((resid**2).sum() / (g * (g - 1))) / den.mean()
    return r, 1.96 * se


def measure(profile, players, games, seed):
    lib = StrategyLibrary()
    setup = GameSetup(nplayers=players)
    strat = lib.matrix([profile] * players)
    states, _ = play_many(setup, strat, [game_seed(seed, i) for i in range(games)])
    c = states[:, S_CHOICES]
    return {
        "choices": int(c.sum()),
        "genuine": ratio_interval(states[:, S_TIES], c),
        "any": ratio_interval(states[:, S_TIES_SPOT], c),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=400, help="games (deals) per profile and player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--profiles", nargs="+", default=["greedy", "greedy_plus"])
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"turn choices decided by the noise term, mirror games, {args.games} games each (95% intervals)")
    print(f"{'profile':<14} {'players':>7} {'choices':>8}  {'genuine ties':>18}  {'any tie (spot-only incl.)':>26}")
    for prof in args.profiles:
        for n in args.players:
            m = measure(prof, n, args.games, args.seed)
            g, gh = m["genuine"]
            a, ah = m["any"]
            print(f"{prof:<14} {n:>7} {m['choices']:>8}  {100 * g:>9.1f}% +- {100 * gh:4.1f}  {100 * a:>17.1f}% +- {100 * ah:4.1f}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
