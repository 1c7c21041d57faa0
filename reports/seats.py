"""Section 1, seat advantage: does the turn order decide who wins?

Seat balance is judged only from designs that can show it, one *cell* (player count x setting, an
instrument set or another game's board and variant, x lineup) at a time; lineups are never pooled:

* **mirror cells** (one strategy in every seat): each seat's win rate against the fair share 1/N.
  With equal players in every seat, a difference between seats can only come from the seats.
* **mixed cells** (several strategies, rotated over the seats): the raw win rate of a seat is
  forced towards 1/N by the rotation (every seat holds the strong strategy equally often), so it
  says nothing about the seat. Instead a conditional-logit model (the first place of a
  Plackett-Luce model) with a seat effect and a strategy effect is fitted on the winners, with
  intervals clustered by deal, and the seats are judged by the win rate they would give among
  equal players. When one strategy wins (almost) every game the seat effects cannot be told
  apart and the cell is *not judged*.

The verdict of a cell:

* **fair**: every seat's win rate is shown within ``margin`` of 1/N (each seat's equivalence
  test at level alpha; together an intersection-union test), and with ``gap_margin`` every two
  seats are shown within ``gap_margin`` of each other. The chance of calling a cell fair when
  some seat is in truth outside the margin is at most alpha, for that cell.
* **unfair**: some seat (or, with ``gap_margin``, some pair of seats) is shown outside its
  margin, Holm-corrected over the tests of that cell. The chance of calling a cell unfair when
  every seat is within the margin is at most alpha, for that cell.
* **undecided**: neither; the note says how many more games would likely decide it.

Both errors are controlled per cell, so a cell's verdict never changes because other cells were
added to the run. Over a run of K cells up to K x alpha false verdicts may be expected; the
columns ``imbalanced_run`` (Holm over every test of the run) and ``balanced_run`` (alpha / K per
cell) give the run-wide reading. The largest seat gap carries an interval that holds although the
best and worst seats are picked from the data (simultaneous intervals over every pair of seats).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stats import moments as M
from stats import tests as stats
from reports.frames import DEFAULT_SETTING, SETTING, games_text, pct, with_setting
from reports.io import tables_of
from stats.moments import ClusterOuter, Clustered

MIRROR = "mirror"
MODEL = "model"
NOT_JUDGED = "not judged"
CELL = [*SETTING, "lineup"]


@dataclass
class SeatAdvantage:
    """``rates``: one row per cell and seat; ``cells``: one row per cell with its verdict."""

    rates: pd.DataFrame
    cells: pd.DataFrame
    margin: float
    confidence: float
    gap_margin: float | None = None
    game: object = None  # the run's game (a registered game or its name; None: the default game)


def lineup_names(lineup):
    return [x.strip() for x in str(lineup).split(",")]


def is_mirror(lineup):
    return len(set(lineup_names(lineup))) == 1


def level_label(lineup):
    """How a judge level is named: ``greedy x4`` for a mirror, the lineup itself otherwise."""
    names = lineup_names(lineup)
    return f"{names[0]} x{len(names)}" if len(set(names)) == 1 else ",".join(names)


def _more_games(needed, n, players):
    if needed is None or np.isnan(needed):
        return math.nan
    if np.isinf(needed):
        return math.inf
    more = max(0, math.ceil(needed - n))
    return float(math.ceil(more / players) * players)  # whole rotations


def _ties(acc_tie, acc_tb, confidence):
    ties, t_lo, t_hi, _ = M.wilson_clustered(acc_tie, confidence)
    tb, b_lo, b_hi, _ = M.wilson_clustered(acc_tb, confidence)
    return {
        "ties": int(round(float(acc_tie.total[0]))),
        "tie_rate": ties,
        "tie_lo": float(t_lo),
        "tie_hi": float(t_hi),
        "tiebreaks": int(round(float(acc_tb.total[0]))),
        "tiebreak_rate": tb,
        "tiebreak_lo": float(b_lo),
        "tiebreak_hi": float(b_hi),
    }


def _strategy_rows(lineup, nplayers):
    """``(N, N)`` strategy index at each seat for each rotation, and the strategy names.

    The runner seats lineup position ``(seat - rotation) mod N`` at a seat (scenarios.worker).
    """
    names = lineup_names(lineup)
    pool = sorted(set(names))
    pos = np.array([pool.index(x) for x in names])
    seat = np.arange(nplayers)
    rot = np.arange(nplayers)
    return pos[(seat[None, :] - rot[:, None]) % nplayers], pool


class _CellGroup:
    """What the seat verdict of one cell (player count, setting, lineup) reads of its games."""

    def __init__(self, players, lineup):
        self.players = n = int(players)
        self.mirror = is_mirror(lineup)
        self.lineup = lineup
        self.games = 0
        self.wins = Clustered(n)
        self.tie = Clustered(1)
        self.tb = Clustered(1)
        if not self.mirror:
            self.patterns = np.zeros((n, n))
            self.outer = ClusterOuter(n * n)

    def add(self, ch, has_ties):
        g = ch.games
        if (g["winner"] < 0).any():  # a game without a winner (a stall cap) counts for no seat
            keep = g["winner"] >= 0
            g = {c: v[keep] for c, v in g.items()}
        n = self.players
        deal = M.deal_key(ch.k, g["deal"])
        winner = np.clip(g["winner"].astype(int), 0, n - 1)
        onehot = np.zeros((len(winner), n))
        onehot[np.arange(len(winner)), winner] = 1.0
        self.games += len(winner)
        self.wins.add(onehot, deal)
        if has_ties:
            self.tie.add((g["tied"] > 1).astype(float), deal)
            self.tb.add((g["tiebreak"] > 0).astype(float), deal)
        else:
            zero = np.zeros(len(winner))
            self.tie.add(zero, deal)
            self.tb.add(zero, deal)
        if not self.mirror:
            rot = g["rotation"].astype(int) % n
            pattern = np.zeros((len(winner), n * n))
            pattern[np.arange(len(winner)), rot * n + winner] = 1.0
            np.add.at(self.patterns, (rot, winner), 1.0)
            self.outer.add(pattern, deal)


def seat_advantage(games, margin=0.03, confidence=0.95, seed=0, resamples=2000, gap_margin=None, sequential=None,
                   setting=None):
    """Seat win rates and the balance verdict of every cell of a run (see the module doc).

    ``games``: the games table (a DataFrame) or a run (:class:`reports.io.RunData`), read with the
    columns cell, deal, rotation, winner, tied, tiebreak (a game without tie columns has no ties)
    and the cells' players, setting and lineup. ``margin`` and ``gap_margin`` are fractions (0.03 =
    3 percentage points); ``gap_margin=None`` sets no margin on the gap. ``seed`` and ``resamples``
    are kept for callers; no figure here is drawn at random any more. ``sequential``: the
    ``manifest["sequential"]`` of a sequential run; its mirror cells are then judged with the
    anytime-valid tests the run stopped on (:mod:`reports.sequential_verdicts`).
    """
    setting = setting or DEFAULT_SETTING
    run = tables_of(games=games)
    cells = with_setting(run.cells, setting)
    cells["lineup"] = cells["lineup"].astype(str)
    keys = sorted(set(zip(cells["players"], cells[setting.label], cells["lineup"], strict=True)))
    key_of = list(zip(cells["players"], cells[setting.label], cells["lineup"], strict=True))
    acc = [_CellGroup(p, lu) for p, _, lu in keys]
    slot = {key: i for i, key in enumerate(keys)}
    group_of = [slot[key] for key in key_of]
    has_ties = "tied" in run.game_columns and "tiebreak" in run.game_columns
    columns = ["deal", "rotation", "winner"] + (["tied", "tiebreak"] if has_ties else [])
    for ch in run.scan(games=columns):
        acc[group_of[ch.k]].add(ch, has_ties)
    keys = [key for key, a in zip(keys, acc, strict=True) if a.games]
    acc = [a for a in acc if a.games]
    alpha = stats.alpha_of(confidence)

    # Mirror cells: seat counts (in effective games) for the vectorised exact tests.
    rate_rows = []
    for k, ((players, inst, lineup), a) in enumerate(zip(keys, acc, strict=True)):
        n_players = int(players)
        deff = a.wins.design_effect()
        wins = np.rint(a.wins.total)
        for seat in range(n_players):
            rate_rows.append(
                {
                    "players": players,
                    setting.label: inst,
                    "lineup": lineup,
                    "level": level_label(lineup),
                    "design": MIRROR if is_mirror(lineup) else MODEL,
                    "seat": seat,
                    "games": a.games,
                    "wins": int(wins[seat]),
                    "design_effect": deff,
                    "_k": k,
                }
            )
    rates = pd.DataFrame(rate_rows)
    rates["players"] = rates["players"].astype("int64")
    rates["effective_games"] = rates["games"] / rates["design_effect"]
    rates["fair_share"] = 1.0 / rates["players"]
    rates["win_rate"] = rates["wins"] / rates["games"]
    n_eff = np.maximum(np.round(rates["effective_games"].to_numpy()), 1).astype(np.int64)
    rates["win_lo"], rates["win_hi"] = stats.wilson(rates["win_rate"] * n_eff, n_eff, confidence)
    rates["deviation"] = rates["win_rate"] - rates["fair_share"]
    for col in ("seat_rate", "seat_lo", "seat_hi", "tost_p", "outside_p_holm"):
        rates[col] = math.nan

    mirror = rates["design"] == MIRROR
    res = None
    mirror_cells = []
    if mirror.any():
        m = rates[mirror]
        mirror_cells = list(dict.fromkeys(m["_k"]))
        label = m["_k"].map({k: i for i, k in enumerate(mirror_cells)}).to_numpy()
        n_m = n_eff[mirror.to_numpy()]
        wins_eff = np.round(m["win_rate"].to_numpy() * n_m).astype(np.int64)
        res = stats.seat_verdicts(
            label, wins_eff, n_m, m["players"].to_numpy(), margin, confidence, gap_margin=gap_margin
        )
        rates.loc[mirror, "seat_rate"] = m["win_rate"]
        # Beside a seat word, the interval of that word's own test (stats.tests.seat_verdict_intervals):
        # the TOST's 90% interval in a fair cell, a seat shown outside at its Holm level in an unfair one.
        for i in range(len(mirror_cells)):
            rows = np.flatnonzero(label == i)
            lo, hi, _ = stats.seat_verdict_intervals(wins_eff[rows], n_m[rows[0]], int(m["players"].iloc[rows[0]]),
                                                     res["verdict"][i], margin, confidence)
            rates.loc[m.index[rows], "seat_lo"] = lo
            rates.loc[m.index[rows], "seat_hi"] = hi
        rates.loc[mirror, "tost_p"] = res["row_tost_p"]
        rates.loc[mirror, "outside_p_holm"] = res["row_outside_p"]

    cells_out = []
    for k, ((players, inst, lineup), a) in enumerate(zip(keys, acc, strict=True)):
        n_players = int(players)
        r = rates[rates["_k"] == k]
        n = a.games
        deff = float(r["design_effect"].iloc[0])
        row = {
            "players": players,
            setting.label: inst,
            "lineup": lineup,
            "level": level_label(lineup),
            "games": n,
            "deals": int(a.wins.d),
            "design_effect": deff,
            "effective_games": n / deff,
            **_ties(a.tie, a.tb, confidence),
        }
        counts = r["wins"].to_numpy()
        if is_mirror(lineup):
            i = mirror_cells.index(k)
            chi = stats.seat_chisquare(counts, deff) if n > 0 else None
            gap, lo, hi, best, worst = stats.gap_interval(counts, confidence, n_eff=n / deff)
            verdict = res["verdict"][i]
            needed = res["games_needed"][i] * deff
            row.update(
                design=MIRROR,
                chi2=chi[0] if chi is not None else math.nan,
                chi2_p=chi[1] if chi is not None else math.nan,
                best_seat=best,
                worst_seat=worst,
                gap=gap,
                gap_lo=lo,
                gap_hi=hi,
                tost_p=float(res["tost_p"][i]),
                outside_p_holm=float(res["outside_p"][i]),
                imbalanced_run=bool(res["imbalanced_run"][i]),
                balanced_run=bool(res["balanced_run"][i]),
                verdict=verdict,
                more_games=_more_games(needed, n, n_players) if verdict == stats.UNDECIDED else math.nan,
            )
        else:
            strat, pool = _strategy_rows(lineup, n_players)
            outer = a.outer.finish()
            fit = stats.conditional_logit_counts(a.patterns, outer.outer, strat, len(pool), outer.d)
            row.update(chi2=math.nan, chi2_p=math.nan, more_games=math.nan, imbalanced_run=False, balanced_run=False)
            if fit["identified"]:
                pi, cov = stats.seat_shares(fit["theta"], fit["cov_theta"])
                v = stats.normal_seat_verdict(pi, cov, margin, confidence, gap_margin)
                z = stats.normal_quantile(1 - alpha / 2)
                idx = r.index
                rates.loc[idx, "seat_rate"] = pi
                rates.loc[idx, "seat_lo"] = np.clip(pi - z * v["se"], 0, 1)
                rates.loc[idx, "seat_hi"] = np.clip(pi + z * v["se"], 0, 1)
                row.update(
                    design=MODEL,
                    best_seat=v["best"],
                    worst_seat=v["worst"],
                    gap=v["gap"],
                    gap_lo=v["gap_lo"],
                    gap_hi=v["gap_hi"],
                    tost_p=v["tost_p"],
                    outside_p_holm=v["outside_p"],
                    verdict=v["verdict"],
                )
            else:
                row.update(
                    design=MODEL,
                    best_seat=-1,
                    worst_seat=-1,
                    gap=math.nan,
                    gap_lo=math.nan,
                    gap_hi=math.nan,
                    tost_p=math.nan,
                    outside_p_holm=math.nan,
                    verdict=NOT_JUDGED,
                )
        cells_out.append(row)
    cells_out = pd.DataFrame(cells_out)
    cells_out["players"] = cells_out["players"].astype("int64")
    # The seat intervals are the verdicts' own when every cell is a mirror's (the chart and the first
    # screen say so); a sequential run sets its own (reports.sequential_verdicts).
    rates.attrs["verdict_intervals"] = bool(mirror.all()) and not sequential
    if sequential:
        from reports.sequential_verdicts import apply_sequential

        apply_sequential(cells_out, rates, cells, sequential, margin, confidence, setting.cell)
    rates = rates.drop(columns="_k")
    # Run-wide reading of the mixed cells' model verdicts is not combined with the exact tests.
    cells_out["note"] = [verdict_note(row, rates, margin, gap_margin, setting) for row in cells_out.itertuples(index=False)]
    return SeatAdvantage(rates=rates, cells=cells_out, margin=margin, confidence=confidence, gap_margin=gap_margin)


def on_the_margin(rate, lo, hi, share, margin):
    """Whether an undecided seat may be said to sit *on* the margin: its interval straddles the margin
    edge nearest it and is no wider than the margin (a wide interval only says: too few games)."""
    if any(x is None or not math.isfinite(float(x)) for x in (rate, lo, hi)):
        return False
    edge = share + margin if rate >= share else share - margin
    return bool(lo <= edge <= hi and hi - lo <= margin)


def margin_sentence(margin, gap_margin, players=None):
    """The margin in one plain sentence."""
    share = f"the fair {pct(1 / players)}%" if players else "a fair share (1 in N)"
    text = f"fair means no seat's chance of winning is shown to be more than {100 * margin:.1f} points from {share}"
    if gap_margin is None:
        return text + f", so two seats may still differ by up to {200 * margin:.1f} points"
    return text + f", and no two seats are shown more than {100 * gap_margin:.1f} points apart"


def verdict_note(row, rates, margin, gap_margin=None, setting=None):
    """One sentence explaining a cell's verdict."""
    if isinstance(getattr(row, "seq_note", None), str):  # judged by a sequential run
        return row.seq_note
    label = (setting or DEFAULT_SETTING).label
    part = rates[
        (rates["players"] == row.players) & (rates[label] == getattr(row, label)) & (rates["lineup"] == row.lineup)
    ]
    share = 1.0 / row.players
    if row.verdict == NOT_JUDGED:
        return (
            "mixed lineup: one strategy wins (almost) every game, so the seat's own effect cannot be told "
            "apart; judge seats with a mirror lineup"
        )
    dev_all = part["seat_rate"].to_numpy() - share
    worst = part.iloc[int(np.nanargmax(np.abs(dev_all)))]
    dev = f"{100 * (worst.seat_rate - share):+.1f} pp"
    how = "" if row.design == MIRROR else " (model: win rate among equal players)"
    gap = "" if gap_margin is None else f" and every two seats within {100 * gap_margin:.1f} pp"
    if row.verdict == stats.FAIR:
        return f"every seat within {100 * margin:.1f} pp of {pct(share)}%{gap} (largest deviation: seat {worst.seat + 1}, {dev}){how}"
    if row.verdict == stats.UNFAIR:
        if row.design == MIRROR:
            flagged = part.sort_values("outside_p_holm").iloc[0]
        else:
            flagged = worst
        text = (
            f"seat {flagged.seat + 1} wins {pct(flagged.seat_rate)}% ({100 * (flagged.seat_rate - share):+.1f} pp vs "
            f"{pct(share)}%), outside the {100 * margin:.1f} pp margin{how}"
        )
        if abs(flagged.seat_rate - share) <= margin and gap_margin is not None:
            text = f"seats {row.best_seat + 1} and {row.worst_seat + 1} are {100 * row.gap:.1f} pp apart, beyond the {100 * gap_margin:.1f} pp gap margin{how}"
        return text
    if row.design != MIRROR or pd.isna(row.more_games):
        return f"not decided yet (seat {worst.seat + 1} at {dev}){how}"
    if np.isinf(row.more_games):
        if on_the_margin(worst.seat_rate, worst.seat_lo, worst.seat_hi, share, margin):
            return (
                f"seat {worst.seat + 1} at {dev} [{100 * (worst.seat_lo - share):+.1f}, {100 * (worst.seat_hi - share):+.1f}] "
                f"sits on the {100 * margin:.1f} pp margin: no feasible number of games would decide it"
            )
        return f"not decided yet (seat {worst.seat + 1} at {dev}, [{pct(worst.seat_lo)}, {pct(worst.seat_hi)}]%)"
    return f"about {games_text(row.more_games)} more games would likely decide it (seat {worst.seat + 1} at {dev})"
