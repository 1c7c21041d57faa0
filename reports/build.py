"""Assembling the balance report: the five sections, the headline, and the files written.

::

    results/ci/  --load_run-->  RunData  --build_report-->  Report  --write_report-->  out/
                                (tables)                    (sections:             report.html
                                                             tables, charts,       summary.md
                                                             notes, findings)      *.csv, *.png

Only the result tables are read; nothing here plays a game.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

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
from reports.headline import headline_table
from reports.document import Report, Section, Table, write_report
from reports.io import ReportInputError, RunData, load_run

# --- instruments out of line and rule relevance (reports/instrument_section.py, reports/rule_relevance.py)
from reports.instrument_section import headline_lines as instrument_headline_lines
from reports.instrument_section import instrument_section
from reports.rule_relevance import headline_lines as rule_headline_lines
from reports.rule_relevance import rule_section
from reports.about import about_lines
# ---
from reports.scoring import scoring_sources
from reports.seats import NOT_JUDGED, is_mirror, level_label, margin_sentence, seat_advantage
from reports.shape import game_shape
from reports.strategies import compare_strategies

DEFAULT_MARGIN = 0.03
DEFAULT_CONFIDENCE = 0.95


def _setting_cols():
    return [("players", P.integer("players")), ("instruments", P.text("instruments"))]


# --------------------------------------------------------------------------- sections


def _seat_section(games, margin, confidence, seed, gap_margin=None, settings_word="instrument sets"):
    adv = seat_advantage(games, margin, confidence, seed, gap_margin=gap_margin)
    cells, rates = adv.cells, adv.rates
    c = int(100 * confidence)
    a = stats.alpha_of(confidence)
    cell_spec = [
        *_setting_cols(),
        ("judge (lineup)", P.text("level")),
        ("design", P.text("design")),
        ("games", P.integer("games")),
        ("effective games", P.integer("effective_games")),
        ("verdict", P.text("verdict")),
        (f"largest gap, pp [{c}% simultaneous CI]", P.pp("gap", "gap_lo", "gap_hi")),
        ("best seat", P.seat("best_seat")),
        ("worst seat", P.seat("worst_seat")),
        ("chi-square p vs 1/N", P.pvalue("chi2_p")),
        ("equivalence p (TOST)", P.pvalue("tost_p")),
        ("outside-margin p (Holm in the cell)", P.pvalue("outside_p_holm")),
        ("imbalanced run-wide", lambda r: "yes" if r["imbalanced_run"] else ""),
        ("balanced run-wide", lambda r: "yes" if r["balanced_run"] else ""),
        (f"ties % [{c}% CI]", P.rate("tie_rate", "tie_lo", "tie_hi")),
        (f"decided by tie-break % [{c}% CI]", P.rate("tiebreak_rate", "tiebreak_lo", "tiebreak_hi")),
        ("more games to decide", P.games("more_games")),
        ("note", P.text("note")),
    ]
    rate_spec = [
        *_setting_cols(),
        ("judge (lineup)", P.text("level")),
        ("design", P.text("design")),
        ("seat", P.seat("seat")),
        ("games", P.integer("games")),
        ("wins", P.integer("wins")),
        (f"raw win % [{c}% CI]", P.rate("win_rate", "win_lo", "win_hi")),
        (f"seat's win % among equals [{c}% CI]", P.rate("seat_rate", "seat_lo", "seat_hi")),
        ("fair share %", P.rate("fair_share")),
        ("equivalence p (TOST)", P.pvalue("tost_p")),
        ("outside-margin p (Holm in the cell)", P.pvalue("outside_p_holm")),
    ]
    sec = Section(
        "seats",
        "1. Seat advantage",
        "Does the turn order decide who wins?",
        charts=[charts.seat_win_rates(rates, margin, confidence, settings_word)],
        tables=[
            Table(
                "seat_verdicts",
                "Verdict per player count, instrument set and judge (lineup); lineups are never pooled",
                cells,
                P.present(cells, cell_spec),
            ),
            Table("seat_win_rates", "Win rate per seat", rates, P.present(rates, rate_spec)),
        ],
    )
    sec.notes.append(f"In plain words: {margin_sentence(margin, gap_margin)}.")
    sec.notes.append(
        f"Balanced: every seat's win rate is shown within ±{100 * margin:.1f} pp of the fair share 1/N "
        + (f"and every two seats within {100 * gap_margin:.1f} pp of each other " if gap_margin is not None else "")
        + f"(two one-sided tests per seat at level {a:.2g}). Error controlled: calling a cell balanced when some "
        f"seat is in truth outside the margin happens at most {100 * a:.0f}% of the time, per cell. "
        "Imbalanced: some seat is shown outside the margin, Holm-corrected over the seats of that cell. Error "
        f"controlled: calling a cell imbalanced when every seat is inside the margin happens at most {100 * a:.0f}% "
        "of the time, per cell. Inconclusive: neither yet; the estimate of further games assumes the observed "
        "win rates are the true ones and aims at 80% power. Ties go to the tied player latest in turn order (R13)."
    )
    sec.notes.append(
        f"The family of each verdict is its own cell (one player count, instrument set and judge), so a cell's "
        f"verdict does not change when other cells are added to the run. Over a run of {len(cells)} cells up to "
        f"{len(cells) * a:.2g} false verdicts may be expected; the columns 'imbalanced run-wide' (Holm over every "
        f"test of the run) and 'balanced run-wide' (level {a:.2g} / {len(cells)} per cell) give the reading that "
        "holds for the whole run at once."
    )
    sec.notes.append(
        "Which design each verdict comes from: a mirror cell (one strategy in every seat) compares seats "
        "directly. A mixed lineup rotated over the seats forces every seat's raw win rate towards 1/N, so it "
        "is judged through a conditional-logit model with a seat and a strategy effect, fitted on the winners "
        "with intervals clustered by deal ('model'); the seat's win rate among equal players is what is tested. "
        "When one strategy wins (almost) every game the seat effects cannot be told apart: 'not judged'."
    )
    sec.notes.append(
        "Largest gap: between the best and the worst seat, with an interval that holds although those two "
        "seats are picked from the data (simultaneous intervals over every pair of seats: Tukey's studentized "
        "range for mirror cells, Bonferroni over the pairs for the model)."
    )
    sec.notes.append(
        "The seat rotations of one deal share its setup, so they are not independent games: every interval "
        "and test in this report counts effective games, the games divided by the design effect measured "
        "between deals (1 = as good as independent games)."
    )
    counts = cells["verdict"].value_counts()
    sec.findings.append(
        "Verdicts: "
        + ", ".join(
            f"{int(counts[v])} {v}"
            for v in (stats.IMBALANCED, stats.BALANCED, stats.INCONCLUSIVE, NOT_JUDGED)
            if v in counts
        )
        + f" (of {len(cells)} cells)."
    )
    shown = cells if len(cells) <= 12 else cells[cells["verdict"] == stats.IMBALANCED].head(12)
    for row in shown.itertuples(index=False):
        sec.findings.append(f"{row.players} players, {row.instruments}, {row.level}: **{row.verdict}**, {row.note}.")
    return sec, adv


def _strategy_section(seats, confidence, seed):
    mixed = any(not is_mirror(lu) for lu in seats["lineup"].astype(str).unique())
    if not mixed:
        # Mirror lineups of different strategies are separate games: the strategies never met.
        seats = seats.iloc[0:0]
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
        *_setting_cols(),
        ("strategy", P.text("strategy")),
        ("seats played", P.integer("seats_played")),
        ("wins", P.integer("wins")),
        (f"win % per seat [{c}% CI]", P.rate("win_rate", "win_lo", "win_hi")),
        ("fair share %", P.rate("fair_share")),
        (f"mean score [{c}% CI]", P.points("score_mean", "score_lo", "score_hi")),
    ]
    h2h_spec = [
        *_setting_cols(),
        ("strategy", P.text("strategy")),
        ("opponent", P.text("opponent")),
        ("shared games", P.integer("games")),
        (f"ahead % [{c}% CI]", P.rate("share", "share_lo", "share_hi")),
    ]
    rating_spec = [
        *_setting_cols(),
        ("strategy", P.text("strategy")),
        ("seat pairs", P.integer("comparisons")),
        (f"strength [{c}% bootstrap CI]", P.points("strength", "strength_lo", "strength_hi", 2)),
        ("beats an average strategy %", P.rate("p_beat_average")),
    ]
    dom_spec = [
        *_setting_cols(),
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
    seat_spec = [*_setting_cols(), ("seat", P.seat("seat")), ("seats", P.integer("n"))]
    seat_spec += [(src, P.points(src)) for src in SOURCES]
    seat_spec.append((f"score [{c}% CI]", P.points("score", "score_lo", "score_hi")))
    win_spec = [*_setting_cols(), ("winners", P.integer("winners")), ("winner score", P.points("winner_score"))]
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
        *_setting_cols(),
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
    levels = games.groupby("players")["lineup"].nunique()
    if (levels <= 1).all():
        return [], []
    groups = {
        "inspector": ["inspector"],
        "objectives": [f"objective_{d}" for d in DEPTS],
        "brag tracks": [f"brag_{d}" for d in DEPTS],
    }
    scoring, unbuilt = [], []
    for players, gp in games.groupby("players", sort=True):
        lineups = list(dict.fromkeys(gp["lineup"].astype(str)))
        if len(lineups) < 2:
            continue
        tops, worsts, s_parts, u_parts = [], [], [], []
        for lu in lineups:
            lv = level_label(lu)
            w = seats[(seats["players"] == players) & (seats["lineup"].astype(str) == lu) & (seats["won"] == 1)]
            total = float(w["score"].sum())
            shares = {k: float(w[cols].to_numpy().sum()) / total if total else float("nan") for k, cols in groups.items()}
            top = max(shares, key=lambda k: shares[k])
            tops.append(top)
            s_parts.append(f"{lv}: {top} {pct(shares[top])}%")
            g = gp[gp["lineup"].astype(str) == lu]
            rates = {str(g[f"inst_{d}"].iloc[0]): float((g[f"built_{d}"] == 0).mean()) for d in DEPTS}
            worst = max(rates, key=lambda k: rates[k])
            worsts.append(worst)
            u_parts.append(f"{lv}: {worst} {pct(rates[worst])}%")
        word = "robust (every judge agrees)" if len(set(tops)) == 1 else "skill-sensitive (judges disagree)"
        scoring.append(f"{players} players, largest share of the winners' points per judge: {'; '.join(s_parts)}: {word}.")
        word = "robust (every judge agrees)" if len(set(worsts)) == 1 else "skill-sensitive (judges disagree)"
        unbuilt.append(f"{players} players, most often unbuilt per judge: {'; '.join(u_parts)} of games: {word}.")
    return scoring, unbuilt


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
    seats, games = run.seats, run.games
    seat_sec, adv = _seat_section(games, margin, confidence, seed, gap_margin)
    if mirror_lineups(games):
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
    mixed = any(not is_mirror(lu) for lu in games["lineup"].astype(str).unique())
    frame, text = headline_table(adv, comp if (mixed and not comp.empty) else None, partial=run.partial)
    # --- instruments out of line and rules that never bite, under the seat headline
    lines = instrument_headline_lines(inst_verdicts) + rule_headline_lines(rules)
    if lines:
        text += "\n\n" + "\n".join(lines)
    # ---
    scenario = run.scenario_name
    desc = str(run.manifest.get("scenario", {}).get("description", ""))
    nsettings = games[list(SETTING[:1]) + ["inst_black", "inst_orange", "inst_gray"]].drop_duplicates().shape[0]
    if varies_instruments(games):
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
        about=about_lines(games),
    )


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
    from reports.game_report import is_game_run, make_game_report

    game = is_game_run(results_dir)
    if game is not None:
        if instrument_margins:
            from simulator import games as registry

            raise ReportInputError("--instrument-margin", ",".join(instrument_margins),
                                   f"a {registry.get(game).title} run has no instruments to judge; leave the option out")
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
    out = Path(out_dir) if out_dir is not None else Path(results_dir) / "report"
    return report, write_report(report, out)


__all__ = ["Report", "RunData", "Section", "Table", "build_report", "make_report", "write_report"]
