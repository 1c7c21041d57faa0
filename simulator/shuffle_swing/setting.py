"""Shuffle and Swing's own scenario keys (its setting): which instrument sets the cells play, and
what-if changes to the data files. The keys every game shares (name, seed, games, players, lineup,
record, sequential) are checked once by the one scenario schema (``scenarios.scenario``), which hands
this module the rest through the game's registry entry (``Game.setting``)::

    wheel = "shuffled"                # optional: "shuffled" (default) or "fixed" wheel order
    max_rounds = 60                   # optional: safety cap on rounds (default from board.toml)
    instrument_dirs = ["my_instruments"]   # optional: extra instrument files (relative to the file)

    [instruments]                     # exactly one of sets / swaps / all
    sets = [["Violin", "Piano", "Horns"], ["Piano", "Bass", "Drums"]]   # any order within a set
    # swaps = "all"                   # the base set, then each other instrument of a department
    # swaps = ["orange", "gray"]      #   swapped into it, one department at a time (1 + 3 per dept)
    # base = ["Violin", "Piano", "Horns"]   # base set of swaps (default: the starter set)
    # all = true                      # every combination: 4 x 4 x 4 = 64 sets

    [overrides]                       # what-if changes to instrument data, applied before validation
    "Horns.section.trumpet.score.0.awards" = [7, 5, 2]

A setting is an instrument set (black, orange, gray): its columns ``inst_black``, ``inst_orange``,
``inst_gray``. In a scenario of several sets the deals are shared by every set of the same player
count and lineup (common random numbers), so the sets are compared on the same deals.

Override keys are ``Instrument.path.into.its.file``: a list of tables is indexed by position (``0``)
or by the ``id`` of its entry (``section.trumpet``, ``space.t4``). Unquoted dotted keys (nested
tables) mean the same. The instrument's loader validates the changed document, so a change the
kernel cannot play is refused with the reason. ``instrument.name`` and ``.department`` are fixed;
``board.<table>.<key>`` changes the board (e.g. the ruling switches of ``board.rulings``).

Only a :class:`simulator.validate.Checker`: every problem is a DataError naming the scenario file,
the key and the reason.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from simulator.errors import DataError
from simulator.setting_api import SettingRow, flatten_overrides, sha256_file
from simulator.setting_api import set_path as walk_set
from simulator.shuffle_swing.board import load_board
from simulator.shuffle_swing.instruments import instrument_from_doc
from simulator.shuffle_swing.layout import DEPT_NAMES
from simulator.shuffle_swing.library import STARTER, InstrumentLibrary
from simulator.validate import read_toml

WHEELS = {"shuffled": True, "fixed": False}
# The game's own top-level keys (after the shared ones) and those it requires.
KEYS = ("wheel", "max_rounds", "instrument_dirs", "instruments", "overrides")
REQUIRED = ("instruments",)
CELLS_KEY = "instruments"  # the key named when a scenario would hold too many cells
MAX_SETS = 10_000  # the most cells of a scenario (scenarios.spec.MAX_CELLS), checked before the sets are listed
# The order of the keys in the effective document (its text names the run) and in the manifest's
# settings: as they always were, so old runs keep their hashes.
EFFECTIVE = ("name", "description", "seed", "games", "players", "wheel", "max_rounds", "instrument_dirs",
             "strategy_dirs", "instruments", "lineup", "overrides", "record", "sequential")
SETTINGS = ("games", "seed", "players", "wheel", "max_rounds", "instrument_dirs", "strategy_dirs", "overrides", "set",
            "record")
SET_MODES = ("sets", "swaps", "all")
INSTRUMENT_KEYS = SET_MODES + ("base",)
FIXED_INSTRUMENT_KEYS = (("instrument", "name"), ("instrument", "department"))
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def cell_key(players, instruments, lineup):
    """The stable text naming a cell; its hash seeds the cell's deals."""
    b, o, g = instruments
    return f"players={players}|black={b}|orange={o}|gray={g}|lineup={','.join(lineup)}"


def setting_row(instruments, paired):
    """The setting of a cell playing ``instruments`` (black, orange, gray); ``paired``: its deals
    are shared with the other sets of the scenario."""
    words = "|".join(f"{d}={n}" for d, n in zip(DEPT_NAMES, instruments))
    return SettingRow(
        columns=tuple((f"inst_{d}", n) for d, n in zip(DEPT_NAMES, instruments)),
        key=words,
        deal="|".join(f"{d}=*" for d in DEPT_NAMES) if paired else words,
        fields=(("instruments", dict(zip(DEPT_NAMES, instruments))),),
        after=(("paired", paired),),
        attrs=(("instruments", tuple(instruments)), ("paired", paired)),
    )


