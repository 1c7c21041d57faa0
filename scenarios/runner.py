"""Run a scenario: plan chunks of games, play them in parallel, write result tables, keep a manifest.

::

    scenario.toml --load/validate--> cells --plan--> chunks (contiguous game ranges of one cell)
         |                                              | joblib: loky processes, or dask.distributed
         v                                              v
    manifest.json (status running)          worker: GameSetup per cell, play_many per rotation,
         ^                                          DataFrames -> Parquet bytes
         |                                              |
    status complete <--- all chunks on disk <--- parent: seats/ games/ chunk-XXXXX.parquet (atomic)

A game's seed depends only on (run seed, cell key, deal) (``simulator.seeds``), so the tables are
the same whatever the worker count, chunk size or backend. A chunk's files appear under their final
names only when complete, so an interrupted run (Ctrl-C, kill -9) resumed with ``resume=True``
plays only the missing chunks and ends with the same tables as an uninterrupted run.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from scenarios.results import (
    GAMES_DIR,
    damaged_chunks,
    MANIFEST,
    SEATS_DIR,
    STATUS_COMPLETE,
    STATUS_RUNNING,
    TABLE_DIRS,
    RunDirError,
    check_format,
    chunk_paths,
    done_chunks,
    read_manifest,
    write_atomic,
    write_manifest,
)
from scenarios.load import load_scenario, scenario_from_doc
from scenarios.schema import FORMAT_VERSION
from scenarios.worker import ChunkTask, parent_token, play_chunk
from simulator.errors import DataError
from simulator.provenance import code_version

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


# =========================================================================== identity of a run


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
    }


def _now():
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _new_manifest(scenario, plan, chunk_size, data, code):
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
            "created": _now(),
            "finished": None,
            "wall_seconds": 0.0,
            "games_played": 0,
            "games_per_second": None,
            "runs": [],
        },
    }


def _compare(old, new, out_dir):
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


# =========================================================================== the output directory


def _has_tables(out_dir):
    for d in TABLE_DIRS:
        folder = out_dir / d
        if folder.is_dir() and any(n.endswith((".parquet", ".tmp")) for n in os.listdir(folder)):
            return True
    return False


def _clear(out_dir):
    """Remove what a run and its default report write (manifest, chunk files, ``report/``), nothing
    else: a report of the old run beside the new tables would describe games no longer there."""
    (out_dir / MANIFEST).unlink(missing_ok=True)
    report = out_dir / REPORT_DIR
    if report.is_dir() and not report.is_symlink():
        shutil.rmtree(report)
    for d in TABLE_DIRS:
        folder = out_dir / d
        if not folder.is_dir():
            continue
        for name in os.listdir(folder):
            if name.endswith((".parquet", ".tmp")):
                (folder / name).unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()


def _remove_temporaries(out_dir):
    for d in TABLE_DIRS:
        folder = out_dir / d
        if folder.is_dir():
            for name in os.listdir(folder):
                if name.startswith(".") and name.endswith(".tmp"):
                    (folder / name).unlink(missing_ok=True)


@contextlib.contextmanager
def _locked(out_dir):
    """Hold the folder's write lock (scenarios.writelock: a stale lock of a dead process is taken
    over, a live writer refused with its pid)."""
    from scenarios.writelock import folder_lock

    with folder_lock(out_dir):
        yield


def _previous(out_dir, new, resume, force):
    """``(manifest of the run to continue or None, whether to clear the directory first)``.

    Refuses to overwrite a run; writes nothing."""
    path = out_dir / MANIFEST
    if not path.exists():
        if _has_tables(out_dir) and not force:
            raise RunDirError(
                out_dir, "", "holds result tables but no manifest; choose another --out or use --force to replace them"
            )
        return None, force
    if force:
        return None, True
    old = read_manifest(out_dir)
    if resume:
        _compare(old, new, out_dir)
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


# =========================================================================== dispatch


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


_dispatcher = dispatcher  # the older private name: run_scenario calls it (tests replace it)


def _progress_bar(total, initial, desc, enabled):
    from tqdm import tqdm

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


# =========================================================================== the API


def resolve_jobs(jobs):
    """``None``/0/negative -> all cores."""
    if jobs is None or jobs <= 0:
        return os.cpu_count() or 1
    return int(jobs)


def run_scenario(
    scenario,
    out_dir=None,
    *,
    jobs=1,
    games=None,
    seed=None,
    sets=(),
    backend="local",
    scheduler=None,
    resume=False,
    force=False,
    chunk_size=None,
    progress=None,
    announce=None,
):
    """Play a scenario and write its result tables to ``out_dir`` (default ``results/<name>``).

    ``scenario`` is a path, the name of a shipped scenario, or a :class:`Scenario`. ``games`` (per
    cell), ``seed`` and ``sets`` (``"KEY=VALUE"`` strings) change the scenario before validation.
    ``backend`` is ``"local"`` (``jobs`` loky processes; 1 plays in this process) or ``"dask"``
    (a ``dask.distributed`` scheduler at ``scheduler``, or a local cluster of ``jobs`` workers).
    ``resume`` continues an interrupted run of the same scenario, playing only missing chunks;
    ``force`` replaces whatever run the directory holds. ``progress``: a progress bar on stderr
    (default: when stderr is a terminal). ``announce``: called with a one-line notice (the first
    compile of the kernel, a damaged chunk to be played again); default: printed on stderr.
    Returns a :class:`RunSummary`.

    Before any worker starts, the kernel is compiled (if it is not cached yet) in this process, so
    that workers only load it; with a remote ``scheduler`` the workers compile on their machines.

    Raises :class:`simulator.errors.DataError` (a bad scenario, naming file and key) or
    :class:`scenarios.results.RunDirError` (a directory that holds another run) before writing anything.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise ValueError("a scheduler address needs backend='dask'")
    if resume and force:
        raise ValueError("resume and force exclude each other")
    jobs = resolve_jobs(jobs)

    if not isinstance(scenario, (str, Path)):  # an already loaded scenario (any game)
        if games is not None or seed is not None or sets:
            scenario = scenario_from_doc(scenario.doc, scenario.path, sets=sets, games=games, seed=seed)
    else:
        scenario = load_scenario(scenario, sets=sets, games=games, seed=seed)

    if announce is None:
        announce = _stderr_line
    if out_dir is None:
        out_dir = RESULTS_ROOT / scenario.name
        root = RESULTS_ROOT.resolve()
        if out_dir.resolve().parent != root:
            raise DataError(scenario.path, "name", f"'{scenario.name}' would write outside {RESULTS_ROOT}/")
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise RunDirError(out_dir, "", "exists and is not a directory")

    if getattr(scenario, "sequential", None) is not None:  # rounds until each verdict is decided
        from scenarios.sequential import run_sequential

        return run_sequential(scenario, out_dir, jobs=jobs, backend=backend, scheduler=scheduler, resume=resume,
                              force=force, chunk_size=chunk_size, progress=progress, announce=announce)
    data = scenario.data_files()
    code = code_version(scenario.game)
    if chunk_size is None and resume and (out_dir / MANIFEST).is_file():
        try:
            chunk_size = int(read_manifest(out_dir)["chunks"]["size"])
        except (KeyError, TypeError, ValueError, RunDirError):
            chunk_size = None
    chunk_size = int(chunk_size or DEFAULT_CHUNK_SIZE)
    if chunk_size < 1:
        raise DataError("--chunk-size", "", "must be at least 1")
    plan = plan_chunks(scenario.cells, chunk_size)
    manifest = _new_manifest(scenario, plan, chunk_size, data, code)

    out_dir.mkdir(parents=True, exist_ok=True)
    with _locked(out_dir):
        old, clear = _previous(out_dir, manifest, resume, force)
        compile_seconds = 0.0 if scheduler else compile_in_parent(scenario, announce)
        # Connect to the workers before changing anything on disk: a scheduler that cannot be
        # reached leaves the directory as it was.
        with _dispatcher(backend, jobs, scheduler) as dispatch:
            if clear:
                _clear(out_dir)
            if old is not None:
                manifest["timings"] = old.get("timings", manifest["timings"])
                manifest["timings"].setdefault("runs", [])
            _remove_temporaries(out_dir)
            for d in (SEATS_DIR, GAMES_DIR):
                (out_dir / d).mkdir(exist_ok=True)
            done = done_chunks(out_dir, len(plan)) if old is not None else set()
            if done:
                done -= set(_drop_damaged(out_dir, manifest, done, announce))
            return _execute(
                scenario,
                out_dir,
                manifest,
                plan,
                done,
                dispatch,
                jobs,
                backend,
                scheduler,
                progress,
                old is not None,
                compile_seconds=compile_seconds,
            )


