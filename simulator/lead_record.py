"""The optional per-round record of who is ahead (a scenario's ``record = ["lead"]``): what every
game's record is.

Each game that offers the record has a module of its own, ``simulator/<game>/lead_record.py``, with a
twin of its batch entry point that plays the same games with the same calls, in the same order, and
after every completed round (and at the game's end) writes each seat's *standing* (higher is
better; what it counts is the game's) into a preallocated array: ``rec[game, round, seat]``. The
twin only reads the state, so every decision and every draw of the generator are those of the
plain entry point (the decision fingerprints say so with the record on:
``benchmarks/sns_fingerprint.py --record``, ``benchmarks/echidna_fingerprint.py --record``). A run
without the record calls the plain entry point and pays nothing. The game declares its twin's
Python face as ``Game.play_batch_lead`` ``(setup, seeds, strat) -> (seats, games, rec, nrec)``.

Rows past a game's end hold ``PAD``; ``nrec[game]`` says how many rows were written. Each twin lives
outside its kernel package's source list on purpose: it changes no game, so it does not change the
kernel's cache key either (numba keys its own cache by the twin's file).
"""

import numpy as np

PAD = np.iinfo(np.int32).min


def new_record(games, rows, nplayers):
    """The record's arrays for ``games`` games of at most ``rows`` rows: ``rec`` (games x rows x
    nplayers, int32, all ``PAD``) and ``nrec`` (games, int32, all 0)."""
    rec = np.full((games, rows, nplayers), PAD, dtype=np.int32)
    nrec = np.zeros(games, dtype=np.int32)
    return rec, nrec


# What a scenario's ``record`` adds beyond the lead (``scenarios.record``): one deal in ten replayed
# (about +10% of the run's games); a deal not replayed holds NOT_REPLAYED.
SETUP_EVERY = 10
NOT_REPLAYED = -2


def lead_lists(rec, nrec):
    """The ``lead`` column from the record's arrays: per game, its first ``nrec`` rows flattened."""
    return [np.ascontiguousarray(rec[g, : int(nrec[g])]).reshape(-1).astype(np.int32) for g in range(len(nrec))]


def replay_noise(seeds):
    """The bots' seeds of the set-up replays: one non-zero 64-bit value per deal seed, apart from
    every stream the deal's own game draws (a splitmix64 step of the seed with a fixed offset)."""
    z = np.asarray(seeds, dtype=np.uint64) + np.uint64(0x5E7F0A11C0FFEE01)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.where(z == 0, np.uint64(1), z)
