"""The Echidna Shuffle rules kernel: numba on plain arrays (``simulator.echidna.layout``).

The same conventions as ``simulator/shuffle_swing/kernel/``: every function is ``@kernel`` (compiled, cached on
disk, no division checks), per-turn code allocates nothing on the heap (the few work arrays are made
once per batch in ``play_batch``, or per game in ``play_game``, and passed down), space sets are bit
masks, and whatever follows from the board alone (the distances along arrows) was worked out when
``geo`` was packed. The small pieces called per candidate, per step and per turn are
``kernel_inline`` (inlined by numba: a call costs more than their work). Strategies are float rows read here,
so a new strategy needs no recompilation.

The whole kernel is this one file, so numba's per-file cache can never pair a function with a
callee's old code; its cache folder is named after a hash of this file, the layout and the shared
core (see ``_cache_dir``).

A turn (E2-E5)::

    moves = roll, or 9 - last roll (number board), or roll (variant 4)
    pick-up chance (E4)
    repeat moves times: one echidna one step (E3), deliveries on entering (E5), pick-up chance
    while tokens are held and the strategy wants: spend one, one more step (E7, E8)
"""

from pathlib import Path

import numba
import numpy as np
from numba import njit

from simulator.echidna.layout import (
    EV_DELIVER,
    EV_ECHIDNA,
    EV_GAIN,
    EV_LOST,
    EV_MOVE,
    EV_PICKSPACE,
    EV_PICKUP,
    EV_STALL,
    EV_STUMP,
    EV_TOKENS,
    EV_TURN,
    EV_WIN,
    BUGS,
    G_CATCH_UP,
    G_DIST,
    G_EXTRA_BUGS,
    G_FACES,
    G_HOME_STRETCH,
    G_HS_CAP,
    G_MAX_ROUNDS,
    G_NFACES,
    G_NPLAYERS,
    G_NPRED,
    G_NSPACES,
    G_NUMBER_BOARD,
    G_OUT0,
    G_OUT1,
    G_PAIR,
    G_PICKUP_ORDER,
    G_PRED,
    G_PREDMASK,
    G_RIDING_LIMIT,
    G_SCHED,
    G_SUPPLY,
    KIND_GREEDY,
    KIND_LOOKAHEAD,
    KIND_RANDOM,
    MAX_PLAYERS,
    MAX_PRED,
    MAX_SPACES,
    N_ECHIDNAS,
    N_STAT,
    NONE,
    PICK_RANDOM,
    PICK_REVERSE,
    P_DEPTH,
    P_KIND,
    S_CUR,
    S_DECISIONS,
    S_EBUG,
    S_EPOS,
    S_HAND,
    S_HOME,
    S_MOVES_LEFT,
    S_NEXT,
    S_NPLAYERS,
    S_OCC,
    S_OUT,
    S_PICK,
    S_RIDING,
    S_ROUND,
    S_SPACE,
    S_STALLED,
    S_STAT,
    S_STUMPS,
    S_SUPPLY,
    S_TOKENS,
    S_TURN,
    S_WINNER,
    ST_DELIVERIES,
    ST_DELIVERIES_OFF,
    ST_MOVES_LOST,
    ST_MOVES_MADE,
    ST_PICKUPS,
    ST_TOKENS_GAINED,
    ST_TOKENS_SPENT,
    ST_TURNS,
    STATE_SIZE,
    STRAT_SIZE,
    W_BLOCK,
    W_OPP,
    W_OPP_DELIVER,
    W_OPP_PICK,
    W_OWN,
    W_OWN_DELIVER,
    W_PICK,
    W_SETUP_RADIUS,
    W_SETUP_RANDOM,
    W_SETUP_ROLLOUTS,
    W_SETUP_CANDIDATES,
    W_SETUP_TRAFFIC,
    W_STUMP_FAR,
    W_STUMP_TRAFFIC,
    W_TAKE,
    W_TOKEN,
)
from simulator.shuffle_swing.kernel import cache_dir, sources_hash
from simulator.shuffle_swing.kernel.core import (
    CYCLE_PROBE,
    lowest_bit,
    popcount,
    probe_add,
    probe_clock,
    rng_below,
    rng_next,
    stack_empty,
    stack_full,
)

