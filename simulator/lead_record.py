"""The optional per-round record of who is ahead (a scenario's ``record = ["lead"]``), both games.

Each game's batch entry point has a twin here that plays the same games with the same calls, in the
same order, and after every completed round (and at the game's end) writes each seat's *standing*
into a preallocated array: ``rec[game, round, seat]``. The twin only reads the state, so every
decision and every draw of the generator are those of the plain entry point (the decision
fingerprints say so with the record on: ``benchmarks/sns_fingerprint.py --record``,
``benchmarks/echidna_fingerprint.py --record``). A run without the record calls the plain entry
point and pays nothing.

The standing (``docs/guide/game-feel.md`` says what the game-feel measures make of it):

* Shuffle and Swing: the seat's score so far (objective points as they fall during the game, R10;
  the last row is the final score after the end-game scoring, R12, R13).
* Echidna Shuffle: ``bugs home x 1000 - remaining distance``, the remaining distance being the
  steps its riding bugs still need to their nearest own stump plus, for each bug still to pick up,
  the steps from its pick-up space to its nearest stump. So the leader is the seat with the most
  bugs home, then the shortest remaining distance. The winner's row is the partial round in which
  a seat brought its last bug home (E6).

Rows past a game's end hold ``PAD``; ``nrec[game]`` says how many rows were written.

This module lives outside the kernel packages' source lists on purpose: it changes no game, so it
does not change the kernel's cache key either (numba keys its own cache by this file).
"""

import numpy as np

from simulator.echidna import layout as EL
from simulator.echidna.kernel import check_invariants as ech_check
from simulator.echidna.kernel import kernel as ech_kernel
from simulator.echidna.kernel import kernel_alloc as ech_kernel_alloc
from simulator.echidna.kernel import play_turn as ech_play_turn
from simulator.echidna.kernel import rider_dist, setup_game as ech_setup_game
from simulator.shuffle_swing.kernel.core import kernel_alloc, rng_next
from simulator.shuffle_swing.kernel.engine import play_turn, setup_game
from simulator.shuffle_swing.kernel.invariants import check_invariants
from simulator.shuffle_swing.layout import S_CUR, S_OVER, S_ROUND, S_SCORE, S_TURN

PAD = np.iinfo(np.int32).min
ECHIDNA_HOME_WEIGHT = 1000  # one bug home outweighs any distance on either board


# =========================================================================== Shuffle and Swing


@kernel_alloc
def sns_play_batch_lead(geo, nplayers, strat, seeds, out_states, check, rec, nrec):
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


# =========================================================================== Echidna Shuffle

E_BUGS, E_N_ECHIDNAS = EL.BUGS, EL.N_ECHIDNAS
E_S_CUR, E_S_WINNER, E_S_STALLED, E_S_NPLAYERS, E_S_TURN = EL.S_CUR, EL.S_WINNER, EL.S_STALLED, EL.S_NPLAYERS, EL.S_TURN
E_S_EPOS, E_S_EBUG, E_S_PICK, E_S_STUMPS = EL.S_EPOS, EL.S_EBUG, EL.S_PICK, EL.S_STUMPS
E_S_HOME, E_S_RIDING = EL.S_HOME, EL.S_RIDING
E_STATE_SIZE, E_MAX_SPACES = EL.STATE_SIZE, EL.MAX_SPACES


@ech_kernel
def echidna_standing(geo, st, p):
    """Seat ``p``'s bugs home x ECHIDNA_HOME_WEIGHT less the steps still to go: its riding bugs to
    their nearest own stump, each bug still to pick up from its pick-up space (E4, E5, E6)."""
    stumps = st[E_S_STUMPS + p]
    togo = 0
    for e in range(E_N_ECHIDNAS):
        if st[E_S_EBUG + e] == p:
            togo += rider_dist(geo, stumps, st[E_S_EPOS + e])
    left = E_BUGS - st[E_S_HOME + p] - st[E_S_RIDING + p]
    if left > 0:
        togo += left * rider_dist(geo, stumps, st[E_S_PICK + p])
    return st[E_S_HOME + p] * ECHIDNA_HOME_WEIGHT - togo


