"""The race of ``ssb tune`` (``[search] method = "race"``; the tuning file: :mod:`scenarios.tuning.spec`).

Every candidate (a set of key changes, at most ``max_keys``) is judged by the verdicts ``ssb run``
prints for a sequential scenario: each of its cells, one (player count, mirror judge), plays rounds
of fresh deals and is looked at after each round by the zone test (:func:`scenarios.sequential.look`,
:mod:`stats.zone`, the scenario's margin, indifference and confidence). Round ``r`` brings each open
cell to ``round x (2^(r+1) - 1)`` deals (each round doubles the last), the cheapest judge's cells
first, so a candidate shown unfair by a cheap judge never pays for the expensive one that round.

* A candidate is **dropped** at its first cell decided unfair (a ``seats_fair`` cell, or a
  ``seats_not_unfair`` constraint broken).
* It is **met** when every ``seats_fair`` cell is decided fair (the constraints undecided or fair).
* After each round the racing candidates are ranked by how close they are to fair (the largest
  seat distance from the fair share over their cells, a cell decided fair counting 0), then by
  size (fewest keys, least change); the best ``keep`` share races on (successive halving), the
  others wait on the bench and come back, best first, when every racer is dropped.
* The race stops at the round where a candidate is met (the smallest met one is the answer), when
  nothing is left, or when the budget of declared CPU seconds (each game priced by its judge's
  ``cost``) is spent.

Cells are shared by content: a cell's games depend only on its player count, judge, the race seed
and the overrides that can touch it (the instrument keys and board keys, but a seat lever of
another player count, ``board.seats.KEY.M``, leaves it alone). So a candidate that changes the
3-player seats plays its 4-player cells on the very deals, and with the very verdicts, of the
unchanged game, and a candidate that combines two keys reuses the cells each key played alone:
nothing is played twice, and nothing played twice is paid twice.

Determinism: the deals of a cell are seeded by (race seed, cell), rounds are planned from the
verdicts and declared costs alone, so the answer is the same whatever ``--jobs``. The state is
written after each round (``race.json``) with ``progress.json``; ``--resume`` continues from the
last finished round to the same answer.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import io
import json
import math
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from scenarios.load import scenario_from_doc
from scenarios.rundir import dispatcher, resolve_jobs
from scenarios.sequential import look
from scenarios.tuning.candidates import candidate_id, candidate_size
from scenarios.tuning.search import TuneDirError
from scenarios.tuning.spec import race_cells, race_doc
from scenarios.worker import ChunkTask
from simulator.errors import DataError
from simulator.seeds import derive_seed
from stats.words import FAIR, UNDECIDED, UNFAIR
from stats.zone import shrunk_rates

STATE_FILE = "race.json"
PROGRESS_FILE = "progress.json"
RESULT_FILE = "tune.json"
RACING, BENCH, DROPPED, MET, REFUSED = "racing", "bench", "dropped", "met", "refused"


def enumerate_candidates(spec):
    """Every candidate of at most ``max_keys`` keys, smallest first: ``[(id, changes)]``."""
    import itertools

    out = []
    params = spec.params
    for k in range(1, spec.settings["max_keys"] + 1):
        for combo in itertools.combinations(params, k):
            for values in itertools.product(*[p.options() for p in combo]):
                changes = {p.key: v for p, v in zip(combo, values, strict=True)}
                out.append(changes)
    ranked = sorted(out, key=lambda c: (*candidate_size(spec, c), candidate_id(c)))
    return [(candidate_id(c), c) for c in ranked]


def cell_label(n, judge):
    return f"{n}p {judge}"


def relevant(overrides, n):
    """The overrides that can change a game of ``n`` players: all but another count's seat levers."""
    out = {}
    for k, v in overrides.items():
        parts = k.split(".")
        if parts[0].casefold() == "board" and len(parts) == 4 and parts[1] == "seats" and parts[3] != str(n):
            continue
        out[k] = v
    return out


