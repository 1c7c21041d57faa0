"""Options, hardened: keys of ``[sequential]`` that name no judge, a zone no verdict reads, a scenario
of a million instrument sets refused before they are listed, the bound of ``--bootstrap``, the leaf fit's ``--games`` and ``--out`` checked before fitting, ``--json`` of
the meta-game onto a full disk, and ``-q/--quiet`` on every command that prints progress or a summary.

Each mistake through the shared harness (tests/cli_harness.py): exit status 2, an ``error:`` line
naming the file or option, the key and the reason, no traceback, nothing written. Tiny runs only.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_harness import ROOT, Case, assert_clean_error, check_case, files_under, invoke

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MIXED4 = FIXTURES / "mixed4.toml"

SEQ = """\
name = "optseq"
seed = 5
games = 120
players = [2]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Violin", "Organ", "Horns"]]

[lineup]
mirror = ["greedy"]

[sequential]
verdicts = ["instruments"]
{extra}
"""


def _scenario(extra):
    def setup(tmp):
        (tmp / "s.toml").write_text(SEQ.format(extra=extra))
    return setup


RUN = ["run", "{tmp}/s.toml", "-j", "1", "-q", "--out", "{tmp}/out"]

CASES = [
    Case("round-names-a-strategy-not-played", RUN, ["{tmp}/s.toml", "sequential.round.tuned", "not a judge"],
         _scenario("round = { greedy = 40, tuned = 10 }")),
    Case("round-set-for-a-strategy-not-played", RUN + ["--set", "sequential.round.search=10"],
         ["sequential.round.search", "not a judge"], _scenario("round = 40")),
    Case("budget-names-a-strategy-not-played", RUN, ["sequential.budget.tuned", "not a judge"],
         _scenario("budget = { tuned = 100 }")),
    Case("cost-names-no-strategy", RUN, ["sequential.cost.serach", "nor a strategy of the game"],
         _scenario("cost = { greedy = 0.3, serach = 17.0 }")),
    Case("zone-with-seat-verdicts", RUN + ["--set", 'sequential.verdicts=["seats"]'],
         ["sequential.zone", "read only by the instrument or variant verdicts"], _scenario("zone = 0.3")),
    Case("zone-a-table", RUN, ["sequential.zone", "expected a number"], _scenario("zone = { orange = 0.2 }")),
    Case("test-a-table", RUN, ["sequential.test", "expected one of"], _scenario('test = { kind = "zone" }')),
    Case("round-sub-key-unknown", RUN + ["--set", "sequential.zone.orange=1"], ["sequential.zone.orange", "no sub-keys"],
         _scenario("")),
    Case("unknown-sequential-key", RUN, ["sequential", "zones"], _scenario("zones = 0.2")),
    Case("bootstrap-huge", ["strategies", "meta", "--pool", "greedy,random", "--players", "2", "--deals", "2",
                            "--skill", "", "--bootstrap", "100000000"], ["--bootstrap", "10000"]),
    Case("bootstrap-tiny", ["strategies", "meta", "--bootstrap", "3"], ["--bootstrap", "10"]),
]


def _million_sets(tmp):
    """Folders of 100 copies of an instrument in each department: ``all = true`` would make
    about 10^6 sets (a copy of each shipped one in every department)."""
    import re

    from simulator.shuffle_swing.board import DATA_DIR

    (tmp / "inst").mkdir()
    for src in ("piano", "violin", "horns"):
        text = (Path(DATA_DIR) / "instruments" / f"{src}.toml").read_text()
        name = re.search(r'^name = "(.*)"', text, re.M).group(1)
        for k in range(100):
            (tmp / "inst" / f"{src}{k}.toml").write_text(text.replace(f'name = "{name}"', f'name = "{name} {k}"'))
    (tmp / "big.toml").write_text('name = "big"\nseed = 1\ngames = 10\nplayers = [2]\ninstrument_dirs = ["inst"]\n\n'
                                  '[instruments]\nall = true\n\n[lineup]\nmirror = ["greedy"]\n')


CASES.append(Case("a-million-instrument-sets", ["run", "{tmp}/big.toml", "-j", "1", "-q", "--out", "{tmp}/out"],
                  ["{tmp}/big.toml", "instruments.all", "1,124,864 instrument sets", "at most 10,000"], _million_sets))


def test_the_sets_limit_is_the_scenario_s_cell_limit():
    from scenarios.spec import MAX_CELLS
    from simulator.shuffle_swing.setting import MAX_SETS

    assert MAX_SETS == MAX_CELLS


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_option_mistake(case, tmp_path, monkeypatch):
    check_case(case, tmp_path, monkeypatch)


def test_a_cost_table_may_price_the_game_s_other_strategies(tmp_path):
    """A price list may name strategies the scenario does not play (one word of lineup.mirror
    switches the judge), as the shipped expansion-strong scenario does; a run that proves its strong
    judge plays the reference rung at its declared price (scenarios/sequential_proof.py)."""
    from scenarios.load import load_scenario

    (tmp_path / "s.toml").write_text(SEQ.format(extra="cost = { greedy = 0.3, search = 17.0 }"))
    sc = load_scenario(tmp_path / "s.toml")
    assert sc.sequential.cost == {"greedy": 0.3, "search": 17.0}
    for name in ("expansion-strong", "starter", "expansion"):
        assert load_scenario(name).sequential is not None


# =========================================================================== the leaf fit


def _leaf(*args, cwd):
    return subprocess.run([sys.executable, "-m", "simulator.shuffle_swing.leaf_model", *map(str, args)], cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args,fragments", [
    (["fit", "--games", "0", "--out", "leaf.toml"], ["--games", "from 1 to 1,000,000, got 0"]),
    (["fit", "--games", "-5", "--out", "leaf.toml"], ["--games", "got -5"]),
    (["fit", "--games", "3", "--out", "missing/leaf.toml"], ["--out", "missing does not exist", "nothing was fitted"]),
    (["fit", "--games", "3", "--out", "."], ["--out", "is a folder"]),
    (["check", "leaf.toml", "--games", "0"], ["--games", "got 0"]),
], ids=["games-0", "games-negative", "out-missing-folder", "out-a-folder", "check-games-0"])
def test_leaf_fit_mistakes_are_refused_before_fitting(tmp_path, args, fragments):
    """Before: ``--games 0`` was a traceback; ``--out`` into a missing folder fitted, printed, then
    crashed (the fit lost). Both are refused before any game is played."""
    result = _leaf(*args, cwd=tmp_path)
    assert_clean_error(result, *fragments)
    assert "R^2" not in result.stdout  # nothing was fitted
    assert files_under(tmp_path) == []


def test_a_leaf_file_on_a_full_disk_is_a_clear_error_and_keeps_the_old_file(tmp_path, monkeypatch):
    from simulator.errors import DataError
    from simulator.shuffle_swing import leaf_model as LM

    out = tmp_path / "leaf.toml"
    out.write_text("old\n")

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(LM.os, "replace", full)
    with pytest.raises(DataError, match="cannot write: No space left on device"):
        LM.write_leaf(out, [[0.0] * LM.N_LEAF_FEAT] * len(LM.LEAF_COUNTS), {"command": "x"}, "d")
    assert out.read_text() == "old\n" and files_under(tmp_path) == ["leaf.toml"]


# =========================================================================== the meta-game's JSON

META = ["strategies", "meta", "--pool", "greedy,random", "--players", "2", "--deals", "2", "--skill", "",
        "--bootstrap", "10"]


def test_meta_json_onto_a_full_disk_is_a_clear_error_before_printing(tmp_path, monkeypatch):
    """Before: every figure printed, then a traceback. Now the file is written first, under a
    temporary name renamed into place: a full disk is ``error: FILE: cannot write``, no temporary
    is left and an earlier file is kept whole."""
    import ssb.meta_cmd as M

    out = tmp_path / "meta.json"
    out.write_text("{}")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(M.os, "fsync", full)
    result = invoke(*META, "--json", out)
    assert_clean_error(result, out, "cannot write", "No space left on device")
    assert out.read_text() == "{}" and files_under(tmp_path) == ["meta.json"]
    assert "Alpha-rank" not in result.output


def test_meta_json_onto_a_device_writes_in_place_and_never_replaces_it(tmp_path, monkeypatch):
    """A device or a pipe given as --json (``/dev/full``, ``/dev/stdout``) is written in place: a
    temporary renamed over it would replace the device node itself. Seen through a stand-in: a
    path that is neither a file nor missing is opened as it is, and a full one is a clear error."""
    import ssb.common as M

    seen = []
    real_open = open

    def fake_open(path, *a, **k):
        seen.append(str(path))
        if str(path) == str(tmp_path / "dev"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, *a, **k)

    (tmp_path / "dev").mkdir()  # neither a regular file nor missing: stands for a device
    monkeypatch.setattr(M, "open", fake_open, raising=False)
    with pytest.raises(M.UserError, match="cannot write: No space left on device"):
        M.write_json(tmp_path / "dev", {"a": 1})
    assert seen == [str(tmp_path / "dev")] and (tmp_path / "dev").is_dir()


# =========================================================================== -q everywhere


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    from scenarios.runner import run_scenario

    out = tmp_path_factory.mktemp("small") / "run"
    run_scenario(MIXED4, out, jobs=1, games=8, chunk_size=4, progress=False)
    return out


def test_quiet_report_and_baseline_print_nothing_and_write_all(small_run, tmp_path):
    result = invoke("report", small_run, "--out", tmp_path / "rep", "-q")
    assert result.exit_code == 0 and result.output == "", result.output
    assert (tmp_path / "rep" / "report.html").is_file()
    loud = invoke("report", small_run, "--out", tmp_path / "rep2")
    assert loud.exit_code == 0 and "wrote" in loud.output
    result = invoke("baseline", small_run, "-o", tmp_path / "b.json", "--quiet")
    assert result.exit_code == 0 and result.output == "", result.output
    assert (tmp_path / "b.json").is_file()


def test_quiet_check_prints_only_violations():
    result = invoke("check", "--games", 2, "--players", 2, "-q")
    assert result.exit_code == 0 and result.output == "", result.output
    assert "Total:" in invoke("check", "--games", 2, "--players", 2).output


def test_quiet_play_prints_nothing_but_keeps_its_exit_status():
    result = invoke("play", "--players", 2, "--seed", 5, "-q")
    assert result.exit_code == 0 and result.output == "", result.output


def test_quiet_meta_prints_the_figures_only_and_nothing_with_json(tmp_path):
    result = invoke(*META, "-q")
    assert result.exit_code == 0 and "Alpha-rank" in result.output and "wrote" not in result.output
    result = invoke(*META, "-q", "--json", tmp_path / "m.json")
    assert result.exit_code == 0 and result.output == "", result.output
    assert (tmp_path / "m.json").is_file()


LADDER = ["strategies", "ladder", "--rungs", "random,greedy", "--players", "2", "--deals", "2", "--depth-budgets", "",
          "--cost-time", "0.001"]


def test_quiet_ladder_with_json_prints_nothing_and_a_full_disk_is_clear(tmp_path, monkeypatch):
    """The ladder as the meta-game: -q keeps the figures off the terminal when --json has them, the
    JSON's folder is checked before anything is measured, and a full disk is a clear error before
    any figure is printed."""
    import ssb.meta_cmd as M

    result = invoke(*LADDER, "-q", "--json", tmp_path / "l.json")
    assert result.exit_code in (0, 1) and result.output == "", result.output
    assert (tmp_path / "l.json").is_file()
    assert_clean_error(invoke(*LADDER, "--json", tmp_path / "nodir" / "l.json"), "--json", "nothing was measured")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(M.os, "fsync", full)
    result = invoke(*LADDER, "--json", tmp_path / "l.json")
    assert_clean_error(result, tmp_path / "l.json", "cannot write")
    assert "CPU:" not in result.output and "win share" not in result.output


def test_quiet_drawings_print_nothing(tmp_path):
    result = invoke("instruments", "draw", "Piano", "-o", tmp_path / "p.png", "-q")
    assert result.exit_code == 0 and result.output == "" and (tmp_path / "p.png").is_file(), result.output
    result = invoke("boards", "draw", "snow", "-o", tmp_path / "s.png", "--quiet")
    assert result.exit_code == 0 and result.output == "" and (tmp_path / "s.png").is_file(), result.output


@pytest.mark.parametrize("command", [["report"], ["baseline"], ["check"], ["play"], ["strategies", "meta"],
                                     ["strategies", "ladder"], ["strategies", "tune"], ["run"], ["regress"], ["tune"],
                                     ["boards", "draw"], ["instruments", "draw"]])
def test_every_command_that_prints_a_summary_takes_quiet(command):
    """One option convention (ssb/common.py): ``-q/--quiet`` on every command that prints progress
    or a summary."""
    result = invoke(*command, "--help")
    assert result.exit_code == 0, result.output
    assert "-q, --quiet" in result.output
