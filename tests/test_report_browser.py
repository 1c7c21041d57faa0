"""The HTML report in a real browser: headless Chromium loads it offline, decodes every chart and
finds the headline table; a screenshot is saved beside the test output."""

import shutil
import subprocess
from pathlib import Path

import pytest
from fixtures.report_tables import synthetic_run

from reports.build import build_report
from reports.document import write_report
from reports.io import from_frames

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Appended to a copy of the page: once everything has loaded, write what it sees into the title.
CHECK = """<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var decoded = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var head = document.getElementById("headline");
  var rows = head ? head.tBodies[0].rows.length : 0;
  var found = document.querySelectorAll("#headline-findings p");
  var text = found.length ? found[0].textContent : "";
  var first = text.indexOf("Instruments out of line") === 0 ? "out" : (text.indexOf("No instrument") === 0 ? "none" : "other");
  var charts = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; })
    .map(function (i) { return i.getAttribute("data-chart"); }).sort().join(",");
  var loose = Array.prototype.filter.call(document.querySelectorAll("section .note"),
    function (n) { return !n.closest("details"); }).length;
  var about = document.getElementById("about") ? document.getElementById("about").textContent : "";
  var reconstructed = about.indexOf("reconstructions") >= 0 ? 1 : 0;
  document.title = "CHECK images=" + imgs.length + " decoded=" + decoded + " headline_rows=" + rows +
    " findings=" + found.length + " first=" + first + " loose_notes=" + loose + " about=" + reconstructed +
    " charts=" + charts;
});
</script>"""

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium (/usr/bin/chromium) is not installed")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    cells = [
        {"players": 2, "games": 400, "lineup": ("greedy", "random"), "rotations": 2},
        {
            "players": 4,
            "games": 400,
            "instruments": ("Bass", "Piano", "Horns"),
            "lineup": ("greedy", "greedy", "random", "random"),
            "rotations": 4,
        },
        {"players": 4, "games": 400, "lineup": ("greedy", "greedy", "random", "random"), "rotations": 4},
    ]
    seats, games = synthetic_run(cells, seed=3)
    rep = build_report(from_frames(seats, games, {"scenario": {"name": "browser"}}, source="synthetic"))
    out = tmp_path_factory.mktemp("report")
    written = write_report(rep, out)
    return out, written, rep


