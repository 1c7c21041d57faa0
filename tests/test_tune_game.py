"""Balance search (``ssb tune``) for another game than Shuffle and Swing: Echidna Shuffle.

The search keys are the game's variant switches (``catch_up``, ``token_schedule.0``, ...), the
targets the verdicts its report gives (seat balance on games that did not stall, game length,
stalled games). Small: 2-player greedy games, a few hundred per cell.
"""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reports.tune.verdicts import FAILED, MET, judge
from scenarios.runner import dispatcher
from scenarios.tuning import (
    GamePlayer,
    Tuner,
    apply_switches,
    candidate_scenario,
    changed_files,
    data_diff,
    load_tuning,
)
from simulator import games as registry
from simulator.errors import DataError
from ssb.cli import cli

# A planted problem: every one of the 25 move tokens to the first seat (E7 lets a schedule be
# data). With greedy players at 2 players the first seat then wins about 55% of the games, against
# about 48% without tokens; a smaller first entry restores balance.
SCENARIO = """
game = "echidna"
name = "planted"
seed = 5
games = 400
players = [2]
boards = ["forest"]
reference = "planted"

[variants]
planted = { catch_up = true, token_schedule = [25, 0] }

[lineup]
mirror = "greedy"
"""

TUNE = """
name = "planted-tokens"
scenario = "planted.toml"
seed = 2
variant = "planted"

[judges]
search = { mirror = "greedy" }

[search]
max_keys = 1
trials = 5
restarts = 1
rungs = [500, 1500]
batch = 2
confirm_games = 2000
confirm_max = 2

[[target]]
kind = "seats_balanced"
players = [2]
margin = 0.04

[space]
"token_schedule.0" = { range = [0, 25] }
"""


def write(tmp_path, tune=TUNE, scenario=SCENARIO):
    (tmp_path / "planted.toml").write_text(scenario)
    p = tmp_path / "tune.toml"
    p.write_text(tune)
    return p


def expect_error(tmp_path, text, key, fragment, scenario=SCENARIO):
    with pytest.raises(DataError) as exc:
        load_tuning(write(tmp_path, text, scenario))
    err = exc.value
    assert err.file == str(tmp_path / "tune.toml")
    assert err.key == key, (err.key, err.reason)
    assert fragment in err.reason, err.reason


def _answer(result):
    return {k: result[k] for k in ("fix", "runners_up", "unconfirmed", "stages", "before")}


# --------------------------------------------------------------------------- the space


def test_switch_keys_resolve_to_the_variant_and_the_games_data(tmp_path):
    text = TUNE.replace('"token_schedule.0" = { range = [0, 25] }',
                        '"token_schedule.0" = { range = [10, 25] }\n'
                        'max_rounds = { range = [50, 300] }\n'
                        'home_stretch = { values = [true] }\n'
                        'extra_bugs = { values = [true] }')
    spec = load_tuning(write(tmp_path, text))
    by_key = {p.key: p for p in spec.params}
    assert spec.game == "echidna" and spec.variant == "planted" and spec.boards == ("forest",)
    assert by_key["token_schedule.0"].base == 25  # written in the variant
    assert by_key["max_rounds"].base == 200  # not written: game.toml's stall cap (E9)
    assert by_key["home_stretch"].base is False and by_key["home_stretch"].options() == [True]
    assert by_key["extra_bugs"].base is False
    # A whole list is a key too (its values are whole schedules).
    whole = load_tuning(write(tmp_path, TUNE.replace('"token_schedule.0" = { range = [0, 25] }',
                                                     'token_schedule = { values = [[0, 1], [1, 0]] }')))
    assert whole.params[0].base == [25, 0] and whole.params[0].options() == [[0, 1], [1, 0]]
    # The seat verdict leaves stalled games out, so a stall target is added when the file has none.
    assert [t["kind"] for t in spec.targets] == ["seats_balanced", "stalled"]


def test_apply_switches_fills_a_list_from_the_games_data():
    game = registry.get("echidna")
    # The rulebook's schedule (game.toml, E7) is the base of one entry's change.
    assert apply_switches(game, {"catch_up": True}, {"token_schedule.0": 4}) == {
        "catch_up": True, "token_schedule": [4, 1, 2, 3, 4, 5]}
    assert apply_switches(game, {}, {"catch_up": True, "max_rounds": 90}) == {"catch_up": True, "max_rounds": 90}


