"""Named strategies as data: a TOML profile per strategy, turned into one float row for the kernel.

A profile names a policy kind (``simulator.shuffle_swing.layout.KIND_NAMES``), optional flags (``focus``: the
department or instrument a specialist favours; the parameters of ``simulator.shuffle_swing.layout.PARAMS`` such as
``budget``, ``horizon`` or ``temperature``) and the weights of the greedy evaluation
(``simulator.shuffle_swing.layout.WEIGHT_NAMES``; unspecified weights take the ``greedy`` profile's values). A
``[weights_late]`` table gives a second row for the late game: the kernel then interpolates from
``[weights]`` to it by game progress (unspecified late weights take the early row's values). A
designer adds a strategy by dropping a file in a folder. A ``[provenance]`` table (written by
``strategies.tune``) records how a tuned profile was found; the loader does not read it.
"""

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.validate import Checker, read_toml
from simulator.shuffle_swing.layout import (
    DEPT_NAMES,
    KIND_NAMES,
    KIND_RANDOM,
    P_FOCUS,
    P_KIND,
    P_PHASE,
    P_WEIGHTS,
    P_WEIGHTS_EARLY,
    P_WEIGHTS_LATE,
    PARAMS,
    STRAT_SIZE,
    WEIGHT_NAMES,
)

PROFILE_DIR = Path(__file__).resolve().parent / "profiles"
BASE_PROFILE = "greedy"
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


@dataclass(frozen=True)
class Strategy:
    """One named strategy: its kind, flags and complete weight table."""

    name: str
    kind: str
    description: str
    weights: dict = field(default_factory=dict)
    focus: int = -1
    params: dict = field(default_factory=dict)
    path: str = ""
    late_weights: dict | None = None
    # ``weights_from = "NAME"``: the weight rows come from profile NAME, with this file's own
    # ``[weights]`` / ``[weights_late]`` entries (kept here) on top; resolved by ``resolve_weights_from``.
    weights_from: str = ""
    own_weights: dict | None = None
    own_late: dict | None = None

    @property
    def budget(self):
        """Rollouts of a search kind (0 when the profile sets none)."""
        return self.param("budget")

    def param(self, name):
        """A parameter of ``simulator.shuffle_swing.layout.PARAMS``: the profile's value or the default."""
        return self.params.get(name, PARAMS[name][3])

    def row(self):
        """The float row the kernel reads (``simulator.shuffle_swing.layout`` P_* offsets)."""
        r = np.zeros(STRAT_SIZE, dtype=np.float64)
        r[P_KIND] = KIND_NAMES.index(self.kind)
        r[P_FOCUS] = self.focus
        for name, (offset, _lo, _hi, _default, _integer) in PARAMS.items():
            r[offset] = self.param(name)
        late = self.weights if self.late_weights is None else self.late_weights
        r[P_PHASE] = 0.0 if self.late_weights is None else 1.0
        for i, name in enumerate(WEIGHT_NAMES):
            r[P_WEIGHTS + i] = self.weights.get(name, 0.0)
            r[P_WEIGHTS_LATE + i] = late.get(name, 0.0)
            r[P_WEIGHTS_EARLY + i] = r[P_WEIGHTS + i]
        return r

    def with_focus(self, focus):
        """A copy favouring department ``focus`` (index or name)."""
        d = _focus_index(focus, self.path or self.name, "focus")
        return replace(self, weights=dict(self.weights), focus=d)


def _focus_index(value, file, key):
    if isinstance(value, int) and not isinstance(value, bool):
        if -1 <= value < len(DEPT_NAMES):
            return value
        raise DataError(file, key, f"department index {value} is not -1..{len(DEPT_NAMES) - 1}")
    if isinstance(value, str) and value.lower() in DEPT_NAMES:
        return DEPT_NAMES.index(value.lower())
    raise DataError(file, key, f"expected a department ({', '.join(DEPT_NAMES)}), got {value!r}")


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


def load_strategy(path, base_weights=None):
    """Read and validate one strategy profile; errors name the file and the key."""
    path = Path(path)
    raw, ck, head, name, kind, description = read_profile_head(
        path, KIND_NAMES, tables=("weights", "weights_late", "provenance"), keys=("focus", "weights_from", *PARAMS)
    )
    focus = _focus_index(head["focus"], path, "strategy.focus") if "focus" in head else -1
    params = {}
    for key, (_offset, lo, hi, _default, integer) in PARAMS.items():
        if key not in head:
            continue
        if integer:
            params[key] = ck.integer(head[key], f"strategy.{key}", lo=lo, hi=hi)
        else:
            params[key] = _number(head[key], path, f"strategy.{key}", lo, hi)
    weights = weight_table(raw.get("weights", {}), "weights", dict(base_weights or {}), ck, path)
    late = None
    if "weights_late" in raw:
        late = weight_table(raw["weights_late"], "weights_late", dict(weights), ck, path)
    source = ""
    own = own_late = None
    if "weights_from" in head:
        source = ck.name(head["weights_from"], "strategy.weights_from")
        own = weight_table(raw.get("weights", {}), "weights", {}, ck, path)
        if "weights_late" in raw:
            own_late = weight_table(raw["weights_late"], "weights_late", {}, ck, path)
    if kind != KIND_NAMES[KIND_RANDOM] and not weights and not source:
        raise DataError(path, "weights", "a non-random strategy needs weights")
    return Strategy(name, kind, description, weights, focus, params, str(path), late, source, own, own_late)