def _chromium(args, profile, timeout=120):
    return subprocess.run(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_page_loads_with_every_image_decoded_and_the_headline(report_dir, tmp_path):
    out, written, rep = report_dir
    page = written["html"].read_text(encoding="utf-8")
    checked = out / "report_checked.html"
    checked.write_text(page.replace("</body>", CHECK + "</body>"), encoding="utf-8")
    res = _chromium(["--virtual-time-budget=10000", "--dump-dom", checked.as_uri()], tmp_path / "profile")
    assert res.returncode == 0, res.stderr[-2000:]
    dom = res.stdout
    nimages = sum(len(s.charts) for s in rep.sections) + 1  # and the first screen's verdict matrix
    expected = f"CHECK images={nimages} decoded={nimages} headline_rows={len(rep.headline)}"
    assert f"<title>{expected} " in dom, dom[:500]
    assert 'id="headline"' in dom
    title = dom[dom.index("<title>") + 7 : dom.index("</title>")]
    facts = dict(part.split("=", 1) for part in title.split(" ")[1:] if "=" in part)
    # The new headline: the instruments out of line (or that none is) and the rules that rarely bite,
    # one paragraph each, right under the seat table.
    assert int(facts["findings"]) == len(rep.headline_lines) >= 2
    assert facts["first"] == ("out" if rep.headline_lines[0].startswith("Instruments out of line") else "none")
    assert rep.headline_lines[-1].startswith(("Rules that", "Every rule"))
    # Method notes are folded away; the caveats are up front.
    assert facts["loose_notes"] == "0" and facts["about"] == "1"
    # The new charts decoded in the browser: the instrument comparison and the rule bite rates.
    charts = set(title.split("charts=", 1)[1].split(","))
    assert {"instrument_effects", "rule_bite_rates", "instrument_objectives", "seat_win_rates", "verdict_matrix"} <= charts


def test_screenshot_is_a_non_empty_png(report_dir, tmp_path):
    out, written, _ = report_dir
    shot = out / "report.png"
    res = _chromium(
        ["--screenshot=" + str(shot), "--window-size=1280,2000", written["html"].as_uri()], tmp_path / "profile"
    )
    assert res.returncode == 0, res.stderr[-2000:]
    data = shot.read_bytes()
    assert len(data) > 10_000
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (1280, 2000)
        # Not a blank page: more than a handful of distinct colours.
        assert len(im.convert("RGB").getcolors(maxcolors=1_000_000) or []) > 20
    shutil.copy(shot, tmp_path / "report.png")  # kept beside this test's output too


# Appended to a copy of the page: where the first screen's picture and short lines end, in pixels
# from the top of the page, once the page has loaded at 1366 x 900.
GLANCE = """<script>
window.addEventListener("load", function () {
  function bottom(el) { return el ? Math.ceil(el.getBoundingClientRect().bottom + window.scrollY) : -1; }
  var img = document.querySelector("#verdict-matrix img");
  var items = document.querySelectorAll("#short-lines li");
  var last = items.length ? items[items.length - 1] : null;
  var ok = img && img.complete && img.naturalWidth > 0 ? 1 : 0;
  var first = document.querySelector("main, body").querySelector("section, figure, table");
  document.title = "GLANCE picture=" + bottom(img) + " lines=" + bottom(last) + " count=" + items.length +
    " decoded=" + ok + " first=" + (first ? first.id : "") + " width=" + window.innerWidth;
});
</script>"""


@pytest.fixture(scope="module")
def starter_like(tmp_path_factory):
    """A run shaped like the starter report: 2, 3 and 4 players, four judges of rising skill (given
    out of ladder order, as a scenario may list them), each cell with a lean of its own."""
    cells = []
    for players in (2, 3, 4):
        for judge, lean in (("search", 0.02), ("greedy", 0.05), ("search_deep", 0.0), ("tuned", 0.07)):
            probs = [1.0 / players] * players
            probs[-1] += lean
            probs[0] -= lean
            cells.append({"players": players, "games": 1200, "lineup": (judge,) * players, "seat_probs": probs})
    seats, games = synthetic_run(cells, seed=11)
    rep = build_report(from_frames(seats, games, {"scenario": {"name": "starter-like"}}, source="synthetic"))
    out = tmp_path_factory.mktemp("glance")
    return out, write_report(rep, out), rep


def test_first_screen_holds_the_picture_and_a_short_line_per_player_count(starter_like, tmp_path):
    out, written, rep = starter_like
    # The judges in ladder order, whatever the run's order: in the picture's columns and the headline.
    assert rep.first_screen.judges == ["greedy", "tuned", "search", "search_deep"]
    for players in (2, 3, 4):
        levels = list(rep.headline[rep.headline["players"] == players]["judge (lineup)"])
        assert [lv.rsplit(" x", 1)[0] for lv in levels] == ["greedy", "tuned", "search", "search_deep"]
    page = written["html"].read_text(encoding="utf-8")
    assert page.index('id="first-screen"') < page.index('id="answers"') < page.index('id="headline"')
    checked = out / "glance_checked.html"
    checked.write_text(page.replace("</body>", GLANCE + "</body>"), encoding="utf-8")
    res = _chromium(["--window-size=1366,900", "--virtual-time-budget=10000", "--dump-dom", checked.as_uri()],
                    tmp_path / "profile")
    assert res.returncode == 0, res.stderr[-2000:]
    dom = res.stdout
    title = dom[dom.index("<title>") + 7 : dom.index("</title>")]
    assert title.startswith("GLANCE"), title
    facts = dict(part.split("=", 1) for part in title.split(" ")[1:] if "=" in part)
    assert facts["decoded"] == "1" and facts["first"] == "first-screen"
    assert int(facts["count"]) == 3 == len(rep.first_screen.lines)  # one short line per player count
    assert 0 < int(facts["picture"]) <= 900, facts
    assert 0 < int(facts["lines"]) <= 900, facts
    shot = out / "first_screen.png"
    res = _chromium(["--screenshot=" + str(shot), "--window-size=1366,900", written["html"].as_uri()], tmp_path / "p2")
    assert res.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
