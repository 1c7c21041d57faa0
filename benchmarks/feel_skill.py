"""Skill vs bot noise per instrument set: the stronger rung as one seat against the weaker, and 2-against-2.

    .venv/bin/python benchmarks/feel_skill.py [--strong tuned] [--weak greedy] [--deals 100] [--seed 2024] [--jobs 1]

For the starter set and every set of the ``expansion`` scenario (each instrument swapped into the
starter set), 4 players: ``strategies.metagame.skill_figures`` (one seat of STRONG against three of
WEAK, every rotation, par 25%; two against two, every arrangement, par 50%), with 95% intervals over
deals (the same deals for every set) and the skill figure ``(share - par) / (1 - par)``. What is not
skill here is mostly the bots' own tie-break noise, not luck of the game (``docs/guide/game-feel.md``).
"""

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scenarios.load import load_scenario  # noqa: E402
from strategies.ladder import cpu_model  # noqa: E402
from strategies.metagame import skill_figures  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strong", default="tuned")
    ap.add_argument("--weak", default="greedy")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    sets = [tuple(s) for s in load_scenario("expansion").sets]
    print(f"CPU: {cpu_model()}; {args.strong} against {args.weak}, 4 players, {args.deals} deals per set, seed {args.seed}")
    print(f"{'set':<28} {'one seat (par 25%)':>26} {'skill':>6} {'2 against 2 (par 50%)':>26} {'skill':>6}")
    for s in sets:
        r = skill_figures(args.strong, args.weak, players=4, deals=args.deals, instruments=s, seed=args.seed, jobs=args.jobs)
        o, t = r["one_seat"], r["two_against_two"]
        print(f"{'/'.join(s):<28} {100 * o['share']:>8.1f}% [{100 * o['lo']:.1f}, {100 * o['hi']:.1f}]    {o['skill']:>6.2f} "
              f"{100 * t['share']:>8.1f}% [{100 * t['lo']:.1f}, {100 * t['hi']:.1f}]    {t['skill']:>6.2f}")


if __name__ == "__main__":
    main()
