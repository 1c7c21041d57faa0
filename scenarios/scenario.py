"""Scenario files: what to play, validated and expanded into cells.

A scenario is a TOML file. A *cell* is one player count x one instrument set x one lineup; every
cell is played for ``games`` games (paired design, see :mod:`simulator.seeds`)::

    name = "starter"                  # required: names the run (default output folder results/<name>)
    description = "..."               # optional
    seed = 1                          # required: run seed, 0 .. 2**63-1
    games = 2000                      # required: games per cell, rounded up to whole deals (every
                                      #   deal is played in each distinct seat rotation of the lineup;
                                      #   a mirror lineup has one)
    players = [2, 3, 4]               # required: player counts (a single integer is fine)
    wheel = "shuffled"                # optional: "shuffled" (default) or "fixed" wheel order
    max_rounds = 60                   # optional: safety cap on rounds (default from board.toml)
    instrument_dirs = ["my_instruments"]   # optional: extra instrument files (relative to this file)
    strategy_dirs = ["my_strategies"]      # optional: extra strategy profiles
    record = ["lead"]                 # optional: the per-round lead record (``scenarios.record``)

    [instruments]                     # exactly one of sets / swaps / all
    sets = [["Violin", "Piano", "Horns"], ["Piano", "Bass", "Drums"]]   # any order within a set
    # swaps = "all"                   # the base set, then each other instrument of a department
    # swaps = ["orange", "gray"]      #   swapped into it, one department at a time (1 + 3 per dept)
    # base = ["Violin", "Piano", "Horns"]   # base set of swaps (default: the starter set)
    # all = true                      # every combination: 4 x 4 x 4 = 64 sets

    [lineup]                          # one or more of mirror / seats / round_robin (their union)
    mirror = "greedy"                 # the same strategy in every seat (or a list: one lineup each)
    seats = ["greedy", "random", "random", "random"]   # one lineup (length = player count) ...
    # seats = [["greedy", "random"], ["random", "greedy"]]   # ... or several
    # seats = { 2 = ["greedy", "random"], 4 = [["greedy", "random", "random", "random"]] }
    #                                 #   per player count
    round_robin = { pool = ["greedy", "random", "specialist:orange"], mix = "all", mirrors = false }
    max_games = { lookahead = 1500 }  # optional: games per cell at most, for lineups holding a costly
                                      #   strategy (a slow judge level beside a fast one); min over
                                      #   the lineup's strategies, never more than ``games``

    [overrides]                       # what-if changes to instrument data, applied before validation
    "Horns.section.trumpet.score.0.awards" = [7, 5, 2]

Round robin: ``mix = "all"`` (default) plays every multiset of ``players`` strategies from the pool
that uses at least two different ones (at 2 players: every pair); ``mix = "pairs"`` only those made of
exactly two strategies (head-to-head at every player count: A,A,A,B / A,A,B,B / A,B,B,B at 4
players); ``mirrors = true`` adds each pool strategy against itself. Seats are filled in pool order
(A,A,B,B) and the paired design rotates that order over the seats, so A,B,A,B is a different lineup.
Strategy names may carry a focus suffix (``specialist:orange``).

Override keys are ``Instrument.path.into.its.file``: a list of tables is indexed by position (``0``)
or by the ``id`` of its entry (``section.trumpet``, ``space.t4``). Unquoted dotted keys (nested
tables) mean the same. The instrument's loader validates the changed document, so a change the
kernel cannot play is refused with the reason. ``instrument.name`` and ``.department`` are fixed.

Every problem raises :class:`simulator.errors.DataError` naming the scenario file, the key and the
reason. ``--set KEY=VALUE`` on the command line (``sets=`` here) changes a key before validation;
VALUE is read as TOML (``players=[2,4]``, ``wheel=fixed``, ``overrides.Horns.instrument.penalty_per_space=3``).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

from scenarios.canonical import to_toml, toml_key
from scenarios.schema import result_columns
from scenarios.spec import (
    MAX_GAMES,
    LineupCell,
    check_cell_count,
    folders,
    lineup_period,
    parse_common,
    parse_set,
    set_shared_key,
    set_table_key,
)
from scenarios.worker import CellSpec
from simulator import games as registry
from simulator.errors import DataError
from simulator.provenance import sha256_file
from simulator.shuffle_swing.library import STARTER, InstrumentLibrary
from simulator.validate import Checker, read_toml
from simulator.shuffle_swing.instruments import instrument_from_doc
from simulator.shuffle_swing.board import load_board
from simulator.shuffle_swing.game import GAME as DECLARED
from simulator.shuffle_swing.layout import DEPT_NAMES


GAME = DECLARED.name  # the game whose scenarios this schema reads (its Game.scenario_keys: "instruments")
WHEELS = {"shuffled": True, "fixed": False}

TOP_KEYS = (
    "name",
    "description",
    "seed",
    "games",
    "players",
    "wheel",
    "max_rounds",
    "instrument_dirs",
    "strategy_dirs",
    "instruments",
    "lineup",
    "overrides",
    "record",
    "sequential",
)
REQUIRED_KEYS = ("name", "seed", "games", "players", "instruments", "lineup")
SET_MODES = ("sets", "swaps", "all")
INSTRUMENT_KEYS = SET_MODES + ("base",)
FIXED_INSTRUMENT_KEYS = (("instrument", "name"), ("instrument", "department"))


def cell_key(players, instruments, lineup):
    """The stable text naming a cell; its hash seeds the cell's deals."""
    b, o, g = instruments
    return f"players={players}|black={b}|orange={o}|gray={g}|lineup={','.join(lineup)}"