_HERE = Path(__file__).resolve().parent


def kernel_sources():
    """The files whose content decides this compiled kernel."""
    first = _HERE.parent / "shuffle_swing"  # the shared core of the first game's kernel
    return [_HERE / "kernel.py", _HERE / "layout.py", first / "kernel" / "core.py", first / "layout.py"]


def kernel_hash():
    """SHA-256 over this kernel's source files (name and content)."""
    return sources_hash(kernel_sources())


_CACHE = cache_dir("echidna", kernel_sources())


def _decorate(fn, nrt, inline="never"):
    old = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = _CACHE
    try:
        return njit(cache=not CYCLE_PROBE, error_model="numpy", _nrt=nrt, inline=inline)(fn)
    finally:
        numba.config.CACHE_DIR = old


def kernel(fn):
    """``simulator.shuffle_swing.kernel.core.kernel``'s equivalent for this game: compiled, cached on disk in a
    folder of its own (numba reads the cache folder when a function is decorated), and without
    numba's reference counting: these functions allocate nothing (scratch arrays live on the stack),
    so the atomic increments and decrements numba would wrap around every array passed to a call
    are pure cost (measured: most of a random turn's time)."""
    return _decorate(fn, False)


def kernel_inline(fn):
    """``kernel`` for the small pieces a choice calls once per candidate step: inlined into the
    caller by numba itself. Left to LLVM they stay calls (their bodies are over its inlining
    threshold), and a call passes every array as seven separate values, most of them on the stack:
    measured, more than the piece's own work."""
    return _decorate(fn, False, "always")


def kernel_alloc(fn):
    """``kernel`` for the two entry points that allocate (the generator state, the result rows)."""
    return _decorate(fn, True)


BIG = 1.0e9

# Cycle probe parts (``benchmarks/profile_echidna_cycles.py``): this kernel's own names for the
# shared core's probe counters (``simulator.shuffle_swing.kernel.core.PROBE_COUNTERS``; slot k is part k). Off
# (``CYCLE_PROBE`` unset) the probe calls compile to nothing.
EPROBE_PARTS = (
    "set-up (per game)",
    "whole turn",
    "regular step choices",
    "greedy: pick-up minima and masks",
    "greedy: candidate gains",
    "random choice",
    "token step choices",
    "moves applied",
    "pick-up chances",
)
EPR_SETUP, EPR_TURN, EPR_CHOICE, EPR_PREP, EPR_GAINS, EPR_RANDOM, EPR_TOKEN, EPR_MOVE, EPR_TAKE = range(len(EPROBE_PARTS))

# =========================================================================== small pieces


@kernel
def emit(log, st, code, a, b, c, d):
    """Append one event (turn, seat, code, a..d) if the log has room; a one-row log records nothing."""
    n = log[0, 0]
    if n + 1 < log.shape[0]:
        row = n + 1
        log[row, 0] = st[S_TURN]
        log[row, 1] = st[S_CUR]
        log[row, 2] = code
        log[row, 3] = a
        log[row, 4] = b
        log[row, 5] = c
        log[row, 6] = d
        log[0, 0] = n + 1


@kernel
def dist(geo, a, b):
    """Steps along arrows from space ``a`` to ``b`` (at least one; ``a == b`` is a loop)."""
    return geo[G_DIST + a * MAX_SPACES + b]


