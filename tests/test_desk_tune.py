""""Which number should I change?" in the desk, from the designer's own problem: a target picked from
a check's answer, the keys pre-filled from the file being edited, a tuning file written into the
desk's own folder and checked by ``ssb tune``'s loader, its duration estimated before it starts, its
progress read from the search's own files, Cancel ending it."""

import json
import sqlite3
import tomllib
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from scenarios.tuning import load_tuning
from ssb.desk import jobs, tuning
from ssb.desk.app import create_app

import desk_support

DESK = "http://127.0.0.1:8765"
AWARDS = "section.0.score.0.awards"
KEY = "Horns.section.trumpet.score.0.awards.0"


@pytest.fixture
def client(tmp_path):
    c = TestClient(create_app(tmp_path, workers=1), base_url=DESK, headers={"origin": DESK})
    data = desk_support.horns_form(tmp_path, **{AWARDS: "[3, 6, 2]"})
    assert 'id="saved"' in c.post("/edit/instrument/Horns", data=data).text
    return c


def plan(client, **changes):
    data = {"file": "instrument/Horns", "target": "seats|3|greedy", "key": [KEY], f"lo.{KEY}": "1", f"hi.{KEY}": "6",
            "trials": "2", "max_keys": "1", "seconds": "600"}
    data.update(changes)
    return client.post("/tune/plan", data=data, follow_redirects=False)


def board_plan(client, tmp_path, key, values, target, seconds):
    """Plan a search of one board key from the board's page: the folder of the planned search."""
    data = {"file": "board/shuffle-swing/board", "target": target, "key": [key], f"values.{key}": values,
            "trials": "4", "max_keys": "1", "seconds": seconds}
    res = client.post("/tune/plan", data=data, follow_redirects=False)
    assert res.status_code == 303, res.text
    return tmp_path / res.headers["location"].removeprefix("/tune/plan/"), data


def test_the_keys_to_vary_are_pre_filled_from_the_file_being_edited(client):
    page = client.get("/tune?file=instrument/Horns").text
    ticked = page.split('id="tune-keys"', 1)[1].split("</table>", 1)[0]
    assert f'value="{KEY}" id="k-0" checked' in ticked and "8 (you changed it)" in ticked
    assert "<td>3</td>" in ticked  # the value now, from the designer's file
    assert "Horns.section.saxophone.score.0.awards.0" in page.split('id="tune-more-keys"', 1)[1]  # offered, not ticked
    assert 'id="t-seats|3|strong"' in page and 'id="t-points|Horns|4"' in page
    assert "Start the shipped search organ-points" in page  # a button says what it does


def test_a_target_is_proposed_by_a_checks_answer(client, tmp_path):
    folder = tmp_path / "results" / "desk" / "horns-1"
    (folder / "strong").mkdir(parents=True)
    (folder / jobs.DESK_FILE).write_text("{}")
    fig = {"cell_key": "players=4|x", "label": "win rate, seat 4", "kind": "win_rate", "baseline": 0.25, "now": 0.3,
           "change": 0.05, "ci_low": 0.03, "ci_high": 0.07, "margin": 0.03, "verdict": "fail"}
    (folder / "regress.json").write_text(json.dumps({"verdict": "pass", "counts": {}, "figures": []}))
    (folder / "strong" / "regress.json").write_text(json.dumps({"verdict": "fail", "counts": {"fail": 1}, "figures": [fig]}))
    page = client.get("/tune", params={"file": "instrument/Horns", "from": "results/desk/horns-1"}).text
    assert 'value="seats|4|strong" id="t-seats|4|strong" checked' in page
    assert "proposed by the check: win rate, seat 4 at 4 players moved for strong players" in page


