"""Registering the toy third game (``tests/toy_ring``) for a test: in this process through the
registry, and in the run's worker processes through ``SSB_EXTRA_GAMES`` (with the tests folder on
their ``PYTHONPATH``). No shipped file names the toy game."""

import contextlib
import os
from pathlib import Path

from simulator import games as registry

TESTS = Path(__file__).resolve().parent
TOY = "ring-race"


@contextlib.contextmanager
def toy_registered():
    """The toy game registered while the block runs, removed afterwards."""
    from toy_ring.game import GAME

    saved = {k: os.environ.get(k) for k in (registry.EXTRA_GAMES_ENV, "PYTHONPATH")}
    os.environ[registry.EXTRA_GAMES_ENV] = "toy_ring.game"
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), saved["PYTHONPATH"]) if p)
    added = TOY not in registry.names()
    if added:
        registry.register(GAME, "toy_ring.game")
    try:
        yield GAME
    finally:
        if added:
            registry.unregister(TOY)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
