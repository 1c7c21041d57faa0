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
  ``soak(setup, strat, games, seed)``; ``kernel_sources()`` (the files whose change changes a game);
* optionally ``gate``: a :class:`GateSpec`, the figures it adds to the regression gate (``ssb regress``).
* optionally ``play_batch_lead(setup, seeds, strat) -> (seats, games, rec, nrec)``: ``play_batch``
  plus the per-round lead record of a scenario's ``record = ["lead"]`` (``simulator.lead_record``:
  ``rec[game, round, seat]`` each seat's standing after each round, ``nrec`` the rows per game).

The generic layers (``scenarios/generic.py``, ``reports/game_report.py``, ``ssb``) ask only this.
Shuffle and Swing, the first game, keeps its own richer pipeline (``scenarios/scenario.py`` and
friends) and is registered here too, as the default. Adding a game: write its package (data,
kernel, playout, narration, strategies) and one ``register(Game(...))`` below.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from simulator.errors import DataError

DEFAULT_GAME = "shuffle-swing"

# How a game's gate figure is worked out from its result tables, per game (``reports.baseline``).
GATE_HOWS = (
    "seat_sum",  # a seat column summed over the seats (e.g. tokens spent in the game)
    "seat_spread",  # the standard deviation of a seat column over the seats (e.g. score spread)
    "game",  # a game column as it is (e.g. moves lost in the game)
    "game_share",  # 1 when a game column is above 0, else 0 (a rate, e.g. the instrument was built)
)


@dataclass(frozen=True)
class GateFigure:
    """One figure a game adds to the balance regression gate (``ssb regress``).

    ``name`` is the figure's id in a baseline file, ``kind`` one of the game's :class:`GateKind`
    (its margin), ``label`` what the summary prints (``{column}`` is filled in from the cell's
    games table, e.g. ``{inst_black}``), ``column`` the result column read and ``how`` one of
    :data:`GATE_HOWS`.
    """

    name: str
    kind: str
    label: str
    column: str
    how: str = "seat_sum"


@dataclass(frozen=True)
class GateKind:
    """A kind of gate figure: its unit, its default margin (a rate's as a fraction) and whether it is a rate."""

    name: str
    unit: str
    margin: float
    rate: bool = False


@dataclass(frozen=True)
class GateSpec:
    """What a game declares for the regression gate, beyond the figures every game has (each seat's
    win rate, each strategy's in mixed lineups, rounds per game): ``figures`` (:class:`GateFigure`),
    the ``kinds`` they use (:class:`GateKind`), and ``stalls``: the game can stall (a game column
    ``stalled``), so its stalled-game rate is a figure too."""

    figures: tuple = ()
    kinds: tuple = ()
    stalls: bool = False


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
    gate: GateSpec = GateSpec()
    # The compiled batch entry point the runner warms up before its workers start
    # (``simulator.warmup``): an attribute of the first game's engine, or ``module:attr``.
    kernel_entry: str = "play_batch"
    # Optional, for ``ssb tune``: ``tunable(table)`` gives a variant table (a scenario's
    # ``[variants]`` entry) with every switch filled in from the game's data, the values a balance
    # search starts from (keys of a search space name these switches, or one entry of a list).
    tunable: Callable | None = None
    # Optional, for a scenario's ``record = ["lead"]``: ``play_batch`` plus the per-round lead record,
    # ``(seats, games, rec, nrec)`` (``simulator.lead_record``); ``None``: the game has no record.
    play_batch_lead: Callable | None = None

    def kernel_entry_named(self, attr):
        """Another compiled entry point of the same kernel module as ``kernel_entry`` (``play_game``)."""
        module = self.kernel_entry.rpartition(":")[0]
        return f"{module}:{attr}" if module else attr

    def kernel_what(self):
        """How the compile notice names this game's kernel."""
        return "the rules kernel" if self.name == DEFAULT_GAME else f"the {self.title} rules kernel"


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


class _Lazy:
    """``module.attr`` called with the caller's arguments, the module imported on the first call: a
    game's entry is written as data, and importing the registry loads no kernel."""

    __slots__ = ("module", "attr")

    def __init__(self, module, attr):
        self.module, self.attr = module, attr

    def __call__(self, *args, **kwargs):
        return getattr(importlib.import_module(self.module), self.attr)(*args, **kwargs)

    def __repr__(self):
        return f"<{self.module}.{self.attr}, imported on first use>"


