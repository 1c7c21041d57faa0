"""The examples of README.md and the docs pages run as tests (sybil).

Every ``bash`` and ``python`` block of README.md and of every page under docs/ is a test, unless an
HTML comment just before it says why it is not run: ``<!-- skip: next "why" -->``. A page that
should run a block quietly first (to make a folder the example reads) writes it as
``<!-- invisible-code-block: python -->``. Each page runs in a fresh folder of its own, where the
repository's folders (``scenarios/``, ``simulator/`` ...) are linked, ``baselines/`` is a copy (a
page may write a baseline) and ``results/`` is new, so a page's blocks see each other's results and nothing else's.

A ``toml`` block must parse, and one whose first line is ``# file: NAME`` is saved as NAME for the
blocks after it (a scenario the page then runs). A ``bash`` block runs each line (``\\`` continues a line, ``&&`` chains) as an ``ssb`` command
through click in this process. Game counts are kept small: ``--games``, ``--deals`` and their
kin are capped at ``SSB_DOCS_GAMES`` (default 24), a ``ssb run``/``ssb check`` without ``--games``
gets that many, and ``--jobs`` is 1. A line that is not an ``ssb`` command fails the block: mark
such a block skipped, with the reason. A trailing comment ``# exit N`` expects exit status N. A block
that takes long even so (a run with a slow judge that another page runs too) is marked
``<!-- slow -->`` on the line before: it runs under ``-m slow`` (``make test-all``), not in
``make test``.
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
DOC_GAMES = int(os.environ.get("SSB_DOCS_GAMES", "24"))
CAPPED = ("--games", "--deals", "--depth-deals", "--rescore-deals", "--verify-deals", "--against-deals", "--budget")
LINKED = ("scenarios", "simulator", "strategies", "reports", "benchmarks", "tests")
COPIED = ("baselines",)  # a page may write a new baseline: into its own copy
SEPARATORS = ("&&", ";")


def logical_lines(source):
    """The command lines of a shell block: continuations joined, blank lines dropped."""
    lines, cur = [], ""
    for raw in source.splitlines():
        if raw.rstrip().endswith("\\"):
            cur += raw.rstrip()[:-1] + " "
            continue
        cur += raw
        if cur.strip():
            lines.append(cur.strip())
        cur = ""
    if cur.strip():
        lines.append(cur.strip())
    return lines


def doc_args(args):
    """An ``ssb`` argument list as the docs tests run it: small game counts, one worker."""
    out, i, seen = [], 0, set()
    while i < len(args):
        a = args[i]
        name, eq, value = a.partition("=")
        if name in CAPPED or name in ("--jobs", "-j"):
            if not eq:
                i += 1
                value = args[i] if i < len(args) else ""
            seen.add(name)
            if name in ("--jobs", "-j"):
                value = "1"
            elif value.isdigit():
                value = str(min(int(value), DOC_GAMES))
            out += [name, value]
        else:
            out.append(a)
        i += 1
    if args[:1] in (["run"], ["check"]) and "--games" not in seen:
        out += ["--games", str(DOC_GAMES)]
    return out


def run_shell_block(example):
    from click.testing import CliRunner

    from ssb.cli import cli

    for line in logical_lines(example.parsed):
        expect = re.search(r"#\s*exit\s+(\d+)\s*$", line)
        code = int(expect.group(1)) if expect else 0
        tokens = shlex.split(line, comments=True)
        commands, cur = [], []
        for t in tokens:
            if t in SEPARATORS:
                commands.append(cur)
                cur = []
            else:
                cur.append(t)
        commands.append(cur)
        for cmd in commands:
            if not cmd:
                continue
            if cmd[0] not in ("ssb", ".venv/bin/ssb"):
                raise AssertionError(
                    f"line {line!r} runs {cmd[0]!r}, not ssb: mark the block <!-- skip: next \"reason\" -->"
                )
            args = doc_args(cmd[1:])
            result = CliRunner().invoke(cli, args, catch_exceptions=True)
            if result.exit_code != code:
                raise AssertionError(
                    f"ssb {' '.join(args)} exited {result.exit_code}, expected {code}\n{result.output[-3000:]}"
                    + (f"\n{result.exception!r}" if result.exception and not isinstance(result.exception, SystemExit) else "")
                )


def check_toml_block(example):
    """A ``toml`` block must parse; one whose first line is ``# file: NAME`` is written to NAME."""
    import tomllib

    text = example.parsed
    tomllib.loads(text)
    first = text.splitlines()[0] if text.strip() else ""
    m = re.match(r"#\s*file:\s*(\S+)", first)
    if m:
        path = Path(m.group(1))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _setup(namespace):
    import shutil

    tmp = Path(tempfile.mkdtemp(prefix="ssb-docs-"))
    for name in LINKED:
        (tmp / name).symlink_to(ROOT / name)
    for name in COPIED:
        shutil.copytree(ROOT / name, tmp / name)
    namespace["_tmp"] = tmp
    os.chdir(tmp)


def _teardown(namespace):
    import shutil

    os.chdir(ROOT)
    shutil.rmtree(namespace["_tmp"], ignore_errors=True)


SLOW = re.compile(r"<!--\s*slow\s*-->\s*$")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark ``@pytest.mark.slow`` the page blocks that a ``<!-- slow -->`` line precedes."""
    for item in items:
        example = getattr(item, "example", None)
        if example is None or not hasattr(example, "document"):
            continue
        before = example.document.text[: example.start].rstrip("\n")
        if SLOW.search(before.rsplit("\n", 1)[-1]):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    """Run each page block in its page's own folder, whatever ran before it."""
    example = getattr(item, "example", None)
    tmp = getattr(example, "namespace", {}).get("_tmp") if example is not None else None
    if tmp is not None:
        os.chdir(tmp)


try:
    from sybil import Sybil
    from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser
except ImportError:  # sybil (the test extra) is not installed: the pages are not collected
    pass
else:
    pytest_collect_file = Sybil(
        parsers=[
            PythonCodeBlockParser(),
            CodeBlockParser(language="bash", evaluator=run_shell_block),
            CodeBlockParser(language="toml", evaluator=check_toml_block),
            SkipParser(),
        ],
        path=str(ROOT),
        patterns=["README.md", "docs/*.md", "docs/*/*.md"],  # every page of the manual
        setup=_setup,
        teardown=_teardown,
        name="docs",
    ).pytest()