@dataclass(frozen=True)
class Cell(LineupCell):
    """One player count x one instrument set (black, orange, gray) x one lineup (before rotation)."""

    index: int
    players: int
    instruments: tuple
    lineup: tuple
    deals: int
    # True in a scenario of several instrument sets: the deals are shared by every set of the same
    # player count and lineup (common random numbers), so instruments are compared on the same deals.
    paired: bool = False

    @property
    def key(self):
        return cell_key(self.players, self.instruments, self.lineup)

    @property
    def deal_key(self):
        """The text whose hash seeds the cell's deals: the cell key, without the instruments when paired."""
        if self.paired:
            return cell_key(self.players, ("*", "*", "*"), self.lineup)
        return self.key

    def as_dict(self):
        return {
            "cell": self.index,
            "cell_key": self.key,
            "players": self.players,
            "instruments": dict(zip(DEPT_NAMES, self.instruments)),
            "lineup": list(self.lineup),
            "deals": self.deals,
            "paired": self.paired,
            "rotations": self.rotations,
            "games": self.games,
        }


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
class Scenario:
    """A validated scenario: its effective document, canonical text and the cells it expands to."""

    path: str
    doc: dict
    text: str
    sha256: str
    name: str
    description: str
    seed: int
    games: int
    players: tuple
    wheel: str
    max_rounds: int | None
    instrument_dirs: tuple
    strategy_dirs: tuple
    sets: tuple
    lineups: dict
    overrides: dict
    cells: tuple
    instruments: InstrumentView = field(repr=False)
    strategies: object = field(repr=False)  # the game's strategy library
    set_args: tuple = ()
    record: tuple = ()  # what the run records beyond its tables (``scenarios.record``)
    sequential: object = None  # scenarios.sequential.SequentialPlan of a [sequential] scenario

    @property
    def board(self):
        return self.instruments.board

    @property
    def shuffle_wheels(self):
        return WHEELS[self.wheel]

    @property
    def total_games(self):
        return sum(c.games for c in self.cells)

    def strategy_rows(self, lineup):
        """The kernel's strategy matrix for a lineup, one row per seat."""
        return self.strategies.matrix(lineup)

    @property
    def game(self):
        """The registered game this schema is for."""
        return GAME

    def columns(self):
        """The columns of the run's tables, as the manifest records them (``scenarios.schema``)."""
        return result_columns(registry.get(GAME))

    def data_files(self):
        """Paths and SHA-256 of the board and of every instrument and strategy file the cells use."""
        insts = sorted({n for c in self.cells for n in c.instruments})
        strats = sorted({s.partition(":")[0] for c in self.cells for s in c.lineup})
        board = self.board.path
        out = {"board": {"path": board, "sha256": sha256_file(board)}, "instruments": {}, "strategies": {}}
        for n in insts:
            p = self.instruments.original(n).path
            out["instruments"][n] = {"path": p, "sha256": sha256_file(p)}
        for n in strats:
            p = self.strategies.get(n).path
            out["strategies"][n] = {"path": p, "sha256": sha256_file(p)}
        return out

    def cell_specs(self, run_id="adhoc"):
        """Cell index -> :class:`scenarios.worker.CellSpec`: what a worker needs to play the cell."""
        return {
            cell.index: CellSpec(
                run_id=run_id,
                cell=cell,
                board=self.board,
                instruments=tuple(self.instruments.get(n) for n in cell.instruments),
                shuffle_wheels=self.shuffle_wheels,
                max_rounds=self.max_rounds,
                strategy_rows=self.strategy_rows(cell.lineup),
                record=self.record,
            )
            for cell in self.cells
        }

    def settings(self):
        """The effective settings, as recorded in the manifest."""
        return {
            "games": self.games,
            "seed": self.seed,
            "players": list(self.players),
            "wheel": self.wheel,
            "max_rounds": self.max_rounds,
            "instrument_dirs": list(self.instrument_dirs),
            "strategy_dirs": list(self.strategy_dirs),
            "overrides": dict(self.overrides),
            "set": list(self.set_args),
            **({"record": list(self.record)} if self.record else {}),
        }


