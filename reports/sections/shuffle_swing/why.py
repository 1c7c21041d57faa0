"""The why of a seat edge: how much of it the tie-break rule (R13) hands out, and how much is won on points.

R13: a tie for the highest total goes to the tied player latest in turn order. Every game the
tie-break decides is a win for a later seat, so part of a later seat's edge (or of a first player's
shortfall) can be the rule, not the play. The result tables show it exactly, on the same games:

* **wins on points**: games the seat won with the highest total alone;
* **wins by the tie-break**: games the seat won tied on the highest total (``tiebreak`` > 0);
* **with tied wins shared**: the seat's win rate when every tie for the highest total is shared,
  1/k to each of the k tied seats (the tied seats are those on the highest score, from the seats
  table), the same games read another way.

For a seat at rate ``p`` (fair share 1/N) and ``p_shared`` with tied wins shared, the edge
``p - 1/N`` splits into ``p - p_shared`` (the tie-break's part) and ``p_shared - 1/N`` (the part won
on points). Reading the same games another way is exact for the outcome when the players' decisions
do not depend on who wins a tie (greedy and tuned never look at it; a search player values a win, so
its play can change): the ruling switch ``tie_break`` of ``[rulings]`` in board.toml
(``"shared"``, ``"earliest"``) plays the other readings on the same deals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stats import moments as M
from stats import tests as stats
from reports.answers import seat_words
from reports.frames import with_setting
from reports.io import tables_of
from stats.moments import Clustered
from reports.seats import CELL, is_mirror

COLUMNS = [
    "players", "instruments", "lineup", "level", "seat", "games", "win_rate", "points_rate", "tiebreak_rate",
    "shared_rate", "shared_lo", "shared_hi", "edge", "tiebreak_part", "points_part", "ties_decided",
]


def tiebreak_shares(seats, games, confidence=0.95, sequential=None):
    """One row per mirror cell and seat: the win rate as decided, on points, by the tie-break, and with
    tied wins shared (with its interval counting deals), and the edge split (module doc).
    ``seats`` and ``games``: the tables, or a run (either argument). ``sequential``: the manifest's
    record of a sequential run; its cells stopped when their verdict was decided, so the shared rate's
    interval is then a confidence sequence at the run's confidence (the beta mixture of
    :func:`stats.sequences.confidence_sequence` on the shares, each in [0, 1]: a mixture
    of likelihood ratios stays a test supermartingale for values in [0, 1], one game per deal)."""
    run = tables_of(seats, games)
    cells = with_setting(run.cells)
    cells["lineup"] = cells["lineup"].astype(str)
    mirror = [k for k in range(len(cells)) if is_mirror(cells["lineup"].iloc[k])]
    if not mirror:
        return pd.DataFrame(columns=COLUMNS)
    keys, group = M.groups_of(cells, CELL)
    acc = {}
    for ch in run.scan(seats=["score"], games=["deal", "winner", "tiebreak"], cells=mirror):
        gi = group[ch.k]
        n = ch.players
        a = acc.get(gi)
        if a is None:
            a = acc[gi] = {"games": 0, "shared": [Clustered(1) for _ in range(n)], "shared_sum": np.zeros(n),
                           "won": np.zeros(n),
                           "points": np.zeros(n), "tiebreak": np.zeros(n), "decided": 0}
        g = ch.games
        deal = M.deal_key(ch.k, g["deal"])
        score = ch.seats["score"]
        on_top = score == score.max(axis=1, keepdims=True)
        share = on_top / on_top.sum(axis=1, keepdims=True)
        winner = g["winner"].astype(int)
        by_tb = g["tiebreak"] > 0
        a["games"] += len(winner)
        a["decided"] += int(by_tb.sum())
        for seat in range(n):
            won = winner == seat
            a["shared"][seat].add(share[:, seat], deal)
            a["shared_sum"][seat] += float(share[:, seat].sum())
            a["won"][seat] += won.sum()
            a["points"][seat] += (won & ~by_tb).sum()
            a["tiebreak"][seat] += (won & by_tb).sum()
    rows = []
    for gi in sorted(acc):
        players, inst, lineup = keys[gi]
        a = acc[gi]
        n, games = int(players), a["games"]
        for seat in range(n):
            rate, lo, hi, _ = M.wilson_clustered(a["shared"][seat], confidence)
            if sequential:
                lo, hi = shared_sequence(a["shared_sum"][seat], games, n, sequential, confidence)
            win = float(a["won"][seat] / games)
            rows.append(
                {
                    "players": n, "instruments": inst, "lineup": lineup, "level": _level(lineup), "seat": seat,
                    "games": games, "win_rate": win, "points_rate": float(a["points"][seat] / games),
                    "tiebreak_rate": float(a["tiebreak"][seat] / games), "shared_rate": rate, "shared_lo": lo,
                    "shared_hi": hi, "edge": win - 1.0 / n, "tiebreak_part": win - rate,
                    "points_part": rate - 1.0 / n, "ties_decided": float(a["decided"] / games),
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def shared_sequence(total, games, players, sequential, confidence=0.95):
    """``(lo, hi)``: the confidence sequence of a seat's rate with tied wins shared (``total`` shares
    over ``games`` deals of a mirror cell), at the sequential run's margin and confidence."""
    from stats import sequences as SS

    settings = (sequential or {}).get("settings", {})
    margin = float(settings.get("margin", 0.03))
    conf = float(settings.get("confidence", confidence))
    r = SS.prior_strength(players, margin, conf)
    return SS.confidence_sequence(float(total), int(games), r, conf)


