"""The rulings of DECISIONS.md (R1-R15), each checked where it applies, on hand-built states.

Turns are driven through the engine's own pieces (``enumerate_turns``, ``execute_turn``, ``play_turn``,
``end_turn``) or through the rule primitives of ``rules.py`` when the ruling concerns one step.
"""

import itertools

import numpy as np
import pytest
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

from simulator.shuffle_swing.kernel import engine, rules
from simulator.shuffle_swing.kernel.core import add_points, brag_step, track_beats
from simulator.shuffle_swing.kernel.objectives import rank_owners
from simulator.shuffle_swing.layout import (
    AUTOMA,
    BLACK,
    BRAG_ACTION,
    BRAG_BUMP,
    BRAG_PICKUP,
    CHEESE,
    CONSTRUCT,
    DICE_PER_OWNER,
    EV_ACTION_BRAG,
    EV_BRAG,
    EV_BUILD,
    EV_BUMP,
    EV_EXHAUST,
    EV_FORFEIT,
    EV_INSPECT_STEP,
    EV_MOVE,
    EV_PASS,
    EV_PICKUP,
    EV_PRI_PIECE,
    EV_RECRUIT,
    EV_REFRESH,
    EV_SCORE,
    EV_SELECT,
    EXPERT_START,
    EXPERT_TOP,
    G_INST,
    GRAY,
    I_NEUTRAL,
    I_NSPACES,
    INST_SIZE,
    LADDER,
    MAX_SPACES,
    MILK,
    N_DEPT,
    N_OWNERS,
    N_QUILT,
    N_SLICES,
    N_SPOTS,
    N_STAT,
    N_TRACK,
    NOVICE_START,
    NOVICE_TOP,
    ORANGE,
    QUILT_COL,
    QUILT_ROW,
    S_BRAG_POS,
    S_BRAG_STAMP,
    S_BUILD_LEFT,
    S_CUR,
    S_DIE_FACE,
    S_DIE_POS,
    S_DIE_WHERE,
    S_EMPTY,
    S_ENDING,
    S_INNER,
    S_INSPECTOR,
    S_MAX_ROUNDS,
    S_OUTER,
    S_OVER,
    S_PASSED,
    S_PAWN,
    S_PIECES,
    S_QUILT,
    S_ROOM_DIE,
    S_ROUND,
    S_SCORE,
    S_SEC_STATE,
    S_SLICE_ACTION,
    S_SLICE_DIE,
    S_STALLED,
    S_STAT,
    S_TIEBREAK,
    S_TIED,
    S_TOKENS,
    S_TURN,
    S_UPG_LEFT,
    S_WINNER,
    SRC_BRAG,
    SRC_INSPECTOR,
    SRC_OBJECTIVE,
    SRC_PENALTY,
    ST_ACTION_BRAGS,
    ST_BUMPED,
    ST_BUMPS_MADE,
    ST_CATS_LOST,
    ST_PASSES,
    ST_PICKUPS,
    ST_TURNS,
    ST_UPGRADES,
    W_ROOM,
    W_SUPPLY,
    W_WHEEL,
)
from simulator.shuffle_swing.playout import GameSetup, play_one
from simulator.shuffle_swing.strategies import StrategyLibrary

PRI = NEUTRAL = AUTOMA
ROOM_BETWEEN = {(BLACK, ORANGE): 0, (ORANGE, GRAY): 1, (GRAY, BLACK): 2}


# --------------------------------------------------------------------------- helpers


def wheel(st, d):
    return [int(st[S_SLICE_DIE + d * N_SLICES + s]) for s in range(N_SLICES)]


def stat(st, p, k):
    return int(st[S_STAT + p * N_STAT + k])


def brag_sum(st, p):
    return sum(int(st[S_BRAG_POS + d * N_OWNERS + p]) for d in range(N_DEPT))


def strats(*names):
    """A strategy matrix with one row per owner (``N_OWNERS``), seats filled from ``names``."""
    rows = StrategyLibrary().matrix(list(names))
    full = np.zeros((N_OWNERS, rows.shape[1]))
    full[: len(names)] = rows
    return full


def rng(seed=1):
    return np.array([seed], np.uint64)


def execute(st, geo, p, spot, die, slice_idx, brag_instead=0, strat=None, seed=1, log=None):
    """Play seat ``p``'s turn with a fixed spot, die, slice and action-or-brag."""
    st[S_CUR] = p
    log = big_log() if log is None else log
    strat = strats(*(["greedy"] * int(st[0]))) if strat is None else strat
    engine.execute_turn(st, geo, strat, rng(seed), log, p, spot, die, slice_idx, brag_instead)
    return log


def unbuilt_geo(**kw):
    """Three small instruments, none built (so ``end_turn`` does not trigger the game end)."""
    kw.setdefault("spaces", [(1, "orange", []), (2, "gray", []), (1, "gray", [])])
    kw.setdefault("lines", [(0, 1), (1, 2)])
    dept = kw.pop("dept", BLACK)
    others = {
        d: {"spaces": [(1, "black", []), (2, "black", [])], "lines": [(0, 1)]}
        for d in range(N_DEPT)
        if d != dept
    }
    others.update(kw.pop("others", {}))
    return make_geo(dept=dept, others=others, **kw)


# =========================================================================== R1 pawn


def test_r1_pawn_must_change_spot_and_avoid_occupied_spots():
    """R1: the pawn ends on a different spot, never on one held by another pawn."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    st[S_PAWN + 0] = 3
    st[S_PAWN + 1] = 4
    spots = {c[0] for c in candidates(st, 0)}
    assert spots == set(range(N_SPOTS)) - {3, 4}


@pytest.mark.parametrize("src", range(-1, N_SPOTS))
def test_r1_break_room_passed(src):
    """R1: exactly the room between two departments, none within one, none on a first placement."""
    for dst in range(N_SPOTS):
        if dst == src:
            continue
        st = make_state(4)
        st[S_PAWN + 0] = src
        room = rules.move_pawn(st, big_log(), 0, dst)
        a, b = src // 3, dst // 3
        if src < 0 or a == b:
            assert room == -1
        else:
            assert room == ROOM_BETWEEN.get((a, b), ROOM_BETWEEN.get((b, a)))
        assert st[S_PAWN + 0] == dst


@pytest.mark.parametrize("nplayers", [2, 3, 4])
def test_r1_middle_spots_open_only_with_four_players(nplayers):
    """R1/R14/R15: the middle ("4") spot of each department is closed with two or three players."""
    setup = GameSetup(nplayers=nplayers)
    names = ["greedy"] * nplayers
    for seed in range(3):
        st = engine.setup_game(setup.geo, nplayers, strats(*names), rng(seed), big_log())
        spots = {c[0] for c in candidates(st, 0)}
        middles = {1, 4, 7}
        if nplayers == 4:
            assert middles <= spots
        else:
            assert not (spots & middles)
            assert spots  # something is offered


# =========================================================================== R2 pickup


def pickup_state():
    """Seat 0 in the black department, its die waiting in room 0 (black|orange); seat 1's die on
    the orange wheel; nothing else on the wheels."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    st[S_PAWN + 0] = 0
    put_in_room(st, die_of(0, 2), 0, NOVICE_TOP)
    put_on_wheel(st, die_of(1), ORANGE, 0, NOVICE_START)
    return geo, st


