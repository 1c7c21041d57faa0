"""Rule primitives: each function applies one fully specified game step to the state.

No choice is made here: the caller (the turn driver in ``engine.py``, or a test on a hand-built state)
says which spot, which die, which space, which quilt space. Rulings of ``DECISIONS.md`` are cited as Rn.
"""

import numpy as np

from simulator.shuffle_swing.kernel.core import add_points, brag_step, emit, kernel, kernel_alloc, owner_present, stat_add
from simulator.shuffle_swing.kernel.objectives import mark_completions
from simulator.shuffle_swing.layout import (
    AUTOMA,
    BRAG_PRI,
    CONSTRUCT,
    DICE_PER_OWNER,
    EV_BUMP,
    EV_BUILD,
    EV_EXHAUST,
    EV_FINAL,
    EV_INSPECT_STEP,
    EV_MOVE,
    EV_PICKUP,
    EV_PRI_CLIMB,
    EV_PRI_MOVE,
    EV_PRI_PIECE,
    EV_RECRUIT,
    EV_REFRESH,
    EV_SELECT,
    EV_TICK,
    EV_TO_ROOM,
    EXPERT_START,
    EXPERT_TOP,
    G_BRAG_STACK,
    G_BRAG_STACK_SET,
    G_BUILD_PIECES,
    G_INST,
    G_MAX_ROUNDS,
    G_SEAT_CATS,
    G_SEAT_EXPERTS,
    G_SEAT_POINTS,
    G_SEAT_TOKENS,
    G_SHUFFLE_WHEELS,
    G_SLICE_ACTIONS,
    G_START_CATS,
    G_UPG_PIECES,
    I_COST,
    I_NEUTRAL,
    I_NSPACES,
    I_PENALTY,
    I_TRACK_NEED,
    I_TRACK_VP,
    INST_SIZE,
    MAX_SECTIONS,
    MAX_SPACES,
    N_DEPT,
    N_DICE,
    N_OWNERS,
    N_QUILT,
    N_ROOMS,
    N_SLICES,
    N_SPOTS,
    N_TRACK,
    NOVICE_START,
    NOVICE_TOP,
    QUILT_COL,
    QUILT_ROW,
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
    S_STAMP,
    S_TIEBREAK,
    S_TIED,
    S_TOKENS,
    S_TURN,
    S_UPG_LEFT,
    S_WHEEL_SHUFFLED,
    S_WINNER,
    SRC_BRAG,
    SRC_INSPECTOR,
    SRC_PENALTY,
    ST_BUILDS,
    ST_BUMPED,
    ST_BUMPS_MADE,
    ST_CATS_LOST,
    ST_CATS_RECRUITED,
    ST_CATS_REFRESHED,
    ST_PICKUPS,
    ST_TOKENS_SPENT,
    ST_UPGRADES,
    ST_CHEESE_JUMPS,
    ST_UPGRADES_ON_OTHERS,
    ST_AWARD_BY_DISC,
    ST_AWARD_BY_PIECES,
    ST_PENALTY_TAKEN,
    G_PENALTY_LAST,
    G_PRI_PIECE_CREDIT,
    G_TIE_BREAK,
    TIE_EARLIEST,
    TIE_SHARED,
    S_CUR,
    STATE_SIZE,
    W_ABSENT,
    W_ROOM,
    W_SUPPLY,
    W_WHEEL,
)

# --------------------------------------------------------------------------- geometry helpers


@kernel
def spot_open_for_count(spot, nplayers):
    """The middle spot of each department is used only with four players (R15 for three, R14 for two)."""
    return nplayers == 4 or spot % 3 != 1


@kernel
def room_between(a, b):
    """Break room passed when a pawn moves from department ``a`` to ``b`` (R1), -1 within a department.

    Room r sits between department r and department r + 1 (clockwise), so the shortest route from a
    department to its clockwise neighbour passes room a, and to its anticlockwise neighbour room b.
    """
    if a == b or a < 0:
        return -1
    if b == (a + 1) % N_DEPT:
        return a
    return b


@kernel
def rooms_of_dept(d):
    """The two break rooms next to department ``d``: clockwise side first."""
    return d, (d + N_DEPT - 1) % N_DEPT


