"""Section 4 of the report: instruments, with the one instrument verdict of the report.

The verdicts come from :mod:`reports.instrument_verdicts` (each instrument against its department's
reference, paired on the same deals), the answer in words across the judges from
:mod:`reports.sections.shuffle_swing.instrument_judges`; the descriptive figures (objective points, unbuilt rate and
who pays, game length) from :mod:`reports.instruments`. No other section judges an instrument.
"""

from __future__ import annotations

from reports import charts
from reports import present as P
from reports.document import Section, Table
from reports.frames import pct
from reports.instrument_verdicts import (
    IN_LINE,
    MEASURES,
    OUT,
    UNCLEAR,
    effect_phrase,
    instrument_verdicts,
    judge_label,
    margin_text,
    seat_name,
)
from reports.sections.shuffle_swing.instrument_judges import answer_table, instrument_sentences, judge_differences, judge_order
from reports.instruments import compare_instruments
from reports.io import tables_of

HEADLINE_MAX = 5  # instruments named in the report's headline


def _who(row):
    if row["measure"] == "seat_win":
        return seat_name(row["who"])
    return str(row["who"] or "")


def _effect_cell_of(name):
    def fmt(row):
        scale = 100.0 if MEASURES[row["measure"]][3] else 1.0
        return f"{scale * row[name]:+.1f} [{scale * row['lo']:+.1f}, {scale * row['hi']:+.1f}]"

    return fmt


_effect_cell = _effect_cell_of("effect")


def _seat_cell(row):
    if row["seat_who"] is None or row["seat_effect"] != row["seat_effect"]:
        return ""
    return (f"{seat_name(row['seat_who'])} {100 * row['seat_effect']:+.1f} "
            f"[{100 * row['seat_lo']:+.1f}, {100 * row['seat_hi']:+.1f}]")


def _value_cell(name):
    def fmt(row):
        if MEASURES[row["measure"]][3]:
            return pct(row[name])
        return f"{row[name]:.1f}"

    return fmt


def headline_lines(verdicts):
    """Lines for the top of the report: the ranked instruments out of line (or that none is)."""
    if verdicts.empty:
        return []
    v = verdicts.verdicts
    out = v[v["verdict"] == OUT]
    unclear = int((v["verdict"] == UNCLEAR).sum())
    inline = int((v["verdict"] == IN_LINE).sum())
    if out.empty:
        text = f"No instrument is shown out of line with its department's reference ({inline} in line"
        return [text + (f", {unclear} unclear: more deals would tell)." if unclear else ").")]
    word = "unclear" if verdicts.sequential is None else "open"
    lines = [
        f"Instruments out of line: {len(out)} of {len(v)} verdicts (each against its department's reference on "
        f"the same deals; {inline} in line, {unclear} {word}). Most out of line first:"
    ]
    for row in out.head(HEADLINE_MAX).itertuples(index=False):
        lines.append(f"{row.rank}. {row.sentence}")
    if len(out) > HEADLINE_MAX:
        lines.append(f"... and {len(out) - HEADLINE_MAX} more in section 4.")
    return lines


