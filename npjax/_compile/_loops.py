"""Loop rolling for ``npjax.jit``: ``for i in range(...)`` compiled once as ``lax.fori_loop``
(and ``for x in a`` over an npjax array ``a``, as ``x = a[k]`` for k in ``range(len(a))``).

Route: a source transformation plus a checked trace. Tracing alone cannot roll a Python loop:
the interpreter runs the body once per iteration and no tracer can stop it, so the body must
become a function first. ``_loop_source.rolled(fn)`` rewrites ``fn``'s syntax tree once:
every eligible ``for NAME in range(...)`` becomes a nested function ``body(NAME, *carried)``
(the names the body assigns, passed in and returned, so rebinding ``x = x + ...`` is
explicit) and one call
``run_loop(body, range, args, values)``. Run as it is, that call iterates exactly as the loop
did (so the transformed function is the original whenever nothing rolls). Inside a trace it
tries to roll:

1. *Probe*: the body is traced once (``jax.eval_shape``) with the loop index a ``LoopIndex``
   (a traced integer that knows the interval of its values). Every array root it writes is
   recorded (``_jit._Trace.note_write``) and restored afterwards; what each carried name ends
   as is classified: unchanged, an array of the same shape and dtype (carried), or scratch
   (written before being read; a second probe with the name unbound proves it).
2. *Roll*: ``lax.fori_loop`` over the iterations, carrying the written roots, the carried
   arrays and one flag that gathers device-side checks (index bounds, error state) of every
   iteration.
3. *Last iteration*: where the code after the loop may read a name the loop carries out
   only as Python runs it (a scratch name, a scalar; ``keep``, from
   ``_loop_source._Live``), the last iteration is left out of the roll and run as plain
   Python with the concrete index, so every name the loop leaves behind is exactly what
   NumPy leaves. Otherwise all iterations roll (XLA compiles one body, not two), the loop
   variable of a range is bound to its last value and the unread names are left unbound.

Exactness. The body is instrumented so that a probe can abandon the attempt before any Python
side effect: every call goes through ``call()``, which (during a probe) admits only npjax and
JAX functions, ndarray methods, ``math``/``operator`` and pure builtins; item stores go
through ``setsub`` (npjax arrays only); ``x op= y`` through ``aug``. Anything else (``print``,
``lst.append``, a function of the user's own that ``_loop_source.pure`` cannot rewrite as a
body), a Python branch or conversion on the index (``if i > 0``,
``float(i)``, ``range(i)``), an index that could be out of bounds or negative on some
iteration, a carried Python value that changes
(``k += 1``), or an exception of npjax's trace or of the rewritten body raises inside the
probe, every array is restored, and the loop runs unrolled exactly as before (an exception of
the user's, a signal handler's ``Timeout``, propagates at once: ``_user_code.users_in_body``).
``break``, ``continue``, ``return``, ``yield``, ``try``, ``del``, nested ``def``/``lambda``/
``class``, attribute stores and ``global``/``nonlocal`` names are refused from the source
(the loop stays as written). Code of the user's that the body runs implicitly (a
``@property``, an operator or ``__float__`` of the user's class, a ``key=`` function) is
stopped before its first line by a watch on the thread's calls while the body is probed
(``_user_code``): the loop unrolls and that code runs as often as written. The traces that
then roll the body run it as its last probe did (unwatched: the watch makes tracing slower).
Operators and attribute reads of library objects are assumed free of side effects.

Python lists of same-shape arrays indexed by the loop index (``P[i]``, ``F[i] += f``) are
carried stacked, and lists of an enclosing body's closure that it changes are made anew per
iteration (``_loop_lists``: exact only where nobody can tell the items were replaced).

A loop whose iterations are shown independent (each changed list read and written only at
the iteration's own slot, or only through ``lst[i + a] op= e``) runs at once, batched over
the counter, instead of as a ``fori_loop`` (``_loop_vector``).

Slices whose extent moves with the index (``x[:i]``, ``L[j + 1:, :j]``, ``a[i:i + 5]`` clamped
at the end) are read as masked windows of their full static extent (``_windows``): sums,
products, elementwise arithmetic and stores of the same bounds keep the body's shapes; any
other use of one abandons the roll.

The other known route, tracing the body at two concrete indices and comparing the programs,
needs the body as a function too, and could not prove the absence of Python side effects
or recover names left after the loop; the probe with a symbolic index does both in one trace.
"""

