"""The report reads a run chunk by chunk, only the columns it uses, and gives the same tables as on
the whole tables at once (reports.io.RunData.scan, stats.moments)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import io as report_io
from stats import moments as M
from stats import tests as stats
from reports.build import build_report
from reports.io import from_frames, load_run
from reports.make import make_report
from scenarios.schema import SEAT_COLUMNS
from tests.fixtures.report_tables import synthetic_run, write_run

ORGAN = ("Organ", "Piano", "Horns")
CELLS = [
    {"players": 2, "games": 120},
    {"players": 4, "games": 90},
    {"players": 4, "games": 90, "instruments": ORGAN},
    {"players": 3, "games": 150, "lineup": ("greedy", "random", "random"), "rotations": 3},
    {"players": 3, "games": 90, "instruments": ORGAN, "lineup": ("greedy", "random", "random"), "rotations": 3},
]


def _tables(report):
    return {t.name: t.frame for s in report.sections for t in s.tables}


def _same(a, b):
    ta, tb = _tables(a), _tables(b)
    assert set(ta) == set(tb)
    for name in ta:
        x, y = ta[name].reset_index(drop=True), tb[name].reset_index(drop=True)
        pd.testing.assert_frame_equal(x, y, check_dtype=False, check_exact=False, rtol=1e-9, obj=name)
    assert a.headline_text == b.headline_text
    assert [s.findings for s in a.sections] == [s.findings for s in b.sections]


@pytest.fixture(scope="module")
def tables():
    return synthetic_run(CELLS, seed=3)


def test_chunks_of_a_directory_give_the_whole_tables_figures(tables, tmp_path):
    """Chunk files that cut deals and cells apart (compact Parquet types) read as the whole tables."""
    seats, games = tables
    d = write_run(tmp_path / "run", seats, games, chunks=13)
    chunked = build_report(load_run(d))
    whole = build_report(from_frames(seats, games, {"scenario": {"name": "synthetic"}}, source=str(d)))
    _same(chunked, whole)


# One chunk size in the quick suite (the smallest, every chunk boundary); two more with the slow ones.
@pytest.mark.parametrize("size", [1, pytest.param(7, marks=pytest.mark.slow), pytest.param(50, marks=pytest.mark.slow)])
def test_any_chunk_size_gives_the_same_figures(tables, size):
    seats, games = tables
    one = build_report(from_frames(seats, games))
    cut = build_report(from_frames(seats, games, chunk_games=size))
    _same(one, cut)


def test_partial_run_reads_the_chunks_on_disk(tables, tmp_path):
    seats, games = tables
    d = write_run(tmp_path / "run", seats, games, status="running", chunks=9, missing=(2, 5))
    run = load_run(d, allow_partial=True)
    assert run.partial
    rep = build_report(run)
    keys = pd.MultiIndex.from_frame(pd.concat([pd.read_parquet(p) for p in sorted((d / "games").glob("*.parquet"))])[["cell", "game"]])
    g = games[pd.MultiIndex.from_frame(games[["cell", "game"]]).isin(keys)]
    s = seats[pd.MultiIndex.from_frame(seats[["cell", "game"]]).isin(keys)]
    assert len(g) < len(games) and run.games_count == len(g)
    _same(rep, build_report(from_frames(s, g, partial=True)))


# What the report reads of a Shuffle and Swing run: every column any section uses, no other.
SEAT_NEEDED = {
    "cell", "cell_key", "players", "inst_black", "inst_orange", "inst_gray", "lineup", "deal", "game", "seat",
    "strategy", "score", "won", "rank", "passes", "inspector",
    *(f"{k}_{d}" for k in ("objective", "brag", "penalty") for d in ("black", "orange", "gray")),
    "turns", "tokens_spent", "tokens_gained", "action_brags", "bumps_made", "pickups", "upgrades",
    "award_by_disc", "award_by_pieces", "cheese_jumps", "upgrades_on_others",
}


def test_the_report_reads_only_the_columns_it_uses_a_chunk_at_a_time(tables, tmp_path, monkeypatch):
    seats, games = tables
    d = write_run(tmp_path / "run", seats, games, chunks=11)
    largest = max(len(pd.read_parquet(p)) for p in (d / "seats").glob("*.parquet"))
    read = {"seats": set(), "games": set()}
    rows = []
    real = report_io.R.read_columns

    def spy(path, columns, *args, **kwargs):
        out = real(path, columns, *args, **kwargs)
        read[path.parent.name] |= set(columns)
        rows.append(max((len(v) for v in out.values()), default=0))
        return out

    def whole(*_):
        raise AssertionError("the report asked for a whole table")

    monkeypatch.setattr(report_io.R, "read_columns", spy)
    monkeypatch.setattr(report_io.R, "read_chunks", whole)
    make_report(d, tmp_path / "out")
    assert read["seats"] <= SEAT_NEEDED, read["seats"] - SEAT_NEEDED
    unused = set(SEAT_COLUMNS) - SEAT_NEEDED
    assert unused and not (read["seats"] & unused)
    assert max(rows) <= largest  # one chunk file at a time, never a table


def test_running_moments_equal_the_whole_sample_statistics():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 40, size=3001).astype(float)
    deal = np.repeat(np.arange(1001), 3)[:3001]
    acc = M.Clustered(1)
    for a in range(0, 3001, 97):  # deals cut at chunk boundaries
        acc.add(x[a : a + 97], deal[a : a + 97])
    assert acc.design_effect() == pytest.approx(stats.design_effect(x, deal), rel=1e-12)
    assert M.mean_interval(acc) == pytest.approx(stats.mean_interval(x, 0.95, deal), rel=1e-12)
    y = (x > 20).astype(float)
    acc = M.Clustered(1, contiguous=False)
    for a in range(0, 3001, 500):
        acc.add(y[a : a + 500], deal[a : a + 500])
    assert M.wilson_clustered(acc) == pytest.approx(stats.wilson_clustered(y, deal), rel=1e-12)
    h = M.Histogram()
    h.add(x[:1000])
    h.add(x[1000:])
    for q in (0.1, 0.5, 0.9, 0.99):
        assert h.quantile(q) == np.quantile(x, q)
    assert h.median() == np.median(x)


def test_the_seats_table_is_checked_one_row_per_seat(tables):
    seats, games = tables
    with pytest.raises(report_io.ReportInputError, match="one row per seat"):
        build_report(from_frames(seats.iloc[1:], games))
