"""Loop rolling for ``npjax.jit``: ``for i in range(...)`` compiled once as ``lax.fori_loop``.

Route: a source transformation plus a checked trace. Tracing alone cannot roll a Python loop:
the interpreter runs the body once per iteration and no tracer can stop it, so the body must
become a function first. ``rolled(fn)`` rewrites ``fn``'s syntax tree once: every eligible
``for NAME in range(...)`` becomes a nested function ``body(NAME, *carried)`` (the names the
body assigns, passed in and returned, so rebinding ``x = x + ...`` is explicit) and one call
``run_loop(body, range, args, values)``. Run as it is, that call iterates exactly as the loop
did (so the transformed function is the original whenever nothing rolls). Inside a trace it
tries to roll:

1. *Probe*: the body is traced once (``jax.eval_shape``) with the loop index a ``LoopIndex``
   (a traced integer that knows the interval of its values). Every array root it writes is
   recorded (``_jit._Trace.note_write``) and restored afterwards; what each carried name ends
   as is classified: unchanged, an array of the same shape and dtype (carried), or scratch
   (written before being read; a second probe with the name unbound proves it).
2. *Roll*: ``lax.fori_loop`` over all iterations but the last, carrying the written roots,
   the carried arrays and one flag that gathers device-side checks (index bounds, error
   state) of every iteration.
3. *Last iteration*: run as plain Python with the concrete index, so every name the loop
   leaves behind (the loop variable, views, scalars) is exactly what NumPy leaves.

Exactness. The body is instrumented so that a probe can abandon the attempt before any Python
side effect: every call goes through ``call()``, which (during a probe) admits only npjax and
JAX functions, ndarray methods, ``math``/``operator`` and pure builtins; item stores go
through ``setsub`` (npjax arrays only); ``x op= y`` through ``aug``. Anything else (``print``,
``lst.append``, a user function), a Python branch or conversion on the index (``if i > 0``,
``float(i)``, ``range(i)``), a shape that depends on the index (``x[:i]``), an index that
could be out of bounds or negative on some iteration, a carried Python value that changes
(``k += 1``), or any exception raises inside the probe, every array is restored, and the
loop runs unrolled exactly as before. ``break``, ``continue``, ``return``, ``yield``, ``try``,
``del``, nested ``def``/``lambda``/``class``, attribute stores and ``global``/``nonlocal``
names are refused from the source (the loop stays as written). Operators and attribute reads
on user objects are assumed free of side effects, as NumPy's are.

The other known route, tracing the body at two concrete indices and comparing the programs,
needs the body as a function too, and could not prove the absence of Python side effects
or recover names left after the loop; the probe with a symbolic index does both in one trace.
"""

from __future__ import annotations

import ast
import builtins
import contextvars
import inspect
import math
import operator
import textwrap
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax import _context, _errstate
from npjax._indexing import (_basic_plan, _expand, _read_one, _write_one, convert_value,
                             write_through)
from npjax._ndarray import ndarray
from npjax._ufuncs import ufunc
from npjax._views import Box

__all__ = ["LoopOutcome", "rolled", "run_loop"]

MIN_TRIPS = 4  # shorter loops unroll: rolling costs about three traces of the body
_PREFIX = "_npjax_"
_Tracer = jax.core.Tracer


class NoRoll(BaseException):
    """Raised inside a probe to abandon rolling (a BaseException: user code never catches it,
    ``try`` being refused in rolled bodies)."""


class _Unbound:
    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND = _Unbound()


class LoopOutcome(NamedTuple):
    """What ``npjax.jit`` did with one loop while tracing."""

    line: int          # the ``for`` line in the user's file
    trips: int         # iterations
    rolled: bool
    body_runs: int     # times the body ran in Python during the trace
    reason: str        # why it did not roll ("" when it rolled)


# depth of probes running in this context: calls and stores are checked while > 0
_GUARD: contextvars.ContextVar[int] = contextvars.ContextVar("npjax_loop_guard", default=0)


# --- the loop index ----------------------------------------------------------------------


