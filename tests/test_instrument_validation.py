"""Malformed board and instrument files are rejected with a DataError naming the file, the key and
the reason; no other exception type escapes the loader."""

import random

import pytest

from simulator.shuffle_swing import layout as L
from simulator.errors import DataError
from simulator.shuffle_swing.board import BOARD_PATH, load_board
from simulator.shuffle_swing.library import INSTRUMENT_DIR, InstrumentLibrary
from simulator.shuffle_swing.instruments import load_instrument
from simulator.shuffle_swing.pack import pack_geo

BASE = """\
# small test instrument
lines = [["a1", "a2"], ["a2", "b1"], ["b1", "b2"]]
neutral = ["a1", "b2"]

[instrument]
name = "Tester"
department = "gray"

[[section]]
id = "sa"
symbol = "x"
[[section.score]]
rule = "rank"
awards = [3, 1]

[[section]]
id = "sb"
[[section.score]]
rule = "rank"
awards = [3, 1]

[[space]]
id = "a1"
number = 1
colour = "black"
sections = ["sa"]

[[space]]
id = "a2"
number = 2
colour = "orange"
sections = ["sa"]

[[space]]
id = "b1"
number = 3
colour = "black"
sections = ["sb"]

[[space]]
id = "b2"
number = 1
colour = "orange"
sections = ["sb"]
"""


@pytest.fixture(scope="module")
def board():
    return load_board()


def mutate(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


def write(tmp_path, text, name="inst.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def expect_error(tmp_path, board, text, key, reason=None, name="inst.toml"):
    path = write(tmp_path, text, name)
    with pytest.raises(DataError) as exc:
        load_instrument(path, board)
    err = exc.value
    msg = str(err)
    assert err.file == str(path)
    assert name in msg
    assert err.key == key, msg
    assert f": {key}: " in msg
    if reason is not None:
        assert reason in err.reason, msg
    return err


def space_block(sid, number=1, colour="black", sections=("sa",)):
    secs = ", ".join(f'"{s}"' for s in sections)
    return f'\n[[space]]\nid = "{sid}"\nnumber = {number}\ncolour = "{colour}"\nsections = [{secs}]\n'


def test_base_is_valid(tmp_path, board):
    inst = load_instrument(write(tmp_path, BASE), board)
    assert inst.name == "Tester" and inst.nspaces == 4 and inst.total_cost == 7


def test_error_string_format():
    err = DataError("f.toml", "space[3].colour", "bad")
    assert str(err) == "f.toml: space[3].colour: bad"
    assert (err.file, err.key, err.reason) == ("f.toml", "space[3].colour", "bad")


# --------------------------------------------------------------------------- file level


def test_toml_syntax_error(tmp_path, board):
    path = write(tmp_path, mutate(BASE, 'name = "Tester"', "name = Tester"))
    with pytest.raises(DataError) as exc:
        load_instrument(path, board)
    assert "inst.toml" in str(exc.value) and "TOML syntax error" in str(exc.value)


def test_missing_file(tmp_path, board):
    with pytest.raises(DataError, match="file not found"):
        load_instrument(tmp_path / "nope.toml", board)


def test_missing_top_level_key(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'neutral = ["a1", "b2"]\n', ""), "neutral", "missing required key")


def test_unknown_top_level_key(tmp_path, board):
    expect_error(tmp_path, board, "colours = 2\n" + BASE, "colours", "unknown key")


def test_top_level_key_after_tables_gets_hint(tmp_path, board):
    text = mutate(BASE, 'neutral = ["a1", "b2"]\n', "") + 'neutral = ["a1", "b2"]\n'
    err = expect_error(tmp_path, board, text, "space[3].neutral", "unknown key")
    assert "before the first" in err.reason


def test_space_table_instead_of_array(tmp_path, board):
    text = mutate(BASE, "[[space]]", "[space]")
    text = text.split("[[space]]")[0]  # keep only the single [space] table
    expect_error(tmp_path, board, text, "space", "array of tables")


# --------------------------------------------------------------------------- [instrument]


def test_missing_instrument_name(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'name = "Tester"\n', ""), "instrument.name", "missing")


