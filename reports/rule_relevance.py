"""Rule relevance: how often does each rule change something that matters?

A rule that almost never acts is a design finding: the designer may drop it, or change the numbers
that keep it idle. Per player count, each rule gets one rate, *how often it bites*, counted over the
opportunities it had (awards, unbuilt instruments, games, turns, tokens, upgrades), with a Wilson
interval on the effective number of opportunities: the design effect between deals (the deal seed is
the independent unit; the seat rotations and the instrument sets played on one deal share it).

================================  =====================================================  ===============
rule                              bites when                                             counted over
================================  =====================================================  ===============
end award: the disc limits (R12)  the brag disc sits below what the pieces would allow   end awards
end award: the pieces limit       the pieces allow less than the disc's space            end awards
unbuilt penalty (R12)             some player loses points for an unbuilt instrument     unbuilt instr.
Pri absorbs the penalty (R14)     Pri alone in last place: no player pays (2 players)    unbuilt instr.
tie-break (R13)                   the winner is decided by the turn order                games
boost tokens (R9)                 a token gained is spent before the end                 tokens gained
brag instead of the action (R4)   a turn's action is replaced by a brag                  turns
bumps (R5)                        a game sees at least one die bumped from a break room  games
break-room pickups (R2)           a turn starts with a pickup from a break room          turns
cheese jumps (R8)                 a game sees at least one inspector jump with a cheese  games
upgrades on others' pieces (R6)   an upgrade goes onto another owner's piece             upgrades
upgrade pieces run out (R6)       a seat places every upgrade piece it has               seats
================================  =====================================================  ===============

*Rarely bites*: the upper end of the interval lies below the threshold (default 5%); *nearly
always*: its lower end lies above 1 - threshold (a limit that always binds is a finding too). Who pays the
unbuilt penalty (each seat, and Pri in 2-player games) and which seat wins the tie-breaks are
split out in tables of their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reports import stats
from reports.document import Section, Table
from reports.frames import DEPTS, GAME_ID

RARE = 0.05  # a rule biting in fewer than 5% of its opportunities "rarely bites"
RARELY = "rarely bites"
ALWAYS = "nearly always"
BITES = "bites"

# The counters this section needs; results written before they existed lack them.
NEEDED_SEAT = ("award_by_disc", "award_by_pieces", "cheese_jumps", "upgrades_on_others")

RULES = (
    # key, label, ruling, what a bite is, unit counted over
    ("award_disc", "end award limited by the brag disc", "R12", "the disc sits below what the pieces allow", "end awards"),
    ("award_pieces", "end award limited by the pieces", "R12", "the pieces allow less than the disc's space", "end awards"),
    ("penalty_paid", "unbuilt penalty paid by a player", "R12", "some player loses points for it", "unbuilt instruments"),
    ("pri_absorbs", "Pri absorbs the unbuilt penalty", "R12/R14", "Pri alone in last place, no player pays", "unbuilt instruments"),
    ("tiebreak", "tie-break decides the winner", "R13", "the turn order picks the winner among tied seats", "games"),
    ("tokens_spent", "boost tokens spent", "R9", "a token gained is spent before the end", "tokens gained"),
    ("brag_instead", "brag instead of the action", "R4", "the action is replaced by a brag", "turns"),
    ("bumps", "bumps from a break room", "R5", "at least one die is bumped in the game", "games"),
    ("pickups", "break-room pickups", "R2", "the turn starts with a pickup", "turns"),
    ("cheese_jumps", "inspector jumps with a cheese", "R8", "at least one jump in the game", "games"),
    ("upgrade_others", "upgrades on others' pieces", "R6", "the upgrade goes on another owner's piece", "upgrades"),
    ("upgrades_run_out", "all upgrade pieces placed", "R6", "the seat places every upgrade piece it has", "seats"),
)
LABELS = {k: lab for k, lab, *_ in RULES}

COLUMNS = ["rule", "label", "ruling", "players", "judge", "bite", "counted_over", "events", "opportunities", "rate", "lo",
           "hi", "verdict"]


@dataclass
class RuleRelevance:
    """The section's tables."""

    rules: pd.DataFrame
    penalty_by_owner: pd.DataFrame
    tiebreak_by_seat: pd.DataFrame
    threshold: float
    notes: list = field(default_factory=list)

    def rarely(self):
        """Rows of rules that rarely bite."""
        return self.rules[self.rules["verdict"] == RARELY]

    def always(self):
        """Rows of rules that bite nearly always."""
        return self.rules[self.rules["verdict"] == ALWAYS]


