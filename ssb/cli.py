"""The ``ssb`` command line: a thin click layer over the simulator and the strategies.

One click group (here) and its commands, one module per family: :mod:`ssb.play_cmd` (play, check),
:mod:`ssb.game_cmd` (boards), :mod:`ssb.strategies_cmd` (strategies, with :mod:`ssb.strategy_tune_cmd`
and :mod:`ssb.meta_cmd`), :mod:`ssb.run_cmd`, :mod:`ssb.report_cmd`, :mod:`ssb.regress_cmd` and
:mod:`ssb.tune_cmd`; a game's own commands and options come from its module in :mod:`ssb.games`
(Shuffle and Swing's ``instruments`` and ``bench``), named by its registry entry. Shared option
bundles are decorators in :mod:`ssb.common` (``players_option``, ``instrument_dir_option``, ...). Every command's help carries an ``Example:`` (tests/test_docs.py
fails when one is missing). A user mistake (unknown name, bad option value, malformed data file)
prints ``error: <message>`` on stderr and exits with status 2, never a traceback.

Commands that play games import the kernel lazily, so ``ssb --help`` and the data commands stay quick.
"""

import click

from ssb import games as game_cli
from ssb.common import SsbGroup
from ssb.desk_cmd import desk
from ssb.game_cmd import boards
from ssb.meta_cmd import strategies_meta
from ssb.play_cmd import check, play
from ssb.regress_cmd import baseline, regress
from ssb.report_cmd import report
from ssb.run_cmd import run
from ssb.strategies_cmd import strategies
from ssb.strategy_tune_cmd import strategies_ladder, strategies_tune
from ssb.tune_cmd import tune


@click.group(cls=SsbGroup)
@click.version_option(package_name="shuffle-swing-balance", prog_name="ssb")
def cli():
    """Shuffle and Swing balance lab: play, check and inspect games of the simulator.

    Example:

    \b
        ssb play --players 4 --seed 7
    """


cli.add_command(play)
cli.add_command(check)
cli.add_command(boards)
cli.add_command(strategies)
cli.add_command(run)
cli.add_command(report)
cli.add_command(desk)
cli.add_command(baseline)
cli.add_command(regress)
cli.add_command(tune)
for command in game_cli.commands():  # each game's own (its entry's Game.commands), e.g. instruments, bench
    cli.add_command(command)

strategies.add_command(strategies_tune)  # tuning and the skill ladder
strategies.add_command(strategies_ladder)
strategies.add_command(strategies_meta)  # the meta-game of a strategy pool


def main():
    """Console entry point (``ssb``)."""
    cli.main(prog_name="ssb")


if __name__ == "__main__":
    main()
