"""Decision fingerprint of the Echidna Shuffle kernel: a SHA-256 over what a few thousand games did.

    .venv/bin/python benchmarks/echidna_fingerprint.py [--games 40] [--log-games 4] [--save F] [--compare F]

A change made for speed alone must leave every decision, and the random number stream, as it was.
This plays a grid of games: 2 to 6 players, both boards, each variant switch (catch-up tokens,
home stretch, both, extra bugs, roll every turn, all four, a short stall cap, another token
schedule) and six lineups (random, greedy, saboteur, plain-setup mirrors; a mixed table with the
whole-turn lookahead; a mixed table with a two-step lookahead). Per configuration it hashes the
final states of ``--games`` games played the fast way (``play_batch``, no log) and the event logs
and final states of the first ``--log-games`` of them played with a log (``play_game``). The final
state holds the generator's state, so a single extra or missing draw shows.

The state is hashed field by field through the layout's names (``canonical``), so a change of the
state's layout or dtype that keeps the game the same keeps the hash. ``--save`` writes the digest of
every configuration to a JSON file; ``--compare`` names the configurations whose digest differs
from such a file (where to look when the total changes).

The reference digests of the unchanged kernel are ``REFERENCE`` below; ``tests/test_echidna_fingerprint.py``
runs the grid with 10 games per configuration (5,400 games, two of each configuration logged) in
a few seconds; ``--record`` plays the fast games through the lead record's entry point
(``simulator.echidna.lead_record``), which must give the same digest; this script's default is 40 games per configuration (21,600 games, four logged).
"""

import hashlib
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.echidna import layout as L  # noqa: E402
from simulator.echidna.board import EchidnaSetup, Variants, load_board, load_rules  # noqa: E402
from simulator.echidna.kernel.engine import play_game  # noqa: E402
from simulator.seeds import game_seed  # noqa: E402
from simulator.echidna.playout import play_many  # noqa: E402
from simulator.echidna.strategies import EchidnaStrategyLibrary  # noqa: E402
from simulator.echidna.lead_record import play_many_lead  # noqa: E402

# (games per configuration, logged games per configuration) -> digest of the kernel before any
# speed work (commit 1be3246).
REFERENCE = {
    (10, 2): "b1fc27644084a094639cf04955b90c6d1c4168865ad1d24d2f808d7e7085188e",
    (40, 4): "b953d66fc46f82a6a8a7575b502932aa1569d984ba75e8c9b16fd5b73eeb4746",
}

VARIANTS = (
    ("base", Variants()),
    ("catch_up", Variants(catch_up=True)),
    ("home_stretch", Variants(home_stretch=True)),
    ("tokens", Variants(catch_up=True, home_stretch=True)),
    ("extra_bugs", Variants(extra_bugs=True)),
    ("roll", Variants(roll_every_turn=True)),
    ("all", Variants(catch_up=True, home_stretch=True, extra_bugs=True, roll_every_turn=True)),
    ("stall8", Variants(max_rounds=8)),
    ("schedule", Variants(catch_up=True, token_schedule=(2, 2, 3, 3, 4, 4))),
)
MIXED = ("lookahead", "greedy", "saboteur", "random", "plain-setup", "greedy")
LINEUPS = ("random", "greedy", "saboteur", "plain-setup", "mixed", "mixed-depth2")

# Scalar fields, then per-echidna, per-space and per-seat arrays: every part of the state, by name.
SCALARS = (
    L.S_TURN,
    L.S_ROUND,
    L.S_CUR,
    L.S_WINNER,
    L.S_STALLED,
    L.S_RNG,
    L.S_SUPPLY,
    L.S_OUT,
    L.S_NPLAYERS,
    L.S_OCC,
    L.S_DECISIONS,
    L.S_MOVES_LEFT,
)
ARRAYS = (
    (L.S_EPOS, L.N_ECHIDNAS),
    (L.S_EBUG, L.N_ECHIDNAS),
    (L.S_SPACE, L.MAX_SPACES),
    (L.S_PICK, L.MAX_PLAYERS),
    (L.S_STUMPS, L.MAX_PLAYERS),
    (L.S_HOME, L.MAX_PLAYERS),
    (L.S_RIDING, L.MAX_PLAYERS),
    (L.S_HAND, L.MAX_PLAYERS),
    (L.S_TOKENS, L.MAX_PLAYERS),
    (L.S_NEXT, L.MAX_PLAYERS),
    (L.S_STAT, L.MAX_PLAYERS * L.N_STAT),
)


def canonical(states):
    """The states (games x state size) as int64 columns in a fixed order of named fields."""
    states = np.atleast_2d(states)
    cols = [states[:, list(SCALARS)]] + [states[:, a : a + k] for a, k in ARRAYS]
    return np.ascontiguousarray(np.concatenate(cols, axis=1).astype(np.int64))


def lineup(lib, name, n):
    if name.startswith("mixed"):
        # the lookahead in seat n - 2 (a different seat at each player count), the rest around it
        names = list(MIXED[1:n])
        names.insert(n - 2, "lookahead")
        m = lib.matrix(names)
        if name == "mixed-depth2":
            for i, s in enumerate(names):
                if s == "lookahead":
                    m[i, L.P_DEPTH] = 2
        return m
    return lib.matrix([name] * n)


def configurations():
    """(label, setup, strategy matrix) of every configuration, in a fixed order."""
    lib = EchidnaStrategyLibrary()
    rules = load_rules()
    boards = {b: load_board(b) for b in ("forest", "snow")}
    k = 0
    for board in ("forest", "snow"):
        for n in L.PLAYER_COUNTS:
            for vname, variants in VARIANTS:
                setup = EchidnaSetup(n, boards[board], variants, rules)
                for line in LINEUPS:
                    yield k, f"{board}/{n}p/{vname}/{line}", setup, lineup(lib, line, n)
                    k += 1


def fingerprint(games=10, log_games=2, seed=20261201, record=False):
    """(total digest, {configuration: digest}, games played)."""
    total = hashlib.sha256()
    parts = {}
    log = np.zeros((200_000, L.LOG_WIDTH), dtype=np.int64)
    played = 0
    for k, label, setup, strat in configurations():
        h = hashlib.sha256(label.encode())
        seeds = np.array([game_seed(seed + k, i) for i in range(games)], dtype=np.uint64)
        if record:  # the lead record's entry point: the same games, call for call
            states, bad, _, _ = play_many_lead(setup, strat, seeds)
        else:
            states, bad = play_many(setup, strat, seeds)
        assert len(bad) == 0
        h.update(canonical(states).tobytes())
        for i in range(min(log_games, games)):
            st = np.zeros(L.STATE_SIZE, dtype=states.dtype)
            log[0, 0] = 0
            play_game(setup.geo, strat, seeds[i], st, log, False)
            nev = int(log[0, 0])
            assert nev + 1 < log.shape[0], "event log full"
            h.update(canonical(st).tobytes())
            h.update(np.ascontiguousarray(log[1 : nev + 1]).astype(np.int64).tobytes())
        played += games
        parts[label] = h.hexdigest()
        total.update(bytes.fromhex(parts[label]))
    return total.hexdigest(), parts, played


def main():
    from fingerprint_cli import fingerprint_main

    counts = (
        ("--games", 40, "games per configuration"),
        ("--log-games", 4, "of them, played again with an event log"),
    )
    fingerprint_main(__doc__, fingerprint, REFERENCE, counts)


if __name__ == "__main__":
    main()
