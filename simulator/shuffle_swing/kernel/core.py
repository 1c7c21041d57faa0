"""Small shared pieces of the Shuffle and Swing kernel: the decorators, the cycle probe's parts, the
event log, points, brag steps, tie order.

Everything here is ``@kernel`` (compiled, cached) on plain arrays (see ``simulator.shuffle_swing.layout`` for the
offsets); what every game's kernel shares (the random generator, bit tricks, scratch arrays, the
probe's counters) is in ``simulator.kernel_common``.
"""


from simulator.kernel_common import N_PROBE, jit
from simulator.shuffle_swing.kernel import CACHE
from simulator.shuffle_swing.layout import (
    AUTOMA,
    BRAG_PRI,
    EV_BRAG,
    EV_SCORE,
    G_INST,
    I_TRACK_TOKEN,
    INST_SIZE,
    N_OWNERS,
    N_SRC,
    N_STAT,
    N_TRACK,
    S_BRAG_POS,
    S_BRAG_STAMP,
    S_CUR,
    S_NPLAYERS,
    S_SCORE,
    S_SRC,
    S_STAMP,
    S_STAT,
    S_TOKENS,
    S_TURN,
    ST_BRAGS,
    ST_TOKENS_GAINED,
)

# Every kernel function is compiled with ``simulator.kernel_common.jit``'s options (cached on disk
# in this kernel's folder, no division-by-zero checks) and one compiled version per function
# (``one_version``). ``kernel`` functions allocate nothing on the heap (scratch arrays live on the
# stack, ``stack_empty``) and return no array, so they are compiled without numba's reference
# counting. The few functions that allocate (a game's state, the set-up's and the searches' work
# arrays, the batch's result rows) or return an array are ``kernel_alloc``: reference counted, as
# numba needs.
kernel = jit(CACHE, nrt=False, one_version=True)
kernel_alloc = jit(CACHE, nrt=True, one_version=True)

# --------------------------------------------------------------------------- cycle probe parts
# The parts of a turn the cycle probe (``simulator.kernel_common.probe_clock``, ``probe_add``) times
# in this kernel (``benchmarks/profile_cycles.py``): part k's cycles are in ``PROBE_COUNTERS[k]``,
# its calls in ``PROBE_COUNTERS[N_PROBE + k]``.

PROBE_PARTS = (
    "whole turn",
    "listing candidates",
    "choice",
    "choice: construct estimates",
    "choice: inspector entry worths",
    "choice: inspector route searches",
    "choice: brag and pickup worths",
    "choice: refresh worths",
    "move and pickup brags",
    "die and recruit",
    "construct",
    "construct: placement choices",
    "construct: paying cats",
    "refresh",
    "inspect",
    "brag",
    "tick-up and break room",
    "end of turn",
)
(
    PR_TURN,
    PR_LIST,
    PR_CHOICE,
    PR_ESTIMATE,
    PR_ENTER,
    PR_SEARCH,
    PR_BRAGWORTH,
    PR_REFRWORTH,
    PR_MOVE,
    PR_DIE,
    PR_CONSTRUCT,
    PR_PLACEMENT,
    PR_PAY,
    PR_REFRESH,
    PR_INSPECT,
    PR_BRAG,
    PR_TICK,
    PR_END,
) = range(len(PROBE_PARTS))
assert len(PROBE_PARTS) <= N_PROBE


# --------------------------------------------------------------------------- event log
# Row 0 of ``log`` is a header: log[0, 0] counts the events written from row 1 on.
# A log with a single row records nothing (the fast path for mass play).


@kernel
def emit(log, st, code, a, b, c, d, e):
    """Append one event (turn, seat, code, a..e) if the log has room."""
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
        log[row, 7] = e
        log[0, 0] = n + 1


# --------------------------------------------------------------------------- points and stats


@kernel
def add_points(st, log, owner, pts, src, dept, where):
    """Give ``pts`` to ``owner`` under score source ``src``; Pri and the neutral never score."""
    if owner < 0 or owner >= AUTOMA or pts == 0:
        return
    st[S_SCORE + owner] += pts
    st[S_SRC + owner * N_SRC + src] += pts
    if log.shape[0] > 1:
        emit(log, st, EV_SCORE, owner, pts, src, dept, where)


@kernel
def stat_add(st, owner, which, n):
    """Add ``n`` to counter ``which`` of ``owner`` (ignored for an owner outside the table)."""
    if 0 <= owner < N_OWNERS:
        st[S_STAT + owner * N_STAT + which] += n


# --------------------------------------------------------------------------- brag tracks


@kernel
def brag_step(st, geo, log, owner, dept, origin):
    """One brag on ``dept``'s track (R9). Returns the token type gained, or -1.

    On the top space the brag is wasted. A disc entering a space goes on top of the discs there,
    which the arrival stamp records (a lower stamp is lower in the stack).
    """
    pos = st[S_BRAG_POS + dept * N_OWNERS + owner]
    if pos < 0 or pos >= N_TRACK - 1:
        if log.shape[0] > 1:
            emit(log, st, EV_BRAG, owner, dept, pos, -1, origin)
        stat_add(st, owner, ST_BRAGS, 1)
        return -1
    pos += 1
    st[S_BRAG_POS + dept * N_OWNERS + owner] = pos
    st[S_STAMP] += 1
    st[S_BRAG_STAMP + dept * N_OWNERS + owner] = st[S_STAMP]
    gained = -1
    if geo[G_INST + dept * INST_SIZE + I_TRACK_TOKEN + pos] != 0 and owner < AUTOMA:
        st[S_TOKENS + owner * 3 + dept] += 1
        stat_add(st, owner, ST_TOKENS_GAINED, 1)
        gained = dept
    if origin != BRAG_PRI:
        stat_add(st, owner, ST_BRAGS, 1)
    if log.shape[0] > 1:
        emit(log, st, EV_BRAG, owner, dept, pos, gained, origin)
    return gained


@kernel
def track_beats(st, dept, a, b):
    """True if owner ``a`` wins a tie against owner ``b`` on ``dept``'s track (R10).

    The three-player neutral wins every tie (R15); otherwise the higher space wins and, on the same
    space, the disc lower in the stack (the earlier arrival).
    """
    npl = st[S_NPLAYERS]
    if npl == 3:
        if a == AUTOMA:
            return True
        if b == AUTOMA:
            return False
    pa = st[S_BRAG_POS + dept * N_OWNERS + a]
    pb = st[S_BRAG_POS + dept * N_OWNERS + b]
    if pa != pb:
        return pa > pb
    return st[S_BRAG_STAMP + dept * N_OWNERS + a] < st[S_BRAG_STAMP + dept * N_OWNERS + b]


@kernel
def owner_present(st, owner):
    """True if ``owner`` takes part: a seat of this game, or Pri / the neutral when in play."""
    npl = st[S_NPLAYERS]
    if owner < npl:
        return True
    return owner == AUTOMA and (npl == 2 or npl == 3)
