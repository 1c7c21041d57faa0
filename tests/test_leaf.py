"""The search's learned leaf (``simulator/shuffle_swing/kernel/leaf.py``, ``simulator/shuffle_swing/leaf_model.py``):
its features are the hand leaf's terms, the hand leaf is one point of the model, the fit recovers a
known truth, the data file is checked, and a profile without one keeps its row (and decisions)."""

import numpy as np
import pytest

from simulator.errors import DataError
from simulator.seeds import game_seed
from simulator.shuffle_swing.kernel import leaf as LF
from simulator.shuffle_swing.kernel import search
from simulator.shuffle_swing.layout import (
    LEAF_COUNTS,
    LEAF_FEATURES,
    N_LEAF_FEAT,
    N_OWNERS,
    P_LEAF_COEF,
    P_LEAF_MODEL,
    S_CUR,
    S_OVER,
    STRAT_SIZE,
)
from simulator.shuffle_swing.playout import GameSetup, strategy_matrix
from simulator.shuffle_swing.strategies import LEAF_DIR, StrategyLibrary, load_leaf_model
from simulator.shuffle_swing import leaf_model as LM
from tests.test_search import mid_game

LIB = StrategyLibrary()


def test_feature_offsets_follow_the_names():
    named = {
        "score": LF.F_SCORE, "brag_award": LF.F_BRAG, "brag_reach": LF.F_REACH, "penalty": LF.F_PENALTY,
        "objectives": LF.F_OBJECTIVES, "cats": LF.F_CATS, "tokens": LF.F_TOKENS, "brag_award_left": LF.F_LEFT_FIRST,
        "tokens_left": LF.F_LEFT_FIRST + 5, "order_left": LF.F_ORDER, "left": LF.F_LEFT, "one": LF.F_ONE,
    }
    for name, k in named.items():
        assert LEAF_FEATURES[k] == name
    assert LF.LEAF_SIZE == LF.LEAF_COEF + N_LEAF_FEAT


def _leaf_settings(row, nplayers, coef=None):
    """The ``leaf`` array ``search_setup`` makes for seat 0 of ``row`` (``coef`` replacing the model's)."""
    strat = np.zeros((N_OWNERS, STRAT_SIZE))
    strat[0] = row
    if coef is not None:
        strat[0, P_LEAF_MODEL] = 1.0
        b = P_LEAF_COEF + (nplayers - 2) * N_LEAF_FEAT
        strat[0, b : b + N_LEAF_FEAT] = coef
    rs = np.empty_like(strat)
    leaf = np.zeros(LF.LEAF_SIZE)
    search.search_setup(strat, 0, nplayers, rs, leaf)
    return leaf


@pytest.mark.parametrize("nplayers,turns", [(4, 0), (4, 30), (4, 70), (2, 40), (3, 50)])
def test_the_hand_leaf_is_one_point_of_the_learned_one(nplayers, turns):
    """With the hand leaf's weights as coefficients (``hand_coefficients``), the learned leaf gives the
    hand leaf's scores: the features are its terms, taken apart."""
    setup = GameSetup(nplayers=nplayers)
    strat = strategy_matrix(setup, [LIB.get("tuned").row()] * nplayers)
    st, *_ = mid_game(setup, strat, 4, turns)
    assert st[S_OVER] == 0
    row = LIB.get("search_lean").row()
    hand_leaf = _leaf_settings(row, nplayers)
    assert hand_leaf[LF.LEAF_MODEL] == 0.0
    want = np.zeros(N_OWNERS)
    search.leaf_scores(st, setup.geo, hand_leaf, hand_leaf[2], want)
    learned = _leaf_settings(row, nplayers, LM.hand_coefficients(row))
    assert learned[LF.LEAF_MODEL] == 1.0
    got = np.zeros(N_OWNERS)
    LF.learned_scores(st, setup.geo, learned, got)
    np.testing.assert_allclose(got[:nplayers], want[:nplayers], atol=1e-9)
    # And the search's outcome reads the model when the flag is set.
    scratch = np.zeros(N_OWNERS)
    p = int(st[S_CUR])
    assert search.outcome(st, setup.geo, p, 10.0, learned, scratch) == pytest.approx(
        search.outcome(st, setup.geo, p, 10.0, hand_leaf, scratch), abs=1e-9)


