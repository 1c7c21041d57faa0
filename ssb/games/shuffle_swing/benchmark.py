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

from simulator.shuffle_swing.layout import S_DECISIONS, S_TURN, S_WINNER
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary

# Child-process probe: plays GAMES games and prints one JSON line with the time it took.
_PROBE = """
import json, sys, time
t0 = time.perf_counter()
from simulator.shuffle_swing.playout import GameSetup, play_many
from simulator.seeds import game_seed
from simulator.shuffle_swing.strategies import StrategyLibrary
setup = GameSetup(nplayers={players})
strat = StrategyLibrary().matrix([{lineup}])
t1 = time.perf_counter()
states, _ = play_many(setup, strat, [game_seed({seed}, i) for i in range({games})])
t2 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "play_s": t2 - t1, "turns": int(states[:, 1].sum())}}))
"""


def _lineup_matrix(names):
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


def jit_speedup(players=4, lineup=("greedy",) * 4, games=3, seed=3, batches=5):
    """Same games, jitted kernel versus the interpreted one (``NUMBA_DISABLE_JIT=1``).

    The interpreted child plays ``games`` games once; this process plays the very same games (the
    turn counts are checked to agree), each about 300 / ``games`` times per batch, in ``batches``
    timed batches, and keeps the fastest."""
    code = _PROBE.format(players=players, lineup=",".join(repr(x) for x in lineup), seed=seed, games=games)
    interp = _child(code, {"NUMBA_DISABLE_JIT": "1"})
    setup = GameSetup(nplayers=players)
    strat = _lineup_matrix(list(lineup))
    seeds = np.array([game_seed(seed, i) for i in range(games)], dtype=np.uint64)
    states, _ = play_many(setup, strat, seeds)  # compile or load from cache
    turns = int(states[:, S_TURN].sum())
    if turns != interp["turns"]:
        raise RuntimeError(f"interpreted and jitted kernels played different games ({interp['turns']} vs {turns} turns)")
    # Each timed batch plays the same games many times over, so that the call's fixed cost vanishes.
    batch = np.tile(seeds, max(1, 300 // games))
    best = float("inf")
    for _ in range(batches):
        t = time.perf_counter()
        play_many(setup, strat, batch)
        best = min(best, time.perf_counter() - t)
    interp_per_game = interp["play_s"] / games
    jit_per_game = best / len(batch)
    return {
        "games": games,
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
            f"JIT speed-up: {j['speedup']:.0f}x on the same {j['games']} games "
            f"({j['interpreted_s_per_game']:.2f} s/game interpreted, {j['jit_s_per_game'] * 1e3:.2f} ms/game jitted)"
        )
    if "compile" in fig:
        c = fig["compile"]
        lines.append(f"compile + first game: cold {c['cold_s']:.1f} s, cached {c['cached_s']:.1f} s")
    if "ssb_play_cached_s" in fig:
        lines.append(f"`ssb play` with a warm cache: {fig['ssb_play_cached_s']:.2f} s")
    return "\n".join(lines)


# =========================================================================== speed relative to this machine
#
# An absolute games/s figure says as much about the machine as about the code, so a saved figure
# cannot gate a change measured on another computer. ``relative_speed`` times the kernel together
# with a fixed pure-Python reference loop in the same process, interleaved, and reports each
# workload's games/s *per million reference iterations/s*: a faster or slower machine moves both
# and the ratio stays put, while a slower kernel moves only the numerator.

SPEED_FORMAT = "ssb-engine-speed"
SPEED_VERSION = 1
DEFAULT_RATIO = 0.8
# (name, player count, lineup): the same lineups as the per-core figures above.
SPEED_WORKLOADS = (
    ("greedy_4p", 4, ("greedy",) * 4),
    ("greedy_vs_3_random", 4, ("greedy", "random", "random", "random")),
    ("random_4p", 4, ("random",) * 4),
)
REFERENCE_ITERATIONS = 300_000


def reference_loop(iterations=REFERENCE_ITERATIONS):
    """A fixed pure-Python workload (xorshift, table look-ups, branches); returns a checksum.

    Scalar integer work with data-dependent branches, the same kind of work as the rules kernel, so
    its speed follows the machine's single-core speed. Never change it: saved figures depend on it.
    """
    table = list(range(97))
    x = 88172645463325252
    acc = 0
    mask = (1 << 64) - 1
    for _ in range(iterations):
        x ^= (x << 13) & mask
        x ^= x >> 7
        x ^= (x << 17) & mask
        k = x % 97
        if k & 1:
            acc += table[k]
        else:
            table[k] = (table[k] + 1) % 1000
            acc -= 1
    return acc


def _cpu_model():
    """The CPU's model name (Linux: from /proc/cpuinfo), or None."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip() or None
    except OSError:
        pass
    return platform.processor() or None


def _machine():
    import platform

    import numba

    return {
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
    }


def relative_speed(games=300, repeat=5, seed=11):
    """Each workload's games/s divided by the reference loop's millions of iterations/s (best of ``repeat``).

    The reference and the workloads are timed in turn within each repetition, so a passing
    disturbance (another process, frequency scaling) hits both sides alike; the best time of each
    is kept.
    """
    jobs = []
    for name, n, lineup in SPEED_WORKLOADS:
        setup = GameSetup(nplayers=n)
        strat = _lineup_matrix(list(lineup))
        seeds = np.array([game_seed(seed, i) for i in range(games)], dtype=np.uint64)
        play_many(setup, strat, seeds[:2])  # compile or load from cache
        jobs.append((name, setup, strat, seeds))
    reference_loop(REFERENCE_ITERATIONS // 10)
    best_ref = float("inf")
    best = {name: (float("inf"), None) for name, *_ in jobs}
    for _ in range(repeat):
        t = time.perf_counter()
        reference_loop()
        best_ref = min(best_ref, time.perf_counter() - t)
        for name, setup, strat, seeds in jobs:
            t = time.perf_counter()
            states, _ = play_many(setup, strat, seeds)
            dt = time.perf_counter() - t
            if dt < best[name][0]:
                best[name] = (dt, states)
    ref_rate = REFERENCE_ITERATIONS / best_ref / 1e6  # million iterations per second
    out = {
        "format": SPEED_FORMAT,
        "version": SPEED_VERSION,
        "games": games,
        "seed": seed,
        "repeat": repeat,
        "reference": {"iterations": REFERENCE_ITERATIONS, "seconds": best_ref, "mega_iterations_per_s": ref_rate},
        "machine": _machine(),
        "workloads": {},
    }
    for name, _, _, _ in jobs:
        dt, states = best[name]
        gps = games / dt
        decisions = float(states[:, S_DECISIONS].sum())
        out["workloads"][name] = {
            "games_per_s": gps,
            "decisions_per_s": decisions / dt,
            "turns_per_game": float(states[:, S_TURN].mean()),
            "relative": gps / ref_rate,
            "relative_decisions": decisions / dt / ref_rate,
        }
    return out


def save_speed(fig, path):
    """Write the figures of :func:`relative_speed` as JSON."""
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(fig, indent=2) + "\n", encoding="utf-8")


def load_speed(path):
    """Saved figures of :func:`relative_speed` (ValueError with the reason if unusable)."""
    from pathlib import Path

    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable speed baseline: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != SPEED_FORMAT or doc.get("version") != SPEED_VERSION:
        raise ValueError(f"{path}: not a speed baseline written by `ssb bench --save` (format {SPEED_FORMAT})")
    return doc


def compare_speed(now, saved, ratio=DEFAULT_RATIO):
    """Each workload's relative speed now over the saved one; ``slow`` when below ``ratio``.

    Returns ``{"ratio": ratio, "rows": [...], "slow": bool, "notes": [...]}``.
    """
    rows = []
    for name, w in now["workloads"].items():
        old = saved.get("workloads", {}).get(name)
        if not old:
            continue
        r = w["relative"] / old["relative"]
        rows.append(
            {
                "workload": name,
                "relative_saved": old["relative"],
                "relative_now": w["relative"],
                "ratio": r,
                "turns_per_game_saved": old.get("turns_per_game"),
                "turns_per_game_now": w["turns_per_game"],
                "slow": r < ratio,
            }
        )
    notes = []
    m0, m1 = saved.get("machine", {}), now.get("machine", {})
    for key in ("python", "numba", "numpy"):
        if m0.get(key) != m1.get(key):
            notes.append(f"{key} {m0.get(key)} when saved, {m1.get(key)} now: the reference may not cancel exactly")
    if m0.get("cpu") != m1.get("cpu"):
        # Interpreted Python and compiled code do not scale alike from one CPU model to another.
        notes.append(
            f"CPU {m0.get('cpu') or 'not recorded'} when saved, {m1.get('cpu') or 'unknown'} now: the reference "
            "cancels the machine's speed on one CPU model, not across models; save again on this one"
        )
    if now.get("games") != saved.get("games") or now.get("seed") != saved.get("seed"):
        notes.append("other games than the saved figures (games or seed differ)")
    return {"ratio": ratio, "rows": rows, "slow": any(r["slow"] for r in rows), "notes": notes}


def format_speed(now, cmp=None):
    """Lines for :func:`relative_speed` figures, and the comparison with saved ones if given."""
    ref = now["reference"]
    lines = [f"reference loop: {ref['mega_iterations_per_s']:.2f} M iterations/s (pure Python, same process)"]
    rows = {r["workload"]: r for r in (cmp or {}).get("rows", [])}
    for name, w in now["workloads"].items():
        line = (
            f"{name:20s} {w['games_per_s']:8.0f} games/s  relative {w['relative']:8.1f}  "
            f"({w['turns_per_game']:.1f} turns/game)"
        )
        if name in rows:
            r = rows[name]
            line += f"  vs saved {r['relative_saved']:8.1f}: x{r['ratio']:.2f}" + ("  SLOWER" if r["slow"] else "")
        lines.append(line)
    if cmp is not None:
        lines += [f"note: {n}" for n in cmp["notes"]]
        verdict = "slowdown beyond" if cmp["slow"] else "no slowdown beyond"
        lines.append(f"{verdict} the ratio {cmp['ratio']:g} (relative speed now / saved, per workload)")
    return "\n".join(lines)
