"""Property tests over whole games on the real data: random seeds, two to four players, random and
greedy seats. Every game is played with the invariant checker on after every turn; the final states
are then checked for score bookkeeping, determinism and the end of the game (R11). A last group
corrupts sound states on purpose to show that ``check_invariants`` notices.
"""

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from simulator.shuffle_swing.kernel import engine
from simulator.shuffle_swing.kernel.invariants import VIOLATIONS, check_invariants
from simulator.shuffle_swing.layout import (
    AUTOMA,
    DICE_PER_OWNER,
    EV_SCORE,
    G_MAX_ROUNDS,
    LOG_WIDTH,
    MAX_SPACES,
    N_DEPT,
    N_OWNERS,
    N_SLICES,
    N_SRC,
    N_STAT,
    S_BUILT,
    S_DIE_POS,
    S_DIE_WHERE,
    S_EMPTY,
    S_ENDING,
    S_INNER,
    S_OVER,
    S_PAWN,
    S_READY,
    S_ROOM_DIE,
    S_ROUND,
    S_SCORE,
    S_SLICE_DIE,
    S_SRC,
    S_STALLED,
    S_STAT,
    S_TURN,
    S_WINNER,
    SRC_INSPECTOR,
    ST_TURNS,
    W_WHEEL,
)
from simulator.shuffle_swing.playout import GameSetup, play_one
from simulator.shuffle_swing.strategies import StrategyLibrary

SETTINGS = settings(max_examples=25, deadline=None)


@cache
def setup_for(nplayers):
    return GameSetup(nplayers=nplayers)


@cache
def library():
    return StrategyLibrary()


def strat_matrix(names):
    """One row per owner (``N_OWNERS``), as the kernel's ``play_game`` wants."""
    rows = library().matrix(list(names))
    full = np.zeros((N_OWNERS, rows.shape[1]))
    full[: len(names)] = rows
    return full


def play(nplayers, names, seed, log_rows=1):
    setup = setup_for(nplayers)
    log = np.zeros((log_rows, LOG_WIDTH), np.int32)
    st, code, turn = engine.play_game(setup.geo, nplayers, strat_matrix(names), np.uint64(seed), log, True)
    return st, int(code), int(turn), log


@hs.composite
def games(draw):
    nplayers = draw(hs.sampled_from([2, 3, 4]))
    names = tuple(draw(hs.lists(hs.sampled_from(["random", "greedy"]), min_size=nplayers, max_size=nplayers)))
    seed = draw(hs.integers(0, 2**63 - 1))
    return nplayers, names, seed


# --------------------------------------------------------------------------- whole games


@SETTINGS
@given(games())
def test_games_keep_every_invariant(game):
    """No invariant is broken after any turn, and the game is over and scored at the end."""
    nplayers, names, seed = game
    st, code, turn, _ = play(nplayers, names, seed)
    assert code == 0, f"{VIOLATIONS.get(code)} at turn {turn}"
    assert st[S_OVER] == 1
    assert 0 <= st[S_WINNER] < nplayers


@SETTINGS
@given(games())
def test_scores_are_the_sum_of_their_sources(game):
    """Every owner's score equals the sum of its sources (and of its logged score events); Pri and
    the neutral never score (R14, R15)."""
    nplayers, names, seed = game
    setup = setup_for(nplayers)
    rec = play_one(setup, library().matrix(list(names)), seed)
    st = rec.state
    assert rec.violation == 0
    logged = [0] * N_OWNERS
    for e in rec.events:
        if e[2] == EV_SCORE:
            logged[int(e[3])] += int(e[4])
    for o in range(N_OWNERS):
        src = st[S_SRC + o * N_SRC : S_SRC + (o + 1) * N_SRC]
        assert int(src.sum()) == int(st[S_SCORE + o])
        assert logged[o] == int(st[S_SCORE + o])
    assert st[S_SCORE + AUTOMA] == 0
    assert max(int(st[S_SCORE + p]) for p in range(nplayers)) == int(st[S_SCORE + st[S_WINNER]])


@SETTINGS
@given(games())
def test_same_seed_same_game(game):
    """A game is a function of its seed: the final states and the event logs agree exactly."""
    nplayers, names, seed = game
    a, _, _, log_a = play(nplayers, names, seed, log_rows=60_000)
    b, _, _, log_b = play(nplayers, names, seed, log_rows=60_000)
    assert np.array_equal(a, b)
    assert np.array_equal(log_a, log_b)


@SETTINGS
@given(games())
def test_game_ends_after_a_whole_round(game):
    """R11: the game ends at the end of a round, so every seat has played the same number of turns;
    it ends because two instruments are built, or it is flagged stalled at the cap."""
    nplayers, names, seed = game
    st, code, _, _ = play(nplayers, names, seed)
    assert code == 0
    turns = [int(st[S_STAT + p * N_STAT + ST_TURNS]) for p in range(nplayers)]
    assert len(set(turns)) == 1
    assert turns[0] == st[S_ROUND]
    assert st[S_TURN] == nplayers * st[S_ROUND]
    built = sum(int(st[S_EMPTY + d] == 0) for d in range(N_DEPT))
    if st[S_STALLED]:
        assert st[S_ENDING] == 0 and st[S_ROUND] == setup_for(nplayers).geo[G_MAX_ROUNDS]
    else:
        assert st[S_ENDING] == 1 and built >= 2
    assert all(st[S_BUILT + d] == (st[S_EMPTY + d] == 0) for d in range(N_DEPT))


