"""Statistics shared by the report sections, on plain arrays.

Every interval and test comes from scipy or statsmodels; this module only chooses which one and
how the answers combine:

* rates: Wilson score intervals (``proportion_confint(method="wilson")``);
* means: Student t intervals (``scipy.stats.t.interval``);
* "this seat is within the margin of its fair share 1/N": exact binomial TOST (``binom_tost``);
* "this seat is outside the margin": two one-sided exact binomial tests against the margin's edges
  (``scipy.stats.binom``), doubled for the two directions, Holm-corrected over all tests of a run;
* how many games would likely settle an open question: ``power_binom_tost`` (equivalence) or the
  one-sample ``NormalIndPower`` (a seat beyond the margin), at the observed win rates.

The seat verdict (:func:`seat_verdicts`) is vectorised over cells so the A/A check in the tests can
replay hundreds of synthetic runs in a second.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy import stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import (
    binom_tost,
    confint_proportions_2indep,
    proportion_confint,
    proportion_effectsize,
    test_proportions_2indep,
    tost_proportions_2indep,
)

from stats.words import (  # the verdict words and levels the runner stops on too
    BALANCED,
    FAIR,
    IMBALANCED,
    INCONCLUSIVE,
    TARGET_POWER,
    UNDECIDED,
    UNFAIR,
    gate_word,
    verdict_word,
    alpha_of,
    games_for_equivalence,
    holm_adjusted,
)


def wilson(count, nobs, confidence=0.95):
    """Wilson score interval ``(lo, hi)`` of ``count / nobs``; NaN where ``nobs`` is 0."""
    count = np.asarray(count, dtype=float)
    nobs = np.asarray(nobs, dtype=float)
    safe = np.where(nobs > 0, nobs, 1.0)
    lo, hi = proportion_confint(count, safe, alpha=alpha_of(confidence), method="wilson")
    empty = nobs <= 0
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def design_effect(values, cluster):
    """Variance inflation of a mean when the units come in clusters (games of one deal).

    The games of one deal share their setup seed, and a mirror lineup replays the very same game in
    every seat rotation, so they are not independent draws. This is the ratio of the cluster-robust
    variance of the mean (between-cluster totals) to the naive one, pooled over the columns of a 2-D
    ``values``, and clipped to [1, largest cluster]: never credit the design with more precision
    than independent games, never charge it more than one unit per cluster.
    """
    y = np.asarray(values, dtype=float)
    if y.ndim == 1:
        y = y[:, None]
    n = y.shape[0]
    _, inv = np.unique(np.asarray(cluster), return_inverse=True)
    sizes = np.bincount(inv)
    d = sizes.size
    if n < 2 or d < 2 or sizes.max() == 1:
        return 1.0
    mean = y.mean(axis=0)
    totals = np.stack([np.bincount(inv, weights=y[:, j], minlength=d) for j in range(y.shape[1])], axis=1)
    v_cluster = d / (d - 1) * ((totals - sizes[:, None] * mean) ** 2).sum(axis=0) / n**2
    v_naive = y.var(axis=0, ddof=1) / n
    if v_naive.sum() <= 0:
        return 1.0
    return float(np.clip(v_cluster.sum() / v_naive.sum(), 1.0, sizes.max()))


def wilson_clustered(successes, cluster, confidence=0.95):
    """``(rate, lo, hi, effective_n)`` of 0/1 outcomes grouped in clusters (Wilson on the effective n)."""
    y = np.asarray(successes, dtype=float)
    if y.size == 0:
        return math.nan, math.nan, math.nan, 0.0
    rate = float(y.mean())
    n_eff = y.size / design_effect(y, cluster)
    lo, hi = wilson(rate * n_eff, n_eff, confidence)
    return rate, float(lo), float(hi), float(n_eff)


def mean_interval(values, confidence=0.95, cluster=None):
    """``(mean, lo, hi)`` of a sample: Student t interval (NaN bounds for fewer than 2 values).

    With ``cluster`` (one label per value), the standard error is widened by the design effect and
    the degrees of freedom are those of the clusters.
    """
    x = np.asarray(values, dtype=float)
    keep = ~np.isnan(x)
    x = x[keep]
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan, math.nan
    sem = stats.sem(x)
    df = x.size - 1
    if cluster is not None:
        c = np.asarray(cluster)[keep]
        sem *= math.sqrt(design_effect(x, c))
        df = max(np.unique(c).size - 1, 1)
    if sem == 0:
        return mean, mean, mean
    lo, hi = stats.t.interval(confidence, df, loc=mean, scale=sem)
    return mean, float(lo), float(hi)


def equivalence_pvalue(count, nobs, center, margin):
    """Exact binomial TOST p-value that a rate lies strictly within ``center +- margin``."""
    count = np.asarray(count)
    nobs = np.asarray(nobs)
    low = np.clip(np.asarray(center, dtype=float) - margin, 0.0, 1.0)
    upp = np.clip(np.asarray(center, dtype=float) + margin, 0.0, 1.0)
    p, _, _ = binom_tost(count, nobs, low, upp)
    return np.clip(np.asarray(p, dtype=float), 0.0, 1.0)


def outside_pvalue(count, nobs, center, margin):
    """Exact p-value that a rate lies outside ``center +- margin`` (either side).

    The two one-sided binomial tests (above ``center + margin``, below ``center - margin``) are
    combined Bonferroni-style (twice the smaller p), so the test keeps its level even at margin 0.
    """
    count = np.asarray(count, dtype=float)
    nobs = np.asarray(nobs, dtype=float)
    center = np.asarray(center, dtype=float)
    upp = center + margin
    low = center - margin
    # P(X >= count | p = upp) and P(X <= count | p = low); an edge beyond [0, 1] cannot be crossed.
    p_up = np.where(upp < 1, stats.binom.sf(count - 1, nobs, np.clip(upp, 0, 1)), 1.0)
    p_low = np.where(low > 0, stats.binom.cdf(count, nobs, np.clip(low, 0, 1)), 1.0)
    return np.minimum(1.0, 2.0 * np.minimum(p_up, p_low))


def seat_verdict_intervals(wins, nobs, players, verdict, margin=0.03, confidence=0.95):
    """Every seat's interval at the level of its cell's word (exact binomial, Clopper-Pearson, as the
    tests of :func:`seat_verdicts` without a gap margin): ``(lo, hi, level)``, ``level`` one-sided.

    * fair: each end a one-sided bound at alpha, the TOST's own ``1 - 2 alpha`` interval: every
      seat's lies inside ``1/N +- margin`` exactly when the cell is fair;
    * unfair: a seat shown outside after Holm at its Holm step level (each end at
      ``alpha / (2 (m - rank))``, the doubled one-sided test), so its interval lies beyond the
      margin; the other seats at ``alpha / (2 m)``;
    * undecided: every seat at ``alpha / (2 m)`` (simultaneous over the ``m`` seats).
    """
    wins = np.asarray(wins, dtype=float)
    m = wins.size
    alpha = alpha_of(confidence)
    level = np.full(m, alpha if verdict == FAIR else alpha / (2 * m))
    if verdict == UNFAIR:
        p = outside_pvalue(wins, nobs, 1.0 / players, margin)
        for rank, seat in enumerate(np.argsort(p, kind="stable")):
            if p[seat] * (m - rank) >= alpha:  # Holm stops at its first seat not shown outside
                break
            level[seat] = alpha / (2 * (m - rank))
    n = np.full(m, float(nobs))
    safe = np.maximum(n, 1.0)
    lo, hi = proportion_confint(wins, safe, alpha=2 * level, method="beta")
    lo, hi = np.where(n > 0, lo, np.nan), np.where(n > 0, hi, np.nan)
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float), level


def holm(pvalues, alpha):
    """Holm step-down over one family: ``(reject, adjusted p)``; an empty family is fine.

    ``reject`` is the step-down itself (the i-th smallest p against ``alpha / (m - i)`` until one
    stays), as ``statsmodels.stats.multitest.multipletests(p, alpha, "holm")`` gives it.
    """
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    adjusted = holm_adjusted(p)
    order = np.argsort(p, kind="stable")
    steps = np.logical_and.accumulate(p[order] <= alpha / (p.size - np.arange(p.size)))
    reject = np.empty(p.size, dtype=bool)
    reject[order] = steps
    return reject, adjusted


def games_for_exceedance(p_alt, edge, alpha, power=TARGET_POWER):
    """Games a one-sided test at level ``alpha`` needs to show ``p_alt`` beyond ``edge``."""
    if not 0 < edge < 1 or p_alt == edge:
        return math.inf
    effect = abs(float(proportion_effectsize(p_alt, edge)))
    try:
        n = NormalIndPower().solve_power(
            effect_size=effect, nobs1=None, alpha=alpha, power=power, ratio=0, alternative="larger"
        )
    except (ValueError, RuntimeError):
        return math.inf
    n = float(np.asarray(n).squeeze())
    return n if np.isfinite(n) and n > 0 else math.inf


def seat_verdicts(
    cell, wins, nobs, nplayers, margin=0.03, confidence=0.95, estimate_games=True, gap_margin=None, family="cell"
):
    """Verdict per cell on seat balance, from one row per (cell, seat).

    ``cell`` labels rows (0..K-1), ``wins`` the seat's wins, ``nobs`` the cell's (effective) games,
    ``nplayers`` the cell's seats. Returns a dict of arrays indexed by cell: ``verdict``, ``tost_p``
    (largest TOST p of the cell: below alpha means every seat, and with ``gap_margin`` every pair of
    seats, is within its margin), ``outside_p`` (smallest Holm-adjusted p of "outside the margin"
    within the cell), ``games_needed`` (total games per cell that would likely settle an
    undecided cell; NaN otherwise, inf when no count would), the run-wide readings
    ``imbalanced_run`` (still outside after Holm over every test of every cell) and
    ``balanced_run`` (equivalence shown at alpha / K, Bonferroni over the K cells), and per row
    ``row_tost_p``, ``row_outside_p`` (Holm-adjusted within the cell).

    A cell is *fair* when every seat passes its equivalence test against 1/N +- margin (an
    intersection-union test: the chance of calling a cell fair when some seat is outside the
    margin is at most alpha, with no correction); *unfair* when some seat is outside the margin
    after Holm over the seats of that cell (the chance of calling a cell unfair when every seat
    is within the margin is at most alpha); else *undecided*. Both errors are controlled per
    cell, so a cell's verdict does not depend on which other cells the run holds. With
    ``gap_margin`` the pairs of seats join both tests: fair also needs every pair within
    ``gap_margin`` of each other, and a pair shown further apart also makes the cell unfair
    (its test joins the cell's Holm family). ``family="run"`` corrects "unfair" over the whole
    run instead (the old reading, kept for comparison).
    """
    cell = np.asarray(cell, dtype=np.int64)
    wins = np.asarray(wins, dtype=np.int64)
    nobs = np.asarray(nobs, dtype=np.int64)
    nplayers = np.asarray(nplayers, dtype=np.int64)
    alpha = alpha_of(confidence)
    ncell = int(cell.max()) + 1 if cell.size else 0
    center = 1.0 / nplayers

    row_tost = equivalence_pvalue(wins, nobs, center, margin)
    row_out = outside_pvalue(wins, nobs, center, margin)
    tost_p = np.zeros(ncell)
    np.maximum.at(tost_p, cell, row_tost)

    # One family per cell: the seats' outside tests, plus the pairs' when a gap margin is set.
    fam_p, fam_cell = [row_out], [cell]
    if gap_margin is not None:
        for c in range(ncell):
            rows = np.flatnonzero(cell == c)
            if rows.size < 2:
                continue
            n = float(nobs[rows[0]])
            p_within, p_pairs = gap_tests(wins[rows] / max(n, 1.0), n, gap_margin)
            tost_p[c] = max(tost_p[c], p_within)
            fam_p.append(p_pairs)
            fam_cell.append(np.full(p_pairs.size, c))
    all_p, all_cell = np.concatenate(fam_p), np.concatenate(fam_cell)
    adj_cell = holm_by_group(all_p, all_cell)
    adj_run = holm_by_group(all_p, np.zeros(all_p.size, dtype=np.int64))
    adj = adj_run if family == "run" else adj_cell
    row_out_adj = adj[: row_out.size]

    outside_p = np.ones(ncell)
    np.minimum.at(outside_p, all_cell, adj)
    run_p = np.ones(ncell)
    np.minimum.at(run_p, all_cell, adj_run)
    fair = tost_p < alpha
    any_reject = outside_p < alpha

    verdict = np.full(ncell, UNDECIDED, dtype=object)
    verdict[fair] = FAIR
    verdict[any_reject] = UNFAIR

    games_needed = np.full(ncell, np.nan)
    if estimate_games:
        rate = np.where(nobs > 0, wins / np.maximum(nobs, 1), center)
        dev = rate - center
        for c in np.flatnonzero(verdict == UNDECIDED):
            rows = np.flatnonzero(cell == c)
            family_size = max(int((all_cell == c).sum()), 1) if family == "cell" else max(all_p.size, 1)
            worst = rows[np.argmax(np.abs(dev[rows]))]
            p_alt, c0 = float(rate[worst]), float(center[worst])
            if abs(p_alt - c0) < margin:
                games_needed[c] = games_for_equivalence(p_alt, c0, margin, alpha)
            else:
                # Worst case of Holm: the first step's Bonferroni level, halved for two directions.
                edge = c0 + margin if p_alt > c0 else c0 - margin
                games_needed[c] = games_for_exceedance(p_alt, edge, alpha / (2 * family_size))
    return {
        "verdict": verdict,
        "tost_p": tost_p,
        "outside_p": outside_p,
        "games_needed": games_needed,
        "imbalanced_run": run_p < alpha,
        "outside_p_run": run_p,
        "balanced_run": tost_p < alpha / max(ncell, 1),
        "row_tost_p": row_tost,
        "row_outside_p": row_out_adj,
    }


@functools.lru_cache(maxsize=64)
def pair_critical_value(nseats, confidence=0.95):
    """Critical value for simultaneous intervals on every difference of two seats' win rates.

    The win counts of one cell are multinomial; at equal seats the differences of the seats' rates
    behave as differences of independent normals of one common spread, so the largest standardised
    difference follows the studentized range over ``nseats`` groups (Tukey's HSD, infinite degrees of
    freedom), divided by sqrt(2) for the scale of one difference (2 seats: the normal 1.96).
    """
    if nseats < 2:
        return math.nan
    return float(stats.studentized_range.ppf(confidence, nseats, 1e6)) / math.sqrt(2.0)


def pair_table(rates, n_eff):
    """Every ordered seat pair ``(i, j)`` of one cell: ``i, j, d = p_i - p_j, se``.

    ``se`` is the multinomial standard error of the difference, ``sqrt((p_i + p_j - d^2) / n)``, at
    rates shrunk by one game per seat (so a seat that never won still has a spread).
    """
    p = np.asarray(rates, dtype=float)
    k = p.size
    n = max(float(n_eff), 1.0)
    shrunk = (p * n + 1.0) / (n + k)
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    keep = i != j
    i, j = i[keep], j[keep]
    d = p[i] - p[j]
    ds = shrunk[i] - shrunk[j]
    se = np.sqrt(np.maximum(shrunk[i] + shrunk[j] - ds * ds, 1e-12) / n)
    return i, j, d, se


def gap_interval(counts, confidence=0.95, n_eff=None):
    """Largest win-rate gap between two seats, with an interval valid although the seats are picked.

    ``counts`` are the wins per seat (one winner per game), ``n_eff`` the effective games (see
    :func:`design_effect`; default the number of games). Simultaneous intervals over all seat pairs
    (:func:`pair_critical_value`) hold together with the stated confidence; when they do, the true
    largest gap ``max_ij (p_i - p_j)`` lies between the largest lower end and the largest upper end
    (the lower end clipped at 0), whichever seats turn out best and worst. The half-widths carry a
    continuity correction of one game (``1 / n``) for the whole-number counts. Returns
    ``(gap, lo, hi, best_seat, worst_seat)``.
    """
    counts = np.asarray(counts, dtype=float)
    n = float(counts.sum())
    if n <= 0 or counts.size < 2:
        return math.nan, math.nan, math.nan, -1, -1
    n_eff = n if n_eff is None else float(n_eff)
    rates = counts / n
    best, worst = int(np.argmax(rates)), int(np.argmin(rates))
    gap = float(rates[best] - rates[worst])
    _, _, d, se = pair_table(rates, n_eff)
    q = pair_critical_value(counts.size, confidence)
    # Continuity correction: the counts are whole numbers, so widen by one game's worth (1 / n).
    half = q * se + 1.0 / max(n_eff, 1.0)
    lo = max(0.0, float((d - half).max()))
    hi = float((d + half).max())
    return gap, lo, hi, best, worst


def bootstrap_gap(counts, confidence=0.95, resamples=2000, rng=None, n_eff=None):
    """The largest seat gap and its interval: :func:`gap_interval` (kept for callers of the old name).

    The earlier bootstrap fixed the best and worst seats at the observed ones and so covered too
    little (79% at 4 fair seats); ``resamples`` and ``rng`` are no longer used.
    """
    return gap_interval(counts, confidence, n_eff)


def gap_tests(rates, n_eff, gap_margin):
    """``(p_within, p_outside_pairs)`` of the gap margin ``g`` on every seat pair of one cell.

    ``p_within``: every pair's difference is shown inside ``(-g, g)`` (two one-sided z tests per
    pair; the largest p over the pairs, an intersection-union test). ``p_outside_pairs``: per
    unordered pair, the p-value of ``|p_i - p_j| > g`` (the nearer one-sided test, doubled).
    """
    i, j, d, se = pair_table(rates, n_eff)
    keep = i < j
    d, se = d[keep], se[keep]
    p_within = np.maximum(stats.norm.sf((d + gap_margin) / se), stats.norm.cdf((d - gap_margin) / se))
    a = np.abs(d)
    p_out = np.minimum(1.0, 2.0 * stats.norm.sf((a - gap_margin) / se))
    return float(p_within.max()), p_out


def holm_by_group(pvalues, group):
    """Holm step-down within each group of ``group`` (one family per group): adjusted p-values."""
    p = np.where(np.isnan(pvalues), 1.0, np.asarray(pvalues, dtype=float))
    g = np.asarray(group)
    if p.size == 0:
        return p
    out = np.empty_like(p)
    _, inverse = np.unique(g, return_inverse=True)
    order = np.argsort(inverse.ravel(), kind="stable")
    bounds = np.flatnonzero(np.diff(inverse.ravel()[order])) + 1
    for idx in np.split(order, bounds):
        out[idx] = holm_adjusted(p[idx])
    return out


def diff_vs_margin(count1, nobs1, count2, nobs2, margin, confidence=0.95):
    """Compare two independent rates against a margin on their difference.

    Returns ``(diff, lo, hi, outside_p, within_p)``: the difference ``rate1 - rate2`` with its
    Newcombe (Wilson-based) interval, the p-value that ``|diff| > margin`` (the two one-sided Wald
    tests, doubled) and the TOST p-value that ``|diff| < margin``. NaN where a group is empty.
    """
    if nobs1 <= 0 or nobs2 <= 0:
        return (math.nan,) * 5
    alpha = alpha_of(confidence)
    diff = count1 / nobs1 - count2 / nobs2
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # Rates of exactly 0 or 1 make some variance terms 0/0; the score tests still answer.
        warnings.simplefilter("ignore", RuntimeWarning)
        return _diff_tests(count1, nobs1, count2, nobs2, margin, alpha, diff)


def _diff_tests(count1, nobs1, count2, nobs2, margin, alpha, diff):
    lo, hi = confint_proportions_2indep(count1, nobs1, count2, nobs2, method="newcomb", compare="diff", alpha=alpha)
    up = test_proportions_2indep(
        count1, nobs1, count2, nobs2, value=margin, method="score", compare="diff", alternative="larger"
    ).pvalue
    down = test_proportions_2indep(
        count1, nobs1, count2, nobs2, value=-margin, method="score", compare="diff", alternative="smaller"
    ).pvalue
    outside = min(1.0, 2.0 * min(up, down))
    within = tost_proportions_2indep(count1, nobs1, count2, nobs2, -margin, margin, method="score", compare="diff")
    within_p = float(within.pvalue) if hasattr(within, "pvalue") else float(within[0])
    outside = 1.0 if np.isnan(outside) else float(outside)
    within_p = 1.0 if np.isnan(within_p) else within_p
    return float(diff), float(lo), float(hi), outside, within_p


# =========================================================================== seat and strategy together

# A coefficient beyond this (a factor of e^12 in the odds) means the data cannot pin it down: a
# strategy that wins (almost) every game, or a seat that never wins.
MAX_LOGIT = 12.0


def _logit_design(strat, nstrategies):
    """The design of the seat-and-strategy logit: one column per seat but the first, one per strategy
    but the first; ``(rows, N, k)`` and ``k``."""
    rows, n = strat.shape
    k = (n - 1) + (nstrategies - 1)
    x = np.zeros((rows, n, k))
    for s in range(1, n):
        x[:, s, s - 1] = 1.0
    for j in range(1, nstrategies):
        x[:, :, n - 1 + j - 1] = strat == j
    return x, k


def _logit_parts(x, b):
    """Utilities (shifted) and choice probabilities of each seat, per row."""
    u = x @ b
    u -= u.max(axis=1, keepdims=True)
    p = np.exp(u)
    p /= p.sum(axis=1, keepdims=True)
    return u, p


def _logit_fit(nll, grad, hess, k):
    """Trust-region Newton fit on the exact gradient and Hessian: ``(b, ok, inverse Hessian)``."""
    from scipy.optimize import minimize

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = minimize(nll, np.zeros(k), jac=grad, hess=hess, method="trust-exact", options={"maxiter": 200})
    b = fit.x
    ok = bool(fit.success) and np.all(np.isfinite(b)) and np.abs(b).max(initial=0) < MAX_LOGIT
    try:
        hinv = np.linalg.inv(hess(b))
    except np.linalg.LinAlgError:
        ok = False
        hinv = np.full((k, k), np.nan)
    return b, ok, hinv


def _logit_result(out, b, ok, cov, n):
    """Fill the fit's result dict from the coefficients and their covariance."""
    out["theta"][1:] = b[: n - 1]
    out["cov_theta"] = np.zeros((n, n))
    out["cov_theta"][1:, 1:] = cov[: n - 1, : n - 1]
    out["beta"][1:] = b[n - 1 :]
    out["identified"] = ok and bool(np.all(np.isfinite(cov)))
    return out


