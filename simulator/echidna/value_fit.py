"""Fit the set-up value (``simulator/echidna/kernel/value.py``) and write its data file.

    .venv/bin/python -m simulator.echidna.value_fit [--games 20000] [--seed 20261202] [--rounds 0]
        [--play greedy|lookahead] [--out FILE]

Games of greedy play (the set-up search's own rollouts; ``--play lookahead``: the judges' play, some
15 times the cost) from varied set-ups: each seat of a batch takes its set-up by one of
``SETUP_VARIANTS`` (the greedy's, other traffic radii, other stump mixes, at random), so the set-ups
the search compares are among those seen. Every seat's features are taken at the start of rounds
0..``--rounds`` (0: right after the set-up, the set-up value proper) of every game still open, on
both shipped boards; the winner is the outcome (stalled games are left out). Per player count a conditional logit (the
seat that wins among the seats of one state; statsmodels' ``ConditionalLogit``, the well-kept
fit of exactly this model) gives one coefficient per feature and one per seat position after the
seat to move. The file records the seed, the games and this command.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

from simulator.echidna import layout as L
from simulator.echidna.board import EchidnaSetup
from simulator.echidna.strategies import SETUP_VALUE, EchidnaStrategyLibrary
from simulator.seeds import game_seed

BOARDS = ("forest", "snow")
BATCH = 200
# (weight, value) changes of the lookahead's set-up, one drawn per seat and batch.
SETUP_VARIANTS = (
    {},
    {},
    {"setup_radius": 5.0},
    {"setup_radius": 3.0},
    {"setup_radius": 12.0},
    {"stump_traffic": -1.0},
    {"stump_traffic": 1.0},
    {"stump_far": 0.0, "stump_traffic": -1.0},
    {"setup_random": 1.0},
)


def samples(nplayers, board, games, seed, rounds, play="greedy", first=0):
    """(features: states x seats x LEAF_F, winner seat per state) of ``games`` games of ``play``."""
    from simulator.echidna.kernel.engine import value_samples

    setup = EchidnaSetup(nplayers, board)
    base = EchidnaStrategyLibrary().get(play).row()
    pick = np.random.default_rng([seed, nplayers, BOARDS.index(board)])
    xs, ys = [], []
    for b0 in range(0, games, BATCH):
        k = min(BATCH, games - b0)
        strat = np.repeat(base[None, :], nplayers, axis=0)
        for q in range(nplayers):
            for name, v in SETUP_VARIANTS[pick.integers(len(SETUP_VARIANTS))].items():
                strat[q, L.P_WEIGHTS + L.WEIGHT_NAMES.index(name)] = v
        seeds = np.array([game_seed(seed, nplayers * 1_000_000 + BOARDS.index(board) * 500_000 + b0 + i)
                          for i in range(k)], dtype=np.uint64)
        feats = np.zeros((k, rounds + 1, nplayers, L.LEAF_F))
        seen = np.zeros((k, rounds + 1), dtype=np.int64)
        winners = value_samples(setup.geo, np.ascontiguousarray(strat), seeds, rounds, feats, seen)
        ok = (seen == 1) & (winners[:, None] >= 0) & (np.arange(rounds + 1)[None, :] >= first)
        xs.append(feats[ok])
        ys.append(np.repeat(winners[:, None], rounds + 1, axis=1)[ok])
    return np.concatenate(xs), np.concatenate(ys)


def design(x, n):
    """Rows of the conditional logit: per state, one row per seat (features, then seat dummies)."""
    m = len(x)
    seat = np.zeros((m, n, n - 1))
    for q in range(1, n):
        seat[:, q, q - 1] = 1.0
    return np.concatenate([x, seat], axis=2).reshape(m * n, L.LEAF_F + n - 1)


def fit(x, y, n):
    """Coefficients (features, seat positions) by statsmodels' conditional logit. A feature that never
    differs between the seats of a state (tokens without the catch-up variant) says nothing about
    who wins: its coefficient is 0 and it is left out of the fit."""
    from statsmodels.discrete.conditional_models import ConditionalLogit

    m = len(x)
    endog = (np.arange(n)[None, :] == y[:, None]).astype(float).reshape(-1)
    groups = np.repeat(np.arange(m), n)
    exog = design(x, n)
    varies = np.ptp(exog.reshape(m, n, -1), axis=1).max(axis=0) > 0
    res = ConditionalLogit(endog, exog[:, varies], groups=groups).fit(disp=False)
    p = np.zeros(exog.shape[1])
    p[varies] = np.asarray(res.params)
    return p[: L.LEAF_F], p[L.LEAF_F :]


def log_loss(x, y, n, coef, seat):
    """Mean log loss of the winners under the coefficients (and of the seats' even shares)."""
    s = x @ coef
    s[:, 1:] += seat[None, :]
    s -= s.max(axis=1, keepdims=True)
    p = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
    return float(-np.log(p[np.arange(len(y)), y]).mean()), float(np.log(n))


def write(path, fits, args):
    lines = [
        "# The set-up value of Echidna Shuffle (simulator/echidna/kernel/value.py): a conditional logit over",
        "# seat features, per player count. Written by the command below; refit, never edit by hand.",
        "",
        "[fit]",
        f'command = "python -m simulator.echidna.value_fit --games {args.games} --seed {args.seed} --rounds {args.rounds}'
        f' --first-round {args.first_round} --play {args.play}"',
        f"seed = {args.seed}",
        f"games = {args.games}  # per player count and board",
        f'play = "{args.play}"',
        f"boards = [{', '.join(repr(b).replace(chr(39), chr(34)) for b in BOARDS)}]",
        f"first_round = {args.first_round}",
        f"rounds = {args.rounds}  # features at the start of rounds first_round..rounds",
        "features = [" + ", ".join(f'"{f}"' for f in L.LEAF_FEATURES) + "]",
    ]
    for n, (coef, seat, states, loss, even) in sorted(fits.items()):
        lines += [
            "",
            f"[players.{n}]",
            f"# {states} states; log loss {loss:.4f} (even shares {even:.4f})",
            "coefficients = [" + ", ".join(f"{v:.6g}" for v in coef) + "]",
            "seat = [" + ", ".join(f"{v:.6g}" for v in seat) + "]",
        ]
    Path(path).write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20000, help="games per player count and board")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--play", default="greedy", choices=("greedy", "lookahead"))
    ap.add_argument("--first-round", type=int, default=0, help="the first round whose states are taken")
    ap.add_argument("--players", default="2,3,4,5,6", help="player counts (the data file needs every one of 2..6)")
    ap.add_argument("--out", default=str(SETUP_VALUE))
    args = ap.parse_args(argv)
    fits = {}
    for n in (int(v) for v in args.players.split(",")):
        parts = [samples(n, b, args.games, args.seed, args.rounds, args.play, args.first_round) for b in BOARDS]
        x = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        coef, seat = fit(x, y, n)
        loss, even = log_loss(x, y, n, coef, seat)
        fits[n] = (coef, seat, len(y), loss, even)
        print(f"{n} players: {len(y)} states, log loss {loss:.4f} (even {even:.4f})", file=sys.stderr)
    write(args.out, fits, args)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
