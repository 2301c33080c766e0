"""Lazy mode (``policy(mode="lazy")``): record kernel calls, run them later as one program.

Every compiled kernel of the eager path (ufunc loops, reductions, view reads, writes through
views, element reads and writes, casts) is a ``Kernel``. Under lazy mode, calling one does
not run it: it records a ``Call`` and returns ``Lazy`` placeholders that know their shape and
dtype (from ``jax.eval_shape``, cached by kernel and operand types), so npjax arrays can hold
them and Python code can ask for shapes as usual. Nothing else changes: NumPy's checks, result
types and errors still happen at the call, in Python.

A value is computed when something needs it: ``ndarray._read()`` (printing, ``float``,
``bool``, ``__array__``, a host transfer, a fallback, any function without a lazy path), or
when more than ``BOUND`` calls are pending. Then *all* pending work that is still referenced
from outside the graph (held by an array, a view cache or a local variable; found by reference
counts, so dead temporaries are never materialised) is computed by one ``jax.jit`` program.
Programs are cached by structure (the sequence of kernels and how their operands connect), so
a loop body that flushes at the same place each time compiles once.

Floating-point error state (``errstate``): a checked ufunc call records its check; the program
also returns one flag that is set when any checked result is not finite (or tiny, when
underflow is reported). Only then are the calls of that program replayed one by one with the
error state each call was recorded under, which gives NumPy's warnings or ``FloatingPointError``
- at the line that needed the value, each warning naming the operation's line (recorded with
the check where a state warns). Under ``raise`` or ``call`` the call's value is computed at
once, so the error comes from its line, as NumPy's does; a checked value that is never read is
still computed and checked at the next flush (at the latest when the process exits).

Values are never changed in place in lazy mode (no buffer donation). The mode is per thread
like the rest of the policy; the pending graph is process-wide and guarded by one lock, so
threads may record and compute at once: a flush computes the values any thread still holds
(a thread's locals count as references), and a thread's value computed by another thread's
flush is simply there when it asks. A computation whose result is never used and not checked
is never run.
"""

from __future__ import annotations

import atexit
import functools
import sys
import threading
import weakref
from collections import Counter
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._execution import _host_split, _lazy_cold
from npjax._execution._lazy_checks import _replay_checks, _stored_checks, _watch
from npjax._pure import _capabilities
from npjax._runtime import _stats
from npjax._runtime._finite_watch import FiniteWatch
from npjax._runtime._context import current, trace
from npjax._runtime._errstate import PACKAGE_DIR, user_line
from npjax._runtime._thread_checks import HELD, UNREAD, run_held

# Pending calls after which a graph is cut and run (bounds compile time and memory).
BOUND = 1000

_Tracer = jax.core.Tracer
_SCALARS = (int, float, complex, bool)

_calls: list = []          # weak references to the Calls recorded since the last flush
_shapes: dict = {}         # (kernel, treedef, operand types) -> (output treedef, output avals)
_programs: dict = {}       # program structure -> compiled program
_seq = 0
_segment: Any = None       # (kernel, program point) of the first call of the pending graph
_lock = threading.RLock()  # guards the pending graph: recording, flushing, running


class Call:
    """One recorded kernel call: its operands (leaves of ``treedef``) and, weakly, outputs."""

    __slots__ = ("__weakref__", "check", "empty", "kernel", "leaves", "outs", "seq",
                 "treedef")

    def __init__(self, kernel: Kernel, treedef: Any, leaves: list) -> None:
        global _seq
        _seq += 1
        self.seq = _seq
        self.kernel = kernel
        self.treedef = treedef
        self.leaves = leaves
        self.outs: list = []
        self.check: Any = None  # (checker, errstate dict, thread id, aval, index, user's
        # line where warnings name it) for checked ufuncs
        self.empty = False  # an output has no elements


