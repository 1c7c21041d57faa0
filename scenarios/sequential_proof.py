"""The strong judge's proof: on each setting it judges, is a run's strong judge stronger than the
reference rung?

A sequential run (:mod:`scenarios.sequential`) whose strongest judge is held to a reference rung by
its game's ladder (``LadderSpec.reference`` and ``LadderSpec.proves``: in Shuffle and Swing, a
search player above ``search``) first plays, on every setting (player count x the game's setting)
where that judge judges a cell, a paired head-to-head: one lineup with the strong judge and the
reference in alternate seats (S, R at 2 players; S, R, S at 3; S, R, S, R at 4), every distinct seat
rotation of it on each deal. A deal's outcome is the strong judge's share of that deal's games won;
its fair share is its seats' share (1/2, 2/3, 1/2). After each round of deals every open setting is
judged with :func:`stats.sequences.stronger_verdict` (bounds by betting, valid at every
look) and stops once the judge is shown stronger, shown not stronger (at most ``INDIFFERENCE`` above
its fair share), or the proof's budget is spent.

The budget is ``[sequential] proof`` (default ``DEFAULT_SHARE``) times the run's ``seconds``,
declared CPU seconds on top of the run's own, each game priced by its seats' judges' declared costs
(:meth:`scenarios.sequential.SequentialPlan.price`, a seat a share of a mirror game). A run without
``seconds`` plays no proof. The games are written to ``proof/seats`` and ``proof/games`` (the
report's tables never read them); the rounds, their chunks and each setting's record are kept in
``manifest["sequential"]["proof"]``, recorded before they are played, so ``--resume`` replays them
and the stopping points are the same whatever the workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scenarios import results as R
from stats import sequences as SS
from scenarios.cells import Cell, CellSpec

PROOF_DIR = "proof"
DEFAULT_SHARE = 0.05  # the proof's budget: a share of the run's declared CPU seconds
INDIFFERENCE = 0.02  # "not stronger": shown at most this far above its fair share
ROUND_SECONDS = 4.0  # declared CPU seconds per open setting and round
ROUND_MIN = 20  # deals per setting and round at least (while the budget lasts)
CAP_DEALS = 100_000  # deals per setting at most
STOP_SHOWN, STOP_BUDGET, STOP_CAP = "decided", "budget", "cap"


@dataclass(frozen=True)
class ProofPlan:
    """What the proof of a run plays: its strong judge, the reference, the share of the budget and
    one head-to-head cell per setting, with the run's cells each covers (judged by the strong judge)."""

    strong: str
    reference: str
    share: float
    cells: tuple  # scenarios.cells.Cell, indices after the run's cells
    covers: tuple  # per proof cell: the run's cell indices it vouches for

    def fair(self, cell):
        return sum(j == self.strong for j in cell.lineup) / cell.players


def lineup(strong, reference, players):
    """The strong judge and the reference in alternate seats."""
    return tuple(strong if s % 2 == 0 else reference for s in range(players))


def strong_judge(game, library, plan):
    """The judge a run's proof is about: its strongest judge (``plan.strong`` first) held to the
    reference rung by the game's ladder, or None."""
    ladder = getattr(game, "ladder", None)
    if plan is None or ladder is None or not ladder.reference or ladder.proves is None:
        return None
    top = plan.strong[0] if plan.strong else None
    if top is None or top.split(":")[0] == ladder.reference or not ladder.proves(library, top):
        return None
    return top


def proof_plan(game, library, cells, plan):
    """The :class:`ProofPlan` of a sequential run, or None (no strong judge to prove, a proof share
    of 0, or no ``seconds``)."""
    strong = strong_judge(game, library, plan)
    if strong is None or plan.seconds is None or plan.proof_share <= 0:
        return None
    reference = game.ladder.reference
    settings = {}
    for c in cells:
        if c.lineup[0] == strong:
            settings.setdefault((c.players, c.setting.key), []).append(c)
    proof_cells, covers = [], []
    for (players, _), judged in settings.items():
        proof_cells.append(Cell(len(cells) + len(proof_cells), players, judged[0].setting,
                                lineup(strong, reference, players), CAP_DEALS))
        covers.append(tuple(c.index for c in judged))
    return ProofPlan(strong, reference, plan.proof_share, tuple(proof_cells), tuple(covers))


def game_price(plan, cell):
    """Declared CPU seconds of one game of a proof cell: each seat a share of its judge's mirror game
    (a reference whose cost the run does not declare is priced as the strong judge)."""
    costs = plan.cost or {}
    return sum(plan.price(j if j in costs else cell.lineup[0]) for j in cell.lineup) / cell.players


