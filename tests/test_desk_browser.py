"""The designer's desk in a real browser: headless Chromium, driven through chromium-driver, opens
the desk that ``ssb desk`` serves, types a bad number (the loader's message appears beside the
field and nothing is written), changes the Horns' first trumpet award, starts the check, sees its
progress move and the answer appear, and finds the run folder on disk.

With ``SSB_DESK_SHOTS=DIR`` it saves the screenshots of the guide's desk page into DIR
(``SSB_DESK_SHOTS=docs .venv/bin/python -m pytest tests/test_desk_browser.py``)."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
DRIVER = Path("/usr/bin/chromedriver")
AWARDS = "section.0.score.0.awards"

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and DRIVER.exists()),
    reason="headless Chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver) are not installed",
)


@pytest.fixture(scope="module")
def desk(tmp_path_factory):
    """``ssb desk --port 0 --no-browser`` in a fresh folder; yields (url, folder)."""
    folder = tmp_path_factory.mktemp("desk")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ssb.cli", "desk", "--port", "0", "--no-browser", "--jobs", "1", "--folder", str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL,
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert m, line
        yield m.group(1), folder
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1366,900",
                 "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(driver, name):
    where = os.environ.get("SSB_DESK_SHOTS")
    if where:
        driver.save_screenshot(str(Path(where) / name))


def _wait(driver, what, timeout=30):
    """Wait until ``what(driver)`` is true; an element that htmx swapped out meanwhile is looked up again."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2,
                         ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(what)


def _type(driver, field_id, text):
    from selenium.webdriver.common.by import By

    def put(d):
        el = d.find_element(By.ID, field_id)
        d.execute_script(
            "var box = arguments[0].closest('details'); if (box) { box.open = true; }"
            " arguments[0].scrollIntoView({block: 'center'});", el)
        el.clear()
        el.send_keys(text)
        return el.get_attribute("value") == text

    return _wait(driver, put)


def _click(driver, elem_id):
    from selenium.webdriver.common.by import By

    def press(d):
        d.find_element(By.ID, elem_id).click()
        return True

    return _wait(driver, press)


def test_edit_a_number_check_it_and_find_the_run_folder(desk, browser):
    from selenium.webdriver.common.by import By

    url, folder = desk
    d = browser
    d.get(url)
    assert "The designer's desk" in d.page_source
    _shot(d, "desk-home.png")
    d.find_element(By.LINK_TEXT, "Horns").click()
    _wait(d, lambda d: d.find_elements(By.ID, f"f-{AWARDS}"))

    # Bad input: the loader's own message beside the field, and nothing written.
    _type(d, f"f-{AWARDS}", "[8, 6, 2000]")
    _click(d, "save")
    err = _wait(d, lambda d: d.find_element(By.ID, f"err-{AWARDS}").text or None)
    assert "2000 is above the maximum 1000" in err
    d.execute_script("document.getElementById(arguments[0]).scrollIntoView({block: 'center'})", f"err-{AWARDS}")
    _shot(d, "desk-error.png")
    assert not (folder / "designs").exists()

    # A good change: saved as the designer's own file.
    _type(d, f"f-{AWARDS}", "[3, 6, 2]")
    _click(d, "save")
    saved = _wait(d, lambda d: d.find_elements(By.ID, "saved"))
    assert "designs/instruments/horns.toml" in saved[0].text
    own = folder / "designs" / "instruments" / "horns.toml"
    assert "awards = [3, 6, 2]" in own.read_text()

    # Did this change move the balance? A small check (60 games per player count), in the background.
    _type(d, "check-games", "60")
    _shot(d, "desk-edit.png")
    _click(d, "start-check")
    _wait(d, lambda d: d.find_elements(By.ID, "progress-area"))
    commands = d.find_element(By.ID, "commands").text
    assert commands.startswith("ssb run ci --out results/desk/horns-") and "ssb regress" in commands
    seen = []
    deadline = time.time() + 600
    status = ""
    shot_taken = False
    while time.time() < deadline:
        area = d.find_elements(By.ID, "progress-area")
        if area:
            try:
                status = area[0].get_attribute("data-status")
                seen.append(float(area[0].get_attribute("data-progress")))
            except Exception:  # swapped out between the two reads (htmx replaced it)
                continue
            if status not in ("running", "queued"):
                break
        if seen and 0 < seen[-1] < 100 and not shot_taken:
            _shot(d, "desk-progress.png")
            shot_taken = True
        time.sleep(0.25)
    assert status == "done", (status, seen[-5:])
    # The progress moved: the bar took values between empty and full while the check ran.
    assert any(0 < p < 100 for p in seen), sorted(set(seen))
    assert seen == sorted(seen)
    answer = d.find_element(By.ID, "answer")
    assert answer.get_attribute("data-verdict") in ("fail", "pass", "inconclusive")
    assert "Seat win rates against the baseline" in answer.text
    d.execute_script("document.getElementById('answer').scrollIntoView()")
    _shot(d, "desk-answer.png")

    # The run folder on disk: an ordinary run folder, with the gate's answer and the report.
    run = Path(d.find_element(By.ID, "run-folder").text).expanduser()  # shown as ~/... under the home folder
    assert run.is_relative_to(folder / "results" / "desk")
    for name in ("manifest.json", "regress.json", "regress.md", "report/report.html", "desk.json"):
        assert (run / name).is_file(), name
    d.get(url + "runs")
    assert run.name in d.page_source


