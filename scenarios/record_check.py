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

Both raise :class:`scenarios.results.RunDirError` naming the manifest and the key.
"""

from __future__ import annotations

from pathlib import Path

from scenarios.results import MANIFEST, RunDirError

DAMAGED = "the manifest is damaged: start the run over with --force"


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


def check_sequential_record(manifest, out_dir, expected=False):
    """Check a sequential run's record against its chunk plan (see the module doc); a manifest of
    a fixed-count run passes untouched (``expected``: the run is known to be sequential, so a
    missing record is an error). Raises :class:`RunDirError` naming ``sequential.KEY``."""
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
