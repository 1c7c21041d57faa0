"""The packaged board and instrument files: they load, honour the instrument appendix and the
reconstruction constraints of DECISIONS.md, and pack into the kernel's geo layout faithfully."""

import shutil

import numpy as np
import pytest

from simulator.shuffle_swing import layout as L
from simulator.errors import DataError
from simulator.shuffle_swing.library import INSTRUMENT_DIR, STARTER, InstrumentLibrary
from simulator.shuffle_swing.instruments import Instrument, load_instrument
from simulator.shuffle_swing.board import load_board
from simulator.shuffle_swing.pack import pack_geo, unpack_geo


@pytest.fixture(scope="module")
def board():
    return load_board()


@pytest.fixture(scope="module")
def lib(board):
    return InstrumentLibrary(board=board)


# name -> (department, expansion, {section: [(rule, awards, later, params, scope)]})
# scope: "section", "instrument" or a tuple of section ids.
R = "rank"


def _same(secs, terms):
    return {s: list(terms) for s in secs}


APPENDIX = {
    "Bass": ("black", False, {
        "left": [(R, (4, 2, 1), (), (0, 0, 0, 0), "section")],
        "right": [(R, (4, 2, 1), (), (0, 0, 0, 0), "section")],
        "strings": [(R, (9, 5, 3), (), (0, 0, 0, 0), "instrument")],
    }),
    "Violin": ("black", False, _same(
        ("bow", "left", "right", "strings"),
        [(R, (2,), (), (0, 0, 0, 0), "section"), ("per_piece", (), (), (1, 0, 0, 0), "section")],
    )),
    "Guitar": ("black", True, _same(
        ("acoustic", "electric"), [("rank_by_order", (10, 6, 3), (7, 4, 2), (0, 0, 0, 0), "section")]
    )),
    "Banjo": ("black", True, {
        "frame_a": [(R, (5, 3), (), (0, 0, 0, 0), ("frame_a", "strings_a"))],
        "strings_a": [(R, (5, 3), (), (0, 0, 0, 0), ("frame_a", "strings_a"))],
        "frame_b": [(R, (5, 3), (), (0, 0, 0, 0), ("frame_b", "strings_b"))],
        "strings_b": [(R, (5, 3), (), (0, 0, 0, 0), ("frame_b", "strings_b"))],
    }),
    "Piano": ("orange", False, _same(
        ("r1", "r2", "r3", "r4", "r5"), [("completer", (), (), (1, 1, 1, 2), "section")]
    )),
    "Vibes": ("orange", False, _same(
        ("bar1", "bar2", "bar3", "bar4", "bar5"),
        [(R, (3, 1), (), (0, 0, 0, 0), "section"), ("adjacent_presence", (), (), (2, 0, 0, 0), "section")],
    )),
    "Organ": ("orange", True, None),  # number-based, checked separately
    "Harp": ("orange", True, _same(
        ("s1", "s2", "s3", "s4", "s5", "s6"),
        [(R, (1,), (), (0, 0, 0, 0), "section"), ("adjacent_per_piece", (), (), (1, 0, 0, 0), "section")],
    )),
    "Horns": ("gray", False, _same(("trumpet", "saxophone"), [(R, (8, 6, 2), (), (0, 0, 0, 0), "section")])),
    "Drums": ("gray", False, _same(
        ("ride", "kick", "snare", "hihat"), [("majority_takes_all", (), (), (0, 0, 0, 0), "section")]
    )),
    "Trombone": ("gray", True, _same(
        ("slide", "bell", "body"),
        [(R, (3, 1), (), (0, 0, 0, 0), "section"), ("longest_group", (), (), (1, 0, 0, 0), "section")],
    )),
    "Clarinet": ("gray", True, None),
}
SECTION_COUNTS = {
    "Bass": 3, "Violin": 4, "Guitar": 2, "Banjo": 4, "Piano": 5, "Vibes": 5,
    "Organ": 6, "Harp": 6, "Horns": 2, "Drums": 4, "Trombone": 3, "Clarinet": 4,
}


def _neighbours(inst):
    nb = [set() for _ in range(inst.nspaces)]
    for a, b in inst.lines:
        nb[a].add(b)
        nb[b].add(a)
    return nb


# --------------------------------------------------------------------------- board


