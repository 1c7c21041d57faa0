"""Sequential runs: play each cell in rounds of deals until its seat verdict is decided.

A scenario with a ``[sequential]`` table (or ``--set sequential=true``) is played in rounds::

    [sequential]
    budget = { greedy = 40000, tuned = 40000, search = 9000 }   # games per judge, over all its cells
    round = { greedy = 2000, tuned = 2000, search = 500 }       # deals per open cell per round
    strong = ["search", "tuned", "greedy"]   # strongest judge first (default: the lineup's order reversed)
    seconds = 600         # optional: CPU seconds of play for the whole run (see below)
    margin = 0.03         # the equivalence margin of the seat verdict (as ``ssb report --margin``)
    confidence = 0.95
    verdicts = ["seats"]  # what decides a cell (only the seat verdict is judged sequentially)

The scenario's ``games`` (and ``lineup.max_games``) become each cell's cap. Every cell must be a
mirror lineup (one strategy, the *judge*, in every seat), whose seat verdict is judged from its own
games. After each round every cell that played is judged again with the anytime-valid verdict of
:mod:`scenarios.sequential_stats`; a decided cell stops. Each judge's budget is shared by its cells:
what a decided cell leaves goes to the judge's cells still open, split evenly; the strong judge's
cells are dispatched first in every round. ``seconds`` is one pool for the whole run, counted in
the workers' CPU seconds: when spent, the run ends after the round under way and the open cells
stop with reason ``seconds``, strongest judge first having been served in every round.

Determinism: a game's seed depends only on (run seed, cell, deal), and what a round plays depends
only on the verdicts of the looks before it, so the stopping points and the tables are the same
whatever ``--jobs``, ``--chunk-size`` or backend. Only a ``seconds`` budget depends on the machine
(then the manifest says where it stopped). The manifest records every round before its chunks are
played; ``--resume`` plays a round's missing chunks, judges the recorded looks again from the
tables, and goes on with the same sequence.

The record of each cell (``manifest["sequential"]["cells"]``) is described in
docs/guide/sequential.md ("The record").
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scenarios import sequential_stats as SS
from scenarios import results as R
from scenarios import rundir as RD
from simulator.errors import DataError
from simulator.provenance import code_version

KEYS = ("budget", "round", "strong", "seconds", "margin", "confidence", "verdicts")
VERDICTS = ("seats",)
DEFAULT_ROUND = 1000
STOP_DECIDED, STOP_BUDGET, STOP_CAP, STOP_SECONDS = "decided", "budget", "cap", "seconds"


@dataclass(frozen=True)
class SequentialPlan:
    """The validated ``[sequential]`` table."""

    budget: dict  # judge -> games over all its cells
    round: dict  # judge -> deals per open cell per round
    strong: tuple  # judges, strongest first
    seconds: float | None
    margin: float
    confidence: float
    verdicts: tuple = VERDICTS

    def as_doc(self):
        doc = {
            "budget": dict(self.budget),
            "round": dict(self.round),
            "strong": list(self.strong),
            "margin": self.margin,
            "confidence": self.confidence,
            "verdicts": list(self.verdicts),
        }
        if self.seconds is not None:
            doc["seconds"] = self.seconds
        return doc


def judge_of(cell):
    return cell.lineup[0]


def _number(ck, value, key, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo < value < hi:
        ck.fail(key, f"expected a number between {lo} and {hi} (exclusive), got {value!r}")
    return float(value)


def _per_judge(ck, raw, key, judges, default, hi):
    if raw is None:
        return {j: default(j) for j in judges}
    if isinstance(raw, int) and not isinstance(raw, bool):
        return {j: ck.integer(raw, key, lo=1, hi=hi) for j in judges}
    if not isinstance(raw, dict):
        ck.fail(key, f"expected an integer or a table of judge = integer (judges: {', '.join(judges)})")
    for name in raw:
        if name not in judges:
            ck.fail(f"{key}.{name}", f"not a judge of this scenario (judges: {', '.join(judges)})")
    return {j: ck.integer(raw[j], f"{key}.{j}", lo=1, hi=hi) if j in raw else default(j) for j in judges}


def parse_sequential(ck, raw, cells, max_games):
    """The ``[sequential]`` table of a scenario (``true``: every default), checked against its cells.

    Errors name ``sequential.KEY``; every cell must be a mirror lineup."""
    if raw is False or raw is None:
        return None
    if raw is True:
        raw = {}
    ck.table(raw, "sequential", optional=KEYS)
    for c in cells:
        if len(set(c.lineup)) != 1:
            ck.fail(
                "sequential",
                f"lineup {','.join(c.lineup)} is not a mirror: a sequential run judges seats from mirror "
                "lineups (one strategy in every seat), e.g. [lineup] mirror = [\"greedy\", \"search\"]",
            )
    judges = list(dict.fromkeys(judge_of(c) for c in cells))
    caps = {j: sum(c.games for c in cells if judge_of(c) == j) for j in judges}
    budget = _per_judge(ck, raw.get("budget"), "sequential.budget", judges, lambda j: caps[j], max_games)
    rounds = _per_judge(ck, raw.get("round"), "sequential.round", judges, lambda j: DEFAULT_ROUND, max_games)
    strong = judges[::-1]
    if "strong" in raw:
        given = list(ck.str_list(raw["strong"], "sequential.strong", min_len=1))
        for name in given:
            if name not in judges:
                ck.fail("sequential.strong", f"'{name}' is not a judge of this scenario (judges: {', '.join(judges)})")
        strong = given + [j for j in strong if j not in given]
    seconds = None
    if "seconds" in raw:
        seconds = _number(ck, raw["seconds"], "sequential.seconds", 0, 1e7)
    margin = _number(ck, raw.get("margin", 0.03), "sequential.margin", 0, 0.5)
    confidence = _number(ck, raw.get("confidence", 0.95), "sequential.confidence", 0.5, 1)
    verdicts = tuple(ck.str_list(raw.get("verdicts", list(VERDICTS)), "sequential.verdicts", min_len=1))
    for v in verdicts:
        if v not in VERDICTS:
            ck.fail(
                "sequential.verdicts",
                f"'{v}' cannot decide a sequential run: only the seat verdict ('seats') is judged with "
                "anytime-valid tests; instrument and variant verdicts come from the games played",
            )
    return SequentialPlan(budget, rounds, tuple(strong), seconds, margin, confidence, verdicts)


def apply_set(doc, parts, value, path):
    """``--set sequential=true``, ``--set sequential.budget.search=4000``, ``--set sequential.round=500``."""
    key = ".".join(parts)
    if len(parts) == 1:
        doc["sequential"] = value
        return
    if parts[1] not in KEYS:
        raise DataError(path, key, f"unknown key '{parts[1]}' (known: {', '.join(KEYS)})")
    table = doc.get("sequential")
    if not isinstance(table, dict):
        table = doc["sequential"] = {}
    if len(parts) == 2:
        table[parts[1]] = value
        return
    if len(parts) > 3 or parts[1] not in ("budget", "round"):
        raise DataError(path, key, f"'sequential.{parts[1]}' has no sub-keys")
    sub = table.get(parts[1])
    if not isinstance(sub, dict):
        sub = table[parts[1]] = {}
    sub[parts[2]] = value


# =========================================================================== the state of a run


class CellState:
    """One cell's sequence: games played, wins per seat, the looks and the stopping reason."""

    def __init__(self, cell):
        self.cell = cell
        self.n = 0
        self.wins = np.zeros(cell.players, dtype=np.int64)
        self.looks = []
        self.verdict = SS.INCONCLUSIVE
        self.stop = None
        self.decided_at = None

    @property
    def open(self):
        return self.stop is None

    def judge(self, plan):
        """Judge the cell at its current count (one look); a decided cell stops."""
        self.looks.append(self.n)
        res = SS.cell_verdict(self.wins, self.n, self.cell.players, plan.margin, plan.confidence)
        self.verdict = res["verdict"]
        if self.verdict != SS.INCONCLUSIVE:
            self.stop = STOP_DECIDED
            self.decided_at = self.n

    def record(self, plan):
        rec = SS.cell_record(self.wins, self.n, self.cell.players, plan.margin, plan.confidence,
                             affordable=self.cell.games)
        if rec["verdict"] != self.verdict:  # cannot happen: the last look is the record's count
            raise RuntimeError(f"cell {self.cell.index}: record and last look disagree")
        for k in ("row_tost_p", "row_outside_p"):
            rec.pop(k)
        return {
            "cell": self.cell.index,
            "judge": judge_of(self.cell),
            "players": self.cell.players,
            **rec,
            "decided_at": self.decided_at,
            "looks": list(self.looks),
            "stop": self.stop,
            "cap": self.cell.games,
        }