def conditional_logit(winner, strategy, deal, nstrategies):
    """Seat and strategy effects on who wins, fitted on per-game winners (McFadden's conditional logit).

    Each game's winner is one of its seats, with ``P(seat s wins) ∝ exp(theta[s] + beta[strategy at
    s])`` (seat 0 and strategy 0 are the references at 0): the Plackett-Luce model cut to the first
    place. Rotating the lineup over the seats lets the two kinds of effect be told apart. ``winner``
    is ``(G,)`` seats, ``strategy`` ``(G, N)`` strategy indices per seat, ``deal`` ``(G,)`` labels
    of the deals. The covariance is the cluster-robust sandwich over deals (the games of one deal
    share their setup), with the small-sample factor D / (D - 1).

    Returns a dict: ``theta`` (N,), ``cov_theta`` (N, N, seat 0's row and column 0), ``beta``
    (nstrategies,), ``identified`` (False when the fit failed or a coefficient ran past
    :data:`MAX_LOGIT`), ``deals``. Fitted with scipy's trust-region Newton method on the exact
    gradient and Hessian.
    """
    winner = np.asarray(winner, dtype=np.int64)
    strat = np.asarray(strategy, dtype=np.int64)
    g, n = strat.shape
    x, k = _logit_design(strat, nstrategies)
    xw = x[np.arange(g), winner]

    def parts(b):
        return _logit_parts(x, b)

    def nll(b):
        u, _ = parts(b)
        return -(u[np.arange(g), winner] - np.log(np.exp(u).sum(axis=1))).sum()

    def grad(b):
        _, p = parts(b)
        return -(xw - np.einsum("gs,gsk->gk", p, x)).sum(axis=0)

    def hess(b):
        _, p = parts(b)
        xbar = np.einsum("gs,gsk->gk", p, x)
        xc = x - xbar[:, None, :]
        return np.einsum("gs,gsk,gsl->kl", p, xc, xc)

    out = {"theta": np.zeros(n), "cov_theta": np.full((n, n), np.nan), "beta": np.zeros(nstrategies)}
    out["deals"] = int(np.unique(deal).size)
    if g < 2 or k == 0:
        out["identified"] = False
        return out
    b, ok, hinv = _logit_fit(nll, grad, hess, k)
    _, p = parts(b)
    score = xw - np.einsum("gs,gsk->gk", p, x)
    _, inv = np.unique(np.asarray(deal), return_inverse=True)
    d = int(inv.max()) + 1
    by_deal = np.zeros((d, k))
    np.add.at(by_deal, inv, score)
    meat = by_deal.T @ by_deal * (d / max(d - 1, 1))
    return _logit_result(out, b, ok, hinv @ meat @ hinv, n)


