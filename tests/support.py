"""Hand-built game states for tests, without data files.

The kernel reads two flat arrays (``simulator.shuffle_swing.layout``): ``geo`` (int64, the components) and ``st``
(int32, the state). This module packs both from short Python descriptions so a test can set up a
rulebook situation in a few lines::

    from support import make_geo, make_state, place, big_log

    geo = make_geo(
        spaces=[(1, "orange", [0]), (2, "gray", [0]), (1, "gray", [1])],   # number, colour, sections
        lines=[(0, 1), (1, 2)],                                            # inspector lines
        sections=[dict(terms=[("rank", None, [4, 2, 1])]),                 # scope None: own spaces
                  dict(terms=[("per_piece", None, [], [], (1,))], adjacent=[0])],
        dept=0,
    )
    st = make_state(2, geo)
    place(st, 0, space=0, owner=1)
    place(st, 0, space=0, owner=1, outer=True)

The instrument goes into department slot ``dept``; the other two slots hold empty instruments
(no spaces, no sections) with the default brag track, unless ``others`` describes them too.

A term is a tuple ``(code, scope, awards, awards2, p)``; trailing items may be left out, or a dict
with those keys may be given instead:

* ``code``: a name of ``layout.TERM_NAMES`` ("rank", "rank_by_order", "per_piece", "completer",
  "adjacent_presence", "adjacent_per_piece", "majority_takes_all", "longest_group") or its integer.
* ``scope``: ``None`` (the section's own spaces), ``"all"`` (every space of the instrument), an int
  bit mask of spaces, ``{"spaces": [...]}`` or ``{"sections": [...]}`` (the union of those sections).
* ``awards`` / ``awards2``: award lists by rank (``awards2`` only for rank_by_order). Floors such as
  "N, N-2, N-3, never below 0" are written out already clamped, e.g. ``[3, 1, 0]``.
* ``p``: up to four integers p1..p4 (per_piece p1; completer p1/p2 and p3/p4; adjacency and
  longest_group p1).

``make_state`` gives a blank state: nobody has placed anything, discs at the bottom of each track
stacked in reverse turn order (R14: Pri plays last, so her disc is lowest), no neutral disc (R15).
It is not the engine's setup (no dice on wheels, no pawns, no neutral pieces); tests of the engine
that need those set them by hand or call the engine's own setup.
"""

import numpy as np

from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.pack import pack_derived
from simulator.shuffle_swing.layout import (
    AUTOMA,
    BUILD_PIECES,
    COLOUR_NAMES,
    DICE_PER_OWNER,
    EV_SCORE,
    G_BUILD_PIECES,
    G_INST,
    G_MAX_ROUNDS,
    G_NPLAYERS,
    G_SHUFFLE_WHEELS,
    G_SLICE_ACTIONS,
    G_START_CATS,
    G_UPG_PIECES,
    GEO_SIZE,
    I_ALL_SPACES,
    I_COLOUR,
    I_COST,
    I_LINK,
    I_LINKEDGE,
    I_NEDGES,
    I_NEUTRAL,
    I_NLINKS,
    I_NSECTIONS,
    I_NSPACES,
    I_PENALTY,
    I_SEC_ADJ,
    I_SEC_NUMBER,
    I_SEC_SPACES,
    I_SECMASK,
    I_TERM_AWARDS,
    I_TERM_AWARDS2,
    I_TERM_CODE,
    I_TERM_NAWARDS,
    I_TERM_P,
    I_TERM_SCOPE,
    I_TOTAL_COST,
    I_TRACK_NEED,
    I_TRACK_TOKEN,
    I_TRACK_VP,
    INST_SIZE,
    LOG_WIDTH,
    MAX_AWARDS,
    MAX_EDGES,
    MAX_LINKS,
    MAX_PLAYERS,
    MAX_SECTIONS,
    MAX_SPACES,
    MAX_TERMS,
    N_DEPT,
    N_OWNERS,
    N_QUILT,
    N_ROOMS,
    N_SLICES,
    N_SRC,
    N_TRACK,
    NOVICE_START,
    CONSTRUCT,
    INSPECT,
    REFRESH,
    S_BRAG_POS,
    S_BRAG_STAMP,
    S_BUILD_LEFT,
    S_BUILT,
    S_BUILT_TURN,
    S_DIE_FACE,
    S_DIE_POS,
    S_DIE_WHERE,
    S_EMPTY,
    S_INNER,
    S_INSPECTOR,
    S_MAX_ROUNDS,
    S_NPLAYERS,
    S_OUTER,
    S_PAWN,
    S_PIECES,
    S_QUILT,
    S_READY,
    S_ROOM_DIE,
    S_SCORE,
    S_SEC_COMPLETER,
    S_SLICE_ACTION,
    S_SLICE_DIE,
    S_SRC,
    S_STAMP,
    S_TURN,
    S_UPG_LEFT,
    S_WINNER,
    STATE_SIZE,
    TERM_NAMES,
    UPGRADE_PIECES,
    W_ABSENT,
    W_SUPPLY,
)

