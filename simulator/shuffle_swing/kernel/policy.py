"""Policies: every choice the rules offer a player, answered from the seat's strategy row.

One compiled code path serves every strategy: ``strat[P_KIND]`` selects the uniformly random legal
policy or the greedy one-step heuristic, and the greedy evaluation reads its weights from the same row
(``WEIGHT_NAMES`` in ``simulator.shuffle_swing.layout``). A new named strategy is a new row of numbers, never new code.
The inspector's route (R8) is ``routes``'s.
"""

import numpy as np

from simulator.kernel_common import float_bits, lowest_bit, popcount, rng_below, rng_unit, stack_empty, stack_full
from simulator.shuffle_swing.kernel.core import kernel
from simulator.shuffle_swing.kernel.rules import (
    cube_level,
    die_owner,
    inst_base,
    level_for,
    refresh_count,
)
from simulator.shuffle_swing.layout import (
    AUTOMA,
    I_COLOUR,
    I_COST,
    I_AFFORD,
    I_ALL_SPACES,
    I_NSECTIONS,
    I_NSPACES,
    I_SEC_SPACES,
    I_SEC_WORTH,
    I_SECMASK,
    I_TRACK_TOKEN,
    I_TRACK_VP,
    KIND_RANDOM,
    LADDER,
    MAX_NUMBER,
    MAX_SECTIONS,
    MAX_SPACES,
    N_DEPT,
    N_OWNERS,
    N_QUILT,
    N_TRACK,
    P_FOCUS,
    P_KIND,
    P_PHASE,
    P_TEMPERATURE,
    P_WEIGHTS,
    P_WEIGHTS_EARLY,
    P_WEIGHTS_LATE,
    N_WEIGHTS,
    QUILT_COL,
    QUILT_ROW,
    S_BRAG_POS,
    S_BUILD_LEFT,
    S_EMPTY,
    S_INNER,
    S_INSPECTOR,
    S_OUTER,
    S_PIECES,
    S_QUILT,
    S_READY,
    S_ROOM_DIE,
    S_SCORE,
    S_SEC_STATE,
    S_TOKENS,
    S_UPG_LEFT,
)

# Weight indices (order of WEIGHT_NAMES).
W_POINTS = P_WEIGHTS + 0
W_OPP_POINTS = P_WEIGHTS + 1
W_PIECE = P_WEIGHTS + 2
W_BRAG_AWARD = P_WEIGHTS + 3
W_MAJORITY = P_WEIGHTS + 4
W_BRAG_STEP = P_WEIGHTS + 5
W_CAT = P_WEIGHTS + 6
W_CAT_LOST = P_WEIGHTS + 7
W_REFRESH_CAT = P_WEIGHTS + 8
W_TOKEN = P_WEIGHTS + 9
W_TOKEN_SPENT = P_WEIGHTS + 10
W_EXPERT = P_WEIGHTS + 11
W_DIE_TO_OPP = P_WEIGHTS + 12
W_FOCUS = P_WEIGHTS + 13
W_PENALTY_RISK = P_WEIGHTS + 14
W_INSPECT = P_WEIGHTS + 15
W_FINISH = P_WEIGHTS + 16
W_BLOCK = P_WEIGHTS + 17
W_NEXT_PICKUP = P_WEIGHTS + 18
W_LANDING = P_WEIGHTS + 19
W_SERVE_NEXT = P_WEIGHTS + 20

# Scratch sizes (compile-time constants for ``stack_empty``).
# Occupancy masks (``occupancy``): inner pieces by owner in 0-7, outer in 8-15, then every owner's.
OCC_INNER = 16  # spaces with an inner piece
OCC_OUTER = 17  # spaces with an outer piece
OCC_SIZE = 18
PLACE_OPTS = MAX_SPACES + 1  # one pip's placements (a space holds one legal one) and the forfeit


@kernel
def is_random(sp):
    """True for the uniformly random legal policy."""
    return sp[P_KIND] == KIND_RANDOM


@kernel
def is_uniform(sp):
    """True when every sub-choice is drawn uniformly among the legal ones: the random policy, or a
    softmax temperature of infinity."""
    return sp[P_KIND] == KIND_RANDOM or sp[P_TEMPERATURE] == np.inf


