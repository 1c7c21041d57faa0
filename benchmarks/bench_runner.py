"""Figures for the experiment runner (not part of the test run).

1. Overhead of the runner over the bare kernel: for a grid-sized chunk of one cell per player count,
   ``play_many`` on the chunk's seeds alone vs the whole worker path (tables, Parquet, atomic write).
2. Parallel efficiency: the same scenario with --jobs 1 and --jobs 2.
3. Peak memory of a large run streamed to disk: parent + worker processes (RSS, sampled), parent
   Python allocations (tracemalloc), and resource.getrusage maxima.
4. Wall time of grid.toml at a given number of games per cell.

Defaults finish in a few minutes on two cores. The big runs::

    .venv/bin/python benchmarks/bench_runner.py --only memory --memory-games 1000000
    .venv/bin/python benchmarks/bench_runner.py --only grid --grid-games 2000
"""

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scenarios.results import chunk_paths, write_atomic
from scenarios.runner import run_scenario
from scenarios.load import load_scenario
from simulator.seeds import deal_seeds
from scenarios.worker import ChunkTask, chunk_tables, parquet_bytes, play_chunk
from simulator.shuffle_swing.chunk import cell_setup
from simulator.shuffle_swing.library import STARTER
from simulator.shuffle_swing.playout import play_many


def line(label, value):
    print(f"  {label:<44} {value}")


# =========================================================================== 1. overhead


