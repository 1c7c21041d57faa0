"""Verdicts of a balance search's targets, taken from the report's own tests (one adapter module).

``ssb tune`` asks, for each candidate change of the data, whether its *targets* are met. A target
is one of the verdicts the report already computes; this module only picks the report function
that decides it and reads its answer, so the search and the report never disagree:

=========================  =====================================================================
target kind                decided by
=========================  =====================================================================
``seats_balanced``         :func:`reports.seats.seat_advantage` (exact binomial TOST per seat,
                           Holm over the seats of the target's settings): *met* when every
                           setting is balanced, *failed* when one is imbalanced
``objective_vs_department`` the gate's Welch test on deals (:func:`reports.baseline.figure_table`,
                           :func:`reports.regress.difference`, :func:`reports.regress.margin_tests`):
                           the instrument's objective points per game minus those of the other
                           instruments of its department (pooled deals, same other two
                           instruments); *met* when TOST shows it within the margin, *failed* when
                           shown beyond it (Holm over the target's player counts)
``built_rate``             :func:`reports.instruments.instrument_stats` (clustered Wilson interval
                           of the unbuilt rate): *met* when the whole interval of the build rate
                           lies inside ``[at_least, at_most]``, *failed* when it lies outside
``rounds``                 :func:`reports.shape.game_shape` (t interval of rounds per game on
                           deals): *met* when every setting's interval lies inside the range,
                           *failed* when one lies wholly outside
=========================  =====================================================================

Anything else is *open* (more games would tell). Every verdict carries its estimate and interval,
and a ``distance``: how far the estimate is from the acceptable region in units of the target's
own tolerance (below 1 when the estimate is inside), which the search uses to rank candidates that
do not meet the target yet.

Seat verdicts and instrument verdicts are being reworked; when they change, this module is the one
place that follows them. It reads result tables only (no kernel).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from reports import regress, stats
from reports.baseline import figure_table
from reports.instruments import instrument_stats
from reports.seats import seat_advantage
from reports.shape import game_shape

MET, FAILED, OPEN = "met", "failed", "open"
TARGET_KINDS = ("seats_balanced", "objective_vs_department", "built_rate", "rounds")


@dataclass
class TargetVerdict:
    """The verdict on one target in one set of games."""

    target: str  # the target's label
    kind: str
    state: str  # met | failed | open
    estimate: float  # the figure the verdict is about (the worst setting's)
    lo: float  # its interval at the run's confidence
    hi: float
    distance: float  # estimate's distance from the acceptable region, in tolerance units (<1 inside)
    detail: str  # one sentence: what was measured and what decided it

    def as_dict(self):
        return asdict(self)


def _combine(states):
    if any(s == FAILED for s in states):
        return FAILED
    if states and all(s == MET for s in states):
        return MET
    return OPEN


def _clean(x):
    return float(x) if x is not None and np.isfinite(x) else math.nan


# --------------------------------------------------------------------------- seats


def _seats(target, seats, games, confidence):
    g = games[games["players"].isin(target["players"])]
    if g.empty:
        return TargetVerdict(target["label"], target["kind"], OPEN, math.nan, math.nan, math.nan, math.inf, "no games")
    margin = float(target["margin"])
    sa = seat_advantage(g, margin=margin, confidence=confidence, resamples=200)
    states = [
        MET if v == stats.BALANCED else FAILED if v == stats.IMBALANCED else OPEN for v in sa.cells["verdict"]
    ]
    r = sa.rates
    worst = r.iloc[int(np.argmax(np.abs(r["deviation"].to_numpy())))]
    dev = float(worst["deviation"])
    lo, hi = float(worst["win_lo"] - worst["fair_share"]), float(worst["win_hi"] - worst["fair_share"])
    notes = "; ".join(f"{int(c.players)}p: {c.verdict}" for c in sa.cells.itertuples())
    detail = (
        f"largest seat deviation {100 * dev:+.1f} pp (seat {int(worst['seat'])}, {int(worst['players'])} players) "
        f"against a {100 * margin:.1f} pp margin; {notes}"
    )
    return TargetVerdict(target["label"], target["kind"], _combine(states), dev, lo, hi, abs(dev) / margin, detail)


# --------------------------------------------------------------------------- objective points


def _context_label(df, dept):
    others = [f"inst_{d}" for d in ("black", "orange", "gray") if d != dept]
    return df[others[0]].astype(str) + "/" + df[others[1]].astype(str)


def _objective(target, seats, games, confidence):
    dept, inst, margin = target["department"], target["instrument"], float(target["margin"])
    alpha = stats.alpha_of(confidence)
    g = games[games["players"].isin(target["players"])]
    s = seats[seats["players"].isin(target["players"])]
    fig = figure_table(s, g)
    fig = fig[fig["figure"] == f"objective_points.{dept}"]
    cells = g.drop_duplicates("cell_key").set_index("cell_key")
    cells = cells.assign(_ctx=_context_label(cells, dept))
    fig = fig.join(cells[["players", f"inst_{dept}", "_ctx"]], on="cell_key")
    rows = []
    for players, part in fig.groupby("players", sort=True):
        mine = part[part[f"inst_{dept}"] == inst]
        others = part[(part[f"inst_{dept}"] != inst) & part["_ctx"].isin(set(mine["_ctx"]))]
        if mine.empty or others.empty:
            continue
        cur = tuple(float(mine[c].sum()) for c in ("n", "sum", "sumsq"))
        base = tuple(float(others[c].sum()) for c in ("n", "sum", "sumsq"))
        d, se, df = regress.difference(base, cur)
        p_eq, p_out = regress.margin_tests(d, se, df, margin)
        lo, hi = regress.confidence_interval(d, se, df, alpha)
        rows.append((int(players), float(d), float(lo), float(hi), float(p_eq), float(p_out)))
    if not rows:
        return TargetVerdict(
            target["label"], target["kind"], OPEN, math.nan, math.nan, math.nan, math.inf, "no comparable games"
        )
    p_out_adj = regress.holm(np.array([r[5] for r in rows]))
    states = [
        FAILED if p_adj < alpha else MET if r[4] < alpha else OPEN for r, p_adj in zip(rows, p_out_adj, strict=True)
    ]
    worst = max(range(len(rows)), key=lambda i: abs(rows[i][1]))
    players, d, lo, hi = rows[worst][:4]
    detail = (
        f"{inst} hands out {d:+.1f} objective points per game [{lo:+.1f}, {hi:+.1f}] against the other {dept} "
        f"instruments at {players} players (margin {margin:g}); "
        + "; ".join(f"{r[0]}p: {st}" for r, st in zip(rows, states, strict=True))
    )
    return TargetVerdict(target["label"], target["kind"], _combine(states), d, lo, hi, abs(d) / margin, detail)


# --------------------------------------------------------------------------- build rate


def _band_distance(x, lo_edge, hi_edge, scale):
    """Distance of ``x`` from the band ``[lo_edge, hi_edge]`` in units of ``scale`` (below 1 inside)."""
    if np.isnan(x):
        return math.inf
    if x < lo_edge:
        return 1.0 + (lo_edge - x) / scale
    if x > hi_edge:
        return 1.0 + (x - hi_edge) / scale
    # Inside: 0 at the middle of the band, approaching 1 at an edge (or 0 on a one-sided band).
    if math.isinf(lo_edge) or math.isinf(hi_edge):
        edge = hi_edge if math.isinf(lo_edge) else lo_edge
        return max(0.0, 1.0 - abs(x - edge) / scale)
    half = (hi_edge - lo_edge) / 2
    return abs(x - (lo_edge + hi_edge) / 2) / half if half > 0 else 0.0


def _built(target, seats, games, confidence):
    dept, inst = target["department"], target["instrument"]
    at_least, at_most = float(target.get("at_least", 0.0)), float(target.get("at_most", 1.0))
    g = games[games["players"].isin(target["players"]) & (games[f"inst_{dept}"] == inst)]
    s = seats[seats["players"].isin(target["players"]) & (seats[f"inst_{dept}"] == inst)]
    if g.empty:
        return TargetVerdict(target["label"], target["kind"], OPEN, math.nan, math.nan, math.nan, math.inf, "no games")
    st = instrument_stats(s, g, confidence, resamples=200)
    st = st[(st["department"] == dept) & (st["instrument"] == inst)]
    rows = []
    for r in st.itertuples():
        built, lo, hi = 1 - r.unbuilt_rate, 1 - r.unbuilt_hi, 1 - r.unbuilt_lo
        state = MET if at_least <= lo and hi <= at_most else FAILED if hi < at_least or lo > at_most else OPEN
        dist = _band_distance(built, at_least, at_most, 0.05)
        rows.append((int(r.players), built, lo, hi, state, dist))
    worst = max(rows, key=lambda x: x[5])
    band = f"at least {100 * at_least:.0f}%" + (f", at most {100 * at_most:.0f}%" if at_most < 1 else "")
    detail = f"{inst} built in {100 * worst[1]:.1f}% of games [{100 * worst[2]:.1f}, {100 * worst[3]:.1f}] at {worst[0]} players ({band}); " + "; ".join(
        f"{r[0]}p: {r[4]}" for r in rows
    )
    return TargetVerdict(
        target["label"], target["kind"], _combine([r[4] for r in rows]), worst[1], worst[2], worst[3], worst[5], detail
    )


# --------------------------------------------------------------------------- game length


def _rounds(target, seats, games, confidence):
    a, b = (float(x) for x in target["range"])
    g = games[games["players"].isin(target["players"])]
    s = seats[seats["players"].isin(target["players"])]
    if g.empty:
        return TargetVerdict(target["label"], target["kind"], OPEN, math.nan, math.nan, math.nan, math.inf, "no games")
    shape, _ = game_shape(s, g, confidence)
    rows = []
    for r in shape.itertuples():
        state = MET if a <= r.rounds_lo and r.rounds_hi <= b else FAILED if r.rounds_hi < a or r.rounds_lo > b else OPEN
        rows.append((int(r.players), r.instruments, r.rounds_mean, r.rounds_lo, r.rounds_hi, state,
                     _band_distance(r.rounds_mean, a, b, max((b - a) / 2, 0.5))))
    worst = max(rows, key=lambda x: x[6])
    detail = f"{worst[2]:.1f} rounds per game [{worst[3]:.1f}, {worst[4]:.1f}] at {worst[0]} players ({worst[1]}), range {a:g}..{b:g}; " + "; ".join(
        f"{r[0]}p {r[1]}: {r[5]}" for r in rows
    )
    return TargetVerdict(
        target["label"], target["kind"], _combine([r[5] for r in rows]), worst[2], worst[3], worst[4], worst[6], detail
    )


_DECIDERS = {
    "seats_balanced": _seats,
    "objective_vs_department": _objective,
    "built_rate": _built,
    "rounds": _rounds,
}
assert set(_DECIDERS) == set(TARGET_KINDS)


def judge(seats, games, targets, confidence=0.95):
    """The verdict on every target (plain dicts, as validated by ``scenarios.tuning``) in these games."""
    return [_DECIDERS[t["kind"]](t, seats, games, confidence) for t in targets]