def conditional_logit_counts(counts, outer, strategy, nstrategies, deals):
    """:func:`conditional_logit` from the counts of its distinct games, the same fit.

    A game's likelihood depends only on its *pattern*: the strategy at each seat (one row of
    ``strategy``, ``(P, N)``) and the winning seat. ``counts`` ``(P, N)`` holds how many games of
    each pattern the cell played; ``outer`` ``(P*N, P*N)`` the sum over deals of the outer product
    of a deal's pattern counts (for the cluster-robust covariance); ``deals`` their number. The
    data of any number of games is then a few dozen numbers."""
    counts = np.asarray(counts, dtype=float)
    strat = np.asarray(strategy, dtype=np.int64)
    p_rows, n = strat.shape
    x, k = _logit_design(strat, nstrategies)
    g = float(counts.sum())
    per_row = counts.sum(axis=1)

    def parts(b):
        return _logit_parts(x, b)

    def nll(b):
        u, _ = parts(b)
        return -(counts * (u - np.log(np.exp(u).sum(axis=1, keepdims=True)))).sum()

    def grad(b):
        _, p = parts(b)
        xbar = np.einsum("rs,rsk->rk", p, x)
        return -(np.einsum("rw,rwk->k", counts, x) - per_row @ xbar)

    def hess(b):
        _, p = parts(b)
        xbar = np.einsum("rs,rsk->rk", p, x)
        xc = x - xbar[:, None, :]
        return np.einsum("r,rs,rsk,rsl->kl", per_row, p, xc, xc)

    out = {"theta": np.zeros(n), "cov_theta": np.full((n, n), np.nan), "beta": np.zeros(nstrategies)}
    out["deals"] = int(deals)
    if g < 2 or k == 0:
        out["identified"] = False
        return out
    b, ok, hinv = _logit_fit(nll, grad, hess, k)
    _, p = parts(b)
    score = (x - np.einsum("rs,rsk->rk", p, x)[:, None, :]).reshape(p_rows * n, k)  # per pattern (row, winner)
    d = max(int(deals), 1)
    meat = score.T @ np.asarray(outer, dtype=float) @ score * (d / max(d - 1, 1))
    return _logit_result(out, b, ok, hinv @ meat @ hinv, n)


