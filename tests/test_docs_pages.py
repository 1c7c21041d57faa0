"""The manual cannot name what does not exist.

Every ``ssb ...`` command line in README.md and docs/ (shell blocks and inline code alike) is checked
against the click command tree: each word of the command path must be a command, each option one of
that command's options. Every ``make TARGET`` must be a target of the Makefile. The blocks of README
and the guide are run by sybil (``conftest.py``); here: every such block is tagged so that sybil sees
it, and the README keeps its promises (short, the two commands first). The report's verdict words
link to anchors that the reading-a-report page defines.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from ssb.cli import cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)]
RUN_PAGES = PAGES  # sybil runs the blocks of every page (conftest.py)

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$", re.M | re.S)
INLINE = re.compile(r"(?<!`)`([^`\n]+(?:\n[^`\n]+)?)`(?!`)")
SEPARATORS = {"&&", "||", ";", "|", ">", ">>", "2>", "2>&1"}
SHELL_LANGS = {"bash"}


def _fences(text):
    return list(FENCE.finditer(text))


def _prose(text):
    """The text outside fenced blocks."""
    return FENCE.sub("", text)


def _logical(body):
    out, cur = [], ""
    for raw in body.splitlines():
        if raw.rstrip().endswith("\\"):
            cur += raw.rstrip()[:-1] + " "
            continue
        out.append((cur + raw).strip())
        cur = ""
    if cur:
        out.append(cur.strip())
    return [ln for ln in out if ln]


def _tokens(line):
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return line.split()


def command_lines(text):
    """Every ``ssb`` command (as a token list) in a page: shell blocks and inline code."""
    found = []
    for m in _fences(text):
        if m.group("lang").strip() in SHELL_LANGS:
            for line in _logical(m.group("body")):
                found.append((line, _tokens(line)))
    for m in INLINE.finditer(_prose(text)):
        span = " ".join(m.group(1).split())
        if re.match(r"(\.venv/bin/)?ssb( |$)", span):
            found.append((span, _tokens(span)))
    commands = []
    for line, tokens in found:
        cur = []
        for t in tokens + [";"]:
            if t in SEPARATORS:
                if cur and cur[0] in ("ssb", ".venv/bin/ssb"):
                    commands.append((line, cur))
                cur = []
            else:
                cur.append(t)
    return commands


def _option(cmd, name):
    for p in cmd.params:
        if isinstance(p, click.Option) and (name in p.opts or name in p.secondary_opts):
            return p
    return None


def check_command(tokens):
    """What is wrong with one ``ssb`` command line (empty when command and options exist)."""
    cmd, path, errors, i = cli, ["ssb"], [], 1
    while i < len(tokens):
        t = tokens[i].strip("[]()")
        if not t or t in ("...", "…"):
            i += 1
            continue
        if t.startswith("-") and len(t) > 1 and not re.match(r"^-\d", t):
            name = t.split("=", 1)[0]
            if name in ("--help", "-h"):
                i += 1
                continue
            opt = _option(cmd, name)
            if opt is None:
                known = sorted(o for p in cmd.params if isinstance(p, click.Option) for o in p.opts + p.secondary_opts)
                errors.append(f"'{' '.join(path)}' has no option {name} (it has: {', '.join(known)})")
            elif not opt.is_flag and not opt.count and "=" not in t:
                i += 1  # its value
            i += 1
            continue
        if isinstance(cmd, click.Group):
            if t in cmd.commands:
                cmd = cmd.commands[t]
                path.append(t)
            elif t.isupper() or t in ("COMMAND", "NAME"):
                return errors
            else:
                errors.append(f"'{' '.join(path)}' has no command '{t}' (it has: {', '.join(sorted(cmd.commands))})")
                return errors
        i += 1
    return errors


def _make_targets():
    text = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([A-Za-z][\w.-]*(?: [A-Za-z][\w.-]*)*)\s*:(?!=)", text, re.M))
    names = {t for group in targets for t in group.split()}
    gates = re.search(r"^REGRESS_GATES\s*:=\s*(.*)$", text, re.M)
    for g in (gates.group(1).split() if gates else ()):
        names.add(f"regress-{g}")
    return names


def _ids(pages):
    return [str(p.relative_to(ROOT)) for p in pages]


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_documented_commands_exist(page):
    errors = []
    for line, tokens in command_lines(page.read_text(encoding="utf-8")):
        errors += [f"{line!r}: {e}" for e in check_command(tokens)]
    assert not errors, f"{page.relative_to(ROOT)} documents what ssb does not have:\n" + "\n".join(errors)


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_documented_make_targets_exist(page):
    targets = _make_targets()
    text = page.read_text(encoding="utf-8")
    spans = [m.group(1) for m in INLINE.finditer(_prose(text))]
    spans += [ln for m in _fences(text) if m.group("lang").strip() in SHELL_LANGS for ln in _logical(m.group("body"))]
    spans += [ln for m in _fences(text) if m.group("lang").strip() == "" for ln in _logical(m.group("body"))]
    missing = set()
    for span in spans:
        for m in re.finditer(r"(?:^|&& )make (?:-k )?([a-z][\w-]*)", span):
            if m.group(1) not in targets:
                missing.add(m.group(1))
    assert not missing, f"{page.relative_to(ROOT)} names make targets the Makefile lacks: {sorted(missing)}"


def test_the_check_catches_a_missing_option_and_command():
    page = """
