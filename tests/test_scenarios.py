"""Scenario files: parsing, validation (file + key + reason), expansion into cells, seeding, chunk tables."""

import itertools
import tomllib

import numpy as np
import pandas as pd
import pytest

from scenarios.runner import plan_chunks
from simulator.setting_api import flatten_overrides
from simulator.shuffle_swing.setting import cell_key
from scenarios.spec import find_scenario, parse_value, round_robin, shipped_scenarios
from scenarios.load import load_scenario, scenario_from_doc
from scenarios.schema import GAME_COLUMNS, SEAT_COLUMNS, STRING_COLUMNS
from simulator.seeds import cell_hash, cell_seed, deal_seeds, rotate
from scenarios.worker import ChunkTask, chunk_tables
from simulator.errors import DataError
from simulator.shuffle_swing.library import STARTER
from simulator.shuffle_swing.layout import SRC_NAMES


def base_doc(**changes):
    doc = {
        "name": "t",
        "seed": 3,
        "games": 8,
        "players": [4],
        "instruments": {"sets": [list(STARTER)]},
        "lineup": {"mirror": "greedy"},
    }
    doc.update(changes)
    return doc


def make(tmp_path=None, **changes):
    path = (tmp_path / "s.toml") if tmp_path is not None else "s.toml"
    return scenario_from_doc(base_doc(**changes), path)


def error_of(**changes):
    with pytest.raises(DataError) as exc:
        make(**changes)
    return exc.value


# =========================================================================== shipped files


def test_shipped_scenarios_load_and_expand():
    assert {"starter", "expansion", "grid", "ci"} <= set(shipped_scenarios())
    starter = load_scenario("starter")
    # Three judge levels per player count: greedy and tuned mirrors at full size, search mirrors capped.
    assert [c.players for c in starter.cells] == [2] * 4 + [3] * 4 + [4] * 4
    assert [set(c.lineup) for c in starter.cells] == [{"greedy"}, {"tuned"}, {"search"}, {"search_leaf"}] * 3
    assert all(c.instruments == STARTER for c in starter.cells)
    # Sequential (docs/guide/sequential.md): games are each cell's cap; one budget of declared CPU
    # seconds for the whole run, each judge priced by its cost; the zone test; the top judge first.
    assert [c.games for c in starter.cells] == [100000] * 12
    assert starter.sequential.test == "zone" and starter.sequential.indifference == 0.01
    assert starter.sequential.seconds > 0 and set(starter.sequential.cost) == {"greedy", "tuned", "search", "search_leaf"}
    assert starter.sequential.strong[0] == "search_leaf"
    # The top judge is one word: swapping it in lineup.mirror needs no other key.
    swapped = load_scenario("starter", sets=['lineup.mirror=["greedy", "tuned", "search", "lookahead"]'])
    assert swapped.sequential.strong[0] == "lookahead"

    expansion = load_scenario("expansion")
    assert len(expansion.cells) == 1 + 3 * 3
    assert expansion.cells[0].instruments == STARTER
    assert all(c.players == 4 and c.lineup == ("greedy",) * 4 for c in expansion.cells)
    # Each alternative differs from the starter set in exactly one department.
    for c in expansion.cells[1:]:
        assert sum(a != b for a, b in zip(c.instruments, STARTER)) == 1

    grid = load_scenario("grid")
    sets = {c.instruments for c in grid.cells}
    assert len(sets) == 64 and len(grid.cells) == 64 * 3

    ci = load_scenario("ci")
    # Mirror cells at every player count, so the gate sees the seats' win rates (R13 tie-break included).
    assert [c.players for c in ci.cells] == [2, 3, 4]
    assert all(len(set(c.lineup)) == 1 for c in ci.cells)


def test_find_scenario_by_path_or_name(tmp_path):
    assert find_scenario("ci").name == "ci.toml"
    p = tmp_path / "mine.toml"
    p.write_text("x = 1\n")
    assert find_scenario(p) == p
    with pytest.raises(DataError, match="scenario file not found"):
        find_scenario("no_such_scenario")


# =========================================================================== instrument sets


def test_sets_are_normalised_to_department_order():
    sc = make(instruments={"sets": [["Horns", "Violin", "Piano"], ["Drums", "Vibes", "Bass"]]})
    assert sc.sets == (STARTER, ("Bass", "Vibes", "Drums"))


