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
import errno
import fcntl
import os
import stat
import sys
import time
from pathlib import Path

from scenarios.results import RunDirError

LOCK_FILE = ".lock"


class FolderLocked(RunDirError):
    """Another live process is writing to the folder."""


MAX_READ = 4096  # a lock file holds one short line; a longer one is read no further
MAX_PID = 2**22  # Linux's pid_max ceiling; a larger number is no process id


def _holder(text):
    """``(pid, description)`` from a lock file's text (pid None when it holds none, or a number
    no process can have)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    pid, _, rest = first.partition(" ")
    ok = pid.isascii() and pid.isdigit() and len(pid) <= 8 and 0 < int(pid) <= MAX_PID
    return (int(pid) if ok else None), rest.strip()[:200]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    except PermissionError:
        return True
    return True


def _open_lock(path):
    """Open (or create) the lock file without following a link and without waiting on a FIFO;
    anything but a plain file is refused, so no file outside the folder is ever created or cut."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            why = "is a symbolic link; a lock file must be a plain file in the folder: remove the link"
        elif exc.errno == errno.EISDIR:
            why = "is a directory; a lock file must be a plain file in the folder: remove it"
        else:
            why = f"cannot open the lock file: {exc.strerror or exc}"
        raise RunDirError(path, "", why) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device or special file"
        raise RunDirError(path, "", f"is {kind}, not a plain file; a lock file must be a plain file: remove it")
    os.set_blocking(fd, True)
    return fd


@contextlib.contextmanager
def folder_lock(folder, what=None, notice=None):
    """Hold the write lock of ``folder`` (created if missing) for the ``with`` block.

    ``what`` describes the writer (default: the command line). A live writer raises
    :class:`FolderLocked` naming the lock file and its pid; a stale lock is taken over, with one
    line to ``notice`` (default: stderr). A second lock of the same folder in one process is
    refused too (``flock`` locks each open file on its own)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunDirError(folder, "", f"cannot create the folder: {exc.strerror or exc}") from None
    path = folder / LOCK_FILE
    fd = _open_lock(path)
    try:
        old = os.pread(fd, MAX_READ, 0).decode("utf-8", errors="replace")
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
