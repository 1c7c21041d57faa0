"""Damaged records of a finished sequential run: judged again, never trusted.

A run decided by its instrument or variant sets keeps its settings and each set's record in the
manifest (``sequential.settings``, ``sequential.sets``). A report judges the tables again with those
settings, so an edited zone (5, or 0.9 where the scenario said 0.2), a margin below its zone, a
sets record that is a string or a list of numbers, or a stored verdict word the tables do not give
is refused by ``ssb report`` and by ``--resume``, naming the file and the key, with exit status 2,
no traceback and nothing written (tests/cli_harness.py). Small runs only (a few hundred games).
"""

from __future__ import annotations

import json
import shutil

import pytest

from cli_harness import assert_clean_error, files_under, invoke

ISEQ = """\
name = "iseqtiny"
seed = 5
games = 120
players = [2]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Violin", "Organ", "Horns"]]

[lineup]
mirror = ["greedy"]

[sequential]
verdicts = ["instruments"]
round = 40
"""

VSEQ = """\
game = "echidna"
name = "variant-seq"
seed = 5
games = 400
players = [4]
boards = ["forest"]
reference = "base"

[variants]
base = {}
twin = {}
drawn = { pickup_order = "random" }

[lineup]
mirror = ["greedy"]

[sequential]
verdicts = ["variants"]
round = 100
interval = "asymptotic"  # the twin decided in line within the cap (the finite-sample default needs more deals)
"""


def _run(tmp_path_factory, name, text):
    from scenarios.runner import run_scenario

    d = tmp_path_factory.mktemp(name)
    (d / "s.toml").write_text(text)
    run_scenario(d / "s.toml", d / "run", jobs=1, chunk_size=50, progress=False)
    return d


@pytest.fixture(scope="module")
def sets_run(tmp_path_factory):
    """A finished run decided by its instrument sets (Organ against Piano, greedy, 2 players)."""
    return _run(tmp_path_factory, "iseq", ISEQ)


@pytest.fixture(scope="module")
def variants_run(tmp_path_factory):
    """A finished Echidna run decided by its variants (twin in line at 100 deals, drawn open at its cap)."""
    return _run(tmp_path_factory, "vseq", VSEQ)


def _damaged(src, tmp_path, change):
    d = tmp_path / "run"
    shutil.copytree(src / "run", d)
    m = json.loads((d / "manifest.json").read_text())
    change(m)
    (d / "manifest.json").write_text(json.dumps(m))
    return d


def _settings(**kw):
    return lambda m: m["sequential"]["settings"].update(kw)


def _set0(**kw):
    return lambda m: m["sequential"]["sets"][0].update(kw)


def _text(old, new):
    return lambda m: m["scenario"].update(text=m["scenario"]["text"].replace(old, new))


DAMAGE = [
    ("sets-a-string", lambda m: m["sequential"].update(sets="Organ"), ["sequential.sets", "expected a list"]),
    ("sets-numbers", lambda m: m["sequential"].update(sets=[1, 2]), ["sequential.sets[0]", "expected an object"]),
    ("sets-missing", lambda m: m["sequential"].pop("sets"), ["sequential.sets", "missing"]),
    ("sets-emptied", lambda m: m["sequential"].update(sets=[]), ["sequential.sets", "cells 0, 1", "record is missing"]),
    ("set-verdict-word", _set0(verdict="balanced"), ["sequential.sets[0].verdict", "expected one of"]),
    ("set-deals-text", _set0(deals="100"), ["sequential.sets[0].deals", "whole number"]),
    ("set-effect-text", _set0(effect="big"), ["sequential.sets[0].effect", "expected a number"]),
    ("set-zone-other", _set0(zone=0.5), ["sequential.sets[0].zone", "0.5"]),
    ("zone-5", _settings(zone=5), ["sequential.settings.zone", "between 0 and 1"]),
    ("zone-edited-in-range", _settings(zone=0.9), ["sequential.settings.zone", "0.9", "the run's scenario says 0.2"]),
    ("margin-below-zone", _settings(margin=0.005), ["sequential.settings.indifference", "below the margin 0.005"]),
    ("confidence-1", _settings(confidence=1), ["sequential.settings.confidence", "between 0.5 and 1"]),
    ("test-unknown", _settings(test="coin"), ["sequential.settings.test", "'coin'"]),
    ("verdicts-two", _settings(verdicts=["instruments", "seats"]), ["sequential.settings.verdicts"]),
    ("round-zero", _settings(round={"greedy": 0}), ["sequential.settings.round.greedy", "above 0"]),
    ("cost-a-list", _settings(cost=[1]), ["sequential.settings.cost", "expected an object"]),
    ("scenario-text-edited", _text("zone = 0.2", "zone = 0.9"), ["scenario.text", "sha256"]),
]