class LoopIndex:
    """The loop variable of a rolled loop: ``k * mul + add`` for the fori_loop counter ``k``
    in ``[0, kmax]``. Integer arithmetic with Python ints stays a LoopIndex; it can index
    npjax arrays (``a[i]``, ``a[i - 1, :]``, ``a[i:i + 2]``) where every value is in bounds.
    Anything needing its value (``int``, ``bool``, comparisons, use as array data) abandons
    the roll."""

    __slots__ = ("add", "k", "kmax", "mul")

    def __init__(self, k: Any, kmax: int, mul: int, add: int) -> None:
        self.k, self.kmax, self.mul, self.add = k, kmax, mul, add
        if max(abs(self.lo), abs(self.hi)) >= 2 ** 31 - 1:
            raise NoRoll("the loop index leaves the 32-bit range")

    @property
    def lo(self) -> int:
        return min(self.add, self.add + self.mul * self.kmax)

    @property
    def hi(self) -> int:
        return max(self.add, self.add + self.mul * self.kmax)

    def traced(self) -> Any:
        return self.k * self.mul + self.add

    def _affine(self, mul: int, add: int) -> LoopIndex:
        return LoopIndex(self.k, self.kmax, mul, add)

    def __add__(self, other: Any) -> LoopIndex:
        if type(other) is int:
            return self._affine(self.mul, self.add + other)
        if type(other) is LoopIndex and other.k is self.k:
            return self._affine(self.mul + other.mul, self.add + other.add)
        raise NoRoll("the loop index in arithmetic with a value that is not a Python int")

    __radd__ = __add__

    def __sub__(self, other: Any) -> LoopIndex:
        if type(other) is int:
            return self._affine(self.mul, self.add - other)
        if type(other) is LoopIndex and other.k is self.k:
            return self._affine(self.mul - other.mul, self.add - other.add)
        raise NoRoll("the loop index in arithmetic with a value that is not a Python int")

    def __rsub__(self, other: Any) -> LoopIndex:
        if type(other) is int:
            return self._affine(-self.mul, other - self.add)
        raise NoRoll("the loop index in arithmetic with a value that is not a Python int")

    def __mul__(self, other: Any) -> LoopIndex:
        if type(other) is int:
            return self._affine(self.mul * other, self.add * other)
        raise NoRoll("the loop index in arithmetic with a value that is not a Python int")

    __rmul__ = __mul__

    def __neg__(self) -> LoopIndex:
        return self._affine(-self.mul, -self.add)

    def __pos__(self) -> LoopIndex:
        return self

    def _needs_value(self, *args: Any) -> Any:
        raise NoRoll("the loop index is used as a value")

    __index__ = __int__ = __float__ = __complex__ = __bool__ = __hash__ = _needs_value
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _needs_value  # type: ignore[assignment]
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _needs_value
    __mod__ = __rmod__ = __pow__ = __rpow__ = __abs__ = __divmod__ = _needs_value
    __and__ = __or__ = __xor__ = __lshift__ = __rshift__ = __invert__ = _needs_value
    __array__ = __jax_array__ = __iter__ = __len__ = __format__ = _needs_value

    def __getattr__(self, name: str) -> Any:
        raise NoRoll(f"the loop index's attribute {name!r} is read")

    def __repr__(self) -> str:
        return f"<npjax loop index {self.mul}*k+{self.add}, k in [0, {self.kmax}]>"


def _has_index(key: Any) -> bool:
    t = type(key)
    if t is LoopIndex:
        return True
    if t is slice:
        return type(key.start) is LoopIndex or type(key.stop) is LoopIndex or \
            type(key.step) is LoopIndex
    if t is tuple:
        return any(_has_index(k) for k in key)
    return False


def _plan(x: Any, key: Any) -> tuple:
    """(placeholder plan, dynamic starts by axis, single) for a basic index with loop
    indices: each must be in bounds on every iteration (no clamping, no shape change)."""
    if type(x) is not ndarray or x._lens is None:
        raise NoRoll("a loop index subscripts something that is not an npjax array")
    shape = x.shape
    items = list(key) if type(key) is tuple else [key]
    placeholder, dynamic = [], {}
    axis = 0
    for item in items:
        if item is None:
            placeholder.append(None)
            continue
        if item is Ellipsis:
            raise NoRoll("an ellipsis beside a loop index")
        if axis >= len(shape):
            raise NoRoll("too many indices")
        n = shape[axis]
        if type(item) is LoopIndex:
            if item.lo >= 0 and item.hi < n:
                pos = item
            elif item.lo >= -n and item.hi < 0:
                pos = item + n
            else:
                raise NoRoll("a loop index out of bounds (or of both signs) on some iteration")
            placeholder.append(pos.add)
            if pos.mul:
                dynamic[axis] = pos
        elif type(item) is slice and _has_index(item):
            start, stop, step = item.start, item.stop, item.step
            if step not in (None, 1) or type(start) is not LoopIndex or \
                    type(stop) is not LoopIndex or start.k is not stop.k or \
                    start.mul != stop.mul:
                raise NoRoll("a slice whose length changes with the loop index")
            if start.lo < 0 or stop.lo < 0 or start.hi > n or stop.hi > n:
                raise NoRoll("a slice by the loop index that is clamped on some iteration")
            length = max(0, stop.add - start.add)
            placeholder.append(slice(start.add, start.add + length))
            if start.mul and length:
                dynamic[axis] = start
        elif isinstance(item, int | np.integer | slice) and not isinstance(item, bool):
            placeholder.append(item)
        else:
            raise NoRoll("an array or boolean beside a loop index")
        axis += 1
    items_, kinds, advanced, single = _expand(tuple(placeholder), len(shape))
    if advanced:
        raise NoRoll("an advanced index beside a loop index")
    if single:
        pos = []
        for ax, (k, n) in enumerate(zip(items_, shape)):
            d = dynamic.get(ax)
            pos.append(d.traced() if d is not None else (k + n if k < 0 else k))
        return None, tuple(pos), True
    steps, host = _basic_plan(items_, kinds, shape)
    if dynamic:
        if not steps or type(steps[0]) is not Box:
            raise NoRoll("no box to move")
        box = steps[0]
        starts = list(box.dynamic)
        for ax, d in dynamic.items():
            starts[ax] = d.traced()
        steps = (Box(box.static, tuple(starts)),) + tuple(steps[1:])
    return (steps, host), None, False


