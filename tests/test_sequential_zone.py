"""The indifference-zone seat verdict (stats/zone.py), the default of a sequential run:
its two errors on synthetic truth at 2, 3 and 4 players, that it always ends, the seat and the
direction it names, its games against the interval design and a fixed count, the one budget of
declared CPU seconds, and a resume with a raised budget."""

import math

import numpy as np
import pytest

from stats import tests as stats
from stats import sequences as SS
from stats import zone as SZ
from scenarios.results import read_manifest
from scenarios.runner import run_scenario
from scenarios.sequential import CellState, allocate, look, parse_sequential
from simulator.validate import Checker

M, D = 0.03, 0.01


def seat_rates(players, dev, seat=-1):
    c = 1.0 / players
    r = np.full(players, (1 - c - dev) / (players - 1))
    r[seat] = c + dev
    return r


def replay(players, rates, reps, look_every, cap, seed, test="zone"):
    """``reps`` synthetic sequences through the run's own look rule (stop at the first decided look):
    verdict codes (1 fair, -1 unfair, 0 open at the cap) and games used."""
    rng = np.random.default_rng(seed)
    nlooks = cap // look_every
    cum = rng.multinomial(look_every, rates, size=(reps, nlooks)).cumsum(axis=1)
    n = np.arange(1, nlooks + 1) * look_every
    if test == "zone":
        code = SZ.verdicts(cum, n[None, :], players, M, D, 0.95)
    else:
        code = SS.verdicts(cum, n[None, :], players, M, 0.95)[0]
    decided = code != 0
    first = np.where(decided.any(axis=1), decided.argmax(axis=1), nlooks - 1)
    return code[np.arange(reps), first], n[first], cum[np.arange(reps), first]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_both_errors_within_alpha_at_the_zone_edges_and_every_sequence_ends(players):
    """A seat at m - d (fair in truth): called unfair at most 5%; at m + d (unfair in truth): called
    fair at most 5% (300 sequences each side of the share, slack 3 points). Every sequence ends
    before a cap of 60,000 deals."""
    for sign in (+1, -1):
        inside, _, _ = replay(players, seat_rates(players, sign * (M - D)), 300, 200, 60000, seed=players + sign)
        outside, _, _ = replay(players, seat_rates(players, sign * (M + D)), 300, 200, 60000, seed=10 * players + sign)
        assert (inside == SZ.UNFAIR).mean() <= 0.05 + 0.03, "false unfair at m - d"
        assert (outside == SZ.FAIR).mean() <= 0.05 + 0.03, "false fair at m + d"
        assert (inside != SZ.OPEN).all() and (outside != SZ.OPEN).all()
    on_edge, used, _ = replay(players, seat_rates(players, M), 300, 200, 60000, seed=99 + players)
    # On the margin itself the walk has no drift: it still ends (all but a rare one by 60,000 deals).
    assert (on_edge != SZ.OPEN).mean() >= 0.99 and used.mean() < 15000


def test_the_named_seat_and_direction_are_right():
    for players, seat, dev in ((3, 0, 0.07), (4, 2, -0.07), (2, 1, 0.07), (2, 0, -0.07)):
        rates = seat_rates(players, dev, seat)
        wins = np.round(rates * 4000)
        z = SZ.cell_test(wins, 4000, players, M, D)
        assert z["code"] == SZ.UNFAIR
        if players == 2:  # said of the seat ahead
            ahead = int(np.argmax(rates))
            assert (z["seat"], z["direction"]) == (ahead, 1)
        else:
            assert (z["seat"], z["direction"]) == (seat, 1 if dev > 0 else -1)
        rec = SS.cell_record(wins, 4000, players, M, test="zone", indifference=D)
        assert rec["verdict"] == stats.UNFAIR and rec["named_seat"] == z["seat"]


def test_the_record_and_the_look_agree_on_random_counts():
    """The runner stops on :func:`look` and the report reads :func:`SS.cell_record`: the same word."""
    rng = np.random.default_rng(5)
    plan = parse_sequential(Checker("x.toml"), {}, [_Cell(0, "greedy", 3, 10**6)], 10**9)
    for _ in range(200):
        players = int(rng.integers(2, 5))
        n = int(rng.integers(50, 20000))
        wins = rng.multinomial(n, seat_rates(players, rng.uniform(-0.08, 0.08)))
        rec = SS.cell_record(wins, n, players, M, test="zone", indifference=D)
        assert look(wins, n, players, plan) == rec["verdict"]
        if not rec["decided"]:
            assert rec["more_games"] is not None and rec["more_games"] >= 0