def test_wrong_department_name(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'department = "gray"', 'department = "grey"'),
                 "instrument.department", "unknown department")


def test_unknown_instrument_key_typo(tmp_path, board):
    err = expect_error(tmp_path, board, mutate(BASE, "[instrument]\n", "[instrument]\nexpanson = true\n"),
                       "instrument.expanson", "unknown key")
    assert "did you mean 'expansion'" in err.reason


def test_wrong_type_expansion(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, "[instrument]\n", '[instrument]\nexpansion = "yes"\n'),
                 "instrument.expansion", "true or false")


# --------------------------------------------------------------------------- spaces


def test_unknown_colour(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'colour = "black"', 'colour = "purple"'),
                 "space[0].colour", "unknown colour")


def test_colour_of_own_department_is_disallowed(tmp_path, board):
    err = expect_error(tmp_path, board, mutate(BASE, 'colour = "orange"', 'colour = "gray"'),
                       "space[1].colour")
    assert "black and orange" in err.reason


def test_colour_rule_per_department(tmp_path, board):
    # the same black cats are fine for an orange instrument... but not for a black one
    load_instrument(write(tmp_path, mutate(mutate(BASE, 'department = "gray"', 'department = "orange"'),
                                           'colour = "orange"', 'colour = "gray"', 2)), board)
    expect_error(tmp_path, board, mutate(BASE, 'department = "gray"', 'department = "black"'),
                 "space[0].colour", "orange and gray")


def test_colour_key_typo(tmp_path, board):
    err = expect_error(tmp_path, board, mutate(BASE, 'colour = "black"', 'color = "black"'), "space[0].color")
    assert "did you mean 'colour'" in err.reason


@pytest.mark.parametrize("value", ["0", "4", "-1"])
def test_number_out_of_range(tmp_path, board, value):
    expect_error(tmp_path, board, mutate(BASE, "number = 2", f"number = {value}"), "space[1].number")


@pytest.mark.parametrize("value", ['"2"', "2.0", "true"])
def test_number_wrong_type(tmp_path, board, value):
    expect_error(tmp_path, board, mutate(BASE, "number = 2", f"number = {value}"), "space[1].number",
                 "expected an integer")


def test_missing_space_number(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, "number = 3\n", ""), "space[2].number", "missing required key")


def test_duplicate_space_id(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'id = "b2"', 'id = "a1"'), "space[3].id", "duplicate space id")


def test_space_names_missing_section(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'sections = ["sb"]', 'sections = ["sc"]'),
                 "space[2].sections[0]", "missing section 'sc'")


def test_space_in_no_section(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'sections = ["sb"]', "sections = []"),
                 "space[2].sections", "belongs to no section")


def test_section_with_no_space(tmp_path, board):
    text = mutate(BASE, 'sections = ["sb"]', 'sections = ["sa"]', 2)
    expect_error(tmp_path, board, text, "section[sb]", "has no spaces")


def test_section_names_missing_space(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'symbol = "x"', 'symbol = "x"\nspaces = ["a1", "zz"]'),
                 "section[sa].spaces[1]", "missing space 'zz'")


def test_section_may_list_its_spaces(tmp_path, board):
    text = mutate(BASE, 'symbol = "x"', 'symbol = "x"\nspaces = ["b1"]')
    inst = load_instrument(write(tmp_path, text), board)
    assert inst.section_spaces[0] == (0, 1, 2)
    assert inst.space_sections[2] == (0, 1)


def test_too_many_spaces(tmp_path, board):
    extra = "".join(space_block(f"x{i}") for i in range(L.MAX_SPACES - 3))
    expect_error(tmp_path, board, BASE + extra, "space", f"at most {L.MAX_SPACES}")


# --------------------------------------------------------------------------- lines


