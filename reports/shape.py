"""Section 5, game shape: how long do games last, and how close do they finish?

Per setting: rounds per game (mean with t interval, median, 10th and 90th percentile), stalled games
(the safety cap ended them, R11; Wilson), passes per game (turns where no die could be taken, R3,
summed over seats), and the spread of final scores: the standard deviation of the seats' scores
within a game and the winner's margin over the runner-up (0 when the tie-break decided).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports import stats
from reports.frames import GAME_ID, SETTING, deal_ids, with_setting


def per_game_shape(seats, games):
    """One row per game: setting, rounds, stalled, passes, score_std, winner_margin."""
    g = with_setting(games)
    s = seats.sort_values([*GAME_ID, "rank"], kind="stable")
    grouped = s.groupby(GAME_ID, sort=False)
    spread = grouped["score"].std(ddof=0).rename("score_std")
    passes = grouped["passes"].sum().rename("passes")
    top2 = s[s["rank"] <= 2].pivot_table(index=GAME_ID, columns="rank", values="score", aggfunc="first")
    margin = (top2[1] - top2[2]).rename("winner_margin") if 2 in top2.columns else pd.Series(dtype=float)
    g["deal_id"] = deal_ids(g)
    out = g.set_index(GAME_ID)[[*SETTING, "deal_id", "rounds", "stalled"]].join(passes).join(spread).join(margin)
    return out.reset_index()


def game_shape(seats, games, confidence=0.95):
    """One row per setting with the figures of the module doc."""
    per = per_game_shape(seats, games)
    rows = []
    for (players, inst), part in per.groupby(SETTING, sort=True):
        n = len(part)
        deal = part["deal_id"].to_numpy()
        r = part["rounds"].to_numpy(dtype=float)
        mean, lo, hi = stats.mean_interval(r, confidence, deal)
        stalled = int(part["stalled"].sum())
        _, s_lo, s_hi, _ = stats.wilson_clustered(part["stalled"].to_numpy() > 0, deal, confidence)
        p_mean, p_lo, p_hi = stats.mean_interval(part["passes"].to_numpy(dtype=float), confidence, deal)
        sd_mean = float(part["score_std"].mean())
        m_mean, m_lo, m_hi = stats.mean_interval(part["winner_margin"].to_numpy(dtype=float), confidence, deal)
        rows.append(
            {
                "players": players,
                "instruments": inst,
                "games": n,
                "rounds_mean": mean,
                "rounds_lo": lo,
                "rounds_hi": hi,
                "rounds_p10": float(np.quantile(r, 0.1)),
                "rounds_median": float(np.median(r)),
                "rounds_p90": float(np.quantile(r, 0.9)),
                "stalled": stalled,
                "stalled_rate": stalled / n,
                "stalled_lo": float(s_lo),
                "stalled_hi": float(s_hi),
                "passes_mean": p_mean,
                "passes_lo": p_lo,
                "passes_hi": p_hi,
                "score_std_mean": sd_mean,
                "winner_margin_mean": m_mean,
                "winner_margin_lo": m_lo,
                "winner_margin_hi": m_hi,
                "winner_margin_median": float(part["winner_margin"].median()),
            }
        )
    return pd.DataFrame(rows), per
