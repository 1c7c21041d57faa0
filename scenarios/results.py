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

import errno
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from scenarios.schema import FORMAT_VERSION, GAME_COLUMNS, SEAT_COLUMNS, STRING_COLUMNS, game_columns, seat_columns
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
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        # A full disk (or a vanished folder) names the file it could not write, and leaves no
        # temporary behind; the caller turns this into ``error: FILE: reason``.
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise DataError(path, "", f"cannot write: {exc.strerror or exc}"
                        + ("; free some space, then continue with --resume" if exc.errno == errno.ENOSPC else "")) from None


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


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _player_counts(game):
    """The player counts a run of ``game`` (a manifest's ``game``; none: the default game) may hold."""
    from simulator import games as registry

    try:
        return tuple(registry.get(game).player_counts)
    except DataError:
        return (2, 3, 4)


def check_game_columns(manifest, path):
    """Check that the columns a run recorded are those of the game it names (a run of one game
    whose manifest names another would otherwise be read, and judged, as the other)."""
    from simulator import games as registry

    cols = manifest.get("columns")
    name = manifest.get("game")
    if not isinstance(cols, dict) or not cols.get("seats") or name is None:
        return
    try:
        game = registry.get(name)
    except DataError:
        return  # an unknown game is refused where the run's game is looked up, with the choices
    want = {"seats": seat_columns(game), "games": game_columns(game)}
    for part in ("seats", "games"):
        have = list(cols.get(part) or [])
        if have != list(want[part]):
            extra = [c for c in have if c not in want[part]][:4]
            lacking = [c for c in want[part] if c not in have][:4]
            diff = "; ".join(x for x in (
                f"not {game.title}'s: {', '.join(extra)}" if extra else "",
                f"{game.title}'s missing: {', '.join(lacking)}" if lacking else "") if x) or "another order"
            raise RunDirError(
                path, "game",
                f"says '{name}', but the columns record ({part}) is not {game.title}'s ({diff}): the manifest and its "
                f"tables disagree on the game; the manifest is damaged: start the run over with --force")


def check_manifest(manifest, path):
    """Check the keys of a manifest that reading a run relies on; RunDirError names the key.

    Returns the chunk plan as a list of ``(chunk, cell, start, stop)`` tuples. ``cells`` may be
    absent (hand-made tables); when present, the plan's cells must be listed there."""
    check_format(manifest, path)
    damaged = "the manifest is damaged (run the scenario again with --force)"
    status = manifest.get("status")
    if status not in (STATUS_RUNNING, STATUS_COMPLETE):
        raise RunDirError(path, "status", f"expected '{STATUS_RUNNING}' or '{STATUS_COMPLETE}', got {status!r}; {damaged}")
    if not isinstance(manifest.get("scenario", {}), dict):
        raise RunDirError(path, "scenario", f"expected a JSON object; {damaged}")
    if "chunks" not in manifest:
        raise RunDirError(path, "chunks", f"missing key; {damaged}")
    chunks = manifest["chunks"]
    if not isinstance(chunks, dict):
        raise RunDirError(path, "chunks", f"expected a JSON object, got {chunks!r}; {damaged}")
    players = None
    if "cells" in manifest:
        cells = manifest["cells"]
        if not isinstance(cells, list) or not cells:
            raise RunDirError(path, "cells", f"expected a non-empty list of cells; {damaged}")
        players = {}
        counts = _player_counts(manifest.get("game"))
        for i, c in enumerate(cells):
            if not isinstance(c, dict) or not _is_int(c.get("cell")) or c.get("players") not in counts:
                raise RunDirError(
                    path,
                    f"cells[{i}]",
                    f"expected an object with integer 'cell' and 'players' {min(counts)}..{max(counts)}; {damaged}",
                )
            players[c["cell"]] = c["players"]
    size = chunks.get("size")
    if not _is_int(size) or size < 1:
        raise RunDirError(path, "chunks.size", f"expected an integer >= 1, got {size!r}; {damaged}")
    if "plan" not in chunks:
        raise RunDirError(path, "chunks.plan", f"missing key; {damaged}")
    plan = chunks["plan"]
    if not isinstance(plan, list):
        raise RunDirError(path, "chunks.plan", f"expected a list of [chunk, cell, start, stop] rows, got {plan!r}; {damaged}")
    out = []
    for i, row in enumerate(plan):
        if not (isinstance(row, list) and len(row) == 4 and all(_is_int(x) for x in row)):
            raise RunDirError(path, f"chunks.plan[{i}]", f"expected [chunk, cell, start, stop] integers, got {row!r}; {damaged}")
        k, cell, a, b = row
        if not 0 <= a <= b or b - a > size or (players is not None and cell not in players):
            raise RunDirError(
                path,
                f"chunks.plan[{i}]",
                f"expected a listed cell and 0 <= start <= stop <= start + chunks.size, got {row!r}; {damaged}",
            )
        out.append((k, cell, a, b))
    if not out:
        raise RunDirError(path, "chunks.plan", f"the plan lists no chunk; {damaged}")
    check_game_columns(manifest, path)  # a damaged columns record is the manifest's fault, not a chunk's
    return out


