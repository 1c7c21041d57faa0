"""Hand-built Echidna Shuffle states for tests.

``ring_board(n)`` is a plain loop of ``n`` spaces ``R0 -> R1 -> ... -> R{n-1} -> R0`` (distances are
easy to work out by hand), optionally with extra arrows. ``make_state`` builds a consistent state
on it from a short description::

    setup = ring_setup(players=4)
    st = make_state(setup, echidnas={0: 5, 1: (6, 2)},   # echidna: space or (space, rider colour)
                    picks=[10, 20, 30, 35], stumps={2: [8, 9, 30]})

Echidnas not named stand on the last free spaces of the loop, empty. Bugs in hand are what is
neither riding nor home; ``home`` gives bugs delivered (their stumps must then be absent).
"""

import numpy as np

from simulator.echidna import layout as L
from simulator.echidna.board import Board, EchidnaSetup, Variants, load_rules
from simulator.echidna.strategies import EchidnaStrategyLibrary

LIB = EchidnaStrategyLibrary()


def ring_board(n=40, extra=(), name="ring"):
    arrows = [[(i + 1) % n] for i in range(n)]
    for a, b in extra:
        arrows[a].append(b)
    ids = tuple(f"R{i}" for i in range(n))
    return Board(name, "<test>", ids, tuple([None] * n), tuple(tuple(a) for a in arrows), True, "")


def ring_setup(players=4, variants=Variants(), n=40, extra=()):
    return EchidnaSetup(players, ring_board(n, extra), variants, load_rules())


def make_state(setup, echidnas=None, picks=None, stumps=None, home=None, tokens=None, cur=0, supply=None):
    n = setup.nplayers
    ns = setup.board.nspaces
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    st[L.S_NPLAYERS] = n
    st[L.S_WINNER] = L.NONE
    st[L.S_CUR] = cur
    st[L.S_SPACE : L.S_SPACE + L.MAX_SPACES] = L.NONE
    spec = dict(echidnas or {})
    used = set()
    for e, v in spec.items():
        used.add(v if isinstance(v, int) else v[0])
    free = [s for s in range(ns - 1, -1, -1) if s not in used]
    for e in range(L.N_ECHIDNAS):
        v = spec.get(e)
        if v is None:
            v = free.pop(0)
        s, c = (v, L.NONE) if isinstance(v, int) else v
        st[L.S_EPOS + e] = s
        st[L.S_EBUG + e] = c
        st[L.S_SPACE + s] = e
        st[L.S_OCC] |= 1 << s
    picks = list(picks) if picks is not None else [i * (ns // n) for i in range(n)]
    home = dict(home or {})
    stumps = dict(stumps or {})
    for q in range(n):
        st[L.S_PICK + q] = picks[q]
        h = home.get(q, 0)
        st[L.S_HOME + q] = h
        sp = stumps.get(q, [(picks[q] + 3 + k) % ns for k in range(L.BUGS - h)])
        assert len(sp) == L.BUGS - h
        for u in sp:
            st[L.S_STUMPS + q] |= 1 << u
        riding = int(sum(1 for e in range(L.N_ECHIDNAS) if st[L.S_EBUG + e] == q))
        st[L.S_RIDING + q] = riding
        st[L.S_HAND + q] = L.BUGS - riding - (0 if setup.variants.extra_bugs else h)
    held = 0
    for q, t in (tokens or {}).items():
        st[L.S_TOKENS + q] = t
        held += t
    st[L.S_SUPPLY] = (supply if supply is not None else setup.geo[L.G_SUPPLY] - held)
    st[L.S_OUT] = setup.geo[L.G_SUPPLY] - held - st[L.S_SUPPLY]
    return st


def rows(names):
    return LIB.matrix(names)


def nolog():
    return np.zeros((1, L.LOG_WIDTH), dtype=np.int64)


def big_log(rows=100_000):
    return np.zeros((rows, L.LOG_WIDTH), dtype=np.int64)


def rng(seed=1):
    return np.array([seed], dtype=np.uint64)


def events(log, code=None):
    n = int(log[0, 0])
    ev = log[1 : n + 1]
    return ev if code is None else ev[ev[:, 2] == code]


def work():
    """The per-game work arrays play_game makes: (nolog, tmp, order, score)."""
    return (
        nolog(),
        np.zeros(L.STATE_SIZE, dtype=np.int64),
        np.zeros(L.MAX_SPACES, dtype=np.int64),
        np.zeros(L.MAX_SPACES, dtype=np.float64),
    )