DEFAULT_TRACK_NEED = (0, 1, 2, 4, 6, 8, 10, 12)
DEFAULT_TRACK_VP = (0, 2, 4, 7, 10, 15, 17, 20)
DEFAULT_TOKEN_SPACES = (2, 4, 6)
DEFAULT_SLICES = (CONSTRUCT, CONSTRUCT, REFRESH, INSPECT)


# --------------------------------------------------------------------------- small helpers


def mask_of(spaces):
    """Bit mask of a collection of space indices."""
    m = 0
    for sp in spaces:
        if not 0 <= sp < MAX_SPACES:
            raise ValueError(f"space {sp} out of range")
        m |= 1 << sp
    return m


def spaces_of(mask):
    """Space indices set in a bit mask, ascending."""
    return [sp for sp in range(MAX_SPACES) if (int(mask) >> sp) & 1]


def _colour(c):
    if isinstance(c, str):
        return COLOUR_NAMES.index(c)
    c = int(c)
    if not 0 <= c < N_DEPT:
        raise ValueError(f"colour {c} out of range")
    return c


def _term_code(code):
    if isinstance(code, str):
        return TERM_NAMES.index(code)
    return int(code)


def _normalise_term(term):
    if isinstance(term, dict):
        t = dict(term)
    else:
        term = tuple(term)
        keys = ("code", "scope", "awards", "awards2", "p")
        if not 1 <= len(term) <= len(keys):
            raise ValueError(f"bad term {term!r}")
        t = dict(zip(keys, term))
    t.setdefault("scope", None)
    t["awards"] = list(t.get("awards") or [])
    t["awards2"] = list(t.get("awards2") or [])
    t["p"] = list(t.get("p") or [])
    if len(t["awards"]) > MAX_AWARDS or len(t["awards2"]) > MAX_AWARDS:
        raise ValueError(f"at most {MAX_AWARDS} awards per list")
    if len(t["p"]) > 4:
        raise ValueError("at most four parameters p1..p4")
    return t


def _scope_mask(scope, own_mask, all_mask, sec_masks):
    if scope is None:
        return own_mask
    if isinstance(scope, str):
        if scope == "all":
            return all_mask
        if scope == "section":
            return own_mask
        raise ValueError(f"unknown scope {scope!r}")
    if isinstance(scope, dict):
        if "spaces" in scope:
            return mask_of(scope["spaces"])
        if "sections" in scope:
            m = 0
            for s in scope["sections"]:
                m |= sec_masks[s]
            return m
        raise ValueError(f"unknown scope {scope!r}")
    return int(scope)


# --------------------------------------------------------------------------- geo


