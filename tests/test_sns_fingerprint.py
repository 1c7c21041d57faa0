"""Speed work on the Shuffle and Swing kernel changes no decision: the digest of 420 games (2, 3 and
4 players, four instrument sets, mirrors of greedy, random, tuned, decisive, majority and a
specialist, mixed tables, shuffled wheels with a round cap, one seat of lookahead or search; final
states, generator state included, and event logs) equals the unchanged kernel's.

When a rules or strategy change is meant to change decisions, the golden games change too; then
record the new digests in ``benchmarks/sns_fingerprint.py`` (``REFERENCE``) and say why in the
commit. ``benchmarks/sns_fingerprint.py --compare`` names the configurations that differ.
"""

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "sns_fingerprint.py"
_spec = importlib.util.spec_from_file_location("sns_fingerprint", _PATH)
fp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fp)


def test_decisions_match_the_unchanged_kernel():
    digest, parts, played = fp.fingerprint(4, 1, 1)
    assert played == 420 and len(parts) == 132
    assert digest == fp.REFERENCE[(4, 1, 1)]


def test_fingerprint_sees_one_changed_draw():
    # The same grid with other seeds gives another digest, configuration by configuration.
    _, a, _ = fp.fingerprint(1, 1, 0, seed=7)
    _, b, _ = fp.fingerprint(1, 1, 0, seed=8)
    assert all(a[k] != b[k] for k in a)