def test_r2_pickup_is_mandatory_and_its_two_brags_come_before_the_die():
    """R2: passing the room with one's own die picks it up on 2* and gives two brags, resolved
    before the die selection (even when the turn then uses another die)."""
    geo, st = pickup_state()
    before = brag_sum(st, 0)
    log = execute(st, geo, 0, 3, die_of(1), 0, brag_instead=1)
    die = die_of(0, 2)
    assert st[S_ROOM_DIE + 0] == -1
    assert st[S_DIE_WHERE + die] == W_SUPPLY and st[S_DIE_FACE + die] == EXPERT_START
    assert stat(st, 0, ST_PICKUPS) == 1
    codes = [e[2] for e in events(log) if e[2] in (EV_MOVE, EV_PICKUP, EV_BRAG, EV_SELECT)]
    assert codes == [EV_MOVE, EV_PICKUP, EV_BRAG, EV_BRAG, EV_SELECT, EV_BRAG]
    origins = [e[7] for e in events(log, EV_BRAG)]
    assert origins == [BRAG_PICKUP, BRAG_PICKUP, BRAG_ACTION]
    assert brag_sum(st, 0) == before + 3


def test_r2_no_pickup_within_a_department_or_through_another_room():
    """R2 with R1: moving within black, or to gray (room 2), leaves the die in room 0."""
    for spot in (1, 2, 6):
        geo, st = pickup_state()
        put_on_wheel(st, die_of(2), spot // 3, 1, NOVICE_START)
        execute(st, geo, 0, spot, die_of(2), 1, brag_instead=1)
        assert st[S_ROOM_DIE + 0] == die_of(0, 2)
        assert stat(st, 0, ST_PICKUPS) == 0


def test_r2_picked_up_die_can_be_selected_at_the_destination():
    """R2/R3: the die picked up on the way is offered on the open slices of the destination wheel
    (and only there), enters on 2* and can be used in the same turn."""
    geo, st = pickup_state()
    die = die_of(0, 2)
    # Seat 0's other dice are busy, so the only supply die it can add is the one in the room.
    put_on_wheel(st, die_of(0, 0), GRAY, 0, NOVICE_START)
    put_on_wheel(st, die_of(0, 1), GRAY, 1, NOVICE_START)
    cands = candidates(st, 0)
    with_room_die = {(sp, s) for sp, dd, s in cands if dd == die}
    assert with_room_die == {(sp, s) for sp in (3, 4, 5) for s in (1, 2, 3)}
    log = execute(st, geo, 0, 3, die, 2, brag_instead=1)
    sel = events(log, EV_SELECT)
    assert len(sel) == 1 and sel[0][4] == die and sel[0][7] == 16 + EXPERT_START  # from supply, 2*
    # used on 2*, it ticks to 3* on the next open slice
    assert st[S_DIE_WHERE + die] == W_WHEEL and st[S_DIE_FACE + die] == EXPERT_START + 1
    assert st[S_DIE_POS + die] == ORANGE * N_SLICES + 3


def test_r2_room_die_not_offered_when_the_destination_wheel_is_full():
    """R2/R3: with three dice on the orange wheel the picked-up die cannot be added there."""
    _geo, st = pickup_state()
    put_on_wheel(st, die_of(2), ORANGE, 1, NOVICE_START)
    put_on_wheel(st, die_of(3), ORANGE, 2, NOVICE_START)
    orange = {(dd, s) for sp, dd, s in candidates(st, 0) if sp == 3}
    assert orange == {(die_of(1), 0), (die_of(2), 1), (die_of(3), 2)}


# =========================================================================== R3 die selection


def test_r3_any_owners_die_and_its_owner_recruits_the_department_colour():
    """R3: seat 0 uses seat 2's die at the orange wheel; seat 2 recruits an orange cat."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    put_on_wheel(st, die_of(2), ORANGE, 1, NOVICE_START)
    assert (3, die_of(2), 1) in candidates(st, 0)
    r0, r2 = ready(st, 0), ready(st, 2)
    log = execute(st, geo, 0, 3, die_of(2), 1, brag_instead=1)
    assert [e[3:5] for e in events(log, EV_RECRUIT)] == [[2, ORANGE]]
    assert ready(st, 0) == r0
    assert ready(st, 2) == [r2[0], r2[1] + 1, r2[2]]


@pytest.mark.parametrize("dept", [BLACK, ORANGE, GRAY])
def test_r3_own_die_recruits_the_colour_of_its_wheel(dept):
    """R3: each department's dice recruit that department's colour."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    before = ready(st, 1)
    execute(st, geo, 1, dept * 3, die_of(1), 0, brag_instead=1)
    after = ready(st, 1)
    assert [a - b for a, b in zip(after, before)] == [1 if c == dept else 0 for c in range(3)]


def test_r3_supply_die_only_while_the_wheel_holds_fewer_than_three():
    """R3: a die from the supply may be added on any open slice while fewer than three dice stand
    on the wheel; at three it may not."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    put_on_wheel(st, die_of(1), BLACK, 0, NOVICE_START)
    put_on_wheel(st, die_of(2), BLACK, 2, NOVICE_START)
    supply = {(sp, s) for sp, dd, s in candidates(st, 3) if dd // DICE_PER_OWNER == 3 and sp // 3 == BLACK}
    assert supply == {(sp, s) for sp in (0, 1, 2) for s in (1, 3)}
    put_on_wheel(st, die_of(0), BLACK, 3, NOVICE_START)
    black = {(dd, s) for sp, dd, s in candidates(st, 3) if sp // 3 == BLACK}
    assert black == {(die_of(1), 0), (die_of(2), 2), (die_of(0), 3)}


@pytest.mark.parametrize("face", [NOVICE_START, EXPERT_START])
def test_r3_supply_die_enters_showing_its_face(face):
    """R3: a novice enters on "1", an expert on "2*"; the pips of the action follow the face."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    die = die_of(0)
    st[S_DIE_FACE + die] = face
    log = execute(st, geo, 0, 3, die, 1, brag_instead=1)
    assert events(log, EV_SELECT)[0][7] == 16 + face
    assert st[S_DIE_FACE + die] == face + 1


def test_r3_pass_when_no_die_can_be_selected_the_pawn_still_moves():
    """R3: no die anywhere reachable: the turn is a pass, counted, and the pawn still moves."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    st[S_PAWN : S_PAWN + 4] = (0, 3, 4, 5)  # the orange spots are all taken
    put_on_wheel(st, die_of(0, 0), ORANGE, 0, NOVICE_START)
    put_on_wheel(st, die_of(0, 1), ORANGE, 1, NOVICE_START)
    put_in_room(st, die_of(0, 2), 0)  # only passed on the way to orange
    assert candidates(st, 0) == []
    wheels = st[S_SLICE_DIE : S_SLICE_DIE + N_DEPT * N_SLICES].copy()
    log = big_log()
    st[S_CUR] = 0
    engine.play_turn(st, geo, strats("greedy", "greedy", "greedy", "greedy"), rng(), log)
    assert st[S_PAWN + 0] in (1, 2, 6, 7, 8)
    assert st[S_PASSED] == 1 and stat(st, 0, ST_PASSES) == 1 and stat(st, 0, ST_TURNS) == 1
    assert len(events(log, EV_PASS)) == 1 and events(log, EV_SELECT) == []
    assert np.array_equal(st[S_SLICE_DIE : S_SLICE_DIE + N_DEPT * N_SLICES], wheels)
    assert st[S_CUR] == 1


# =========================================================================== R4 action or brag


def test_r4_brag_instead_of_the_action():
    """R4: one brag on this department's track replaces the slice's action; the die still ticks."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    put_on_wheel(st, die_of(1), BLACK, 0, EXPERT_START)  # a Construct slice, 2 pips
    before = [int(st[S_BRAG_POS + d * N_OWNERS + 0]) for d in range(N_DEPT)]
    log = execute(st, geo, 0, 0, die_of(1), 0, brag_instead=1)
    after = [int(st[S_BRAG_POS + d * N_OWNERS + 0]) for d in range(N_DEPT)]
    assert after == [before[0] + 1, before[1], before[2]]
    assert events(log, EV_BUILD) == [] and events(log, EV_FORFEIT) == []
    assert len(events(log, EV_ACTION_BRAG)) == 1 and stat(st, 0, ST_ACTION_BRAGS) == 1
    assert [e[7] for e in events(log, EV_BRAG)] == [BRAG_ACTION]
    assert st[S_DIE_FACE + die_of(1)] == EXPERT_START + 1
    assert wheel(st, BLACK)[1] == die_of(1)


# =========================================================================== R5 tick up, rooms, bumps


def test_r5_tick_up_to_the_next_open_slice_wrapping_round():
    """R5: the used die moves clockwise to the next open slice (past busy ones, round the wheel)
    and shows the next face."""
    st = make_state(4)
    put_on_wheel(st, die_of(0), BLACK, 1, NOVICE_START)
    put_on_wheel(st, die_of(1), BLACK, 2, NOVICE_START)
    put_on_wheel(st, die_of(2), BLACK, 3, NOVICE_START)
    assert rules.tick_up(st, big_log(), die_of(0), BLACK) == -1
    assert wheel(st, BLACK) == [die_of(0), -1, die_of(1), die_of(2)]
    assert st[S_DIE_FACE + die_of(0)] == NOVICE_START + 1
    assert rules.tick_up(st, big_log(), die_of(2), BLACK) == -1  # slice 3 -> 0 busy -> 1
    assert wheel(st, BLACK) == [die_of(0), die_of(2), die_of(1), -1]
    st[S_DIE_FACE + die_of(1)] = EXPERT_START + 1
    assert rules.tick_up(st, big_log(), die_of(1), BLACK) == -1
    assert st[S_DIE_FACE + die_of(1)] == EXPERT_TOP


def top_face_state(face, rooms):
    """Seat 0's die on its top face on the orange wheel; ``rooms`` maps room -> owner of a die."""
    geo = unbuilt_geo()
    st = make_state(4, geo)
    put_on_wheel(st, die_of(0), ORANGE, 2, face)
    for room, owner in rooms.items():
        put_in_room(st, die_of(owner, 1), room, NOVICE_TOP)
    return geo, st


@pytest.mark.parametrize("face", [NOVICE_TOP, EXPERT_TOP])
def test_r5_top_face_goes_to_an_open_adjacent_room(face):
    """R5: a die used on "3" or "4*" leaves the wheel for an open break room next to it."""
    for seed in range(6):
        geo, st = top_face_state(face, {})
        execute(st, geo, 0, 3, die_of(0), 2, brag_instead=1, seed=seed)
        assert st[S_DIE_WHERE + die_of(0)] == W_ROOM
        room = int(st[S_DIE_POS + die_of(0)])
        assert room in (0, 1)  # the rooms on either side of orange, never room 2
        assert st[S_ROOM_DIE + room] == die_of(0)
        assert die_of(0) not in wheel(st, ORANGE)
    # With room 0 busy and room 2 (not adjacent) open, room 1 is the only choice and nobody is bumped.
    geo, st = top_face_state(face, {0: 1})
    log = execute(st, geo, 0, 3, die_of(0), 2, brag_instead=1)
    assert st[S_ROOM_DIE + 1] == die_of(0) and st[S_ROOM_DIE + 0] == die_of(1, 1)
    assert events(log, EV_BUMP) == []


@pytest.mark.parametrize("strategy", ["greedy", "random"])
def test_r5_both_rooms_full_bump_one_die_home_with_one_brag(strategy):
    """R5: both adjacent rooms hold dice: one is bumped to its owner's supply on 2*, the owner takes
    exactly one brag, and the used die takes the room."""
    for seed in range(4):
        geo, st = top_face_state(NOVICE_TOP, {0: 1, 1: 2})
        before = {o: brag_sum(st, o) for o in (1, 2)}
        log = execute(st, geo, 0, 3, die_of(0), 2, brag_instead=1, strat=strats(*[strategy] * 4), seed=seed)
        bumps = events(log, EV_BUMP)
        assert len(bumps) == 1
        victim, room = bumps[0][5], bumps[0][4]
        assert victim in (1, 2) and room in (0, 1)
        vdie = die_of(victim, 1)
        assert st[S_DIE_WHERE + vdie] == W_SUPPLY and st[S_DIE_FACE + vdie] == EXPERT_START
        assert st[S_ROOM_DIE + room] == die_of(0)
        assert stat(st, victim, ST_BUMPED) == 1 and stat(st, 0, ST_BUMPS_MADE) == 1
        bump_brags = [e for e in events(log, EV_BRAG) if e[7] == BRAG_BUMP]
        assert len(bump_brags) == 1 and bump_brags[0][3] == victim
        assert brag_sum(st, victim) == before[victim] + 1
        other = 3 - victim
        assert brag_sum(st, other) == before[other]


# =========================================================================== R6 construct


def construct(st, geo, p, d, pips, strategy="greedy", seed=1):
    log = big_log()
    s = strats(*[strategy] * int(st[0]))
    engine.do_construct(st, geo, s, rng(seed), log, p, d, pips)
    return log


def test_r6_placement_legality():
    """R6: build on an empty space only; upgrade only over an inner piece without an outer one;
    over another owner's (or the neutral's) inner piece only with a ladder; no pieces left, no
    placement."""
    geo = make_geo(
        spaces=[(1, "orange", []), (2, "gray", []), (1, "gray", []), (3, "orange", []), (2, "gray", [])]
    )
    st = make_state(3, geo)
    place(st, BLACK, 1, 0)
    place(st, BLACK, 2, 1)
    place(st, BLACK, 3, 0)
    place(st, BLACK, 3, 0, outer=True)
    place(st, BLACK, 4, NEUTRAL)
    legal = lambda s, outer, p=0: rules.placement_legal(st, geo, p, BLACK, s, outer)
    assert [legal(s, 0) for s in range(5)] == [1, 0, 0, 0, 0]
    assert [legal(s, 1) for s in range(5)] == [0, 1, 2, 0, 2]
    assert legal(5, 0) == 0 and legal(-1, 0) == 0  # no such space
    st[S_BUILD_LEFT + 0] = 0
    st[S_UPG_LEFT + 0] = 0
    assert legal(0, 0) == 0 and legal(1, 1) == 0


def test_r6_upgrade_costs_one_less_so_a_one_space_upgrade_is_free():
    """R6: with no cats at all, the only placement is the upgrade of one's own cost-1 space, which
    is free; a cost-2 space's upgrade would need one cat."""
    geo = make_geo(spaces=[(1, "gray", []), (2, "orange", [])])
    st = make_state(4, geo)
    place(st, BLACK, 0, 0)
    place(st, BLACK, 1, 0)
    set_ready(st, 0)
    log = construct(st, geo, 0, BLACK, 2)
    builds = events(log, EV_BUILD)
    assert len(builds) == 1
    assert builds[0][3:7] == [0, BLACK, 0, 1] and builds[0][7] // 16 == 0  # free
    assert st[S_OUTER + 0] == 0 and st[S_OUTER + 1] == -1
    assert all(st[S_QUILT + q] == -1 for q in range(N_QUILT))
    assert stat(st, 0, ST_UPGRADES) == 1
    assert [e[3:5] for e in events(log, EV_FORFEIT)] == [[0, 1]]
    # One orange cat pays the cost-2 space's upgrade exactly.
    set_ready(st, 0, orange=1)
    log = construct(st, geo, 0, BLACK, 1)
    assert events(log, EV_BUILD)[0][7] // 16 == 1
    assert st[S_OUTER + 1] == 0 and ready(st, 0) == [0, 0, 0]
    assert sorted(int(c) for c in st[S_QUILT : S_QUILT + N_QUILT] if c >= 0) == [ORANGE]


def test_r6_ladder_to_upgrade_another_owners_piece():
    """R6: an upgrade onto another owner's inner piece spends a ladder; without one it is not
    possible."""
    geo = make_geo(spaces=[(1, "gray", [])])
    st = make_state(4, geo)
    place(st, BLACK, 0, 2)
    log = construct(st, geo, 0, BLACK, 1)
    assert events(log, EV_BUILD) == [] and st[S_OUTER + 0] == -1
    st[S_TOKENS + 0 * 3 + LADDER] = 1
    log = construct(st, geo, 0, BLACK, 1)
    assert st[S_OUTER + 0] == 0 and st[S_INNER + 0] == 2
    assert st[S_TOKENS + LADDER] == 0
    assert events(log, EV_BUILD)[0][7] == 0 * 16 + 1  # cost 0, one ladder


def test_r6_ladder_turns_a_cat_into_the_needed_colour():
    """R6: short of one black cat, a ladder lets an orange cat pay; without it the build is out."""
    geo = make_geo(spaces=[(2, "black", [])], dept=GRAY)
    st = make_state(4, geo)
    set_ready(st, 0, black=1, orange=1)
    assert not rules.can_pay(st, 0, BLACK, 2, 0)
    assert rules.can_pay(st, 0, BLACK, 2, 1)
    log = construct(st, geo, 0, GRAY, 1)
    assert events(log, EV_BUILD) == []
    st[S_TOKENS + LADDER] = 1
    log = construct(st, geo, 0, GRAY, 1)
    assert st[S_INNER + GRAY * MAX_SPACES + 0] == 0
    assert st[S_TOKENS + LADDER] == 0 and ready(st, 0) == [0, 0, 0]
    assert sorted(int(c) for c in st[S_QUILT : S_QUILT + N_QUILT] if c >= 0) == [BLACK, ORANGE]
    # Two cats short with one ladder: still impossible.
    set_ready(st, 0, orange=2)
    assert not rules.can_pay(st, 0, BLACK, 2, 1)


def test_r6_cats_are_lost_when_the_quilt_is_full():
    """R6: a paid cat with no empty quilt space goes back to the supply for good (the engine's
    payment step); while spaces remain, each paid cat takes one."""
    geo = make_geo(spaces=[(2, "gray", [])])
    st = make_state(4, geo)
    st[S_QUILT : S_QUILT + N_QUILT - 1] = ORANGE  # one space left
    set_ready(st, 0, gray=3)
    log = big_log()
    engine.pay(st, geo, strats("greedy", "greedy", "greedy", "greedy"), rng(), log, 0, GRAY, 3)
    assert ready(st, 0) == [0, 0, 0]
    assert list(st[S_QUILT : S_QUILT + N_QUILT]) == [ORANGE] * (N_QUILT - 1) + [GRAY]
    assert stat(st, 0, ST_CATS_LOST) == 2
    assert [e[5] for e in events(log, EV_EXHAUST)] == [N_QUILT - 1, -1, -1]
    # The primitive alone: quilt space -1 means lost.
    set_ready(st, 0, black=1)
    rules.exhaust_cat(st, log, 0, BLACK, -1)
    assert ready(st, 0) == [0, 0, 0] and stat(st, 0, ST_CATS_LOST) == 3


def test_r6_placing_on_the_inspectors_space_scores_its_number():
    """R6: build and upgrade onto the inspector's space score its number each; elsewhere nothing;
    Pri scores nothing (R14)."""
    geo = make_geo(spaces=[(3, "gray", []), (2, "gray", []), (1, "gray", [])])
    st = make_state(2, geo)
    st[S_INSPECTOR + BLACK] = 0
    log = big_log()
    rules.place_piece(st, geo, log, 0, BLACK, 1, 0)
    assert scores(st)[0] == 0
    rules.place_piece(st, geo, log, 0, BLACK, 0, 0)
    rules.place_piece(st, geo, log, 0, BLACK, 0, 1)
    assert scores(st)[0] == 6 and source_points(st, 0, SRC_INSPECTOR) == 6
    st[S_INSPECTOR + BLACK] = 2
    rules.place_pri_piece(st, geo, log, BLACK, 2, 0)
    assert st[S_SCORE + PRI] == 0 and scores(st)[:2] == [6, 0]


# =========================================================================== R7 refresh


@pytest.mark.parametrize("pips", [1, 2, 3, 4])
def test_r7_refresh_row_column_or_both(pips):
    """R7 on a full quilt: row r holds r cats, column c holds 5 - c, both together share one."""
    st = make_state(4)
    colours = [BLACK, ORANGE, GRAY, BLACK, ORANGE, GRAY, BLACK, ORANGE, GRAY, BLACK]
    for mode, expect in ((1, pips), (2, 5 - pips), (3, 4)):
        st[S_QUILT : S_QUILT + N_QUILT] = colours
        set_ready(st, 0)
        n = rules.refresh_lines(st, big_log(), 0, pips, mode)
        assert n == expect
        back = [q for q in range(N_QUILT) if st[S_QUILT + q] < 0]
        want = [
            q
            for q in range(N_QUILT)
            if (mode & 1 and QUILT_ROW[q] == pips) or (mode & 2 and QUILT_COL[q] == pips)
        ]
        assert back == want
        assert sum(ready(st, 0)) == expect


def test_r7_milk_spent_only_for_both_lines():
    """R7/R4: the engine's refresh spends exactly one milk when it takes row and column."""
    st = make_state(4)
    log = big_log()
    modes = set()
    for seed in range(12):
        st[S_QUILT : S_QUILT + N_QUILT] = GRAY
        st[S_TOKENS + MILK] = 2
        set_ready(st, 0)
        engine.do_refresh(st, strats("random", "random", "random", "random"), rng(seed), log, 0, 2)
        mode = events(log, EV_REFRESH)[-1][5]
        modes.add(mode)
        assert st[S_TOKENS + MILK] == (1 if mode == 3 else 2)
        assert sum(ready(st, 0)) == {1: 2, 2: 3, 3: 4}[mode]
    assert modes == {1, 2, 3}


# =========================================================================== R8 inspect


def ring_geo(n=6, dept=BLACK, chords=()):
    spaces = [(1 + (i % 3), "orange" if i % 2 else "gray", []) for i in range(n)]
    lines = [(i, (i + 1) % n) for i in range(n)] + list(chords)
    return make_geo(spaces=spaces, lines=lines, dept=dept), lines


def line_id(lines, a, b):
    for e, (u, v) in enumerate(lines):
        if {u, v} == {a, b}:
            return e
    raise AssertionError(f"no line between {a} and {b}")


def inspector_walk(log):
    """(space, jumped) per logged inspector entry."""
    return [(e[5], e[6]) for e in events(log, EV_INSPECT_STEP)]


def stuck_at(lines, node, used):
    """True if every line at ``node`` is in ``used``."""
    return all(e in used for e, (u, v) in enumerate(lines) if node in (u, v))


@pytest.mark.parametrize("strategy", ["random", "greedy"])
@pytest.mark.parametrize("cheese", [0, 2])
def test_r8_pips_steps_no_line_twice_and_jumps_free(strategy, cheese):
    """R8: the inspector makes ``pips`` scored steps (fewer only when it ends where every line is
    used), never uses a line twice, and each jump (one cheese each) neither scores nor counts."""
    geo, lines = ring_geo(6, chords=[(0, 3)])
    full = 0
    for seed in range(15):
        st = make_state(4, geo)
        for s in range(6):
            place(st, BLACK, s, (s + seed) % 4)
        start = seed % 6
        st[S_INSPECTOR + BLACK] = start
        st[S_TOKENS + CHEESE] = cheese
        pips = 2 + seed % 3
        log = big_log()
        engine.do_inspect(st, geo, strats(*[strategy] * 4), rng(seed), log, 0, BLACK, pips)
        steps = inspector_walk(log)
        scored = sum(1 for _, j in steps if not j)
        path = [start] + [s for s, _ in steps]
        used = [line_id(lines, a, b) for a, b in itertools.pairwise(path)]
        assert len(used) == len(set(used))
        assert scored <= pips
        if scored < pips:
            assert stuck_at(lines, path[-1], set(used))
        else:
            full += 1
        assert not steps or steps[-1][1] == 0  # a move never ends on a jump
        jumps = sum(j for _, j in steps)
        assert jumps <= cheese and st[S_TOKENS + CHEESE] == cheese - jumps
        expected = [0, 0, 0, 0]
        for s, j in steps:
            if not j:
                expected[(s + seed) % 4] += 1 + (s % 3)
        assert scores(st) == expected
    assert full >= 10


def test_r8_long_ring_always_gives_full_moves():
    """R8: on a ring with lines to spare nobody is ever stuck, so every move has exactly ``pips``
    scored steps, jumps included."""
    geo, _lines = ring_geo(9)
    for strategy in ("random", "greedy"):
        for seed in range(12):
            st = make_state(4, geo)
            for s in range(9):
                place(st, BLACK, s, (s * 7 + seed) % 4)
            st[S_INSPECTOR + BLACK] = seed % 9
            st[S_TOKENS + CHEESE] = 2
            pips = 1 + seed % 4
            log = big_log()
            engine.do_inspect(st, geo, strats(*[strategy] * 4), rng(seed), log, 0, BLACK, pips)
            assert sum(1 for _, j in inspector_walk(log) if not j) == pips


@pytest.mark.parametrize("strategy", ["greedy", "random"])
def test_r8_may_not_stop_short_in_a_dead_end_by_choice(strategy):
    """R8: the inspector must make all its steps whenever some route allows it. From B, the
    only two-step route is B-D-E; B-C and B-A are dead ends after one step. Seat 0's pieces on C
    tempt the greedy, and a random walk wanders into the dead ends."""
    #           A(0) - B(1) - C(2)
    #                   |
    #                  D(3) - E(4)
    geo = make_geo(
        spaces=[(1, "gray", []), (1, "gray", []), (3, "orange", []), (1, "gray", []), (1, "gray", [])],
        lines=[(0, 1), (1, 2), (1, 3), (3, 4)],
    )
    for seed in range(8):
        st = make_state(4, geo)
        place(st, BLACK, 2, 0)
        place(st, BLACK, 2, 0, outer=True)
        place(st, BLACK, 3, 1)
        place(st, BLACK, 4, 1)
        st[S_INSPECTOR + BLACK] = 1
        log = big_log()
        engine.do_inspect(st, geo, strats(*[strategy] * 4), rng(seed), log, 0, BLACK, 2)
        assert inspector_walk(log) == [(3, 0), (4, 0)]


@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_r8_first_move_places_anywhere_and_counts_as_a_step(strategy):
    """R8: an inspector still off the board is first put on any space (one step)."""
    # Space 3 is cut off from the others: only the first move can reach it.
    geo = make_geo(
        spaces=[(1, "gray", []), (1, "gray", []), (1, "gray", []), (3, "orange", [])], lines=[(0, 1), (1, 2)]
    )
    st = make_state(4, geo)
    place(st, BLACK, 3, 0)
    place(st, BLACK, 3, 0, outer=True)
    log = big_log()
    engine.do_inspect(st, geo, strats(*[strategy] * 4), rng(5), log, 0, BLACK, 1)
    steps = inspector_walk(log)
    assert len(steps) == 1 and steps[0][1] == 0
    if strategy == "greedy":
        assert steps[0][0] == 3 and scores(st)[0] == 6
    # Two pips from off the board: the placement plus one line.
    st = make_state(4, geo)
    log = big_log()
    engine.do_inspect(st, geo, strats(*[strategy] * 4), rng(6), log, 0, BLACK, 2)
    steps = inspector_walk(log)
    assert 1 <= len(steps) <= 2
    if steps[0][0] != 3:
        assert len(steps) == 2


@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_r8_fewer_steps_only_when_stuck(strategy):
    """R8: along a dead-end line the inspector stops when no unused line is left."""
    geo = make_geo(spaces=[(1, "gray", []), (2, "gray", []), (3, "gray", [])], lines=[(0, 1), (1, 2)])
    for seed in range(5):
        st = make_state(4, geo)
        st[S_INSPECTOR + BLACK] = 0
        log = big_log()
        engine.do_inspect(st, geo, strats(*[strategy] * 4), rng(seed), log, 0, BLACK, 4)
        assert inspector_walk(log) == [(1, 0), (2, 0)]


def test_r8_jump_does_not_score():
    """R8: a jumped space pays nobody; the inspector still stands there afterwards."""
    geo = make_geo(spaces=[(2, "gray", []), (3, "gray", [])], lines=[(0, 1)])
    st = make_state(4, geo)
    place(st, BLACK, 1, 1)
    rules.inspector_enter(st, geo, big_log(), 0, BLACK, 1, 1)
    assert scores(st) == [0, 0, 0, 0] and st[S_INSPECTOR + BLACK] == 1
    rules.inspector_enter(st, geo, big_log(), 0, BLACK, 1, 0)
    assert scores(st) == [0, 3, 0, 0]


# =========================================================================== R9 brag


def test_r9_top_space_brag_is_wasted():
    """R9: a disc on the top space stays there; nothing is gained, the stack is unchanged."""
    geo = make_geo()
    st = make_state(4, geo)
    set_brag(st, ORANGE, 2, N_TRACK - 1)
    stamp = int(st[S_BRAG_STAMP + ORANGE * N_OWNERS + 2])
    tok = st[S_TOKENS + 2 * 3 : S_TOKENS + 2 * 3 + 3].copy()
    assert brag_step(st, geo, big_log(), 2, ORANGE, BRAG_ACTION) == -1
    assert st[S_BRAG_POS + ORANGE * N_OWNERS + 2] == N_TRACK - 1
    assert st[S_BRAG_STAMP + ORANGE * N_OWNERS + 2] == stamp
    assert np.array_equal(st[S_TOKENS + 2 * 3 : S_TOKENS + 2 * 3 + 3], tok)


@pytest.mark.parametrize("dept", [BLACK, ORANGE, GRAY])
def test_r9_tokens_on_spaces_two_four_six_of_the_tracks_type(dept):
    """R9: climbing a whole track gives a token on entering spaces 2, 4 and 6, each of the type of
    the track's department (black ladder, orange milk, gray cheese)."""
    geo = make_geo()
    st = make_state(4, geo)
    gained = [brag_step(st, geo, big_log(), 1, dept, BRAG_ACTION) for _ in range(N_TRACK - 1)]
    assert gained == [-1, dept, -1, dept, -1, dept, -1]
    assert [int(st[S_TOKENS + 1 * 3 + k]) for k in range(3)] == [3 if k == dept else 0 for k in range(3)]
    assert (LADDER, MILK, CHEESE) == (BLACK, ORANGE, GRAY)


def test_r9_disc_entering_an_occupied_space_goes_on_top():
    """R9: the newcomer stacks above; beneath wins ties (R10)."""
    geo = make_geo()
    st = make_state(4, geo)
    set_brag(st, BLACK, 3, 2)
    set_brag(st, BLACK, 1, 1)
    brag_step(st, geo, big_log(), 1, BLACK, BRAG_ACTION)
    assert st[S_BRAG_STAMP + 1] > st[S_BRAG_STAMP + 3]
    assert track_beats(st, BLACK, 3, 1) and not track_beats(st, BLACK, 1, 3)


# =========================================================================== R10 objectives


def test_r10_objectives_resolve_at_the_end_of_the_turn():
    """R10: completing a section only marks it; the engine's end of turn pays it, once."""
    geo = unbuilt_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [0]), (2, "gray", [])],
        sections=[{"terms": [("rank", None, [4, 2, 1])]}],
    )
    st = make_state(4, geo)
    log = big_log()
    rules.place_piece(st, geo, log, 0, BLACK, 0, 0)
    rules.place_piece(st, geo, log, 1, BLACK, 1, 0)
    assert st[S_SEC_STATE + 0] == 1 and scores(st) == [0, 0, 0, 0]
    st[S_CUR] = 0
    engine.end_turn(st, geo, log)
    assert st[S_SEC_STATE + 0] == 2
    # Tie 1-1: both on space 0, seat 1 lower in the stack (reverse turn order), so seat 1 first.
    assert [source_points(st, o, SRC_OBJECTIVE + BLACK) for o in range(4)] == [2, 4, 0, 0]
    engine.end_turn(st, geo, log)
    assert scores(st) == [2, 4, 0, 0]


