"""The regression gate compared deal by deal: calibration of the paired test on synthetic pairs,
figures left out, strict mode, and a baseline file checked against its schema before use."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from reports.gate.baseline import BaselineError, baseline_values, build_baseline, read_baseline, write_baseline
from reports.gate.regress import (
    C_FAIL,
    C_PASS,
    FAIL,
    INCONCLUSIVE,
    LEFT_OUT,
    PASS,
    compare_tables,
    decide,
    gate_status,
    paired_moments,
)
from stats.tests import margin_tests, mean_and_var
from ssb.cli import cli

ALPHA = 0.05


def _pairs(rng, reps, figs, n, rho, shift, sigma=1.0):
    """Per-deal values of a baseline and of a run on the same deals, correlated ``rho``, moved by ``shift``."""
    common = rng.normal(0, sigma, (reps, figs, n))
    base = np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(0, sigma, (reps, figs, n))
    now = np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(0, sigma, (reps, figs, n)) + shift
    return base, now


def _paired_codes(base, now, margin, alpha=ALPHA):
    z = now - base
    n = z.shape[-1]
    d, var = mean_and_var(n, z.sum(-1), np.square(z).sum(-1))
    p_eq, p_out = margin_tests(d, np.sqrt(var), n - 1, margin)
    codes, _ = decide(p_eq, p_out, alpha)
    return codes


def test_paired_false_fail_rate_at_most_alpha_on_the_margin():
    """Every figure moved by exactly its margin (the least favourable point): a fail anywhere in the
    run happens at most alpha of the time, as for independent samples."""
    rng = np.random.default_rng(41)
    base, now = _pairs(rng, 4000, 6, 400, rho=0.7, shift=0.1)
    codes = _paired_codes(base, now, 0.1)
    rate = (codes == C_FAIL).any(axis=-1).mean()
    assert 0.01 < rate <= ALPHA + 2.5 * math.sqrt(ALPHA * (1 - ALPHA) / 4000), rate


def test_pairing_cuts_the_variance_of_the_difference():
    """Correlated deals (rho = 0.7): the paired difference's variance is (1 - rho) of the independent one."""
    rng = np.random.default_rng(42)
    base, now = _pairs(rng, 1, 1, 20000, rho=0.7, shift=0.0)
    paired = np.var(now - base)
    independent = np.var(now) + np.var(base)
    assert paired / independent == pytest.approx(0.3, abs=0.02)


def test_paired_gate_passes_a_small_change_the_independent_gate_cannot_decide():
    rng = np.random.default_rng(43)
    base, now = _pairs(rng, 500, 1, 400, rho=0.9, shift=0.02)
    paired = _paired_codes(base, now, 0.1)
    b_n, b_s, b_ss = 400, base.sum(-1), np.square(base).sum(-1)
    from stats.tests import difference

    d, se, df = difference((b_n, b_s, b_ss), (400, now.sum(-1), np.square(now).sum(-1)))
    p_eq, p_out = margin_tests(d, se, df, 0.1)
    indep, _ = decide(p_eq, p_out, ALPHA)
    assert (paired == C_PASS).mean() > 0.95  # 97% expected
    assert (indep == C_PASS).mean() < 0.5  # 30% expected


# =========================================================================== compare_tables


def _moments_row(fid, kind, values):
    v = np.asarray(values, dtype=float)
    return ("cell-a", fid, kind, fid, v.size, v.sum(), np.square(v).sum(), np.nan, np.nan)


def _tables(pairs):
    cols = ["cell_key", "figure", "kind", "label", "n", "sum", "sumsq", "count", "trials"]
    base = pd.DataFrame([_moments_row(f, k, b) for f, k, b, _ in pairs], columns=cols)
    now = pd.DataFrame([_moments_row(f, k, c) for f, k, _, c in pairs], columns=cols)
    return base, now