class Race:
    """Runs the race of a race-mode :class:`~scenarios.tuning.spec.TuneSpec` into ``out_dir``."""

    def __init__(self, spec, out_dir, *, jobs=1, backend="local", scheduler=None, resume=False, force=False,
                 progress=None, stop_after=None):
        self.spec = spec
        self.out_dir = Path(out_dir)
        self.jobs = resolve_jobs(jobs)
        self.backend, self.scheduler = backend, scheduler
        self.resume, self.force = resume, force
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.stop_after = stop_after  # tests: stop (as if interrupted) after this many rounds
        self.seed = derive_seed(spec.seed, "race")
        s = spec.settings
        self.cost = s["cost"]
        self.cells = race_cells(spec.targets)  # (players, judge) -> "fair" | "not_unfair"
        order = {j.label: i for i, j in enumerate(spec.race_judges)}
        # The cheapest judge plays first each round (a candidate it drops costs the others nothing).
        self.judges = sorted(order, key=lambda j: (self.cost[j], order[j]))
        self.zone = SimpleNamespace(**spec.zone)
        self.cpu_seconds = 0.0

    # ------------------------------------------------------------------ state

    def _identity(self):
        return {**self.spec.identity(), "format": "ssb-tune-race"}

    def _new_state(self):
        cands = enumerate_candidates(self.spec)
        return {
            "identity": self._identity(),
            "round": 0,
            "seconds_spent": 0.0,
            "games": 0,
            "cpu_seconds": 0.0,
            "candidates": {cid: {"changes": [[k, v] for k, v in ch.items()], "state": RACING, "round": None,
                                 "cells": {}, "reason": None} for cid, ch in cands},
            "order": [cid for cid, _ in cands],
            "store": {},  # cell key -> {"players", "judge", "wins", "n", "looks", "verdict"}
            "rounds": [],
            "stop": None,
        }

    def _load(self):
        path = self.out_dir / STATE_FILE
        exists = path.is_file()
        if exists and self.force:
            for name in (STATE_FILE, PROGRESS_FILE, RESULT_FILE):
                (self.out_dir / name).unlink(missing_ok=True)
            exists = False
        if exists and not self.resume:
            raise TuneDirError(self.out_dir, "", "holds a race; continue it with --resume or start over with --force")
        if not exists and self.resume:
            raise TuneDirError(self.out_dir, "", "holds no race to resume")
        if not exists:
            return self._new_state()
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise TuneDirError(path, "", f"cannot be read ({exc}): start over with --force") from None
        if state.get("identity") != self._identity():
            raise TuneDirError(self.out_dir, "identity", "the race on disk was made with other settings or data: "
                                                         "start over with --force or choose another --out")
        return state

    def _save(self, state):
        from scenarios.results import write_atomic

        write_atomic(self.out_dir / STATE_FILE, (json.dumps(state) + "\n").encode())
        write_atomic(self.out_dir / PROGRESS_FILE, (json.dumps(self.progress_doc(state), indent=1) + "\n").encode())

    # ------------------------------------------------------------------ cells

    def _scenario(self, changes, judge, n):
        doc = copy.deepcopy(race_doc(self.spec.scenario))
        doc["lineup"] = {"mirror": judge}
        doc["players"] = [n]
        doc["games"] = int(self.spec.settings["games"])
        doc["seed"] = int(self.seed)
        doc["overrides"] = {**self.spec.scenario.overrides, **dict(changes)}
        return scenario_from_doc(doc, self.spec.scenario.path)

    def cell_key(self, changes, n, judge):
        over = relevant({**self.spec.scenario.overrides, **dict(changes)}, n)
        text = json.dumps([n, judge, self.seed, sorted((k, json.dumps(v)) for k, v in over.items())])
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def _verdict(self, wins, n, players):
        if n == 0:
            return UNDECIDED
        return look(np.asarray(wins, dtype=float), n, players, self.zone)

    def _distance(self, cell, need):
        """How far a cell is from what it must show, in points of the worst seat: 0 when decided
        fair; a constraint counts only beyond the zone's inner edge."""
        if cell["verdict"] == FAIR:
            return 0.0
        players = cell["players"]
        rates = shrunk_rates(cell["wins"], cell["n"], players)
        dev = float(np.max(np.abs(rates - 1.0 / players)))
        if need == "not_unfair":
            dev = max(0.0, dev - (self.zone.margin - self.zone.indifference))
        return 100.0 * dev

    # ------------------------------------------------------------------ one round

    def _play(self, state, dispatch, wanted):
        """Play ``wanted`` ({cell key: (changes, players, judge, deals)}): brings each to its deals."""
        tasks, owner = [], {}
        for key, (changes, n, judge, deals) in wanted.items():
            store = state["store"][key]
            have = store["n"]
            if deals <= have:
                continue
            sc = self._scenario(changes, judge, n)
            cell = sc.cells[0]
            spec = dataclasses.replace(sc.cell_specs()[cell.index], run_id=f"race-{key}")
            step = max(100, math.ceil((deals - have) / max(1, 2 * self.jobs)))
            for a in range(have, deals, step):
                owner[len(tasks)] = key
                tasks.append(ChunkTask(len(tasks), spec, a, min(deals, a + step), sc.seed))
        if not tasks:
            return
        import pandas as pd

        wins = {}
        for res in dispatch(iter(tasks)):
            w = pd.read_parquet(io.BytesIO(res.table_games), columns=["winner"])["winner"].to_numpy()
            key = owner[res.chunk]
            n = state["store"][key]["players"]
            wins[key] = wins.get(key, np.zeros(n, dtype=np.int64)) + np.bincount(w[(w >= 0) & (w < n)], minlength=n)
            self.cpu_seconds += res.cpu_seconds
        for key, (changes, n, judge, deals) in wanted.items():
            store = state["store"][key]
            if key not in wins:
                continue
            store["wins"] = [int(a + b) for a, b in zip(store["wins"], wins[key], strict=True)]
            added = deals - store["n"]
            store["n"] = deals
            store["looks"].append(deals)
            store["verdict"] = self._verdict(store["wins"], deals, n)
            state["games"] += added
            state["seconds_spent"] = round(state["seconds_spent"] + added * self.cost[judge] / 1000.0, 6)

    def _round(self, state, dispatch):
        """One round; returns the deals it played (0: the budget or the caps allow no more)."""
        s = self.spec.settings
        r = state["round"]
        cands = state["candidates"]
        played = 0
        for judge in self.judges:
            target = min(s["games"], s["round"][judge] * (2 ** (r + 1) - 1))
            left = s["seconds"] - state["seconds_spent"]
            price = self.cost[judge] / 1000.0
            wanted = {}
            for cid in state["order"]:
                c = cands[cid]
                if c["state"] != RACING:
                    continue
                changes = dict(c["changes"])
                for (n, j), need in self.cells.items():
                    if j != judge:
                        continue
                    key = self.cell_key(changes, n, judge)
                    c["cells"][cell_label(n, judge)] = key
                    store = state["store"].setdefault(
                        key, {"players": n, "judge": judge, "wins": [0] * n, "n": 0, "looks": [], "verdict": UNDECIDED})
                    if store["verdict"] != UNDECIDED or key in wanted:
                        continue
                    add = max(0, target - store["n"])
                    add = min(add, int(left / price + 1e-9)) if price > 0 else add
                    if add <= 0:
                        continue
                    wanted[key] = (changes, n, judge, store["n"] + add)
                    left -= add * price
            before = state["games"]
            self._play(state, dispatch, wanted)
            played += state["games"] - before
            self._judge_all(state, r)
        return played

    def _judge_all(self, state, r):
        """Drop every racing candidate with a cell decided unfair; mark those met."""
        for cid in state["order"]:
            c = state["candidates"][cid]
            if c["state"] not in (RACING, BENCH):
                continue
            cells = {lab: state["store"][key] for lab, key in c["cells"].items()}
            for (n, j), need in self.cells.items():
                cell = cells.get(cell_label(n, j))
                if cell is not None and cell["verdict"] == UNFAIR:
                    c["state"], c["round"] = DROPPED, r
                    c["reason"] = f"{cell_label(n, j)} decided unfair" + (" (a constraint)" if need == "not_unfair" else "")
                    break
            else:
                # Met: every seats_fair cell decided fair, every constraint looked at (not unfair).
                if c["state"] == RACING and all(
                    cells.get(cell_label(n, j), {}).get("verdict") == FAIR if need == "fair"
                    else cells.get(cell_label(n, j), {}).get("n", 0) > 0
                    for (n, j), need in self.cells.items()
                ):
                    c["state"], c["round"] = MET, r

    def score(self, state, cid):
        c = state["candidates"][cid]
        keys, change = candidate_size(self.spec, dict(c["changes"]))
        dist = 0.0
        for (n, j), need in self.cells.items():
            key = c["cells"].get(cell_label(n, j))
            if key is None:  # a cell not played yet (dropped by a cheaper judge first): ranked last
                return (math.inf, keys, change, cid)
            dist = max(dist, self._distance(state["store"][key], need))
        return (round(dist, 6), keys, change, cid)

    def _halve(self, state):
        cands = state["candidates"]
        racing = [cid for cid in state["order"] if cands[cid]["state"] == RACING]
        bench = [cid for cid in state["order"] if cands[cid]["state"] == BENCH]
        if not racing and bench:  # every racer dropped: the best waiting ones come back
            racing = sorted(bench, key=lambda cid: self.score(state, cid))[: max(1, math.ceil(len(bench) * self.spec.settings["keep"]))]
            for cid in racing:
                cands[cid]["state"] = RACING
            return
        ranked = sorted(racing, key=lambda cid: self.score(state, cid))
        keep = max(1, math.ceil(len(ranked) * self.spec.settings["keep"]))
        for cid in ranked[keep:]:
            cands[cid]["state"] = BENCH

    # ------------------------------------------------------------------ the whole race

    def run(self):
        from scenarios.writelock import folder_lock

        if self.resume and not (self.out_dir / STATE_FILE).is_file():
            raise TuneDirError(self.out_dir, "", "holds no race to resume")
        with folder_lock(self.out_dir):
            return self._run()

    def _run(self):
        t0 = time.perf_counter()
        state = self._load()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.cpu_seconds = float(state.get("cpu_seconds", 0.0))
        rounds_here = 0
        if not state["rounds"]:
            self._save(state)  # a page shows the candidates before the first round ends
        with dispatcher(self.backend, self.jobs, self.scheduler) as dispatch:
            while state["stop"] is None:
                self._refuse(state)
                played = self._round(state, dispatch)
                cands = state["candidates"]
                met = [cid for cid in state["order"] if cands[cid]["state"] == MET]
                state["rounds"].append({
                    "round": state["round"], "games": played, "seconds_spent": state["seconds_spent"],
                    "racing": sum(c["state"] == RACING for c in cands.values()),
                    "dropped": sum(c["state"] == DROPPED for c in cands.values()), "met": len(met)})
                if met:
                    state["stop"] = MET
                elif not any(c["state"] in (RACING, BENCH) for c in cands.values()):
                    state["stop"] = "none left"
                elif played == 0:
                    state["stop"] = "budget" if state["seconds_spent"] >= self.spec.settings["seconds"] - 1e-9 or \
                        self._budget_blocks(state) else "cap"
                else:
                    self._halve(state)
                state["round"] += 1
                state["cpu_seconds"] = round(self.cpu_seconds, 3)
                self._save(state)
                self._announce(state)
                rounds_here += 1
                if self.stop_after is not None and rounds_here >= self.stop_after and state["stop"] is None:
                    raise KeyboardInterrupt
        result = self.result(state, time.perf_counter() - t0)
        from scenarios.results import write_atomic

        write_atomic(self.out_dir / RESULT_FILE, (json.dumps(result, indent=2) + "\n").encode())
        return result

    def _budget_blocks(self, state):
        """True when the seconds left buy not one more game of any judge with an open cell."""
        left = self.spec.settings["seconds"] - state["seconds_spent"]
        return all(left < self.cost[j] / 1000.0 for j in self.judges)

    def _refuse(self, state):
        """A candidate the game's loader refuses (each value alone was accepted) is set aside."""
        for cid in state["order"]:
            c = state["candidates"][cid]
            if c["state"] != RACING or c.get("checked"):
                continue
            try:
                self._scenario(dict(c["changes"]), self.spec.race_judges[0].label, self.spec.players[0])
                c["checked"] = True
            except DataError as exc:
                c["state"], c["reason"] = REFUSED, f"refused by the data loader: {exc.reason}"

    def _announce(self, state):
        if not self.progress:
            return
        p = self.progress_doc(state)
        best = p["best"]
        b = "none yet" if best is None else ", ".join(f"{k} = {json.dumps(v)}" for k, v in best["changes"].items())
        print(f"race {self.spec.name}: round {p['round']}, {p['racing']} racing, {p['dropped']} dropped, "
              f"{p['met']} met, {p['seconds_spent']:,.0f} of {p['seconds']:,.0f} declared CPU s; best: {b}",
              file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ what it says

    def candidate_record(self, state, cid):
        c = state["candidates"][cid]
        keys, change = candidate_size(self.spec, dict(c["changes"]))
        by_key = {p.key: p for p in self.spec.params}
        cells = {}
        for (n, j), need in self.cells.items():
            key = c["cells"].get(cell_label(n, j))
            if key is None:
                continue
            st = state["store"][key]
            rates = [w / st["n"] for w in st["wins"]] if st["n"] else []
            cells[cell_label(n, j)] = {"players": n, "judge": j, "need": need, "verdict": st["verdict"],
                                       "deals": st["n"], "rates": [round(x, 4) for x in rates],
                                       "distance": round(self._distance(st, need), 3)}
        return {"candidate": cid, "state": c["state"], "round": c["round"], "reason": c["reason"], "keys": keys,
                "change": change,
                "changes": [{"key": k, "before": by_key[k].base, "after": v, "change": by_key[k].change(v)}
                            for k, v in c["changes"]],
                "cells": cells}

    def progress_doc(self, state):
        cands = state["candidates"]
        tried = [cid for cid in state["order"] if cands[cid]["cells"]]
        live = [cid for cid in tried if cands[cid]["state"] in (RACING, BENCH, MET)]
        met = [cid for cid in state["order"] if cands[cid]["state"] == MET]
        best = None
        pick = met[0] if met else (min(live, key=lambda cid: self.score(state, cid)) if live else None)
        if pick is not None:
            rec = self.candidate_record(state, pick)
            best = {"changes": dict(cands[pick]["changes"]), "keys": rec["keys"], "change": rec["change"],
                    "state": rec["state"], "cells": {k: v["verdict"] for k, v in rec["cells"].items()}}
        return {
            "name": self.spec.name,
            "round": state["round"],
            "candidates": len(cands),
            "tried": len(tried),
            "racing": sum(c["state"] == RACING for c in cands.values()),
            "dropped": sum(c["state"] in (DROPPED, REFUSED) for c in cands.values()),
            "met": len(met),
            "best": best,
            "seconds_spent": round(state["seconds_spent"], 3),
            "seconds": self.spec.settings["seconds"],
            "cpu_seconds": round(state.get("cpu_seconds", 0.0), 3),
            "games": state["games"],
            "state": state["stop"] or "racing",
        }

    def result(self, state, wall):
        cands = state["candidates"]
        met = [cid for cid in state["order"] if cands[cid]["state"] == MET]
        met.sort(key=lambda cid: (*candidate_size(self.spec, dict(cands[cid]["changes"])), cid))
        tried = [cid for cid in state["order"] if cands[cid]["cells"]]
        ranked = sorted(tried, key=lambda cid: self.score(state, cid))
        base = {}
        for (n, j), need in self.cells.items():
            key = self.cell_key({}, n, j)
            if key in state["store"]:
                st = state["store"][key]
                base[cell_label(n, j)] = {"verdict": st["verdict"], "deals": st["n"],
                                          "rates": [round(w / st["n"], 4) for w in st["wins"]] if st["n"] else []}
        return {
            "format": "ssb-tune-race",
            "version": 1,
            "name": self.spec.name,
            "description": self.spec.description,
            "tuning_file": self.spec.path,
            "scenario": self.spec.scenario.path,
            "seed": self.spec.seed,
            "zone": self.spec.zone,
            "judges": [j.label for j in self.spec.race_judges],
            "targets": [t["label"] for t in self.spec.targets],
            "space": [p.as_dict() for p in self.spec.params],
            "settings": self.spec.settings,
            "stop": state["stop"],
            "fix": self.candidate_record(state, met[0]) if met else None,
            "candidates": [self.candidate_record(state, cid) for cid in ranked],
            "untried": len(cands) - len(tried),
            "unchanged": base,
            "rounds": state["rounds"],
            "cost": {"games": state["games"], "seconds_spent": state["seconds_spent"],
                     "seconds": self.spec.settings["seconds"], "cpu_seconds": state.get("cpu_seconds", 0.0),
                     "wall_seconds_this_process": round(wall, 1)},
            "jobs": self.jobs,
        }
