"""Board and instrument data: TOML loader, validator and packer into the kernel's ``geo`` array.

Component data lives in ``simulator/data``: ``board.toml`` (board and player facts) and one file per
instrument in ``simulator/data/instruments``. A designer can add an instrument by writing a new file;
:class:`InstrumentLibrary` picks up every ``*.toml`` in the extra directories it is given.

Instrument file syntax
----------------------
Top-level keys must come before the first ``[table]`` header (a TOML rule)::

    # free comments: say where the layout comes from
    lines = [["t1", "t2"], ["t2", "t3"]]   # inspector connection lines (undirected)
    neutral = ["t1", "s4"]                 # the two spaces that get neutral pieces with 3 players

    [instrument]
    name = "Horns"
    department = "gray"          # black | orange | gray
    expansion = false            # optional, default false
    reconstructed = true         # optional, default false
    penalty_per_space = 2        # optional, default from board.toml
    description = "..."          # optional
    replaces = true              # optional: in a folder given with --instrument-dir, replace the
                                 #   shipped instrument of the same name (a tuned copy of it)

    [track]                      # optional override of the board's brag track, any of the three lists
    need = [0, 1, 2, 4, 6, 8, 10, 12]
    vp = [0, 2, 4, 7, 10, 15, 17, 20]
    token = [false, false, true, false, true, false, true, false]

    [[space]]
    id = "t1"
    number = 1                   # 1..3: build cost and inspector value
    colour = "black"             # one of the two colours the department does not recruit
    sections = ["trumpet"]       # sections/regions the space belongs to

    [[section]]
    id = "trumpet"
    symbol = "target"            # optional, display only
    number = 5                   # optional; number_rank needs it
    adjacent = ["saxophone"]     # optional; must be listed on both sides
    spaces = ["t1", "t2"]        # optional; adds spaces to the section (same effect as space.sections)
    [[section.score]]
    rule = "rank"
    awards = [8, 6, 2]
    scope = "section"            # "section" (default) | "instrument" | ["sec_a", "sec_b"]

Scoring rules (at most ``MAX_TERMS`` per section; ``scope`` where allowed defaults to the section):

* ``rank``: ``awards`` (1..4 integers >= 0), ``scope``.
* ``rank_by_order``: ``awards`` for the first section of the instrument to complete, ``later`` for
  the others, ``scope``.
* ``per_piece``: ``points`` per piece in ``scope``.
* ``completer``: ``completer = [num, den]`` (default ``[1, 1]``) points per piece of the owner who
  completed the section, ``others = [num, den]`` (default ``[1, 2]``) for everybody else, ``scope``.
* ``number_rank``: ``offsets`` (1..4 integers), ``floor`` (default 0), ``scope``; the section needs
  a ``number``. The loader turns it into a plain ``rank`` with awards ``max(number + offset, floor)``.
* ``adjacent_presence``: ``points`` to each owner with a piece in every adjacent section.
* ``adjacent_per_piece``: ``points`` per piece an owner has in the adjacent sections.
* ``majority_takes_all``: ``scope``.
* ``longest_group``: ``points`` per space of the owner's longest connected group through the section.

Every problem raises :class:`simulator.errors.DataError` naming the file, the key path and the reason.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator import layout as L
from simulator.errors import DataError

DATA_DIR = Path(__file__).resolve().parent / "data"
BOARD_PATH = DATA_DIR / "board.toml"
INSTRUMENT_DIR = DATA_DIR / "instruments"

# Starter set, in department order black, orange, gray.
STARTER = ("Violin", "Piano", "Horns")

LIBRARY_SOURCE = "instrument library"

SCOPE_SECTION = "section"
SCOPE_INSTRUMENT = "instrument"


# =========================================================================== bounds on numbers

# The kernel keeps scores, piece counts and rounds in its int32 state (``layout``), and its final
# scoring looks for the best score starting from -2**30. Every integer read from a data file is
# bounded here, so that no valid file can overflow a game's arithmetic: the bounds below keep the
# largest score any seat can reach (``score_bound``) far below 2**30.
MAX_POINTS = 1000  # any award, points value, penalty per space, brag-track points, fraction part
MAX_PIECES = 1000  # build or upgrade pieces per player, pieces a brag-track space needs
MAX_CATS = 100  # ready cats of one colour at setup
MAX_ROUNDS = 10_000  # the round cap
MAX_SECTION_NUMBER = 1000  # a section's number (number_rank)
MAX_OFFSET = 1000  # |offset| of a number_rank award
DATA_INT_MAX = 1_000_000  # any other integer of a data file
SCORE_LIMIT = 2**30
POINTS_WHY = (
    f"scores are 32-bit integers in the rules kernel, so every award, points value and penalty is "
    f"at most {MAX_POINTS}"
)


def score_bound(max_rounds=MAX_ROUNDS):
    """An upper bound on the absolute score of one seat in any game of valid data.

    Each section scores once (on completion or at the end); a scoring term gives an owner at most
    ``MAX_POINTS`` per piece (inner and outer) of the instrument, or per space of a group, or one
    award; brag-track points and the penalty are at most ``MAX_POINTS`` per space. The inspector
    scores a space's number for each of its two pieces, at most once per step, a turn having at
    most the largest die face plus one placement steps (doubled here for margin)."""
    pieces = 2 * L.MAX_SPACES
    term = MAX_POINTS * pieces
    objectives = L.N_DEPT * L.MAX_SECTIONS * L.MAX_TERMS * term
    track = L.N_DEPT * MAX_POINTS
    penalty = L.N_DEPT * MAX_POINTS * L.MAX_SPACES
    steps = 2 * (max(L.FACE_PIPS) + 1)
    inspector = max_rounds * L.N_OWNERS * steps * 2 * L.MAX_NUMBER
    return objectives + track + penalty + inspector


# =========================================================================== names

# Names travel on the command line (``--instruments A,B,C``, ``--strategies a,b``, ``name:focus``),
# in cell keys (``players=4|black=...|lineup=a,b``), in override keys (``Horns.section...``) and
# in file names, so they are restricted to what all of these carry.
NAME_MAX_LEN = 40
NAME_EXTRA_CHARS = " -_'+&()"


def name_problem(name):
    """Why ``name`` cannot name an instrument or a strategy, or ``None`` when it can."""
    if not name:
        return "must not be empty"
    if len(name) > NAME_MAX_LEN:
        return f"at most {NAME_MAX_LEN} characters, got {len(name)}"
    for ch in name:
        if not ch.isprintable():
            return f"contains the control character {ch!r}; use letters, digits, spaces and {NAME_EXTRA_CHARS.strip()}"
        if not (ch.isalnum() or ch in NAME_EXTRA_CHARS):
            return (
                f"contains {ch!r}, which the command line or the result files cannot carry "
                f"(names are given as A,B,C and name:focus); use letters, digits, spaces and "
                f"{NAME_EXTRA_CHARS.strip()}"
            )
    if not name[0].isalnum():
        return f"must start with a letter or digit, got {name[0]!r}"
    return None


# =========================================================================== small checking helpers


def _join(base, key):
    if not base:
        return str(key)
    if isinstance(key, str) and not key.startswith("["):
        return f"{base}.{key}"
    return f"{base}{key}"


def _typename(value):
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


class Checker:
    """Type and shape checks that raise :class:`DataError` for one file."""

    def __init__(self, file):
        self.file = str(file)

    def fail(self, key, reason):
        raise DataError(self.file, key, reason)

    def table(self, value, key, required=(), optional=(), top_level_hint=False):
        if not isinstance(value, dict):
            self.fail(key, f"expected a table, got {_typename(value)}")
        allowed = set(required) | set(optional)
        for name in value:
            if name not in allowed:
                reason = f"unknown key '{name}'"
                close = difflib.get_close_matches(name, sorted(allowed), n=1)
                if close:
                    reason += f" (did you mean '{close[0]}'?)"
                elif allowed:
                    reason += f" (allowed: {', '.join(sorted(allowed))})"
                if top_level_hint and name in _TOP_LEVEL_KEYS:
                    reason += (
                        f"; '{name}' is a top-level key and must be written before the first "
                        "[table] header of the file"
                    )
                self.fail(_join(key, name), reason)
        for name in required:
            if name not in value:
                self.fail(_join(key, name), "missing required key")
        return value

    def integer(self, value, key, lo=None, hi=None, why=""):
        """An integer within ``lo..hi``; without ``hi`` at most ``DATA_INT_MAX`` (and without ``lo``
        at least ``-DATA_INT_MAX``), so no unbounded number reaches the kernel. ``why`` explains
        the bound in the error."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"expected an integer, got {_typename(value)} {value!r}")
        lo = -DATA_INT_MAX if lo is None else lo
        hi = DATA_INT_MAX if hi is None else hi
        note = f" ({why})" if why else ""
        if value < lo:
            self.fail(key, f"{value} is below the minimum {lo}{note}")
        if value > hi:
            self.fail(key, f"{value} is above the maximum {hi}{note}")
        return value

    def points(self, value, key, lo=0):
        """A score contribution: an integer ``lo..MAX_POINTS``."""
        return self.integer(value, key, lo, MAX_POINTS, POINTS_WHY)

    def name(self, value, key):
        """A name the command line and the result files can carry (see ``name_problem``)."""
        text = self.string(value, key).strip()
        problem = name_problem(text)
        if problem:
            self.fail(key, f"{text!r}: {problem}")
        return text

    def boolean(self, value, key):
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {_typename(value)} {value!r}")
        return value

    def string(self, value, key, choices=None):
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {_typename(value)} {value!r}")
        if not value.strip():
            self.fail(key, "must not be empty")
        bad = next((ch for ch in value if not ch.isprintable() and ch not in "\n\t"), None)
        if bad is not None:
            self.fail(key, f"{value!r} contains the control character {bad!r}")
        if choices is not None and value not in choices:
            self.fail(key, f"'{value}' is not one of: {', '.join(choices)}")
        return value

    def array(self, value, key, min_len=0, max_len=None, what="entries"):
        if not isinstance(value, list):
            self.fail(key, f"expected a list, got {_typename(value)} {value!r}")
        if len(value) < min_len:
            self.fail(key, f"needs at least {min_len} {what}, got {len(value)}")
        if max_len is not None and len(value) > max_len:
            self.fail(key, f"at most {max_len} {what} supported, got {len(value)}")
        return value

    def int_list(self, value, key, min_len=0, max_len=None, lo=None, hi=None, exact=None, why=""):
        if exact is not None:
            min_len = max_len = exact
        self.array(value, key, min_len, max_len, what="numbers")
        return tuple(self.integer(v, f"{key}[{i}]", lo, hi, why) for i, v in enumerate(value))

    def bool_list(self, value, key, exact):
        self.array(value, key, exact, exact, what="values")
        return tuple(self.boolean(v, f"{key}[{i}]") for i, v in enumerate(value))

    def str_list(self, value, key, min_len=0, max_len=None, what="names", unique=True):
        self.array(value, key, min_len, max_len, what=what)
        out = []
        for i, v in enumerate(value):
            s = self.string(v, f"{key}[{i}]")
            if unique and s in out:
                self.fail(key, f"'{s}' is listed twice")
            out.append(s)
        return tuple(out)

    def table_array(self, value, key, min_len, max_len, what):
        if isinstance(value, dict):
            self.fail(key, f"expected an array of tables written [[{key}]], got a single [{key}] table")
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.fail(key, f"expected an array of tables written [[{key}]]")
        if len(value) < min_len:
            self.fail(key, f"needs at least {min_len} {what}, got {len(value)}")
        if len(value) > max_len:
            self.fail(key, f"at most {max_len} {what} supported by the kernel, got {len(value)}")
        return value


