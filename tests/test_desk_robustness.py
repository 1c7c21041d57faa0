"""The desk with careless input and damaged folders: every case answers with a page that says what
is wrong (never a 500, never a traceback), writes nothing outside the desk's folder, and a
designer's damaged file opens in a repair view where it can be fixed or reset."""

import json
import os
import re
import warnings

import pytest

with warnings.catch_warnings():  # Starlette's test client names the httpx it runs on
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cli_harness import files_under
from ssb.desk import catalog, forms, guard, jobs
from ssb.desk.app import create_app
from desk_support import horns_form

AWARDS = "section.0.score.0.awards"
DESK = "http://127.0.0.1:8765"
OWN = ("designs", "instruments", "horns.toml")


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(tmp_path), base_url=DESK, headers={"origin": DESK})


def clean(res, status=200):
    assert res.status_code == status, (res.status_code, res.text[-400:])
    assert "Traceback" not in res.text and "Something went wrong" not in res.text
    return res.text


def beside(page, name):
    return page.split(f'id="err-{name}">', 1)[1].split("<", 1)[0]


def save_horns(client, tmp_path, awards="[3, 6, 2]"):
    assert 'id="saved"' in client.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{AWARDS: awards})).text


# ------------------------------------------------------------------ the form's values
@pytest.mark.parametrize("value, says", [
    ("[" * 3000 + "]" * 3000, "expected a list"),
    ("[" * 20 + "1" + "]" * 20, "expected a list"),  # deeper than any data file: handed over as text
    ("9" * 5000, "expected a list"),
    ("[" + "9" * 5000 + "]", "expected a list"),
    ("[99999999999999999999999]", "above the maximum 1000"),
    ("1e999", "expected a list"),
    ("x" * 200_000, "expected a list"),
])
def test_a_deep_or_huge_value_is_the_loaders_message_beside_its_field(client, tmp_path, value, says):
    page = clean(client.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{AWARDS: value})))
    message = beside(page, AWARDS)
    assert says in message and len(message) < 400
    assert files_under(tmp_path) == []


def test_the_small_messages_of_the_form(client, tmp_path):
    page = clean(client.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{AWARDS: "[]"})))
    assert "needs at least 1 number, got 0" in beside(page, AWARDS)
    page = clean(client.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{AWARDS: "[-6]"})))
    said = beside(page, AWARDS)
    assert "-6 is below the minimum 0" in said and "maximum" not in said and "at most" not in said
    # The message names the field as its label does (space[t1], not the loader's space[0]).
    fields = {f.name: f for f in forms.fields_of(forms.tomllib.loads(catalog.instruments(tmp_path)["Horns"].source_text()))}
    number = fields["space.0.number"]
    assert number.alt != number.key
    page = clean(client.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{"space.0.number": "-6"})))
    said = beside(page, "space.0.number")
    assert said.startswith(number.alt.replace("'", "&#x27;")) and "below the minimum" in said
    assert files_under(tmp_path) == []
    # First place paying less than second is saved, with a warning.
    page = clean(client.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{AWARDS: "[3, 6, 2]"})))
    assert 'id="saved"' in page
    assert "first place pays less than second (3 &lt; 6)" in page.split('id="warnings">', 1)[1]


@pytest.mark.parametrize("games, says", [
    ("0", "0 is not between 1 and"), ("²", "digits 0-9"), ("٣", "digits 0-9"), ("-1", "digits 0-9"),
    ("1e3", "digits 0-9"), ("99999999999", "digits 0-9"), ("5000000", "not between 1 and"), ("x" * 5000, "digits 0-9"),
])
def test_games_of_a_check_are_whole_numbers_from_1(client, tmp_path, games, says):
    save_horns(client, tmp_path)
    res = client.post("/check", data={"kind": "instrument", "key": "Horns", "games": games}, follow_redirects=False)
    assert says in clean(res, 400) and "games:" in res.text
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("kind, key", [("instrument", "a\x00b"), ("board", "x" * 5000), ("nothing", "Horns"),
                                       ("instrument", "")])
def test_an_unknown_file_is_not_found(client, kind, key, tmp_path):
    assert "No " in clean(client.post("/check", data={"kind": kind, "key": key}), 404)
    assert "Not found" in clean(client.get(f"/edit/{kind}/{key.replace(chr(0), '%00') or 'x'}"), 404)
    assert files_under(tmp_path) == []