def _package(prefix):
    """``(play_batch, play_one, soak, narrate, document, kernel_sources)`` of a game whose package
    follows the convention: ``<prefix>.playout`` offers ``batch_results``, ``play_one`` and ``soak``,
    ``<prefix>.narrate`` offers ``narrate`` and ``game_document``, ``<prefix>.kernel`` offers
    ``kernel_sources``."""
    playout, narrate = f"{prefix}.playout", f"{prefix}.narrate"
    return (
        _Lazy(playout, "batch_results"),
        _Lazy(playout, "play_one"),
        _Lazy(playout, "soak"),
        _Lazy(narrate, "narrate"),
        _Lazy(narrate, "game_document"),
        _Lazy(f"{prefix}.kernel", "kernel_sources"),
    )


# =========================================================================== Shuffle and Swing


def _sns_setup(players, board=None, variants=None):
    from simulator.playout import GameSetup

    return GameSetup(nplayers=players)


def _sns_variants(table, file="variants", key="variants"):
    if table:
        raise DataError(file, key, "Shuffle and Swing scenarios change the game through [overrides], not variants")
    return None


# The rest of the interface: functions of the game's own modules, each imported on first use.
_sns_play_batch, _sns_play_one, _sns_soak, _sns_narrate, _sns_document, _sns_sources = _package("simulator")
_sns_strategies = _Lazy("strategies.library", "StrategyLibrary")


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
        play_batch_lead=_Lazy("simulator.lead_record", "sns_batch_results_lead"),
        # Per department (its instrument named in the label): objective points, built or not; and
        # how close the final scores were. Its round cap ends a game by the usual scoring: no stall.
        gate=GateSpec(
            figures=(
                *(
                    GateFigure(f"objective_points.{d}", "objective_points",
                               f"objective points per game, {d} ({{inst_{d}}})", f"objective_{d}", "seat_sum")
                    for d in ("black", "orange", "gray")
                ),
                *(
                    GateFigure(f"build_rate.{d}", "build_rate", f"build rate, {d} ({{inst_{d}}})", f"built_{d}", "game_share")
                    for d in ("black", "orange", "gray")
                ),
                GateFigure("score_spread", "score_spread", "score spread (std of final scores in a game)", "score",
                           "seat_spread"),
            ),
            kinds=(
                GateKind("objective_points", "points per game", 1.0),
                GateKind("build_rate", "rate", 0.03, rate=True),
                GateKind("score_spread", "points", 2.0),
            ),
        ),
    )
)


# =========================================================================== Echidna Shuffle


def _ech_setup(players, board="forest", variants=None):
    from simulator.echidna.board import EchidnaSetup, Variants

    return EchidnaSetup(players, board, variants or Variants())


_ech_play_batch, _ech_play_one, _ech_soak, _ech_narrate, _ech_document, _ech_sources = _package("simulator.echidna")
_ech_variants = _Lazy("simulator.echidna.board", "variants_from_dict")
_ech_strategies = _Lazy("strategies.echidna", "EchidnaStrategyLibrary")
_ech_draw = _Lazy("simulator.echidna.drawing", "draw_board")


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
        "pickup_order": v.pickup_order,
        "home_stretch_cap": int(rules.home_stretch_cap if v.home_stretch_cap is None else v.home_stretch_cap),
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
        play_batch_lead=_Lazy("simulator.lead_record", "echidna_batch_results_lead"),
        kernel_entry="simulator.echidna.kernel:play_batch",
        # Per game, summed over the seats: catch-up tokens spent (E7, E8), moves lost (E3), bugs
        # delivered on another player's turn (E5), pick-ups (E4); and the stall cap (E9).
        gate=GateSpec(
            figures=(
                GateFigure("tokens_spent", "tokens_spent", "tokens spent per game (all seats)", "tokens_spent"),
                GateFigure("moves_lost", "moves_lost", "moves lost per game", "moves_lost", "game"),
                GateFigure("deliveries_off_turn", "deliveries_off_turn",
                           "deliveries on others' turns per game (all seats)", "deliveries_off_turn"),
                GateFigure("pickups", "pickups", "pick-ups per game (all seats)", "pickups"),
            ),
            kinds=(
                GateKind("tokens_spent", "tokens per game", 0.5),
                GateKind("moves_lost", "moves per game", 0.5),
                GateKind("deliveries_off_turn", "deliveries per game", 0.1),
                GateKind("pickups", "pick-ups per game", 0.5),
            ),
            stalls=True,
        ),

        tunable=_ech_tunable,
    )
)
