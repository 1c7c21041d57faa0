"""Instruments out of line: each instrument against its department's reference, on the same deals.

For a run that varies instruments (``expansion``, ``grid``, a list of sets), every instrument of a
varied department is compared with the department's *reference instrument* played in the same
context: the same player count, lineup and instruments in the two other departments. The reference
is the department's instrument in the scenario's first set (the base set of ``swaps``: the starter
set's Violin, Piano or Horns; the first set of a ``sets`` list; the first combination of ``all``).
A scenario of several instrument sets plays every set on the same deals (``simulator.seeds``), so
the comparison is paired deal by deal::

    deal s:   d(s) = measure(instrument, s) - measure(reference, s)

Why a declared reference and not a summary of the peers (their mean, their median, a Hodges-Lehmann
median of the pairwise differences): every summary of the peers moves when a peer is copied. With
three or four widely spread peers the median is whichever peer sits in the middle, so one exact twin
added to a department moved another instrument by 16 points and turned its verdict. The reference is
named by the scenario, so adding, removing or copying any other instrument changes no instrument's
comparison; an exact copy of an instrument plays its original's games deal by deal, so it reads
exactly as its original (and a copy of the reference reads 0 on every measure: in line). The swaps
design asks just this question: what swapping the instrument into the base set does. When every
instrument of a department reads out of line in the same direction, the reference itself is the odd
one, and the section says so.

(the seat rotations of a deal are averaged first; in a full grid a deal's differences over the
contexts are averaged too, so one deal is one independent unit). The effect is the mean of d(s) over
the deals, its interval a Student t interval on those deals. A run whose sets do not share deals
(older results) falls back to an unpaired Welch interval on the deals' means, and says so.

Measures (key, what, default margin; a designer changes a margin with ``--instrument-margin KEY=X``):

================  ===============================================================  ==============
objective_points  objective points the instrument hands out per game (all seats)   5 points
winner_points     points the game's winner takes from that instrument's objectives 2 points
seat_win          each seat's win rate (the seat moved most is shown)              5 perc. points
unbuilt           share of games that end with the instrument unbuilt              10 perc. points
rounds            game length in rounds                                            1 round
strategy_win      each strategy's share of wins (mixed lineups only)               5 perc. points
================  ===============================================================  ==============

The seat-win rows are the seat effect of the swap: each seat's win rate with the instrument minus
with the reference, on the same deals (does the swap tilt the table?).

Verdict of one measure, from its interval against the margin m: *out of line* when the whole
interval lies beyond +-m, *in line* when it lies within +-m, *unclear* otherwise. The intervals of
one instrument verdict (one instrument, player count and judge: its measures and seats) are
simultaneous: each is taken at level 1 - alpha / K, K being the number of that verdict's intervals
(Bonferroni), so the chance that the verdict is wrong is at most alpha. The family is the verdict,
not the section, so that adding an instrument (or a copy of one) widens no other instrument's
intervals: its verdict cannot move with the company it keeps.

**A run decided sequentially** (``sequential.verdicts = ["instruments"]``, :mod:`scenarios.sequential_sets`)
stopped each set at the first look where its verdict was decided, so a fixed-count t interval would
overstate what the deals show. Such a run is judged again from the tables with the test it stopped on:
each interval is the set's confidence sequence at level 1 - alpha / K (it holds at every look at once),
a measure is out of line beyond ``m - z`` and in line within ``m + z`` (``z``: the run's zone, a share of
each margin), and each verdict carries the record's words: decided after how many deals, or open and
why (the run's budget, the set's cap) with the deals that would decide it at the current estimates.

Every comparison is made per player count and lineup: a run with several judge levels (mirror
lineups of different strategies) gets one verdict per judge, never a pooled one; whether the judges
differ is tested in :mod:`reports.sections.shuffle_swing.instrument_judges`.

Verdict of one instrument (per player count and lineup): out of line when some measure is; in line when every
measure is; unclear otherwise. Ranking: out of line first, then unclear, then in line; within a
group by the largest effect measured in margins (|effect| / m), so an instrument far out of line on
any measure tops the list. This is the only instrument verdict of the report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reports.frames import DEPTS, varied_departments
from reports.io import tables_of
from stats.moments import DealRows
from scenarios import sequential_proof as SQP
from scenarios import sequential_sets as SQS
from stats import paired
from stats import sequences as SS
from stats.tests import simultaneous_interval

OUT = "out of line"
IN_LINE = "in line"
UNCLEAR = "unclear"
VERDICT_ORDER = (OUT, UNCLEAR, IN_LINE)

# key -> (label for tables, unit, default margin, is a rate); the margins a sequential run stops on
# are the same (scenarios.sequential_sets.MARGINS)
MEASURES = {
    "objective_points": ("objective points handed out per game", "points", SQS.MARGINS["objective_points"], False),
    "winner_points": ("winner's points from the instrument", "points", SQS.MARGINS["winner_points"], False),
    "seat_win": ("win rate of a seat", "percentage points", SQS.MARGINS["seat_win"], True),
    "unbuilt": ("games ending with it unbuilt", "percentage points", SQS.MARGINS["unbuilt"], True),
    "rounds": ("game length", "rounds", SQS.MARGINS["rounds"], False),
    "strategy_win": ("win share of a strategy", "percentage points", 0.05, True),
}
DEFAULT_MARGINS = {k: v[2] for k, v in MEASURES.items()}
# Margins of rates are given in percentage points on the command line.
RATE_MEASURES = frozenset(k for k, v in MEASURES.items() if v[3])

ORDINALS = ("first", "second", "third", "fourth")


def seat_name(seat):
    """``0 -> 'first player'``: seats in the designer's words (turn order from 1)."""
    seat = int(seat)
    return f"{ORDINALS[seat]} player" if 0 <= seat < len(ORDINALS) else f"player {seat + 1}"


