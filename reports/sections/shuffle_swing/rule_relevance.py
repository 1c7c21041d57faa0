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

from stats import moments as M
from stats import tests as stats
from reports.document import Section, Table
from reports.frames import DEPTS
from reports.io import tables_of
from stats.moments import Clustered

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
    """``(players, lineup) -> judge label`` where a player count has several lineups, else ``""``
    (``games``: the games table or the cells table)."""
    out = {}
    for players, gp in games.groupby("players", sort=True):
        lineups = list(dict.fromkeys(gp["lineup"].astype(str)))
        for lu in lineups:
            names = [x.strip() for x in lu.split(",")]
            label = f"{names[0]} x{len(names)}" if len(set(names)) == 1 else ",".join(names)
            out[(int(players), lu)] = label if len(lineups) > 1 else ""
    return out


class _Group:
    """What the rule rates of one player count and lineup read, chunk by chunk. The unit clustered
    on is the deal seed, shared by every cell of the group that plays the same deals: its totals
    are kept to the end unless the group is one cell."""

    def __init__(self, players, contiguous, has):
        self.players = players
        self.contiguous = contiguous
        self.has = has
        self.acc = {}
        self.most = 0
        self.seats = {}  # seat -> Clustered of the penalty points it paid
        self.paid_total = {}
        self.pri = Clustered(1, contiguous)
        self.pri_total = 0.0
        self.tb_seat = {}
        self.tb_games = 0

    def rate(self, key, events, opps, cluster):
        acc = self.acc.get(key)
        if acc is None:
            acc = self.acc[key] = Clustered(1, self.contiguous)
        acc.add(np.asarray(events, dtype=float).ravel(), np.asarray(cluster).ravel(), np.asarray(opps, dtype=float).ravel())

    def add(self, ch):
        g, st = ch.games, ch.seats
        seed = g["seed"]
        rows_seed = np.broadcast_to(seed[:, None], st["turns"].shape)
        awards = sum(g[f"built_{d}"] for d in DEPTS)
        if self.has["award"]:
            aw = np.broadcast_to(awards[:, None], st["turns"].shape)
            self.rate("award_disc", st["award_by_disc"], aw, rows_seed)
            self.rate("award_pieces", st["award_by_pieces"], aw, rows_seed)
        # Unbuilt instruments: one unit per game and unbuilt department (in game order).
        unbuilt = np.stack([g[f"built_{d}"] == 0 for d in DEPTS], axis=1)
        paid = np.stack([st[f"penalty_{d}"].sum(axis=1) < 0 for d in DEPTS], axis=1)
        useed = np.broadcast_to(seed[:, None], unbuilt.shape)[unbuilt]
        pu = paid[unbuilt].astype(float)
        if len(pu) or "penalty_paid" in self.acc:
            self.rate("penalty_paid", pu, np.ones_like(pu), useed)
            if self.players == 2:
                self.rate("pri_absorbs", 1.0 - pu, np.ones_like(pu), useed)
        self.rate("tiebreak", g["tiebreak"], np.ones(len(seed)), seed)
        self.rate("tokens_spent", np.minimum(st["tokens_spent"], st["tokens_gained"]), st["tokens_gained"], rows_seed)
        self.rate("brag_instead", st["action_brags"], st["turns"], rows_seed)
        self.rate("bumps", st["bumps_made"].sum(axis=1) > 0, np.ones(len(seed)), seed)
        self.rate("pickups", st["pickups"], st["turns"], rows_seed)
        if self.has["cheese"]:
            self.rate("cheese_jumps", st["cheese_jumps"].sum(axis=1) > 0, np.ones(len(seed)), seed)
            self.rate("upgrade_others", st["upgrades_on_others"], st["upgrades"], rows_seed)
        self.most = max(self.most, int(st["upgrades"].max()) if st["upgrades"].size else 0)
        # Who carries the penalty points: each seat, and Pri at 2 players.
        pay = -sum(st[f"penalty_{d}"] for d in DEPTS)
        for seat in range(ch.players):
            self.seats.setdefault(seat, Clustered(1, self.contiguous)).add(pay[:, seat], seed)
            self.paid_total[seat] = self.paid_total.get(seat, 0.0) + float(pay[:, seat].sum())
        if self.has["pri"] and self.players == 2:
            self.pri.add(g["pri_penalty_absorbed"], seed)
            self.pri_total += float(g["pri_penalty_absorbed"].sum())
        tb = g["tiebreak"] == 1
        self.tb_games += int(tb.sum())
        for seat in range(ch.players):
            won = (g["winner"] == seat) & tb
            self.tb_seat.setdefault(seat, Clustered(1, self.contiguous)).add(won.astype(float), seed)