@dataclass(frozen=True)
class CellSetup:
    """What a worker needs to set a cell of Shuffle and Swing up, with no file access: the board,
    the cell's three validated instruments (black, orange, gray), the wheel order and the round cap."""

    board: object
    instruments: tuple
    shuffle_wheels: bool
    max_rounds: int | None


class InstrumentView:
    """The instrument library with a scenario's changed instruments in place of the originals."""

    def __init__(self, library, changed=None, board=None):
        self.library = library
        self.board = board if board is not None else library.board
        self.changed = dict(changed or {})  # casefolded name -> Instrument

    def get(self, name):
        inst = self.library.get(name)
        return self.changed.get(inst.name.casefold(), inst)

    def original(self, name):
        return self.library.get(name)

    def by_department(self, department):
        return [self.changed.get(i.name.casefold(), i) for i in self.library.by_department(department)]

    def names(self):
        return self.library.names()

    def __contains__(self, name):
        return name in self.library




@dataclass
class InstrumentSetting:
    """The game's own keys of one scenario, validated (:func:`parse`)."""

    wheel: str
    max_rounds: int | None
    instrument_dirs: tuple  # resolved folders
    instrument_dirs_raw: list
    sets: tuple
    overrides: dict
    instruments: InstrumentView

    @property
    def board(self):
        return self.instruments.board

    @property
    def shuffle_wheels(self):
        return WHEELS[self.wheel]

    def rows(self):
        """One :class:`simulator.game_api.SettingRow` per instrument set."""
        return [setting_row(s, len(self.sets) > 1) for s in self.sets]

    def effective(self, doc):
        """The game's keys of the effective document (defaults filled in)."""
        out = {"wheel": self.wheel}
        if self.max_rounds is not None:
            out["max_rounds"] = self.max_rounds
        out["instrument_dirs"] = self.instrument_dirs_raw
        out["instruments"] = doc["instruments"]
        out["overrides"] = self.overrides
        return out

    def settings(self):
        """The game's keys of the manifest's settings."""
        return {"wheel": self.wheel, "max_rounds": self.max_rounds, "instrument_dirs": list(self.instrument_dirs),
                "overrides": dict(self.overrides)}

    def data_files(self, cells, strategies):
        """Paths and SHA-256 of the board and of every instrument and strategy file the cells use."""
        insts = sorted({n for c in cells for n in c.instruments})
        strats = sorted({s.partition(":")[0] for c in cells for s in c.lineup})
        board = self.board.path
        out = {"board": {"path": board, "sha256": sha256_file(board)}, "instruments": {}, "strategies": {}}
        for n in insts:
            p = self.instruments.original(n).path
            out["instruments"][n] = {"path": p, "sha256": sha256_file(p)}
        for n in strats:
            p = strategies.get(n).path
            out["strategies"][n] = {"path": p, "sha256": sha256_file(p)}
        fits = self.leaf_fits(cells, strategies)
        if fits:
            out["leaf_fits"] = fits
        held = self.held_leaves(cells, strategies)
        if held:
            out["leaves"] = held
        return out

    def held_leaves(self, cells, strategies):
        """The learned leaf of every seat whose search plays its leaf file's coefficients on every
        setting (``leaf_model`` without ``leaf_fit = "setting"``, as the strong gate's judge): per
        strategy and player count (``search_leaf_held 3p``), the leaf file (``path``) and the SHA-256
        of the coefficients it plays (``sha256``, ``coef_sha256``: as ``leaf_fit`` records a fit's)."""
        from simulator.shuffle_swing.layout import N_LEAF_FEAT, P_LEAF_COEF, P_LEAF_MODEL
        from simulator.shuffle_swing.leaf_fit import coef_sha256
        from simulator.shuffle_swing.strategies import leaf_file

        out = {}
        for c in cells:
            names = list(dict.fromkeys(c.lineup))
            for name, row in zip(names, strategies.matrix(names)):
                if row[P_LEAF_MODEL] != 1.0:
                    continue
                s = strategies.get(name)
                block = P_LEAF_COEF + (min(max(c.players, 2), 4) - 2) * N_LEAF_FEAT
                sha = coef_sha256(row[block : block + N_LEAF_FEAT])
                out[f"{s.name} {c.players}p"] = {"path": str(leaf_file(s.leaf_model)), "sha256": sha,
                                                 "coef_sha256": sha, "players": int(c.players)}
        return out

    def leaf_fits(self, cells, strategies):
        """The leaf fitted on each cell's setting for every seat whose search fits its leaf there
        (``leaf_fit = "setting"``, ``simulator.shuffle_swing.leaf_fit``): per instrument set, player
        count and strategy, the fit's key (the packed data's hash), the coefficients' SHA-256, its
        seed and games. The fits are made here (and kept for the run's games in this process)."""
        from simulator.shuffle_swing.chunk import cell_setup
        from simulator.shuffle_swing.leaf_fit import LEAF_ON_SETTING, setting_leaf
        from simulator.shuffle_swing.layout import P_LEAF_MODEL

        out = {}
        for c in cells:
            rows = strategies.matrix(list(dict.fromkeys(c.lineup)))
            names = list(dict.fromkeys(c.lineup))
            setup = None
            for name, row in zip(names, rows):
                if row[P_LEAF_MODEL] != LEAF_ON_SETTING:
                    continue
                label = f"{'/'.join(c.instruments)} {c.players}p {name}"
                if label in out:
                    continue
                if setup is None:
                    # The process keeps set-ups by key: the key names the data (overrides included), so
                    # two scenarios of one process with other numbers never share a set-up (or a fit).
                    data = json.dumps([self.overrides, [str(d) for d in self.instrument_dirs], self.shuffle_wheels,
                                       self.max_rounds, str(self.board.path)], sort_keys=True, default=str)
                    setup = cell_setup(self.packed(c), c.players, ("leaf_fits", c.players, c.setting.key, data))
                _, record = setting_leaf(setup.geo, c.players, row)
                out[label] = {k: v for k, v in record.items() if k != "fitted_now"}
        return out

    def packed(self, cell):
        """The cell's :class:`CellSetup`."""
        return CellSetup(self.board, tuple(self.instruments.get(n) for n in cell.instruments), self.shuffle_wheels,
                         self.max_rounds)


