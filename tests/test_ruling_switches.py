"""Ruling switches of board.toml ``[rulings]`` (R10, R12, R14) and the rule counters the reports read.

Default geo (0) is the ruling as decided; 1 is the other reading. The counters are appended
per-seat counters (``ST_*``): cheese jumps, upgrades on others' pieces, which side limits an end
award, penalty points taken (for Pri: absorbed).
"""

import pytest
from support import big_log, make_geo, make_state, place, scores, set_brag, source_points

from scenarios.load import load_scenario
from simulator.errors import DataError
from simulator.shuffle_swing.board import load_board
from simulator.shuffle_swing.pack import pack_geo
from simulator.shuffle_swing.library import InstrumentLibrary, STARTER
from simulator.shuffle_swing.kernel import objectives as ob
from simulator.shuffle_swing.kernel import rules
from simulator.shuffle_swing.layout import (
    AUTOMA,
    BLACK,
    G_PENALTY_LAST,
    G_PRI_PIECE_CREDIT,
    N_STAT,
    S_CUR,
    S_INSPECTOR,
    S_SCORE,
    S_SEC_COMPLETER,
    S_STAT,
    SRC_BRAG,
    SRC_INSPECTOR,
    SRC_PENALTY,
    ST_AWARD_BY_DISC,
    ST_AWARD_BY_PIECES,
    ST_CHEESE_JUMPS,
    ST_PENALTY_TAKEN,
    ST_UPGRADES_ON_OTHERS,
)

PRI = AUTOMA


def stat(st, owner, which):
    return int(st[S_STAT + owner * N_STAT + which])


def penalty_geo(switch=0):
    geo = make_geo(spaces=[(1, "orange", []) for _ in range(3)])
    geo[G_PENALTY_LAST] = switch
    return geo


# --------------------------------------------------------------------------- R12/R14 penalty switch


def test_pri_alone_last_absorbs_the_penalty_by_default_and_the_counter_says_so():
    """R12/R14: Pri alone in last place; nobody pays, Pri's counter holds the 6 points absorbed."""
    geo = penalty_geo(0)
    st = make_state(2, geo)
    set_brag(st, BLACK, 0, 1)
    set_brag(st, BLACK, 1, 2)
    rules.final_scoring(st, geo, big_log())
    assert scores(st)[:2] == [0, 0]
    assert stat(st, PRI, ST_PENALTY_TAKEN) == 6 and stat(st, 0, ST_PENALTY_TAKEN) == 0


def test_switch_players_pay_leaves_pri_out_of_last_place():
    """Other reading: Pri's disc is ignored, so the lower of the two players pays all 6."""
    geo = penalty_geo(1)
    st = make_state(2, geo)
    set_brag(st, BLACK, 0, 1)
    set_brag(st, BLACK, 1, 2)
    rules.final_scoring(st, geo, big_log())
    assert [source_points(st, o, SRC_PENALTY + BLACK) for o in range(2)] == [-6, 0]
    assert stat(st, 0, ST_PENALTY_TAKEN) == 6 and stat(st, PRI, ST_PENALTY_TAKEN) == 0


def test_switch_players_pay_a_tie_with_pri_is_no_longer_shared():
    geo0, geo1 = penalty_geo(0), penalty_geo(1)
    out = []
    for geo in (geo0, geo1):
        st = make_state(2, geo)
        set_brag(st, BLACK, 1, 1)  # seat 0 and Pri on space 0
        rules.final_scoring(st, geo, big_log())
        out.append((source_points(st, 0, SRC_PENALTY + BLACK), stat(st, PRI, ST_PENALTY_TAKEN)))
    assert out == [(-3, 3), (-6, 0)]


def test_penalty_switch_changes_nothing_with_three_or_four_players():
    for n in (3, 4):
        res = []
        for sw in (0, 1):
            geo = penalty_geo(sw)
            st = make_state(n, geo)
            set_brag(st, BLACK, 0, 2)
            rules.final_scoring(st, geo, big_log())
            res.append(scores(st)[:n])
        assert res[0] == res[1]


# --------------------------------------------------------------------------- R10/R14 Pri piece credit


def test_pri_piece_on_the_inspector_scores_nobody_unless_the_placer_is_credited():
    """R6/R14: Pri scores nothing for a piece on the inspector's space; with the switch the active
    player who placed it scores the space's number."""
    for switch, expected in ((0, [0, 0]), (1, [0, 3])):
        geo = make_geo(spaces=[(3, "gray", []), (2, "gray", [])])
        geo[G_PRI_PIECE_CREDIT] = switch
        st = make_state(2, geo)
        st[S_CUR] = 1
        st[S_INSPECTOR + BLACK] = 0
        rules.place_pri_piece(st, geo, big_log(), BLACK, 0, 0)
        assert scores(st)[:2] == expected and source_points(st, 1, SRC_INSPECTOR) == expected[1]
        assert st[S_SCORE + PRI] == 0


