"""Echidna Shuffle component data: board files and game numbers, their validator, the ``geo`` packer.

A board file (``data/forest.toml``, ``data/snow.toml``, or a designer's own, passed by path)::

    [board]
    name = "forest"
    reconstructed = true        # the printed layout is not public
    description = "..."

    [[space]]
    id = "L0"
    x = 0.0                     # optional, for drawing
    y = 10.0
    to = ["L1", "A0"]           # one or two outgoing arrows

The loader checks what ECHIDNA-DECISIONS.md asks of a board: 40 to 56 spaces, one or two arrows
out of each (no dead end), arrows only to spaces of the board and never to the space itself, and
every space reachable from every other along the arrows. ``data/game.toml`` holds the die, the
number board, the token supply and schedule, the riding limit and the stall cap. Every problem
raises :class:`simulator.errors.DataError` (``FILE: KEY: reason``).
"""

import difflib
import math
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from simulator.echidna import layout as L
from simulator.errors import DataError
from simulator.validate import Checker, read_toml

DATA_DIR = Path(__file__).resolve().parent / "data"
BOARD_NAMES = ("forest", "snow")
MIN_SPACES = 40


@dataclass(frozen=True)
class Board:
    """One board: space ids, drawing coordinates and arrows (as space indices)."""

    name: str
    path: str
    ids: tuple
    xy: tuple  # (x, y) per space, or None
    arrows: tuple  # tuple of tuples of target indices
    reconstructed: bool = False
    description: str = ""

    @property
    def nspaces(self):
        return len(self.ids)

    def index(self, space_id):
        return self.ids.index(space_id)

    def distances(self):
        """Steps along arrows between every pair (``[a][a]``: the shortest way round back)."""
        return _distances(self.arrows)


@dataclass(frozen=True)
class GameRules:
    """The numbers of ``data/game.toml``."""

    path: str
    echidnas: int
    bugs: int
    die: tuple
    number_board: tuple
    move_tokens: int
    catch_up: tuple
    home_stretch_cap: int
    riding_limit_5_6: int
    max_rounds: int


# The most tokens a home-stretch gain may bring a player to, as a variant switch: the supply of
# the box (game.toml's move_tokens, 25) is the most a player can ever hold.
HS_CAP_MAX = 25


@dataclass(frozen=True)
class Variants:
    """The rulebook's variants as switches (E7, E8, variant 3, variant 4), a token schedule
    (catch-up tokens by seat; ``None`` takes the one in ``game.toml``), so other schedules can be
    tried as data, and two rules levers: the order in which the pick-up spaces are chosen (E1:
    ``reverse``, the last seat first, as the rulebook says; ``turn``, the first seat first;
    ``random``, an order drawn for each game from its seed) and the home-stretch cap (E8; ``None``
    takes ``game.toml``'s)."""

    catch_up: bool = False
    home_stretch: bool = False
    extra_bugs: bool = False
    roll_every_turn: bool = False
    token_schedule: tuple | None = None
    max_rounds: int | None = None
    pickup_order: str = "reverse"
    home_stretch_cap: int | None = None

    KEYS = (
        "catch_up",
        "home_stretch",
        "extra_bugs",
        "roll_every_turn",
        "token_schedule",
        "max_rounds",
        "pickup_order",
        "home_stretch_cap",
    )

    def label(self):
        on = [k for k in ("catch_up", "home_stretch", "extra_bugs", "roll_every_turn") if getattr(self, k)]
        if self.pickup_order != "reverse":
            on.append(f"pickup_order={self.pickup_order}")
        if self.home_stretch_cap is not None:
            on.append(f"home_stretch_cap={self.home_stretch_cap}")
        if self.max_rounds is not None:
            on.append(f"max_rounds={self.max_rounds}")  # a changed stall cap (E9) is a variant too
        text = "+".join(on) if on else "base"
        if self.token_schedule is not None:
            text += "[" + ",".join(str(t) for t in self.token_schedule) + "]"
        return text


