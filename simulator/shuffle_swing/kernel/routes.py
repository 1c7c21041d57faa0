"""The inspector's route (R8): what each entry is worth to a seat, and the route search.

Every inspect asks ``search_inspect`` for its route; the greedy turn worth (``choice``) shares one
department's entry worths (``enter_values``) among its inspect candidates and asks
``search_routes`` for the best route's worth.
"""

import numpy as np

from simulator.kernel_common import lowest_bit, rng_below, rng_unit, stack_empty, stack_full
from simulator.shuffle_swing.kernel.core import kernel
from simulator.shuffle_swing.kernel.policy import (
    OCC_INNER,
    OCC_OUTER,
    OCC_SIZE,
    W_INSPECT,
    W_OPP_POINTS,
    W_POINTS,
    W_TOKEN_SPENT,
    is_uniform,
    occupancy,
)
from simulator.shuffle_swing.kernel.rules import inst_base
from simulator.shuffle_swing.layout import (
    AUTOMA,
    I_COST,
    I_EDGE_XOR,
    I_INCIDENT,
    I_NSPACES,
    MAX_SPACES,
    P_MAX_JUMPS,
    P_TEMPERATURE,
    S_INNER,
    S_INSPECTOR,
    S_OUTER,
)

MAX_JUMPS = 16  # the most cheese jumps one inspect may make (PARAMS["max_jumps"] is capped here)
ROUTE_DEPTH = 2 + 4 + MAX_JUMPS  # an inspector route: the start, up to 4 scored steps and the jumps
ROUTE_LEN = ROUTE_DEPTH + 2  # the path and jump arrays a route search fills
# A search branch is cut only when its bound falls short of the best worth by more than this, so that
# rounding in the bound (a sum taken in another order) never cuts the best route.
BOUND_SLACK = 1e-9


@kernel
def enter_value(st, geo, sp, p, d, space):
    """Greedy worth for ``p`` of the inspector entering ``space``: own pieces score, others' cost."""
    num = geo[inst_base(d) + I_COST + space]
    v = 0.0
    for k in range(2):
        o = st[S_INNER + d * MAX_SPACES + space] if k == 0 else st[S_OUTER + d * MAX_SPACES + space]
        if o == p:
            v += (sp[W_POINTS] + sp[W_INSPECT]) * num
        elif 0 <= o < AUTOMA:
            v -= sp[W_OPP_POINTS] * num
    return v


@kernel
def enter_values(st, geo, sp, p, d, occ, ev):
    """Fill ``ev[space]`` with ``enter_value`` for every space of instrument ``d`` (0 where no piece
    stands; ``occ`` from ``occupancy``); returns the largest, or 0 when none is positive (the most
    one inspector entry could be worth to ``p``)."""
    for t in range(geo[inst_base(d) + I_NSPACES]):
        ev[t] = 0.0
    held = occ[OCC_INNER] | occ[OCC_OUTER]
    best = 0.0
    while held:
        t = lowest_bit(held)
        held &= held - 1
        v = enter_value(st, geo, sp, p, d, t)
        ev[t] = v
        if v > best:
            best = v
    return best


@kernel
def search_inspect(st, geo, sp, p, d, pips, cheese, path, jumps, rng):
    """The inspector route ``p`` takes (R8), chosen among every legal route by depth-first search.

    A route makes ``pips`` scored steps along unused lines; it may be shorter only when no route of
    full length exists (the inspector must move exactly its pips whenever it can). Up to
    ``max_jumps`` cheese jumps (P_MAX_JUMPS, R4: any number may be spent) are tried, never more than
    the cheese held. The greedy policy takes the longest route of best worth, jumping only past
    spaces that would pay others more than itself; at a softmax temperature it draws among all the
    longest routes (any jump) with probability proportional to exp(worth / temperature); the random
    policy (and a temperature of infinity) draws uniformly among the longest routes (jumps
    included). An inspector still off the board is first placed on any space, which counts as one
    step and cannot be jumped. Fills ``path``/``jumps`` (``ROUTE_LEN`` long); returns (worth of the
    best route, entries of the route taken)."""
    ev = stack_full(MAX_SPACES, 0.0, np.float64)
    maxv = 0.0
    uni = is_uniform(sp)
    if not uni:
        occ = stack_empty(OCC_SIZE, np.int64)
        occupancy(st, geo, d, occ)
        maxv = enter_values(st, geo, sp, p, d, occ, ev)
    temp = 0.0 if uni else sp[P_TEMPERATURE]
    return route_search(st, geo, sp, d, pips, cheese, path, jumps, rng, ev, maxv, temp)


@kernel
def search_routes(st, geo, sp, d, pips, cheese, path, jumps, rng, ev, maxv):
    """``search_inspect`` with the entry worths ``ev`` (all 0 for the random policy) and their
    positive maximum ``maxv`` already computed, so that one department's searches share them: the
    best route's worth, as the turn evaluation needs (no temperature)."""
    return route_search(st, geo, sp, d, pips, cheese, path, jumps, rng, ev, maxv, 0.0)


