"""The expansion answer: each instrument in words, per player count, across the judges.

:mod:`reports.instrument_verdicts` gives one verdict per instrument, player count and judge (a mirror
lineup of one strategy, e.g. ``greedy x4`` and ``search x4``). This module puts the judges of one
player count side by side and says, per instrument, one sentence: out of line or not, on which
measure, by how much, for which judges, whether the judges agree, and what the swap does to the seat
balance.

Whether a verdict moves with skill is a test, never a reading of two point estimates. The judges play
different deals (the lineup is part of the deal key, ``simulator.seeds``), so their effects are
independent estimates; the difference between two judges' effects on one measure is tested with a
Welch interval::

    diff = effect(strong) - effect(weak),   se = sqrt(se_weak^2 + se_strong^2)

at the level of the instrument's verdict (Bonferroni over the measures of one instrument and player
count, as the verdicts). The difference is *shown* when its interval excludes 0 (the effect moves with
skill, in the direction shown), *shown within the margin* when the interval lies within +-m (the
judges agree), *not shown* otherwise. A sentence says a verdict moves with skill only when the
judges' verdicts on the measure named are decided and differ (out of line for one, in line for the
other) and the difference is shown; a shown difference between verdicts that agree, or where one is
undecided, is said as "the effect is larger (smaller) under the strong judge".

In a run decided sequentially (``sequential.verdicts = ["instruments"]``) each judge's effect stopped
when its verdict was decided, so the difference gets an anytime-valid interval instead: the two
judges' confidence sequences (:mod:`stats.paired`), each at level alpha / (2 K), give
``diff +- (w_weak + w_strong)``, which holds whenever both do.

The seat effect of a swap is the seat-win measure of the verdicts: each seat's win rate with the
instrument minus with the reference, on the same deals. A swap *tilts the table* when some seat's
change is shown beyond the seat-win margin, *leaves the seat balance* when every seat's change is
shown within it, and is *not decided* otherwise.
"""

from __future__ import annotations

import math

import pandas as pd

from stats import paired
from stats.tests import simultaneous_interval

from reports.instrument_verdicts import (
    IN_LINE,
    MEASURES,
    OUT,
    UNCLEAR,
    effect_phrase,
    interval_verdict,
    judge_label,
    margin_text,
    reference_odd,
    seat_name,
)

SHOWN = "shown"  # the judges differ (interval excludes 0)
AGREE = "agree"  # the difference is shown within the margin
NOT_SHOWN = "not shown"

TILTS = "tilts the table"
LEAVES = "leaves the seat balance"
SEAT_OPEN = "not decided"

DIFF_COLUMNS = ["department", "instrument", "players", "measure", "who", "weak", "strong", "weak_effect",
                "strong_effect", "diff", "lo", "hi", "margin", "family", "test"]
ANSWER_COLUMNS = ["department", "instrument", "players", "lineup", "judge", "reference", "verdict", "measure", "who",
                  "measure_verdict", "effect", "lo", "hi", "margin", "own_measure", "own_who", "own_effect", "own_lo",
                  "own_hi", "seat_verdict", "seat_who", "seat_effect", "seat_lo", "seat_hi",
                  "seat_margin", "deals", "seq_note"]


def judge_order(effects, cells=None):
    """The judges (lineups) of each player count, weakest first: in the order the run's cells list them
    (the scenario's ``mirror`` order), else in the effect table's order."""
    order = {}
    src = cells if cells is not None and "lineup" in cells else effects
    for players, part in src.groupby("players", sort=True):
        seen = [str(x) for x in dict.fromkeys(part["lineup"].astype(str))]
        order[int(players)] = [x for x in seen if x in set(effects.loc[effects["players"] == players, "lineup"])]
    return order


def _sequential(row):
    z = row.get("zone") if hasattr(row, "get") else None
    return z is not None and not pd.isna(z)


def _diff_row(a, b, alpha, k):
    diff = b["effect"] - a["effect"]
    va, vb = a["se"] ** 2, b["se"] ** 2
    se = math.sqrt(va + vb)
    if _sequential(a) and _sequential(b):
        w = sum(float(paired.half_width(r["se"] * math.sqrt(r["deals"]), r["deals"], alpha / (2 * k)))
                if r["deals"] >= paired.MIN_LOOK else math.inf for r in (a, b))
        lo, hi = diff - w, diff + w
    elif se > 0:
        den = (va**2 / max(a["df"], 1)) + (vb**2 / max(b["df"], 1))
        df = (va + vb) ** 2 / den if den > 0 else max(a["df"], b["df"])
    else:
        df = max(a["df"], b["df"], 1)
    if not (_sequential(a) and _sequential(b)):
        lo, hi = (float(x) for x in simultaneous_interval(diff, se, df, alpha, k))
    m = a["margin"]
    test = SHOWN if (lo > 0 or hi < 0) else AGREE if interval_verdict(lo, hi, m) == IN_LINE else NOT_SHOWN
    return {"weak_effect": a["effect"], "strong_effect": b["effect"], "diff": diff, "lo": lo, "hi": hi, "margin": m,
            "family": k, "test": test}


