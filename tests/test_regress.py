"""The balance regression gate: verdict logic on synthetic counts, its false-fail rate (one look and
repeated looks), baselines from hand-made tables, and real runs: an A/A pair passes, a stronger
Horns first award fails and is named."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from statsmodels.stats.multitest import multipletests

from reports.gate.baseline import (
    BaselineError,
    baseline_figures,
    build_baseline,
    figure_table,
    merge_figures,
    read_baseline,
    write_baseline,
)
from reports.gate.regress import (
    C_FAIL,
    C_INCONCLUSIVE,
    C_PASS,
    DEFAULT_MARGINS,
    FAIL,
    INCONCLUSIVE,
    PASS,
    RegressInputError,
    adaptive_regress,
    check_cells,
    compare_tables,
    decide,
    parse_margins,
    sequential_verdicts,
)
from stats.tests import difference, holm_adjusted as holm, margin_tests, mean_and_var
from simulator.seeds import round_seed
from scenarios.results import load_results
from scenarios.runner import run_scenario
from ssb.cli import cli

REPO = Path(__file__).resolve().parent.parent
COMMITTED = REPO / "baselines" / "ci-baseline.json"
HORNS_12 = (
    "overrides.Horns.section.trumpet.score.0.awards=[12,6,2]",
    "overrides.Horns.section.saxophone.score.0.awards=[12,6,2]",
)
ALPHA = 0.05


def moments(values):
    """``(n, sum, sumsq)`` of per-deal values."""
    v = np.asarray(values, dtype=float)
    return len(v), v.sum(), np.square(v).sum()


def table(rows):
    """A figure table from ``(figure, kind, values)`` rows of one cell."""
    out = []
    for fid, kind, values in rows:
        n, s, ss = moments(values)
        out.append(("cell-a", fid, kind, fid, n, s, ss, np.nan, np.nan))
    return pd.DataFrame(out, columns=["cell_key", "figure", "kind", "label", "n", "sum", "sumsq", "count", "trials"])


# =========================================================================== statistics on moments


def test_mean_and_var_match_numpy():
    rng = np.random.default_rng(3)
    y = rng.normal(2.0, 3.0, size=500)
    mean, var_mean = mean_and_var(*moments(y))
    assert mean == pytest.approx(y.mean())
    assert var_mean == pytest.approx(y.var(ddof=1) / len(y))
    assert np.isnan(mean_and_var(1, 2.0, 4.0)[1])  # one deal: no spread estimate


def test_holm_matches_statsmodels_and_vectorises():
    rng = np.random.default_rng(4)
    p = rng.uniform(size=(6, 11)) ** 3
    adj = holm(p)
    for i in range(6):
        np.testing.assert_allclose(adj[i], multipletests(p[i], method="holm")[1])
    np.testing.assert_allclose(holm(p.T, axis=0), adj.T)


def test_margin_tests_pass_fail_and_inconclusive_boundaries():
    m, se, df = 1.0, 0.1, 1e6
    # Well inside the margin: TOST rejects both one-sided nulls.
    pe, pb = margin_tests(0.0, se, df, m)
    assert pe < 1e-10 and pb == pytest.approx(1.0)
    # Just inside: |d| + z(0.95) se < m passes at 0.05, a hair more does not.
    pe_in, _ = margin_tests(m - 1.70 * se, se, df, m)
    pe_out, _ = margin_tests(m - 1.60 * se, se, df, m)
    assert pe_in < ALPHA < pe_out
    # Beyond: |d| - m > z(0.95) se rejects "within"; on the margin itself nothing is shown.
    _, pb_beyond = margin_tests(-(m + 1.70 * se), se, df, m)
    _, pb_edge = margin_tests(m, se, df, m)
    assert pb_beyond < ALPHA and pb_edge == pytest.approx(0.5, abs=1e-6)
    pe_edge, _ = margin_tests(m, se, df, m)
    assert pe_edge == pytest.approx(0.5, abs=1e-6)
    # Margin 0: the beyond test is the ordinary two-sided test.
    _, p0 = margin_tests(0.196, 0.1, 1e9, 0.0)
    assert p0 == pytest.approx(0.05, abs=1e-3)


def test_margin_tests_exact_and_undefined_differences():
    pe, pb = margin_tests([0.0, 0.5, 2.0, 0.0], [0.0, 0.0, 0.0, np.nan], np.inf, 1.0)
    np.testing.assert_array_equal(pe, [0.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(pb, [1.0, 1.0, 0.0, 1.0])


def test_decide_applies_holm_across_figures():
    # Ten figures each at p = 0.01 beyond the margin: none survives Holm at 0.05 (0.01 * 10).
    codes, adj = decide(np.ones(10), np.full(10, 0.01), ALPHA)
    assert (codes == C_INCONCLUSIVE).all() and adj == pytest.approx(np.full(10, 0.1))
    # One strong figure among ten survives (0.001 * 10 = 0.01), and the others do not drag it.
    p = np.full(10, 0.5)
    p[3] = 0.001
    codes, _ = decide(np.full(10, 0.001), p, ALPHA)
    assert codes[3] == C_FAIL and (np.delete(codes, 3) == C_PASS).all()


def test_compare_tables_gives_each_verdict():
    rng = np.random.default_rng(5)
    n = 4000
    base = table(
        [
            ("same", "rounds", rng.normal(30, 4, n)),
            ("moved", "rounds", rng.normal(30, 4, n)),
            ("unclear", "rounds", rng.normal(30, 4, 60)),
            ("seat", "win_rate", rng.binomial(1, 0.25, n)),
        ]
    )
    cur = table(
        [
            ("same", "rounds", rng.normal(30, 4, n)),
            ("moved", "rounds", rng.normal(32, 4, n)),
            ("unclear", "rounds", rng.normal(30.3, 4, 60)),
            ("seat", "win_rate", rng.binomial(1, 0.35, n)),
        ]
    )
    out = compare_tables(base, cur).set_index("figure")
    assert out.loc["same", "verdict"] == PASS
    assert out.loc["moved", "verdict"] == FAIL
    assert out.loc["unclear", "verdict"] == INCONCLUSIVE
    assert out.loc["seat", "verdict"] == FAIL  # 10 pp against a 3 pp margin
    assert out.loc["seat", "margin"] == DEFAULT_MARGINS["win_rate"]
    lo, hi = out.loc["moved", ["ci_low", "ci_high"]]
    assert lo < out.loc["moved", "change"] < hi and lo > DEFAULT_MARGINS["rounds"]


def test_parse_margins_reads_rates_in_points():
    m = parse_margins(["win_rate=2", "rounds=1"])
    assert m["win_rate"] == pytest.approx(0.02) and m["rounds"] == 1.0
    assert m["objective_points"] == DEFAULT_MARGINS["objective_points"]
    for bad in ("speed=3", "win_rate", "rounds=-1", "rounds=x"):
        with pytest.raises(RegressInputError):
            parse_margins([bad])


def test_check_cells_explains_a_baseline_of_other_cells():
    doc = {"scenario": {"name": "ci"}, "cells": [{"cell_key": "players=4|a"}]}
    check_cells(doc, ["players=4|a"])
    with pytest.raises(RegressInputError, match="only in the baseline: players=4\\|a.*only in the run: players=2\\|b"):
        check_cells(doc, ["players=2|b"])


# =========================================================================== false-fail rates (synthetic, vectorised)


def _normal_moments(rng, mu, sigma, n, shape):
    """Exact sufficient statistics of n normal per-deal values: mean ~ N, (n-1) s^2 ~ chi^2."""
    mean = rng.normal(mu, sigma / np.sqrt(n), size=shape)
    var = sigma**2 * rng.chisquare(n - 1, size=shape) / (n - 1)
    return np.full(shape, float(n)), n * mean, (n - 1) * var + n * mean**2


def _bernoulli_moments(rng, p, n, shape):
    k = rng.binomial(n, p, size=shape).astype(float)
    return np.full(shape, float(n)), k, k


def _add(a, b):
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _rate(codes, verdict=C_FAIL):
    """Share of replications (rows) with at least one figure of that verdict, and its standard error."""
    r = (codes == verdict).any(axis=-1).mean()
    return r, np.sqrt(max(r * (1 - r), 1e-4) / codes.shape[0])


def test_false_fail_rate_at_most_alpha_in_one_look():
    rng = np.random.default_rng(11)
    reps, figs, n, sigma, m = 20000, 12, 2000, 3.0, 0.4
    base = _normal_moments(rng, 10.0, sigma, n, (reps, figs))
    # A/A: nothing moved. Practically never fails, and passes almost every figure.
    aa = _normal_moments(rng, 10.0, sigma, n, (reps, figs))
    codes, _ = sequential_verdicts(base, [aa], m, ALPHA)
    assert _rate(codes)[0] < 0.001
    assert (codes == C_PASS).mean() > 0.95
    # Least favourable: every figure moved by exactly its margin. Holm keeps the rate at alpha.
    edge = _normal_moments(rng, 10.0 + m, sigma, n, (reps, figs))
    codes, _ = sequential_verdicts(base, [edge], m, ALPHA)
    rate, se = _rate(codes)
    assert 0.02 < rate <= ALPHA + 3 * se
    # Win-rate-like figures (Bernoulli per deal) at the edge of a 3 pp margin.
    b = _bernoulli_moments(rng, 0.25, n, (reps, 4))
    c = _bernoulli_moments(rng, 0.28, n, (reps, 4))
    codes, _ = sequential_verdicts(b, [c], 0.03, ALPHA)
    rate, se = _rate(codes)
    assert rate <= ALPHA + 3 * se


def _looks(rng, mu, sigma, n_first, n_round, k, shape):
    """Cumulative moments at each of k looks: a first sample, then k-1 rounds of fresh deals."""
    cur = _normal_moments(rng, mu, sigma, n_first, shape)
    out = [cur]
    for _ in range(k - 1):
        cur = _add(cur, _normal_moments(rng, mu, sigma, n_round, shape))
        out.append(cur)
    return out


def test_false_fail_rate_at_most_alpha_over_repeated_looks():
    rng = np.random.default_rng(12)
    reps, figs, k, sigma, m = 20000, 6, 4, 3.0, 0.4
    base = _normal_moments(rng, 10.0, sigma, 2000, (reps, figs))
    edge = _looks(rng, 10.0 + m, sigma, 500, 1000, k, (reps, figs))
    codes, decided_at = sequential_verdicts(base, edge, m, ALPHA, looks=k)
    rate, se = _rate(codes)
    assert rate <= ALPHA + 3 * se
    # Looking k times at the full alpha each time (no split) is what the split prevents.
    naive = None
    for cur in edge:
        d, s, df = difference(base, cur)
        pe, pb = margin_tests(d, s, df, m)
        new, _ = decide(pe, pb, ALPHA)
        naive = new if naive is None else np.where(naive == C_INCONCLUSIVE, new, naive)
    assert _rate(naive)[0] > ALPHA + 3 * se
    # Decisions happen at every look, and the A/A case still passes nearly everything in the end.
    assert set(np.unique(decided_at)) >= {1, 2}
    aa = _looks(rng, 10.0, sigma, 500, 1000, k, (reps, figs))
    codes, _ = sequential_verdicts(base, aa, m, ALPHA, looks=k)
    assert _rate(codes)[0] < 0.001 and (codes == C_PASS).mean() > 0.9


def test_sequential_refuses_more_looks_than_planned():
    rng = np.random.default_rng(1)
    base = _normal_moments(rng, 0, 1, 10, (2,))
    with pytest.raises(ValueError):
        sequential_verdicts(base, [base, base, base], 0.1, ALPHA, looks=2)


# =========================================================================== adaptive rounds (synthetic player)


def test_adaptive_regress_plays_only_open_cells_within_budget():
    rng = np.random.default_rng(21)
    base = pd.concat(
        [
            table([("rounds", "rounds", rng.normal(30, 4, 4000))]).assign(cell_key="open"),
            table([("rounds", "rounds", rng.normal(30, 4, 4000))]).assign(cell_key="done"),
        ],
        ignore_index=True,
    )
    cur = pd.concat(
        [
            table([("rounds", "rounds", rng.normal(30, 4, 40))]).assign(cell_key="open"),
            table([("rounds", "rounds", rng.normal(30, 4, 4000))]).assign(cell_key="done"),
        ],
        ignore_index=True,
    )
    calls = []

    def play_more(plan, round_index):
        calls.append((dict(plan), round_index))
        assert set(plan) == {"open"} and all(g % 4 == 0 for g in plan.values())
        return table([("rounds", "rounds", rng.normal(30, 4, plan["open"] // 4))]).assign(cell_key="open")

    out, info = adaptive_regress(
        base, cur, play_more, budget=12000, deal_games={"open": 4, "done": 4}, looks=4, alpha=ALPHA
    )
    by = out.set_index("cell_key")
    assert by.loc["done", "verdict"] == PASS and by.loc["done", "look"] == 1
    assert by.loc["open", "verdict"] == PASS and by.loc["open", "look"] >= 2
    assert info["games"] <= 12000 and info["level"] == pytest.approx(ALPHA / 4)
    assert [r for _, r in calls] == list(range(1, len(calls) + 1))


def test_round_seeds_are_fresh():
    seeds = {round_seed(7, r) for r in range(1, 50)}
    assert len(seeds) == 49 and 7 not in seeds
    assert round_seed(7, 1) != round_seed(8, 1)
    assert all(0 <= s < 2**63 for s in seeds)


# =========================================================================== baselines from hand-made tables


def _hand_tables():
    """One 2-player cell, 3 deals x 2 rotations, lineup greedy,random."""
    key = "players=2|black=Violin|orange=Piano|gray=Horns|lineup=greedy,random"
    games, seats = [], []
    winners = [0, 1, 0, 0, 1, 1]
    for game, w in enumerate(winners):
        deal, rot = divmod(game, 2)
        common = {
            "cell": 0,
            "cell_key": key,
            "players": 2,
            "inst_black": "Violin",
            "inst_orange": "Piano",
            "inst_gray": "Horns",
            "lineup": "greedy,random",
            "deal": deal,
            "rotation": rot,
            "game": game,
            "seed": deal,
        }
        games.append({**common, "rounds": 30 + game, "built_black": game % 2, "built_orange": 1, "built_gray": 0})
        for seat in range(2):
            strategy = ["greedy", "random"][(seat - rot) % 2]
            seats.append(
                {
                    **common,
                    "seat": seat,
                    "strategy": strategy,
                    "won": int(seat == w),
                    "score": 100 if seat == w else 60,
                    "objective_black": seat + 1,
                    "objective_orange": 2,
                    "objective_gray": game,
                }
            )
    return pd.DataFrame(seats), pd.DataFrame(games)


def test_figure_table_on_hand_made_tables():
    seats, games = _hand_tables()
    t = figure_table(seats, games).set_index("figure")
    assert list(t["n"].unique()) == [3]  # three deals, the unit of the tests
    assert t.loc["win_rate.seat0", "sum"] == pytest.approx(0.5 + 1.0 + 0.0)  # seat 0 won games 0, 2, 3
    assert t.loc["win_rate.seat0", "count"] == 3 and t.loc["win_rate.seat0", "trials"] == 6
    # greedy sits at seat 0 in rotation 0 and at seat 1 in rotation 1: it won games 0, 1, 2 and 5
    greedy_wins = [1, 1, 1, 0, 0, 1]
    assert t.loc["win_rate.greedy", "count"] == sum(greedy_wins)
    assert t.loc["objective_points.black", "sum"] == pytest.approx(3 * 3.0)
    assert t.loc["objective_points.gray", "sum"] == pytest.approx(sum((2 * g + 2 * g + 2) / 2 for g in (0, 2, 4)))
    assert t.loc["build_rate.black", "sum"] == pytest.approx(1.5)
    assert t.loc["score_spread", "sum"] == pytest.approx(3 * 20.0)
    assert t.loc["rounds", "sumsq"] == pytest.approx(30.5**2 + 32.5**2 + 34.5**2)


def test_merge_figures_adds_independent_deals():
    seats, games = _hand_tables()
    first = figure_table(seats[seats.deal < 2], games[games.deal < 2])
    rest = figure_table(seats[seats.deal >= 2], games[games.deal >= 2])
    whole = figure_table(seats, games)
    merged = merge_figures(first, rest)
    pd.testing.assert_frame_equal(merged.reset_index(drop=True), whole.reset_index(drop=True), check_dtype=False)


def test_baseline_round_trip(tmp_path):
    seats, games = _hand_tables()
    manifest = {
        "format_version": 1,
        "scenario": {"name": "hand", "sha256": "x", "text": 'name = "hand"\nseed = 1\n'},
        "run_seed": 1,
        "settings": {},
        "data_files": {},
        "code": {},
        "cells": [{"cell": 0, "cell_key": games.cell_key[0], "players": 2}],
    }
    doc = build_baseline(seats, games, manifest)
    write_baseline(doc, tmp_path / "b.json")
    back = read_baseline(tmp_path / "b.json")
    pd.testing.assert_frame_equal(baseline_figures(back), figure_table(seats, games), check_dtype=False)
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(BaselineError):
        read_baseline(tmp_path / "bad.json")
    with pytest.raises(BaselineError):
        read_baseline(tmp_path / "missing.json")


# =========================================================================== real runs


def _run(path, games=None, seed=None, sets=()):
    run_scenario("ci", path, jobs=1, games=games, seed=seed, sets=sets, force=True, progress=False)
    return path


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    """Small ci runs (600 games per cell): a baseline, an A/A partner on other deals, and a stronger
    Horns first award on the baseline's own deals (paired)."""
    root = tmp_path_factory.mktemp("regress")
    base = _run(root / "base", games=600, seed=101)
    aa = _run(root / "aa", games=600, seed=202)
    horns = _run(root / "horns", games=600, seed=101, sets=HORNS_12)
    out = root / "base.json"
    result = CliRunner().invoke(cli, ["baseline", str(base), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return {"root": root, "baseline": out, "aa": aa, "horns": horns}


def _regress(*args):
    return CliRunner().invoke(cli, ["regress", *map(str, args)])


def test_aa_other_seed_passes(small_runs):
    md, js = small_runs["root"] / "aa.md", small_runs["root"] / "aa.json"
    r = _regress(small_runs["aa"], "--baseline", small_runs["baseline"], "--summary-md", md, "--json", js)
    doc = json.loads(js.read_text())
    assert doc["counts"]["fail"] == 0
    assert doc["counts"]["pass"] > 0  # at 600 deals a side some figures may stay open; none may fail
    assert doc["paired"]["figures"] == 0  # other deals: independent samples
    text = md.read_text()
    assert "nothing: same data files" in text
    # An open figure is reported as not shown, never as a pass; it fails only with --strict.
    if doc["counts"]["inconclusive"]:
        assert r.exit_code == 0 and "Balance regression: UNDECIDED" in text
        strict = _regress(small_runs["aa"], "--baseline", small_runs["baseline"], "--strict")
        assert strict.exit_code == 1 and "UNDECIDED" in strict.output
    else:
        assert r.exit_code == 0 and "Balance regression: PASS" in text


def test_stronger_horns_award_fails_and_is_named(small_runs):
    md = small_runs["root"] / "horns.md"
    js = small_runs["root"] / "horns.json"
    r = _regress(small_runs["horns"], "--baseline", small_runs["baseline"], "--summary-md", md, "--json", js)
    assert r.exit_code == 1, r.output
    text = md.read_text()
    assert "Balance regression: FAIL" in text
    assert "compared deal by deal on the same 600 deals" in text
    assert "[horns/report/report.html](horns/report/report.html)" in text  # the run's own report
    doc = json.loads(js.read_text())
    assert doc["paired"]["figures"] == doc["paired"]["of"] > 0
    # The interval shown is the one the verdict used: a fail's interval lies beyond its margin.
    for f in doc["figures"]:
        if f["verdict"] == "fail":
            assert f["ci_low"] > f["margin"] or f["ci_high"] < -f["margin"]
        if f["verdict"] == "pass":
            assert -f["margin"] < f["ci_low"] and f["ci_high"] < f["margin"]
    moved = text.split("### Moved beyond the margin", 1)[1].split("###", 1)[0]
    assert "objective points per game, gray (Horns)" in moved
    assert "Horns.section.trumpet.score.0.awards = [12, 6, 2]" in text  # the override is named
    # warn mode reports the same and exits 0
    r = _regress(small_runs["horns"], "--baseline", small_runs["baseline"], "--mode", "warn")
    assert r.exit_code == 0 and "WARN" in r.output and "objective points per game, gray (Horns)" in r.output


def test_changed_data_file_is_named(small_runs, tmp_path):
    doc = json.loads(small_runs["baseline"].read_text())
    doc["data_files"]["instrument Horns"] = "0" * 64
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))
    md = tmp_path / "s.md"
    r = _regress(small_runs["aa"], "--baseline", edited, "--summary-md", md)
    assert r.exit_code == 0, r.output
    assert "data file **instrument Horns** (`simulator/shuffle_swing/data/instruments/horns.toml`): changed" in md.read_text()


