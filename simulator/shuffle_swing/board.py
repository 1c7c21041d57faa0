"""The board of Shuffle and Swing: ``board.toml`` (board and player facts, ruling switches) loaded and
checked, and the bounds every integer of the game's data files keeps (so that no valid file can
overflow the kernel's arithmetic)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from simulator.shuffle_swing import layout as L
from simulator.validate import Checker, join_key, read_toml

DATA_DIR = Path(__file__).resolve().parent / "data"
BOARD_PATH = DATA_DIR / "board.toml"


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
MAX_TOKENS = 100  # boost tokens of one type a seat starts with
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
    start = MAX_POINTS  # a seat's starting points ([seats] start_points)
    return objectives + track + penalty + inspector + start




def points(ck, value, key, lo=0):
    """A score contribution: an integer ``lo..MAX_POINTS`` (read by ``ck``, a :class:`Checker`)."""
    return ck.integer(value, key, lo, MAX_POINTS, POINTS_WHY)


# =========================================================================== seat levers

PLAYER_COUNTS = tuple(range(2, L.MAX_PLAYERS + 1))


@dataclass(frozen=True)
class SeatSetup:
    """What each seat of a game of ``nplayers`` starts with beyond the rulebook's set-up (``[seats]``
    in board.toml); tuples indexed by seat in turn order (seat 0 plays first)."""

    nplayers: int
    start_points: tuple  # points
    extra_cats: tuple  # per seat: ready cats by colour index, beyond [player] starting_cats
    start_tokens: tuple  # per seat: boost tokens by type index (ladder, milk, cheese)
    expert_dice: tuple  # per seat: how many of its three dice start on 2* instead of "1"
    brag_stack: tuple  # per seat: its disc's place in every starting brag stack, 0 = bottom
    # The R13 reading at this player count (a code of RULINGS["tie_break"]), or -1: [rulings]'s.
    tie_break: int = -1

    @classmethod
    def rulebook(cls, nplayers):
        """The rulebook's set-up: nothing extra, discs stacked in reverse turn order."""
        none = tuple((0,) * L.N_DEPT for _ in range(nplayers))
        return cls(nplayers, (0,) * nplayers, none, none, (0,) * nplayers, tuple(range(nplayers - 1, -1, -1)))

    @property
    def is_rulebook(self):
        return self == SeatSetup.rulebook(self.nplayers)


# [seats] in board.toml: key -> (what one seat's value is, its bound). Every key is a table by player
# count ("2", "3", "4"), each a list with one value per seat in turn order; a count left out keeps
# the rulebook's set-up.
SEAT_KEYS = ("start_points", "extra_cats", "start_tokens", "expert_dice", "brag_stack")
# A per-count lever beside them: ``tie_break = { 3 = "shared" }`` reads R13 so at that player count
# only (one word, as [rulings] tie_break; a count left out keeps [rulings]'s reading).
COUNT_KEYS = ("tie_break",)


def _parse_seats(ck, raw):
    """``[seats]`` -> one :class:`SeatSetup` per player count (2, 3, 4)."""
    t = ck.table(raw, "seats", optional=SEAT_KEYS + COUNT_KEYS)
    counts = tuple(str(n) for n in PLAYER_COUNTS)
    tables = {k: ck.table(t.get(k, {}), f"seats.{k}", optional=counts) for k in SEAT_KEYS + COUNT_KEYS}
    out = []
    for n in PLAYER_COUNTS:
        setup = SeatSetup.rulebook(n)
        values = {}
        for k in SEAT_KEYS:
            if str(n) not in tables[k]:
                values[k] = getattr(setup, k)
                continue
            key = f"seats.{k}.{n}"
            row = tables[k][str(n)]
            ck.array(row, key, what="values")
            if len(row) != n:
                ck.fail(key, f"one value per seat in turn order: {n} players need {n} values, got {len(row)}")
            values[k] = tuple(_seat_value(ck, k, v, f"{key}[{i}]", n) for i, v in enumerate(row))
        stack = values["brag_stack"]
        if sorted(stack) != list(range(n)):
            ck.fail(
                f"seats.brag_stack.{n}",
                f"each seat's place in the stack, 0 (bottom) to {n - 1} (top), each once; got {list(stack)}",
            )
        if str(n) in tables["tie_break"]:
            choices = RULINGS["tie_break"]
            word = ck.string(tables["tie_break"][str(n)], f"seats.tie_break.{n}", choices=choices)
            values["tie_break"] = choices.index(word)
        out.append(SeatSetup(nplayers=n, **values))
    return tuple(out)