class Lazy:
    """A value a recorded call will produce: shape and dtype now, the array when asked."""

    __slots__ = ("__weakref__", "aval", "call", "index", "key", "value")

    def __init__(self, aval: Any, call: Call, index: int) -> None:
        self.aval = aval
        self.key = (aval.shape, aval.dtype, aval.weak_type)  # as ``record`` keys operands
        self.call = call
        self.index = index
        self.value: Any = None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: int(np.prod(self.aval.shape, dtype=np.int64)))
    weak_type = property(lambda self: self.aval.weak_type)

    def get(self) -> jax.Array:
        """The computed value (computing every pending value still in use, if needed)."""
        if self.value is None:
            flush(self)
        if HELD:  # checks of this thread's values that another thread's read computed
            run_held()
        return self.value

    def __getattr__(self, name: str) -> Any:  # any other use needs the value
        return getattr(self.get(), name)

    def __repr__(self) -> str:
        state = "pending" if self.value is None else "computed"
        return f"Lazy({state}, shape={self.shape}, dtype={self.dtype})"


def _forward(name: str) -> Callable:
    def method(self: Lazy, *args: Any) -> Any:
        return getattr(self.get(), name)(*args)

    method.__name__ = name
    return method


for _name in ("__array__", "__bool__", "__float__", "__int__", "__complex__", "__index__",
              "__len__", "__iter__", "__getitem__", "__format__"):
    setattr(Lazy, _name, _forward(_name))


def concrete(x: Any) -> Any:
    """``x`` with a lazy value replaced by the computed array."""
    return x.get() if type(x) is Lazy else x


def concrete_if_done(x: Any) -> Any:
    """``x`` with a computed lazy value replaced by its array (pending ones stay)."""
    return x.value if type(x) is Lazy and x.value is not None else x


def is_on() -> bool:
    """Whether calls made now are recorded."""
    return current().lazy


class Kernel:
    """A compiled kernel of the eager path that lazy mode can record instead of running.

    ``fn`` is a ``jax.jit`` function of arrays (and pytrees of them); it must not donate
    buffers when called while lazy mode is on.
    """

    __slots__ = ("__weakref__", "fn", "poisons", "products", "propagates", "store")

    def __init__(self, fn: Callable, products: bool = False, store: Any = None) -> None:
        self.fn = fn
        self.products = products  # its float results are products (see ``round_products``)
        # every element of each float operand shows in the result, and a non-finite operand
        # element gives a non-finite result (elementwise ufuncs like add, sqrt)
        self.propagates = False
        # an update kernel ``(old, positions, part) -> new``: which part it writes, e.g.
        # ("view", lens) or ("element", ndim) (``stored_part``)
        self.store = store
        # under npjax.jit its float results are made to show non-finite operands
        # (``FiniteWatch.poison``): None, "some", "every" (its ``every`` argument) or "first"
        # (its ``first`` argument: the first operand shows in the results)
        self.poisons: str | None = None

    def __hash__(self) -> int:
        return hash(self.fn)

    def __eq__(self, other: object) -> bool:
        return type(other) is Kernel and other.fn is self.fn

    def __call__(self, *args: Any) -> Any:
        if current().lazy:
            return record(self, args)
        return self.now(args)

    def now(self, args: tuple) -> Any:
        """Run the kernel now, on computed operands: a lazy value among them (one left by
        lazy mode) is computed first. No lazy value exists before lazy mode records its
        first call (``_seq`` is 0), so a process that never records pays no look at the
        operands."""
        if _seq and _has_lazy(args):
            args = jax.tree.map(concrete, args)
        if _lazy_cold.held_on_cpu() and _lazy_cold.eager_on_cpu(self.fn, args):
            out = _lazy_cold.run_now(self.fn, args)  # (a dtype the accelerator cannot
        else:  # hold: on the CPU backend)
            out = self.fn(*args)
        if self.products or self.poisons:
            out = self.traced(out, args)
        return out

    def traced(self, out: Any, args: tuple) -> Any:
        """``out``, the results of ``fn(*args)``, as ``npjax.jit``'s trace needs them where
        it traces this call (products rounded, watched operands shown); as they are
        otherwise. (A caller that runs ``fn`` itself on computed operands, where nothing
        asks for ``now``'s other steps, calls this when the results are traced.)"""
        if self.products or self.poisons:
            tr = trace()
            if tr is not None:  # traced by npjax.jit
                if self.products:
                    size = max((x.size for x in jax.tree.leaves(out)), default=0)
                    out = round_products(out, tr.product_zero(size))
                if self.poisons:
                    out = tr.watch.poison(out, args, self.poisons == "every",
                                          self.poisons == "first")
        return out

    def __repr__(self) -> str:
        return f"Kernel({getattr(self.fn, '__name__', self.fn)!r})"


