"""The desk's guard: what a request must show before the desk answers it, and where a file the desk
reads or writes may be.

One layer, in this order, for every request (:class:`Guard`)::

    1. Host      no token: the Host header names the address the desk is bound to (127.0.0.1,
                 localhost or [::1], with its port); anything else is a page of another site that
                 had its name pointed at this machine (DNS rebinding): 400.
    2. token     a token: ``?token=`` once, then a cookie; without it: 401.
    3. origin    a request that changes something (every POST: save, check, tune, Cancel, Resume)
                 comes from the desk's own pages: a same-origin ``Origin``, or, when the browser
                 sends none, the desk's form token (``X-Desk-Form`` header or ``form_token`` field,
                 in every page the desk serves); a foreign ``Origin`` or ``Referer``, or
                 ``Sec-Fetch-Site: cross-site``: 403. A GET changes nothing.

Paths (:func:`inside`, :func:`writable`): a name from a request is refused when it holds a NUL, is
longer than a file system takes, or resolves (links followed) outside its folder; a file the desk
writes is refused when any part of its path below the desk's folder is a link.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import HTMLResponse

COOKIE = "ssb_desk_token"
FORM_FIELD = "form_token"
FORM_HEADER = "x-desk-form"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
MAX_NAME = 1024  # characters of a path from a request (a file system takes 4096 at most, 255 a part)
MAX_PART = 255
HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")  # a name or [IPv6], a port
MAX_FORM = 1_000_000  # bytes of a form read for its form token (a larger one must send the header)


class Refused(Exception):
    """A path or a request the desk does not take; ``str()`` says why, in a sentence."""


def host_ok(given, host="127.0.0.1", port=None):
    """Whether a ``Host`` header names the desk bound to ``host`` on ``port``: 127.0.0.1, localhost,
    [::1] or ``host`` itself, with that port (any port when ``port`` is None: a desk that does not
    know its port, as in a test client)."""
    if not HOST.fullmatch(given):
        return False
    try:
        parts = urlsplit("//" + given)
        name, given_port = (parts.hostname or ""), parts.port
    except ValueError:
        return False
    if parts.username is not None or parts.path or name not in {"127.0.0.1", "localhost", "::1", (host or "").lower()}:
        return False
    return port is None or given_port == port or (given_port is None and port == 80)


def refusal(status, title, text):
    from ssb.desk.pages import e, layout

    return HTMLResponse(layout(title, f'<h1>{e(title)}</h1><p class="form-error" id="refused">{e(text)}</p>'),
                        status_code=status)


class Guard(BaseHTTPMiddleware):
    """The three checks of the module's doc, before any route runs."""

    def __init__(self, app, token=None, host="127.0.0.1", port=None, form_token=None):
        super().__init__(app)
        self.token = token
        self.host, self.port = host, port
        self.form_token = form_token

    async def dispatch(self, request, call_next):
        host = request.headers.get("host", "")
        if not self.token and not host_ok(host, self.host, self.port):
            return refusal(400, "Not this desk's address",
                           f"This desk answers at its own address only (127.0.0.1, localhost or [::1]), "
                           f"not at {host[:100]!r}: open the address that `ssb desk` printed.")
        if self.token:
            given = request.query_params.get("token") or request.cookies.get(COOKIE) or ""
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return refusal(401, "This desk asks for its token",
                               "This desk asks for its token: open the address that `ssb desk` printed "
                               "(it ends in ?token=...).")
        if request.method not in SAFE_METHODS:
            problem = await self.foreign(request, host)
            if problem:
                return refusal(403, "Refused: not from this desk's own page", problem)
        response = await call_next(request)
        if self.token and request.query_params.get("token"):
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
        return response

    async def foreign(self, request, host):
        """Why a request that changes something is not taken (None when it comes from the desk)."""
        own = {f"http://{host}".lower(), f"https://{host}".lower()}
        site = request.headers.get("sec-fetch-site", "")
        if site and site not in ("same-origin", "none"):
            return f"A form from another site ({site}) is not taken by this desk."
        origin = request.headers.get("origin")
        if origin is not None:
            if origin.lower().rstrip("/") not in own:
                return f"A form from another site ({origin}) is not taken by this desk."
            return None
        referer = request.headers.get("referer")
        if referer:
            parts = urlsplit(referer)
            if f"{parts.scheme}://{parts.netloc}".lower() not in own:
                return "A form from another site (its Referer is not this desk) is not taken by this desk."
        given = request.headers.get(FORM_HEADER)
        size = request.headers.get("content-length", "")
        if (given is None and request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded")
                and size.isascii() and size.isdigit() and int(size) <= MAX_FORM):
            body = await request.body()  # small: a form of the desk is a few kilobytes
            try:
                given = (parse_qs(body.decode("latin-1"), max_num_fields=10_000).get(FORM_FIELD) or [None])[0]
            except ValueError:  # more fields than any form of the desk has
                given = None
        if not given or not self.form_token or not hmac.compare_digest(given.encode("latin-1", "replace"),
                                                                        self.form_token.encode()):
            return ("This request carries neither the Origin of this desk nor its form token: send it from a page "
                    "of the desk.")
        return None