@kernel
def rider_dist(geo, stumps, x):
    """Steps from ``x`` to the nearest stump of the mask ``stumps`` (0 if none is left)."""
    best = 0
    first = True
    m = stumps
    while m != 0:
        u = lowest_bit(m)
        m &= m - 1
        d = geo[G_DIST + x * MAX_SPACES + u]
        if first or d < best:
            best = d
            first = False
    return best


@kernel
def can_take(geo, st, p):
    """True if seat ``p`` has a bug to put on an echidna (E4; the 5-6 player limit)."""
    return st[S_HAND + p] > 0 and st[S_RIDING + p] < geo[G_RIDING_LIMIT]


@kernel
def stat_add(st, p, which, n):
    st[S_STAT + p * N_STAT + which] += n


# =========================================================================== set-up (E1)


@kernel
def traffic(geo, st, s, radius):
    """Echidnas within ``radius`` steps upstream of ``s``, the nearer the more (set-up policies)."""
    t = 0.0
    for e in range(N_ECHIDNAS):
        x = st[S_EPOS + e]
        d = 0 if x == s else geo[G_DIST + x * MAX_SPACES + s]
        if d < radius:
            t += radius - d
    return t


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
MAX_SETUP_CANDIDATES = 16
RS_SIZE = MAX_PLAYERS * STRAT_SIZE  # the rollouts' strategy rows


@kernel
def setup_rollout(geo, st, strat, rs, sim, srng, nolog, tmp, order, score, seq, k0, taken, c0, me):
    """From the set-up state ``st`` (picks of the first ``k0`` choosers in ``seq`` made, ``taken``
    their mask; stumps of colours below ``c0`` placed), finish the set-up with every seat's own set-up
    policy (no search: ``rs``) and play the game out with every seat greedy (``rs``); 1 if seat ``me``
    wins, ``1/n`` for a stalled game (E9), else 0."""
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
def search_setup(geo, st, strat, rng, me, seq, k0, taken, c0, cand, ncand, order, score):
    """The set-up search's choice among ``ncand`` candidates ``cand`` (pick-up spaces when ``c0 < 0``,
    else stump masks for colour ``c0``): each tried in ``setup_rollouts`` greedy games on the same
    sub-stream seeds; the best mean for seat ``me`` wins, the earlier candidate on a tie. Returns
    the index into ``cand``."""
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
    best = -1.0
    bi = 0
    for i in range(ncand):
        for k in range(STATE_SIZE):
            probe[k] = st[k]
        if c0 < 0:
            set_pick(probe, nolog, me, cand[i])
            t2 = taken | (np.int64(1) << cand[i])
            k1, c1 = k0 + 1, 0
        else:
            set_stumps(probe, nolog, me, c0, cand[i])
            t2 = taken
            k1, c1 = n, c0 + 1
        total = 0.0
        for j in range(budget):
            srng[0] = base + np.uint64(j) * SETUP_STEP
            rng_next(srng)
            total += setup_rollout(geo, probe, strat, rs, sim, srng, nolog, tmp, order, score, seq, k1, t2, c1, me)
        if total > best:
            best = total
            bi = i
    return bi


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


# =========================================================================== moves (E3-E6, E8)


@kernel_inline
def take_bug(geo, st, strat, rng, p, log):
    """Seat ``p``'s pick-up chance (E4): an empty echidna on its pick-up space and a bug to place."""
    pk = st[S_PICK + p]
    e = st[S_SPACE + pk]
    if e < 0 or st[S_EBUG + e] != NONE or not can_take(geo, st, p):
        return
    row = strat[p]
    st[S_DECISIONS] += 1
    if row[P_KIND] == KIND_RANDOM:
        if rng_below(rng, 2) == 0:
            return
    elif row[W_TAKE] <= 0:
        return
    st[S_EBUG + e] = p
    st[S_HAND + p] -= 1
    st[S_RIDING + p] += 1
    stat_add(st, p, ST_PICKUPS, 1)
    emit(log, st, EV_PICKUP, e, pk, 0, 0)