@kernel
def softmax_pick(vals, n, temp, rng):
    """Index drawn from ``vals[:n]`` with probability proportional to exp(v / temp) (``temp`` > 0,
    finite); one draw of the generator."""
    m = vals[0]
    for i in range(1, n):
        if vals[i] > m:
            m = vals[i]
    total = 0.0
    for i in range(n):
        total += np.exp((vals[i] - m) / temp)
    u = rng_unit(rng) * total
    acc = 0.0
    for i in range(n):
        acc += np.exp((vals[i] - m) / temp)
        if u < acc:
            return i
    # Rounding left u at the very top: the last index of non-zero weight.
    for i in range(n - 1, -1, -1):
        if vals[i] - m > -700.0 * temp:
            return i
    return n - 1


# --------------------------------------------------------------------------- game phase


@kernel
def game_progress(st, geo):
    """Progress of the game from 0 (nothing built) to 1 (the end is triggered, R11): the share of
    the build spaces filled on the two instruments nearest completion."""
    f0 = -1.0
    f1 = -1.0
    n0 = 0.0
    n1 = 0.0
    filled0 = 0.0
    filled1 = 0.0
    for d in range(N_DEPT):
        ns = geo[inst_base(d) + I_NSPACES]
        if ns <= 0:
            continue
        filled = np.float64(ns - st[S_EMPTY + d])
        f = filled / ns
        if f > f0:
            f1, n1, filled1 = f0, n0, filled0
            f0, n0, filled0 = f, np.float64(ns), filled
        elif f > f1:
            f1, n1, filled1 = f, np.float64(ns), filled
    total = (n0 if f0 >= 0.0 else 0.0) + (n1 if f1 >= 0.0 else 0.0)
    if total <= 0.0:
        return 0.0
    return ((filled0 if f0 >= 0.0 else 0.0) + (filled1 if f1 >= 0.0 else 0.0)) / total


@kernel
def phase_weights(st, geo, strat):
    """Rewrite the weights every seat with a game-phase row reads (P_PHASE 1): early + progress *
    (late - early). Called when a game is set up and at the start of every turn, so that every
    choice within a turn sees one row; rows without a phase are not touched."""
    t = -1.0
    for o in range(strat.shape[0]):
        if strat[o, P_PHASE] == 0:
            continue
        if t < 0.0:
            t = game_progress(st, geo)
        for k in range(N_WEIGHTS):
            a = strat[o, P_WEIGHTS_EARLY + k]
            strat[o, P_WEIGHTS + k] = a + t * (strat[o, P_WEIGHTS_LATE + k] - a)


# --------------------------------------------------------------------------- brag tracks


@kernel
def brag_value(st, geo, sp, p, d):
    """Greedy worth of one brag step by ``p`` on ``d``'s track."""
    pos = st[S_BRAG_POS + d * N_OWNERS + p]
    if pos >= N_TRACK - 1:
        return -1.0
    base = inst_base(d)
    lvl = cube_level(st, geo, d, p)
    lo0 = pos if pos < lvl else lvl
    lo1 = pos + 1 if pos + 1 < lvl else lvl
    secured = geo[base + I_TRACK_VP + lo1] - geo[base + I_TRACK_VP + lo0]
    v = sp[W_BRAG_AWARD] * secured
    if pos + 1 > lvl:
        # A step ahead of the pieces: worth something only if pieces follow.
        v += sp[W_BRAG_STEP] * (geo[base + I_TRACK_VP + pos + 1] - geo[base + I_TRACK_VP + pos]) / (
            1.0 + pos + 1 - lvl
        )
    if geo[base + I_TRACK_TOKEN + pos + 1] != 0:
        v += sp[W_TOKEN]
    # Leaving last place on an instrument that may stay unbuilt avoids its penalty (R12).
    empty = st[S_EMPTY + d]
    if empty > 0:
        low = 99
        nlow = 0
        for o in range(N_OWNERS):
            q = st[S_BRAG_POS + d * N_OWNERS + o]
            if q >= 0 and o != p:
                if q < low:
                    low = q
        if pos <= low:
            total_empty = st[S_EMPTY] + st[S_EMPTY + 1] + st[S_EMPTY + 2]
            risk = empty / (total_empty + 1.0)
            v += sp[W_PENALTY_RISK] * 2.0 * empty * risk / (1.0 + nlow)
    if d == sp[P_FOCUS]:
        v += sp[W_FOCUS]
    return v


