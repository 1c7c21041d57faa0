"""Instrument objectives: section completion, ranking and the scoring-term vocabulary (R10).

Every instrument section carries up to ``MAX_TERMS`` scoring terms (``simulator.shuffle_swing.layout`` lists the
codes). The engine calls :func:`mark_completions` after every inner piece it places and
:func:`resolve_objectives` once at the end of the turn; sections completed during the turn are
scored there, in data order, each term in its order.

Conventions shared by all terms:

* Counts include inner and outer pieces (R10).
* Only owners that take part and hold at least one piece in the scope are ranked (R10).
* Ties in count go to the owner ahead on the instrument's brag track, then to the disc lower in the
  stack; the three-player neutral wins every tie (R10, R15, see ``core.track_beats``).
* Pri (R14) and the neutral (R15) occupy ranks and count for majorities but never score:
  ``core.add_points`` drops their points, so a rank they take is simply lost to the players.
* A term whose scope mask is 0 counts the section's own spaces.

The point computation (:func:`term_points`, :func:`preview_section`) is separate from the scoring
(:func:`score_term`) so that a policy can evaluate a section without touching the state.
"""

import numpy as np

from simulator.kernel_common import lowest_bit, stack_empty, stack_full
from simulator.shuffle_swing.kernel.core import add_points, emit, kernel, owner_present, track_beats
from simulator.shuffle_swing.layout import (
    EV_SECTION,
    G_INST,
    I_LINK,
    I_NLINKS,
    I_NSECTIONS,
    I_NSPACES,
    I_SEC_ADJ,
    I_SEC_SPACES,
    I_SECMASK,
    I_TERM_AWARDS,
    I_TERM_AWARDS2,
    I_TERM_CODE,
    I_TERM_NAWARDS,
    I_TERM_P,
    I_TERM_SCOPE,
    INST_SIZE,
    MAX_AWARDS,
    MAX_LINKS,
    MAX_SECTIONS,
    MAX_SPACES,
    MAX_TERMS,
    N_DEPT,
    N_OWNERS,
    S_INNER,
    S_ORDER_DONE,
    S_OUTER,
    S_SEC_COMPLETER,
    SCORE_TERM_SHIFT,
    S_SEC_STATE,
    SRC_OBJECTIVE,
    T_ADJ_PER_PIECE,
    T_ADJ_PRESENCE,
    T_COMPLETER,
    T_LONGEST_GROUP,
    T_MAJORITY_ALL,
    T_NONE,
    T_PER_PIECE,
    T_RANK,
    T_RANK_ORDER,
)

SEC_OPEN = 0
SEC_COMPLETED = 1  # completed during the current turn, waiting for the end-of-turn resolution
SEC_SCORED = 2


# --------------------------------------------------------------------------- sections


@kernel
def section_open_spaces(st, geo, d, s):
    """Spaces of section ``s`` of instrument ``d`` that still lack an inner piece."""
    mask = geo[G_INST + d * INST_SIZE + I_SEC_SPACES + s]
    n = 0
    while mask:
        if st[S_INNER + d * MAX_SPACES + lowest_bit(mask)] < 0:
            n += 1
        mask &= mask - 1
    return n


@kernel
def mark_completions(st, geo, log, d, space, owner):
    """Flag the sections that the inner piece ``owner`` just placed on ``space`` completed.

    A section is complete once each of its spaces holds an inner piece; outer pieces play no part
    (R10). Each section is flagged once: state 0 -> 1, with ``owner`` recorded as its completer
    (the Piano rule needs it). Returns the number of sections newly completed.
    """
    b = G_INST + d * INST_SIZE
    secs = geo[b + I_SECMASK + space]
    n = 0
    while secs:
        s = lowest_bit(secs)
        secs &= secs - 1
        k = d * MAX_SECTIONS + s
        if st[S_SEC_STATE + k] != SEC_OPEN:
            continue
        if section_open_spaces(st, geo, d, s) == 0:
            st[S_SEC_STATE + k] = SEC_COMPLETED
            st[S_SEC_COMPLETER + k] = owner
            emit(log, st, EV_SECTION, d, s, owner, 0, 0)
            n += 1
    return n


# --------------------------------------------------------------------------- counting and ranking


@kernel
def count_scope(st, d, scope_mask, counts):
    """Fill ``counts[N_OWNERS]`` with each owner's pieces, inner and outer, on the scope's spaces."""
    for o in range(N_OWNERS):
        counts[o] = 0
    while scope_mask:
        sp = lowest_bit(scope_mask)
        scope_mask &= scope_mask - 1
        o = st[S_INNER + d * MAX_SPACES + sp]
        if o >= 0:
            counts[o] += 1
        o = st[S_OUTER + d * MAX_SPACES + sp]
        if o >= 0:
            counts[o] += 1