@kernel_inline
def apply_move(geo, st, p, e, t, paid, log):
    """Seat ``p`` moves echidna ``e`` one step onto the empty space ``t``; a home-stretch gain (E8),
    a delivery on entering (E5) and a win (E6) follow at once."""
    s = st[S_EPOS + e]
    c = st[S_EBUG + e]
    if c >= 0 and c != p and geo[G_HOME_STRETCH] != 0:
        # E8: the rider's owner is in the home stretch when exactly one stump of theirs is left.
        if popcount(st[S_STUMPS + c]) == 1 and st[S_TOKENS + c] < geo[G_HS_CAP] and st[S_SUPPLY] > 0:
            st[S_TOKENS + c] += 1
            st[S_SUPPLY] -= 1
            stat_add(st, c, ST_TOKENS_GAINED, 1)
            emit(log, st, EV_GAIN, c, st[S_TOKENS + c], 0, 0)
    st[S_SPACE + s] = NONE
    st[S_SPACE + t] = e
    st[S_EPOS + e] = t
    st[S_OCC] ^= (np.int64(1) << s) | (np.int64(1) << t)
    stat_add(st, p, ST_MOVES_MADE, 1)
    emit(log, st, EV_MOVE, e, s, t, paid)
    if c >= 0 and (st[S_STUMPS + c] >> t) & 1:
        st[S_STUMPS + c] &= ~(np.int64(1) << t)
        st[S_EBUG + e] = NONE
        st[S_RIDING + c] -= 1
        st[S_HOME + c] += 1
        if geo[G_EXTRA_BUGS] != 0:
            st[S_HAND + c] += 1  # variant 3: the bug may be picked up again
        stat_add(st, c, ST_DELIVERIES, 1)
        if c != p:
            stat_add(st, c, ST_DELIVERIES_OFF, 1)
        emit(log, st, EV_DELIVER, c, e, t, 0)
        if st[S_HOME + c] >= BUGS:
            st[S_WINNER] = c
            emit(log, st, EV_WIN, c, 0, 0, 0)


@kernel_inline
def pick_minima(geo, st, p):
    """Nearest and second-nearest empty echidna to ``p``'s pick-up space: (d1, echidna of d1, d2)."""
    pk = st[S_PICK + p]
    d1 = 1 << 20
    d2 = 1 << 20
    e1 = -1
    for e in range(N_ECHIDNAS):
        if st[S_EBUG + e] != NONE:
            continue
        x = st[S_EPOS + e]
        d = 0 if x == pk else geo[G_DIST + x * MAX_SPACES + pk]
        if d < d1:
            d2 = d1
            d1 = d
            e1 = e
        elif d < d2:
            d2 = d
    return d1, e1, d2


@kernel
def riders_sum(geo, st, c, stumps, skip):
    """Sum of the distances of colour ``c``'s riders (but echidna ``skip``) to the mask ``stumps``."""
    tot = 0
    for f in range(N_ECHIDNAS):
        if f != skip and st[S_EBUG + f] == c:
            tot += rider_dist(geo, stumps, st[S_EPOS + f])
    return tot


@kernel_inline
def choice_masks(geo, st, p):
    """What every candidate step of seat ``p`` reads, worked out once per choice: the spaces of
    opponents' riders and of own riders (blocking), and the pick-up spaces of opponents who have a
    bug to place."""
    opp = np.int64(0)
    own = np.int64(0)
    for f in range(N_ECHIDNAS):
        c = st[S_EBUG + f]
        if c >= 0:
            if c == p:
                own |= np.int64(1) << st[S_EPOS + f]
            else:
                opp |= np.int64(1) << st[S_EPOS + f]
    picks = np.int64(0)
    for q in range(st[S_NPLAYERS]):
        if q != p and can_take(geo, st, q):
            picks |= np.int64(1) << st[S_PICK + q]
    return opp, own, picks


