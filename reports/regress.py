"""Balance regression: did a change move any figure of a run away from its baseline?

For every figure of every cell (see :mod:`reports.baseline`) the difference ``d = now - baseline``
of two independent samples of deals gets one of three verdicts, against a margin ``m`` of its kind
(:data:`DEFAULT_MARGINS`), by where the difference's interval lies::

                    -m               0               +m
    ----------------|================|================|----------------   d
          [--]                    [------]                    [--]       fail / pass / fail
                [--------]                      [--------]               inconclusive (straddles an edge)

    pass:  equivalent within the margin: both one-sided tests of TOST reject at level a
           (|d| < m shown; the (1 - 2a) interval lies inside [-m, m]);
    fail:  moved beyond the margin: the test of H0 |d| <= m against |d| > m rejects after Holm's
           correction over every figure of the run at level a;
    inconclusive: neither, more games would tell.

Both tests are Welch t tests on the per-deal moments (``n``, ``sum``, ``sumsq``): deals are the
independent units, so the games of a deal (its seat rotations) are not counted as independent. The
p-value of "beyond the margin" is the chance of a difference at least as far from 0 as the one
observed when the true difference sits on the margin (``|d| = m``, the least favourable point of
H0 ``|d| <= m``): ``P(D >= |obs|) + P(D <= -|obs|)`` with ``D ~ m + se * t(df)``. It is a valid
level-a test at every point of H0, at ``m = 0`` it is the two-sided t test, and for ``m >> se`` the
one-sided test against the nearer edge.
Only a fail fails the gate: in an A/A comparison (same code and data, other deals) a fail is a
false alarm, and its probability over the whole run is at most ``a`` (Holm controls the
family-wise error rate).

Adaptive mode (:func:`adaptive_regress`) plays more deals for the cells that still hold an
inconclusive figure, in rounds, and looks again after each round. Repeated looks would inflate the
false-alarm rate, so the number of looks ``K`` (the first one included) is fixed in advance and
``a`` is split evenly over them (Bonferroni over looks): every look tests at ``a / K``, with Holm
over every figure within the look. A figure keeps the verdict of the look that decided it and
leaves the test (it stays in Holm's family with p = 1, :func:`decide_look`); a cell whose figures
are all decided plays no more, and every round's size per cell is fixed in advance. Then a false
fail at look k needs some true null's p-value at look k below ``a / (K * true nulls)``, where that
p-value is the one of a fixed-size test (the cell's data up to look k, had it played every round),
so by the union bound over looks and figures the chance of any false fail stays at most ``a``. The
same holds for a false pass (claiming equivalence of a figure that moved by the margin or more). Extra deals come from a fresh run seed per
round (:func:`round_seed`), so they are new, independent deals, and their moments add to the
earlier ones (:func:`reports.baseline.merge_figures`).

Everything here works on plain arrays and is vectorised over leading axes, so the tests can replay
thousands of synthetic gates in a fraction of a second.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from reports.baseline import (
    KINDS,
    RATE_KINDS,
    UNITS,
    all_kinds,
    baseline_figures,
    baseline_values,
    deal_values,
    figure_table,
    game_of,
    merge_figures,
    run_identity,
)
from simulator import games as registry
from simulator.errors import DataError

PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"
LEFT_OUT = "left out"  # constant in both runs (no spread at all): nothing to test
TARGET_POWER = 0.8
VERDICTS = (INCONCLUSIVE, PASS, FAIL)  # index = code
C_INCONCLUSIVE, C_PASS, C_FAIL = 0, 1, 2

DEFAULT_ALPHA = 0.05
DEFAULT_LOOKS = 4
# Margins in the figure's own unit (rates as fractions), of every kind of every registered game:
# win_rate 3 pp, rounds 0.5 rounds, stall_rate 1 pp (every game); Shuffle and Swing's objective_points
# 1 point per game (summed over the seats), build_rate 3 pp, score_spread 2 points; Echidna
# Shuffle's tokens_spent 0.5, moves_lost 0.5, deliveries_off_turn 0.1, pickups 0.5 per game (see
# each game's ``gate`` in simulator/games.py).
DEFAULT_MARGINS = {k: v.margin for k, v in all_kinds().items()}
assert set(DEFAULT_MARGINS) == set(KINDS)


class RegressInputError(DataError):
    """A regression that cannot be made: a baseline of other cells, a bad margin, ..."""


# =========================================================================== statistics on moments


def mean_and_var(n, s, ss):
    """Mean of the per-deal values and the variance of that mean; NaN variance where ``n < 2``."""
    n = np.asarray(n, dtype=float)
    s = np.asarray(s, dtype=float)
    ss = np.asarray(ss, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        var = np.clip(ss - s * s / n, 0.0, None) / (n - 1)
        # Floating-point residue of a constant figure: treat as zero variance.
        var = np.where(var <= 1e-12 * np.maximum(1.0, mean * mean), 0.0, var)
        var_mean = np.where(n >= 2, var / n, np.nan)
    return mean, var_mean


def difference(base, cur):
    """``(d, se, df)`` of ``now - baseline`` from two ``(n, sum, sumsq)`` triples (Welch)."""
    m0, v0 = mean_and_var(*base)
    m1, v1 = mean_and_var(*cur)
    n0 = np.asarray(base[0], dtype=float)
    n1 = np.asarray(cur[0], dtype=float)
    d = m1 - m0
    se = np.sqrt(v0 + v1)
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.where(n0 > 1, v0 * v0 / (n0 - 1), 0.0) + np.where(n1 > 1, v1 * v1 / (n1 - 1), 0.0)
        df = np.where(den > 0, (v0 + v1) ** 2 / den, np.inf)
    return d, se, df


def margin_tests(d, se, df, margin):
    """``(p_equivalent, p_beyond)`` for ``|d| < margin`` (TOST) and ``|d| > margin``.

    With no spread at all (``se == 0``) the difference is known exactly; with an undefined one
    (too few deals) both p-values are 1.
    """
    d, se, df, margin = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (d, se, df, margin)))
    ok = np.isfinite(d) & np.isfinite(se)
    pos = ok & (se > 0)
    safe_se = np.where(pos, se, 1.0)
    safe_d = np.where(ok, d, 0.0)
    t_lo = (safe_d + margin) / safe_se  # against d <= -m
    t_hi = (safe_d - margin) / safe_se  # against d >= +m
    p_equiv = np.maximum(stats.t.sf(t_lo, df), stats.t.cdf(t_hi, df))
    # H0 |d| <= m is least favourable at |d| = m: the p-value is P(|D| >= |observed|) there.
    a = np.abs(safe_d)
    p_beyond = np.minimum(1.0, stats.t.sf((a - margin) / safe_se, df) + stats.t.cdf((-a - margin) / safe_se, df))
    exact = ok & (se == 0)
    p_equiv = np.where(exact, np.where(np.abs(safe_d) < margin, 0.0, 1.0), p_equiv)
    p_beyond = np.where(exact, np.where(np.abs(safe_d) > margin, 0.0, 1.0), p_beyond)
    p_equiv = np.where(ok, p_equiv, 1.0)
    p_beyond = np.where(ok, p_beyond, 1.0)
    return p_equiv, p_beyond


def confidence_interval(d, se, df, alpha):
    """Two-sided ``1 - alpha`` interval of the difference."""
    q = stats.t.ppf(1 - np.asarray(alpha, dtype=float) / 2, df)
    with np.errstate(invalid="ignore"):
        half = np.where(np.asarray(se) > 0, q * se, 0.0)
    return d - half, d + half


def holm(p, axis=-1):
    """Holm-adjusted p-values along ``axis`` (vectorised over the other axes); NaN counts as 1.

    Equal to ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]`` on a 1-D array.
    """
    p = np.where(np.isnan(p), 1.0, np.asarray(p, dtype=float))
    p = np.moveaxis(p, axis, -1)
    m = p.shape[-1]
    if m == 0:
        return np.moveaxis(p, -1, axis)
    order = np.argsort(p, axis=-1, kind="stable")
    sorted_p = np.take_along_axis(p, order, axis=-1)
    factor = m - np.arange(m)
    adj_sorted = np.minimum(1.0, np.maximum.accumulate(sorted_p * factor, axis=-1))
    adj = np.empty_like(adj_sorted)
    np.put_along_axis(adj, order, adj_sorted, axis=-1)
    return np.moveaxis(adj, -1, axis)


def decide(p_equiv, p_beyond, level, axis=-1):
    """Verdict codes (:data:`C_PASS`, :data:`C_FAIL`, :data:`C_INCONCLUSIVE`) and Holm-adjusted p_beyond.

    ``axis`` holds the figures of one family (one run at one look).
    """
    adj = holm(p_beyond, axis=axis)
    fail = adj < level
    ok = (np.asarray(p_equiv) < level) & ~fail
    codes = np.where(fail, C_FAIL, np.where(ok, C_PASS, C_INCONCLUSIVE))
    return codes, adj


def look_level(alpha, looks):
    """The level of each look when ``alpha`` is split evenly over ``looks`` looks."""
    if looks < 1:
        raise ValueError("looks must be at least 1")
    return alpha / looks


def freeze(previous, new):
    """Verdict codes after a look: figures decided earlier keep their verdict, open ones take the new one."""
    previous = np.asarray(previous)
    return np.where(previous == C_INCONCLUSIVE, np.asarray(new), previous)


def decide_look(previous, p_equiv, p_beyond, level, axis=-1):
    """One look of the sequential procedure: ``(codes, Holm-adjusted p_beyond)``.

    Figures decided at an earlier look (``previous`` not inconclusive) stay in Holm's family with
    p = 1, so the family keeps its size and they are never rejected again; their verdict is kept.
    With this rule the first true null that Holm rejects at a look has a threshold of at most
    ``level / (number of true nulls)``, whatever the other p-values, which is what the union bound
    over looks needs. ``previous=None`` is the first look.
    """
    if previous is None:
        return decide(p_equiv, p_beyond, level, axis)
    open_ = np.asarray(previous) == C_INCONCLUSIVE
    new, adj = decide(p_equiv, np.where(open_, p_beyond, 1.0), level, axis)
    return freeze(previous, new), adj


def sequential_verdicts(base, looks_data, margin, alpha=DEFAULT_ALPHA, looks=None):
    """Verdict codes of the sequential procedure on arrays, vectorised over leading axes.

    ``base`` = ``(n, sum, sumsq)`` arrays of shape ``(..., figures)``; ``looks_data`` a sequence of
    such triples, the *cumulative* moments of the run at each look. Each look tests at
    ``alpha / looks`` (``looks`` defaults to ``len(looks_data)``, the number fixed in advance) with
    Holm over the figures axis; decided figures keep their verdict. Returns ``(codes, decided_at)``
    (``decided_at`` = 1-based look, 0 for a figure still open). The same rules as
    :func:`adaptive_regress`, for replaying many synthetic gates at once.
    """
    looks = len(looks_data) if looks is None else looks
    if len(looks_data) > looks:
        raise ValueError("more looks than the number fixed in advance")
    level = look_level(alpha, looks)
    codes = None
    decided_at = None
    for k, cur in enumerate(looks_data, start=1):
        d, se, df = difference(base, cur)
        p_equiv, p_beyond = margin_tests(d, se, df, margin)
        new, _ = decide_look(codes, p_equiv, p_beyond, level)
        was_open = True if codes is None else codes == C_INCONCLUSIVE
        decided_at = np.where(was_open & (new != C_INCONCLUSIVE), k, 0 if decided_at is None else decided_at)
        codes = new
    return codes, decided_at


# =========================================================================== margins


def parse_margins(items):
    """``["win_rate=2", "rounds=1"]`` -> margins dict over the defaults.

    Rates (``win_rate``, ``build_rate``) are given in percentage points, the others in their unit.
    """
    kinds = all_kinds()  # any game's kinds (so one --margin list serves the gates of both games)
    margins = {k: v.margin for k, v in kinds.items()}
    rates = {k for k, v in kinds.items() if v.rate}
    for item in items or ():
        key, sep, value = str(item).partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in margins:
            raise RegressInputError(
                "--margin", str(item), f"expected KIND=VALUE with KIND one of {', '.join(margins)}"
            )
        try:
            v = float(value)
        except ValueError:
            raise RegressInputError("--margin", str(item), f"'{value}' is not a number") from None
        if not math.isfinite(v) or v < 0:
            raise RegressInputError("--margin", str(item), "a margin is a number of 0 or more")
        margins[key] = v / 100.0 if key in rates else v
    return margins


# =========================================================================== comparing two runs


def check_cells(baseline, current_keys, baseline_path="baseline"):
    """Refuse a baseline whose cells are not the run's cells (a :class:`RegressInputError` that says why)."""
    base_keys = [c["cell_key"] for c in baseline["cells"]]
    missing = [k for k in base_keys if k not in set(current_keys)]
    extra = [k for k in current_keys if k not in set(base_keys)]
    if not missing and not extra:
        return
    name = baseline.get("scenario", {}).get("name")
    parts = [f"the baseline (scenario '{name}') and the run do not hold the same cells"]
    if missing:
        parts.append(f"only in the baseline: {'; '.join(missing[:5])}" + (" ..." if len(missing) > 5 else ""))
    if extra:
        parts.append(f"only in the run: {'; '.join(extra[:5])}" + (" ..." if len(extra) > 5 else ""))
    parts.append(
        "compare runs of the same scenario (player counts, instrument sets or boards and variants, lineups), "
        "or write a new baseline with `ssb baseline RESULTS_DIR -o FILE`"
    )
    raise RegressInputError(baseline_path, "cells", ": ".join(parts[:1]) + " (" + "; ".join(parts[1:]) + ")")


