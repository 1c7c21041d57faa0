"""Echidna Shuffle golden playthroughs: fixed-seed games narrated and compared with
tests/golden/echidna_*.txt. Any change to the rules, the strategies or the narration shows up as a
readable diff; when it is intended, regenerate and review::

    SSB_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_echidna_golden.py
"""

import difflib
import os
from pathlib import Path

import pytest

from simulator.echidna.board import EchidnaSetup, Variants
from simulator.echidna.narrate import narrate
from simulator.echidna.playout import play_one
from simulator.echidna.strategies import EchidnaStrategyLibrary

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SSB_UPDATE_GOLDEN") == "1"

# name: (players, board, variants, strategies, seed)
GAMES = {
    "echidna_forest_4p_greedy_seed7": (4, "forest", Variants(), ["greedy"] * 4, 7),
    "echidna_snow_3p_random_seed11": (3, "snow", Variants(), ["random"] * 3, 11),
    "echidna_snow_5p_mixed_tokens_seed5": (
        5,
        "snow",
        Variants(catch_up=True, home_stretch=True),
        ["lookahead", "greedy", "saboteur", "random", "plain-setup"],
        5,
    ),
    "echidna_forest_2p_extra_roll_seed3": (
        2,
        "forest",
        Variants(extra_bugs=True, roll_every_turn=True),
        ["greedy", "random"],
        3,
    ),
}


def golden_text(name):
    players, board, variants, names, seed = GAMES[name]
    setup = EchidnaSetup(players, board, variants)
    rec = play_one(setup, EchidnaStrategyLibrary().matrix(names), seed)
    assert rec.violation == 0
    return narrate(rec, names)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_echidna_golden_playthrough(name):
    actual = golden_text(name)
    path = GOLDEN_DIR / f"{name}.txt"
    if UPDATE:
        path.write_text(actual)
        return
    assert path.exists(), f"{path} is missing; create it with SSB_UPDATE_GOLDEN=1"
    expected = path.read_text()
    if actual != expected:
        diff = "".join(
            list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), f"golden/{name}.txt", "now", n=2))[:150]
        )
        pytest.fail(f"the narrated game differs from golden/{name}.txt; if intended, rerun with SSB_UPDATE_GOLDEN=1.\n{diff}", pytrace=False)