from __future__ import annotations

import contextvars
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._runtime import _context, _finite_watch
from npjax._core._index_plan import _basic_plan, _expand
from npjax._core._index_read import _read_one
from npjax._core._index_values import convert_value
from npjax._core._index_write import _write_one, write_through
from npjax._compile import _loop_lists, _loop_vector
from npjax._compile import _user_code as _watch
from npjax._compile import _loop_index
from npjax._compile import _loop_views
from npjax._compile import _loop_scalars
from npjax._compile._loop_scalars import LoopScalar
from npjax._compile._loop_calls import ALWAYS, allowed
from npjax._compile import _loop_unroll
from npjax._compile._loop_unroll import _unroll
from npjax._compile._minmax import swap
from npjax._compile._loop_index import LoopIndex, NoRoll, bounded
from npjax._compile._loop_probe import (_GUARD, _enter_body, _leave_body, _Probe, _reset,
                                        _state)
from npjax._placement._route import DEFERRED_UFUNC
from npjax._core._ndarray import ndarray
from npjax._core._views import Box
from npjax._compile._windows import Window, consumer, cut, scattered, store

__all__ = ["LoopOutcome", "UNBOUND", "aug", "augitem", "call", "getsub", "items", "run_loop",
           "setsub"]

MIN_TRIPS = 4  # shorter loops unroll: rolling costs about three traces of the body
# A loop that carries a view (``_loop_views``) rolls from this many iterations (after the
# peeled first one): XLA compiled whiten_checks' rolled body (Cholesky, solve, masks) in
# 2.6 s against 1.3 s unrolled at 4 iterations, alike at 9, 2.2 s against 3.5 s at 29.
MIN_TRIPS_VIEWS = 10
_Tracer = jax.core.Tracer


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
    peeled: bool = False  # rolled, with the last iteration run as plain Python after
    batched: bool = False  # rolled as one batched run, not a fori_loop (``_loop_vector``)


_SCALARS = _loop_scalars.current()  # the carried Python numbers of the loop being rolled
# whether a loop run here is noted in ``.loops``: at the top level, in a peeled last
# iteration, in the one trace of a body whose loop rolls all its iterations
_NOTE: contextvars.ContextVar[bool] = contextvars.ContextVar("npjax_loop_note", default=True)


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
            pos = bounded(item, n, "on some iteration")
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
    if type(x) is list:  # a list of arrays stacked for the loop (``_loop_lists``)
        return _loop_lists.getitem(x, key)
    if type(x) is Window:
        raise NoRoll("a moving slice is indexed by the loop index")
    moving = cut(x, key)
    if moving is not None:  # a slice whose extent moves: a window of the whole part
        whole, bounds = moving
        return Window.read(getsub(x, whole), bounds)
    plan, pos, single = _plan(x, key)
    if single:
        return _read_one(x, pos)
    steps, host = plan
    return x._view(steps, x._layout_array()[host])


def setsub(x: Any, key: Any, value: Any) -> None:
    """``x[key] = value`` in a transformed loop body; in a probe only npjax arrays."""
    if _GUARD.get() and type(x) is not ndarray:
        if type(x) is list:  # by the loop index, or into a list the body owns
            _loop_lists.setitem(x, key, value)
            return
        raise NoRoll(f"an item of a {type(x).__name__} is assigned")
    if not _has_index(key):
        x[key] = value
        return
    if x._readonly or x._scalar:
        raise NoRoll("a write to a read-only array")
    moving = cut(x, key)
    if moving is not None:  # a slice whose extent moves: a select into the whole part
        whole, bounds = moving
        new = scattered(x, whole, bounds, value)
        if new is not None:
            x._layout_array()  # (made before the write, as the select's read makes it)
            write_through(x, (), new)
            return
        setsub(x, whole, store(getsub(x, whole), bounds, value))
        return
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


_AUG_OPS = {"Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul,
            "Div": operator.itruediv, "FloorDiv": operator.ifloordiv, "Mod": operator.imod,
            "Pow": operator.ipow, "LShift": operator.ilshift, "RShift": operator.irshift,
            "BitAnd": operator.iand, "BitOr": operator.ior, "BitXor": operator.ixor,
            "MatMult": operator.imatmul}  # by the name of the ``ast`` operator
