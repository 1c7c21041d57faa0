"""Seat verdicts that stay valid when the games stop as soon as the verdict is decided.

A sequential run (``[sequential]`` in a scenario, :mod:`scenarios.sequential`) judges each cell
after every round of deals and stops the cell once its verdict is decided. The fixed-n tests of
:mod:`stats.tests` lose their error guarantee under such optional stopping (look often enough
and a fair seat is eventually "shown" unfair). This module gives the same verdicts from
*anytime-valid* tests instead: e-processes whose error bound holds at every look at once, so at
whatever look the runner stops.

For one seat of a mirror cell the wins are Bernoulli trials, one per deal (a mirror lineup plays
one game per deal, so deals are the independent unit). For a margin edge ``e`` and a direction:

* ``E+(e)``: the likelihood ratio of "rate q > e" against "rate e", mixed over a Beta prior of q
  truncated to (e, 1] (Robbins' beta-binomial mixture, one-sided; Howard, Ramdas, McAuliffe and
  Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic confidence sequences", section 3). Under
  any true rate p <= e it is a nonnegative supermartingale starting at 1, so by Ville's inequality
  the chance that it *ever* reaches 1/alpha is at most alpha;
* ``E-(e)``: the same for "rate q < e", a supermartingale under p >= e.

The verdict keeps the meaning of the fixed-n one (:func:`stats.tests.seat_verdicts`):

* **fair**: every seat has ``E-(1/N + margin) >= 1/alpha`` and ``E+(1/N - margin) >= 1/alpha``
  (two one-sided tests per seat, an intersection-union test over the seats): the chance of ever
  calling a cell fair when some seat is on or outside the margin is at most alpha;
* **unfair**: some seat's outside p-value ``2 min(1/E+(1/N + margin), 1/E-(1/N - margin))``
  is below alpha after Holm over the seats of the cell; anytime-valid p-values keep Holm's bound
  over every look, so the chance of ever calling a cell unfair when every seat is within the
  margin is at most alpha;
* **undecided**: neither yet.

The prior's spread is fixed before any game, from the cell's player count, the margin and alpha
(:func:`tuned_for`): the bounds are tightest around the games a fixed-n design would need for a
seat at the fair share. Intervals shown with a verdict are the confidence sequences of the same
mixtures (every seat's rate lies inside its interval at every look at once, 95%).

Why these are hand-written here (about 60 lines on scipy) rather than imported: ``expectation``
(0.6.1) needs Python >= 3.12 while the project runs on 3.11; ``confseq`` (0.0.11, 2023) ships only
a C++ source package that needs Boost and CMake to build and pulls in matplotlib; statsmodels has
neither confidence sequences nor alpha spending. The beta-binomial mixture is closed-form
(``scipy.special.betaln`` and ``betainc``); the tests check its time-uniform error by simulation.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special
from scipy.optimize import brentq

from stats.words import FAIR, UNFAIR, UNDECIDED, alpha_of, games_for_equivalence, holm_adjusted

# Prior concentration r = games / PRIOR_SCALE: the normal-mixture optimum for a boundary tight at
# ``games`` is rho = V / (2 log(1/alpha) + log(1 + 2 log(1/alpha))) (Howard et al. 2021, eq. 3.6),
# about V / 8 at alpha = 0.05; the beta prior's r + 1 plays the part of rho / V per game.
LOG_FLOOR = -745.0
MAX_PROJECT = 10_000_000  # the largest game count a projection looks at
ON_MARGIN_FACTOR = 4.0  # "on the margin": deciding would take more than this many times the games played


@functools.lru_cache(maxsize=256)
def tuned_for(players, margin, confidence):
    """Games at which the bounds are made tightest: the fixed-n TOST's games for a seat at 1/N.

    Fixed by the design (player count, margin, confidence), never by the data."""
    c = 1.0 / players
    n = games_for_equivalence(c, c, margin, alpha_of(confidence))
    return int(n) if math.isfinite(n) else 2000


def prior_strength(players, margin, confidence):
    a = math.log(1.0 / alpha_of(confidence))
    return max(1.0, tuned_for(players, margin, confidence) / (2 * a + math.log1p(2 * a)))


def _log_mix(s, t, e, r, upper):
    """log of the one-sided mixture e-value at edge ``e``: prior Beta(r e, r (1 - e)) on q,
    truncated to q > e (``upper``) or q < e. Vectorised over ``s`` (wins) and ``t`` (games)."""
    s = np.asarray(s, dtype=float)
    t = np.asarray(t, dtype=float)
    e = np.clip(np.asarray(e, dtype=float), 1e-12, 1 - 1e-12)
    a, b = r * e, r * (1.0 - e)
    post_a, post_b = a + s, b + t - s
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        if upper:  # mass of q in (e, 1]: 1 - I_e(a, b) = I_{1-e}(b, a)
            post = special.betainc(post_b, post_a, 1.0 - e)
            prior = special.betainc(b, a, 1.0 - e)
        else:
            post = special.betainc(post_a, post_b, e)
            prior = special.betainc(a, b, e)
        out = (
            special.betaln(post_a, post_b)
            + np.log(np.maximum(post, 0.0))
            - special.betaln(a, b)
            - np.log(prior)
            - s * np.log(e)
            - (t - s) * np.log1p(-e)
        )
    return np.where(np.isnan(out), LOG_FLOOR, np.maximum(out, LOG_FLOOR))


def pvalue_above(wins, games, edge, r):
    """Anytime-valid p-value of "the rate is above ``edge``" (null: rate <= edge)."""
    with np.errstate(over="ignore"):
        return np.minimum(1.0, np.exp(-_log_mix(wins, games, edge, r, upper=True)))


def pvalue_below(wins, games, edge, r):
    """Anytime-valid p-value of "the rate is below ``edge``" (null: rate >= edge)."""
    with np.errstate(over="ignore"):
        return np.minimum(1.0, np.exp(-_log_mix(wins, games, edge, r, upper=False)))


def confidence_sequence(wins, games, r, confidence=0.95):
    """``(lo, hi)`` of one seat: the rates not rejected by either one-sided mixture at level
    (1 - confidence) / 2. Holds at every look at once."""
    if games <= 0:
        return 0.0, 1.0
    level = math.log(2.0 / alpha_of(confidence))
    phat = wins / games

    def f_lo(p):
        return float(_log_mix(wins, games, p, r, upper=True)) - level

    def f_hi(p):
        return float(_log_mix(wins, games, p, r, upper=False)) - level

    eps = 1e-9
    lo = 0.0 if phat <= eps or f_lo(eps) < 0 else brentq(f_lo, eps, max(phat, 2 * eps), xtol=1e-7)
    hi = 1.0 if phat >= 1 - eps or f_hi(1 - eps) < 0 else brentq(f_hi, min(phat, 1 - 2 * eps), 1 - eps, xtol=1e-7)
    return float(lo), float(hi)


def verdicts(wins, games, players, margin=0.03, confidence=0.95, r=None):
    """Sequential seat verdicts of many looks at once: ``wins`` has the seats on its last axis,
    ``games`` one count per row (broadcast). Returns ``(verdict codes, tost_p, outside_p, row_tost_p,
    row_outside_p)``; codes 1 fair, -1 unfair, 0 undecided."""
    wins = np.asarray(wins, dtype=float)
    games = np.asarray(games, dtype=float)[..., None]
    alpha = alpha_of(confidence)
    c = 1.0 / players
    if r is None:
        r = prior_strength(players, margin, confidence)
    hi_edge, lo_edge = c + margin, c - margin
    zeros, ones = np.zeros_like(wins), np.ones_like(wins)
    # Equivalence (fair): below the upper edge and above the lower edge, each at alpha.
    p_below_hi = pvalue_below(wins, games, hi_edge, r) if hi_edge < 1 else zeros
    p_above_lo = pvalue_above(wins, games, lo_edge, r) if lo_edge > 0 else zeros
    row_tost = np.maximum(p_below_hi, p_above_lo)
    # Outside (unfair): above the upper edge or below the lower edge, doubled, Holm over seats.
    p_up = pvalue_above(wins, games, hi_edge, r) if hi_edge < 1 else ones
    p_low = pvalue_below(wins, games, lo_edge, r) if lo_edge > 0 else ones
    row_out = holm_adjusted(np.minimum(1.0, 2.0 * np.minimum(p_up, p_low)))
    tost_p, outside_p = row_tost.max(axis=-1), row_out.min(axis=-1)
    code = np.where(outside_p < alpha, -1, np.where(tost_p < alpha, 1, 0))
    return code, tost_p, outside_p, row_tost, row_out


VERDICT_WORDS = {1: FAIR, -1: UNFAIR, 0: UNDECIDED}


def cell_verdict(wins, games, players, margin=0.03, confidence=0.95, r=None):
    """The sequential seat verdict of one mirror cell after ``games`` games with ``wins`` per seat.

    Returns a dict: ``verdict``, ``tost_p`` (largest equivalence p over the seats and both edges),
    ``outside_p`` (smallest Holm-adjusted outside p), and per seat ``row_tost_p``, ``row_outside_p``.
    """
    code, tost_p, outside_p, row_tost, row_out = verdicts(wins, games, players, margin, confidence, r)
    return {
        "verdict": VERDICT_WORDS[int(code)],
        "tost_p": float(tost_p),
        "outside_p": float(outside_p),
        "row_tost_p": row_tost,
        "row_outside_p": row_out,
    }


def games_to_decide(rates, players, margin=0.03, confidence=0.95, r=None, start=1):
    """Games from which the verdict would be decided if the seats kept the win ``rates`` (fractions):
    the smallest count on a geometric grid from ``start`` up to MAX_PROJECT; ``inf`` when none.

    The seats' wins at n games are ``rates * n``: the cost of deciding at the current estimates
    (an estimate on a margin edge never decides, whatever the count)."""
    rates = np.asarray(rates, dtype=float)
    start = max(int(start), 1)
    grid = np.unique(np.geomspace(start, MAX_PROJECT, 200).astype(np.int64))
    for n in grid:
        if cell_verdict(rates * n, int(n), players, margin, confidence, r)["verdict"] != UNDECIDED:
            return float(n)
    return math.inf


def simultaneous(confidence, players):
    """The confidence of each seat's sequence so that every seat's holds at once (Bonferroni over
    the seats, two players too: a stalled game breaks "seat 2 = 1 - seat 1")."""
    return 1.0 - alpha_of(confidence) / int(players)


def gap_interval(seats):
    """Best - worst seat: ``(gap, lo, hi)`` from simultaneous intervals ``seats`` ({rate, lo, hi}):
    the true largest rate lies in [max lo, max hi] and the smallest in [min lo, min hi]."""
    rates = [s["rate"] for s in seats]
    los, his = [s["lo"] for s in seats], [s["hi"] for s in seats]
    return max(rates) - min(rates), max(0.0, max(los) - min(his)), max(his) - min(los)


def narrow(lo, hi, margin):
    """An interval narrow enough to say a seat sits *on* the margin: no wider than the margin."""
    return hi - lo <= margin


def cell_record(wins, games, players, margin=0.03, confidence=0.95, r=None, affordable=None, test="interval",
                indifference=None):
    """Everything the report says of a sequentially judged cell at its last look (see the docs,
    docs/guide/sequential.md, "The record"): the verdict, every seat's rate and confidence
    sequence (simultaneous over the seats, :func:`simultaneous`), the worst seat (for an unfair
    cell of the zone test, the seat it names), the best - worst gap with its interval, and for an
    undecided cell whether it sits on the margin and what deciding would cost.

    ``test``: ``"interval"`` (this module's "shown inside / outside the margin") or ``"zone"``
    (:mod:`stats.zone`, with ``indifference``). *On the margin*: undecided, the
    margin edge nearest the worst seat lies inside its interval, and the interval is no wider than
    the margin (:func:`narrow`). ``affordable`` is kept for callers.

    For the zone test every seat's ``lo``, ``hi`` are the verdict's own interval
    (:func:`stats.zone.verdict_intervals`, one-sided level ``side_level``), so a fair
    cell shows every seat within the fair band and an unfair cell's named seats beyond the zone;
    ``sim_lo``, ``sim_hi`` keep the mixture sequences simultaneous over the seats (the gap's).
    ``named``: every seat-side the zone test shows beyond the zone, ``[[seat, direction]]``;
    ``leaning``: those whose evidence leans beyond it without showing it."""
    from stats import zone as SZ

    wins = np.asarray(wins, dtype=float)
    if r is None:
        r = prior_strength(players, margin, confidence)
    c = 1.0 / players
    rates = wins / games if games > 0 else np.full(wins.size, c)
    level = simultaneous(confidence, players)
    seats = []
    for s in range(wins.size):
        lo, hi = confidence_sequence(float(wins[s]), int(games), r, level)
        seats.append({"seat": s, "rate": float(rates[s]), "lo": lo, "hi": hi})
    for s in seats:
        s["sim_lo"], s["sim_hi"] = s["lo"], s["hi"]
    worst = int(np.argmax(np.abs(rates - c)))
    named = None
    named_all, leaning = [], []
    if test == "zone":
        d = SZ.DEFAULT_INDIFFERENCE if indifference is None else indifference
        z = SZ.cell_test(wins, games, players, margin, d, confidence)
        own = SZ.verdict_intervals(wins, games, players, margin, d, confidence)
        for s in seats:
            k = s["seat"]
            s["lo"], s["hi"], s["side_level"] = float(own["lo"][k]), float(own["hi"][k]), float(own["level"][k])
        named_all = [[int(k), int(way)] for k, way, _a in own["named"]]
        leaning = [[int(k), int(way)] for k, way in own["leaning"]]
        verdict = {SZ.FAIR: FAIR, SZ.UNFAIR: UNFAIR}.get(z["code"], UNDECIDED)
        with np.errstate(over="ignore"):
            tost_p = float(min(1.0, math.exp(-min(z["log_fair"], 700.0))))
            outside_p = float(min(1.0, math.exp(z["bound_unfair"] - math.log(1.0 / alpha_of(confidence)) - min(z["log_unfair"], 700.0))))
        if verdict == UNFAIR:
            worst = named = z["seat"]
        row_tost = row_out = None
    else:
        d = None
        res = cell_verdict(wins, games, players, margin, confidence, r)
        verdict, tost_p, outside_p = res["verdict"], res["tost_p"], res["outside_p"]
        row_tost, row_out = res["row_tost_p"], res["row_outside_p"]
    edge = c + margin if rates[worst] >= c else c - margin
    decided = verdict != UNDECIDED
    more = None
    on_margin = False
    if not decided:
        if test == "zone":
            need = games + SZ.remaining(wins, games, players, margin, d, confidence)
        else:
            need = games_to_decide(rates, players, margin, confidence, r, start=max(games, 1))
        more = None if not math.isfinite(need) else int(math.ceil(max(need - games, 0)))
        lo, hi = seats[worst]["lo"], seats[worst]["hi"]
        on_margin = bool(lo <= edge <= hi and narrow(lo, hi, margin))
    gap, gap_lo, gap_hi = gap_interval([{"rate": s["rate"], "lo": s["sim_lo"], "hi": s["sim_hi"]} for s in seats])
    return {
        "verdict": verdict,
        "decided": decided,
        "test": test,
        "indifference": d,
        "games": int(games),
        "tost_p": tost_p,
        "outside_p": outside_p,
        "worst_seat": worst,
        "named_seat": named,
        "named": named_all,
        "leaning": leaning,
        "worst_rate": float(rates[worst]),
        "worst_lo": seats[worst]["lo"],
        "worst_hi": seats[worst]["hi"],
        "level": level,
        "gap": gap,
        "gap_lo": gap_lo,
        "gap_hi": gap_hi,
        "fair": c,
        "margin": float(margin),
        "edge": float(edge),
        "on_margin": on_margin,
        "more_games": more,
        "seats": seats,
        "row_tost_p": row_tost,
        "row_outside_p": row_out,
    }


# =========================================================================== a bounded mean, by betting

STRONGER, NOT_STRONGER, UNPROVEN = "stronger", "not stronger", "unproven"


def _predictable_bets(x, alpha):
    """The bets of the predictable plug-in (Waudby-Smith and Ramdas 2023, "Estimating means of bounded
    random variables by betting", eq. 26): bet ``i`` reads only the outcomes before it."""
    x = np.asarray(x, dtype=float)
    n = x.size
    i = np.arange(1, n + 1, dtype=float)
    # The running variance before outcome i, about the running means (each with half a prior outcome).
    dev = np.concatenate(([0.0], np.cumsum((x - (0.5 + np.cumsum(x)) / (i + 1.0)) ** 2)))[:-1]
    var = (0.25 + dev) / i
    return np.sqrt(2.0 * math.log(1.0 / alpha) / (var * i * np.log1p(i)))


def mean_bounds(x, confidence=0.95, grid=2001):
    """``(lo, hi)`` of the mean of outcomes ``x`` in [0, 1] (in the order they were played): ``lo`` the
    smallest mean the capital of betting on "above" has not rejected at 1 - ``confidence``, ``hi`` the
    largest the capital of betting on "below" has not. Each bound holds at every look at once (a
    nonnegative supermartingale under its null, Ville's inequality), whatever the outcomes' law.

    The capital at ``m``: prod(1 + lam_i (x_i - m)) betting up, prod(1 - lam_i (x_i - m)) betting
    down, each bet truncated to half of what keeps the capital positive."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return 0.0, 1.0
    alpha = 1.0 - confidence
    lam = _predictable_bets(x, alpha)[:, None]
    level = math.log(1.0 / alpha)
    grid_m = np.linspace(0.0, 1.0, grid)
    log_up, log_down = np.empty(grid), np.empty(grid)
    for a in range(0, grid, 128):  # a block of means at a time: deals x 128 at most in memory
        m = grid_m[None, a:a + 128]
        with np.errstate(divide="ignore", invalid="ignore"):
            up = np.minimum(lam, 0.5 / np.maximum(m, 1e-12))
            down = np.minimum(lam, 0.5 / np.maximum(1.0 - m, 1e-12))
            log_up[a:a + 128] = np.log1p(up * (x[:, None] - m)).sum(axis=0)
            log_down[a:a + 128] = np.log1p(-down * (x[:, None] - m)).sum(axis=0)
    keep_up = grid_m[log_up < level]
    keep_down = grid_m[log_down < level]
    lo = float(keep_up.min()) if keep_up.size else 1.0
    hi = float(keep_down.max()) if keep_down.size else 0.0
    return lo, max(hi, lo)


def stronger_verdict(x, fair, indifference=0.02, confidence=0.95):
    """Whether a player is shown stronger than its opponent from per-deal outcomes ``x`` (its share of
    the deal's wins, 0..1, in deal order) against its ``fair`` share: ``stronger`` when the lower
    bound of :func:`mean_bounds` is above ``fair``, ``not stronger`` when the upper bound is below
    ``fair + indifference`` (no more than that above its fair share), else ``unproven``. Valid at
    every look: the chance of ever calling a player at or under its fair share stronger is at most
    1 - ``confidence``, and so is that of ever calling one ``indifference`` above it not stronger."""
    x = np.asarray(x, dtype=float)
    lo, hi = mean_bounds(x, confidence)
    verdict = STRONGER if lo > fair else (NOT_STRONGER if hi < fair + indifference else UNPROVEN)
    share = float(x.mean()) if x.size else float(fair)
    return {"verdict": verdict, "share": share, "lo": lo, "hi": hi, "deals": int(x.size), "fair": float(fair),
            "indifference": float(indifference)}
