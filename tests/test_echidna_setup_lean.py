"""Echidna Shuffle's set-up value and the lean set-up search (``setup-lean``): the seat features, the
fitted value's chances, its data file, sequential halving over the set-up candidates, and short
rollouts scored by the value."""

import numpy as np
import pytest

from simulator import kernel_common
from simulator.echidna import layout as L
from simulator.echidna.board import EchidnaSetup
from simulator.echidna.kernel import set_up as KS
from simulator.echidna.kernel import value as KV
from simulator.echidna.kernel.engine import value_samples
from simulator.echidna.playout import play_many, play_one
from simulator.echidna.strategies import RUNGS, EchidnaStrategyLibrary, setup_value_block
from simulator.errors import DataError
from simulator.seeds import game_seed

LIB = EchidnaStrategyLibrary()


def _rows(names):
    return np.array([LIB.get(n).row() for n in names])


def _after_setup(setup, strat, seed):
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    kernel_common.rng_next(rng)
    KS.setup_game(setup.geo, st, strat, rng, np.zeros((1, 7), dtype=np.int64), np.zeros(L.MAX_SPACES, dtype=np.int64),
                  np.zeros(L.MAX_SPACES, dtype=np.float64))
    return st, rng[0]


def _lean(**w):
    row = LIB.get("setup-lean").row()
    for k, v in w.items():
        row[L.P_WEIGHTS + L.WEIGHT_NAMES.index(k)] = v
    return row


def test_the_profile_is_the_lookahead_with_a_lean_set_up_search():
    s, la = LIB.get("setup-lean"), LIB.get("lookahead")
    assert s.kind == la.kind == "lookahead" and s.depth == la.depth
    assert s.weights["setup_leaf"] > 0 and s.weights["setup_candidates"] >= 2
    keys = ("setup_rollouts", "setup_candidates", "setup_halving", "setup_leaf", "setup_horizon")
    assert {k: v for k, v in s.weights.items() if k not in keys} == {k: v for k, v in la.weights.items() if k not in keys}
    assert RUNGS[-2:] == ("lookahead", "setup-lean")  # the third level
    # The value's coefficients ride in its row; every other profile's block is zero.
    assert np.any(s.row()[L.P_LEAF :] != 0)
    for name in ("greedy", "lookahead", "setup-search", "random"):
        assert not np.any(LIB.get(name).row()[L.P_LEAF :])


def test_seat_features_after_the_set_up():
    setup = EchidnaSetup(4, "forest")
    geo = setup.geo
    st, _ = _after_setup(setup, _rows(["greedy"] * 4), game_seed(3, 0))
    f = np.zeros(L.LEAF_F)
    for q in range(4):
        KV.seat_features(geo, st, q, f)
        pk = st[L.S_PICK + q]
        stumps = [u for u in range(L.MAX_SPACES) if (st[L.S_STUMPS + q] >> u) & 1]
        dists = [geo[L.G_DIST + pk * L.MAX_SPACES + u] for u in stumps]
        assert f[0] == 0 and f[1] == 0 and f[3] == 0  # nothing delivered, nothing riding
        assert f[4] == L.BUGS * min(dists)
        assert f[8] == sum(dists)
        assert 0 <= f[5] <= f[2] <= KV.WAIT_CAP  # the nearest empty echidna, then the second
        assert 0 <= f[6] <= f[10] and f[7] == st[L.S_TOKENS + q]  # the wide radius counts more
        assert f[9] == geo[L.G_NPRED + pk]
        assert f[11] == sum(KV.traffic(geo, st, u, KV.STUMP_RADIUS) for u in stumps)


@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_values_are_chances_that_sum_to_one(n):
    setup = EchidnaSetup(n, "snow")
    row = LIB.get("setup-lean").row()
    zero = LIB.get("lookahead").row()
    for g in range(3):
        st, _ = _after_setup(setup, _rows(["greedy"] * n), game_seed(4, g))
        v = np.array([KV.leaf_value(setup.geo, st, row, q) for q in range(n)])
        assert np.all((v > 0) & (v < 1)) and abs(v.sum() - 1) < 1e-9
        # No coefficients: every seat an even chance.
        np.testing.assert_allclose([KV.leaf_value(setup.geo, st, zero, q) for q in range(n)], 1 / n)


