"""The search space of ``ssb tune``: a data key of an instrument (:class:`Param`) or a switch of
a variant of another game (:func:`apply_switches`), each a range or a list of values."""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass

from scenarios.load import scenario_from_doc
from simulator import games as registry
from simulator.errors import DataError
from simulator.validate import read_toml


# =========================================================================== the search space


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def switch_game(scenario):
    """The game of a scenario that a search changes through its variants' switches (its setting has
    named variants, ``simulator.boards_setting``), else ``None``: the search changes the data files
    through [space] keys (a setting with overrides of its data files)."""
    return registry.get(scenario.game) if hasattr(scenario.setting, "variants") else None


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
            nums = [v for v in (*self.values, self.base) if is_number(v)]
            return (max(nums) - min(nums)) if len(nums) == len(self.values) + 1 and len(nums) > 1 else math.nan
        return float(self.hi - self.lo)

    def change(self, value):
        """Normalised size of setting this key to ``value`` (0 when unchanged). A list of numbers
        (a per-seat vector of the board's ``[seats]``) changes by its summed distance from the
        current list over the largest such distance among its listed values."""
        if value == self.base:
            return 0.0
        span = self.span
        if is_number(value) and is_number(self.base) and span > 0:
            return abs(float(value) - float(self.base)) / span
        far = [_distance(v, self.base) for v in self.values] if self.kind == "values" else []
        if far and all(d is not None for d in far) and _distance(value, self.base) is not None and max(far) > 0:
            return _distance(value, self.base) / max(far)
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


def _distance(a, b):
    """Summed absolute difference of two equal-length lists of numbers, else None."""
    if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
        return None
    if not all(is_number(x) for x in (*a, *b)):
        return None
    return float(sum(abs(x - y) for x, y in zip(a, b)))


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


def _instrument_doc(library, inst, base_overrides, path, set_path):
    """The instrument's document with the scenario's own overrides applied (and its track filled in),
    each through ``set_path``, the scenario's game's (its setting module's)."""
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


def space_param(ck, key, raw, scenario, path):
    where = f"space.{key}" if "." not in key else f'space."{key}"'
    name, _, rest = key.partition(".")
    if name.casefold() == "board":
        return board_param(ck, key, raw, scenario, path)
    if not rest:
        ck.fail(where, 'name an instrument and a key path inside it, e.g. "Horns.section.trumpet.score.0.awards.0"')
    try:
        inst = scenario.instruments.original(name)
    except DataError as exc:
        ck.fail(where, exc.reason)
    parts = rest.split(".")
    if parts in (["instrument", "name"], ["instrument", "department"]):
        ck.fail(where, f"'{rest}' identifies the instrument and cannot be searched")
    doc = _instrument_doc(scenario.instruments.library, inst, scenario.overrides, path,
                          registry.get(scenario.game).setting_module().set_path)
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


def _board_base(scenario, parts):
    """The current value of a board key (``parts`` after ``board``), the scenario's own board
    overrides applied, or ``(None, reason)``. A ``[seats]`` row a count leaves out reads as the
    rulebook's set-up, written as the file would write it (a list with one value per seat)."""
    import dataclasses

    board = scenario.instruments.board
    # The seat levers: the fields of the board's per-count set-up (its [seats] keys).
    seat_keys = tuple(f.name for f in dataclasses.fields(board.seats[0]) if f.name != "nplayers") if board.seats else ()
    doc = copy.deepcopy(read_toml(board.path))
    for key, value in scenario.overrides.items():
        head, _, rest = key.partition(".")
        if head.casefold() == "board" and rest:
            cur = doc
            *path, leaf = rest.split(".")
            for part in path:
                cur = cur.setdefault(part, {})
            cur[leaf] = value
    if len(parts) == 3 and parts[0] == "seats" and parts[1] in seat_keys and parts[2].isdigit():
        row = doc.get("seats", {}).get(parts[1], {}).get(parts[2])
        if row is not None:
            return row, None
        n = int(parts[2])
        setups = {s.nplayers: s for s in board.seats}
        if n not in setups:
            return None, f"the board has no set-up for {n} players ({', '.join(map(str, sorted(setups)))})"
        value = getattr(setups[n], parts[1])
        if not isinstance(value, tuple):  # a per-count reading (not one value per seat): as the file writes it
            return board.count_lever_word(n, parts[1]), None
        if parts[1] in ("extra_cats", "start_tokens"):
            return [{} for _ in value], None
        return list(value), None
    if parts and parts[0] == "seats" and (len(parts) != 3 or parts[1] not in seat_keys or not parts[2].isdigit()):
        return None, (f"a seat lever is searched as board.seats.KEY.PLAYERS, one list per player count "
                      f"(KEY: {', '.join(seat_keys)})")
    return _get_path(doc, parts)


def board_param(ck, key, raw, scenario, path):
    """A searchable key of the board file (``board.rulings.tie_break``, ``board.seats.start_points.3``):
    any value the board loader accepts, as a scenario override ``board.<table>.<key>`` sets it."""
    where = f'space."{key}"'
    parts = key.split(".")[1:]
    if len(parts) < 2:
        ck.fail(where, 'name a board table and key, e.g. "board.rulings.tie_break" or "board.seats.start_points.3"')
    base, reason = _board_base(scenario, parts)
    if reason:
        ck.fail(where, f"board: {reason}")
    if isinstance(base, dict):
        ck.fail(where, f"board.{'.'.join(parts)} is a table, not a value: name a value inside it")

    def probe(v):
        scenario_from_doc({**scenario.doc, "overrides": {**scenario.overrides, key: v}}, scenario.path)

    return _range_or_values(ck, where, raw, key, "board", f"board.{'.'.join(parts)}", base, probe)


def _range_or_values(ck, where, raw, key, owner, label, base, probe):
    """A :class:`Param` from a space entry (``{ range = [lo, hi] }`` or ``{ values = [...] }``) for a
    key whose current value is ``base`` (``label`` names it in errors); ``probe(value)`` raises a
    DataError when the game's loader refuses a value (every range end and listed value is probed)."""
    ck.table(raw, where, optional=("range", "values", "step"))
    if ("range" in raw) == ("values" in raw):
        ck.fail(where, "give exactly one of range = [lo, hi] or values = [...]")
    if "range" in raw:
        if not is_number(base):
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
                if not is_number(v):
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
            if type(v) is not type(base) and not (is_number(v) and is_number(base)):
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
    """What a setting module's ``set_path`` names in its errors: the variant."""
    return type("VariantName", (), {"name": f"variant {variant}"})()


def apply_switches(game, table, changes, file="space", key="space"):
    """A variant table (a scenario's ``[variants]`` entry) with ``changes`` applied: ``{switch:
    value}``, or ``{"switch.i": value}`` for one entry of a list switch (filled in from the game's
    data when the table does not write it, e.g. the token schedule of ``game.toml``)."""
    full = game.tunable(table)
    set_path = game.setting_module().set_path
    new = copy.deepcopy(dict(table))
    for k, v in dict(changes).items():
        head, _, rest = k.partition(".")
        if rest:
            new.setdefault(head, copy.deepcopy(full[head]))
            set_path(new, k.split("."), v, file, key, _owner("tuned"))
        else:
            new[head] = v
    return new


def switch_param(ck, key, raw, scenario, variant, players, path):
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
