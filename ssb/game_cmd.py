"""``ssb boards``, and how ``ssb play``/``check`` set up a game of boards and variants (the default of
a game whose command module, :mod:`ssb.games`, says nothing else).

Everything here goes through the registry (``simulator.games``), so a third game needs no change.
"""

import click

from simulator import games as registry
from ssb.common import SsbGroup, UserError, check_players, lineup, old_spelling


def _variants(game, items):
    from scenarios.spec import parse_value

    table = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        table[key.strip()] = parse_value(value.strip()) if sep else True
    return game.variants_from_dict(table, "--variant", "variant")


def _setup(game, players, board, variants):
    check_players(game, [players])
    return game.setup(players, board or game.boards[0], _variants(game, variants))


STALL_PROBE_GAMES = 16


def warn_if_every_game_stalls(game, setup, board):
    """A board file of the user's own on which most of a few games stall (a chain of arrows both
    ways, say): say so on stderr before playing, naming the file. The loader cannot see it (every
    space is reachable); a handful of games can. The probe plays the game's default strategy (the
    one a run judges with) and random seats; more than half stalled in either is warned of."""
    if not board or str(board).lower() in game.boards:
        return
    import numpy as np

    lib = game.strategies(())
    seeds = np.arange(STALL_PROBE_GAMES, dtype=np.uint64)
    counts = {}
    for name in dict.fromkeys([game.default_strategy, "random"]):
        _, games = game.play_batch(setup, seeds, lib.matrix([name] * setup.nplayers))
        counts[name] = int(np.count_nonzero(np.asarray(games["stalled"]) != 0))
    if max(counts.values()) * 2 > STALL_PROBE_GAMES:
        told = " and ".join(f"{k} of {STALL_PROBE_GAMES} {name} games" for name, k in counts.items())
        click.echo(
            f"warning: {setup.board.path}: {told} on this board stalled at the round cap (E9): its arrows "
            "may never bring a bug to its stump; check them with ssb boards draw",
            err=True,
        )


def board_setup(game, players, board, variants):
    """A game of boards: the setup on ``board`` (default: its first) with the ``--variant`` switches."""
    return _setup(game, players, board, variants)


def check_settings(game, options):
    """What ``ssb check`` soaks for a game of boards: every board (or the one given) with the
    ``--variant`` switches; each as ``(setup(players), replay arguments)``."""
    board, variants = options.get("board"), tuple(options.get("variants") or ())
    boards = [board] if board else list(game.boards)
    extra = [a for v in variants for a in ("--variant", v)]
    return [(lambda n, b=b: _setup(game, n, b, variants), ["--board", b, *extra]) for b in boards]


def setup_label(setup):
    """How ``ssb check`` names a setting of a game of boards: its board."""
    return setup.board.name


def _board_game(name):
    """The game ``--game`` names, or the first registered game that has boards."""
    if name is not None:
        return registry.get(name, "--game", "")
    return next(g for g in map(registry.get, registry.names()) if g.boards)


@click.group(name="boards", cls=SsbGroup)
def boards():
    """Boards of the games other than Shuffle and Swing: list them, draw them.

    Example:

    \b
        ssb boards list
    """


@boards.command("list")
@click.option("--game", default=None, metavar="NAME", help="Game whose boards to list (default: the first game with boards).")
def boards_list(game):
    """List a game's boards: spaces, arrows, branch points, whether the layout is reconstructed.

    Example:

    \b
        ssb boards list --game echidna
    """
    g = _board_game(game)
    if not g.boards:
        others = [n for n in registry.names() if registry.get(n, "--game", "").boards]
        raise click.BadParameter(
            f"{g.title} has no boards to choose from (it is played on its one printed board); "
            f"games with boards: {', '.join(others)}", param_hint="--game")
    for name in g.boards:
        b = g.setup(g.player_counts[0], name, None).board
        click.echo(f"{name:8s} {g.describe_board(b) if g.describe_board else b.path}")


@boards.command("draw")
@click.argument("name")
@click.option("--game", default=None, metavar="NAME", help="Game the board belongs to (default: the first game with boards).")
@click.option("-o", "--out", "output", default=None, type=click.Path(dir_okay=False), metavar="FILE", help="Picture to write (PNG, SVG or PDF); default NAME.png.")
@old_spelling("--output", "output", type=click.Path(dir_okay=False))
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors (the picture is written all the same).")
def boards_draw(name, game, output, quiet=False):
    """Draw a board: its spaces at their coordinates and the arrows between them.

    NAME is a board of the game (forest, snow) or a board file.

    Example:

    \b
        ssb boards draw snow -o snow.png
    """
    g = _board_game(game)
    if g.draw_board is None:
        raise click.BadParameter(f"{g.title} has no board to draw", param_hint="--game")
    board = g.setup(g.player_counts[0], name, None).board
    out = output or f"{board.name}.png"
    try:
        g.draw_board(board, out)
    except OSError as exc:
        raise UserError(f"{out}: cannot write the picture: {exc.strerror or exc}") from None
    if not quiet:
        click.echo(f"wrote {out}")