@kernel
def route_search(st, geo, sp, d, pips, cheese, path, jumps, rng, ev, maxv, temp):
    """The depth-first route search of ``search_routes``; with ``temp`` > 0 (finite) the route is
    drawn among all the longest routes (any jump) with probability proportional to
    exp(worth / temp), one draw per route found (weighted reservoir sampling).

    The greedy search skips any branch that cannot beat the best full-length route found so far
    (by more than ``BOUND_SLACK``, a margin for rounding): it ends on a strictly better worth or not
    at all, so the route chosen is the one the exhaustive search would choose."""
    base = inst_base(d)
    ns = geo[base + I_NSPACES]
    rnd = is_uniform(sp)
    soft = temp > 0.0 and not rnd
    # Full search (no cuts, every jump) for the random and the softmax draws.
    full = rnd or soft
    lim = np.int64(sp[P_MAX_JUMPS])
    if lim > MAX_JUMPS:
        lim = MAX_JUMPS
    maxj = cheese if cheese < lim else lim
    wsum = 0.0
    node = stack_empty(ROUTE_DEPTH, np.int64)
    mask = stack_empty(ROUTE_DEPTH, np.int64)
    rem = stack_empty(ROUTE_DEPTH, np.int64)  # lines out of the node still to try, as a bit mask
    jnext = stack_empty(ROUTE_DEPTH, np.int64)  # 1: the lowest line in rem is next tried as a jump
    steps = stack_empty(ROUTE_DEPTH, np.int64)
    jl = stack_empty(ROUTE_DEPTH, np.int64)
    cur_j = stack_empty(ROUTE_DEPTH, np.int64)
    val = stack_empty(ROUTE_DEPTH, np.float64)
    # What a jump can add to a route: only a negative token weight makes it positive.
    jump_gain = -sp[W_TOKEN_SPENT] if sp[W_TOKEN_SPENT] < 0 else 0.0
    best = -1e18
    best_steps = -1
    nbest = 0
    blen = 0
    start = st[S_INSPECTOR + d]
    nstarts = 1 if start >= 0 else ns
    for si in range(nstarts):
        if start < 0 and not full and best_steps == pips:
            # No full route from this start can beat the best full route found.
            if ev[si] + (pips - 1) * maxv <= best:
                continue
        if start >= 0:
            node[0] = start
            val[0] = 0.0
            steps[0] = pips
            first_len = 0
        else:
            node[0] = si
            val[0] = ev[si]
            steps[0] = pips - 1
            first_len = 1
        mask[0] = 0
        jl[0] = maxj
        cur_j[0] = 0
        lvl = 0
        fresh = True
        while lvl >= 0:
            u = node[lvl]
            if fresh:
                fresh = False
                free = geo[base + I_INCIDENT + u] & ~mask[lvl]
                if steps[lvl] == 0 or free == 0:
                    # A route that is complete, or that cannot go on.
                    used = pips - steps[lvl]
                    take = False
                    if used > best_steps:
                        best_steps = used
                        nbest = 1
                        best = val[lvl]
                        wsum = 1.0
                        take = True
                    elif used == best_steps:
                        if rnd:
                            nbest += 1
                            take = rng_below(rng, nbest) == 0
                        elif soft:
                            # Weights relative to the best worth so far, so none exceeds 1.
                            if val[lvl] > best:
                                wsum = wsum * np.exp((best - val[lvl]) / temp) + 1.0
                                best = val[lvl]
                                take = rng_unit(rng) * wsum < 1.0
                            else:
                                w = np.exp((val[lvl] - best) / temp)
                                wsum += w
                                take = rng_unit(rng) * wsum < w
                        elif val[lvl] > best:
                            best = val[lvl]
                            take = True
                    if take:
                        blen = lvl + first_len
                        if first_len == 1:
                            path[0] = node[0]
                            jumps[0] = 0
                        for t in range(1, lvl + 1):
                            path[t - 1 + first_len] = node[t]
                            jumps[t - 1 + first_len] = cur_j[t]
                    lvl -= 1
                    continue
                if not full and best_steps == pips and val[lvl] + steps[lvl] * maxv + jl[lvl] * jump_gain < best - BOUND_SLACK:
                    # Nothing below can end strictly above the best full route.
                    lvl -= 1
                    continue
                rem[lvl] = free
                jnext[lvl] = 0
            # Next child: each unused line in line order, first scored, then jumped over.
            advanced = False
            while rem[lvl] != 0:
                e = lowest_bit(rem[lvl])
                var = jnext[lvl]
                if var == 0:
                    jnext[lvl] = 1
                else:
                    jnext[lvl] = 0
                    rem[lvl] &= rem[lvl] - 1
                v = geo[base + I_EDGE_XOR + e] ^ u
                m2 = mask[lvl] | (np.int64(1) << e)
                if var == 1:
                    # A jump must pass through: the inspector leaves the space again.
                    if jl[lvl] == 0 or (geo[base + I_INCIDENT + v] & ~m2) == 0:
                        continue
                    if not full and ev[v] >= 0:
                        continue
                lvl2 = lvl + 1
                node[lvl2] = v
                mask[lvl2] = m2
                cur_j[lvl2] = var
                if var == 1:
                    val[lvl2] = val[lvl] - sp[W_TOKEN_SPENT]
                    steps[lvl2] = steps[lvl]
                    jl[lvl2] = jl[lvl] - 1
                else:
                    val[lvl2] = val[lvl] + ev[v]
                    steps[lvl2] = steps[lvl] - 1
                    jl[lvl2] = jl[lvl]
                lvl = lvl2
                fresh = True
                advanced = True
                break
            if not advanced:
                lvl -= 1
    return best, blen
