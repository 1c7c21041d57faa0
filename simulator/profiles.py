"""What every game's strategy profiles share: the profile file's ``[strategy]`` head, weight tables,
reading a folder of profiles (the packaged ones plus a user's ``--strategy-dir``) and the library
base class. A game's own loader (``simulator/<game>/strategies.py``) reads the rest of its profiles.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.validate import Checker, read_toml

BASE_PROFILE = "greedy"  # every profile's weights start from the base profile's
MAX_WEIGHT = 1e6  # |weight|: the greedy sums weighted figures in float64; inf or nan would poison them
STRATEGY_ARG = "strategy name"  # what errors name when a strategy name given by the user is wrong


def check_weight(value, file, key):
    """A finite number of at most ``MAX_WEIGHT`` in size, as a float; DataError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(file, key, f"expected a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise DataError(file, key, f"{value!r} is not a finite number")
    if abs(v) > MAX_WEIGHT:
        raise DataError(file, key, f"{value!r} is outside -{MAX_WEIGHT:g} .. {MAX_WEIGHT:g}")
    return v


def read_profile_head(path, kinds, tables=(), keys=()):
    """``(raw, checker, head, name, kind, description)`` of one profile file: its ``[strategy]``
    table with the name, the kind (one of ``kinds``) and the description checked. ``tables`` are the
    other top-level tables and ``keys`` the other ``[strategy]`` keys the game allows. Shared by the
    games' profile loaders."""
    raw = read_toml(path)
    ck = Checker(path)
    ck.table(raw, "", required=("strategy",), optional=tables)
    head = ck.table(raw["strategy"], "strategy", required=("name", "kind"), optional=("description", *keys))
    name = ck.name(head["name"], "strategy.name")
    kind = ck.string(head["kind"], "strategy.kind", choices=kinds)
    description = head.get("description", "")
    if not isinstance(description, str):
        raise DataError(path, "strategy.description", "expected a string")
    return raw, ck, head, name, kind, description


def weight_table(table, where, weights, ck, path, names):
    """``weights`` updated from one ``[weights]``-style table of the profile (keys among ``names``,
    the game's weight names). Shared by the games' profile loaders."""
    ck.table(table, where, optional=names)
    for key, value in table.items():
        weights[key] = check_weight(value, path, f"{where}.{key}")
    return weights


def read_profiles(profile_dir, extra_dirs, load):
    """``{lower-case name: strategy}`` of every ``*.toml`` in ``profile_dir`` then in ``extra_dirs``,
    each read by ``load(path, base_weights)`` with the weights of ``profile_dir``'s base profile;
    a missing folder or a name defined twice (in any case) is a DataError. Shared by the games'
    strategy libraries."""
    base = load(Path(profile_dir) / f"{BASE_PROFILE}.toml", None)
    files = sorted(Path(profile_dir).glob("*.toml"))
    for d in extra_dirs:
        d = Path(d)
        if not d.is_dir():
            raise DataError(d, "", "strategy folder not found")
        files += sorted(d.glob("*.toml"))
    by_name = {}
    for f in files:
        s = load(f, base.weights)
        key = s.name.lower()
        if key in by_name:
            raise DataError(f, "strategy.name", f"'{s.name}' is already defined in {by_name[key].path}")
        by_name[key] = s
    return by_name


class ProfileLibrary:
    """A game's packaged profiles (``profile_dir``) plus every ``*.toml`` in ``extra_dirs``, each read
    by ``load``; a game's library names those two and its own ``get``. Shared by the games."""

    profile_dir = None  # a game's library sets both
    load = None

    def __init__(self, extra_dirs=()):
        self._by_name = read_profiles(self.profile_dir, extra_dirs, self.load)

    def names(self):
        return [s.name for s in self._by_name.values()]

    def all(self):
        return list(self._by_name.values())

    def matrix(self, names, *args, **kwargs):
        """Rows for a lineup of strategy names, one per seat (the rest goes to ``get``)."""
        return np.array([self.get(n, *args, **kwargs).row() for n in names], dtype=np.float64)
