"""Where Echidna Shuffle games spend their time: CPU cycles per turn in each part, counted inside the
running kernel.

    .venv/bin/python benchmarks/profile_echidna_cycles.py [--games 4000] [--players 4] [--board forest] [--strategies greedy]

The Echidna Shuffle equivalent of ``profile_cycles.py``: builds the kernel with the cycle probe on
(``SSB_CYCLE_PROBE=1``: a build of its own, compiled afresh each run, about a minute), plays the
games, and prints for each probed part (``simulator.echidna.kernel.core.EPROBE_PARTS``) its cycles per
turn, its share of the whole turn, its calls per turn and its cycles per call (scaled by the run's
CPU time over its wall time, since the cycle counter also counts while other processes hold the
core; on a loaded machine the shares are the figures to read). The set-up is counted
per game and shown per turn, outside the turn's share. A probe point costs some tens of cycles
(two reads of the cycle counter), a visible part of a turn this short: read the shares, and compare
builds with ``ab_echidna.py``, not with these absolute figures. Parts marked "greedy:" lie inside
the choices (regular and paid steps alike).
"""

import os
import time

os.environ["SSB_CYCLE_PROBE"] = "1"

from simulator.echidna.board import EchidnaSetup  # noqa: E402
from simulator.echidna.kernel.core import EPR_SETUP, EPR_TURN, EPROBE_PARTS  # noqa: E402
from simulator.seeds import game_seed  # noqa: E402
from simulator.echidna.playout import play_many
from simulator.kernel_common import N_PROBE, PROBE_COUNTERS  # noqa: E402
from profile_cycles import compile_probed, print_parts, probe_args  # noqa: E402  (the first game's options and table)
from simulator.echidna.strategies import EchidnaStrategyLibrary  # noqa: E402


def main():
    args, names = probe_args(__doc__, 4000, extra=[("--board", "forest")])
    setup = EchidnaSetup(args.players, args.board)
    strat = EchidnaStrategyLibrary().matrix(names)
    seeds = [game_seed(args.seed, i) for i in range(args.games)]
    compile_probed(play_many, setup, strat, seeds)
    t, w = time.process_time(), time.perf_counter()
    play_many(setup, strat, seeds)
    dt, wall = time.process_time() - t, time.perf_counter() - w
    # The cycle counter runs on while other processes hold the core: on a loaded machine every part
    # reads high by about wall / CPU time. Scaling by CPU / wall time takes that out on average.
    scale = min(1.0, dt / wall)
    c = PROBE_COUNTERS.copy()
    c[:N_PROBE] = (c[:N_PROBE] * scale).astype(c.dtype)
    turns = c[N_PROBE + EPR_TURN]
    total = c[EPR_TURN]
    print(
        f"{args.games} games ({','.join(names)}, {args.board}), {turns / args.games:.1f} turns/game, "
        f"{args.games / dt:.0f} games/s (CPU time) with the probe on, {(total + c[EPR_SETUP]) / args.games:.0f} cycles/game"
    )
    print(f"cycles scaled by CPU / wall time = {scale:.3f} (the core was shared for the rest)")
    depths = [0 if k in (EPR_SETUP, EPR_TURN) else (2 if name.startswith("greedy:") else 1) for k, name in enumerate(EPROBE_PARTS)]
    print_parts(EPROBE_PARTS, c, turns, total, depths)


if __name__ == "__main__":
    main()
