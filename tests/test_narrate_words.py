"""`ssb play` in the designer's words: score reasons by instrument and rule term, the end award as
min(disc, pieces) with both values, a final table consistent with the scoring."""

import re

import numpy as np

from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.narrate import event_dicts, narrate_lines, pieces_reach, source_label
from simulator.shuffle_swing.playout import GameSetup, play_one
from simulator.shuffle_swing.strategies import StrategyLibrary


def _game(n=4, seed=7):
    setup = GameSetup(nplayers=n)
    return play_one(setup, StrategyLibrary().matrix(["greedy"] * n), seed)


def test_score_lines_name_instruments_and_terms_not_identifiers():
    lines = narrate_lines(_game(), ["greedy"] * 4)
    text = "\n".join(lines)
    assert "objective_" not in text and "brag_" not in text and "penalty_" not in text
    assert re.search(r"from Piano section \w+ \(completer 1 per piece, others 1 per 2 pieces\)", text)
    assert re.search(r"from the \w+ inspector on \w+", text)


def test_end_award_shows_min_of_disc_and_pieces_and_matches_the_points():
    rec = _game()
    text = "\n".join(narrate_lines(rec, ["greedy"] * 4))
    awards = re.findall(r"scores (\d+) points? from the (\w+) end award, space (\d+) = min\(disc space (\d+), "
                        r"pieces reach (\d+)\)", text)
    assert awards
    insts = {i.name: i for i in rec.setup.insts}
    for pts, name, space, disc, reach in awards:
        assert int(space) == min(int(disc), int(reach))
        assert int(pts) == insts[name].track_vp[int(space)]


def test_final_table_award_space_is_the_min_used_in_scoring():
    rec = _game()
    lines = narrate_lines(rec, ["greedy"] * 4)
    table = lines[lines.index("Final scoring table") + 2:]
    rows = {ln[:28].strip(): ln[28:].split() for ln in table if ln[:1].strip()}
    for d, inst in enumerate(rec.setup.insts):
        if f"{inst.name} award space (min)" not in rows:
            continue
        disc = [int(x) for x in rows[f"{inst.name} disc space"]]
        reach = [int(x) for x in rows[f"{inst.name} pieces reach space"]]
        award = [int(x) for x in rows[f"{inst.name} award space (min)"]]
        assert award == [min(a, b) for a, b in zip(disc, reach, strict=True)]
        points = [int(x) for x in rows[f"{inst.name} end award"]]
        assert points == [inst.track_vp[k] for k in award]
        pieces = [int(x) for x in rows[f"{inst.name} pieces"]]
        assert reach == [pieces_reach(inst, p) for p in pieces]


def test_objective_score_events_carry_the_term():
    insts = GameSetup().insts
    rows = np.array([[3, 1, L.EV_SCORE, 0, 2, L.SRC_OBJECTIVE, 0, 1 + L.SCORE_TERM_SHIFT * 1]], dtype=np.int32)
    (ev,) = event_dicts(rows, insts)
    violin = insts[0]
    assert (ev["where"], ev["term"], ev["section_id"]) == (1, 1, violin.section_name(1))
    assert ev["term_text"] == violin.section_terms[1][1].text
    assert ev["source_label"] == "Violin objectives" == source_label(L.SRC_OBJECTIVE, insts)
