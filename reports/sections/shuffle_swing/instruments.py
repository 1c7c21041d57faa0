"""Shuffle and Swing: the instruments out of line with their department's reference
(:mod:`reports.sections.shuffle_swing.instrument_section`), the most often unbuilt instrument per judge, their lines under
the headline and their sentences in the answer. Reads the ``--instrument-margin`` option."""

from __future__ import annotations

from reports.frames import DEPTS, pct
from reports.sections.shuffle_swing.instrument_judges import instrument_answers, judge_order
from reports.sections.shuffle_swing.instrument_section import headline_lines, instrument_section
from reports.seats import level_label
from reports.sections.shuffle_swing.sources import level_sources
from reports.sections.shuffle_swing.scoring import agreement_word

KEY = "instruments"
ORDER = 50
OPTIONS = ("instrument_margins",)


def unbuilt_findings(games):
    """Per player count judged by several lineups: the most often unbuilt instrument per judge
    (``games``: the games table, or a run)."""
    out = []
    for players, levels in level_sources(None, games, winners=False).items():
        worsts, parts = [], []
        for lu, _, rates in levels:
            worst = max(rates, key=lambda k: rates[k])
            worsts.append(worst)
            parts.append(f"{level_label(lu)}: {worst} {pct(rates[worst])}%")
        out.append(f"{players} players, most often unbuilt per judge: {'; '.join(parts)} of games: {agreement_word(worsts)}.")
    return out


def build(ctx):
    o = ctx.options
    sec, verdicts = instrument_section(ctx.tables, ctx.tables, o.confidence, o.seed, o.instrument_margins)
    sec.title = ctx.title(KEY, "Instruments out of line")
    sec.findings += unbuilt_findings(ctx.tables)
    ctx.add(sec)
    ctx.headline_lines += headline_lines(verdicts)
    if not verdicts.empty:
        ctx.answers += instrument_answers(verdicts, judge_order(verdicts.effects, ctx.tables.cells))
