"""The set-up of Echidna Shuffle (E1, E7): echidnas, pick-up spaces chosen in the ``pickup_order``
switch's order, stumps placed by the neighbour on the left, catch-up tokens; a seat whose row
searches its set-up (``setup_rollouts``) tries its candidates in greedy games played out
(``search_pickup``, ``search_stumps``)."""

import numpy as np

from simulator.kernel_common import lowest_bit, rng_below, rng_next, stack_empty, stack_full
from simulator.echidna.kernel.core import BIG, emit, kernel, stat_add
from simulator.echidna.kernel.turn import play_turn
from simulator.echidna.kernel.value import leaf_value, traffic
from simulator.echidna.layout import (
    EV_ECHIDNA,
    EV_PICKSPACE,
    EV_STUMP,
    EV_TOKENS,
    BUGS,
    G_CATCH_UP,
    G_DIST,
    G_NPLAYERS,
    G_NSPACES,
    G_PICKUP_ORDER,
    G_SCHED,
    G_SUPPLY,
    KIND_GREEDY,
    KIND_LOOKAHEAD,
    KIND_RANDOM,
    MAX_PLAYERS,
    MAX_SPACES,
    N_ECHIDNAS,
    NONE,
    PICK_RANDOM,
    PICK_REVERSE,
    P_KIND,
    S_DECISIONS,
    S_EBUG,
    S_EPOS,
    S_HAND,
    S_NPLAYERS,
    S_OCC,
    S_PICK,
    S_ROUND,
    S_SPACE,
    S_STALLED,
    S_STUMPS,
    S_SUPPLY,
    S_TOKENS,
    S_WINNER,
    ST_TOKENS_GAINED,
    STATE_SIZE,
    STRAT_SIZE,
    W_SETUP_RADIUS,
    W_SETUP_RANDOM,
    W_SETUP_ROLLOUTS,
    W_SETUP_CANDIDATES,
    W_SETUP_HALVING,
    W_SETUP_HORIZON,
    W_SETUP_LEAF,
    W_SETUP_TRAFFIC,
    W_STUMP_FAR,
    W_STUMP_TRAFFIC,
)


@kernel
def pickup_sequence(geo, rng, n):
    """The seats in the order they choose their pick-up spaces (E1), packed 4 bits a seat into one
    int64 (the k-th chooser in bits 4k..4k+3): the last seat first (``reverse``, the rulebook's),
    the first seat first (``turn``), or a uniform shuffle of the turn order drawn from the game's
    generator (``random``: n - 1 draws; the other two draw nothing, so the rulebook's order uses the
    very numbers it always did)."""
    mode = geo[G_PICKUP_ORDER]
    seq = np.int64(0)
    for k in range(n):
        p = n - 1 - k if mode == PICK_REVERSE else k
        seq |= np.int64(p) << (4 * k)
    if mode == PICK_RANDOM:
        # Fisher-Yates from the back: slot k swaps with a slot j in 0..k.
        for k in range(n - 1, 0, -1):
            j = rng_below(rng, k + 1)
            a = (seq >> (4 * k)) & 15
            b = (seq >> (4 * j)) & 15
            seq &= ~((np.int64(15) << (4 * k)) | (np.int64(15) << (4 * j)))
            seq |= (b << (4 * k)) | (a << (4 * j))
    return seq


@kernel
def greedy_pick(geo, st, row, rng, taken, order):
    """A pick-up space by the row's set-up policy (E1): at random (``random`` kind or
    ``setup_random``), else the free space with the most echidna traffic (the first listed on a tie).
    Free: not under an echidna, not another player's (``taken``)."""
    ns = geo[G_NSPACES]
    free = 0
    for s in range(ns):
        if (st[S_OCC] >> s) & 1 == 0 and (taken >> s) & 1 == 0:
            order[free] = s
            free += 1
    if row[P_KIND] == KIND_RANDOM or row[W_SETUP_RANDOM] > 0:
        return order[rng_below(rng, free)]
    pick = order[0]
    best = -BIG
    radius = row[W_SETUP_RADIUS]
    for i in range(free):
        s = order[i]
        v = row[W_SETUP_TRAFFIC] * traffic(geo, st, s, radius)
        if v > best:
            best = v
            pick = s
    return pick


