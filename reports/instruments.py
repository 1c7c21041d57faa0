"""Section 4, instruments: the descriptive figures of each instrument.

For each department (black, orange, gray) and each of its instruments in the run, per player count:

* objective points it hands out per game (all seats, ``objective_<dept>``) and their concentration
  (share of them taken by the game's top objective scorer);
* how often it is left unbuilt (``built_<dept> == 0``) and who pays the penalty (R12): per seat and
  per strategy, the share of seats in unbuilt games that paid, and the mean penalty paid;
* game length (rounds) and the seat gap it leaves (largest difference between two seats' win rates).

These figures describe; they carry no verdict. Whether an instrument is out of line with the others
of its department is decided in one place only, :mod:`reports.instrument_verdicts`, on paired deals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reports import stats
from reports.frames import DEPTS, GAME_ID, deal_ids, varied_departments

@dataclass
class InstrumentComparison:
    """Tables of the instrument section (``flags`` empty when no department varies)."""

    stats: pd.DataFrame
    penalties: pd.DataFrame
    varied: list
    notes: list = field(default_factory=list)


def _per_game(seats, games, dept):
    """One row per game: the department's instrument, objective total and top share, penalty total."""
    obj = f"objective_{dept}"
    g = seats.groupby(GAME_ID, sort=False)[obj].agg(["sum", "max"])
    pen = seats.groupby(GAME_ID, sort=False)[f"penalty_{dept}"].sum().rename("penalty_total")
    out = games.set_index(GAME_ID)[
        ["players", *[f"inst_{d}" for d in DEPTS], f"built_{dept}", "rounds", "winner", "_deal"]
    ]
    out = out.join(g).join(pen)
    out["objective_points"] = out["sum"]
    out["top_share"] = (out["max"] / out["sum"]).where(out["sum"] > 0)
    return out.drop(columns=["sum", "max"]).reset_index()


def _with_deals(games):
    return games.assign(_deal=deal_ids(games))


def instrument_stats(seats, games, confidence=0.95, seed=0, resamples=2000):
    """Per department, instrument and player count: the figures listed in the module doc."""
    rng = np.random.default_rng(seed)
    games = _with_deals(games)
    rows = []
    for dept in DEPTS:
        per = _per_game(seats, games, dept)
        col = f"inst_{dept}"
        for (inst, players), part in per.groupby([col, "players"], sort=True):
            n = len(part)
            deal = part["_deal"].to_numpy()
            obj, obj_lo, obj_hi = stats.mean_interval(part["objective_points"].to_numpy(), confidence, deal)
            top, top_lo, top_hi = stats.mean_interval(part["top_share"].to_numpy(), confidence, deal)
            rounds, r_lo, r_hi = stats.mean_interval(part["rounds"].to_numpy(), confidence, deal)
            is_unbuilt = (part[f"built_{dept}"] == 0).to_numpy()
            unbuilt = int(is_unbuilt.sum())
            _, u_lo, u_hi, _ = stats.wilson_clustered(is_unbuilt, deal, confidence)
            unbuilt_pen = part.loc[is_unbuilt, "penalty_total"]
            nplayers = int(players)
            winner = np.clip(part["winner"].to_numpy().astype(int), 0, nplayers - 1)
            counts = np.bincount(winner, minlength=nplayers)
            onehot = np.eye(nplayers)[winner]
            n_eff = n / stats.design_effect(onehot, deal)
            gap, g_lo, g_hi, best, worst = stats.bootstrap_gap(counts, confidence, resamples, rng, n_eff=n_eff)
            rows.append(
                {
                    "department": dept,
                    "instrument": inst,
                    "players": int(players),
                    "games": n,
                    "objective_points": obj,
                    "objective_lo": obj_lo,
                    "objective_hi": obj_hi,
                    "top_share": top,
                    "top_share_lo": top_lo,
                    "top_share_hi": top_hi,
                    "unbuilt": unbuilt,
                    "unbuilt_rate": unbuilt / n,
                    "unbuilt_lo": float(u_lo),
                    "unbuilt_hi": float(u_hi),
                    "penalty_per_unbuilt_game": float(unbuilt_pen.mean()) if len(unbuilt_pen) else math.nan,
                    "rounds": rounds,
                    "rounds_lo": r_lo,
                    "rounds_hi": r_hi,
                    "seat_gap": gap,
                    "seat_gap_lo": g_lo,
                    "seat_gap_hi": g_hi,
                    "best_seat": best,
                    "worst_seat": worst,
                }
            )
    return pd.DataFrame(rows)


def penalty_payers(seats, games, confidence=0.95):
    """Who pays for an unbuilt instrument: per department, instrument, player count and seat/strategy.

    Columns: department, instrument, players, by ("seat" or "strategy"), who, seats_in_unbuilt
    (seat rows in games where the instrument stayed unbuilt), paid (rows with a penalty), pay_rate
    with Wilson interval, mean_penalty (mean of the negative penalty among payers).
    """
    cols = [
        "department",
        "instrument",
        "players",
        "by",
        "who",
        "seats_in_unbuilt",
        "paid",
        "pay_rate",
        "pay_lo",
        "pay_hi",
        "mean_penalty",
    ]
    key = _with_deals(games).set_index(GAME_ID)[[f"built_{d}" for d in DEPTS] + ["_deal"]]
    s = seats.join(key, on=GAME_ID)
    rows = []
    for dept in DEPTS:
        un = s[s[f"built_{dept}"] == 0]
        if un.empty:
            continue
        pen = f"penalty_{dept}"
        for by in ("seat", "strategy"):
            grouped = un.groupby([f"inst_{dept}", "players", by], sort=True)
            for (inst, players, who), part in grouped:
                paid = part[pen].to_numpy() < 0
                rate, lo, hi, _ = stats.wilson_clustered(paid, part["_deal"].to_numpy(), confidence)
                rows.append(
                    (
                        dept,
                        inst,
                        int(players),
                        by,
                        str(who),
                        len(part),
                        int(paid.sum()),
                        rate,
                        lo,
                        hi,
                        float(part.loc[paid, pen].mean()) if paid.any() else math.nan,
                    )
                )
    if not rows:
        return pd.DataFrame(columns=cols)
    return pd.DataFrame(rows, columns=cols)


def compare_instruments(seats, games, confidence=0.95, seed=0):
    """The descriptive instrument tables of a run (the verdicts: :mod:`reports.instrument_verdicts`)."""
    varied = varied_departments(games)
    notes = []
    if not varied:
        sets = games[[f"inst_{d}" for d in DEPTS]].drop_duplicates()
        label = "/".join(map(str, sets.iloc[0])) if len(sets) else "?"
        notes.append(
            f"The run does not vary instruments (every game used {label}), so no instrument is compared "
            "with the others of its department; run expansion.toml or grid.toml for that. The figures "
            "below describe the fixed set."
        )
    else:
        fixed = [d for d in DEPTS if d not in varied]
        if fixed:
            notes.append(f"Instruments vary in {', '.join(varied)}; {', '.join(fixed)} keep one instrument.")
    return InstrumentComparison(
        stats=instrument_stats(seats, games, confidence, seed),
        penalties=penalty_payers(seats, games, confidence),
        varied=varied,
        notes=notes,
    )
