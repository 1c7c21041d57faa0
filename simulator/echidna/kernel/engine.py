"""Whole games of Echidna Shuffle: one game (``play_game``), many (``play_batch``, the registry's
entry point), both through ``play_into`` on the caller's work arrays."""

import numpy as np

from simulator.kernel_common import probe_add, probe_clock, rng_next
from simulator.echidna.kernel.core import EPR_SETUP, kernel, kernel_alloc
from simulator.echidna.kernel.invariants import check_invariants
from simulator.echidna.kernel.set_up import setup_game
from simulator.echidna.kernel.turn import play_turn
from simulator.echidna.kernel.value import seat_features
from simulator.echidna.layout import (
    G_NPLAYERS,
    LEAF_F,
    MAX_SPACES,
    S_CUR,
    S_ROUND,
    S_STALLED,
    S_TURN,
    S_WINNER,
    STATE_SIZE,
)


@kernel
def play_into(geo, strat, seed, st, log, check, rng, nolog, tmp, order, score):
    """Set up and play one game into ``st`` with the caller's work arrays: ``rng`` (one uint64),
    ``nolog`` (a one-row log: records nothing, for the lookahead's copies), ``tmp`` (the lookahead's
    copy of the state), ``order`` and ``score`` (the set-up's space lists and scores). Returns
    (violation code, turn of the violation), or (0, -1). The game ends at the first win (E6, E10)
    or at the stall cap (E9). Without reference counting (``kernel``), unlike ``play_game``."""
    rng[0] = seed
    rng_next(rng)
    t0 = probe_clock()
    setup_game(geo, st, strat, rng, log, order, score)
    probe_add(EPR_SETUP, t0)
    if check:
        code = check_invariants(geo, st)
        if code != 0:
            return code, 0
    while st[S_WINNER] < 0 and st[S_STALLED] == 0:
        play_turn(geo, st, strat, rng, log, nolog, tmp)
        if check:
            code = check_invariants(geo, st)
            if code != 0:
                return code, st[S_TURN]
    return 0, -1


@kernel_alloc
def play_game(geo, strat, seed, st, log, check):
    """Set up and play one game into ``st`` (``play_into`` with work arrays of its own)."""
    rng = np.empty(1, dtype=np.uint64)
    nolog = np.zeros((1, 7), dtype=np.int64)
    tmp = np.zeros(STATE_SIZE, dtype=np.int64)
    order = np.zeros(MAX_SPACES, dtype=np.int64)
    score = np.zeros(MAX_SPACES, dtype=np.float64)
    return play_into(geo, strat, seed, st, log, check, rng, nolog, tmp, order, score)


@kernel_alloc
def play_batch(geo, strat, seeds, out, check):
    """One game per seed; final states in ``out`` (games x STATE_SIZE). Returns the violations found
    as rows (game index, code, turn)."""
    g = len(seeds)
    bad = np.zeros((g, 3), dtype=np.int64)
    nbad = 0
    log = np.zeros((1, 7), dtype=np.int64)
    # The work arrays, once per batch (every game starts from ``setup_game``'s fresh state).
    rng = np.empty(1, dtype=np.uint64)
    nolog = np.zeros((1, 7), dtype=np.int64)
    tmp = np.zeros(STATE_SIZE, dtype=np.int64)
    order = np.zeros(MAX_SPACES, dtype=np.int64)
    score = np.zeros(MAX_SPACES, dtype=np.float64)
    for i in range(g):
        code, turn = play_into(geo, strat, seeds[i], out[i], log, check, rng, nolog, tmp, order, score)
        if code != 0:
            bad[nbad, 0] = i
            bad[nbad, 1] = code
            bad[nbad, 2] = turn
            nbad += 1
    return bad[:nbad].copy()


@kernel_alloc
def value_samples(geo, strat, seeds, max_round, feats, seen):
    """The set-up value's training data: one game per seed, every seat's features
    (``value.seat_features``) at the start of rounds 0..``max_round`` (round 0: right after the
    set-up) into ``feats`` (games x rounds x seats x LEAF_F), ``seen[g, r]`` = 1 where the game was
    still open then. Returns the winners (-1: stalled)."""
    g = len(seeds)
    n = geo[G_NPLAYERS]
    winners = np.zeros(g, dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    log = np.zeros((1, 7), dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    nolog = np.zeros((1, 7), dtype=np.int64)
    tmp = np.zeros(STATE_SIZE, dtype=np.int64)
    order = np.zeros(MAX_SPACES, dtype=np.int64)
    score = np.zeros(MAX_SPACES, dtype=np.float64)
    f = np.zeros(LEAF_F, dtype=np.float64)
    for i in range(g):
        rng[0] = seeds[i]
        rng_next(rng)
        setup_game(geo, st, strat, rng, log, order, score)
        while True:
            if st[S_CUR] == 0 and st[S_ROUND] <= max_round and st[S_WINNER] < 0 and st[S_STALLED] == 0:
                r = st[S_ROUND]
                if seen[i, r] == 0:
                    seen[i, r] = 1
                    for q in range(n):
                        seat_features(geo, st, q, f)
                        for k in range(LEAF_F):
                            feats[i, r, q, k] = f[k]
            if st[S_WINNER] >= 0 or st[S_STALLED] != 0:
                break
            play_turn(geo, st, strat, rng, log, nolog, tmp)
        winners[i] = st[S_WINNER]
    return winners