def test_all_gives_64_sets_one_instrument_per_department():
    sc = make(instruments={"all": True})
    assert len(sc.sets) == 64 == len(set(sc.sets))
    lib = sc.instruments
    for s in sc.sets:
        assert [lib.get(n).department for n in s] == [0, 1, 2]


@pytest.mark.parametrize("swaps, n", [("all", 10), (["orange"], 4), (["black", "gray"], 7)])
def test_swaps_give_the_base_plus_each_alternative(swaps, n):
    sc = make(instruments={"swaps": swaps})
    assert len(sc.sets) == n == len(set(sc.sets))
    assert sc.sets[0] == STARTER


def test_swaps_around_another_base():
    sc = make(instruments={"swaps": ["gray"], "base": ["Bass", "Organ", "Drums"]})
    assert sc.sets[0] == ("Bass", "Organ", "Drums")
    assert {s[2] for s in sc.sets} == {"Drums", "Horns", "Clarinet", "Trombone"}
    assert all(s[:2] == ("Bass", "Organ") for s in sc.sets)


@pytest.mark.parametrize(
    "instruments, key, reason",
    [
        ({"sets": [["Violin", "Piano", "Hornz"]]}, "instruments.sets[0][2]", "unknown instrument 'Hornz'"),
        ({"sets": [["Violin", "Bass", "Horns"]]}, "instruments.sets[0]", "both black instruments"),
        ({"sets": [["Violin", "Piano"]]}, "instruments.sets[0]", "exactly 3 instruments"),
        ({"sets": [list(STARTER), ["Horns", "Piano", "Violin"]]}, "instruments.sets[1]", "listed twice"),
        ({"sets": []}, "instruments.sets", "no cells"),
        ({"sets": [list(STARTER)], "all": True}, "instruments", "exactly one of sets, swaps or all"),
        ({}, "instruments", "exactly one of sets, swaps or all"),
        ({"all": False}, "instruments.all", "all = true"),
        ({"swaps": ["purple"]}, "instruments.swaps[0]", "not one of"),
        ({"sets": [list(STARTER)], "base": list(STARTER)}, "instruments.base", "not used with sets"),
        ({"set": [list(STARTER)]}, "instruments.set", "did you mean 'sets'"),
    ],
)
def test_bad_instrument_sets(instruments, key, reason):
    err = error_of(instruments=instruments)
    assert err.file == "s.toml" and err.key == key
    assert reason in err.reason


# =========================================================================== lineups


def test_mirror_and_seats_lineups():
    sc = make(players=[2, 4], lineup={"mirror": ["greedy", "random"]})
    assert sc.lineups[2] == (("greedy", "greedy"), ("random", "random"))
    assert sc.lineups[4] == (("greedy",) * 4, ("random",) * 4)
    sc = make(lineup={"seats": ["greedy", "random", "random", "random"]})
    assert sc.lineups[4] == (("greedy", "random", "random", "random"),)
    sc = make(lineup={"seats": [["greedy", "random", "random", "random"], ["Random", "GREEDY", "greedy", "greedy"]]})
    assert sc.lineups[4][1] == ("random", "greedy", "greedy", "greedy")


def test_seats_per_player_count_checks_every_entry():
    err = error_of(players=[2, 3], lineup={"seats": {"2": ["greedy", "random"], "3": ["greedy", "nobody", "random"]}})
    assert err.key == "lineup.seats.3[1]" and "unknown strategy" in err.reason
    sc = make(
        players=[2, 3],
        lineup={
            "seats": {
                "2": ["greedy", "random"],
                "3": [["greedy", "random", "random"]],
                "4": ["greedy", "random", "random", "random"],
            }
        },
    )
    assert sc.lineups == {2: (("greedy", "random"),), 3: (("greedy", "random", "random"),)}
    err = error_of(players=[2, 3], lineup={"seats": {"2": ["greedy", "random"]}})
    assert err.key == "lineup" and "no lineup for 3 players" in err.reason


