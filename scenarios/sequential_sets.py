"""Instrument verdicts decided sequentially: each set plays in rounds until its verdict is decided.

A scenario of several instrument sets (``swaps``, a ``sets`` list) compares each instrument with its
department's *reference*, the department's instrument in the first set, on the same deals
(``reports.instrument_verdicts``). With ``sequential.verdicts = ["instruments"]`` the run decides
those verdicts as it goes (:mod:`scenarios.sequential` plays the rounds; this module says which sets
play next and which are decided)::

    [sequential]
    verdicts = ["instruments"]
    zone = 0.2             # the indifference zone of each measure, a share of its margin

The **unit** of a verdict is the set: one instrument, at one player count, judged by one mirror
lineup, compared with the reference set of the same player count and judge on the same deals. For
deal ``s`` and measure ``k`` (objective points per game, the winner's points from the instrument,
unbuilt, game length, each seat's win)::

    d_k(s) = measure_k(set, s) - measure_k(reference set, s)

The test on those differences (confidence sequences, the zone, the verdict) is :mod:`stats.paired`.

**The schedule** (:func:`allocate`): the sets of one player count and judge play the same deals in
lock-step, the reference with them while any of its sets is open. Each round the open groups are
served cheapest projected decision first (the deals the slowest open set of the group is projected
to need, times the group's open sets, times the judge's declared cost), the strongest judge first on
ties, within the run's one budget of declared CPU seconds. Nothing measured enters: the same counts
give the same rounds on any machine and with any workers.

Which sets can be judged (:func:`units`): each set that differs from its group's first set in exactly
one department (every set of ``swaps``, a ``sets`` list built so). A set that differs in two or more
(a full grid, ``all``) is refused with the reason: its verdict averages several contexts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from stats.paired import BOUNDED, DEFAULT_ZONE, MIN_LOOK, OPEN, Running, bounded_verdict, deals_to_decide, verdict

ROUND_FLOOR = 4  # a group's round is at least 1/ROUND_FLOOR of the judge's round

# measure -> default margin (the fixed-count verdict's, reports.instrument_verdicts.MEASURES)
MARGINS = {"objective_points": 5.0, "winner_points": 2.0, "seat_win": 0.05, "unbuilt": 0.10, "rounds": 1.0}
DEPT_MEASURES = ("objective_points", "winner_points", "unbuilt")  # per department; then rounds, seats
# measure -> the largest size of a paired difference, known before any game: a seat's win and an unbuilt
# share are within 0..1 on every deal, so their differences within -1..1. Points and game length have no
# such bound fixed in advance: they keep the asymptotic interval (stats.paired).
RANGES = {"seat_win": 1.0, "unbuilt": 1.0}
STOP_SET, STOP_REFERENCE = "set", "reference"  # a set decided / every set of a reference decided


# =========================================================================== the sets of a run


@dataclass
class Unit:
    """One set's verdict: ``cell`` against ``reference`` (cell indices) in department ``dept``."""

    cell: int
    reference: int
    dept: int
    players: int
    judge: str
    instrument: str

    @property
    def group(self):
        """The unit's group: the sets of one player count and judge, which share their deals."""
        return (self.players, self.judge)


def units(cells, judge_of):
    """``(units, references, refused)``: a unit per set judged against its group's first set, the
    reference cell of each group (``(players, judge)``), and the sets that differ from it in more than
    one department (``[(cell, departments)]``)."""
    first, out, refused = {}, [], []
    for c in cells:
        key = (c.players, judge_of(c))
        if key not in first:
            first[key] = c
            continue
        ref = first[key]
        differ = [i for i, (a, b) in enumerate(zip(c.instruments, ref.instruments, strict=True)) if a != b]
        if len(differ) == 1:
            out.append(Unit(c.index, ref.index, differ[0], c.players, judge_of(c), c.instruments[differ[0]]))
        else:
            refused.append((c.index, len(differ)))
    return out, {k: v.index for k, v in first.items()}, refused