def deal_outcomes(root, chunk, cell, strong):
    """``(deal, share of the deal's games the strong judge won)`` of one proof chunk."""
    games = R.read_chunk(R.chunk_paths(root, chunk)[1], ("deal", "rotation", "winner"), strings=frozenset())
    deal = games["deal"].to_numpy()
    rotation = games["rotation"].to_numpy()
    winner = games["winner"].to_numpy()
    n = cell.players
    mine = np.array([j == strong for j in cell.lineup])
    # Lineup position k sits at seat (k + rotation) % n: the winner's position is (seat - rotation) % n.
    won = (winner >= 0) & mine[(winner - rotation) % n]
    deals = np.unique(deal)
    share = np.array([won[deal == d].mean() for d in deals])
    return deals, share


class ProofRounds:
    """The proof's rounds inside a sequential run's policy (:class:`scenarios.sequential.SequentialRounds`)."""

    def __init__(self, scenario, plan, proof, seq):
        self.scenario, self.plan, self.proof = scenario, plan, proof
        rec = seq.get("proof")
        if not rec:
            rec = seq["proof"] = {
                "strong": proof.strong, "reference": proof.reference, "share": proof.share,
                "indifference": INDIFFERENCE, "confidence": plan.confidence, "rounds": [], "plan": [],
                "settings": [], "seconds_spent": 0.0, "cpu_seconds": 0.0,
            }
        rec["seconds"] = round(proof.share * plan.seconds, 3)
        self.rec = rec
        self.outcomes = {c.index: [] for c in proof.cells}  # per proof cell: [(deal, share)] in deal order
        self.n = {c.index: 0 for c in proof.cells}
        self.stop = {c.index: None for c in proof.cells}
        self.verdict = {c.index: None for c in proof.cells}
        self.looks = {c.index: [] for c in proof.cells}
        self.spent = 0.0
        self.cells = {c.index: c for c in proof.cells}

    # ------------------------------------------------------------------ playing

    def specs(self, loop):
        from simulator import games as registry

        run_id = next(iter(loop.specs.values())).run_id
        scenario = self.scenario
        return {c.index: CellSpec(run_id=run_id, game=scenario.game, cell=c, setup=scenario.setting.packed(c),
                                  strategy_rows=scenario.strategy_rows(c.lineup), module=registry.module_of(scenario.game))
                for c in self.proof.cells}

    def play(self, loop, rows, specs):
        from scenarios.worker import ChunkTask

        root = loop.out_dir / PROOF_DIR
        for d in (R.SEATS_DIR, R.GAMES_DIR):
            (root / d).mkdir(parents=True, exist_ok=True)
        done = R.done_chunks(root, len(self.rec["plan"]))
        todo = [r for r in rows if r[0] not in done]
        tasks = (ChunkTask(chunk=k, spec=specs[c], start=a, stop=b, run_seed=self.scenario.seed, parent=loop.token)
                 for k, c, a, b in todo)
        if todo:
            for res in loop.dispatch(tasks):
                seats_path, games_path = R.chunk_paths(root, res.chunk)
                R.write_atomic(seats_path, res.seats)
                R.write_atomic(games_path, res.table_games)
                loop.played += res.games
                self.rec["cpu_seconds"] = round(self.rec["cpu_seconds"] + res.cpu_seconds, 3)
                loop.run_entry["cpu_seconds"] = round(loop.run_entry.get("cpu_seconds", 0.0) + res.cpu_seconds, 3)
        missing = {r[0] for r in rows} - R.done_chunks(root, len(self.rec["plan"]))
        if missing:
            raise R.RunDirError(root, "chunks", f"{len(missing)} proof chunks missing after a round: {sorted(missing)[:10]}")
        return len(rows) - len(todo)

    def finish_round(self, loop, rows):
        root = loop.out_dir / PROOF_DIR
        for k, c, a, b in rows:
            deals, share = deal_outcomes(root, k, self.cells[c], self.proof.strong)
            self.outcomes[c].extend(zip(deals.tolist(), share.tolist()))
        for c in dict.fromkeys(r[1] for r in rows):
            cell = self.cells[c]
            n = max(b for _, cc, _, b in rows if cc == c) // cell.rotations
            self.spent += (n - self.n[c]) * cell.rotations * game_price(self.plan, cell)
            self.n[c] = n
            self.judge(c)

    def judge(self, c):
        cell = self.cells[c]
        x = np.array([s for _, s in sorted(self.outcomes[c])])
        v = SS.stronger_verdict(x, self.proof.fair(cell), INDIFFERENCE, self.plan.confidence)
        self.verdict[c] = v
        self.looks[c].append(self.n[c])
        if v["verdict"] != SS.UNPROVEN:
            self.stop[c] = STOP_SHOWN

    def allocate(self):
        """Deals per open proof cell for the next round; marks the cells that must stop."""
        left = self.proof.share * self.plan.seconds - self.spent
        open_cells = [c for c in self.cells if self.stop[c] is None]
        alloc = {}
        for c in open_cells:
            cell = self.cells[c]
            price = cell.rotations * game_price(self.plan, cell)  # one deal
            want = max(ROUND_MIN, int(ROUND_SECONDS / price)) if price > 0 else ROUND_MIN
            share = left / len(open_cells)
            add = min(want, cell.deals - self.n[c], int(share / price + 1e-9) if price > 0 else want)
            if add > 0:
                alloc[c] = add
            else:
                self.stop[c] = STOP_CAP if cell.deals - self.n[c] <= 0 else STOP_BUDGET
        return alloc

    def rows(self, alloc, chunk_size, jobs):
        rows, first = [], len(self.rec["plan"])
        for c in sorted(alloc):
            cell = self.cells[c]
            start, add = self.n[c], alloc[c]
            piece = max(1, min(max(chunk_size // cell.rotations, 1), math.ceil(add / max(jobs, 1))))
            for a in range(start, start + add, piece):
                b = min(a + piece, start + add)
                rows.append([first + len(rows), c, a * cell.rotations, b * cell.rotations])
        return rows

    def drive(self, loop):
        """Replay the recorded rounds (playing what is missing), then play on until every setting is
        decided or the budget is spent."""
        specs = self.specs(loop)
        rec = self.rec
        for rnd in rec["rounds"]:
            rows = [r for r in rec["plan"] if rnd["chunks"][0] <= r[0] < rnd["chunks"][1]]
            loop.run_entry["chunks_skipped"] += self.play(loop, rows, specs)
            self.finish_round(loop, rows)
        while True:
            alloc = self.allocate()
            if not alloc:
                break
            rows = self.rows(alloc, loop.manifest["chunks"]["size"], loop.jobs)
            rec["rounds"].append({"round": len(rec["rounds"]), "chunks": [len(rec["plan"]), len(rec["plan"]) + len(rows)],
                                  "cells": {str(c): alloc[c] for c in sorted(alloc)}})
            rec["plan"].extend(rows)
            self.sync()
            loop.save()  # the round is recorded before it is played
            self.play(loop, rows, specs)
            self.finish_round(loop, rows)
        self.sync()
        loop.save()

    def sync(self):
        out = []
        for k, c in enumerate(self.cells):
            cell = self.cells[c]
            v = self.verdict[c] or SS.stronger_verdict(np.zeros(0), self.proof.fair(cell), INDIFFERENCE,
                                                        self.plan.confidence)
            out.append({
                "proof_cell": c, "players": cell.players, **dict(cell.setting.fields),
                "setting": "/".join(str(v) for v in cell.columns.values()), "lineup": list(cell.lineup),
                "covers": list(self.proof.covers[k]), "rotations": cell.rotations, **v, "looks": list(self.looks[c]),
                "stop": self.stop[c],
            })
        self.rec["settings"] = out
        self.rec["seconds_spent"] = round(self.spent, 3)


# =========================================================================== the words

def proof_records(sequential):
    """``{run cell index: its setting's proof record}`` of a run's ``manifest["sequential"]`` (empty:
    no proof played)."""
    rec = (sequential or {}).get("proof") or {}
    out = {}
    for s in rec.get("settings") or []:
        for c in s.get("covers") or []:
            out[int(c)] = dict(s, strong=rec.get("strong"), reference=rec.get("reference"))
    return out


def _pct(x):
    return f"{100 * x:.1f}"


def proof_note(s):
    """The words beside a verdict its strong judge gave, from its setting's proof record ``s``."""
    strong, ref = s["strong"], s["reference"]
    figure = (f"{_pct(s['share'])}% of the wins [{_pct(s['lo'])}, {_pct(s['hi'])}] against {ref} "
              f"(fair {_pct(s['fair'])}%), {s['deals']:,} deals")
    if s["verdict"] == SS.STRONGER:
        return f"the strong judge is shown stronger than {ref} here: {strong} {figure}"
    why = "shown not stronger" if s["verdict"] == SS.NOT_STRONGER else "not shown stronger"
    return (f"resting on an unproven judge: {strong} {why} than {ref} on this setting ({figure})"
            if s["deals"] else f"resting on an unproven judge: {strong} not shown stronger than {ref} on this "
            "setting (no deals played)")
