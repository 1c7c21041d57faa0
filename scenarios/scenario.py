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
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from scenarios.canonical import to_toml, toml_key
from simulator.errors import DataError
from simulator.shuffle_swing.library import STARTER, InstrumentLibrary
from simulator.validate import Checker, read_toml
from simulator.shuffle_swing.instruments import instrument_from_doc
from simulator.shuffle_swing.board import load_board
from simulator.shuffle_swing.layout import DEPT_NAMES
from simulator.shuffle_swing.playout import PLAYER_COUNTS
from strategies.library import StrategyLibrary

SCENARIO_DIR = Path(__file__).resolve().parent

WHEELS = {"shuffled": True, "fixed": False}
MAX_GAMES = 1_000_000_000
MAX_SEED = 2**63 - 1  # TOML integers are signed 64-bit

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
)
REQUIRED_KEYS = ("name", "seed", "games", "players", "instruments", "lineup")
SET_MODES = ("sets", "swaps", "all")
INSTRUMENT_KEYS = SET_MODES + ("base",)
LINEUP_KEYS = ("mirror", "seats", "round_robin", "max_games")
ROUND_ROBIN_KEYS = ("pool", "mix", "mirrors")
MIXES = ("all", "pairs")
FIXED_INSTRUMENT_KEYS = (("instrument", "name"), ("instrument", "department"))
# A scenario's name is the folder of its results (results/<name>): one plain path component.
SCENARIO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")


def check_scenario_name(ck, value, key="name"):
    """The scenario name as one folder name: letters, digits, '.', '_' and '-', starting with a letter
    or digit, at most 80 characters; so ``results/<name>`` never leaves ``results/``."""
    name = ck.string(value, key).strip()
    if not SCENARIO_NAME.fullmatch(name) or ".." in name:
        ck.fail(
            key,
            f"{name!r} cannot name a results folder: use letters, digits, '.', '_' and '-' (starting with a "
            "letter or digit, no '..', at most 80 characters); choose where results go with --out",
        )
    return name


def cell_key(players, instruments, lineup):
    """The stable text naming a cell; its hash seeds the cell's deals."""
    b, o, g = instruments
    return f"players={players}|black={b}|orange={o}|gray={g}|lineup={','.join(lineup)}"


def lineup_period(lineup):
    """Smallest shift k > 0 that maps the lineup onto itself; shifts 0..k-1 are the distinct rotations."""
    n = len(lineup)
    for k in range(1, n + 1):
        if all(lineup[(s - k) % n] == lineup[s] for s in range(n)):
            return k
    return n


class LineupCell:
    """What every game's cell derives from its ``lineup`` and ``deals`` (``scenarios.generic``'s
    cells too): its seat rotations and its game count."""

    @property
    def rotations(self):
        """Distinct cyclic rotations of the lineup over the seats: a mirror lineup has one (its
        rotations would replay the same game), (A, B, A, B) two, (A, B, B, B) four."""
        return lineup_period(self.lineup)

    @property
    def games(self):
        return self.deals * self.rotations


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
    strategies: StrategyLibrary = field(repr=False)
    set_args: tuple = ()

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
        }


# =========================================================================== finding and loading


