"""The registry of the games the lab can play (after OpenSpiel's game registry).

Each game declares itself once, in its own package: ``simulator/<game>/game.py`` holds
``GAME = Game(...)`` (the protocol: :mod:`simulator.game_api`). :data:`GAME_MODULES` lists those
modules, imported on the first look-up, so importing the registry loads no game. A game that is not
shipped (a test's toy game) is added with :func:`register`, or for every process (the run's workers
too) by naming its module in the environment variable ``SSB_EXTRA_GAMES``.
"""

from __future__ import annotations

import importlib
import os

from simulator.errors import DataError

DEFAULT_GAME = "shuffle-swing"

# The shipped games: one line per game.
GAME_MODULES = (
    "simulator.shuffle_swing.game",
    "simulator.echidna.game",
)
# More game modules, comma-separated (a game that is not shipped, e.g. a test's): every process that
# looks a game up, the run's workers included, imports them too.
EXTRA_GAMES_ENV = "SSB_EXTRA_GAMES"

_GAMES: dict = {}
_MODULES: dict = {}  # game name -> the module that declares it (``GAME``)
_LOADED = []


def _load():
    """Import the shipped games' modules (once) and register each module's ``GAME``."""
    if _LOADED:
        return
    _LOADED.append(True)
    extra = [m.strip() for m in os.environ.get(EXTRA_GAMES_ENV, "").split(",") if m.strip()]
    for module in GAME_MODULES:
        _add(importlib.import_module(module).GAME, module)
    for module in extra:
        _add_extra(module)


def _add_extra(module):
    """Register the ``GAME`` of a module named in SSB_EXTRA_GAMES; a module that cannot be imported,
    has no ``GAME`` or takes a name already used is a DataError naming the variable and module."""
    where = f"{EXTRA_GAMES_ENV}={os.environ.get(EXTRA_GAMES_ENV, '')}"
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise DataError(where, module, f"cannot import the module ({exc}); name an importable module "
                        "that defines GAME, or unset the variable") from None
    except Exception as exc:  # the module's own code failed: name it rather than show its traceback
        raise DataError(where, module, f"importing the module failed: {type(exc).__name__}: {exc}") from None
    game = getattr(mod, "GAME", None)
    if game is None or not hasattr(game, "name") or not hasattr(game, "aliases"):
        raise DataError(where, module, "the module defines no GAME (a simulator.game_api game declaration)")
    try:
        _add(game, module)
    except ValueError as exc:
        raise DataError(where, module, f"{exc}: a game of the lab already has it; rename the game") from None


def _add(game, module=None):
    for key in (game.name, *game.aliases):
        if key in _GAMES:
            raise ValueError(f"game name '{key}' is taken")
    for key in (game.name, *game.aliases):
        _GAMES[key] = game
    if module:
        _MODULES[game.name] = module
    return game


def register(game, module=None):
    """Add a game to the registry (its name and aliases must be new); returns it. ``module``: the
    module whose ``GAME`` it is, which a worker process that does not know the game imports
    (:func:`module_of`, :func:`ensure`)."""
    _load()
    return _add(game, module)


def module_of(name):
    """The module that declares a registered game (``None``: registered without one)."""
    return _MODULES.get(get(name).name)


def ensure(name, module=None):
    """The game ``name``; in a process that does not know it yet (a worker), imported from ``module``."""
    _load()
    if module and str(name).strip().lower() not in _GAMES:
        _add(importlib.import_module(module).GAME, module)
    return get(name)


def unregister(name):
    """Remove a game that :func:`register` added (its name and aliases); a shipped game stays."""
    game = get(name)
    for key in (game.name, *game.aliases):
        _GAMES.pop(key, None)
    _MODULES.pop(game.name, None)


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
