"""The balance reports: verdicts on synthetic runs (biased, fair, short, A/A), every section's table on
hand-made tables with exact numbers, the HTML and Markdown output, and bad input."""

import base64
import gc
import io
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from fixtures.report_tables import complete, synthetic_run, write_run
from PIL import Image

from stats import tests as stats
from reports.build import build_report
from reports.make import make_report
from reports.document import write_report
from reports.headline import headline_table
from reports.instruments import compare_instruments
from reports.io import ReportInputError, from_frames, load_run
from reports.render import render_html, render_markdown
from reports.sections.shuffle_swing.sources import scoring_sources
from reports.seats import seat_advantage
from reports.shape import game_shape
from reports.strategies import (
    compare_strategies,
    head_to_head,
    strategy_rates,
    strategy_ratings,
)
from scenarios.schema import FORMAT_VERSION, GAME_COLUMNS, SEAT_COLUMNS
from ssb.report_cmd import report as report_cmd

REPO = Path(__file__).resolve().parent.parent


def verdict_of(cells, margin=0.03, seed=0):
    _, games = synthetic_run(cells, seed=seed)
    return seat_advantage(games, margin=margin).cells


# =========================================================================== verdicts


def test_known_seat_bias_with_many_games_is_imbalanced():
    cells = verdict_of([{"players": 4, "games": 20000, "seat_probs": [0.31, 0.23, 0.23, 0.23]}])
    row = cells.iloc[0]
    assert row["verdict"] == stats.UNFAIR
    assert row["best_seat"] == 0
    assert "seat 1" in row["note"]  # seats in the designer's numbering, from 1
    assert row["outside_p_holm"] < 0.05


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_bias_with_many_games_is_balanced(players):
    cells = verdict_of([{"players": players, "games": 20000}], seed=players)
    assert cells.iloc[0]["verdict"] == stats.FAIR
    assert cells.iloc[0]["tost_p"] < 0.05


def test_few_games_are_inconclusive_with_an_estimate_of_more_games():
    cells = verdict_of([{"players": 4, "games": 200}], seed=3)
    row = cells.iloc[0]
    assert row["verdict"] == stats.UNDECIDED
    assert np.isfinite(row["more_games"]) and row["more_games"] > 0
    assert row["more_games"] % 4 == 0  # whole rotations
    assert "more games would likely decide it" in row["note"]


def test_the_estimate_of_more_games_is_about_right():
    """Playing the suggested number of games from the same fair game settles the question."""
    first = verdict_of([{"players": 4, "games": 400}], seed=11).iloc[0]
    assert first["verdict"] == stats.UNDECIDED
    total = int(400 + first["more_games"])
    settled = 0
    for seed in range(20):
        v = verdict_of([{"players": 4, "games": total}], seed=100 + seed).iloc[0]["verdict"]
        settled += v == stats.FAIR
    assert settled >= 10  # aimed at 80 % power, from a noisy observed spread


def _aa_runs(rng, reps, cells, margin, confidence=0.95):
    """Per-cell and run-wide false 'imbalanced' rates of ``reps`` unbiased synthetic runs."""
    label = np.concatenate([np.full(p, k) for k, (p, _) in enumerate(cells)])
    nobs = np.concatenate([np.full(p, n) for p, n in cells])
    nplayers = np.concatenate([np.full(p, p) for p, _ in cells])
    per_cell = np.zeros(len(cells))
    run_wide = 0
    for _ in range(reps):
        wins = np.concatenate([rng.multinomial(n, np.full(p, 1 / p)) for p, n in cells])
        res = stats.seat_verdicts(label, wins, nobs, nplayers, margin, confidence, estimate_games=False)
        per_cell += res["verdict"] == stats.UNFAIR
        run_wide += bool(res["imbalanced_run"].any())
    return per_cell.max() / reps, run_wide / reps


