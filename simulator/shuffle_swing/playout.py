"""The Python face of the kernel: validate and pack the inputs, play games, unpack the results.

``GameSetup`` turns instrument names and a player count into the kernel's ``geo`` array; ``play_one``
plays one logged game; ``play_many`` plays a batch and returns per-seat and per-game result arrays that
the runner turns into tables; ``soak`` plays random games checking every invariant after every turn.
"""

from dataclasses import dataclass, field

import numpy as np

from simulator.errors import DataError
from simulator.shuffle_swing.library import STARTER, InstrumentLibrary
from simulator.shuffle_swing.board import load_board
from simulator.shuffle_swing.pack import pack_geo
from simulator.shuffle_swing.kernel.engine import play_batch, play_game, play_game_plain
from simulator.shuffle_swing.kernel.invariants import VIOLATIONS
from simulator.shuffle_swing.leaf_fit import LEAF_ON_SETTING, apply_setting_leaves
from simulator.shuffle_swing.layout import (
    AUTOMA,
    DEPT_NAMES,
    KIND_LOOKAHEAD,
    KIND_SEARCH,
    P_KIND,
    P_LEAF_MODEL,
    G_MAX_ROUNDS,
    G_SHUFFLE_WHEELS,
    LOG_WIDTH,
    N_DEPT,
    N_OWNERS,
    N_SRC,
    N_STAT,
    S_BRAG_POS,
    S_BUILT,
    S_DECISIONS,
    S_PIECES,
    S_ROUND,
    S_SCORE,
    S_SRC,
    S_STALLED,
    S_STAT,
    S_TIEBREAK,
    S_TIED,
    S_TURN,
    S_WINNER,
    SRC_NAMES,
    STAT_NAMES,
    ST_PENALTY_TAKEN,
    STATE_SIZE,
)
from simulator.playout_common import GameRecord, soak_games

PLAYER_COUNTS = (2, 3, 4)


@dataclass
class GameSetup:
    """Everything fixed for a series of games: the board, three instruments, the player count."""

    nplayers: int = 4
    instruments: tuple = STARTER
    instrument_dirs: tuple = ()
    shuffle_wheels: bool | None = None
    max_rounds: int | None = None
    library: InstrumentLibrary = field(default=None, repr=False)
    board: object = field(default=None, repr=False)

    def __post_init__(self):
        if self.nplayers not in PLAYER_COUNTS:
            raise DataError("game", "players", f"{self.nplayers} players is not supported (2, 3 or 4)")
        if self.library is None:
            self.library = InstrumentLibrary(extra_dirs=self.instrument_dirs)
        if self.board is None:
            self.board = load_board()
        if len(self.instruments) != N_DEPT:
            raise DataError("game", "instruments", "name exactly three instruments, one per department")
        insts = [self.library.get(n) for n in self.instruments]
        by_dept = sorted(insts, key=lambda i: i.department)
        depts = [i.department for i in by_dept]
        if depts != list(range(N_DEPT)):
            names = ", ".join(f"{i.name} ({DEPT_NAMES[i.department]})" for i in insts)
            raise DataError("game", "instruments", f"need one instrument per department, got {names}")
        self.insts = by_dept
        self.instruments = tuple(i.name for i in by_dept)
        self.geo = pack_geo(self.board, by_dept, self.nplayers)
        if self.shuffle_wheels is not None:
            self.geo[G_SHUFFLE_WHEELS] = 1 if self.shuffle_wheels else 0
        if self.max_rounds is not None:
            if self.max_rounds < 1:
                raise DataError("game", "max_rounds", "must be at least 1")
            self.geo[G_MAX_ROUNDS] = self.max_rounds

    @property
    def label(self):
        return "/".join(self.instruments)


def strategy_matrix(setup, strat):
    strat = np.asarray(strat, dtype=np.float64)
    if strat.ndim != 2 or strat.shape[0] != setup.nplayers:
        raise DataError("game", "strategies", f"need {setup.nplayers} strategies, one per seat, got {len(strat)}")
    full = np.zeros((N_OWNERS, strat.shape[1]), dtype=np.float64)
    full[: setup.nplayers] = strat
    if strat.shape[1] > P_LEAF_MODEL and (strat[:, P_LEAF_MODEL] == LEAF_ON_SETTING).any():
        # A search whose leaf is fitted on the setting it plays (``leaf_fit``): that fit's coefficients.
        apply_setting_leaves(full, setup.geo, setup.nplayers)
    return full


def plain_lineup(strat):
    """True when no seat of the strategy rows looks ahead or searches (random and greedy kinds)."""
    kinds = np.asarray(strat, dtype=np.float64)[:, P_KIND]
    return not np.isin(kinds, (KIND_LOOKAHEAD, KIND_SEARCH)).any()


