"""The worker side of a run: play one chunk of games and turn it into result tables.

A task carries everything a worker needs (the cell, its setting's packed setup, the strategy rows:
:class:`scenarios.cells.CellSpec`), so a worker reads no files: a dask worker on another machine
needs only the package. The game plays the chunk's games into plain arrays, through its own
``Game.play_chunk`` when it declares one (Shuffle and Swing's: sub-batches, its records) or else
through ``Game.play_batch`` once per seat rotation; this module turns them into the result tables of
:mod:`scenarios.schema`, encoded as Parquet in the worker; the parent only writes the bytes.

Workers only load the compiled kernel: the parent compiles it before any worker starts
(``scenarios.runner``), and each result says whether its worker had to compile after all.

No orphans: a task names the process that runs the scenario (:func:`parent_token`). On its first
task a worker on the same machine starts a watcher thread that ends the worker as soon as that
process is gone (a ``kill -9`` of ``ssb run`` included). A batch of games holds the interpreter
lock while it plays, so a game's ``play_chunk`` plays a chunk in short sub-batches, between which the
watcher gets its turn; a game depends only on its seed, so the tables are the same.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from scenarios import schema
from scenarios.record import lead_lists
from simulator import games as registry
from simulator.seeds import deal_seeds, game_layout

PARQUET_COMPRESSION = "zstd"
WATCH_SECONDS = 0.5  # how often a worker checks that the run's process is alive
ORPHAN_EXIT = 3  # exit status of a worker whose run process died


def parent_token():
    """``(host, pid, start time)`` of this process, for the workers to watch."""
    import psutil

    return (socket.gethostname(), os.getpid(), psutil.Process().create_time())


def parent_alive(token):
    """Whether the process named by ``token`` is still running (same pid and start time)."""
    import psutil

    _, pid, started = token
    if os.getppid() == pid:  # a worker the run process started itself: its parent is alive (an orphan is
        return True          # adopted by another); start times move when the machine's clock is stepped
    try:
        return abs(psutil.Process(pid).create_time() - started) < 1e-3
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


_WATCHED = {"token": None}
_WATCH_LOCK = threading.Lock()


def watch_parent(token):
    """Start (once per process) a daemon thread that ends this process when ``token``'s process is
    gone. A worker on another machine (a dask cluster) cannot see the process and does not watch;
    the process running the scenario itself never watches itself."""
    if token is None or token[0] != socket.gethostname() or token[1] == os.getpid():
        return
    with _WATCH_LOCK:
        if _WATCHED["token"] == token:
            return
        _WATCHED["token"] = token

    def watch():
        while True:
            if not parent_alive(token):
                os._exit(ORPHAN_EXIT)
            time.sleep(WATCH_SECONDS)

    threading.Thread(target=watch, name="ssb-parent-watch", daemon=True).start()


def kernel_compiles(game=None, module=None):
    """How many times this process compiled the game's batch kernel (``Game.kernel_entry``) instead
    of loading it from the cache."""
    from simulator.warmup import entry_point

    g = registry.ensure(game, module) if game else registry.get()
    try:
        return int(sum(entry_point(g.kernel_entry).stats.cache_misses.values()))
    except AttributeError:  # running interpreted
        return 0


@dataclass(frozen=True)
class ChunkTask:
    """A contiguous range ``[start, stop)`` of the games of one cell."""

    chunk: int
    spec: object  # scenarios.cells.CellSpec
    start: int
    stop: int
    run_seed: int
    parent: tuple | None = None  # parent_token() of the process running the scenario

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
    compiles: int = 0  # times this worker compiled the kernel so far (0: it only loaded the cache)
    cpu_seconds: float = 0.0  # CPU time of the worker process spent on this chunk


def chunk_games(task):
    """``(games, deal, rotation, seeds)`` of the chunk: each game's index in its cell, its deal, its
    seat rotation and its seed (the deal's, from the cell's deal key). Shared by every game's cells."""
    cell = task.spec.cell
    games = np.arange(task.start, task.stop, dtype=np.int64)
    deal, rotation = game_layout(games, cell.rotations)
    first = int(deal[0]) if len(games) else 0
    last = int(deal[-1]) + 1 if len(games) else 0
    seeds = deal_seeds(task.run_seed, cell.deal_key, range(first, last))[deal - first]
    return games, deal, rotation, seeds


def rotation_groups(spec, rotation):
    """For each seat rotation ``r`` the chunk plays: the rows of its games and the strategy rows
    seated for it (seat ``s`` plays lineup position ``(s - r) mod n``)."""
    n = spec.cell.players
    for r in range(spec.cell.rotations):
        idx = np.nonzero(rotation == r)[0]
        if len(idx):
            yield idx, spec.strategy_rows[[(s - r) % n for s in range(n)]]