@pytest.mark.parametrize("margin", [0.03, 0.0])
def test_aa_false_imbalanced_rate_is_at_most_alpha(margin):
    """A/A: 400 replications of an unbiased run (six cells); any 'imbalanced' is false.

    Each cell's verdict controls its own error (Holm over its seats): at margin 0 the verdict reduces
    to plain tests against 1/N, so every cell's false alarm rate is at most alpha (binomial slack
    allowed); the run-wide reading (Holm over every seat of the run) keeps the whole run at alpha.
    At the default margin both are far below.
    """
    rng = np.random.default_rng(2024)
    cells = [(2, 500), (3, 900), (4, 1200), (2, 3000), (3, 3000), (4, 3000)]
    t0 = time.perf_counter()
    # statsmodels' Holm runs gc.collect() on every call; freezing the objects already alive keeps
    # each of those collections trivial in a test process holding pandas, matplotlib and more.
    gc.freeze()
    try:
        per_cell, run_wide = _aa_runs(rng, 400, cells, margin)
    finally:
        gc.unfreeze()
    assert time.perf_counter() - t0 < 10
    assert per_cell <= 0.075, per_cell  # 0.05 + 2.3 binomial standard errors of 400 runs
    assert run_wide <= 0.075, run_wide
    if margin > 0:
        assert per_cell == 0.0 and run_wide == 0.0


def test_aa_through_the_table_pipeline():
    """A few unbiased runs through seat_advantage on real frames: never 'imbalanced'."""
    for seed in range(5):
        cells = verdict_of(
            [{"players": p, "games": 3000, "instruments": ("Bass", "Piano", "Horns")} for p in (2, 3, 4)], seed=seed
        )
        assert not (cells["verdict"] == stats.UNFAIR).any()


def test_mirror_rotations_replaying_one_game_count_once():
    cell = {"players": 4, "games": 4000, "rotations": 4, "seat_probs": [0.28, 0.24, 0.24, 0.24]}
    _, replayed = synthetic_run([cell], seed=5, replay_rotations=True)
    adv = seat_advantage(replayed)
    row = adv.cells.iloc[0]
    assert row["design_effect"] == pytest.approx(4.0)
    assert row["effective_games"] == pytest.approx(1000.0)
    # The same verdict and intervals as the 1,000 distinct games alone.
    alone = seat_advantage(replayed[replayed["rotation"] == 0]).rates
    np.testing.assert_allclose(adv.rates["win_lo"], alone["win_lo"])
    np.testing.assert_allclose(adv.rates["win_hi"], alone["win_hi"])


def test_a_cells_verdict_does_not_depend_on_the_other_cells():
    """The verdict's family is its cell: 40 copies of a borderline cell keep its verdict; only the
    run-wide reading (Holm over every seat of the run) becomes stricter."""
    label = np.repeat(np.arange(40), 2)
    wins = np.tile([570, 430], 40)  # 57 % vs a margin of 53 %: one-sided p ~ 0.006 per cell
    res = stats.seat_verdicts(label, wins, np.full(80, 1000), np.full(80, 2), 0.03, 0.95, estimate_games=False)
    alone = stats.seat_verdicts(label[:2], wins[:2], np.full(2, 1000), np.full(2, 2), 0.03, 0.95, estimate_games=False)
    assert alone["verdict"][0] == stats.UNFAIR
    assert (res["verdict"] == stats.UNFAIR).all()
    np.testing.assert_allclose(res["outside_p"], alone["outside_p"][0])
    assert alone["imbalanced_run"][0] and not res["imbalanced_run"].any()


# =========================================================================== section tables, exact numbers


def hand_games(rows, **fixed):
    """A games table from dicts (missing schema columns 0 / "")."""
    df = pd.DataFrame(rows)
    for k, v in fixed.items():
        df[k] = v
    return complete(df, GAME_COLUMNS)


def hand_seats(rows, **fixed):
    df = pd.DataFrame(rows)
    for k, v in fixed.items():
        df[k] = v
    return complete(df, SEAT_COLUMNS)


