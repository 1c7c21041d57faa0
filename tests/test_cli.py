"""The ``ssb`` command line end to end, through click's test runner (few, short games)."""

import ast
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.library import INSTRUMENT_DIR, InstrumentLibrary
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.playout_common import SoakReport
from simulator.seeds import game_seed
from ssb.cli import cli
from simulator.shuffle_swing.strategies import StrategyLibrary

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def game4():
    """The default game: four greedy seats, seed 7."""
    result = run("play", "--players", 4, "--seed", 7)
    assert result.exit_code == 0, result.output
    return result.stdout


def assert_user_error(result, *fragments):
    """Exit status 2, one ``error:`` line on stderr naming the fragments, no traceback."""
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ")
    for f in fragments:
        assert f in result.stderr
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


# --------------------------------------------------------------------------- play


def test_play_narrates_a_complete_four_player_game(game4):
    lines = game4.splitlines()
    assert lines[0] == "Shuffle and Swing: 4 players, game seed 7"
    assert "== Round 1 ==" in lines
    assert "Turn 1: Seat 1 (greedy)" in lines
    assert any(line.startswith("Game over after ") for line in lines)
    assert "Final scoring table" in lines
    winner = [line for line in lines if line.startswith("Winner: Seat ")]
    assert len(winner) == 1
    # Every turn header appears once, in order, and the last one matches the summary's turn count.
    turns = [int(line.split(":")[0].split()[1]) for line in lines if line.startswith("Turn ")]
    assert turns == list(range(1, len(turns) + 1))
    assert f"turns: {len(turns)}," in lines[-1]
    for word in ("enters the board", "recruits", "brags", "builds on", "inspector", "scores"):
        assert word in game4


def test_play_defaults_are_four_players_greedy_seed_seven(game4):
    assert run("play").stdout == game4


@pytest.mark.parametrize("players, extra_column", [(2, "Pri"), (3, "neutral")])
def test_play_two_and_three_players(players, extra_column):
    result = run("play", "--players", players, "--seed", 3)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"Shuffle and Swing: {players} players, game seed 3" in out
    table = out[out.index("Final scoring table") :].splitlines()
    columns = [c.strip() for c in table[1].split("  ") if c.strip()]
    assert columns == [f"Seat {p + 1}" for p in range(players)] + [extra_column]
    assert "Winner: Seat " in out
    if players == 2:
        assert "Pri moves clockwise" in out
    else:
        assert "Neutral pieces: Violin" in out


def test_play_same_seed_same_output_different_seed_differs(game4):
    again = run("play", "--players", 4, "--seed", 7).stdout
    other = run("play", "--players", 4, "--seed", 8).stdout
    assert again == game4
    assert other != game4


def test_play_mixed_lineup_names_each_seat():
    result = run("play", "--players", 3, "--strategies", "greedy,random,greedy", "--seed", 2)
    assert result.exit_code == 0, result.output
    assert "Seats in turn order: Seat 1 (greedy), Seat 2 (random), Seat 3 (greedy)" in result.stdout


