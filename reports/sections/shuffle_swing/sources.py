"""Section 3, scoring sources: where do the points come from?

Score sources (the result tables' own names): ``inspector``, ``objective_<dept>`` (section and
region awards, R10), ``brag_<dept>`` (brag track points at the end, R12) and ``penalty_<dept>``
(the unbuilt-instrument penalty, R12, negative). A seat's ``score`` is their sum.

* :func:`source_means`: mean points per seat, by seat (turn order) and source, per setting;
* :func:`winner_shares`: of the winners' points, the share from each source (ratio of sums, so
  the shares add up to 1; penalties give negative shares).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stats import moments as M
from reports.frames import DEPTS, SETTING, with_setting
from reports.io import tables_of
from stats.moments import Clustered

# The score sources of a seat's total, in the result columns' words.
SOURCES = (
    "inspector",
    *(f"objective_{d}" for d in DEPTS),
    *(f"brag_{d}" for d in DEPTS),
    *(f"penalty_{d}" for d in DEPTS),
)


@dataclass
class ScoringSources:
    """``by_seat``: mean points per setting, seat and source; ``winners``: winners' point shares."""

    by_seat: pd.DataFrame
    winners: pd.DataFrame


def source_means(seats, confidence=0.95):
    """Mean points per seat by source, per setting and seat (``seat`` 0 plays first).

    Columns: players, instruments, seat, n (seat rows), one column per source, score, and the t
    interval of the mean score (score_lo, score_hi). ``seats``: the seats table or a run.
    """
    return _scoring(seats, confidence)[0]


def winner_shares(seats):
    """Share of the winners' points from each source, per setting.

    Columns: players, instruments, winners, winner_score (mean), then ``share_<source>`` for every
    source (sum over winners of that source / sum of their scores). ``seats``: the table or a run.
    """
    return _scoring(seats, 0.95, means=False)[1]


def _scoring(seats, confidence, means=True):
    run = tables_of(seats)
    cells = with_setting(run.cells)
    keys, group = M.groups_of(cells, SETTING)
    cols = [*SOURCES, "score"]
    sums, score, won_sums, winners = {}, {}, {}, {}
    for ch in run.scan(seats=[*cols, "won", "deal"]):
        gi = group[ch.k]
        deal = M.deal_key(ch.k, ch.seats["deal"][:, 0])
        won = ch.seats["won"] == 1
        for seat in range(ch.players):
            key = (gi, seat)
            part = np.stack([ch.seats[c][:, seat] for c in cols], axis=1).astype(float)
            n, tot = sums.get(key, (0, 0.0))
            sums[key] = (n + len(part), tot + part.sum(axis=0))
            if means:
                score.setdefault(key, Clustered(1)).add(part[:, -1], deal)
        w = np.stack([ch.seats[c][won] for c in cols], axis=1).astype(float)
        won_sums[gi] = won_sums.get(gi, 0.0) + w.sum(axis=0)
        winners[gi] = winners.get(gi, 0) + len(w)
    by_seat = None
    if means:
        rows = []
        for gi, seat in sorted(sums):
            n, tot = sums[(gi, seat)]
            _, lo, hi = M.mean_interval(score[(gi, seat)], confidence)
            rows.append((*keys[gi], seat, n, *(tot / n), lo, hi))
        by_seat = pd.DataFrame(rows, columns=[*SETTING, "seat", "n", *cols, "score_lo", "score_hi"])
        by_seat["seat"] = by_seat["seat"].astype("int64")
    rows = []
    for gi in sorted(g for g in winners if winners[g] > 0):
        tot = won_sums[gi]
        total = tot[-1] if tot[-1] != 0 else math.nan
        rows.append((*keys[gi], winners[gi], tot[-1] / winners[gi], *(tot[:-1] / total)))
    win = pd.DataFrame(rows, columns=[*SETTING, "winners", "winner_score", *(f"share_{s}" for s in SOURCES)])
    return by_seat, win


def scoring_sources(seats, confidence=0.95):
    """Both tables of the section (one pass over the seats table, or over a run's chunks)."""
    by_seat, winners = _scoring(seats, confidence)
    return ScoringSources(by_seat=by_seat, winners=winners)


LEVEL_GROUPS = {
    "inspector": ["inspector"],
    "objectives": [f"objective_{d}" for d in DEPTS],
    "brag tracks": [f"brag_{d}" for d in DEPTS],
}


def level_sources(seats, games, winners=True):
    """Per player count and lineup (judge level), in the order the run plays them: the share of the
    winners' points from each group of sources (:data:`LEVEL_GROUPS`) and, per department, the share
    of games its instrument (the lineup's first cell's) was left unbuilt.

    Returns ``{players: [(lineup, {group: share}, {instrument: unbuilt rate}), ...]}`` for every
    player count with more than one lineup (``winners=False``: the unbuilt rates only, from the games
    table alone). ``seats`` and ``games``: the tables, or a run."""
    run = tables_of(seats, games)
    cells = run.cells.assign(lineup=run.cells["lineup"].astype(str))
    levels = cells.groupby("players")["lineup"].nunique()
    wanted = [p for p, n in levels.items() if n > 1]
    if not wanted:
        return {}
    order = {}
    for p, lu in zip(cells["players"], cells["lineup"], strict=True):
        if p in wanted:
            order.setdefault(int(p), {}).setdefault(lu, None)
    first = {}
    for r in cells.itertuples(index=False):
        first.setdefault((int(r.players), r.lineup), {d: str(getattr(r, f"inst_{d}")) for d in DEPTS})
    cols = [c for grp in LEVEL_GROUPS.values() for c in grp]
    ks = [k for k in range(len(cells)) if int(cells["players"].iloc[k]) in order]
    sums, unbuilt, games_n = {}, {}, {}
    seat_cols = ["won", "score", *cols] if winners else []
    for ch in run.scan(seats=seat_cols, games=[f"built_{d}" for d in DEPTS], cells=ks):
        key = (ch.players, cells["lineup"].iloc[ch.k])
        if winners:
            won = ch.seats["won"] == 1
            tot = np.array([float(ch.seats[c][won].sum()) for c in ["score", *cols]])
            sums[key] = sums.get(key, 0.0) + tot
        games_n[key] = games_n.get(key, 0) + len(ch.games[f"built_{DEPTS[0]}"])
        unbuilt[key] = unbuilt.get(key, 0) + np.array([int((ch.games[f"built_{d}"] == 0).sum()) for d in DEPTS])
    out = {}
    for players in sorted(order):
        rows = []
        for lu in order[players]:
            key = (players, lu)
            tot = sums.get(key, np.zeros(1 + len(cols)))
            total = float(tot[0])
            at = {c: float(v) for c, v in zip(cols, tot[1:], strict=True)}
            shares = {k: sum(at[c] for c in grp) / total if total else float("nan") for k, grp in LEVEL_GROUPS.items()}
            n = games_n.get(key, 0)
            rates = {first[key][d]: float(unbuilt[key][i] / n) for i, d in enumerate(DEPTS)}
            rows.append((lu, shares, rates))
        out[players] = rows
    return out