def seat_shares(theta, cov_theta):
    """Win rate of each seat among equal players, ``softmax(theta)``, and its covariance (delta method)."""
    theta = np.asarray(theta, dtype=float)
    e = np.exp(theta - theta.max())
    pi = e / e.sum()
    jac = np.diag(pi) - np.outer(pi, pi)
    return pi, jac @ np.asarray(cov_theta, dtype=float) @ jac.T


def normal_seat_verdict(pi, cov, margin, confidence=0.95, gap_margin=None):
    """The seat verdict of one cell from estimated seat rates ``pi`` with covariance ``cov`` (z tests).

    The same reading as :func:`seat_verdicts` (equivalence by intersection-union, outside by Holm
    within the cell), with normal tests in place of the exact binomial ones, for rates that come
    from a model. The gap interval is simultaneous over the pairs by Bonferroni (valid for any
    covariance). Returns a dict: ``verdict``, ``tost_p``, ``outside_p``, ``se`` (per seat),
    ``gap``, ``gap_lo``, ``gap_hi``, ``best``, ``worst``.
    """
    pi = np.asarray(pi, dtype=float)
    cov = np.asarray(cov, dtype=float)
    n = pi.size
    alpha = alpha_of(confidence)
    c = 1.0 / n
    se = np.sqrt(np.maximum(np.diag(cov), 1e-18))
    p_tost = np.maximum(stats.norm.sf((pi - c + margin) / se), stats.norm.cdf((pi - c - margin) / se))
    p_out = np.minimum(1.0, 2.0 * stats.norm.sf((np.abs(pi - c) - margin) / se))
    i, j = np.triu_indices(n, 1)
    d = pi[i] - pi[j]
    se_d = np.sqrt(np.maximum(cov[i, i] + cov[j, j] - 2 * cov[i, j], 1e-18))
    tests = [p_out]
    tost = float(p_tost.max())
    if gap_margin is not None:
        tost = max(tost, float(np.max(np.maximum(stats.norm.sf((d + gap_margin) / se_d), stats.norm.cdf((d - gap_margin) / se_d)))))
        tests.append(np.minimum(1.0, 2.0 * stats.norm.sf((np.abs(d) - gap_margin) / se_d)))
    allp = np.concatenate(tests)
    outside = float(holm_by_group(allp, np.zeros(allp.size, dtype=np.int64)).min())
    verdict = UNFAIR if outside < alpha else (FAIR if tost < alpha else UNDECIDED)
    q = stats.norm.ppf(1 - alpha / (2 * max(i.size, 1)))
    ad = np.abs(d)
    best, worst = int(np.argmax(pi)), int(np.argmin(pi))
    return {
        "verdict": verdict,
        "tost_p": tost,
        "outside_p": outside,
        "se": se,
        "gap": float(pi.max() - pi.min()),
        "gap_lo": max(0.0, float((ad - q * se_d).max())),
        "gap_hi": float((ad + q * se_d).max()),
        "best": best,
        "worst": worst,
    }