def read_toml(path):
    """A TOML file as a dict; a missing, unreadable or malformed file raises :class:`DataError`."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise DataError(path, "", "file not found") from None
    except IsADirectoryError:
        raise DataError(path, "", "is a directory, expected a TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(path, "", f"TOML syntax error: {exc}") from None
    except UnicodeDecodeError as exc:
        raise DataError(path, "", f"not UTF-8 text: {exc}") from None
    except OSError as exc:
        raise DataError(path, "", f"cannot read: {exc}") from None


# =========================================================================== board


@dataclass(frozen=True)
class Board:
    """Board and per-player facts from ``board.toml``."""

    path: str
    departments: tuple  # department names, clockwise (always black, orange, gray)
    break_room_capacity: int
    spots_per_department: int
    four_player_spot: int
    penalty_per_space: int
    max_rounds: int
    slice_names: tuple  # wheel slices as written
    slices: tuple  # the same as action codes (layout.CONSTRUCT / REFRESH / INSPECT)
    shuffle_wheels: bool
    faces: tuple
    pips: tuple
    build_pieces: int
    upgrade_pieces: int
    start_cats: tuple  # ready cats by colour index
    quilt_rows: int
    quilt_spaces: int
    track_need: tuple
    track_vp: tuple
    track_token: tuple  # booleans
    token_types: tuple  # token name handed out by each department's track
    # Ruling switches ([rulings]; 0 = the rulings as decided, see RULINGS below).
    penalty_last: int = 0
    pri_piece_credit: int = 0
    tie_break: int = 0


# [rulings] in board.toml: key -> its readings, the first being the rulings as decided (R10, R12, R13, R14).
RULINGS = {
    # Who shares the unbuilt penalty when Pri's disc is in last place: "pri" (Pri takes part and,
    # alone in last place, absorbs it; R12/R14) or "players" (Pri is left out; the last player pays).
    "unbuilt_penalty_last_place": ("pri", "players"),
    # Who completes a section and scores the inspector when an active player places Pri's piece:
    # "pri" (the piece is Pri's and she never scores; R10/R14) or "placer" (the active player).
    "pri_piece_credit": ("pri", "placer"),
    # Who wins a tie for the highest total (R13): "latest" (the tied player latest in turn order, as
    # decided), "shared" (tied wins shared: one tied seat is drawn per tie, so each wins 1/k of its ties
    # on average) or "earliest" (the tied player earliest in turn order).
    "tie_break": ("latest", "shared", "earliest"),
}


def _parse_rulings(ck, raw):
    """``[rulings]`` -> (penalty_last, pri_piece_credit, tie_break) codes; a missing key keeps the ruling."""
    t = ck.table(raw, "rulings", optional=tuple(RULINGS))
    codes = []
    for key, choices in RULINGS.items():
        value = ck.string(t.get(key, choices[0]), f"rulings.{key}", choices=choices)
        codes.append(choices.index(value))
    return tuple(codes)


def _parse_track(ck, table, key, default_need=None, default_vp=None, default_token=None):
    """Brag track lists; missing lists fall back to the defaults (if given)."""
    n = L.N_TRACK
    for name in ("need", "vp", "token"):
        if name in table and isinstance(table[name], list) and len(table[name]) != n:
            ck.fail(
                _join(key, name),
                f"the kernel supports exactly {n} brag-track spaces, got {len(table[name])}",
            )
    need = (
        ck.int_list(table["need"], _join(key, "need"), exact=n, lo=0, hi=MAX_PIECES) if "need" in table else default_need
    )
    vp = (
        ck.int_list(table["vp"], _join(key, "vp"), exact=n, lo=0, hi=MAX_POINTS, why=POINTS_WHY)
        if "vp" in table
        else default_vp
    )
    token = ck.bool_list(table["token"], _join(key, "token"), exact=n) if "token" in table else default_token
    if need is not None and "need" in table:
        if need[0] != 0:
            ck.fail(_join(key, "need[0]"), "the bottom space of the track must need 0 pieces")
        for i in range(1, n):
            if need[i] < need[i - 1]:
                ck.fail(_join(key, f"need[{i}]"), "pieces needed must not decrease along the track")
    return need, vp, token


def load_board(path=None, doc=None):
    """Load and validate ``board.toml`` (the packaged one by default); ``doc``: its already read,
    possibly changed, contents (scenario overrides ``board.<key>``)."""
    path = Path(path) if path is not None else BOARD_PATH
    ck = Checker(path)
    doc = read_toml(path) if doc is None else doc
    ck.table(doc, "", required=("board", "wheel", "dice", "player", "quilt", "track"), optional=("rulings",))

    b = ck.table(
        doc["board"],
        "board",
        required=("departments", "break_room_capacity", "spots_per_department", "four_player_spot",
                  "penalty_per_space", "max_rounds"),
    )
    depts = ck.str_list(b["departments"], "board.departments", what="departments")
    if len(depts) != L.N_DEPT:
        ck.fail("board.departments", f"the kernel supports exactly {L.N_DEPT} departments, got {len(depts)}")
    if depts != L.DEPT_NAMES:
        ck.fail(
            "board.departments",
            f"departments must be {', '.join(L.DEPT_NAMES)} in this clockwise order "
            f"(the kernel's colour codes), got {', '.join(depts)}",
        )
    cap = ck.integer(b["break_room_capacity"], "board.break_room_capacity")
    if cap != 1:
        ck.fail("board.break_room_capacity", f"the kernel supports break rooms of capacity 1 only, got {cap}")
    spots = ck.integer(b["spots_per_department"], "board.spots_per_department")
    if spots * L.N_DEPT != L.N_SPOTS:
        ck.fail(
            "board.spots_per_department",
            f"the kernel supports exactly {L.N_SPOTS // L.N_DEPT} pawn spots per department, got {spots}",
        )
    four = ck.integer(b["four_player_spot"], "board.four_player_spot")
    if four != 1:
        ck.fail("board.four_player_spot", f"the kernel opens the middle spot (index 1) for 4 players, got {four}")
    penalty = ck.points(b["penalty_per_space"], "board.penalty_per_space")
    max_rounds = ck.integer(b["max_rounds"], "board.max_rounds", lo=1, hi=MAX_ROUNDS)

    w = ck.table(doc["wheel"], "wheel", required=("slices", "shuffle_wheels"))
    slice_names = ck.str_list(w["slices"], "wheel.slices", what="slices", unique=False)
    if len(slice_names) != L.N_SLICES:
        ck.fail("wheel.slices", f"the kernel supports exactly {L.N_SLICES} slices per wheel, got {len(slice_names)}")
    for i, s in enumerate(slice_names):
        ck.string(s, f"wheel.slices[{i}]", choices=L.ACTION_NAMES)
    slices = tuple(L.ACTION_NAMES.index(s) for s in slice_names)
    shuffle = ck.boolean(w["shuffle_wheels"], "wheel.shuffle_wheels")

    d = ck.table(doc["dice"], "dice", required=("faces", "pips"))
    faces = ck.str_list(d["faces"], "dice.faces", what="faces")
    pips = ck.int_list(d["pips"], "dice.pips", lo=1)
    if faces != L.FACE_NAMES:
        ck.fail("dice.faces", f"the kernel's die faces are {list(L.FACE_NAMES)}, got {list(faces)}")
    if pips != L.FACE_PIPS:
        ck.fail("dice.pips", f"the kernel's face pips are {list(L.FACE_PIPS)}, got {list(pips)}")

    p = ck.table(doc["player"], "player", required=("build_pieces", "upgrade_pieces", "starting_cats"))
    build = ck.integer(p["build_pieces"], "player.build_pieces", lo=1, hi=MAX_PIECES)
    upg = ck.integer(p["upgrade_pieces"], "player.upgrade_pieces", lo=0, hi=MAX_PIECES)
    cats_t = ck.table(p["starting_cats"], "player.starting_cats", optional=L.COLOUR_NAMES)
    start_cats = tuple(
        ck.integer(cats_t.get(c, 0), f"player.starting_cats.{c}", lo=0, hi=MAX_CATS) for c in L.COLOUR_NAMES
    )

    q = ck.table(doc["quilt"], "quilt", required=("rows",))
    rows = ck.integer(q["rows"], "quilt.rows", lo=1, hi=100)
    quilt_spaces = rows * (rows + 1) // 2
    if quilt_spaces != L.N_QUILT:
        ck.fail(
            "quilt.rows",
            f"the kernel supports exactly {L.N_QUILT} quilt spaces (4 rows), got {rows} rows = {quilt_spaces} spaces",
        )

    t = ck.table(doc["track"], "track", required=("need", "vp", "token", "token_type"))
    need, vp, token = _parse_track(ck, {k: t[k] for k in ("need", "vp", "token")}, "track")
    tt = ck.table(t["token_type"], "track.token_type", required=L.DEPT_NAMES)
    token_types = tuple(ck.string(tt[dn], f"track.token_type.{dn}", choices=L.TOKEN_NAMES) for dn in L.DEPT_NAMES)
    for di, dn in enumerate(L.DEPT_NAMES):
        if token_types[di] != L.TOKEN_NAMES[di]:
            ck.fail(
                f"track.token_type.{dn}",
                f"the kernel hands out the token of the track's department index: {dn} must give "
                f"'{L.TOKEN_NAMES[di]}', got '{token_types[di]}'",
            )

    rulings = _parse_rulings(ck, doc.get("rulings", {}))
    return Board(
        path=str(path),
        departments=depts,
        break_room_capacity=cap,
        spots_per_department=spots,
        four_player_spot=four,
        penalty_per_space=penalty,
        max_rounds=max_rounds,
        slice_names=slice_names,
        slices=slices,
        shuffle_wheels=shuffle,
        faces=faces,
        pips=pips,
        build_pieces=build,
        upgrade_pieces=upg,
        start_cats=start_cats,
        quilt_rows=rows,
        quilt_spaces=quilt_spaces,
        track_need=need,
        track_vp=vp,
        track_token=token,
        token_types=token_types,
        penalty_last=rulings[0],
        pri_piece_credit=rulings[1],
        tie_break=rulings[2],
    )


# =========================================================================== instruments

_TOP_LEVEL_KEYS = ("instrument", "space", "section", "lines", "neutral", "track")
_INSTRUMENT_KEYS = (
    "name", "department", "expansion", "reconstructed", "penalty_per_space", "description", "replaces",
)
_SPACE_KEYS = ("id", "number", "colour", "sections")
_SECTION_KEYS = ("id", "symbol", "number", "adjacent", "spaces", "score")

# rule name -> (term code, required parameters, optional parameters)
RULES = {
    "rank": (L.T_RANK, ("awards",), ("scope",)),
    "rank_by_order": (L.T_RANK_ORDER, ("awards", "later"), ("scope",)),
    "per_piece": (L.T_PER_PIECE, ("points",), ("scope",)),
    "completer": (L.T_COMPLETER, (), ("completer", "others", "scope")),
    "number_rank": (L.T_RANK, ("offsets",), ("floor", "scope")),
    "adjacent_presence": (L.T_ADJ_PRESENCE, ("points",), ()),
    "adjacent_per_piece": (L.T_ADJ_PER_PIECE, ("points",), ()),
    "majority_takes_all": (L.T_MAJORITY_ALL, (), ("scope",)),
    "longest_group": (L.T_LONGEST_GROUP, ("points",), ()),
}


@dataclass(frozen=True)
class Term:
    """One scoring term of a section, already in kernel form."""

    rule: str  # rule name as written in the file (number_rank is kept here for display)
    code: int  # layout.T_* code the kernel runs
    scope: object  # "section", "instrument" or a tuple of section ids
    scope_mask: int  # bit mask of the spaces the term counts
    params: tuple  # p1..p4
    awards: tuple = ()
    later: tuple = ()
    text: str = ""  # short description


@dataclass(frozen=True)
class Instrument:
    """A validated instrument. Spaces and sections are referred to by index in data order."""

    name: str
    department: int
    expansion: bool
    reconstructed: bool
    path: str
    description: str
    space_ids: tuple
    numbers: tuple
    colours: tuple  # colour codes (layout.BLACK / ORANGE / GRAY)
    space_sections: tuple  # per space: tuple of section indices
    section_ids: tuple
    section_symbols: tuple
    section_numbers: tuple  # int or None
    section_spaces: tuple  # per section: tuple of space indices
    section_adjacent: tuple  # per section: tuple of section indices
    section_terms: tuple  # per section: tuple of Term
    lines: tuple  # (a, b) space indices, a line's index is its edge id
    neutral: tuple  # two space indices
    track_need: tuple
    track_vp: tuple
    track_token: tuple
    penalty_per_space: int
    total_cost: int
    replaces: bool = False  # a designer's copy that takes the place of the shipped instrument
    _space_index: dict = field(default=None, repr=False, compare=False, hash=False)
    _section_index: dict = field(default=None, repr=False, compare=False, hash=False)

    # ------------------------------------------------------------------ names and indices
    @property
    def department_name(self):
        return L.DEPT_NAMES[self.department]

    @property
    def nspaces(self):
        return len(self.space_ids)

    @property
    def nsections(self):
        return len(self.section_ids)

    @property
    def allowed_colours(self):
        return tuple(c for c in range(L.N_DEPT) if c != self.department)

    def space_name(self, i):
        """Space id of space index ``i`` (``"-"`` for -1 / off the board)."""
        return "-" if i is None or i < 0 else self.space_ids[i]

    def section_name(self, s):
        return "-" if s is None or s < 0 else self.section_ids[s]

    def space_index(self, space_id):
        try:
            return self._space_index[space_id]
        except KeyError:
            raise DataError(self.path, "space", f"no space '{space_id}' on {self.name}") from None

    def section_index(self, section_id):
        try:
            return self._section_index[section_id]
        except KeyError:
            raise DataError(self.path, "section", f"no section '{section_id}' on {self.name}") from None

    def spaces_in_mask(self, mask):
        """Space ids whose bit is set in a space bit mask."""
        return [sid for i, sid in enumerate(self.space_ids) if (int(mask) >> i) & 1]

    def sections_in_mask(self, mask):
        return [sid for i, sid in enumerate(self.section_ids) if (int(mask) >> i) & 1]

    def neighbours(self, i):
        out = []
        for a, b in self.lines:
            if a == i:
                out.append(b)
            elif b == i:
                out.append(a)
        return out

    @property
    def all_spaces_mask(self):
        return (1 << self.nspaces) - 1

    def section_mask(self, s):
        m = 0
        for i in self.section_spaces[s]:
            m |= 1 << i
        return m

    # ------------------------------------------------------------------ summaries
    def rule_summary(self):
        """One short line describing how the instrument's sections score."""
        groups = {}
        for s, terms in enumerate(self.section_terms):
            text = " + ".join(t.text for t in terms)
            label = self.section_ids[s]
            if self.section_numbers[s] is not None:
                label += f" (N={self.section_numbers[s]})"
            groups.setdefault(text, []).append(label)
        parts = [f"{', '.join(secs)}: {text}" for text, secs in groups.items()]
        return "; ".join(parts)

    def __str__(self):
        exp = ", expansion" if self.expansion else ""
        return (
            f"{self.name} ({self.department_name}{exp}): {self.nspaces} spaces, {self.nsections} sections, "
            f"cost {self.total_cost}"
        )


