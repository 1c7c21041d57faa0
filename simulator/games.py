"""The games the lab can play, each declared once with its facts (after OpenSpiel's game registry).

A game declares, up front:

* ``name`` (what a scenario's ``game = "..."`` and ``--game`` say), ``title``, ``player_counts``;
* its data: ``boards`` (names a scenario may list) and ``setup(players, board, variants)`` that
  loads and validates the data files and packs the kernel's arrays;
* ``variants_from_dict(table, file, key)``: a scenario's named variants, validated;
* its results: ``seat_columns`` and ``game_columns`` (every column after the generic cell columns,
  all integers) and ``score_sources`` (the seat columns that add up to a score, if it has scores);
* ``strategies(extra_dirs)``: its strategy library (``.get(name)``, ``.matrix(names)``, ``.names()``);
* ``play_batch(setup, seeds, strat) -> (seats, games)``: per-seat arrays (games x seats) and per-game
  arrays, keyed by those columns; ``play_one``, ``narrate``, ``document`` (one game as text or JSON);
  ``soak(setup, strat, games, seed)``; ``kernel_sources()`` (the files whose change changes a game).

The generic layers (``scenarios/generic.py``, ``reports/game_report.py``, ``ssb``) ask only this.
Shuffle and Swing, the first game, keeps its own richer pipeline (``scenarios/scenario.py`` and
friends) and is registered here too, as the default. Adding a game: write its package (data,
kernel, playout, narration, strategies) and one ``register(Game(...))`` below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from simulator.errors import DataError

DEFAULT_GAME = "shuffle-swing"


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    player_counts: tuple
    boards: tuple
    setup: Callable
    variants_from_dict: Callable
    seat_columns: tuple
    game_columns: tuple
    score_sources: tuple
    strategies: Callable
    play_batch: Callable
    play_one: Callable
    narrate: Callable
    document: Callable
    soak: Callable
    kernel_sources: Callable
    default_strategy: str = "greedy"
    draw_board: Callable | None = None
    aliases: tuple = field(default_factory=tuple)
    # Optional, for ``ssb tune``: ``tunable(table)`` gives a variant table (a scenario's
    # ``[variants]`` entry) with every switch filled in from the game's data, the values a balance
    # search starts from (keys of a search space name these switches, or one entry of a list).
    tunable: Callable | None = None


_GAMES: dict = {}


def register(game):
    """Add a game to the registry (its name and aliases must be new)."""
    for key in (game.name, *game.aliases):
        if key in _GAMES:
            raise ValueError(f"game name '{key}' is taken")
        _GAMES[key] = game
    return game


def get(name=None, file="game", key="game"):
    """A game by name (``None``: the default); an unknown name is a DataError naming the choices."""
    if name is None:
        name = DEFAULT_GAME
    game = _GAMES.get(str(name).strip().lower())
    if game is None:
        raise DataError(file, key, f"unknown game '{name}'; known: {', '.join(names())}")
    return game


def names():
    return sorted({g.name for g in _GAMES.values()})


# =========================================================================== Shuffle and Swing


def _sns_setup(players, board=None, variants=None):
    from simulator.playout import GameSetup

    return GameSetup(nplayers=players)


def _sns_variants(table, file="variants", key="variants"):
    if table:
        raise DataError(file, key, "Shuffle and Swing scenarios change the game through [overrides], not variants")
    return None


def _sns_play_batch(setup, seeds, strat):
    from simulator.playout import game_results, play_many, seat_results

    states, _ = play_many(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states)


def _sns_strategies(extra_dirs=()):
    from strategies.library import StrategyLibrary

    return StrategyLibrary(extra_dirs=tuple(extra_dirs))


def _sns_play_one(setup, strat, seed):
    from simulator.playout import play_one

    return play_one(setup, strat, seed)


def _sns_narrate(record, names):
    from simulator.narrate import narrate

    return narrate(record, names)


def _sns_document(record, names):
    from simulator.narrate import game_document

    return game_document(record, names)


def _sns_soak(setup, strat, games, seed):
    from simulator.playout import soak

    return soak(setup, strat, games, seed)


def _sns_sources():
    from simulator.kernel import kernel_sources

    return kernel_sources()


def _sns_columns():
    from simulator.layout import DEPT_NAMES, SRC_NAMES, STAT_NAMES

    seat = (
        "score",
        *SRC_NAMES,
        *(f"pieces_{d}" for d in DEPT_NAMES),
        *(f"brag_space_{d}" for d in DEPT_NAMES),
        *STAT_NAMES,
        "won",
        "rank",
    )
    game = (
        "winner",
        "tiebreak",
        "tied",
        "rounds",
        "turns",
        "stalled",
        "decisions",
        *(f"built_{d}" for d in DEPT_NAMES),
        "pri_or_neutral_pieces",
    )
    return seat, game, tuple(SRC_NAMES)


_SNS_SEAT, _SNS_GAME, _SNS_SOURCES = _sns_columns()

register(
    Game(
        name=DEFAULT_GAME,
        title="Shuffle and Swing",
        player_counts=(2, 3, 4),
        boards=(),
        setup=_sns_setup,
        variants_from_dict=_sns_variants,
        seat_columns=_SNS_SEAT,
        game_columns=_SNS_GAME,
        score_sources=_SNS_SOURCES,
        strategies=_sns_strategies,
        play_batch=_sns_play_batch,
        play_one=_sns_play_one,
        narrate=_sns_narrate,
        document=_sns_document,
        soak=_sns_soak,
        kernel_sources=_sns_sources,
        aliases=("shuffle", "sns"),
    )
)


# =========================================================================== Echidna Shuffle


def _ech_setup(players, board="forest", variants=None):
    from simulator.echidna.board import EchidnaSetup, Variants

    return EchidnaSetup(players, board, variants or Variants())


def _ech_variants(table, file="variants", key="variants"):
    from simulator.echidna.board import variants_from_dict

    return variants_from_dict(table, file, key)


def _ech_play_batch(setup, seeds, strat):
    from simulator.echidna.playout import game_results, play_many, seat_results

    states, _ = play_many(setup, strat, seeds)
    return seat_results(states, setup.nplayers), game_results(states, setup.nplayers)


def _ech_strategies(extra_dirs=()):
    from strategies.echidna import EchidnaStrategyLibrary

    return EchidnaStrategyLibrary(extra_dirs=tuple(extra_dirs))


def _ech_play_one(setup, strat, seed):
    from simulator.echidna.playout import play_one

    return play_one(setup, strat, seed)


def _ech_narrate(record, names):
    from simulator.echidna.narrate import narrate

    return narrate(record, names)


def _ech_document(record, names):
    from simulator.echidna.narrate import game_document

    return game_document(record, names)


def _ech_soak(setup, strat, games, seed):
    from simulator.echidna.playout import soak

    return soak(setup, strat, games, seed)


def _ech_sources():
    from simulator.echidna.kernel import kernel_sources

    return kernel_sources()


def _ech_draw(board, path):
    from simulator.echidna.drawing import draw_board

    return draw_board(board, path)


def _ech_tunable(table):
    from simulator.echidna.board import load_rules, variants_from_dict

    v = variants_from_dict(dict(table))
    rules = load_rules()
    return {
        "catch_up": v.catch_up,
        "home_stretch": v.home_stretch,
        "extra_bugs": v.extra_bugs,
        "roll_every_turn": v.roll_every_turn,
        "token_schedule": list(rules.catch_up if v.token_schedule is None else v.token_schedule),
        "max_rounds": int(v.max_rounds or rules.max_rounds),
    }


def _ech_columns():
    from simulator.echidna.layout import GAME_COLUMNS, SEAT_COLUMNS

    return SEAT_COLUMNS, GAME_COLUMNS


_ECH_SEAT, _ECH_GAME = _ech_columns()

register(
    Game(
        name="echidna",
        title="Echidna Shuffle",
        player_counts=(2, 3, 4, 5, 6),
        boards=("forest", "snow"),
        setup=_ech_setup,
        variants_from_dict=_ech_variants,
        seat_columns=_ECH_SEAT,
        game_columns=_ECH_GAME,
        score_sources=(),
        strategies=_ech_strategies,
        play_batch=_ech_play_batch,
        play_one=_ech_play_one,
        narrate=_ech_narrate,
        document=_ech_document,
        soak=_ech_soak,
        kernel_sources=_ech_sources,
        draw_board=_ech_draw,
        aliases=("echidna-shuffle",),
        tunable=_ech_tunable,
    )
)