def parse_margins(items):
    """``["objective_points=4", "seat_win=3"]`` -> margins (rates given in percentage points).

    Raises ValueError naming the item for an unknown key or a value that is not a positive number.
    """
    out = dict(DEFAULT_MARGINS)
    for item in items or ():
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or key not in MEASURES:
            raise ValueError(f"'{item}': expected KEY=VALUE with KEY one of {', '.join(MEASURES)}")
        try:
            x = float(value)
        except ValueError:
            raise ValueError(f"'{item}': {value!r} is not a number") from None
        if not x > 0 or math.isinf(x):
            raise ValueError(f"'{item}': the margin must be a positive number")
        out[key] = x / 100.0 if key in RATE_MEASURES else x
    return out


@dataclass
class InstrumentVerdicts:
    """Tables of the instruments-out-of-line section (empty frames when no department varies)."""

    effects: pd.DataFrame  # one row per instrument, player count, measure (and seat / strategy)
    verdicts: pd.DataFrame  # one row per instrument and player count, ranked
    margins: dict
    alpha: float
    intervals: int  # K, the number of simultaneous intervals
    paired: bool
    varied: list
    notes: list = field(default_factory=list)
    sequential: dict | None = None  # a run decided by its sets: {"zone", "records"} (module doc)

    @property
    def empty(self):
        return self.verdicts.empty


# --------------------------------------------------------------------------- per-game measures


def _per_game(seats, games, dept):
    """One row per deal and cell (a deal's seat rotations together): context, instrument, deal seed,
    the games played ``_n`` and every measure's sum over them (the means are sums over ``_n``).
    ``seats`` and ``games``: the tables, or a run (either argument)."""
    return _per_deal(tables_of(seats, games), [dept])[dept]


def _per_deal(run, depts):
    """:func:`_per_game` of each department in ``depts``, in one pass over the run's chunks."""
    cells = run.cells
    maxp = int(cells["players"].max())
    strategies = _strategies(cells)
    many = len(strategies) > 1
    cols = ["objective_points", "winner_points", "unbuilt", "rounds", *(f"seat_win:{k}" for k in range(maxp)),
            *((f"strategy_win:{x}" for x in strategies) if many else ())]
    stores = {}
    seat_cols = ["won", *(f"objective_{d}" for d in depts)]
    game_cols = ["seed", "winner", "rounds", *(f"built_{d}" for d in depts)] + (["winner_strategy"] if many else [])
    for ch in run.scan(seats=seat_cols, games=game_cols):
        g = ch.games
        won = ch.seats["won"] == 1
        winner = g["winner"].astype(int)
        common = [np.where(k < ch.players, (winner == k).astype(float), np.nan) for k in range(maxp)]
        if many:
            common += [(g["winner_strategy"].astype(str) == x).astype(float) for x in strategies]
        for d in depts:
            obj = ch.seats[f"objective_{d}"].astype(float)
            vals = np.stack([np.ones(len(winner)), obj.sum(axis=1), np.where(won, obj, 0.0).sum(axis=1),
                             (g[f"built_{d}"] == 0).astype(float), g["rounds"].astype(float), *common], axis=1)
            stores.setdefault((d, ch.k), DealRows(vals.shape[1])).add(vals, g["seed"])
    out = {}
    for d in depts:
        others = [f"inst_{x}" for x in DEPTS if x != d]
        frames = []
        for k in range(len(cells)):
            store = stores.get((d, k))
            if store is None:
                continue
            ids, sums, _ = store.result()
            c = cells.iloc[k]
            f = pd.DataFrame(sums[:, 1:], columns=cols)
            f.insert(0, "_n", sums[:, 0])
            f.insert(0, "seed", ids)
            f.insert(0, "_cell", k)
            f.insert(0, "instrument", str(c[f"inst_{d}"]))
            f.insert(0, "context", f"{c[others[0]]}/{c[others[1]]}")
            f.insert(0, "lineup", str(c["lineup"]))
            f.insert(0, "players", int(c["players"]))
            frames.append(f)
        out[d] = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
            columns=["players", "lineup", "context", "instrument", "_cell", "seed", "_n", *cols])
    return out


