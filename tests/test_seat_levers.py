"""Seat levers of board.toml ``[seats]``: each changes exactly the set-up it names, the defaults are the
rulebook's set-up (R2, R3, R9, R10, R12), a bad value is refused naming the file and key, and every
invariant holds in whole games with random levers set.

Each key is a table by player count whose value is a list indexed by seat in turn order.
"""

import copy
from functools import cache

import numpy as np
import pytest
from cli_harness import Case, check_case
from hypothesis import given, settings
from hypothesis import strategies as hs

from scenarios.load import load_scenario
from simulator.errors import DataError
from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.board import BOARD_PATH, SEAT_KEYS, SeatSetup, load_board
from simulator.shuffle_swing.kernel import core, engine, rules
from simulator.shuffle_swing.kernel.invariants import VIOLATIONS
from simulator.shuffle_swing.library import InstrumentLibrary
from simulator.shuffle_swing.pack import pack_geo
from simulator.shuffle_swing.playout import GameSetup
from simulator.shuffle_swing.strategies import StrategyLibrary
from simulator.validate import read_toml


@cache
def board_doc():
    return read_toml(BOARD_PATH)


@cache
def starter():
    return InstrumentLibrary().starter()


def board_with(**seats):
    """The packaged board with ``[seats]`` keys replaced (each a {count: list} table)."""
    doc = copy.deepcopy(board_doc())
    for k, v in seats.items():
        doc["seats"][k] = {str(n): row for n, row in v.items()}
    return load_board(BOARD_PATH, doc)


def fresh_state(board, nplayers):
    """The state a game starts from (the wheels in data order)."""
    geo = pack_geo(board, starter(), nplayers)
    perm = np.tile(np.arange(L.N_SLICES, dtype=np.int64), L.N_DEPT)
    return rules.new_state(geo, nplayers, perm), geo


def changed(board, nplayers):
    """State offsets whose value differs from the rulebook's set-up, and the two states."""
    st0, _ = fresh_state(load_board(), nplayers)
    st1, _ = fresh_state(board, nplayers)
    return set(np.flatnonzero(st0 != st1).tolist()), st0, st1


# --------------------------------------------------------------------------- defaults


def test_packaged_board_is_the_rulebooks_set_up():
    board = load_board()
    for n in (2, 3, 4):
        s = board.seat_setup(n)
        assert s.is_rulebook and s.brag_stack == tuple(range(n - 1, -1, -1))
        geo = pack_geo(board, starter(), n)
        assert not geo[L.G_SEATS : L.G_SEATS + L.SEATS_SIZE].any()


def test_a_count_left_out_keeps_the_rulebook():
    board = board_with(start_points={4: [3, 0, 0, 0]})
    assert board.seat_setup(3) == SeatSetup.rulebook(3)
    assert changed(board, 3)[0] == set()


# --------------------------------------------------------------------------- each lever, exactly


@pytest.mark.parametrize("n", [2, 3, 4])
def test_start_points_change_the_scores_only(n):
    """R12 adds them to the final total; nothing else of the set-up moves."""
    pts = list(range(1, n + 1))
    diff, _, st = changed(board_with(start_points={n: pts}), n)
    assert diff == {L.S_SCORE + p for p in range(n)}
    assert [int(st[L.S_SCORE + p]) for p in range(n)] == pts


def test_extra_cats_add_to_the_ready_cats_of_their_seat_and_colour():
    diff, st0, st = changed(board_with(extra_cats={3: [{}, {"orange": 2}, {"black": 1, "gray": 3}]}), 3)
    assert diff == {L.S_READY + 3 + L.ORANGE, L.S_READY + 6 + L.BLACK, L.S_READY + 6 + L.GRAY}
    assert st[L.S_READY + 3 + L.ORANGE] == st0[L.S_READY + 3 + L.ORANGE] + 2
    assert st[L.S_READY + 6 + L.BLACK] == st0[L.S_READY + 6 + L.BLACK] + 1
    assert st[L.S_READY + 6 + L.GRAY] == st0[L.S_READY + 6 + L.GRAY] + 3


