"""One writer per folder: the lock every writing ``ssb`` command (run, tune, strategies tune,
baseline, report) holds on the folder it writes.

The lock is the file ``.lock`` in that folder, held with ``flock`` while the command runs and
holding the writer's pid, command line and start time. The operating system drops the ``flock``
when its process ends, however it ends (``kill -9`` included), so a lock left behind by a dead
process is stale: the next writer takes it over (and says so on stderr) instead of refusing. A
live writer's lock is refused with its pid, so the user knows which process to wait for.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import time
from pathlib import Path

from scenarios.results import RunDirError

LOCK_FILE = ".lock"


class FolderLocked(RunDirError):
    """Another live process is writing to the folder."""


def _holder(text):
    """``(pid, description)`` from a lock file's text (pid None when it holds none)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    pid, _, rest = first.partition(" ")
    return (int(pid) if pid.isdigit() else None), rest.strip()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def folder_lock(folder, what=None, notice=None):
    """Hold the write lock of ``folder`` (created if missing) for the ``with`` block.

    ``what`` describes the writer (default: the command line). A live writer raises
    :class:`FolderLocked` naming the lock file and its pid; a stale lock is taken over, with one
    line to ``notice`` (default: stderr). A second lock of the same folder in one process is
    refused too (``flock`` locks each open file on its own)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        with os.fdopen(os.dup(fd), "r", closefd=True) as fh:
            old = fh.read()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pid, desc = _holder(old)
            who = f"pid {pid}" + (f", {desc}" if desc else "") if pid else "another process"
            raise FolderLocked(
                path, "", f"another ssb command is writing to this folder ({who}); wait for it to end or stop it"
            ) from None
        pid, desc = _holder(old)
        if pid is not None and pid != os.getpid() and not _alive(pid):
            msg = f"note: {path}: took over the stale lock of pid {pid} (no longer running)"
            (notice or (lambda m: print(m, file=sys.stderr)))(msg)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        line = what or " ".join(Path(sys.argv[0]).name.split() + sys.argv[1:])
        started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        os.write(fd, f"{os.getpid()} {line} (since {started})\n".encode())
        try:
            yield path
        finally:
            # Leave an empty file behind: an empty lock file is a free folder.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)
