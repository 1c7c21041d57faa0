"""Is the compiled kernel on disk yet? Announce and time the first compile.

Numba compiles the rules kernel the first time an entry point (``play_batch``, ``play_game``) is
called on a machine and caches it on disk (see ``simulator.shuffle_swing.kernel``). A cold compile takes minutes
on a small machine; when every worker process of a run did it at once the run sat at 0 games with
no word of why. So the commands that play games ask :func:`kernel_cached` first, print one line
(:func:`compile_notice`) when the kernel must be compiled, compile it once in the parent process,
and record how long it took (:func:`record_compile`) so that the next notice on this machine quotes
the figure measured here.

This module reads the numba cache's index through numba's own cache object (``dispatcher._cache``),
so it knows what numba itself would load; it never writes the cache.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

# Cold compile of the batch entry point: about 53 s of CPU time on one core of the 2-core AMD EPYC
# development machine (README, "First run"); on a quiet machine the wall time is close to that, on
# a shared one a multiple. Quoted until this machine has measured its own (RECORD_FILE).
DEFAULT_COMPILE_SECONDS = 60
RECORD_FILE = "last-compile.json"


def _entry(name):
    """The compiled entry point ``name``: an attribute of the first game's engine, or ``module:attr``
    (another game's kernel, as its registry entry names it: ``simulator.game_api.Game.kernel_entry``)."""
    import importlib

    module, _, attr = name.rpartition(":")
    return getattr(importlib.import_module(module or "simulator.shuffle_swing.kernel.engine"), attr)


def kernel_cached(entry="play_batch"):
    """``True`` when numba's on-disk cache holds a compiled ``entry`` for this machine and these
    sources, ``False`` when it does not, ``None`` when it cannot tell (JIT disabled, an unknown
    numba version)."""
    import numba

    if numba.config.DISABLE_JIT:
        return None
    try:
        dispatcher = _entry(entry)
        cache = dispatcher._cache
        index = cache._cache_file._load_index()
    except Exception:  # a numba without these internals: say we cannot tell
        return None
    if not index:
        return False
    # The index keys each overload by (signature, (triple, cpu name, features), ...): numba loads
    # only an overload compiled for this CPU.
    try:
        import llvmlite.binding as llvm

        cpu = numba.config.CPU_NAME or llvm.get_host_cpu_name()
        return any(k[1][1] == cpu for k in index)
    except Exception:
        return True


def _record_path(entry="play_batch"):
    """Where this machine's last cold compile time is kept: one file for the first game's kernel,
    one per other kernel module (their compile times differ)."""
    from simulator.shuffle_swing.kernel import cache_dir

    explicit = os.environ.get("NUMBA_CACHE_DIR")
    base = Path(explicit) if explicit else Path(cache_dir()).parent
    module = entry.rpartition(":")[0]
    if not module or module == "simulator.shuffle_swing.kernel.engine":
        return base / RECORD_FILE
    return base / f"last-compile-{module.replace('.', '-')}.json"


def expected_compile_seconds(entry="play_batch"):
    """Seconds a cold compile takes: the last one measured on this machine, else the default."""
    try:
        doc = json.loads(_record_path(entry).read_text(encoding="utf-8"))
        seconds = float(doc["seconds"])
        if seconds > 0:
            return seconds
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return float(DEFAULT_COMPILE_SECONDS)


def record_compile(seconds, entry="play_batch"):
    """Keep the measured cold compile time for the next notice (best effort)."""
    try:
        path = _record_path(entry)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"seconds": round(float(seconds), 1), "when": time.time()}) + "\n")
    except OSError:
        pass


def compile_notice(seconds=None, entry="play_batch", what="the rules kernel"):
    """The one line printed before a cold compile."""
    s = expected_compile_seconds(entry) if seconds is None else seconds
    return f"compiling {what}, first run only: about {_round(s)} s"


def _round(s):
    return int(round(s / 10.0) * 10) if s >= 30 else max(1, int(round(s)))


def compile_once(play, announce=None, entry="play_batch", what="the rules kernel"):
    """Make sure ``entry`` is compiled and cached: when it is not, ``announce(compile_notice())``,
    call ``play()`` (which plays a game through ``entry``, compiling it) and record the time taken.
    Returns the seconds spent compiling (0.0 when the kernel was cached already, or runs
    interpreted). When the cache cannot be inspected, ``play()`` runs without a notice."""
    import numba

    if numba.config.DISABLE_JIT:
        return 0.0
    cached = kernel_cached(entry)
    if cached:
        return 0.0
    if cached is None:
        play()
        return 0.0
    if announce is not None:
        announce(compile_notice(entry=entry, what=what))
    t0 = time.perf_counter()
    play()
    seconds = time.perf_counter() - t0
    record_compile(seconds, entry)
    return seconds
