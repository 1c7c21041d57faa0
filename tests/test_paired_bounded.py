"""The finite-sample confidence sequence of the paired-difference verdicts (stats/paired.py,
``bounded_sequence``): it holds at every deal on differences within a known range whatever their
shape (rare large jumps, strong skew, three values), where the asymptotic one misses; both errors of
the zone verdict stay within alpha at the zone's edges with it; the verdict of one look agrees with
the replay. The full table (normal, skewed, rare-jump, three-valued; K = 1, 8; looks every 100 and
125 deals): benchmarks/bench_paired_calibration.py."""

import numpy as np
import pytest

from stats import paired

ALPHA = 0.05


def rare_jump(rng, mu, reps, deals, k=1, p=0.005):
    """Mean ``mu`` + (1 on one deal in 1/p, else 0) - p: within [-1, 1], skewness about 14."""
    return mu + (rng.random((reps, deals, k)) < p) - p


def skewed(rng, mu, reps, deals, k=1):
    """Mean ``mu`` + 0.95 (B - E B), B ~ Beta(0.02, 0.3): skewness about 3.6."""
    return mu + 0.95 * (rng.beta(0.02, 0.3, (reps, deals, k)) - 0.02 / 0.32)


def three_valued(rng, mu, reps, deals, k=1, spread=0.06):
    u = rng.random((reps, deals, k))
    return np.where(u < (spread + mu) / 2, 1.0, np.where(u < spread, -1.0, 0.0))


def test_the_bounded_sequence_holds_at_every_deal_where_the_asymptotic_one_misses():
    """300 sequences of 3,000 rare-jump differences (true mean 0): the bounded sequence misses the
    truth at some deal in at most alpha of them; the asymptotic one, judged every 100 deals, misses
    in far more (its spread is read as 0 before the first jump)."""
    rng = np.random.default_rng(11)
    x = rare_jump(rng, 0.0, 300, 3000)
    lo, hi = paired.bounded_sequence(x, 1.0, ALPHA)
    assert ((lo > 0) | (hi < 0)).any(axis=(1, 2)).mean() <= ALPHA
    at = np.arange(100, 3001, 100)
    n = at[None, :, None].astype(float)
    mean = np.cumsum(x, axis=1)[:, at - 1] / n
    sd = np.sqrt(np.maximum(np.cumsum(x * x, axis=1)[:, at - 1] / n - mean**2, 0) * n / (n - 1))
    w = paired.half_width(sd, n, ALPHA)
    assert ((mean - w > 0) | (mean + w < 0)).any(axis=(1, 2)).mean() > 4 * ALPHA
    # within the range, narrowing, around the running mean
    assert (lo >= -1).all() and (hi <= 1).all()
    width = (hi - lo).mean(axis=0).ravel()
    assert np.all(np.diff(width) <= 1e-12) and width[-1] < 0.1 < width[99]


@pytest.mark.parametrize("kind", ["rare jump", "skewed", "three-valued"])
def test_both_errors_within_alpha_at_the_zone_edges(kind):
    """Margin 0.05, zone 0.01, looks every 100 deals: truth at m - z called out of line, and at
    m + z called in line, each in at most alpha of 200 sequences (K = 1, either sign); every
    sequence ends within the cap."""
    rng = np.random.default_rng({"rare jump": 1, "skewed": 2, "three-valued": 3}[kind])
    draw = {"rare jump": rare_jump, "skewed": skewed, "three-valued": three_valued}[kind]
    m, zone = 0.05, 0.2
    for sign in (+1, -1) if kind == "three-valued" else (+1,):
        inside, _ = paired.replay(draw(rng, sign * 0.04, 200, 6000), [m], 100, zone,
                                  interval=paired.BOUNDED, radius=1.0)
        outside, _ = paired.replay(draw(rng, sign * 0.06, 200, 6000), [m], 100, zone,
                                   interval=paired.BOUNDED, radius=1.0)
        assert (inside == 1).mean() <= ALPHA, "false out of line at m - z"
        assert (outside == -1).mean() <= ALPHA, "false in line at m + z"
        assert (inside != 0).mean() >= 0.95 and (outside != 0).mean() >= 0.95


def test_one_look_agrees_with_the_replay_and_waits_for_the_first_look():
    rng = np.random.default_rng(4)
    x = three_valued(rng, 0.0, 1, 3000, k=3)
    code, used = paired.replay(x, [0.05] * 3, 3000, 0.2, interval=paired.BOUNDED, radius=1.0)
    res = paired.bounded_verdict(x[0], 1.0, [0.05] * 3)
    assert {1: paired.OUT, -1: paired.IN_LINE, 0: paired.OPEN}[int(code[0])] == res["verdict"]
    lo, hi = paired.bounded_sequence(x[0], 1.0, ALPHA / 3)
    assert np.allclose(res["lo"], lo[-1]) and np.allclose(res["hi"], hi[-1])
    assert res["alpha_each"] == pytest.approx(ALPHA / 3)
    early = paired.bounded_verdict(x[0, : paired.MIN_LOOK - 1], 1.0, [0.05] * 3)
    assert early["verdict"] == paired.OPEN and np.isinf(early["lo"]).all()
