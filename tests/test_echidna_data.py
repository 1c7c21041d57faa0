"""Echidna Shuffle data: the shipped boards meet ECHIDNA-DECISIONS.md, the loader refuses bad ones."""

import tomllib

import numpy as np
import pytest

from simulator.echidna import layout as L
from simulator.echidna.board import (
    DATA_DIR,
    EchidnaSetup,
    Variants,
    board_from_doc,
    load_board,
    load_rules,
    pack_geo,
    variants_from_dict,
)
from simulator.errors import DataError
from simulator.echidna.strategies import EchidnaStrategyLibrary, load_strategy


@pytest.mark.parametrize("name", ["forest", "snow"])
def test_shipped_boards_meet_the_constraints(name):
    b = load_board(name)
    assert b.reconstructed is True
    assert 40 <= b.nspaces <= 56
    for s, out in enumerate(b.arrows):
        assert 1 <= len(out) <= 2 and s not in out
    d = b.distances()
    assert (d > 0).all()  # strongly connected


def _cycles_through(b, spaces):
    """Simple cycles (as frozensets) found by DFS from each space in ``spaces`` (small boards only)."""
    found = set()
    for start in spaces:
        stack = [(start, (start,))]
        while stack:
            x, path = stack.pop()
            for t in b.arrows[x]:
                if t == start:
                    found.add(frozenset(path))
                elif t not in path and len(path) < 70:
                    stack.append((t, path + (t,)))
    return found


def test_forest_is_one_main_loop_with_branches_and_shortcuts():
    b = load_board("forest")
    # Following the first arrow everywhere goes once round every main-loop space and comes back.
    x, seen = 0, []
    while x not in seen:
        seen.append(x)
        x = b.arrows[x][0]
    assert x == 0 and len(seen) >= 30
    branches = [s for s in range(b.nspaces) if len(b.arrows[s]) == 2]
    assert 2 <= len(branches) <= 6 and all(s in seen for s in branches)  # branches leave the loop
    # Every side space rejoins the loop.
    d = b.distances()
    assert all(d[s, 0] > 0 for s in range(b.nspaces))


def test_snow_middle_row_of_six_double_arrows_and_several_loops_through_it():
    b = load_board("snow")
    row = [b.index(f"M{i}") for i in range(6)]
    for i in range(5):
        assert row[i + 1] in b.arrows[row[i]] and row[i] in b.arrows[row[i + 1]]
    # The flow is not one circle: several different loops pass through the middle row, and the
    # way round depends on the exit taken there.
    loops = _cycles_through(b, [row[0], row[5]])
    long_loops = [c for c in loops if len(c) > 6]
    assert len(long_loops) >= 3
    exits = {t for s in row for t in b.arrows[s] if t not in row}
    assert len(exits) >= 2


def _doc(path):
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def _base():
    return _doc(DATA_DIR / "forest.toml")


def _err(doc):
    with pytest.raises(DataError) as exc:
        board_from_doc(doc, "my-board.toml")
    return str(exc.value)


def test_loader_refuses_an_arrow_to_a_missing_space():
    doc = _base()
    doc["space"][3]["to"] = ["L4", "nowhere"]
    assert _err(doc) == "my-board.toml: space[L3].to[1]: arrow to a missing space 'nowhere'"


def test_loader_refuses_a_dead_end():
    doc = _base()
    doc["space"][3]["to"] = []
    assert "space[L3].to: a dead end" in _err(doc)


def test_loader_refuses_a_self_arrow():
    doc = _base()
    doc["space"][3]["to"] = ["L4", "L3"]
    assert _err(doc) == "my-board.toml: space[L3].to[1]: an arrow from a space to itself"


def test_loader_refuses_an_unreachable_space():
    doc = _base()
    # Nothing leads into A0 once L5's branch is gone.
    doc["space"][5]["to"] = ["L6"]
    assert _err(doc) == "my-board.toml: space[A0]: unreachable: no way along the arrows from 'L0' to it"


def test_loader_refuses_a_trap():
    doc = _base()
    # A0 -> A1 -> A2 -> A3 -> A0: once in, never out.
    a3 = next(sp for sp in doc["space"] if sp["id"] == "A3")
    a3["to"] = ["A0"]
    assert "no way along the arrows from it back to 'L0'" in _err(doc)