_SAFE_AUG = (ndarray, jax.Array, int, float, complex, bool, np.generic, LoopIndex, LoopScalar,
             tuple, str)


def aug(op: str, x: Any, value: Any) -> Any:
    """``x op= value`` in a transformed loop body (in a probe: not on mutable Python
    containers, whose in-place operators are side effects)."""
    if _GUARD.get() and not isinstance(x, _SAFE_AUG):
        raise NoRoll(f"an in-place operator on a {type(x).__name__}")
    return _AUG_OPS[op](x, value)


def augitem(op: str, cur: Any, value: Any) -> Any:
    """The operator of ``x[key] op= value`` on ``cur = x[key]`` (``setsub`` stores what it
    returns): for a moving slice, the in-place operator on a copy of its window."""
    if type(cur) is Window:
        return cur.inplace(_AUG_OPS[op], value)
    _loop_lists.note_aug(op, cur, value)
    return aug(op, cur, value)


# --- the call guard ----------------------------------------------------------------------


def call(f: Any) -> Any:
    """The callee of a call in a transformed loop body: checked while a probe runs."""
    if _GUARD.get():
        _watch.check()  # (the watch stopped code of the user's that some C code ran)
        if not allowed(f):
            raise NoRoll(f"the body calls {getattr(f, '__qualname__', type(f).__name__)}, "
                         "which may have Python side effects")
        return consumer(swap(f))  # (functions that take moving slices take them here)
    return swap(f)  # (builtin max/min of traced scalars: ``_minmax``)


# --- running a loop ----------------------------------------------------------------------


def _static_same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or type(a) not in (int, float, complex, bool, str, type(None)):
        return False
    return repr(a) == repr(b)


def _c_order(v: ndarray) -> bool:
    """No layout, or the C-ordered template ``_layout_array`` caches (``a[1:-1]`` made
    one): the layout a carried array starts each iteration with."""
    layout = v._layout
    return layout is None or (type(layout) is np.ndarray and layout.flags.c_contiguous
                              and layout.shape == v._value.shape and layout.base is None)


def _internal(v: Any, inner: Any) -> bool:
    return type(v) is ndarray and v._base is None and isinstance(v._value, _Tracer) and \
        v._value._trace is inner and _c_order(v)


def _carryable(v0: Any, v1: Any) -> bool:
    return type(v0) is ndarray and v0._base is None and _c_order(v0) and \
        isinstance(v0._value, jax.Array) and v0._scalar == v1._scalar and \
        v0._value.shape == v1._value.shape and v0._value.dtype == v1._value.dtype


class _Peel(Exception):
    """The first iteration changes what a carried name holds: run it unrolled first."""


def _probe(tr: Any, body: Callable, kmax: int, mul: int, add: int, ins: tuple,
           lists: _loop_lists.Lists) -> tuple:
    """Trace the body with a symbolic index (again while it finds lists to stack,
    ``_loop_lists``); returns (classes, written roots, checks). Everything the body changed
    is restored; raises NoRoll/_Peel or the body's exception."""
    while True:
        lists.grew = False
        try:
            out = _probe_once(tr, body, kmax, mul, add, ins, lists)
        except _loop_lists.Again:
            continue
        if not lists.grew:
            return out


def _frame(lists: _loop_lists.Lists, k: Any, values: Any, discover: bool,
           kept: Any = None) -> tuple:
    """(frame, token): the lists one traced iteration stacks or makes anew (none inside
    an enclosing rolled body that does not own them)."""
    frame = _loop_lists.Frame(lists, k, values, discover, _context.trace().watch, kept) \
        if lists.enabled else None
    return frame, _loop_lists.active().set(frame)


def _leave(frame: Any, token: Any) -> None:
    _loop_lists.active().reset(token)
    if frame is not None:
        frame.restore()


