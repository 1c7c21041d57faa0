"""Instrument objectives on hand-built states: every scoring term, ranking and its tie order (R10),
Pri (R14) and the neutral (R15), completion flags and the end-of-turn resolution."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from simulator.shuffle_swing.kernel import objectives as ob
from simulator.shuffle_swing.layout import (
    AUTOMA,
    EV_SCORE,
    EV_SECTION,
    GRAY,
    MAX_SECTIONS,
    N_OWNERS,
    N_SRC,
    ORANGE,
    S_BRAG_POS,
    S_BRAG_STAMP,
    S_ORDER_DONE,
    S_SCORE,
    S_SEC_COMPLETER,
    S_SEC_STATE,
    S_SRC,
    SRC_OBJECTIVE,
)
from support import (
    big_log,
    empty_log,
    events,
    make_geo,
    make_state,
    mask_of,
    place,
    score_events,
    scores,
    set_brag,
    source_points,
)

PRI = NEUTRAL = AUTOMA


def build(st, geo, log, d, placements):
    """Place pieces as the engine would: after each inner piece, flag completed sections."""
    done = 0
    for p in placements:
        space, owner = p[0], p[1]
        outer = len(p) > 2 and p[2]
        place(st, d, space, owner, outer)
        if not outer:
            done += ob.mark_completions(st, geo, log, d, space, owner)
    return done


def sec_state(st, d, s):
    return int(st[S_SEC_STATE + d * MAX_SECTIONS + s])


def one_section(terms, n=4, extra=0, d=0, **kw):
    """Section 0 holds spaces 0..n-1; ``extra`` more spaces form section 1 (rank nothing)."""
    spaces = [(1, "orange", [0]) for _ in range(n)] + [(1, "gray", [1]) for _ in range(extra)]
    sections = [dict(terms=terms)]
    if extra:
        sections.append(dict(terms=[]))
    lines = [(i, i + 1) for i in range(n + extra - 1)]
    return make_geo(spaces=spaces, lines=lines, sections=sections, dept=d, **kw)


# --------------------------------------------------------------------------- toolkit sanity


def test_make_state_discs_stack_in_reverse_turn_order():
    st = make_state(2)
    stamps = [int(st[S_BRAG_STAMP + o]) for o in (0, 1, PRI)]
    assert stamps[2] < stamps[1] < stamps[0]  # Pri lowest (R14), then seat 1, seat 0 on top
    st3 = make_state(3)
    assert st3[S_BRAG_POS + NEUTRAL] == -1  # the neutral has no disc (R15)
    assert [int(st3[S_BRAG_POS + o]) for o in range(3)] == [0, 0, 0]
    assert st3[S_BRAG_POS + 3] == -1


def test_place_rejects_bad_pieces():
    geo = one_section([("rank", None, [1])], n=2)
    st = make_state(2, geo)
    with pytest.raises(ValueError):
        place(st, 0, 0, 0, outer=True)  # no inner piece to upgrade
    place(st, 0, 0, 0)
    with pytest.raises(ValueError):
        place(st, 0, 0, 1)


# --------------------------------------------------------------------------- counting and ranking


def test_count_scope_counts_inner_and_outer_in_scope_only():
    geo = one_section([("rank", None, [1])], n=3)
    st = make_state(2, geo)
    place(st, 0, 0, 0)
    place(st, 0, 0, 1, outer=True)  # another owner's upgrade on seat 0's piece
    place(st, 0, 1, 1)
    place(st, 0, 1, 1, outer=True)
    place(st, 0, 2, PRI)
    counts = np.zeros(N_OWNERS, np.int64)
    ob.count_scope(st, 0, mask_of([0, 1]), counts)
    assert list(counts) == [1, 3, 0, 0, 0]
    ob.count_scope(st, 0, mask_of([0, 1, 2]), counts)
    assert list(counts) == [1, 3, 0, 0, 1]


def rank(st, counts, d=0):
    order = np.full(N_OWNERS, -1, np.int64)
    n = ob.rank_owners(st, d, np.array(counts, np.int64), order)
    return list(order[:n])


def test_rank_only_owners_with_pieces_and_in_play():
    st = make_state(2)
    assert rank(st, [0, 3, 0, 0, 1]) == [1, PRI]
    assert rank(st, [0, 0, 0, 0, 0]) == []
    st4 = make_state(4)
    assert rank(st4, [1, 0, 2, 5, 9]) == [3, 2, 0]  # no automa in a four-player game


def test_rank_tie_goes_to_higher_track_space():
    st = make_state(3)
    set_brag(st, 0, 2, 3)
    set_brag(st, 0, 0, 1)
    assert rank(st, [2, 2, 2, 0, 0]) == [2, 0, 1]
    # the tie order is per instrument: on instrument 1 nobody moved
    assert rank(st, [2, 2, 2, 0, 0], d=1) == [2, 1, 0]


def test_rank_tie_on_same_space_goes_to_lower_disc():
    st = make_state(4)
    # at setup seat 3 is lowest in the stack, seat 0 on top
    assert rank(st, [1, 1, 1, 1, 0]) == [3, 2, 1, 0]
    set_brag(st, 0, 1, 2, stamp=50)
    set_brag(st, 0, 0, 2, stamp=40)  # reached space 2 first: beneath seat 1
    assert rank(st, [1, 1, 1, 1, 0]) == [0, 1, 3, 2]
    set_brag(st, 0, 3, 2)  # arrives now, on top of both
    assert rank(st, [1, 1, 1, 1, 0]) == [0, 1, 3, 2]
    assert rank(st, [1, 1, 1, 2, 0]) == [3, 0, 1, 2]  # more pieces beats any track position


def test_rank_neutral_wins_every_tie_in_three_players():
    # R15: even against a seat far up the track
    st = make_state(3)
    set_brag(st, 0, 1, 7)
    assert rank(st, [0, 2, 0, 0, 2]) == [NEUTRAL, 1]
    assert rank(st, [0, 3, 0, 0, 2]) == [1, NEUTRAL]


def test_rank_pri_uses_her_disc_in_two_players():
    # R14: Pri has a disc and breaks ties by it like a player (lowest at setup)
    st = make_state(2)
    assert rank(st, [1, 1, 0, 0, 1]) == [PRI, 1, 0]
    set_brag(st, 0, 0, 1)
    assert rank(st, [1, 1, 0, 0, 1]) == [0, PRI, 1]


@settings(max_examples=60, deadline=None)
@given(
    nplayers=hs.integers(2, 4),
    counts=hs.lists(hs.integers(0, 4), min_size=N_OWNERS, max_size=N_OWNERS),
    pos=hs.lists(hs.integers(0, 3), min_size=N_OWNERS, max_size=N_OWNERS),
    stamps=hs.permutations(range(1, N_OWNERS + 1)),
)
def test_rank_matches_a_reference_sort(nplayers, counts, pos, stamps):
    st = make_state(nplayers)
    present = list(range(nplayers)) + ([AUTOMA] if nplayers in (2, 3) else [])
    for o in present:
        if not (nplayers == 3 and o == NEUTRAL):
            set_brag(st, 0, o, pos[o], stamp=stamps[o])

    def key(o):
        neutral_first = 0 if (nplayers == 3 and o == NEUTRAL) else 1
        return (-counts[o], neutral_first, -pos[o], stamps[o])

    expected = sorted((o for o in present if counts[o] > 0), key=key)
    assert rank(st, counts) == expected


# --------------------------------------------------------------------------- completion flags


def test_mark_completions_needs_an_inner_piece_on_every_space_and_fires_once():
    geo = make_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [0, 1]), (2, "gray", [1])],
        sections=[dict(terms=[("rank", None, [1])]), dict(terms=[("rank", None, [1])])],
    )
    st = make_state(2, geo)
    log = big_log()
    assert build(st, geo, log, 0, [(0, 0), (0, 0, True)]) == 0  # outer pieces do not build
    assert sec_state(st, 0, 0) == 0
    assert build(st, geo, log, 0, [(1, 1)]) == 1
    assert (sec_state(st, 0, 0), sec_state(st, 0, 1)) == (1, 0)
    assert st[S_SEC_COMPLETER + 0] == 1
    # calling again on a complete section changes nothing
    assert ob.mark_completions(st, geo, log, 0, 1, 0) == 0
    assert st[S_SEC_COMPLETER + 0] == 1
    assert build(st, geo, log, 0, [(1, 1, True), (2, PRI)]) == 1
    assert st[S_SEC_COMPLETER + 1] == PRI
    assert [e[3:6] for e in events(log, EV_SECTION)] == [[0, 0, 1], [0, 1, PRI]]
    assert ob.resolve_objectives(st, geo, log) == 2
    assert ob.mark_completions(st, geo, log, 0, 2, 0) == 0  # scored sections stay scored
    assert (sec_state(st, 0, 0), sec_state(st, 0, 1)) == (2, 2)


def test_one_piece_can_complete_two_sections():
    geo = make_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [0, 1]), (2, "gray", [1])],
        sections=[dict(terms=[("rank", None, [1])]), dict(terms=[("rank", None, [1])])],
    )
    st = make_state(2, geo)
    log = empty_log()
    assert build(st, geo, log, 0, [(0, 0), (2, 0), (1, 1)]) == 2
    assert st[S_SEC_COMPLETER + 0] == st[S_SEC_COMPLETER + 1] == 1
    assert ob.section_open_spaces(st, geo, 0, 0) == 0


def test_section_open_spaces():
    geo = one_section([("rank", None, [1])], n=4)
    st = make_state(2, geo)
    assert ob.section_open_spaces(st, geo, 0, 0) == 4
    place(st, 0, 2, 0)
    place(st, 0, 2, 0, outer=True)
    assert ob.section_open_spaces(st, geo, 0, 0) == 3


# --------------------------------------------------------------------------- rank awards


def test_rank_awards_and_score_sources():
    # Horns-style awards on the gray slot: points go to the gray objective source and the total
    d = GRAY
    geo = one_section([("rank", None, [8, 6, 2])], n=6, d=d)
    st = make_state(3, geo)
    log = big_log()
    build(st, geo, log, d, [(0, 2), (1, 2), (2, 2), (3, 0), (4, 0), (5, 1)])
    assert ob.resolve_objectives(st, geo, log) == 1
    assert scores(st) == [6, 2, 8, 0]
    assert source_points(st, 2, SRC_OBJECTIVE + d) == 8
    assert st[S_SRC + 2 * N_SRC + SRC_OBJECTIVE] == 0  # nothing on the black objective source
    src = SRC_OBJECTIVE + d
    assert sorted(score_events(log)) == [(0, 6, src, d, 0), (1, 2, src, d, 0), (2, 8, src, d, 0)]


def test_pri_occupies_a_rank_without_scoring():
    # R14: Pri first with most pieces; the award for first is lost, the seats take 2nd and 3rd
    geo = one_section([("rank", None, [4, 2, 1])], n=6)
    st = make_state(2, geo)
    log = big_log()
    build(st, geo, log, 0, [(0, PRI), (1, PRI), (2, PRI), (3, 1), (4, 1), (5, 0)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [1, 2, 0, 0]
    assert st[S_SCORE + PRI] == 0
    assert all(e[0] != PRI for e in score_events(log))


def test_neutral_wins_a_tie_for_first():
    # R15: neutral and seat 0 tie on two pieces; the neutral takes first, seat 0 second
    geo = one_section([("rank", None, [4, 2, 1])], n=5)
    st = make_state(3, geo)
    set_brag(st, 0, 0, 5)
    log = empty_log()
    build(st, geo, log, 0, [(0, NEUTRAL), (1, NEUTRAL), (2, 0), (3, 0), (4, 1)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [2, 1, 0, 0]


def test_only_owners_with_pieces_rank():
    # seat 2 has no piece in the section: it takes no rank, so no third award is paid
    geo = one_section([("rank", None, [4, 2, 1])], n=3, extra=2)
    st = make_state(3, geo)
    log = empty_log()
    build(st, geo, log, 0, [(3, 2), (4, 2), (0, 0), (1, 0), (2, 1)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [4, 2, 0, 0]


def test_floor_awards_precomputed():
    # Organ / Clarinet style: number 1 gives [1, max(1-2,0), max(1-3,0)] = [1, 0, 0]
    geo = one_section([("rank", None, [1, 0, 0])], n=3)
    st = make_state(3, geo)
    log = big_log()
    build(st, geo, log, 0, [(0, 1), (1, 1), (2, 0)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [0, 1, 0, 0]
    assert score_events(log) == [(1, 1, SRC_OBJECTIVE, 0, 0)]  # no zero-point events


def test_violin_rank_plus_per_piece():
    geo = one_section([("rank", None, [2]), ("per_piece", None, [], [], (1,))], n=4)
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0), (1, 0), (2, 1), (3, PRI), (0, 1, True), (1, 1, True)])
    ob.resolve_objectives(st, geo, log)
    # seat 1: 3 pieces, most -> 2 + 3; seat 0: 2 pieces -> 2; Pri's piece pays nobody
    assert scores(st) == [2, 5, 0, 0]


def test_bass_strings_rank_the_whole_instrument():
    geo = make_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [0]), (2, "gray", [1]), (2, "gray", [1])],
        sections=[dict(terms=[("rank", None, [4, 2, 1])]), dict(terms=[("rank", "all", [9, 5, 3])])],
    )
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0), (1, 0)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [4, 0, 0, 0]
    build(st, geo, log, 0, [(2, 1), (3, PRI)])
    ob.resolve_objectives(st, geo, log)
    # whole instrument: seat 0 two pieces (9); seat 1 and Pri one each, Pri lower disc wins (5 lost)
    assert scores(st) == [13, 3, 0, 0]


# --------------------------------------------------------------------------- Guitar: rank_by_order


def guitar_geo():
    terms = [("rank_by_order", None, [10, 6, 3], [7, 4, 2])]
    return make_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [0]), (1, "gray", [1]), (1, "gray", [1])],
        sections=[dict(terms=terms), dict(terms=terms)],
    )


def test_guitar_first_section_takes_the_first_list():
    geo = guitar_geo()
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(2, 0), (3, 0), (3, 0, True), (2, 1, True)])  # data-order second guitar
    assert sec_state(st, 0, 1) == 1
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [10, 6, 0, 0]
    assert st[S_ORDER_DONE] == 1
    build(st, geo, log, 0, [(0, 1), (1, 1)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [10, 13, 0, 0]
    assert st[S_ORDER_DONE] == 2


def test_guitar_two_sections_in_one_turn_take_the_lists_in_data_order():
    geo = guitar_geo()
    st = make_state(2, geo)
    log = empty_log()
    # section 1 completes first during the turn, but section 0 comes first in data order (R10)
    build(st, geo, log, 0, [(2, 0), (3, 0), (0, 1), (1, 1)])
    assert ob.resolve_objectives(st, geo, log) == 2
    assert scores(st) == [7, 10, 0, 0]


def test_rank_by_order_advances_once_per_section():
    both = [("rank_by_order", None, [10], [1]), ("rank_by_order", "all", [10], [1])]
    geo = make_geo(
        spaces=[(1, "orange", [0]), (1, "gray", [1])],
        sections=[dict(terms=both), dict(terms=both)],
    )
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [20, 0, 0, 0]  # both terms of the first section use the first list
    assert st[S_ORDER_DONE] == 1
    build(st, geo, log, 0, [(1, 1)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [20, 2, 0, 0]  # section: seat 1 first (1); all: tie, seat 1 lower disc (1)
    assert st[S_ORDER_DONE] == 2


# --------------------------------------------------------------------------- Banjo: union scope


def test_banjo_scores_the_whole_banjo_each_time_a_half_is_built():
    banjo = dict(sections=[0, 1])
    terms = [("rank", banjo, [5, 3])]
    geo = make_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [0]),  # banjo A: frame
                (2, "gray", [1]), (2, "gray", [1]),  # banjo A: strings
                (1, "gray", [2])],  # another section
        sections=[dict(terms=terms), dict(terms=terms), dict(terms=[("rank", None, [5, 3])])],
    )
    st = make_state(3, geo)
    log = empty_log()
    build(st, geo, log, 0, [(2, 1), (0, 0), (1, 0)])  # frame built; strings half done
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [5, 3, 0, 0]  # seat 0 two pieces on the banjo, seat 1 one
    build(st, geo, log, 0, [(3, 1), (2, 1, True)])
    assert sec_state(st, 0, 1) == 1
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [8, 8, 0, 0]  # strings built: whole banjo again, seat 1 now three pieces


# --------------------------------------------------------------------------- Piano: completer


def piano_geo():
    return one_section([("completer", None, [], [], (1, 1, 1, 2))], n=7)


def test_piano_completer_full_rate_others_half():
    geo = piano_geo()
    st = make_state(3, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 1), (1, 1), (2, 1), (3, 2), (4, NEUTRAL), (5, 0), (6, 0)])
    assert st[S_SEC_COMPLETER] == 0
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [2, 1, 0, 0]  # completer 2 pieces -> 2; seat 1 3 // 2; seat 2 1 // 2


def test_piano_completed_by_pri_pays_only_the_others():
    # R10 / R14: nobody takes completer points, the others still take half rate
    geo = piano_geo()
    st = make_state(2, geo)
    log = big_log()
    build(st, geo, log, 0, [(0, 1), (1, 1), (2, 1), (3, 1), (4, 0), (5, 0), (6, PRI)])
    assert st[S_SEC_COMPLETER] == PRI
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [1, 2, 0, 0]
    assert st[S_SCORE + PRI] == 0


def test_piano_upgrades_count_for_the_completer():
    geo = piano_geo()
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0), (0, 0, True), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 0)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [3, 2, 0, 0]


# --------------------------------------------------------------------------- Vibes and Harp


def row_of_sections(terms_of, sizes=(2, 2, 2, 2)):
    """Sections 0..k-1 side by side, each adjacent to its neighbours."""
    spaces, lines = [], []
    for s, size in enumerate(sizes):
        for _ in range(size):
            spaces.append((1, "orange", [s]))
    for i in range(len(spaces) - 1):
        lines.append((i, i + 1))
    k = len(sizes)
    sections = []
    for s in range(k):
        adj = [a for a in (s - 1, s + 1) if 0 <= a < k]
        sections.append(dict(terms=terms_of(s), adjacent=adj))
    return make_geo(spaces=spaces, lines=lines, sections=sections)


def test_vibes_presence_in_every_adjacent_section():
    geo = row_of_sections(lambda s: [("rank", None, [3, 1]), ("adjacent_presence", None, [], [], (2,))],
                          sizes=(2, 2, 2))
    st = make_state(3, geo)
    log = empty_log()
    # section 0: spaces 0-1, section 1: 2-3, section 2: 4-5
    build(st, geo, log, 0, [(0, 0), (4, 0), (1, 1), (5, 2)])
    build(st, geo, log, 0, [(2, 1), (3, 1)])  # completes section 1 (0 and 2 were already complete)
    flagged = [sec_state(st, 0, s) for s in range(3)]
    assert flagged == [1, 1, 1]
    st[S_SEC_STATE + 0] = 2  # score only section 1 here
    st[S_SEC_STATE + 2] = 2
    ob.resolve_objectives(st, geo, log)
    # rank: seat 1 first (3). presence: seat 0 in both 0 and 2 (no piece in 1 needed) -> 2;
    # seat 1 only in 0, seat 2 only in 2 -> nothing
    assert scores(st) == [2, 3, 0, 0]


def test_vibes_edge_section_needs_its_single_neighbour():
    # a section with one adjacent section only asks for that one; with none, nothing is paid
    geo = make_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [1]), (1, "orange", [2])],
        sections=[dict(terms=[("adjacent_presence", None, [], [], (2,))], adjacent=[1]),
                  dict(terms=[]),
                  dict(terms=[("adjacent_presence", None, [], [], (2,))])],
    )
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(1, 1), (0, 0), (2, 0)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [0, 2, 0, 0]


def test_harp_each_piece_in_adjacent_sections_scores_once():
    # sections 0 and 2 share space 1 (a crossing); both are adjacent to section 1
    geo = make_geo(
        spaces=[(1, "orange", [0]), (1, "orange", [0, 2]), (1, "gray", [1]), (1, "gray", [1]),
                (1, "gray", [2]), (1, "gray", [3])],
        sections=[dict(terms=[]),
                  dict(terms=[("rank", None, [1]), ("adjacent_per_piece", None, [], [], (1,))],
                       adjacent=[0, 2]),
                  dict(terms=[]), dict(terms=[])],
    )
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0), (1, 1), (1, 0, True), (4, PRI), (5, 1)])
    for s in (0, 2, 3):
        st[S_SEC_STATE + s] = 2  # only section 1 is of interest
    build(st, geo, log, 0, [(2, 1), (3, 0)])
    ob.resolve_objectives(st, geo, log)
    # section 1 rank: tie 1-1, seat 1 lower disc -> 1 point. adjacent pieces: seat 0 spaces 0 and
    # the upgrade on 1 -> 2; seat 1 the inner piece on 1 -> 1 (space 1 counted once, space 5 not
    # adjacent); Pri's piece on 4 pays nobody
    assert scores(st) == [2, 2, 0, 0]


# --------------------------------------------------------------------------- Drums


def drums_geo():
    return one_section([("majority_takes_all", None)], n=6)


def test_drums_top_takes_every_piece():
    geo = drums_geo()
    st = make_state(3, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0), (1, 0), (2, 0), (3, 1), (4, 2), (5, NEUTRAL), (3, 1, True)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [7, 2, 1, 0]


def test_drums_tie_for_top_decided_by_track():
    geo = drums_geo()
    st = make_state(2, geo)
    set_brag(st, 0, 0, 2)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0), (1, 0), (2, 1), (3, 1), (4, PRI), (5, 1)])
    build(st, geo, log, 0, [(0, 0, True)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [7, 3, 0, 0]  # 3-3 tie, seat 0 higher on the track takes all 7


def test_drums_pri_on_top_takes_the_pot_away():
    geo = drums_geo()
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, PRI), (1, PRI), (2, PRI), (3, 1), (4, 1), (5, 0)])
    ob.resolve_objectives(st, geo, log)
    assert scores(st) == [1, 2, 0, 0]


# --------------------------------------------------------------------------- Trombone


def trombone_geo():
    # a path 0-1-2-3-4-5 plus a branch 2-6; section 0 = {0, 1}, section 1 = {2..6}
    spaces = [(1, "orange", [0]), (1, "orange", [0])] + [(1, "gray", [1]) for _ in range(5)]
    lines = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (2, 6)]
    sections = [dict(terms=[("rank", None, [3, 1]), ("longest_group", None, [], [], (1,))]),
                dict(terms=[])]
    return make_geo(spaces=spaces, lines=lines, sections=sections)


def test_trombone_group_counted_in_spaces_through_the_section():
    geo = trombone_geo()
    st = make_state(2, geo)
    log = empty_log()
    st[S_SEC_STATE + 1] = 2  # section 1 not scored here
    build(st, geo, log, 0, [(2, 0), (6, 0), (6, 0, True), (4, 1), (5, 1), (3, 1), (3, 0, True)])
    build(st, geo, log, 0, [(1, 0), (1, 0, True), (0, 1)])
    ob.resolve_objectives(st, geo, log)
    # seat 0: pieces on 1, 2, 3 (upgrade on seat 1's piece), 6 -> group {1, 2, 3, 6}: 4 spaces
    # (two pieces on 1 and on 6 count once); rank in section 0: seat 0 two pieces -> 3
    # seat 1: group {3, 4, 5} does not reach section 0; {0} does -> 1; rank second -> 1
    assert scores(st) == [7, 2, 0, 0]


def test_longest_group_takes_the_largest_touching_group():
    geo = trombone_geo()
    st = make_state(2, geo)
    place(st, 0, 0, 1)
    place(st, 0, 1, 0)
    place(st, 0, 2, 1)
    place(st, 0, 3, 1)
    place(st, 0, 4, 1)
    s0 = mask_of([0, 1])
    assert ob.longest_group(st, geo, 0, 1, s0) == 1  # {0} touches; {2,3,4} does not
    assert ob.longest_group(st, geo, 0, 1, mask_of([4])) == 3
    assert ob.longest_group(st, geo, 0, 0, s0) == 1
    assert ob.longest_group(st, geo, 0, 3, s0) == 0


# --------------------------------------------------------------------------- resolution


def test_resolve_goes_by_instrument_then_data_order_and_scores_once():
    sec = dict(terms=[("per_piece", None, [], [], (1,))])
    other = dict(spaces=[(1, "black", [0]), (1, "black", [1])], sections=[sec, sec])
    geo = make_geo(spaces=[(1, "orange", [0])], sections=[sec], dept=0, others={ORANGE: other})
    st = make_state(2, geo)
    log = big_log()
    build(st, geo, log, ORANGE, [(1, 1), (0, 0)])
    build(st, geo, log, 0, [(0, 1)])
    assert ob.resolve_objectives(st, geo, log) == 3
    where = [(e[3], e[5], e[6], e[7]) for e in events(log, EV_SCORE)]
    black, orange = SRC_OBJECTIVE, SRC_OBJECTIVE + ORANGE
    assert where == [(1, black, 0, 0), (0, orange, ORANGE, 0), (1, orange, ORANGE, 1)]
    assert ob.resolve_objectives(st, geo, log) == 0
    assert scores(st) == [1, 2, 0, 0]
    assert source_points(st, 1, SRC_OBJECTIVE) == 1 and source_points(st, 1, SRC_OBJECTIVE + 1) == 1


def test_preview_matches_the_payment_and_leaves_the_state_alone():
    geo = make_geo(
        spaces=[(1, "orange", [0]) for _ in range(4)],
        lines=[(0, 1), (1, 2), (2, 3)],
        sections=[dict(terms=[("rank_by_order", None, [10, 6], [7, 4]),
                              ("completer", None, [], [], (1, 1, 1, 2)),
                              ("longest_group", None, [], [], (2,))])],
    )
    st = make_state(2, geo)
    log = empty_log()
    build(st, geo, log, 0, [(0, 0), (1, 0), (3, PRI), (2, 1)])
    assert st[S_SEC_COMPLETER] == 1
    before = st.copy()
    pts = np.zeros(N_OWNERS, np.int64)
    ob.preview_section(st, geo, 0, 0, 1, pts)
    assert np.array_equal(st, before)
    # seat 0: rank 10 + half of 2 pieces (1) + group of 2 spaces * 2 (4) -> 15. Seat 1 and Pri tie
    # on one piece, Pri's lower disc takes second (R14), so seat 1 has no rank award: completer
    # 1 + group 1 * 2 -> 3
    assert list(pts[:2]) == [15, 3]
    ob.resolve_objectives(st, geo, log)
    assert scores(st)[:2] == [15, 3]