STARTER = {"inst_black": "Violin", "inst_orange": "Piano", "inst_gray": "Horns", "cell": 0}


def test_seat_table_exact_numbers():
    games = hand_games(
        [
            {"game": 0, "deal": 0, "winner": 0, "tied": 1, "tiebreak": 0},
            {"game": 1, "deal": 1, "winner": 0, "tied": 2, "tiebreak": 1},
            {"game": 2, "deal": 2, "winner": 1, "tied": 1, "tiebreak": 0},
            {"game": 3, "deal": 3, "winner": 0, "tied": 1, "tiebreak": 0},
        ],
        players=2,
        **STARTER,
    )
    adv = seat_advantage(games)
    assert adv.rates["wins"].tolist() == [3, 1]
    assert adv.rates["win_rate"].tolist() == [0.75, 0.25]
    assert adv.rates["fair_share"].tolist() == [0.5, 0.5]
    lo, _ = stats.wilson(3, 4)
    assert adv.rates.loc[0, "win_lo"] == pytest.approx(lo)
    row = adv.cells.iloc[0]
    assert row["games"] == 4
    assert row["chi2"] == pytest.approx(1.0)  # ((3-2)^2 + (1-2)^2) / 2
    assert row["gap"] == pytest.approx(0.5)
    assert (row["ties"], row["tie_rate"], row["tiebreaks"], row["tiebreak_rate"]) == (1, 0.25, 1, 0.25)
    assert row["instruments"] == "Violin/Piano/Horns"


def scoring_frame():
    # Two 2-player games; seat 0 wins the first, seat 1 the second.
    base = dict(players=2, **STARTER)
    rows = [
        dict(game=0, seat=0, won=1, rank=1, inspector=10, objective_black=4, brag_orange=6, penalty_gray=0),
        dict(game=0, seat=1, won=0, rank=2, inspector=6, objective_black=2, brag_orange=0, penalty_gray=-2),
        dict(game=1, seat=0, won=0, rank=2, inspector=4, objective_black=0, brag_orange=2, penalty_gray=-2),
        dict(game=1, seat=1, won=1, rank=1, inspector=12, objective_black=6, brag_orange=2, penalty_gray=0),
    ]
    s = hand_seats(rows, **base)
    s["score"] = s[["inspector", "objective_black", "brag_orange", "penalty_gray"]].sum(axis=1)
    s["deal"] = s["game"]
    return s


def test_scoring_sources_exact_numbers():
    sc = scoring_sources(scoring_frame())
    by = sc.by_seat.set_index("seat")
    assert by.loc[0, "inspector"] == 7.0
    assert by.loc[1, "inspector"] == 9.0
    assert by.loc[0, "objective_black"] == 2.0
    assert by.loc[1, "penalty_gray"] == -1.0
    assert by.loc[0, "score"] == 12.0  # (20 + 4) / 2
    assert by.loc[1, "score"] == 13.0  # (6 + 20) / 2
    w = sc.winners.iloc[0]
    # Winners: 10+4+6 = 20 and 12+6+2 = 20 points; inspector 22 of 40.
    assert w["winners"] == 2 and w["winner_score"] == 20.0
    assert w["share_inspector"] == pytest.approx(22 / 40)
    assert w["share_objective_black"] == pytest.approx(10 / 40)
    assert w["share_brag_orange"] == pytest.approx(8 / 40)
    assert w["share_penalty_gray"] == 0.0
    shares = [c for c in sc.winners.columns if c.startswith("share_")]
    assert sc.winners[shares].sum(axis=1).iloc[0] == pytest.approx(1.0)