def seat_rows(per_game, lineup, rotation, n):
    """The per-game columns repeated for each seat, with ``seat`` and the ``strategy`` seated there."""
    pos = (np.arange(n)[None, :] - rotation[:, None]) % n
    seats = {k: np.repeat(v, n) for k, v in per_game.items()}
    seats["seat"] = np.tile(np.arange(n, dtype=np.int8), len(rotation))
    seats["strategy"] = lineup[pos].reshape(-1)
    return seats


def winner_strategy(winner, lineup, rotation, n):
    """The strategy name of each game's winning seat ("" where no seat won)."""
    return np.where(winner >= 0, lineup[(winner - rotation) % n], "").astype(object)


def play_groups(game, spec, seeds, groups):
    """The default way to play a chunk (a game without ``play_chunk``): ``Game.play_batch`` once per
    seat rotation (``play_batch_lead`` when the scenario records the lead). Returns ``(seats, games,
    extra)`` as ``Game.play_chunk`` does."""
    n, m = spec.cell.players, len(seeds)
    seat_cols = {k: np.zeros((m, n), dtype=np.int64) for k in game.seat_columns}
    game_cols = {k: np.zeros(m, dtype=np.int64) for k in game.game_columns if k != "winner_strategy"}
    lead = [None] * m if "lead" in spec.record else None
    for idx, strat in groups:
        if lead is None:
            sr, gr = game.play_batch(spec.setup, seeds[idx], strat)
        else:
            sr, gr, rec, nrec = game.play_batch_lead(spec.setup, seeds[idx], strat)  # the game's lead record
            for i, row in zip(idx, lead_lists(rec, nrec)):
                lead[i] = row
        for k in seat_cols:
            seat_cols[k][idx] = sr[k]
        for k in game_cols:
            game_cols[k][idx] = gr[k]
    seats = {k: v.astype(np.int32) for k, v in seat_cols.items()}
    games = {k: v.astype(np.int32) for k, v in game_cols.items()}
    return seats, games, ({"lead": (lead, "object")} if lead is not None else {})


def chunk_tables(task):
    """(seats, games) DataFrames of one chunk of any game's cell, with exactly the columns of
    ``scenarios.schema`` (and what the scenario records after them)."""
    spec = task.spec
    cell = spec.cell
    game = registry.ensure(spec.game, spec.module)
    n = cell.players
    games, deal, rotation, seeds = chunk_games(task)
    groups = list(rotation_groups(spec, rotation))
    if game.play_chunk is not None:
        seat_arr, game_arr, extra = game.play_chunk(spec.setup, n, seeds, deal, groups, spec.record,
                                                    (spec.run_id, cell.index))
    else:
        seat_arr, game_arr, extra = play_groups(game, spec, seeds, groups)
    m = len(games)
    lineup = np.array(cell.lineup, dtype=object)
    per_game = {
        "cell": np.full(m, cell.index, dtype=np.int32),
        "cell_key": np.full(m, cell.key, dtype=object),
        "players": np.full(m, n, dtype=np.int8),
        **{col: np.full(m, value, dtype=object) for col, value in cell.setting.columns},
        "lineup": np.full(m, ",".join(cell.lineup), dtype=object),
        "deal": deal.astype(np.int32),
        "rotation": rotation.astype(np.int8),
        "game": games.astype(np.int32),
        "seed": seeds.view(np.int64),
    }
    cell_cols = schema.cell_columns(game)
    assert tuple(per_game) == cell_cols
    seats = seat_rows(per_game, lineup, rotation, n)
    for name in game.seat_columns:
        seats[name] = np.asarray(seat_arr[name]).reshape(-1)
    seat_cols = schema.seat_columns(game)
    seats_df = pd.DataFrame(seats, columns=list(seat_cols))
    winner = np.asarray(game_arr["winner"]) if "winner" in game_arr else np.full(m, -1)
    out = dict(per_game)
    for name in schema.game_columns(game)[len(cell_cols):]:
        out[name] = winner_strategy(winner, lineup, rotation, n) if name == "winner_strategy" else game_arr[name]
    games_df = pd.DataFrame(out, columns=list(schema.game_columns(game)))
    for key, (values, dtype) in extra.items():  # beyond the schema: readers select theirs
        games_df[key] = pd.Series(values, dtype=np.int32 if dtype == "int32" else object)
    return seats_df, games_df


def parquet_bytes(df):
    """A DataFrame as the bytes of a Parquet file (no index)."""
    table = pa.Table.from_pandas(df, preserve_index=False)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
    return sink.getvalue().to_pybytes()


def play_chunk(task):
    """Play a chunk and return its two tables as Parquet bytes."""
    watch_parent(task.parent)
    t0, c0 = time.perf_counter(), time.process_time()
    seats_df, games_df = task.spec.chunk_tables(task)
    return ChunkResult(
        chunk=task.chunk,
        games=task.games,
        seats=parquet_bytes(seats_df),
        table_games=parquet_bytes(games_df),
        seconds=time.perf_counter() - t0,
        pid=os.getpid(),
        compiles=task.spec.compiles(),
        cpu_seconds=time.process_time() - c0,
    )