def test_loader_refuses_too_few_spaces_too_many_arrows_and_unknown_keys():
    doc = _base()
    doc["space"] = doc["space"][:39]
    assert "space: needs at least 40 spaces, got 39" in _err(doc)
    doc = _base()
    doc["space"][0]["to"] = ["L1", "L2", "L3"]
    assert "space[L0].to: 3 arrows" in _err(doc)
    doc = _base()
    doc["space"][0]["colour"] = "green"
    assert "space[0].colour: unknown key 'colour'" in _err(doc)
    doc = _base()
    doc["space"][1]["id"] = "L0"
    assert "space[1].id: space 'L0' is defined twice" in _err(doc)


def test_load_board_by_path_and_unknown_name(tmp_path):
    with pytest.raises(DataError) as exc:
        load_board("glacier")
    assert "unknown board" in str(exc.value)
    p = tmp_path / "bad.toml"
    p.write_text("[board]\nname = 'x'\n[[space]]\nid = 1\n")
    with pytest.raises(DataError) as exc:
        load_board(p)
    assert str(exc.value).startswith(f"{p}: ")


def test_game_rules_and_variants_validation(tmp_path):
    r = load_rules()
    assert r.die == (2, 3, 4, 5, 6, 7) and r.number_board == (7, 6, 5, 4, 3, 2)
    assert r.catch_up == (0, 1, 2, 3, 4, 5) and r.max_rounds == 200
    p = tmp_path / "game.toml"
    text = (DATA_DIR / "game.toml").read_text().replace("catch_up = [0, 1, 2, 3, 4, 5]", "catch_up = [0, 10, 10, 10, 10, 10]")
    p.write_text(text)
    with pytest.raises(DataError) as exc:
        load_rules(p)
    assert str(exc.value) == f"{p}: game.catch_up: hands out 50 tokens, the supply holds 25"
    with pytest.raises(DataError) as exc:
        variants_from_dict({"catch_up": "yes"}, "s.toml")
    assert str(exc.value) == "s.toml: variants.catch_up: expected true or false, got a string 'yes'"
    with pytest.raises(DataError) as exc:
        variants_from_dict({"home_strech": True}, "s.toml")
    assert "did you mean 'home_stretch'" in str(exc.value)
    v = variants_from_dict({"catch_up": True, "token_schedule": [0, 1, 1, 2]}, "s.toml")
    assert v.token_schedule == (0, 1, 1, 2)
    with pytest.raises(DataError) as exc:
        EchidnaSetup(6, "forest", v)
    assert "token_schedule" in str(exc.value)
    with pytest.raises(DataError):
        EchidnaSetup(7, "forest")


def test_pack_geo_distances_and_arrows():
    b = load_board("snow")
    geo = pack_geo(b, load_rules(), 4)
    d = b.distances()
    for a in (0, 7, 20):
        for c in (0, 5, 33):
            assert geo[L.G_DIST + a * L.MAX_SPACES + c] == d[a, c]
    for s, out in enumerate(b.arrows):
        assert geo[L.G_OUT0 + s] == out[0]
        assert geo[L.G_OUT1 + s] == (out[1] if len(out) > 1 else -1)
        for t in out:
            assert (geo[L.G_PREDMASK + t] >> s) & 1


def test_strategy_profiles_load_and_stay_apart_from_shuffle_and_swing():
    lib = EchidnaStrategyLibrary()
    assert {"random", "greedy", "saboteur", "lookahead", "plain-setup"} <= set(lib.names())
    sab = lib.get("saboteur")
    assert sab.weights["opponent_distance"] > lib.get("greedy").weights["opponent_distance"]
    assert sab.weights["take_bug"] == lib.get("greedy").weights["take_bug"]  # unspecified: greedy's
    from simulator.shuffle_swing.strategies import StrategyLibrary

    assert "saboteur" not in StrategyLibrary().names() and "plain-setup" not in StrategyLibrary().names()
    m = lib.matrix(["greedy", "random"])
    assert m.shape == (2, L.STRAT_SIZE) and m[1, L.P_KIND] == L.KIND_RANDOM


def test_strategy_profile_errors(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('[strategy]\nname = "x"\nkind = "greedy"\n[weights]\nown_distanc = 1.0\n')
    with pytest.raises(DataError) as exc:
        load_strategy(p, {"own_distance": 1.0})
    assert "weights.own_distanc: unknown key" in str(exc.value) and "own_distance" in str(exc.value)
    p.write_text('[strategy]\nname = "x"\nkind = "clever"\n')
    with pytest.raises(DataError) as exc:
        load_strategy(p)
    assert "strategy.kind: 'clever' is not one of" in str(exc.value)