def need(state, plan):
    """Games the cell would still need to decide if its seats kept their current win rates (0 before
    its first look, ``inf`` when no count would: an estimate on a margin edge)."""
    if state.n == 0:
        return 0.0
    rates = state.wins / state.n
    total = SS.games_to_decide(rates, state.cell.players, plan.margin, plan.confidence, start=state.n)
    return total - state.n


def allocate(states, plan, spent):
    """Deals per cell for the next round ({cell index: deals}); marks the cells that must stop.

    Judges in ``plan.strong`` order. Within a judge, the budget left goes first to the open cells
    that would decide within it at their current estimates (*hopeful*, closest to deciding first),
    one round each, and what those are projected to need is kept for them; the other open cells
    (on or near a margin edge) share only what is left beyond that. Depends only on the states,
    so on the looks before: the same whatever the workers."""
    alloc = {}
    for judge in plan.strong:
        open_cells = [s for s in states if s.open and judge_of(s.cell) == judge]
        if not open_cells:
            continue
        left = plan.budget[judge] - spent[judge]
        needs = {s.cell.index: need(s, plan) for s in open_cells}
        ranked = sorted(open_cells, key=lambda s: (needs[s.cell.index], s.cell.index))
        hopeful = [s for s in ranked if needs[s.cell.index] <= left]
        others = [s for s in ranked if needs[s.cell.index] > left]
        reserve = sum(min(max(needs[s.cell.index], 1.0), s.cell.games - s.n) for s in hopeful)
        for s in hopeful:
            add = int(min(plan.round[judge], s.cell.games - s.n, left))
            if add > 0:
                alloc[s.cell.index] = add
                left -= add
        surplus = left - max(0.0, reserve - sum(alloc.get(s.cell.index, 0) for s in hopeful))
        for s in others:
            add = int(min(plan.round[judge], s.cell.games - s.n, max(surplus, 0)))
            if add > 0:
                alloc[s.cell.index] = add
                surplus -= add
        for s in open_cells:
            if s.cell.index in alloc:
                continue
            room = s.cell.games - s.n
            if room <= 0:
                s.stop = STOP_CAP
            elif not any(c.cell.index in alloc for c in open_cells):
                s.stop = STOP_BUDGET  # nothing of this judge plays any more
    return alloc


