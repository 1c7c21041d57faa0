"""The race of ``ssb tune`` (``[search] method = "race"``): its tuning file, board keys in the
search space, and mistakes that exit 2 naming the file and the key."""

import json

import pytest

from cli_harness import Case, check_case
from scenarios.tuning import load_tuning
from simulator.errors import DataError

SCENARIO = """
name = "tiny"
seed = 3
games = 4000
players = [2, 3]
[instruments]
sets = [["Violin", "Piano", "Horns"]]
[lineup]
mirror = ["greedy", "tuned"]
[sequential]
margin = 0.03
indifference = 0.01
seconds = 60
cost = { greedy = 0.3, tuned = 0.4 }
"""

RACE = """
name = "tiny-race"
scenario = "tiny.toml"
seed = 9
[judges]
race = ["greedy", "tuned"]
[search]
method = "race"
seconds = 30
[[target]]
kind = "seats_fair"
players = [3]
[[target]]
kind = "seats_not_unfair"
players = [2]
judges = ["tuned"]
[space]
# the R13 tie-break readings
"board.rulings.tie_break" = { values = ["earliest", "shared"] }
"board.seats.start_points.3" = { values = [[1, 0, 0], [2, 1, 0], [4, 2, 0]] }
"""


def write(tmp_path, race=RACE, scenario=SCENARIO):
    (tmp_path / "tiny.toml").write_text(scenario)
    p = tmp_path / "race.toml"
    p.write_text(race)
    return p


def test_a_race_file_reads_its_judges_zone_costs_and_board_keys(tmp_path):
    spec = load_tuning(write(tmp_path))
    assert spec.method == "race"
    assert [j.label for j in spec.race_judges] == ["greedy", "tuned"]
    # The zone test's settings are the scenario's [sequential] (the verdicts ssb run prints).
    assert spec.zone == {"test": "zone", "margin": 0.03, "indifference": 0.01, "confidence": 0.95}
    s = spec.settings
    assert s["seconds"] == 30.0 and s["cost"] == {"greedy": 0.3, "tuned": 0.4} and s["keep"] == 0.5
    # A first round of about 5 declared CPU seconds, within 100 to 2000 deals.
    assert s["round"] == {"greedy": 2000, "tuned": 2000} and s["games"] == 4000
    fair, constraint = spec.targets
    assert fair["kind"] == "seats_fair" and fair["players"] == (3,) and fair["judges"] == ("greedy", "tuned")
    assert constraint["players"] == (2,) and constraint["judges"] == ("tuned",)
    tb, sp = spec.params
    assert tb.base == "latest" and tb.values == ("earliest", "shared")
    # A seat row the board leaves out reads as the rulebook's set-up.
    assert sp.base == [0, 0, 0]
    # A per-seat vector changes by its summed distance over the largest listed one.
    assert sp.change([1, 0, 0]) == pytest.approx(1 / 6) and sp.change([4, 2, 0]) == 1.0
    assert sp.change([0, 0, 0]) == 0.0


def test_the_study_is_the_default_and_its_document_is_unchanged(tmp_path):
    study = RACE.replace('race = ["greedy", "tuned"]', 'search = { mirror = "greedy" }')
    study = study.replace('method = "race"\nseconds = 30', 'trials = 3')
    study = study.replace('kind = "seats_fair"', 'kind = "seats_balanced"')
    study = study.replace('kind = "seats_not_unfair"\nplayers = [2]\njudges = ["tuned"]', 'kind = "rounds"\nrange = [1, 99]')
    plain = SCENARIO.split("[sequential]")[0]
    a = load_tuning(write(tmp_path, study, plain))
    b = load_tuning(write(tmp_path, study.replace("trials = 3", 'trials = 3\nmethod = "study"'), plain))
    assert a.method == b.method == "study" and a.sha256 == b.sha256


