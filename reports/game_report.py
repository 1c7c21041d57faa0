"""The balance report of a run of another game than Shuffle and Swing (``scenarios.generic``).

It reads only the result tables and the manifest (which names the game and declares its columns),
never the kernel. Sections:

1. Seat advantage: :func:`reports.seats.seat_advantage`, unchanged, on the games table with the
   setting (board / variant / lineup) in place of the instrument set; games that reached the stall
   cap (no winner) are left out of it and counted in section 3.
2. Variants: :func:`reports.variants.compare_variants`, the variants on the same deals.
3. Game shape: rounds, stalled games and the per-seat counters the game declares.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from reports import present as P
from reports import stats
from reports.answers import answer_text, variant_answers
from reports.document import Report, Section, Table, write_report
from reports.seat_section import seat_section
from reports.frames import deal_ids, with_setting
from reports.headline import (
    ONE_JUDGE,
    OPEN,
    ROBUST,
    SKILL_SENSITIVE,
    headline_frame,
    render_text,
    setting_agreement,
)
from reports.io import ReportInputError
from reports.seats import level_label
from reports.variants import compare_variants

@dataclass
class GameReport(Report):
    game: str = ""

    @property
    def title(self):
        from simulator import games as registry

        return f"{registry.get(self.game).title} balance report: {self.scenario}"

    @property
    def setting_words(self):
        return "player count x board x variant"


def is_game_run(results_dir):
    """The game a run directory names in its manifest, if it is not the default game; else None."""
    import json

    path = Path(results_dir) / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict):
        return None  # (the run's loader refuses it, naming the file)
    from simulator import games as registry

    game = manifest.get("game")
    return game if game and registry.get(game).name != registry.DEFAULT_GAME else None


def load_game_run(results_dir, allow_partial=False):
    from scenarios.results import load_results
    from simulator.errors import DataError

    try:
        seats, games, manifest = load_results(results_dir, allow_partial=allow_partial)
    except DataError as exc:
        raise ReportInputError(exc.file, exc.key, exc.reason) from None
    if len(games) == 0:
        raise ReportInputError(results_dir, "", "the run holds no finished game yet: nothing to report")
    return seats, games, manifest


def seat_frame(games):
    """The games table in the shape ``seat_advantage`` reads: the setting as the instrument label;
    games that stalled (no winner) left out; a game that records no ties (no ``tied`` column) has none."""
    g = (games[games["stalled"] == 0] if "stalled" in games.columns else games).copy()
    g["inst_black"] = g["board"].astype(str)
    g["inst_orange"] = g["variant"].astype(str)
    g["inst_gray"] = g["lineup"].astype(str)
    if "tied" not in g.columns:
        g["tied"] = 1
    if "tiebreak" not in g.columns:
        g["tiebreak"] = 0
    return g


SETTING_TITLE = "board/variant"


def _setting_view(adv, games):
    """The seat verdicts with a ``setting`` column (board/variant) in place of the instrument label."""
    g = seat_frame(games)
    label = with_setting(g)["instruments"]
    setting_of = dict(zip(label, g["board"].astype(str) + "/" + g["variant"].astype(str), strict=True))
    cells = adv.cells.assign(setting=adv.cells["instruments"].map(setting_of))
    return replace(adv, cells=cells)


# A variant's switches in the designer's words (the answer sentences name what a variant does).
SWITCH_WORDS = {
    ("catch_up", True): "the catch-up tokens",
    ("pickup_order", "random"): "drawing the set-up order",
    ("pickup_order", "turn"): "the set-up in turn order",
    ("pickup_order", "reverse"): "the set-up in reverse turn order",
    ("roll_every_turn", True): "rolling every turn",
    ("home_stretch", True): "the home stretch",
}


def variant_words(manifest):
    """variant -> what it changes, in words (``'drawing the set-up order and the catch-up tokens'``),
    from the scenario text the manifest keeps; a variant without known switches by its name."""
    import tomllib

    try:
        doc = tomllib.loads(manifest.get("scenario", {}).get("text", ""))
    except tomllib.TOMLDecodeError:
        return {}
    out = {}
    for name, switches in (doc.get("variants") or {}).items():
        words = []
        for key, value in (switches or {}).items():
            w = SWITCH_WORDS.get((key, value))
            words.append(w if w else f"{key.replace('_', ' ')} {value}")
        if words:
            out[name] = " and ".join(words)
    return out


def _headline(adv, games, margin, confidence, partial):
    """The headline, :mod:`reports.headline` on this game's settings: a row per player count,
    board/variant and judge level (each mirror lineup of the scenario), the seat verdict of each
    judge and the call across judges (robust / skill-sensitive / open / one judge)."""
    view = _setting_view(adv, games)
    cells = view.cells
    frame = headline_frame(view, setting="setting", setting_title=SETTING_TITLE, per_setting=True)
    text = render_text(frame, margin, confidence, partial, gap_margin=adv.gap_margin, setting_title=SETTING_TITLE)
    agree = setting_agreement(cells, "setting")
    counts = agree["across judges"].value_counts()
    judges = " and ".join(dict.fromkeys(str(lv).rsplit(" x", 1)[0] for lv in cells["level"]))
    summary = (
        f"Across judges ({judges}): "
        + ", ".join(f"{int(counts[k])} {k}" for k in (ROBUST, SKILL_SENSITIVE, OPEN, ONE_JUDGE) if k in counts)
        + f" of {len(agree)} settings."
    )
    return frame, text + "\n\n  " + summary


def _variant_section(games, reference, margin, confidence, seed):
    """``(Section, changes)``: the variants section and its change table (the answers read it)."""
    seats, changes, settings = compare_variants(games, reference, margin, confidence, seed)
    for t in (seats, changes, settings):
        if len(t):
            t["judge"] = t["lineup"].map(level_label)
    c = int(100 * confidence)
    sec = Section("variants", "2. Variants", "What does each variant change, on the same deals?")
    base_cols = [("players", P.integer("players")), ("board", P.text("board")), ("judge (lineup)", P.text("judge"))]
    set_spec = [
        *base_cols,
        ("variant", P.text("variant")),
        ("deals", P.integer("deals")),
        (f"rounds [{c}% CI]", P.points("rounds", "rounds_lo", "rounds_hi")),
        (f"unfairness: seat furthest from the seats' mean, pp [{c}% CI]", P.pp("unfairness", "unfairness_lo", "unfairness_hi")),
        ("fairest", P.text("fairest")),
        ("fairest shown fairer than the next", P.text("fairest_shown")),
    ]
    seat_spec = [
        *base_cols,
        ("variant", P.text("variant")),
        ("seat", P.seat("seat")),
        (f"win % [{c}% CI]", P.rate("win_rate", "win_lo", "win_hi")),
        ("deviation from 1/N, pp", P.pp("deviation")),
    ]
    sec.tables.append(Table("variant_settings", "Game length and unfairness per variant", settings, P.present(settings, set_spec)))
    sec.tables.append(Table("variant_seat_win_rates", "Win rate per seat and variant", seats, P.present(seats, seat_spec)))
    if len(changes):
        ch_spec = [
            *base_cols,
            ("variant", P.text("variant")),
            ("vs", P.text("reference")),
            ("what", P.text("what")),
            (f"change [{c}% CI]", P.text("change_text")),
            ("verdict", P.text("verdict")),
            ("equivalence p (TOST)", P.pvalue("tost_p")),
            ("outside-margin p (before Holm)", P.pvalue("outside_p")),
        ]
        changes = changes.copy()
        changes["change_text"] = [
            (
                f"{100 * r.change:+.1f} pp [{100 * r.change_lo:+.1f}, {100 * r.change_hi:+.1f}]"
                if r.seat >= 0
                else f"{r.change:+.2f} [{r.change_lo:+.2f}, {r.change_hi:+.2f}]"
            )
            for r in changes.itertuples(index=False)
        ]
        sec.tables.append(Table("variant_changes", f"Change against '{reference}', paired by deal", changes, P.present(changes, ch_spec)))
    sec.notes.append(
        "Each line compares variants within one judge (the lineup named in the judge column, e.g. 'greedy x4': "
        "greedy players in every seat); judges are never pooled, and a judge's deals are its own. Seats are "
        "numbered from 1, seat 1 playing first."
    )
    sec.notes.append(
        f"Every variant of a player count, board and lineup plays the same deals. A seat's change is the mean over "
        f"deals of (win under the variant - win under '{reference}'), with a t interval over deals. Unchanged: two "
        f"one-sided tests show the change within ±{100 * margin:.1f} pp; changed: shown beyond it, Holm-corrected over "
        "every seat change of the section (the error controlled is a false 'changed' anywhere in the section); "
        "inconclusive otherwise. Unfairness is the largest distance of a seat's win rate from the seats' mean (1/N "
        "when every game has a winner; a stalled game, a win for nobody, lowers every seat alike), with a bootstrap "
        "interval over deals; the fairest variant's lead counts as shown when the one-sided bootstrap interval of "
        "its difference to the runner-up excludes 0 at the report's level."
    )
    for key, part in settings.groupby(["players", "board", "lineup"], sort=True):
        best = part[part["fairest"]].iloc[0]
        rest = part[part["variant"] != best["variant"]].sort_values("unfairness")
        runner = str(rest["variant"].iloc[0]) if len(rest) else ""
        if not runner:
            shown = "the only variant"
        elif best["fairest_shown"]:
            shown = f"shown fairer than the next fairest, {runner}"
        else:
            shown = f"not shown fairer than the next fairest, {runner}"
        others = ", ".join(f"{r.variant} {100 * r.unfairness:.1f}" for r in part.itertuples(index=False) if r.variant != best["variant"])
        sec.findings.append(
            f"{key[0]} players, {key[1]}, judge {level_label(key[2])}: fairest **{best['variant']}** (the seat furthest from the "
            f"seats' mean is {100 * best['unfairness']:.1f} pp [{100 * best['unfairness_lo']:.1f}, {100 * best['unfairness_hi']:.1f}] from it; "
            f"others: {others} pp; {shown})."
        )
    if len(changes):
        rc = changes[changes["seat"] < 0]
        for r in rc.itertuples(index=False):
            sec.findings.append(
                f"{r.players} players, {r.board}, judge {r.judge}, {r.variant}: rounds {r.change:+.2f} [{r.change_lo:+.2f}, {r.change_hi:+.2f}] ({r.verdict})."
            )
    return sec, changes


def _shape_section(seats, games, confidence, seat_columns):
    g = games.copy()
    g["_deal"] = deal_ids(g)
    rows = []
    for key, part in g.groupby(["players", "board", "variant", "lineup"], sort=True):
        st, lo, hi, _ = stats.wilson_clustered(part["stalled"].to_numpy(), part["_deal"].to_numpy(), confidence)
        r, rlo, rhi = stats.mean_interval(part["rounds"].to_numpy(dtype=float), confidence, cluster=part["_deal"].to_numpy())[:3]
        rows.append(
            {"players": key[0], "board": key[1], "variant": key[2], "judge": level_label(key[3]), "games": len(part), "rounds": r, "rounds_lo": rlo, "rounds_hi": rhi, "stalled": st, "stalled_lo": lo, "stalled_hi": hi}
        )
    shape = pd.DataFrame(rows)
    c = int(100 * confidence)
    spec = [
        ("players", P.integer("players")),
        ("board", P.text("board")),
        ("variant", P.text("variant")),
        ("judge (lineup)", P.text("judge")),
        ("games", P.integer("games")),
        (f"rounds [{c}% CI]", P.points("rounds", "rounds_lo", "rounds_hi")),
        (f"stalled % [{c}% CI]", P.rate("stalled", "stalled_lo", "stalled_hi")),
    ]
    own = list(seat_columns)[list(seat_columns).index("strategy") + 1 :] if "strategy" in seat_columns else list(seat_columns)
    counters = [k for k in own if k not in ("won", "rank")]
    per_seat = seats.groupby(["players", "board", "variant", "lineup", "seat"], sort=True)[counters].mean().reset_index()
    per_seat["judge"] = per_seat["lineup"].map(level_label)
    seat_spec = [(k, P.text(k)) for k in ("players", "board", "variant")] + [("judge (lineup)", P.text("judge")), ("seat", P.seat("seat"))] + [
        (k.replace("_", " "), (lambda name: (lambda row: f"{row[name]:.2f}"))(k)) for k in counters
    ]
    sec = Section("shape", "3. Game shape", "How long are the games, how often do they stall, what does each seat do?")
    sec.tables.append(Table("game_shape", "Rounds and stalled games", shape, P.present(shape, spec)))
    sec.tables.append(Table("seat_counters", "Mean per game of each seat's counters", per_seat, P.present(per_seat, seat_spec)))
    stalled = int(games["stalled"].sum())
    sec.findings.append(f"{stalled:,} of {len(games):,} games reached the stall cap (left out of section 1).")
    return sec


def build_game_report(seats, games, manifest, margin=0.03, confidence=0.95, seed=0, source="", partial=False,
                      gap_margin=None):
    from simulator import games as registry

    game = manifest.get("game", "")
    declared = registry.get(game)
    reference = manifest.get("settings", {}).get("reference") or str(games["variant"].iloc[0])
    seat_sec, adv = seat_section(seat_frame(games), margin, confidence, seed, gap_margin=gap_margin,
                                  settings_word="settings (board / variant)")
    adv = replace(adv, game=declared)  # its judges ranked on the game's ladder (reports.answers)
    notes = ["The setting column reads board/variant/lineup."]
    if "stalled" in games.columns:
        notes.append("Games stopped by the stall cap have no winner and are left out here.")
    seat_sec.notes = [n.replace("instrument set", "board/variant/lineup") for n in seat_sec.notes
                      if "tie-break" not in n or "tied" in games.columns] + [" ".join(notes + list(declared.report_notes))]
    sections = [seat_sec]
    changes = None
    if games["variant"].nunique() > 1:
        var_sec, changes = _variant_section(games, reference, margin, confidence, seed)
        sections.append(var_sec)
    sections.append(_shape_section(seats, games, confidence, manifest.get("columns", {}).get("seats", [])))
    frame, text = _headline(adv, games, margin, confidence, partial)
    answers = variant_answers(_setting_view(adv, games), changes, reference, variant_words(manifest))
    text = answer_text(answers, [], text, partial)
    return GameReport(
        scenario=manifest.get("scenario", {}).get("name", ""),
        description=str(manifest.get("scenario", {}).get("description", "")),
        source=source,
        partial=partial,
        partial_reason="",
        margin=margin,
        confidence=confidence,
        games=len(games),
        settings=int(games[["players", "board", "variant"]].drop_duplicates().shape[0]),  # judges are not settings
        headline=frame,
        headline_text=text,
        sections=sections,
        generated=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        game=game,
        answers=answers,
    )


def make_game_report(results_dir, out_dir=None, margin=0.03, confidence=0.95, allow_partial=False, seed=0, gap_margin=None):
    seats, games, manifest = load_game_run(results_dir, allow_partial)
    partial = manifest.get("status") != "complete"
    rep = build_game_report(seats, games, manifest, margin, confidence, seed, str(results_dir), partial, gap_margin)
    from reports.feel_section import add_feel  # the game-feel section, when the run recorded the lead

    add_feel(rep, results_dir)
    out = Path(out_dir) if out_dir is not None else Path(results_dir) / "report"
    return rep, write_report(rep, out)


__all__ = ["build_game_report", "make_game_report", "is_game_run", "seat_frame", "GameReport"]