@kernel
def inst_base(d):
    """Offset of department ``d``'s instrument block in ``geo``."""
    return G_INST + d * INST_SIZE


@kernel
def wheel_count(st, d):
    """Dice on department ``d``'s wheel."""
    n = 0
    for s in range(N_SLICES):
        if st[S_SLICE_DIE + d * N_SLICES + s] >= 0:
            n += 1
    return n


@kernel
def die_owner(die):
    """Owner (seat, or 4 for Pri) of a die id."""
    return die // DICE_PER_OWNER


@kernel
def spot_occupied(st, spot):
    """True if any pawn (Pri's included) stands on ``spot``."""
    for o in range(N_OWNERS):
        if st[S_PAWN + o] == spot:
            return True
    return False


@kernel
def cube_level(st, geo, d, owner):
    """Highest track space whose piece requirement ``owner`` meets on instrument ``d`` (R12)."""
    return level_for(geo, d, st[S_PIECES + d * N_OWNERS + owner])


@kernel
def level_for(geo, d, n):
    """Highest track space of instrument ``d`` whose piece requirement ``n`` pieces meet."""
    base = inst_base(d)
    lvl = 0
    for k in range(N_TRACK):
        if geo[base + I_TRACK_NEED + k] <= n:
            lvl = k
    return lvl


# --------------------------------------------------------------------------- setup


@kernel_alloc
def new_state(geo, nplayers, rng_perm):
    """A fresh game before any choice: pieces, cats, discs, dice in supply, wheels laid out.

    ``rng_perm`` is an int array [N_DEPT * N_SLICES] giving, for each department, the slice order
    (a permutation of 0..3 of the board's slice list): the seeded wheel shuffle of the setup.
    """
    st = np.zeros(STATE_SIZE, dtype=np.int32)
    st[S_NPLAYERS] = nplayers
    st[S_MAX_ROUNDS] = geo[G_MAX_ROUNDS]
    st[S_WINNER] = -1
    st[S_WHEEL_SHUFFLED] = geo[G_SHUFFLE_WHEELS]
    for o in range(N_OWNERS):
        st[S_PAWN + o] = -1
    for d in range(N_DEPT):
        for s in range(N_SLICES):
            st[S_SLICE_ACTION + d * N_SLICES + s] = geo[G_SLICE_ACTIONS + rng_perm[d * N_SLICES + s]]
            st[S_SLICE_DIE + d * N_SLICES + s] = -1
    for die in range(N_DICE):
        o = die_owner(die)
        st[S_DIE_WHERE + die] = W_SUPPLY if (o < nplayers or (o == AUTOMA and nplayers == 2)) else W_ABSENT
        st[S_DIE_POS + die] = -1
        st[S_DIE_FACE + die] = NOVICE_START
        # Seat lever: a seat's first dice may start as experts on 2* (the other supply face, R2, R3).
        if o < nplayers and die - o * DICE_PER_OWNER < geo[G_SEAT_EXPERTS + o]:
            st[S_DIE_FACE + die] = EXPERT_START
    for r in range(N_ROOMS):
        st[S_ROOM_DIE + r] = -1
    for p in range(N_OWNERS):
        for q in range(N_QUILT):
            st[S_QUILT + p * N_QUILT + q] = -1
    for p in range(nplayers):
        for c in range(3):
            # Seat levers: cats beyond the board's starting cats, boost tokens, starting points.
            st[S_READY + p * 3 + c] = geo[G_START_CATS + c] + geo[G_SEAT_CATS + p * 3 + c]
            st[S_TOKENS + p * 3 + c] = geo[G_SEAT_TOKENS + p * 3 + c]
        st[S_SCORE + p] = geo[G_SEAT_POINTS + p]
        st[S_BUILD_LEFT + p] = geo[G_BUILD_PIECES]
        st[S_UPG_LEFT + p] = geo[G_UPG_PIECES]
    if nplayers == 2:
        st[S_BUILD_LEFT + AUTOMA] = geo[G_BUILD_PIECES]
        st[S_UPG_LEFT + AUTOMA] = geo[G_UPG_PIECES]
    for d in range(N_DEPT):
        base = inst_base(d)
        ns = geo[base + I_NSPACES]
        for s in range(MAX_SPACES):
            st[S_INNER + d * MAX_SPACES + s] = -1
            st[S_OUTER + d * MAX_SPACES + s] = -1
        st[S_INSPECTOR + d] = -1
        st[S_EMPTY + d] = ns
        st[S_BUILT_TURN + d] = -1
        for s in range(MAX_SECTIONS):
            st[S_SEC_COMPLETER + d * MAX_SECTIONS + s] = -1
        # Discs stacked in reverse turn order: the last seat lowest (wins ties), the first seat on top.
        # Pri moves after the second player (R14), so her disc goes beneath both. The seat lever
        # G_BRAG_STACK orders the seats' discs otherwise (Pri's stays beneath them).
        for o in range(N_OWNERS):
            st[S_BRAG_POS + d * N_OWNERS + o] = -1
        stamp = 0
        if nplayers == 2:
            st[S_BRAG_POS + d * N_OWNERS + AUTOMA] = 0
            st[S_BRAG_STAMP + d * N_OWNERS + AUTOMA] = stamp
            stamp += 1
        for p in range(nplayers - 1, -1, -1):
            st[S_BRAG_POS + d * N_OWNERS + p] = 0
            if geo[G_BRAG_STACK_SET] != 0:
                st[S_BRAG_STAMP + d * N_OWNERS + p] = stamp + geo[G_BRAG_STACK + p]
            else:
                st[S_BRAG_STAMP + d * N_OWNERS + p] = stamp + (nplayers - 1 - p)
        stamp += nplayers
        # Three players: two neutral inner pieces on the marked spaces (R15).
        if nplayers == 3:
            for k in range(2):
                sp = geo[base + I_NEUTRAL + k]
                if 0 <= sp < ns:
                    st[S_INNER + d * MAX_SPACES + sp] = AUTOMA
                    st[S_PIECES + d * N_OWNERS + AUTOMA] += 1
                    st[S_EMPTY + d] -= 1
        if st[S_EMPTY + d] == 0:
            st[S_BUILT + d] = 1
    st[S_STAMP] = 16
    return st