def test_board_values(board):
    assert board.departments == ("black", "orange", "gray")
    assert board.break_room_capacity == 1
    assert board.spots_per_department == 3 and board.four_player_spot == 1
    assert board.slices == (L.CONSTRUCT, L.CONSTRUCT, L.REFRESH, L.INSPECT)
    assert board.shuffle_wheels is True
    assert board.faces == L.FACE_NAMES and board.pips == L.FACE_PIPS
    assert (board.build_pieces, board.upgrade_pieces) == (25, 6)
    assert board.start_cats == (1, 1, 1)
    assert board.quilt_spaces == L.N_QUILT
    assert board.track_need == (0, 1, 2, 4, 6, 8, 10, 12)
    assert board.track_vp == (0, 2, 4, 7, 10, 15, 17, 20)
    assert board.track_token == (False, False, True, False, True, False, True, False)
    assert board.token_types == ("ladder", "milk", "cheese")
    assert board.penalty_per_space == 2 and board.max_rounds == 60


def test_track_honours_rulebook_facts(board):
    def vp_for(pieces):
        best = 0
        for need, vp in zip(board.track_need, board.track_vp):
            if pieces >= need:
                best = vp
        return best

    assert vp_for(1) == 2 and vp_for(8) == 15 and vp_for(12) == 20 and vp_for(20) == 20


# --------------------------------------------------------------------------- library


def test_all_twelve_files_load(lib):
    assert len(list(INSTRUMENT_DIR.glob("*.toml"))) == 12
    assert sorted(lib.names()) == sorted(APPENDIX)
    for name, (dept, expansion, _) in APPENDIX.items():
        inst = lib.get(name)
        assert inst.department_name == dept
        assert inst.expansion is expansion
        assert inst.reconstructed is True


def test_lookup_is_case_insensitive_and_departments(lib):
    assert lib.get("hOrNs").name == "Horns"
    assert " piano " in lib
    assert [i.name for i in lib.by_department("black")] == ["Bass", "Violin", "Banjo", "Guitar"]
    assert {i.name for i in lib.by_department(L.ORANGE)} == {"Piano", "Vibes", "Organ", "Harp"}
    assert {i.name for i in lib.by_department("gray")} == {"Horns", "Drums", "Trombone", "Clarinet"}
    with pytest.raises(DataError) as exc:
        lib.get("Tuba")
    assert "Tuba" in str(exc.value) and "Horns" in str(exc.value) and "Clarinet" in str(exc.value)


def test_starter_lineup(lib):
    assert STARTER == ("Violin", "Piano", "Horns")
    trio = lib.starter()
    assert [i.name for i in trio] == ["Violin", "Piano", "Horns"]
    assert [i.name for i in lib.lineup(["horns", "Bass", "vibes"])] == ["Bass", "Vibes", "Horns"]
    with pytest.raises(DataError, match="both black"):
        lib.lineup(["Bass", "Violin", "Horns"])


# --------------------------------------------------------------------------- reconstruction constraints


@pytest.mark.parametrize("name", sorted(APPENDIX))
def test_space_counts_numbers_and_colours(lib, name):
    inst = lib.get(name)
    assert 16 <= inst.nspaces <= 20
    assert set(inst.numbers) <= {1, 2, 3}
    allowed = set(range(3)) - {inst.department}
    assert set(inst.colours) == allowed
    for c in allowed:
        assert {n for n, col in zip(inst.numbers, inst.colours) if col == c} == {1, 2, 3}
    assert inst.total_cost == sum(inst.numbers)
    assert all(inst.space_sections[i] for i in range(inst.nspaces))


@pytest.mark.parametrize("name", sorted(APPENDIX))
def test_inspector_graph(lib, name):
    inst = lib.get(name)
    nb = _neighbours(inst)
    assert max(len(n) for n in nb) <= L.MAX_LINKS
    seen, stack = {0}, [0]
    while stack:
        for y in nb[stack.pop()]:
            if y not in seen:
                seen.add(y)
                stack.append(y)
    assert len(seen) == inst.nspaces
    assert len({frozenset(e) for e in inst.lines}) == len(inst.lines)


@pytest.mark.parametrize("name", sorted(APPENDIX))
def test_neutral_spaces(lib, name):
    inst = lib.get(name)
    a, b = inst.neutral
    assert a != b and 0 <= a < inst.nspaces and 0 <= b < inst.nspaces
    assert inst.numbers[a] == 1 and inst.numbers[b] == 1
    assert set(inst.space_sections[a]) != set(inst.space_sections[b])