def ratio_rate(events, opportunities, cluster, confidence=0.95):
    """``(rate, lo, hi)`` of sum(events) / sum(opportunities) over units grouped in clusters.

    Wilson interval on the effective number of opportunities: their total divided by the design
    effect, the cluster-robust variance of the ratio (between-cluster residual totals) over the
    binomial one, at least 1. With no event at all the interval is the plain Wilson one.
    """
    x = np.asarray(events, dtype=float)
    n = np.asarray(opportunities, dtype=float)
    total = n.sum()
    if total <= 0:
        return math.nan, math.nan, math.nan
    rate = float(x.sum() / total)
    _, inv = np.unique(np.asarray(cluster), return_inverse=True)
    xc = np.bincount(inv, weights=x)
    nc = np.bincount(inv, weights=n)
    c = xc.size
    deff = 1.0
    if c > 1 and 0 < rate < 1:
        v_cluster = c / (c - 1) * np.sum((xc - rate * nc) ** 2) / total**2
        v_binom = rate * (1 - rate) / total
        deff = max(1.0, float(v_cluster / v_binom))
    n_eff = total / deff
    lo, hi = stats.wilson(min(rate, 1.0) * n_eff, n_eff, confidence)
    return rate, float(lo), float(hi)


def _judges(games):
    """``(players, lineup) -> judge label`` where a player count has several lineups, else ``""``."""
    out = {}
    for players, gp in games.groupby("players", sort=True):
        lineups = list(dict.fromkeys(gp["lineup"].astype(str)))
        for lu in lineups:
            names = [x.strip() for x in lu.split(",")]
            label = f"{names[0]} x{len(names)}" if len(set(names)) == 1 else ",".join(names)
            out[(int(players), lu)] = label if len(lineups) > 1 else ""
    return out


def _deal(df):
    return df["seed"].to_numpy()


def rule_relevance(seats, games, confidence=0.95, threshold=RARE):
    """The rule-relevance tables of a run (module doc)."""
    notes = []
    missing = [c for c in NEEDED_SEAT if c not in seats.columns]
    if missing:
        notes.append("These results were written before the rule counters existed (" + ", ".join(missing) + "); "
                     "run the scenario again for the rules that need them.")
    rows = []
    g_key = games.set_index(GAME_ID)
    s = seats.join(g_key[[f"built_{d}" for d in DEPTS]], on=GAME_ID)
    s["lineup"] = s["lineup"].astype(str)
    # Per player count and judge (lineup) when a player count has several: how often a rule bites
    # depends on who plays, and lineups are never pooled (as in the seat section).
    judges = _judges(games)
    for (players, lineup), sp in s.groupby(["players", "lineup"], sort=True):
        gp = games[(games["players"] == players) & (games["lineup"].astype(str) == lineup)]
        judge = judges.get((int(players), lineup), "")
        players = int(players)

        def add(key, events, opps, cluster):
            rate, lo, hi = ratio_rate(events, opps, cluster, confidence)
            _, label, ruling, bite, unit = next(r for r in RULES if r[0] == key)
            rows.append([key, label, ruling, players, judge, bite, unit, float(np.sum(events)), float(np.sum(opps)),
                         rate, lo, hi, RARELY if hi < threshold else ALWAYS if lo > 1 - threshold else BITES])

        awards = sum(sp[f"built_{d}"].to_numpy() for d in DEPTS)
        if "award_by_disc" in sp:
            add("award_disc", sp["award_by_disc"].to_numpy(), awards, _deal(sp))
            add("award_pieces", sp["award_by_pieces"].to_numpy(), awards, _deal(sp))
        # Unbuilt instruments: one unit per game and unbuilt department.
        paid_units, cl = [], []
        for d in DEPTS:
            unbuilt = gp[gp[f"built_{d}"] == 0]
            if unbuilt.empty:
                continue
            pen = sp.groupby(GAME_ID)[f"penalty_{d}"].sum()
            paid = (pen.reindex(pd.MultiIndex.from_frame(unbuilt[GAME_ID])).fillna(0).to_numpy() < 0)
            paid_units.append(paid.astype(float))
            cl.append(_deal(unbuilt))
        if paid_units:
            paid = np.concatenate(paid_units)
            cluster = np.concatenate(cl)
            add("penalty_paid", paid, np.ones_like(paid), cluster)
            if players == 2:
                add("pri_absorbs", 1.0 - paid, np.ones_like(paid), cluster)
        add("tiebreak", gp["tiebreak"].to_numpy(), np.ones(len(gp)), _deal(gp))
        add("tokens_spent", np.minimum(sp["tokens_spent"], sp["tokens_gained"]).to_numpy(),
            sp["tokens_gained"].to_numpy(), _deal(sp))
        add("brag_instead", sp["action_brags"].to_numpy(), sp["turns"].to_numpy(), _deal(sp))
        per_game = sp.groupby(GAME_ID, sort=False)
        bumps = (per_game["bumps_made"].sum() > 0).astype(float)
        seeds = per_game["seed"].first().to_numpy()
        add("bumps", bumps.to_numpy(), np.ones(len(bumps)), seeds)
        add("pickups", sp["pickups"].to_numpy(), sp["turns"].to_numpy(), _deal(sp))
        if "cheese_jumps" in sp:
            jumps = (per_game["cheese_jumps"].sum() > 0).astype(float)
            add("cheese_jumps", jumps.to_numpy(), np.ones(len(jumps)), seeds)
            add("upgrade_others", sp["upgrades_on_others"].to_numpy(), sp["upgrades"].to_numpy(), _deal(sp))
        most = sp["upgrades"].max()
        if most > 0:
            add("upgrades_run_out", (sp["upgrades"] >= most).astype(float).to_numpy(), np.ones(len(sp)), _deal(sp))
    table = pd.DataFrame(rows, columns=COLUMNS)
    if len(seats) and "upgrades" in seats:
        notes.append("'All upgrade pieces placed' counts seats that reached the most upgrades any seat placed in "
                     f"the run ({int(seats['upgrades'].max())}), the supply of upgrade pieces.")
    return RuleRelevance(table, _penalty_by_owner(seats, games, confidence), _tiebreak_by_seat(games, confidence),
                         threshold, notes)


