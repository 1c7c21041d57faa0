"""Balance regression: did a change move any figure of a run away from its baseline?

For every figure of every cell (see :mod:`reports.gate.baseline`) the difference ``d = now - baseline``
of two independent samples of deals gets one of three verdicts, against a margin ``m`` of its kind
(:data:`DEFAULT_MARGINS`), by where the difference's interval lies (stored as the codes pass / fail /
inconclusive, said as held / moved / undecided: :func:`stats.words.gate_word`)::

                    -m               0               +m
    ----------------|================|================|----------------   d
          [--]                    [------]                    [--]       moved / held / moved
                [--------]                      [--------]               undecided (straddles an edge)

    pass (held):  equivalent within the margin: both one-sided tests of TOST reject at level a
           (|d| < m shown; the (1 - 2a) interval lies inside [-m, m]);
    fail (moved):  moved beyond the margin: the test of H0 |d| <= m against |d| > m rejects after Holm's
           correction over every figure of the run at level a;
    inconclusive (undecided): neither, more games would tell.

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
earlier ones (:func:`reports.gate.baseline.merge_figures`).

The statistics on moments (Welch differences, the margin tests, Holm) live in :mod:`stats.tests`,
the texts of a regression (Markdown, terminal, JSON) in :mod:`reports.gate.format`.

Everything here works on plain arrays and is vectorised over leading axes, so the tests can replay
thousands of synthetic gates in a fraction of a second.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from reports.gate.baseline import (
    KINDS,
    UNITS,
    all_kinds,
    baseline_figures,
    baseline_values,
    deal_values,
    figure_table,
    data_hashes,
    game_of,
    judge_keys,
    merge_figures,
    run_identity,
)
from stats.tests import (
    confidence_interval,
    difference,
    holm_adjusted,
    margin_tests,
    mean_and_var,
    power_change,
    step_levels,
)
from simulator import games as registry
from simulator.errors import DataError

PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"
LEFT_OUT = "left out"  # constant in both runs (no spread at all): nothing to test
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







def decide(p_equiv, p_beyond, level, axis=-1):
    """Verdict codes (:data:`C_PASS`, :data:`C_FAIL`, :data:`C_INCONCLUSIVE`) and Holm-adjusted p_beyond.

    ``axis`` holds the figures of one family (one run at one look).
    """
    adj = holm_adjusted(p_beyond, axis=axis)
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


def check_judge(baseline, manifest, game, baseline_path="baseline"):
    """Refuse a run whose judge differs from the baseline's: a learned leaf its searches play
    (``GateSpec.judge_groups``) with other coefficients than the baseline's run played. Its figures
    would measure the judge's change with the game's (a leaf fitted again on the changed data), so
    a :class:`RegressInputError` names the leaf and says what to do."""
    old = baseline.get("data_files", {}) or {}
    new = data_hashes(manifest)
    changed = [k for k in judge_keys(game, sorted(set(old) & set(new))) if old[k] != new[k]]
    if changed:
        k = changed[0]
        raise RegressInputError(
            baseline_path,
            f"data_files.{k}",
            f"the judge's leaf differs from the baseline's ({', '.join(changed)}: coefficients "
            f"{str(new[k])[:12]} now, {str(old[k])[:12]} in the baseline): the judge changed with the game, "
            "so no figure would measure the change alone; judge with a strategy whose leaf is held at the "
            "baseline's fit, or write a new baseline (docs/guide/regression-gate.md)",
        )


def paired_moments(base_values, now_values):
    """Moments of the per-deal differences ``now - baseline`` on the deals both runs played.

    ``base_values``: :func:`reports.gate.baseline.baseline_values` of the baseline; ``now_values``:
    :func:`reports.gate.baseline.deal_values` of the run. Deals are matched by their setup seed, so the
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
    check_judge(baseline, manifest, game, baseline_path)
    keys = list(dict.fromkeys(games["cell_key"].astype(str)))
    check_cells(baseline, keys, baseline_path)
    base = baseline_figures(baseline)
    values = deal_values(seats, games, game)
    cur = figure_table(seats, games, values, game)
    # Paired on the baseline's deals when the run played them (same scenario and run seed); the
    # adaptive mode adds fresh deals the baseline never played, so it compares independent samples.
    pairs = None if adaptive else paired_moments(baseline_values(baseline), values)
    # A run played in looks at growing prefixes of the baseline's deals (``ssb run --looks``) was
    # tested after each look and stopped when decided: every look tests at alpha / looks (Bonferroni
    # over the looks, as the adaptive mode), so the whole gate's false-fail rate stays at most alpha.
    looks = manifest.get("looks") or None
    split = int(looks.get("split", 1)) if looks else 1
    if looks and adaptive:
        raise RegressInputError("--adaptive", "looks", "the run was played in looks on the baseline's deals "
                                "(ssb run --looks): it stopped where it was decided; compare it without --adaptive")
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
        table = compare_tables(base, cur, margins, alpha, level=alpha / split, pairs=pairs)
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
        "looks": dict(looks, level=alpha / split) if looks else None,
        "paired": {
            "figures": int((table["paired"] & (table["verdict"] != LEFT_OUT)).sum()),
            "of": int((table["verdict"] != LEFT_OUT).sum()),
            "deals": int(pairs["n_pair"].max()) if pairs is not None and len(pairs) else 0,
        },
    }


# =========================================================================== output


def gate_status(result, mode="fail", strict=False):
    """``(word, exit status)`` of a regression: FAIL (a figure moved) / UNDECIDED / PASS (every figure
    held); WARN in warn mode."""
    c = result["counts"]
    if c[FAIL]:
        return ("FAIL", 1) if mode == "fail" else ("WARN (figures moved; mode warn)", 0)
    if c[INCONCLUSIVE]:
        return ("UNDECIDED (strict: fails)", 1) if strict and mode == "fail" else ("UNDECIDED", 0)
    return "PASS", 0
