"""Sequential runs: play each cell in rounds of deals until its seat verdict is decided.

A scenario with a ``[sequential]`` table (or ``--set sequential=true``) is played in rounds::

    [sequential]
    test = "zone"          # the indifference-zone test (stats.zone); "interval": the older one
    margin = 0.03          # the equivalence margin of the seat verdict (as ``ssb report --margin``)
    indifference = 0.01    # the zone: fair = shown within margin + d, unfair = shown beyond margin - d
    seconds = 1100         # the run's budget in declared CPU seconds, shared by every judge and cell
    cost = { greedy = 0.3, search = 17.0 }   # declared CPU milliseconds per game of each judge
    budget = { greedy = 40000 }              # optional: a cap of games per judge over its cells
    round = { greedy = 2000, search = 500 }  # optional: deals per open cell per round
    strong = ["search", "greedy"]   # strongest judge first (default: the lineup's order reversed)
    confidence = 0.95
    verdicts = ["seats"]  # what decides a cell: "seats", "instruments" (scenarios.sequential_sets) or
                          #   "variants" (scenarios.sequential_variants)
    zone = 0.2            # with "instruments" or "variants": each measure's zone, a share of its margin
    proof = 0.05          # the strong judge's proof against the game's reference rung, a share of
                          #   ``seconds`` on top of them (scenarios.sequential_proof; 0: none)
    interval = "bounded"  # their confidence sequences: finite-sample on a known range; "asymptotic": the older one

The scenario's ``games`` (and ``lineup.max_games``) become each cell's cap. Every cell must be a
mirror lineup (one strategy, the *judge*, in every seat), whose seat verdict is judged from its own
games. After each round every cell that played is judged again with its anytime-valid test; a
decided cell stops. The budget is one pool of *declared* CPU seconds: a game costs its judge's
``cost``, so nothing measured enters a decision. Each round the open cells are served cheapest
projected decision first (:func:`allocate`), the strongest judge first on ties.

Determinism: a game's seed depends only on (run seed, cell, deal), and what a round plays depends
only on the verdicts of the looks before it and the declared costs, so the stopping points and the
tables are the same whatever ``--jobs``, ``--chunk-size`` or backend. The manifest records every
round before its chunks are played; ``--resume`` plays a round's missing chunks, judges the recorded
looks again from the tables, and goes on with the same sequence, also when only the budget or the
caps were changed (:func:`identity`): the tests are anytime-valid, so looking on keeps their errors.

The record of each cell (``manifest["sequential"]["cells"]``) is described in
docs/guide/sequential.md ("The record").

With ``verdicts = ["instruments"]`` the unit that stops is the instrument set, not the seat verdict:
:class:`scenarios.sequential_sets.SetPolicy` says which cells play the next round and which are
decided (the only hook: ``_policy`` below); the seat verdict of every cell is still looked at and
recorded, and the sets' records are kept in ``manifest["sequential"]["sets"]``. With ``verdicts =
["variants"]`` the same policy judges each variant against the reference variant
(:class:`scenarios.sequential_variants.VariantSets` says what is compared with what).

A run whose strongest judge its game's ladder holds to a reference rung first plays that judge's
proof (:class:`scenarios.sequential_proof.ProofRounds`, recorded in ``manifest["sequential"]["proof"]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scenarios import sequential_proof as SQP
from scenarios import sequential_sets as SQS
from scenarios import sequential_variants as SQV
from scenarios import results as R
from scenarios import rundir as RD
from scenarios.run_loop import Policy
from scenarios.spec import SEQUENTIAL_KEYS as KEYS
from scenarios.spec import set_sequential_key as apply_set  # noqa: F401  (importable from here)
from simulator.errors import DataError
from stats import paired
from stats import sequences as SS
from stats import zone as SZ

TESTS = ("zone", "interval")  # the indifference-zone SPRT (default) or "shown inside / outside"
DEFAULT_COST_MS = 1.0  # CPU milliseconds per game of a judge the cost table leaves out
VERDICTS = ("seats", "instruments", "variants")
SET_VERDICTS = ("instruments", "variants")  # decided per set against a reference (scenarios.sequential_sets)
DEFAULT_ROUND = 1000
ROUND_SECONDS = 10.0  # declared CPU seconds per cell and round, when a judge's cost is declared
STOP_DECIDED, STOP_BUDGET, STOP_CAP, STOP_SECONDS = "decided", "budget", "cap", "seconds"
ROUND_FLOOR = 4  # a round is at least 1/ROUND_FLOOR of the judge's round, even when the cell is about to end


@dataclass(frozen=True)
class SequentialPlan:
    """The validated ``[sequential]`` table."""

    budget: dict  # judge -> games over all its cells (a cap; the shared budget is ``seconds``)
    round: dict  # judge -> deals per open cell per round
    strong: tuple  # judges, strongest first
    seconds: float | None  # the run's budget in declared CPU seconds (``cost`` x games), None: no limit
    margin: float
    confidence: float
    verdicts: tuple = ("seats",)
    test: str = "zone"
    indifference: float = SZ.DEFAULT_INDIFFERENCE
    cost: dict = None  # judge -> declared CPU milliseconds per game
    zone: float = paired.DEFAULT_ZONE  # the instrument verdicts' zone, a share of each margin
    proof: float | None = None  # the strong judge's proof: a share of ``seconds`` (None: the default)
    interval: str = paired.BOUNDED  # their confidence sequences: finite-sample where a range is known, or asymptotic

    @property
    def proof_share(self):
        """The share of ``seconds`` the strong judge's proof may spend (scenarios.sequential_proof)."""
        return SQP.DEFAULT_SHARE if self.proof is None else self.proof

    @property
    def sets(self):
        """True when the instrument or the variant verdicts decide the run (scenarios.sequential_sets)."""
        return any(v in SET_VERDICTS for v in self.verdicts)

    def price(self, judge):
        """Declared CPU seconds of one game of ``judge``."""
        return (self.cost or {}).get(judge, DEFAULT_COST_MS) / 1000.0

    def as_doc(self):
        doc = {
            "test": self.test,
            "indifference": self.indifference,
            "cost": dict(self.cost or {}),
            "budget": dict(self.budget),
            "round": dict(self.round),
            "strong": list(self.strong),
            "margin": self.margin,
            "confidence": self.confidence,
            "verdicts": list(self.verdicts),
        }
        if self.sets:
            doc["zone"] = self.zone
            doc["interval"] = self.interval
        if self.seconds is not None:
            doc["seconds"] = self.seconds
        if self.proof is not None:
            doc["proof"] = self.proof
        return doc