def variants_from_dict(raw, file="variants", key="variants"):
    """Variants from a table (a scenario's ``[variants]``); unknown keys and bad values are errors."""
    ck = Checker(file)
    ck.table(raw, key, optional=Variants.KEYS)
    kw = {}
    for name in ("catch_up", "home_stretch", "extra_bugs", "roll_every_turn"):
        if name in raw:
            kw[name] = ck.boolean(raw[name], f"{key}.{name}")
    if "token_schedule" in raw:
        kw["token_schedule"] = ck.int_list(raw["token_schedule"], f"{key}.token_schedule", 1, L.MAX_PLAYERS, 0, 25)
    if "max_rounds" in raw:
        kw["max_rounds"] = ck.integer(raw["max_rounds"], f"{key}.max_rounds", 1, 100000)
    if "pickup_order" in raw:
        where = f"{key}.pickup_order"
        order = ck.string(raw["pickup_order"], where)
        if order not in L.PICKUP_ORDERS:
            reason = f"'{order}' is not a pick-up order (E1); known: {', '.join(L.PICKUP_ORDERS)}"
            close = difflib.get_close_matches(order.lower(), L.PICKUP_ORDERS, n=1)
            if close:
                reason += f" (did you mean '{close[0]}'?)"
            ck.fail(where, reason)
        kw["pickup_order"] = order
    if "home_stretch_cap" in raw:
        kw["home_stretch_cap"] = ck.integer(
            raw["home_stretch_cap"], f"{key}.home_stretch_cap", 0, HS_CAP_MAX, "tokens a player may hold, at most the supply"
        )
    return Variants(**kw)


def _distances(arrows):
    n = len(arrows)
    d = np.full((n, n), -1, dtype=np.int64)
    for a in range(n):
        # BFS from the successors of a: d[a][b] counts at least one step.
        q = deque()
        for t in arrows[a]:
            if d[a, t] < 0:
                d[a, t] = 1
                q.append(t)
        while q:
            x = q.popleft()
            for t in arrows[x]:
                if d[a, t] < 0:
                    d[a, t] = d[a, x] + 1
                    q.append(t)
    return d


def board_path(name_or_path):
    """A shipped board by name (``forest``, ``snow``) or a path to a board file."""
    text = str(name_or_path)
    if text.lower() in BOARD_NAMES:
        return DATA_DIR / f"{text.lower()}.toml"
    path = Path(text)
    if path.suffix != ".toml" and not path.exists():
        raise DataError("board", text, f"unknown board; known: {', '.join(BOARD_NAMES)} (or a path to a .toml file)")
    return path


def load_board(name_or_path="forest"):
    """Read and validate a board file."""
    path = board_path(name_or_path)
    raw = read_toml(path)
    return board_from_doc(raw, path)


