"""Verdicts of a balance search's targets, taken from the report's own tests (one adapter module).

``ssb tune`` asks, for each candidate change of the data, whether its *targets* are met. A target
is one of the verdicts the report already computes; this module only picks the report function
that decides it and reads its answer, so the search and the report never disagree:

=========================  =====================================================================
target kind                decided by
=========================  =====================================================================
``seats_balanced``         :func:`reports.seats.seat_advantage`, the seat section's verdict per
                           cell (player count x instrument set x lineup, never pooled; exact
                           binomial TOST per seat and Holm within the cell for mirror lineups,
                           the seat-and-strategy model for mixed ones): *met* when every cell
                           is fair, *failed* when one is unfair
``objective_vs_department`` the report's instrument comparison
                           (:func:`reports.instrument_verdicts.instrument_effect`): the
                           instrument's objective points per game minus its department's
                           reference (its instrument in the scenario's first set), paired deal by deal (the sets of a
                           scenario share their deals; Welch on older unpaired results), with
                           its interval at 1 - alpha / K, K the target's player counts
                           (Bonferroni, as the report's section does over its intervals);
                           *met* when the interval lies within the margin (in line), *failed*
                           when it lies beyond (out of line)
``built_rate``             :func:`reports.instruments.instrument_stats` (clustered Wilson interval
                           of the unbuilt rate): *met* when the whole interval of the build rate
                           lies inside ``[at_least, at_most]``, *failed* when it lies outside
``rounds``                 :func:`reports.shape.game_shape` (t interval of rounds per game on
                           deals): *met* when every setting's interval lies inside the range,
                           *failed* when one lies wholly outside
``stalled``                the game-shape section's stalled games (clustered Wilson interval of
                           the stalled rate; :func:`reports.shape.game_shape` for Shuffle and
                           Swing, the same interval per setting as the generic shape section,
                           ``reports/sections/shape.py``, for another game): *met* when every setting's interval
                           lies at or below ``at_most``, *failed* when one lies wholly above
=========================  =====================================================================

Tables of another game (its setting columns, e.g. board and variant, in place of the instrument
set: :func:`reports.frames.setting_of_table`) are judged as its report judges them: the seat verdict
on its setting (games without a winner left out), rounds and stalled games per player count,
setting and lineup.

Anything else is *open* (more games would tell). Every verdict carries its estimate and interval,
and a ``distance``: how far the estimate is from the acceptable region in units of the target's
own tolerance (below 1 when the estimate is inside), which the search uses to rank candidates that
do not meet the target yet.

When the report's seat or instrument verdicts change, this module is the one place that follows
them. It reads result tables only (no kernel).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from stats import tests as stats
from reports.frames import DEFAULT_SETTING, deal_ids, decided_games, setting_of_table
from reports.instrument_verdicts import IN_LINE, OUT, instrument_effect, interval_verdict
from stats.tests import simultaneous_interval
from reports.instruments import instrument_stats
from reports.seats import seat_advantage
from reports.shape import game_shape

MET, FAILED, OPEN = "met", "failed", "open"
TARGET_KINDS = ("seats_balanced", "objective_vs_department", "built_rate", "rounds", "stalled")


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


def is_other_game(games):
    """True for the tables of another game than the default one (other setting columns)."""
    return setting_of_table(games).columns != DEFAULT_SETTING.columns


def _settings(games):
    """Another game's settings: (players, <its setting columns>, lineup) groups, as its report forms them."""
    return games.groupby(["players", *setting_of_table(games).columns, "lineup"], sort=True)


def _seats(target, seats, games, confidence):
    g = decided_games(games[games["players"].isin(target["players"])])  # as the report: games without a winner left out
    if g.empty:
        return TargetVerdict(target["label"], target["kind"], OPEN, math.nan, math.nan, math.nan, math.inf, "no games")
    margin = float(target["margin"])
    sa = seat_advantage(g, margin=margin, confidence=confidence, resamples=200, setting=setting_of_table(g))
    states = [
        MET if v == stats.FAIR else FAILED if v == stats.UNFAIR else OPEN for v in sa.cells["verdict"]
    ]
    # The seat's win rate as judged: the raw rate in mirror cells, the model's rate among equal players
    # in mixed ones (a cell the model cannot judge has none).
    r = sa.rates[sa.rates["seat_rate"].notna()]
    if r.empty:
        notes = "; ".join(f"{int(c.players)}p: {c.verdict} ({c.level})" for c in sa.cells.itertuples())
        return TargetVerdict(target["label"], target["kind"], _combine(states), math.nan, math.nan, math.nan,
                             math.inf, f"no seat could be judged; {notes}")
    dev_all = (r["seat_rate"] - r["fair_share"]).to_numpy()
    worst = r.iloc[int(np.argmax(np.abs(dev_all)))]
    dev = float(worst["seat_rate"] - worst["fair_share"])
    lo, hi = float(worst["seat_lo"] - worst["fair_share"]), float(worst["seat_hi"] - worst["fair_share"])
    notes = "; ".join(f"{int(c.players)}p: {c.verdict} ({c.level})" for c in sa.cells.itertuples())
    detail = (
        f"largest seat deviation {100 * dev:+.1f} pp (seat {int(worst['seat']) + 1}, {int(worst['players'])} players, "
        f"{worst['level']}) against a {100 * margin:.1f} pp margin; {notes}"
    )
    return TargetVerdict(target["label"], target["kind"], _combine(states), dev, lo, hi, abs(dev) / margin, detail)


