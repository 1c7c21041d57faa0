"""The headline: per setting and judge level, whether the seats are fair, and whether the judges agree.

A *judge level* is one lineup of a setting (``greedy x4``, ``lookahead x4``, a mixed lineup judged
through the seat model). The headline never pools lineups: it gives each level's verdict with the
lineup named beside it, then marks the setting

* **robust** when every level reached the same decided verdict (all fair or all unfair),
* **skill-sensitive** when one level says fair and another unfair,
* **open** when the decided levels agree but some level is still undecided,
* **one judge** when the setting was judged at one level only.

Adding a level to a scenario (a new mirror lineup) is all it takes to add it here. With many
instrument sets per player count (an expansion or grid run) a row per player count and level
counts the verdicts and names the worst set. The setting a level judges is a column of the seat
cells (``instruments`` for Shuffle and Swing; another game's report passes its own, e.g.
board/variant, and asks for a row per setting), so one headline serves every game.
"""

from __future__ import annotations

import pandas as pd

from stats import tests as stats
from reports.answers import across_text, judge_of, judge_ranks, readings
from reports.frames import pct
from reports.seats import MIRROR, NOT_JUDGED, margin_sentence

ROBUST = "robust"
SKILL_SENSITIVE = "skill-sensitive"
OPEN = "open"
ONE_JUDGE = "one judge"

COLUMNS = [
    "players",
    "instruments",
    "judge (lineup)",
    "games",
    "win % by seat (seat 1 plays first)",
    "best - worst seat, pp (the margin is per seat)",
    "verdict",
    "across judges",
    "note",
]


def _gap_text(row):
    if pd.isna(row["gap"]):
        return ""
    return f"{100 * row['gap']:.1f} pp [{100 * row['gap_lo']:.1f}, {100 * row['gap_hi']:.1f}]"


def agreement(verdicts):
    """robust / skill-sensitive / open / one judge, from the verdicts of one setting's levels."""
    judged = [v for v in verdicts if v != NOT_JUDGED]
    if len(judged) <= 1:
        return ONE_JUDGE
    decided = {v for v in judged if v in (stats.FAIR, stats.UNFAIR)}
    if len(decided) == 2:
        return SKILL_SENSITIVE
    if len(decided) == 1 and all(v in decided for v in judged):
        return ROBUST
    return OPEN


def setting_agreement(cells, setting="instruments"):
    """One row per setting: ``players, <setting>, across judges, levels``.

    ``setting`` is the column of ``cells`` naming what a judge level judges (the first game's
    instrument set; another game's board/variant): the levels of one player count and setting are
    compared, never pooled."""
    rows = []
    for (players, key), part in cells.groupby(["players", setting], sort=True):
        rows.append(
            {
                "players": players,
                setting: key,
                "across judges": agreement(list(part["verdict"])),
                "levels": "; ".join(f"{lv}: {v}" for lv, v in zip(part["level"], part["verdict"], strict=True)),
            }
        )
    return pd.DataFrame(rows, columns=["players", setting, "across judges", "levels"])


def _verdict_text(row):
    return row["verdict"] if row["design"] == MIRROR or row["verdict"] == NOT_JUDGED else f"{row['verdict']} (model)"


def _leaders(strategies, players, noun="sets"):
    if strategies is None or strategies.dominance.empty:
        return ""
    d = strategies.dominance[strategies.dominance["players"] == players]
    if d.empty:
        return ""
    if len(d) == 1:
        row = d.iloc[0]
        return f"{row['leader']} ({'dominates' if row['dominates'] else 'leads'})"
    top = d["leader"].value_counts()
    return f"{top.index[0]} leads in {int(top.iloc[0])} of {len(d)} {noun}"