def pack_instrument(
    geo,
    dept,
    spaces=(),
    lines=(),
    sections=(),
    neutral=None,
    penalty=2,
    track_need=DEFAULT_TRACK_NEED,
    track_vp=DEFAULT_TRACK_VP,
    token_spaces=DEFAULT_TOKEN_SPACES,
):
    """Write one instrument into department slot ``dept`` of ``geo`` (in place).

    ``spaces``: ``(number, colour, [section indices])`` per space, in index order; ``colour`` is a
    name of ``layout.COLOUR_NAMES`` or its index. ``lines``: undirected inspector lines ``(a, b)``;
    a line's id is its position in the list. ``sections``: dicts with ``terms`` (see the module
    docstring), optional ``adjacent`` (section indices, taken as given, not symmetrised) and
    optional ``number`` (the printed number, display only). ``neutral``: the two spaces that get
    neutral pieces with three players (R15), -1 when absent.
    """
    spaces = [tuple(x) for x in spaces]
    lines = [tuple(x) for x in lines]
    sections = list(sections)
    if len(spaces) > MAX_SPACES:
        raise ValueError(f"at most {MAX_SPACES} spaces")
    if len(sections) > MAX_SECTIONS:
        raise ValueError(f"at most {MAX_SECTIONS} sections")
    if len(lines) > MAX_EDGES:
        raise ValueError(f"at most {MAX_EDGES} lines")
    b = G_INST + dept * INST_SIZE
    geo[b : b + INST_SIZE] = 0
    nsp = len(spaces)
    geo[b + I_NSPACES] = nsp
    geo[b + I_PENALTY] = penalty
    geo[b + I_NSECTIONS] = len(sections)
    geo[b + I_NEDGES] = len(lines)
    neutral = list(neutral) if neutral is not None else []
    neutral += [-1] * (2 - len(neutral))
    geo[b + I_NEUTRAL] = neutral[0]
    geo[b + I_NEUTRAL + 1] = neutral[1]

    sec_masks = [0] * len(sections)
    total = 0
    for sp, (number, colour, secs) in enumerate(spaces):
        geo[b + I_COST + sp] = number
        geo[b + I_COLOUR + sp] = _colour(colour)
        total += number
        m = 0
        for s in secs:
            if not 0 <= s < len(sections):
                raise ValueError(f"space {sp} names section {s}, which is not described")
            m |= 1 << s
            sec_masks[s] |= 1 << sp
        geo[b + I_SECMASK + sp] = m
    geo[b + I_TOTAL_COST] = total
    all_mask = (1 << nsp) - 1
    geo[b + I_ALL_SPACES] = all_mask

    geo[b + I_LINK : b + I_LINK + MAX_SPACES * MAX_LINKS] = -1
    geo[b + I_LINKEDGE : b + I_LINKEDGE + MAX_SPACES * MAX_LINKS] = -1
    for e, (u, v) in enumerate(lines):
        if not (0 <= u < nsp and 0 <= v < nsp) or u == v:
            raise ValueError(f"bad line {(u, v)}")
        for a, z in ((u, v), (v, u)):
            k = geo[b + I_NLINKS + a]
            if k >= MAX_LINKS:
                raise ValueError(f"space {a} has more than {MAX_LINKS} lines")
            geo[b + I_LINK + a * MAX_LINKS + k] = z
            geo[b + I_LINKEDGE + a * MAX_LINKS + k] = e
            geo[b + I_NLINKS + a] = k + 1
    for s, sec in enumerate(sections):
        geo[b + I_SEC_SPACES + s] = sec_masks[s]
        geo[b + I_SEC_ADJ + s] = sum(1 << a for a in sec.get("adjacent", ()))
        geo[b + I_SEC_NUMBER + s] = sec.get("number", 0)
        terms = [_normalise_term(t) for t in sec.get("terms", ())]
        if len(terms) > MAX_TERMS:
            raise ValueError(f"at most {MAX_TERMS} terms per section")
        for j, term in enumerate(terms):
            t = s * MAX_TERMS + j
            geo[b + I_TERM_CODE + t] = _term_code(term["code"])
            geo[b + I_TERM_SCOPE + t] = _scope_mask(term["scope"], sec_masks[s], all_mask, sec_masks)
            for i, p in enumerate(term["p"]):
                geo[b + I_TERM_P + t * 4 + i] = p
            geo[b + I_TERM_NAWARDS + t] = max(len(term["awards"]), len(term["awards2"]))
            for k, a in enumerate(term["awards"]):
                geo[b + I_TERM_AWARDS + t * MAX_AWARDS + k] = a
            for k, a in enumerate(term["awards2"]):
                geo[b + I_TERM_AWARDS2 + t * MAX_AWARDS + k] = a

    for i in range(N_TRACK):
        geo[b + I_TRACK_NEED + i] = track_need[i]
        geo[b + I_TRACK_VP + i] = track_vp[i]
        geo[b + I_TRACK_TOKEN + i] = 1 if i in token_spaces else 0
    pack_derived(geo, b)
    return geo