@pytest.mark.parametrize(
    "old,new,key,fragment",
    [
        ('"token_schedule.0" = { range = [0, 25] }', '"tokens" = { range = [0, 3] }', "space.tokens",
         "'tokens' is not a switch of Echidna Shuffle's variants"),
        ('"token_schedule.0" = { range = [0, 25] }', '"token_schedule.2" = { range = [0, 3] }',
         'space."token_schedule.2"', "has 2 entries; index 2 is out of range"),
        ('"token_schedule.0" = { range = [0, 25] }', 'catch_up = { range = [0, 1] }', "space.catch_up.range",
         "not a number"),
        # Each range end is packed: 26 tokens are more than the supply (and more than a seat can hold).
        ('"token_schedule.0" = { range = [0, 25] }', '"token_schedule.1" = { range = [0, 26] }',
         'space."token_schedule.1"', "26 is refused"),
        ('"token_schedule.0" = { range = [0, 25] }', 'max_rounds = { values = [0] }',
         "space.max_rounds", "0 is refused"),
        ('"token_schedule.0" = { range = [0, 25] }', 'catch_up = { values = [1] }', "space.catch_up.values[0]",
         "not of its type"),
        ('kind = "seats_balanced"', 'kind = "built_rate"\ninstrument = "Horns"', "target[0].kind",
         "Echidna Shuffle has none"),
        ("players = [2]\nmargin", "players = [7]\nmargin", "target[0].players[0]", "7 players is not supported"),
        ('variant = "planted"', 'variant = "nosuch"', "variant", "'nosuch' is not a variant of the scenario"),
        ('variant = "planted"', 'variant = "planted"\nboards = ["snow"]', "boards[0]",
         "'snow' is not a board of the scenario"),
    ],
)
def test_mistakes_name_the_file_the_key_and_the_reason(tmp_path, old, new, key, fragment):
    assert old in TUNE
    expect_error(tmp_path, TUNE.replace(old, new), key, fragment)


def test_a_list_and_its_entry_are_not_searched_together(tmp_path):
    text = TUNE.replace('"token_schedule.0" = { range = [0, 25] }',
                        'token_schedule = { values = [[0, 0]] }\n"token_schedule.0" = { range = [0, 25] }')
    expect_error(tmp_path, text, 'space."token_schedule.0"', "searched as a whole")


def test_a_stall_target_out_of_range_is_refused(tmp_path):
    text = TUNE.replace("[space]", '[[target]]\nkind = "stalled"\nat_most = 1.5\n\n[space]')
    expect_error(tmp_path, text, "target[1].at_most", "a fraction of games")


def test_first_game_files_refuse_the_other_games_keys(tmp_path):
    shuffle = 'name = "tiny"\nseed = 3\ngames = 40\nplayers = [2]\n[instruments]\nsets = [["Violin", "Piano", "Horns"]]\n[lineup]\nmirror = "greedy"\n'
    text = ('name = "t"\nscenario = "planted.toml"\nseed = 1\nvariant = "base"\n[judges]\nsearch = "greedy"\n'
            '[[target]]\nkind = "rounds"\nrange = [1, 200]\n[space]\n"Horns.instrument.penalty_per_space" = { range = [1, 3] }\n')
    expect_error(tmp_path, text, "variant", "only a scenario of another game", scenario=shuffle)


