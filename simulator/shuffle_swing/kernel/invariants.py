"""Every invariant of a game state, checked in one place.

``check_invariants`` returns 0 for a sound state or the code of the first violation found; the soak
(``ssb check``), the property tests and the golden playthroughs all call it. ``VIOLATIONS`` names the
codes for people.
"""


from simulator.shuffle_swing.kernel.core import kernel_alloc, owner_present
from simulator.shuffle_swing.layout import (
    AUTOMA,
    DICE_PER_OWNER,
    EXPERT_START,
    G_BUILD_PIECES,
    G_INST,
    G_SEAT_CATS,
    G_SEAT_POINTS,
    G_START_CATS,
    G_UPG_PIECES,
    I_NEUTRAL,
    I_NSECTIONS,
    I_NSPACES,
    I_SEC_SPACES,
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
    N_SRC,
    N_STAT,
    N_TRACK,
    S_BRAG_POS,
    S_BUILD_LEFT,
    S_BUILT,
    S_DIE_FACE,
    S_DIE_POS,
    S_DIE_WHERE,
    S_EMPTY,
    S_INNER,
    S_INSPECTOR,
    S_NPLAYERS,
    S_OUTER,
    S_PAWN,
    S_PIECES,
    S_QUILT,
    S_READY,
    S_ROOM_DIE,
    S_SCORE,
    S_SEC_STATE,
    S_SLICE_DIE,
    S_SRC,
    S_STAT,
    S_TOKENS,
    S_UPG_LEFT,
    ST_CATS_LOST,
    ST_CATS_RECRUITED,
    W_ABSENT,
    W_ROOM,
    W_SUPPLY,
    W_WHEEL,
)

VIOLATIONS = {
    1: "a wheel holds more than three dice",
    2: "a die's recorded place disagrees with the wheel or break room holding it",
    3: "a break room holds more than one die or a die of Pri",
    4: "a seat does not have exactly three dice accounted for",
    5: "cats are not conserved (ready + quilt != start + recruited - lost)",
    6: "a negative count (cats, tokens or pieces)",
    7: "build pieces are not conserved (supply + board != 25)",
    8: "upgrade pieces are not conserved (supply + board != 6)",
    9: "an outer piece without an inner piece, or a piece on a space the instrument lacks",
    10: "the per-instrument piece count disagrees with the board",
    11: "the empty-space count or built flag disagrees with the board",
    12: "a score differs from the sum of its sources and its starting points",
    13: "Pri or the neutral has points",
    14: "a brag disc is off its track",
    15: "two pawns share a spot, or a pawn stands on a closed spot",
    16: "a die shows an impossible face",
    17: "a section is marked complete while a space of it is empty (or open while full)",
    18: "Pri does not have exactly one die on every wheel",
    19: "the neutral does not hold exactly its two pieces per instrument",
    20: "an inspector stands on a space the instrument lacks",
    21: "a quilt space holds an unknown cat colour",
}


