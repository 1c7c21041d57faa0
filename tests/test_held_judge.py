"""The strong gate's judge, ``search_leaf_held``: ``search_leaf`` with its leaf held at the shipped fit
(``leaf_fit = "file"``). On the starter set ``search_leaf``'s own fit is the shipped file to the digit,
so the two play the very same games; when an instrument number changes, ``search_leaf`` fits its leaf
again (the judge changes with the change under test) and the held judge keeps its coefficients."""

import dataclasses

import numpy as np
import pytest

from simulator.seeds import game_seed
from simulator.shuffle_swing import leaf_fit as LFIT
from simulator.shuffle_swing.layout import LEAF_COUNTS, N_LEAF_FEAT, P_LEAF_COEF, P_LEAF_MODEL
from simulator.shuffle_swing.library import InstrumentLibrary
from simulator.shuffle_swing.playout import GameSetup, play_many, strategy_matrix
from simulator.shuffle_swing.strategies import LEAF_DIR, StrategyLibrary, load_leaf_model

LIB = StrategyLibrary()
HELD, FITTED = "search_leaf_held", "search_leaf"


def _block(row, n):
    b = P_LEAF_COEF + (n - 2) * N_LEAF_FEAT
    return tuple(row[b : b + N_LEAF_FEAT])


def _changed_library(**changes):
    """The instrument library with the Horns' numbers changed."""
    lib = InstrumentLibrary()

    class Changed:
        def get(self, name):
            inst = lib.get(name)
            return dataclasses.replace(inst, **changes) if inst.name == "Horns" else inst

    return Changed()


def test_the_held_judge_is_search_leaf_but_for_the_leafs_fit():
    held, fitted = LIB.get(HELD), LIB.get(FITTED)
    differ = {f.name for f in dataclasses.fields(held) if getattr(held, f.name) != getattr(fitted, f.name)}
    assert differ == {"name", "path", "description", "leaf_fit"}
    assert held.leaf_fit == "" and fitted.leaf_fit == "setting"  # "" is the file's leaf
    assert held.row()[P_LEAF_MODEL] == 1.0 and fitted.row()[P_LEAF_MODEL] == LFIT.LEAF_ON_SETTING


@pytest.mark.parametrize("n", LEAF_COUNTS)
def test_on_the_starter_set_it_plays_search_leafs_games(n):
    setup = GameSetup(nplayers=n)
    seeds = [game_seed(8101 + n, d) for d in range(3)]
    held, _ = play_many(setup, np.array([LIB.get(HELD).row()] * n), seeds)
    fitted, _ = play_many(setup, np.array([LIB.get(FITTED).row()] * n), seeds)
    np.testing.assert_array_equal(held, fitted)


def test_a_changed_instrument_number_refits_search_leaf_and_not_the_held_judge():
    n = 3
    horns = InstrumentLibrary().get("Horns")
    changed = GameSetup(nplayers=n, library=_changed_library(penalty_per_space=horns.penalty_per_space + 1))
    assert not np.array_equal(changed.geo, GameSetup(nplayers=n).geo)
    shipped = load_leaf_model(LEAF_DIR / "tuned.toml")[LEAF_COUNTS.index(n)]
    held = strategy_matrix(changed, np.array([LIB.get(HELD).row()] * n))
    fitted = strategy_matrix(changed, np.array([LIB.get(FITTED).row()] * n))
    assert _block(held[0], n) == shipped  # held: the shipped fit
    assert _block(fitted[0], n) != shipped  # fitted again on the changed data
