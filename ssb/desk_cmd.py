"""``ssb desk``: start the designer's desk, a local web application (:mod:`ssb.desk`)."""

import click

from ssb.common import UserError


@click.command(name="desk")
@click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS",
              help="Address to listen on. Any other than this machine's own (127.0.0.1, ::1) asks every "
                   "visitor for the desk's token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, metavar="PORT",
              help="Port to listen on; 0 picks a free one.")
@click.option("--no-browser", is_flag=True, help="Do not open a browser; print the desk's address and wait.")
@click.option("--token", default=None, metavar="TOKEN",
              help="The token visitors must give (default: none on this machine's own address, a new random "
                   "one on any other).")
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
    import secrets
    import socket
    import webbrowser
    from pathlib import Path

    import uvicorn

    from ssb.desk.app import create_app, is_loopback

    if not is_loopback(host) and not token:
        token = secrets.token_urlsafe(16)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise UserError(f"--port: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    app = create_app(Path(folder), token=token, workers=jobs)
    click.echo(f"the desk is at {url}", err=False)
    click.echo("Ctrl-C stops it; checks it started go on in their run folders.")
    if not no_browser:
        webbrowser.open(url)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    server.run(sockets=[sock])