def getsub(x: Any, key: Any) -> Any:
    """``x[key]`` in a transformed loop body (a loop index moves a box of the array)."""
    if not _has_index(key):
        return x[key]
    plan, pos, single = _plan(x, key)
    if single:
        return _read_one(x, pos)
    steps, host = plan
    return x._view(steps, x._layout_array()[host])


def setsub(x: Any, key: Any, value: Any) -> None:
    """``x[key] = value`` in a transformed loop body; in a probe only npjax arrays."""
    if _GUARD.get() and type(x) is not ndarray:
        raise NoRoll(f"an item of a {type(x).__name__} is assigned")
    if not _has_index(key):
        x[key] = value
        return
    if x._readonly or x._scalar:
        raise NoRoll("a write to a read-only array")
    plan, pos, single = _plan(x, key)
    if single:
        _write_one(x, pos, value)
        return
    steps, host = plan
    if type(value) is ndarray and value._base is not None and _same_view(x, steps, value):
        return  # the store of ``a[i] += v``: the view already holds the result
    write_through(x, steps, convert_value(value, x.dtype, x._layout_array()[host].shape))


def _same_view(x: ndarray, steps: tuple, value: ndarray) -> bool:
    root = x if x._base is None else x._base
    if value._base is not root:
        return False
    lens = x._lens + tuple(steps) if x._base is not None else tuple(steps)
    other = value._lens
    if len(lens) != len(other):
        return False
    for a, b in zip(lens, other):
        if a != b or len(a.dynamic) != len(b.dynamic) or not all(
                u is v or (type(u) is int and type(v) is int and u == v)
                for u, v in zip(a.dynamic, b.dynamic)):
            return False
    return True


_AUG = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
        ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv,
        ast.Mod: operator.imod, ast.Pow: operator.ipow, ast.LShift: operator.ilshift,
        ast.RShift: operator.irshift, ast.BitAnd: operator.iand, ast.BitOr: operator.ior,
        ast.BitXor: operator.ixor, ast.MatMult: operator.imatmul}
_AUG_OPS = {type(op).__name__: fn for op, fn in ((k(), v) for k, v in _AUG.items())}
_SAFE_AUG = (ndarray, jax.Array, int, float, complex, bool, np.generic, LoopIndex, tuple,
             str)


def aug(op: str, x: Any, value: Any) -> Any:
    """``x op= value`` in a transformed loop body (in a probe: not on mutable Python
    containers, whose in-place operators are side effects)."""
    if _GUARD.get() and not isinstance(x, _SAFE_AUG):
        raise NoRoll(f"an in-place operator on a {type(x).__name__}")
    return _AUG_OPS[op](x, value)


# --- the call guard ----------------------------------------------------------------------


_PURE_BUILTINS = frozenset(id(f) for f in (
    abs, all, any, bool, callable, complex, divmod, enumerate, float, format, getattr,
    hasattr, hash, int, isinstance, issubclass, len, list, max, min, pow, range, repr,
    reversed, round, slice, sorted, str, sum, tuple, type, zip, dict, frozenset, set))
_PURE_MODULES = ("math", "cmath", "operator", "jax", "jax.numpy", "jax.lax")
_IMPURE_NAMES = frozenset((
    "save", "savez", "savez_compressed", "savetxt", "tofile", "dump", "seterr", "seterrcall",
    "set_printoptions", "setbufsize", "set_policy", "reset_policy", "resize", "setflags",
    "__setstate__", "printoptions", "errstate", "policy"))
_CONTAINER_METHODS = frozenset(("get", "keys", "values", "items", "index", "count", "copy"))


def _allowed(f: Any) -> bool:
    if id(f) in _PURE_BUILTINS or f is run_loop or f is ndarray:
        return True
    name = getattr(f, "__name__", None)
    if name in _IMPURE_NAMES:
        return False
    t = type(f)
    if t is ufunc:
        return True
    if isinstance(f, type):
        return issubclass(f, np.generic) or f is np.dtype
    owner = getattr(f, "__self__", None)
    if owner is not None and t is not types.FunctionType:
        if isinstance(owner, ndarray | ufunc | jax.Array):
            return True
        if isinstance(owner, types.ModuleType):
            return owner.__name__ in ("math", "cmath", "operator")
        if type(owner) in (dict, list, tuple):
            return name in _CONTAINER_METHODS and type(owner) is not list or name in (
                "index", "count", "copy")
        return False
    module = getattr(f, "__module__", None) or ""
    if t is types.FunctionType or t is types.BuiltinFunctionType or t is np.ufunc or \
            callable(f):
        if module == "npjax" or (module.startswith("npjax.") and
                                 not module.startswith("npjax.random")):
            return True
        if module in _PURE_MODULES or module.startswith(("jax.", "jax._src.")):
            return not module.startswith(("jax.debug", "jax._src.debugging"))
        if t is types.BuiltinFunctionType and module in ("math", "cmath", "_operator"):
            return True
    return False