@kernel
def best_stumps(geo, st, pk, far, trf, radius, score):
    """The three spaces of highest ``far`` x steps from the pick-up space ``pk`` plus ``trf`` x
    echidna traffic (the first listed on a tie), as a mask."""
    ns = geo[G_NSPACES]
    for s in range(ns):
        score[s] = far * geo[G_DIST + pk * MAX_SPACES + s]
        if trf != 0:
            score[s] += trf * traffic(geo, st, s, radius)
    mask = np.int64(0)
    for i in range(BUGS):
        best = -BIG
        bs = 0
        for s in range(ns):
            if (mask >> s) & 1 == 0 and score[s] > best:
                best = score[s]
                bs = s
        mask |= np.int64(1) << bs
    return mask


@kernel
def greedy_stumps(geo, st, row, rng, c, order, score):
    """Colour ``c``'s three stumps by the placer's row (E1): at random, or ``best_stumps`` with its
    ``stump_far`` and ``stump_traffic``; never two on a space."""
    ns = geo[G_NSPACES]
    mask = np.int64(0)
    if row[P_KIND] == KIND_RANDOM or row[W_SETUP_RANDOM] > 0:
        for s in range(ns):
            order[s] = s
        for i in range(BUGS):
            j = i + rng_below(rng, ns - i)
            tmp = order[i]
            order[i] = order[j]
            order[j] = tmp
            mask |= np.int64(1) << order[i]
        return mask
    return best_stumps(geo, st, st[S_PICK + c], row[W_STUMP_FAR], row[W_STUMP_TRAFFIC], row[W_SETUP_RADIUS], score)


@kernel
def set_pick(st, log, p, pick):
    st[S_PICK + p] = pick
    st[S_DECISIONS] += 1
    emit(log, st, EV_PICKSPACE, p, pick, 0, 0)


@kernel
def set_stumps(st, log, placer, c, mask):
    st[S_STUMPS + c] = mask
    st[S_HAND + c] = BUGS
    st[S_DECISIONS] += 1
    m = mask
    while m != 0:
        u = lowest_bit(m)
        m &= m - 1
        emit(log, st, EV_STUMP, placer, c, u, 0)


@kernel
def give_tokens(geo, st, log):
    """The catch-up tokens of the schedule (E7)."""
    if geo[G_CATCH_UP] != 0:
        for k in range(st[S_NPLAYERS]):
            t = geo[G_SCHED + k]
            if t > st[S_SUPPLY]:
                t = st[S_SUPPLY]
            st[S_TOKENS + k] = t
            st[S_SUPPLY] -= t
            stat_add(st, k, ST_TOKENS_GAINED, t)
            if t > 0:
                emit(log, st, EV_TOKENS, k, t, 0, 0)


@kernel
def searches_setup(row):
    """True when the row searches its set-up choices (``setup_rollouts`` > 0, not random)."""
    return row[P_KIND] != KIND_RANDOM and row[W_SETUP_RANDOM] <= 0 and row[W_SETUP_ROLLOUTS] >= 1


# The set-up search's rollouts draw from a sub-stream of their own, seeded from (not drawn from) the
# game's generator, so the game's own numbers after the set-up are the ones it always drew; the j-th
# rollout of every candidate starts from the same seed (common random numbers).
SETUP_SALT = np.uint64(0x5DEECE66D2545F49)
SETUP_STEP = np.uint64(0xD1B54A32D192ED03)
MAX_SETUP_CANDIDATES = MAX_SPACES  # every space (the lean search can afford them all)
RS_SIZE = MAX_PLAYERS * STRAT_SIZE  # the rollouts' strategy rows


