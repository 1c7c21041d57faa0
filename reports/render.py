"""HTML and Markdown renderings of a built report.

The HTML page is self-contained and opens offline: styles and a small sorting script are inline,
charts are embedded as base64 PNG, and nothing is fetched from elsewhere. Click a column header to
sort a table. The Markdown summary carries the headline and each section's findings.
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path

import pandas as pd

from stats import tests as stats

LONG_TABLE = 30  # rows beyond which a table starts folded

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
       max-width: 1200px; padding: 1rem 1.5rem 3rem; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.3rem; border-bottom: 2px solid #0072B2; padding-bottom: .2rem; margin-top: 2.2rem; }
h3 { font-size: 1.02rem; margin: 1.2rem 0 .4rem; }
.meta { color: #444; font-size: .92rem; }
.question { font-style: italic; color: #333; }
.partial { background: #D55E00; color: #fff; padding: .6rem 1rem; font-weight: bold; border-radius: 4px; }
.note { background: #f3f6fa; border-left: 4px solid #56B4E9; padding: .4rem .8rem; margin: .5rem 0; }
nav ol { columns: 2; font-size: .95rem; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .9rem; color: #333; margin-top: .2rem; }
.tablewrap { overflow-x: auto; margin: .4rem 0 1rem; }
table { border-collapse: collapse; font-size: .86rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; vertical-align: top; }
th { background: #e8eef5; cursor: pointer; user-select: none; position: sticky; top: 0; }
th[aria-sort="ascending"]::after { content: " \\25B2"; }
th[aria-sort="descending"]::after { content: " \\25BC"; }
td.long { min-width: 22em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fafafa; }
td.v-fair { background: #d6ecf7; }
td.v-unfair { background: #f6d3bf; font-weight: bold; }
td.v-undecided { background: #f2f2f2; }
td.v-outside { background: #f6d3bf; font-weight: bold; }
details summary { cursor: pointer; color: #0072B2; margin: .3rem 0; }
.findings { background: #fff8e6; border-left: 4px solid #E69F00; padding: .3rem .9rem; margin: .6rem 0; }
.findings p { margin: .35rem 0; }
.about { background: #f3f6fa; border: 1px solid #d5dde8; padding: .2rem .9rem; margin: .6rem 0;
         font-size: .92rem; }
.about p { margin: .3rem 0; }
.sec-findings li { margin: .2rem 0; }
#first-screen { margin: .4rem 0 .8rem; }
#first-screen figure { margin: .3rem 0; }
#first-screen figure img { border: none; }
#first-screen figcaption { display: none; }
#short-lines { font-size: 1.08rem; margin: .3rem 0; padding-left: 1.2rem; }
#short-lines li { margin: .2rem 0; }
#answers { background: #eef7ee; border-left: 5px solid #009E73; padding: .2rem 1rem .6rem; }
#answers h2 { border-bottom: none; margin-top: .8rem; }
p.answer { font-size: 1.05rem; margin: .45rem 0; }
td.v-out-of-line { background: #f6d3bf; font-weight: bold; }
td.v-in-line { background: #d6ecf7; }
td.v-unclear { background: #f2f2f2; }
td a.verdict { color: inherit; text-decoration: underline dotted; }
"""

# Sorts a table by the clicked column: numbers by their leading value, everything else as text.
SORT_JS = """
(function () {
  function key(text) {
    var t = text.trim().replace(/,/g, "");
    if (t.indexOf("<1e-6") === 0) { return 0; }
    var m = t.match(/^[+-]?\\d*\\.?\\d+(e[+-]?\\d+)?/i);
    return m ? parseFloat(m[0]) : null;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, col) {
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var asc = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          var kx = key(x), ky = key(y), r;
          if (kx !== null && ky !== null) { r = kx - ky; } else { r = x.localeCompare(y); }
          return asc ? r : -r;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
"""

_NUMERIC = re.compile(r"^[+-]?[\d,]*\.?\d+(e[+-]?\d+)?( \[.*\])?( pp.*)?$|^<1e-6$", re.IGNORECASE)
_VERDICTS = {stats.FAIR, stats.UNFAIR, stats.UNDECIDED, "outside", "out of line", "in line", "unclear"}

# Every verdict word a table cell can hold, and its anchor on the docs page that explains it
# (docs/guide/reading-a-report.md; a test checks that the page has each anchor).
VERDICT_ANCHORS = {
    stats.FAIR: "fair",
    stats.UNFAIR: "unfair",
    stats.UNDECIDED: "undecided",
    "not judged": "not-judged",
    "robust": "robust",
    "skill-sensitive": "skill-sensitive",
    "open": "open",
    "one judge": "one-judge",
    "converged": "converged",
    "on the margin": "on-the-margin",
    "differ": "differ",
    "outside": "outside",
    "out of line": "out-of-line",
    "in line": "in-line",
    "unclear": "unclear",
    "unchanged": "unchanged",
    "changed": "changed",
}
VERDICT_PAGE = "guide/reading-a-report.html"


