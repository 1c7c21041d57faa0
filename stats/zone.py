"""The default seat verdict of a sequential run: a sequential probability ratio test with an
indifference zone, which always ends.

The margin ``m`` says how far from the fair share 1/N a seat may be and still count as fair. A
test of "shown inside" against "shown outside" the margin (:mod:`stats.sequences`, kept
as ``sequential.test = "interval"``) needs more and more games as the truth nears the margin, and
never ends on it. This test gives up a zone of width ``2 d`` around each margin edge (``d``:
``sequential.indifference``, default 1 point) and in return ends with one of two words:

* **fair**: every seat is shown within ``m + d`` of 1/N. Error controlled: when some seat is at
  ``m + d`` or beyond, calling the cell fair happens at most alpha of the time;
* **unfair**: a named seat is shown beyond ``m - d`` in a named direction. Error controlled: naming
  a seat (and a direction) when that seat is in truth within ``m - d`` of 1/N happens at most alpha
  of the time, whatever the other seats do.

For one seat and one side, the wins are Bernoulli trials, one per deal (a mirror lineup plays one
game per deal). The upper side compares the two simple rates ``q0 = 1/N + m - d`` and ``q1 = 1/N +
m + d`` by their likelihood ratio after ``n`` deals with ``s`` wins::

    L = s log(q1 / q0) + (n - s) log((1 - q1) / (1 - q0))

``exp(L)`` has mean-one factors at ``q0`` and factors of mean below one at any rate under ``q0``, so
for every true rate at or under ``q0`` it is a nonnegative supermartingale from 1, and by Ville's
inequality the chance that it *ever* reaches ``K`` is at most ``1/K``; ``exp(-L)`` is the same for
every rate at or above ``q1``. The lower side is the mirror image (``1/N - m + d`` against
``1/N - m - d``). This is Wald's SPRT as the chess-engine testers run it (fishtest's SPRT between
two Elo bounds), read as e-processes so that looking after every round and stopping at will keeps
both errors (Ramdas, Grunwald, Vovk and Shafer 2023, "Game-theoretic statistics and safe anytime-valid
inference", section 4).

* **unfair** when some seat and side has ``L >= log(S / alpha)``, ``S`` the number of seat-sides
  judged (Bonferroni: each true null crosses with chance at most alpha / S, so any one at most
  alpha); the seat and the side with the largest ``L`` are named;
* **fair** when every seat and side has ``L <= -log(1 / alpha)`` (an intersection-union test: a
  seat at ``m + d`` or beyond must cross its own bound, chance at most alpha);
* neither yet: play on. Every true rate is strictly inside ``m + d`` or strictly outside ``m - d``,
  so one of the two drifts to its bound and the test ends with probability one; its expected games
  are largest with a seat right on the margin (:func:`expected_games`).

Every seat is judged, two players too (S = 4 there): a game that can stall or end without a winner
breaks "seat 2 = 1 - seat 1", so each seat's rate is read on its own. When several seat-sides cross,
every one is named, by Holm's step-down on the same e-values (:func:`named_sides`: the k-th largest
crosses ``log((S - k) / alpha)``, k from 0; anytime p-values ``1 / E`` keep Holm's bound over every
look), the first exactly the rule above, so naming more never changes the word. A run stops at the
first seat shown off, so a second seat off may not be shown yet: every seat-side whose evidence leans
beyond the zone is said too, as leaning (:func:`leaning_sides`).

**The verdict's own interval** (:func:`verdict_intervals`). The test is a member of one family of
e-processes: for every rate ``p``, ``E+(p)``, the likelihood ratio of ``p + 2d`` against ``p``, is a
test supermartingale for "rate <= p", and ``E-(p)``, of ``p - 2d`` against ``p``, for "rate >= p"
(the test's sides are ``E+`` at ``1/N + m - d`` and ``1/N - m - d``, ``E-`` at ``1/N + m + d`` and
``1/N - m + d``). Both are monotone in ``p``, so at a one-sided level ``a`` the rates not rejected
form an interval ``[lo_a, hi_a]`` (``log E+(lo_a) = log E-(hi_a) = log(1/a)``) that holds at every
look at once with chance at least ``1 - 2 a`` (each end ``1 - a``). Read at the level of the word:

* a cell **fair** at ``a = alpha``: every seat's ``[lo, hi]`` lies within ``1/N +- (m + d)``
  (exactly the fair rule: ``hi <= 1/N + m + d`` is ``E-(1/N + m + d) >= 1/alpha``);
* a cell **unfair**: a named seat at its Holm level ``alpha / (S - k)`` has its named end beyond
  ``1/N +- (m - d)`` on its side (exactly the unfair rule); the other seats at ``alpha / S``;
* **undecided**: every seat at ``alpha / S``; none is beyond the zone and some seat is not within
  the fair band (else the word would be said).

The interval never narrows below about ``+- d`` around the estimate: the test resolves rates to its
zone and no finer. Closed form on numpy (a vectorised bisection); nothing here draws at random. The
best - worst gap and the "raw" rates of a report keep the mixture sequences of
:mod:`stats.sequences` (simultaneous over the seats), a second procedure that the report
names as such.
"""