def round_products(out: Any, neg_zero: Any) -> Any:
    """Products rounded as eager code rounds them, inside a larger compiled program.

    XLA's CPU backend contracts a multiplication followed by an addition into one fused
    multiply-add (exact product, one rounding), which eager NumPy and eager npjax never do;
    on cancellations the results differ (``r - (r / 127) * 127`` gives -128 instead of 0).
    Adding a -0.0 that XLA cannot see (a program input) turns the product into ``fma(a, b,
    -0.0)``: the correctly rounded product, sign of zero kept, and nothing left to contract
    with the addition that uses it (openxla/xla#41579).
    """
    def rounded(x: Any, neg_zero: Any) -> Any:
        if x.dtype.kind == "f":
            return x + neg_zero.astype(x.dtype)
        if x.dtype.kind == "c":  # -0.0 in both parts: a -0.0 imaginary part stays one
            part = neg_zero.astype(x.real.dtype)
            return x + jax.lax.complex(part, part)
        return x

    def all_rounded(out: Any, neg_zero: Any, keep: frozenset = frozenset()) -> Any:
        return jax.tree.map(lambda x: x if x.dtype.name in keep else rounded(x, neg_zero), out)

    # platforms whose XLA does not contract products of some dtypes (_capabilities)
    exact = {p: ds for p, ds in _capabilities.PRODUCTS_EXACT.items()
             if any(x.dtype.name in ds for x in jax.tree.leaves(out))}
    if not exact:
        return all_rounded(out, neg_zero)
    return jax.lax.platform_dependent(out, neg_zero, default=all_rounded, **{
        p: functools.partial(all_rounded, keep=ds) for p, ds in exact.items()})


def _has_lazy(args: tuple) -> bool:
    return any(type(leaf) is Lazy for leaf in jax.tree.leaves(args))


def _abstract(x: Any) -> Any:
    if type(x) in _SCALARS:
        return x
    if isinstance(x, np.generic):
        return jax.ShapeDtypeStruct((), x.dtype)
    return jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=getattr(x, "weak_type", False))


def record(k: Kernel, args: tuple) -> Any:
    """Record ``k(*args)``: placeholders for its outputs (same structure as ``k``'s)."""
    leaves, treedef = jax.tree.flatten(args)
    types = []
    for i, leaf in enumerate(leaves):
        t = type(leaf)
        if t is Lazy:
            if leaf.value is None:
                types.append(leaf.key)
                continue
            leaves[i] = leaf = leaf.value
            t = type(leaf)
        if t in _SCALARS:
            types.append(t)
        elif isinstance(leaf, np.generic):
            types.append(leaf.dtype)
        elif isinstance(leaf, _Tracer):  # inside a trace (npjax.jit, jax.jit): just run it
            # on computed operands; pending ones are computed outside the trace (the graph's
            # operands are concrete), never staged into it
            with jax.ensure_compile_time_eval():
                args = jax.tree.map(concrete, args)
            return k.now(args)
        else:
            types.append((leaf.shape, leaf.dtype, getattr(leaf, "weak_type", False)))
    key = (k, treedef, tuple(types))
    info = _shapes.get(key)
    if info is None:
        def run(*xs):
            return k.fn(*jax.tree.unflatten(treedef, xs))

        out = jax.eval_shape(run, *[_abstract(x) for x in leaves])
        out_leaves, out_tree = jax.tree.flatten(out)
        # (what every call of this key then reuses: whether an output is empty, whether
        # the result is its one output itself)
        info = _shapes[key] = (out_tree, out_leaves, any(0 in a.shape for a in out_leaves),
                               jax.tree_util.treedef_is_leaf(out_tree))
    global _segment
    with _lock:
        n = len(_calls)
        if n == 0 or n >= BOUND:  # where a long graph is cut (see ``_program_point``)
            point = (k, _program_point())
            if n == 0:
                _segment = point
            elif point == _segment or n >= 2 * BOUND:
                flush()
                _segment = point
        call = Call(k, treedef, leaves)
        outs = [Lazy(aval, call, i) for i, aval in enumerate(info[1])]
        call.empty = info[2]
        call.outs = [weakref.ref(z) for z in outs]
        _calls.append(weakref.ref(call))
    _stats.lazy["recorded"] += 1
    return outs[0] if info[3] else jax.tree.unflatten(info[0], outs)


