"""Shuffle and Swing's entry in the game registry (:mod:`simulator.games`): its facts, columns and gate."""

from __future__ import annotations

from simulator.errors import DataError
from simulator.game_api import (Game, GateFigure, GateKind, GateSpec, LadderSpec, Lazy, ReportSpec, WeightTuneSpec,
                                 package_entries)
from simulator.shuffle_swing.layout import WEIGHT_NAMES
from simulator.shuffle_swing.library import STARTER


def _sns_setup(players, board=None, variants=None):
    from simulator.shuffle_swing.playout import GameSetup

    return GameSetup(nplayers=players)


def _sns_variants(table, file="variants", key="variants"):
    if table:
        raise DataError(file, key, "Shuffle and Swing scenarios change the game through [overrides], not variants")
    return None


# The rest of the interface: functions of the game's own modules, each imported on first use.
_sns_play_batch, _sns_play_one, _sns_soak, _sns_narrate, _sns_document, _sns_sources = package_entries("simulator.shuffle_swing")
_sns_strategies = Lazy("simulator.shuffle_swing.strategies", "StrategyLibrary")


def _sns_columns():
    from simulator.shuffle_swing.layout import DEPT_NAMES, SRC_NAMES, STAT_NAMES

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
        "winner_strategy",  # text: the winner's strategy (filled in by the runner, not the kernel)
        "tiebreak",
        "tied",
        "rounds",
        "turns",
        "stalled",
        "decisions",
        *(f"built_{d}" for d in DEPT_NAMES),
        "pri_or_neutral_pieces",
        "pri_penalty_absorbed",
    )
    return seat, game, tuple(SRC_NAMES)


_SNS_SEAT, _SNS_GAME, _SNS_SOURCES = _sns_columns()


def _sns_warm(game):
    """The entry points a user meets first: ``play_game_plain`` (a plain ``ssb play``), ``play_game``
    (a table with a searching seat) and ``play_batch`` (``ssb run``, ``ssb check``)."""
    import numpy as np

    from simulator.shuffle_swing.playout import GameSetup, play_many, play_one

    lib = game.strategies(())
    plain, deep = lib.matrix(["greedy"] * 4), lib.matrix(["greedy", "lookahead"])
    return [
        ("play_game_plain", lambda: play_one(GameSetup(nplayers=4), plain, 1)),
        ("play_game", lambda: play_one(GameSetup(nplayers=2), deep, 1)),
        ("play_batch", lambda: play_many(GameSetup(nplayers=4), plain, np.arange(1, dtype=np.uint64))),
    ]

_TUNE_SETUPS = {}


def _tune_setup(nplayers, instruments, instrument_dirs):
    """The set-up of a weight tune's games: an instrument set (and its extra folders), kept per key."""
    key = (nplayers, tuple(instruments), tuple(instrument_dirs))
    if key not in _TUNE_SETUPS:
        from simulator.shuffle_swing.playout import GameSetup

        _TUNE_SETUPS[key] = GameSetup(nplayers=nplayers, instruments=tuple(instruments),
                                      instrument_dirs=tuple(instrument_dirs))
    return _TUNE_SETUPS[key]


def _tune_winners(setup, strat, seeds):
    """The winner seat of each game of ``seeds`` (the kernel's final state)."""
    from simulator.shuffle_swing.layout import S_WINNER
    from simulator.shuffle_swing.playout import play_many

    states, _ = play_many(setup, strat, seeds)
    return states[:, S_WINNER]


