"""The invariants of an Echidna Shuffle state (``layout.VIOLATIONS``): checked after every turn by
the soak and the tests."""

import numpy as np

from simulator.kernel_common import popcount
from simulator.echidna.kernel.core import kernel
from simulator.echidna.layout import (
    BUGS,
    G_CATCH_UP,
    G_EXTRA_BUGS,
    G_HOME_STRETCH,
    G_HS_CAP,
    G_NSPACES,
    G_RIDING_LIMIT,
    G_SCHED,
    G_SUPPLY,
    MAX_SPACES,
    N_ECHIDNAS,
    NONE,
    S_EBUG,
    S_EPOS,
    S_HAND,
    S_HOME,
    S_NPLAYERS,
    S_OCC,
    S_OUT,
    S_PICK,
    S_RIDING,
    S_SPACE,
    S_STUMPS,
    S_SUPPLY,
    S_TOKENS,
    S_WINNER,
)


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
