"""``ssb play`` and ``ssb check``: one game with its account, and the invariant soak (every game,
``--game`` hands both to :mod:`ssb.game_cmd`)."""

import json
import time

import click

from simulator import games as registry
from simulator.errors import DataError
from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.game import GAME as OWN_GAME
from simulator.shuffle_swing.library import InstrumentLibrary
from ssb import game_cmd
from ssb.common import (
    DEFAULT_SEED,
    NameList,
    PlayerCounts,
    announce_compile,
    check_players,
    instrument_dir_option,
    instruments_option,
    lineup,
    players_option,
    refuse_other_game_options,
    seed_option,
    strategy_dir_option,
)
from ssb.game_options import game_options

# =========================================================================== helpers


def _game_setup(nplayers, instruments, **kw):
    """``GameSetup`` for ``--instruments``; a wrong choice of names blames the argument (a broken
    instrument file keeps naming its file)."""
    from simulator.shuffle_swing.library import LIBRARY_SOURCE
    from simulator.shuffle_swing.playout import GameSetup

    try:
        return GameSetup(nplayers=nplayers, instruments=instruments, **kw)
    except DataError as exc:
        if exc.file in (LIBRARY_SOURCE, "game") and exc.key in ("name", "instruments"):
            raise DataError("--instruments", ",".join(instruments), exc.reason) from None
        raise


def _plays_here(game):
    """Whether this module's own play and check play ``game``: the game of instrument sets
    (``OWN_GAME``, with its --instruments); every other game goes through :mod:`ssb.game_cmd`."""
    return registry.get(game, "--game", "").name == OWN_GAME.name


def _refuse_other_game(game):
    """An option of another game is refused, naming the games it belongs to (never ignored): each
    game declares its own options (``Game.cli_options``)."""
    refuse_other_game_options(click.get_current_context(), registry.get(game, "--game", ""))


def _replay_command(nplayers, setup, seed, strategies, instrument_dirs):
    parts = ["ssb play", f"--players {nplayers}", f"--instruments {','.join(setup.instruments)}"]
    if len(set(strategies)) == 1:
        parts.append(f"--strategies {strategies[0]}")
    else:
        parts.append(f"--strategies {','.join(strategies)}")
    parts += [f"--instrument-dir {d}" for d in instrument_dirs]
    parts.append(f"--seed {seed}")
    return " ".join(parts)


# --------------------------------------------------------------------------- play


@click.command()
@players_option
@instruments_option
@click.option(
    "--strategies",
    type=NameList(),
    default="greedy",
    show_default=True,
    metavar="NAME[,NAME...]",
    help="One strategy for every seat, or one per seat in turn order (name:colour sets a focus).",
)
@seed_option(DEFAULT_SEED, "Game seed, used as is: the same seed replays the same game.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document instead of the account.")
@instrument_dir_option
@strategy_dir_option
@game_options
def play(players, instruments, strategies, seed, as_json, instrument_dirs, strategy_dirs, game, board, variants):
    """Play one game and tell it turn by turn, ending with the final scoring table.

    The account shows every pawn move, die, recruit, build, brag, inspector step and score with its
    reason; the table gives each seat's total, score sources, pieces and brag spaces, and the winner.
    With --json the same game is printed as a machine-readable document (setup, seed, named events,
    per-seat and per-game results). The exit status is 1 if the game broke an invariant.

    Example:

    \b
        ssb play --players 2 --strategies greedy,random --seed 5
        ssb play --instruments Bass,Vibes,Drums --json > game.json
        ssb play --game echidna --players 5 --board snow --variant catch_up --seed 3
    """
    _refuse_other_game(game)
    if not _plays_here(game):
        return game_cmd.play(game, players, strategies, seed, as_json, board, variants, strategy_dirs)
    check_players(registry.get(game), [players])
    from simulator.shuffle_swing.narrate import game_document, narrate
    from simulator.shuffle_swing.playout import GameSetup, play_one
    from simulator.shuffle_swing.strategies import StrategyLibrary

    setup = _game_setup(players, instruments, instrument_dirs=tuple(instrument_dirs))
    names = lineup(strategies, players)
    strat = StrategyLibrary(extra_dirs=tuple(strategy_dirs)).matrix(names, source="--strategies")
    from simulator.shuffle_swing.playout import game_entry

    with announce_compile(game_entry(strat)):
        record = play_one(setup, strat, seed)
    if as_json:
        click.echo(json.dumps(game_document(record, names), indent=2))
    else:
        click.echo(narrate(record, names), nl=False)
    if record.violation:
        raise click.exceptions.Exit(1)


