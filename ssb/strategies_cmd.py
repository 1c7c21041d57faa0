"""``ssb strategies list`` and ``ssb strategies show``: the named strategy profiles (the group's
``tune``, ``ladder`` and ``meta`` live in :mod:`ssb.strategy_tune_cmd` and :mod:`ssb.meta_cmd`)."""

import click

from simulator.shuffle_swing import layout as L
from ssb.common import SsbGroup, strategy_dir_option, table


# --------------------------------------------------------------------------- strategies


@click.group(cls=SsbGroup)
def strategies():
    """List and show the named strategies (profiles in simulator/shuffle_swing/data/strategies).

    Example:

    \b
        ssb strategies list
    """


@strategies.command("list")
@strategy_dir_option
def strategies_list(strategy_dirs):
    """Table of every strategy: kind, focus and description.

    Example:

    \b
        ssb strategies list --strategy-dir my_profiles/
    """
    from simulator.shuffle_swing.strategies import StrategyLibrary

    lib = StrategyLibrary(extra_dirs=tuple(strategy_dirs))
    rows = [
        (s.name, s.kind, L.DEPT_NAMES[s.focus] if s.focus >= 0 else "-", s.description) for s in lib.all()
    ]
    click.echo(table(("name", "kind", "focus", "description"), rows))


@strategies.command("show")
@click.argument("name")
@strategy_dir_option
def strategies_show(name, strategy_dirs):
    """Print one strategy: kind, flags, description and its full weight table.

    NAME may carry a focus, e.g. greedy:orange.

    Example:

    \b
        ssb strategies show greedy
    """
    from simulator.shuffle_swing.strategies import StrategyLibrary

    s = StrategyLibrary(extra_dirs=tuple(strategy_dirs)).get(name, source="NAME")
    click.echo(f"{s.name}: {s.kind}")
    if s.description:
        click.echo(s.description)
    click.echo(f"focus: {L.DEPT_NAMES[s.focus] if s.focus >= 0 else '-'}")
    if s.kind == "lookahead":
        click.echo(f"budget: {s.budget} rollouts per candidate")
    click.echo(f"file: {s.path}")
    click.echo("weights:" if s.kind != "random" else "weights (unused by the random kind):")
    width = max(len(w) for w in L.WEIGHT_NAMES)
    for w in L.WEIGHT_NAMES:
        click.echo(f"  {w:<{width}}  {s.weights.get(w, 0.0):g}")
