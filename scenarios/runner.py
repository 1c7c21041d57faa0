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

import hashlib
import json
import os
import sys
import time
from pathlib import Path

from scenarios.results import (
    GAMES_DIR,
    MANIFEST,
    SEATS_DIR,
    STATUS_COMPLETE,
    STATUS_RUNNING,
    RunDirError,
    chunk_paths,
    done_chunks,
    read_manifest,
    write_atomic,
    write_manifest,
)
from scenarios.load import load_scenario, scenario_from_doc
from scenarios.worker import ChunkTask, parent_token
from simulator.errors import DataError
from simulator.provenance import code_version
from scenarios.rundir import (
    BACKENDS,
    DEFAULT_CHUNK_SIZE,
    MANIFEST_EVERY,
    RESULTS_ROOT,
    RunSummary,
    clear_tables,
    compile_in_parent,
    dispatcher,
    drop_damaged,
    file_hashes,
    locked,
    new_manifest,
    now,
    plan_chunks,
    previous_run,
    progress_bar,
    remove_temporaries,
    resolve_jobs,
    stderr_line,
)





# =========================================================================== identity of a run












# =========================================================================== the output directory












# =========================================================================== dispatch








# =========================================================================== the API




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
    (default: when stderr is a terminal); ``"log"``: a plain line every 30 s instead, for a log
    (:mod:`scenarios.progress_log`; what ``ssb run`` does off a terminal). ``announce``: called with a one-line notice (the first
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
        announce = stderr_line
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
    manifest = new_manifest(scenario, plan, chunk_size, data, code)

    out_dir.mkdir(parents=True, exist_ok=True)
    with locked(out_dir):
        old, clear = previous_run(out_dir, manifest, resume, force)
        compile_seconds = 0.0 if scheduler else compile_in_parent(scenario, announce)
        # Connect to the workers before changing anything on disk: a scheduler that cannot be
        # reached leaves the directory as it was.
        with dispatcher(backend, jobs, scheduler) as dispatch:
            if clear:
                clear_tables(out_dir)
            if old is not None:
                manifest["timings"] = old.get("timings", manifest["timings"])
                manifest["timings"].setdefault("runs", [])
            remove_temporaries(out_dir)
            for d in (SEATS_DIR, GAMES_DIR):
                (out_dir / d).mkdir(exist_ok=True)
            done = done_chunks(out_dir, len(plan)) if old is not None else set()
            if done:
                done -= set(drop_damaged(out_dir, manifest, done, announce))
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








def _execute(
    scenario, out_dir, manifest, plan, done, dispatch, jobs, backend, scheduler, progress, resumed, compile_seconds=0.0
):
    timings = manifest["timings"]
    run_entry = {
        "started": now(),
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
    bar = progress_bar(total, skipped_games, scenario.name, progress)
    t0 = time.perf_counter()
    played = 0

    def account(final):
        wall = time.perf_counter() - t0
        run_entry["games"] = played
        run_entry["wall_seconds"] = round(wall, 3)
        run_entry["games_per_second"] = round(played / wall, 1) if wall > 0 else None
        if final:
            run_entry["finished"] = now()
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
    timings["finished"] = now()
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
