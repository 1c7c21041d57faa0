"""Run directories: layout, manifest and reading the result tables back.

::

    results/starter/
        manifest.json              what was run and how: scenario text + sha256, cells, chunk plan,
                                   data-file and code hashes, timings, status running | complete
        seats/chunk-00000.parquet  one row per game and seat (scenarios.schema.SEAT_COLUMNS)
        games/chunk-00000.parquet  one row per game (scenarios.schema.GAME_COLUMNS)
        ...

A chunk file appears under its final name only once complete (written under a temporary name in
the same folder, then renamed), so a chunk is done exactly when both of its files exist.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow.dataset as ds

from scenarios.schema import FORMAT_VERSION, GAME_COLUMNS, SEAT_COLUMNS
from simulator.errors import DataError

MANIFEST = "manifest.json"
SEATS_DIR = "seats"
GAMES_DIR = "games"
TABLE_DIRS = (SEATS_DIR, GAMES_DIR)
STATUS_RUNNING = "running"
STATUS_COMPLETE = "complete"
SORT_SEATS = ["cell", "game", "seat"]
SORT_GAMES = ["cell", "game"]


class RunDirError(DataError):
    """A run directory is missing, unfinished, of another run or of an unreadable format."""


def chunk_name(chunk):
    return f"chunk-{chunk:05d}.parquet"


def chunk_paths(out_dir, chunk):
    """(seats file, games file) of a chunk."""
    out_dir = Path(out_dir)
    name = chunk_name(chunk)
    return out_dir / SEATS_DIR / name, out_dir / GAMES_DIR / name


def write_atomic(path, data):
    """Write bytes under a temporary name in the same folder, flush to disk, then rename."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_manifest(out_dir, manifest):
    text = json.dumps(manifest, indent=2, sort_keys=False) + "\n"
    write_atomic(Path(out_dir) / MANIFEST, text.encode("utf-8"))


def read_manifest(out_dir):
    """The manifest of a run directory (RunDirError if missing or unreadable)."""
    out_dir = Path(out_dir)
    path = out_dir / MANIFEST
    if not out_dir.exists():
        raise RunDirError(out_dir, "", "result directory not found")
    if not out_dir.is_dir():
        raise RunDirError(out_dir, "", "is not a directory")
    if not path.is_file():
        raise RunDirError(path, "", "no manifest: this directory does not hold a run")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunDirError(path, "", f"unreadable manifest: {exc}") from None
    if not isinstance(manifest, dict):
        raise RunDirError(path, "", "unreadable manifest: expected a JSON object")
    return manifest


def check_format(manifest, path):
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise RunDirError(
            path,
            "format_version",
            f"written in result format {version}, this code reads format {FORMAT_VERSION}: run the scenario again",
        )


def done_chunks(out_dir, nchunks):
    """Indices of the chunks whose two files are both on disk."""
    out_dir = Path(out_dir)
    present = []
    for d in TABLE_DIRS:
        folder = out_dir / d
        names = set(os.listdir(folder)) if folder.is_dir() else set()
        present.append(names)
    return {c for c in range(nchunks) if all(chunk_name(c) in names for names in present)}


def _read_tables(files, columns, sort):
    if not files:
        return pd.DataFrame({c: pd.Series(dtype="int64") for c in columns})
    table = ds.dataset([str(f) for f in files], format="parquet").to_table()
    df = table.to_pandas()
    return df.sort_values(sort, kind="stable").reset_index(drop=True)[list(columns)]


def load_results(out_dir, allow_partial=False):
    """``(seats_df, games_df, manifest)`` of a run, sorted by cell, game (and seat).

    Raises :class:`RunDirError` for a missing directory, an older format version, or an unfinished run
    unless ``allow_partial`` (then only the chunks on disk are read).
    """
    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    check_format(manifest, out_dir / MANIFEST)
    nchunks = len(manifest.get("chunks", {}).get("plan", []))
    done = sorted(done_chunks(out_dir, nchunks))
    if manifest.get("status") != STATUS_COMPLETE and not allow_partial:
        raise RunDirError(
            out_dir,
            "status",
            f"the run is not finished ({len(done)} of {nchunks} chunks on disk): resume it with "
            f"`ssb run {manifest.get('scenario', {}).get('file', 'SCENARIO')} --out {out_dir} --resume`, "
            "or read what is there with allow_partial=True",
        )
    if manifest.get("status") == STATUS_COMPLETE and len(done) != nchunks:
        missing = sorted(set(range(nchunks)) - set(done))
        raise RunDirError(out_dir, "chunks", f"marked complete but chunk files are missing: {missing[:10]}")
    # A run of another game declares its columns in the manifest (scenarios.generic).
    cols = manifest.get("columns", {})
    seats = _read_tables([chunk_paths(out_dir, c)[0] for c in done], cols.get("seats", SEAT_COLUMNS), SORT_SEATS)
    games = _read_tables([chunk_paths(out_dir, c)[1] for c in done], cols.get("games", GAME_COLUMNS), SORT_GAMES)
    return seats, games, manifest
