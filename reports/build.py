"""Assembling the balance report: its six sections (the sixth, rules that bite, from
``reports.rule_relevance``), the headline, and the files written.

::

    results/ci/  --load_run-->  RunData  --build_report-->  Report  --write_report-->  out/
                                (tables)                    (sections:             report.html
                                                             tables, charts,       summary.md
                                                             notes, findings)      *.csv, *.png

Only the result tables are read; nothing here plays a game.
"""

from __future__ import annotations

import datetime as _dt

import pandas as pd

from reports import charts, stats
from reports import present as P
from reports.frames import (
    DEPTS,
    SETTING,
    SOURCES,
    mirror_lineups,
    pct,
    varies_instruments,
)
from reports.answers import answer_text, instrument_answers, seat_answers
from reports.headline import headline_table
from reports.document import Report, Section, Table
from scenarios.schema import SEAT_COLUMNS

# --- instruments out of line and rule relevance (reports/instrument_section.py, reports/rule_relevance.py)
from reports.instrument_section import headline_lines as instrument_headline_lines
from reports.instrument_section import instrument_section
from reports.rule_relevance import headline_lines as rule_headline_lines
from reports.rule_relevance import rule_section
from reports.about import about_lines
# ---
from reports.io import tables_of
from reports.scoring import level_sources, scoring_sources
from reports.seat_section import seat_section, setting_cols
from reports.seats import is_mirror, level_label
from reports.shape import game_shape
from reports.strategies import compare_strategies
from reports.why import tiebreak_shares, why_lines

DEFAULT_MARGIN = 0.03
DEFAULT_CONFIDENCE = 0.95


# --------------------------------------------------------------------------- sections


def _strategy_section(seats, confidence, seed):
    mixed = any(not is_mirror(lu) for lu in tables_of(seats).cells["lineup"].astype(str).unique())
    if not mixed:
        # Mirror lineups of different strategies are separate games: the strategies never met.
        seats = pd.DataFrame(columns=list(SEAT_COLUMNS))
    comp = compare_strategies(seats, confidence, seed=seed)
    c = int(100 * confidence)
    sec = Section("strategies", "2. Strategies", "Which strategy wins, and does one dominate?", notes=list(comp.notes))
    if not mixed:
        text = (
            "Every lineup of this run is a mirror (one strategy in every seat), so no two strategies met in a "
            "game and none is compared here; the mirror lineups serve as judge levels of the seat verdicts."
        )
        sec.notes = [text]
        sec.findings.append(text)
        return sec, comp
    if comp.empty:
        sec.findings.append(comp.notes[0] if comp.notes else "No strategy comparison in this run.")
        return sec, comp
    rate_spec = [
        *setting_cols(),
        ("strategy", P.text("strategy")),
        ("seats played", P.integer("seats_played")),
        ("wins", P.integer("wins")),
        (f"win % per seat [{c}% CI]", P.rate("win_rate", "win_lo", "win_hi")),
        ("fair share %", P.rate("fair_share")),
        (f"mean score [{c}% CI]", P.points("score_mean", "score_lo", "score_hi")),
    ]
    h2h_spec = [
        *setting_cols(),
        ("strategy", P.text("strategy")),
        ("opponent", P.text("opponent")),
        ("shared games", P.integer("games")),
        (f"ahead % [{c}% CI]", P.rate("share", "share_lo", "share_hi")),
    ]
    rating_spec = [
        *setting_cols(),
        ("strategy", P.text("strategy")),
        ("seat pairs", P.integer("comparisons")),
        (f"strength [{c}% bootstrap CI]", P.points("strength", "strength_lo", "strength_hi", 2)),
        ("beats an average strategy %", P.rate("p_beat_average")),
    ]
    dom_spec = [
        *setting_cols(),
        ("strategies", P.text("strategies")),
        ("leader", P.text("leader")),
        ("leader win %", P.rate("leader_win_rate")),
        ("dominates", lambda r: "yes" if r["dominates"] else "no"),
        ("note", P.text("note")),
    ]
    sec.charts = [charts.strategy_win_rates(comp.rates, confidence)]
    if len(comp.head_to_head):
        # Mirror lineups of different strategies never meet: no head-to-head to draw.
        sec.charts.append(charts.head_to_head(comp.head_to_head))
    if comp.ratings["strength"].notna().any():
        sec.charts.append(charts.ratings(comp.ratings, confidence))
    sec.tables = [
        Table(
            "strategy_dominance",
            "Leader per player count and instrument set",
            comp.dominance,
            P.present(comp.dominance, dom_spec),
        ),
        Table(
            "strategy_win_rates", "Win rate and mean score per strategy", comp.rates, P.present(comp.rates, rate_spec)
        ),
        Table(
            "strategy_head_to_head",
            "Head-to-head: share of shared games where the strategy finished ahead "
            "of the opponent (best-placed seat of each)",
            comp.head_to_head,
            P.present(comp.head_to_head, h2h_spec),
        ),
        Table(
            "strategy_ratings",
            "Bradley-Terry rating on finishing orders (seat pairs of different strategies), bootstrap over games",
            comp.ratings,
            P.present(comp.ratings, rating_spec),
        ),
    ]
    for row in comp.dominance.head(12).itertuples(index=False):
        sec.findings.append(f"{row.players} players, {row.instruments}: {row.note}.")
    return sec, comp


