"""The designer's session in the desk: every check kept in a history with its change (read from the
check's own folder) and its answer per judge; two tries side by side; the shipped value put back in
one action, per key or for the whole file (a POST under the guard's rules, written below the desk's
folder only); a narrated sample game beside the answer."""

import json
import time
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ssb.desk import catalog, jobs
from ssb.desk.app import create_app
from ssb.desk.pages import check_fragment

import desk_support

DESK = "http://127.0.0.1:8765"
AWARDS = "section.0.score.0.awards"  # the trumpet's first scoring term of the Horns
SAX = "section.1.score.0.awards"  # the saxophone's


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path), base_url=DESK, headers={"origin": DESK})


def _figure(players, label, kind, change, verdict, lo, hi, now=0.4):
    return {"cell_key": f"players={players}|instruments=Violin,Piano,Horns|lineup=x", "figure": label, "kind": kind,
            "label": label, "baseline": 0.5, "now": now, "change": change, "ci_low": lo, "ci_high": hi,
            "margin": 0.03, "verdict": verdict, "deals_now": 60}


def _check(root, name, started, changes, greedy, strong=None, status="done"):
    """A finished check folder as the desk leaves it: desk.json, change.json, regress.json (and strong/)."""
    folder = root / "results" / "desk" / name
    folder.mkdir(parents=True)
    steps = jobs.check_steps(f"results/desk/{name}", [], 60, jobs=1)
    (folder / jobs.DESK_FILE).write_text(json.dumps({"kind": "check", "title": name, "steps": steps, "step": len(steps),
                                                     "status": status, "started": started}))
    jobs.write_change(root, folder, {"kind": "instrument", "name": "Horns", "file": "designs/instruments/horns.toml",
                                     "changes": changes})
    for where, figures in ((folder, greedy), (folder / "strong", strong)):
        if figures is not None:
            where.mkdir(exist_ok=True)
            counts = {v: sum(f["verdict"] == v for f in figures) for v in ("fail", "pass", "inconclusive")}
            verdict = "fail" if counts["fail"] else "pass"
            (where / "regress.json").write_text(json.dumps({"verdict": verdict, "counts": counts, "figures": figures}))
    return folder


def _two_checks(root):
    a = _check(root, "horns-a", "2026-12-04T10:00:00+00:00",
               [{"key": "section[trumpet].score[0].awards", "name": AWARDS, "shipped": "[8, 6, 2]", "value": "[3, 6, 2]"}],
               [_figure(3, "win rate, seat 3", "win_rate", 0.004, "pass", -0.01, 0.018),
                _figure(3, "objective points per game, gray (Horns)", "objective_points", -4.7, "fail", -5.7, -3.7)],
               [_figure(4, "win rate, seat 4", "win_rate", -0.035, "fail", -0.045, -0.031)])
    b = _check(root, "horns-b", "2026-12-04T11:00:00+00:00",
               [{"key": "section[trumpet].score[0].awards", "name": AWARDS, "shipped": "[8, 6, 2]", "value": "[7, 6, 2]"}],
               [_figure(3, "win rate, seat 3", "win_rate", 0.001, "pass", -0.01, 0.012),
                _figure(3, "objective points per game, gray (Horns)", "objective_points", -0.8, "inconclusive", -1.9, 0.2)],
               None, status="running")
    return a, b


def test_the_history_lists_every_check_with_its_change_answers_and_state(client, tmp_path):
    _two_checks(tmp_path)
    (tmp_path / "results" / "desk" / "not-a-check").mkdir()  # a folder the desk did not start is not listed
    page = client.get("/history")
    assert page.status_code == 200
    rows = page.text.split('id="history"', 1)[1].split("<tbody>", 1)[1].split("</tr>")
    assert "horns-b" in rows[0] and "horns-a" in rows[1]  # newest first
    assert "not-a-check" not in page.text
    a = rows[1]
    assert "section[trumpet].score[0].awards: [8, 6, 2] -&gt; [3, 6, 2]" in a
    assert "moved 1 figure beyond its margin: objective points per game, gray (Horns), 3 players: -4.7" in a
    assert "win rate, seat 4, 4 players: -3.5 pp" in a and ">done<" in a  # the strong answer, the state
    b = rows[0]
    assert "not decided: 1 figure" in b and ">no answer<" in b and ">stopped<" in b  # its driver is gone
    # The words are the desk's: no pass / fail / inconclusive for a verdict.
    for word in (">pass<", ">fail<", ">inconclusive<", "balanced"):
        assert word not in page.text