def call(f: Any) -> Any:
    """The callee of a call in a transformed loop body: checked while a probe runs."""
    if _GUARD.get() and not _allowed(f):
        raise NoRoll(f"the body calls {getattr(f, '__qualname__', type(f).__name__)}, "
                     "which may have Python side effects")
    return f


# --- running a loop ----------------------------------------------------------------------


class _Probe:
    """Records the roots a body writes, and restores them."""

    def __init__(self, inner: Any, parent: Any) -> None:
        self.inner = inner  # the probe's JAX trace: roots made by the body are its own
        self.parent = parent  # the probe of an enclosing rolled loop, if any
        self.saved: dict[int, tuple] = {}

    def __call__(self, root: ndarray) -> None:
        if self.parent is not None:
            self.parent(root)
        if id(root) in self.saved:
            return
        value = root._value
        if isinstance(value, _Tracer) and value._trace is self.inner:
            return  # an array the body made
        self.saved[id(root)] = (root, value, root._mine, root._layout)

    def restore(self) -> None:
        for root, value, mine, layout in self.saved.values():
            root._value, root._mine, root._layout = value, mine, layout
            root._version += 1
            root._cache = None


def _state(tr: Any) -> tuple:
    return (tr.checks, tr.watch, len(tr.writes), set(tr._seen), tr.loop_probe)


def _reset(tr: Any, state: tuple) -> None:
    tr.checks, tr.watch = state[0], state[1]
    del tr.writes[state[2]:]
    tr._seen = state[3]
    tr.loop_probe = state[4]


def _static_same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or type(a) not in (int, float, complex, bool, str, type(None)):
        return False
    return repr(a) == repr(b)


def _internal(v: Any, inner: Any) -> bool:
    return type(v) is ndarray and v._base is None and isinstance(v._value, _Tracer) and \
        v._value._trace is inner and v._layout is None


def _carryable(v0: Any, v1: Any) -> bool:
    return type(v0) is ndarray and v0._base is None and v0._layout is None and \
        isinstance(v0._value, jax.Array) and v0._scalar == v1._scalar and \
        v0._value.shape == v1._value.shape and v0._value.dtype == v1._value.dtype


class _Peel(Exception):
    """The first iteration changes what a carried name holds: run it unrolled first."""


def _probe(tr: Any, body: Callable, kmax: int, mul: int, add: int, ins: tuple) -> tuple:
    """Trace the body once with a symbolic index; returns (classes, written roots, checks).
    Everything the body changed is restored; raises NoRoll/_Peel or the body's exception."""
    state = _state(tr)
    found: dict[str, Any] = {}

    def run(k):
        inner = k._trace
        probe = _Probe(inner, state[4])
        tr.loop_probe = probe
        tr.checks, tr.watch = [], _errstate.FiniteWatch()
        token = _GUARD.set(_GUARD.get() + 1)
        try:
            outs = body(LoopIndex(k, kmax, mul, add), *ins[1:])
            found["checks"] = bool(tr.checks) or tr.watch.flag() is not None
            found["classes"] = _classify(ins, outs, inner, probe)
            found["written"] = [(r, v) for r, v, _, _ in probe.saved.values()]
            for root, _v, _m, layout in probe.saved.values():
                if not isinstance(_v, jax.Array) or root._layout is not layout or \
                        root._value.shape != _v.shape or root._value.dtype != _v.dtype:
                    raise NoRoll("the body changes an array's shape or dtype")
        finally:
            _GUARD.reset(token)
            probe.restore()
        return 0

    try:
        jax.eval_shape(run, jax.ShapeDtypeStruct((), _index_dtype()))
    finally:
        _reset(tr, state)
    return found["classes"], found["written"], found["checks"]


def _classify(ins: tuple, outs: tuple, inner: Any, probe: _Probe) -> list:
    """Per carried name: 'same', 'carry', 'scratch' (not read before written), 'peel', or
    'unbind' (prove with a probe where it is unbound)."""
    classes = ["index"]
    for v0, v1 in zip(ins[1:], outs[1:]):
        if _static_same(v0, v1):
            classes.append("same")
        elif _internal(v1, inner):
            if v0 is UNBOUND:
                classes.append("scratch")
            elif _carryable(v0, v1) and id(v0) not in probe.saved:
                classes.append("carry")
            else:
                classes.append("peel")
        elif v0 is UNBOUND:
            classes.append("scratch")
        elif type(v1) is LoopIndex or type(v1) is ndarray or isinstance(
                v1, int | float | complex | bool | str | tuple | type(None) | np.generic):
            classes.append("unbind")
        else:
            raise NoRoll(f"a carried name ends as a {type(v1).__name__}")
    return classes


