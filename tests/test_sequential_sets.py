"""Instrument verdicts decided sequentially (scenarios/sequential_sets.py, stats/paired.py): the confidence sequence
of a mean difference holds at every look, both errors of the zone verdict stay within alpha at the
zone's edges (normal differences like objective points, three-valued ones like a seat's win), every
sequence ends, the expected stop and its projection, the family of one verdict, which sets can be
judged, and a sequential expansion run (decided sets, the reference, determinism, resume)."""

import math

import numpy as np
import pytest

from scenarios import sequential_sets as SQS
from stats import paired

ALPHA = 0.05


def normal(rng, mu, sd, reps, deals):
    return rng.normal(mu, sd, size=(reps, deals, 1))


def three_valued(rng, mu, reps, deals, spread=0.25):
    """Differences of two win indicators on the same deal: +1, -1 or 0, mean ``mu`` (the seat moved
    by ``mu``), P(+1) + P(-1) = ``spread`` (the share of deals where the two sets' winners differ)."""
    up = (spread + mu) / 2
    u = rng.random((reps, deals, 1))
    return np.where(u < up, 1.0, np.where(u < spread, -1.0, 0.0))


def test_the_confidence_sequence_holds_at_every_look_at_once():
    """400 sequences of 10,000 skewed differences (exponential, mean 3): the truth is outside the
    interval at some look (every 100 deals) in at most alpha of them (slack 3 points)."""
    rng = np.random.default_rng(31)
    x = rng.exponential(3.0, size=(400, 10000))
    n = np.arange(100, 10001, 100)
    s1 = np.cumsum(x, axis=1)[:, n - 1]
    s2 = np.cumsum(x * x, axis=1)[:, n - 1]
    mean = s1 / n
    sd = np.sqrt((s2 / n - mean**2) * n / (n - 1))
    w = paired.half_width(sd, n, ALPHA)
    missed = (np.abs(mean - 3.0) > w).any(axis=1)
    assert missed.mean() <= ALPHA + 0.03
    assert np.all(np.diff(w.mean(axis=0)) < 0)  # it narrows as the deals grow


@pytest.mark.parametrize("kind", ["normal", "three-valued"])
def test_both_errors_within_alpha_at_the_zone_edges_and_every_sequence_ends(kind):
    """Truth at m - z (in line in truth): called out of line at most 5%; at m + z (out of line in
    truth): called in line at most 5% (300 sequences each, slack 3 points). Every sequence ends."""
    rng = np.random.default_rng(7 if kind == "normal" else 8)
    m, z = (5.0, 1.0) if kind == "normal" else (0.05, 0.01)
    zone = z / m
    deals = 40000 if kind == "normal" else 60000

    def draw(mu):
        return normal(rng, mu, 12.0, 300, deals) if kind == "normal" else three_valued(rng, mu, 300, deals)

    for sign in (+1, -1):
        inside, _ = paired.replay(draw(sign * (m - z)), [m], 200, zone)
        outside, _ = paired.replay(draw(sign * (m + z)), [m], 200, zone)
        assert (inside == 1).mean() <= ALPHA + 0.03, "false out of line at m - z"
        assert (outside == -1).mean() <= ALPHA + 0.03, "false in line at m + z"
        assert (inside != 0).all() and (outside != 0).all()


def test_the_expected_stop_is_largest_on_the_margin_and_the_projection_follows_it():
    """Objective-points-like differences (sd 12, margin 5, zone 1 point): the mean deals to stop are
    largest with the truth on the margin, small far from it, and the planning projection
    (:func:`deals_to_decide` at the truth) is within a factor 2 of the simulated mean."""
    rng = np.random.default_rng(5)
    means = {}
    for mu in (0.0, 4.0, 5.0, 6.0, 10.0):
        code, used = paired.replay(normal(rng, mu, 12.0, 200, 30000), [5.0], 100, 0.2)
        assert (code != 0).all()
        means[mu] = used.mean()
        proj = paired.deals_to_decide([mu], [12.0], 0, [5.0], 0.2)
        assert 0.5 * means[mu] <= proj <= 2.0 * means[mu] + 200, (mu, proj, means[mu])
    assert means[5.0] == max(means.values())
    assert means[10.0] < 500 and means[0.0] < 1000


