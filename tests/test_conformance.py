"""Every registered game through the same checks (after pgx's api_test and OpenSpiel's playthroughs):
the shipped games and the toy third game of the tests. A new game is tested the day it registers.

Per game, on its own gate scenario with few games: the same tables with one and with two workers;
a run resumed after a lost chunk ends with the same tables; a soak of random games at every player
count keeps every invariant; the balance report renders; bad input is an error naming file and key.
"""

import contextlib
import tomllib

import pandas as pd
import pytest

from reports.make import make_report
from scenarios.load import scenario_from_doc
from scenarios.results import load_results
from scenarios.runner import run_scenario
from scenarios.spec import find_scenario
from simulator import games as registry
from simulator.errors import DataError
from toy_game import TOY, toy_registered

GAMES = [*registry.names(), TOY]


@pytest.fixture(params=GAMES)
def game(request):
    ctx = toy_registered() if request.param == TOY else contextlib.nullcontext()
    with ctx:
        yield registry.get(request.param)


def _doc(game):
    path = find_scenario(game.gate_scenario)
    return tomllib.loads(path.read_text()), path


def _small(game, games=8):
    doc, path = _doc(game)
    return scenario_from_doc(doc, path, games=games)


def test_same_tables_whatever_the_workers_and_after_a_resume(game, tmp_path):
    sc = _small(game)
    run_scenario(sc, tmp_path / "one", jobs=1, chunk_size=4, progress=False, announce=lambda m: None)
    run_scenario(sc, tmp_path / "two", jobs=2, chunk_size=4, progress=False, announce=lambda m: None)
    s1, g1, m1 = load_results(tmp_path / "one")
    s2, g2, _ = load_results(tmp_path / "two")
    pd.testing.assert_frame_equal(s1, s2)
    pd.testing.assert_frame_equal(g1, g2)
    assert m1["game"] == game.name and list(g1.columns) == m1["columns"]["games"]
    assert list(s1.columns) == m1["columns"]["seats"]
    # A lost chunk is played again by --resume, and the tables are the same.
    for table in ("seats", "games"):
        (tmp_path / "one" / table / "chunk-00001.parquet").unlink()
    run_scenario(sc, tmp_path / "one", jobs=1, chunk_size=4, resume=True, progress=False, announce=lambda m: None)
    s3, g3, _ = load_results(tmp_path / "one")
    pd.testing.assert_frame_equal(s1, s3)
    pd.testing.assert_frame_equal(g1, g3)


def test_soak_keeps_every_invariant(game):
    lib = game.strategies(())
    board = game.boards[0] if game.boards else None
    for n in game.player_counts:
        rep = game.soak(game.setup(n, board, None), lib.matrix(["random"] * n), 60, 11)
        assert rep.games == 60 and rep.turns > 0
        assert rep.violations == [], (game.name, n, rep.violations[:3])


def test_report_renders(game, tmp_path):
    run_scenario(_small(game, 6), tmp_path / "run", jobs=1, progress=False, announce=lambda m: None)
    report, written = make_report(tmp_path / "run", tmp_path / "rep")
    assert report.title.startswith(f"{game.title} balance report")
    assert written["html"].is_file() and written["markdown"].is_file() and written["csv"]
    assert game.title in written["html"].read_text()


def test_bad_input_names_file_and_key(game):
    doc, path = _doc(game)
    too_many = max(game.player_counts) + 1
    with pytest.raises(DataError) as e:
        scenario_from_doc({**doc, "players": [too_many]}, path)
    assert e.value.file == str(path) and e.value.key == "players[0]"
    with pytest.raises(DataError) as e:
        scenario_from_doc({**doc, "lineup": {"mirror": ["no-such-strategy"]}}, path)
    assert e.value.key.startswith("lineup.mirror")
    with pytest.raises(DataError) as e:
        scenario_from_doc({**doc, "colour": "blue"}, path)
    assert "unknown key 'colour'" in e.value.reason
    with pytest.raises(DataError) as e:
        scenario_from_doc({**doc, "game": "no-such-game"}, path)
    assert e.value.key == "game" and "known:" in e.value.reason


