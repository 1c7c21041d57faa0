"""Variant verdicts decided sequentially (scenarios.sequential_variants): each variant against the
reference variant on the same deals, with the instrument verdicts' statistics and schedule."""

from __future__ import annotations

import json

import pytest

from scenarios import sequential_variants as SQV

VSEQ = """\
game = "echidna"
name = "variant-seq"
seed = 5
games = 1200
players = [4]
boards = ["forest"]
reference = "base"

[variants]
base = {}
twin = {}
drawn = { pickup_order = "random" }

[lineup]
mirror = ["greedy"]

[sequential]
verdicts = ["variants"]
round = 200
"""


class _Cell:
    def __init__(self, index, players, board, variant, judge):
        self.index, self.players, self.lineup = index, players, (judge,) * players
        self.columns = {"board": board, "variant": variant}


def test_each_variant_is_judged_against_the_reference_of_its_group():
    cells = [_Cell(0, 4, "forest", "tokens", "greedy"), _Cell(1, 4, "forest", "base", "greedy"),
             _Cell(2, 4, "snow", "base", "greedy"), _Cell(3, 4, "snow", "tokens", "greedy"),
             _Cell(4, 2, "snow", "tokens", "greedy")]
    units, refs, missing = SQV.variant_units(cells, lambda c: c.lineup[0], "base")
    assert [(u.cell, u.reference, u.variant, u.where) for u in units] == [
        (0, 1, "tokens", (("board", "forest"),)), (3, 2, "tokens", (("board", "snow"),))]
    assert refs == {(4, "greedy", (("board", "forest"),)): 1, (4, "greedy", (("board", "snow"),)): 2}
    assert missing == [(2, "greedy", (("board", "snow"),))]


def test_per_deal_measures_average_a_deals_games():
    games = {"deal": [7, 7, 8], "game": [0, 1, 2], "winner": [0, 1, 2], "rounds": [10, 12, 9]}
    rows = SQV.VariantSets.chunk_measures({}, games, 3)
    assert rows.tolist() == [[0.5, 0.5, 0.0, 11.0], [0.0, 0.0, 1.0, 9.0]]


def _sets(out):
    return json.loads((out / "manifest.json").read_text())["sequential"]["sets"]


def test_a_twin_reads_in_line_a_changed_order_out_of_line_whatever_the_workers(tmp_path):
    """A variant with no switch changed plays the reference's games deal by deal: in line within a few
    hundred deals. A drawn pick-up order moves the last seat's win by about 13 pp at 4 players (greedy): out of
    line well before the cap. The stopping points are the same with 1 and 2 workers and other chunks."""
    from scenarios.load import load_scenario
    from scenarios.runner import run_scenario

    sc = tmp_path / "v.toml"
    sc.write_text(VSEQ)
    run_scenario(load_scenario(sc), tmp_path / "a", jobs=1, progress=False)
    run_scenario(load_scenario(sc), tmp_path / "b", jobs=2, chunk_size=70, progress=False)
    a, b = _sets(tmp_path / "a"), _sets(tmp_path / "b")
    by = {r["variant"]: r for r in a}
    # the finite-sample sequence (a seat's win difference within -1..1) needs a few hundred deals of
    # zero differences to show a twin within the zone; the asymptotic one took 100
    assert by["twin"]["verdict"] == "in line" and by["twin"]["decided_at"] <= 800 and by["twin"]["effect"] == 0.0
    assert by["twin"]["interval"] == "bounded" and len(by["twin"]["bounded"]) == 4
    assert by["drawn"]["verdict"] == "out of line" and by["drawn"]["decided_at"] < 1200
    assert by["drawn"]["measure"] == "seat_win" and abs(by["drawn"]["effect"]) > 0.03
    assert all(r["reference_variant"] == "base" and r["board"] == "forest" for r in a)
    keep = ("variant", "verdict", "deals", "decided_at", "looks", "stop", "effect")
    assert [{k: r[k] for k in keep} for r in a] == [{k: r[k] for k in keep} for r in b]
    ma = json.loads((tmp_path / "a" / "manifest.json").read_text())["sequential"]
    mb = json.loads((tmp_path / "b" / "manifest.json").read_text())["sequential"]
    assert [r["cells"] for r in ma["rounds"]] == [r["cells"] for r in mb["rounds"]]
    from click.testing import CliRunner

    from ssb.cli import cli as ssb_main

    result = CliRunner().invoke(ssb_main, ["report", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    summary = (tmp_path / "a" / "report" / "summary.md").read_text()
    twin = by["twin"]["decided_at"]
    assert f"4 players, forest, judge greedy x4, twin against base: **in line** after {twin:,} deals" in summary
    assert "4 players, forest, judge greedy x4, drawn against base: **out of line**" in summary


@pytest.mark.parametrize("change, key, reason", [
    ('sequential.verdicts=["variants", "seats"]', "sequential.verdicts", "one kind of verdict"),
    ("sequential.zone=0", "sequential.zone", "expected a number between 0 and 1"),
    ("sequential.margin=0.7", "sequential.margin", "expected a number between 0 and 0.5"),
])
def test_bad_keys_name_the_key_and_exit_2(tmp_path, change, key, reason):
    from click.testing import CliRunner

    from ssb.cli import cli as ssb_main

    sc = tmp_path / "v.toml"
    sc.write_text(VSEQ)
    result = CliRunner().invoke(ssb_main, ["run", str(sc), "--set", change, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{sc}: {key}: " in result.output and reason in result.output


def test_a_variant_run_needs_another_variant_than_the_reference(tmp_path):
    from scenarios.load import load_scenario
    from simulator.errors import DataError

    sc = tmp_path / "v.toml"
    sc.write_text(VSEQ.replace('twin = {}\ndrawn = { pickup_order = "random" }\n', ""))
    with pytest.raises(DataError, match="sequential.verdicts: 'variants' needs a variant besides the reference 'base'"):
        load_scenario(sc)
