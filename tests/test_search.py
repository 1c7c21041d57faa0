"""The search player (``simulator/shuffle_swing/kernel/search.py``): legal and deterministic games, common random
numbers, merged pawn spots, the halving's budget, the leaf evaluation, and that it beats greedy."""

import numpy as np
import pytest

from simulator.shuffle_swing.kernel import engine, search
from simulator.shuffle_swing.kernel.choice import MAX_CAND
from simulator.shuffle_swing.kernel.objectives import preview_section, section_open_spaces
from simulator.shuffle_swing.kernel.rules import cube_level
from simulator.shuffle_swing.layout import (
    G_INST,
    I_NSECTIONS,
    I_PENALTY,
    I_TRACK_VP,
    INST_SIZE,
    KIND_GREEDY,
    KIND_LOOKAHEAD,
    KIND_RANDOM,
    MAX_SECTIONS,
    N_DEPT,
    N_OWNERS,
    P_BUDGET,
    P_HORIZON,
    P_KIND,
    P_WEIGHTS,
    PARAMS,
    S_BRAG_POS,
    S_CUR,
    S_EMPTY,
    S_ENDING,
    S_NPLAYERS,
    S_OVER,
    S_SCORE,
    S_SEC_STATE,
    S_WINNER,
    STRAT_SIZE,
)
from simulator.shuffle_swing import layout
from simulator.shuffle_swing.playout import GameSetup, strategy_matrix, play_many, play_one
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary

LIB = StrategyLibrary()


def small_search(budget=6, horizon=4, candidates=4):
    """A cheap search row for the tests."""
    row = LIB.get("search").row()
    row[PARAMS["budget"][0]] = budget
    row[PARAMS["horizon"][0]] = horizon
    row[PARAMS["candidates"][0]] = candidates
    return row


def rng(seed):
    r = np.empty(1, dtype=np.uint64)
    r[0] = np.uint64(seed)
    return r


def mid_game(setup, strat, seed, turns):
    """The state after ``turns`` turns of a game played by ``strat`` (full matrix), its generator
    and the candidates of the seat to move."""
    log = np.zeros((1, 8), dtype=np.int32)
    r = rng(seed)
    st = engine.setup_game(setup.geo, setup.nplayers, strat, r, log)
    for _ in range(turns):
        engine.play_turn(st, setup.geo, strat, r, log)
    c_spot = np.zeros(MAX_CAND, dtype=np.int64)
    c_die = np.zeros(MAX_CAND, dtype=np.int64)
    c_slice = np.zeros(MAX_CAND, dtype=np.int64)
    n = engine.enumerate_turns(st, st[S_CUR], c_spot, c_die, c_slice)
    return st, r, c_spot, c_die, c_slice, n


@pytest.mark.parametrize("nplayers", [2, 3, 4])
def test_search_plays_legal_complete_games(nplayers):
    setup = GameSetup(nplayers=nplayers)
    rows = [small_search()] + [LIB.get("greedy").row()] * (nplayers - 1)
    for g in range(2):
        rec = play_one(setup, np.array(rows), game_seed(11, g), log_rows=0, check=True)
        assert rec.violation == 0, (rec.violation, rec.violation_turn)
        assert rec.state[S_OVER] == 1
        assert 0 <= rec.state[S_WINNER] < nplayers


def test_search_is_deterministic_for_a_seed():
    setup = GameSetup(nplayers=4)
    strat = np.array([LIB.get("greedy").row(), small_search(), LIB.get("random").row(), LIB.get("greedy").row()])
    seeds = [game_seed(3, d) for d in range(3)]
    a, _ = play_many(setup, strat, seeds)
    b, _ = play_many(setup, strat, seeds)
    assert np.array_equal(a, b)
    # A game played alone equals the same game played in a batch.
    c, _ = play_many(setup, strat, seeds[1:2])
    assert np.array_equal(a[1], c[0])