def _level(lineup):
    names = [x.strip() for x in str(lineup).split(",")]
    return f"{names[0]} x{len(names)}"


def why_sentence(row):
    """The edge of one seat split into the tie-break's part and the part won on points."""
    who = seat_words(row["seat"], row["players"])
    edge, tb, pts = 100 * row["edge"], 100 * row["tiebreak_part"], 100 * row["points_part"]
    shared = f"{100 * row['shared_rate']:.1f}% [{100 * row['shared_lo']:.1f}, {100 * row['shared_hi']:.1f}]"
    decided = f"the tie-break decides {100 * row['ties_decided']:.1f}% of the games"
    head = f"{row['players']} players, {row['level']}: {who} wins {100 * row['win_rate']:.1f}% ({edge:+.1f} pp)"
    if abs(edge) < 1e-9:
        return f"{head}; {decided}."
    if (tb > 0) == (edge > 0) and abs(tb) >= 0.05:
        frac = min(abs(tb / edge), 9.99)
        return (
            f"{head}: {tb:+.1f} pp of it ({100 * frac:.0f}%) from ties the R13 tie-break gives to the later seat, "
            f"{pts:+.1f} pp on points ({decided}); with tied wins shared it would win {shared}."
        )
    if abs(tb) < 0.05:
        return f"{head}, all of it on points; the R13 tie-break plays no part in it ({decided})."
    return (
        f"{head}, all of it on points ({pts:+.1f} pp); the R13 tie-break moves it {tb:+.1f} pp ({decided}); "
        f"with tied wins shared it would win {shared}."
    )


def why_lines(shares, cells):
    """One line per unfair mirror cell: the seat furthest from fair, its edge split (module doc)."""
    if shares.empty:
        return []
    out = []
    imb = cells[cells["verdict"] == stats.UNFAIR]
    for row in imb.itertuples(index=False):
        part = shares[(shares["players"] == row.players) & (shares["instruments"] == row.instruments)
                      & (shares["lineup"] == row.lineup)]
        if part.empty:
            continue
        # Two players: said of the first player, as the answers are; else the seat furthest from fair.
        far = part[part["seat"] == 0].iloc[0] if row.players == 2 else part.loc[part["edge"].abs().idxmax()]
        out.append(why_sentence(far))
    return out


__all__ = ["COLUMNS", "tiebreak_shares", "why_lines", "why_sentence"]
