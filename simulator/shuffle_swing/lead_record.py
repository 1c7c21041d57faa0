"""Shuffle and Swing's per-round lead record (``simulator.lead_record``).

Two standings per round and seat:

* ``rec``, the **running score**: the seat's score so far (objective points as they fall during the
  game, R10; the last row is the final score after the end-game scoring, R12, R13);
* ``prj``, the **projected standing**, in tenths of a point: the seat's expected final score as the
  search player's leaf evaluation sees it (``kernel.search.leaf_scores`` with no worth for cats and
  tokens held and no potential): the points so far, each instrument's end-game brag award (R12)
  weighted by the chance it gets built and its last-place penalty by the chance it stays unbuilt,
  each open section's award weighted by the chance it is completed. It counts what the end scoring
  will give, which the running score only counts in its last row; the last row is the final score.

Two options for experiments on the set-up (``docs/guide/game-feel.md``), both off by default, so a
default call plays exactly the plain entry point's games:

* ``noise[g]`` (non-zero): after the set-up (the shuffled wheels and, at 2 players, Pri's set-up,
  R14) the bots' generator is re-seeded from it: the same set-up played with other tie-break draws;
* ``tie_state`` (1): before every turn the generator is re-seeded from a hash of the state, so every
  choice is a function of the state alone: one game per set-up, no bot noise at all.
"""

import numpy as np

from simulator.kernel_common import rng_next
from simulator.lead_record import new_record
from simulator.shuffle_swing.kernel.core import kernel, kernel_alloc
from simulator.shuffle_swing.kernel.engine import play_turn, setup_game
from simulator.shuffle_swing.kernel.invariants import check_invariants
from simulator.shuffle_swing.kernel.search import leaf_scores
from simulator.shuffle_swing.layout import G_MAX_ROUNDS, N_OWNERS, S_CUR, S_OVER, S_SCORE, S_TURN, STATE_SIZE

TENTHS = 10  # the projected standing's unit: tenths of a point


@kernel
def state_seed(st):
    """A 64-bit hash of the whole state (splitmix64 over its words): the generator's seed before a
    turn when bots break ties by the state (``tie_state``)."""
    z = np.uint64(0x243F6A8885A308D3)
    for i in range(st.shape[0]):
        z = (z ^ np.uint64(np.int64(st[i]) & 0xFFFFFFFF)) * np.uint64(0xBF58476D1CE4E5B9)
        z = z ^ (z >> np.uint64(29))
    return z


@kernel_alloc
def play_batch_lead(geo, nplayers, strat, seeds, out_states, check, rec, nrec, prj, noise, tie_state):
    """``simulator.shuffle_swing.kernel.engine.play_batch`` plus the lead record: after each round,
    each seat's score into ``rec[g, round, seat]`` and its projected final score (tenths) into
    ``prj[g, round, seat]`` (the game loop is ``play_game``'s, call for call, when ``noise[g] == 0``
    and ``tie_state == 0``)."""
    log = np.zeros((1, 8), dtype=np.int32)
    bad = np.full((len(seeds), 3), -1, dtype=np.int64)
    nb = 0
    rows = rec.shape[1]
    leaf = np.zeros(3, dtype=np.float64)
    proj = np.zeros(N_OWNERS, dtype=np.float64)
    for g in range(len(seeds)):
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = np.uint64(seeds[g])
        rng_next(rng)
        st = setup_game(geo, nplayers, strat, rng, log)
        if noise[g] != 0:  # the same set-up, other draws of the bots
            rng[0] = np.uint64(noise[g])
            rng_next(rng)
        code = 0
        turn = -1
        if check:
            code = check_invariants(st, geo)
        n = 0
        while code == 0 and st[S_OVER] == 0:
            if tie_state:
                rng[0] = state_seed(st)
            play_turn(st, geo, strat, rng, log)
            if st[S_CUR] == 0 and n < rows:  # a round ended (R11: a game ends with its round)
                if st[S_OVER] == 0:
                    leaf_scores(st, geo, leaf, 0.0, proj)
                for p in range(nplayers):
                    rec[g, n, p] = st[S_SCORE + p]
                    if st[S_OVER] != 0:
                        prj[g, n, p] = st[S_SCORE + p] * TENTHS
                    else:
                        prj[g, n, p] = np.int32(np.floor(proj[p] * TENTHS + 0.5))
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


def play_many_record(setup, strat, seeds, check=False, noise=None, tie_break="drawn"):
    """The games of ``seeds`` with the record: ``(states, violations, rec, nrec, prj)``. ``noise``:
    per game a non-zero seed for the bots' draws after the set-up (0: the deal's own);
    ``tie_break="state"``: the bots break ties by a hash of the state (no bot noise)."""
    from simulator.shuffle_swing.playout import strategy_matrix

    if tie_break not in ("drawn", "state"):
        raise ValueError(f"tie_break must be 'drawn' or 'state', not {tie_break!r}")
    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.zeros((len(seeds), STATE_SIZE), dtype=np.int32)
    rec, nrec = new_record(len(seeds), int(setup.geo[G_MAX_ROUNDS]), setup.nplayers)
    prj, _ = new_record(len(seeds), int(setup.geo[G_MAX_ROUNDS]), setup.nplayers)
    noise = np.zeros(len(seeds), dtype=np.uint64) if noise is None else np.asarray(noise, dtype=np.uint64)
    bad = play_batch_lead(setup.geo, setup.nplayers, strategy_matrix(setup, strat), seeds, out, check, rec, nrec,
                          prj, noise, 1 if tie_break == "state" else 0)
    return out, bad, rec, nrec, prj


def play_many_lead(setup, strat, seeds, check=False):
    """``simulator.shuffle_swing.playout.play_many`` with the record: (states, violations, rec, nrec)."""
    out, bad, rec, nrec, _ = play_many_record(setup, strat, seeds, check)
    return out, bad, rec, nrec


def batch_results_lead(setup, seeds, strat):
    """The registry's ``play_batch`` of Shuffle and Swing with the record (``Game.play_batch_lead``):
    (seat columns, game columns, rec, nrec)."""
    from simulator.shuffle_swing.playout import game_results, seat_results

    states, _, rec, nrec = play_many_lead(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states), rec, nrec
