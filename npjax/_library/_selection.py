"""Searching and selection (where, clip, nonzero, take, choose, compress, select, ...), and
the argument helpers shared by the selection families.

Functions with data-dependent output shapes (``nonzero``, ``compress``...) read
concrete values eagerly, as NumPy does, and compute their results at a bucketed length
(``npjax/_core/_buckets.py``): n different result lengths make O(log n) programs. The in-place
writes (``put``, ``place``, ``putmask``, ``put_along_axis``) are in ``npjax/_library/_put.py``;
``diff``/``ediff1d`` in ``npjax/_library/_differences.py``; ``bincount``/``digitize`` in
``npjax/_library/_binning.py``.

Sorting, ``searchsorted``, ``unique`` and the set operations are in
``npjax/_library/_sorting.py``; the pure-JAX sort keys and kernels in
``npjax/_pure/_impl/sorting.py``.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._core import _buckets, _casts
from npjax._pure import _dtypes
from npjax._runtime import _stats
from npjax._pure._impl.positions import nonzero_mask, selected
from npjax._core._subclasses import refuse
from npjax._calls._dispatch import ArrayIn, Out, npfunc
from npjax._core._out import write_out
from npjax._pure._errors import ComplexWarning, unsupported
from npjax._execution._lazy import Kernel
from npjax._pure._axes import axis_argument, normalize_axis
from npjax._core._ndarray import install_methods, ndarray
from npjax._placement._made import from_device, place_made
from npjax._core import _normalize
from npjax._core._normalize import to_jax, to_jax_lazy
from npjax._runtime._context import current, trace
from npjax._placement._route import hand_written
from npjax._pure._declared import OWN_ROUTE

__all__ = [
    "where", "clip", "nonzero", "argwhere", "flatnonzero", "take", "take_along_axis", "choose",
    "compress", "extract", "select", "piecewise",
]

_NoValue = np._NoValue
_INTP = np.dtype(np.intp)
_MODES = ("raise", "wrap", "clip")


# --- helpers ----------------------------------------------------------------------------------


def _jx(x: Any) -> jax.Array:
    return to_jax(x, current())


def _weak_or_array(x: Any) -> Any:
    """A Python scalar stays (weak, NEP 50); anything else becomes a ``jax.Array``."""
    return x if type(x) in _dtypes.WEAK_TYPES else _jx(x)


def _weak_value(x: Any, dtype: np.dtype) -> jax.Array:
    """A weak Python scalar as a device value: a float or complex one in ``dtype`` (where
    NumPy casts it; as NumPy's float64 it would be a host array on a TPU), others as NumPy
    converts them."""
    if type(x) in (float, complex) and dtype.kind in "fc":
        return _jx(np.asarray(x, dtype))
    return _jx(x)


def _key(x: Any) -> Any:
    return type(x) if type(x) in _dtypes.WEAK_TYPES else x.dtype


def _cast(x: Any, dtype: np.dtype, strict: bool = False) -> jax.Array:
    """An operand (weak Python scalar or array) in ``dtype``.

    strict: a Python int must fit (OverflowError, as ufuncs do); otherwise it is converted
    to its default dtype first and then cast unsafely (``where``, ``select``, ``choose``).
    """
    if type(x) is int and strict:
        _dtypes.check_python_int(x, dtype)
    if type(x) in _dtypes.WEAK_TYPES:  # a host value: jitted kernels take it as an argument
        if strict:
            return np.asarray(x, dtype=dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.asarray(x).astype(dtype)
    return x


def _check_mode(mode: str) -> str:
    if mode not in _MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return mode


def _as_intp(idx: jax.Array) -> jax.Array:
    """Check index data NumPy's ``take``/``put`` accept (converted in kernels by
    ``_to_intp``: an unsafe cast, floats truncated)."""
    kind = idx.dtype.kind
    if kind == "c":
        raise TypeError("int() argument must be a string, a bytes-like object or a real "
                        "number, not 'complex'")
    if kind == "f" and idx.size and not bool(_all_finite(idx)):
        raise IndexError("index out of bounds (non-finite index)")
    return idx


@jax.jit
def _all_finite(x: jax.Array) -> jax.Array:
    return jnp.all(jnp.isfinite(x))


def _to_intp(idx: jax.Array) -> jax.Array:
    if idx.dtype.kind == "f":
        idx = jnp.trunc(idx)
    return idx.astype(_INTP)


@jax.jit
def _min_max(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    if x.dtype.kind in "fc" or x.dtype == np.uint64:
        x = _to_intp(x)
    return jnp.min(x), jnp.max(x)


def _normal(idx: jax.Array, n: int, mode: str) -> jax.Array:
    idx = _to_intp(idx)
    if mode == "raise":
        return jnp.where(idx < 0, idx + n, idx)
    if mode == "wrap":
        return jnp.mod(idx, n)
    return jnp.clip(idx, 0, n - 1)


_normal_jit = jax.jit(_normal, static_argnames=("n", "mode"))


def _fix_indices(idx: jax.Array, n: int, mode: str, axis: int = 0,
                 what: str = "take", convert: bool = True) -> jax.Array:
    """Check indices into an axis of length ``n`` (NumPy's errors); with ``convert``, return
    them as non-negative in-range intp per ``mode``."""
    if mode == "raise":
        if idx.size:
            lo, hi = (int(v) for v in _min_max(idx))
            bad = lo if lo < -n else (hi if hi >= n else None)
            if bad is not None:
                raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
    elif n == 0:
        if idx.size:
            raise IndexError("cannot do a non-empty take from an empty axes." if what == "take"
                             else "cannot replace elements of an empty array")
        return idx
    return _normal_jit(idx, n, mode) if convert else idx


def _require_ndarray(a: Any, fn: str) -> ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"{fn}() argument 1 must be numpy.ndarray, not {type(a).__name__}")
    return a


def _store_values(value: Any, dtype: np.dtype) -> jax.Array:
    """Values to store into an array of ``dtype`` (NumPy's setitem conversion)."""
    if isinstance(value, ndarray | jax.Array):
        v = value._read() if isinstance(value, ndarray) else value
        if v.dtype.kind == "c" and dtype.kind not in "cb":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          ComplexWarning, stacklevel=_stacklevel())
        return _casts.cast(v, dtype)
    if isinstance(value, list | tuple) and any(isinstance(x, ndarray) for x in value):
        return _casts.cast(_jx(value), dtype)
    return _jx(np.asarray(value, dtype=dtype))


def _cycle(values: jax.Array, n: int) -> jax.Array:
    """``values`` (flattened) repeated to length ``n`` as ``numpy.resize`` would."""
    flat = values.ravel()
    if flat.size == n:
        return flat
    return jnp.resize(flat, (n,))


# --- where, clip ------------------------------------------------------------------------------


@npfunc
def where(condition: Any, x: Any = _NoValue, y: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.where``."""
    if x is _NoValue and y is _NoValue:
        return nonzero(condition)
    if x is _NoValue or y is _NoValue:
        raise ValueError("either both or neither of x and y should be given")
    policy = current()
    read = to_jax_lazy if policy.lazy else to_jax  # recorded in lazy mode
    cond = read(condition, policy)
    xv, yv = (v if type(v) in _dtypes.WEAK_TYPES else read(v, policy) for v in (x, y))
    dtype = _dtypes.result_type(_key(xv), _key(yv))
    return ndarray._owner(_where(dtype)(cond, _cast(xv, dtype), _cast(yv, dtype)))


@functools.lru_cache(maxsize=256)
def _where(dtype: np.dtype) -> Kernel:
    return Kernel(jax.jit(lambda cond, x, y: jnp.where(cond.astype(bool), x.astype(dtype),
                                                       y.astype(dtype))))


_UMATH_CLIP = np._core.umath.clip
_UFUNC_KEYWORDS = frozenset(("where", "order", "dtype", "subok", "signature"))


@functools.lru_cache(maxsize=1024)
def _clip_loop(keys: tuple, casting: str) -> tuple:
    return tuple(_UMATH_CLIP.resolve_dtypes(keys + (None,), casting=casting))


@functools.partial(jax.jit, static_argnames=("loop",))
def _clip_kernel(a: jax.Array, lo: jax.Array, hi: jax.Array, loop: tuple) -> jax.Array:
    a, lo, hi = (v.astype(d) for v, d in zip((a, lo, hi), loop))
    return jnp.minimum(jnp.maximum(a, lo), hi).astype(loop[3])


def _clip(a: Any, lo: Any, hi: Any, out: Any = None, casting: str = "same_kind",
          **kwargs: Any) -> Any:
    if kwargs:
        key = next(iter(kwargs))
        if key not in _UFUNC_KEYWORDS:  # (NumPy's ufunc refuses a name it does not take)
            raise TypeError(f"clip() got an unexpected keyword argument '{key}'")
        raise unsupported("clip", key)
    av = _jx(a)
    if av.dtype.kind in "iu":
        info = np.iinfo(av.dtype)
        if type(lo) is int and lo <= info.min:
            lo = None
        if type(hi) is int and hi >= info.max:
            hi = None
    from npjax._calls._ufuncs import UFUNCS

    if lo is None and hi is None:
        return UFUNCS["positive"](av, out=out, casting=casting)
    if lo is None:
        return UFUNCS["minimum"](av, hi, out=out, casting=casting)
    if hi is None:
        return UFUNCS["maximum"](av, lo, out=out, casting=casting)
    lov, hiv = _weak_or_array(lo), _weak_or_array(hi)
    loop = _clip_loop((av.dtype, _key(lov), _key(hiv)), casting)
    dtype = _dtypes.device_only(loop[3])  # (float64 on a TPU: NumPy's clip there)
    ops = [_cast(v, d, True) for v, d in zip((av, lov, hiv), loop)]
    np.broadcast_shapes(*[np.shape(v) for v in ops])
    result = _clip_kernel(*ops, loop)
    if dtype.kind in "iu" and isinstance(lo, int | np.integer) and isinstance(
            hi, int | np.integer) and isinstance(result, jax.core.Tracer):
        tr = trace()
        if tr is not None:  # npjax.jit: its entries are known to lie in [lo, hi]
            tr.bounds[id(result)] = (result, int(min(lo, hi)), int(max(lo, hi)))
    if out is Ellipsis:  # NumPy's ``out=...``: an array (a scalar's method gives a scalar)
        return ndarray._owner(result, isinstance(a, np.generic) or getattr(a, "_scalar", False))
    if out is not None:
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        return write_out(out, result, casting, "clip")
    return ndarray._owner(result, result.ndim == 0)


@npfunc
def clip(a: Any, a_min: Any = _NoValue, a_max: Any = _NoValue, out: Any = None, *,
         min: Any = _NoValue, max: Any = _NoValue, **kwargs: Any) -> Any:
    """npjax implementation of ``numpy.clip``.

    Differences from NumPy: only the ``casting`` ufunc keyword is accepted.
    """
    if a_min is _NoValue and a_max is _NoValue:
        a_min = None if min is _NoValue else min
        a_max = None if max is _NoValue else max
    elif a_min is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NoValue or max is not _NoValue:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` "
                         "are provided is forbidden.")
    return _clip(a, a_min, a_max, out, **kwargs)


def _clip_method(self: ndarray, min: Any = None, max: Any = None, out: Any = None,
                 **kwargs: Any) -> Any:
    return _clip(self, min, max, out, **kwargs)


# --- nonzero ----------------------------------------------------------------------------------


def _host_mask(x: jax.Array) -> np.ndarray:
    return np.asarray(_mask(x)) if x.size else np.zeros(x.shape, bool)


_mask = jax.jit(nonzero_mask)


def _device(host: np.ndarray, dtype: Any = None) -> jax.Array:
    """A host result on the policy's device (``device_put``: no per-shape compilation)."""
    host = np.asarray(host, dtype=_INTP if dtype is None else dtype)
    return _normalize.place(jax.device_put(host), current())


def _nonzero_tuple(x: jax.Array) -> tuple:
    if x.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.")
    return _buckets.nonzero(x)


@npfunc
def nonzero(a: ArrayIn) -> tuple:
    """npjax implementation of ``numpy.nonzero``."""
    return _nonzero_tuple(a)


@functools.partial(jax.jit, static_argnames=("shape", "size"))
def _argwhere_padded(sel: tuple, shape: tuple, size: int) -> jax.Array:
    return jnp.stack(jnp.unravel_index(selected(sel, size), shape), axis=1)


@npfunc
def argwhere(a: ArrayIn) -> jax.Array:
    """npjax implementation of ``numpy.argwhere``."""
    if a.ndim == 0:
        return _device(np.argwhere(_host_mask(a)))
    if _buckets.in_host_memory(a):  # NumPy's own answer, exact
        return _device(np.argwhere(_stats.fetch(a)))
    count = _buckets.count_nonzero(a)
    if count == 0:
        return _buckets.zeros((0, a.ndim), _INTP)
    kernel = functools.partial(_argwhere_padded, shape=a.shape)
    return _buckets.run(kernel, a, count=count)[0][0]


@npfunc
def flatnonzero(a: ArrayIn) -> jax.Array:
    """npjax implementation of ``numpy.flatnonzero``."""
    return _buckets.nonzero(a.ravel())[0]


# --- take / put family ------------------------------------------------------------------------


def _axis_for_take(a: jax.Array, axis: Any) -> tuple[jax.Array, int]:
    if axis is None:
        return a.ravel(), 0
    axis_argument(axis)  # (NumPy's take and compress read it in C: no booleans)
    if a.ndim == 0:
        a = a.reshape(1)
    return a, normalize_axis(axis, a.ndim)


def _check_take_out(out: Any, result: jax.Array) -> None:
    if out is None:
        return
    if not isinstance(out, ndarray):
        raise TypeError("output must be an array")
    if out.shape != result.shape:
        raise ValueError("output array does not match result of ndarray.take")
    if not _dtypes.can_cast(out.dtype, result.dtype, "safe"):
        raise TypeError(f"Cannot cast array data from {out.dtype!r} to {result.dtype!r} "
                        "according to the rule 'safe'")


@functools.partial(jax.jit, static_argnames=("axis", "mode"))
def _take(a: jax.Array, idx: jax.Array, axis: int, mode: str = "clip") -> jax.Array:
    """Gather along ``axis`` (indices checked already; normalised here per ``mode``)."""
    return jnp.take(a, _normal(idx, a.shape[axis], mode), axis=axis, mode="clip")


def _take_body(av: jax.Array, ind: jax.Array, axis: Any, mode: str) -> jax.Array:
    """``take`` of computed operands (NumPy's checks of ``mode``, ``axis`` and the indices)."""
    _check_mode(mode)
    av, ax = _axis_for_take(av, axis)
    return _take_axis(av, _as_intp(ind), ax, mode)


def _take_axis(a: jax.Array, idx: jax.Array, ax: int, mode: str) -> jax.Array:
    """``take`` along one axis with NumPy's checks: in 'raise' mode indices are checked only
    when there is something in front of the axis; an empty axis is an error for the other
    modes only when the result is not empty."""
    n = a.shape[ax]
    shape = a.shape[:ax] + idx.shape + a.shape[ax + 1:]
    outer = int(np.prod(a.shape[:ax], dtype=np.int64))
    size = int(np.prod(shape, dtype=np.int64))
    if (mode == "raise" and outer == 0) or (mode != "raise" and n == 0 and size == 0):
        return jnp.zeros(shape, a.dtype)
    _fix_indices(idx, n, mode, ax, convert=False)
    if n == 0 or size == 0:
        return jnp.zeros(shape, a.dtype)
    return _take(a, idx, ax, mode)


@npfunc(scalar=True)
def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    """npjax implementation of ``numpy.take``."""
    av = _jx(a)
    if out is not None:  # checked first, as NumPy does: ``out=`` must fit the result exactly
        taken, ax = _axis_for_take(av, axis)
        ind = _jx(indices)
        shape = taken.shape[:ax] + ind.shape + taken.shape[ax + 1:]
        _check_take_out(out, jax.ShapeDtypeStruct(shape, av.dtype))
        return write_out(out, _take_body(av, ind, axis, mode), "unsafe", "take")
    return _take_body(av, _jx(indices), axis, mode)


def _along_axis_index(shape: tuple, indices: jax.Array, axis: int) -> tuple:
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if len(shape) != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    fancy = []
    for d, n in enumerate(shape):
        if d == axis:
            fancy.append(indices)
        else:
            fancy.append(np.arange(n).reshape((1,) * d + (-1,) + (1,) * (indices.ndim - d - 1)))
    try:
        np.broadcast_shapes(*[f.shape for f in fancy])
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                         "shapes " + " ".join(str(f.shape) for f in fancy)) from None
    return tuple(fancy)


@npfunc
def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> ndarray:
    """npjax implementation of ``numpy.take_along_axis``."""
    a = arr if isinstance(arr, ndarray) else ndarray._owner(_jx(arr))
    ind = _jx(indices)
    if axis is None:
        if ind.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        a = a.reshape(-1)
        axis = 0
    else:
        axis = normalize_axis(axis, a.ndim)
    fancy = _along_axis_index(a.shape, ind, axis)
    shape = np.broadcast_shapes(*[f.shape for f in fancy])
    if 0 in shape:  # nothing is read, so nothing is checked (as NumPy)
        return ndarray._owner(jnp.zeros(shape, a.dtype))
    return a[fancy]




@npfunc(scalar=True)
def choose(a: ArrayIn, choices: Any, out: Out = None, mode: str = "raise") -> jax.Array:
    """npjax implementation of ``numpy.choose``."""
    _check_mode(mode)
    if isinstance(choices, ndarray | np.ndarray | jax.Array):
        cv = _jx(choices)
        items = [cv[i] for i in range(cv.shape[0])] if cv.ndim else [cv]
    else:
        items = [_weak_or_array(c) for c in choices]
    if not items:
        raise ValueError("0-length sequence.")
    if not _dtypes.can_cast(a.dtype, _INTP, "safe"):
        raise TypeError(f"Cannot cast array data from {a.dtype!r} to dtype('int64') "
                        "according to the rule 'safe'")
    dtype = _dtypes.result_type(*[_key(c) for c in items])
    arrays = [jnp.asarray(np.asarray(c).astype(dtype)) if type(c) in _dtypes.WEAK_TYPES
              else c.astype(dtype) for c in items]
    shape = np.broadcast_shapes(a.shape, *[c.shape for c in arrays])
    idx = jnp.broadcast_to(a.astype(_INTP), shape)
    n = len(arrays)
    if mode == "raise":
        if idx.size:
            lo, hi = (int(t) for t in _min_max(idx))
            if lo < 0 or hi >= n:
                raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        idx = jnp.mod(idx, n)
    else:
        idx = jnp.clip(idx, 0, n - 1)
    stacked = jnp.stack([jnp.broadcast_to(c, shape) for c in arrays])
    return jnp.take_along_axis(stacked, idx[None], axis=0)[0]


@functools.partial(jax.jit, static_argnames=("axis", "size"))
def _compress_padded(a: jax.Array, sel: tuple, axis: int, size: int) -> jax.Array:
    return jnp.take(a, selected(sel, size), axis=axis)


def _compress_axis(cond: jax.Array, a: jax.Array, ax: int) -> jax.Array:
    """``numpy.compress`` of the 1-d ``cond`` along axis ``ax`` of ``a``, with the checks of
    NumPy's ``take``: nothing is checked when nothing is in front of the axis, and a True
    past the end of the axis raises ``IndexError``. One program per bucket of the count."""
    n = a.shape[ax]
    count = _buckets.count_nonzero(cond)
    shape = a.shape[:ax] + (count,) + a.shape[ax + 1:]
    if math.prod(a.shape[:ax]) == 0:
        return _buckets.zeros(shape, a.dtype)
    if count and cond.shape[0] > n:
        beyond = np.flatnonzero(_stats.fetch(cond[n:]))
        if beyond.size:
            raise IndexError(f"index {n + int(beyond[0])} is out of bounds for axis {ax} "
                             f"with size {n}")
    if math.prod(shape) == 0:
        return _buckets.zeros(shape, a.dtype)
    if cond.shape[0] > n:  # the rest is False
        cond = cond[:n]
    kernel = functools.partial(_compress_padded, axis=ax)
    return _buckets.run(kernel, cond, a, axes=ax, count=count)[0][0]


def _compress_body(cond: jax.Array, av: jax.Array, axis: Any) -> jax.Array:
    """``compress`` of computed operands (NumPy's checks of the condition and ``axis``)."""
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    av, ax = _axis_for_take(av, axis)
    return _compress_axis(cond, av, ax)


@npfunc
def compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.compress``."""
    if out is None:
        cond = _jx(condition)
        return _compress_body(cond, _jx(a), axis)
    av = _jx(a)  # ``out=`` checked first, as NumPy does: it must fit the result exactly
    taken, ax = _axis_for_take(av, axis)
    cond = _jx(condition)
    if cond.ndim == 1:
        count = _buckets.count_nonzero(cond[: taken.shape[ax]])
        shape = taken.shape[:ax] + (count,) + taken.shape[ax + 1:]
        _check_take_out(out, jax.ShapeDtypeStruct(shape, av.dtype))
    return write_out(out, _compress_body(cond, av, axis), "unsafe", "compress")


@npfunc
def extract(condition: ArrayIn, arr: ArrayIn) -> jax.Array:
    """npjax implementation of ``numpy.extract``."""
    return _compress_axis(condition.ravel(), arr.ravel(), 0)


@npfunc
def select(condlist: Any, choicelist: Any, default: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.select`` (in lazy mode its operands stay pending and
    the choice is one recorded kernel)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    policy = current()
    read = to_jax_lazy if policy.lazy else to_jax
    choices = [c if type(c) in _dtypes.WEAK_TYPES else read(c, policy)
               for c in (*choicelist, default)]
    dtype = _dtypes.result_type(*[_key(c) for c in choices])
    choices = [_weak_value(c, dtype) if type(c) in _dtypes.WEAK_TYPES else c for c in choices]
    conds = [read(c, policy) for c in condlist]
    cshape = np.broadcast_shapes(*[c.shape for c in conds])
    np.broadcast_shapes(*[c.shape for c in choices])
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    shape = np.broadcast_shapes(cshape, *[c.shape for c in choices])
    for c in choices[:-1]:  # copied in with same_kind casting (the default: unsafe)
        if not _dtypes.can_cast(c.dtype, dtype, "same_kind"):
            raise TypeError(f"Cannot cast array data from {c.dtype!r} to {dtype!r} according "
                            "to the rule 'same_kind'")
    return ndarray._owner(_select(dtype, shape, len(conds))(*conds, *choices))


@functools.lru_cache(maxsize=256)
def _select(dtype: np.dtype, shape: tuple, n: int) -> Kernel:
    """The kernel of ``select``: ``n`` conditions, then ``n`` choices and the default."""

    def choose(*ops: jax.Array) -> jax.Array:
        conds, choices = ops[:n], ops[n:]
        result = jnp.broadcast_to(choices[-1].astype(dtype), shape)
        for choice, cond in zip(choices[-2::-1], conds[::-1]):
            result = jnp.where(cond, choice.astype(dtype), result)
        return result

    return Kernel(jax.jit(choose))


@hand_written(OWN_ROUTE + ": calls the user's function, which calls npjax")
def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> ndarray:
    """npjax implementation of ``numpy.piecewise`` (functions receive npjax arrays)."""
    from npjax._library._creation import asarray

    refuse("piecewise", x)
    xa = x if isinstance(x, ndarray) else asarray(x)
    n2 = len(funclist)
    first = None if np.isscalar(condlist) else condlist[0]
    listlike = isinstance(first, list | np.ndarray) or (
        isinstance(first, ndarray) and not first._scalar)
    if np.isscalar(condlist) or (not listlike and xa.ndim != 0):
        condlist = [condlist]
    conds = np.asarray([np.asarray(c) for c in condlist], dtype=bool) if isinstance(
        condlist, list | tuple) else np.asarray(condlist, dtype=bool)
    n = len(conds)
    if n == n2 - 1:
        other = ~np.any(conds, axis=0, keepdims=True)
        conds = np.concatenate([conds, other], axis=0)
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are "
                         "expected")
    y = place_made(np.zeros(xa.shape, xa.dtype), from_device((xa,)))  # placed as ``xa``
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
        else:
            vals = xa[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
    return y



# --- ndarray methods --------------------------------------------------------------------------


def _method(fn: Callable) -> Callable:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _choose_method(self: ndarray, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    return choose(self, choices, out=out, mode=mode)


def _compress_method(self: ndarray, condition: Any, axis: Any = None, out: Any = None) -> Any:
    return compress(condition, self, axis, out)


def _take_method(self: ndarray, indices: Any, axis: Any = None, out: Any = None,
                 mode: str = "raise") -> Any:
    return take(self, indices, axis, out, mode)


install_methods({
    "nonzero": _method(nonzero),
    "take": _take_method,
    "choose": _choose_method,
    "compress": _compress_method,
    "clip": _clip_method,
})
