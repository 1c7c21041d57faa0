"""Section 1 of a balance report, every game's: who wins by seat, per setting, with the seat
verdict of each cell (:func:`reports.seats.seat_advantage`), on the game's setting columns
(:class:`reports.frames.Setting`) and with the rulings it declares (``Game.report_notes``)."""

from __future__ import annotations

from reports import charts
from stats import tests as stats
from reports import present as P
from reports.document import Section, Table
from reports.frames import DEFAULT_SETTING
from reports.seats import NOT_JUDGED, margin_sentence, seat_advantage


def setting_cols(setting=None):
    """The columns naming a cell's setting in a section table: players, and the setting's label
    under its title (``instruments`` for the default game)."""
    setting = setting or DEFAULT_SETTING
    return [("players", P.integer("players")), (setting.title, P.text(setting.label))]


def default_rulings():
    """The rulings the registry's default game's report names (``Game.report_notes``)."""
    from simulator import games as registry

    return tuple(registry.get().report_notes)


def sequential_method(settings, alpha):
    """The method note of a sequential run's mirror cells (docs/guide/sequential.md)."""
    m = 100 * float(settings.get("margin", 0.03))
    every = ("Every interval beside a sequential verdict is a confidence sequence (it holds at every look at once, "
             "so it stays true although the run chose when to stop): the seats' simultaneous over the seats the "
             "verdict reads, the best - worst gap taken from them, the tie and tie-break shares each at "
             f"{100 * (1 - alpha):.0f}%; a mirror cell plays one game per deal, so deals are the unit.")
    if settings.get("test", "interval") == "zone":
        d = 100 * float(settings.get("indifference", 0.01))
        a = 100 * alpha
        every = (
            "Two intervals, two procedures. A seat's interval beside its verdict ('seat's win % among equals', the "
            "glance matrix, the sentences, the notes) is the verdict's own: the confidence sequence dual to the zone "
            "test, each end a one-sided bound at the level of the word (a fair cell: every seat at "
            f"{a:.0f}% per end, so it lies within {m + d:g} points; an unfair cell: a named seat at its Holm level, "
            f"the others and an undecided cell's at {a:.0f}% over the 2N seat-sides), so an interval never "
            "contradicts its word; it resolves rates to the zone and no finer (about the estimate +- "
            f"{d:g} points at the least). The 'raw win %' interval and the best - worst gap are the mixture "
            "confidence sequences, simultaneous over the seats at "
            f"{100 * (1 - alpha):.0f}%; the tie and tie-break shares each at {100 * (1 - alpha):.0f}%. Every one holds "
            "at every look at once; a mirror cell plays one game per deal, so deals are the unit."
        )
        return (
            f"Sequential run, indifference-zone test: each cell was looked at after every round and stopped at its "
            f"first decided look. Fair: every seat shown within {m + d:g} points of 1/N (the {m:g}-point margin and a "
            f"{d:g}-point zone); the chance of calling a cell fair when some seat is {m + d:g} points or more off is at "
            f"most {100 * alpha:.0f}%. Unfair: a named seat shown more than {m - d:g} points off in a named direction; "
            f"the chance of naming a seat that is in truth within {m - d:g} points is at most {100 * alpha:.0f}% "
            "(Holm over the seat-sides, every seat judged, two players too). Every seat shown off is named; a seat "
            "whose evidence leans off without showing it when the run stops is said as leaning. A seat between the "
            "two is near the margin either word may be said of. " + every
        )
    return ("Sequential run, interval test: each cell stopped at its first look where its seats were shown inside or "
            f"outside the {m:g}-point margin (anytime-valid tests, errors at most {100 * alpha:.0f}% each). " + every)


