"""Reading a run directory for the reports: the cells, the result tables column by column, the
manifest, and whether the run is whole.

The run layout and the column contract belong to ``scenarios`` (``scenarios.results``,
``scenarios.schema``); neither imports the kernel. This adapter adds what a report needs on top:
a clear refusal of a missing, unfinished or older-format directory (:class:`ReportInputError`,
a ``DataError`` with file, key and reason), a PARTIAL flag when an unfinished run is read on
purpose, and a check that every column of the tables is there.

A report never holds a whole table. :class:`RunData` gives the sections

* ``run.cells``: one row per cell (``cell, cell_key, players, <setting columns>, lineup, games,
  deals``), the run-level facts (which lineups, settings, how many games);
* ``run.scan(seats=[...], games=[...])``: the games of one cell in one chunk at a time
  (:class:`Chunk`), with only the columns asked for, a seats column as a games x seats matrix.

The sections aggregate chunk by chunk (``stats.moments``) and keep per-deal values only where
a verdict needs them, so a report's memory does not grow with the games of the run. Tables made
by hand (tests, notebooks, ``ssb tune``'s candidates) go through :func:`from_frames`, or are
handed to a section as DataFrames (:func:`tables_of` wraps them), and are read the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from scenarios import results as R
from scenarios.schema import FORMAT_VERSION, GAME_COLUMNS, SEAT_COLUMNS, STRING_COLUMNS
from simulator.errors import DataError


class ReportInputError(DataError):
    """The results given to a report cannot be reported: ``str()`` reads ``FILE: KEY: reason``."""


@dataclass
class Chunk:
    """The games of one cell read from one chunk: ``k`` is the cell's row in ``RunData.cells``;
    ``games`` maps a games column to its ``(G,)`` array, ``seats`` a seats column to its ``(G, N)``
    array (row g, column s: seat s of game g), in game order."""

    k: int
    players: int
    games: dict
    seats: dict

    def __len__(self):
        for d in (self.games, self.seats):
            for v in d.values():
                return len(v)
        return 0


def setting_columns_of(columns):
    """The setting columns of a table's columns: those between ``players`` and ``lineup``."""
    cols = list(columns)
    if "players" in cols and "lineup" in cols:
        return tuple(cols[cols.index("players") + 1 : cols.index("lineup")])
    return ()