@kernel
def setup_rollout(geo, st, strat, rs, sim, srng, nolog, tmp, order, score, seq, k0, taken, c0, me, horizon):
    """From the set-up state ``st`` (picks of the first ``k0`` choosers in ``seq`` made, ``taken``
    their mask; stumps of colours below ``c0`` placed), finish the set-up with every seat's own set-up
    policy (no search: ``rs``) and play the game out with every seat greedy (``rs``); 1 if seat ``me``
    wins, ``1/n`` for a stalled game (E9), else 0. With ``horizon`` >= 0 the play stops after that
    many rounds and a game still open is scored by the set-up value of ``me``'s row (``leaf_value``)."""
    for i in range(STATE_SIZE):
        sim[i] = st[i]
    n = sim[S_NPLAYERS]
    for k in range(k0, n):
        p = (seq >> (4 * k)) & 15
        pick = greedy_pick(geo, sim, rs[p], srng, taken, order)
        set_pick(sim, nolog, p, pick)
        taken |= np.int64(1) << pick
    for c in range(c0, n):
        placer = (c + 1) % n
        set_stumps(sim, nolog, placer, c, greedy_stumps(geo, sim, rs[placer], srng, c, order, score))
    give_tokens(geo, sim, nolog)
    while sim[S_WINNER] < 0 and sim[S_STALLED] == 0:
        if horizon >= 0 and sim[S_ROUND] >= horizon:
            return leaf_value(geo, sim, strat[me], me)
        play_turn(geo, sim, rs, srng, nolog, nolog, tmp)
    if sim[S_WINNER] == me:
        return 1.0
    return 1.0 / n if sim[S_WINNER] < 0 else 0.0


@kernel
def rollout_rows(strat, n, rs):
    """``rs``: the rows the set-up search's rollouts play with: every seat greedy in play (random
    stays random), no set-up search."""
    for o in range(n):
        for k in range(STRAT_SIZE):
            rs[o, k] = strat[o, k]
        if rs[o, P_KIND] == KIND_LOOKAHEAD:
            rs[o, P_KIND] = KIND_GREEDY
        rs[o, W_SETUP_ROLLOUTS] = 0.0


@kernel
def candidate_state(st, probe, nolog, me, c0, cand, taken, n, k0):
    """``probe``: ``st`` with candidate ``cand`` taken (a pick-up space when ``c0 < 0``, else the
    stump mask for colour ``c0``); returns (taken mask, next chooser, next colour) for the rollout."""
    for k in range(STATE_SIZE):
        probe[k] = st[k]
    if c0 < 0:
        set_pick(probe, nolog, me, cand)
        return taken | (np.int64(1) << cand), k0 + 1, 0
    set_stumps(probe, nolog, me, c0, cand)
    return taken, n, c0 + 1


@kernel
def search_setup(geo, st, strat, rng, me, seq, k0, taken, c0, cand, ncand, order, score):
    """The set-up search's choice among ``ncand`` candidates ``cand`` (pick-up spaces when ``c0 < 0``,
    else stump masks for colour ``c0``): each tried in ``setup_rollouts`` greedy games on the same
    sub-stream seeds; the best mean for seat ``me`` wins, the earlier candidate on a tie. Returns
    the index into ``cand``. With ``setup_halving`` the candidates are halved round by round
    (``halving_choice``); with ``setup_leaf`` the rollouts are cut at ``setup_horizon`` rounds."""
    n = st[S_NPLAYERS]
    rs = stack_empty(RS_SIZE, np.float64).reshape((MAX_PLAYERS, STRAT_SIZE))
    rollout_rows(strat, n, rs)
    sim = stack_empty(STATE_SIZE, np.int64)
    tmp = stack_empty(STATE_SIZE, np.int64)
    probe = stack_empty(STATE_SIZE, np.int64)
    srng = stack_empty(1, np.uint64)
    nolog = stack_full(7, 0, np.int64).reshape((1, 7))
    budget = np.int64(strat[me, W_SETUP_ROLLOUTS])
    base = rng[0] ^ SETUP_SALT ^ (np.uint64(me + 1) * SETUP_STEP) ^ np.uint64(c0 + 2)
    horizon = np.int64(strat[me, W_SETUP_HORIZON]) if strat[me, W_SETUP_LEAF] > 0 else np.int64(-1)
    if strat[me, W_SETUP_HALVING] > 0:
        return halving_choice(geo, st, strat, rs, sim, tmp, probe, srng, nolog, order, score, seq, k0, taken, c0, me,
                              cand, ncand, budget, base, horizon)
    best = -1.0
    bi = 0
    for i in range(ncand):
        t2, k1, c1 = candidate_state(st, probe, nolog, me, c0, cand[i], taken, n, k0)
        total = 0.0
        for j in range(budget):
            srng[0] = base + np.uint64(j) * SETUP_STEP
            rng_next(srng)
            total += setup_rollout(geo, probe, strat, rs, sim, srng, nolog, tmp, order, score, seq, k1, t2, c1, me,
                                   horizon)
        if total > best:
            best = total
            bi = i
    return bi


