"""Estimated win chances from the lead record, their calibration, and the uncertainty measure.

The estimate is a *conditional logit* per stage of the game: after round ``r`` (rounds grouped in
stages of :data:`STAGE_ROUNDS`), seat ``s`` of a game wins with chance

    p[s] = exp(b_stage . x[s]) / sum over seats t of exp(b_stage . x[t])

where ``x[s]`` are the seat's standing features less the best other seat's, as the game declares
them (``Game.lead_features``: e.g. bugs home and steps to go, apart; by default the standing, a
score). It uses only what is known after that round (no game length, no final score), so it is a
win chance a spectator could state. The coefficients are fitted by maximum likelihood (scipy) on half the deals and the chances are then
stated for the other half, and the other way round (two-fold cross-fitting): every game's chances
come from a model that never saw it. Calibration is checked on those held-out chances: the Brier
score against the uninformed one (``1/n`` for every seat), and a reliability table (predicted
against observed win rates in bins of the chance).

Uncertainty (Browne's and Ludii's *Uncertainty*: how unsure the outcome stays) is then, per game,
the mean over rounds of the normalised entropy of the chances: 1 when every seat is equally likely
to win, 0 when one is certain.

Pure numpy/scipy on arrays; nothing plays a game.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simulator import games as registry
from simulator.game_api import Game

STAGE_ROUNDS = 5
MAX_STAGE = 7  # rounds from 35 on share the last stage


def standing_parts(game=None):
    """How ``game`` (a registered game or its name; ``None``: the default game) splits a standing
    matrix into the values the estimate weighs apart: its ``Game.lead_features``, else the standing
    itself in tens."""
    g = game if isinstance(game, Game) else registry.get(game)
    return g.lead_features or (lambda s: [s / 10.0])


def features(standing, game=None):
    """``(rounds, seats, k)`` features of a standing matrix of ``game`` (:func:`standing_parts`):
    each seat's value(s) less the best other seat's (a leader's are positive)."""
    s = np.asarray(standing, dtype=np.float64)
    parts = standing_parts(game)(s)
    out = []
    for v in parts:
        n = v.shape[1]
        best_other = np.stack([np.delete(v, p, axis=1).max(axis=1) for p in range(n)], axis=1)
        out.append(v - best_other)
    return np.stack(out, axis=2)


def stage_of(r):
    return min(r // STAGE_ROUNDS, MAX_STAGE)


def _stack(feats, winners, idx):
    """Per stage: (X (m, seats, k), y (m,) winning seat) over the games ``idx`` with a winner."""
    by = {}
    for g in idx:
        w = winners[g]
        if w < 0:
            continue
        f = feats[g]
        for r in range(f.shape[0]):
            by.setdefault(stage_of(r), ([], []))
            by[stage_of(r)][0].append(f[r])
            by[stage_of(r)][1].append(w)
    return {k: (np.asarray(x), np.asarray(y)) for k, (x, y) in by.items()}


def _fit(x, y):
    from scipy.optimize import minimize

    k = x.shape[2]
    rows = np.arange(len(y))

    def nll(b):
        u = x @ b
        u = u - u.max(axis=1, keepdims=True)
        lse = np.log(np.exp(u).sum(axis=1))
        p = np.exp(u - lse[:, None])
        val = -(u[rows, y] - lse).sum() + 1e-3 * (b @ b)
        grad = -(x[rows, y] - (p[:, :, None] * x).sum(axis=1)).sum(axis=0) + 2e-3 * b
        return val, grad

    res = minimize(nll, np.zeros(k), jac=True, method="L-BFGS-B")
    return res.x


def chances(feats, coef):
    """Per game, ``(rounds, seats)`` win chances from per-stage coefficients."""
    out = []
    for f in feats:
        p = np.empty(f.shape[:2])
        for r in range(f.shape[0]):
            b = coef.get(stage_of(r))
            if b is None:
                p[r] = 1.0 / f.shape[1]
                continue
            u = f[r] @ b
            u = np.exp(u - u.max())
            p[r] = u / u.sum()
        out.append(p)
    return out


def cross_fitted(feats, winners, deals, seed=0):
    """Every game's held-out win chances (two folds split by deal), and each fold's coefficients."""
    winners = np.asarray(winners)
    deals = np.asarray(deals)
    rng = np.random.default_rng(seed)
    uniq = np.unique(deals)
    fold_of = dict(zip(uniq, rng.permutation(len(uniq)) % 2))
    fold = np.array([fold_of[d] for d in deals])
    out = [None] * len(feats)
    coefs = []
    for k in (0, 1):
        train = np.nonzero(fold != k)[0]
        test = np.nonzero(fold == k)[0]
        coef = {st: _fit(x, y) for st, (x, y) in _stack(feats, winners, train).items()}
        coefs.append(coef)
        for g, p in zip(test, chances([feats[g] for g in test], coef)):
            out[g] = p
    return out, coefs


def calibration(probs, winners, bins=10):
    """``(brier, brier of 1/n, reliability frame)`` over every seat-round of the games with a
    winner: the reliability frame has per bin of the chance the mean chance, the observed win rate
    and the count."""
    ps, ys, base = [], [], []
    for p, w in zip(probs, winners):
        if w < 0:
            continue
        y = np.zeros_like(p)
        y[:, w] = 1.0
        ps.append(p.ravel())
        ys.append(y.ravel())
        base.append(np.full(p.size, 1.0 / p.shape[1]))
    p, y, b = np.concatenate(ps), np.concatenate(ys), np.concatenate(base)
    brier = float(((p - y) ** 2).mean())
    brier0 = float(((b - y) ** 2).mean())
    edges = np.linspace(0, 1, bins + 1)
    k = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
    rel = pd.DataFrame({"bin": k, "p": p, "y": y}).groupby("bin").agg(predicted=("p", "mean"), observed=("y", "mean"),
                                                                      count=("y", "size")).reset_index()
    return brier, brier0, rel


def uncertainty(p):
    """Mean over rounds of the normalised entropy of one game's win chances (1: all equal, 0: certain)."""
    p = np.asarray(p, dtype=float)
    n = p.shape[1]
    if n < 2 or len(p) == 0:
        return math.nan
    q = np.clip(p, 1e-12, 1.0)
    h = -(q * np.log(q)).sum(axis=1) / math.log(n)
    return float(h.mean())


def run_chances(keys, standings, winners, seed=0, min_games=100, game=None):
    """Held-out win chances of a run's games of ``game`` (a registered game or its name, the
    manifest's; ``None``: the default game), fitted per player count (over its settings): a list
    of ``(rounds, seats)`` arrays (``None`` for a player count with fewer than ``min_games`` games
    with a winner), and per player count ``(brier, brier of 1/n, reliability frame, games)``."""
    game = game if isinstance(game, Game) else registry.get(game)
    out = [None] * len(standings)
    calib = {}
    winners = np.asarray(winners)
    for n, grp in keys.groupby("players"):
        idx = grp.index.to_numpy()
        if int((winners[idx] >= 0).sum()) < min_games:
            continue
        feats = [features(standings[i], game) for i in idx]
        deals = (grp["deal"].astype(str) + "|" + grp["setting"]).to_numpy()
        probs, _ = cross_fitted(feats, winners[idx], deals, seed)
        for i, p in zip(idx, probs):
            out[i] = p
        b, b0, rel = calibration(probs, winners[idx])
        calib[int(n)] = (b, b0, rel, int((winners[idx] >= 0).sum()))
    return out, calib
