"""A game of a new setting shape costs its folder and one registration (docs/developing/add-a-game.md):
Ring Laps (``tests/toy_ring/laps.py``, the toy extended) lists race lengths, not boards and
variants, through its own setting module, and runs, resumes and plays sequential rounds with no
shared file edited."""

import contextlib
import os

import pandas as pd
import pytest

from scenarios.load import load_scenario
from scenarios.results import load_results
from scenarios.runner import run_scenario
from simulator import games as registry
from simulator.errors import DataError
from toy_game import TESTS


@contextlib.contextmanager
def laps_registered():
    """Ring Laps registered here and, through SSB_EXTRA_GAMES, in the run's workers: its one line."""
    from toy_ring.laps import GAME

    saved = {k: os.environ.get(k) for k in (registry.EXTRA_GAMES_ENV, "PYTHONPATH")}
    os.environ[registry.EXTRA_GAMES_ENV] = "toy_ring.laps"
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), saved["PYTHONPATH"]) if p)
    registry.register(GAME, "toy_ring.laps")
    try:
        yield GAME
    finally:
        registry.unregister(GAME.name)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="module")
def laps():
    with laps_registered() as game:
        yield game


def test_its_setting_module_reads_its_keys(laps):
    sc = load_scenario(laps.gate_scenario)
    assert sc.game == "ring-laps" and sc.laps == (1, 2)
    assert [c.key for c in sc.cells[:2]] == ["players=2|laps=1|lineup=greedy,greedy", "players=2|laps=1|lineup=random,random"]
    assert sc.cells[0].deal_key == "players=2|laps=*|lineup=greedy,greedy"  # both race lengths on the same deals
    assert "laps = [1, 2]" in sc.text
    with pytest.raises(DataError) as e:
        load_scenario(laps.gate_scenario, sets=("laps=[0]",))
    assert e.value.key == "laps[0]"
    with pytest.raises(DataError) as e:
        load_scenario(laps.gate_scenario, sets=("boards=[\"ring\"]",))
    assert "unknown scenario key" in e.value.reason and "laps" in e.value.reason


def test_it_runs_resumes_and_plays_sequential_rounds(laps, tmp_path):
    sc = load_scenario(laps.gate_scenario, games=24)
    run_scenario(sc, tmp_path / "one", jobs=1, chunk_size=8, progress=False, announce=lambda m: None)
    run_scenario(sc, tmp_path / "two", jobs=2, chunk_size=8, progress=False, announce=lambda m: None)
    s1, g1, m1 = load_results(tmp_path / "one")
    s2, g2, _ = load_results(tmp_path / "two")
    pd.testing.assert_frame_equal(s1, s2)
    pd.testing.assert_frame_equal(g1, g2)
    assert m1["game"] == "ring-laps" and m1["columns"]["games"][:4] == ["cell", "cell_key", "players", "laps"]
    assert set(g1["laps"]) == {"1", "2"}
    # The same deals, a longer race: more rounds in every deal of the greedy mirror at 2 players.
    mirror = g1[(g1["players"] == 2) & (g1["lineup"] == "greedy,greedy")]
    one, two = (mirror[mirror["laps"] == x].set_index("deal")["rounds"] for x in ("1", "2"))
    assert (mirror.groupby("deal")["seed"].nunique() == 1).all() and (two >= one).all() and (two > one).any()
    seq = load_scenario(laps.gate_scenario, games=200, sets=("sequential=true", "sequential.round=50",
                                                            'lineup.mirror=["greedy"]'))
    summary = run_scenario(seq, tmp_path / "seq", jobs=1, progress=False, announce=lambda m: None)
    cells = summary.manifest["sequential"]["cells"]
    assert len(cells) == len(seq.cells) and all(c["looks"] and c["stop"] for c in cells)
