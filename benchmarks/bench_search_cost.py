"""What a search game costs against a greedy game: a search mirror and one search seat, same process.

    .venv/bin/python benchmarks/bench_search_cost.py [--players 2,3,4] [--greedy-games 400]
                                                     [--search-games 12] [--runs 5] [--strategy search]

For each player count, one run times, on the same deal seeds (starter set, shuffled wheels):

* ``greedy`` in every seat (``--greedy-games`` games): the reference;
* ``--strategy`` in every seat (a mirror, ``--search-games`` games);
* one ``--strategy`` seat among greedy seats (``--search-games`` games, the seat rotated over the
  games so every seat takes its turn).

The cost of a lineup is its seconds per game over greedy's seconds per game in the same run; the
figure printed is the median over ``--runs`` runs (each run replays the same games; the benchmark
checks they come out identical). Absolute times on a shared machine mean little, the ratios more;
the CPU model is read from /proc/cpuinfo. The kernel is compiled before the first timing.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.seeds import game_seed  # noqa: E402
from simulator.shuffle_swing.playout import GameSetup, play_many  # noqa: E402
from simulator.shuffle_swing.strategies import StrategyLibrary  # noqa: E402


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def timed(setup, strat, seeds):
    t0 = time.perf_counter()
    states, bad = play_many(setup, strat, seeds)
    dt = time.perf_counter() - t0
    assert len(bad) == 0
    return dt / len(seeds), states


def one_seat(setup, lib, name, seeds):
    """Per game seconds of one ``name`` seat among greedy seats, the seat rotated over the games."""
    n = setup.nplayers
    total, states = 0.0, []
    for seat in range(n):
        names = ["greedy"] * n
        names[seat] = name
        part = seeds[seat::n]
        if len(part) == 0:
            continue
        dt, st = timed(setup, lib.matrix(names), part)
        total += dt * len(part)
        states.append(st)
    return total / len(seeds), np.concatenate(states)


def measure(players, greedy_games, search_games, runs, name, seed=20261201):
    lib = StrategyLibrary()
    setup = GameSetup(nplayers=players)
    seeds = np.array([game_seed(seed + players, i) for i in range(max(greedy_games, search_games))], dtype=np.uint64)
    greedy = lib.matrix(["greedy"] * players)
    mirror = lib.matrix([name] * players)
    play_many(setup, greedy, seeds[:2])  # compile / load the kernel before timing
    play_many(setup, mirror, seeds[:1])
    one_seat(setup, lib, name, seeds[:players])
    rows, first = [], None
    for _ in range(runs):
        g, _ = timed(setup, greedy, seeds[:greedy_games])
        m, ms = timed(setup, mirror, seeds[:search_games])
        o, os_ = one_seat(setup, lib, name, seeds[:search_games])
        digest = (ms.tobytes(), os_.tobytes())
        if first is None:
            first = digest
        assert digest == first, "the replayed games differ between runs"
        rows.append((m / g, o / g, g))
    return {
        "players": players,
        "mirror": statistics.median(r[0] for r in rows),
        "mirror_all": [r[0] for r in rows],
        "one_seat": statistics.median(r[1] for r in rows),
        "one_seat_all": [r[1] for r in rows],
        "greedy_ms": 1000 * statistics.median(r[2] for r in rows),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--greedy-games", type=int, default=400)
    ap.add_argument("--search-games", type=int, default=12)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--strategy", default="search")
    a = ap.parse_args(argv)
    print(f"CPU: {cpu_model()}; {a.strategy} against greedy, same process, median of {a.runs} runs "
          f"({a.greedy_games} greedy games, {a.search_games} {a.strategy} games per lineup per run)")
    for p in (int(x) for x in a.players.split(",")):
        r = measure(p, a.greedy_games, a.search_games, a.runs, a.strategy)
        spread = lambda xs: f"{min(xs):.0f}-{max(xs):.0f}"  # noqa: E731
        print(f"{p} players: mirror x{r['mirror']:.0f} greedy (runs {spread(r['mirror_all'])}), one seat among "
              f"greedy x{r['one_seat']:.0f} (runs {spread(r['one_seat_all'])}); greedy {r['greedy_ms']:.2f} ms/game")


if __name__ == "__main__":
    main()