def test_on_a_mix_with_edge_cells_the_zone_test_plays_fewer_games_than_the_interval_test_and_fixed_n():
    """Mix at 3 players: fair, +1, +2 (near the margin), +3 (on it), +5, +8 pp. The interval design
    cannot decide the edge cell (it plays to its cap); the zone test ends every one, at well under
    half of both the interval design's games and the fixed count that decides +2 pp with 90% power."""
    mix = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08)
    zone, interval = [], []
    for k, dev in enumerate(mix):
        v, used, _ = replay(3, seat_rates(3, dev), 150, 200, 60000, seed=200 + k)
        assert (v != SZ.OPEN).mean() >= 0.99
        if dev <= M - D:
            assert (v == SZ.FAIR).mean() >= 0.9
        if dev >= M + D:
            assert (v == SZ.UNFAIR).mean() >= 0.9
        zone.append(used.mean())
        _, used_i, _ = replay(3, seat_rates(3, dev), 150, 200, 60000, seed=200 + k, test="interval")
        interval.append(used_i.mean())
    fixed = stats.games_for_equivalence(1 / 3 + 0.02, 1 / 3, M, 0.05, power=0.9)
    assert np.mean(zone) <= 0.5 * np.mean(interval)
    assert np.mean(zone) <= 0.5 * fixed  # the fixed count for +2 pp alone is more than twice the zone test mean


def test_intervals_are_simultaneous_over_the_seats_and_the_gap_comes_from_them():
    wins, n = np.array([260, 240, 250, 250]), 1000
    rec = SS.cell_record(wins, n, 4, M, test="zone", indifference=D)
    lo1, hi1 = SS.confidence_sequence(260.0, n, SS.prior_strength(4, M, 0.95), 0.95)
    s0 = rec["seats"][0]
    assert s0["sim_lo"] < lo1 and s0["sim_hi"] > hi1  # wider than one seat's own 95% sequence
    assert math.isclose(rec["level"], 1 - 0.05 / 4)
    los, his = [s["sim_lo"] for s in rec["seats"]], [s["sim_hi"] for s in rec["seats"]]
    assert rec["gap_lo"] == max(0.0, max(los) - min(his)) and rec["gap_hi"] == max(his) - min(los)
    assert rec["gap_lo"] <= rec["gap"] <= rec["gap_hi"]


def test_on_the_margin_only_with_a_narrow_interval_across_the_edge():
    wide = SS.cell_record(np.array([120, 100, 80]), 300, 3, M, test="zone", indifference=D)  # few games
    assert not wide["decided"] and wide["worst_lo"] < wide["edge"] < wide["worst_hi"]
    assert not wide["on_margin"]
    # 3 players, last seat at the lower edge 30.3%, 40,000 deals: narrow and across the edge. Read at
    # this one count the zone test may still be open (its walk has no drift on the margin itself; a
    # run looking every round ends it): then, and only then, it is on the margin.
    edge = SS.cell_record(np.array([13934, 13933, 12133]), 40000, 3, M, test="zone", indifference=D)
    assert edge["worst_hi"] - edge["worst_lo"] <= M
    assert edge["on_margin"] == (not edge["decided"])
    # The interval test at the same counts cannot decide it: there it is on the margin.
    old = SS.cell_record(np.array([13600, 14280, 12120]), 40000, 3, M, test="interval")
    assert not old["decided"] and old["on_margin"] and old["worst_hi"] - old["worst_lo"] <= M


# =========================================================================== the one budget


class _Cell:
    def __init__(self, index, judge, players, games):
        self.index, self.lineup, self.players, self.games = index, (judge,) * players, players, games


def test_one_budget_of_declared_seconds_goes_to_the_cheapest_decision_first():
    cells = [_Cell(0, "greedy", 3, 100000), _Cell(1, "deep", 3, 100000), _Cell(2, "deep", 4, 100000)]
    raw = {"seconds": 30, "cost": {"greedy": 1.0, "deep": 100.0}, "round": {"greedy": 1000, "deep": 100}}
    plan = parse_sequential(Checker("x.toml"), raw, cells, 10**9)
    assert plan.strong == ("deep", "greedy") and plan.price("deep") == 0.1
    states = [CellState(c) for c in cells]
    alloc = allocate(states, plan, {"greedy": 0, "deep": 0}, 0.0)
    # greedy's projected decision is 100 times cheaper: served first, a full round; deep's cells
    # share the rest (29 s = 290 deep games), the cheaper projection first.
    assert alloc[0] == 1000
    assert sum(alloc.get(i, 0) for i in (1, 2)) * 0.1 + 1000 * 0.001 <= 30 + 1e-9
    again = allocate([CellState(c) for c in cells], plan, {"greedy": 0, "deep": 0}, 0.0)
    assert again == alloc  # a function of the states only
    # Spent: nothing more is given, and every open cell stops with the reason.
    states = [CellState(c) for c in cells]
    assert allocate(states, plan, {"greedy": 0, "deep": 0}, 30.0) == {}
    assert {s.stop for s in states} == {"seconds"}


def test_ties_go_to_the_strongest_judge():
    cells = [_Cell(0, "greedy", 3, 100000), _Cell(1, "search", 3, 100000)]
    raw = {"seconds": 0.5, "cost": {"greedy": 1.0, "search": 1.0}, "round": 1000, "strong": ["search", "greedy"]}
    plan = parse_sequential(Checker("x.toml"), raw, cells, 10**9)
    alloc = allocate([CellState(c) for c in cells], plan, {"greedy": 0, "search": 0}, 0.0)
    assert alloc == {1: 500}