def _penalty_by_owner(seats, games, confidence):
    """Unbuilt penalty points per game, by who carries them: each seat, and Pri (2 players)."""
    rows = []
    judges = _judges(games)
    for (players, lineup), gp in games.assign(lineup=games["lineup"].astype(str)).groupby(["players", "lineup"]):
        judge = judges.get((int(players), lineup), "")
        sp = seats[(seats["players"] == players) & (seats["lineup"].astype(str) == lineup)]
        paid = -sp[[f"penalty_{d}" for d in DEPTS]].sum(axis=1)
        by_seat = sp.assign(_paid=paid.to_numpy())
        total = float(paid.sum())
        pri = float(gp["pri_penalty_absorbed"].sum()) if "pri_penalty_absorbed" in gp and int(players) == 2 else 0.0
        grand = total + pri
        for seat, part in by_seat.groupby("seat", sort=True):
            m, lo, hi = stats.mean_interval(part["_paid"].to_numpy(), confidence, part["seed"].to_numpy())
            rows.append([int(players), judge, f"seat {int(seat) + 1}", m, lo, hi,
                         part["_paid"].sum() / grand if grand else math.nan])
        if int(players) == 2 and "pri_penalty_absorbed" in gp:
            x = gp["pri_penalty_absorbed"].to_numpy(dtype=float)
            m, lo, hi = stats.mean_interval(x, confidence, gp["seed"].to_numpy())
            rows.append([int(players), judge, "Pri (absorbed)", m, lo, hi, pri / grand if grand else math.nan])
    return pd.DataFrame(rows, columns=["players", "judge", "who", "points_per_game", "lo", "hi", "share"])


def _tiebreak_by_seat(games, confidence):
    """Games decided by the tie-break, by the seat that won them (R13: the latest tied seat)."""
    rows = []
    judges = _judges(games)
    for (players, lineup), gp in games.assign(lineup=games["lineup"].astype(str)).groupby(["players", "lineup"]):
        judge = judges.get((int(players), lineup), "")
        tb = gp[gp["tiebreak"] == 1]
        for seat in range(int(players)):
            won = (gp["winner"] == seat) & (gp["tiebreak"] == 1)
            rate, lo, hi, _ = stats.wilson_clustered(won.to_numpy().astype(float), gp["seed"].to_numpy(), confidence)
            rows.append([int(players), judge, seat, int(won.sum()), len(tb), int(won.sum()) / len(tb) if len(tb) else math.nan,
                         rate, lo, hi])
    return pd.DataFrame(rows, columns=["players", "judge", "seat", "tiebreak_wins", "tiebreak_games", "share_of_tiebreaks",
                                       "rate_per_game", "lo", "hi"])