@kernel
def choose_brag_track(st, geo, sp, rng, p):
    """Where to brag when the choice is free (pickup, bump)."""
    if is_uniform(sp):
        return rng_below(rng, N_DEPT)
    temp = sp[P_TEMPERATURE]
    if temp > 0.0:
        vals = stack_empty(N_DEPT, np.float64)
        for d in range(N_DEPT):
            vals[d] = brag_value(st, geo, sp, p, d)
        return softmax_pick(vals, N_DEPT, temp, rng)
    best = -1e18
    bd = 0
    for d in range(N_DEPT):
        v = brag_value(st, geo, sp, p, d) + 1e-6 * rng_unit(rng)
        if v > best:
            best = v
            bd = d
    return bd


# --------------------------------------------------------------------------- quilt, rooms, refresh


@kernel
def choose_quilt(st, sp, rng, p):
    """Empty quilt space for an exhausted cat, or -1 when none is empty (the cat is lost)."""
    rows = stack_full(5, 0, np.int64)
    cols = stack_full(5, 0, np.int64)
    nfree = 0
    for q in range(N_QUILT):
        if st[S_QUILT + p * N_QUILT + q] < 0:
            nfree += 1
        else:
            rows[QUILT_ROW[q]] += 1
            cols[QUILT_COL[q]] += 1
    if nfree == 0:
        return -1
    if is_uniform(sp):
        k = rng_below(rng, nfree)
        for q in range(N_QUILT):
            if st[S_QUILT + p * N_QUILT + q] < 0:
                if k == 0:
                    return q
                k -= 1
    # Greedy: sleep cats together so that one refresh brings many back.
    temp = sp[P_TEMPERATURE]
    if temp > 0.0:
        vals = stack_empty(N_QUILT, np.float64)
        idx = stack_empty(N_QUILT, np.int64)
        m = 0
        for q in range(N_QUILT):
            if st[S_QUILT + p * N_QUILT + q] < 0:
                vals[m] = 4 * max(rows[QUILT_ROW[q]], cols[QUILT_COL[q]]) + QUILT_ROW[q]
                idx[m] = q
                m += 1
        return idx[softmax_pick(vals, m, temp, rng)]
    best = -1
    bq = -1
    for q in range(N_QUILT):
        if st[S_QUILT + p * N_QUILT + q] < 0:
            v = 4 * max(rows[QUILT_ROW[q]], cols[QUILT_COL[q]]) + QUILT_ROW[q]
            if v > best:
                best = v
                bq = q
    return bq


@kernel
def choose_refresh(st, sp, rng, p, pips):
    """Row (1), column (2) or both with a milk (3)."""
    milk = st[S_TOKENS + p * 3 + 1]
    if is_uniform(sp):
        n = 3 if milk > 0 else 2
        return 1 + rng_below(rng, n)
    r = refresh_count(st, p, pips, 1)
    c = refresh_count(st, p, pips, 2)
    temp = sp[P_TEMPERATURE]
    if temp > 0.0:
        vals = stack_empty(3, np.float64)
        vals[0] = r * sp[W_REFRESH_CAT]
        vals[1] = c * sp[W_REFRESH_CAT]
        n = 2
        if milk > 0:
            vals[2] = refresh_count(st, p, pips, 3) * sp[W_REFRESH_CAT] - sp[W_TOKEN_SPENT]
            n = 3
        return 1 + softmax_pick(vals, n, temp, rng)
    if milk > 0:
        b = refresh_count(st, p, pips, 3)
        if (b - max(r, c)) * sp[W_REFRESH_CAT] > sp[W_TOKEN_SPENT]:
            return 3
    return 1 if r >= c else 2