def test_rollout_strategies_play_each_seat_greedy_with_its_own_weights():
    strat = np.zeros((N_OWNERS, STRAT_SIZE))
    strat[0] = small_search()
    strat[0, P_WEIGHTS] = 7.5  # a weight of its own
    strat[1] = LIB.get("lookahead").row()
    strat[2] = LIB.get("random").row()
    strat[3] = LIB.get("greedy").row()
    rs = np.empty_like(strat)
    search.fill_rollout_strat(strat, rs)
    assert rs[0, P_KIND] == KIND_GREEDY and rs[1, P_KIND] == KIND_GREEDY
    assert rs[2, P_KIND] == KIND_RANDOM
    assert rs[0, P_WEIGHTS] == 7.5
    np.testing.assert_array_equal(rs[:, P_KIND + 1 :], strat[:, P_KIND + 1 :])
    assert strat[0, P_KIND] != KIND_GREEDY and strat[1, P_KIND] == KIND_LOOKAHEAD  # input untouched


def test_common_random_numbers_equal_actions_get_equal_rollouts():
    setup = GameSetup(nplayers=4)
    strat = strategy_matrix(setup, [small_search(horizon=0)] + [LIB.get("greedy").row()] * 3)
    st, _, c_spot, c_die, c_slice, n = mid_game(setup, strat, 5, 20)
    p = int(st[S_CUR])
    strat[p] = small_search(horizon=0)
    assert n >= 2
    before = st.copy()
    arms = np.array([0, 0, 2, 1], dtype=np.int64)  # candidate 0 twice, candidate 1, candidate 0 bragging
    out = np.zeros((4, 12))
    search.arm_outcomes(st, setup.geo, strat, p, c_spot, c_die, c_slice, arms, 12345, 0, out)
    np.testing.assert_array_equal(out[0], out[1])
    assert np.array_equal(st, before)  # rollouts play on a copy
    # The rollouts are random (greedy ties, rooms): the seeds give different futures ...
    assert len(np.unique(out[0])) > 1
    # ... and the same seeds give the same futures again.
    again = np.zeros((4, 12))
    search.arm_outcomes(st, setup.geo, strat, p, c_spot, c_die, c_slice, arms, 12345, 0, again)
    np.testing.assert_array_equal(out, again)


