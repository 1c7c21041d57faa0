"""The rulebook's worked examples, each replayed on a small hand-built instrument.

Every test builds only the spaces, dice and discs its example needs (``support.make_geo``) and drives
the rule primitives step by step with the choices the example describes, then checks the outcome the
rulebook states. Seats: Angelo 0, Kris 1, Lucia 2, Dane 3 (a four-player table).
"""

import numpy as np
from support import (
    big_log,
    candidates,
    die_of,
    put_in_room,
    put_on_wheel,
    ready,
    set_ready,
    events,
    make_geo,
    make_state,
    place,
    scores,
    set_brag,
    source_points,
)

from simulator.shuffle_swing.kernel import engine, policy, routes, rules
from simulator.shuffle_swing.kernel.core import brag_step, track_beats
from simulator.shuffle_swing.kernel.objectives import rank_owners
from simulator.shuffle_swing.layout import (
    BLACK,
    BRAG_PICKUP,
    CHEESE,
    CONSTRUCT,
    EV_FORFEIT,
    EV_INSPECT_STEP,
    EV_RECRUIT,
    EV_SELECT,
    EV_TICK,
    EXPERT_START,
    EXPERT_TOP,
    FACE_PIPS,
    GRAY,
    I_COLOUR,
    I_COST,
    INSPECT,
    LADDER,
    MAX_SPACES,
    MILK,
    N_OWNERS,
    N_QUILT,
    N_SLICES,
    NOVICE_START,
    ORANGE,
    P_WEIGHTS,
    REFRESH,
    S_BRAG_POS,
    S_BRAG_STAMP,
    S_BUILD_LEFT,
    S_CUR,
    S_DIE_FACE,
    S_DIE_POS,
    S_DIE_WHERE,
    S_INNER,
    S_INSPECTOR,
    S_OUTER,
    S_PAWN,
    S_PIECES,
    S_QUILT,
    S_ROOM_DIE,
    S_SLICE_ACTION,
    S_SLICE_DIE,
    S_TIEBREAK,
    S_TIED,
    S_TOKENS,
    S_UPG_LEFT,
    S_WINNER,
    SRC_BRAG,
    SRC_INSPECTOR,
    SRC_PENALTY,
    W_SUPPLY,
    WEIGHT_NAMES,
)
from simulator.shuffle_swing.strategies import StrategyLibrary

ANGELO, KRIS, LUCIA, DANE = 0, 1, 2, 3


# --------------------------------------------------------------------------- helpers


def quilt(st, p):
    return [int(st[S_QUILT + p * N_QUILT + q]) for q in range(N_QUILT)]


def tokens(st, p, kind):
    return int(st[S_TOKENS + p * 3 + kind])


def cell(st, d, space, outer=False):
    return int(st[(S_OUTER if outer else S_INNER) + d * MAX_SPACES + space])


def strat_row(**weights):
    """The greedy profile's row with some weights replaced."""
    row = StrategyLibrary().get("greedy").row()
    for name, value in weights.items():
        row[P_WEIGHTS + WEIGHT_NAMES.index(name)] = value
    return row


def free_quilt_space(st, p):
    for q in range(N_QUILT):
        if st[S_QUILT + p * N_QUILT + q] < 0:
            return q
    return -1


def exhaust(st, log, p, colour, n):
    for _ in range(n):
        rules.exhaust_cat(st, log, p, colour, free_quilt_space(st, p))


# --------------------------------------------------------------------------- Kris's turn


def kris_table():
    """Orange wheel Construct, Construct, Refresh, Inspect (clockwise): Angelo's die on "2" on the
    Inspect slice, Kris's "4*" die on the Construct slice right after it; Kris's pawn in black."""
    geo = make_geo(
        spaces=[(1, "black", []), (2, "gray", []), (1, "gray", [])],
        lines=[(0, 1), (1, 2)],
        dept=ORANGE,
    )
    st = make_state(4, geo)
    assert [int(st[S_SLICE_ACTION + ORANGE * N_SLICES + s]) for s in range(4)] == [
        CONSTRUCT,
        CONSTRUCT,
        REFRESH,
        INSPECT,
    ]
    put_on_wheel(st, die_of(ANGELO), ORANGE, 3, NOVICE_START + 1)  # "2" on Inspect
    put_on_wheel(st, die_of(KRIS), ORANGE, 0, EXPERT_TOP)  # Kris's "4*" on a Construct slice
    place(st, ORANGE, 1, KRIS)
    st[S_PAWN + KRIS] = 0  # in the black department before the turn
    return geo, st


