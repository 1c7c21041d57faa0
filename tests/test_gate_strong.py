"""The regression gate at two levels: greedy's gate (scenarios/ci.toml) and the same settings at strong
play (scenarios/ci-strong.toml, mirrors of the strong judge with its leaf held at the shipped fit,
``search_leaf_held``), each against its committed baseline, paired on the baseline's own deals.

A change can move strong play while greedy sees nothing: reading the R13 tie-break the other way
("earliest": the tied player earliest in turn order wins) leaves greedy's games as they were (its
moves do not look at the tie-break) and changes only the few tied games' winner, so greedy's gate
passes it; a search player plays for the tie-break, so its games change and the strong gate does not
pass it. These runs replay the baselines' first deals only (the gate's figures are paired deal by deal,
so a prefix of the baseline's deals is a valid, smaller gate).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reports.gate.baseline import read_baseline
from scenarios.load import load_scenario
from scenarios.results import load_results
from scenarios.runner import run_scenario
from simulator import games as registry
from simulator.shuffle_swing.layout import LEAF_COUNTS
from simulator.shuffle_swing.leaf_fit import coef_sha256
from simulator.shuffle_swing.strategies import LEAF_DIR, load_leaf_model
from ssb.cli import cli

REPO = Path(__file__).resolve().parents[1]
GREEDY = REPO / "baselines" / "ci-baseline.json"
STRONG = REPO / "baselines" / "ci-strong-baseline.json"
R13_EARLIEST = ('overrides.board.rulings.tie_break="earliest"',)
STRONG_DEALS = 40  # a held-judge mirror game costs about 16 ms: 120 games, about 2 s
GREEDY_DEALS = 600


def _gate(tmp_path, scenario, baseline, games, sets=()):
    out = tmp_path / f"{scenario}-{len(sets)}"
    run_scenario(scenario, out, jobs=1, games=games, sets=sets, force=True, progress=False)
    js = tmp_path / f"{scenario}-{len(sets)}.json"
    r = CliRunner().invoke(cli, ["regress", str(out), "--baseline", str(baseline), "--strict", "--json", str(js)])
    return r, json.loads(js.read_text())


def test_the_strong_gate_is_the_starter_gate_at_strong_play():
    weak, strong = load_scenario("ci"), load_scenario("ci-strong")
    assert registry.get("shuffle-swing").strong_gate_scenario == "ci-strong"
    assert [c.players for c in strong.cells] == [c.players for c in weak.cells] == [2, 3, 4]
    assert {c.lineup for c in strong.cells} == {("search_leaf_held",) * c.players for c in strong.cells}
    assert [c.setting.key for c in strong.cells] == [c.setting.key for c in weak.cells]
    base = read_baseline(STRONG)
    # The committed baseline names its judge and its leaf, and was played with this very file (same
    # seed and deals); the leaf is the shipped file's, per player count.
    assert base["scenario"]["name"] == "ci-strong" and base["run_seed"] == strong.seed
    assert "strategy search_leaf_held" in base["data_files"]
    shipped = load_leaf_model(LEAF_DIR / "tuned.toml")
    for n in (2, 3, 4):
        assert base["data_files"][f"leaf search_leaf_held {n}p"] == coef_sha256(shipped[LEAF_COUNTS.index(n)])
    assert [c["deals"] for c in base["cells"]] == [strong.games] * 3


def test_a_change_that_moves_strong_play_only_is_caught_by_the_strong_gate(tmp_path):
    # Greedy's gate: the tie-break read the other way passes (nothing greedy does moved).
    r, doc = _gate(tmp_path, "ci", GREEDY, GREEDY_DEALS, R13_EARLIEST)
    assert r.exit_code == 0, r.output
    assert doc["counts"]["fail"] == 0
    # The strong gate as shipped replays the baseline's games exactly: every figure passes.
    r, doc = _gate(tmp_path, "ci-strong", STRONG, STRONG_DEALS)
    assert r.exit_code == 0, r.output
    assert doc["counts"]["fail"] == 0 and doc["counts"]["inconclusive"] == 0
    # The same change at strong play: the search players' games change and the gate does not pass.
    r, doc = _gate(tmp_path, "ci-strong", STRONG, STRONG_DEALS, R13_EARLIEST)
    assert r.exit_code == 1, r.output
    moved = [f for f in doc["figures"] if f["verdict"] != "pass" and f["kind"] == "win_rate"]
    assert moved, doc["counts"]
    seats, games, manifest = load_results(tmp_path / "ci-strong-1")
    assert manifest["settings"]["overrides"]
