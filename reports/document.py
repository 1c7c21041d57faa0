"""The report's data model (:class:`Table`, :class:`Section`, :class:`Report`) and the files a built
report is written to (:func:`write_report`): ``report.html``, ``summary.md``, every table as CSV and
every chart as PNG. Every game's report is made of these."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from reports.io import ReportInputError


@dataclass
class Table:
    """A section table: ``frame`` goes to ``<name>.csv`` as is, ``display`` is shown to the reader."""

    name: str
    caption: str
    frame: pd.DataFrame
    display: pd.DataFrame


@dataclass
class Section:
    """One section of the report; ``findings`` are the short lines of the Markdown summary."""

    key: str
    title: str
    question: str
    charts: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    findings: list = field(default_factory=list)


@dataclass
class Report:
    """A built report, ready to be written (:func:`write_report`)."""

    scenario: str
    description: str
    source: str
    partial: bool
    partial_reason: str
    margin: float
    confidence: float
    games: int
    settings: int
    headline: pd.DataFrame
    headline_text: str
    sections: list
    generated: str = ""
    # Plain lines shown under the headline table: instruments out of line, rules that never bite.
    headline_lines: list = field(default_factory=list)
    # What was played and the caveats, shown above the headline.
    about: list = field(default_factory=list)
    # The answer first: one sentence per player count (reports.answers), before any table.
    answers: list = field(default_factory=list)
    # Why a seat leads: the tie-break's part of each unfair seat edge (reports.sections.shuffle_swing.why), and how the
    # answer block heads those lines (the game's part that writes them says).
    why: list = field(default_factory=list)
    why_title: str = ""  # the HTML heading
    why_intro: str = ""  # the Markdown line before them
    # The game (its registry name and title) and what one setting of it is, for the header
    # (``reports.frames.Setting.header``); empty: the default game's.
    game: str = ""
    game_title: str = ""
    setting_header: str = ""
    # Which version of the lab played the run (its manifest's code.version) and wrote this report.
    version: str = ""
    # What the reader sees first: the verdict matrix and one short line per player count
    # (reports.first_screen.FirstScreen; None: a run without seat cells).
    first_screen: object = None

    @property
    def title(self):
        return f"{self.game_title or _default_game().title} balance report: {self.scenario}"

    def __repr__(self):
        return (f"<Report {self.scenario!r} ({self.game or 'default game'}): {self.games:,} games, "
                f"{len(self.answers)} answers, {len(self.sections)} sections{', partial' if self.partial else ''}>")

    @property
    def setting_words(self):
        """What one setting of this game is, for the report's header."""
        return self.setting_header or "player count x instrument set"


def _default_game():
    from simulator import games as registry

    return registry.get()  # a report written before games were recorded: the registry's default


def write_report(report, out_dir):
    """Write ``report.html``, ``summary.md``, every table as CSV and every chart as PNG to ``out_dir``.

    Returns a dict: ``html``, ``markdown`` (paths), ``csv`` and ``png`` (lists of paths).
    """
    from scenarios.writelock import folder_lock

    out = Path(out_dir)
    with folder_lock(out):  # one writer per folder: a second live ``ssb report`` into it is refused
        return _write_report(report, out)


def _write_report(report, out):
    from reports.render import render_html, render_markdown

    try:
        out.mkdir(parents=True, exist_ok=True)
        written = {"csv": [], "png": []}
        report.headline.to_csv(out / "headline.csv", index=False)
        written["csv"].append(out / "headline.csv")
        glance = getattr(report, "first_screen", None)
        if glance is not None:
            path = out / f"{glance.chart.name}.png"
            path.write_bytes(glance.chart.png)
            written["png"].append(path)
        for sec in report.sections:
            for t in sec.tables:
                path = out / f"{t.name}.csv"
                t.frame.to_csv(path, index=False)
                written["csv"].append(path)
            for ch in sec.charts:
                path = out / f"{ch.name}.png"
                path.write_bytes(ch.png)
                written["png"].append(path)
        html_path = out / "report.html"
        html_path.write_text(render_html(report), encoding="utf-8")
        md_path = out / "summary.md"
        md_path.write_text(render_markdown(report), encoding="utf-8")
    except OSError as exc:
        raise ReportInputError(out, "", f"cannot write the report: {exc.strerror or exc}") from None
    written["html"] = html_path
    written["markdown"] = md_path
    return written