SEQ = """\
name = "zone"
seed = 11
games = 20000
players = [2, 3]

[instruments]
sets = [["Violin", "Piano", "Horns"]]

[lineup]
mirror = ["greedy"]

[sequential]
round = 400
seconds = 0.8
cost = { greedy = 1.0 }
"""


def test_a_resume_with_a_raised_budget_continues_the_same_sequence(tmp_path):
    p = tmp_path / "zone.toml"
    p.write_text(SEQ)
    out = tmp_path / "out"
    run_scenario(p, out, jobs=1, progress=False)
    small = read_manifest(out)
    assert sum(r["games"] for r in small["sequential"]["cells"]) <= 800
    assert any(r["stop"] == "seconds" for r in small["sequential"]["cells"])
    from scenarios.load import load_scenario

    raised = load_scenario(p, sets=["sequential.seconds=60"])
    assert raised.sha256 != small["scenario"]["sha256"]
    run_scenario(p, out, jobs=1, resume=True, progress=False, sets=["sequential.seconds=60"])
    big = read_manifest(out)
    n = len(small["sequential"]["rounds"])
    assert big["sequential"]["rounds"][:n] == small["sequential"]["rounds"]
    assert len(big["sequential"]["rounds"]) > n
    assert all(r["stop"] == "decided" for r in big["sequential"]["cells"])
    assert big["sequential"]["budgets"][0]["seconds"] == 0.8
    # The same run with the large budget from the start plays the same games once the small budget
    # stopped binding: every decided cell ends with the verdict the resumed run reached.
    ref = tmp_path / "ref"
    run_scenario(p, ref, jobs=2, progress=False, sets=["sequential.seconds=60"])
    assert [r["verdict"] for r in read_manifest(ref)["sequential"]["cells"]] == [
        r["verdict"] for r in big["sequential"]["cells"]
    ]


def test_bad_zone_keys_name_the_key(tmp_path):
    from scenarios.load import load_scenario
    from simulator.errors import DataError

    p = tmp_path / "zone.toml"
    p.write_text(SEQ)
    with pytest.raises(DataError, match="sequential.test: expected one of 'zone', 'interval', got 'sprt'"):
        load_scenario(p, sets=['sequential.test="sprt"'])
    with pytest.raises(DataError, match="sequential.indifference: 0.05 must be below the margin 0.03"):
        load_scenario(p, sets=["sequential.indifference=0.05"])
    with pytest.raises(DataError, match="sequential.cost.greedy: expected a number"):
        load_scenario(p, sets=["sequential.cost.greedy=-1"])
    # A strategy of the game the scenario does not play: priced (a proof may play it), a name the game
    # does not know: refused.
    sc = load_scenario(p, sets=["sequential.cost.search_deep=50"])
    assert sc.sequential.cost == {"greedy": 1.0, "search_deep": 50.0}
    with pytest.raises(DataError, match="sequential.cost.deep: 'deep' is neither a judge"):
        load_scenario(p, sets=["sequential.cost.deep=50"])


def test_a_budget_of_seconds_stops_at_the_same_points_whatever_the_workers(tmp_path):
    p = tmp_path / "zone.toml"
    p.write_text(SEQ)
    a, b = tmp_path / "a", tmp_path / "b"
    run_scenario(p, a, jobs=1, progress=False, sets=["sequential.seconds=3"])
    run_scenario(p, b, jobs=2, chunk_size=70, progress=False, sets=["sequential.seconds=3"])
    ma, mb = read_manifest(a), read_manifest(b)
    keep = ("cell", "verdict", "games", "looks", "stop")
    assert [{k: r[k] for k in keep} for r in ma["sequential"]["cells"]] == [
        {k: r[k] for k in keep} for r in mb["sequential"]["cells"]]
    assert ma["sequential"]["seconds_spent"] == mb["sequential"]["seconds_spent"] <= 3
    # The report reads the same run: the zone reading, every undecided cell says the seconds ran out,
    # and the intervals are the sequences (the gap's from the seats').
    from reports.headline import headline_table
    from reports.io import from_frames
    from reports.seats import seat_advantage
    from scenarios.results import load_results

    seats, games, manifest = load_results(a)
    adv = seat_advantage(from_frames(seats, games, manifest).games, sequential=manifest["sequential"])
    _, text = headline_table(adv)
    assert "Reading (sequential run, zone test): fair means every seat is shown within 4 points" in text
    for row, rec in zip(adv.cells.itertuples(), manifest["sequential"]["cells"], strict=True):
        assert row.verdict == rec["verdict"] and row.seq_test == "zone"
        assert math.isclose(row.gap_lo, rec["gap_lo"]) and math.isclose(row.gap_hi, rec["gap_hi"])
        if rec["stop"] == "seconds":
            assert "the run's budget of CPU seconds ran out" in row.note