def _deal_means(grp, col, by=("seed", "instrument")):
    """Mean of a measure per deal seed and instrument over the games of ``grp`` (per-deal sums)."""
    sums = grp.groupby(list(by))[[col, "_n"]].sum(min_count=1)
    return sums[col] / sums["_n"]


def _strategies(games):
    names = set()
    for lineup in games["lineup"].astype(str).unique():
        names |= {x.strip() for x in lineup.split(",")}
    return sorted(names)


def _measure_columns(per):
    return [c for c in per.columns if c.partition(":")[0] in MEASURES]


# --------------------------------------------------------------------------- effects


def reference_of(part):
    """The reference instrument of one department in one player count and lineup: its instrument in
    the group's first cell (the scenario's first set: the base set of swaps). ``part`` holds the rows
    of :func:`_per_deal` of that group (column ``_cell``, the cell's position in the run)."""
    if part.empty:
        return None
    return str(part.loc[part["_cell"].idxmin(), "instrument"])


def _paired_differences(part, inst, col, ref):
    """Per deal seed: the instrument minus the reference on the same deal, averaged over the contexts
    of the seed (the contexts where both were played)."""
    diffs = []
    for _, grp in part.groupby(["lineup", "context"], sort=False):
        names = set(grp["instrument"])
        if inst not in names or ref not in names:
            continue
        table = _deal_means(grp[grp["instrument"].isin([inst, ref])], col).unstack("instrument")
        if inst not in table or ref not in table:
            continue
        mine, base = table[inst], table[ref]
        ok = mine.notna() & base.notna()
        if ok.any():
            diffs.append(pd.DataFrame({"seed": table.index[ok], "d": (mine - base)[ok].to_numpy(),
                                       "v": mine[ok].to_numpy(), "b": base[ok].to_numpy()}))
    if not diffs:
        return None
    return pd.concat(diffs).groupby("seed")[["d", "v", "b"]].mean()


def _unpaired(part, inst, col, ref):
    """Deal means of the instrument and of the reference on shared contexts (no common deals)."""
    mine, base = [], []
    for _, grp in part.groupby(["lineup", "context"], sort=False):
        names = set(grp["instrument"])
        if inst not in names or ref not in names:
            continue
        by_deal = _deal_means(grp, col, ("instrument", "seed")).rename(col).reset_index()
        mine.append(by_deal.loc[by_deal["instrument"] == inst, col])
        base.append(by_deal.loc[by_deal["instrument"] == ref, col])
    if not mine:
        return None
    return pd.concat(mine).dropna().to_numpy(), pd.concat(base).dropna().to_numpy()


def _effect(part, inst, col, ref):
    """``(row, paired)`` of one instrument's effect on one measure column within one player count and
    lineup against the reference ``ref``, or ``(None, None)`` when it cannot be compared: paired by
    deal when the sets share deals, else Welch."""
    d = _paired_differences(part, inst, col, ref)
    if d is not None and len(d) >= 2:
        x = d["d"].to_numpy()
        return {"paired": True, "deals": len(x), "effect": x.mean(), "se": x.std(ddof=1) / math.sqrt(len(x)),
                "df": len(x) - 1, "value": d["v"].mean(), "base": d["b"].mean()}, True
    u = _unpaired(part, inst, col, ref)
    if u is None or len(u[0]) < 2 or len(u[1]) < 2:
        return None, None
    a, b = u
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / ((va**2 / (len(a) - 1)) + (vb**2 / (len(b) - 1))) if se > 0 else len(a) + len(b) - 2
    return {"paired": False, "deals": len(a), "effect": a.mean() - b.mean(), "se": se, "df": df,
            "value": a.mean(), "base": b.mean()}, False