# =========================================================================== R11 game end


def three_small_instruments():
    return make_geo(
        spaces=[(1, "orange", [])],
        others={
            ORANGE: {"spaces": [(1, "black", [])]},
            GRAY: {"spaces": [(1, "black", []), (1, "black", [])]},
        },
    )


def test_r11_two_instruments_built_finish_the_round():
    """R11: the trigger on seat 1's turn lets seats 2 and 3 play; the game ends after the last seat,
    everyone having played the same number of turns."""
    geo = three_small_instruments()
    st = make_state(4, geo)
    log = big_log()
    st[S_CUR] = 0
    engine.end_turn(st, geo, log)  # seat 0, nothing built yet
    place(st, BLACK, 0, 1)
    place(st, ORANGE, 0, 1)
    engine.end_turn(st, geo, log)  # seat 1 completes the second instrument
    assert st[S_ENDING] == 1 and st[S_OVER] == 0 and st[S_CUR] == 2
    engine.end_turn(st, geo, log)
    assert st[S_OVER] == 0 and st[S_CUR] == 3
    engine.end_turn(st, geo, log)
    assert st[S_OVER] == 1 and st[S_STALLED] == 0
    assert st[S_TURN] == 4 and st[S_ROUND] == 1
    assert st[S_WINNER] >= 0