def test_start_tokens_by_type():
    diff, _, st = changed(board_with(start_tokens={4: [{"milk": 1}, {}, {}, {"ladder": 2, "cheese": 1}]}), 4)
    assert diff == {L.S_TOKENS + 0 + 1, L.S_TOKENS + 9 + 0, L.S_TOKENS + 9 + 2}
    assert st[L.S_TOKENS + 1] == 1 and st[L.S_TOKENS + 9] == 2 and st[L.S_TOKENS + 11] == 1


def test_expert_dice_start_on_two_star_in_the_supply():
    """R3: a supply die enters showing its face; the lever turns a seat's first dice to 2*."""
    diff, _, st = changed(board_with(expert_dice={4: [2, 0, 0, 3]}), 4)
    dice = [0, 1, 9, 10, 11]  # seat 0's first two dice, all three of seat 3
    assert diff == {L.S_DIE_FACE + d for d in dice}
    assert all(st[L.S_DIE_FACE + d] == L.EXPERT_START for d in dice)
    assert all(st[L.S_DIE_WHERE + d] == L.W_SUPPLY for d in dice)
    assert st[L.S_DIE_FACE + 2] == L.NOVICE_START


@pytest.mark.parametrize("n", [2, 3, 4])
def test_brag_stack_orders_the_discs_and_thereby_the_ties(n):
    """R9/R10: on the same space the lower disc wins; the lever sets each seat's place in the stack
    (here turn order: the first player at the bottom), Pri's disc stays beneath the seats' (R14)."""
    diff, st0, st = changed(board_with(brag_stack={n: list(range(n))}), n)
    assert diff <= {L.S_BRAG_STAMP + d * L.N_OWNERS + p for d in range(L.N_DEPT) for p in range(n)}
    for d in range(L.N_DEPT):
        for a in range(n):
            for b in range(n):
                if a != b:
                    assert core.track_beats(st, d, a, b) == (a < b)  # now the earlier seat wins
                    assert core.track_beats(st0, d, a, b) == (a > b)  # the rulebook: the later seat
        if n == 2:
            assert core.track_beats(st, d, L.AUTOMA, 0) and core.track_beats(st, d, L.AUTOMA, 1)


def test_the_rulebook_stack_written_out_changes_nothing():
    for n in (2, 3, 4):
        board = board_with(brag_stack={n: list(range(n - 1, -1, -1))})
        assert changed(board, n)[0] == set()
        assert not pack_geo(board, starter(), n)[L.G_BRAG_STACK_SET]


def test_start_points_count_in_the_final_total():
    """A whole game: each seat's score is its sources plus its starting points (R12)."""
    lever = GameSetup(nplayers=3, board=board_with(start_points={3: [0, 5, 11]}))
    strat = StrategyLibrary().matrix(["greedy"] * 3)
    full = np.zeros((L.N_OWNERS, strat.shape[1]))
    full[:3] = strat
    log = np.zeros((1, L.LOG_WIDTH), np.int32)
    st, code, _ = engine.play_game(lever.geo, 3, full, np.uint64(7), log, True)
    assert code == 0
    for p, extra in enumerate([0, 5, 11]):
        src = int(st[L.S_SRC + p * L.N_SRC : L.S_SRC + (p + 1) * L.N_SRC].sum())
        assert int(st[L.S_SCORE + p]) == src + extra


@pytest.mark.parametrize("word,code", [("latest", 0), ("shared", 1), ("earliest", 2)])
def test_tie_break_per_count_reads_r13_at_that_count_only(word, code):
    """R13's reading at one player count: that count's packed reading is the word's, every other
    count keeps [rulings]'s (and the state a game starts from does not move)."""
    doc = copy.deepcopy(board_doc())
    doc["seats"]["tie_break"] = {"3": word}
    board = load_board(BOARD_PATH, doc)
    assert board.tie_break == 0  # [rulings] as decided
    for n in (2, 3, 4):
        geo = pack_geo(board, starter(), n)
        assert geo[L.G_TIE_BREAK] == (code if n == 3 else 0)
    assert changed(board, 3)[0] == set()


