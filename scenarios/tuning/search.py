"""Balance search: the smallest change of the designer's data that meets a target (``ssb tune``).

A *tuning file* (TOML, beside the scenario it tunes) names a scenario, the judges (lineups of
named strategies), the targets (verdicts the report computes) and a search space of data keys::

    name = "first-player-2p"          # required: names the output folder results/tune/<name>
    description = "..."               # optional
    scenario = "starter"              # required: scenario file (relative to this file) or shipped name
    seed = 1                          # required: seeds the search, its deals and the fresh deals
    confidence = 0.95                 # optional: of every verdict and interval

    [judges]
    search = { mirror = "greedy" }    # required: the lineup the search plays (a scenario [lineup])
    strong = { mirror = "lookahead" } # optional: a lineup (or a list of them) that must confirm the fix
    strong_games = 600                # optional: games per cell under each strong judge (default 1000)
    strong_rule = "meet"              # optional: "meet" (default) or "not_fail" (no target shown failing)

    [search]                          # all optional
    max_keys = 2                      # at most this many keys changed at once (default 2)
    trials = 24                       # candidates asked per number of keys and restart (default 24)
    restarts = 3                      # independent restarts: own sampler seed, own deals (default 3)
    rungs = [500, 2000]               # games per cell of each racing rung (default [500, 2000])
    batch = 2                         # candidates played together (default 2; fixed, so the
                                      #   answer does not depend on --jobs)
    sampler = "tpe"                   # "tpe" (default) or "random"
    confirm_games = 4000              # fresh games per cell that must confirm a winner (default 4000)
    confirm_max = 4                   # winners confirmed per number of keys, smallest first (default 4)

    [[target]]                        # one or more; all must be met
    kind = "seats_balanced"           # every seat within margin of 1/N (the report's seat verdict)
    players = [2]                     # optional: default the scenario's player counts
    margin = 0.03                     # optional, a fraction (default 0.03)
    # kind = "objective_vs_department"; instrument = "Organ"; margin = 5.0   (points per game)
    # kind = "built_rate"; instrument = "Horns"; at_least = 0.5; at_most = 0.9
    # kind = "rounds"; range = [20, 30]

    [space]                           # data keys as in scenario overrides, each a range or values
    "Horns.section.trumpet.score.0.awards.0" = { range = [4, 12] }
    "Horns.instrument.penalty_per_space" = { values = [1, 2, 3] }
    "Organ.section.r5.number" = { range = [3, 9] }
    "Horns.track.vp.3" = { range = [5, 9] }

A scenario of another game (``game = "echidna"``, :mod:`scenarios.generic`) is tuned through the
switches of one of its variants instead (the game declares them with ``Game.tunable``)::

    variant = "rulebook"              # optional: the variant tuned (default the scenario's reference)
    boards = ["forest"]               # optional: the boards searched on (default the scenario's)
    [[target]]
    kind = "stalled"                  # at most this share of games stalled (added at 0.02 if absent)
    at_most = 0.01
    [space]
    "token_schedule.0" = { range = [0, 19] }     # one entry of a list switch
    catch_up = { values = [false] }               # a whole switch

Targets are ``seats_balanced``, ``rounds`` and ``stalled``. A candidate plays the tuned variant
alone, its table changed (:func:`apply_switches`); the answer is the changed scenario file.

A candidate is a set of (key, value) changes; it is applied through the scenario's ``[overrides]``,
so the instrument loader validates it exactly as it validates a what-if scenario. Integer data
takes integer ranges. *Smallest* means fewest keys changed, then the least total change, each
key's change measured as ``|new - old| / (hi - lo)`` of its range (or of its listed values; a
change of a non-numeric value counts 1).

The search (:class:`Tuner`) goes by number of keys: all one-key changes first, then two-key ones,
up to ``max_keys``, and stops at the first number of keys with a confirmed fix. For each it runs
``restarts`` independent optuna studies (TPE, stored in ``study.db``, SQLite) whose candidates
race through the rungs on the restart's common deals: a candidate stops at the first rung where a
target is shown failing, and is *met* only at the last rung. The met candidates, smallest first,
are then re-played on fresh deals (``confirm_games``) and under every strong judge: only a
candidate that meets the targets there is reported as a fix; the others are listed as such.

Every verdict comes from a *judge function* passed in by the caller (the CLI passes
``reports.tune_verdicts.judge``), so this module plays games but computes no statistics itself.
Seeds depend only on the tuning file, so the answer is the same whatever the number of workers,
and a run interrupted at any point continues with ``resume=True`` to the same answer.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import difflib
import hashlib
import io
import itertools
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from scenarios.generic import GameScenario
from scenarios.runner import dispatcher, resolve_jobs
from simulator.provenance import code_version
from scenarios.spec import SCENARIO_DIR, find_scenario, find_shipped_file, parse_set
from scenarios.scenario import flatten_overrides, set_path
from scenarios.load import scenario_from_doc
from scenarios.worker import ChunkTask, play_chunk
from simulator import games as registry
from simulator.errors import DataError
from simulator.seeds import MAX_SEED, derive_seed
from simulator.validate import Checker, read_toml
from simulator.shuffle_swing.playout import PLAYER_COUNTS

TOP_KEYS = ("name", "description", "scenario", "seed", "confidence", "judges", "search", "target", "space")
# Only for a scenario of another game (scenarios.generic): the variant tuned, the boards searched on.
GAME_KEYS = ("variant", "boards")
REQUIRED_KEYS = ("name", "scenario", "seed", "judges", "target", "space")
JUDGE_KEYS = ("search", "strong", "strong_games", "strong_rule")
STRONG_RULES = ("meet", "not_fail")
SEARCH_DEFAULTS = {
    "max_keys": 2,
    "trials": 24,
    "restarts": 3,
    "rungs": [500, 2000],
    "batch": 2,
    "sampler": "tpe",
    "confirm_games": 4000,
    "confirm_max": 4,
}
SAMPLERS = ("tpe", "random")
TARGET_FIELDS = {
    # kind: (required, optional)
    "seats_balanced": ((), ("players", "margin", "label")),
    "objective_vs_department": (("instrument", "margin"), ("players", "label")),
    "built_rate": (("instrument",), ("players", "at_least", "at_most", "label")),
    "rounds": (("range",), ("players", "label")),
    "stalled": ((), ("players", "at_most", "label")),
}
# What a game other than the first can be judged on (it has no instruments).
GAME_TARGETS = ("seats_balanced", "rounds", "stalled")
# The stall target added to another game's search when the file names none: its seat section
# leaves stalled games out, so a candidate that stalls often would otherwise look balanced.
DEFAULT_STALLED = 0.02
MET, FAILED, OPEN = "met", "failed", "open"
STUDY_FILE = "study.db"
RESULT_FILE = "tune.json"
IDENTITY_STUDY = "identity"
MAX_GAMES = 10_000_000


@contextlib.contextmanager
def held_interrupt():
    """Hold a Ctrl-C back while the study database is written, and raise it once the write is done.

    An interrupt that lands inside SQLite's commit can leave optuna's session half rolled back,
    and the next storage call then fails with a database error instead of the interrupt (exit 1
    and a traceback, where an interrupted tune must exit 130 and resume). Outside these short
    writes (while candidates play) Ctrl-C acts at once, as before. Off the main thread, or when
    SIGINT is ignored, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous in (signal.SIG_IGN, None):
        yield
        return
    held = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


# =========================================================================== the search space


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


@dataclass(frozen=True)
class Param:
    """One searchable data key: its current value and the values it may take."""

    key: str  # as in scenario overrides: "Horns.section.trumpet.score.0.awards.0"
    instrument: str  # canonical instrument name
    base: object  # the current value (shipped data, after the scenario's own overrides)
    kind: str  # "int" | "float" | "values"
    lo: float = math.nan
    hi: float = math.nan
    values: tuple = ()

    @property
    def span(self):
        if self.kind == "values":
            nums = [v for v in (*self.values, self.base) if _is_number(v)]
            return (max(nums) - min(nums)) if len(nums) == len(self.values) + 1 and len(nums) > 1 else math.nan
        return float(self.hi - self.lo)

    def change(self, value):
        """Normalised size of setting this key to ``value`` (0 when unchanged)."""
        if value == self.base:
            return 0.0
        span = self.span
        if _is_number(value) and _is_number(self.base) and span > 0:
            return abs(float(value) - float(self.base)) / span
        return 1.0

    def options(self):
        """Values other than the current one (None for a continuous range)."""
        if self.kind == "int":
            return [v for v in range(int(self.lo), int(self.hi) + 1) if v != self.base]
        if self.kind == "values":
            return [v for v in self.values if v != self.base]
        return None

    def as_dict(self):
        d = {"key": self.key, "instrument": self.instrument, "base": self.base, "kind": self.kind}
        if self.kind == "values":
            d["values"] = list(self.values)
        else:
            d["range"] = [self.lo, self.hi]
        return d


