"""What the games' playout modules share: the per-game seed, the record of one logged game, the soak.

Each game's ``playout`` module re-exports these, so callers import them from the game they play.
"""

from dataclasses import dataclass

import numpy as np

from simulator.kernel.core import mix_seed


def game_seed(run_seed, index):
    """Seed of game ``index`` of a run: independent of how the games are split among workers."""
    return int(mix_seed(np.uint64(run_seed), np.uint64(index)))


@dataclass
class GameRecord:
    """One game played with its event log: the final state, the events, and the first invariant it
    broke (``violation`` 0: none)."""

    setup: object
    seed: int
    state: np.ndarray
    events: np.ndarray
    violation: int = 0
    violation_turn: int = -1


@dataclass
class SoakReport:
    games: int
    turns: int
    violations: list  # (seed, turn, code, message)


def soak_games(play_many, setup, strat, games, seed, violations, turn_slot):
    """Play ``games`` games with ``play_many(..., check=True)`` (every invariant after every turn);
    ``violations`` names the game's violation codes, ``turn_slot`` is where its state counts turns."""
    seeds = np.array([game_seed(seed, i) for i in range(games)], dtype=np.uint64)
    states, bad = play_many(setup, strat, seeds, check=True)
    found = [(int(seeds[g]), int(t), int(c), violations.get(int(c), "unknown")) for g, c, t in bad]
    return SoakReport(games, int(states[:, turn_slot].sum()), found)
