"""Instruments out of line (reports.instrument_verdicts): paired on deals, simultaneous intervals,
one verdict per instrument, ranked so the instrument furthest out of line comes first."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from report_tables import complete  # noqa: E402

from reports.instrument_section import headline_lines  # noqa: E402
from reports.instrument_verdicts import (  # noqa: E402
    IN_LINE,
    OUT,
    UNCLEAR,
    instrument_verdicts,
    parse_margins,
)
from scenarios.schema import GAME_COLUMNS, SEAT_COLUMNS  # noqa: E402


def paired_run(deals, shift, noise=3.0, players=4, seed=0, unbuilt=None, winner_seat=None):
    """A swaps-like run: black instruments of ``shift`` (name -> extra objective points per game),
    each played on the same ``deals`` deal seeds; orange/gray fixed. A deal's base value is shared by
    every instrument (what pairing removes), plus small noise per game."""
    rng = np.random.default_rng(seed)
    base = rng.normal(30, 10, size=deals)  # deal-to-deal spread, common to all instruments
    g_rows, s_rows = [], []
    for cell, (inst, extra) in enumerate(shift.items()):
        for d in range(deals):
            total = base[d] + extra + rng.normal(0, noise)
            win = int(rng.integers(players)) if winner_seat is None else winner_seat.get(inst, rng.integers(players))
            if callable(win):
                win = win(rng)
            built = 1
            if unbuilt and inst in unbuilt:
                built = int(rng.random() >= unbuilt[inst])
            g_rows.append(dict(cell=cell, game=d, deal=d, seed=10_000 + d, players=players, inst_black=inst,
                               inst_orange="Piano", inst_gray="Horns", lineup=",".join(["greedy"] * players),
                               winner=int(win), winner_strategy="greedy", rounds=27, built_black=built,
                               built_orange=1, built_gray=1))
            for s in range(players):
                s_rows.append(dict(cell=cell, game=d, deal=d, seed=10_000 + d, players=players, inst_black=inst,
                                   inst_orange="Piano", inst_gray="Horns", lineup=",".join(["greedy"] * players),
                                   seat=s, strategy="greedy", objective_black=total / players,
                                   won=int(s == win), rank=1 if s == win else 2))
    return complete(pd.DataFrame(s_rows), SEAT_COLUMNS), complete(pd.DataFrame(g_rows), GAME_COLUMNS)


def verdict_of(iv, inst):
    return iv.verdicts.set_index("instrument").loc[inst]


def test_a_far_out_instrument_is_out_of_line_and_tops_the_list():
    seats, games = paired_run(400, {"Violin": 0, "Bass": 20, "Guitar": 1, "Banjo": -1})
    iv = instrument_verdicts(seats, games)
    assert iv.paired
    top = iv.verdicts.iloc[0]
    assert (top["instrument"], top["verdict"], top["worst_measure"]) == ("Bass", OUT, "objective_points")
    # Bass against the mean of its three peers: 20 - 0 = +20 points, close, with a tight paired interval.
    e = iv.effects.set_index(["instrument", "measure", "who"]).loc[("Bass", "objective_points", "")]
    assert e["effect"] == pytest.approx(20.0, abs=1.0) and e["hi"] - e["lo"] < 3.0
    assert "Bass (black, 4 players) is out of line" in top["sentence"]
    assert "more objective points" in top["sentence"]
    assert headline_lines(iv)[1].startswith("1. Bass")


def test_pairing_removes_the_deal_to_deal_spread():
    """The deals' common spread (sd 10) would swamp a 2-point change unpaired; paired it shows."""
    seats, games = paired_run(300, {"Violin": 0, "Bass": 2}, noise=1.0)
    e = instrument_verdicts(seats, games).effects.set_index(["instrument", "measure"]).loc[("Bass", "objective_points")]
    assert e["effect"] == pytest.approx(2.0, abs=0.5) and e["hi"] - e["lo"] < 1.0
    unpaired = games.copy(), seats.copy()
    for df in unpaired:
        df.loc[df["inst_black"] == "Bass", "seed"] += 1_000_000  # no deals in common any more
    iv = instrument_verdicts(unpaired[1], unpaired[0])
    e2 = iv.effects.set_index(["instrument", "measure"]).loc[("Bass", "objective_points")]
    assert not iv.paired and e2["hi"] - e2["lo"] > 3 * (e["hi"] - e["lo"])
    assert any("unpaired" in n for n in iv.notes)


def test_every_verdict_agrees_with_its_interval_and_margin():
    seats, games = paired_run(150, {"Violin": 0, "Bass": 6, "Guitar": 4.5, "Banjo": 0.3}, noise=4.0, seed=3)
    iv = instrument_verdicts(seats, games)
    for r in iv.effects.itertuples(index=False):
        beyond = r.lo > r.margin or r.hi < -r.margin
        within = r.lo >= -r.margin and r.hi <= r.margin
        assert r.verdict == (OUT if beyond else IN_LINE if within else UNCLEAR)
    for inst, part in iv.effects.groupby("instrument"):
        v = verdict_of(iv, inst)["verdict"]
        if (part["verdict"] == OUT).any():
            assert v == OUT
        elif (part["verdict"] == IN_LINE).all():
            assert v == IN_LINE
        else:
            assert v == UNCLEAR
    # Ranked: out of line, then unclear, then in line.
    order = {OUT: 0, UNCLEAR: 1, IN_LINE: 2}
    ranks = [order[v] for v in iv.verdicts["verdict"]]
    assert ranks == sorted(ranks)
    assert iv.intervals == len(iv.effects)