@kernel
def choose_room(st, sp, rng, p, d):
    """Break room for a die used on its top face (R5): an open one, or the room whose die to bump.

    Returns (room, bump flag)."""
    r1 = d
    r2 = (d + N_DEPT - 1) % N_DEPT
    o1 = st[S_ROOM_DIE + r1] < 0
    o2 = st[S_ROOM_DIE + r2] < 0
    if o1 and o2:
        return (r1, 0) if rng_below(rng, 2) == 0 else (r2, 0)
    if o1:
        return r1, 0
    if o2:
        return r2, 0
    if is_uniform(sp):
        return (r1, 1) if rng_below(rng, 2) == 0 else (r2, 1)
    # Greedy: bump the leading opponent's die; a bumped die brings its owner one brag, not two.
    a = die_owner(st[S_ROOM_DIE + r1])
    b = die_owner(st[S_ROOM_DIE + r2])
    va = -1e9 if a == p else st[S_SCORE + a]
    vb = -1e9 if b == p else st[S_SCORE + b]
    temp = sp[P_TEMPERATURE]
    if temp > 0.0:
        vals = stack_empty(2, np.float64)
        vals[0] = va
        vals[1] = vb
        return (r1, 1) if softmax_pick(vals, 2, temp, rng) == 0 else (r2, 1)
    if va > vb:
        return r1, 1
    if vb > va:
        return r2, 1
    return (r1, 1) if rng_below(rng, 2) == 0 else (r2, 1)


# --------------------------------------------------------------------------- Pri (R14)


@kernel
def choose_pri_space(st, geo, sp, rng, p, d, opts, n):
    """Which of Pri's allowed spaces gets her piece; the active seat ``p`` chooses."""
    if n == 1 or is_uniform(sp):
        return opts[rng_below(rng, n)]
    base = inst_base(d)
    best = -1e18
    bs = opts[0]
    temp = sp[P_TEMPERATURE]
    soft = stack_empty(MAX_SPACES, np.float64)
    for i in range(n):
        s = opts[i]
        mask = geo[base + I_SECMASK + s]
        v = 0.0
        for sec in range(MAX_SECTIONS):
            if (mask >> sec) & 1:
                sm = geo[base + I_SEC_SPACES + sec]
                mine = 0
                other = 0
                for t in range(geo[base + I_NSPACES]):
                    if (sm >> t) & 1:
                        for k in range(2):
                            o = st[S_INNER + d * MAX_SPACES + t] if k == 0 else st[S_OUTER + d * MAX_SPACES + t]
                            if o == p:
                                mine += 1
                            elif o >= 0 and o != AUTOMA:
                                other += 1
                v += other - mine
        if temp > 0.0:
            soft[i] = v
            continue
        v += 1e-6 * rng_unit(rng)
        if v > best:
            best = v
            bs = s
    if temp > 0.0:
        return opts[softmax_pick(soft, n, temp, rng)]
    return bs


# --------------------------------------------------------------------------- construct (R6)


# Layout of the placement context (one float array, ``CTX_SIZE`` long).
CTX_SHARE = 0  # [MAX_SECTIONS] worth of one more piece of p in an open section (0 once completed)
CTX_CLOSE = MAX_SECTIONS  # [MAX_SECTIONS] extra worth of completing that section with this build
CTX_EMPTY = 2 * MAX_SECTIONS  # [MAX_SECTIONS] spaces of the section without an inner piece
CTX_PIECE = 3 * MAX_SECTIONS  # worth of one more piece on the instrument (brag-award part)
CTX_FREE = CTX_PIECE + 1  # empty quilt spaces
CTX_FINISH = CTX_PIECE + 2  # worth of a build towards finishing the instrument
CTX_SIZE = CTX_PIECE + 4


@kernel
def occupancy(st, geo, d, occ):
    """The spaces of instrument ``d`` each owner holds, as bit masks: ``occ[o]`` inner pieces of owner
    ``o``, ``occ[8 + o]`` outer ones, ``occ[OCC_INNER]`` / ``occ[OCC_OUTER]`` those of every owner
    (``OCC_SIZE`` slots). The loop has no branch: an empty cell (-1) lands in the unused slot 7 or 15."""
    for k in range(OCC_SIZE):
        occ[k] = 0
    for t in range(geo[inst_base(d) + I_NSPACES]):
        bit = np.int64(1) << t
        occ[st[S_INNER + d * MAX_SPACES + t] & 7] |= bit
        occ[8 + (st[S_OUTER + d * MAX_SPACES + t] & 7)] |= bit
    occ[OCC_INNER] = occ[0] | occ[1] | occ[2] | occ[3] | occ[4]
    occ[OCC_OUTER] = occ[8] | occ[9] | occ[10] | occ[11] | occ[12]


