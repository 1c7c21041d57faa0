"""Calibration of the paired-difference verdicts' two confidence sequences (stats/paired.py): the
asymptotic one (today's) and the finite-sample empirical-Bernstein one (``bounded``), side by side on
synthetic differences of known truth within [-1, 1], the range of a seat's win difference and of an
unbuilt share's.

Kinds of differences (each with mean exactly the truth ``mu``):

* ``normal``: mu + 0.25 Z, Z a standard normal cut at +-3 (spread 0.25);
* ``skewed``: mu + 0.95 (B - E B), B ~ Beta(0.02, 0.3) (spread 0.20, skewness 3.6);
* ``rare jump``: mu + 0.95 (J - 0.02), J = 1 on 1 deal in 50, else 0 (spread 0.13, skewness 6.9);
* ``three-valued``: +1 / 0 / -1 like two win indicators on the same deal, 6% of the deals differ
  (spread 0.24).

One verdict of K measures (K = 1, and K = 8 as at 4 players), margin 0.05 (a seat's win), zone a
fifth of it (0.01), spreads 3 to 5 times the margin as the lab's measures have, judged every LOOK deals (100 and 125) with ``stats.paired.replay`` (the run's own look
rule, first decided look), up to CAP deals. At ``m - z`` (in line in truth) every measure sits at the
truth, the hardest case for a false "out of line"; at ``m + z`` (out of line in truth) one measure
does and the others are at 0, the hardest case for a false "in line"; ``0`` and ``2 m`` show the cost
far from the margin. Printed per row: the error (called out of line at ``m - z`` / in line at
``m + z``, Wilson 95% over the sequences), the share left open at the cap, and the mean deals used.

    .venv/bin/python benchmarks/bench_paired_calibration.py                 # 200 sequences per row
    .venv/bin/python benchmarks/bench_paired_calibration.py --reps 100      # a quick look
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

MARGIN, ZONE, ALPHA = 0.05, 0.2, 0.05
KINDS = ("normal", "skewed", "rare jump", "three-valued")
BETA_A, BETA_B = 0.02, 0.3
JUMP_P, JUMP = 0.02, 0.95
SPREAD = 0.06  # three-valued: the share of deals whose two values differ


def draw(rng, kind, mu, shape):
    """Differences of ``kind`` with mean ``mu`` (broadcast over the last axis), all within [-1, 1]."""
    mu = np.asarray(mu, dtype=float)
    if kind == "normal":
        z = rng.standard_normal(shape)
        while (bad := np.abs(z) > 3).any():
            z[bad] = rng.standard_normal(int(bad.sum()))
        return mu + 0.25 * z
    if kind == "skewed":
        return mu + 0.95 * (rng.beta(BETA_A, BETA_B, shape) - BETA_A / (BETA_A + BETA_B))
    if kind == "rare jump":
        return mu + JUMP * ((rng.random(shape) < JUMP_P) - JUMP_P)
    u = rng.random(shape)
    return np.where(u < (SPREAD + mu) / 2, 1.0, np.where(u < SPREAD, -1.0, 0.0))


def sequences(kind, means, reps, look, cap, seed, interval):
    """Verdict codes and deals used of ``reps`` sequences (blocks bounded in memory)."""
    rng = np.random.default_rng(seed)
    k = len(means)
    codes, used = [], []
    block = max(1, 3_000_000 // (cap * k))
    for lo in range(0, reps, block):
        d = draw(rng, kind, means, (min(block, reps - lo), cap, k))
        c, u = paired.replay(d, [MARGIN] * k, look, ZONE, 1 - ALPHA, interval=interval, radius=1.0)
        codes.append(c)
        used.append(u)
    return np.concatenate(codes), np.concatenate(used)


def wilson(k, n, z=1.96):
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return 100 * max(c - h, 0), 100 * min(c + h, 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--looks", default="100,125")
    ap.add_argument("--cap", type=int, default=12000)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--kinds", default=",".join(KINDS))
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    z = ZONE * MARGIN
    truths = (("0", 0.0, "all"), ("m - z", MARGIN - z, "all"), ("m + z", MARGIN + z, "one"), ("2 m", 2 * MARGIN, "one"))
    print("| kind | K | look | truth | error, asymptotic | error, bounded | open at cap (asym. / bounded) | "
          "mean deals (asym. / bounded) |")
    print("|---|---|---|---|---|---|---|---|")
    for kind in a.kinds.split(","):
        for k in (1, 8):
            for look in (int(x) for x in a.looks.split(",")):
                for i, (label, mu, where) in enumerate(truths):
                    if look != int(a.looks.split(",")[0]) and label in ("0", "2 m"):
                        continue  # the cost far from the margin: at the first look spacing only
                    means = [mu] * k if where == "all" else [mu] + [0.0] * (k - 1)
                    wrong = 1 if label == "m - z" else -1 if label == "m + z" else None
                    cells = {}
                    for interval in (paired.ASYMPTOTIC, paired.BOUNDED):
                        seed = a.seed + 1000 * KINDS.index(kind) + 100 * k + 10 * i + look
                        cells[interval] = sequences(kind, means, a.reps, look, a.cap, seed, interval)
                    err = []
                    for interval in (paired.ASYMPTOTIC, paired.BOUNDED):
                        code = cells[interval][0]
                        if wrong is None:
                            err.append("-")
                        else:
                            bad = int((code == wrong).sum())
                            lo, hi = wilson(bad, a.reps)
                            err.append(f"{100 * bad / a.reps:.1f}% [{lo:.1f}, {hi:.1f}]")
                    opened = " / ".join(f"{100 * (cells[x][0] == 0).mean():.1f}%" for x in paired.INTERVALS[::-1])
                    deals = " / ".join(f"{cells[x][1].mean():,.0f}" for x in paired.INTERVALS[::-1])
                    print(f"| {kind} | {k} | {look} | {label} | {err[0]} | {err[1]} | {opened} | {deals} |", flush=True)
    print(f"\n{a.reps} sequences per row, margin {MARGIN:g}, zone {ZONE:g} of it, alpha {ALPHA:g}, cap {a.cap:,} deals, "
          f"seed {a.seed}; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