def test_total_costs_are_comparable(lib):
    starters = [lib.get(n).total_cost for n in STARTER]
    mean = sum(starters) / 3
    for inst in lib:
        assert abs(inst.total_cost - mean) <= 0.10 * mean, (inst.name, inst.total_cost, mean)


# --------------------------------------------------------------------------- appendix shapes and awards


@pytest.mark.parametrize("name", sorted(APPENDIX))
def test_section_counts(lib, name):
    inst = lib.get(name)
    assert inst.nsections == SECTION_COUNTS[name]
    assert all(inst.section_spaces[s] for s in range(inst.nsections))


@pytest.mark.parametrize("name", [n for n, v in APPENDIX.items() if v[2] is not None])
def test_awards_match_appendix(lib, name):
    inst = lib.get(name)
    expected = APPENDIX[name][2]
    assert list(inst.section_ids) == list(expected)
    for s, sid in enumerate(inst.section_ids):
        got = [(t.rule, t.awards, t.later, t.params, t.scope) for t in inst.section_terms[s]]
        assert got == expected[sid], sid
        for t in inst.section_terms[s]:
            if t.scope == "section":
                assert t.scope_mask == inst.section_mask(s)
            elif t.scope == "instrument":
                assert t.scope_mask == inst.all_spaces_mask
            else:
                mask = 0
                for other in t.scope:
                    mask |= inst.section_mask(inst.section_index(other))
                assert t.scope_mask == mask


@pytest.mark.parametrize("name", ["Organ", "Clarinet"])
def test_number_rank_awards(lib, name):
    inst = lib.get(name)
    for s in range(inst.nsections):
        n = inst.section_numbers[s]
        assert n is not None and n >= 1
        (term,) = inst.section_terms[s]
        assert term.rule == "number_rank" and term.code == L.T_RANK
        assert term.awards == (n, max(n - 2, 0), max(n - 3, 0))
    # at least one section is small enough for the floor at 0 to matter
    assert any(t.awards[-1] == 0 for ts in inst.section_terms for t in ts)


def test_piano_regions_share_spaces(lib):
    inst = lib.get("Piano")
    counts = [len(m) for m in inst.space_sections]
    assert set(counts) == {1, 2}


def test_organ_regions_up_to_four(lib):
    inst = lib.get("Organ")
    counts = [len(m) for m in inst.space_sections]
    assert max(counts) == 4 and min(counts) == 1
    assert len(set(inst.section_numbers)) == 6


def test_vibes_sections_are_a_ring_of_bars(lib):
    inst = lib.get("Vibes")
    assert all(3 <= len(sp) <= 4 for sp in inst.section_spaces)
    assert all(len(a) == 2 for a in inst.section_adjacent)
    # adjacency follows the connection lines and nothing else
    nb = _neighbours(inst)
    for s in range(5):
        touching = {
            t for i in inst.section_spaces[s] for j in nb[i] for t in inst.space_sections[j] if t != s
        }
        assert touching == set(inst.section_adjacent[s])


def test_harp_adjacency_follows_lines(lib):
    inst = lib.get("Harp")
    nb = _neighbours(inst)
    for s in range(inst.nsections):
        touching = {t for i in inst.section_spaces[s] for j in nb[i] for t in inst.space_sections[j] if t != s}
        assert touching == set(inst.section_adjacent[s])
        # a section is a straight line: a simple path inside the section
        inside = [sum(1 for j in nb[i] if j in inst.section_spaces[s]) for i in inst.section_spaces[s]]
        assert sorted(inside)[:2] == [1, 1] and max(inside) <= 2


def test_every_space_in_exactly_one_section_where_expected(lib):
    for name in ("Bass", "Violin", "Guitar", "Banjo", "Vibes", "Harp", "Horns", "Drums", "Trombone", "Clarinet"):
        inst = lib.get(name)
        assert all(len(m) == 1 for m in inst.space_sections), name


# --------------------------------------------------------------------------- packing