def h2h_frame():
    """Three-player games of strategies A, B, C; game 2 seats A twice."""
    base = dict(players=3, **STARTER)
    games = [
        # (strategy per seat, rank per seat)
        (("A", "B", "C"), (1, 2, 3)),
        (("B", "C", "A"), (1, 2, 3)),  # B ahead of C ahead of A
        (("A", "A", "B"), (3, 1, 2)),  # A's best seat (rank 1) is ahead of B
        (("C", "B", "A"), (2, 3, 1)),
    ]
    rows = []
    for g, (strats, ranks) in enumerate(games):
        for seat, (st, rk) in enumerate(zip(strats, ranks, strict=True)):
            rows.append(dict(game=g, deal=g, seat=seat, strategy=st, rank=rk, won=int(rk == 1), score=10 - rk))
    return hand_seats(rows, lineup="A,B,C", **base)


def test_head_to_head_exact_shares():
    h = head_to_head(h2h_frame()).set_index(["strategy", "opponent"])
    # A vs B: all four games; A ahead in games 0, 2, 3.
    assert h.loc[("A", "B"), "games"] == 4 and h.loc[("A", "B"), "ahead"] == 3
    assert h.loc[("A", "B"), "share"] == 0.75
    assert h.loc[("B", "A"), "share"] == 0.25
    # A vs C: games 0, 1, 3; A ahead in 0 and 3.
    assert h.loc[("A", "C"), "games"] == 3 and h.loc[("A", "C"), "share"] == pytest.approx(2 / 3)
    # B vs C: games 0, 1, 3; B ahead in 0 and 1.
    assert h.loc[("B", "C"), "share"] == pytest.approx(2 / 3)
    assert (h["share_lo"] <= h["share"]).all() and (h["share"] <= h["share_hi"]).all()


def test_strategy_rates_exact():
    r = strategy_rates(h2h_frame()).set_index("strategy")
    # A: 5 seats played, won games 0, 2 (seat 1) and 3; B: 4 seats, won game 1; C: 3 seats, no win.
    assert r.loc["A", "seats_played"] == 5 and r.loc["A", "wins"] == 3
    assert r.loc["A", "win_rate"] == pytest.approx(0.6)
    assert r.loc["B", "win_rate"] == pytest.approx(0.25)
    assert r.loc["C", "wins"] == 0
    assert r.loc["A", "games"] == 4


def test_bradley_terry_rating_matches_the_pair_odds():
    """Two-player games, A ahead in 700 of 1000: strength gap = log(700 / 300)."""
    rows = []
    for g in range(1000):
        a_first = g < 700
        rows.append(dict(game=g, deal=g, seat=0, strategy="A", rank=1 if a_first else 2, won=int(a_first)))
        rows.append(dict(game=g, deal=g, seat=1, strategy="B", rank=2 if a_first else 1, won=int(not a_first)))
    seats = hand_seats(rows, players=2, lineup="A,B", **STARTER)
    r = strategy_ratings(seats, resamples=100).set_index("strategy")
    gap = r.loc["A", "strength"] - r.loc["B", "strength"]
    assert gap == pytest.approx(np.log(700 / 300), abs=0.01)
    assert r.loc["A", "strength_lo"] < r.loc["A", "strength"] < r.loc["A", "strength_hi"]
    assert r.loc["A", "strength_lo"] > 0  # clearly the stronger
    comp = compare_strategies(seats, resamples=50)
    dom = comp.dominance.iloc[0]
    assert dom["leader"] == "A" and bool(dom["dominates"])


def test_mirror_lineup_skips_the_strategy_section():
    seats, _ = synthetic_run([{"players": 3, "games": 60}])
    comp = compare_strategies(seats)
    assert comp.empty and comp.head_to_head.empty and comp.ratings.empty
    assert any("Mirror lineup" in n and "greedy" in n for n in comp.notes)