def board_from_doc(raw, path):
    """Validate a parsed board document (``path`` names it in errors)."""
    ck = Checker(path)
    ck.table(raw, "", required=("board", "space"))
    head = ck.table(raw["board"], "board", required=("name",), optional=("reconstructed", "description"))
    # A board's name goes where an instrument's or a strategy's does (cell keys, --set, reports):
    # the same name rule.
    name = ck.name(head["name"], "board.name")
    reconstructed = ck.boolean(head.get("reconstructed", False), "board.reconstructed")
    description = head.get("description", "")
    if not isinstance(description, str):
        ck.fail("board.description", "expected a string")
    spaces = ck.table_array(raw["space"], "space", MIN_SPACES, L.MAX_SPACES, "spaces")
    ids = []
    for i, sp in enumerate(spaces):
        key = f"space[{i}]"
        ck.table(sp, key, required=("id", "to"), optional=("x", "y"))
        sid = ck.string(sp["id"], f"{key}.id")
        if sid in ids:
            ck.fail(f"{key}.id", f"space '{sid}' is defined twice")
        ids.append(sid)
    index = {s: i for i, s in enumerate(ids)}
    arrows = []
    xy = []
    for i, sp in enumerate(spaces):
        key = f"space[{ids[i]}]"
        to = sp["to"]
        if not isinstance(to, list):
            ck.fail(f"{key}.to", f"expected a list of space ids, got {to!r}")
        if len(to) == 0:
            ck.fail(f"{key}.to", "a dead end: every space needs one or two outgoing arrows")
        if len(to) > 2:
            ck.fail(f"{key}.to", f"{len(to)} arrows; a space has one or two outgoing arrows")
        targets = []
        for k, t in enumerate(to):
            if not isinstance(t, str):
                ck.fail(f"{key}.to[{k}]", f"expected a space id, got {t!r}")
            if t not in index:
                ck.fail(f"{key}.to[{k}]", f"arrow to a missing space '{t}'")
            if t == ids[i]:
                ck.fail(f"{key}.to[{k}]", "an arrow from a space to itself")
            if index[t] in targets:
                ck.fail(f"{key}.to[{k}]", f"two arrows to '{t}'")
            targets.append(index[t])
        arrows.append(tuple(targets))
        if ("x" in sp) != ("y" in sp):
            ck.fail(key, "give both x and y, or neither")
        if "x" in sp:
            for c in ("x", "y"):
                if isinstance(sp[c], bool) or not isinstance(sp[c], (int, float)):
                    ck.fail(f"{key}.{c}", f"expected a number, got {sp[c]!r}")
                if not math.isfinite(sp[c]):
                    ck.fail(f"{key}.{c}", f"expected a finite number, got {sp[c]!r}: the board could not be drawn")
            xy.append((float(sp["x"]), float(sp["y"])))
            if xy[-1] in xy[:-1]:
                other = ids[xy.index(xy[-1])]
                ck.fail(f"{key}", f"at the same place ({xy[-1][0]:g}, {xy[-1][1]:g}) as space '{other}': "
                                  "the drawing would show one space for both")
        else:
            xy.append(None)
    preds = [0] * len(ids)
    for targets in arrows:
        for t in targets:
            preds[t] += 1
    for t, k in enumerate(preds):
        if k > L.MAX_PRED:
            ck.fail(f"space[{ids[t]}]", f"{k} arrows lead into it; at most {L.MAX_PRED} supported")
    d = _distances(arrows)
    for b in range(len(ids)):
        if d[0, b] < 0:
            ck.fail(f"space[{ids[b]}]", f"unreachable: no way along the arrows from '{ids[0]}' to it")
        if d[b, 0] < 0:
            ck.fail(f"space[{ids[b]}]", f"no way along the arrows from it back to '{ids[0]}' (a trap)")
    if name.lower() in BOARD_NAMES and Path(path).resolve() != (DATA_DIR / f"{name.lower()}.toml").resolve():
        ck.fail("board.name", f"'{name}' is the name of a shipped board: a board of your own needs its own name "
                              "(results and reports name the board, and would mistake one for the other)")
    return Board(name, str(path), tuple(ids), tuple(xy), tuple(arrows), reconstructed, description)


def load_rules(path=None):
    """Read and validate ``data/game.toml`` (or another file of the same shape)."""
    path = Path(path) if path else DATA_DIR / "game.toml"
    raw = read_toml(path)
    ck = Checker(path)
    ck.table(raw, "", required=("game",))
    keys = (
        "echidnas",
        "bugs_per_player",
        "die",
        "number_board",
        "move_tokens",
        "catch_up",
        "home_stretch_cap",
        "riding_limit_5_6",
        "max_rounds",
    )
    g = ck.table(raw["game"], "game", required=keys)
    echidnas = ck.integer(g["echidnas"], "game.echidnas", L.N_ECHIDNAS, L.N_ECHIDNAS)
    bugs = ck.integer(g["bugs_per_player"], "game.bugs_per_player", L.BUGS, L.BUGS)
    die = ck.int_list(g["die"], "game.die", 1, L.MAX_FACES, 1, L.MAX_FACES - 1)
    pair = ck.int_list(g["number_board"], "game.number_board", exact=len(die), lo=1, hi=L.MAX_FACES - 1)
    tops = {}
    for i, f in enumerate(die):
        if f in tops and tops[f] != pair[i]:
            ck.fail(f"game.number_board[{i}]", f"face {f} is joined to two bottom numbers")
        tops[f] = pair[i]
    tokens = ck.integer(g["move_tokens"], "game.move_tokens", 0, 1000)
    sched = ck.int_list(g["catch_up"], "game.catch_up", exact=L.MAX_PLAYERS, lo=0, hi=tokens)
    if sum(sched) > tokens:
        ck.fail("game.catch_up", f"hands out {sum(sched)} tokens, the supply holds {tokens}")
    cap = ck.integer(g["home_stretch_cap"], "game.home_stretch_cap", 0, 100)
    limit = ck.integer(g["riding_limit_5_6"], "game.riding_limit_5_6", 1, L.BUGS)
    rounds = ck.integer(g["max_rounds"], "game.max_rounds", 1, 100000)
    return GameRules(str(path), echidnas, bugs, die, pair, tokens, sched, cap, limit, rounds)


