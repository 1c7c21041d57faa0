"""The registry of the games the lab can play (after OpenSpiel's game registry).

Each game declares itself once, in its own package: ``simulator/<game>/game.py`` holds
``GAME = Game(...)`` (the protocol: :mod:`simulator.game_api`). :data:`GAME_MODULES` lists those
modules, imported on the first look-up, so importing the registry loads no game. A game that is not
shipped (a test's toy game) is added with :func:`register`.
"""

from __future__ import annotations

import importlib

from simulator.errors import DataError

DEFAULT_GAME = "shuffle-swing"

# The shipped games: one line per game.
GAME_MODULES = (
    "simulator.shuffle_swing.game",
    "simulator.echidna.game",
)

_GAMES: dict = {}
_LOADED = []


def _load():
    """Import the shipped games' modules (once) and register each module's ``GAME``."""
    if _LOADED:
        return
    _LOADED.append(True)
    for module in GAME_MODULES:
        _add(importlib.import_module(module).GAME)


def _add(game):
    for key in (game.name, *game.aliases):
        if key in _GAMES:
            raise ValueError(f"game name '{key}' is taken")
    for key in (game.name, *game.aliases):
        _GAMES[key] = game
    return game


def register(game):
    """Add a game to the registry (its name and aliases must be new); returns it."""
    _load()
    return _add(game)


def get(name=None, file="game", key="game"):
    """A game by name (``None``: the default); an unknown name is a DataError naming the choices."""
    _load()
    if name is None:
        name = DEFAULT_GAME
    game = _GAMES.get(str(name).strip().lower())
    if game is None:
        raise DataError(file, key, f"unknown game '{name}'; known: {', '.join(names())}")
    return game


def names():
    """The registered games' names, sorted."""
    _load()
    return sorted({g.name for g in _GAMES.values()})