def test_r11_trigger_on_the_last_seat_ends_at_once_and_one_built_is_not_enough():
    """R11: one built instrument does not end the game; a trigger on the last seat's turn ends it
    right after that turn."""
    geo = three_small_instruments()
    st = make_state(3, geo)
    place(st, BLACK, 0, 0)
    for p in range(3):
        st[S_CUR] = p
        engine.end_turn(st, geo, big_log())
    assert st[S_ENDING] == 0 and st[S_OVER] == 0  # one instrument built
    place(st, GRAY, 0, 1)
    place(st, GRAY, 1, 1)
    engine.end_turn(st, geo, big_log())  # seat 0
    engine.end_turn(st, geo, big_log())  # seat 1
    assert st[S_ENDING] == 1 and st[S_OVER] == 0
    engine.end_turn(st, geo, big_log())  # seat 2, the last
    assert st[S_OVER] == 1 and st[S_ROUND] == 2 and st[S_TURN] == 6


def test_r11_round_cap_ends_the_game_flagged_stalled():
    """R11: the safety cap ends and scores the game, flagged stalled."""
    geo = three_small_instruments()
    st = make_state(2, geo)
    st[S_MAX_ROUNDS] = 2
    log = big_log()
    for _ in range(3):
        engine.end_turn(st, geo, log)
        assert st[S_OVER] == 0
    engine.end_turn(st, geo, log)
    assert st[S_OVER] == 1 and st[S_STALLED] == 1 and st[S_ROUND] == 2
    # A full game with a tiny cap.
    rec = play_one(GameSetup(nplayers=3, max_rounds=2), StrategyLibrary().matrix(["random"] * 3), 11)
    assert rec.violation == 0
    assert rec.state[S_STALLED] == 1 and rec.state[S_ROUND] == 2 and rec.state[S_OVER] == 1