# =========================================================================== loading


def instrument_scenario_from_doc(doc, path, sets=(), games=None, seed=None):
    """Validate an already-parsed Shuffle and Swing scenario document; ``path`` names it in errors
    and anchors its dirs. (Every scenario comes through :func:`scenarios.load.scenario_from_doc`.)"""
    if isinstance(doc, dict) and "game" in doc:
        doc = {k: v for k, v in doc.items() if k != "game"}  # the default game, named explicitly
    doc = copy.deepcopy(doc)
    path = str(path)
    set_args = tuple(sets)
    if isinstance(doc.get("overrides"), dict):
        doc["overrides"] = flatten_overrides(doc["overrides"])
    for item in set_args:
        key, value = parse_set(item, path)
        apply_set(doc, key, value, path)
    if games is not None:
        apply_set(doc, "games", games, path)
        set_args += (f"games={games}",)
    if seed is not None:
        apply_set(doc, "seed", seed, path)
        set_args += (f"seed={seed}",)
    return _validate(doc, path, set_args)


# =========================================================================== --set


def apply_set(doc, key, value, path):
    """Change one key of a scenario document in place; unknown keys raise DataError."""
    parts = key.split(".")
    top = parts[0]
    if top not in TOP_KEYS:
        raise DataError(path, key, f"unknown scenario key (known: {', '.join(TOP_KEYS)})")
    if set_shared_key(doc, key, value, path):  # name, seed, games, players, lineup, sequential, ...
        return
    if top == "overrides":
        if len(parts) < 3:
            raise DataError(path, key, "name an instrument and a key inside it, e.g. overrides.Horns.penalty_per_space")
        table = doc.setdefault("overrides", {})
        if not isinstance(table, dict):
            raise DataError(path, "overrides", "expected a table")
        table[".".join(parts[1:])] = value
        return
    if top == "instruments" and len(parts) > 1:
        allowed = INSTRUMENT_KEYS
        if parts[1] not in allowed:
            raise DataError(path, key, f"unknown key '{parts[1]}' (known: {', '.join(allowed)})")
        table = doc.get(top)
        if not isinstance(table, dict):
            table = doc[top] = {}
        if top == "instruments" and parts[1] in SET_MODES:
            # Choosing another way to list the sets replaces the file's choice.
            for m in SET_MODES:
                if m != parts[1]:
                    table.pop(m, None)
            if parts[1] != "swaps":
                table.pop("base", None)
        set_table_key(doc, parts, key, value, path)
        return
    if len(parts) > 1:
        raise DataError(path, key, f"'{top}' has no sub-keys")
    if top == "instrument_dirs":
        # Folders given on the command line are relative to where the command runs, not to the
        # scenario file (which may be a shipped one inside the package).
        items = [value] if isinstance(value, str) else value
        if isinstance(items, list) and all(isinstance(d, str) and d.strip() for d in items):
            value = [str((Path.cwd() / d).resolve()) for d in items]
    doc[top] = value


# =========================================================================== validation


def _wrap(path, key, exc):
    """Re-raise a library's DataError as one naming the scenario file and key."""
    return DataError(path, key, exc.reason)