@kernel
def place_pri_setup(st, spot, slices):
    """Two-player setup (R14): Pri's pawn on ``spot``; her die d on Construct slice ``slices[d]`` at 2*."""
    st[S_PAWN + AUTOMA] = spot
    for d in range(N_DEPT):
        die = AUTOMA * DICE_PER_OWNER + d
        s = slices[d]
        st[S_SLICE_DIE + d * N_SLICES + s] = die
        st[S_DIE_WHERE + die] = W_WHEEL
        st[S_DIE_POS + die] = d * N_SLICES + s
        st[S_DIE_FACE + die] = EXPERT_START


@kernel
def construct_slices(st, d, out):
    """Write the Construct slice indices of department ``d`` into ``out``; return how many."""
    n = 0
    for s in range(N_SLICES):
        if st[S_SLICE_ACTION + d * N_SLICES + s] == CONSTRUCT:
            out[n] = s
            n += 1
    return n


# --------------------------------------------------------------------------- step 1: pawn


@kernel
def move_pawn(st, log, p, spot):
    """Move seat ``p``'s pawn (R1). Returns the break room passed (-1 if none); pickup is separate."""
    frm = st[S_PAWN + p]
    room = -1
    if frm >= 0:
        room = room_between(frm // 3, spot // 3)
    st[S_PAWN + p] = spot
    if log.shape[0] > 1:
        emit(log, st, EV_MOVE, p, frm, spot, room, 0)
    return room


@kernel
def own_die_in_room(st, p, room):
    """``p``'s die in break room ``room``, or -1 (also for room -1)."""
    if room < 0:
        return -1
    die = st[S_ROOM_DIE + room]
    if die >= 0 and die_owner(die) == p:
        return die
    return -1


@kernel
def pickup(st, log, p, room):
    """Mandatory pickup of ``p``'s die from ``room`` (R2): back to supply on 2*, for good an expert.

    The two brag actions it grants are taken by the caller (they are choices).
    """
    die = st[S_ROOM_DIE + room]
    st[S_ROOM_DIE + room] = -1
    st[S_DIE_WHERE + die] = W_SUPPLY
    st[S_DIE_POS + die] = -1
    st[S_DIE_FACE + die] = EXPERT_START
    stat_add(st, p, ST_PICKUPS, 1)
    if log.shape[0] > 1:
        emit(log, st, EV_PICKUP, p, room, die, 0, 0)
    return die


# --------------------------------------------------------------------------- step 2: die


@kernel
def select_die(st, log, p, d, die, slice_idx):
    """Seat ``p`` selects ``die`` at department ``d`` (R3).

    A die from the supply enters on the open slice ``slice_idx`` showing its current face; a die on the
    wheel is used where it is. Returns the slice the die is on. Recruiting is a separate step.
    """
    from_supply = 0
    if st[S_DIE_WHERE + die] == W_SUPPLY:
        from_supply = 1
        st[S_DIE_WHERE + die] = W_WHEEL
        st[S_DIE_POS + die] = d * N_SLICES + slice_idx
        st[S_SLICE_DIE + d * N_SLICES + slice_idx] = die
    else:
        slice_idx = st[S_DIE_POS + die] - d * N_SLICES
    if log.shape[0] > 1:
        emit(log, st, EV_SELECT, p, die, d, slice_idx, from_supply * 16 + st[S_DIE_FACE + die])
    return slice_idx


@kernel
def recruit(st, log, owner, d):
    """The selected die's owner recruits one cat of the department's colour (R3)."""
    st[S_READY + owner * 3 + d] += 1
    stat_add(st, owner, ST_CATS_RECRUITED, 1)
    if log.shape[0] > 1:
        emit(log, st, EV_RECRUIT, owner, d, 0, 0, 0)


@kernel
def pri_build_options(st, geo, d, out):
    """Spaces where a Pri piece may go (R14): the cheapest empty spaces, or, once the instrument is
    built, any inner piece without an outer one. Returns (count, outer flag)."""
    base = inst_base(d)
    ns = geo[base + I_NSPACES]
    n = 0
    if st[S_EMPTY + d] > 0:
        if st[S_BUILD_LEFT + AUTOMA] <= 0:
            return 0, 0
        cheapest = 99
        for s in range(ns):
            if st[S_INNER + d * MAX_SPACES + s] < 0 and geo[base + I_COST + s] < cheapest:
                cheapest = geo[base + I_COST + s]
        for s in range(ns):
            if st[S_INNER + d * MAX_SPACES + s] < 0 and geo[base + I_COST + s] == cheapest:
                out[n] = s
                n += 1
        return n, 0
    if st[S_UPG_LEFT + AUTOMA] <= 0:
        return 0, 1
    for s in range(ns):
        if st[S_INNER + d * MAX_SPACES + s] >= 0 and st[S_OUTER + d * MAX_SPACES + s] < 0:
            out[n] = s
            n += 1
    return n, 1


@kernel
def place_piece(st, geo, log, owner, d, space, outer):
    """Put ``owner``'s piece on ``space`` (no payment): counts, completion marks, inspector points (R6)."""
    base = inst_base(d)
    if outer:
        st[S_OUTER + d * MAX_SPACES + space] = owner
        st[S_UPG_LEFT + owner] -= 1
    else:
        st[S_INNER + d * MAX_SPACES + space] = owner
        st[S_BUILD_LEFT + owner] -= 1
        st[S_EMPTY + d] -= 1
    st[S_PIECES + d * N_OWNERS + owner] += 1
    # Who completes a section and scores the inspector: the owner (R10/R14), or with the ruling
    # switch G_PRI_PIECE_CREDIT the active player who places a Pri piece (2 players only).
    credit = owner
    if owner == AUTOMA and geo[G_PRI_PIECE_CREDIT] == 1 and st[S_NPLAYERS] == 2:
        credit = st[S_CUR]
    if not outer:
        mark_completions(st, geo, log, d, space, credit)
    if st[S_INSPECTOR + d] == space:
        add_points(st, log, credit, geo[base + I_COST + space], SRC_INSPECTOR, d, space)


@kernel
def place_pri_piece(st, geo, log, d, space, outer):
    """A Pri piece on ``space`` (R14): logged, then placed like any piece; Pri never scores."""
    if log.shape[0] > 1:
        emit(log, st, EV_PRI_PIECE, d, space, outer, 0, 0)
    place_piece(st, geo, log, AUTOMA, d, space, outer)


# --------------------------------------------------------------------------- step 3: actions


@kernel
def exhaust_cat(st, log, p, colour, q):
    """Exhaust one ready cat of ``colour`` onto quilt space ``q`` (or lose it when ``q`` is -1, R6)."""
    st[S_READY + p * 3 + colour] -= 1
    if q >= 0:
        st[S_QUILT + p * N_QUILT + q] = colour
    else:
        stat_add(st, p, ST_CATS_LOST, 1)
    if log.shape[0] > 1:
        emit(log, st, EV_EXHAUST, p, colour, q, 0, 0)


@kernel
def can_pay(st, p, colour, cost, ladders):
    """Can ``p`` pay ``cost`` cats of ``colour`` using at most ``ladders`` ladders as colour changes?"""
    have = st[S_READY + p * 3 + colour]
    if have >= cost:
        return True
    other = 0
    for c in range(3):
        if c != colour:
            other += st[S_READY + p * 3 + c]
    short = cost - have
    return short <= ladders and short <= other


@kernel
def placement_legal(st, geo, p, d, space, outer):
    """Legality of a build (``outer`` 0) or upgrade (1) by ``p``, ignoring payment (R6).

    Returns 0 illegal, 1 legal, 2 legal only with a ladder (upgrade onto another owner's piece)."""
    ns = geo[inst_base(d) + I_NSPACES]
    if space < 0 or space >= ns:
        return 0
    inner = st[S_INNER + d * MAX_SPACES + space]
    if outer == 0:
        if inner >= 0 or st[S_BUILD_LEFT + p] <= 0:
            return 0
        return 1
    if inner < 0 or st[S_OUTER + d * MAX_SPACES + space] >= 0 or st[S_UPG_LEFT + p] <= 0:
        return 0
    if inner == p:
        return 1
    return 2


@kernel
def spend_token(st, p, kind, n):
    """``p`` discards ``n`` boost tokens of type ``kind``."""
    st[S_TOKENS + p * 3 + kind] -= n
    stat_add(st, p, ST_TOKENS_SPENT, n)


@kernel
def record_placement(st, log, p, d, space, outer, cost, ladders):
    """Count and log one build or upgrade (cost and ladders for the account)."""
    if outer:
        stat_add(st, p, ST_UPGRADES, 1)
        if st[S_INNER + d * MAX_SPACES + space] != p:
            stat_add(st, p, ST_UPGRADES_ON_OTHERS, 1)
    else:
        stat_add(st, p, ST_BUILDS, 1)
    if log.shape[0] > 1:
        emit(log, st, EV_BUILD, p, d, space, outer, cost * 16 + ladders)


@kernel
def refresh_lines(st, log, p, pips, mode):
    """Refresh (R7): ``mode`` 1 = row ``pips``, 2 = column ``pips``, 3 = both (a milk, spent by caller)."""
    n = 0
    for q in range(N_QUILT):
        hit = (mode & 1 and QUILT_ROW[q] == pips) or (mode & 2 and QUILT_COL[q] == pips)
        if hit:
            c = st[S_QUILT + p * N_QUILT + q]
            if c >= 0:
                st[S_READY + p * 3 + c] += 1
                st[S_QUILT + p * N_QUILT + q] = -1
                n += 1
    stat_add(st, p, ST_CATS_REFRESHED, n)
    if log.shape[0] > 1:
        emit(log, st, EV_REFRESH, p, pips, mode, n, 0)
    return n


@kernel
def refresh_count(st, p, pips, mode):
    """Cats a refresh of quilt row/column ``pips`` would bring back (``mode`` as in refresh_lines)."""
    n = 0
    for q in range(N_QUILT):
        hit = (mode & 1 and QUILT_ROW[q] == pips) or (mode & 2 and QUILT_COL[q] == pips)
        if hit and st[S_QUILT + p * N_QUILT + q] >= 0:
            n += 1
    return n


@kernel
def inspector_enter(st, geo, log, p, d, space, jumped):
    """The inspector enters ``space`` (R8): unless jumped with a cheese, every piece there scores its
    number for its owner (inner and outer alike)."""
    st[S_INSPECTOR + d] = space
    if log.shape[0] > 1:
        emit(log, st, EV_INSPECT_STEP, p, d, space, jumped, 0)
    if jumped:
        stat_add(st, p, ST_CHEESE_JUMPS, 1)
        return
    pts = geo[inst_base(d) + I_COST + space]
    o1 = st[S_INNER + d * MAX_SPACES + space]
    o2 = st[S_OUTER + d * MAX_SPACES + space]
    if o1 >= 0:
        add_points(st, log, o1, pts, SRC_INSPECTOR, d, space)
    if o2 >= 0:
        add_points(st, log, o2, pts, SRC_INSPECTOR, d, space)


# --------------------------------------------------------------------------- step 4: tick up


@kernel
def next_open_slice(st, d, s):
    """First open slice clockwise after slice ``s`` of department ``d``, or -1."""
    for k in range(1, N_SLICES + 1):
        t = (s + k) % N_SLICES
        if st[S_SLICE_DIE + d * N_SLICES + t] < 0:
            return t
    return -1


@kernel
def tick_up(st, log, die, d):
    """Move the used die clockwise to the next open slice and tick it up one face (R5).

    Returns -1 when done, or 1 when the die was used on its top face and must go to a break room
    (the caller chooses the room, or the die to bump). Pri's dice never go to a room (R14): on 4* her
    disc climbs the department's track twice and the die re-enters on 2*.
    """
    s = st[S_DIE_POS + die] - d * N_SLICES
    face = st[S_DIE_FACE + die]
    owner = die_owner(die)
    top = face == NOVICE_TOP or face == EXPERT_TOP
    st[S_SLICE_DIE + d * N_SLICES + s] = -1
    if top and owner != AUTOMA:
        st[S_DIE_WHERE + die] = W_SUPPLY  # in hand until the room is chosen
        st[S_DIE_POS + die] = -1
        return 1
    t = next_open_slice(st, d, s)
    if top:
        face = EXPERT_START
    else:
        face += 1
    st[S_SLICE_DIE + d * N_SLICES + t] = die
    st[S_DIE_POS + die] = d * N_SLICES + t
    st[S_DIE_FACE + die] = face
    if log.shape[0] > 1:
        emit(log, st, EV_TICK, die, d, t, face, 0)
    return -1


@kernel
def pri_climb(st, geo, log, d):
    """Pri's die used on 4*: her disc climbs the department's track twice (R14)."""
    if log.shape[0] > 1:
        emit(log, st, EV_PRI_CLIMB, d, 0, 0, 0, 0)
    brag_step(st, geo, log, AUTOMA, d, BRAG_PRI)
    brag_step(st, geo, log, AUTOMA, d, BRAG_PRI)


@kernel
def die_to_room(st, log, die, room):
    """Put a used die into break room ``room`` (R5)."""
    st[S_ROOM_DIE + room] = die
    st[S_DIE_WHERE + die] = W_ROOM
    st[S_DIE_POS + die] = room
    if log.shape[0] > 1:
        emit(log, st, EV_TO_ROOM, die, room, 0, 0, 0)


@kernel
def bump(st, log, p, room):
    """Bump the die in ``room`` back to its owner as an expert on 2* (R5). Returns its owner, who then
    takes one brag action (a choice, made by the caller)."""
    die = st[S_ROOM_DIE + room]
    owner = die_owner(die)
    st[S_ROOM_DIE + room] = -1
    st[S_DIE_WHERE + die] = W_SUPPLY
    st[S_DIE_POS + die] = -1
    st[S_DIE_FACE + die] = EXPERT_START
    stat_add(st, owner, ST_BUMPED, 1)
    stat_add(st, p, ST_BUMPS_MADE, 1)
    if log.shape[0] > 1:
        emit(log, st, EV_BUMP, die, room, owner, 0, 0)
    return owner


# --------------------------------------------------------------------------- Pri's pawn


@kernel
def pri_move(st, log):
    """After the second player's turn Pri moves to the next open spot clockwise (R14)."""
    cur = st[S_PAWN + AUTOMA]
    for k in range(1, N_SPOTS + 1):
        t = (cur + k) % N_SPOTS
        if spot_open_for_count(t, 2) and not spot_occupied(st, t):
            st[S_PAWN + AUTOMA] = t
            if log.shape[0] > 1:
                emit(log, st, EV_PRI_MOVE, t, cur, 0, 0, 0)
            return


# --------------------------------------------------------------------------- final scoring


@kernel
def shared_tie_winner(st, npl, best, tied):
    """R13 switch "shared": one of the ``tied`` seats on ``best`` points, drawn from the final state.

    The draw is a splitmix64 hash of the final scores and the turn count, so it needs no random
    stream (the game's stream is left as it was, and the same deal gives the same draw) and each
    tied seat wins about 1/k of its ties: the win shared in expectation."""
    z = np.uint64(st[S_TURN]) * np.uint64(0x9E3779B97F4A7C15)
    for p in range(npl):
        z = (z ^ np.uint64(st[S_SCORE + p] + 1024)) * np.uint64(0xBF58476D1CE4E5B9)
        z = z ^ (z >> np.uint64(31))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(27))
    k = np.int64((z >> np.uint64(11)) % np.uint64(tied))
    for p in range(npl):
        if st[S_SCORE + p] == best:
            if k == 0:
                return p
            k -= 1
    return -1