@kernel_inline
def legal_steps(geo, st):
    """The legal steps as a bit mask: bit ``2e + a`` is set when echidna ``e`` may follow its
    arrow ``a`` (0: the first, 1: the second) onto an empty space (E3). Counting from the lowest
    bit lists the steps echidna by echidna, first arrow first: the order every choice reads them in."""
    free = ~st[S_OCC]
    m = np.int64(0)
    for e in range(N_ECHIDNAS):
        s = st[S_EPOS + e]
        m |= ((free >> geo[G_OUT0 + s]) & 1) << (2 * e)
        t = geo[G_OUT1 + s]
        if t >= 0:
            m |= ((free >> t) & 1) << (2 * e + 1)
    return m


@kernel_inline
def move_gain(geo, st, row, p, e, s, t, d1, e1, d2, mine, opp, own, picks):
    """Change of seat ``p``'s weighted evaluation if echidna ``e`` steps from ``s`` to ``t``.

    Own riders' steps to their stumps (``own_distance``), deliveries, opponents' riders' steps,
    the nearest empty echidna to the own pick-up space (``pickup_chance``; ``mine`` says whether ``p``
    has a bug to place), empty echidnas left on opponents' pick-up spaces (``picks``), blocking: riders
    standing just behind an echidna (``opp``, ``own``: the riders' spaces)."""
    gain = 0.0
    c = st[S_EBUG + e]
    if c >= 0:
        stumps = st[S_STUMPS + c]
        ds = rider_dist(geo, stumps, s)
        if (stumps >> t) & 1:
            rest = stumps & ~(np.int64(1) << t)
            others = riders_sum(geo, st, c, rest, e) - riders_sum(geo, st, c, stumps, e)
            if c == p:
                gain += row[W_OWN] * (ds - others) + row[W_OWN_DELIVER]
            else:
                gain -= row[W_OPP] * (ds - others) + row[W_OPP_DELIVER]
        else:
            dt = rider_dist(geo, stumps, t)
            if c == p:
                gain -= row[W_OWN] * (dt - ds)
            else:
                gain += row[W_OPP] * (dt - ds)
    else:
        if mine:
            pk = st[S_PICK + p]
            dt = 0 if t == pk else geo[G_DIST + t * MAX_SPACES + pk]
            other = d2 if e1 == e else d1
            new = other if other < dt else dt
            gain -= row[W_PICK] * (new - d1)
        gain -= row[W_OPP_PICK] * (((picks >> t) & 1) - ((picks >> s) & 1))
    w = row[W_BLOCK]
    if w != 0:
        gone = ~(np.int64(1) << s)
        at_t = geo[G_PREDMASK + t] & gone
        at_s = geo[G_PREDMASK + s]
        b = popcount(at_t & opp) - popcount(at_t & own) - popcount(at_s & opp) + popcount(at_s & own)
        gain += w * b
    return gain


@kernel_inline
def greedy_choice(geo, st, row, p, rng):
    """The step with the best ``move_gain``: (echidna, target, gain); echidna -1 if none can move.
    Ties are broken uniformly at random (a fixed order would let every player burn moves on the
    same idle echidna while riders wait behind an empty one: measured stalls on the snow board)."""
    t0 = probe_clock()
    d1, e1, d2 = pick_minima(geo, st, p)
    mine = can_take(geo, st, p)
    opp, own, picks = choice_masks(geo, st, p)
    probe_add(EPR_PREP, t0)
    t0 = probe_clock()
    best = -BIG
    be = -1
    bt = -1
    ties = 0
    m = legal_steps(geo, st)
    while m != 0:
        b = lowest_bit(m)
        m &= m - 1
        e = b >> 1
        s = st[S_EPOS + e]
        t = geo[G_OUT0 + s] if b & 1 == 0 else geo[G_OUT1 + s]
        g = move_gain(geo, st, row, p, e, s, t, d1, e1, d2, mine, opp, own, picks)
        if g > best + 1e-9:
            best = g
            be = e
            bt = t
            ties = 1
        elif g >= best - 1e-9:
            ties += 1
            if rng_below(rng, ties) == 0:
                be = e
                bt = t
    probe_add(EPR_GAINS, t0)
    return be, bt, best