def test_cli_error_exits_2_without_a_traceback(tmp_path):
    path = write(tmp_path, TUNE.replace('variant = "planted"', 'variant = "nosuch"'))
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["tune", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 2
    assert f"error: {path}: variant: 'nosuch' is not a variant" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


# --------------------------------------------------------------------------- judging


def test_a_combination_over_the_supply_is_refused_not_a_crash(tmp_path):
    text = TUNE.replace('"token_schedule.0" = { range = [0, 25] }',
                        '"token_schedule.0" = { range = [0, 25] }\n"token_schedule.1" = { range = [0, 25] }')
    spec = load_tuning(write(tmp_path, text, SCENARIO.replace("[25, 0]", "[0, 0]")))
    with pytest.raises(DataError, match="supply"):
        candidate_scenario(spec, {"token_schedule.0": 20, "token_schedule.1": 20}, spec.search_judge, (2,), 10, 1)
    tuner = Tuner(spec, judge, tmp_path / "out", jobs=1, progress=False)
    with dispatcher("local", 1, None) as d:
        tuner.player = GamePlayer(d, 1)
        refused, fine = tuner._race([{"token_schedule.0": 20, "token_schedule.1": 20}, {"token_schedule.0": 10}],
                                    seed=1)
    assert refused.state == "refused" and all(v["state"] == FAILED for v in refused.verdicts)
    assert "supply" in refused.verdicts[0]["detail"]
    assert fine.state in (MET, "unmet") and fine.games > 0


def test_a_candidate_that_stalls_often_fails(tmp_path):
    """The seat verdict drops stalled games, so a stall cap far below a game's length would leave a
    few short games that look balanced: the stall target must fail it."""
    text = TUNE.replace('"token_schedule.0" = { range = [0, 25] }', "max_rounds = { range = [10, 200] }")
    spec = load_tuning(write(tmp_path, text))
    sc = candidate_scenario(spec, {"max_rounds": 10}, spec.search_judge, (2,), 200, 1)
    tuner = Tuner(spec, judge, tmp_path / "out", jobs=1, progress=False)
    with dispatcher("local", 1, None) as d:
        tuner.player = GamePlayer(d, 1)
        ((seats, games),) = tuner.player.tables([sc])
    assert games["stalled"].mean() > 0.9  # 2-player games last about 50 rounds
    verdicts = {v.kind: v for v in judge(seats, games, list(spec.targets))}
    assert verdicts["stalled"].state == FAILED and verdicts["stalled"].lo > 0.02
    # A rounds target reads every game, stalled or not: capped at 10 rounds.
    (rounds,) = judge(seats, games, [{"kind": "rounds", "label": "r", "players": (2,), "range": (20, 80)}])
    assert rounds.state == FAILED and rounds.estimate <= 10


# --------------------------------------------------------------------------- the search


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("planted")
    spec = load_tuning(write(tmp))
    return spec, Tuner(spec, judge, tmp / "one", jobs=1, progress=False).run(), tmp


def test_the_planted_schedule_is_found_and_fixed(planted):
    spec, result, _ = planted
    before = result["before"][0]["verdicts"]
    assert before[0]["kind"] == "seats_balanced" and before[0]["state"] != MET
    assert before[0]["estimate"] > 0.04  # the first seat's edge, on fresh deals
    fix = result["fix"]
    assert fix is not None, result["runners_up"]
    (change,) = fix["changes"]
    assert change["key"] == "token_schedule.0" and change["before"] == 25 and change["after"] < 25
    stage = fix["confirmation"]["stages"][0]
    assert stage["role"] == "search" and stage["passed"] and stage["games"] == 2000
    assert all(v["state"] == MET for v in stage["verdicts"])
    # Robustness: one row per player count and board of the scenario.
    assert [(r["players"], r["board"]) for r in result["robustness"]] == [(2, "forest")]


def test_the_answer_is_the_changed_scenario(planted, tmp_path):
    from ssb.tune_cmd import write_answer

    spec, result, _ = planted
    paths = write_answer(spec, result, tmp_path)
    after = result["fix"]["changes"][0]["after"]
    diff = (tmp_path / "data.diff").read_text()
    assert "-planted = { catch_up = true, token_schedule = [25, 0] }" in diff
    assert f"+planted = {{ catch_up = true, token_schedule = [{after}, 0] }}" in diff
    assert "Diff of the scenario (variant `planted`)" in (tmp_path / "summary.md").read_text()
    # The written scenario plays as it is, with the new schedule.
    from scenarios.load import load_scenario

    (written,) = [p for p in paths if p.parent.name == "scenario"]
    sc = load_scenario(written)
    assert sc.variants["planted"].token_schedule == (after, 0)
    files = changed_files(spec, {"token_schedule.0": after})
    assert data_diff(files) == diff


def test_the_answer_does_not_depend_on_the_number_of_jobs(planted):
    spec, one, tmp = planted
    two = Tuner(spec, judge, tmp / "two", jobs=2, progress=False).run()
    assert _answer(one) == _answer(two)
    assert one["cost"]["total"] == two["cost"]["total"] > 0


def test_resume_after_an_interruption_gives_the_uninterrupted_answer(planted):
    spec, whole, tmp = planted
    with pytest.raises(KeyboardInterrupt):
        Tuner(spec, judge, tmp / "cut", jobs=1, progress=False, stop_after=2).run()
    resumed = Tuner(spec, judge, tmp / "cut", jobs=1, progress=False, resume=True).run()
    assert _answer(resumed) == _answer(whole)
    assert json.loads((tmp / "cut" / "tune.json").read_text())["fix"] == whole["fix"]


def test_no_fix_reports_the_closest_candidate_on_fresh_deals(tmp_path):
    """A space that cannot remove the planted edge (the home stretch, E8, leaves the schedule alone):
    no fix, and the closest candidate is re-played on fresh deals as the evidence."""
    from reports.tune.summary import to_markdown

    text = TUNE.replace('"token_schedule.0" = { range = [0, 25] }', "home_stretch = { values = [true] }")
    text = text.replace("confirm_games = 2000", "confirm_games = 1500")
    spec = load_tuning(write(tmp_path, text))
    result = Tuner(spec, judge, tmp_path / "out", jobs=1, progress=False).run()
    assert result["fix"] is None
    near = result["closest"]
    assert near["changes"] == [{"key": "home_stretch", "before": False, "after": True, "change": 1.0}]
    (stage,) = near["confirmation"]["stages"]
    assert stage["games"] == 1500 and not stage["passed"] and abs(stage["verdicts"][0]["estimate"]) > 0.03
    assert result["cost"]["closest"] > 0
    assert "Closest candidate of the whole search" in to_markdown(result)


def test_shipped_echidna_tuning_is_valid():
    spec = load_tuning("echidna-tokens")
    assert spec.game == "echidna" and spec.boards == ("forest",)
    assert {p.key for p in spec.params} == {f"token_schedule.{i}" for i in range(4)}
    assert Path(spec.scenario.path).name == "echidna-4p.toml"
