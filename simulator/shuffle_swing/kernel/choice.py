"""The turn choice of the basic policies: the candidates a seat may play and the greedy turn worth.

``enumerate_turns`` lists a seat's (spot, die, slice) candidates; ``score_candidates`` gives each its
greedy worth, acting and bragging instead, from worths computed once per choice and shared by the
candidates (construct and inspect per department and pips, refresh per pips); ``choose_turn_basic``
is the random and the greedy choice among them. The turn itself (``turn``) and the search players
(``search``) call these; ``engine`` dispatches between the policy kinds.
"""

import numpy as np

from simulator.kernel_common import probe_add, probe_clock, rng_below, rng_unit, stack_empty, stack_full
from simulator.shuffle_swing.kernel.core import PR_BRAGWORTH, PR_ENTER, PR_ESTIMATE, PR_REFRWORTH, PR_SEARCH, kernel
from simulator.shuffle_swing.kernel.policy import (
    OCC_SIZE,
    W_BLOCK,
    W_CAT,
    W_DIE_TO_OPP,
    W_EXPERT,
    W_LANDING,
    W_NEXT_PICKUP,
    W_SERVE_NEXT,
    brag_value,
    construct_estimate,
    is_random,
    occupancy,
    refresh_value,
    softmax_pick,
)
from simulator.shuffle_swing.kernel.routes import ROUTE_LEN, enter_values, search_routes
from simulator.shuffle_swing.kernel.rules import (
    die_owner,
    own_die_in_room,
    room_between,
    spot_occupied,
    spot_open_for_count,
    wheel_count,
)
from simulator.shuffle_swing.layout import (
    AUTOMA,
    CHEESE,
    CONSTRUCT,
    DICE_PER_OWNER,
    EXPERT_START,
    EXPERT_TOP,
    FACE_PIPS,
    MAX_SPACES,
    N_DEPT,
    N_SLICES,
    N_SPOTS,
    NOVICE_START,
    NOVICE_TOP,
    P_TEMPERATURE,
    REFRESH,
    S_CHOICES,
    S_DIE_FACE,
    S_DIE_WHERE,
    S_NPLAYERS,
    S_PAWN,
    S_SLICE_ACTION,
    S_SLICE_DIE,
    S_TIES,
    S_TIES_SPOT,
    S_TOKENS,
    W_SUPPLY,
)

MAX_CAND = 256
VALS_SIZE = 2 * MAX_CAND  # act or brag, per candidate
PLAN_SIZE = N_DEPT * 5  # per department, a worth for 0..4 pips
EV_SIZE = N_DEPT * MAX_SPACES
OCCS_SIZE = N_DEPT * OCC_SIZE  # occupancy masks of every department


# --------------------------------------------------------------------------- candidates


@kernel
def supply_die(st, p, face):
    """Lowest-numbered die of ``p`` in the supply showing ``face`` (dice of one face are alike)."""
    for k in range(DICE_PER_OWNER):
        die = p * DICE_PER_OWNER + k
        if st[S_DIE_WHERE + die] == W_SUPPLY and st[S_DIE_FACE + die] == face:
            return die
    return -1


