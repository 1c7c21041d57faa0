"""The first screen of a report, read in one glance: one picture and one short line per player count.

The picture is a *verdict matrix*: a row per player count, a column per judge in ladder order (the
weakest judge on the left, the strongest on the right), each cell coloured by its seat verdict and
carrying the edge of the seat furthest from a fair share with its interval::

                 greedy          tuned           search          search_deep
    2 players    unfair          fair            fair            undecided
                 1st +4.5 pp     1st +0.8 pp     1st -0.3 pp     1st +0.5 pp
                 [+3.1, +5.8]    [-1.6, +3.2]    [-2.7, +2.1]    [-4.4, +5.4]

Under it, one line per player count in the designer's words ("3 players: the last player (seat 3)
wins about 39% among strong players (fair is 33%); fair at greedy's level"). The long sentences of
:mod:`reports.answers` stay below it, for a reader who wants every judge's interval and cost.

Everything here reads the verdict objects the report already holds (:func:`reports.answers.readings`
of the run's :class:`reports.seats.SeatAdvantage`): no figure is computed twice, and the picture and
the lines can never disagree with the tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from matplotlib.figure import Figure

from stats import tests as stats
from reports.answers import among, readings, seat_words
from reports.charts import OKABE_ITO, Chart, to_png
from reports.seats import NOT_JUDGED

# Cell colours by verdict: light tints of the Okabe-Ito palette, so the words stay readable on them.
COLOURS = {
    stats.FAIR: "#bfe3d5",  # bluish green, light
    stats.UNFAIR: "#f2b48f",  # vermillion, light
    stats.UNDECIDED: "#f7e6a6",  # yellow, light
    NOT_JUDGED: "#e4e4e4",
}
EDGES = {stats.FAIR: OKABE_ITO["bluish_green"], stats.UNFAIR: OKABE_ITO["vermillion"],
         stats.UNDECIDED: OKABE_ITO["orange"], NOT_JUDGED: "#999999"}
CHART_NAME = "verdict_matrix"
CHART_TITLE = "Is each seat fair? Seat verdict per player count and judge (weakest judge left)"
# A player count with more settings than this shows, per judge, the setting that leans most.
MAX_SETTING_ROWS = 3


@dataclass
class FirstScreen:
    """What a report shows first: the verdict matrix ``chart``, the short ``lines`` (one per player
    count) and ``text``, both as a terminal prints them; ``judges`` in ladder order."""

    chart: Chart
    lines: list = field(default_factory=list)
    text: str = ""
    judges: list = field(default_factory=list)


def judge_key(r):
    """What names a reading's column: its judge (a mirror lineup) or its level (a mixed lineup)."""
    return r.judge or r.level


def ladder_order(rs):
    """The column keys of readings ``rs``, weakest judge first: by ladder rung, judges off the
    ladder (and mixed lineups) after them in the order the run lists them."""
    keys = {}
    for k, r in enumerate(rs):
        key = judge_key(r)
        rank = math.inf if r.rank is None else r.rank
        keys.setdefault(key, (rank, k))
    return sorted(keys, key=lambda j: keys[j])


def _short_seat(r, seat=None):
    """``1st`` / ``last`` / ``seat 2``: the seat furthest from fair (or ``seat``), in a cell's few characters."""
    seat = r.seat if seat is None else seat
    if r.players > 2 and seat == r.players - 1:
        return "last"
    return {0: "1st", 1: "2nd", 2: "3rd"}.get(seat, f"seat {seat + 1}")


def verdict_word(r):
    """The word a matrix cell shows: fair, unfair, on the margin, undecided or not judged."""
    if r.verdict == stats.FAIR:
        return "fair"
    if r.verdict == stats.UNFAIR:
        return "unfair"
    if r.verdict == NOT_JUDGED:
        return "not judged"
    return "on the margin" if r.on_margin else "undecided"


def edge_text(r):
    """``last +5.6 pp [+3.3, +7.9]``: the edge of the cell's seat furthest from fair, with its
    interval (both as differences from the fair share)."""
    if math.isnan(r.rate):
        return ""
    lo, hi = r.lo - r.fair, r.hi - r.fair
    interval = f" [{100 * lo:+.1f}, {100 * hi:+.1f}]" if not (math.isnan(lo) or math.isnan(hi)) else ""
    # An unfair cell of three or more seats with more than one seat shown off names the others too
    # (at two players the other seat is the same fact mirrored).
    others = [k for k, _ in r.named if k != r.seat] if r.verdict == stats.UNFAIR and r.players > 2 else []
    also = f", also {', '.join(_short_seat(r, k) for k in dict.fromkeys(others))}" if others else ""
    return f"{_short_seat(r)} {100 * r.deviation:+.1f} pp{interval}{also}"


def _worst(rs):
    """The reading that leans most: an unfair one before any other, then the largest edge."""
    return max(rs, key=lambda r: (r.verdict == stats.UNFAIR, -1 if math.isnan(r.deviation) else abs(r.deviation)))


