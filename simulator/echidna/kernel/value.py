"""The set-up value: each seat's chance of winning from a state, by a conditional logit over seat
features (a seat's score is its features times the fitted coefficients plus its position after the
seat to move; its chance is its share of the exponentials of every seat's score). The coefficients
are data (``simulator/echidna/data/setup_value.toml``, fitted by ``python -m
simulator.echidna.value_fit``), carried in the searching seat's row from ``P_LEAF`` on, one block
of ``LEAF_SIZE`` per player count. The set-up search's short rollouts end on it (``setup_leaf``).
"""

import numpy as np

from simulator.kernel_common import lowest_bit, stack_empty
from simulator.echidna.kernel.core import can_take, kernel, rider_dist
from simulator.echidna.kernel.turn import pick_minima
from simulator.echidna.layout import (
    G_DIST,
    G_NPRED,
    LEAF_F,
    LEAF_SIZE,
    MAX_SPACES,
    N_ECHIDNAS,
    P_LEAF,
    S_CUR,
    S_EBUG,
    S_EPOS,
    S_HAND,
    S_HOME,
    S_NPLAYERS,
    S_PICK,
    S_RIDING,
    S_STUMPS,
    S_TOKENS,
)

# The pick-up traffic's radii, the stumps' and the cap on the wait for an empty echidna (none left:
# the cap).
VALUE_RADIUS = 8
WIDE_RADIUS = 16
STUMP_RADIUS = 4
WAIT_CAP = 16


@kernel
def traffic(geo, st, s, radius):
    """Echidnas within ``radius`` steps upstream of ``s``, the nearer the more (the set-up policies'
    traffic and the set-up value's features)."""
    t = 0.0
    for e in range(N_ECHIDNAS):
        x = st[S_EPOS + e]
        d = 0 if x == s else geo[G_DIST + x * MAX_SPACES + s]
        if d < radius:
            t += radius - d
    return t


@kernel
def seat_features(geo, st, q, f):
    """Seat ``q``'s features (``simulator.echidna.layout.LEAF_FEATURES``) into ``f``."""
    stumps = st[S_STUMPS + q]
    pk = st[S_PICK + q]
    hand = st[S_HAND + q]
    f[0] = st[S_HOME + q]
    f[1] = st[S_RIDING + q]
    steps = 0
    for e in range(N_ECHIDNAS):
        if st[S_EBUG + e] == q:
            steps += rider_dist(geo, stumps, st[S_EPOS + e])
    f[3] = steps
    f[4] = hand * rider_dist(geo, stumps, pk)
    wait = 0.0
    wait2 = 0.0
    trf = 0.0
    wide = 0.0
    arrows = 0.0
    if hand > 0 and can_take(geo, st, q):
        d1, e1, d2 = pick_minima(geo, st, q)
        wait = min(d1, WAIT_CAP)
        wait2 = min(d2, WAIT_CAP)
        trf = traffic(geo, st, pk, VALUE_RADIUS)
        wide = traffic(geo, st, pk, WIDE_RADIUS)
        arrows = geo[G_NPRED + pk]
    f[2] = wait2
    f[5] = wait
    f[6] = trf
    f[7] = st[S_TOKENS + q]
    total = 0
    strf = 0.0
    m = stumps
    while m != 0:
        u = lowest_bit(m)
        m &= m - 1
        total += geo[G_DIST + pk * MAX_SPACES + u]
        strf += traffic(geo, st, u, STUMP_RADIUS)
    f[8] = total
    f[9] = arrows
    f[10] = wide
    f[11] = strf


@kernel
def seat_score(geo, st, row, q):
    """Seat ``q``'s score under the coefficients of ``row`` for this player count."""
    n = st[S_NPLAYERS]
    base = P_LEAF + (n - 2) * LEAF_SIZE
    f = stack_empty(LEAF_F, np.float64)
    seat_features(geo, st, q, f)
    s = 0.0
    for k in range(LEAF_F):
        s += row[base + k] * f[k]
    off = (q - st[S_CUR]) % n
    if off > 0:
        s += row[base + LEAF_F + off - 1]
    return s


@kernel
def leaf_value(geo, st, row, me):
    """Seat ``me``'s chance of winning from ``st`` by the set-up value of ``row`` (0..1)."""
    n = st[S_NPLAYERS]
    sc = stack_empty(8, np.float64)
    top = -1.0e300
    for q in range(n):
        sc[q] = seat_score(geo, st, row, q)
        if sc[q] > top:
            top = sc[q]
    tot = 0.0
    for q in range(n):
        tot += np.exp(sc[q] - top)
    return np.exp(sc[me] - top) / tot
