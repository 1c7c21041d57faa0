"""The manual cannot drift from the code: what a page names exists, what it counts is counted from
the files, its figures carry their command and seed (or sit on a dated findings page), and the
project's own facts (version, licence, citation, the CI workflow, the gate's baselines) agree.

The commands and options a page names are checked in tests/test_docs_pages.py; the blocks of every
page run through sybil (conftest.py).
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)]
FENCE = re.compile(r"^ *(```+|~~~+)[^\n]*\n.*?^ *\1[ \t]*$", re.M | re.S)


def _ids(pages):
    return [str(p.relative_to(ROOT)) for p in pages]


# =========================================================================== judges and strategies


def strategy_names():
    """Every strategy profile name of every registered game."""
    from simulator import games as registry

    names = set()
    for g in registry.names():
        lib = registry.get(g).strategies(())
        names |= {str(n).lower() for n in lib.names()}
    return names


# A name in inline code that reads as a judge or strategy: one of the families the games' profiles
# use with a suffix (`search_deep`, `tuned2`, `greedy_plus`), optionally with rung parameters or a focus.
FAMILIES = ("search", "tuned", "greedy", "lookahead", "decisive")
JUDGE_LIKE = re.compile(r"`((?:%s)(?:_[a-z]+|\d+)+)(?:[@:][^`]*)?`" % "|".join(FAMILIES))


def judge_like_names(text):
    """``(line number, name)`` of every judge-like name in a page's inline code, leaving out lines
    that say the name is retired (and code blocks: a profile may be written under a new name there)."""
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out = []
    for i, line in enumerate(prose.splitlines(), 1):
        if "retired" in line:
            continue
        out += [(i, m.group(1)) for m in JUDGE_LIKE.finditer(line)]
    return out


def test_the_judge_check_finds_a_name_no_game_has():
    text = "The judges `greedy`, `tuned2` and `search_strong`.\nOld: `search_strong` (retired).\n"
    assert [n for _, n in judge_like_names(text)] == ["tuned2", "search_strong"]
    assert "search_strong" not in strategy_names()


def code_names():
    """Functions and constants of the product's code (a page may name a kernel's `search_pick`)."""
    names = set()
    for folder in ("simulator", "strategies", "scenarios", "reports", "ssb"):
        for f in (ROOT / folder).rglob("*.py"):
            names |= {a or b for a, b in re.findall(r"^\s*(?:def (\w+)|(\w+) =)", f.read_text(), re.M)}
    return names


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_every_judge_a_page_names_exists(page):
    if DATED.match(page.name):
        pytest.skip("a dated findings page: the judges of its day")
    known = strategy_names() | code_names()
    text = page.read_text(encoding="utf-8")
    unknown = [f"line {i}: {n}" for i, n in judge_like_names(text) if n.lower() not in known]
    assert not unknown, (f"{page.relative_to(ROOT)} names judges or strategies no game has "
                         f"(say 'retired' on the line if the page tells its history):\n" + "\n".join(unknown))


def _starter_judges():
    doc = tomllib.loads((ROOT / "scenarios" / "starter.toml").read_text())
    m = doc["lineup"]["mirror"]
    return [m] if isinstance(m, str) else list(m)


NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_a_page_counts_the_starter_judges_as_the_scenario_does(page):
    """"three judges" beside `make run` or the starter set must be the starter's own count."""
    n = len(_starter_judges())
    wrong = []
    for i, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if not re.search(r"make run|starter", line) or "Echidna" in line:
            continue
        for m in re.finditer(r"\b(two|three|four|five|six) (?:judges|skill levels)\b", line):
            if NUMBER_WORDS[m.group(1)] != n:
                wrong.append(f"line {i}: '{m.group(0)}' (scenarios/starter.toml has {n}: {', '.join(_starter_judges())})")
    assert not wrong, f"{page.relative_to(ROOT)}:\n" + "\n".join(wrong)