def _awards_text(awards):
    return "/".join(str(a) for a in awards)


def _scope_text(scope):
    if scope == SCOPE_SECTION:
        return ""
    if scope == SCOPE_INSTRUMENT:
        return " over the instrument"
    return " over " + "+".join(scope)


def _frac(num, den):
    if den == 1:
        return f"{num} per piece"
    return f"{num} per {den} pieces"


def _parse_scope(ck, value, key, sec_index, own_mask, sec_masks, all_mask):
    if isinstance(value, str):
        if value == SCOPE_SECTION:
            return SCOPE_SECTION, own_mask
        if value == SCOPE_INSTRUMENT:
            return SCOPE_INSTRUMENT, all_mask
        ck.fail(key, f"'{value}' is not 'section', 'instrument' or a list of section ids")
    ids = ck.str_list(value, key, min_len=1, what="sections")
    mask = 0
    for i, sid in enumerate(ids):
        if sid not in sec_index:
            ck.fail(f"{key}[{i}]", f"unknown section '{sid}'")
        mask |= sec_masks[sec_index[sid]]
    return ids, mask


def _parse_term(ck, raw, key, sec, sec_index, sec_masks, all_mask):
    """Parse one ``[[section.score]]`` table into a :class:`Term`."""
    if not isinstance(raw, dict):
        ck.fail(key, f"expected a table, got {_typename(raw)}")
    if "rule" not in raw:
        ck.fail(_join(key, "rule"), "missing required key")
    rule = ck.string(raw["rule"], _join(key, "rule"))
    if rule not in RULES:
        reason = f"unknown rule '{rule}'"
        close = difflib.get_close_matches(rule, sorted(RULES), n=1)
        if close:
            reason += f" (did you mean '{close[0]}'?)"
        reason += f"; known rules: {', '.join(RULES)}"
        ck.fail(_join(key, "rule"), reason)
    code, required, optional = RULES[rule]
    for name in required:
        if name not in raw:
            ck.fail(_join(key, name), f"missing required key: the {rule} rule needs '{name}'")
    ck.table(raw, key, required=("rule",) + required, optional=optional, top_level_hint=True)

    own_mask = sec["mask"]
    scope, scope_mask = SCOPE_SECTION, own_mask
    if "scope" in raw:
        scope, scope_mask = _parse_scope(ck, raw["scope"], _join(key, "scope"), sec_index, own_mask, sec_masks, all_mask)
    params = (0, 0, 0, 0)
    awards = later = ()
    sc = _scope_text(scope)

    def award_list(name):
        return ck.int_list(
            raw[name], _join(key, name), min_len=1, max_len=L.MAX_AWARDS, lo=0, hi=MAX_POINTS, why=POINTS_WHY
        )

    if rule == "rank":
        awards = award_list("awards")
        text = f"rank {_awards_text(awards)}{sc}"
    elif rule == "rank_by_order":
        awards = award_list("awards")
        later = award_list("later")
        text = f"rank {_awards_text(awards)} first, then {_awards_text(later)}{sc}"
    elif rule == "per_piece":
        pts = ck.points(raw["points"], _join(key, "points"))
        params = (pts, 0, 0, 0)
        text = f"{pts} per piece{sc}"
    elif rule == "completer":
        fr = []
        for name, default in (("completer", (1, 1)), ("others", (1, 2))):
            if name in raw:
                num, den = ck.int_list(raw[name], _join(key, name), exact=2, lo=0, hi=MAX_POINTS, why=POINTS_WHY)
                if den < 1:
                    ck.fail(_join(key, f"{name}[1]"), "the denominator must be at least 1")
            else:
                num, den = default
            fr.append((num, den))
        params = (fr[0][0], fr[0][1], fr[1][0], fr[1][1])
        text = f"completer {_frac(*fr[0])}, others {_frac(*fr[1])}{sc}"
    elif rule == "number_rank":
        offsets = ck.int_list(
            raw["offsets"], _join(key, "offsets"), min_len=1, max_len=L.MAX_AWARDS, lo=-MAX_OFFSET, hi=MAX_OFFSET
        )
        floor = ck.points(raw["floor"], _join(key, "floor")) if "floor" in raw else 0
        if sec["number"] is None:
            ck.fail(f"section[{sec['id']}].number", "the number_rank rule needs the section's number")
        n = sec["number"]
        awards = tuple(max(n + off, floor) for off in offsets)
        for i, a in enumerate(awards):
            if a > MAX_POINTS:
                ck.fail(
                    f"{_join(key, 'offsets')}[{i}]",
                    f"the award number {n} + offset {offsets[i]} = {a} is above the maximum {MAX_POINTS} ({POINTS_WHY})",
                )
        offs = "/".join("N" if o == 0 else f"N{o:+d}" for o in offsets)
        text = f"rank {offs}" + (f" (floor {floor})" if floor else "") + sc
    elif rule in ("adjacent_presence", "adjacent_per_piece"):
        pts = ck.points(raw["points"], _join(key, "points"))
        if not sec["adjacent"]:
            ck.fail(f"section[{sec['id']}].adjacent", f"the {rule} rule needs at least one adjacent section")
        params = (pts, 0, 0, 0)
        if rule == "adjacent_presence":
            text = f"{pts} for presence in all adjacent"
        else:
            text = f"{pts} per piece in adjacent"
    elif rule == "majority_takes_all":
        text = f"majority takes all pieces{sc}"
    else:  # longest_group
        pts = ck.points(raw["points"], _join(key, "points"))
        params = (pts, 0, 0, 0)
        text = f"{pts} per space of longest group"
    return Term(rule=rule, code=code, scope=scope, scope_mask=scope_mask, params=params,
                awards=awards, later=later, text=text)


