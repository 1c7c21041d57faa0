"""Section 5, game shape: how long do games last, and how close do they finish?

Per setting: rounds per game (mean with t interval, median, 10th and 90th percentile), stalled games
(the safety cap ended them, R11; Wilson), passes per game (turns where no die could be taken, R3,
summed over seats), and the spread of final scores: the standard deviation of the seats' scores
within a game and the winner's margin over the runner-up (0 when the tie-break decided).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from stats import moments as M
from reports.frames import SETTING, with_setting
from reports.io import tables_of
from stats.moments import Clustered, Histogram


SHAPE_GAMES = ["deal", "rounds", "stalled"]
SHAPE_SEATS = ["score", "rank", "passes"]


def _per_game(ch):
    """Per game of one chunk: passes (summed over the seats), the spread of the seats' scores
    (population standard deviation) and the winner's margin over the runner-up (NaN without one)."""
    score = ch.seats["score"].astype(float)
    rank = ch.seats["rank"]
    passes = ch.seats["passes"].sum(axis=1)
    spread = score.std(axis=1) if score.shape[1] else np.full(len(score), np.nan)
    rows = np.arange(len(score))
    top = []
    for r in (1, 2):
        at = rank == r
        has = at.any(axis=1)
        top.append(np.where(has, score[rows, np.argmax(at, axis=1)], np.nan))
    return passes, spread, top[0] - top[1]


def per_game_shape(seats, games):
    """The distribution of game length and winner's margin: one row per setting, rounds and margin
    value, with ``count`` the games that had them (``winner_margin`` NaN: no runner-up)."""
    return game_shape(seats, games)[1]


def game_shape(seats, games, confidence=0.95):
    """``(table, per)``: one row per setting with the figures of the module doc, and the counts of
    (rounds, winner margin) per setting that the charts draw (:func:`per_game_shape`).
    ``seats`` and ``games``: the tables, or a run (either argument)."""
    run = tables_of(seats, games)
    cells = with_setting(run.cells)
    keys, group = M.groups_of(cells, SETTING)
    acc = {}
    for ch in run.scan(seats=SHAPE_SEATS, games=SHAPE_GAMES):
        a = acc.get(group[ch.k])
        if a is None:
            a = acc[group[ch.k]] = {"n": 0, "rounds": Clustered(1), "stalled": Clustered(1), "passes": Clustered(1),
                                    "sd": Clustered(1), "margin": Clustered(1), "joint": {}, "stalled_n": 0}
        g = ch.games
        deal = M.deal_key(ch.k, g["deal"])
        passes, spread, margin = _per_game(ch)
        a["n"] += len(deal)
        a["rounds"].add(g["rounds"], deal)
        a["stalled"].add((g["stalled"] > 0).astype(float), deal)
        a["stalled_n"] += int(g["stalled"].sum())
        a["passes"].add(passes, deal)
        ok = ~np.isnan(spread)
        a["sd"].add(spread[ok], deal[ok])
        ok = ~np.isnan(margin)
        a["margin"].add(margin[ok], deal[ok])
        pairs = pd.DataFrame({"r": g["rounds"], "m": margin}).value_counts(dropna=False)
        for (r, m), c in pairs.items():
            key = (int(r), None if math.isnan(m) else float(m))
            a["joint"][key] = a["joint"].get(key, 0) + int(c)
    rows, per = [], []
    for gi in sorted(acc):
        a = acc[gi]
        players, inst = keys[gi]
        n = a["n"]
        mean, lo, hi = M.mean_interval(a["rounds"], confidence)
        _, s_lo, s_hi, _ = M.wilson_clustered(a["stalled"], confidence)
        p_mean, p_lo, p_hi = M.mean_interval(a["passes"], confidence)
        m_mean, m_lo, m_hi = M.mean_interval(a["margin"], confidence)
        rounds, margins = Histogram(), Histogram()
        for (r, m), c in a["joint"].items():
            rounds.counts[r] = rounds.counts.get(r, 0) + c
            per.append((players, inst, r, math.nan if m is None else m, c))
            if m is not None:
                margins.counts[m] = margins.counts.get(m, 0) + c
        stalled = a["stalled_n"]
        rows.append(
            {
                "players": players,
                "instruments": inst,
                "games": n,
                "rounds_mean": mean,
                "rounds_lo": lo,
                "rounds_hi": hi,
                "rounds_p10": rounds.quantile(0.1),
                "rounds_median": rounds.median(),
                "rounds_p90": rounds.quantile(0.9),
                "stalled": stalled,
                "stalled_rate": stalled / n,
                "stalled_lo": float(s_lo),
                "stalled_hi": float(s_hi),
                "passes_mean": p_mean,
                "passes_lo": p_lo,
                "passes_hi": p_hi,
                "score_std_mean": float(a["sd"].mean[0]) if a["sd"].n else math.nan,
                "winner_margin_mean": m_mean,
                "winner_margin_lo": m_lo,
                "winner_margin_hi": m_hi,
                "winner_margin_median": margins.median(),
            }
        )
    per = pd.DataFrame(per, columns=[*SETTING, "rounds", "winner_margin", "count"])
    per = per.sort_values([*SETTING, "rounds", "winner_margin"], kind="stable").reset_index(drop=True)
    return pd.DataFrame(rows), per