def test_the_plan_is_a_tuning_file_ssb_tune_reads_with_its_estimate_before_it_starts(client, tmp_path):
    res = plan(client)
    assert res.status_code == 303 and res.headers["location"].startswith("/tune/plan/results/desk/tune-horns-")
    folder = tmp_path / res.headers["location"].removeprefix("/tune/plan/")
    load_tuning(str(folder / "tune.toml"))  # ssb tune's own loader takes it
    doc = tomllib.loads((folder / "tune.toml").read_text())
    assert doc["target"] == [{"kind": "seats_balanced", "players": [3], "margin": 0.03}]
    assert doc["space"] == {KEY: {"range": [1, 6]}}
    scenario = (folder / "scenario.toml").read_text()
    assert 'instrument_dirs = ["../../../designs/instruments"]' in scenario  # the search starts from the designer's file
    page = client.get(res.headers["location"]).text
    assert "Estimated duration: under a minute" in page and "2 candidates at most" in page
    assert f"ssb tune {folder.relative_to(tmp_path)}/tune.toml --out {folder.relative_to(tmp_path)} --jobs 1" in page
    assert 'id="tune-start"' in page and not (folder / jobs.DESK_FILE).exists()  # nothing started yet
    low, high, _ = tuning.estimate(doc, 1)
    assert 0 < low <= high < 60


@pytest.mark.parametrize("changes, says", [
    ({"key": []}, "Tick at least one number"),
    ({f"lo.{KEY}": "6"}, "holds no other value"),
    ({f"hi.{KEY}": "many"}, "expected a whole number"),
    ({"trials": "0"}, "candidates: expected a whole number from 1"),
    ({"key": ["Horns.no.such"]}, "Tick from 1 to"),
    ({"target": "seats|9|greedy"}, "Pick a target"),
])
def test_a_bad_plan_says_why_and_writes_nothing(client, tmp_path, changes, says):
    res = plan(client, **changes)
    assert res.status_code == 400 and says in res.text and "Traceback" not in res.text
    assert not list((tmp_path / "results").glob("desk/tune-*"))


def test_a_plan_from_another_site_is_refused(client, tmp_path):
    res = client.post("/tune/plan", data={"file": "instrument/Horns"}, headers={"origin": "http://elsewhere.example"})
    assert res.status_code == 403 and not (tmp_path / "results").exists()


def test_the_search_starts_shows_honest_progress_and_cancel_ends_it(client, tmp_path):
    folder = tmp_path / plan(client).headers["location"].removeprefix("/tune/plan/")
    r = str(folder.relative_to(tmp_path))
    res = client.post("/tune/start", data={"folder": r}, follow_redirects=False)
    assert res.status_code == 303 and res.headers["location"] == f"/check/{r}"
    try:
        state = jobs.checked_state(folder, tmp_path)  # Resume would run exactly this
        assert state["steps"] == [["ssb", "tune", f"{r}/tune.toml", "--out", r, "--jobs", "1"]]
        page = client.get(f"/check/{r}").text
        assert "Cancel: stop this search and its processes" in page and "ssb run --resume" not in page
    finally:
        state = jobs.cancel(folder)
    assert state["status"] == "cancelled"
    page = client.get(f"/check/{r}").text
    assert "Resume the search where it stopped (ssb tune --resume)" in page and "ssb run --resume" not in page
    # A second Start of the same plan only shows it.
    assert client.post("/tune/start", data={"folder": r}, follow_redirects=False).headers["location"] == f"/check/{r}"
    assert client.post("/tune/start", data={"folder": "results/../.."}).status_code == 404


def test_progress_is_read_from_the_studys_own_records(tmp_path):
    con = sqlite3.connect(tmp_path / "study.db")
    con.execute("CREATE TABLE trial_user_attributes (trial_user_attribute_id INTEGER PRIMARY KEY, trial_id INTEGER, "
                "key TEXT, value_json TEXT)")
    rows = []
    for tid, (cand, state, rung, change) in enumerate([([[KEY, 5]], "unmet", 0, 0.4), ([[KEY, 4]], "met", 1, 0.2),
                                                       ([[KEY, 2]], "met", 1, 0.2), ([[KEY, 6]], "unmet", 1, 0.6)]):
        for k, v in (("candidate", json.dumps(cand)), ("state", state), ("rung", rung), ("keys", 1), ("change", change)):
            rows.append((tid, k, json.dumps(v)))
    con.executemany("INSERT INTO trial_user_attributes (trial_id, key, value_json) VALUES (?, ?, ?)", rows)
    con.commit()
    con.close()
    (tmp_path / "tune.toml").write_text('[search]\nmax_keys = 1\ntrials = 8\n[space]\n"%s" = { range = [1, 6] }\n' % KEY)
    got = tuning.study_progress(tmp_path)
    assert got == {"tried": 4, "dropped": 1, "met": 2, "best": f"{KEY} = 2", "planned": 6}  # 6 values, 8 trials
    (tmp_path / "progress.json").write_text(json.dumps({"tried": 9, "dropped": 7, "best": "x"}))
    assert jobs.tune_progress(tmp_path)["dropped"] == 7  # the race's own progress file comes first


