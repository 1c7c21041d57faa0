"""``ssb play`` and ``ssb check``: one game with its account, and the invariant soak, for every
registered game: one body each, the game's own options and setup from its command module
(:mod:`ssb.games`; a game of boards and variants as :mod:`ssb.game_cmd` sets it up)."""

import contextlib
import json
import time

import click

from simulator import games as registry
from ssb import game_cmd
from ssb import games as game_cli
from ssb.common import (
    DEFAULT_SEED,
    NameList,
    PlayerCounts,
    announce_compile,
    check_players,
    lineup,
    players_option,
    refuse_other_game_options,
    seed_option,
    strategy_dir_option,
)
from ssb.game_options import game_options

# =========================================================================== helpers


def _game(name):
    """The game ``--game`` names; an option of another game is refused, naming the games it belongs
    to (never ignored): each game declares its own options (``Game.cli_options``)."""
    game = registry.get(name, "--game", "")
    refuse_other_game_options(click.get_current_context(), game)
    return game


def _setup(game, players, options):
    """The game's setup from its options (its module's ``play_setup``; a game of boards: board and variants)."""
    make = game_cli.hook(game, "play_setup")
    if make is not None:
        return make(game, players, options)
    return game_cmd.board_setup(game, players, options.get("board"), options.get("variants", ()))


def _matrix(game, strategy_dirs, names):
    lib = game.strategies(tuple(strategy_dirs))
    make = game_cli.hook(game, "strategy_matrix")
    return make(lib, names) if make is not None else lib.matrix(names)


def _compile_notice(game, entry):
    """The compile notice for the game's kernel entry ``entry`` (``play_game``, ``play_batch``)."""
    return announce_compile(game.kernel_entry_named(entry), game.kernel_what())


# --------------------------------------------------------------------------- play


@click.command()
@players_option
@click.option(
    "--strategies",
    type=NameList(),
    default=None,
    metavar="NAME[,NAME...]",
    help="One strategy for every seat, or one per seat in turn order (name:colour sets a focus); "
    "default: the game's (greedy).",
)
@seed_option(DEFAULT_SEED, "Game seed, used as is: the same seed replays the same game.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document instead of the account.")
@click.option("-q", "--quiet", is_flag=True, help="No compile notice and no account: only the exit status (1 if the game broke an invariant).")
@game_cli.options("play")
@strategy_dir_option
@game_options
def play(players, strategies, seed, as_json, quiet, strategy_dirs, game, **options):
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
    g = _game(game)
    check_players(g, [players])
    setup = _setup(g, players, options)
    game_cmd.warn_if_every_game_stalls(g, setup, options.get("board"))
    names = lineup(list(strategies) if strategies else [g.default_strategy], players)
    strat = _matrix(g, strategy_dirs, names)
    entry = game_cli.hook(g, "play_entry", lambda game, strat: game.kernel_entry_named("play_game"))(g, strat)
    with contextlib.nullcontext() if quiet else announce_compile(entry, g.kernel_what()):
        record = g.play_one(setup, strat, seed)
    if quiet:
        pass
    elif as_json:
        click.echo(json.dumps(g.document(record, names), indent=2))
    else:
        click.echo(g.narrate(record, names), nl=False)
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
@click.option("-q", "--quiet", is_flag=True, help="No compile notice and no counts: only violations (with their replay lines).")
@game_cli.options("check")
@game_options
def check(games, seed, player_counts, game, quiet=False, **options):
    """Soak the rules: play random games and check every invariant after every turn.

    Every seat plays the uniformly random strategy. For each setting (Shuffle and Swing: the instrument
    set, or with --all-sets each of the 64; a game of boards: each board, or the one given) and player
    count the command prints the games, turns and games per second, then either "no violation" or each
    violation with the game seed and turn that reproduce it and the `ssb play` line that replays that
    game. The exit status is 1 when a violation is found.

    Example:

    \b
        ssb check --games 2000 --seed 1 --players 3,4
        ssb check --games 20 --all-sets
        ssb check --game echidna --games 20000 --players 2,3,4,5,6
    """
    g = _game(game)
    check_players(g, player_counts)
    settings = game_cli.hook(g, "check_settings", game_cmd.check_settings)(g, options)
    label = game_cli.hook(g, "setup_label", game_cmd.setup_label)
    lib = g.strategies(())
    pick = "" if g is registry.get() else f"--game {g.name} "  # the replay line's --game (the default needs none)
    say = (lambda m: None) if quiet else click.echo
    say(f"Soak: {g.title}, random seats, {len(settings)} setting{'s' if len(settings) > 1 else ''}, "
               f"run seed {seed}, {games} games per setting and player count")
    found = total_games = total_turns = 0
    total_time = 0.0
    for make, replay in settings:
        for n in player_counts:
            setup = make(n)
            first = total_games == 0 and n == player_counts[0]
            if first:
                game_cmd.warn_if_every_game_stalls(g, setup, options.get("board"))
            strat = lib.matrix(["random"] * n)
            # One untimed game first, so loading the compiled kernel does not count against games/s.
            with _compile_notice(g, "play_batch") if first and not quiet else contextlib.nullcontext():
                g.soak(setup, strat, 1, seed)
            t0 = time.perf_counter()
            rep = g.soak(setup, strat, games, seed)
            dt = time.perf_counter() - t0
            total_games += rep.games
            total_turns += rep.turns
            total_time += dt
            rate = rep.games / dt if dt > 0 else float("inf")
            verdict = "no violation" if not rep.violations else f"{len(rep.violations)} violation(s)"
            say(f"{label(setup)}, {n} players: {rep.games} games, {rep.turns} turns, {rate:.1f} games/s, {verdict}")
            for game_seed, turn, code, message in rep.violations[:20]:
                click.echo(f"  violation {code} ({message}) at turn {turn} of game seed {game_seed}")
                click.echo(f"    replay: ssb play {pick}--players {n} {' '.join(replay)} "
                           f"--strategies random --seed {game_seed}")
            found += len(rep.violations)
    rate = total_games / total_time if total_time > 0 else float("inf")
    verdict = "no violation" if not found else f"{found} violation(s)"
    say(f"Total: {total_games} games, {total_turns} turns, {rate:.1f} games/s, {verdict}")
    if found:
        raise click.exceptions.Exit(1)