def check_game(baseline, manifest, baseline_path="baseline"):
    """Refuse a baseline of another game than the run's (a :class:`RegressInputError` naming both);
    returns the run's game. A baseline or manifest without ``game`` is of the default game."""
    try:
        then = registry.get(baseline.get("game"), baseline_path, "game")
    except DataError as exc:
        raise RegressInputError(baseline_path, "game", exc.reason) from None
    now = game_of(manifest.get("game"))
    if then.name != now.name:
        b = baseline.get("scenario", {}).get("name")
        r = manifest.get("scenario", {}).get("name")
        raise RegressInputError(
            baseline_path,
            "game",
            f"the baseline is of {then.title} (scenario '{b}'), the run of {now.title} (scenario '{r}'): "
            "compare a run with a baseline of its own game",
        )
    return now


def paired_moments(base_values, now_values):
    """Moments of the per-deal differences ``now - baseline`` on the deals both runs played.

    ``base_values``: :func:`reports.baseline.baseline_values` of the baseline; ``now_values``:
    :func:`reports.baseline.deal_values` of the run. Deals are matched by their setup seed, so the
    run must have played the baseline's deals (same scenario, same run seed). Returns a DataFrame
    ``cell_key, figure, n_pair, sum_pair, sumsq_pair`` (cells or figures with fewer than two
    common deals are left out: they are compared as independent samples).
    """
    rows = []
    for key, (seeds, per_deal, figures, _) in now_values.items():
        if key not in base_values:
            continue
        b_seeds, b_vals = base_values[key]
        common, i_now, i_base = np.intersect1d(seeds, b_seeds, return_indices=True)
        if common.size < 2:
            continue
        for fid, _, _ in figures:
            if fid not in b_vals:
                continue
            z = per_deal[fid].to_numpy(dtype=float)[i_now] - b_vals[fid][i_base]
            rows.append((key, fid, int(z.size), float(z.sum()), float(np.square(z).sum())))
    return pd.DataFrame(rows, columns=["cell_key", "figure", "n_pair", "sum_pair", "sumsq_pair"])


