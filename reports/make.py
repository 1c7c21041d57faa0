"""The one front door of the balance report: read a run directory, look its game up, build its
report (:mod:`reports.build`: the generic parts on the game's setting columns, and the parts the
game declares) and write it (``report.html``, ``summary.md``, CSV and PNG files). Every option
either works for the game or is refused with a message.
"""

from __future__ import annotations

from pathlib import Path

from reports.build import DEFAULT_CONFIDENCE, DEFAULT_MARGIN, build_report, game_of, refuse_options
from reports.document import write_report
from reports.io import load_run


def _declared_game(results_dir):
    """The game a run directory's manifest names, or None when the manifest cannot be read (the
    run's loader then refuses it, naming the file)."""
    import json

    path = Path(results_dir) / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return game_of(manifest, path) if isinstance(manifest, dict) else None


def make_report(
    results_dir,
    out_dir=None,
    margin=DEFAULT_MARGIN,
    confidence=DEFAULT_CONFIDENCE,
    allow_partial=False,
    seed=0,
    gap_margin=None,
    instrument_margins=None,
    step=None,
):
    """Read a run directory, build its report and write it (default ``<results_dir>/report``).

    Returns ``(report, written)``; raises :class:`reports.io.ReportInputError` for bad input (an
    option the run's game does not read among it, said before any table is read). ``step``, when
    given, is told each step as it starts (the words a progress line shows).
    """
    step = step or (lambda words: None)
    game = _declared_game(results_dir)
    if game is not None:
        refuse_options(game, results_dir, instrument_margins=instrument_margins)
    step("reading the run's tables")
    run = load_run(results_dir, allow_partial=allow_partial)
    step("judging the cells and building the sections")
    report = build_report(
        run,
        margin=margin,
        confidence=confidence,
        seed=seed,
        gap_margin=gap_margin,
        instrument_margins=instrument_margins,
    )
    out = Path(out_dir) if out_dir is not None else Path(results_dir) / "report"
    step("writing the page, its tables and charts")
    return report, write_report(report, out)