def round_rows(alloc, states, plan, first_chunk, chunk_size, jobs):
    """Chunk rows ``[chunk, cell, start, stop]`` of a round, the strong judge's cells first."""
    by_index = {s.cell.index: s for s in states}
    order = sorted(alloc, key=lambda c: (plan.strong.index(judge_of(by_index[c].cell)), c))
    rows = []
    for c in order:
        start, add = by_index[c].n, alloc[c]
        piece = max(1, min(chunk_size, math.ceil(add / max(jobs, 1))))
        for a in range(start, start + add, piece):
            rows.append([first_chunk + len(rows), c, a, min(a + piece, start + add)])
    return rows


def chunk_wins(out_dir, chunk, players):
    """Wins per seat in one chunk's games file."""
    games = R.read_chunk(R.chunk_paths(out_dir, chunk)[1], ("winner",), strings=frozenset())
    w = games["winner"].to_numpy()
    return np.bincount(w[(w >= 0) & (w < players)], minlength=players)


# =========================================================================== running


def _sync_manifest(manifest, states, plan, scenario):
    seq = manifest["sequential"]
    seq["cells"] = [s.record(plan) if s.looks else None for s in states]
    played = {s.cell.index: s.n for s in states}
    for c in manifest["cells"]:
        c["cap"] = c.get("cap", c["games"])
        c["deals"] = c["games"] = played[c["cell"]]
    manifest["totals"]["games"] = sum(played.values())
    manifest["totals"]["chunks"] = len(manifest["chunks"]["plan"])


