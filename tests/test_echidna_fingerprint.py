"""Speed work on the Echidna Shuffle kernel changes no decision: the digest of 5,400 games (every
player count, both boards, each variant switch, random, greedy, saboteur, plain-setup and lookahead
players; final states, generator state included, and event logs) equals the unchanged kernel's.

When a rules or strategy change is meant to change decisions, the golden games change too; then
record the new digest in ``benchmarks/echidna_fingerprint.py`` (``REFERENCE``) and say why in the
commit. ``benchmarks/echidna_fingerprint.py --compare`` names the configurations that differ.
"""

import importlib.util
from pathlib import Path

import numpy as np

from simulator.echidna import layout as L

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "echidna_fingerprint.py"
_spec = importlib.util.spec_from_file_location("echidna_fingerprint", _PATH)
fp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fp)


def test_decisions_match_the_unchanged_kernel():
    digest, parts, played = fp.fingerprint(10, 2)
    assert played == 5400 and len(parts) == 540
    assert digest == fp.REFERENCE[(10, 2)]


def test_canonical_state_covers_every_field_once():
    cols = np.arange(L.STATE_SIZE)[None, :]
    got = fp.canonical(cols)[0]
    assert sorted(got.tolist()) == list(range(L.STATE_SIZE))


def test_fingerprint_sees_one_changed_draw():
    # The same grid with one game's seed changed gives another digest.
    a, _, _ = fp.fingerprint(1, 1, seed=7)
    b, _, _ = fp.fingerprint(1, 1, seed=8)
    assert a != b
