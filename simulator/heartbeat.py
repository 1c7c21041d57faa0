"""A line while a long step runs: :func:`heartbeat` calls ``say(elapsed)`` every ``every`` seconds
from a daemon thread until the body ends (the compile notices and ``ssb report``'s progress)."""

from __future__ import annotations

import contextlib
import threading
import time


@contextlib.contextmanager
def heartbeat(every, say, name="heartbeat"):
    """Call ``say(seconds elapsed)`` every ``every`` seconds while the body runs."""
    stop = threading.Event()
    t0 = time.perf_counter()

    def tick():
        while not stop.wait(every):
            say(time.perf_counter() - t0)

    watcher = threading.Thread(target=tick, name=name, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()