def test_pri_piece_completing_a_piano_region_credits_the_placer_with_the_switch():
    """R10/R14: the completer of a Piano region finished by a Pri piece is Pri (scores nothing) or,
    with the switch, the active player, who then takes the completer's full rate."""
    for switch in (0, 1):
        geo = make_geo(spaces=[(1, "orange", [0]) for _ in range(4)],
                       sections=[dict(terms=[("completer", None, [], [], (1, 1, 1, 2))])])
        geo[G_PRI_PIECE_CREDIT] = switch
        st = make_state(2, geo)
        st[S_CUR] = 0
        log = big_log()
        for s, o in ((0, 0), (1, 0), (2, 1)):
            place(st, BLACK, s, o)
            ob.mark_completions(st, geo, log, BLACK, s, o)
        rules.place_pri_piece(st, geo, log, BLACK, 3, 0)
        assert st[S_SEC_COMPLETER] == (PRI if switch == 0 else 0)
        ob.resolve_objectives(st, geo, log)
        # Seat 0 has 2 pieces: half rate 1 as a non-completer, full rate 2 as the completer.
        assert scores(st)[0] == (1 if switch == 0 else 2)


def test_pri_piece_credit_only_in_two_player_games():
    geo = make_geo(spaces=[(3, "gray", []), (2, "gray", [])])
    geo[G_PRI_PIECE_CREDIT] = 1
    st = make_state(3, geo)
    st[S_CUR] = 1
    st[S_INSPECTOR + BLACK] = 0
    rules.place_piece(st, geo, big_log(), AUTOMA, BLACK, 0, 0)  # the 3-player neutral
    assert scores(st)[:3] == [0, 0, 0]


# --------------------------------------------------------------------------- counters


def test_cheese_jump_and_upgrade_on_others_are_counted():
    geo = make_geo(spaces=[(1, "gray", []), (2, "gray", [])])
    st = make_state(2, geo)
    log = big_log()
    rules.inspector_enter(st, geo, log, 0, BLACK, 0, 1)
    rules.inspector_enter(st, geo, log, 0, BLACK, 1, 0)
    assert stat(st, 0, ST_CHEESE_JUMPS) == 1
    place(st, BLACK, 0, 1)
    rules.record_placement(st, log, 0, BLACK, 0, 1, 1, 1)  # seat 0 upgrades seat 1's piece
    place(st, BLACK, 1, 0)
    rules.record_placement(st, log, 0, BLACK, 1, 1, 1, 0)  # its own piece
    assert stat(st, 0, ST_UPGRADES_ON_OTHERS) == 1


def test_end_award_limit_counters():
    """R12: min(disc, pieces): seat 0's disc is below what its pieces allow (disc limits), seat 1's
    pieces allow less than its disc (pieces limit), seat 2 has both equal (neither counter)."""
    geo = make_geo(spaces=[(1, "orange", []) for _ in range(6)])
    st = make_state(3, geo)
    for s in range(4):
        place(st, BLACK, s, 0)  # 4 pieces -> space 3
    place(st, BLACK, 4, 1)  # 1 piece -> space 1
    place(st, BLACK, 5, 2)  # 1 piece -> space 1
    set_brag(st, BLACK, 0, 1)
    set_brag(st, BLACK, 1, 5)
    set_brag(st, BLACK, 2, 1)
    rules.final_scoring(st, geo, big_log())
    assert [source_points(st, o, SRC_BRAG + BLACK) for o in range(3)] == [2, 2, 2]
    assert [stat(st, o, ST_AWARD_BY_DISC) for o in range(3)] == [1, 0, 0]
    assert [stat(st, o, ST_AWARD_BY_PIECES) for o in range(3)] == [0, 1, 0]


# --------------------------------------------------------------------------- data and scenarios


def test_board_rulings_default_to_the_rulings_and_pack_into_geo():
    board = load_board()
    assert (board.penalty_last, board.pri_piece_credit) == (0, 0)
    lib = InstrumentLibrary()
    geo = pack_geo(board, [lib.get(n) for n in STARTER], 2)
    assert geo[G_PENALTY_LAST] == 0 and geo[G_PRI_PIECE_CREDIT] == 0


def test_scenario_override_switches_a_ruling():
    sc = load_scenario("rulings")
    assert sc.players == (2,) and sc.board.penalty_last == 0 and sc.board.pri_piece_credit == 0
    changed = load_scenario("starter", sets=('overrides.board.rulings.pri_piece_credit="placer"',))
    assert changed.board.pri_piece_credit == 1 and changed.board.penalty_last == 0


def test_bad_ruling_value_names_the_key():
    with pytest.raises(DataError) as err:
        load_scenario("starter", sets=('overrides.board.rulings.pri_piece_credit="nobody"',))
    assert "board.rulings.pri_piece_credit" in str(err.value) and "nobody" in str(err.value)


def test_swap_cells_share_deal_seeds_and_single_set_cells_keep_theirs():
    """Instruments are compared on common deals: every set of a swaps scenario at one player count
    and lineup plays the same deal seeds; a one-set scenario keeps the plain cell key."""
    from simulator.seeds import deal_seeds

    sc = load_scenario("expansion")
    assert len(sc.cells) == 10 and all(c.paired for c in sc.cells)
    seeds = {tuple(deal_seeds(sc.seed, c.deal_key, range(5)).tolist()) for c in sc.cells}
    assert len(seeds) == 1
    one = load_scenario("starter")
    assert not any(c.paired for c in one.cells)
    assert all(c.deal_key == c.key for c in one.cells)