def test_kris_turn_uses_angelos_die_and_the_die_skips_a_busy_slice():
    """Kris's turn from the dice-and-break-rooms section (R1, R3, R5).

    The orange wheel reads Construct, Construct, Refresh, Inspect clockwise. Angelo's die shows 2 on
    the Inspect slice, Kris's own 4* die stands on the Construct slice right after it; the other
    Construct and the Refresh slices are open. Kris goes to the first (leftmost) orange spot, uses
    Angelo's die to inspect, Angelo recruits an orange cat, and the die ticks 2 -> 3 while moving past
    Kris's die to the next open slice.
    """
    geo, st = kris_table()
    angelo_die, kris_die = die_of(ANGELO), die_of(KRIS)

    # The choices at the leftmost orange spot: Angelo's die, his own 4* die, or a novice die from
    # his supply on one of the two open slices (the wheel holds only two dice).
    at_spot = sorted((die, s) for spot, die, s in candidates(st, KRIS) if spot == 3)
    novice = die_of(KRIS, 1)
    assert at_spot == sorted([(angelo_die, 3), (kris_die, 0), (novice, 1), (novice, 2)])

    log = big_log()
    cats_before = ready(st, ANGELO)
    # 1. Pawn: no break room holds a die of Kris, so nothing is picked up.
    room = rules.move_pawn(st, log, KRIS, 3)
    assert room == 0 and rules.own_die_in_room(st, KRIS, room) == -1
    assert st[S_PAWN + KRIS] == 3
    # 2. Angelo's die is used where it stands; its owner recruits an orange cat.
    s = rules.select_die(st, log, KRIS, ORANGE, angelo_die, 3)
    assert s == 3 and st[S_SLICE_ACTION + ORANGE * N_SLICES + s] == INSPECT
    rules.recruit(st, log, rules.die_owner(angelo_die), ORANGE)
    after = ready(st, ANGELO)
    assert after[ORANGE] == cats_before[ORANGE] + 1
    assert after[BLACK] == cats_before[BLACK] and after[GRAY] == cats_before[GRAY]
    assert ready(st, KRIS) == [1, 1, 1]  # Kris recruits nothing with another player's die
    # 3. Inspect with 2 pips: first move puts the inspector anywhere, then one line.
    pips = FACE_PIPS[st[S_DIE_FACE + angelo_die]]
    assert pips == 2
    rules.inspector_enter(st, geo, log, KRIS, ORANGE, 1, 0)
    rules.inspector_enter(st, geo, log, KRIS, ORANGE, 2, 0)
    assert scores(st)[KRIS] == 2
    # 4. Tick up: the next slice clockwise (Construct 0) holds Kris's die, so it goes on to slice 1.
    assert rules.tick_up(st, log, angelo_die, ORANGE) == -1
    assert st[S_DIE_FACE + angelo_die] == NOVICE_START + 2  # "3"
    assert st[S_DIE_POS + angelo_die] == ORANGE * N_SLICES + 1
    assert st[S_SLICE_DIE + ORANGE * N_SLICES + 1] == angelo_die
    assert st[S_SLICE_DIE + ORANGE * N_SLICES + 3] == -1
    assert st[S_SLICE_DIE + ORANGE * N_SLICES + 0] == kris_die
    codes = [e[2] for e in events(log) if e[2] in (EV_SELECT, EV_RECRUIT, EV_INSPECT_STEP, EV_TICK)]
    assert codes == [EV_SELECT, EV_RECRUIT, EV_INSPECT_STEP, EV_INSPECT_STEP, EV_TICK]


def test_kris_turn_through_the_engine():
    """The same turn played by the engine's turn driver with Kris's choice of spot and die fixed
    (R1, R3, R5, R8): the inspect takes two steps, Angelo recruits, the die lands on slice 1 on "3"."""
    geo, st = kris_table()
    angelo_die = die_of(ANGELO)
    strat = np.zeros((N_OWNERS, len(strat_row())))
    for o in range(4):
        strat[o] = strat_row()
    st[S_CUR] = KRIS
    log = big_log()
    engine.execute_turn(st, geo, strat, np.array([11], np.uint64), log, KRIS, 3, angelo_die, 3, 0)
    assert st[S_PAWN + KRIS] == 3
    assert [e[3:5] for e in events(log, EV_RECRUIT)] == [[ANGELO, ORANGE]]
    assert sum(1 for e in events(log, EV_INSPECT_STEP) if e[6] == 0) == 2
    assert st[S_DIE_POS + angelo_die] == ORANGE * N_SLICES + 1
    assert st[S_DIE_FACE + angelo_die] == NOVICE_START + 2
    assert st[S_CUR] == KRIS + 1


