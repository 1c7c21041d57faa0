"""The headline: one row per player count saying whether the seats are balanced.

With one instrument set per player count the row is that setting's verdict; with many (an
expansion or grid run) it counts the settings' verdicts and names the worst one. When the run
compares strategies, the leading strategy is added.
"""

from __future__ import annotations

import pandas as pd

from reports import stats
from reports.frames import pct

COLUMNS = ["players", "instruments", "games", "win % by seat (seat 1 plays first)", "largest seat gap", "verdict", "note"]


def _gap_text(row):
    if pd.isna(row["gap"]):
        return ""
    return f"{100 * row['gap']:.1f} pp [{100 * row['gap_lo']:.1f}, {100 * row['gap_hi']:.1f}]"


def _leaders(strategies, players):
    if strategies is None or strategies.dominance.empty:
        return ""
    d = strategies.dominance[strategies.dominance["players"] == players]
    if d.empty:
        return ""
    if len(d) == 1:
        row = d.iloc[0]
        return f"{row['leader']} ({'dominates' if row['dominates'] else 'leads'})"
    top = d["leader"].value_counts()
    return f"{top.index[0]} leads in {int(top.iloc[0])} of {len(d)} sets"


def headline_frame(seat_advantage, strategies=None):
    """The headline as a small DataFrame of text cells (see the module doc)."""
    cells = seat_advantage.cells
    rates = seat_advantage.rates
    rows = []
    for players, part in cells.groupby("players", sort=True):
        r = rates[rates["players"] == players]
        pooled = r.groupby("seat")[["wins", "games"]].sum()
        seat_text = " / ".join(pct(w / n) for w, n in zip(pooled["wins"], pooled["games"], strict=True))
        games = int(part["games"].sum())
        if len(part) == 1:
            row = part.iloc[0]
            rows.append(
                [players, row["instruments"], f"{games:,}", seat_text, _gap_text(row), row["verdict"], row["note"]]
            )
            continue
        counts = part["verdict"].value_counts()
        order = [stats.IMBALANCED, stats.BALANCED, stats.INCONCLUSIVE]
        verdict = ", ".join(f"{int(counts[v])} {v}" for v in order if v in counts)
        worst = part.loc[part["gap"].idxmax()]
        imb = part[part["verdict"] == stats.IMBALANCED]
        if len(imb):
            worst = imb.loc[imb["gap"].idxmax()]
        note = f"largest gap in {worst['instruments']}: {worst['note']}"
        rows.append([players, f"{len(part)} sets", f"{games:,}", seat_text, _gap_text(worst), verdict, note])
    frame = pd.DataFrame(rows, columns=COLUMNS)
    leaders = [_leaders(strategies, p) for p in frame["players"]]
    if any(leaders):
        frame.insert(len(COLUMNS) - 1, "leading strategy", leaders)
    return frame


def render_text(frame, margin, confidence, partial=False, title=None):
    """Plain-text rendering for a terminal: a title, an aligned table, then one note per row."""
    title = title or "Seat balance"
    head = (
        f"{title}: verdict per player count (margin ±{100 * margin:.1f} pp of 1/N, {100 * confidence:.0f}% confidence)"
    )
    if partial:
        head = "PARTIAL RUN (unfinished, only the games on disk): " + head
    shown = [c for c in frame.columns if c != "note"]
    cells = [[str(c) for c in shown]] + [[str(v) for v in row] for row in frame[shown].itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(shown))]
    lines = [head, ""]
    for k, r in enumerate(cells):
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [f"  {p} players: {n}" for p, n in zip(frame["players"], frame["note"], strict=True) if n]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def headline_table(seat_advantage, strategies=None, margin=None, confidence=None, partial=False):
    """``(frame, text)``: the headline DataFrame and its plain-text rendering for a terminal.

    ``seat_advantage`` is the :class:`reports.seats.SeatAdvantage` of a run (its margin and
    confidence are used unless given), ``strategies`` an optional
    :class:`reports.strategies.StrategyComparison` adding the leading strategy per player count.
    """
    frame = headline_frame(seat_advantage, strategies)
    margin = seat_advantage.margin if margin is None else margin
    confidence = seat_advantage.confidence if confidence is None else confidence
    return frame, render_text(frame, margin, confidence, partial)
