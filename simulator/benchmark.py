"""Engine throughput figures: games and decisions per second, JIT speed-up, compile times, play quality.

Used by ``ssb bench`` and ``benchmarks/bench_engine.py``. Timings run in this process for the jitted
kernel and in child processes for the interpreted kernel (``NUMBA_DISABLE_JIT=1``) and for the cold and
cached compile times (a fresh, then a warm, ``NUMBA_CACHE_DIR``).
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from simulator.layout import S_DECISIONS, S_TURN, S_WINNER
from simulator.playout import GameSetup, game_seed, play_many

# Child-process probe: plays GAMES games and prints one JSON line with the time it took.
_PROBE = """
import json, sys, time
t0 = time.perf_counter()
from simulator.playout import GameSetup, game_seed, play_many
from strategies.library import StrategyLibrary
setup = GameSetup(nplayers={players})
strat = StrategyLibrary().matrix([{lineup}])
t1 = time.perf_counter()
states, _ = play_many(setup, strat, [game_seed({seed}, i) for i in range({games})])
t2 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "play_s": t2 - t1, "turns": int(states[:, 1].sum())}}))
"""


def _lineup_matrix(names):
    from strategies.library import StrategyLibrary

    return StrategyLibrary().matrix(names)


def throughput(setup, names, games, seed=1, repeat=3):
    """Best-of-``repeat`` games/s, turns/s and decisions/s of one lineup in this process."""
    strat = _lineup_matrix(names)
    seeds = np.array([game_seed(seed, i) for i in range(games)], dtype=np.uint64)
    play_many(setup, strat, seeds[:2])  # compile or load from cache
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        states, _ = play_many(setup, strat, seeds)
        dt = time.perf_counter() - t
        if best is None or dt < best[0]:
            best = (dt, states)
    dt, states = best
    return {
        "lineup": ",".join(names),
        "games": games,
        "seconds": dt,
        "games_per_s": games / dt,
        "turns_per_game": float(states[:, S_TURN].mean()),
        "decisions_per_s": float(states[:, S_DECISIONS].sum()) / dt,
    }


def win_rate_vs_random(setup, hero, games, seed=2):
    """Win rate of ``hero`` against random players, the hero in every seat in turn."""
    n = setup.nplayers
    wins = 0
    total = 0
    for seat in range(n):
        names = ["random"] * n
        names[seat] = hero
        seeds = [game_seed(seed + seat, i) for i in range(games)]
        states, _ = play_many(setup, _lineup_matrix(names), seeds)
        wins += int((states[:, S_WINNER] == seat).sum())
        total += len(seeds)
    return wins / total


def _child(code, env_extra, timeout=900):
    env = dict(os.environ)
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def jit_speedup(players=4, lineup=("greedy",) * 4, games=3, seed=3):
    """Same games, jitted kernel versus the interpreted one (``NUMBA_DISABLE_JIT=1``)."""
    code = _PROBE.format(players=players, lineup=",".join(repr(x) for x in lineup), seed=seed, games=games)
    interp = _child(code, {"NUMBA_DISABLE_JIT": "1"})
    jit_games = max(games, 200)
    setup = GameSetup(nplayers=players)
    fast = throughput(setup, list(lineup), jit_games, seed=seed, repeat=2)
    interp_per_game = interp["play_s"] / games
    jit_per_game = fast["seconds"] / jit_games
    return {
        "interpreted_s_per_game": interp_per_game,
        "jit_s_per_game": jit_per_game,
        "speedup": interp_per_game / jit_per_game,
    }


def compile_times(players=4):
    """Seconds to import and play one game with an empty on-disk cache (cold) and a warm one."""
    code = _PROBE.format(players=players, lineup="'greedy'," * players, seed=1, games=1)
    with tempfile.TemporaryDirectory() as cache:
        cold = _child(code, {"NUMBA_CACHE_DIR": cache})
        warm = _child(code, {"NUMBA_CACHE_DIR": cache})
    return {
        "cold_s": cold["import_s"] + cold["play_s"],
        "cached_s": warm["import_s"] + warm["play_s"],
    }


def cli_start_time():
    """Wall time of ``ssb play`` (4 players, seed 7) with the cache warm, best of three."""
    cmd = [sys.executable, "-m", "ssb.cli", "play", "--players", "4", "--seed", "7"]
    subprocess.run(cmd, capture_output=True, check=True)
    best = None
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best


def run_all(games=2000, quick=False):
    """Every engine figure as one dictionary."""
    if quick:
        games = min(games, 200)
    out = {"per_core": {}, "players": {}}
    setup4 = GameSetup(nplayers=4)
    out["per_core"]["greedy_4p"] = throughput(setup4, ["greedy"] * 4, games)
    out["per_core"]["random_4p"] = throughput(setup4, ["random"] * 4, games)
    out["per_core"]["greedy_vs_3_random"] = throughput(setup4, ["greedy", "random", "random", "random"], games)
    for n in (2, 3):
        out["players"][f"greedy_{n}p"] = throughput(GameSetup(nplayers=n), ["greedy"] * n, games)
    out["greedy_win_rate_vs_3_random"] = win_rate_vs_random(setup4, "greedy", max(50, games // 8))
    if not quick:
        out["jit"] = jit_speedup()
        out["compile"] = compile_times()
        out["ssb_play_cached_s"] = cli_start_time()
    return out


def format_report(fig):
    """Human-readable lines for the figures of ``run_all``."""
    lines = []
    for key, r in {**fig["per_core"], **fig["players"]}.items():
        lines.append(
            f"{key:22s} {r['games_per_s']:9.0f} games/s  {r['decisions_per_s']:11.0f} decisions/s  "
            f"{r['turns_per_game']:6.1f} turns/game"
        )
    lines.append(f"greedy win rate vs 3 random: {fig['greedy_win_rate_vs_3_random']:.1%}")
    if "jit" in fig:
        j = fig["jit"]
        lines.append(
            f"JIT speed-up: {j['speedup']:.0f}x ({j['interpreted_s_per_game']:.2f} s/game interpreted, "
            f"{j['jit_s_per_game'] * 1e3:.2f} ms/game jitted)"
        )
    if "compile" in fig:
        c = fig["compile"]
        lines.append(f"compile + first game: cold {c['cold_s']:.1f} s, cached {c['cached_s']:.1f} s")
    if "ssb_play_cached_s" in fig:
        lines.append(f"`ssb play` with a warm cache: {fig['ssb_play_cached_s']:.2f} s")
    return "\n".join(lines)