# =========================================================================== R12 final scoring


def penalty_geo(nspaces=3):
    return make_geo(spaces=[(1, "orange", []) for _ in range(nspaces)])


def test_r12_penalty_split_rounded_down():
    """R12: three seats tied last share 2 x 2 = 4: each loses 4 // 3 = 1; the disc order in the
    stack plays no part."""
    geo = penalty_geo(3)
    st = make_state(4, geo)
    place(st, BLACK, 0, 3)
    set_brag(st, BLACK, 3, 1)
    rules.final_scoring(st, geo, big_log())
    assert [source_points(st, o, SRC_PENALTY + BLACK) for o in range(4)] == [-1, -1, -1, 0]


def test_r12_penalty_too_small_to_split_costs_nothing():
    """R12: a penalty of 2 shared by three seats rounds down to nothing each."""
    geo = penalty_geo(2)
    st = make_state(4, geo)
    place(st, BLACK, 0, 3)
    set_brag(st, BLACK, 3, 1)
    log = big_log()
    rules.final_scoring(st, geo, log)
    assert scores(st) == [0, 0, 0, 0]  # 2 // 3 == 0


def test_r12_last_place_alone_pays_all():
    """R12: one seat alone on the lowest space pays 2 per unbuilt space."""
    geo = penalty_geo(3)
    st = make_state(4, geo)
    for o in (0, 1, 3):
        set_brag(st, BLACK, o, 2)
    rules.final_scoring(st, geo, big_log())
    assert [source_points(st, o, SRC_PENALTY + BLACK) for o in range(4)] == [0, 0, -6, 0]