def test_the_family_of_one_verdict_and_a_twin():
    """K measures, each interval at alpha / K; one measure out: out of line; all within m + z: in
    line; a twin (every difference 0) reads in line at its first look."""
    res = paired.verdict([0.1, 30.0, 0.0], [5.0, 5.0, 0.2], 2000, [5.0, 5.0, 0.1])
    assert res["verdict"] == paired.OUT and res["worst"] == 1 and math.isclose(res["alpha_each"], ALPHA / 3)
    w1 = paired.half_width(5.0, 2000, ALPHA / 3)
    assert math.isclose(res["hi"][0] - res["lo"][0], 2 * w1)
    twin = paired.verdict(np.zeros(8), np.zeros(8), paired.MIN_LOOK, [5, 2, 0.1, 1, 0.05, 0.05, 0.05, 0.05])
    assert twin["verdict"] == paired.IN_LINE
    early = paired.verdict([30.0], [1.0], paired.MIN_LOOK - 1, [5.0])
    assert early["verdict"] == paired.OPEN  # no verdict before MIN_LOOK deals
    near = paired.verdict([5.0], [12.0], 300, [5.0])
    assert near["verdict"] == paired.OPEN


class _Cell:
    def __init__(self, index, players, instruments, judge, games=4000):
        self.index, self.players, self.instruments, self.lineup = index, players, instruments, (judge,) * players
        self.games = games


def _judge(c):
    return c.lineup[0]


def test_each_set_is_judged_against_its_groups_first_set_and_a_grid_is_refused():
    base = ("Violin", "Piano", "Horns")
    cells = [_Cell(0, 4, base, "greedy"), _Cell(1, 4, ("Violin", "Organ", "Horns"), "greedy"),
             _Cell(2, 4, ("Banjo", "Piano", "Horns"), "greedy"), _Cell(3, 4, base, "search"),
             _Cell(4, 4, ("Violin", "Organ", "Horns"), "search"), _Cell(5, 4, ("Banjo", "Organ", "Horns"), "greedy")]
    units, refs, refused = SQS.units(cells, _judge)
    assert [(u.cell, u.reference, u.dept, u.instrument) for u in units] == [
        (1, 0, 1, "Organ"), (2, 0, 0, "Banjo"), (4, 3, 1, "Organ")]
    assert refs == {(4, "greedy"): 0, (4, "search"): 3} and refused == [(5, 2)]


# =========================================================================== runs

TWIN = """\
name = "orange-twin-seq"
seed = 11
games = 3000
players = {players}
instrument_dirs = ["twin"]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Violin", "Organ", "Horns"], ["Violin", "Piano Twin", "Horns"]]

[lineup]
mirror = {mirror}
max_games = {{ search = 400 }}

[sequential]
verdicts = ["instruments"]
round = {{ {round} }}
cost = {{ greedy = 0.3, search = 17.0 }}
"""


def _twin_scenario(tmp_path, players, mirror):
    from pathlib import Path

    from simulator.shuffle_swing.board import DATA_DIR

    (tmp_path / "twin").mkdir(exist_ok=True)
    text = (Path(DATA_DIR) / "instruments" / "piano.toml").read_text()
    (tmp_path / "twin" / "twin.toml").write_text(text.replace('name = "Piano"', 'name = "Piano Twin"'))
    sc = tmp_path / "twin.toml"
    rounds = ", ".join(f"{j} = {r}" for j, r in (("greedy", 400), ("search", 100)) if f'"{j}"' in mirror)
    sc.write_text(TWIN.format(players=players, mirror=mirror, round=rounds))  # round names the judges played
    return sc


