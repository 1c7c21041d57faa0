"""Screen seat levers before a race: each seat's win rate in a mirror of one rung on the starter set,
with ``[seats]`` levers of the board file set, on the same deals for every lever set.

    .venv/bin/python benchmarks/bench_seat_screen.py search_leaf --players 4 --deals 3000 --seed 9101 \\
        --seats '{"tie_break": {"4": "shared"}, "start_tokens": {"4": [{"ladder": 1}, {"ladder": 1}, {}, {}]}}'

A rung is ``name[@param=value...]`` (``search_leaf@horizon_4=6``); ``--seats`` is JSON of ``[seats]``
keys (each a table by player count, as board.toml writes it), repeatable: one line per lever set,
``rung, players, deals, lever set, win % by seat (seat 1 first), the share of games with a tie for the
highest total``. Fixed counts, no verdict: a screen says which levers are worth racing
(``ssb tune``, whose zone test decides); a 3,000-deal rate has a standard error of about 0.8 points.
"""

import argparse
import copy
import json
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.seeds import game_seed  # noqa: E402
from simulator.shuffle_swing import layout as L  # noqa: E402
from simulator.shuffle_swing.board import BOARD_PATH, load_board  # noqa: E402
from simulator.shuffle_swing.library import STARTER  # noqa: E402
from simulator.shuffle_swing.playout import GameSetup, play_many  # noqa: E402
from simulator.validate import read_toml  # noqa: E402
from strategies import ladder as LD  # noqa: E402


def seat_rates(rung, players, deals, seed, seats):
    """``(win % by seat, % of games with a tie for the highest total)`` of ``rung``'s mirror."""
    doc = copy.deepcopy(read_toml(BOARD_PATH))
    for key, value in seats.items():
        doc.setdefault("seats", {})[key] = value
    board = load_board(BOARD_PATH, doc)
    _, ladder, slib, _ = LD.game_ladder(LD.LadderConfig())
    row = ladder.parse_rung(rung, slib).row()
    setup = GameSetup(nplayers=players, instruments=tuple(STARTER), board=board)
    seeds = np.array([game_seed(seed, g) for g in range(deals)], dtype=np.uint64)
    st, bad = play_many(setup, np.array([row] * players), seeds)
    if len(bad):
        raise SystemExit(f"error: {len(bad)} games broke an invariant")
    wins = np.bincount(st[:, L.S_WINNER], minlength=players)[:players]
    return 100.0 * wins / deals, 100.0 * float((st[:, L.S_TIED] > 1).mean())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rung")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=9101)
    ap.add_argument("--seats", action="append", default=None, help="JSON of [seats] keys (repeatable)")
    a = ap.parse_args(argv)
    for text in a.seats or ["{}"]:
        rates, tied = seat_rates(a.rung, a.players, a.deals, a.seed, json.loads(text))
        print(f"{a.rung} {a.players}p {a.deals} deals seed {a.seed} {text}: "
              + " / ".join(f"{r:.1f}" for r in rates) + f"  ties {tied:.1f}%", flush=True)


if __name__ == "__main__":
    main()
