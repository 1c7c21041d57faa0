"""Calibration of the indifference-zone seat verdict (the default of a sequential run), against the
interval design and a fixed count, on synthetic truth fed through the run's own code.

For each player count and true deviation of one seat (the others sharing the rest evenly), REPS
sequences of deals (one winner per deal, multinomial) are judged after every LOOK deals with
``stats.zone.verdicts`` (what ``ssb run`` stops on; ``ssb report`` reads the same
word through ``stats.sequences.cell_record``), stopping at the first decided look, up to
CAP. The same sequences are judged by the interval design (``sequential.test = "interval"``,
``stats.sequences.verdicts``). Printed per truth: the share called fair / unfair / left
open at the cap (Wilson 95% intervals over the sequences), the mean, 95th percentile and largest
games to stop, the interval design's mean games and share left open, and the fixed-n count (90%
power, alpha 5% each way, ``stats.tests``; none exists on the margin itself).

Then the games saved on a mix that includes edge cells (fair, +1, +2, +3 (on the margin), +4, +5,
+8 pp): mean games of each design over the mix (the interval design's edge cell counted at the cap
it never leaves), the fixed count that decides the hardest cell of the mix but the edge with 90%
power, and the like-for-like fixed design: one count for every cell with the zone test's zone and
errors (unfair when some seat's rate is more than m from 1/N, else fair; at most alpha false unfair
with a seat at m - d and at most alpha false fair with a seat at m + d, either sign), found on a grid
of 50 deals by FIXED_REPS seeded multinomial draws per count.

    .venv/bin/python benchmarks/bench_seat_decide.py                      # 1000 sequences, looks every 200
    .venv/bin/python benchmarks/bench_seat_decide.py --reps 200 --players 3
    .venv/bin/python benchmarks/bench_seat_decide.py --mix-only           # the games-saved table alone
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import tests as stats  # noqa: E402
from stats import sequences as SS  # noqa: E402
from stats import zone as SZ  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sequential import fixed_n  # noqa: E402  (the fixed count that decides a cell, same margin)

MARGIN, ZONE = 0.03, 0.01
MIX = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.08)
FIXED_REPS = 40000  # multinomial draws per count of the like-for-like fixed design


def truths():
    m, d = MARGIN, ZONE
    return (
        (0.0, "fair"),
        (m - d, "m - d (fair in truth)"),
        (-(m - d), "-(m - d) (fair in truth)"),
        (m, "m (on the margin: the worst case)"),
        (m + d, "m + d (unfair in truth)"),
        (-(m + d), "-(m + d) (unfair in truth)"),
        (0.01, "+1 pp"),
        (0.05, "+5 pp"),
        (0.08, "+8 pp"),
    )


def seat_rates(players, dev):
    c = 1.0 / players
    r = np.full(players, (1 - c - dev) / (players - 1))
    r[-1] = c + dev
    return r


def sequences(players, dev, reps, look, cap, seed):
    """Codes and games used by both designs on the same ``reps`` sequences."""
    rng = np.random.default_rng(seed)
    nlooks = cap // look
    out = {t: (np.zeros(reps, dtype=int), np.zeros(reps)) for t in ("zone", "interval")}
    n = np.arange(1, nlooks + 1) * look
    for lo in range(0, reps, 100):
        k = min(100, reps - lo)
        cum = rng.multinomial(look, seat_rates(players, dev), size=(k, nlooks)).cumsum(axis=1)
        for t in out:
            if t == "zone":
                c = SZ.verdicts(cum, n[None, :], players, MARGIN, ZONE, 0.95)
            else:
                c = SS.verdicts(cum, n[None, :], players, MARGIN, 0.95)[0]
            decided = c != 0
            first = np.where(decided.any(axis=1), decided.argmax(axis=1), nlooks - 1)
            out[t][0][lo : lo + k] = c[np.arange(k), first]
            out[t][1][lo : lo + k] = n[first]
    return out


def fixed_zone_errors(players, n, seed):
    """The two errors of the fixed-count zone test after ``n`` deals: false unfair with one seat at
    +-(m - d), false fair with one seat at +-(m + d) (the larger of the two signs each)."""
    c = 1.0 / players
    errs = []
    for dev, unfair_in_truth in ((MARGIN - ZONE, False), (MARGIN + ZONE, True)):
        worst = 0.0
        for sign in (1, -1):
            rng = np.random.default_rng([seed, players, n, int(unfair_in_truth), sign + 1])
            wins = rng.multinomial(n, seat_rates(players, sign * dev), size=FIXED_REPS)
            unfair = (np.abs(wins / n - c) > MARGIN).any(axis=1)
            worst = max(worst, float((~unfair if unfair_in_truth else unfair).mean()))
        errs.append(worst)
    return errs


def fixed_zone_n(players, seed, alpha=0.05, step=50):
    """The fewest deals (a multiple of ``step``) from which the fixed-count zone test keeps both
    errors within ``alpha`` (bisection on a doubling bracket; the errors fall as the count grows)."""
    ok = lambda n: max(fixed_zone_errors(players, n, seed)) <= alpha  # noqa: E731
    lo, hi = step, 2 * step
    while not ok(hi):
        lo, hi = hi, hi * 2
    while hi - lo > step:
        mid = (lo + hi) // (2 * step) * step
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def share(x, reps):
    lo, hi = stats.wilson(x * reps, reps)
    return f"{100 * x:.1f}% [{100 * float(lo):.1f}, {100 * float(hi):.1f}]"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--look", type=int, default=200, help="deals between looks")
    ap.add_argument("--cap", type=int, default=80000)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--mix-only", action="store_true", help="only the games-saved table")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    print(f"indifference-zone seat verdict: margin {100 * MARGIN:.0f} pp, zone {100 * ZONE:.0f} pp, alpha 5%; "
          f"{a.reps} sequences per row, looks every {a.look} deals up to {a.cap}, seed {a.seed}; "
          f"{platform.processor() or platform.machine()}\n")
    if not a.mix_only:
        print("| players | truth (one seat) | called fair | called unfair | open at cap | mean games | 95th pct | "
              "largest | interval design: mean games, open | fixed-n (90% power) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
    mixes = []
    for players in [int(x) for x in a.players.split(",")]:
        for i, (dev, label) in enumerate(() if a.mix_only else truths()):
            res = sequences(players, dev, a.reps, a.look, a.cap, a.seed + 100 * players + i)
            code, used = res["zone"]
            icode, iused = res["interval"]
            f = fixed_n(players, dev)
            print(f"| {players} | {label} | {share((code == 1).mean(), a.reps)} | {share((code == -1).mean(), a.reps)} | "
                  f"{100 * (code == 0).mean():.1f}% | {used.mean():,.0f} | {np.quantile(used, 0.95):,.0f} | "
                  f"{used.max():,.0f} | {iused.mean():,.0f}, {100 * (icode == 0).mean():.0f}% | "
                  f"{'-' if not math.isfinite(f) else f'{f:,.0f}'} |")
        zone, interval, fixed, margin_cell = [], [], [], math.nan
        for j, dev in enumerate(MIX):
            res = sequences(players, dev, a.reps, a.look, a.cap, a.seed + 7 * players + 1000 + j)
            zone.append(res["zone"][1].mean())
            if math.isclose(dev, MARGIN):
                margin_cell = res["zone"][1].mean()
            interval.append(res["interval"][1].mean())
            fixed.append(fixed_n(players, dev))
        hardest = max(x for x in fixed if math.isfinite(x))
        same = fixed_zone_n(players, a.seed)
        mixes.append((players, np.mean(zone), np.mean(interval), hardest, same, margin_cell))
        sys.stdout.flush()
    print("\ngames on the mix fair, +1, +2, +3 (on the margin), +4, +5, +8 pp (mean per cell):")
    print("| players | zone test | zone test, the cell on the margin | interval design (edge cell at the cap) | "
          "fixed count, same zone and errors | zone / same-zone fixed | fixed count (hardest cell but the edge, "
          "90% power, no zone) | zone / interval | zone / no-zone fixed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for players, z, mc, i, f, same in ((p, z, mc, i, f, s) for p, z, i, f, s, mc in mixes):
        print(f"| {players} | {z:,.0f} | {mc:,.0f} | {i:,.0f} | {same:,} | {z / same:.2f}x | {f:,.0f} | {z / i:.2f}x | "
              f"{z / f:.2f}x |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
