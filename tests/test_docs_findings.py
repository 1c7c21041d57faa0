"""A figure a page quotes from a run is the run's: every block between ``<!-- run: NAME/FILE ... -->``
and ``<!-- /run -->`` in README.md and docs/ equals what ``docs/runs/NAME/FILE`` says, and each
report screenshot is the one taken with its run (``docs/_hooks/findings.py``; ``make findings``
writes them again, ``make findings RERUN=1`` plays the runs again first)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from docs._hooks import findings

ROOT = Path(__file__).resolve().parents[1]


def test_every_generated_figure_is_its_run_s():
    bad = findings.check()
    assert not bad, (f"{len(bad)} generated figure(s) differ from the runs they quote: run `make findings` "
                     "(or `make findings RERUN=1` to play the runs again) and commit:\n" + "\n".join(bad))


def test_pages_quote_the_runs():
    """The README's answer and the findings index are written from runs, not typed."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- run: starter/report.txt" in readme and "<!-- run: starter/facts.json" in readme
    index = (ROOT / "docs" / "findings" / "index.md").read_text(encoding="utf-8")
    assert "<!-- run: starter/" in index
    for page in ("guide/sequential.md", "guide/skill-ladder.md"):
        assert "<!-- run: starter/facts.json summary -->" in (ROOT / "docs" / page).read_text(encoding="utf-8"), page
    # the expansion answer, where the judges disagree and the strong judge's proof: from expansion-strong
    sequential = (ROOT / "docs" / "guide" / "sequential.md").read_text(encoding="utf-8")
    for key in ("instruments.everywhere", "instruments.disagree", "instruments.strong_lead", "proof.line"):
        assert f"<!-- run: expansion-strong/facts.json {key} -->" in index, key
        assert f"<!-- run: expansion-strong/facts.json {key} -->" in sequential, key
    assert "<!-- run: expansion-strong/sets.csv -->" in sequential and "<!-- run: expansion-strong/proof.csv -->" in sequential
    assert "<!-- run: starter/proof.csv -->" in sequential


@pytest.mark.parametrize("spec", sorted((ROOT / "docs" / "runs").glob("*/run.toml")), ids=lambda p: p.parent.name)
def test_each_run_says_how_it_is_played_and_holds_its_sources(spec):
    doc = tomllib.loads(spec.read_text())
    if "tune" in doc:  # a balance search's run: its summary, progress and facts
        assert (ROOT / "scenarios" / "tunes" / f"{doc['tune']}.toml").is_file()
        for name in ("run.txt", "summary.txt", "progress.json", "facts.json"):
            assert (spec.parent / name).is_file(), f"{spec.parent.name}: {name} missing"
        assert json.loads((spec.parent / "progress.json").read_text())["name"] == doc["tune"]
    else:
        assert isinstance(doc["scenario"], str) and (ROOT / "scenarios" / f"{doc['scenario']}.toml").is_file()
        for name in ("run.txt", "report.txt", "facts.json", "manifest.json", *doc.get("tables", [])):
            assert (spec.parent / Path(name).name).is_file(), f"{spec.parent.name}: {name} missing"
        facts = json.loads((spec.parent / "facts.json").read_text())
        assert facts["scenario"] == doc["scenario"] or facts["scenario"] == json.loads(
            (spec.parent / "manifest.json").read_text())["scenario"]["name"]
    text = "".join(p.read_text(encoding="utf-8") for p in spec.parent.iterdir() if p.suffix in (".txt", ".json", ".csv", ".md"))
    for private in (str(ROOT), "/tmp/", "/home/", "pytest-of-"):
        assert private not in text, f"{spec.parent.name}: a machine path {private!r} in the committed sources"


# --------------------------------------------------------------------------- the machinery


@pytest.fixture
def runs(tmp_path):
    d = tmp_path / "runs" / "demo"
    d.mkdir(parents=True)
    (d / "facts.json").write_text(json.dumps({"games": 52037, "rate": 0.421, "seat": {"3": {"search": "unfair: last +6.1 pp"}}}))
    (d / "report.txt").write_text("At a glance\n  matrix\n\n2 players: fair.\n3 players: unfair,\n  the last seat.\n\nThe rest.\nwrote x\n")
    (d / "cells.csv").write_text("players,judge,verdict\n2,greedy,unfair\n3,search,fair\n")
    return tmp_path / "runs"


