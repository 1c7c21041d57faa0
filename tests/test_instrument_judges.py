"""The expansion answer across judges (reports.sections.shuffle_swing.instrument_judges): one sentence per instrument and
player count; "moves with skill" only where the two-sample test of the judges' difference shows it;
the seat effect of each swap; the test's error calibrated on synthetic truth."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from report_tables import complete  # noqa: E402

from reports.sections.shuffle_swing.instrument_judges import (  # noqa: E402
    AGREE,
    LEAVES,
    NOT_SHOWN,
    SHOWN,
    TILTS,
    _diff_row,
    answer_table,
    instrument_answers,
    instrument_sentences,
    judge_differences,
)
from reports.instrument_verdicts import OUT, instrument_verdicts  # noqa: E402
from scenarios.schema import GAME_COLUMNS, SEAT_COLUMNS  # noqa: E402


def judged_run(deals, shifts, tilt=None, players=4, noise=3.0):
    """An orange swaps-like run judged by greedy and search mirrors. ``shifts``: judge -> {instrument:
    extra objective points}; ``tilt``: (judge, instrument) -> the first seat's win chance with it (else
    every seat alike). Each judge plays its own deals (as the lineup is part of the deal key)."""
    g_rows, s_rows = [], []
    cell = 0
    for j, (judge, shift) in enumerate(shifts.items()):
        rng = np.random.default_rng(100 + j + 10 * players)
        base = rng.normal(30, 10, size=deals)
        u = rng.random(deals)
        for inst, extra in shift.items():
            p0 = (tilt or {}).get((judge, inst), 1.0 / players)
            for d in range(deals):
                win = 0 if u[d] < p0 else 1 + int((u[d] - p0) / (1 - p0) * (players - 1))
                common = dict(cell=cell, game=d, deal=d, seed=(j + 1) * 100_000 + d, players=players,
                              inst_black="Violin", inst_orange=inst, inst_gray="Horns",
                              lineup=",".join([judge] * players))
                points = base[d] + extra + rng.normal(0, noise)
                g_rows.append(dict(common, winner=win, winner_strategy=judge, rounds=27, built_black=1,
                                   built_orange=1, built_gray=1))
                for s in range(players):
                    s_rows.append(dict(common, seat=s, strategy=judge, objective_orange=points / players,
                                       won=int(s == win), rank=1 if s == win else 2))
            cell += 1
    return complete(pd.DataFrame(s_rows), SEAT_COLUMNS), complete(pd.DataFrame(g_rows), GAME_COLUMNS)


SAME = {"Piano": 0.0, "Harp": 0.5, "Organ": 47.0, "Vibes": -0.5}


def test_judges_alike_are_said_alike_and_the_difference_is_not_claimed():
    seats, games = judged_run(500, {"greedy": SAME, "search": SAME})
    iv = instrument_verdicts(seats, games)
    sents = {inst: text for _, inst, _, text in instrument_sentences(iv)}
    organ = sents["Organ"]
    assert organ.startswith("Organ (orange) at 4 players is out of line on objective points handed out per game "
                            "for greedy x4 and search x4 alike")
    assert "more objective points per game than Piano" in organ
    assert "moves with skill" not in organ and "larger under" not in organ
    d = judge_differences(iv.effects, iv.alpha)
    organ_d = d[(d["instrument"] == "Organ") & (d["measure"] == "objective_points")].iloc[0]
    assert organ_d["test"] in (AGREE, NOT_SHOWN)
    assert "moves with skill" not in " ".join(sents.values())


def test_a_verdict_that_moves_with_skill_is_said_only_when_the_test_shows_it():
    strong = dict(SAME, Harp=14.0)  # Harp out of line for search only, by far
    seats, games = judged_run(500, {"greedy": SAME, "search": strong})
    iv = instrument_verdicts(seats, games)
    harp = {inst: text for _, inst, _, text in instrument_sentences(iv)}["Harp"]
    assert "out of line for search x4, in line for greedy x4 on objective points" in harp
    assert "the verdict moves with skill: search x4 minus greedy x4 +13" in harp
    d = judge_differences(iv.effects, iv.alpha)
    row = d[(d["instrument"] == "Harp") & (d["measure"] == "objective_points")].iloc[0]
    assert row["test"] == SHOWN and row["lo"] > 0
    # Verdicts that differ on a difference the test cannot show are said so, never "moves with skill".
    near = dict(SAME, Harp=6.5)
    seats, games = judged_run(60, {"greedy": SAME, "search": near}, noise=12.0)
    iv = instrument_verdicts(seats, games)
    d = judge_differences(iv.effects, iv.alpha)
    for (inst, players), part in d[d["test"] != SHOWN].groupby(["instrument", "players"]):
        text = {i: t for _, i, _, t in instrument_sentences(iv)}[inst]
        main = answer_table(iv)
        m = main[main["instrument"] == inst].iloc[0]
        if not part[(part["measure"] == m["measure"]) & (part["who"] == m["who"])].empty:
            assert "moves with skill" not in text


def test_the_seat_effect_of_a_swap():
    """Vibes hands the first player 55% of the wins at 4 players (fair: 25%) for both judges: the swap
    tilts the table; Harp leaves the seat balance (every seat shown within the margin)."""
    tilt = {("greedy", "Vibes"): 0.55, ("search", "Vibes"): 0.55}
    seats, games = judged_run(1500, {"greedy": SAME, "search": SAME}, tilt=tilt)
    iv = instrument_verdicts(seats, games)
    table = answer_table(iv).set_index(["instrument", "judge"])
    assert table.loc[("Vibes", "greedy x4"), "seat_verdict"] == TILTS
    assert table.loc[("Vibes", "greedy x4"), "seat_who"] == "0"
    assert table.loc[("Vibes", "greedy x4"), "seat_effect"] == pytest.approx(0.30, abs=0.05)
    assert table.loc[("Harp", "search x4"), "seat_verdict"] == LEAVES
    vibes = {inst: text for _, inst, _, text in instrument_sentences(iv)}["Vibes"]
    # The seat moved is the sentence's measure here, so it is said once, with each judge's figure.
    assert "out of line on the first player's win rate for greedy x4 and search x4 alike" in vibes
    assert "(greedy x4 +3" in vibes or "(greedy x4 +2" in vibes
    harp = {inst: text for _, inst, _, text in instrument_sentences(iv)}["Harp"]
    assert "the swap leaves the seat balance for greedy x4 and search x4" in harp


def test_answers_per_player_count_name_the_instruments_out_of_line():
    seats2, games2 = judged_run(300, {"greedy": SAME, "search": SAME}, players=2)
    seats4, games4 = judged_run(300, {"greedy": SAME, "search": SAME}, players=4)
    for df in (seats4, games4):
        df["cell"] += 100
    seats = pd.concat([seats2, seats4], ignore_index=True)
    games = pd.concat([games2, games4], ignore_index=True)
    iv = instrument_verdicts(seats, games)
    lines = instrument_answers(iv)
    heads = [x for x in lines if x.startswith("Instruments at")]
    assert heads == [x for x in heads if "out of line for some judge: Organ" in x] and len(heads) == 2
    assert sum(1 for x in lines if x.startswith("  Organ (orange) at")) == 2
    assert (answer_table(iv).groupby(["instrument", "players"])["judge"].nunique() == 2).all()
    assert set(answer_table(iv)["verdict"][answer_table(iv)["instrument"] == "Organ"]) == {OUT}


def test_the_difference_test_keeps_its_error_on_synthetic_truth():
    """Calibration with known truth: two judges with the same true effect (0.8 of the margin away
    from 0) and different deal counts; over 4,000 simulated pairs of estimates the test says *shown*
    (a false "moves with skill") in at most alpha of them, and with a true difference of two margins
    it shows it almost always."""
    rng = np.random.default_rng(7)
    alpha, m, sd = 0.05, 5.0, 12.0

    def rate(delta, reps=4000, n_a=1200, n_b=400):
        shown = 0
        for _ in range(reps):
            a = rng.normal(0.8 * m, sd, size=n_a)
            b = rng.normal(0.8 * m + delta, sd, size=n_b)
            ra = {"effect": a.mean(), "se": a.std(ddof=1) / np.sqrt(n_a), "df": n_a - 1, "margin": m}
            rb = {"effect": b.mean(), "se": b.std(ddof=1) / np.sqrt(n_b), "df": n_b - 1, "margin": m}
            shown += _diff_row(ra, rb, alpha, 1)["test"] == SHOWN
        return shown / reps

    assert rate(0.0) <= alpha + 0.01  # 3 standard errors of a 5% rate over 4,000 is about 1%
    assert rate(2 * m, reps=400) > 0.99


def test_one_chart_per_instrument_player_count_and_judge():
    from reports.charts import expansion_effects
    from reports.instrument_verdicts import MEASURES

    seats2, games2 = judged_run(200, {"greedy": SAME, "search": SAME}, players=2)
    seats4, games4 = judged_run(200, {"greedy": SAME, "search": SAME}, players=4)
    for df in (seats4, games4):
        df["cell"] += 100
    iv = instrument_verdicts(pd.concat([seats2, seats4], ignore_index=True),
                             pd.concat([games2, games4], ignore_index=True))
    table = answer_table(iv)
    assert len(table) == 3 * 2 * 2  # Harp, Organ, Vibes x 2 player counts x 2 judges
    chart = expansion_effects(table, MEASURES, 0.95)
    assert chart.name == "expansion_effects" and chart.png.startswith(b"\x89PNG")
    assert "each judge" in chart.title


def test_a_reference_that_is_the_odd_one_is_named_in_each_sentence():
    odd = {"Piano": 30.0, "Harp": 0.0, "Organ": 1.0, "Vibes": -1.0}
    seats, games = judged_run(300, {"greedy": odd, "search": SAME})
    iv = instrument_verdicts(seats, games)
    harp = {inst: text for _, inst, _, text in instrument_sentences(iv)}["Harp"]
    assert "so does every other orange instrument for greedy x4: Piano, the reference, is the odd one" in harp
    organ = {inst: text for _, inst, _, text in instrument_sentences(iv)}["Organ"]
    # Under search Organ alone is out (+47): the reference is odd for greedy only.
    assert "so does every other orange instrument for greedy x4:" in organ


def test_a_judge_out_of_line_on_another_measure_is_named_with_it():
    """Harp hands out 14 more points under greedy; under search its points are in line but it tilts
    the table: the sentence is about points, and says search's verdict rests on the first seat."""
    seats, games = judged_run(1200, {"greedy": dict(SAME, Harp=14.0), "search": SAME},
                              tilt={("search", "Harp"): 0.6})
    iv = instrument_verdicts(seats, games)
    harp = {inst: text for _, inst, _, text in instrument_sentences(iv)}["Harp"]
    assert "is out of line for greedy x4, in line for search x4 on objective points" in harp
    assert "; for search x4 it is out of line on the first player's win rate (+3" in harp
    row = answer_table(iv).set_index(["instrument", "judge"]).loc[("Harp", "search x4")]
    assert row["verdict"] == OUT and row["measure_verdict"] == "in line" and row["own_measure"] == "seat_win"
