"""The turn: setup, candidate listing, the greedy turn worth, the actions and the end of a turn.

Everything here plays one seat's turn with the basic policies (random and greedy, ``policy``); the
search players (``search``) call these functions to play their rollouts, and ``engine`` drives whole
games. Keeping the turn here and the drivers elsewhere avoids an import cycle between the turn and
the searches that replay it (numba compiles no recursion between them).
"""

import numpy as np

from simulator.shuffle_swing.kernel.core import (
    PR_BRAG,
    PR_BRAGWORTH,
    PR_REFRWORTH,
    PR_CONSTRUCT,
    PR_DIE,
    PR_END,
    PR_ENTER,
    PR_ESTIMATE,
    PR_INSPECT,
    PR_MOVE,
    PR_PAY,
    PR_PLACEMENT,
    PR_REFRESH,
    PR_SEARCH,
    PR_TICK,
    brag_step,
    emit,
    kernel,
    kernel_alloc,
    rng_below,
    probe_add,
    probe_clock,
    rng_unit,
    stack_empty,
    stack_full,
    stat_add,
)
from simulator.shuffle_swing.kernel.objectives import resolve_objectives
from simulator.shuffle_swing.kernel.policy import (
    ROUTE_LEN,
    W_BLOCK,
    W_CAT,
    W_DIE_TO_OPP,
    W_EXPERT,
    W_LANDING,
    W_NEXT_PICKUP,
    W_SERVE_NEXT,
    brag_value,
    choose_brag_track,
    construct_estimate,
    choose_placement,
    choose_pri_space,
    choose_quilt,
    choose_refresh,
    choose_room,
    convert_colour,
    is_random,
    is_uniform,
    enter_values,
    phase_weights,
    softmax_pick,
    refresh_value,
    search_inspect,
    search_routes,
    CTX_SIZE,
    OCC_SIZE,
    occupancy,
)
from simulator.shuffle_swing.kernel.rules import (
    bump,
    construct_slices,
    die_owner,
    die_to_room,
    exhaust_cat,
    final_scoring,
    inspector_enter,
    inst_base,
    move_pawn,
    new_state,
    own_die_in_room,
    pickup,
    place_piece,
    place_pri_piece,
    place_pri_setup,
    pri_build_options,
    pri_climb,
    pri_move,
    record_placement,
    recruit,
    refresh_lines,
    room_between,
    select_die,
    spend_token,
    spot_occupied,
    spot_open_for_count,
    tick_up,
    wheel_count,
)
from simulator.shuffle_swing.layout import (
    AUTOMA,
    BRAG_ACTION,
    BRAG_BUMP,
    BRAG_PICKUP,
    CHEESE,
    CONSTRUCT,
    DICE_PER_OWNER,
    EV_ACTION_BRAG,
    EV_BOOST,
    EV_FORFEIT,
    EV_GAME_END,
    EV_PASS,
    EV_TRIGGER,
    EXPERT_START,
    EXPERT_TOP,
    FACE_PIPS,
    G_SHUFFLE_WHEELS,
    I_COLOUR,
    I_COST,
    LADDER,
    MAX_SPACES,
    MILK,
    N_DEPT,
    N_SLICES,
    N_SPOTS,
    NOVICE_START,
    NOVICE_TOP,
    P_PRI_SETUP,
    P_TEMPERATURE,
    REFRESH,
    S_BUILT,
    S_CHOICES,
    S_BUILT_TURN,
    S_CUR,
    S_DECISIONS,
    S_DIE_FACE,
    S_DIE_WHERE,
    S_EMPTY,
    S_ENDING,
    S_MAX_ROUNDS,
    S_NPLAYERS,
    S_OVER,
    S_PASSED,
    S_PAWN,
    S_READY,
    S_ROUND,
    S_SLICE_ACTION,
    S_SLICE_DIE,
    S_STALLED,
    S_TIES,
    S_TIES_SPOT,
    S_TOKENS,
    S_TURN,
    ST_ACTION_BRAGS,
    ST_PASSES,
    ST_TURNS,
    W_SUPPLY,
)

