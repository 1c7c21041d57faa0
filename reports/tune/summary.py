"""The answer of a balance search (``tune.json``) as a short Markdown and a self-contained HTML page.

Sections: the change (a diff of the data files), the verdicts before and after with their
intervals (fresh deals, every judge), how robust it is across player counts, the runner-up
changes, candidates that met the targets in the search but not on fresh deals, and the cost in
games. Works on the JSON document alone.
"""

from __future__ import annotations

import html
import json
import math

from reports.render import CSS


def _num(x, digits=1):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return ""
    return f"{x:+.{digits}f}"


def figure_grid(v):
    """A verdict's estimate and interval in the target's own unit."""
    est, lo, hi = v.get("estimate"), v.get("lo"), v.get("hi")
    if v["kind"] in ("seats_balanced", "built_rate", "stalled"):
        scale, unit, sign = 100.0, " pp" if v["kind"] == "seats_balanced" else "%", v["kind"] == "seats_balanced"
        f = (lambda x: f"{scale * x:+.1f}") if sign else (lambda x: f"{scale * x:.1f}")
    else:
        unit = " pts" if v["kind"] == "objective_vs_department" else " rounds"
        f = (lambda x: f"{x:+.1f}") if v["kind"] == "objective_vs_department" else (lambda x: f"{x:.1f}")
    try:
        return f"{f(est)}{unit} [{f(lo)}, {f(hi)}]"
    except (TypeError, ValueError):
        return ""


def _state_figure(v):
    """``state: figure``, or the loader's refusal (a change another game's data cannot take there)."""
    if v.get("estimate") is None and str(v.get("detail", "")).startswith("refused"):
        return f"refused: {v['detail'].removeprefix('refused by the data loader: ')}"
    return f"{v['state']}: {figure_grid(v)}"


def _value(x):
    return json.dumps(x)


def _change_rows(c):
    return [(ch["key"], _value(ch["before"]), _value(ch["after"]), f"{ch['change']:.3f}") for ch in c["changes"]]


def _md_table(headers, rows):
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        out.append("| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |")
    return "\n".join(out)


def _verdict_rows(before, after):
    """Rows (judge, games, target, before, after) pairing the before and after stages by judge."""
    rows = []
    by_judge = {(b["judge"], b["role"]): b for b in before}
    for st in after:
        b = by_judge.get((st["judge"], st["role"]))
        for i, v in enumerate(st["verdicts"]):
            bv = b["verdicts"][i] if b else None
            rows.append(
                (
                    f"{st['judge']} ({st['role']})",
                    f"{st['games']:,}",
                    v["target"],
                    f"{bv['state']}: {figure_grid(bv)}" if bv else "",
                    f"{v['state']}: {figure_grid(v)}",
                )
            )
    return rows


def _robustness(result, rob, prefix):
    """The robustness table (a change's targets at every player count, and board of another game)."""
    if not rob:
        return []
    rows = []
    for r in rob:
        where = f"{r['players']} ({r['board']})" if "board" in r else r["players"]
        for bv, av in zip(r["before"], r["after"], strict=True):
            rows.append((where, r["judge"], av["target"], _state_figure(bv), _state_figure(av)))
    what = "player counts and boards" if result.get("game") else "player counts"
    return [(f"{prefix}{'r' if prefix else 'R'}obustness across {what} (search judge, fresh deals)", "table",
             (["players", "judge", "target (at that count)", "before", "after"], rows))]


