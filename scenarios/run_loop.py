"""The one run loop of every scenario and game: open the run directory, play what the play-next
policy asks for, keep the manifest's record of the run, close it.

::

    execute(scenario, out_dir, manifest, policy)
        lock the directory, check the previous run (resume / force), compile in this process,
        start the workers, clear or keep the tables; policy.adopt(old run)
        policy.drive(loop):   loop.play(rows) as often as the policy wants, e.g.
            EveryChunk        every chunk of the plan not on disk yet, in one go (``scenarios.runner``)
            SequentialRounds  rounds of chunks until each cell is decided (``scenarios.sequential``)
        policy.close(loop)    check that nothing is missing, record what the policy decided
        manifest status complete, RunSummary

The loop owns what every run records (the run entry of ``manifest["timings"]``, the run id that
keys the workers' caches, the progress bar, the chunk files written atomically); a policy owns
which chunks come next and what it learns from each result (:meth:`Policy.on_result`). A new way
of choosing the next games (say, verdicts of another kind deciding a cell) is a new policy or a
hook inside one, never another loop.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

from scenarios import results as R
from scenarios import rundir as RD
from scenarios.worker import ChunkTask, parent_token


class Policy:
    """What a play-next policy offers the loop (every method but :meth:`drive` may be left as is)."""

    # Extra fields of this run's entry in ``manifest["timings"]["runs"]`` (e.g. ``cpu_seconds``).
    run_fields: dict = {}
    # Chunks found on disk when the run starts (a resume), as the run entry records them.
    chunks_skipped: int = 0

    def adopt(self, loop, old):
        """The directory is open: ``old`` is the manifest of the run being resumed (None: a new run)."""

    def progress(self, loop):
        """``(total games, games already on disk)`` for the progress bar."""
        return 0, 0

    def drive(self, loop):
        """Play: call ``loop.play(rows)`` with chunk rows ``[chunk, cell, start, stop]``."""
        raise NotImplementedError

    def on_result(self, loop, result, cell):
        """One chunk's result arrived (``result``: :class:`scenarios.worker.ChunkResult`, of ``cell``)."""

    def close(self, loop):
        """Every round played: check the tables and record the outcome in the manifest (may raise)."""

    def summary(self, loop):
        """``(chunks, chunks skipped, games total)`` of the :class:`scenarios.rundir.RunSummary`."""
        raise NotImplementedError


def run_id_of(scenario, manifest):
    """What keys the workers' per-cell caches: the scenario text, its data files and the kernel."""
    return hashlib.sha256(
        json.dumps([scenario.sha256, RD.file_hashes(manifest["data_files"]), manifest["code"]["kernel_sha256"]]).encode()
    ).hexdigest()


class Loop:
    """The state of one call of :func:`execute` that a policy reads and plays through."""

    def __init__(self, scenario, out_dir, manifest, dispatch, jobs, scheduler, announce):
        self.scenario = scenario
        self.out_dir = Path(out_dir)
        self.manifest = manifest
        self.dispatch = dispatch
        self.jobs = jobs
        self.announce = announce
        self.cells = {c.index: c for c in scenario.cells}
        self.specs = scenario.cell_specs(run_id_of(scenario, manifest))
        self.token = None if scheduler else parent_token()  # workers here exit when this process dies
        self.run_entry = None
        self.played = 0
        self.compiles = {}
        self.bar = None
        self.t0 = time.perf_counter()

    def account(self, final):
        """Bring the run's timings up to date (``final``: the run ends now); returns its wall seconds."""
        timings, entry = self.manifest["timings"], self.run_entry
        wall = time.perf_counter() - self.t0
        entry["games"] = self.played
        entry["wall_seconds"] = round(wall, 3)
        entry["games_per_second"] = round(self.played / wall, 1) if wall > 0 else None
        if final:
            entry["finished"] = RD.now()
        timings["wall_seconds"] = round(sum(r.get("wall_seconds", 0.0) for r in timings["runs"]), 3)
        timings["games_played"] = sum(r.get("games", 0) for r in timings["runs"])
        timings["games_per_second"] = (
            round(timings["games_played"] / timings["wall_seconds"], 1) if timings["wall_seconds"] > 0 else None
        )
        return wall

    def save(self):
        """Write the manifest as it stands (atomically)."""
        R.write_manifest(self.out_dir, self.manifest)

    def play(self, rows, policy):
        """Play the chunk rows ``[chunk, cell, start, stop]`` (each written as it arrives)."""
        if not rows:
            return
        scenario = self.scenario
        tasks = (ChunkTask(chunk=k, spec=self.specs[c], start=a, stop=b, run_seed=scenario.seed, parent=self.token)
                 for k, c, a, b in rows)
        cell_of = {r[0]: r[1] for r in rows}
        flushed = time.perf_counter()
        for res in self.dispatch(tasks):
            seats_path, games_path = R.chunk_paths(self.out_dir, res.chunk)
            R.write_atomic(seats_path, res.seats)
            R.write_atomic(games_path, res.table_games)
            self.played += res.games
            policy.on_result(self, res, self.cells[cell_of[res.chunk]])
            if res.pid != os.getpid():  # a compile in this process is the parent's own
                self.compiles[res.pid] = res.compiles
            self.run_entry["worker_compiles"] = sum(self.compiles.values())
            self.bar.update(res.games)
            if time.perf_counter() - flushed > RD.MANIFEST_EVERY:
                # Keep the timings roughly current, should the run be killed.
                self.account(final=False)
                self.save()
                flushed = time.perf_counter()