def prepare(doc):
    """A scenario document before ``--set``: overrides written as nested tables flattened."""
    if isinstance(doc.get("overrides"), dict):
        doc["overrides"] = flatten_overrides(doc["overrides"])


def apply_set(doc, key, value, path):
    """``--set KEY=VALUE`` of one of the game's own keys into ``doc``; returns whether it is one."""
    parts = key.split(".")
    top = parts[0]
    if top not in KEYS:
        return False
    if top == "overrides":
        if len(parts) < 3:
            raise DataError(path, key, "name an instrument and a key inside it, e.g. overrides.Horns.penalty_per_space")
        table = doc.setdefault("overrides", {})
        if not isinstance(table, dict):
            raise DataError(path, "overrides", "expected a table")
        table[".".join(parts[1:])] = value
        return True
    if top == "instruments" and len(parts) > 1:
        if parts[1] not in INSTRUMENT_KEYS or len(parts) > 2:
            if parts[1] not in INSTRUMENT_KEYS:
                raise DataError(path, key, f"unknown key '{parts[1]}' (known: {', '.join(INSTRUMENT_KEYS)})")
            raise DataError(path, key, f"'{parts[0]}.{parts[1]}' has no sub-keys")
        table = doc.get(top)
        if not isinstance(table, dict):
            table = doc[top] = {}
        if parts[1] in SET_MODES:
            # Choosing another way to list the sets replaces the file's choice.
            for m in SET_MODES:
                if m != parts[1]:
                    table.pop(m, None)
            if parts[1] != "swaps":
                table.pop("base", None)
        table[parts[1]] = value
        return True
    if len(parts) > 1:
        raise DataError(path, key, f"'{top}' has no sub-keys")
    if top == "instrument_dirs":
        # Folders given on the command line are relative to where the command runs, not to the
        # scenario file (which may be a shipped one inside the package).
        items = [value] if isinstance(value, str) else value
        if isinstance(items, list) and all(isinstance(d, str) and d.strip() for d in items):
            value = [str((Path.cwd() / d).resolve()) for d in items]
    doc[top] = value
    return True