def _check_block(inst, blk):
    n = inst.nspaces
    assert blk["nspaces"] == n
    assert blk["total_cost"] == inst.total_cost
    assert blk["penalty"] == inst.penalty_per_space == 2
    assert blk["cost"] == list(inst.numbers)
    assert blk["colour"] == list(inst.colours)
    assert blk["neutral"] == list(inst.neutral)
    assert blk["nedges"] == len(inst.lines)
    assert blk["all_spaces"] == (1 << n) - 1
    assert blk["track_need"] == [0, 1, 2, 4, 6, 8, 10, 12]
    assert blk["track_vp"] == [0, 2, 4, 7, 10, 15, 17, 20]
    assert blk["track_token"] == [0, 0, 1, 0, 1, 0, 1, 0]
    # links are symmetric and each edge id names the same pair from both ends
    edge_ends = {}
    for i, links in enumerate(blk["links"]):
        for j, e in links:
            assert 0 <= e < len(inst.lines)
            assert i in [x for x, _ in blk["links"][j]]
            edge_ends.setdefault(e, set()).add(i)
    assert len(edge_ends) == len(inst.lines)
    for e, (a, b) in enumerate(inst.lines):
        assert edge_ends[e] == {a, b}
    # sections from the file
    assert len(blk["sections"]) == inst.nsections
    for s, sec in enumerate(blk["sections"]):
        assert sec["spaces"] == list(inst.section_spaces[s])
        assert sec["adjacent"] == sorted(inst.section_adjacent[s])
        for i in inst.section_spaces[s]:
            assert (blk["secmask"][i] >> s) & 1
        assert [t["code"] for t in sec["terms"]] == [t.code for t in inst.section_terms[s]]
        for t, term in zip(sec["terms"], inst.section_terms[s]):
            assert t["awards"] == list(term.awards)
            assert t["later"][: len(term.later)] == list(term.later)
            assert t["params"] == list(term.params)
            assert sum(1 << i for i in t["scope"]) == term.scope_mask


def test_pack_geo_round_trip(lib, board):
    trio = lib.starter()
    geo = pack_geo(board, trio, 4)
    assert geo.dtype == np.int64 and geo.shape == (L.GEO_SIZE,)
    un = unpack_geo(geo)
    assert un["board"]["nplayers"] == 4
    assert un["board"]["build_pieces"] == 25 and un["board"]["upgrade_pieces"] == 6
    assert un["board"]["start_cats"] == [1, 1, 1]
    assert un["board"]["max_rounds"] == 60
    assert un["board"]["slices"] == [L.CONSTRUCT, L.CONSTRUCT, L.REFRESH, L.INSPECT]
    assert un["board"]["shuffle_wheels"] is True
    for inst, blk in zip(trio, un["instruments"]):
        _check_block(inst, blk)


@pytest.mark.parametrize("black", ["Bass", "Violin", "Guitar", "Banjo"])
def test_pack_every_instrument(lib, board, black):
    orange = {"Bass": "Piano", "Violin": "Vibes", "Guitar": "Organ", "Banjo": "Harp"}[black]
    gray = {"Bass": "Horns", "Violin": "Drums", "Guitar": "Trombone", "Banjo": "Clarinet"}[black]
    trio = lib.lineup([black, orange, gray])
    geo = pack_geo(board, trio, 3)
    un = unpack_geo(geo)
    for inst, blk in zip(trio, un["instruments"]):
        _check_block(inst, blk)
        base = L.G_INST + inst.department * L.INST_SIZE
        n = inst.nspaces
        # unused entries
        assert np.all(geo[base + L.I_COST + n : base + L.I_COST + L.MAX_SPACES] == 0)
        assert np.all(geo[base + L.I_NLINKS + n : base + L.I_NLINKS + L.MAX_SPACES] == 0)
        for i in range(L.MAX_SPACES):
            k = int(geo[base + L.I_NLINKS + i])
            row = geo[base + L.I_LINK + i * L.MAX_LINKS : base + L.I_LINK + (i + 1) * L.MAX_LINKS]
            erow = geo[base + L.I_LINKEDGE + i * L.MAX_LINKS : base + L.I_LINKEDGE + (i + 1) * L.MAX_LINKS]
            assert np.all(row[k:] == -1) and np.all(erow[k:] == -1)
            assert np.all(row[:k] >= 0) and np.all(erow[:k] >= 0)
        ns = inst.nsections
        assert np.all(geo[base + L.I_SEC_SPACES + ns : base + L.I_SEC_SPACES + L.MAX_SECTIONS] == 0)
        codes = geo[base + L.I_TERM_CODE : base + L.I_TERM_CODE + L.MAX_SECTIONS * L.MAX_TERMS]
        for s in range(L.MAX_SECTIONS):
            nt = len(inst.section_terms[s]) if s < ns else 0
            assert np.all(codes[s * L.MAX_TERMS + nt : (s + 1) * L.MAX_TERMS] == L.T_NONE)


