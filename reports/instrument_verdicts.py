"""Instruments out of line: each instrument against the others of its department, on the same deals.

For a run that varies instruments (``expansion``, ``grid``, a list of sets), every instrument of a
varied department is compared with the *other instruments of its department* played in the same
context: the same player count, lineup and instruments in the two other departments. A scenario of
several instrument sets plays every set on the same deals (``simulator.seeds``), so the comparison
is paired deal by deal::

    deal s:   d(s) = measure(instrument, s) - mean over the peers J of measure(J, s)

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

Verdict of one measure, from its interval against the margin m: *out of line* when the whole
interval lies beyond +-m, *in line* when it lies within +-m, *unclear* otherwise. The intervals
are simultaneous: each is taken at level 1 - alpha / K, K being the number of intervals of the
section (Bonferroni), so with probability at least 1 - alpha every interval holds its true value
at once, and the chance that *any* verdict of the section is wrong is at most alpha.

Every comparison is made per player count and lineup: a run with several judge levels (mirror
lineups of different strategies) gets one verdict per judge, never a pooled one.

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
from scipy import stats as sps

from reports.frames import DEPTS, GAME_ID, varied_departments

OUT = "out of line"
IN_LINE = "in line"
UNCLEAR = "unclear"
VERDICT_ORDER = (OUT, UNCLEAR, IN_LINE)

# key -> (label for tables, unit, default margin, is a rate)
MEASURES = {
    "objective_points": ("objective points handed out per game", "points", 5.0, False),
    "winner_points": ("winner's points from the instrument", "points", 2.0, False),
    "seat_win": ("win rate of a seat", "percentage points", 0.05, True),
    "unbuilt": ("games ending with it unbuilt", "percentage points", 0.10, True),
    "rounds": ("game length", "rounds", 1.0, False),
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

    @property
    def empty(self):
        return self.verdicts.empty


# --------------------------------------------------------------------------- per-game measures


def _per_game(seats, games, dept):
    """One row per game: context, instrument, deal seed and every measure's value."""
    obj = f"objective_{dept}"
    others = [f"inst_{d}" for d in DEPTS if d != dept]
    g = games.set_index(GAME_ID)
    out = pd.DataFrame(
        {
            "players": g["players"].astype(int),
            "lineup": g["lineup"].astype(str),
            "context": g[others[0]].astype(str) + "/" + g[others[1]].astype(str),
            "instrument": g[f"inst_{dept}"].astype(str),
            "seed": g["seed"],
            "objective_points": seats.groupby(GAME_ID, sort=False)[obj].sum(),
            "winner_points": seats[seats["won"] == 1].groupby(GAME_ID, sort=False)[obj].sum(),
            "unbuilt": (g[f"built_{dept}"] == 0).astype(float),
            "rounds": g["rounds"].astype(float),
        }
    )
    out["winner_points"] = out["winner_points"].fillna(0.0)
    winner = g["winner"].astype(int)
    for k in range(int(g["players"].max())):
        out[f"seat_win:{k}"] = np.where(k < out["players"], (winner == k).astype(float), np.nan)
    strategies = _strategies(games)
    if len(strategies) > 1:
        for s in strategies:
            out[f"strategy_win:{s}"] = (g["winner_strategy"].astype(str) == s).astype(float)
    return out.reset_index(drop=True)


def _strategies(games):
    names = set()
    for lineup in games["lineup"].astype(str).unique():
        names |= {x.strip() for x in lineup.split(",")}
    return sorted(names)


def _measure_columns(per):
    return [c for c in per.columns if c.partition(":")[0] in MEASURES]


# --------------------------------------------------------------------------- effects


def _paired_differences(part, inst, col):
    """Per deal seed: instrument minus the mean of its peers, averaged over the contexts of the seed."""
    diffs = []
    for _, grp in part.groupby(["lineup", "context"], sort=False):
        if inst not in set(grp["instrument"]) or grp["instrument"].nunique() < 2:
            continue
        table = grp.pivot_table(index="seed", columns="instrument", values=col, aggfunc="mean")
        if inst not in table or table.shape[1] < 2:
            continue
        mine = table[inst]
        peers = table.drop(columns=inst).mean(axis=1, skipna=True)
        ok = mine.notna() & peers.notna()
        if ok.any():
            diffs.append(pd.DataFrame({"seed": table.index[ok], "d": (mine - peers)[ok].to_numpy(),
                                       "v": mine[ok].to_numpy(), "b": peers[ok].to_numpy()}))
    if not diffs:
        return None
    return pd.concat(diffs).groupby("seed")[["d", "v", "b"]].mean()


