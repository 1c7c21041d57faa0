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
