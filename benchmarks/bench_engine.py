"""Engine benchmark: games/s and decisions/s per core, JIT speed-up, compile times, greedy quality.

    .venv/bin/python benchmarks/bench_engine.py [--games 2000] [--quick] [--json]

(``ssb bench`` prints the same figures.)
"""

import argparse
import json

from ssb.games.shuffle_swing.benchmark import format_report, run_all


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="games per throughput measurement")
    ap.add_argument("--quick", action="store_true", help="small counts, no child-process measurements")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = ap.parse_args()
    fig = run_all(args.games, quick=args.quick)
    print(json.dumps(fig, indent=2) if args.json else format_report(fig))


if __name__ == "__main__":
    main()