def test_r12_pri_alone_in_last_place_means_nobody_pays():
    """R12/R14: Pri alone on the lowest space takes the blame; no player loses points."""
    geo = penalty_geo(3)
    st = make_state(2, geo)
    set_brag(st, BLACK, 0, 1)
    set_brag(st, BLACK, 1, 1)
    rules.final_scoring(st, geo, big_log())
    assert scores(st)[:2] == [0, 0] and st[S_SCORE + PRI] == 0


def test_r12_pri_tied_last_shares_the_penalty():
    """R12/R14: Pri's disc counts for last place: tied with seat 0, seat 0 pays half."""
    geo = penalty_geo(3)
    st = make_state(2, geo)
    set_brag(st, BLACK, 1, 1)
    rules.final_scoring(st, geo, big_log())
    assert source_points(st, 0, SRC_PENALTY + BLACK) == -3 and source_points(st, 1, SRC_PENALTY + BLACK) == 0


def test_r12_neutral_has_no_disc_and_is_never_last():
    """R12/R15: in three players only the seats' discs compete for last place."""
    geo = penalty_geo(3)
    st = make_state(3, geo)
    set_brag(st, BLACK, 0, 1)
    set_brag(st, BLACK, 1, 1)
    rules.final_scoring(st, geo, big_log())
    assert [source_points(st, o, SRC_PENALTY + BLACK) for o in range(3)] == [0, 0, -6]


