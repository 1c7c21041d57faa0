"""``ssb`` for games other than Shuffle and Swing: ``play``/``check`` with ``--game``, and ``ssb boards``.

Everything here goes through the registry (``simulator.games``), so a third game needs no change.
"""

import contextlib
import json
import time

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


def play(game_name, players, strategies, seed, as_json, board, variants, strategy_dirs):
    """``ssb play --game NAME``: one game, narrated (or as JSON)."""
    game = registry.get(game_name, "--game", "")
    setup = _setup(game, players, board, variants)
    warn_if_every_game_stalls(game, setup, board)
    names = lineup(list(strategies) if strategies else [game.default_strategy], players)
    strat = game.strategies(tuple(strategy_dirs)).matrix(names)
    with _announce_compile(game, "play_game"):
        record = game.play_one(setup, strat, seed)
    if as_json:
        click.echo(json.dumps(game.document(record, names), indent=2))
    else:
        click.echo(game.narrate(record, names), nl=False)
    if record.violation:
        raise click.exceptions.Exit(1)


def _announce_compile(game, attr):
    """The compile notice for the game's kernel entry ``attr``."""
    from ssb.common import announce_compile

    return announce_compile(game.kernel_entry_named(attr), game.kernel_what())


def check(game_name, games, seed, player_counts, board, variants):
    """``ssb check --game NAME``: random games on every board (or the one given), every invariant
    after every turn."""
    game = registry.get(game_name, "--game", "")
    boards = [board] if board else list(game.boards)
    lib = game.strategies(())
    found = total = 0
    t_all = 0.0
    click.echo(f"Soak: {game.title}, random seats, run seed {seed}, {games} games per board and player count")
    for b in boards:
        for n in player_counts:
            setup = _setup(game, n, b, variants)
            if n == player_counts[0]:
                warn_if_every_game_stalls(game, setup, b)
            strat = lib.matrix(["random"] * n)
            first = b == boards[0] and n == player_counts[0]
            with _announce_compile(game, "play_batch") if first else contextlib.nullcontext():
                game.soak(setup, strat, 1, seed)  # load the compiled kernel before timing
            t0 = time.perf_counter()
            rep = game.soak(setup, strat, games, seed)
            dt = time.perf_counter() - t0
            t_all += dt
            total += rep.games
            verdict = "no violation" if not rep.violations else f"{len(rep.violations)} violation(s)"
            click.echo(f"{setup.board.name}, {n} players: {rep.games} games, {rep.turns} turns, {rep.games / dt:.0f} games/s, {verdict}")
            for s, turn, code, message in rep.violations[:20]:
                found += 1
                click.echo(f"  violation {code} ({message}) at turn {turn} of game seed {s}")
                click.echo(f"    replay: ssb play --game {game.name} --players {n} --board {b} --strategies random --seed {s}")
            found += max(0, len(rep.violations) - 20)
    click.echo(f"Total: {total} games, {total / t_all if t_all else 0:.0f} games/s, {'no violation' if not found else f'{found} violation(s)'}")
    if found:
        raise click.exceptions.Exit(1)


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
def boards_draw(name, game, output):
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
    click.echo(f"wrote {out}")
