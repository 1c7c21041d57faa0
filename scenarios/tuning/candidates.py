"""The candidates of ``ssb tune`` (sets of changes), the scenario each one plays, the games it plays
(:class:`GamePlayer`) and what the search makes of their verdicts."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import io
import json
import math
from collections import OrderedDict
from dataclasses import dataclass, field

import pandas as pd

from scenarios.load import scenario_from_doc
from scenarios.worker import ChunkTask
from simulator import games as registry
from scenarios.tuning.space import apply_switches, switch_game

MET, FAILED, OPEN = "met", "failed", "open"


# =========================================================================== candidates


def candidate_id(changes):
    """A candidate's stable text: its (key, value) changes in key order, as JSON."""
    return json.dumps(sorted([k, v] for k, v in dict(changes).items()))


def candidate_size(spec, changes):
    """``(keys changed, total normalised change)`` of a candidate."""
    by_key = {p.key: p for p in spec.params}
    sizes = [by_key[k].change(v) for k, v in dict(changes).items()]
    return sum(1 for s in sizes if s > 0), float(sum(sizes))


def candidate_scenario(spec, changes, judge, players, games, seed, boards=None):
    """The scenario that plays a candidate: the tuned scenario, the judge's lineup, the changes as
    overrides (another game: the tuned variant alone, with the changes applied to its switches, on
    ``boards``, default the tuning file's)."""
    doc = copy.deepcopy(spec.scenario.doc)
    doc["lineup"] = copy.deepcopy(judge.lineup)
    doc["players"] = list(players)
    doc["games"] = int(games)
    doc["seed"] = int(seed)
    if spec.game:
        game = registry.get(spec.game)
        doc["variants"] = {spec.variant: apply_switches(game, spec.variant_table, changes, spec.path)}
        doc["reference"] = spec.variant
        doc["boards"] = list(boards or spec.boards)
        return scenario_from_doc(doc, spec.scenario.path)
    doc["overrides"] = {**spec.scenario.overrides, **dict(changes)}
    return scenario_from_doc(doc, spec.scenario.path)


# =========================================================================== playing games