def _find_misplaced(doc, name):
    """Key path of a top-level key that TOML placed inside a table because it came after a header."""
    if isinstance(doc.get("instrument"), dict) and name in doc["instrument"]:
        return f"instrument.{name}"
    if isinstance(doc.get("track"), dict) and name in doc["track"]:
        return f"track.{name}"
    for arr in ("space", "section"):
        tables = doc.get(arr)
        if not isinstance(tables, list):
            continue
        for i, t in enumerate(tables):
            if not isinstance(t, dict):
                continue
            label = f"{arr}[{i}]"
            if arr == "section" and isinstance(t.get("id"), str):
                label = f"section[{t['id']}]"
            if name in t:
                return f"{label}.{name}"
            score = t.get("score")
            if arr == "section" and isinstance(score, list):
                for j, term in enumerate(score):
                    if isinstance(term, dict) and name in term:
                        return f"{label}.score[{j}].{name}"
    return None


def load_instrument(path, board=None):
    """Load and validate one instrument file. ``board`` supplies the default track and penalty."""
    path = Path(path)
    return instrument_from_doc(read_toml(path), path, board)


def instrument_from_doc(doc, source, board=None):
    """Validate an already-parsed instrument document (the dict ``tomllib`` gives for a file).

    ``source`` names the document in errors and becomes :attr:`Instrument.path`; used to load a
    changed copy of an instrument (a scenario's what-if overrides) through the same checks as a file.
    """
    path = source
    if board is None:
        board = load_board()
    ck = Checker(path)
    for name in ("lines", "neutral"):
        if name not in doc:
            where = _find_misplaced(doc, name)
            if where:
                ck.fail(
                    where,
                    f"unknown key '{name}'; '{name}' is a top-level key and must be written before the "
                    "first [table] header of the file",
                )
    ck.table(doc, "", required=("instrument", "space", "section", "lines", "neutral"), optional=("track",))

    # ------------------------------------------------------------------ [instrument]
    meta = ck.table(doc["instrument"], "instrument", required=("name", "department"), optional=_INSTRUMENT_KEYS,
                    top_level_hint=True)
    name = ck.name(meta["name"], "instrument.name")
    dept_name = ck.string(meta["department"], "instrument.department")
    if dept_name not in L.DEPT_NAMES:
        ck.fail("instrument.department", f"unknown department '{dept_name}'; expected one of {', '.join(L.DEPT_NAMES)}")
    dept = L.DEPT_NAMES.index(dept_name)
    expansion = ck.boolean(meta.get("expansion", False), "instrument.expansion")
    reconstructed = ck.boolean(meta.get("reconstructed", False), "instrument.reconstructed")
    description = ck.string(meta["description"], "instrument.description") if "description" in meta else ""
    replaces = ck.boolean(meta.get("replaces", False), "instrument.replaces")
    penalty = board.penalty_per_space
    if "penalty_per_space" in meta:
        penalty = ck.points(meta["penalty_per_space"], "instrument.penalty_per_space")

    need, vp, token = board.track_need, board.track_vp, board.track_token
    if "track" in doc:
        t = ck.table(doc["track"], "track", optional=("need", "vp", "token"), top_level_hint=True)
        need, vp, token = _parse_track(ck, t, "track", need, vp, token)

    allowed = tuple(c for c in L.COLOUR_NAMES if c != dept_name)

    # ------------------------------------------------------------------ sections (ids first)
    raw_secs = ck.table_array(doc["section"], "section", 1, L.MAX_SECTIONS, "sections")
    sec_ids = []
    sec_keys = []
    for s, raw in enumerate(raw_secs):
        k = f"section[{s}]"
        if "id" not in raw:
            ck.fail(_join(k, "id"), "missing required key")
        sid = ck.string(raw["id"], _join(k, "id"))
        if sid in sec_ids:
            ck.fail(_join(k, "id"), f"duplicate section id '{sid}'")
        sec_ids.append(sid)
        k = f"section[{sid}]"
        sec_keys.append(k)
        ck.table(raw, k, required=("id", "score"), optional=_SECTION_KEYS, top_level_hint=True)
    sec_index = {sid: s for s, sid in enumerate(sec_ids)}

    # ------------------------------------------------------------------ spaces
    raw_spaces = ck.table_array(doc["space"], "space", 1, L.MAX_SPACES, "spaces")
    space_ids, numbers, colours, memberships = [], [], [], []
    for i, raw in enumerate(raw_spaces):
        k = f"space[{i}]"
        ck.table(raw, k, required=("id", "number", "colour"), optional=_SPACE_KEYS, top_level_hint=True)
        sid = ck.string(raw["id"], f"{k}.id")
        if sid in space_ids:
            ck.fail(f"{k}.id", f"duplicate space id '{sid}'")
        space_ids.append(sid)
        numbers.append(ck.integer(raw["number"], f"{k}.number", lo=1, hi=3))
        colour = ck.string(raw["colour"], f"{k}.colour")
        if colour not in L.COLOUR_NAMES:
            ck.fail(f"{k}.colour", f"unknown colour '{colour}'; expected one of {', '.join(allowed)}")
        if colour not in allowed:
            ck.fail(
                f"{k}.colour",
                f"a {dept_name} instrument is built with {allowed[0]} and {allowed[1]} cats, not {colour} "
                f"(space '{sid}')",
            )
        colours.append(L.COLOUR_NAMES.index(colour))
        mem = set()
        if "sections" in raw:
            secs = ck.str_list(raw["sections"], f"{k}.sections", what="sections")
            for j, s_name in enumerate(secs):
                if s_name not in sec_index:
                    ck.fail(f"{k}.sections[{j}]", f"space '{sid}' names a missing section '{s_name}'")
                mem.add(sec_index[s_name])
        memberships.append(mem)
    space_index = {sid: i for i, sid in enumerate(space_ids)}
    nspaces = len(space_ids)
    all_mask = (1 << nspaces) - 1

    # Sections may also list their spaces; membership is the union of both directions.
    for s, raw in enumerate(raw_secs):
        if "spaces" in raw:
            k = f"{sec_keys[s]}.spaces"
            names = ck.str_list(raw["spaces"], k, what="spaces")
            for j, sp in enumerate(names):
                if sp not in space_index:
                    ck.fail(f"{k}[{j}]", f"section '{sec_ids[s]}' names a missing space '{sp}'")
                memberships[space_index[sp]].add(s)
    for i, mem in enumerate(memberships):
        if not mem:
            ck.fail(f"space[{i}].sections", f"space '{space_ids[i]}' belongs to no section")
    section_spaces = [tuple(i for i in range(nspaces) if s in memberships[i]) for s in range(len(sec_ids))]
    for s, sp in enumerate(section_spaces):
        if not sp:
            ck.fail(sec_keys[s], f"section '{sec_ids[s]}' has no spaces")
    sec_masks = [sum(1 << i for i in sp) for sp in section_spaces]

    # ------------------------------------------------------------------ section details
    sec_symbols, sec_numbers, sec_adj_names = [], [], []
    for s, raw in enumerate(raw_secs):
        k = sec_keys[s]
        sec_symbols.append(ck.string(raw["symbol"], f"{k}.symbol") if "symbol" in raw else "")
        sec_numbers.append(ck.integer(raw["number"], f"{k}.number", lo=0, hi=MAX_SECTION_NUMBER) if "number" in raw else None)
        adj = ck.str_list(raw.get("adjacent", []), f"{k}.adjacent", max_len=L.MAX_SECTIONS, what="sections")
        for j, a in enumerate(adj):
            if a not in sec_index:
                ck.fail(f"{k}.adjacent[{j}]", f"unknown section '{a}'")
            if a == sec_ids[s]:
                ck.fail(f"{k}.adjacent[{j}]", "a section cannot be adjacent to itself")
        sec_adj_names.append(adj)
    for s, adj in enumerate(sec_adj_names):
        for j, a in enumerate(adj):
            if sec_ids[s] not in sec_adj_names[sec_index[a]]:
                ck.fail(
                    f"{sec_keys[s]}.adjacent[{j}]",
                    f"adjacency must be listed on both sides: section '{a}' does not list '{sec_ids[s]}'",
                )
    sec_adjacent = [tuple(sec_index[a] for a in adj) for adj in sec_adj_names]

    terms_all = []
    for s, raw in enumerate(raw_secs):
        k = sec_keys[s]
        score = raw["score"]
        if isinstance(score, dict):
            score = [score]
        if not isinstance(score, list) or not score:
            ck.fail(f"{k}.score", "expected one or more [[section.score]] tables")
        if len(score) > L.MAX_TERMS:
            ck.fail(f"{k}.score", f"at most {L.MAX_TERMS} scoring terms per section supported, got {len(score)}")
        info = {"id": sec_ids[s], "mask": sec_masks[s], "number": sec_numbers[s], "adjacent": sec_adjacent[s]}
        terms_all.append(
            tuple(
                _parse_term(ck, t, f"{k}.score[{j}]", info, sec_index, sec_masks, all_mask)
                for j, t in enumerate(score)
            )
        )

    # ------------------------------------------------------------------ inspector lines
    raw_lines = ck.array(doc["lines"], "lines", min_len=1 if nspaces > 1 else 0, max_len=L.MAX_EDGES, what="lines")
    lines, seen = [], {}
    degree = [0] * nspaces
    for e, ln in enumerate(raw_lines):
        k = f"lines[{e}]"
        pair = ck.str_list(ln, k, 2, 2, what="space ids", unique=False)
        for j, sp in enumerate(pair):
            if sp not in space_index:
                ck.fail(f"{k}[{j}]", f"line names a missing space '{sp}'")
        a, b = space_index[pair[0]], space_index[pair[1]]
        if a == b:
            ck.fail(k, f"a line cannot join space '{pair[0]}' to itself")
        key2 = (min(a, b), max(a, b))
        if key2 in seen:
            ck.fail(k, f"duplicate line {pair[0]}-{pair[1]} (same as lines[{seen[key2]}])")
        seen[key2] = e
        lines.append((a, b))
        for x in (a, b):
            degree[x] += 1
            if degree[x] > L.MAX_LINKS:
                ck.fail(k, f"space '{space_ids[x]}' has more than {L.MAX_LINKS} lines")
    # Connectivity.
    if nspaces > 1:
        adj = [[] for _ in range(nspaces)]
        for a, b in lines:
            adj[a].append(b)
            adj[b].append(a)
        reached = {0}
        stack = [0]
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if y not in reached:
                    reached.add(y)
                    stack.append(y)
        if len(reached) != nspaces:
            missing = [space_ids[i] for i in range(nspaces) if i not in reached]
            ck.fail(
                "lines",
                f"the inspector graph is not connected: {', '.join(missing)} cannot be reached from '{space_ids[0]}'",
            )

    # ------------------------------------------------------------------ neutral spaces
    neutral_names = ck.str_list(doc["neutral"], "neutral", what="spaces", unique=False)
    if len(neutral_names) != 2:
        ck.fail("neutral", f"exactly 2 neutral spaces are needed, got {len(neutral_names)}")
    for j, sp in enumerate(neutral_names):
        if sp not in space_index:
            ck.fail(f"neutral[{j}]", f"unknown space '{sp}'")
    if neutral_names[0] == neutral_names[1]:
        ck.fail("neutral", f"the two neutral spaces must differ, got '{neutral_names[0]}' twice")
    neutral = tuple(space_index[sp] for sp in neutral_names)

    return Instrument(
        name=name,
        department=dept,
        expansion=expansion,
        reconstructed=reconstructed,
        path=str(path),
        description=description,
        space_ids=tuple(space_ids),
        numbers=tuple(numbers),
        colours=tuple(colours),
        space_sections=tuple(tuple(sorted(m)) for m in memberships),
        section_ids=tuple(sec_ids),
        section_symbols=tuple(sec_symbols),
        section_numbers=tuple(sec_numbers),
        section_spaces=tuple(section_spaces),
        section_adjacent=tuple(sec_adjacent),
        section_terms=tuple(terms_all),
        lines=tuple(lines),
        neutral=neutral,
        track_need=tuple(need),
        track_vp=tuple(vp),
        track_token=tuple(token),
        penalty_per_space=penalty,
        total_cost=sum(numbers),
        replaces=replaces,
        _space_index=space_index,
        _section_index=sec_index,
    )