def _program_point() -> tuple:
    """The user's code position (code object, bytecode offset) that made this call.

    A graph longer than ``BOUND`` is cut where the call that began it is made again (same
    kernel, same place in the user's code): in a loop, every cut then falls at the same point
    of the body, every later graph has the same structure, and one compiled program serves
    them all. A graph of ``2 * BOUND`` calls is cut wherever it is.
    """
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
    return (None, -1) if frame is None else (frame.f_code, frame.f_lasti)


def stored_part(value: Any, where: tuple, dyns: tuple, shape: tuple, dtype: Any) -> Any:
    """What reading the part ``where`` at positions ``dyns`` (Python ints) of ``value`` gives,
    when ``value`` is pending and made by a store of a value of that ``shape`` and ``dtype``
    into exactly that part: that stored value; else None.

    A loop like ``a[i] = a[i - 1] * 0.5 + b[i]`` reads back the row it stored the iteration
    before. Read from the array's new value, the read makes XLA fuse the update into it and
    read the value before the update, which the next update then cannot overwrite in place:
    it copies the whole array at every store. Reading the stored value leaves every array
    value with one user, the next update (what ``npjax.jit`` does with ``read_source``).
    """
    if type(value) is not Lazy or value.value is not None:
        return None
    call = value.call
    if call is None or call.leaves is None or call.kernel.store != where:
        return None
    _, at, part = jax.tree.unflatten(call.treedef, call.leaves)
    if not _same_ints(at, dyns):
        return None
    if type(part) is Lazy:
        if part.value is not None:
            part = part.value
        elif part.aval.shape == shape and part.dtype == dtype and not part.weak_type:
            return part
    if isinstance(part, jax.Array) and not isinstance(part, _Tracer) and \
            part.shape == shape and part.dtype == dtype and not part.weak_type:
        return part
    return None


def _same_ints(a: Any, b: Any) -> bool:
    """Whether two tuples (nested) of Python ints are equal (any other leaf: False)."""
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    return len(la) == len(lb) and all(
        type(x) is int and type(y) is int and x == y for x, y in zip(la, lb)) and \
        jax.tree.structure(a) == jax.tree.structure(b)


def defer_check(results: Any, check: Callable, st: dict) -> None:
    """Attach an error-state check to the call that produced ``results`` (lazy values); under
    ``raise`` or ``call`` compute them now, so that the error comes from the call's line."""
    outs = results if isinstance(results, tuple | list) else (results,)
    call = outs[0].call
    where = user_line(sys._getframe(1)) if "warn" in st.values() else None
    call.check = (check, st, threading.get_ident(), outs[0].aval, outs[0].index, where)
    UNREAD.append(call)
    if "raise" in st.values() or "call" in st.values():
        flush(*outs)


def _unread() -> list:
    """Stand-ins for the values of checked calls not run yet that nothing holds any more:
    computed by the next flush, so that their checks are made as NumPy's were."""
    UNREAD[:] = [c for c in UNREAD if c.leaves is not None]
    return [Lazy(c.check[3], c, c.check[4]) for c in UNREAD
            if not any(ref() is not None for ref in c.outs)]


@atexit.register
def _check_unread_at_exit() -> None:
    if any(c.leaves is not None for c in UNREAD):
        flush()