MAX_CAND = 256
VALS_SIZE = 2 * MAX_CAND  # act or brag, per candidate
PLAN_SIZE = N_DEPT * 5  # per department, a worth for 0..4 pips
EV_SIZE = N_DEPT * MAX_SPACES
OCCS_SIZE = N_DEPT * OCC_SIZE  # occupancy masks of every department


# --------------------------------------------------------------------------- setup


@kernel_alloc
def setup_game(geo, nplayers, strat, rng, log):
    """A new game: wheels shuffled from the game's generator (unless the data fixes them), then the
    two-player Pri setup (R14): drawn from the generator, or, when the first seat's strategy says
    ``pri_setup = 1``, chosen by its evaluation (``choose_pri_setup``). Seats with a game-phase
    weight row get the row for the start of the game."""
    perm = np.empty(N_DEPT * N_SLICES, dtype=np.int64)
    for d in range(N_DEPT):
        for s in range(N_SLICES):
            perm[d * N_SLICES + s] = s
        if geo[G_SHUFFLE_WHEELS] != 0:
            for s in range(N_SLICES - 1, 0, -1):
                j = rng_below(rng, s + 1)
                t = perm[d * N_SLICES + s]
                perm[d * N_SLICES + s] = perm[d * N_SLICES + j]
                perm[d * N_SLICES + j] = t
    st = new_state(geo, nplayers, perm)
    phase_weights(st, geo, strat)
    if nplayers == 2 and strat[0, P_PRI_SETUP] == 1 and not is_uniform(strat[0]):
        spot, slices = choose_pri_setup(st, geo, strat, rng)
        place_pri_setup(st, spot, slices)
    elif nplayers == 2:
        spots = np.empty(N_SPOTS, dtype=np.int64)
        n = 0
        for s in range(N_SPOTS):
            if spot_open_for_count(s, 2):
                spots[n] = s
                n += 1
        slices = np.empty(N_DEPT, dtype=np.int64)
        tmp = np.empty(N_SLICES, dtype=np.int64)
        for d in range(N_DEPT):
            k = construct_slices(st, d, tmp)
            slices[d] = tmp[rng_below(rng, k)] if k > 0 else 0
        place_pri_setup(st, spots[rng_below(rng, n)], slices)
    return st


@kernel_alloc
def best_turn_worth(st, geo, strat, p):
    """The greedy worth of seat ``p``'s best turn in state ``st`` (-1e18 with no candidate)."""
    c_spot = np.empty(MAX_CAND, dtype=np.int64)
    c_die = np.empty(MAX_CAND, dtype=np.int64)
    c_slice = np.empty(MAX_CAND, dtype=np.int64)
    vals = np.empty(VALS_SIZE, dtype=np.float64)
    n = enumerate_turns(st, p, c_spot, c_die, c_slice)
    if n == 0:
        return -1e18
    score_candidates(st, geo, strat[p], p, c_spot, c_die, c_slice, n, vals, True)
    best = -1e18
    for i in range(2 * n):
        if vals[i] > best:
            best = vals[i]
    return best


@kernel_alloc
def pri_setup_worth(st, geo, strat, spot, slices):
    """Worth for the first seat of a two-player Pri setup (R14): its best first turn, as its greedy
    evaluation sees it, less the second seat's best turn on the same board (by the second seat's
    evaluation)."""
    sim = st.copy()
    place_pri_setup(sim, spot, slices)
    return best_turn_worth(sim, geo, strat, 0) - best_turn_worth(sim, geo, strat, 1)


