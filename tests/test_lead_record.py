"""The per-round lead record (simulator.lead_record, scenarios.record): the same games as without it,
rows that agree with the final state, the scenario key, the tables, the report section; and the
meta-game's equilibrium (reports.metagame) on games whose answer is known."""

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from reports import metagame
from scenarios.record import LEAD_COLUMN
from scenarios.results import load_results
from scenarios.runner import run_scenario
from scenarios.load import load_scenario
from simulator.errors import DataError

TINY = """\
name = "tiny-lead"
seed = 5
games = 12
players = [2, 4]
{record}
[instruments]
sets = [["Violin", "Piano", "Horns"], ["Violin", "Organ", "Horns"]]
[lineup]
mirror = "greedy"
"""

ECHIDNA = """\
game = "echidna"
name = "tiny-echidna-lead"
seed = 3
games = 10
players = [3]
boards = ["forest", "snow"]
record = ["lead"]
[lineup]
mirror = "greedy"
"""


def _seeds(k, seed=11):
    from simulator.seeds import game_seed

    return np.array([game_seed(seed, i) for i in range(k)], dtype=np.uint64)


def test_sns_record_plays_the_same_games_and_ends_on_the_final_scores():
    from simulator.shuffle_swing.layout import S_ROUND, S_SCORE, S_WINNER
    from simulator.shuffle_swing.lead_record import play_many_lead
    from simulator.shuffle_swing.playout import GameSetup, play_many
    from simulator.shuffle_swing.strategies import StrategyLibrary

    setup = GameSetup(nplayers=3)
    strat = StrategyLibrary().matrix(["greedy", "tuned", "random"])
    seeds = _seeds(12)
    plain, _ = play_many(setup, strat, seeds)
    states, bad, rec, nrec = play_many_lead(setup, strat, seeds, check=True)
    assert len(bad) == 0
    assert (states == plain).all()  # the record changes no decision and no draw
    for g in range(len(seeds)):
        n = int(nrec[g])
        assert n == states[g, S_ROUND]  # one row per round played (R11: a game ends with its round)
        assert (rec[g, n - 1] == states[g, S_SCORE : S_SCORE + 3]).all()  # the last row: final scores (R12)
        w = states[g, S_WINNER]
        assert rec[g, n - 1, w] == rec[g, n - 1].max()  # the winner has the top final score (R13 on ties)