def _probe_once(tr: Any, body: Callable, kmax: int, mul: int, add: int, ins: tuple,
                lists: _loop_lists.Lists) -> tuple:
    state = _state(tr)
    found: dict[str, Any] = {}

    def run(k):
        inner = k._trace
        probe, token = _enter_body(tr, inner, state)
        frame, ftoken = _frame(lists, k, None, True)
        replay = _SCALARS.get()
        if replay is not None:
            replay.counter = k
        try:
            before = _values(ins)
            index = LoopIndex(k, kmax, mul, add)
            outs = body(index, *ins[1:])
            _watch.check()
            found["next"] = "next differs" in index.memo  # (``LoopIndex.note_next``)
            if replay is not None:
                replay.learn(outs)
            if frame is not None:
                lists.changed = {j for j, (v0, v1) in enumerate(zip(frame.values,
                                                                     frame.finish()))
                                 if v1 is not v0}
                lists.kept_changed = {j for j, (v0, v1) in enumerate(
                    zip(frame.kept, frame.finish_kept())) if v1 is not v0}
                lists.log = frame.log
            later = _later(tr.watch, before, outs, range(1, len(ins)))
            sums, tiny = tr.watch.parts(frozenset(id(outs[j]._value) for j in later))
            found["checks"] = bool(tr.checks or tiny)
            found["sums"] = tuple(sorted(sums))
            found["classes"] = _classify(ins, outs, inner, probe)
            found["plain"] = frozenset(j for j, v in enumerate(outs) if type(v) is ndarray and
                                       not v._readonly and v._lens == () and
                                       v._root_shape is None)
            found["written"] = [(r, v) for r, v, _, _ in probe.saved.values()]
            for root, _v, _m, layout in probe.saved.values():
                if not isinstance(_v, jax.Array) or not _same_layout(layout, root._layout, _v) \
                        or root._value.shape != _v.shape or root._value.dtype != _v.dtype:
                    raise NoRoll("the body changes an array's shape or dtype")
        finally:
            _leave_body(token)
            _leave(frame, ftoken)
            probe.restore()
        return 0

    note = _NOTE.set(False)
    try:  # (its program tells whether the body may run batched, ``_loop_vector``)
        lists.jaxpr = jax.make_jaxpr(run)(jax.ShapeDtypeStruct((), _index_dtype())).jaxpr
    finally:
        _NOTE.reset(note)
        _reset(tr, state)
    return found["classes"], found["written"], (found["checks"], found["sums"]), \
        (found["plain"], found["next"])


def _same_layout(before: Any, now: Any, value: Any) -> bool:
    """Whether a root's layout is the one it had when the body first wrote it: the same
    object, or NumPy's C layout made since from none (a device array's layout is made when
    first asked for: ``ndarray._layout_array``)."""
    return now is before or (before is None and now is not None and now.flags.c_contiguous
                             and now.shape == value.shape)


def _values(ins: Any) -> list:
    """The value each carried name holds when a body starts (None: not an owner array)."""
    return [v._value if type(v) is ndarray and v._base is None else None for v in ins]


def _later(watch: Any, before: list, outs: Any, at: Any) -> list:
    """The carried names (j in ``at``) whose value the body leaves (``outs[j]``) is checked
    by the next iteration: the body's checked results show the value the name held when
    the body started (``before[j]``, taken whole by a ``PROPAGATING`` ufunc), and the next
    iteration starts with this one's. The last iteration's are checked after the loop
    (``_roll``)."""
    later = []
    for j in at:
        v0, v1 = before[j], outs[j]
        if v0 is not None and type(v1) is ndarray and v1._base is None and \
                v1._value is not v0 and getattr(v1._value, "dtype", None) is not None and \
                v1._value.dtype.kind in "fc" and watch.covers(v0):
            later.append(j)
    return later


def _classify(ins: tuple, outs: tuple, inner: Any, probe: _Probe) -> list:
    """Per carried name: 'same', 'carry', 'view' (a view of a new array, ``_loop_views``),
    'scratch' (not read before written), 'peel', or 'unbind' (prove with a probe where it
    is unbound)."""
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
        elif _loop_views.internal(v1, inner):
            if v0 is UNBOUND:
                classes.append("scratch")
            elif _loop_views.carryable(v0, v1, outs, probe.saved):
                classes.append("view")
            else:
                classes.append("peel")
        elif v0 is UNBOUND:
            classes.append("scratch")
        elif _loop_scalars.numbers(v0, v1) or (
                type(v0) is LoopScalar and v0.replay is _SCALARS.get()):
            classes.append("number")  # a Python number (``t += dt``): ``_loop_scalars``
        elif type(v1) is LoopIndex or type(v1) is ndarray or v1 is UNBOUND or isinstance(
                v1, int | float | complex | bool | str | tuple | type(None) | np.generic):
            classes.append("unbind")  # (UNBOUND: left unbound by an inner rolled loop)
        else:
            raise NoRoll(f"a carried name ends as a {type(v1).__name__}")
    return classes