def bench_overhead(chunk, repeats):
    print(f"\n[1] runner overhead vs bare kernel: grid.toml cells (starter set), chunks of {chunk} games")
    sc = load_scenario("grid", games=chunk)
    specs = sc.cell_specs()
    cells = [c for c in sc.cells if c.instruments == STARTER]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "seats").mkdir()
        (out / "games").mkdir()
        for cell in cells:
            spec = specs[cell.index]
            n = cell.players
            task = ChunkTask(0, spec, 0, min(chunk, cell.games), sc.seed)
            play_chunk(ChunkTask(0, spec, 0, n, sc.seed))  # load the compiled kernel, build the setup

            games = np.arange(task.start, task.stop)
            seeds = deal_seeds(sc.seed, cell.key, range(int(games[-1] // n) + 1))[games // n]
            setup = cell_setup(spec.setup, n, (spec.run_id, cell.index))
            groups = []
            for r in range(n):
                idx = np.nonzero(games % n == r)[0]
                groups.append((spec.strategy_rows[[(s - r) % n for s in range(n)]], seeds[idx]))

            bare, full, tables, encode, write = [], [], [], [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                for strat, sd in groups:
                    play_many(setup, strat, sd)
                bare.append(time.perf_counter() - t0)

                t0 = time.perf_counter()
                res = play_chunk(task)
                a, b = chunk_paths(out, 0)
                write_atomic(a, res.seats)
                write_atomic(b, res.table_games)
                full.append(time.perf_counter() - t0)

                t0 = time.perf_counter()
                s_df, g_df = chunk_tables(task)
                t1 = time.perf_counter()
                sb, gb = parquet_bytes(s_df), parquet_bytes(g_df)
                t2 = time.perf_counter()
                write_atomic(a, sb)
                write_atomic(b, gb)
                t3 = time.perf_counter()
                tables.append(t1 - t0)
                encode.append(t2 - t1)
                write.append(t3 - t2)
            b_, f_ = min(bare), min(full)
            kernel_in_tables = b_
            print(f"  {n} players, {task.games} games ({b_ / task.games * 1e6:,.0f} us/game in the kernel):")
            line("bare play_many", f"{b_:.3f} s  ({task.games / b_:,.0f} games/s)")
            line("worker path + atomic write", f"{f_:.3f} s  ({task.games / f_:,.0f} games/s)")
            line("overhead", f"{(f_ - b_) / b_ * 100:+.1f} %  ({(f_ - b_) * 1e3:.1f} ms per chunk)")
            line("  of which tables (beyond the kernel)", f"{(min(tables) - kernel_in_tables) * 1e3:.1f} ms")
            line("  Parquet encoding", f"{min(encode) * 1e3:.1f} ms ({len(sb) + len(gb):,} bytes)")
            line("  write + fsync + rename", f"{min(write) * 1e3:.1f} ms")


# =========================================================================== 2. parallel efficiency


def bench_parallel(scenario, games, chunk_size):
    print(f"\n[2] parallel efficiency: {scenario}.toml, {games} games per cell, chunks of {chunk_size}")
    walls = {}
    with tempfile.TemporaryDirectory() as tmp:
        # Warm the loky pool once so both figures exclude the one-off worker start.
        run_scenario(scenario, Path(tmp) / "warm", jobs=2, games=8, progress=False)
        for jobs in (1, 2):
            t0 = time.perf_counter()
            s = run_scenario(
                scenario, Path(tmp) / f"j{jobs}", jobs=jobs, games=games, chunk_size=chunk_size, progress=False
            )
            walls[jobs] = time.perf_counter() - t0
            line(
                f"--jobs {jobs}",
                f"{walls[jobs]:.2f} s  ({s.games_total / walls[jobs]:,.0f} games/s, {s.games_total:,} games)",
            )
    speedup = walls[1] / walls[2]
    line("speed-up / efficiency on 2 workers", f"x{speedup:.2f} / {speedup / 2 * 100:.0f} %")
    line("cores on this machine", os.cpu_count())


# =========================================================================== 3. memory


class RssSampler(threading.Thread):
    """Peak resident memory of this process plus all its descendants, sampled."""

    def __init__(self, interval=0.1):
        super().__init__(daemon=True)
        import psutil

        self.proc = psutil.Process()
        self.interval = interval
        self.peak_total = 0
        self.peak_self = 0
        self.stop = threading.Event()

    def run(self):
        import psutil

        while not self.stop.is_set():
            try:
                own = self.proc.memory_info().rss
                total = own
                for c in self.proc.children(recursive=True):
                    try:
                        total += c.memory_info().rss
                    except psutil.Error:
                        pass
            except psutil.Error:
                continue
            self.peak_self = max(self.peak_self, own)
            self.peak_total = max(self.peak_total, total)
            self.stop.wait(self.interval)


def bench_memory(games, jobs, chunk_size):
    print(f"\n[3] peak memory: ci.toml, {games:,} games streamed to disk, --jobs {jobs}, chunks of {chunk_size}")
    sampler = RssSampler()
    with tempfile.TemporaryDirectory() as tmp:
        sampler.start()
        tracemalloc.start()
        t0 = time.perf_counter()
        s = run_scenario(
            "ci", Path(tmp) / "big", jobs=jobs, games=games, chunk_size=chunk_size, progress=sys.stderr.isatty()
        )
        wall = time.perf_counter() - t0
        _, py_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        sampler.stop.set()
        sampler.join()
        size = sum(p.stat().st_size for p in (Path(tmp) / "big").rglob("*.parquet"))
    mb = 1024 * 1024
    line("games / wall", f"{s.games_total:,} in {wall:.1f} s ({s.games_total / wall:,.0f} games/s)")
    line("result files on disk", f"{size / mb:.1f} MiB ({size / s.games_total:.0f} bytes/game)")
    line("peak RSS, parent (sampled)", f"{sampler.peak_self / mb:.0f} MiB")
    line("peak RSS, parent + workers (sampled)", f"{sampler.peak_total / mb:.0f} MiB")
    line("peak Python allocations, parent", f"{py_peak / mb:.1f} MiB (tracemalloc)")
    line(
        "getrusage maxrss self / largest child",
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} / "
        f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MiB (children: waited-for only)",
    )


# =========================================================================== 4. grid


def bench_grid(games, jobs):
    sc = load_scenario("grid", games=games)
    print(f"\n[4] grid.toml: {len(sc.cells)} cells x {games} games per cell = {sc.total_games:,} games, --jobs {jobs}")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        s = run_scenario(sc, Path(tmp) / "grid", jobs=jobs, progress=sys.stderr.isatty())
        wall = time.perf_counter() - t0
    line("wall time", f"{wall:.1f} s ({s.games_total / wall:,.0f} games/s, {s.chunks} chunks)")
    per_game = wall / s.games_total
    line("projected at 2,000 games per cell", f"{per_game * sc.total_games / games * 2000 / 60:.1f} min")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["overhead", "parallel", "memory", "grid"], action="append")
    ap.add_argument("--chunk", type=int, default=1000, help="games per chunk for the overhead figure")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--parallel-scenario", default="starter")
    ap.add_argument("--parallel-games", type=int, default=1200)
    ap.add_argument("--memory-games", type=int, default=40_000, help="1000000 for the big run")
    ap.add_argument("--grid-games", type=int, default=60, help="2000 for the full grid")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    todo = args.only or ["overhead", "parallel", "memory", "grid"]
    t0 = time.perf_counter()
    if "overhead" in todo:
        bench_overhead(args.chunk, args.repeats)
    if "parallel" in todo:
        bench_parallel(args.parallel_scenario, args.parallel_games, 250)
    if "memory" in todo:
        bench_memory(args.memory_games, args.jobs, 1000)
    if "grid" in todo:
        bench_grid(args.grid_games, args.jobs)
    print(f"\nbenchmarks done in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
