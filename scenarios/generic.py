"""Scenarios of the games set up by boards and variants (``Game.scenario_keys = "boards"``): cells, seeds, chunk tables.

The runner (``scenarios/runner.py``), the result files and resume work unchanged: a
:class:`GameScenario` offers what the runner asks of a scenario (cells, seed, text and hash,
settings, data files, cell specs), and its chunks are played through the game's registry entry
(``simulator.games``) into tables with the generic cell columns plus the columns the game declares::

    game = "echidna"                  # a name of simulator.games (the default game uses scenario.py)
    name = "echidna-seats"
    description = "..."
    seed = 1
    games = 4000                      # per cell, rounded up to whole deals
    players = [2, 3, 4, 5, 6]
    boards = ["forest", "snow"]       # the game's boards (names, or paths to board files)
    strategy_dirs = ["my_strategies"] # optional
    reference = "base"                # optional: the variant the others are compared with

    [variants]                        # optional: named variants, each a table of the game's switches
    base = {}
    catch_up = { catch_up = true }
    schedule_b = { catch_up = true, token_schedule = [0, 1, 1, 2, 2, 3] }

    [lineup]                          # as in scenario.py: mirror / seats / round_robin / max_games
    mirror = ["greedy", "lookahead"]  # each mirror is one judge level of the report's headline
    max_games = { lookahead = 2000 }  # games per cell at most for a lineup holding a slow strategy

A cell is one player count x board x variant x lineup. The deals of a cell are seeded from its key
*without* the variant, so every variant of a (players, board, lineup) plays the very same deals:
the variant section of the report compares them pairwise, deal by deal.
"""

from __future__ import annotations

import copy
import hashlib
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from scenarios.canonical import to_toml
from scenarios.record import LEAD_COLUMN, lead_lists
from scenarios.schema import result_columns
from scenarios.spec import (
    MAX_GAMES,
    SHARED_KEYS,
    SHARED_REQUIRED,
    LineupCell,
    check_cell_count,
    lineup_period,
    parse_common,
    parse_set,
    set_shared_key,
)
from simulator import games as registry
from simulator.errors import DataError
from simulator.validate import Checker

TOP_KEYS = SHARED_KEYS + ("boards", "variants", "reference")
REQUIRED = ("game",) + SHARED_REQUIRED

@dataclass(frozen=True)
class GameCell(LineupCell):
    index: int
    players: int
    board: str
    variant: str
    lineup: tuple
    deals: int

    @property
    def deal_key(self):
        """What the deals are seeded from: the cell but its variant (variants share deals)."""
        return f"players={self.players}|board={self.board}|lineup={','.join(self.lineup)}"

    @property
    def key(self):
        return f"players={self.players}|board={self.board}|variant={self.variant}|lineup={','.join(self.lineup)}"

    def as_dict(self):
        return {
            "cell": self.index,
            "cell_key": self.key,
            "players": self.players,
            "board": self.board,
            "variant": self.variant,
            "lineup": list(self.lineup),
            "deals": self.deals,
            "rotations": self.rotations,
            "games": self.games,
        }


@dataclass(frozen=True)
class GameCellSpec:
    """What a worker needs for one cell: the game's name, its packed setup and strategy rows."""

    run_id: str
    game: str
    cell: GameCell
    setup: object
    strategy_rows: np.ndarray
    module: str | None = None  # the module declaring the game, for a worker that does not know it
    record: tuple = ()  # ``scenarios.record``

    def chunk_tables(self, task):
        return chunk_tables(task)

    def compiles(self):
        """How many times this process compiled the game's batch kernel (not counted for these games)."""
        return 0