def test_baseline_of_other_cells_is_a_user_error(small_runs, tmp_path):
    other = _run(tmp_path / "other", games=8, sets=('instruments.sets=[["Bass", "Piano", "Horns"]]',))
    r = _regress(other, "--baseline", small_runs["baseline"])
    assert r.exit_code == 2
    assert "do not hold the same cells" in r.output and "black=Bass" in r.output
    assert _regress(small_runs["aa"], "--baseline", tmp_path / "none.json").exit_code == 2
    assert _regress(small_runs["aa"], "--baseline", small_runs["baseline"], "--margin", "speed=1").exit_code == 2
    r = CliRunner().invoke(cli, ["baseline", str(tmp_path / "nowhere"), "-o", str(tmp_path / "x.json")])
    assert r.exit_code == 2


def test_adaptive_plays_fresh_rounds_and_merges_them(small_runs, tmp_path):
    js = tmp_path / "ad.json"
    rounds = tmp_path / "rounds"
    # A tight margin on objective points leaves them open after the first look.
    r = _regress(
        small_runs["aa"],
        "--baseline",
        small_runs["baseline"],
        "--adaptive",
        "--budget",
        1600,
        "--looks",
        3,
        "--margin",
        "objective_points=0.6",
        "--json",
        js,
        "--rounds-dir",
        rounds,
        "-j",
        1,
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(js.read_text())
    ad = doc["adaptive"]
    assert ad["looks"] == 3 and ad["level"] == pytest.approx(ALPHA / 3)
    assert 1 <= len(ad["rounds"]) <= 2 and 0 < ad["games"] <= 1600
    seeds = {load_results(p)[2]["run_seed"] for p in sorted(rounds.iterdir())}
    assert len(seeds) == len(ad["rounds"]) and not seeds & {101, 202}
    late = [f for f in doc["figures"] if f["look"] > 1]
    assert late and all(f["deals_now"] > 500 for f in late)
    assert doc["counts"]["fail"] == 0


def test_ci_sized_horns_change_fails_against_the_committed_baseline(tmp_path):
    run = _run(tmp_path / "ci", sets=HORNS_12)  # the ci scenario as shipped: the baseline's deals
    md = tmp_path / "s.md"
    r = _regress(run, "--baseline", COMMITTED, "--summary-md", md)
    assert r.exit_code == 1, r.output
    moved = md.read_text().split("### Moved beyond the margin", 1)[1].split("###", 1)[0]
    assert "objective points per game, gray (Horns)" in moved


@pytest.mark.slow
def test_committed_baseline_passes_an_unchanged_ci_run(tmp_path):
    """What `make regress` checks: the shipped ci run replays the committed baseline's deals."""
    base = read_baseline(COMMITTED)
    run = _run(tmp_path / "ci")
    assert load_results(run)[2]["run_seed"] == base["run_seed"]
    r = _regress(run, "--baseline", COMMITTED, "--strict")
    assert r.exit_code == 0, r.output
    assert "changed since the baseline: nothing" in r.output
    assert "paired on the baseline's deals" in r.output


# =========================================================================== engine speed against a saved figure


def _speed(rel, ref=4.0, python="3.11.0", cpu="CPU A"):
    return {
        "format": "ssb-engine-speed",
        "version": 1,
        "games": 300,
        "seed": 11,
        "reference": {"mega_iterations_per_s": ref},
        "machine": {"python": python, "numba": "x", "numpy": "y", "cpu": cpu},
        "workloads": {
            "greedy_4p": {"games_per_s": rel * ref, "relative": rel, "turns_per_game": 100.0},
            "random_4p": {"games_per_s": 3 * rel * ref, "relative": 3 * rel, "turns_per_game": 170.0},
        },
    }


def test_compare_speed_flags_a_relative_slowdown_only():
    from ssb.games.shuffle_swing.benchmark import compare_speed

    saved = _speed(300.0)
    # A machine twice as slow: absolute games/s halve, the relative figure does not move.
    assert not compare_speed(_speed(300.0, ref=2.0), saved, 0.8)["slow"]
    slower = compare_speed(_speed(200.0), saved, 0.8)
    assert slower["slow"] and all(r["ratio"] == pytest.approx(2 / 3) for r in slower["rows"])
    assert not compare_speed(_speed(250.0), saved, 0.8)["slow"]
    assert compare_speed(_speed(300.0, python="3.12.1"), saved)["notes"]
    assert not compare_speed(_speed(300.0), saved)["notes"]
    # Another CPU model: the relative figure is not comparable, and the comparison says so.
    other = compare_speed(_speed(300.0, cpu="CPU B"), saved)["notes"]
    assert len(other) == 1 and "CPU A when saved, CPU B now" in other[0]


def test_bench_save_and_compare(tmp_path, monkeypatch):
    import ssb.games.shuffle_swing.benchmark as B

    figures = iter([_speed(300.0), _speed(290.0), _speed(100.0)])
    monkeypatch.setattr(B, "relative_speed", lambda games=300, seed=11: next(figures))
    path = tmp_path / "speed.json"
    r = CliRunner().invoke(cli, ["bench", "--save", str(path)])
    assert r.exit_code == 0, r.output
    assert json.loads(path.read_text())["workloads"]["greedy_4p"]["relative"] == 300.0
    r = CliRunner().invoke(cli, ["bench", "--compare", str(path)])
    assert r.exit_code == 0 and "no slowdown" in r.output
    r = CliRunner().invoke(cli, ["bench", "--compare", str(path), "--ratio", "0.8"])
    assert r.exit_code == 1 and "SLOWER" in r.output
    (tmp_path / "bad.json").write_text("{}")
    assert CliRunner().invoke(cli, ["bench", "--compare", str(tmp_path / "bad.json")]).exit_code == 2


def test_committed_speed_baseline_is_readable():
    from ssb.games.shuffle_swing.benchmark import SPEED_WORKLOADS, load_speed

    doc = load_speed(REPO / "benchmarks" / "baseline.json")
    assert set(doc["workloads"]) == {name for name, *_ in SPEED_WORKLOADS}


def test_adaptive_rounds_come_in_whole_deals_of_a_mirror_lineup(tmp_path):
    """A mirror lineup plays one rotation per deal: a round of N games is N new deals."""
    mirror = ('lineup={ mirror = "greedy" }', "players=[4]")
    base = _run(tmp_path / "base", games=400, seed=11, sets=mirror)
    now = _run(tmp_path / "now", games=400, seed=12, sets=mirror)
    assert CliRunner().invoke(cli, ["baseline", str(base), "-o", str(tmp_path / "b.json")]).exit_code == 0
    js = tmp_path / "r.json"
    r = _regress(
        now,
        "--baseline",
        tmp_path / "b.json",
        "--adaptive",
        "--budget",
        400,
        "--looks",
        2,
        "--margin",
        "rounds=0.05",
        "--json",
        js,
        "-j",
        1,
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(js.read_text())
    assert doc["adaptive"]["rounds"] and doc["adaptive"]["games"] == 400
    rounds = next(f for f in doc["figures"] if f["figure"] == "rounds")
    assert rounds["look"] == 2 and rounds["deals_now"] == 800
    assert not any(f["figure"].startswith("win_rate.greedy") for f in doc["figures"])  # one strategy: no strategy rate
