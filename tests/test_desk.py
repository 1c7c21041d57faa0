"""The designer's desk without a browser: its forms are checked by the game's loaders, a bad value
shows the loader's message beside its field and writes nothing, a shipped file is never written,
another address asks for a token, and a check is an ordinary run folder that can be cancelled."""

import json
import time

import warnings

import pytest

with warnings.catch_warnings():  # Starlette's test client names the httpx it runs on
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from simulator.errors import DataError
from ssb.desk import catalog, forms, jobs
from ssb.desk.app import create_app, is_loopback

import desk_support

AWARDS = "section.0.score.0.awards"  # the trumpet's first scoring term of the Horns
DESK = "http://127.0.0.1:8765"


def desk_client(root, **kwargs):
    """A test client that asks as the desk's own page does: at the desk's address, with its Origin."""
    return TestClient(create_app(root, **kwargs), base_url=DESK, headers={"origin": DESK})


@pytest.fixture
def client(tmp_path):
    return desk_client(tmp_path)


def horns_form(client, **changes):
    """The Horns form as a browser submits it: every field with its shown value, then ``changes``."""
    return desk_support.horns_form(client.app.state.root, **changes)


def test_fields_are_named_by_the_loaders_key_paths():
    ed = catalog.instruments(".")["Horns"]
    fields = {f.name: f for f in forms.fields_of(forms.tomllib.loads(ed.source_text()))}
    f = fields[AWARDS]
    assert f.key == "section[0].score[0].awards" and f.alt == "section[trumpet].score[0].awards"
    assert f.value == [8, 6, 2] and f.shown() == "[8, 6, 2]"
    assert fields["instrument.replaces"].value is True  # the designer's copy replaces the shipped one
    # A loader's error key finds its field, also when it names an item of the value.
    assert forms.field_of_error(fields.values(), "section[trumpet].score[0].awards[2]") is f
    assert forms.field_of_error(fields.values(), "space[2].number").name == "space.2.number"


def test_bad_input_shows_the_loaders_message_beside_the_field_and_writes_nothing(client, tmp_path):
    page = client.post("/edit/instrument/Horns", data=horns_form(client, **{AWARDS: "[8, 6, 2000]"})).text
    # The loader's own message (the same one `ssb instruments validate` prints), beside the field.
    beside = page.split(f'id="err-{AWARDS}">', 1)[1].split("<", 1)[0]
    assert "2000 is above the maximum 1000" in beside
    assert 'value="[8, 6, 2000]"' in page  # what was typed stays in the form
    # Not TOML at all: handed to the loader, which says what it expected.
    page = client.post("/edit/instrument/Horns", data=horns_form(client, **{"space.2.number": "three"})).text
    assert "expected an integer" in page.split('id="err-space.2.number">', 1)[1].split("<", 1)[0]
    assert not (tmp_path / "designs").exists()


def test_a_good_change_is_saved_as_the_designers_own_file_with_its_comments(client, tmp_path):
    page = client.post("/edit/instrument/Horns", data=horns_form(client, **{AWARDS: "[3, 6, 2]"})).text
    assert 'id="saved"' in page and "section[trumpet].score[0].awards" in page
    own = tmp_path / "designs" / "instruments" / "horns.toml"
    text = own.read_text()
    assert "awards = [3, 6, 2]" in text and "replaces = true" in text
    assert "RECONSTRUCTED LAYOUT" in text  # the shipped file's comments kept
    shipped = catalog.instrument_dir() / "horns.toml"
    assert "awards = [8, 6, 2]" in shipped.read_text().split("[[section]]", 2)[1]
    # The loader reads the saved file back as a Horns that replaces the shipped one.
    from simulator.shuffle_swing.library import InstrumentLibrary

    lib = InstrumentLibrary(extra_dirs=(str(own.parent),))
    assert str(lib.get("Horns").path) == str(own)
    # The form now edits the designer's file, and offers the check with its ssb command.
    page = client.get("/edit/instrument/Horns").text
    assert 'value="[3, 6, 2]"' in page and 'id="start-check"' in page
    assert "ssb instruments validate designs/instruments/horns.toml" in page


def test_a_shipped_file_is_never_written(tmp_path):
    ed = catalog.instruments(tmp_path)["Horns"]
    doc = forms.tomllib.loads(ed.source_text())
    fields = forms.fields_of(doc)
    target = catalog.instrument_dir() / "horns.toml"
    before = target.read_bytes()
    out = forms.check_and_save(doc, fields, {AWARDS: "[3, 6, 2]"}, ed.validate, ed.source_text(), target,
                               catalog.shipped_data_dirs())
    assert out.written is None and "never written" in out.errors[""]
    assert target.read_bytes() == before


def test_boards_of_both_games_are_forms_checked_by_their_loaders(client, tmp_path):
    boards = catalog.boards(tmp_path)
    assert {"shuffle-swing/board", "echidna/forest", "echidna/snow"} <= set(boards)
    page = client.post("/edit/board/shuffle-swing/board", data={"board.max_rounds": "0"}).text
    assert "board.max_rounds" in page and 'class="error"' in page
    assert not (tmp_path / "designs").exists()
    with pytest.raises(DataError):
        boards["echidna/snow"].validate({"board": {}})


def test_pages_list_what_the_lab_holds(client, tmp_path):
    run = tmp_path / "results" / "old"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"scenario": {"name": "starter"}, "status": "complete",
                                                   "totals": {"games": 10}}))
    home = client.get("/").text
    for word in ("Horns", "shuffle-swing/board", "echidna/snow", "greedy", "results/old"):
        assert word in home
    assert "ssb tune organ-points" in client.get("/tune").text
    assert "ssb report results/old" in client.get("/run/results/old").text
    assert client.get("/files/../../etc/passwd").status_code == 404
    assert client.get("/static/htmx.min.js").status_code == 200  # served by the desk: works offline


