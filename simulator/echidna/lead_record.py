"""Echidna Shuffle's per-round lead record (``simulator.lead_record``).

The standing: ``bugs home x 1000 - remaining distance``, the remaining distance being the steps its
riding bugs still need to their nearest own stump plus, for each bug still to pick up, the steps
from its pick-up space to its nearest stump. So the leader is the seat with the most bugs home,
then the shortest remaining distance. The winner's row is the partial round in which a seat
brought its last bug home (E6).
"""

import numpy as np

from simulator.echidna import layout as EL
from simulator.echidna.kernel.core import kernel, kernel_alloc, rider_dist
from simulator.echidna.kernel.invariants import check_invariants
from simulator.echidna.kernel.set_up import setup_game
from simulator.echidna.kernel.turn import play_turn
from simulator.kernel_common import rng_next
from simulator.lead_record import new_record

HOME_WEIGHT = 1000  # one bug home outweighs any distance on either board

BUGS, N_ECHIDNAS = EL.BUGS, EL.N_ECHIDNAS
S_CUR, S_WINNER, S_STALLED, S_NPLAYERS, S_TURN = EL.S_CUR, EL.S_WINNER, EL.S_STALLED, EL.S_NPLAYERS, EL.S_TURN
S_EPOS, S_EBUG, S_PICK, S_STUMPS = EL.S_EPOS, EL.S_EBUG, EL.S_PICK, EL.S_STUMPS
S_HOME, S_RIDING = EL.S_HOME, EL.S_RIDING
STATE_SIZE, MAX_SPACES = EL.STATE_SIZE, EL.MAX_SPACES


@kernel
def standing(geo, st, p):
    """Seat ``p``'s bugs home x HOME_WEIGHT less the steps still to go: its riding bugs to
    their nearest own stump, each bug still to pick up from its pick-up space (E4, E5, E6)."""
    stumps = st[S_STUMPS + p]
    togo = 0
    for e in range(N_ECHIDNAS):
        if st[S_EBUG + e] == p:
            togo += rider_dist(geo, stumps, st[S_EPOS + e])
    left = BUGS - st[S_HOME + p] - st[S_RIDING + p]
    if left > 0:
        togo += left * rider_dist(geo, stumps, st[S_PICK + p])
    return st[S_HOME + p] * HOME_WEIGHT - togo


@kernel
def play_lead_into(geo, strat, seed, st, log, check, rng, nolog, tmp, order, score, rec_g):
    """``play_into`` with the record: the same set-up and turns, and after each round, and after
    the winning move (E6) or the stall cap (E9), each seat's standing into a row of ``rec_g``.
    Without reference counting, like ``play_into`` (counted calls cost most of a turn). Returns
    (violation code, turn of the violation, rows written)."""
    rng[0] = seed
    rng_next(rng)
    setup_game(geo, st, strat, rng, log, order, score)
    code = 0
    turn = -1
    if check:
        code = check_invariants(geo, st)
        turn = 0
    n = 0
    rows = rec_g.shape[0]
    npl = st[S_NPLAYERS]
    while code == 0 and st[S_WINNER] < 0 and st[S_STALLED] == 0:
        play_turn(geo, st, strat, rng, log, nolog, tmp)
        if (st[S_CUR] == 0 or st[S_WINNER] >= 0) and n < rows:
            for p in range(npl):
                rec_g[n, p] = standing(geo, st, p)
            n += 1
        if check:
            code = check_invariants(geo, st)
            turn = st[S_TURN]
    if code == 0:
        turn = -1
    return code, turn, n


@kernel_alloc
def play_batch_lead(geo, strat, seeds, out, check, rec, nrec):
    """``simulator.echidna.kernel.engine.play_batch`` plus the lead record (``play_lead_into``)."""
    g = len(seeds)
    bad = np.zeros((g, 3), dtype=np.int64)
    nbad = 0
    log = np.zeros((1, 7), dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    nolog = np.zeros((1, 7), dtype=np.int64)
    tmp = np.zeros(STATE_SIZE, dtype=np.int64)
    order = np.zeros(MAX_SPACES, dtype=np.int64)
    score = np.zeros(MAX_SPACES, dtype=np.float64)
    for i in range(g):
        code, turn, n = play_lead_into(geo, strat, seeds[i], out[i], log, check, rng, nolog, tmp, order, score, rec[i])
        nrec[i] = n
        if code != 0:
            bad[nbad, 0] = i
            bad[nbad, 1] = code
            bad[nbad, 2] = turn
            nbad += 1
    return bad[:nbad].copy()


def play_many_lead(setup, strat, seeds, check=False):
    """``simulator.echidna.playout.play_many`` with the record: (states, violations, rec, nrec)."""
    from simulator.echidna.playout import strategy_rows

    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.zeros((len(seeds), STATE_SIZE), dtype=np.int64)
    rows = int(setup.geo[EL.G_MAX_ROUNDS]) + 1  # every round, and the winner's partial one
    rec, nrec = new_record(len(seeds), rows, setup.nplayers)
    bad = play_batch_lead(setup.geo, strategy_rows(setup, strat), seeds, out, check, rec, nrec)
    return out, bad, rec, nrec


def batch_results_lead(setup, seeds, strat):
    """The registry's ``play_batch`` of Echidna Shuffle with the record (``Game.play_batch_lead``)."""
    from simulator.echidna.playout import game_results, seat_results

    states, _, rec, nrec = play_many_lead(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states, setup.nplayers), rec, nrec
