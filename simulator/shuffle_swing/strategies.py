"""Named strategies as data: a TOML profile per strategy, turned into one float row for the kernel.

A profile names a policy kind (``simulator.shuffle_swing.layout.KIND_NAMES``), optional flags (``focus``: the
department or instrument a specialist favours; the parameters of ``simulator.shuffle_swing.layout.PARAMS`` such as
``budget``, ``horizon`` or ``temperature``; ``leaf_model``: a search's learned leaf, a file of
``data/leaf/``) and the weights of the greedy evaluation
(``simulator.shuffle_swing.layout.WEIGHT_NAMES``; unspecified weights take the ``greedy`` profile's values). A
``[weights_late]`` table gives a second row for the late game: the kernel then interpolates from
``[weights]`` to it by game progress (unspecified late weights take the early row's values). A
designer adds a strategy by dropping a file in a folder. A ``[provenance]`` table (written by
``strategies.tune``) records how a tuned profile was found; the loader does not read it.
"""

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.profiles import STRATEGY_ARG, ProfileLibrary, read_profile_head, weight_table
from simulator.validate import Checker, read_toml
from simulator.shuffle_swing.leaf_fit import LEAF_ON_SETTING
from simulator.shuffle_swing.layout import (
    DEPT_NAMES,
    KIND_NAMES,
    KIND_RANDOM,
    KIND_SEARCH,
    LEAF_COUNTS,
    LEAF_FEATURES,
    N_LEAF_FEAT,
    P_FOCUS,
    P_KIND,
    P_LEAF_COEF,
    P_LEAF_MODEL,
    P_PHASE,
    P_WEIGHTS,
    P_WEIGHTS_EARLY,
    P_WEIGHTS_LATE,
    PARAMS,
    STRAT_SIZE,
    WEIGHT_NAMES,
)

PROFILE_DIR = Path(__file__).resolve().parent / "data" / "strategies"
LEAF_DIR = Path(__file__).resolve().parent / "data" / "leaf"
# ``leaf_fit``: "file" (the default) plays the leaf file's coefficients everywhere; "setting" fits
# the leaf on the setting of every game played (``simulator.shuffle_swing.leaf_fit``).
LEAF_FITS = ("file", "setting")
MAX_LEAF_COEF = 1e4  # |coefficient| of a learned leaf: a fit gives numbers near 1, never this


def leaf_file(name):
    """The learned-leaf file a profile's ``leaf_model = "NAME"`` names."""
    return LEAF_DIR / f"{name}.toml"


def load_leaf_model(path):
    """The coefficients of one learned-leaf file: a tuple of ``N_LEAF_FEAT`` numbers per player
    count of ``layout.LEAF_COUNTS``, in that order (``[coefficients]`` keys ``players_2`` ...). The
    file's ``features`` must list ``layout.LEAF_FEATURES`` in order (a file fitted on other features
    is refused, not misread); its ``[provenance]`` (seed, games, fit) is not read here."""
    path = Path(path)
    raw = read_toml(path)
    ck = Checker(path)
    keys = tuple(f"players_{n}" for n in LEAF_COUNTS)
    ck.table(raw, "", required=("leaf", "coefficients"), optional=("provenance",))
    head = ck.table(raw["leaf"], "leaf", required=("features",), optional=("description",))
    feats = tuple(ck.str_list(head["features"], "leaf.features", unique=True))
    if feats != LEAF_FEATURES:
        raise DataError(path, "leaf.features", f"expected the kernel's features {', '.join(LEAF_FEATURES)}; "
                        "re-fit the file (python -m simulator.shuffle_swing.leaf_model fit)")
    table = ck.table(raw["coefficients"], "coefficients", required=keys)
    blocks = []
    for key in keys:
        values = ck.array(table[key], f"coefficients.{key}", N_LEAF_FEAT, N_LEAF_FEAT, what="numbers")
        blocks.append(tuple(_number(v, path, f"coefficients.{key}[{i}]", -MAX_LEAF_COEF, MAX_LEAF_COEF)
                            for i, v in enumerate(values)))
    return tuple(blocks)


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
    # ``leaf_model = "NAME"``: a search's leaf is the fitted model of ``data/leaf/NAME.toml``, its
    # coefficients one tuple per player count of ``layout.LEAF_COUNTS``.
    leaf_model: str = ""
    leaf_coef: tuple = ()
    # ``leaf_fit = "setting"``: the leaf is fitted on the setting of each game played, on demand
    # (``simulator.shuffle_swing.leaf_fit``); ``leaf_coef`` (the file's) is the starter set's fit.
    leaf_fit: str = ""

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
        if self.leaf_coef:
            r[P_LEAF_MODEL] = LEAF_ON_SETTING if self.leaf_fit == "setting" else 1.0
            for b, block in enumerate(self.leaf_coef):
                r[P_LEAF_COEF + b * N_LEAF_FEAT : P_LEAF_COEF + (b + 1) * N_LEAF_FEAT] = block
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