# =========================================================================== differences of means (the balance regression)


def mean_and_var(n, s, ss):
    """Mean of the per-deal values and the variance of that mean; NaN variance where ``n < 2``."""
    n = np.asarray(n, dtype=float)
    s = np.asarray(s, dtype=float)
    ss = np.asarray(ss, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        var = np.clip(ss - s * s / n, 0.0, None) / (n - 1)
        # Floating-point residue of a constant figure: treat as zero variance.
        var = np.where(var <= 1e-12 * np.maximum(1.0, mean * mean), 0.0, var)
        var_mean = np.where(n >= 2, var / n, np.nan)
    return mean, var_mean


def difference(base, cur):
    """``(d, se, df)`` of ``now - baseline`` from two ``(n, sum, sumsq)`` triples (Welch)."""
    m0, v0 = mean_and_var(*base)
    m1, v1 = mean_and_var(*cur)
    n0 = np.asarray(base[0], dtype=float)
    n1 = np.asarray(cur[0], dtype=float)
    d = m1 - m0
    se = np.sqrt(v0 + v1)
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.where(n0 > 1, v0 * v0 / (n0 - 1), 0.0) + np.where(n1 > 1, v1 * v1 / (n1 - 1), 0.0)
        df = np.where(den > 0, (v0 + v1) ** 2 / den, np.inf)
    return d, se, df


def margin_tests(d, se, df, margin):
    """``(p_equivalent, p_beyond)`` for ``|d| < margin`` (TOST) and ``|d| > margin``.

    With no spread at all (``se == 0``) the difference is known exactly; with an undefined one
    (too few deals) both p-values are 1.
    """
    d, se, df, margin = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (d, se, df, margin)))
    ok = np.isfinite(d) & np.isfinite(se)
    pos = ok & (se > 0)
    safe_se = np.where(pos, se, 1.0)
    safe_d = np.where(ok, d, 0.0)
    t_lo = (safe_d + margin) / safe_se  # against d <= -m
    t_hi = (safe_d - margin) / safe_se  # against d >= +m
    p_equiv = np.maximum(stats.t.sf(t_lo, df), stats.t.cdf(t_hi, df))
    # H0 |d| <= m is least favourable at |d| = m: the p-value is P(|D| >= |observed|) there.
    a = np.abs(safe_d)
    p_beyond = np.minimum(1.0, stats.t.sf((a - margin) / safe_se, df) + stats.t.cdf((-a - margin) / safe_se, df))
    exact = ok & (se == 0)
    p_equiv = np.where(exact, np.where(np.abs(safe_d) < margin, 0.0, 1.0), p_equiv)
    p_beyond = np.where(exact, np.where(np.abs(safe_d) > margin, 0.0, 1.0), p_beyond)
    p_equiv = np.where(ok, p_equiv, 1.0)
    p_beyond = np.where(ok, p_beyond, 1.0)
    return p_equiv, p_beyond