def test_disconnected_graph(tmp_path, board):
    err = expect_error(tmp_path, board, mutate(BASE, '["a2", "b1"], ', ""), "lines", "not connected")
    assert "b1" in err.reason and "b2" in err.reason


def test_line_names_missing_space(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, '["a1", "a2"]', '["a1", "a3"]'), "lines[0][1]", "missing space 'a3'")


def test_line_self_loop(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, '["a2", "b1"]', '["a2", "a2"]'), "lines[1]", "to itself")


def test_duplicate_line(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, '["b1", "b2"]]', '["b1", "b2"], ["a2", "a1"]]'),
                 "lines[3]", "duplicate line")


def test_line_not_a_pair(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, '["a1", "a2"]', '["a1", "a2", "b1"]'), "lines[0]", "at most 2")


def test_too_many_lines_at_a_space(tmp_path, board):
    n = L.MAX_LINKS + 1
    extra = "".join(space_block(f"x{i}") for i in range(n))
    star = ", ".join(f'["a1", "x{i}"]' for i in range(n))
    text = mutate(BASE, '["b1", "b2"]]', f'["b1", "b2"], {star}]') + extra
    expect_error(tmp_path, board, text, f"lines[{3 + L.MAX_LINKS - 1}]", f"more than {L.MAX_LINKS} lines")


# --------------------------------------------------------------------------- neutral


@pytest.mark.parametrize(
    "value,key,reason",
    [
        ('["a1"]', "neutral", "exactly 2"),
        ('["a1", "a2", "b1"]', "neutral", "exactly 2"),
        ('["a1", "zz"]', "neutral[1]", "unknown space"),
        ('["b2", "b2"]', "neutral", "must differ"),
        ('"a1"', "neutral", "expected a list"),
    ],
)
def test_bad_neutral(tmp_path, board, value, key, reason):
    expect_error(tmp_path, board, mutate(BASE, 'neutral = ["a1", "b2"]', f"neutral = {value}"), key, reason)


# --------------------------------------------------------------------------- sections


def test_duplicate_section_id(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'id = "sb"', 'id = "sa"'), "section[1].id", "duplicate section id")


def test_missing_section_id(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'id = "sb"\n', ""), "section[1].id", "missing required key")


def test_unknown_section_key(tmp_path, board):
    err = expect_error(tmp_path, board, mutate(BASE, 'symbol = "x"', 'symbl = "x"'), "section[sa].symbl")
    assert "did you mean 'symbol'" in err.reason


def test_too_many_sections(tmp_path, board):
    extra = "".join(
        f'\n[[section]]\nid = "z{i}"\n[[section.score]]\nrule = "rank"\nawards = [1]\n'
        for i in range(L.MAX_SECTIONS - 1)
    )
    text = mutate(BASE, "\n[[space]]", extra + "\n[[space]]")
    expect_error(tmp_path, board, text, "section", f"at most {L.MAX_SECTIONS}")


def test_one_sided_adjacency(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'symbol = "x"', 'symbol = "x"\nadjacent = ["sb"]'),
                 "section[sa].adjacent[0]", "both sides")


def test_two_sided_adjacency_is_fine(tmp_path, board):
    text = mutate(BASE, 'symbol = "x"', 'symbol = "x"\nadjacent = ["sb"]')
    text = mutate(text, 'id = "sb"', 'id = "sb"\nadjacent = ["sa"]')
    inst = load_instrument(write(tmp_path, text), board)
    assert inst.section_adjacent == ((1,), (0,))


def test_adjacent_unknown_or_self(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'symbol = "x"', 'symbol = "x"\nadjacent = ["sq"]'),
                 "section[sa].adjacent[0]", "unknown section")
    expect_error(tmp_path, board, mutate(BASE, 'symbol = "x"', 'symbol = "x"\nadjacent = ["sa"]'),
                 "section[sa].adjacent[0]", "itself")


# --------------------------------------------------------------------------- scoring terms


