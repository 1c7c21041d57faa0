"""The game-feel measures (reports.feel.measures) on synthetic games whose answers are known by hand."""

import math

import numpy as np
import pandas as pd
import pytest

from reports.feel import measures as feel


def test_no_lead_change_game_decided_in_round_one():
    # Seat 1 leads from round one to the end: no lead change, decided at 1/5, never behind.
    s = np.array([[0, 2, 1], [1, 4, 2], [2, 6, 3], [3, 7, 5], [4, 9, 6]])
    m = feel.game_measures(s, winner=1)
    assert m["lead_changes"] == 0
    assert m["decided_at"] == pytest.approx(1 / 5)
    assert m["behind_share"] == 0 and m["behind_depth"] == 0 and m["last_behind"] == 0
    assert m["mid_leader_won"] == 1 and m["runaway"] == pytest.approx(1.0)
    assert m["rounds"] == 5


def test_comeback_in_the_last_round():
    # Seat 0 leads four rounds, seat 1 wins in the last one: one lead change, decided at 5/5,
    # behind 4 of 5 rounds, last behind at round 4 (0.8), runaway -1/(n-1) at two seats = -1.
    s = np.array([[3, 0], [5, 1], [6, 2], [8, 4], [9, 12]])
    m = feel.game_measures(s, winner=1)
    assert m["lead_changes"] == 1
    assert m["decided_at"] == pytest.approx(1.0)
    assert m["behind_share"] == pytest.approx(0.8)
    assert m["last_behind"] == pytest.approx(0.8)
    # deficits 3, 4, 4, 4 over the final spread 3
    assert m["behind_depth"] == pytest.approx(np.mean([3, 4, 4, 4]) / 3)
    assert m["mid_leader_won"] == 0 and m["runaway"] == pytest.approx(-1.0)


def test_ties_are_no_lead_change_and_a_tie_break_win_counts_in_front():
    s = np.array([[0, 0], [1, 0], [1, 1], [2, 1], [2, 2]])
    assert list(feel.leaders(s)) == [-1, 0, -1, 0, -1]
    assert feel.lead_changes(s) == 0
    m = feel.game_measures(s, winner=1)  # seat 1 won the final tie on the tie-break (R13)
    assert m["decided_at"] == pytest.approx(1.0)  # in front only in the last round
    m0 = feel.game_measures(s, winner=0)
    assert m0["decided_at"] == pytest.approx(4 / 5)  # leads round 4, shares the top at the end


def test_alternating_leader_counts_every_change():
    s = np.array([[1, 0], [0, 1], [1, 0], [0, 1]])
    assert feel.lead_changes(s) == 3
    assert feel.game_measures(s, 1)["lead_changes_per_round"] == pytest.approx(1.0)


def test_no_winner_keeps_the_lead_measures_only():
    s = np.array([[1, 0], [0, 1]])
    m = feel.game_measures(s, winner=-1)
    assert m["lead_changes"] == 1
    assert math.isnan(m["decided_at"]) and math.isnan(m["runaway"])


def _coin_flip_games(k, n, rounds, seed):
    """Random walks whose winner is drawn apart from them: the lead says nothing of the winner."""
    rng = np.random.default_rng(seed)
    recs = [np.cumsum(rng.integers(0, 3, size=(rounds, n)), axis=0) for _ in range(k)]
    return recs, rng.integers(0, n, size=k)


def test_coin_flip_game_has_no_runaway_and_late_decisions():
    recs, winners = _coin_flip_games(4000, 4, 10, seed=3)
    per_game = feel.games_frame(recs, winners, pd.DataFrame({"setting": ["coin"] * len(recs)}))
    t = feel.setting_measures(per_game, ["setting"]).set_index("measure")
    lo, hi = t.loc["runaway", "low"], t.loc["runaway", "high"]
    assert lo < 0 < hi  # runaway 0 within its interval
    assert t.loc["mid_leader_won", "mean"] == pytest.approx(0.25, abs=0.03)
    assert t.loc["decided_at", "mean"] > 0.8  # the drawn winner is rarely in front for long
    assert t.loc["rounds", "mean"] == 10 and t.loc["rounds_sd", "mean"] == 0


def test_runaway_game_where_the_leader_always_wins():
    rng = np.random.default_rng(5)
    recs, winners = [], []
    for _ in range(500):
        s = np.cumsum(rng.integers(0, 3, size=(8, 3)), axis=0)
        s[:, 2] += np.arange(1, 9) * 10  # seat 2 pulls away from round one
        recs.append(s)
        winners.append(2)
    per_game = feel.games_frame(recs, winners, pd.DataFrame({"setting": ["runaway"] * 500}))
    t = feel.setting_measures(per_game, ["setting"]).set_index("measure")
    assert t.loc["runaway", "mean"] == pytest.approx(1.0)
    assert t.loc["decided_at", "mean"] == pytest.approx(1 / 8)
    assert t.loc["lead_changes", "mean"] == 0


