"""Is the compiled kernel on disk yet? Announce and time the first compile.

Numba compiles the rules kernel the first time an entry point (``play_batch``, ``play_game``) is
called on a machine and caches it on disk (see ``simulator.kernel_common``). A cold compile takes minutes
on a small machine; when every worker process of a run did it at once the run sat at 0 games with
no word of why. So the commands that play games ask :func:`kernel_cached` first, print one line
(:func:`compile_notice`) when the kernel must be compiled, compile it once in the parent process,
and record how long it took (:func:`record_compile`) so that the next notice on this machine quotes
the figure measured here.

A compile's time depends on what this process compiled before it: the first entry point of a
kernel compiles nearly all of its functions (*cold*), a second one of the same kernel in the same
process reuses them and takes seconds (*warm*: ``make setup`` compiles three in a row). So each
figure is kept per entry point and per state (:func:`compile_state`) in the numba cache folder, and
a notice quotes the figure measured in the same state: a warm figure is never quoted for a cold
compile. While it compiles, a line says the seconds elapsed at least every :data:`TICK_SECONDS`.

This module reads the numba cache's index through numba's own cache object (``dispatcher._cache``),
so it knows what numba itself would load; it never writes the cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

from simulator.heartbeat import heartbeat

# Cold compile of the batch entry point: about 53 s of CPU time on one core of the 2-core AMD EPYC
# development machine (README, "First run"); on a quiet machine the wall time is close to that, on
# a shared one a multiple. Quoted until this machine has measured its own (RECORD_FILE).
DEFAULT_COMPILE_SECONDS = 60
RECORD_FILE = "last-compile.json"  # the prefix of every record file (one per entry point and state)
TICK_SECONDS = 10  # off a terminal, a line at least this often while compiling (on one: every second)
COLD, WARM = "cold", "warm"


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


def _split(entry):
    """``(module, attribute)`` of an entry name (a bare name is the default game's kernel module)."""
    module, _, attr = entry.rpartition(":")
    return module or _default_module(), attr


def _record_path(entry="play_batch", state=COLD):
    """Where this machine's last compile time of ``entry`` in ``state`` is kept (cold or warm: a
    warm compile's seconds are not a cold one's): one file per entry point of each kernel module."""
    from simulator.kernel_common import cache_root

    module, attr = _split(entry)
    stem = RECORD_FILE.removesuffix(".json")
    return Path(cache_root()) / f"{stem}-{module.replace('.', '-')}-{attr}-{state}.json"


def compile_state(entry="play_batch"):
    """``cold`` when no function of ``entry``'s kernel module is compiled in this process yet, ``warm``
    when one is (another entry point compiled or loaded just now: part of the code is there)."""
    import importlib

    try:
        module = importlib.import_module(_split(entry)[0])
    except Exception:
        return COLD
    for obj in vars(module).values():
        if getattr(obj, "_cache", None) is not None and getattr(obj, "signatures", None):
            return WARM
    return COLD


def _last_record(entry="play_batch", state=COLD):
    try:
        doc = json.loads(_record_path(entry, state).read_text(encoding="utf-8"))
        if float(doc["seconds"]) > 0:
            return doc
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _sibling_record(entry):
    """The cold figure of another entry point of the same kernel measured here (the largest), with
    its name: the best measured guess for a cold entry never compiled cold on this machine."""
    from simulator.kernel_common import cache_root

    module, attr = _split(entry)
    stem = RECORD_FILE.removesuffix(".json")
    best = None
    for path in Path(cache_root()).glob(f"{stem}-{module.replace('.', '-')}-*-{COLD}.json"):
        other = path.name[len(f"{stem}-{module.replace('.', '-')}-"):-len(f"-{COLD}.json")]
        if other == attr:
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if float(doc["seconds"]) > 0 and (best is None or doc["seconds"] > best["seconds"]):
                best = {**doc, "entry": other}
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return best


def expected_compile_seconds(entry="play_batch", state=COLD):
    """Seconds a compile of ``entry`` in ``state`` takes: the last one measured on this machine in
    that state (for a cold compile, else another entry point's cold one), else the default (``None``
    for a warm compile never measured: no figure is made up)."""
    doc = _last_record(entry, state) or (_sibling_record(entry) if state == COLD else None)
    if doc:
        return float(doc["seconds"])
    return float(DEFAULT_COMPILE_SECONDS) if state == COLD else None


def _load():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def record_compile(seconds, entry="play_batch", cpu_seconds=None, state=COLD):
    """Keep the measured compile time of ``entry`` in ``state`` (wall, CPU and the load it ran at)
    for the next notice (best effort)."""
    try:
        path = _record_path(entry, state)
        path.parent.mkdir(parents=True, exist_ok=True)
        # three decimals: a compile shorter than a tenth of a second is still a measured figure
        # (rounded to 0.0 it would read as never measured)
        doc = {"seconds": max(round(float(seconds), 3), 0.001), "when": time.time(), "load": _load(),
               "state": state}
        if cpu_seconds is not None:
            doc["cpu_seconds"] = round(float(cpu_seconds), 3)
        path.write_text(json.dumps(doc) + "\n")
    except OSError:
        pass


def compile_notice(seconds=None, entry="play_batch", what="the rules kernel", state=COLD):
    """The one line printed before a compile: the last time measured on this machine in the same
    state (cold or warm, :func:`compile_state`), with the load it ran at and the load now (a shared
    machine takes a multiple of a quiet one's time)."""
    sibling = None
    if seconds is not None:
        doc = {"seconds": seconds}
    else:
        doc = _last_record(entry, state)
        if doc is None and state == COLD:
            doc = sibling = _sibling_record(entry)
    now = _load()
    now_text = f"; load now {now:.1f}" if now is not None else ""
    rest = " (after another entry point of it compiled in this process)" if state == WARM else ""
    if doc is None:
        if state == WARM:
            return f"compiling {what}, first run only{rest}: not measured on this machine yet{now_text}"
        return (f"compiling {what}, first run only: about {_round(DEFAULT_COMPILE_SECONDS)} s on a quiet "
                f"2-core machine (not measured on this one yet{now_text})")
    at = f" at load {doc['load']:.1f}" if doc.get("load") is not None else ""
    which = f" for {sibling['entry']}" if sibling else ""
    return (f"compiling {what}, first run only{rest}: about {_round(float(doc['seconds']))} s "
            f"(last measured here{which}{at}{now_text})")


@contextlib.contextmanager
def _ticking(echo, what):
    """While the body runs: the seconds elapsed, on a terminal one updating line every second,
    elsewhere a line every :data:`TICK_SECONDS` (never silent longer)."""
    tty = sys.stderr.isatty()

    def say(elapsed):
        if tty:
            sys.stderr.write(f"\r  compiling {what}: {elapsed:.0f} s elapsed")
            sys.stderr.flush()
        else:
            echo(f"  still compiling {what}: {elapsed:.0f} s elapsed")

    try:
        with heartbeat(1.0 if tty else TICK_SECONDS, say, name="compile-progress"):
            yield
    finally:
        if tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


@contextlib.contextmanager
def compile_watch(entry="play_batch", what="the rules kernel", echo=None):
    """Around the first call of ``entry``: when it is not compiled yet, print the notice, show the
    seconds elapsed while it compiles (:func:`_ticking`) and record the time taken in its state.
    Does nothing when the kernel is cached (or cannot tell)."""
    import numba

    if numba.config.DISABLE_JIT or kernel_cached(entry) is not False:
        yield
        return
    echo = echo or (lambda m: print(m, file=sys.stderr, flush=True))
    state = compile_state(entry)
    echo(compile_notice(entry=entry, what=what, state=state))
    t0, c0 = time.perf_counter(), time.process_time()
    with _ticking(echo, what):
        yield
    seconds = time.perf_counter() - t0
    record_compile(seconds, entry, cpu_seconds=time.process_time() - c0, state=state)
    echo(f"compiled {what} in {seconds:.0f} s (cached for the next runs)")


@contextlib.contextmanager
def watch_compiles(key, what, echo=None):
    """Around code that may compile kernel functions without naming an entry point (a scenario's
    data: Shuffle and Swing's leaf fit plays games to fit the leaf a search player reads): when
    numba starts the first compile, the notice (the figure last measured here for ``key``, a
    ``module:name`` of the kernel, in its state), the seconds elapsed while it compiles, then the
    time taken, recorded under ``key``. Says nothing when nothing compiles."""
    from numba.core import event

    echo = echo or (lambda m: print(m, file=sys.stderr, flush=True))
    seen = {}
    ticking = contextlib.ExitStack()

    class FirstCompile(event.Listener):
        def on_start(self, ev):
            if not seen:
                seen["state"] = compile_state(key)
                echo(compile_notice(entry=key, what=what, state=seen["state"]))
                seen["t0"], seen["c0"] = time.perf_counter(), time.process_time()
                ticking.enter_context(_ticking(echo, what))

        def on_end(self, ev):
            pass

    with ticking, event.install_listener("numba:compile", FirstCompile()):
        yield
    if seen:
        seconds = time.perf_counter() - seen["t0"]
        record_compile(seconds, key, cpu_seconds=time.process_time() - seen["c0"], state=seen["state"])
        echo(f"compiled {what} in {seconds:.0f} s (cached for the next runs)")


def _round(s):
    return int(round(s / 10.0) * 10) if s >= 30 else max(1, int(round(s)))


def compile_once(play, announce=None, entry="play_batch", what="the rules kernel"):
    """Make sure ``entry`` is compiled and cached: when it is not, ``announce(compile_notice())``,
    call ``play()`` (which plays a game through ``entry``, compiling it) while saying the seconds
    elapsed (:func:`_ticking`), say how long it took and record it. Returns the seconds spent
    compiling (0.0 when the kernel was cached already, or runs interpreted). When the cache cannot
    be inspected, ``play()`` runs without a notice. ``entry`` may be several entry points ``play()``
    goes through: it compiles when any of them is not cached (the first such one names the figure)."""
    import numba

    if numba.config.DISABLE_JIT:
        return 0.0
    entries = (entry,) if isinstance(entry, str) else tuple(entry)
    seen = [kernel_cached(e) for e in entries]
    if all(seen):
        return 0.0
    if None in seen:
        play()
        return 0.0
    entry = entries[seen.index(False)]  # the first one to compile names the figure
    state = compile_state(entry)
    if announce is not None:
        announce(compile_notice(entry=entry, what=what, state=state))
    t0, c0 = time.perf_counter(), time.process_time()
    with _ticking(announce or (lambda m: None), what) if announce is not None else contextlib.nullcontext():
        play()
    seconds = time.perf_counter() - t0
    record_compile(seconds, entry, cpu_seconds=time.process_time() - c0, state=state)
    if announce is not None:
        announce(f"compiled {what} in {seconds:.0f} s (cached for the next runs)")
    return seconds


def entries_of(module):
    """``module:name`` of every compiled kernel function defined in ``module`` (a run's record has
    entry points of its own beside the game's ``kernel_entry``: Shuffle and Swing's lead record)."""
    import importlib

    mod = importlib.import_module(module)
    return tuple(f"{module}:{name}" for name, obj in vars(mod).items()
                 if getattr(obj, "_cache", None) is not None and getattr(obj, "py_func", None) is not None
                 and getattr(obj.py_func, "__module__", None) == module)


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