# ------------------------------------------------------------------ a damaged own file: the repair view
@pytest.mark.parametrize("damage, says", [
    (lambda p: p.write_text("[instrument\nname = "), "is not TOML"),
    (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe"), "not UTF-8 text"),
    (lambda p: p.mkdir(), "is a folder"),
    (lambda p: p.write_text("x = 1\n"), "missing the [instrument] table"),
    (lambda p: p.write_text("a = " + "[" * 2000 + "]" * 2000), "nested too deeply"),
], ids=["not-toml", "binary", "folder", "no-table", "deep"])
def test_a_damaged_own_file_opens_in_a_repair_view(client, tmp_path, damage, says):
    own = tmp_path.joinpath(*OWN)
    own.parent.mkdir(parents=True)
    damage(own)
    page = clean(client.get("/edit/instrument/Horns"))
    assert 'id="repair"' in page and says in page and 'id="reset"' in page
    assert "damaged" in clean(client.get("/")).split('id="instruments"', 1)[1].split("</table>", 1)[0]
    # Saving the form, or starting a check, is refused with the same sentence.
    assert says in clean(client.post("/edit/instrument/Horns", data=horns_form(tmp_path)), 409)
    assert says in clean(client.post("/check", data={"kind": "instrument", "key": "Horns"}), 409)
    # A text the loader refuses is not saved; the view keeps it.
    page = clean(client.post("/edit/instrument/Horns", data={"_repair": "text", "text": "x = 1"}), 400)
    assert "not saved" in page and "x = 1" in page
    # Reset: the form starts again from the shipped file.
    res = client.post("/edit/instrument/Horns", data={"_repair": "reset"}, follow_redirects=False)
    assert res.status_code == 303 and not own.exists()
    page = clean(client.get("/edit/instrument/Horns"))
    assert f'id="f-{AWARDS}"' in page and 'id="repair"' not in page


def test_a_damaged_own_file_is_fixed_in_the_repair_view(client, tmp_path):
    save_horns(client, tmp_path)
    own = tmp_path.joinpath(*OWN)
    good = own.read_text()
    own.write_text(good.replace("[instrument]", "[instrument", 1))
    assert 'id="repair"' in clean(client.get("/edit/instrument/Horns"))
    res = client.post("/edit/instrument/Horns", data={"_repair": "text", "text": good.replace("[3, 6, 2]", "[4, 6, 2]")},
                      follow_redirects=False)
    assert res.status_code == 303 and "awards = [4, 6, 2]" in own.read_text()
    assert 'value="[4, 6, 2]"' in clean(client.get("/edit/instrument/Horns"))


def test_a_folder_with_files_in_it_is_not_removed_by_reset(client, tmp_path):
    own = tmp_path.joinpath(*OWN)
    own.mkdir(parents=True)
    (own / "keep.txt").write_text("mine")
    assert "does not remove it" in clean(client.post("/edit/instrument/Horns", data={"_repair": "reset"}), 409)
    assert (own / "keep.txt").read_text() == "mine"


# ------------------------------------------------------------------ a folder the desk cannot write
def refuse_writes(monkeypatch):
    def no(*_a, **_k):
        raise PermissionError(13, "Permission denied", "designs")

    monkeypatch.setattr(guard.os, "mkdir", no)
    monkeypatch.setattr(guard.os, "open", no)
    monkeypatch.setattr(jobs.os, "mkdir", no)


def test_a_read_only_folder_on_save_check_and_tune(client, tmp_path, monkeypatch):
    save_horns(client, tmp_path)
    before = files_under(tmp_path)
    refuse_writes(monkeypatch)
    page = clean(client.post("/edit/instrument/Horns", data=horns_form(tmp_path, **{AWARDS: "[4, 6, 2]"})))
    assert "not saved" in page and "Permission denied" in page and 'id="saved"' not in page
    page = clean(client.post("/check", data={"kind": "instrument", "key": "Horns", "games": "10"}), 409)
    assert "Not started" in page and "Permission denied" in page
    page = clean(client.post("/tune", data={"tune": "organ-points"}), 409)
    assert "Not started" in page and "Permission denied" in page
    assert files_under(tmp_path) == before


# ------------------------------------------------------------------ damaged check and run folders
def check_folder(tmp_path, desk_json=None, regress=None):
    folder = tmp_path / "results" / "desk" / "old"
    folder.mkdir(parents=True)
    if desk_json is not None:
        (folder / "desk.json").write_text(desk_json)
    if regress is not None:
        (folder / "regress.json").write_text(regress)
    return folder


GOOD = json.dumps({"kind": "check", "title": "old", "steps": [["ssb", "report", "results/desk/old"]], "step": 1,
                   "status": "done", "cwd": "/", "pid": None})


def test_cancel_and_resume_without_desk_json(client, tmp_path):
    check_folder(tmp_path)
    for url in ("/check/results/desk/old", "/check/results/desk/old/cancel", "/check/results/desk/old/resume"):
        res = client.post(url) if url.endswith(("cancel", "resume")) else client.get(url)
        assert "has no desk.json" in clean(res, 404)
    assert files_under(tmp_path) == []


@pytest.mark.parametrize("text, says", [
    ("{", "cannot be read"), ("[]", "expected an object"), ('{"steps": "x"}', "steps"),
    ('{"kind": "check", "steps": [["ssb", "report", "r"]], "step": 99, "status": "done"}', "step"),
    ('{"kind": "check", "steps": [["ssb", "report", "r"]], "status": 7}', "status"),
    ('{"kind": "check", "steps": [["ssb", 5]], "status": "done"}', "steps"),
    ("[" * 100_000, "cannot be read"),
])
def test_a_damaged_desk_json(client, tmp_path, text, says):
    folder = check_folder(tmp_path, text)
    page = clean(client.get("/check/results/desk/old"))
    assert 'id="damaged"' in page and says in page
    for act in ("cancel", "resume"):
        page = clean(client.post(f"/check/results/desk/old/{act}"))
        assert "Nothing done" in page and says in page
    assert (folder / "desk.json").read_text() == text and sorted(os.listdir(folder)) == ["desk.json"]
    assert client.get("/check/results/desk/old/progress").status_code == 200


@pytest.mark.parametrize("text", [
    "{", "[]", '{"verdict": 3}', '{"verdict": "pass", "counts": {"pass": "x"}}', '{"verdict": "pass", "counts": []}',
    '{"verdict": "pass", "figures": "x"}', '{"verdict": "pass", "figures": [{"label": "win rate", "baseline": "x"}]}',
    '{"verdict": "pass", "figures": [{"label": "win rate", "baseline": 0.5, "now": 0.5, "change": 1e308}]}',
    '{"verdict": "pass", "figures": [{"label": "win rate", "baseline": 0.5, "now": 0.5, "change": 0, "ci_low": 0}]}',
])
def test_a_damaged_regress_json(client, tmp_path, text):
    check_folder(tmp_path, GOOD, text)
    (tmp_path / "results" / "desk" / "old" / "manifest.json").write_text("{}")
    page = clean(client.get("/check/results/desk/old"))
    assert 'id="answer"' in page
    assert 'id="answer"' in clean(client.get("/run/results/desk/old"))


@pytest.mark.parametrize("manifest", [
    '{"scenario": "starter"}', '{"scenario": {"name": 5}}', '{"totals": 3}', '{"status": []}', "[1, 2]", "{",
    "\x00\xff", '{"scenario": {"name": "starter"}, "totals": {"games": {"a": 1}}}',
])
def test_a_damaged_run_manifest_is_listed_as_damaged(client, tmp_path, manifest):
    good = tmp_path / "results" / "good"
    good.mkdir(parents=True)
    (good / "manifest.json").write_text(json.dumps({"scenario": {"name": "starter"}, "status": "complete"}))
    bad = tmp_path / "results" / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text(manifest)
    for url in ("/", "/runs"):
        page = clean(client.get(url))
        row = re.search(r"<tr><td><a href=\"/run/results/bad\">.*?</tr>", page).group(0)
        assert "damaged" in row and "results/good" in page
    assert "damaged" in clean(client.get("/run/results/bad"))


def test_cancel_on_a_finished_check_leaves_it_finished(client, tmp_path):
    folder = check_folder(tmp_path, GOOD)
    page = clean(client.post("/check/results/desk/old/cancel"))
    assert 'data-status="done"' in page and jobs.read_state(folder)["status"] == "done"
    page = clean(client.post("/check/results/desk/old/resume"))
    assert "this check is done" in page


def test_a_board_the_gate_does_not_play_is_not_checked(client, tmp_path):
    ed = catalog.boards(tmp_path)["echidna/snow"]
    data = {f.name: f.shown() for f in forms.fields_of(forms.tomllib.loads(ed.source_text())) if f.kind != "bool"}
    assert 'id="saved"' in client.post("/edit/board/echidna/snow", data=data).text
    page = clean(client.post("/check", data={"kind": "board", "key": "echidna/snow", "games": "10"}), 409)
    assert "ssb check --game echidna" in page
    assert not (tmp_path / "results").exists()
