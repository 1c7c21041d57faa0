"""Echidna Shuffle in the lab: the game registry, scenarios naming the game, runs, results, reports
(the generic seat section and the variant section) and the ``ssb`` commands."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from reports.build import build_report
from reports.frames import setting_of
from reports.io import from_frames
from reports.seats import seat_advantage
from reports.variants import CHANGED, UNCHANGED, compare_variants
from scenarios.generic import GameScenario
from scenarios.results import load_results
from scenarios.runner import run_scenario
from scenarios.load import load_scenario, scenario_from_doc
from simulator import games as registry
from simulator.errors import DataError
from ssb.cli import cli

DOC = {
    "game": "echidna",
    "name": "tiny",
    "seed": 3,
    "games": 12,
    "players": [2, 4],
    "boards": ["forest", "snow"],
    "variants": {"base": {}, "tokens": {"catch_up": True}},
    "lineup": {"mirror": "greedy", "seats": {"2": ["greedy", "random"]}},
}


def test_registry_declares_both_games():
    assert set(registry.names()) == {"shuffle-swing", "echidna"}
    e = registry.get("echidna")
    assert e.player_counts == (2, 3, 4, 5, 6) and e.boards == ("forest", "snow")
    assert {"won", "bugs_home", "moves_made", "moves_lost", "tokens_gained", "tokens_spent", "pickups",
            "deliveries_off_turn"} <= set(e.seat_columns)
    assert {"winner", "rounds", "stalled"} <= set(e.game_columns)
    assert registry.get(None).name == "shuffle-swing" == registry.get("sns").name
    with pytest.raises(DataError) as exc:
        registry.get("chess", "s.toml", "game")
    assert str(exc.value) == "s.toml: game: unknown game 'chess'; known: echidna, shuffle-swing"


def test_play_batch_returns_the_declared_columns():
    e = registry.get("echidna")
    setup = e.setup(3, "snow", None)
    seats, games = e.play_batch(setup, np.arange(5, dtype=np.uint64), e.strategies().matrix(["greedy"] * 3))
    assert set(seats) == set(e.seat_columns) and all(v.shape == (5, 3) for v in seats.values())
    assert set(games) == set(e.game_columns) and all(v.shape == (5,) for v in games.values())


def test_scenario_names_the_game_and_expands_into_cells():
    sc = scenario_from_doc(DOC, "tiny.toml")
    assert isinstance(sc, GameScenario) and sc.game == "echidna"
    # 2 players: mirror + one seated lineup; 4 players: mirror only; x 2 boards x 2 variants.
    assert len(sc.cells) == (2 + 1) * 2 * 2
    a = [c for c in sc.cells if c.players == 2 and c.board == "snow" and c.lineup == ("greedy", "random")]
    assert {c.variant for c in a} == {"base", "tokens"} and len({c.deal_key for c in a}) == 1
    assert a[0].rotations == 2 and a[0].games == 12
    assert load_scenario("echidna-seats").players == (2, 3, 4, 5, 6)


@pytest.mark.parametrize(
    "change, key, reason",
    [
        ({"players": [7]}, "players[0]", "7 players is not supported by Echidna Shuffle"),
        ({"boards": ["glacier"]}, "boards[0]", "unknown board"),
        ({"variants": {"x": {"catch_up": 1}}}, "variants.x.catch_up", "expected true or false"),
        ({"variants": {"x": {"token_schedule": [0, 1]}}}, "variants.x", "with 4 players"),
        ({"lineup": {"mirror": "clever"}}, "lineup.mirror", "unknown Echidna Shuffle strategy"),
        ({"wheel": "fixed"}, "wheel", "unknown key"),
    ],
)
def test_scenario_errors_name_file_and_key(change, key, reason):
    doc = {**DOC, **change}
    with pytest.raises(DataError) as exc:
        scenario_from_doc(doc, "tiny.toml")
    assert exc.value.file == "tiny.toml" and exc.value.key == key and reason in exc.value.reason


def test_seated_lineups_at_five_and_six_players():
    doc = {**DOC, "players": [5, 6], "boards": ["snow"], "lineup": {"seats": {
        "5": ["lookahead", "greedy", "greedy", "greedy", "greedy"], "6": [["random"] * 6, ["saboteur"] + ["greedy"] * 5]}}}
    sc = scenario_from_doc(doc, "tiny.toml")
    assert sorted({(c.players, c.lineup[0]) for c in sc.cells}) == [(5, "lookahead"), (6, "random"), (6, "saboteur")]
    bad = {**doc, "lineup": {"seats": {"5": ["greedy"] * 4}}}
    with pytest.raises(DataError) as exc:
        scenario_from_doc(bad, "tiny.toml")
    assert exc.value.key == "lineup.seats.5" and "needs 5 strategies" in exc.value.reason
    with pytest.raises(DataError) as exc:
        scenario_from_doc({**doc, "lineup": {"seats": {"7": ["greedy"] * 7}}}, "tiny.toml")
    assert exc.value.key == "lineup.seats.7"


def test_run_results_and_report(tmp_path):
    sc = scenario_from_doc(DOC, tmp_path / "tiny.toml")
    one = run_scenario(sc, tmp_path / "a", jobs=1, chunk_size=5, progress=False)
    assert one.games_played == sc.total_games
    seats, games, manifest = load_results(tmp_path / "a")
    assert manifest["game"] == "echidna" and list(games.columns) == manifest["columns"]["games"]
    assert len(seats) == sum(c.games * c.players for c in sc.cells)
    # The same run in other chunks gives the same tables.
    run_scenario(sc, tmp_path / "b", jobs=1, chunk_size=7, progress=False)
    seats2, games2, _ = load_results(tmp_path / "b")
    pd.testing.assert_frame_equal(games, games2)
    pd.testing.assert_frame_equal(seats, seats2)
    # Variants of a setting play the very same deals.
    g = games[(games["players"] == 4) & (games["board"] == "forest")]
    assert (g[g["variant"] == "base"]["seed"].to_numpy() == g[g["variant"] == "tokens"]["seed"].to_numpy()).all()
    # Tokens appear only with the tokens variant, and per-seat counters add up.
    s4 = seats[(seats["players"] == 4)]
    assert (s4[s4["variant"] == "base"]["tokens_gained"] == 0).all()
    assert (s4[s4["variant"] == "tokens"].groupby("seat")["tokens_gained"].min().to_numpy() == [0, 1, 2, 3]).all()
    assert (games["stalled"] + (games["winner"] >= 0) == 1).all()
    rep = build_report(from_frames(seats, games, manifest))
    assert [s.key for s in rep.sections] == ["seats", "strategies", "variants", "shape"]
    assert rep.title == "Echidna Shuffle balance report: tiny"
    # The seat section is the generic one, on the game's own setting columns (board and variant).
    adv = seat_advantage(games, setting=setting_of(registry.get("echidna")))
    assert set(adv.cells["setting"]) == {f"{b}/{v}" for b in ("forest", "snow") for v in ("base", "tokens")}
    assert len(adv.cells) == len(rep.headline) == len({(c.players, c.board, c.variant, c.lineup) for c in sc.cells})
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "a"), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep" / "variant_changes.csv").exists() and "Echidna Shuffle" in (tmp_path / "rep" / "summary.md").read_text()


def _paired(n_deals, rate_a, rate_b, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for v, r in (("base", rate_a), ("other", rate_b)):
        for d in range(n_deals):
            rows.append({"players": 2, "board": "forest", "lineup": "greedy,greedy", "variant": v, "deal": d,
                         "winner": int(rng.random() >= r), "rounds": 30 + (5 if v == "other" else 0)})
    return pd.DataFrame(rows)


def test_variant_section_verdicts():
    _, ch, settings = compare_variants(_paired(4000, 0.5, 0.5, 1), "base", margin=0.05)
    seat0 = ch[ch["seat"] == 0].iloc[0]
    assert seat0["verdict"] == UNCHANGED
    assert ch[ch["seat"] < 0].iloc[0]["verdict"] == "longer"
    _, ch, settings = compare_variants(_paired(4000, 0.5, 0.8, 2), "base", margin=0.05)
    seat0 = ch[ch["seat"] == 0].iloc[0]
    assert seat0["verdict"] == CHANGED and 0.25 < seat0["change"] < 0.35
    fair = settings.set_index("variant")
    assert bool(fair.loc["base", "fairest"]) and bool(fair.loc["base", "fairest_shown"])


def test_cli_play_matches_the_golden_game_and_check_and_draw(tmp_path):
    from test_echidna_golden import golden_text

    r = CliRunner().invoke(cli, ["play", "--game", "echidna", "--players", "4", "--board", "forest", "--seed", "7"])
    assert r.exit_code == 0, r.output
    assert r.stdout == golden_text("echidna_forest_4p_greedy_seed7")
    r = CliRunner().invoke(cli, ["play", "--game", "echidna", "--players", "3", "--json", "--variant", "catch_up"])
    assert r.exit_code == 0 and '"game": "echidna"' in r.stdout
    r = CliRunner().invoke(cli, ["check", "--game", "echidna", "--games", "30", "--players", "2,5"])
    assert r.exit_code == 0 and r.stdout.count("no violation") == 5, r.output
    out = tmp_path / "snow.png"
    r = CliRunner().invoke(cli, ["boards", "draw", "snow", "-o", str(out)])
    assert r.exit_code == 0 and out.stat().st_size > 10_000
    r = CliRunner().invoke(cli, ["play", "--game", "echidna", "--variant", "home_strech"])
    assert r.exit_code == 2 and "did you mean 'home_stretch'" in r.stderr


def test_set_replaces_the_variants_table_or_one_switch():
    """``--set variants={...}`` replaces the whole table; ``--set variants.NAME.SWITCH=...`` one switch."""
    sc = scenario_from_doc(DOC, "tiny.toml", sets=['variants={a={}, b={pickup_order="random"}}'])
    assert sorted({c.variant for c in sc.cells}) == ["a", "b"]
    sc = scenario_from_doc(DOC, "tiny.toml", sets=["variants.tokens.home_stretch=true"])
    assert sorted({c.variant for c in sc.cells}) == ["base", "tokens"]
    assert sc.doc["variants"]["tokens"] == {"catch_up": True, "home_stretch": True}


def test_stalled_games_do_not_read_as_unfairness():
    """Stalls spread evenly over the seats lower every win rate alike: the variant stays fair."""
    rng = np.random.default_rng(4)
    rows = []
    for variant, stall in (("base", 0.0), ("stally", 0.3)):
        for deal in range(3000):
            stalled = rng.random() < stall
            winner = -1 if stalled else int(rng.integers(0, 2))
            rows.append({"players": 2, "board": "forest", "lineup": "greedy x2", "variant": variant, "deal": deal,
                         "winner": winner, "rounds": 50})
    _, _, settings = compare_variants(pd.DataFrame(rows), "base", margin=0.03)
    unfair = settings.set_index("variant")["unfairness"]
    assert unfair["stally"] < 0.03 and unfair["base"] < 0.03


def test_variant_words_name_a_list_valued_switch_by_its_value():
    from reports.sections.variants import variant_words

    text = 'variants = { gentle = { catch_up = true, token_schedule = [0, 1, 1, 2, 2, 3] } }'
    words = variant_words({"scenario": {"text": text}}, [("catch_up", True, "the catch-up tokens")])
    assert words == {"gentle": "the catch-up tokens and token schedule [0, 1, 1, 2, 2, 3]"}
