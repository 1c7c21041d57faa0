"""Each game's own part of the command line, in a module named for the game (after OpenSpiel's
``pybind11/games_<game>.h``): ``ssb/games/<name>`` as the game's registry entry names it
(``Game.commands``). The shared commands never ask which game they serve; they ask the game's module.

A game's command module may offer, each optional:

* ``COMMANDS``: click commands of its own, added to ``ssb`` (Shuffle and Swing: ``instruments``,
  ``bench``);
* ``OPTIONS``: ``{command: (option decorators...)}``, the options only this game reads of the shared
  commands ``play``, ``check`` and ``meta`` (each game declares them in ``Game.cli_options`` too,
  so another game refuses them naming this one);
* ``play_setup(game, players, options)``: the setup ``ssb play`` plays from the game's options;
* ``check_settings(game, options)``: what ``ssb check`` soaks, ``[(label, setup(players), replay
  arguments)]``;
* ``strategy_matrix(library, names)``: a lineup's rows, the strategy names checked as the game's
  library checks them; ``play_entry(game, strat)``: the compiled entry ``ssb play`` runs;
* ``strategy_columns(strategy)`` / ``strategy_lines(strategy)``: what ``ssb strategies list`` and
  ``show`` print of a profile beyond its name, kind, description, file and weights.

A game without a module (or without a hook) gets the behaviour of a game of boards and variants
(:mod:`ssb.game_cmd`).
"""

from __future__ import annotations

import importlib

from simulator import games as registry

PACKAGE = "ssb.games"


def module_of(game):
    """The command module of a registered game (a :class:`simulator.game_api.Game` or its name), or None."""
    g = registry.get(game) if isinstance(game, str) else game
    name = getattr(g, "commands", "")
    return importlib.import_module(f"{PACKAGE}.{name}") if name else None


def hook(game, name, default=None):
    """The game's ``name`` hook (see the module doc), else ``default``."""
    return getattr(module_of(game), name, default)


def modules():
    """The command modules of every registered game, each once, in the registry's order."""
    out = []
    for n in registry.names():
        m = module_of(registry.get(n))
        if m is not None and m not in out:
            out.append(m)
    return out


def commands():
    """Every game's own top-level commands (``COMMANDS``)."""
    return [c for m in modules() for c in getattr(m, "COMMANDS", ())]


def options(command):
    """A decorator adding every registered game's own options of the shared ``command`` (``OPTIONS``)."""

    def decorate(f):
        for m in reversed(modules()):
            for option in reversed(getattr(m, "OPTIONS", {}).get(command, ())):
                f = option(f)
        return f

    return decorate


__all__ = ["commands", "hook", "module_of", "modules", "options"]
