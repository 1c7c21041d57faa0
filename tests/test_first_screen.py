"""The report's first screen: the verdict matrix and one short line per player count, read from the
seat verdicts the report already holds (never computed again), judges in ladder order."""

import io
import sys
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from report_tables import synthetic_run  # noqa: E402

from stats import tests as stats  # noqa: E402
from reports.answers import readings  # noqa: E402
from reports.first_screen import edge_text, first_screen, ladder_order, short_line, verdict_word  # noqa: E402
from reports.headline import headline_frame  # noqa: E402
from reports.seats import seat_advantage  # noqa: E402

JUDGES = ("search", "greedy", "search_deep", "tuned")  # as a scenario may list them: not by skill


def _adv(cells, seed=5):
    _, games = synthetic_run(cells, seed=seed)
    return seat_advantage(games)


def _cells(players, leans, games=3000):
    out = []
    for judge, lean in leans.items():
        probs = [1.0 / players] * players
        probs[-1] += lean
        probs[0] -= lean
        out.append({"players": players, "games": games, "lineup": (judge,) * players, "seat_probs": probs})
    return out


def test_judges_in_ladder_order_in_the_picture_and_the_headline():
    adv = _adv(_cells(3, dict.fromkeys(JUDGES, 0.0), games=600))
    glance = first_screen(adv)
    assert glance.judges == ["greedy", "tuned", "search", "search_deep"]
    assert ladder_order(readings(adv)) == glance.judges
    levels = [lv.rsplit(" x", 1)[0] for lv in headline_frame(adv)["judge (lineup)"]]
    assert levels == ["greedy", "tuned", "search", "search_deep"]
    # The terminal's matrix has the same columns, left to right.
    header = glance.text.splitlines()[2]
    assert [header.index(j) for j in glance.judges] == sorted(header.index(j) for j in glance.judges)


def test_the_cells_carry_the_verdict_objects_words_and_edges():
    adv = _adv(_cells(3, {"greedy": 0.12, "search": 0.0}, games=6000), seed=3)
    rs = {r.judge: r for r in readings(adv)}
    unfair, fair = rs["greedy"], rs["search"]
    assert unfair.verdict == stats.UNFAIR and verdict_word(unfair) == "unfair"
    assert fair.verdict == stats.FAIR and verdict_word(fair) == "fair"
    # The edge of the seat furthest from fair, and its interval, as differences from 1/N.
    text = edge_text(unfair)
    assert text.startswith("last +") and f"{100 * (unfair.lo - unfair.fair):+.1f}" in text
    glance = first_screen(adv)
    assert "unfair: last +" in glance.text and "fair: " in glance.text
    # The picture: a PNG with the verdicts' colours.
    with Image.open(io.BytesIO(glance.chart.png)) as im:
        colours = {c for _, c in im.convert("RGB").getcolors(maxcolors=1_000_000)}
    assert (0xF2, 0xB4, 0x8F) in colours and (0xBF, 0xE3, 0xD5) in colours


def test_one_short_line_per_player_count_strongest_decided_judge_first():
    cells = _cells(2, {"greedy": 0.0, "search": 0.0}) + _cells(3, {"greedy": 0.0, "search": 0.12}, games=6000)
    adv = _adv(cells, seed=8)
    glance = first_screen(adv)
    assert len(glance.lines) == 2
    two, three = glance.lines
    assert two.startswith("2 players: fair among strong players") and "at greedy's level" in two
    assert three.startswith("3 players: the last player (seat 3) wins about ") and "among strong players" in three
    assert "(fair is 33%)" in three and "fair at greedy's level" in three
    # Short: a line, not a paragraph.
    assert all(len(line) < 220 for line in glance.lines)


def test_an_undecided_strongest_judge_is_said_after_the_decided_one():
    adv = _adv(_cells(3, {"greedy": 0.12, "search": 0.02}, games=600), seed=4)
    rs = readings(adv)
    top = next(r for r in rs if r.judge == "search")
    line = short_line(3, rs)
    if top.decided:  # the draw decided it after all: the line leads with it
        assert line.startswith("3 players: ") and "among strong players" in line.split(";")[0]
    else:
        assert "not decided yet among strong players" in line or "on the margin among strong players" in line
        assert line.index("greedy") < line.index("strong players")


def test_a_run_without_cells_has_no_first_screen():
    assert first_screen(None) is None