def test_sequential_rounds_judge_every_cell(game, tmp_path):
    """``[sequential]`` (``--set sequential=true``) on the game's gate scenario, its default strategy
    mirrored: each cell is played in rounds and judged at every look, and what the record says it
    played is what the tables hold, the same after a resume of the finished run."""
    doc, path = _doc(game)
    doc = {**doc, "lineup": {"mirror": [game.default_strategy]}}
    sc = scenario_from_doc(doc, path, games=300, sets=("sequential=true", "sequential.round=100"))
    assert sc.sequential is not None and all(len(set(c.lineup)) == 1 for c in sc.cells)
    summary = run_scenario(sc, tmp_path / "seq", jobs=1, chunk_size=50, progress=False, announce=lambda m: None)
    seq = summary.manifest["sequential"]
    assert len(seq["cells"]) == len(sc.cells) and seq["rounds"]
    _, g, manifest = load_results(tmp_path / "seq")
    for rec, cell in zip(seq["cells"], sc.cells):
        assert rec["cell"] == cell.index and rec["stop"] in ("decided", "cap", "budget", "seconds")
        assert rec["verdict"] in ("fair", "unfair", "undecided")
        assert rec["looks"] and rec["looks"][-1] == rec["games"] <= cell.games
        assert (g["cell"] == cell.index).sum() == rec["games"]
    again = run_scenario(sc, tmp_path / "seq", jobs=1, resume=True, progress=False, announce=lambda m: None)
    assert again.games_played == 0 and again.manifest["sequential"]["cells"] == seq["cells"]


def test_tune_serves_the_game_or_refuses_it_with_the_reason(game, tmp_path):
    """``ssb tune``: a shipped tuning file of the game reads (its search space checked against the
    game's data or switches), or a tuning file of the game's gate scenario is refused naming the game
    and what it does not declare."""
    from scenarios.spec import SCENARIO_DIR
    from scenarios.tuning import load_tuning

    specs = []
    for p in sorted((SCENARIO_DIR / "tunes").glob("*.toml")):
        if "[space]" in p.read_text():
            spec = load_tuning(p)
            if spec.scenario.game == game.name:
                specs.append(spec)
    if specs:
        assert all(s.params and s.targets for s in specs)
        return
    n = game.player_counts[0]
    (tmp_path / "tune.toml").write_text(
        f'name = "t"\nscenario = "{find_scenario(game.gate_scenario)}"\nseed = 1\n\n'
        f'[judges]\nsearch = {{ mirror = "{game.default_strategy}" }}\n\n'
        f'[[target]]\nkind = "seats_balanced"\nplayers = [{n}]\nmargin = 0.04\n\n'
        '[space]\nswitch = { range = [0, 1] }\n')
    with pytest.raises(DataError) as e:
        load_tuning(tmp_path / "tune.toml")
    assert e.value.key == "scenario" and game.title in e.value.reason and "declares no tunable" in e.value.reason


def test_strategy_tune_serves_the_game_or_refuses_it_with_the_reason(game):
    """``ssb strategies tune``: a game whose entry declares its weight rows (``Game.weight_tune``)
    plays a candidate's seat on its starter setting; any other game is refused with exit 2 naming
    the game and what it does not declare, before any game is played."""
    import numpy as np
    from click.testing import CliRunner

    from ssb.cli import cli
    from strategies import tune as T

    if game.weight_tune is not None:
        spec = game.weight_tune
        lib = game.strategies(())
        row, opp = lib.get(game.default_strategy).row(), lib.get(spec.opponents[0]).row()
        assert set(lib.get(game.default_strategy).weights) <= set(spec.weight_names)
        n = game.player_counts[0]
        wins = T.seat_wins(row, opp, n, np.arange(1, 4, dtype=np.uint64), game.starter)
        assert wins.shape == (3,) and ((wins >= 0) & (wins <= n)).all()
        return
    res = CliRunner().invoke(cli, ["strategies", "tune", "--game", game.name, "--deals", "1"])
    assert res.exit_code == 2, res.output
    assert game.title in res.output and "declares no weight_tune" in res.output and "Traceback" not in res.output
