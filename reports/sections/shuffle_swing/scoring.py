"""Shuffle and Swing: where the points come from and what wins games (:mod:`reports.sections.shuffle_swing.sources`), with
the winners' main point source per judge."""

from __future__ import annotations

from reports import present as P
from reports.document import Table
from reports.frames import DEPTS, pct
from reports.seat_section import setting_cols
from reports.sections.shuffle_swing import source_charts
from reports.sections.shuffle_swing.sources import SOURCES, level_sources, scoring_sources
from reports.seats import level_label

KEY = "scoring"
ORDER = 40
GROUPS = {
    "inspector": ["inspector"],
    "objectives": [f"objective_{d}" for d in DEPTS],
    "brag tracks": [f"brag_{d}" for d in DEPTS],
}


def agreement_word(tops):
    return "robust (every judge agrees)" if len(set(tops)) == 1 else "skill-sensitive (judges disagree)"


def judged_player_counts(games):
    """``(players, its lineups)`` for the player counts judged by more than one lineup (none when
    every player count has one)."""
    levels = games.groupby("players")["lineup"].nunique()
    if (levels <= 1).all():
        return []
    out = []
    for players, gp in games.groupby("players", sort=True):
        lineups = list(dict.fromkeys(gp["lineup"].astype(str)))
        if len(lineups) >= 2:
            out.append((players, gp, lineups))
    return out


def level_findings(seats, games):
    """Per player count judged by several lineups: the largest share of the winners' points per judge,
    and whether the judges agree (``seats`` and ``games``: the tables, or a run)."""
    out = []
    for players, levels in level_sources(seats, games).items():
        tops, parts = [], []
        for lu, shares, _ in levels:
            top = max(shares, key=lambda k: shares[k])
            tops.append(top)
            parts.append(f"{level_label(lu)}: {top} {pct(shares[top])}%")
        out.append(f"{players} players, largest share of the winners' points per judge: {'; '.join(parts)}: "
                   f"{agreement_word(tops)}.")
    return out


def build(ctx):
    seats, confidence = ctx.tables, ctx.options.confidence
    sc = scoring_sources(seats, confidence)
    c = int(100 * confidence)
    cols = setting_cols(ctx.setting)
    seat_spec = [*cols, ("seat", P.seat("seat")), ("seats", P.integer("n"))]
    seat_spec += [(src, P.points(src)) for src in SOURCES]
    seat_spec.append((f"score [{c}% CI]", P.points("score", "score_lo", "score_hi")))
    win_spec = [*cols, ("winners", P.integer("winners")), ("winner score", P.points("winner_score"))]
    win_spec += [(f"{src} %", P.rate(f"share_{src}")) for src in SOURCES]
    sec = ctx.new_section(
        KEY,
        "Scoring sources",
        "Where do the points come from, and what wins games?",
        charts=[source_charts.source_bars(sc.by_seat), source_charts.winner_share_bars(sc.winners)],
        tables=[
            Table("score_sources_by_seat", "Mean points per seat by source", sc.by_seat, P.present(sc.by_seat, seat_spec)),
            Table(
                "winner_point_shares",
                "Share of the winners' points from each source (penalties negative)",
                sc.winners,
                P.present(sc.winners, win_spec),
            ),
        ],
    )
    sec.notes.append("Penalties (R12) are negative points; the charts sum the three departments' penalties.")
    for players, part in sc.winners.groupby("players"):
        tot = (part["winner_score"] * part["winners"]).sum()
        shares = {}
        for group, gcols in (*GROUPS.items(), ("penalties", [f"penalty_{d}" for d in DEPTS])):
            shares[group] = sum((part[f"share_{c}"] * part["winner_score"] * part["winners"]).sum() for c in gcols) / tot
        sec.findings.append(
            f"{players} players: winners' points come from " + ", ".join(f"{k} {pct(v)}%" for k, v in shares.items()) + "."
        )
    sec.findings += level_findings(seats, ctx.tables)
