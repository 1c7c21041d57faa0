"""Shuffle and Swing's way to play a chunk of a run's games (``Game.play_chunk``): in sub-batches,
with what the scenario records, into plain arrays the run's worker (``scenarios.worker``) turns into
result tables.

A batch of games holds the interpreter lock while it plays, so a chunk is played in sub-batches of
about ``SUB_BATCH_SECONDS`` each, between which the worker's watcher thread gets its turn (it ends
the worker when the run's process is gone); a game depends only on its seed, so the tables are the
same. The cell's :class:`simulator.shuffle_swing.playout.GameSetup` is built once per process and
kept for later chunks of the same cell.
"""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np

from simulator.lead_record import NOT_REPLAYED, SETUP_EVERY, lead_lists, replay_noise
from simulator.shuffle_swing.layout import STATE_SIZE
from simulator.shuffle_swing.playout import GameSetup, game_results, play_many, seat_results

SUB_BATCH = 8  # games of the first kernel call within a chunk (see the module docstring)
SUB_BATCH_SECONDS = 0.25  # the sub-batch size adapts so that a kernel call takes about this long


class _CellInstruments:
    """The three instruments of a cell, looked up by name like an InstrumentLibrary."""

    def __init__(self, instruments):
        self._by_name = {i.name.casefold(): i for i in instruments}

    def get(self, name):
        return self._by_name[str(name).strip().casefold()]


_SETUPS: OrderedDict = OrderedDict()
_MAX_SETUPS = 256


def cell_setup(setup, players, cache_key):
    """The cell's GameSetup (``setup``: its :class:`simulator.shuffle_swing.setting.CellSetup`),
    built once per process for ``cache_key``."""
    game_setup = _SETUPS.get(cache_key)
    if game_setup is None:
        game_setup = GameSetup(
            nplayers=players,
            instruments=tuple(i.name for i in setup.instruments),
            shuffle_wheels=setup.shuffle_wheels,
            max_rounds=setup.max_rounds,
            library=_CellInstruments(setup.instruments),
            board=setup.board,
        )
        _SETUPS[cache_key] = game_setup
        while len(_SETUPS) > _MAX_SETUPS:
            _SETUPS.popitem(last=False)
    else:
        _SETUPS.move_to_end(cache_key)
    return game_setup


def play_recorded(record, setup, strat, seeds, deal, part, extra):
    """The games ``part`` through the record's entry point: their final states; ``extra`` (a dict of
    column -> one entry per game) receives what the scenario records."""
    from simulator.shuffle_swing.lead_record import play_many_record

    ties = "state" if "state-ties" in record else "drawn"
    st, _, rec, nrec, prj = play_many_record(setup, strat, seeds[part], tie_break=ties)
    if "lead" in record:
        for key, arr in (("lead", rec), ("lead_projected", prj)):
            for i, row in zip(part, lead_lists(arr, nrec)):
                extra[key][i] = row
    if "setup" in record:
        again = part[deal[part] % SETUP_EVERY == 0]
        won = np.full(len(part), NOT_REPLAYED, dtype=np.int32)
        if len(again):
            rst, _, _, _, _ = play_many_record(setup, strat, seeds[again], noise=replay_noise(seeds[again]), tie_break=ties)
            won[np.searchsorted(part, again)] = game_results(rst)["winner"]
        for i, w in zip(part, won):
            extra["setup_replay_winner"][i] = int(w)
    return st


def record_columns(record, games):
    """The recorded columns a chunk fills, one entry per game; ``None`` when nothing is recorded."""
    if not record:
        return None
    cols = {}
    if "lead" in record:
        cols["lead"] = [None] * games
        cols["lead_projected"] = [None] * games
    if "setup" in record:
        cols["setup_replay_winner"] = [None] * games
    return cols


def play_chunk(setup, players, seeds, deal, groups, record=(), cache_key=None):
    """Play a chunk's games: ``groups`` are ``(rows, strategy rows)`` of each seat rotation, ``seeds``
    and ``deal`` one entry per game. Returns ``(seats, games, extra)``: per-seat arrays (games x
    seats) and per-game arrays keyed by the game's result columns, and what the scenario records
    (column -> ``(values, dtype)``)."""
    game_setup = cell_setup(setup, players, cache_key)
    extra = record_columns(record, len(seeds))
    states = np.empty((len(seeds), STATE_SIZE), dtype=np.int32)
    for idx, strat in groups:
        k, size = 0, SUB_BATCH
        while k < len(idx):
            part = idx[k : k + size]
            t0 = time.perf_counter()
            if extra is None:
                st, _ = play_many(game_setup, strat, seeds[part])
            else:
                st = play_recorded(record, game_setup, strat, seeds, deal, part, extra)
            states[part] = st
            k += len(part)
            # Keep each kernel call near a quarter of a second, whatever the strategies' speed.
            dt = time.perf_counter() - t0
            size = min(size * 2, 4096) if dt < SUB_BATCH_SECONDS / 2 else max(1, size // 2) if dt > SUB_BATCH_SECONDS * 2 else size
    sr = seat_results(states, players)
    seats = {name: np.asarray(v).astype(np.int8 if name in ("won", "rank") else np.int32) for name, v in sr.items()}
    gr = game_results(states)
    games = {name: np.asarray(v).astype(np.int32) for name, v in gr.items()}
    kinds = {"setup_replay_winner": "int32"}
    return seats, games, {k: (v, kinds.get(k, "object")) for k, v in (extra or {}).items()}
