"""The Python face of the Echidna Shuffle kernel: play games, unpack results, soak.

``play_one`` plays one logged game; ``play_many`` a batch, returning final states; ``seat_results``
and ``game_results`` turn final states into the result columns the lab's tables hold; ``soak`` plays
games checking every invariant after every turn.
"""

import numpy as np

from simulator.echidna import layout as L
from simulator.echidna.kernel.engine import play_batch, play_game
from simulator.errors import DataError
from simulator.playout_common import GameRecord, soak_games

SEAT_COLUMNS = L.SEAT_COLUMNS
GAME_COLUMNS = L.GAME_COLUMNS


def strategy_rows(setup, strat):
    strat = np.asarray(strat, dtype=np.float64)
    if strat.ndim != 2 or strat.shape[0] != setup.nplayers or strat.shape[1] != L.STRAT_SIZE:
        raise DataError("game", "strategies", f"need {setup.nplayers} Echidna Shuffle strategies, one per seat")
    return np.ascontiguousarray(strat)


def play_one(setup, strat, seed, log_rows=200_000, check=True):
    """One game with its event log (rows of ``LOG_WIDTH`` ints)."""
    log = np.zeros((log_rows, L.LOG_WIDTH), dtype=np.int64)
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    code, turn = play_game(setup.geo, strategy_rows(setup, strat), np.uint64(seed), st, log, check)
    n = int(log[0, 0])
    return GameRecord(setup, int(seed), st, log[1 : n + 1].copy(), int(code), int(turn))


def play_many(setup, strat, seeds, check=False):
    """Final states of one game per seed, plus violations found (game index, code, turn)."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.zeros((len(seeds), L.STATE_SIZE), dtype=np.int64)
    bad = play_batch(setup.geo, strategy_rows(setup, strat), seeds, out, check)
    return out, bad


def batch_results(setup, seeds, strat):
    """Per-seat and per-game result columns of one game per seed (the registry's ``play_batch``)."""
    states, _ = play_many(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states, setup.nplayers)


def seat_results(states, nplayers):
    """Per-seat result columns (games x seats arrays) from final states."""
    seats = np.arange(nplayers)
    stat = {name: states[:, L.S_STAT + seats * L.N_STAT + k] for k, name in enumerate(L.STAT_NAMES)}
    winner = states[:, L.S_WINNER]
    home = states[:, L.S_HOME + seats]
    cols = {
        "won": (winner[:, None] == seats[None, :]).astype(np.int8),
        "bugs_home": home,
        "tokens_left": states[:, L.S_TOKENS + seats],
        **stat,
    }
    # Rank: the winner first, then by bugs home, then by turn order.
    key = -(cols["won"].astype(np.int64) * 100 + home) * 8 + seats[None, :]
    order = np.argsort(key, axis=1, kind="stable")
    rank = np.empty_like(order)
    rank[np.arange(len(states))[:, None], order] = seats[None, :]
    cols["rank"] = rank + 1
    return {k: cols[k] for k in SEAT_COLUMNS}


def turns_played(states):
    """Turns played, the winning one included: the kernel counts a turn when it ends, and a win
    (E6) ends the game inside its turn (the record only: the kernel's state is not changed)."""
    states = np.asarray(states)
    return states[..., L.S_TURN] + (states[..., L.S_WINNER] >= 0)


def game_results(states, nplayers):
    """Per-game result columns from final states."""
    lost = states[:, L.S_STAT + np.arange(nplayers) * L.N_STAT + L.ST_MOVES_LOST].sum(axis=1)
    return {
        "winner": states[:, L.S_WINNER].copy(),
        "rounds": states[:, L.S_ROUND].copy(),
        "turns": turns_played(states),
        "stalled": states[:, L.S_STALLED].copy(),
        "decisions": states[:, L.S_DECISIONS].copy(),
        "moves_lost": lost,
    }


def soak(setup, strat, games, seed):
    """Play ``games`` games checking every invariant after every turn."""
    return soak_games(play_many, setup, strat, games, seed, L.VIOLATIONS, L.S_TURN)


_LADDER_SETUPS = {}


def ladder_winners(nplayers, strat, seeds, settings):
    """Winner seat of each game on ``settings["board"]`` (-1: stopped by the stall cap, E9), for the
    skill ladder; the setups are kept per (players, board)."""
    from simulator.echidna.board import EchidnaSetup

    key = (nplayers, settings["board"])
    if key not in _LADDER_SETUPS:
        _LADDER_SETUPS[key] = EchidnaSetup(nplayers, settings["board"])
    if not len(seeds):
        return np.zeros(0, dtype=np.int64)
    states, _ = play_many(_LADDER_SETUPS[key], strat, seeds)
    return states[:, L.S_WINNER]