def test_play_json_scores_add_up():
    result = run("play", "--players", 3, "--strategies", "greedy,random,greedy", "--seed", 4, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["seed"] == 4
    assert doc["setup"]["players"] == 3
    assert doc["setup"]["instruments"] == {"black": "Violin", "orange": "Piano", "gray": "Horns"}
    assert doc["violation"] is None
    seats = doc["seats"]
    assert [s["name"] for s in seats] == ["Seat 1", "Seat 2", "Seat 3"]
    # Score sources add up to the score, and so do the logged score events.
    logged = [0, 0, 0]
    for ev in doc["events"]:
        if ev["event"] == "score":
            logged[ev["owner"]] += ev["points"]
    for s in seats:
        assert s["score"] == sum(s[name] for name in L.SRC_NAMES)
        assert s["score"] == logged[s["seat"]]
    game = doc["game"]
    best = max(s["score"] for s in seats)
    assert seats[game["winner"]]["score"] == best
    assert game["winner_name"] == seats[game["winner"]]["name"]
    assert game["turns"] == len({e["turn"] for e in doc["events"] if e["event"] in ("move", "pass")})
    assert doc["events"][-1]["event"] == "final"
    names = {e["event"] for e in doc["events"]}
    assert {"move", "select", "recruit", "brag", "tick", "score", "game_end"} <= names


def test_play_json_same_seed_same_document():
    a = run("play", "--players", 2, "--seed", 9, "--json").stdout
    b = run("play", "--players", 2, "--seed", 9, "--json").stdout
    assert a == b


# --------------------------------------------------------------------------- check


def test_check_small_soak_is_clean():
    result = run("check", "--games", 30, "--seed", 1)
    assert result.exit_code == 0, result.output
    out = result.stdout
    for n in (2, 3, 4):
        assert f"{n} players: 30 games," in out
    assert out.strip().endswith("no violation")
    assert "games/s" in out


def test_check_reports_violations_with_a_replay_line(monkeypatch):
    import simulator.shuffle_swing.playout as playout

    def fake_soak(setup, strat, games, seed):
        if games == 1:  # the untimed warm-up game
            return SoakReport(1, 10, [])
        return SoakReport(games, 100, [(game_seed(seed, 2), 17, 5, "cats are not conserved")])

    monkeypatch.setattr(playout, "soak", fake_soak)
    result = run("check", "--games", 5, "--seed", 3, "--players", 3)
    assert result.exit_code == 1
    seed = game_seed(3, 2)
    assert f"violation 5 (cats are not conserved) at turn 17 of game seed {seed}" in result.stdout
    assert f"replay: ssb play --players 3 --instruments Violin,Piano,Horns --strategies random --seed {seed}" in (
        result.stdout
    )


def test_check_seeds_replay_with_play():
    """The per-game seed `check` prints, given to `play --seed`, replays that very game."""
    setup = GameSetup(nplayers=3)
    strat = StrategyLibrary().matrix(["random"] * 3)
    seed = game_seed(1, 4)
    states, _ = play_many(setup, strat, [seed], check=True)
    doc = json.loads(run("play", "--players", 3, "--strategies", "random", "--seed", seed, "--json").stdout)
    assert [s["score"] for s in doc["seats"]] == [int(states[0, L.S_SCORE + p]) for p in range(3)]
    assert doc["game"]["turns"] == int(states[0, L.S_TURN])


def test_check_rejects_a_bad_player_count():
    assert_user_error(run("check", "--games", 2, "--players", "2,5"), "'5'", "--players")


# --------------------------------------------------------------------------- user mistakes


def test_unknown_instrument():
    assert_user_error(run("play", "--instruments", "Violin,Piano,Tuba"), "unknown instrument 'Tuba'")


def test_instruments_not_one_per_department():
    assert_user_error(run("play", "--instruments", "Violin,Bass,Horns"), "one instrument per department")


def test_unknown_strategy():
    assert_user_error(run("play", "--strategies", "genius"), "genius", "unknown strategy")


def test_wrong_number_of_strategies():
    assert_user_error(run("play", "--players", 3, "--strategies", "greedy,random"), "3 players, got 2")


def test_bad_player_count():
    assert_user_error(run("play", "--players", 5), "--players")


def test_unknown_command_and_option():
    assert_user_error(run("shuffle"), "No such command")
    assert_user_error(run("play", "--colour", "red"), "--colour")


def test_missing_instrument_dir():
    assert_user_error(run("play", "--instrument-dir", "/no/such/folder"), "/no/such/folder")


def test_malformed_instrument_in_extra_dir(tmp_path):
    (tmp_path / "broken.toml").write_text("[instrument\nname = 'x'\n")
    assert_user_error(run("instruments", "list", "--instrument-dir", tmp_path), "broken.toml", "TOML syntax")


# --------------------------------------------------------------------------- instruments


def test_instruments_list_shows_all_twelve():
    result = run("instruments", "list")
    assert result.exit_code == 0, result.output
    rows = result.stdout.strip().splitlines()
    assert rows[0].split()[:6] == ["name", "department", "set", "spaces", "cost", "sections"]
    names = [r.split()[0] for r in rows[1:]]
    assert len(names) == 12
    assert set(names) == set(InstrumentLibrary().names())
    horns = next(r for r in rows if r.startswith("Horns"))
    assert "gray" in horns and "base" in horns and "rank 8/6/2" in horns


def test_instruments_show_prints_the_layout():
    result = run("instruments", "show", "horns")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("Horns: gray department, base game")
    assert "Spaces:" in out and "Sections:" in out and "Inspector lines (21):" in out
    assert "  t1   1       black   trumpet    t2" in out
    assert "Neutral spaces (3 players): t5, s4" in out
    assert "reconstructed" in out


def test_instruments_validate_good_and_broken(tmp_path):
    good = INSTRUMENT_DIR / "violin.toml"
    result = run("instruments", "validate", good)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"OK {good}: Violin")

    broken = tmp_path / "horns_broken.toml"
    broken.write_text((INSTRUMENT_DIR / "horns.toml").read_text().replace('colour = "orange"', 'colour = "gray"', 1))
    result = run("instruments", "validate", good, broken)
    assert result.exit_code == 2
    assert f"OK {good}" in result.stdout
    assert str(broken) in result.stderr
    assert "space[1].colour" in result.stderr
    assert "Traceback" not in result.output