Play it with `ssb report results/x --instrument-dir mine` or:

```bash
ssb run starter --instrument-dirs mine --jobs 2
ssb strategies frobnicate
ssb run grid --games 20 && ssb report results/grid --margin 2
```
"""
    errors = [e for _, tokens in command_lines(page) for e in check_command(tokens)]
    assert len(errors) == 3, errors
    assert any("'ssb report' has no option --instrument-dir" in e for e in errors)
    assert any("'ssb run' has no option --instrument-dirs" in e for e in errors)
    assert any("'ssb strategies' has no command 'frobnicate'" in e for e in errors)


def test_the_check_reads_continuations_placeholders_and_values():
    page = """
```bash
ssb strategies tune --name tuned2 --players 2 \\
    --rescore-deals 400 -o tuned2.toml   # a comment --not-an-option
```
and `ssb bench --compare benchmarks/baseline.json [--ratio 0.8]`, `ssb run ... --jobs 2`,
`ssb regress results/ci --baseline b.json --margin win_rate=2 --strict`.
"""
    commands = command_lines(page)
    assert len(commands) == 4
    assert [e for _, t in commands for e in check_command(t)] == []


@pytest.mark.parametrize("page", RUN_PAGES, ids=_ids(RUN_PAGES))
def test_runnable_blocks_are_tagged(page):
    """A shell block must say ``bash`` (sybil runs those, or a skip note says why not); an untagged
    or otherwise tagged block must not hide an ssb command from the tests."""
    problems = []
    for m in _fences(page.read_text(encoding="utf-8")):
        lang = m.group("lang").strip()
        if lang in ("sh", "shell", "console", "zsh"):
            problems.append(f"a block tagged {lang!r}: tag shell blocks 'bash'")
        elif lang not in ("bash", "python", "toml", "diff", "json", "yaml", "text", "markdown"):
            problems.append(f"a block tagged {lang!r}: give it a language")
        elif lang in ("text", "diff", "markdown", "json", "yaml"):
            for line in m.group("body").splitlines():
                cmd = re.match(r"\s*(\$ )?(\.venv/bin/)?ssb +([\w-]+)", line)
                if cmd and cmd.group(3) in cli.commands:  # a command line, not a folder in a layout
                    problems.append(f"an ssb command in a {lang!r} block: {line.strip()!r}")
    assert not problems, f"{page.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_readme_is_short_and_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 160, len(lines)
    head = "\n".join(lines[:10])
    assert "make run" in head and "make test" in head


def test_every_verdict_word_the_report_links_has_its_anchor():
    from reports import render

    page = (DOCS / "guide" / "reading-a-report.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r"\{#([\w-]+)\}", page))
    for word, anchor in render.VERDICT_ANCHORS.items():
        assert anchor in anchors, f"verdict word {word!r} links to #{anchor}, which docs/guide/reading-a-report.md lacks"


def test_report_verdict_cells_link_to_their_meaning(monkeypatch):
    import pandas as pd

    from reports import render

    frame = pd.DataFrame({"verdict": ["fair", "skill-sensitive", "3.0 pp"]})
    monkeypatch.setenv("SSB_DOCS_URL", "https://lab.example/docs")
    out = render.html_table(frame)
    assert 'href="https://lab.example/docs/guide/reading-a-report.html#fair"' in out
    assert 'href="https://lab.example/docs/guide/reading-a-report.html#skill-sensitive"' in out
    assert "<td class=\"num\">3.0 pp</td>" in out  # not a verdict word: no link
    monkeypatch.delenv("SSB_DOCS_URL")
    local = (ROOT / "site" / "guide" / "reading-a-report.html").as_uri()
    assert f'href="{local}#fair"' in render.html_table(frame)
