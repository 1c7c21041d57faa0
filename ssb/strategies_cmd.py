"""``ssb strategies list`` and ``ssb strategies show``: the named strategy profiles of any game (the
group's ``tune``, ``ladder`` and ``meta`` live in :mod:`ssb.strategy_tune_cmd` and :mod:`ssb.meta_cmd`);
what a game's profiles hold beyond a name, kind, description and weights, its command module says
(:mod:`ssb.games`: ``strategy_columns``, ``strategy_lines``)."""

import click

from simulator import games as registry
from ssb import games as game_cli
from ssb.common import SsbGroup, strategy_dir_option, table


def game_option(f):
    """``--game``: the game whose profiles are read (default: the registry's)."""
    return click.option(
        "--game", default=None, metavar="NAME",
        help=f"The game whose strategies to read: {', '.join(registry.names())} (default: the first game).",
    )(f)


def profile_fields(s):
    """What ``show`` prints of a profile beyond its name, kind, description, file and weights, for a
    game whose command module says nothing else: each further number or word it holds (``depth: 2``)."""
    from dataclasses import fields, is_dataclass

    told = {"name", "kind", "description", "weights", "path"}
    if not is_dataclass(s):
        return []
    return [f"{f.name}: {getattr(s, f.name)}" for f in fields(s)
            if f.name not in told and isinstance(getattr(s, f.name), (int, float, str)) and not isinstance(getattr(s, f.name), bool)]


# --------------------------------------------------------------------------- strategies


@click.group(cls=SsbGroup)
def strategies():
    """List and show the named strategies (profiles in simulator/<game>/data/strategies).

    Example:

    \b
        ssb strategies list
    """


@strategies.command("list")
@strategy_dir_option
@game_option
def strategies_list(strategy_dirs, game):
    """Table of every strategy: kind, what else the game's profiles say (a focus) and description.

    Example:

    \b
        ssb strategies list --strategy-dir my_profiles/
        ssb strategies list --game echidna
    """
    g = registry.get(game, "--game", "")
    lib = g.strategies(tuple(strategy_dirs))
    extra = game_cli.hook(g, "strategy_columns", lambda s: {})
    own = [extra(s) for s in lib.all()]
    keys = list(dict.fromkeys(k for cols in own for k in cols))
    rows = [(s.name, s.kind, *(cols.get(k, "-") for k in keys), s.description) for s, cols in zip(lib.all(), own)]
    click.echo(table(("name", "kind", *keys, "description"), rows))


@strategies.command("show")
@click.argument("name")
@strategy_dir_option
@game_option
def strategies_show(name, strategy_dirs, game):
    """Print one strategy: kind, flags, description and its full weight table.

    NAME may carry a focus, e.g. greedy:orange.

    Example:

    \b
        ssb strategies show greedy
        ssb strategies show lookahead --game echidna
    """
    g = registry.get(game, "--game", "")
    lib = g.strategies(tuple(strategy_dirs))
    s = game_cli.hook(g, "get_strategy", lambda lib, name: lib.get(name))(lib, name)
    click.echo(f"{s.name}: {s.kind}")
    if s.description:
        click.echo(s.description)
    for line in game_cli.hook(g, "strategy_lines", profile_fields)(s):
        click.echo(line)
    click.echo(f"file: {s.path}")
    click.echo("weights:" if s.kind != "random" else "weights (unused by the random kind):")
    names = list(game_cli.hook(g, "weight_names", lambda s: list(s.weights))(s))
    width = max((len(w) for w in names), default=0)
    for w in names:
        click.echo(f"  {w:<{width}}  {s.weights.get(w, 0.0):g}")
