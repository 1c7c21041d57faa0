"""The desk as a web app on a shared machine (ssb/desk/guard.py): a page of another site cannot reach
it through a name pointed at this machine (the Host header), cannot make it change anything (the
Origin, Referer and Sec-Fetch-Site of every POST, or the desk's form token), no file is read or
written through a link out of its folder, no process is signalled that the desk does not own, and
Resume runs only what the desk itself recorded. Each case: its status, its sentence, nothing written
outside the folder, no traceback."""

import json
import os
import signal
import subprocess
import sys
import time
import warnings

import psutil
import pytest

with warnings.catch_warnings():  # Starlette's test client names the httpx it runs on
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cli_harness import assert_clean_error, files_under, invoke
from ssb.desk import catalog, forms, guard, jobs
from ssb.desk.app import create_app
from desk_support import horns_form

AWARDS = "section.0.score.0.awards"
DESK = "http://127.0.0.1:8765"


def client_for(root, base=DESK, origin=DESK, **kwargs):
    headers = {"origin": origin} if origin else {}
    return TestClient(create_app(root, port=8765, **kwargs), base_url=base, headers=headers)


def no_traceback(res):
    assert res.status_code != 500 and "Traceback" not in res.text


# ------------------------------------------------------------------ the Host header (DNS rebinding)
@pytest.mark.parametrize("host", ["evil.example:8765", "127.0.0.1:9999", "evil.example", "127.0.0.1.evil.example:8765",
                                  "user@127.0.0.1:8765", "", "127.0.0.1:8765#x", "127.0.0.1:8765/x", "127.0.0.1:8765 "])
def test_a_foreign_host_header_is_refused(tmp_path, host):
    c = client_for(tmp_path, origin=None)
    res = c.get("/", headers={"host": host})
    assert res.status_code == 400 and "answers at its own address only" in res.text
    no_traceback(res)
    # The rebinding attack: Host and Origin both the attacker's name.
    res = c.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{AWARDS: "[3, 6, 2]"}),
                 headers={"host": host, "origin": f"http://{host}"})
    assert res.status_code == 400 and files_under(tmp_path) == []


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST:8765"])
def test_the_desks_own_addresses_are_answered(tmp_path, host):
    assert client_for(tmp_path).get("/runs", headers={"host": host}).status_code == 200


def test_a_desk_with_a_token_takes_any_host_but_asks_for_the_token(tmp_path):
    c = TestClient(create_app(tmp_path, token="t" * 24, host="0.0.0.0", port=8765), base_url="http://lab.example:8765")
    assert c.get("/").status_code == 401
    assert c.get("/?token=" + "t" * 24).status_code == 200


# ------------------------------------------------------------------ where a change may come from
@pytest.mark.parametrize("headers", [
    {"origin": "http://evil.example"},
    {"origin": "null"},
    {"origin": "http://127.0.0.1:9999"},
    {"origin": DESK, "sec-fetch-site": "cross-site"},
    {"origin": DESK, "sec-fetch-site": "same-site"},
    {"referer": "http://evil.example/page"},
    {},  # no Origin, no Referer, no form token
    {"x-desk-form": "not-the-token"},
], ids=["foreign-origin", "null-origin", "other-port", "cross-site", "same-site", "foreign-referer", "nothing",
        "wrong-token"])
def test_a_change_not_from_the_desks_page_is_refused(tmp_path, headers):
    c = client_for(tmp_path, origin=None)
    run = tmp_path / "results" / "desk" / "old"
    run.mkdir(parents=True)
    state = {"kind": "check", "title": "old", "steps": [["ssb", "report", "results/desk/old"]], "step": 0,
             "status": "cancelled", "cwd": str(tmp_path), "pid": None}
    (run / "desk.json").write_text(json.dumps(state))
    before = files_under(tmp_path)
    for url, data in [("/edit/instrument/Horns", horns_form(tmp_path, **{AWARDS: "[3, 6, 2]"})),
                      ("/check", {"kind": "instrument", "key": "Horns", "games": "10"}),
                      ("/tune", {"tune": "organ-points"}),
                      ("/check/results/desk/old/resume", {}),
                      ("/check/results/desk/old/cancel", {})]:
        res = c.post(url, data=data, headers=headers, follow_redirects=False)
        assert res.status_code == 403, (url, res.status_code)
        assert "not taken by this desk" in res.text or "neither the Origin of this desk nor its form token" in res.text
        no_traceback(res)
    assert files_under(tmp_path) == before
    assert json.loads((run / "desk.json").read_text()) == state