from __future__ import annotations

import math

import numpy as np

FAIR = 1
UNFAIR = -1
OPEN = 0
DEFAULT_INDIFFERENCE = 0.01
LEAN = 1.0  # a seat-side leans beyond the zone when its likelihood ratio favours the far rate e to 1


def judged_seats(players):
    """How many seats the test reads: every one (two players too: a stalled game breaks the
    complement)."""
    return int(players)


def edges(players, margin, indifference):
    """``(up0, up1, lo0, lo1)``: the simple rates compared on each side. A side whose far rate
    leaves (0, 1) cannot be crossed and is left out (``None``)."""
    c = 1.0 / players
    up0, up1 = c + margin - indifference, c + margin + indifference
    lo0, lo1 = c - margin + indifference, c - margin - indifference
    up = (up0, up1) if up1 < 1 else (None, None)
    lo = (lo0, lo1) if lo1 > 0 else (None, None)
    return up + lo


def _llr(wins, games, q0, q1):
    return wins * math.log(q1 / q0) + (games - wins) * math.log((1 - q1) / (1 - q0))


def log_ratios(wins, games, players, margin, indifference):
    """``(up, lo)`` log likelihood ratios, seats on the last axis (judged seats only); ``wins``
    broadcast against ``games`` (one count per row). A side left out reads ``-inf`` (never unfair,
    always fair on that side)."""
    wins = np.asarray(wins, dtype=float)[..., : judged_seats(players)]
    games = np.asarray(games, dtype=float)[..., None]
    up0, up1, lo0, lo1 = edges(players, margin, indifference)
    ninf = np.full(np.broadcast(wins, games).shape, -np.inf)
    up = _llr(wins, games, up0, up1) if up0 is not None else ninf
    lo = _llr(wins, games, lo0, lo1) if lo0 is not None else ninf
    return up, lo


def thresholds(players, confidence):
    """``(log bound for unfair, log bound for fair)``."""
    alpha = 1.0 - confidence
    sides = 2 * judged_seats(players)
    return math.log(sides / alpha), math.log(1.0 / alpha)


def verdicts(wins, games, players, margin=0.03, indifference=DEFAULT_INDIFFERENCE, confidence=0.95):
    """Codes of many looks at once (1 fair, -1 unfair, 0 open), wins with seats on the last axis."""
    up, lo = log_ratios(wins, games, players, margin, indifference)
    b_unfair, b_fair = thresholds(players, confidence)
    top = np.maximum(up, lo).max(axis=-1)
    unfair = top >= b_unfair
    fair = top <= -b_fair
    return np.where(unfair, UNFAIR, np.where(fair, FAIR, OPEN))


def cell_test(wins, games, players, margin=0.03, indifference=DEFAULT_INDIFFERENCE, confidence=0.95):
    """One look at one cell: the code, the named seat and side (+1 above, -1 below; for unfair,
    else the seat-side nearest its unfair bound), and the e-values (``exp`` of the log ratios) of
    the two words: ``e_unfair`` (largest seat-side) and ``e_fair`` (smallest seat-side)."""
    up, lo = log_ratios(wins, games, players, margin, indifference)
    b_unfair, b_fair = thresholds(players, confidence)
    both = np.stack([up, lo])  # side, seat
    side, seat = np.unravel_index(int(np.argmax(_ranked(both))), both.shape)
    top = float(both.max())
    code = UNFAIR if top >= b_unfair else (FAIR if top <= -b_fair else OPEN)
    seat = int(seat)
    direction = 1 if side == 0 else -1  # a tie between sides goes to the seat above its share
    named = named_sides(up, lo, players, confidence) if code == UNFAIR else []
    leaning = leaning_sides(up, lo, named)
    with np.errstate(over="ignore"):
        return {
            "code": code,
            "seat": seat,
            "direction": direction,
            "named": named,
            "leaning": leaning,
            "log_unfair": top,
            "log_fair": float(-both.max()),
            "bound_unfair": b_unfair,
            "bound_fair": b_fair,
        }


