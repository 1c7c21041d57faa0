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

from pathlib import Path

from scenarios.results import MANIFEST, RunDirError, done_chunks, read_manifest
from scenarios.load import load_scenario, scenario_from_doc
from scenarios.run_loop import Policy, execute
from simulator.errors import DataError
from simulator.provenance import code_version
from scenarios.rundir import (  # noqa: F401  (dispatcher, file_hashes, plan_chunks, resolve_jobs: importable from here)
    BACKENDS,
    DEFAULT_CHUNK_SIZE,
    RESULTS_ROOT,
    RunSummary,
    dispatcher,
    drop_damaged,
    file_hashes,
    new_manifest,
    plan_chunks,
    resolve_jobs,
    stderr_line,
)


class EveryChunk(Policy):
    """The play-next policy of a fixed count of games per cell: every chunk of the plan that is not
    on disk yet, in one go."""

    def __init__(self, plan):
        self.plan = plan
        self.done = set()

    def adopt(self, loop, old):
        done = done_chunks(loop.out_dir, len(self.plan)) if old is not None else set()
        if done:
            done -= set(drop_damaged(loop.out_dir, loop.manifest, done, loop.announce))
        self.done = done
        self.chunks_skipped = len(done)

    def progress(self, loop):
        total = sum(c.games for c in loop.scenario.cells)
        return total, sum(row[3] - row[2] for row in self.plan if row[0] in self.done)

    def drive(self, loop):
        loop.play([row for row in self.plan if row[0] not in self.done], self)

    def close(self, loop):
        missing = set(range(len(self.plan))) - done_chunks(loop.out_dir, len(self.plan))
        if missing:
            raise RunDirError(loop.out_dir, "chunks", f"{len(missing)} chunks missing after the run: {sorted(missing)[:10]}")

    def summary(self, loop):
        return len(self.plan), len(self.done), sum(c.games for c in loop.scenario.cells)


def look_plan(cells, looks, chunk_size):
    """Chunk rows ``[chunk, cell, start, stop]`` of ``cells`` in growing prefixes of their deals:
    every cell's games of its first ``looks[0]`` deals, then up to ``looks[1]`` deals, ..., then the
    rest; each part cut into chunks of at most ``chunk_size`` games and numbered in that order, so
    the rows of the first k looks are the plan's first rows (a run cut there is a whole run of
    ``looks[k-1]`` deals a cell). Also returns the rows each look ends at."""
    plan, ends = [], []
    done = {c.index: 0 for c in cells}
    for n in (*looks, None):
        for c in cells:
            stop = c.games if n is None else min(n * c.rotations, c.games)
            for a in range(done[c.index], stop, chunk_size):
                plan.append([len(plan), c.index, a, min(a + chunk_size, stop)])
            done[c.index] = max(done[c.index], stop)
        ends.append(len(plan))
    return plan, ends[:-1]


