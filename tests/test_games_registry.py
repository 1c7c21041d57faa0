"""The game registry (``simulator.games``): entries written as module and attribute names resolve,
and importing the registry loads no kernel."""

import dataclasses
import importlib
import subprocess
import sys

from simulator import games as registry
from simulator.game_api import Lazy


def test_importing_the_registry_loads_no_kernel():
    code = (
        "import sys, simulator.games\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m.endswith(('kernel', 'playout'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_lazy_entry_names_a_function_that_exists():
    seen = 0
    for name in registry.names():
        game = registry.get(name)
        for f in dataclasses.fields(game):
            entry = getattr(game, f.name)
            if isinstance(entry, Lazy):
                target = getattr(importlib.import_module(entry.module), entry.attr, None)
                assert callable(target), f"{name}.{f.name}: {entry!r}"
                seen += 1
    assert seen >= 2 * 7  # play_batch, play_one, soak, narrate, document, kernel_sources, strategies


def test_a_lazy_entry_calls_through_with_the_arguments():
    game = registry.get("echidna")
    assert [p.name for p in game.kernel_sources()] == [p.name for p in importlib.import_module(
        "simulator.echidna.kernel").kernel_sources()]
    assert game.variants_from_dict({"catch_up": True}, "f.toml", "variants").catch_up