def test_tie_break_per_count_overrides_the_rulings_reading():
    """[rulings] tie_break reads R13 at every count; [seats] tie_break at one count wins there."""
    doc = copy.deepcopy(board_doc())
    doc["rulings"]["tie_break"] = "earliest"
    doc["seats"]["tie_break"] = {"2": "latest"}
    board = load_board(BOARD_PATH, doc)
    assert [int(pack_geo(board, starter(), n)[L.G_TIE_BREAK]) for n in (2, 3, 4)] == [0, 2, 2]


def test_tie_break_per_count_decides_who_wins_a_tie():
    """Whole games (R13): with "earliest" at 3 players only, a 3-player game's tie for the highest total
    goes to the earliest tied seat and a 4-player game's to the latest (the rulings' reading); the
    scenario override reaches the same board."""
    from simulator.seeds import game_seed
    from simulator.shuffle_swing.playout import play_many

    sc = load_scenario("ci", sets=('overrides.board.seats.tie_break.3="earliest"',))
    assert sc.board.seat_setup(3).tie_break == 2 and sc.board.seat_setup(4).tie_break == -1
    doc = copy.deepcopy(board_doc())
    doc["seats"]["tie_break"] = {"3": "earliest"}
    board = load_board(BOARD_PATH, doc)
    seeds = np.array([game_seed(777, i) for i in range(400)], dtype=np.uint64)
    for n, pick in ((3, min), (4, max)):
        states, bad = play_many(GameSetup(nplayers=n, board=board), StrategyLibrary().matrix(["greedy"] * n), seeds)
        assert len(bad) == 0
        tied = np.flatnonzero(states[:, L.S_TIED] > 1)
        assert len(tied) >= 3, "too few ties to test the reading"
        for i in tied:
            sc_ = states[i, L.S_SCORE : L.S_SCORE + n]
            assert states[i, L.S_WINNER] == pick(np.flatnonzero(sc_ == sc_.max()))


# --------------------------------------------------------------------------- overrides and mistakes


def test_scenario_override_sets_a_lever():
    sc = load_scenario("starter", sets=("overrides.board.seats.start_points.4=[2, 1, 0, 0]",))
    assert sc.board.seat_setup(4).start_points == (2, 1, 0, 0)
    assert sc.board.seat_setup(3).is_rulebook
    nested = load_scenario("starter", sets=('overrides.board.seats.extra_cats.3=[{black = 1}, {}, {}]',))
    assert nested.board.seat_setup(3).extra_cats[0] == (1, 0, 0)


BAD = [
    ({"start_points": {"4": [1, 2]}}, "seats.start_points.4", "4 players need 4 values, got 2"),
    ({"start_points": {"3": [0, -1, 0]}}, "seats.start_points.3[1]", "below the minimum 0"),
    ({"start_points": {"3": [0, 1001, 0]}}, "seats.start_points.3[1]", "above the maximum 1000"),
    ({"start_points": {"5": [0, 0, 0, 0, 0]}}, "seats.start_points.5", "unknown key '5'"),
    ({"start_points": [0, 0, 0]}, "seats.start_points", "expected a table"),
    ({"extra_cats": {"3": [{"purple": 1}, {}, {}]}}, "seats.extra_cats.3[0].purple", "unknown key"),
    ({"extra_cats": {"2": [{"black": 101}, {}]}}, "seats.extra_cats.2[0].black", "above the maximum 100"),
    ({"start_tokens": {"2": [{"black": 1}, {}]}}, "seats.start_tokens.2[0].black", "unknown key"),
    ({"start_tokens": {"2": [1, 0]}}, "seats.start_tokens.2[0]", "expected a table"),
    ({"expert_dice": {"4": [4, 0, 0, 0]}}, "seats.expert_dice.4[0]", "a seat has 3 dice"),
    ({"brag_stack": {"3": [0, 0, 1]}}, "seats.brag_stack.3", "each once"),
    ({"brag_stack": {"3": [0, 1, 3]}}, "seats.brag_stack.3[2]", "above the maximum 2"),
    ({"boost": {}}, "seats.boost", "unknown key 'boost'"),
    ({"tie_break": {"3": "first"}}, "seats.tie_break.3", "latest"),
    ({"tie_break": {"5": "shared"}}, "seats.tie_break.5", "unknown key '5'"),
    ({"tie_break": {"3": 1}}, "seats.tie_break.3", "expected"),
]


