"""Echidna Shuffle's entry in the game registry (:mod:`simulator.games`): its facts, columns, gate and tunable switches."""

from __future__ import annotations

from simulator.game_api import Game, GateFigure, GateKind, GateSpec, LadderSpec, Lazy, ReportSpec, package_entries


def _ech_setup(players, board="forest", variants=None):
    from simulator.echidna.board import EchidnaSetup, Variants

    return EchidnaSetup(players, board, variants or Variants())


_ech_play_batch, _ech_play_one, _ech_soak, _ech_narrate, _ech_document, _ech_sources = package_entries("simulator.echidna")
_ech_variants = Lazy("simulator.echidna.board", "variants_from_dict")
_ech_strategies = Lazy("simulator.echidna.strategies", "EchidnaStrategyLibrary")
_ech_draw = Lazy("simulator.echidna.drawing", "draw_board")


def _ech_describe(b):
    arrows = sum(len(a) for a in b.arrows)
    branches = sum(1 for a in b.arrows if len(a) > 1)
    recon = "reconstructed" if b.reconstructed else "printed"
    return f"{b.nspaces} spaces, {arrows} arrows, {branches} with two ways out, {recon}: {b.description}"


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


# The lead record's standing (simulator.lead_record): bugs home x LEAD_HOME_WEIGHT - the steps still to go.
LEAD_HOME_WEIGHT = 1000


def _ech_lead_features(standing):
    """A (rounds, seats) standing matrix as its two parts: bugs home, and the steps still to go (in tens, negated)."""
    import numpy as np

    home = np.ceil(standing / LEAD_HOME_WEIGHT)
    togo = home * LEAD_HOME_WEIGHT - standing
    return [home, -togo / 10.0]


def _ech_columns():
    from simulator.echidna.layout import GAME_COLUMNS, SEAT_COLUMNS

    return SEAT_COLUMNS, GAME_COLUMNS


_ECH_SEAT, _ECH_GAME = _ech_columns()

GAME = Game(
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
    describe_board=_ech_describe,
    aliases=("echidna-shuffle",),
    play_batch_lead=Lazy("simulator.echidna.lead_record", "batch_results_lead"),  # the per-round lead record
    kernel_entry="simulator.echidna.kernel.engine:play_batch",
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
    gate_scenario="echidna-ci",
    report_notes=("A game stops at the first win (E6, E10), so there are no ties.",),
    # The report's words for the switches a variant turns on (the answer says what a variant does).
    report=ReportSpec(
        switch_words=(
            ("catch_up", True, "the catch-up tokens"),
            ("pickup_order", "random", "drawing the set-up order"),
            ("pickup_order", "turn", "the set-up in turn order"),
            ("pickup_order", "reverse", "the set-up in reverse turn order"),
            ("roll_every_turn", True, "rolling every turn"),
            ("home_stretch", True, "the home stretch"),
        ),
    ),
    # The skill ladder on one board: the matrix at 2 and 4 players, saboteur and lookahead-near
    # placed where they fall, one seat against three greedy and three lookahead; a stalled game
    # (no winner, E9) counts half to each side.
    ladder=LadderSpec(
        default_rungs=Lazy("simulator.echidna.strategies", "default_rungs"),
        parse_rung=Lazy("simulator.echidna.strategies", "parse_rung"),
        winners=Lazy("simulator.echidna.playout", "ladder_winners"),
        players=(2, 4),
        placed=("saboteur", "lookahead-near"),
        against=("lookahead",),
        note="a game stopped by the stall cap counts half to each side",
        meta_pool=("random", "plain-setup", "greedy", "saboteur", "lookahead"),
        skill_pair=("lookahead", "greedy"),
        # The answers' judges, weakest first: the lookahead is a step above greedy, so the convergence
        # call compares those two. The set-up searches (setup-lean, the ladder's top rung, and
        # setup-search) are not ranked: a step above the lookahead on the forest board, not shown
        # above it on the snow board at 2 players (docs/guide/skill-ladder.md).
        judges=("random", "plain-setup", "greedy", "lookahead"),
        words=(("random", "random players"), ("plain-setup", "players who set up at random"),
               ("greedy", "greedy's level"), ("lookahead", "players who look ahead")),
    ),
    # The win-chance estimate weighs bugs home and the steps still to go apart (reports.feel.winchance).
    lead_features=_ech_lead_features,
)
