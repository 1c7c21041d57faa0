"""The desk's web application (Starlette): the routes, behind the guard (:mod:`ssb.desk.guard`: the
Host header, the token a desk bound to another address asks for, the origin of every request that
changes something).

Routes::

    /                         games, instruments, boards, strategies, balance searches, recent runs
    /edit/instrument/NAME     a form of an instrument file (POST: check with the loader, save)
    /edit/board/GAME/NAME     the same for a board file
    /shipped/KIND/KEY         POST: put the shipped value back (one key, or the whole file)
    /history, /compare        every check with its change and answer; two of them side by side
    /check                    POST: start "did this change move the balance?" on a saved file
    /check/FOLDER             a check's page; /progress, /cancel, /resume its live parts
    /tune                     "which number should I change?": a target and the keys to vary, from your file
    /tune/plan/FOLDER         the tuning file written and its estimated duration; /tune/start starts it
    /runs, /run/FOLDER        the run folders on disk; /files/... serves what a run folder holds
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from types import SimpleNamespace

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from simulator.errors import DataError
from ssb.desk import catalog, forms, guard, jobs, session
from ssb.desk.pages import (
    answer_block,
    gate_answer_block as pages_gate_answer,
    check_fragment,
    cmd_block,
    e,
    field_rows,
    gate_word,
    layout,
    link,
    rel,
    shown,
    table,
)

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = guard.COOKIE
GAMES = re.compile(r"[0-9]{1,9}")  # ASCII digits only: str.isdigit() also takes '²' and '٣'


def create_app(root=".", token=None, check_games=None, check_chunk=None, env=None, workers=0, host="127.0.0.1",
               port=None):
    """The desk for the designer's folder ``root`` (``designs/`` and ``results/`` under it).

    ``token``: required of every request when given (else the ``Host`` header must name ``host``
    or this machine, on ``port``: :mod:`ssb.desk.guard`). ``check_games``/``check_chunk``: the games
    per cell and chunk size a check starts with (default: the gate scenario's own, every baseline
    deal); ``workers``: the worker processes of its runs (0: all cores)."""
    root = Path(root).resolve()
    workers = int(workers)
    form_token = guard.new_form_token()
    hidden = f'<input type="hidden" name="{guard.FORM_FIELD}" value="{e(form_token)}">'

    def page(title, body, status=200):
        return HTMLResponse(layout(title, body, form_token=form_token), status_code=status)

    def not_found(what):
        return page("Not found", f'<h1>Not found</h1><p class="form-error" id="refused">{e(what)}</p>', 404)

    def refused(title, why, status=409):
        return page(title, f'<h1>{e(title)}</h1><p class="form-error" id="refused">{e(why)}</p>', status)

    def editable(kind, key):
        if kind not in ("instrument", "board"):
            raise KeyError(kind)
        found = (catalog.instruments(root) if kind == "instrument" else catalog.boards(root)).get(key)
        if found is None:
            raise KeyError(key)
        return found

    def in_results(name):
        """A path of a URL (``results/...``), resolved and refused unless it stays within results/."""
        path = guard.inside(root, name)
        if not path.is_relative_to(root / "results"):
            raise guard.Refused("outside the desk's results/ folder")
        return path

    def short(text, n=80):
        text = str(text)
        return text if len(text) <= n else text[:n] + "..."

    # ------------------------------------------------------------------ home
    def own_cell(ed):
        problem = ed.own_problem()
        if problem:
            return e("damaged: " + short(problem))
        return e(rel(ed.own, root)) if ed.own.exists() else ""

    async def home(request):
        from simulator import games as registry

        games = [[e(g.name), e(g.title), e(", ".join(map(str, g.player_counts))), e(", ".join(g.boards))]
                 for g in (registry.get(n) for n in registry.names())]
        inst = [[link(f"/edit/instrument/{name}", name), e(str(ed.shipped.name)), own_cell(ed)]
                for name, ed in catalog.instruments(root).items()]
        brd = [[link(f"/edit/board/{key}", key), e(ed.shipped.name), own_cell(ed)]
               for key, ed in catalog.boards(root).items()]
        strat = {}
        for game, name in catalog.strategies():
            strat.setdefault(game, []).append(name)
        runs = [[link(f"/run/{rel(folder, root)}", rel(folder, root)), e(info["name"]), run_status(info)]
                for folder, info in catalog.runs(root)[:12]]
        body = [
            "<h1>The designer's desk</h1>",
            f'<p class="meta">Folder: {e(shown(root))}. Your own files are saved under '
            f"{e(catalog.DESIGNS)}/, runs under results/. Every action shows its ssb command.</p>",
            "<h2>Games</h2>", table(["game", "title", "player counts", "boards"], games),
            '<h2 id="instruments">Instruments</h2><p>Change a number of an instrument, then ask whether it moved '
            "the balance.</p>", table(["instrument", "shipped file", "your file"], inst, "instruments"),
            '<h2 id="boards">Boards</h2>', table(["board", "shipped file", "your file"], brd, "boards"),
            '<h2 id="strategies">Strategies</h2>',
            table(["game", "strategies"], [[e(g), e(", ".join(n))] for g, n in strat.items()]),
            cmd_block(["ssb strategies list", "ssb strategies ladder --players 3"]),
            '<h2>Recent runs</h2>', table(["folder", "scenario", "status"], runs, "runs"), link("/runs", "all runs"),
        ]
        return page("Home", "".join(body))

    def run_status(info):
        if info["damaged"]:
            return f'<span class="v-fail" title="{e(info["damaged"])}">damaged</span>: {e(short(info["damaged"], 120))}'
        return e(info["status"])

    # ------------------------------------------------------------------ edit
    def differs(ed, fields):
        """Field name -> the shipped value as shown, for each field of ``fields`` whose value differs
        from the shipped file's (only when the designer's own file is there: the form starts from it)."""
        if not ed.own.is_file() or ed.own_problem() is not None:
            return {}
        try:
            shipped = ed.shipped_fields()
        except (OSError, ValueError):
            return {}
        return {f.name: shipped[f.name].shown() for f in fields
                if f.name in shipped and shipped[f.name].value != f.value
                and not (f.name == "board.name" and not ed.checkable)}

    def back_form(ed, n):
        own = rel(ed.own, root)
        return (f'<form method="post" action="{e(back_of(ed))}" id="shipped-form">{hidden}'
                '<input type="hidden" name="all" value="file">'
                f'<p><button type="submit" class="secondary" id="all-shipped">Back to the shipped file: remove {e(own)} '
                f"({n} value{'s' * (n != 1)} differ{'s' * (n == 1)})</button></p></form>")

    def edit_body(ed, fields, errors, changed=(), note=""):
        own = rel(ed.own, root)
        ship = differs(ed, fields)
        if ed.kind == "instrument":
            validate = ["ssb instruments validate " + own]
        elif ed.checkable:  # a run reads it through the scenario's overrides (the check below)
            validate = ["ssb run ci --set 'overrides.board.KEY=VALUE' --out results/what-if"]
        else:
            validate = [f"ssb check --game {ed.game} --board {own} --games 100"]
        top = errors.get("", "")
        return "".join([
            f'<div id="form-area"><h1>{e(ed.kind.title())}: {e(ed.name)}</h1>',
            f'<p class="meta">Editing {e(rel(ed.source, root) if ed.source == ed.own else str(ed.shipped))}; '
            f"saved as your own file {e(own)} (a shipped file is never written). "
            "Each field is named by the key the loader checks; its message appears beside the field.</p>",
            note,
            f'<p class="form-error" id="form-error">{e(top)}</p>' if top else "",
            f'<form id="edit-form" hx-post="{e(action_of(ed))}" hx-target="#form-area" hx-swap="outerHTML">',
            hidden, field_rows(fields, errors, changed, ship, back_of(ed)),
            '<p><button type="submit" id="save">Check and save</button></p></form>',
            back_form(ed, len(ship)) if ed.own.is_file() and ed.own_problem() is None else "",
            "<p>The same from the command line, after saving:</p>", cmd_block(validate),
            check_form(ed) if ed.checkable and ed.own.is_file() else "",
            (f'<p>{link(f"/tune?file={ed.kind}/{key_of(ed)}", "Which number should I change? Search from this file")}</p>'
             if ed.checkable else ""),
            "</div>",
        ])

    def key_of(ed):
        return ed.name if ed.kind == "instrument" else ed.game + "/" + ed.name

    def action_of(ed):
        return f"/edit/{ed.kind}/{key_of(ed)}"

    def back_of(ed):
        return f"/shipped/{ed.kind}/{key_of(ed)}"

    def repair_body(ed, problem, text=None, message=""):
        """The repair view of a designer's file the form cannot show: what is wrong, its text to fix
        (checked by the loader before it is saved), or a reset to the shipped file."""
        own = rel(ed.own, root)
        text = ed.own_text() if text is None else text
        return "".join([
            f'<div id="form-area"><h1>{e(ed.kind.title())}: {e(ed.name)}: repair your file</h1>',
            f'<p class="form-error" id="repair">Your file {e(own)} cannot be edited in the form: {e(problem)}.</p>',
            f'<p class="form-error" id="form-error">{e(message)}</p>' if message else "",
            "<p>Fix its text below (the loader checks it before it is saved), or reset it: the form starts "
            "again from the shipped file.</p>",
            f'<form method="post" action="{e(action_of(ed))}" id="repair-form">{hidden}'
            '<input type="hidden" name="_repair" value="text">'
            f'<textarea name="text" id="repair-text" rows="24" cols="100">{e(text)}</textarea>'
            '<p><button type="submit" id="repair-save">Check and save this text</button></p></form>',
            f'<form method="post" action="{e(action_of(ed))}" id="reset-form">{hidden}'
            '<input type="hidden" name="_repair" value="reset">'
            f'<button type="submit" class="secondary" id="reset">Reset: remove {e(own)}</button></form>',
            "</div>",
        ])

    def repair(ed, form):
        """Reset (remove the designer's file) or save a fixed text, each refused through a link."""
        own, what = ed.own, form.get("_repair")
        try:
            guard.writable(root, own)
            if what == "reset":
                if own.is_dir():
                    if any(own.iterdir()):
                        return page(ed.name, repair_body(ed, ed.own_problem() or "", "",
                                                         f"{rel(own, root)} is a folder with files in it: the desk "
                                                         "does not remove it; move it away yourself."), 409)
                    own.rmdir()
                elif own.exists():
                    own.unlink()
                return RedirectResponse(action_of(ed), status_code=303)
            text = str(form.get("text", ""))
            if len(text) > catalog.MAX_OWN_FILE:
                raise ValueError(f"longer than {catalog.MAX_OWN_FILE:,} characters")
            try:
                doc = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"not TOML: {exc}") from None
            ed.validate(doc)
            if own.is_dir():
                raise ValueError(f"{rel(own, root)} is a folder: reset it first")
            guard.write_file(root, own, text)
        except guard.Refused as exc:
            return page(ed.name, repair_body(ed, str(exc), "", f"not saved: {exc}"), 409)
        except DataError as exc:
            return page(ed.name, repair_body(ed, ed.own_problem() or "its text", text, f"not saved: {exc}"), 400)
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # a value no loader check expected
            return page(ed.name, repair_body(ed, ed.own_problem() or "its text", text, f"not saved: {exc}"), 400)
        except OSError as exc:
            return page(ed.name, repair_body(ed, ed.own_problem() or "", None,
                                             f"not saved: {exc.filename or own}: {exc.strerror or exc}"), 409)
        return RedirectResponse(action_of(ed), status_code=303)

    def check_form(ed):
        games = check_games or ""
        return (
            '<h2>Did this change move the balance?</h2><p>Plays the regression gate (the starter set at 2, 3 and '
            "4 players, greedy mirrors) with your files on the baseline's own deals and compares every figure "
            "deal by deal.</p>"
            f'<form method="post" action="/check" id="check-form">{hidden}'
            f'<input type="hidden" name="kind" value="{e(ed.kind)}">'
            f'<input type="hidden" name="key" value="{e(ed.name if ed.kind == "instrument" else ed.game + "/" + ed.name)}">'
            f'<label>games per player count <input type="text" name="games" id="check-games" value="{e(str(games))}" '
            'placeholder="3000 (every baseline deal)"></label> '
            '<label><input type="checkbox" name="adaptive" id="check-adaptive"> play more deals until decided '
            "(ssb regress --adaptive)</label> "
            '<button type="submit" id="start-check">Start the check</button></form>'
        )

    async def edit(request):
        kind = request.path_params["kind"]
        key = request.path_params["key"]
        try:
            ed = editable(kind, key)
        except KeyError:
            return not_found(f"No {short(kind, 40)} named {short(key)}.")
        problem = ed.own_problem()
        form = dict(await request.form()) if request.method == "POST" else {}
        if form.get("_repair") in ("reset", "text"):
            return repair(ed, form)
        if problem:
            return page(ed.name, repair_body(ed, problem), 200 if request.method == "GET" else 409)
        text = ed.source_text()
        doc = tomllib.loads(text)
        fields = forms.fields_of(doc)
        if request.method == "GET":
            return page(ed.name, edit_body(ed, fields, {}))
        out = forms.check_and_save(doc, fields, form, ed.validate, text, ed.own, catalog.shipped_data_dirs(), root)
        if out.written is None:
            # Nothing written: the form keeps what was typed, the loader's message beside its field.
            shown = [forms.Field(f.name, f.key, f.alt, f.path, forms.parse_value(str(form.get(f.name, "")), f.value)
                                 if f.kind != "bool" else form.get(f.name) == "on", f.group) for f in fields]
            return HTMLResponse(edit_body(ed, shown, out.errors, out.changed))
        new_fields = forms.fields_of(tomllib.loads(ed.own.read_text(encoding="utf-8")))
        note = (f'<p class="saved" id="saved">Saved {e(rel(out.written, root))} '
                f"({len(out.changed)} value(s) changed: {e(', '.join(f.alt for f in fields if f.name in out.changed))}).</p>")
        warnings = forms.warnings(new_fields)
        if warnings:
            note += '<ul class="form-error" id="warnings">' + "".join(f"<li>{e(w)}</li>" for w in warnings) + "</ul>"
        return HTMLResponse(edit_body(ed, new_fields, {}, out.changed, note))

    async def back_to_shipped(request):
        """Put the shipped value back: one key of the designer's file (``field``), or the whole file
        (``all=file``: the designer's file is removed, the form shows the shipped file again). A write
        goes through :func:`ssb.desk.guard.write_file` (below the desk's folder, through no link)."""
        kind, key = request.path_params["kind"], request.path_params["key"]
        try:
            ed = editable(kind, key)
        except KeyError:
            return not_found(f"No {short(kind, 40)} named {short(key)}.")
        form = await request.form()
        problem = ed.own_problem()
        if problem:
            return page(ed.name, repair_body(ed, problem), 409)
        if not ed.own.is_file():
            return refused("Nothing to put back", "Your file is the shipped file already: there is no file of "
                                                  "yours to put back.")
        htmx = request.headers.get("hx-request") == "true"
        try:
            guard.writable(root, ed.own)
            if form.get("all") == "file":
                ed.own.unlink()
                return RedirectResponse(action_of(ed), status_code=303)
            name = str(form.get("field", ""))
            text = ed.own.read_text(encoding="utf-8")
            doc = tomllib.loads(text)
            fields = forms.fields_of(doc)
            mine = {f.name: f for f in fields}
            shipped = ed.shipped_fields()
            if name not in mine or name not in shipped:
                return refused("Nothing to put back", f"{short(name)}: not a key of both your file and the "
                                                      "shipped file.", 400)
            import copy

            new = copy.deepcopy(doc)
            forms.set_value(new, mine[name].path, copy.deepcopy(shipped[name].value))
            ed.validate(new)
            forms.write_over(text, new, fields, [name], ed.own, root)
        except guard.Refused as exc:
            return refused("Not put back", f"Not put back: {exc}")
        except DataError as exc:
            return refused("Not put back", f"Not put back: the loader refuses the file with the shipped value: {exc}",
                           400)
        except (OSError, ValueError, tomllib.TOMLDecodeError) as exc:
            return refused("Not put back", f"Not put back: {short(exc, 200)}")
        new_fields = forms.fields_of(tomllib.loads(ed.own.read_text(encoding="utf-8")))
        note = (f'<p class="saved" id="saved">Put back the shipped value of {e(mine[name].alt)}: '
                f"{e(shipped[name].shown())} (saved {e(rel(ed.own, root))}).</p>")
        if htmx:
            return HTMLResponse(edit_body(ed, new_fields, {}, [name], note))
        return RedirectResponse(action_of(ed), status_code=303)

    # ------------------------------------------------------------------ checks
    def board_sets(ed):
        """A Shuffle and Swing board's changes as the scenario overrides of a run."""
        shipped = {f.name: f for f in forms.fields_of(forms.read_doc(ed.shipped)[0])}
        sets = []
        for f in forms.fields_of(forms.read_doc(ed.own)[0]):
            old = shipped.get(f.name)
            if old is None or old.value != f.value:
                sets.append(f"overrides.board.{f.name}={forms.toml_value(f.value)}")
        return sets

    def launch(stem, kind, make_steps, title, change=None):
        """A new folder and its driver; a page that says why when the desk's folder refuses it
        (``change``: what the check plays, kept as the folder's change.json)."""
        try:
            folder = jobs.new_folder(root, stem)
            if change is not None:
                jobs.write_change(root, folder, change)
            jobs.start(folder, kind, make_steps(rel(folder, root)), title, root, env)
        except guard.Refused as exc:
            return refused("Not started", f"Not started: {exc}")
        except OSError as exc:
            return refused("Not started", f"Not started: {exc.filename or 'results/desk'}: {exc.strerror or exc} "
                                          "(the desk writes its runs under results/ of its folder)")
        return RedirectResponse(f"/check/{rel(folder, root)}", status_code=303)

    async def start_check(request):
        form = await request.form()
        kind, key = str(form.get("kind", "")), str(form.get("key", ""))
        try:
            ed = editable(kind, key)
        except KeyError:
            return not_found(f"No {short(kind, 40)} named {short(key)}.")
        problem = ed.own_problem()
        if problem:
            return refused("Nothing to check", f"Your file cannot be checked: {problem}. Open its page to repair it.")
        if not ed.own.is_file():
            return refused("Nothing to check", "Save your own file first.")
        if not ed.checkable:
            return refused("Nothing to check", f"The balance check plays the gate's scenario, which does not play "
                                               f"{ed.game}'s boards: check this board with `ssb check --game {ed.game} "
                                               f"--board {rel(ed.own, root)}`.")
        games = str(form.get("games", "") or "").strip()
        if games and not GAMES.fullmatch(games):
            return refused("Bad input", f"games: expected a whole number written in digits 0-9, got {short(games, 40)!r}",
                           400)
        if games and not 1 <= int(games) <= jobs.MAX_GAMES:
            return refused("Bad input", f"games: {int(games)} is not between 1 and {jobs.MAX_GAMES:,} (leave it "
                                        "empty to play every baseline deal)", 400)
        if kind == "instrument":
            sets = ['instrument_dirs=' + json.dumps([rel(ed.own.parent, root)])]  # the steps run in the desk's folder
        else:
            try:
                sets = board_sets(ed)
            except (DataError, OSError, ValueError) as exc:
                return refused("Nothing to check", f"Your file cannot be checked: {exc}")

        def steps(folder_rel):
            return jobs.check_steps(folder_rel, sets, int(games) if games else None, check_chunk,
                                    adaptive_budget=6000 if form.get("adaptive") else None, jobs=workers,
                                    sample=jobs.DESIGN_INSTRUMENTS if kind == "instrument" else None)

        change = {"kind": ed.kind, "name": ed.name, "file": rel(ed.own, root), "changes": ed.changes()}
        return launch(Path(ed.own).stem, "check", steps, f"{ed.kind} {ed.name}: did this change move the balance?",
                      change)

    def check_folder(request):
        """The check folder a URL names, or :class:`guard.Refused` (outside results/, no desk.json)."""
        folder = in_results(request.path_params["folder"])
        if not ((folder / jobs.DESK_FILE).exists() or (folder / jobs.DESK_FILE).is_symlink()):
            raise guard.Refused("No such check: this folder has no desk.json (the desk did not start it).")
        return folder

    def tune_link(folder, state):
        change = jobs.read_change(folder)
        if state.get("kind") != "check" or not change or change.get("damaged"):
            return ""
        key = f"{change['kind']}/{change['name']}" if change["kind"] == "instrument" else None
        if key is None:
            key = next((k for k, ed in session.tune_files(root).items() if ed.kind == "board"), "")
        from urllib.parse import urlencode

        q = urlencode({"file": key, "from": rel(folder, root)})
        return (f'<p id="tune-from-check">{link(f"/tune?{q}", "Which number should I change? A search from this answer")}'
                "</p>")

    async def check_page(request):
        try:
            folder = check_folder(request)
        except guard.Refused as exc:
            return not_found(f"No such check: {exc}")
        state = jobs.status(folder)
        r = rel(folder, root)
        body = [f"<h1>{e(state.get('title', 'Check'))}</h1>",
                f'<p class="meta">Run folder: <span id="run-folder">{e(shown(folder))}</span> (an ordinary run folder: '
                "it stays when the browser or the desk is closed)</p>",
                check_fragment(r, state),
                tune_link(folder, state),
                "<h2>The same from the command line</h2>",
                cmd_block([shown(jobs.command_line(s)) for s in state.get("steps", [])], "commands")]
        return page("Check", "".join(body))

    async def check_progress(request):
        try:
            folder = check_folder(request)
        except guard.Refused:
            return PlainTextResponse("no such check", status_code=404)
        return HTMLResponse(check_fragment(rel(folder, root), jobs.status(folder)))

    async def check_action(request, act):
        try:
            folder = check_folder(request)
        except guard.Refused as exc:
            return not_found(f"No such check: {exc}")
        note = ""
        try:
            act(folder)
        except jobs.JobError as exc:
            note = f"Nothing done: {exc}"
        except guard.Refused as exc:
            note = f"Nothing done: {exc}"
        except OSError as exc:
            note = f"Nothing done: {exc.filename or rel(folder, root)}: {exc.strerror or exc}"
        # htmx swaps a page of success only: the sentence goes inside the fragment.
        return HTMLResponse(check_fragment(rel(folder, root), jobs.status(folder), note=note))

    async def check_cancel(request):
        return await check_action(request, jobs.cancel)

    async def check_resume(request):
        return await check_action(request, lambda folder: jobs.resume(folder, env, root))

    # ------------------------------------------------------------------ runs
    async def runs(request):
        rows = []
        for folder, info in catalog.runs(root):
            r = rel(folder, root)
            has_report = (folder / "report" / "report.html").is_file()
            rows.append([link(f"/run/{r}", r), e(info["name"]), run_status(info), e(info["games"]),
                         "report" if has_report else ""])
        return page("Runs", "<h1>Run folders</h1>" + table(["folder", "scenario", "status", "games", ""], rows, "runs"))

    async def run_page(request):
        try:
            folder = in_results(request.path_params["folder"])
        except guard.Refused as exc:
            return not_found(f"No such run folder: {exc}.")
        if not (folder / "manifest.json").is_file():
            return not_found("No such run folder.")
        r = rel(folder, root)
        info = catalog.read_manifest(folder)
        body = [f"<h1>Run {e(r)}</h1>",
                f"<p>scenario {e(info['name'])}, status {run_status(info)}, {e(info['games'])} games</p>"]
        if (folder / jobs.DESK_FILE).exists():
            body.append(f"<p>{link(f'/check/{r}', 'the check of this folder')}</p>")
            body.append(answer_block(jobs.answer(folder), r, "done"))
        summary = folder / "report" / "summary.md"
        try:
            text = summary.read_text(encoding="utf-8", errors="replace") if summary.is_file() else None
        except OSError:
            text = None
        if text is not None:
            glance = [x[2:] for x in text.split("## The answer")[0].splitlines() if x.startswith("- ")]
            body.append('<h2>The answer</h2>')
            if (folder / "report" / "verdict_matrix.png").exists():
                body.append(f'<img src="/files/{e(r)}/report/verdict_matrix.png" alt="verdict matrix" '
                            'style="max-width: 100%">')
            body.append('<ul id="glance">' + "".join(f"<li>{e(x)}</li>" for x in glance) + "</ul>")
            body.append(f"<p>{link(f'/files/{r}/report/report.html', 'the balance report')}</p>")
        else:
            body.append("<p>No report yet.</p>")
        body.append(cmd_block([f"ssb report {r}", f"ssb run {info['name'] or 'SCENARIO'} --out {r} --resume"]))
        return page("Run", "".join(body))

    async def regress_page(request):
        """Every figure of a check's gate (its ``regress.json``), as a page: the answer's words, then one
        table per player count, every rate and change on the deals the check played."""
        from reports.gate.format import fmt_change, fmt_interval, fmt_margin, fmt_value

        try:
            folder = in_results(request.path_params["folder"])
        except guard.Refused as exc:
            return not_found(f"No such gate: {exc}.")
        path = folder / "regress.json"
        if not path.is_file() or path.is_symlink():
            return not_found("No gate answer here yet (the folder has no regress.json).")
        try:
            res = json.loads(path.read_text(encoding="utf-8"))
            rows = [f for f in res.get("figures", []) if isinstance(f, dict)]
            r = rel(folder, root)
            head = answer_block(jobs.answer(folder), r, "done") if (folder / jobs.DESK_FILE).exists() else ""
            if not head:
                who = "Strong players" if folder.name == jobs.STRONG_DIR else "The gate"
                head = pages_gate_answer(jobs.answer(folder), who, r)
            body = [f"<h1>Every figure of the gate: {e(r)}</h1>", head]
            by_players = {}
            for f in rows:
                by_players.setdefault(str(f.get("cell_key", "")).split("|")[0].replace("players=", ""), []).append(f)
            for players, figs in sorted(by_players.items()):
                cells = []
                for f in figs:
                    kind, change = str(f.get("kind", "")), float(f.get("change", 0.0))
                    cells.append([e(str(f.get("label", ""))), e(fmt_value(kind, float(f.get("now", 0.0)) - change)),
                                  e(fmt_value(kind, float(f.get("now", 0.0)))), e(fmt_change(kind, change)),
                                  e(fmt_interval(kind, float(f.get("ci_low", 0.0)), float(f.get("ci_high", 0.0)))),
                                  e(fmt_margin(kind, float(f.get("margin", 0.0)))), e(gate_word(f.get("verdict", "")))])
                body.append(f"<h2>{e(players)} players</h2>")
                body.append(table(["figure", "before the change", "after the change", "change (paired, per deal)",
                                   "interval", "margin", "verdict"], cells, f"figures-{e(players)}"))
        except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            return refused("Damaged gate answer", f"regress.json cannot be read: {short(exc, 200)}", 422)
        return page("Gate", "".join(body))

    async def files(request):
        try:
            path = in_results(request.path_params["path"])
        except guard.Refused:
            return PlainTextResponse("not found", status_code=404)
        if not path.is_file():
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(path)

    async def server_error(request, exc):
        # The last net only: every case the desk knows of has its own page above.
        return page("Something went wrong", '<h1>Something went wrong</h1><p class="form-error">The desk could not '
                    "answer this request; nothing was changed by it. The desk's terminal shows what happened.</p>", 500)

    routes = [
        Route("/", home),
        Route("/edit/{kind:str}/{key:path}", edit, methods=["GET", "POST"]),
        Route("/shipped/{kind:str}/{key:path}", back_to_shipped, methods=["POST"]),
        Route("/check", start_check, methods=["POST"]),
        Route("/check/{folder:path}/progress", check_progress),
        Route("/check/{folder:path}/cancel", check_cancel, methods=["POST"]),
        Route("/check/{folder:path}/resume", check_resume, methods=["POST"]),
        Route("/check/{folder:path}", check_page),
        Route("/runs", runs),
        Route("/run/{folder:path}", run_page),
        Route("/regress/{folder:path}", regress_page),
        Route("/files/{path:path}", files),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    desk = SimpleNamespace(root=root, page=page, not_found=not_found, refused=refused, hidden=hidden,
                           in_results=in_results, short=short, workers=workers, launch=launch, env=env)
    routes[-1:-1] = session.routes(desk)
    app = Starlette(routes=routes, exception_handlers={500: server_error},
                    middleware=[Middleware(guard.Guard, token=token, host=host, port=port, form_token=form_token)])
    app.state.root = root
    app.state.form_token = form_token
    return app


def is_loopback(host):
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


__all__ = ["create_app", "is_loopback"]
