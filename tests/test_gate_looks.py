"""The strong gate played in looks (``ssb run --looks N,N --against BASELINE``): the baseline's deals in
growing prefixes, the gate tested after each look at alpha split over the looks, the run ended at the
first look where it is decided (every figure held or moved, or one moved). An unchanged checkout
replays the baseline's games, so every figure holds at the first look and the run stops there."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cli_harness import assert_clean_error, invoke
from scenarios.load import load_scenario
from scenarios.results import load_results
from scenarios.runner import look_plan

REPO = Path(__file__).resolve().parents[1]
STRONG = REPO / "baselines" / "ci-strong-baseline.json"
R13_EARLIEST = 'overrides.board.rulings.tie_break="earliest"'


def test_a_look_plan_plays_growing_prefixes_first():
    cells = load_scenario("ci-strong", games=90).cells
    plan, ends = look_plan(cells, (30, 60), 20)
    assert [r[0] for r in plan] == list(range(len(plan)))
    for c in cells:  # every game of every cell exactly once
        rows = sorted((r[2], r[3]) for r in plan if r[1] == c.index)
        assert rows[0][0] == 0 and rows[-1][1] == c.games
        assert all(a[1] == b[0] for a, b in zip(rows, rows[1:]))
    for end, n in zip(ends, (30, 60)):  # a look's rows are the plan's first rows: the first n deals of each cell
        head, tail = plan[:end], plan[end:]
        for c in cells:
            assert max(r[3] for r in head if r[1] == c.index) == n * c.rotations
            assert all(r[3] <= n * c.rotations for r in head if r[1] == c.index)
            assert all(r[2] >= n * c.rotations for r in tail if r[1] == c.index)


def _run(tmp_path, name, *extra):
    out = tmp_path / name
    r = invoke("run", "ci-strong", "--games", 60, "--looks", "20,40", "--against", STRONG, "--out", out,
               "--jobs", 1, "--quiet", *extra)
    assert r.exit_code == 0, r.output
    return out


def test_an_unchanged_checkout_stops_at_the_first_look(tmp_path):
    out = _run(tmp_path, "same")
    seats, games, manifest = load_results(out)
    looks = manifest["looks"]
    assert looks == {"deals": [20, 40, 60], "split": 3, "played": 1, "stopped_early": True}
    assert set(games.groupby("cell_key")["deal"].nunique()) == {20}
    assert [c["deals"] for c in manifest["cells"]] == [20, 20, 20]
    # The games are the baseline's first deals, as a plain run of 20 deals plays them.
    plain = tmp_path / "plain"
    assert invoke("run", "ci-strong", "--games", 20, "--out", plain, "--jobs", 1, "--quiet").exit_code == 0
    cols = ["cell_key", "deal", "seed", "winner"]
    pd.testing.assert_frame_equal(games[cols].reset_index(drop=True), load_results(plain)[1][cols].reset_index(drop=True))
    js = tmp_path / "v.json"
    r = invoke("regress", out, "--baseline", STRONG, "--strict", "--json", js)
    assert r.exit_code == 0, r.output
    assert "looks: played 20 of 20, 40, 60 deals a cell (stopped early, decided), each at alpha 0.01667" in r.output
    doc = json.loads(js.read_text())
    assert doc["looks"]["level"] == pytest.approx(0.05 / 3) and doc["counts"]["pass"] == 33
    # Compared at the split level: a fresh regress of the same tables cannot test at the full alpha.
    assert invoke("regress", out, "--baseline", STRONG, "--adaptive").exit_code == 2


def test_a_strong_only_change_is_not_passed_in_looks(tmp_path):
    out = _run(tmp_path, "r13", "--set", R13_EARLIEST)
    _, games, manifest = load_results(out)
    looks = manifest["looks"]
    played = looks["deals"][looks["played"] - 1]
    assert set(games.groupby("cell_key")["deal"].nunique()) == {played}
    assert looks["stopped_early"] == (played < 60)
    r = invoke("regress", out, "--baseline", STRONG, "--strict")
    assert r.exit_code == 1, r.output


@pytest.mark.parametrize("args, fragments", [
    (["--looks", "20,40"], ["--looks and --against go together"]),
    (["--against", str(STRONG)], ["--looks and --against go together"]),
    (["--looks", "20,x", "--against", str(STRONG)], ["--looks", "20,x", "deal counts"]),
    (["--looks", "40,20", "--against", str(STRONG)], ["--looks", "40,20", "increasing"]),
    (["--looks", "20,60", "--against", str(STRONG)], ["--looks", "below the run's 60 deals"]),
    (["--looks", "20", "--against", "nowhere.json"], ["nowhere.json"]),
])
def test_look_mistakes_are_refused_before_a_game(tmp_path, args, fragments):
    out = tmp_path / "out"
    r = invoke("run", "ci-strong", "--games", 60, "--out", out, "--jobs", 1, "--quiet", *args)
    assert_clean_error(r, *fragments)
    assert not out.exists()


def test_where_a_run_stops_is_the_same_whatever_the_workers(tmp_path):
    one = _run(tmp_path, "one", "--set", R13_EARLIEST)
    two = _run(tmp_path, "two", "--set", R13_EARLIEST, "--jobs", 2, "--chunk-size", 7)
    (_, g1, m1), (_, g2, m2) = load_results(one), load_results(two)
    assert m1["looks"] == m2["looks"]
    cols = ["cell_key", "deal", "seed", "winner", "rounds"]
    pd.testing.assert_frame_equal(g1[cols].reset_index(drop=True), g2[cols].reset_index(drop=True))
