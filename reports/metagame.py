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


# =========================================================================== the full player count
#
# From ``strategies.metagame.play_profiles``: per pair (i, j) with i < j, an array (n - 1, deals) of
# i's wins per game with k = 1 .. n-1 seats against j in the others. A mirror gives each seat 1/n.
# Alpha-rank (Omidshafiei et al., "alpha-Rank: Multi-Agent Evaluation by Evolution", Scientific
# Reports 2019), single population, the population being the table itself (n members, one game
# together): a Moran process in which one member switches to another strategy of the pool and its
# strategy spreads or dies out as its win rate at the table beats the residents'. Its stationary
# distribution ranks the pool. Written here (twenty lines of numpy) rather than taken from
# OpenSpiel's ``egt`` module: that module needs the whole compiled ``open_spiel`` package, and the
# fixation probability below is its closed form.

ALPHA = 50.0  # ranking intensity: payoffs are win rates per seat in [0, 1], so 50 x 0.02 = e^1


def seat_payoffs(per_profile, names, nplayers, idx=None):
    """``P[i, j, k - 1]``: the win rate per seat of names[i] with ``k`` seats against names[j] in the
    others (means over the deals ``idx``, all by default); ``P[i, i, :] = 1/n`` (a mirror)."""
    q = len(names)
    p = np.full((q, q, nplayers - 1), 1.0 / nplayers)
    ks = np.arange(1, nplayers)
    for (i, j), x in per_profile.items():
        x = np.asarray(x, dtype=float)
        w = (x if idx is None else x[:, idx]).mean(axis=1)  # i's wins per game with k seats
        p[i, j, :] = w / ks
        p[j, i, :] = (1.0 - w[::-1]) / ks  # j with k seats is i with n - k seats
    return p


def single_deviants(p, names):
    """Per strategy, the best single deviant against it (one seat of another strategy among n - 1 of
    it): ``{name: (deviant, its win rate per seat)}``; a strategy *resists* every single deviant
    when that rate is at most 1/n (a symmetric pure equilibrium of the pool)."""
    q = len(names)
    out = {}
    for s in range(q):
        best, rate = None, -1.0
        for r in range(q):
            if r != s and p[r, s, 0] > rate:
                best, rate = names[r], float(p[r, s, 0])
        out[names[s]] = (best, rate)
    return out


def resisting(p, names, nplayers):
    """The strategies no single deviant beats (its win rate per seat at most 1/n)."""
    return tuple(s for s, (_, rate) in single_deviants(p, names).items() if rate <= 1.0 / nplayers + 1e-12)


def alpharank(p, alpha=ALPHA):
    """Alpha-rank's stationary distribution over the pool (single population, the table of n seats
    as the population): from resident s, a mutant r with k members at the table earns
    ``f_r(k) = P[r, s, k - 1]`` per seat and the residents ``f_s(k) = P[s, r, n - k - 1]``; its
    fixation probability is ``1 / (1 + sum_l prod_{k <= l} exp(-alpha (f_r(k) - f_s(k))))``."""
    q, _, m = p.shape
    n = m + 1
    c = np.zeros((q, q))
    for s in range(q):
        for r in range(q):
            if r == s:
                continue
            d = np.array([p[r, s, k - 1] - p[s, r, n - k - 1] for k in range(1, n)])
            terms = np.exp(-alpha * np.cumsum(d))
            c[s, r] = 1.0 / (q - 1) / (1.0 + terms.sum())
        c[s, s] = 1.0 - c[s].sum()
    vals, vecs = np.linalg.eig(c.T)
    pi = np.abs(np.real(vecs[:, np.argmin(np.abs(vals - 1.0))]))
    return pi / pi.sum()


