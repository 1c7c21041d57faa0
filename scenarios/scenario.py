"""Scenario files: what to play, validated and expanded into cells. One schema for every game.

A scenario is a TOML file. The keys every game shares are checked here, once (and by
:func:`scenarios.spec.parse_common`); the game's own keys, its *setting*, are read by the module its
registry entry names (``Game.setting``: ``simulator/shuffle_swing/setting.py`` for Shuffle and
Swing's instrument sets and overrides, ``simulator/boards_setting.py`` for a game of boards and
variants such as Echidna Shuffle)::

    game = "echidna"                  # optional: a name of simulator.games (default: Shuffle and Swing)
    name = "starter"                  # required: names the run (default output folder results/<name>)
    description = "..."               # optional
    seed = 1                          # required: run seed, 0 .. 2**63-1
    games = 2000                      # required: games per cell, rounded up to whole deals (every
                                      #   deal is played in each distinct seat rotation of the lineup;
                                      #   a mirror lineup has one)
    players = [2, 3, 4]               # required: player counts (a single integer is fine)
    strategy_dirs = ["my_strategies"] # optional: extra strategy profiles (relative to this file)
    record = ["lead"]                 # optional: the per-round lead record (``scenarios.record``)

    [lineup]                          # one or more of mirror / seats / round_robin (their union)
    mirror = "greedy"                 # the same strategy in every seat (or a list: one lineup each)
    seats = ["greedy", "random", "random", "random"]   # one lineup (length = player count) ...
    # seats = [["greedy", "random"], ["random", "greedy"]]   # ... or several
    # seats = { 2 = ["greedy", "random"], 4 = [["greedy", "random", "random", "random"]] }
    #                                 #   per player count
    round_robin = { pool = ["greedy", "random", "specialist:orange"], mix = "all", mirrors = false }
    max_games = { lookahead = 1500 }  # optional: games per cell at most, for lineups holding a costly
                                      #   strategy (a slow judge level beside a fast one); min over
                                      #   the lineup's strategies, never more than ``games``

    [sequential]                      # optional: rounds until each cell's seat verdict is decided
    seconds = 600                     #   (scenarios.sequential; ``--set sequential=true``: defaults)

    # ... and the game's own keys: Shuffle and Swing's wheel, max_rounds, instrument_dirs,
    # [instruments] and [overrides]; a boards game's boards, [variants] and reference.

A *cell* is one player count x one setting x one lineup (:class:`scenarios.cells.Cell`).

Round robin: ``mix = "all"`` (default) plays every multiset of ``players`` strategies from the pool
that uses at least two different ones (at 2 players: every pair); ``mix = "pairs"`` only those made of
exactly two strategies (head-to-head at every player count: A,A,A,B / A,A,B,B / A,B,B,B at 4
players); ``mirrors = true`` adds each pool strategy against itself. Seats are filled in pool order
(A,A,B,B) and the paired design rotates that order over the seats, so A,B,A,B is a different lineup.
Strategy names may carry a focus suffix (``specialist:orange``).

Every problem raises :class:`simulator.errors.DataError` naming the scenario file, the key and the
reason. ``--set KEY=VALUE`` on the command line (``sets=`` here) changes a key before validation;
VALUE is read as TOML (``players=[2,4]``, ``wheel=fixed``, ``sequential=true``,
``overrides.Horns.instrument.penalty_per_space=3``).
"""

from __future__ import annotations

import copy
import hashlib
import math
from dataclasses import dataclass, field

from scenarios.canonical import to_toml
from scenarios.cells import Cell, CellSpec
from scenarios.schema import result_columns
from scenarios.spec import (
    MAX_GAMES,
    SHARED_KEYS,
    SHARED_REQUIRED,
    check_cell_count,
    lineup_period,
    parse_common,
    parse_set,
    set_shared_key,
)
from simulator import games as registry
from simulator.errors import DataError
from simulator.validate import Checker


