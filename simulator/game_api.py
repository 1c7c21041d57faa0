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
* optionally ``gate``: a :class:`GateSpec`, the figures it adds to the regression gate (``ssb regress``);
* optionally ``report``: a :class:`ReportSpec`, its words for a setting and its own report sections.
* optionally ``play_batch_lead(setup, seeds, strat) -> (seats, games, rec, nrec)``: ``play_batch``
  plus the per-round lead record of a scenario's ``record = ["lead"]`` (``simulator.lead_record``:
  ``rec[game, round, seat]`` each seat's standing after each round, ``nrec`` the rows per game),
  and ``lead_features``: what the win-chance estimate makes of a standing;
* ``cli_options``: the command-line options only this game reads (the others refuse them, naming it);
* ``setting``: the module reading the game's own scenario keys (default ``simulator.boards_setting``:
  boards and variants), ``play_chunk`` (optional): the game's own way to play a run's chunk,
  ``records``: what a scenario's ``record`` may name, ``warm``: what ``make setup`` compiles.

Each game declares its entry in its own package (``simulator/<game>/game.py``: ``GAME = Game(...)``);
the registry (:mod:`simulator.games`) lists those modules.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable


# How a game's gate figure is worked out from its result tables, per game (``reports.gate.baseline``).
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
    # What a baseline keeps of the run (``reports.gate.baseline``): ``run_settings``, the manifest's settings
    # that name the run (empty: the scenario's design and its --set changes); ``data_groups``, the
    # groups of the manifest's data files as ``(group, label)``, each file keyed ``label + name`` (a
    # group of one file, ``{"path", "sha256"}``, keyed by the group's name).
    run_settings: tuple = ()
    data_groups: tuple = (("instruments", ""), ("strategies", "strategy "))
    # ``judge_groups``: the groups of ``data_groups`` that make up the judge rather than the game (a
    # learned leaf a search plays): ``ssb regress`` refuses a run whose entry there differs from the
    # baseline's, since its figures would measure a change of the judge with the change of the game.
    judge_groups: tuple = ()


@dataclass(frozen=True)
class LadderSpec:
    """What a game's skill ladder (``ssb strategies ladder``, :mod:`strategies.ladder`) uses.

    ``default_rungs(library)``: the rungs, weakest first, that the library holds; ``parse_rung(spec,
    library)``: a rung ``name[@param=value...]`` as a strategy (with ``row()``); ``winners(nplayers,
    strat, seeds, settings)``: the winner seat of each game (-1: none), ``settings`` holding
    ``instruments``, ``instrument_dirs`` and ``board`` (a game reads those it has; no seeds: only
    check that the setting sets up). ``players``: the player counts of the matrix by default;
    ``placed``: strategies measured against every rung and placed where they fall; ``against``: the
    opponents besides greedy of the one-against-three figure; ``depth``: the skill-depth figure
    (search budgets); ``note``: a line the printed ladder shows; ``meta_pool`` and ``skill_pair``:
    the meta-game's default pool and its skill-vs-luck pair (``ssb strategies meta``)."""

    default_rungs: Callable
    parse_rung: Callable
    winners: Callable
    players: tuple = (2, 3, 4)
    placed: tuple = ()
    against: tuple = ()
    depth: bool = False
    note: str = ""
    # The meta-game (``ssb strategies meta``): the default pool and the skill-vs-luck pair (strong, weak).
    meta_pool: tuple = ()
    skill_pair: tuple = ()
    # The pool's strongest rungs, strongest first: how the meta-game's answer moves without each and
    # those above it (``reports.metagame.default_pools``).
    meta_strong: tuple = ()
    # The order of the judges (a mirror lineup's strategy) in the report's answers, weakest first
    # (``reports.answers``: a judge a rung above another is a step above it); an entry is a name or
    # a tuple of names at par. Empty: the rungs' strategies (``default_rungs``) in their order.
    judges: tuple = ()
    # Who a judge stands for in the report's answers, ``(strategy name, words)`` pairs (``("search",
    # "strong players")``; words ending in "level" read "at greedy's level"); a judge without words
    # is "<name> players".
    words: tuple = ()
    # The proof of a run's strong judge (``scenarios.sequential_proof``): the rung a run's strongest
    # judge is played against, head to head, on each setting it judges (empty: no proof), and which
    # judges are held to it (``proves(library, name)``: True for a judge of the rung's family).
    reference: str = ""
    proves: Callable | None = None

    def judge_ranks(self, library=None):
        """``{strategy name: rung}`` of the judges (:attr:`judges`, else the default rungs of
        ``library``, each rung's strategy once, a parameterised rung by its strategy); a judge not
        in it has no rung."""
        if self.judges:
            order = self.judges
        else:
            order = dict.fromkeys(str(r).split("@")[0].split(":")[0] for r in self.default_rungs(library))
        return {name: rank for rank, entry in enumerate(order)
                for name in ((entry,) if isinstance(entry, str) else entry)}