def test_compare_tables_pairs_leaves_out_and_shows_the_verdicts_interval():
    rng = np.random.default_rng(44)
    n = 3000
    seat = rng.binomial(1, 0.5, n).astype(float)
    moved = rng.normal(30, 4, n)
    rows = [
        ("same", "rounds", moved, moved.copy()),  # identical on every deal
        ("moved", "rounds", moved, moved + rng.normal(1.0, 1.0, n)),
        ("always", "win_rate", np.ones(n), np.ones(n)),  # a strategy that wins every game
        ("seat", "win_rate", seat, seat),
    ]
    base, now = _tables(rows)
    seeds = np.arange(n)
    base_vals = {"cell-a": (seeds, {f: b for f, _, b, _ in rows})}
    now_vals = {"cell-a": (seeds, pd.DataFrame({f: c for f, _, _, c in rows}), [(f, k, f) for f, k, _, _ in rows], None)}
    pairs = paired_moments(base_vals, now_vals)
    out = compare_tables(base, now, pairs=pairs).set_index("figure")
    assert out.loc["same", "verdict"] == PASS and out.loc["same", "change"] == 0.0
    assert out.loc["moved", "verdict"] == FAIL and bool(out.loc["moved", "paired"])
    assert out.loc["always", "verdict"] == LEFT_OUT
    assert out.loc["seat", "verdict"] == PASS
    # The fail's interval is at its Holm step level and lies beyond the margin.
    assert out.loc["moved", "ci_low"] > out.loc["moved", "margin"]
    assert out.loc["moved", "ci_confidence"] < 0.99
    # The power figure: the smallest change caught 80% of the time is above the margin.
    assert out.loc["moved", "change_80"] > out.loc["moved", "margin"]
    # Without the pairs the same tables are two independent samples: the identical figure's change
    # is still 0 but its interval is wide.
    unpaired = compare_tables(base, now).set_index("figure")
    assert not unpaired["paired"].any()
    assert unpaired.loc["same", "ci_high"] - unpaired.loc["same", "ci_low"] > 0.2


def test_strict_fails_on_not_shown():
    result = {"counts": {FAIL: 0, PASS: 3, INCONCLUSIVE: 1, LEFT_OUT: 0}}
    assert gate_status(result, "fail", strict=False) == ("UNDECIDED", 0)
    assert gate_status(result, "fail", strict=True)[1] == 1
    assert gate_status({"counts": {FAIL: 0, PASS: 3, INCONCLUSIVE: 0}}, "fail", strict=True) == ("PASS", 0)
    assert gate_status({"counts": {FAIL: 1, PASS: 3, INCONCLUSIVE: 0}}, "warn")[1] == 0


# =========================================================================== the baseline file's schema


def _hand_baseline(tmp_path):
    from test_regress import _hand_tables

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
    path = tmp_path / "b.json"
    write_baseline(doc, path)
    return path, doc


def test_baseline_keeps_per_deal_values_keyed_by_deal_seed(tmp_path):
    path, _ = _hand_baseline(tmp_path)
    doc = read_baseline(path)
    cell = doc["cells"][0]
    assert cell["deal_seeds"] == [0, 1, 2]
    assert cell["figures"]["win_rate.seat0"]["values"] == [0.5, 1, 0]
    seeds, vals = baseline_values(doc)[cell["cell_key"]]
    assert list(seeds) == [0, 1, 2] and vals["rounds"].tolist() == [30.5, 32.5, 34.5]


def _edit(doc, fig, **change):
    doc = json.loads(json.dumps(doc))
    entry = doc["cells"][0]["figures"][fig]
    for k, v in change.items():
        if v is None:
            entry.pop(k)
        else:
            entry[k] = v
    return doc


BAD_FIGURES = [
    ("n_text", "rounds", {"n": "lots"}, "figures.rounds.n", "not a whole number"),
    ("n_zero", "rounds", {"n": 0}, "figures.rounds.n", "at least 1"),
    ("n_float", "rounds", {"n": 2.5}, "figures.rounds.n", "not a whole number"),
    ("n_bool", "rounds", {"n": True}, "figures.rounds.n", "not a whole number"),
    ("sumsq_negative", "rounds", {"sumsq": -5.0}, "figures.rounds.sumsq", "negative"),
    ("variance_negative", "rounds", {"sumsq": 10.0}, "figures.rounds.sumsq", "variance would be negative"),
    ("sum_text", "rounds", {"sum": "x"}, "figures.rounds.sum", "not a finite number"),
    ("kind_unknown", "rounds", {"kind": "speed"}, "figures.rounds.kind", "not a kind"),
    ("sum_missing", "rounds", {"sum": None}, "figures.rounds.sum", "missing"),
    ("count_above_trials", "win_rate.seat0", {"count": 9, "trials": 6}, "figures.win_rate.seat0.count", "count"),
    ("rate_mean_above_1", "win_rate.seat0", {"sum": 9.0, "sumsq": 27.0}, "figures.win_rate.seat0.sum", "outside 0 .. 1"),
    ("values_short", "rounds", {"values": [1, 2]}, "figures.rounds.values", "one per deal seed"),
    ("values_text", "rounds", {"values": [1, "a", 2]}, "figures.rounds.values", "finite numbers"),
]