def _get_path(doc, parts):
    """The value at ``parts`` in an instrument document (lists by index or by entry id), or a reason."""
    cur = doc
    walked = []
    for part in parts:
        if isinstance(cur, dict):
            if part not in cur:
                return None, f"{'.'.join(walked) or 'the file'} has no key '{part}' (keys: {', '.join(cur) or 'none'})"
            cur = cur[part]
        elif isinstance(cur, list):
            if part.lstrip("-").isdigit():
                i = int(part)
                if not 0 <= i < len(cur):
                    return None, f"{'.'.join(walked)} has {len(cur)} entries; index {i} is out of range"
                cur = cur[i]
            else:
                hit = [e for e in cur if isinstance(e, dict) and e.get("id") == part]
                if not hit:
                    ids = ", ".join(str(e.get("id")) for e in cur if isinstance(e, dict)) or "none"
                    return None, f"{'.'.join(walked)} has no entry with id '{part}' (ids: {ids})"
                cur = hit[0]
        else:
            return None, f"{'.'.join(walked)} is a value, not a table or list; cannot go into '{part}'"
        walked.append(part)
    return cur, None


def _instrument_doc(library, inst, base_overrides, path):
    """The instrument's document with the scenario's own overrides applied (and its track filled in)."""
    doc = copy.deepcopy(read_toml(inst.path))
    track = doc.setdefault("track", {})
    if isinstance(track, dict):
        for row, vals in (("need", inst.track_need), ("vp", inst.track_vp), ("token", inst.track_token)):
            track.setdefault(row, list(vals))
    for key, value in base_overrides.items():
        name, _, rest = key.partition(".")
        if rest and library.get(name).name == inst.name:
            set_path(doc, rest.split("."), value, path, f"overrides.{key}", inst)
    return doc


def _param(ck, key, raw, scenario, path):
    where = f"space.{key}" if "." not in key else f'space."{key}"'
    name, _, rest = key.partition(".")
    if not rest:
        ck.fail(where, 'name an instrument and a key path inside it, e.g. "Horns.section.trumpet.score.0.awards.0"')
    try:
        inst = scenario.instruments.original(name)
    except DataError as exc:
        ck.fail(where, exc.reason)
    parts = rest.split(".")
    if parts in (["instrument", "name"], ["instrument", "department"]):
        ck.fail(where, f"'{rest}' identifies the instrument and cannot be searched")
    doc = _instrument_doc(scenario.instruments.library, inst, scenario.overrides, path)
    if parts == ["instrument", "penalty_per_space"] and "penalty_per_space" not in doc.get("instrument", {}):
        base = inst.penalty_per_space
    else:
        base, reason = _get_path(doc, parts)
        if reason:
            ck.fail(where, f"{inst.name}: {reason}")
    if isinstance(base, dict) or (isinstance(base, list) and any(isinstance(x, dict) for x in base)):
        ck.fail(where, f"{inst.name}.{rest} is a table, not a value: name a value inside it")

    def probe(v):
        scenario_from_doc({**scenario.doc, "overrides": {**scenario.overrides, key: v}}, scenario.path)

    return _range_or_values(ck, where, raw, key, inst.name, f"{inst.name}.{rest}", base, probe)


def _range_or_values(ck, where, raw, key, owner, label, base, probe):
    """A :class:`Param` from a space entry (``{ range = [lo, hi] }`` or ``{ values = [...] }``) for a
    key whose current value is ``base`` (``label`` names it in errors); ``probe(value)`` raises a
    DataError when the game's loader refuses a value (every range end and listed value is probed)."""
    ck.table(raw, where, optional=("range", "values", "step"))
    if ("range" in raw) == ("values" in raw):
        ck.fail(where, "give exactly one of range = [lo, hi] or values = [...]")
    if "range" in raw:
        if not _is_number(base):
            ck.fail(
                f"{where}.range",
                f"{label} is {json.dumps(base)}, not a number: give values = [...], "
                "or name one entry of it (e.g. KEY.0)",
            )
        r = ck.array(raw["range"], f"{where}.range", min_len=2, max_len=2, what="bounds")
        if isinstance(base, int):
            lo, hi = (ck.integer(v, f"{where}.range[{i}]") for i, v in enumerate(r))
            kind = "int"
            if "step" in raw:
                ck.fail(f"{where}.step", "an integer range always steps by 1")
        else:
            for i, v in enumerate(r):
                if not _is_number(v):
                    ck.fail(f"{where}.range[{i}]", f"expected a number, got {v!r}")
            lo, hi = float(r[0]), float(r[1])
            kind = "float"
        if not lo < hi:
            ck.fail(f"{where}.range", f"the lower bound {lo} must be below the upper bound {hi}")
        param = Param(key, owner, base, kind, lo, hi)
        probes = [lo, hi]
    else:
        vals = ck.array(raw["values"], f"{where}.values", min_len=1, what="values")
        for i, v in enumerate(vals):
            if isinstance(base, bool) != isinstance(v, bool) or (isinstance(base, int) and isinstance(v, float)):
                ck.fail(
                    f"{where}.values[{i}]",
                    f"{label} is {json.dumps(base)}; {json.dumps(v)} is not of its type"
                    + (" (the data is an integer)" if isinstance(base, int) else ""),
                )
            if type(v) is not type(base) and not (_is_number(v) and _is_number(base)):
                ck.fail(f"{where}.values[{i}]", f"{label} is {json.dumps(base)}; {json.dumps(v)} is not of its type")
        if len({json.dumps(v) for v in vals}) != len(vals):
            ck.fail(f"{where}.values", "a value is listed twice")
        if all(v == base for v in vals):
            ck.fail(f"{where}.values", f"every value equals the current one ({json.dumps(base)}): nothing to search")
        param = Param(key, owner, base, "values", values=tuple(vals))
        probes = list(vals)
    # The game's loader must accept every probed value (range ends, each listed value).
    for v in probes:
        if v == base:
            continue
        try:
            probe(v)
        except DataError as exc:
            ck.fail(where, f"{json.dumps(v)} is refused: {exc.reason}")
    return param


# --------------------------------------------------------------------------- another game's switches


def _owner(variant):
    """What :func:`scenarios.scenario.set_path` names in its errors: the variant."""
    return type("VariantName", (), {"name": f"variant {variant}"})()


def apply_switches(game, table, changes, file="space", key="space"):
    """A variant table (a scenario's ``[variants]`` entry) with ``changes`` applied: ``{switch:
    value}``, or ``{"switch.i": value}`` for one entry of a list switch (filled in from the game's
    data when the table does not write it, e.g. the token schedule of ``game.toml``)."""
    full = game.tunable(table)
    new = copy.deepcopy(dict(table))
    for k, v in dict(changes).items():
        head, _, rest = k.partition(".")
        if rest:
            new.setdefault(head, copy.deepcopy(full[head]))
            set_path(new, k.split("."), v, file, key, _owner("tuned"))
        else:
            new[head] = v
    return new


def _switch_param(ck, key, raw, scenario, variant, players, path):
    """A searchable switch of another game's variant (``catch_up``, ``token_schedule.3``, ...)."""
    where = f"space.{key}" if "." not in key else f'space."{key}"'
    game = registry.get(scenario.game)
    table = scenario.doc["variants"][variant]
    full = game.tunable(table)
    head, _, rest = key.partition(".")
    if head not in full:
        ck.fail(where, f"'{head}' is not a switch of {game.title}'s variants (switches: {', '.join(full)})")
    base, reason = _get_path(full, key.split("."))
    if reason:
        ck.fail(where, f"variant {variant}: {reason}")
    if isinstance(base, dict):
        ck.fail(where, f"variant {variant}: {key} is a table, not a value: name a value inside it")

    def probe(v):
        new = apply_switches(game, table, {key: v}, path, where)
        doc = {**scenario.doc, "variants": {variant: new}, "reference": variant, "players": list(players)}
        scenario_from_doc(doc, scenario.path)

    return _range_or_values(ck, where, raw, key, f"variant {variant}", f"variant {variant}: {key}", base, probe)


# =========================================================================== the tuning file


@dataclass
class Judge:
    """A skill level: a lineup table (as in a scenario's [lineup]) and its label."""

    label: str
    lineup: dict
    role: str  # "search" | "strong"


@dataclass
class TuneSpec:
    """A validated tuning file."""

    path: str
    doc: dict
    text: str
    sha256: str
    name: str
    description: str
    seed: int
    confidence: float
    scenario: object  # scenarios.scenario.Scenario (as written)
    params: tuple
    targets: tuple  # dicts: kind, label, players, + kind's fields
    search_judge: Judge
    strong_judges: tuple
    strong_games: int
    strong_rule: str
    settings: dict
    set_args: tuple = ()
    # A scenario of another game (scenarios.generic): its name, the variant tuned (its table as
    # written) and the boards searched on; None / () for Shuffle and Swing.
    game: str | None = None
    variant: str | None = None
    boards: tuple = ()

    @property
    def variant_table(self):
        """The tuned variant's table as the scenario writes it (another game only)."""
        return self.scenario.doc["variants"][self.variant] if self.game else None

    @property
    def players(self):
        """Player counts the targets are judged at."""
        return tuple(sorted({n for t in self.targets for n in t["players"]}))

    def identity(self):
        """What a stored study must match to be resumed."""
        data = self.scenario.data_files()
        return {
            "tuning_sha256": self.sha256,
            "scenario_sha256": self.scenario.sha256,
            "data": {
                "board": data["board"]["sha256"],
                **{k: v["sha256"] for k, v in data["instruments"].items()},
                **{k: v["sha256"] for k, v in data["strategies"].items()},
            },
            "kernel_sha256": code_version(self.scenario.game)["kernel_sha256"],
        }


