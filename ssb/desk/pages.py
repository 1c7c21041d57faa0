"""The desk's pages as HTML: plain server-rendered pages, with htmx attributes where a part of a
page updates itself (a form's errors, a check's progress). Everything is served by the desk itself;
no page fetches anything from elsewhere."""

from __future__ import annotations

import html
from pathlib import Path

from stats.words import gate_word as stored_gate_word

e = html.escape

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1a1a1a;
       line-height: 1.4; }
header { background: #0072B2; color: #fff; padding: .5rem 1.5rem; display: flex; gap: 1.4rem; align-items: center; }
header a { color: #fff; text-decoration: none; font-weight: 600; }
header .brand { font-size: 1.15rem; margin-right: 1rem; }
main { max-width: 1150px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.45rem; margin: .6rem 0; }
h2 { font-size: 1.15rem; border-bottom: 2px solid #0072B2; padding-bottom: .15rem; margin-top: 1.6rem; }
table { border-collapse: collapse; font-size: .92rem; }
th, td { border: 1px solid #ccc; padding: .25rem .55rem; text-align: left; vertical-align: top; }
th { background: #e8eef5; }
.cmd { font-family: ui-monospace, Menlo, Consolas, monospace; background: #f3f6fa; border-left: 4px solid #56B4E9;
       padding: .35rem .7rem; white-space: pre-wrap; font-size: .88rem; margin: .4rem 0; }
.error { color: #a33a00; font-weight: 600; margin-left: .6rem; font-size: .9rem; }
.form-error { background: #f6d3bf; padding: .4rem .8rem; border-radius: 4px; }
.saved { background: #bfe3d5; padding: .4rem .8rem; border-radius: 4px; }
.field { display: grid; grid-template-columns: 21rem 14rem 1fr; gap: .5rem; align-items: center; margin: .15rem 0; }
.field label { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .86rem; }
.field input[type=text] { width: 13.5rem; }
.field.changed label { font-weight: 700; }
.field.differs label { color: #0072B2; }
fieldset { border: 1px solid #d5dde8; margin: .5rem 0; }
legend { font-weight: 600; }
button { background: #0072B2; color: #fff; border: 0; padding: .45rem .9rem; border-radius: 4px; font-size: .95rem;
         cursor: pointer; margin-right: .5rem; }
button.secondary { background: #666; }
progress { width: 32rem; height: 1.3rem; }
.answer { border-left: 5px solid #009E73; background: #eef7ee; padding: .4rem 1rem; margin: .6rem 0; }
.answer.fail { border-left-color: #D55E00; background: #fbeee6; }
.meta { color: #555; font-size: .9rem; }
.v-fail { background: #f6d3bf; font-weight: bold; }
.v-pass { background: #d6ecf7; }
.v-inconclusive { background: #f2f2f2; }
pre.story { background: #faf8f2; border: 1px solid #e3dcc8; padding: .4rem .7rem; font-size: .8rem; overflow-x: auto; }
pre.story.long { max-height: 28rem; overflow-y: auto; }
.changes { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .84rem; }
button.small { padding: .1rem .45rem; font-size: .8rem; background: #666; }
"""


def layout(title, body, token="", form_token=""):
    """A whole page: the header's links, the htmx script served by the desk, ``body``; every htmx
    request of the page carries the desk's form token (``X-Desk-Form``, :mod:`ssb.desk.guard`)."""
    q = f"?token={e(token)}" if token else ""
    headers = f""" hx-headers='{{"X-Desk-Form": "{e(form_token)}"}}'""" if form_token else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)} · ssb desk</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{CSS}</style><script src="/static/htmx.min.js{q}"></script></head>
<body{headers}><header><span class="brand">ssb desk</span><a href="/">Home</a><a href="/#instruments">Instruments</a>
<a href="/#boards">Boards</a><a href="/#strategies">Strategies</a><a href="/history">History</a><a href="/tune">Which number?</a>
<a href="/runs">Runs</a></header>
<main>{body}</main></body></html>
"""


def gate_word(verdict):
    """A gate figure's stored code as the desk says it: held, moved or undecided (stats.words)."""
    return stored_gate_word(str(verdict))


def cmd_block(lines, elem_id=""):
    """The equivalent ``ssb`` command(s) of an action."""
    ident = f' id="{e(elem_id)}"' if elem_id else ""
    return f'<div class="cmd"{ident}>' + "\n".join(e(x) for x in lines) + "</div>"


def table(header, rows, table_id=""):
    ident = f' id="{e(table_id)}"' if table_id else ""
    head = "".join(f"<th>{e(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def link(href, text):
    return f'<a href="{e(href)}">{e(text)}</a>'


def field_rows(fields, errors, changed=(), shipped=None, back=""):
    """The form's fields grouped by table: the loader's key path as the label, the loader's message
    beside the field it names; a field whose value differs from the shipped file's (``shipped``:
    field name -> the shipped value as shown) has a button that puts the shipped value back (a POST to
    ``back``)."""
    shipped = shipped or {}
    groups = {}
    for f in sorted(fields, key=lambda f: f.group == "(top)"):  # the file's loose keys last
        groups.setdefault(f.group, []).append(f)
    out = []
    for k, (group, members) in enumerate(groups.items()):
        rows = []
        for f in members:
            err = errors.get(f.name, "")
            cls = "field changed" if f.name in changed else "field"
            if f.kind == "bool":
                checked = " checked" if f.value else ""
                inp = f'<input type="checkbox" name="{e(f.name)}" id="f-{e(f.name)}"{checked}>'
            else:
                inp = f'<input type="text" name="{e(f.name)}" id="f-{e(f.name)}" value="{e(f.shown())}">'
            undo = ""
            if f.name in shipped and back:
                vals = html.escape('{"field": ' + _json_str(f.name) + "}", quote=True)
                undo = (f'<button type="button" class="small" id="back-{e(f.name)}" hx-post="{e(back)}" '
                        f'hx-vals="{vals}" hx-target="#form-area" hx-swap="outerHTML" '
                        f'title="Put the shipped value back in your file">back to shipped: {e(shipped[f.name])}</button>')
            if undo:
                cls += " differs"
            rows.append(
                f'<div class="{cls}"><label for="f-{e(f.name)}">{e(f.alt)}</label>{inp}'
                f'<span>{undo}<span class="error" id="err-{e(f.name)}">{e(err)}</span></span></div>'
            )
        opened = " open" if k < 4 or any(f.name in errors or f.name in shipped for f in members) else ""
        out.append(f"<details{opened}><summary>{e(group)} ({len(members)})</summary><fieldset>"
                   + "".join(rows) + "</fieldset></details>")
    return "".join(out)


def _json_str(text):
    import json

    return json.dumps(str(text))


def check_fragment(folder_rel, state, token="", note=""):
    """The live part of a check's page: progress, status, the answer once decided (``note``: what
    an action could not do). While the check runs, the fragment asks for itself again every second
    (htmx ``every 1s``)."""
    status = str(state.get("status", "?"))
    running = status in ("running", "queued")
    q = f"?token={e(token)}" if token else ""
    poll = f' hx-get="/check/{e(folder_rel)}/progress{q}" hx-trigger="every 1s" hx-swap="outerHTML"' if running else ""
    pct = 100 * float(state.get("progress", 0.0))
    parts = [f'<div id="progress-area" data-status="{e(status)}" data-progress="{pct:.1f}"{poll}>',
             f'<p><progress id="bar" max="100" value="{pct:.1f}"></progress> <span id="pct">{pct:.0f}%</span> '
             f'<span id="status">{e(status)}</span></p>']
    if note:
        parts.append(f'<p class="form-error" id="action-note">{e(note)}</p>')
    if state.get("damaged"):
        parts.append(f'<p class="form-error" id="damaged">This check cannot be shown or resumed: {e(state["damaged"])}. '
                     "Its run folder stays as it is; start a new check from the file's page.</p>")
    step = int(state.get("step", 0))
    steps = state.get("steps", [])
    if running and step < len(steps):
        parts.append(f'<p class="meta">now: {e(" ".join(steps[step][:3]))}</p>')
    if state.get("log_tail"):
        parts.append('<div class="cmd" id="log-tail">' + e("\n".join(state["log_tail"])) + "</div>")
    tune = state.get("kind") == "tune"
    if running:
        what = "search" if tune else "check"
        parts.append(f'<button class="secondary" id="cancel" hx-post="/check/{e(folder_rel)}/cancel{q}" '
                     f'hx-target="#progress-area" hx-swap="outerHTML">Cancel: stop this {what} and its '
                     "processes</button>")
    elif status in ("cancelled", "stopped", "failed"):
        label = ("Resume the search where it stopped (ssb tune --resume)" if tune
                 else "Resume the check where it stopped (ssb run --resume)")
        parts.append(f'<button id="resume" hx-post="/check/{e(folder_rel)}/resume{q}" hx-target="#progress-area" '
                     f'hx-swap="outerHTML">{e(label)}</button>')
    if state.get("tune_progress"):
        parts.append(tune_progress_block(state["tune_progress"]))
    parts.append(answer_block(state.get("answer"), folder_rel, status, token))
    if state.get("sample") is not None:
        parts.append(sample_block(state["sample"]))
    elif state.get("kind") == "check" and any(a[:2] == ["ssb", "play"] for a in steps) and running:
        parts.append('<div id="sample" data-state="waiting"><p class="meta">A sample game with the change '
                     "(greedy in every seat, seed 1) is told here once greedy's report is written.</p></div>")
    parts.append("</div>")
    return "".join(parts)


def sample_block(text):
    """The sample game's story beside the answer: its set-up and final scoring table first, the whole
    account, turn by turn, in a box that scrolls."""
    lines = text.splitlines()
    head = lines[:12]
    tail_at = next((i for start in ("Game over", "Final scoring") for i in range(len(lines) - 1, -1, -1)
                    if lines[i].startswith(start)), max(len(lines) - 16, 0))
    tail = lines[tail_at:]
    return ('<div id="sample" data-state="told"><h2>A sample game with the change</h2>'
            '<p class="meta">One game, greedy in every seat, game seed 1, told as <code>ssb play</code> tells it. '
            "One game shows how the change plays, not whether it is fair: the answer above says that.</p>"
            f'<pre class="story" id="sample-head">{e(chr(10).join(head))}</pre>'
            f'<pre class="story" id="sample-end">{e(chr(10).join(tail))}</pre>'
            f'<details><summary>The whole game, turn by turn ({len(lines):,} lines)</summary>'
            f'<pre class="story long" id="sample-story">{e(text)}</pre></details></div>')


def tune_progress_block(p):
    """A balance search's progress (its ``progress.json``): candidates tried and dropped, the best so far."""
    rows = []
    race = "seconds" in p
    for key, label in (("round", "round"), ("candidates", "candidates in the race"), ("tried", "candidates tried"),
                       ("planned", "at most"),
                       ("racing", "still racing"),
                       ("dropped", "dropped (decided unfair)" if race else "dropped before the last rung"),
                       ("met", "met the target"), ("seconds_spent", "declared CPU seconds spent"),
                       ("seconds", "of the budget")):
        if p.get(key) is not None:
            rows.append([e(label), e(str(p[key]))])
    best = p.get("best")
    if isinstance(best, dict):
        changes = best.get("changes") or {}
        words = ", ".join(f"{k} = {v}" for k, v in changes.items()) or "no change"
        cells = best.get("cells") or {}
        if cells:
            words += " (" + ", ".join(f"{c}: {v}" for c, v in cells.items()) + ")"
        rows.append(["best so far", e(words)])
    elif best:
        rows.append(["best so far", e(str(best))])
    return '<div id="tune-progress"><h2>The search so far</h2>' + table(["", ""], rows, "tune-progress-table") + "</div>"


def answer_block(ans, folder_rel, status, token=""):
    """The answer of a check, in words first: per judge (greedy's gate, then the strong gate as it
    decides), which figures moved beyond their margin, by how much, with intervals; which are not
    decided; how many held. Then the seat win rates, both rates and the change on the same deals."""
    if not ans:
        return ""
    q = f"?token={e(token)}" if token else ""
    verdict = str(ans.get("verdict", ""))
    if ans.get("damaged"):
        return f'<div class="answer fail" id="answer" data-verdict="damaged"><p>{e(ans["damaged"])}</p></div>'
    if ans.get("lines"):
        body = "".join(f"<p>{e(x)}</p>" for x in ans["lines"])
        return f'<div class="answer" id="answer" data-verdict="{e(verdict)}">{body}</div>'
    parts = [_gate_answer(ans, "Greedy players", "greedy in every seat, the gate <code>ci</code>", "answer",
                          folder_rel, status, q)]
    if "strong" in ans:
        strong, judge = ans.get("strong"), ans.get("strong_judge", "the strong judge")
        if strong and strong.get("damaged"):
            parts.append(f'<div class="answer fail" id="answer-strong" data-verdict="damaged"><p>{e(strong["damaged"])}</p></div>')
        elif strong:
            parts.append(_gate_answer(strong, "Strong players", f"<code>{e(judge)}</code> in every seat, the gate "
                                      "<code>ci-strong</code>", "answer-strong", f"{folder_rel}/strong", status, q))
        elif status in ("running", "queued"):
            parts.append('<div class="answer" id="answer-strong" data-verdict="playing"><p><strong>Strong players</strong> '
                         f"(<code>{e(judge)}</code> in every seat): playing the same deals now; the answer fills in here.</p></div>")
    return "".join(parts)


def gate_answer_block(ans, who, folder_rel):
    """The words and seat table of one gate's answer (a folder that is no check of the desk)."""
    if not ans or ans.get("damaged") or ans.get("lines"):
        return answer_block(ans, folder_rel, "done")
    return _gate_answer(ans, who, "", "answer", folder_rel, "done", "")


def _where(f):
    players = str(f.get("cell_key", "")).split("|")[0].replace("players=", "")
    return f"{players} players" if players else ""


def _figure_words(f, detail=True):
    from reports.gate.format import fmt_change, fmt_interval, fmt_margin

    kind = f.get("kind") or ("win_rate" if "win rate" in str(f.get("label", "")) else "")
    ci = [f"interval {fmt_interval(kind, f['ci_low'], f['ci_high'])}"] if "ci_low" in f and "ci_high" in f else []
    margin = [f"margin {fmt_margin(kind, f['margin'])}"] if "margin" in f else []
    detail = f" ({', '.join(ci + margin)})" if (ci or margin) and detail else ""
    return f"{f.get('label', '')}, {_where(f)}: {fmt_change(kind, f.get('change', 0.0))}{detail}"


def answer_head(ans):
    """One gate's answer in a sentence: what moved beyond its margin, else what is undecided, else
    that every figure held."""
    moved = [f for f in ans.get("changed", []) if f.get("verdict") == "fail"]
    open_ = [f for f in ans.get("changed", []) if f.get("verdict") == "inconclusive"]
    if moved:
        return (f"the change moved {len(moved)} figure{'s' * (len(moved) != 1)} beyond "
                f"{'its' if len(moved) == 1 else 'their'} margin")
    if open_:
        return (f"not decided: {len(open_)} figure{'s' * (len(open_) != 1)} not shown within "
                f"{'its' if len(open_) == 1 else 'their'} margin yet (more deals would tell)")
    return "the change moved no figure beyond its margin: every figure held"


def short_answer(ans, status=""):
    """A judge's answer for the history: the sentence and the figures that moved (or are undecided)."""
    if not ans:
        return "playing" if status in ("running", "queued") else "no answer"
    if ans.get("damaged"):
        return "damaged: " + str(ans["damaged"])[:120]
    words = answer_head(ans)
    moved = [f for f in ans.get("changed", []) if f.get("verdict") == "fail"] or ans.get("changed", [])
    if moved:
        words += ": " + "; ".join(_figure_words(f, detail=False) for f in moved[:3]) + ("; ..." if len(moved) > 3 else "")
    return words


def change_words(change):
    """A check's change as the history says it: ``key: shipped -> value`` per key."""
    if not change:
        return "(not recorded)"
    if change.get("damaged"):
        return change["damaged"]
    items = change.get("changes") or []
    if not items:
        return "no change from the shipped file"
    return "; ".join(f"{c['key']}: {c['shipped'] if c['shipped'] is not None else '(none)'} -> "
                     f"{c['value'] if c['value'] is not None else '(removed)'}" for c in items)


def _gate_answer(ans, who, how, anchor, folder_rel, status, q):
    verdict = str(ans.get("verdict", ""))
    counts = {k: int(v) for k, v in (ans.get("counts") or {}).items()}
    moved = [f for f in ans.get("changed", []) if f.get("verdict") == "fail"]
    open_ = [f for f in ans.get("changed", []) if f.get("verdict") == "inconclusive"]
    held = counts.get("pass", 0)
    deals = ans.get("deals") or {}
    played = ", ".join(f"{n:,} at {p} players" for p, n in sorted(deals.items())) if deals else ""
    head = answer_head(ans)
    detail = "; ".join(x for x in (how, f"deals: {e(played)}" if played else "") if x)
    words = [f"<p><strong>{who}</strong>{f' ({detail})' if detail else ''}: {e(head)}.</p>"]
    if moved:
        words.append('<p>Moved beyond the margin:</p><ul class="moved">' + "".join(
            f"<li>{e(_figure_words(f))}</li>" for f in moved) + "</ul>")
    if open_:
        words.append('<p>Not decided (neither shown within the margin nor beyond it):</p><ul class="open">' + "".join(
            f"<li>{e(_figure_words(f))}</li>" for f in open_) + "</ul>")
    words.append(f"<p>Held within the margin: {held} figure{'s' * (held != 1)}.</p>")
    rows = []
    for f in ans.get("figures", []):
        ci = f" [{100 * f['ci_low']:+.1f}, {100 * f['ci_high']:+.1f}]" if "ci_low" in f and "ci_high" in f else ""
        v = str(f.get("verdict", ""))
        now, change = f.get("now", 0.0), f.get("change", 0.0)
        # One basis: the change is paired deal by deal, so the baseline's rate on the same deals is now - change.
        rows.append([e(_where(f).replace(" players", "")), e(str(f.get("label", ""))), f"{100 * (now - change):.1f}%",
                     f"{100 * now:.1f}%", f"{100 * change:+.1f} pp{ci}", f'<span class="v-{e(v)}">{e(gate_word(v))}</span>'])
    tab = table(["players", "figure", "before the change", "after the change", "change (paired, per deal)", "verdict"],
                rows, f"win-rates-{anchor}")
    links = (f'<p>{link(f"/files/{folder_rel}/report/report.html{q}", "the balance report of this run")} · '
             f'{link(f"/regress/{folder_rel}{q}", "every figure of the gate")}</p>') if anchor == "answer" else (
             f'<p>{link(f"/regress/{folder_rel}{q}", "every figure of the gate")}</p>')
    cls = "answer fail" if verdict == "fail" else "answer"
    return (f'<div class="{cls}" id="{anchor}" data-verdict="{e(verdict)}">{"".join(words)}'
            f"<p>Seat win rates against the baseline, both on the deals this check played:</p>{tab}"
            f"{links if status == 'done' else ''}</div>")


def rel(path, root):
    try:
        return str(Path(path).resolve().relative_to(Path(root).resolve()))
    except ValueError:
        return str(path)


def shown(text):
    """A folder or a command line as the page shows it: the home folder as ``~`` (no user name on screen)."""
    home = str(Path.home()).rstrip("/")
    return str(text).replace(home + "/", "~/") if home else str(text)