@pytest.mark.parametrize("change,fragments", [c[1:] for c in DAMAGE], ids=[c[0] for c in DAMAGE])
def test_a_damaged_sets_record_is_refused_by_report(sets_run, tmp_path, change, fragments):
    """Before: a string or a list of numbers for ``sequential.sets`` was a traceback; a zone of 5
    called two instruments out of line on intervals inside the (damaged) margin."""
    d = _damaged(sets_run, tmp_path, change)
    before = files_under(tmp_path)
    assert_clean_error(invoke("report", d, "--out", tmp_path / "rep"), d / "manifest.json", *fragments)
    assert files_under(tmp_path) == before


@pytest.mark.parametrize("change,fragments", [
    (_settings(zone=5), ["sequential.settings.zone", "between 0 and 1"]),
    (_settings(zone=0.9), ["sequential.settings.zone", "the run's scenario says 0.2"]),
    (_settings(margin=0.04), ["sequential.settings.margin", "0.04", "0.03"]),
    (lambda m: m["sequential"].update(sets=[1]), ["sequential.sets[0]"]),
], ids=["zone-5", "zone-in-range", "margin-edited", "sets-numbers"])
def test_a_damaged_sets_record_is_refused_by_resume(sets_run, tmp_path, change, fragments):
    """Before: ``--resume`` kept a damaged zone without a word (and the report then used it)."""
    d = _damaged(sets_run, tmp_path, change)
    before = {p: (d / p).read_bytes() for p in files_under(d)}
    result = invoke("run", sets_run / "s.toml", "-j", 1, "-q", "--resume", "--out", d)
    assert_clean_error(result, d / "manifest.json", *fragments)
    assert {p: (d / p).read_bytes() for p in files_under(d)} == before


def test_an_edited_instrument_verdict_word_is_refused(sets_run, tmp_path):
    """The instrument report judges the sets again from the tables; a stored word they do not give
    (Organ's out of line made in line) is refused, naming the record."""
    rec = json.loads((sets_run / "run" / "manifest.json").read_text())["sequential"]["sets"][0]
    assert rec["verdict"] == "out of line"
    d = _damaged(sets_run, tmp_path, _set0(verdict="in line"))
    result = invoke("report", d, "--out", tmp_path / "rep")
    assert_clean_error(result, d / "manifest.json", "sequential.sets[0].verdict", "says 'in line'",
                       "the tables say 'out of line'")
    assert not (tmp_path / "rep" / "report.html").exists()


def test_an_edited_seat_verdict_word_is_refused(sets_run, tmp_path):
    """Every cell's seat verdict is judged again from its wins with the run's own test; a stored
    word the tables do not give is refused, naming the cell's record."""
    cell = json.loads((sets_run / "run" / "manifest.json").read_text())["sequential"]["cells"][0]
    other = "fair" if cell["verdict"] != "fair" else "unfair"
    d = _damaged(sets_run, tmp_path, lambda m: m["sequential"]["cells"][0].update(verdict=other))
    result = invoke("report", d, "--out", tmp_path / "rep")
    assert_clean_error(result, d / "manifest.json", "sequential.cells[0].verdict", f"says '{other}'",
                       f"the tables say '{cell['verdict']}'")
    assert not (tmp_path / "rep" / "report.html").exists()


