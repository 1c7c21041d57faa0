"""The search's learned leaf: fit it on self-play outcomes and write its data file.

    .venv/bin/python -m simulator.shuffle_swing.leaf_model fit --profile tuned --games 1500 --seed 3001 \\
        --out simulator/shuffle_swing/data/leaf/tuned.toml
    .venv/bin/python -m simulator.shuffle_swing.leaf_model check simulator/shuffle_swing/data/leaf/tuned.toml --games 400 --seed 3002

A search rollout stops after ``horizon`` turns and scores the state it reached by a leaf: each seat's
expected final score. The hand leaf (``kernel.search.leaf_scores``) adds up the points so far and the
awards in sight; the learned leaf (``kernel.leaf``) weighs the same terms, each also scaled by the
share of the game left, by coefficients fitted here: ``--games`` games per player count, every seat
on ``--profile`` (the rollouts' own policy: a search seat's rollouts play its greedy weights), the
features of every seat before every turn regressed on that seat's final score, both less the
table's mean (``relative``: the search reads margins, not levels), by least squares
(``numpy.linalg.lstsq``: an exact, dependency-free solver for a 16-column linear fit; nothing here
needs more). The games are seeded from ``--seed`` (``simulator.seeds.game_seed``), so one command
and one seed give the same file.

``check`` measures a leaf file on fresh games: the error of each seat's predicted final margin over
the best other seat, for the fitted leaf and for the hand leaf, with intervals over games (a game's
states are not independent; the game is the unit).
"""

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from simulator.errors import DataError
from simulator.seeds import game_seed
from simulator.shuffle_swing.kernel.leaf import (
    F_BRAG,
    F_CATS,
    F_OBJECTIVES,
    F_PENALTY,
    F_REACH,
    F_SCORE,
    F_TOKENS,
    leaf_samples,
)
from simulator.shuffle_swing.layout import (
    LEAF_COUNTS,
    LEAF_FEATURES,
    N_LEAF_FEAT,
    N_OWNERS,
    P_LEAF_POTENTIAL,
    P_LEAF_RESOURCES,
    P_WEIGHTS,
    WEIGHT_NAMES,
)
from simulator.shuffle_swing.leaf_fit import fit, relative  # the one least-squares fit and its seat margins
from simulator.shuffle_swing.playout import GameSetup, strategy_matrix
from simulator.shuffle_swing.strategies import StrategyLibrary, load_leaf_model

MAX_TURNS = 2000  # turns recorded per game (a game of the round cap plays fewer)


def samples(row, nplayers, seeds, instruments=None):
    """Every seat's features before every turn of one game per seed, all seats on ``row``:
    ``(X, y, game)``: X rows of ``N_LEAF_FEAT`` features, y the seat's final score, game the index
    of the seed (the unit for intervals)."""
    setup = GameSetup(nplayers=nplayers) if instruments is None else GameSetup(nplayers=nplayers, instruments=instruments)
    strat = strategy_matrix(setup, np.array([row] * nplayers))
    feats = np.zeros((MAX_TURNS, N_OWNERS * N_LEAF_FEAT))
    finals = np.zeros(N_OWNERS, dtype=np.int64)
    xs, ys, gs = [], [], []
    for g, seed in enumerate(seeds):
        t = leaf_samples(setup.geo, nplayers, strat, np.uint64(seed), feats, finals)
        f = feats[:t].reshape(t, N_OWNERS, N_LEAF_FEAT)[:, :nplayers, :]
        xs.append(f.reshape(-1, N_LEAF_FEAT))
        ys.append(np.tile(finals[:nplayers].astype(np.float64), t))
        gs.append(np.full(t * nplayers, g))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(gs)


def hand_coefficients(row):
    """The hand leaf (``kernel.search.leaf_scores`` of a search row) as coefficients of the learned
    one: points, brag award, ``leaf_potential`` of the reach, penalty and objectives at 1, a ready
    cat and a token at the row's cat and token weights times ``leaf_resources``, the rest 0."""
    c = np.zeros(N_LEAF_FEAT)
    c[F_SCORE] = c[F_BRAG] = c[F_PENALTY] = c[F_OBJECTIVES] = 1.0
    c[F_REACH] = row[P_LEAF_POTENTIAL]
    c[F_CATS] = row[P_LEAF_RESOURCES] * row[P_WEIGHTS + WEIGHT_NAMES.index("cat")]
    c[F_TOKENS] = row[P_LEAF_RESOURCES] * row[P_WEIGHTS + WEIGHT_NAMES.index("token")]
    return c


def margins(x, y, game, nplayers, coef):
    """Per state and seat: (predicted final margin over the best other seat, true one, game)."""
    pred = (x @ coef).reshape(-1, nplayers)
    true = y.reshape(-1, nplayers)
    pm = np.empty_like(pred)
    tm = np.empty_like(true)
    for o in range(nplayers):
        others = [k for k in range(nplayers) if k != o]
        pm[:, o] = pred[:, o] - pred[:, others].max(axis=1)
        tm[:, o] = true[:, o] - true[:, others].max(axis=1)
    return pm.ravel(), tm.ravel(), np.repeat(game.reshape(-1, nplayers)[:, 0], nplayers)


def game_mean_interval(values, game):
    """Mean of ``values`` over games (each game's own mean first) with a 95% Student-t interval
    over games."""
    from stats import tests as ST

    ids, inv = np.unique(game, return_inverse=True)
    per = np.bincount(inv, weights=values) / np.bincount(inv)
    m, lo, hi, _ = ST.t_interval(per, 0.95)
    return float(m), float(lo), float(hi)