@kernel
def placement_context(st, geo, sp, p, d, occ, ctx):
    """What every placement of one pip shares, so that each placement's worth is a few additions.

    Per section: the majority worth of one more piece of ``p`` (from ``p``'s pieces against the best
    other owner's, each inner and outer piece counted), the extra worth of completing it, and its
    empty spaces; then the brag-award worth of one more piece and the free quilt spaces. The
    section worths come from ``geo`` (``I_SEC_WORTH``), ``occ`` from ``occupancy``."""
    base = inst_base(d)
    nsec = geo[base + I_NSECTIONS]
    filled = occ[OCC_INNER]
    for s in range(nsec):
        sm = geo[base + I_SEC_SPACES + s]
        ctx[CTX_EMPTY + s] = popcount(sm & ~filled)
        if st[S_SEC_STATE + d * MAX_SECTIONS + s] != 0:
            # Completed: one more piece changes nothing there.
            ctx[CTX_SHARE + s] = 0.0
            ctx[CTX_CLOSE + s] = 0.0
            continue
        top = 0
        mine = 0
        for o in range(N_OWNERS):
            c = popcount(occ[o] & sm) + popcount(occ[8 + o] & sm)
            if o == p:
                mine = c
            elif c > top:
                top = c
        m1 = mine + 1.0
        share = 1.0 if m1 > top else (0.5 if m1 == top else 0.2)
        worth = float_bits(geo[base + I_SEC_WORTH + s])
        ctx[CTX_SHARE + s] = sp[W_MAJORITY] * worth * share
        # A build on the last empty space completes the section: its award lands now.
        ctx[CTX_CLOSE + s] = sp[W_MAJORITY] * worth * np.float64(popcount(sm)) * (share - 0.3)
    n = st[S_PIECES + d * N_OWNERS + p]
    pos = st[S_BRAG_POS + d * N_OWNERS + p]
    l0 = level_for(geo, d, n)
    l1 = level_for(geo, d, n + 1)
    s0 = geo[base + I_TRACK_VP + (pos if pos < l0 else l0)]
    s1 = geo[base + I_TRACK_VP + (pos if pos < l1 else l1)]
    pot = geo[base + I_TRACK_VP + l1] - geo[base + I_TRACK_VP + l0]
    v = sp[W_PIECE] + sp[W_BRAG_AWARD] * (s1 - s0) + 0.5 * sp[W_BRAG_STEP] * (pot - (s1 - s0))
    if d == sp[P_FOCUS]:
        v += sp[W_FOCUS]
    ctx[CTX_PIECE] = v
    ctx[CTX_FREE] = free_quilt(st, p)
    ctx[CTX_FINISH] = sp[W_FINISH] / (1.0 + st[S_EMPTY + d])


@kernel
def free_quilt(st, p):
    """Empty quilt spaces of ``p``."""
    n = 0
    for q in range(N_QUILT):
        if st[S_QUILT + p * N_QUILT + q] < 0:
            n += 1
    return n


@kernel
def placement_value(st, geo, sp, p, d, space, outer, ladders_used, ctx):
    """Greedy worth of one build or upgrade by ``p`` on ``space`` (``ctx`` from placement_context)."""
    base = inst_base(d)
    num = geo[base + I_COST + space]
    v = ctx[CTX_PIECE]
    if st[S_INSPECTOR + d] == space:
        v += sp[W_POINTS] * num
    mask = geo[base + I_SECMASK + space]
    while mask:
        s = lowest_bit(mask)
        mask &= mask - 1
        v += ctx[CTX_SHARE + s]
        if outer == 0 and ctx[CTX_EMPTY + s] == 1:
            v += ctx[CTX_CLOSE + s]
    if outer == 0:
        v += ctx[CTX_FINISH]
    paid = num - outer
    v -= sp[W_CAT] * paid
    lost = paid - ctx[CTX_FREE]
    if lost > 0:
        v -= sp[W_CAT_LOST] * lost
    v -= sp[W_TOKEN_SPENT] * ladders_used
    return v