def columns(players, depts):
    """Names of the per-deal measure columns of one cell: per department its three measures, then
    game length and each seat's win."""
    return [*(f"{m}:{d}" for d in depts for m in DEPT_MEASURES), "rounds", *(f"seat_win:{s}" for s in range(players))]


def unit_columns(unit, players, depts):
    """``(column positions, measure keys, who)`` of one unit's K measures in :func:`columns` order."""
    cols = columns(players, depts)
    d = depts[unit.dept]
    names = [*(f"{m}:{d}" for m in DEPT_MEASURES), "rounds", *(f"seat_win:{s}" for s in range(players))]
    pos = [cols.index(x) for x in names]
    keys = [x.partition(":")[0] for x in names]
    who = [x.partition(":")[2] if x.startswith("seat_win") else "" for x in names]
    return pos, keys, who


def chunk_measures(seats, games, players, depts):
    """Per-deal measures of one chunk (a cell's deals ``start..stop``): rows in deal order, the
    :func:`columns`; a deal's seat rotations averaged. ``seats`` and ``games``: dicts of arrays
    (``deal``, ``game``, ``seat``, ``won``, ``objective_<dept>``; ``deal``, ``game``, ``winner``,
    ``rounds``, ``built_<dept>``)."""
    deal = np.asarray(games["deal"], dtype=np.int64)
    first = int(deal.min())
    idx = deal - first
    nd = int(idx.max()) + 1
    count = np.bincount(idx, minlength=nd).astype(float)
    game_pos = {int(g): i for i, g in enumerate(np.asarray(games["game"]))}
    seat_game = np.array([game_pos[int(g)] for g in np.asarray(seats["game"])], dtype=np.int64)
    won = np.asarray(seats["won"]) == 1
    winner = np.asarray(games["winner"], dtype=np.int64)
    cols = []
    for d in depts:
        obj = np.asarray(seats[f"objective_{d}"], dtype=float)
        per_game_obj = np.bincount(seat_game, weights=obj, minlength=len(deal))
        per_game_win = np.bincount(seat_game, weights=np.where(won, obj, 0.0), minlength=len(deal))
        unbuilt = (np.asarray(games[f"built_{d}"]) == 0).astype(float)
        cols += [per_game_obj, per_game_win, unbuilt]
    cols.append(np.asarray(games["rounds"], dtype=float))
    cols += [(winner == s).astype(float) for s in range(players)]
    per_game = np.stack(cols, axis=1)
    sums = np.zeros((nd, per_game.shape[1]))
    np.add.at(sums, idx, per_game)
    return sums / count[:, None]


class InstrumentSets:
    """What a run of instrument sets compares with what (:func:`units`) and the per-deal measures of
    a played chunk (:func:`chunk_measures`): the comparison :class:`SetPolicy` is given. A game whose
    setting compares something else (``scenarios.sequential_variants``) gives its own, with the same
    methods."""

    kind = "instruments"

    def __init__(self, depts):
        self.depts = tuple(depts)

    def units(self, cells, judge_of):
        return units(cells, judge_of)

    def columns(self, players):
        return columns(players, self.depts)

    def unit_columns(self, unit, players):
        return unit_columns(unit, players, self.depts)

    def fields(self):
        """``(seat columns, game columns)`` a chunk's tables are read for."""
        return (["game", "won", *(f"objective_{d}" for d in self.depts)],
                ["deal", "game", "winner", "rounds", *(f"built_{d}" for d in self.depts)])

    def chunk_measures(self, seats, games, players):
        return chunk_measures(seats, games, players, self.depts)

    def describe(self, unit):
        """What the record names the unit by."""
        return {"department": self.depts[unit.dept], "instrument": unit.instrument}


