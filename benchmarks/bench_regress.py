"""Regression gate benchmark on real runs: the power of the paired gate and the variance cut of pairing.

    .venv/bin/python benchmarks/bench_regress.py [--reps 10] [--awards 9,10] [--jobs 2] [--json FILE]

Each replication takes a run seed of its own and plays, on the deals of that seed:

* a baseline: the ci scenario as shipped (greedy mirrors at 2, 3 and 4 players, 3000 games per cell)
  at that seed;
* one changed run per level of the Horns first award (trumpet and saxophone ``score.0.awards``
  first entry 8 -> 9, 10, ...), on the very same deals, tested against that baseline as `make
  regress` tests a pull request (paired, strict). The share of replications that fail is the
  gate's power at that change.

For every changed run it also measures the *variance cut* of pairing, figure by figure: the
variance of the difference as two independent samples (``var(now) + var(baseline)`` of the means)
over the variance of the paired difference; and how the paired and the independent gate judge
the same tables. An unchanged run on the same deals replays the baseline's games exactly (every
difference 0): a pass by construction, so the false-fail rate of the paired gate is measured on
synthetic pairs at the least favourable point instead (tests/test_gate_v2.py,
benchmarks/bench_seat_calibration.py --gate).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from reports.gate.baseline import build_baseline
from reports.gate.regress import DEFAULT_ALPHA, FAIL, INCONCLUSIVE, regress
from scenarios.results import load_results
from scenarios.runner import run_scenario

SECTIONS = {"both": ("trumpet", "saxophone"), "trumpet": ("trumpet",)}


def award_sets(first, sections):
    """``--set`` strings giving the Horns sections' first award ``first`` (the others as shipped: 6, 2)."""
    return tuple(f"overrides.Horns.section.{s}.score.0.awards=[{first},6,2]" for s in SECTIONS[sections])


def play(out, seed, jobs, sets=(), games=None):
    run_scenario("ci", out, jobs=jobs, games=games, seed=seed, sets=sets, force=True, progress=False)
    return load_results(out)


def wilson(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10, help="replications (independent run seeds)")
    ap.add_argument("--awards", default="9,10", help="Horns first-award levels to test (shipped: 8)")
    ap.add_argument("--sections", choices=sorted(SECTIONS), default="both", help="sections whose award changes")
    ap.add_argument("--games", type=int, default=None, help="games per cell (default: ci.toml's 3000)")
    ap.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: all cores)")
    ap.add_argument("--seed", type=int, default=5000, help="first seed; replications use seeds from here on")
    ap.add_argument("--json", dest="json_path", default=None, help="write the figures to this file")
    args = ap.parse_args()
    levels = [int(x) for x in args.awards.split(",") if x.strip()]
    root = Path(tempfile.mkdtemp(prefix="bench-regress-"))
    t0 = time.perf_counter()
    out = {"levels": {}, "cuts": [], "reps": args.reps}
    fails = {lv: 0 for lv in levels}
    indep_fails = {lv: 0 for lv in levels}
    not_shown = {lv: 0 for lv in levels}
    try:
        for rep in range(args.reps):
            seed = args.seed + rep
            base_tables = play(root / "base", seed, args.jobs, games=args.games)
            baseline = build_baseline(*base_tables, source=root / "base")
            for lv in levels:
                seats, games, manifest = play(root / f"a{lv}", seed, args.jobs, award_sets(lv, args.sections), args.games)
                paired = regress(baseline, seats, games, manifest, alpha=args.alpha)
                indep = regress({**baseline, "cells": [{k: v for k, v in c.items() if k != "deal_seeds"} for c in baseline["cells"]]}, seats, games, manifest, alpha=args.alpha)
                t = paired["figures"].set_index(["cell_key", "figure"])
                u = indep["figures"].set_index(["cell_key", "figure"]).reindex(t.index)
                ok = (t["se"] > 0) & (u["se"] > 0)
                cut = (u["se"][ok] / t["se"][ok]) ** 2
                out["cuts"].extend(cut.tolist())
                fails[lv] += paired["counts"][FAIL] > 0
                not_shown[lv] += paired["counts"][FAIL] == 0 and paired["counts"][INCONCLUSIVE] > 0
                indep_fails[lv] += indep["counts"][FAIL] > 0
                print(
                    f"rep {rep + 1}/{args.reps} award {lv}: paired {paired['counts']}, independent {indep['counts']}, "
                    f"variance cut median {np.median(cut):.2f} (figures {ok.sum()})",
                    flush=True,
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    n = args.reps
    print(f"\n{n} replications, {time.perf_counter() - t0:.0f} s")
    for lv in levels:
        lo, hi = wilson(fails[lv], n)
        ilo, ihi = wilson(indep_fails[lv], n)
        out["levels"][lv] = {"paired_fail": fails[lv], "paired_not_shown": not_shown[lv], "independent_fail": indep_fails[lv]}
        print(
            f"Horns first award 8 -> {lv}: paired gate fails {fails[lv]}/{n} ({100 * lo:.0f} .. {100 * hi:.0f}%), "
            f"not shown {not_shown[lv]}/{n}; the same tables as independent samples fail {indep_fails[lv]}/{n} "
            f"({100 * ilo:.0f} .. {100 * ihi:.0f}%)"
        )
    c = np.asarray(out["cuts"])
    if c.size:
        q = np.quantile(c, [0.1, 0.5, 0.9])
        print(f"variance cut from pairing over {c.size} figure comparisons: median x{q[1]:.2f} (10%: x{q[0]:.2f}, 90%: x{q[2]:.2f})")
        out["cut_quantiles"] = q.tolist()
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
