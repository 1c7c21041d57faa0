"""Reading a run directory for the reports: the result tables, the manifest, and whether it is whole.

The run layout and the column contract belong to ``scenarios`` (``scenarios.results``,
``scenarios.schema``); neither imports the kernel. This adapter adds what a report needs on top:
a clear refusal of a missing, unfinished or older-format directory (:class:`ReportInputError`,
a ``DataError`` with file, key and reason), a PARTIAL flag when an unfinished run is read on
purpose, and a check that every column the run's game declares (its manifest records them; a
manifest without them is the default game's) is there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from scenarios import results as R
from scenarios.schema import FORMAT_VERSION, GAME_COLUMNS, SEAT_COLUMNS
from simulator.errors import DataError


class ReportInputError(DataError):
    """The results given to a report cannot be reported: ``str()`` reads ``FILE: KEY: reason``."""


@dataclass
class RunData:
    """The tables of one run, as the report sections read them."""

    seats: pd.DataFrame
    games: pd.DataFrame
    manifest: dict = field(default_factory=dict)
    source: str = ""
    partial: bool = False
    partial_reason: str = ""

    @property
    def scenario_name(self):
        return str(self.manifest.get("scenario", {}).get("name", "")) or Path(self.source).name or "results"


def _check_columns(df, columns, what, source):
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ReportInputError(source, what, f"columns missing from the {what} table: {', '.join(missing[:8])}")


def load_run(results_dir, allow_partial=False):
    """Read a run directory for a report.

    Raises :class:`ReportInputError` when the directory is missing or holds no run, when it was
    written in another result format, when its manifest is damaged (naming the key), when a chunk
    file is damaged (naming the file), when the run is unfinished (manifest status other than
    complete, or chunk files missing) unless ``allow_partial``, and when it holds no game.
    Every chunk is read through ``scenarios.results.read_chunks``, the one checked way in.
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
    try:
        seats, games = R.read_chunks(out_dir, done, manifest)
    except DataError as exc:
        raise ReportInputError(exc.file, exc.key, exc.reason) from None
    except OSError as exc:
        raise ReportInputError(out_dir, "", f"cannot read the result tables: {exc}") from None
    seat_cols, game_cols = declared_columns(manifest)
    _check_columns(seats, seat_cols, "seats", out_dir / R.SEATS_DIR)
    _check_columns(games, game_cols, "games", out_dir / R.GAMES_DIR)
    if len(games) == 0:
        raise ReportInputError(out_dir, "", "the run holds no finished game yet: nothing to report")
    return RunData(
        seats=seats, games=games, manifest=manifest, source=str(out_dir), partial=partial, partial_reason=reason
    )


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


def from_frames(seats, games, manifest=None, source="tables", partial=False):
    """Wrap hand-made tables (tests, notebooks) as :class:`RunData` after the same column check (the
    columns ``manifest`` declares, else the default game's)."""
    seat_cols, game_cols = declared_columns(manifest or {})
    _check_columns(seats, seat_cols, "seats", source)
    _check_columns(games, game_cols, "games", source)
    if len(games) == 0:
        raise ReportInputError(source, "", "no game in the tables: nothing to report")
    return RunData(seats=seats, games=games, manifest=dict(manifest or {}), source=str(source), partial=partial)
