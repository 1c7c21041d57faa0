"""Game feel, every game's: how tense a game is, from a run's per-round lead record (and the
meta-game files saved beside the run), after the numbered sections (:mod:`reports.feel.section`)."""

from __future__ import annotations

from pathlib import Path

from reports.feel.section import feel_and_meta_section

KEY = "feel"
ORDER = 90
NUMBERED = False


def applies(ctx):
    return (Path(ctx.run.source) / "manifest.json").is_file()  # a run on disk (not hand-made tables)


def build(ctx):
    sec = feel_and_meta_section(ctx.run.source)
    if sec is not None:
        ctx.add(sec)