@kernel_alloc
def choose_pri_setup(st, geo, strat, rng):
    """Pri's start spot and her dice's Construct slices, chosen by the first seat (R14) with its
    evaluation (``pri_setup_worth``), one coordinate at a time: the spot with every die on its
    department's first Construct slice, then each department's slice in turn with the others
    kept. Exact ties go to the 1e-6 noise, as in the turn choice. Returns (spot, slices)."""
    slices = np.zeros(N_DEPT, dtype=np.int64)
    cs = np.zeros((N_DEPT, N_SLICES), dtype=np.int64)
    ncs = np.zeros(N_DEPT, dtype=np.int64)
    tmp = np.empty(N_SLICES, dtype=np.int64)
    for d in range(N_DEPT):
        k = construct_slices(st, d, tmp)
        ncs[d] = k
        for j in range(k):
            cs[d, j] = tmp[j]
        slices[d] = tmp[0] if k > 0 else 0
    best = -1e18
    spot = -1
    for s in range(N_SPOTS):
        if not spot_open_for_count(s, 2):
            continue
        v = pri_setup_worth(st, geo, strat, s, slices) + 1e-6 * rng_unit(rng)
        if v > best:
            best = v
            spot = s
    for d in range(N_DEPT):
        if ncs[d] < 2:
            continue
        best = -1e18
        bj = 0
        for j in range(ncs[d]):
            slices[d] = cs[d, j]
            v = pri_setup_worth(st, geo, strat, spot, slices) + 1e-6 * rng_unit(rng)
            if v > best:
                best = v
                bj = j
        slices[d] = cs[d, bj]
    return spot, slices


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


# --------------------------------------------------------------------------- actions


@kernel
def pay(st, geo, strat, rng, log, p, colour, cost):
    """Pay ``cost`` cats of ``colour``; where short, a ladder (already spent) turns another cat (R6).
    Each paid cat goes to a quilt space the policy picks, or is lost when the quilt is full."""
    sp = strat[p]
    for _ in range(cost):
        c = colour
        if st[S_READY + p * 3 + colour] <= 0:
            c = convert_colour(st, sp, rng, p, colour)
        q = choose_quilt(st, sp, rng, p)
        exhaust_cat(st, log, p, c, q)


@kernel
def run_construct_pip(st, geo, strat, rng, log, p, d):
    """One pip of a construct: the policy picks a placement (or forfeits); returns whether a piece
    was placed."""
    sp = strat[p]
    ctx = stack_empty(CTX_SIZE, np.float64)
    t0 = probe_clock()
    s, outer, nl = choose_placement(st, geo, sp, rng, p, d, ctx)
    probe_add(PR_PLACEMENT, t0)
    if s < 0:
        return False
    base = inst_base(d)
    colour = geo[base + I_COLOUR + s]
    cost = geo[base + I_COST + s] - outer
    if nl > 0:
        spend_token(st, p, LADDER, nl)
        if log.shape[0] > 1:
            emit(log, st, EV_BOOST, p, LADDER, nl, 0, 0)
    t1 = probe_clock()
    pay(st, geo, strat, rng, log, p, colour, cost)
    probe_add(PR_PAY, t1)
    record_placement(st, log, p, d, s, outer, cost, nl)
    place_piece(st, geo, log, p, d, s, outer)
    return True


@kernel
def do_construct(st, geo, strat, rng, log, p, d, pips):
    """Construct (R6): each pip is one placement or is forfeited."""
    for k in range(pips):
        st[S_DECISIONS] += 1
        if not run_construct_pip(st, geo, strat, rng, log, p, d):
            if log.shape[0] > 1:
                emit(log, st, EV_FORFEIT, p, pips - k, 0, 0, 0)
            break


@kernel
def do_refresh(st, strat, rng, log, p, pips):
    """Refresh (R7): the policy picks row, column or (with a milk) both."""
    mode = choose_refresh(st, strat[p], rng, p, pips)
    if mode == 3:
        spend_token(st, p, MILK, 1)
        if log.shape[0] > 1:
            emit(log, st, EV_BOOST, p, MILK, 1, 0, 0)
    refresh_lines(st, log, p, pips, mode)


