"""Search players: policies that look ahead by playing the game on from a copy of the state.

They call the turn functions of ``turn`` (never ``engine``, which dispatches to them), so that the
rollouts reuse the rules and the basic policies without recursion between compiled functions.
"""

import numpy as np

from simulator.kernel.core import kernel, rng_next
from simulator.kernel.turn import execute_turn, play_turn_basic
from simulator.layout import KIND_GREEDY, KIND_LOOKAHEAD, P_BUDGET, P_KIND, S_NPLAYERS, S_OVER, S_SCORE, S_WINNER




@kernel
def rollout_strat(strat):
    """The strategies used inside rollouts: every lookahead seat plays its greedy evaluation."""
    rs = strat.copy()
    for o in range(rs.shape[0]):
        if rs[o, P_KIND] == KIND_LOOKAHEAD:
            rs[o, P_KIND] = KIND_GREEDY
    return rs


@kernel
def lookahead_pick(st, geo, strat, rng, p, c_spot, c_die, c_slice, n, vals):
    """Flat Monte Carlo over the greedy's best few moves: each is played, then the game is finished
    ``budget`` times by the greedy policies; the move with the best mean outcome (a win counts 20
    points on top of the score margin over the best opponent) is chosen."""
    sp = strat[p]
    budget = max(1, int(sp[P_BUDGET]))
    k_top = 4 if 2 * n > 4 else 2 * n
    order = np.argsort(-vals)
    rs = rollout_strat(strat)
    nolog = np.zeros((1, 8), dtype=np.int32)
    best = -1e18
    bi = order[0]
    npl = st[S_NPLAYERS]
    for k in range(k_top):
        j = order[k]
        total = 0.0
        for r in range(budget):
            sim = st.copy()
            srng = np.empty(1, dtype=np.uint64)
            srng[0] = rng_next(rng)
            execute_turn(sim, geo, rs, srng, nolog, p, c_spot[j // 2], c_die[j // 2], c_slice[j // 2], j % 2)
            while sim[S_OVER] == 0:
                play_turn_basic(sim, geo, rs, srng, nolog)
            mine = sim[S_SCORE + p]
            other = -(1 << 30)
            for o in range(npl):
                if o != p and sim[S_SCORE + o] > other:
                    other = sim[S_SCORE + o]
            total += mine - other + (20.0 if sim[S_WINNER] == p else 0.0)
        mean = total / budget
        if mean > best:
            best = mean
            bi = j
    return bi // 2, bi % 2