@pytest.mark.parametrize("case", BAD_FIGURES, ids=[c[0] for c in BAD_FIGURES])
def test_a_malformed_baseline_is_refused_with_file_key_and_reason(tmp_path, case):
    _, fig, change, key, reason = case
    _, doc = _hand_baseline(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_edit(doc, fig, **change)))
    with pytest.raises(BaselineError) as exc:
        read_baseline(bad)
    assert key in str(exc.value) and reason in str(exc.value)
    # Through the command: `error: FILE: KEY: reason`, exit status 2, no traceback.
    r = CliRunner().invoke(cli, ["regress", str(tmp_path / "no-run"), "--baseline", str(bad)])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and r.exception is None or isinstance(r.exception, SystemExit)
    assert f"error: {bad}: cells.0.{key}: " in r.output


def test_malformed_cells_and_seeds_are_refused(tmp_path):
    _, doc = _hand_baseline(tmp_path)
    for edit, key in (
        (lambda d: d["cells"][0].__setitem__("deal_seeds", [1, 1, 2]), "deal_seeds"),
        (lambda d: d["cells"][0].__setitem__("deal_seeds", "x"), "deal_seeds"),
        (lambda d: d["cells"][0].__setitem__("figures", []), "cells.0"),
        (lambda d: d["cells"][0].__setitem__("figures", {}), "figures"),
        (lambda d: d["cells"][0]["figures"].__setitem__("rounds", 3), "figures.rounds"),
    ):
        d = json.loads(json.dumps(doc))
        edit(d)
        p = tmp_path / "bad.json"
        p.write_text(json.dumps(d))
        with pytest.raises(BaselineError) as exc:
            read_baseline(p)
        assert key in str(exc.value)


# =========================================================================== on the committed baseline's run


def test_a_change_of_the_two_player_balance_fails_the_paired_gate(tmp_path):
    """The committed baseline's own tables with 14% of seat 1's 2-player wins handed to seat 0
    (seat 0 about 6.5 pp more, every other figure untouched): the gate fails on exactly the
    2-player seat figures; the untouched tables pass."""
    from reports.gate.regress import regress
    from test_regress import COMMITTED

    base = read_baseline(COMMITTED)
    seats, games = _committed_tables(tmp_path)
    manifest = _manifest_like(base)
    same = regress(base, seats, games, manifest)
    assert same["counts"][FAIL] == 0 and same["counts"][INCONCLUSIVE] == 0
    assert same["paired"]["figures"] == same["paired"]["of"] > 0
    two = games["players"] == 2
    rng = np.random.default_rng(0)
    flip = two & (games["winner"] == 1) & (rng.random(len(games)) < 0.14)
    key = games.loc[flip, ["cell", "game"]]
    g2, s2 = games.copy(), seats.copy()
    g2["winner"] = np.where(flip, 0, g2["winner"]).astype(g2["winner"].dtype)
    hit = s2.set_index(["cell", "game"]).index.isin(pd.MultiIndex.from_frame(key))
    s2["won"] = np.where(hit, s2["seat"] == 0, s2["won"]).astype(s2["won"].dtype)
    moved = regress(base, s2, g2, manifest)
    t = moved["figures"]
    failed = t[t["verdict"] == FAIL]
    assert set(failed["figure"]) == {"win_rate.seat0", "win_rate.seat1"}
    assert all(k.startswith("players=2|") for k in failed["cell_key"])


def _committed_tables(tmp_path):
    """The committed baseline's run, played again (the ci scenario as shipped: the same deals)."""
    from scenarios.results import load_results
    from scenarios.runner import run_scenario

    out = tmp_path / "ci"
    run_scenario("ci", out, jobs=1, force=True, progress=False)
    seats, games, _ = load_results(out)
    return seats, games


def _manifest_like(base):
    return {
        "scenario": {"name": base["scenario"]["name"], "text": ""},
        "run_seed": base["run_seed"],
        "settings": base.get("settings", {}),
        "data_files": {},
        "code": {},
    }