def _raw_effects(seats, games):
    """Effect rows before the intervals: the deal-level differences' sums for a t (or Welch) interval."""
    rows = []
    paired_any, unpaired_any = False, False
    run = tables_of(seats, games)
    varied = varied_departments(run.cells)
    per_dept = _per_deal(run, varied) if varied else {}
    for dept in varied:
        per = per_dept[dept]
        cols = _measure_columns(per)
        # One comparison per player count and lineup (judge): lineups are never pooled, as in the seat
        # section; a strategy's win share is a measure only in a mixed lineup that holds it.
        for (players, lineup), part in per.groupby(["players", "lineup"], sort=True):
            insts = sorted(part["instrument"].unique())
            ref = reference_of(part)
            if len(insts) < 2:
                continue
            names = {x.strip() for x in str(lineup).split(",")}
            for inst in insts:
                if inst == ref:
                    continue
                for col in cols:
                    measure, _, who = col.partition(":")
                    if part[col].isna().all():
                        continue
                    if measure == "strategy_win" and (len(names) < 2 or who not in names):
                        continue
                    base = {"department": dept, "instrument": inst, "players": int(players), "lineup": str(lineup),
                            "measure": measure, "who": who, "reference": ref}
                    row, paired = _effect(part, inst, col, ref)
                    if row is None:
                        continue
                    paired_any |= paired
                    unpaired_any |= not paired
                    rows.append({**base, **row})
    return pd.DataFrame(rows), paired_any, unpaired_any


def instrument_effect(seats, games, department, instrument, measure="objective_points", players=None):
    """One instrument's effect on one measure (no seat or strategy measure) against its department's
    reference, per player count and lineup, exactly as the section computes it: one row each with
    ``players, lineup, reference, paired, deals, effect, se, df, value, base``; empty when it is the
    reference or has no reference in these games. ``ssb tune`` decides its instrument targets with it
    (``reports.tune.verdicts``)."""
    if measure not in MEASURES or measure in ("seat_win", "strategy_win"):
        raise ValueError(f"{measure!r} is not a single-column instrument measure")
    cols = ["players", "lineup", "reference", "paired", "deals", "effect", "se", "df", "value", "base"]
    per = _per_deal(tables_of(seats, games), [department])[department]
    rows = []
    for (n, lineup), part in per.groupby(["players", "lineup"], sort=True):
        if players is not None and int(n) not in set(players):
            continue
        ref = reference_of(part)
        if instrument not in set(part["instrument"]) or instrument == ref:
            continue
        row, _ = _effect(part, instrument, measure, ref)
        if row is not None:
            rows.append({"players": int(n), "lineup": str(lineup), "reference": ref, **row})
    return pd.DataFrame(rows, columns=cols)


def interval_verdict(lo, hi, m):
    """out of line / in line / unclear: an interval against the margin ``m`` (module doc)."""
    return _interval_verdict(lo, hi, m)


EFFECT_COLUMNS = [
    "department", "instrument", "players", "lineup", "measure", "who", "reference", "paired", "deals", "value",
    "base", "effect", "se", "df", "family", "lo", "hi", "margin", "in_margins", "verdict",
]
VERDICT_COLUMNS = [
    "rank", "department", "instrument", "players", "lineup", "verdict", "worst_measure", "worst_who", "worst_effect",
    "worst_lo", "worst_hi", "worst_margin", "in_margins", "measures_out", "measures_unclear", "reference", "deals",
    "sentence",
]
VERDICT_KEYS = ["department", "instrument", "players", "lineup"]


def _interval_verdict(lo, hi, m):
    if lo > m or hi < -m:
        return OUT
    if lo >= -m and hi <= m:
        return IN_LINE
    return UNCLEAR


