"""One report path for every game: the generic parts on the game's own setting columns, the parts a
game names (``ReportSpec.sections``), and no game's setting read through another game's columns."""

import numpy as np
import pandas as pd
import pytest

from reports.build import build_report
from reports.context import GENERIC, load_part, parts_of
from reports.frames import DEFAULT_SETTING, setting_of, setting_of_table, with_setting
from reports.io import load_run
from reports.seats import seat_advantage
from scenarios.load import load_scenario
from scenarios.runner import run_scenario
from simulator import games as registry
from toy_game import toy_registered


def _echidna_games(inst=("Violin", "Piano", "Horns")):
    """An Echidna-shaped games table (board, variant), carrying stray instrument columns too."""
    rng = np.random.default_rng(1)
    frames = []
    for cell, (board, variant) in enumerate([("forest", "base"), ("snow", "catch_up")]):
        n = 400
        frames.append(pd.DataFrame({
            "cell": cell, "players": 2, "board": board, "variant": variant, "lineup": "greedy,greedy",
            "deal": np.arange(n), "rotation": 0, "game": np.arange(n), "winner": rng.integers(-1, 2, size=n),
            "rounds": 30, "inst_black": inst[0], "inst_orange": inst[1], "inst_gray": inst[2],
        }))
    g = pd.concat(frames, ignore_index=True)
    g["stalled"] = (g["winner"] < 0).astype(int)
    return g


def test_a_setting_is_labelled_by_its_own_game_columns_only():
    echidna = setting_of(registry.get("echidna"))
    assert echidna.columns == ("board", "variant") and echidna.label == "setting" and echidna.title == "board/variant"
    g = _echidna_games()
    adv = seat_advantage(g, setting=echidna)
    # The label comes from board/variant: the instrument columns on the table play no part.
    assert set(adv.cells["setting"]) == {"forest/base", "snow/catch_up"}
    assert "instruments" not in adv.cells.columns and "instruments" not in adv.rates.columns
    assert adv.cells["games"].sum() == int((g["winner"] >= 0).sum())  # a game without a winner is left out
    assert (adv.cells["ties"] == 0).all()  # no tied column: the game records one winner per game
    # The same games with other instrument values give the very same verdicts.
    other = seat_advantage(_echidna_games(("Bass", "Vibes", "Drums")), setting=echidna)
    pd.testing.assert_frame_equal(adv.cells, other.cells)
    # Read without its manifest, a table is named by the game whose setting columns it has.
    assert setting_of_table(g.drop(columns=["inst_black", "inst_orange", "inst_gray"])).label == "setting"
    # The default game's setting needs its own columns: another game's table has none to read.
    with pytest.raises(KeyError):
        with_setting(g.drop(columns=["inst_black", "inst_orange", "inst_gray"]))
    assert setting_of(registry.get(registry.DEFAULT_GAME)) == DEFAULT_SETTING


def test_parts_come_from_the_game_entry():
    sns = [p.KEY for p in parts_of(registry.get(registry.DEFAULT_GAME))]
    assert sns == ["about", "seats", "strategies", "variants", "scoring", "instruments", "shape", "rules",
                   "tiebreak", "feel"]
    assert load_part("shuffle_swing.score_shape").KEY == "shape"  # the first game's own shape in place of the generic one
    echidna = [p.KEY for p in parts_of(registry.get("echidna"))]
    assert echidna == list(GENERIC)
    assert parts_of(registry.get("echidna"))[3].__name__ == "reports.sections.shape"
    with pytest.raises(ValueError, match="no module reports.sections.nonesuch"):
        load_part("nonesuch", "mygame")


def test_the_toy_game_gets_the_generic_report_on_its_own_setting(tmp_path):
    with toy_registered() as toy:
        sc = load_scenario(toy.gate_scenario)
        run_scenario(sc, tmp_path / "run", jobs=1, progress=False)
        rep = build_report(load_run(tmp_path / "run"))
    assert rep.title == "Ring Race balance report: ring-ci"
    assert [s.key for s in rep.sections] == ["seats", "strategies", "variants", "shape"]
    assert [s.title for s in rep.sections] == ["1. Seat advantage", "2. Strategies", "3. Variants", "4. Game shape"]
    assert rep.setting_words == "player count x board x variant" and rep.settings == 4
    tables = {t.name: t for s in rep.sections for t in s.tables}
    cells = tables["seat_verdicts"].frame
    assert set(cells["setting"]) == {"ring/base", "ring/no_bump"}
    assert "board/variant" in tables["seat_verdicts"].display.columns and "board/variant" in rep.headline.columns
    for t in tables.values():  # no table speaks of instruments
        assert not any(str(c).startswith("inst_") or c == "instruments" for c in (*t.frame.columns, *t.display.columns))
    seats = next(s for s in rep.sections if s.key == "seats")
    assert "board/variant and judge (lineup)" in tables["seat_verdicts"].caption
    assert not any("R13" in n or "instrument" in n for n in seats.notes)
    assert any("stall cap have no winner" in n for n in seats.notes)
    # Ring Race records who won, not a finishing order: strategies by win rate only.
    assert "strategy_win_rates" in tables and tables["strategy_head_to_head"].frame.empty
    assert all("no finishing order recorded" in f for f in next(s for s in rep.sections if s.key == "strategies").findings)
    assert any(f.endswith("(left out of section 1).") for f in rep.sections[-1].findings)
    assert rep.answers and all(a.split(":")[0].endswith("players, ring") for a in rep.answers)