@kernel_alloc
def check_invariants(st, geo):
    """0 if ``st`` is a sound state of the game described by ``geo``, else the code of the first
    violation found (see ``VIOLATIONS``)."""
    npl = st[S_NPLAYERS]
    # Dice, wheels and break rooms.
    for d in range(N_DEPT):
        n = 0
        for s in range(N_SLICES):
            die = st[S_SLICE_DIE + d * N_SLICES + s]
            if die >= 0:
                n += 1
                if st[S_DIE_WHERE + die] != W_WHEEL or st[S_DIE_POS + die] != d * N_SLICES + s:
                    return 2
        if n > 3:
            return 1
    for r in range(N_ROOMS):
        die = st[S_ROOM_DIE + r]
        if die >= 0:
            if die // DICE_PER_OWNER == AUTOMA:
                return 3
            if st[S_DIE_WHERE + die] != W_ROOM or st[S_DIE_POS + die] != r:
                return 2
    for die in range(N_DICE):
        w = st[S_DIE_WHERE + die]
        pos = st[S_DIE_POS + die]
        f = st[S_DIE_FACE + die]
        o = die // DICE_PER_OWNER
        present = o < npl or (o == AUTOMA and npl == 2)
        if not present:
            if w != W_ABSENT:
                return 4
            continue
        if w == W_ABSENT:
            return 4
        if w == W_WHEEL:
            if pos < 0 or pos >= N_DEPT * N_SLICES or st[S_SLICE_DIE + pos] != die:
                return 2
        elif w == W_ROOM:
            if pos < 0 or pos >= N_ROOMS or st[S_ROOM_DIE + pos] != die:
                return 2
        elif w != W_SUPPLY:
            return 2
        if f < 0 or f > 5:
            return 16
        if o == AUTOMA and f < EXPERT_START:
            return 16
    if npl == 2:
        for d in range(N_DEPT):
            k = 0
            for s in range(N_SLICES):
                die = st[S_SLICE_DIE + d * N_SLICES + s]
                if die >= 0 and die // DICE_PER_OWNER == AUTOMA:
                    k += 1
            if k != 1:
                return 18
    # Cats, tokens, pieces per seat.
    for p in range(npl):
        ready = 0
        for c in range(3):
            if st[S_READY + p * 3 + c] < 0 or st[S_TOKENS + p * 3 + c] < 0:
                return 6
            ready += st[S_READY + p * 3 + c]
        quilt = 0
        for q in range(N_QUILT):
            c = st[S_QUILT + p * N_QUILT + q]
            if c >= 3 or c < -1:
                return 21
            if c >= 0:
                quilt += 1
        start = geo[G_START_CATS] + geo[G_START_CATS + 1] + geo[G_START_CATS + 2]
        for c in range(3):
            start += geo[G_SEAT_CATS + p * 3 + c]
        rec = st[S_STAT + p * N_STAT + ST_CATS_RECRUITED]
        lost = st[S_STAT + p * N_STAT + ST_CATS_LOST]
        if ready + quilt != start + rec - lost:
            return 5
    # Board.
    for o in range(N_OWNERS):
        if not owner_present(st, o):
            continue
        inner = 0
        outer = 0
        for d in range(N_DEPT):
            for s in range(MAX_SPACES):
                if st[S_INNER + d * MAX_SPACES + s] == o:
                    inner += 1
                if st[S_OUTER + d * MAX_SPACES + s] == o:
                    outer += 1
        if o < npl or npl == 2:
            if st[S_BUILD_LEFT + o] < 0 or st[S_UPG_LEFT + o] < 0:
                return 6
            if st[S_BUILD_LEFT + o] + inner != geo[G_BUILD_PIECES]:
                return 7
            if st[S_UPG_LEFT + o] + outer != geo[G_UPG_PIECES]:
                return 8
    for d in range(N_DEPT):
        base = G_INST + d * INST_SIZE
        ns = geo[base + I_NSPACES]
        counts = [0, 0, 0, 0, 0]
        empty = 0
        for s in range(MAX_SPACES):
            a = st[S_INNER + d * MAX_SPACES + s]
            b = st[S_OUTER + d * MAX_SPACES + s]
            if s >= ns:
                if a >= 0 or b >= 0:
                    return 9
                continue
            if b >= 0 and a < 0:
                return 9
            if a >= 0:
                counts[a] += 1
            else:
                empty += 1
            if b >= 0:
                counts[b] += 1
        for o in range(N_OWNERS):
            if st[S_PIECES + d * N_OWNERS + o] != counts[o]:
                return 10
        if st[S_EMPTY + d] != empty:
            return 11
        if (empty == 0) != (st[S_BUILT + d] != 0) and st[S_BUILT + d] != 0:
            return 11
        if npl == 3:
            k = 0
            for s in range(ns):
                if st[S_INNER + d * MAX_SPACES + s] == AUTOMA:
                    k += 1
            if k != 2 or st[S_INNER + d * MAX_SPACES + geo[base + I_NEUTRAL]] != AUTOMA:
                return 19
        nsec = geo[base + I_NSECTIONS]
        for sec in range(nsec):
            sm = geo[base + I_SEC_SPACES + sec]
            full = True
            for s in range(ns):
                if (sm >> s) & 1 and st[S_INNER + d * MAX_SPACES + s] < 0:
                    full = False
            state = st[S_SEC_STATE + d * MAX_SECTIONS + sec]
            if state != 0 and not full:
                return 17
            if state == 0 and full:
                return 17
        ins = st[S_INSPECTOR + d]
        if ins < -1 or ins >= ns:
            return 20
        for o in range(N_OWNERS):
            pos = st[S_BRAG_POS + d * N_OWNERS + o]
            has_disc = o < npl or (o == AUTOMA and npl == 2)
            if has_disc and (pos < 0 or pos >= N_TRACK):
                return 14
            if not has_disc and pos != -1:
                return 14
    # Scores.
    for o in range(N_OWNERS):
        t = 0
        for k in range(N_SRC):
            t += st[S_SRC + o * N_SRC + k]
        if o < npl:
            t += geo[G_SEAT_POINTS + o]  # the seat's starting points (a seat lever)
        if t != st[S_SCORE + o]:
            return 12
        if o >= npl and st[S_SCORE + o] != 0:
            return 13
    # Pawns.
    for o in range(N_OWNERS):
        a = st[S_PAWN + o]
        if a < 0:
            continue
        if a >= N_SPOTS or (npl < 4 and a % 3 == 1):
            return 15
        for o2 in range(o + 1, N_OWNERS):
            if st[S_PAWN + o2] == a:
                return 15
    return 0