class PrefixLooks(EveryChunk):
    """Every chunk of a look plan (:func:`look_plan`), one look after the other: after the games of
    each early look are on disk (the manifest saved), ``stop(out_dir, look)`` says whether the run
    ends there (a regression gate decided on those deals). Then the run *is* that prefix: its plan,
    cells and totals are cut to the deals it played, and ``manifest["looks"]`` says where it stopped.
    A game's seed depends only on its deal, so the stop is the same whatever ``--jobs``."""

    def __init__(self, plan, ends, looks, stop):
        super().__init__(plan)
        self.ends, self.looks, self.stop = list(ends), list(looks), stop

    def _look(self, loop, rows, look):
        loop.play([r for r in rows if r[0] not in self.done], self)
        self.done |= {r[0] for r in rows}
        loop.manifest["looks"]["played"] = look
        loop.account(final=False)
        loop.save()

    def drive(self, loop):
        for k, end in enumerate(self.ends):
            self._look(loop, self.plan[:end], k + 1)
            if self.stop(loop.out_dir, k + 1):
                self._cut(loop, k)
                return
        self._look(loop, self.plan, len(self.ends) + 1)

    def _cut(self, loop, k):
        man, n = loop.manifest, self.looks[k]
        self.plan = self.plan[: self.ends[k]]
        man["chunks"]["plan"] = self.plan
        for c in man["cells"]:
            c["deals"] = min(int(c["deals"]), n)
            c["games"] = c["deals"] * int(c["rotations"])
        man["totals"].update(games=sum(c["games"] for c in man["cells"]), chunks=len(self.plan))
        man["looks"]["stopped_early"] = True

    def summary(self, loop):
        return len(self.plan), self.chunks_skipped, sum(r[3] - r[2] for r in self.plan)


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
    looks=(),
    stop=None,
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
    ``looks`` (deals a cell, increasing, each below the scenario's) with ``stop(out_dir, look)``:
    play the deals in growing prefixes and end the run at the first look ``stop`` says is enough
    (:class:`PrefixLooks`; the manifest's ``looks`` records them). Returns a :class:`RunSummary`.

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

    data = _data_files(scenario, announce)
    code = code_version(scenario.game)
    if chunk_size is None and resume and (out_dir / MANIFEST).is_file():
        try:
            chunk_size = int(read_manifest(out_dir)["chunks"]["size"])
        except (KeyError, TypeError, ValueError, RunDirError):
            chunk_size = None
    chunk_size = int(chunk_size or DEFAULT_CHUNK_SIZE)
    if chunk_size < 1:
        raise DataError("--chunk-size", "", "must be at least 1")
    compare = None
    if looks and (getattr(scenario, "sequential", None) is not None or stop is None):
        raise DataError("--looks", ",".join(map(str, looks)), "looks go with a fixed count of games and a stopping rule")
    if getattr(scenario, "sequential", None) is not None:  # rounds until each verdict is decided
        from scenarios.sequential import sequential_run

        manifest, policy, compare = sequential_run(scenario, out_dir, chunk_size, data, code, resume)
    elif looks:  # growing prefixes of the deals, until ``stop`` says enough
        if list(looks) != sorted(set(looks)) or looks[0] < 1 or looks[-1] >= min(c.deals for c in scenario.cells):
            raise DataError("--looks", ",".join(map(str, looks)), "expected increasing deal counts, each at least 1 "
                            f"and below the run's {min(c.deals for c in scenario.cells):,} deals a cell")
        plan, ends = look_plan(scenario.cells, looks, chunk_size)
        manifest = new_manifest(scenario, plan, chunk_size, data, code)
        manifest["looks"] = {"deals": [*map(int, looks), min(c.deals for c in scenario.cells)],
                             "split": len(looks) + 1, "played": 0, "stopped_early": False}
        policy = PrefixLooks(plan, ends, looks, stop)
    else:  # every chunk of a fixed count of games per cell
        plan = plan_chunks(scenario.cells, chunk_size)
        manifest, policy = new_manifest(scenario, plan, chunk_size, data, code), EveryChunk(plan)
    return execute(scenario, out_dir, manifest, policy, jobs=jobs, backend=backend, scheduler=scheduler,
                   resume=resume, force=force, progress=progress, announce=announce, compare=compare)


def _data_files(scenario, announce):
    """The scenario's data files (``Scenario.data_files``), said while their games compile the kernel:
    a leaf fitted on the setting plays its games first (``simulator.shuffle_swing.leaf_fit``), and on a
    cold cache that compiles most of the kernel before the run's own compile (``simulator.warmup``)."""
    from simulator import games
    from simulator.warmup import watch_compiles

    game = games.get(scenario.game)
    module = game.kernel_entry.rpartition(":")[0] or game.kernel_module
    with watch_compiles(f"{module}:data_files", f"{game.kernel_what()} (the games the scenario's data needs first)",
                        echo=announce):
        return scenario.data_files()