def test_without_an_origin_the_desks_form_token_is_taken(tmp_path):
    c = client_for(tmp_path, origin=None)
    token = c.app.state.form_token
    page = c.get("/edit/instrument/Horns").text
    assert f'"X-Desk-Form": "{token}"' in page  # every htmx request of the page carries it
    data = horns_form(tmp_path, **{AWARDS: "[3, 6, 2]"})
    assert 'id="saved"' in c.post("/edit/instrument/Horns", data={**data, guard.FORM_FIELD: token}).text
    assert f'name="{guard.FORM_FIELD}" value="{token}"' in c.get("/edit/instrument/Horns").text  # the check form
    res = c.post("/edit/instrument/Horns", data=data, headers={"x-desk-form": token})
    assert res.status_code == 200
    # Another desk's token is not this desk's.
    other = create_app(tmp_path).state.form_token
    assert c.post("/edit/instrument/Horns", data={**data, guard.FORM_FIELD: other}).status_code == 403


def test_a_large_form_without_an_origin_is_refused_unread(tmp_path):
    c = client_for(tmp_path, origin=None)
    token = c.app.state.form_token
    body = f"{guard.FORM_FIELD}={token}&pad=" + "x" * (guard.MAX_FORM + 1)
    res = c.post("/tune", content=body, headers={"content-type": "application/x-www-form-urlencoded"})
    assert res.status_code == 403 and files_under(tmp_path) == []
    body = "&".join(f"f{i}=1" for i in range(20_000))  # more fields than any form of the desk
    res = c.post("/tune", content=body, headers={"content-type": "application/x-www-form-urlencoded"})
    assert res.status_code == 403 and files_under(tmp_path) == []


def test_a_get_changes_nothing(tmp_path):
    c = client_for(tmp_path)
    assert c.get("/check").status_code == 405
    assert c.get("/check/results/desk/x/cancel").status_code == 404
    assert c.get("/tune?tune=organ-points").status_code == 200
    assert files_under(tmp_path) == []


# ------------------------------------------------------------------ links and names
@pytest.fixture
def outside(tmp_path):
    out = tmp_path / "outside"
    out.mkdir()
    (out / "horns.toml").write_text("SECRET = 1\n")
    desk = tmp_path / "desk"
    desk.mkdir()
    return desk, out


def test_saving_through_a_linked_file_is_refused(outside):
    desk, out = outside
    (desk / "designs" / "instruments").mkdir(parents=True)
    (desk / "designs" / "instruments" / "horns.toml").symlink_to(out / "horns.toml")
    c = client_for(desk)
    page = c.get("/edit/instrument/Horns").text
    assert "SECRET" not in page and "is a link" in page and 'id="repair"' in page
    res = c.post("/edit/instrument/Horns", data=horns_form(desk, **{AWARDS: "[3, 6, 2]"}))
    assert res.status_code == 409 and "is a link" in res.text and 'id="saved"' not in res.text
    res = c.post("/edit/instrument/Horns", data={"_repair": "text", "text": "x = 1"})
    assert res.status_code == 409 and "is a link" in res.text
    assert (out / "horns.toml").read_text() == "SECRET = 1\n" and sorted(os.listdir(out)) == ["horns.toml"]
    assert c.post("/check", data={"kind": "instrument", "key": "Horns"}).status_code == 409
    assert not (desk / "results").exists()


@pytest.mark.parametrize("linked", ["designs", "designs/instruments"])
def test_saving_into_a_linked_folder_is_refused(outside, linked):
    desk, out = outside
    empty = out / "empty"
    empty.mkdir()
    (desk / linked).parent.mkdir(parents=True, exist_ok=True)
    (desk / linked).symlink_to(empty)
    c = client_for(desk)
    res = c.post("/edit/instrument/Horns", data=horns_form(desk, **{AWARDS: "[3, 6, 2]"}))
    assert res.status_code in (200, 409) and "is a link" in res.text and 'id="saved"' not in res.text
    assert files_under(empty) == []


