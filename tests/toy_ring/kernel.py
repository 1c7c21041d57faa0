"""Ring Race's rules: plain numpy, one game after another (a toy needs no compiled kernel).

State of one game, per seat: position (0..spaces*laps), times bumped; per game: winner (-1: none),
rounds, stalled, turns. A strategy row is ``[kind, boldness]``: kind 0 random (moves 1..roll, drawn),
kind 1 greedy (moves the whole roll).
"""

from pathlib import Path

import numpy as np

KIND_NAMES = ("random", "greedy")
VIOLATIONS = {1: "a token beyond the finish", 2: "a winner that has not finished", 3: "a finished game with no winner"}


def kernel_sources():
    return [Path(__file__).resolve()]


def play_game(setup, strat, seed, log=None):
    """One game; returns (positions, bumped, winner, rounds, stalled, turns, violation)."""
    n = setup.nplayers
    goal = setup.board.spaces * setup.laps
    rng = np.random.default_rng(int(seed))
    pos = np.zeros(n, dtype=np.int64)
    bumped = np.zeros(n, dtype=np.int64)
    winner, rounds, turns, violation = -1, 0, 0, 0
    faces = setup.board.faces
    while winner < 0 and rounds < setup.board.max_rounds:
        rounds += 1
        for seat in range(n):
            roll = int(faces[rng.integers(len(faces))])
            step = roll if strat[seat, 0] == 1 else int(rng.integers(1, roll + 1))
            pos[seat] = min(goal, pos[seat] + step)
            turns += 1
            if log is not None:
                log.append((rounds, seat, roll, step, int(pos[seat])))
            if setup.bump and pos[seat] < goal:
                for other in range(n):
                    if other != seat and pos[other] == pos[seat] and pos[other] > 0:
                        pos[other] = 0
                        bumped[other] += 1
            if pos.max() > goal:
                violation = 1
            if pos[seat] == goal:
                winner = seat
                break
    stalled = int(winner < 0)
    if winner >= 0 and pos[winner] != goal:
        violation = 2
    if winner < 0 and pos.max() == goal:
        violation = 3
    return pos, bumped, winner, rounds, stalled, turns, violation


def play_batch(setup, seeds, strat):
    """Per-seat (games x seats) and per-game columns of one game per seed."""
    m, n = len(seeds), setup.nplayers
    seat = {k: np.zeros((m, n), dtype=np.int64) for k in ("distance", "bumped", "won")}
    game = {k: np.zeros(m, dtype=np.int64) for k in ("winner", "rounds", "stalled", "turns")}
    for i, s in enumerate(seeds):
        pos, bumped, winner, rounds, stalled, turns, _ = play_game(setup, strat, s)
        seat["distance"][i] = pos
        seat["bumped"][i] = bumped
        if winner >= 0:
            seat["won"][i, winner] = 1
        game["winner"][i], game["rounds"][i], game["stalled"][i], game["turns"][i] = winner, rounds, stalled, turns
    return seat, game
