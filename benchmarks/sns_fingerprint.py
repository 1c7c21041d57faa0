"""Decision fingerprint of the Shuffle and Swing kernel: a SHA-256 over what a grid of games did.

    .venv/bin/python benchmarks/sns_fingerprint.py [--games 20] [--slow-games 3] [--log-games 2] [--save F] [--compare F]

A change made for speed alone must leave every decision, and the random number stream, as it was.
This plays a grid of games: 2, 3 and 4 players; four instrument sets (the starter set and three of
expansion instruments, one per department); and eleven lineups: mirrors of greedy, random, tuned,
decisive, majority and an orange specialist, a mixed table, a table with wheels shuffled and a
short round cap, and one seat of lookahead, of search and of the deep search against greedy
opponents (the slow ones with ``--slow-games`` games: a search game costs about 90 greedy ones).
Per configuration it hashes the final states of its games played the fast way (``play_batch``, no
log) and the event logs and final states of the first ``--log-games`` of them played with a log
and the invariants checked (``play_game``). The final state holds the generator's state, so a single
extra or missing draw shows.

The reference digests of the unchanged kernel are ``REFERENCE`` below;
``tests/test_sns_fingerprint.py`` runs the grid with 4 games per configuration (1 of the slow
lineups, 1 logged) in a few seconds. ``--save`` writes every configuration's digest to a JSON file;
``--compare`` names the configurations whose digest differs from such a file. ``--record`` plays the
fast games through the lead record's entry point (``simulator.shuffle_swing.lead_record``): the same digest.
"""

import hashlib
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.shuffle_swing.playout import GameSetup, play_many, play_one  # noqa: E402
from simulator.seeds import game_seed  # noqa: E402
from simulator.shuffle_swing.strategies import StrategyLibrary  # noqa: E402
from simulator.shuffle_swing.lead_record import play_many_lead  # noqa: E402

# (games, slow games, logged games per configuration) -> digest of the kernel before the speed
# experiment (commit 2712961), recorded again when the search profiles changed their decisions
# (search: 6 rollouts of 12 turns on tuned's weights with a resource leaf; search_deep replacing
# search_strong): only the search and search-deep configurations differ from the digests before
# (``--compare``), every other profile's 108 configurations are the same.
REFERENCE = {
    (4, 1, 1): "c81d81a56f55b0e7a9dcf78e3173589f0c3943106c531021bafba23a2389b6f2",
    (20, 3, 2): "4601a1c09b39ca6f6bd9d5dbd1792b45c74c1dceec95ac9c08ab61340d23b5e0",
}

INSTRUMENT_SETS = (
    ("Violin", "Piano", "Horns"),  # the starter set
    ("Guitar", "Organ", "Drums"),
    ("Banjo", "Harp", "Trombone"),
    ("Bass", "Vibes", "Clarinet"),
)
# name: (strategies by seat (cycled to the player count), slow, shuffle_wheels, max_rounds)
LINEUPS = {
    "greedy": (["greedy"], False, None, None),
    "random": (["random"], False, None, None),
    "tuned": (["tuned"], False, None, None),
    "decisive": (["decisive"], False, None, None),
    "majority": (["majority"], False, None, None),
    "specialist": (["specialist:orange"], False, None, None),
    "mixed": (["greedy", "random", "tuned", "specialist:gray"], False, None, None),
    "wheels-cap": (["greedy", "bragger", "builder", "inspector"], False, True, 6),
    "lookahead": (["lookahead", "greedy", "greedy", "greedy"], True, None, None),
    "search": (["greedy", "search", "greedy", "greedy"], True, None, None),
    "search-deep": (["greedy", "greedy", "search_deep", "greedy"], True, None, None),
}


def configurations():
    """(index, label, setup, strategy matrix, slow) of every configuration, in a fixed order."""
    lib = StrategyLibrary()
    k = 0
    for insts in INSTRUMENT_SETS:
        for n in (2, 3, 4):
            for name, (seats, slow, wheels, cap) in LINEUPS.items():
                setup = GameSetup(nplayers=n, instruments=insts, shuffle_wheels=wheels, max_rounds=cap)
                names = [seats[i % len(seats)] for i in range(n)]
                yield k, f"{'/'.join(insts)}/{n}p/{name}", setup, lib.matrix(names), slow
                k += 1


def fingerprint(games=4, slow_games=1, log_games=1, seed=20261201, record=False):
    """(total digest, {configuration: digest}, games played)."""
    total = hashlib.sha256()
    parts = {}
    played = 0
    for k, label, setup, strat, slow in configurations():
        h = hashlib.sha256(label.encode())
        g = slow_games if slow else games
        seeds = np.array([game_seed(seed + k, i) for i in range(g)], dtype=np.uint64)
        if record:  # the lead record's entry point: the same games, call for call
            states, bad, _, _ = play_many_lead(setup, strat, seeds)
        else:
            states, bad = play_many(setup, strat, seeds)
        assert len(bad) == 0
        h.update(np.ascontiguousarray(states).astype(np.int64).tobytes())
        for i in range(min(log_games, g)):
            rec = play_one(setup, strat, seeds[i])
            assert rec.violation == 0, f"{label}: invariant {rec.violation} broken at turn {rec.violation_turn}"
            assert len(rec.events) + 1 < 200_000, "event log full"
            h.update(np.asarray(rec.state).astype(np.int64).tobytes())
            h.update(np.ascontiguousarray(rec.events).astype(np.int64).tobytes())
        played += g
        parts[label] = h.hexdigest()
        total.update(bytes.fromhex(parts[label]))
    return total.hexdigest(), parts, played


def main():
    from fingerprint_cli import fingerprint_main

    counts = (
        ("--games", 20, "games per configuration"),
        ("--slow-games", 3, "games per lookahead or search configuration"),
        ("--log-games", 2, "of them, played again with an event log"),
    )
    fingerprint_main(__doc__, fingerprint, REFERENCE, counts)


if __name__ == "__main__":
    main()
