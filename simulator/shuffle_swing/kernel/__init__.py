"""The numba rules kernel.

Numba's on-disk cache keys each compiled function by its own source file only: a function whose
callee lives in another file (every engine function calls into rules and policy) would be loaded
from the cache with the callee's old code after the callee changed. So, unless ``NUMBA_CACHE_DIR``
is set explicitly, the cache lives in a folder named after a hash of every kernel source file and
``simulator/shuffle_swing/layout.py``: any change to the kernel starts a fresh cache, and an old one is never read.
"""

import hashlib
import os
from pathlib import Path

import numba

_HERE = Path(__file__).resolve().parent


def kernel_sources():
    """The files whose content decides the compiled kernel."""
    return sorted(_HERE.glob("*.py")) + [_HERE.parent / "layout.py"]


def sources_hash(paths):
    """SHA-256 over source files (name and content), in the order given."""
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def kernel_hash():
    """SHA-256 over the kernel's source files (name and content)."""
    return sources_hash(kernel_sources())


def cache_dir(name="", sources=None):
    """Where a compiled kernel is cached: ``$NUMBA_CACHE_DIR`` if set, else a folder named after the
    hash of its sources (this kernel's unless ``sources`` are given; ``name`` prefixes the folder of
    another game's kernel)."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return explicit
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = sources_hash(kernel_sources() if sources is None else sources)[:16]
    return str(base / "shuffle-swing-balance" / "numba" / (f"{name}-{digest}" if name else digest))


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = cache_dir()
