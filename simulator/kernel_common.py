"""What every game's numba kernel shares: the compile options and the cache folders, bit tricks,
stack scratch arrays, the cycle probe and the random generator.

Numba's on-disk cache keys each compiled function by its own source file only: a function whose
callee lives in another file would be loaded from the cache with the callee's old code after the
callee changed. So, unless ``NUMBA_CACHE_DIR`` is set explicitly, each kernel is cached in a folder
named after a hash of every source file it is compiled from (``cache_dir``), this file included:
any change to a kernel starts a fresh cache, and an old one is never read. A game's kernel gets its
decorators from ``jit``, which compiles into that game's folder; the functions of this file live in
a folder of their own (``COMMON_CACHE``), keyed by this file alone (they call nothing else).

Nothing here knows a game: each kernel works on its own flat arrays (``simulator.<game>.layout``).
"""

import hashlib
import os
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

# The cycle probe (``probe_clock``/``probe_add``, below) is compiled in only when this variable is 1
# at import; ``benchmarks/profile_cycles.py`` and ``benchmarks/profile_echidna_cycles.py`` set it.
CYCLE_PROBE = os.environ.get("SSB_CYCLE_PROBE") == "1" and not config.DISABLE_JIT

# --------------------------------------------------------------------------- cache folders


def sources_hash(paths):
    """SHA-256 over source files (name and content), in the order given (the same digest as
    ``simulator.provenance.sources_digest``, which a kernel cannot import: the registry it reads
    imports the kernels)."""
    h = hashlib.sha256()
    for path in paths:
        h.update(Path(path).name.encode())
        h.update(Path(path).read_bytes())
    return h.hexdigest()


def cache_root():
    """The folder holding every kernel's cache folder: ``$NUMBA_CACHE_DIR`` if set, else
    ``~/.cache/shuffle-swing-balance/numba`` (``$XDG_CACHE_HOME`` respected)."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return explicit
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return str(base / "shuffle-swing-balance" / "numba")


def cache_dir(name, sources):
    """Where a compiled kernel is cached: ``$NUMBA_CACHE_DIR`` if set, else a folder of
    ``cache_root()`` named after the hash of its ``sources`` (``name`` prefixes it)."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return explicit
    digest = sources_hash(sources)[:16]
    return str(Path(cache_root()) / (f"{name}-{digest}" if name else digest))


COMMON_CACHE = cache_dir("common", [Path(__file__).resolve()])

# --------------------------------------------------------------------------- decorators
# Every kernel function is compiled cached on disk (unless probed: a probed build writes its
# counters at an address fixed at compile time, so it is never cached), with integer division by
# zero not checked (a kernel never divides by zero; the check costs a branch on every division).
# ``nrt=False`` compiles without numba's reference counting: a function that allocates nothing on
# the heap (scratch arrays live on the stack, ``stack_empty``) and returns no array does not need
# it, and the atomic increments and decrements it wraps around every array passed to a call are
# pure cost. A function that allocates or returns an array needs ``nrt=True`` (said explicitly: a
# callee left to the default takes its caller's setting).
#
# ``one_version`` (the first game's kernel and this file): one compiled version per function (the
# cold start). Called from compiled code, a kernel function is compiled for its arguments' types as
# the caller holds them, so a seat read from the int32 state, a loop's int64 index and each
# constant (numba types ``4`` as ``Literal[int](4)``, ``True`` as ``Literal[bool]``) each made a
# version of its own: 324 compiles of 150 functions for one game, 40 of one function alone.
# ``_one_version`` types every integer argument as int64 and every constant as its plain type
# before the callee is looked up, so each function is compiled once; the caller converts (int32 to
# int64 loses nothing, and numba's integer arithmetic is int64 either way), so every decision is as
# before (benchmarks/sns_fingerprint.py).


def _plain(t):
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return types.int64
    return t


def _one_version(dispatcher):
    if config.DISABLE_JIT:
        return dispatcher
    lookup = dispatcher.get_call_template

    def get_call_template(args, kws):
        return lookup(tuple(_plain(a) for a in args), {k: _plain(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def jit(folder, *, nrt, inline="never", one_version=False):
    """A kernel decorator: ``njit`` with the options above, cached in ``folder`` (numba reads the
    cache folder when a function is decorated, so it is set for the decoration only);
    ``inline="always"`` has numba inline the function into its callers."""

    def decorate(fn):
        old = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = folder
        try:
            dispatcher = njit(cache=not CYCLE_PROBE, error_model="numpy", _nrt=nrt, inline=inline)(fn)
        finally:
            numba.config.CACHE_DIR = old
        return _one_version(dispatcher) if one_version else dispatcher

    return decorate


_kernel = jit(COMMON_CACHE, nrt=False, one_version=True)
_kernel_alloc = jit(COMMON_CACHE, nrt=True, one_version=True)

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
    """The float64 whose bits are the int64 ``x``: how an int64 ``geo`` array holds a float."""
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
# a part, ``probe_add(part, t)`` after it adds the CPU cycles spent to the part's counter and counts
# one call. Each kernel names its parts (at most ``N_PROBE``): part k's cycles are in
# ``PROBE_COUNTERS[k]``, its calls in ``PROBE_COUNTERS[N_PROBE + k]``. Unless ``CYCLE_PROBE`` is on
# both compile to nothing.

N_PROBE = 32
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

    @_kernel
    def probe_add(part, start):
        """Add the cycles since ``start`` and one call to ``part``'s counters."""
        _counter_add(part, probe_clock() - start)
        _counter_add(N_PROBE + part, 1)

else:

    @_kernel
    def probe_clock():
        """0: the probe is off."""
        return 0

    @_kernel
    def probe_add(part, start):
        """Nothing: the probe is off."""
        return


# --------------------------------------------------------------------------- random numbers
# splitmix64 on a one-element uint64 array: tiny state, copyable, identical on every platform.


@_kernel
def rng_next(rng):
    """Next 64-bit value of the generator held in ``rng[0]``."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_kernel
def rng_below(rng, n):
    """Uniform integer in ``[0, n)`` (``n >= 1``)."""
    return np.int64((rng_next(rng) >> np.uint64(11)) % np.uint64(n))


@_kernel
def rng_unit(rng):
    """Uniform float in ``[0, 1)``."""
    return np.float64(rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@_kernel_alloc
def mix_seed(a, b):
    """Derive an independent 64-bit seed from two integers (used for per-game seeds)."""
    r = np.empty(1, dtype=np.uint64)
    r[0] = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(b)
    rng_next(r)
    return rng_next(r)