def _find_scenario(raw, base_dir):
    p = Path(raw)
    if not p.is_absolute() and (base_dir / p).is_file():
        return base_dir / p
    return find_scenario(raw)


def _target(ck, raw, i, scenario, path, game=None):
    key = f"target[{i}]"
    ck.table(raw, key, required=("kind",), optional=("kind", *{f for v in TARGET_FIELDS.values() for f in v[0] + v[1]}))
    kind = ck.string(raw["kind"], f"{key}.kind", choices=tuple(TARGET_FIELDS))
    if game is not None and kind not in GAME_TARGETS:
        ck.fail(f"{key}.kind", f"'{kind}' judges an instrument; {game.title} has none (targets: {', '.join(GAME_TARGETS)})")
    counts = PLAYER_COUNTS if game is None else tuple(game.player_counts)
    required, optional = TARGET_FIELDS[kind]
    ck.table(raw, key, required=("kind", *required), optional=optional)
    t = {"kind": kind}
    raw_players = raw.get("players", list(scenario.players))
    if isinstance(raw_players, int) and not isinstance(raw_players, bool):
        raw_players = [raw_players]
    players = ck.int_list(raw_players, f"{key}.players", min_len=1)
    for j, n in enumerate(players):
        if n not in counts:
            listed = f"{', '.join(map(str, counts[:-1]))} or {counts[-1]}"
            ck.fail(f"{key}.players[{j}]", f"{n} players is not supported ({listed})")
    t["players"] = tuple(sorted(set(players)))
    pl = "/".join(str(n) for n in t["players"])
    if kind == "seats_balanced":
        m = raw.get("margin", 0.03)
        if not _is_number(m) or not 0 < m < 0.5:
            ck.fail(f"{key}.margin", f"a fraction between 0 and 0.5 (0.03 = 3 percentage points), got {m!r}")
        t["margin"] = float(m)
        label = f"every seat within {100 * m:g} pp of 1/N at {pl} players"
    elif kind in ("objective_vs_department", "built_rate"):
        try:
            inst = scenario.instruments.get(ck.string(raw["instrument"], f"{key}.instrument"))
        except DataError as exc:
            ck.fail(f"{key}.instrument", exc.reason)
        t["instrument"], t["department"] = inst.name, inst.department_name
        sets = [s for s in scenario.sets if inst.name in s]
        if not sets:
            ck.fail(f"{key}.instrument", f"the scenario plays no instrument set with {inst.name}")
        if kind == "objective_vs_department":
            m = raw["margin"]
            if not _is_number(m) or m <= 0:
                ck.fail(f"{key}.margin", f"points per game, above 0, got {m!r}")
            t["margin"] = float(m)
            d = inst.department
            ctx = {s[:d] + s[d + 1 :] for s in sets}
            if not any(s[d] != inst.name and s[:d] + s[d + 1 :] in ctx for s in scenario.sets):
                ck.fail(
                    f"{key}.instrument",
                    f"the scenario plays no other {inst.department_name} instrument beside {inst.name} with the "
                    f"same instruments in the other departments: nothing to compare with "
                    f'(use instruments.swaps = ["{inst.department_name}"])',
                )
            label = f"{inst.name} objective points within {m:g} of the other {inst.department_name} instruments at {pl} players"
        else:
            lo = raw.get("at_least", 0.0)
            hi = raw.get("at_most", 1.0)
            if "at_least" not in raw and "at_most" not in raw:
                ck.fail(key, "give at_least and/or at_most (fractions of games)")
            for name, v in (("at_least", lo), ("at_most", hi)):
                if not _is_number(v) or not 0 <= v <= 1:
                    ck.fail(f"{key}.{name}", f"a fraction of games between 0 and 1, got {v!r}")
            if lo >= hi:
                ck.fail(key, f"at_least {lo} must be below at_most {hi}")
            t["at_least"], t["at_most"] = float(lo), float(hi)
            band = " and ".join(
                x for x in (f"at least {100 * lo:g}%" if "at_least" in raw else "", f"at most {100 * hi:g}%" if "at_most" in raw else "") if x
            )
            label = f"{inst.name} built in {band} of games at {pl} players"
    elif kind == "stalled":
        m = raw.get("at_most", DEFAULT_STALLED)
        if not _is_number(m) or not 0 < m < 1:
            ck.fail(f"{key}.at_most", f"a fraction of games between 0 and 1 (0.02 = 2%), got {m!r}")
        t["at_most"] = float(m)
        label = f"at most {100 * m:g}% of games stalled at {pl} players"
    else:
        r = ck.array(raw["range"], f"{key}.range", min_len=2, max_len=2, what="bounds")
        for j, v in enumerate(r):
            if not _is_number(v) or v < 0:
                ck.fail(f"{key}.range[{j}]", f"expected a number of rounds, got {v!r}")
        if not r[0] < r[1]:
            ck.fail(f"{key}.range", f"the lower bound {r[0]} must be below the upper bound {r[1]}")
        t["range"] = (float(r[0]), float(r[1]))
        label = f"{r[0]:g} to {r[1]:g} rounds per game at {pl} players"
    t["label"] = ck.string(raw["label"], f"{key}.label") if "label" in raw else label
    return t


def _judge(ck, raw, key, role, scenario, path):
    """A lineup table validated as the scenario's [lineup] would be, errors naming the tuning file."""
    if isinstance(raw, str):
        raw = {"mirror": raw}
    ck.table(raw, key, optional=("mirror", "seats", "round_robin"))
    try:
        sc = scenario_from_doc({**scenario.doc, "lineup": raw}, scenario.path)
    except DataError as exc:
        reason = exc.reason
        sub = exc.key.removeprefix("lineup").lstrip(".")
        ck.fail(f"{key}.{sub}" if sub else key, reason)
    if isinstance(sc, GameScenario):
        names = sorted({s for c in sc.cells for s in c.lineup})
    else:
        names = sorted({s for ls in sc.lineups.values() for lineup in ls for s in lineup})
    return Judge(label=",".join(names), lineup=raw, role=role)


TUNES_DIR = SCENARIO_DIR / "tunes"


def shipped_tunings():
    """Names of the tuning files that come with the package (``scenarios/tunes``)."""
    return sorted(p.stem for p in TUNES_DIR.glob("*.toml") if "target" in read_toml(p))


def find_tuning(name_or_path):
    """A tuning file by path, or by the name of a shipped one (``organ-points``)."""
    found = find_shipped_file(name_or_path, TUNES_DIR, shipped_tunings, "tuning")
    if found is None:
        raise DataError(Path(name_or_path), "", f"tuning file not found (shipped: {', '.join(shipped_tunings())})")
    return found


def load_tuning(path, sets=()):
    """Read, change (``sets``: ``KEY=VALUE``), validate a tuning file; DataError names file and key."""
    path = find_tuning(path)
    doc = read_toml(path)
    if isinstance(doc, dict) and "scenario" not in doc and ("lineup" in doc or "game" in doc or "cells" in doc):
        # A scenario file (what ``ssb run`` reads) given where a tuning file is expected.
        raise DataError(path, "", "is a scenario file (play it with ssb run), not a tuning file: a tuning file "
                                  "names its scenario (scenario = \"...\") with [judges], [search], [[target]] and [space]")
    for item in sets:
        key, value = parse_set(item, str(path))
        parts = key.split(".")
        if parts[0] not in TOP_KEYS + GAME_KEYS:
            raise DataError(path, key, f"unknown tuning key (known: {', '.join(TOP_KEYS + GAME_KEYS)})")
        if parts[0] in ("target", "space") and len(parts) > 1:
            raise DataError(path, key, f"set '{parts[0]}' as a whole (its entries are not addressable here)")
        cur = doc
        for p in parts[:-1]:
            nxt = cur.get(p)
            if not isinstance(nxt, dict):
                nxt = cur[p] = {}
            cur = nxt
        cur[parts[-1]] = value
    return _validate(doc, path, tuple(sets))


