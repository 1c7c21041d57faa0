"""Section 2, every game's: which strategy wins, and does one dominate (:mod:`reports.strategies`),
per player count and setting, where strategies met in one lineup."""

from __future__ import annotations

import pandas as pd

from reports import charts
from reports import present as P
from reports.document import Table
from reports.seat_section import setting_cols
from reports.seats import is_mirror
from reports.strategies import compare_strategies

KEY = "strategies"
ORDER = 20

MIRRORS_ONLY = (
    "Every lineup of this run is a mirror (one strategy in every seat), so no two strategies met in a "
    "game and none is compared here; the mirror lineups serve as judge levels of the seat verdicts."
)


def build(ctx):
    seats, setting = ctx.tables, ctx.setting
    confidence = ctx.options.confidence
    mixed = any(not is_mirror(lu) for lu in ctx.cells["lineup"].astype(str).unique())
    if not mixed:
        # Mirror lineups of different strategies are separate games: the strategies never met.
        seats = pd.DataFrame(columns=list(ctx.run.seat_columns))
    comp = compare_strategies(seats, confidence, seed=ctx.options.seed, setting=setting)
    ctx.comp = comp
    c = int(100 * confidence)
    sec = ctx.new_section(KEY, "Strategies", "Which strategy wins, and does one dominate?", notes=list(comp.notes))
    if not mixed:
        sec.notes = [MIRRORS_ONLY]
        sec.findings.append(MIRRORS_ONLY)
        return
    if comp.empty:
        sec.findings.append(comp.notes[0] if comp.notes else "No strategy comparison in this run.")
        return
    cols = setting_cols(setting)
    rate_spec = [
        *cols,
        ("strategy", P.text("strategy")),
        ("seats played", P.integer("seats_played")),
        ("wins", P.integer("wins")),
        (f"win % per seat [{c}% CI]", P.rate("win_rate", "win_lo", "win_hi")),
        ("fair share %", P.rate("fair_share")),
        (f"mean score [{c}% CI]", P.points("score_mean", "score_lo", "score_hi")),
    ]
    h2h_spec = [
        *cols,
        ("strategy", P.text("strategy")),
        ("opponent", P.text("opponent")),
        ("shared games", P.integer("games")),
        (f"ahead % [{c}% CI]", P.rate("share", "share_lo", "share_hi")),
    ]
    rating_spec = [
        *cols,
        ("strategy", P.text("strategy")),
        ("seat pairs", P.integer("comparisons")),
        (f"strength [{c}% bootstrap CI]", P.points("strength", "strength_lo", "strength_hi", 2)),
        ("beats an average strategy %", P.rate("p_beat_average")),
    ]
    dom_spec = [
        *cols,
        ("strategies", P.text("strategies")),
        ("leader", P.text("leader")),
        ("leader win %", P.rate("leader_win_rate")),
        ("dominates", lambda r: "yes" if r["dominates"] else "no"),
        ("note", P.text("note")),
    ]
    sec.charts = [charts.strategy_win_rates(comp.rates, confidence)]
    if len(comp.head_to_head):
        # Mirror lineups of different strategies never meet: no head-to-head to draw.
        sec.charts.append(charts.head_to_head(comp.head_to_head))
    if comp.ratings["strength"].notna().any():
        sec.charts.append(charts.ratings(comp.ratings, confidence, label=setting.label))
    sec.tables = [
        Table("strategy_dominance", f"Leader per player count and {setting.words}", comp.dominance,
              P.present(comp.dominance, dom_spec)),
        Table("strategy_win_rates", "Win rate and mean score per strategy", comp.rates, P.present(comp.rates, rate_spec)),
        Table(
            "strategy_head_to_head",
            "Head-to-head: share of shared games where the strategy finished ahead "
            "of the opponent (best-placed seat of each)",
            comp.head_to_head,
            P.present(comp.head_to_head, h2h_spec),
        ),
        Table(
            "strategy_ratings",
            "Bradley-Terry rating on finishing orders (seat pairs of different strategies), bootstrap over games",
            comp.ratings,
            P.present(comp.ratings, rating_spec),
        ),
    ]
    for row in comp.dominance.head(12).to_dict("records"):
        sec.findings.append(f"{row['players']} players, {row[setting.label]}: {row['note']}.")
