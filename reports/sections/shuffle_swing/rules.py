"""Shuffle and Swing: how often each rule bites (:mod:`reports.sections.shuffle_swing.rule_relevance`), and the rules that
never or always do under the headline."""

from __future__ import annotations

from reports.sections.shuffle_swing.rule_relevance import headline_lines, rule_section

KEY = "rules"
ORDER = 70


def build(ctx):
    sec, rules = rule_section(ctx.tables, ctx.tables, ctx.options.confidence, number=ctx.number(KEY))
    ctx.add(sec)
    ctx.headline_lines += headline_lines(rules)