def test_pack_specific_offsets(lib, board):
    trio = lib.lineup(["Guitar", "Organ", "Horns"])
    geo = pack_geo(board, trio, 2)
    g = trio[0]
    base = L.G_INST
    t = 0 * L.MAX_TERMS
    assert geo[base + L.I_TERM_CODE + t] == L.T_RANK_ORDER
    assert list(geo[base + L.I_TERM_AWARDS + t * L.MAX_AWARDS : base + L.I_TERM_AWARDS + (t + 1) * L.MAX_AWARDS]) == [10, 6, 3, 0]
    assert list(geo[base + L.I_TERM_AWARDS2 + t * L.MAX_AWARDS : base + L.I_TERM_AWARDS2 + (t + 1) * L.MAX_AWARDS]) == [7, 4, 2, 0]
    assert geo[base + L.I_TERM_NAWARDS + t] == 3
    assert geo[base + L.I_NEUTRAL] == g.space_index("a5")
    organ = trio[1]
    ob = L.G_INST + L.INST_SIZE
    for s in range(organ.nsections):
        assert geo[ob + L.I_SEC_NUMBER + s] == organ.section_numbers[s]
    p22 = organ.space_index("p22")
    assert bin(int(geo[ob + L.I_SECMASK + p22])).count("1") == 4
    horns = trio[2]
    hb = L.G_INST + 2 * L.INST_SIZE
    assert geo[hb + L.I_COLOUR + horns.space_index("t1")] == L.BLACK
    assert geo[hb + L.I_COLOUR + horns.space_index("t2")] == L.ORANGE


def test_pack_geo_rejects_bad_lineups(lib, board):
    bass, piano, horns = lib.get("Bass"), lib.get("Piano"), lib.get("Horns")
    with pytest.raises(DataError, match="slot 0"):
        pack_geo(board, (piano, bass, horns), 4)
    with pytest.raises(DataError, match="3 instruments"):
        pack_geo(board, (bass, piano), 4)
    with pytest.raises(DataError, match="player count"):
        pack_geo(board, (bass, piano, horns), 5)


def test_names_from_indices(lib):
    horns = lib.get("Horns")
    assert horns.space_name(0) == "t1" and horns.space_name(-1) == "-"
    assert horns.section_name(1) == "saxophone"
    assert horns.spaces_in_mask(0b101) == ["t1", "t3"]
    assert horns.sections_in_mask(0b10) == ["saxophone"]
    assert "8/6/2" in horns.rule_summary()
    assert "9/5/3 over the instrument" in lib.get("Bass").rule_summary()


# --------------------------------------------------------------------------- a designer's new instrument


def test_thirteenth_instrument_from_extra_dir(tmp_path, board):
    text = (INSTRUMENT_DIR / "horns.toml").read_text()
    text = text.replace('name = "Horns"', 'name = "Tuba"').replace("expansion = false", "expansion = true")
    (tmp_path / "tuba.toml").write_text(text)
    lib = InstrumentLibrary(extra_dirs=[tmp_path], board=board)
    assert len(lib) == 13
    tuba = lib.get("TUBA")
    assert isinstance(tuba, Instrument) and tuba.department == L.GRAY
    assert "Tuba" in [i.name for i in lib.by_department("gray")]
    geo = pack_geo(board, lib.lineup(["Violin", "Piano", "Tuba"]), 4)
    assert geo[L.G_INST + 2 * L.INST_SIZE + L.I_NSPACES] == tuba.nspaces


def test_instrument_track_override(tmp_path, board):
    text = (INSTRUMENT_DIR / "drums.toml").read_text()
    text = text.replace(
        "reconstructed = true",
        "reconstructed = true\npenalty_per_space = 3\n\n[track]\nvp = [0, 1, 2, 3, 4, 5, 6, 7]",
    )
    path = tmp_path / "drums2.toml"
    path.write_text(text)
    inst = load_instrument(path, board)
    assert inst.track_vp == (0, 1, 2, 3, 4, 5, 6, 7)
    assert inst.track_need == board.track_need
    assert inst.penalty_per_space == 3
    lib = InstrumentLibrary(board=board)
    geo = pack_geo(board, (lib.get("Bass"), lib.get("Piano"), inst), 4)
    b = L.G_INST + 2 * L.INST_SIZE
    assert list(geo[b + L.I_TRACK_VP : b + L.I_TRACK_VP + 8]) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert geo[b + L.I_PENALTY] == 3