class RunData:
    """The tables of one run, as the report sections read them (module doc).

    ``manifest``, ``source``, ``partial``, ``partial_reason`` describe the run; ``cells`` and
    :meth:`scan` read it. ``seats`` and ``games`` are the whole tables, read on first use: for
    tests and notebooks, never used by a report."""

    def __init__(self, manifest=None, source="", partial=False, partial_reason="", *, reader):
        self.manifest = dict(manifest or {})
        self.source = str(source)
        self.partial = partial
        self.partial_reason = partial_reason
        self._reader = reader
        self._cells = None
        self._mask = None
        self._relabel = None

    # ------------------------------------------------------------------ what the run holds

    @property
    def scenario_name(self):
        return str(self.manifest.get("scenario", {}).get("name", "")) or Path(self.source).name or "results"

    @property
    def seat_columns(self):
        return self._reader.seat_columns

    @property
    def game_columns(self):
        return self._reader.game_columns

    @property
    def setting_columns(self):
        return setting_columns_of(self._reader.game_columns or self._reader.seat_columns)

    @property
    def cells(self):
        """One row per cell of the run (in cell order): ``cell, cell_key, players, <setting columns>,
        lineup, games, deals`` (games and deals on disk, after a view's filter)."""
        if self._cells is None:
            cells = self._reader.cells()
            if self._mask is not None:
                cells = cells.copy()
                games = np.zeros(len(cells), dtype=np.int64)
                deals = np.zeros(len(cells), dtype=np.int64)
                last = {}
                for ch in self.scan(games=["deal"]):
                    d = ch.games["deal"]
                    if not len(d):
                        continue
                    games[ch.k] += len(d)
                    new = int(np.count_nonzero(np.diff(d))) + 1
                    deals[ch.k] += new - (1 if last.get(ch.k) == d[0] else 0)
                    last[ch.k] = d[-1]
                cells["games"], cells["deals"] = games, deals
            if self._relabel is not None:
                cells = self._relabel(cells)
            self._cells = cells
        return self._cells

    @property
    def games_count(self):
        return int(self.cells["games"].sum())

    def __repr__(self):
        state = f"partial: {self.partial_reason}" if self.partial else "complete"
        game = self.manifest.get("game") or "default game"
        return (f"<{type(self).__name__} {self.source or self.scenario_name!r} ({game}, scenario {self.scenario_name!r}): "
                f"{self.games_count:,} games in {len(self.cells)} cells, {state}>")

    def __len__(self):
        return self.games_count

    # ------------------------------------------------------------------ reading

    def scan(self, seats=(), games=(), cells=None):
        """The games of the run, one :class:`Chunk` per cell and chunk, in cell then game order.

        ``seats`` and ``games``: the columns wanted of each table (a seats column comes as a games x
        seats matrix); ``cells``: the ``k`` (rows of :attr:`cells`) to read, default every cell. A
        damaged chunk raises :class:`ReportInputError` naming the file."""
        seats, games = tuple(dict.fromkeys(seats)), tuple(dict.fromkeys(games))
        mask_cols = self._mask[0] if self._mask is not None else ()
        want_games = tuple(dict.fromkeys([*games, *mask_cols]))
        wanted = None if cells is None else set(int(k) for k in cells)
        for ch in self._reader.chunks(seats, want_games, wanted):
            if self._mask is not None:
                keep = self._mask[1](ch.games)
                if not keep.all():
                    ch = Chunk(ch.k, ch.players, {c: v[keep] for c, v in ch.games.items()},
                               {c: v[keep] for c, v in ch.seats.items()})
                if len(mask_cols):
                    ch.games = {c: ch.games[c] for c in games}
            if len(ch):
                yield ch

    def view(self, games_filter=None, relabel=None):
        """The same run seen through a filter on its games and a change of its cells table:
        ``games_filter = (columns, fn)`` keeps the games where ``fn(games columns) `` is true (their
        seat rows too); ``relabel(cells) -> cells`` adds or changes cell-level columns."""
        v = RunData(self.manifest, self.source, self.partial, self.partial_reason, reader=self._reader)
        v._mask = games_filter if games_filter is not None else self._mask
        base = self._relabel
        v._relabel = (lambda c: relabel(base(c) if base else c)) if relabel else base
        return v

    @property
    def seats(self):
        """The whole seats table (read on first use; a report never asks for it)."""
        return self._reader.frames()[0]

    @property
    def games(self):
        """The whole games table (read on first use; a report never asks for it)."""
        return self._reader.frames()[1]


# =========================================================================== readers


def _cell_level(columns):
    setting = setting_columns_of(columns)
    return tuple(c for c in ("cell", "cell_key", "players", *setting, "lineup") if c in columns)


def _sorted_rows(game, seat=None):
    """Row order by game (and seat), or None when the rows are in that order already."""
    if seat is None:
        if len(game) < 2 or np.all(np.diff(game) >= 0):
            return None
        return np.argsort(game, kind="stable")
    key = game.astype(np.int64) * 1024 + seat.astype(np.int64)
    if len(key) < 2 or np.all(np.diff(key) >= 0):
        return None
    return np.argsort(key, kind="stable")


def _as_matrix(part, players, games_game, source):
    """Seat rows of one cell's games (sorted by game, seat) as ``(G, N)`` matrices."""
    n = int(players)
    game, seat = part["game"], part["seat"]
    rows = len(game)
    if n < 1 or rows % n:
        raise ReportInputError(source, "seats", f"{rows} seat rows is not one row per seat of {n}-player games")
    g = rows // n
    game_m = game.reshape(g, n)
    ok = np.array_equal(seat.reshape(g, n), np.broadcast_to(np.arange(n), (g, n))) and bool(
        np.all(game_m == game_m[:, :1]))
    if ok and games_game is not None:
        ok = len(games_game) == g and np.array_equal(game_m[:, 0], games_game)
    if not ok:
        raise ReportInputError(source, "seats", "the seats table does not hold one row per seat of every game "
                                                "of the games table")
    return {c: v.reshape(g, n) for c, v in part.items()}


