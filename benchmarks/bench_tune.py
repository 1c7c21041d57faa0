"""Balance search on a planted problem: does ``ssb tune`` find the change that was made, and only
report fixes that hold?

The planted problem: a copy of the starter data in which the Horns trumpet's first award is cut
from 8 to 0 (``Horns.section.trumpet.score.0.awards.0``), so Horns hands out far fewer objective
points than the other gray instruments. The target: Horns' objective points per game within 10
of the other gray instruments' at 4 players (greedy mirror; the gray swaps of the starter set),
which the shipped data meets and the planted data fails. The search space holds three integer
keys: the planted one (range 0..16, which contains the original 8), the trumpet's third award
(0..16) and Horns' penalty per unbuilt space (0..4).

Each of ``--runs`` independent runs (own seed: own sampler seeds, search deals and fresh deals)
tunes the planted data; the benchmark reports which key and value it found, the games the search
and the confirmation played, the wall time, and re-plays every reported fix on a third set of
deals (``--validate-games`` per cell, a seed no run used): a fix that fails there would be a false
"target met". Candidates that met the target in the search but failed on fresh deals are counted
too (the confirmation step caught them).

    .venv/bin/python benchmarks/bench_tune.py --runs 5 --jobs 2 --out benchmarks/tune-planted.json

``--game echidna`` plants a problem in the second game instead: a token schedule (E7) that hands
all 25 move tokens to the first of 2 players (greedy mirror, forest board), which gives that seat
about 55% of the games. Target: every seat within 3 pp of 50% (and at most 2% of games stalled,
added for a game whose seat verdict leaves stalled games out). The space: the first seat's entry
of the schedule (0..25; the second seat's cannot grow, the supply is spent), the home stretch (E8)
and the stall cap (100..300); ``lookahead`` players must not show the fix failing.

    .venv/bin/python benchmarks/bench_tune.py --game echidna --runs 3 --jobs 2 --out benchmarks/tune-planted-echidna.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from reports.tune.verdicts import judge
from scenarios.tuning import Tuner, candidate_scenario, load_tuning
from simulator.seeds import derive_seed
from scenarios.runner import dispatcher
from scenarios.tuning import GamePlayer
from simulator.shuffle_swing.library import INSTRUMENT_DIR

PLANTED_KEY = "Horns.section.trumpet.score.0.awards.0"
ORIGINAL, PLANTED = 8, 0

SCENARIO = """
name = "planted-gray"
description = "Starter set with the gray instrument swapped, 4 players, greedy mirror; planted Horns data"
seed = 1
games = 2000
players = [4]
instrument_dirs = ["instruments"]
[instruments]
swaps = ["gray"]
[lineup]
mirror = "greedy"
"""

TUNE = """
name = "planted"
description = "Restore Horns' objective points after a planted change of its data"
scenario = "gray.toml"
seed = {seed}
[judges]
search = {{ mirror = "greedy" }}
[search]
max_keys = 3
trials = 12
restarts = 2
rungs = [300, 1200]
batch = 2
confirm_games = 2000
confirm_max = 3
[[target]]
kind = "objective_vs_department"
instrument = "Horns"
margin = 10
players = [4]
[space]
"Horns.section.trumpet.score.0.awards.0" = {{ range = [0, 16] }}
"Horns.section.trumpet.score.0.awards.2" = {{ range = [0, 16] }}
"Horns.instrument.penalty_per_space" = {{ range = [0, 4] }}
"""


ECHIDNA_KEY = "token_schedule.0"
ECHIDNA_SCENARIO = """
game = "echidna"
name = "planted-tokens"
description = "All 25 move tokens to the first of 2 players, greedy mirror, forest board"
seed = 1
games = 4000
players = [2]
boards = ["forest"]
reference = "planted"
[variants]
planted = { catch_up = true, token_schedule = [25, 0] }
[lineup]
mirror = "greedy"
"""

ECHIDNA_TUNE = """
name = "planted-echidna"
description = "Balance the seats again after a planted token schedule"
scenario = "planted.toml"
seed = {seed}
variant = "planted"
[judges]
search = {{ mirror = "greedy" }}
strong = {{ mirror = "lookahead" }}
strong_games = 1000
strong_rule = "not_fail"
[search]
max_keys = 2
trials = 12
restarts = 2
rungs = [1000, 4000]
batch = 2
confirm_games = 8000
confirm_max = 3
[[target]]
kind = "seats_balanced"
players = [2]
margin = 0.03
[space]
"token_schedule.0" = {{ range = [0, 25] }}
home_stretch = {{ values = [true] }}
max_rounds = {{ range = [100, 300] }}
"""


def plant_echidna(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "planted.toml").write_text(ECHIDNA_SCENARIO)


def plant(folder):
    """The planted data: a Horns copy that replaces the shipped one, first trumpet award 8 -> 0."""
    (folder / "instruments").mkdir(parents=True, exist_ok=True)
    text = (INSTRUMENT_DIR / "horns.toml").read_text()
    assert "awards = [8, 6, 2]" in text
    text = text.replace("reconstructed = true\n", "reconstructed = true\nreplaces = true\n", 1)
    text = text.replace("awards = [8, 6, 2]", f"awards = [{PLANTED}, 6, 2]", 1)
    (folder / "instruments" / "horns.toml").write_text(text)
    (folder / "gray.toml").write_text(SCENARIO)


def validate(spec, changes, games, jobs):
    """Verdicts of a change on a set of deals no run used."""
    with dispatcher("local", jobs, None) as dispatch:
        player = GamePlayer(dispatch, jobs)
        sc = candidate_scenario(spec, changes, spec.search_judge, spec.players, games,
                                derive_seed(10**6, "validation"))
        ((seats, g),) = player.tables([sc])
    return judge(seats, g, list(spec.targets), spec.confidence), player.played


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--validate-games", type=int, default=4000)
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    ap.add_argument("--game", choices=("shuffle", "echidna"), default="shuffle",
                    help="plant the problem in Shuffle and Swing (default) or in Echidna Shuffle")
    args = ap.parse_args()
    echidna = args.game == "echidna"
    tune_text, planted_key = (ECHIDNA_TUNE, ECHIDNA_KEY) if echidna else (TUNE, PLANTED_KEY)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (plant_echidna if echidna else plant)(tmp)
        for run in range(1, args.runs + 1):
            (tmp / "tune.toml").write_text(tune_text.format(seed=run))
            spec = load_tuning(tmp / "tune.toml")
            t0 = time.perf_counter()
            res = Tuner(spec, judge, tmp / f"out-{run}", jobs=args.jobs, progress=False).run()
            wall = time.perf_counter() - t0
            fix = res["fix"]
            row = {
                "run": run,
                "seed": run,
                "before": res["before"][0]["verdicts"][0],
                "fix": fix and [(c["key"], c["before"], c["after"]) for c in fix["changes"]],
                "planted_key": bool(fix) and [c["key"] for c in fix["changes"]] == [planted_key],
                "games_search": res["cost"]["search"],
                "games_confirm": res["cost"]["confirm"],
                "strong": fix and [(st["judge"], st["state"]) for st in fix["confirmation"]["stages"][1:]],
                "games_before": res["cost"]["before"],
                "games_total": res["cost"]["total"],
                "trials": res["cost"]["trials"],
                "candidates": res["cost"]["candidates"],
                "met_in_search": sum(s["met_in_search"] for s in res["stages"]),
                "refused_on_fresh_deals": sum(s["failed_confirmation"] for s in res["stages"]),
                "wall_seconds": round(wall, 1),
            }
            if fix:
                v, played = validate(spec, {c["key"]: c["after"] for c in fix["changes"]}, args.validate_games, args.jobs)
                row["validation"] = [x.as_dict() for x in v]
                row["validation_games"] = played
                # A false "target met": the fix shown failing on the third deals; one only not shown
                # met there (open, too few games for the margin) is counted apart.
                row["false_met"] = any(x.state == "failed" for x in v)
                row["met_on_validation"] = all(x.state == "met" for x in v)
            rows.append(row)
            print(json.dumps(row), flush=True)
    fixes = [r for r in rows if r["fix"]]
    summary = {
        "runs": len(rows),
        "restored": len(fixes),
        "planted_key": sum(r["planted_key"] for r in rows),
        "false_met": sum(r.get("false_met", False) for r in fixes),
        "met_on_validation": sum(r.get("met_on_validation", False) for r in fixes),
        "met_in_search": sum(r["met_in_search"] for r in rows),
        "refused_on_fresh_deals": sum(r["refused_on_fresh_deals"] for r in rows),
        "median_wall_seconds": sorted(r["wall_seconds"] for r in rows)[len(rows) // 2],
        "max_wall_seconds": max(r["wall_seconds"] for r in rows),
        "median_games_search": sorted(r["games_search"] for r in rows)[len(rows) // 2],
        "median_games_confirm": sorted(r["games_confirm"] for r in rows)[len(rows) // 2],
        "jobs": args.jobs,
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "runs": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