def test_r12_built_instrument_pays_the_lower_of_disc_and_cube():
    """R12: VP of min(disc space, highest space the pieces reach) on the default track
    (pieces 0,1,2,4,6,8,10,12 -> VP 0,2,4,7,10,15,17,20)."""
    geo = make_geo(spaces=[(1, "orange", []) for _ in range(12)])
    st = make_state(4, geo)
    for s in range(3):
        place(st, BLACK, s, 0)  # 3 pieces -> space 2
    for s in range(3, 9):
        place(st, BLACK, s, 1)
    for s in range(6):
        place(st, BLACK, 3 + s, 1, outer=True)  # 12 pieces -> space 7
    for s in range(9, 12):
        place(st, BLACK, s, 2)
    for s in range(9, 12):
        place(st, BLACK, s, 2, outer=True)  # 6 pieces -> space 4
    set_brag(st, BLACK, 0, 7)
    set_brag(st, BLACK, 1, 2)
    set_brag(st, BLACK, 2, 4)
    set_brag(st, BLACK, 3, 6)  # no pieces -> 0
    rules.final_scoring(st, geo, big_log())
    assert [source_points(st, o, SRC_BRAG + BLACK) for o in range(4)] == [4, 4, 10, 0]


# =========================================================================== R13 winner


@pytest.mark.parametrize(
    "pts, winner, tied",
    [([5, 7, 7, 3], 2, 2), ([9, 7, 7, 3], 0, 1), ([4, 4, 4, 4], 3, 4), ([1, 6, 2, 6], 3, 2)],
)
def test_r13_tie_goes_to_the_latest_seat(pts, winner, tied):
    """R13: highest total wins; among tied seats the one latest in turn order; the tie is recorded."""
    geo = make_geo()  # every instrument empty, so built, and worth nothing at the end
    st = make_state(4, geo)
    for o, p in enumerate(pts):
        add_points(st, big_log(), o, p, SRC_INSPECTOR, 0, 0)
    rules.final_scoring(st, geo, big_log())
    assert st[S_WINNER] == winner and st[S_TIED] == tied
    assert st[S_TIEBREAK] == (1 if tied > 1 else 0)


def test_r13_two_player_tie_goes_to_seat_two():
    """R13: in two players a tie goes to the second seat (Pri never wins, R14)."""
    geo = make_geo()
    st = make_state(2, geo)
    rules.final_scoring(st, geo, big_log())
    assert st[S_WINNER] == 1 and st[S_TIEBREAK] == 1


# =========================================================================== R14 two players: Pri


@pytest.mark.parametrize("seed", range(5))
def test_r14_setup_pri_pawn_and_dice(seed):
    """R14: Pri's pawn on an open spot, one of her dice per department on a Construct slice at 2*;
    the seats' dice wait in supply."""
    setup = GameSetup(nplayers=2)
    st = engine.setup_game(setup.geo, 2, strats("greedy", "greedy"), rng(seed), big_log())
    spot = int(st[S_PAWN + PRI])
    assert 0 <= spot < N_SPOTS and spot % 3 != 1
    for d in range(N_DEPT):
        pri = [s for s in range(N_SLICES) if st[S_SLICE_DIE + d * N_SLICES + s] >= 0]
        assert len(pri) == 1
        die = int(st[S_SLICE_DIE + d * N_SLICES + pri[0]])
        assert die // DICE_PER_OWNER == PRI
        assert st[S_SLICE_ACTION + d * N_SLICES + pri[0]] == CONSTRUCT
        assert st[S_DIE_FACE + die] == EXPERT_START
    for p in range(2):
        for k in range(DICE_PER_OWNER):
            assert st[S_DIE_WHERE + die_of(p, k)] == W_SUPPLY


def pri_state(costs=(2, 1, 3, 1, 2), face=EXPERT_START):
    geo = unbuilt_geo(spaces=[(c, "black", []) for c in costs], lines=[], dept=ORANGE)
    st = make_state(2, geo)
    pri_die = die_of(PRI, ORANGE)
    st[S_DIE_WHERE + pri_die] = W_SUPPLY
    put_on_wheel(st, pri_die, ORANGE, 0, face)
    st[S_PAWN + PRI] = 6
    return geo, st, pri_die


def test_r14_pri_piece_on_a_cheapest_space_before_the_action():
    """R14: selecting Pri's die places one Pri build piece on a cheapest empty space first; nobody
    recruits a cat."""
    geo, st, die = pri_state()
    opts = np.empty(MAX_SPACES, np.int64)
    n, outer = rules.pri_build_options(st, geo, ORANGE, opts)
    assert (sorted(opts[:n]), outer) == ([1, 3], 0)
    cats = [ready(st, p) for p in range(2)]
    log = execute(st, geo, 0, 3, die, 0, brag_instead=1)
    pieces = [e for e in events(log) if e[2] in (EV_PRI_PIECE, EV_ACTION_BRAG)]
    assert [e[2] for e in pieces] == [EV_PRI_PIECE, EV_ACTION_BRAG]
    space = pieces[0][4]
    assert space in (1, 3) and st[S_INNER + ORANGE * MAX_SPACES + space] == PRI
    assert events(log, EV_RECRUIT) == []
    assert [ready(st, p) for p in range(2)] == cats
    # With the 1s gone, the 2s are next; the 3 only after them.
    place(st, ORANGE, 4 - space, 1)  # the other cost-1 space
    n, outer = rules.pri_build_options(st, geo, ORANGE, opts)
    assert (sorted(opts[:n]), outer) == ([0, 4], 0)
    place(st, ORANGE, 0, 0)
    place(st, ORANGE, 4, 0)
    n, outer = rules.pri_build_options(st, geo, ORANGE, opts)
    assert (list(opts[:n]), outer) == ([2], 0)


