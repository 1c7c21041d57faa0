"""The seat verdicts of a sequential run, in the report's cells and rates tables.

A sequential run (:mod:`scenarios.sequential`) stopped each mirror cell at the first look where
its anytime-valid verdict was decided, so the fixed-n tests of :mod:`stats.tests` would overstate
what the games show. :func:`apply_sequential` judges those cells again from the result tables with
the very tests the run stopped on (:mod:`stats.sequences`), at the games played, and adds
the record columns (``seq_*``, documented in docs/guide/sequential.md, "The record"):

``seq_decided`` (bool), ``seq_decided_at`` (games at the deciding look, NaN if undecided),
``seq_stop`` (why the cell stopped: decided / budget / cap / seconds), ``seq_seat`` (0-based worst
seat), ``seq_rate``, ``seq_lo``, ``seq_hi`` (its win rate and 95% confidence sequence),
``seq_edge`` (the margin edge nearest it), ``seq_on_margin`` (undecided because the estimate sits on
the margin), ``seq_more_games`` (games beyond those played that would decide it at the current
estimates; inf when none would), ``seq_test`` (``zone`` or ``interval``), ``seq_note`` (one sentence),
``seq_named`` (zone test: every seat shown off, JSON ``[[seat, +1 above / -1 below]]``, the first
the ``seq_seat``), ``seq_leaning`` (zone test: the seats whose evidence leans off without showing it).

Under the zone test a seat's interval (``seat_lo``, ``seat_hi`` of the rates, ``seq_lo``, ``seq_hi``)
is the verdict's own (:func:`stats.zone.verdict_intervals`: each end a one-sided
bound at the level of the word), so it never contradicts the word; ``win_lo``, ``win_hi`` and the
best - worst gap keep the mixture sequences simultaneous over the seats (the "raw" reading).

A run that proved its strong judge (:mod:`scenarios.sequential_proof`) adds ``proof`` to the cells
that judge judged: the words of its setting's proof (shown stronger than the reference here, with
its figure, interval and deals, or resting on an unproven judge), said beside its verdict.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from scenarios import sequential_proof as SQP
from stats import sequences as SS
from stats import tests as stats
from reports.frames import games_text, pct

SEQ_COLUMNS = (
    "seq_decided",
    "seq_decided_at",
    "seq_stop",
    "seq_seat",
    "seq_rate",
    "seq_lo",
    "seq_hi",
    "seq_edge",
    "seq_on_margin",
    "seq_more_games",
    "seq_test",
    "seq_note",
    "seq_named",
    "seq_leaning",
)


def _pp(x):
    return f"{100 * x:+.1f} pp"


STOP_WORDS = {
    "budget": "its judge's cap of games ran out",
    "cap": "the cell's cap of games ran out",
    "seconds": "the run's budget of CPU seconds ran out",
    "set": "its instrument set's verdict was decided first",
    "reference": "every set compared with it was decided first",
}


def _seat_clause(rec, seat, way, share):
    """``seat 4 above, 39.1% (+5.8 pp, [36.9, 41.2])``: one seat of a record, said with its interval."""
    s = rec["seats"][seat]
    return (f"seat {seat + 1} {'above' if way > 0 else 'below'}, {pct(s['rate'])}% ({_pp(s['rate'] - share)}, "
            f"[{100 * s['lo']:.1f}, {100 * s['hi']:.1f}])")


def sequential_note(rec, games, margin, stop=None):
    """One sentence for a sequentially judged cell (``rec``: :func:`SS.cell_record`)."""
    seat = rec["worst_seat"] + 1
    share = rec["fair"]
    span = f"[{100 * rec['worst_lo']:.1f}, {100 * rec['worst_hi']:.1f}]"
    m = f"{100 * margin:g}"
    zone = rec.get("test") == "zone"
    d = rec.get("indifference") or 0.0
    if rec["verdict"] == stats.FAIR:
        if zone:
            return (
                f"decided fair at {games_text(games)} games: every seat shown within {100 * (margin + d):g} pp of "
                f"{pct(share)}% (the {m}-point margin and its {100 * d:g}-point zone; furthest: seat {seat}, "
                f"{_pp(rec['worst_rate'] - share)}, {span})"
            )
        return (
            f"decided fair at {games_text(games)} games: every seat within {m} pp of {pct(share)}% "
            f"(furthest: seat {seat}, {_pp(rec['worst_rate'] - share)}, {span})"
        )
    if rec["verdict"] == stats.UNFAIR:
        if zone:
            named = rec.get("named") or [[rec["worst_seat"], 1 if rec["worst_rate"] >= share else -1]]
            shown = "; ".join(_seat_clause(rec, k, way, share) for k, way in named)
            text = (
                f"decided unfair at {games_text(games)} games: {shown}, shown more than {100 * (margin - d):g} pp "
                f"off its fair share of {pct(share)}% (the {m}-point margin less its {100 * d:g}-point zone)"
            )
            leaning = rec.get("leaning") or []
            if leaning:
                text += "; leaning off too, not shown: " + "; ".join(_seat_clause(rec, k, way, share) for k, way in leaning)
            return text
        return (
            f"decided unfair at {games_text(games)} games: seat {seat} wins {pct(rec['worst_rate'])}% "
            f"({_pp(rec['worst_rate'] - share)} vs {pct(share)}%, {span}), outside the {m} pp margin"
        )
    more = rec["more_games"]
    cost = (
        f"deciding would take about {games_text(more)} more games"
        if more is not None
        else "no number of games would decide it at this estimate"
    )
    why = STOP_WORDS.get(stop, "the budget ran out")
    if rec["on_margin"]:
        return (
            f"seat {seat} wins {span}: on the {m}-point margin (a narrow interval across its edge), so neither "
            f"fair nor unfair is shown after {games_text(games)} games; {cost}"
        )
    return f"not decided: {why} at {games_text(games)} games (seat {seat} at {_pp(rec['worst_rate'] - share)}, {span}); {cost}"


def _check_stored(run_rec, rec, n, sequential):
    """The run's recorded verdict word of a cell against the word judged again from the tables with
    the run's own test, at the same games: a record that disagrees was edited, and is refused
    (records are judged again, never trusted). A record's older word for the same verdict
    (``balanced`` for fair) is the same word."""
    # An older record says balanced / imbalanced / inconclusive for fair / unfair / undecided (stats.words).
    if not run_rec or run_rec.get("games") != n or stats.verdict_word(run_rec.get("verdict")) == rec["verdict"]:
        return
    from reports.io import ReportInputError

    i = next(k for k, r in enumerate(sequential.get("cells", [])) if r is run_rec)
    raise ReportInputError(
        sequential.get("source", "manifest.json"), f"sequential.cells[{i}].verdict",
        f"says '{run_rec.get('verdict')}', the tables say '{rec['verdict']}' for cell {run_rec.get('cell')} at "
        f"{n:,} games: the record was edited; start the run over with --force")


def apply_sequential(cells, rates, games, sequential, margin, confidence, cell_keys=("players", "instruments", "lineup")):
    """Judge the mirror cells of ``cells`` (one row per cell, in the order of ``rates['_k']``) with
    the sequential tests; changes ``cells`` and ``rates`` in place. ``games`` is the games table
    (its ``cell`` column names the run's cell index) with the setting's label, ``cell_keys`` the
    columns a seat cell is told by (``reports.frames.Setting.cell``); ``sequential`` the manifest's record.

    Every interval beside a sequential verdict is a confidence sequence: the seats' simultaneous
    over the seats the verdict reads, the best - worst gap from those, the tie and tie-break shares
    each at the run's confidence (one game per deal in a mirror cell)."""
    settings = sequential.get("settings", {})
    run_margin = float(settings.get("margin", margin))
    run_conf = float(settings.get("confidence", confidence))
    test = settings.get("test", "interval")
    indifference = settings.get("indifference")
    records = {r["cell"]: r for r in sequential.get("cells", []) if isinstance(r, dict) and "cell" in r}
    first_cell = games.groupby(list(cell_keys), sort=True)["cell"].first().to_numpy()
    for col in SEQ_COLUMNS:
        cells[col] = pd.Series([None] * len(cells), dtype=object, index=cells.index)
    alpha = stats.alpha_of(run_conf)
    if test == "zone":
        cells.attrs["indifference"] = indifference
        rates.attrs["verdict_intervals"] = True  # seat_lo / seat_hi: the verdicts' own (the chart says so)
    mirror_rows = [i for i in range(len(cells)) if cells.at[i, "design"] == "mirror"]
    for i in mirror_rows:
        part = rates[rates["_k"] == i].sort_values("seat")
        players = int(cells.at[i, "players"])
        n = int(cells.at[i, "games"])
        wins = part["wins"].to_numpy()
        r = SS.prior_strength(players, run_margin, run_conf)
        run_rec = records.get(int(first_cell[i]), {})
        rec = SS.cell_record(wins, n, players, run_margin, run_conf, r, affordable=run_rec.get("cap"), test=test,
                             indifference=indifference)
        _check_stored(run_rec, rec, n, sequential)
        k = len(mirror_rows)
        cells.at[i, "verdict"] = rec["verdict"]
        cells.at[i, "tost_p"] = rec["tost_p"]
        cells.at[i, "outside_p_holm"] = rec["outside_p"]
        cells.at[i, "imbalanced_run"] = bool(rec["outside_p"] * k < alpha)
        cells.at[i, "balanced_run"] = bool(rec["tost_p"] * k < alpha)
        cells.at[i, "gap"], cells.at[i, "gap_lo"], cells.at[i, "gap_hi"] = rec["gap"], rec["gap_lo"], rec["gap_hi"]
        for name in ("tie", "tiebreak"):
            count = float(cells.at[i, f"{name}s"]) if f"{name}s" in cells.columns else math.nan
            if math.isfinite(count) and n > 0:
                lo, hi = SS.confidence_sequence(count, n, r, run_conf)
                cells.at[i, f"{name}_lo"], cells.at[i, f"{name}_hi"] = lo, hi
        more = rec["more_games"]
        undecided = not rec["decided"]
        cells.at[i, "more_games"] = (math.inf if more is None else float(more)) if undecided else math.nan
        stop = run_rec.get("stop") or ("decided" if rec["decided"] else "budget")
        cells.at[i, "seq_decided"] = rec["decided"]
        cells.at[i, "seq_decided_at"] = float(n) if rec["decided"] else math.nan
        cells.at[i, "seq_stop"] = stop
        cells.at[i, "seq_seat"] = rec["worst_seat"]
        cells.at[i, "seq_rate"] = rec["worst_rate"]
        cells.at[i, "seq_lo"] = rec["worst_lo"]
        cells.at[i, "seq_hi"] = rec["worst_hi"]
        cells.at[i, "seq_edge"] = rec["edge"]
        cells.at[i, "seq_on_margin"] = rec["on_margin"]
        cells.at[i, "seq_more_games"] = cells.at[i, "more_games"]
        cells.at[i, "seq_test"] = test
        cells.at[i, "seq_note"] = sequential_note(rec, n, run_margin, stop)
        cells.at[i, "seq_named"] = json.dumps([list(x) for x in rec.get("named") or []])
        cells.at[i, "seq_leaning"] = json.dumps([list(x) for x in rec.get("leaning") or []])
        idx = part.index
        if rec["row_tost_p"] is not None:
            rates.loc[idx, "tost_p"] = np.asarray(rec["row_tost_p"])
            rates.loc[idx, "outside_p_holm"] = np.asarray(rec["row_outside_p"])
        else:
            rates.loc[idx, "tost_p"] = rec["tost_p"]
            rates.loc[idx, "outside_p_holm"] = rec["outside_p"]
        rates.loc[idx, "seat_lo"] = [s["lo"] for s in rec["seats"]]
        rates.loc[idx, "seat_hi"] = [s["hi"] for s in rec["seats"]]
        rates.loc[idx, "win_lo"] = [s.get("sim_lo", s["lo"]) for s in rec["seats"]]
        rates.loc[idx, "win_hi"] = [s.get("sim_hi", s["hi"]) for s in rec["seats"]]
    proofs = SQP.proof_records(sequential)
    if proofs:
        cells["proof"] = pd.Series([None] * len(cells), dtype=object, index=cells.index)
        for i in mirror_rows:
            p = proofs.get(int(first_cell[i]))
            if p is not None:
                cells.at[i, "proof"] = SQP.proof_note(p)
                cells.at[i, "seq_note"] = f"{cells.at[i, 'seq_note']}; {cells.at[i, 'proof']}"
