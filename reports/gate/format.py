"""The texts of a balance regression: the Markdown summary (a pull-request comment), the terminal
lines and the JSON record, with the formatting of figures in their units (rates in percent and
percentage points). The verdicts themselves come from :mod:`reports.gate.regress`.
"""

from __future__ import annotations

import math

import numpy as np

from reports.gate.baseline import RATE_KINDS
from reports.gate.regress import FAIL, INCONCLUSIVE, LEFT_OUT, PASS, gate_status
from stats.words import gate_word


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



def _short(h):
    return str(h)[:10] if h else "none"


def _fmt_setting(v):
    if v in (None, {}, []):
        return "none"
    if isinstance(v, dict):
        return ", ".join(f"`{k} = {v[k]}`" for k in v)
    return f"`{v}`"


def looks_words(lk):
    """``played 500 of 500, 1,000, 1,500 deals a cell: stopped early, decided`` (``ssb run --looks``)."""
    deals = lk.get("deals") or []
    played = int(lk.get("played") or 0)
    upto = deals[played - 1] if 0 < played <= len(deals) else 0
    how = "stopped early, decided" if lk.get("stopped_early") else "every look played"
    return f"played {upto:,} of {', '.join(f'{d:,}' for d in deals)} deals a cell ({how})"


def summary_markdown(result, mode="fail", results_dir=None, strict=False, report_link=None):
    """A Markdown summary of a regression, fit for a pull-request comment, readable without statistics."""
    t = result["figures"]
    counts = result["counts"]
    level = (result.get("adaptive") or result.get("looks") or {}).get("level", result["alpha"])
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
            f"**{counts[INCONCLUSIVE]} of {tested} balance figures are undecided**: not shown to stay within their "
            "margin, nor beyond it; they may have moved by about the margin, or the games played cannot tell. They are not a pass"
            + (" and, in strict mode, fail the gate." if strict else "; run with `--strict` to fail on them.")
        )
    else:
        lines.append(f"**All {tested} balance figures held: each is shown to stay within its margin.**")
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
        f"{counts[FAIL]} moved beyond their margin, {counts[PASS]} held within it, {counts[INCONCLUSIVE]} undecided "
        f"(of {tested} figures tested in {ncells} cell{'s' if ncells != 1 else ''}"
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
    lk = result.get("looks")
    if lk:
        lines.append(f"Looks: {looks_words(lk)}; alpha split over the {lk['split']} looks ({lk['level']:.4g} each), "
                     f"so the false-fail rate stays at most {result['alpha']:g} over all looks.")
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
        lines.append("### Undecided (neither shown within the margin nor beyond it)")
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
        lines.append(f"<details><summary>Held within the margin: {len(ok)} figures</summary>")
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
        "_How to read_: each figure has a margin, the change that still counts as no change. A figure **moved** "
        f"when its change is shown to be larger than the margin (and the gate fails); across all figures, a false "
        f"'moved' happens at most {100 * a:g}% of the time. It **held** when its change is shown to be smaller than "
        "the margin: its interval lies inside the margin. Otherwise it is **undecided**. The interval printed is the one "
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
        f"balance regression{' (' + title + ')' if title else ''}: {word}: {c[FAIL]} moved beyond the margin, {c[PASS]} held within, "
        f"{c[INCONCLUSIVE]} undecided, {c.get(LEFT_OUT, 0)} left out (no spread) "
        f"(of {len(t)} figures, {t['cell_key'].nunique()} cells)"
    )
    lines = [head]
    p = result.get("paired") or {}
    if p.get("figures"):
        lines.append(f"paired on the baseline's deals: {p['figures']} of {p.get('of', 0)} figures, {p.get('deals', 0):,} deals")
    lines.append(changed_line(result["changes"]))
    ad = result.get("adaptive")
    if ad:
        lines.append(
            f"adaptive: {len(ad['rounds'])} extra round(s), {ad['games']:,} of {ad['budget']:,} games, "
            f"{ad['looks']} looks at alpha {ad['level']:.4g} each"
        )
    lk = result.get("looks")
    if lk:
        lines.append(f"looks: {looks_words(lk)}, each at alpha {lk['level']:.4g}")
    single = t["cell_key"].nunique() <= 1
    for verdict in (FAIL, INCONCLUSIVE):
        part = t[t["verdict"] == verdict]
        for r in part.itertuples(index=False):
            where = "" if single else f"{cell_label(r.cell_key)}: "
            lines.append(
                f"  {gate_word(verdict):10s} {where}{r.label}: {fmt_value(r.kind, r.baseline)} -> {fmt_value(r.kind, r.now)} "
                f"({fmt_change(r.kind, r.change)}, interval {fmt_interval(r.kind, r.ci_low, r.ci_high)} "
                f"({100 * r.ci_confidence:.3g}%), margin {fmt_margin(r.kind, r.margin)})"
            )
    return "\n".join(lines)


def changed_line(ch):
    """``changed since the baseline: board, rules kernel`` (or ``nothing``): the data files, settings
    and rules kernel that differ from the baseline's run (``reports.gate.regress.changes_since``)."""
    changed = [f["file"] for f in ch["data_files"]] + [f"setting {s['setting']}" for s in ch["settings"]]
    if ch["kernel_changed"]:
        changed.append("rules kernel")
    return "changed since the baseline: " + (", ".join(changed) if changed else "nothing")