@kernel
def enumerate_turns(st, p, c_spot, c_die, c_slice):
    """Every (spot, die, slice) a seat may choose this turn (R1, R3), spot by spot: the dice on the
    department's wheel, then (if the wheel has room) a novice and an expert die from the supply on
    each empty slice. A die picked up on the way (R2) is already in the supply when the die is
    selected, on 2*."""
    npl = st[S_NPLAYERS]
    cur = st[S_PAWN + p]
    nov = supply_die(st, p, NOVICE_START)
    exp_supply = supply_die(st, p, EXPERT_START)
    n = 0
    for d in range(N_DEPT):
        wheel = wheel_count(st, d)
        exp = exp_supply
        if exp < 0:
            exp = own_die_in_room(st, p, room_between(cur // 3, d) if cur >= 0 else -1)
        for spot in range(3 * d, 3 * d + 3):
            if spot == cur or not spot_open_for_count(spot, npl) or spot_occupied(st, spot):
                continue
            for s in range(N_SLICES):
                die = st[S_SLICE_DIE + d * N_SLICES + s]
                if die >= 0:
                    c_spot[n] = spot
                    c_die[n] = die
                    c_slice[n] = s
                    n += 1
            if wheel < 3:
                for k in range(2):
                    die = nov if k == 0 else exp
                    if die < 0:
                        continue
                    for s in range(N_SLICES):
                        if st[S_SLICE_DIE + d * N_SLICES + s] < 0:
                            c_spot[n] = spot
                            c_die[n] = die
                            c_slice[n] = s
                            n += 1
    return n


@kernel
def die_face_after_move(st, p, die):
    """Face the die will show when used: a die in a break room comes back on 2*."""
    if st[S_DIE_WHERE + die] == 2:
        return EXPERT_START
    return st[S_DIE_FACE + die]


# --------------------------------------------------------------------------- action estimates



@kernel
def choose_turn_basic(st, geo, strat, rng, p, c_spot, c_die, c_slice, n):
    """The random and greedy turn choices (no rollouts: rollouts call this, so it must not recurse)."""
    sp = strat[p]
    if is_random(sp):
        # Uniform over spots, then over the dice there, then over action or brag.
        spots = stack_full(N_SPOTS, 0, np.int64)
        ns = 0
        for i in range(n):
            if spots[c_spot[i]] == 0:
                ns += 1
            spots[c_spot[i]] += 1
        k = rng_below(rng, ns)
        chosen = -1
        for s in range(N_SPOTS):
            if spots[s] > 0:
                if k == 0:
                    chosen = s
                    break
                k -= 1
        m = rng_below(rng, spots[chosen])
        for i in range(n):
            if c_spot[i] == chosen:
                if m == 0:
                    return i, rng_below(rng, 2)
                m -= 1
        return 0, 0
    temp = sp[P_TEMPERATURE]
    if temp > 0.0:
        # The skill dial: uniform over every (candidate, act or brag) at infinity, else a softmax
        # over their worths (no candidate pruned, since every worth counts).
        if temp == np.inf:
            k = rng_below(rng, 2 * n)
            return k // 2, k % 2
        vals = stack_empty(VALS_SIZE, np.float64)
        score_candidates(st, geo, sp, p, c_spot, c_die, c_slice, n, vals, False)
        k = softmax_pick(vals, 2 * n, temp, rng)
        return k // 2, k % 2
    vals = stack_empty(VALS_SIZE, np.float64)
    score_candidates(st, geo, sp, p, c_spot, c_die, c_slice, n, vals, True)
    best = -1e18
    bi = 0
    for i in range(2 * n):
        v = vals[i] + 1e-6 * rng_unit(rng)
        if v > best:
            best = v
            bi = i
    count_tie(st, vals, c_spot, c_die, c_slice, n, bi)
    return bi // 2, bi % 2


@kernel
def count_tie(st, vals, c_spot, c_die, c_slice, n, bi):
    """Count a greedy turn choice in ``S_CHOICES`` and, when the 1e-6 noise decided it (another
    candidate within 1e-6 of the chosen worth), in ``S_TIES_SPOT``; in ``S_TIES`` too when such a
    candidate differs in more than the pawn spot within the department (a genuine tie)."""
    st[S_CHOICES] += 1
    floor = vals[bi] - 1e-6
    ci = bi // 2
    d = c_spot[ci] // 3
    spot_tie = False
    for j in range(2 * n):
        if j == bi or vals[j] <= floor:
            continue
        cj = j // 2
        if (j % 2) == (bi % 2) and c_spot[cj] // 3 == d and c_die[cj] == c_die[ci] and c_slice[cj] == c_slice[ci]:
            spot_tie = True
            continue
        st[S_TIES_SPOT] += 1
        st[S_TIES] += 1
        return
    if spot_tie:
        st[S_TIES_SPOT] += 1


@kernel
def ensure_occupancy(st, geo, d, occ, done):
    """Fill department ``d``'s ``occupancy`` masks in ``occ`` (every department's, ``OCC_SIZE``
    each) unless ``done[d]`` says this choice already has them."""
    if done[d] == 0:
        occupancy(st, geo, d, occ[d * OCC_SIZE : (d + 1) * OCC_SIZE])
        done[d] = 1


@kernel
def pawn_features(st, p, w_block, w_pickup, extra):
    """Per department, the worth of ``p``'s pawn standing there after the move (R1, R2):
    ``w_block`` when no open spot is left there for anyone else, and ``w_pickup`` per own die in a
    break room next to it (not the one this move passes, which is picked up now)."""
    cur = st[S_PAWN + p]
    npl = st[S_NPLAYERS]
    for d in range(N_DEPT):
        if w_block != 0.0:
            free = 0
            for spot in range(3 * d, 3 * d + 3):
                if spot_open_for_count(spot, npl) and (spot == cur or not spot_occupied(st, spot)):
                    free += 1
            # ``free`` counts the spot the pawn will take (the one it leaves is open again).
            if free == 1:
                extra[d] += w_block
        if w_pickup != 0.0:
            passed = room_between(cur // 3, d) if cur >= 0 else -1
            c = 0
            r1 = d
            r2 = (d + N_DEPT - 1) % N_DEPT
            if r1 != passed and own_die_in_room(st, p, r1) >= 0:
                c += 1
            if r2 != passed and own_die_in_room(st, p, r2) >= 0:
                c += 1
            extra[d] += w_pickup * c


@kernel
def add_features(st, geo, sp, p, c_spot, c_die, c_slice, n, vals, pick_worth, plan, refr, occ, occ_done, ev, top_enter):
    """Add the pawn-spot features (``pawn_features``) and the used die's destination (R5) to both
    worths of every candidate: ``serve_next`` (+1 when the die is the seat's own and stays on the
    wheel, -1 when it is an opponent's, which serves its owner at its next use or from its break
    room) and ``landing`` (the seat's own worth of the action and pips the die lands on, which it may
    use later). ``pick_worth`` is the worth of a pickup; the tables are ``score_candidates``'s."""
    w_block = sp[W_BLOCK]
    w_np = sp[W_NEXT_PICKUP]
    w_land = sp[W_LANDING]
    w_serve = sp[W_SERVE_NEXT]
    dept_extra = stack_full(N_DEPT, 0.0, np.float64)
    pawn_features(st, p, w_block, w_np * pick_worth, dept_extra)
    for i in range(n):
        d = c_spot[i] // 3
        die = c_die[i]
        owner = die_owner(die)
        face = die_face_after_move(st, p, die)
        top = face == NOVICE_TOP or face == EXPERT_TOP
        v = dept_extra[d]
        if owner == p and top:
            # The die goes to a room next to this department: the next move can pick it up.
            v += w_np * pick_worth
        if top and owner != AUTOMA:
            # To a break room: its owner picks it up later (an opponent's pickup serves them).
            if owner != p:
                v -= w_serve
        else:
            if owner == p:
                v += w_serve
            elif owner != AUTOMA:
                v -= w_serve
            if w_land != 0.0:
                t = landing_slice(st, d, c_slice[i])
                nface = EXPERT_START if top else face + 1
                v += w_land * own_worth(
                    st, geo, sp, p, d, st[S_SLICE_ACTION + d * N_SLICES + t], FACE_PIPS[nface],
                    plan, refr, occ, occ_done, ev, top_enter,
                )
        vals[2 * i] += v
        vals[2 * i + 1] += v


@kernel
def landing_slice(st, d, s):
    """Slice of department ``d`` a die used on slice ``s`` moves to (R5): the next open one
    clockwise, with ``s`` itself open again."""
    for k in range(1, N_SLICES + 1):
        t = (s + k) % N_SLICES
        if t == s or st[S_SLICE_DIE + d * N_SLICES + t] < 0:
            return t
    return s


@kernel
def own_worth(st, geo, sp, p, d, action, pips, plan, refr, occ, occ_done, ev, top_enter):
    """``p``'s own worth of ``action`` with ``pips`` at department ``d`` from the tables the turn
    choice shares (filled here when first needed): the construct estimate, the refresh worth, and
    for an inspect half of ``pips`` best entries (a rough bound, no route search)."""
    if action == CONSTRUCT:
        if np.isnan(plan[d * 5 + 1]):
            ensure_occupancy(st, geo, d, occ, occ_done)
            occd = occ[d * OCC_SIZE : (d + 1) * OCC_SIZE]
            construct_estimate(st, geo, sp, p, d, occd, plan[d * 5 : d * 5 + 5])
        return plan[d * 5 + pips]
    if action == REFRESH:
        if np.isnan(refr[pips]):
            refr[pips] = refresh_value(st, sp, p, pips)
        return refr[pips]
    if np.isnan(top_enter[d]):
        ensure_occupancy(st, geo, d, occ, occ_done)
        occd = occ[d * OCC_SIZE : (d + 1) * OCC_SIZE]
        top_enter[d] = enter_values(st, geo, sp, p, d, occd, ev[d * MAX_SPACES : (d + 1) * MAX_SPACES])
    return 0.5 * pips * top_enter[d]


@kernel
def score_candidates(st, geo, sp, p, c_spot, c_die, c_slice, n, vals, prune):
    """Greedy worth of each candidate: ``vals[2i]`` acting with it, ``vals[2i + 1]`` bragging instead.

    With ``prune`` (when only the best candidate matters) an inspect whose best conceivable route
    cannot beat the best other candidate is not searched and gets -inf."""
    # Worths computed once and shared by the candidates: construct and inspect per department and
    # pips, refresh per pips.
    t0 = probe_clock()
    plan = stack_full(PLAN_SIZE, np.nan, np.float64)
    insp = stack_full(PLAN_SIZE, np.nan, np.float64)
    refr = stack_full(5, np.nan, np.float64)
    brag_here = stack_empty(N_DEPT, np.float64)
    for d in range(N_DEPT):
        brag_here[d] = brag_value(st, geo, sp, p, d)
    best_brag = max(brag_here[0], max(brag_here[1], brag_here[2]))
    cur = st[S_PAWN + p]
    path = stack_empty(ROUTE_LEN, np.int64)
    jumps = stack_empty(ROUTE_LEN, np.int64)
    nrng = stack_full(1, 1, np.uint64)
    inspects = stack_empty(MAX_CAND, np.int64)  # the inspect candidates and their pips
    insp_pips = stack_empty(MAX_CAND, np.int64)
    n_insp = 0
    # Inspector entry worths per department, computed when a department's inspect is first met.
    ev = stack_empty(EV_SIZE, np.float64)
    top_enter = stack_full(N_DEPT, np.nan, np.float64)
    # Who holds which spaces, per department, worked out when a department is first needed.
    occ = stack_empty(OCCS_SIZE, np.int64)
    occ_done = stack_full(N_DEPT, 0, np.int64)
    # Moving to department d picks up an own die on the way: the same for every candidate there.
    pick = stack_empty(N_DEPT, np.int64)
    for d in range(N_DEPT):
        room = room_between(cur // 3, d) if cur >= 0 else -1
        pick[d] = own_die_in_room(st, p, room) >= 0
    pick_worth = sp[W_EXPERT] + 2.0 * best_brag
    probe_add(PR_BRAGWORTH, t0)
    for i in range(n):
        spot = c_spot[i]
        d = spot // 3
        die = c_die[i]
        owner = die_owner(die)
        v = 0.0
        if pick[d]:
            v += pick_worth
        if owner == p:
            v += sp[W_CAT]
        elif owner != AUTOMA:
            v -= sp[W_DIE_TO_OPP]
        face = die_face_after_move(st, p, die)
        if owner == p and (face == NOVICE_TOP or face == EXPERT_TOP):
            v += 0.5 * sp[W_EXPERT]
        pips = FACE_PIPS[face]
        action = st[S_SLICE_ACTION + d * N_SLICES + c_slice[i]]
        if action == CONSTRUCT:
            if np.isnan(plan[d * 5 + 1]):
                t0 = probe_clock()
                ensure_occupancy(st, geo, d, occ, occ_done)
                occd = occ[d * OCC_SIZE : (d + 1) * OCC_SIZE]
                construct_estimate(st, geo, sp, p, d, occd, plan[d * 5 : d * 5 + 5])
                probe_add(PR_ESTIMATE, t0)
            av = plan[d * 5 + pips]
        elif action == REFRESH:
            if np.isnan(refr[pips]):
                t0 = probe_clock()
                refr[pips] = refresh_value(st, sp, p, pips)
                probe_add(PR_REFRWORTH, t0)
            av = refr[pips]
        else:
            av = 0.0
            inspects[n_insp] = i
            insp_pips[n_insp] = pips
            n_insp += 1
        vals[2 * i] = v + av
        vals[2 * i + 1] = v + brag_here[d]
    # The pawn-spot and die-destination features, in a pass of their own taken only when one of
    # their weights is not 0, so that a profile without them (greedy) pays nothing for them.
    if sp[W_BLOCK] != 0.0 or sp[W_NEXT_PICKUP] != 0.0 or sp[W_LANDING] != 0.0 or sp[W_SERVE_NEXT] != 0.0:
        add_features(st, geo, sp, p, c_spot, c_die, c_slice, n, vals, pick_worth, plan, refr, occ, occ_done, ev, top_enter)
    best = -1e18
    if prune:
        for i in range(2 * n):
            if vals[i] > best:
                best = vals[i]
    for k in range(n_insp):
        i = inspects[k]
        d = c_spot[i] // 3
        pips = insp_pips[k]
        if np.isnan(insp[d * 5 + pips]):
            evd = ev[d * MAX_SPACES : (d + 1) * MAX_SPACES]
            if np.isnan(top_enter[d]):
                t0 = probe_clock()
                ensure_occupancy(st, geo, d, occ, occ_done)
                occd = occ[d * OCC_SIZE : (d + 1) * OCC_SIZE]
                top_enter[d] = enter_values(st, geo, sp, p, d, occd, evd)
                probe_add(PR_ENTER, t0)
            if prune and vals[2 * i] + pips * top_enter[d] <= best:
                vals[2 * i] = -1e18
                continue
            cheese = st[S_TOKENS + p * 3 + CHEESE]
            t0 = probe_clock()
            v, _ = search_routes(st, geo, sp, d, pips, cheese, path, jumps, nrng, evd, top_enter[d])
            probe_add(PR_SEARCH, t0)
            insp[d * 5 + pips] = v
        vals[2 * i] += insp[d * 5 + pips]
        if vals[2 * i] > best:
            best = vals[2 * i]