@kernel_inline
def random_choice(geo, st, rng):
    """A uniformly random legal step: (echidna, target); -1 if none. One draw below the number of
    legal steps picks the j-th set bit of ``legal_steps``."""
    m = legal_steps(geo, st)
    if m == 0:
        return -1, -1
    j = rng_below(rng, popcount(m))
    for _ in range(j):
        m &= m - 1
    b = lowest_bit(m)
    e = b >> 1
    s = st[S_EPOS + e]
    return e, (geo[G_OUT0 + s] if b & 1 == 0 else geo[G_OUT1 + s])


@kernel
def evaluate(geo, st, row, p):
    """Seat ``p``'s weighted evaluation of a whole state (the lookahead's leaf value)."""
    w = st[S_WINNER]
    if w >= 0:
        return BIG if w == p else -BIG
    v = row[W_OWN_DELIVER] * st[S_HOME + p] + row[W_TOKEN] * st[S_TOKENS + p]
    n = st[S_NPLAYERS]
    for q in range(n):
        if q != p:
            v -= row[W_OPP_DELIVER] * st[S_HOME + q]
    for e in range(N_ECHIDNAS):
        c = st[S_EBUG + e]
        if c >= 0:
            d = rider_dist(geo, st[S_STUMPS + c], st[S_EPOS + e])
            if c == p:
                v -= row[W_OWN] * d
            else:
                v += row[W_OPP] * d
    if can_take(geo, st, p):
        d1, e1, d2 = pick_minima(geo, st, p)
        v -= row[W_PICK] * d1
    for q in range(n):
        if q != p and can_take(geo, st, q):
            f = st[S_SPACE + st[S_PICK + q]]
            if f >= 0 and st[S_EBUG + f] == NONE:
                v -= row[W_OPP_PICK]
    if row[W_BLOCK] != 0:
        occ = st[S_OCC]
        for e in range(N_ECHIDNAS):
            c = st[S_EBUG + e]
            if c >= 0:
                s = st[S_EPOS + e]
                for a in range(2):
                    t = geo[G_OUT0 + s] if a == 0 else geo[G_OUT1 + s]
                    if t >= 0 and (occ >> t) & 1:
                        v += row[W_BLOCK] if c != p else -row[W_BLOCK]
    return v


@kernel
def lookahead_choice(geo, st, strat, rng, p, steps, nolog, tmp):
    """Plan ahead within the turn: each legal step is tried on a copy of the state, the copy plays
    the next ``steps - 1`` steps greedily (pick-ups included), and the step whose end state
    ``evaluate`` ranks highest is taken. (echidna, target, value); -1 if none can move."""
    row = strat[p]
    occ = st[S_OCC]
    best = -BIG * 10
    be = -1
    bt = -1
    for e in range(N_ECHIDNAS):
        s = st[S_EPOS + e]
        for a in range(2):
            t = geo[G_OUT0 + s] if a == 0 else geo[G_OUT1 + s]
            if t < 0 or (occ >> t) & 1:
                continue
            for i in range(STATE_SIZE):
                tmp[i] = st[i]
            apply_move(geo, tmp, p, e, t, 0, nolog)
            if tmp[S_WINNER] < 0:
                take_bug(geo, tmp, strat, rng, p, nolog)
            for k in range(steps - 1):
                if tmp[S_WINNER] >= 0:
                    break
                f, u, g = greedy_choice(geo, tmp, row, p, rng)
                if f < 0:
                    break
                apply_move(geo, tmp, p, f, u, 0, nolog)
                if tmp[S_WINNER] < 0:
                    take_bug(geo, tmp, strat, rng, p, nolog)
            v = evaluate(geo, tmp, row, p)
            if v > best:
                best = v
                be = e
                bt = t
    return be, bt, best