def test_files_and_runs_are_not_read_through_a_link_out(outside):
    desk, out = outside
    (desk / "results").mkdir()
    (desk / "results" / "x").symlink_to(out)
    (out / "manifest.json").write_text(json.dumps({"scenario": {"name": "starter"}}))
    c = client_for(desk)
    assert c.get("/files/results/x/horns.toml").status_code == 404
    assert c.get("/run/results/x").status_code == 404
    assert c.get("/check/results/x").status_code == 404
    assert "results/x" not in c.get("/runs").text
    # A results folder that is itself a link holds nothing.
    desk2 = out / "desk2"
    desk2.mkdir()
    (desk2 / "results").symlink_to(out)
    assert client_for(desk2).get("/files/results/horns.toml").status_code == 404


@pytest.mark.parametrize("name", ["a%00b", "%00", "a" * 5000, "x/" * 600 + "y", "..%2f..%2fetc%2fpasswd",
                                  "results/" + "b" * 300])
@pytest.mark.parametrize("where", ["/files/results/", "/run/results/", "/check/results/", "/check/results/desk/"])
def test_a_nul_or_very_long_name_is_not_found(tmp_path, where, name):
    c = client_for(tmp_path)
    res = c.get(where + name)
    assert res.status_code == 404
    no_traceback(res)
    if not where.startswith("/files"):
        res = c.post(where.replace("/run/", "/check/") + name + "/cancel")
        assert res.status_code == 404 and "No such check" in res.text
    assert files_under(tmp_path) == []


