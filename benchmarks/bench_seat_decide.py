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
it never leaves), and the fixed count that decides the hardest cell of the mix but the edge with
90% power.

    .venv/bin/python benchmarks/bench_seat_decide.py                      # 1000 sequences, looks every 200
    .venv/bin/python benchmarks/bench_seat_decide.py --reps 200 --players 3
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
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    print(f"indifference-zone seat verdict: margin {100 * MARGIN:.0f} pp, zone {100 * ZONE:.0f} pp, alpha 5%; "
          f"{a.reps} sequences per row, looks every {a.look} deals up to {a.cap}, seed {a.seed}; "
          f"{platform.processor() or platform.machine()}\n")
    print("| players | truth (one seat) | called fair | called unfair | open at cap | mean games | 95th pct | "
          "largest | interval design: mean games, open | fixed-n (90% power) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    mixes = []
    for players in [int(x) for x in a.players.split(",")]:
        for i, (dev, label) in enumerate(truths()):
            res = sequences(players, dev, a.reps, a.look, a.cap, a.seed + 100 * players + i)
            code, used = res["zone"]
            icode, iused = res["interval"]
            f = fixed_n(players, dev)
            print(f"| {players} | {label} | {share((code == 1).mean(), a.reps)} | {share((code == -1).mean(), a.reps)} | "
                  f"{100 * (code == 0).mean():.1f}% | {used.mean():,.0f} | {np.quantile(used, 0.95):,.0f} | "
                  f"{used.max():,.0f} | {iused.mean():,.0f}, {100 * (icode == 0).mean():.0f}% | "
                  f"{'-' if not math.isfinite(f) else f'{f:,.0f}'} |")
        zone, interval, fixed = [], [], []
        for j, dev in enumerate(MIX):
            res = sequences(players, dev, a.reps, a.look, a.cap, a.seed + 7 * players + 1000 + j)
            zone.append(res["zone"][1].mean())
            interval.append(res["interval"][1].mean())
            fixed.append(fixed_n(players, dev))
        hardest = max(x for x in fixed if math.isfinite(x))
        mixes.append((players, np.mean(zone), np.mean(interval), hardest))
        sys.stdout.flush()
    print("\ngames on the mix fair, +1, +2, +3 (on the margin), +4, +5, +8 pp (mean per cell):")
    print("| players | zone test | interval design (edge cell at the cap) | fixed count (hardest cell but the edge, "
          "90% power) | zone / interval | zone / fixed |")
    print("|---|---|---|---|---|---|")
    for players, z, i, f in mixes:
        print(f"| {players} | {z:,.0f} | {i:,.0f} | {f:,.0f} | {z / i:.2f}x | {z / f:.2f}x |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