def _scoring_section(seats, confidence):
    sc = scoring_sources(seats, confidence)
    c = int(100 * confidence)
    seat_spec = [*setting_cols(), ("seat", P.seat("seat")), ("seats", P.integer("n"))]
    seat_spec += [(src, P.points(src)) for src in SOURCES]
    seat_spec.append((f"score [{c}% CI]", P.points("score", "score_lo", "score_hi")))
    win_spec = [*setting_cols(), ("winners", P.integer("winners")), ("winner score", P.points("winner_score"))]
    win_spec += [(f"{src} %", P.rate(f"share_{src}")) for src in SOURCES]
    sec = Section(
        "scoring",
        "3. Scoring sources",
        "Where do the points come from, and what wins games?",
        charts=[charts.source_bars(sc.by_seat), charts.winner_share_bars(sc.winners)],
        tables=[
            Table(
                "score_sources_by_seat", "Mean points per seat by source", sc.by_seat, P.present(sc.by_seat, seat_spec)
            ),
            Table(
                "winner_point_shares",
                "Share of the winners' points from each source (penalties negative)",
                sc.winners,
                P.present(sc.winners, win_spec),
            ),
        ],
    )
    sec.notes.append("Penalties (R12) are negative points; the charts sum the three departments' penalties.")
    for players, part in sc.winners.groupby("players"):
        tot = (part["winner_score"] * part["winners"]).sum()
        shares = {}
        for group, cols in (
            ("inspector", ["inspector"]),
            ("objectives", [f"objective_{d}" for d in DEPTS]),
            ("brag tracks", [f"brag_{d}" for d in DEPTS]),
            ("penalties", [f"penalty_{d}" for d in DEPTS]),
        ):
            shares[group] = sum((part[f"share_{c}"] * part["winner_score"] * part["winners"]).sum() for c in cols) / tot
        sec.findings.append(
            f"{players} players: winners' points come from "
            + ", ".join(f"{k} {pct(v)}%" for k, v in shares.items())
            + "."
        )
    return sec, sc