def run_sequential(scenario, out_dir, *, jobs, backend, scheduler, resume, force, chunk_size, progress, announce):
    """Play a sequential scenario (see the module doc); returns a :class:`scenarios.runner.RunSummary`."""

    plan = scenario.sequential
    data = scenario.data_files()
    code = code_version(scenario.game)
    old_manifest = None
    if resume and (out_dir / R.MANIFEST).is_file():
        old_manifest = R.read_manifest(out_dir)
        chunk_size = chunk_size or int(old_manifest.get("chunks", {}).get("size", RD.DEFAULT_CHUNK_SIZE))
    chunk_size = int(chunk_size or RD.DEFAULT_CHUNK_SIZE)
    if chunk_size < 1:
        raise DataError("--chunk-size", "", "must be at least 1")
    manifest = RD.new_manifest(scenario, [], chunk_size, data, code)
    manifest["sequential"] = {"settings": plan.as_doc(), "rounds": [], "cells": [], "cpu_seconds": 0.0}
    if old_manifest is not None:
        # The plan of a sequential run grows round by round: resume compares everything else.
        manifest["chunks"] = dict(old_manifest.get("chunks", manifest["chunks"]))
    out_dir.mkdir(parents=True, exist_ok=True)
    with RD.locked(out_dir):
        old, clear = RD.previous_run(out_dir, manifest, resume, force)
        compile_seconds = 0.0 if scheduler else RD.compile_in_parent(scenario, announce)
        with RD.dispatcher(backend, jobs, scheduler) as dispatch:
            if clear:
                RD.clear_tables(out_dir)
            if old is not None:
                manifest["timings"] = old.get("timings", manifest["timings"])
                manifest["timings"].setdefault("runs", [])
                manifest["sequential"] = old["sequential"]
                manifest["chunks"] = old["chunks"]
            RD.remove_temporaries(out_dir)
            for d in (R.SEATS_DIR, R.GAMES_DIR):
                (out_dir / d).mkdir(exist_ok=True)
            return _execute(scenario, out_dir, manifest, plan, dispatch, jobs, backend, scheduler, progress,
                            old is not None, compile_seconds, announce)


