"""The search's learned leaf: a seat's expected final score from a state before the end, as a linear
sum of a few features of the state, with coefficients fitted on self-play outcomes.

The features (``layout.LEAF_FEATURES``) are the hand leaf's terms taken apart (``search.leaf_scores``:
points so far, expected brag awards, expected unbuilt penalty, expected objective awards, ready cats,
tokens), each also scaled by the share of the game left, plus the seat's place in the turn order.
So the hand leaf is one point of the model (``hand_coefficients`` in ``simulator.shuffle_swing.leaf_model``), and a
fit can only move from it where the outcomes say so. The coefficients are data: a file of
``simulator/shuffle_swing/data/leaf/`` read into the strategy row (``P_LEAF_COEF``, one block per
player count), written by ``python -m simulator.shuffle_swing.leaf_model fit`` from a seed; never by hand.

``leaf_samples`` plays one game and records every seat's features before every turn, for the fit.
"""

import numpy as np

from simulator.kernel_common import rng_next, stack_empty
from simulator.shuffle_swing.kernel.core import kernel, kernel_alloc, owner_present
from simulator.shuffle_swing.kernel.objectives import preview_section, section_open_spaces
from simulator.shuffle_swing.kernel.policy import game_progress
from simulator.shuffle_swing.kernel.rules import cube_level, inst_base
from simulator.shuffle_swing.kernel.turn import play_turn_basic, setup_game
from simulator.shuffle_swing.layout import (
    I_NSECTIONS,
    I_PENALTY,
    I_TRACK_VP,
    MAX_SECTIONS,
    N_DEPT,
    N_LEAF_FEAT,
    N_OWNERS,
    S_BRAG_POS,
    S_CUR,
    S_EMPTY,
    S_ENDING,
    S_NPLAYERS,
    S_OVER,
    S_READY,
    S_SCORE,
    S_SEC_STATE,
    S_TOKENS,
)

# Offsets into ``layout.LEAF_FEATURES`` (a test checks they follow the names).
F_SCORE = 0
F_BRAG = 1
F_REACH = 2
F_PENALTY = 3
F_OBJECTIVES = 4
F_CATS = 5
F_TOKENS = 6
F_LEFT_FIRST = 7  # F_BRAG .. F_TOKENS times the share left, in that order
F_ORDER = 13
F_LEFT = 14
F_ONE = 15
# The search's ``leaf`` settings array: [cat worth, token worth, potential, model flag, coefficients].
LEAF_MODEL = 3
LEAF_COEF = 4
LEAF_SIZE = LEAF_COEF + N_LEAF_FEAT
FEATS_SIZE = N_OWNERS * N_LEAF_FEAT  # every seat's features of one state


@kernel
def built_chances(st, chance):
    """``chance[d]``: a rough probability that instrument ``d`` is built when the game ends (R11: the
    end comes once two are built). A built one is certain; once the end is triggered no other is
    counted on; otherwise the unbuilt ones share the builds still needed, the fewer empty spaces the
    likelier: ``1 - e_d^2 / sum(e^2)`` over the unbuilt instruments, which sums to the builds needed."""
    total = 0.0
    for d in range(N_DEPT):
        e = st[S_EMPTY + d]
        total += float(e) * e
    for d in range(N_DEPT):
        e = st[S_EMPTY + d]
        if e == 0:
            chance[d] = 1.0
        elif st[S_ENDING] != 0:
            chance[d] = 0.0
        else:
            chance[d] = 1.0 - float(e) * e / total


@kernel
def last_brag(st, d):
    """``(low, nlow)``: the lowest brag position on department ``d``'s track among the players present
    and how many share it (who pays an unbuilt instrument's penalty, R12)."""
    low = 99
    nlow = 0
    for o in range(N_OWNERS):
        pos = st[S_BRAG_POS + d * N_OWNERS + o]
        if pos >= 0 and owner_present(st, o):
            if pos < low:
                low = pos
                nlow = 1
            elif pos == low:
                nlow += 1
    return low, nlow


