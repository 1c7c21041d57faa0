"""Assembling the balance report of any game's run: its parts, the headline, the answer.

::

    results/ci/  --load_run-->  RunData  --build_report-->  Report  --write_report-->  out/
                                (tables,                    (sections:             report.html
                                 manifest: the game,         tables, charts,       summary.md
                                 its columns)                notes, findings)      *.csv, *.png

The manifest names the game and its columns; the game's :class:`simulator.game_api.ReportSpec`
says what a setting is called and which parts of its own it adds (:mod:`reports.context`). Every
report has the generic parts (seat verdicts, strategies, variants on the same deals, game shape,
game feel) on the game's setting columns; Shuffle and Swing adds the bots up front, scoring
sources, instruments out of line, its own game shape, the rules that bite and the tie-break's part
of each seat edge. Only the result tables are read; nothing here plays a game.
"""

from __future__ import annotations

import datetime as _dt

from stats import tests as stats
from reports.answers import answer_text, seat_answers
from reports.context import Options, ReportContext, option_owners, parts_of
from reports.document import Report
from reports.first_screen import first_screen
from reports.frames import setting_of, varies_instruments
from reports.headline import (
    ONE_JUDGE,
    OPEN,
    ROBUST,
    SKILL_SENSITIVE,
    headline_frame,
    ladder_sorted,
    render_text,
    setting_agreement,
    zone_of,
)
from reports.io import ReportInputError
from reports.variants import VARIANT

DEFAULT_MARGIN = 0.03
DEFAULT_CONFIDENCE = 0.95

# The report options a game's parts may read (a part's OPTIONS), with the flag and what it judges.
PART_OPTIONS = {"instrument_margins": ("--instrument-margin", "instruments to judge")}


def game_of(manifest, source="manifest.json"):
    """The registered game a run's manifest names (a manifest written before games were recorded:
    the default game)."""
    from simulator import games as registry

    return registry.get(manifest.get("game") or None, file=source, key="game")


def setting_columns(manifest):
    """The setting columns a run's manifest declares (between ``players`` and ``lineup`` of its cell
    columns), or None when it declares no columns."""
    cols = list(manifest.get("columns", {}).get("games") or [])
    if "players" in cols and "lineup" in cols and cols.index("players") < cols.index("lineup"):
        return tuple(cols[cols.index("players") + 1 : cols.index("lineup")]) or None
    return None


def refuse_options(game, source, **options):
    """Raise :class:`ReportInputError` for an option given that no part of the game's report reads."""
    read = {o for p in parts_of(game) for o in getattr(p, "OPTIONS", ())}
    for name, value in options.items():
        if not value or name in read:
            continue
        flag, what = PART_OPTIONS[name]
        owners = " and ".join(option_owners(name)) or "no"
        shown = ",".join(value) if isinstance(value, dict) else str(value)
        raise ReportInputError(flag, shown, f"is an option of {owners} reports; {source} is a run of {game.name} "
                                            f"({game.title}), which has no {what}: leave it out")


def _across_judges(cells, label):
    """The headline's last line when it gives a row per setting: the calls across judges, counted."""
    agree = setting_agreement(cells, label)
    counts = agree["across judges"].value_counts()
    judges = " and ".join(dict.fromkeys(str(lv).rsplit(" x", 1)[0] for lv in cells["level"]))
    return (
        f"Across judges ({judges}): "
        + ", ".join(f"{int(counts[k])} {k}" for k in (ROBUST, SKILL_SENSITIVE, OPEN, ONE_JUDGE) if k in counts)
        + f" of {len(agree)} settings."
    )


def game_headline(adv, setting, per_setting=True, strategies=None, partial=False, lines=()):
    """``(frame, text)``: the headline of a run's seat verdicts ``adv`` on its ``setting``
    (:mod:`reports.headline`): a row per setting and judge (``per_setting``) with the calls across
    judges counted under it, or a summary row per player count and judge; the leading strategy where
    ``strategies`` compared some; ``lines`` under it."""
    frame = headline_frame(adv, strategies, setting=setting.label, setting_title=setting.title, per_setting=per_setting,
                           noun=setting.noun)
    text = render_text(frame, adv.margin, adv.confidence, partial, gap_margin=adv.gap_margin,
                       setting_title=setting.title if per_setting else None, zone=zone_of(adv.cells))
    if per_setting:
        text += "\n\n  " + _across_judges(ladder_sorted(adv.cells, adv.game), setting.label)
    if lines:
        text += "\n\n" + "\n".join(lines)
    return frame, text


