"""Echidna Shuffle verdicts at more than one skill level: the report's headline per judge (greedy and
lookahead mirrors) with the robust / skill-sensitive call, seats counted from 1 in the report, and
the skill ladder of the second game (``ssb strategies ladder --game echidna``)."""

import json
import re

import numpy as np
import pandas as pd
from click.testing import CliRunner

from stats import tests as stats
from reports.document import write_report
from reports.build import build_report, game_headline
from reports.frames import setting_of
from reports.io import from_frames
from simulator import games as registry
from reports.headline import ONE_JUDGE, ROBUST, SKILL_SENSITIVE
from reports.seats import seat_advantage
from simulator.echidna.strategies import parse_rung as parse_echidna_rung
from scenarios.results import load_results
from scenarios.runner import run_scenario
from scenarios.load import scenario_from_doc
from ssb.cli import cli
from strategies import ladder as LD
from simulator.echidna.strategies import EchidnaStrategyLibrary


def _games(settings, seed=0):
    """A games table of the generic shape: ``settings`` is a list of (players, board, variant,
    lineup strategy, games, seat probabilities); winners drawn from the probabilities."""
    rng = np.random.default_rng(seed)
    frames = []
    for cell, (n, board, variant, strategy, games, probs) in enumerate(settings):
        winner = rng.choice(n, size=games, p=np.asarray(probs) / np.sum(probs))
        frames.append(
            pd.DataFrame(
                {
                    "cell": cell,
                    "players": n,
                    "board": board,
                    "variant": variant,
                    "lineup": ",".join([strategy] * n),
                    "deal": np.arange(games),
                    "rotation": 0,
                    "game": np.arange(games),
                    "winner": winner,
                    "stalled": 0,
                    "rounds": rng.integers(20, 40, size=games),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


EDGE = [0.2, 0.2, 0.2, 0.4]  # the last seat far outside the margin
FAIR = [0.25, 0.25, 0.25, 0.25]


def test_headline_judges_agree_or_disagree_on_known_truth():
    games = _games(
        [
            (4, "forest", "base", "greedy", 6000, EDGE),
            (4, "forest", "base", "lookahead", 6000, EDGE),  # both see the edge: robust
            (4, "snow", "base", "greedy", 6000, EDGE),
            (4, "snow", "base", "lookahead", 20000, FAIR),  # only the weaker judge sees it
            (4, "snow", "catch_up", "greedy", 6000, FAIR),  # one judge only
        ],
        seed=3,
    )
    setting = setting_of(registry.get("echidna"))
    adv = seat_advantage(games, setting=setting)
    frame, text = game_headline(adv, setting)
    rows = frame.set_index(["board/variant", "judge (lineup)"])
    assert rows.loc[("forest/base", "greedy x4"), "verdict"] == stats.UNFAIR
    assert rows.loc[("forest/base", "lookahead x4"), "verdict"] == stats.UNFAIR
    word = lambda col: {x.split(":")[0] for x in col}  # noqa: E731 (the agreement word, then each judge's lean)
    assert word(frame[frame["board/variant"] == "forest/base"]["across judges"]) == {ROBUST}
    assert rows.loc[("snow/base", "lookahead x4"), "verdict"] == stats.FAIR
    assert word(frame[frame["board/variant"] == "snow/base"]["across judges"]) == {SKILL_SENSITIVE}
    assert rows.loc[("snow/catch_up", "greedy x4"), "across judges"].split(":")[0] == ONE_JUDGE
    assert "the last player (seat 4) wins" in text.split("\n")[0] or "seat 4" in text
    # One row per setting and judge, each judge named; the call counted across settings.
    assert len(frame) == 5
    assert "4 players, snow/base, lookahead x4:" in text
    assert "1 robust, 1 skill-sensitive, 1 one judge of 3 settings" in text
    # Seats from 1 in the headline: the edge sits on seat 4, and no seat 0 is named anywhere.
    assert "seat 4 wins" in text and not re.search(r"\bseat 0\b", text)


TWO_JUDGES = {
    "game": "echidna",
    "name": "judged",
    "seed": 5,
    "games": 8,
    "players": [2, 5],
    "boards": ["forest"],
    "variants": {"base": {}, "tokens": {"catch_up": True}},
    "reference": "base",
    "lineup": {"mirror": ["greedy", "lookahead"], "max_games": {"lookahead": 3}},
}


def test_two_judge_run_counts_seats_from_one(tmp_path):
    sc = scenario_from_doc(TWO_JUDGES, tmp_path / "judged.toml")
    # max_games caps the lookahead lineups only.
    assert {c.lineup[0]: c.deals for c in sc.cells} == {"greedy": 8, "lookahead": 3}
    run_scenario(sc, tmp_path / "run", jobs=1, chunk_size=8, progress=False)
    seats, games, manifest = load_results(tmp_path / "run")  # 5-player cells: a readable manifest
    rep = build_report(from_frames(seats, games, manifest))
    assert set(rep.headline["judge (lineup)"]) == {"greedy x2", "lookahead x2", "greedy x5", "lookahead x5"}
    assert rep.settings == 4 and len(rep.headline) == 8  # 2 player counts x 2 variants, each by 2 judges
    out = write_report(rep, tmp_path / "rep")
    text = rep.headline_text + "\n".join(
        p.read_text() for p in (tmp_path / "rep").iterdir() if p.suffix in (".md", ".html")
    )
    assert out is not None
    assert not re.search(r"\bseat 0\b", text), "a seat numbered from 0 in the report"
    assert "seat 5 win rate" in text and "seat 1 win rate" in text
    var = next(s for s in rep.sections if s.key == "variants")
    assert all("judge greedy x" in f or "judge lookahead x" in f for f in var.findings)
    seat_table = next(t for t in var.tables if t.name == "variant_seat_win_rates")
    assert sorted(seat_table.display["seat"].astype(int).unique()) == [1, 2, 3, 4, 5]
    assert "judge (lineup)" in seat_table.display.columns


def test_echidna_rungs_and_placement():
    lib = EchidnaStrategyLibrary()
    s = parse_echidna_rung("greedy@setup_radius=5@depth=2", lib)
    assert s.weights["setup_radius"] == 5.0 and s.depth == 2 and s.kind == "greedy"
    assert lib.get("greedy").weights["setup_radius"] == 8.0  # the profile is untouched
    c = {"2": {"lo": 0.6, "hi": 0.8}, "4": {"lo": 0.55, "hi": 0.7}}
    level = {"2": {"lo": 0.4, "hi": 0.6}, "4": {"lo": 0.45, "hi": 0.55}}
    lose = {"2": {"lo": 0.1, "hi": 0.3}, "4": {"lo": 0.2, "hi": 0.4}}
    shares = {"random": c, "greedy": level, "lookahead": lose}
    assert LD._place("saboteur", shares, ["random", "greedy", "lookahead"]) == (
        "saboteur: above random, below lookahead, not shown apart from greedy"
    )


def test_ladder_command_for_the_second_game(tmp_path):
    out = tmp_path / "ladder.json"
    args = ["strategies", "ladder", "--game", "echidna", "--rungs", "random,greedy", "--players", "2,5",
            "--deals", "3", "--placed", "saboteur", "--cost-time", "0.01", "--json", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    r = json.loads(out.read_text())
    assert r["game"] == "echidna" and r["board"] == "forest" and r["rungs"] == ["random", "greedy"]
    # Greedy against random: every arrangement of 3 deals, the interval counting deals.
    assert r["matrix"]["2"]["1,0"]["deals"] == 3 and r["matrix"]["2"]["1,0"]["share"] > 0.5
    assert abs(r["matrix"]["5"]["1,0"]["share"] + r["matrix"]["5"]["0,1"]["share"] - 1) < 1e-9
    assert [p["strategy"] for p in r["placed"]] == ["saboteur"] and r["placed"][0]["place"].startswith("saboteur: ")
    assert {a["against"] for a in r["against"].values()} == {"greedy", "lookahead"}
    assert set(r["cost"]) == {"random", "greedy", "saboteur"} and r["depth"] == []
    assert "placed, not a rung: saboteur" in result.output and "Echidna Shuffle on the forest board" in result.output
    bad = CliRunner().invoke(cli, ["strategies", "ladder", "--game", "echidna", "--players", "7"])
    assert bad.exit_code == 2 and "not a player count" in bad.output