@kernel
def do_inspect(st, geo, strat, rng, log, p, d, pips):
    """Move the inspector (R8) along the route the policy picks; every cheese jump costs a cheese."""
    path = stack_empty(ROUTE_LEN, np.int64)
    jumps = stack_empty(ROUTE_LEN, np.int64)
    cheese = st[S_TOKENS + p * 3 + CHEESE]
    val, n = search_inspect(st, geo, strat[p], p, d, pips, cheese, path, jumps, rng)
    for t in range(n):
        if jumps[t]:
            spend_token(st, p, CHEESE, 1)
        inspector_enter(st, geo, log, p, d, path[t], jumps[t])


# --------------------------------------------------------------------------- a turn


@kernel
def take_brag(st, geo, strat, rng, log, owner, origin):
    """One brag on a track the owner's policy picks (pickups, bumps); Pri and the neutral never choose."""
    if owner >= AUTOMA:
        return
    d = choose_brag_track(st, geo, strat[owner], rng, owner)
    brag_step(st, geo, log, owner, d, origin)


@kernel
def move_with_pickup(st, geo, strat, rng, log, p, spot):
    """Step 1 of a turn: move the pawn, and pick up an own die from the room passed with its two brags (R1, R2)."""
    room = move_pawn(st, log, p, spot)
    if own_die_in_room(st, p, room) >= 0:
        pickup(st, log, p, room)
        take_brag(st, geo, strat, rng, log, p, BRAG_PICKUP)
        take_brag(st, geo, strat, rng, log, p, BRAG_PICKUP)


@kernel
def turn_start(st, geo, strat, rng, log, c_spot, c_die, c_slice):
    """Open seat ``st[S_CUR]``'s turn: list its (spot, die, slice) candidates. With none, the turn is a
    pass (R3): the pawn still moves, the turn ends, and 0 is returned."""
    p = st[S_CUR]
    npl = st[S_NPLAYERS]
    phase_weights(st, geo, strat)
    n = enumerate_turns(st, p, c_spot, c_die, c_slice)
    st[S_PASSED] = 0
    stat_add(st, p, ST_TURNS, 1)
    st[S_DECISIONS] += 1
    if n == 0:
        opts = stack_empty(N_SPOTS, np.int64)
        k = 0
        for s in range(N_SPOTS):
            if s != st[S_PAWN + p] and spot_open_for_count(s, npl) and not spot_occupied(st, s):
                opts[k] = s
                k += 1
        if log.shape[0] > 1:
            emit(log, st, EV_PASS, p, 0, 0, 0, 0)
        stat_add(st, p, ST_PASSES, 1)
        st[S_PASSED] = 1
        if k > 0:
            move_with_pickup(st, geo, strat, rng, log, p, opts[rng_below(rng, k)])
        end_turn(st, geo, log)
    return n



@kernel
def play_turn_basic(st, geo, strat, rng, log):
    """``play_turn`` for random and greedy seats only: the rollouts of the lookahead policy."""
    c_spot = stack_empty(MAX_CAND, np.int64)
    c_die = stack_empty(MAX_CAND, np.int64)
    c_slice = stack_empty(MAX_CAND, np.int64)
    p = st[S_CUR]
    n = turn_start(st, geo, strat, rng, log, c_spot, c_die, c_slice)
    if n > 0:
        i, brag_instead = choose_turn_basic(st, geo, strat, rng, p, c_spot, c_die, c_slice, n)
        execute_turn(st, geo, strat, rng, log, p, c_spot[i], c_die[i], c_slice[i], brag_instead)


