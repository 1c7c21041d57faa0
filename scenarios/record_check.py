"""Checks of what a run's manifest says about itself, before anything trusts it.

Two records of a manifest steer what is read or played, so a damaged one would give a wrong
answer rather than an error:

- the sequential record (``manifest["sequential"]``, :mod:`scenarios.sequential`): its rounds name
  the chunks of the plan each round played. ``--resume`` replays those rounds and adds each
  chunk's wins to its cell, so a round whose range overlaps another counts games twice, and an
  emptied list of rounds plays the same deals again into new chunks. :func:`check_sequential_record`
  checks the rounds against the chunk plan: they cover it exactly, in order, and each cell's games
  follow on from the previous round's, deal after deal.
- the game a run is of (``manifest["game"]``) and the columns it recorded (``manifest["columns"]``):
  a report of one game read as another game's would judge the wrong columns.
  :func:`scenarios.results.check_game_columns` checks the two agree, wherever a manifest is read.

- the settings the record was judged with (``manifest["sequential"]["settings"]``) and the sets'
  records (``manifest["sequential"]["sets"]``): a report judges the tables again with those
  settings, so a zone of 5 or a margin below its zone would turn every verdict.
  :func:`check_settings` holds them to the limits a scenario's ``[sequential]`` table is held to
  (:func:`scenarios.sequential.parse_sequential`) and, on ``--resume``, to the settings of the
  scenario the run goes on with; :func:`check_set_records` checks each set's record is of the shape
  the run writes.

All raise :class:`scenarios.results.RunDirError` naming the manifest and the key.
"""

from __future__ import annotations

import math
from pathlib import Path

from scenarios.results import MANIFEST, RunDirError

DAMAGED = "the manifest is damaged: start the run over with --force"
# The words of scenarios.sequential (which imports this module through scenarios.rundir, so they are
# spelled here; tests/test_records_hardening.py holds the two equal).
TESTS = ("zone", "interval")
VERDICTS = ("seats", "instruments", "variants")
SET_VERDICTS = ("instruments", "variants")
OUT, IN_LINE, OPEN = "out of line", "in line", "open"  # a set's verdict words (scenarios.sequential_sets)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_sequential(manifest):
    """Whether a manifest is of a sequential run: it holds a record, or the scenario it keeps
    (``scenario.text``, the effective scenario) has a ``[sequential]`` table."""
    import tomllib

    if "sequential" in manifest:
        return True
    sc = manifest.get("scenario")
    text = sc.get("text") if isinstance(sc, dict) else None
    if not isinstance(text, str) or "sequential" not in text:
        return False
    try:
        return bool(tomllib.loads(text).get("sequential"))
    except (tomllib.TOMLDecodeError, RecursionError):
        return False