# --------------------------------------------------------------------------- the checker itself


@cache
def finished_state(seed=5):
    st, code, _, _ = play(4, ("greedy", "random", "greedy", "random"), seed)
    assert code == 0
    return st


def pieces_by(st, owner):
    return [
        (d, s) for d in range(N_DEPT) for s in range(MAX_SPACES) if st[S_INNER + d * MAX_SPACES + s] == owner
    ]


def flip_a_piece(st):
    """Hand one of seat 0's inner pieces to seat 1 without telling the counters."""
    d, s = pieces_by(st, 0)[0]
    st[S_INNER + d * MAX_SPACES + s] = 1


def swap_two_pieces(st):
    """Swap an inner piece of seat 0 with one of seat 1 on another instrument: each seat keeps its
    number of pieces, but the per-instrument counts are wrong."""
    for d0, s0 in pieces_by(st, 0):
        for d1, s1 in pieces_by(st, 1):
            if d0 != d1:
                st[S_INNER + d0 * MAX_SPACES + s0] = 1
                st[S_INNER + d1 * MAX_SPACES + s1] = 0
                return
    raise AssertionError("no suitable pair of pieces")


def add_a_cat(st):
    st[S_READY + 2 * 3 + 1] += 1


def negative_cats(st):
    st[S_READY + 3 * 3 + 0] = -1


def fourth_die_on_a_wheel(st):
    """Stand four dice on the black wheel, each consistently recorded."""
    for s in range(N_SLICES):
        die = st[S_SLICE_DIE + s]
        if die >= 0:  # clear what is there first
            st[S_DIE_WHERE + die] = 0
            st[S_DIE_POS + die] = -1
            st[S_SLICE_DIE + s] = -1
    for room in range(3):
        st[S_ROOM_DIE + room] = -1
    for die in range(4 * DICE_PER_OWNER):
        if st[S_DIE_WHERE + die] != W_WHEEL:
            st[S_DIE_WHERE + die] = 0
            st[S_DIE_POS + die] = -1
    for s in range(N_SLICES):
        die = s * DICE_PER_OWNER + (s % DICE_PER_OWNER)  # one die of each of four seats
        for t in range(N_DEPT * N_SLICES):  # take it off any other wheel
            if st[S_SLICE_DIE + t] == die:
                st[S_SLICE_DIE + t] = -1
        st[S_SLICE_DIE + s] = die
        st[S_DIE_WHERE + die] = W_WHEEL
        st[S_DIE_POS + die] = s


def break_a_score(st):
    st[S_SCORE + 1] += 1


def score_without_source(st):
    st[S_SRC + 2 * N_SRC + SRC_INSPECTOR] -= 3


def points_for_the_neutral(st):
    st[S_SCORE + AUTOMA] += 2
    st[S_SRC + AUTOMA * N_SRC + SRC_INSPECTOR] += 2


def shared_pawn_spot(st):
    st[S_PAWN + 1] = st[S_PAWN + 0]


CORRUPTIONS = [
    (flip_a_piece, 7),
    (swap_two_pieces, 10),
    (add_a_cat, 5),
    (negative_cats, 6),
    (fourth_die_on_a_wheel, 1),
    (break_a_score, 12),
    (score_without_source, 12),
    (points_for_the_neutral, 13),
    (shared_pawn_spot, 15),
]


def test_sound_states_pass_the_checker():
    """The checker accepts fresh setups for every player count and a finished game."""
    setup = setup_for(4)
    assert check_invariants(finished_state(), setup.geo) == 0
    for n in (2, 3, 4):
        st = engine.setup_game(
            setup_for(n).geo,
            n,
            strat_matrix(["random"] * n),
            np.array([9], np.uint64),
            np.zeros((1, LOG_WIDTH), np.int32),
        )
        assert check_invariants(st, setup_for(n).geo) == 0


@pytest.mark.parametrize("corrupt, code", CORRUPTIONS, ids=[c.__name__ for c, _ in CORRUPTIONS])
def test_checker_catches_a_corrupted_state(corrupt, code):
    """Each corruption of a sound finished state is reported with its own code."""
    st = finished_state().copy()
    corrupt(st)
    assert check_invariants(st, setup_for(4).geo) == code
    assert code in VIOLATIONS


@SETTINGS
@given(seed=hs.integers(0, 2**63 - 1), which=hs.sampled_from(CORRUPTIONS))
def test_checker_catches_corruption_of_any_finished_game(seed, which):
    """The same corruptions, applied to the final state of a random four-player game."""
    corrupt, code = which
    st, ok, _, _ = play(4, ("random",) * 4, seed)
    assert ok == 0 and check_invariants(st, setup_for(4).geo) == 0
    if corrupt in (flip_a_piece, swap_two_pieces) and not (pieces_by(st, 0) and pieces_by(st, 1)):
        return
    if corrupt is swap_two_pieces and not any(
        d0 != d1 for d0, _ in pieces_by(st, 0) for d1, _ in pieces_by(st, 1)
    ):
        return
    corrupt(st)
    assert check_invariants(st, setup_for(4).geo) == code