@kernel
def _ahead(st, d, counts, a, b):
    """True if owner ``a`` ranks above owner ``b``: more pieces, or the tie order of R10."""
    if counts[a] != counts[b]:
        return counts[a] > counts[b]
    return track_beats(st, d, a, b)


@kernel
def rank_owners(st, d, counts, order):
    """Write the ranked owners into ``order`` and return how many there are.

    Only owners in play with at least one piece rank (R10). Most pieces first; ties by the brag
    track of instrument ``d`` (R10; the neutral wins every tie, R15). Pri ranks like a player (R14).
    """
    n = 0
    for o in range(N_OWNERS):
        if counts[o] <= 0 or not owner_present(st, o):
            continue
        k = n
        while k > 0 and _ahead(st, d, counts, o, order[k - 1]):
            order[k] = order[k - 1]
            k -= 1
        order[k] = o
        n += 1
    return n


@kernel
def _term_scope(geo, b, s, t):
    scope = geo[b + I_TERM_SCOPE + t]
    if scope == 0:
        scope = geo[b + I_SEC_SPACES + s]
    return scope


@kernel
def _adjacent_union(geo, b, s):
    """Bit mask of the spaces of every section adjacent to ``s``."""
    adj = geo[b + I_SEC_ADJ + s]
    union = np.int64(0)
    for a in range(MAX_SECTIONS):
        if (adj >> a) & 1:
            union |= geo[b + I_SEC_SPACES + a]
    return union


@kernel
def longest_group(st, geo, d, owner, through_mask):
    """Spaces in ``owner``'s largest connected group that touches ``through_mask``.

    A group is a set of spaces joined by inspector lines, each holding at least one piece of the
    owner (inner or outer). A space counts once whatever the pieces on it.
    """
    b = G_INST + d * INST_SIZE
    nsp = geo[b + I_NSPACES]
    mine = np.int64(0)
    for sp in range(nsp):
        if st[S_INNER + d * MAX_SPACES + sp] == owner or st[S_OUTER + d * MAX_SPACES + sp] == owner:
            mine |= np.int64(1) << sp
    seen = np.int64(0)
    stack = stack_empty(MAX_SPACES, np.int64)
    best = 0
    for start in range(nsp):
        bit = np.int64(1) << start
        if not (mine & bit) or (seen & bit):
            continue
        seen |= bit
        stack[0] = start
        top = 1
        size = 0
        touches = False
        while top > 0:
            top -= 1
            sp = stack[top]
            size += 1
            if (through_mask >> sp) & 1:
                touches = True
            for k in range(geo[b + I_NLINKS + sp]):
                nb = geo[b + I_LINK + sp * MAX_LINKS + k]
                if nb < 0:
                    continue
                nbit = np.int64(1) << nb
                if (mine & nbit) and not (seen & nbit):
                    seen |= nbit
                    stack[top] = nb
                    top += 1
        if touches and size > best:
            best = size
    return best


# --------------------------------------------------------------------------- the term vocabulary


@kernel
def _ratio(n, num, den):
    """``n * num // den`` with a non-positive denominator read as 1."""
    if den <= 0:
        den = 1
    return (n * num) // den


