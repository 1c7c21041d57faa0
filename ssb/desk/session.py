"""The designer's session in the desk, beside the edit and check pages of :mod:`ssb.desk.app`: the
history of every check (its change, its answer per judge, its state), two tries side by side, and
"Which number should I change?" from the designer's own file (:mod:`ssb.desk.tuning`)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from starlette.responses import RedirectResponse
from starlette.routing import Route

from simulator.errors import DataError
from ssb.desk import catalog, forms, guard, jobs, tuning
from ssb.desk.pages import change_words, cmd_block, e, gate_word, link, rel, short_answer, shown, table

GAMES = re.compile(r"-?[0-9]{1,9}")  # ASCII digits only


def tune_files(root):
    """The files "Which number?" searches from: every instrument and the instrument game's board."""
    out = {f"instrument/{n}": ed for n, ed in catalog.instruments(root).items()}
    out.update({f"board/{k}": ed for k, ed in catalog.boards(root).items() if ed.checkable})
    return out


def routes(desk):
    """The routes of the session's pages; ``desk`` holds what the app shares (its folder, its page
    frame and refusals, the form token's hidden field, the results/ confinement, launch)."""
    root, page, not_found, refused, hidden = desk.root, desk.page, desk.not_found, desk.refused, desk.hidden
    in_results, short, workers, env, launch = desk.in_results, desk.short, desk.workers, desk.env, desk.launch

    # ------------------------------------------------------------------ history and compare
    def checks():
        """Every check the desk started under results/desk/ (a folder with desk.json of kind check, not
        reached through a link), newest first: ``[(folder, state)]``."""
        base = root / "results" / "desk"
        if not base.is_dir() or guard.link_in(root, base) is not None:
            return []
        found = []
        for folder in base.iterdir():
            if folder.is_symlink() or not folder.is_dir():
                continue
            state = jobs.read_state(folder)
            if state is None or state.get("kind") != "check":
                continue
            found.append((str(state.get("started", "")), folder.name, folder))
        found.sort(reverse=True)
        return [(folder, jobs.status(folder)) for _s, _n, folder in found]

    def what_of(change):
        if not change or change.get("damaged"):
            return ""
        return f"{change.get('kind', '')} {change.get('name', '')}".strip()

    async def history(request):
        rows = []
        for folder, state in checks():
            r = rel(folder, root)
            change = jobs.read_change(folder)
            ans = state.get("answer") or {}
            status = str(state.get("status", ""))
            strong = ans.get("strong") if ans else None
            rows.append([
                f'<input type="checkbox" name="try" value="{e(r)}" class="pick">',
                link(f"/check/{r}", folder.name), e(str(state.get("started", "")).replace("T", " ")[:16]),
                e(what_of(change)), f'<span class="changes">{e(change_words(change))}</span>',
                e(short_answer(ans if ans and not ans.get("lines") else None, status)),
                e(short_answer(strong, status) if ans else ("playing" if status in ("running", "queued") else "")),
                e(status)])
        body = ["<h1>History: every check of this desk</h1>",
                '<p class="meta">Each check with its change (the values of your file that differ from the shipped '
                "file when the check started, kept in the check's folder as change.json), its answer per judge "
                "and its state. Tick two and compare them.</p>",
                '<form method="get" action="/compare" id="compare-form">',
                table(["", "check", "started", "file", "change", "greedy players", "strong players", "state"], rows,
                      "history"),
                '<p><button type="submit" id="compare-two">Compare the two ticked checks</button></p></form>']
        if not rows:
            body.append("<p>No check yet: change a number of an instrument or the board, save it, and start "
                        "\"Did this change move the balance?\".</p>")
        return page("History", "".join(body))

    def figure_cell(f):
        from reports.gate.format import fmt_change, fmt_interval

        if f is None:
            return "-"
        kind = f.get("kind", "")
        ci = f" {fmt_interval(kind, f['ci_low'], f['ci_high'])}" if "ci_low" in f and "ci_high" in f else ""
        v = str(f.get("verdict", ""))
        return f'{e(fmt_change(kind, f.get("change", 0.0)) + ci)} <span class="v-{e(v)}">{e(gate_word(v))}</span>'

    async def compare(request):
        picked = request.query_params.getlist("try")
        if len(picked) != 2:
            return refused("Compare two checks", f"Tick two checks in the history to compare them ({len(picked)} "
                                                 "ticked).", 400)
        tries = []
        for name in picked:
            try:
                folder = in_results(name)
            except guard.Refused as exc:
                return not_found(f"No such check: {exc}")
            if not (folder / jobs.DESK_FILE).is_file() or (folder / jobs.DESK_FILE).is_symlink():
                return not_found(f"No such check: {short(name)}")
            tries.append((folder, jobs.status(folder), jobs.read_change(folder)))
        (fa, sa, ca), (fb, sb, cb) = tries
        rows = [["<strong>check</strong>", link(f"/check/{rel(fa, root)}", fa.name), link(f"/check/{rel(fb, root)}", fb.name)],
                ["file", e(what_of(ca)), e(what_of(cb))],
                ["change", f'<span class="changes">{e(change_words(ca))}</span>',
                 f'<span class="changes">{e(change_words(cb))}</span>'],
                ["state", e(str(sa.get("status", ""))), e(str(sb.get("status", "")))]]
        for judge, pick in (("Greedy players", lambda a: a), ("Strong players", lambda a: (a or {}).get("strong"))):
            a, b = pick(sa.get("answer")), pick(sb.get("answer"))
            a = None if a and a.get("lines") else a
            b = None if b and b.get("lines") else b
            rows.append([f"<strong>{judge}</strong>", e(short_answer(a, sa.get("status", ""))),
                         e(short_answer(b, sb.get("status", "")))])
            by_a = {(f.get("cell_key"), f.get("label")): f for f in (a or {}).get("all", []) or []}
            by_b = {(f.get("cell_key"), f.get("label")): f for f in (b or {}).get("all", []) or []}
            moved = [k for k in dict.fromkeys([*by_a, *by_b])
                     if (by_a.get(k) or {}).get("verdict", "pass") != "pass"
                     or (by_b.get(k) or {}).get("verdict", "pass") != "pass"]
            for k in moved:
                players = str(k[0]).split("|")[0].replace("players=", "")
                rows.append([e(f"{k[1]}, {players} players"), figure_cell(by_a.get(k)), figure_cell(by_b.get(k))])
            if (a or b) and not moved:
                rows.append(["", "every figure held" if a else "", "every figure held" if b else ""])
        body = ["<h1>Two tries side by side</h1>",
                '<p class="meta">Each try\'s change, then per judge the figures that moved beyond their margin or are '
                "undecided in either try: the change against the baseline on the deals that try played, its "
                "interval, and held / moved / undecided.</p>",
                table(["", "try A", "try B"], rows, "compare"), f"<p>{link('/history', 'back to the history')}</p>"]
        return page("Compare", "".join(body))

    # ------------------------------------------------------------------ tune
    def tune_keys(ed):
        """The whole numbers of the file being edited (the designer's own when saved) as search keys."""
        text = ed.own.read_text(encoding="utf-8") if ed.own.is_file() and ed.own_problem() is None else ed.source_text()
        return tuning.keys_of(ed, forms.fields_of(tomllib.loads(text)), ed.shipped_fields())

    def workers_n():
        import os

        return workers or os.cpu_count() or 1

    def shipped_searches():
        rows = [[e(t), f'<form method="post" action="/tune">{hidden}<input type="hidden" name="tune" value="{e(t)}">'
                        f'<button type="submit" class="secondary">Start the shipped search {e(t)}</button></form>',
                 f"<code>ssb tune {e(t)}</code>"] for t in catalog.tunes()]
        return ("<h2>The shipped balance searches</h2><p>Searches of the lab's own questions (the guide: the "
                "balance search); each takes minutes to hours.</p>" + table(["search", "", "command"], rows, "tunes"))

    def tune_form(ed, file_key, picked_target="", ticked=None, error="", values=None):
        values = values or {}
        answer, from_rel = None, str(values.get("from", ""))
        proposals = []
        if from_rel:
            try:
                folder = in_results(from_rel)
                if (folder / jobs.DESK_FILE).is_file():
                    answer = jobs.answer(folder)
            except guard.Refused:
                answer = None
            proposals = tuning.from_report(answer, ed.name if ed.kind == "instrument" else None)
        offered = tuning.targets(ed.name if ed.kind == "instrument" else None)
        why = dict(proposals)
        picked_target = picked_target or (proposals[0][0] if proposals else offered[0].value)
        radios = []
        for t in offered:
            note = f' <span class="meta">(proposed by the check: {e(why[t.value])})</span>' if t.value in why else ""
            checked = " checked" if t.value == picked_target else ""
            radios.append(f'<p><label><input type="radio" name="target" value="{e(t.value)}" id="t-{e(t.value)}"{checked}> '
                          f"{e(t.words)}</label>{note}</p>")
        keys = tune_keys(ed)
        ticked = set(ticked) if ticked is not None else {k.key for k in keys if k.changed}
        rows, more = [], []
        for i, k in enumerate(keys):
            lo, hi = values.get(f"lo.{k.key}", k.lo), values.get(f"hi.{k.key}", k.hi)
            if k.values is not None:
                listed = values.get(f"values.{k.key}", forms.toml_value(k.values))
                searched = (f'values <input type="text" size="40" name="values.{e(k.key)}" value="{e(str(listed))}"> '
                            '<span class="meta">(a lever of the shipped searches)</span>')
            else:
                searched = (f'<input type="text" size="4" name="lo.{e(k.key)}" value="{e(str(lo))}"> to '
                            f'<input type="text" size="4" name="hi.{e(k.key)}" value="{e(str(hi))}">')
            now = "(not set)" if k.value is None else forms.toml_value(k.value) if not isinstance(k.value, str) else k.value
            row = [f'<input type="checkbox" name="key" value="{e(k.key)}" id="k-{i}"{" checked" if k.key in ticked else ""}>',
                   f'<label for="k-{i}"><code>{e(k.label)}</code></label>', e(now),
                   e("" if k.shipped is None else str(k.shipped)) + (" (you changed it)" if k.changed else ""),
                   searched]
            (rows if k.changed or k.key in ticked else more).append(row)
        head = ["vary", "number", "now", "shipped", "range searched"]
        key_part = (table(head, rows, "tune-keys") if rows else
                    "<p>You have changed no number of this file yet: tick the numbers to vary below.</p>")
        if more:
            key_part += (f"<details><summary>The file's other whole numbers ({len(more)})</summary>"
                         + table(head, more, "tune-more-keys") + "</details>")
        trials = values.get("trials", "8")
        max_keys = values.get("max_keys", "1")
        seconds = values.get("seconds", "600")
        return "".join([
            "<h1>Which number should I change?</h1>",
            f"<p>Start from your problem: pick a target, the numbers of <strong>{e(ed.kind)} {e(ed.name)}</strong> "
            "to vary and their ranges; the desk writes a tuning file for <code>ssb tune</code>, shows how long it "
            "should take, and starts it when you say so. The search starts from your own file.</p>",
            f'<form method="get" action="/tune" id="tune-file-form"><label>file <select name="file" id="tune-file">'
            + "".join(f'<option value="{e(k)}"{" selected" if k == file_key else ""}>{e(k)}</option>'
                      for k in tune_files(root))
            + '</select></label> <button type="submit" class="secondary" id="tune-file-show">Show this file\'s numbers'
              "</button></form>",
            f'<p class="form-error" id="tune-error">{e(error)}</p>' if error else "",
            f'<form method="post" action="/tune/plan" id="tune-form">{hidden}'
            f'<input type="hidden" name="file" value="{e(file_key)}"><input type="hidden" name="from" value="{e(from_rel)}">',
            "<h2>The target</h2>", "".join(radios),
            '<h2 id="tune-keys-area">The numbers to vary</h2>', key_part,
            "<h2>How much to try</h2>",
            f'<p><label>candidates per number of keys (greedy targets) <input type="text" size="4" name="trials" '
            f'id="tune-trials" value="{e(str(trials))}"></label> <label>keys changed at once, at most '
            f'<input type="text" size="3" name="max_keys" id="tune-max-keys" value="{e(str(max_keys))}"></label> '
            f'<label>declared CPU seconds (strong targets) <input type="text" size="6" name="seconds" id="tune-seconds" '
            f'value="{e(str(seconds))}"></label></p>',
            '<p><button type="submit" id="tune-plan">Write the tuning file and estimate its duration</button></p></form>',
        ])

    def default_file(request):
        file_key = request.query_params.get("file", "")
        files = tune_files(root)
        if file_key not in files:
            file_key = next((k for k, ed in files.items() if ed.own.is_file()), "instrument/Horns")
        return file_key, files.get(file_key)

    async def tune(request):
        if request.method == "POST":
            form = await request.form()
            name = str(form.get("tune", ""))
            if name not in catalog.tunes():
                return not_found(f"No balance search named {short(name)}.")
            return launch(f"tune-{name}", "tune", lambda r: jobs.tune_steps(r, name, jobs=workers),
                          f"Which number should I change? ({name})")
        file_key, ed = default_file(request)
        if ed is None:
            return not_found(f"No file {short(file_key)}.")
        body = tune_form(ed, file_key, values={"from": request.query_params.get("from", "")}) + shipped_searches()
        return page("Which number?", body)

    def int_in(form, name, lo, hi, what):
        text = str(form.get(name, "")).strip()
        if not GAMES.fullmatch(text) or not lo <= int(text) <= hi:
            raise ValueError(f"{what}: expected a whole number from {lo} to {hi}, got {short(text, 30)!r}")
        return int(text)

    async def tune_plan(request):
        """Write the tuning file (and the scenario it plays) into a new folder of the desk's, check it
        with ``ssb tune``'s own loader, and show it with its estimate before anything starts."""
        from scenarios.tuning import load_tuning

        form = await request.form()
        files = tune_files(root)
        file_key = str(form.get("file", ""))
        ed = files.get(file_key)
        if ed is None:
            return not_found(f"No file {short(file_key)}.")
        values = {k: str(v) for k, v in form.items() if k not in ("key", guard.FORM_FIELD)}
        ticked = [str(k) for k in form.getlist("key")]
        offered = tuning.targets(ed.name if ed.kind == "instrument" else None)
        target = tuning.parse_target(str(form.get("target", "")), offered)

        def again(error, status=400):
            return page("Which number?", tune_form(ed, file_key, str(form.get("target", "")), ticked, error, values)
                        + shipped_searches(), status)

        if ed.own_problem():
            return again(f"Your file cannot be read: {ed.own_problem()}. Open its page to repair it.", 409)
        if target is None:
            return again("Pick a target.")
        known = {k.key: k for k in tune_keys(ed)}
        if not ticked:
            return again("Tick at least one number to vary.")
        if len(ticked) > tuning.MAX_KEYS or any(k not in known for k in ticked):
            return again(f"Tick from 1 to {tuning.MAX_KEYS} of the file's numbers.")
        try:
            space = {}
            for k in ticked:
                if known[k].values is not None:
                    text = str(form.get(f"values.{k}", "")).strip()
                    try:
                        listed = tomllib.loads(f"v = {text}")["v"] if len(text) <= forms.MAX_VALUE else None
                    except (tomllib.TOMLDecodeError, RecursionError):
                        listed = None
                    if not isinstance(listed, list) or len(listed) < 2:
                        raise ValueError(f"{known[k].label}: values: expected a list of at least two values, such as "
                                         f"{forms.toml_value(known[k].values)}")
                    space[k] = listed
                    continue
                lo = int_in(form, f"lo.{k}", -1000, 1000, f"{known[k].label}: from")
                hi = int_in(form, f"hi.{k}", -1000, 1000, f"{known[k].label}: to")
                if lo >= hi:
                    raise ValueError(f"{known[k].label}: the range {lo} to {hi} holds no other value")
                space[k] = (lo, hi)
            trials = int_in(form, "trials", 1, tuning.MAX_TRIALS, "candidates")
            max_keys = int_in(form, "max_keys", 1, min(3, len(space)), "keys changed at once")
            seconds = int_in(form, "seconds", 10, tuning.MAX_SECONDS, "declared CPU seconds")
        except ValueError as exc:
            return again(str(exc))
        stem = re.sub(r"[^a-z0-9-]+", "-", Path(ed.own).stem.lower()).strip("-") or "file"
        try:
            folder = jobs.new_folder(root, f"tune-{stem}")
        except (guard.Refused, OSError) as exc:
            return again(f"Not written: {exc}", 409)
        name = f"desk-{stem}"
        dirs = [jobs.DESIGN_INSTRUMENTS] if ed.kind == "instrument" and ed.own.is_file() else []
        board = None
        if ed.kind == "board" and ed.own.is_file():
            board = {c["name"]: tomllib.loads(f"v = {c['value']}")["v"] for c in ed.changes() if c["value"] is not None}
        scen = tuning.scenario_doc(name, target.counts, ["../../../" + d for d in dirs], board, target.strong)
        doc = tuning.tuning_doc(name, target, space, trials, max_keys, seconds)
        try:
            guard.write_file(root, folder / tuning.SCENARIO_FILE, tuning.dumps(scen, "written by the desk"))
            guard.write_file(root, folder / tuning.TUNE_FILE, tuning.dumps(doc, "written by the desk: " + target.words))
            load_tuning(str(folder / tuning.TUNE_FILE))
        except (guard.Refused, OSError, DataError) as exc:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)  # the desk's own new folder: nothing else was in it
            hint = " (a target at strong play needs the race mode of ssb tune)" if target.strong else ""
            return again(f"ssb tune refuses this search: {str(exc).replace(str(root) + '/', '')}{hint}")
        return RedirectResponse(f"/tune/plan/{rel(folder, root)}", status_code=303)

    def plan_folder(request):
        folder = in_results(request.path_params["folder"])
        path = folder / tuning.TUNE_FILE
        if path.is_symlink() or not path.is_file() or not folder.is_relative_to(root / "results" / "desk"):
            raise guard.Refused("this folder holds no tuning file of the desk's")
        return folder

    async def tune_plan_page(request):
        try:
            folder = plan_folder(request)
            text = (folder / tuning.TUNE_FILE).read_text(encoding="utf-8")
            doc = tomllib.loads(text)
            low, high, words = tuning.estimate(doc, workers_n())
        except (guard.Refused, OSError, ValueError, KeyError, TypeError) as exc:
            return not_found(f"No such search: {short(exc, 200)}")
        r = rel(folder, root)
        started = (folder / jobs.DESK_FILE).exists()
        cmd = jobs.command_line(jobs.own_tune_steps(r, jobs=workers)[0])
        est = tuning.duration_range(low, high)
        body = [f"<h1>Which number should I change? {e(doc.get('description', ''))}</h1>",
                f'<p id="estimate"><strong>Estimated duration: {e(est)}</strong> ({e(words)}).</p>',
                "<p>The tuning file the desk wrote (its scenario beside it starts from your own file):</p>",
                f'<pre class="story" id="tune-file-text">{e(text)}</pre>',
                "<p>The same from the command line:</p>", cmd_block([shown(cmd)], "tune-command")]
        if started:
            body.append(f"<p>{link(f'/check/{r}', 'This search has started: its progress')}</p>")
        else:
            body.append(f'<form method="post" action="/tune/start" id="tune-start-form">{hidden}'
                        f'<input type="hidden" name="folder" value="{e(r)}">'
                        f'<button type="submit" id="tune-start">Start the search ({e(est)})</button></form>')
        return page("Which number?", "".join(body))

    async def tune_start(request):
        form = await request.form()
        try:
            folder = in_results(str(form.get("folder", "")))
            if not (folder / tuning.TUNE_FILE).is_file() or not folder.is_relative_to(root / "results" / "desk"):
                raise guard.Refused("this folder holds no tuning file of the desk's")
        except guard.Refused as exc:
            return not_found(f"No such search: {exc}")
        if (folder / jobs.DESK_FILE).exists() or (folder / jobs.DESK_FILE).is_symlink():
            return RedirectResponse(f"/check/{rel(folder, root)}", status_code=303)
        doc = tomllib.loads((folder / tuning.TUNE_FILE).read_text(encoding="utf-8"))
        try:
            jobs.start(folder, "tune", jobs.own_tune_steps(rel(folder, root), jobs=workers),
                       f"Which number should I change? {doc.get('description', '')}", root, env)
        except (guard.Refused, OSError) as exc:
            return refused("Not started", f"Not started: {exc}")
        return RedirectResponse(f"/check/{rel(folder, root)}", status_code=303)

    return [
        Route("/history", history),
        Route("/compare", compare),
        Route("/tune", tune, methods=["GET", "POST"]),
        Route("/tune/plan", tune_plan, methods=["POST"]),
        Route("/tune/plan/{folder:path}", tune_plan_page),
        Route("/tune/start", tune_start, methods=["POST"]),
    ]