def test_unknown_rule(tmp_path, board):
    err = expect_error(tmp_path, board, mutate(BASE, 'rule = "rank"', 'rule = "ranks"'),
                       "section[sa].score[0].rule", "unknown rule 'ranks'")
    assert "did you mean 'rank'" in err.reason


def test_rule_missing_parameter(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, "awards = [3, 1]\n", ""), "section[sa].score[0].awards",
                 "needs 'awards'")


def test_rule_missing_rule_key(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, 'rule = "rank"\n', ""), "section[sa].score[0].rule", "missing")


@pytest.mark.parametrize(
    "value,key",
    [
        ('"3, 1"', "section[sa].score[0].awards"),
        ('[3, "1"]', "section[sa].score[0].awards[1]"),
        ("[3, -1]", "section[sa].score[0].awards[1]"),
        ("[]", "section[sa].score[0].awards"),
        ("[5, 4, 3, 2, 1]", "section[sa].score[0].awards"),
    ],
)
def test_rank_awards_wrong(tmp_path, board, value, key):
    expect_error(tmp_path, board, mutate(BASE, "awards = [3, 1]", f"awards = {value}"), key)


def test_parameter_not_allowed_for_rule(tmp_path, board):
    expect_error(tmp_path, board, mutate(BASE, "awards = [3, 1]", "awards = [3, 1]\npoints = 2"),
                 "section[sa].score[0].points", "unknown key")


def test_per_piece_points_wrong_type(tmp_path, board):
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "per_piece"\npoints = 1.5')
    expect_error(tmp_path, board, text, "section[sa].score[0].points", "expected an integer")


def test_too_many_terms(tmp_path, board):
    term = '[[section.score]]\nrule = "per_piece"\npoints = 1\n'
    text = mutate(BASE, "awards = [3, 1]\n", "awards = [3, 1]\n" + term * L.MAX_TERMS)
    expect_error(tmp_path, board, text, "section[sa].score", f"at most {L.MAX_TERMS}")


def test_scope_unknown_section(tmp_path, board):
    text = mutate(BASE, "awards = [3, 1]", 'awards = [3, 1]\nscope = ["sa", "sz"]')
    expect_error(tmp_path, board, text, "section[sa].score[0].scope[1]", "unknown section")


def test_scope_bad_word(tmp_path, board):
    text = mutate(BASE, "awards = [3, 1]", 'awards = [3, 1]\nscope = "board"')
    expect_error(tmp_path, board, text, "section[sa].score[0].scope")


def test_scope_variants(tmp_path, board):
    text = mutate(BASE, "awards = [3, 1]\n\n[[section]]", 'awards = [3, 1]\nscope = "instrument"\n\n[[section]]')
    text = mutate(text, "awards = [3, 1]\n\n[[space]]", 'awards = [3, 1]\nscope = ["sa", "sb"]\n\n[[space]]')
    inst = load_instrument(write(tmp_path, text), board)
    assert inst.section_terms[0][0].scope_mask == 0b1111
    assert inst.section_terms[1][0].scope_mask == 0b1111


def test_number_rank_needs_number(tmp_path, board):
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "number_rank"\noffsets = [0, -2, -3]')
    expect_error(tmp_path, board, text, "section[sa].number", "needs the section's number")


def test_number_rank_floor(tmp_path, board):
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "number_rank"\noffsets = [0, -2, -3]')
    text = mutate(text, 'symbol = "x"', 'symbol = "x"\nnumber = 2')
    inst = load_instrument(write(tmp_path, text), board)
    (term,) = inst.section_terms[0]
    assert term.code == L.T_RANK and term.awards == (2, 0, 0)
    text = mutate(text, "offsets = [0, -2, -3]", "offsets = [0, -2, -3]\nfloor = 1")
    inst = load_instrument(write(tmp_path, text), board)
    assert inst.section_terms[0][0].awards == (2, 1, 1)


def test_adjacent_rule_needs_adjacency(tmp_path, board):
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "adjacent_presence"\npoints = 2')
    expect_error(tmp_path, board, text, "section[sa].adjacent", "needs at least one adjacent section")