def test_a_record_in_the_older_words_loads_and_is_judged_again(sets_run, tmp_path):
    """A run recorded before the words fair / unfair / undecided stored balanced / imbalanced /
    inconclusive: its words are read as today's (stats.words.verdict_word), judged again, and the
    report prints today's word; an older word for another verdict is still refused."""
    from stats.words import OLD_WORDS

    old = {new: word for word, new in OLD_WORDS.items()}
    cells = json.loads((sets_run / "run" / "manifest.json").read_text())["sequential"]["cells"]

    def to_old(m):
        for c in m["sequential"]["cells"]:
            c["verdict"] = old[c["verdict"]]

    d = _damaged(sets_run, tmp_path, to_old)
    assert json.loads((d / "manifest.json").read_text())["sequential"]["cells"][0]["verdict"] in OLD_WORDS
    result = invoke("report", d, "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "rep" / "summary.md").read_text()
    assert cells[0]["verdict"] in text and not any(w in text for w in ("balanced", "inconclusive"))
    wrong = "balanced" if cells[0]["verdict"] != "fair" else "imbalanced"
    d2 = _damaged(sets_run, tmp_path / "wrong", lambda m: m["sequential"]["cells"][0].update(verdict=wrong))
    assert_clean_error(invoke("report", d2, "--out", tmp_path / "rep2"), d2 / "manifest.json",
                       "sequential.cells[0].verdict", f"says '{wrong}'")


def test_the_intact_sets_run_reports(sets_run, tmp_path):
    result = invoke("report", sets_run / "run", "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    assert "Organ" in (tmp_path / "rep" / "summary.md").read_text()


@pytest.mark.parametrize("change,fragments", [
    (_set0(verdict="out of line"), ["sequential.sets[0].verdict", "says 'out of line'", "the tables say 'in line'"]),
    (lambda m: m["sequential"]["sets"][1].update(verdict="in line", effect=0.0),
     ["sequential.sets[1].verdict", "the tables say 'open'", "drawn against base at 400 deals"]),
    (_set0(deals=5000), ["sequential.sets[0].deals", "the tables hold"]),
    (lambda m: m["sequential"]["sets"].pop(1), ["sequential.sets", "cell 2", "record is missing"]),
], ids=["twin-made-out-of-line", "open-made-in-line", "deals-beyond-the-tables", "a-record-deleted"])
def test_an_edited_variant_verdict_is_judged_again_and_refused(variants_run, tmp_path, change, fragments):
    """Before: the variant report printed the stored verdict word (and figures) as edited."""
    d = _damaged(variants_run, tmp_path, change)
    result = invoke("report", d, "--out", tmp_path / "rep")
    assert_clean_error(result, d / "manifest.json", *fragments)
    assert not (tmp_path / "rep" / "report.html").exists()


def test_the_variant_report_prints_the_figures_the_tables_give(variants_run, tmp_path):
    """An edited effect with the verdict word kept: the report shows the tables' figure, not the record's."""
    d = _damaged(variants_run, tmp_path, lambda m: m["sequential"]["sets"][1].update(effect=0.5, lo=0.4, hi=0.6))
    result = invoke("report", d, "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    summary = (tmp_path / "rep" / "summary.md").read_text()
    assert "twin against base: **in line** after 100 deals" in summary
    import pandas as pd

    t = pd.read_csv(tmp_path / "rep" / "variant_sequential.csv")
    drawn = t[t["variant"] == "drawn"].iloc[0]
    assert drawn["verdict"] == "open" and drawn["effect"] < 0 and drawn["hi"] < 0.1


def test_the_record_check_spells_the_sequential_words_as_the_runs_do():
    from scenarios import record_check as RC
    from scenarios import sequential as SQ
    from stats import paired as SQS

    assert (RC.TESTS, RC.VERDICTS, RC.SET_VERDICTS) == (SQ.TESTS, SQ.VERDICTS, SQ.SET_VERDICTS)
    assert (RC.OUT, RC.IN_LINE, RC.OPEN) == (SQS.OUT, SQS.IN_LINE, SQS.OPEN)


def test_an_intact_variants_run_on_the_finite_sample_sequence_is_judged_alike(tmp_path_factory, tmp_path):
    """The report judges a variant record again with the run's own interval (the default finite-sample
    sequence here): an intact record is never refused."""
    text = "\n".join(x for x in VSEQ.splitlines() if not x.startswith("interval")) + "\n"
    d = _run(tmp_path_factory, "vbounded", text)
    seq = json.loads((d / "run" / "manifest.json").read_text())["sequential"]
    assert seq["settings"]["interval"] == "bounded"
    result = invoke("report", d / "run", "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