def _execute(scenario, out_dir, manifest, plan, dispatch, jobs, backend, scheduler, progress, resumed,
             compile_seconds, announce):
    import hashlib
    import json
    import os

    from scenarios.worker import ChunkTask, parent_token

    seq = manifest["sequential"]
    timings = manifest["timings"]
    run_entry = {
        "started": RD.now(), "resumed": resumed, "backend": backend, "jobs": jobs, "scheduler": scheduler,
        "chunks_skipped": 0, "compile_seconds": round(compile_seconds, 1), "worker_compiles": 0,
        "games": 0, "wall_seconds": 0.0, "cpu_seconds": 0.0, "finished": None,
    }
    timings["runs"].append(run_entry)
    manifest["status"] = R.STATUS_RUNNING
    states = [CellState(c) for c in scenario.cells]
    by_index = {s.cell.index: s for s in states}
    spent = {j: 0 for j in plan.budget}
    run_id = hashlib.sha256(
        json.dumps([scenario.sha256, RD.file_hashes(manifest["data_files"]), manifest["code"]["kernel_sha256"]]).encode()
    ).hexdigest()
    specs = scenario.cell_specs(run_id)
    token = None if scheduler else parent_token()
    total = sum(min(plan.budget[j], sum(c.games for c in scenario.cells if judge_of(c) == j)) for j in plan.budget)
    bar = RD.progress_bar(total, 0, scenario.name, sys.stderr.isatty() if progress is None else progress)
    t0 = time.perf_counter()
    played = 0
    compiles = {}

    def account(final):
        wall = time.perf_counter() - t0
        run_entry.update(games=played, wall_seconds=round(wall, 3))
        run_entry["games_per_second"] = round(played / wall, 1) if wall > 0 else None
        if final:
            run_entry["finished"] = RD.now()
        timings["wall_seconds"] = round(sum(r.get("wall_seconds", 0.0) for r in timings["runs"]), 3)
        timings["games_played"] = sum(r.get("games", 0) for r in timings["runs"])
        timings["games_per_second"] = (
            round(timings["games_played"] / timings["wall_seconds"], 1) if timings["wall_seconds"] > 0 else None
        )
        return wall

    def play(rows):
        """Play the rows' chunks not yet on disk; returns how many were already there."""
        nonlocal played
        plan_rows = manifest["chunks"]["plan"]
        done = R.done_chunks(out_dir, len(plan_rows))
        mine = {r[0] for r in rows} & done
        if mine:
            mine -= set(RD.drop_damaged(out_dir, manifest, mine, announce))
        todo = [r for r in rows if r[0] not in mine]
        tasks = (ChunkTask(chunk=k, spec=specs[c], start=a, stop=b, run_seed=scenario.seed, parent=token)
                 for k, c, a, b in todo)
        if todo:
            for res in dispatch(tasks):
                seats_path, games_path = R.chunk_paths(out_dir, res.chunk)
                R.write_atomic(seats_path, res.seats)
                R.write_atomic(games_path, res.table_games)
                played += res.games
                seq["cpu_seconds"] = round(seq.get("cpu_seconds", 0.0) + res.cpu_seconds, 3)
                run_entry["cpu_seconds"] = round(run_entry["cpu_seconds"] + res.cpu_seconds, 3)
                if res.pid != os.getpid():
                    compiles[res.pid] = res.compiles
                run_entry["worker_compiles"] = sum(compiles.values())
                bar.update(res.games)
        missing = {r[0] for r in rows} - R.done_chunks(out_dir, len(plan_rows))
        if missing:
            raise R.RunDirError(out_dir, "chunks", f"{len(missing)} chunks missing after a round: {sorted(missing)[:10]}")
        return len(mine)

    def finish_round(rows):
        for k, c, a, b in rows:
            s = by_index[c]
            s.wins += chunk_wins(out_dir, k, s.cell.players)
        for c in dict.fromkeys(r[1] for r in rows):
            s = by_index[c]
            s.n = max(b for _, cc, _, b in rows if cc == c)
            spent[judge_of(s.cell)] += s.n - (s.looks[-1] if s.looks else 0)
            s.judge(plan)

    try:
        # Resume: replay the recorded rounds (playing what is missing), judging each look again.
        plan_rows = manifest["chunks"]["plan"]
        for rnd in seq["rounds"]:
            rows = [r for r in plan_rows if rnd["chunks"][0] <= r[0] < rnd["chunks"][1]]
            run_entry["chunks_skipped"] += play(rows)
            finish_round(rows)
            bar.update(0)
        while True:
            if plan.seconds is not None and seq.get("cpu_seconds", 0.0) >= plan.seconds:
                for s in states:
                    if s.open:
                        s.stop = STOP_SECONDS
                break
            alloc = allocate(states, plan, spent)
            if not alloc:
                break
            first = len(plan_rows)
            rows = round_rows(alloc, states, plan, first, manifest["chunks"]["size"], jobs)
            plan_rows.extend(rows)
            seq["rounds"].append({"round": len(seq["rounds"]), "chunks": [first, first + len(rows)],
                                  "cells": {str(c): alloc[c] for c in sorted(alloc)}})
            _sync_manifest(manifest, states, plan, scenario)
            account(final=False)
            R.write_manifest(out_dir, manifest)  # the round is recorded before it is played
            play(rows)
            finish_round(rows)
    except BaseException:
        bar.close()
        account(final=False)
        R.write_manifest(out_dir, manifest)
        raise
    bar.close()
    for s in states:  # a cell no round reached (a budget of 0 games left) is judged at 0 games
        if not s.looks:
            s.judge(plan)
            s.stop = s.stop or STOP_BUDGET
    _sync_manifest(manifest, states, plan, scenario)
    wall = account(final=True)
    manifest["status"] = R.STATUS_COMPLETE
    timings["finished"] = RD.now()
    R.write_manifest(out_dir, manifest)
    return RD.RunSummary(
        out_dir=Path(out_dir), scenario=scenario.name, status=R.STATUS_COMPLETE, cells=len(scenario.cells),
        chunks=len(plan_rows), chunks_skipped=run_entry["chunks_skipped"], games_total=manifest["totals"]["games"],
        games_played=played, wall_seconds=wall, manifest=manifest,
    )