def instrument_frames():
    """Four 2-player games: black is Violin in games 0-1 and Bass in games 2-3."""
    g_rows = [
        dict(game=0, deal=0, inst_black="Violin", built_black=1, rounds=30, winner=0),
        dict(game=1, deal=1, inst_black="Violin", built_black=0, rounds=34, winner=1),
        dict(game=2, deal=2, inst_black="Bass", built_black=1, rounds=28, winner=0),
        dict(game=3, deal=3, inst_black="Bass", built_black=1, rounds=32, winner=0),
    ]
    games = hand_games(g_rows, players=2, cell=0, inst_orange="Piano", inst_gray="Horns", built_orange=1, built_gray=1)
    s_rows = []
    obj = {0: (6, 2), 1: (4, 4), 2: (9, 3), 3: (0, 0)}
    pen = {1: (-4, 0)}
    for g in range(4):
        for seat in range(2):
            s_rows.append(
                dict(
                    game=g,
                    deal=g,
                    seat=seat,
                    strategy="greedy" if seat == 0 else "random",
                    inst_black=games.loc[g, "inst_black"],
                    objective_black=obj[g][seat],
                    penalty_black=pen.get(g, (0, 0))[seat],
                    rank=1 + seat,
                    won=int(seat == 0),
                )
            )
    seats = hand_seats(s_rows, players=2, cell=0, inst_orange="Piano", inst_gray="Horns")
    return seats, games


def test_instrument_stats_exact_numbers():
    seats, games = instrument_frames()
    ic = compare_instruments(seats, games)
    st = ic.stats.set_index(["department", "instrument"])
    v, b = st.loc[("black", "Violin")], st.loc[("black", "Bass")]
    assert v["objective_points"] == 8.0  # (6+2 + 4+4) / 2
    assert b["objective_points"] == 6.0  # (9+3 + 0) / 2
    assert v["top_share"] == pytest.approx((6 / 8 + 4 / 8) / 2)
    assert b["top_share"] == pytest.approx(9 / 12)  # the game without objective points has no share
    assert (v["unbuilt"], v["unbuilt_rate"], b["unbuilt_rate"]) == (1, 0.5, 0.0)
    assert v["penalty_per_unbuilt_game"] == -4.0
    assert (v["rounds"], b["rounds"]) == (32.0, 30.0)
    assert b["seat_gap"] == 1.0  # seat 0 won both Bass games
    pen = ic.penalties.set_index(["by", "who"])
    assert pen.loc[("seat", "0"), "paid"] == 1 and pen.loc[("seat", "0"), "pay_rate"] == 1.0
    assert pen.loc[("seat", "0"), "mean_penalty"] == -4.0
    assert pen.loc[("seat", "1"), "paid"] == 0
    assert pen.loc[("strategy", "greedy"), "pay_rate"] == 1.0
    assert ic.varied == ["black"]


def test_instruments_not_varied_are_skipped_with_a_note():
    seats, games = synthetic_run([{"players": 4, "games": 40}])
    ic = compare_instruments(seats, games)
    assert ic.varied == []
    assert "does not vary instruments" in ic.notes[0]
    assert set(ic.stats["instrument"]) == {"Violin", "Piano", "Horns"}


def test_game_shape_exact_numbers():
    games = hand_games(
        [dict(game=0, deal=0, rounds=30, stalled=0), dict(game=1, deal=1, rounds=60, stalled=1)],
        players=2,
        **STARTER,
    )
    seats = hand_seats(
        [
            dict(game=0, seat=0, score=50, rank=1, passes=1),
            dict(game=0, seat=1, score=40, rank=2, passes=0),
            dict(game=1, seat=0, score=30, rank=2, passes=2),
            dict(game=1, seat=1, score=30, rank=1, passes=3),
        ],
        players=2,
        **STARTER,
    )
    table, per = game_shape(seats, games)
    row = table.iloc[0]
    assert row["rounds_mean"] == 45.0 and row["rounds_median"] == 45.0
    assert row["stalled"] == 1 and row["stalled_rate"] == 0.5
    assert row["passes_mean"] == 3.0  # (1+0 + 2+3) / 2
    assert row["score_std_mean"] == 2.5  # population std: 5 and 0
    assert row["winner_margin_mean"] == 5.0  # 10 and 0 (tie-break)
    assert per["winner_margin"].tolist() == [10, 0]


# =========================================================================== the whole report