@pytest.mark.parametrize(
    "old, new, key, fragment",
    [
        ('method = "race"', 'method = "sprint"', "search.method", "sprint"),
        ("seconds = 30", "seconds = 0", "search.seconds", "above 0"),
        ("seconds = 30", "", "search.seconds", "missing"),
        ("seconds = 30", "seconds = 30\nkeep = 1.5", "search.keep", "between 0 and 1"),
        ("seconds = 30", "seconds = 30\ncost = { search = 3 }", "search.cost.search", "greedy, tuned"),
        ('kind = "seats_fair"', 'kind = "rounds"', "target[0].kind", "a target of the study"),
        ('judges = ["tuned"]', 'judges = ["search"]', "target[1].judges[0]", "not a race judge"),
        ('race = ["greedy", "tuned"]', 'race = ["greedy", "nobody"]', "judges.race[1]", "nobody"),
        ('race = ["greedy", "tuned"]', 'search = { mirror = "greedy" }', "judges.search", "race"),
        ("[[target]]\nkind = \"seats_fair\"\nplayers = [3]\n", "", "target", "seats_fair"),
        ('"board.seats.start_points.3" = { values = [[1, 0, 0], [2, 1, 0], [4, 2, 0]] }',
         '"board.seats.start_points.3" = { values = [[1, 0]] }', 'space."board.seats.start_points.3"', "3 values"),
        ('"board.seats.start_points.3"', '"board.seats.start_points"', 'space."board.seats.start_points"',
         "board.seats.KEY.PLAYERS"),
        ('{ values = ["earliest", "shared"] }', '{ values = ["first"] }', 'space."board.rulings.tie_break"', "first"),
        ('"board.rulings.tie_break"', '"board.rulings.nothing"', 'space."board.rulings.nothing"', "nothing"),
    ],
)
def test_race_mistakes_name_the_file_the_key_and_the_reason(tmp_path, old, new, key, fragment):
    assert old in RACE
    with pytest.raises(DataError) as exc:
        load_tuning(write(tmp_path, RACE.replace(old, new, 1)))
    assert exc.value.key == key, str(exc.value)
    assert fragment in exc.value.reason, str(exc.value)
    assert str(exc.value).startswith(str(tmp_path / "race.toml")), str(exc.value)


def test_a_race_key_in_a_study_file_is_refused(tmp_path):
    study = RACE.replace('race = ["greedy", "tuned"]', 'search = { mirror = "greedy" }\nrace = ["greedy"]')
    study = study.replace('method = "race"\nseconds = 30', "trials = 3")
    study = study.replace('kind = "seats_fair"', 'kind = "seats_balanced"')
    study = study.replace('kind = "seats_not_unfair"\nplayers = [2]\njudges = ["tuned"]', 'kind = "rounds"\nrange = [1, 99]')
    with pytest.raises(DataError) as exc:
        load_tuning(write(tmp_path, study, SCENARIO.split("[sequential]")[0]))
    assert exc.value.key == "judges.race"


CLI_CASES = [
    Case("race-bad-method", ["tune", "{tmp}/race.toml", "--jobs", "1"], ["race.toml", "search.method", "sprint"],
         setup=lambda t: write(t, RACE.replace('method = "race"', 'method = "sprint"'))),
    Case("race-bad-board-key", ["tune", "{tmp}/race.toml", "--jobs", "1"],
         ["race.toml", 'space."board.seats.start_points.3"', "3 values"],
         setup=lambda t: write(t, RACE.replace("[1, 0, 0], [2, 1, 0], [4, 2, 0]", "[1, 0]"))),
]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_race_cli_mistakes_exit_2_and_write_nothing(case, tmp_path, monkeypatch):
    check_case(case, tmp_path, monkeypatch)


# =========================================================================== the race itself

TINY_RACE = """
name = "tiny-race"
scenario = "tiny.toml"
seed = 9
[judges]
race = ["greedy"]
[search]
method = "race"
seconds = 4
round = { greedy = 300 }
[[target]]
kind = "seats_fair"
players = [3]
[[target]]
kind = "seats_not_unfair"
players = [2]
[space]
# Planted: 30 starting points (counted in the final total, R12 and R13) decide a game, so the race needs a few hundred deals to drop them.
"board.seats.start_points.3" = { values = [[30, 0, 0], [0, 0, 30], [1, 0, 0]] }
"""