def test_simultaneous_intervals_widen_with_the_number_of_comparisons():
    seats, games = paired_run(200, {"Violin": 0, "Bass": 0})
    few = instrument_verdicts(seats, games)
    seats4, games4 = paired_run(200, {"Violin": 0, "Bass": 0, "Guitar": 0, "Banjo": 0})
    many = instrument_verdicts(seats4, games4)
    assert many.intervals > few.intervals
    w = lambda iv: float((iv.effects["hi"] - iv.effects["lo"]).median())  # noqa: E731
    assert w(many) > 0 and w(few) > 0
    note = many.notes[0]
    assert f"{many.intervals} comparisons" in note and "at most 5%" in note


def test_unbuilt_rate_and_seat_shift_are_measured():
    seats, games = paired_run(
        600, {"Violin": 0, "Bass": 0, "Guitar": 0}, unbuilt={"Bass": 0.6},
        winner_seat={"Guitar": lambda rng: 0 if rng.random() < 0.6 else int(rng.integers(1, 4))}, seed=5
    )
    iv = instrument_verdicts(seats, games)
    e = iv.effects.set_index(["instrument", "measure", "who"])
    assert e.loc[("Bass", "unbuilt", ""), "effect"] == pytest.approx(0.6, abs=0.08)
    assert e.loc[("Bass", "unbuilt", ""), "verdict"] == OUT
    first = e.loc[("Guitar", "seat_win", "0")]
    assert first["effect"] == pytest.approx(0.6 - 0.25, abs=0.08) and first["verdict"] == OUT
    assert "first player's win rate" in verdict_of(iv, "Guitar")["sentence"]


def test_one_set_has_no_verdict_and_says_why():
    seats, games = paired_run(50, {"Violin": 0})
    iv = instrument_verdicts(seats, games)
    assert iv.empty and "one instrument set" in iv.notes[0]
    assert headline_lines(iv) == []


def test_margins_from_the_command_line():
    m = parse_margins(["objective_points=4", "seat_win=3"])
    assert m["objective_points"] == 4 and m["seat_win"] == pytest.approx(0.03) and m["rounds"] == 1.0
    with pytest.raises(ValueError, match="KEY one of"):
        parse_margins(["luck=3"])
    with pytest.raises(ValueError, match="positive"):
        parse_margins(["rounds=-1"])
    # A wider margin turns an out-of-line measure in line.
    seats, games = paired_run(400, {"Violin": 0, "Bass": 6})
    assert verdict_of(instrument_verdicts(seats, games), "Bass")["verdict"] == OUT
    wide = instrument_verdicts(seats, games, margins={"objective_points": 20.0, "winner_points": 20.0})
    assert wide.effects.set_index(["instrument", "measure"]).loc[("Bass", "objective_points"), "verdict"] == IN_LINE


def orange_run(deals, shift, twins=None, noise=3.0, players=4, seed=0):
    """An orange swaps-like run: each instrument of ``shift`` (name -> extra objective points per game,
    and the same extra share of unbuilt games / rounds scaled down) on the same deal seeds; a twin
    (``twins``: twin -> original) replays the original's games exactly, as an identical instrument
    file does on the same deals."""
    rng = np.random.default_rng(seed)
    base = rng.normal(30, 10, size=deals)
    winner = rng.integers(players, size=deals)  # who wins a deal does not depend on the instrument here
    per = {}
    for inst, extra in shift.items():
        per[inst] = [
            dict(points=base[d] + extra + rng.normal(0, noise), win=int(winner[d]),
                 built=int(rng.random() >= 0.05 + max(extra, 0) / 200), rounds=27 + int(extra > 20))
            for d in range(deals)
        ]
    for twin, original in (twins or {}).items():
        per[twin] = per[original]
    g_rows, s_rows = [], []
    for cell, (inst, games) in enumerate(per.items()):
        for d, g in enumerate(games):
            common = dict(cell=cell, game=d, deal=d, seed=10_000 + d, players=players, inst_black="Violin",
                          inst_orange=inst, inst_gray="Horns", lineup=",".join(["greedy"] * players))
            g_rows.append(dict(common, winner=g["win"], winner_strategy="greedy", rounds=g["rounds"], built_black=1,
                               built_orange=g["built"], built_gray=1))
            for s in range(players):
                s_rows.append(dict(common, seat=s, strategy="greedy", objective_orange=g["points"] / players,
                                   won=int(s == g["win"]), rank=1 if s == g["win"] else 2))
    return complete(pd.DataFrame(s_rows), SEAT_COLUMNS), complete(pd.DataFrame(g_rows), GAME_COLUMNS)


