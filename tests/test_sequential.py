"""Sequential runs: anytime-valid seat verdicts (their errors under optional stopping, measured),
the round scheduler and its budgets, identical stopping points whatever the workers, resume after
an interruption, the report's reading of a sequential run, and bad input."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import scenarios.rundir as runner_mod
from stats import sequences as SS
from stats import tests as stats
from reports.io import from_frames
from reports.seats import seat_advantage
from scenarios.results import RunDirError, load_results, read_manifest
from scenarios.runner import run_scenario
from scenarios.load import load_scenario
from scenarios.sequential import CellState, allocate, parse_sequential
from simulator.errors import DataError
from ssb.cli import cli as ssb_main

SEQ = """\
name = "seq"
seed = 11
games = 3000
players = [2, 3]

[instruments]
sets = [["Violin", "Piano", "Horns"]]

[lineup]
mirror = ["greedy"]

[sequential]
budget = 3600
round = 400
margin = 0.03
"""


@pytest.fixture
def seq(tmp_path):
    p = tmp_path / "seq.toml"
    p.write_text(SEQ)
    return p


def looks_verdicts(players, rates, reps, look, cap, seed, margin=0.03):
    """Replay ``reps`` synthetic sequences through the runner's own look rule (stop at the first
    decided look): verdict codes and games used."""
    rng = np.random.default_rng(seed)
    nlooks = cap // look
    cum = rng.multinomial(look, rates, size=(reps, nlooks)).cumsum(axis=1)
    n = np.arange(1, nlooks + 1) * look
    code = SS.verdicts(cum, n[None, :], players, margin, 0.95)[0]
    decided = code != 0
    first = np.where(decided.any(axis=1), decided.argmax(axis=1), nlooks - 1)
    return code[np.arange(reps), first], n[first]


def seat_rates(players, dev):
    c = 1.0 / players
    r = np.full(players, (1 - c - dev) / (players - 1))
    r[-1] = c + dev
    return r


# =========================================================================== the tests themselves


def test_one_sided_mixture_keeps_its_level_at_every_look():
    """At the null edge, "ever below alpha" over 100 looks stays under alpha (Ville); the fixed-n
    exact test applied at the same looks does not (so this check can tell the two apart)."""
    rng = np.random.default_rng(3)
    p, reps, look, nlooks = 0.53, 400, 50, 100
    cum = rng.binomial(look, p, size=(reps, nlooks)).cumsum(axis=1)
    n = np.arange(1, nlooks + 1) * look
    r = SS.prior_strength(2, 0.03, 0.95)
    ever = (SS.pvalue_below(cum, n, p, r) < 0.05).any(axis=1).mean()
    assert ever <= 0.06
    from scipy import stats as sps

    naive = (sps.binom.cdf(cum, n, p) < 0.05).any(axis=1).mean()
    assert naive > 0.15  # peeking at a fixed-n test inflates its error several-fold


def test_confidence_sequence_covers_uniformly():
    rng = np.random.default_rng(4)
    p, r = 0.25, SS.prior_strength(4, 0.03, 0.95)
    missed = 0
    for _ in range(60):
        wins = np.cumsum(rng.random(4000) < p)
        for t in (100, 400, 1000, 2000, 4000):
            lo, hi = SS.confidence_sequence(float(wins[t - 1]), t, r)
            if not lo <= p <= hi:
                missed += 1
                break
    assert missed / 60 <= 0.1
    lo, hi = SS.confidence_sequence(250.0, 1000, r)
    assert lo < 0.25 < hi and hi - lo < 0.09


@pytest.mark.parametrize("players", [2, 3, 4])
def test_on_the_margin_both_errors_stay_within_five_percent(players):
    """A seat exactly on the margin, looked at every 500 games up to 20,000 as the runner does:
    false balanced and false imbalanced both at most 5% (plus sampling slack of 300 sequences)."""
    for sign in (+1, -1):
        v, _ = looks_verdicts(players, seat_rates(players, sign * 0.03), 300, 500, 20000, seed=players * 10 + sign)
        assert (v == 1).mean() <= 0.05 + 0.03, "false balanced"
        assert (v == -1).mean() <= 0.05 + 0.03, "false imbalanced"


def fixed_n(players, dev, power=0.9, margin=0.03, alpha=0.05):
    """Games the fixed-n design (stats.tests) needs to decide a cell with one seat at 1/N + dev."""
    c = 1.0 / players
    if abs(dev) < margin:
        return stats.games_for_equivalence(c + dev, c, margin, alpha, power=power)
    return stats.games_for_exceedance(c + dev, c + math.copysign(margin, dev), alpha / (2 * players), power=power)


MIX = (0.0, 0.01, 0.05, 0.08)  # fair, close to fair, close beyond the margin, clear


def test_on_a_mix_of_clear_and_close_cells_sequential_plays_at_most_0_65_of_fixed_n():
    """The fixed-n design must choose one count before it knows which cell is which: the count that
    decides the hardest cell of the mix with 90% power. The sequential design decides every cell
    (at least 95% right) with far fewer games on average (the benchmark measures 0.59)."""
    used_all = []
    for dev in MIX:
        v, used = looks_verdicts(3, seat_rates(3, dev), 150, 500, 30000, seed=int(1000 * dev) + 7)
        assert (v == (1 if dev < 0.03 else -1)).mean() >= 0.95
        used_all.append(used.mean())
    fixed = max(fixed_n(3, dev) for dev in MIX)
    assert np.mean(used_all) <= 0.65 * fixed


def test_the_record_says_on_the_margin_and_what_deciding_would_cost():
    clear = SS.cell_record(np.array([6100, 6100, 7800]), 20000, 3)  # last seat 39.0%: +5.7 pp
    assert clear["verdict"] == stats.UNFAIR and clear["more_games"] is None and not clear["on_margin"]
    edge = SS.cell_record(np.array([7000, 6870, 6130]), 20000, 3)  # last seat 30.65%, edge 30.33%
    assert edge["verdict"] == stats.UNDECIDED and edge["worst_seat"] == 2
    assert edge["on_margin"] and abs(edge["worst_rate"] - (1 / 3 - 0.03)) < 0.004
    assert edge["worst_lo"] < edge["edge"] < edge["worst_hi"]
    assert edge["more_games"] is None or edge["more_games"] > 4 * 20000
    edge_capped = SS.cell_record(np.array([7000, 6870, 6130]), 20000, 3, affordable=40000)
    assert edge_capped["on_margin"]
    short = SS.cell_record(np.array([560, 440]), 1000, 2, affordable=40000)  # +6 pp, just too few games
    assert not short["decided"] and short["worst_lo"] < short["edge"]
    assert not short["on_margin"] and 0 < short["more_games"] < 10000


# =========================================================================== the scheduler


class _Cell:
    def __init__(self, index, judge, players, games):
        self.index, self.lineup, self.players, self.games = index, (judge,) * players, players, games


def test_allocate_caps_each_judge_at_its_games_budget(tmp_path):
    """``budget`` (games per judge) is a cap beside the one budget of seconds: a judge's cells play
    until it is spent, then stop with ``budget`` (the seconds budget: tests/test_sequential_zone.py)."""
    from simulator.validate import Checker

    cells = [_Cell(0, "greedy", 2, 10000), _Cell(1, "greedy", 3, 10000), _Cell(2, "search", 2, 4000)]
    plan = parse_sequential(Checker("x.toml"), {"budget": {"greedy": 5000, "search": 900}, "round": 500,
                                                "test": "interval"}, cells, 10**9)
    assert plan.strong == ("search", "greedy")
    states = [CellState(c) for c in cells]
    spent = {"greedy": 0, "search": 0}
    assert allocate(states, plan, spent) == {0: 500, 1: 500, 2: 500}
    states[0].n, states[0].wins = 1000, np.array([560, 440])
    states[1].n, states[1].wins = 1000, np.array([323, 314, 363])
    states[2].n, states[2].wins, spent = 500, np.array([250, 250]), {"greedy": 4700, "search": 500}
    alloc = allocate(states, plan, spent)
    assert alloc[2] == 400 and alloc[0] + alloc.get(1, 0) == 300  # search: 400 left; greedy: 300
    spent = {"greedy": 5000, "search": 900}
    assert allocate(states, plan, spent) == {} and {s.stop for s in states} == {"budget"}


def test_sequential_needs_mirror_lineups_and_known_keys(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(SEQ.replace('mirror = ["greedy"]', 'seats = ["greedy", "random"]').replace("[2, 3]", "[2]"))
    with pytest.raises(DataError, match="sequential: lineup greedy,random is not a mirror"):
        load_scenario(bad)
    with pytest.raises(DataError, match="sequential.budget.search: not a judge"):
        load_scenario(_write(tmp_path, SEQ), sets=["sequential.budget.search=10"])
    with pytest.raises(DataError, match="needs two or more instrument sets"):
        load_scenario(_write(tmp_path, SEQ), sets=['sequential.verdicts=["instruments"]'])
    with pytest.raises(DataError, match=r"sequential.verdicts: 'variants' needs a scenario of variants"):
        load_scenario(_write(tmp_path, SEQ), sets=['sequential.verdicts=["variants"]'])
    with pytest.raises(DataError, match="sequential.round: 0 is below the minimum 1"):
        load_scenario(_write(tmp_path, SEQ), sets=["sequential.round=0"])
    sc = load_scenario(_write(tmp_path, SEQ.split("[sequential]")[0]), sets=["sequential=true"])
    assert sc.sequential.round == {"greedy": 1000} and sc.sequential.budget == {"greedy": 6000}


def _write(tmp_path, text):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return p


def test_ssb_run_bad_sequential_key_exits_2(tmp_path, seq):
    result = CliRunner().invoke(ssb_main, ["run", str(seq), "--set", "sequential.budgt=5", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{seq}: sequential.budgt: unknown key 'budgt'" in result.output


# =========================================================================== runs


def _records(out):
    m = read_manifest(out)
    keep = ("cell", "verdict", "games", "looks", "stop", "decided_at", "on_margin", "more_games")
    return [{k: r[k] for k in keep} for r in m["sequential"]["cells"]]


def test_stopping_points_and_tables_do_not_depend_on_workers_or_chunks(seq, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    run_scenario(seq, a, jobs=1, progress=False)
    run_scenario(seq, b, jobs=2, chunk_size=70, progress=False)
    assert _records(a) == _records(b)
    sa, ga, ma = load_results(a)
    sb, gb, _ = load_results(b)
    pd.testing.assert_frame_equal(sa, sb)
    pd.testing.assert_frame_equal(ga, gb)
    recs = ma["sequential"]["cells"]
    # Every cell stopped for a reason; the looks are the rounds it played; budgets held.
    assert all(r["stop"] in ("decided", "budget", "cap") for r in recs)
    assert all(r["looks"][-1] == r["games"] and r["looks"] == sorted(set(r["looks"])) for r in recs)
    assert all((r["decided_at"] == r["games"]) == (r["stop"] == "decided") for r in recs)
    assert sum(r["games"] for r in recs) <= 3600 and ma["totals"]["games"] == len(ga)
    assert {r["games"] for r in recs} == set(ga.groupby("cell").size())


def test_interrupted_sequence_resumes_exactly(seq, tmp_path, monkeypatch):
    ref, out = tmp_path / "ref", tmp_path / "out"
    run_scenario(seq, ref, jobs=1, chunk_size=150, progress=False)
    real = runner_mod.play_chunk
    calls = []

    def interrupted(task):
        calls.append(task.chunk)
        if len(calls) == 7:  # inside the second round
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(runner_mod, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_scenario(seq, out, jobs=1, chunk_size=150, progress=False)
    monkeypatch.setattr(runner_mod, "play_chunk", real)
    m = read_manifest(out)
    assert m["status"] == "running" and len(m["sequential"]["rounds"]) >= 2
    with pytest.raises(RunDirError, match="--resume"):
        run_scenario(seq, out, jobs=1, progress=False)
    summary = run_scenario(seq, out, jobs=2, resume=True, progress=False)
    assert summary.chunks_skipped == 6
    assert _records(ref) == _records(out)
    pd.testing.assert_frame_equal(load_results(ref)[1], load_results(out)[1])
    again = run_scenario(seq, out, jobs=1, resume=True, progress=False)  # a finished sequence stays put
    assert again.games_played == 0 and _records(ref) == _records(out)


def test_the_report_judges_a_sequential_run_with_its_own_tests(seq, tmp_path):
    out = tmp_path / "r"
    run_scenario(seq, out, jobs=1, progress=False)
    seats, games, manifest = load_results(out)
    run = from_frames(seats, games, manifest)
    adv = seat_advantage(run.games, sequential=manifest["sequential"])
    recs = {r["cell"]: r for r in manifest["sequential"]["cells"]}
    for row, cell in zip(adv.cells.itertuples(), sorted(recs)):
        assert row.verdict == recs[cell]["verdict"]
        assert row.seq_decided == recs[cell]["decided"]
        assert math.isclose(row.seq_lo, recs[cell]["worst_lo"]) and row.seq_note == row.note
    fixed = seat_advantage(run.games)
    assert "seq_note" not in fixed.cells


def test_on_margin_cell_reads_margin_in_the_report():
    """A mirror cell whose last seat sits on the margin edge: the note says so, with its interval."""
    n, rates = 20000, np.array([0.35, 0.3435, 0.3065])
    rng = np.random.default_rng(1)
    winner = rng.choice(3, size=n, p=rates / rates.sum())
    games = pd.DataFrame(
        {
            "players": 3, "inst_black": "Violin", "inst_orange": "Piano", "inst_gray": "Horns",
            "lineup": "greedy,greedy,greedy", "cell": 0, "deal": np.arange(n), "rotation": 0,
            "winner": winner, "tied": 1, "tiebreak": 0,
        }
    )
    seq = {"settings": {"margin": 0.03, "confidence": 0.95}, "cells": [{"cell": 0, "stop": "budget"}]}
    row = seat_advantage(games, sequential=seq).cells.iloc[0]
    assert row.verdict == stats.UNDECIDED and row.seq_stop == "budget"
    assert row.seq_on_margin and "on the 3-point margin" in row.note
    assert json.dumps({"x": row.seq_decided}) == '{"x": false}'