def _race(tmp_path, text=TINY_RACE, out="out", **kw):
    from scenarios.tuning.race import Race

    spec = load_tuning(write(tmp_path, text))
    return Race(spec, tmp_path / out, progress=False, **kw).run()


def _answer(result):
    """The race's answer without what a process measures (its CPU and wall time)."""
    doc = json.loads(json.dumps(result))
    for k in ("cpu_seconds", "wall_seconds_this_process"):
        doc["cost"].pop(k)
    doc.pop("jobs")
    return doc


def test_a_planted_lever_is_dropped_within_a_round_and_the_small_change_met(tmp_path):
    result = _race(tmp_path)
    by = {json.dumps(r["changes"][0]["after"]): r for r in result["candidates"]}
    for planted in ("[30, 0, 0]", "[0, 0, 30]"):
        rec = by[planted]
        assert rec["state"] == "dropped" and rec["round"] == 0
        assert rec["reason"] == "3p greedy decided unfair"
        assert rec["cells"]["3p greedy"]["verdict"] == "unfair" and rec["cells"]["3p greedy"]["deals"] == 300
    fix = result["fix"]
    assert fix is not None and fix["changes"][0]["after"] == [1, 0, 0] and fix["state"] == "met"
    assert fix["cells"]["3p greedy"]["verdict"] == "fair"
    # The unchanged 2-player cell is one cell for every candidate: played once, on the same deals.
    assert len({json.dumps(r["cells"]["2p greedy"]) for r in result["candidates"]}) == 1
    # The budget: games priced at the scenario's declared 0.3 ms each, never beyond the seconds.
    cost = result["cost"]
    assert cost["seconds_spent"] == pytest.approx(cost["games"] * 0.0003) and cost["seconds_spent"] <= 4
    progress = json.loads((tmp_path / "out" / "progress.json").read_text())
    assert progress["state"] == "met" and progress["candidates"] == 3 and progress["dropped"] == 2
    assert progress["met"] == 1 and progress["best"]["changes"] == {"board.seats.start_points.3": [1, 0, 0]}
    assert progress["seconds_spent"] == pytest.approx(cost["seconds_spent"])


def test_the_budget_stops_the_race_and_says_how_close_each_came(tmp_path):
    result = _race(tmp_path, TINY_RACE.replace("seconds = 4", "seconds = 0.5"))
    assert result["fix"] is None and result["stop"] == "budget"
    assert result["cost"]["seconds_spent"] <= 0.5 + 1e-9
    # The closest first: the small change, still undecided, then the two dropped.
    first = result["candidates"][0]
    assert first["changes"][0]["after"] == [1, 0, 0] and first["state"] in ("racing", "bench")
    assert first["cells"]["3p greedy"]["distance"] < 5


def test_resume_after_an_interruption_gives_the_uninterrupted_answer(tmp_path):
    whole = _race(tmp_path, out="whole")
    with pytest.raises(KeyboardInterrupt):
        _race(tmp_path, out="cut", stop_after=1)
    assert json.loads((tmp_path / "cut" / "progress.json").read_text())["state"] == "racing"
    with pytest.raises(DataError):  # a folder holding a race is not overwritten by accident
        _race(tmp_path, out="cut")
    resumed = _race(tmp_path, out="cut", resume=True)
    assert _answer(resumed) == _answer(whole)


def test_the_answer_does_not_depend_on_the_number_of_jobs(tmp_path):
    assert _answer(_race(tmp_path, out="one", jobs=1)) == _answer(_race(tmp_path, out="two", jobs=2))


def test_seat_levers_of_another_player_count_share_the_cells():
    from scenarios.tuning.race import relevant

    over = {"board.seats.start_points.3": [1, 0, 0], "board.seats.start_points.4": [1, 1, 0, 0],
            "board.rulings.tie_break": "earliest", "Horns.instrument.penalty_per_space": 2}
    assert relevant(over, 3) == {k: v for k, v in over.items() if k != "board.seats.start_points.4"}
    assert relevant(over, 2) == {"board.rulings.tie_break": "earliest", "Horns.instrument.penalty_per_space": 2}


