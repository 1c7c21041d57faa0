"""Where a greedy turn spends its time: microseconds per call of each part of the kernel.

    .venv/bin/python benchmarks/profile_turn.py [--players 4] [--games 60] [--every 40]

Plays ``--games`` greedy games, keeps every ``--every``-th state at the start of a turn (a sample small
enough to stay in the CPU caches, as a live game's state does), then times, over that sample:
the whole turn, the listing of candidates, the greedy choice, one construct estimate per department,
the inspector route search by pips with the inspector on and off the board, and the playing out of
the chosen move by kind of action. Each figure is the best of five timed loops.
"""

import argparse
import time

import numpy as np
from numba import njit

from simulator.kernel_common import rng_next
from simulator.shuffle_swing.kernel.engine import (
    MAX_CAND,
    choose_turn,
    enumerate_turns,
    execute_turn,
    play_turn,
    setup_game,
)
from simulator.shuffle_swing.kernel.policy import OCC_SIZE, construct_estimate, occupancy
from simulator.shuffle_swing.kernel.routes import enter_values, search_routes
from simulator.shuffle_swing.layout import (
    CHEESE,
    CONSTRUCT,
    INSPECT,
    MAX_SPACES,
    N_DEPT,
    N_SLICES,
    REFRESH,
    S_CUR,
    S_INSPECTOR,
    S_OVER,
    S_SLICE_ACTION,
    S_TOKENS,
    STATE_SIZE,
)
from simulator.shuffle_swing.playout import GameSetup
from simulator.shuffle_swing.strategies import StrategyLibrary

BRAG = 3  # kind code for "brag instead of acting" in the table of choices


@njit
def candidate_buffers():
    """Spot, die and slice arrays for ``enumerate_turns``."""
    return np.empty(MAX_CAND, dtype=np.int64), np.empty(MAX_CAND, dtype=np.int64), np.empty(MAX_CAND, dtype=np.int64)