def sequential_sets(manifest):
    """``{"zone", "records"}`` of a run decided by its instrument sets, else None; ``records`` keyed by
    (department, instrument, players, judge)."""
    seq = (manifest or {}).get("sequential")
    if not isinstance(seq, dict) or "instruments" not in (seq.get("settings") or {}).get("verdicts", []):
        return None
    recs = {(r["department"], r["instrument"], int(r["players"]), r["judge"]): dict(r, index=i)
            for i, r in enumerate(seq.get("sets") or [])}
    return {"zone": float(seq["settings"].get("zone", paired.DEFAULT_ZONE)), "records": recs,
            "confidence": float(seq["settings"].get("confidence", 0.95)),
            "interval": seq["settings"].get("interval", paired.ASYMPTOTIC)}


def check_stored_verdict(rec, verdict, deals, seq):
    """A set's verdict word as the run recorded it against the word judged again from the tables
    (at the same deals, margins and confidence as the run's): a record that disagrees was edited,
    and is refused naming ``sequential.sets[i].verdict`` (records are judged again, never trusted)."""
    if rec is None or not seq.get("same_test") or int(rec.get("deals", -1)) != deals:
        return
    stored = {SQS.OPEN: UNCLEAR}.get(rec.get("verdict"), rec.get("verdict"))
    if stored != verdict:
        from reports.io import ReportInputError

        shown = {UNCLEAR: SQS.OPEN}.get(verdict, verdict)
        raise ReportInputError(seq.get("path", "manifest.json"), f"sequential.sets[{rec['index']}].verdict",
                               f"says '{rec.get('verdict')}', the tables say '{shown}' for {rec.get('instrument')} at "
                               f"{deals:,} deals: the record was edited; start the run over with --force")


STOP_WORDS = {
    "seconds": "the run's budget of CPU seconds ran out",
    "budget": "its judge's cap of games ran out",
    "cap": "the set's cap of deals ran out",
}


def sequential_note(verdict, deals, rec):
    """``'decided after 625 deals'`` / ``'open after 3,600 deals: the run's budget of CPU seconds ran out;
    about 2,400 more deals would decide it'``: what the run's record says of one set."""
    if verdict != UNCLEAR:
        return f"decided after {deals:,} deals"
    why = STOP_WORDS.get((rec or {}).get("stop"), "the run stopped")
    more = (rec or {}).get("more_deals")
    tail = f"; about {more:,} more deals would decide it at the current estimates" if more else (
        "; its estimate sits on a zone edge" if rec and rec.get("more_deals", 0) is None else "")
    return f"open after {deals:,} deals: {why}{tail}"


def _sequential_intervals(raw, alpha, zone, records=None):
    """The confidence sequences and zone verdicts of a run decided by its sets (module doc): the
    asymptotic ones rebuilt from the sums, and the finite-sample ones of the measures with a known
    range as the run's record keeps them (they need the deals in order, which the sums do not keep)."""
    sd = raw["se"].to_numpy() * np.sqrt(raw["deals"].to_numpy())
    n = raw["deals"].to_numpy()
    w = paired.half_width(sd, n, alpha / raw["family"].to_numpy())
    w = np.where(n >= paired.MIN_LOOK, w, np.inf)
    lo, hi = raw["effect"].to_numpy() - w, raw["effect"].to_numpy() + w
    for i, r in enumerate(raw.to_dict("records")):
        rec = (records or {}).get((r["department"], r["instrument"], int(r["players"]),
                                   str(r["lineup"]).split(",")[0].strip()))
        for b in (rec or {}).get("bounded", ()):
            if b["measure"] == r["measure"] and str(b["who"]) == str(r["who"]):
                lo[i], hi[i] = b["lo"], b["hi"]
    codes = paired.zone_codes(lo, hi, raw["margin"].to_numpy(), zone)
    return lo, hi, [{1: OUT, -1: IN_LINE, 0: UNCLEAR}[int(c)] for c in codes]


