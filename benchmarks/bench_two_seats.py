"""The price of judging both seats at two players: the zone test with seat 1 judged alone (S = 2, the
complement read as seat 2) against both seats judged (S = 4, what ``ssb run`` stops on), on the same
synthetic sequences of a game with no stall (seat 2 wins every deal seat 1 does not).

Per truth of seat 1 (0 to +8 points from 50%): the share called fair and unfair and the mean deals to
stop, REPS sequences looked at every LOOK deals up to CAP. Both seats judged cost more only on the
unfair side (its bound rises from log(2 / alpha) to log(4 / alpha)); fair cells are unchanged.

    .venv/bin/python benchmarks/bench_two_seats.py            # 1000 sequences, seed 20261204, seconds
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import zone as SZ  # noqa: E402

M, D, ALPHA = 0.03, 0.01, 0.05


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--look", type=int, default=200)
    ap.add_argument("--cap", type=int, default=80000)
    ap.add_argument("--seed", type=int, default=20261204)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    looks = a.cap // a.look
    n = np.arange(1, looks + 1) * a.look
    print(f"{a.reps} sequences, a look every {a.look} deals up to {a.cap:,}, seed {a.seed}")
    print("| seat 1 | seat 1 alone: fair, unfair, mean deals | both seats: fair, unfair, mean deals |")
    print("|---|---|---|")
    for dev in (0.0, 0.02, 0.03, 0.04, 0.05, 0.08):
        cum = rng.binomial(a.look, 0.5 + dev, size=(a.reps, looks)).cumsum(axis=1)
        wins = np.stack([cum, n[None, :] - cum], axis=-1)
        up, lo = SZ.log_ratios(wins, n[None, :], 2, M, D)
        out = []
        for sides in (2, 4):
            top = np.maximum(up[..., 0], lo[..., 0]) if sides == 2 else np.maximum(up, lo).max(axis=-1)
            code = np.where(top >= math.log(sides / ALPHA), -1, np.where(top <= -math.log(1 / ALPHA), 1, 0))
            decided = code != 0
            first = np.where(decided.any(axis=1), decided.argmax(axis=1), looks - 1)
            c = code[np.arange(a.reps), first]
            out.append(f"{100 * (c == 1).mean():.1f}%, {100 * (c == -1).mean():.1f}%, {n[first].mean():,.0f}")
        print(f"| {50 + 100 * dev:.0f}% | " + " | ".join(out) + " |")


if __name__ == "__main__":
    main()