def _validate(doc, path, set_args):
    ck = Checker(path)
    ck.table(doc, "", required=REQUIRED_KEYS, optional=TOP_KEYS + GAME_KEYS)
    name = ck.string(doc["name"], "name").strip()
    if "/" in name or name in (".", ".."):
        ck.fail("name", "names a folder under results/tune: no slashes")
    description = doc.get("description", "")
    if not isinstance(description, str):
        ck.fail("description", "expected a string")
    seed = ck.integer(doc["seed"], "seed", lo=0, hi=MAX_SEED)
    confidence = doc.get("confidence", 0.95)
    if not _is_number(confidence) or not 0.5 <= confidence < 1:
        ck.fail("confidence", f"a level between 0.5 and 1 (0.95), got {confidence!r}")
    base_dir = Path(path).resolve().parent
    sc_raw = ck.string(doc["scenario"], "scenario")
    try:
        sc_path = _find_scenario(sc_raw, base_dir)
        from scenarios.load import load_scenario

        scenario = load_scenario(sc_path)
    except DataError as exc:
        ck.fail("scenario", f"{sc_raw}: {exc}")

    game = registry.get(scenario.game) if isinstance(scenario, GameScenario) else None
    variant, boards = None, ()
    if game is None:
        for k in GAME_KEYS:
            if k in doc:
                ck.fail(k, f"only a scenario of another game has {k}; this one changes the data through [space] keys")
    else:
        if game.tunable is None:
            ck.fail("scenario", f"{game.title} declares no tunable switches (Game.tunable in simulator/games.py)")
        variant = ck.string(doc.get("variant", scenario.reference), "variant")
        if variant not in scenario.variants:
            ck.fail("variant", f"'{variant}' is not a variant of the scenario ({', '.join(scenario.variants)})")
        raw_boards = doc.get("boards", list(scenario.boards))
        if isinstance(raw_boards, str):
            raw_boards = [raw_boards]
        boards = tuple(ck.str_list(raw_boards, "boards", min_len=1, what="boards"))
        for i, b in enumerate(boards):
            if b not in scenario.boards:
                ck.fail(f"boards[{i}]", f"'{b}' is not a board of the scenario ({', '.join(scenario.boards)})")
        if len(set(boards)) != len(boards):
            ck.fail("boards", "a board is listed twice")

    # Targets first: they say which player counts the judges must cover.
    raw_targets = doc["target"]
    if isinstance(raw_targets, dict):
        raw_targets = [raw_targets]
    ck.table_array(raw_targets, "target", 1, 32, "targets")
    targets = tuple(_target(ck, t, i, scenario, path, game) for i, t in enumerate(raw_targets))
    if game is not None and not any(t["kind"] == "stalled" for t in targets):
        counts = tuple(sorted({n for t in targets for n in t["players"]}))
        pl = "/".join(map(str, counts))
        targets += ({"kind": "stalled", "players": counts, "at_most": DEFAULT_STALLED,
                     "label": f"at most {100 * DEFAULT_STALLED:g}% of games stalled at {pl} players (added: the "
                              "seat verdict leaves stalled games out)"},)
    players = sorted({n for t in targets for n in t["players"]} | set(scenario.players))
    judged = scenario_from_doc({**scenario.doc, "players": players}, scenario.path)

    j = ck.table(doc["judges"], "judges", required=("search",), optional=JUDGE_KEYS)
    search_judge = _judge(ck, j["search"], "judges.search", "search", judged, path)
    raw_strong = j.get("strong", [])
    if isinstance(raw_strong, (dict, str)):
        raw_strong = [raw_strong]
    ck.array(raw_strong, "judges.strong", what="lineups")
    strong = tuple(
        _judge(ck, s, f"judges.strong[{i}]" if len(raw_strong) > 1 else "judges.strong", "strong", judged, path)
        for i, s in enumerate(raw_strong)
    )
    strong_games = ck.integer(j.get("strong_games", 1000), "judges.strong_games", lo=1, hi=MAX_GAMES)
    strong_rule = ck.string(j.get("strong_rule", "meet"), "judges.strong_rule", choices=STRONG_RULES)

    s = ck.table(doc.get("search", {}), "search", optional=tuple(SEARCH_DEFAULTS))
    settings = {**SEARCH_DEFAULTS, **s}
    for k in ("max_keys", "trials", "restarts", "batch", "confirm_max"):
        ck.integer(settings[k], f"search.{k}", lo=1, hi=100_000)
    ck.integer(settings["confirm_games"], "search.confirm_games", lo=1, hi=MAX_GAMES)
    rungs = ck.int_list(settings["rungs"], "search.rungs", min_len=1, max_len=8, lo=1, hi=MAX_GAMES)
    if list(rungs) != sorted(set(rungs)):
        ck.fail("search.rungs", f"games per cell must grow from rung to rung, got {list(rungs)}")
    settings["rungs"] = list(rungs)
    ck.string(settings["sampler"], "search.sampler", choices=SAMPLERS)

    raw_space = doc["space"]
    if not isinstance(raw_space, dict):
        ck.fail("space", "expected a table of data keys, each { range = [lo, hi] } or { values = [...] }")
    space = flatten_overrides(raw_space)
    # flatten_overrides also splits the {range/values} tables: put them back together.
    entries = OrderedDict()
    for k, v in space.items():
        head, _, leaf = k.rpartition(".")
        if leaf in ("range", "values", "step") and head:
            entries.setdefault(head, {})[leaf] = v
        else:
            ck.fail(f'space."{k}"', "expected { range = [lo, hi] } or { values = [...] }")
    if not entries:
        ck.fail("space", "no keys to search")
    if game is None:
        params = tuple(_param(ck, k, v, scenario, path) for k, v in entries.items())
    else:
        searched = sorted({n for t in targets for n in t["players"]})
        params = tuple(_switch_param(ck, k, v, scenario, variant, searched, path) for k, v in entries.items())
        for a in entries:
            for b in entries:
                if b.startswith(a + "."):
                    ck.fail(f'space."{b}"', f"changes part of {a}, which is searched as a whole: search one or the other")
    if settings["max_keys"] > len(params):
        settings["max_keys"] = len(params)

    eff = {
        "name": name,
        "description": description,
        "scenario": str(sc_path),
        "seed": seed,
        "confidence": float(confidence),
        "judges": {
            "search": search_judge.lineup,
            "strong": [x.lineup for x in strong],
            "strong_games": strong_games,
            "strong_rule": strong_rule,
        },
        "search": settings,
        "targets": {str(i): {k: (list(v) if isinstance(v, tuple) else v) for k, v in t.items()} for i, t in enumerate(targets)},
        "space": {p.key: p.as_dict() for p in params},
    }
    if game is not None:  # (the first game's document, and so its hash, stays as it was)
        eff.update({"game": game.name, "variant": variant, "boards": list(boards)})
    text = json.dumps(eff, sort_keys=True, indent=1) + "\n" + scenario.text
    sha = hashlib.sha256(text.encode()).hexdigest()
    return TuneSpec(
        path=str(path),
        doc=eff,
        text=text,
        sha256=sha,
        name=name,
        description=description,
        seed=seed,
        confidence=float(confidence),
        scenario=scenario,
        params=params,
        targets=targets,
        search_judge=search_judge,
        strong_judges=strong,
        strong_games=strong_games,
        strong_rule=strong_rule,
        settings=settings,
        set_args=set_args,
        game=None if game is None else game.name,
        variant=variant,
        boards=boards,
    )


# =========================================================================== candidates


def candidate_id(changes):
    """A candidate's stable text: its (key, value) changes in key order, as JSON."""
    return json.dumps(sorted([k, v] for k, v in dict(changes).items()))


def candidate_size(spec, changes):
    """``(keys changed, total normalised change)`` of a candidate."""
    by_key = {p.key: p for p in spec.params}
    sizes = [by_key[k].change(v) for k, v in dict(changes).items()]
    return sum(1 for s in sizes if s > 0), float(sum(sizes))


def candidate_scenario(spec, changes, judge, players, games, seed, boards=None):
    """The scenario that plays a candidate: the tuned scenario, the judge's lineup, the changes as
    overrides (another game: the tuned variant alone, with the changes applied to its switches, on
    ``boards``, default the tuning file's)."""
    doc = copy.deepcopy(spec.scenario.doc)
    doc["lineup"] = copy.deepcopy(judge.lineup)
    doc["players"] = list(players)
    doc["games"] = int(games)
    doc["seed"] = int(seed)
    if spec.game:
        game = registry.get(spec.game)
        doc["variants"] = {spec.variant: apply_switches(game, spec.variant_table, changes, spec.path)}
        doc["reference"] = spec.variant
        doc["boards"] = list(boards or spec.boards)
        return scenario_from_doc(doc, spec.scenario.path)
    doc["overrides"] = {**spec.scenario.overrides, **dict(changes)}
    return scenario_from_doc(doc, spec.scenario.path)


# =========================================================================== playing games