def _seat_value(ck, key, value, where, n):
    """One seat's value of ``[seats]`` key ``key``."""
    if key == "start_points":
        return ck.integer(value, where, 0, MAX_POINTS, POINTS_WHY)
    if key == "expert_dice":
        return ck.integer(value, where, 0, L.DICE_PER_OWNER, f"a seat has {L.DICE_PER_OWNER} dice")
    if key == "brag_stack":
        return ck.integer(value, where, 0, n - 1, f"places in a stack of {n} discs, 0 = bottom")
    names, hi = (L.COLOUR_NAMES, MAX_CATS) if key == "extra_cats" else (L.TOKEN_NAMES, MAX_TOKENS)
    t = ck.table(value, where, optional=names)
    return tuple(ck.integer(t.get(c, 0), f"{where}.{c}", 0, hi) for c in names)


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
    # Seat levers ([seats]): one SeatSetup per player count 2, 3, 4; empty = the rulebook's set-up.
    seats: tuple = ()

    def count_lever_word(self, nplayers, key):
        """A per-count reading of ``[seats]`` (``tie_break``) at ``nplayers``, as the file writes it: the
        count's own word, or [rulings]'s when the count names none."""
        code = getattr(self.seat_setup(nplayers), key)
        return RULINGS[key][code if code >= 0 else getattr(self, key)]

    def seat_setup(self, nplayers):
        """The :class:`SeatSetup` of a game of ``nplayers``."""
        for s in self.seats:
            if s.nplayers == nplayers:
                return s
        return SeatSetup.rulebook(nplayers)


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


def parse_track(ck, table, key, default_need=None, default_vp=None, default_token=None):
    """Brag track lists; missing lists fall back to the defaults (if given)."""
    n = L.N_TRACK
    for name in ("need", "vp", "token"):
        if name in table and isinstance(table[name], list) and len(table[name]) != n:
            ck.fail(
                join_key(key, name),
                f"the kernel supports exactly {n} brag-track spaces, got {len(table[name])}",
            )
    need = (
        ck.int_list(table["need"], join_key(key, "need"), exact=n, lo=0, hi=MAX_PIECES) if "need" in table else default_need
    )
    vp = (
        ck.int_list(table["vp"], join_key(key, "vp"), exact=n, lo=0, hi=MAX_POINTS, why=POINTS_WHY)
        if "vp" in table
        else default_vp
    )
    token = ck.bool_list(table["token"], join_key(key, "token"), exact=n) if "token" in table else default_token
    if need is not None and "need" in table:
        if need[0] != 0:
            ck.fail(join_key(key, "need[0]"), "the bottom space of the track must need 0 pieces")
        for i in range(1, n):
            if need[i] < need[i - 1]:
                ck.fail(join_key(key, f"need[{i}]"), "pieces needed must not decrease along the track")
    return need, vp, token


def load_board(path=None, doc=None):
    """Load and validate ``board.toml`` (the packaged one by default); ``doc``: its already read,
    possibly changed, contents (scenario overrides ``board.<key>``)."""
    path = Path(path) if path is not None else BOARD_PATH
    ck = Checker(path)
    doc = read_toml(path) if doc is None else doc
    ck.table(doc, "", required=("board", "wheel", "dice", "player", "quilt", "track"), optional=("rulings", "seats"))

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
    penalty = points(ck, b["penalty_per_space"], "board.penalty_per_space")
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
    need, vp, token = parse_track(ck, {k: t[k] for k in ("need", "vp", "token")}, "track")
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
    seats = _parse_seats(ck, doc.get("seats", {}))
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
        seats=seats,
    )