@kernel
def execute_turn(st, geo, strat, rng, log, p, spot, die, slice_idx, brag_instead):
    """Play seat ``p``'s turn with the chosen spot, die (and slice for a supply die) and action or
    brag; every later choice of the turn is asked of the policies."""
    d = spot // 3
    # 1. Pawn, with any break-room pickup and its two brags (R1, R2).
    t0 = probe_clock()
    move_with_pickup(st, geo, strat, rng, log, p, spot)
    probe_add(PR_MOVE, t0)
    # 2. Die and reward (R3).
    t0 = probe_clock()
    s = select_die(st, log, p, d, die, slice_idx)
    owner = die_owner(die)
    if owner == AUTOMA:
        opts = stack_empty(MAX_SPACES, np.int64)
        k, outer = pri_build_options(st, geo, d, opts)
        if k > 0:
            st[S_DECISIONS] += 1
            sp_choice = choose_pri_space(st, geo, strat[p], rng, p, d, opts, k)
            place_pri_piece(st, geo, log, d, sp_choice, outer)
    else:
        recruit(st, log, owner, d)
    # 3. Action (R4), or one brag at this department instead.
    pips = FACE_PIPS[st[S_DIE_FACE + die]]
    action = st[S_SLICE_ACTION + d * N_SLICES + s]
    st[S_DECISIONS] += 1
    probe_add(PR_DIE, t0)
    t0 = probe_clock()
    if brag_instead:
        stat_add(st, p, ST_ACTION_BRAGS, 1)
        if log.shape[0] > 1:
            emit(log, st, EV_ACTION_BRAG, p, d, 0, 0, 0)
        brag_step(st, geo, log, p, d, BRAG_ACTION)
        probe_add(PR_BRAG, t0)
    elif action == CONSTRUCT:
        do_construct(st, geo, strat, rng, log, p, d, pips)
        probe_add(PR_CONSTRUCT, t0)
    elif action == REFRESH:
        do_refresh(st, strat, rng, log, p, pips)
        probe_add(PR_REFRESH, t0)
    else:
        do_inspect(st, geo, strat, rng, log, p, d, pips)
        probe_add(PR_INSPECT, t0)
    # 4. Move the die and tick it up (R5).
    t0 = probe_clock()
    if tick_up(st, log, die, d) > 0:
        room, do_bump = choose_room(st, strat[p], rng, p, d)
        if do_bump:
            victim = bump(st, log, p, room)
            take_brag(st, geo, strat, rng, log, victim, BRAG_BUMP)
        die_to_room(st, log, die, room)
    elif owner == AUTOMA and st[S_DIE_FACE + die] == EXPERT_START and pips == 4:
        pri_climb(st, geo, log, d)
    probe_add(PR_TICK, t0)
    t0 = probe_clock()
    end_turn(st, geo, log)
    probe_add(PR_END, t0)


@kernel
def end_turn(st, geo, log):
    """Objectives (R10), the game-end trigger (R11), the next seat, Pri's move (R14)."""
    resolve_objectives(st, geo, log)
    nbuilt = 0
    for d in range(N_DEPT):
        if st[S_EMPTY + d] == 0:
            if st[S_BUILT + d] == 0:
                st[S_BUILT + d] = 1
                st[S_BUILT_TURN + d] = st[S_TURN]
            nbuilt += 1
    if st[S_ENDING] == 0 and nbuilt >= 2:
        st[S_ENDING] = 1
        if log.shape[0] > 1:
            emit(log, st, EV_TRIGGER, nbuilt, 0, 0, 0, 0)
    npl = st[S_NPLAYERS]
    st[S_TURN] += 1
    p = st[S_CUR]
    if p == npl - 1:
        if npl == 2:
            pri_move(st, log)
        st[S_ROUND] += 1
        st[S_CUR] = 0
        if st[S_ENDING] != 0 or st[S_ROUND] >= st[S_MAX_ROUNDS]:
            if st[S_ENDING] == 0:
                st[S_STALLED] = 1
            st[S_OVER] = 1
            if log.shape[0] > 1:
                emit(log, st, EV_GAME_END, st[S_ROUND], st[S_STALLED], 0, 0, 0)
            final_scoring(st, geo, log)
    else:
        st[S_CUR] = p + 1