def test_instruments_draw_writes_a_png(tmp_path):
    out = tmp_path / "piano.png"
    result = run("instruments", "draw", "Piano", "-o", out)
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000


def test_drawing_layout_is_deterministic():
    from simulator.shuffle_swing.drawing import _layout_for

    inst = InstrumentLibrary().get("Vibes")
    a, b = _layout_for(inst), _layout_for(inst)
    assert np.array_equal(a, b)
    d = np.sqrt(((a[:, None, :] - a[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    assert d.min() > 0.5  # circles of radius 0.3 do not overlap much


def test_a_thirteenth_instrument_plays(tmp_path):
    text = (INSTRUMENT_DIR / "horns.toml").read_text().replace('name = "Horns"', 'name = "Tuba"')
    (tmp_path / "tuba.toml").write_text(text)
    listed = run("instruments", "list", "--instrument-dir", tmp_path)
    assert len(listed.stdout.strip().splitlines()) == 1 + 13
    result = run("play", "--instrument-dir", tmp_path, "--instruments", "Violin,Piano,Tuba", "--seed", 7)
    assert result.exit_code == 0, result.output
    assert "  gray   Tuba: " in result.stdout
    assert "Tuba pieces" in result.stdout
    assert "Winner: Seat " in result.stdout


# --------------------------------------------------------------------------- strategies


def test_strategies_list_and_show():
    result = run("strategies", "list")
    assert result.exit_code == 0, result.output
    names = [r.split()[0] for r in result.stdout.strip().splitlines()[1:]]
    assert {"greedy", "random"} <= set(names)
    result = run("strategies", "show", "greedy")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("greedy: greedy")
    for w in L.WEIGHT_NAMES:
        assert f"  {w} " in result.stdout


def test_strategy_dir_adds_a_profile(tmp_path):
    shutil.copy(ROOT / "simulator" / "shuffle_swing" / "data" / "strategies" / "random.toml", tmp_path / "chaos.toml")
    text = (tmp_path / "chaos.toml").read_text().replace('name = "random"', 'name = "chaos"')
    (tmp_path / "chaos.toml").write_text(text)
    result = run("play", "--players", 2, "--strategies", "chaos", "--strategy-dir", tmp_path, "--seed", 1)
    assert result.exit_code == 0, result.output
    assert "Seat 1 (chaos), Seat 2 (chaos)" in result.stdout


# --------------------------------------------------------------------------- layering


@pytest.mark.parametrize("module", ["simulator/shuffle_swing/narrate.py", "simulator/shuffle_swing/drawing.py"])
def test_simulator_modules_do_not_import_click(module):
    tree = ast.parse((ROOT / module).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert "click" not in imported
    assert "ssb" not in imported


# --------------------------------------------------------------------------- narration details


def test_event_dicts_unpack_packed_columns():
    from simulator.shuffle_swing.narrate import event_dicts

    insts = GameSetup().insts
    rows = np.array(
        [
            [3, 1, L.EV_SELECT, 1, 4, 2, 3, 16 + 4],
            [3, 1, L.EV_BUILD, 1, 2, 5, 1, 2 * 16 + 1],
            [3, 1, L.EV_SCORE, 0, 3, L.SRC_INSPECTOR, 2, 5],
        ],
        dtype=np.int32,
    )
    sel, build, score = event_dicts(rows, insts)
    assert sel == {
        "turn": 3, "turn_seat": 1, "event": "select", "seat": 1, "die": 4, "dept": 2, "slice": 3,
        "from_supply": 1, "face": 4, "face_name": "3*", "instrument": "Horns",
    }
    assert (build["cost"], build["ladders"], build["outer"], build["space_id"]) == (2, 1, 1, "t6")
    assert (score["source_name"], score["space_id"], score["points"]) == ("inspector", "t6", 3)
    assert score["source_label"] == "inspector"


def test_narration_of_a_stalled_game_and_a_tie_break():
    from simulator.shuffle_swing.narrate import narrate
    from simulator.shuffle_swing.playout import play_one

    setup = GameSetup(nplayers=2, max_rounds=3)
    record = play_one(setup, StrategyLibrary().matrix(["random", "random"]), 5)
    text = narrate(record, ["random", "random"])
    assert "Game over after 3 rounds: the round cap was reached" in text
    assert text.rstrip().endswith("Rounds: 3, turns: 6, stalled: yes")
    # Force a tie on the final table: the later seat wins it (turn-order tie-break).
    record.state[L.S_SCORE] = record.state[L.S_SCORE + 1]
    record.state[L.S_WINNER], record.state[L.S_TIEBREAK], record.state[L.S_TIED] = 1, 1, 2
    text = narrate(record, ["random", "random"])
    assert "Winner: Seat 2 with" in text
    assert "tied on points with 1 other seat; the tie-break (later in turn order) decided" in text