@kernel
def term_points(st, geo, d, s, j, order_index, completer, pts):
    """Add to ``pts[N_OWNERS]`` what term ``j`` of section ``s`` gives each owner if scored now.

    ``order_index`` is how many rank_by_order sections this instrument has already scored (0 selects
    the first award list, anything else the second); ``completer`` is the owner whose inner piece
    completed the section. Pri and the neutral receive points here like anyone; they are dropped
    when the points are paid (``core.add_points``), so a caller previewing a section should read
    only the seats' entries. Nothing in ``st`` is modified.
    """
    b = G_INST + d * INST_SIZE
    t = s * MAX_TERMS + j
    code = geo[b + I_TERM_CODE + t]
    if code == T_NONE:
        return
    p1 = geo[b + I_TERM_P + t * 4]
    p2 = geo[b + I_TERM_P + t * 4 + 1]
    p3 = geo[b + I_TERM_P + t * 4 + 2]
    p4 = geo[b + I_TERM_P + t * 4 + 3]
    scope = _term_scope(geo, b, s, t)
    counts = stack_full(N_OWNERS, 0, np.int64)
    order = stack_full(N_OWNERS, 0, np.int64)

    if code == T_RANK or code == T_RANK_ORDER:
        # Awards by rank (Bass, Violin, Banjo, Horns, ...); floors such as Organ's and Clarinet's
        # "never below 0" are already in the award list. rank_by_order (Guitar, R10): the first
        # such section scored on the instrument takes the first list, every later one the second.
        count_scope(st, d, scope, counts)
        n = rank_owners(st, d, counts, order)
        nawards = geo[b + I_TERM_NAWARDS + t]
        if nawards > MAX_AWARDS:
            nawards = MAX_AWARDS
        base = I_TERM_AWARDS
        if code == T_RANK_ORDER and order_index > 0:
            base = I_TERM_AWARDS2
        for k in range(min(n, nawards)):
            pts[order[k]] += geo[b + base + t * MAX_AWARDS + k]

    elif code == T_PER_PIECE:
        count_scope(st, d, scope, counts)
        for o in range(N_OWNERS):
            if owner_present(st, o):
                pts[o] += p1 * counts[o]

    elif code == T_COMPLETER:
        # Piano (R10): the completer takes p1/p2 per piece, everyone else p3/p4 (rounded down).
        # A completing Pri or neutral is paid nothing, and the others still take their share.
        count_scope(st, d, scope, counts)
        for o in range(N_OWNERS):
            if counts[o] <= 0 or not owner_present(st, o):
                continue
            if o == completer:
                pts[o] += _ratio(counts[o], p1, p2)
            else:
                pts[o] += _ratio(counts[o], p3, p4)

    elif code == T_ADJ_PRESENCE:
        # Vibes: p1 to each owner with a piece in every section adjacent to this one. Read as
        # written, presence in the completed section itself is not required. A section without
        # adjacent sections gives nothing.
        adj = geo[b + I_SEC_ADJ + s]
        if adj == 0:
            return
        for o in range(N_OWNERS):
            if not owner_present(st, o):
                continue
            everywhere = True
            for a in range(MAX_SECTIONS):
                if not (adj >> a) & 1:
                    continue
                count_scope(st, d, geo[b + I_SEC_SPACES + a], counts)
                if counts[o] <= 0:
                    everywhere = False
                    break
            if everywhere:
                pts[o] += p1

    elif code == T_ADJ_PER_PIECE:
        # Harp: p1 per piece in the adjacent sections; a space shared by two of them counts once.
        count_scope(st, d, _adjacent_union(geo, b, s), counts)
        for o in range(N_OWNERS):
            if owner_present(st, o):
                pts[o] += p1 * counts[o]

    elif code == T_MAJORITY_ALL:
        # Drums: the top owner (ties as R10) takes every piece in scope, the others their own.
        count_scope(st, d, scope, counts)
        n = rank_owners(st, d, counts, order)
        total = 0
        for o in range(N_OWNERS):
            total += counts[o]
        for k in range(n):
            o = order[k]
            if k == 0:
                pts[o] += total
            else:
                pts[o] += counts[o]

    elif code == T_LONGEST_GROUP:
        # Trombone: p1 per space of the owner's largest connected group that passes through the
        # scope (the section by default), counted in spaces, not pieces.
        for o in range(N_OWNERS):
            if owner_present(st, o):
                pts[o] += p1 * longest_group(st, geo, d, o, scope)


@kernel
def preview_section(st, geo, d, s, completer, pts):
    """Fill ``pts[N_OWNERS]`` with what section ``s`` would pay each owner if scored now.

    Uses the instrument's current completion order for rank_by_order terms. ``st`` is unchanged.
    """
    for o in range(N_OWNERS):
        pts[o] = 0
    order_index = st[S_ORDER_DONE + d]
    for j in range(MAX_TERMS):
        term_points(st, geo, d, s, j, order_index, completer, pts)


@kernel
def score_term(st, geo, log, d, s, j):
    """Pay term ``j`` of section ``s`` of instrument ``d`` (source ``SRC_OBJECTIVE + d``)."""
    pts = stack_full(N_OWNERS, 0, np.int64)
    k = d * MAX_SECTIONS + s
    term_points(st, geo, d, s, j, st[S_ORDER_DONE + d], st[S_SEC_COMPLETER + k], pts)
    for o in range(N_OWNERS):
        # The event names the section and the term: where = section + SCORE_TERM_SHIFT * term.
        add_points(st, log, o, pts[o], SRC_OBJECTIVE + d, d, s + SCORE_TERM_SHIFT * j)


@kernel
def score_section(st, geo, log, d, s):
    """Pay every term of section ``s`` in order; a rank_by_order section then advances the
    instrument's completion order once (R10), whatever its number of such terms."""
    b = G_INST + d * INST_SIZE
    by_order = False
    for j in range(MAX_TERMS):
        code = geo[b + I_TERM_CODE + s * MAX_TERMS + j]
        if code == T_NONE:
            continue
        score_term(st, geo, log, d, s, j)
        if code == T_RANK_ORDER:
            by_order = True
    if by_order:
        st[S_ORDER_DONE + d] += 1


@kernel
def resolve_objectives(st, geo, log):
    """End-of-turn resolution (R10): score each section completed this turn, instrument by
    instrument and section by section in data order, then mark it scored. Returns how many."""
    n = 0
    for d in range(N_DEPT):
        b = G_INST + d * INST_SIZE
        for s in range(geo[b + I_NSECTIONS]):
            k = d * MAX_SECTIONS + s
            if st[S_SEC_STATE + k] == SEC_COMPLETED:
                score_section(st, geo, log, d, s)
                st[S_SEC_STATE + k] = SEC_SCORED
                n += 1
    return n