def _check(d, url, awards, games):
    """Save the Horns' first trumpet award as ``awards``, start a check of ``games`` per player count and
    wait for its answer; returns the check's page address."""
    from selenium.webdriver.common.by import By

    d.get(url + "edit/instrument/Horns")
    _type(d, f"f-{AWARDS}", awards)
    _click(d, "save")
    _wait(d, lambda d: d.find_elements(By.ID, "saved"))
    _type(d, "check-games", str(games))
    _click(d, "start-check")
    _wait(d, lambda d: d.find_elements(By.ID, "progress-area"))
    _wait(d, lambda d: d.find_element(By.ID, "progress-area").get_attribute("data-status") not in ("running", "queued"),
          timeout=600)
    assert d.find_element(By.ID, "progress-area").get_attribute("data-status") == "done"
    return d.current_url


@pytest.mark.slow
def test_the_designers_loop_history_compare_back_to_shipped_and_which_number(desk, browser):
    """The whole loop, as a designer clicks it: a change checked (with its sample game beside the
    answer), the history of tries, two of them side by side, the shipped value back in one click, and
    "Which number?" from the designer's file: its estimate, started, its progress shown, cancelled."""
    import json

    import psutil
    from selenium.webdriver.common.by import By

    url, folder = desk
    d = browser
    page = _check(d, url, "[5, 6, 2]", 30)
    sample = _wait(d, lambda d: d.find_element(By.ID, "sample"))
    assert "game seed 1" in d.find_element(By.ID, "sample-head").text
    assert d.find_element(By.ID, "answer").text.startswith("Greedy players")
    d.execute_script("document.getElementById('sample').scrollIntoView()")
    _shot(d, "desk-sample.png")
    assert sample.get_attribute("data-state") == "told"

    # The history: every check with its change, its answers and its state; a second try if need be.
    d.get(url + "history")
    if len(d.find_elements(By.CSS_SELECTOR, "input.pick")) < 2:
        _check(d, url, "[3, 6, 2]", 30)
        d.get(url + "history")
    rows = d.find_element(By.ID, "history").text
    assert "section[trumpet].score[0].awards: [8, 6, 2] -> [5, 6, 2]" in rows
    assert "Greedy players" not in rows and "done" in rows
    for box in d.find_elements(By.CSS_SELECTOR, "input.pick")[:2]:
        box.click()
    _shot(d, "desk-history.png")
    _click(d, "compare-two")
    _wait(d, lambda d: "/compare" in d.current_url)
    table = _wait(d, lambda d: d.find_element(By.ID, "compare")).text
    assert "[5, 6, 2]" in table and "Greedy players" in table and "Strong players" in table
    _shot(d, "desk-compare.png")

    # Back to the shipped value of the award, in one click on the edit page.
    d.get(url + "edit/instrument/Horns")
    _click(d, f"back-{AWARDS}")
    note = _wait(d, lambda d: d.find_element(By.ID, "saved").text or None)
    assert "Put back the shipped value of section[trumpet].score[0].awards: [8, 6, 2]" in note
    own = (folder / "designs" / "instruments" / "horns.toml").read_text()
    assert "awards = [8, 6, 2]" in own.split("[[section]]", 2)[1]

    # Which number should I change? From the check's answer: the target proposed, the keys of the file.
    d.get(page)
    d.find_element(By.CSS_SELECTOR, "#tune-from-check a").click()
    _wait(d, lambda d: d.find_elements(By.ID, "tune-form"))
    d.execute_script("document.querySelectorAll('details').forEach(function (x) { x.open = true; });")
    for key in ("Horns.section.trumpet.score.0.awards.0", "Horns.section.saxophone.score.0.awards.0"):
        box = d.find_element(By.CSS_SELECTOR, f'input[name="key"][value="{key}"]')
        if not box.is_selected():
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
            box.click()
    d.find_element(By.ID, "t-seats|3|greedy").click()
    _type(d, "tune-trials", "40")
    _type(d, "tune-max-keys", "2")
    d.execute_script("document.getElementById('tune-keys-area').scrollIntoView({block: 'start'})")
    _shot(d, "desk-tune.png")
    _click(d, "tune-plan")
    estimate = _wait(d, lambda d: d.find_element(By.ID, "estimate").text or None)
    assert estimate.startswith("Estimated duration:") and "candidates at most" in estimate
    assert "ssb tune results/desk/tune-horns-" in d.find_element(By.ID, "tune-command").text
    _shot(d, "desk-tune-plan.png")
    _click(d, "tune-start")
    _wait(d, lambda d: d.find_elements(By.ID, "progress-area"))
    assert "ssb run --resume" not in d.page_source
    def tried(d):  # the search's own records: a candidate raced, then the bar and the table say so
        text = d.find_element(By.ID, "tune-progress").text
        return text if "candidates tried 0" not in text else None

    text = _wait(d, tried, timeout=300)
    assert "candidates tried" in text and "at most" in text and "best so far" in text
    assert float(d.find_element(By.ID, "progress-area").get_attribute("data-progress")) > 0
    _shot(d, "desk-tune-progress.png")
    tune_folder = Path(d.find_element(By.ID, "run-folder").text).expanduser()
    pid = json.loads((tune_folder / "desk.json").read_text())["pid"]
    _click(d, "cancel")
    _wait(d, lambda d: d.find_element(By.ID, "progress-area").get_attribute("data-status") == "cancelled", timeout=60)
    assert "Resume the search where it stopped (ssb tune --resume)" in d.find_element(By.ID, "resume").text
    assert not psutil.pid_exists(pid)  # ended and reaped by the desk: no zombie left behind