@kernel
def leaf_features(st, geo, feats):
    """``feats[o * N_LEAF_FEAT + k]``: feature ``k`` of ``layout.LEAF_FEATURES`` for seat ``o`` (0 for
    the seats past the player count). The same terms as ``search.leaf_scores`` (R10, R12, R14),
    kept apart."""
    npl = st[S_NPLAYERS]
    chance = stack_empty(N_DEPT, np.float64)
    built_chances(st, chance)
    pts = stack_empty(N_OWNERS, np.int64)
    for i in range(FEATS_SIZE):
        feats[i] = 0.0
    for o in range(npl):
        f = o * N_LEAF_FEAT
        feats[f + F_SCORE] = float(st[S_SCORE + o])
        feats[f + F_CATS] = float(st[S_READY + o * 3] + st[S_READY + o * 3 + 1] + st[S_READY + o * 3 + 2])
        feats[f + F_TOKENS] = float(st[S_TOKENS + o * 3] + st[S_TOKENS + o * 3 + 1] + st[S_TOKENS + o * 3 + 2])
    for d in range(N_DEPT):
        base = inst_base(d)
        pb = chance[d]
        empty = st[S_EMPTY + d]
        low, nlow = last_brag(st, d) if empty > 0 else (99, 0)
        for o in range(npl):
            f = o * N_LEAF_FEAT
            disc = st[S_BRAG_POS + d * N_OWNERS + o]
            lvl = cube_level(st, geo, d, o)
            k = disc if disc < lvl else lvl
            h = disc if disc > lvl else lvl
            if k >= 0 and pb > 0.0:
                lo = geo[base + I_TRACK_VP + k]
                feats[f + F_BRAG] += pb * lo
                feats[f + F_REACH] += pb * (geo[base + I_TRACK_VP + h] - lo)
            if empty > 0 and nlow > 0 and disc == low:
                feats[f + F_PENALTY] -= (1.0 - pb) * ((geo[base + I_PENALTY] * empty) // nlow)
        for s in range(geo[base + I_NSECTIONS]):
            if st[S_SEC_STATE + d * MAX_SECTIONS + s] != 0:
                continue
            open_s = section_open_spaces(st, geo, d, s)
            ps = pb + (1.0 - pb) / (1.0 + open_s)
            preview_section(st, geo, d, s, -1, pts)
            for o in range(npl):
                feats[o * N_LEAF_FEAT + F_OBJECTIVES] += ps * pts[o]
    left = 1.0 - game_progress(st, geo)
    cur = st[S_CUR]
    for o in range(npl):
        f = o * N_LEAF_FEAT
        for j in range(F_TOKENS - F_BRAG + 1):
            feats[f + F_LEFT_FIRST + j] = left * feats[f + F_BRAG + j]
        before = (o - cur) % npl
        feats[f + F_ORDER] = left * before / max(1, npl - 1)
        feats[f + F_LEFT] = left
        feats[f + F_ONE] = 1.0


@kernel
def learned_scores(st, geo, leaf, out):
    """``out[o]``: seat ``o``'s expected final score by the fitted model, the coefficients at
    ``leaf[LEAF_COEF:]`` (the block of this game's player count, ``search.search_setup``)."""
    npl = st[S_NPLAYERS]
    feats = stack_empty(FEATS_SIZE, np.float64)
    leaf_features(st, geo, feats)
    for o in range(N_OWNERS):
        out[o] = 0.0
    for o in range(npl):
        v = 0.0
        for k in range(N_LEAF_FEAT):
            v += leaf[LEAF_COEF + k] * feats[o * N_LEAF_FEAT + k]
        out[o] = v


@kernel_alloc
def leaf_samples(geo, nplayers, strat, seed, feats, finals):
    """Play one game from ``seed`` with every seat on its basic (greedy or random) choice; before
    every turn, every seat's features into ``feats[t]`` (``N_OWNERS * N_LEAF_FEAT``), and the final
    scores into ``finals``. Returns the number of turns recorded (at most ``len(feats)``)."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    rng_next(rng)
    log = np.zeros((1, 8), dtype=np.int32)
    st = setup_game(geo, nplayers, strat, rng, log)
    t = 0
    while st[S_OVER] == 0:
        if t < feats.shape[0]:
            leaf_features(st, geo, feats[t])
            t += 1
        play_turn_basic(st, geo, strat, rng, log)
    for o in range(N_OWNERS):
        finals[o] = st[S_SCORE + o]
    return t