def test_a_drifted_figure_fails_the_check_and_the_command_fixes_it(runs, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("We played <!-- run: demo/facts.json games -->53,602<!-- /run --> games, last seat at "
                    "<!-- run: demo/facts.json rate fmt=.1% -->42.1%<!-- /run -->.\n")
    bad = findings.check([page], runs)
    assert len(bad) == 1 and "demo/facts.json games" in bad[0] and "'53,602'" in bad[0] and "'52,037'" in bad[0]
    new, problems = findings.rewrite(page.read_text(), runs)
    assert problems == []
    page.write_text(new)
    assert "<!-- run: demo/facts.json games -->52,037<!-- /run -->" in new
    assert findings.check([page], runs) == []


def test_blocks_paragraphs_lines_and_tables(runs):
    text = ("<!-- run: demo/report.txt paras=2 -->\nold\n<!-- /run -->\n"
            "<!-- run: demo/report.txt lines=1-2 -->x<!-- /run -->\n"
            "<!-- run: demo/report.txt starts=\"3 players\" -->x<!-- /run -->\n"
            "<!-- run: demo/report.txt has=\"unfair,\" -->y<!-- /run -->\n"
            "<!-- run: demo/report.txt paras=2 starts=\"3 players\" as=block -->\ny\n<!-- /run -->\n"
            "<!-- run: demo/cells.csv cols=players,verdict -->x<!-- /run -->\n"
            "<!-- run: demo/facts.json seat.3.search -->x<!-- /run -->\n")
    new, problems = findings.rewrite(text, runs)
    assert problems == []
    assert "```text\n2 players: fair.\n3 players: unfair,\n  the last seat.\n```" in new
    assert "```text\nAt a glance\n  matrix\n```" in new
    assert '-->3 players: unfair, the last seat.<!-- /run -->' in new
    assert 'has="unfair," -->3 players: unfair, the last seat.<!-- /run -->' in new
    assert 'as=block -->\n```text\n3 players: unfair,\n  the last seat.\n```\n<!-- /run -->' in new
    assert "| players | verdict |\n|---|---|\n| 2 | unfair |\n| 3 | fair |" in new
    assert "-->unfair: last +6.1 pp<!-- /run -->" in new
    wrapped, _ = findings.rewrite("<!-- run: demo/report.txt paras=2 wrap=12 -->\n<!-- /run -->", runs)
    assert "```text\n2 players:\n  fair.\n3 players:\n  unfair,\n  the last\n    seat.\n```" in wrapped
    # written twice: the same page (the markers stay, the text between them is replaced)
    assert findings.rewrite(new, runs) == (new, [])


def test_a_marker_shown_as_an_example_is_left_alone(runs):
    text = ("Inline: `<!-- run: demo/facts.json games -->1<!-- /run -->`.\n\n```markdown\n"
            "<!-- run: demo/report.txt paras=2 -->\n(the paragraph)\n<!-- /run -->\n```\n\n"
            "Live: <!-- run: demo/facts.json games -->1<!-- /run -->\n")
    new, problems = findings.rewrite(text, runs)
    assert problems == [] and new == text.replace("Live: <!-- run: demo/facts.json games -->1", "Live: <!-- run: demo/facts.json games -->52,037")


def test_an_inline_figure_opening_its_line_is_refused(runs, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("We played\n<!-- run: demo/facts.json games -->52,037<!-- /run --> games.\n"
                    "> <!-- run: demo/facts.json games -->52,037<!-- /run --> games.\n")
    bad = findings.check([page], runs)
    assert [b.split(": run:")[0].rsplit("/", 1)[-1] for b in bad] == ["page.md:2", "page.md:3"]
    assert all("put a word before it" in b for b in bad)


def test_a_marker_naming_what_is_not_there_is_reported(runs, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("a <!-- run: demo/facts.json gmes -->1<!-- /run -->\n"
                    "b <!-- run: nothing/facts.json games -->1<!-- /run -->\n"
                    "c <!-- run: demo/report.txt paras=9 -->1<!-- /run -->\n")
    bad = findings.check([page], runs)
    assert len(bad) == 3
    assert "page.md:1:" in bad[0] and "no key 'gmes'" in bad[0]
    assert "page.md:2:" in bad[1] and "docs/runs/nothing/facts.json does not exist" in bad[1]
    assert "page.md:3:" in bad[2] and "part 9 of 3" in bad[2]


def test_the_glance_matrix_is_read_by_its_columns():
    text = ("At a glance: seat verdict per player count and judge\n\n"
            "           greedy                            search_leaf\n"
            "2 players  unfair: 1st +3.9 pp [+2.1, +5.8]  fair: 1st +0.6 pp [-3.0, +4.3]\n"
            "3 players  fair: last -1.3 pp [-4.6, +2.2]   undecided: last +2.8 pp [-0.4, +6.0]\n"
            "\n2 players: fair among the strongest players, the first player ahead at greedy's level.\n")
    cells = findings.seat_cells(text)
    assert cells["2"] == {"greedy": "unfair: 1st +3.9 pp [+2.1, +5.8]", "search_leaf": "fair: 1st +0.6 pp [-3.0, +4.3]"}
    assert cells["3"]["search_leaf"] == "undecided: last +2.8 pp [-0.4, +6.0]"
    assert list(cells) == ["2", "3"]


def test_a_screenshot_not_of_its_run_fails(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    (runs / "demo").mkdir(parents=True)
    (runs / "demo" / "run.toml").write_text('scenario = "starter"\nscreenshot = "shot.png"\n')
    (runs / "demo" / "facts.json").write_text(json.dumps({"screenshot": {"sha256": "0" * 64}}))
    monkeypatch.setattr(findings, "DOCS", tmp_path)
    (tmp_path / "shot.png").write_bytes(b"an older picture")
    bad = findings.check_screenshots(runs)
    assert len(bad) == 1 and "shot.png: not the screenshot of the run in docs/runs/demo" in bad[0]
    (runs / "demo" / "facts.json").write_text(json.dumps({"screenshot": {"sha256": findings._sha(tmp_path / "shot.png")}}))
    assert findings.check_screenshots(runs) == []


def test_the_command_checks_and_says_what_fixes_it(capsys, monkeypatch, runs, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Games: <!-- run: demo/facts.json games -->1<!-- /run -->\n")
    monkeypatch.setattr(findings, "pages", lambda: [page])
    monkeypatch.setattr(findings, "RUNS", runs)
    assert findings.main(["--check"]) == 1
    assert "`make findings` writes them again" in capsys.readouterr().err
    assert findings.main([]) == 0 and "52,037" in page.read_text()
    assert findings.main(["--check"]) == 0


def test_a_rerun_writes_the_run_s_sources_without_machine_paths(tmp_path, monkeypatch):
    """The plumbing of `make findings RERUN=1` (the commands themselves replaced by what they print)."""
    runs = tmp_path / "runs"
    (runs / "demo").mkdir(parents=True)
    (runs / "demo" / "run.toml").write_text('scenario = "starter"\nrun = ["--jobs", "1"]\n')
    work = tmp_path / "work"
    glance = ("At a glance: seat verdict per player count and judge\n\n"
              "           greedy                          search\n"
              "2 players  unfair: 1st +3.9 pp [+2.1, +5.8]  fair: 1st -0.3 pp [-4.4, +3.8]\n\n"
              "2 players: fair among strong players; the first player ahead at greedy's level.\n")
    seen = []

    def fake(cmd, cwd, env):
        seen.append(cmd[3:])
        if cmd[3] == "run":
            out = Path(cwd) / "results" / "demo"
            out.mkdir(parents=True)
            cells = [{"cell": i, "judge": j, "players": 2, "games": g} for i, (j, g) in enumerate((("greedy", 700), ("search", 140)))]
            (out / "manifest.json").write_text(json.dumps({
                "scenario": {"name": "starter", "file": str(ROOT / "scenarios" / "starter.toml"), "text": "..."},
                "run_seed": 7, "chunks": {"plan": []}, "data_files": {"board": {"path": str(out / "x.toml")}},
                "timings": {"runs": [{"wall_seconds": 30.0, "cpu_seconds": 25.0, "compile_seconds": 0}]},
                "sequential": {"cells": cells, "rounds": [1], "measured": {"greedy": {"games": 700, "cpu_seconds": 0.3},
                                                                        "search": {"games": 140, "cpu_seconds": 2.4}}}}))
            return f"starter: 840 games in 2 cells (2 chunks) -> results/demo\nsequential: 2 of 2 cells decided\n", 31.0, 26.0
        return glance + "\nwrote results/demo/report/report.html\n", 5.0, 4.0

    monkeypatch.setattr(findings, "_timed", fake)
    facts = findings.rerun("demo", runs=runs, keep=work)
    assert seen[0] == ["run", "starter", "--out", "results/demo", "--jobs", "1", "--resume"]
    assert seen[1] == ["report", "results/demo"]
    assert (facts["games"], facts["decided"], facts["cells"], facts["seed"]) == (840, 2, 2, 7)
    assert facts["seat"]["2"]["top"] == "fair: 1st -0.3 pp [-4.4, +3.8]" and facts["judges"]["top"] == "search"
    assert facts["top"]["ms"] == 17.1 and facts["time"]["cpu_s"] == 30
    assert facts["summary"].startswith("seed 7: 2 of 2 cells decided, 840 games; 30 s of CPU for run and report")
    assert (runs / "demo" / "cells.csv").read_text().splitlines()[1] == '2,greedy,700,"unfair: 1st +3.9 pp [+2.1, +5.8]"'
    kept = (runs / "demo" / "manifest.json").read_text()
    assert str(tmp_path) not in kept and str(ROOT) not in kept and '"text"' not in kept and "chunks" not in kept
    assert "scenarios/starter.toml" in kept


# --------------------------------------------------------------------------- words from the outcome

ANSWER_HEAD = ("department,instrument,players,lineup,judge,reference,verdict,measure,who,measure_verdict,effect,lo,hi,"
               "margin,own_measure,own_who,own_effect,own_lo,own_hi,seat_verdict,seat_who,seat_effect,seat_lo,seat_hi,"
               "seat_margin,deals,seq_note\n")


def _answer(dept, inst, players, judge, verdict, measure, effect, lo, hi, who="", own=None):
    own = own or (measure, who, effect, lo, hi)
    return (f"{dept},{inst},{players},{judge} x{players},{judge} x{players},Piano,{verdict},{measure},{who},{verdict},"
            f"{effect},{lo},{hi},5.0,{own[0]},{own[1]},{own[2]},{own[3]},{own[4]},not decided,,,,,,1000,\n")


@pytest.fixture
def instrument_run(tmp_path):
    d = tmp_path / "demo"
    d.mkdir()
    rows = [
        _answer("orange", "Organ", 2, "greedy", "out of line", "objective_points", 34.5, 34.2, 34.8),
        _answer("orange", "Organ", 2, "search_leaf", "out of line", "objective_points", 37.3, 36.7, 37.9),
        _answer("orange", "Organ", 4, "greedy", "out of line", "objective_points", 49.3, 49.1, 49.6),
        _answer("orange", "Organ", 4, "search_leaf", "out of line", "objective_points", 52.7, 52.1, 53.3),
        _answer("orange", "Vibes", 2, "greedy", "in line", "objective_points", -0.5, -1.0, 0.1),
        _answer("orange", "Vibes", 2, "search_leaf", "unclear", "objective_points", -1.0, -2.0, 0.1,
                own=("seat_win", "2", -0.03, -0.07, 0.01)),
        _answer("orange", "Vibes", 4, "greedy", "out of line", "objective_points", -7.8, -8.1, -7.6),
        _answer("orange", "Vibes", 4, "search_leaf", "in line", "objective_points", -1.3, -1.9, -0.7),
    ]
    (d / "instrument_answer.csv").write_text(ANSWER_HEAD + "".join(rows))
    (d / "instrument_judges.csv").write_text(
        "department,instrument,players,measure,who,weak,strong,weak_effect,strong_effect,diff,lo,hi,margin,family,test\n"
        "orange,Organ,2,objective_points,,greedy x2,search_leaf x2,34.5,37.3,2.8,1.9,3.7,5.0,8,shown\n"
        "orange,Organ,4,objective_points,,greedy x4,search_leaf x4,49.3,52.7,3.4,-0.2,7.0,5.0,10,not shown\n"
        "orange,Vibes,4,objective_points,,greedy x4,search_leaf x4,-7.8,-1.3,6.5,5.2,7.8,5.0,10,shown\n")
    (d / "report.txt").write_text(
        "  Clarinet (gray) at 4 players is out of line on objective points handed out per game for greedy x4 and "
        "search_leaf x4 alike: it hands out 15.7 more; so does every other gray instrument for greedy x4 and "
        "search_leaf x4: Horns, the reference, is the odd one on this measure.\n")
    proof = {"strong": "search_leaf", "reference": "search", "seconds": 144.0, "seconds_spent": 80.25, "cpu_seconds": 99.6,
             "settings": [{"setting": "Violin/Piano/Horns", "players": 2, "verdict": "stronger", "share": 0.7, "lo": 0.6,
                           "hi": 0.8, "fair": 0.5, "deals": 108},
                          {"setting": "Violin/Organ/Horns", "players": 2, "verdict": "unproven", "share": 0.55,
                           "lo": 0.45, "hi": 0.62, "fair": 0.5, "deals": 324}]}
    (d / "manifest.json").write_text(json.dumps({"sequential": {"proof": proof}}))
    return d


def test_an_instrument_run_s_answer_is_written_from_its_tables(instrument_run):
    facts = findings.derived_facts(instrument_run)
    f = facts["instruments"]
    assert f["everywhere"] == ("out of line at 2 and 4 players for greedy and search_leaf alike: Organ (orange): 34.5 "
                               "to 52.7 more objective points per game than Piano at 2 and 4 players")
    assert f["everywhere_names"] == "Organ"
    # the difference's test, said as the report's table gives it: shown at 2 players, not at 4
    assert f["strong_lead"] == ("Organ's lead under search_leaf against greedy: shown larger at 2 players "
                                "(+2.8 [+1.9, +3.7]); not shown to differ at 4 players (+3.4 [-0.2, +7.0])")
    # decided verdicts that differ first, then those where one judge is undecided
    assert f["disagree"].startswith("Out of line for greedy and in line for search_leaf: at 4 players Vibes "
                                    "(points -7.8 [-8.1, -7.6] against -1.3 [-1.9, -0.7]; the difference shown)")
    assert "In line for greedy and undecided for search_leaf: at 2 players Vibes" in f["disagree"]
    assert f["disagree_count"] == 1 and f["differ_count"] == 2
    assert f["reference_odd"] == "Horns at 4 players (greedy and search_leaf)"
    assert f["verdicts"] == "8 verdicts (2 instruments x 2 player counts x 2 judges): 5 out of line, 2 in line, 1 undecided"
    table = (instrument_run / "sets.csv").read_text().splitlines()
    assert table[0] == "instrument,2p greedy,2p search_leaf,4p greedy,4p search_leaf"
    assert table[2].startswith('Vibes (orange),"in line: points -0.5 [-1.0, +0.1]","undecided: points -1.0 [-2.0, +0.1]; '
                               'seat 3 wins -3.0 pp [-7.0, +1.0]"')
    p = facts["proof"]
    assert (p["shown"], p["settings"], p["spent"], p["budget"], p["cpu_s"]) == (1, 2, 80.2, 144, 100)
    assert p["line"] == ("search_leaf is shown stronger than search on 1 of 2 settings; not on Violin/Organ/Horns at "
                         "2 players (unproven: 55.0% of the wins [45.0, 62.0] against a fair 50.0%, 324 deals), where "
                         "every verdict of search_leaf rests on an unproven judge")
    assert (instrument_run / "proof.csv").read_text().splitlines()[2] == \
        'Violin/Organ/Horns,2,unproven,"55.0% [45.0, 62.0]",50.0%,324'


def test_no_instrument_out_of_line_everywhere_is_said_so(instrument_run):
    path = instrument_run / "instrument_answer.csv"
    path.write_text(path.read_text().replace("4,search_leaf x4,search_leaf x4,Piano,out of line", "4,search_leaf x4,search_leaf x4,Piano,unclear"))
    f = findings.instrument_facts(instrument_run)["instruments"]
    assert f["everywhere"] == "out of line at 2 and 4 players for greedy and search_leaf alike: none"
    assert f["everywhere_names"] == "none"


@pytest.mark.parametrize("spec", sorted((ROOT / "docs" / "runs").glob("*/run.toml")), ids=lambda p: p.parent.name)
def test_the_words_of_each_run_are_its_files(spec, tmp_path):
    """The sentences and tables facts.json keeps about a run's outcome are what its kept files give
    today: a hand-edited sentence, or one left from other files, fails."""
    import shutil

    copy = tmp_path / spec.parent.name
    shutil.copytree(spec.parent, copy)
    derived = findings.derived_facts(copy)
    kept = json.loads((spec.parent / "facts.json").read_text())
    for key, value in derived.items():
        assert kept.get(key) == value, f"docs/runs/{spec.parent.name}/facts.json {key}: `make findings` with --derive writes it again"
    for table in ("sets.csv", "proof.csv"):
        if (copy / table).is_file():
            assert (spec.parent / table).read_text() == (copy / table).read_text(), f"{spec.parent.name}/{table}"


def test_each_judge_s_cost_is_the_run_s_measure(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"sequential": {"measured": {
        "greedy": {"games": 10000, "cpu_seconds": 5.0}, "search_leaf": {"games": 1000, "cpu_seconds": 22.4},
        "lookahead": {"games": 0, "cpu_seconds": 0.0}}}}))
    cost = findings.cost_facts(tmp_path)["cost"]
    assert cost == {"greedy": {"ms": 0.5, "x_greedy": 1.0}, "search_leaf": {"ms": 22.4, "x_greedy": 44.8}}


def test_a_balance_search_s_facts_are_its_answer_and_its_cost():
    """``run.toml`` with ``tune = NAME`` keeps a race's summary and the figures pages name from its
    ``tune.json``: the changes found, each answer cell's verdict, rates and deals, the candidates by
    state, the games and declared seconds."""
    result = {
        "stop": "met",
        "fix": {"changes": [{"key": "board.seats.tie_break.3", "before": "latest", "after": "earliest"},
                            {"key": "board.seats.start_points.4", "before": [0, 0, 0, 0], "after": [1, 0, 0, 0]}],
                "cells": {"3p greedy": {"verdict": "fair", "deals": 12000, "rates": [0.35, 0.338, 0.312]}}},
        "candidates": [{"state": "met"}, {"state": "dropped: 4p greedy decided unfair"}, {"state": "bench"}],
        "untried": [{"changes": {}}],
        "cost": {"games": 270500, "seconds_spent": 685.6, "seconds": 900.0, "cpu_seconds": 701.02},
    }
    facts = findings.tune_facts(result)
    assert facts["found"] == ('board.seats.tie_break.3 "latest" -> "earliest"; '
                              "board.seats.start_points.4 [0, 0, 0, 0] -> [1, 0, 0, 0]")
    assert facts["fix"]["3p-greedy"] == {"verdict": "fair", "deals": 12000, "rates": "35.0 / 33.8 / 31.2"}
    assert facts["states"] == {"met": 1, "dropped": 1, "bench": 1} and facts["candidates"] == 4
    assert (facts["games"], facts["seconds_spent"], facts["search_cpu_s"]) == (270500, 685.6, 701)
    spec = tomllib.loads((ROOT / "docs" / "runs" / "starter-seats" / "run.toml").read_text())
    assert spec["tune"] == "starter-seats"
    kept = json.loads((ROOT / "docs" / "runs" / "starter-seats" / "facts.json").read_text())
    assert kept["stop"] == "met" and kept["found"].count("->") == 3
