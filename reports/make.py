"""The one front door of the balance report: read a run directory, look its game up, build the
report its game declares and write it (``report.html``, ``summary.md``, CSV and PNG files).

A Shuffle and Swing run (the default game) gets the five-section report of :mod:`reports.build`
(seats, strategies, scoring sources, instruments out of line, game shape, rules that bite); a run
of any other game the generic one of :mod:`reports.game_report` (seats, variants, game shape) on
its declared setting columns, with the notes its rulings add. Every option either works for the
game or is refused with a message.
"""

from __future__ import annotations

from pathlib import Path

from reports.build import DEFAULT_CONFIDENCE, DEFAULT_MARGIN, build_report
from reports.document import write_report
from reports.feel_section import add_feel
from reports.game_report import is_game_run, make_game_report
from reports.io import ReportInputError, load_run


def make_report(
    results_dir,
    out_dir=None,
    margin=DEFAULT_MARGIN,
    confidence=DEFAULT_CONFIDENCE,
    allow_partial=False,
    seed=0,
    gap_margin=None,
    instrument_margins=None,
):
    """Read a run directory, build its report and write it (default ``<results_dir>/report``).

    Returns ``(report, written)``; raises :class:`reports.io.ReportInputError` for bad input.
    A run of another game (its manifest names the game and its columns) gets that report instead
    (``reports.game_report``).
    """
    game = is_game_run(results_dir)
    if game is not None:
        if instrument_margins:
            from simulator import games as registry

            owner = registry.get(registry.DEFAULT_GAME).title
            raise ReportInputError("--instrument-margin", ",".join(instrument_margins),
                                   f"is an option of {owner} reports; {results_dir} is a run of {game} "
                                   f"({registry.get(game).title}), which has no instruments to judge: leave it out")
        return make_game_report(results_dir, out_dir, margin, confidence, allow_partial, seed, gap_margin)
    run = load_run(results_dir, allow_partial=allow_partial)
    report = build_report(
        run,
        margin=margin,
        confidence=confidence,
        seed=seed,
        gap_margin=gap_margin,
        instrument_margins=instrument_margins,
    )
    add_feel(report, results_dir)  # the game-feel section, when the run recorded the lead
    out = Path(out_dir) if out_dir is not None else Path(results_dir) / "report"
    return report, write_report(report, out)