def test_packaged_files_mark_reconstruction():
    for path in INSTRUMENT_DIR.glob("*.toml"):
        head = path.read_text().splitlines()[:6]
        assert any("RECONSTRUCTED" in line for line in head), path.name


def test_copied_file_is_independent(tmp_path, board):
    # the loader reports the path it read, so a copy names its own file in errors and results
    src = INSTRUMENT_DIR / "violin.toml"
    dst = tmp_path / "v.toml"
    shutil.copy(src, dst)
    assert load_instrument(dst, board).path == str(dst)


@pytest.mark.parametrize("trio", [("Horns", "Violin", "Piano"), ("Guitar", "Harp", "Trombone"), ("Banjo", "Organ", "Clarinet")])
def test_line_masks_follow_the_link_table(lib, board, trio):
    """The inspector search walks a space's lines through its bit mask, lowest line first: that must
    visit exactly the linked spaces, in the link table's order."""
    geo = pack_geo(board, sorted((lib.get(n) for n in trio), key=lambda i: i.department), 4)
    for d in range(L.N_DEPT):
        base = L.G_INST + d * L.INST_SIZE
        for x in range(geo[base + L.I_NSPACES]):
            links = [
                (int(geo[base + L.I_LINKEDGE + x * L.MAX_LINKS + k]), int(geo[base + L.I_LINK + x * L.MAX_LINKS + k]))
                for k in range(geo[base + L.I_NLINKS + x])
            ]
            mask = int(geo[base + L.I_INCIDENT + x])
            walked = []
            while mask:
                e = (mask & -mask).bit_length() - 1
                walked.append((e, int(geo[base + L.I_EDGE_XOR + e]) ^ x))
                mask &= mask - 1
            assert walked == links, (d, x)
            assert links, "every space has a line"


@pytest.mark.parametrize("trio", [("Horns", "Violin", "Piano"), ("Drums", "Bass", "Harp")])
def test_afford_masks_follow_numbers_and_colours(lib, board, trio):
    """Placements are listed from per-colour masks of the spaces numbered at most k (R6): each mask
    must hold exactly those spaces."""
    geo = pack_geo(board, sorted((lib.get(n) for n in trio), key=lambda i: i.department), 4)
    for d in range(L.N_DEPT):
        base = L.G_INST + d * L.INST_SIZE
        for c in range(3):
            for k in range(L.MAX_NUMBER + 1):
                want = sum(
                    1 << x
                    for x in range(geo[base + L.I_NSPACES])
                    if geo[base + L.I_COLOUR + x] == c and geo[base + L.I_COST + x] <= k
                )
                assert int(geo[base + L.I_AFFORD + c * (L.MAX_NUMBER + 1) + k]) == want, (d, c, k)
        top = [int(geo[base + L.I_AFFORD + c * (L.MAX_NUMBER + 1) + L.MAX_NUMBER]) for c in range(3)]
        assert top[0] | top[1] | top[2] == int(geo[base + L.I_ALL_SPACES])


def test_section_worths_are_packed_as_float_bits():
    """The greedy placement worth reads each section's rough objective worth per space from geo,
    stored as float64 bits: first rank award, half the per-piece points of a full section, one
    point per space for a completer term, adjacency points weighted 1, divided by the size."""
    from support import make_geo

    from simulator.kernel_common import float_bits

    geo = make_geo(
        spaces=[(1, "orange", [0]), (2, "gray", [0]), (1, "gray", [1]), (3, "black", [1]), (1, "orange", [1]), (2, "gray", [2])],
        lines=[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
        sections=[
            dict(terms=[("rank", None, [5, 2])]),  # 5 / 2 spaces
            dict(terms=[("per_piece", None, [], [], (2,)), ("completer", None, [], [], (1, 1, 0, 0))]),  # (2*3*0.5 + 3) / 3
            dict(terms=[("adjacent_presence", None, [], [], (3,))], adjacent=[1]),  # 3 / 1
        ],
        dept=1,
    )
    base = L.G_INST + 1 * L.INST_SIZE
    worths = [float_bits(geo[base + L.I_SEC_WORTH + s]) for s in range(3)]
    assert worths == [2.5, 2.0, 3.0]