def done_chunks(out_dir, nchunks):
    """Indices of the chunks whose two files are both on disk."""
    out_dir = Path(out_dir)
    present = []
    for d in TABLE_DIRS:
        folder = out_dir / d
        names = set(os.listdir(folder)) if folder.is_dir() else set()
        present.append(names)
    return {c for c in range(nchunks) if all(chunk_name(c) in names for names in present)}


class ChunkError(RunDirError):
    """A chunk file on disk cannot be read back as the table it should hold."""


def table_columns(manifest):
    """``(seat columns, game columns, text columns)`` of a run's chunks: Shuffle and Swing's schema,
    or the columns a run of another game declares in its manifest (``scenarios.generic``)."""
    cols = manifest.get("columns", {})
    strings = frozenset(cols["strings"]) if "strings" in cols else STRING_COLUMNS
    return tuple(cols.get("seats", SEAT_COLUMNS)), tuple(cols.get("games", GAME_COLUMNS)), strings


def read_chunk(path, columns, rows=None, strings=STRING_COLUMNS):
    """One chunk file as a DataFrame with exactly ``columns`` (and ``rows`` rows, if given); the
    ``strings`` columns hold text, every other one integers.

    The only place a chunk is opened: an empty, truncated or overwritten file, or one with other
    columns or another row count, raises :class:`ChunkError` naming the file."""
    path = Path(path)
    fix = "the chunk is damaged: play it again with `ssb run ... --resume` (it replays damaged chunks)"
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ChunkError(path, "", f"cannot read: {exc.strerror or exc}") from None
    if size == 0:
        raise ChunkError(path, "", f"empty file; {fix}")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = re.sub(r"^Could not open Parquet input source '[^']*': ", "", str(exc).split("\n")[0])
        raise ChunkError(path, "", f"not a readable Parquet file ({reason}); {fix}") from None
    names = table.column_names
    missing = [c for c in columns if c not in names]
    if missing:
        raise ChunkError(path, "columns", f"columns missing: {', '.join(missing[:8])}; {fix}")
    if rows is not None and table.num_rows != rows:
        raise ChunkError(path, "rows", f"holds {table.num_rows} rows, the chunk plan says {rows}; {fix}")
    try:
        df = table.select(list(columns)).to_pandas()
    except (pa.ArrowException, ValueError) as exc:
        raise ChunkError(path, "", f"cannot decode ({exc}); {fix}") from None
    for c in columns:
        is_text = c in strings
        ok = (df[c].dtype.kind in "OUT" or str(df[c].dtype).startswith("str")) if is_text else df[c].dtype.kind in "iu"
        if not ok:
            raise ChunkError(path, c, f"column of type {df[c].dtype}, expected {'text' if is_text else 'integers'}; {fix}")
    return df


def _is_text_type(t):
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def read_columns(path, columns, rows=None, strings=STRING_COLUMNS, schema=None):
    """``columns`` of one chunk file as numpy arrays (a dict), the file checked as :func:`read_chunk`
    checks it, without reading the other columns.

    The file's schema must hold every column of ``schema`` (default ``columns``) and, if given,
    ``rows`` rows (both from the file's footer); only ``columns`` are decoded. Integer columns keep
    the file's compact types (int8, int32, ...); the ``strings`` columns come back as arrays of
    ``str``. An empty, truncated or overwritten file, one with other columns or another row count,
    or a column of the wrong kind raises :class:`ChunkError` naming the file."""
    path = Path(path)
    fix = "the chunk is damaged: play it again with `ssb run ... --resume` (it replays damaged chunks)"
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ChunkError(path, "", f"cannot read: {exc.strerror or exc}") from None
    if size == 0:
        raise ChunkError(path, "", f"empty file; {fix}")
    try:
        pf = pq.ParquetFile(path)
        names = pf.schema_arrow.names
        nrows = pf.metadata.num_rows
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = re.sub(r"^Could not open Parquet input source '[^']*': ", "", str(exc).split("\n")[0])
        raise ChunkError(path, "", f"not a readable Parquet file ({reason}); {fix}") from None
    need = list(columns) if schema is None else list(schema)
    missing = [c for c in dict.fromkeys([*need, *columns]) if c not in names]
    if missing:
        raise ChunkError(path, "columns", f"columns missing: {', '.join(missing[:8])}; {fix}")
    if rows is not None and nrows != rows:
        raise ChunkError(path, "rows", f"holds {nrows} rows, the chunk plan says {rows}; {fix}")
    want = list(dict.fromkeys(columns))
    try:
        table = pf.read(columns=want)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ChunkError(path, "", f"cannot decode ({str(exc).splitlines()[0] if str(exc) else exc}); {fix}") from None
    out = {}
    for c in want:
        col = table.column(c)
        is_text = c in strings
        ok = _is_text_type(col.type) if is_text else pa.types.is_integer(col.type)
        if not ok or col.null_count:
            kind = "text" if is_text else "integers"
            raise ChunkError(path, c, f"column of type {col.type}{' with nulls' if col.null_count else ''}, expected {kind}; {fix}")
        try:
            out[c] = col.to_numpy() if not is_text else np.asarray(col.to_pylist(), dtype=object)
        except (pa.ArrowException, ValueError) as exc:
            raise ChunkError(path, c, f"cannot decode ({exc}); {fix}") from None
    return out


