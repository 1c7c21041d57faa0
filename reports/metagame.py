"""The meta-game of a strategy pool: its empirical two-player game and its Nash equilibrium.

From head-to-head results (``strategies.metagame`` plays them: for every pair of the pool, A's
share of the wins on each deal, every seat arrangement of the deal played), the *empirical game*
is the symmetric zero-sum matrix ``M[i, j] = share(i beats j) - 1/2``: a row player picks a
strategy, a column player picks one, the row player's payoff is how far above par its strategy
wins. Its Nash equilibrium (a mixture no strategy of the pool beats) says whether one strategy
dominates (the equilibrium is that strategy alone) or the meta-game is mixed (rock-paper-scissors
cycles put several strategies in the support).

Library: ``nashpy`` (Knight and Campbell, JOSS 2018), its linear program for zero-sum games. It is
used rather than alpha-rank (OpenSpiel's ``egt``): the meta-game here is two-player and zero-sum,
where the Nash equilibrium is unique in value, exact and cheap, and ``open-spiel`` is a large
compiled dependency for one function. Alpha-rank's advantage, many-player and general-sum games,
is not needed: 2-against-2 at four players is a two-team zero-sum game.

Stability: :func:`bootstrap` resamples deals (the same deals for every pair, so the matrix's
dependence is kept), solves each resampled game and counts how often each strategy is in the
support, and how often the support is the one of the full sample.

Everything here is pure (arrays in, arrays and frames out); nothing plays a game.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SUPPORT_EPS = 1e-6


def payoff_matrix(per_deal, names):
    """``M`` (len(names) square): ``per_deal[(i, j)]`` are i's per-deal shares against j (only one
    order of each pair is needed: j against i is one minus it)."""
    k = len(names)
    m = np.zeros((k, k))
    for (i, j), x in per_deal.items():
        v = float(np.mean(x)) - 0.5
        m[i, j] = v
        m[j, i] = -v
    return m


def equilibrium(m):
    """``(mixture, value)`` of the zero-sum game with row payoffs ``m`` (nashpy's linear program).
    For the symmetric game ``m = -m.T`` the value is 0 and the mixture is the meta-game's Nash."""
    import nashpy

    m = np.asarray(m, dtype=float)
    row, col = nashpy.Game(m, -m).linear_program()
    row = np.clip(np.asarray(row, dtype=float), 0.0, None)
    row = row / row.sum()
    value = float(row @ m @ np.asarray(col, dtype=float))
    return row, value


def support(mixture, names, eps=SUPPORT_EPS):
    """The names of the strategies the equilibrium plays (weight above ``eps``)."""
    return tuple(n for n, w in zip(names, mixture) if w > eps)


def dominant(m, names):
    """The strategy that beats every other of the pool head to head (``M[i, j] > 0`` for all
    ``j != i``), or ``None``."""
    m = np.asarray(m)
    for i, n in enumerate(names):
        if all(m[i, j] > 0 for j in range(len(names)) if j != i):
            return n
    return None


def bootstrap(per_deal, names, reps=200, seed=0):
    """Resample deals ``reps`` times; per strategy the share of resamples with it in the support,
    and the share of resamples whose support equals the full sample's. Returns
    ``(frame of name, weight, in_support, mean_weight), same_support share``."""
    rng = np.random.default_rng(seed)
    deals = len(next(iter(per_deal.values())))
    full, _ = equilibrium(payoff_matrix(per_deal, names))
    full_support = support(full, names)
    hits = np.zeros(len(names))
    weights = np.zeros(len(names))
    same = 0
    for _ in range(reps):
        idx = rng.integers(0, deals, size=deals)
        mix, _ = equilibrium(payoff_matrix({k: np.asarray(v)[idx] for k, v in per_deal.items()}, names))
        hits += mix > SUPPORT_EPS
        weights += mix
        same += support(mix, names) == full_support
    frame = pd.DataFrame(
        {"strategy": list(names), "weight": full, "in_support": hits / reps, "mean_weight": weights / reps}
    )
    return frame, same / reps


def summary(per_deal, names, reps=200, seed=0):
    """Everything the report and the command print: the matrix (shares, not payoffs), the
    equilibrium, its support, the dominant strategy if any and the bootstrap."""
    m = payoff_matrix(per_deal, names)
    mix, value = equilibrium(m)
    frame, same = bootstrap(per_deal, names, reps, seed)
    sup = support(mix, names)
    dom = dominant(m, names)
    return {
        "names": list(names),
        "shares": (m + 0.5).round(4).tolist(),
        "equilibrium": {n: round(float(w), 4) for n, w in zip(names, mix)},
        "value": round(value, 6),
        "support": list(sup),
        "dominant": dom,
        "verdict": (f"{sup[0]} dominates: the equilibrium plays it alone" if len(sup) == 1
                    else f"mixed: the equilibrium plays {len(sup)} strategies"),
        "bootstrap": {"reps": reps, "same_support": round(same, 3),
                      "in_support": {r["strategy"]: round(r["in_support"], 3) for r in frame.to_dict("records")}},
    }
