"""The desk's web application (Starlette): the routes, and the token a desk bound to another address
than this machine's asks for.

Routes::

    /                         games, instruments, boards, strategies, balance searches, recent runs
    /edit/instrument/NAME     a form of an instrument file (POST: check with the loader, save)
    /edit/board/GAME/NAME     the same for a board file
    /check                    POST: start "did this change move the balance?" on a saved file
    /check/FOLDER             a check's page; /progress, /cancel, /resume its live parts
    /tune                     "which number should I change?": the shipped balance searches
    /runs, /run/FOLDER        the run folders on disk; /files/... serves what a run folder holds
"""

from __future__ import annotations

import datetime as _dt
import hmac
import tomllib
import json
from pathlib import Path
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ssb.desk import catalog, forms, jobs
from ssb.desk.pages import (
    answer_block,
    check_fragment,
    cmd_block,
    e,
    field_rows,
    layout,
    link,
    rel,
    shown,
    table,
)

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "ssb_desk_token"


class TokenGate(BaseHTTPMiddleware):
    """Every request carries the desk's token (``?token=`` once, then a cookie), when it has one; a
    form sent from a page of another site (its ``Origin`` is not the desk's) is refused, so a web
    page open in the same browser cannot start runs or write files through the desk."""

    def __init__(self, app, token):
        super().__init__(app)
        self.token = token

    async def dispatch(self, request, call_next):
        origin = request.headers.get("origin")
        if request.method == "POST" and origin and urlsplit(origin).netloc != request.headers.get("host", ""):
            return PlainTextResponse("A form from another site is not taken by this desk.", status_code=403)
        if not self.token:
            return await call_next(request)
        given = request.query_params.get("token") or request.cookies.get(COOKIE) or ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return PlainTextResponse(
                "This desk asks for its token: open the address that `ssb desk` printed (it ends in ?token=...).",
                status_code=401,
            )
        response = await call_next(request)
        if request.query_params.get("token"):
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
        return response


def _stamp():
    return _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S")