class SetPolicy:
    """Which sets play the next round and which are decided (module doc): the play-next policy of a
    run whose verdicts are the instruments'. The run loop feeds it each played chunk's per-deal
    measures (:meth:`add`), asks it to judge after a round (:meth:`judge`) and for the next round
    (:meth:`allocate`); :meth:`records` is what the manifest keeps."""

    def __init__(self, cells, judge_of, depts=(), margins=None, zone=DEFAULT_ZONE, confidence=0.95, compare=None,
                 interval=BOUNDED):
        self.cells = {c.index: c for c in cells}
        self.judge_of = judge_of
        self.compare = compare if compare is not None else InstrumentSets(depts)
        self.depts = tuple(depts)
        self.units, self.refs, self.refused = self.compare.units(cells, judge_of)
        self.margins = {**MARGINS, **(margins or {})}
        self.zone = zone
        self.confidence = confidence
        self.interval = interval  # stats.paired.BOUNDED (finite-sample where a range is known) or ASYMPTOTIC
        self.rows = {}  # cell -> {start: per-deal rows}
        self.looks = {u.cell: [] for u in self.units}
        self.result = {u.cell: None for u in self.units}
        self.decided_at = {u.cell: None for u in self.units}
        self.group_of = {}
        for u in self.units:
            self.group_of[u.cell] = u.group
        for key, ref in self.refs.items():
            self.group_of[ref] = key

    # ------------------------------------------------------------------ the data
    def add(self, cell, start, rows):
        """Per-deal measure rows of ``cell`` from deal ``start`` (:func:`chunk_measures`)."""
        self.rows.setdefault(cell, {})[int(start)] = np.asarray(rows, dtype=float)

    def _deals(self, cell, n):
        parts = self.rows.get(cell, {})
        if not parts:
            return np.zeros((0, len(self.compare.columns(self.cells[cell].players))))
        full = np.concatenate([parts[s] for s in sorted(parts)])
        return full[:n]

    def look(self, unit, n):
        """The verdict of ``unit`` on its first ``n`` paired deals, with the margins and columns."""
        players = self.cells[unit.cell].players
        pos, keys, who = self.compare.unit_columns(unit, players)
        d = self._deals(unit.cell, n)[:, pos] - self._deals(unit.reference, n)[:, pos]
        acc = Running(len(pos))
        acc.add(d)
        mean, sd = acc.mean_sd()
        m = np.array([self.margins[k] for k in keys])
        radius = np.array([RANGES.get(k, np.nan) for k in keys])
        if self.interval == BOUNDED and np.isfinite(radius).any():
            res = bounded_verdict(d, radius, m, self.zone, self.confidence, mean=mean, sd=sd)
        else:
            res = verdict(mean, sd, acc.n, m, self.zone, self.confidence)
        res.update(mean=mean, sd=sd, n=acc.n, keys=keys, who=who, margins=m)
        return res

    # ------------------------------------------------------------------ the policy
    def open_units(self, states):
        return [u for u in self.units if states[u.cell].open]

    def judge(self, states, played):
        """After a round: judge every open set that played (``played``: cell indices); a decided set
        stops, and a reference stops once no set of its group is open."""
        for u in self.units:
            s = states[u.cell]
            if not s.open or u.cell not in played:
                continue
            n = min(s.n, states[u.reference].n)
            self.looks[u.cell].append(n)
            res = self.look(u, n)
            self.result[u.cell] = res
            if res["verdict"] != OPEN:
                s.stop = STOP_SET
                self.decided_at[u.cell] = n
        for key, ref in self.refs.items():
            s = states[ref]
            if s.open and not any(states[u.cell].open for u in self.units if self.group_of[u.cell] == key):
                s.stop = STOP_REFERENCE

    def need(self, unit, states):
        """Deals the set is projected to need still (from 0 before its first look)."""
        res = self.result.get(unit.cell)
        n = states[unit.cell].n
        if res is None or res["n"] < MIN_LOOK:
            return float(max(MIN_LOOK - n, 0)) or float(MIN_LOOK)
        return max(deals_to_decide(res["mean"], res["sd"], res["n"], res["margins"], self.zone, self.confidence)
                   - n, 0.0)

    def allocate(self, states, plan, spent, seconds_spent=0.0):
        """Deals per cell for the next round ({cell: deals}); marks the cells that must stop. The
        open sets of a group and its reference get the same deals (module doc, "The schedule")."""
        left_s = math.inf if plan.seconds is None else plan.seconds - seconds_spent
        left_g = {j: plan.budget[j] - spent.get(j, 0) for j in plan.budget}
        groups = {}
        for u in self.open_units(states):
            groups.setdefault(self.group_of[u.cell], []).append(u)
        ranked = []
        for key, us in groups.items():
            judge = key[1]
            need = max(self.need(u, states) for u in us)
            cells = [u.cell for u in us] + [self.refs[key]]
            price = plan.price(judge) * len(cells)
            ranked.append(((need * price, plan.strong.index(judge), key), key, us, cells, need, price))
        ranked.sort(key=lambda r: r[0])
        alloc = {}
        for _, key, us, cells, need, price in ranked:
            judge = key[1]
            n = states[self.refs[key]].n
            room = min(min(self.cells[c].games - states[c].n for c in cells), left_g[judge] // len(cells))
            want = plan.round[judge]
            if math.isfinite(need):
                want = min(want, max(plan.round[judge] // ROUND_FLOOR, int(math.ceil(need))))
            add = min(want, room)
            if price > 0 and math.isfinite(left_s):
                add = min(add, int(left_s / price + 1e-9))
            add = max(int(add), 0)
            if add <= 0:
                continue
            for c in cells:
                if states[c].n != n:  # cannot happen: a group plays in lock-step
                    raise RuntimeError(f"cell {c} at {states[c].n} deals, its reference at {n}")
                alloc[c] = add
            left_g[judge] -= add * len(cells)
            left_s -= add * price
        for key, us in groups.items():  # a group that got nothing stops, with the reason
            if any(u.cell in alloc for u in us):
                continue
            cells = [u.cell for u in us] + [self.refs[key]]
            if min(self.cells[c].games - states[c].n for c in cells) <= 0:
                why = "cap"
            elif left_g[key[1]] < len(cells):
                why = "budget"
            else:
                why = "seconds"
            for c in cells:
                states[c].stop = why
        return alloc

    # ------------------------------------------------------------------ the record
    def records(self, states):
        """One record per judged set (docs/guide/sequential.md, "The record of the sets")."""
        out = []
        for u in self.units:
            res = self.result.get(u.cell)
            rec = {"cell": u.cell, "reference": u.reference, **self.compare.describe(u),
                   "players": u.players, "judge": u.judge,
                   "verdict": res["verdict"] if res else OPEN, "deals": res["n"] if res else 0,
                   "decided_at": self.decided_at[u.cell], "looks": list(self.looks[u.cell]),
                   "stop": states[u.cell].stop, "zone": self.zone, "interval": self.interval}
            if res is not None:
                w = res["worst"]
                rec.update(measure=res["keys"][w], who=res["who"][w], effect=float(res["mean"][w]),
                           lo=float(res["lo"][w]), hi=float(res["hi"][w]), margin=float(res["margins"][w]))
                if "bounded" in res:  # the finite-sample intervals, which the report cannot rebuild from sums
                    rec["bounded"] = [{"measure": k, "who": h, "lo": float(lo), "hi": float(hi)}
                                      for k, h, lo, hi, b in zip(res["keys"], res["who"], res["lo"], res["hi"],
                                                                 res["bounded"], strict=True) if b]
                if res["verdict"] == OPEN:
                    more = deals_to_decide(res["mean"], res["sd"], res["n"], res["margins"], self.zone,
                                           self.confidence) - res["n"]
                    rec["more_deals"] = int(math.ceil(more)) if math.isfinite(more) else None
            out.append(rec)
        return out
