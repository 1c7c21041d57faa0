"""Shuffle and Swing's game shape, in place of the generic one: rounds, stalls (R11), passes (R3),
the spread of the final scores and the winner's margin, per setting (:mod:`reports.shape`)."""

from __future__ import annotations

from reports import charts
from reports import present as P
from reports.document import Table
from reports.frames import pct
from reports.seat_section import setting_cols
from reports.shape import game_shape

KEY = "shape"
ORDER = 60


def build(ctx):
    confidence = ctx.options.confidence
    table, per = game_shape(ctx.tables, ctx.tables, confidence)
    c = int(100 * confidence)
    spec = [
        *setting_cols(ctx.setting),
        ("games", P.integer("games")),
        (f"rounds [{c}% CI]", P.points("rounds_mean", "rounds_lo", "rounds_hi")),
        (
            "rounds p10 / median / p90",
            lambda r: f"{r['rounds_p10']:.0f} / {r['rounds_median']:.0f} / {r['rounds_p90']:.0f}",
        ),
        (f"stalled % [{c}% CI]", P.rate("stalled_rate", "stalled_lo", "stalled_hi", 2)),
        (f"passes per game [{c}% CI]", P.points("passes_mean", "passes_lo", "passes_hi", 2)),
        ("score std within game", P.points("score_std_mean")),
        (f"winner margin [{c}% CI]", P.points("winner_margin_mean", "winner_margin_lo", "winner_margin_hi")),
        ("winner margin median", P.points("winner_margin_median")),
    ]
    sec = ctx.new_section(
        KEY,
        "Game shape",
        "How long do games last, do they stall, and how close do they finish?",
        charts=[charts.rounds_histogram(per), charts.margin_histogram(per)],
        tables=[Table("game_shape", "Game length, stalls, passes and score spread", table, P.present(table, spec))],
    )
    sec.notes.append(
        "A stalled game reached the safety cap on rounds (R11); a pass is a turn where no die "
        "could be taken (R3). The winner's margin is 0 when the tie-break decided."
    )
    for players, part in table.groupby("players"):
        n = part["games"].sum()
        stalled = part["stalled"].sum()
        sec.findings.append(
            f"{players} players: median {part['rounds_median'].median():.0f} rounds, "
            f"{pct(stalled / n, 2)}% stalled, mean winner margin "
            f"{(part['winner_margin_mean'] * part['games']).sum() / n:.1f} points."
        )
