"""The regression gate for any registered game: the figures each game declares (Game.gate), the
first game's figures unchanged, the committed Echidna Shuffle gate (an A/A replay passes, a planted
change of the catch-up tokens fails on the token figures, E7), a baseline of another game refused,
and the adaptive mode through the runner for the second game."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from reports.gate.baseline import BaselineError, figure_rows, kinds_of, read_baseline
from reports.gate.regress import (
    DEFAULT_MARGINS,
    FAIL,
    INCONCLUSIVE,
    LEFT_OUT,
    PASS,
    RegressInputError,
    compare_tables,
    parse_margins,
    regress,
)
from reports.gate.format import cell_label
from scenarios.results import load_results
from scenarios.runner import run_scenario
from scenarios.load import load_scenario
from simulator import games as registry
from simulator.game_api import GATE_HOWS
from ssb.cli import cli

REPO = Path(__file__).resolve().parent.parent
SNS_BASELINE = REPO / "baselines" / "ci-baseline.json"
ECH_BASELINE = REPO / "baselines" / "echidna-ci-baseline.json"
ECH_FIGURES = [  # what Echidna Shuffle adds to the generic win rates, rounds and stalled games
    ("tokens_spent", "tokens_spent"),
    ("moves_lost", "moves_lost"),
    ("deliveries_off_turn", "deliveries_off_turn"),
    ("pickups", "pickups"),
]
SMALL = 150  # games (deals) per cell of the small Echidna runs: the first deals of the baseline's


def _regress(*args):
    return CliRunner().invoke(cli, ["regress", *map(str, args)])


# =========================================================================== figures per game


def test_first_game_figures_are_those_of_the_committed_baseline():
    """Shuffle and Swing's gate is unchanged: the same 33 figures (ids and kinds) in its 3 cells."""
    doc = read_baseline(SNS_BASELINE)
    assert doc.get("game", registry.DEFAULT_GAME) == registry.DEFAULT_GAME
    total = 0
    for c in doc["cells"]:
        rows = figure_rows(None, c["players"], tuple(c["lineup"]))
        assert [(f, k) for f, k, _ in rows] == [
            *((f"win_rate.seat{s}", "win_rate") for s in range(c["players"])),
            *((f"objective_points.{d}", "objective_points") for d in ("black", "orange", "gray")),
            *((f"build_rate.{d}", "build_rate") for d in ("black", "orange", "gray")),
            ("score_spread", "score_spread"),
            ("rounds", "rounds"),  # the generic figures after the game's own
        ]
        assert sorted((f, k) for f, k, _ in rows) == sorted((f, v["kind"]) for f, v in c["figures"].items())
        total += len(rows)
    assert total == 33
    assert {k: DEFAULT_MARGINS[k] for k in kinds_of(None)} == {
        "win_rate": 0.03,
        "rounds": 0.5,
        "stall_rate": 0.01,
        "objective_points": 1.0,
        "build_rate": 0.03,
        "score_spread": 2.0,
    }


def test_echidna_figure_list_and_margins():
    rows = figure_rows("echidna", 4)
    assert [(f, k) for f, k, _ in rows] == [
        *((f"win_rate.seat{s}", "win_rate") for s in range(4)),
        *ECH_FIGURES,
        ("rounds", "rounds"),
        ("stall_rate", "stall_rate"),  # E9: the stall cap can end an Echidna game
    ]
    # Seats are counted from 1 in what a reader sees; the ids keep the tables' 0-based seat.
    assert [label for _, _, label in rows[:4]] == [f"win rate, seat {s}" for s in (1, 2, 3, 4)]
    kinds = kinds_of("echidna")
    assert {k: kinds[k].margin for k, _ in ECH_FIGURES} == {
        "tokens_spent": 0.5,
        "moves_lost": 0.5,
        "deliveries_off_turn": 0.1,
        "pickups": 0.5,
    }
    assert kinds["stall_rate"].rate and not kinds["tokens_spent"].rate
    # A mixed lineup adds each strategy's win rate, as for the first game.
    mixed = figure_rows("echidna", 2, ("greedy", "random"))
    assert ("win_rate.random", "win_rate") in [(f, k) for f, k, _ in mixed]