def judge_differences(effects, alpha=0.05, order=None):
    """Per instrument, player count and measure (and seat): the strongest judge's effect minus the
    weakest's, with its Welch interval and the test's word (module doc). Empty with one judge."""
    order = order or judge_order(effects)
    rows = []
    for (dept, inst, players), part in effects.groupby(["department", "instrument", "players"], sort=False):
        judges = [j for j in order.get(int(players), []) if j in set(part["lineup"])]
        if len(judges) < 2:
            continue
        weak, strong = judges[0], judges[-1]
        a = part[part["lineup"] == weak].set_index(["measure", "who"])
        b = part[part["lineup"] == strong].set_index(["measure", "who"])
        keys = [k for k in a.index if k in b.index]
        for key in keys:
            rows.append({"department": dept, "instrument": inst, "players": int(players), "measure": key[0],
                         "who": key[1], "weak": weak, "strong": strong,
                         **_diff_row(a.loc[key], b.loc[key], alpha, len(keys))})
    return pd.DataFrame(rows, columns=DIFF_COLUMNS)


def seat_effect(part):
    """``(verdict, row)`` of one instrument's swap on the seat balance for one judge: ``part`` is its
    effect rows; the row is the seat moved most (of the undecided or out-of-line seats first)."""
    seats = part[part["measure"] == "seat_win"]
    if seats.empty:
        return SEAT_OPEN, None
    if (seats["verdict"] == OUT).any():
        pool, verdict = seats[seats["verdict"] == OUT], TILTS
    elif (seats["verdict"] == IN_LINE).all():
        pool, verdict = seats, LEAVES
    else:
        pool, verdict = seats[seats["verdict"] == UNCLEAR], SEAT_OPEN
    return verdict, pool.loc[pool["effect"].abs().idxmax()]


def _main_measure(rows):
    """The measure an instrument's sentence is about: of the measures out of line for some judge, the
    first in the order of ``MEASURES`` (objective points before the winner's points, seats, unbuilt
    games, length), the furthest in margins among its seats; else the most undecided, else the
    largest in margins."""
    out = rows[rows["verdict"] == OUT]
    if not out.empty:
        first = min(out["measure"], key=list(MEASURES).index)
        pool = out[out["measure"] == first]
        r = pool.loc[pool["in_margins"].idxmax()]
        return r["measure"], r["who"]
    pool = rows[rows["verdict"] == UNCLEAR]
    if not pool.empty:
        r = pool.loc[pool["in_margins"].idxmax()]
        return r["measure"], r["who"]
    r = rows.loc[rows["in_margins"].idxmax()]
    return r["measure"], r["who"]


def answer_table(verdicts, order=None):
    """One row per instrument, player count and judge: the verdict, the measure the sentence names with
    its effect and interval, and the swap's seat effect (the closing answer table)."""
    eff, ver = verdicts.effects, verdicts.verdicts
    order = order or judge_order(eff)
    rows = []
    for (dept, inst, players), part in eff.groupby(["department", "instrument", "players"], sort=False):
        measure, who = _main_measure(part)
        for lineup in order.get(int(players), []):
            mine = part[part["lineup"] == lineup]
            if mine.empty:
                continue
            v = ver[(ver["instrument"] == inst) & (ver["players"] == players) & (ver["lineup"] == lineup)]
            e = mine[(mine["measure"] == measure) & (mine["who"] == who)]
            sv, srow = seat_effect(mine)
            e = e.iloc[0] if len(e) else mine.iloc[0]
            own = v.iloc[0] if len(v) else None
            rows.append({"department": dept, "instrument": inst, "players": int(players), "lineup": lineup,
                         "judge": judge_label(lineup), "reference": e["reference"],
                         "verdict": own["verdict"] if own is not None else UNCLEAR, "measure": e["measure"],
                         "who": e["who"], "measure_verdict": e["verdict"], "effect": e["effect"], "lo": e["lo"],
                         "hi": e["hi"], "margin": e["margin"],
                         "own_measure": own["worst_measure"] if own is not None else e["measure"],
                         "own_who": own["worst_who"] if own is not None else e["who"],
                         "own_effect": own["worst_effect"] if own is not None else e["effect"],
                         "own_lo": own["worst_lo"] if own is not None else e["lo"],
                         "own_hi": own["worst_hi"] if own is not None else e["hi"],
                         "seat_verdict": sv, "seat_who": None if srow is None else srow["who"],
                         "seat_effect": math.nan if srow is None else srow["effect"],
                         "seat_lo": math.nan if srow is None else srow["lo"],
                         "seat_hi": math.nan if srow is None else srow["hi"],
                         "seat_margin": math.nan if srow is None else srow["margin"],
                         "deals": int(mine["deals"].min()),
                         "seq_note": own.get("seq_note") if own is not None else None})
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


