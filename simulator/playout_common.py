"""What the games' playout modules share: the record of one logged game and the soak."""

from dataclasses import dataclass

import numpy as np

from simulator.seeds import game_seed


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