def judge_of(cell):
    return cell.lineup[0]


def _number(ck, value, key, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo < value < hi:
        ck.fail(key, f"expected a number between {lo} and {hi} (exclusive), got {value!r}")
    return float(value)


def _per_judge(ck, raw, key, judges, default, hi, strict=True):
    if raw is None:
        return {j: default(j) for j in judges}
    if isinstance(raw, int) and not isinstance(raw, bool):
        return {j: ck.integer(raw, key, lo=1, hi=hi) for j in judges}
    if not isinstance(raw, dict):
        ck.fail(key, f"expected an integer or a table of judge = integer (judges: {', '.join(judges)})")
    for name in raw:
        if name not in judges and strict:
            ck.fail(f"{key}.{name}", f"not a judge of this scenario (judges: {', '.join(judges)})")
    return {j: ck.integer(raw[j], f"{key}.{j}", lo=1, hi=hi) if j in raw else default(j) for j in judges}


def parse_sequential(ck, raw, cells, max_games, reference=None, known=None):
    """The ``[sequential]`` table of a scenario (``true``: every default), checked against its cells
    (``reference``: the setting's reference variant, for ``verdicts = ["variants"]``; ``known``: a
    function saying whether a name is a strategy of the game, for the price list ``cost``).

    Errors name ``sequential.KEY``; every cell must be a mirror lineup. ``round`` and ``budget`` name
    judges of the scenario only; ``cost`` is a price list and may also price the game's other
    strategies (a scenario switching its judge is a one-word change of ``lineup.mirror``), but not a
    name the game does not know; ``zone`` is refused where no set verdict reads it (the seat
    verdict's zone is ``indifference``)."""
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
    strong = judges[::-1]
    if "strong" in raw:
        given = list(ck.str_list(raw["strong"], "sequential.strong", min_len=1))
        for name in given:
            if name not in judges:
                ck.fail("sequential.strong", f"'{name}' is not a judge of this scenario (judges: {', '.join(judges)})")
        strong = given + [j for j in strong if j not in given]
    seconds = None
    if "seconds" in raw:
        seconds = _number(ck, raw["seconds"], "sequential.seconds", 0, 1e9)
    margin = _number(ck, raw.get("margin", 0.03), "sequential.margin", 0, 0.5)
    confidence = _number(ck, raw.get("confidence", 0.95), "sequential.confidence", 0.5, 1)
    test = raw.get("test", "zone")
    if test not in TESTS:
        ck.fail("sequential.test", f"expected one of {', '.join(repr(t) for t in TESTS)}, got {test!r}")
    indifference = _number(ck, raw.get("indifference", SZ.DEFAULT_INDIFFERENCE), "sequential.indifference", 0, 0.5)
    if test == "zone" and not indifference < margin:
        ck.fail("sequential.indifference", f"{indifference:g} must be below the margin {margin:g}: the zone is "
                "margin - indifference to margin + indifference")
    cost = {}
    if "cost" in raw:
        table = raw["cost"]
        if not isinstance(table, dict):
            ck.fail("sequential.cost", f"expected a table of judge = CPU milliseconds per game (judges: {', '.join(judges)})")
        for name, value in table.items():
            if name not in judges:
                if known is not None and not known(name):
                    ck.fail(f"sequential.cost.{name}", f"'{name}' is neither a judge of this scenario (judges: "
                            f"{', '.join(judges)}) nor a strategy of the game")
            # A cost table may price the game's strategies this scenario does not play: the proof of
            # the strong judge plays the reference rung beside it (scenarios.sequential_proof).
            cost[name] = _number(ck, value, f"sequential.cost.{name}", 0, 1e9)
    verdicts = tuple(ck.str_list(raw.get("verdicts", ["seats"]), "sequential.verdicts", min_len=1))
    for v in verdicts:
        if v not in VERDICTS:
            ck.fail(
                "sequential.verdicts",
                f"'{v}' cannot decide a sequential run: one of {', '.join(repr(x) for x in VERDICTS)} (the seat "
                "verdict, or the instrument or variant verdicts against their reference)",
            )
    if len(set(verdicts)) > 1:
        ck.fail("sequential.verdicts", f"one of {', '.join(repr(x) for x in VERDICTS)}: a run stops its cells on one "
                "kind of verdict")
    zone = _number(ck, raw.get("zone", paired.DEFAULT_ZONE), "sequential.zone", 0, 1)
    if "zone" in raw and not any(v in SET_VERDICTS for v in verdicts):
        ck.fail("sequential.zone", "read only by the instrument or variant verdicts (verdicts = [\"instruments\"] or "
                "[\"variants\"]); the seat verdict's zone is 'indifference'")
    proof = None
    if "proof" in raw:
        proof = raw["proof"]
        if isinstance(proof, bool) or not isinstance(proof, (int, float)) or not 0 <= proof < 1:
            ck.fail("sequential.proof", f"expected a share of the run's seconds from 0 (no proof) up to 1 "
                    f"(exclusive), got {proof!r}")
        proof = float(proof)
    interval = raw.get("interval", paired.BOUNDED)
    if interval not in paired.INTERVALS:
        ck.fail("sequential.interval", f"expected one of {', '.join(repr(x) for x in paired.INTERVALS)}, got {interval!r}")
    if "instruments" in verdicts:
        _check_sets(ck, cells)
    if "variants" in verdicts:
        _check_variants(ck, cells, reference)
    # A round's default: about ROUND_SECONDS of declared CPU per cell (a slow judge looks more often).
    def default_round(j):
        if j not in cost:
            return DEFAULT_ROUND
        return int(min(max(round(ROUND_SECONDS / (cost[j] / 1000.0)) if cost[j] > 0 else DEFAULT_ROUND, 100), 4000))

    rounds = _per_judge(ck, raw.get("round"), "sequential.round", judges, default_round, max_games)
    return SequentialPlan(budget, rounds, tuple(strong), seconds, margin, confidence, verdicts, test, indifference, cost,
                          zone, proof, interval)


def _check_sets(ck, cells):
    """A run decided by its instrument verdicts: every set differs from its group's first set in one
    department (scenarios.sequential_sets.units)."""
    if any(getattr(c, "instruments", None) is None for c in cells):
        ck.fail("sequential.verdicts", "'instruments' needs a scenario of instrument sets; this game's cells have none")
    found, _, refused = SQS.units(cells, judge_of)
    if refused:
        c, k = refused[0]
        ck.fail("sequential.verdicts", f"cell {c} differs from its first set in {k} departments: a set is judged "
                "sequentially against the first set when it swaps one department (swaps, or a list of sets "
                "built so), not in a full grid")
    if not found:
        ck.fail("sequential.verdicts", "'instruments' needs two or more instrument sets (swaps or a list of sets)")


def _check_variants(ck, cells, reference):
    """A run decided by its variant verdicts: a setting with variants and a reference, and every
    group (player count, the other setting columns, judge) holding the reference and another variant."""
    if reference is None or not SQV.has_variants(cells):
        ck.fail("sequential.verdicts", "'variants' needs a scenario of variants ([variants] and a reference); this "
                "scenario's cells have none")
    found, _, missing = SQV.variant_units(cells, judge_of, reference)
    if missing:
        ck.fail("sequential.verdicts", f"the reference variant '{reference}' is not played at {missing[0][0]} players "
                f"with {missing[0][1]}: every variant is judged against it on the same deals")
    if not found:
        ck.fail("sequential.verdicts", f"'variants' needs a variant besides the reference '{reference}'")


# =========================================================================== the state of a run


class CellState:
    """One cell's sequence: games played, wins per seat, the looks and the stopping reason."""

    def __init__(self, cell):
        self.cell = cell
        self.n = 0
        self.wins = np.zeros(cell.players, dtype=np.int64)
        self.looks = []
        self.verdict = SS.UNDECIDED
        self.stop = None
        self.decided_at = None

    @property
    def open(self):
        return self.stop is None

    def judge(self, plan, stops=True):
        """Judge the cell at its current count (one look); a decided cell stops (``stops``: the seat
        verdict decides the cell; a run decided by its sets only records the look)."""
        self.looks.append(self.n)
        self.verdict = look(self.wins, self.n, self.cell.players, plan)
        if self.verdict != SS.UNDECIDED and stops:
            self.stop = STOP_DECIDED
            self.decided_at = self.n

    def record(self, plan):
        rec = SS.cell_record(self.wins, self.n, self.cell.players, plan.margin, plan.confidence,
                             affordable=self.cell.games, test=plan.test, indifference=plan.indifference)
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


def look(wins, n, players, plan):
    """The verdict word of one look at a cell with ``wins`` per seat after ``n`` deals."""
    if plan.test == "zone":
        code = int(SZ.verdicts(wins, n, players, plan.margin, plan.indifference, plan.confidence))
        return {SZ.FAIR: SS.FAIR, SZ.UNFAIR: SS.UNFAIR}.get(code, SS.UNDECIDED)
    return SS.cell_verdict(wins, n, players, plan.margin, plan.confidence)["verdict"]


def need(state, plan):
    """Deals the cell is projected to need still if its seats kept their current win rates: for the
    zone test its expected remaining deals (:func:`stats.zone.remaining`, from the
    start at a fair share before its first look); for the interval test the games from which it would
    be decided (0 before its first look, ``inf`` when no count would: an estimate on a margin edge)."""
    if plan.test == "zone":
        return SZ.remaining(state.wins, state.n, state.cell.players, plan.margin, plan.indifference, plan.confidence)
    if state.n == 0:
        return 0.0
    rates = state.wins / state.n
    total = SS.games_to_decide(rates, state.cell.players, plan.margin, plan.confidence, start=state.n)
    return total - state.n


def allocate(states, plan, spent, seconds_spent=0.0):
    """Deals per cell for the next round ({cell index: deals}); marks the cells that must stop.

    One budget for the whole run: ``plan.seconds`` declared CPU seconds (each game priced by the
    judge's declared cost, :meth:`SequentialPlan.price`; ``seconds_spent`` so far), within each
    judge's cap of games (``plan.budget``, ``spent`` per judge) and each cell's cap. The open cells
    are served cheapest decision first: by the declared seconds they are projected to need still
    (:func:`need` x price), the strongest judge first on ties. Cells whose projected need fits the
    seconds left (*hopeful*, in that order) play a round each and keep what they are projected to
    need; the others play only from what is left beyond that. Nothing measured enters, so the same
    states give the same rounds on any machine and with any workers."""
    left_s = math.inf if plan.seconds is None else plan.seconds - seconds_spent
    left_g = {j: plan.budget[j] - spent.get(j, 0) for j in plan.budget}
    open_cells = [s for s in states if s.open]
    needs = {s.cell.index: max(need(s, plan), 0.0) for s in open_cells}
    price = {s.cell.index: plan.price(judge_of(s.cell)) for s in open_cells}

    def key(s):
        i = s.cell.index
        return (needs[i] * price[i], plan.strong.index(judge_of(s.cell)), i)

    ranked = sorted(open_cells, key=key)
    hopeful, others, acc = [], [], 0.0
    for s in ranked:
        i = s.cell.index
        room = min(s.cell.games - s.n, left_g[judge_of(s.cell)])
        cost = min(needs[i], room) * price[i]
        if math.isfinite(needs[i]) and acc + cost <= left_s:
            hopeful.append(s)
            acc += cost
        else:
            others.append(s)
    alloc = {}
    reserve = acc

    def give(s, pool):
        i, j = s.cell.index, judge_of(s.cell)
        want = plan.round[j]
        if math.isfinite(needs[i]) and plan.test == "zone":
            want = min(want, max(plan.round[j] // ROUND_FLOOR, int(math.ceil(needs[i]))))
        add = min(want, s.cell.games - s.n, left_g[j])
        if price[i] > 0 and math.isfinite(pool):
            add = min(add, int(pool / price[i] + 1e-9))
        add = max(int(add), 0)
        if add > 0:
            alloc[i] = add
            left_g[j] -= add
        return add * price[i]

    for s in hopeful:
        i = s.cell.index
        own = min(needs[i], s.cell.games - s.n) * price[i]
        used = give(s, left_s)
        left_s -= used
        reserve -= min(own, used)
    for s in others:
        left_s -= give(s, max(left_s - max(reserve, 0.0), 0.0))
    if not alloc:
        for s in open_cells:
            if s.cell.games - s.n <= 0:
                s.stop = STOP_CAP
            elif left_g[judge_of(s.cell)] <= 0:
                s.stop = STOP_BUDGET
            else:
                s.stop = STOP_SECONDS
    else:
        for s in open_cells:  # a cell that can never play again stops now
            if s.cell.index not in alloc and s.cell.games - s.n <= 0:
                s.stop = STOP_CAP
            elif s.cell.index not in alloc and left_g[judge_of(s.cell)] <= 0:
                s.stop = STOP_BUDGET
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


def _policy(scenario, plan):
    """The play-next policy of a run decided by its instrument sets, or None (seat verdicts)."""
    if not plan.sets:
        return None
    if "variants" in plan.verdicts:
        return SQS.SetPolicy(scenario.cells, judge_of, margins={SQV.SEAT_WIN: plan.margin}, confidence=plan.confidence,
                             zone=plan.zone, compare=SQV.VariantSets(scenario.reference), interval=plan.interval)
    depts = list(scenario.cells[0].as_dict()["instruments"])
    return SQS.SetPolicy(scenario.cells, judge_of, depts, confidence=plan.confidence, zone=plan.zone,
                         interval=plan.interval)


def _set_rows(out_dir, chunk, players, compare):
    """Per-deal measures of one played chunk (the comparison's ``chunk_measures``)."""
    seats, games = R.chunk_paths(out_dir, chunk)
    seat_cols, game_cols = compare.fields()
    s = R.read_columns(seats, seat_cols, strings=frozenset()) if seat_cols else {}
    g = R.read_columns(games, game_cols, strings=frozenset())
    return compare.chunk_measures(s, g, players)


def _sync_manifest(manifest, states, plan, scenario, policy=None):
    seq = manifest["sequential"]
    seq["cells"] = [s.record(plan) if s.looks else None for s in states]
    if policy is not None:
        seq["sets"] = policy.records({s.cell.index: s for s in states})
    played = {s.cell.index: s.n for s in states}
    for c in manifest["cells"]:
        c["cap"] = c.get("cap", c["games"])
        c["deals"] = c["games"] = played[c["cell"]]
    manifest["totals"]["games"] = sum(played.values())
    manifest["totals"]["chunks"] = len(manifest["chunks"]["plan"])


def identity(text):
    """What a sequential run is, its budget and caps left out: a resumed run may raise those (the
    scenario text with ``games``, ``lineup.max_games``, ``sequential.seconds`` and ``sequential.budget``
    removed, hashed)."""
    import hashlib
    import json
    import tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    doc.pop("games", None)
    if isinstance(doc.get("lineup"), dict):
        doc["lineup"].pop("max_games", None)
    if isinstance(doc.get("sequential"), dict):
        for k in ("seconds", "budget"):
            doc["sequential"].pop(k, None)
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def sequential_run(scenario, out_dir, chunk_size, data, code, resume):
    """``(manifest, policy, compare)`` of a sequential scenario for the run loop
    (:func:`scenarios.run_loop.execute`): the new run's manifest with its empty record, the
    :class:`SequentialRounds` policy, and what a resumed run is checked against (its recorded
    scenario hash when only the budget or the caps changed, :func:`identity`; else ``None``)."""
    plan = scenario.sequential
    old_manifest = None
    if resume and (out_dir / R.MANIFEST).is_file():
        old_manifest = R.read_manifest(out_dir)
    manifest = RD.new_manifest(scenario, [], chunk_size, data, code)
    manifest["sequential"] = {"settings": plan.as_doc(), "rounds": [], "cells": [], "cpu_seconds": 0.0}
    if old_manifest is not None:
        # The plan of a sequential run grows round by round: resume compares everything else.
        manifest["chunks"] = dict(old_manifest.get("chunks", manifest["chunks"]))
    compare = None
    raised = False
    if old_manifest is not None and old_manifest.get("sequential") and \
            old_manifest.get("scenario", {}).get("sha256") != scenario.sha256 and \
            identity(old_manifest.get("scenario", {}).get("text", "")) == identity(scenario.text):
        # Only the budget or the caps changed: the sequence goes on from its recorded rounds (the
        # tests are anytime-valid, so looking on past the old budget keeps their errors).
        compare = {**manifest, "scenario": dict(manifest["scenario"], sha256=old_manifest["scenario"]["sha256"])}
        raised = True
    return manifest, SequentialRounds(plan, raised), compare


class SequentialRounds(Policy):
    """The play-next policy of a sequential run (:mod:`scenarios.run_loop`): rounds of deals, each
    allocated from the looks before it (:func:`allocate`), until every cell is decided or the budget
    is spent. A resumed run first replays its recorded rounds, judging each look again."""

    run_fields = {"cpu_seconds": 0.0}
    chunks_skipped = 0

    def __init__(self, plan, raised=False):
        self.plan = plan
        self.raised = raised

    def adopt(self, loop, old):
        manifest = loop.manifest
        if old is not None:
            manifest["sequential"] = old["sequential"]
            manifest["chunks"] = old["chunks"]
            if self.raised:
                manifest["sequential"].setdefault("budgets", []).append(old["sequential"]["settings"])
                manifest["sequential"]["settings"] = self.plan.as_doc()
        self.seq = manifest["sequential"]
        self.states = [CellState(c) for c in loop.scenario.cells]
        self.by_index = {s.cell.index: s for s in self.states}
        self.spent = {j: 0 for j in self.plan.budget}
        self.spent_s = 0.0  # declared CPU seconds spent (games x the judge's declared cost)
        self.measured = self.seq.setdefault("measured", {})  # per judge: games and CPU seconds (information only)
        self.sets = _policy(loop.scenario, self.plan)  # the instrument sets' policy, or None (seat verdicts)
        proof = getattr(loop.scenario, "proof", None)  # the strong judge's head-to-head, or None
        self.proof = SQP.ProofRounds(loop.scenario, self.plan, proof, self.seq) if proof is not None else None

    def progress(self, loop):
        plan, cells = self.plan, loop.scenario.cells
        total = sum(min(plan.budget[j], sum(c.games for c in cells if judge_of(c) == j)) for j in plan.budget)
        cheapest = min(plan.price(j) for j in plan.budget)
        if plan.seconds is not None and cheapest > 0:  # the bar counts games: at most what the seconds buy
            total = min(total, int(plan.seconds / cheapest))
        return total, 0

    def on_result(self, loop, res, cell):
        seq = self.seq
        seq["cpu_seconds"] = round(seq.get("cpu_seconds", 0.0) + res.cpu_seconds, 3)
        m = self.measured.setdefault(judge_of(cell), {"games": 0, "cpu_seconds": 0.0})
        m["games"] += res.games
        m["cpu_seconds"] = round(m["cpu_seconds"] + res.cpu_seconds, 3)
        loop.run_entry["cpu_seconds"] = round(loop.run_entry["cpu_seconds"] + res.cpu_seconds, 3)

    def play(self, loop, rows):
        """Play the rows' chunks not yet on disk; returns how many were already there."""
        out_dir, plan_rows = loop.out_dir, loop.manifest["chunks"]["plan"]
        done = R.done_chunks(out_dir, len(plan_rows))
        mine = {r[0] for r in rows} & done
        if mine:
            mine -= set(RD.drop_damaged(out_dir, loop.manifest, mine, loop.announce))
        loop.play([r for r in rows if r[0] not in mine], self)
        missing = {r[0] for r in rows} - R.done_chunks(out_dir, len(plan_rows))
        if missing:
            raise R.RunDirError(out_dir, "chunks", f"{len(missing)} chunks missing after a round: {sorted(missing)[:10]}")
        return len(mine)

    def finish_round(self, loop, rows):
        plan, by_index = self.plan, self.by_index
        for k, c, a, b in rows:
            s = by_index[c]
            s.wins += chunk_wins(loop.out_dir, k, s.cell.players)
            if self.sets is not None:
                self.sets.add(c, a, _set_rows(loop.out_dir, k, s.cell.players, self.sets.compare))
        for c in dict.fromkeys(r[1] for r in rows):
            s = by_index[c]
            s.n = max(b for _, cc, _, b in rows if cc == c)
            added = s.n - (s.looks[-1] if s.looks else 0)
            self.spent[judge_of(s.cell)] += added
            self.spent_s += added * plan.price(judge_of(s.cell))
            s.judge(plan, stops=self.sets is None)
        if self.sets is not None:
            self.sets.judge(by_index, {r[1] for r in rows})
        decided = (STOP_DECIDED,) if self.sets is None else (SQS.STOP_SET, SQS.STOP_REFERENCE)
        n_decided = sum(s.stop in decided for s in self.states)
        if hasattr(loop.bar, "cells"):  # the log's progress line counts the decided cells
            loop.bar.cells(n_decided, len(self.states))
        if plan.seconds:  # the budget that ends the run: declared CPU seconds, not a count of games
            if hasattr(loop.bar, "budget"):
                loop.bar.budget(self.spent_s, plan.seconds)
            elif hasattr(loop.bar, "set_postfix_str"):
                loop.bar.set_postfix_str(f"{self.spent_s:,.0f} of {plan.seconds:,.0f} declared CPU s, "
                                         f"{n_decided} of {len(self.states)} cells decided", refresh=False)

    def drive(self, loop):
        manifest, seq, plan = loop.manifest, self.seq, self.plan
        if self.proof is not None:  # the strong judge's proof first (its own budget, scenarios.sequential_proof)
            self.proof.drive(loop)
        # Resume: replay the recorded rounds (playing what is missing), judging each look again.
        plan_rows = manifest["chunks"]["plan"]
        for rnd in seq["rounds"]:
            rows = [r for r in plan_rows if rnd["chunks"][0] <= r[0] < rnd["chunks"][1]]
            loop.run_entry["chunks_skipped"] += self.play(loop, rows)
            self.finish_round(loop, rows)
            loop.bar.update(0)
        if plan.seconds and hasattr(loop.bar, "budget"):  # the time left counts from here
            loop.bar.budget(self.spent_s, plan.seconds, restart=True)
        while True:
            alloc = (self.sets.allocate(self.by_index, plan, self.spent, self.spent_s) if self.sets is not None
                     else allocate(self.states, plan, self.spent, self.spent_s))
            if not alloc:
                break
            first = len(plan_rows)
            rows = round_rows(alloc, self.states, plan, first, manifest["chunks"]["size"], loop.jobs)
            plan_rows.extend(rows)
            seq["rounds"].append({"round": len(seq["rounds"]), "chunks": [first, first + len(rows)],
                                  "cells": {str(c): alloc[c] for c in sorted(alloc)}})
            _sync_manifest(manifest, self.states, plan, loop.scenario, self.sets)
            loop.account(final=False)
            loop.save()  # the round is recorded before it is played
            self.play(loop, rows)
            self.finish_round(loop, rows)

    def close(self, loop):
        for s in self.states:  # a cell no round reached (a budget of 0 games left) is judged at 0 games
            if not s.looks:
                s.judge(self.plan, stops=self.sets is None)
                s.stop = s.stop or STOP_BUDGET
        self.seq["seconds_spent"] = round(self.spent_s, 3)
        _sync_manifest(loop.manifest, self.states, self.plan, loop.scenario, self.sets)

    def summary(self, loop):
        return len(loop.manifest["chunks"]["plan"]), loop.run_entry["chunks_skipped"], loop.manifest["totals"]["games"]
