"""The meta-game on the full player count (reports.metagame: single deviants, alpha-rank, the pools)
on games whose answer is known, and the bad input of ``ssb strategies meta``."""

import numpy as np
import pytest
from click.testing import CliRunner

from reports import metagame


def _profiles(rate, names, n=4, deals=80, seed=0):
    """Synthetic profiles: ``rate(a, b, k)`` is a's win rate per seat with k seats against b; each
    deal's figure is a binomial draw around it (one game per arrangement)."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            rows = []
            for k in range(1, n):
                x = min(max(k * rate(names[i], names[j], k), 0.0), 1.0)
                rows.append(rng.binomial(6, x, size=deals) / 6)
            out[(i, j)] = np.array(rows)
    return out


STRENGTH = {"weak": 0.0, "middle": 1.0, "strong": 2.0}


def _by_strength(a, b, k, n=4):
    """Per-seat win rate of a (k seats) against b: a logit of the strength gap, the seats' rates summing to 1."""
    wa, wb = np.exp(STRENGTH[a]), np.exp(STRENGTH[b])
    return wa / (k * wa + (n - k) * wb)


def test_a_stronger_strategy_resists_every_deviant_and_alpha_rank_puts_it_first():
    names = ["weak", "middle", "strong"]
    per = _profiles(_by_strength, names, deals=200)
    s = metagame.full_summary(per, names, 4, reps=30, seed=1)
    assert s["resisting"] == ["strong"]
    assert s["alpharank"]["first"] == "strong" and s["alpharank"]["mass"]["strong"] > 0.9
    assert s["bootstrap"]["same_first"] > 0.9
    assert s["verdict"].startswith("alpha-rank puts strong first")
    # The row deviant's per-seat rate: weak alone against three strong wins far less than a quarter.
    assert s["deviant"][0][2] < 0.1 and s["deviant"][2][0] > 0.5


def test_the_answer_moves_with_the_pool_when_its_top_leaves():
    names = ["weak", "middle", "strong"]
    s = metagame.full_summary(_profiles(_by_strength, names, deals=200), names, 4, reps=10, seed=1)
    rows = {r["pool"]: r for r in s["pools"]}
    assert rows["the whole pool"]["alpharank_first"] == "strong"
    assert rows["without strong"]["alpharank_first"] == "middle"
    assert rows["without strong"]["resisting"] == ["middle"]


def test_alpharank_of_a_cycle_spreads_its_mass():
    names = ["rock", "paper", "scissors"]
    beats = {("paper", "rock"), ("scissors", "paper"), ("rock", "scissors")}

    def rate(a, b, k, n=4):
        edge = 0.1 if (a, b) in beats else -0.1
        return max(0.0, 1.0 / n + edge / k)

    p = np.zeros((3, 3, 3))
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            for k in range(1, 4):
                p[i, j, k - 1] = 0.25 if a == b else rate(a, b, k)
    # Make the table consistent: b's per-seat rate is what a leaves.
    for i in range(3):
        for j in range(3):
            if i != j:
                for k in range(1, 4):
                    p[j, i, 4 - k - 1] = (1 - k * p[i, j, k - 1]) / (4 - k)
    pi = metagame.alpharank(p)
    assert pi == pytest.approx([1 / 3] * 3, abs=0.02)
    assert metagame.resisting(p, names, 4) == ()


# =========================================================================== bad input


def _meta(*args):
    from ssb.cli import cli

    return CliRunner().invoke(cli, ["strategies", "meta", *args])


@pytest.mark.parametrize("args, words", [
    (["--pool", "greedy,greedy"], "given twice"),
    (["--pool", ""], "at least two"),
    (["--pool", "greedy"], "at least two"),
    (["--skill", "greedy,greedy"], "two different strategies"),
    (["--deals", "1e20"], "the limit is"),
    (["--deals", "2.5"], "whole number"),
    (["--bootstrap", "0"], "--bootstrap"),
    (["--json", "nodir/x.json"], "does not exist (nothing was played)"),
])
def test_meta_refuses_bad_input_with_a_reason_and_plays_nothing(args, words):
    r = _meta(*args)
    assert r.exit_code == 2, r.output
    assert "error:" in r.output and words in r.output
    assert "Traceback" not in r.output and "against" not in r.output  # nothing was played