@dataclass(frozen=True)
class WeightTuneSpec:
    """What ``ssb strategies tune`` (:mod:`strategies.tune`) needs of a game whose strategies are rows
    of named weights (a profile's ``[weights]``): ``weight_names``, the weights in the row's order;
    ``opponents``: the named strategies of the default population (the tune adds its ``champion``);
    ``setup(nplayers, setting, setting_dirs)``: the game's setup for a setting (e.g. an instrument
    set and its extra folders); ``winners(setup, strat, seeds)``: the winner seat of each game."""

    weight_names: tuple
    setup: Callable
    winners: Callable
    opponents: tuple = ()


@dataclass(frozen=True)
class ReportSpec:
    """What a game's balance report says in its own words, beyond the sections every game's report has
    (``reports.build``: seats, strategies, variants compared on the same deals, game shape, game feel).

    ``sections``: the names of the game's own report parts, each a module of ``reports/sections/``
    (``reports.sections.<name>``; a game outside the shipped packages, a plugin or a test's toy, may name
    a module of its own by its dotted path); a part whose key is a generic section's replaces it.
    ``setting_label``: the column naming a setting (the game's setting columns joined by ``/``) in the
    report's tables, an identifier; ``setting_title``: its header (default: the setting columns joined by
    ``/``, e.g. ``board/variant``); ``setting_words`` / ``settings_words``: one setting and several in
    prose (default: the title; ``settings (board / variant)``); ``setting_noun``: several, short
    (``settings``). ``summary_rows``: the headline gives one row per player count and judge, counting
    the verdicts, when a player count has several settings (default: a row per setting).
    ``switch_words``: ``(switch, value, words)`` triples, a variant's switches in the designer's words
    (``("catch_up", True, "the catch-up tokens")``); a switch without words is named by its key."""

    sections: tuple = ()
    setting_label: str = "setting"
    setting_title: str = ""
    setting_words: str = ""
    settings_words: str = ""
    setting_noun: str = "settings"
    summary_rows: bool = False
    switch_words: tuple = ()


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
    # One line about a board for ``ssb boards list`` (default: its file).
    describe_board: Callable | None = None
    # The game's own part of the command line, ``ssb/games/<commands>`` (a module or package named for
    # the game, e.g. "shuffle_swing"): its own commands and how ``ssb play``/``check`` and ``ssb
    # strategies`` read its options (``ssb.games``). Empty: a game of boards and variants, served as is.
    commands: str = ""
    aliases: tuple = field(default_factory=tuple)
    gate: GateSpec = GateSpec()
    # The compiled batch entry point the runner warms up before its workers start
    # (``simulator.warmup``): an attribute of :attr:`kernel_module`, or ``module:attr``.
    kernel_entry: str = "play_batch"
    # The module of the compiled entry points a bare :attr:`kernel_entry` names (the default game's
    # is where ``simulator.warmup`` looks a bare entry name up); empty: every entry is ``module:attr``.
    kernel_module: str = ""
    # The game's own setting a command plays when it is given none (``ssb strategies ladder``, ``meta``,
    # ``tune``), e.g. an instrument set; empty: the game's boards and variants decide.
    starter: tuple = ()
    # Optional, for ``ssb strategies tune``: the game's strategies are weight rows (:class:`WeightTuneSpec`).
    # ``None``: the command refuses the game, naming it.
    weight_tune: WeightTuneSpec | None = None
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

    # The game's regression-gate scenario (a shipped scenario's name or a path): small, every player
    # count and setting kind; the conformance tests play it with few games.
    gate_scenario: str | None = None
    # The gate at strong play (optional): the same settings judged by a strong rung of the game's
    # ladder, because a change can move strong play while the weak judges' gate sees nothing.
    # ``make regress``, the desk's check and the gate tests play it beside ``gate_scenario``.
    strong_gate_scenario: str | None = None
    # Sentences the balance report adds to its seat verdict's method note (the rulings that shape the
    # verdicts: how ties are broken, or that there are none).
    report_notes: tuple = ()
    # The report's words for a setting and the game's own report parts (:class:`ReportSpec`).
    report: ReportSpec = ReportSpec()
    # The skill ladder (``ssb strategies ladder``), if the game has one.
    ladder: LadderSpec | None = None
    # The cell columns naming a cell's setting, after ``players`` (text; the report groups by them).
    setting_columns: tuple = ("board", "variant")
    # How the compile notice names this game's kernel (default: "the <title> rules kernel").
    kernel_label: str = ""
    # The options of ``ssb play``, ``ssb check`` and ``ssb strategies ladder`` (click parameter names)
    # that only this game reads; given for another game, they are refused naming this one. The
    # default: a game of boards' ``--board`` and ``--variant`` (``ssb.game_cmd``).
    cli_options: tuple = ("board", "variants")
    # Optional, for the estimated win chances of a run with the lead record (``reports.feel.winchance``):
    # ``lead_features(standing)`` splits a (rounds, seats) standing matrix into the list of
    # (rounds, seats) arrays the estimate weighs apart (more is better in each). ``None``: the
    # standing is one number, in tens.
    lead_features: Callable | None = None
    # What a scenario's ``record`` may name (``scenarios.record``); ``None``: ``("lead",)`` when the
    # game has ``play_batch_lead``, else nothing.
    records: tuple | None = None
    # The module reading the game's own scenario keys (its setting; ``scenarios.scenario`` checks the
    # shared ones first): a module offering ``KEYS``, ``REQUIRED``, ``EFFECTIVE``, ``SETTINGS``,
    # ``prepare``, ``apply_set`` and ``parse`` (``simulator.boards_setting`` is the model). The
    # default: a list of ``boards`` and named ``[variants]`` of the game's switches.
    setting: str = "simulator.boards_setting"
    # Optional: the game's own way to play a chunk of a run's games (sub-batches, records beyond the
    # lead): ``play_chunk(setup, players, seeds, deal, groups, record, cache_key) -> (seats, games,
    # extra)``, ``groups`` the ``(rows, strategy rows)`` of each seat rotation, ``extra`` the recorded
    # columns as ``{column: (values, dtype)}``. ``None``: ``play_batch`` once per seat rotation.
    play_chunk: Callable | None = None
    # Optional: ``warm(game) -> [(entry point, play)]``, what ``make setup`` compiles (the entry
    # points a user meets first); ``None``: ``play_game`` and ``kernel_entry`` (``simulator.warmup``).
    warm: Callable | None = None

    def setting_module(self):
        """The module named by :attr:`setting`, imported."""
        return importlib.import_module(self.setting)

    def kernel_what(self):
        """How the compile notice names this game's kernel."""
        return self.kernel_label or f"the {self.title} rules kernel"


class Lazy:
    """``module.attr`` called with the caller's arguments, the module imported on the first call: a
    game's entry is written as data, and importing the registry loads no kernel."""

    __slots__ = ("module", "attr")

    def __init__(self, module, attr):
        self.module, self.attr = module, attr

    def __call__(self, *args, **kwargs):
        return getattr(importlib.import_module(self.module), self.attr)(*args, **kwargs)

    def __repr__(self):
        return f"<{self.module}.{self.attr}, imported on first use>"


def package_entries(prefix):
    """``(play_batch, play_one, soak, narrate, document, kernel_sources)`` of a game whose package
    follows the convention: ``<prefix>.playout`` offers ``batch_results``, ``play_one`` and ``soak``,
    ``<prefix>.narrate`` offers ``narrate`` and ``game_document``, ``<prefix>.kernel`` offers
    ``kernel_sources``."""
    playout, narrate = f"{prefix}.playout", f"{prefix}.narrate"
    return (
        Lazy(playout, "batch_results"),
        Lazy(playout, "play_one"),
        Lazy(playout, "soak"),
        Lazy(narrate, "narrate"),
        Lazy(narrate, "game_document"),
        Lazy(f"{prefix}.kernel", "kernel_sources"),
    )