class _Reader:
    """What a reader gives :class:`RunData`: columns, cells, chunks, whole frames."""

    seat_columns = ()
    game_columns = ()
    strings = STRING_COLUMNS


class _DirReader(_Reader):
    """A run directory, read chunk file by chunk file with only the columns asked for."""

    def __init__(self, out_dir, manifest, plan, done):
        self.out_dir = Path(out_dir)
        self.manifest = manifest
        self.plan = plan
        self.order = R.read_order(plan, done)
        self.rows = R.chunk_rows(plan, manifest)
        _, _, strings = R.table_columns(manifest)
        seat_cols, game_cols = declared_columns(manifest)
        self.seat_columns, self.game_columns, self.strings = tuple(seat_cols), tuple(game_cols), strings
        self.level = _cell_level(self.game_columns)
        self._cells = None
        self._chunk_cells = {}  # chunk -> k, or None when the chunk holds several cells
        self._frames = None

    def _read(self, chunk, which, columns):
        path = R.chunk_paths(self.out_dir, chunk)[which]
        schema = self.seat_columns if which == 0 else self.game_columns
        try:
            return R.read_columns(path, columns, self.rows[chunk][which], self.strings, schema=schema)
        except DataError as exc:
            raise ReportInputError(exc.file, exc.key, exc.reason) from None
        except OSError as exc:
            raise ReportInputError(path, "", f"cannot read: {exc.strerror or exc}") from None

    def check(self):
        """Every chunk file's footer (columns, row count) and every games file's cells."""
        for c in self.order:
            self._read(c, 0, ("cell",))
        self.cells()

    def cells(self):
        if self._cells is not None:
            return self._cells
        found = {}  # cell-level values -> [games, deals, last deal]
        for c in self.order:
            g = self._read(c, 1, (*self.level, "deal"))
            keys = _level_keys(g, self.level)
            ks = []
            for key, idx in keys:
                rec = found.setdefault(key, [0, 0, None])
                d = g["deal"][idx]
                rec[0] += len(d)
                sd = np.sort(d) if len(d) > 1 and np.any(np.diff(d) < 0) else d
                rec[1] += int(np.count_nonzero(np.diff(sd))) + 1 - (1 if rec[2] is not None and rec[2] == sd[0] else 0)
                rec[2] = sd[-1]
                ks.append(key)
            self._chunk_cells[c] = ks
        self._cells = _cells_frame(found, self.level)
        index = {tuple(r): k for k, r in enumerate(self._cells[list(self.level)].itertuples(index=False, name=None))}
        self._chunk_cells = {c: [index[key] for key in ks] for c, ks in self._chunk_cells.items()}
        return self._cells

    def chunks(self, seats, games, wanted):
        cells = self.cells()
        players = cells["players"].to_numpy()
        for c in self.order:
            ks = self._chunk_cells[c]
            if wanted is not None and not (set(ks) & wanted):
                continue
            mixed = len(ks) != 1
            extra = self.level if mixed else ()
            gcols = tuple(dict.fromkeys(["game", *games, *extra])) if (games or not seats or mixed) else ()
            g = self._read(c, 1, gcols) if gcols else None
            s = self._read(c, 0, tuple(dict.fromkeys(["game", "seat", *seats, *extra]))) if seats else None
            path = R.chunk_paths(self.out_dir, c)[0]
            yield from _split(g, s, ks, mixed, self.level, cells, players, games, seats, wanted, path)

    def frames(self):
        if self._frames is None:
            try:
                self._frames = R.read_chunks(self.out_dir, self.order, self.manifest)
            except DataError as exc:
                raise ReportInputError(exc.file, exc.key, exc.reason) from None
        return self._frames