def new_form_token():
    return secrets.token_urlsafe(24)


def clean_name(name):
    """A path from a request, refused (:class:`Refused`) when it holds a NUL or is longer than a file
    system takes (a parent folder is refused by :func:`inside`, once resolved)."""
    if "\x00" in name:
        raise Refused("a name with a NUL character")
    if len(name) > MAX_NAME or any(len(p.encode("utf-8", "surrogatepass")) > MAX_PART for p in name.split("/")):
        raise Refused("a name longer than a file system takes")
    return name


def inside(base, name):
    """``base/name`` resolved (links followed), refused unless it stays within ``base`` (itself not
    resolved: a ``base`` that is a link to elsewhere holds nothing)."""
    base = Path(base)
    try:
        path = (base / clean_name(str(name))).resolve()
    except (OSError, ValueError, RuntimeError) as exc:
        raise Refused(f"cannot be read ({exc})") from None
    if not path.is_relative_to(base):
        raise Refused("outside the desk's folder")
    return path


def link_in(root, path):
    """The first part of ``path`` below ``root`` that is a link (None when there is none)."""
    root, path = Path(root), Path(path)
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return path
    here = root
    for p in parts:
        here = here / p
        if here.is_symlink():
            return here
    return None


def writable(root, path):
    """``path`` (below ``root``) checked for writing: no part of it below ``root`` is a link, so a
    write lands in the desk's folder and nowhere else. Returns ``path``; raises :class:`Refused`."""
    root, path = Path(root), Path(path)
    if not path.is_relative_to(root):
        raise Refused(f"{path} is outside the desk's folder {root}")
    link = link_in(root, path)
    if link is not None:
        raise Refused(f"{link.relative_to(root)} is a link; the desk does not write through links "
                      "(remove it, or make it a plain file or folder)")
    return path


def make_dirs(root, folder):
    """Create ``folder`` below ``root`` part by part, refusing a part that is a link."""
    root, folder = Path(root), Path(folder)
    writable(root, folder)
    here = root
    for p in folder.relative_to(root).parts:
        here = here / p
        if here.is_symlink():
            raise Refused(f"{here.relative_to(root)} is a link; the desk does not write through links")
        if not here.is_dir():
            os.mkdir(here)
    return folder


def write_file(root, path, text):
    """Write ``text`` to ``path`` below ``root`` whole (a new file renamed over it), through no link:
    :func:`writable` checks the path, the folders are made part by part, the new file is created
    with ``O_NOFOLLOW | O_EXCL``. Raises :class:`Refused` or ``OSError`` (a read-only folder)."""
    root, path = Path(root), Path(path)
    make_dirs(root, path.parent)
    writable(root, path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


__all__ = ["Guard", "Refused", "clean_name", "inside", "link_in", "host_ok", "make_dirs", "new_form_token",
           "writable", "write_file"]