def docs_base():
    """Where the verdict words link: ``$SSB_DOCS_URL`` (a hosted copy of the docs site, ending in
    ``/``), else the site that ``make docs`` builds in this checkout (``site/``), read offline."""
    url = os.environ.get("SSB_DOCS_URL")
    if url:
        return url if url.endswith("/") else url + "/"
    return (Path(__file__).resolve().parents[1] / "site").as_uri() + "/"


def verdict_link(word, base=None):
    """The docs address explaining a verdict word, or None for a word that is not one."""
    anchor = VERDICT_ANCHORS.get(word)
    if anchor is None:
        return None
    return f"{docs_base() if base is None else base}{VERDICT_PAGE}#{anchor}"


def _cell(value, base=None):
    text = "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
    classes = []
    if _NUMERIC.match(text):
        classes.append("num")
    if text in _VERDICTS:
        classes.append(f"v-{text.replace(' ', '-')}")
    if len(text) > 40:
        classes.append("long")
    attr = f' class="{" ".join(classes)}"' if classes else ""
    link = verdict_link(text, base)
    if link:
        return (
            f'<td{attr}><a class="verdict" href="{html.escape(link)}" '
            f'title="what {html.escape(text)} means">{html.escape(text)}</a></td>'
        )
    # "robust: fair (search); ..." (the across-judges column): the agreement word links, the lean follows.
    word, sep, rest = text.partition(": ")
    link = verdict_link(word, base) if sep else None
    if link:
        return (
            f'<td{attr}><a class="verdict" href="{html.escape(link)}" title="what {html.escape(word)} means">'
            f"{html.escape(word)}</a>: {html.escape(rest)}</td>"
        )
    return f"<td{attr}>{html.escape(text)}</td>"


def html_table(frame, table_id=None, caption=None):
    """A sortable HTML table of a readable (text) frame."""
    ident = f' id="{html.escape(table_id)}"' if table_id else ""
    out = [f'<div class="tablewrap"><table class="sortable"{ident}>']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns) + "</tr></thead>")
    out.append("<tbody>")
    base = docs_base()
    for row in frame.itertuples(index=False):
        out.append("<tr>" + "".join(_cell(v, base) for v in row) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _img(chart):
    data = base64.b64encode(chart.png).decode("ascii")
    title = html.escape(chart.title)
    name = html.escape(chart.name)
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{title}" title="{title}" data-chart="{name}">'
        f'<figcaption class="meta">{name}.png</figcaption></figure>'
    )


def _md(text):
    """A finding line as HTML: escaped, with **bold** kept."""
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(text))