def ladder_sorted(cells, game=None):
    """``cells`` with each setting's judge levels in ladder order, weakest first (``Game.ladder``:
    :func:`reports.answers.judge_ranks`); levels off the ladder (mixed lineups) after them, as listed."""
    if cells.empty:
        return cells
    ranks = judge_ranks(game)
    rung = [ranks.get(judge_of(lineup), len(ranks) + 1) for lineup in cells["lineup"]]
    return cells.assign(_rung=rung, _pos=range(len(cells))).sort_values(["_rung", "_pos"]).drop(
        columns=["_rung", "_pos"])


def _level_rows(players, scells, rates, agree, setting):
    """One headline row per judge level of one setting (``scells``: that setting's cells)."""
    rows = []
    for _level, part in scells.groupby("level", sort=False):
        row = part.iloc[0]
        r = rates[(rates["players"] == players) & (rates[setting] == row[setting]) & (rates["lineup"] == row["lineup"])]
        seat_text = " / ".join(pct(x) for x in r["seat_rate"]) if r["seat_rate"].notna().all() else ""
        rows.append(
            [
                players,
                row[setting],
                row["level"],
                f"{int(row['games']):,}",
                seat_text,
                _gap_text(row),
                _verdict_text(row),
                agree.loc[(players, row[setting])],
                row["note"],
            ]
        )
    return rows


def headline_frame(seat_advantage, strategies=None, setting="instruments", setting_title="instruments", per_setting=False,
                   noun="sets"):
    """The headline as a small DataFrame of text cells (see the module doc).

    ``setting`` names the column of the seat cells that a judge level judges (default the
    instrument set) and ``setting_title`` its column title. With ``per_setting`` every setting gets
    its rows per judge level; otherwise a player count with several settings gets one summary row
    per level (verdict counts and the worst setting, the settings counted as ``noun``)."""
    # Judges in ladder order everywhere in the table (greedy, tuned, search, search_deep), never by name.
    cells = ladder_sorted(seat_advantage.cells, seat_advantage.game)
    rates = seat_advantage.rates
    agree_word = setting_agreement(cells, setting).set_index(["players", setting])["across judges"]
    by_setting = {}
    for r in readings(seat_advantage, setting):
        by_setting.setdefault((r.players, r.setting), []).append(r)
    # The across-judges column says the lean of each judge with the agreement word (answers.across_text).
    agree = pd.Series(
        {k: across_text(by_setting[(k[0], str(k[1]))], w) for k, w in agree_word.items()}, dtype=object
    )
    columns = [setting_title if c == "instruments" else c for c in COLUMNS]
    rows = []
    for players, pcells in cells.groupby("players", sort=True):
        nsets = pcells[setting].nunique()
        if per_setting:
            for _key, scells in pcells.groupby(setting, sort=True):
                rows += _level_rows(players, scells, rates, agree, setting)
            continue
        if nsets == 1:
            rows += _level_rows(players, pcells, rates, agree, setting)
            continue
        for level, part in pcells.groupby("level", sort=False):
            counts = part["verdict"].value_counts()
            order = [stats.UNFAIR, stats.FAIR, stats.UNDECIDED, NOT_JUDGED]
            verdict = ", ".join(f"{int(counts[v])} {v}" for v in order if v in counts)
            ranked = part.assign(_imb=part["verdict"] == stats.UNFAIR).sort_values(
                ["_imb", "gap"], ascending=False, na_position="last"
            )
            worst = ranked.iloc[0]
            ag = agree_word.loc[[(players, i) for i in part[setting]]].value_counts()
            if list(ag.index) == [ONE_JUDGE]:
                ag_text = f"one judge ({level}) for all {nsets} {noun}"
            else:
                ag_text = ", ".join(f"{k} in {int(n)} of {nsets} {noun}" for k, n in ag.items())
            note = f"largest seat gap in {worst[setting]}: {worst['note']}"
            rows.append(
                [
                    players,
                    f"{nsets} {noun}",
                    level,
                    f"{int(part['games'].sum()):,}",
                    "",
                    _gap_text(worst),
                    verdict,
                    ag_text,
                    note,
                ]
            )
    frame = pd.DataFrame(rows, columns=columns)
    leaders = [_leaders(strategies, p, noun) for p in frame["players"]]
    if any(leaders):
        frame.insert(len(columns) - 1, "leading strategy", leaders)
    return frame