def _index_dtype() -> Any:
    return jnp.int64 if jax.config.jax_enable_x64 else jnp.int32


def _roll(tr: Any, body: Callable, r: range, ins: tuple) -> tuple:
    """Roll all iterations of ``r`` but the last, then run the last one in Python."""
    kmax = len(r) - 2
    mul, add = r.step, r.start
    classes, written, checks = _probe(tr, body, kmax, mul, add, ins)
    if "peel" in classes:
        raise _Peel
    if "unbind" in classes:
        ins = tuple(UNBOUND if c == "unbind" else v for c, v in zip(classes, ins))
        classes, written, checks = _probe(tr, body, kmax, mul, add, ins)
        if "unbind" in classes or "peel" in classes:
            raise NoRoll("a carried name is read before it is written")
    carry_at = [j for j, c in enumerate(classes) if c == "carry"]
    roots = [root for root, _ in written]
    known = {id(r) for r in roots}
    state = _state(tr)

    def step(k, carry):
        bad, root_vals, name_vals = carry
        inner = k._trace
        for root, v in zip(roots, root_vals):
            root._value = v
            root._version += 1
            root._cache = None
        vals = list(ins)
        for j, v in zip(carry_at, name_vals):
            vals[j] = ndarray._owner(v, ins[j]._scalar)
        probe = _Probe(inner, state[4])
        tr.loop_probe = probe
        tr.checks, tr.watch = [], _errstate.FiniteWatch()
        token = _GUARD.set(_GUARD.get() + 1)
        try:
            outs = body(LoopIndex(k, kmax, mul, add), *vals[1:])
        finally:
            _GUARD.reset(token)
        if any(key not in known for key in probe.saved):
            raise NoRoll("the body writes another array than when probed")
        for j, c in enumerate(classes):
            if c == "same" and not _static_same(vals[j], outs[j]):
                raise NoRoll("a carried name changes")
        if checks:
            flags = list(tr.checks)
            finite = tr.watch.flag()
            if finite is not None:
                flags.append(finite)
            for f in flags:
                bad = bad | jnp.asarray(f, bool).reshape(())
        new_roots = [lax.convert_element_type(root._read(), v.dtype)
                     for root, v in zip(roots, root_vals)]
        new_names = [lax.convert_element_type(outs[j]._read(), v.dtype)
                     for j, v in zip(carry_at, name_vals)]
        return bad, new_roots, new_names

    init = (jnp.zeros((), bool), [r._value for r in roots], [ins[j]._value for j in carry_at])
    try:
        bad, root_vals, name_vals = lax.fori_loop(0, len(r) - 1, step, init)
    except BaseException:
        for root, v in written:
            root._value = v
            root._version += 1
            root._cache = None
        raise
    finally:
        _reset(tr, state)
    for root, v in zip(roots, root_vals):
        root._value = v
        root._version += 1
        root._cache = None
    if checks:
        tr.check(bad)
    vals = list(ins)
    for j, v in zip(carry_at, name_vals):
        vals[j] = ndarray._owner(v, ins[j]._scalar)
    return tuple(body(r[-1], *vals[1:]))


def _unroll(body: Callable, it: Any, ins: tuple) -> tuple:
    vals = ins
    for v in it:
        vals = body(v, *vals[1:])
    return tuple(vals)


def _note(tr: Any, line: int, trips: int, rolled: bool, runs: int, reason: str) -> None:
    if not _GUARD.get():  # (a loop inside a rolled body is noted when it runs for real)
        tr.loops.append(LoopOutcome(line, trips, rolled, runs, reason))


def run_loop(body: Callable, rng: Any, args: tuple, ins: tuple, line: int) -> tuple:
    """Run ``for NAME in rng(*args)`` of the transformed function: rolled when it can be,
    else iterated as written. Returns the final values of the loop's names."""
    tr = _context.trace()
    if tr is None or rng is not range:
        return _unroll(body, rng(*args), ins)
    if not all(type(a) is int for a in args):
        try:
            args = tuple(operator.index(a) if isinstance(a, np.integer) else a for a in args)
        except TypeError:
            pass
        if not all(type(a) is int for a in args):
            _note(tr, line, -1, False, 0, "the range bounds are not Python integers")
            return _unroll(body, range(*args), ins)
    r = range(*args)
    if len(r) < MIN_TRIPS:
        _note(tr, line, len(r), False, len(r), f"fewer than {MIN_TRIPS} iterations")
        return _unroll(body, r, ins)
    runs = 0
    for _attempt in range(2):
        try:
            out = _roll(tr, body, r, ins)
        except _Peel:
            ins = tuple(body(r[0], *ins[1:]))  # the first iteration, as written
            r = r[1:]
            runs += 1
            if len(r) < MIN_TRIPS:
                reason = "the first iteration changes a carried value; too few left"
                break
            continue
        except NoRoll as exc:
            reason = str(exc)
            break
        except Exception as exc:  # the body failed when traced: unrolled, it raises at its line
            reason = f"{type(exc).__name__} when traced with a symbolic index"
            break
        _note(tr, line, len(r) + runs, True, runs + 4, "")
        return out
    else:
        reason = "the carried values change kind after the first iteration"
    _note(tr, line, len(r) + runs, False, runs + len(r), reason)
    return _unroll(body, r, ins)