def test_every_registered_gate_is_well_formed():
    for name in registry.names():
        g = registry.get(name)
        kinds = kinds_of(g)
        columns = set(g.seat_columns) | set(g.game_columns)
        for f in g.gate.figures:
            assert f.kind in kinds and f.how in GATE_HOWS, (name, f)
            assert f.column in columns, (name, f)
            # A rate is a share of games: only a game column's share can be one.
            assert not kinds[f.kind].rate or f.how == "game_share", (name, f)
        if g.gate.stalls:
            assert "stalled" in g.game_columns


def test_margins_of_either_game_on_the_command_line():
    m = parse_margins(["tokens_spent=1", "stall_rate=2", "win_rate=2", "objective_points=3"])
    assert m["tokens_spent"] == 1.0 and m["stall_rate"] == pytest.approx(0.02) and m["win_rate"] == pytest.approx(0.02)
    assert m["objective_points"] == 3.0
    with pytest.raises(RegressInputError):
        parse_margins(["speed=1"])


def test_cell_labels_of_either_game():
    assert cell_label("players=4|board=snow|variant=catch_up|lineup=greedy,greedy,greedy,greedy") == (
        "4p snow catch_up greedy,greedy,greedy,greedy"
    )
    assert cell_label("players=2|black=Violin|orange=Piano|gray=Horns|lineup=greedy,greedy") == (
        "2p Violin/Piano/Horns greedy,greedy"
    )


def test_two_different_constants_are_a_change_not_left_out():
    """No tokens spent in any baseline game, one in every game now: known exactly, and it fails;
    the same constant in both runs is left out."""
    cols = ["cell_key", "figure", "kind", "label", "n", "sum", "sumsq", "count", "trials"]
    base = pd.DataFrame(
        [("c", "tokens_spent", "tokens_spent", "t", 100, 0.0, 0.0, np.nan, np.nan),
         ("c", "moves_lost", "moves_lost", "m", 100, 0.0, 0.0, np.nan, np.nan)], columns=cols
    )
    now = pd.DataFrame(
        [("c", "tokens_spent", "tokens_spent", "t", 100, 100.0, 100.0, np.nan, np.nan),
         ("c", "moves_lost", "moves_lost", "m", 100, 0.0, 0.0, np.nan, np.nan)], columns=cols
    )
    out = compare_tables(base, now).set_index("figure")
    assert out.loc["tokens_spent", "verdict"] == FAIL and out.loc["tokens_spent", "change"] == 1.0
    assert out.loc["moves_lost", "verdict"] == LEFT_OUT


# =========================================================================== the committed Echidna gate


def test_committed_echidna_baseline_is_of_the_shipped_scenario():
    doc = read_baseline(ECH_BASELINE)
    sc = load_scenario("echidna-ci")
    assert doc["game"] == "echidna" and doc["scenario"]["name"] == "echidna-ci"
    assert doc["run_seed"] == sc.seed and doc["scenario"]["sha256"] == sc.sha256
    assert [c["cell_key"] for c in doc["cells"]] == [c.key for c in sc.cells]
    assert {c.players for c in sc.cells} >= {2, 4, 6} and set(sc.boards) == {"forest", "snow"}
    assert len(sc.variants) >= 2
    for c in doc["cells"]:
        assert c["board"] in ("forest", "snow") and c["variant"] in sc.variants
        assert sorted(c["figures"]) == sorted(f for f, _, _ in figure_rows("echidna", c["players"]))
        assert c["deals"] == sc.games


def test_makefile_gates_each_game_against_its_own_baseline():
    text = (REPO / "Makefile").read_text()
    gates = re.search(r"^REGRESS_GATES\s*:?=\s*(.+)$", text, re.MULTILINE).group(1).split()
    assert gates == ["ci", "ci-strong", "echidna-ci"]
    for gate in gates:
        doc = read_baseline(REPO / "baselines" / f"{gate}-baseline.json")
        assert doc["scenario"]["name"] == gate and doc["run_seed"] == load_scenario(gate).seed
    assert "$(REGRESS_ARGS)" in text.split("regress-%:", 1)[1]
    # CI on a fresh machine runs the tests only; the gates run through `make regress`.
    assert "make test" in (REPO / ".ci" / "run").read_text()


