"""The leaf fitted on the setting it judges (``simulator/shuffle_swing/leaf_fit.py``): on the starter
set it is the shipped file, elsewhere its own fit; cached by the packed data (a changed instrument
number refits, the same data reuses); deterministic; put in the row before every game; recorded in
a run's manifest."""


import numpy as np
import pytest

from leaf_helpers import changed_library, leaf_block

from simulator.errors import DataError
from simulator.seeds import game_seed
from simulator.shuffle_swing import leaf_fit as LFIT
from simulator.shuffle_swing.layout import LEAF_COUNTS, N_LEAF_FEAT, P_LEAF_COEF, P_LEAF_MODEL, S_SCORE, S_WINNER
from simulator.shuffle_swing.library import InstrumentLibrary
from simulator.shuffle_swing.playout import GameSetup, play_many, strategy_matrix
from simulator.shuffle_swing.strategies import LEAF_DIR, StrategyLibrary, load_leaf_model

LIB = StrategyLibrary()
ORGAN = ("Violin", "Organ", "Horns")


def test_search_leaf_fits_its_leaf_on_the_setting():
    s = LIB.get("search_leaf")
    assert s.leaf_fit == "setting" and s.leaf_model == "tuned"
    assert s.row()[P_LEAF_MODEL] == LFIT.LEAF_ON_SETTING
    # The recipe is the shipped file's (its provenance), so the starter set's fit is the file.
    import tomllib

    prov = tomllib.loads((LEAF_DIR / "tuned.toml").read_text(encoding="utf-8"))["provenance"]
    assert (prov["games"], prov["seed"], prov["profile"]) == (LFIT.FIT_GAMES, LFIT.FIT_SEED, "tuned")


@pytest.mark.parametrize("n", LEAF_COUNTS)
def test_the_starter_fit_is_the_shipped_leaf_file(n):
    """On the starter set the on-demand fit reproduces ``data/leaf/tuned.toml`` to the digit: the
    shipped leaf is this fit, and search_leaf's starter games (golden, fingerprints) are unchanged."""
    row = LIB.get("search_leaf").row()
    full = strategy_matrix(GameSetup(nplayers=n), np.array([row] * n))
    shipped = load_leaf_model(LEAF_DIR / "tuned.toml")[LEAF_COUNTS.index(n)]
    assert tuple(leaf_block(full[0], n)) == shipped
    assert tuple(leaf_block(full[1], n)) == shipped



def test_the_cache_is_keyed_by_the_data():
    row = LIB.get("search_leaf").row()
    LFIT.clear_cache()
    a = GameSetup(nplayers=2, instruments=ORGAN)
    coef, rec = LFIT.setting_leaf(a.geo, 2, row)
    assert rec["fitted_now"] and rec["games"] == LFIT.FIT_GAMES and rec["seed"] == LFIT.FIT_SEED
    # The same data (another GameSetup of it, another strategy row with the same policy): reused.
    other = row.copy()
    other[P_LEAF_COEF : P_LEAF_COEF + N_LEAF_FEAT] = 0.0  # the leaf's coefficients are not the policy
    again, rec2 = LFIT.setting_leaf(GameSetup(nplayers=2, instruments=ORGAN).geo, 2, other)
    assert not rec2["fitted_now"] and again == coef and rec2["key"] == rec["key"]
    # The Organ's fit is not the starter's file.
    assert coef != load_leaf_model(LEAF_DIR / "tuned.toml")[0]
    # One instrument number changed: another key, a fit of its own.
    horns = InstrumentLibrary().get("Horns")
    changed = GameSetup(nplayers=2, instruments=ORGAN, library=changed_library(penalty_per_space=horns.penalty_per_space + 1))
    assert not np.array_equal(changed.geo, a.geo)
    coef3, rec3 = LFIT.setting_leaf(changed.geo, 2, row)
    assert rec3["fitted_now"] and rec3["key"] != rec["key"] and coef3 != coef
    # Another player count, another fit.
    assert LFIT.setting_key(GameSetup(nplayers=3, instruments=ORGAN).geo, 3, row) != rec["key"]


def test_the_fit_is_deterministic():
    row = LIB.get("search_leaf").row()
    geo = GameSetup(nplayers=2, instruments=ORGAN).geo
    first = LFIT.fit_setting(geo, 2, row, games=200)
    LFIT.clear_cache()
    second = LFIT.setting_leaf(geo, 2, row, games=200)
    assert second[1]["fitted_now"] and second[1]["games"] == 200
    assert first[0] == second[0] and first[1]["coef_sha256"] == second[1]["coef_sha256"]
    assert LFIT.setting_key(geo, 2, row, games=200) != LFIT.setting_key(geo, 2, row)  # the recipe is in the key


