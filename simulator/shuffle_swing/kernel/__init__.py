"""The numba rules kernel of Shuffle and Swing.

Numba's on-disk cache keys each compiled function by its own source file only: a function whose
callee lives in another file (every engine function calls into rules and policy) would be loaded
from the cache with the callee's old code after the callee changed. So, unless ``NUMBA_CACHE_DIR``
is set explicitly, the cache lives in a folder named after a hash of every kernel source file,
``simulator/shuffle_swing/layout.py`` and the shared ``simulator/kernel_common.py``
(``kernel_sources``): any change to the kernel starts a fresh cache, and an old one is never read.
"""

from pathlib import Path

from simulator.kernel_common import cache_dir, sources_hash

_HERE = Path(__file__).resolve().parent


def kernel_sources():
    """The files whose content decides the compiled kernel."""
    return sorted(_HERE.glob("*.py")) + [_HERE.parent / "layout.py", _HERE.parent.parent / "kernel_common.py"]


def kernel_hash():
    """SHA-256 over the kernel's source files (name and content)."""
    return sources_hash(kernel_sources())


CACHE = cache_dir("", kernel_sources())