def confidence_interval(d, se, df, alpha):
    """Two-sided ``1 - alpha`` interval of the difference."""
    q = stats.t.ppf(1 - np.asarray(alpha, dtype=float) / 2, df)
    with np.errstate(invalid="ignore"):
        half = np.where(np.asarray(se) > 0, q * se, 0.0)
    return d - half, d + half


def step_levels(p, level, axis=-1):
    """Holm's level for each test: ``level / (m - rank)`` by the rank of its p-value (0 = smallest)."""
    p = np.where(np.isnan(p), 1.0, np.asarray(p, dtype=float))
    m = p.shape[axis]
    rank = np.argsort(np.argsort(p, axis=axis, kind="stable"), axis=axis, kind="stable")
    return level / (m - rank)


def power_change(margin, se, df, level, power=TARGET_POWER):
    """Smallest true change the fail test catches with the given power: ``m + (t_(1-level) + t_power) se``.

    ``level`` is the first step of Holm (``alpha / figures``), the strictest one, so the figure is an
    upper bound of the change caught that often.
    """
    df = np.where(np.isfinite(df), df, 1e9)
    return np.asarray(margin) + (stats.t.ppf(1 - level, df) + stats.t.ppf(power, df)) * np.asarray(se)


def t_interval(x, confidence=0.95):
    """``(mean, lo, hi, se)``: the Student t interval of the mean of ``x`` (NaNs when fewer than 2)."""
    n = len(x)
    m = float(np.mean(x)) if n else float("nan")
    if n < 2:
        return m, float("nan"), float("nan"), float("nan")
    se = float(np.std(x, ddof=1)) / np.sqrt(n)
    if se == 0:
        return m, m, m, 0.0
    q = stats.t.ppf(0.5 + confidence / 2, n - 1)
    return m, m - q * se, m + q * se, se