def read_order(plan, chunks):
    """The ``chunks`` (positions in ``plan``) in the order a report reads them: by cell, then by the
    first game they hold, so the games of a cell come in game order (a sequential run's plan
    interleaves the cells round by round)."""
    return sorted(chunks, key=lambda i: (plan[i][1], plan[i][2], i))


def chunk_rows(plan, manifest):
    """Chunk position -> (rows of its seats file, rows of its games file), from the plan; ``None``
    for a count the manifest does not tell (no ``cells``)."""
    if "cells" not in manifest:
        return {i: (None, None) for i in range(len(plan))}
    players = {c["cell"]: c["players"] for c in manifest["cells"]}
    return {i: ((b - a) * players[cell], b - a) for i, (_, cell, a, b) in enumerate(plan)}


def damaged_chunks(out_dir, manifest, chunks=None):
    """``{chunk: ChunkError}`` of the chunks on disk (or of ``chunks``) that cannot be read back."""
    out_dir = Path(out_dir)
    plan = check_manifest(manifest, out_dir / MANIFEST)
    rows = chunk_rows(plan, manifest)
    todo = sorted(done_chunks(out_dir, len(plan)) if chunks is None else chunks)
    seat_cols, game_cols, strings = table_columns(manifest)
    bad = {}
    for c in todo:
        seats, games = chunk_paths(out_dir, c)
        try:
            read_chunk(seats, seat_cols, rows[c][0], strings)
            read_chunk(games, game_cols, rows[c][1], strings)
        except ChunkError as exc:
            bad[c] = exc
    return bad


def read_chunks(out_dir, chunks, manifest):
    """``(seats_df, games_df)`` of the given chunks, each file checked by :func:`read_chunk`,
    sorted by cell, game (and seat)."""
    out_dir = Path(out_dir)
    rows = chunk_rows(check_manifest(manifest, out_dir / MANIFEST), manifest)
    seat_cols, game_cols, strings = table_columns(manifest)
    frames = ([], [])
    for c in sorted(chunks):
        for which, columns in ((0, seat_cols), (1, game_cols)):
            frames[which].append(read_chunk(chunk_paths(out_dir, c)[which], columns, rows[c][which], strings))
    out = []
    for dfs, columns, sort in ((frames[0], seat_cols, SORT_SEATS), (frames[1], game_cols, SORT_GAMES)):
        if not dfs:
            out.append(pd.DataFrame({c: pd.Series(dtype="int64") for c in columns}))
            continue
        df = pd.concat(dfs, ignore_index=True) if len(dfs) > 1 else dfs[0]
        out.append(df.sort_values(sort, kind="stable").reset_index(drop=True)[list(columns)])
    return out[0], out[1]


def load_results(out_dir, allow_partial=False):
    """``(seats_df, games_df, manifest)`` of a run, sorted by cell, game (and seat).

    Raises :class:`RunDirError` for a missing directory, a damaged manifest, an older format
    version, a damaged chunk, or an unfinished run unless ``allow_partial`` (then only the chunks
    on disk are read).
    """
    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    path = out_dir / MANIFEST
    plan = check_manifest(manifest, path)
    nchunks = len(plan)
    done = sorted(done_chunks(out_dir, nchunks))
    if manifest["status"] != STATUS_COMPLETE and not allow_partial:
        raise RunDirError(
            path,
            "status",
            f"the run is not finished ({len(done)} of {nchunks} chunks on disk): finish it first with "
            f"`ssb run {manifest.get('scenario', {}).get('file', 'SCENARIO')} --out {out_dir} --resume`",
        )
    if manifest["status"] == STATUS_COMPLETE and len(done) != nchunks:
        missing = sorted(set(range(nchunks)) - set(done))
        raise RunDirError(
            out_dir,
            "chunks",
            f"marked complete but chunk files are missing: {missing[:10]}; play them again with "
            f"`ssb run {manifest.get('scenario', {}).get('file', 'SCENARIO')} --out {out_dir} --resume`",
        )
    seats, games = read_chunks(out_dir, done, manifest)
    return seats, games, manifest
