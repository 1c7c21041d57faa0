"""Paired-difference confidence sequences: the statistics of the instrument and variant verdicts.

A set is compared with its reference on the same deals (:mod:`scenarios.sequential_sets` schedules
the rounds and reads the measures). For deal ``s`` and measure ``k`` the paired difference is::

    d_k(s) = measure_k(set, s) - measure_k(reference set, s)

**The test.** Each measure's mean difference ``mu_k`` gets a confidence sequence on the paired
differences: an interval that holds at every look at once, so at whatever look the run stops.
It is the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas (2024,
"Time-uniform central limit theory and asymptotic confidence sequences", Theorem 2.2), Robbins'
normal mixture with the running standard deviation ``sd`` of the differences::

    mean +- sd * sqrt( 2 (n r^2 + 1) / (n^2 r^2) * log( sqrt(n r^2 + 1) / a ) )

``r`` tightest at ``DESIGN_DEALS`` deals, fixed before any game. Each of the verdict's ``K``
intervals is at level ``a = alpha / K`` (Bonferroni, the family of the fixed-count verdict: one
instrument, player count and judge). With the margin ``m_k`` and its zone ``z_k = zone x m_k``:

* **out of line** when some measure's interval lies beyond ``+-(m_k - z_k)``. Wrong at most alpha of
  the time when every measure is in truth within ``m_k - z_k``;
* **in line** when every measure's interval lies within ``+-(m_k + z_k)``. Wrong at most alpha of the
  time when some measure is in truth at ``m_k + z_k`` or beyond;
* **open** otherwise: play on. Every truth is strictly inside ``m + z`` or strictly beyond ``m - z``
  and the intervals shrink to a point, so every verdict ends; a measure between ``m - z`` and
  ``m + z`` may be called either way (the price of ending, as the seats' zone test).

The interval is exact for normal differences of known spread and valid as the deals grow otherwise
(its error is measured on synthetic differences of known truth, normal and three-valued like a seat's
win, in ``tests/test_sequential_sets.py`` and ``benchmarks/bench_sequential_sets.py``); on strongly
skewed or rare-jump differences it can miss more often than alpha at the counts a run stops at.

**The finite-sample sequence** (:func:`bounded_sequence`, :func:`bounded_verdict`, the runs'
default): for a measure whose differences lie in a range known before any game (a seat's win, an
unbuilt share: within -1..1) the empirical-Bernstein confidence sequence of Waudby-Smith and Ramdas
(2023) holds at every deal for any distribution in that range (the section below). Objective points
and game length have no range known before the games (a range read from the games would not be
valid either): they keep the asymptotic interval. Both are calibrated side by side in
``tests/test_paired_bounded.py`` and ``benchmarks/bench_paired_calibration.py``.
"""

from __future__ import annotations

import math

import numpy as np

OUT, IN_LINE, OPEN = "out of line", "in line", "open"
CODE = {1: OUT, -1: IN_LINE, 0: OPEN}
DEFAULT_ZONE = 0.2  # each measure's zone, a share of its margin
DESIGN_DEALS = 2000  # the deals at which the intervals are made tightest (fixed, never from the data)
MIN_LOOK = 100  # no verdict before this many paired deals (the running spread needs some deals)
BOUNDED, ASYMPTOTIC = "bounded", "asymptotic"  # the finite-sample sequence (a known range) or the asymptotic one
INTERVALS = (BOUNDED, ASYMPTOTIC)
LAMBDA_CAP = 0.5  # the bounded sequence's largest bet (the paper's choice)


def rho2(alpha, design=DESIGN_DEALS):
    """The mixture's precision for an interval tightest at ``design`` deals (Waudby-Smith et al. 2024,
    section 2.4): (-2 log a + log(1 - 2 log a)) / design."""
    la = -2.0 * np.log(alpha)
    return (la + np.log1p(la)) / design