def _level_keys(cols, level):
    """``[(cell-level values, row indices)]`` of a block of rows (one entry when the block is one cell)."""
    n = len(cols[level[0]]) if level else 0
    if n == 0:
        return []
    if all(bool(np.all(cols[c] == cols[c][0])) for c in level):
        return [(tuple(_py(cols[c][0]) for c in level), np.arange(n))]
    frame = pd.DataFrame({c: cols[c] for c in level})
    out = []
    for key, idx in frame.groupby(list(level), sort=False).indices.items():
        key = key if isinstance(key, tuple) else (key,)
        out.append((tuple(_py(x) for x in key), np.sort(idx)))
    return out


def _py(x):
    return x.item() if hasattr(x, "item") else x


def _cells_frame(found, level):
    rows = [(*key, rec[0], rec[1]) for key, rec in found.items()]
    cells = pd.DataFrame(rows, columns=[*level, "games", "deals"])
    order = ["cell"] if "cell" in cells else []
    if order:
        cells = cells.sort_values(order, kind="stable").reset_index(drop=True)
    for c in ("cell", "players", "games", "deals"):
        if c in cells:
            cells[c] = cells[c].astype("int64")
    return cells


def _split(g, s, ks, mixed, level, cells, players, games, seats, wanted, path):
    """The :class:`Chunk` of each cell of one block of games (and seat) rows."""
    if mixed:
        base = g if g is not None else s
        index = {tuple(r): k for k, r in enumerate(cells[list(level)].itertuples(index=False, name=None))}
        parts = [(index[key], idx) for key, idx in _level_keys(base, level)]
    else:
        parts = [(ks[0], None)]
    for k, idx in parts:
        if wanted is not None and k not in wanted:
            continue
        n = int(players[k])
        gk = None
        if g is not None:
            gk = {c: v[idx] for c, v in g.items()} if idx is not None else dict(g)
            order = _sorted_rows(gk["game"])
            if order is not None:
                gk = {c: v[order] for c, v in gk.items()}
        sk = None
        if s is not None:
            if idx is not None:
                # The seat rows of this cell: those of its games (a block of several cells).
                sel = np.zeros(len(s["game"]), dtype=bool)
                smask = _level_keys(s, level)
                for key, sidx in smask:
                    if index[key] == k:
                        sel[sidx] = True
                sk = {c: v[sel] for c, v in s.items()}
            else:
                sk = dict(s)
            order = _sorted_rows(sk["game"], sk["seat"])
            if order is not None:
                sk = {c: v[order] for c, v in sk.items()}
            sk = _as_matrix(sk, n, gk["game"] if gk is not None else None, path)
        yield Chunk(k, n, {c: gk[c] for c in games} if gk is not None else {},
                    {c: sk[c] for c in seats} if sk is not None else {})