def test_echidna_record_plays_the_same_games_and_the_winner_ends_with_every_bug_home():
    from simulator.echidna import layout as L
    from simulator.echidna.board import EchidnaSetup, Variants
    from simulator.echidna.playout import play_many
    from simulator.echidna.lead_record import HOME_WEIGHT as ECHIDNA_HOME_WEIGHT
    from simulator.echidna.lead_record import play_many_lead as echidna_play_many_lead
    from simulator.echidna.strategies import EchidnaStrategyLibrary

    setup = EchidnaSetup(4, "snow", Variants(catch_up=True))
    strat = EchidnaStrategyLibrary().matrix(["greedy", "random", "greedy", "saboteur"])
    seeds = _seeds(16, 4)
    plain, _ = play_many(setup, strat, seeds)
    states, bad, rec, nrec = echidna_play_many_lead(setup, strat, seeds, check=True)
    assert len(bad) == 0
    assert (states == plain).all()
    won = 0
    for g in range(len(seeds)):
        last = rec[g, int(nrec[g]) - 1]
        home = states[g, L.S_HOME : L.S_HOME + 4]
        # standing = bugs home x W - steps to go (0 <= steps < W; E5, E6): rounded up, the bugs home
        assert ((last + ECHIDNA_HOME_WEIGHT - 1) // ECHIDNA_HOME_WEIGHT == home).all()
        w = states[g, L.S_WINNER]
        if w >= 0:
            won += 1
            assert last[w] == L.BUGS * ECHIDNA_HOME_WEIGHT  # every bug home, nothing to go
            assert int(np.argmax(last)) == w
    assert won > 0


def test_record_key_is_checked_and_changes_nothing_when_absent(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(TINY.format(record=""))
    plain = load_scenario(p)
    assert plain.record == () and "record" not in plain.text
    p.write_text(TINY.format(record='record = ["lead"]'))
    on = load_scenario(p)
    assert on.record == ("lead",) and on.settings()["record"] == ["lead"]
    assert load_scenario(tmp_path / "s.toml", sets=['record=[]']).text == plain.text
    p.write_text(TINY.format(record='record = ["winchance"]'))
    with pytest.raises(DataError) as exc:
        load_scenario(p)
    assert exc.value.key == "record[0]" and "unknown record" in exc.value.reason


def test_run_with_the_record_adds_the_lead_column_and_the_same_tables(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(TINY.format(record=""))
    run_scenario(p, tmp_path / "off", jobs=1, progress=False)
    run_scenario(p, tmp_path / "on", jobs=1, sets=['record=["lead"]'], progress=False)
    s_off, g_off, _ = load_results(tmp_path / "off")
    s_on, g_on, m = load_results(tmp_path / "on")
    pd.testing.assert_frame_equal(s_off, s_on)
    pd.testing.assert_frame_equal(g_off, g_on)
    assert m["settings"]["record"] == ["lead"]
    chunk = sorted((tmp_path / "on" / "games").glob("chunk-*.parquet"))[0]
    t = pq.read_table(chunk, columns=["players", "rounds", LEAD_COLUMN]).to_pandas()
    for players, rounds, lead in t.itertuples(index=False):
        assert len(lead) == players * rounds

    from reports.feel.data import feel_tables
    from reports.feel.section import feel_section, gate_figures, stand_out_lines

    per_game, table = feel_tables(tmp_path / "on")
    assert len(per_game) == len(g_on) and set(table["setting"]) == {
        "2p Violin/Piano/Horns greedy", "2p Violin/Organ/Horns greedy", "4p Violin/Piano/Horns greedy", "4p Violin/Organ/Horns greedy"}
    assert (per_game["rounds"].to_numpy() == g_on["rounds"].to_numpy()).all()
    sec = feel_section(tmp_path / "on")
    assert sec is not None and sec.title == "Game feel" and len(sec.charts) == 2
    assert feel_section(tmp_path / "off") is None and stand_out_lines(tmp_path / "off") == []
    assert isinstance(stand_out_lines(tmp_path / "on"), list)
    figs = gate_figures(tmp_path / "on", width=10.0)
    assert set(figs) == set(table["setting"]) and set(figs["2p Violin/Piano/Horns greedy"]) == {"lead_changes", "decided_at", "runaway"}
    assert gate_figures(tmp_path / "on", width=0.0) == {}  # 12 games: nothing is stable enough at width 0
    from reports.feel.section import gate_lines

    assert gate_lines(None, tmp_path / "off") == []
    lines = gate_lines({"2p Violin/Piano/Horns greedy": {"lead_changes": 9.0}}, tmp_path / "off")
    assert lines[1] == "  2p Violin/Piano/Horns greedy: lead changes per game - (baseline 9.00)"


def test_echidna_run_with_the_record_reports_per_board(tmp_path):
    p = tmp_path / "e.toml"
    p.write_text(ECHIDNA)
    run_scenario(p, tmp_path / "e", jobs=1, progress=False)
    from reports.feel.data import feel_tables

    per_game, table = feel_tables(tmp_path / "e")
    assert set(table["setting"]) == {"3p forest/base greedy", "3p snow/base greedy"}
    assert per_game["decided_at"].between(0, 1).all()


# =========================================================================== the meta-game


def _per_deal(shares, deals=50, seed=0):
    """Per-deal shares with the given means (0/1 games), for every pair i < j."""
    rng = np.random.default_rng(seed)
    return {k: (rng.random(deals) < v).astype(float) for k, v in shares.items()}


def test_rock_paper_scissors_is_a_mixed_meta_game():
    names = ["rock", "paper", "scissors"]
    per = {(0, 1): np.full(40, 0.2), (0, 2): np.full(40, 0.8), (1, 2): np.full(40, 0.2)}
    mix, value = metagame.equilibrium(metagame.payoff_matrix(per, names))
    assert mix == pytest.approx([1 / 3, 1 / 3, 1 / 3], abs=1e-6) and value == pytest.approx(0, abs=1e-9)
    assert metagame.support(mix, names) == tuple(names)
    assert metagame.dominant(metagame.payoff_matrix(per, names), names) is None


def test_a_strategy_that_beats_all_dominates_and_the_bootstrap_agrees():
    names = ["weak", "strong", "middle"]
    per = _per_deal({(0, 1): 0.1, (0, 2): 0.3, (1, 2): 0.85}, deals=200)
    s = metagame.summary(per, names, reps=50, seed=1)
    assert s["support"] == ["strong"] and s["dominant"] == "strong"
    assert s["verdict"].startswith("strong dominates")
    assert s["bootstrap"]["same_support"] > 0.9 and s["bootstrap"]["in_support"]["strong"] == 1.0


# =========================================================================== the decision fingerprints


def _fingerprint_module(name):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_lead", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sns_fingerprint_is_unchanged_with_the_record_on():
    fp = _fingerprint_module("sns_fingerprint")
    digest, _, played = fp.fingerprint(4, 1, 1, record=True)
    assert played == 420 and digest == fp.REFERENCE[(4, 1, 1)]


def test_echidna_fingerprint_is_unchanged_with_the_record_on():
    fp = _fingerprint_module("echidna_fingerprint")
    digest, _, _ = fp.fingerprint(10, 2, record=True)
    assert digest == fp.REFERENCE[(10, 2)]


def test_settings_are_ranked_by_lead_changes_and_decisiveness():
    from reports.feel.section import rank_settings

    rows = []
    for label, lc, d in (("A", 2.0, 0.7), ("B", 3.0, 0.6), ("C", 2.5, 0.8)):
        rows.append({"setting": label, "measure": "lead_changes", "mean": lc, "low": lc - 0.1, "high": lc + 0.1, "games": 9})
        rows.append({"setting": label, "measure": "decided_at", "mean": d, "low": d - 0.01, "high": d + 0.01, "games": 9})
    r = rank_settings(pd.DataFrame(rows))
    assert list(r["by lead_changes"]) == ["B", "C", "A"] and list(r["by decided_at"]) == ["C", "A", "B"]
    assert r["lead_changes"][0] == "3.00 [2.90, 3.10]"
    assert rank_settings(pd.DataFrame(rows[:2])) is None


def test_meta_command_plays_the_full_table_names_the_strongest_and_refuses_bad_input():
    from click.testing import CliRunner

    from ssb.cli import cli

    ok = CliRunner().invoke(cli, ["strategies", "meta", "--pool", "greedy,random", "--deals", "4", "--bootstrap", "10",
                                  "--skill", "", "--players", "3"])
    assert ok.exit_code == 0, ok.output
    assert "3 players, every profile of two strategies at the table" in ok.output
    assert "Verdict: alpha-rank puts greedy first" in ok.output and "greedy is the only strategy no single deviant beats" in ok.output
    assert "How the answer moves with the pool" in ok.output and "nashpy" in ok.output
    bad = CliRunner().invoke(cli, ["strategies", "meta", "--pool", "greedy", "--deals", "4"])
    assert bad.exit_code == 2 and "at least two strategies" in bad.output
    unknown = CliRunner().invoke(cli, ["strategies", "meta", "--pool", "greedy,nosuch", "--deals", "4"])
    assert unknown.exit_code == 2 and "unknown strategy 'nosuch'" in unknown.output


def test_a_meta_game_file_beside_a_run_is_shown_in_the_report(tmp_path):
    import json
    from types import SimpleNamespace

    from reports.feel.section import add_feel

    names = ["weak", "strong", "middle"]
    strength = {"weak": 0.0, "middle": 1.0, "strong": 2.0}
    rng = np.random.default_rng(2)
    per = {}
    for i in range(3):
        for j in range(i + 1, 3):
            a, b = np.exp(strength[names[i]]), np.exp(strength[names[j]])
            per[(i, j)] = np.array([rng.binomial(6, k * a / (k * a + (4 - k) * b), size=100) / 6 for k in (1, 2, 3)])
    r = {"setting": "4p Violin/Organ/Horns", "deals": 100, "full": metagame.full_summary(per, names, 4, reps=20, seed=2)}
    (tmp_path / "metagame-organ.json").write_text(json.dumps(r))
    (tmp_path / "metagame-broken.json").write_text("{")
    report = SimpleNamespace(sections=[])
    add_feel(report, tmp_path)
    (sec,) = report.sections
    assert sec.tables[0].frame["alpha-rank mass %"].tolist()[1] > 90
    assert sec.tables[1].frame["pool"].tolist()[0] == "the whole pool"
    assert any("pool of 3 (weak, strong, middle): alpha-rank puts strong first" in f for f in sec.findings)
    assert any("the answer moves with the pool: without strong, alpha-rank puts middle first" in f for f in sec.findings)
    assert any(f.startswith("metagame-broken.json: not a meta-game file") for f in sec.findings)


# =========================================================================== the projected standing and the set-up


def test_projected_standing_ends_on_the_final_score_and_the_options_keep_default_games():
    from scenarios.record import replay_noise
    from simulator.shuffle_swing.layout import S_SCORE
    from simulator.shuffle_swing.lead_record import TENTHS, play_many_record
    from simulator.shuffle_swing.playout import GameSetup, play_many
    from simulator.shuffle_swing.strategies import StrategyLibrary

    setup = GameSetup(nplayers=4)
    strat = StrategyLibrary().matrix(["greedy"] * 4)
    seeds = _seeds(10, 7)
    plain, _ = play_many(setup, strat, seeds)
    states, bad, rec, nrec, prj = play_many_record(setup, strat, seeds, check=True)
    assert len(bad) == 0 and (states == plain).all()  # the projection changes no decision and no draw
    for g in range(len(seeds)):
        n = int(nrec[g])
        assert (prj[g, n - 1] == states[g, S_SCORE : S_SCORE + 4] * TENTHS).all()  # the end: the final score
        # Before the end the projection counts the end-game scoring the running score has not seen (R12).
        assert (prj[g, n - 2] != rec[g, n - 2] * TENTHS).any()
    # Bots breaking ties by the state: the same set-up gives the same game whatever the bots' seed.
    a = play_many_record(setup, strat, seeds, tie_break="state")[0]
    b = play_many_record(setup, strat, seeds, tie_break="state", noise=replay_noise(seeds))[0]
    assert (a == b).all() and (a != plain).any()
    # Other draws of the bots on the same set-up: other games (the bots' noise).
    c = play_many_record(setup, strat, seeds, noise=replay_noise(seeds))[0]
    assert (c != plain).any()
    with pytest.raises(ValueError):
        play_many_record(setup, strat, seeds, tie_break="coin")


def test_a_run_recording_the_set_up_reports_the_projected_standing_ludii_and_the_set_up(tmp_path):
    from reports.feel.data import load_lead
    from reports.feel.section import feel_section
    from scenarios.record import NOT_REPLAYED, PROJECTED_COLUMN, REPLAY_COLUMN, SETUP_EVERY

    p = tmp_path / "s.toml"
    p.write_text(TINY.format(record='record = ["lead", "setup"]').replace("games = 12", "games = 21").replace(
        'sets = [["Violin", "Piano", "Horns"], ["Violin", "Organ", "Horns"]]', 'sets = [["Violin", "Piano", "Horns"]]'))
    run_scenario(p, tmp_path / "on", jobs=1, progress=False)
    chunk = sorted((tmp_path / "on" / "games").glob("chunk-*.parquet"))[0]
    t = pq.read_table(chunk, columns=["deal", "players", "rounds", LEAD_COLUMN, PROJECTED_COLUMN, REPLAY_COLUMN]).to_pandas()
    for deal, players, rounds, lead, proj, again in t.itertuples(index=False):
        assert len(proj) == len(lead) == players * rounds
        assert (again >= 0) == (deal % SETUP_EVERY == 0) and (again == NOT_REPLAYED or 0 <= again < players)
    keys, standings, _ = load_lead(tmp_path / "on")
    assert keys.attrs["standing"] == "projected"
    _, running, _ = load_lead(tmp_path / "on", "running")
    assert all((a[-1] == b[-1]).all() for a, b in zip(standings, running))  # both end on the final score
    sec = feel_section(tmp_path / "on")
    names = [x.name for x in sec.tables]
    assert names[:3] == ["game_feel", "feel_setup", "feel_running_score"]
    shown = sec.tables[0].display.columns
    assert any(c.startswith("Ludii LeadChange") for c in shown) and any(c.startswith("Ludii Drama") for c in shown)
    assert any(c.startswith("lead changes per game (lab") for c in shown)
    setup = sec.tables[1].frame
    assert set(setup["setting"]) == {"2p Violin/Piano/Horns greedy", "4p Violin/Piano/Horns greedy"}
    assert (setup["deals"] == 3).all()  # deals 0, 10 and 20 of 21 were replayed


def test_the_starter_scenario_records_the_lead_and_the_set_up():
    from scenarios.load import load_scenario

    s = load_scenario("starter")
    assert "lead" in s.record and "setup" in s.record
