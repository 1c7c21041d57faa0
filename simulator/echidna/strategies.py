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
from strategies.library import ProfileLibrary, read_profile_head, weight_table

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
    raw, ck, head, name, kind, description = read_profile_head(path, KIND_NAMES, tables=("weights",), keys=("depth",))
    depth = ck.integer(head.get("depth", 0), "strategy.depth", lo=0, hi=20)
    weights = weight_table(raw.get("weights", {}), "weights", dict(base_weights or {}), ck, path, WEIGHT_NAMES)
    if kind != KIND_NAMES[KIND_RANDOM] and not weights:
        raise DataError(path, "weights", "a non-random strategy needs weights")
    return EchidnaStrategy(name, kind, description, weights, depth, str(path))


class EchidnaStrategyLibrary(ProfileLibrary):
    """The packaged Echidna Shuffle profiles plus every ``*.toml`` in ``extra_dirs``."""

    profile_dir = PROFILE_DIR
    load = staticmethod(load_strategy)

    def get(self, name):
        s = self._by_name.get(str(name).lower())
        if s is None:
            raise DataError("strategy", name, f"unknown Echidna Shuffle strategy; known: {', '.join(sorted(self._by_name))}")
        return s
