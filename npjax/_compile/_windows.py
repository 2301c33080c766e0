"""Masked windows: slices in a rolled loop body whose extent moves with the loop index.

``x[:i]``, ``L[j + 1:, :j]`` or ``a[k:]`` have a shape that changes from one iteration to
the next, which one ``lax.fori_loop`` body cannot have. In a probe or rolled body
(``_loops``) such a slice is read as a ``Window``: the value at the full static length
of each such axis, and per axis the runtime bounds [lo, hi) of the part the slice holds
(``Bound``, clamped as Python clamps slices). A window admits only the uses whose result does
not depend on what lies outside its bounds:

- ``@``, ``dot``, ``matmul`` and ``outer``: the operands are set to zero outside their bounds
  (no inf or nan from there reaches the product), and contracted axes must have the same
  bounds (or the same slice on axes of two lengths that never clamp it, ``r[:k] @ x[:k]``
  with ``len(r) < len(x)``: ``Bound.aligned``); a product that keeps a bounded axis is a
  window again;
- ``sum`` (of all elements, or along one axis): set to zero outside the bounds; a float
  sum over a bounded last axis alone is summed in NumPy's pairwise order for the
  runtime length (other float sums over a bounded axis NumPy sums pairwise refuse);
- ufuncs and arithmetic operators (a 0-d array on the left too: the operator's ufunc hands
  the window here, ``DEFERRED_UFUNC``) with Python or NumPy scalars, 0-d arrays and windows
  of the same bounds: the operands are set to one outside the bounds (nothing there overflows or
  divides by zero), and the result is a window again;
- ``w[::-1]`` (and ``np.flip`` of a 1-d window) along an axis whose window starts at 0 (a
  gather with clipped indices), and ``w.T``;
- ``x[lo:hi] = v`` and ``x[lo:hi] op= v`` with the same bounds: a select into the full part.

Anything else a window meets (``shape``, ``len``, printing, another function, a window of
other bounds, an array operand that is not 0-d) raises ``NoRoll``, and the loop
unrolls as written. A window holds the value its array had when it was read: used after that
array was written, it refuses as well (NumPy's view would see the write).
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._runtime import _context
from npjax._core import _casts
from npjax._library import _products, _reductions, _shape_ops
from npjax._core._index_values import convert_value
from npjax._compile._loop_index import LoopIndex, NoRoll
from npjax._placement._fast_calls import is_function
from npjax._core._ndarray import ndarray
from npjax._placement._route import DEFERRED_UFUNC
from npjax._pure._impl.reductions import pairwise_upto
from npjax._calls._ufuncs import ufunc

__all__ = ["Bound", "Window", "consumer", "cut", "pairwise", "store"]


# --- bounds ------------------------------------------------------------------------------


def _form(end: Any, n: int, default: int) -> tuple:
    """A slice end as (loop counter or None, mul, add); a constant clamped as Python does."""
    if end is None:
        return (None, 0, default)
    if type(end) is LoopIndex:
        return (end.k, end.mul, end.add)
    end = operator.index(end)
    return (None, 0, min(max(end + n if end < 0 else end, 0), n))


def _position(end: Any, form: tuple, n: int) -> Any:
    """The runtime position of a slice end on an axis of length ``n``: negative ends count
    from the end, then clamped to [0, n] (``slice.indices`` for step 1)."""
    if form[0] is None:
        return form[2]
    v = end.traced()
    if end.lo < 0:
        v = jnp.where(v < 0, v + n, v)
    if end.lo < 0 or end.hi > n:
        v = jnp.clip(v, 0, n)
    return v


class Bound:
    """The part [lo, hi) of an axis of static length ``n`` that a window holds; ``form`` is
    the symbolic slice it came from: equal forms give equal bounds on every iteration."""

    __slots__ = ("form", "hi", "lo", "n", "reach")

    def __init__(self, start: Any, stop: Any, n: int) -> None:
        self.n = n
        self.form = (_form(start, n, 0), _form(stop, n, n))
        self.lo = _position(start, self.form[0], n)
        self.hi = _position(stop, self.form[1], n)
        ends = [e for e in (start, stop) if type(e) is LoopIndex]
        # the interval the index-dependent ends span before any clamping
        self.reach = (min(e.lo for e in ends), max(e.hi for e in ends)) if ends else (0, 0)

    def same(self, other: Bound | None) -> bool:
        return other is not None and self.n == other.n and self._same_form(other)

    def _same_form(self, other: Bound) -> bool:
        return all(a is b or (type(a) is int and type(b) is int and a == b)
                   for fa, fb in zip(self.form, other.form) for a, b in zip(fa, fb))

    def aligned(self, other: Bound | None) -> bool:
        """Whether ``other``, on an axis of another length, holds the same positions on
        every iteration: the same slice, and neither length ever clamps it (so both
        windows lie in the first ``min(n)`` elements)."""
        return other is not None and self._same_form(other) and self.reach[0] >= 0 and \
            self.reach[1] <= min(self.n, other.n)

    def starts_at_zero(self) -> bool:
        return self.form[0] == (None, 0, 0)

    def mask(self, axis: int, ndim: int) -> jax.Array:
        """True inside the bounds, along ``axis`` of an ``ndim``-d value (1 elsewhere)."""
        shape = [1] * ndim
        shape[axis] = self.n
        idx = lax.broadcasted_iota(np.int32, tuple(shape), axis)
        return (idx >= self.lo) & (idx < self.hi)


def _same_bound(a: Bound | None, b: Bound | None) -> bool:
    return b is None if a is None else a.same(b)


def _same_bounds(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(_same_bound(x, y) for x, y in zip(a, b))


def _mask(bounds: tuple) -> jax.Array | None:
    out = None
    for axis, b in enumerate(bounds):
        if b is not None:
            m = b.mask(axis, len(bounds))
            out = m if out is None else out & m
    return out


def _moving(item: slice, n: int) -> bool:
    """Whether a slice with a loop index gives a window: step 1, and its length changes or
    it is clamped on some iteration (else ``_loops`` moves a box of fixed size)."""
    start, stop = item.start, item.stop
    if type(start) is not LoopIndex and type(stop) is not LoopIndex:
        return False
    if item.step not in (None, 1) or type(item.step) is LoopIndex:
        return False  # left to ``_loops``, which refuses it
    return not (type(start) is LoopIndex and type(stop) is LoopIndex and start.k is stop.k
                and start.mul == stop.mul and start.lo >= 0 and stop.lo >= 0
                and start.hi <= n and stop.hi <= n)


def cut(x: Any, key: Any) -> tuple | None:
    """For a basic index with a moving slice (``_moving``): (the key with each moving slice
    made whole, the Bound or None of each axis of what that key reads). None without one."""
    items = list(key) if type(key) is tuple else [key]
    if not any(type(it) is slice and (type(it.start) is LoopIndex or
                                      type(it.stop) is LoopIndex) for it in items):
        return None
    if type(x) is not ndarray or x._lens is None:
        raise NoRoll("a loop index subscripts something that is not an npjax array")
    shape = x.shape
    whole: list = []
    bounds: list = []
    axis = 0
    for it in items:
        if it is None:
            whole.append(None)
            bounds.append(None)
            continue
        if it is Ellipsis or axis >= len(shape):
            raise NoRoll("an ellipsis or too many indices beside a moving slice")
        n = shape[axis]
        if type(it) is slice:
            moving = _moving(it, n)
            whole.append(slice(None) if moving else it)
            bounds.append(Bound(it.start, it.stop, n) if moving else None)
        elif type(it) is LoopIndex or (isinstance(it, int | np.integer) and
                                       not isinstance(it, bool)):
            whole.append(it)
        else:
            raise NoRoll("an array or boolean index beside a moving slice")
        axis += 1
    if all(b is None for b in bounds):
        return None
    bounds.extend([None] * (len(shape) - axis))
    return tuple(whole), tuple(bounds)


# --- windows -----------------------------------------------------------------------------


def _is_scalar(v: Any) -> bool:
    return type(v) in (int, float, complex, bool) or isinstance(v, np.generic) or (
        type(v) is ndarray and v.ndim == 0)


def _refuse(what: str) -> Callable:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NoRoll(f"a moving slice is used for {what}")
    return refuse


def _binary(op: Callable) -> Callable:
    def method(self: Window, other: Any) -> Window:
        return _elementwise(op, (self, other))
    return method


def _reflected(op: Callable) -> Callable:
    def method(self: Window, other: Any) -> Window:
        return _elementwise(op, (other, self))
    return method


def _unary(op: Callable) -> Callable:
    def method(self: Window) -> Window:
        return _elementwise(op, (self,))
    return method


class Window:
    """A slice whose extent moves with the loop index: ``value`` at the full length of every
    axis with a ``Bound`` (``bounds``: one Bound or None per axis). ``root``: the array it
    was read from (None for a computed window), which must not change while it is used."""

    __slots__ = ("bounds", "root", "value", "version")

    def __init__(self, value: jax.Array, bounds: tuple, root: ndarray | None = None) -> None:
        self.value, self.bounds, self.root = value, bounds, root
        self.version = None if root is None else root._version

    @classmethod
    def read(cls, whole: ndarray, bounds: tuple) -> Window:
        """The window ``bounds`` of ``whole`` (the full part of the array a key reads)."""
        return cls(whole._read(), bounds, whole if whole._base is None else whole._base)

    def filled(self, fill: int) -> ndarray:
        """The value with ``fill`` outside the bounds, as a new npjax array."""
        if self.root is not None and self.root._version != self.version:
            raise NoRoll("an array is written while a moving slice of it is in use")
        v = self.value
        out = jnp.where(_mask(self.bounds), v, jnp.full((), fill, v.dtype))
        if self.root is None:  # a computed window: outside its bounds, padding
            tr = _context.trace()
            if tr is not None:
                tr.watch.inside(out, v)
        return ndarray._owner(out)

    def inplace(self, op: Callable, value: Any) -> Window:
        """``self op= value`` of ``x[lo:hi] op= value``: the in-place operator on a copy (its
        casting rules, its errors); the caller stores the result."""
        return _wrap(op(self.filled(1), _elementwise_operand(value, self)), self.bounds)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        return _sum_call(_reductions.sum, (self, *args), kwargs)

    def dot(self, *args: Any, **kwargs: Any) -> Any:
        return _dot_call(_products.dot, (self, *args), kwargs)

    @property
    def T(self) -> Window:
        """The transpose: the same elements, the axes and their bounds reversed."""
        t = Window(self.value.T, self.bounds[::-1])
        t.root, t.version = self.root, self.version  # still the array it was read from
        return t

    def __getitem__(self, key: Any) -> Window:
        if type(key) is not slice or key != slice(None, None, -1) or not self.bounds:
            raise NoRoll("a moving slice is indexed")
        v = self.filled(0)._read()
        b = self.bounds[0]
        if b is None:
            return Window(v[::-1], self.bounds)
        if not b.starts_at_zero():
            raise NoRoll("a moving slice that does not start at 0 is reversed")
        idx = jnp.clip(b.hi - 1 - jnp.arange(b.n), 0, b.n - 1)
        return Window(jnp.take(v, idx, axis=0), self.bounds)

    __add__, __radd__ = _binary(operator.add), _reflected(operator.add)
    __sub__, __rsub__ = _binary(operator.sub), _reflected(operator.sub)
    __mul__, __rmul__ = _binary(operator.mul), _reflected(operator.mul)
    __truediv__, __rtruediv__ = _binary(operator.truediv), _reflected(operator.truediv)
    __floordiv__, __rfloordiv__ = _binary(operator.floordiv), _reflected(operator.floordiv)
    __mod__, __rmod__ = _binary(operator.mod), _reflected(operator.mod)
    __pow__, __rpow__ = _binary(operator.pow), _reflected(operator.pow)
    __and__, __rand__ = _binary(operator.and_), _reflected(operator.and_)
    __or__, __ror__ = _binary(operator.or_), _reflected(operator.or_)
    __xor__, __rxor__ = _binary(operator.xor), _reflected(operator.xor)
    __neg__, __pos__ = _unary(operator.neg), _unary(operator.pos)
    __abs__, __invert__ = _unary(operator.abs), _unary(operator.invert)

    def __matmul__(self, other: Any) -> Any:
        return _product(operator.matmul, self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _product(operator.matmul, other, self)

    __iadd__ = __isub__ = __imul__ = __itruediv__ = __ifloordiv__ = __imod__ = __ipow__ = \
        __imatmul__ = __iand__ = __ior__ = __ixor__ = __ilshift__ = __irshift__ = \
        _refuse("an in-place operator (it writes through a view)")
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = __divmod__ = __rdivmod__ = \
        _refuse("an operator other than arithmetic")
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse("a comparison")  # type: ignore
    __setitem__ = __delitem__ = _refuse("a store")
    __len__ = __iter__ = __contains__ = __bool__ = __index__ = __int__ = __float__ = \
        __complex__ = __hash__ = __array__ = __jax_array__ = _refuse("its length or value")
    __repr__ = __str__ = __format__ = _refuse("printing")  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        raise NoRoll(f"a moving slice's attribute {name!r} is read")


def _wrap(out: Any, bounds: tuple) -> Any:
    """A result that keeps bounded axes as a window, else as it is."""
    if all(b is None for b in bounds):
        return out
    if type(out) is not ndarray or out.ndim != len(bounds):
        raise NoRoll("a moving slice gives a result of another shape")
    return Window(out._read(), bounds)


def _elementwise_operand(v: Any, like: Window) -> Any:
    if type(v) is Window:
        if v.value.shape != like.value.shape or not _same_bounds(v.bounds, like.bounds):
            raise NoRoll("moving slices of different bounds in one operation")
        return v.filled(1)
    if _is_scalar(v):
        return v
    raise NoRoll("a moving slice beside an array that is not 0-d")


def _elementwise(fn: Callable, args: tuple) -> Window:
    like = next(a for a in args if type(a) is Window)
    return _wrap(fn(*(_elementwise_operand(a, like) for a in args)), like.bounds)


def _product_operand(v: Any) -> tuple:
    if type(v) is Window:
        if v.value.ndim in (1, 2):
            return v.filled(0), v.bounds
    elif type(v) is ndarray and v.ndim in (1, 2):
        return v, (None,) * v.ndim
    raise NoRoll("a moving slice in a product with something that is not a 1-d or 2-d array")


def _product(fn: Callable, a: Any, b: Any) -> Any:
    """``fn(a, b)`` for ``@``/``dot``/``matmul`` of 1-d and 2-d operands."""
    (x, bx), (y, by) = _product_operand(a), _product_operand(b)
    if not _same_bound(bx[-1], by[0]):  # (the first axis of y, 1-d or 2-d)
        if bx[-1] is None or not bx[-1].aligned(by[0]):
            raise NoRoll("a product over axes of different bounds")
        m = min(bx[-1].n, by[0].n)  # ``r[:k] @ x[:k]`` with len(r) < len(x): both cut to m
        x, y = ndarray._owner(x._read()[..., :m]), ndarray._owner(y._read()[:m])
    return _wrap(fn(x, y), bx[:-1] + by[1:] if len(by) == 2 else bx[:-1])


def _dot_call(fn: Callable, args: tuple, kwargs: dict) -> Any:
    if kwargs or len(args) != 2:
        raise NoRoll("a moving slice in a product with more arguments")
    return _product(fn, *args)


def _outer_call(fn: Callable, args: tuple, kwargs: dict) -> Any:
    if kwargs or len(args) != 2:
        raise NoRoll("a moving slice in outer with more arguments")
    ops = [_product_operand(a) for a in args]
    if any(len(bounds) != 1 for _, bounds in ops):
        raise NoRoll("outer of a moving slice that is not 1-d")
    return _wrap(fn(ops[0][0], ops[1][0]), ops[0][1] + ops[1][1])


def _sum_call(fn: Callable, args: tuple, kwargs: dict) -> Any:
    if not 1 <= len(args) <= 2 or set(kwargs) - {"axis"} or (len(args) == 2 and kwargs):
        raise NoRoll("a moving slice summed with more arguments")
    w = args[0]
    axis = args[1] if len(args) == 2 else kwargs.get("axis")
    if type(w) is not Window or type(axis) is Window:
        raise NoRoll("a moving slice as an argument of sum")
    ndim = w.value.ndim
    if axis is None:
        return _in_order(fn(w.filled(0)), w, tuple(range(ndim)))
    if type(axis) is not int or not -ndim <= axis < ndim:
        raise NoRoll("a moving slice summed along an axis that is not an int in range")
    axis %= ndim
    out = _in_order(fn(w.filled(0), axis), w, (axis,))
    return _wrap(out, w.bounds[:axis] + w.bounds[axis + 1:])


def _in_order(out: Any, w: Window, axes: tuple) -> Any:
    """A float sum of a zero-filled window made NumPy's: zeros added in a sequential fold
    change nothing, but a pairwise run over a bounded axis groups other elements than
    NumPy's shorter run; a bounded last axis summed alone is summed here in NumPy's order."""
    if type(out) is not ndarray or out.dtype.kind not in "fc":
        return out  # integer sums wrap the same in any order
    live = [i for i, n in enumerate(w.value.shape) if n != 1]
    if not any(w.bounds[i] is not None for i in axes) or not live or live[-1] not in axes:
        return out  # no bounded axis summed, or only sequential folds over them
    last = w.value.ndim - 1
    if axes != (last,) or w.bounds[last] is None:
        raise NoRoll("a float sum of a moving slice whose inner run NumPy sums pairwise")
    b = w.bounds[last]
    if max(b.n, w.value.shape[-1]) > PAIRWISE_MAX:
        return out
    comp = np.dtype(np.float32) if out.dtype == np.float16 else out.dtype
    y = w.value.astype(comp)
    n = b.hi - b.lo
    if not b.starts_at_zero():
        y = jnp.take(y, b.lo + jnp.arange(b.n), axis=-1, mode="clip")
    total = jnp.zeros((), comp) + pairwise(y, n, comp.kind == "c")
    return ndarray._owner(total.astype(out.dtype), scalar=out._scalar)


# The longest run summed in NumPy's pairwise order for a runtime length (``pairwise``: its
# program gathers about four times the run; first calls of ``x[x > 0].sum()`` under
# npjax.jit on a CPU: 0.8 s at 128 elements, 2.1 s at 1024, 2.6 s at 4096, against 0.6 s
# with XLA's order); longer runs keep XLA's sum of the zero-filled run (last-bit
# differences from NumPy's, README).
PAIRWISE_MAX = 4096
pairwise = pairwise_upto


_UFUNC_DEFAULTS = {"out": None, "where": True, "casting": "same_kind", "order": "K",
                   "dtype": None, "subok": True, "signature": None}


def _operator_call(fn: ufunc, args: tuple, kwargs: dict) -> Any:
    """A ufunc reached with a window and every keyword given (``ufunc.__call__``): an array
    operator with the window on the right, ``mu * w[:k]``."""
    if any(not (kwargs[k] is v or type(v) is str and kwargs[k] == v)
           for k, v in _UFUNC_DEFAULTS.items()):
        raise NoRoll(f"a moving slice in {fn.__name__} with keywords")
    return _ufunc_call(fn, args, {})


DEFERRED_UFUNC[Window] = _operator_call


def _ufunc_call(fn: ufunc, args: tuple, kwargs: dict) -> Any:
    if fn.__name__ == "matmul":
        return _dot_call(fn, args, kwargs)
    if kwargs or len(args) != fn.nin or fn.nout != 1:
        raise NoRoll(f"a moving slice in {fn.__name__} with keywords or several outputs")
    return _elementwise(fn, args)


def _flip_call(f: Any, args: tuple, kwargs: dict) -> Any:
    """``np.flip(w)`` of a 1-d window (``axis`` None or 0): ``w[::-1]``."""
    bound = inspect.signature(f).bind(*args, **kwargs)
    w, axis = bound.arguments.get("m"), bound.arguments.get("axis")
    if type(w) is not Window or w.value.ndim != 1 or axis not in (None, 0, -1, (0,)):
        raise NoRoll("np.flip of a moving slice that is not 1-d, or by another axis")
    return w[::-1]


_KINDS: dict[Any, Callable] = {inspect.unwrap(_products.dot): _dot_call,
                               inspect.unwrap(_products.outer): _outer_call,
                               inspect.unwrap(_reductions.sum): _sum_call,
                               inspect.unwrap(_shape_ops.flip): _flip_call}


def consumer(f: Any) -> Any:
    """What a rolled body calls for callee ``f``: ``f`` itself, or for the functions that
    take windows (ufuncs, ``dot``, ``outer``, ``sum``) ``f`` with windows handled."""
    if type(f) is ufunc:
        kind: Callable | None = _ufunc_call
    elif is_function(f):  # (a Python function or its C call, ``_fast_calls``)
        kind = _KINDS.get(inspect.unwrap(f))
    else:
        return f
    if kind is None:
        return f

    def through_windows(*args: Any, **kwargs: Any) -> Any:
        if any(type(a) is Window for a in args) or any(
                type(v) is Window for v in kwargs.values()):
            return kind(f, args, kwargs)
        return f(*args, **kwargs)
    return through_windows


def _part(shape: tuple, dtype: Any, bounds: tuple, value: Any) -> tuple:
    """(the value stored, the bounds' mask, the computed window it shows or None) of
    ``x[key] = value`` into the whole part (``shape``, ``dtype``) of a key with moving
    slices: ``value`` cast as NumPy's setitem casts."""
    shown = None  # a computed window's value: checked as the stored part (``through``)
    if type(value) is Window:
        if value.value.shape != shape or not _same_bounds(value.bounds, bounds):
            raise NoRoll("a moving slice stored into one of other bounds")
        shown = value.value if value.root is None else None
        value = value.filled(0)  # (nothing outside the bounds reaches the cast's checks)
    elif not _is_scalar(value):
        raise NoRoll("an array stored into a moving slice")
    v = convert_value(value, dtype, shape)
    if isinstance(v, np.ndarray):
        v = jnp.asarray(v)
    elif isinstance(v, jax.Array):
        v = _casts.cast(v, dtype)
    else:
        raise NoRoll("a value stored into a moving slice that is not an array")
    return v, _mask(bounds), shown


def store(whole: ndarray, bounds: tuple, value: Any) -> ndarray:
    """The new value of ``whole`` (the full part of an array a key with moving slices
    writes) after ``x[key] = value``: ``value`` inside the bounds; the old value outside."""
    v, mask, shown = _part(whole.shape, whole.dtype, bounds, value)
    new = jnp.where(mask, v, whole._read())
    tr = _context.trace() if shown is not None else None
    if tr is not None:
        tr.watch.through(shown, whole if whole._base is None else whole._base, new, mask)
    return ndarray._owner(new)


def scattered(x: ndarray, whole: tuple, bounds: tuple, value: Any) -> Any:
    """The new value of ``x`` after ``x[key] = value`` for a key with moving slices, as a
    scatter of the elements inside the bounds (those outside get an index past the end,
    and are dropped), when ``x`` is an owner of two or more axes and ``whole`` (the key with
    the moving slices made whole) takes one axis whole and each other at one position in
    bounds (a row, a column); else None (``store`` then selects inside the whole part).
    That select read the part's old value, and where a store into the same part came just
    before (``L[j, j] = d`` then ``L[j + 1:, j] = ...``), XLA fused that read with the
    first store, reading the array as it was before it, and so copied the whole array
    twice per iteration. (A part of more axes, or the whole array, keeps the select: XLA's
    scatter of many elements costs more.)"""
    axes = [i for i, it in enumerate(whole) if type(it) is slice]
    if x._base is not None or not isinstance(x._value, jax.Array) or x.ndim < 2 or \
            len(whole) != x.ndim or len(axes) != 1 or whole[axes[0]] != slice(None):
        return None
    index: list = []
    for it, n in zip(whole, x.shape):
        if type(it) is slice:  # (``bounds`` has one entry: the part's axis)
            at = lax.iota(np.int32, n)
            index.append(at if bounds[0] is None else jnp.where(bounds[0].mask(0, 1), at, n))
        elif type(it) is LoopIndex and it.lo >= 0 and it.hi < n:
            index.append(it.traced())
        elif isinstance(it, int | np.integer) and not isinstance(it, bool) and 0 <= it < n:
            index.append(int(it))
        else:
            return None
    shape = (x.shape[axes[0]],)
    v, mask, shown = _part(shape, x.dtype, bounds, value)
    v = jnp.broadcast_to(v, shape)
    tr = _context.trace()
    if tr is not None and shown is not None:  # checked inside the bounds
        tr.watch.through(shown, x, v, mask)
    return x._read().at[tuple(index)].set(v, mode="drop")
