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

import math
import warnings

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import (
    binom_tost,
    confint_proportions_2indep,
    power_binom_tost,
    proportion_confint,
    proportion_effectsize,
    test_proportions_2indep,
    tost_proportions_2indep,
)

BALANCED = "balanced"
IMBALANCED = "imbalanced"
INCONCLUSIVE = "inconclusive"

# Power used for the "how many more games" estimate, and the largest count worth suggesting.
TARGET_POWER = 0.8
MAX_GAMES = 10_000_000


def alpha_of(confidence):
    """The test level that goes with a confidence level (0.95 -> 0.05)."""
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence {confidence} is outside [0.5, 1)")
    return 1.0 - confidence


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


def holm(pvalues, alpha):
    """Holm step-down over one family: ``(reject, adjusted p)``; an empty family is fine."""
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    reject, adjusted, _, _ = multipletests(p, alpha=alpha, method="holm")
    return reject, adjusted


def games_for_equivalence(p_alt, center, margin, alpha, power=TARGET_POWER):
    """Games the TOST needs to show ``p_alt`` within ``center +- margin`` with the given power.

    ``inf`` when ``p_alt`` is on or beyond the margin (no number of games would show it).
    """
    if not abs(p_alt - center) < margin:
        return math.inf
    low, upp = max(center - margin, 0.0), min(center + margin, 1.0)
    grid = np.unique(np.geomspace(10, MAX_GAMES, 400).astype(np.int64))
    with np.errstate(all="ignore"):
        pw = np.clip(np.nan_to_num(power_binom_tost(low, upp, grid, p_alt=p_alt, alpha=alpha)), 0, 1)
    # The exact power saw-tooths with n; take the first n from which it stays above the target.
    ok = pw >= power
    if not ok[-1]:
        return math.inf
    bad = np.flatnonzero(~ok)
    return float(grid[bad[-1] + 1] if bad.size else grid[0])


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


def seat_verdicts(cell, wins, nobs, nplayers, margin=0.03, confidence=0.95, estimate_games=True):
    """Verdict per cell on seat balance, from one row per (cell, seat).

    ``cell`` labels rows (0..K-1), ``wins`` the seat's wins, ``nobs`` the cell's games, ``nplayers``
    the cell's seats. Returns a dict of arrays indexed by cell: ``verdict``, ``tost_p`` (largest
    seat TOST p: below alpha means every seat is within the margin), ``outside_p`` (smallest Holm
    adjusted p of "a seat is outside the margin", over every seat of every cell), ``games_needed``
    (total games per cell that would likely settle an inconclusive cell; NaN otherwise, inf when no
    count would), and per row ``row_tost_p``, ``row_outside_p`` (Holm adjusted).

    A cell is *balanced* when every seat passes its equivalence test (an intersection-union test, so
    no correction is needed), *imbalanced* when some seat is outside the margin after Holm over all
    rows, else *inconclusive*.
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
    reject, row_out_adj = holm(row_out, alpha)

    tost_p = np.zeros(ncell)
    np.maximum.at(tost_p, cell, row_tost)
    outside_p = np.ones(ncell)
    np.minimum.at(outside_p, cell, row_out_adj)
    any_reject = np.zeros(ncell, dtype=bool)
    np.logical_or.at(any_reject, cell, reject)
    balanced = tost_p < alpha

    verdict = np.full(ncell, INCONCLUSIVE, dtype=object)
    verdict[balanced] = BALANCED
    verdict[any_reject] = IMBALANCED

    games_needed = np.full(ncell, np.nan)
    if estimate_games:
        rate = np.where(nobs > 0, wins / np.maximum(nobs, 1), center)
        dev = rate - center
        family = max(row_out.size, 1)
        for c in np.flatnonzero(verdict == INCONCLUSIVE):
            rows = np.flatnonzero(cell == c)
            worst = rows[np.argmax(np.abs(dev[rows]))]
            p_alt, c0 = float(rate[worst]), float(center[worst])
            if abs(p_alt - c0) < margin:
                games_needed[c] = games_for_equivalence(p_alt, c0, margin, alpha)
            else:
                # Worst case of Holm: the first step's Bonferroni level, halved for two directions.
                edge = c0 + margin if p_alt > c0 else c0 - margin
                games_needed[c] = games_for_exceedance(p_alt, edge, alpha / (2 * family))
    return {
        "verdict": verdict,
        "tost_p": tost_p,
        "outside_p": outside_p,
        "games_needed": games_needed,
        "row_tost_p": row_tost,
        "row_outside_p": row_out_adj,
    }


def bootstrap_gap(counts, confidence=0.95, resamples=2000, rng=None, n_eff=None):
    """Largest win-rate gap between two seats of one cell, with a bootstrap percentile interval.

    ``counts`` are the wins per seat (each game has exactly one winner). Resampling games with
    replacement makes the counts multinomial at the observed rates, so the bootstrap draws those
    directly, ``n_eff`` of them when the games are clustered (see :func:`design_effect`). The two
    seats are fixed at the observed best and worst. Returns ``(gap, lo, hi, best_seat, worst_seat)``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0 or counts.size < 2:
        return math.nan, math.nan, math.nan, -1, -1
    rng = np.random.default_rng(0) if rng is None else rng
    rates = counts / n
    best, worst = int(np.argmax(rates)), int(np.argmin(rates))
    gap = float(rates[best] - rates[worst])
    draws_n = max(1, round(n if n_eff is None else n_eff))
    draws = rng.multinomial(draws_n, rates, size=resamples)
    boot = (draws[:, best] - draws[:, worst]) / draws_n
    a = alpha_of(confidence)
    lo, hi = np.quantile(boot, [a / 2, 1 - a / 2])
    return gap, float(lo), float(hi), best, worst


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
