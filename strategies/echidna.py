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

PROFILE_DIR = Path(__file__).resolve().parent / "profiles" / "echidna"
BASE_PROFILE = "greedy"


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
    name = ck.string(head["name"], "strategy.name")
    kind = ck.string(head["kind"], "strategy.kind", choices=KIND_NAMES)
    description = head.get("description", "")
    if not isinstance(description, str):
        raise DataError(path, "strategy.description", "expected a string")
    depth = ck.integer(head.get("depth", 0), "strategy.depth", lo=0, hi=20)
    weights = dict(base_weights or {})
    table = raw.get("weights", {})
    ck.table(table, "weights", optional=WEIGHT_NAMES)
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DataError(path, f"weights.{key}", f"expected a number, got {value!r}")
        weights[key] = float(value)
    if kind != KIND_NAMES[KIND_RANDOM] and not weights:
        raise DataError(path, "weights", "a non-random strategy needs weights")
    return EchidnaStrategy(name, kind, description, weights, depth, str(path))


class EchidnaStrategyLibrary:
    """The packaged Echidna Shuffle profiles plus every ``*.toml`` in ``extra_dirs``."""

    def __init__(self, extra_dirs=()):
        base = load_strategy(PROFILE_DIR / f"{BASE_PROFILE}.toml")
        self._by_name = {}
        files = sorted(PROFILE_DIR.glob("*.toml"))
        for d in extra_dirs:
            d = Path(d)
            if not d.is_dir():
                raise DataError(d, "", "strategy folder not found")
            files += sorted(d.glob("*.toml"))
        for f in files:
            s = load_strategy(f, base.weights)
            key = s.name.lower()
            if key in self._by_name:
                raise DataError(f, "strategy.name", f"'{s.name}' is already defined in {self._by_name[key].path}")
            self._by_name[key] = s

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