def render_text(frame, margin, confidence, partial=False, title=None, gap_margin=None, setting_title=None, zone=None):
    """Plain-text rendering for a terminal: a title, an aligned table, then one note per row (naming
    the row's ``setting_title`` column too when given: a headline with a row per setting). ``zone``: the
    indifference of a sequential run judged by the zone test (its reading says what its words mean)."""
    title = title or "Seat balance"
    head = (
        f"{title}: verdict per player count and judge (margin ±{100 * margin:.1f} pp of 1/N"
        + (f", gap margin {100 * gap_margin:.1f} pp" if gap_margin is not None else "")
        + f", {100 * confidence:.0f}% confidence)"
    )
    if partial:
        head = "PARTIAL RUN (unfinished, only the games on disk): " + head
    shown = [c for c in frame.columns if c != "note"]
    cells = [[str(c) for c in shown]] + [[str(v) for v in row] for row in frame[shown].itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(shown))]
    lines = [head, ""]
    for k, r in enumerate(cells):
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    where = frame[setting_title] if setting_title else [None] * len(frame)
    notes = [
        f"  {p} players, {'' if w is None else f'{w}, '}{lv}: {n}"
        for p, w, lv, n in zip(frame["players"], where, frame["judge (lineup)"], frame["note"], strict=True)
        if n
    ]
    if notes:
        lines += ["", *notes]
    alpha = 1 - confidence
    if zone:
        m, d = 100 * margin, 100 * zone
        lines += [
            "",
            f"  Reading (sequential run, zone test): fair means every seat is shown within {m + d:g} points "
            f"of a fair share, unfair that a named seat is shown more than {m - d:g} points off; each is "
            f"wrong at most {100 * alpha:.0f}% of the time for its own setting and judge, looked at after every round. "
            "A seat's interval in a note is its verdict's own (each end a one-sided bound at the word's level), the "
            "best - worst gap's a separate confidence sequence simultaneous over the seats. "
            "Robust: every judge agrees; skill-sensitive: judges of different strength disagree.",
        ]
        return "\n".join(lines)
    lines += [
        "",
        f"  Reading: {margin_sentence(margin, gap_margin)}. Each verdict is wrong at most {100 * alpha:.0f}% of the time "
        "for its own setting and judge (a false 'fair' when a seat is outside the margin, a false 'unfair' "
        "when every seat is inside); adding settings to a run does not change it. Robust: every judge agrees; "
        "skill-sensitive: judges of different strength disagree.",
    ]
    return "\n".join(lines)


def headline_table(seat_advantage, strategies=None, margin=None, confidence=None, partial=False):
    """``(frame, text)``: the headline DataFrame and its plain-text rendering for a terminal.

    ``seat_advantage`` is the :class:`reports.seats.SeatAdvantage` of a run (its margin and
    confidence are used unless given), ``strategies`` an optional
    :class:`reports.strategies.StrategyComparison` adding the leading strategy per player count.
    """
    frame = headline_frame(seat_advantage, strategies)
    margin = seat_advantage.margin if margin is None else margin
    confidence = seat_advantage.confidence if confidence is None else confidence
    zone = zone_of(seat_advantage.cells)
    return frame, render_text(frame, margin, confidence, partial, gap_margin=seat_advantage.gap_margin, zone=zone)


def zone_of(cells):
    """The indifference of a sequential run judged by the zone test (None for any other run)."""
    from stats.zone import DEFAULT_INDIFFERENCE

    if "seq_test" not in cells or not (cells["seq_test"] == "zone").any():
        return None
    z = cells.attrs.get("indifference")
    return float(z) if z else DEFAULT_INDIFFERENCE