# --------------------------------------------------------------------------- words


def _figure(measure, effect, lo, hi):
    scale = 100.0 if MEASURES[measure][3] else 1.0
    unit = " pp" if MEASURES[measure][3] else ""
    return f"{scale * effect:+.1f}{unit} [{scale * lo:+.1f}, {scale * hi:+.1f}]"


def _names(judges):
    labels = [judge_label(j) for j in judges]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _measure_label(measure, who):
    if measure == "seat_win":
        return f"the {seat_name(who)}'s win rate"
    if measure == "strategy_win":
        return f"{who}'s share of wins"
    return MEASURES[measure][0]


def _skill_clause(d, verdicts_differ):
    """What the test of the difference between the weakest and the strongest judge says."""
    fig = _figure(d["measure"], d["diff"], d["lo"], d["hi"])
    strong, weak = judge_label(d["strong"]), judge_label(d["weak"])
    if d["test"] == SHOWN:
        more = "larger" if abs(d["strong_effect"]) > abs(d["weak_effect"]) else "smaller"
        head = "the verdict moves with skill" if verdicts_differ else f"the effect is {more} under {strong}"
        return f"{head}: {strong} minus {weak} {fig}, a difference the test shows"
    if d["test"] == AGREE:
        return (f"the judges agree ({strong} minus {weak} {fig}, shown within the "
                f"{margin_text(d['measure'], d['margin'])} margin)")
    if verdicts_differ:
        return (f"the verdicts differ but the difference between the judges is not shown ({strong} minus {weak} "
                f"{fig}), so it is not shown to move with skill")
    return f"whether the judges differ is not shown ({strong} minus {weak} {fig})"


def _seat_clause(rows):
    """The swap's seat effect per judge, said once when the judges read alike."""
    words = {}
    for r in rows.itertuples(index=False):
        words.setdefault(r.seat_verdict, []).append(r)
    parts = []
    for verdict, rs in words.items():
        who = _names([r.lineup for r in rs])
        if verdict == LEAVES:
            m = margin_text("seat_win", rs[0].seat_margin).replace("percentage points", "pp")
            parts.append(f"leaves the seat balance for {who} (every seat shown within {m})")
        else:
            figs = "; ".join(f"{judge_label(r.lineup)}: {seat_name(r.seat_who)} "
                             f"{_figure('seat_win', r.seat_effect, r.seat_lo, r.seat_hi)}" for r in rs if r.seat_who)
            word = "tilts the table" if verdict == TILTS else "has a seat effect not decided yet"
            parts.append(f"{word} for {who} ({figs})")
    return "the swap " + ", and ".join(parts) if parts else ""


_WORD = {OUT: "out of line", IN_LINE: "in line", UNCLEAR: "not decided"}


def _other_measures(rows):
    """Where a judge's verdict rests on another measure than the sentence's: that judge's own measure
    (``'; for search x3 it is also out of line on the winner's points (+2.6 [+2.1, +3.1])'``)."""
    out = []
    for r in rows.itertuples(index=False):
        if r.verdict == r.measure_verdict or r.verdict == IN_LINE:
            continue
        fig = _figure(r.own_measure, r.own_effect, r.own_lo, r.own_hi)
        label = _measure_label(r.own_measure, r.own_who)
        if r.verdict == OUT:
            out.append(f"for {judge_label(r.lineup)} it is out of line on {label} ({fig})")
        else:
            out.append(f"for {judge_label(r.lineup)} {label} is not decided yet ({fig})")
    return "".join(f"; {x}" for x in out)


