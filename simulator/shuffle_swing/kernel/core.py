"""Small shared kernel pieces: the random generator, the event log, points, brag steps, tie order.

Everything here is ``@kernel`` (compiled, cached) on plain arrays (see ``simulator.shuffle_swing.layout`` for the
offsets).
"""

import os

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

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

# The cycle probe (``probe_clock``/``probe_add``, below) is compiled in only when this variable is 1
# at import; ``benchmarks/profile_cycles.py`` sets it.
CYCLE_PROBE = os.environ.get("SSB_CYCLE_PROBE") == "1" and not config.DISABLE_JIT

# Every kernel function is compiled with these options: cached on disk, and integer division by
# zero not checked (the kernel never divides by zero; the check costs a branch on every division).
# A probed build writes its counters at an address fixed at compile time, so it is never cached.
# ``kernel`` functions allocate nothing on the heap (scratch arrays live on the stack,
# ``stack_empty``) and return no array, so they are compiled without numba's reference counting:
# the atomic increments and decrements it wraps around every array passed to a call are pure cost.
# The few functions that allocate (a game's state, the set-up's and the searches' work arrays, the
# batch's result rows) or return an array are ``kernel_alloc``: reference counted, as numba needs
# (said explicitly: a callee left to the default takes its caller's setting).
kernel = njit(cache=not CYCLE_PROBE, error_model="numpy", _nrt=False)
kernel_alloc = njit(cache=not CYCLE_PROBE, error_model="numpy", _nrt=True)

# --------------------------------------------------------------------------- bits


def compiled_as(emit, returns=None):
    """Decorator: in compiled code the integer function becomes the one LLVM instruction that
    ``emit(builder, value)`` writes; interpreted (``NUMBA_DISABLE_JIT=1``) it stays plain Python.
    The result has the argument's type unless ``returns`` (a numba type) says otherwise."""

    def wrap(python_fn):
        if config.DISABLE_JIT:
            return python_fn

        @intrinsic
        def instruction(typingctx, x):
            if not isinstance(x, types.Integer) or (returns is not None and x.bitwidth != 64):
                return None

            def codegen(context, builder, sig, args):
                return emit(builder, args[0])

            return (returns or x)(x), codegen

        @overload(python_fn, inline="always")
        def _compiled(x):
            def impl(x):
                return instruction(x)

            return impl

        return python_fn

    return wrap


@compiled_as(lambda builder, x: builder.ctpop(x))
def popcount(x):
    """Number of set bits of a non-negative integer (compiled: the CPU's popcount instruction)."""
    return int(x).bit_count()


@compiled_as(lambda builder, x: builder.cttz(x, ir.Constant(ir.IntType(1), 0)))
def lowest_bit(x):
    """Index of the lowest set bit of a positive integer (compiled: the CPU's tzcnt instruction)."""
    return (int(x) & -int(x)).bit_length() - 1


@compiled_as(lambda builder, x: builder.bitcast(x, ir.DoubleType()), returns=types.float64)
def float_bits(x):
    """The float64 whose bits are the int64 ``x``: how ``geo`` (an int64 array) holds a float."""
    return float(np.array(x, dtype=np.int64).view(np.float64))


# --------------------------------------------------------------------------- scratch arrays


def stack_empty(size, dtype):
    """An uninitialised scratch array of ``size`` (a constant) elements of ``dtype``.

    Compiled, it lives on the calling function's stack: no heap allocation, which the hot paths
    would otherwise pay tens of times per turn. It must not outlive the function that made it (never
    return it or keep it in another array). Interpreted (``NUMBA_DISABLE_JIT=1``), it is a plain
    heap array."""
    return np.empty(size, dtype=dtype)


def stack_full(size, value, dtype):
    """``stack_empty`` with every element set to ``value``."""
    return np.full(size, value, dtype=dtype)