# ------------------------------------------------------------------ the processes the desk owns
def test_a_reused_pid_is_not_signalled(tmp_path):
    """desk.json names a pid that now belongs to another process: shown as stopped, never signalled."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        folder = tmp_path / "results" / "desk" / "old"
        folder.mkdir(parents=True)
        created = round(psutil.Process(other.pid).create_time(), 2)
        for pretend in (created - 5, created):  # another start time; the same, but another program
            state = {"kind": "check", "title": "old", "steps": [["ssb", "report", "results/desk/old"]], "step": 0,
                     "status": "running", "cwd": str(tmp_path), "pid": other.pid, "created": pretend}
            jobs.write_state(folder, state)
            assert jobs.owned(state, folder) is None
            assert jobs.status(folder)["status"] == "stopped"
            res = client_for(tmp_path).post("/check/results/desk/old/cancel")
            assert res.status_code == 200 and 'data-status="stopped"' in res.text
            time.sleep(0.2)
            assert other.poll() is None  # still running
            assert jobs.read_state(folder)["status"] == "running"  # not marked cancelled
    finally:
        other.kill()
        other.wait()


def test_cancel_ends_the_check_and_its_children_and_reaps_it(tmp_path):
    folder = jobs.new_folder(tmp_path, "horns")
    pid = jobs.start(folder, "check", jobs.check_steps(folder.relative_to(tmp_path), [], 3000, jobs=1), "t", tmp_path)
    driver = psutil.Process(pid)
    deadline = time.time() + 60
    while time.time() < deadline and not driver.children():
        time.sleep(0.1)
    family = [driver, *driver.children(recursive=True)]
    assert len(family) >= 2
    state = jobs.cancel(folder)
    assert state["status"] == "cancelled"
    for p in family:
        assert not p.is_running() or p.status() == psutil.STATUS_ZOMBIE and p.pid != pid
    with pytest.raises(ChildProcessError):  # reaped: no zombie of the driver is left
        os.waitpid(pid, os.WNOHANG)
    # Cancel on a check that has ended leaves it as it is.
    state["status"] = "done"
    jobs.write_state(folder, state)
    assert jobs.cancel(folder)["status"] == "done"


def test_two_checks_in_the_same_second_get_two_folders(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs, "stamp", lambda: "20260101-000000")
    a, b, c = (jobs.new_folder(tmp_path, "horns") for _ in range(3))
    assert len({a, b, c}) == 3 and all(p.is_dir() for p in (a, b, c))
    assert b.name == "horns-20260101-000000-2"


# ------------------------------------------------------------------ Resume runs what the desk recorded
def recorded(tmp_path, **change):
    folder = tmp_path / "results" / "desk" / "old"
    folder.mkdir(parents=True, exist_ok=True)
    steps = jobs.check_steps("results/desk/old", [], 30, jobs=1)
    state = {"kind": "check", "title": "old", "steps": steps, "step": 0, "status": "cancelled",
             "cwd": str(tmp_path), "pid": None}
    state.update(change)
    jobs.write_state(folder, state)
    return folder, state


@pytest.mark.parametrize("steps, why", [
    ([["ssb", "run", "ci", "--out", "/tmp/elsewhere"]], "expected ssb run ci --out results/desk/old"),
    ([["ssb", "run", "ci", "--out", "results/desk/old", "--set", "instrument_dirs=[\"/etc\"]"]], "instrument_dirs"),
    ([["ssb", "run", "ci", "--out", "results/desk/old", "--seed", "3"]], "--seed: not an option the desk gives"),
    ([["ssb", "regress", "results/desk/old", "--baseline", "/tmp/b.json"]], "expected ssb regress"),
    ([["ssb", "report", "results/desk/old", "--out", "/tmp"]], "expected ssb report"),
    ([["rm", "-rf", "/"]], "not a command the desk runs"),
    ([["ssb", "tune", "organ-points", "--out", "results/desk/old", "--jobs", "²"]], "--jobs: expected a whole number"),
])
def test_resume_refuses_what_the_desk_did_not_record(tmp_path, steps, why):
    folder, state = recorded(tmp_path, steps=steps)
    res = client_for(tmp_path).post("/check/results/desk/old/resume")
    assert res.status_code == 200 and "Nothing done" in res.text and why in res.text
    no_traceback(res)
    assert jobs.read_state(folder) == state  # nothing started, nothing changed
    assert not (folder / "desk.log").exists()


def test_resume_runs_in_the_desks_own_folder(tmp_path, monkeypatch):
    folder, _state = recorded(tmp_path, cwd="/")
    started = []
    monkeypatch.setattr(jobs, "spawn", lambda f, env=None, cwd=None: started.append((f, cwd)) or 1)
    res = client_for(tmp_path).post("/check/results/desk/old/resume")
    assert res.status_code == 200 and "Nothing done" not in res.text
    assert started == [(folder, tmp_path.resolve())]
    assert jobs.read_state(folder)["cwd"] == str(tmp_path.resolve())
    assert "--resume" in jobs.read_state(folder)["steps"][0]


# ------------------------------------------------------------------ ssb desk's options
@pytest.mark.parametrize("args, fragments", [
    (["--host", ""], ["--host", "must not be empty"]),
    (["--host", "   "], ["--host", "must not be empty"]),
    (["--host", "no-such-host.invalid"], ["--host", "not an address of this machine"]),
    (["--host", "10.254.254.254"], ["--host", "cannot listen on"]),
    (["--token", "x"], ["--token", "too short", "at least 16"]),
    (["--token", "a b c d e f g h i j k"], ["--token", "letters, digits"]),
])
def test_desk_options_name_the_option_at_fault(tmp_path, args, fragments):
    res = invoke("desk", "--no-browser", "--port", "0", "--folder", tmp_path, *args)
    assert_clean_error(res, *fragments)
    assert "--port" not in res.output.split("error:", 1)[1].split(":", 1)[0]
    assert files_under(tmp_path) == []


def test_the_desk_answers_at_its_printed_address_only(tmp_path):
    import re

    import httpx

    proc = subprocess.Popen([sys.executable, "-m", "ssb.cli", "desk", "--port", "0", "--no-browser", "--folder",
                             str(tmp_path)], stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)
        assert httpx.get(url).status_code == 200
        port = url.rsplit(":", 1)[1].strip("/")
        assert httpx.get(url, headers={"host": f"evil.example:{port}"}).status_code == 400
        assert httpx.get(url, headers={"host": "127.0.0.1:1"}).status_code == 400
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