def matrix_rows(rs):
    """``[(row label, {judge key: reading})]``: a row per player count, or per player count and
    setting when a count has a few settings; with more, each judge's setting that leans most."""
    rows = []
    for n in sorted({r.players for r in rs}):
        mine = [r for r in rs if r.players == n]
        settings = list(dict.fromkeys(r.setting for r in mine))
        if len(settings) == 1:
            rows.append((f"{n} players", {judge_key(r): r for r in mine}))
        elif len(settings) <= MAX_SETTING_ROWS:
            for s in settings:
                rows.append((f"{n} players, {s}", {judge_key(r): r for r in mine if r.setting == s}))
        else:
            per = {}
            for r in mine:
                per.setdefault(judge_key(r), []).append(r)
            rows.append((f"{n} players ({len(settings)} settings, the one leaning most)",
                         {k: _worst(v) for k, v in per.items()}))
    return rows


def _among(r):
    who = among(r.judge, r.words) if r.judge else f"with {r.level}"
    return f"{who} (an unproven judge here)" if getattr(r, "unproven", False) else who


def _lead(r):
    """The short line's head: what the given (decided, or strongest) judge says."""
    who = seat_words(r.seat, r.players)
    if r.verdict == stats.FAIR:
        return f"fair {_among(r)}"
    if r.verdict == stats.UNFAIR:
        verb = "wins about" if r.deviation > 0 else "wins only about"
        return f"{who} {verb} {100 * r.rate:.0f}% {_among(r)} (fair is {100 * r.fair:.0f}%)"
    if r.verdict == NOT_JUDGED:
        return f"not judged {_among(r)}"
    if math.isnan(r.rate):
        return f"not decided yet {_among(r)}"
    state = "on the margin" if r.on_margin else "not decided yet"
    return f"{state} {_among(r)} ({who} {100 * r.rate:.0f}%)"


def _tail_word(r, lead):
    """How a weaker (or undecided) judge is said after the head: ``fair``, ``the first player ahead``..."""
    if r.verdict == stats.FAIR:
        return "fair"
    if r.verdict == stats.UNFAIR:
        same = lead is not None and lead.verdict == stats.UNFAIR and lead.seat == r.seat and (
            (lead.deviation > 0) == (r.deviation > 0))
        if same:
            return "the same seat ahead" if r.deviation > 0 else "the same seat behind"
        return f"{seat_words(r.seat, r.players)} {'ahead' if r.deviation > 0 else 'behind'}"
    if r.verdict == NOT_JUDGED:
        return "not judged"
    return "on the margin" if r.on_margin else "not decided yet"


def _whom(members):
    """``among the strongest players, among strong players and at greedy's level``."""
    words = [_among(m) for m in members]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def short_line(players, rs, label=None):
    """One short line for a player count (and setting ``label``): what the strongest judge that
    decided says, then the other judges grouped by what they say, strongest first."""
    order = ladder_order(rs)
    by_key = {judge_key(r): r for r in rs}
    strongest_first = [by_key[k] for k in reversed(order)]
    decided = [r for r in strongest_first if r.decided]
    lead = decided[0] if decided else strongest_first[0]
    lead_word = _tail_word(lead, None)
    same, groups = [], {}
    for r in strongest_first:
        if r is lead:
            continue
        word = _tail_word(r, lead)
        if word == lead_word or word.startswith("the same seat"):
            same.append(r)
        else:
            groups.setdefault(word, []).append(r)
    head = f"{players} players" + (f", {label}" if label else "")
    text = f"{head}: {_lead(lead)}"
    if same:
        text += f", and the same {_whom(same)}"
    tail = [f"{word} {_whom(members)}" for word, members in groups.items()]
    return text + ("; " + "; ".join(tail) if tail else "") + "."


def short_lines(rs):
    """At most one line per player count (per setting for a count with a few settings; a count with
    many settings gets one line naming its judges' verdict counts)."""
    out = []
    for n in sorted({r.players for r in rs}):
        mine = [r for r in rs if r.players == n]
        settings = list(dict.fromkeys(r.setting for r in mine))
        if len(settings) == 1:
            out.append(short_line(n, mine))
        elif len(settings) <= MAX_SETTING_ROWS:
            out += [short_line(n, [r for r in mine if r.setting == s], s) for s in settings]
        else:
            parts = []
            for key in reversed(ladder_order(mine)):
                rows = [r for r in mine if judge_key(r) == key]
                words = {}
                for r in rows:
                    words[verdict_word(r)] = words.get(verdict_word(r), 0) + 1
                tally = ", ".join(f"{n} {w}" for w, n in sorted(words.items(), key=lambda wn: -wn[1]))
                worst = _worst(rows)
                most = f" (most: {worst.setting})" if worst.verdict == stats.UNFAIR else ""
                parts.append(f"{_among(rows[0])} {tally}{most}")
            out.append(f"{n} players ({len(settings)} settings): " + "; ".join(parts) + ".")
    return out


