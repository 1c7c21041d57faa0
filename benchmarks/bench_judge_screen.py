"""Screen candidate strong judges: the cost of a 4-player mirror against a greedy mirror, and a
sequential head-to-head against ``search`` on the settings where a judge is hardest to hold.

    .venv/bin/python benchmarks/bench_judge_screen.py 'search_leaf@budget=12@horizon=5' search_leaf \
        --cost-games 6 --runs 3 --cap 200 --seed 7501

For every rung named (``name[@param=value...]``):

* **cost**: seconds of CPU per game of its 4-player mirror over a greedy mirror's on the same deals
  of the starter set, timed in the same process, the rungs and greedy alternating; the median of
  ``--runs`` runs (``--cost-games`` games of each rung per run; greedy's same games timed just
  before and after each rung, repeated until they take a quarter of a second). ``0`` games: no cost.
* **strength**: on each setting of ``--settings`` (``starter:2``, ``starter:4``, ``organ:2`` ...,
  ``SET:PLAYERS`` with ``SET`` as ``bench_leaf_settings.py --sets`` reads it), the rung against
  ``--opponent`` (default ``search``) head to head as the ladder plays it (every seat arrangement of
  the ladder's matrix deals of ``--seed``), rounds of ``--round`` deals, each setting stopped once
  the betting confidence sequence of the run's proof (``stats.sequences.stronger_verdict``, valid
  at every look) shows the rung stronger or not stronger than its fair half, or at ``--cap`` deals.

One line per figure (share, the sequence's bounds, deals, CPU seconds); ``--json FILE`` appends
each as a JSON line.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_leaf_settings import parse_sets  # noqa: E402
from simulator.seeds import game_seed, stage_seeds  # noqa: E402
from simulator.shuffle_swing.layout import P_LEAF_MODEL  # noqa: E402
from simulator.shuffle_swing.leaf_fit import LEAF_ON_SETTING, setting_leaf  # noqa: E402
from simulator.shuffle_swing.library import STARTER, InstrumentLibrary  # noqa: E402
from simulator.shuffle_swing.playout import GameSetup, play_many  # noqa: E402
from stats.sequences import stronger_verdict  # noqa: E402
from strategies import ladder as LD  # noqa: E402


def mirror_costs(rows, greedy, games, runs, seed):
    """``{label: [ratio per run]}``: CPU seconds per game of each row's 4-player mirror over greedy's."""
    setup = GameSetup(nplayers=4, instruments=tuple(STARTER))
    for _, row in rows:
        if row[P_LEAF_MODEL] == LEAF_ON_SETTING:
            setting_leaf(setup.geo, 4, row)
    seeds = np.array([game_seed(seed, g) for g in range(games)], dtype=np.uint64)
    g4 = np.array([greedy] * 4)
    play_many(setup, g4, seeds[:1])
    for _, row in rows:
        play_many(setup, np.array([row] * 4), seeds[:1])  # compiled, leaf fitted before the timing
    out = {label: [] for label, _ in rows}

    def greedy_per_game():
        reps, t = 0, time.process_time()
        while True:  # greedy games are short: repeated until the timing is not noise
            play_many(setup, g4, seeds)
            reps += 1
            if time.process_time() - t > 0.25:
                return (time.process_time() - t) / reps

    for _ in range(runs):
        for label, row in rows:  # greedy timed just before and after each rung: the load then
            g0 = greedy_per_game()
            t = time.process_time()
            play_many(setup, np.array([row] * 4), seeds)
            dt = time.process_time() - t
            out[label].append(dt / ((g0 + greedy_per_game()) / 2))
    return out


def sequential_share(row, opp, n, inst, seed, cap, rnd, jobs):
    cfg = LD.LadderConfig(deals=cap, seed=seed, instruments=inst)
    seeds = stage_seeds(seed, "matrix", n, cap)
    x = np.empty(0)
    v = None
    t = time.process_time()
    for lo in range(0, cap, rnd):
        x = np.concatenate([x, LD.share(row, opp, n, seeds[lo:lo + rnd], cfg, jobs)])
        v = stronger_verdict(x, 0.5)
        if v["verdict"] != "unproven":
            break
    v["cpu_s"] = time.process_time() - t
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rungs", nargs="+")
    ap.add_argument("--settings", default="starter:2,organ:2,starter:4")
    ap.add_argument("--opponent", default="search")
    ap.add_argument("--seed", type=int, default=7501)
    ap.add_argument("--cap", type=int, default=200)
    ap.add_argument("--round", type=int, default=40)
    ap.add_argument("--cost-games", type=int, default=6)
    ap.add_argument("--cost-seed", type=int, default=2032)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    lib = InstrumentLibrary()
    _, ladder, slib, _ = LD.game_ladder(LD.LadderConfig())

    def emit(rec):
        if a.json:
            with open(a.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")

    print(f"CPU: {LD.cpu_model()}", flush=True)
    if a.cost_games:
        rows = [(r, ladder.parse_rung(r, slib).row()) for r in a.rungs]
        costs = mirror_costs(rows, ladder.parse_rung("greedy", slib).row(), a.cost_games, a.runs, a.cost_seed)
        for label, xs in costs.items():
            med = statistics.median(xs)
            print(f"{label}: 4-player mirror x{med:.1f} greedy (runs {', '.join(f'{x:.1f}' for x in xs)}; "
                  f"{a.cost_games} games, seed {a.cost_seed})", flush=True)
            emit({"rung": label, "cost_x_greedy": med, "runs": xs, "games": a.cost_games, "seed": a.cost_seed})
    for spec in a.settings.split(","):
        sname, _, p = spec.partition(":")
        n = int(p or 2)
        for inst in parse_sets(sname, lib):
            _, ladder_i, slib_i, _ = LD.game_ladder(LD.LadderConfig(instruments=inst))
            opp = ladder_i.parse_rung(a.opponent, slib_i).row()
            for r in a.rungs:
                v = sequential_share(ladder_i.parse_rung(r, slib_i).row(), opp, n, inst, a.seed, a.cap, a.round, a.jobs)
                label = "/".join(inst)
                print(f"{r} vs {a.opponent} {label} {n}p: {v['share']:.1%} [{v['lo']:.1%}, {v['hi']:.1%}] "
                      f"{v['verdict']} ({v['deals']} deals, seed {a.seed}, {v['cpu_s']:.0f} s CPU)", flush=True)
                emit({"rung": r, "opponent": a.opponent, "set": label, "players": n, "seed": a.seed, **v})


if __name__ == "__main__":
    main()
