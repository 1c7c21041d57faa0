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


@pytest.mark.parametrize("spec", sorted((ROOT / "docs" / "runs").glob("*/run.toml")), ids=lambda p: p.parent.name)
def test_each_run_says_how_it_is_played_and_holds_its_sources(spec):
    doc = tomllib.loads(spec.read_text())
    assert isinstance(doc["scenario"], str) and (ROOT / "scenarios" / f"{doc['scenario']}.toml").is_file()
    for name in ("run.txt", "report.txt", "facts.json", "manifest.json", *doc.get("tables", [])):
        assert (spec.parent / Path(name).name).is_file(), f"{spec.parent.name}: {name} missing"
    facts = json.loads((spec.parent / "facts.json").read_text())
    assert facts["scenario"] == doc["scenario"] or facts["scenario"] == json.loads(
        (spec.parent / "manifest.json").read_text())["scenario"]["name"]
    text = "".join(p.read_text(encoding="utf-8") for p in spec.parent.iterdir() if p.suffix in (".txt", ".json", ".csv"))
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
