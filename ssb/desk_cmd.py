"""``ssb desk``: start the designer's desk, a local web application (:mod:`ssb.desk`)."""

import click

from ssb.common import UserError

MIN_TOKEN = 16  # characters of a token given with --token


@click.command(name="desk")
@click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS",
              help="Address to listen on. Any other than this machine's own (127.0.0.1, ::1) asks every "
                   "visitor for the desk's token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, metavar="PORT",
              help="Port to listen on; 0 picks a free one.")
@click.option("--no-browser", is_flag=True, help="Do not open a browser; print the desk's address and wait.")
@click.option("--token", default=None, metavar="TOKEN",
              help="The token visitors must give, at least 16 letters, digits, '-' or '_' (default: none on this "
                   "machine's own address, a new random one on any other).")
@click.option("--folder", type=click.Path(file_okay=False), default=".", show_default=True, metavar="DIR",
              help="The designer's folder: your own files go to DIR/designs/, runs to DIR/results/.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True, metavar="J",
              help="Worker processes of the checks the desk starts; 0: all cores.")
def desk(host, port, no_browser, token, folder, jobs):
    """The designer's desk: browse, edit a number, ask whether it moved the balance, in a browser.

    A local web page over the lab's own commands: the games, boards, instruments, strategies and
    run folders; a form for an instrument or a board, checked by the game's loader and saved under
    DIR/designs/ (never over a shipped file); "did this change move the balance?" (ssb run and ssb
    regress on the baseline's deals, in the background, with its progress, cancellable); "which
    number should I change?" (ssb tune). Every action shows its ssb command. Works offline. Ctrl-C
    stops the desk; a check it started goes on, and its folder stays.

    Example:

    \b
        ssb desk
        ssb desk --port 8800 --no-browser
    """
    import errno
    import secrets
    import socket
    import webbrowser
    from pathlib import Path

    import uvicorn

    from ssb.desk.app import create_app, is_loopback

    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise UserError("--host: must not be empty (127.0.0.1: this machine only)")
    if token is not None and len(token) < MIN_TOKEN:
        raise UserError(f"--token: {len(token)} characters is too short to guess at; give at least {MIN_TOKEN} "
                        "(or leave it out: the desk makes a random one)")
    if token is not None and (not token.isascii() or not token.isprintable() or any(c in token for c in " &#?%")):
        raise UserError("--token: use letters, digits, '-' and '_' only (it goes in the desk's address)")
    if not is_loopback(host) and not token:
        token = secrets.token_urlsafe(24)
    try:
        family, _t, _p, _c, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError, ValueError) as exc:
        raise UserError(f"--host: {host!r} is not an address of this machine: {getattr(exc, 'strerror', None) or exc}") \
            from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            raise UserError(f"--port: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        raise UserError(f"--host: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    app = create_app(Path(folder), token=token, workers=jobs, host=host, port=bound)
    click.echo(f"the desk is at {url}", err=False)
    click.echo("Ctrl-C stops it; checks it started go on in their run folders.")
    if not no_browser:
        webbrowser.open(url)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    server.run(sockets=[sock])
