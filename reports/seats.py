"""Section 1, seat advantage: does the turn order decide who wins?

Per setting (player count x instrument set): each seat's win rate with its Wilson interval, a
chi-square test against the fair share 1/N, the largest gap between two seats with a bootstrap
interval, how often games tie on points and how often the turn-order tie-break (R13: the tied
player latest in turn order wins) decided the winner, and a verdict:

* **balanced**: every seat's equivalence test (exact binomial TOST) shows it within the margin of 1/N;
* **imbalanced**: some seat lies outside the margin, significant after Holm over every seat of
  every setting of the run;
* **inconclusive**: neither; the note says how many more games would likely decide it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports import stats
from reports.frames import SETTING, deal_ids, games_text, pct, with_setting


@dataclass
class SeatAdvantage:
    """``rates``: one row per setting and seat; ``cells``: one row per setting with its verdict."""

    rates: pd.DataFrame
    cells: pd.DataFrame
    margin: float
    confidence: float


def _wins_per_seat(games):
    """Long table: setting, seat, games, wins (zero-filled), and the setting's design effect.

    The design effect (see :func:`reports.stats.design_effect`) accounts for games of one deal
    sharing their setup; ``effective_games`` = games / design effect is what the tests count.
    """
    g = with_setting(games)
    g["_deal"] = deal_ids(g)
    rows = []
    for (players, inst), part in g.groupby(SETTING, sort=True):
        nplayers = int(players)
        winner = part["winner"].to_numpy().astype(int)
        onehot = np.zeros((len(part), nplayers))
        onehot[np.arange(len(part)), np.clip(winner, 0, nplayers - 1)] = 1.0
        deff = stats.design_effect(onehot, part["_deal"].to_numpy())
        wins = onehot.sum(axis=0)
        for seat in range(nplayers):
            rows.append((players, inst, seat, len(part), int(wins[seat]), deff))
    out = pd.DataFrame(rows, columns=[*SETTING, "seat", "games", "wins", "design_effect"])
    out["effective_games"] = out["games"] / out["design_effect"]
    return out


def _more_games(needed, n, players):
    if needed is None or np.isnan(needed):
        return math.nan
    if np.isinf(needed):
        return math.inf
    more = max(0, math.ceil(needed - n))
    return float(math.ceil(more / players) * players)  # whole rotations


def seat_advantage(games, margin=0.03, confidence=0.95, seed=0, resamples=2000):
    """Seat win rates and the balance verdict of every setting of a run (see the module doc).

    ``games`` needs the columns players, inst_black, inst_orange, inst_gray, winner, tied, tiebreak.
    ``margin`` is a fraction (0.03 = 3 percentage points). Bootstrap draws use ``seed``.
    """
    rates = _wins_per_seat(games)
    rates["fair_share"] = 1.0 / rates["players"]
    rates["win_rate"] = rates["wins"] / rates["games"]
    # Tests and intervals count effective games: whole numbers, at the observed rates.
    n_eff = np.maximum(np.round(rates["effective_games"].to_numpy()), 1).astype(np.int64)
    wins_eff = np.round(rates["win_rate"].to_numpy() * n_eff).astype(np.int64)
    rates["win_lo"], rates["win_hi"] = stats.wilson(rates["win_rate"] * n_eff, n_eff, confidence)
    rates["deviation"] = rates["win_rate"] - rates["fair_share"]

    cell_index = rates.groupby(SETTING, sort=False).ngroup().to_numpy()
    res = stats.seat_verdicts(
        cell_index,
        wins_eff,
        n_eff,
        rates["players"].to_numpy(),
        margin=margin,
        confidence=confidence,
    )
    rates["tost_p"] = res["row_tost_p"]
    rates["outside_p_holm"] = res["row_outside_p"]

    g = with_setting(games)
    g["_deal"] = deal_ids(g)
    g["is_tie"] = (g["tied"] > 1).astype(int)
    g["by_tiebreak"] = (g["tiebreak"] > 0).astype(int)
    by_setting = dict(iter(g.groupby(SETTING, sort=False)))

    rng = np.random.default_rng(seed)
    cells = []
    for k, (key, part) in enumerate(rates.groupby(SETTING, sort=False)):
        players, inst = key
        n = int(part["games"].iloc[0])
        deff = float(part["design_effect"].iloc[0])
        n_eff = n / deff
        counts = part["wins"].to_numpy()
        # The chi-square counts effective games too (the observed counts scaled down).
        chi = sps.chisquare(counts / deff) if n > 0 else None
        gap, lo, hi, best, worst = stats.bootstrap_gap(counts, confidence, resamples, rng, n_eff=n_eff)
        gk = by_setting[key]
        ties, t_lo, t_hi, _ = stats.wilson_clustered(gk["is_tie"].to_numpy(), gk["_deal"].to_numpy(), confidence)
        tb, b_lo, b_hi, _ = stats.wilson_clustered(gk["by_tiebreak"].to_numpy(), gk["_deal"].to_numpy(), confidence)
        verdict = res["verdict"][k]
        # The estimate is in effective games; scale it back to games as played.
        needed = res["games_needed"][k] * deff
        more = _more_games(needed, n, players) if verdict == stats.INCONCLUSIVE else math.nan
        cells.append(
            {
                "players": players,
                "instruments": inst,
                "games": n,
                "design_effect": deff,
                "effective_games": n_eff,
                "chi2": float(chi.statistic) if chi is not None else math.nan,
                "chi2_p": float(chi.pvalue) if chi is not None else math.nan,
                "best_seat": best,
                "worst_seat": worst,
                "gap": gap,
                "gap_lo": lo,
                "gap_hi": hi,
                "ties": int(gk["is_tie"].sum()),
                "tie_rate": ties,
                "tie_lo": float(t_lo),
                "tie_hi": float(t_hi),
                "tiebreaks": int(gk["by_tiebreak"].sum()),
                "tiebreak_rate": tb,
                "tiebreak_lo": float(b_lo),
                "tiebreak_hi": float(b_hi),
                "tost_p": float(res["tost_p"][k]),
                "outside_p_holm": float(res["outside_p"][k]),
                "verdict": verdict,
                "more_games": more,
            }
        )
    cells = pd.DataFrame(cells)
    cells["note"] = [verdict_note(row, rates, margin) for row in cells.itertuples(index=False)]
    return SeatAdvantage(rates=rates, cells=cells, margin=margin, confidence=confidence)


def verdict_note(row, rates, margin):
    """One sentence explaining a setting's verdict."""
    part = rates[(rates["players"] == row.players) & (rates["instruments"] == row.instruments)]
    share = 1.0 / row.players
    worst = part.iloc[int(np.argmax(np.abs(part["deviation"].to_numpy())))]
    dev = f"{100 * worst.deviation:+.1f} pp"
    if row.verdict == stats.BALANCED:
        return f"every seat within {100 * margin:.1f} pp of {pct(share)}% (largest deviation: seat {worst.seat + 1}, {dev})"
    if row.verdict == stats.IMBALANCED:
        flagged = part.sort_values("outside_p_holm").iloc[0]
        return (
            f"seat {flagged.seat + 1} wins {pct(flagged.win_rate)}% ({100 * flagged.deviation:+.1f} pp vs "
            f"{pct(share)}%), outside the {100 * margin:.1f} pp margin"
        )
    if np.isinf(row.more_games):
        return (
            f"seat {worst.seat + 1} at {dev} sits on the {100 * margin:.1f} pp margin: "
            "no feasible number of games would decide it"
        )
    return f"about {games_text(row.more_games)} more games would likely decide it (seat {worst.seat + 1} at {dev})"