def _ranked(x):
    """Log ratios as ranked: rounded to 1e-9, so that two seat-sides equal but for rounding (seat 1
    above and seat 2 below at two players with no stall) tie, and the tie goes the same way every run."""
    return np.round(np.asarray(x, dtype=float), 9)


def named_sides(up, lo, players, confidence):
    """Every seat-side the evidence shows beyond ``m - d``, by Holm's step-down over the ``S =
    2 N`` seat-sides (``up``, ``lo``: :func:`log_ratios` of one look): ``[(seat, direction, level)]``
    in order of evidence, the k-th (from 0) crossing ``log((S - k) / alpha)``; ``level`` is that
    side's one-sided test level ``alpha / (S - k)``. Empty when the largest does not cross (the cell
    is not unfair). Sides are counted as :func:`thresholds` counts them (``2 N``)."""
    alpha = 1.0 - confidence
    both = np.stack([np.asarray(up, dtype=float), np.asarray(lo, dtype=float)])  # side, seat
    total = 2 * judged_seats(players)
    flat = both.ravel()
    order = np.argsort(-_ranked(flat), kind="stable")  # ties: the upper side first, then the earlier seat
    out = []
    for k, j in enumerate(order):
        bound = math.log((total - k) / alpha)
        if not (flat.max() if k == 0 else flat[j]) >= bound:  # the first step is the cell's own rule
            break
        side, seat = divmod(int(j), both.shape[1])
        out.append((seat, 1 if side == 0 else -1, alpha / (total - k)))
    return out


def leaning_sides(up, lo, named=()):
    """The seat-sides whose evidence leans beyond the zone without showing it: the likelihood favours
    the rate beyond by at least ``e`` to 1 (log ratio above :data:`LEAN`), not among ``named``;
    ``[(seat, direction)]``, most evidence first. The run stops at the first seat shown off; another
    seat off too is then said as leaning, not dropped."""
    both = np.stack([np.asarray(up, dtype=float), np.asarray(lo, dtype=float)])
    flat = both.ravel()
    done = {(seat, way) for seat, way, *_ in named}
    out = []
    for j in np.argsort(-_ranked(flat), kind="stable"):
        if not flat[j] > LEAN:
            break
        side, seat = divmod(int(j), both.shape[1])
        if (seat, 1 if side == 0 else -1) not in done:
            out.append((seat, 1 if side == 0 else -1))
    return out


def _shift_llr(wins, games, p, shift):
    """log likelihood ratio of the rate ``p + shift`` against ``p`` (elementwise)."""
    q = p + shift
    with np.errstate(divide="ignore", invalid="ignore"):
        return wins * np.log(q / p) + (games - wins) * np.log((1 - q) / (1 - p))


def _lower(wins, games, level, indifference, steps=64):
    """The lower end at one-sided level ``level`` (arrays): the root of ``log E+(p) = log(1/level)``,
    ``E+(p)`` the ratio of ``p + 2 d`` against ``p``, decreasing in ``p`` on ``(0, 1 - 2 d)``."""
    wins, games, level = np.broadcast_arrays(np.asarray(wins, dtype=float), np.asarray(games, dtype=float),
                                             np.asarray(level, dtype=float))
    shift = 2.0 * indifference
    target = np.log(1.0 / level)
    a = np.zeros(wins.shape)
    b = np.full(wins.shape, 1.0 - shift)
    for _ in range(steps):  # invariant: log E+(a) >= target (or a = 0), log E+(b) < target (or b = 1 - 2d)
        mid = 0.5 * (a + b)
        hit = _shift_llr(wins, games, mid, shift) >= target
        a = np.where(hit, mid, a)
        b = np.where(hit, b, mid)
    return a


def shift_interval(wins, games, level, indifference):
    """``(lo, hi)``: the interval dual to the zone test at one-sided level ``level`` (module doc,
    "The verdict's own interval"), elementwise over ``wins`` (and ``games``, ``level``). Each end
    holds at every look at once with chance at least ``1 - level``: ``hi`` is the mirror image of
    ``lo`` (losses for wins)."""
    wins = np.asarray(wins, dtype=float)
    games = np.asarray(games, dtype=float)
    lo = _lower(wins, games, level, indifference)
    hi = 1.0 - _lower(games - wins, games, level, indifference)
    return lo, hi