@dataclass
class GameScenario:
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
    boards: tuple
    variants: dict  # name -> the game's variants object
    reference: str
    cells: tuple
    strategies: object = field(repr=False)
    board_objects: dict = field(repr=False, default_factory=dict)
    strategy_dirs: tuple = ()
    set_args: tuple = ()
    record: tuple = ()
    sequential: object = None  # scenarios.sequential.SequentialPlan of a [sequential] scenario

    @property
    def total_games(self):
        return sum(c.games for c in self.cells)

    def settings(self):
        return {
            "game": self.game,
            "games": self.games,
            "seed": self.seed,
            "players": list(self.players),
            "boards": list(self.boards),
            "variants": sorted(self.variants),
            "reference": self.reference,
            "strategy_dirs": list(self.strategy_dirs),
            "set": list(self.set_args),
            **({"record": list(self.record)} if self.record else {}),
        }

    def columns(self):
        """The columns of the run's tables, as the manifest records them (``scenarios.schema``)."""
        return result_columns(registry.get(self.game))

    def data_files(self):
        """Paths and SHA-256 of the boards, the game's rule numbers and the strategy files, in the
        shape the runner's manifest keeps (a changed file refuses ``--resume``)."""
        from simulator.provenance import sha256_file

        files = {f"board {name}": b.path for name, b in self.board_objects.items()}
        rules = getattr(next(iter(self._setups().values())), "rules", None)
        if rules is not None:
            files["rules"] = rules.path
        first = next(iter(self.board_objects.values())).path
        out = {
            "board": {"path": first, "sha256": sha256_file(first)},
            "instruments": {k: {"path": p, "sha256": sha256_file(p)} for k, p in files.items()},
            "strategies": {},
        }
        for n in sorted({s for c in self.cells for s in c.lineup}):
            p = self.strategies.get(n).path
            out["strategies"][n] = {"path": p, "sha256": sha256_file(p)}
        return out

    def _setups(self):
        if not hasattr(self, "_setup_cache"):
            g = registry.get(self.game)
            self._setup_cache = {}
            for c in self.cells:
                k = (c.players, c.board, c.variant)
                if k not in self._setup_cache:
                    self._setup_cache[k] = g.setup(c.players, self.board_objects[c.board], self.variants[c.variant])
        return self._setup_cache

    def cell_specs(self, run_id="adhoc"):
        setups = self._setups()
        return {
            c.index: GameCellSpec(
                run_id, self.game, c, setups[(c.players, c.board, c.variant)], self.strategies.matrix(list(c.lineup)),
                registry.module_of(self.game),
                record=self.record,
            )
            for c in self.cells
        }


def game_scenario_from_doc(doc, path, sets=(), games=None, seed=None):
    """Validate a scenario document of a registered game (see the module doc)."""
    doc = copy.deepcopy(doc)
    path = str(path)
    set_args = tuple(sets)
    for item in set_args:
        key, value = parse_set(item, path)
        top = key.split(".")[0]
        if set_shared_key(doc, key, value, path):
            continue
        if top not in TOP_KEYS:
            raise DataError(path, key, f"unknown scenario key (known: {', '.join(TOP_KEYS)})")
        if top == "variants" and "." not in key:
            doc["variants"] = value  # the whole table replaced
        elif top == "variants":
            parts = key.split(".")
            table = doc.setdefault("variants", {})
            for p in parts[1:-1]:
                table = table.setdefault(p, {})
            table[parts[-1]] = value
        else:
            doc[top] = value
    if games is not None:
        doc["games"] = games
        set_args += (f"games={games}",)
    if seed is not None:
        doc["seed"] = seed
        set_args += (f"seed={seed}",)

    ck = Checker(path)
    ck.table(doc, "", required=REQUIRED, optional=TOP_KEYS)
    g = registry.get(doc["game"], path, "game")
    common = parse_common(ck, doc, g, path)
    players, lib, lineups = common.players, common.strategies, common.lineups
    boards = doc.get("boards", [g.boards[0]] if g.boards else [])
    if isinstance(boards, str):
        boards = [boards]
    boards = ck.str_list(boards, "boards", min_len=1, what="boards")
    base_dir = common.base_dir
    board_objects = {}
    for i, b in enumerate(boards):
        ref = b if b in g.boards else str((base_dir / b).resolve())
        try:
            setup = g.setup(players[0], ref, None)
        except DataError as exc:
            raise DataError(path, f"boards[{i}]", f"{exc.file}: {exc.key}: {exc.reason}" if exc.key else exc.reason) from None
        board_objects[b] = setup.board
    raw_var = doc.get("variants", {"base": {}})
    ck.table(raw_var, "variants", optional=tuple(raw_var))
    if not raw_var:
        ck.fail("variants", "no variants; leave the table out for the base game alone")
    variants = {}
    for vname, table in raw_var.items():
        if not isinstance(table, dict):
            ck.fail(f"variants.{vname}", "expected a table of the game's switches (e.g. { catch_up = true })")
        variants[vname] = g.variants_from_dict(table, path, f"variants.{vname}")
    reference = doc.get("reference", next(iter(variants)))
    if reference not in variants:
        ck.fail("reference", f"'{reference}' is not one of the variants ({', '.join(variants)})")
    # Every setting must pack (e.g. a token schedule too short for 6 players).
    for n in players:
        for vname, v in variants.items():
            try:
                g.setup(n, board_objects[boards[0]], v)
            except DataError as exc:
                raise DataError(path, f"variants.{vname}", f"with {n} players: {exc.reason}") from None
    check_cell_count(ck, len(boards) * len(variants) * sum(len(lineups[n]) for n in players), "lineup")
    cells = []
    for n in players:
        for b in boards:
            for vname in variants:
                for lineup in lineups[n]:
                    cell_games = common.cell_games(lineup)
                    cells.append(GameCell(len(cells), n, b, vname, lineup, math.ceil(cell_games / lineup_period(lineup))))
    from scenarios.sequential import parse_sequential

    sequential = parse_sequential(ck, doc.get("sequential"), cells, MAX_GAMES)
    eff = {
        "game": g.name,
        "name": common.name,
        "description": common.description,
        "seed": common.seed,
        "games": common.games,
        "players": list(players),
        "boards": list(boards),
        "variants": {k: raw_var[k] for k in variants},
        "reference": reference,
        "strategy_dirs": common.strategy_dirs_raw,
        "lineup": doc["lineup"],
    }
    record = common.record
    if record:
        eff["record"] = list(record)
    if sequential is not None:
        eff["sequential"] = sequential.as_doc()
    text = to_toml(eff)
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return GameScenario(
        path=path,
        doc=eff,
        text=text,
        sha256=sha,
        game=g.name,
        name=common.name,
        description=common.description,
        seed=common.seed,
        games=common.games,
        players=tuple(players),
        boards=tuple(boards),
        variants=variants,
        reference=reference,
        cells=tuple(cells),
        strategies=lib,
        board_objects=board_objects,
        strategy_dirs=common.strategy_dirs,
        set_args=set_args,
        record=record,
        sequential=sequential,
    )