def _listing(rows):
    parts = []
    for key, part in rows.groupby("rule", sort=False):
        where = ", ".join(f"{r.players} players{' ' + r.judge if r.judge else ''} {100 * r.rate:.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}]"
                          for r in part.itertuples(index=False))
        parts.append(f"{LABELS[key]} ({part['ruling'].iloc[0]}; of {part['counted_over'].iloc[0]}: {where})")
    return "; ".join(parts)


def headline_lines(rr):
    """Lines naming the rules that rarely bite and those that nearly always do."""
    if rr.rules.empty:
        return []
    t = 100 * rr.threshold
    rare, always = rr.rarely(), rr.always()
    lines = []
    if rare.empty:
        lines.append(f"Every rule measured bites in at least {t:.0f}% of its chances.")
    else:
        lines.append(f"Rules that almost never bite (below {t:.0f}% of their chances): {_listing(rare)}.")
    if not always.empty:
        lines.append(f"Rules that bite nearly every time (above {100 - t:.0f}%): {_listing(always)}.")
    return lines


def rule_section(seats, games, confidence, number=6):
    """``(Section, RuleRelevance)``: the report's rule-relevance section."""
    from reports import charts
    from reports import present as P

    rr = rule_relevance(seats, games, confidence)
    c = int(100 * confidence)
    sec = Section(
        "rules",
        f"{number}. Rules that bite",
        "How often does each rule change something that matters?",
        notes=[
            "Each rate counts a rule's bites over its chances (the 'counted over' column), with a "
            f"{c}% Wilson interval whose effective sample size counts deals, not games. Rarely bites: the "
            f"interval lies below {100 * rr.threshold:.0f}%; nearly always: above {100 - 100 * rr.threshold:.0f}%.",
            *rr.notes,
        ],
    )
    sec.findings = headline_lines(rr)
    if not rr.rules.empty:
        sec.charts.append(charts.rule_bite_rates(rr.rules, rr.threshold, confidence))
    spec = [
        ("rule", P.text("label")),
        ("ruling", P.text("ruling")),
        ("players", P.integer("players")),
        ("judge (lineup)", P.text("judge")),
        ("bites when", P.text("bite")),
        ("counted over", P.text("counted_over")),
        ("bites", P.integer("events")),
        ("chances", P.integer("opportunities")),
        (f"rate % [{c}% CI]", P.rate("rate", "lo", "hi", 2)),
        ("verdict", P.text("verdict")),
    ]
    pen_spec = [
        ("players", P.integer("players")),
        ("judge (lineup)", P.text("judge")),
        ("who", P.text("who")),
        (f"penalty points per game [{c}% CI]", P.points("points_per_game", "lo", "hi", 2)),
        ("share of all penalty points %", P.rate("share")),
    ]
    tb_spec = [
        ("players", P.integer("players")),
        ("judge (lineup)", P.text("judge")),
        ("winning seat", lambda r: f"seat {int(r['seat']) + 1}"),
        ("games won on the tie-break", P.integer("tiebreak_wins")),
        ("of tie-break games", P.integer("tiebreak_games")),
        ("share %", P.rate("share_of_tiebreaks")),
        (f"per game % [{c}% CI]", P.rate("rate_per_game", "lo", "hi", 2)),
    ]
    sec.tables = [
        Table("rule_relevance", "How often each rule bites", rr.rules, P.present(rr.rules, spec)),
        Table("penalty_by_owner", "Who carries the unbuilt penalty (R12): each seat, and Pri at 2 players (R14)",
              rr.penalty_by_owner, P.present(rr.penalty_by_owner, pen_spec)),
        Table("tiebreak_by_seat", "Tie-breaks by the winning seat (R13: the latest tied seat wins)",
              rr.tiebreak_by_seat, P.present(rr.tiebreak_by_seat, tb_spec)),
    ]
    return sec, rr