# --------------------------------------------------------------------------- Dane's construct


def vibes_for_dane():
    """Vibes (orange department, built with black and gray cats): gray 3 (empty), black 2 (Dane's
    piece, inspector on it), black 3 (Angelo's piece), gray 2 (empty, where Dane would like to build)."""
    geo = make_geo(
        spaces=[(3, "gray", []), (2, "black", []), (3, "black", []), (2, "gray", [])],
        lines=[(0, 1), (1, 2), (2, 3)],
        dept=ORANGE,
    )
    st = make_state(4, geo)
    place(st, ORANGE, 1, DANE)
    place(st, ORANGE, 2, ANGELO)
    st[S_INSPECTOR + ORANGE] = 1
    set_ready(st, DANE, black=2, orange=1, gray=3)
    st[S_TOKENS + DANE * 3 + LADDER] = 2
    return geo, st


def test_dane_construct_at_the_vibes_with_two_ladders():
    """Dane's 4* construct at the Vibes (R6): build gray 3 for three gray cats; upgrade his black 2
    under the inspector for one black cat and score 2; a ladder lets him upgrade Angelo's black 3,
    paid with his last black cat plus an orange cat turned black by a second ladder; the fourth pip
    is forfeited."""
    geo, st = vibes_for_dane()
    log = big_log()
    d = ORANGE
    assert FACE_PIPS[EXPERT_TOP] == 4

    # Pip 1: build on the gray 3 space.
    assert rules.placement_legal(st, geo, DANE, d, 0, 0) == 1
    assert rules.can_pay(st, DANE, GRAY, 3, 0)
    exhaust(st, log, DANE, GRAY, 3)
    rules.place_piece(st, geo, log, DANE, d, 0, 0)
    assert scores(st)[DANE] == 0

    # Pip 2: upgrade his own black 2 space: cost one less, and the inspector stands there.
    assert rules.placement_legal(st, geo, DANE, d, 1, 1) == 1
    assert rules.can_pay(st, DANE, BLACK, 2 - 1, 0)
    exhaust(st, log, DANE, BLACK, 1)
    rules.place_piece(st, geo, log, DANE, d, 1, 1)
    assert scores(st)[DANE] == 2
    assert source_points(st, DANE, SRC_INSPECTOR) == 2

    # Pip 3: Angelo's black 3 needs a ladder to be upgraded by Dane, and costs 3 - 1 = 2 black cats.
    assert rules.placement_legal(st, geo, DANE, d, 2, 1) == 2
    rules.spend_token(st, DANE, LADDER, 1)
    assert ready(st, DANE) == [1, 1, 0]
    assert not rules.can_pay(st, DANE, BLACK, 2, 0)  # one black cat is not enough on its own
    assert rules.can_pay(st, DANE, BLACK, 2, 1)  # the second ladder turns the orange cat
    rules.spend_token(st, DANE, LADDER, 1)
    rules.exhaust_cat(st, log, DANE, BLACK, free_quilt_space(st, DANE))
    rules.exhaust_cat(st, log, DANE, ORANGE, free_quilt_space(st, DANE))
    rules.place_piece(st, geo, log, DANE, d, 2, 1)

    # Pip 4: nothing is affordable any more; the policy forfeits it too.
    for space in range(4):
        for outer in (0, 1):
            legal = rules.placement_legal(st, geo, DANE, d, space, outer)
            if legal:
                cost = geo[rules.inst_base(d) + I_COST + space] - outer
                colour = geo[rules.inst_base(d) + I_COLOUR + space]
                assert cost > 0 and not rules.can_pay(st, DANE, colour, cost, 0)
    for row in (strat_row(), StrategyLibrary().get("random").row()):
        trial = st.copy()
        strat = np.zeros((N_OWNERS, len(row)))
        strat[DANE] = row
        tlog = big_log()
        engine.do_construct(trial, geo, strat, np.array([7], np.uint64), tlog, DANE, d, 1)
        assert [e[3:5] for e in events(tlog, EV_FORFEIT)] == [[DANE, 1]]
        assert np.array_equal(
            trial[S_INNER : S_OUTER + 3 * MAX_SPACES], st[S_INNER : S_OUTER + 3 * MAX_SPACES]
        )

    # Outcome.
    assert scores(st) == [0, 0, 0, 2]
    assert tokens(st, DANE, LADDER) == 0
    assert ready(st, DANE) == [0, 0, 0]
    assert sorted(c for c in quilt(st, DANE) if c >= 0) == sorted([GRAY] * 3 + [BLACK] * 2 + [ORANGE])
    assert (cell(st, d, 0), cell(st, d, 0, True)) == (DANE, -1)
    assert (cell(st, d, 1), cell(st, d, 1, True)) == (DANE, DANE)
    assert (cell(st, d, 2), cell(st, d, 2, True)) == (ANGELO, DANE)
    assert (cell(st, d, 3), cell(st, d, 3, True)) == (-1, -1)
    assert st[S_PIECES + d * N_OWNERS + DANE] == 4  # his earlier inner piece plus three
    assert st[S_PIECES + d * N_OWNERS + ANGELO] == 1
    assert st[S_BUILD_LEFT + DANE] == 25 - 2 and st[S_UPG_LEFT + DANE] == 6 - 2


