"""The zone test's own intervals (stats/zone.py, "The verdict's own interval"): their
time-uniform coverage on synthetic truth, their agreement with the word at every look, both seats
judged at two players (a stalled game), and every seat off named."""

import math

import numpy as np
import pandas as pd
import pytest

from stats import tests as stats
from stats import sequences as SS
from stats import zone as SZ

M, D = 0.03, 0.01


@pytest.mark.parametrize("p, level", [(0.25, 0.05), (1 / 3, 0.0125), (0.5, 0.05)])
def test_each_end_holds_at_every_look_at_once(p, level):
    """400 Bernoulli sequences at a known rate, looked at every 50 deals up to 5,000: the lower end
    ever above the truth, or the upper end ever below it, at most ``level`` of the time each (slack:
    three binomial standard errors of 400)."""
    rng = np.random.default_rng(int(1000 * p) + int(1 / level))
    reps, every, looks = 400, 50, 100
    wins = rng.binomial(every, p, size=(reps, looks)).cumsum(axis=1)
    n = np.arange(1, looks + 1) * every
    lo, hi = SZ.shift_interval(wins, n[None, :], level, D)
    slack = 3 * math.sqrt(level * (1 - level) / reps)
    assert (lo > p).any(axis=1).mean() <= level + slack
    assert (hi < p).any(axis=1).mean() <= level + slack
    # Not valid by being wide: at 5,000 deals it spans the zone (2 d) and a little more.
    assert np.median(hi[:, -1] - lo[:, -1]) < 2 * D + 0.03


def test_the_interval_is_the_test_read_at_its_edges():
    """``lo`` beyond ``1/N + m - d`` exactly when the upper side's log ratio reaches ``log(1/a)``; ``hi``
    within ``1/N + m + d`` exactly when it falls to ``-log(1/a)``."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(100, 30000))
        w = int(rng.binomial(n, rng.uniform(0.25, 0.42)))
        a = float(rng.choice([0.05, 0.05 / 6]))
        (lo,), (hi,) = SZ.shift_interval([w], n, a, D)
        up, _ = SZ.log_ratios([[w, 0, 0]], n, 3, M, D)
        llr = float(up[0, 0])
        if abs(llr - math.log(1 / a)) > 1e-9:
            assert (lo >= 1 / 3 + M - D) == (llr >= math.log(1 / a))
        if abs(llr + math.log(1 / a)) > 1e-9:
            assert (hi <= 1 / 3 + M + D) == (llr <= -math.log(1 / a))
        assert lo <= w / n <= hi


def test_no_interval_contradicts_its_word_on_random_cells():
    """Fair: every seat within the fair band; unfair: every named seat beyond the zone on its side;
    undecided: no seat beyond the zone, some seat not within the band."""
    rng = np.random.default_rng(11)
    seen = set()
    for _ in range(400):
        players = int(rng.integers(2, 5))
        c = 1 / players
        n = int(rng.integers(200, 40000))
        dev = rng.uniform(-0.08, 0.08, players)
        rates = np.clip(c + dev - dev.mean(), 0.01, None)
        rates *= rng.uniform(0.9, 1.0) / rates.sum()  # up to 10% of the games stall
        wins = rng.multinomial(n, [*rates, 1 - rates.sum()])[:players]
        v = SZ.verdict_intervals(wins, n, players, M, D)
        seen.add(v["code"])
        inside = (v["lo"] >= c - M - D - 1e-12) & (v["hi"] <= c + M + D + 1e-12)
        beyond_up, beyond_lo = v["lo"] >= c + M - D - 1e-12, v["hi"] <= c - M + D + 1e-12
        if v["code"] == SZ.FAIR:
            assert inside.all()
        elif v["code"] == SZ.UNFAIR:
            assert v["named"]
            for seat, way, _a in v["named"]:
                assert (beyond_up if way > 0 else beyond_lo)[seat]
        else:
            assert not v["named"] and not inside.all()
            assert not (v["lo"] > c + M - D + 1e-9).any() and not (v["hi"] < c - M + D - 1e-9).any()
    assert seen == {SZ.FAIR, SZ.UNFAIR, SZ.OPEN}


def test_a_stalled_two_player_game_is_judged_on_both_seats():
    """Seat 1 at 50%, seat 2 at 42%, 8% of the games stall: seat 2 is 8 points under its share. Read
    as "seat 2 = 1 - seat 1" it looks fair; judged on both seats it is unfair, seat 2 named below,
    on 200 sequences of 200-deal rounds."""
    rng = np.random.default_rng(8)
    reps, every, looks = 200, 200, 150
    cum = rng.multinomial(every, [0.50, 0.42, 0.08], size=(reps, looks)).cumsum(axis=1)[..., :2]
    n = np.arange(1, looks + 1) * every
    code = SZ.verdicts(cum, n[None, :], 2, M, D, 0.95)
    decided = code != SZ.OPEN
    first = decided.argmax(axis=1)
    assert decided.any(axis=1).all()
    final = code[np.arange(reps), first]
    assert (final == SZ.UNFAIR).all()
    for k in range(0, reps, 20):
        w, games = cum[k, first[k]], int(n[first[k]])
        rec = SS.cell_record(w, games, 2, M, test="zone", indifference=D)
        assert rec["verdict"] == stats.UNFAIR and [1, -1] in rec["named"]
        assert rec["seats"][1]["hi"] <= 0.5 - M + D + 1e-12  # seat 2 shown beyond the zone below


def test_two_seats_off_are_both_said():
    """4 players, the first seat 6 points under and the last 6 over: at the look that stops the run
    both are said (one shown, the other shown too or leaning), on every one of 30 seeds."""
    rates = np.array([0.19, 0.25, 0.25, 0.31])
    for seed in range(30):
        rng = np.random.default_rng(seed)
        cum = rng.multinomial(200, rates, size=300).cumsum(axis=0)
        n = np.arange(1, 301) * 200
        code = SZ.verdicts(cum, n, 4, M, D, 0.95)
        k = int(np.argmax(code != SZ.OPEN))
        assert code[k] == SZ.UNFAIR
        rec = SS.cell_record(cum[k], int(n[k]), 4, M, test="zone", indifference=D)
        said = {tuple(x) for x in rec["named"] + rec["leaning"]}
        assert {(0, -1), (3, 1)} <= said, seed
        assert {tuple(x) for x in rec["named"]} <= {(0, -1), (3, 1)}


RUN = """\
name = "words"
seed = 5
games = 3000
players = [2, 3, 4]
wheel = "shuffled"