@pytest.mark.parametrize("seats,key,reason", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_seat_values_name_the_file_and_key(seats, key, reason):
    doc = copy.deepcopy(board_doc())
    doc["seats"].update(seats)
    with pytest.raises(DataError) as err:
        load_board(BOARD_PATH, doc)
    assert err.value.key == key and reason in err.value.reason, str(err.value)
    assert str(BOARD_PATH) in str(err.value)


CASES = [
    Case("short-list", ["run", "starter", "--set", "overrides.board.seats.start_points.4=[1, 2]", "--out", "{tmp}/r"],
         ["starter.toml", 'overrides."board.seats.start_points.4"', "seats.start_points.4", "4 players need 4 values"]),
    Case("bad-stack", ["run", "starter", "--set", "overrides.board.seats.brag_stack.3=[1, 1, 0]", "--out", "{tmp}/r"],
         ["seats.brag_stack.3", "each once"]),
    Case("bad-colour", ["run", "starter", "--set", 'overrides.board.seats.extra_cats.2=[{blue = 1}, {}]',
                        "--out", "{tmp}/r"], ["seats.extra_cats.2[0].blue", "unknown key"]),
    Case("bad-tie-word", ["run", "starter", "--set", 'overrides.board.seats.tie_break.4="first"', "--out", "{tmp}/r"],
         ["seats.tie_break.4", "latest", "shared", "earliest"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_lever_on_the_command_line(case, tmp_path, monkeypatch):
    check_case(case, tmp_path, monkeypatch)


# --------------------------------------------------------------------------- invariants with levers


@cache
def strat_rows():
    return StrategyLibrary().matrix(["random", "greedy"])


@hs.composite
def levers(draw):
    n = draw(hs.sampled_from([2, 3, 4]))
    small = hs.integers(0, 3)
    seats = {
        "start_points": [draw(hs.integers(0, 30)) for _ in range(n)],
        "extra_cats": [{c: draw(small) for c in L.COLOUR_NAMES} for _ in range(n)],
        "start_tokens": [{t: draw(small) for t in L.TOKEN_NAMES} for _ in range(n)],
        "expert_dice": [draw(hs.integers(0, 3)) for _ in range(n)],
        "brag_stack": draw(hs.permutations(list(range(n)))),
    }
    kinds = [draw(hs.sampled_from([0, 1])) for _ in range(n)]
    return n, seats, kinds, draw(hs.integers(0, 2**63 - 1))


@settings(max_examples=20, deadline=None)
@given(levers())
def test_games_with_random_levers_keep_every_invariant(case):
    n, seats, kinds, seed = case
    board = board_with(**{k: {n: v} for k, v in seats.items()})
    assert set(seats) == set(SEAT_KEYS)
    setup = GameSetup(nplayers=n, board=board)
    rows = strat_rows()
    full = np.zeros((L.N_OWNERS, rows.shape[1]))
    for p, k in enumerate(kinds):
        full[p] = rows[k]
    log = np.zeros((1, L.LOG_WIDTH), np.int32)
    st, code, turn = engine.play_game(setup.geo, n, full, np.uint64(seed), log, True)
    assert code == 0, f"{VIOLATIONS.get(int(code))} at turn {turn}"
    assert st[L.S_OVER] == 1 and 0 <= st[L.S_WINNER] < n


def test_the_narrated_final_table_shows_starting_points():
    from simulator.shuffle_swing.narrate import final_table
    from simulator.shuffle_swing.playout import play_one

    rows = StrategyLibrary().matrix(["greedy"] * 2)
    plain = play_one(GameSetup(nplayers=2), rows, 3)
    assert not any(x.startswith("starting points") for x in final_table(plain))
    rec = play_one(GameSetup(nplayers=2, board=board_with(start_points={2: [0, 9]})), rows, 3)
    line = next(x for x in final_table(rec) if x.startswith("starting points"))
    assert line.split()[-3:] == ["0", "9", "-"]  # the two seats, then Pri (never points)