@pytest.fixture(scope="module")
def echidna_runs(tmp_path_factory):
    """Small echidna-ci runs on the committed baseline's own first deals (run seed 1): as shipped,
    with catch-up tokens in the base variant too, with a steeper token schedule; and one on other
    deals (run seed 7)."""
    root = tmp_path_factory.mktemp("echidna-gate")
    runs = {
        "same": (),
        "tokens_on": ("variants.base.catch_up=true",),
        "schedule": ("variants.catch_up.token_schedule=[0,2,2,3,3,4]",),
    }
    out = {}
    for name, sets in runs.items():
        out[name] = root / name
        run_scenario("echidna-ci", out[name], jobs=1, games=SMALL, sets=sets, force=True, progress=False)
    out["other"] = root / "other"
    run_scenario("echidna-ci", out["other"], jobs=1, games=SMALL, seed=7, force=True, progress=False)
    out["root"] = root
    return out


def test_echidna_aa_replay_passes_with_every_figure_paired(echidna_runs):
    js, md = echidna_runs["root"] / "aa.json", echidna_runs["root"] / "aa.md"
    r = _regress(echidna_runs["same"], "--baseline", ECH_BASELINE, "--strict", "--json", js, "--summary-md", md)
    assert r.exit_code == 0, r.output
    doc = json.loads(js.read_text())
    assert doc["gate"] == "PASS" and doc["game"]["name"] == "echidna"
    assert doc["counts"][FAIL] == 0 and doc["counts"][INCONCLUSIVE] == 0 and doc["counts"][PASS] > 0
    assert doc["paired"]["figures"] == doc["paired"]["of"] and doc["paired"]["deals"] == SMALL
    tested = [f for f in doc["figures"] if f["verdict"] != LEFT_OUT]
    assert all(f["change"] == 0.0 for f in tested)
    labels = {f["label"] for f in doc["figures"]}
    assert "win rate, seat 1" in labels and "win rate, seat 6" in labels and "win rate, seat 0" not in labels
    text = md.read_text()
    assert "Echidna Shuffle scenario `echidna-ci`" in text and "| win rate, seat 1 |" in text
    assert "win rate, seat 0" not in text
    assert r.output.startswith("balance regression (Echidna Shuffle): PASS")


def test_catch_up_tokens_turned_on_fail_on_the_token_figure(echidna_runs):
    """E7 switched on in the base variant of the run, not of the baseline: every base cell's tokens
    spent per game moves from 0 to the schedule's total (1, 6, 15 at 2, 4, 6 players)."""
    js, md = echidna_runs["root"] / "on.json", echidna_runs["root"] / "on.md"
    r = _regress(echidna_runs["tokens_on"], "--baseline", ECH_BASELINE, "--json", js, "--summary-md", md)
    assert r.exit_code == 1, r.output
    doc = json.loads(js.read_text())
    failed = [f for f in doc["figures"] if f["verdict"] == FAIL]
    tokens = {f["cell_key"]: f for f in failed if f["figure"] == "tokens_spent"}
    base_cells = [c["cell_key"] for c in read_baseline(ECH_BASELINE)["cells"] if c["variant"] == "base"]
    assert sorted(tokens) == sorted(base_cells)
    for key, f in tokens.items():
        players = int(key.split("|")[0].split("=")[1])
        assert f["baseline"] == 0.0 and f["now"] == pytest.approx(sum(range(players)), abs=0.1)
    # The catch_up cells played the very same games: nothing there moved.
    assert all("variant=catch_up" not in f["cell_key"] for f in failed)
    assert "scenario `set`" in md.read_text() and "tokens spent per game" in md.read_text()


def test_a_steeper_token_schedule_fails_on_the_token_figure(echidna_runs):
    js = echidna_runs["root"] / "schedule.json"
    r = _regress(echidna_runs["schedule"], "--baseline", ECH_BASELINE, "--json", js)
    assert r.exit_code == 1, r.output
    doc = json.loads(js.read_text())
    failed = {(f["cell_key"], f["figure"]) for f in doc["figures"] if f["verdict"] == FAIL}
    catch_up = [c["cell_key"] for c in read_baseline(ECH_BASELINE)["cells"] if c["variant"] == "catch_up"]
    # 0,1,2,3,4,5 -> 0,2,2,3,3,4: one token more at 2 and 4 players, one fewer at 6
    assert {(k, "tokens_spent") for k in catch_up} <= failed
    for f in doc["figures"]:
        if f["figure"] == "tokens_spent" and f["cell_key"] in catch_up:
            players = int(f["cell_key"].split("|")[0].split("=")[1])
            assert f["change"] == pytest.approx(-1.0 if players == 6 else 1.0, abs=0.1)
    assert all("variant=base" not in k for k, _ in failed)


