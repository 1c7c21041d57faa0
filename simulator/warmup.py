"""Is the compiled kernel on disk yet? Announce and time the first compile.

Numba compiles the rules kernel the first time an entry point (``play_batch``, ``play_game``) is
called on a machine and caches it on disk (see ``simulator.kernel_common``). A cold compile takes minutes
on a small machine; when every worker process of a run did it at once the run sat at 0 games with
no word of why. So the commands that play games ask :func:`kernel_cached` first, print one line
(:func:`compile_notice`) when the kernel must be compiled, compile it once in the parent process,
and record how long it took (:func:`record_compile`) so that the next notice on this machine quotes
the figure measured here.

This module reads the numba cache's index through numba's own cache object (``dispatcher._cache``),
so it knows what numba itself would load; it never writes the cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path

# Cold compile of the batch entry point: about 53 s of CPU time on one core of the 2-core AMD EPYC
# development machine (README, "First run"); on a quiet machine the wall time is close to that, on
# a shared one a multiple. Quoted until this machine has measured its own (RECORD_FILE).
DEFAULT_COMPILE_SECONDS = 60
RECORD_FILE = "last-compile.json"


def _default_module():
    """The kernel module where a bare entry name is looked up: the default game's
    (``simulator.game_api.Game.kernel_module`` of its registry entry)."""
    from simulator import games as registry

    return registry.get().kernel_module


def _entry(name):
    """The compiled entry point ``name``: an attribute of the default game's kernel module, or
    ``module:attr`` (another game's kernel, as its registry entry names it:
    ``simulator.game_api.Game.kernel_entry``)."""
    import importlib

    module, _, attr = name.rpartition(":")
    return getattr(importlib.import_module(module or _default_module()), attr)


entry_point = _entry  # the public name (the run's workers count their compiles through it)


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
    from simulator.kernel_common import cache_root

    base = Path(cache_root())
    module = entry.rpartition(":")[0]
    if not module or module == _default_module():
        return base / RECORD_FILE
    return base / f"last-compile-{module.replace('.', '-')}.json"


def _last_record(entry="play_batch"):
    try:
        doc = json.loads(_record_path(entry).read_text(encoding="utf-8"))
        if float(doc["seconds"]) > 0:
            return doc
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def expected_compile_seconds(entry="play_batch"):
    """Seconds a cold compile takes: the last one measured on this machine, else the default."""
    doc = _last_record(entry)
    return float(doc["seconds"]) if doc else float(DEFAULT_COMPILE_SECONDS)


def _load():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def record_compile(seconds, entry="play_batch", cpu_seconds=None):
    """Keep the measured cold compile time (wall, CPU and the load it ran at) for the next notice
    (best effort)."""
    try:
        path = _record_path(entry)
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = {"seconds": round(float(seconds), 1), "when": time.time(), "load": _load()}
        if cpu_seconds is not None:
            doc["cpu_seconds"] = round(float(cpu_seconds), 1)
        path.write_text(json.dumps(doc) + "\n")
    except OSError:
        pass


def compile_notice(seconds=None, entry="play_batch", what="the rules kernel"):
    """The one line printed before a cold compile: the last time measured on this machine, with
    the load it ran at and the load now (a shared machine takes a multiple of a quiet one's time)."""
    doc = _last_record(entry) if seconds is None else {"seconds": seconds}
    now = _load()
    now_text = f"; load now {now:.1f}" if now is not None else ""
    if doc is None:
        return (f"compiling {what}, first run only: about {_round(DEFAULT_COMPILE_SECONDS)} s on a quiet "
                f"2-core machine (not measured on this one yet{now_text})")
    at = f" at load {doc['load']:.1f}" if doc.get("load") is not None else ""
    return f"compiling {what}, first run only: about {_round(float(doc['seconds']))} s (last measured here{at}{now_text})"


@contextlib.contextmanager
def compile_watch(entry="play_batch", what="the rules kernel", echo=None):
    """Around the first call of ``entry``: when it is not compiled yet, print the notice, show the
    seconds elapsed while it compiles (on a terminal: one updating line; elsewhere a line every
    30 s) and record the time taken. Does nothing when the kernel is cached (or cannot tell)."""
    import numba

    if numba.config.DISABLE_JIT or kernel_cached(entry) is not False:
        yield
        return
    echo = echo or (lambda m: print(m, file=sys.stderr, flush=True))
    echo(compile_notice(entry=entry, what=what))
    tty = sys.stderr.isatty()
    stop = threading.Event()
    t0, c0 = time.perf_counter(), time.process_time()

    def tick():
        while not stop.wait(1.0 if tty else 30.0):
            elapsed = time.perf_counter() - t0
            if tty:
                sys.stderr.write(f"\r  compiling: {elapsed:.0f} s elapsed")
                sys.stderr.flush()
            else:
                print(f"  still compiling: {elapsed:.0f} s elapsed", file=sys.stderr, flush=True)

    watcher = threading.Thread(target=tick, name="compile-progress", daemon=True)
    watcher.start()
    ok = False
    try:
        yield
        ok = True
    finally:
        stop.set()
        watcher.join()
        if tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
    if ok:
        seconds = time.perf_counter() - t0
        record_compile(seconds, entry, cpu_seconds=time.process_time() - c0)
        echo(f"compiled {what} in {seconds:.0f} s (cached for the next runs)")


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
    t0, c0 = time.perf_counter(), time.process_time()
    play()
    seconds = time.perf_counter() - t0
    record_compile(seconds, entry, cpu_seconds=time.process_time() - c0)
    return seconds


def default_warm(game):
    """``(entry point, play)`` pairs a game's warm-up plays (``Game.warm``), by default one game
    through ``play_game`` and a batch of one through its ``kernel_entry``."""
    import numpy as np

    setup = game.setup(game.player_counts[0], game.boards[0], None) if game.boards else None
    strat = game.strategies(()).matrix([game.default_strategy] * game.player_counts[0])
    return [
        (game.kernel_entry_named("play_game"), lambda: game.play_one(setup, strat, 1)),
        (game.kernel_entry, lambda: game.play_batch(setup, np.arange(1, dtype=np.uint64), strat)),
    ]


def warm_all(echo=None):
    """Compile (or load) every kernel entry point a user meets first, once: the first game's
    ``play_game_plain`` (a plain ``ssb play``), ``play_game`` (a table with a searching seat) and
    ``play_batch`` (``ssb run``, ``ssb check``), and every other game's two (``Game.warm``, else
    :func:`default_warm`). ``make setup`` runs this
    (``python -m simulator.warmup``), so ``make run``, ``make test`` and the first ``ssb play`` start
    warm. Returns the seconds spent."""
    from simulator import games as registry

    echo = echo or (lambda m: print(m, file=sys.stderr, flush=True))
    t0 = time.perf_counter()
    for name in registry.names():
        game = registry.get(name)
        for entry, play in (game.warm or default_warm)(game):
            with compile_watch(entry, f"{game.kernel_what()} ({entry.rpartition(':')[2]})", echo):
                play()
    seconds = time.perf_counter() - t0
    echo(f"kernels ready ({seconds:.0f} s)")
    return seconds


if __name__ == "__main__":
    warm_all()