# =========================================================================== worker side


def chunk_tables(task):
    """(seats, games) DataFrames of one chunk of a generic cell."""
    from scenarios.worker import chunk_games, rotation_groups, seat_rows, winner_strategy

    spec = task.spec
    cell = spec.cell
    g = registry.ensure(spec.game, spec.module)
    n = cell.players
    gidx, deal, rotation, seeds = chunk_games(task)
    seat_cols = {k: np.zeros((len(gidx), n), dtype=np.int64) for k in g.seat_columns}
    game_cols = {k: np.zeros(len(gidx), dtype=np.int64) for k in g.game_columns}
    lead = [None] * len(gidx) if "lead" in getattr(spec, "record", ()) else None
    for idx, strat in rotation_groups(spec, rotation):
        if lead is None:
            sr, gr = g.play_batch(spec.setup, seeds[idx], strat)
        else:
            sr, gr, rec, nrec = g.play_batch_lead(spec.setup, seeds[idx], strat)  # the game's lead record
            for i, row in zip(idx, lead_lists(rec, nrec)):
                lead[i] = row
        for k in g.seat_columns:
            seat_cols[k][idx] = sr[k]
        for k in g.game_columns:
            game_cols[k][idx] = gr[k]
    m = len(gidx)
    lineup = np.array(cell.lineup, dtype=object)
    per_game = {
        "cell": np.full(m, cell.index, dtype=np.int32),
        "cell_key": np.full(m, cell.key, dtype=object),
        "players": np.full(m, n, dtype=np.int8),
        "board": np.full(m, cell.board, dtype=object),
        "variant": np.full(m, cell.variant, dtype=object),
        "lineup": np.full(m, ",".join(cell.lineup), dtype=object),
        "deal": deal.astype(np.int32),
        "rotation": rotation.astype(np.int8),
        "game": gidx.astype(np.int32),
        "seed": seeds.view(np.int64),
    }
    seats = seat_rows(per_game, lineup, rotation, n)
    for k in g.seat_columns:
        seats[k] = seat_cols[k].reshape(-1).astype(np.int32)
    games = dict(per_game)
    for k in g.game_columns:
        games[k] = game_cols[k].astype(np.int32)
    winner = game_cols.get("winner", np.full(m, -1))
    games["winner_strategy"] = winner_strategy(winner, lineup, rotation, n)
    games_df = pd.DataFrame(games)
    if lead is not None:
        games_df[LEAD_COLUMN] = pd.Series(lead, dtype=object)  # beyond the schema: readers select theirs
    return pd.DataFrame(seats), games_df


__all__ = ["GameScenario", "game_scenario_from_doc", "chunk_tables"]