[instruments]
sets = [["Violin", "Piano", "Horns"]]

[lineup]
mirror = ["greedy", "tuned"]

[sequential]
round = 250
"""


def _spans(text):
    """Every ``[lo, hi]`` of a text, as fractions."""
    import re

    return [(float(a) / 100, float(b) / 100) for a, b in re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", text)]


def test_a_small_sequential_run_shows_no_interval_contradicting_its_word(tmp_path):
    """A starter-like sequential run (greedy and tuned mirrors at 2, 3 and 4 players, capped at 3,000
    deals): read through the report's own objects (the seat table, the glance matrix's cells, the
    answer sentences' readings, the notes), no fair cell shows a seat interval beyond the fair band,
    every unfair cell's named seats are shown beyond the zone on their side, and no undecided cell
    shows a seat beyond the zone."""
    from reports.answers import readings, setting_sentence
    from reports.first_screen import edge_text, first_screen
    from reports.io import from_frames
    from reports.seats import seat_advantage
    from scenarios.results import load_results
    from scenarios.runner import run_scenario

    p = tmp_path / "words.toml"
    p.write_text(RUN)
    out = tmp_path / "out"
    run_scenario(p, out, jobs=1, progress=False)
    seats, games, manifest = load_results(out)
    adv = seat_advantage(from_frames(seats, games, manifest).games, sequential=manifest["sequential"])
    band, zone = M + D, M - D
    words = set()
    for r in readings(adv):
        c = r.fair
        words.add(r.verdict)
        los, his = np.array(r.seat_los), np.array(r.seat_his)
        note = adv.cells[(adv.cells["players"] == r.players) & (adv.cells["level"] == r.level)]["note"].iloc[0]
        shown = edge_text(r)
        assert f"[{100 * (r.lo - c):+.1f}, {100 * (r.hi - c):+.1f}]" in shown
        if r.verdict == stats.FAIR:
            assert (los >= c - band - 1e-12).all() and (his <= c + band + 1e-12).all(), r
            for lo, hi in _spans(note):  # the note's figures, rounded to 0.1 point
                assert lo >= c - band - 0.0006 and hi <= c + band + 0.0006, note
        elif r.verdict == stats.UNFAIR:
            assert r.named and r.seat in [k for k, _ in r.named]
            for k, way in r.named:
                assert (los[k] >= c + zone - 1e-12) if way > 0 else (his[k] <= c - zone + 1e-12), r
            assert (r.lo >= c + zone - 1e-12) or (r.hi <= c - zone + 1e-12)
        else:
            assert not (los > c + zone + 1e-9).any() and not (his < c - zone - 1e-9).any(), r
        assert setting_sentence(r.players, [r])  # the sentence is built from the same reading
    assert stats.FAIR in words and len(words) >= 2
    assert "interval of its verdict" in first_screen(adv).text
    # The seat table as the reader sees it: every seat row of a fair cell within the band (to the
    # 0.1 point printed), and the section's note says which interval is which.
    from reports.seat_section import seat_section

    sec, adv2 = seat_section(from_frames(seats, games, manifest).games, M, 0.95, 0,
                             sequential=manifest["sequential"])
    table = next(t for t in sec.tables if t.name == "seat_win_rates")
    col = next(c for c in table.display.columns if c.startswith("seat's win % among equals"))
    verdict = {(int(c.players), c.level): c.verdict for c in adv2.cells.itertuples()}
    fair = pd.Series([verdict[(int(p), lv)] == stats.FAIR for p, lv in zip(table.frame["players"], table.frame["level"],
                                                                             strict=True)], index=table.frame.index)
    assert fair.any()
    for text, share in zip(table.display.loc[fair.to_numpy(), col], table.frame.loc[fair, "fair_share"], strict=True):
        ((lo, hi),) = _spans(text)
        assert lo >= share - band - 0.0006 and hi <= share + band + 0.0006, text
    assert any("Two intervals, two procedures" in n for n in sec.notes)
    assert "its verdict's own" in next(c for c in sec.charts if c.name == "seat_win_rates").title
    # "With tied wins shared" in a sequential run: a confidence sequence, wider than the fixed-count
    # interval of the same shares, around the same rate.
    from reports.sections.shuffle_swing.why import tiebreak_shares

    fixed = tiebreak_shares(seats, games)
    seq = tiebreak_shares(seats, games, sequential=manifest["sequential"])
    assert len(seq) == len(fixed) > 0 and (seq["shared_rate"] == fixed["shared_rate"]).all()
    assert (seq["shared_lo"] < fixed["shared_lo"]).all() and (seq["shared_hi"] > fixed["shared_hi"]).all()
    assert ((seq["shared_lo"] <= seq["shared_rate"]) & (seq["shared_rate"] <= seq["shared_hi"])).all()


def test_cannot_tell_yet_says_the_number_of_games_that_would_tell():
    """Two judges' cells whose difference sits 0.5 point inside the 3-point tolerance: the call cannot
    tell at 3,000 games a cell, and says the count that would (hundreds of thousands, far past any
    fixed grid); at that count the call tells, at nine tenths of it not yet."""
    from reports.answers import CANNOT_TELL, CellReading, convergence_test, difference_intervals

    def reading(wins, games):
        return CellReading(players=3, setting="s", judge="j", level="l", verdict=stats.UNDECIDED, decided=False,
                           games=games, seat=0, rate=math.nan, lo=math.nan, hi=math.nan, deviation=math.nan,
                           on_margin=False, more_games=math.nan, seat_wins=tuple(wins))

    top, below = reading((1075, 963, 962), 3000), reading((1000, 1000, 1000), 3000)
    word, *_, more = convergence_test(top, below)
    assert word == CANNOT_TELL and more is not None and 100_000 < more < 10**8

    def tells(n):
        rows = difference_intervals(top, below, 0.95, n)
        return any(r[2] > M or r[3] < -M for r in rows) or all(-M <= r[2] and r[3] <= M for r in rows)

    assert tells(more) and not tells(int(0.9 * more))


def test_the_glance_matrix_cell_names_every_seat_shown_off():
    from reports.answers import CellReading
    from reports.first_screen import edge_text

    def cell(players, named, seat):
        c = 1 / players
        return CellReading(players=players, setting="s", judge="j", level="l", verdict=stats.UNFAIR, decided=True,
                           games=4000, seat=seat, rate=c + 0.06, lo=c + 0.03, hi=c + 0.09, deviation=0.06,
                           on_margin=False, more_games=math.nan, named=named)

    assert edge_text(cell(4, ((3, 1), (0, -1)), 3)) == "last +6.0 pp [+3.0, +9.0], also 1st"
    assert edge_text(cell(4, ((3, 1),), 3)) == "last +6.0 pp [+3.0, +9.0]"
    assert edge_text(cell(2, ((0, 1), (1, -1)), 0)) == "1st +6.0 pp [+3.0, +9.0]"  # the same fact mirrored