@kernel_inline
def choose_step(geo, st, strat, rng, p, left, nolog, tmp):
    """The strategy's next regular step: (echidna, target); -1 when no echidna can move."""
    row = strat[p]
    kind = row[P_KIND]
    st[S_DECISIONS] += 1
    if kind == KIND_RANDOM:
        t0 = probe_clock()
        e, t = random_choice(geo, st, rng)
        probe_add(EPR_RANDOM, t0)
        return e, t
    if kind == KIND_LOOKAHEAD:
        depth = np.int64(row[P_DEPTH])
        steps = left if depth <= 0 or depth > left else depth
        e, t, v = lookahead_choice(geo, st, strat, rng, p, steps, nolog, tmp)
        return e, t
    e, t, g = greedy_choice(geo, st, row, p, rng)
    return e, t


@kernel_inline
def choose_token_step(geo, st, strat, rng, p):
    """A paid step (E7, E8), or -1 to keep the tokens: random spends half the time, the others when
    the best step gains more than ``token_value``."""
    row = strat[p]
    st[S_DECISIONS] += 1
    if row[P_KIND] == KIND_RANDOM:
        if rng_below(rng, 2) == 0:
            return -1, -1
        return random_choice(geo, st, rng)
    e, t, g = greedy_choice(geo, st, row, p, rng)
    if e < 0 or g <= row[W_TOKEN]:
        return -1, -1
    return e, t


@kernel_inline
def moves_for_turn(geo, st, rng, p):
    """E2: (moves, rolled). The number board alternates a roll with 9 minus it, per seat."""
    if geo[G_NUMBER_BOARD] != 0 and st[S_NEXT + p] > 0:
        m = st[S_NEXT + p]
        st[S_NEXT + p] = 0
        return m, 0
    r = geo[G_FACES + rng_below(rng, geo[G_NFACES])]
    if geo[G_NUMBER_BOARD] != 0:
        st[S_NEXT + p] = geo[G_PAIR + r]
    return r, 1


@kernel_inline
def play_turn(geo, st, strat, rng, log, nolog, tmp):
    """One player's whole turn; then the next seat, the round count and the stall cap (E9)."""
    t_turn = probe_clock()
    p = st[S_CUR]
    n = st[S_NPLAYERS]
    stat_add(st, p, ST_TURNS, 1)
    m, rolled = moves_for_turn(geo, st, rng, p)
    emit(log, st, EV_TURN, m, rolled, st[S_TOKENS + p], 0)
    t0 = probe_clock()
    take_bug(geo, st, strat, rng, p, log)
    probe_add(EPR_TAKE, t0)
    st[S_MOVES_LEFT] = m
    while st[S_MOVES_LEFT] > 0:
        t0 = probe_clock()
        e, t = choose_step(geo, st, strat, rng, p, st[S_MOVES_LEFT], nolog, tmp)
        probe_add(EPR_CHOICE, t0)
        if e < 0:
            # E3: no echidna can move, the rest is lost.
            stat_add(st, p, ST_MOVES_LOST, st[S_MOVES_LEFT])
            emit(log, st, EV_LOST, st[S_MOVES_LEFT], 0, 0, 0)
            st[S_MOVES_LEFT] = 0
            break
        t0 = probe_clock()
        apply_move(geo, st, p, e, t, 0, log)
        probe_add(EPR_MOVE, t0)
        st[S_MOVES_LEFT] -= 1
        if st[S_WINNER] >= 0:
            probe_add(EPR_TURN, t_turn)
            return
        t0 = probe_clock()
        take_bug(geo, st, strat, rng, p, log)
        probe_add(EPR_TAKE, t0)
    while st[S_TOKENS + p] > 0:
        t0 = probe_clock()
        e, t = choose_token_step(geo, st, strat, rng, p)
        probe_add(EPR_TOKEN, t0)
        if e < 0:
            break
        st[S_TOKENS + p] -= 1
        stat_add(st, p, ST_TOKENS_SPENT, 1)
        if geo[G_HOME_STRETCH] != 0:
            st[S_SUPPLY] += 1  # E7 with variant 2: spent tokens go back to the supply
        else:
            st[S_OUT] += 1
        apply_move(geo, st, p, e, t, 1, log)
        if st[S_WINNER] >= 0:
            probe_add(EPR_TURN, t_turn)
            return
        take_bug(geo, st, strat, rng, p, log)
    st[S_TURN] += 1
    st[S_CUR] = (p + 1) % n
    if st[S_CUR] == 0:
        st[S_ROUND] += 1
        if st[S_ROUND] >= geo[G_MAX_ROUNDS]:
            st[S_STALLED] = 1
            emit(log, st, EV_STALL, st[S_ROUND], 0, 0, 0)
    probe_add(EPR_TURN, t_turn)