def _shape_section(seats, games, confidence):
    table, per = game_shape(seats, games, confidence)
    c = int(100 * confidence)
    spec = [
        *setting_cols(),
        ("games", P.integer("games")),
        (f"rounds [{c}% CI]", P.points("rounds_mean", "rounds_lo", "rounds_hi")),
        (
            "rounds p10 / median / p90",
            lambda r: f"{r['rounds_p10']:.0f} / {r['rounds_median']:.0f} / {r['rounds_p90']:.0f}",
        ),
        (f"stalled % [{c}% CI]", P.rate("stalled_rate", "stalled_lo", "stalled_hi", 2)),
        (f"passes per game [{c}% CI]", P.points("passes_mean", "passes_lo", "passes_hi", 2)),
        ("score std within game", P.points("score_std_mean")),
        (f"winner margin [{c}% CI]", P.points("winner_margin_mean", "winner_margin_lo", "winner_margin_hi")),
        ("winner margin median", P.points("winner_margin_median")),
    ]
    sec = Section(
        "shape",
        "5. Game shape",
        "How long do games last, do they stall, and how close do they finish?",
        charts=[charts.rounds_histogram(per), charts.margin_histogram(per)],
        tables=[Table("game_shape", "Game length, stalls, passes and score spread", table, P.present(table, spec))],
    )
    sec.notes.append(
        "A stalled game reached the safety cap on rounds (R11); a pass is a turn where no die "
        "could be taken (R3). The winner's margin is 0 when the tie-break decided."
    )
    for players, part in table.groupby("players"):
        n = part["games"].sum()
        stalled = part["stalled"].sum()
        sec.findings.append(
            f"{players} players: median {part['rounds_median'].median():.0f} rounds, "
            f"{pct(stalled / n, 2)}% stalled, mean winner margin "
            f"{(part['winner_margin_mean'] * part['games']).sum() / n:.1f} points."
        )
    return sec, table


def _level_findings(seats, games):
    """Findings per judge level (lineup) with their agreement: winners' main point source, most unbuilt
    instrument. Empty when the run has one lineup per player count."""
    scoring, unbuilt = [], []
    for players, levels in level_sources(seats, games).items():
        tops, worsts, s_parts, u_parts = [], [], [], []
        for lu, shares, rates in levels:
            lv = level_label(lu)
            top = max(shares, key=lambda k: shares[k])
            tops.append(top)
            s_parts.append(f"{lv}: {top} {pct(shares[top])}%")
            worst = max(rates, key=lambda k: rates[k])
            worsts.append(worst)
            u_parts.append(f"{lv}: {worst} {pct(rates[worst])}%")
        word = "robust (every judge agrees)" if len(set(tops)) == 1 else "skill-sensitive (judges disagree)"
        scoring.append(f"{players} players, largest share of the winners' points per judge: {'; '.join(s_parts)}: {word}.")
        word = "robust (every judge agrees)" if len(set(worsts)) == 1 else "skill-sensitive (judges disagree)"
        unbuilt.append(f"{players} players, most often unbuilt per judge: {'; '.join(u_parts)} of games: {word}.")
    return scoring, unbuilt


def _answers(seats, games, adv, inst_verdicts, seat_sec, confidence):
    """``(answers, why)``: the answer sentences (seats per player count, then instruments) and the
    tie-break's part of each imbalanced seat edge; adds the tie-break table to section 1."""
    answers = seat_answers(adv) + instrument_answers(inst_verdicts)
    shares = tiebreak_shares(seats, games, confidence)
    c = int(100 * confidence)
    if not shares.empty:
        spec = [
            *setting_cols(),
            ("judge (lineup)", P.text("level")),
            ("seat", P.seat("seat")),
            ("games", P.integer("games")),
            ("win % (R13 as decided)", P.rate("win_rate")),
            ("won on points %", P.rate("points_rate")),
            ("won by the tie-break %", P.rate("tiebreak_rate")),
            (f"win % with tied wins shared [{c}% CI]", P.rate("shared_rate", "shared_lo", "shared_hi")),
            ("edge vs 1/N, pp", P.pp("edge")),
            ("of it: tie-break, pp", P.pp("tiebreak_part")),
            ("of it: on points, pp", P.pp("points_part")),
        ]
        seat_sec.tables.append(
            Table("seat_tiebreak", "Each seat's wins on points and by the R13 tie-break, and with tied wins shared",
                  shares, P.present(shares, spec))
        )
        seat_sec.notes.append(
            "Why a seat leads: a tie for the highest total goes to the tied player latest in turn order (R13), so "
            "every game the tie-break decides is a win for a later seat. 'With tied wins shared' reads the same "
            "games giving 1/k of a tie to each of the k tied seats; the edge (win rate - 1/N) splits into the "
            "tie-break's part (as decided - shared) and the part won on points (shared - 1/N). It is exact for "
            "players who never look at who wins a tie (greedy, tuned); the ruling switch "
            "board.rulings.tie_break = \"shared\" or \"earliest\" plays the other readings on the same deals."
        )
    why = why_lines(shares, adv.cells)
    seat_sec.findings += why
    return answers, why


