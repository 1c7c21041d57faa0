"""Echidna Shuffle strategies as data: ``simulator/echidna/data/strategies/*.toml``.

A profile names a kind (``random``, ``greedy``, ``lookahead``), an optional ``depth`` (lookahead:
steps planned ahead, 0 for the rest of the turn) and weights (``simulator.echidna.layout.WEIGHT_NAMES``;
unspecified weights take the ``greedy`` profile's values). They live in their own folder, which the
Shuffle and Swing library (``strategies/library.py``, a non-recursive glob of ``profiles/*.toml``)
never reads.
"""

import functools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from simulator.echidna.layout import (
    KIND_NAMES,
    KIND_RANDOM,
    LEAF_F,
    LEAF_FEATURES,
    LEAF_SIZE,
    MAX_PLAYERS,
    P_DEPTH,
    P_KIND,
    P_LEAF,
    P_WEIGHTS,
    STRAT_SIZE,
    WEIGHT_NAMES,
)
from simulator.errors import DataError
from simulator.profiles import ProfileLibrary, check_weight, read_profile_head, weight_table
from simulator.validate import Checker, read_toml

PROFILE_DIR = Path(__file__).resolve().parent / "data" / "strategies"
SETUP_VALUE = Path(__file__).resolve().parent / "data" / "setup_value.toml"


def setup_value_block(path=SETUP_VALUE):
    """The set-up value's coefficients as the row block from ``P_LEAF`` on: per player count 2..6,
    the ``LEAF_FEATURES`` coefficients, then one per seat position after the seat to move. Read from
    ``simulator/echidna/data/setup_value.toml`` (written by ``python -m simulator.echidna.value_fit``);
    errors name the file and the key."""
    return setup_value(path)[0]


@functools.lru_cache(maxsize=4)
def setup_value(path=SETUP_VALUE):
    """``(block, rounds)``: ``setup_value_block`` and the last round the value was fitted at."""
    path = Path(path)
    raw = read_toml(path)
    ck = Checker(path)
    ck.table(raw, "", required=("fit", "players"))
    fit = ck.table(raw["fit"], "fit", required=("features",), optional=("seed", "games", "play", "boards", "rounds",
                                                                         "first_round", "command"))
    names = ck.str_list(fit["features"], "fit.features", what="features")
    rounds = ck.integer(fit.get("rounds", 0), "fit.rounds", 0, 1000)
    if tuple(names) != LEAF_FEATURES:
        ck.fail("fit.features", f"the features are {', '.join(names)}; the kernel reads {', '.join(LEAF_FEATURES)}: "
                                "fit again (python -m simulator.echidna.value_fit)")
    block = np.zeros((MAX_PLAYERS - 1) * LEAF_SIZE, dtype=np.float64)
    players = ck.table(raw["players"], "players", required=tuple(str(n) for n in range(2, MAX_PLAYERS + 1)))
    for n in range(2, MAX_PLAYERS + 1):
        key = f"players.{n}"
        t = ck.table(players[str(n)], key, required=("coefficients", "seat"))
        coef = ck.array(t["coefficients"], f"{key}.coefficients", LEAF_F, LEAF_F, "coefficients")
        seat = ck.array(t["seat"], f"{key}.seat", n - 1, n - 1, "seat positions")
        base = (n - 2) * LEAF_SIZE
        for i, v in enumerate(list(coef) + list(seat)):
            where = f"{key}.coefficients[{i}]" if i < LEAF_F else f"{key}.seat[{i - LEAF_F}]"
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                ck.fail(where, f"expected a finite number, got {v!r}")
            block[base + i] = float(v)
    block.setflags(write=False)
    return block, rounds


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
        if self.weights.get("setup_leaf", 0.0) > 0:
            block, rounds = setup_value()
            if self.weights.get("setup_horizon", 0.0) > rounds:
                raise DataError(self.path or "strategy", "weights.setup_horizon",
                                f"{self.weights['setup_horizon']:g} rounds, but the set-up value ({SETUP_VALUE.name}) is "
                                f"fitted on the states of rounds 0..{rounds}: fit it further (python -m "
                                f"simulator.echidna.value_fit --rounds N) or shorten the horizon")
            r[P_LEAF : P_LEAF + len(block)] = block
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


# =========================================================================== the skill ladder

# The ladder, weakest first, and strategies placed where they fall (not rungs).
# setup-lean: the third judge; setup-search (the same search judged by greedy games, x130 its cost) is
# the reference it is held to, not a rung (docs/guide/skill-ladder.md).
RUNGS = ("random", "plain-setup", "greedy", "lookahead", "setup-lean")
PLACED = ("saboteur", "lookahead-near")  # lookahead-near: not shown above lookahead on both boards
AGAINST = ("lookahead",)  # besides greedy


def default_rungs(lib):
    names = {n.lower() for n in lib.names()}
    return tuple(r for r in RUNGS if r in names)


def parse_rung(spec, lib):
    """A rung of the ladder: ``name[@weight=value...][@depth=k]`` (weights of
    ``simulator.echidna.layout.WEIGHT_NAMES``)."""
    name, *assigns = str(spec).split("@")
    s = lib.get(name)
    weights, depth = dict(s.weights), s.depth
    for a in assigns:
        key, eq, value = a.partition("=")
        if not eq or (key != "depth" and key not in WEIGHT_NAMES):
            raise DataError("rung", spec, f"expected NAME@param=value with depth or a weight of {', '.join(WEIGHT_NAMES)}")
        try:
            v = int(value) if key == "depth" else float(value)
        except ValueError:
            raise DataError("rung", spec, f"'{value}' is not a {'whole ' if key == 'depth' else ''}number") from None
        if key == "depth":
            if not 0 <= v <= 20:
                raise DataError("rung", spec, f"depth {v} is outside 0..20")
            depth = v
        else:
            weights[key] = check_weight(v, "rung", spec)
    return replace(s, weights=weights, depth=depth)