def _validate(doc, path, set_args):
    ck = Checker(path)
    ck.table(doc, "", required=REQUIRED_KEYS, optional=TOP_KEYS)

    common = parse_common(ck, doc, DECLARED, path)
    name, description, seed, games, players = common.name, common.description, common.seed, common.games, common.players
    wheel = ck.string(doc.get("wheel", "shuffled"), "wheel", choices=tuple(WHEELS))
    max_rounds = None
    if "max_rounds" in doc:
        max_rounds = ck.integer(doc["max_rounds"], "max_rounds", lo=1, hi=10_000)

    inst_raw, inst_dirs = folders(ck, doc, "instrument_dirs", common.base_dir)
    dirs = {"instrument_dirs": inst_dirs, "strategy_dirs": common.strategy_dirs}
    library = InstrumentLibrary(extra_dirs=dirs["instrument_dirs"])
    strategies = common.strategies

    raw_over = doc.get("overrides", {})
    if not isinstance(raw_over, dict):
        ck.fail("overrides", 'expected a table of "Instrument.key.path" = value')
    overrides = flatten_overrides(raw_over)
    board_over = {k: v for k, v in overrides.items() if k.partition(".")[0].casefold() == "board"}
    inst_over = {k: v for k, v in overrides.items() if k not in board_over}
    board = _board_overrides(board_over, library, path)
    view = InstrumentView(library, _apply_overrides(inst_over, library, path), board=board)

    sets = _instrument_sets(ck, doc["instruments"], view, path)
    lineups = common.lineups
    record = common.record
    check_cell_count(ck, len(sets) * sum(len(lineups[n]) for n in players), "instruments")
    cells = []
    for n in players:
        for s in sets:
            for lineup in lineups[n]:
                cell_games = common.cell_games(lineup)
                deals = math.ceil(cell_games / lineup_period(lineup))
                cells.append(Cell(len(cells), n, s, lineup, deals, paired=len(sets) > 1))
    if not cells:
        ck.fail("", "the scenario has no cells")
    from scenarios.sequential import parse_sequential

    sequential = parse_sequential(ck, doc.get("sequential"), cells, MAX_GAMES)

    # The effective document, defaults filled in; its text identifies the run.
    eff = {
        "name": name,
        "description": description,
        "seed": seed,
        "games": games,
        "players": list(players),
        "wheel": wheel,
    }
    if max_rounds is not None:
        eff["max_rounds"] = max_rounds
    eff["instrument_dirs"] = inst_raw
    eff["strategy_dirs"] = common.strategy_dirs_raw
    eff["instruments"] = doc["instruments"]
    eff["lineup"] = doc["lineup"]
    eff["overrides"] = overrides
    if record:
        eff["record"] = list(record)
    if sequential is not None:
        eff["sequential"] = sequential.as_doc()
    text = to_toml(eff)
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()

    return Scenario(
        path=path,
        doc=eff,
        text=text,
        sha256=sha,
        name=name,
        description=description,
        seed=seed,
        games=games,
        players=players,
        wheel=wheel,
        max_rounds=max_rounds,
        instrument_dirs=dirs["instrument_dirs"],
        strategy_dirs=dirs["strategy_dirs"],
        sets=tuple(sets),
        lineups={n: tuple(v) for n, v in lineups.items()},
        overrides=overrides,
        cells=tuple(cells),
        instruments=view,
        strategies=strategies,
        set_args=set_args,
        record=record,
        sequential=sequential,
    )


# --------------------------------------------------------------------------- instrument sets


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


# --------------------------------------------------------------------------- lineups


# --------------------------------------------------------------------------- overrides


def flatten_overrides(table, prefix=""):
    """``{"Horns": {"section": {...}}}`` and ``{"Horns.section...": v}`` -> flat dotted keys."""
    out = {}
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            out.update(flatten_overrides(v, key))
        else:
            out[key] = v
    return out


def _override_key(key):
    return f"overrides.{toml_key(key)}"


def set_path(doc, parts, value, path, key, inst):
    """Set ``doc[parts...] = value``; a list of tables is indexed by position or by entry id."""
    if tuple(parts[:2]) in FIXED_INSTRUMENT_KEYS and len(parts) == 2:
        raise DataError(path, key, f"'{'.'.join(parts)}' cannot be overridden (it identifies the instrument)")
    cur = doc
    walked = inst.name
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(cur, dict):
            if last:
                cur[part] = value
                return
            if part not in cur:
                known = ", ".join(cur) or "none"
                raise DataError(path, key, f"{walked} has no key '{part}' (keys: {known})")
            nxt = cur[part]
        elif isinstance(cur, list):
            idx = None
            if part.lstrip("-").isdigit():
                idx = int(part)
                if not 0 <= idx < len(cur):
                    raise DataError(path, key, f"{walked} has {len(cur)} entries; index {idx} is out of range")
            else:
                ids = [e.get("id") for e in cur if isinstance(e, dict)]
                for j, e in enumerate(cur):
                    if isinstance(e, dict) and e.get("id") == part:
                        idx = j
                        break
                if idx is None:
                    known = ", ".join(str(x) for x in ids if x is not None) or "none"
                    raise DataError(path, key, f"{walked} has no entry with id '{part}' (ids: {known})")
            if last:
                cur[idx] = value
                return
            nxt = cur[idx]
        else:
            raise DataError(path, key, f"{walked} is a value, not a table or list; cannot go into '{part}'")
        cur = nxt
        walked = f"{walked}.{part}"


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