def mixed_run(seed=1):
    """Two instrument sets x two player counts, greedy vs random lineups in rotation."""
    cells = []
    for inst in (("Violin", "Piano", "Horns"), ("Bass", "Piano", "Horns")):
        cells.append({"players": 2, "games": 300, "instruments": inst, "lineup": ("greedy", "random"), "rotations": 2})
        cells.append(
            {
                "players": 4,
                "games": 400,
                "instruments": inst,
                "lineup": ("greedy", "random", "random", "random"),
                "rotations": 4,
            }
        )
    return synthetic_run(cells, seed=seed)


@pytest.fixture(scope="module")
def built():
    seats, games = mixed_run()
    run = from_frames(seats, games, {"scenario": {"name": "mixed", "description": "two sets"}}, source="mem")
    return build_report(run)


def test_report_has_every_section_with_tables_and_charts(built):
    assert [s.key for s in built.sections] == ["seats", "strategies", "scoring", "instruments", "shape", "rules"]
    for sec in built.sections:
        assert sec.tables, sec.key
        assert sec.charts, sec.key
        for ch in sec.charts:
            assert "?" in ch.title  # titled with the question it answers


def test_headline_table_frame_and_text(built):
    _, games = mixed_run()
    adv = seat_advantage(games)
    frame, text = headline_table(adv)
    assert list(frame["players"]) == [2, 4]
    assert frame.loc[0, "instruments"] == "2 sets"
    assert "win % by seat (seat 1 plays first)" in frame.columns
    assert "Seat balance" in text and "verdict" in text
    for v in frame["verdict"]:
        assert re.search(r"fair|unfair|undecided", v)
    assert "leading strategy" in built.headline.columns


def test_html_is_self_contained_with_valid_images(built, tmp_path):
    written = write_report(built, tmp_path)
    page = written["html"].read_text()
    assert 'id="headline"' in page and "<table" in page
    assert built.headline.columns[0] in page
    assert not re.search(r"https?://", page)
    assert "<link" not in page and not re.search(r"<script[^>]+src=", page)
    srcs = re.findall(r'<img [^>]*src="([^"]+)"', page)
    # Every section's chart, and the first screen's verdict matrix above them.
    assert len(srcs) == sum(len(s.charts) for s in built.sections) + 1
    assert (tmp_path / "verdict_matrix.png").read_bytes()[:4] == b"\x89PNG"
    for src in srcs:
        assert src.startswith("data:image/png;base64,")
        data = base64.b64decode(src.split(",", 1)[1], validate=True)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        with Image.open(io.BytesIO(data)) as im:
            im.verify()
        with Image.open(io.BytesIO(data)) as im:
            assert im.size[0] > 100 and im.size[1] > 100
    assert "PARTIAL" not in page
    for name in ("seat_verdicts", "strategy_head_to_head", "score_sources_by_seat", "instrument_stats", "game_shape"):
        assert (tmp_path / f"{name}.csv").is_file()
        assert len(pd.read_csv(tmp_path / f"{name}.csv")) > 0
    md = written["markdown"].read_text()
    assert "## Headline" in md and "| players |" in md


def test_markdown_and_html_mark_a_partial_run():
    seats, games = mixed_run()
    run = from_frames(seats, games, source="mem", partial=True)
    rep = build_report(run)
    assert "PARTIAL" in render_html(rep)
    assert "PARTIAL" in render_markdown(rep)
    assert rep.headline_text.startswith("PARTIAL")


# =========================================================================== bad input and the command


@pytest.fixture
def run_dir(tmp_path):
    seats, games = synthetic_run([{"players": 2, "games": 200}, {"players": 4, "games": 200}], seed=4)
    return write_run(tmp_path / "run", seats, games, chunks=2)


def test_load_run_reads_a_complete_run(run_dir):
    run = load_run(run_dir)
    assert len(run.games) == 400 and not run.partial
    assert run.scenario_name == "synthetic"


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(ReportInputError, match="not found"):
        load_run(tmp_path / "nope")