@kernel
def halving_choice(geo, st, strat, rs, sim, tmp, probe, srng, nolog, order, score, seq, k0, taken, c0, me, cand, ncand,
                   r0, base, horizon):
    """Sequential halving over the candidates: every candidate still in gets ``r0`` rollouts in the
    first round, twice as many in each next; after each round the better half (rounded up) by total
    stays, the earlier candidate on a tie. The j-th rollout of every candidate starts from the same
    sub-stream seed (common random numbers), so the totals of the candidates still in compare the
    same futures."""
    n = st[S_NPLAYERS]
    alive = stack_empty(MAX_SETUP_CANDIDATES, np.int64)
    total = stack_empty(MAX_SETUP_CANDIDATES, np.float64)
    for i in range(ncand):
        alive[i] = i
        total[i] = 0.0
    na = ncand
    done = 0
    r = max(np.int64(1), r0)
    while True:
        for a in range(na):
            i = alive[a]
            t2, k1, c1 = candidate_state(st, probe, nolog, me, c0, cand[i], taken, n, k0)
            for j in range(done, done + r):
                srng[0] = base + np.uint64(j) * SETUP_STEP
                rng_next(srng)
                total[i] += setup_rollout(geo, probe, strat, rs, sim, srng, nolog, tmp, order, score, seq, k1, t2, c1,
                                          me, horizon)
        done += r
        if na <= 1:
            return alive[0]
        # Order the candidates still in by total, best first (insertion sort, stable: the earlier
        # candidate first on a tie), and keep the better half.
        for a in range(1, na):
            x = alive[a]
            b = a
            while b > 0 and total[alive[b - 1]] < total[x]:
                alive[b] = alive[b - 1]
                b -= 1
            alive[b] = x
        na = (na + 1) // 2
        if na == 1:
            return alive[0]
        r *= 2


@kernel
def search_pickup(geo, st, strat, rng, p, seq, k, taken, order, score):
    """Seat ``p``'s pick-up space by the set-up search: the ``setup_candidates`` free spaces of most
    echidna traffic (the greedy's first), each tried by ``search_setup``."""
    row = strat[p]
    ns = geo[G_NSPACES]
    radius = row[W_SETUP_RADIUS]
    cand = stack_empty(MAX_SETUP_CANDIDATES, np.int64)
    val = stack_empty(MAX_SETUP_CANDIDATES, np.float64)
    kmax = min(MAX_SETUP_CANDIDATES, max(1, np.int64(row[W_SETUP_CANDIDATES])))
    nc = 0
    for s in range(ns):
        if (st[S_OCC] >> s) & 1 != 0 or (taken >> s) & 1 != 0:
            continue
        v = row[W_SETUP_TRAFFIC] * traffic(geo, st, s, radius)
        # Insert by value, after equals (the first listed first, as the greedy's choice).
        u = nc if nc < kmax else kmax
        while u > 0 and val[u - 1] < v:
            if u < kmax:
                cand[u] = cand[u - 1]
                val[u] = val[u - 1]
            u -= 1
        if u < kmax:
            cand[u] = s
            val[u] = v
            if nc < kmax:
                nc += 1
    if nc <= 1:
        return cand[0]
    return cand[search_setup(geo, st, strat, rng, p, seq, k, taken, -1, cand, nc, order, score)]