if not config.DISABLE_JIT:
    # Compiled, both are intrinsics: the array is written straight into the caller's code (an
    # ``alloca`` in its entry block) with no meminfo, so it compiles in functions without reference
    # counting too (numba's ``carray`` in an ``overload`` does not: the overload would be a function
    # of its own returning an array it did not receive).

    def _stack_codegen(context, builder, elt, n):
        aryty = types.Array(elt, 1, "C")
        data = cgutils.alloca_once(builder, context.get_value_type(elt), size=ir.Constant(ir.IntType(64), n))
        ary = make_array(aryty)(context, builder)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(elt)))
        shape = [context.get_constant(types.intp, n)]
        populate_array(ary, data=data, shape=shape, strides=[itemsize], itemsize=itemsize, meminfo=None)
        return ary, data

    @intrinsic(prefer_literal=True)
    def stack_empty(typingctx, size, dtype):  # noqa: F811 (the compiled form of the function above)
        if not isinstance(size, types.IntegerLiteral):
            raise TypeError("stack_empty needs a size known at compile time")
        n, elt = size.literal_value, dtype.dtype

        def codegen(context, builder, sig, args):
            return _stack_codegen(context, builder, elt, n)[0]._getvalue()

        return types.Array(elt, 1, "C")(size, dtype), codegen

    @intrinsic(prefer_literal=True)
    def stack_full(typingctx, size, value, dtype):  # noqa: F811
        if not isinstance(size, types.IntegerLiteral):
            raise TypeError("stack_full needs a size known at compile time")
        n, elt = size.literal_value, dtype.dtype

        def codegen(context, builder, sig, args):
            ary, data = _stack_codegen(context, builder, elt, n)
            v = context.cast(builder, args[1], sig.args[1], elt)
            with cgutils.for_range(builder, ir.Constant(ir.IntType(64), n)) as loop:
                builder.store(v, builder.gep(data, [loop.index]))
            return ary._getvalue()

        return types.Array(elt, 1, "C")(size, value, dtype), codegen


# --------------------------------------------------------------------------- cycle probe
# Where a real game spends its time, measured inside the running kernel: ``t = probe_clock()`` before
# a part, ``probe_add(PR_..., t)`` after it adds the CPU cycles spent to the part's counter and counts
# one call. Unless ``CYCLE_PROBE`` is on both compile to nothing.

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
# Cycles of part k in PROBE_COUNTERS[k], its calls in PROBE_COUNTERS[N_PROBE + k].
N_PROBE = len(PROBE_PARTS)
PROBE_COUNTERS = np.zeros(2 * N_PROBE, dtype=np.int64)

if CYCLE_PROBE:

    @intrinsic
    def probe_clock(typingctx):
        """The CPU's cycle counter."""

        def codegen(context, builder, sig, args):
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter")
            return builder.call(fn, [])

        return types.int64(), codegen

    @intrinsic
    def _counter_add(typingctx, slot, value):
        address = PROBE_COUNTERS.ctypes.data

        def codegen(context, builder, sig, args):
            i64 = ir.IntType(64)
            at = builder.add(ir.Constant(i64, address), builder.mul(args[0], ir.Constant(i64, 8)))
            ptr = builder.inttoptr(at, i64.as_pointer())
            builder.store(builder.add(builder.load(ptr), args[1]), ptr)
            return context.get_dummy_value()

        return types.void(types.int64, types.int64), codegen

    @kernel
    def probe_add(part, start):
        """Add the cycles since ``start`` and one call to ``part``'s counters."""
        _counter_add(part, probe_clock() - start)
        _counter_add(N_PROBE + part, 1)

else:

    @kernel
    def probe_clock():
        """0: the probe is off."""
        return 0

    @kernel
    def probe_add(part, start):
        """Nothing: the probe is off."""
        return


# --------------------------------------------------------------------------- random numbers
# splitmix64 on a one-element uint64 array: tiny state, copyable, identical on every platform.


@kernel
def rng_next(rng):
    """Next 64-bit value of the generator held in ``rng[0]``."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def rng_below(rng, n):
    """Uniform integer in ``[0, n)`` (``n >= 1``)."""
    return np.int64((rng_next(rng) >> np.uint64(11)) % np.uint64(n))


@kernel
def rng_unit(rng):
    """Uniform float in ``[0, 1)``."""
    return np.float64(rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel_alloc
def mix_seed(a, b):
    """Derive an independent 64-bit seed from two integers (used for per-game seeds)."""
    r = np.empty(1, dtype=np.uint64)
    r[0] = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(b)
    rng_next(r)
    return rng_next(r)


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
