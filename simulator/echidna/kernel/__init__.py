"""The Echidna Shuffle rules kernel: numba on plain arrays (``simulator.echidna.layout``).

The same conventions as ``simulator/shuffle_swing/kernel/``: every function is ``@kernel`` (compiled,
cached on disk, no division checks), per-turn code allocates nothing on the heap (the few work
arrays are made once per batch in ``play_batch``, or per game in ``play_game``, and passed down),
space sets are bit masks, and whatever follows from the board alone (the distances along arrows) was
worked out when ``geo`` was packed. The small pieces called per candidate, per step and per turn are
``kernel_inline`` (inlined by numba: a call costs more than their work). Strategies are float rows
read here, so a new strategy needs no recompilation.

The modules: ``core`` (decorators, the event log, distances), ``set_up`` (E1, E7), ``turn`` (E2-E6,
E8), ``invariants``, ``engine`` (whole games: ``play_game``, ``play_batch``). Numba's on-disk cache
keys a compiled function by its own file only, so the kernel's cache folder is named after a hash of
every file here, ``simulator/echidna/layout.py`` and the shared ``simulator/kernel_common.py``
(``kernel_sources``): a change to any of them starts a fresh cache.
"""

from pathlib import Path

from simulator.kernel_common import cache_dir, sources_hash

_HERE = Path(__file__).resolve().parent


def kernel_sources():
    """The files whose content decides this compiled kernel."""
    return sorted(_HERE.glob("*.py")) + [_HERE.parent / "layout.py", _HERE.parent.parent / "kernel_common.py"]


def kernel_hash():
    """SHA-256 over this kernel's source files (name and content)."""
    return sources_hash(kernel_sources())


CACHE = cache_dir("echidna", kernel_sources())
