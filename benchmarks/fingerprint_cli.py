"""The command line both decision fingerprints share (``echidna_fingerprint.py``, ``sns_fingerprint.py``):
play the grid, print the digest, say whether it matches the recorded one, save or compare the
per-configuration digests; exit status 1 when a recorded digest differs."""

import argparse
import json
import sys
import time
from pathlib import Path


def fingerprint_main(doc, fingerprint, reference, counts):
    """``counts``: (option, default, help) of each integer argument of ``fingerprint``, in order;
    ``reference`` maps a tuple of their values to the digest of the unchanged kernel."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    for option, default, text in counts:
        ap.add_argument(option, type=int, default=default, help=text)
    ap.add_argument("--save", help="write every configuration's digest to this JSON file")
    ap.add_argument("--compare", help="name the configurations whose digest differs from this JSON file")
    ap.add_argument("--record", action="store_true", help="play through the lead record's entry point (the same digest)")
    args = ap.parse_args()
    values = tuple(getattr(args, option.lstrip("-").replace("-", "_")) for option, _, _ in counts)
    t = time.perf_counter()
    digest, parts, played = fingerprint(*values, record=True) if args.record else fingerprint(*values)
    dt = time.perf_counter() - t
    print(f"{played} games in {len(parts)} configurations ({dt:.1f} s, compile or cache load included)")
    print(f"fingerprint {digest}")
    ref = reference.get(values)
    if ref:
        print("matches the unchanged kernel" if ref == digest else "DIFFERS from the unchanged kernel")
    if args.save:
        Path(args.save).write_text(json.dumps({"total": digest, "parts": parts}, indent=1))
    if args.compare:
        old = json.loads(Path(args.compare).read_text())["parts"]
        diff = [k for k in parts if old.get(k) != parts[k]]
        print(f"{len(diff)} configurations differ" + (": " + ", ".join(diff[:20]) if diff else ""))
    if ref and ref != digest:
        sys.exit(1)