def _stderr_line(message):
    print(message, file=sys.stderr, flush=True)


def compile_in_parent(scenario, announce=_stderr_line):
    """Compile the kernel here, before any worker starts, if it is not cached yet: one game of the
    scenario's first cell through the workers' own code path, after a one-line notice. Returns the
    seconds spent compiling (0.0 when it was cached)."""
    from simulator import games
    from simulator.warmup import compile_once

    game = games.get(scenario.game)
    cell = scenario.cells[0]
    spec = scenario.cell_specs(run_id="compile")[cell.index]
    task = ChunkTask(chunk=-1, spec=spec, start=0, stop=1, run_seed=scenario.seed)
    return compile_once(lambda: play_chunk(task), announce, entry=game.kernel_entry, what=game.kernel_what())


def _drop_damaged(out_dir, manifest, done, announce):
    """Chunks on disk that cannot be read back: named, removed, and so played again."""
    bad = damaged_chunks(out_dir, manifest, done)
    for c, exc in sorted(bad.items()):
        announce(f"{exc.file}: {exc.reason.split(';')[0]}: playing chunk {c} again")
        for path in chunk_paths(out_dir, c):
            path.unlink(missing_ok=True)
    return bad


def _execute(
    scenario, out_dir, manifest, plan, done, dispatch, jobs, backend, scheduler, progress, resumed, compile_seconds=0.0
):
    timings = manifest["timings"]
    run_entry = {
        "started": _now(),
        "resumed": resumed,
        "backend": backend,
        "jobs": jobs,
        "scheduler": scheduler,
        "chunks_skipped": len(done),
        "compile_seconds": round(compile_seconds, 1),
        "worker_compiles": 0,
        "games": 0,
        "wall_seconds": 0.0,
        "finished": None,
    }
    timings["runs"].append(run_entry)
    manifest["status"] = STATUS_RUNNING
    write_manifest(out_dir, manifest)

    cells = {c.index: c for c in scenario.cells}
    run_id = hashlib.sha256(
        json.dumps([scenario.sha256, file_hashes(manifest["data_files"]), manifest["code"]["kernel_sha256"]]).encode()
    ).hexdigest()
    specs = scenario.cell_specs(run_id)
    todo = [row for row in plan if row[0] not in done]
    total = sum(c.games for c in cells.values())
    skipped_games = sum(row[3] - row[2] for row in plan if row[0] in done)
    # Workers on this machine watch this process and exit when it dies (no orphans).
    token = None if scheduler else parent_token()
    tasks = (
        ChunkTask(chunk=k, spec=specs[c], start=a, stop=b, run_seed=scenario.seed, parent=token)
        for k, c, a, b in todo
    )
    compiles = {}

    if progress is None:
        progress = sys.stderr.isatty()
    bar = _progress_bar(total, skipped_games, scenario.name, progress)
    t0 = time.perf_counter()
    played = 0

    def account(final):
        wall = time.perf_counter() - t0
        run_entry["games"] = played
        run_entry["wall_seconds"] = round(wall, 3)
        run_entry["games_per_second"] = round(played / wall, 1) if wall > 0 else None
        if final:
            run_entry["finished"] = _now()
        timings["wall_seconds"] = round(sum(r.get("wall_seconds", 0.0) for r in timings["runs"]), 3)
        timings["games_played"] = sum(r.get("games", 0) for r in timings["runs"])
        timings["games_per_second"] = (
            round(timings["games_played"] / timings["wall_seconds"], 1) if timings["wall_seconds"] > 0 else None
        )
        return wall

    try:
        if todo:
            flushed = t0
            for res in dispatch(tasks):
                seats_path, games_path = chunk_paths(out_dir, res.chunk)
                write_atomic(seats_path, res.seats)
                write_atomic(games_path, res.table_games)
                played += res.games
                if res.pid != os.getpid():  # a compile in this process is the parent's own
                    compiles[res.pid] = res.compiles
                run_entry["worker_compiles"] = sum(compiles.values())
                bar.update(res.games)
                if time.perf_counter() - flushed > MANIFEST_EVERY:
                    # Keep the timings roughly current, should the run be killed.
                    account(final=False)
                    write_manifest(out_dir, manifest)
                    flushed = time.perf_counter()
    except BaseException:
        bar.close()
        account(final=False)
        write_manifest(out_dir, manifest)
        raise
    bar.close()

    missing = set(range(len(plan))) - done_chunks(out_dir, len(plan))
    if missing:
        account(final=False)
        write_manifest(out_dir, manifest)
        raise RunDirError(out_dir, "chunks", f"{len(missing)} chunks missing after the run: {sorted(missing)[:10]}")
    wall = account(final=True)
    manifest["status"] = STATUS_COMPLETE
    timings["finished"] = _now()
    write_manifest(out_dir, manifest)
    return RunSummary(
        out_dir=out_dir,
        scenario=scenario.name,
        status=STATUS_COMPLETE,
        cells=len(scenario.cells),
        chunks=len(plan),
        chunks_skipped=len(done),
        games_total=total,
        games_played=played,
        wall_seconds=wall,
        manifest=manifest,
    )