def load_strategy(path, base_weights=None):
    """Read and validate one strategy profile; errors name the file and the key."""
    path = Path(path)
    raw, ck, head, name, kind, description = read_profile_head(
        path, KIND_NAMES, tables=("weights", "weights_late", "provenance"), keys=("focus", "weights_from", "leaf_model", "leaf_fit", *PARAMS)
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
    weights = weight_table(raw.get("weights", {}), "weights", dict(base_weights or {}), ck, path, WEIGHT_NAMES)
    late = None
    if "weights_late" in raw:
        late = weight_table(raw["weights_late"], "weights_late", dict(weights), ck, path, WEIGHT_NAMES)
    source = ""
    own = own_late = None
    if "weights_from" in head:
        source = ck.name(head["weights_from"], "strategy.weights_from")
        own = weight_table(raw.get("weights", {}), "weights", {}, ck, path, WEIGHT_NAMES)
        if "weights_late" in raw:
            own_late = weight_table(raw["weights_late"], "weights_late", {}, ck, path, WEIGHT_NAMES)
    if kind != KIND_NAMES[KIND_RANDOM] and not weights and not source:
        raise DataError(path, "weights", "a non-random strategy needs weights")
    leaf_name, leaf_coef = "", ()
    if "leaf_model" in head:
        leaf_name = ck.name(head["leaf_model"], "strategy.leaf_model")
        if kind != KIND_NAMES[KIND_SEARCH]:
            raise DataError(path, "strategy.leaf_model", f"only a search strategy has a leaf; this one is {kind}")
        file = leaf_file(leaf_name)
        if not file.is_file():
            known = ", ".join(sorted(f.stem for f in LEAF_DIR.glob("*.toml"))) or "none"
            raise DataError(path, "strategy.leaf_model", f"no learned leaf '{leaf_name}' (known: {known})")
        leaf_coef = load_leaf_model(file)
    leaf_fit = ""
    if "leaf_fit" in head:
        leaf_fit = head["leaf_fit"]
        if leaf_fit not in LEAF_FITS:
            raise DataError(path, "strategy.leaf_fit", f"expected one of {', '.join(LEAF_FITS)}, got {leaf_fit!r}")
        if not leaf_name:
            raise DataError(path, "strategy.leaf_fit", "only a strategy with a learned leaf (leaf_model) has a leaf to fit")
        leaf_fit = "" if leaf_fit == "file" else leaf_fit
    return Strategy(name, kind, description, weights, focus, params, str(path), late, source, own, own_late,
                    leaf_name, leaf_coef, leaf_fit)


MAX_WEIGHTS_CHAIN = 32  # profiles a weights_from chain may pass through (the shipped ones use 1 or 2)


def resolve_weights_from(by_name):
    """Give every profile with ``weights_from = "NAME"`` the weight rows of profile NAME (itself
    resolved first), with its own ``[weights]`` entries on top of both rows and its own
    ``[weights_late]`` entries on top of the late row. So one file (``tuned``) holds the weights
    that every search profile rolls out with, and a retune reaches them all. An unknown name, a
    profile without weights (``random``) or a cycle is a DataError naming the file and the key."""
    done = {}

    def take(s, src):
        if not src.weights or src.kind == KIND_NAMES[KIND_RANDOM]:
            why = "plays at random and has no weights to take" if src.kind == KIND_NAMES[KIND_RANDOM] else "has no weights to take"
            raise DataError(s.path, "strategy.weights_from", f"'{s.weights_from}' {why}; name a weighted strategy (greedy, tuned, ...)")
        weights = {**src.weights, **s.own_weights}
        late = None
        if s.own_late is not None:
            late = {**(src.late_weights or src.weights), **s.own_weights, **s.own_late}
        elif src.late_weights is not None:
            late = {**src.late_weights, **s.own_weights}
        return replace(s, weights=weights, late_weights=late)

    def resolve(key):
        # Walk the chain without recursion (a long chain in the files must not exhaust the stack),
        # then resolve it from its far end back.
        chain = [key]
        while True:
            s = by_name[chain[-1]]
            if not s.weights_from or chain[-1] in done:
                break
            src_key = s.weights_from.lower()
            if src_key not in by_name:
                raise DataError(s.path, "strategy.weights_from",
                                f"unknown strategy '{s.weights_from}'; known: {', '.join(sorted(by_name))}")
            if src_key in chain:
                cycle = chain[chain.index(src_key):] + [src_key]
                shown = cycle if len(cycle) <= 12 else [*cycle[:5], "...", *cycle[-5:]]
                raise DataError(s.path, "strategy.weights_from", "a cycle: " + " -> ".join(shown))
            if len(chain) > MAX_WEIGHTS_CHAIN:
                raise DataError(by_name[key].path, "strategy.weights_from",
                                f"a chain of more than {MAX_WEIGHTS_CHAIN} weights_from links ({' -> '.join(chain[:4])} -> ...); "
                                "take the weights from a profile nearer the source")
            chain.append(src_key)
        for i in range(len(chain) - 2, -1, -1):
            k = chain[i]
            if k not in done:
                src = done.get(chain[i + 1], by_name[chain[i + 1]])
                done[k] = take(by_name[k], src)
        return done.get(key, by_name[key])

    return {key: resolve(key) for key in by_name}


def _number(value, path, key, lo, hi):
    """A real number within [lo, hi] (``inf`` allowed only where ``hi`` is infinite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(path, key, f"expected a number, got {value!r}")
    value = float(value)
    if value != value or not lo <= value <= hi:
        raise DataError(path, key, f"{value!r} is outside {lo}..{hi}")
    return value


class StrategyLibrary(ProfileLibrary):
    """The packaged profiles plus every ``*.toml`` in ``extra_dirs``; ``matrix(names, source)``
    passes ``source`` (what errors name) to ``get``. ``weights_from`` keys are resolved across
    all of them (a profile of ``extra_dirs`` may take the packaged ``tuned``'s weights)."""

    def __init__(self, extra_dirs=()):
        super().__init__(extra_dirs)
        self._by_name = resolve_weights_from(self._by_name)

    profile_dir = PROFILE_DIR
    load = staticmethod(load_strategy)

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


# =========================================================================== the skill ladder

# The shipped ladder, weakest first. Rungs whose strategy the library does not hold are left out.
# The top rung, ``search_leaf`` (at par with ``search_deep`` at a fifth of its cost: 8-turn rollouts
# ended by a learned leaf), costs a little more than ``search`` per game (the cost table says how
# much); ``--rungs`` without it gives a quicker ladder.
DEFAULT_RUNGS = (
    "greedy@temperature=2",
    "greedy@temperature=0.5",
    "greedy",
    "tuned",
    "search",
    "search_leaf",
)
FALLBACK_SEARCH = ("lookahead@budget=1", "lookahead@budget=4")


def default_rungs(lib):
    """The shipped rungs the library holds (the lookahead at two budgets when it has no search)."""
    names = {n.lower() for n in lib.names()}
    rungs = [r for r in DEFAULT_RUNGS if r.split("@")[0] in names]
    if "search" not in names:
        rungs += list(FALLBACK_SEARCH)
    return tuple(rungs)


def is_search(lib, name):
    """Whether the strategy ``name`` of ``lib`` is a search player (held to the reference rung in a
    run it judges: ``LadderSpec.proves``)."""
    try:
        return lib.get(str(name).split("@")[0]).kind == KIND_NAMES[KIND_SEARCH]
    except DataError:
        return False


def parse_rung(spec, lib):
    """A rung's strategy: ``name[@param=value...]``."""
    name, *assigns = str(spec).split("@")
    s = lib.get(name)
    params = dict(s.params)
    for a in assigns:
        key, eq, value = a.partition("=")
        if not eq or key not in PARAMS:
            raise DataError("rung", spec, f"expected NAME@param=value with a parameter of {', '.join(PARAMS)}")
        _off, lo, hi, _d, integer = PARAMS[key]
        try:
            v = int(value) if integer else float(value)
        except ValueError:
            raise DataError("rung", spec, f"'{value}' is not a {'whole ' if integer else ''}number") from None
        if not lo <= v <= hi:
            raise DataError("rung", spec, f"{key} {v} is outside {lo}..{hi}")
        params[key] = v
    return replace(s, params=params)