def instrument_sentences(verdicts, order=None, alpha=None):
    """One sentence per instrument and player count (module doc), the most out of line first:
    ``[(department, instrument, players, sentence)]``."""
    if verdicts is None or verdicts.empty:
        return []
    alpha = verdicts.alpha if alpha is None else alpha
    eff = verdicts.effects
    order = order or judge_order(eff)
    table = answer_table(verdicts, order)
    diffs = judge_differences(eff, alpha, order)
    odds = reference_odd(eff)
    rank = {v: i for i, v in enumerate((OUT, UNCLEAR, IN_LINE))}
    out = []
    for (dept, inst, players), rows in table.groupby(["department", "instrument", "players"], sort=False):
        first = rows.iloc[0]
        measure, who = first["measure"], first["who"]
        label = _measure_label(measure, who)
        ref = first["reference"]
        kinds = dict.fromkeys(rows["measure_verdict"])
        head = f"{inst} ({dept}) at {players} players"
        everywhere = (rows["verdict"] == IN_LINE).all()
        if everywhere:
            alike = " alike" if len(rows) > 1 else ""
            text = f"{head} is in line with {ref} on every measure for {_names(rows['lineup'])}{alike}"
        elif len(kinds) == 1:
            alike = " alike" if len(rows) > 1 else ""
            text = f"{head} is {_WORD[next(iter(kinds))]} on {label} for {_names(rows['lineup'])}{alike}"
        else:
            parts = [f"{_WORD[v]} for {_names(rows.loc[rows['measure_verdict'] == v, 'lineup'])}"
                     for v in sorted(kinds, key=rank.get)]
            text = f"{head} is " + ", ".join(parts) + f" on {label}"
        if not everywhere:
            e = eff[(eff["instrument"] == inst) & (eff["players"] == players) & (eff["measure"] == measure)
                    & (eff["who"] == who)]
            if len(e):
                phrase = effect_phrase(e.loc[(e["effect"].abs() / e["margin"]).idxmax()], ref).split(" (")[0]
                figs = "; ".join(f"{judge_label(r.lineup)} {_figure(measure, r.effect, r.lo, r.hi)}"
                                 for r in e.itertuples(index=False))
                text += f": it {phrase} ({figs}; margin {margin_text(measure, first['margin'])})"
        odd = [lu for lu in rows["lineup"] if (dept, players, lu, measure, who) in odds]
        if odd:
            text += (f"; so does every other {dept} instrument for {_names(odd)}: {ref}, the reference, is the odd "
                     "one on this measure")
        if not everywhere:
            text += _other_measures(rows)
        d = diffs[(diffs["instrument"] == inst) & (diffs["players"] == players) & (diffs["measure"] == measure)
                  & (diffs["who"] == who)]
        if len(d):
            # The verdict moves with skill only between decided verdicts (out of line for one judge, in line
            # for another) on the measure named, and only where the test shows the difference.
            text += "; " + _skill_clause(d.iloc[0], {OUT, IN_LINE} <= set(kinds))
        notes = [(judge_label(r.lineup), r.seq_note) for r in rows.itertuples(index=False) if r.seq_note]
        if notes:
            text += "; " + "; ".join(f"{j} {n}" for j, n in notes)
        seat = _seat_clause(rows) if measure != "seat_win" else ""
        if seat:
            text += "; " + seat
        out.append((dept, inst, int(players), min(rank[v] for v in rows["verdict"]), text + "."))
    out.sort(key=lambda x: (x[2], x[3], x[0], x[1]))
    return [(d, i, p, t) for d, i, p, _, t in out]


def instrument_answers(verdicts, order=None):
    """The report's answer for an instrument run: per player count, one line naming the instruments out
    of line for some judge, then one sentence per instrument (:func:`instrument_sentences`)."""
    sents = instrument_sentences(verdicts, order)
    if not sents:
        return []
    v = verdicts.verdicts
    out = []
    for players in sorted({p for _, _, p, _ in sents}):
        part = v[v["players"] == players]
        bad = sorted(set(part.loc[part["verdict"] == OUT, "instrument"]))
        open_ = sorted(set(part.loc[part["verdict"] == UNCLEAR, "instrument"]) - set(bad))
        head = f"Instruments at {players} players: " + (
            f"out of line for some judge: {', '.join(bad)}" if bad else "none is shown out of line")
        head += (f"; not decided for some judge: {', '.join(open_)}" if open_ else "") + "."
        out.append(head)
        out += [f"  {t}" for _, _, p, t in sents if p == players]
    return out


__all__ = ["answer_table", "instrument_answers", "instrument_sentences", "judge_differences", "judge_order",
           "seat_effect"]