def sections(result, diff_text=""):
    """The summary as a list of (title, kind, payload): kind "text", "table" (headers, rows) or "code"."""
    out = []
    fix = result.get("fix")
    head = (
        f"Tuning file `{result['tuning_file']}` on scenario `{result['scenario']}`; targets: "
        + "; ".join(result["targets"])
        + f". Search judge `{result['judges']['search']}`"
        + (
            f", strong judge(s) `{'`, `'.join(result['judges']['strong'])}` (rule: {result['judges']['strong_rule']})"
            if result["judges"]["strong"]
            else ", no strong judge named"
        )
        + f"; {100 * result['confidence']:g}% confidence."
    )
    out.append(("Question", "text", head))
    if fix is None:
        out.append(
            (
                "Answer",
                "text",
                "No change in the search space was confirmed: no candidate met every target on fresh deals "
                + ("and under the strong judge " if result["judges"]["strong"] else "")
                + f"within {result['settings']['max_keys']} changed key(s). The closest candidates are listed below.",
            )
        )
        rows = []
        for st in result["before"]:
            for v in st["verdicts"]:
                rows.append((f"{st['judge']} ({st['role']})", f"{st['games']:,}", v["target"], f"{v['state']}: {figure_grid(v)}"))
        out.append(("Before (fresh deals)", "table", (["judge", "games per cell", "target", "verdict"], rows)))
        near = result.get("closest")
        if near:
            change = ", ".join(f"{ch['key']} {_value(ch['before'])} -> {_value(ch['after'])}" for ch in near["changes"])
            out.append(("Closest candidate of the whole search", "text",
                        f"{change} ({near['keys']} key(s), total change {near['change']:.3f}): nearest the targets of "
                        "every candidate played, re-played on fresh deals and under every strong judge."))
            out.append(("Closest candidate: before and after (fresh deals)", "table",
                        (["judge", "games per cell", "target", "before", "after"],
                         _verdict_rows(result["before"], near["confirmation"]["stages"]))))
            out += _robustness(result, near.get("robustness"), "Closest candidate: ")
    else:
        n = fix["keys"]
        out.append(
            (
                "Answer",
                "text",
                f"The smallest confirmed change: {n} key{'s' if n != 1 else ''}, total normalised change "
                f"{fix['change']:.3f} (each key's change over its searched range). It met every target in the "
                f"search and again on fresh deals"
                + (" and under the strong judge" if result["judges"]["strong"] else "")
                + ".",
            )
        )
        out.append(("The change", "table", (["key", "before", "after", "normalised change"], _change_rows(fix))))
        if diff_text:
            title = f"Diff of the scenario (variant `{result['variant']}`)" if result.get("game") else "Diff of the data files"
            out.append((title, "code", diff_text))
        after = fix["confirmation"]["stages"]
        out.append(
            (
                "Before and after (fresh deals)",
                "table",
                (["judge", "games per cell", "target", "before", "after"], _verdict_rows(result["before"], after)),
            )
        )
        out += _robustness(result, result.get("robustness"), "")
    runners = [c for c in result.get("runners_up", []) if c]
    if runners:
        rows = []
        for c in runners:
            conf = c.get("confirmation")
            status = "confirmed" if conf and conf.get("confirmed") else "met in search, not re-played" if c["search"]["state"] == "met" else f"search: {c['search']['state']}"
            change = ", ".join(f"{ch['key']} {_value(ch['before'])} -> {_value(ch['after'])}" for ch in c["changes"])
            est = "; ".join(figure_grid(v) for v in c["search"]["verdicts"])
            rows.append((change, c["keys"], f"{c['change']:.3f}", status, est))
        out.append(("Runner-up changes", "table", (["change", "keys", "total change", "status", "search estimate"], rows)))
    unconf = [c for c in result.get("unconfirmed", []) if c]
    if unconf:
        rows = []
        for c in unconf:
            st = c["confirmation"]["stages"][-1]
            change = ", ".join(f"{ch['key']} {_value(ch['before'])} -> {_value(ch['after'])}" for ch in c["changes"])
            rows.append((change, f"{st['judge']} ({st['role']})", st["state"],
                         "; ".join(figure_grid(v) for v in st["verdicts"])))
        out.append(("Met in the search, not confirmed (never reported as a fix)", "table",
                    (["change", "judge that refused it", "verdict", "estimate"], rows)))
    cost = result["cost"]
    stages = result.get("stages", [])
    text = (
        f"{cost['total']:,} games in all: {cost['search']:,} in the search ({cost['trials']} trials, "
        f"{cost['candidates']} distinct candidates over {len(stages)} number(s) of keys, "
        f"{result['settings']['restarts']} restarts each, rungs {result['settings']['rungs']} games per cell), "
        f"{cost['confirm']:,} confirming winners on fresh deals, {cost['before']:,} for the before verdicts, "
        f"{cost['robustness']:,} for robustness"
        + (f", {cost['closest']:,} re-playing the closest candidate" if "closest" in cost else "")
        + ". Candidates met in the search / confirmed: "
        + ", ".join(f"{s['keys']} key(s): {s['met_in_search']} / {s['confirmed']}" for s in stages)
        + "."
    )
    out.append(("Cost", "text", text))
    return out


def to_markdown(result, diff_text=""):
    lines = [f"# Balance search: {result['name']}", ""]
    if result.get("description"):
        lines += [result["description"], ""]
    for title, kind, payload in sections(result, diff_text):
        lines += [f"## {title}", ""]
        if kind == "text":
            lines.append(payload)
        elif kind == "code":
            lines += ["```diff", payload.rstrip("\n"), "```"]
        else:
            lines.append(_md_table(*payload))
        lines.append("")
    return "\n".join(lines)


def to_html(result, diff_text=""):
    e = html.escape
    body = [f"<h1>Balance search: {e(result['name'])}</h1>"]
    if result.get("description"):
        body.append(f"<p class='meta'>{e(result['description'])}</p>")
    for title, kind, payload in sections(result, diff_text):
        body.append(f"<h2>{e(title)}</h2>")
        if kind == "text":
            body.append(f"<p>{e(payload)}</p>")
        elif kind == "code":
            body.append(f"<pre>{e(payload)}</pre>")
        else:
            headers, rows = payload
            t = ["<div class='tablewrap'><table><thead><tr>"]
            t += [f"<th>{e(str(h))}</th>" for h in headers]
            t.append("</tr></thead><tbody>")
            for r in rows:
                t.append("<tr>" + "".join(f"<td>{e(str(x))}</td>" for x in r) + "</tr>")
            t.append("</tbody></table></div>")
            body.append("".join(t))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Balance search: {e(result['name'])}</title><style>{CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