@dataclass
class Scenario:
    """A validated scenario of any game: its effective document, canonical text and the cells it
    expands to. The game's own parsed keys are :attr:`setting`; its attributes read as the
    scenario's (``scenario.instruments``, ``scenario.boards``, ``scenario.variants``, ...)."""

    path: str
    doc: dict
    text: str
    sha256: str
    game: str
    name: str
    description: str
    seed: int
    games: int
    players: tuple
    lineups: dict
    cells: tuple
    setting: object = field(repr=False)
    strategies: object = field(repr=False)  # the game's strategy library
    strategy_dirs: tuple = ()
    set_args: tuple = ()
    record: tuple = ()  # what the run records beyond its tables (``scenarios.record``)
    sequential: object = None  # scenarios.sequential.SequentialPlan of a [sequential] scenario
    proof: object = None  # scenarios.sequential_proof.ProofPlan: the strong judge's head-to-head cells

    def __getattr__(self, name):
        if name.startswith("_") or name == "setting":
            raise AttributeError(name)
        try:
            return getattr(self.setting, name)
        except AttributeError:
            raise AttributeError(f"a scenario of {self.game} has no '{name}'") from None

    @property
    def total_games(self):
        return sum(c.games for c in self.cells)

    def strategy_rows(self, lineup):
        """The kernel's strategy matrix for a lineup, one row per seat."""
        return self.strategies.matrix(list(lineup))

    def columns(self):
        """The columns of the run's tables, as the manifest records them (``scenarios.schema``)."""
        return result_columns(registry.get(self.game))

    def data_files(self):
        """Paths and SHA-256 of the data files the cells use, the strong judge's proof's included (a
        changed file refuses ``--resume``)."""
        return self.setting.data_files(self.cells + (self.proof.cells if self.proof is not None else ()),
                                       self.strategies)

    def cell_specs(self, run_id="adhoc"):
        """Cell index -> :class:`scenarios.cells.CellSpec`: what a worker needs to play the cell."""
        module = registry.module_of(self.game)
        return {
            cell.index: CellSpec(run_id=run_id, game=self.game, cell=cell, setup=self.setting.packed(cell),
                                 strategy_rows=self.strategy_rows(cell.lineup), module=module, record=self.record)
            for cell in self.cells
        }

    def settings(self):
        """The effective settings, as recorded in the manifest."""
        shared = {"game": self.game, "games": self.games, "seed": self.seed, "players": list(self.players),
                  "strategy_dirs": list(self.strategy_dirs), "set": list(self.set_args)}
        if self.record:
            shared["record"] = list(self.record)
        own = self.setting.settings()
        module = registry.get(self.game).setting_module()
        return {k: shared[k] if k in shared else own[k] for k in module.SETTINGS if k in shared or k in own}


# =========================================================================== loading


def _knows(lib, name):
    """Whether the strategy library ``lib`` knows ``name`` (a price list may name any of them)."""
    try:
        lib.get(str(name))
    except (DataError, KeyError, ValueError):
        return False
    return True


def top_keys(module):
    """The top-level keys of a game's scenarios: the shared ones and its setting's."""
    return SHARED_KEYS + tuple(k for k in module.KEYS if k not in SHARED_KEYS)


def scenario_of(game, doc, path, sets=(), games=None, seed=None):
    """Validate an already-parsed scenario document of ``game`` (a registry entry); ``path`` names it
    in errors and anchors its folders; ``sets`` are ``KEY=VALUE`` changes, ``games`` and ``seed``
    override. (Every scenario comes through :func:`scenarios.load.scenario_from_doc`.)"""
    module = game.setting_module()
    doc = copy.deepcopy(doc)
    path = str(path)
    set_args = tuple(sets)
    module.prepare(doc)
    known = top_keys(module)
    for item in set_args:
        key, value = parse_set(item, path)
        if key.split(".")[0] not in known:
            raise DataError(path, key, f"unknown scenario key (known: {', '.join(known)})")
        if not set_shared_key(doc, key, value, path):
            module.apply_set(doc, key, value, path)
    if games is not None:
        set_shared_key(doc, "games", games, path)
        set_args += (f"games={games}",)
    if seed is not None:
        set_shared_key(doc, "seed", seed, path)
        set_args += (f"seed={seed}",)
    return _validate(game, module, doc, path, set_args)


def _validate(game, module, doc, path, set_args):
    from scenarios.sequential import parse_sequential
    from scenarios.sequential_proof import proof_plan

    ck = Checker(path)
    ck.table(doc, "", required=SHARED_REQUIRED + tuple(module.REQUIRED), optional=top_keys(module))
    common = parse_common(ck, doc, game, path)
    setting = module.parse(ck, doc, game, common, path)
    rows = setting.rows()
    check_cell_count(ck, len(rows) * sum(len(common.lineups[n]) for n in common.players),
                     getattr(module, "CELLS_KEY", "lineup"))
    cells = []
    for n in common.players:
        for row in rows:
            for lineup in common.lineups[n]:
                deals = math.ceil(common.cell_games(lineup) / lineup_period(lineup))
                cells.append(Cell(len(cells), n, row, lineup, deals))
    if not cells:
        ck.fail("", "the scenario has no cells")
    sequential = parse_sequential(ck, doc.get("sequential"), cells, MAX_GAMES, getattr(setting, "reference", None),
                                  known=lambda name: _knows(common.strategies, name))
    proof = proof_plan(game, common.strategies, cells, sequential) if sequential is not None else None

    # The effective document, defaults filled in, in the game's order: its text identifies the run.
    shared = {"game": game.name, "name": common.name, "description": common.description, "seed": common.seed,
              "games": common.games, "players": list(common.players), "strategy_dirs": common.strategy_dirs_raw,
              "lineup": doc["lineup"]}
    if common.record:
        shared["record"] = list(common.record)
    if sequential is not None:
        shared["sequential"] = sequential.as_doc()
    own = setting.effective(doc)
    eff = {k: shared[k] if k in shared else own[k] for k in module.EFFECTIVE if k in shared or k in own}
    text = to_toml(eff)
    return Scenario(
        path=path,
        doc=eff,
        text=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        game=game.name,
        name=common.name,
        description=common.description,
        seed=common.seed,
        games=common.games,
        players=tuple(common.players),
        lineups={n: tuple(v) for n, v in common.lineups.items()},
        cells=tuple(cells),
        setting=setting,
        strategies=common.strategies,
        strategy_dirs=common.strategy_dirs,
        set_args=set_args,
        record=common.record,
        sequential=sequential,
        proof=proof,
    )