def interval_words(confidence=0.95, own=False):
    """What a cell's interval is: ``95% interval``, or for a run judged by the zone test the interval
    of the verdict itself (each end a one-sided bound of at least the confidence, so a fair cell's
    lies within the fair band and an unfair cell's named seat beyond the zone)."""
    if own:
        return f"the interval of its verdict, each end a {100 * confidence:.0f}% bound or more"
    return f"{100 * confidence:.0f}% interval"


def matrix_chart(rows, judges, confidence=0.95, own=False):
    """The verdict matrix as a PNG :class:`reports.charts.Chart` (see the module doc)."""
    nrows, ncols = len(rows), len(judges)
    label_w = 1.5 if all(len(lab) <= 10 for lab, _ in rows) else 2.6
    fig = Figure(figsize=(label_w + 2.35 * ncols, 0.55 + 0.78 * nrows), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xlim(0, ncols)
    ax.set_ylim(nrows, 0)
    ax.set_axis_off()
    for i, (_label, cells) in enumerate(rows):
        for j, judge in enumerate(judges):
            r = cells.get(judge)
            if r is None:
                ax.add_patch(_rect(j, i, "#ffffff", "#dddddd"))
                ax.text(j + 0.5, i + 0.5, "-", ha="center", va="center", color="#999999")
                continue
            ax.add_patch(_rect(j, i, COLOURS.get(r.verdict, "#ffffff"), EDGES.get(r.verdict, "#999999")))
            weight = "bold" if r.verdict == stats.UNFAIR else "normal"
            ax.text(j + 0.5, i + 0.3, verdict_word(r), ha="center", va="center", fontsize=11, fontweight=weight)
            ax.text(j + 0.5, i + 0.62, edge_text(r), ha="center", va="center", fontsize=8.5)
            ax.text(j + 0.5, i + 0.85, f"{r.games:,} games", ha="center", va="center", fontsize=7, color="#444444")
    for i, (label, _cells) in enumerate(rows):
        ax.text(-0.06, i + 0.5, label, ha="right", va="center", fontsize=10.5, fontweight="bold")
    for j, judge in enumerate(judges):
        ax.text(j + 0.5, -0.12, judge, ha="center", va="bottom", fontsize=10.5, fontweight="bold")
    fig.suptitle(
        f"Seat verdict per player count and judge (weakest judge left): the seat furthest from fair "
        f"(unfair: the seat shown off), its edge in pp and {interval_words(confidence, own)}",
        fontsize=10,
    )
    return Chart(CHART_NAME, CHART_TITLE, to_png(fig, dpi=90))


def _rect(x, y, face, edge):
    from matplotlib.patches import Rectangle

    return Rectangle((x + 0.03, y + 0.05), 0.94, 0.9, facecolor=face, edgecolor=edge, linewidth=1.4)


def matrix_text(rows, judges, confidence=0.95, own=False):
    """The verdict matrix as aligned text for a terminal: the verdict word and the edge per cell."""
    header = ["", *judges]
    body = []
    for label, cells in rows:
        line = [label]
        for judge in judges:
            r = cells.get(judge)
            line.append("-" if r is None else f"{verdict_word(r)}: {edge_text(r)}")
        body.append(line)
    widths = [max(len(x[k]) for x in [header, *body]) for k in range(len(header))]
    out = [
        f"At a glance: seat verdict per player count and judge, weakest judge first (the seat furthest "
        f"from fair, or the seat an unfair cell shows off; its edge and {interval_words(confidence, own)})",
        "",
    ]
    for line in [header, *body]:
        out.append("  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip())
    return "\n".join(out)


def first_screen(seat_advantage, setting="instruments"):
    """The :class:`FirstScreen` of a run's seat verdicts (``seat_advantage``: a
    :class:`reports.seats.SeatAdvantage`; ``setting``: its setting column), or None when it has no
    cell."""
    if seat_advantage is None or seat_advantage.cells.empty:
        return None
    rs = readings(seat_advantage, setting)
    if not rs:
        return None
    judges = ladder_order(rs)
    rows = matrix_rows(rs)
    confidence = float(getattr(seat_advantage, "confidence", 0.95))
    lines = short_lines(rs)
    cells = seat_advantage.cells
    own = ("seq_test" in cells and bool((cells["seq_test"] == "zone").any())) or bool(
        seat_advantage.rates.attrs.get("verdict_intervals"))
    text = matrix_text(rows, judges, confidence, own) + "\n\n" + "\n".join(lines)
    return FirstScreen(chart=matrix_chart(rows, judges, confidence, own), lines=lines, text=text, judges=judges)


__all__ = ["FirstScreen", "edge_text", "first_screen", "ladder_order", "short_line", "short_lines", "verdict_word"]