# --------------------------------------------------------------------------- the report


def build_report(
    run, margin=DEFAULT_MARGIN, confidence=DEFAULT_CONFIDENCE, seed=0, gap_margin=None, instrument_margins=None
):
    """Every section, the headline and the run facts of a :class:`reports.io.RunData`.

    ``margin`` is a fraction (0.03 = 3 percentage points) and ``confidence`` a level (0.95).
    Bootstrap draws use ``seed`` so a report is reproducible. ``instrument_margins`` maps the
    measures of :mod:`reports.instrument_verdicts` to margins (defaults there).
    """
    if not 0 <= margin < 1:
        raise ValueError(f"margin {margin} is outside [0, 1)")
    if gap_margin is not None and not 0 <= gap_margin < 1:
        raise ValueError(f"gap margin {gap_margin} is outside [0, 1)")
    stats.alpha_of(confidence)
    seats = games = run  # the sections read the run chunk by chunk (reports.io.RunData.scan)
    cells = run.cells
    seat_sec, adv = seat_section(games, margin, confidence, seed, gap_margin, sequential=run.manifest.get("sequential"))
    if mirror_lineups(cells):
        seat_sec.notes.insert(
            0,
            (
                "With a mirror lineup (one strategy in every seat) the seat rotations of a deal replay the very "
                "same game, so a deal counts once: its design effect equals its number of rotations."
            ),
        )
    strat_sec, comp = _strategy_section(seats, confidence, seed)
    scoring_sec = _scoring_section(seats, confidence)[0]
    inst_sec, inst_verdicts = instrument_section(seats, games, confidence, seed, instrument_margins)
    by_level_scoring, by_level_unbuilt = _level_findings(seats, games)
    scoring_sec.findings += by_level_scoring
    inst_sec.findings += by_level_unbuilt
    sections = [seat_sec, strat_sec, scoring_sec, inst_sec, _shape_section(seats, games, confidence)[0]]
    rules_sec, rules = rule_section(seats, games, confidence)  # --- rule relevance
    sections.append(rules_sec)
    # A leading strategy only means something where strategies met in one lineup.
    mixed = any(not is_mirror(lu) for lu in cells["lineup"].astype(str).unique())
    frame, text = headline_table(adv, comp if (mixed and not comp.empty) else None, partial=run.partial)
    # --- instruments out of line and rules that never bite, under the seat headline
    lines = instrument_headline_lines(inst_verdicts) + rule_headline_lines(rules)
    if lines:
        text += "\n\n" + "\n".join(lines)
    # ---
    answers, why = _answers(seats, games, adv, inst_verdicts, seat_sec, confidence)
    text = answer_text(answers, why, text, run.partial)
    scenario = run.scenario_name
    desc = str(run.manifest.get("scenario", {}).get("description", ""))
    nsettings = cells[list(SETTING[:1]) + ["inst_black", "inst_orange", "inst_gray"]].drop_duplicates().shape[0]
    if varies_instruments(cells):
        desc = desc or "instrument sets vary"
    return Report(
        scenario=scenario,
        description=desc,
        source=run.source,
        partial=run.partial,
        partial_reason=run.partial_reason,
        margin=margin,
        confidence=confidence,
        games=len(games),
        settings=nsettings,
        headline=frame,
        headline_text=text,
        sections=sections,
        generated=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        headline_lines=lines,
        about=about_lines(cells),
        answers=answers,
        why=why,
    )


__all__ = ["build_report"]
