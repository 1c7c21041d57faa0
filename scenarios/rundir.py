"""The run directory of a scenario: its manifest, its chunk tables, its lock, and what a resume
keeps; the dispatcher that plays chunks on local processes or a dask cluster, and the compile
before the workers start. Both run loops, the fixed-count one (:mod:`scenarios.runner`) and the
sequential one (:mod:`scenarios.sequential`), build on these.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from scenarios.results import (
    damaged_chunks,
    MANIFEST,
    STATUS_COMPLETE,
    STATUS_RUNNING,
    TABLE_DIRS,
    RunDirError,
    check_format,
    chunk_paths,
    read_manifest,
)
from scenarios.schema import FORMAT_VERSION
from scenarios.worker import ChunkTask, play_chunk

DEFAULT_CHUNK_SIZE = 1000
RESULTS_ROOT = Path("results")
BACKENDS = ("local", "dask")
LOCK_FILE = ".lock"
REPORT_DIR = "report"  # what `ssb report` writes inside a run directory by default
MANIFEST_EVERY = 15.0  # seconds between manifest updates during a run


@dataclass
class RunSummary:
    """What a call to :func:`run_scenario` did."""

    out_dir: Path
    scenario: str
    status: str
    cells: int
    chunks: int
    chunks_skipped: int  # already on disk (resume)
    games_total: int
    games_played: int  # by this call
    wall_seconds: float
    manifest: dict

    @property
    def games_per_second(self):
        return self.games_played / self.wall_seconds if self.wall_seconds > 0 else 0.0


def plan_chunks(cells, chunk_size):
    """``[chunk, cell, start, stop]`` rows: each cell's games cut into ranges of ``chunk_size``."""
    if chunk_size < 1:
        raise ValueError("chunk size must be at least 1")
    plan = []
    for cell in cells:
        for start in range(0, cell.games, chunk_size):
            plan.append([len(plan), cell.index, start, min(start + chunk_size, cell.games)])
    return plan


def file_hashes(data):
    return {
        "board": data["board"]["sha256"],
        **{f"instrument {k}": v["sha256"] for k, v in data["instruments"].items()},
        **{f"strategy {k}": v["sha256"] for k, v in data["strategies"].items()},
        # A leaf a search fits on its setting (a game's data files may name some): its coefficients.
        **{f"leaf {k}": v["coef_sha256"] for k, v in data.get("leaf_fits", {}).items()},
        # A leaf a search holds at its file's fit on every setting: its coefficients.
        **{f"leaf {k}": v["coef_sha256"] for k, v in data.get("leaves", {}).items()},
    }


def now():
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def new_manifest(scenario, plan, chunk_size, data, code):
    return {
        "format_version": FORMAT_VERSION,
        "status": STATUS_RUNNING,
        "scenario": {
            "name": scenario.name,
            "description": scenario.description,
            "file": str(scenario.path),
            "sha256": scenario.sha256,
            "text": scenario.text,
        },
        "settings": {**scenario.settings(), "chunk_size": chunk_size},
        "run_seed": scenario.seed,
        "totals": {"cells": len(scenario.cells), "games": scenario.total_games, "chunks": len(plan)},
        "cells": [c.as_dict() for c in scenario.cells],
        "chunks": {"size": chunk_size, "plan": plan},
        "data_files": data,
        "code": code,
        "game": scenario.game,
        "columns": scenario.columns(),
        "timings": {
            "created": now(),
            "finished": None,
            "wall_seconds": 0.0,
            "games_played": 0,
            "games_per_second": None,
            "runs": [],
        },
    }


