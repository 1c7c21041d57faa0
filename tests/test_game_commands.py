"""Each game's own part of the command line comes from its registry entry (``Game.commands``,
``ssb/games/<game>``), and the shared commands (play, check, strategies list/show) serve every game
with one body: Shuffle and Swing, Echidna Shuffle and the toy game of ``tests/toy_ring``."""

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator import games as registry
from ssb import games as game_cli
from ssb.cli import cli
from toy_game import toy_registered

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_a_games_commands_come_from_its_entry():
    sns, ech = registry.get("shuffle-swing"), registry.get("echidna")
    assert sns.commands == "shuffle_swing" and ech.commands == ""
    assert game_cli.module_of(ech) is None and game_cli.hook(ech, "play_setup") is None
    own = {c.name for c in game_cli.commands()}
    assert own == {"instruments", "bench"} and own <= set(cli.commands)
    # The game's options of the shared commands come from the same module.
    assert {p.name for p in cli.commands["play"].params} >= {"instruments", "instrument_dirs", "board", "variants"}
    assert "all_sets" in {p.name for p in cli.commands["check"].params}


@pytest.mark.parametrize("game, name, word", [("shuffle-swing", "tuned", "focus: "), ("echidna", "lookahead", "depth: ")])
def test_strategies_list_and_show_serve_every_game(game, name, word):
    listed = run("strategies", "list", "--game", game)
    assert listed.exit_code == 0 and name in listed.output
    shown = run("strategies", "show", name, "--game", game)
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith(f"{name}: ") and word in shown.output and "file: " in shown.output


def test_strategies_of_an_unknown_game_are_refused():
    r = CliRunner().invoke(cli, ["strategies", "list", "--game", "nope"])
    assert r.exit_code == 2 and "unknown game 'nope'" in r.output and "Traceback" not in r.output


def test_check_has_one_body_for_every_game():
    sns = run("check", "--games", 2, "--players", 2)
    ech = run("check", "--game", "echidna", "--games", 2, "--players", 2, "--board", "snow")
    for r, setting in ((sns, "Violin/Piano/Horns, 2 players: 2 games"), (ech, "snow, 2 players: 2 games")):
        assert r.exit_code == 0, r.output
        lines = r.output.splitlines()
        assert lines[0].startswith("Soak: ") and lines[1].startswith(setting) and lines[-1].startswith("Total: 2 games")


def test_the_toy_plays_lists_and_soaks_through_the_same_bodies():
    with toy_registered():
        listed = run("strategies", "list", "--game", "ring-race")
        assert listed.exit_code == 0 and "greedy" in listed.output
        soak = run("check", "--game", "ring-race", "--games", 3, "--players", 2)
        assert soak.exit_code == 0, soak.output
        lines = soak.output.splitlines()
        assert lines[1].startswith("ring, 2 players: 3 games") and lines[-1].startswith("Total: 3 games")
        played = run("play", "--game", "ring-race", "--players", 2, "--seed", 3)
        assert played.exit_code in (0, 1) and played.output.strip()


def test_make_bench_hands_another_game_to_its_own_benchmark_or_says_it_has_none():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_engine
    finally:
        sys.path.pop(0)
    assert bench_engine.other_game_script("shuffle-swing") is None  # measured by bench_engine itself
    assert bench_engine.other_game_script("echidna") == ROOT / "benchmarks" / "bench_echidna.py"
    with toy_registered():
        with pytest.raises(SystemExit, match="Ring Race has no engine benchmark"):
            bench_engine.other_game_script("ring-race")
