"""Every seed the lab derives, in one place.

* ``game_seed(run_seed, index)``: the seed of game ``index`` of a plain run (``ssb check``, soaks,
  benchmarks), mixed by the kernel's generator (``mix_seed``), independent of how games are split.
* The paired design of a scenario (``cell_hash``, ``cell_seed``, ``deal_seeds``, ``game_layout``,
  ``rotate``), below.
* Seeds derived by hashing labels: ``label_seed`` (a strategy tune's stages), ``stage_seeds`` (the
  deal seeds of one such stage), ``derive_seed`` (a balance search, ``ssb tune``) and ``round_seed``
  (an adaptive round of the regression gate). Each keeps the exact formula it always had, so seeds
  recorded in baselines and answer files stay valid.

The paired design of a scenario's cells:
A deal's seed depends on (run seed, cell, deal) and nothing else.

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
import json

import numpy as np

from simulator.kernel_common import mix_seed

MAX_SEED = 2**63 - 1


def game_seed(run_seed, index):
    """Seed of game ``index`` of a run: independent of how the games are split among workers."""
    return int(mix_seed(np.uint64(run_seed), np.uint64(index)))


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


# =========================================================================== seeds from labels


def label_seed(*parts):
    """A 63-bit seed from a seed and labels (a strategy tune's stages): stable across processes and platforms."""
    h = hashlib.sha256(json.dumps([int(p) if not isinstance(p, str) else p for p in parts]).encode())
    return int.from_bytes(h.digest()[:8], "little") >> 1


def stage_seeds(seed, label, nplayers, deals):
    """The deal seeds of one stage of a strategy tune or ladder (``label``: a generation, rescore,
    verify, matrix...) at one player count."""
    base = label_seed(seed, label, nplayers)
    return np.array([game_seed(base, d) for d in range(deals)], dtype=np.uint64)


def derive_seed(seed, *parts):
    """A 63-bit seed from a balance search's seed and a path of labels (stable across processes)."""
    text = json.dumps([int(seed), *[str(p) for p in parts]])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") & MAX_SEED


def round_seed(run_seed, round_index):
    """A fresh run seed for adaptive round ``round_index`` (1, 2, ...) of a run seeded ``run_seed``.

    Derived by hashing, so the round's deals share nothing with the run's own or with other rounds'.
    """
    blob = f"ssb-regress-round|{int(run_seed)}|{int(round_index)}".encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "little") & MAX_SEED