def shipped_scenarios():
    """Names of the scenario files that come with the package."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def find_shipped_file(name_or_path, folder, shipped_names, what):
    """A TOML file by path, or by the name of one shipped in ``folder`` (``starter`` ->
    ``folder/starter.toml``); ``shipped_names()`` lists those for the error, ``what`` names the kind
    of file (shared by scenarios and tuning files)."""
    p = Path(name_or_path)
    if p.is_file():
        return p
    if p.is_dir():
        raise DataError(p, "", f"is a directory, expected a {what} TOML file")
    shipped = Path(folder) / (p.name if p.suffix == ".toml" else f"{p.name}.toml")
    if p.parent == Path(".") and shipped.is_file():
        return shipped
    return None


def find_scenario(name_or_path):
    """A scenario file by path, or by the name of a shipped one (``starter`` -> scenarios/starter.toml)."""
    found = find_shipped_file(name_or_path, SCENARIO_DIR, shipped_scenarios, "scenario")
    if found is None:
        raise DataError(Path(name_or_path), "",
                        f"scenario file not found (shipped scenarios: {', '.join(shipped_scenarios())})")
    return found


def load_scenario(path, sets=(), games=None, seed=None):
    """Read, change (``sets``: ``KEY=VALUE`` strings; ``games``, ``seed``), validate and expand a scenario."""
    path = find_scenario(path)
    doc = read_toml(path)
    return scenario_from_doc(doc, path, sets=sets, games=games, seed=seed)


def scenario_from_doc(doc, path, sets=(), games=None, seed=None):
    """Validate an already-parsed scenario document; ``path`` names it in errors and anchors its dirs.

    A document naming another registered game (``game = "echidna"``) is that game's scenario
    (``scenarios.generic``)."""
    from scenarios.generic import game_scenario_from_doc, is_generic

    if is_generic(doc):
        return game_scenario_from_doc(doc, path, sets=sets, games=games, seed=seed)
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


def parse_value(text):
    """A ``--set`` value: TOML if it parses as one (``4``, ``[2, 3]``, ``true``, ``"x"``), else the text."""
    if not isinstance(text, str):
        return text
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_set(item, path="--set"):
    """``"KEY=VALUE"`` -> (key, parsed value)."""
    key, sep, value = str(item).partition("=")
    key = key.strip()
    if not sep or not key:
        raise DataError(path, str(item), "expected KEY=VALUE (for example games=500 or wheel=fixed)")
    return key, parse_value(value.strip())


def apply_set(doc, key, value, path):
    """Change one key of a scenario document in place; unknown keys raise DataError."""
    parts = key.split(".")
    top = parts[0]
    if top not in TOP_KEYS:
        raise DataError(path, key, f"unknown scenario key (known: {', '.join(TOP_KEYS)})")
    if top == "overrides":
        if len(parts) < 3:
            raise DataError(path, key, "name an instrument and a key inside it, e.g. overrides.Horns.penalty_per_space")
        table = doc.setdefault("overrides", {})
        if not isinstance(table, dict):
            raise DataError(path, "overrides", "expected a table")
        table[".".join(parts[1:])] = value
        return
    if top in ("instruments", "lineup") and len(parts) > 1:
        allowed = INSTRUMENT_KEYS if top == "instruments" else LINEUP_KEYS
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
        if len(parts) > 2 and parts[1] != "round_robin":
            raise DataError(path, key, f"'{top}.{parts[1]}' has no sub-keys")
        for p in parts[1:-1]:
            sub = table.get(p)
            if not isinstance(sub, dict):
                sub = table[p] = {}
            table = sub
        if len(parts) == 3 and parts[2] not in ROUND_ROBIN_KEYS:
            raise DataError(path, key, f"unknown key '{parts[2]}' (known: {', '.join(ROUND_ROBIN_KEYS)})")
        table[parts[-1]] = value
        return
    if len(parts) > 1:
        raise DataError(path, key, f"'{top}' has no sub-keys")
    if top in ("instrument_dirs", "strategy_dirs"):
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

    name = check_scenario_name(ck, doc["name"])
    description = doc.get("description", "")
    if not isinstance(description, str):
        ck.fail("description", "expected a string")
    seed = ck.integer(doc["seed"], "seed", lo=0, hi=MAX_SEED)
    games = ck.integer(doc["games"], "games", lo=1, hi=MAX_GAMES)
    raw_players = doc["players"]
    if isinstance(raw_players, int) and not isinstance(raw_players, bool):
        raw_players = [raw_players]
    if raw_players == []:
        ck.fail("players", "no player counts, so the scenario has no cells (give some of 2, 3, 4)")
    players = ck.int_list(raw_players, "players", min_len=1)
    for i, n in enumerate(players):
        if n not in PLAYER_COUNTS:
            ck.fail(f"players[{i}]", f"{n} players is not supported (2, 3 or 4)")
    if len(set(players)) != len(players):
        ck.fail("players", "a player count is listed twice")
    wheel = ck.string(doc.get("wheel", "shuffled"), "wheel", choices=tuple(WHEELS))
    max_rounds = None
    if "max_rounds" in doc:
        max_rounds = ck.integer(doc["max_rounds"], "max_rounds", lo=1, hi=10_000)

    base_dir = Path(path).resolve().parent
    dirs = {}
    for key in ("instrument_dirs", "strategy_dirs"):
        raw = doc.get(key, [])
        if isinstance(raw, str):
            raw = [raw]
        names = ck.str_list(raw, key, what="folders")
        resolved = []
        for i, d in enumerate(names):
            p = (base_dir / d).resolve()
            if not p.exists():
                ck.fail(f"{key}[{i}]", f"folder not found: {p}")
            resolved.append(str(p))
        dirs[key] = tuple(resolved)

    library = InstrumentLibrary(extra_dirs=dirs["instrument_dirs"])
    strategies = StrategyLibrary(extra_dirs=dirs["strategy_dirs"])

    raw_over = doc.get("overrides", {})
    if not isinstance(raw_over, dict):
        ck.fail("overrides", 'expected a table of "Instrument.key.path" = value')
    overrides = flatten_overrides(raw_over)
    board_over = {k: v for k, v in overrides.items() if k.partition(".")[0].casefold() == "board"}
    inst_over = {k: v for k, v in overrides.items() if k not in board_over}
    board = _board_overrides(board_over, library, path)
    view = InstrumentView(library, _apply_overrides(inst_over, library, path), board=board)

    sets = _instrument_sets(ck, doc["instruments"], view, path)
    lineups = _lineups(ck, doc["lineup"], players, strategies, path)

    caps = _max_games(ck, doc["lineup"], strategies, path)
    cells = []
    for n in players:
        for s in sets:
            for lineup in lineups[n]:
                cell_games = min([games] + [caps[x] for x in set(lineup) if x in caps])
                deals = math.ceil(cell_games / lineup_period(lineup))
                cells.append(Cell(len(cells), n, s, lineup, deals, paired=len(sets) > 1))
    if not cells:
        ck.fail("", "the scenario has no cells")

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
    for key in ("instrument_dirs", "strategy_dirs"):
        raw = doc.get(key, [])
        eff[key] = [raw] if isinstance(raw, str) else list(raw)
    eff["instruments"] = doc["instruments"]
    eff["lineup"] = doc["lineup"]
    eff["overrides"] = overrides
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


def _strategy(lib, name, path, key):
    """Canonical spelling of a strategy name (``Greedy`` -> ``greedy``, ``spec:Orange`` -> ``spec:orange``)."""
    if not isinstance(name, str) or not name.strip():
        raise DataError(path, key, f"expected a strategy name, got {name!r}")
    try:
        s = lib.get(name.strip())
    except DataError as exc:
        raise DataError(path, key, f"'{name}': {exc.reason}") from None
    _, _, focus = name.strip().partition(":")
    return s.name + (f":{focus.strip().lower()}" if focus else "")


def _lineup_list(ck, raw, key):
    """One lineup (a list of names) or several (a list of lists) -> list of (key, names)."""
    if not isinstance(raw, list) or not raw:
        ck.fail(key, "expected a list of strategy names (one lineup) or a list of such lists")
    if all(isinstance(x, str) for x in raw):
        return [(key, raw)]
    out = []
    for i, x in enumerate(raw):
        if not isinstance(x, list) or not x:
            ck.fail(f"{key}[{i}]", f"expected a list of strategy names, got {x!r}")
        out.append((f"{key}[{i}]", x))
    return out


def _check_length(ck, key, names, n, hint=""):
    if len(names) != n:
        ck.fail(key, f"a lineup for {n} players needs {n} strategies, one per seat, got {len(names)}{hint}")


def round_robin(pool, n, mix="all", mirrors=False):
    """Lineups of ``n`` seats drawn from ``pool`` (see the module docstring)."""
    out = [(s,) * n for s in pool] if mirrors else []
    for combo in itertools.combinations_with_replacement(pool, n):
        kinds = len(set(combo))
        if kinds == 1:
            continue
        if mix == "pairs" and kinds != 2:
            continue
        out.append(tuple(combo))
    if mix == "pairs":
        # Group by pair: A,A,A,B / A,A,B,B / A,B,B,B, then the next pair.
        order = {s: i for i, s in enumerate(pool)}
        head = out[: len(pool) if mirrors else 0]
        rest = out[len(head) :]
        rest.sort(key=lambda c: (sorted({order[s] for s in c}), -c.count(c[0])))
        out = head + rest
    return out


def _max_games(ck, raw, lib, path):
    """``lineup.max_games``: strategy name -> most games per cell of a lineup holding it."""
    t = raw.get("max_games", {}) if isinstance(raw, dict) else {}
    if not isinstance(t, dict):
        ck.fail("lineup.max_games", "expected a table of strategy = games, e.g. { lookahead = 1500 }")
    return {
        _strategy(lib, name, path, f"lineup.max_games.{name}"): ck.integer(v, f"lineup.max_games.{name}", lo=1, hi=MAX_GAMES)
        for name, v in t.items()
    }


def _lineups(ck, raw, players, lib, path):
    t = ck.table(raw, "lineup", optional=LINEUP_KEYS)
    if not t:
        ck.fail("lineup", "no lineup, so the scenario has no cells (give mirror, seats or round_robin)")
    out = {n: [] for n in players}

    if "mirror" in t:
        m = t["mirror"]
        if isinstance(m, str):
            names = [(("lineup.mirror"), m)]
        else:
            ck.array(m, "lineup.mirror", min_len=1, what="strategies")
            names = [(f"lineup.mirror[{i}]", x) for i, x in enumerate(m)]
        for key, x in names:
            s = _strategy(lib, x, path, key)
            for n in players:
                out[n].append((s,) * n)

    if "seats" in t:
        v = t["seats"]
        if isinstance(v, dict):
            for k, lv in v.items():
                key = f"lineup.seats.{k}"
                if k not in {str(n) for n in PLAYER_COUNTS}:
                    ck.fail(key, f"keys of lineup.seats are player counts ({', '.join(map(str, PLAYER_COUNTS))})")
                n = int(k)
                for lkey, names in _lineup_list(ck, lv, key):
                    canon = tuple(_strategy(lib, x, path, f"{lkey}[{j}]") for j, x in enumerate(names))
                    _check_length(ck, lkey, canon, n)
                    if n in out:
                        out[n].append(canon)
        else:
            for lkey, names in _lineup_list(ck, v, "lineup.seats"):
                canon = tuple(_strategy(lib, x, path, f"{lkey}[{j}]") for j, x in enumerate(names))
                for n in players:
                    hint = ""
                    if len(players) > 1:
                        hint = (
                            "; for several player counts give one lineup per count: "
                            "seats = { 2 = [...], 3 = [...], 4 = [...] }"
                        )
                    _check_length(ck, lkey, canon, n, hint)
                    out[n].append(canon)

    if "round_robin" in t:
        key = "lineup.round_robin"
        rr = ck.table(t["round_robin"], key, required=("pool",), optional=ROUND_ROBIN_KEYS)
        raw_pool = ck.array(rr["pool"], f"{key}.pool", min_len=2, what="strategies")
        pool = []
        for i, x in enumerate(raw_pool):
            s = _strategy(lib, x, path, f"{key}.pool[{i}]")
            if s in pool:
                ck.fail(f"{key}.pool[{i}]", f"'{s}' is listed twice")
            pool.append(s)
        mix = ck.string(rr.get("mix", "all"), f"{key}.mix", choices=MIXES)
        mirrors = ck.boolean(rr.get("mirrors", False), f"{key}.mirrors")
        for n in players:
            out[n].extend(round_robin(pool, n, mix, mirrors))

    for n in players:
        seen = []
        for lineup in out[n]:
            if lineup not in seen:
                seen.append(lineup)
        out[n] = seen
        if not seen:
            ck.fail("lineup", f"no lineup for {n} players (lineup.seats has none for that count)")
    return out


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