# --------------------------------------------------------------------------- objective points


def _objective(target, seats, games, confidence):
    dept, inst, margin = target["department"], target["instrument"], float(target["margin"])
    alpha = stats.alpha_of(confidence)
    eff = instrument_effect(seats, games, dept, inst, "objective_points", players=target["players"])
    if eff.empty:
        return TargetVerdict(
            target["label"], target["kind"], OPEN, math.nan, math.nan, math.nan, math.inf, "no comparable games"
        )
    lo, hi = simultaneous_interval(eff["effect"].to_numpy(), eff["se"].to_numpy(), eff["df"].to_numpy(), alpha,
                                   len(eff))
    rows = []
    for r, a, b in zip(eff.itertuples(index=False), lo, hi, strict=True):
        v = interval_verdict(a, b, margin)
        state = MET if v == IN_LINE else FAILED if v == OUT else OPEN
        rows.append((int(r.players), float(r.effect), float(a), float(b), state, bool(r.paired)))
    states = [x[4] for x in rows]
    worst = max(range(len(rows)), key=lambda i: abs(rows[i][1]))
    players, d, lo_w, hi_w = rows[worst][:4]
    how = "paired by deal" if all(x[5] for x in rows) else "not all on shared deals (Welch)"
    detail = (
        f"{inst} hands out {d:+.1f} objective points per game [{lo_w:+.1f}, {hi_w:+.1f}] against {eff['reference'].iloc[worst]}, "
        f"the {dept} reference, at {players} players (margin {margin:g}, {how}); "
        + "; ".join(f"{x[0]}p: {x[4]}" for x in rows)
    )
    return TargetVerdict(target["label"], target["kind"], _combine(states), d, lo_w, hi_w, abs(d) / margin, detail)


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


def _other_shape(games, confidence):
    """Rows like ``game_shape``'s for another game: rounds (t interval on deals) and stalled games
    (clustered Wilson) per setting, the intervals the generic shape section prints."""
    g = games.copy()
    g["_deal"] = deal_ids(g)
    rows = []
    for key, part in _settings(g):
        players = key[0]
        r, rlo, rhi = stats.mean_interval(part["rounds"].to_numpy(dtype=float), confidence, cluster=part["_deal"].to_numpy())[:3]
        st, slo, shi, _ = stats.wilson_clustered(part["stalled"].to_numpy() > 0, part["_deal"].to_numpy(), confidence)
        rows.append(dict(players=int(players), instruments="/".join(map(str, key[1:])), rounds_mean=r, rounds_lo=rlo,
                         rounds_hi=rhi, stalled_rate=st, stalled_lo=slo, stalled_hi=shi))
    return pd.DataFrame(rows)


def _shape(target, seats, games, confidence):
    """The game-shape rows of the target's player counts (None when there are no games)."""
    g = games[games["players"].isin(target["players"])]
    s = seats[seats["players"].isin(target["players"])]
    if g.empty:
        return None
    if is_other_game(g):
        return _other_shape(g, confidence)
    return game_shape(s, g, confidence)[0]


def _no_games(target):
    return TargetVerdict(target["label"], target["kind"], OPEN, math.nan, math.nan, math.nan, math.inf, "no games")


def _rounds(target, seats, games, confidence):
    a, b = (float(x) for x in target["range"])
    shape = _shape(target, seats, games, confidence)
    if shape is None:
        return _no_games(target)
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


# --------------------------------------------------------------------------- stalled games


def _stalled(target, seats, games, confidence):
    cap = float(target["at_most"])
    shape = _shape(target, seats, games, confidence)
    if shape is None:
        return _no_games(target)
    rows = []
    for r in shape.itertuples():
        state = MET if r.stalled_hi <= cap else FAILED if r.stalled_lo > cap else OPEN
        rows.append((int(r.players), r.instruments, float(r.stalled_rate), float(r.stalled_lo), float(r.stalled_hi),
                     state, _band_distance(float(r.stalled_rate), -math.inf, cap, max(cap, 0.01))))
    worst = max(rows, key=lambda x: (x[2], x[6]))
    detail = (f"{100 * worst[2]:.1f}% of games stalled [{100 * worst[3]:.1f}, {100 * worst[4]:.1f}] at {worst[0]} players "
              f"({worst[1]}), at most {100 * cap:g}%; " + "; ".join(f"{r[0]}p {r[1]}: {r[5]}" for r in rows))
    return TargetVerdict(
        target["label"], target["kind"], _combine([r[5] for r in rows]), worst[2], worst[3], worst[4], worst[6], detail
    )


_DECIDERS = {
    "seats_balanced": _seats,
    "objective_vs_department": _objective,
    "built_rate": _built,
    "rounds": _rounds,
    "stalled": _stalled,
}
assert set(_DECIDERS) == set(TARGET_KINDS)


def judge(seats, games, targets, confidence=0.95):
    """The verdict on every target (plain dicts, as validated by ``scenarios.tuning``) in these games."""
    return [_DECIDERS[t["kind"]](t, seats, games, confidence) for t in targets]
