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

At two players seat 2's rate is one minus seat 1's, so only seat 1 is judged (S = 2). Closed form on
numpy; nothing here draws at random. The confidence sequences printed beside these verdicts are
those of :mod:`stats.sequences`, simultaneous over the seats (level alpha / S per side).
"""

from __future__ import annotations

import math

import numpy as np

FAIR = 1
UNFAIR = -1
OPEN = 0
DEFAULT_INDIFFERENCE = 0.01


def judged_seats(players):
    """How many seats the test reads: one at two players (the other is its complement), else all."""
    return 1 if int(players) == 2 else int(players)


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
    side, seat = np.unravel_index(int(np.argmax(both)), both.shape)
    top = float(both.max())
    code = UNFAIR if top >= b_unfair else (FAIR if top <= -b_fair else OPEN)
    seat = int(seat)
    direction = 1 if side == 0 else -1
    if int(players) == 2 and direction == -1 and code != FAIR:
        seat, direction = 1, 1  # seat 1 below its share is seat 2 above it: name the seat ahead
    elif int(players) == 2 and code == UNFAIR:
        seat = 0
    with np.errstate(over="ignore"):
        return {
            "code": code,
            "seat": seat,
            "direction": direction,
            "log_unfair": top,
            "log_fair": float(-both.max()),
            "bound_unfair": b_unfair,
            "bound_fair": b_fair,
        }


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


def remaining(wins, games, players, margin=0.03, indifference=DEFAULT_INDIFFERENCE, confidence=0.95,
              prior=100.0):
    """Expected deals still needed to end the test if the seats kept their current rates (shrunk
    towards 1/N by ``prior`` games), each seat-side read as a Brownian motion between its bounds.

    The cell ends unfair at the first seat-side to reach its upper bound, fair once every one has
    reached its lower bound: if some seat-side more likely ends above, the soonest of those, else the
    latest. Depends only on the counts (the runner's schedule reads it; nothing is measured)."""
    c = 1.0 / players
    wins = np.asarray(wins, dtype=float)
    n = float(games)
    rates = (wins + prior * c) / (n + prior) if n + prior > 0 else np.full(wins.size, c)
    up, lo = log_ratios(wins, n, players, margin, indifference)
    return _projection(up, lo, rates, players, margin, indifference, confidence)


def expected_games(rates, players, margin=0.03, indifference=DEFAULT_INDIFFERENCE, confidence=0.95):
    """Expected deals to end from the start at true seat ``rates`` (the Brownian reading of
    :func:`remaining`): a planning figure; the calibration benchmark measures the real one."""
    rates = np.asarray(rates, dtype=float)
    zero = np.zeros(judged_seats(players))
    return _projection(zero, zero, rates, players, margin, indifference, confidence)