# --- running ---------------------------------------------------------------------------


def flush(*wanted: Lazy) -> None:
    """Compute ``wanted`` and every pending value still referenced outside the graph. The
    graph is the process's: a thread may compute values another thread recorded, whose
    checks that thread then makes at its next read (``_thread_checks``)."""
    global _calls
    with _lock:
        refs, _calls = _calls, []
        try:
            outputs = _outputs(refs, wanted)
            if outputs:
                _run(outputs)
        except BaseException:
            # nothing is lost: what was pending stays pending (a check that raised after
            # its program ran leaves those calls computed)
            _calls = [r for r in refs if (c := r()) is not None and c.leaves is not None] + \
                _calls
            raise


def _outputs(refs: list, wanted: tuple) -> list:
    calls = [c for c in (r() for r in refs) if c is not None and c.leaves is not None]
    inside = _operand_counts(calls)
    outputs = [z for z in wanted if z.value is None]
    chosen = {id(z) for z in outputs}
    for c in calls:
        for ref in c.outs:
            z = ref()
            # references: ``z``, getrefcount's argument, and operands of pending calls
            if z is not None and z.value is None and id(z) not in chosen and (
                    sys.getrefcount(z) - 2 > inside[id(z)]):
                outputs.append(z)
            del z
    return outputs + _unread() if UNREAD else outputs


def _operand_counts(calls: list) -> Counter:
    """How often each pending value is an operand of these calls (a function of its own, so
    that no loop variable is left holding a value while references are counted)."""
    inside: Counter = Counter()
    for c in calls:
        for leaf in c.leaves:
            if type(leaf) is Lazy:
                inside[id(leaf)] += 1
    return inside


def _run(outputs: list) -> None:
    # the calls the outputs need, in recording order
    needed: dict = {}
    stack = [z.call for z in outputs]
    while stack:
        c = stack.pop()
        if id(c) in needed:
            continue
        needed[id(c)] = c
        stack.extend(leaf.call for leaf in c.leaves if type(leaf) is Lazy and leaf.value is None)
    program = sorted(needed.values(), key=lambda c: c.seq)
    position = {id(c): i for i, c in enumerate(program)}
    inputs: list = []
    input_at: dict = {}
    spec = []
    for c in program:
        refs = []
        for leaf in c.leaves:
            if type(leaf) is Lazy:
                if leaf.value is None:
                    refs.append((position[id(leaf.call)], leaf.index))
                    continue
                leaf = leaf.value
            # one input per distinct Python int (view positions repeat), else per object
            ident = (int, leaf) if type(leaf) is int else id(leaf)
            at = input_at.get(ident)
            if at is None:
                at = input_at[ident] = len(inputs)
                inputs.append(leaf)
            refs.append(at)
        check = None  # else (underflow reported, a check of the result covers the operands)
        if c.check is not None:
            check = (c.check[1]["under"] != "ignore", c.kernel.propagates and not c.empty)
        spec.append((c.kernel, c.treedef, tuple(refs), check))
    out_refs = tuple((position[id(z.call)], z.index) for z in outputs)
    key = (tuple(spec), out_refs)
    got = _programs.get(key)
    cold = None
    if got is None:
        got = _compile(key, spec, out_refs, inputs)
        if got[1] is None and not got[2]:  # (its first run: on the CPU where the accelerator
            cold = _lazy_cold.run(got[0], neg_zero(), inputs)  # is slow to compile)
    if got[3]:  # the calls that need no such dtype first, on the accelerator (``_host_split``)
        first = _host_split.first_values(got[3], program, outputs, Lazy)
        if first:
            _run(first)
            return _run([z for z in outputs if z.value is None])
    if got[2]:  # (a dtype the accelerator cannot hold: always on the CPU)
        cold = _lazy_cold.run(got[0], neg_zero(), inputs, always=True)
    _stats.lazy["flushes"] += 1
    _stats.lazy["executed"] += len(program)
    _stats.lazy["outputs"] += len(outputs)
    compiled, roll = got[:2]
    if cold is not None:
        values, suspect = cold
    elif roll is None:
        values, suspect = compiled(neg_zero(), *inputs)
    else:
        try:
            values, suspect = compiled(neg_zero(), *roll.arrange(inputs))
        except _NoRoll:
            compiled = _compile(key, spec, out_refs, inputs, roll)[0]
            values, suspect = compiled(neg_zero(), *inputs)
    for z, v in zip(outputs, values):
        z.value = v
        z.call = None
    checks = [c.check for c in program]
    for c in program:  # free the operands: every value still wanted has been computed
        c.leaves = None
    if suspect is not None and bool(suspect):
        _replay_checks(checks, spec, inputs)