def test_features_of_a_game_and_its_order_term():
    setup = GameSetup(nplayers=4)
    strat = strategy_matrix(setup, [LIB.get("tuned").row()] * 4)
    feats = np.zeros((400, N_OWNERS * N_LEAF_FEAT))
    finals = np.zeros(N_OWNERS, dtype=np.int64)
    t = LF.leaf_samples(setup.geo, 4, strat, np.uint64(game_seed(9, 0)), feats, finals)
    assert 20 < t < 400
    f = feats[:t].reshape(t, N_OWNERS, N_LEAF_FEAT)
    assert np.all(f[:, 4:, :] == 0.0)  # no seat past the player count
    assert np.all(f[:, :4, LF.F_ONE] == 1.0)
    left = f[:, 0, LF.F_LEFT]
    assert left[0] == 1.0 and np.all(np.diff(left) <= 1e-12) and left[-1] < 0.5  # the game moves on
    # The seat to play has no one before it; the orders of the four seats are 0, 1/3, 2/3, 1 (times left).
    orders = np.sort(f[:, :4, LF.F_ORDER] / np.maximum(left[:, None], 1e-12), axis=1)
    np.testing.assert_allclose(orders[left > 0], np.tile([0, 1 / 3, 2 / 3, 1], (int((left > 0).sum()), 1)), atol=1e-9)
    # Scores only grow, and the last recorded state's score is at most the final one.
    assert np.all(np.diff(f[:, :4, LF.F_SCORE], axis=0) >= 0)
    assert np.all(f[-1, :4, LF.F_SCORE] <= finals[:4])


def test_the_fit_recovers_a_known_truth():
    """Calibration on synthetic data with known truth: final scores made from known coefficients
    plus noise; the fit finds them within a small margin."""
    gen = np.random.default_rng(5)
    x = gen.normal(size=(4000, N_LEAF_FEAT))
    x[:, LF.F_ONE] = 1.0
    truth = gen.normal(size=N_LEAF_FEAT)
    y = x @ truth + gen.normal(scale=2.0, size=len(x))
    coef, r2 = LM.fit(x, y)
    assert np.max(np.abs(coef - truth)) < 0.15  # standard error ~ 2 / sqrt(4000) = 0.03
    assert 0.5 < r2 < 1.0


def test_fit_on_self_play_predicts_better_than_a_constant():
    row = LIB.get("tuned").row()
    x, y, game = LM.samples(row, 2, [game_seed(77, g) for g in range(20)])
    assert len(y) == len(game) and x.shape == (len(y), N_LEAF_FEAT)
    xr, yr = LM.relative(x, y, 2)
    np.testing.assert_allclose(yr.reshape(-1, 2).sum(axis=1), 0.0, atol=1e-9)
    coef, r2 = LM.fit(xr, yr)
    assert coef[LF.F_ONE] == 0.0 and coef[LF.F_LEFT] == 0.0  # alike for every seat: nothing to fit
    assert r2 > 0.2
    assert coef[LF.F_SCORE] > 0.5  # points so far carry to the end


def _write(tmp_path, body):
    p = tmp_path / "leaf.toml"
    p.write_text(body, encoding="utf-8")
    return p


def _leaf_text(features=LEAF_FEATURES, blocks=None, counts=LEAF_COUNTS):
    blocks = blocks or {n: [0.5] * N_LEAF_FEAT for n in counts}
    text = "[leaf]\nfeatures = [" + ", ".join(f'"{f}"' for f in features) + "]\n[coefficients]\n"
    for n, c in blocks.items():
        text += f"players_{n} = [" + ", ".join(str(v) for v in c) + "]\n"
    return text


def test_leaf_file_is_read_and_checked(tmp_path):
    blocks = load_leaf_model(_write(tmp_path, _leaf_text()))
    assert len(blocks) == len(LEAF_COUNTS) and all(len(b) == N_LEAF_FEAT for b in blocks)
    with pytest.raises(DataError, match="leaf.features"):
        load_leaf_model(_write(tmp_path, _leaf_text(features=LEAF_FEATURES[::-1])))
    with pytest.raises(DataError, match="players_4"):
        load_leaf_model(_write(tmp_path, _leaf_text(counts=(2, 3))))
    with pytest.raises(DataError, match=r"players_2"):
        load_leaf_model(_write(tmp_path, _leaf_text(blocks={2: [1.0] * 3, 3: [1.0] * N_LEAF_FEAT, 4: [1.0] * N_LEAF_FEAT})))
    with pytest.raises(DataError, match=r"players_3\[0\]"):
        load_leaf_model(_write(tmp_path, _leaf_text(blocks={2: [1.0] * N_LEAF_FEAT, 3: ['"x"'] + [1.0] * 15, 4: [1.0] * N_LEAF_FEAT})))