def instrument_verdicts(seats, games, margins=None, confidence=0.95):
    """The section's tables (module doc); ``margins`` maps measure keys to margins (defaults above)."""
    margins = {**DEFAULT_MARGINS, **(margins or {})}
    alpha = 1.0 - confidence
    run = tables_of(seats, games)
    seq = sequential_sets(getattr(run, "manifest", None))
    varied = varied_departments(run.cells)
    notes = []
    raw, paired_any, unpaired_any = _raw_effects(seats, games)
    if raw.empty:
        if not varied:
            notes.append("This run plays one instrument set, so no instrument is compared with the others of its "
                         "department: run the expansion or grid scenario for that.")
        else:
            notes.append("No instrument could be compared with its department's reference in the same context.")
        return InstrumentVerdicts(pd.DataFrame(columns=EFFECT_COLUMNS), pd.DataFrame(columns=VERDICT_COLUMNS),
                                  margins, alpha, 0, False, varied, notes)
    # One family of simultaneous intervals per instrument verdict (module doc).
    raw["family"] = raw.groupby(VERDICT_KEYS)["effect"].transform("size").astype(int)
    raw["margin"] = raw["measure"].map(margins)
    raw["in_margins"] = raw["effect"].abs() / raw["margin"]
    if seq is not None:
        from pathlib import Path

        seq["path"] = Path(getattr(run, "source", "") or ".") / "manifest.json"
        used = set(raw["measure"])
        seq["same_test"] = (abs(seq["confidence"] - confidence) < 1e-12
                            and all(margins[m] == SQS.MARGINS.get(m) for m in used))
        raw["lo"], raw["hi"], raw["verdict"] = _sequential_intervals(raw, alpha, seq["zone"], seq["records"])
        raw["zone"] = seq["zone"]
    else:
        raw["lo"], raw["hi"] = simultaneous_interval(raw["effect"].to_numpy(), raw["se"].to_numpy(),
                                                     raw["df"].to_numpy(), alpha, raw["family"].to_numpy())
        raw["verdict"] = [_interval_verdict(lo, hi, m)
                          for lo, hi, m in zip(raw["lo"], raw["hi"], raw["margin"], strict=True)]
    effects = raw[EFFECT_COLUMNS + (["zone"] if seq is not None else [])].reset_index(drop=True)
    verdicts = _verdict_table(effects, seq, proof_settings(getattr(run, "manifest", None)))
    k = int(effects["family"].max())
    notes.append(
        f"The intervals of one instrument verdict (its measures and seats at one player count, for one judge; up "
        f"to {k}) are simultaneous (Bonferroni), so the chance that a verdict is wrong is at most "
        f"{100 * alpha:.0f}%; over the {len(verdicts)} verdicts here, about {alpha * len(verdicts):.1f} may be wrong "
        "by chance. Adding an instrument widens no other instrument's intervals."
    )
    if seq is not None:
        z = seq["zone"]
        decided = int((verdicts["verdict"] != UNCLEAR).sum())
        notes.append(
            f"Decided sequentially: each set played rounds of deals until its verdict was decided ({decided} of "
            f"{len(verdicts)}). Out of line: some measure's interval lies beyond its margin less a zone of "
            f"{100 * z:g}% of it; in line: every interval lies within its margin plus that zone; a measure inside "
            "the zone may be called either way. The intervals are confidence sequences: they hold at every look "
            "at once, although the run chose when to stop.")
    refs = effects.groupby("department")["reference"].agg(lambda x: ", ".join(sorted(set(x))))
    notes.append("The reference of each department (its instrument in the scenario's first set): "
                 + "; ".join(f"{d} {r}" for d, r in refs.items()) + ".")
    notes += _reference_odd(effects)
    if paired_any and not unpaired_any:
        notes.append("Every comparison is paired: the instrument and the reference were played on the same deals.")
    elif unpaired_any:
        notes.append("Some sets of this run were not played on common deals (results from before deals were "
                     "shared): those comparisons are unpaired (Welch) and less precise.")
    if "strategy_win" not in set(effects["measure"]):
        notes.append("One strategy plays every seat, so which strategy wins cannot change with the instrument.")
    return InstrumentVerdicts(effects, verdicts, margins, alpha, k, paired_any and not unpaired_any, varied, notes,
                              seq)


def reference_odd(effects):
    """``{(department, players, lineup, measure, who)}`` where every other instrument of the department
    (two or more) reads out of line in the same direction: there the reference is the odd one."""
    odd = set()
    keys = ["department", "players", "lineup", "measure", "who"]
    for key, part in effects.groupby(keys, sort=True):
        if len(part) >= 2 and (part["verdict"] == OUT).all() and len(set(np.sign(part["effect"]))) == 1:
            odd.add(key)
    return odd


def _reference_odd(effects):
    """Notes for :func:`reference_odd`, one per department, player count and judge."""
    out = []
    refs = effects.groupby("department")["reference"].first()
    by = {}
    for dept, players, lineup, measure, who in sorted(reference_odd(effects)):
        label = MEASURES[measure][0] + (f" ({seat_name(who)})" if measure == "seat_win" else "")
        by.setdefault((dept, players, lineup), []).append(label)
    for (dept, players, lineup), labels in by.items():
        out.append(f"Every other {dept} instrument reads out of line in the same direction on {', '.join(labels)} "
                   f"({players} players, {judge_label(lineup)}): the reference {refs[dept]} is the odd one there.")
    return out