# --------------------------------------------------------------------------- Lucia's refresh


def lucia_quilt():
    """Row 3 (spaces q3 q4 q5 = columns 1..3) holds gray, orange, black; column 3 (q5 row 3, q8
    row 4) holds two black cats; a black cat in row 1 is in neither line."""
    st = make_state(4)
    for q, c in ((3, GRAY), (4, ORANGE), (5, BLACK), (8, BLACK), (0, BLACK)):
        st[S_QUILT + LUCIA * N_QUILT + q] = c
    set_ready(st, LUCIA)
    return st


def test_lucia_refresh_three_column_gives_back_two_black_cats():
    """Lucia's refresh with 3 pips, column chosen (R7)."""
    st = lucia_quilt()
    assert rules.refresh_count(st, LUCIA, 3, 1) == 3  # the row would give three
    n = rules.refresh_lines(st, big_log(), LUCIA, 3, 2)
    assert n == 2
    assert ready(st, LUCIA) == [2, 0, 0]
    assert quilt(st, LUCIA) == [BLACK, -1, -1, GRAY, ORANGE, -1, -1, -1, -1, -1]


def test_lucia_refresh_with_milk_gives_back_four_cats():
    """With a milk she refreshes row and column 3 together: the shared black cat counts once (R7)."""
    st = lucia_quilt()
    n = rules.refresh_lines(st, big_log(), LUCIA, 3, 3)
    assert n == 4
    assert ready(st, LUCIA) == [2, 1, 1]
    assert quilt(st, LUCIA) == [BLACK] + [-1] * 9


def test_lucia_refresh_through_the_engine_spends_the_milk():
    """The engine's refresh: a player valuing refreshed cats above a milk uses it (R4, R7)."""
    st = lucia_quilt()
    st[S_TOKENS + LUCIA * 3 + MILK] = 1
    strat = np.zeros((N_OWNERS, len(strat_row())))
    strat[LUCIA] = strat_row(refresh_cat=1.0, token_spent=0.5)
    rng = np.array([3], np.uint64)
    engine.do_refresh(st, strat, rng, big_log(), LUCIA, 3)
    assert tokens(st, LUCIA, MILK) == 0
    assert ready(st, LUCIA) == [2, 1, 1]


# --------------------------------------------------------------------------- Angelo's inspect


def bass_for_angelo():
    """Upright Bass (black department, orange and gray cats). Spaces:
    0 gray 3, empty, where the inspector stands; 1 orange 1 with Lucia's two pieces;
    2 orange 1 with Angelo's and Kris's pieces; 3 orange 2 with two pieces of Angelo;
    4 gray 2 with a piece of Lucia (an alternative route)."""
    geo = make_geo(
        spaces=[(3, "gray", []), (1, "orange", []), (1, "orange", []), (2, "orange", []), (2, "gray", [])],
        lines=[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)],
        dept=BLACK,
    )
    st = make_state(4, geo)
    place(st, BLACK, 1, LUCIA)
    place(st, BLACK, 1, LUCIA, outer=True)
    place(st, BLACK, 2, ANGELO)
    place(st, BLACK, 2, KRIS, outer=True)
    place(st, BLACK, 3, ANGELO)
    place(st, BLACK, 3, ANGELO, outer=True)
    place(st, BLACK, 4, LUCIA)
    st[S_INSPECTOR + BLACK] = 0
    st[S_TOKENS + ANGELO * 3 + CHEESE] = 1
    return geo, st