def create_app(root=".", token=None, check_games=None, check_chunk=None, env=None, workers=0):
    """The desk for the designer's folder ``root`` (``designs/`` and ``results/`` under it).

    ``token``: required of every request when given. ``check_games``/``check_chunk``: the games per
    cell and chunk size a check starts with (default: the gate scenario's own, every baseline deal);
    ``workers``: the worker processes of its runs (0: all cores)."""
    root = Path(root).resolve()
    workers = int(workers)

    def page(title, body):
        return HTMLResponse(layout(title, body))

    def editable(kind, key):
        found = (catalog.instruments(root) if kind == "instrument" else catalog.boards(root)).get(key)
        if found is None:
            raise KeyError(key)
        return found

    # ------------------------------------------------------------------ home
    async def home(request):
        from simulator import games as registry

        games = [[e(g.name), e(g.title), e(", ".join(map(str, g.player_counts))), e(", ".join(g.boards))]
                 for g in (registry.get(n) for n in registry.names())]
        inst = [[link(f"/edit/instrument/{name}", name), e(str(ed.shipped.name)),
                 e(rel(ed.own, root)) if ed.own.exists() else ""] for name, ed in catalog.instruments(root).items()]
        brd = [[link(f"/edit/board/{key}", key), e(ed.shipped.name), e(rel(ed.own, root)) if ed.own.exists() else ""]
               for key, ed in catalog.boards(root).items()]
        strat = {}
        for game, name in catalog.strategies():
            strat.setdefault(game, []).append(name)
        runs = [[link(f"/run/{rel(folder, root)}", rel(folder, root)), e(str(m.get("scenario", {}).get("name", ""))),
                 e(str(m.get("status", "")))] for folder, m in catalog.runs(root)[:12]]
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

    # ------------------------------------------------------------------ edit
    def edit_body(ed, fields, errors, changed=(), note=""):
        own = rel(ed.own, root)
        if ed.kind == "instrument":
            validate = ["ssb instruments validate " + own]
        elif ed.checkable:  # a run reads it through the scenario's overrides (the check below)
            validate = ["ssb run ci --set 'overrides.board.KEY=VALUE' --out results/what-if"]
        else:
            validate = [f"ssb check --game {ed.game} --board {own} --games 100"]
        action = f"/edit/{ed.kind}/{ed.name if ed.kind == 'instrument' else ed.game + '/' + ed.name}"
        top = errors.get("", "")
        checkable = ed.checkable
        return "".join([
            f'<div id="form-area"><h1>{e(ed.kind.title())}: {e(ed.name)}</h1>',
            f'<p class="meta">Editing {e(rel(ed.source, root) if ed.source == ed.own else str(ed.shipped))}; '
            f"saved as your own file {e(own)} (a shipped file is never written). "
            "Each field is named by the key the loader checks; its message appears beside the field.</p>",
            note,
            f'<p class="form-error" id="form-error">{e(top)}</p>' if top else "",
            f'<form id="edit-form" hx-post="{e(action)}" hx-target="#form-area" hx-swap="outerHTML">',
            field_rows(fields, errors, changed),
            '<p><button type="submit" id="save">Check and save</button></p></form>',
            "<p>The same from the command line, after saving:</p>", cmd_block(validate),
            check_form(ed) if checkable and ed.own.exists() else "",
            "</div>",
        ])

    def check_form(ed):
        games = check_games or ""
        return (
            '<h2>Did this change move the balance?</h2><p>Plays the regression gate (the starter set at 2, 3 and '
            "4 players, greedy mirrors) with your files on the baseline's own deals and compares every figure "
            "deal by deal.</p>"
            f'<form method="post" action="/check" id="check-form"><input type="hidden" name="kind" value="{e(ed.kind)}">'
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
            return page("Not found", f"<p>No {e(kind)} named {e(key)}.</p>")
        text = ed.source_text()
        doc = tomllib.loads(text)
        fields = forms.fields_of(doc)
        if request.method == "GET":
            return page(ed.name, edit_body(ed, fields, {}))
        form = dict(await request.form())
        out = forms.check_and_save(doc, fields, form, ed.validate, text, ed.own, catalog.shipped_data_dirs())
        if out.written is None:
            # Nothing written: the form keeps what was typed, the loader's message beside its field.
            shown = [forms.Field(f.name, f.key, f.alt, f.path, forms.parse_value(str(form.get(f.name, "")), f.value)
                                 if f.kind != "bool" else form.get(f.name) == "on", f.group) for f in fields]
            return HTMLResponse(edit_body(ed, shown, out.errors, out.changed))
        new_doc = tomllib.loads(ed.own.read_text())
        note = (f'<p class="saved" id="saved">Saved {e(rel(out.written, root))} '
                f"({len(out.changed)} value(s) changed: {e(', '.join(f.alt for f in fields if f.name in out.changed))}).</p>")
        return HTMLResponse(edit_body(ed, forms.fields_of(new_doc), {}, out.changed, note))

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

    async def start_check(request):
        form = await request.form()
        kind, key = form.get("kind", ""), form.get("key", "")
        try:
            ed = editable(kind, key)
        except KeyError:
            return page("Not found", f"<p>No {e(kind)} named {e(key)}.</p>")
        if not ed.own.exists():
            return page("Nothing to check", "<p>Save your own file first.</p>")
        games = str(form.get("games", "") or "").strip()
        if games and not games.isdigit():
            return page("Bad input", f'<p class="form-error">games: expected a whole number, got {e(games)}</p>')
        if kind == "instrument":
            sets = ['instrument_dirs=' + json.dumps([rel(ed.own.parent, root)])]  # the steps run in the desk's folder
        else:
            sets = board_sets(ed)
        folder = root / "results" / "desk" / f"{Path(ed.own).stem}-{_stamp()}"
        steps = jobs.check_steps(rel(folder, root), sets, int(games) if games else None, check_chunk,
                                 adaptive_budget=6000 if form.get("adaptive") else None, jobs=workers)
        jobs.start(folder, "check", steps, f"{ed.kind} {ed.name}: did this change move the balance?", root, env)
        return RedirectResponse(f"/check/{rel(folder, root)}", status_code=303)

    def check_folder(request):
        folder = (root / request.path_params["folder"]).resolve()
        if not folder.is_relative_to(root / "results") or not (folder / jobs.DESK_FILE).exists():
            raise KeyError(str(folder))
        return folder

    async def check_page(request):
        try:
            folder = check_folder(request)
        except KeyError:
            return page("Not found", "<p>No such check.</p>")
        state = jobs.status(folder)
        r = rel(folder, root)
        body = [f"<h1>{e(state.get('title', 'Check'))}</h1>",
                f'<p class="meta">Run folder: <span id="run-folder">{e(shown(folder))}</span> (an ordinary run folder: '
                "it stays when the browser or the desk is closed)</p>",
                check_fragment(r, state),
                "<h2>The same from the command line</h2>",
                cmd_block([shown(jobs.command_line(s)) for s in state.get("steps", [])], "commands")]
        return page("Check", "".join(body))

    async def check_progress(request):
        try:
            folder = check_folder(request)
        except KeyError:
            return PlainTextResponse("no such check", status_code=404)
        return HTMLResponse(check_fragment(rel(folder, root), jobs.status(folder)))

    async def check_cancel(request):
        folder = check_folder(request)
        jobs.cancel(folder)
        return HTMLResponse(check_fragment(rel(folder, root), jobs.status(folder)))

    async def check_resume(request):
        folder = check_folder(request)
        jobs.resume(folder, env)
        return HTMLResponse(check_fragment(rel(folder, root), jobs.status(folder)))

    # ------------------------------------------------------------------ tune
    async def tune(request):
        if request.method == "POST":
            form = await request.form()
            name = str(form.get("tune", ""))
            if name not in catalog.tunes():
                return page("Not found", f"<p>No balance search named {e(name)}.</p>")
            folder = root / "results" / "desk" / f"tune-{name}-{_stamp()}"
            jobs.start(folder, "tune", jobs.tune_steps(rel(folder, root), name, jobs=workers),
                       f"Which number should I change? ({name})", root, env)
            return RedirectResponse(f"/check/{rel(folder, root)}", status_code=303)
        rows = [[e(t), f'<form method="post" action="/tune"><input type="hidden" name="tune" value="{e(t)}">'
                        f'<button type="submit">Start</button></form>', f"<code>ssb tune {e(t)}</code>"]
                for t in catalog.tunes()]
        body = ("<h1>Which number should I change?</h1><p>A balance search finds the smallest change of the data "
                "files that meets a target (the guide: the balance search). It takes minutes to hours; it runs in "
                "the background and can be resumed.</p>" + table(["search", "", "command"], rows, "tunes"))
        return page("Which number?", body)

    # ------------------------------------------------------------------ runs
    async def runs(request):
        rows = []
        for folder, m in catalog.runs(root):
            r = rel(folder, root)
            rows.append([link(f"/run/{r}", r), e(str(m.get("scenario", {}).get("name", ""))), e(str(m.get("status", ""))),
                         e(f"{m.get('totals', {}).get('games', '')}"),
                         "report" if (folder / "report" / "report.html").exists() else ""])
        return page("Runs", "<h1>Run folders</h1>" + table(["folder", "scenario", "status", "games", ""], rows, "runs"))

    async def run_page(request):
        folder = (root / request.path_params["folder"]).resolve()
        if not folder.is_relative_to(root / "results") or not (folder / "manifest.json").exists():
            return page("Not found", "<p>No such run folder.</p>")
        r = rel(folder, root)
        m = json.loads((folder / "manifest.json").read_text())
        body = [f"<h1>Run {e(r)}</h1>",
                f"<p>scenario {e(str(m.get('scenario', {}).get('name', '')))}, status {e(str(m.get('status', '')))}, "
                f"{e(str(m.get('totals', {}).get('games', '')))} games</p>"]
        if (folder / jobs.DESK_FILE).exists():
            body.append(f"<p>{link(f'/check/{r}', 'the check of this folder')}</p>")
            body.append(answer_block(jobs.answer(folder), r, "done"))
        summary = folder / "report" / "summary.md"
        if summary.exists():
            lines = summary.read_text().split("## The answer")[0].splitlines()
            glance = [x[2:] for x in lines if x.startswith("- ")]
            body.append('<h2>The answer</h2>')
            if (folder / "report" / "verdict_matrix.png").exists():
                body.append(f'<img src="/files/{e(r)}/report/verdict_matrix.png" alt="verdict matrix" '
                            'style="max-width: 100%">')
            body.append('<ul id="glance">' + "".join(f"<li>{e(x)}</li>" for x in glance) + "</ul>")
            body.append(f"<p>{link(f'/files/{r}/report/report.html', 'the balance report')}</p>")
        else:
            body.append("<p>No report yet.</p>")
        body.append(cmd_block([f"ssb report {r}", f"ssb run {m.get('scenario', {}).get('name', 'SCENARIO')} --out {r} --resume"]))
        return page("Run", "".join(body))

    async def files(request):
        path = (root / request.path_params["path"]).resolve()
        if not path.is_relative_to(root / "results") or not path.is_file():
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(path)

    routes = [
        Route("/", home),
        Route("/edit/{kind:str}/{key:path}", edit, methods=["GET", "POST"]),
        Route("/check", start_check, methods=["POST"]),
        Route("/check/{folder:path}/progress", check_progress),
        Route("/check/{folder:path}/cancel", check_cancel, methods=["POST"]),
        Route("/check/{folder:path}/resume", check_resume, methods=["POST"]),
        Route("/check/{folder:path}", check_page),
        Route("/tune", tune, methods=["GET", "POST"]),
        Route("/runs", runs),
        Route("/run/{folder:path}", run_page),
        Route("/files/{path:path}", files),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(TokenGate, token=token)])
    app.state.root = root
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
