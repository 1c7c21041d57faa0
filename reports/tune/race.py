"""The answer of a race (``tune.json`` of ``[search] method = "race"``) as Markdown, and the found
change as the ``[overrides]`` of a scenario. Works on the JSON document alone."""

from __future__ import annotations

import json


def _value(v):
    return json.dumps(v)


def _cells(rec, labels):
    out = []
    for lab in labels:
        c = rec["cells"].get(lab)
        if c is None:
            out.append("not played")
            continue
        rates = "/".join(f"{100 * r:.1f}" for r in c["rates"])
        out.append(f"{c['verdict']} ({rates}%, {c['deals']:,} deals)")
    return out


def change_text(rec):
    return ", ".join(f"{c['key']} {_value(c['before'])} -> {_value(c['after'])}" for c in rec["changes"])


def to_markdown(result):
    labels = []
    for rec in result["candidates"]:
        for lab in rec["cells"]:
            if lab not in labels:
                labels.append(lab)
    fix = result["fix"]
    cost = result["cost"]
    z = result["zone"]
    lines = [f"# Race: {result['name']}", ""]
    if result.get("description"):
        lines += [result["description"], ""]
    lines += [
        f"Judges: {', '.join(result['judges'])} mirrors; each cell (player count, judge) decided by the zone test "
        f"(fair = every seat shown within {100 * (z['margin'] + z['indifference']):g} points of the fair share, "
        f"unfair = a seat shown more than {100 * (z['margin'] - z['indifference']):g} points off, "
        f"{100 * z['confidence']:g}% confidence).",
        "",
        "Targets: " + "; ".join(result["targets"]) + ".",
        "",
    ]
    if fix is not None:
        lines += [f"**Found:** {change_text(fix)}: every target cell decided fair.", ""]
    else:
        lines += [f"**No candidate met every target** (the race stopped: {result['stop']}). The closest first below.", ""]
    lines += [
        f"Cost: {cost['games']:,} games, {cost['seconds_spent']:,.0f} of {cost['seconds']:,.0f} declared CPU seconds, "
        f"{cost['cpu_seconds']:,.0f} CPU seconds measured; {len(result['candidates'])} candidates tried, "
        f"{result['untried']} not reached.",
        "",
        "| change | state | " + " | ".join(labels) + " |",
        "|---|---|" + "---|" * len(labels),
    ]
    for rec in result["candidates"]:
        state = rec["state"] + (f": {rec['reason']}" if rec.get("reason") else "")
        lines.append(f"| {change_text(rec)} | {state} | " + " | ".join(_cells(rec, labels)) + " |")
    lines.append("")
    return "\n".join(lines)


def overrides_toml(result):
    """The found change (or, when none was found, the closest candidate) as an ``[overrides]`` table."""
    rec = result["fix"] or (result["candidates"][0] if result["candidates"] else None)
    if rec is None:
        return ""
    lines = ["[overrides]"]
    for c in rec["changes"]:
        lines.append(f'"{c["key"]}" = {_value(c["after"])}')
    return "\n".join(lines) + "\n"