def instrument_section(seats, games, confidence, seed, margins=None):
    """``(Section, InstrumentVerdicts)``: section 4 of the report."""

    ic = compare_instruments(seats, games, confidence, seed)
    iv = instrument_verdicts(seats, games, margins, confidence)
    order = judge_order(iv.effects, tables_of(seats, games).cells) if not iv.empty else {}
    c = int(100 * confidence)
    sec = Section(
        "instruments",
        "4. Instruments out of line",
        "Does any instrument play differently from its department's reference (the starter set's)?",
    )
    if not iv.empty:
        # The answer first: one sentence per instrument and player count, across the judges.
        sec.findings = [text for _, _, _, text in instrument_sentences(iv, order)]
        answers = answer_table(iv, order)
        sec.charts.append(charts.expansion_effects(answers, MEASURES, confidence))
        sec.charts.append(charts.instrument_effects(iv.effects, MEASURES, confidence))
        verdict_spec = [
            ("rank", P.integer("rank")),
            ("instrument", P.text("instrument")),
            ("department", P.text("department")),
            ("players", P.integer("players")),
            ("judge (lineup)", lambda r: judge_label(r["lineup"])),
            ("verdict", P.text("verdict")),
            ("in one sentence", P.text("sentence")),
            ("deals", P.integer("deals")),
        ]
        effect_spec = [
            ("instrument", P.text("instrument")),
            ("department", P.text("department")),
            ("players", P.integer("players")),
            ("judge (lineup)", lambda r: judge_label(r["lineup"])),
            ("measure", lambda r: MEASURES[r["measure"]][0]),
            ("seat or strategy", _who),
            ("instrument's value", _value_cell("value")),
            ("the reference's value", _value_cell("base")),
            ("difference [simultaneous interval]", _effect_cell),
            ("margin", lambda r: margin_text(r["measure"], r["margin"])),
            ("verdict", P.text("verdict")),
            ("reference", P.text("reference")),
            ("deals", P.integer("deals")),
        ]
        answer_spec = [
            ("instrument", P.text("instrument")),
            ("department", P.text("department")),
            ("players", P.integer("players")),
            ("judge", P.text("judge")),
            ("verdict", P.text("verdict")),
            ("measure", lambda r: MEASURES[r["measure"]][0] + (f" ({_who(r)})" if r["who"] else "")),
            ("difference from the reference [interval]", _effect_cell),
            ("reference", P.text("reference")),
            ("seat balance", P.text("seat_verdict")),
            ("seat moved most [interval]", _seat_cell),
            ("deals", P.integer("deals")),
        ]
        sec.tables.append(
            Table("instrument_answer", "The answer: each instrument per player count and judge", answers,
                  P.present(answers, answer_spec))
        )
        diffs = judge_differences(iv.effects, iv.alpha, order)
        if not diffs.empty:
            diff_spec = [
                ("instrument", P.text("instrument")),
                ("players", P.integer("players")),
                ("measure", lambda r: MEASURES[r["measure"]][0]),
                ("seat or strategy", _who),
                ("judges", lambda r: f"{judge_label(r['strong'])} minus {judge_label(r['weak'])}"),
                ("difference [interval]", _effect_cell_of("diff")),
                ("test", P.text("test")),
            ]
            sec.tables.append(
                Table("instrument_judges", "Does the effect move with skill? The strongest judge minus the weakest "
                      + ("(Welch, different deals)" if iv.sequential is None else
                         "(the two confidence sequences, different deals)"), diffs, P.present(diffs, diff_spec))
            )
        sec.tables.append(
            Table("instrument_verdicts", "One verdict per instrument, most out of line first", iv.verdicts,
                  P.present(iv.verdicts, verdict_spec))
        )
        sec.tables.append(
            Table("instrument_effects", "Every measure of every instrument against its department's reference", iv.effects,
                  P.present(iv.effects, effect_spec))
        )
        margins = ", ".join(f"{MEASURES[k][0]} {margin_text(k, m)}" for k, m in iv.margins.items())
        sec.notes.append(
            "How to read it: each instrument is compared with its department's reference (its instrument in the "
            "scenario's first set), in games with the same player count, lineup and instruments in the two other "
            "departments, deal by deal. "
            + ("Out of line: the interval of some measure lies wholly beyond its margin. In line: every interval "
               "lies wholly within. Unclear: neither yet. " if iv.sequential is None else
               "Out of line: the interval of some measure lies wholly beyond its margin less the zone. In line: every "
               "interval lies wholly within its margin plus the zone. Unclear: open, neither yet. ")
            + "Margins (set with --instrument-margin): " + margins + "."
        )
        sec.notes += iv.notes
    else:
        sec.findings = list(iv.notes)
        sec.notes += iv.notes
    stat_spec = [
        ("department", P.text("department")),
        ("instrument", P.text("instrument")),
        ("players", P.integer("players")),
        ("games", P.integer("games")),
        (f"objective points per game [{c}% CI]", P.points("objective_points", "objective_lo", "objective_hi")),
        (f"top scorer's share % [{c}% CI]", P.rate("top_share", "top_share_lo", "top_share_hi")),
        (f"unbuilt % [{c}% CI]", P.rate("unbuilt_rate", "unbuilt_lo", "unbuilt_hi")),
        ("penalty per unbuilt game", P.points("penalty_per_unbuilt_game")),
        (f"rounds [{c}% CI]", P.points("rounds", "rounds_lo", "rounds_hi")),
    ]
    pen_spec = [
        ("department", P.text("department")),
        ("instrument", P.text("instrument")),
        ("players", P.integer("players")),
        ("by", P.text("by")),
        ("who", lambda r: seat_name(int(r["who"])) if r["by"] == "seat" else str(r["who"])),
        ("seats in unbuilt games", P.integer("seats_in_unbuilt")),
        ("paid", P.integer("paid")),
        (f"pays % [{c}% CI]", P.rate("pay_rate", "pay_lo", "pay_hi")),
        ("mean penalty when paying", P.points("mean_penalty", digits=2)),
    ]
    sec.charts.append(charts.instrument_points(ic.stats, confidence))
    sec.charts.append(charts.unbuilt_rates(ic.stats, confidence))
    sec.tables += [
        Table("instrument_stats", "Per instrument and player count (descriptive)", ic.stats,
              P.present(ic.stats, stat_spec)),
        Table("instrument_penalties", "Who pays for an unbuilt instrument (R12), per seat and per strategy",
              ic.penalties, P.present(ic.penalties, pen_spec)),
    ]
    if iv.empty:
        worst = ic.stats.loc[ic.stats["unbuilt_rate"].idxmax()]
        sec.findings.append(
            f"Most often unbuilt: {worst['instrument']} ({worst['department']}, {worst['players']} players) in "
            f"{pct(worst['unbuilt_rate'])}% of games."
        )
    return sec, iv


__all__ = ["effect_phrase", "headline_lines", "instrument_section"]