def pack_geo(board, rules, nplayers, variants=Variants()):
    """The kernel's ``geo`` array for one board, rule set, player count and variants."""
    if nplayers not in L.PLAYER_COUNTS:
        raise DataError("game", "players", f"{nplayers} players is not supported (2 to 6)")
    sched = rules.catch_up if variants.token_schedule is None else tuple(variants.token_schedule)
    if len(sched) < nplayers:
        raise DataError("variants", "token_schedule", f"gives tokens to {len(sched)} seats, the game has {nplayers}")
    if sum(sched[:nplayers]) > rules.move_tokens:
        raise DataError("variants", "token_schedule", f"hands out more than the {rules.move_tokens} tokens of the supply")
    geo = np.zeros(L.GEO_SIZE, dtype=np.int64)
    n = board.nspaces
    geo[L.G_NSPACES] = n
    geo[L.G_NPLAYERS] = nplayers
    geo[L.G_NUMBER_BOARD] = 0 if variants.roll_every_turn else 1
    geo[L.G_CATCH_UP] = int(variants.catch_up)
    geo[L.G_HOME_STRETCH] = int(variants.home_stretch)
    geo[L.G_EXTRA_BUGS] = int(variants.extra_bugs)
    geo[L.G_MAX_ROUNDS] = variants.max_rounds or rules.max_rounds
    geo[L.G_RIDING_LIMIT] = rules.riding_limit_5_6 if nplayers >= 5 else L.BUGS
    cap = rules.home_stretch_cap if variants.home_stretch_cap is None else variants.home_stretch_cap
    if cap > rules.move_tokens:
        raise DataError("variants", "home_stretch_cap", f"{cap} is above the {rules.move_tokens} tokens of the supply")
    geo[L.G_HS_CAP] = cap
    if variants.pickup_order not in L.PICKUP_ORDERS:
        raise DataError("variants", "pickup_order", f"'{variants.pickup_order}' is not one of: {', '.join(L.PICKUP_ORDERS)}")
    geo[L.G_PICKUP_ORDER] = L.PICKUP_ORDERS.index(variants.pickup_order)
    geo[L.G_SUPPLY] = rules.move_tokens
    geo[L.G_NFACES] = len(rules.die)
    for i, f in enumerate(rules.die):
        geo[L.G_FACES + i] = f
        geo[L.G_PAIR + f] = rules.number_board[i]
    for k in range(L.MAX_PLAYERS):
        geo[L.G_SCHED + k] = sched[k] if k < len(sched) else 0
    geo[L.G_OUT0 : L.G_OUT0 + L.MAX_SPACES] = L.NONE
    geo[L.G_OUT1 : L.G_OUT1 + L.MAX_SPACES] = L.NONE
    for s, targets in enumerate(board.arrows):
        geo[L.G_OUT0 + s] = targets[0]
        if len(targets) > 1:
            geo[L.G_OUT1 + s] = targets[1]
        for t in targets:
            k = geo[L.G_NPRED + t]
            geo[L.G_PRED + t * L.MAX_PRED + k] = s
            geo[L.G_NPRED + t] = k + 1
            geo[L.G_PREDMASK + t] |= 1 << s
    d = board.distances()
    full = np.zeros((L.MAX_SPACES, L.MAX_SPACES), dtype=np.int64)
    full[:n, :n] = d
    geo[L.G_DIST : L.G_DIST + L.MAX_SPACES * L.MAX_SPACES] = full.reshape(-1)
    return geo


@dataclass
class EchidnaSetup:
    """Everything fixed for a series of games: board, rules, player count, variants."""

    nplayers: int = 4
    board: object = "forest"
    variants: Variants = field(default_factory=Variants)
    rules: GameRules = None

    def __post_init__(self):
        if not isinstance(self.board, Board):
            self.board = load_board(self.board)
        if self.rules is None:
            self.rules = load_rules()
        self.geo = pack_geo(self.board, self.rules, self.nplayers, self.variants)

    def with_variants(self, **kw):
        return EchidnaSetup(self.nplayers, self.board, replace(self.variants, **kw), self.rules)

    @property
    def label(self):
        return f"{self.board.name}/{self.variants.label()}"