class GamePlayer:
    """Plays the cells of candidate scenarios in memory, through the backends of ``ssb run``.

    A cell's games depend only on its content (cell, its instruments' overrides, lineup, run seed),
    so the games played for one candidate are reused by every other candidate that leaves that
    cell alone (the other instruments of a department, the unchanged base) and by a later rung
    (which plays only the games it adds). ``played`` counts the games an uninterrupted run plays
    (see ``ledger``).
    """

    def __init__(self, dispatch, jobs, cache_size=96):
        self.dispatch = dispatch
        self.jobs = jobs
        self.cache = OrderedDict()  # cell id -> (seats, games) held in this process
        # The cache as an uninterrupted run holds it: cell id -> [games, changed]. ``played`` counts
        # the games beyond it, so a resumed process (whose cache starts empty) books the same games
        # as the uninterrupted one: games it plays again are not counted twice.
        self.ledger = OrderedDict()
        self.cache_size = cache_size
        self.played = 0
        self.seq = 0  # tables() calls so far (orders the ledger snapshots kept in the study)

    def snapshot(self):
        """The ledger, to store with a record of the study (see :meth:`restore`)."""
        return {"seq": self.seq, "played": self.played, "cells": [[k, n, c] for k, (n, c) in self.ledger.items()]}

    def restore(self, snap):
        """Continue from the ledger of the last record a resumed study holds."""
        self.seq = int(snap["seq"])
        self.ledger = OrderedDict((k, [int(n), bool(c)]) for k, n, c in snap["cells"])

    @staticmethod
    def _cell_key(scenario, cell):
        if switch_game(scenario) is not None:
            # Another game: the cell's deals, its variant's switches (non-empty: evictable) and board file.
            table = sorted((k, json.dumps(v)) for k, v in scenario.variants[cell.variant].__dict__.items())
            rows = scenario.strategies.matrix(list(cell.lineup))
            return json.dumps(
                [cell.index, cell.key, cell.deal_key, scenario.seed, scenario.game, table,
                 scenario.board_objects[cell.board].path, hashlib.sha256(rows.tobytes()).hexdigest()]
            )
        mine = {i.casefold() for i in cell.instruments}
        # A board override (``board.rulings.*``) changes every cell; the deal key says whether the
        # cell's deals are shared with the other sets of its scenario (they seed its games).
        over = sorted(
            (k, json.dumps(v))
            for k, v in scenario.overrides.items()
            if k.partition(".")[0].casefold() in mine or k.partition(".")[0].casefold() == "board"
        )
        rows = scenario.strategy_rows(cell.lineup)
        return json.dumps(
            [cell.index, cell.key, cell.deal_key, scenario.seed, scenario.wheel, scenario.max_rounds, over,
             hashlib.sha256(rows.tobytes()).hexdigest()]
        )

    def tables(self, scenarios):
        """``[(seats, games)]`` DataFrames of each scenario's cells, at its ``games`` per cell."""
        self.seq += 1
        plan, need, source, changed_key = [], OrderedDict(), {}, {}
        for sc in scenarios:
            for cell in sc.cells:
                full = self._cell_key(sc, cell)
                key = hashlib.sha256(full.encode()).hexdigest()[:32]
                changed_key[key] = bool(json.loads(full)[5])
                plan.append((key, cell.games))
                if cell.games > need.get(key, 0):
                    need[key] = cell.games
                    source[key] = (sc, cell, full)
        tasks = []
        for key, n in need.items():
            booked = self.ledger.get(key, [0, changed_key[key]])[0]
            self.played += max(0, n - booked)
            have = self.cache.get(key)
            n_have = 0 if have is None else len(have[1])
            if n_have >= n:
                continue
            sc, cell, full = source[key]
            spec = sc.cell_specs()[cell.index]
            # The worker keeps a cell's setup by run id: make it name the cell's content.
            spec = dataclasses.replace(spec, run_id=hashlib.sha256(full.encode()).hexdigest())
            step = max(100, math.ceil((n - n_have) / max(1, 2 * self.jobs)))
            for a in range(n_have, n, step):
                tasks.append((key, ChunkTask(len(tasks), spec, a, min(n, a + step), sc.seed)))
        for key, n in need.items():
            entry = self.ledger.setdefault(key, [0, changed_key[key]])
            entry[0] = max(entry[0], n)
        if tasks:
            by_chunk = {t.chunk: key for key, t in tasks}
            got = {}
            for res in self.dispatch(t for _, t in tasks):
                got[res.chunk] = (pd.read_parquet(io.BytesIO(res.seats)), pd.read_parquet(io.BytesIO(res.table_games)))
            for key in dict.fromkeys(by_chunk.values()):
                parts = [got[c] for c in sorted(got) if by_chunk[c] == key]
                old = self.cache.get(key)
                seats = pd.concat(([old[0]] if old else []) + [p[0] for p in parts], ignore_index=True)
                games = pd.concat(([old[1]] if old else []) + [p[1] for p in parts], ignore_index=True)
                self.cache[key] = (seats, games)
        out = []
        i = 0
        for sc in scenarios:
            s_parts, g_parts = [], []
            for cell in sc.cells:
                key, n = plan[i]
                i += 1
                seats, games = self.cache[key]
                self.cache.move_to_end(key)
                self.ledger.move_to_end(key)
                g_parts.append(games[games["game"] < n])
                s_parts.append(seats[seats["game"] < n])
            out.append((pd.concat(s_parts, ignore_index=True), pd.concat(g_parts, ignore_index=True)))
        # Evict the least recently used cells, but keep those of the unchanged data (the base and
        # the other instruments of a department): every candidate and judge comes back to them.
        # The ledger decides (so a resumed process evicts what the uninterrupted one would).
        changed = [k for k, (_, c) in self.ledger.items() if c]
        while len(self.ledger) > self.cache_size and changed:
            k = changed.pop(0)
            self.ledger.pop(k)
            self.cache.pop(k, None)
        for k in [k for k in self.cache if k not in self.ledger]:
            self.cache.pop(k)
        return out


# =========================================================================== verdicts


def overall(verdicts):
    """met when every target is met, failed when one is shown failing, else open."""
    states = [v.state for v in verdicts]
    if any(s == FAILED for s in states):
        return FAILED
    if all(s == MET for s in states):
        return MET
    return OPEN


def verdicts_json(verdicts):
    return [v.as_dict() if hasattr(v, "as_dict") else dict(v) for v in verdicts]


@dataclass
class Race:
    """A candidate's way through the rungs."""

    changes: dict
    state: str = "running"  # then "met" (met at the last rung) or "unmet"
    rung: int = -1
    verdicts: list = field(default_factory=list)
    games: int = 0  # games per cell at the last rung it reached


def relabel(target, n):
    """A target's label as it reads at ``n`` players (a label the file wrote is kept)."""
    pl = "/".join(str(x) for x in target["players"])
    return target["label"].replace(f"at {pl} players", f"at {n} players")


def refused_verdicts(targets, reason):
    """Verdicts of a candidate the game's loader refuses: every target failed, far away."""
    return [{"target": t["label"], "kind": t["kind"], "state": FAILED, "estimate": None, "lo": None, "hi": None,
             "distance": 1e3, "detail": f"refused by the data loader: {reason}"} for t in targets]


def search_score(state, verdicts, change, k):
    """What the sampler minimises in a search over ``k`` keys: a met candidate scores its total
    change (at most ``k``), any other ``k + 1`` plus how far its estimates are from the targets."""
    if state == MET:
        return float(change)
    dist = sum(min(float(v["distance"]), 1e3) for v in verdicts if v["state"] != MET)
    return float(k + 1 + dist)


def overall_from_json(verdicts):
    """:func:`overall` on verdicts stored as dicts."""
    states = [v["state"] for v in verdicts]
    if any(s == FAILED for s in states):
        return FAILED
    if all(s == MET for s in states):
        return MET
    return OPEN
