"""Same-process A/B timing of two Echidna Shuffle kernels: a git revision's against the working tree's.

    .venv/bin/python benchmarks/ab_echidna.py [--base REV] [--games 4000] [--repeat 7] [--workloads greedy,random]

On a shared machine absolute games/s drift by tens of percent from minute to minute; a ratio of two
kernels timed in turn, in one process, on identical seeds, drifts far less. ``--base`` (default: the
kernel before any speed work, ``BASE``) has its ``simulator/echidna/{layout,board}.py`` and kernel
(``kernel.py``, or the ``kernel/`` package) taken out of git into a package of its own under
``$TMPDIR/echidna-ab/<rev>/`` (imports rewritten to it; its compiled code cached next to the working
tree's), so both kernels live side by side.
Each repeat times every workload on each kernel and the Shuffle and Swing greedy mirror at 4 players
(the project's reference workload) one after another, with CPU time (``time.process_time``: time
the process was not running does not count). Printed per workload: median games/s of each kernel,
the median of the per-repeat ratios new/old, and each kernel against the Shuffle and Swing greedy.

Before timing it checks that both kernels reach identical final states on the timed seeds.
"""

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ab_common import full_commit, git_text, ratio_stats, time_alternately, write_if_changed  # noqa: E402
from bench_echidna import cpu_model, shuffle_swing_reference  # noqa: E402
from simulator.echidna import board as board_now  # noqa: E402
from simulator.echidna.kernel import engine as kernel_now  # noqa: E402
from simulator.echidna import layout as layout_now  # noqa: E402
from simulator.seeds import game_seed  # noqa: E402
from simulator.echidna.strategies import EchidnaStrategyLibrary  # noqa: E402

BASE = "1be3246"  # the kernel before any speed work

WORKLOADS = {
    # name: (players, board, strategies by seat, share of --games played)
    "greedy": (4, "forest", ["greedy"] * 4, 1),
    "random": (4, "forest", ["random"] * 4, 1),
    "saboteur": (4, "forest", ["saboteur"] * 4, 1),
    "greedy-snow": (4, "snow", ["greedy"] * 4, 1),
    "greedy-6p": (6, "forest", ["greedy"] * 6, 1),
    "random-2p": (2, "forest", ["random"] * 2, 1),
    "lookahead": (4, "forest", ["lookahead", "greedy", "greedy", "greedy"], 0.05),
}


class Variant:
    """One kernel: its layout, kernel and board (``pack_geo``) modules."""

    def __init__(self, label, layout, kernel, board):
        self.label, self.layout, self.kernel, self.board = label, layout, kernel, board
        self.state_dtype = getattr(layout, "STATE_DTYPE", np.int64)

    def setup(self, players, board_name):
        b = board_now.load_board(board_name)
        return self.board.pack_geo(b, board_now.load_rules(), players)

    def play(self, geo, strat, seeds):
        out = np.zeros((len(seeds), self.layout.STATE_SIZE), dtype=self.state_dtype)
        bad = self.kernel.play_batch(geo, strat, seeds, out, False)
        assert len(bad) == 0
        return out


