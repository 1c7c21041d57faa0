"""Calibration of the sequential instrument verdict (stats/paired.py): its two errors at
the zone's edges and its deals to a decision, on synthetic paired differences of known truth.

For each kind of measure and true mean difference, REPS (200) sequences of per-deal differences are judged
every LOOK deals up to a cap per measure with ``stats.paired.replay`` (the run's own look rule, first
decided look), as one verdict of K measures: the measure under test at the truth, the K - 1 others
at 0 with the same spread (K = 1, and K = 8 as at 4 players). Kinds: ``points`` (normal, spread 12,
margin 5 points: objective points per game), ``seat`` (three-valued +1 / 0 / -1, the two sets'
winners differ on half the deals, margin 5 pp: a seat's win), ``unbuilt`` (three-valued, a quarter
of the deals differ, margin 10 pp). Zone: a fifth of the margin. Printed per truth: the share called
out of line / in line / open at the cap (Wilson 95% over the sequences), the mean, 95th percentile and
largest deals used, and the planning projection (``deals_to_decide`` at the truth).

    .venv/bin/python benchmarks/bench_sequential_sets.py              # 200 sequences, looks every 200
    .venv/bin/python benchmarks/bench_sequential_sets.py --reps 50 --look 500   # a quick look
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import paired  # noqa: E402

ZONE = 0.2
KINDS = {"points": (5.0, 12.0, None), "seat": (0.05, None, 0.5), "unbuilt": (0.10, None, 0.25)}
CAPS = {"points": 10000, "seat": 60000, "unbuilt": 20000}  # deals per sequence at most


def wilson(k, n, z=1.96):
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return 100 * max(c - h, 0), 100 * min(c + h, 1)


def draw(rng, kind, mu, reps, deals, k):
    m, sd, spread = KINDS[kind]
    means = np.zeros(k)
    means[0] = mu
    if sd is not None:
        return rng.normal(means, sd, size=(reps, deals, k))
    up = (spread + means) / 2
    u = rng.random((reps, deals, k))
    return np.where(u < up, 1.0, np.where(u < spread, -1.0, 0.0))


def sequences(kind, mu, k, reps, look, cap, seed):
    rng = np.random.default_rng(seed)
    m = KINDS[kind][0]
    codes, used = [], []
    block = max(1, 4_000_000 // (cap * k))
    for lo in range(0, reps, block):
        c, u = paired.replay(draw(rng, kind, mu, min(block, reps - lo), cap, k), [m] * k, look, ZONE)
        codes.append(c)
        used.append(u)
    return np.concatenate(codes), np.concatenate(used)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--look", type=int, default=200)
    ap.add_argument("--cap", type=int, default=None, help="deals per sequence at most (default: per measure)")
    ap.add_argument("--seed", type=int, default=20261202)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    print("| measure | K | truth | called out of line | called in line | open at cap | mean deals | 95th pct | "
          "largest | projected |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, (m, sd, spread) in KINDS.items():
        z = ZONE * m
        truths = (("0", 0.0), ("m - z (in line in truth)", m - z), ("m (on the margin)", m),
                  ("m + z (out of line in truth)", m + z), ("2 m", 2 * m))
        for k in (1, 8):
            for i, (label, mu) in enumerate(truths):
                cap = a.cap or CAPS[kind]
                code, used = sequences(kind, mu, k, a.reps, a.look, cap, a.seed + 100 * k + i)
                out = int((code == 1).sum())
                inl = int((code == -1).sum())
                spread_sd = sd if sd is not None else math.sqrt(spread - mu * mu)
                proj = paired.deals_to_decide([mu] + [0.0] * (k - 1), [spread_sd] * k, 0, [m] * k, ZONE)
                lo_o, hi_o = wilson(out, a.reps)
                lo_i, hi_i = wilson(inl, a.reps)
                print(f"| {kind} | {k} | {label} | {100 * out / a.reps:.1f}% [{lo_o:.1f}, {hi_o:.1f}] | "
                      f"{100 * inl / a.reps:.1f}% [{lo_i:.1f}, {hi_i:.1f}] | {100 * (code == 0).mean():.1f}% | "
                      f"{used.mean():,.0f} | {np.percentile(used, 95):,.0f} | {used.max():,} | {proj:,.0f} |",
                      flush=True)
    caps = ", ".join(f"{k} {a.cap or v:,}" for k, v in CAPS.items())
    print(f"\n{a.reps} sequences per row, looks every {a.look} deals up to ({caps}), seed {a.seed}, zone {ZONE:g} "
          f"of the margin; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