def proof_settings(manifest):
    """The strong judge's proof of a run (scenarios.sequential_proof): its setting records, each with
    its judge and the reference; empty when the run played none."""
    rec = ((manifest or {}).get("sequential") or {}).get("proof") or {}
    return [dict(s, strong=rec.get("strong"), reference=rec.get("reference")) for s in rec.get("settings") or []]


def proof_for(proofs, dept, inst, players, judge):
    """The words of the strong judge's proof beside one instrument verdict it gave, or None: the
    verdict compares the set with ``inst`` in ``dept`` against the first set of its player count,
    so it rests on an unproven judge when the judge is not shown stronger on either."""
    at = [s for s in proofs if s.get("strong") == judge and int(s.get("players", 0)) == int(players)]
    if not at:
        return None
    own = [s for s in at if (s.get("instruments") or {}).get(dept) == inst]
    both = list({id(s): s for s in own[:1] + at[:1]}.values())
    unproven = [s for s in both if s.get("verdict") != SS.STRONGER]
    return SQP.proof_note(unproven[0] if unproven else both[0])


def _verdict_table(effects, seq=None, proofs=()):
    rows = []
    judges = effects.groupby("players")["lineup"].nunique()
    for (dept, inst, players, lineup), part in effects.groupby(VERDICT_KEYS, sort=False):
        counts = part["verdict"].value_counts()
        if counts.get(OUT, 0):
            verdict = OUT
            pool = part[part["verdict"] == OUT]
        elif counts.get(UNCLEAR, 0):
            verdict = UNCLEAR
            pool = part[part["verdict"] == UNCLEAR]
        else:
            verdict = IN_LINE
            pool = part
        worst = pool.loc[pool["in_margins"].idxmax()]
        rows.append({
            "department": dept, "instrument": inst, "players": int(players), "lineup": lineup, "verdict": verdict,
            "worst_measure": worst["measure"], "worst_who": worst["who"], "worst_effect": worst["effect"],
            "worst_lo": worst["lo"], "worst_hi": worst["hi"], "worst_margin": worst["margin"],
            "in_margins": worst["in_margins"], "measures_out": int(counts.get(OUT, 0)),
            "measures_unclear": int(counts.get(UNCLEAR, 0)), "reference": worst["reference"],
            "deals": int(part["deals"].min()),
            "sentence": sentence(inst, dept, int(players), verdict, worst, part,
                                 judge=lineup if judges.get(players, 1) > 1 else None),
        })
        if seq is not None:
            rec = seq["records"].get((dept, inst, int(players), str(lineup).split(",")[0].strip()))
            check_stored_verdict(rec, verdict, int(part["deals"].min()), seq)
            rows[-1]["seq_stop"] = (rec or {}).get("stop")
            rows[-1]["seq_note"] = sequential_note(verdict, int(part["deals"].min()), rec)
            rows[-1]["sentence"] = rows[-1]["sentence"][:-1] + f"; {rows[-1]['seq_note']}."
        note = proof_for(proofs, dept, inst, players, str(lineup).split(",")[0].strip()) if proofs else None
        if proofs:
            rows[-1]["proof"] = note
        if note:
            rows[-1]["sentence"] = rows[-1]["sentence"][:-1] + f" [{note}]."
    out = pd.DataFrame(rows)
    out["_g"] = out["verdict"].map({v: i for i, v in enumerate(VERDICT_ORDER)})
    out = out.sort_values(["_g", "in_margins"], ascending=[True, False]).drop(columns="_g").reset_index(drop=True)
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    return out[VERDICT_COLUMNS + (["seq_stop", "seq_note"] if seq is not None else [])
               + (["proof"] if proofs else [])]


# --------------------------------------------------------------------------- words


def _pct(x):
    return f"{100 * x:.0f}%"


def effect_phrase(row, than=None):
    """What one effect row says, in the designer's words (no verdict); ``than`` names the baseline
    (``'Piano, the orange reference'``), put before the figures."""
    text = _effect_words(row)
    if not than:
        return text
    head, sep, tail = text.partition(" (")
    if row["measure"] == "unbuilt":
        return text.replace("for the others", f"for {than}")
    link = "than" if row["measure"] in ("objective_points", "winner_points", "rounds") else "compared with"
    return f"{head} {link} {than}{sep}{tail}"