class GamePlayer:
    """Plays the cells of candidate scenarios in memory, through the backends of ``ssb run``.

    A cell's games depend only on its content (cell, its instruments' overrides, lineup, run seed),
    so the games played for one candidate are reused by every other candidate that leaves that
    cell alone (the other instruments of a department, the unchanged base) and by a later rung
    (which plays only the games it adds). ``played`` counts the games an uninterrupted run plays
    (see ``ledger``).
    """

    def __init__(self, dispatch, jobs, cache_size=96):
        self.dispatch = dispatch
        self.jobs = jobs
        self.cache = OrderedDict()  # cell id -> (seats, games) held in this process
        # The cache as an uninterrupted run holds it: cell id -> [games, changed]. ``played`` counts
        # the games beyond it, so a resumed process (whose cache starts empty) books the same games
        # as the uninterrupted one: games it plays again are not counted twice.
        self.ledger = OrderedDict()
        self.cache_size = cache_size
        self.played = 0
        self.seq = 0  # tables() calls so far (orders the ledger snapshots kept in the study)

    def snapshot(self):
        """The ledger, to store with a record of the study (see :meth:`restore`)."""
        return {"seq": self.seq, "played": self.played, "cells": [[k, n, c] for k, (n, c) in self.ledger.items()]}

    def restore(self, snap):
        """Continue from the ledger of the last record a resumed study holds."""
        self.seq = int(snap["seq"])
        self.ledger = OrderedDict((k, [int(n), bool(c)]) for k, n, c in snap["cells"])

    @staticmethod
    def _cell_key(scenario, cell):
        if isinstance(scenario, GameScenario):
            # Another game: the cell's deals, its variant's switches (non-empty: evictable) and board file.
            table = sorted((k, json.dumps(v)) for k, v in scenario.variants[cell.variant].__dict__.items())
            rows = scenario.strategies.matrix(list(cell.lineup))
            return json.dumps(
                [cell.index, cell.key, cell.deal_key, scenario.seed, scenario.game, table,
                 scenario.board_objects[cell.board].path, hashlib.sha256(rows.tobytes()).hexdigest()]
            )
        mine = {i.casefold() for i in cell.instruments}
        # A board override (``board.rulings.*``) changes every cell; the deal key says whether the
        # cell's deals are shared with the other sets of its scenario (they seed its games).
        over = sorted(
            (k, json.dumps(v))
            for k, v in scenario.overrides.items()
            if k.partition(".")[0].casefold() in mine or k.partition(".")[0].casefold() == "board"
        )
        rows = scenario.strategy_rows(cell.lineup)
        return json.dumps(
            [cell.index, cell.key, cell.deal_key, scenario.seed, scenario.wheel, scenario.max_rounds, over,
             hashlib.sha256(rows.tobytes()).hexdigest()]
        )

    def tables(self, scenarios):
        """``[(seats, games)]`` DataFrames of each scenario's cells, at its ``games`` per cell."""
        self.seq += 1
        plan, need, source, changed_key = [], OrderedDict(), {}, {}
        for sc in scenarios:
            for cell in sc.cells:
                full = self._cell_key(sc, cell)
                key = hashlib.sha256(full.encode()).hexdigest()[:32]
                changed_key[key] = bool(json.loads(full)[5])
                plan.append((key, cell.games))
                if cell.games > need.get(key, 0):
                    need[key] = cell.games
                    source[key] = (sc, cell, full)
        tasks = []
        for key, n in need.items():
            booked = self.ledger.get(key, [0, changed_key[key]])[0]
            self.played += max(0, n - booked)
            have = self.cache.get(key)
            n_have = 0 if have is None else len(have[1])
            if n_have >= n:
                continue
            sc, cell, full = source[key]
            spec = sc.cell_specs()[cell.index]
            # The worker keeps a cell's setup by run id: make it name the cell's content.
            spec = dataclasses.replace(spec, run_id=hashlib.sha256(full.encode()).hexdigest())
            step = max(100, math.ceil((n - n_have) / max(1, 2 * self.jobs)))
            for a in range(n_have, n, step):
                tasks.append((key, ChunkTask(len(tasks), spec, a, min(n, a + step), sc.seed)))
        for key, n in need.items():
            entry = self.ledger.setdefault(key, [0, changed_key[key]])
            entry[0] = max(entry[0], n)
        if tasks:
            by_chunk = {t.chunk: key for key, t in tasks}
            got = {}
            for res in self.dispatch(t for _, t in tasks):
                got[res.chunk] = (pd.read_parquet(io.BytesIO(res.seats)), pd.read_parquet(io.BytesIO(res.table_games)))
            for key in dict.fromkeys(by_chunk.values()):
                parts = [got[c] for c in sorted(got) if by_chunk[c] == key]
                old = self.cache.get(key)
                seats = pd.concat(([old[0]] if old else []) + [p[0] for p in parts], ignore_index=True)
                games = pd.concat(([old[1]] if old else []) + [p[1] for p in parts], ignore_index=True)
                self.cache[key] = (seats, games)
        out = []
        i = 0
        for sc in scenarios:
            s_parts, g_parts = [], []
            for cell in sc.cells:
                key, n = plan[i]
                i += 1
                seats, games = self.cache[key]
                self.cache.move_to_end(key)
                self.ledger.move_to_end(key)
                g_parts.append(games[games["game"] < n])
                s_parts.append(seats[seats["game"] < n])
            out.append((pd.concat(s_parts, ignore_index=True), pd.concat(g_parts, ignore_index=True)))
        # Evict the least recently used cells, but keep those of the unchanged data (the base and
        # the other instruments of a department): every candidate and judge comes back to them.
        # The ledger decides (so a resumed process evicts what the uninterrupted one would).
        changed = [k for k, (_, c) in self.ledger.items() if c]
        while len(self.ledger) > self.cache_size and changed:
            k = changed.pop(0)
            self.ledger.pop(k)
            self.cache.pop(k, None)
        for k in [k for k in self.cache if k not in self.ledger]:
            self.cache.pop(k)
        return out


# =========================================================================== verdicts


def overall(verdicts):
    """met when every target is met, failed when one is shown failing, else open."""
    states = [v.state for v in verdicts]
    if any(s == FAILED for s in states):
        return FAILED
    if all(s == MET for s in states):
        return MET
    return OPEN


def verdicts_json(verdicts):
    return [v.as_dict() if hasattr(v, "as_dict") else dict(v) for v in verdicts]


@dataclass
class Race:
    """A candidate's way through the rungs."""

    changes: dict
    state: str = "running"  # then "met" (met at the last rung) or "unmet"
    rung: int = -1
    verdicts: list = field(default_factory=list)
    games: int = 0  # games per cell at the last rung it reached


def _relabel(target, n):
    """A target's label as it reads at ``n`` players (a label the file wrote is kept)."""
    pl = "/".join(str(x) for x in target["players"])
    return target["label"].replace(f"at {pl} players", f"at {n} players")


def refused_verdicts(targets, reason):
    """Verdicts of a candidate the game's loader refuses: every target failed, far away."""
    return [{"target": t["label"], "kind": t["kind"], "state": FAILED, "estimate": None, "lo": None, "hi": None,
             "distance": 1e3, "detail": f"refused by the data loader: {reason}"} for t in targets]


def search_score(state, verdicts, change, k):
    """What the sampler minimises in a search over ``k`` keys: a met candidate scores its total
    change (at most ``k``), any other ``k + 1`` plus how far its estimates are from the targets."""
    if state == MET:
        return float(change)
    dist = sum(min(float(v["distance"]), 1e3) for v in verdicts if v["state"] != MET)
    return float(k + 1 + dist)


# =========================================================================== the search


class TuneDirError(DataError):
    """An output folder that holds another tuning study, or one to resume that does not match."""


def _suppress_optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


