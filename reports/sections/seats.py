"""Section 1, every game's: the seat verdict of each cell (:mod:`reports.seat_section`), with the
rulings the game declares (``Game.report_notes``) and, for a game that can stop without a winner
(``GateSpec.stalls``), those games left out."""

from __future__ import annotations

from dataclasses import fields, replace

from reports.frames import mirror_lineups
from reports.seat_section import seat_section

KEY = "seats"
ORDER = 10

MIRROR_NOTE = (
    "With a mirror lineup (one strategy in every seat) the seat rotations of a deal replay the very "
    "same game, so a deal counts once: its design effect equals its number of rotations."
)
STALL_NOTE = "Games stopped by the stall cap have no winner and are left out here."


def build(ctx):
    o = ctx.options
    seq = ctx.run.manifest.get("sequential")
    if isinstance(seq, dict):  # the record's file, named by a refusal of a stored verdict (reports.sequential_verdicts)
        from pathlib import Path

        seq = dict(seq, source=str(Path(ctx.run.source) / "manifest.json"))
    sec, adv = seat_section(ctx.tables, o.margin, o.confidence, o.seed, o.gap_margin,
                            sequential=seq, setting=ctx.setting,
                            rulings=ctx.game.report_notes)
    sec.title = ctx.title(KEY, "Seat advantage")
    if mirror_lineups(ctx.cells):
        sec.notes.insert(0, MIRROR_NOTE)
    if ctx.game.gate.stalls:
        sec.notes.append(STALL_NOTE)
    if "game" in {f.name for f in fields(adv)}:
        adv = replace(adv, game=ctx.game)  # its judges ranked on the game's ladder (reports.answers)
    ctx.adv = adv
    ctx.add(sec)
