"""Seeds of the paired design: a deal's seed depends on (run seed, cell, deal) and nothing else.

Every deal (one setup seed) of a cell is played once per cyclic rotation of the lineup over the
seats, so each strategy meets the same deal from every seat::

    cell lineup (A, B, C)      game = deal * 3 + rotation
    rotation 0:  seat0=A  seat1=B  seat2=C
    rotation 1:  seat0=C  seat1=A  seat2=B      (lineup position 0 sits at seat ``rotation``)
    rotation 2:  seat0=B  seat1=C  seat2=A

    seed(deal) = mix(mix(run seed, hash(deal key)), deal)

The deal key is the cell key, except in a scenario of several instrument sets (``swaps``, ``all``,
or a list of sets): there the instruments are left out of it (``black=*|orange=*|gray=*``), so every
set of one player count and lineup is played on the same deals. Instruments are then compared on
common random numbers, paired deal by deal (``reports.instrument_verdicts``). A scenario of one set
keeps the plain cell key.

Only distinct rotations are played: a mirror lineup (A, A, A) has one, so its deals are simply
games; (A, B, A, B) has two.

The cell hash is the first 8 bytes of the SHA-256 of the deal key, so it does not change between
Python processes (``hash()`` would) and a cell keeps its deals when other cells are added or
reordered. Two scenarios with the same run seed play the same deals in cells with the same key,
which pairs a what-if scenario with its baseline. Nothing depends on chunking, worker count or backend.
"""

import hashlib

import numpy as np

from simulator.playout import game_seed


def cell_hash(key):
    """Stable 64-bit hash of a cell key."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "little")


def cell_seed(run_seed, key):
    """The seed every deal of the cell derives from."""
    return game_seed(run_seed, cell_hash(key))


def deal_seeds(run_seed, key, deals):
    """Seeds (uint64) of the given deal indices of a cell."""
    base = cell_seed(run_seed, key)
    return np.array([game_seed(base, int(d)) for d in deals], dtype=np.uint64)


def game_layout(games, rotations):
    """(deal, rotation) of each game index: game = deal * rotations + rotation."""
    games = np.asarray(games, dtype=np.int64)
    return games // rotations, games % rotations


def rotate(lineup, rotation):
    """Strategies by seat for one rotation: lineup position ``k`` sits at seat ``(k + rotation) % n``."""
    n = len(lineup)
    return tuple(lineup[(s - rotation) % n] for s in range(n))
