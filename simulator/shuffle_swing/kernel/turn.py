"""The turn: setup, the actions and the end of a turn (the candidates and the greedy turn worth are
``choice``'s).

Everything here plays one seat's turn with the basic policies (random and greedy, ``policy``); the
search players (``search``) call these functions to play their rollouts, and ``engine`` drives whole
games. Keeping the turn here and the drivers elsewhere avoids an import cycle between the turn and
the searches that replay it (numba compiles no recursion between them).
"""

import numpy as np

from simulator.kernel_common import probe_add, probe_clock, rng_below, rng_unit, stack_empty
from simulator.shuffle_swing.kernel.core import (
    PR_BRAG,
    PR_CONSTRUCT,
    PR_DIE,
    PR_END,
    PR_INSPECT,
    PR_MOVE,
    PR_PAY,
    PR_PLACEMENT,
    PR_REFRESH,
    PR_TICK,
    brag_step,
    emit,
    kernel,
    kernel_alloc,
    stat_add,
)
from simulator.shuffle_swing.kernel.choice import MAX_CAND, VALS_SIZE, choose_turn_basic, enumerate_turns, score_candidates
from simulator.shuffle_swing.kernel.objectives import resolve_objectives
from simulator.shuffle_swing.kernel.policy import (
    CTX_SIZE,
    choose_brag_track,
    choose_placement,
    choose_pri_space,
    choose_quilt,
    choose_refresh,
    choose_room,
    convert_colour,
    is_uniform,
    phase_weights,
)
from simulator.shuffle_swing.kernel.routes import ROUTE_LEN, search_inspect
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
    select_die,
    spend_token,
    spot_occupied,
    spot_open_for_count,
    tick_up,
)
from simulator.shuffle_swing.layout import (
    AUTOMA,
    BRAG_ACTION,
    BRAG_BUMP,
    BRAG_PICKUP,
    CHEESE,
    CONSTRUCT,
    EV_ACTION_BRAG,
    EV_BOOST,
    EV_FORFEIT,
    EV_GAME_END,
    EV_PASS,
    EV_TRIGGER,
    EXPERT_START,
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
    P_PRI_SETUP,
    REFRESH,
    S_BUILT,
    S_BUILT_TURN,
    S_CUR,
    S_DECISIONS,
    S_DIE_FACE,
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
    S_STALLED,
    S_TOKENS,
    S_TURN,
    ST_ACTION_BRAGS,
    ST_PASSES,
    ST_TURNS,
)

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