def _read(seats, games):
    run = tables_of(seats, games)
    cells = run.cells.assign(lineup=run.cells["lineup"].astype(str))
    keys, group = M.groups_of(cells, ["players", "lineup"])
    ncells = np.bincount(group, minlength=len(keys))
    cols = set(run.seat_columns)
    has = {"award": "award_by_disc" in cols, "cheese": "cheese_jumps" in cols,
           "pri": "pri_penalty_absorbed" in set(run.game_columns)}
    acc = [_Group(int(p), ncells[i] == 1, has) for i, (p, _) in enumerate(keys)]
    seat_cols = ["turns", "tokens_spent", "tokens_gained", "action_brags", "bumps_made", "pickups", "upgrades",
                 *(f"penalty_{d}" for d in DEPTS)]
    seat_cols += ["award_by_disc", "award_by_pieces"] if has["award"] else []
    seat_cols += ["cheese_jumps", "upgrades_on_others"] if has["cheese"] else []
    game_cols = ["seed", "tiebreak", "winner", *(f"built_{d}" for d in DEPTS)] + (["pri_penalty_absorbed"] if has["pri"] else [])
    for ch in run.scan(seats=seat_cols, games=game_cols):
        acc[group[ch.k]].add(ch)
    # "All upgrade pieces placed": seats that reached the most upgrades of their group (a second look).
    for i, a in enumerate(acc):
        if a.most > 0:
            ks = [k for k in range(len(cells)) if group[k] == i]
            for ch in run.scan(seats=["upgrades"], games=["seed"], cells=ks):
                up = ch.seats["upgrades"]
                a.rate("upgrades_run_out", up >= a.most, np.ones(up.shape), np.broadcast_to(ch.games["seed"][:, None], up.shape))
    return run, cells, keys, acc


def rule_relevance(seats, games, confidence=0.95, threshold=RARE):
    """The rule-relevance tables of a run (module doc); ``seats`` and ``games``: the tables, or a run."""
    run, cells, keys, acc = _read(seats, games)
    notes = []
    missing = [c for c in NEEDED_SEAT if c not in run.seat_columns]
    if missing:
        notes.append("These results were written before the rule counters existed (" + ", ".join(missing) + "); "
                     "run the scenario again for the rules that need them.")
    judges = _judges(cells)
    rows = []
    order = ("award_disc", "award_pieces", "penalty_paid", "pri_absorbs", "tiebreak", "tokens_spent", "brag_instead",
             "bumps", "pickups", "cheese_jumps", "upgrade_others", "upgrades_run_out")
    for (players, lineup), a in zip(keys, acc, strict=True):
        judge = judges.get((int(players), lineup), "")
        for key in order:
            r = a.acc.get(key)
            if r is None:
                continue
            rate, lo, hi = M.ratio_rate(r, confidence)
            _, label, ruling, bite, unit = next(x for x in RULES if x[0] == key)
            rows.append([key, label, ruling, int(players), judge, bite, unit, float(r.total[0]), float(r.b),
                         rate, lo, hi, RARELY if hi < threshold else ALWAYS if lo > 1 - threshold else BITES])
    table = pd.DataFrame(rows, columns=COLUMNS)
    most = max((a.most for a in acc), default=0)
    if run.games_count and "upgrades" in run.seat_columns:
        notes.append("'All upgrade pieces placed' counts seats that reached the most upgrades any seat placed in "
                     f"the run ({most}), the supply of upgrade pieces.")
    return RuleRelevance(table, _penalty_by_owner(keys, acc, judges, confidence),
                         _tiebreak_by_seat(keys, acc, judges, confidence), threshold, notes)


def _penalty_by_owner(keys, acc, judges, confidence):
    """Unbuilt penalty points per game, by who carries them: each seat, and Pri (2 players)."""
    rows = []
    for (players, lineup), a in zip(keys, acc, strict=True):
        judge = judges.get((int(players), lineup), "")
        total = float(sum(a.paid_total.values()))
        pri = a.pri_total if a.has["pri"] and int(players) == 2 else 0.0
        grand = total + pri
        for seat in sorted(a.seats):
            m, lo, hi = M.mean_interval(a.seats[seat], confidence)
            rows.append([int(players), judge, f"seat {int(seat) + 1}", m, lo, hi,
                         a.paid_total[seat] / grand if grand else math.nan])
        if int(players) == 2 and a.has["pri"]:
            m, lo, hi = M.mean_interval(a.pri, confidence)
            rows.append([int(players), judge, "Pri (absorbed)", m, lo, hi, pri / grand if grand else math.nan])
    return pd.DataFrame(rows, columns=["players", "judge", "who", "points_per_game", "lo", "hi", "share"])


def _tiebreak_by_seat(keys, acc, judges, confidence):
    """Games decided by the tie-break, by the seat that won them (R13: the latest tied seat)."""
    rows = []
    for (players, lineup), a in zip(keys, acc, strict=True):
        judge = judges.get((int(players), lineup), "")
        tbg = a.tb_games
        for seat in range(int(players)):
            acc_s = a.tb_seat.get(seat)
            if acc_s is None:
                continue
            wins = int(round(float(acc_s.total[0])))
            rate, lo, hi, _ = M.wilson_clustered(acc_s, confidence)
            rows.append([int(players), judge, seat, wins, tbg, wins / tbg if tbg else math.nan, rate, lo, hi])
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