# =========================================================================== invariants


@kernel
def check_invariants(geo, st):
    """0 if the state is sound, else the code of the first broken invariant (``layout.VIOLATIONS``).
    Used after every turn by the soak (``ssb check --game echidna``) and by the tests."""
    n = st[S_NPLAYERS]
    ns = geo[G_NSPACES]
    occ = np.int64(0)
    for e in range(N_ECHIDNAS):
        s = st[S_EPOS + e]
        if s < 0 or s >= ns or (occ >> s) & 1:
            return 1
        occ |= np.int64(1) << s
    for e in range(N_ECHIDNAS):
        if st[S_SPACE + st[S_EPOS + e]] != e:
            return 2
        c = st[S_EBUG + e]
        if c < NONE or c >= n:
            return 3
    if occ != st[S_OCC]:
        return 2
    for s in range(MAX_SPACES):
        f = st[S_SPACE + s]
        if f >= 0 and ((occ >> s) & 1 == 0 or st[S_EPOS + f] != s):
            return 2
    held = 0
    picks = np.int64(0)
    for q in range(n):
        if st[S_HAND + q] < 0 or st[S_RIDING + q] < 0 or st[S_TOKENS + q] < 0 or st[S_HOME + q] < 0:
            return 12
        riding = 0
        for e in range(N_ECHIDNAS):
            if st[S_EBUG + e] == q:
                riding += 1
        if riding != st[S_RIDING + q]:
            return 4
        if geo[G_EXTRA_BUGS] != 0:
            if st[S_HAND + q] + st[S_RIDING + q] != BUGS:
                return 5
        elif st[S_HAND + q] + st[S_RIDING + q] + st[S_HOME + q] != BUGS:
            return 5
        stumps = st[S_STUMPS + q]
        if popcount(stumps) + st[S_HOME + q] != BUGS or (stumps >> ns) != 0:
            return 6
        if st[S_RIDING + q] > geo[G_RIDING_LIMIT]:
            return 9
        if geo[G_HOME_STRETCH] != 0:
            cap = geo[G_HS_CAP]
            start = geo[G_SCHED + q] if geo[G_CATCH_UP] != 0 else 0
            if st[S_TOKENS + q] > (cap if cap > start else start):
                return 8
        pk = st[S_PICK + q]
        if pk < 0 or pk >= ns or (picks >> pk) & 1:
            return 10
        picks |= np.int64(1) << pk
        held += st[S_TOKENS + q]
    if st[S_SUPPLY] < 0 or held + st[S_SUPPLY] + st[S_OUT] != geo[G_SUPPLY]:
        return 7
    w = st[S_WINNER]
    if w >= 0 and (w >= n or st[S_HOME + w] != BUGS):
        return 11
    return 0


# =========================================================================== whole games


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