def test_another_address_asks_for_a_token(tmp_path):
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    c = TestClient(create_app(tmp_path, token="s3cret"))
    assert c.get("/").status_code == 401
    assert c.get("/?token=wrong").status_code == 401
    assert c.get("/?token=s3cret").status_code == 200
    assert c.get("/runs").status_code == 200  # the cookie carries it after the first visit


def test_desk_command_refuses_a_busy_port(tmp_path):
    import socket

    from click.testing import CliRunner

    from ssb.cli import cli

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    try:
        res = CliRunner().invoke(cli, ["desk", "--port", str(port), "--no-browser", "--folder", str(tmp_path)])
    finally:
        s.close()
    assert res.exit_code == 2 and "error: --port" in res.stderr and "Traceback" not in res.output


def test_a_check_is_a_run_folder_that_can_be_cancelled_and_resumed(tmp_path):
    folder = tmp_path / "results" / "desk" / "slow"
    steps = jobs.check_steps("results/desk/slow", [], 3000, jobs=1)
    assert steps[0][:3] == ["ssb", "run", "ci"] and steps[1][:2] == ["ssb", "regress"]
    assert jobs.command_line(steps[0]).startswith("ssb run ci --out results/desk/slow")
    pid = jobs.start(folder, "check", steps, "slow", tmp_path)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not (folder / "manifest.json").exists():
            time.sleep(0.2)
        assert jobs.status(folder)["status"] == "running"
    finally:
        state = jobs.cancel(folder)
    assert state["status"] == "cancelled"
    deadline = time.time() + 20
    while time.time() < deadline and jobs.alive(pid):
        time.sleep(0.1)
    assert not jobs.alive(pid)
    assert jobs.status(folder)["status"] == "cancelled"
    pid = jobs.resume(folder)
    try:
        assert "--resume" in jobs.read_state(folder)["steps"][0]
        assert jobs.status(folder)["status"] == "running"
    finally:
        jobs.cancel(folder)
    deadline = time.time() + 20
    while time.time() < deadline and jobs.alive(pid):
        time.sleep(0.1)
    assert not jobs.alive(pid)


def test_which_number_starts_a_balance_search_in_its_own_folder(client, tmp_path):
    res = client.post("/tune", data={"tune": "organ-points"}, follow_redirects=False)
    assert res.status_code == 303 and res.headers["location"].startswith("/check/results/desk/tune-organ-points-")
    folder = tmp_path / res.headers["location"].removeprefix("/check/")
    try:
        state = jobs.read_state(folder)
        assert state["kind"] == "tune" and state["steps"][0][:3] == ["ssb", "tune", "organ-points"]
        page = client.get(res.headers["location"]).text
        assert "ssb tune organ-points --out results/desk/tune-organ-points-" in page
    finally:
        jobs.cancel(folder)
    assert client.post("/tune", data={"tune": "no-such"}).text.count("No balance search named") == 1


def test_a_form_from_another_site_is_refused(client, tmp_path):
    data = horns_form(client, **{AWARDS: "[3, 6, 2]"})
    res = client.post("/edit/instrument/Horns", data=data, headers={"origin": "http://elsewhere.example"})
    assert res.status_code == 403 and not (tmp_path / "designs").exists()
    res = client.post("/edit/instrument/Horns", data=data, headers={"origin": DESK})
    assert res.status_code == 200 and (tmp_path / "designs" / "instruments" / "horns.toml").exists()


def test_a_check_outlives_a_killed_desk_and_a_new_desk_shows_its_answer(tmp_path):
    import re
    import signal
    import subprocess
    import sys

    import httpx

    def start_desk():
        proc = subprocess.Popen([sys.executable, "-m", "ssb.cli", "desk", "--port", "0", "--no-browser", "--jobs", "1",
                                 "--folder", str(tmp_path)], stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        return proc, re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)

    proc, url = start_desk()
    try:
        own = {"origin": url.rstrip("/")}
        httpx.post(url + "edit/instrument/Horns", data=horns_form(desk_client(tmp_path), **{AWARDS: "[3, 6, 2]"}),
                   headers=own)
        res = httpx.post(url + "check", data={"kind": "instrument", "key": "Horns", "games": "30"}, headers=own)
        assert res.status_code == 303
        folder = tmp_path / res.headers["location"].removeprefix("/check/")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=20)
    deadline = time.time() + 300
    while time.time() < deadline and jobs.status(folder)["status"] == "running":
        time.sleep(0.5)
    assert jobs.status(folder)["status"] == "done"
    proc, url = start_desk()
    try:
        page = httpx.get(url + res.headers["location"].lstrip("/")).text
        assert 'data-status="done"' in page and 'id="answer"' in page
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_an_echidna_board_is_saved_under_a_name_of_its_own(client, tmp_path):
    ed = catalog.boards(tmp_path)["echidna/snow"]
    doc = forms.tomllib.loads(ed.source_text())
    assert doc["board"]["name"] == "my-snow"  # the loader refuses a shipped board's name
    data = {f.name: f.shown() for f in forms.fields_of(doc) if f.kind != "bool"}
    data["board.name"] = "snow"
    page = client.post("/edit/board/echidna/snow", data=data).text
    assert "is the name of a shipped board" in page.split('id="err-board.name">', 1)[1].split("<", 1)[0]
    assert not (tmp_path / "designs").exists()
    data["board.name"] = "my-snow"
    assert 'id="saved"' in client.post("/edit/board/echidna/snow", data=data).text
    assert "ssb check --game echidna --board designs/boards/echidna/snow.toml" in client.get(
        "/edit/board/echidna/snow").text
