"""``ssb report``: the balance report of a run directory (a thin layer over reports.build)."""

import contextlib

import click

from simulator.errors import DataError
from simulator.heartbeat import heartbeat
from ssb.common import UserError, out_dir_option


class ConfidenceLevel(click.ParamType):
    """A confidence level: a fraction (0.95) or a percentage (95)."""

    name = "level"

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        try:
            level = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if 50 <= level < 100:
            level /= 100
        if not 0.5 <= level < 1:
            self.fail(f"{value} is not a confidence level between 0.5 and 1 (or 50 and 100 %)", param, ctx)
        return level


@click.command(name="report")
@click.argument("results_dir", metavar="RESULTS_DIR")
@out_dir_option("Folder for report.html, summary.md and the CSV and PNG files. Default: RESULTS_DIR/report.")
@click.option(
    "--margin",
    type=click.FloatRange(min=0, max=50, max_open=True),
    default=3.0,
    show_default=True,
    metavar="PP",
    help="Balance margin in percentage points: a seat within PP of the fair share 1/N counts as fair.",
)
@click.option(
    "--gap-margin",
    type=click.FloatRange(min=0, max=50, max_open=True),
    default=None,
    metavar="PP",
    help="Margin on the largest gap between two seats, in percentage points: fair then also needs "
    "every two seats shown within PP of each other (default: no gap margin, only the per-seat one).",
)
@click.option(
    "--confidence",
    type=ConfidenceLevel(),
    default="0.95",
    show_default=True,
    metavar="LEVEL",
    help="Confidence level of every interval (0.95 or 95); the tests run at 1 - LEVEL.",
)
@click.option(
    "--instrument-margin",
    "instrument_margin",
    multiple=True,
    metavar="KEY=X",
    help="Margin of an instrument measure (repeatable): objective_points=5, winner_points=2 (points), "
    "seat_win=5, unbuilt=10, strategy_win=5 (percentage points), rounds=1.",
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help="Report an unfinished run from the chunks on disk; the report is marked PARTIAL.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors (the report is written all the same).")
def report(results_dir, out_dir, margin, gap_margin, confidence, instrument_margin, allow_partial, quiet):
    """Write the balance report of a run: seats, strategies, score sources, instruments, game shape.

    RESULTS_DIR is a directory written by `ssb run`. The report goes to DIR (default
    RESULTS_DIR/report): report.html (self-contained, opens offline: charts embedded, sortable
    tables, the headline verdict table on top), summary.md, one CSV per table and one PNG per chart.
    The headline is printed here too: per player count and judge (lineup), whether every seat wins
    within the margin of 1/N (fair), some seat is outside it (unfair), or more games are
    needed (undecided, with an estimate of how many), and whether the judges agree (robust) or
    not (skill-sensitive); for a run that varies instruments, the instruments out of line with the
    others of their department, most out of line first. Each seat verdict's error is controlled per
    setting and judge, at 1 - LEVEL. A missing, unfinished or older-format directory
    is refused with an error; --allow-partial reports an unfinished run, marked PARTIAL.

    Example:

    \b
        ssb report results/starter
        ssb report results/grid --out out/grid --margin 2 --confidence 0.9
        ssb report results/starter --gap-margin 4
        ssb report results/expansion --instrument-margin objective_points=3
    """
    from reports.make import make_report
    from reports.instrument_verdicts import parse_margins

    try:
        instrument_margins = parse_margins(instrument_margin) if instrument_margin else None
    except ValueError as exc:
        raise UserError(f"--instrument-margin: {exc}") from None

    stage = ["reading the run's tables"]
    try:
        with _elapsed_lines(stage, quiet):
            rep, written = make_report(
                results_dir,
                out_dir,
                margin=margin / 100.0,
                confidence=confidence,
                allow_partial=allow_partial,
                gap_margin=None if gap_margin is None else gap_margin / 100.0,
                instrument_margins=instrument_margins if instrument_margin else None,
                step=lambda words: stage.__setitem__(0, words),
            )
    except DataError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{getattr(exc, 'filename', None) or results_dir}: {exc.strerror or exc}") from None
    if quiet:
        return
    click.echo(rep.headline_text)
    click.echo("")
    out = written["html"].parent
    click.echo(
        f"wrote {written['html']}, {written['markdown'].name}, {len(written['csv'])} tables (CSV) and "
        f"{len(written['png'])} charts (PNG) in {out}"
    )


EVERY = 10.0  # seconds between two lines while a report is built (never silent longer)


@contextlib.contextmanager
def _elapsed_lines(stage, quiet, every=EVERY):
    """While a report is built: a line on stderr every ``every`` seconds with the seconds elapsed and
    the step under way (``stage[0]``); nothing with ``-q`` or when it takes less."""
    if quiet:
        yield
        return
    def say(elapsed):
        click.echo(f"  building the report: {elapsed:.0f} s elapsed ({stage[0]})", err=True)

    with heartbeat(every, say, name="report-progress"):
        yield
