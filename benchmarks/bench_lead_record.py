"""What the per-round lead record costs (``simulator.lead_record``): same-process A/B.

    .venv/bin/python benchmarks/bench_lead_record.py [--games 400] [--repeat 7] [--players 4]

For each game (Shuffle and Swing, the starter set; Echidna Shuffle, the forest board) it plays the
same seeds of a greedy mirror through the plain batch entry point and through the record's, in
alternation (the order reversed every other repeat), and prints the median and range of the
per-repeat ratios of CPU time (record / plain: 1.00 costs nothing, 1.15 is +15%), with the CPU
model. Both entry points give the same final states (checked here too). Off, a run calls the
plain entry point, so the record costs nothing there by construction.

Then the whole run: ``ssb run``'s ``run_scenario`` in this process (one job), the same scenario
with ``record = []``, ``["lead"]`` and (Shuffle and Swing) ``["lead", "setup"]``, the shipped
starter's default, alternately, tables and all (the starter set and the Echidna forest board,
greedy mirrors, ``--run-games`` games). Shuffle and Swing's record includes the projected standing
(the leaf evaluation after every round).
"""

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ab_common import ratio_stats, time_alternately  # noqa: E402

from simulator.echidna.lead_record import play_many_lead as echidna_play_many_lead  # noqa: E402
from simulator.shuffle_swing.lead_record import play_many_lead as sns_play_many_lead  # noqa: E402
from strategies.ladder import cpu_model  # noqa: E402


def _games(players):
    from simulator.echidna.board import EchidnaSetup, Variants
    from simulator.echidna.playout import play_many as e_play
    from simulator.shuffle_swing.playout import GameSetup, play_many
    from simulator.echidna.strategies import EchidnaStrategyLibrary
    from simulator.shuffle_swing.strategies import StrategyLibrary

    sns = GameSetup(nplayers=players)
    ech = EchidnaSetup(players, "forest", Variants())
    return {
        "Shuffle and Swing": (play_many, sns_play_many_lead, sns, StrategyLibrary().matrix(["greedy"] * players)),
        "Echidna Shuffle": (e_play, echidna_play_many_lead, ech, EchidnaStrategyLibrary().matrix(["greedy"] * players)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--run-games", type=int, default=300, help="games of each whole-run A/B (0: skip it)")
    args = ap.parse_args()
    print(f"CPU: {cpu_model()}; {args.games} games per batch, {args.repeat} repeats, {args.players} players, greedy mirrors")
    rng = np.random.default_rng(args.seed)
    for name, (plain, lead, setup, strat) in _games(args.players).items():
        seeds = rng.integers(1, 2**62, size=args.games, dtype=np.int64).astype(np.uint64)
        a = plain(setup, strat, seeds[:8])[0]
        b = lead(setup, strat, seeds[:8])[0]  # both compiled (or loaded) before timing
        assert (a == b).all(), "the record changed a game"
        jobs = {"plain": lambda: plain(setup, strat, seeds), "lead": lambda: lead(setup, strat, seeds)}
        t = time_alternately(jobs, args.repeat)
        med, lo, hi = ratio_stats(t["lead"], t["plain"])
        per = statistics.median(t["plain"]) / args.games * 1e3
        print(f"{name}: record on / off x{med:.3f} (range {lo:.3f} .. {hi:.3f}); plain {per:.2f} ms per game")
    if args.run_games:
        whole_runs(args)


def whole_runs(args):
    import tempfile

    from scenarios.runner import run_scenario

    common = (f"players=[{args.players}]", 'lineup.mirror=["greedy"]')
    runs = {
        "Shuffle and Swing, ssb run ci (the starter set)": ("ci", common, ('record=["lead"]', 'record=["lead", "setup"]')),
        "Echidna Shuffle, ssb run echidna-seats (forest, base)": (
            "echidna-seats", common + ('boards=["forest"]', "variants={ base = {} }"), ('record=["lead"]',)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, (scen, sets, records) in runs.items():
            def job(record, scen=scen, sets=sets):
                run_scenario(scen, Path(tmp) / "run", jobs=1, games=args.run_games,
                             sets=sets + (record,), force=True, progress=False, announce=lambda m: None)
            variants = {"off": "record=[]", **{r.partition("=")[2]: r for r in records}}
            for r in variants.values():
                job(r)
            t = time_alternately({k: (lambda r=r: job(r)) for k, r in variants.items()}, args.repeat)
            for k in records:
                key = k.partition("=")[2]
                med, lo, hi = ratio_stats(t[key], t["off"])
                print(f"{name}: record {key} / off x{med:.3f} (range {lo:.3f} .. {hi:.3f}); off "
                      f"{statistics.median(t['off']):.2f} s CPU")


if __name__ == "__main__":
    main()
