"""The worker side of a run: play one chunk of games and turn it into result tables.

A task carries everything a worker needs (the cell, its three validated instruments, the board, the
strategy rows), so a worker reads no files: a dask worker on another machine needs only the package.
A worker builds :class:`simulator.shuffle_swing.playout.GameSetup` once per cell and keeps it for later chunks of
the same cell. The tables are encoded as Parquet in the worker; the parent only writes the bytes.

Workers only load the compiled kernel: the parent compiles it before any worker starts
(``scenarios.runner``), and each result says whether its worker had to compile after all.

No orphans: a task names the process that runs the scenario (:func:`parent_token`). On its first
task a worker on the same machine starts a watcher thread that ends the worker as soon as that
process is gone (a ``kill -9`` of ``ssb run`` included). A batch of games holds the interpreter
lock while it plays, so a chunk is played in sub-batches of about ``SUB_BATCH_SECONDS`` each, between
which the watcher gets its turn; a game depends only on its seed, so the tables are the same.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from scenarios.schema import CELL_COLUMNS, GAME_COLUMNS, SEAT_COLUMNS
from simulator.seeds import deal_seeds, game_layout
from simulator.shuffle_swing.layout import STATE_SIZE
from simulator.shuffle_swing.playout import GameSetup, game_results, play_many, seat_results

PARQUET_COMPRESSION = "zstd"
SUB_BATCH = 8  # games of the first kernel call within a chunk (see the module docstring)
SUB_BATCH_SECONDS = 0.25  # the sub-batch size adapts so that a kernel call takes about this long
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


def kernel_compiles():
    """How many times this process compiled the batch kernel instead of loading it from the cache."""
    from simulator.shuffle_swing.kernel.engine import play_batch

    try:
        return int(sum(play_batch.stats.cache_misses.values()))
    except AttributeError:  # running interpreted
        return 0


@dataclass(frozen=True)
class CellSpec:
    """What a worker needs to play a cell, with no file access."""

    run_id: str  # scenario text + data + code; with the cell index it keys the worker's cache
    cell: object  # scenarios.scenario.Cell
    board: object  # simulator.shuffle_swing.instruments.Board
    instruments: tuple  # three Instrument, black, orange, gray
    shuffle_wheels: bool
    max_rounds: int | None
    strategy_rows: np.ndarray  # one row per lineup position (before rotation)
    record: tuple = ()  # what the run records beyond its tables (``scenarios.record``)

    def chunk_tables(self, task):
        return chunk_tables(task)

    def compiles(self):
        return kernel_compiles()


@dataclass(frozen=True)
class ChunkTask:
    """A contiguous range ``[start, stop)`` of the games of one cell."""

    chunk: int
    spec: CellSpec
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


def play_recorded(spec, setup, strat, seeds, deal, part, lead):
    """The games ``part`` through the record's entry point (``scenarios.record``): their final
    states; ``lead`` (a dict of column -> one entry per game) receives what the scenario records."""
    from scenarios.record import NOT_REPLAYED, SETUP_EVERY, lead_lists, replay_noise
    from simulator.shuffle_swing.lead_record import play_many_record

    rec_names = getattr(spec, "record", ())
    ties = "state" if "state-ties" in rec_names else "drawn"
    st, _, rec, nrec, prj = play_many_record(setup, strat, seeds[part], tie_break=ties)
    if "lead" in rec_names:
        for key, arr in (("lead", rec), ("lead_projected", prj)):
            for i, row in zip(part, lead_lists(arr, nrec)):
                lead[key][i] = row
    if "setup" in rec_names:
        again = part[deal[part] % SETUP_EVERY == 0]
        won = np.full(len(part), NOT_REPLAYED, dtype=np.int32)
        if len(again):
            rst, _, _, _, _ = play_many_record(setup, strat, seeds[again], noise=replay_noise(seeds[again]), tie_break=ties)
            won[np.searchsorted(part, again)] = game_results(rst)["winner"]
        for i, w in zip(part, won):
            lead["setup_replay_winner"][i] = int(w)
    return st


def play_states(task, lead=None):
    """Final states of the chunk's games (rows in game order), each rotation group in one batch.
    ``lead``, a list of one entry per game, receives the lead record's rows (``scenarios.record``)."""
    spec = task.spec
    setup = cell_setup(spec)
    games, deal, rotation, seeds = chunk_games(task)
    states = np.empty((len(games), STATE_SIZE), dtype=np.int32)
    for idx, strat in rotation_groups(spec, rotation):
        k, size = 0, SUB_BATCH
        while k < len(idx):
            part = idx[k : k + size]
            t0 = time.perf_counter()
            if lead is None:
                st, _ = play_many(setup, strat, seeds[part])
            else:
                st = play_recorded(spec, setup, strat, seeds, deal, part, lead)
            states[part] = st
            k += len(part)
            # Keep each kernel call near a quarter of a second, whatever the strategies' speed.
            dt = time.perf_counter() - t0
            size = min(size * 2, 4096) if dt < SUB_BATCH_SECONDS / 2 else max(1, size // 2) if dt > SUB_BATCH_SECONDS * 2 else size
    return games, deal, rotation, seeds, states


def record_columns(spec, games):
    """The recorded columns a chunk fills (``scenarios.record``), one entry per game; ``None``
    when the scenario records nothing (the plain entry point plays)."""
    names = getattr(spec, "record", ())
    if not names:
        return None
    cols = {}
    if "lead" in names:
        cols["lead"] = [None] * games
        cols["lead_projected"] = [None] * games
    if "setup" in names:
        cols["setup_replay_winner"] = [None] * games
    return cols


def chunk_tables(task):
    """(seats, games) DataFrames of one chunk, with exactly the columns of ``scenarios.schema``."""
    spec = task.spec
    cell = spec.cell
    n = cell.players
    lead = record_columns(spec, task.games)
    games, deal, rotation, seeds, states = play_states(task, lead)
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

    sr = seat_results(states, n)
    seats = seat_rows(per_game, lineup, rotation, n)
    for name in SEAT_COLUMNS[len(CELL_COLUMNS) + 2 :]:
        col = np.asarray(sr[name]).reshape(-1)
        seats[name] = col.astype(np.int8 if name in ("won", "rank") else np.int32)
    seats_df = pd.DataFrame(seats, columns=list(SEAT_COLUMNS))

    gr = game_results(states)
    winner = gr["winner"]
    out = dict(per_game)
    out["winner"] = winner.astype(np.int32)
    out["winner_strategy"] = winner_strategy(winner, lineup, rotation, n)
    for name in GAME_COLUMNS[len(CELL_COLUMNS) + 2 :]:
        out[name] = np.asarray(gr[name]).astype(np.int32)
    games_df = pd.DataFrame(out, columns=list(GAME_COLUMNS))
    for key, values in (lead or {}).items():  # beyond the schema: readers select theirs
        games_df[key] = pd.Series(values, dtype=np.int32 if key == "setup_replay_winner" else object)
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