def test_completer_parameters(tmp_path, board):
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "completer"\nothers = [1, 0]')
    expect_error(tmp_path, board, text, "section[sa].score[0].others[1]", "denominator")
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "completer"\ncompleter = [1]')
    expect_error(tmp_path, board, text, "section[sa].score[0].completer", "at least 2")
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "completer"')
    inst = load_instrument(write(tmp_path, text), board)
    assert inst.section_terms[0][0].params == (1, 1, 1, 2)


def test_rank_by_order_needs_later(tmp_path, board):
    text = mutate(BASE, 'rule = "rank"', 'rule = "rank_by_order"')
    expect_error(tmp_path, board, text, "section[sa].score[0].later", "needs 'later'")


def test_scope_not_allowed_for_longest_group(tmp_path, board):
    text = mutate(BASE, 'rule = "rank"\nawards = [3, 1]', 'rule = "longest_group"\npoints = 1\nscope = "instrument"')
    expect_error(tmp_path, board, text, "section[sa].score[0].scope", "unknown key")


# --------------------------------------------------------------------------- track override


def test_track_override_wrong_length(tmp_path, board):
    text = mutate(BASE, "\n[[section]]", "\n[track]\nvp = [0, 2, 4]\n\n[[section]]")
    expect_error(tmp_path, board, text, "track.vp", "exactly 8")


def test_track_override_need_must_not_decrease(tmp_path, board):
    text = mutate(BASE, "\n[[section]]", "\n[track]\nneed = [0, 1, 2, 4, 3, 8, 10, 12]\n\n[[section]]")
    expect_error(tmp_path, board, text, "track.need[4]", "must not decrease")


# --------------------------------------------------------------------------- library


def test_duplicate_instrument_name_across_library(tmp_path, board):
    text = mutate(BASE, 'name = "Tester"', 'name = "horns"')
    path = write(tmp_path, text, "copy.toml")
    with pytest.raises(DataError) as exc:
        InstrumentLibrary(extra_dirs=[tmp_path], board=board)
    err = exc.value
    assert err.file == str(path) and err.key == "instrument.name"
    assert "duplicate instrument name" in err.reason and "horns.toml" in err.reason


def test_bad_file_in_extra_dir_names_it(tmp_path, board):
    write(tmp_path, mutate(BASE, "number = 2", "number = 9"), "broken.toml")
    with pytest.raises(DataError) as exc:
        InstrumentLibrary(extra_dirs=[tmp_path], board=board)
    assert "broken.toml" in str(exc.value) and "space[1].number" in str(exc.value)


def test_missing_extra_dir(tmp_path, board):
    with pytest.raises(DataError, match="not found"):
        InstrumentLibrary(extra_dirs=[tmp_path / "nowhere"], board=board)


def test_pack_geo_department_slots(board):
    lib = InstrumentLibrary(board=board)
    with pytest.raises(DataError) as exc:
        pack_geo(board, (lib.get("Violin"), lib.get("Horns"), lib.get("Piano")), 4)
    assert "instruments[1]" in str(exc.value)


# --------------------------------------------------------------------------- board file

BOARD_TEXT = BOARD_PATH.read_text()


def expect_board_error(tmp_path, text, key, reason=None):
    path = tmp_path / "board.toml"
    path.write_text(text)
    with pytest.raises(DataError) as exc:
        load_board(path)
    err = exc.value
    assert err.file == str(path) and "board.toml" in str(err)
    assert err.key == key, str(err)
    if reason:
        assert reason in err.reason, str(err)