def test_a_per_count_r13_reading_is_searched_from_the_rulings_word_and_shares_the_other_counts_cells(tmp_path):
    """``board.seats.tie_break.3`` (R13 read at 3 players only) starts from [rulings]'s word, and a
    candidate with it plays the 2- and 4-player cells of the unchanged game."""
    from scenarios.tuning.race import relevant

    race = RACE.replace('"board.rulings.tie_break" = { values = ["earliest", "shared"] }',
                        '"board.seats.tie_break.3" = { values = ["shared", "earliest"] }')
    tb, _ = load_tuning(write(tmp_path, race)).params
    assert tb.key == "board.seats.tie_break.3" and tb.base == "latest" and tb.values == ("shared", "earliest")
    over = {"board.seats.tie_break.3": "shared", "board.seats.tie_break.4": "earliest"}
    assert relevant(over, 3) == {"board.seats.tie_break.3": "shared"} and relevant(over, 2) == {}
    bad = race.replace('values = ["shared", "earliest"]', 'values = ["shared", "first"]')
    with pytest.raises(DataError) as err:
        load_tuning(write(tmp_path, bad))
    assert "seats.tie_break.3" in str(err.value) and "earliest" in str(err.value)


def test_the_command_writes_the_summary_and_the_overrides(tmp_path, monkeypatch):
    from cli_harness import invoke

    write(tmp_path, TINY_RACE)
    monkeypatch.chdir(tmp_path)
    res = invoke("tune", "race.toml", "--jobs", "1", "--out", "o", "-q")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "overrides.toml").read_text() == '[overrides]\n"board.seats.start_points.3" = [1, 0, 0]\n'
    md = (tmp_path / "o" / "summary.md").read_text()
    assert "**Found:** board.seats.start_points.3 [0, 0, 0] -> [1, 0, 0]" in md
    assert "dropped: 3p greedy decided unfair" in md
    again = invoke("tune", "race.toml", "--jobs", "1", "--out", "o", "-q")
    assert again.exit_code == 2 and "--resume" in again.output


def test_the_shipped_race_reads_and_starter_fixed_keeps_the_starter_judges_and_sequential_settings():
    from scenarios.load import load_scenario
    from scenarios.spec import find_scenario

    spec = load_tuning("starter-seats")
    assert spec.method == "race" and [j.label for j in spec.race_judges] == ["greedy", "search_leaf"]
    starter = load_scenario(find_scenario("starter"))
    fixed = load_scenario(find_scenario("starter-fixed"))
    assert fixed.doc["lineup"] == starter.doc["lineup"] and fixed.doc["sequential"] == starter.doc["sequential"]
    assert fixed.seed == starter.seed and fixed.players == starter.players
    # The change is in the scenario's overrides, each a key the race searched.
    assert fixed.overrides and set(fixed.overrides) <= {p.key for p in spec.params}


def test_a_candidate_with_a_cell_not_played_ranks_after_every_played_one(tmp_path):
    """A candidate dropped by a cheap judge never plays the expensive judge's cell: the answer's
    ranking puts it after the candidates whose cells were all played (and can compare them)."""
    from scenarios.tuning.race import Race, cell_label

    spec = load_tuning(write(tmp_path, TINY_RACE))
    race = Race(spec, tmp_path / "o", progress=False)
    labels = [cell_label(n, j) for (n, j) in race.cells]
    key = "board.seats.start_points.3"
    state = {"store": {"k": {}}, "candidates": {
        "all": {"cells": {lab: "k" for lab in labels}, "changes": {key: [1, 0, 0]}},
        "part": {"cells": {labels[0]: "k"}, "changes": {key: [30, 0, 0]}},
    }}
    race._distance = lambda st, need: 0.02
    assert sorted(["part", "all"], key=lambda c: race.score(state, c)) == ["all", "part"]
