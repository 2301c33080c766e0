"""``npjax.jit``: compile a whole NumPy-style function, with NumPy's in-place semantics.

How it works (functionalisation). The arguments are walked once per call: every npjax array
is replaced by its *root owner* (views of one base share one input, so aliasing is kept), host
NumPy arrays and ``jax.Array`` values are inputs too, everything else is static (part of the
cache key). Inside one ``jax.jit`` trace each input becomes a fresh npjax owner holding a
tracer, and every view argument is rebuilt on it with the same lens, so ``a[i] = v``,
``a += b``, ``out=`` and writes through views simply rebind tracers, exactly as they rebind
device buffers in eager mode. The compiled function returns the results and the final value of
every input root whose value changed; after the call these are written back into the caller's
arrays (and host NumPy arrays), so the caller's arrays and all their views see what NumPy would
have left there.

Rules:
- Python scalars, strings, tuples, NumPy scalars and dtypes are static: a new value retraces
  (one compiled program per value, cached). ``static_argnums``/``static_argnames`` add more.
- ``for i in range(n)`` loops (and ``for x in a`` over an npjax array) whose body keeps its
  shapes compile once as a ``lax.fori_loop`` (``npjax._compile._loops``: exact, or left unrolled);
  other Python loops and branches on static values unroll at trace time.
- ``x[m]`` with a traced mask is a masked value (``npjax._compile._masked``): used elementwise,
  written back under the same mask (``x[m] = x[m] * 2``, ``x[m] += 1``) or reduced
  (``np.sum(x[x > 0])``, ``x[m].max()``) it traces, one program for every count.
- Value-dependent Python control flow (``if x.sum() > 0``, ``float(x)``, ``int(x)``) and
  data-dependent shapes (``a[a > 0]`` returned or printed, ``nonzero``) cannot be traced:
  the call raises ``npjax.JitError`` naming the user's file and line; with
  ``fallback="eager"`` that call (and
  later calls with the same cache key) runs eagerly instead. Host-NumPy fallback functions
  raise the same way.
- Bounds of integer index arrays, and other value checks NumPy makes (a NumPy scalar that does
  not fit the array it is stored into), are checked on the device: when one fails, the call is
  run again eagerly, which raises NumPy's exception at NumPy's point (with NumPy's partial
  writes). Calls with such checks wait for the device at the end of each call.
- Arrays captured from an enclosing scope (globals, closures) are constants, read when the
  function is traced: pass arrays that change as arguments. Writing to a captured array raises
  ``JitError``.
- Returned views of arguments come back as views of the caller's arrays; other returned views
  come back as views of new arrays. A view of a host NumPy argument comes back as a copy.
- Lists and dicts among the arguments are made anew for the trace; where the function
  replaces, adds or removes items (``P[i] = P[i] + V[i]``, ``P.append(x)``), the caller's
  list or dict gets the items NumPy's run leaves there (the caller's own arrays where they
  are the same objects, new arrays otherwise), on every call. A list argument the function
  returns is the caller's list.
- When a call raises while tracing, the arguments are left unchanged (NumPy would have kept
  the writes made before the failing line). An exception of the user's (raised by a signal
  handler, by a ``raise`` or ``assert`` of the user's code, or of a class that is not
  Python's, NumPy's, JAX's or npjax's: ``_user_code.users``) propagates at once, and later
  calls are compiled as before; NumPy's and JAX's exceptions raised by the trace of NumPy's
  semantics, and Python's own exceptions of an operation (``1.0 / t`` at ``t == 0``), rerun
  the call eagerly, which raises them at NumPy's point after NumPy's writes (where it does
  not raise, npjax could not trace the code: the call and later ones of its key run
  eagerly, ``stats()["jit_eager"]`` names the line).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import traceback
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import jaxlib
import numpy as np

from npjax._pure import _dtypes
from npjax._pure._errors import JitError, ShapeNeeded
from npjax._compile._while import LoopNeeded
from npjax._runtime import _context, _errstate, _finite_watch, _stats
from npjax._core import _views
from npjax._execution import _host_split, _lazy, _lazy_cold
from npjax._compile import _loop_source, _masked, _masked_index, _store_merge
from npjax._compile import _jit_inputs as _inputs
from npjax._compile import _signals
from npjax._compile import _user_code as _watch
from npjax._compile._jit_inputs import HostView, Inputs, Unhashable, layout_key, static_key
from npjax._core._ndarray import lens_view, ndarray
from npjax._runtime._context import current, policy
from npjax._runtime._errstate import PACKAGE_DIR

__all__ = ["JitError", "jit"]

_Tracer = jax.core.Tracer
_TRACE_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                 jax.errors.TracerIntegerConversionError,
                 jax.errors.NonConcreteBooleanIndexError, _masked.CountNeeded,
                 ShapeNeeded, LoopNeeded)
# XLA's constant folder evaluates operations on constants (arrays the function makes, or
# NumPy arrays it captures) by another code path than its compiled code, and differs from it:
# a sort along axis 0 of a captured 2x3 array came back unsorted; a complex64 array of ones
# times 1e300 gave inf+0j (compiled: inf+nanj). npjax.jit computes them as compiled code.
_NO_CONSTANT_FOLDING = {"xla_disable_hlo_passes": "constant_folding"}
_OWN_ZERO_FROM = 1024  # results this large get a -0.0 of their own (``_Trace.product_zero``)
_LIBRARY_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (jax, np))


# --- tracing state -----------------------------------------------------------------------


class _Trace:
    """What one trace collects: device-side checks and writes to pre-existing arrays."""

    def __init__(self, neg_zero: jax.Array) -> None:
        self.neg_zero = neg_zero  # a traced -0.0 that rounds products (``_lazy.round_products``)
        self._zeros = 0  # how many ``product_zero`` gave
        self.checks: list[jax.Array] = []
        self.watch = _finite_watch.FiniteWatch()  # float results of ufuncs (error state)
        self.writes: list[tuple[Any, Any]] = []
        self._seen: set[int] = set()
        self.loop_probe: Any = None  # while a loop body is probed: sees every write
        self._part: tuple | None = None  # (array value, where, part) of the latest store
        self._before_read = False  # whether a read took the value before that store
        self.joins = _store_merge.Joins()  # stores traced as one (``_store_merge``)
        self.updating: Any = None  # the view an in-place operator (``a[1:] -= x``) updates
        self.loops: list[Any] = []  # ``_loops.LoopOutcome`` of each loop traced
        self.unrolled = 0  # iterations loops ran unrolled (``_loops.UNROLL_LIMIT``)
        # id(list) -> what a rolled loop last stacked of a list of arrays (``_loop_lists``)
        self.stacks: dict[int, tuple] = {}
        # id(traced integer array) -> (it, lo, hi): every entry lies in [lo, hi] by
        # construction (``clip`` by Python ints); index bounds that fit are not checked
        self.bounds: dict[int, tuple] = {}
        # id(traced integer scalar) -> (it, source, positions, offset): read at positions of
        # an owner's value ``source``, plus ``offset`` (``_core._traced_index``)
        self.symbols: dict[int, tuple] = {}

    # ``a[mask]`` with a traced mask, and writes of such reads (``npjax._compile._masked``)
    # (and ``N[xi[mask]]``, ``N[xi[mask]] = 1``: ``npjax._compile._masked_index``)
    mask_read = staticmethod(_masked_index.mask_read)
    mask_store = staticmethod(_masked_index.mask_store)

    def product_zero(self, size: int) -> jax.Array:
        """A -0.0 for one call's ``_lazy.round_products`` (results of up to ``size``
        elements), computed apart from every other call's (``neg_zero`` times the call's
        number) for arrays. XLA merges the broadcasts of one shared zero into one, and where
        that broadcast fed a YNN reduction and another kernel too, XLA's CPU backend wrote it
        out as a full array that the reduction read back. Small results share the zero
        (their broadcast costs less than a kernel computing a zero of their own)."""
        if size < _OWN_ZERO_FROM:
            return self.neg_zero
        self._zeros += 1
        return self.neg_zero * float(self._zeros + 1)

    def check(self, bad: jax.Array) -> None:
        """Record a traced boolean that is True when eager NumPy would have raised."""
        self.checks.append(jnp.asarray(bad, bool).reshape(()))

    def note_stored(self, root: ndarray, value: Any, lens: tuple, dyns: tuple,
                    before: Any) -> None:
        """Called after ``value`` was stored into ``root`` through ``lens`` (``root._value``
        was ``before``): the error-state check of ``value`` (if it is a watched result)
        reads it back from ``root`` (``_finite_watch.FiniteWatch.stored``)."""
        box = None
        if len(lens) == 1 and type(lens[0]) is _views.Box and all(
                isinstance(d, int | np.integer) for d in dyns[0]):
            box = (tuple(int(d) for d in dyns[0]), lens[0].static)
        same = isinstance(value, jax.Array) and value.dtype == root._value.dtype
        where = ("view", lens, dyns)
        self.joins.join(root, where, value if same else None, before, self._part,
                        self.watch)
        self.watch.stored(value, root, before, root._value,
                          lambda v: _views.apply_get(lens, v, dyns), box)
        self.note_part(before, root._value, where, value if same else None)

    def note_part(self, before: Any, value: Any, where: tuple, part: Any) -> None:
        """A store changed an owner's value from ``before`` to ``value``, which holds ``part``
        at ``where`` (("element", positions) or ("view", lens, dynamic positions); Python
        ints). Until the next store, a read of that part is ``part`` itself and a read of a
        box apart from it reads ``before`` (``read_source``): reading either from ``value``
        made XLA fuse the update into the read and copy the array to update it in place."""
        self._before_read = False
        before = self.joins.noted(before, value, where, part)
        if all(type(p) is int for p in _flat_ints(where[-1])) or where[0] == "element":
            self._part = (value, where, part, before, _box(where))
        else:
            self._part = None

    def read_source(self, value: Any, where: tuple, updating: bool = False) -> tuple[Any, bool]:
        """(the part stored at ``where`` of ``value``, True), or (the value to read that
        part from, False): ``value`` or, for a part apart from the latest store, the value
        before it (``note_part``). ``updating``: the part is read to be stored back in
        place (``a[1:] -= x`` after ``a[0] = y``): read from ``value``, which XLA updates
        in the same loop as the read, unless the value before was read since the store
        (XLA then keeps that value, and reading it again costs nothing more)."""
        got = self._part
        self.joins.read(value)
        if got is None or got[0] is not value:
            if got is not None and got[3] is value:
                self._before_read = True
            return value, False
        if _same_part(got[1], where):  # (a part of another dtype, or broadcast: read back)
            return (value, False) if got[2] is None else (got[2], True)
        if (not updating or self._before_read) and _finite_watch.apart(got[4], _box(where)):
            self._before_read = True
            self.joins.read(got[3])
            return got[3], False
        return value, False

    def note_write(self, root: ndarray) -> None:
        """Called before a write to ``root``: remember concrete (pre-trace) values."""
        if self.loop_probe is not None:
            self.loop_probe(root)
        if isinstance(root._value, _Tracer) or id(root) in self._seen:
            return
        self._seen.add(id(root))
        self.writes.append((weakref.ref(root), root._value))


def _flat_ints(dyns: tuple) -> list:
    """The positions of ``dyns`` (a tuple of ints, or of tuples of them), flattened."""
    return [p for d in dyns for p in (d if type(d) is tuple else (d,))]


def _same_part(a: tuple, b: tuple) -> bool:
    """Whether two parts ``note_part`` names are known to be the same. Element positions
    may be traced (a loop index, ``_loop_index.LoopIndex.traced``): the same object."""
    if a[0] != "element" or b[0] != "element":
        return a[0] == b[0] == "view" and all(type(p) is int for p in _flat_ints(a[-1])) \
            and all(type(p) is int for p in _flat_ints(b[-1])) and a == b
    return len(a[1]) == len(b[1]) and all(
        p is q or (type(p) is int and type(q) is int and p == q) for p, q in zip(a[1], b[1]))


def _box(where: tuple) -> tuple | None:
    """((start, ...), (size, ...)) in the root of a part ``note_part`` names, or None."""
    if where[0] == "element":
        if not all(type(p) is int for p in where[1]):
            return None
        return where[1], (1,) * len(where[1])
    lens, dyns = where[1], where[2]
    if lens and type(lens[0]) is _views.Box and all(
            type(step) is _views.Reshape for step in lens[1:]):
        return dyns[0], lens[0].static
    return None


class _Rebuild:
    """Inside the trace: the arguments with arrays replaced by owners holding tracers."""

    def __init__(self, inputs_spec: tuple, roots: list, root_vals: Sequence, dyns: Any) -> None:
        self.wrappers: dict[int, ndarray] = {}  # root index -> wrapper owner
        self.roots = roots
        self.root_vals = root_vals
        self.dyns = dyns
        self.dyn_at = 0
        # id(wrapper object) -> position of the caller's object among the array arguments
        # (``Inputs.objs`` of each call: a program returns that call's object)
        self.arg_of: dict[int, int] = {}
        self.n_objs = 0
        self.objs: list[Any] = []
        # the lists and dicts made for the trace, in the order of ``Inputs.containers``:
        # (the new container, its items as made)
        self.containers: list[tuple[Any, tuple]] = []

    def owner(self, k: int, scalar: bool, readonly: bool) -> ndarray:
        w = self.wrappers.get(k)
        if w is None:
            root = self.roots[k]
            w = ndarray._owner(self.root_vals[k], scalar)
            if isinstance(root, ndarray):
                w._layout = root._layout
            w._readonly = readonly
            self.wrappers[k] = w
        return w

    def _obj(self) -> int:
        self.n_objs += 1
        return self.n_objs - 1

    def build(self, spec: Any, x: Any) -> Any:
        kind = spec[0]
        if kind == "A":
            w = self.owner(spec[1], spec[4], spec[5])
            self.arg_of[id(w)] = self._obj()
            return w
        if kind == "V":
            w = self.owner(spec[1], spec[4], spec[5])
            lens = []
            for step in x._lens:
                n = len(step.dynamic)
                dyn = tuple(self.dyns[self.dyn_at + i] for i in range(n))
                self.dyn_at += n
                lens.append(type(step)(step.static, dyn))
            v = lens_view(w, tuple(lens), x._root_shape, x._layout, x._readonly)
            self.arg_of[id(v)] = self._obj()
            return v
        if kind == "J":
            self._obj()
            return self.root_vals[spec[1]]
        if kind == "H":
            w = self.owner(spec[1], False, not spec[4])
            self.arg_of[id(w)] = self._obj()
            return w
        if kind == "S":
            return x
        t, items = spec
        if t is dict or t is list:
            at = len(self.containers)
            self.containers.append(None)
            if t is dict:
                made: Any = {k: self.build(s, x[k]) for k, s in items}
                self.containers[at] = (made, tuple(made.items()))
            else:
                made = [self.build(s, v) for s, v in zip(items, x)]
                self.containers[at] = (made, tuple(made))
            return made
        vals = [self.build(s, v) for s, v in zip(items, x)]
        if t is tuple:
            return t(vals)
        return t(*vals)  # namedtuple

    def changed(self) -> list[tuple[int, Any]]:
        """(position, container) of each list or dict argument whose items the function
        changed (another object at a position, one added or removed)."""
        out = []
        for at, (made, items) in enumerate(self.containers):
            now = tuple(made.items()) if type(made) is dict else tuple(made)
            if len(now) != len(items) or any(
                    (a[0] != b[0] or a[1] is not b[1]) if type(made) is dict else a is not b
                    for a, b in zip(now, items)):
                out.append((at, made))
        return out


def _dyn_leaf(value: Any, leaves: list) -> Any:
    if isinstance(value, _Tracer | jax.Array):
        leaves.append(value)
        return ("leaf", len(leaves) - 1)
    return ("int", int(value))


class _Outputs:
    """Inside the trace: the result as a spec plus a list of array leaves."""

    def __init__(self, rebuild: _Rebuild) -> None:
        self.rb = rebuild
        self.leaves: list[Any] = []
        self.out_roots: dict[int, int] = {}  # id(internal root) -> leaf index
        self.keep: list[Any] = []  # internal roots, alive until the trace ends
        self.wrapper_root: dict[int, int] = {id(w): k for k, w in rebuild.wrappers.items()}
        # id(list or dict made for an argument) -> its position (the caller's object)
        self.containers = {id(c[0]): at for at, c in enumerate(rebuild.containers)}

    def leaf(self, value: Any) -> int:
        self.leaves.append(value)
        return len(self.leaves) - 1

    def lens_spec(self, r: ndarray) -> tuple:
        steps = tuple((type(s), s.static, tuple(_dyn_leaf(d, self.leaves) for d in s.dynamic))
                      for s in r._lens)
        return (steps, r._root_shape, r._layout, r._readonly)

    def walk(self, x: Any) -> Any:
        if isinstance(x, ndarray):
            if id(x) in self.rb.arg_of:
                return ("arg", self.rb.arg_of[id(x)])
            root = x if x._base is None else x._base
            k = self.wrapper_root.get(id(root))
            if k is not None and isinstance(self.rb.roots[k], ndarray):
                # a new view of an argument (an owner argument itself is in arg_of)
                return ("argview", k, self.lens_spec(x))
            if k is not None:  # a view of a host NumPy argument: a copy
                return ("copy", self.leaf(x._read()), x._readonly)
            if not isinstance(root._value, _Tracer):
                # an array from outside the function (a closure's, a global's; writes to it
                # are refused): that very array, as NumPy returns it (its value may be pending
                # lazy work or host data, neither of which is a traced output)
                return ("const", x)
            j = self.out_roots.get(id(root))
            if j is None:
                j = self.out_roots[id(root)] = self.leaf(root._value)
                self.keep.append(root)
            layout = root._layout if root._layout is not None and \
                root._layout.shape == root._value.shape else None
            if x._base is None:
                return ("own", j, root._scalar, layout, root._readonly)
            return ("view", j, root._scalar, layout, self.lens_spec(x))
        if isinstance(x, jax.Array):
            return ("jax", self.leaf(x))
        if type(x) is _masked.MaskedValue:
            raise _masked.CountNeeded("returning x[mask] (a traced mask) from the function "
                                      "needs the number of elements it selects")
        t = type(x)
        if (t is list or t is dict) and id(x) in self.containers:
            return ("container", self.containers[id(x)])  # the caller's list or dict
        return self.items(x)

    def items(self, x: Any) -> Any:
        """The spec of a value that is not an array (a container: its items)."""
        t = type(x)
        if t is tuple or t is list:
            return (t, tuple(self.walk(v) for v in x))
        if t is dict:
            return (dict, tuple((k, self.walk(v)) for k, v in x.items()))
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return (t, tuple(self.walk(v) for v in x))
        if t is np.ndarray:
            return ("host", x.copy())
        return ("const", x)


def _unpack_dyn(spec: tuple, leaves: Sequence) -> tuple:
    """A lens step's dynamic arguments: ints (offsets) back as ints, arrays (the positions
    of a ``Gather`` step, as ``as_strided`` makes) as they are."""
    return tuple((int(leaf) if np.ndim(leaf := leaves[d[1]]) == 0 else leaf)
                 if d[0] == "leaf" else d[1] for d in spec)


def _make_view(root: ndarray, lens_spec: tuple, leaves: Sequence) -> ndarray:
    steps, root_shape, layout, readonly = lens_spec
    return lens_view(root, tuple(cls(static, _unpack_dyn(dyn, leaves))
                                 for cls, static, dyn in steps), root_shape, layout, readonly)


def _build_result(spec: Any, leaves: Sequence, made: dict) -> Any:
    kind = spec[0]
    if kind == "arg":
        return made["objs"][spec[1]]
    if kind == "own" or kind == "view":
        root = made.get(spec[1])
        if root is None:
            root = made[spec[1]] = ndarray._owner(leaves[spec[1]], spec[2])
            root._layout = spec[3]
        if kind == "own":
            root._readonly = spec[4]
            return root
        return _make_view(root, spec[4], leaves)
    if kind == "copy":
        out = ndarray._owner(leaves[spec[1]])
        out._readonly = spec[2]
        return out
    if kind == "argview":
        return _make_view(made["roots"][spec[1]], spec[2], leaves)
    if kind == "jax":
        return leaves[spec[1]]
    if kind == "host":
        return spec[1].copy()
    if kind == "const":
        return spec[1]
    if kind == "container":
        return made["containers"][spec[1]]
    t, items = spec
    if t is dict:
        return {k: _build_result(s, leaves, made) for k, s in items}
    vals = [_build_result(s, leaves, made) for s in items]
    if t is tuple or t is list:
        return t(vals)
    return t(*vals)


# --- errors ------------------------------------------------------------------------------


def _user_site(exc: BaseException, fn: Callable) -> str:
    """``file:line`` of the innermost frame of user code in the traceback."""
    site = None
    for frame in traceback.extract_tb(exc.__traceback__):
        name = frame.filename
        if name.startswith(_LIBRARY_DIRS) or name.startswith(PACKAGE_DIR) or name.startswith("<"):
            continue
        site = f"{name}:{frame.lineno}"
    if site is None:
        code = getattr(fn, "__code__", None)
        site = f"{code.co_filename}:{code.co_firstlineno}" if code else "<unknown>"
    return site


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().split("\n", 1)[0]


def _why(exc: BaseException) -> str:
    """An exception as the report names it: its class and the first line of its message."""
    first = _first_line(exc)[:200]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _jit_error(exc: BaseException, fn: Callable) -> JitError:
    first = _first_line(exc) or type(exc).__name__
    if isinstance(exc, ShapeNeeded | LoopNeeded):  # npjax's own reason, said as it is
        return JitError(f"npjax.jit({getattr(fn, '__qualname__', fn)!s}): "
                        f"{_user_site(exc, fn)}: {first}")
    return JitError(
        f"npjax.jit({getattr(fn, '__qualname__', fn)!s}): {_user_site(exc, fn)}: this line "
        "needs a value that is only known when the function runs (value-dependent Python "
        "control flow such as `if x.sum() > 0`, float()/int()/bool()/print of an array, a "
        "data-dependent shape such as `a[a > 0]`, or a function that runs on host NumPy). "
        "Rewrite it with npjax.where, make the value static (static_argnums), or use "
        f"npjax.jit(fn, fallback='eager'). [{type(exc).__name__}: {first}]")


# --- the compiled function ---------------------------------------------------------------


class _Entry:
    """One compiled program (per cache key) and what its trace learnt."""

    __slots__ = ("compiled", "containers", "eager", "eager_why", "layouts", "on_cpu", "own",
                 "result", "written")

    def __init__(self) -> None:
        self.compiled: Any = None
        # it holds a dtype the backend's arrays cannot (float64 on a TPU): how it runs then,
        # on the CPU backend, whole or after its part that needs none (``_host_split``)
        self.on_cpu: Any = None
        self.eager: str | None = None  # fallback="eager": the user's line that cannot trace
        self.eager_why = ""  # and the exception its trace raised ("TypeError: ...")
        self.result: Any = None  # the result's spec (``_Outputs.walk``)
        self.own: tuple | None = None  # (scalar, layout, readonly) when it is one new owner
        self.written: tuple = ()  # the roots the program returns new values of
        self.layouts: dict = {}  # root -> its new layout, or _SAME
        # (position, spec of its items) of each list or dict argument the function changed
        self.containers: tuple = ()

    def learn(self, result: Any, written: tuple, layouts: dict, containers: tuple) -> None:
        """Keep what a trace learnt (set before the program's first run returns)."""
        self.written, self.layouts, self.result = written, layouts, result
        self.containers = containers
        self.own = result[2:] if result[0] == "own" and result[1] == 0 and \
            not containers else None


class Jitted:
    """A NumPy-style function compiled with ``npjax.jit`` (call it like the function)."""

    def __init__(self, fn: Callable, static_argnums: Sequence[int], static_argnames:
                 Sequence[str], fallback: str, roll_loops: bool = True) -> None:
        if fallback not in ("raise", "eager"):
            raise ValueError(f"npjax.jit: fallback={fallback!r}; expected 'raise' or 'eager'")
        self._fn = fn
        self._static_argnums = frozenset(static_argnums)
        self._static_argnames = frozenset(static_argnames)
        self._fallback = fallback
        self._roll_loops = roll_loops
        self._cache: dict[Any, _Entry] = {}
        self._last: tuple | None = None
        self._calling = threading.local()  # ``.now``: the call being traced, per thread
        self.loops: tuple = ()  # ``LoopOutcome`` of each loop in the latest trace
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<npjax.jit of {getattr(self._fn, '__qualname__', self._fn)!r}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def clear_cache(self) -> None:
        """Forget every compiled program."""
        self._cache.clear()
        self._last = None

    def _cache_size(self) -> int:
        return len(self._cache)

    def _eager(self, args: tuple, kwargs: dict) -> Any:
        """Run the function eagerly (even under lazy mode: NumPy's errors at their line)."""
        with policy(mode="eager"):
            return self._fn(*args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = Inputs()
        try:
            arg_specs = inputs.walk_args(args, self._static_argnums)
            kw_specs = tuple((k, ("S", static_key(v)) if k in self._static_argnames
                              else inputs.walk(v)) for k, v in kwargs.items()) if kwargs else ()
        except Unhashable as exc:
            raise TypeError(f"npjax.jit({self.__qualname__}): {exc}; pass arrays, "
                            "Python scalars or hashable values, or mark it static") from None
        except HostView:
            return self._eager(args, kwargs)
        st = _errstate.state()  # the error state decides which device checks are traced
        key = (arg_specs, kw_specs, current(), st["divide"], st["over"], st["under"],
               st["invalid"])
        last = self._last  # (key, entry) of the latest call: equal keys skip the hashing
        if last is not None and last[0] == key:
            entry = last[1]
        else:
            entry = self._cache.get(key)
            if entry is None:
                entry = self._cache[key] = _Entry()
            self._last = (key, entry)
        if entry.eager is not None:
            _stats.record_jit_eager(self.__qualname__, entry.eager)
            return self._eager(args, kwargs)
        roots = inputs.roots
        root_vals, pinned = _inputs.send(roots)  # (host memory read in place: pinned)
        dyns = np.asarray(inputs.dyns, np.int64) if inputs.dyns else None
        first = entry.compiled is None
        if first:
            entry.compiled = jax.jit(self._traced_fn(entry, arg_specs, kw_specs),
                                     compiler_options=_NO_CONSTANT_FOLDING)
        calling = self._calling
        calling.now = (args, kwargs, roots)  # read by a trace, if any
        failed = None  # an exception raised while tracing
        watching = _watch.depth()  # (loop bodies' traces this call is inside)
        signals = _signals.guard(sys._getframe()) if first else None
        try:
            call = (root_vals, dyns, _lazy.neg_zero())
            if first and _lazy_cold.held_on_cpu():  # (a dtype the accelerator cannot hold)
                entry.on_cpu = _host_split.jit_runner(entry.compiled, call, _NO_CONSTANT_FOLDING)
            outs, written, flags = (entry.on_cpu or entry.compiled)(*call)
            if pinned:
                outs, written = _inputs.unpin(pinned, outs, written, flags)
        except _TRACE_ERRORS as exc:
            if first or self._fallback == "eager":
                entry.compiled = None
            if self._fallback != "eager":
                raise _jit_error(exc, self._fn) from None
            entry.eager, entry.eager_why = _user_site(exc, self._fn), _why(exc)
        except JitError:  # npjax's refusal of what it cannot trace
            if first:
                entry.compiled = None
            raise
        except Exception as exc:
            if first:
                entry.compiled = None
            if _watch.users(exc):  # the user's (a signal handler's, a raise statement's):
                raise  # at once, as without npjax; later calls are compiled as before
            entry.compiled = None
            failed = exc
        except BaseException:
            if first:
                entry.compiled = None
            raise
        finally:
            calling.now = None
            _watch.restore(watching)
            if signals is not None:
                signals.remove()
        if signals is not None and signals.noted is not None:
            entry.compiled = None  # (a handler's exception that JAX's trace swallowed)
            raise signals.noted
        if failed is not None:
            # An exception of npjax's trace of NumPy's semantics (NumPy's OverflowError at
            # some iteration; ``_user_code.users`` tells them from the user's): the eager
            # run raises it again, outside the handler, after the writes NumPy makes before
            # it. Where it does not, the trace failed where NumPy does not: this call and
            # the later ones of its key run eagerly, and the report names the line.
            result = self._eager(args, kwargs)
            entry.eager, entry.eager_why = _user_site(failed, self._fn), _why(failed)
            _stats.record_jit_eager(self.__qualname__, entry.eager, entry.eager_why)
            return result
        if entry.eager is not None:  # fallback="eager" after a trace error
            _stats.record_jit_eager(self.__qualname__, entry.eager, entry.eager_why)
            return self._eager(args, kwargs)
        if flags is not None and np.asarray(flags):  # (one bool: the cheapest read back)
            # A device-side check failed: eager NumPy semantics raise at the failing line.
            return self._eager(args, kwargs)
        for k, new in zip(entry.written, written):
            root = roots[k]
            if isinstance(root, np.ndarray):
                _inputs.write_back(root, new)
                continue
            data = root._host()
            if data is not None and data.shape == new.shape:  # a host array stays one
                _inputs.write_back(data, new)
                root._rebind(root._value)
                continue
            root._rebind(new, True)
            if entry.layouts[k] is not _SAME:
                root._layout = entry.layouts[k]
        own = entry.own
        if own is not None:  # the common result: one new array
            out = ndarray._owner(outs[0], own[0])
            out._layout, out._readonly = own[1], own[2]
            return out
        made = {"roots": roots, "objs": inputs.objs, "containers": inputs.containers}
        result = _build_result(entry.result, outs, made)
        for at, spec in entry.containers:  # list and dict arguments the function changed
            items = _build_result(spec, outs, made)
            box = inputs.containers[at]
            if type(box) is list:
                box[:] = items
            else:
                box.clear()
                box.update(items)
        return result

    def _traced_fn(self, entry: _Entry, arg_specs: tuple, kw_specs: tuple) -> Callable:
        fn = _loop_source.rolled(self._fn) if self._roll_loops else self._fn

        def traced(root_vals, dyns, neg_zero):
            # jax.jit traces once per entry (the key fixes shapes, dtypes, statics and
            # structure), with the arguments of the call that is running.
            args, kwargs, roots = self._calling.now
            rb = _Rebuild(arg_specs, roots, root_vals, dyns)
            new_args = [rb.build(s, a) if i not in self._static_argnums else a
                        for i, (s, a) in enumerate(zip(arg_specs, args))]
            new_kwargs = {k: (rb.build(s, kwargs[k]) if k not in self._static_argnames
                              else kwargs[k]) for k, s in kw_specs}
            for k in range(len(roots)):  # host arrays and unused roots still get a wrapper
                if isinstance(roots[k], np.ndarray) and k not in rb.wrappers:
                    rb.owner(k, False, not roots[k].flags.writeable)
            trace = _Trace(neg_zero)
            tracing = _dtypes.TRACING.set(True)
            try:
                with _context.using(trace=trace), warnings.catch_warnings(record=True) as \
                        caught:
                    result = fn(*new_args, **new_kwargs)
            except BaseException:
                _undo_writes(trace)  # (no tracer may stay in an array from outside)
                raise
            finally:
                _dtypes.TRACING.reset(tracing)
            _warned(trace, caught)
            self.loops = tuple(trace.loops)
            del new_args, new_kwargs
            outs = _Outputs(rb)
            result_spec = outs.walk(result)
            containers = tuple((at, outs.items(made)) for at, made in rb.changed())
            written, written_vals, layouts = [], [], {}
            for k, w in rb.wrappers.items():
                if w._value is not root_vals[k]:
                    written.append(k)
                    written_vals.append(w._value)
                    root = roots[k]
                    same = isinstance(root, np.ndarray) or w._layout is root._layout or (
                        root._layout is None and layout_key(w._layout) is None
                        and w._value.shape == root._value.shape)
                    layouts[k] = _SAME if same else w._layout
            _check_external_writes(trace, outs, rb, self._fn)
            entry.learn(result_spec, tuple(written), layouts, containers)
            finite = trace.watch.flag()
            if finite is not None:
                trace.check(finite)
            flags = jnp.any(jnp.stack(trace.checks)) if trace.checks else None
            return outs.leaves, written_vals, flags

        return traced


_SAME = object()
_JAX_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (jax, jaxlib))


def _warned(trace: _Trace, caught: list) -> None:
    """Warnings raised while the function was traced (a complex value stored into a real
    array, a Python float out of float16's range, in every iteration of a rolled loop):
    the program cannot give them again, so each call reruns eagerly, which gives NumPy's
    warnings in NumPy's order (the trace's own are dropped). JAX's are passed on."""
    for w in caught:
        if w.filename.startswith(_JAX_DIRS):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        else:
            trace.check(True)


def _undo_writes(trace: _Trace) -> None:
    """The trace raised: every array from outside the trace that it wrote gets back the
    value it had before."""
    for ref, old in reversed(trace.writes):
        root = ref()
        if root is not None:
            root._rebind(old, clear=True)


def _check_external_writes(trace: _Trace, outs: _Outputs, rb: _Rebuild, fn: Callable) -> None:
    internal = set(outs.out_roots) | {id(w) for w in rb.wrappers.values()}
    del outs
    bad = []
    for ref, old in trace.writes:
        root = ref()
        if root is None or id(root) in internal:
            continue
        bad.append((root, old))
    for root, old in bad:  # undo: no tracer may leak into a captured array
        root._rebind(old)
    if bad:
        raise JitError(f"npjax.jit({getattr(fn, '__qualname__', fn)!s}): the function writes "
                       "to an array that is not one of its arguments (captured from an "
                       "enclosing scope); pass that array as an argument")


def jit(fn: Callable | None = None, *, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (), fallback: str = "raise",
        roll_loops: bool = True) -> Any:
    """Compile a NumPy-style function written against npjax (see the module docstring).

    static_argnums / static_argnames: further arguments whose value is part of the cache key.
    fallback: "raise" (a call that cannot be traced raises ``npjax.JitError`` naming the
    line) or "eager" (such a call runs eagerly; later calls with the same key too).
    roll_loops: compile ``for i in range(...)`` loops whose body keeps its shapes as one
    ``lax.fori_loop`` (``npjax._compile._loops``); other loops unroll. ``.loops`` lists, per loop of
    the latest trace, whether it rolled and why not.
    Usable as ``@npjax.jit`` or ``@npjax.jit(static_argnums=...)``.
    """
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    if fn is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, fallback=fallback,
                                 roll_loops=roll_loops)
    return Jitted(fn, static_argnums, static_argnames, fallback, roll_loops)