def test_board_loads_from_copy(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text(BOARD_TEXT)
    assert load_board(path).max_rounds == 60


@pytest.mark.parametrize(
    "old,new,key,reason",
    [
        ('departments = ["black", "orange", "gray"]', 'departments = ["black", "orange", "gray", "pink"]',
         "board.departments", "exactly 3 departments"),
        ('departments = ["black", "orange", "gray"]', 'departments = ["orange", "black", "gray"]',
         "board.departments", "in this clockwise order"),
        ('slices = ["construct", "construct", "refresh", "inspect"]',
         'slices = ["construct", "construct", "refresh", "inspect", "inspect"]', "wheel.slices", "exactly 4"),
        ('slices = ["construct", "construct", "refresh", "inspect"]',
         'slices = ["construct", "build", "refresh", "inspect"]', "wheel.slices[1]", "not one of"),
        ("need = [0, 1, 2, 4, 6, 8, 10, 12]", "need = [0, 1, 2, 4, 6, 8, 10]", "track.need", "exactly 8"),
        ("rows = 4", "rows = 5", "quilt.rows", "exactly 10 quilt spaces"),
        ("break_room_capacity = 1", "break_room_capacity = 2", "board.break_room_capacity", "capacity 1"),
        ('orange = "milk"', 'orange = "cheese"', "track.token_type.orange", "milk"),
        ("shuffle_wheels = true", 'shuffle_wheels = "yes"', "wheel.shuffle_wheels", "true or false"),
        ("build_pieces = 25", "build_pieces = 0", "player.build_pieces", "below the minimum"),
        ("max_rounds = 60", "max_round = 60", "board.max_round", "unknown key"),
        ("pips = [1, 2, 3, 2, 3, 4]", "pips = [1, 2, 3, 2, 3, 5]", "dice.pips", "pips"),
        ("black = 1, orange = 1", "black = 1, purple = 1", "player.starting_cats.purple", "unknown key"),
    ],
)
def test_bad_board(tmp_path, old, new, key, reason):
    expect_board_error(tmp_path, mutate(BOARD_TEXT, old, new), key, reason)


def test_board_syntax_error(tmp_path):
    path = tmp_path / "board.toml"
    path.write_text(BOARD_TEXT + "\n[[[oops\n")
    with pytest.raises(DataError, match="TOML syntax error"):
        load_board(path)


# --------------------------------------------------------------------------- robustness


def _corruptions(text):
    """Deterministic damaged variants of a file: each line dropped, values swapped for wrong types."""
    lines = text.splitlines()
    for i in range(len(lines)):
        yield "\n".join(lines[:i] + lines[i + 1 :])
    junk = ["1", "-3", "true", '"x"', "[]", "[1, 2]", '["a1"]', "{}", "{ a = 1 }", '[["a1", "b2"]]', "1.5"]
    for i, line in enumerate(lines):
        if " = " in line and not line.startswith("#"):
            key = line.split(" = ")[0]
            for j in junk:
                yield "\n".join(lines[:i] + [f"{key} = {j}"] + lines[i + 1 :])
    rng = random.Random(7)
    for _ in range(150):
        ls = list(lines)
        a, b = rng.randrange(len(ls)), rng.randrange(len(ls))
        ls[a], ls[b] = ls[b], ls[a]
        yield "\n".join(ls)


def test_only_data_errors_escape(tmp_path, board):
    path = tmp_path / "fuzz.toml"
    loaded = failed = 0
    for text in _corruptions(BASE):
        path.write_text(text)
        try:
            load_instrument(path, board)
            loaded += 1
        except DataError as err:
            assert err.file == str(path)
            failed += 1
    assert failed > 100 and loaded > 0


def test_only_data_errors_escape_real_file(tmp_path, board):
    text = (INSTRUMENT_DIR / "vibes.toml").read_text()
    path = tmp_path / "fuzz.toml"
    lines = text.splitlines()
    for i in range(0, len(lines)):
        path.write_text("\n".join(lines[:i] + lines[i + 1 :]))
        try:
            load_instrument(path, board)
        except DataError:
            pass


def test_board_only_data_errors_escape(tmp_path):
    path = tmp_path / "board.toml"
    for text in _corruptions(BOARD_TEXT):
        path.write_text(text)
        try:
            load_board(path)
        except DataError as err:
            assert err.file == str(path)
