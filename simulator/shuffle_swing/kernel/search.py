"""Search players: policies that look ahead by playing the game on from a copy of the state.

They call the turn functions of ``turn`` (never ``engine``, which dispatches to them), so that the
rollouts reuse the rules and the basic policies without recursion between compiled functions.

Two kinds live here:

* ``lookahead`` (``lookahead_pick``): flat Monte Carlo over the greedy's four best moves, each
  finished ``budget`` times by greedy rollouts to the end of the game. Kept as it was, for
  comparison.
* ``search`` (``search_pick``): the budget is a number of rollouts per decision, spread by
  sequential halving over the ``candidates`` best distinct actions of the greedy evaluation
  (candidates that differ only in the pawn's spot inside one department are one action). Every
  action's ``j``-th rollout uses the same random stream (common random numbers), so the actions are
  compared on the same futures. A rollout plays the action, then ``horizon`` more turns with every
  seat on its greedy evaluation (the searching seat with its own weights), and is scored by a leaf
  evaluation (``leaf_scores``): the points so far plus the projected end-game brag awards, the
  expected objective awards of the sections still open and the risk of an unbuilt-instrument
  penalty, as the margin over the best opponent plus a bonus for the chance of winning. A profile
  with a learned leaf (``P_LEAF_MODEL``) scores it by the fitted model of ``leaf.learned_scores``
  instead: the same terms, weighed by coefficients fitted on self-play.

One decision of the search seat allocates nothing on the heap: the copy of the state a rollout
plays on, the rollout strategies and the halving's bookkeeping are scratch arrays on the stack of
``search_pick``, made once per decision; a rollout starts with a memcpy of the state.
"""

import numpy as np

from simulator.kernel_common import rng_next, stack_empty, stack_full
from simulator.shuffle_swing.kernel.core import kernel, kernel_alloc, owner_present
from simulator.shuffle_swing.kernel.leaf import LEAF_COEF, LEAF_MODEL, LEAF_SIZE, built_chances, last_brag, learned_scores  # noqa: F401
from simulator.shuffle_swing.kernel.objectives import preview_section, section_open_spaces
from simulator.shuffle_swing.kernel.policy import W_CAT, W_TOKEN
from simulator.shuffle_swing.kernel.rules import cube_level, inst_base
from simulator.shuffle_swing.kernel.turn import VALS_SIZE, execute_turn, play_turn_basic, score_candidates
from simulator.shuffle_swing.layout import (
    I_NSECTIONS,
    I_PENALTY,
    I_TRACK_VP,
    KIND_GREEDY,
    KIND_LOOKAHEAD,
    KIND_SEARCH,
    MAX_SECTIONS,
    N_DEPT,
    N_LEAF_FEAT,
    N_OWNERS,
    P_BUDGET,
    P_CANDIDATES,
    P_FIRST_ROLLOUTS,
    P_HORIZON,
    P_HORIZON_4,
    P_KIND,
    P_LEAF_COEF,
    P_LEAF_MODEL,
    P_LEAF_POTENTIAL,
    P_LEAF_RESOURCES,
    P_PRIOR,
    P_SETTLE,
    P_WIN_BONUS,
    S_BRAG_POS,
    S_EMPTY,
    S_NPLAYERS,
    S_OVER,
    S_READY,
    S_SCORE,
    S_SEC_STATE,
    S_TOKENS,
    S_WINNER,
    STATE_SIZE,
    STRAT_SIZE,
)

# Most distinct actions a decision can have: act or brag, per listed candidate.
MAX_ARMS = VALS_SIZE
# The leaf turns a score margin into a chance of winning with a logistic curve of this width (points).
LEAF_WIN_SCALE = 4.0
# Distinct seeds for the rollouts of one decision: the j-th rollout of every action starts from
# base + j * SEED_STEP (then mixed by the generator), so actions share their futures.
SEED_STEP = np.uint64(0xD1B54A32D192ED03)
RS_SIZE = N_OWNERS * STRAT_SIZE  # the rollout strategies, one row per owner