def make_geo(
    spaces=(),
    lines=(),
    sections=(),
    dept=0,
    nplayers=2,
    others=None,
    neutral=None,
    penalty=2,
    track_need=DEFAULT_TRACK_NEED,
    track_vp=DEFAULT_TRACK_VP,
    token_spaces=DEFAULT_TOKEN_SPACES,
    start_cats=(1, 1, 1),
    max_rounds=60,
    slices=DEFAULT_SLICES,
    shuffle_wheels=0,
):
    """An int64 ``geo`` array of size ``GEO_SIZE`` with one hand-described instrument.

    The instrument (``spaces``, ``lines``, ``sections``, ``neutral``, ``penalty`` and the track, see
    :func:`pack_instrument`) goes into slot ``dept``. ``others`` may map further department slots to
    dicts of :func:`pack_instrument` keyword arguments; remaining slots get empty instruments.
    Board defaults: 25 build and 6 upgrade pieces, one ready cat of each colour, a 60-round cap, the
    Construct, Construct, Refresh, Inspect wheel, not shuffled (so tests are deterministic).
    """
    geo = np.zeros(GEO_SIZE, dtype=np.int64)
    geo[G_NPLAYERS] = nplayers
    geo[G_BUILD_PIECES] = BUILD_PIECES
    geo[G_UPG_PIECES] = UPGRADE_PIECES
    for c in range(3):
        geo[G_START_CATS + c] = start_cats[c]
    geo[G_MAX_ROUNDS] = max_rounds
    for i in range(N_SLICES):
        geo[G_SLICE_ACTIONS + i] = slices[i]
    geo[G_SHUFFLE_WHEELS] = shuffle_wheels
    track = dict(track_need=track_need, track_vp=track_vp, token_spaces=token_spaces)
    others = dict(others or {})
    if dept in others:
        raise ValueError("slot dept is described by the main arguments")
    for d in range(N_DEPT):
        if d == dept:
            pack_instrument(geo, d, spaces, lines, sections, neutral, penalty, **track)
        elif d in others:
            kw = dict(track)
            kw.update(others[d])
            pack_instrument(geo, d, **kw)
        else:
            pack_instrument(geo, d, penalty=penalty, **track)
    return geo


# --------------------------------------------------------------------------- state