def execute(scenario, out_dir, manifest, policy, *, jobs, backend, scheduler, resume, force, progress, announce,
            compare=None):
    """Play ``scenario`` into ``out_dir`` as ``policy`` asks; returns a :class:`scenarios.rundir.RunSummary`.

    ``manifest`` is the new run's (:func:`scenarios.rundir.new_manifest`); ``compare``, when given,
    is what a resumed run's manifest is checked against instead (a sequential run whose budget was
    raised). Nothing on disk changes before the previous run is checked and the workers are reached."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with RD.locked(out_dir):
        old, clear = RD.previous_run(out_dir, compare or manifest, resume, force)
        compile_seconds = 0.0 if scheduler else RD.compile_in_parent(scenario, announce)
        # Connect to the workers before changing anything on disk: a scheduler that cannot be
        # reached leaves the directory as it was.
        with RD.dispatcher(backend, jobs, scheduler) as dispatch:
            if clear:
                RD.clear_tables(out_dir)
            if old is not None:
                manifest["timings"] = old.get("timings", manifest["timings"])
                manifest["timings"].setdefault("runs", [])
            RD.remove_temporaries(out_dir)
            for d in (R.SEATS_DIR, R.GAMES_DIR):
                (out_dir / d).mkdir(exist_ok=True)
            loop = Loop(scenario, out_dir, manifest, dispatch, jobs, scheduler, announce)
            policy.adopt(loop, old)
            return _run(loop, policy, backend, scheduler, progress, old is not None, compile_seconds)


def _run(loop, policy, backend, scheduler, progress, resumed, compile_seconds):
    manifest = loop.manifest
    timings = manifest["timings"]
    loop.run_entry = {
        "started": RD.now(), "resumed": resumed, "backend": backend, "jobs": loop.jobs, "scheduler": scheduler,
        "chunks_skipped": 0, "compile_seconds": round(compile_seconds, 1), "worker_compiles": 0,
        "games": 0, "wall_seconds": 0.0, **policy.run_fields, "finished": None,
    }
    timings["runs"].append(loop.run_entry)
    manifest["status"] = R.STATUS_RUNNING
    total, skipped = policy.progress(loop)
    loop.run_entry["chunks_skipped"] = policy.chunks_skipped
    loop.save()
    if progress is None:
        progress = sys.stderr.isatty()
    loop.bar = RD.progress_bar(total, skipped, loop.scenario.name, progress)
    loop.t0 = time.perf_counter()
    try:
        policy.drive(loop)
    except BaseException:
        loop.bar.close()
        loop.account(final=False)
        loop.save()
        raise
    loop.bar.close()
    try:
        policy.close(loop)
    except BaseException:
        loop.account(final=False)
        loop.save()
        raise
    wall = loop.account(final=True)
    manifest["status"] = R.STATUS_COMPLETE
    timings["finished"] = RD.now()
    loop.save()
    chunks, chunks_skipped, games_total = policy.summary(loop)
    return RD.RunSummary(
        out_dir=loop.out_dir, scenario=loop.scenario.name, status=R.STATUS_COMPLETE, cells=len(loop.scenario.cells),
        chunks=chunks, chunks_skipped=chunks_skipped, games_total=games_total, games_played=loop.played,
        wall_seconds=wall, manifest=manifest,
    )