def test_r14_pri_upgrades_once_the_instrument_is_built():
    """R14: on a built instrument Pri's reward is an upgrade piece on any inner piece without one."""
    geo, st, die = pri_state(costs=(1, 2, 3))
    place(st, ORANGE, 0, 0)
    place(st, ORANGE, 0, 1, outer=True)
    place(st, ORANGE, 1, 1)
    place(st, ORANGE, 2, PRI)
    opts = np.empty(MAX_SPACES, np.int64)
    n, outer = rules.pri_build_options(st, geo, ORANGE, opts)
    assert (sorted(opts[:n]), outer) == ([1, 2], 1)
    execute(st, geo, 1, 3, die, 0, brag_instead=1)
    outers = [int(st[S_OUTER + ORANGE * MAX_SPACES + s]) for s in range(3)]
    assert outers[0] == 1 and PRI in outers[1:]


def test_r14_pri_four_star_die_climbs_twice_and_reenters_on_two_star():
    """R14: Pri's die used on 4* never goes to a break room: her disc climbs the department's
    track twice and the die re-enters on 2* at the next open slice."""
    geo, st, die = pri_state(face=EXPERT_TOP)
    put_on_wheel(st, die_of(1), ORANGE, 1, NOVICE_START)
    rooms = st[S_ROOM_DIE : S_ROOM_DIE + 3].copy()
    before = int(st[S_BRAG_POS + ORANGE * N_OWNERS + PRI])
    execute(st, geo, 0, 3, die, 0, brag_instead=1)
    assert st[S_BRAG_POS + ORANGE * N_OWNERS + PRI] == before + 2
    assert all(st[S_TOKENS + PRI * 3 + k] == 0 for k in range(3))  # space 2 holds a token; Pri takes none
    assert st[S_DIE_WHERE + die] == W_WHEEL and st[S_DIE_FACE + die] == EXPERT_START
    assert st[S_DIE_POS + die] == ORANGE * N_SLICES + 2  # slice 1 is busy
    assert np.array_equal(st[S_ROOM_DIE : S_ROOM_DIE + 3], rooms)
    # On 3* she only ticks up.
    geo, st, die = pri_state(face=EXPERT_START + 1)
    execute(st, geo, 0, 3, die, 0, brag_instead=1)
    assert st[S_BRAG_POS + ORANGE * N_OWNERS + PRI] == 0 and st[S_DIE_FACE + die] == EXPERT_TOP


@pytest.mark.parametrize(
    "pri, seat0, seat1, expected",
    [(0, 2, 3, 5), (8, 0, 3, 2), (5, 6, 8, 0), (3, 5, 6, 8)],
)
def test_r14_pri_moves_after_the_second_player_to_the_next_open_spot(pri, seat0, seat1, expected):
    """R14: after seat 1's turn Pri steps clockwise to the next open spot (middle spots closed);
    after seat 0's turn she stays."""
    geo = unbuilt_geo()
    st = make_state(2, geo)
    st[S_PAWN + PRI], st[S_PAWN + 0], st[S_PAWN + 1] = pri, seat0, seat1
    st[S_CUR] = 0
    engine.end_turn(st, geo, big_log())
    assert st[S_PAWN + PRI] == pri
    engine.end_turn(st, geo, big_log())
    assert st[S_PAWN + PRI] == expected


def test_r14_pri_never_scores():
    """R14: Pri's pieces entered by the inspector, her objective wins and her end-game position pay
    her nothing."""
    geo = make_geo(
        spaces=[(3, "gray", [0]), (2, "gray", [0])],
        lines=[(0, 1)],
        sections=[{"terms": [("rank", None, [4, 2])]}],
    )
    st = make_state(2, geo)
    log = big_log()
    rules.place_pri_piece(st, geo, log, BLACK, 0, 0)
    rules.place_pri_piece(st, geo, log, BLACK, 0, 1)
    rules.place_piece(st, geo, log, 0, BLACK, 1, 0)
    rules.inspector_enter(st, geo, log, 0, BLACK, 0, 0)
    engine.end_turn(st, geo, log)
    set_brag(st, BLACK, PRI, 7)
    rules.final_scoring(st, geo, log)
    assert st[S_SCORE + PRI] == 0
    assert all(e[3] != PRI for e in events(log, EV_SCORE))
    assert source_points(st, 0, SRC_OBJECTIVE + BLACK) == 2  # second behind Pri


# =========================================================================== R15 three players: neutral


@pytest.mark.parametrize("nplayers", [2, 3, 4])
def test_r15_neutral_pieces_on_the_marked_spaces_at_setup(nplayers):
    """R15: with three players two neutral inner pieces stand on each instrument's marked spaces;
    never otherwise."""
    setup = GameSetup(nplayers=nplayers)
    geo = setup.geo
    st = engine.setup_game(geo, nplayers, strats(*["greedy"] * nplayers), rng(3), big_log())
    for d in range(N_DEPT):
        base = G_INST + d * INST_SIZE
        ns = int(geo[base + I_NSPACES])
        marked = {int(geo[base + I_NEUTRAL]), int(geo[base + I_NEUTRAL + 1])}
        held = {s for s in range(ns) if st[S_INNER + d * MAX_SPACES + s] == NEUTRAL}
        if nplayers == 3:
            assert len(marked) == 2 and held == marked
            assert st[S_PIECES + d * N_OWNERS + NEUTRAL] == 2
            assert st[S_EMPTY + d] == ns - 2
        else:
            assert held == set() and st[S_EMPTY + d] == ns
        assert st[S_BRAG_POS + d * N_OWNERS + NEUTRAL] == (0 if nplayers == 2 else -1)


def test_r15_neutral_wins_every_tie_and_counts_as_another_owner():
    """R15: against any seat, however far up the track, the neutral wins a tie in pieces; more
    pieces still beat it; upgrading a neutral piece needs a ladder (R6)."""
    geo = make_geo(spaces=[(1, "gray", [])])
    st = make_state(3, geo)
    set_brag(st, BLACK, 1, N_TRACK - 1)
    for p in range(3):
        assert track_beats(st, BLACK, NEUTRAL, p) and not track_beats(st, BLACK, p, NEUTRAL)
    order = np.zeros(N_OWNERS, np.int64)
    n = rank_owners(st, BLACK, np.array([2, 2, 0, 0, 2], np.int64), order)
    assert list(order[:n]) == [NEUTRAL, 1, 0]
    n = rank_owners(st, BLACK, np.array([0, 3, 0, 0, 2], np.int64), order)
    assert list(order[:n]) == [1, NEUTRAL]
    place(st, BLACK, 0, NEUTRAL)
    assert rules.placement_legal(st, geo, 0, BLACK, 0, 1) == 2


def test_r15_three_players_use_two_spots_per_department():
    """R15/R1: with three players only the outer two spots of each department are offered."""
    geo = unbuilt_geo()
    st = make_state(3, geo)
    assert {c[0] for c in candidates(st, 0)} == {0, 2, 3, 5, 6, 8}