def test_candidates_differing_only_in_spot_are_merged():
    setup = GameSetup(nplayers=4)
    strat = strategy_matrix(setup, [LIB.get("greedy").row()] * 4)
    st, _, c_spot, c_die, c_slice, n = mid_game(setup, strat, 9, 13)
    p = int(st[S_CUR])
    vals = np.zeros(2 * MAX_CAND)
    engine.score_candidates(st, setup.geo, strat[p], p, c_spot, c_die, c_slice, n, vals, False)
    arm_idx = np.zeros(2 * MAX_CAND, dtype=np.int64)
    arm_prior = np.zeros(2 * MAX_CAND)
    na = search.merge_actions(c_spot, c_die, c_slice, n, vals, arm_idx, arm_prior)
    keys = {(c_spot[i] // 3, c_die[i], c_slice[i], b) for i in range(n) for b in range(2)}
    arm_keys = [(c_spot[a // 2] // 3, c_die[a // 2], c_slice[a // 2], a % 2) for a in arm_idx[:na]]
    assert sorted(arm_keys) == sorted(keys)  # every action once
    assert na < 2 * n  # four players: some department offers two or three spots
    for a in range(na):
        i, b = divmod(int(arm_idx[a]), 2)
        same = [vals[2 * j + b] for j in range(n) if (c_spot[j] // 3, c_die[j], c_slice[j]) == arm_keys[a][:3]]
        assert arm_prior[a] == max(same) == vals[2 * i + b]


def test_halving_never_plays_more_than_its_budget():
    for candidates in (1, 2, 3, 5, 8, 16):
        for budget in (0, 1, 2, 3, 6, 8, 14, 16, 64):
            k = search.halving_width(candidates, budget)
            assert 1 <= k <= max(1, candidates)
            # The smallest schedule: one rollout per action still in, every round.
            need, m = 0, k
            while m > 1:
                need += m
                m = (m + 1) // 2
            assert need <= max(budget, 0) or k == 1
    assert search.halving_width(8, 16) == 8  # 8 + 4 + 2 rollouts fit
    assert search.halving_width(8, 8) == 4  # 4 + 2 fit, 5 + 3 + 2 do not
    assert search.halving_width(8, 1) == 1
    assert [search.halving_rounds(k) for k in (1, 2, 3, 4, 5, 8, 9)] == [0, 1, 2, 2, 3, 3, 4]


def test_tiny_budget_plays_the_greedy_best_action():
    setup = GameSetup(nplayers=4)
    strat = strategy_matrix(setup, [LIB.get("greedy").row()] * 4)
    st, r, c_spot, c_die, c_slice, n = mid_game(setup, strat, 21, 9)
    p = int(st[S_CUR])
    strat[p] = small_search(budget=1)
    vals = np.zeros(2 * MAX_CAND)
    engine.score_candidates(st, setup.geo, strat[p], p, c_spot, c_die, c_slice, n, vals, False)
    i, b = search.search_pick(st, setup.geo, strat, r, p, c_spot, c_die, c_slice, n)
    assert vals[2 * i + b] == vals[: 2 * n].max()
    # A budget of 2 compares the two best distinct actions with one rollout each.
    strat[p, P_BUDGET] = 2
    strat[p, P_HORIZON] = 2
    i2, b2 = search.search_pick(st, setup.geo, strat, r, p, c_spot, c_die, c_slice, n)
    arm_idx = np.zeros(2 * MAX_CAND, dtype=np.int64)
    arm_prior = np.zeros(2 * MAX_CAND)
    na = search.merge_actions(c_spot, c_die, c_slice, n, vals, arm_idx, arm_prior)
    assert search.keep_best(arm_idx, arm_prior, na, 2) == 2
    assert 2 * i2 + b2 in arm_idx[:2]
    # Whole games with the smallest budgets stay legal.
    for budget in (1, 2, 3):
        rec = play_one(setup, np.array([small_search(budget=budget)] + [LIB.get("greedy").row()] * 3), 77, 0, True)
        assert rec.violation == 0 and rec.state[S_OVER] == 1


def _leaf_by_hand(st, geo):
    """``leaf_scores`` written out again in Python, from the rules' own helpers."""
    npl = int(st[S_NPLAYERS])
    empties = [int(st[S_EMPTY + d]) for d in range(N_DEPT)]
    total = sum(e * e for e in empties)
    chance = [1.0 if e == 0 else (0.0 if st[S_ENDING] else 1.0 - e * e / total) for e in empties]
    out = [float(st[S_SCORE + o]) for o in range(npl)]
    pts = np.zeros(N_OWNERS, dtype=np.int64)
    for d in range(N_DEPT):
        base = G_INST + d * INST_SIZE
        present = [o for o in range(N_OWNERS) if st[S_BRAG_POS + d * N_OWNERS + o] >= 0 and (o < npl or (o == 4 and npl in (2, 3)))]
        low = min(st[S_BRAG_POS + d * N_OWNERS + o] for o in present)
        nlow = sum(1 for o in present if st[S_BRAG_POS + d * N_OWNERS + o] == low)
        for o in range(npl):
            disc = int(st[S_BRAG_POS + d * N_OWNERS + o])
            k = min(disc, int(cube_level(st, geo, d, o)))
            out[o] += chance[d] * geo[base + I_TRACK_VP + k]
            if empties[d] > 0 and disc == low:
                out[o] -= (1 - chance[d]) * ((geo[base + I_PENALTY] * empties[d]) // nlow)
        for s in range(geo[base + I_NSECTIONS]):
            if st[S_SEC_STATE + d * MAX_SECTIONS + s] != 0:
                continue
            ps = chance[d] + (1 - chance[d]) / (1 + section_open_spaces(st, geo, d, s))
            preview_section(st, geo, d, s, -1, pts)
            for o in range(npl):
                out[o] += ps * pts[o]
    return out


@pytest.mark.parametrize("nplayers,turns", [(4, 0), (4, 30), (4, 70), (2, 40), (3, 50)])
def test_leaf_evaluation(nplayers, turns):
    setup = GameSetup(nplayers=nplayers)
    strat = strategy_matrix(setup, [LIB.get("greedy").row()] * nplayers)
    st, *_ = mid_game(setup, strat, 4, turns)
    assert st[S_OVER] == 0
    out = np.zeros(N_OWNERS)
    search.leaf_scores(st, setup.geo, np.zeros(3), 0.0, out)
    np.testing.assert_allclose(out[:nplayers], _leaf_by_hand(st, setup.geo))
    if turns == 0:
        # Nothing played yet: the seats stand alike.
        assert np.allclose(out[:nplayers], out[0])


def test_search_wins_clearly_more_than_greedy():
    """The shipped ``search`` profile against three greedy seats, every seat rotation, 8 deals.
    Measured at about 98% (par 25%); the test asks for more than half, far outside the noise of
    32 games (even a true rate of 90% gives 16 or fewer wins with odds below 1e-7)."""
    setup = GameSetup(nplayers=4)
    seeds = [game_seed(2026, d) for d in range(8)]
    wins = 0
    for rot in range(4):
        names = ["greedy"] * 4
        names[rot] = "search"
        states, _ = play_many(setup, LIB.matrix(names), seeds)
        wins += int((states[:, S_WINNER] == rot).sum())
    assert wins > 16, f"search won {wins} of 32"



def test_search_deep_is_the_rung_above_search():
    """``search_deep``: a narrower field (4 actions) with 5x the rollouts, the top default rung.
    Measured (docs/guide/skill-ladder.md) 74.5% [68.3, 80.7] head to head at 2 players over 100
    deals; 30 deals of both seatings must give more than 55%."""
    from simulator.shuffle_swing.strategies import DEFAULT_RUNGS

    deep, fast = LIB.get("search_deep"), LIB.get("search")
    assert deep.kind == fast.kind == "search"
    assert deep.budget >= 4 * fast.budget and deep.param("candidates") < fast.param("candidates")
    assert DEFAULT_RUNGS[-2:] == ("search", "search_leaf")
    setup = GameSetup(nplayers=2)
    seeds = [game_seed(2031, d) for d in range(30)]
    wins = 0
    for seat in range(2):
        names = ["search", "search"]
        names[seat] = "search_deep"
        states, _ = play_many(setup, LIB.matrix(names), seeds)
        wins += int((states[:, S_WINNER] == seat).sum())
    assert wins > 33, f"search_deep won {wins} of 60"


def test_search_lean_is_search_deep_on_half_the_rollouts():
    """``search_lean``: search_deep's field, horizon, weights and leaf on half the budget, 2 rollouts
    per action at least. Measured at par with search_deep (docs/guide/skill-ladder.md: 47.0% [40.3,
    53.7] at 2 players, 50.0% [45.5, 54.5] at 4); here it must beat search head to head at 2
    players, 30 deals of both seatings, more than 55%."""
    lean, deep = LIB.get("search_lean"), LIB.get("search_deep")
    for k in ("horizon", "candidates", "win_bonus", "prior", "leaf_resources", "leaf_potential"):
        assert lean.param(k) == deep.param(k), k
    assert 2 * lean.budget == deep.budget and lean.param("first_rollouts") == 2
    assert search.halving_width(4, lean.budget, 2) == 4  # the whole field, 2 rollouts each first
    setup = GameSetup(nplayers=2)
    seeds = [game_seed(2031, d) for d in range(30)]
    wins = 0
    for seat in range(2):
        names = ["search", "search"]
        names[seat] = "search_lean"
        states, _ = play_many(setup, LIB.matrix(names), seeds)
        wins += int((states[:, S_WINNER] == seat).sum())
    assert wins > 33, f"search_lean won {wins} of 60"

INTERPRETED = """
import sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_search import small_search, LIB
from simulator.shuffle_swing.playout import GameSetup, play_many
setup = GameSetup(nplayers=2)
st, _ = play_many(setup, np.array([small_search(budget=3, horizon=2), LIB.get("greedy").row()]), [5])
print(st[0].tolist())
"""


def test_interpreted_search_plays_the_same_game():
    """The search runs interpreted (``NUMBA_DISABLE_JIT=1``: stack scratch as plain arrays) and plays
    the very game the compiled kernel plays."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    code = INTERPRETED.format(tests=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    interpreted = np.array(json.loads(done.stdout.strip().splitlines()[-1]), dtype=np.int32)
    setup = GameSetup(nplayers=2)
    compiled, _ = play_many(setup, np.array([small_search(budget=3, horizon=2), LIB.get("greedy").row()]), [5])
    assert np.array_equal(interpreted, compiled[0])


def test_first_rollouts_narrows_the_field_and_keeps_the_budget():
    # first_rollouts: no action is judged on fewer rollouts a round; the field narrows instead.
    assert search.halving_width(8, 6) == 4  # the shipped search: 4 actions, 1 rollout each first
    assert search.halving_width(8, 6, 2) == 2  # 2 x (3 + 2) = 10 > 6; 2 x 2 = 4 fits
    assert search.halving_width(4, 12, 2) == 4  # 2 x (4 + 2) = 12 fits
    assert search.halving_width(4, 11, 2) == 3  # 2 x (3 + 2) = 10 fits
    for candidates in (2, 3, 4, 8):
        for budget in (2, 4, 6, 9, 12, 16, 32):
            for first in (0, 1, 2, 3, 4):
                k = search.halving_width(candidates, budget, first)
                f = max(1, first)
                if k == 1:
                    continue
                used, m, done = 0, k, 0
                rounds = search.halving_rounds(k)
                for r in range(rounds):
                    per = search.round_share(budget, used, rounds - r, m, f)
                    assert per >= f
                    used += per * m
                    m = (m + 1) // 2
                assert used <= budget



def test_settle_ends_the_halving_early_only_when_asked():
    """``settle`` (0: never): a huge threshold never fires, so the game is the one without it; a
    small one ends decisions early and still plays a complete game, the same for the same seed."""
    setup = GameSetup(nplayers=2)
    seeds = [game_seed(2041, 0)]
    lean = LIB.get("search_lean").row()
    base, _ = play_many(setup, np.array([lean, LIB.get("tuned").row()]), seeds)
    never = lean.copy()
    never[layout.P_SETTLE] = 1000.0
    same, _ = play_many(setup, np.array([never, LIB.get("tuned").row()]), seeds)
    assert np.array_equal(base, same)
    brisk = lean.copy()
    brisk[layout.P_SETTLE] = 0.01
    a, _ = play_many(setup, np.array([brisk, LIB.get("tuned").row()]), seeds)
    b, _ = play_many(setup, np.array([brisk, LIB.get("tuned").row()]), seeds)
    assert np.array_equal(a, b) and a[0, S_OVER] == 1


def test_horizon_4_shortens_the_rollouts_at_3_and_4_players_only():
    """``horizon_4`` (0: ``horizon`` everywhere): a rollout's turns at 4 players, halfway (rounded
    down) at 3, ``horizon`` at 2. At 2 players a row with it plays the game of the row without it; at
    4 players the same row with ``horizon_4`` equal to ``horizon`` plays the game of the row without
    it, and a shorter one other decisions."""
    row = small_search(budget=6, horizon=8)
    assert [search.rollout_turns(row, n) for n in (2, 3, 4)] == [8, 8, 8]
    row[layout.P_HORIZON_4] = 4
    assert [search.rollout_turns(row, n) for n in (2, 3, 4)] == [8, 6, 4]
    row[layout.P_HORIZON_4] = 5
    assert search.rollout_turns(row, 3) == 6
    plain = small_search(budget=6, horizon=8)
    short = plain.copy()
    short[layout.P_HORIZON_4] = 4
    two = GameSetup(nplayers=2)
    seeds = [game_seed(2043, d) for d in range(2)]
    a, _ = play_many(two, np.array([plain, LIB.get("tuned").row()]), seeds)
    b, _ = play_many(two, np.array([short, LIB.get("tuned").row()]), seeds)
    assert np.array_equal(a, b)
    four = GameSetup(nplayers=4)
    tuned = LIB.get("tuned").row()
    same = plain.copy()
    same[layout.P_HORIZON_4] = 8
    lineup = lambda r: np.array([r, tuned, tuned, tuned])  # noqa: E731
    p, _ = play_many(four, lineup(plain), seeds)
    q, _ = play_many(four, lineup(same), seeds)
    s, _ = play_many(four, lineup(short), seeds)
    assert np.array_equal(p, q)
    assert not np.array_equal(p, s)
