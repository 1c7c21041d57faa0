"""Regression gate benchmark: its false-fail rate on real A/A runs and its power against a real change.

    .venv/bin/python benchmarks/bench_regress.py [--reps 20] [--awards 9,10,11,12] [--jobs 2]

Each replication plays, with seeds of its own:

* a baseline: the ci scenario with ``--baseline-games`` games (as the committed baseline, 32000);
* an A/A run: the ci scenario as shipped (8000 games), same code and data, other deals. A fail
  here is a false alarm; the gate promises a rate of at most alpha (0.05);
* one changed run per level of the Horns first award (trumpet and saxophone ``score.0.awards``
  first entry 8 -> 9, 10, ...), tested against the same baseline. The share of replications that
  fail is the gate's power at that change; the script reports the smallest change detected in at
  least 90% of the replications.

Rates come with Wilson 95% intervals. ``--sections trumpet`` changes the trumpet section only (a
change half as large), to see where the power falls off. ``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from statsmodels.stats.proportion import proportion_confint

from reports.baseline import build_baseline
from reports.regress import DEFAULT_ALPHA, FAIL, regress
from scenarios.results import load_results
from scenarios.runner import run_scenario

SECTIONS = {"both": ("trumpet", "saxophone"), "trumpet": ("trumpet",)}


def award_sets(first, sections):
    """``--set`` strings giving the Horns sections' first award ``first`` (the others as shipped: 6, 2)."""
    return tuple(f"overrides.Horns.section.{s}.score.0.awards=[{first},6,2]" for s in SECTIONS[sections])


def play(out, games, seed, jobs, sets=()):
    run_scenario("ci", out, jobs=jobs, games=games, seed=seed, sets=sets, force=True, progress=False)
    return load_results(out)


def gate(baseline, tables, alpha):
    seats, games, manifest = tables
    res = regress(baseline, seats, games, manifest, alpha=alpha)
    failed = res["figures"].loc[res["figures"]["verdict"] == FAIL, "label"].tolist()
    return res["verdict"] == FAIL, failed, res["counts"]


def wilson(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20, help="replications (independent seeds)")
    ap.add_argument("--awards", default="9,10,11,12", help="Horns first-award levels to test (shipped: 8)")
    ap.add_argument("--sections", choices=sorted(SECTIONS), default="both", help="sections whose award changes")
    ap.add_argument("--games", type=int, default=None, help="games of the tested runs (default: ci.toml's 8000)")
    ap.add_argument("--baseline-games", type=int, default=32000, help="games of each baseline run")
    ap.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: all cores)")
    ap.add_argument("--seed", type=int, default=5000, help="first seed; replications use seeds from here on")
    ap.add_argument("--json", dest="json_path", default=None, help="write the figures to this file")
    args = ap.parse_args()
    awards = [int(a) for a in args.awards.split(",") if a.strip()]

    tmp = Path(tempfile.mkdtemp(prefix="bench-regress-"))
    t0 = time.perf_counter()
    aa_fail = 0
    aa_counts = Counter()
    detected = {a: 0 for a in awards}
    moved = {a: Counter() for a in awards}
    try:
        for rep in range(args.reps):
            s = args.seed + 1000 * rep
            b = play(tmp / "base", args.baseline_games, s, args.jobs)
            baseline = build_baseline(*b)
            failed, labels, counts = gate(baseline, play(tmp / "aa", args.games, s + 1, args.jobs), args.alpha)
            aa_fail += failed
            aa_counts.update(counts)
            line = [f"rep {rep + 1:3d}: A/A {'FAIL ' + ', '.join(labels) if failed else 'ok'}"]
            for k, a in enumerate(awards):
                changed = play(tmp / "changed", args.games, s + 2 + k, args.jobs, award_sets(a, args.sections))
                failed, labels, _ = gate(baseline, changed, args.alpha)
                detected[a] += failed
                moved[a].update(labels)
                line.append(f"{a}:{'caught' if failed else 'missed'}")
            print("  ".join(line), f"({time.perf_counter() - t0:.0f} s)", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    n = args.reps
    lo, hi = wilson(aa_fail, n)
    total_figs = sum(aa_counts.values())
    print()
    print(f"ci runs of {args.games or 8000} games against baselines of {args.baseline_games} games, alpha {args.alpha}")
    print(f"A/A false-fail rate: {aa_fail}/{n} = {aa_fail / n:.3f} (95% interval {lo:.3f} .. {hi:.3f})")
    print(
        f"A/A figure verdicts: {aa_counts['pass']} pass, {aa_counts['inconclusive']} inconclusive, "
        f"{aa_counts['fail']} fail of {total_figs}"
    )
    if awards:
        print(f"power against the Horns first award 8 -> N ({args.sections} sections):")
    smallest = None
    rows = []
    for a in awards:
        k = detected[a]
        lo_a, hi_a = wilson(k, n)
        top = ", ".join(f"{lab} ({c}/{n})" for lab, c in moved[a].most_common(4))
        print(f"  8 -> {a:2d}: caught {k}/{n} = {k / n:.2f} (95% interval {lo_a:.2f} .. {hi_a:.2f}); moved: {top}")
        rows.append(
            {"award": a, "caught": k, "reps": n, "rate": k / n, "interval": [lo_a, hi_a], "figures": dict(moved[a])}
        )
        if smallest is None and k / n >= 0.9:
            smallest = a
    if not awards:
        pass
    elif smallest is None:
        print("no tested change was caught in 90% of the replications")
    else:
        print(f"smallest change caught in >= 90% of the replications: first award 8 -> {smallest}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    if args.json_path:
        Path(args.json_path).write_text(
            json.dumps(
                {
                    "reps": n,
                    "games": args.games or 8000,
                    "baseline_games": args.baseline_games,
                    "alpha": args.alpha,
                    "sections": args.sections,
                    "aa": {"fails": aa_fail, "rate": aa_fail / n, "interval": [lo, hi], "verdicts": dict(aa_counts)},
                    "power": rows,
                    "smallest_caught_90": smallest,
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
