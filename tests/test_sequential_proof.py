"""The strong judge's proof (scenarios.sequential_proof): its bounds by betting, a planted weak judge
whose every verdict is marked unproven, a genuinely stronger judge shown stronger, and its games
replayed exactly on resume whatever the workers."""

import json

import numpy as np
import pandas as pd
import pytest

from reports.answers import readings, seat_answers
from reports.run import load_run
from reports.seats import seat_advantage
from scenarios import results as R
from scenarios import sequential_proof as SQP
from stats import sequences as SS
from scenarios.load import load_scenario
from scenarios.runner import run_scenario
from simulator.errors import DataError
from ssb.run_cmd import proof_line

# A search player crippled to two candidates, two rollouts of one turn on greedy's weights: a
# search-family judge (the ladder holds it to `search`) far weaker than `search`.
WEAK = """\
[strategy]
name = "search_weak"
kind = "search"
weights_from = "greedy"
budget = 2
horizon = 1
candidates = 2
win_bonus = 10.0
prior = 1.0
description = "A crippled search: 2 candidates, 2 rollouts of 1 turn."
"""

SCENARIO = """\
name = "{name}"
seed = 5
games = {games}
players = [2]
strategy_dirs = ["strats"]

[instruments]
sets = [["Violin", "Piano", "Horns"]]

[lineup]
mirror = {mirror}

[sequential]
seconds = {seconds}
proof = {proof}
round = 100
cost = {{ greedy = 0.3, search_weak = 2.0, search = {search_cost}, search_leaf = 20.0 }}
"""


def _scenario(tmp_path, name, mirror, games=200, seconds=20, proof=0.5, search_cost=60.0):
    (tmp_path / "strats").mkdir(exist_ok=True)
    (tmp_path / "strats" / "search_weak.toml").write_text(WEAK)
    path = tmp_path / f"{name}.toml"
    path.write_text(SCENARIO.format(name=name, games=games, mirror=json.dumps(mirror), seconds=seconds, proof=proof,
                                    search_cost=search_cost))
    return path


# --------------------------------------------------------------------------- the bounds


def test_betting_bounds_hold_at_every_look():
    """Each one-sided bound misses the true mean at some look in at most about 5% of sequences."""
    rng = np.random.default_rng(3)
    misses = 0
    for _ in range(80):
        x = (rng.random((200, 2)) < 0.6).mean(axis=1)  # a deal's share over two rotations, mean 0.6
        for n in (25, 50, 100, 200):
            lo, _ = SS.mean_bounds(x[:n])
            if lo > 0.6:
                misses += 1
                break
    assert misses <= 8


def test_stronger_verdict_words():
    rng = np.random.default_rng(4)
    strong = (rng.random((200, 2)) < 0.7).mean(axis=1)
    weak = (rng.random((200, 2)) < 0.35).mean(axis=1)
    par = (rng.random((60, 2)) < 0.5).mean(axis=1)
    assert SS.stronger_verdict(strong, 0.5)["verdict"] == SS.STRONGER
    assert SS.stronger_verdict(weak, 0.5)["verdict"] == SS.NOT_STRONGER
    v = SS.stronger_verdict(par, 0.5)
    assert v["verdict"] == SS.UNPROVEN and v["lo"] <= 0.5 <= v["hi"] and v["deals"] == 60


def test_proof_lineups_and_fair_shares():
    assert SQP.lineup("s", "r", 2) == ("s", "r")
    assert SQP.lineup("s", "r", 3) == ("s", "r", "s")
    assert SQP.lineup("s", "r", 4) == ("s", "r", "s", "r")


def test_proof_share_is_checked(tmp_path):
    path = _scenario(tmp_path, "bad", ["greedy", "search_weak"], proof=1.5)
    with pytest.raises(DataError, match="sequential.proof: expected a share"):
        load_scenario(path)


def test_no_proof_without_a_judge_to_prove(tmp_path):
    """A run judged by greedy and the reference rung itself has nothing to prove."""
    assert load_scenario(_scenario(tmp_path, "plain", ["greedy", "search"])).proof is None
    sc = load_scenario(_scenario(tmp_path, "weak", ["greedy", "search_weak"]))
    assert sc.proof.strong == "search_weak" and sc.proof.reference == "search"
    assert [c.lineup for c in sc.proof.cells] == [("search_weak", "search")]
    assert sc.proof.covers == ((1,),)  # the search_weak cell; never the greedy one


# --------------------------------------------------------------------------- runs