def test_angelo_inspect_two_with_a_cheese_at_the_bass():
    """Angelo's inspect 2 at the Bass (R8): a cheese jumps Lucia's space without scoring it or
    spending a step; then the orange 1 (his piece and Kris's) and the orange 2 (two of his):
    Angelo 5, Kris 1, Lucia 0, one cheese spent."""
    geo, st = bass_for_angelo()
    log = big_log()
    rules.spend_token(st, ANGELO, CHEESE, 1)
    rules.inspector_enter(st, geo, log, ANGELO, BLACK, 1, 1)  # jumped: no score, no step
    rules.inspector_enter(st, geo, log, ANGELO, BLACK, 2, 0)  # step 1
    rules.inspector_enter(st, geo, log, ANGELO, BLACK, 3, 0)  # step 2
    assert scores(st) == [5, 1, 0, 0]
    assert tokens(st, ANGELO, CHEESE) == 0
    assert st[S_INSPECTOR + BLACK] == 3
    steps = [(e[5], e[6]) for e in events(log, EV_INSPECT_STEP)]
    assert steps == [(1, 1), (2, 0), (3, 0)]
    assert sum(1 for _, j in steps if not j) == 2  # the pips


def test_angelo_inspect_search_finds_a_route_at_least_as_good():
    """The greedy route search, given the one cheese, does at least as well for Angelo as the
    rulebook's route (R8)."""
    geo, st = bass_for_angelo()
    sp = strat_row()
    w_pts = (
        sp[P_WEIGHTS + WEIGHT_NAMES.index("points")] + sp[P_WEIGHTS + WEIGHT_NAMES.index("inspector_action")]
    )
    w_opp = sp[P_WEIGHTS + WEIGHT_NAMES.index("opponent_points")]
    w_tok = sp[P_WEIGHTS + WEIGHT_NAMES.index("token_spent")]
    example_value = w_pts * 5 - w_opp * 1 - w_tok * 1

    path = np.empty(16, np.int64)
    jumps = np.empty(16, np.int64)
    value, n = routes.search_inspect(st, geo, sp, ANGELO, BLACK, 2, 1, path, jumps, np.ones(1, np.uint64))
    assert value >= example_value - 1e-9
    route = [(int(path[t]), int(jumps[t])) for t in range(n)]
    assert sum(j for _, j in route) <= 1
    assert sum(1 for _, j in route if not j) == 2

    # Playing the route out gives exactly the value the search claims.
    before = scores(st)
    for space, j in route:
        rules.inspector_enter(st, geo, big_log(), ANGELO, BLACK, space, j)
    after = scores(st)
    gained = [a - b for a, b in zip(after, before)]
    used = sum(j for _, j in route)
    assert abs(w_pts * gained[ANGELO] - w_opp * sum(gained[1:]) - w_tok * used - value) < 1e-9
    assert gained[ANGELO] >= 5


# --------------------------------------------------------------------------- Angelo's brag


