"""The game driver: the turn choice of every policy kind, one turn, one game, many games.

The turn itself lives in ``turn`` (its candidates and greedy worth in ``choice``) and the search
players in ``search``; this module dispatches the turn choice between them. The only loop that
plays whole games lives here (``play_game`` / ``play_batch``), so the soak, the CLI and the runner
share it. The turn's functions are re-exported so that callers may keep importing them from here.
"""

import numpy as np

from simulator.kernel_common import probe_add, probe_clock, rng_next, stack_empty
from simulator.shuffle_swing.kernel.core import PR_CHOICE, PR_LIST, PR_TURN, kernel, kernel_alloc
from simulator.shuffle_swing.kernel.invariants import check_invariants
from simulator.shuffle_swing.kernel.search import lookahead_pick, rollout_strat, search_pick  # noqa: F401
from simulator.shuffle_swing.kernel.choice import (  # noqa: F401
    EV_SIZE,
    MAX_CAND,
    OCCS_SIZE,
    PLAN_SIZE,
    VALS_SIZE,
    choose_turn_basic,
    die_face_after_move,
    ensure_occupancy,
    enumerate_turns,
    score_candidates,
    supply_die,
)
from simulator.shuffle_swing.kernel.turn import (  # noqa: F401
    do_construct,
    do_inspect,
    do_refresh,
    end_turn,
    execute_turn,
    move_with_pickup,
    pay,
    play_turn_basic,
    run_construct_pip,
    setup_game,
    take_brag,
    turn_start,
)
from simulator.shuffle_swing.layout import KIND_LOOKAHEAD, KIND_SEARCH, P_KIND, S_CUR, S_OVER, S_TURN


# --------------------------------------------------------------------------- the turn choice


@kernel_alloc
def choose_turn(st, geo, strat, rng, p, c_spot, c_die, c_slice, n):
    """Pick a candidate and whether to brag instead of acting. Returns (index, brag flag)."""
    sp = strat[p]
    if sp[P_KIND] == KIND_LOOKAHEAD:
        vals = np.empty(2 * n)
        score_candidates(st, geo, sp, p, c_spot, c_die, c_slice, n, vals, False)
        return lookahead_pick(st, geo, strat, rng, p, c_spot, c_die, c_slice, n, vals)
    if sp[P_KIND] == KIND_SEARCH:
        return search_pick(st, geo, strat, rng, p, c_spot, c_die, c_slice, n)
    return choose_turn_basic(st, geo, strat, rng, p, c_spot, c_die, c_slice, n)


# --------------------------------------------------------------------------- turns and games


@kernel
def play_turn(st, geo, strat, rng, log):
    """One whole turn of the seat ``st[S_CUR]``, then the end-of-turn checks."""
    c_spot = stack_empty(MAX_CAND, np.int64)
    c_die = stack_empty(MAX_CAND, np.int64)
    c_slice = stack_empty(MAX_CAND, np.int64)
    p = st[S_CUR]
    t0 = probe_clock()
    n = turn_start(st, geo, strat, rng, log, c_spot, c_die, c_slice)
    probe_add(PR_LIST, t0)
    if n > 0:
        t1 = probe_clock()
        i, brag_instead = choose_turn(st, geo, strat, rng, p, c_spot, c_die, c_slice, n)
        probe_add(PR_CHOICE, t1)
        execute_turn(st, geo, strat, rng, log, p, c_spot[i], c_die[i], c_slice[i], brag_instead)
    probe_add(PR_TURN, t0)


@kernel_alloc
def play_game(geo, nplayers, strat, seed, log, check):
    """Play one complete game from ``seed``. With ``check`` the invariants are tested after every turn;
    the first violation stops the game and is returned as (code, turn), else (0, -1)."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    rng_next(rng)
    st = setup_game(geo, nplayers, strat, rng, log)
    if check:
        code = check_invariants(st, geo)
        if code != 0:
            return st, code, -1
    while st[S_OVER] == 0:
        play_turn(st, geo, strat, rng, log)
        if check:
            code = check_invariants(st, geo)
            if code != 0:
                return st, code, st[S_TURN]
    return st, 0, -1


@kernel_alloc
def play_game_plain(geo, nplayers, strat, seed, log, check):
    """``play_game`` for tables of random and greedy seats only (``playout.plain_lineup``): the
    same game, draw for draw, through ``play_turn_basic``, so a plain game's first run compiles
    neither the lookahead nor the search player (the cold start of ``ssb play``)."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    rng_next(rng)
    st = setup_game(geo, nplayers, strat, rng, log)
    if check:
        code = check_invariants(st, geo)
        if code != 0:
            return st, code, -1
    while st[S_OVER] == 0:
        play_turn_basic(st, geo, strat, rng, log)
        if check:
            code = check_invariants(st, geo)
            if code != 0:
                return st, code, st[S_TURN]
    return st, 0, -1


@kernel_alloc
def play_batch(geo, nplayers, strat, seeds, out_states, check):
    """Play ``len(seeds)`` games; final states go to ``out_states`` rows. Returns violations found as
    an array of (game index, code, turn) rows (empty when clean)."""
    log = np.zeros((1, 8), dtype=np.int32)
    bad = np.full((len(seeds), 3), -1, dtype=np.int64)
    nb = 0
    for g in range(len(seeds)):
        st, code, turn = play_game(geo, nplayers, strat, seeds[g], log, check)
        out_states[g, :] = st
        if code != 0:
            bad[nb, 0] = g
            bad[nb, 1] = code
            bad[nb, 2] = turn
            nb += 1
    return bad[:nb]