def test_two_tries_side_by_side_show_their_changes_and_the_figures_that_moved_per_judge(client, tmp_path):
    _two_checks(tmp_path)
    page = client.get("/compare", params=[("try", "results/desk/horns-a"), ("try", "results/desk/horns-b")])
    assert page.status_code == 200, page.text
    table = page.text.split('id="compare"', 1)[1]
    assert "[3, 6, 2]" in table and "[7, 6, 2]" in table
    greedy, strong = table.split("Strong players", 1)
    row = greedy.split("<td>objective points per game, gray (Horns), 3 players</td>", 1)[1].split("</tr>", 1)[0]
    assert "-4.7" in row and ">moved<" in row and "-0.8" in row and ">undecided<" in row
    assert "win rate, seat 3" not in greedy  # held in both tries: not a figure that moved
    row = strong.split("<td>win rate, seat 4, 4 players</td>", 1)[1].split("</tr>", 1)[0]
    assert "-3.5 pp" in row and ">moved<" in row and "<td>-</td>" in row  # try B has no strong answer yet
    # Not two checks, or a folder outside results/: refused with a sentence.
    assert client.get("/compare", params=[("try", "results/desk/horns-a")]).status_code == 400
    bad = client.get("/compare", params=[("try", "results/desk/horns-a"), ("try", "../../etc")])
    assert bad.status_code == 404 and "Traceback" not in bad.text


def _save(client, **changes):
    data = desk_support.horns_form(client.app.state.root, **changes)
    assert 'id="saved"' in client.post("/edit/instrument/Horns", data=data).text


def test_back_to_the_shipped_value_of_one_key_then_of_the_whole_file(client, tmp_path):
    _save(client, **{AWARDS: "[3, 6, 2]", SAX: "[9, 6, 2]"})
    own = tmp_path / "designs" / "instruments" / "horns.toml"
    ed = catalog.instruments(tmp_path)["Horns"]
    assert [c["key"] for c in ed.changes()] == ["section[trumpet].score[0].awards", "section[saxophone].score[0].awards"]
    page = client.get("/edit/instrument/Horns").text
    assert f'id="back-{AWARDS}"' in page and "back to shipped: [8, 6, 2]" in page and 'id="all-shipped"' in page
    # One key: the shipped value is back in the file, the other change stays, the comments too.
    res = client.post("/shipped/instrument/Horns", data={"field": AWARDS}, headers={"hx-request": "true"})
    assert res.status_code == 200 and "Put back the shipped value of section[trumpet].score[0].awards" in res.text
    text = own.read_text()
    assert "awards = [8, 6, 2]" in text.split("[[section]]", 2)[1] and "RECONSTRUCTED LAYOUT" in text
    assert [c["key"] for c in catalog.instruments(tmp_path)["Horns"].changes()] == ["section[saxophone].score[0].awards"]
    # Not from the desk's page: refused, nothing written.
    before = own.read_text()
    res = client.post("/shipped/instrument/Horns", data={"field": SAX}, headers={"origin": "http://elsewhere.example"})
    assert res.status_code == 403 and own.read_text() == before
    assert client.post("/shipped/instrument/Horns", data={"field": "no.such.key"}).status_code == 400
    # The whole file: removed, the form shows the shipped file again.
    res = client.post("/shipped/instrument/Horns", data={"all": "file"}, follow_redirects=False)
    assert res.status_code == 303 and not own.exists()
    assert client.post("/shipped/instrument/Horns", data={"all": "file"}).status_code == 409  # nothing to put back