class Tuner:
    """Runs the search of a :class:`TuneSpec` into ``out_dir`` (see the module docstring)."""

    def __init__(self, spec, judge_fn, out_dir, *, jobs=1, backend="local", scheduler=None, resume=False,
                 force=False, progress=None, stop_after=None):
        self.spec = spec
        self.judge_fn = judge_fn
        self.out_dir = Path(out_dir)
        self.jobs = resolve_jobs(jobs)
        self.backend = backend
        self.scheduler = scheduler
        self.resume = resume
        self.force = force
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.stop_after = stop_after  # tests: stop (as if interrupted) after this many trials
        self.trials_done = 0
        self.cost = {"search": 0, "confirm": 0, "before": 0, "robustness": 0}
        if spec.game:
            self.cost["closest"] = 0

    # ------------------------------------------------------------------ storage

    def _storage(self):
        import optuna

        _suppress_optuna()
        db = self.out_dir / STUDY_FILE
        exists = db.exists()
        if exists and self.force:
            db.unlink()
            (self.out_dir / RESULT_FILE).unlink(missing_ok=True)
            exists = False
        if exists and not self.resume:
            raise TuneDirError(
                self.out_dir, "", "holds a tuning study; continue it with --resume or start over with --force"
            )
        if not exists and self.resume:
            raise TuneDirError(self.out_dir, "", "holds no tuning study to resume")
        if exists:
            self._check_study_file()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        storage = optuna.storages.RDBStorage(
            f"sqlite:///{db.resolve()}", engine_kwargs={"connect_args": {"timeout": 60}}
        )
        ident = self.spec.identity()
        with held_interrupt():
            meta = optuna.create_study(study_name=IDENTITY_STUDY, storage=storage, load_if_exists=True)
            old = meta.user_attrs.get("identity")
            if old is None:
                meta.set_user_attr("identity", ident)
        if old is not None and old != ident:
            changed = sorted(
                k for k in ("tuning_sha256", "scenario_sha256", "kernel_sha256") if old.get(k) != ident.get(k)
            ) + sorted(k for k in set(old["data"]) | set(ident["data"]) if old["data"].get(k) != ident["data"].get(k))
            raise TuneDirError(
                self.out_dir,
                "identity",
                f"the study on disk was made with other settings or data ({', '.join(changed)}): "
                "start over with --force or choose another --out",
            )
        self.storage, self.meta = storage, meta

    def _check_study_file(self):
        from scenarios.tune_store import check_study_file

        s = self.spec.settings
        names = [f"keys{k}-restart{r}" for k in range(1, s["max_keys"] + 1) for r in range(s["restarts"])]
        check_study_file(self.out_dir / STUDY_FILE, names, IDENTITY_STUDY)

    def _memo(self, key, compute, phase):
        """A result stored in the identity study (so a resumed run does not redo it); the games it
        cost count in ``phase`` whether played now or before an interruption."""
        got = self.meta.user_attrs.get(key)
        if got is None:
            before = self.player.played
            got = {"value": compute(), "played": None}
            got["played"] = self.player.played - before
            got["ledger"] = self.player.snapshot()
            with held_interrupt():
                self.meta.set_user_attr(key, got)
        self.cost[phase] += got["played"]
        return got["value"]

    # ------------------------------------------------------------------ playing and judging

    def _judge(self, seats, games, targets=None):
        targets = self.spec.targets if targets is None else targets
        return verdicts_json(self.judge_fn(seats, games, list(targets), self.spec.confidence))

    def _race(self, changes_list, seed):
        """Race candidates through the rungs on the deals of ``seed``; returns a Race per candidate."""
        races = [Race(dict(c)) for c in changes_list]
        rungs = self.spec.settings["rungs"]
        for r, games in enumerate(rungs):
            running = [x for x in races if x.state == "running"]
            scs = []
            for x in list(running):
                try:
                    scs.append(candidate_scenario(self.spec, x.changes, self.spec.search_judge, self.spec.players,
                                                  games, seed))
                except DataError as exc:
                    # A combination the game's loader refuses (each value alone was accepted when the
                    # file was read, e.g. token schedules that together exceed the supply).
                    x.state, x.rung, x.games = "refused", r, 0
                    x.verdicts = refused_verdicts(self.spec.targets, exc.reason)
                    running.remove(x)
            if not running:
                break
            for x, (seats, g) in zip(running, self.player.tables(scs), strict=True):
                x.verdicts = self._judge(seats, g)
                x.rung, x.games = r, games
                st = overall_from_json(x.verdicts)
                # Racing: a target shown failing ends the race; only the last rung can declare it met.
                if st == FAILED:
                    x.state = "unmet"
                elif r == len(rungs) - 1:
                    x.state = MET if st == MET else "unmet"
        return races

    def _verdicts_at(self, changes, judge, games, seed, targets=None, players=None):
        players = self.spec.players if players is None else players
        sc = candidate_scenario(self.spec, changes, judge, players, games, seed)
        ((seats, g),) = self.player.tables([sc])
        return self._judge(seats, g, targets)

    # ------------------------------------------------------------------ one study

    def _sampler(self, seed):
        import optuna

        if self.spec.settings["sampler"] == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        return optuna.samplers.TPESampler(
            seed=seed, multivariate=True, group=True, constant_liar=True, n_startup_trials=8
        )

    def _suggest(self, trial, k):
        params = self.spec.params
        if k < len(params):
            combos = ["+".join(str(i) for i in c) for c in itertools.combinations(range(len(params)), k)]
            chosen = [params[int(i)] for i in trial.suggest_categorical("keys", combos).split("+")]
        else:
            chosen = list(params)
        changes = {}
        for p in chosen:
            name = f"value:{p.key}"
            if p.kind == "int":
                lo, hi = int(p.lo), int(p.hi)
                if lo <= p.base <= hi:
                    j = trial.suggest_int(name, lo, hi - 1)
                    changes[p.key] = j + 1 if j >= p.base else j
                else:
                    changes[p.key] = trial.suggest_int(name, lo, hi)
            elif p.kind == "float":
                changes[p.key] = trial.suggest_float(name, p.lo, p.hi)
            else:
                opts = p.options()
                changes[p.key] = opts[trial.suggest_categorical(name, list(range(len(opts))))]
        return changes

    def _space_size(self, k):
        total = 0
        for combo in itertools.combinations(self.spec.params, k):
            n = 1
            for p in combo:
                o = p.options()
                n *= math.inf if o is None else len(o)
            total += n
        return total

    def _written(self):
        """Count a write of the search; ``SSB_TUNE_KILL_AT=N`` (tests) kills this process with
        SIGKILL right after its N-th write, a real ``kill -9`` at an exact point."""
        self.writes = getattr(self, "writes", 0) + 1
        if os.environ.get("SSB_TUNE_KILL_AT") == str(self.writes):
            os.kill(os.getpid(), signal.SIGKILL)

    def _settle(self, study, name):
        """Tidy a study that an interrupted process left (Ctrl-C, kill -9, a power cut).

        A trial of a batch whose outcome was stored (see :meth:`_study`) is told that outcome. Any
        other trial left running is void and marked failed, and so is a trial enqueued but never
        asked (:meth:`_one`): the sampler ignores failed trials, so the resumed study asks exactly
        what the uninterrupted one would."""
        from optuna.trial import Trial, TrialState

        pending = self.meta.user_attrs.get(f"batch:{name}") or {"trials": [], "attrs": [], "scores": []}
        outcome = {n: (a, sc) for n, a, sc in zip(pending["trials"], pending["attrs"], pending["scores"], strict=True)}
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            if t.number in outcome:
                attrs, score = outcome[t.number]
                trial = Trial(study, t._trial_id)
                for a, v in attrs.items():
                    trial.set_user_attr(a, v)
                study.tell(t.number, score)
            else:
                study.tell(t.number, state=TrialState.FAIL)
        for _ in study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
            study.tell(study.ask(), state=TrialState.FAIL)

    def _restore_ledger(self):
        """A resumed run books games from the ledger of the study's last record."""
        from optuna.trial import TrialState

        snaps = [v["ledger"] for k, v in self.meta.user_attrs.items() if isinstance(v, dict) and "ledger" in v]
        for summary in self.storage.get_all_studies():
            if summary.study_name == IDENTITY_STUDY:
                continue
            for t in self.storage.get_all_trials(summary._study_id, deepcopy=False, states=(TrialState.COMPLETE,)):
                if "ledger" in t.user_attrs:
                    snaps.append(t.user_attrs["ledger"])
        if snaps:
            self.player.restore(max(snaps, key=lambda s: s["seq"]))

    def _study(self, k, restart, bar, best):
        import optuna
        from optuna.trial import TrialState

        name = f"keys{k}-restart{restart}"
        with held_interrupt():
            study = optuna.create_study(study_name=name, storage=self.storage, load_if_exists=True, direction="minimize")
            self._settle(study, name)
        seed = derive_seed(self.spec.seed, "search", restart)
        memo = {}
        done = 0
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            memo.setdefault(t.user_attrs["candidate"], {a: v for a, v in t.user_attrs.items() if a != "ledger"})
            self.cost["search"] += t.user_attrs.get("played", 0)
            done += 1
        bar.update(done)
        size = self._space_size(k)
        trials, batch = self.spec.settings["trials"], self.spec.settings["batch"]
        while done < trials and len(memo) < size:
            asks = []
            for i in range(min(batch, trials - done)):
                study.sampler = self._sampler(derive_seed(self.spec.seed, "sampler", k, restart, done, i) % 2**32)
                with held_interrupt():  # the trial and its parameters are written to the study
                    trial = study.ask()
                    asks.append((trial, self._suggest(trial, k)))
            fresh = {}
            for _, ch in asks:
                cid = candidate_id(ch)
                if cid not in memo and cid not in fresh:
                    fresh[cid] = ch
            played = self.player.played
            races = dict(zip(fresh, self._race(list(fresh.values()), seed), strict=True))
            played = self.player.played - played
            self.cost["search"] += played
            told, first = [], {}
            for trial, ch in asks:
                cid = candidate_id(ch)
                keys, change = candidate_size(self.spec, ch)
                if cid in races:
                    x = races[cid]
                    attrs = {"candidate": cid, "state": x.state, "rung": x.rung, "games": x.games,
                             "verdicts": x.verdicts, "keys": keys, "change": change, "repeat": False,
                             "played": played}
                    played = 0  # the batch's games are booked on its first new candidate
                    del races[cid]
                    first.setdefault(cid, attrs)
                else:
                    attrs = {**(memo[cid] if cid in memo else first[cid]), "repeat": True, "played": 0}
                told.append((trial, attrs, search_score(attrs["state"], attrs["verdicts"], change, k)))
            # The batch's outcome is stored whole, in one write, before its trials are told: a
            # process killed while telling them (kill -9, a power cut) is resumed by telling the rest
            # the same outcome, so the study reads as if it had never stopped.
            with held_interrupt():
                self.meta.set_user_attr(f"batch:{name}", {
                    "trials": [t.number for t, _, _ in told], "attrs": [a for _, a, _ in told],
                    "scores": [sc for _, _, sc in told], "ledger": self.player.snapshot()})
            self._written()
            for trial, attrs, score in told:
                cid, keys, change = attrs["candidate"], attrs["keys"], attrs["change"]
                with held_interrupt():
                    for a, v in attrs.items():
                        trial.set_user_attr(a, v)
                    study.tell(trial, score)
                self._written()
                memo.setdefault(cid, attrs)
                done += 1
                self.trials_done += 1
                if attrs["state"] == MET and (best[0] is None or (keys, change) < best[0]):
                    best[0] = (keys, change)
                bar.update(1)
                bar.set_postfix_str(self._best_text(best[0], k, restart))
            if self.stop_after is not None and self.trials_done >= self.stop_after:
                raise KeyboardInterrupt
        bar.total = max(bar.n, bar.total - (trials - done))
        bar.refresh()
        self._refine(study, k, memo, seed, bar, best, restart)
        n_trials = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
        return [{**attrs, "restart": restart} for attrs in memo.values()], n_trials

    def _encode(self, changes, k):
        """The trial parameters that make :meth:`_suggest` return ``changes``."""
        params = self.spec.params
        idx = [i for i, p in enumerate(params) if p.key in changes]
        out = {} if k == len(params) else {"keys": "+".join(str(i) for i in idx)}
        for i in idx:
            p, v = params[i], changes[params[i].key]
            name = f"value:{p.key}"
            if p.kind == "int":
                out[name] = v - 1 if (p.lo <= p.base <= p.hi and v > p.base) else v
            elif p.kind == "float":
                out[name] = v
            else:
                out[name] = p.options().index(v)
        return out

    def _one(self, study, k, changes, memo, seed, bar, best, restart):
        """Play one given candidate as an enqueued trial of the study (or recall it)."""
        cid = candidate_id(changes)
        if cid in memo:
            return memo[cid]
        with held_interrupt():
            study.enqueue_trial(self._encode(changes, k))
            trial = study.ask()
            got = self._suggest(trial, k)
        assert candidate_id(got) == cid, (got, changes)
        played = self.player.played
        (x,) = self._race([changes], seed)
        played = self.player.played - played
        self.cost["search"] += played
        keys, change = candidate_size(self.spec, changes)
        attrs = {"candidate": cid, "state": x.state, "rung": x.rung, "games": x.games, "verdicts": x.verdicts,
                 "keys": keys, "change": change, "repeat": False, "played": played, "refine": True}
        with held_interrupt():
            for a, v in {**attrs, "ledger": self.player.snapshot()}.items():
                trial.set_user_attr(a, v)
            study.tell(trial, search_score(x.state, x.verdicts, change, k))
        self._written()
        memo[cid] = attrs
        self.trials_done += 1
        if x.state == MET and (best[0] is None or (keys, change) < best[0]):
            best[0] = (keys, change)
        bar.total += 1
        bar.update(1)
        bar.set_postfix_str(self._best_text(best[0], k, restart))
        return attrs

    def _refine(self, study, k, memo, seed, bar, best, restart):
        """Bisect each integer key of the restart's smallest met candidate back toward its current
        value, on the same deals: the sampler finds a change that works, this finds the least of it
        (assuming the verdict is monotone along the key between the two)."""
        met = [a for a in memo.values() if a["state"] == MET and a["keys"] == k]
        if not met:
            return
        top = min(met, key=lambda a: (a["change"], a["candidate"]))
        changes = dict(json.loads(top["candidate"]))
        for p in self.spec.params:
            if p.key not in changes or p.kind != "int":
                continue
            lo, hi = p.base, changes[p.key]  # lo: unchanged (not met), hi: met
            while abs(hi - lo) > 1:
                mid = lo + (hi - lo) // 2
                trial_changes = {**changes, p.key: mid}
                if self._one(study, k, trial_changes, memo, seed, bar, best, restart)["state"] == MET:
                    hi, changes = mid, trial_changes
                else:
                    lo = mid
            if self.stop_after is not None and self.trials_done >= self.stop_after:
                raise KeyboardInterrupt

    @staticmethod
    def _best_text(best, k, restart):
        b = "none met yet" if best is None else f"best met: {best[0]} key(s), change {best[1]:.3f}"
        return f"{k} key(s), restart {restart + 1}: {b}"

    # ------------------------------------------------------------------ confirmation

    def _confirm(self, k, cand, memo_key=None, phase="confirm", stop=True):
        """Fresh deals under the search judge, then every strong judge (``stop``: only while it
        passes); the record of each."""
        spec = self.spec
        changes = dict(json.loads(cand["candidate"]))

        def compute():
            rec = {"candidate": cand["candidate"], "stages": []}
            v = self._verdicts_at(changes, spec.search_judge, spec.settings["confirm_games"], derive_seed(spec.seed, "confirm"))
            ok = overall_from_json(v) == MET
            rec["stages"].append({"judge": spec.search_judge.label, "role": "search", "games": spec.settings["confirm_games"],
                                  "verdicts": v, "state": overall_from_json(v), "passed": ok})
            for j, judge in enumerate(spec.strong_judges):
                if not ok and stop:
                    break
                v = self._verdicts_at(changes, judge, spec.strong_games, derive_seed(spec.seed, "strong", j))
                st = overall_from_json(v)
                ok = ok and (st == MET if spec.strong_rule == "meet" else st != FAILED)
                rec["stages"].append({"judge": judge.label, "role": "strong", "games": spec.strong_games,
                                      "verdicts": v, "state": st, "passed": ok})
            rec["confirmed"] = ok
            return rec

        return self._memo(memo_key or f"confirm:{k}:{cand['candidate']}", compute, phase)

    def _closest(self, tried):
        """The candidate nearest the targets over every number of keys (smallest summed distance of
        its unmet verdicts, then the smallest change), with its record on fresh deals (as
        :meth:`_confirm` plays a winner); None when nothing was played."""
        played = [c for c in tried if c["state"] != "refused" and c["verdicts"]]
        if not played:
            return None

        def dist(c):
            return sum(min(float(v["distance"]), 1e3) for v in c["verdicts"] if v["state"] != MET)

        c = min(played, key=lambda c: (dist(c), c["keys"], c["change"], c["candidate"]))
        rec = self._confirm(0, c, memo_key=f"closest:{c['candidate']}", phase="closest", stop=False)
        by_key = {p.key: p for p in self.spec.params}
        return {
            "changes": [{"key": k, "before": by_key[k].base, "after": v, "change": by_key[k].change(v)}
                        for k, v in json.loads(c["candidate"])],
            "keys": c["keys"], "change": c["change"],
            "search": {"state": c["state"], "games": c["games"], "verdicts": c["verdicts"]},
            "confirmation": rec,
        }

    def _before(self):
        spec = self.spec

        def compute():
            out = [{"judge": spec.search_judge.label, "role": "search", "games": spec.settings["confirm_games"],
                    "verdicts": self._verdicts_at({}, spec.search_judge, spec.settings["confirm_games"],
                                                  derive_seed(spec.seed, "confirm"))}]
            for j, judge in enumerate(spec.strong_judges):
                out.append({"judge": judge.label, "role": "strong", "games": spec.strong_games,
                            "verdicts": self._verdicts_at({}, judge, spec.strong_games,
                                                          derive_seed(spec.seed, "strong", j))})
            for o in out:
                o["state"] = overall_from_json(o["verdicts"])
            return out

        return self._memo("before", compute, "before")

    def _robustness(self, changes):
        """The targets at every player count of the scenario (search judge, fresh deals), before and after."""
        spec = self.spec
        counts = sorted(set(spec.scenario.players) | set(spec.players))

        def compute():
            rows = []
            for n in counts:
                targets = [{**t, "players": (n,)} for t in spec.targets]
                seed = derive_seed(spec.seed, "confirm")
                games = spec.settings["confirm_games"]
                if spec.game:  # another game: every board of the scenario too, each on its own
                    targets = [{**t, "players": (n,), "label": _relabel(t, n)} for t in spec.targets]
                    for b in spec.scenario.boards:
                        rows.append(self._robust_row(changes, targets, n, games, seed, b))
                    continue
                before = self._verdicts_at({}, spec.search_judge, games, seed, targets, (n,))
                after = self._verdicts_at(changes, spec.search_judge, games, seed, targets, (n,))
                rows.append({"players": n, "judge": spec.search_judge.label, "games": games,
                             "before": before, "after": after})
            return rows

        return self._memo(f"robustness:{candidate_id(changes)}", compute, "robustness")

    def _robust_row(self, changes, targets, n, games, seed, board):
        """One robustness row of another game: before and after at ``n`` players on ``board`` (a
        change the loader refuses there, e.g. a schedule over the supply at 6 players, says so)."""
        spec = self.spec
        row = {"players": n, "board": board, "judge": spec.search_judge.label, "games": games}
        for name, ch in (("before", {}), ("after", changes)):
            try:
                sc = candidate_scenario(spec, ch, spec.search_judge, (n,), games, seed, boards=(board,))
            except DataError as exc:
                row[name] = refused_verdicts(targets, exc.reason)
                continue
            ((seats, g),) = self.player.tables([sc])
            row[name] = self._judge(seats, g, targets)
        return row

    # ------------------------------------------------------------------ the whole run

    def run(self):
        """Search, confirm and write ``tune.json`` (the answer) to the output folder; returns it.

        The folder is locked while it runs (scenarios.writelock: one writer per folder); a database
        error of the study (a full disk, a damaged file) is a StudyFileError naming ``study.db``."""
        from scenarios.tune_store import is_storage_error, storage_error
        from scenarios.writelock import folder_lock

        if self.resume and not (self.out_dir / STUDY_FILE).exists():
            raise TuneDirError(self.out_dir, "", "holds no tuning study to resume")
        if self.resume:
            self._check_study_file()  # before the lock file is made: a refused resume writes nothing
        with folder_lock(self.out_dir):
            try:
                return self._run()
            except Exception as exc:
                if is_storage_error(exc):
                    raise storage_error(self.out_dir / STUDY_FILE, exc) from None
                raise

    def _run(self):
        from tqdm import tqdm

        spec = self.spec
        t0 = time.perf_counter()
        self._storage()
        s = spec.settings
        total = sum(min(s["trials"], self._space_size(k)) * s["restarts"] for k in range(1, s["max_keys"] + 1))
        bar = tqdm(total=total, desc=f"tune {spec.name}", unit=" candidates", dynamic_ncols=True,
                   disable=not self.progress, file=sys.stderr, smoothing=0.1)
        with dispatcher(self.backend, self.jobs, self.scheduler) as dispatch:
            self.player = GamePlayer(dispatch, self.jobs)
            if self.resume:
                self._restore_ledger()
            try:
                before = self._before()
                stages = []
                fix, runners, unconfirmed = None, [], []
                best = [None]
                everything = []  # every candidate of every number of keys (for another game's evidence)
                for k in range(1, s["max_keys"] + 1):
                    tried, n_trials = [], 0
                    for r in range(s["restarts"]):
                        got, n = self._study(k, r, bar, best)
                        tried.extend(got)
                        everything.extend(got)
                        n_trials += n
                    met = {}
                    for c in tried:
                        if c["state"] == MET and c["keys"] == k:
                            prev = met.get(c["candidate"])
                            met[c["candidate"]] = {**c, "restarts": (prev["restarts"] if prev else []) + [c["restart"]]}
                    ranked = sorted(met.values(), key=lambda c: (c["change"], c["candidate"]))
                    confirmed = []
                    for c in ranked[: s["confirm_max"]]:
                        rec = self._confirm(k, c)
                        (confirmed if rec["confirmed"] else unconfirmed).append({**c, "confirmation": rec})
                    stages.append({"keys": k, "candidates": len({c["candidate"] for c in tried}),
                                   "trials": n_trials, "refined": sum(1 for c in tried if c.get("refine")),
                                   "met_in_search": len(ranked),
                                   "confirmed": len(confirmed),
                                   "failed_confirmation": sum(1 for c in ranked[: s["confirm_max"]]
                                                              if not any(x["candidate"] == c["candidate"] for x in confirmed))})
                    if confirmed:
                        # The smallest confirmed change is the fix; the next ones are the runners-up.
                        fix, runners = confirmed[0], confirmed[1:] + ranked[s["confirm_max"] :][:3]
                        break
                if fix is None:
                    # No confirmed fix: the closest candidates of the search are the runners-up.
                    near = sorted((c for c in tried), key=lambda c: search_score(c["state"], c["verdicts"], c["change"], s["max_keys"]))
                    runners = near[:3]
                robust = self._robustness(dict(json.loads(fix["candidate"]))) if fix else None
                # Another game, no fix: the closest candidate of the whole search, re-played on fresh
                # deals and under every strong judge, is the evidence that none was found.
                closest = self._closest(everything) if fix is None and spec.game else None
                if closest is not None:  # and at every player count and board of the scenario
                    closest["robustness"] = self._robustness({c["key"]: c["after"] for c in closest["changes"]})
            finally:
                bar.close()
        result = self._result(before, stages, fix, runners, unconfirmed, robust, time.perf_counter() - t0)
        if closest is not None:
            result["closest"] = closest
        from scenarios.results import write_atomic

        write_atomic(self.out_dir / RESULT_FILE, (json.dumps(result, indent=2) + "\n").encode())
        return result

    def _result(self, before, stages, fix, runners, unconfirmed, robust, wall):
        spec = self.spec

        def describe(c):
            if c is None:
                return None
            changes = dict(json.loads(c["candidate"]))
            by_key = {p.key: p for p in spec.params}
            return {
                "changes": [{"key": k, "before": by_key[k].base, "after": v, "change": by_key[k].change(v)}
                            for k, v in changes.items()],
                "keys": c["keys"],
                "change": c["change"],
                "search": {"state": c["state"], "games": c["games"], "verdicts": c["verdicts"],
                           "restarts": c.get("restarts", [c.get("restart")])},
                "confirmation": c.get("confirmation"),
            }

        # Games are booked on the stored trials and records, so a resumed run counts those played
        # before the interruption too (not the games of a batch cut short).
        cost = dict(self.cost)
        cost["total"] = sum(self.cost.values())
        cost["trials"] = sum(st["trials"] for st in stages)
        cost["candidates"] = sum(st["candidates"] for st in stages)
        cost["wall_seconds_this_process"] = round(wall, 1)
        return {
            "format": "ssb-tune",
            "version": 1,
            "name": spec.name,
            "description": spec.description,
            "tuning_file": spec.path,
            "scenario": spec.scenario.path,
            "seed": spec.seed,
            "confidence": spec.confidence,
            "judges": {"search": spec.search_judge.label, "strong": [j.label for j in spec.strong_judges],
                       "strong_rule": spec.strong_rule},
            "targets": [t["label"] for t in spec.targets],
            "space": [p.as_dict() for p in spec.params],
            "settings": spec.settings,
            "before": before,
            "fix": describe(fix),
            "runners_up": [describe(c) for c in runners],
            "unconfirmed": [describe(c) for c in unconfirmed],
            "stages": stages,
            "robustness": robust,
            "cost": cost,
            "jobs": self.jobs,
            "backend": self.backend,
            **({"game": spec.game, "variant": spec.variant, "boards": list(spec.boards)} if spec.game else {}),
        }


