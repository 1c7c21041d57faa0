"""The desk's check at two levels: greedy's gate and the strong gate (the strong judge's mirrors, its
leaf held at the shipped fit), each against
its own baseline on its own deals; the answer says in words, per judge, what moved beyond its margin
(by how much, with its interval), what is not decided and how many figures held, and its seat table
gives both rates on the deals the check played (one basis)."""

import json
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ssb.desk import jobs
from ssb.desk.app import create_app
from ssb.desk.pages import answer_block

DESK = "http://127.0.0.1:8765"


def _figure(players, label, kind, now, change, verdict, lo, hi, margin=0.03, deals=60):
    return {"cell_key": f"players={players}|instruments=Violin,Piano,Horns|lineup=x", "figure": label, "kind": kind,
            "label": label, "baseline": 0.5, "now": now, "change": change, "ci_low": lo, "ci_high": hi,
            "margin": margin, "verdict": verdict, "deals_now": deals}


def _regress(folder, figures, verdict):
    folder.mkdir(parents=True, exist_ok=True)
    counts = {v: sum(f["verdict"] == v for f in figures) for v in ("fail", "pass", "inconclusive")}
    (folder / "regress.json").write_text(json.dumps({"verdict": verdict, "counts": counts, "figures": figures}))


def test_a_check_plays_greedys_gate_then_the_strong_gate_each_against_its_baseline():
    steps = jobs.check_steps("results/desk/horns-1", [], 60, jobs=1)
    assert [s[:3] for s in steps] == [["ssb", "run", "ci"], ["ssb", "regress", "results/desk/horns-1"],
                                      ["ssb", "report", "results/desk/horns-1"], ["ssb", "run", "ci-strong"],
                                      ["ssb", "regress", "results/desk/horns-1/strong"]]
    assert steps[3][3:5] == ["--out", "results/desk/horns-1/strong"] and "--games" in steps[3]
    assert str(jobs.baseline_path("ci-strong")) in steps[4] and jobs.baseline_path("ci-strong").is_file()
    for argv in steps:  # Resume runs only what the desk writes: every step passes its word-by-word check
        jobs.check_argv(argv, "results/desk/horns-1", ".")
    # ... and a strong step pointed at another folder or baseline does not.
    bad = list(steps[3])
    bad[4] = "results/desk/other/strong"
    try:
        jobs.check_argv(bad, "results/desk/horns-1", ".")
    except jobs.JobError as exc:
        assert "ci-strong" in str(exc)
    else:
        raise AssertionError("a strong run into another folder was accepted")
    assert len(jobs.check_steps("results/desk/horns-1", [], 60, jobs=1, strong=False)) == 3


def test_a_full_check_plays_the_strong_gate_in_looks():
    """Every baseline deal (no games cap): the strong run plays them in looks and stops once decided
    (``ssb run --looks ... --against`` its own baseline); a capped check or fresh deals go without."""
    steps = jobs.check_steps("results/desk/horns-1", [], None, jobs=1)
    strong = steps[-2]
    assert strong[:3] == ["ssb", "run", "ci-strong"]
    i = strong.index("--looks")
    assert strong[i + 1] == jobs.STRONG_LOOKS and strong[i + 2:i + 4] == ["--against", str(jobs.baseline_path("ci-strong"))]
    assert "--looks" not in steps[0]  # greedy's gate: 5 s, every deal
    for argv in steps:
        jobs.check_argv(argv, "results/desk/horns-1", ".")
    for k, v in ((i + 3, "baselines/ci-baseline.json"), (i + 1, "500;rm")):
        bad = list(strong)
        bad[k] = v
        with pytest.raises(jobs.JobError, match="--against|--looks"):
            jobs.check_argv(bad, "results/desk/horns-1", ".")
    assert "--looks" not in jobs.check_steps("results/desk/horns-1", [], 60, jobs=1)[-2]
    assert "--looks" not in jobs.check_steps("results/desk/horns-1", [], None, adaptive_budget=600, jobs=1)[-2]


def test_the_answer_says_per_judge_what_moved_in_words_consistent_with_its_table(tmp_path):
    folder = tmp_path / "results" / "desk" / "horns-1"
    greedy = [_figure(3, "win rate, seat 3", "win_rate", 0.33, 0.004, "pass", -0.01, 0.018),
              _figure(3, "objective points per game, gray (Horns)", "objective_points", 20.1, -4.7, "fail", -5.7, -3.7,
                      margin=1.0)]
    strong = [_figure(3, "win rate, seat 3", "win_rate", 0.337, -0.032, "inconclusive", -0.043, -0.021),
              _figure(4, "win rate, seat 4", "win_rate", 0.266, -0.035, "fail", -0.045, -0.031)]
    _regress(folder, greedy, "fail")
    ans = jobs.answer(folder)
    assert ans["strong"] is None  # the strong gate has not answered yet
    html = answer_block(ans, "results/desk/horns-1", "running")
    assert "Greedy players" in html and "moved 1 figure beyond its margin" in html
    assert "objective points per game, gray (Horns), 3 players: -4.7" in html
    assert "Held within the margin: 1 figure." in html
    assert 'id="answer-strong" data-verdict="playing"' in html
    # The strong answer names the judge the strong gate plays (its leaf held at the shipped fit).
    assert "<code>search_leaf_held</code> in every seat" in html.split('id="answer-strong"', 1)[1]
    # The seat table's two rates are on the same deals: before = after - change.
    assert "32.6%" in html and "33.0%" in html and "+0.4 pp" in html
    _regress(folder / "strong", strong, "fail")
    html = answer_block(jobs.answer(folder), "results/desk/horns-1", "done")
    part = html.split('id="answer-strong"', 1)[1]
    assert "Strong players" in part and "moved 1 figure beyond its margin" in part
    assert "win rate, seat 4, 4 players: -3.5 pp" in part
    assert "Not decided" in part and "win rate, seat 3, 3 players: -3.2 pp" in part
    assert "Held within the margin: 0 figures." in part


def test_every_figure_of_a_gate_is_a_page(tmp_path):
    folder = tmp_path / "results" / "desk" / "horns-1"
    _regress(folder, [_figure(2, "win rate, seat 1", "win_rate", 0.55, 0.067, "fail", 0.04, 0.09)], "fail")
    (folder / jobs.DESK_FILE).write_text("{}")
    client = TestClient(create_app(tmp_path), base_url=DESK, headers={"origin": DESK})
    page = client.get("/regress/results/desk/horns-1")
    assert page.status_code == 200, page.text
    assert "2 players" in page.text and "48.3%" in page.text and "+6.7 pp" in page.text
    assert client.get("/regress/results/desk/missing").status_code == 404
    assert client.get("/regress/../../etc").status_code == 404
    (folder / "regress.json").write_text("{not json")
    damaged = client.get("/regress/results/desk/horns-1")
    assert damaged.status_code in (404, 422) and "Traceback" not in damaged.text