GAME = Game(
    name="shuffle-swing",
    kernel_label="the rules kernel",
    kernel_module="simulator.shuffle_swing.kernel.engine",  # where its bare kernel_entry names live
    starter=STARTER,  # the starter instrument set: what the ladder, the meta-game and the tune play
    # ssb strategies tune: its strategies are weight rows, scored against greedy and majority seats.
    weight_tune=WeightTuneSpec(weight_names=tuple(WEIGHT_NAMES), setup=_tune_setup, winners=_tune_winners,
                               opponents=("greedy", "majority")),
    commands="shuffle_swing",  # ssb/games/shuffle_swing/: instruments, bench, the instrument-set options
    gate_scenario="ci",
    strong_gate_scenario="ci-strong",  # the strong judge's mirrors (its leaf held): greedy reads the 3- and 4-player seats fair
    # The skill ladder: the matrix at 2, 3 and 4 players, one seat against three greedy and three
    # tuned, and the skill depth of the search player.
    ladder=LadderSpec(
        default_rungs=Lazy("simulator.shuffle_swing.strategies", "default_rungs"),
        parse_rung=Lazy("simulator.shuffle_swing.strategies", "parse_rung"),
        winners=Lazy("simulator.shuffle_swing.playout", "ladder_winners"),
        players=(2, 3, 4),
        against=("tuned",),
        depth=True,
        meta_pool=("greedy@temperature=0.5", "greedy", "tuned", "search", "bragger", "builder", "majority", "specialist:orange"),
        skill_pair=("tuned", "greedy"),
        meta_strong=("search", "search_deep", "tuned"),
        # The answers' judges, weakest first, from the ladder's measured steps (docs/guide/skill-ladder.md):
        # tuned beats three greedy, search beats three tuned, search_deep is the rung above search;
        # decisive is at par with tuned, search_strong (retired) and search_quick with search, search_lean and search_leaf with
        # search_deep (search_leaf_held, the strong gate's judge, plays search_leaf's games on the starter set);
        # the lookahead (the search's fallback rung) sits between tuned and search.
        judges=("random", "greedy", ("tuned", "decisive"), "lookahead", ("search", "search_strong", "search_quick"),
                ("search_deep", "search_lean", "search_leaf", "search_leaf_held")),
        words=(("random", "random players"), ("greedy", "greedy's level"), ("tuned", "tuned players"),
               ("decisive", "decisive players"), ("lookahead", "players who look ahead"),
               ("search", "strong players"), ("search_strong", "strong players"), ("search_quick", "strong players"),
               ("search_deep", "the strongest players"), ("search_lean", "the strongest players"),
               ("search_leaf", "the strongest players"), ("search_leaf_held", "the strongest players")),
        # A run judged by a search player above the reference rung plays it against ``search`` on
        # each setting first (docs/guide/sequential.md, "The strong judge's proof").
        reference="search",
        proves=Lazy("simulator.shuffle_swing.strategies", "is_search"),
    ),
    # The play/check/ladder options only this game reads: its instrument set (and the soak over every set).
    cli_options=("instruments", "instrument_dirs", "all_sets"),
    setting_columns=("inst_black", "inst_orange", "inst_gray"),
    # The report: a setting is an instrument set (black/orange/gray), several per player count summed
    # up in the headline; its own parts (reports/sections/shuffle_swing/): the bots and caveats up
    # front, scoring sources, instruments out of line, the game shape with scores and passes (in place
    # of the generic one), the rules that bite and the tie-break's part of each seat edge (R13).
    report=ReportSpec(
        sections=tuple(f"shuffle_swing.{part}" for part in ("about", "scoring", "instruments", "score_shape", "rules",
                                                             "tiebreak")),
        setting_label="instruments",
        setting_title="instruments",
        setting_words="instrument set",
        settings_words="instrument sets",
        setting_noun="sets",
        summary_rows=True,
    ),
    report_notes=("Ties go to the tied player latest in turn order (R13).",),
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
    play_batch_lead=Lazy("simulator.shuffle_swing.lead_record", "batch_results_lead"),  # the per-round lead record
    # What its scenarios may record (scenarios.record): the lead record, set-up replays, state ties.
    records=("lead", "setup", "state-ties"),
    # Its own scenario keys (instrument sets, overrides) and its way to play a chunk (sub-batches).
    setting="simulator.shuffle_swing.setting",
    play_chunk=Lazy("simulator.shuffle_swing.chunk", "play_chunk"),
    warm=_sns_warm,
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
        # A baseline names the run by its settings and its board, instrument and strategy files, and
        # the learned leaves its searches play (held at the file's fit, or fitted on the setting):
        # those are the judge's, and a run whose leaf differs from the baseline's is refused.
        run_settings=("wheel", "max_rounds", "overrides", "instrument_dirs", "strategy_dirs"),
        data_groups=(("board", ""), ("instruments", "instrument "), ("strategies", "strategy "),
                     ("leaves", "leaf "), ("leaf_fits", "leaf ")),
        judge_groups=("leaves", "leaf_fits"),
    ),
)