class _FrameReader(_Reader):
    """Tables given as DataFrames, read cell by cell (``chunk_games`` games at a time, if given)."""

    def __init__(self, seats, games, chunk_games=None, source="tables"):
        self.seats_df, self.games_df = seats, games
        self.seat_columns = tuple(seats.columns) if seats is not None else ()
        self.game_columns = tuple(games.columns) if games is not None else ()
        base = games if games is not None else seats
        level = _cell_level(tuple(base.columns))
        # Any other text column but a seat's or winner's strategy names the cell too (a setting label
        # a caller added, e.g. another game's board and variant in a Shuffle and Swing column).
        extra = [c for c in base.columns if c not in level and c not in ROW_TEXT and _is_text(base[c])]
        self.level = (*level, *extra)
        self.chunk_games = chunk_games
        self.source = source
        self._cells = None
        self._parts = None
        self._plain = ({}, {})

    def _col(self, which, c):
        cache = self._plain[which]
        if c not in cache:
            df = self.seats_df if which == 0 else self.games_df
            # A hand-made games table without game numbers is in game order.
            cache[c] = np.arange(len(df)) if c == "game" and which == 1 and c not in df else _plain(df[c])
        return cache[c]

    def _groups(self, which):
        df = self.seats_df if which == 0 else self.games_df
        if df is None or not len(df):
            return {}
        frame = pd.DataFrame({c: self._col(which, c) for c in self.level})
        out = {}
        for key, idx in frame.groupby(list(self.level), sort=False).indices.items():
            out[tuple(_py(x) for x in (key if isinstance(key, tuple) else (key,)))] = idx
        return out

    def _index(self):
        if self._parts is None:
            which = 1 if self.games_df is not None else 0
            groups = self._groups(which)
            found = {}
            for key, idx in groups.items():
                deal = self._col(which, "deal")[idx] if "deal" in self.level or "deal" in (
                    self.game_columns if which else self.seat_columns) else np.zeros(len(idx), dtype=np.int64)
                per = int(key[self.level.index("players")]) if which == 0 else 1
                found[key] = [len(idx) // max(per, 1), int(pd.unique(deal).size), None]
            self._cells = _cells_frame(found, self.level)
            index = {tuple(r): k for k, r in enumerate(self._cells[list(self.level)].itertuples(index=False, name=None))}
            self._parts = {index[key]: idx for key, idx in groups.items()}
            self._seat_parts = {}
            if which == 1 and self.seats_df is not None:
                for key, idx in self._groups(0).items():
                    if key in index:
                        self._seat_parts[index[key]] = idx
        return self._parts

    def cells(self):
        self._index()
        return self._cells

    def _block(self, which, k, cols):
        df = self.seats_df if which == 0 else self.games_df
        what = "seats" if which == 0 else "games"
        if df is None:
            raise ReportInputError(self.source, what, f"this section needs the {what} table")
        _check(df, [c for c in cols if c != "game" or which == 0], what, self.source)
        idx = self._parts[k] if (which == 1 or self.games_df is None) else self._seat_parts.get(k, np.zeros(0, dtype=np.int64))
        return {c: self._col(which, c)[idx] for c in cols}

    def chunks(self, seats, games, wanted):
        self._index()
        players = self._cells["players"].to_numpy()
        for k in range(len(self._cells)):
            if wanted is not None and k not in wanted:
                continue
            n = int(players[k])
            g = s = None
            if games or not seats:
                g = self._block(1, k, list(dict.fromkeys(["game", *games])))
                order = _sorted_rows(g["game"])
                if order is not None:
                    g = {c: v[order] for c, v in g.items()}
            if seats:
                s = self._block(0, k, list(dict.fromkeys(["game", "seat", *seats])))
                order = _sorted_rows(s["game"], s["seat"])
                if order is not None:
                    s = {c: v[order] for c, v in s.items()}
                s = _as_matrix(s, n, g["game"] if g is not None else None, self.source)
            size = len(g["game"]) if g is not None else len(s["game"])
            step = self.chunk_games or max(size, 1)
            for a in range(0, max(size, 1), step):
                b = min(a + step, size)
                yield Chunk(k, n, {c: g[c][a:b] for c in games} if g is not None else {},
                            {c: s[c][a:b] for c in seats} if s is not None else {})

    def frames(self):
        return self.seats_df, self.games_df


ROW_TEXT = ("strategy", "winner_strategy")


def _is_text(series):
    if str(series.dtype).startswith(("str", "string", "category")) or series.dtype.kind in "US":
        return True
    return series.dtype.kind == "O" and (len(series) == 0 or isinstance(series.iloc[0], str))


def _plain(series):
    """A column as a numpy array (text as ``str`` objects)."""
    if series.dtype.kind in "iub":
        return series.to_numpy()
    if series.dtype.kind == "f":
        return series.to_numpy()
    return np.asarray(series.astype(str).to_numpy(dtype=object), dtype=object)


def _check(df, columns, what, source):
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ReportInputError(source, what, f"columns missing from the {what} table: {', '.join(missing[:8])}")


# =========================================================================== the front doors


def load_run(results_dir, allow_partial=False):
    """Read a run directory for a report.

    Raises :class:`ReportInputError` when the directory is missing or holds no run, when it was
    written in another result format, when its manifest is damaged (naming the key), when a chunk
    file is damaged (naming the file), when the run is unfinished (manifest status other than
    complete, or chunk files missing) unless ``allow_partial``, and when it holds no game.
    Every chunk's footer (its columns and row count) and the cells of its games file are checked
    here; the sections read the columns they use through :meth:`RunData.scan`.
    """
    out_dir = Path(results_dir)
    manifest_path = out_dir / R.MANIFEST
    try:
        manifest = R.read_manifest(out_dir)
    except DataError as exc:
        raise ReportInputError(exc.file, exc.key, exc.reason) from None
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        age = "an older" if isinstance(version, int) and version < FORMAT_VERSION else "another"
        raise ReportInputError(
            manifest_path,
            "format_version",
            f"written in {age} result format ({version}); these reports read format {FORMAT_VERSION}: "
            "run the scenario again with this version",
        )
    try:
        plan = R.check_manifest(manifest, manifest_path)
        from scenarios.record_check import check_sequential_record

        check_sequential_record(manifest, out_dir)  # a sequential run is judged from its record
    except DataError as exc:
        raise ReportInputError(exc.file, exc.key, exc.reason) from None
    nchunks = len(plan)
    done = sorted(R.done_chunks(out_dir, nchunks))
    status = manifest.get("status")
    reasons = []
    if status != R.STATUS_COMPLETE:
        reasons.append(f"status is '{status}', not '{R.STATUS_COMPLETE}'")
    if len(done) < nchunks:
        missing = sorted(set(range(nchunks)) - set(done))
        shown = ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else "")
        reasons.append(f"{len(done)} of {nchunks} chunks on disk (missing {shown})")
    partial = bool(reasons)
    reason = "; ".join(reasons)
    if partial and not allow_partial:
        raise ReportInputError(
            manifest_path,
            "status",
            f"the run is unfinished ({reason}): resume it with `ssb run ... --resume`, "
            "or report what is there with --allow-partial",
        )
    reader = _DirReader(out_dir, manifest, plan, done)
    reader.check()
    run = RunData(manifest, str(out_dir), partial, reason, reader=reader)
    if run.games_count == 0:
        raise ReportInputError(out_dir, "", "the run holds no finished game yet: nothing to report")
    return run