def make_state(nplayers, geo=None):
    """A blank int32 state of size ``STATE_SIZE`` for ``nplayers`` (2, 3 or 4).

    Boards empty (every cell -1), inspectors off the board, no section completed (completer -1).
    Brag discs: each seat and, with two players, Pri (R14) on space 0 of every track, stacked in
    reverse turn order, so the last to play is lowest (Pri, then the last seat, ..., seat 0 on top);
    the neutral (R15) and absent owners have no disc (-1). Seats' dice in supply on the novice "1";
    Pri's and absent owners' dice absent. With ``geo`` the empty-space counts, starting cats,
    pieces, wheel slices and round cap are taken from it; without, those stay 0.
    """
    if nplayers not in (2, 3, 4):
        raise ValueError("nplayers must be 2, 3 or 4")
    st = np.zeros(STATE_SIZE, dtype=np.int32)
    st[S_NPLAYERS] = nplayers
    st[S_WINNER] = -1
    st[S_PAWN : S_PAWN + N_OWNERS] = -1
    st[S_SLICE_DIE : S_SLICE_DIE + N_DEPT * N_SLICES] = -1
    st[S_ROOM_DIE : S_ROOM_DIE + N_ROOMS] = -1
    st[S_QUILT : S_QUILT + N_OWNERS * N_QUILT] = -1
    st[S_INNER : S_INNER + N_DEPT * MAX_SPACES] = -1
    st[S_OUTER : S_OUTER + N_DEPT * MAX_SPACES] = -1
    st[S_INSPECTOR : S_INSPECTOR + N_DEPT] = -1
    st[S_BUILT_TURN : S_BUILT_TURN + N_DEPT] = -1
    st[S_SEC_COMPLETER : S_SEC_COMPLETER + N_DEPT * MAX_SECTIONS] = -1

    # Turn order of the owners with a disc, first to last; the last ends up lowest in the stack.
    with_disc = list(range(nplayers)) + ([AUTOMA] if nplayers == 2 else [])
    for d in range(N_DEPT):
        st[S_BRAG_POS + d * N_OWNERS : S_BRAG_POS + (d + 1) * N_OWNERS] = -1
        for stamp, o in enumerate(reversed(with_disc), start=1):
            st[S_BRAG_POS + d * N_OWNERS + o] = 0
            st[S_BRAG_STAMP + d * N_OWNERS + o] = stamp
    st[S_STAMP] = len(with_disc)

    for o in range(N_OWNERS):
        seat = o < nplayers
        for k in range(DICE_PER_OWNER):
            die = o * DICE_PER_OWNER + k
            st[S_DIE_WHERE + die] = W_SUPPLY if seat else W_ABSENT
            st[S_DIE_POS + die] = -1
            st[S_DIE_FACE + die] = NOVICE_START

    if geo is not None:
        for d in range(N_DEPT):
            b = G_INST + d * INST_SIZE
            st[S_EMPTY + d] = geo[b + I_NSPACES]
            for i in range(N_SLICES):
                st[S_SLICE_ACTION + d * N_SLICES + i] = geo[G_SLICE_ACTIONS + i]
        st[S_MAX_ROUNDS] = geo[G_MAX_ROUNDS]
        for o in range(N_OWNERS):
            if o < nplayers or (o == AUTOMA and nplayers in (2, 3)):
                st[S_BUILD_LEFT + o] = geo[G_BUILD_PIECES]
                st[S_UPG_LEFT + o] = geo[G_UPG_PIECES]
            if o < nplayers:
                for c in range(3):
                    st[S_READY + o * 3 + c] = geo[G_START_CATS + c]
    return st


def place(st, d, space, owner, outer=False):
    """Put a piece of ``owner`` on ``space`` of instrument ``d``, keeping the counters in step.

    Inner: the space must be empty; the instrument's empty count drops (and it is flagged built
    when that reaches 0). Outer: the space must hold an inner piece and no outer piece. The owner's
    per-instrument piece count rises and its matching supply falls (never below 0). Sections are
    not flagged here: call ``objectives.mark_completions`` for that, as the engine does.
    """
    cell = (S_OUTER if outer else S_INNER) + d * MAX_SPACES + space
    if outer:
        if st[S_INNER + d * MAX_SPACES + space] < 0:
            raise ValueError(f"no inner piece under the upgrade on space {space}")
        if st[cell] >= 0:
            raise ValueError(f"space {space} already holds an outer piece")
    elif st[cell] >= 0:
        raise ValueError(f"space {space} already holds an inner piece")
    st[cell] = owner
    st[S_PIECES + d * N_OWNERS + owner] += 1
    left = (S_UPG_LEFT if outer else S_BUILD_LEFT) + owner
    if st[left] > 0:
        st[left] -= 1
    if not outer and st[S_EMPTY + d] > 0:
        st[S_EMPTY + d] -= 1
        if st[S_EMPTY + d] == 0:
            st[S_BUILT + d] = 1
            st[S_BUILT_TURN + d] = st[S_TURN]