def verdict_intervals(wins, games, players, margin=0.03, indifference=DEFAULT_INDIFFERENCE, confidence=0.95):
    """One look at one cell with every seat's interval at the level of the word said (module doc):
    ``{"code", "named": [(seat, direction, level)], "lo", "hi", "level"}`` (``lo``, ``hi``, ``level``:
    one per seat; ``level`` one-sided). Fair: ``alpha`` each; unfair: a named seat at its Holm level,
    the others at ``alpha / S``; undecided: ``alpha / S``."""
    wins = np.asarray(wins, dtype=float)
    up, lo = log_ratios(wins, games, players, margin, indifference)
    code = int(verdicts(wins, games, players, margin, indifference, confidence))
    alpha = 1.0 - confidence
    named = named_sides(up, lo, players, confidence) if code == UNFAIR else []
    level = np.full(wins.size, alpha if code == FAIR else alpha / (2 * judged_seats(players)))
    for seat, _direction, a in reversed(named):  # a seat named on both sides keeps its first level
        level[seat] = a
    low, high = shift_interval(wins, float(games), level, indifference)
    return {"code": code, "named": named, "leaning": leaning_sides(up, lo, named) if code != FAIR else [],
            "lo": low, "hi": high, "level": level}


def _exit(x, a, b, mu, var):
    """Brownian motion with drift ``mu`` and variance ``var`` per step from ``x`` in (a, b):
    (chance of leaving at ``b``, expected steps to leave)."""
    if x >= b:
        return 1.0, 0.0
    if x <= a:
        return 0.0, 0.0
    if var <= 0:
        return (1.0, (b - x) / mu) if mu > 0 else (0.0, (x - a) / -mu if mu < 0 else math.inf)
    k = 2.0 * mu / var
    if abs(k * (b - a)) < 1e-9:
        return (x - a) / (b - a), (x - a) * (b - x) / var
    # P(b first) = (1 - e^{-k (x - a)}) / (1 - e^{-k (b - a)}), stable for either sign of k
    num = -math.expm1(-k * (x - a))
    den = -math.expm1(-k * (b - a))
    p_b = min(max(num / den, 0.0), 1.0)
    return p_b, max((p_b * b + (1 - p_b) * a - x) / mu, 0.0)


def _projection(ls_up, ls_lo, rates, players, margin, indifference, confidence):
    b_unfair, b_fair = thresholds(players, confidence)
    up0, up1, lo0, lo1 = edges(players, margin, indifference)
    out_up, out_all = [], []
    for q0, q1, ls in ((up0, up1, ls_up), (lo0, lo1, ls_lo)):
        if q0 is None:
            continue
        w1, w0 = math.log(q1 / q0), math.log((1 - q1) / (1 - q0))
        for s in range(judged_seats(players)):
            p = float(rates[s])
            mu = p * w1 + (1 - p) * w0
            var = p * (1 - p) * (w1 - w0) ** 2
            p_b, t = _exit(float(ls[s]), -b_fair, b_unfair, mu, var)
            out_all.append(t)
            if p_b >= 0.5:
                out_up.append(t)
    if out_up:
        return float(min(out_up))
    return float(max(out_all)) if out_all else 0.0


def shrunk_rates(wins, games, players, prior=100.0):
    """Each seat's win rate shrunk towards the fair share 1/N by ``prior`` deals at that share (the
    rates a schedule or a ranking reads, never a verdict)."""
    c = 1.0 / players
    wins = np.asarray(wins, dtype=float)
    n = float(games)
    return (wins + prior * c) / (n + prior) if n + prior > 0 else np.full(wins.size, c)


def remaining(wins, games, players, margin=0.03, indifference=DEFAULT_INDIFFERENCE, confidence=0.95,
              prior=100.0):
    """Expected deals still needed to end the test if the seats kept their current rates (shrunk
    towards 1/N by ``prior`` games), each seat-side read as a Brownian motion between its bounds.

    The cell ends unfair at the first seat-side to reach its upper bound, fair once every one has
    reached its lower bound: if some seat-side more likely ends above, the soonest of those, else the
    latest. Depends only on the counts (the runner's schedule reads it; nothing is measured)."""
    wins = np.asarray(wins, dtype=float)
    n = float(games)
    rates = shrunk_rates(wins, n, players, prior)
    up, lo = log_ratios(wins, n, players, margin, indifference)
    return _projection(up, lo, rates, players, margin, indifference, confidence)


def expected_games(rates, players, margin=0.03, indifference=DEFAULT_INDIFFERENCE, confidence=0.95):
    """Expected deals to end from the start at true seat ``rates`` (the Brownian reading of
    :func:`remaining`): a planning figure; the calibration benchmark measures the real one."""
    rates = np.asarray(rates, dtype=float)
    zero = np.zeros(judged_seats(players))
    return _projection(zero, zero, rates, players, margin, indifference, confidence)
