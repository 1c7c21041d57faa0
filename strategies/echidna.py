"""Echidna Shuffle strategies as data: ``strategies/profiles/echidna/*.toml``.

A profile names a kind (``random``, ``greedy``, ``lookahead``), an optional ``depth`` (lookahead:
steps planned ahead, 0 for the rest of the turn) and weights (``simulator.echidna.layout.WEIGHT_NAMES``;
unspecified weights take the ``greedy`` profile's values). They live in their own folder, which the
Shuffle and Swing library (``strategies/library.py``, a non-recursive glob of ``profiles/*.toml``)
never reads.
"""

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.echidna.layout import KIND_NAMES, KIND_RANDOM, P_DEPTH, P_KIND, P_WEIGHTS, STRAT_SIZE, WEIGHT_NAMES
from simulator.errors import DataError
from simulator.instruments import Checker, read_toml
from strategies.library import check_weight, read_profiles

PROFILE_DIR = Path(__file__).resolve().parent / "profiles" / "echidna"


@dataclass(frozen=True)
class EchidnaStrategy:
    name: str
    kind: str
    description: str
    weights: dict = field(default_factory=dict)
    depth: int = 0
    path: str = ""

    def row(self):
        """The float row the kernel reads (``simulator.echidna.layout`` P_* and W_* offsets)."""
        r = np.zeros(STRAT_SIZE, dtype=np.float64)
        r[P_KIND] = KIND_NAMES.index(self.kind)
        r[P_DEPTH] = self.depth
        for i, name in enumerate(WEIGHT_NAMES):
            r[P_WEIGHTS + i] = self.weights.get(name, 0.0)
        return r


def load_strategy(path, base_weights=None):
    """Read and validate one profile; errors name the file and the key."""
    path = Path(path)
    raw = read_toml(path)
    ck = Checker(path)
    ck.table(raw, "", required=("strategy",), optional=("weights",))
    head = ck.table(raw["strategy"], "strategy", required=("name", "kind"), optional=("description", "depth"))
    name = ck.name(head["name"], "strategy.name")
    kind = ck.string(head["kind"], "strategy.kind", choices=KIND_NAMES)
    description = head.get("description", "")
    if not isinstance(description, str):
        raise DataError(path, "strategy.description", "expected a string")
    depth = ck.integer(head.get("depth", 0), "strategy.depth", lo=0, hi=20)
    weights = dict(base_weights or {})
    table = raw.get("weights", {})
    ck.table(table, "weights", optional=WEIGHT_NAMES)
    for key, value in table.items():
        weights[key] = check_weight(value, path, f"weights.{key}")
    if kind != KIND_NAMES[KIND_RANDOM] and not weights:
        raise DataError(path, "weights", "a non-random strategy needs weights")
    return EchidnaStrategy(name, kind, description, weights, depth, str(path))


class EchidnaStrategyLibrary:
    """The packaged Echidna Shuffle profiles plus every ``*.toml`` in ``extra_dirs``."""

    def __init__(self, extra_dirs=()):
        self._by_name = read_profiles(PROFILE_DIR, extra_dirs, load_strategy)

    def names(self):
        return [s.name for s in self._by_name.values()]

    def all(self):
        return list(self._by_name.values())

    def get(self, name):
        s = self._by_name.get(str(name).lower())
        if s is None:
            raise DataError("strategy", name, f"unknown Echidna Shuffle strategy; known: {', '.join(sorted(self._by_name))}")
        return s

    def matrix(self, names):
        """Rows for a lineup of strategy names, one per seat."""
        return np.array([self.get(n).row() for n in names], dtype=np.float64)