def test_a_baseline_of_the_other_game_is_a_clear_error_and_seats_count_from_1(echidna_runs, tmp_path):
    r = _regress(echidna_runs["same"], "--baseline", SNS_BASELINE)
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.startswith(f"error: {SNS_BASELINE}: game: the baseline is of Shuffle and Swing")
    assert "the run of Echidna Shuffle" in r.output
    # The other way round, on a small Shuffle and Swing run.
    sns = tmp_path / "ci"
    run_scenario("ci", sns, jobs=1, games=4, force=True, progress=False)
    r = _regress(sns, "--baseline", ECH_BASELINE)
    assert r.exit_code == 2 and r.output.startswith(f"error: {ECH_BASELINE}: game: the baseline is of Echidna Shuffle")
    seats, games, manifest = load_results(sns)
    with pytest.raises(RegressInputError) as exc:
        regress(read_baseline(ECH_BASELINE), seats, games, manifest)
    assert exc.value.key == "game"
    # Against its own game's committed baseline (written when labels counted seats from 0) the
    # same run passes on the first 4 deals, and what it shows counts seats from 1.
    js = tmp_path / "sns.json"
    r = _regress(sns, "--baseline", SNS_BASELINE, "--strict", "--json", js)
    assert r.exit_code == 0, r.output
    doc = json.loads(js.read_text())
    assert doc["paired"]["figures"] == doc["paired"]["of"] == 33
    seat = {f["figure"]: f["label"] for f in doc["figures"] if f["cell_key"].startswith("players=2|")}
    assert seat["win_rate.seat0"] == "win rate, seat 1" and seat["win_rate.seat1"] == "win rate, seat 2"


def test_a_baseline_naming_an_unknown_game_or_another_games_kind_is_refused(tmp_path):
    doc = json.loads(ECH_BASELINE.read_text())
    bad = dict(doc, game="chess")
    (tmp_path / "a.json").write_text(json.dumps(bad))
    with pytest.raises(BaselineError) as exc:
        read_baseline(tmp_path / "a.json")
    assert exc.value.key == "game" and "unknown game 'chess'" in exc.value.reason
    sns = json.loads(SNS_BASELINE.read_text())
    sns["cells"][0]["figures"]["rounds"]["kind"] = "tokens_spent"  # an Echidna kind in a Shuffle file
    (tmp_path / "b.json").write_text(json.dumps(sns))
    with pytest.raises(BaselineError) as exc:
        read_baseline(tmp_path / "b.json")
    assert exc.value.key == "cells.0.figures.rounds.kind"


def test_echidna_adaptive_rounds_go_through_the_runner(echidna_runs, tmp_path):
    """Other deals (run seed 7) are compared as independent samples; 150 deals leave figures open,
    and the adaptive mode plays fresh Echidna deals for those cells."""
    js, rounds = tmp_path / "ad.json", tmp_path / "rounds"
    r = _regress(
        echidna_runs["other"], "--baseline", ECH_BASELINE, "--adaptive", "--budget", 2400, "--looks", 2,
        "--json", js, "--rounds-dir", rounds, "-j", 1,
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(js.read_text())
    ad = doc["adaptive"]
    assert len(ad["rounds"]) == 1 and 0 < ad["games"] <= 2400 and doc["counts"][FAIL] == 0
    _, games, manifest = load_results(rounds / "round-01")
    assert manifest["game"] == "echidna" and manifest["run_seed"] not in (1, 7)
    assert set(games["cell_key"]) == set(ad["rounds"][0]["games_per_cell"])
    late = [f for f in doc["figures"] if f["look"] == 2]
    assert late and all(f["deals_now"] > SMALL for f in late)
