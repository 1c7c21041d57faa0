"""Instruments out of line (reports.instrument_verdicts): each against its department's reference,
paired on deals, intervals simultaneous per verdict, ranked so the instrument furthest out of line
comes first; a copy of an instrument moves no other instrument's verdict."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from report_tables import complete  # noqa: E402

from reports.sections.shuffle_swing.instrument_section import headline_lines  # noqa: E402
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
    # Bass against Violin, the black reference (the first set): +20 points, with a tight paired interval.
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
    # The reference (Violin, the first set) has no verdict; each other instrument's intervals are one family.
    assert "Violin" not in set(iv.verdicts["instrument"])
    sizes = iv.effects.groupby("instrument")["family"].agg(["min", "max", "size"])
    assert (sizes["min"] == sizes["size"]).all() and (sizes["max"] == sizes["size"]).all()
    assert iv.intervals == int(sizes["size"].max())


def test_the_family_is_the_verdict_so_company_widens_no_interval():
    """Bonferroni over one instrument's measures, not over the section: Bass's intervals have the same
    width whether two more instruments were played beside it or not (same deals, same spread)."""
    seats, games = paired_run(200, {"Violin": 0, "Bass": 3})
    few = instrument_verdicts(seats, games)
    seats4, games4 = _without_black(paired_run(200, {"Violin": 0, "Bass": 3, "Guitar": 0, "Banjo": 0}), [])
    many = instrument_verdicts(seats4, games4)
    alone = instrument_verdicts(*_without_black((seats4, games4), ["Guitar", "Banjo"]))
    a = alone.effects[alone.effects["instrument"] == "Bass"].reset_index(drop=True)
    b = many.effects[many.effects["instrument"] == "Bass"].reset_index(drop=True)
    assert a["family"].iloc[0] == len(a) > 1 and few.intervals == len(a)
    pd.testing.assert_frame_equal(a, b)
    note = many.notes[0]
    assert "at most 5%" in note and "widens no other instrument's intervals" in note


def _without_black(tables, names):
    seats, games = tables
    return (seats[~seats["inst_black"].isin(names)].reset_index(drop=True),
            games[~games["inst_black"].isin(names)].reset_index(drop=True))


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


def orange_run(deals, shift, twins=None, noise=3.0, players=4, seed=0, lineup="greedy"):
    """An orange swaps-like run: each instrument of ``shift`` (name -> extra objective points per game,
    and the same extra share of unbuilt games / rounds scaled down) on the same deal seeds; a twin
    (``twins``: twin -> original) replays the original's games exactly, as an identical instrument
    file does on the same deals. The first instrument of ``shift`` is the first set (the reference)."""
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
                          inst_orange=inst, inst_gray="Horns", lineup=",".join([lineup] * players))
            g_rows.append(dict(common, winner=g["win"], winner_strategy=lineup, rounds=g["rounds"], built_black=1,
                               built_orange=g["built"], built_gray=1))
            for s in range(players):
                s_rows.append(dict(common, seat=s, strategy=lineup, objective_orange=g["points"] / players,
                                   won=int(s == g["win"]), rank=1 if s == g["win"] else 2))
    return complete(pd.DataFrame(s_rows), SEAT_COLUMNS), complete(pd.DataFrame(g_rows), GAME_COLUMNS)


def many_runs(shift, twins=None, deals=150, counts=(2, 3, 4), lineups=("greedy", "search")):
    """:func:`orange_run` at several player counts and judges, one table (cells numbered in order)."""
    seats, games = [], []
    offset = 0
    for n in counts:
        for lu in lineups:
            s, g = orange_run(deals, shift, twins=twins, players=n, seed=n, lineup=lu)
            s["cell"] += offset
            g["cell"] += offset
            offset = int(g["cell"].max()) + 1
            seats.append(s)
            games.append(g)
    return pd.concat(seats, ignore_index=True), pd.concat(games, ignore_index=True)


def test_an_exact_piano_twin_beside_organ_reads_in_line():
    """Each instrument against Piano, the orange reference (the first set): Organ, 47 points above,
    reads out of line; Harp and Vibes and Piano's exact twin read in line (the twin at exactly 0)."""
    shift = {"Piano": 0.0, "Harp": 0.5, "Organ": 47.0, "Vibes": -0.5}
    seats, games = orange_run(600, shift, twins={"Piano Twin": "Piano"})
    iv = instrument_verdicts(seats, games)
    v = iv.verdicts.set_index("instrument")
    assert "Piano" not in v.index  # the reference is the baseline, not a verdict
    assert v.loc["Piano Twin", "verdict"] == IN_LINE
    assert v.loc["Harp", "verdict"] == IN_LINE and v.loc["Vibes", "verdict"] == IN_LINE
    assert v.loc["Organ", "verdict"] == OUT and v.loc["Organ", "worst_measure"] == "objective_points"
    e = iv.effects.set_index(["instrument", "measure", "who"])
    assert e.loc[("Piano Twin", "objective_points", ""), "effect"] == 0.0
    assert e.loc[("Organ", "objective_points", ""), "effect"] == pytest.approx(47.0, abs=1.5)
    organ = v.loc["Organ", "sentence"]
    assert "out of line on objective points handed out per game" in organ
    assert "than Piano, the orange reference" in organ
    assert "more measure" not in organ or "section 4" in organ
    if (iv.effects[(iv.effects["instrument"] == "Organ")]["verdict"] == OUT).sum() > 1:
        assert "; also out of line on " in organ


def _without(tables, names):
    seats, games = tables
    return (seats[~seats["inst_orange"].isin(names)].reset_index(drop=True),
            games[~games["inst_orange"].isin(names)].reset_index(drop=True))