# --- the source transformation -----------------------------------------------------------


_REFUSED = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal,
            ast.Delete, ast.Try, ast.Lambda, ast.ClassDef, ast.AsyncFunctionDef,
            ast.AsyncFor, ast.AsyncWith, ast.Import, ast.ImportFrom, ast.AnnAssign)
try:
    _REFUSED += (ast.TryStar,)  # type: ignore[attr-defined]
except AttributeError:  # Python 3.10
    pass
_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Refuse(Exception):
    pass


def _loop_jumps(stmts: list) -> bool:
    """Whether ``break``/``continue`` of this loop occur (not those of nested loops)."""
    for node in stmts:
        for sub in _walk_same_loop(node):
            if isinstance(sub, ast.Break | ast.Continue):
                return True
    return False


def _walk_same_loop(node: ast.AST):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.For | ast.While):
            yield from (x for s in child.orelse for x in _walk_same_loop(s))
            continue
        yield from _walk_same_loop(child)


def _assigned(stmts: list) -> list[str]:
    """Names the statements bind, in first-seen order (comprehension variables excluded)."""
    out: dict[str, None] = {}

    def visit(node: ast.AST, in_scope: bool) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and not in_scope:
            out.setdefault(node.id)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.setdefault(node.name)
        elif isinstance(node, ast.FunctionDef):
            out.setdefault(node.name)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, in_scope or isinstance(node, _SCOPES))

    for s in stmts:
        visit(s, False)
    return [n for n in out if not n.startswith(_PREFIX)]


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _helper_call(helper: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_name(_PREFIX + helper), args=list(args), keywords=[])


def _index_expr(node: ast.expr) -> ast.expr:
    """An index expression as a value (slices as ``slice(...)`` calls)."""
    if isinstance(node, ast.Slice):
        none = ast.Constant(value=None)
        return _helper_call("slice", node.lower or none, node.upper or none, node.step or none)
    if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
        return ast.Tuple(elts=[_index_expr(e) for e in node.elts], ctx=ast.Load())
    return node


class _Instrument(ast.NodeTransformer):
    """Calls through ``call``, item reads through ``getsub``, item stores through ``setsub``,
    augmented assignments through ``aug``."""

    def __init__(self, new_temp: Callable[[], str]) -> None:
        self.temp = new_temp

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        if node.name.startswith(_PREFIX):
            return node  # a nested loop's body, instrumented already
        raise _Refuse("a nested def")

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id.startswith(_PREFIX):
            return node
        node.func = _helper_call("call", node.func)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            raise _Refuse("an item store outside an assignment")
        return ast.copy_location(_helper_call("getsub", node.value, _index_expr(node.slice)),
                                 node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            raise _Refuse("an attribute store")
        return node

    def visit_Assign(self, node: ast.Assign) -> Any:
        node.value = self.visit(node.value)
        for t in node.targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Attribute | ast.Starred) and isinstance(
                        sub.ctx, ast.Store):
                    raise _Refuse("an attribute or starred store")
            if not isinstance(t, ast.Subscript) and any(
                    isinstance(s, ast.Subscript) for s in ast.walk(t)):
                raise _Refuse("an item store inside an unpacking")
        if not any(isinstance(t, ast.Subscript) for t in node.targets):
            node.targets = [self.visit(t) for t in node.targets]
            return node
        tmp = self.temp()
        out: list[ast.stmt] = [ast.Assign(targets=[_name(tmp, True)], value=node.value)]
        for t in node.targets:
            if isinstance(t, ast.Subscript):
                call_ = _helper_call("setsub", self.visit(t.value),
                                     _index_expr(self.visit(t.slice)), _name(tmp))
                out.append(ast.Expr(value=call_))
            else:
                out.append(ast.Assign(targets=[self.visit(t)], value=_name(tmp)))
        return [ast.copy_location(s, node) for s in out]

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        op = ast.Constant(value=type(node.op).__name__)
        value = self.visit(node.value)
        if isinstance(node.target, ast.Name):
            new = ast.Assign(targets=[_name(node.target.id, True)],
                             value=_helper_call("aug", op, _name(node.target.id), value))
            return ast.copy_location(new, node)
        if not isinstance(node.target, ast.Subscript):
            raise _Refuse("an augmented attribute store")
        obj, key, cur = self.temp(), self.temp(), self.temp()
        t = node.target
        out = [ast.Assign(targets=[_name(obj, True)], value=self.visit(t.value)),
               ast.Assign(targets=[_name(key, True)], value=_index_expr(self.visit(t.slice))),
               ast.Assign(targets=[_name(cur, True)],
                          value=_helper_call("getsub", _name(obj), _name(key))),
               ast.Assign(targets=[_name(cur, True)],
                          value=_helper_call("aug", op, _name(cur), value)),
               ast.Expr(value=_helper_call("setsub", _name(obj), _name(key), _name(cur)))]
        return [ast.copy_location(s, node) for s in out]


