"""The zone test's own intervals (scenarios/sequential_zone.py, "The verdict's own interval"): their
time-uniform coverage on synthetic truth, their agreement with the word at every look, both seats
judged at two players (a stalled game), and every seat off named."""

import math

import numpy as np
import pytest

from reports import stats
from scenarios import sequential_stats as SS
from scenarios import sequential_zone as SZ

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
        assert rec["verdict"] == stats.IMBALANCED and [1, -1] in rec["named"]
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