def test_interval_counts_games():
    m, lo, hi, k = feel.mean_interval([0, 1] * 50)
    assert k == 100 and m == 0.5 and lo < 0.5 < hi
    m2, lo2, hi2, _ = feel.mean_interval([0, 1] * 5000)
    assert (hi2 - lo2) < (hi - lo) / 5


def test_skill_share_against_par():
    assert feel.skill_share(25, 100, 0.25) == (0.25, 0.0)
    share, skill = feel.skill_share(100, 100, 0.25)
    assert share == 1 and skill == pytest.approx(1.0)


def test_stand_out_names_the_setting_only_when_intervals_part():
    t = pd.DataFrame(
        [
            {"setting": "Violin/Piano/Horns", "measure": "decided_at", "mean": 0.6, "low": 0.58, "high": 0.62, "games": 400},
            {"setting": "Violin/Organ/Horns", "measure": "decided_at", "mean": 0.3, "low": 0.28, "high": 0.32, "games": 400},
            {"setting": "Violin/Harp/Horns", "measure": "decided_at", "mean": 0.61, "low": 0.57, "high": 0.65, "games": 400},
        ]
    )
    words = feel.stand_out(t, "decided_at", "Violin/Piano/Horns", unit_rounds={"Violin/Organ/Horns": 10})
    assert words.startswith("With Violin/Organ/Horns, games are decided 3.0 rounds earlier")
    same = t[t["setting"] != "Violin/Organ/Horns"]
    assert feel.stand_out(same, "decided_at", "Violin/Piano/Horns") is None


# =========================================================================== estimated win chances


def test_win_chances_recover_a_known_model_and_are_calibrated():
    from reports.feel import winchance as W

    rng = np.random.default_rng(7)
    beta = 0.8  # per 10 points of margin (features are scores / 10)
    feats, winners, deals = [], [], []
    for g in range(1500):
        s = np.cumsum(rng.integers(0, 12, size=(6, 2)), axis=0)
        f = W.features(s)
        margin = f[-1, :, 0]
        p = np.exp(beta * margin) / np.exp(beta * margin).sum()
        feats.append(f)
        winners.append(int(rng.random() < p[1]))
        deals.append(g)
    probs, coefs = W.cross_fitted(feats, winners, deals, seed=1)
    # Stage 1 holds round 6 (index 5), where the winner was drawn from the margin.
    assert coefs[0][1][0] == pytest.approx(beta, abs=0.25)
    brier, brier0, rel = W.calibration(probs, winners)
    assert brier < brier0
    busy = rel[rel["count"] > 200]
    assert (abs(busy["predicted"] - busy["observed"]) < 0.08).all()


def test_uncertainty_is_one_for_equal_chances_and_zero_for_certainty():
    from reports.feel.winchance import uncertainty

    assert uncertainty(np.full((4, 3), 1 / 3)) == pytest.approx(1.0)
    assert uncertainty(np.array([[1.0, 0.0], [0.0, 1.0]])) == pytest.approx(0.0, abs=1e-9)


def test_stand_out_words_each_measure():
    rows = []
    for label, m in (("A", 2.0), ("B", 3.0)):
        rows.append({"setting": label, "measure": "lead_changes", "mean": m, "low": m - 0.1, "high": m + 0.1, "games": 100})
        rows.append({"setting": label, "measure": "runaway", "mean": m / 10, "low": m / 10 - 0.01, "high": m / 10 + 0.01, "games": 100})
    t = pd.DataFrame(rows)
    assert feel.stand_out(t, "lead_changes", "A").startswith("With B, games have more lead changes per game than with A")
    assert feel.stand_out(t, "runaway", "B").startswith("With A, runaway (phi, midpoint leader vs winner) is lower than with B")