def step_levels(p, level, axis=-1):
    """Holm's level for each test: ``level / (m - rank)`` by the rank of its p-value (0 = smallest)."""
    p = np.where(np.isnan(p), 1.0, np.asarray(p, dtype=float))
    m = p.shape[axis]
    rank = np.argsort(np.argsort(p, axis=axis, kind="stable"), axis=axis, kind="stable")
    return level / (m - rank)


def power_change(margin, se, df, level, power=TARGET_POWER):
    """Smallest true change the fail test catches with the given power: ``m + (t_(1-level) + t_power) se``.

    ``level`` is the first step of Holm (``alpha / figures``), the strictest one, so the figure is an
    upper bound of the change caught that often.
    """
    df = np.where(np.isfinite(df), df, 1e9)
    return np.asarray(margin) + (stats.t.ppf(1 - level, df) + stats.t.ppf(power, df)) * np.asarray(se)


def compare_tables(base, cur, margins=None, alpha=DEFAULT_ALPHA, level=None, decided=None, pairs=None):
    """One row per figure present in both tables, with its difference, interval, p-values and verdict.

    ``level`` (default ``alpha``) is the level of this look. ``decided``: ``{(cell_key, figure):
    verdict}`` of figures decided at earlier looks (see :func:`decide_look`); they keep that
    verdict here. ``pairs``: :func:`paired_moments` of the same runs; a figure found there is tested
    on its per-deal differences (``paired`` True, ``df = deals - 1``), the others as two
    independent samples (Welch).

    A figure whose per-deal values are constant in both runs (a strategy that wins every game) is
    *left out*: it has no spread, so no test can say anything about it. The interval of each row is
    the one its verdict uses: for a pass or an inconclusive figure the two-sided ``1 - 2 level``
    interval (TOST: pass when it lies inside ``(-m, m)``), for a fail the ``1 - 2 s`` interval at the
    figure's Holm step level ``s`` (it lies beyond the margin). ``change_80`` is the smallest true
    change the gate would fail 80% of the time at this size (from the spread of the difference, or
    when the runs are identical on every deal from the spread of two independent samples).
    """
    margins = dict(DEFAULT_MARGINS if margins is None else margins)
    level = alpha if level is None else level
    keys = ["cell_key", "figure"]
    both = base.merge(cur, on=keys, how="inner", suffixes=("_base", "_now"))
    # The label this code gives the figure (a baseline written earlier may word it otherwise).
    both["label_base"] = both["label_now"].where(both["label_now"].notna(), both["label_base"])
    both = both.rename(columns={"kind_base": "kind", "label_base": "label"}).drop(columns=["kind_now", "label_now"])
    b = (both["n_base"].to_numpy(), both["sum_base"].to_numpy(), both["sumsq_base"].to_numpy())
    c = (both["n_now"].to_numpy(), both["sum_now"].to_numpy(), both["sumsq_now"].to_numpy())
    d, se, df = difference(b, c)
    _, v0 = mean_and_var(*b)
    _, v1 = mean_and_var(*c)
    se_indep = se.copy()
    paired = np.zeros(len(both), dtype=bool)
    if pairs is not None and len(pairs):
        pj = both[keys].merge(pairs, on=keys, how="left")
        has = pj["n_pair"].notna().to_numpy()
        if has.any():
            n_p = pj["n_pair"].to_numpy(dtype=float)
            m_p, v_p = mean_and_var(np.where(has, n_p, 2), pj["sum_pair"].fillna(0).to_numpy(), pj["sumsq_pair"].fillna(0).to_numpy())
            d = np.where(has, m_p, d)
            se = np.where(has, np.sqrt(np.where(has, v_p, 0.0)), se)
            df = np.where(has, n_p - 1, df)
            paired = has
    margin = both["kind"].map(margins).to_numpy(dtype=float)
    # The same constant in both runs: no spread, nothing to test (left out of the family). Two
    # different constants (no tokens spent in the baseline, one in every game now) are a change
    # known exactly: tested, with no spread.
    m0, m1 = mean_and_var(*b)[0], mean_and_var(*c)[0]
    left_out = (v0 == 0) & (v1 == 0) & np.isclose(m0, m1, rtol=0.0, atol=1e-12)
    tested = ~left_out
    p_equiv, p_beyond = margin_tests(d, se, df, margin)
    previous = None
    if decided:
        previous = np.array(
            [
                VERDICTS.index(v) if (v := decided.get((k, f), INCONCLUSIVE)) in VERDICTS else C_INCONCLUSIVE
                for k, f in zip(both["cell_key"], both["figure"], strict=True)
            ]
        )
    codes = np.full(len(both), C_INCONCLUSIVE)
    adj = np.full(len(both), np.nan)
    steps = np.full(len(both), np.nan)
    if tested.any():
        prev_t = None if previous is None else previous[tested]
        codes_t, adj_t = decide_look(prev_t, p_equiv[tested], p_beyond[tested], level)
        codes[tested], adj[tested] = codes_t, adj_t
        p_open = p_beyond[tested] if prev_t is None else np.where(prev_t == C_INCONCLUSIVE, p_beyond[tested], 1.0)
        steps[tested] = step_levels(p_open, level)
    fail_row = codes == C_FAIL
    ci_level = np.where(fail_row, steps, level)
    lo, hi = confidence_interval(d, se, df, 2 * ci_level)
    family = max(int(tested.sum()), 1)
    se_power = np.where(se > 0, se, se_indep)
    out = both[keys + ["kind", "label"]].copy()
    out["unit"] = out["kind"].map(UNITS)
    out["baseline"] = mean_and_var(*b)[0]
    out["now"] = mean_and_var(*c)[0]
    out["change"] = d
    out["se"] = se
    out["df"] = df
    out["ci_low"] = lo
    out["ci_high"] = hi
    out["margin"] = margin
    out["p_equivalent"] = p_equiv
    out["p_beyond"] = p_beyond
    out["p_beyond_holm"] = adj
    out["verdict"] = [LEFT_OUT if lo_ else VERDICTS[k] for k, lo_ in zip(codes, left_out, strict=True)]
    out["paired"] = paired
    out["ci_confidence"] = 1 - 2 * ci_level
    out["change_80"] = np.where(left_out, np.nan, power_change(margin, se_power, df, level / family))
    out["deals_baseline"] = both["n_base"].astype(int).to_numpy()
    out["deals_now"] = both["n_now"].astype(int).to_numpy()
    out["look"] = 1
    return out.reset_index(drop=True)