@kernel_alloc
def rollout_strat(strat):
    """The strategies used inside rollouts: every lookahead seat plays its greedy evaluation."""
    rs = strat.copy()
    for o in range(rs.shape[0]):
        if rs[o, P_KIND] == KIND_LOOKAHEAD:
            rs[o, P_KIND] = KIND_GREEDY
    return rs


@kernel_alloc
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


# --------------------------------------------------------------------------- the search kind


@kernel
def fill_rollout_strat(strat, rs):
    """``rs`` := ``strat`` with every searching seat (lookahead, search) on its greedy evaluation:
    inside a rollout each seat plays the greedy of its own weight row."""
    for o in range(rs.shape[0]):
        for k in range(rs.shape[1]):
            rs[o, k] = 0.0
    for o in range(min(strat.shape[0], rs.shape[0])):
        for k in range(min(strat.shape[1], rs.shape[1])):
            rs[o, k] = strat[o, k]
        if rs[o, P_KIND] == KIND_LOOKAHEAD or rs[o, P_KIND] == KIND_SEARCH:
            rs[o, P_KIND] = KIND_GREEDY


@kernel
def merge_actions(c_spot, c_die, c_slice, n, vals, arm_idx, arm_prior):
    """The distinct actions among the ``2n`` (candidate, brag flag) choices: two candidates that
    differ only in the pawn's spot inside one department select the same die onto the same slice
    and pass the same break room, so they are one action; the best-valued spot is kept (the first
    listed when the greedy values tie). ``arm_idx[a]`` is ``2 * candidate + brag``, ``arm_prior[a]``
    its greedy value. Returns the number of actions."""
    na = 0
    for i in range(n):
        d = c_spot[i] // 3
        for b in range(2):
            v = vals[2 * i + b]
            found = -1
            for a in range(na):
                j = arm_idx[a] // 2
                if (
                    arm_idx[a] % 2 == b
                    and c_die[j] == c_die[i]
                    and c_slice[j] == c_slice[i]
                    and c_spot[j] // 3 == d
                ):
                    found = a
                    break
            if found < 0:
                arm_idx[na] = 2 * i + b
                arm_prior[na] = v
                na += 1
            elif v > arm_prior[found]:
                arm_idx[found] = 2 * i + b
                arm_prior[found] = v
    return na


@kernel
def keep_best(arm_idx, arm_prior, na, k):
    """Move the ``k`` best-valued actions to the front, best first (a partial selection sort, stable
    among equal values, so the listing order decides ties)."""
    k = min(k, na)
    for a in range(k):
        b = a
        for c in range(a + 1, na):
            if arm_prior[c] > arm_prior[b]:
                b = c
        if b != a:
            ti = arm_idx[b]
            tv = arm_prior[b]
            for c in range(b, a, -1):
                arm_idx[c] = arm_idx[c - 1]
                arm_prior[c] = arm_prior[c - 1]
            arm_idx[a] = ti
            arm_prior[a] = tv
    return k