def game_entry(strat):
    """The kernel entry point ``play_one`` plays ``strat`` with (for the compile notice)."""
    return "play_game_plain" if plain_lineup(strat) else "play_game"


def play_one(setup, strat, seed, log_rows=200_000, check=True):
    """One complete game with its event log (rows of ``LOG_WIDTH`` ints). A table of random and
    greedy seats plays through ``play_game_plain`` (the same game; less to compile)."""
    log = np.zeros((log_rows if log_rows else 1, LOG_WIDTH), dtype=np.int32)
    full = strategy_matrix(setup, strat)
    entry = play_game_plain if plain_lineup(full) else play_game
    st, code, turn = entry(setup.geo, setup.nplayers, full, np.uint64(seed), log, check)
    n = int(log[0, 0])
    return GameRecord(setup, int(seed), st, log[1 : n + 1].copy(), int(code), int(turn))


def play_many(setup, strat, seeds, check=False):
    """Final states of one game per seed, plus invariant violations (game index, code, turn)."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    out = np.zeros((len(seeds), STATE_SIZE), dtype=np.int32)
    bad = play_batch(setup.geo, setup.nplayers, strategy_matrix(setup, strat), seeds, out, check)
    return out, bad


def batch_results(setup, seeds, strat):
    """Per-seat and per-game result columns of one game per seed (the registry's ``play_batch``)."""
    states, _ = play_many(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states)


def seat_results(states, nplayers):
    """Per-seat result columns (arrays of shape games x seats) from final states."""
    g = len(states)
    cols = {"score": states[:, S_SCORE : S_SCORE + nplayers]}
    for k, name in enumerate(SRC_NAMES):
        cols[name] = states[:, S_SRC + np.arange(nplayers) * N_SRC + k]
    for d, dn in enumerate(DEPT_NAMES):
        cols[f"pieces_{dn}"] = states[:, S_PIECES + d * N_OWNERS + np.arange(nplayers)]
        cols[f"brag_space_{dn}"] = states[:, S_BRAG_POS + d * N_OWNERS + np.arange(nplayers)]
    for k, name in enumerate(STAT_NAMES):
        cols[name] = states[:, S_STAT + np.arange(nplayers) * N_STAT + k]
    winner = states[:, S_WINNER]
    cols["won"] = (winner[:, None] == np.arange(nplayers)[None, :]).astype(np.int8)
    order = np.argsort(-cols["score"] * 8 - np.arange(nplayers)[None, :], axis=1, kind="stable")
    rank = np.empty_like(order)
    rank[np.arange(g)[:, None], order] = np.arange(nplayers)[None, :]
    cols["rank"] = rank + 1
    return cols


def game_results(states):
    """Per-game result columns from final states."""
    return {
        "winner": states[:, S_WINNER].copy(),
        "tiebreak": states[:, S_TIEBREAK].copy(),
        "tied": states[:, S_TIED].copy(),
        "rounds": states[:, S_ROUND].copy(),
        "turns": states[:, S_TURN].copy(),
        "stalled": states[:, S_STALLED].copy(),
        "decisions": states[:, S_DECISIONS].copy(),
        **{f"built_{dn}": states[:, S_BUILT + d].copy() for d, dn in enumerate(DEPT_NAMES)},
        "pri_or_neutral_pieces": sum(states[:, S_PIECES + d * N_OWNERS + AUTOMA] for d in range(N_DEPT)),
        # Unbuilt penalty points that fell on Pri's disc (R12/R14): absorbed, paid by no player.
        "pri_penalty_absorbed": states[:, S_STAT + AUTOMA * N_STAT + ST_PENALTY_TAKEN].copy(),
    }


def soak(setup, strat, games, seed):
    """Play ``games`` games checking every invariant after every turn."""
    return soak_games(play_many, setup, strat, games, seed, VIOLATIONS, S_TURN)


_LADDER_SETUPS = {}


def ladder_winners(nplayers, strat, seeds, settings):
    """Winner seat of each game with ``settings["instruments"]`` (and ``instrument_dirs``), for the
    skill ladder; the setups are kept per (players, instruments, folders)."""
    key = (nplayers, tuple(settings["instruments"]), tuple(settings["instrument_dirs"]))
    if key not in _LADDER_SETUPS:
        _LADDER_SETUPS[key] = GameSetup(nplayers=nplayers, instruments=key[1], instrument_dirs=key[2])
    if not len(seeds):
        return np.zeros(0, dtype=np.int64)
    states, _ = play_many(_LADDER_SETUPS[key], strat, seeds)
    return states[:, S_WINNER]