DEFERRED_UFUNC[LoopIndex] = _loop_index.index_operand
DEFERRED_UFUNC[LoopScalar] = _loop_scalars.operand
_loop_index.ARRAY_TYPES.add(ndarray)


def _index_dtype() -> Any:
    return jnp.int64 if jax.config.jax_enable_x64 else jnp.int32


def _roll(tr: Any, body: Callable, r: range, ins: tuple, keep: tuple | None,
          over: bool) -> tuple:
    """Roll the iterations of ``r``; the last one runs in Python after the others unless
    nothing the code after the loop may read (``keep``, positions of the carried names;
    None: all) needs it (``_loop_source._Live``), or all at once, batched, where they
    are independent (``_loop_vector``). Returns (names, whether it peeled, whether batched)."""
    mul, add = r.step, r.start
    top = not _GUARD.get()
    outer = None if top else _loop_lists.active().get()
    lists = _loop_lists.Lists(outer, top, tr.stacks if top else
                              outer.local if outer is not None else {})
    lists.keep(body)
    classes, written, checks, plain = _probe(tr, body, len(r) - 2, mul, add, ins, lists)
    if "peel" in classes:
        raise _Peel
    replay, unbind = None, [c == "unbind" for c in classes]
    at = [j for j, c in enumerate(classes) if c == "number"]
    while at or any(unbind):  # probe again: unbound names, carried Python numbers
        if at:  # (computed on the host: ``_loop_scalars``)
            replay = _loop_scalars.Replay(at, tuple(ins[j] for j in at))
            _SCALARS.set(replay)
        numbers = dict(zip(at, replay.inputs())) if at else {}
        classes, written, checks, plain = _probe(tr, body, len(r) - 2, mul, add, tuple(
            UNBOUND if unbind[j] else numbers.get(j, v) for j, v in enumerate(ins)), lists)
        if "unbind" in classes or "peel" in classes:
            raise NoRoll("a carried name is read before it is written")
        more = {j for j, c in enumerate(classes) if c == "number"}
        if more <= set(at):  # (a number the others change counts from the next probe)
            break
        at = sorted(more | set(at))
    ins = tuple(UNBOUND if u else v for u, v in zip(unbind, ins))
    if replay is not None:
        last = replay.run(range(len(r)))  # (``states[-1]``: when the last iteration starts)
    lists.drop_unchanged()
    out = _loop_vector.attempt(tr, body, r, ins, classes, written, checks, lists)
    if out is not None:  # iterations independent: run at once (the last one in Python)
        return out, True, True
    if "view" in classes and len(r) < MIN_TRIPS_VIEWS:
        raise NoRoll(f"a carried view and fewer than {MIN_TRIPS_VIEWS} iterations")
    carry_at = [j for j, c in enumerate(classes) if c == "carry" or c == "view"]
    views = {j for j in carry_at if classes[j] == "view"}

    def start(j: int, v: Any) -> ndarray:  # what carried name j holds when a body starts
        return _loop_views.remade(ins[j], v) if j in views else \
            ndarray._owner(v, ins[j]._scalar)
    # names the probe may find checked later (``_later``): carried, or an array the body
    # updates in place (``pos += dt * vel``: a root, carried as ``root_vals``)
    later_at = [j for j, c in enumerate(classes) if c == "carry" or (c == "same" and j)]
    roots = [root for root, _ in written]
    known = {id(r) for r in roots}
    later: list = []  # the carried names whose check each next iteration makes (``_later``)
    stacks = [s.stack(lists.cache) for s in lists.order]  # lists stacked (``_loop_lists``)
    list_at = sorted(lists.changed)  # those the body changes: carried, written back

    def rolled(trips: int) -> tuple:
        """``lax.fori_loop`` over the first ``trips`` iterations (the index proved in its
        interval again by their trace: the probe's stops one short of the end)."""
        kmax = trips - 1
        state = _state(tr)
        noted = len(tr.loops)
        note = _NOTE.set(_NOTE.get() and trips == len(r))  # (no peel: the inner loops run
        # in this trace only)

        def step(k, carry):
            bad, root_vals, name_vals, list_vals, kept_vals = carry
            inner = k._trace
            for root, v in zip(roots, root_vals):
                root._rebind(v, clear=True)
            vals = list(ins)
            for j, v in zip(carry_at, name_vals):
                vals[j] = start(j, v)
            if replay is not None:
                replay.counter = k
                for j, v in zip(replay.at, replay.inputs()):
                    vals[j] = v
            probe, token = _enter_body(tr, inner, state, False)  # (probed: unwatched)
            values = list(stacks)
            for j, v in zip(list_at, list_vals):
                values[j] = v
            frame, ftoken = _frame(lists, k, values, False, kept_vals)
            before = _values(vals)
            try:
                outs = body(LoopIndex(k, kmax, mul, add), *vals[1:])
                _watch.check()
                left = frame.finish() if frame is not None else []
                left_kept = frame.finish_kept() if frame is not None else []
            finally:
                _leave_body(token)
                _leave(frame, ftoken)
            if any(key not in known for key in probe.saved):
                raise NoRoll("the body writes another array than when probed")
            for j, c in enumerate(classes):
                if c == "same" and not _static_same(vals[j], outs[j]):
                    raise NoRoll("a carried name changes")
            later[:] = _later(tr.watch, before, outs, later_at)
            sums, tiny = tr.watch.parts(frozenset(id(outs[j]._value) for j in later))
            if tuple(sorted(sums)) != checks[1]:
                raise NoRoll("the body's error-state checks differ from the probe's")
            for f in tr.checks + tiny:
                bad = bad | jnp.asarray(f, bool).reshape(())
            for shape in checks[1]:  # error state: each shape's results, folded at once
                bad = bad | _finite_watch.any_nan(sums[shape])
            new_roots = [lax.convert_element_type(root._read(), v.dtype)
                         for root, v in zip(roots, root_vals)]
            new_names = [lax.convert_element_type(
                _loop_views.value(outs[j]) if j in views else outs[j]._read(), v.dtype)
                for j, v in zip(carry_at, name_vals)]
            if any((left[j] is not values[j]) is not (j in lists.changed)
                   for j in range(len(values))):
                raise NoRoll("the body changes other lists than when probed")
            return bad, new_roots, new_names, [left[j] for j in list_at], left_kept

        init = (jnp.zeros((), bool), [r._value for r in roots],
                [_loop_views.value(ins[j]) if j in views else ins[j]._value
                 for j in carry_at],
                [stacks[j] for j in list_at], [s.stack(lists.cache) for s in lists.kept])
        try:
            return lax.fori_loop(0, trips, step, init)
        except BaseException:
            for root, v in written:
                root._rebind(v, clear=True)
            del tr.loops[noted:]
            raise
        finally:
            _NOTE.reset(note)
            _reset(tr, state)

    start_roots = [r._value for r in roots]  # the written arrays' values before the loop
    # the rolled iterations alone give what a name to keep holds after the last one where
    # it is unchanged, a carried view, or a carried array left a plain owner (as ``start``);
    # a branch the probe saw decided otherwise on the last iteration keeps it in Python
    plain, differs = plain
    peel = keep is None or differs or not all(
        j and (classes[j] in ("same", "view", "number") or classes[j] == "carry" and j in plain)
        for j in keep)
    out = None
    if not peel:
        try:
            out = rolled(len(r))
        except NoRoll:  # (the last iteration may need its own trace: a branch
            peel = True  # on the index, an index out of bounds there: it runs in Python)
        except Exception as exc:
            if _watch.users_in_body(exc):  # (a signal handler's: the user's, at once)
                raise
            peel = True
    if peel:
        out = rolled(len(r) - 1)
    bad, root_vals, name_vals, list_vals, kept_vals = out
    for root, v in zip(roots, root_vals):
        root._rebind(v, clear=True)
    for j, v in zip(list_at, list_vals):  # the lists' items: the rows
        lists.order[j].write_back(v, lists.cache)
    for s, v in zip(lists.kept, kept_vals):
        s.write_back(v, lists.cache)
    if checks[0] or checks[1]:
        tr.check(bad)
    # carried values each iteration left to the next one's check (``_later``): the last
    # of them are checked here, as results of the function, and the values they start
    # from are shown by the first iteration
    for j in later:
        if j in carry_at:
            tr.watch.add([name_vals[carry_at.index(j)]])
            tr.watch.cover(ins[j]._value)
        else:  # an array updated in place
            k = next(k for k, root in enumerate(roots) if root is ins[j])
            tr.watch.add([root_vals[k]])
            tr.watch.cover(start_roots[k])
    vals = list(ins)
    for j, v in zip(carry_at, name_vals):
        vals[j] = start(j, v)
    if replay is not None:  # the numbers' values when the last iteration starts, or after it
        for j, v in zip(replay.at, replay.states[-1] if peel else last):
            vals[j] = v
    if peel:
        return tuple(body(r[-1], *vals[1:])), True, False
    # no last iteration: the loop variable of a range is its last value; a name the code
    # after the loop cannot read is left unbound
    vals[0] = UNBOUND if over else r[-1]
    for j, c in enumerate(classes):
        if j and c not in ("same", "carry", "view", "number"):
            vals[j] = UNBOUND
    return tuple(vals), False, False