def test_a_profile_names_its_leaf(tmp_path):
    (tmp_path / "leafy.toml").write_text(
        '[strategy]\nname = "leafy"\nkind = "search"\nweights_from = "tuned"\nbudget = 4\nleaf_model = "nosuch"\n', encoding="utf-8")
    with pytest.raises(DataError, match="strategy.leaf_model"):
        StrategyLibrary(extra_dirs=(tmp_path,))
    (tmp_path / "leafy.toml").write_text('[strategy]\nname = "leafy"\nkind = "greedy"\nleaf_model = "tuned"\n', encoding="utf-8")
    with pytest.raises(DataError, match="only a search strategy"):
        StrategyLibrary(extra_dirs=(tmp_path,))


def test_profiles_without_a_leaf_model_keep_their_rows():
    """Every shipped profile without ``leaf_model`` has the model flag and coefficients at 0, so its
    decisions are the hand leaf's (the fingerprints check the games)."""
    for name in LIB.names():
        s = LIB.get(name)
        row = s.row()
        if not s.leaf_model:
            assert row[P_LEAF_MODEL] == 0.0 and not row[P_LEAF_COEF:].any(), name
        else:
            # 1: the file's coefficients everywhere; 2: fitted on each game's setting (leaf_fit).
            assert row[P_LEAF_MODEL] == (2.0 if s.leaf_fit == "setting" else 1.0), name
            assert (LEAF_DIR / f"{s.leaf_model}.toml").is_file()


def _head_to_head_wins(challenger, opponent, nplayers, deals, seed):
    """Wins of ``challenger`` in every seat against ``opponent`` in the others (2 players: both seatings)."""
    from simulator.shuffle_swing.layout import S_WINNER
    from simulator.shuffle_swing.playout import play_many

    setup = GameSetup(nplayers=nplayers)
    seeds = [game_seed(seed, d) for d in range(deals)]
    wins = 0
    for seat in range(nplayers):
        names = [opponent] * nplayers
        names[seat] = challenger
        states, _ = play_many(setup, LIB.matrix(names), seeds)
        wins += int((states[:, S_WINNER] == seat).sum())
    return wins


def test_search_leaf_is_the_top_rung_on_the_learned_leaf():
    """``search_leaf``: search_deep's field (4 actions) on 12 rollouts of 8 turns (6 at 3 players, 4 at
    4: ``horizon_4``) and the learned leaf, the top default rung. Measured (docs/guide/skill-ladder.md) at par with search_deep head to head
    and about 70% over search at 2 players; 30 deals of both seatings against search must give more
    than 55% (a true 70% gives 33 or fewer of 60 with odds below 1 in 100)."""
    from simulator.shuffle_swing.strategies import DEFAULT_RUNGS

    leaf, deep = LIB.get("search_leaf"), LIB.get("search_deep")
    assert leaf.leaf_model == "tuned" and leaf.param("candidates") == deep.param("candidates")
    assert leaf.param("horizon") == deep.param("horizon") // 2 and leaf.param("first_rollouts") == 2
    assert leaf.param("horizon_4") == leaf.param("horizon") // 2  # its 4-player mirror within x40 greedy
    assert search.halving_width(4, leaf.budget, 2) == 4  # the whole field, 2 rollouts each first
    assert DEFAULT_RUNGS[-1] == "search_leaf"
    wins = _head_to_head_wins("search_leaf", "search", 2, 30, 2031)
    assert wins > 33, f"search_leaf won {wins} of 60"


def test_search_quick_beats_three_greedy():
    """``search_quick``: search's field and budget on 2-turn rollouts and the learned leaf. Measured at
    least search's equal head to head (docs/guide/skill-ladder.md); one seat of it against three
    greedy, every rotation of 8 deals, must win more than half of 32 (par 25%)."""
    quick, fast = LIB.get("search_quick"), LIB.get("search")
    assert quick.budget == fast.budget and quick.param("candidates") == fast.param("candidates")
    assert quick.param("horizon") == 2 and quick.leaf_model == "tuned"
    wins = _head_to_head_wins("search_quick", "greedy", 4, 8, 2026)
    assert wins > 16, f"search_quick won {wins} of 32"