def overall_from_json(verdicts):
    """:func:`overall` on verdicts stored as dicts."""
    states = [v["state"] for v in verdicts]
    if any(s == FAILED for s in states):
        return FAILED
    if all(s == MET for s in states):
        return MET
    return OPEN


def tune(spec, judge_fn, out_dir=None, **kwargs):
    """Run the search of ``spec`` (a :class:`TuneSpec` or a path) into ``out_dir`` (default
    ``results/tune/<name>``); returns the answer (the contents of ``tune.json``)."""
    if not isinstance(spec, TuneSpec):
        spec = load_tuning(spec)
    out_dir = Path(out_dir) if out_dir is not None else Path("results") / "tune" / spec.name
    return Tuner(spec, judge_fn, out_dir, **kwargs).run()


# =========================================================================== the changed data files


def _toml_path_set(doc, parts, value):
    """Set a value in a tomlkit document with the override path rules (lists by index or id)."""
    cur = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(cur, list):
            if part.lstrip("-").isdigit():
                idx = int(part)
            else:
                idx = next(j for j, e in enumerate(cur) if isinstance(e, dict) and e.get("id") == part)
            if last:
                cur[idx] = value
                return
            cur = cur[idx]
        else:
            if last:
                cur[part] = value
                return
            cur = cur[part]