def test_round_robin_all_pairs_and_mirrors():
    pool = ["greedy", "random", "specialist:orange"]
    assert round_robin(pool, 2) == [
        ("greedy", "random"),
        ("greedy", "specialist:orange"),
        ("random", "specialist:orange"),
    ]
    four = round_robin(pool, 4)
    assert len(four) == 15 - 3 and all(len(set(c)) > 1 for c in four)
    pairs = round_robin(pool, 4, "pairs")
    assert pairs[:3] == [
        ("greedy",) * 3 + ("random",),
        ("greedy",) * 2 + ("random",) * 2,
        ("greedy",) + ("random",) * 3,
    ]
    assert len(pairs) == 3 * 3 and all(len(set(c)) == 2 for c in pairs)
    assert round_robin(pool, 3, "all", mirrors=True)[:3] == [(s,) * 3 for s in pool]
    sc = make(players=[2, 4], lineup={"round_robin": {"pool": ["greedy", "random", "specialist:Orange"]}})
    assert len(sc.lineups[2]) == 3 and len(sc.lineups[4]) == 12
    assert ("greedy", "specialist:orange") in sc.lineups[2]


def test_lineup_sources_are_united_without_duplicates():
    sc = make(
        players=[2],
        lineup={
            "mirror": "greedy",
            "seats": ["greedy", "greedy"],
            "round_robin": {"pool": ["greedy", "random"], "mirrors": True},
        },
    )
    assert sc.lineups[2] == (("greedy", "greedy"), ("random", "random"), ("greedy", "random"))


@pytest.mark.parametrize(
    "players, lineup, key, reason",
    [
        ([4], {"mirror": "nobody"}, "lineup.mirror", "unknown strategy"),
        ([4], {"seats": ["greedy", "random", "random"]}, "lineup.seats", "needs 4 strategies"),
        ([2, 4], {"seats": ["greedy", "random"]}, "lineup.seats", "one lineup per count"),
        ([4], {"seats": [["greedy"] * 4, ["greedy"] * 3]}, "lineup.seats[1]", "got 3"),
        ([4], {"seats": {"5": ["greedy"] * 5}}, "lineup.seats.5", "player counts"),
        ([4], {"round_robin": {"pool": ["greedy"]}}, "lineup.round_robin.pool", "at least 2"),
        ([4], {"round_robin": {"pool": ["greedy", "random"], "mix": "some"}}, "lineup.round_robin.mix", "not one of"),
        ([4], {"round_robin": {"pool": ["greedy", "specialist:purple"]}}, "lineup.round_robin.pool[1]", "purple"),
        ([4], {}, "lineup", "no cells"),
        ([4], {"mirrors": "greedy"}, "lineup.mirrors", "did you mean 'mirror'"),
    ],
)
def test_bad_lineups(players, lineup, key, reason):
    err = error_of(players=players, lineup=lineup)
    assert (err.file, err.key) == ("s.toml", key)
    assert reason in err.reason


# =========================================================================== top-level keys


@pytest.mark.parametrize(
    "changes, key, reason",
    [
        ({"players": [5]}, "players[0]", "5 players is not supported"),
        ({"players": []}, "players", "no cells"),
        ({"players": [4, 4]}, "players", "twice"),
        ({"games": 0}, "games", "below the minimum 1"),
        ({"seed": -1}, "seed", "below the minimum 0"),
        ({"wheel": "spun"}, "wheel", "not one of"),
        ({"gmes": 3}, "gmes", "did you mean 'games'"),
        ({"instrument_dirs": ["missing"]}, "instrument_dirs[0]", "folder not found"),
    ],
)
def test_bad_top_level_keys(changes, key, reason):
    err = error_of(**changes)
    assert (err.file, err.key) == ("s.toml", key)
    assert reason in err.reason


def test_missing_required_key():
    doc = base_doc()
    del doc["seed"]
    with pytest.raises(DataError) as exc:
        scenario_from_doc(doc, "s.toml")
    assert exc.value.key == "seed" and "missing" in exc.value.reason