def t_tost_p(mean, se, n, margin):
    """The TOST p-value (Student t, ``n - 1`` degrees of freedom) that ``|mean| < margin``."""
    if not np.isfinite(se) or n < 2:
        return float("nan")
    if se == 0:
        return 0.0 if abs(mean) < margin else 1.0
    lo = 1 - stats.t.cdf((mean + margin) / se, n - 1)
    hi = stats.t.cdf((mean - margin) / se, n - 1)
    return float(max(lo, hi))


def t_outside_p(mean, se, n, margin):
    """One-sided p that |change| > margin (the nearer side)."""
    if not np.isfinite(se) or n < 2:
        return float("nan")
    if se == 0:
        return 0.0 if abs(mean) > margin else 1.0
    return float(1 - stats.t.cdf((abs(mean) - margin) / se, n - 1))


def simultaneous_interval(effect, se, df, alpha, k):
    """``(lo, hi)``: the interval of an effect at level 1 - alpha / k (Bonferroni over k intervals)."""
    q = stats.t.ppf(1.0 - alpha / (2 * k), np.maximum(np.asarray(df, dtype=float), 1))
    return effect - q * se, effect + q * se


def seat_chisquare(counts, deff=1.0):
    """``(statistic, p)``: Pearson's chi-square test that every seat wins alike, on the wins per seat
    deflated by the design effect ``deff`` (the deal as the unit)."""
    res = stats.chisquare(np.asarray(counts, dtype=float) / deff)
    return float(res.statistic), float(res.pvalue)


def normal_quantile(p):
    """The standard normal quantile at ``p`` (``normal_quantile(0.975)`` is about 1.96)."""
    return float(stats.norm.ppf(p))