@pytest.mark.parametrize("original", ["Piano", "Harp", "Organ", "Vibes"])
def test_a_twin_of_any_instrument_moves_no_other_verdict(original):
    """The copy discipline: a twin of any instrument (the reference included, the outlier Organ
    included) changes no other instrument's effect, interval or verdict, at 2, 3 and 4 players and for
    two judges; the twin reads exactly as its original (a twin of the reference: 0 and in line). The
    peers are widely spread, where a median of the peers would move with the copy."""
    shift = {"Piano": 0.0, "Harp": 8.0, "Organ": 47.0, "Vibes": -9.0}
    tables = many_runs(shift, twins={"Twin": original})
    with_twin = instrument_verdicts(*tables)
    alone = instrument_verdicts(*_without(tables, ["Twin"]))
    key = ["instrument", "players", "lineup", "measure", "who"]
    cols = ["effect", "lo", "hi", "verdict"]
    a = alone.effects.set_index(key)[cols].sort_index()
    b = with_twin.effects.set_index(key)[cols].sort_index()
    assert set(b.index) > set(a.index)
    pd.testing.assert_frame_equal(b.loc[a.index], a)
    twin = b.xs("Twin", level="instrument")
    v = with_twin.verdicts.set_index(["instrument", "players", "lineup"])["verdict"]
    twin_v = v.xs("Twin", level="instrument")
    assert len(twin_v) == 6  # every player count and judge
    if original == "Piano":
        assert (twin["effect"] == 0).all() and (twin_v == IN_LINE).all()
    else:
        pd.testing.assert_frame_equal(twin, b.xs(original, level="instrument"))
        assert (twin_v == v.xs(original, level="instrument")).all()
        assert original != "Harp" or (twin_v == OUT).all()  # 8 points: out of line, as Harp


def test_every_instrument_out_the_same_way_names_the_reference_as_the_odd_one():
    seats, games = orange_run(300, {"Piano": 30.0, "Harp": 0.0, "Organ": 1.0, "Vibes": -1.0})
    iv = instrument_verdicts(seats, games)
    assert (iv.verdicts["verdict"] == OUT).all()
    assert any("the reference Piano is the odd one" in n for n in iv.notes)


def test_two_instruments_are_one_comparison_against_the_reference():
    """A department with two instruments: one verdict, the other instrument against the reference."""
    seats, games = paired_run(400, {"Violin": 0, "Bass": 8})
    iv = instrument_verdicts(seats, games)
    assert len(iv.verdicts) == 1
    row = iv.verdicts.iloc[0]
    assert row["instrument"] == "Bass" and row["verdict"] == OUT and row["reference"] == "Violin"
    assert "than Violin, the black reference" in row["sentence"]
    assert headline_lines(iv)[0].startswith("Instruments out of line: 1 of 1")


TWIN_SCENARIO = """\
name = "orange-twin"
seed = 11
games = {games}
players = [4]
instrument_dirs = ["twin"]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Violin", "Harp", "Horns"], ["Violin", "Organ", "Horns"],
        ["Violin", "Vibes", "Horns"], ["Violin", "{twin}", "Horns"]]

[lineup]
mirror = "greedy"
"""


def twin_run(tmp_path, games, original="Piano"):
    from scenarios.results import load_results
    from scenarios.runner import run_scenario
    from simulator.shuffle_swing.board import DATA_DIR

    (tmp_path / "twin").mkdir()
    twin = f"{original} Twin"
    text = (Path(DATA_DIR) / "instruments" / f"{original.lower()}.toml").read_text()
    assert f'name = "{original}"' in text
    (tmp_path / "twin" / "twin.toml").write_text(text.replace(f'name = "{original}"', f'name = "{twin}"'))
    sc = tmp_path / "orange-twin.toml"
    sc.write_text(TWIN_SCENARIO.format(games=games, twin=twin))
    run_scenario(sc, tmp_path / "run", jobs=1)
    seats, games_t, _ = load_results(tmp_path / "run")
    return seats, games_t


@pytest.mark.parametrize("original", ["Piano", "Harp"])
def test_a_played_twin_moves_no_other_verdict_and_reads_as_its_original(tmp_path, original):
    """Real games: an exact copy of an instrument's data file, planted through the scenario's
    instrument_dirs, plays its original's games deal by deal (the deals do not depend on the
    instruments), so it reads exactly as its original (a copy of Piano, the reference: 0 on every
    measure, in line), and every other instrument's effects, intervals and verdicts are those of the
    run without it; against Piano Organ reads out of line on points."""
    twin = f"{original} Twin"
    seats, games = twin_run(tmp_path, 600, original)
    iv = instrument_verdicts(seats, games)
    alone = instrument_verdicts(*_without((seats, games), [twin]))
    key = ["instrument", "players", "lineup", "measure", "who"]
    cols = ["effect", "lo", "hi", "verdict"]
    a = alone.effects.set_index(key)[cols].sort_index()
    b = iv.effects.set_index(key)[cols].sort_index()
    pd.testing.assert_frame_equal(b.loc[a.index], a)
    v = iv.verdicts.set_index("instrument")
    mine = b.xs(twin, level="instrument")
    if original == "Piano":
        assert (mine["effect"] == 0).all() and (mine["lo"] == 0).all() and (mine["hi"] == 0).all()
        assert v.loc[twin, "verdict"] == IN_LINE
        assert "in line with Piano, the orange reference" in v.loc[twin, "sentence"]
    else:
        pd.testing.assert_frame_equal(mine, b.xs(original, level="instrument"))
        assert v.loc[twin, "verdict"] == v.loc[original, "verdict"]
    assert v.loc["Organ", "verdict"] == OUT and v.loc["Organ", "reference"] == "Piano"