@kernel
def leaf_scores(st, geo, leaf, potential, out):
    """``out[o]``: seat ``o``'s expected final score from a state before the end (R10, R12).

    The points scored so far; per instrument, the end-game brag award of ``min(disc, cube level)``
    (R12) if it gets built and, if it stays unbuilt, the share of its penalty for last place on its
    track (Pri's disc takes part, R14); per open section, what it would pay now (``preview_section``,
    no completer bonus) times the chance that it is completed (certain if the instrument is built,
    else likelier the fewer empty spaces it has). ``leaf[0]``, ``leaf[1]`` add a worth per ready
    cat and per boost token held: what the seat can still do in the turns the leaf cuts off.
    ``potential`` counts that share of the brag award between ``min(disc, cube level)`` and
    ``max(disc, cube level)``: a disc ahead of the pieces (or pieces ahead of the disc) may still
    be matched before the end."""
    npl = st[S_NPLAYERS]
    chance = stack_empty(N_DEPT, np.float64)
    built_chances(st, chance)
    pts = stack_empty(N_OWNERS, np.int64)
    for o in range(N_OWNERS):
        out[o] = 0.0
    for o in range(npl):
        out[o] = float(st[S_SCORE + o])
        cats = st[S_READY + o * 3] + st[S_READY + o * 3 + 1] + st[S_READY + o * 3 + 2]
        toks = st[S_TOKENS + o * 3] + st[S_TOKENS + o * 3 + 1] + st[S_TOKENS + o * 3 + 2]
        out[o] += leaf[0] * cats + leaf[1] * toks
    for d in range(N_DEPT):
        base = inst_base(d)
        pb = chance[d]
        empty = st[S_EMPTY + d]
        # Penalty for last place if the instrument stays unbuilt (R12).
        low, nlow = last_brag(st, d) if empty > 0 else (99, 0)
        for o in range(npl):
            disc = st[S_BRAG_POS + d * N_OWNERS + o]
            lvl = cube_level(st, geo, d, o)
            k = disc if disc < lvl else lvl
            h = disc if disc > lvl else lvl
            if k >= 0 and pb > 0.0:
                lo = geo[base + I_TRACK_VP + k]
                out[o] += pb * (lo + potential * (geo[base + I_TRACK_VP + h] - lo))
            if empty > 0 and nlow > 0 and disc == low:
                out[o] -= (1.0 - pb) * ((geo[base + I_PENALTY] * empty) // nlow)
        # Objective awards of the sections still open (R10).
        for s in range(geo[base + I_NSECTIONS]):
            if st[S_SEC_STATE + d * MAX_SECTIONS + s] != 0:
                continue
            open_s = section_open_spaces(st, geo, d, s)
            ps = pb + (1.0 - pb) / (1.0 + open_s)
            preview_section(st, geo, d, s, -1, pts)
            for o in range(npl):
                out[o] += ps * pts[o]


@kernel
def outcome(st, geo, p, win_bonus, leaf, scratch):
    """What a rollout's end state is worth to seat ``p``: its (expected) final score minus the best
    opponent's, plus ``win_bonus`` times its chance of winning (1 or 0 once the game is over, R13;
    before the end a logistic curve of the margin)."""
    npl = st[S_NPLAYERS]
    if st[S_OVER] != 0:
        mine = st[S_SCORE + p]
        other = -(1 << 30)
        for o in range(npl):
            if o != p and st[S_SCORE + o] > other:
                other = st[S_SCORE + o]
        return float(mine - other) + (win_bonus if st[S_WINNER] == p else 0.0)
    if leaf[LEAF_MODEL] != 0.0:
        learned_scores(st, geo, leaf, scratch)
    else:
        leaf_scores(st, geo, leaf, leaf[2], scratch)
    other = -1e18
    for o in range(npl):
        if o != p and scratch[o] > other:
            other = scratch[o]
    margin = scratch[p] - other
    return margin + win_bonus / (1.0 + np.exp(-margin / LEAF_WIN_SCALE))


@kernel
def rollout(st, geo, rs, sim, srng, log, p, spot, die, slice_idx, brag, seed, horizon, win_bonus, leaf, scratch):
    """One rollout: ``sim`` := ``st`` (a memcpy), seat ``p`` plays the action, then every seat plays
    its greedy for ``horizon`` turns (0: to the end of the game); returns ``outcome`` for ``p``. The
    generator starts from ``seed``, so equal seeds give equal futures to equal actions."""
    # An element loop rather than ``sim[:] = st``: LLVM makes it the same memcpy, without the
    # shape check whose error path would allocate.
    for k in range(STATE_SIZE):
        sim[k] = st[k]
    srng[0] = seed
    rng_next(srng)
    execute_turn(sim, geo, rs, srng, log, p, spot, die, slice_idx, brag)
    t = 0
    while sim[S_OVER] == 0 and (horizon <= 0 or t < horizon):
        play_turn_basic(sim, geo, rs, srng, log)
        t += 1
    return outcome(sim, geo, p, win_bonus, leaf, scratch)


@kernel
def search_setup(strat, p, npl, rs, leaf):
    """The parts of a decision that depend only on the strategies: the rollout strategies and the
    leaf's settings ``leaf`` (``LEAF_SIZE``): the worth of a ready cat and of a token (the seat's cat
    and token weights times its ``leaf_resources``), its ``leaf_potential``, then whether the leaf is
    the learned model (``P_LEAF_MODEL``) and that model's coefficients for ``npl`` players."""
    fill_rollout_strat(strat, rs)
    sp = strat[p]
    leaf[0] = sp[P_LEAF_RESOURCES] * sp[W_CAT]
    leaf[1] = sp[P_LEAF_RESOURCES] * sp[W_TOKEN]
    leaf[2] = sp[P_LEAF_POTENTIAL]
    leaf[LEAF_MODEL] = sp[P_LEAF_MODEL]
    block = P_LEAF_COEF + (min(max(npl, 2), 4) - 2) * N_LEAF_FEAT
    for k in range(N_LEAF_FEAT):
        leaf[LEAF_COEF + k] = sp[block + k] if sp[P_LEAF_MODEL] != 0.0 else 0.0


@kernel_alloc
def arm_outcomes(st, geo, strat, p, c_spot, c_die, c_slice, arms, base_seed, horizon, out):
    """``out[a, j]``: the ``j``-th rollout outcome of action ``arms[a]`` (``2 * candidate + brag``),
    with the seeds ``search_pick`` uses. For tests and benchmarks: equal actions must get equal rows
    (common random numbers)."""
    rs = np.empty((N_OWNERS, STRAT_SIZE), dtype=np.float64)
    leaf = np.empty(LEAF_SIZE, dtype=np.float64)
    search_setup(strat, p, st[S_NPLAYERS], rs, leaf)
    sim = np.empty(STATE_SIZE, dtype=np.int32)
    srng = np.empty(1, dtype=np.uint64)
    log = np.zeros((1, 8), dtype=np.int32)
    scratch = np.empty(N_OWNERS, dtype=np.float64)
    wb = strat[p, P_WIN_BONUS]
    for a in range(len(arms)):
        i = arms[a] // 2
        for j in range(out.shape[1]):
            seed = np.uint64(base_seed) + np.uint64(j) * SEED_STEP
            out[a, j] = rollout(
                st, geo, rs, sim, srng, log, p, c_spot[i], c_die[i], c_slice[i], arms[a] % 2, seed, horizon, wb,
                leaf, scratch,
            )


@kernel
def rollout_turns(sp, npl):
    """Turns a rollout of the search row ``sp`` plays after its action at ``npl`` players: ``horizon``
    at 2 players; with ``horizon_4`` set, ``horizon_4`` at 4 players and halfway between the two
    (rounded down) at 3; 0 plays to the end of the game."""
    h = int(sp[P_HORIZON])
    h4 = int(sp[P_HORIZON_4])
    if h4 <= 0 or npl <= 2:
        return h
    if npl >= 4:
        return h4
    return (h + h4) // 2


@kernel
def halving_rounds(k):
    """Rounds of sequential halving over ``k`` actions: ``ceil(log2 k)``."""
    rounds = 0
    while k > 1:
        rounds += 1
        k = (k + 1) // 2
    return rounds


@kernel
def halving_width(candidates, budget, first=1):
    """How many actions enter the halving: at most ``candidates``, and no more than ``budget``
    rollouts can carry with at least ``first`` rollouts per action in every round
    (``first * (k + k/2 + ... + 2)``), so a decision never plays more than ``budget`` rollouts."""
    k = max(1, candidates)
    first = max(1, first)
    while k > 1:
        need = 0
        m = k
        while m > 1:
            need += m
            m = (m + 1) // 2
        if need * first <= budget:
            break
        k -= 1
    return k


@kernel
def round_share(budget, used, rounds_left, m, first):
    """Rollouts each of the ``m`` actions still in plays this round: the budget left split evenly
    over the rounds left, at least ``first`` (``halving_width`` kept that affordable), never past
    the budget."""
    per = (budget - used) // (rounds_left * m)
    if per < first:
        per = first
    if used + per * m > budget:
        per = (budget - used) // m
    return per


@kernel
def search_pick(st, geo, strat, rng, p, c_spot, c_die, c_slice, n):
    """The search kind's turn choice. Returns (candidate index, brag flag).

    The greedy evaluation (the seat's own weights) values every choice; the ``candidates`` best
    distinct actions (``merge_actions``) enter sequential halving: in each of ``ceil(log2 K)``
    rounds the budget left is split evenly over the rounds left and the actions still in, each
    action's new rollouts continue its sequence of seeds (so after any round all actions in have
    played the same futures), and the better half by mean outcome (plus ``prior`` times the
    action's greedy worth, a shrinkage towards the evaluation's ranking) goes on. Ties keep the greedy's
    order (then the earlier round's order). ``halving_width`` narrows the field so that the decision
    plays at most ``budget`` rollouts; ``first_rollouts`` (0 or 1: as the budget splits) is the least
    number of rollouts an action plays in a round, so that no action is judged on one noisy rollout
    (the field narrows instead); ``settle`` (0: never) ends the halving after a round whose leader is
    that many points ahead of the runner-up on the mean, keeping the rest of the budget. With a single action, or a budget below 2, the greedy's best
    action is played without rollouts."""
    sp = strat[p]
    vals = stack_empty(VALS_SIZE, np.float64)
    score_candidates(st, geo, sp, p, c_spot, c_die, c_slice, n, vals, False)
    arm_idx = stack_empty(MAX_ARMS, np.int64)
    arm_prior = stack_empty(MAX_ARMS, np.float64)
    na = merge_actions(c_spot, c_die, c_slice, n, vals, arm_idx, arm_prior)
    budget = int(sp[P_BUDGET])
    first = max(1, int(sp[P_FIRST_ROLLOUTS]))
    k = halving_width(int(sp[P_CANDIDATES]), budget, first)
    k = keep_best(arm_idx, arm_prior, na, k)
    base_seed = rng_next(rng)
    if k == 1:
        return arm_idx[0] // 2, arm_idx[0] % 2
    # Scratch for the whole decision, on the stack: the rollout strategies, the state copy, the
    # generator, an empty log, the leaf's per-seat scores.
    rs = stack_empty(RS_SIZE, np.float64).reshape((N_OWNERS, STRAT_SIZE))
    leaf = stack_empty(LEAF_SIZE, np.float64)
    search_setup(strat, p, st[S_NPLAYERS], rs, leaf)
    sim = stack_empty(STATE_SIZE, np.int32)
    srng = stack_empty(1, np.uint64)
    log = stack_full(8, 0, np.int32).reshape((1, 8))
    scratch = stack_empty(N_OWNERS, np.float64)
    total = stack_full(MAX_ARMS, 0.0, np.float64)
    score = stack_full(MAX_ARMS, 0.0, np.float64)
    prior = sp[P_PRIOR]
    alive = stack_empty(MAX_ARMS, np.int64)
    for a in range(k):
        alive[a] = a
    horizon = rollout_turns(sp, st[S_NPLAYERS])
    wb = sp[P_WIN_BONUS]
    settle = sp[P_SETTLE]
    rounds = halving_rounds(k)
    m = k
    done = 0  # rollouts each action still in has played
    used = 0
    for r in range(rounds):
        if used + m > budget:
            break  # cannot happen when k came from halving_width; kept as a guard
        per = round_share(budget, used, rounds - r, m, first)
        for t in range(m):
            a = alive[t]
            i = arm_idx[a] // 2
            for j in range(done, done + per):
                seed = base_seed + np.uint64(j) * SEED_STEP
                total[a] += rollout(
                    st, geo, rs, sim, srng, log, p, c_spot[i], c_die[i], c_slice[i], arm_idx[a] % 2, seed, horizon,
                    wb, leaf, scratch,
                )
        used += per * m
        done += per
        # Keep the better half (insertion sort of the survivors by total plus the prior's share,
        # stable: equal scores keep the order they came in, the greedy's in the first round).
        for t in range(m):
            a = alive[t]
            score[a] = total[a] + prior * done * arm_prior[a]
        for t in range(1, m):
            a = alive[t]
            u = t
            while u > 0 and score[alive[u - 1]] < score[a]:
                alive[u] = alive[u - 1]
                u -= 1
            alive[u] = a
        # A settled decision: the leader's mean (with the prior's share) is ``settle`` points or
        # more ahead of the runner-up's, so the rest of the budget is not spent.
        if settle > 0.0 and m > 1 and score[alive[0]] - score[alive[1]] >= settle * done:
            break
        m = (m + 1) // 2
    best = alive[0]
    return arm_idx[best] // 2, arm_idx[best] % 2
