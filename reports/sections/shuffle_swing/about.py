"""Shuffle and Swing: what was played, said up front (the lineups, each bot and its rung, the
reconstructed instruments; :mod:`reports.sections.shuffle_swing.bots`)."""

from __future__ import annotations

from reports.sections.shuffle_swing.bots import about_lines

KEY = "about"
ORDER = 5
NUMBERED = False


def build(ctx):
    ctx.about = about_lines(ctx.cells)