def test_every_game_gets_its_settings_leaf():
    """A game of search_leaf on the Organ swap plays exactly as the same search with the Organ's fit
    written into its row by hand (file-leaf flag), and a split batch plays the same games."""
    row = LIB.get("search_leaf").row()
    setup = GameSetup(nplayers=2, instruments=ORGAN)
    coef, _ = LFIT.setting_leaf(setup.geo, 2, row)
    by_hand = row.copy()
    by_hand[P_LEAF_MODEL] = 1.0
    b = P_LEAF_COEF
    by_hand[b : b + N_LEAF_FEAT] = coef
    seeds = [game_seed(4242, d) for d in range(4)]
    lineup = np.array([row, LIB.get("search").row()])
    st, _ = play_many(setup, lineup, seeds)
    hand, _ = play_many(setup, np.array([by_hand, LIB.get("search").row()]), seeds)
    np.testing.assert_array_equal(st, hand)
    split = np.concatenate([play_many(setup, lineup, seeds[:1])[0], play_many(setup, lineup, seeds[1:])[0]])
    np.testing.assert_array_equal(st[:, [S_WINNER, S_SCORE, S_SCORE + 1]], split[:, [S_WINNER, S_SCORE, S_SCORE + 1]])
    # The file's leaf on the same games: other decisions (the fit is what the row plays).
    file_leaf = row.copy()
    file_leaf[P_LEAF_MODEL] = 1.0
    other, _ = play_many(setup, np.array([file_leaf, LIB.get("search").row()]), seeds)
    assert not np.array_equal(other, st)


def test_leaf_fit_is_checked(tmp_path):
    (tmp_path / "leafy.toml").write_text(
        '[strategy]\nname = "leafy"\nkind = "search"\nweights_from = "tuned"\nbudget = 4\nleaf_model = "tuned"\nleaf_fit = "nowhere"\n',
        encoding="utf-8")
    with pytest.raises(DataError, match="strategy.leaf_fit"):
        StrategyLibrary(extra_dirs=(tmp_path,))
    (tmp_path / "leafy.toml").write_text(
        '[strategy]\nname = "leafy"\nkind = "search"\nweights_from = "tuned"\nbudget = 4\nleaf_fit = "setting"\n', encoding="utf-8")
    with pytest.raises(DataError, match="strategy.leaf_fit"):
        StrategyLibrary(extra_dirs=(tmp_path,))
    (tmp_path / "leafy.toml").write_text(
        '[strategy]\nname = "leafy"\nkind = "search"\nweights_from = "tuned"\nbudget = 4\nleaf_model = "tuned"\nleaf_fit = "file"\n',
        encoding="utf-8")
    assert StrategyLibrary(extra_dirs=(tmp_path,)).get("leafy").row()[P_LEAF_MODEL] == 1.0


TINY = """\
name = "leafy"
seed = 5
games = 2
players = [2]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Violin", "Organ", "Horns"]]

[lineup]
mirror = "search_leaf"
"""


def test_a_run_records_its_leaf_fits(tmp_path):
    from scenarios.load import load_scenario
    from scenarios.results import read_manifest
    from scenarios.runner import run_scenario

    p = tmp_path / "leafy.toml"
    p.write_text(TINY)
    sc = load_scenario(p)
    fits = sc.data_files()["leaf_fits"]
    assert sorted(fits) == ["Violin/Organ/Horns 2p search_leaf", "Violin/Piano/Horns 2p search_leaf"]
    row = LIB.get("search_leaf").row()
    for label, inst in (("Violin/Piano/Horns 2p search_leaf", ("Violin", "Piano", "Horns")),
                        ("Violin/Organ/Horns 2p search_leaf", ORGAN)):
        rec = fits[label]
        coef, want = LFIT.setting_leaf(GameSetup(nplayers=2, instruments=inst).geo, 2, row)
        assert rec["key"] == want["key"] and rec["coef_sha256"] == LFIT.coef_sha256(coef)
        assert rec["seed"] == LFIT.FIT_SEED and rec["games"] == LFIT.FIT_GAMES
    run_scenario(p, tmp_path / "out", jobs=1, chunk_size=10)
    assert read_manifest(tmp_path / "out")["data_files"]["leaf_fits"] == fits


def test_a_changed_leaf_fit_refuses_a_resume(tmp_path):
    """The fits are part of the run's data: a resume whose fit differs (another fit recipe, the
    same files) would mix two players in one table, and is refused."""
    from scenarios.results import RunDirError
    from scenarios.rundir import compare_manifests, file_hashes

    data = {"board": {"sha256": "b"}, "instruments": {}, "strategies": {},
            "leaf_fits": {"Violin/Organ/Horns 2p search_leaf": {"coef_sha256": "1" * 64}}}
    assert file_hashes(data)["leaf Violin/Organ/Horns 2p search_leaf"] == "1" * 64
    old = {"format_version": None, "scenario": {"sha256": "s", "name": "x"}, "chunks": {"plan": [], "size": 1},
           "data_files": data, "code": {"kernel_sha256": "k"}}
    new = {**old, "data_files": {**data, "leaf_fits": {"Violin/Organ/Horns 2p search_leaf": {"coef_sha256": "2" * 64}}}}
    from scenarios.schema import FORMAT_VERSION

    old["format_version"] = new["format_version"] = FORMAT_VERSION
    with pytest.raises(RunDirError, match="leaf Violin/Organ/Horns 2p search_leaf"):
        compare_manifests(old, new, tmp_path)