def check_sequential_record(manifest, out_dir, expected=False, settings=None):
    """Check a sequential run's record against its chunk plan and limits (see the module doc); a
    manifest of a fixed-count run passes untouched (``expected``: the run is known to be
    sequential, so a missing record is an error; ``settings``: those of the scenario a resumed run
    goes on with, which the record's must equal). Raises :class:`RunDirError` naming ``sequential.KEY``."""
    if not (expected or is_sequential(manifest)):
        return
    path = Path(out_dir) / MANIFEST
    seq = manifest.get("sequential")
    if seq is None:
        raise RunDirError(path, "sequential", f"missing: the settings say a sequential run, but its record is gone; {DAMAGED}")
    if not isinstance(seq, dict):
        raise RunDirError(path, "sequential", f"expected a JSON object, got {type(seq).__name__}; {DAMAGED}")
    for key, kind in (("rounds", list), ("cells", list), ("settings", dict)):
        if not isinstance(seq.get(key), kind):
            raise RunDirError(path, f"sequential.{key}", f"expected a {kind.__name__}, got {seq.get(key)!r:.60}; {DAMAGED}")
    check_settings(seq["settings"], path, settings if settings is not None else scenario_settings(manifest, path))
    check_set_records(seq, path, manifest.get("status") == "complete",
                      [c.get("cell") for c in manifest.get("cells", []) if isinstance(c, dict)])
    chunks = manifest.get("chunks")
    plan = chunks.get("plan") if isinstance(chunks, dict) else None
    if not isinstance(plan, list) or not all(
        isinstance(r, list) and len(r) == 4 and all(_is_int(x) for x in r) for r in plan
    ):
        raise RunDirError(path, "chunks.plan", f"expected a list of [chunk, cell, start, stop] rows; {DAMAGED}")
    cells = {c.get("cell") for c in manifest.get("cells", []) if isinstance(c, dict)}
    played = {}  # cell -> games of the rounds checked so far
    end = 0
    for i, rnd in enumerate(seq["rounds"]):
        key = f"sequential.rounds[{i}]"
        if not isinstance(rnd, dict) or rnd.get("round") != i:
            raise RunDirError(path, key, f"expected an object with round = {i}; {DAMAGED}")
        span = rnd.get("chunks")
        if not (isinstance(span, list) and len(span) == 2 and all(_is_int(x) for x in span)):
            raise RunDirError(path, f"{key}.chunks", f"expected [first, stop] chunk numbers, got {span!r:.60}; {DAMAGED}")
        first, stop = span
        if first != end or not first < stop <= len(plan):
            raise RunDirError(
                path, f"{key}.chunks",
                f"chunks {first}..{stop - 1} do not follow the previous round (chunk {end} next, {len(plan)} in the "
                f"plan): a replay would count games twice or skip some; {DAMAGED}")
        asked = rnd.get("cells")
        if not isinstance(asked, dict) or not all(str(k).isdigit() and _is_int(v) and v > 0 for k, v in asked.items()):
            raise RunDirError(path, f"{key}.cells", f"expected an object of cell = deals; {DAMAGED}")
        got = {}
        for k in range(first, stop):
            chunk, cell, a, b = plan[k]
            if chunk != k or (cells and cell not in cells):
                raise RunDirError(path, f"chunks.plan[{k}]", f"expected chunk {k} of a listed cell, got {plan[k]}; {DAMAGED}")
            at = played.get(cell, 0) + got.get(cell, 0)
            if a != at or b <= a:
                raise RunDirError(
                    path, f"chunks.plan[{k}]",
                    f"cell {cell}'s games {a}..{b} do not follow on from game {at} (round {i}): a replay would "
                    f"count games twice or skip some; {DAMAGED}")
            got[cell] = got.get(cell, 0) + b - a
        if {int(c): v for c, v in asked.items()} != got:
            raise RunDirError(path, f"{key}.cells", f"says {dict(sorted((int(c), v) for c, v in asked.items()))} deals per cell, its chunks hold {dict(sorted(got.items()))}; {DAMAGED}")
        for c, n in got.items():
            played[c] = played.get(c, 0) + n
        end = stop
    if end != len(plan):
        covered = f"the rounds cover chunks 0..{end - 1} of the {len(plan)}" if end else f"no round is listed for the {len(plan)} chunks"
        raise RunDirError(
            path, "sequential.rounds",
            f"{covered} in the plan: a replay would play those games again into new chunks; {DAMAGED}")
    for i, rec in enumerate(seq["cells"]):
        if rec is None:
            continue
        if not isinstance(rec, dict) or not _is_int(rec.get("cell")) or not _is_int(rec.get("games")):
            raise RunDirError(path, f"sequential.cells[{i}]", f"expected an object with integer cell and games; {DAMAGED}")
        # The records are written before a round is played: an unfinished run's may lag its rounds.
        have = played.get(rec["cell"], 0)
        if rec["games"] > have or (manifest.get("status") == "complete" and rec["games"] != have):
            raise RunDirError(
                path, f"sequential.cells[{i}].games",
                f"says cell {rec['cell']} played {rec['games']} games, its rounds hold {played.get(rec['cell'], 0)}; {DAMAGED}")


# =========================================================================== the settings and the sets


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _bad(path, key, reason):
    raise RunDirError(path, f"sequential.settings.{key}", f"{reason}; {DAMAGED}")


def check_settings(st, path, expected=None):
    """The record's settings within the limits of a scenario's ``[sequential]`` table (module doc),
    and equal to ``expected`` (a resumed run's scenario settings) but for the budget, which a resume
    may raise (scenarios.sequential.identity)."""
    ranges = {"margin": (0, 0.5), "confidence": (0.5, 1), "indifference": (0, 0.5), "zone": (0, 1),
              "seconds": (0, 1e9)}
    for key, (lo, hi) in ranges.items():
        if key in st and not (_num(st[key]) and lo < st[key] < hi):
            _bad(path, key, f"expected a number between {lo:g} and {hi:g} (exclusive), got {st[key]!r:.60}")
    if st.get("test", "zone") not in TESTS:
        _bad(path, "test", f"expected one of {', '.join(repr(t) for t in TESTS)}, got {st.get('test')!r:.60}")
    margin, d = st.get("margin", 0.03), st.get("indifference")
    if st.get("test", "zone") == "zone" and d is not None and not d < margin:
        _bad(path, "indifference", f"{d:g} must be below the margin {margin:g}: the zone is margin - indifference "
             "to margin + indifference")
    verdicts = st.get("verdicts", ["seats"])
    if not (isinstance(verdicts, list) and len(verdicts) == 1 and verdicts[0] in VERDICTS):
        _bad(path, "verdicts", f"expected one of {', '.join(repr(v) for v in VERDICTS)} in a list, got {verdicts!r:.60}")
    for key, whole in (("cost", False), ("budget", True), ("round", True)):
        table = st.get(key, {})
        if not isinstance(table, dict):
            _bad(path, key, f"expected an object of judge = number, got {table!r:.60}")
        for name, v in table.items():
            if not (_num(v) and (v > 0 if not whole else _is_int(v) and v >= 1) and v < 1e12):
                _bad(path, f"{key}.{name}", f"expected a {'whole ' if whole else ''}number above 0, got {v!r:.60}")
    strong = st.get("strong", [])
    if not (isinstance(strong, list) and all(isinstance(x, str) for x in strong)):
        _bad(path, "strong", f"expected a list of judges, got {strong!r:.60}")
    if expected is None:
        return
    for key, want in expected.items():
        if key in ("budget", "seconds") or key not in st:
            continue  # a resume may raise the budget; an older record may lack a later key
        if st[key] != want:
            _bad(path, key, f"the record says {st[key]!r:.60}, the run's scenario says {want!r:.60}: the looks were "
                 "judged with other settings")


