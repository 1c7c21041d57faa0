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

from stats import moments as M
from stats import tests as stats
from reports.frames import DEPTS, varied_departments
from reports.io import tables_of
from stats.moments import Clustered

@dataclass
class InstrumentComparison:
    """Tables of the instrument section (``flags`` empty when no department varies)."""

    stats: pd.DataFrame
    penalties: pd.DataFrame
    varied: list
    notes: list = field(default_factory=list)


PENALTY_COLUMNS = ["department", "instrument", "players", "by", "who", "seats_in_unbuilt", "paid", "pay_rate", "pay_lo",
                   "pay_hi", "mean_penalty"]


class _Dept:
    """What one department's figures read, per (instrument, player count)."""

    def __init__(self, players):
        self.n = 0
        self.objective = Clustered(1)
        self.top = Clustered(1)
        self.rounds = Clustered(1)
        self.unbuilt = Clustered(1)
        self.unbuilt_n = 0
        self.pen_sum = 0.0
        self.wins = Clustered(int(players))


def _read(seats, games, pay=True):
    run = tables_of(seats, games)
    cells = run.cells
    groups = {d: M.groups_of(cells, [f"inst_{d}", "players"]) for d in DEPTS}
    acc = {d: {} for d in DEPTS}
    payers = {d: {} for d in DEPTS}  # (group, "seat"|"strategy", who) -> [rows, Clustered paid, paid sum]
    seat_cols = [f"objective_{d}" for d in DEPTS] + [f"penalty_{d}" for d in DEPTS] + (["strategy"] if pay else [])
    game_cols = ["deal", "rounds", "winner"] + [f"built_{d}" for d in DEPTS]
    for ch in run.scan(seats=seat_cols, games=game_cols):
        g, st = ch.games, ch.seats
        deal = M.deal_key(ch.k, g["deal"])
        n = ch.players
        winner = np.clip(g["winner"].astype(int), 0, n - 1)
        onehot = np.eye(n)[winner]
        for d in DEPTS:
            keys, group = groups[d]
            gi = group[ch.k]
            a = acc[d].get(gi)
            if a is None:
                a = acc[d][gi] = _Dept(keys[gi][1])
            obj = st[f"objective_{d}"].astype(float)
            total, top = obj.sum(axis=1), obj.max(axis=1)
            a.n += len(deal)
            a.objective.add(total, deal)
            ok = total > 0
            a.top.add(top[ok] / total[ok], deal[ok])
            a.rounds.add(g["rounds"].astype(float), deal)
            unbuilt = g[f"built_{d}"] == 0
            a.unbuilt.add(unbuilt.astype(float), deal)
            a.unbuilt_n += int(unbuilt.sum())
            pen = st[f"penalty_{d}"]
            a.pen_sum += float(pen[unbuilt].sum())
            a.wins.add(onehot, deal)
            if pay and unbuilt.any():
                pu = pen[unbuilt]
                du = np.broadcast_to(deal[unbuilt][:, None], pu.shape)
                for seat in range(n):
                    _pay(payers[d], (gi, "seat", seat), pu[:, seat], du[:, seat])
                su = st["strategy"][unbuilt]
                for name in np.unique(su).tolist():
                    mask = su == name
                    _pay(payers[d], (gi, "strategy", str(name)), pu[mask], du[mask])
    return groups, acc, payers


def _pay(store, key, pen, deal):
    rec = store.get(key)
    if rec is None:
        rec = store[key] = [0, Clustered(1), 0.0, 0]
    paid = pen < 0
    rec[0] += len(pen)
    rec[1].add(paid.astype(float), deal)
    rec[2] += float(pen[paid].sum())
    rec[3] += int(paid.sum())


def _stats_table(groups, acc, confidence):
    rows = []
    for dept in DEPTS:
        keys, _ = groups[dept]
        for gi in sorted(acc[dept]):
            a = acc[dept][gi]
            inst, players = keys[gi]
            n = a.n
            obj, obj_lo, obj_hi = M.mean_interval(a.objective, confidence)
            top, top_lo, top_hi = M.mean_interval(a.top, confidence)
            rounds, r_lo, r_hi = M.mean_interval(a.rounds, confidence)
            unbuilt = a.unbuilt_n
            _, u_lo, u_hi, _ = M.wilson_clustered(a.unbuilt, confidence)
            counts = np.rint(a.wins.total)
            n_eff = n / a.wins.design_effect()
            gap, g_lo, g_hi, best, worst = stats.gap_interval(counts, confidence, n_eff=n_eff)
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
                    "penalty_per_unbuilt_game": a.pen_sum / unbuilt if unbuilt else math.nan,
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


def _payers_table(groups, payers, confidence):
    rows = []
    for dept in DEPTS:
        keys, _ = groups[dept]
        store = payers[dept]
        for by in ("seat", "strategy"):
            for key in sorted(k for k in store if k[1] == by):
                gi, _, who = key
                n, paid, pen_sum, npaid = store[key]
                rate, lo, hi, _ = M.wilson_clustered(paid, confidence)
                inst, players = keys[gi]
                rows.append((dept, inst, int(players), by, str(who), n, npaid, rate, lo, hi,
                             pen_sum / npaid if npaid else math.nan))
    if not rows:
        return pd.DataFrame(columns=PENALTY_COLUMNS)
    return pd.DataFrame(rows, columns=PENALTY_COLUMNS)


def instrument_stats(seats, games, confidence=0.95, seed=0, resamples=2000):
    """Per department, instrument and player count: the figures listed in the module doc.
    ``seats`` and ``games``: the tables, or a run (either argument)."""
    groups, acc, _ = _read(seats, games, pay=False)
    return _stats_table(groups, acc, confidence)


def penalty_payers(seats, games, confidence=0.95):
    """Who pays for an unbuilt instrument: per department, instrument, player count and seat/strategy.

    Columns: department, instrument, players, by ("seat" or "strategy"), who, seats_in_unbuilt
    (seat rows in games where the instrument stayed unbuilt), paid (rows with a penalty), pay_rate
    with Wilson interval, mean_penalty (mean of the negative penalty among payers).
    """
    groups, _, payers = _read(seats, games)
    return _payers_table(groups, payers, confidence)


def compare_instruments(seats, games, confidence=0.95, seed=0):
    """The descriptive instrument tables of a run (the verdicts: :mod:`reports.instrument_verdicts`);
    one pass over its chunks. ``seats`` and ``games``: the tables, or a run."""
    cells = tables_of(seats, games).cells
    varied = varied_departments(cells)
    notes = []
    if not varied:
        sets = cells[[f"inst_{d}" for d in DEPTS]].drop_duplicates()
        label = "/".join(map(str, sets.iloc[0])) if len(sets) else "?"
        notes.append(
            f"The run does not vary instruments (every game used {label}), so no instrument is compared "
            "with its department's reference; run expansion.toml or grid.toml for that. The figures "
            "below describe the fixed set."
        )
    else:
        fixed = [d for d in DEPTS if d not in varied]
        if fixed:
            notes.append(f"Instruments vary in {', '.join(varied)}; {', '.join(fixed)} keep one instrument.")
    groups, acc, payers = _read(seats, games)
    return InstrumentComparison(
        stats=_stats_table(groups, acc, confidence),
        penalties=_payers_table(groups, payers, confidence),
        varied=varied,
        notes=notes,
    )