def items(seq: Any) -> Any:
    """The iterable of ``for x in seq`` (the transformed loop passes ``seq`` to ``run_loop``
    with this marker as its range)."""
    return seq


def _over(body: Callable, seq: ndarray) -> Callable:
    """The body of ``for x in seq`` as a body over ``k``: ``x`` is ``seq[k]``, read when the
    iteration starts, as NumPy's iterator reads it."""
    def over(k: Any, *rest: Any) -> tuple:
        return body(getsub(seq, k), *rest)
    return over


def _note(tr: Any, line: int, trips: int, rolled: bool, runs: int, reason: str,
          peeled: bool = False, batched: bool = False) -> None:
    if _NOTE.get():  # (a loop inside a rolled body: when its last trace runs, ``_NOTE``)
        tr.loops.append(LoopOutcome(line, trips, rolled, runs, reason, peeled, batched))


def run_loop(body: Callable, rng: Any, args: tuple, ins: tuple, line: int,
             keep: tuple | None = None) -> tuple:
    """Run ``for NAME in rng(*args)`` of the transformed function: rolled when it can be,
    else iterated as written. Returns the final values of the loop's names (``keep``: the
    positions of those the code after the loop may read; None: all)."""
    tr = _context.trace()
    over = rng is items
    if over:  # ``for x in seq``: over an npjax array, ``x = seq[k]`` for each k
        seq = args[0]
        if tr is None or type(seq) is not ndarray or not seq.shape:
            return _unroll(body, seq, ins, tr, line)
        body, rng, args = _over(body, seq), range, (seq.shape[0],)
    if tr is None or rng is not range:
        return _unroll(body, rng(*args), ins, tr, line)
    if not all(type(a) is int for a in args):
        try:
            args = tuple(operator.index(a) if isinstance(a, np.integer) else a for a in args)
        except TypeError:
            pass
        if not all(type(a) is int for a in args):
            _note(tr, line, -1, False, 0, "the range bounds are not Python integers")
            return _unroll(body, range(*args), ins, tr, line)
    r = range(*args)
    if len(r) < MIN_TRIPS:
        _note(tr, line, len(r), False, len(r), f"fewer than {MIN_TRIPS} iterations")
        return _unroll(body, r, ins, tr, line)
    runs = 0
    for _attempt in range(2):
        scalars = _SCALARS.set(None)
        try:
            out, peeled, batched = _roll(tr, body, r, ins, keep, over)
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
            if _watch.users_in_body(exc):  # (a signal handler's: the user's, at once)
                raise
            reason = f"{type(exc).__name__} when traced with a symbolic index"
            break
        finally:
            _SCALARS.reset(scalars)
        _note(tr, line, len(r) + runs, True, runs + (4 if peeled else 3), "", peeled,
              batched)
        _loop_unroll.count(tr, runs + (4 if peeled else 3), line)
        return out
    else:
        reason = "the carried values change kind after the first iteration"
    _note(tr, line, len(r) + runs, False, runs + len(r), reason)
    return _unroll(body, r, ins, tr, line)


ALWAYS.add(id(run_loop))  # (a loop inside a body)