def test_a_target_of_strong_play_is_judged_at_strong_play_by_the_race(client, tmp_path):
    res = plan(client, target="seats|3|strong", seconds="120")
    assert res.status_code == 303, res.text
    folder = tmp_path / res.headers["location"].removeprefix("/tune/plan/")
    load_tuning(str(folder / "tune.toml"))
    doc = tomllib.loads((folder / "tune.toml").read_text())
    strong = tuning.strong_judge()
    assert doc["search"]["method"] == "race" and doc["search"]["seconds"] == 120
    assert doc["judges"] == {"race": ["greedy", strong]}
    assert doc["target"] == [{"kind": "seats_fair", "players": [3], "judges": ["greedy", strong]}]
    scenario = tomllib.loads((folder / "scenario.toml").read_text())
    assert scenario["sequential"]["test"] == "zone"  # the zone test of the lab's starter run
    page = client.get(res.headers["location"]).text
    assert "at most 120 declared CPU seconds" in page


def test_the_boards_levers_come_with_the_values_the_shipped_searches_try(client, tmp_path):
    page = client.get("/tune?file=board/shuffle-swing/board").text
    assert 'name="values.board.rulings.tie_break"' in page and "board.seats.start_points.4" in page
    # the seat race's levers too: R13 read per player count, ladder tokens at set-up
    assert 'name="values.board.seats.tie_break.3"' in page and 'name="values.board.seats.start_tokens.4"' in page
    folder, data = board_plan(client, tmp_path, "board.seats.start_points.4", "[[0, 0, 0, 0], [2, 1, 1, 0]]",
                              "seats|4|strong", "60")
    doc = tomllib.loads((folder / "tune.toml").read_text())
    assert doc["space"] == {"board.seats.start_points.4": {"values": [[0, 0, 0, 0], [2, 1, 1, 0]]}}
    data["values.board.seats.start_points.4"] = "[[2, 1, 1, 0]]"
    assert "a list of at least two values" in client.post("/tune/plan", data=data).text


def test_the_races_progress_is_shown_as_it_says_it(tmp_path):
    from ssb.desk.pages import tune_progress_block

    doc = {"round": 2, "candidates": 20, "tried": 12, "racing": 5, "dropped": 7, "met": 0,
           "best": {"changes": {"board.rulings.tie_break": "earliest"}, "keys": 1, "change": 1.0,
                    "cells": {"3p search_leaf": "undecided"}},
           "seconds_spent": 41.5, "seconds": 300, "state": "racing"}
    (tmp_path / "progress.json").write_text(json.dumps(doc))
    html = tune_progress_block(jobs.tune_progress(tmp_path))
    assert "<td>candidates tried</td><td>12</td>" in html and "<td>dropped (decided unfair)</td><td>7</td>" in html
    assert "board.rulings.tie_break = earliest (3p search_leaf: undecided)" in html
    assert "<td>declared CPU seconds spent</td><td>41.5</td>" in html


def test_the_seat_search_of_several_player_counts_on_the_designers_board(client, tmp_path):
    folder, _ = board_plan(client, tmp_path, "board.rulings.tie_break", '["latest", "earliest", "shared"]',
                           "seats|3+4|strong", "900")
    load_tuning(str(folder / "tune.toml"))
    doc = tomllib.loads((folder / "tune.toml").read_text())
    strong = tuning.strong_judge()
    assert doc["target"] == [{"kind": "seats_fair", "players": [3, 4], "judges": ["greedy", strong]},
                             {"kind": "seats_not_unfair", "players": [2], "judges": [strong]}]
    assert tomllib.loads((folder / "scenario.toml").read_text())["players"] == [2, 3, 4]