def headline(ctx, partial):
    """The headline of a report in the making, with the lines its parts add under it."""
    comp = ctx.comp if (ctx.comp is not None and ctx.mixed and not ctx.comp.empty) else None
    return game_headline(ctx.adv, ctx.setting, not ctx.game.report.summary_rows, comp, partial, ctx.headline_lines)


def answers(ctx):
    """The answer sentences: per player count (and setting) from the seat verdicts, or, for a game
    whose setting has variants, per group with what each variant does; then the parts' own."""
    setting = ctx.setting
    if VARIANT in setting.columns:
        from reports.sections.variants import answers as variant_answers

        own = variant_answers(ctx)
    else:
        own = seat_answers(ctx.adv, setting.label, many=setting.many, noun=setting.noun)
    return own + ctx.answers


def build_report(
    run, margin=DEFAULT_MARGIN, confidence=DEFAULT_CONFIDENCE, seed=0, gap_margin=None, instrument_margins=None
):
    """Every section, the headline and the run facts of a :class:`reports.io.RunData` of any game.

    ``margin`` is a fraction (0.03 = 3 percentage points) and ``confidence`` a level (0.95).
    Bootstrap draws use ``seed`` so a report is reproducible. ``instrument_margins`` maps the
    measures of :mod:`reports.instrument_verdicts` to margins (defaults there), for a game whose
    report judges instruments (refused for another).
    """
    if not 0 <= margin < 1:
        raise ValueError(f"margin {margin} is outside [0, 1)")
    if gap_margin is not None and not 0 <= gap_margin < 1:
        raise ValueError(f"gap margin {gap_margin} is outside [0, 1)")
    stats.alpha_of(confidence)
    game = game_of(run.manifest, run.source)
    refuse_options(game, run.source, instrument_margins=instrument_margins)
    setting = setting_of(game, setting_columns(run.manifest))
    ctx = ReportContext(run, game, setting, Options(margin, confidence, seed, gap_margin, instrument_margins))
    parts = [p for p in parts_of(game) if getattr(p, "applies", lambda c: True)(ctx)]
    ctx.numbered = [p.KEY for p in parts if getattr(p, "NUMBERED", True)]
    for part in parts:
        part.build(ctx)
    frame, text = headline(ctx, run.partial)
    said = answers(ctx)
    text = answer_text(said, ctx.why, text, run.partial)
    # The first screen (one picture, one short line per player count) before the long sentences.
    glance = first_screen(ctx.adv, setting.label)
    if glance is not None:
        mark = "PARTIAL RUN (unfinished, only the games on disk)\n" if run.partial else ""
        text = mark + glance.text + "\n\n" + text
    cells = run.cells  # one row per cell: the run's settings and game counts, no table read
    desc = str(run.manifest.get("scenario", {}).get("description", ""))
    if varies_instruments(cells, setting):
        desc = desc or f"{setting.many} vary"
    return Report(
        scenario=run.scenario_name,
        description=desc,
        source=run.source,
        partial=run.partial,
        partial_reason=run.partial_reason,
        margin=margin,
        confidence=confidence,
        games=run.games_count,
        settings=cells[["players", *setting.columns]].drop_duplicates().shape[0],  # judges are not settings
        headline=frame,
        headline_text=text,
        sections=ctx.sections,
        generated=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        headline_lines=ctx.headline_lines,
        about=ctx.about,
        answers=said,
        why=ctx.why,
        why_title=ctx.why_title,
        why_intro=ctx.why_intro,
        game=game.name,
        game_title=game.title,
        setting_header=setting.header,
        version=version_words(run.manifest),
        first_screen=glance,
    )


def version_words(manifest):
    """``'played by shuffle-swing-balance 0.2.0, reported by 0.2.0'`` (the run's manifest records
    the version that played it; this process is the one that reports)."""
    from simulator.provenance import PACKAGE, package_version

    played = (manifest.get("code") or {}).get("version") or "an unknown version"
    return f"played by {PACKAGE} {played}, reported by {package_version()}"


__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_MARGIN", "build_report", "game_headline", "game_of", "refuse_options",
           "setting_columns"]