def compare_manifests(old, new, out_dir):
    """Refuse to resume into a run that is not the same run."""
    path = Path(out_dir) / MANIFEST
    check_format(old, path)
    o_sc, n_sc = old.get("scenario", {}), new["scenario"]
    if o_sc.get("sha256") != n_sc["sha256"]:
        raise RunDirError(
            out_dir,
            "scenario.sha256",
            f"holds a run of another scenario or settings ('{o_sc.get('name')}', sha256 "
            f"{str(o_sc.get('sha256'))[:12]}); this one is '{n_sc['name']}', sha256 {n_sc['sha256'][:12]}. "
            "Resume with the same scenario and settings, choose another --out, or start over with --force",
        )
    o_plan = old.get("chunks", {})
    if o_plan.get("plan") != new["chunks"]["plan"]:
        raise RunDirError(
            out_dir,
            "chunks",
            f"the chunk plan differs from the run on disk (chunks of {o_plan.get('size')} games there, "
            f"{new['chunks']['size']} asked): resume without --chunk-size, or start over with --force",
        )
    o_hash, n_hash = (
        file_hashes(old.get("data_files", {"board": {}, "instruments": {}, "strategies": {}})),
        file_hashes(new["data_files"]),
    )
    changed = sorted(k for k in set(o_hash) | set(n_hash) if o_hash.get(k) != n_hash.get(k))
    if changed:
        raise RunDirError(
            out_dir,
            "data_files",
            f"data changed since the run started ({', '.join(changed)}); the tables would mix two versions: "
            "start over with --force",
        )
    if old.get("code", {}).get("kernel_sha256") != new["code"]["kernel_sha256"]:
        raise RunDirError(
            out_dir,
            "code.kernel_sha256",
            "the rules kernel changed since the run started; the tables would mix two versions: start over with --force",
        )


def has_tables(out_dir):
    for d in TABLE_DIRS:
        folder = out_dir / d
        if folder.is_dir() and any(n.endswith((".parquet", ".tmp")) for n in os.listdir(folder)):
            return True
    return False


# The strong judge's proof writes its own tables (scenarios.sequential_proof).
PROOF_TABLE_DIRS = tuple(f"proof/{d}" for d in TABLE_DIRS)


def clear_tables(out_dir):
    """Remove what a run and its default report write (manifest, chunk files, the proof's, ``report/``),
    nothing else: a report of the old run beside the new tables would describe games no longer there."""
    (out_dir / MANIFEST).unlink(missing_ok=True)
    report = out_dir / REPORT_DIR
    if report.is_dir() and not report.is_symlink():
        shutil.rmtree(report)
    for d in TABLE_DIRS + PROOF_TABLE_DIRS + ("proof",):
        folder = out_dir / d
        if not folder.is_dir():
            continue
        for name in os.listdir(folder):
            if name.endswith((".parquet", ".tmp")):
                (folder / name).unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()


def remove_temporaries(out_dir):
    for d in TABLE_DIRS + PROOF_TABLE_DIRS:
        folder = out_dir / d
        if folder.is_dir():
            for name in os.listdir(folder):
                if name.startswith(".") and name.endswith(".tmp"):
                    (folder / name).unlink(missing_ok=True)


@contextlib.contextmanager
def locked(out_dir):
    """Hold the folder's write lock (scenarios.writelock: a stale lock of a dead process is taken
    over, a live writer refused with its pid)."""
    from scenarios.writelock import folder_lock

    with folder_lock(out_dir):
        yield


def refuse_links(out_dir):
    """Refuse a run folder whose manifest, table folders or report folder is a symbolic link (or
    not what it should be): a run writes and ``--force`` removes only inside its own folder."""
    out_dir = Path(out_dir)
    parts = [(MANIFEST, "file"), *[(d, "folder") for d in TABLE_DIRS + ("proof",) + PROOF_TABLE_DIRS], (REPORT_DIR, "folder")]
    for name, kind in parts:
        p = out_dir / name
        if p.is_symlink():
            raise RunDirError(
                p, "", f"is a symbolic link (to {os.readlink(p)}); a run writes only inside its own folder: "
                "remove the link, or choose another --out")
        if p.exists() and (p.is_dir() if kind == "file" else not p.is_dir()):
            raise RunDirError(p, "", f"is not a {kind}; remove it, or choose another --out")


def previous_run(out_dir, new, resume, force):
    """``(manifest of the run to continue or None, whether to clear the directory first)``.

    Refuses to overwrite a run, and a folder with linked parts (:func:`refuse_links`); a resumed
    sequential run's record is checked against its chunk plan first. Writes nothing."""
    refuse_links(out_dir)
    path = out_dir / MANIFEST
    if not path.exists():
        if has_tables(out_dir) and not force:
            raise RunDirError(
                out_dir, "", "holds result tables but no manifest; choose another --out or use --force to replace them"
            )
        return None, force
    if force:
        return None, True
    old = read_manifest(out_dir)
    if resume:
        compare_manifests(old, new, out_dir)
        if "sequential" in new:
            from scenarios.record_check import check_sequential_record

            check_sequential_record(old, out_dir, expected=True, settings=new["sequential"].get("settings"))
        return old, False
    o_sc = old.get("scenario", {})
    same = o_sc.get("sha256") == new["scenario"]["sha256"]
    if old.get("status") == STATUS_COMPLETE:
        what = (
            "this scenario"
            if same
            else (f"scenario '{o_sc.get('name')}' with other settings (sha256 {str(o_sc.get('sha256'))[:12]})")
        )
        reason = f"holds a finished run of {what}; choose another --out, or use --force to replace it"
    elif same:
        reason = "holds an unfinished run of this scenario; continue it with --resume or start over with --force"
    else:
        reason = (
            f"holds a run of another scenario or settings ('{o_sc.get('name')}', sha256 {str(o_sc.get('sha256'))[:12]}); "
            "choose another --out, or use --force to replace it"
        )
    raise RunDirError(out_dir, "", reason)