# =========================================================================== library


def instrument_files(path):
    """The instrument files a path names: a ``.toml`` file, or every ``*.toml`` of a folder.

    A missing path, or a folder holding no ``*.toml``, raises :class:`DataError` naming it."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.toml"))
        if not files:
            raise DataError(p, "", "no instrument files (*.toml) in this folder")
        return files
    if p.is_file():
        return [p]
    if p.suffix == ".toml":
        raise DataError(p, "", "file not found")
    raise DataError(p, "", "instrument file or folder not found")


def validate_paths(paths, board=None):
    """Check instrument files as ``--instrument-dir`` would load them: yields ``(file, Instrument or
    DataError)`` per file. Besides each file's own checks, a name that differs only in case from a
    packaged instrument or from another file given here is an error (the library compares names
    without regard to case)."""
    board = board if board is not None else load_board()
    seen = {}
    for f in sorted(INSTRUMENT_DIR.glob("*.toml")):
        try:
            inst = load_instrument(f, board)
        except DataError:
            continue
        seen[inst.name.casefold()] = (inst.name, f.resolve())
    for p in paths:
        try:
            files = instrument_files(p)
        except DataError as exc:
            yield Path(p), exc
            continue
        for f in files:
            try:
                inst = load_instrument(f, board)
                key = inst.name.casefold()
                other = seen.get(key)
                if other is not None and other[1] != f.resolve():
                    raise DataError(
                        f,
                        "instrument.name",
                        f"'{inst.name}' is already the name of an instrument ({other[0]}, {other[1]}); "
                        "names are compared without regard to case",
                    )
                seen[key] = (inst.name, f.resolve())
            except DataError as exc:
                yield f, exc
            else:
                yield f, inst



class InstrumentLibrary:
    """The packaged instruments plus every ``*.toml`` found in ``extra_dirs``.

    An entry of ``extra_dirs`` may also be a single ``.toml`` file. Names are unique, compared
    without regard to case.
    """

    def __init__(self, extra_dirs=(), board=None):
        if isinstance(extra_dirs, (str, Path)):
            extra_dirs = (extra_dirs,)
        self.board = board if board is not None else load_board()
        files = sorted(INSTRUMENT_DIR.glob("*.toml"))
        for d in extra_dirs:
            d = Path(d)
            if d.is_dir():
                files.extend(sorted(d.glob("*.toml")))
            elif d.is_file():
                files.append(d)
            else:
                raise DataError(d, "", "instrument directory not found")
        self._by_key = {}
        shipped = set()
        for f in files:
            inst = load_instrument(f, self.board)
            key = inst.name.casefold()
            if key in self._by_key:
                other = self._by_key[key]
                # A designer's copy marked `replaces = true` takes the place of a shipped instrument
                # (e.g. the files `ssb tune` writes); any other clash is a mistake.
                if not (inst.replaces and key in shipped):
                    hint = "; mark the copy `replaces = true` in [instrument] to replace it" if key in shipped else ""
                    raise DataError(
                        f,
                        "instrument.name",
                        f"duplicate instrument name '{inst.name}' (already defined in {other.path}){hint}",
                    )
                shipped.discard(key)
            elif Path(f).parent == INSTRUMENT_DIR:
                shipped.add(key)
            self._by_key[key] = inst
        self._order = sorted(self._by_key.values(), key=lambda i: (i.department, i.expansion, i.name.casefold()))

    def __len__(self):
        return len(self._order)

    def __iter__(self):
        return iter(self._order)

    def __contains__(self, name):
        return isinstance(name, str) and name.strip().casefold() in self._by_key

    def names(self):
        """Instrument names, by department (black, orange, gray), base game before expansion."""
        return [i.name for i in self._order]

    def get(self, name):
        """Instrument by name, ignoring case. Unknown names raise DataError listing the known ones."""
        inst = self._by_key.get(str(name).strip().casefold())
        if inst is None:
            raise DataError(
                LIBRARY_SOURCE, "name", f"unknown instrument '{name}'; known instruments: {', '.join(self.names())}"
            )
        return inst

    def by_department(self, department):
        """Instruments of one department, given by index (0..2) or name."""
        d = _department_index(department)
        return [i for i in self._order if i.department == d]

    def lineup(self, names=STARTER):
        """Three instruments, one per department, returned in department order black, orange, gray."""
        names = list(names)
        if len(names) != L.N_DEPT:
            raise DataError(LIBRARY_SOURCE, "lineup", f"need one instrument per department ({L.N_DEPT}), got {len(names)}")
        slots = [None] * L.N_DEPT
        for n in names:
            inst = self.get(n)
            if slots[inst.department] is not None:
                raise DataError(
                    LIBRARY_SOURCE,
                    "lineup",
                    f"{slots[inst.department].name} and {inst.name} are both {inst.department_name} instruments",
                )
            slots[inst.department] = inst
        return tuple(slots)

    def starter(self):
        return self.lineup(STARTER)


def _department_index(department):
    if isinstance(department, str):
        key = department.strip().lower()
        if key not in L.DEPT_NAMES:
            raise DataError(LIBRARY_SOURCE, "department", f"unknown department '{department}'")
        return L.DEPT_NAMES.index(key)
    d = int(department)
    if not 0 <= d < L.N_DEPT:
        raise DataError(LIBRARY_SOURCE, "department", f"department index {d} out of range 0..{L.N_DEPT - 1}")
    return d


# =========================================================================== packing


def pack_geo(board, instruments, nplayers):
    """Fill the kernel's ``geo`` int64 array (layout in ``simulator.layout``).

    ``instruments`` holds three :class:`Instrument` in department order black, orange, gray.
    """
    if isinstance(nplayers, bool) or not isinstance(nplayers, (int, np.integer)) or not 2 <= nplayers <= L.MAX_PLAYERS:
        raise DataError(LIBRARY_SOURCE, "nplayers", f"player count must be 2..{L.MAX_PLAYERS}, got {nplayers!r}")
    instruments = tuple(instruments)
    if len(instruments) != L.N_DEPT:
        raise DataError(LIBRARY_SOURCE, "instruments", f"need {L.N_DEPT} instruments, got {len(instruments)}")
    for d, inst in enumerate(instruments):
        if not isinstance(inst, Instrument):
            raise DataError(LIBRARY_SOURCE, f"instruments[{d}]", f"expected an Instrument, got {type(inst).__name__}")
        if inst.department != d:
            raise DataError(
                inst.path,
                f"instruments[{d}]",
                f"slot {d} takes a {L.DEPT_NAMES[d]} instrument; {inst.name} is {inst.department_name}",
            )

    geo = np.zeros(L.GEO_SIZE, dtype=np.int64)
    geo[L.G_NPLAYERS] = int(nplayers)
    geo[L.G_BUILD_PIECES] = board.build_pieces
    geo[L.G_UPG_PIECES] = board.upgrade_pieces
    for c in range(L.N_DEPT):
        geo[L.G_START_CATS + c] = board.start_cats[c]
    geo[L.G_MAX_ROUNDS] = board.max_rounds
    for k in range(L.N_SLICES):
        geo[L.G_SLICE_ACTIONS + k] = board.slices[k]
    geo[L.G_SHUFFLE_WHEELS] = 1 if board.shuffle_wheels else 0
    geo[L.G_PENALTY_LAST] = board.penalty_last
    geo[L.G_PRI_PIECE_CREDIT] = board.pri_piece_credit
    geo[L.G_TIE_BREAK] = board.tie_break

    for d, inst in enumerate(instruments):
        _pack_instrument(geo, L.G_INST + d * L.INST_SIZE, inst)
    return geo


def pack_derived(geo, base):
    """Fill the fields of the instrument block at ``base`` that follow from its other fields, so that
    the kernel reads them instead of working them out on every call. Call it once the block is
    otherwise complete.

    * From the link table, for the inspector route search (R8): for each space the bit mask of its
      lines (``I_INCIDENT``), for each line the XOR of its two spaces (``I_EDGE_XOR``). A space lists
      its lines in increasing line order, so visiting the set bits of a mask from the lowest visits
      the lines in the link table's order.
    * From the space numbers and colours, for the placements a seat can pay for (R6): for each cat
      colour ``c`` and number ``k`` the spaces of colour ``c`` numbered at most ``k``
      (``I_AFFORD + c * (MAX_NUMBER + 1) + k``).
    * From the scoring terms, for the greedy placement worth: each section's rough objective worth
      per space (``I_SEC_WORTH``, float64 bits), see ``section_worth``."""
    geo[base + L.I_INCIDENT : base + L.I_INCIDENT + L.MAX_SPACES] = 0
    geo[base + L.I_EDGE_XOR : base + L.I_EDGE_XOR + L.MAX_EDGES] = 0
    geo[base + L.I_AFFORD : base + L.I_AFFORD + 3 * (L.MAX_NUMBER + 1)] = 0
    geo[base + L.I_SEC_WORTH : base + L.I_SEC_WORTH + L.MAX_SECTIONS] = 0
    for x in range(int(geo[base + L.I_NSPACES])):
        for k in range(int(geo[base + L.I_NLINKS + x])):
            e = int(geo[base + L.I_LINKEDGE + x * L.MAX_LINKS + k])
            y = int(geo[base + L.I_LINK + x * L.MAX_LINKS + k])
            geo[base + L.I_INCIDENT + x] |= 1 << e
            geo[base + L.I_EDGE_XOR + e] = x ^ y
        colour = int(geo[base + L.I_COLOUR + x])
        for k in range(int(geo[base + L.I_COST + x]), L.MAX_NUMBER + 1):
            geo[base + L.I_AFFORD + colour * (L.MAX_NUMBER + 1) + k] |= 1 << x
    for s in range(int(geo[base + L.I_NSECTIONS])):
        worth = np.array(section_worth(geo, base, s), dtype=np.float64)
        geo[base + L.I_SEC_WORTH + s] = worth.view(np.int64)


def section_worth(geo, base, s):
    """A rough worth per space of section ``s``'s objective, for the greedy placement worth: the
    first rank award, half the per-piece points of a full section, one point per space for the
    completer and majority-takes-all terms, and the adjacency and longest-group points weighted
    1, 2 and 3."""
    size = bin(int(geo[base + L.I_SEC_SPACES + s])).count("1")
    h = 0.0
    for j in range(L.MAX_TERMS):
        t = s * L.MAX_TERMS + j
        code = int(geo[base + L.I_TERM_CODE + t])
        p1 = int(geo[base + L.I_TERM_P + t * 4])
        if code in (L.T_RANK, L.T_RANK_ORDER):
            h += int(geo[base + L.I_TERM_AWARDS + t * L.MAX_AWARDS])
        elif code == L.T_PER_PIECE:
            h += p1 * size * 0.5
        elif code in (L.T_COMPLETER, L.T_MAJORITY_ALL):
            h += size
        elif code == L.T_ADJ_PRESENCE:
            h += p1
        elif code == L.T_ADJ_PER_PIECE:
            h += 2.0 * p1
        elif code == L.T_LONGEST_GROUP:
            h += 3.0 * p1
    return h / max(size, 1)


def _pack_instrument(geo, base, inst):
    n = inst.nspaces
    geo[base + L.I_NSPACES] = n
    geo[base + L.I_PENALTY] = inst.penalty_per_space
    geo[base + L.I_NSECTIONS] = inst.nsections
    geo[base + L.I_NEDGES] = len(inst.lines)
    geo[base + L.I_NEUTRAL] = inst.neutral[0]
    geo[base + L.I_NEUTRAL + 1] = inst.neutral[1]
    geo[base + L.I_TOTAL_COST] = inst.total_cost
    geo[base + L.I_LINK : base + L.I_LINK + L.MAX_SPACES * L.MAX_LINKS] = -1
    geo[base + L.I_LINKEDGE : base + L.I_LINKEDGE + L.MAX_SPACES * L.MAX_LINKS] = -1
    for i in range(n):
        geo[base + L.I_COST + i] = inst.numbers[i]
        geo[base + L.I_COLOUR + i] = inst.colours[i]
        m = 0
        for s in inst.space_sections[i]:
            m |= 1 << s
        geo[base + L.I_SECMASK + i] = m
    for e, (a, b) in enumerate(inst.lines):
        for x, y in ((a, b), (b, a)):
            k = int(geo[base + L.I_NLINKS + x])
            geo[base + L.I_LINK + x * L.MAX_LINKS + k] = y
            geo[base + L.I_LINKEDGE + x * L.MAX_LINKS + k] = e
            geo[base + L.I_NLINKS + x] = k + 1
    for s in range(inst.nsections):
        geo[base + L.I_SEC_SPACES + s] = inst.section_mask(s)
        am = 0
        for a in inst.section_adjacent[s]:
            am |= 1 << a
        geo[base + L.I_SEC_ADJ + s] = am
        num = inst.section_numbers[s]
        geo[base + L.I_SEC_NUMBER + s] = 0 if num is None else num
        for j, term in enumerate(inst.section_terms[s]):
            t = s * L.MAX_TERMS + j
            geo[base + L.I_TERM_CODE + t] = term.code
            geo[base + L.I_TERM_SCOPE + t] = term.scope_mask
            for p in range(4):
                geo[base + L.I_TERM_P + t * 4 + p] = term.params[p]
            geo[base + L.I_TERM_NAWARDS + t] = len(term.awards)
            for k, v in enumerate(term.awards):
                geo[base + L.I_TERM_AWARDS + t * L.MAX_AWARDS + k] = v
            for k, v in enumerate(term.later):
                geo[base + L.I_TERM_AWARDS2 + t * L.MAX_AWARDS + k] = v
    for k in range(L.N_TRACK):
        geo[base + L.I_TRACK_NEED + k] = inst.track_need[k]
        geo[base + L.I_TRACK_VP + k] = inst.track_vp[k]
        geo[base + L.I_TRACK_TOKEN + k] = 1 if inst.track_token[k] else 0
    geo[base + L.I_ALL_SPACES] = inst.all_spaces_mask
    pack_derived(geo, base)


def _bits(mask):
    mask = int(mask)
    return [i for i in range(64) if (mask >> i) & 1]


def unpack_geo(geo):
    """Read a packed ``geo`` array back into plain Python structures (for reports, tests, debugging).

    Returns ``{"board": {...}, "instruments": [{...}, {...}, {...}]}``; indices, not ids (use
    :meth:`Instrument.space_name` / :meth:`Instrument.section_name` to print them).
    """
    g = [int(x) for x in np.asarray(geo)]
    board = {
        "nplayers": g[L.G_NPLAYERS],
        "build_pieces": g[L.G_BUILD_PIECES],
        "upgrade_pieces": g[L.G_UPG_PIECES],
        "start_cats": g[L.G_START_CATS : L.G_START_CATS + L.N_DEPT],
        "max_rounds": g[L.G_MAX_ROUNDS],
        "slices": g[L.G_SLICE_ACTIONS : L.G_SLICE_ACTIONS + L.N_SLICES],
        "shuffle_wheels": bool(g[L.G_SHUFFLE_WHEELS]),
    }
    insts = []
    for d in range(L.N_DEPT):
        b = L.G_INST + d * L.INST_SIZE
        n = g[b + L.I_NSPACES]
        ns = g[b + L.I_NSECTIONS]
        links = []
        for i in range(n):
            k = g[b + L.I_NLINKS + i]
            links.append(
                [
                    (g[b + L.I_LINK + i * L.MAX_LINKS + j], g[b + L.I_LINKEDGE + i * L.MAX_LINKS + j])
                    for j in range(k)
                ]
            )
        sections = []
        for s in range(ns):
            terms = []
            for j in range(L.MAX_TERMS):
                t = s * L.MAX_TERMS + j
                code = g[b + L.I_TERM_CODE + t]
                if code == L.T_NONE:
                    continue
                na = g[b + L.I_TERM_NAWARDS + t]
                terms.append(
                    {
                        "code": code,
                        "rule": L.TERM_NAMES[code],
                        "scope": _bits(g[b + L.I_TERM_SCOPE + t]),
                        "params": g[b + L.I_TERM_P + t * 4 : b + L.I_TERM_P + t * 4 + 4],
                        "awards": g[b + L.I_TERM_AWARDS + t * L.MAX_AWARDS : b + L.I_TERM_AWARDS + t * L.MAX_AWARDS + na],
                        "later": g[b + L.I_TERM_AWARDS2 + t * L.MAX_AWARDS : b + L.I_TERM_AWARDS2 + (t + 1) * L.MAX_AWARDS],
                    }
                )
            sections.append(
                {
                    "spaces": _bits(g[b + L.I_SEC_SPACES + s]),
                    "adjacent": _bits(g[b + L.I_SEC_ADJ + s]),
                    "number": g[b + L.I_SEC_NUMBER + s],
                    "terms": terms,
                }
            )
        insts.append(
            {
                "nspaces": n,
                "penalty": g[b + L.I_PENALTY],
                "nedges": g[b + L.I_NEDGES],
                "neutral": g[b + L.I_NEUTRAL : b + L.I_NEUTRAL + 2],
                "total_cost": g[b + L.I_TOTAL_COST],
                "cost": g[b + L.I_COST : b + L.I_COST + n],
                "colour": g[b + L.I_COLOUR : b + L.I_COLOUR + n],
                "secmask": g[b + L.I_SECMASK : b + L.I_SECMASK + n],
                "links": links,
                "sections": sections,
                "track_need": g[b + L.I_TRACK_NEED : b + L.I_TRACK_NEED + L.N_TRACK],
                "track_vp": g[b + L.I_TRACK_VP : b + L.I_TRACK_VP + L.N_TRACK],
                "track_token": g[b + L.I_TRACK_TOKEN : b + L.I_TRACK_TOKEN + L.N_TRACK],
                "all_spaces": g[b + L.I_ALL_SPACES],
            }
        )
    return {"board": board, "instruments": insts}