def _sets(out):
    from scenarios.results import read_manifest

    return read_manifest(out)["sequential"]["sets"]


def test_a_twin_reads_in_line_at_every_player_count_for_every_judge_and_the_report_agrees(tmp_path):
    """An exact copy of Piano (the reference) plays Piano's games deal by deal: in line, at 2, 3 and 4
    players, for greedy and search; Organ out of line on objective points; the
    reference stops once both are decided; the report judges the tables with the same test and
    reaches the records' verdicts."""
    from reports.instrument_verdicts import instrument_verdicts
    from scenarios.results import load_results, read_manifest
    from scenarios.runner import run_scenario

    sc = _twin_scenario(tmp_path, "[2, 3, 4]", '["greedy", "search"]')
    run_scenario(sc, tmp_path / "run", jobs=2, progress=False)
    recs = _sets(tmp_path / "run")
    assert len(recs) == 12
    for r in recs:
        if r["instrument"] == "Piano Twin":
            # in line at the look that decided it (the finite-sample sequence of the seat and unbuilt
            # measures needs a few hundred deals of zero differences, where the asymptotic one took 100)
            assert r["verdict"] == paired.IN_LINE and r["decided_at"] == r["looks"][-1] == r["deals"], r
            assert r["interval"] == paired.BOUNDED and {b["measure"] for b in r["bounded"]} >= {"seat_win"}, r
            assert r["effect"] == 0.0
        else:
            assert r["verdict"] == paired.OUT and r["measure"] in ("objective_points", "winner_points"), r
            assert r["effect"] > 10, r
    m = read_manifest(tmp_path / "run")
    cells = {r["cell"]: r for r in m["sequential"]["cells"]}
    refs = {r["reference"] for r in recs}
    assert all(cells[c]["stop"] == SQS.STOP_REFERENCE for c in refs)
    assert all(cells[r["cell"]]["stop"] == SQS.STOP_SET for r in recs)
    seats, games, manifest = load_results(tmp_path / "run")
    from reports.io import from_frames

    iv = instrument_verdicts(*([from_frames(seats, games, manifest)] * 2))
    v = iv.verdicts.set_index(["instrument", "players", "lineup"])
    for r in recs:
        row = v.loc[(r["instrument"], r["players"], ",".join([r["judge"]] * r["players"]))]
        assert row["verdict"] == {"in line": "in line", "out of line": "out of line"}[r["verdict"]]
        assert row["deals"] == r["deals"] and row["seq_note"] == f"decided after {r['deals']:,} deals"


def test_stopping_points_do_not_depend_on_workers_or_chunks_and_a_resume_goes_on(tmp_path):
    """The same scenario with 1 worker and with 2 workers and chunks of 70 deals stops every set at the
    same look with the same verdict; a run cut short by its seconds and resumed with more seconds goes
    on from its recorded looks until every set is decided."""
    from scenarios.runner import run_scenario

    sc = _twin_scenario(tmp_path, "[3]", '["greedy"]')
    sc.write_text(sc.read_text().replace('"Piano Twin", "Horns"]]', '"Piano Twin", "Horns"], ["Violin", "Vibes", "Horns"],'
                                         ' ["Violin", "Harp", "Horns"]]'))
    run_scenario(sc, tmp_path / "a", jobs=1, progress=False)
    run_scenario(sc, tmp_path / "b", jobs=2, chunk_size=70, progress=False)
    assert _sets(tmp_path / "a") == _sets(tmp_path / "b")
    short = sc.read_text().replace('verdicts = ["instruments"]', 'verdicts = ["instruments"]\nseconds = 0.05')
    sc.write_text(short)
    run_scenario(sc, tmp_path / "c", jobs=1, progress=False)
    cut = _sets(tmp_path / "c")
    assert any(r["stop"] == "seconds" for r in cut)
    sc.write_text(short.replace("seconds = 0.05", "seconds = 100"))
    run_scenario(sc, tmp_path / "c", jobs=1, resume=True, progress=False)
    done = _sets(tmp_path / "c")
    assert all(r["stop"] == SQS.STOP_SET for r in done)
    assert all(d["looks"][: len(c["looks"])] == c["looks"] for c, d in zip(cut, done, strict=True))