def _compile(key: tuple, spec: list, out_refs: tuple, inputs: list,
             roll: Roll | None = None) -> tuple:
    """The program of ``spec``, with its repeated part rolled into a loop where it has one
    (``Roll``), and its entry in the cache of programs."""
    on_cpu = False
    if roll is None:
        _stats.lazy["programs"] += 1
        on_cpu = _lazy_cold.holds_host_dtype(_program(spec, out_refs), [neg_zero(), *inputs])
        roll = None if on_cpu else Roll.find(spec, out_refs, inputs)
        if roll is not None:
            try:  # traced now: a loop the values do not fit runs unrolled instead
                jax.eval_shape(roll.program(spec, out_refs), neg_zero(), *roll.arrange(inputs))
            except _NoRoll:
                roll = None
            else:
                _stats.lazy["rolled"] += 1
    else:  # a rolled program that inputs of other types do not fit
        roll = None
    fn = _program(spec, out_refs) if roll is None else roll.program(spec, out_refs)
    split = _host_split.device_part(spec, inputs) if on_cpu else frozenset()
    got = _programs[key] = (jax.jit(fn), roll, on_cpu, split)
    return got


@functools.lru_cache(maxsize=1)
def neg_zero() -> jax.Array:
    """The -0.0 programs take as an input (``round_products``), float32: every float dtype
    holds it exactly, and a float32 one stays on an accelerator whose arrays cannot hold
    float64 (a TPU kept a float64 -0.0 as 0.0), so it takes no program to the CPU. An array
    whatever traces (``_impl.reductions._zero``)."""
    with jax.ensure_compile_time_eval():
        return jnp.asarray(-0.0, np.float32)


def _program(spec: list, out_refs: tuple) -> Callable:
    later = _stored_checks(spec, out_refs, 0, len(spec))

    def program(neg_zero, *inputs):
        results: list = []
        watch = FiniteWatch()
        waiting: dict = {}
        for i, (k, treedef, refs, _) in enumerate(spec):
            leaves = [inputs[r] if type(r) is int else results[r[0]][r[1]] for r in refs]
            outs = jax.tree.leaves(k.fn(*jax.tree.unflatten(treedef, leaves)))
            if k.products:
                outs = round_products(outs, neg_zero)
            results.append(outs)
            _watch(watch, waiting, later, i, spec[i], leaves, outs)
        suspect = watch.flag()
        return [results[i][j] for i, j in out_refs], suspect

    return program


# --- rolling: a loop body recorded many times runs as one compiled loop ------------------

MIN_TRIPS = 4  # repetitions of a body before it is rolled
MAX_BODY = 64  # calls in a rolled body, at most


class _NoRoll(Exception):
    """The repeated calls do not fit a loop after all (types that differ between trips)."""


def _kinds(entry: tuple) -> tuple:
    k, treedef, refs, check = entry
    return (k, treedef, check, tuple(type(r) is int for r in refs))


