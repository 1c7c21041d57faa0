"""One vocabulary in everything printed: a seat verdict is fair / unfair / undecided, a gate figure
held / moved / undecided (stats.words); older records' words are read as today's."""

import pytest

from stats import tests as stats
from stats import words as W


def test_the_seat_words_are_fair_unfair_undecided():
    assert (W.FAIR, W.UNFAIR, W.UNDECIDED) == ("fair", "unfair", "undecided") == W.VERDICTS
    assert (stats.FAIR, stats.UNFAIR, stats.UNDECIDED) == W.VERDICTS


@pytest.mark.parametrize("old,new", [("balanced", "fair"), ("imbalanced", "unfair"), ("inconclusive", "undecided"),
                                     ("fair", "fair"), ("not judged", "not judged"), (None, None)])
def test_an_older_record_word_is_read_as_today_s(old, new):
    assert W.verdict_word(old) == new


@pytest.mark.parametrize("code,word", [("pass", "held"), ("fail", "moved"), ("inconclusive", "undecided"),
                                       ("left out", "left out")])
def test_a_gate_code_is_said_in_the_figure_words(code, word):
    from reports.gate.regress import FAIL, INCONCLUSIVE, LEFT_OUT, PASS

    assert {PASS, FAIL, INCONCLUSIVE, LEFT_OUT} >= {code}
    assert W.gate_word(code) == word


def test_the_seat_verdicts_of_a_cell_use_the_words():
    import numpy as np

    cell = np.repeat([0, 1, 2], 2)
    wins = np.array([5000, 5000, 6000, 4000, 6, 4])
    nobs = np.array([10000, 10000, 10000, 10000, 10, 10])
    res = stats.seat_verdicts(cell, wins, nobs, np.full(6, 2), estimate_games=False)
    assert list(res["verdict"]) == ["fair", "unfair", "undecided"]


@pytest.mark.parametrize("players,n", [(2, 3000), (3, 6000), (4, 8000)])
def test_a_seat_interval_is_its_word_s_own(players, n):
    """Beside a fixed-count seat word, its own test's interval: a fair cell's seats all inside
    1/N +- margin (the TOST's 90% interval), an unfair cell's seats shown outside beyond it at their
    Holm level; and the intervals agree with the word on every cell of a grid of win counts."""
    import numpy as np

    rng = np.random.default_rng(players)
    c, m = 1.0 / players, 0.03
    said = set()
    for dev in (0.0, 0.01, 0.025, 0.04, 0.08):
        rates = np.full(players, c)
        rates[0] += dev
        rates[1:] -= dev / (players - 1)
        for _ in range(15):
            wins = rng.multinomial(n, rates)
            res = stats.seat_verdicts(np.zeros(players, dtype=int), wins, np.full(players, n), np.full(players, players),
                                      m, estimate_games=False)
            word = res["verdict"][0]
            said.add(word)
            lo, hi, level = stats.seat_verdict_intervals(wins, n, players, word, m)
            assert (lo <= wins / n).all() and (wins / n <= hi).all()
            inside = (lo >= c - m) & (hi <= c + m)
            beyond = (lo > c + m) | (hi < c - m)
            if word == W.FAIR:
                assert inside.all() and np.allclose(level, 0.05)
            elif word == W.UNFAIR:
                shown = np.flatnonzero(res["row_outside_p"] < 0.05)
                assert shown.size and beyond[shown].all() and (level[shown] > 0.05 / (2 * players) - 1e-15).all()
            else:
                assert not inside.all() and np.allclose(level, 0.05 / (2 * players))
    assert said == set(W.VERDICTS)


def test_a_fixed_count_report_prints_beside_a_seat_word_the_interval_of_its_own_test():
    """A fair cell's seats inside 1/N +- margin, an unfair cell's favoured seat beyond it, and the
    report says the intervals are the verdicts' own (not a 95% Wilson interval)."""
    from fixtures.report_tables import synthetic_run

    from reports.first_screen import first_screen
    from reports.seats import seat_advantage

    _, games = synthetic_run([{"players": 2, "games": 20000},
                              {"players": 4, "games": 20000, "seat_probs": [0.31, 0.23, 0.23, 0.23]}], seed=2)
    adv = seat_advantage(games, margin=0.03)
    assert adv.rates.attrs.get("verdict_intervals") is True
    words = dict(zip(adv.cells["players"], adv.cells["verdict"]))
    assert words == {2: W.FAIR, 4: W.UNFAIR}
    two = adv.rates[adv.rates["players"] == 2]
    assert ((two["seat_lo"] >= 0.5 - 0.03) & (two["seat_hi"] <= 0.5 + 0.03)).all()
    four = adv.rates[adv.rates["players"] == 4].sort_values("seat")
    assert four["seat_lo"].iloc[0] > 0.25 + 0.03
    wilson_lo, _ = stats.wilson(four["win_rate"].iloc[0] * 20000, 20000)
    assert four["seat_lo"].iloc[0] < wilson_lo  # at its Holm level, wider than a 95% interval
    assert "interval of its verdict" in first_screen(adv).text
