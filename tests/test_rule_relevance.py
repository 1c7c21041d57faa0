"""Rule relevance (reports.sections.shuffle_swing.rule_relevance): how often each rule bites, with deal-counted intervals."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from report_tables import complete  # noqa: E402

from reports.sections.shuffle_swing.rule_relevance import ALWAYS, BITES, RARELY, headline_lines, ratio_rate, rule_relevance  # noqa: E402
from scenarios.schema import GAME_COLUMNS, SEAT_COLUMNS  # noqa: E402


def two_player_run(games=1000, paid_every=50, disc_every=100):
    """2-player games: black always unbuilt; a player pays in one game of ``paid_every`` (else Pri
    absorbs 6 points); the disc limits seat 0's orange award in one game of ``disc_every``."""
    g_rows, s_rows = [], []
    for k in range(games):
        paid = k % paid_every == 0
        tb = int(k % 10 == 0)
        g_rows.append(dict(cell=0, game=k, deal=k, seed=k, players=2, winner=1 if tb else k % 2, tiebreak=tb,
                           built_black=0, built_orange=1, built_gray=1, pri_penalty_absorbed=0 if paid else 6))
        for s in range(2):
            s_rows.append(dict(cell=0, game=k, deal=k, seed=k, players=2, seat=s,
                               penalty_black=-6 if (paid and s == 0) else 0,
                               award_by_disc=int(s == 0 and k % disc_every == 0), award_by_pieces=1,
                               tokens_gained=4, tokens_spent=1, action_brags=3, turns=30, pickups=6,
                               bumps_made=0, cheese_jumps=2, upgrades=6, upgrades_on_others=3))
    return complete(pd.DataFrame(s_rows), SEAT_COLUMNS), complete(pd.DataFrame(g_rows), GAME_COLUMNS)


def test_ratio_rate_counts_clusters_and_never_collapses_at_zero():
    rate, lo, hi = ratio_rate(np.zeros(100), np.ones(100), np.arange(100))
    assert rate == 0 and lo == pytest.approx(0, abs=1e-12) and 0.02 < hi < 0.05  # Wilson: about 3.7 / 100
    # The same 10 events in 10 clusters of 10 units: wider than 10 independent units of each.
    x = np.repeat([1.0] + [0.0] * 9, 10)
    one = ratio_rate(x, np.ones(100), np.arange(100))
    clustered = ratio_rate(x, np.ones(100), np.repeat(np.arange(10), 10))
    assert one[0] == clustered[0] == pytest.approx(0.1)
    assert clustered[2] - clustered[1] > one[2] - one[1]


def test_rates_verdicts_and_the_two_player_penalty():
    seats, games = two_player_run()
    rr = rule_relevance(seats, games)
    r = rr.rules.set_index("rule")
    assert r.loc["penalty_paid", "rate"] == pytest.approx(20 / 1000) and r.loc["penalty_paid", "opportunities"] == 1000
    assert r.loc["pri_absorbs", "rate"] == pytest.approx(980 / 1000) and r.loc["pri_absorbs", "verdict"] == ALWAYS
    assert r.loc["award_disc", "rate"] == pytest.approx(10 / 4000)  # 2 built instruments x 2 seats x 1000 games
    assert r.loc["award_disc", "verdict"] == RARELY
    assert r.loc["tokens_spent", "rate"] == pytest.approx(0.25) and r.loc["tokens_spent", "verdict"] == BITES
    assert r.loc["brag_instead", "rate"] == pytest.approx(0.1)
    assert r.loc["bumps", "rate"] == 0 and r.loc["bumps", "verdict"] == RARELY
    assert r.loc["upgrade_others", "rate"] == pytest.approx(0.5)
    assert r.loc["upgrades_run_out", "verdict"] == ALWAYS
    pen = rr.penalty_by_owner.set_index("who")
    assert pen.loc["Pri (absorbed)", "points_per_game"] == pytest.approx(980 * 6 / 1000)
    assert pen.loc["seat 1", "share"] == pytest.approx(120 / (120 + 980 * 6))
    tb = rr.tiebreak_by_seat.set_index("seat")
    assert tb.loc[1, "tiebreak_wins"] == 100 and tb.loc[0, "tiebreak_wins"] == 0
    lines = headline_lines(rr)
    assert lines[0].startswith("Rules that almost never bite") and "brag disc" in lines[0]
    assert "Pri absorbs" in lines[1]


def test_results_without_the_counters_say_so():
    seats, games = two_player_run(20)
    rr = rule_relevance(seats.drop(columns=["cheese_jumps", "award_by_disc"]), games)
    assert "before the rule counters existed" in rr.notes[0]
    assert "award_disc" not in set(rr.rules["rule"])