def declared_columns(manifest):
    """``(seat columns, game columns)`` a run's manifest declares, else those of the game it names
    (``scenarios.schema``), else the default game's."""
    cols = manifest.get("columns") or {}
    if not cols.get("seats") and manifest.get("game"):
        from scenarios import schema
        from simulator import games as registry

        game = registry.get(manifest["game"], key="game")
        cols = {"seats": schema.seat_columns(game), "games": schema.game_columns(game), **cols}
    return tuple(cols.get("seats") or SEAT_COLUMNS), tuple(cols.get("games") or GAME_COLUMNS)


def from_frames(seats, games, manifest=None, source="tables", partial=False, chunk_games=None):
    """Wrap hand-made tables (tests, notebooks) as :class:`RunData` after the same column check (the
    columns ``manifest`` declares, else the default game's); ``chunk_games`` cuts each cell into
    chunks of that many games (as a run directory's files)."""
    seat_cols, game_cols = declared_columns(manifest or {})
    _check(seats, seat_cols, "seats", source)
    _check(games, game_cols, "games", source)
    if len(games) == 0:
        raise ReportInputError(source, "", "no game in the tables: nothing to report")
    return RunData(manifest, source, partial, reader=_FrameReader(seats, games, chunk_games, source))


def tables_of(seats=None, games=None):
    """The :class:`RunData` a section reads: ``seats`` (or ``games``) itself when it is one, else the
    given DataFrames wrapped (no column check: a section asks only for the columns it uses)."""
    for x in (seats, games):
        if isinstance(x, RunData):
            return x
    return RunData(reader=_FrameReader(seats, games))