@ech_kernel
def echidna_play_lead_into(geo, strat, seed, st, log, check, rng, nolog, tmp, order, score, rec_g):
    """``play_into`` with the record: the same set-up and turns, and after each round, and after
    the winning move (E6) or the stall cap (E9), each seat's standing into a row of ``rec_g``.
    Without reference counting, like ``play_into`` (counted calls cost most of a turn). Returns
    (violation code, turn of the violation, rows written)."""
    rng[0] = seed
    rng_next(rng)
    ech_setup_game(geo, st, strat, rng, log, order, score)
    code = 0
    turn = -1
    if check:
        code = ech_check(geo, st)
        turn = 0
    n = 0
    rows = rec_g.shape[0]
    npl = st[E_S_NPLAYERS]
    while code == 0 and st[E_S_WINNER] < 0 and st[E_S_STALLED] == 0:
        ech_play_turn(geo, st, strat, rng, log, nolog, tmp)
        if (st[E_S_CUR] == 0 or st[E_S_WINNER] >= 0) and n < rows:
            for p in range(npl):
                rec_g[n, p] = echidna_standing(geo, st, p)
            n += 1
        if check:
            code = ech_check(geo, st)
            turn = st[E_S_TURN]
    if code == 0:
        turn = -1
    return code, turn, n


@ech_kernel_alloc
def echidna_play_batch_lead(geo, strat, seeds, out, check, rec, nrec):
    """``simulator.echidna.kernel.play_batch`` plus the lead record (``echidna_play_lead_into``)."""
    g = len(seeds)
    bad = np.zeros((g, 3), dtype=np.int64)
    nbad = 0
    log = np.zeros((1, 7), dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    nolog = np.zeros((1, 7), dtype=np.int64)
    tmp = np.zeros(E_STATE_SIZE, dtype=np.int64)
    order = np.zeros(E_MAX_SPACES, dtype=np.int64)
    score = np.zeros(E_MAX_SPACES, dtype=np.float64)
    for i in range(g):
        code, turn, n = echidna_play_lead_into(geo, strat, seeds[i], out[i], log, check, rng, nolog, tmp, order, score, rec[i])
        nrec[i] = n
        if code != 0:
            bad[nbad, 0] = i
            bad[nbad, 1] = code
            bad[nbad, 2] = turn
            nbad += 1
    return bad[:nbad].copy()


# =========================================================================== the Python face


def sns_play_many_lead(setup, strat, seeds, check=False):
    """``simulator.shuffle_swing.playout.play_many`` with the record: (states, violations, rec, nrec)."""
    from simulator.shuffle_swing.layout import G_MAX_ROUNDS, STATE_SIZE
    from simulator.shuffle_swing.playout import strategy_matrix

    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.zeros((len(seeds), STATE_SIZE), dtype=np.int32)
    rec = np.full((len(seeds), int(setup.geo[G_MAX_ROUNDS]), setup.nplayers), PAD, dtype=np.int32)
    nrec = np.zeros(len(seeds), dtype=np.int32)
    bad = sns_play_batch_lead(setup.geo, setup.nplayers, strategy_matrix(setup, strat), seeds, out, check, rec, nrec)
    return out, bad, rec, nrec


def echidna_play_many_lead(setup, strat, seeds, check=False):
    """``simulator.echidna.playout.play_many`` with the record: (states, violations, rec, nrec)."""
    from simulator.echidna.playout import strategy_rows

    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.zeros((len(seeds), EL.STATE_SIZE), dtype=np.int64)
    rows = int(setup.geo[EL.G_MAX_ROUNDS]) + 1  # every round, and the winner's partial one
    rec = np.full((len(seeds), rows, setup.nplayers), PAD, dtype=np.int32)
    nrec = np.zeros(len(seeds), dtype=np.int32)
    bad = echidna_play_batch_lead(setup.geo, strategy_rows(setup, strat), seeds, out, check, rec, nrec)
    return out, bad, rec, nrec


def sns_batch_results_lead(setup, seeds, strat):
    """The registry's ``play_batch`` of Shuffle and Swing with the record (``Game.play_batch_lead``):
    (seat columns, game columns, rec, nrec)."""
    from simulator.shuffle_swing.playout import game_results, seat_results

    states, _, rec, nrec = sns_play_many_lead(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states), rec, nrec


def echidna_batch_results_lead(setup, seeds, strat):
    """The registry's ``play_batch`` of Echidna Shuffle with the record (``Game.play_batch_lead``)."""
    from simulator.echidna.playout import game_results, seat_results

    states, _, rec, nrec = echidna_play_many_lead(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states, setup.nplayers), rec, nrec