class Roll:
    """How a program whose calls repeat the same body (the calls of a Python loop recorded
    iteration by iteration) runs that body as a ``lax.scan``: compiled once whatever the
    trip count, and XLA updates an array the body writes in place, where a straight program
    of a thousand writes into one array copies the array at each write and compiles for
    seconds. The first trip and whatever comes before or after the repeats run as written.

    ``slots[j]``: where call ``j`` of the body takes each operand: ("in", input) the same
    input every trip, ("x", stack) a Python scalar or NumPy scalar that changes with the trip
    (stacked into an array), ("local", call, out) an output of an earlier call of the same
    trip, ("carry", n) an output of the trip before, ("pre", position, out) a value computed
    before the loop.
    """

    def __init__(self, start: int, size: int, trips: int) -> None:
        self.start, self.size, self.trips = start, size, trips  # the loop: trips 1 .. trips-1
        self.slots: list = []
        self.stacks: list = []  # per stacked slot: the input of each trip
        self.carry: list = []  # (call in body, out) each carried value comes from
        self.carry_at: dict = {}
        self.keep: list = []  # inputs given to the program as they are
        self.last = 0  # (a plan failed) the latest trip whose value is used after the loop

    @property
    def stop(self) -> int:
        return self.start + self.size * self.trips

    @staticmethod
    def find(spec: list, out_refs: tuple, inputs: list) -> Roll | None:
        """The loop of ``spec`` (its longest repeated run of calls), or None."""
        n = len(spec)
        if n < MIN_TRIPS * 2:
            return None
        ids: dict = {}
        kinds = [ids.setdefault(_kinds(e), len(ids)) for e in spec]
        best = (0, 0, 0)  # (calls covered, start, body size)
        for size in range(1, min(MAX_BODY, n // MIN_TRIPS) + 1):
            run = 0
            for i in range(n - size - 1, -1, -1):
                run = run + 1 if kinds[i] == kinds[i + size] else 0
                covered = (run + size) // size * size
                if covered > best[0]:
                    best = (covered, i, size)
        covered, start, size = best
        if covered < MIN_TRIPS * size or covered < 8:
            return None
        roll = Roll(start, size, covered // size)
        while not roll._plan(spec, out_refs, inputs):
            # a value used after the loop was made by an earlier trip than the last (a
            # temporary named in the loop, held when the graph was cut): that trip ends the
            # loop, the trips after it run as written
            trips = roll.last + 1
            if not MIN_TRIPS <= trips < roll.trips or trips * size < 8:
                return None
            roll = Roll(start, size, trips)
        return roll

    def _plan(self, spec: list, out_refs: tuple, inputs: list) -> bool:
        start, size, trips = self.start, self.size, self.trips
        loop = range(1, trips)
        used: set = set()
        for j in range(size):
            slots = []
            for t in range(len(spec[start + j][2])):
                refs = [spec[start + p * size + j][2][t] for p in loop]
                slot = self._slot(refs, j, [start + p * size for p in loop], inputs)
                if slot is None:
                    return False
                if slot[0] == "in":
                    used.add(slot[1])
                slots.append(slot)
            self.slots.append(slots)
        body = range(self.stop - size, self.stop)
        outside = [r for e in spec[self.stop:] for r in e[2] if type(r) is not int]
        late = [(q, o) for q, o in [*outside, *out_refs]  # values used after the loop
                if self.start + size <= q < self.stop]
        early = [q for q, _ in late if q not in body]
        if early:  # (the earliest: cutting at a later one would find the earlier next time,
            # once per trip, when every trip's value is used after the loop)
            self.last = (min(early) - start) // size
            return False
        for q, o in late:
            self._carried(q - body.start, o)
        for i in [*range(start + size), *range(self.stop, len(spec))]:
            used.update(r for r in spec[i][2] if type(r) is int)
        self.keep = sorted(used)
        return True

    def _slot(self, refs: list, j: int, bases: list, inputs: list) -> tuple | None:
        first = refs[0]
        if type(first) is int:
            if all(r == first for r in refs):
                return ("in", first)
            values = [inputs[r] for r in refs]
            first = values[0]
            t = type(first)
            if t is np.ndarray:  # a 0-d array made anew each trip (``Z[...] = 0``'s value)
                if first.shape or any(type(v) is not t or v.shape or v.dtype != first.dtype
                                      for v in values):
                    return None
            elif not (t in _SCALARS or isinstance(first, np.generic)) or any(
                    type(v) is not t for v in values):
                return None
            self.stacks.append(refs)
            return ("x", len(self.stacks) - 1, t in _SCALARS)
        rel = {(q - b, o) for (q, o), b in zip(refs, bases)}
        if len(rel) == 1:
            (d, o), = rel
            if 0 <= d < j:
                return ("local", d, o)
            if -self.size <= d < 0:
                return ("carry", self._carried(d + self.size, o))
        if all(r == first for r in refs) and first[0] < self.start + self.size:
            return ("pre", first[0], first[1])
        return None

    def _carried(self, j: int, o: int) -> int:
        at = self.carry_at.get((j, o))
        if at is None:
            at = self.carry_at[(j, o)] = len(self.carry)
            self.carry.append((j, o))
        return at

    def arrange(self, inputs: list) -> list:
        """The program's arguments: the inputs it takes as they are, then the stacks."""
        return [inputs[i] for i in self.keep] + [
            np.asarray([inputs[r] for r in refs]) for refs in self.stacks]

    def program(self, spec: list, out_refs: tuple) -> Callable:
        start, size, stop = self.start, self.size, self.stop
        first_loop = start + size
        keep = {i: n for n, i in enumerate(self.keep)}
        checked = any(e[3] is not None for e in spec)
        # checks moved to the stores of their results, in each part run on its own
        later = {**_stored_checks(spec, out_refs, 0, first_loop),
                 **_stored_checks(spec, out_refs, first_loop, first_loop + size),
                 **_stored_checks(spec, out_refs, stop, len(spec))}

        def program(neg_zero, *args):
            stacks = args[len(keep):]
            results: dict = {}
            watch = FiniteWatch()
            waiting: dict = {}

            def call(i, leaves, watch):
                k, treedef, _, check = spec[i]
                outs = jax.tree.leaves(k.fn(*jax.tree.unflatten(treedef, leaves)))
                if k.products:
                    outs = round_products(outs, neg_zero)
                _watch(watch, waiting, later, i, spec[i], leaves, outs)
                return outs

            def value(r):
                if type(r) is int:
                    return args[keep[r]]
                q, o = r
                if first_loop <= q < stop:
                    return carry[self.carry_at[(q - (stop - size), o)]]
                return results[q][o]

            for i in range(first_loop):
                results[i] = call(i, [value(r) for r in spec[i][2]], watch)
            carry = tuple(results[start + j][o] for j, o in self.carry)

            def body(state, xs):
                carry, bad = state
                inner = FiniteWatch()
                local: list = []
                for j in range(size):
                    leaves = []
                    for slot in self.slots[j]:
                        kind = slot[0]
                        if kind == "in":
                            leaves.append(args[keep[slot[1]]])
                        elif kind == "x":
                            x = xs[slot[1]]
                            leaves.append(_weak(x) if slot[2] else x)
                        elif kind == "local":
                            leaves.append(local[slot[1]][slot[2]])
                        elif kind == "carry":
                            leaves.append(carry[slot[1]])
                        else:
                            leaves.append(results[slot[1]][slot[2]])
                    local.append(call(first_loop + j, leaves, inner))
                flag = inner.flag()
                if flag is not None:
                    bad = bad | flag
                return (tuple(local[j][o] for j, o in self.carry), bad), None

            try:
                (carry, bad), _ = jax.lax.scan(body, (carry, jnp.zeros((), bool)),
                                               tuple(stacks), length=self.trips - 1)
            except TypeError as exc:  # a carried value whose type changes between trips
                raise _NoRoll from exc
            for i in range(stop, len(spec)):
                results[i] = call(i, [value(r) for r in spec[i][2]], watch)
            flag = watch.flag()
            if not checked:
                return [value(r) for r in out_refs], None
            return [value(r) for r in out_refs], bad if flag is None else bad | flag

        return program


def _weak(x: Any) -> Any:
    """A trip's Python scalar, weakly typed as the scalar itself is in a program."""
    from jax._src.lax.lax import _convert_element_type
    return _convert_element_type(x, x.dtype, weak_type=True)