def parse(ck, doc, game, common, path):
    """The game's own keys of a scenario document (the shared ones are in ``common``:
    ``scenarios.spec.Common``) -> an :class:`InstrumentSetting`."""
    wheel = ck.string(doc.get("wheel", "shuffled"), "wheel", choices=tuple(WHEELS))
    max_rounds = None
    if "max_rounds" in doc:
        max_rounds = ck.integer(doc["max_rounds"], "max_rounds", lo=1, hi=10_000)
    raw_dirs = doc.get("instrument_dirs", [])
    if isinstance(raw_dirs, str):
        raw_dirs = [raw_dirs]
    names = ck.str_list(raw_dirs, "instrument_dirs", what="folders")
    dirs = []
    for i, d in enumerate(names):
        p = (common.base_dir / d).resolve()
        if not p.is_dir():
            ck.fail(f"instrument_dirs[{i}]", f"folder not found: {p}")
        dirs.append(str(p))
    library = InstrumentLibrary(extra_dirs=tuple(dirs))
    raw_over = doc.get("overrides", {})
    if not isinstance(raw_over, dict):
        ck.fail("overrides", 'expected a table of "Instrument.key.path" = value')
    overrides = flatten_overrides(raw_over)
    board_over = {k: v for k, v in overrides.items() if k.partition(".")[0].casefold() == "board"}
    inst_over = {k: v for k, v in overrides.items() if k not in board_over}
    board = _board_overrides(board_over, library, path)
    view = InstrumentView(library, _apply_overrides(inst_over, library, path), board=board)
    sets = _instrument_sets(ck, doc["instruments"], view, path)
    return InstrumentSetting(wheel, max_rounds, tuple(dirs), list(raw_dirs), tuple(sets), overrides, view)


# --------------------------------------------------------------------------- instrument sets


def _wrap(path, key, exc):
    """Re-raise a library's DataError as one naming the scenario file and key."""
    return DataError(path, key, exc.reason)


def _instrument(view, name, path, key):
    try:
        return view.get(name)
    except DataError as exc:
        raise _wrap(path, key, exc) from None


def _normalise_set(ck, raw, view, path, key):
    """Three names in any order -> names in department order black, orange, gray."""
    if not isinstance(raw, list) or len(raw) != len(DEPT_NAMES):
        ck.fail(key, f"an instrument set names exactly {len(DEPT_NAMES)} instruments, one per department, got {raw!r}")
    slots = [None] * len(DEPT_NAMES)
    for j, n in enumerate(raw):
        ck.string(n, f"{key}[{j}]")
        inst = _instrument(view, n, path, f"{key}[{j}]")
        if slots[inst.department] is not None:
            ck.fail(
                key,
                f"{slots[inst.department].name} and {inst.name} are both {inst.department_name} instruments; "
                "a set needs one instrument per department",
            )
        slots[inst.department] = inst
    return tuple(i.name for i in slots)


def _instrument_sets(ck, raw, view, path):
    t = ck.table(raw, "instruments", optional=INSTRUMENT_KEYS)
    modes = [m for m in SET_MODES if m in t]
    if len(modes) != 1:
        got = f"; got {' and '.join(modes)}" if modes else ""
        ck.fail("instruments", f"choose exactly one of sets, swaps or all{got}")
    mode = modes[0]
    if "base" in t and mode != "swaps":
        ck.fail("instruments.base", "base is the starting set of swaps; it is not used with " + mode)

    if mode == "sets":
        if t["sets"] == []:
            ck.fail("instruments.sets", "no instrument sets, so the scenario has no cells")
        ck.array(t["sets"], "instruments.sets", min_len=1, what="instrument sets")
        out = []
        for i, s in enumerate(t["sets"]):
            norm = _normalise_set(ck, s, view, path, f"instruments.sets[{i}]")
            if norm in out:
                ck.fail(f"instruments.sets[{i}]", f"the set {'/'.join(norm)} is listed twice")
            out.append(norm)
        return out

    if mode == "all":
        if t["all"] is not True:
            ck.fail("instruments.all", "write all = true to play every combination (or use sets / swaps)")
        count = math.prod(len(view.by_department(d)) for d in range(len(DEPT_NAMES)))
        if count > MAX_SETS:  # counted before listing: many instrument folders make millions of sets
            ck.fail("instruments.all", f"would make {count:,} instrument sets; a scenario holds at most {MAX_SETS:,} "
                    "cells (each is a row of the manifest, a group of every table and a line of the report): "
                    "use swaps or a list of sets, or split it into several scenarios")
        return [
            tuple(i.name for i in combo)
            for combo in itertools.product(*(view.by_department(d) for d in range(len(DEPT_NAMES))))
        ]

    # swaps
    base = _normalise_set(ck, t["base"], view, path, "instruments.base") if "base" in t else STARTER
    raw_depts = t["swaps"]
    if raw_depts == "all":
        depts = list(DEPT_NAMES)
    elif isinstance(raw_depts, str):
        ck.fail("instruments.swaps", f'expected "all" or a list of departments ({", ".join(DEPT_NAMES)})')
    else:
        depts = list(ck.str_list(raw_depts, "instruments.swaps", min_len=1, what="departments"))
        for i, d in enumerate(depts):
            ck.string(d, f"instruments.swaps[{i}]", choices=DEPT_NAMES)
    out = [tuple(base)]
    for dn in depts:
        d = DEPT_NAMES.index(dn)
        for inst in view.by_department(d):
            if inst.name == base[d]:
                continue
            s = list(base)
            s[d] = inst.name
            out.append(tuple(s))
    return out