def scenario_settings(manifest, path):
    """The ``[sequential]`` table of the effective scenario the manifest keeps (``scenario.text``, the
    settings the run was played with), checked against its hash; None when the manifest keeps none."""
    import hashlib
    import tomllib

    sc = manifest.get("scenario")
    text = sc.get("text") if isinstance(sc, dict) else None
    if not isinstance(text, str):
        return None
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != sc.get("sha256"):
        raise RunDirError(path, "scenario.text", f"does not match its sha256: the scenario was edited after the run; {DAMAGED}")
    try:
        table = tomllib.loads(text).get("sequential")
    except (tomllib.TOMLDecodeError, RecursionError):
        raise RunDirError(path, "scenario.text", f"is not a readable scenario; {DAMAGED}") from None
    return table if isinstance(table, dict) else None


SET_FIELDS = {"cell": _is_int, "reference": _is_int, "players": _is_int, "deals": _is_int,
              "judge": lambda v: isinstance(v, str)}
SET_NUMBERS = ("effect", "lo", "hi", "margin", "zone")


def check_set_records(seq, path, complete, cells=()):
    """The sets' records of a run decided by its instrument or variant sets (module doc): a list of
    objects with the fields the run writes, verdict words the run uses and numbers where numbers go."""
    verdicts = seq["settings"].get("verdicts", [])
    if not any(v in SET_VERDICTS for v in verdicts):
        return
    sets = seq.get("sets")
    if sets is None and not complete:
        return  # written after the first round
    if not isinstance(sets, list):
        got = "missing" if sets is None else f"{type(sets).__name__} {sets!r:.40}"
        raise RunDirError(path, "sequential.sets", f"expected a list of the sets' records, got {got}; {DAMAGED}")
    for i, rec in enumerate(sets):
        key = f"sequential.sets[{i}]"
        if not isinstance(rec, dict):
            raise RunDirError(path, key, f"expected an object (a set's record), got {rec!r:.40}; {DAMAGED}")
        for name, ok in SET_FIELDS.items():
            if not ok(rec.get(name)):
                raise RunDirError(path, f"{key}.{name}", f"expected {'a judge' if name == 'judge' else 'a whole number'}, "
                                  f"got {rec.get(name)!r:.40}; {DAMAGED}")
        if rec.get("verdict") not in (OUT, IN_LINE, OPEN):
            raise RunDirError(path, f"{key}.verdict", f"expected one of '{OUT}', '{IN_LINE}', '{OPEN}', got "
                              f"{rec.get('verdict')!r:.40}; {DAMAGED}")
        for name in SET_NUMBERS:
            v = rec.get(name)
            if name in ("lo", "hi") and isinstance(v, float) and math.isinf(v):
                continue  # an interval before its first look is unbounded
            if name in rec and not _num(v):
                raise RunDirError(path, f"{key}.{name}", f"expected a number, got {rec[name]!r:.40}; {DAMAGED}")
        if "zone" in rec and rec["zone"] != seq["settings"].get("zone", rec["zone"]):
            raise RunDirError(path, f"{key}.zone", f"says {rec['zone']!r}, the run's settings {seq['settings'].get('zone')!r}; {DAMAGED}")
    if complete and cells:
        # Every cell of a finished run is a judged set or the reference of one: a record deleted
        # (or the list emptied) would drop its verdict from the report without a word.
        named = {r["cell"] for r in sets} | {r["reference"] for r in sets}
        left = sorted(set(cells) - named)
        if left:
            raise RunDirError(path, "sequential.sets", f"names no set or reference of cell{'s' if len(left) > 1 else ''} "
                              f"{', '.join(map(str, left[:10]))}: a set's record is missing; {DAMAGED}")