@njit
def sample_states(geo, nplayers, strat, ngames, every):
    """States at the start of every ``every``-th turn of ``ngames`` greedy games."""
    log = np.zeros((1, 8), dtype=np.int32)
    out = np.zeros((ngames * 200 // every + 1, STATE_SIZE), dtype=np.int32)
    k = 0
    t = 0
    for g in range(ngames):
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = np.uint64(1000 + g)
        rng_next(rng)
        st = setup_game(geo, nplayers, strat, rng, log)
        while st[S_OVER] == 0:
            if t % every == 0 and k < out.shape[0]:
                out[k, :] = st
                k += 1
            t += 1
            play_turn(st, geo, strat, rng, log)
    return out[:k].copy()


@njit
def time_turns(states, geo, strat, reps):
    log = np.zeros((1, 8), dtype=np.int32)
    rng = np.ones(1, dtype=np.uint64)
    acc = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            st = states[i].copy()
            play_turn(st, geo, strat, rng, log)
            acc += st[0]
    return acc


@njit
def time_copies(states, geo, strat, reps):
    acc = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            st = states[i].copy()
            acc += st[0]
    return acc


@njit
def time_enumerate(states, geo, strat, reps):
    c_spot, c_die, c_slice = candidate_buffers()
    acc = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            st = states[i]
            acc += enumerate_turns(st, st[S_CUR], c_spot, c_die, c_slice)
    return acc


@njit
def pick(st, geo, strat, rng, c_spot, c_die, c_slice):
    """List the seat's candidates and let its policy choose: (candidates, index, brag flag)."""
    p = st[S_CUR]
    n = enumerate_turns(st, p, c_spot, c_die, c_slice)
    if n == 0:
        return 0, -1, 0
    a, b = choose_turn(st, geo, strat, rng, p, c_spot, c_die, c_slice, n)
    return n, a, b


@njit
def time_choose(states, geo, strat, reps):
    c_spot, c_die, c_slice = candidate_buffers()
    rng = np.ones(1, dtype=np.uint64)
    acc = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            n, a, b = pick(states[i], geo, strat, rng, c_spot, c_die, c_slice)
            acc += a
    return acc


@njit
def time_construct_estimates(states, geo, strat, reps):
    vals = np.empty(5)
    occ = np.empty(OCC_SIZE, dtype=np.int64)
    acc = 0.0
    for _ in range(reps):
        for i in range(states.shape[0]):
            st = states[i]
            p = st[S_CUR]
            for d in range(N_DEPT):
                occupancy(st, geo, d, occ)
                construct_estimate(st, geo, strat[p], p, d, occ, vals)
                acc += vals[4]
    return acc


@njit
def time_inspect(states, geo, strat, offboard, pips, reps):
    path = np.empty(16, dtype=np.int64)
    jumps = np.empty(16, dtype=np.int64)
    nrng = np.ones(1, dtype=np.uint64)
    ev = np.empty(MAX_SPACES)
    occ = np.empty(OCC_SIZE, dtype=np.int64)
    n = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            st = states[i]
            p = st[S_CUR]
            for d in range(N_DEPT):
                if (st[S_INSPECTOR + d] < 0) != offboard:
                    continue
                occupancy(st, geo, d, occ)
                top = enter_values(st, geo, strat[p], p, d, occ, ev)
                search_routes(st, geo, strat[p], d, pips, st[S_TOKENS + p * 3 + CHEESE], path, jumps, nrng, ev, top)
                n += 1
    return n


@njit
def greedy_choices(states, geo, strat):
    """The move chosen in each state: spot, die, slice, brag flag, kind (action code, or BRAG)."""
    c_spot, c_die, c_slice = candidate_buffers()
    rng = np.ones(1, dtype=np.uint64)
    out = np.full((states.shape[0], 5), -1, dtype=np.int64)
    for i in range(states.shape[0]):
        st = states[i]
        n, a, b = pick(st, geo, strat, rng, c_spot, c_die, c_slice)
        if n > 0:
            d = c_spot[a] // 3
            out[i, 0] = c_spot[a]
            out[i, 1] = c_die[a]
            out[i, 2] = c_slice[a]
            out[i, 3] = b
            out[i, 4] = BRAG if b == 1 else st[S_SLICE_ACTION + d * N_SLICES + c_slice[a]]
    return out


@njit
def time_execute(states, geo, strat, choices, kind, reps):
    log = np.zeros((1, 8), dtype=np.int32)
    rng = np.ones(1, dtype=np.uint64)
    n = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            if choices[i, 0] < 0 or choices[i, 4] != kind:
                continue
            st = states[i].copy()
            execute_turn(st, geo, strat, rng, log, st[S_CUR], choices[i, 0], choices[i, 1], choices[i, 2], choices[i, 3])
            n += 1
    return n


def best_of(fn, *args, reps=50):
    """Seconds of the fastest of five timed loops, and the count the loop returned."""
    fn(*args, 1)
    best = 1e9
    count = 0
    for _ in range(5):
        t = time.perf_counter()
        count = fn(*args, reps)
        best = min(best, time.perf_counter() - t)
    return best, count


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=60, help="greedy games to sample states from")
    ap.add_argument("--every", type=int, default=40, help="keep every n-th turn's state")
    args = ap.parse_args()

    setup = GameSetup(nplayers=args.players)
    geo = setup.geo
    strat = StrategyLibrary().matrix(["greedy"] * args.players)
    states = sample_states(geo, args.players, strat, args.games, args.every)
    n = len(states)
    reps = 100
    print(f"{n} states from {args.games} greedy {args.players}-player games (µs per call, best of 5)")

    def per_state(label, fn, calls_per_state=1):
        sec, _ = best_of(fn, states, geo, strat, reps=reps)
        print(f"  {label:34s} {sec / (reps * n * calls_per_state) * 1e6:7.3f}")

    per_state("whole turn (incl. state copy)", time_turns)
    per_state("state copy", time_copies)
    per_state("list candidates", time_enumerate)
    per_state("greedy choice (incl. listing)", time_choose)
    per_state("construct estimate, per department", time_construct_estimates, N_DEPT)
    print("  inspector route search, per department:")
    for offboard in (False, True):
        for pips in (1, 2, 3, 4):
            sec, count = best_of(time_inspect, states, geo, strat, offboard, pips, reps=20)
            where = "off the board" if offboard else "on the board"
            share = count / (20 * n * N_DEPT)
            print(f"    {pips} pips, inspector {where:14s} {sec / max(count, 1) * 1e6:7.3f}  ({share:.0%} of cases)")
    choices = greedy_choices(states, geo, strat)
    print("  playing out the chosen move:")
    for kind, label in ((CONSTRUCT, "construct"), (REFRESH, "refresh"), (INSPECT, "inspect"), (BRAG, "brag")):
        sec, count = best_of(time_execute, states, geo, strat, choices, kind, reps=reps)
        share = count / (reps * n)
        print(f"    {label:31s} {sec / max(count, 1) * 1e6:7.3f}  ({share:.0%} of turns)")


if __name__ == "__main__":
    main()
