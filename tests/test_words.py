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