def changed_files(spec, changes):
    """``{instrument name: (path, old text, new text)}`` of the data files the changes touch.

    Comments and layout are kept (tomlkit); the new text carries the scenario's own overrides and
    the changes. ``new`` is what a designer copies over the shipped file; the folder version adds
    ``replaces = true`` (see :func:`write_changed_files`).
    """
    import tomlkit

    if spec.game:
        return _changed_scenario(spec, changes)
    over = {**spec.scenario.overrides, **dict(changes)}
    by_inst = OrderedDict()
    for key, value in over.items():
        name, _, rest = key.partition(".")
        inst = spec.scenario.instruments.original(name)
        by_inst.setdefault(inst.name, (inst, []))[1].append((rest.split("."), value))
    out = OrderedDict()
    for name, (inst, items) in by_inst.items():
        old = Path(inst.path).read_text(encoding="utf-8")
        doc = tomlkit.parse(old)
        for parts, value in items:
            if parts[0] == "track" and "track" not in doc:
                t = tomlkit.table()
                t["need"], t["vp"], t["token"] = list(inst.track_need), list(inst.track_vp), list(inst.track_token)
                doc["track"] = t
            _toml_path_set(doc, parts, value)
        out[name] = (inst.path, old, tomlkit.dumps(doc))
    return out


def _changed_scenario(spec, changes):
    """Another game: ``{"scenario": (path, old text, new text)}``, the scenario file with the tuned
    variant's table changed (comments and layout kept), which ``ssb run`` plays as it is."""
    import tomlkit

    path = spec.scenario.path
    old = Path(path).read_text(encoding="utf-8")
    doc = tomlkit.parse(old)
    new_table = apply_switches(registry.get(spec.game), spec.variant_table, changes, spec.path)
    # An inline table spaced as the shipped scenarios write theirs: { key = value, ... }.
    body = ", ".join(f"{k} = {tomlkit.item(v).as_string()}" for k, v in new_table.items())
    inline = tomlkit.parse(f"v = {{ {body} }}" if body else "v = {}")["v"]
    if "variants" not in doc:
        doc["variants"] = tomlkit.table()
    doc["variants"][spec.variant] = inline
    return OrderedDict([("scenario", (path, old, tomlkit.dumps(doc)))])


def answer_folder(spec):
    """Where the changed files of an answer go inside the output folder."""
    return "scenario" if spec.game else "instruments"


def data_diff(files):
    """A unified diff of the changed data files (paths relative to the package data folder)."""
    chunks = []
    for _name, (path, old, new) in files.items():
        root = Path(SCENARIO_DIR).parent
        rel = os.path.relpath(path, root) if Path(path).resolve().is_relative_to(root) else Path(path).name
        chunks.append("".join(difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{rel}", f"b/{rel}", n=2)))
    return "".join(chunks)


def write_changed_files(files, folder):
    """Write the changed files to ``folder``, each marked ``replaces = true`` so that
    ``--instrument-dir folder`` plays them in place of the shipped ones; returns the paths."""
    import tomlkit

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.toml"):
        old.unlink()
    paths = []
    for _name, (path, _old, new) in files.items():
        doc = tomlkit.parse(new)
        if "instrument" not in doc:  # another game's scenario file: written as it is
            p = folder / Path(path).name
            p.write_text(new, encoding="utf-8")
            paths.append(p)
            continue
        doc["instrument"]["replaces"] = True
        p = folder / Path(path).name
        p.write_text(tomlkit.dumps(doc), encoding="utf-8")
        paths.append(p)
    return paths