def write_leaf(path, blocks, provenance, description):
    """The leaf file: features, one coefficient list per player count, provenance."""
    lines = [
        "# A learned leaf for the search players (simulator/shuffle_swing/kernel/leaf.py): each seat's",
        "# expected final score as a linear sum of the features below. Written by",
        f"# `{provenance['command']}`; re-fit, never edit by hand.",
        "[leaf]",
        f"description = {_q(description)}",
        "features = [" + ", ".join(_q(f) for f in LEAF_FEATURES) + "]",
        "",
        "[coefficients]",
    ]
    for n, c in zip(LEAF_COUNTS, blocks):
        lines.append(f"players_{n} = [" + ", ".join(f"{v:.6g}" for v in c) + "]")
    lines += ["", "[provenance]"]
    for k, v in provenance.items():
        lines.append(f"{k} = {_q(v) if isinstance(v, str) else v}")
    _write_atomic(Path(path), "\n".join(lines) + "\n")


def _write_atomic(path, text):
    """Write under a temporary name in the same folder, then rename: a full disk leaves the old
    file and no temporary behind, and is a :class:`DataError` naming the file."""
    special = path.exists() and not path.is_file()  # a device or a pipe: written in place, never replaced
    tmp = path if special else path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        if not special:
            os.replace(tmp, path)
    except OSError as exc:
        if not special:
            tmp.unlink(missing_ok=True)
        raise DataError(path, "", f"cannot write: {exc.strerror or exc}") from None


MAX_GAMES = 1_000_000  # games per player count of ``--games`` (1,500 fit the shipped leaf)


def check_games(games):
    if not 1 <= games <= MAX_GAMES:
        raise DataError("--games", "", f"expected a whole number from 1 to {MAX_GAMES:,}, got {games}")


def check_out(out):
    """``--out`` before any game is played (a fit is minutes): its folder exists and is writable,
    and it is not itself a folder."""
    path = Path(out)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise DataError("--out", "", f"{out} is a folder: name the leaf file to write, e.g. {path / 'tuned.toml'}")
    if not folder.is_dir():
        raise DataError("--out", "", f"the folder {folder} does not exist: create it first (nothing was fitted)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DataError("--out", "", f"the folder {folder} is not writable (nothing was fitted)")


def _q(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def cmd_fit(args):
    check_games(args.games)
    check_out(args.out)
    lib = StrategyLibrary()
    row = lib.get(args.profile).row()
    blocks, r2s = [], []
    for n in LEAF_COUNTS:
        seeds = [game_seed(args.seed + n, g) for g in range(args.games)]
        x, y, _ = samples(row, n, seeds)
        coef, r2 = fit(*relative(x, y, n))
        blocks.append(coef)
        r2s.append(r2)
        print(f"{n}p: {len(seeds)} games, {len(y)} seat-states, R^2 {r2:.3f} (of the seat's score less the table's mean)")
        print("    " + ", ".join(f"{f} {c:+.3f}" for f, c in zip(LEAF_FEATURES, coef)))
    command = (f"python -m simulator.shuffle_swing.leaf_model fit --profile {args.profile} --games {args.games} "
               f"--seed {args.seed} --out {args.out}")
    prov = {"command": command, "profile": args.profile, "games": args.games, "seed": args.seed,
            "fit": "numpy.linalg.lstsq, seat final score on the seat's features before every turn, both less the table's mean",
            **{f"r2_players_{n}": round(r, 4) for n, r in zip(LEAF_COUNTS, r2s)}}
    desc = f"Fitted on {args.games} {args.profile} mirrors per player count (seed {args.seed})."
    write_leaf(args.out, blocks, prov, desc)
    print(f"wrote {args.out}")
    return 0


def cmd_check(args):
    check_games(args.games)
    lib = StrategyLibrary()
    row = lib.get(args.profile).row()
    blocks = load_leaf_model(args.file)
    hand = hand_coefficients(lib.get(args.hand).row())
    print(f"leaf {args.file} against the hand leaf of {args.hand}: mean absolute error of each seat's "
          f"final margin over the best other, {args.games} fresh {args.profile} games per count (seed {args.seed}), 95% over games")
    for n, coef in zip(LEAF_COUNTS, blocks):
        seeds = [game_seed(args.seed + n, g) for g in range(args.games)]
        x, y, game = samples(row, n, seeds)
        for label, c in (("learned", np.asarray(coef)), ("hand", hand)):
            pm, tm, gm = margins(x, y, game, n, c)
            m, lo, hi = game_mean_interval(np.abs(pm - tm), gm)
            print(f"{n}p  {label:8s} {m:6.2f} [{lo:.2f}, {hi:.2f}] points")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fit a leaf on self-play games and write its file")
    f.add_argument("--profile", default="tuned")
    f.add_argument("--games", type=int, default=1500)
    f.add_argument("--seed", type=int, default=3001)
    f.add_argument("--out", required=True)
    c = sub.add_parser("check", help="a leaf file's margin error against the hand leaf on fresh games")
    c.add_argument("file")
    c.add_argument("--profile", default="tuned")
    c.add_argument("--hand", default="search_lean", help="the search profile whose hand leaf is compared")
    c.add_argument("--games", type=int, default=400)
    c.add_argument("--seed", type=int, default=3002)
    args = ap.parse_args(argv)
    try:
        return cmd_fit(args) if args.cmd == "fit" else cmd_check(args)
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