def team_deals(per_profile, nplayers):
    """The two-team reduction's per-deal shares (the seats split as evenly as they go: 2-2 at 4
    players; at an odd count both splits, equally weighted)."""
    ks = [nplayers // 2] if nplayers % 2 == 0 else [nplayers // 2, nplayers // 2 + 1]
    return {key: np.mean([np.asarray(x)[k - 1] for k in ks], axis=0) for key, x in per_profile.items()}


def _answer(per_profile, names, nplayers, alpha, idx=None):
    """The three answers of one pool on the deals ``idx``: alpha-rank's mass, the strategies no
    single deviant beats, the two-team equilibrium's support."""
    p = seat_payoffs(per_profile, names, nplayers, idx)
    pi = alpharank(p, alpha)
    team = team_deals(per_profile, nplayers)
    if idx is not None:
        team = {k: np.asarray(v)[idx] for k, v in team.items()}
    mix, _ = equilibrium(payoff_matrix(team, names))
    return p, pi, resisting(p, names, nplayers), support(mix, names), mix


def _sub(per_profile, keep):
    """The profiles of the sub-pool ``keep`` (indices into the pool), re-indexed."""
    pos = {old: new for new, old in enumerate(keep)}
    return {(pos[i], pos[j]): x for (i, j), x in per_profile.items() if i in pos and j in pos}


def full_summary(per_profile, names, nplayers, reps=200, seed=0, alpha=ALPHA, pools=None, strong=()):
    """Everything ``ssb strategies meta`` prints and saves for the full player count: per strategy
    its win rate per seat as the single deviant against each other (``deviant``), the strategies no
    single deviant beats, alpha-rank's ranking, the two-team reduction's equilibrium, each with its
    stability under a bootstrap over deals (the same resampled deals for every pair and count); and
    ``pools``: how the answers move with the pool (:func:`pool_moves`)."""
    names = list(names)
    p, pi, res, team_sup, mix = _answer(per_profile, names, nplayers, alpha)
    deals = np.asarray(next(iter(per_profile.values()))).shape[1]
    rng = np.random.default_rng(seed)
    top = names[int(np.argmax(pi))]
    same_top = same_res = same_team = 0
    in_res = np.zeros(len(names))
    for _ in range(reps):
        idx = rng.integers(0, deals, size=deals)
        _, bpi, bres, bteam, _ = _answer(per_profile, names, nplayers, alpha, idx)
        same_top += names[int(np.argmax(bpi))] == top
        same_res += bres == res
        same_team += bteam == team_sup
        in_res += np.array([n in bres for n in names])
    dev = single_deviants(p, names)
    order = np.argsort(-pi, kind="stable")
    return {
        "players": nplayers,
        "names": names,
        "deviant": [[round(float(p[r, s, 0]), 4) for s in range(len(names))] for r in range(len(names))],
        "best_deviant": {s: {"deviant": d, "rate": round(r, 4)} for s, (d, r) in dev.items()},
        "resisting": list(res),
        "alpharank": {"alpha": alpha, "mass": {names[i]: round(float(pi[i]), 4) for i in order}, "first": top},
        "team": {"shares": (payoff_matrix(team_deals(per_profile, nplayers), names) + 0.5).round(4).tolist(),
                 "equilibrium": {n: round(float(w), 4) for n, w in zip(names, mix)}, "support": list(team_sup)},
        "bootstrap": {"reps": reps, "same_first": round(same_top / reps, 3), "same_resisting": round(same_res / reps, 3),
                      "same_team_support": round(same_team / reps, 3),
                      "resisting_share": {n: round(float(v) / reps, 3) for n, v in zip(names, in_res)}},
        "verdict": verdict(top, pi.max(), res, nplayers),
        "pools": pool_moves(per_profile, names, nplayers, alpha, pools, strong),
    }


def verdict(top, mass, res, nplayers):
    """The full-count answer in words."""
    held = (f"{', '.join(res)} " + ("is the only strategy" if len(res) == 1 else "are the strategies")
            + " no single deviant beats" if res else "every strategy is beaten by some single deviant")
    return f"alpha-rank puts {top} first ({100 * mass:.0f}% of the mass); {held} ({nplayers} players)"


def default_pools(names, strong=()):
    """The pools :func:`pool_moves` compares: the whole pool, without its strongest rungs ``strong``
    one by one (the game's ``LadderSpec.meta_strong``: the pool stopping at each rung below), and
    without each strategy in turn."""
    pools = [("the whole pool", tuple(names))]
    for s in strong:
        if s in names:
            pools.append((f"without {s} and above", tuple(n for n in names
                                                          if n not in strong[: strong.index(s) + 1])))
    for n in names:
        pools.append((f"without {n}", tuple(x for x in names if x != n)))
    seen, out = set(), []
    for label, pool in pools:
        if len(pool) >= 2 and pool not in seen:
            seen.add(pool)
            out.append((label, pool))
    return out


def pool_moves(per_profile, names, nplayers, alpha=ALPHA, pools=None, strong=()):
    """How the answer moves with the pool, on the same games (every profile of a sub-pool was played
    for the whole pool): per pool, alpha-rank's first strategy and its mass, the strategies no
    single deviant beats, the two-team equilibrium's support."""
    rows = []
    for label, pool in pools or default_pools(names, strong):
        keep = [names.index(n) for n in pool]
        sub = _sub(per_profile, keep)
        _, pi, res, team_sup, _ = _answer(sub, list(pool), nplayers, alpha)
        rows.append({"pool": label, "strategies": list(pool), "alpharank_first": pool[int(np.argmax(pi))],
                     "mass": round(float(pi.max()), 3), "resisting": list(res), "team_support": list(team_sup)})
    return rows
