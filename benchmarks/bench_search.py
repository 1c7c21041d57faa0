"""The search player: strength and cost per setting, and its skill depth over doubling budgets.

    .venv/bin/python benchmarks/bench_search.py                        # small: 10 deals per figure
    .venv/bin/python benchmarks/bench_search.py --deals 50 --runs 3 --settings search,16:16,8:16
    .venv/bin/python benchmarks/bench_search.py --opponent tuned --strategy-dir DIR --settings search
    .venv/bin/python benchmarks/bench_search.py --depth-budgets 2,4,8,16,32 --depth-players 2

**Strength and cost.** Each setting (a profile name, or ``BUDGET:HORIZON[:CANDIDATES]`` applied to
``--profile``) takes one seat of a 4-player starter-set game against three ``--opponent`` seats,
in all four seat rotations of every deal (paired deals: every setting meets the same deals). Its
win rate comes with a 95% interval that counts deals, not games, as the independent unit (Wilson
on the design-effect-corrected count, ``stats.tests.wilson_clustered``); par is 25%. Its cost is
the time per game of those games over the time per game of the same deals played by four
``greedy`` seats, both timed in the same run; the median over ``--runs`` runs is reported (the
games are replayed, and must come out identical, which the benchmark checks).

**Mirror cost** (``--mirror``): each setting in all four seats of ``--mirror-deals`` deals against
four ``greedy`` seats on the same deals, the two timed alternately in this process (CPU time of
the process, so other work on the machine counts less), ``--runs`` times; the median ratio and
every run's are printed. This is the cost a strong verdict pays: every seat of its games searches.

**Skill depth** (in the manner of Ludii's SkillTrace): for budgets b = ``--depth-budgets``, the
search with budget 2b plays against the same search with budget b (same horizon and candidates):
head to head at 2 players (par 50%), or one 2b seat against three b seats at 4 players (par 25%),
every seat rotation, paired deals. While the doubled budget keeps winning above par, more budget
still buys skill; the depth is the number of doublings whose interval lies above par.

Absolute times are noisy on a shared machine; only the ratios measured in the same run mean much.
"""

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np

from stats.tests import wilson_clustered
from simulator.shuffle_swing.layout import PARAMS, S_WINNER
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary


def parse_setting(text, lib, profile):
    """A profile name, a ladder rung (``NAME@param=value...``), or BUDGET:HORIZON[:CANDIDATES] on top
    of ``profile``: (label, row)."""
    if "@" in text:
        from simulator.shuffle_swing.strategies import parse_rung

        return text, parse_rung(text, lib).row()
    if ":" not in text:
        return text, lib.get(text).row()
    parts = [int(x) for x in text.split(":")]
    if not 2 <= len(parts) <= 3:
        raise SystemExit(f"error: --settings: {text}: expected BUDGET:HORIZON[:CANDIDATES]")
    row = lib.get(profile).row()
    row[PARAMS["budget"][0]] = parts[0]
    row[PARAMS["horizon"][0]] = parts[1]
    label = f"{profile} budget {parts[0]} horizon {parts[1]}"
    if len(parts) == 3:
        row[PARAMS["candidates"][0]] = parts[2]
        label += f" candidates {parts[2]}"
    return label, row


def rotations(setup, challenger, opponent, seeds):
    """The challenger in every seat against ``opponent`` rows: wins (0/1 per game), deal per game,
    final states, seconds spent."""
    n = setup.nplayers
    wins, deals, states = [], [], []
    t = time.perf_counter()
    for seat in range(n):
        rows = [opponent] * n
        rows[seat] = challenger
        st, _ = play_many(setup, np.array(rows), seeds)
        states.append(st)
        wins += list((st[:, S_WINNER] == seat).astype(int))
        deals += list(range(len(seeds)))
    return np.array(wins), np.array(deals), np.concatenate(states), time.perf_counter() - t


def strength(args, lib, setup):
    seeds = [game_seed(args.seed, d) for d in range(args.deals)]
    greedy = lib.get("greedy").row()
    opponent = lib.get(args.opponent).row()
    play_many(setup, np.array([greedy] * 4), seeds[:1])  # compile or load the kernel first
    print(
        f"strength and cost: one seat against three {args.opponent}, 4 players, starter set, "
        f"{args.deals} deals x 4 rotations, median cost of {args.runs} runs"
    )
    print(f"{'setting':46s} {'win %':>6s} {'95% interval (deals)':>21s} {'cost x greedy':>14s}  runs")
    out = []
    for text in args.settings.split(","):
        label, row = parse_setting(text.strip(), lib, args.profile)
        ratios = []
        first = None
        for _ in range(args.runs):
            t = time.perf_counter()
            play_many(setup, np.array([greedy] * 4), seeds)
            t_greedy = (time.perf_counter() - t) / len(seeds)
            wins, deals, states, secs = rotations(setup, row, opponent, seeds)
            if first is None:
                first = states
            elif not np.array_equal(first, states):
                raise SystemExit("error: a replayed game differs: the kernel is not deterministic")
            ratios.append(secs / (4 * len(seeds)) / t_greedy)
        rate, lo, hi, _ = wilson_clustered(wins, deals)
        ratio = statistics.median(ratios)
        runs = " ".join(f"{r:.0f}" for r in ratios)
        print(f"{label:46s} {100 * rate:6.1f} {f'[{100 * lo:.1f}, {100 * hi:.1f}]':>21s} {ratio:13.1f}x  {runs}")
        out.append((label, rate, lo, hi, ratio))
    return out