def _effect_words(row):
    m, d, v, b = row["measure"], row["effect"], row["value"], row["base"]
    if m == "objective_points":
        return f"hands out {abs(d):.1f} {'more' if d >= 0 else 'fewer'} objective points per game ({v:.1f} against {b:.1f})"
    if m == "winner_points":
        return f"gives the winner {abs(d):.1f} {'more' if d >= 0 else 'fewer'} points from it ({v:.1f} against {b:.1f})"
    if m == "seat_win":
        return (f"moves the {seat_name(row['who'])}'s win rate by {100 * d:+.1f} percentage points "
                f"({_pct(v)} against {_pct(b)})")
    if m == "unbuilt":
        return f"is left unbuilt in {_pct(v)} of games against {_pct(b)} for the others"
    if m == "rounds":
        return f"makes games {abs(d):.1f} rounds {'longer' if d >= 0 else 'shorter'} ({v:.1f} against {b:.1f})"
    if m == "strategy_win":
        return f"moves {row['who']}'s share of wins by {100 * d:+.1f} percentage points ({_pct(v)} against {_pct(b)})"
    return f"{m} {d:+.2f}"


def margin_text(measure, margin):
    """``'±5 points'``, ``'±5 percentage points'``: a margin as the designer set it."""
    unit = MEASURES[measure][1]
    x = 100 * margin if measure in RATE_MEASURES else margin
    return f"±{x:g} {unit}"


def judge_label(lineup):
    """``greedy x4`` for a mirror lineup, the lineup itself otherwise (the seat section's naming)."""
    names = [x.strip() for x in str(lineup).split(",")]
    return f"{names[0]} x{len(names)}" if len(set(names)) == 1 else ",".join(names)


def _also(part, worst, verdict):
    """``'; also out of line on game length (it makes games 1.4 rounds longer)'``: every other measure
    with the same verdict, each named."""
    rest = part[(part["verdict"] == verdict) & (part.index != worst.name)].sort_values("in_margins", ascending=False)
    if rest.empty:
        return ""
    named = [f"{MEASURES[r['measure']][0]}, where it {effect_phrase(r)}" for _, r in rest.head(3).iterrows()]
    more = len(rest) - len(named)
    tail = f" and {more} more measure{'s' if more != 1 else ''} (section 4)" if more > 0 else ""
    word = "out of line" if verdict == OUT else "undecided"
    return f"; also {word} on " + "; ".join(named) + tail


def _edge_text(worst, factor):
    """``'±4 points (the ±5 points margin less its zone)'`` for a sequential verdict."""
    z = float(worst.get("zone", 0.0) or 0.0) if hasattr(worst, "get") else 0.0
    m = margin_text(worst["measure"], worst["margin"])
    if not z:
        return f"the {m} margin"
    edge = margin_text(worst["measure"], worst["margin"] * (1 + factor * z))
    return f"{edge} (the {m} margin {'plus' if factor > 0 else 'less'} its zone)"


def sentence(inst, dept, players, verdict, worst, part, judge=None):
    """One plain sentence per instrument verdict, naming the measure (and every other measure out of
    line) and the baseline, the department's reference instrument; the judge is named when a run has
    several. A run decided sequentially names the zone's edges (module doc)."""
    who = f"{inst} ({dept}, {players} players" + (f", judged by {judge_label(judge)})" if judge else ")")
    label = MEASURES[worst["measure"]][0]
    base = f"{worst['reference']}, the {dept} reference"
    if verdict == OUT:
        return (f"{who} is out of line on {label}: it {effect_phrase(worst, base)}, beyond "
                f"{_edge_text(worst, -1)}{_also(part, worst, OUT)}.")
    if verdict == UNCLEAR:
        undecided = int((part["verdict"] == UNCLEAR).sum())
        return (f"{who} is not shown out of line, nor yet in line, on {label}: it {effect_phrase(worst, base)}, "
                f"against a {margin_text(worst['measure'], worst['margin'])} margin; {undecided} of "
                f"{len(part)} measures need more deals.")
    within = "" if "zone" not in part else ", each shown within its margin plus its zone"
    return f"{who} is in line with {base}, on every measure ({len(part)} measures{within})."
