"""The numba rules kernel.

Numba's on-disk cache keys each compiled function by its own source file only: a function whose
callee lives in another file (every engine function calls into rules and policy) would be loaded
from the cache with the callee's old code after the callee changed. So, unless ``NUMBA_CACHE_DIR``
is set explicitly, the cache lives in a folder named after a hash of every kernel source file and
``simulator/layout.py``: any change to the kernel starts a fresh cache, and an old one is never read.
"""

import hashlib
import os
from pathlib import Path

import numba

_HERE = Path(__file__).resolve().parent


def kernel_sources():
    """The files whose content decides the compiled kernel."""
    return sorted(_HERE.glob("*.py")) + [_HERE.parent / "layout.py"]


def kernel_hash():
    """SHA-256 over the kernel's source files (name and content)."""
    h = hashlib.sha256()
    for path in kernel_sources():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_dir():
    """Where the compiled kernel is cached: ``$NUMBA_CACHE_DIR`` if set, else a per-hash folder."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return explicit
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return str(base / "shuffle-swing-balance" / "numba" / kernel_hash()[:16])


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = cache_dir()