class _Loops(ast.NodeTransformer):
    """Rewrites eligible ``for NAME in range(...)`` loops, innermost first."""

    def __init__(self, declared: set[str]) -> None:
        self.declared = declared  # global/nonlocal names of the function
        self.count = 0
        self.temps = 0

    def temp(self) -> str:
        self.temps += 1
        return f"{_PREFIX}t{self.temps}"

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return node  # nested functions keep their loops

    visit_Lambda = visit_ClassDef = visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore

    def visit_For(self, node: ast.For) -> Any:
        try:
            names = self._eligible(node)
        except _Refuse:
            names = None
        self.generic_visit(node)
        if names is None:
            return node
        try:
            return self._rewrite(node, names)
        except _Refuse:
            return node

    def _eligible(self, node: ast.For) -> list[str]:
        """The names the loop carries (its variable first), or _Refuse."""
        it = node.iter
        if not (isinstance(node.target, ast.Name) and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Name) and it.func.id == "range"
                and 1 <= len(it.args) <= 3 and not it.keywords
                and not any(isinstance(a, ast.Starred) for a in it.args)):
            raise _Refuse("not a loop over range")
        for s in node.body:
            for sub in ast.walk(s):
                if isinstance(sub, _REFUSED) or (isinstance(sub, ast.FunctionDef) and
                                                 not sub.name.startswith(_PREFIX)):
                    raise _Refuse(type(sub).__name__)
                if isinstance(sub, ast.Name) and sub.id in ("super", "__class__", "locals",
                                                            "vars", "exec", "eval"):
                    raise _Refuse(sub.id)
        if _loop_jumps(node.body):
            raise _Refuse("break or continue")
        target = node.target.id
        names = [target] + [n for n in _assigned(node.body) if n != target]
        if set(names) & self.declared:
            raise _Refuse("a global or nonlocal name")
        return names

    def _rewrite(self, node: ast.For, names: list[str]) -> list[ast.stmt]:
        it = node.iter
        k = self.count
        self.count += 1
        body = [_Instrument(self.temp).visit(s) for s in node.body]
        flat: list[ast.stmt] = []
        for s in body:
            flat.extend(s if isinstance(s, list) else [s])
        prologue = [ast.If(test=ast.Compare(left=_name(n), ops=[ast.Is()],
                                            comparators=[_name(_PREFIX + "UNBOUND")]),
                           body=[ast.Delete(targets=[_name(n, False)])], orelse=[])
                    for n in names[1:]]
        for p in prologue:
            p.body[0].targets[0].ctx = ast.Del()
        outs = [f"{_PREFIX}o{j}" for j in range(len(names))]
        epilogue = [_load_or_unbound(n, o) for n, o in zip(names, outs)]
        ret = ast.Return(value=ast.Tuple(elts=[_name(o) for o in outs], ctx=ast.Load()))
        fname = f"{_PREFIX}body{k}"
        fdef = ast.FunctionDef(
            name=fname, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names],
                                           kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=prologue + flat + epilogue + [ret], decorator_list=[], returns=None,
            type_comment=None)
        ins = [f"{_PREFIX}i{k}_{j}" for j in range(len(names))]
        before = [_load_or_unbound(n, i) for n, i in zip(names, ins)]
        res = f"{_PREFIX}r{k}"
        loop = ast.Assign(targets=[_name(res, True)], value=_helper_call(
            "loop", _name(fname), it.func,
            ast.Tuple(elts=list(it.args), ctx=ast.Load()),
            ast.Tuple(elts=[_name(i) for i in ins], ctx=ast.Load()),
            ast.Constant(value=node.lineno)))
        after = []
        for j, n in enumerate(names):
            got = ast.Subscript(value=_name(res), slice=ast.Constant(value=j), ctx=ast.Load())
            unbound = ast.Compare(left=got, ops=[ast.Is()],
                                  comparators=[_name(_PREFIX + "UNBOUND")])
            after.append(ast.If(test=unbound, body=[_unbind(n)], orelse=[
                ast.Assign(targets=[_name(n, True)], value=ast.Subscript(
                    value=_name(res), slice=ast.Constant(value=j), ctx=ast.Load()))]))
        out = [fdef] + before + [loop] + after + list(node.orelse)
        return [ast.copy_location(s, node) for s in out]