@kernel
def placement_masks(st, geo, p, d, occ):
    """The builds and the upgrades ``p`` could make on instrument ``d`` and pay for (R6), as two
    space masks (``occ`` from ``occupancy``). A ladder lets an upgrade go onto another owner's
    piece; each further ladder turns one cat of another colour into the colour needed, so a space
    is affordable when its number is at most the cats of its colour plus the ladders that can be
    turned into that colour (``placement_ladders`` gives how many a placement uses)."""
    base = inst_base(d)
    ladders = st[S_TOKENS + p * 3 + LADDER]
    total = st[S_READY + p * 3] + st[S_READY + p * 3 + 1] + st[S_READY + p * 3 + 2]
    filled = occ[OCC_INNER]
    capped = occ[OCC_OUTER]
    empty = geo[base + I_ALL_SPACES] & ~filled
    mine = occ[p] & ~capped
    others = filled & ~occ[p] & ~capped
    builds = 0
    upgrades = 0
    can_build = st[S_BUILD_LEFT + p] > 0
    can_upgrade = st[S_UPG_LEFT + p] > 0
    for c in range(3):
        have = st[S_READY + p * 3 + c]
        turn = min(ladders, total - have)
        afford = base + I_AFFORD + c * (MAX_NUMBER + 1)
        if can_build:
            builds |= empty & geo[afford + min(have + turn, MAX_NUMBER)]
        if can_upgrade:
            # An upgrade costs one cat less than the space's number.
            upgrades |= mine & geo[afford + min(have + 1 + turn, MAX_NUMBER)]
            if ladders > 0:
                turn1 = min(ladders - 1, total - have)
                upgrades |= others & geo[afford + min(have + 1 + turn1, MAX_NUMBER)]
    return builds, upgrades


@kernel
def placement_ladders(st, geo, p, d, space, outer):
    """Ladders ``p`` spends on a build (``outer`` 0) or upgrade (1) that ``placement_masks`` allows:
    one to go onto another owner's piece, one per cat of the space's colour short (R6)."""
    base = inst_base(d)
    have = st[S_READY + p * 3 + geo[base + I_COLOUR + space]]
    cost = geo[base + I_COST + space] - outer
    short = cost - have if cost > have else 0
    if outer != 0 and st[S_INNER + d * MAX_SPACES + space] != p:
        short += 1
    return short


@kernel
def choose_placement(st, geo, sp, rng, p, d, ctx):
    """One pip of a construct: returns (space, outer, ladders) or space -1 to forfeit the pip."""
    occ = stack_empty(OCC_SIZE, np.int64)
    occupancy(st, geo, d, occ)
    builds, upgrades = placement_masks(st, geo, p, d, occ)
    both = builds | upgrades
    if is_uniform(sp):
        # Uniform over the legal placements and the forfeit, in space order, a build before an upgrade.
        pick = rng_below(rng, popcount(builds) + popcount(upgrades) + 1)
        while both:
            s = lowest_bit(both)
            both &= both - 1
            outer = 0 if (builds >> s) & 1 else 1
            if pick == 0:
                return s, outer, placement_ladders(st, geo, p, d, s, outer)
            pick -= 1
        return -1, 0, 0
    if both == 0:
        return -1, 0, 0
    placement_context(st, geo, sp, p, d, occ, ctx)
    temp = sp[P_TEMPERATURE]
    if temp > 0.0:
        return soft_placement(st, geo, sp, rng, p, d, ctx, builds, upgrades, temp)
    best = 0.0
    bs = -1
    bo = 0
    bl = 0
    while both:
        s = lowest_bit(both)
        both &= both - 1
        outer = 0 if (builds >> s) & 1 else 1
        nl = placement_ladders(st, geo, p, d, s, outer)
        v = placement_value(st, geo, sp, p, d, s, outer, nl, ctx)
        if v > best:
            best = v
            bs = s
            bo = outer
            bl = nl
    return bs, bo, bl


@kernel
def soft_placement(st, geo, sp, rng, p, d, ctx, builds, upgrades, temp):
    """``choose_placement`` at a softmax temperature: every legal placement and the forfeit (worth 0,
    the greedy's threshold) drawn with probability proportional to exp(worth / temp)."""
    vals = stack_empty(PLACE_OPTS, np.float64)
    spc = stack_empty(PLACE_OPTS, np.int64)
    both = builds | upgrades
    m = 0
    while both:
        s = lowest_bit(both)
        both &= both - 1
        outer = 0 if (builds >> s) & 1 else 1
        nl = placement_ladders(st, geo, p, d, s, outer)
        vals[m] = placement_value(st, geo, sp, p, d, s, outer, nl, ctx)
        spc[m] = s
        m += 1
    vals[m] = 0.0
    spc[m] = -1
    k = softmax_pick(vals, m + 1, temp, rng)
    s = spc[k]
    if s < 0:
        return -1, 0, 0
    outer = 0 if (builds >> s) & 1 else 1
    return s, outer, placement_ladders(st, geo, p, d, s, outer)


