"""The ``--game``/``--board``/``--variant`` options that ``ssb play`` and ``ssb check`` share."""

import click

from simulator import games as registry


def game_options(f):
    """``--game``, ``--board`` and ``--variant`` (repeatable) for play and check."""
    f = click.option(
        "--variant",
        "variants",
        multiple=True,
        metavar="SWITCH[=VALUE]",
        help="A variant switch of the game, e.g. catch_up, home_stretch, extra_bugs, roll_every_turn, "
        "token_schedule=[0,1,1,2,2,3], pickup_order=turn, home_stretch_cap=3; may be repeated (not for Shuffle and Swing).",
    )(f)
    f = click.option(
        "--board",
        default=None,
        metavar="NAME|FILE",
        help="Board of the game (one it lists, or a board file; default: the game's first).",
    )(f)
    f = click.option(
        "--game",
        default=registry.DEFAULT_GAME,
        show_default=True,
        metavar="NAME",
        help=f"Game to play: {', '.join(registry.names())}.",
    )(f)
    return f