def seat_section(games, margin, confidence, seed, gap_margin=None, settings_word=None, sequential=None, setting=None,
                 rulings=None):
    """``(Section, SeatAdvantage)``: section 1 on ``games`` (``setting``: the game's
    :class:`reports.frames.Setting`, default the default game's; ``rulings``: the sentences its rules
    add to the method note, default the default game's)."""
    setting = setting or DEFAULT_SETTING
    rulings = default_rulings() if rulings is None else tuple(rulings)
    settings_word = settings_word or setting.many
    adv = seat_advantage(games, margin, confidence, seed, gap_margin=gap_margin, sequential=sequential, setting=setting)
    cells, rates = adv.cells, adv.rates
    c = int(100 * confidence)
    a = stats.alpha_of(confidence)
    cell_spec = [
        *setting_cols(setting),
        ("judge (lineup)", P.text("level")),
        ("design", P.text("design")),
        ("games", P.integer("games")),
        ("effective games", P.integer("effective_games")),
        ("verdict", P.text("verdict")),
        (f"best - worst seat, pp [{c}% simultaneous CI] (the margin is per seat)", P.pp("gap", "gap_lo", "gap_hi")),
        ("best seat", P.seat("best_seat")),
        ("worst seat", P.seat("worst_seat")),
        ("chi-square p vs 1/N", P.pvalue("chi2_p")),
        ("equivalence p (TOST)", P.pvalue("tost_p")),
        ("outside-margin p (Holm in the cell)", P.pvalue("outside_p_holm")),
        ("unfair run-wide", lambda r: "yes" if r["imbalanced_run"] else ""),
        ("fair run-wide", lambda r: "yes" if r["balanced_run"] else ""),
        (f"ties % [{c}% CI]", P.rate("tie_rate", "tie_lo", "tie_hi")),
        (f"decided by tie-break % [{c}% CI]", P.rate("tiebreak_rate", "tiebreak_lo", "tiebreak_hi")),
        ("more games to decide", P.games("more_games")),
        ("note", P.text("note")),
    ]
    rate_spec = [
        *setting_cols(setting),
        ("judge (lineup)", P.text("level")),
        ("design", P.text("design")),
        ("seat", P.seat("seat")),
        ("games", P.integer("games")),
        ("wins", P.integer("wins")),
        (f"raw win % [{c}% CI]", P.rate("win_rate", "win_lo", "win_hi")),
        ("seat's win % among equals [its verdict's interval]" if rates.attrs.get("verdict_intervals")
         else f"seat's win % among equals [{c}% CI]", P.rate("seat_rate", "seat_lo", "seat_hi")),
        ("fair share %", P.rate("fair_share")),
        ("equivalence p (TOST)", P.pvalue("tost_p")),
        ("outside-margin p (Holm in the cell)", P.pvalue("outside_p_holm")),
    ]
    sec = Section(
        "seats",
        "1. Seat advantage",
        "Does the turn order decide who wins?",
        charts=[charts.seat_win_rates(rates, margin, confidence, settings_word, setting.label)],
        tables=[
            Table(
                "seat_verdicts",
                f"Verdict per player count, {setting.words} and judge (lineup); lineups are never pooled",
                cells,
                P.present(cells, cell_spec),
            ),
            Table("seat_win_rates", "Win rate per seat", rates, P.present(rates, rate_spec)),
        ],
    )
    sec.notes.append(f"In plain words: {margin_sentence(margin, gap_margin)}.")
    if sequential:
        sec.notes.append(sequential_method(sequential.get("settings", {}), a))
    sec.notes.append(
        f"Fair: every seat's win rate is shown within ±{100 * margin:.1f} pp of the fair share 1/N "
        + (f"and every two seats within {100 * gap_margin:.1f} pp of each other " if gap_margin is not None else "")
        + f"(two one-sided tests per seat at level {a:.2g}). Error controlled: calling a cell fair when some "
        f"seat is in truth outside the margin happens at most {100 * a:.0f}% of the time, per cell. "
        "Unfair: some seat is shown outside the margin, Holm-corrected over the seats of that cell. Error "
        f"controlled: calling a cell unfair when every seat is inside the margin happens at most {100 * a:.0f}% "
        "of the time, per cell. Undecided: neither yet; the estimate of further games assumes the observed "
        "win rates are the true ones and aims at 80% power." + "".join(f" {r}" for r in rulings)
    )
    if rates.attrs.get("verdict_intervals") and not sequential:
        sec.notes.append(
            "A seat's interval beside its verdict ('seat's win % among equals', the glance matrix, the sentences) is "
            "the interval of that word's own test (exact, on the effective games): in a fair cell the TOST's "
            f"{100 * (1 - 2 * a):.0f}% interval (each end a one-sided bound at level {a:.2g}), inside the margin for "
            "every seat; in an unfair cell a seat shown outside at its Holm level, beyond the margin; the other "
            f"seats and an undecided cell's at level {a:.2g} over the 2N seat-sides. The 'raw win %' interval is a "
            f"{c}% Wilson interval."
        )
    sec.notes.append(
        f"The family of each verdict is its own cell (one player count, {setting.words} and judge), so a cell's "
        f"verdict does not change when other cells are added to the run. Over a run of {len(cells)} cells up to "
        f"{len(cells) * a:.2g} false verdicts may be expected; the columns 'unfair run-wide' (Holm over every "
        f"test of the run) and 'fair run-wide' (level {a:.2g} / {len(cells)} per cell) give the reading that "
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
        "Best - worst seat: the gap between the seat winning most and the seat winning least, a description (the "
        "verdict's margin is per seat, each seat against 1/N, so a 7-point gap can sit beside 'undecided'), with "
        "an interval that holds although those two "
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
            for v in (stats.UNFAIR, stats.FAIR, stats.UNDECIDED, NOT_JUDGED)
            if v in counts
        )
        + f" (of {len(cells)} cells)."
    )
    shown = cells if len(cells) <= 12 else cells[cells["verdict"] == stats.UNFAIR].head(12)
    for row in shown.itertuples(index=False):
        sec.findings.append(f"{row.players} players, {getattr(row, setting.label)}, {row.level}: **{row.verdict}**, {row.note}.")
    return sec, adv