# --------------------------------------------------------------------------- check


@click.command()
@click.option(
    "--games", type=click.IntRange(1), default=1000, show_default=True, metavar="N", help="Games per player count."
)
@seed_option(DEFAULT_SEED, "Run seed; each game's own seed is derived from it and the game's index.")
@click.option(
    "--players",
    "player_counts",
    type=PlayerCounts(),
    default="2,3,4",
    show_default=True,
    metavar="N[,N...]",
    help="Player counts to soak.",
)
@instruments_option
@click.option(
    "--all-sets",
    is_flag=True,
    help="Soak every instrument set (one instrument per department from the library) instead of one.",
)
@instrument_dir_option
@game_options
def check(games, seed, player_counts, instruments, all_sets, instrument_dirs, game, board, variants):
    """Soak the rules: play random games and check every invariant after every turn.

    Every seat plays the uniformly random strategy. For each player count (and, with --all-sets,
    each of the 64 instrument sets) the command prints the games, turns and games per second, then
    either "no violation" or each violation with the game seed and turn that reproduce it and the
    `ssb play` line that replays that game. The exit status is 1 when a violation is found.

    Example:

    \b
        ssb check --games 2000 --seed 1 --players 3,4
        ssb check --games 20 --all-sets
        ssb check --game echidna --games 20000 --players 2,3,4,5,6
    """
    _refuse_other_game(game)
    if not _plays_here(game):
        return game_cmd.check(game, games, seed, player_counts, board, variants)
    check_players(registry.get(game), player_counts)
    import itertools

    from simulator.shuffle_swing.library import InstrumentLibrary
    from simulator.shuffle_swing.playout import GameSetup, soak
    from simulator.shuffle_swing.strategies import StrategyLibrary

    lib = StrategyLibrary()
    library = InstrumentLibrary(extra_dirs=tuple(instrument_dirs))
    if all_sets:
        per_dept = [[i.name for i in library.by_department(d)] for d in range(L.N_DEPT)]
        sets = list(itertools.product(*per_dept))
    else:
        sets = [tuple(instruments)]
    # One untimed game first, so loading the compiled kernel does not count against games/s.
    warm = _game_setup(player_counts[0], sets[0], library=library)
    with announce_compile("play_batch"):
        soak(warm, lib.matrix(["random"] * player_counts[0]), 1, seed)
    total_games = total_turns = 0
    total_time = 0.0
    found = 0
    if all_sets:
        click.echo(f"Soak: random seats, {len(sets)} instrument sets, run seed {seed}, {games} games per cell")
    for inst_set in sets:
        for n in player_counts:
            setup = GameSetup(nplayers=n, instruments=inst_set, library=library)
            if not all_sets and total_games == 0:
                click.echo(
                    f"Soak: random seats, {setup.label}, run seed {seed}, {games} games per player count"
                )
            names = ["random"] * n
            t0 = time.perf_counter()
            report = soak(setup, lib.matrix(names), games, seed)
            dt = time.perf_counter() - t0
            total_games += report.games
            total_turns += report.turns
            total_time += dt
            rate = report.games / dt if dt > 0 else float("inf")
            verdict = "no violation" if not report.violations else f"{len(report.violations)} violation(s)"
            where = f"{setup.label}, " if all_sets else ""
            click.echo(f"{where}{n} players: {report.games} games, {report.turns} turns, {rate:.1f} games/s, {verdict}")
            for game_seed, turn, code, message in report.violations:
                found += 1
                click.echo(f"  violation {code} ({message}) at turn {turn} of game seed {game_seed}")
                click.echo(f"    replay: {_replay_command(n, setup, game_seed, names, instrument_dirs)}")
    rate = total_games / total_time if total_time > 0 else float("inf")
    verdict = "no violation" if not found else f"{found} violation(s)"
    click.echo(f"Total: {total_games} games, {total_turns} turns, {rate:.1f} games/s, {verdict}")
    if found:
        raise click.exceptions.Exit(1)