def test_back_to_shipped_writes_through_no_link(client, tmp_path):
    _save(client, **{AWARDS: "[3, 6, 2]"})
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "designs" / "instruments"
    (outside / "horns.toml").write_text(( folder / "horns.toml").read_text())
    (folder / "horns.toml").unlink()
    folder.rmdir()
    folder.symlink_to(outside)
    res = client.post("/shipped/instrument/Horns", data={"field": AWARDS})
    assert res.status_code == 409 and "link" in res.text
    assert "awards = [3, 6, 2]" in (outside / "horns.toml").read_text()


def test_a_check_keeps_its_change_and_plays_a_sample_game_beside_the_answer(client, tmp_path):
    _save(client, **{AWARDS: "[3, 6, 2]"})
    res = client.post("/check", data={"kind": "instrument", "key": "Horns", "games": "30"}, follow_redirects=False)
    assert res.status_code == 303
    folder = tmp_path / res.headers["location"].removeprefix("/check/")
    try:
        change = jobs.read_change(folder)
        assert change["file"] == "designs/instruments/horns.toml"
        assert change["changes"] == [{"key": "section[trumpet].score[0].awards", "name": AWARDS,
                                      "shipped": "[8, 6, 2]", "value": "[3, 6, 2]"}]
        steps = jobs.read_state(folder)["steps"]
        assert steps[3] == ["ssb", "play", "--players", "3", "--seed", "1", "--instrument-dir", "designs/instruments"]
        for argv in steps:
            jobs.check_argv(argv, folder.relative_to(tmp_path), tmp_path)
    finally:
        jobs.cancel(folder)
    # A sample step that reads another folder is not one the desk writes (Resume refuses it).
    with pytest.raises(jobs.JobError, match="--instrument-dir"):
        jobs.check_argv(["ssb", "play", "--players", "3", "--instrument-dir", "/etc"], "results/desk/x", tmp_path)
    with pytest.raises(jobs.JobError, match="--players"):
        jobs.check_argv(["ssb", "play", "--players", "9"], "results/desk/x", tmp_path)


def test_the_sample_games_story_is_shown_beside_the_answer(tmp_path):
    folder = tmp_path / "results" / "desk" / "horns-1"
    folder.mkdir(parents=True)
    story = "Shuffle and Swing: 3 players, game seed 1\n" + "".join(f"Turn {i}: Seat 1 (greedy)\n" for i in range(400))
    story += "== Round 27 ==\nGame over after 27 rounds.\nFinal scoring table\nWinner: Seat 2 with 61 points\n"
    (folder / jobs.SAMPLE_FILE).write_text(story)
    assert jobs.sample(folder) == story
    html = check_fragment("results/desk/horns-1", {"status": "done", "kind": "check", "steps": [],
                                                   "sample": jobs.sample(folder)})
    end = html.split('id="sample-end">', 1)[1].split("</pre>", 1)[0]
    assert end.startswith("Game over") and "Winner: Seat 2 with 61 points" in end and "Turn 399" not in end
    assert "game seed 1" in html.split('id="sample-head">', 1)[1] and "405 lines" in html
    (folder / jobs.SAMPLE_FILE).unlink()
    (folder / jobs.SAMPLE_FILE).symlink_to("/etc/passwd")
    assert jobs.sample(folder) is None


def test_the_driver_writes_the_sample_games_story_into_the_checks_folder(tmp_path):
    folder = tmp_path / "results" / "desk" / "play"
    folder.mkdir(parents=True)
    (tmp_path / "designs" / "instruments").mkdir(parents=True)
    steps = [jobs.sample_step(jobs.DESIGN_INSTRUMENTS)]
    jobs.start(folder, "check", steps, "sample", tmp_path)
    deadline = time.time() + 400
    while time.time() < deadline and jobs.status(folder)["status"] in ("running", "queued"):
        time.sleep(0.3)
    state = jobs.status(folder)
    assert state["status"] == "done", (folder / jobs.LOG_FILE).read_text()
    assert state["sample"].startswith("Shuffle and Swing: 3 players, game seed 1")
    assert "Violin" in state["sample"] and "Horns" in state["sample"]
