"""Section 3, scoring sources: where do the points come from?

Score sources (the result tables' own names): ``inspector``, ``objective_<dept>`` (section and
region awards, R10), ``brag_<dept>`` (brag track points at the end, R12) and ``penalty_<dept>``
(the unbuilt-instrument penalty, R12, negative). A seat's ``score`` is their sum.

* :func:`source_means`: mean points per seat, by seat (turn order) and source, per setting;
* :func:`winner_shares`: of the winners' points, the share from each source (ratio of sums, so
  the shares add up to 1; penalties give negative shares).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from reports import stats
from reports.frames import SETTING, SOURCES, deal_ids, with_setting


@dataclass
class ScoringSources:
    """``by_seat``: mean points per setting, seat and source; ``winners``: winners' point shares."""

    by_seat: pd.DataFrame
    winners: pd.DataFrame


def source_means(seats, confidence=0.95):
    """Mean points per seat by source, per setting and seat (``seat`` 0 plays first).

    Columns: players, instruments, seat, n (seat rows), one column per source, score, and the t
    interval of the mean score (score_lo, score_hi).
    """
    s = with_setting(seats)
    s["_deal"] = deal_ids(s)
    means = s.groupby([*SETTING, "seat"], sort=True)[[*SOURCES, "score"]].mean()
    n = s.groupby([*SETTING, "seat"], sort=True).size().rename("n")
    ci = s.groupby([*SETTING, "seat"], sort=True)[["score", "_deal"]].apply(
        lambda x: pd.Series(
            stats.mean_interval(x["score"].to_numpy(), confidence, x["_deal"].to_numpy())[1:],
            index=["score_lo", "score_hi"],
        )
    )
    out = pd.concat([n, means, ci], axis=1).reset_index()
    out["seat"] = out["seat"].astype("int64")
    return out


def winner_shares(seats):
    """Share of the winners' points from each source, per setting.

    Columns: players, instruments, winners, winner_score (mean), then ``share_<source>`` for every
    source (sum over winners of that source / sum of their scores).
    """
    s = with_setting(seats)
    w = s[s["won"] == 1]
    sums = w.groupby(SETTING, sort=True)[[*SOURCES, "score"]].sum()
    out = pd.DataFrame(index=sums.index)
    out["winners"] = w.groupby(SETTING, sort=True).size()
    out["winner_score"] = sums["score"] / out["winners"]
    total = sums["score"].where(sums["score"] != 0)
    for src in SOURCES:
        out[f"share_{src}"] = sums[src] / total
    return out.reset_index()


def scoring_sources(seats, confidence=0.95):
    """Both tables of the section."""
    return ScoringSources(by_seat=source_means(seats, confidence), winners=winner_shares(seats))