@kernel
def construct_estimate(st, geo, sp, p, d, occ, values):
    """Greedy worth of a construct at ``d`` with 1..4 pips (``values[k]``), estimated from one
    look at the board (``occ`` from ``occupancy``): the best placements in order of worth, each
    taken while the cats, ladders and pieces left can pay for it. The construct itself re-decides
    pip by pip on the real state."""
    base = inst_base(d)
    builds, upgrades = placement_masks(st, geo, p, d, occ)
    both = builds | upgrades
    if both == 0:
        for k in range(5):
            values[k] = 0.0
        return
    ctx = stack_empty(CTX_SIZE, np.float64)
    placement_context(st, geo, sp, p, d, occ, ctx)
    ladders = st[S_TOKENS + p * 3 + LADDER]
    # The best placements (value, space, outer), kept sorted.
    topv = stack_full(8, -1e18, np.float64)
    tops = stack_full(8, -1, np.int64)
    topo = stack_full(8, 0, np.int64)
    while both:
        s = lowest_bit(both)
        both &= both - 1
        outer = 0 if (builds >> s) & 1 else 1
        nl = placement_ladders(st, geo, p, d, s, outer)
        v = placement_value(st, geo, sp, p, d, s, outer, nl, ctx)
        if v <= topv[7]:
            continue
        k = 7
        while k > 0 and topv[k - 1] < v:
            topv[k] = topv[k - 1]
            tops[k] = tops[k - 1]
            topo[k] = topo[k - 1]
            k -= 1
        topv[k] = v
        tops[k] = s
        topo[k] = outer
    ready = stack_empty(3, np.int64)
    for c in range(3):
        ready[c] = st[S_READY + p * 3 + c]
    lad = ladders
    acc = 0.0
    k = 1
    values[0] = 0.0
    for i in range(8):
        if k > 4 or tops[i] < 0 or topv[i] <= 0.0:
            break
        s = tops[i]
        colour = geo[base + I_COLOUR + s]
        cost = geo[base + I_COST + s] - topo[i]
        short = cost - ready[colour] if cost > ready[colour] else 0
        others = ready[0] + ready[1] + ready[2] - ready[colour]
        if short > lad or short > others:
            continue
        ready[colour] -= cost - short
        for c in range(3):
            while short > 0 and c != colour and ready[c] > 0:
                ready[c] -= 1
                short -= 1
                lad -= 1
        acc += topv[i]
        values[k] = acc
        k += 1
    while k <= 4:
        values[k] = acc
        k += 1


@kernel
def convert_colour(st, sp, rng, p, colour):
    """Colour of the cat a ladder turns into ``colour`` (a cat ``p`` holds, of another colour)."""
    a = (colour + 1) % 3
    b = (colour + 2) % 3
    na = st[S_READY + p * 3 + a]
    nb = st[S_READY + p * 3 + b]
    if na == 0:
        return b
    if nb == 0:
        return a
    if is_uniform(sp):
        return a if rng_below(rng, 2) == 0 else b
    return a if na >= nb else b


# --------------------------------------------------------------------------- the turn


@kernel
def refresh_value(st, sp, p, pips):
    """Greedy worth of a refresh with ``pips`` (row, column, or both with a milk)."""
    r = refresh_count(st, p, pips, 1)
    c = refresh_count(st, p, pips, 2)
    best = r if r > c else c
    v = best * sp[W_REFRESH_CAT]
    if st[S_TOKENS + p * 3 + 1] > 0:
        b = refresh_count(st, p, pips, 3)
        alt = b * sp[W_REFRESH_CAT] - sp[W_TOKEN_SPENT]
        if alt > v:
            v = alt
    # A full quilt makes every later payment lose cats.
    if free_quilt(st, p) < 3:
        v += 0.5 * sp[W_CAT_LOST] * best
    return v
