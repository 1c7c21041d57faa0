"""Calibration of the sequential seat verdict under optional stopping, and the games it saves.

Synthetic truth fed through the report's own code: for each player count and true seat deviation,
REPS sequences of deals (one winner per deal, multinomial) are judged after every LOOK deals up to
CAP with ``stats.sequences.verdicts`` (what ``ssb run`` stops on and ``ssb report``
prints), stopping at the first decided look, as the runner does. Printed per truth: the share
called fair / unfair / left open (Wilson 95% intervals over the sequences), the mean games
to a decision, and the fixed-n design's count for the same errors (alpha 5% each way, 90% power,
``stats.tests``). The games-saved ratio is over a mix of clear and close cells: the fixed-n
design must choose one count before it knows which cell is which (the count for the hardest cell
of the mix), the sequential one adapts.

    .venv/bin/python benchmarks/bench_sequential.py                 # 2000 sequences, looks every 500
    .venv/bin/python benchmarks/bench_sequential.py --reps 300 --look 2000
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats import sequences as SS  # noqa: E402
from stats import tests as stats  # noqa: E402

MARGIN = 0.03
TRUTHS = (-0.03, 0.03, 0.0, 0.01, 0.05, 0.08)  # on the margin (both sides), fair, close, beyond, clear
MIX = (0.0, 0.01, 0.05, 0.08)


def seat_rates(players, dev):
    c = 1.0 / players
    r = np.full(players, (1 - c - dev) / (players - 1))
    r[-1] = c + dev
    return r


def sequences(players, dev, reps, look, cap, seed):
    """Verdict codes (1 fair, -1 unfair, 0 open) and games used of ``reps`` sequences."""
    rng = np.random.default_rng(seed)
    nlooks = cap // look
    code = np.zeros(reps, dtype=int)
    used = np.zeros(reps)
    for lo in range(0, reps, 250):  # in blocks, to bound memory
        k = min(250, reps - lo)
        cum = rng.multinomial(look, seat_rates(players, dev), size=(k, nlooks)).cumsum(axis=1)
        n = np.arange(1, nlooks + 1) * look
        c = SS.verdicts(cum, n[None, :], players, MARGIN, 0.95)[0]
        decided = c != 0
        first = np.where(decided.any(axis=1), decided.argmax(axis=1), nlooks - 1)
        code[lo : lo + k] = c[np.arange(k), first]
        used[lo : lo + k] = n[first]
    return code, used


def fixed_n(players, dev, power=0.9):
    c = 1.0 / players
    if abs(dev) < MARGIN - 1e-12:  # a deviation built as margin +- zone is not exactly the margin
        return stats.games_for_equivalence(c + dev, c, MARGIN, 0.05, power=power)
    if abs(dev) <= MARGIN + 1e-12:
        return math.inf
    return stats.games_for_exceedance(c + dev, c + math.copysign(MARGIN, dev), 0.05 / (2 * players), power=power)


def share(x, reps):
    lo, hi = stats.wilson(x * reps, reps)
    return f"{100 * x:5.1f}% [{100 * float(lo):4.1f}, {100 * float(hi):4.1f}]"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--look", type=int, default=500, help="deals between looks (starter: 500 search, 2000 greedy)")
    ap.add_argument("--cap", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=20261201)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    print(f"sequential seat verdict, margin {100 * MARGIN:.0f} pp, alpha 5%, {a.reps} sequences per row, "
          f"looks every {a.look} deals up to {a.cap}, seed {a.seed}\n")
    print("| players | true deviation of the last seat | called fair | called unfair | open at the cap "
          "| mean games to stop | fixed-n games (90% power) |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for players in (2, 3, 4):
        mix_seq, mix_fixed = [], []
        for i, dev in enumerate(TRUTHS):
            code, used = sequences(players, dev, a.reps, a.look, a.cap, a.seed + 100 * players + i)
            f = fixed_n(players, dev)
            print(f"| {players} | {100 * dev:+.0f} pp | {share((code == 1).mean(), a.reps)} | "
                  f"{share((code == -1).mean(), a.reps)} | {share((code == 0).mean(), a.reps)} | {used.mean():,.0f} | "
                  f"{'-' if not math.isfinite(f) else f'{f:,.0f}'} |")
            if dev in MIX:
                mix_seq.append(used.mean())
                mix_fixed.append(f)
        ratios.append((players, np.mean(mix_seq), max(mix_fixed)))
    print("\ngames saved on the mix (fair, +1 pp, +5 pp, +8 pp): mean sequential games / the fixed-n count that")
    print("decides the hardest cell of the mix with 90% power")
    for players, s, f in ratios:
        print(f"  {players} players: {s:,.0f} / {f:,.0f} = {s / f:.2f}x")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