def test_the_shipped_scenarios_table_is_the_files():
    """The table of docs/games/shuffle-and-swing.md: each scenario's judges are its mirror list, and
    the game count it quotes is the file's."""
    page = (DOCS / "games" / "shuffle-and-swing.md").read_text(encoding="utf-8")
    table = page.split("## Shipped scenarios", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w-]+)` \| (.*?) \| (.*?) \|$", table, re.M)
    assert {r[0] for r in rows} >= {"starter", "expansion", "grid", "ci", "rulings"}
    for name, plays, judges in rows:
        doc = tomllib.loads((ROOT / "scenarios" / f"{name}.toml").read_text())
        m = doc["lineup"]["mirror"]
        assert re.findall(r"`([\w-]+)`", judges) == ([m] if isinstance(m, str) else list(m)), name
        for count in re.findall(r"([\d,]+) (?:games|deals)", plays):
            assert int(count.replace(",", "")) == doc["games"], (name, count)


# =========================================================================== figures


# Pages under docs/findings/ named YYYY-MM-DD-... are dated findings: their figures stand as measured
# that day. Other pages quote a figure (a rate to a decimal) in a section that says the command and
# seed that produced it, or links the dated finding it comes from, or is marked <!-- dated: DATE -->,
# or writes it from the run itself (<!-- run: NAME/FILE -->: tests/test_docs_findings.py).
FIGURE = re.compile(r"\d+\.\d+ ?%|[+-]?\d+\.\d pp\b")
SOURCE = re.compile(r"\bseed\b|findings/|<!-- dated: \d{4}-\d{2}-\d{2} -->|<!-- run: [\w.-]+/")
DATED = re.compile(r"\d{4}-\d{2}-\d{2}-")
# Pages whose figures are being measured again with the current starter run and search rung; each
# leaves this list when its new figures land (with their commands and seeds).
BEING_REMEASURED: set[str] = set()


def sections_without_source(text):
    """The first line of each section (text between headings) that quotes a figure but names no seed,
    no findings page and no dated mark."""
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    prose = re.sub(r"`[^`\n]*`", "``", prose)  # an example of a report's words is not a figure
    out = []
    for sec in re.split(r"^(?=#{1,4} )", prose, flags=re.M):
        if FIGURE.search(sec) and not SOURCE.search(sec):
            out.append(next(ln for ln in sec.splitlines() if FIGURE.search(ln)).strip()[:120])
    return out


def test_the_figure_check_finds_a_bare_figure():
    assert sections_without_source("# A\n\nThe last seat wins 41.2%.\n") == ["The last seat wins 41.2%."]
    assert sections_without_source("# A\n\nMeasured (`make run`, seed 7): 41.2%.\n") == []
    assert sections_without_source("# A\n\n<!-- dated: 2026-12-01 -->\nIt was 41.2%.\n") == []


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_quoted_figures_carry_command_and_seed_or_a_date(page):
    rel = str(page.relative_to(ROOT))
    if DATED.match(page.name) or rel in BEING_REMEASURED:
        pytest.skip("a dated findings page" if DATED.match(page.name) else "figures being measured again")
    bare = sections_without_source(page.read_text(encoding="utf-8"))
    assert not bare, f"{rel} quotes figures without command and seed or a dated mark:\n" + "\n".join(bare)


# =========================================================================== the site and its tests


def test_sybil_collects_every_page_with_code():
    """Every page holding a bash or python block is one sybil runs (conftest.py's patterns)."""
    conf = (ROOT / "conftest.py").read_text()
    patterns = re.findall(r'"([^"]+\.md)"', conf.split("patterns=", 1)[1].split("]", 1)[0])
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if re.search(r"^ *```(bash|python)\b", text, re.M):
            rel = str(page.relative_to(ROOT))
            assert any(fnmatch.fnmatch(rel, p) and rel.count("/") == p.count("/") for p in patterns), rel


def test_the_site_searches_offline():
    """Material's offline plugin bundles the search index, so search works from site/ as files."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    conf = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)
    plugins = [p if isinstance(p, str) else next(iter(p)) for p in conf["plugins"]]
    assert "search" in plugins and "offline" in plugins
    assert conf.get("use_directory_urls") is False


# =========================================================================== version, licence, citation


def test_one_version_everywhere():
    from simulator.provenance import package_version

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(rf'^version: "{re.escape(version)}"$', cff, re.M), "CITATION.cff's version"
    top = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.M).group(1)
    assert top == version, "the newest CHANGELOG.md entry"
    assert package_version() == version, "the installed package (make setup installs it again)"
    assert "MIT License" in (ROOT / "LICENSE").read_text() and re.search(r"^license: MIT$", cff, re.M)


def test_the_manifest_and_the_report_record_the_version(tmp_path):
    from reports.build import build_report
    from reports.io import load_run
    from scenarios.runner import run_scenario
    from simulator.provenance import package_version

    run_scenario(ROOT / "tests" / "fixtures" / "mixed4.toml", tmp_path / "r", jobs=1, games=4, progress=False)
    run = load_run(tmp_path / "r")
    assert run.manifest["code"]["version"] == package_version()
    rep = build_report(run)
    assert rep.version == f"played by shuffle-swing-balance {package_version()}, reported by {package_version()}"
    from reports.render import render_html, render_markdown

    assert rep.version in render_html(rep) and "Played by shuffle-swing-balance" in render_markdown(rep)


# =========================================================================== the CI workflow and the gate


def test_the_ci_workflow_gates_every_gate_and_names_files_that_exist():
    import yaml

    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "balance.yml").read_text())
    text = (ROOT / ".github" / "workflows" / "balance.yml").read_text()
    gates = re.search(r"^REGRESS_GATES\s*:=\s*(.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()
    assert wf["jobs"]["regress"]["strategy"]["matrix"]["gate"] == gates
    for g in gates:
        assert (ROOT / "scenarios" / f"{g}.toml").is_file() and (ROOT / "baselines" / f"{g}-baseline.json").is_file()
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    globs = list(on["pull_request"]["paths"]) + re.findall(r"'([^']+)'", re.search(r"hashFiles\(([^)]*)\)", text).group(1))
    files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts and ".git" not in p.parts]
    for pattern in globs:
        regex = re.escape(pattern).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
        assert any(re.fullmatch(regex, f) for f in files), f"{pattern} matches no file of the repository"


@pytest.mark.parametrize("gate", ["ci", "ci-strong", "echidna-ci"])
def test_a_clean_checkout_s_gate_says_nothing_changed_since_its_baseline(gate):
    """The committed baselines are of this checkout's data and rules: the gate's line reads
    "changed since the baseline: nothing". When this fails after a change of a data file or of a
    kernel, write the baselines again (docs/guide/regression-gate.md) and commit them."""
    from reports.gate.baseline import read_baseline, run_identity
    from reports.gate.regress import changes_since
    from reports.gate.format import changed_line
    from scenarios.load import load_scenario
    from scenarios.rundir import new_manifest
    from simulator.provenance import code_version

    base = read_baseline(ROOT / "baselines" / f"{gate}-baseline.json")
    sc = load_scenario(gate)
    manifest = new_manifest(sc, [], 1, sc.data_files(), code_version(sc.game))
    line = changed_line(changes_since(base, run_identity(manifest)))
    assert line == "changed since the baseline: nothing", line