def _unpaired(part, inst, col):
    """Deal means of the instrument and of its peers on shared contexts (no common deals)."""
    mine, peers = [], []
    for _, grp in part.groupby(["lineup", "context"], sort=False):
        if inst not in set(grp["instrument"]) or grp["instrument"].nunique() < 2:
            continue
        by_deal = grp.groupby(["instrument", "seed"])[col].mean().reset_index()
        mine.append(by_deal.loc[by_deal["instrument"] == inst, col])
        peers.append(by_deal.loc[by_deal["instrument"] != inst, col])
    if not mine:
        return None
    return pd.concat(mine).dropna().to_numpy(), pd.concat(peers).dropna().to_numpy()


def _effect(part, inst, col):
    """``(row, paired)`` of one instrument's effect on one measure column within one player count, or
    ``(None, None)`` when it cannot be compared: paired by deal when its sets share deals, else Welch."""
    d = _paired_differences(part, inst, col)
    if d is not None and len(d) >= 2:
        x = d["d"].to_numpy()
        return {"paired": True, "deals": len(x), "effect": x.mean(), "se": x.std(ddof=1) / math.sqrt(len(x)),
                "df": len(x) - 1, "value": d["v"].mean(), "base": d["b"].mean()}, True
    u = _unpaired(part, inst, col)
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
    for dept in varied_departments(games):
        per = _per_game(seats, games, dept)
        cols = _measure_columns(per)
        # One comparison per player count and lineup (judge): lineups are never pooled, as in the seat
        # section; a strategy's win share is a measure only in a mixed lineup that holds it.
        for (players, lineup), part in per.groupby(["players", "lineup"], sort=True):
            insts = sorted(part["instrument"].unique())
            if len(insts) < 2:
                continue
            names = {x.strip() for x in str(lineup).split(",")}
            for inst in insts:
                peers = sorted(set(part["instrument"]) - {inst})
                for col in cols:
                    measure, _, who = col.partition(":")
                    if part[col].isna().all():
                        continue
                    if measure == "strategy_win" and (len(names) < 2 or who not in names):
                        continue
                    base = {"department": dept, "instrument": inst, "players": int(players), "lineup": str(lineup),
                            "measure": measure, "who": who, "peers": ", ".join(peers)}
                    row, paired = _effect(part, inst, col)
                    if row is None:
                        continue
                    paired_any |= paired
                    unpaired_any |= not paired
                    rows.append({**base, **row})
    return pd.DataFrame(rows), paired_any, unpaired_any


def instrument_effect(seats, games, department, instrument, measure="objective_points", players=None):
    """One instrument's effect on one measure (no seat or strategy measure) against the others of its
    department, per player count and lineup, exactly as the section computes it: one row each with
    ``players, lineup, paired, deals, effect, se, df, value, base``; empty when it has no peers in these games.
    ``ssb tune`` decides its instrument targets with it (``reports.tune_verdicts``)."""
    if measure not in MEASURES or measure in ("seat_win", "strategy_win"):
        raise ValueError(f"{measure!r} is not a single-column instrument measure")
    cols = ["players", "lineup", "paired", "deals", "effect", "se", "df", "value", "base"]
    per = _per_game(seats, games, department)
    rows = []
    for (n, lineup), part in per.groupby(["players", "lineup"], sort=True):
        if players is not None and int(n) not in set(players):
            continue
        if instrument not in set(part["instrument"]) or part["instrument"].nunique() < 2:
            continue
        row, _ = _effect(part, instrument, measure)
        if row is not None:
            rows.append({"players": int(n), "lineup": str(lineup), **row})
    return pd.DataFrame(rows, columns=cols)


def simultaneous_interval(effect, se, df, alpha, k):
    """``(lo, hi)``: the interval of an effect at level 1 - alpha / k (Bonferroni over k intervals)."""
    q = sps.t.ppf(1.0 - alpha / (2 * k), np.maximum(np.asarray(df, dtype=float), 1))
    return effect - q * se, effect + q * se


def interval_verdict(lo, hi, m):
    """out of line / in line / unclear: an interval against the margin ``m`` (module doc)."""
    return _interval_verdict(lo, hi, m)


EFFECT_COLUMNS = [
    "department", "instrument", "players", "lineup", "measure", "who", "peers", "paired", "deals", "value", "base",
    "effect", "lo", "hi", "margin", "in_margins", "verdict",
]
VERDICT_COLUMNS = [
    "rank", "department", "instrument", "players", "lineup", "verdict", "worst_measure", "worst_who", "worst_effect",
    "worst_lo", "worst_hi", "worst_margin", "in_margins", "measures_out", "measures_unclear", "peers", "deals",
    "sentence",
]