# Stump sets the set-up search tries: the placer's own (``stump_far``, ``stump_traffic``), then these
# (far, traffic) mixes, the distinct ones, up to ``setup_candidates``.
STUMP_MIXES = ((1.0, -1.0), (1.0, 1.0), (1.0, -3.0), (0.0, -1.0), (1.0, 3.0), (0.0, 1.0), (1.0, -0.5), (1.0, 0.5))


@kernel
def search_stumps(geo, st, strat, rng, placer, c, seq, order, score):
    """The stumps ``placer`` sets for colour ``c`` by the set-up search: distinct sets of
    ``best_stumps`` over the placer's own mix and ``STUMP_MIXES``, each tried by ``search_setup``
    for the placer's own chance of winning."""
    row = strat[placer]
    cand = stack_empty(MAX_SETUP_CANDIDATES, np.int64)
    kmax = min(MAX_SETUP_CANDIDATES, max(1, np.int64(row[W_SETUP_CANDIDATES])))
    pk = st[S_PICK + c]
    radius = row[W_SETUP_RADIUS]
    cand[0] = best_stumps(geo, st, pk, row[W_STUMP_FAR], row[W_STUMP_TRAFFIC], radius, score)
    nc = 1
    for m in range(len(STUMP_MIXES)):
        if nc >= kmax:
            break
        far, trf = STUMP_MIXES[m]
        mask = best_stumps(geo, st, pk, far, trf, radius, score)
        seen = False
        for i in range(nc):
            if cand[i] == mask:
                seen = True
        if not seen:
            cand[nc] = mask
            nc += 1
    if nc <= 1:
        return cand[0]
    return cand[search_setup(geo, st, strat, rng, placer, seq, st[S_NPLAYERS], np.int64(0), c, cand, nc, order, score)]


@kernel
def setup_game(geo, st, strat, rng, log, order, score):
    """Fresh state: echidnas on distinct random spaces, pick-up spaces chosen in the order of the
    ``pickup_order`` switch (the rulebook's: reverse turn order), stumps placed by the neighbour on
    the left, catch-up tokens (E1, E7). A seat whose row searches its set-up (``setup_rollouts``)
    chooses its pick-up space and the stumps it places by ``search_pickup`` / ``search_stumps``."""
    n = geo[G_NPLAYERS]
    ns = geo[G_NSPACES]
    for i in range(STATE_SIZE):
        st[i] = 0
    st[S_NPLAYERS] = n
    st[S_WINNER] = NONE
    st[S_SUPPLY] = geo[G_SUPPLY]
    for s in range(MAX_SPACES):
        st[S_SPACE + s] = NONE
    # Echidnas: a partial Fisher-Yates shuffle of the spaces.
    for s in range(ns):
        order[s] = s
    for e in range(N_ECHIDNAS):
        j = e + rng_below(rng, ns - e)
        tmp = order[e]
        order[e] = order[j]
        order[j] = tmp
        s = order[e]
        st[S_EPOS + e] = s
        st[S_EBUG + e] = NONE
        st[S_SPACE + s] = e
        st[S_OCC] |= np.int64(1) << s
        emit(log, st, EV_ECHIDNA, e, s, 0, 0)
    # Pick-up spaces, in the switch's order (the rulebook's: last seat first), drawn after the
    # echidnas so every order meets the same deal: not under an echidna, not another player's.
    seq = pickup_sequence(geo, rng, n)
    taken = np.int64(0)
    for k in range(n):
        p = (seq >> (4 * k)) & 15
        if searches_setup(strat[p]):
            pick = search_pickup(geo, st, strat, rng, p, seq, k, taken, order, score)
        else:
            pick = greedy_pick(geo, st, strat[p], rng, taken, order)
        set_pick(st, log, p, pick)
        taken |= np.int64(1) << pick
    # Stumps: placer (c + 1) mod n sets colour c's three, all at once (only the pick-up spaces and
    # echidnas are known), never two of one colour on a space.
    for c in range(n):
        placer = (c + 1) % n
        if searches_setup(strat[placer]):
            mask = search_stumps(geo, st, strat, rng, placer, c, seq, order, score)
        else:
            mask = greedy_stumps(geo, st, strat[placer], rng, c, order, score)
        set_stumps(st, log, placer, c, mask)
    give_tokens(geo, st, log)
