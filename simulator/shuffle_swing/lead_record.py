"""Shuffle and Swing's per-round lead record (``simulator.lead_record``): the standing is the seat's
score so far (objective points as they fall during the game, R10; the last row is the final score
after the end-game scoring, R12, R13)."""

import numpy as np

from simulator.kernel_common import rng_next
from simulator.lead_record import new_record
from simulator.shuffle_swing.kernel.core import kernel_alloc
from simulator.shuffle_swing.kernel.engine import play_turn, setup_game
from simulator.shuffle_swing.kernel.invariants import check_invariants
from simulator.shuffle_swing.layout import G_MAX_ROUNDS, S_CUR, S_OVER, S_SCORE, S_TURN, STATE_SIZE


@kernel_alloc
def play_batch_lead(geo, nplayers, strat, seeds, out_states, check, rec, nrec):
    """``simulator.shuffle_swing.kernel.engine.play_batch`` plus the lead record: after each round, each seat's
    score into ``rec[g, round, seat]`` (the game loop is ``play_game``'s, call for call)."""
    log = np.zeros((1, 8), dtype=np.int32)
    bad = np.full((len(seeds), 3), -1, dtype=np.int64)
    nb = 0
    rows = rec.shape[1]
    for g in range(len(seeds)):
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = np.uint64(seeds[g])
        rng_next(rng)
        st = setup_game(geo, nplayers, strat, rng, log)
        code = 0
        turn = -1
        if check:
            code = check_invariants(st, geo)
        n = 0
        while code == 0 and st[S_OVER] == 0:
            play_turn(st, geo, strat, rng, log)
            if st[S_CUR] == 0 and n < rows:  # a round ended (R11: a game ends with its round)
                for p in range(nplayers):
                    rec[g, n, p] = st[S_SCORE + p]
                n += 1
            if check:
                code = check_invariants(st, geo)
                turn = st[S_TURN]
        nrec[g] = n
        out_states[g, :] = st
        if code != 0:
            bad[nb, 0] = g
            bad[nb, 1] = code
            bad[nb, 2] = turn
            nb += 1
    return bad[:nb]


def play_many_lead(setup, strat, seeds, check=False):
    """``simulator.shuffle_swing.playout.play_many`` with the record: (states, violations, rec, nrec)."""
    from simulator.shuffle_swing.playout import strategy_matrix

    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.zeros((len(seeds), STATE_SIZE), dtype=np.int32)
    rec, nrec = new_record(len(seeds), int(setup.geo[G_MAX_ROUNDS]), setup.nplayers)
    bad = play_batch_lead(setup.geo, setup.nplayers, strategy_matrix(setup, strat), seeds, out, check, rec, nrec)
    return out, bad, rec, nrec


def batch_results_lead(setup, seeds, strat):
    """The registry's ``play_batch`` of Shuffle and Swing with the record (``Game.play_batch_lead``):
    (seat columns, game columns, rec, nrec)."""
    from simulator.shuffle_swing.playout import game_results, seat_results

    states, _, rec, nrec = play_many_lead(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states), rec, nrec