def _interval_verdict(lo, hi, m):
    if lo > m or hi < -m:
        return OUT
    if lo >= -m and hi <= m:
        return IN_LINE
    return UNCLEAR


def instrument_verdicts(seats, games, margins=None, confidence=0.95):
    """The section's tables (module doc); ``margins`` maps measure keys to margins (defaults above)."""
    margins = {**DEFAULT_MARGINS, **(margins or {})}
    alpha = 1.0 - confidence
    varied = varied_departments(games)
    notes = []
    raw, paired_any, unpaired_any = _raw_effects(seats, games)
    if raw.empty:
        if not varied:
            notes.append("This run plays one instrument set, so no instrument is compared with the others of its "
                         "department: run the expansion or grid scenario for that.")
        else:
            notes.append("No instrument could be compared with another of its department in the same context.")
        return InstrumentVerdicts(pd.DataFrame(columns=EFFECT_COLUMNS), pd.DataFrame(columns=VERDICT_COLUMNS),
                                  margins, alpha, 0, False, varied, notes)
    k = len(raw)
    level = 1.0 - alpha / k
    raw["lo"], raw["hi"] = simultaneous_interval(raw["effect"].to_numpy(), raw["se"].to_numpy(),
                                                 raw["df"].to_numpy(), alpha, k)
    raw["margin"] = raw["measure"].map(margins)
    raw["in_margins"] = raw["effect"].abs() / raw["margin"]
    raw["verdict"] = [_interval_verdict(lo, hi, m) for lo, hi, m in zip(raw["lo"], raw["hi"], raw["margin"], strict=True)]
    effects = raw[EFFECT_COLUMNS].reset_index(drop=True)
    verdicts = _verdict_table(effects)
    notes.append(
        f"Each interval is simultaneous over the {k} comparisons of this section (level {100 * level:.3g}% each, "
        f"Bonferroni), so the chance that any verdict here is wrong is at most {100 * alpha:.0f}%."
    )
    if paired_any and not unpaired_any:
        notes.append("Every comparison is paired: the instrument and its peers were played on the same deals.")
    elif unpaired_any:
        notes.append("Some sets of this run were not played on common deals (results from before deals were "
                     "shared): those comparisons are unpaired (Welch) and less precise.")
    if "strategy_win" not in set(effects["measure"]):
        notes.append("One strategy plays every seat, so which strategy wins cannot change with the instrument.")
    return InstrumentVerdicts(effects, verdicts, margins, alpha, k, paired_any and not unpaired_any, varied, notes)


def _verdict_table(effects):
    rows = []
    judges = effects.groupby("players")["lineup"].nunique()
    for (dept, inst, players, lineup), part in effects.groupby(
        ["department", "instrument", "players", "lineup"], sort=False
    ):
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
            "measures_unclear": int(counts.get(UNCLEAR, 0)), "peers": worst["peers"], "deals": int(part["deals"].min()),
            "sentence": sentence(inst, dept, int(players), verdict, worst, part,
                                 judge=lineup if judges.get(players, 1) > 1 else None),
        })
    out = pd.DataFrame(rows)
    out["_g"] = out["verdict"].map({v: i for i, v in enumerate(VERDICT_ORDER)})
    out = out.sort_values(["_g", "in_margins"], ascending=[True, False]).drop(columns="_g").reset_index(drop=True)
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    return out[VERDICT_COLUMNS]


# --------------------------------------------------------------------------- words


def _pct(x):
    return f"{100 * x:.0f}%"


def effect_phrase(row):
    """What one effect row says, in the designer's words (no verdict)."""
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


def sentence(inst, dept, players, verdict, worst, part, judge=None):
    """One plain sentence per instrument verdict (naming the judge when a run has several)."""
    who = f"{inst} ({dept}, {players} players" + (f", judged by {judge_label(judge)})" if judge else ")")
    if verdict == OUT:
        more = len(part[part["verdict"] == OUT]) - 1
        tail = f"; out of line on {more} more measure{'s' if more != 1 else ''}" if more > 0 else ""
        return (f"{who} is out of line: it {effect_phrase(worst)}, beyond the "
                f"{margin_text(worst['measure'], worst['margin'])} margin{tail}.")
    if verdict == UNCLEAR:
        undecided = int((part["verdict"] == UNCLEAR).sum())
        return (f"{who} is not shown out of line, nor yet in line: it {effect_phrase(worst)}, "
                f"against a {margin_text(worst['measure'], worst['margin'])} margin; {undecided} of {len(part)} "
                "measures need more deals.")
    return f"{who} is in line with the others of its department on every measure."