def test_an_exact_piano_twin_beside_organ_reads_in_line():
    """The baseline is the median of the peers (leave-one-out): Organ, 47 points above the rest, does
    not lift its peers' baseline, so Piano, its exact twin, Harp and Vibes read in line and Organ alone
    out of line. Against the peers' mean (the old baseline) Piano read 11-12 points low: out of line."""
    shift = {"Piano": 0.0, "Harp": 0.5, "Organ": 47.0, "Vibes": -0.5}
    seats, games = orange_run(600, shift, twins={"Piano Twin": "Piano"})
    iv = instrument_verdicts(seats, games)
    v = iv.verdicts.set_index("instrument")
    assert v.loc["Piano Twin", "verdict"] == IN_LINE and v.loc["Piano", "verdict"] == IN_LINE
    assert v.loc["Harp", "verdict"] == IN_LINE and v.loc["Vibes", "verdict"] == IN_LINE
    assert v.loc["Organ", "verdict"] == OUT and v.loc["Organ", "worst_measure"] == "objective_points"
    e = iv.effects.set_index(["instrument", "measure", "who"])
    assert abs(e.loc[("Piano Twin", "objective_points", ""), "effect"]) < 1.0
    assert e.loc[("Organ", "objective_points", ""), "effect"] == pytest.approx(47.0, abs=1.5)
    organ = v.loc["Organ", "sentence"]
    assert "out of line on objective points handed out per game" in organ
    assert "the median of the other orange instruments" in organ
    # Every measure out of line is named, never "on 1 more measure".
    assert "more measure" not in organ or "section 4" in organ
    if (iv.effects[(iv.effects["instrument"] == "Organ")]["verdict"] == OUT).sum() > 1:
        assert "; also out of line on " in organ
    # The old mean baseline, for contrast: the twin's peers' mean is lifted by Organ's 47 points / 4.
    mean_of_peers = np.mean([shift[k] for k in ("Piano", "Harp", "Organ", "Vibes")])
    assert mean_of_peers > 5.0


def test_two_instruments_are_one_comparison_said_once():
    """A department with two instruments: one row, a sentence saying the pair differs (not both 'out of line')."""
    seats, games = paired_run(400, {"Violin": 0, "Bass": 8})
    iv = instrument_verdicts(seats, games)
    assert len(iv.verdicts) == 1
    row = iv.verdicts.iloc[0]
    assert row["instrument"] == "Bass" and row["verdict"] == OUT
    assert "Bass and Violin" in row["sentence"] and "differ on" in row["sentence"]
    assert "which of them is out of line cannot be told" in row["sentence"]
    assert headline_lines(iv)[0].startswith("Instruments out of line: 1 of 1")


TWIN_SCENARIO = """\
name = "orange-twin"
seed = 11
games = {games}
players = [4]
instrument_dirs = ["twin"]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Violin", "Harp", "Horns"], ["Violin", "Organ", "Horns"],
        ["Violin", "Vibes", "Horns"], ["Violin", "Piano Twin", "Horns"]]

[lineup]
mirror = "greedy"
"""


def twin_run(tmp_path, games):
    from scenarios.results import load_results
    from scenarios.runner import run_scenario
    from simulator.shuffle_swing.board import DATA_DIR

    (tmp_path / "twin").mkdir()
    piano = (Path(DATA_DIR) / "instruments" / "piano.toml").read_text()
    (tmp_path / "twin" / "piano_twin.toml").write_text(piano.replace('name = "Piano"', 'name = "Piano Twin"'))
    sc = tmp_path / "orange-twin.toml"
    sc.write_text(TWIN_SCENARIO.format(games=games))
    run_scenario(sc, tmp_path / "run", jobs=1)
    seats, games_t, _ = load_results(tmp_path / "run")
    return seats, games_t


def test_a_played_piano_twin_beside_organ_reads_in_line(tmp_path):
    """Real games: an exact copy of Piano's file added to the orange swaps beside Organ plays Piano's
    games deal by deal, so against the median of its peers (Piano is the nearer middle peer) it differs
    by exactly 0 on every measure and reads in line; Organ, far above, reads out of line on points."""
    seats, games = twin_run(tmp_path, 2000)
    iv = instrument_verdicts(seats, games)
    v = iv.verdicts.set_index("instrument")
    e = iv.effects[iv.effects["instrument"] == "Piano Twin"]
    assert len(e) >= 6
    objective = e[e["measure"] == "objective_points"].iloc[0]
    assert objective["effect"] == 0.0 and objective["lo"] == 0.0 and objective["hi"] == 0.0
    assert objective["verdict"] == IN_LINE
    assert v.loc["Organ", "verdict"] == OUT
    assert v.loc["Piano Twin", "verdict"] == IN_LINE, v.loc["Piano Twin", "sentence"]
    assert v.loc["Piano", "verdict"] == IN_LINE
    assert "in line with the median of the other orange instruments" in v.loc["Piano Twin", "sentence"]