def resolve_weights_from(by_name):
    """Give every profile with ``weights_from = "NAME"`` the weight rows of profile NAME (itself
    resolved first), with its own ``[weights]`` entries on top of both rows and its own
    ``[weights_late]`` entries on top of the late row. So one file (``tuned``) holds the weights
    that every search profile rolls out with, and a retune reaches them all. An unknown name, a
    profile without weights (``random``) or a cycle is a DataError naming the file and the key."""
    done = {}

    def resolve(key, chain):
        s = by_name[key]
        if not s.weights_from or key in done:
            return done.get(key, s)
        src_key = s.weights_from.lower()
        where = "strategy.weights_from"
        if src_key not in by_name:
            raise DataError(s.path, where, f"unknown strategy '{s.weights_from}'; known: {', '.join(sorted(by_name))}")
        if src_key in chain:
            raise DataError(s.path, where, "a cycle: " + " -> ".join([*chain, src_key]))
        src = resolve(src_key, [*chain, src_key])
        if not src.weights:
            raise DataError(s.path, where, f"'{s.weights_from}' has no weights to take")
        weights = {**src.weights, **s.own_weights}
        late = None
        if s.own_late is not None:
            late = {**(src.late_weights or src.weights), **s.own_weights, **s.own_late}
        elif src.late_weights is not None:
            late = {**src.late_weights, **s.own_weights}
        done[key] = replace(s, weights=weights, late_weights=late)
        return done[key]

    return {key: resolve(key, [key]) for key in by_name}


def _number(value, path, key, lo, hi):
    """A real number within [lo, hi] (``inf`` allowed only where ``hi`` is infinite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(path, key, f"expected a number, got {value!r}")
    value = float(value)
    if value != value or not lo <= value <= hi:
        raise DataError(path, key, f"{value!r} is outside {lo}..{hi}")
    return value


def weight_table(table, where, weights, ck, path, names=WEIGHT_NAMES):
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

    profile_dir = PROFILE_DIR
    load = staticmethod(load_strategy)

    def __init__(self, extra_dirs=()):
        self._by_name = read_profiles(self.profile_dir, extra_dirs, self.load)

    def names(self):
        return [s.name for s in self._by_name.values()]

    def all(self):
        return list(self._by_name.values())

    def matrix(self, names, *args, **kwargs):
        """Rows for a lineup of strategy names, one per seat (the rest goes to ``get``)."""
        return np.array([self.get(n, *args, **kwargs).row() for n in names], dtype=np.float64)


class StrategyLibrary(ProfileLibrary):
    """The packaged profiles plus every ``*.toml`` in ``extra_dirs``; ``matrix(names, source)``
    passes ``source`` (what errors name) to ``get``. ``weights_from`` keys are resolved across
    all of them (a profile of ``extra_dirs`` may take the packaged ``tuned``'s weights)."""

    def __init__(self, extra_dirs=()):
        super().__init__(extra_dirs)
        self._by_name = resolve_weights_from(self._by_name)

    def get(self, name, source=STRATEGY_ARG):
        """A strategy by name; ``name:focus`` (e.g. ``specialist:orange``) sets the focus flag.

        A wrong name or focus raises DataError naming ``source`` (the argument or file that gave the
        name) and the name as written, never the profile file."""
        text = str(name).strip()
        base, sep, focus = text.partition(":")
        base, focus = base.strip(), focus.strip()
        s = self._by_name.get(base.lower())
        if s is None:
            raise DataError(source, text, f"unknown strategy '{base}'; known: {', '.join(sorted(self._by_name))}")
        if sep and not focus:
            raise DataError(source, text, f"no focus after ':' (give {base}:{'|'.join(DEPT_NAMES)})")
        if not focus:
            return s
        if focus.lower() not in DEPT_NAMES:
            raise DataError(
                source, text, f"focus '{focus}' is not a department; give {base}:{'|'.join(DEPT_NAMES)}"
            )
        return s.with_focus(focus)
