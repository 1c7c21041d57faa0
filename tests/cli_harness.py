"""The shared harness of the command-line tests: run an ``ssb`` command, in process or as a real
process, and check that a mistake ends the way every mistake must (exit status 2, one ``error:``
line naming the file or option, the key and the reason, no traceback, nothing written).

A test module of a new command uses it as tests/test_bad_inputs.py does::

    from cli_harness import Case, assert_clean_error, check_case, invoke

    CASES = [Case("my-case", ["mycommand", "--bad", "1"], ["--bad", "reason"])]

    @pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
    def test_my_command_mistake(case, tmp_path, monkeypatch):
        check_case(case, tmp_path, monkeypatch)
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
SSB = str(Path(sys.executable).parent / "ssb")


def invoke(*args, input=None):
    """Run ``ssb ARGS`` in this process (click's runner); ``result.output`` holds stdout and stderr."""
    from ssb.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def run_ssb(*args, cwd=None, env=None, timeout=600):
    """Run ``ssb ARGS`` as a real process; returns the CompletedProcess (text)."""
    return subprocess.run([SSB, *map(str, args)], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


def assert_clean_error(result, *fragments):
    """Exit status 2, an ``error:`` line naming every fragment, no traceback (an in-process result
    of :func:`invoke` or a CompletedProcess of :func:`run_ssb`)."""
    if isinstance(result, subprocess.CompletedProcess):
        out, code = result.stdout + result.stderr, result.returncode
    else:
        out, code = result.output, result.exit_code
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert code == 2, out
    assert "Traceback" not in out
    assert "error: " in out
    for f in fragments:
        assert str(f) in out, f"{f!r} not in {out!r}"


def files_under(folder):
    """Every file below ``folder`` (relative paths), for a check that nothing was written."""
    folder = Path(folder)
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


@dataclass
class Case:
    """One mistake: ``args`` (``{tmp}`` in an argument is the test's folder), the fragments the
    error must name, and an optional ``setup(tmp_path)`` that writes the files the case needs."""

    id: str
    args: list
    fragments: list
    setup: object = None
    writes_nothing: bool = True
    extra: dict = field(default_factory=dict)


def check_case(case, tmp_path, monkeypatch):
    """Run a :class:`Case` in ``tmp_path`` (the working directory) and check its clean error and
    that it wrote nothing beyond what its setup wrote."""
    monkeypatch.chdir(tmp_path)
    if case.setup is not None:
        case.setup(tmp_path)
    before = files_under(tmp_path)
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in case.args]
    fragments = [str(f).replace("{tmp}", str(tmp_path)) for f in case.fragments]
    result = invoke(*args)
    assert_clean_error(result, *fragments)
    if case.writes_nothing:
        assert files_under(tmp_path) == before, "a refused command wrote files"
    return result


@contextlib.contextmanager
def live_writer(folder):
    """A real process holding the write lock of ``folder`` (scenarios.writelock) until the block
    ends; yields its pid."""
    code = (
        "import sys, time\n"
        "from scenarios.writelock import folder_lock\n"
        "with folder_lock(sys.argv[1], what='ssb test-writer'):\n"
        "    print('locked', flush=True)\n"
        "    time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(folder)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        yield proc.pid
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def dead_pid():
    """The pid of a process that has ended (for a stale lock file)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    time.sleep(0.05)
    return proc.pid