# --------------------------------------------------------------------------- overrides


def _override_key(key):
    key = str(key)
    return f"overrides.{key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)}"


def set_path(doc, parts, value, path, key, inst):
    """Set ``doc[parts...] = value`` (:func:`simulator.setting_api.set_path`), refusing the keys that
    identify an instrument."""
    if tuple(parts[:2]) in FIXED_INSTRUMENT_KEYS and len(parts) == 2:
        raise DataError(path, key, f"'{'.'.join(parts)}' cannot be overridden (it identifies the instrument)")
    walk_set(doc, parts, value, path, key, inst)


def _board_overrides(overrides, library, path):
    """The board with ``board.<table>.<key>`` overrides applied (e.g. the ruling switches of
    ``board.rulings``), validated by the board loader; None when there are none."""
    if not overrides:
        return None
    doc = copy.deepcopy(read_toml(library.board.path))
    for key, value in overrides.items():
        parts = key.split(".")[1:]
        if len(parts) < 2:
            raise DataError(path, _override_key(key), 'name a board table and key, e.g. "board.rulings.pri_piece_credit"')
        cur = doc
        for part in parts[:-1]:
            cur = cur.setdefault(part, {})
            if not isinstance(cur, dict):
                raise DataError(path, _override_key(key), f"board key '{part}' is not a table")
        cur[parts[-1]] = value
    try:
        return load_board(library.board.path, doc)
    except DataError as exc:
        where = _override_key(next(iter(overrides))) if len(overrides) == 1 else "overrides"
        raise DataError(path, where, f"the changed board is invalid: {exc.key}: {exc.reason}") from None


def _apply_overrides(overrides, library, path):
    """Changed instruments (casefolded name -> Instrument), each validated by the instrument loader."""
    docs, keys = {}, {}
    for key, value in overrides.items():
        okey = _override_key(key)
        name, _, rest = key.partition(".")
        if not rest:
            raise DataError(
                path, okey, 'name an instrument and a key path inside it, e.g. "Horns.section.trumpet.score.0.awards"'
            )
        try:
            inst = library.get(name)
        except DataError as exc:
            raise _wrap(path, okey, exc) from None
        if inst.name not in docs:
            docs[inst.name] = (inst, copy.deepcopy(read_toml(inst.path)))
        if rest.split(".")[0] == "track":
            # A file may leave out the brag track (the board's applies): fill in the effective rows
            # so that one entry of a row (``Horns.track.vp.3``) can be changed like any other key.
            track = docs[inst.name][1].setdefault("track", {})
            if isinstance(track, dict):
                for row, vals in (("need", inst.track_need), ("vp", inst.track_vp), ("token", inst.track_token)):
                    track.setdefault(row, list(vals))
        set_path(docs[inst.name][1], rest.split("."), value, path, okey, inst)
        keys.setdefault(inst.name, []).append(okey)
    changed = {}
    for name, (inst, doc) in docs.items():
        source = f"{inst.path} (with overrides from {path})"
        try:
            new = instrument_from_doc(doc, source, library.board)
        except DataError as exc:
            where = keys[name][0] if len(keys[name]) == 1 else "overrides"
            raise DataError(path, where, f"the changed {name} is invalid: {exc.key}: {exc.reason}") from None
        changed[inst.name.casefold()] = new
    return changed