def render_html(report):
    """The report as one self-contained HTML page."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(report.title)}{' (PARTIAL)' if report.partial else ''}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{e(report.title)}</h1>",
    ]
    meta = [
        f"{report.games:,} games in {report.settings} setting(s) ({report.setting_words})",
        f"seat margin ±{100 * report.margin:.1f} percentage points of a fair share",
        f"{100 * report.confidence:.0f}% confidence",
        f"results: {e(report.source)}",
    ]
    if getattr(report, "version", ""):
        meta.append(e(report.version))
    if report.description:
        parts.append(f'<p class="meta">{e(report.description)}</p>')
    parts.append(f'<p class="meta">{" · ".join(meta)} · generated {e(report.generated)}</p>')
    if report.partial:
        parts.append(
            f'<p class="partial" id="partial">PARTIAL: this run is unfinished ({e(report.partial_reason)}); '
            "the figures cover only the games on disk.</p>"
        )
    glance = getattr(report, "first_screen", None)
    if glance is not None:
        # The first screen: one picture and one short line per player count, above everything else.
        parts.append('<section id="first-screen">')
        parts.append(_img(glance.chart).replace("<figure>", '<figure id="verdict-matrix">', 1))
        parts.append('<ul id="short-lines">' + "".join(f"<li>{e(line)}</li>" for line in glance.lines) + "</ul>")
        parts.append("</section>")
    if getattr(report, "answers", None):
        parts.append('<section id="answers"><h2>The answer</h2>')
        parts.append("".join(f'<p class="answer">{e(line)}</p>' for line in report.answers))
        if getattr(report, "why", None):
            parts.append(f"<h3>{e(report.why_title or 'Why')}</h3>")
            parts.append("<ul>" + "".join(f"<li>{e(line)}</li>" for line in report.why) + "</ul>")
        parts.append("</section>")
    if getattr(report, "about", None):
        parts.append('<div class="about" id="about">')
        for line in report.about:
            parts.append(f"<p>{e(line)}</p>")
        parts.append("</div>")
    parts.append('<section id="headline-section"><h2>Headline: is the game fair across seats?</h2>')
    parts.append(html_table(report.headline, "headline"))
    parts.append(
        f'<p class="meta" id="verdict-words">Each verdict word links to what it means: '
        f'<a href="{e(docs_base() + VERDICT_PAGE)}">reading a report</a> in the manual.</p>'
    )
    if getattr(report, "headline_lines", None):
        parts.append('<div class="findings" id="headline-findings">')
        for line in report.headline_lines:
            parts.append(f"<p>{e(line)}</p>")
        parts.append("</div>")
    parts.append("</section>")
    parts.append("<nav><h3>Sections</h3><ol>")
    for sec in report.sections:
        parts.append(f'<li><a href="#{sec.key}">{e(sec.title)}</a>: {e(sec.question)}</li>')
    parts.append("</ol></nav>")
    for sec in report.sections:
        parts.append(f'<section id="{sec.key}"><h2>{e(sec.title)}</h2>')
        parts.append(f'<p class="question">{e(sec.question)}</p>')
        if sec.findings:
            parts.append('<ul class="sec-findings">' + "".join(f"<li>{_md(f)}</li>" for f in sec.findings) + "</ul>")
        for chart in sec.charts:
            parts.append(_img(chart))
        if sec.notes:
            # Method notes are folded away under the charts: the answer comes first.
            parts.append("<details class=\"method\"><summary>How this is measured</summary>")
            for note in sec.notes:
                parts.append(f'<p class="note">{e(note)}</p>')
            parts.append("</details>")
        for t in sec.tables:
            parts.append(f'<h3>{e(t.caption)} <span class="meta">({e(t.name)}.csv)</span></h3>')
            table = html_table(t.display, t.name)
            if len(t.display) > LONG_TABLE:
                table = f"<details><summary>show all {len(t.display)} rows</summary>{table}</details>"
            if t.display.empty:
                table = '<p class="meta">(no rows)</p>'
            parts.append(table)
        parts.append("</section>")
    parts.append(f"<script>{SORT_JS}</script>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def markdown_table(frame):
    """A GitHub-style pipe table of a text frame."""

    def esc(v):
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(esc(v) for v in row) + " |")
    return "\n".join(lines)


def render_markdown(report):
    """The Markdown summary: run facts, headline, each section's findings, and the files."""
    lines = [f"# {report.title}", ""]
    if report.partial:
        lines += [
            f"**PARTIAL**: the run is unfinished ({report.partial_reason}); only the games on disk are counted.",
            "",
        ]
    if report.description:
        lines += [report.description, ""]
    facts = (
        f"{report.games:,} games in {report.settings} setting(s); seat margin ±{100 * report.margin:.1f} percentage "
        "points of a fair share; "
        f"{100 * report.confidence:.0f}% confidence; results from `{report.source}`."
        + (f" {report.version[0].upper()}{report.version[1:]}." if getattr(report, "version", "") else "")
    )
    lines += [facts, ""]
    glance = getattr(report, "first_screen", None)
    if glance is not None:
        lines += ["## At a glance", "", f"![{glance.chart.title}]({glance.chart.name}.png)", "",
                  *[f"- {x}" for x in glance.lines], ""]
    if getattr(report, "answers", None):
        lines += ["## The answer", "", *[f"- {x}" for x in report.answers], ""]
        if getattr(report, "why", None):
            lines += [f"{report.why_intro or 'Why:'}", "", *[f"- {x}" for x in report.why], ""]
    if getattr(report, "about", None):
        lines += [*(f"> {x}" for x in report.about), ""]
    lines += [
        "## Headline",
        "",
        markdown_table(report.headline),
        "",
    ]
    if getattr(report, "headline_lines", None):
        lines += [*report.headline_lines, ""]
    for sec in report.sections:
        lines += [f"## {sec.title}", "", f"*{sec.question}*", ""]
        lines += [f"- {f}" for f in sec.findings]
        if sec.findings:
            lines.append("")
        names = [f"`{t.name}.csv`" for t in sec.tables] + [f"`{c.name}.png`" for c in sec.charts]
        if names:
            lines += [f"Files: {', '.join(names)}.", ""]
    lines += ["The full report with every chart and table: `report.html`.", ""]
    return "\n".join(lines)
