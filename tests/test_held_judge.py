"""The strong gate's judge, ``search_leaf_held``: ``search_leaf`` with its leaf held at the shipped fit
(``leaf_fit = "file"``). On the starter set ``search_leaf``'s own fit is the shipped file to the digit,
so the two play the very same games; when an instrument number changes, ``search_leaf`` fits its leaf
again (the judge changes with the change under test) and the held judge keeps its coefficients."""

import dataclasses
import json

import numpy as np
import pytest

from leaf_helpers import changed_library, leaf_block

from simulator.seeds import game_seed
from simulator.shuffle_swing import leaf_fit as LFIT
from simulator.shuffle_swing.layout import LEAF_COUNTS, P_LEAF_MODEL
from simulator.shuffle_swing.library import InstrumentLibrary
from simulator.shuffle_swing.playout import GameSetup, play_many, strategy_matrix
from simulator.shuffle_swing.strategies import LEAF_DIR, StrategyLibrary, load_leaf_model

LIB = StrategyLibrary()
HELD, FITTED = "search_leaf_held", "search_leaf"




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
    changed = GameSetup(nplayers=n, library=changed_library(penalty_per_space=horns.penalty_per_space + 1))
    assert not np.array_equal(changed.geo, GameSetup(nplayers=n).geo)
    shipped = load_leaf_model(LEAF_DIR / "tuned.toml")[LEAF_COUNTS.index(n)]
    held = strategy_matrix(changed, np.array([LIB.get(HELD).row()] * n))
    fitted = strategy_matrix(changed, np.array([LIB.get(FITTED).row()] * n))
    assert leaf_block(held[0], n) == shipped  # held: the shipped fit
    assert leaf_block(fitted[0], n) != shipped  # fitted again on the changed data


# --------------------------------------------------------------------------- the gate records and checks the judge

SMALL = """\
name = "judged"
seed = 11
games = 3
players = [2, 3]

[instruments]
sets = [["Violin", "Piano", "Horns"]]

[lineup]
mirror = "{judge}"
"""
HORNS_3 = ("overrides.Horns.section.trumpet.score.0.awards=[3,6,2]",)


def _run(tmp_path, judge, out, sets=()):
    from scenarios.runner import run_scenario

    p = tmp_path / f"{judge}.toml"
    p.write_text(SMALL.format(judge=judge), encoding="utf-8")
    run_scenario(p, tmp_path / out, jobs=1, sets=sets, force=True, progress=False)
    return tmp_path / out


def _baseline(tmp_path, run):
    from cli_harness import invoke

    out = tmp_path / f"{run.name}.json"
    r = invoke("baseline", run, "-o", out, "--quiet")
    assert r.exit_code == 0, r.output
    return out


def test_a_run_records_the_held_leaf_and_a_changed_number_keeps_it(tmp_path):
    from cli_harness import invoke
    from scenarios.results import read_manifest

    run = _run(tmp_path, HELD, "base")
    leaves = read_manifest(run)["data_files"]["leaves"]
    assert sorted(leaves) == [f"{HELD} 2p", f"{HELD} 3p"]
    shipped = load_leaf_model(LEAF_DIR / "tuned.toml")
    for n in (2, 3):
        rec = leaves[f"{HELD} {n}p"]
        assert rec["coef_sha256"] == rec["sha256"] == LFIT.coef_sha256(shipped[LEAF_COUNTS.index(n)])
        assert rec["players"] == n and rec["path"].endswith("data/leaf/tuned.toml")
    base = _baseline(tmp_path, run)
    data = json.loads(base.read_text())["data_files"]
    assert data[f"leaf {HELD} 3p"] == leaves[f"{HELD} 3p"]["coef_sha256"]
    # A designer's change (Horns' first trumpet award 8 -> 3): the held judge's leaf is the same,
    # so the gate compares the run (its figures may move; its judge did not).
    changed = _run(tmp_path, HELD, "horns", HORNS_3)
    assert read_manifest(changed)["data_files"]["leaves"] == leaves
    r = invoke("regress", changed, "--baseline", base)
    assert r.exit_code in (0, 1), r.output
    assert "judge" not in r.output


def test_a_judge_whose_leaf_was_fitted_again_is_refused(tmp_path):
    """``search_leaf`` fits its leaf on the changed data: the judge moved with the change, and the
    gate refuses the comparison (exit status 2, the file, the leaf's key and the reason)."""
    from cli_harness import assert_clean_error, invoke

    base = _baseline(tmp_path, _run(tmp_path, FITTED, "base"))
    changed = _run(tmp_path, FITTED, "horns", HORNS_3)
    r = invoke("regress", changed, "--baseline", base, "--json", tmp_path / "v.json")
    assert_clean_error(r, str(base), "data_files.leaf Violin/Piano/Horns 2p search_leaf", "the judge's leaf differs")
    assert not (tmp_path / "v.json").exists()


def test_a_held_leaf_other_than_the_baselines_is_refused(tmp_path):
    """A leaf file fitted again since the baseline (its coefficients differ): refused as well."""
    from cli_harness import assert_clean_error, invoke

    run = _run(tmp_path, HELD, "base")
    base = _baseline(tmp_path, run)
    doc = json.loads(base.read_text())
    doc["data_files"][f"leaf {HELD} 3p"] = "0" * 64
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    assert_clean_error(invoke("regress", run, "--baseline", other), f"data_files.leaf {HELD} 3p", "0000000000")
    assert invoke("regress", run, "--baseline", base).exit_code == 0  # the same leaf: compared