def mirror_cost(args, lib, setup):
    """Seconds per game of a 4-seat mirror of each setting over greedy's, CPU time of this process,
    alternating, median of ``--runs``."""
    seeds = [game_seed(args.seed + 2, d) for d in range(args.mirror_deals)]
    greedy = np.array([lib.get("greedy").row()] * 4)
    play_many(setup, greedy, seeds[:1])
    reps = max(1, int(200 / max(1, len(seeds))))  # greedy games are short: repeat them to a timeable size
    print(f"\nmirror cost: four seats of the setting against four greedy seats, {args.mirror_deals} deals, CPU time, median of {args.runs} runs")
    out = []
    for text in args.settings.split(","):
        label, row = parse_setting(text.strip(), lib, args.profile)
        strat = np.array([row] * 4)
        ratios = []
        for _ in range(args.runs):
            t = time.process_time()
            for _ in range(reps):
                play_many(setup, greedy, seeds)
            t_greedy = (time.process_time() - t) / reps
            t = time.process_time()
            play_many(setup, strat, seeds)
            ratios.append((time.process_time() - t) / t_greedy)
        ratio = statistics.median(ratios)
        print(f"{label:46s} {ratio:8.1f}x   runs " + " ".join(f"{r:.1f}" for r in ratios))
        out.append((label, ratio, ratios))
    return out


def depth(args, lib, setup):
    budgets = [int(b) for b in args.depth_budgets.split(",")]
    n = args.depth_players
    dsetup = setup if n == setup.nplayers else GameSetup(nplayers=n)
    seeds = [game_seed(args.seed + 1, d) for d in range(args.depth_deals)]
    par = 1.0 / n
    what = "head to head at 2 players" if n == 2 else f"one seat against {n - 1} at {n} players"
    print(f"\nskill depth: budget 2b against budget b, {what}, {args.depth_deals} deals x {n} rotations (par {par:.0%})")
    print(f"{'b -> 2b':>10s} {'win % of 2b':>12s} {'95% interval (deals)':>21s}")
    depth_levels = 0
    counting = True
    for b in budgets:
        _, base = parse_setting(f"{b}:{args.depth_horizon}", lib, args.profile)
        _, doubled = parse_setting(f"{2 * b}:{args.depth_horizon}", lib, args.profile)
        wins, deals, _, _ = rotations(dsetup, doubled, base, seeds)
        rate, lo, hi, _ = wilson_clustered(wins, deals)
        above = lo > par
        if counting and above:
            depth_levels += 1
        else:
            counting = False
        print(f"{f'{b} -> {2 * b}':>10s} {100 * rate:12.1f} {f'[{100 * lo:.1f}, {100 * hi:.1f}]':>21s}  {'above par' if above else ''}")
    print(f"skill depth: {depth_levels} doubling(s) from budget {budgets[0]} with the interval above par")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--settings", default="search,search_deep,8:8,16:16", help="profile names or BUDGET:HORIZON[:CANDIDATES]")
    ap.add_argument("--profile", default="search", help="profile the BUDGET:HORIZON settings modify")
    ap.add_argument("--opponent", default="greedy", help="the three other seats")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3, help="timing runs (median reported)")
    ap.add_argument("--depth-budgets", default="1,2,4,8", help="budgets b of the skill-depth pairs (2b vs b)")
    ap.add_argument("--depth-horizon", type=int, default=16)
    ap.add_argument("--depth-players", type=int, default=2, choices=(2, 4))
    ap.add_argument("--depth-deals", type=int, default=10)
    ap.add_argument("--no-depth", action="store_true", help="skip the skill-depth figure")
    ap.add_argument("--mirror", action="store_true", help="also the cost of 4-seat mirrors of each setting")
    ap.add_argument("--mirror-deals", type=int, default=12)
    ap.add_argument("--no-strength", action="store_true", help="skip the strength and cost table")
    ap.add_argument("--strategy-dir", action="append", default=[], help="extra profile folder")
    ap.add_argument("--seed", type=int, default=2027)
    args = ap.parse_args()
    lib = StrategyLibrary(extra_dirs=tuple(args.strategy_dir))
    setup = GameSetup(nplayers=4)
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("Model name")), "?")
    print(f"CPU: {model} (shared machine: absolute times are noisy, ratios less so)\n")
    if not args.no_strength:
        strength(args, lib, setup)
    if args.mirror:
        mirror_cost(args, lib, setup)
    if not args.no_depth:
        depth(args, lib, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