def test_weak_judge_marks_every_verdict_unproven_and_resumes_exactly(tmp_path):
    path = _scenario(tmp_path, "weak", ["greedy", "search_weak"])
    out = tmp_path / "run"
    run_scenario(load_scenario(path), out, jobs=1, progress=False)
    manifest = R.read_manifest(out)
    proof = manifest["sequential"]["proof"]
    (setting,) = proof["settings"]
    assert setting["verdict"] != SS.STRONGER and setting["deals"] > 0
    assert setting["covers"] == [1]
    assert proof["seconds_spent"] <= proof["seconds"] + 1e-9
    assert "shown stronger than search on 0 of 1 settings" in proof_line(manifest)

    # The report: every verdict search_weak gave rests on an unproven judge, greedy's do not.
    run = load_run(out)
    adv = seat_advantage(run.games, sequential=manifest["sequential"])
    cells = adv.cells
    weak = cells[cells["lineup"].str.startswith("search_weak")]
    assert len(weak) == 1 and all(str(p).startswith("resting on an unproven judge: search_weak") for p in weak["proof"])
    assert cells[cells["lineup"].str.startswith("greedy")]["proof"].isna().all()
    said = [r for r in readings(adv) if r.judge == "search_weak"]
    assert said and all(r.unproven for r in said)
    assert any("resting on an unproven judge: search_weak" in a for a in seat_answers(adv))

    # Resume: a lost proof chunk is played again, identically, with other workers.
    root = out / SQP.PROOF_DIR
    before = R.read_chunk(R.chunk_paths(root, 0)[1], ("deal", "rotation", "winner", "seed"), strings=frozenset())
    for p in R.chunk_paths(root, 0):
        p.unlink()
    manifest["status"] = R.STATUS_RUNNING
    R.write_manifest(out, manifest)
    run_scenario(load_scenario(path), out, jobs=2, resume=True, progress=False)
    after = R.read_chunk(R.chunk_paths(root, 0)[1], ("deal", "rotation", "winner", "seed"), strings=frozenset())
    pd.testing.assert_frame_equal(pd.DataFrame(before), pd.DataFrame(after))
    again = R.read_manifest(out)["sequential"]["proof"]
    keep = ("settings", "rounds", "plan", "seconds_spent")
    assert {k: again[k] for k in keep} == {k: proof[k] for k in keep}


def test_stronger_judge_is_shown_stronger(tmp_path):
    """search_leaf against search on the starter set at 2 players: shown stronger in one round."""
    path = _scenario(tmp_path, "leaf", ["search_leaf"], games=60, seconds=10, proof=0.8, search_cost=17.0)
    out = tmp_path / "run"
    run_scenario(load_scenario(path), out, jobs=1, progress=False)
    manifest = R.read_manifest(out)
    (setting,) = manifest["sequential"]["proof"]["settings"]
    assert setting["verdict"] == SS.STRONGER and setting["lo"] > 0.5 and setting["stop"] == SQP.STOP_SHOWN
    run = load_run(out)
    adv = seat_advantage(run.games, sequential=manifest["sequential"])
    (note,) = adv.cells["proof"].tolist()
    assert note.startswith("the strong judge is shown stronger than search here: search_leaf")
    assert not any(r.unproven for r in readings(adv))


def test_an_instrument_verdict_rests_on_both_sets_proofs():
    """An instrument verdict compares a set with the first set of its player count: its judge is
    unproven when it is not shown stronger on either."""
    from reports.instrument_verdicts import proof_for

    def rec(orange, verdict, players=2):
        return {"strong": "search_leaf", "reference": "search", "players": players, "verdict": verdict,
                "instruments": {"black": "Violin", "orange": orange, "gray": "Horns"}, "share": 0.4, "lo": 0.3,
                "hi": 0.45, "fair": 0.5, "deals": 120}

    proofs = [rec("Piano", SS.STRONGER), rec("Organ", SS.NOT_STRONGER), rec("Harp", SS.STRONGER)]
    assert proof_for(proofs, "orange", "Organ", 2, "search_leaf").startswith("resting on an unproven judge")
    assert proof_for(proofs, "orange", "Harp", 2, "search_leaf").startswith("the strong judge is shown stronger")
    assert proof_for(proofs, "orange", "Harp", 2, "greedy") is None
    assert proof_for(proofs, "orange", "Harp", 3, "search_leaf") is None
    first_unproven = [rec("Piano", SS.UNPROVEN), rec("Harp", SS.STRONGER)]
    assert proof_for(first_unproven, "orange", "Harp", 2, "search_leaf").startswith("resting on an unproven judge")


def test_a_bad_proof_share_is_a_clean_error(tmp_path):
    from cli_harness import assert_clean_error, invoke

    path = _scenario(tmp_path, "bad", ["greedy", "search_weak"], proof=-0.1)
    result = invoke("run", path, "--out", tmp_path / "out", "--jobs", "1")
    assert_clean_error(result, str(path), "sequential.proof", "expected a share")
    assert not (tmp_path / "out").exists()
