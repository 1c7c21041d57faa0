"""``weights_from = "NAME"``: a profile's weight rows come from another profile, so one file (``tuned``)
holds the weights that every profile built on it plays and rolls out with, and a retune reaches
them all."""

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.errors import DataError
from simulator.shuffle_swing.layout import WEIGHT_NAMES
from ssb.cli import cli
from simulator.shuffle_swing.strategies import StrategyLibrary

# Profiles whose weights are tuned's (plus their own entries, listed here).
ON_TUNED = {"search": {}, "search_deep": {}, "decisive": {"serve_next": 0.02, "landing": 0.01}}


@pytest.mark.parametrize("name", sorted(ON_TUNED))
def test_shipped_profiles_take_tuned_weights(name):
    lib = StrategyLibrary()
    tuned, s = lib.get("tuned"), lib.get(name)
    for w in WEIGHT_NAMES:
        want = ON_TUNED[name].get(w, tuned.weights.get(w, 0.0))
        assert s.weights.get(w, 0.0) == want, (name, w)
    assert s.late_weights == tuned.late_weights


def _profile(folder, name, extra="", weights="", late=""):
    text = f'[strategy]\nname = "{name}"\nkind = "greedy"\n{extra}\n'
    if weights:
        text += f"[weights]\n{weights}\n"
    if late:
        text += f"[weights_late]\n{late}\n"
    (folder / f"{name}.toml").write_text(text)


def test_a_retune_of_the_source_reaches_the_profile(tmp_path):
    _profile(tmp_path, "base", weights="piece = 2.5\nfinish = 0.25")
    _profile(tmp_path, "child", 'weights_from = "base"', weights="finish = 3.0")
    _profile(tmp_path, "grandchild", 'weights_from = "child"')
    lib = StrategyLibrary(extra_dirs=(tmp_path,))
    child, grand = lib.get("child"), lib.get("grandchild")
    assert child.weights["piece"] == 2.5 and child.weights["finish"] == 3.0
    assert child.weights["points"] == lib.get("greedy").weights["points"]
    assert grand.weights == child.weights
    np.testing.assert_array_equal(child.row(), grand.row())
    # The source changes, the profiles built on it follow.
    _profile(tmp_path, "base", weights="piece = 0.5\nfinish = 0.25")
    lib = StrategyLibrary(extra_dirs=(tmp_path,))
    assert lib.get("child").weights["piece"] == 0.5 and lib.get("grandchild").weights["piece"] == 0.5
    assert lib.get("child").weights["finish"] == 3.0


def test_late_rows_follow_the_source(tmp_path):
    _profile(tmp_path, "phased", weights="token_spent = 0.5", late="token_spent = 0.0")
    _profile(tmp_path, "child", 'weights_from = "phased"', weights="piece = 1.25")
    _profile(tmp_path, "own_late", 'weights_from = "phased"', late="token_spent = 0.75")
    lib = StrategyLibrary(extra_dirs=(tmp_path,))
    child = lib.get("child")
    assert child.late_weights["token_spent"] == 0.0 and child.weights["token_spent"] == 0.5
    assert child.late_weights["piece"] == 1.25  # its own entries go on both rows
    assert lib.get("own_late").late_weights["token_spent"] == 0.75


@pytest.mark.parametrize(
    "extra, files, message",
    [
        ('weights_from = "nobody"', {}, "unknown strategy 'nobody'"),
        ('weights_from = "b"', {"b": 'weights_from = "a"'}, "a cycle: a -> b -> a"),
        ('weights_from = "a"', {}, "a cycle: a -> a"),
        ("weights_from = 3", {}, "expected a string"),
    ],
)
def test_bad_sources_name_the_file_and_key(tmp_path, extra, files, message):
    _profile(tmp_path, "a", extra)
    for name, text in files.items():
        _profile(tmp_path, name, text)
    with pytest.raises(DataError) as err:
        StrategyLibrary(extra_dirs=(tmp_path,))
    assert "strategy.weights_from" in str(err.value) and message in str(err.value)


def test_bad_source_on_the_command_line_is_a_user_error(tmp_path):
    _profile(tmp_path, "a", 'weights_from = "nobody"')
    result = CliRunner().invoke(cli, ["strategies", "list", "--strategy-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "error:" in result.output and "a.toml: strategy.weights_from: unknown strategy 'nobody'" in result.output
    assert "Traceback" not in result.output