def test_the_value_follows_its_coefficients():
    """A seat with more bugs home is worth more under a positive ``home`` coefficient, less under a
    negative one; a seat-position coefficient favours that seat alone."""
    setup = EchidnaSetup(2, "forest")
    st, _ = _after_setup(setup, _rows(["greedy"] * 2), game_seed(5, 0))
    st[L.S_HOME + 1] = 2
    row = np.zeros(L.STRAT_SIZE)
    row[L.P_LEAF + 0] = 1.0
    assert KV.leaf_value(setup.geo, st, row, 1) == pytest.approx(np.exp(2) / (1 + np.exp(2)))
    row[L.P_LEAF + 0] = -1.0
    assert KV.leaf_value(setup.geo, st, row, 1) < 0.5
    row[L.P_LEAF + 0] = 0.0
    row[L.P_LEAF + L.LEAF_F] = np.log(3.0)  # the seat after the one to move (seat 1 at the start)
    assert KV.leaf_value(setup.geo, st, row, 1) == pytest.approx(0.75)


def test_the_data_file_is_checked(tmp_path):
    good = setup_value_block()
    assert good.shape == ((L.MAX_PLAYERS - 1) * L.LEAF_SIZE,) and np.all(np.isfinite(good))
    bad = tmp_path / "v.toml"
    bad.write_text('[fit]\nfeatures = ["home"]\n[players]\n')
    with pytest.raises(DataError, match="fit.features"):
        setup_value_block(bad)
    feats = "[" + ", ".join(f'"{f}"' for f in L.LEAF_FEATURES) + "]"
    body = "".join(f"[players.{n}]\ncoefficients = {[0.0] * L.LEAF_F}\nseat = {[0.0] * (n - 1)}\n" for n in range(2, 7))
    bad.write_text(f"[fit]\nfeatures = {feats}\n" + body.replace("[players.3]\ncoefficients = [0.0,", '[players.3]\ncoefficients = ["x",'))
    with pytest.raises(DataError, match=r"players\.3\.coefficients\[0\]"):
        setup_value_block(bad)


def test_a_horizon_past_the_fitted_rounds_is_refused():
    from simulator.echidna.strategies import parse_rung, setup_value

    rounds = setup_value()[1]
    parse_rung(f"setup-lean@setup_horizon={rounds}", LIB).row()
    with pytest.raises(DataError, match="setup_horizon"):
        parse_rung(f"setup-lean@setup_horizon={rounds + 1}", LIB).row()


def test_value_samples_record_open_games_by_round():
    setup = EchidnaSetup(3, "forest")
    seeds = np.array([game_seed(6, g) for g in range(8)], dtype=np.uint64)
    feats = np.zeros((8, 4, 3, L.LEAF_F))
    seen = np.zeros((8, 4), dtype=np.int64)
    winners = value_samples(setup.geo, _rows(["greedy"] * 3), seeds, 3, feats, seen)
    assert np.all(seen[:, 0] == 1) and np.all(feats[:, 0, :, 0] == 0)  # round 0: right after the set-up
    # The same games as the batch plays them.
    states, _ = play_many(setup, _rows(["greedy"] * 3), seeds)
    np.testing.assert_array_equal(winners, states[:, L.S_WINNER])
    assert np.all(np.diff(seen, axis=1) <= 0)  # a game once over stays over


def test_halving_at_horizon_zero_chooses_as_the_full_field():
    """At horizon 0 every rollout of a candidate gives the same value, so halving keeps the best: the
    same choices (and games) as one rollout for each candidate."""
    setup = EchidnaSetup(4, "forest")
    for g in range(4):
        seed = game_seed(7, g)
        a = play_one(setup, np.array([_lean(setup_halving=1.0, setup_rollouts=2.0)] + [LIB.get("lookahead").row()] * 3), seed)
        b = play_one(setup, np.array([_lean()] + [LIB.get("lookahead").row()] * 3), seed)
        np.testing.assert_array_equal(a.state, b.state)


def test_lean_search_keeps_the_games_own_random_numbers_and_chooses():
    for n, board in ((2, "forest"), (4, "snow")):
        setup = EchidnaSetup(n, board)
        changed = 0
        for g in range(8):
            seed = game_seed(9, g)
            greedy_st, greedy_rng = _after_setup(setup, _rows(["lookahead"] * n), seed)
            for row in (_lean(), _lean(setup_horizon=1.0, setup_rollouts=2.0, setup_halving=1.0)):
                strat = _rows(["lookahead"] * n)
                strat[n - 1] = row
                st, rng = _after_setup(setup, strat, seed)
                assert rng == greedy_rng
                changed += int(st[L.S_PICK + n - 1] != greedy_st[L.S_PICK + n - 1])
        assert changed > 0


def test_lean_games_are_sound_and_repeatable():
    setup = EchidnaSetup(3, "snow")
    strat = np.array([_lean(), LIB.get("greedy").row(), _lean(setup_horizon=2.0, setup_rollouts=2.0, setup_halving=1.0)])
    seeds = [game_seed(21, g) for g in range(4)]
    a, bad = play_many(setup, strat, seeds, check=True)
    b, _ = play_many(setup, strat, seeds)
    assert len(bad) == 0
    np.testing.assert_array_equal(a, b)
