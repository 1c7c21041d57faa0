"""Small pieces of the Echidna Shuffle kernel: its decorators, the cycle probe's parts, the event log,
distances along arrows, the pick-up and statistics helpers."""

from simulator.kernel_common import jit, lowest_bit
from simulator.echidna.kernel import CACHE
from simulator.echidna.layout import G_DIST, G_RIDING_LIMIT, MAX_SPACES, N_STAT, S_CUR, S_HAND, S_RIDING, S_STAT, S_TURN

# ``simulator.kernel_common.jit``'s options, cached in this kernel's folder. ``kernel``: without
# numba's reference counting: these functions allocate nothing (scratch arrays live on the stack),
# so the atomic increments and decrements numba would wrap around every array passed to a call are
# pure cost (measured: most of a random turn's time).
kernel = jit(CACHE, nrt=False)
# ``kernel`` for the small pieces a choice calls once per candidate step: inlined into the caller by
# numba itself. Left to LLVM they stay calls (their bodies are over its inlining threshold), and a
# call passes every array as seven separate values, most of them on the stack: measured, more than
# the piece's own work.
kernel_inline = jit(CACHE, nrt=False, inline="always")
# ``kernel`` for the two entry points that allocate (the generator state, the result rows).
kernel_alloc = jit(CACHE, nrt=True)

BIG = 1.0e9

# Cycle probe parts (``benchmarks/profile_echidna_cycles.py``): this kernel's own names for the
# shared probe counters (``simulator.kernel_common.PROBE_COUNTERS``; slot k is part k). Off
# (``CYCLE_PROBE`` unset) the probe calls compile to nothing.
EPROBE_PARTS = (
    "set-up (per game)",
    "whole turn",
    "regular step choices",
    "greedy: pick-up minima and masks",
    "greedy: candidate gains",
    "random choice",
    "token step choices",
    "moves applied",
    "pick-up chances",
)
EPR_SETUP, EPR_TURN, EPR_CHOICE, EPR_PREP, EPR_GAINS, EPR_RANDOM, EPR_TOKEN, EPR_MOVE, EPR_TAKE = range(len(EPROBE_PARTS))


@kernel
def emit(log, st, code, a, b, c, d):
    """Append one event (turn, seat, code, a..d) if the log has room; a one-row log records nothing."""
    n = log[0, 0]
    if n + 1 < log.shape[0]:
        row = n + 1
        log[row, 0] = st[S_TURN]
        log[row, 1] = st[S_CUR]
        log[row, 2] = code
        log[row, 3] = a
        log[row, 4] = b
        log[row, 5] = c
        log[row, 6] = d
        log[0, 0] = n + 1


@kernel
def dist(geo, a, b):
    """Steps along arrows from space ``a`` to ``b`` (at least one; ``a == b`` is a loop)."""
    return geo[G_DIST + a * MAX_SPACES + b]


@kernel
def rider_dist(geo, stumps, x):
    """Steps from ``x`` to the nearest stump of the mask ``stumps`` (0 if none is left)."""
    best = 0
    first = True
    m = stumps
    while m != 0:
        u = lowest_bit(m)
        m &= m - 1
        d = geo[G_DIST + x * MAX_SPACES + u]
        if first or d < best:
            best = d
            first = False
    return best


@kernel
def can_take(geo, st, p):
    """True if seat ``p`` has a bug to put on an echidna (E4; the 5-6 player limit)."""
    return st[S_HAND + p] > 0 and st[S_RIDING + p] < geo[G_RIDING_LIMIT]


@kernel
def stat_add(st, p, which, n):
    st[S_STAT + p * N_STAT + which] += n