def test_angelo_brags_at_horns_and_vibes_after_a_pickup():
    """Angelo passes the break room holding his die, picks it up as an expert and brags twice
    (R2, R9): the Horns disc enters a token space and takes a cheese (the gray track's token); the
    Vibes disc joins two discs on a space and goes on top, so it loses ties to both."""
    geo = make_geo()
    st = make_state(4, geo)
    log = big_log()
    die = die_of(ANGELO, 2)
    put_in_room(st, die, 2, NOVICE_START + 2)  # room between gray and black, a used "3"
    st[S_PAWN + ANGELO] = 6  # gray department
    set_brag(st, GRAY, ANGELO, 1)
    set_brag(st, ORANGE, KRIS, 3)
    set_brag(st, ORANGE, LUCIA, 3)
    set_brag(st, ORANGE, ANGELO, 2)

    room = rules.move_pawn(st, log, ANGELO, 0)  # gray -> black passes room 2
    assert room == 2 and rules.own_die_in_room(st, ANGELO, room) == die
    rules.pickup(st, log, ANGELO, room)
    assert st[S_DIE_WHERE + die] == W_SUPPLY and st[S_DIE_FACE + die] == EXPERT_START
    assert st[S_ROOM_DIE + 2] == -1

    assert brag_step(st, geo, log, ANGELO, GRAY, BRAG_PICKUP) == CHEESE
    assert st[S_BRAG_POS + GRAY * N_OWNERS + ANGELO] == 2
    assert [tokens(st, ANGELO, k) for k in (LADDER, MILK, CHEESE)] == [0, 0, 1]

    assert brag_step(st, geo, log, ANGELO, ORANGE, BRAG_PICKUP) == -1  # space 3 has no token
    assert st[S_BRAG_POS + ORANGE * N_OWNERS + ANGELO] == 3
    stamp = lambda o: int(st[S_BRAG_STAMP + ORANGE * N_OWNERS + o])
    assert stamp(ANGELO) > stamp(KRIS) and stamp(ANGELO) > stamp(LUCIA)
    assert track_beats(st, ORANGE, KRIS, ANGELO) and track_beats(st, ORANGE, LUCIA, ANGELO)
    assert not track_beats(st, ORANGE, ANGELO, KRIS)
    # An objective tie on the Vibes between the three is ranked beneath-first, Angelo last.
    order = np.zeros(N_OWNERS, np.int64)
    n = rank_owners(st, ORANGE, np.array([1, 1, 1, 0, 0], np.int64), order)
    assert n == 3 and order[2] == ANGELO


# --------------------------------------------------------------------------- end-game scoring


def test_end_game_scoring_example():
    """The end-game scoring example (R12, R13). The Bass and the Vibes are built, the Horns has
    two unbuilt spaces: Lucia and Dane share last place on its track and lose 4 // 2 = 2 each.
    On the Bass: Angelo 13 pieces, disc at the top -> 20; Dane 8 pieces, disc higher than they
    back -> 15; Lucia 1 piece -> 2; Kris 2 pieces but his disc on space 1 -> 2."""
    bass = [(1, "orange", []) for _ in range(16)]
    geo = make_geo(
        spaces=bass,
        dept=BLACK,
        others={
            ORANGE: {"spaces": [(1, "black", []), (1, "gray", [])]},
            GRAY: {"spaces": [(1, "black", []) for _ in range(4)]},
        },
    )
    st = make_state(4, geo)
    for s in range(7):
        place(st, BLACK, s, ANGELO)
    for s in range(6):
        place(st, BLACK, s, ANGELO, outer=True)
    for s in range(7, 13):
        place(st, BLACK, s, DANE)
    place(st, BLACK, 7, DANE, outer=True)
    place(st, BLACK, 8, DANE, outer=True)
    place(st, BLACK, 13, LUCIA)
    place(st, BLACK, 14, KRIS)
    place(st, BLACK, 15, KRIS)
    assert [int(st[S_PIECES + BLACK * N_OWNERS + o]) for o in range(4)] == [13, 2, 1, 8]
    set_brag(st, BLACK, ANGELO, 7)
    set_brag(st, BLACK, DANE, 6)
    set_brag(st, BLACK, LUCIA, 3)
    set_brag(st, BLACK, KRIS, 1)
    # The Vibes: built, nobody bragged there, so it pays nothing.
    place(st, ORANGE, 0, KRIS)
    place(st, ORANGE, 1, DANE)
    # The Horns: two of four spaces built; Lucia and Dane on the bottom space.
    place(st, GRAY, 0, ANGELO)
    place(st, GRAY, 1, KRIS)
    set_brag(st, GRAY, ANGELO, 2)
    set_brag(st, GRAY, KRIS, 1)
    set_brag(st, GRAY, DANE, 0, stamp=1)  # the stack order plays no part in last place
    set_brag(st, GRAY, LUCIA, 0)

    log = big_log()
    rules.final_scoring(st, geo, log)
    assert [source_points(st, o, SRC_BRAG + BLACK) for o in range(4)] == [20, 2, 2, 15]
    assert [source_points(st, o, SRC_BRAG + ORANGE) for o in range(4)] == [0, 0, 0, 0]
    assert [source_points(st, o, SRC_PENALTY + GRAY) for o in range(4)] == [0, 0, -2, -2]
    assert scores(st) == [20, 2, 0, 13]
    assert st[S_WINNER] == ANGELO and st[S_TIED] == 1 and st[S_TIEBREAK] == 0
