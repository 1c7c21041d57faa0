"""The worker side of a run: play one chunk of games and turn it into result tables.

A task carries everything a worker needs (the cell, its three validated instruments, the board, the
strategy rows), so a worker reads no files: a dask worker on another machine needs only the package.
A worker builds :class:`simulator.playout.GameSetup` once per cell and keeps it for later chunks of
the same cell. The tables are encoded as Parquet in the worker; the parent only writes the bytes.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from scenarios.schema import CELL_COLUMNS, GAME_COLUMNS, SEAT_COLUMNS
from scenarios.seeding import deal_seeds, game_layout
from simulator.layout import STATE_SIZE
from simulator.playout import GameSetup, game_results, play_many, seat_results

PARQUET_COMPRESSION = "zstd"


@dataclass(frozen=True)
class CellSpec:
    """What a worker needs to play a cell, with no file access."""

    run_id: str  # scenario text + data + code; with the cell index it keys the worker's cache
    cell: object  # scenarios.scenario.Cell
    board: object  # simulator.instruments.Board
    instruments: tuple  # three Instrument, black, orange, gray
    shuffle_wheels: bool
    max_rounds: int | None
    strategy_rows: np.ndarray  # one row per lineup position (before rotation)


@dataclass(frozen=True)
class ChunkTask:
    """A contiguous range ``[start, stop)`` of the games of one cell."""

    chunk: int
    spec: CellSpec
    start: int
    stop: int
    run_seed: int

    @property
    def games(self):
        return self.stop - self.start


@dataclass(frozen=True)
class ChunkResult:
    chunk: int
    games: int
    seats: bytes  # Parquet file contents
    table_games: bytes
    seconds: float  # time spent playing and encoding in the worker
    pid: int


class _CellInstruments:
    """The three instruments of a cell, looked up by name like an InstrumentLibrary."""

    def __init__(self, instruments):
        self._by_name = {i.name.casefold(): i for i in instruments}

    def get(self, name):
        return self._by_name[str(name).strip().casefold()]


_SETUPS: OrderedDict = OrderedDict()
_MAX_SETUPS = 256


def cell_setup(spec):
    """The cell's GameSetup, built once per process."""
    key = (spec.run_id, spec.cell.index)
    setup = _SETUPS.get(key)
    if setup is None:
        setup = GameSetup(
            nplayers=spec.cell.players,
            instruments=tuple(i.name for i in spec.instruments),
            shuffle_wheels=spec.shuffle_wheels,
            max_rounds=spec.max_rounds,
            library=_CellInstruments(spec.instruments),
            board=spec.board,
        )
        _SETUPS[key] = setup
        while len(_SETUPS) > _MAX_SETUPS:
            _SETUPS.popitem(last=False)
    else:
        _SETUPS.move_to_end(key)
    return setup


def play_states(task):
    """Final states of the chunk's games (rows in game order), each rotation group in one batch."""
    spec = task.spec
    n = spec.cell.players
    setup = cell_setup(spec)
    games = np.arange(task.start, task.stop, dtype=np.int64)
    deal, rotation = game_layout(games, spec.cell.rotations)
    first = int(deal[0]) if len(games) else 0
    seeds_by_deal = deal_seeds(task.run_seed, spec.cell.deal_key, range(first, int(deal[-1]) + 1 if len(games) else 0))
    seeds = seeds_by_deal[deal - first]
    states = np.empty((len(games), STATE_SIZE), dtype=np.int32)
    for r in range(spec.cell.rotations):
        idx = np.nonzero(rotation == r)[0]
        if len(idx) == 0:
            continue
        strat = spec.strategy_rows[[(s - r) % n for s in range(n)]]
        st, _ = play_many(setup, strat, seeds[idx])
        states[idx] = st
    return games, deal, rotation, seeds, states


def chunk_tables(task):
    """(seats, games) DataFrames of one chunk, with exactly the columns of ``scenarios.schema``."""
    spec = task.spec
    cell = spec.cell
    n = cell.players
    games, deal, rotation, seeds, states = play_states(task)
    g = len(games)
    lineup = np.array(cell.lineup, dtype=object)

    per_game = {
        "cell": np.full(g, cell.index, dtype=np.int32),
        "cell_key": np.full(g, cell.key, dtype=object),
        "players": np.full(g, n, dtype=np.int8),
        "inst_black": np.full(g, cell.instruments[0], dtype=object),
        "inst_orange": np.full(g, cell.instruments[1], dtype=object),
        "inst_gray": np.full(g, cell.instruments[2], dtype=object),
        "lineup": np.full(g, ",".join(cell.lineup), dtype=object),
        "deal": deal.astype(np.int32),
        "rotation": rotation.astype(np.int8),
        "game": games.astype(np.int32),
        "seed": seeds.view(np.int64),
    }
    assert tuple(per_game) == CELL_COLUMNS

    # Strategy at each (game, seat): lineup position (seat - rotation) mod n.
    pos = (np.arange(n)[None, :] - rotation[:, None]) % n
    sr = seat_results(states, n)
    seats = {k: np.repeat(v, n) for k, v in per_game.items()}
    seats["seat"] = np.tile(np.arange(n, dtype=np.int8), g)
    seats["strategy"] = lineup[pos].reshape(-1)
    for name in SEAT_COLUMNS[len(CELL_COLUMNS) + 2 :]:
        col = np.asarray(sr[name]).reshape(-1)
        seats[name] = col.astype(np.int8 if name in ("won", "rank") else np.int32)
    seats_df = pd.DataFrame(seats, columns=list(SEAT_COLUMNS))

    gr = game_results(states)
    winner = gr["winner"]
    won_pos = (winner - rotation) % n
    out = dict(per_game)
    out["winner"] = winner.astype(np.int32)
    out["winner_strategy"] = np.where(winner >= 0, lineup[won_pos], "").astype(object)
    for name in GAME_COLUMNS[len(CELL_COLUMNS) + 2 :]:
        out[name] = np.asarray(gr[name]).astype(np.int32)
    games_df = pd.DataFrame(out, columns=list(GAME_COLUMNS))
    return seats_df, games_df


def parquet_bytes(df):
    """A DataFrame as the bytes of a Parquet file (no index)."""
    table = pa.Table.from_pandas(df, preserve_index=False)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
    return sink.getvalue().to_pybytes()


def play_chunk(task):
    """Play a chunk and return its two tables as Parquet bytes."""
    t0 = time.perf_counter()
    seats_df, games_df = chunk_tables(task)
    result = ChunkResult(
        chunk=task.chunk,
        games=task.games,
        seats=parquet_bytes(seats_df),
        table_games=parquet_bytes(games_df),
        seconds=time.perf_counter() - t0,
        pid=os.getpid(),
    )
    return result