def _load_or_unbound(name: str, into: str) -> ast.stmt:
    return ast.Try(body=[ast.Assign(targets=[_name(into, True)], value=_name(name))],
                   handlers=[ast.ExceptHandler(type=_name(_PREFIX + "NameError"), name=None,
                                               body=[ast.Assign(targets=[_name(into, True)],
                                                                value=_name(_PREFIX + "UNBOUND"))])],
                   orelse=[], finalbody=[])


def _unbind(name: str) -> ast.stmt:
    return ast.Try(body=[ast.Delete(targets=[ast.Name(id=name, ctx=ast.Del())])],
                   handlers=[ast.ExceptHandler(type=_name(_PREFIX + "NameError"), name=None,
                                               body=[ast.Pass()])],
                   orelse=[], finalbody=[])


_HELPERS = {"loop": run_loop, "call": call, "getsub": getsub, "setsub": setsub, "aug": aug,
            "slice": slice, "UNBOUND": UNBOUND, "NameError": NameError}
_CACHE: dict[Any, Any] = {}


def _declared(fdef: ast.FunctionDef) -> set[str]:
    out: set[str] = set()
    for sub in ast.walk(fdef):
        if isinstance(sub, ast.Global | ast.Nonlocal):
            out.update(sub.names)
    return out


def _compile(fn: Callable, fdef: ast.FunctionDef, first: int) -> types.CodeType:
    """The code of ``fdef`` compiled as a closure over ``fn``'s free names and the helpers."""
    params = list(fn.__code__.co_freevars) + [_PREFIX + h for h in _HELPERS]
    factory = ast.FunctionDef(
        name=_PREFIX + "factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(value=_name(fdef.name))], decorator_list=[], returns=None,
        type_comment=None)
    # Module-level imports of the user's file: the compiler reads ``np.f(x)`` on a name that
    # an import bound as an attribute load, not a method load (CPython 3.11+).
    imported = sorted({n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and
                       isinstance(fn.__globals__.get(n.id), types.ModuleType)})
    imports = [ast.Import(names=[ast.alias(name="sys", asname=n)]) for n in imported]
    module = ast.Module(body=imports + [factory], type_ignores=[])
    ast.fix_missing_locations(module)
    flags = fn.__code__.co_flags & _FUTURE_FLAGS
    code = compile(module, fn.__code__.co_filename, "exec", flags=flags, dont_inherit=True)
    outer = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return next(c for c in outer.co_consts if isinstance(c, types.CodeType)
                and c.co_name == fdef.name)


_FUTURE_FLAGS = 0
for _feature in ("annotations", "division", "generator_stop"):
    import __future__

    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _parse(fn: Callable) -> ast.FunctionDef | None:
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                        inspect.CO_ASYNC_GENERATOR) or fn.__name__ == "<lambda>":
        return None
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(src)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) or \
            tree.body[0].name != fn.__name__:
        return None
    fdef = tree.body[0]
    ast.increment_lineno(tree, code.co_firstlineno - 1)  # line 1 is the first decorator's
    fdef.decorator_list = []
    fdef.returns = None
    for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs + [
            fdef.args.vararg, fdef.args.kwarg]:
        if a is not None:
            a.annotation = None
    return fdef


def _transformed_code(fn: Callable) -> types.CodeType | None:
    fdef = _parse(fn)
    if fdef is None:
        return None
    try:
        same = _compile(fn, fdef, 0)  # the source must be the code that runs
    except (SyntaxError, ValueError, StopIteration):
        return None
    code = fn.__code__
    if same.co_code != code.co_code or same.co_names != code.co_names or \
            same.co_varnames != code.co_varnames:
        return None
    loops = _Loops(_declared(fdef))
    fdef.body = [loops.visit(s) for s in fdef.body]
    flat: list[ast.stmt] = []
    for s in fdef.body:
        flat.extend(s if isinstance(s, list) else [s])
    fdef.body = flat
    if not loops.count:
        return None
    try:
        return _compile(fn, fdef, 0)
    except (SyntaxError, ValueError, StopIteration):
        return None


def rolled(fn: Callable) -> Callable:
    """``fn`` with its ``for ... in range(...)`` loops routed through ``run_loop`` (``fn``
    itself when it has none that qualify, or its source cannot be read)."""
    if type(fn) is not types.FunctionType:
        return fn
    key = fn.__code__
    if key not in _CACHE:
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = _transformed_code(fn)
    new = _CACHE[key]
    if new is None:
        return fn
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for h, v in _HELPERS.items():
        cells[_PREFIX + h] = types.CellType(v)
    try:
        closure = tuple(cells[n] for n in new.co_freevars)
    except KeyError:
        return fn
    out = types.FunctionType(new, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    out.__kwdefaults__ = fn.__kwdefaults__
    return out


_ = (builtins, math)  # (the allow-lists name their members directly)