def test_directory_without_manifest_is_a_clear_error(tmp_path):
    with pytest.raises(ReportInputError, match="no manifest"):
        load_run(tmp_path)


def test_unfinished_run_needs_allow_partial(tmp_path):
    seats, games = synthetic_run([{"players": 2, "games": 200}])
    d = write_run(tmp_path / "run", seats, games, status="running", chunks=2, missing=(1,))
    with pytest.raises(ReportInputError) as err:
        load_run(d)
    assert "unfinished" in str(err.value) and "--allow-partial" in str(err.value)
    assert "manifest.json" in err.value.file
    run = load_run(d, allow_partial=True)
    assert run.partial and len(run.games) == 100
    _, written = make_report(d, tmp_path / "out", allow_partial=True)
    assert "PARTIAL" in written["html"].read_text() and "PARTIAL" in written["markdown"].read_text()


def test_complete_run_with_a_missing_chunk_is_partial(tmp_path):
    seats, games = synthetic_run([{"players": 2, "games": 200}])
    d = write_run(tmp_path / "run", seats, games, chunks=2, missing=(0,))
    with pytest.raises(ReportInputError, match="1 of 2 chunks"):
        load_run(d)
    assert load_run(d, allow_partial=True).partial


def test_older_format_is_a_clear_error(tmp_path):
    seats, games = synthetic_run([{"players": 2, "games": 20}])
    d = write_run(tmp_path / "run", seats, games, format_version=FORMAT_VERSION - 1)
    with pytest.raises(ReportInputError, match="older result format") as err:
        load_run(d)
    assert err.value.key == "format_version"


def test_missing_column_is_a_clear_error():
    seats, games = synthetic_run([{"players": 2, "games": 20}])
    with pytest.raises(ReportInputError, match="won"):
        from_frames(seats.drop(columns=["won"]), games)


def test_command_writes_the_report_and_prints_the_headline(run_dir, tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(report_cmd, [str(run_dir), "--out", str(out), "--margin", "4", "--confidence", "90"])
    assert res.exit_code == 0, res.output
    assert "Seat balance" in res.output and "±4.0 pp" in res.output and "90% confidence" in res.output
    assert (out / "report.html").is_file() and (out / "summary.md").is_file()
    assert (out / "seat_verdicts.csv").is_file() and (out / "seat_win_rates.png").is_file()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda tmp, run: [str(tmp / "missing")], "not found"),
        (lambda tmp, run: [str(run), "--confidence", "2"], "confidence level"),
    ],
)
def test_command_errors_exit_2_without_traceback(tmp_path, run_dir, make, message):
    res = CliRunner().invoke(report_cmd, make(tmp_path, run_dir))
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert message in res.output


def test_command_refuses_an_unfinished_run(tmp_path):
    seats, games = synthetic_run([{"players": 2, "games": 200}])
    d = write_run(tmp_path / "run", seats, games, status="running")
    res = CliRunner().invoke(report_cmd, [str(d)])
    assert res.exit_code == 2 and res.output.startswith("error: ") and "--allow-partial" in res.output
    res = CliRunner().invoke(report_cmd, [str(d), "--allow-partial", "--out", str(tmp_path / "o")])
    assert res.exit_code == 0 and "PARTIAL" in res.output


def test_command_help_has_an_example():
    res = CliRunner().invoke(report_cmd, ["--help"])
    assert "Example:" in res.output and "ssb report " in res.output


# =========================================================================== dependency direction


def test_reports_never_import_the_engine():
    code = (
        "import sys, reports.build, reports.io, reports.render, ssb.report_cmd\n"
        "bad = [m for m in sys.modules if m.split('.')[0] == 'numba' or m.startswith('simulator.shuffle_swing.kernel')"
        " or m.startswith('simulator.shuffle_swing.playout')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
    for path in (REPO / "reports").glob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(from|import)\s+(numba|simulator\.kernel|simulator\.playout)", text, re.MULTILINE), (
            path
        )