def place_many(st, d, placements):
    """Place ``(space, owner)`` inner pieces, or ``(space, owner, outer)``, in order."""
    for p in placements:
        place(st, d, *p)


def set_brag(st, d, owner, pos, stamp=None):
    """Put ``owner``'s disc on space ``pos`` of instrument ``d``'s track.

    Without ``stamp`` the disc arrives now, on top of any disc already there; an explicit stamp sets
    its place in the stack (lower = beneath = arrived earlier, wins ties, R10), and the arrival
    counter is raised to it so that later arrivals still land on top.
    """
    st[S_BRAG_POS + d * N_OWNERS + owner] = pos
    if stamp is None:
        st[S_STAMP] += 1
        stamp = st[S_STAMP]
    elif stamp > st[S_STAMP]:
        st[S_STAMP] = stamp  # later arrivals stay above this one
    st[S_BRAG_STAMP + d * N_OWNERS + owner] = stamp


# --------------------------------------------------------------------------- logs and readings


def empty_log():
    """A one-row log: the kernel records nothing (the fast path)."""
    return np.zeros((1, LOG_WIDTH), dtype=np.int32)


def big_log(rows=4096):
    """A log with room for ``rows - 1`` events; row 0 holds the count."""
    return np.zeros((rows, LOG_WIDTH), dtype=np.int32)


def events(log, code=None):
    """The logged events as lists ``[turn, seat, code, a, b, c, d, e]``, optionally of one code."""
    rows = log[1 : 1 + int(log[0, 0])]
    return [list(map(int, r)) for r in rows if code is None or r[2] == code]


def score_events(log):
    """``(owner, points, source, dept, where)`` for every logged score event."""
    return [tuple(r[3:8]) for r in events(log, EV_SCORE)]


def scores(st):
    """Total score of each of the ``MAX_PLAYERS`` seats."""
    return [int(st[S_SCORE + o]) for o in range(MAX_PLAYERS)]


def source_points(st, owner, src):
    """Points ``owner`` has from score source ``src`` (``layout.SRC_*``)."""
    return int(st[S_SRC + owner * N_SRC + src])


# --------------------------------------------------------------------------- dice, cats, turn options


def die_of(owner, k=0):
    """Id of ``owner``'s die number ``k``."""
    return owner * L.DICE_PER_OWNER + k


def put_on_wheel(st, die, d, s, face):
    """Stand ``die`` on slice ``s`` of department ``d``'s wheel, showing ``face``."""
    st[L.S_SLICE_DIE + d * L.N_SLICES + s] = die
    st[L.S_DIE_WHERE + die] = L.W_WHEEL
    st[L.S_DIE_POS + die] = d * L.N_SLICES + s
    st[L.S_DIE_FACE + die] = face


def put_in_room(st, die, room, face=L.NOVICE_TOP):
    """Put ``die`` into break room ``room`` (by default on its novice top face, as after use)."""
    st[L.S_ROOM_DIE + room] = die
    st[L.S_DIE_WHERE + die] = L.W_ROOM
    st[L.S_DIE_POS + die] = room
    st[L.S_DIE_FACE + die] = face


def ready(st, p):
    """Seat ``p``'s ready cats as [black, orange, gray]."""
    return [int(st[L.S_READY + p * 3 + c]) for c in range(3)]


def set_ready(st, p, black=0, orange=0, gray=0):
    """Set seat ``p``'s ready cats."""
    st[L.S_READY + p * 3 : L.S_READY + p * 3 + 3] = (black, orange, gray)


def candidates(st, p):
    """The (spot, die, slice) choices the engine offers seat ``p`` this turn (R1, R3)."""
    from simulator.shuffle_swing.kernel import engine

    c_spot = np.empty(engine.MAX_CAND, np.int64)
    c_die = np.empty(engine.MAX_CAND, np.int64)
    c_slice = np.empty(engine.MAX_CAND, np.int64)
    n = engine.enumerate_turns(st, p, c_spot, c_die, c_slice)
    return [(int(c_spot[i]), int(c_die[i]), int(c_slice[i])) for i in range(n)]