def test_an_open_set_says_why_and_what_would_decide_it():
    from reports.instrument_verdicts import IN_LINE, UNCLEAR, sequential_note, sequential_sets

    rec = {"stop": "seconds", "more_deals": 2400}
    assert sequential_note(UNCLEAR, 3600, rec) == ("open after 3,600 deals: the run's budget of CPU seconds ran out; "
                                                   "about 2,400 more deals would decide it at the current estimates")
    assert sequential_note(UNCLEAR, 900, {"stop": "cap", "more_deals": None}).endswith("its estimate sits on a zone edge")
    assert sequential_note(IN_LINE, 625, rec) == "decided after 625 deals"
    manifest = {"sequential": {"settings": {"verdicts": ["instruments"], "zone": 0.25},
                               "sets": [{"department": "orange", "instrument": "Organ", "players": 3, "judge": "search"}]}}
    seq = sequential_sets(manifest)
    assert seq["zone"] == 0.25 and ("orange", "Organ", 3, "search") in seq["records"]
    assert sequential_sets({"sequential": {"settings": {"verdicts": ["seats"]}}}) is None


def test_bad_keys_name_the_key_and_exit_2(tmp_path):
    """A zone outside (0, 1), both kinds of verdict at once, an unknown interval and a full grid are
    refused, naming the key; the interval defaults to the finite-sample one (stats.paired)."""
    from click.testing import CliRunner

    from scenarios.load import load_scenario
    from simulator.errors import DataError
    from ssb.cli import cli as ssb_main

    sc = _twin_scenario(tmp_path, "[4]", '["greedy"]')
    with pytest.raises(DataError, match=r"sequential.zone: expected a number between 0 and 1"):
        load_scenario(sc, sets=["sequential.zone=2"])
    with pytest.raises(DataError, match="a run stops its cells on one kind of verdict"):
        load_scenario(sc, sets=['sequential.verdicts=["seats", "instruments"]'])
    with pytest.raises(DataError, match=r"sequential.interval: expected one of 'bounded', 'asymptotic', got 'exact'"):
        load_scenario(sc, sets=['sequential.interval="exact"'])
    assert load_scenario(sc, sets=['sequential.interval="asymptotic"']).sequential.interval == paired.ASYMPTOTIC
    assert load_scenario(sc).sequential.interval == paired.BOUNDED
    grid = sc.read_text().replace('["Violin", "Piano Twin", "Horns"]]', '["Banjo", "Organ", "Horns"]]')
    sc.write_text(grid)
    with pytest.raises(DataError, match="differs from its first set in 2 departments"):
        load_scenario(sc)
    result = CliRunner().invoke(ssb_main, ["run", str(sc), "--set", "sequential.zone=0", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{sc}: sequential.zone: expected a number between 0 and 1" in result.output


def test_a_run_decided_by_its_sets_counts_them_in_the_progress_line(tmp_path):
    """Off a terminal the progress line counts the cells decided; in a run decided by its instrument
    sets that is every set decided and every reference whose sets are all decided (here: all 3)."""
    from click.testing import CliRunner

    from ssb.cli import cli as ssb_main

    sc = _twin_scenario(tmp_path, "[2]", '["greedy"]')
    result = CliRunner().invoke(ssb_main, ["run", str(sc), "--out", str(tmp_path / "o"), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "3 of 3 cells decided" in result.output, result.output
    assert "sequential: 2 of 2 instrument verdicts decided (1 in line, 1 out of line)" in result.output
