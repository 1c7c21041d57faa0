"""The strong judge's strength on every setting: ``search_leaf`` head to head against ``search``,
per instrument set and player count, with its cost against a greedy mirror.

    .venv/bin/python benchmarks/bench_leaf_settings.py --sets organ --players 2 --deals 200 --seed 7501
    .venv/bin/python benchmarks/bench_leaf_settings.py --sets singles,multi --players 2,3,4 --deals 200 --seed 7501
    .venv/bin/python benchmarks/bench_leaf_settings.py --sets starter --players 2 --opponents search_deep --deals 100

``--sets`` names instrument sets: ``starter``; ``singles`` (every single swap of the starter set: the
nine other instruments, each in its department's place); ``multi`` (the multi-swap sets of
``MULTI``); ``organ`` (Violin, Organ, Horns); or sets written ``A/B/C``; comma-separated. For every
set and player count of ``--players``: the challenger's (``--challenger``, default ``search_leaf``,
whose leaf is fitted on the set it plays, ``leaf_fit = "setting"``) share of the wins against each
of ``--opponents`` (default ``search``), seats split as the ladder splits them (1-1 at 2 players
with Pri, 2-1 and 1-2 at 3, 2-2 at 4), every seat arrangement of every deal, on the ladder's matrix
deals of ``--seed`` (``strategies.ladder.share``: ``ssb strategies ladder`` and
``bench_head_to_head.py`` play the same games); 95% Student-t interval over deals, par 50%.
``--file-leaf`` adds the same challenger on the shipped leaf file's coefficients (the starter set's
fit, everywhere), for comparison. ``--cost-games N`` (0: none) times, on that set, a mirror of the
challenger against a greedy mirror on the same N deal seeds (CPU time of the process, the leaf's
fit done before the timing; the fit's own CPU time printed beside it).

One line per figure, and with ``--json FILE`` one JSON line each (set, players, opponent, seed,
share, interval, deals, cost). A run is bounded by its deals: at 200 deals a cell against ``search``
costs about 10 s of CPU at 2 players, 35 s at 3 and 40 s at 4 (AMD EPYC); the whole table
(``--sets starter,singles,multi --players 2,3,4 --file-leaf``) about 45 minutes.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.seeds import game_seed, stage_seeds  # noqa: E402
from simulator.shuffle_swing.layout import P_LEAF_MODEL  # noqa: E402
from simulator.shuffle_swing.leaf_fit import LEAF_ON_SETTING, setting_leaf  # noqa: E402
from simulator.shuffle_swing.library import STARTER, InstrumentLibrary  # noqa: E402
from simulator.shuffle_swing.playout import GameSetup, play_many  # noqa: E402
from strategies import ladder as LD  # noqa: E402

ORGAN = ("Violin", "Organ", "Horns")
# Multi-swap sets: two or three departments changed at once.
MULTI = (
    ("Bass", "Harp", "Clarinet"),
    ("Banjo", "Organ", "Trombone"),
    ("Guitar", "Vibes", "Drums"),
    ("Violin", "Harp", "Trombone"),
    ("Bass", "Organ", "Horns"),
)


def single_swaps(lib):
    """Every set that differs from the starter set in one department."""
    out = []
    for name in lib.names():
        d = lib.get(name).department
        if name in STARTER:
            continue
        s = list(STARTER)
        s[[lib.get(n).department for n in STARTER].index(d)] = name
        out.append(tuple(s))
    return out


def parse_sets(text, lib):
    sets = []
    for part in text.split(","):
        part = part.strip()
        if part == "starter":
            sets.append(tuple(STARTER))
        elif part == "organ":
            sets.append(ORGAN)
        elif part == "singles":
            sets += single_swaps(lib)
        elif part == "multi":
            sets += list(MULTI)
        elif part:
            sets.append(tuple(x.strip() for x in part.split("/")))
    seen = []
    for s in sets:
        if s not in seen:
            seen.append(s)
    return seen


def mirror_cost(row, greedy, nplayers, instruments, games, seed):
    """(challenger mirror's CPU seconds per game / greedy mirror's, the leaf fit's CPU seconds)."""
    setup = GameSetup(nplayers=nplayers, instruments=instruments)
    t = time.process_time()
    if row[P_LEAF_MODEL] == LEAF_ON_SETTING:
        setting_leaf(setup.geo, nplayers, row)
    fit_s = time.process_time() - t
    seeds = np.array([game_seed(seed, g) for g in range(games)], dtype=np.uint64)
    play_many(setup, np.array([row] * nplayers), seeds[:1])  # compiled before the timing
    play_many(setup, np.array([greedy] * nplayers), seeds[:1])
    t = time.process_time()
    play_many(setup, np.array([row] * nplayers), seeds)
    ch = time.process_time() - t
    reps = 0
    t = time.process_time()
    while True:  # greedy games are short: repeat them until the timing is not noise
        play_many(setup, np.array([greedy] * nplayers), seeds)
        reps += 1
        if time.process_time() - t > 0.5:
            break
    gr = (time.process_time() - t) / reps
    return ch / gr, fit_s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="organ")
    ap.add_argument("--players", default="2")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7501)
    ap.add_argument("--challenger", default="search_leaf")
    ap.add_argument("--opponents", default="search")
    ap.add_argument("--file-leaf", action="store_true", help="also the challenger on the shipped leaf file's coefficients")
    ap.add_argument("--cost-games", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", default=None, help="append every figure as a JSON line to this file")
    args = ap.parse_args()
    lib = InstrumentLibrary()
    sets = parse_sets(args.sets, lib)
    print(f"CPU: {LD.cpu_model()}; seed {args.seed}, {args.deals} deals a cell, every seat arrangement", flush=True)
    for inst in sets:
        cfg = LD.LadderConfig(deals=args.deals, seed=args.seed, instruments=inst)
        _, ladder, slib, _ = LD.game_ladder(cfg)
        ch = ladder.parse_rung(args.challenger, slib).row()
        challengers = [(args.challenger, ch)]
        if args.file_leaf:
            fl = ch.copy()
            fl[P_LEAF_MODEL] = 1.0
            challengers.append((f"{args.challenger} (leaf file)", fl))
        label = "/".join(inst)
        for n in (int(x) for x in args.players.split(",")):
            seeds = stage_seeds(args.seed, "matrix", n, args.deals)
            cost = fit_s = None
            if args.cost_games:
                greedy = ladder.parse_rung("greedy", slib).row()
                cost, fit_s = mirror_cost(ch, greedy, n, inst, args.cost_games, args.seed)
            for opp in args.opponents.split(","):
                ro = ladder.parse_rung(opp, slib).row()
                for name, row in challengers:
                    t = time.process_time()
                    x = LD.share(row, ro, n, seeds, cfg, args.jobs)
                    c = LD.deal_share_interval(x)
                    cpu = time.process_time() - t
                    extra = f"; mirror x{cost:.1f} greedy (fit {fit_s:.1f} s)" if cost is not None and name == args.challenger else ""
                    print(f"{label} {n}p  {name} vs {opp}: {c['share']:.1%} [{c['lo']:.1%}, {c['hi']:.1%}]  "
                          f"({c['deals']} deals, {cpu:.0f} s CPU){extra}", flush=True)
                    if args.json:
                        with open(args.json, "a", encoding="utf-8") as fh:
                            fh.write(json.dumps({"set": label, "players": n, "challenger": name, "opponent": opp,
                                                 "seed": args.seed, **c, "cost_x_greedy": cost, "fit_cpu_s": fit_s}) + "\n")


if __name__ == "__main__":
    main()