def variant_from_git(rev):
    """The revision's kernel as a package of its own (``abk_<commit>``) in a folder beside links to
    the shared pieces its cache key reads: a kernel package (``simulator/echidna/kernel/``) reads
    ``../kernel_common.py``; a one-file kernel (``simulator/echidna/kernel.py``, before the kernels
    shared ``simulator/kernel_common.py``) reads ``../shuffle_swing/kernel/core.py`` and
    ``../shuffle_swing/layout.py`` (or, before the first game moved, ``../kernel/core.py`` and
    ``../layout.py``), and its imports of that core are pointed at ``simulator.kernel_common``."""
    full = full_commit(rev)
    name = f"abk_{full[:10]}"
    root = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "echidna-ab" / full[:10]
    pkg = root / name
    pkg.mkdir(parents=True, exist_ok=True)
    first = REPO / "simulator" / "shuffle_swing"
    links = (("kernel", first / "kernel"), ("layout.py", first / "layout.py"), ("shuffle_swing", first),
             ("kernel_common.py", REPO / "simulator" / "kernel_common.py"))
    for link, target in links:
        p = root / link
        if not p.exists():
            p.symlink_to(target)
    (pkg / "__init__.py").write_text("")
    listed = subprocess.check_output(["git", "-C", str(REPO), "ls-tree", "--name-only", full, "simulator/echidna/kernel/"],
                                     text=True).split()
    files = ["layout.py", "board.py"] + ([f[len("simulator/echidna/"):] for f in listed if f.endswith(".py")] or ["kernel.py"])
    for f in files:
        text = git_text(full, f"simulator/echidna/{f}")
        text = text.replace("simulator.echidna.layout", f"{name}.layout").replace("simulator.echidna.kernel", f"{name}.kernel")
        text = text.replace("from simulator.echidna import layout as L", f"from {name} import layout as L")
        text = re.sub(r"from simulator\.(shuffle_swing\.)?kernel(\.core)? import", "from simulator.kernel_common import", text)
        write_if_changed(pkg / f, text)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    entry = "kernel.engine" if listed else "kernel"
    mods = [importlib.import_module(f"{name}.{m}") for m in ("layout", entry, "board")]
    return Variant(f"{rev} ({full[:7]})", *mods)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default=BASE, help="git revision of the old kernel")
    ap.add_argument("--games", type=int, default=4000, help="games per timed Echidna batch")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--workloads", default="greedy,random", help=f"comma-separated: {', '.join(WORKLOADS)}")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    old = variant_from_git(args.base)
    new = Variant("working tree", layout_now, kernel_now, board_now)
    lib = EchidnaStrategyLibrary()
    names = args.workloads.split(",")
    jobs = {}
    games = {}
    for w in names:
        players, board, lineup, share = WORKLOADS[w]
        games[w] = max(10, int(args.games * share))
        seeds = np.array([game_seed(args.seed, i) for i in range(games[w])], dtype=np.uint64)
        strat = lib.matrix(lineup)
        for v in (old, new):
            geo = v.setup(players, board)
            jobs[(w, v.label)] = (lambda v=v, geo=geo, strat=strat, seeds=seeds: v.play(geo, strat, seeds))
    ref_games = max(20, args.games // 20)
    ref = shuffle_swing_reference(ref_games, args.seed)
    t = time.perf_counter()
    for w in names:  # compile or load, and the decisions check
        a = jobs[(w, old.label)]()
        b = jobs[(w, new.label)]()
        assert np.array_equal(a.astype(np.int64), b.astype(np.int64)), f"{w}: the kernels' final states differ"
    ref()
    print(f"CPU: {cpu_model()}; load average {os.getloadavg()[0]:.2f} at the start")
    print(f"compiled or loaded, final states identical on every timed game ({time.perf_counter() - t:.0f} s)")
    times = time_alternately(jobs, args.repeat, ref)
    ref_times = times[None]
    sns_rate = ref_games / statistics.median(ref_times)
    print(f"Shuffle and Swing greedy 4p: {sns_rate:8.0f} games/s (CPU time, median of {args.repeat})")
    print(f"{'workload':14s} {'games':>6s} {'old g/s':>9s} {'new g/s':>9s} {'new/old':>8s} {'(min..max)':>13s} {'old/SnS':>8s} {'new/SnS':>8s}")
    for w in names:
        to, tn = times[(w, old.label)], times[(w, new.label)]
        med, lo, hi = ratio_stats(to, tn)
        ro, rn = games[w] / statistics.median(to), games[w] / statistics.median(tn)
        print(
            f"{w:14s} {games[w]:6d} {ro:9.0f} {rn:9.0f} {med:8.3f} "
            f" {lo:5.2f}..{hi:5.2f} {ro / sns_rate:8.2f} {rn / sns_rate:8.2f}"
        )
    print(f"old: {old.label}; new: {new.label}; load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