def adaptive_regress(
    base, cur, play_more, *, budget, deal_games, looks=DEFAULT_LOOKS, margins=None, alpha=DEFAULT_ALPHA
):
    """Sequential regression: look, play more deals for undecided cells, look again, up to ``looks`` looks.

        ``play_more(games_per_cell: dict cell_key -> games, round_index) -> figure table`` plays that
        many new games per cell (fresh deals) and returns their figure table. ``budget`` caps the total
        extra games; ``deal_games`` gives each cell's games per deal (its distinct seat rotations), as
    games come in whole deals.
        Every look tests at ``alpha / looks``; a figure keeps the verdict of the look that decided it.

        The size of a round is fixed in advance: every cell gets the same share of the budget per
        round, ``budget / ((looks - 1) * cells)`` games (whole deals), whether or not other cells are
        still open; a decided cell plays no more and its share stays unspent. (Handing a closed cell's
        share to the open ones would make a cell's sample size depend on the data, which the error
        bound over looks does not cover.)

        Returns ``(table, info)``: the final per-figure table (``look`` = the look that decided the
        figure, or the last look) and the rounds played (cells, games), games spent, budget, looks, level.
    """
    level = look_level(alpha, looks)
    table = compare_tables(base, cur, margins, alpha, level)
    keys = sorted(set(table["cell_key"]))
    share = budget // max(1, (looks - 1) * len(keys))
    per_round = {k: (share // int(deal_games[k])) * int(deal_games[k]) for k in keys}
    rounds = []
    spent = 0
    for look in range(2, looks + 1):
        open_cells = sorted(set(table.loc[table["verdict"] == INCONCLUSIVE, "cell_key"]))
        plan = {k: per_round[k] for k in open_cells if per_round[k] > 0}
        if not plan:
            break
        new = play_more(plan, look - 1)
        cur = merge_figures(cur, new)
        spent += sum(plan.values())
        rounds.append({"round": look - 1, "cells": len(plan), "games": sum(plan.values()), "games_per_cell": plan})
        decided = {
            (r.cell_key, r.figure): r.verdict
            for r in table.itertuples(index=False)
            if r.verdict in (PASS, FAIL)
        }
        fresh = compare_tables(base, cur, margins, alpha, level, decided=decided)
        fresh["look"] = look
        fresh = fresh.set_index(["cell_key", "figure"]).loc[pd.MultiIndex.from_frame(table[["cell_key", "figure"]])]
        fresh = fresh.reset_index()
        # Decided figures keep the row (figures and verdict) of the look that decided them.
        keep = (table["verdict"] != INCONCLUSIVE).to_numpy()
        table = pd.concat([table[keep], fresh[~keep]]).sort_index().reset_index(drop=True)
    return table, {"rounds": rounds, "games": spent, "budget": budget, "looks": looks, "level": level}


# =========================================================================== what changed since the baseline


def changes_since(baseline, identity):
    """What differs between the baseline's run and this one: data files, settings, code, seeds."""
    old = baseline.get("data_files", {}) or {}
    new = identity.get("data_files", {}) or {}
    paths = {**(baseline.get("data_paths") or {}), **(identity.get("data_paths") or {})}
    files = []
    for k in sorted(set(old) | set(new)):
        if old.get(k) != new.get(k):
            status = "changed" if k in old and k in new else ("added" if k in new else "removed")
            files.append({"file": k, "path": paths.get(k), "status": status, "baseline": old.get(k), "now": new.get(k)})
    settings = []
    so, sn = baseline.get("settings", {}) or {}, identity.get("settings", {}) or {}
    for k in sorted(set(so) | set(sn)):
        if so.get(k) != sn.get(k):
            settings.append({"setting": k, "baseline": so.get(k), "now": sn.get(k)})
    co, cn = baseline.get("code", {}) or {}, identity.get("code", {}) or {}
    return {
        "data_files": files,
        "settings": settings,
        "kernel_changed": co.get("kernel_sha256") != cn.get("kernel_sha256"),
        "version": {"baseline": co.get("version"), "now": cn.get("version")},
        "design_changed": baseline.get("scenario", {}).get("design_sha256")
        != identity.get("scenario", {}).get("design_sha256"),
        "same_seed": baseline.get("run_seed") is not None and baseline.get("run_seed") == identity.get("run_seed"),
    }


def regress(
    baseline, seats, games, manifest, *, margins=None, alpha=DEFAULT_ALPHA, baseline_path="baseline", adaptive=None
):
    """The regression of a run (its tables and manifest) against a baseline document.

    ``adaptive``: ``None``, or ``dict(play_more=..., budget=..., looks=...)`` for the sequential mode.
    Returns the result document (a dict: ``figures`` DataFrame plus counts, changes and settings).
    """
    margins = dict(DEFAULT_MARGINS if margins is None else margins)
    if not 0 < alpha < 0.5:
        raise RegressInputError("--alpha", str(alpha), "alpha must lie between 0 and 0.5")
    game = check_game(baseline, manifest, baseline_path)
    keys = list(dict.fromkeys(games["cell_key"].astype(str)))
    check_cells(baseline, keys, baseline_path)
    base = baseline_figures(baseline)
    values = deal_values(seats, games, game)
    cur = figure_table(seats, games, values, game)
    # Paired on the baseline's deals when the run played them (same scenario and run seed); the
    # adaptive mode adds fresh deals the baseline never played, so it compares independent samples.
    pairs = None if adaptive else paired_moments(baseline_values(baseline), values)
    info = {"rounds": [], "games": 0, "budget": 0, "looks": 1, "level": alpha}
    if adaptive:
        sizes = games.groupby("cell_key").agg(games=("game", "size"), deals=("deal", "nunique"))
        per_deal = (sizes["games"] // sizes["deals"].clip(lower=1)).astype(int).to_dict()
        table, info = adaptive_regress(
            base,
            cur,
            adaptive["play_more"],
            budget=int(adaptive["budget"]),
            deal_games=per_deal,
            looks=int(adaptive.get("looks", DEFAULT_LOOKS)),
            margins=margins,
            alpha=alpha,
        )
    else:
        table = compare_tables(base, cur, margins, alpha, pairs=pairs)
    only_base = sorted(set(zip(base.cell_key, base.figure)) - set(zip(cur.cell_key, cur.figure)))
    only_now = sorted(set(zip(cur.cell_key, cur.figure)) - set(zip(base.cell_key, base.figure)))
    identity = run_identity(manifest)
    counts = {v: int((table["verdict"] == v).sum()) for v in (FAIL, INCONCLUSIVE, PASS, LEFT_OUT)}
    cells_meta = {c["cell_key"]: c for c in baseline["cells"]}
    games_now = games.groupby("cell_key").size().to_dict()
    return {
        "verdict": FAIL if counts[FAIL] else (INCONCLUSIVE if counts[INCONCLUSIVE] else PASS),
        "counts": counts,
        "alpha": alpha,
        "margins": margins,
        "figures": table,
        "unmatched": {"only_baseline": only_base, "only_now": only_now},
        "changes": changes_since(baseline, identity),
        "run": identity,
        "baseline": {
            "path": str(baseline_path),
            "scenario": baseline.get("scenario", {}),
            "run_seed": baseline.get("run_seed"),
            "created": baseline.get("created"),
            "games": sum(int(c.get("games", 0)) for c in baseline["cells"]),
        },
        "games_now": int(sum(games_now.values())) + int(info.get("games", 0)),
        "game": {"name": game.name, "title": game.title},
        "cells": {
            k: {
                "players": cells_meta[k].get("players"),
                "lineup": cells_meta[k].get("lineup"),
                **{x: cells_meta[k][x] for x in ("instruments", "board", "variant") if x in cells_meta[k]},
            }
            for k in keys
            if k in cells_meta
        },
        "adaptive": info if adaptive else None,
        "paired": {
            "figures": int((table["paired"] & (table["verdict"] != LEFT_OUT)).sum()),
            "of": int((table["verdict"] != LEFT_OUT).sum()),
            "deals": int(pairs["n_pair"].max()) if pairs is not None and len(pairs) else 0,
        },
    }


# =========================================================================== output


def _is_rate(kind):
    return kind in RATE_KINDS


def fmt_value(kind, x):
    """A figure's value in its unit: rates as percentages, others with two decimals."""
    if x is None or not np.isfinite(x):
        return "-"
    return f"{100 * x:.1f}%" if _is_rate(kind) else f"{x:.2f}"


def fmt_change(kind, x):
    """A difference: rates in percentage points, signed."""
    if x is None or not np.isfinite(x):
        return "-"
    return f"{100 * x:+.1f} pp" if _is_rate(kind) else f"{x:+.2f}"


def fmt_margin(kind, m):
    return f"±{100 * m:g} pp" if _is_rate(kind) else f"±{m:g}"


def fmt_interval(kind, lo, hi):
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "-"
    if _is_rate(kind):
        return f"[{100 * lo:+.1f}, {100 * hi:+.1f}] pp"
    return f"[{lo:+.2f}, {hi:+.2f}]"


def _fmt_p(p):
    if not np.isfinite(p):
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def cell_label(key, meta=None):
    """Short text for a cell: ``4p Violin/Piano/Horns greedy,greedy,random,random``, or for another
    game ``4p snow catch_up greedy,greedy,greedy,greedy`` (board, variant, lineup)."""
    parts = dict(p.split("=", 1) for p in key.split("|") if "=" in p)
    if not parts:
        return key
    if "board" in parts or "variant" in parts:
        return f"{parts.get('players', '?')}p {parts.get('board')} {parts.get('variant')} {parts.get('lineup')}"
    return f"{parts.get('players', '?')}p {parts.get('black')}/{parts.get('orange')}/{parts.get('gray')} {parts.get('lineup')}"


def _table_md(rows, single_cell, level=None):
    head = (["cell"] if not single_cell else []) + [
        "figure",
        "baseline",
        "now",
        "change",
        "interval of the change",
        "margin",
        "smallest change caught 80%",
        "p beyond (Holm)",
        "p within",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows.itertuples(index=False):
        conf = getattr(r, "ci_confidence", math.nan)
        conf_text = f" ({100 * conf:.3g}%)" if np.isfinite(conf) else ""
        cells = ([cell_label(r.cell_key)] if not single_cell else []) + [
            r.label,
            fmt_value(r.kind, r.baseline),
            fmt_value(r.kind, r.now),
            f"**{fmt_change(r.kind, r.change)}**" if r.verdict == FAIL else fmt_change(r.kind, r.change),
            fmt_interval(r.kind, r.ci_low, r.ci_high) + conf_text,
            fmt_margin(r.kind, r.margin),
            fmt_size(r.kind, getattr(r, "change_80", math.nan)),
            _fmt_p(r.p_beyond_holm),
            _fmt_p(r.p_equivalent),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def fmt_size(kind, x):
    """A size of change: rates in percentage points, unsigned."""
    if x is None or not np.isfinite(x):
        return "-"
    return f"{100 * x:.1f} pp" if _is_rate(kind) else f"{x:.2f}"


def gate_status(result, mode="fail", strict=False):
    """``(word, exit status)`` of a regression: FAIL / NOT SHOWN / PASS (WARN in warn mode)."""
    c = result["counts"]
    if c[FAIL]:
        return ("FAIL", 1) if mode == "fail" else ("WARN (figures moved; mode warn)", 0)
    if c[INCONCLUSIVE]:
        return ("NOT SHOWN (strict: fails)", 1) if strict and mode == "fail" else ("NOT SHOWN", 0)
    return "PASS", 0


def _short(h):
    return str(h)[:10] if h else "none"


def _fmt_setting(v):
    if v in (None, {}, []):
        return "none"
    if isinstance(v, dict):
        return ", ".join(f"`{k} = {v[k]}`" for k in v)
    return f"`{v}`"


def summary_markdown(result, mode="fail", results_dir=None, strict=False, report_link=None):
    """A Markdown summary of a regression, fit for a pull-request comment, readable without statistics."""
    t = result["figures"]
    counts = result["counts"]
    level = (result.get("adaptive") or {}).get("level", result["alpha"])
    word, _ = gate_status(result, mode, strict)
    run = result["run"]
    base = result["baseline"]
    single = t["cell_key"].nunique() <= 1
    lines = [f"## Balance regression: {word}", ""]
    tested = counts[FAIL] + counts[PASS] + counts[INCONCLUSIVE]
    if counts[FAIL]:
        lines.append(
            f"**{counts[FAIL]} of {tested} balance figures moved by more than their allowed margin.** The table "
            "below says which, by how much, and how sure the gate is."
        )
    elif counts[INCONCLUSIVE]:
        lines.append(
            f"**{counts[INCONCLUSIVE]} of {tested} balance figures could not be shown to stay within their margin**: "
            "they may have moved by about the margin, or the games played cannot tell. They are not a pass"
            + (" and, in strict mode, fail the gate." if strict else "; run with `--strict` to fail on them.")
        )
    else:
        lines.append(f"**All {tested} balance figures are shown to stay within their margins.**")
    if report_link:
        lines.append(f"The balance report of this very run: [{report_link}]({report_link}).")
    lines.append("")
    where = f" (`{results_dir}`)" if results_dir else ""
    pinfo = result.get("paired") or {}
    paired_text = ""
    if pinfo.get("figures"):
        paired_text = (
            f" {pinfo['figures']} of {pinfo.get('of', 0)} figures were compared deal by deal on the same "
            f"{pinfo.get('deals', 0):,} deals the baseline played (a paired comparison: the luck of the deal "
            "cancels out)."
        )
    title = (result.get("game") or {}).get("title", "")
    lines.append(
        f"Run of {title + ' ' if title else ''}scenario `{run['scenario'].get('name')}`{where}, "
        f"run seed {run.get('run_seed')}, "
        f"{result['games_now']:,} games, against the baseline `{base['path']}` (seed {base.get('run_seed')}, "
        f"{base.get('games', 0):,} games).{paired_text}"
    )
    lines.append("")
    ncells = t["cell_key"].nunique()
    lines.append(
        f"{counts[FAIL]} moved beyond their margin, {counts[PASS]} shown within it, {counts[INCONCLUSIVE]} not shown "
        f"either way (of {tested} figures tested in {ncells} cell{'s' if ncells != 1 else ''}"
        + (f"; {counts.get(LEFT_OUT, 0)} left out" if counts.get(LEFT_OUT, 0) else "")
        + ")."
    )
    if single and ncells:
        lines.append(f"Cell: {cell_label(t['cell_key'].iloc[0])}.")
    ad = result.get("adaptive")
    if ad:
        lines.append(
            f"Adaptive: {len(ad['rounds'])} extra round(s), {ad['games']:,} of {ad['budget']:,} budget games; "
            f"alpha split over {ad['looks']} looks ({ad['level']:.4g} each), so the false-fail rate stays at "
            f"most {result['alpha']:g} over all looks."
        )
    lines.append("")

    ch = result["changes"]
    lines.append("### Changed since the baseline")
    lines.append("")
    any_change = False
    for f in ch["data_files"]:
        any_change = True
        path = f" (`{f['path']}`)" if f.get("path") else ""
        lines.append(
            f"- data file **{f['file']}**{path}: {f['status']}, sha256 {_short(f['baseline'])} -> {_short(f['now'])}"
        )
    for st in ch["settings"]:
        any_change = True
        lines.append(f"- scenario `{st['setting']}`: {_fmt_setting(st['baseline'])} -> {_fmt_setting(st['now'])}")
    if ch["kernel_changed"]:
        any_change = True
        lines.append("- the rules kernel changed")
    if ch["version"]["baseline"] != ch["version"]["now"]:
        any_change = True
        lines.append(f"- package version {ch['version']['baseline']} -> {ch['version']['now']}")
    if not any_change:
        lines.append("- nothing: same data files, settings and rules kernel")
    lines.append("")

    order = {FAIL: 0, INCONCLUSIVE: 1, PASS: 2, LEFT_OUT: 3}
    t = t.assign(_o=t["verdict"].map(order), _z=-np.abs(t["change"] / t["margin"].replace(0, np.nan)))
    t = t.sort_values(["_o", "_z"], kind="stable")
    fails = t[t["verdict"] == FAIL]
    if len(fails):
        lines.append("### Moved beyond the margin")
        lines.append("")
        lines += _table_md(fails, single, level)
        lines.append("")
    inc = t[t["verdict"] == INCONCLUSIVE]
    if len(inc):
        lines.append("### Not shown within the margin (inconclusive)")
        lines.append("")
        lines += _table_md(inc, single, level)
        lines.append("")
        lines.append(
            "These figures may have moved by about their margin. More games would decide them: "
            "`ssb regress ... --adaptive --budget GAMES` (fresh deals, compared as independent samples)."
        )
        lines.append("")
    ok = t[t["verdict"] == PASS]
    if len(ok):
        lines.append(f"<details><summary>Shown within the margin: {len(ok)} figures</summary>")
        lines.append("")
        lines += _table_md(ok, single, level)
        lines.append("")
        lines.append("</details>")
        lines.append("")
    out = t[t["verdict"] == LEFT_OUT]
    if len(out):
        names = ", ".join(
            (r.label if single else f"{cell_label(r.cell_key)}: {r.label}") for r in out.itertuples(index=False)
        )
        lines.append(
            f"Left out (the same on every deal in both runs, so there is nothing to test): {names}."
        )
        lines.append("")
    um = result["unmatched"]
    if um["only_baseline"] or um["only_now"]:
        lines.append(
            f"Not compared: {len(um['only_baseline'])} figure(s) only in the baseline, "
            f"{len(um['only_now'])} only in this run."
        )
        lines.append("")
    a = result["alpha"]
    lines.append(
        "_How to read_: each figure has a margin, the change that still counts as no change. A figure **fails** "
        f"when its change is shown to be larger than the margin; across all figures, a false fail happens at most "
        f"{100 * a:g}% of the time. It **passes** when its change is shown to be smaller than the margin: its "
        "interval lies inside the margin. Otherwise it is **not shown** either way. The interval printed is the one "
        "the verdict used. 'Smallest change caught 80%' is the true change that this gate, at this number of "
        "games, would fail at least 80% of the time. The unit of sampling is the deal (one setup, all its seat "
        "rotations)."
    )
    return "\n".join(lines) + "\n"


def _clean(x):
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating | float):
        return float(x) if math.isfinite(x) else None
    return x


def result_json(result, mode="fail", strict=False):
    """The regression as a JSON-ready dict (the figure table as a list of records)."""
    out = {k: v for k, v in result.items() if k != "figures"}
    out["mode"] = mode
    out["strict"] = bool(strict)
    out["gate"], out["exit_status"] = gate_status(result, mode, strict)
    out["figures"] = result["figures"].to_dict(orient="records")
    return _clean(out)


def summary_text(result, mode="fail", strict=False):
    """A few plain lines for the terminal: the gate's verdict, then every figure that failed or is open."""
    t = result["figures"]
    c = result["counts"]
    word, _ = gate_status(result, mode, strict)
    title = (result.get("game") or {}).get("title")
    head = (
        f"balance regression{' (' + title + ')' if title else ''}: {word}: {c[FAIL]} moved beyond the margin, {c[PASS]} within, "
        f"{c[INCONCLUSIVE]} not shown (inconclusive), {c.get(LEFT_OUT, 0)} left out (no spread) "
        f"(of {len(t)} figures, {t['cell_key'].nunique()} cells)"
    )
    lines = [head]
    p = result.get("paired") or {}
    if p.get("figures"):
        lines.append(f"paired on the baseline's deals: {p['figures']} of {p.get('of', 0)} figures, {p.get('deals', 0):,} deals")
    ch = result["changes"]
    changed = [f["file"] for f in ch["data_files"]] + [f"setting {s['setting']}" for s in ch["settings"]]
    if ch["kernel_changed"]:
        changed.append("rules kernel")
    lines.append("changed since the baseline: " + (", ".join(changed) if changed else "nothing"))
    ad = result.get("adaptive")
    if ad:
        lines.append(
            f"adaptive: {len(ad['rounds'])} extra round(s), {ad['games']:,} of {ad['budget']:,} games, "
            f"{ad['looks']} looks at alpha {ad['level']:.4g} each"
        )
    single = t["cell_key"].nunique() <= 1
    for verdict in (FAIL, INCONCLUSIVE):
        part = t[t["verdict"] == verdict]
        for r in part.itertuples(index=False):
            where = "" if single else f"{cell_label(r.cell_key)}: "
            lines.append(
                f"  {verdict:12s} {where}{r.label}: {fmt_value(r.kind, r.baseline)} -> {fmt_value(r.kind, r.now)} "
                f"({fmt_change(r.kind, r.change)}, interval {fmt_interval(r.kind, r.ci_low, r.ci_high)} "
                f"({100 * r.ci_confidence:.3g}%), margin {fmt_margin(r.kind, r.margin)})"
            )
    return "\n".join(lines)