def test_toml_syntax_error_names_the_file(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text("name = \n")
    with pytest.raises(DataError) as exc:
        load_scenario(p)
    assert exc.value.file == str(p) and "TOML syntax error" in exc.value.reason


def test_games_round_up_to_whole_deals():
    """A mixed lineup plays every deal in each of its distinct seat rotations; a mirror lineup's
    rotations would replay the same game, so each of its deals is played once."""
    sc = make(games=10, players=[2, 3, 4], lineup={"seats": {"2": ["greedy", "random"], "3": ["greedy", "random", "random"], "4": ["greedy", "random", "greedy", "random"]}})
    assert [(c.players, c.rotations, c.deals, c.games) for c in sc.cells] == [
        (2, 2, 5, 10),
        (3, 3, 4, 12),
        (4, 2, 5, 10),
    ]
    assert sc.total_games == 32
    mirror = make(games=10, players=[3], lineup={"mirror": "greedy"})
    assert [(c.rotations, c.deals, c.games) for c in mirror.cells] == [(1, 10, 10)]


def test_cells_order_and_keys():
    sc = make(
        players=[3, 2],
        instruments={"sets": [list(STARTER), ["Bass", "Piano", "Horns"]]},
        lineup={"mirror": ["greedy", "random"]},
    )
    assert [c.index for c in sc.cells] == list(range(8))
    assert [c.players for c in sc.cells] == [3] * 4 + [2] * 4
    assert sc.cells[1].key == "players=3|black=Violin|orange=Piano|gray=Horns|lineup=random,random,random"
    assert len({c.key for c in sc.cells}) == 8


# =========================================================================== --set


def test_set_values_are_toml_or_text():
    assert parse_value("4") == 4 and parse_value("[2, 3]") == [2, 3] and parse_value("true") is True
    assert parse_value("fixed") == "fixed" and parse_value('"x y"') == "x y"


def test_set_changes_keys_before_validation(tmp_path):
    sc = scenario_from_doc(
        base_doc(),
        "s.toml",
        sets=["players=2", "wheel=fixed", "games=5", "lineup.mirror=random", 'instruments.swaps=["orange"]'],
    )
    assert sc.players == (2,) and sc.wheel == "fixed" and not sc.shuffle_wheels and sc.games == 5
    assert sc.lineups[2] == (("random", "random"),)
    assert len(sc.sets) == 4  # swaps replaced the file's sets
    assert sc.set_args[0] == "players=2"


def test_set_lineup_round_robin_key():
    sc = scenario_from_doc(base_doc(lineup={}), "s.toml", sets=['lineup.round_robin.pool=["greedy","random"]'])
    assert sc.lineups[4][0] == ("greedy", "greedy", "greedy", "random")


@pytest.mark.parametrize(
    "item, key",
    [
        ("gmes=3", "gmes"),
        ("games.x=3", "games.x"),
        ("lineup.mirrors=x", "lineup.mirrors"),
        ("instruments.set=[]", "instruments.set"),
        ("overrides.Horns=3", "overrides.Horns"),
        ("games", "games"),
    ],
)
def test_set_unknown_keys(item, key):
    with pytest.raises(DataError) as exc:
        scenario_from_doc(base_doc(), "s.toml", sets=[item])
    assert exc.value.key == key


def test_games_and_seed_arguments():
    sc = scenario_from_doc(base_doc(), "s.toml", games=12, seed=99)
    assert sc.games == 12 and sc.seed == 99


# =========================================================================== overrides


def _awards(sc, inst, section):
    i = sc.instruments.get(inst)
    return i.section_terms[i.section_ids.index(section)][0].awards


def test_override_changes_the_instrument_through_the_loader():
    sc = make(overrides={"Horns.section.trumpet.score.0.awards": [7, 5, 2]})
    assert _awards(sc, "Horns", "trumpet") == (7, 5, 2)
    assert _awards(sc, "Horns", "saxophone") == (8, 6, 2)
    assert sc.instruments.original("Horns").path.endswith("horns.toml")
    # Nested tables (unquoted dotted keys) and positions mean the same.
    nested = make(overrides={"horns": {"section": {"0": {"score": {"0": {"awards": [7, 5, 2]}}}}}})
    assert _awards(nested, "Horns", "trumpet") == (7, 5, 2)
    assert flatten_overrides({"Horns": {"section": {"trumpet": {"x": 1}}}}) == {"Horns.section.trumpet.x": 1}
    sc = make(overrides={"Horns.instrument.penalty_per_space": 3, "Piano.space.0.number": 3})
    assert sc.instruments.get("Horns").penalty_per_space == 3
    assert sc.instruments.get("Piano").numbers[0] == 3


@pytest.mark.parametrize(
    "key, value, reason",
    [
        ("Hornz.section.trumpet.score.0.awards", [1], "unknown instrument 'Hornz'"),
        ("Horns.section.trumpt.score.0.awards", [1], "no entry with id 'trumpt'"),
        ("Horns.section.trumpet.score.3.awards", [1], "out of range"),
        ("Horns.sektion.trumpet", 1, "no key 'sektion'"),
        ("Horns.section.trumpet.score.0.awards", [-1, 2], "below the minimum 0"),
        ("Horns.section.trumpet.score.0.awardz", [1], "unknown key 'awardz'"),
        ("Horns.instrument.department", "black", "cannot be overridden"),
        ("Horns", 1, "name an instrument and a key path"),
    ],
)
def test_bad_overrides(key, value, reason):
    err = error_of(overrides={key: value})
    assert err.file == "s.toml"
    assert err.key == f'overrides."{key}"' or (err.key == "overrides.Horns" and "." not in key)
    assert reason in err.reason


def test_override_applies_to_every_cell_that_uses_the_instrument():
    sc = make(instruments={"swaps": ["black"]}, overrides={"Horns.section.trumpet.score.0.awards": [7, 5, 2]})
    assert all(c.instruments[2] == "Horns" for c in sc.cells)
    assert _awards(sc, "Horns", "trumpet") == (7, 5, 2)


# =========================================================================== canonical text


def test_canonical_text_round_trips_and_identifies_the_run():
    sc = make(
        overrides={"Horns.section.trumpet.score.0.awards": [7, 5, 2]},
        lineup={
            "seats": {"4": ["greedy", "random", "random", "random"]},
            "round_robin": {"pool": ["greedy", "random"]},
        },
    )
    assert tomllib.loads(sc.text) == sc.doc
    assert make().sha256 == make().sha256
    assert make(games=9).sha256 != make().sha256
    again = scenario_from_doc(tomllib.loads(sc.text), "other.toml")
    assert again.sha256 == sc.sha256 and again.cells == sc.cells


# =========================================================================== seeds and chunks


def test_cell_hash_and_seeds_are_stable():
    # Golden values: a change here changes the deals of every scenario ever run.
    k = cell_key(4, STARTER, ("greedy",) * 4)
    assert k == "players=4|black=Violin|orange=Piano|gray=Horns|lineup=greedy,greedy,greedy,greedy"
    assert cell_hash(k) == 8316691710067322104
    assert deal_seeds(1, k, [0, 1]).tolist() == [4856973588233477810, 12035715598220202332]


def test_deal_seeds_depend_on_run_seed_cell_and_deal_only():
    k1 = cell_key(4, STARTER, ("greedy",) * 4)
    k2 = cell_key(3, STARTER, ("greedy",) * 3)
    a = deal_seeds(1, k1, range(10))
    assert len(set(a.tolist())) == 10
    assert np.array_equal(deal_seeds(1, k1, range(5, 10)), a[5:])
    assert not np.array_equal(deal_seeds(2, k1, range(10)), a)
    assert not np.array_equal(deal_seeds(1, k2, range(10)), a)
    assert cell_seed(1, k1) != cell_seed(1, k2)


def test_rotation_puts_lineup_head_at_seat_rotation():
    assert rotate(("A", "B", "C"), 0) == ("A", "B", "C")
    assert rotate(("A", "B", "C"), 1) == ("C", "A", "B")
    assert rotate(("A", "B", "C"), 2) == ("B", "C", "A")


def test_plan_chunks_cover_every_game_once():
    sc = make(games=10, players=[2, 3, 4])
    plan = plan_chunks(sc.cells, 4)
    assert [r[0] for r in plan] == list(range(len(plan)))
    for cell in sc.cells:
        rows = [r for r in plan if r[1] == cell.index]
        assert rows[0][2] == 0 and rows[-1][3] == cell.games
        assert all(a[3] == b[2] for a, b in itertools.pairwise(rows))


def _spec(sc, cell):
    return sc.cell_specs("test")[cell.index]


@pytest.fixture(scope="module")
def mixed():
    sc = make(games=12, players=[3], lineup={"seats": ["greedy", "random", "random"]})
    cell = sc.cells[0]
    return sc, cell, chunk_tables(ChunkTask(0, _spec(sc, cell), 0, cell.games, sc.seed))


def test_chunk_tables_follow_the_schema(mixed):
    _, cell, (seats, games) = mixed
    assert tuple(seats.columns) == SEAT_COLUMNS and tuple(games.columns) == GAME_COLUMNS
    assert len(games) == cell.games and len(seats) == cell.games * 3
    for df in (seats, games):
        for c in df.columns:
            if c in STRING_COLUMNS:
                assert not pd.api.types.is_numeric_dtype(df[c]), c
            else:
                assert pd.api.types.is_integer_dtype(df[c]), c
    assert (seats[list(SRC_NAMES)].sum(axis=1) == seats["score"]).all()
    assert (seats.groupby("game")["won"].sum() == 1).all()
    assert set(seats["rank"]) <= {1, 2, 3}


def test_paired_design_rotates_the_lineup_over_one_deal(mixed):
    sc, cell, (seats, games) = mixed
    assert (games["game"] == games["deal"] * 3 + games["rotation"]).all()
    # Every rotation of a deal shares the deal's seed; different deals have different seeds.
    per_deal = games.groupby("deal")["seed"].nunique()
    assert (per_deal == 1).all() and games.groupby("deal")["seed"].first().nunique() == 4
    expected = deal_seeds(sc.seed, cell.key, range(4)).view(np.int64)
    assert np.array_equal(games.groupby("deal")["seed"].first().to_numpy(), expected)
    # The greedy seat (lineup position 0) sits at seat = rotation.
    greedy = seats[seats["strategy"] == "greedy"]
    assert (greedy["seat"] == greedy["rotation"]).all() and len(greedy) == cell.games
    win = games["winner_strategy"]
    at = seats.set_index(["game", "seat"])["strategy"]
    assert all(at[(g, w)] == s for g, w, s in zip(games["game"], games["winner"], win))


def test_chunking_does_not_change_the_tables(mixed):
    sc, cell, (seats, games) = mixed
    spec = _spec(sc, cell)
    parts = [chunk_tables(ChunkTask(i, spec, a, b, sc.seed)) for i, (a, b) in enumerate([(0, 5), (5, 7), (7, 12)])]
    pd.testing.assert_frame_equal(pd.concat([p[0] for p in parts], ignore_index=True), seats)
    pd.testing.assert_frame_equal(pd.concat([p[1] for p in parts], ignore_index=True), games)


def test_the_strong_expansion_scenario_asks_every_player_count_and_two_judges():
    """expansion-strong: the 10 sets (the starter set, then 3 alternatives per department) at 2, 3 and
    4 players, judged by greedy and search_leaf mirrors; the starter set first in every player count and
    judge (each department's reference), and any subset one --set away."""
    sc = load_scenario("expansion-strong")
    assert len(sc.cells) == (1 + 3 * 3) * 3 * 2
    groups = {}
    for c in sc.cells:
        assert len(set(c.lineup)) == 1 and len(c.lineup) == c.players and c.paired
        groups.setdefault((c.players, c.lineup[0]), []).append(c)
    assert sorted(groups) == [(n, j) for n in (2, 3, 4) for j in ("greedy", "search_leaf")]
    for (_, judge), cells in groups.items():
        assert len(cells) == 10 and cells[0].instruments == STARTER
        assert all(c.games == (20000 if judge == "greedy" else 10000) for c in cells)
        for c in cells[1:]:  # each alternative differs from the starter set in exactly one department
            assert sum(a != b for a, b in zip(c.instruments, STARTER)) == 1
    sub = load_scenario("expansion-strong", sets=("players=[3]", 'lineup.mirror=["search_leaf"]',
                                                  'instruments.swaps=["orange"]'))
    assert [(c.players, c.lineup[0]) for c in sub.cells] == [(3, "search_leaf")] * 4
    assert sub.cells[0].instruments == STARTER
    # Decided sequentially: each set stops on its instrument verdict, within one budget of seconds.
    for s in (sc, sub, load_scenario("expansion")):
        assert s.sequential.verdicts == ("instruments",) and s.sequential.seconds > 0
    assert load_scenario("expansion", sets=("sequential=false",)).sequential is None