@contextlib.contextmanager
def dispatcher(backend, jobs, scheduler):
    """A function mapping an iterable of tasks to an iterator of results (in completion order);
    shared by ``ssb run`` and ``ssb tune`` (a context manager: it starts and stops the workers)."""
    if backend == "local" and jobs == 1:
        yield lambda tasks: map(play_chunk, tasks)
        return
    from joblib import Parallel, delayed, parallel_config

    def run(tasks):
        return Parallel(return_as="generator_unordered")(delayed(play_chunk)(t) for t in tasks)

    if backend == "local":
        with parallel_config(backend="loky", n_jobs=jobs):
            yield run
        return

    from dask.distributed import Client, LocalCluster

    cluster = None
    if scheduler:
        client = Client(scheduler, timeout="15s")
    else:
        cluster = LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        )
        client = Client(cluster)
    try:
        with parallel_config(backend="dask", n_jobs=-1):
            yield run
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def progress_bar(total, initial, desc, enabled):
    """The run's progress on stderr: a tqdm bar when ``enabled`` is true, periodic one-line
    reports a log can read when it is ``"log"`` (:class:`scenarios.progress_log.LogProgress`),
    nothing when false."""
    from tqdm import tqdm

    if enabled == "log":
        from scenarios.progress_log import LogProgress

        return LogProgress(total, initial, desc)

    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit=" games",
        unit_scale=True,
        smoothing=0.05,
        dynamic_ncols=True,
        disable=not enabled,
        file=sys.stderr,
    )


def resolve_jobs(jobs):
    """``None``/0/negative -> all cores."""
    if jobs is None or jobs <= 0:
        return os.cpu_count() or 1
    return int(jobs)


def stderr_line(message):
    print(message, file=sys.stderr, flush=True)


def compile_in_parent(scenario, announce=stderr_line):
    """Compile the kernel here, before any worker starts, if it is not cached yet, so that the
    workers only load it: every entry point the game warms up (``Game.warm``: a cell of search
    players goes through ``play_game``), then one game of the scenario's first cell through the
    workers' own code path (with the run's record, whose entry points are its own), each after a
    one-line notice and counting its seconds. Returns the seconds spent compiling (0.0 when cached)."""
    from simulator import games
    from simulator.game_api import Lazy
    from simulator.warmup import compile_once, default_warm, entries_of

    game = games.get(scenario.game)
    seconds = 0.0
    for entry, play in (game.warm or default_warm)(game):
        seconds += compile_once(play, announce, entry=entry, what=f"{game.kernel_what()} ({entry.rpartition(':')[2]})")
    cell = scenario.cells[0]
    spec = scenario.cell_specs(run_id="compile")[cell.index]
    task = ChunkTask(chunk=-1, spec=spec, start=0, stop=1, run_seed=scenario.seed)
    entries = (game.kernel_entry,)
    lead = getattr(game, "play_batch_lead", None)
    if "lead" in getattr(spec, "record", ()) and isinstance(lead, Lazy):
        entries += entries_of(lead.module)
    what = game.kernel_what() + (" (the lead record)" if len(entries) > 1 else "")
    return seconds + compile_once(lambda: play_chunk(task), announce, entry=entries, what=what)


def drop_damaged(out_dir, manifest, done, announce):
    """Chunks on disk that cannot be read back: named, removed, and so played again."""
    bad = damaged_chunks(out_dir, manifest, done)
    for c, exc in sorted(bad.items()):
        announce(f"{exc.file}: {exc.reason.split(';')[0]}: playing chunk {c} again")
        for path in chunk_paths(out_dir, c):
            path.unlink(missing_ok=True)
    return bad