def half_width(sd, n, alpha, design=DESIGN_DEALS):
    """Half the width of the confidence sequence of a mean after ``n`` differences of spread ``sd``
    (level 1 - ``alpha``, two-sided); arrays broadcast. ``inf`` before the first deal."""
    n = np.asarray(n, dtype=float)
    sd = np.asarray(sd, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    r2 = rho2(alpha, design)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = n * r2 + 1.0
        w = sd * np.sqrt(2.0 * v / (n * n * r2) * np.log(np.sqrt(v) / alpha))
    return np.where(n > 0, w, np.inf)


def zone_codes(lo, hi, margin, zone=DEFAULT_ZONE):
    """Per measure: 1 out of line (beyond ``m - z``), -1 in line (within ``m + z``), 0 open."""
    lo, hi, m = np.asarray(lo, float), np.asarray(hi, float), np.asarray(margin, float)
    out_edge, in_edge = m * (1.0 - zone), m * (1.0 + zone)
    out = (lo > out_edge) | (hi < -out_edge)
    inside = (lo > -in_edge) & (hi < in_edge)
    return np.where(out, 1, np.where(inside, -1, 0))


def verdict(mean, sd, n, margins, zone=DEFAULT_ZONE, confidence=0.95, design=DESIGN_DEALS, min_look=MIN_LOOK):
    """One look at one set: ``mean`` and ``sd`` of its K measures' paired differences after ``n``
    deals, ``margins`` per measure. Returns ``verdict`` (out of line / in line / open), per measure
    ``lo``, ``hi`` (simultaneous: each at alpha / K) and ``codes``, and ``worst``: the measure the
    verdict rests on (the out-of-line one furthest beyond its edge; else the open one nearest a
    decision; else the one nearest its in-line edge)."""
    mean, sd, m = (np.asarray(x, dtype=float).ravel() for x in (mean, sd, margins))
    k = mean.size
    a = (1.0 - confidence) / k
    w = half_width(sd, n, a, design) if n >= min_look else np.full(k, np.inf)
    return _word(mean, mean - w, mean + w, m, zone, a)


def _word(mean, lo, hi, m, zone, a):
    """The verdict of one look from its K intervals (:func:`verdict`)."""
    codes = zone_codes(lo, hi, m, zone)
    if (codes == 1).any():
        word = OUT
        beyond = np.where(codes == 1, np.maximum(lo - m * (1 - zone), -hi - m * (1 - zone)) / m, -np.inf)
        worst = int(np.argmax(beyond))
    elif (codes == -1).all():
        word = IN_LINE
        worst = int(np.argmax(np.maximum(hi, -lo) / m))
    else:
        word = OPEN
        worst = int(np.argmax(np.where(codes == 0, np.abs(mean) / m, -np.inf)))
    return {"verdict": word, "lo": lo, "hi": hi, "codes": codes, "worst": worst, "alpha_each": a}


def deals_to_decide(mean, sd, n, margins, zone=DEFAULT_ZONE, confidence=0.95, design=DESIGN_DEALS):
    """Deals (in all, from 0) from which the verdict would be decided if the estimates held: out of
    line at the first measure whose interval would clear ``m - z``, in line once every interval
    would clear ``m + z`` (an interval on a zone edge: ``inf``). A planning figure for the schedule."""
    mean, sd, m = (np.asarray(x, dtype=float).ravel() for x in (mean, sd, margins))
    a = (1.0 - confidence) / mean.size
    gap_out = np.abs(mean) - m * (1.0 - zone)
    gap_in = m * (1.0 + zone) - np.abs(mean)
    out_n = np.array([_deals_for(s, g, a, design) for s, g in zip(sd, gap_out, strict=True)])
    in_n = np.array([_deals_for(s, g, a, design) for s, g in zip(sd, gap_in, strict=True)])
    return float(max(min(out_n.min(), in_n.max()), n, MIN_LOOK))


def _deals_for(sd, gap, alpha, design, cap=10_000_000):
    """The fewest deals whose half-width is below ``gap`` (bisection on a doubling bracket)."""
    if gap <= 0:
        return math.inf
    if sd <= 0:
        sd = 1e-9
    if half_width(sd, cap, alpha, design) >= gap:
        return math.inf
    lo, hi = 1, 2
    while half_width(sd, hi, alpha, design) >= gap:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if half_width(sd, mid, alpha, design) >= gap:
            lo = mid
        else:
            hi = mid
    return float(hi)


def replay(diffs, margins, every, zone=DEFAULT_ZONE, confidence=0.95, design=DESIGN_DEALS, interval=ASYMPTOTIC,
           radius=None):
    """Synthetic sequences through the run's own look rule, stopping at the first decided look:
    ``diffs`` (sequences x deals x K measures) of paired differences, a look every ``every`` deals,
    with the ``interval`` (:data:`ASYMPTOTIC`, or :data:`BOUNDED` on differences within ``+-radius``
    per measure). Returns per sequence the verdict code (1 out of line, -1 in line, 0 open at the
    last deal) and the deals used. What the calibration (tests, benchmarks/bench_sequential_sets.py)
    measures."""
    diffs = np.asarray(diffs, dtype=float)
    reps, deals, k = diffs.shape
    at = np.arange(every, deals + 1, every)
    n = at[None, :, None].astype(float)
    if interval == BOUNDED:
        lo, hi = bounded_sequence(diffs, radius, (1.0 - confidence) / k)
        lo, hi = lo[:, at - 1, :], hi[:, at - 1, :]
        lo, hi = np.where(n >= MIN_LOOK, lo, -np.inf), np.where(n >= MIN_LOOK, hi, np.inf)
    else:
        s1 = np.cumsum(diffs, axis=1)[:, at - 1, :]
        s2 = np.cumsum(diffs * diffs, axis=1)[:, at - 1, :]
        mean = s1 / n
        sd = np.sqrt(np.maximum(s2 / n - mean * mean, 0.0) * n / np.maximum(n - 1, 1))
        w = half_width(sd, n, (1.0 - confidence) / k, design)
        w = np.where(n >= MIN_LOOK, w, np.inf)
        lo, hi = mean - w, mean + w
    codes = zone_codes(lo, hi, np.asarray(margins, dtype=float), zone)
    code = np.where((codes == 1).any(axis=2), 1, np.where((codes == -1).all(axis=2), -1, 0))
    decided = code != 0
    first = np.where(decided.any(axis=1), decided.argmax(axis=1), len(at) - 1)
    return code[np.arange(reps), first], at[first]


class Running:
    """Sums of paired differences per measure (count, sum, sum of squares, shifted by the first deal
    for precision): the mean and spread of every look without keeping the deals."""

    def __init__(self, k):
        self.n = 0
        self.shift = None
        self.s1 = np.zeros(k)
        self.s2 = np.zeros(k)

    def add(self, d):
        d = np.asarray(d, dtype=float)
        if not len(d):
            return
        if self.shift is None:
            self.shift = d[0].copy()
        x = d - self.shift
        self.n += len(d)
        self.s1 += x.sum(axis=0)
        self.s2 += (x * x).sum(axis=0)

    def mean_sd(self):
        if self.n == 0:
            return np.zeros_like(self.s1), np.zeros_like(self.s1)
        m = self.s1 / self.n
        var = np.maximum(self.s2 / self.n - m * m, 0.0) * (self.n / max(self.n - 1, 1))
        return m + self.shift, np.sqrt(var)


# =========================================================================== the finite-sample sequence
#
# The interval above is asymptotic: on strongly skewed or rare-jump differences its misses run past
# alpha at the sample sizes a run stops at. For a measure whose differences lie in a range known
# before any game (a seat's win difference in [-1, 1], an unbuilt share's in [-1, 1]) the
# predictable plug-in empirical-Bernstein confidence sequence of Waudby-Smith and Ramdas (2023,
# "Estimating means of bounded random variables by betting", JRSS B, Theorem 2) holds at every deal
# for any distribution in that range: a supermartingale argument, no limit theorem. On differences
# rescaled to x in [0, 1]::
#
#     lambda_t = min(C, sqrt(2 log(2/a) / (s2_{t-1} t log(1 + t))))
#     centre   = sum lambda_i x_i / sum lambda_i
#     half     = (log(2/a) + sum v_i psi(lambda_i)) / sum lambda_i,   v_i = 4 (x_i - mean_{i-1})^2
#     psi(l)   = (-log(1 - l) - l) / 4
#
# with the running mean (1/2 + sum x) / (t + 1) and spread (1/4 + sum (x_i - mean_i)^2) / (t + 1), and
# the intervals intersected over the deals. It needs the differences in deal order, not only sums.



def bounded_sequence(diffs, radius, alpha):
    """The empirical-Bernstein confidence sequence of the mean of differences in
    ``[-radius, radius]`` at every deal: ``(lo, hi)`` shaped like ``diffs`` (deals on axis -2,
    measures on the last axis; ``radius`` and ``alpha`` per measure, two-sided level 1 - alpha),
    intersected over the deals so far."""
    d = np.asarray(diffs, dtype=float)
    r = np.broadcast_to(np.asarray(radius, dtype=float), d.shape[-1:])
    x = np.clip((d + r) / (2.0 * r), 0.0, 1.0)
    t = np.arange(1, d.shape[-2] + 1, dtype=float).reshape((-1, 1))
    log2a = np.log(2.0 / np.broadcast_to(np.asarray(alpha, dtype=float), d.shape[-1:]))
    mean_t = (0.5 + np.cumsum(x, axis=-2)) / (t + 1.0)  # the running mean after deal t
    mean_before = np.concatenate([np.full_like(x[..., :1, :], 0.5), mean_t[..., :-1, :]], axis=-2)
    s2_t = (0.25 + np.cumsum((x - mean_t) ** 2, axis=-2)) / (t + 1.0)
    s2_before = np.concatenate([np.full_like(x[..., :1, :], 0.25), s2_t[..., :-1, :]], axis=-2)
    lam = np.minimum(LAMBDA_CAP, np.sqrt(2.0 * log2a / (s2_before * t * np.log1p(t))))
    v = 4.0 * (x - mean_before) ** 2
    psi = (-np.log1p(-lam) - lam) / 4.0
    sl = np.cumsum(lam, axis=-2)
    centre = np.cumsum(lam * x, axis=-2) / sl
    half = (log2a + np.cumsum(v * psi, axis=-2)) / sl
    lo = np.maximum.accumulate(np.clip(centre - half, 0.0, 1.0), axis=-2)
    hi = np.minimum.accumulate(np.clip(centre + half, 0.0, 1.0), axis=-2)
    return lo * 2.0 * r - r, hi * 2.0 * r - r


def bounded_verdict(diffs, radius, margins, zone=DEFAULT_ZONE, confidence=0.95, design=DESIGN_DEALS,
                    min_look=MIN_LOOK, mean=None, sd=None):
    """:func:`verdict` with the finite-sample sequence: ``diffs`` (deals x K) in deal order,
    ``radius`` per measure (each difference within ``+-radius``; NaN: no range known before the
    games, that measure keeps the asymptotic interval, on ``mean`` and ``sd`` when given, e.g. from
    :class:`Running`). Same keys as :func:`verdict`, and ``bounded`` (per measure: True where the
    finite-sample sequence gave the interval)."""
    m = np.asarray(margins, dtype=float).ravel()
    k = m.size
    d = np.asarray(diffs, dtype=float).reshape(-1, k)
    n = d.shape[0]
    r = np.broadcast_to(np.asarray(radius, dtype=float), (k,))
    known = np.isfinite(r)
    a = (1.0 - confidence) / k
    if mean is None:
        mean = d.mean(axis=0) if n else np.zeros(k)
    if sd is None:
        sd = d.std(axis=0, ddof=1) if n > 1 else np.zeros(k)
    mean, sd = np.asarray(mean, dtype=float).ravel(), np.asarray(sd, dtype=float).ravel()
    lo, hi = np.full(k, -np.inf), np.full(k, np.inf)
    if n >= max(min_look, 1):
        w = half_width(sd, n, a, design)
        lo, hi = mean - w, mean + w
        if known.any():
            blo, bhi = bounded_sequence(d[:, known], r[known], a)
            lo[known], hi[known] = blo[-1], bhi[-1]
    res = _word(mean, lo, hi, m, zone, a)
    res["bounded"] = known
    return res
