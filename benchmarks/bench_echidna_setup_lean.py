"""Echidna Shuffle's third judge at a fraction of the cost: strength head to head and mirror cost.

    .venv/bin/python benchmarks/bench_echidna_setup_lean.py --pairs setup-lean:setup-search \\
        [--players 2,4] [--boards forest,snow] [--deals 100] [--seed 3001] [--no-cost] [--no-strength]
    .venv/bin/python benchmarks/bench_echidna_setup_lean.py --no-strength --cost setup-lean,setup-search \\
        [--cost-deals 6] [--runs 3]

Strength: ``A:B`` plays A and B splitting the seats (1-1 at 2 players, 2-2 at 4), every distinct seat
arrangement of each deal on that deal's seed, as the ladder does (``ssb strategies ladder``), so
par is 50% and seat advantages cancel. A deal's score is A's share of the wins over its
arrangements (a stalled game half to each side); the interval (95%, Student t) takes the deal as the
independent unit (``strategies.tune.deal_interval``). Rungs take parameters the ladder's way
(``setup-lean@setup_horizon=2``).

Cost: CPU seconds per game of a 4-player mirror of each rung on the forest board over a greedy
mirror's, both on the same deals in this process, alternating, the median of ``--runs``
repetitions (``time.process_time``: a loaded machine's other processes are left out); the greedy
mirror plays the same deals repeated until it has run about as long.
"""

import argparse
import json
import platform
import statistics
import time

import numpy as np

from simulator.echidna.board import EchidnaSetup
from simulator.echidna.layout import S_WINNER
from simulator.echidna.playout import play_many
from simulator.echidna.strategies import EchidnaStrategyLibrary, parse_rung
from simulator.seeds import stage_seeds
from strategies.ladder import arrangements
from strategies.tune import deal_interval


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def head_to_head(lib, a, b, n, board, deals, seed):
    """A's share of the wins against B (seats split), per deal, and its interval."""
    setup = EchidnaSetup(n, board)
    ra, rb = parse_rung(a, lib).row(), parse_rung(b, lib).row()
    seeds = stage_seeds(seed, f"setup-lean {board}", n, deals)
    arr = arrangements(n)
    share = np.zeros(deals)
    for seats in arr:
        strat = np.array([ra if s else rb for s in seats])
        states, _ = play_many(setup, strat, seeds)
        w = states[:, S_WINNER]
        a_seats = np.array([q for q, s in enumerate(seats) if s])
        share += np.isin(w, a_seats) + 0.5 * (w < 0)
    m, lo, hi = deal_interval(share, len(arr))
    return {"pair": f"{a}:{b}", "players": n, "board": board, "deals": deals, "seed": seed,
            "share": round(m, 4), "lo": round(lo, 4), "hi": round(hi, 4)}


def mirror_cost(lib, rungs, deals, runs, seed):
    """Per rung: the median over ``runs`` of its 4-player mirror's CPU seconds per game over greedy's."""
    setup = EchidnaSetup(4, "forest")
    seeds = stage_seeds(seed, "setup-lean cost", 4, deals)
    g = np.repeat(lib.get("greedy").row()[None, :], 4, axis=0)
    play_many(setup, g, seeds[:2])

    def timed(strat, times=1):
        t = time.process_time()
        for _ in range(times):
            play_many(setup, strat, seeds)
        return (time.process_time() - t) / (times * deals)

    g_per = timed(g, 20)
    out = {}
    for spec in rungs:
        strat = np.repeat(parse_rung(spec, lib).row()[None, :], 4, axis=0)
        play_many(setup, strat, seeds[:1])  # compiled before the clock
        ratios = []
        for _ in range(runs):
            per = timed(strat)
            reps = max(1, int(round(per / g_per)))
            ratios.append(per / timed(g, reps))
        out[spec] = {"ratio": round(statistics.median(ratios), 1), "runs": [round(r, 1) for r in ratios], "deals": deals}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default="setup-lean:setup-search", help="comma-separated A:B")
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--boards", default="forest,snow")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=3001)
    ap.add_argument("--cost", default="lookahead,setup-lean,setup-search", help="rungs whose mirror cost is timed")
    ap.add_argument("--cost-deals", type=int, default=6)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-cost", action="store_true")
    ap.add_argument("--no-strength", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    lib = EchidnaStrategyLibrary()
    result = {"cpu": cpu_model(), "seed": args.seed}
    if not args.no_strength:
        rows = []
        for pair in args.pairs.split(","):
            a, b = pair.split(":")
            for board in args.boards.split(","):
                for n in (int(v) for v in args.players.split(",")):
                    r = head_to_head(lib, a, b, n, board, args.deals, args.seed)
                    rows.append(r)
                    print(f"{r['pair']:45s} {board:6s} {n}p {r['deals']} deals: {100 * r['share']:.1f}% "
                          f"[{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]", flush=True)
        result["strength"] = rows
    if not args.no_cost:
        cost = mirror_cost(lib, args.cost.split(","), args.cost_deals, args.runs, args.seed)
        for spec, c in cost.items():
            print(f"cost {spec:40s} x{c['ratio']:.1f} a greedy mirror (runs {c['runs']}, {c['deals']} deals, "
                  f"CPU time, median)", flush=True)
        result["cost"] = cost
    print(f"CPU: {result['cpu']}")
    if args.json:
        print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