def test_the_feel_modules_import_no_kernel():
    import subprocess
    import sys

    code = ("import sys; import reports.feel.measures, reports.feel.data, reports.feel.section, reports.feel.winchance, "
            "reports.metagame; print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# =========================================================================== Ludii's definitions


def test_ludii_lead_change_counts_a_tie_as_a_change_of_the_leader_set_and_the_lab_does_not():
    s = np.array([[1, 1], [2, 1], [2, 2], [3, 2]])
    m = feel.game_measures(s, winner=0)
    # Ludii's states: the start (level), then each round's end but the last: leader sets {0,1},
    # {0,1}, {0}, {0,1}; the first state counts (Ludii starts from an empty set): 3 changes / 4 rounds.
    assert m["ludii_lead_change"] == pytest.approx(3 / 4)
    # Per game, start to end: {0,1} {0,1} {0} {0,1} {0}: 3 changes of the leader set.
    assert m["ludii_lead_changes"] == 3
    assert m["lead_changes"] == 0  # the lab's: strict leaders only, seat 0 each time


def test_ludii_drama_averages_over_all_states():
    s = np.array([[1, 1], [2, 1], [2, 2], [2, 3]])
    m = feel.game_measures(s, winner=1)
    # States before each round: [0,0] [1,1] [2,1] [2,2]: seat 1 is 1 behind in one state of four;
    # the final spread is 1.
    assert m["ludii_drama"] == pytest.approx(0.25)
    assert m["behind_share"] == pytest.approx(0.25)  # the lab's: share of the record's rows behind


def test_ludii_decisiveness_is_the_first_state_above_the_best_non_winner():
    s = np.array([[5, 0], [6, 1], [7, 2]])
    m = feel.game_measures(s, winner=0)
    # The threshold is seat 1's best in the states [0,0] [5,0] [6,1]: 1; the winner passes it in state 1 of 3.
    assert m["ludii_decisiveness"] == pytest.approx(1 / 3)
    close = np.array([[1, 1], [2, 1], [2, 2], [3, 2]])
    assert feel.game_measures(close, winner=0)["ludii_decisiveness"] == 1.0  # never above: the end


def test_intervals_count_deals_not_games():
    rng = np.random.default_rng(3)
    recs, winners, deals = [], [], []
    for d in range(60):
        s = np.cumsum(rng.integers(0, 4, size=(10, 4)), axis=0)
        for _ in range(4):  # four seat rotations of one deal, the same game each time
            recs.append(s)
            winners.append(int(s[-1].argmax()))
            deals.append(d)
    keys = pd.DataFrame({"setting": ["mixed"] * len(recs), "deal": deals})
    t = feel.setting_measures(feel.games_frame(recs, winners, keys), ["setting"]).set_index("measure")
    once = feel.setting_measures(feel.games_frame(recs[::4], winners[::4], keys.iloc[::4]), ["setting"]).set_index("measure")
    assert t.loc["lead_changes", "deals"] == 60 and t.loc["lead_changes", "games"] == 240
    # Four copies of each deal add no information: the interval is the one of the 60 deals.
    assert t.loc["lead_changes", "high"] - t.loc["lead_changes", "low"] == pytest.approx(
        once.loc["lead_changes", "high"] - once.loc["lead_changes", "low"])


# =========================================================================== the set-up's share


def _setup_games(q, deals, n=4, seed=0):
    """Deals played twice: with chance ``q`` the set-up's favoured seat wins, else a seat at random."""
    rng = np.random.default_rng(seed)
    fav = rng.integers(0, n, size=deals)

    def play():
        decided = rng.random(deals) < q
        return np.where(decided, fav, rng.integers(0, n, size=deals))

    p_fav = q + (1 - q) / n
    truth = (p_fav ** 2 + (n - 1) * ((1 - q) / n) ** 2 - 1 / n) / (1 - 1 / n)
    return play(), play(), truth


@pytest.mark.parametrize("q", [0.0, 0.4, 0.8])
def test_setup_share_is_calibrated_on_games_with_a_known_set_up_effect(q):
    covered = 0
    for rep in range(20):
        a, b, truth = _setup_games(q, 800, seed=rep)
        r = feel.setup_split(a, b, 4)
        covered += r["setup_low"] <= truth <= r["setup_high"]
        assert r["bot_noise_share"] == pytest.approx(1 - min(max(r["setup_share"], 0.0), 1.0))
    assert covered >= 16  # a 95% interval: 19 of 20 expected, 16 allows for chance
    a, b, truth = _setup_games(q, 4000, seed=99)
    assert feel.setup_split(a, b, 4)["setup_share"] == pytest.approx(truth, abs=0.05)


def test_setup_split_averages_a_deals_replays_first():
    w = np.array([0, 0, 1, 1, 2, 3])
    r = np.array([0, 1, 1, 1, 2, 0])
    out = feel.setup_split(w, r, 4, deals=np.array([0, 0, 1, 1, 2, 3]))
    assert out["deals"] == 4 and out["same_winner"] == pytest.approx((0.5 + 1 + 1 + 0) / 4)


def test_paired_gap_counts_deals_and_finds_a_known_shift():
    rng = np.random.default_rng(5)
    base = rng.normal(0.3, 0.4, size=400)  # each deal's own level, shared by both settings
    df = pd.DataFrame({"setting": ["A"] * 400 + ["B"] * 400, "deal": list(range(400)) * 2,
                       "runaway": np.concatenate([base, base + 0.05 + rng.normal(0, 0.05, size=400)])})
    m, lo, hi, k = feel.paired_gap(df, "A", "B", "runaway")
    assert k == 400 and lo < 0.05 < hi and hi - lo < 0.02  # pairing removes the deals' spread
