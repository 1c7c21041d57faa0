"""Every instrument set (4 x 4 x 4 = 64) at 2, 3 and 4 players plays clean random games: the invariants
hold after every turn (R1-R15 exercised on every layout). The long soak is `ssb check --all-sets`."""

import itertools

import pytest

from simulator.shuffle_swing.library import InstrumentLibrary
from simulator.shuffle_swing.layout import N_DEPT, N_SRC, S_OVER, S_SCORE, S_SRC, S_STALLED
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary

LIB = InstrumentLibrary()
SETS = list(itertools.product(*[[i.name for i in LIB.by_department(d)] for d in range(N_DEPT)]))
STRATS = StrategyLibrary()


def test_sixty_four_sets():
    assert len(SETS) == 64
    assert len({frozenset(s) for s in SETS}) == 64


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_set_plays_clean(players):
    bad = []
    for k, inst_set in enumerate(SETS):
        setup = GameSetup(nplayers=players, instruments=inst_set, library=LIB)
        seeds = [game_seed(1000 + k, i) for i in range(3)]
        states, violations = play_many(setup, STRATS.matrix(["random"] * players), seeds, check=True)
        assert (states[:, S_OVER] == 1).all()
        for p in range(players):
            srcs = states[:, S_SRC + p * N_SRC : S_SRC + (p + 1) * N_SRC].sum(axis=1)
            assert (srcs == states[:, S_SCORE + p]).all()
        bad += [(inst_set, int(c), int(t)) for _, c, t in violations]
    assert bad == []


def test_greedy_plays_every_set_at_four():
    """The greedy policy reaches the end of a game on every layout (no stalls from a blind spot)."""
    stalled = []
    for k, inst_set in enumerate(SETS):
        setup = GameSetup(nplayers=4, instruments=inst_set, library=LIB)
        states, violations = play_many(setup, STRATS.matrix(["greedy"] * 4), [game_seed(7, k)], check=True)
        assert len(violations) == 0
        if states[0, S_STALLED]:
            stalled.append(inst_set)
    assert stalled == []
