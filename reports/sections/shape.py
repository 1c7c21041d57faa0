"""Game shape, every game's: rounds per game and stalled games per setting and judge, and the mean
per game of each seat's own counters (the seat columns the game declares after ``strategy``)."""

from __future__ import annotations

import pandas as pd

from reports import present as P
from stats import tests as stats
from reports.document import Table
from reports.frames import deal_ids
from reports.seats import level_label

KEY = "shape"
ORDER = 60


def shape_table(games, confidence, setting):
    """One row per player count, setting and lineup: games, rounds (t interval over deals) and, for a
    game that records stalls, the stalled share (Wilson, clustered by deal)."""
    keys = ["players", *setting.columns, "lineup"]
    stalls = "stalled" in games.columns
    g = games.copy()
    g["_deal"] = deal_ids(g)
    rows = []
    for key, part in g.groupby(keys, sort=True):
        deal = part["_deal"].to_numpy()
        r, rlo, rhi = stats.mean_interval(part["rounds"].to_numpy(dtype=float), confidence, cluster=deal)[:3]
        row = {**dict(zip(keys[:-1], key[:-1], strict=True)), "judge": level_label(key[-1]), "games": len(part),
               "rounds": r, "rounds_lo": rlo, "rounds_hi": rhi}
        if stalls:
            st, lo, hi, _ = stats.wilson_clustered(part["stalled"].to_numpy(), deal, confidence)
            row.update(stalled=st, stalled_lo=lo, stalled_hi=hi)
        rows.append(row)
    return pd.DataFrame(rows)


def seat_counters(seats, setting, seat_columns):
    """The mean per game of each seat's counters (its own seat columns but ``won`` and ``rank``)."""
    own = list(seat_columns)[list(seat_columns).index("strategy") + 1 :] if "strategy" in seat_columns else list(seat_columns)
    counters = [k for k in own if k not in ("won", "rank") and k in seats.columns]
    keys = ["players", *setting.columns, "lineup", "seat"]
    per_seat = seats.groupby(keys, sort=True)[counters].mean().reset_index()
    per_seat["judge"] = per_seat["lineup"].map(level_label)
    return per_seat, counters


def build(ctx):
    setting, games, confidence = ctx.setting, ctx.games, ctx.options.confidence
    shape = shape_table(games, confidence, setting)
    c = int(100 * confidence)
    where = [(col, P.text(col)) for col in setting.columns]
    spec = [
        ("players", P.integer("players")),
        *where,
        ("judge (lineup)", P.text("judge")),
        ("games", P.integer("games")),
        (f"rounds [{c}% CI]", P.points("rounds", "rounds_lo", "rounds_hi")),
    ]
    if "stalled" in shape.columns:
        spec.append((f"stalled % [{c}% CI]", P.rate("stalled", "stalled_lo", "stalled_hi")))
    declared = ctx.run.manifest.get("columns", {}).get("seats") or ("strategy", *ctx.game.seat_columns)
    per_seat, counters = seat_counters(ctx.seats, setting, declared)
    seat_spec = [(k, P.text(k)) for k in ("players", *setting.columns)] + [
        ("judge (lineup)", P.text("judge")), ("seat", P.seat("seat"))] + [
        (k.replace("_", " "), (lambda name: (lambda row: f"{row[name]:.2f}"))(k)) for k in counters
    ]
    sec = ctx.new_section(KEY, "Game shape", "How long are the games, how often do they stall, what does each seat do?")
    sec.tables.append(Table("game_shape", "Rounds and stalled games", shape, P.present(shape, spec)))
    sec.tables.append(Table("seat_counters", "Mean per game of each seat's counters", per_seat, P.present(per_seat, seat_spec)))
    if "stalled" in games.columns:
        stalled = int(games["stalled"].sum())
        left_out = f" (left out of section {ctx.number('seats')})" if ctx.game.gate.stalls else ""
        sec.findings.append(f"{stalled:,} of {len(games):,} games reached the stall cap{left_out}.")
