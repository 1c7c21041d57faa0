"""Calibration of the seat verdicts and of the paired gate on synthetic data with known truth (large runs).

    .venv/bin/python benchmarks/bench_seat_calibration.py [--reps 20000] [--seed 1] [--only 1,2,...]

The test suite (tests/test_seat_stats.py, tests/test_gate_v2.py) runs small versions of each check;
this script runs them at a size that pins the figures down, and prints each with a Wilson 95%
interval over the replications:

1. coverage of the largest-gap interval at fair seats (2, 3, 4 players, 3000 games), next to the
   earlier bootstrap that fixed the observed best and worst seats;
2. false 'fair' and false 'unfair' rates with one seat exactly on the 3 pp margin (6000 games);
3. a +5 pp seat at 6000 games, alone and inside a run of 192 settings: the per-cell verdict and the
   run-wide reading;
4. 64 settings each with a seat exactly on the margin: the share of runs holding a false 'fair',
   per cell and run-wide;
5. 27 / 26 / 24 / 23 (every seat inside 3 pp, seats 0 and 3 four points apart), 40000 games: fair
   per seat, and with a 3 pp gap margin;
6. a mixed lineup (one dominant strategy, three weak ones, seat 1 +5 pp among equals): how often it
   is called fair (the earlier report: 100%);
7. the paired gate at the least favourable point (every figure moved by exactly its margin): the
   false-fail rate over a run of 12 figures.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from stats import tests as stats
from reports.gate.regress import decide
from stats.tests import margin_tests, mean_and_var


def ci(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {n:,}"


def old_bootstrap_gap(counts, rng, resamples=400):
    """The earlier interval (kept here only to compare): bootstrap with the best and worst seats fixed."""
    n = counts.sum()
    rates = counts / n
    best, worst = int(np.argmax(rates)), int(np.argmin(rates))
    draws = rng.multinomial(n, rates, size=resamples)
    boot = (draws[:, best] - draws[:, worst]) / n
    return np.quantile(boot, [0.025, 0.975])


def verdicts(rng, probs, n, reps, margin=0.03, gap_margin=None):
    probs = np.asarray(probs, dtype=float)
    k = probs.size
    wins = rng.multinomial(n, probs, size=reps).ravel()
    label = np.repeat(np.arange(reps), k)
    return stats.seat_verdicts(
        label, wins, np.full(k * reps, n), np.full(k * reps, k), margin, 0.95, estimate_games=False, gap_margin=gap_margin
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="1,2,3,4,5,6,7", help="which checks to run, e.g. 1,7")
    args = ap.parse_args()
    only = {int(x) for x in args.only.split(",") if x.strip()}
    rng = np.random.default_rng(args.seed)
    reps = args.reps
    t0 = time.perf_counter()

    if 1 in only:
        print("1. largest-gap interval at fair seats, 3000 games")
        for players in (2, 3, 4):
            p = np.full(players, 1 / players)
            new = old = 0
            r = min(reps, 5000)
            for wins in rng.multinomial(3000, p, size=r):
                _, lo, hi, _, _ = stats.gap_interval(wins)
                new += lo <= 0 <= hi
                blo, bhi = old_bootstrap_gap(wins, rng)
                old += blo <= 0 <= bhi
            print(f"   {players} players: simultaneous interval covers {ci(new, r)}; old bootstrap {ci(old, r)}")

    if 2 in only:
        print("2. one seat exactly on the 3 pp margin, 6000 games")
        for probs in ([0.53, 0.47], [1 / 3 + 0.03, 1 / 3 - 0.015, 1 / 3 - 0.015], [0.28, 0.24, 0.24, 0.24]):
            v = verdicts(rng, probs, 6000, reps)["verdict"]
            print(
                f"   {len(probs)} players: false fair {ci(int((v == stats.FAIR).sum()), reps)}, "
                f"false unfair {ci(int((v == stats.UNFAIR).sum()), reps)}"
            )

    if 3 in only:
        print("3. a +5 pp seat (4 players, 6000 games): alone and among 191 fair settings")
        r = min(reps, 2000)
        alone = grid_cell = grid_run = 0
        for _ in range(r):
            target = rng.multinomial(6000, [0.30, 0.2333, 0.2333, 0.2334])
            others = rng.multinomial(6000, [0.25] * 4, size=191).ravel()
            wins = np.concatenate([target, others])
            label = np.repeat(np.arange(192), 4)
            res = stats.seat_verdicts(label, wins, np.full(wins.size, 6000), np.full(wins.size, 4), 0.03, estimate_games=False)
            one = stats.seat_verdicts(np.zeros(4, int), target, np.full(4, 6000), np.full(4, 4), 0.03, estimate_games=False)
            alone += one["verdict"][0] == stats.UNFAIR
            grid_cell += res["verdict"][0] == stats.UNFAIR
            grid_run += bool(res["imbalanced_run"][0])
        print(f"   flagged alone {ci(alone, r)}; inside the grid, per-cell verdict {ci(grid_cell, r)}, run-wide {ci(grid_run, r)}")

    if 4 in only:
        print("4. 64 settings, each with a seat on the margin (4 players, 6000 games): runs holding a false 'fair'")
        r = min(reps, 2000)
        per_cell = run_wide = 0
        for _ in range(r):
            wins = rng.multinomial(6000, [0.28, 0.24, 0.24, 0.24], size=64).ravel()
            label = np.repeat(np.arange(64), 4)
            res = stats.seat_verdicts(label, wins, np.full(wins.size, 6000), np.full(wins.size, 4), 0.03, estimate_games=False)
            per_cell += bool((res["verdict"] == stats.FAIR).any())
            run_wide += bool(res["balanced_run"].any())
        print(f"   per-cell verdicts: {ci(per_cell, r)}; run-wide reading (alpha / 64): {ci(run_wide, r)}")

    if 5 in only:
        print("5. 27 / 26 / 24 / 23 at 40000 games")
        a = verdicts(rng, [0.27, 0.26, 0.24, 0.23], 40000, min(reps, 5000))["verdict"]
        b = verdicts(rng, [0.27, 0.26, 0.24, 0.23], 40000, min(reps, 5000), gap_margin=0.03)["verdict"]
        print(
            f"   per-seat margin only: fair {ci(int((a == stats.FAIR).sum()), a.size)}; with a 3 pp gap margin: "
            f"fair {ci(int((b == stats.FAIR).sum()), b.size)}, unfair {ci(int((b == stats.UNFAIR).sum()), b.size)}"
        )

    if 6 in only:
        print("6. mixed lineup, one dominant strategy, seat 1 +5 pp among equals (4 players, 1500 deals x 4 rotations)")
        r = min(reps, 200)
        called = {}
        lineup = np.array([0, 1, 1, 1])
        odds = np.array([0.2333, 0.30, 0.2333, 0.2333])
        for _ in range(r):
            rot = np.tile(np.arange(4), 1500)
            strat = lineup[(np.arange(4)[None, :] - rot[:, None]) % 4]
            w = odds[None, :] * np.exp(np.where(strat == 0, 7.0, 0.0))
            cum = np.cumsum(w / w.sum(1, keepdims=True), 1)
            win = np.minimum((rng.random((rot.size, 1)) > cum).sum(1), 3)
            fit = stats.conditional_logit(win, strat, np.repeat(np.arange(1500), 4), 2)
            if not fit["identified"]:
                v = "not judged"
            else:
                pi, cov = stats.seat_shares(fit["theta"], fit["cov_theta"])
                v = stats.normal_seat_verdict(pi, cov, 0.03)["verdict"]
            called[v] = called.get(v, 0) + 1
        print("   " + ", ".join(f"{k}: {ci(n, r)}" for k, n in sorted(called.items())))

    if 7 in only:
        print("7. paired gate, 12 figures each moved by exactly its margin (400 deals, correlation 0.7)")
        r = min(reps, 20000)
        common = rng.normal(0, 1, (r, 12, 400))
        base = math.sqrt(0.7) * common + math.sqrt(0.3) * rng.normal(0, 1, (r, 12, 400))
        now = math.sqrt(0.7) * common + math.sqrt(0.3) * rng.normal(0, 1, (r, 12, 400)) + 0.1
        z = now - base
        d, var = mean_and_var(400, z.sum(-1), np.square(z).sum(-1))
        p_eq, p_out = margin_tests(d, np.sqrt(var), 399, 0.1)
        codes, _ = decide(p_eq, p_out, 0.05)
        print(f"   runs with a false fail: {ci(int((codes == 2).any(-1).sum()), r)}")
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