@kernel
def final_scoring(st, geo, log):
    """End-game scoring (R12) and the winner (R13)."""
    npl = st[S_NPLAYERS]
    for d in range(N_DEPT):
        base = inst_base(d)
        if st[S_EMPTY + d] > 0:
            # Last place on the track shares the penalty; Pri's disc takes part, the neutral has none.
            # With the ruling switch G_PENALTY_LAST, Pri's disc is left out and the last player pays.
            skip = AUTOMA if geo[G_PENALTY_LAST] == 1 else -1
            low = 99
            for o in range(N_OWNERS):
                pos = st[S_BRAG_POS + d * N_OWNERS + o]
                if pos >= 0 and owner_present(st, o) and o != skip and pos < low:
                    low = pos
            n = 0
            for o in range(N_OWNERS):
                pos = st[S_BRAG_POS + d * N_OWNERS + o]
                if pos == low and owner_present(st, o) and o != skip:
                    n += 1
            penalty = geo[base + I_PENALTY] * st[S_EMPTY + d]
            share = penalty // n if n > 0 else 0
            for o in range(N_OWNERS):
                if st[S_BRAG_POS + d * N_OWNERS + o] == low and owner_present(st, o) and o != skip and share > 0:
                    stat_add(st, o, ST_PENALTY_TAKEN, share)
            for p in range(npl):
                if st[S_BRAG_POS + d * N_OWNERS + p] == low and share > 0:
                    add_points(st, log, p, -share, SRC_PENALTY + d, d, -1)
        else:
            for p in range(npl):
                disc = st[S_BRAG_POS + d * N_OWNERS + p]
                lvl = cube_level(st, geo, d, p)
                k = disc if disc < lvl else lvl
                if disc < lvl:
                    stat_add(st, p, ST_AWARD_BY_DISC, 1)
                elif lvl < disc:
                    stat_add(st, p, ST_AWARD_BY_PIECES, 1)
                vp = geo[base + I_TRACK_VP + k]
                add_points(st, log, p, vp, SRC_BRAG + d, d, k)
    best = -(1 << 30)
    for p in range(npl):
        if st[S_SCORE + p] > best:
            best = st[S_SCORE + p]
    tied = 0
    winner = -1
    first = -1
    for p in range(npl):
        if st[S_SCORE + p] == best:
            tied += 1
            winner = p  # the latest seat among the tied wins (R13)
            if first < 0:
                first = p
    if tied > 1 and geo[G_TIE_BREAK] == TIE_EARLIEST:
        winner = first  # ruling switch: the earliest tied seat wins
    elif tied > 1 and geo[G_TIE_BREAK] == TIE_SHARED:
        winner = shared_tie_winner(st, npl, best, tied)
    st[S_WINNER] = winner
    st[S_TIED] = tied
    st[S_TIEBREAK] = 1 if tied > 1 else 0
    if log.shape[0] > 1:
        emit(log, st, EV_FINAL, winner, best, tied, 0, 0)
