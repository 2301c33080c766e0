"""Sorting, searching and selection (sort, argsort, where, clip, take, choose, unique, ...).

Orderings are NumPy's: NaN sorts last, ``-0.0`` equals ``0.0``, complex numbers sort
lexicographically with NumPy's NaN classes (``R+Rj < R+nanj < nan+Rj < nan+nanj``). Every
value is mapped to integer sort keys with exactly that order (``_keys``), so sorting, binary
search and lexsort share one definition of "less than". Sorts are stable, which makes
``partition`` / ``argpartition`` (done by a full sort) deterministic.

Functions with data-dependent output shapes (``nonzero``, ``unique``, ``compress``...) read
concrete values eagerly, as NumPy does. In-place functions (``put``, ``place``, ``putmask``,
``put_along_axis``, ``ndarray.sort``...) compute the new value and store it with
``ndarray._write`` (through views, ``ValueError`` on read-only arrays).
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax import _dtypes
from npjax._dispatch import ArrayIn, Out, npfunc, write_out
from npjax._errors import AxisError, ComplexWarning, output_casting_error, unsupported
from npjax._ndarray import install_methods, ndarray, normalize_axis
from npjax import _normalize
from npjax._normalize import to_jax
from npjax._policy import current

__all__ = [
    "where", "clip", "sort", "argsort", "partition", "argpartition", "lexsort", "searchsorted",
    "nonzero", "argwhere", "flatnonzero", "take", "take_along_axis", "put", "put_along_axis",
    "place", "putmask", "choose", "compress", "extract", "select", "piecewise", "diff",
    "ediff1d", "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
    "isin", "intersect1d", "union1d", "setdiff1d", "setxor1d", "bincount", "digitize",
]

_NoValue = np._NoValue
_INTP = np.dtype(np.intp)
_MODES = ("raise", "wrap", "clip")
_SORT_KINDS = {None: None, "quicksort": "quick", "quick": "quick", "q": "quick",
               "mergesort": "stable", "merge": "stable", "m": "stable", "stable": "stable",
               "s": "stable", "heapsort": "heap", "heap": "heap", "h": "heap"}

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


# --- helpers ----------------------------------------------------------------------------------


def _jx(x: Any) -> jax.Array:
    return to_jax(x, current())


def _weak_or_array(x: Any) -> Any:
    """A Python scalar stays (weak, NEP 50); anything else becomes a ``jax.Array``."""
    return x if type(x) in _dtypes.WEAK_TYPES else _jx(x)


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


_INT_OF = {2: np.int16, 4: np.int32, 8: np.int64}


def _float_key(x: jax.Array) -> jax.Array:
    """Integers ordered as NumPy orders floats: NaN last, ``-0.0 == 0.0``.

    Pure integer work on the bits: XLA on CPU flushes subnormals to zero in float compares.
    """
    itype = _INT_OF[x.dtype.itemsize]
    top = np.iinfo(itype).max
    inf_bits = int(np.array(np.inf, x.dtype).view(itype))
    i = lax.bitcast_convert_type(x, itype)
    mag = i & top
    i = jnp.where(mag == 0, 0, jnp.where(mag > inf_bits, top, i)).astype(itype)
    return i ^ ((i >> (8 * x.dtype.itemsize - 1)) & top)


def _nan_bits(x: jax.Array) -> jax.Array:
    itype = _INT_OF[x.dtype.itemsize]
    inf_bits = int(np.array(np.inf, x.dtype).view(itype))
    return (lax.bitcast_convert_type(x, itype) & np.iinfo(itype).max) > inf_bits


def _eq(a: jax.Array, b: jax.Array) -> jax.Array:
    """NumPy's ``a == b`` (NaN unequal, ``-0.0 == 0.0``), exact for subnormals."""
    kind = a.dtype.kind
    if kind == "f":
        return (_float_key(a) == _float_key(b)) & ~_nan_bits(a)
    if kind == "c":
        return _eq(jnp.real(a), jnp.real(b)) & _eq(jnp.imag(a), jnp.imag(b))
    return a == b


def _keys(x: jax.Array) -> list[jax.Array]:
    """Sort keys (most significant first) with NumPy's order for ``x``'s dtype."""
    kind = x.dtype.kind
    if kind == "b":
        return [x.astype(np.uint8)]
    if kind in "iu":
        return [x]
    if kind == "f":
        return [_float_key(x)]
    re, im = jnp.real(x), jnp.imag(x)
    re_nan, im_nan = _nan_bits(re), _nan_bits(im)
    cls = 2 * re_nan.astype(np.uint8) + im_nan.astype(np.uint8)
    return [cls, jnp.where(re_nan, 0, _float_key(re)), jnp.where(im_nan, 0, _float_key(im))]


@functools.partial(jax.jit, static_argnames=("want",))
def _sort_last(x: jax.Array, want: str) -> Any:
    """Stable sort along the last axis: values, indices or both."""
    keys = _keys(x)
    iota = lax.broadcasted_iota(_INTP, x.shape, x.ndim - 1)
    out = lax.sort((*keys, iota), dimension=x.ndim - 1, num_keys=len(keys), is_stable=True)
    perm = out[-1]
    if want == "indices":
        return perm
    values = jnp.take_along_axis(x, perm, axis=-1)
    return values if want == "values" else (values, perm)


def _along(x: jax.Array, axis: Any, want: str) -> Any:
    if axis is not None:
        axis = normalize_axis(axis, x.ndim)
    if x.size == 0:
        shape = (0,) if axis is None else x.shape
        return x.reshape(shape) if want == "values" else jnp.zeros(shape, _INTP)
    return _sort_axis(x, axis, want)


@functools.partial(jax.jit, static_argnames=("axis", "want"))
def _sort_axis(x: jax.Array, axis: int | None, want: str) -> Any:
    if axis is None:
        return _sort_last(x.ravel(), want)
    last = x.ndim - 1
    if axis == last:
        return _sort_last(x, want)
    return jnp.moveaxis(_sort_last(jnp.moveaxis(x, axis, last), want), last, axis)


def _check_sort_args(kind: Any, order: Any, stable: Any) -> None:
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if kind is not None and (not isinstance(kind, str) or kind.lower() not in _SORT_KINDS):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


def _lt(a: list, b: list) -> jax.Array:
    """Lexicographic ``a < b`` over key lists."""
    result = a[-1] < b[-1]
    for x, y in zip(reversed(a[:-1]), reversed(b[:-1])):
        result = (x < y) | ((x == y) & result)
    return result


@functools.partial(jax.jit, static_argnames=("right", "dtype", "reverse"))
def _bsearch(a: jax.Array, v: jax.Array, right: bool, dtype: np.dtype | None = None,
             reverse: bool = False) -> jax.Array:
    """Insertion points of ``v`` into sorted 1-D ``a`` (NumPy's order), compared in
    ``dtype``; ``reverse`` searches ``a[::-1]``."""
    if dtype is not None:
        a, v = a.astype(dtype), v.astype(dtype)
    if reverse:
        a = a[::-1]
    n = a.shape[0]
    akeys, vkeys = _keys(a), _keys(v)
    lo = jnp.zeros(v.shape, _INTP)
    hi = jnp.full(v.shape, n, _INTP)
    for _ in range(n.bit_length()):
        mid = (lo + hi) // 2
        at = jnp.minimum(mid, n - 1)
        am = [k[at] for k in akeys]
        go = ~_lt(vkeys, am) if right else _lt(am, vkeys)
        active = lo < hi
        lo = jnp.where(active & go, mid + 1, lo)
        hi = jnp.where(active & ~go, mid, hi)
    return lo


def _require_ndarray(a: Any, fn: str) -> ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"{fn}() argument 1 must be numpy.ndarray, not {type(a).__name__}")
    return a


def _store_values(value: Any, dtype: np.dtype) -> jax.Array:
    """Values to store into an array of ``dtype`` (NumPy's setitem conversion)."""
    if isinstance(value, ndarray | jax.Array):
        v = value._read() if isinstance(value, ndarray) else value
        if v.dtype.kind == "c" and dtype.kind != "c":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          ComplexWarning, stacklevel=3)
        return v.astype(dtype)
    if isinstance(value, list | tuple) and any(isinstance(x, ndarray) for x in value):
        return _jx(value).astype(dtype)
    return _jx(np.asarray(value, dtype=dtype))


def _cycle(values: jax.Array, n: int) -> jax.Array:
    """``values`` (flattened) repeated to length ``n`` as ``numpy.resize`` would."""
    flat = values.ravel()
    if flat.size == n:
        return flat
    return jnp.resize(flat, (n,))


# --- where, clip ------------------------------------------------------------------------------


def where(condition: Any, x: Any = _NoValue, y: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.where``."""
    if x is _NoValue and y is _NoValue:
        return nonzero(condition)
    if x is _NoValue or y is _NoValue:
        raise ValueError("either both or neither of x and y should be given")
    cond = _jx(condition)
    xv, yv = _weak_or_array(x), _weak_or_array(y)
    dtype = _dtypes.result_type(_key(xv), _key(yv))
    return ndarray._owner(_where(cond, _cast(xv, dtype), _cast(yv, dtype), dtype))


@functools.partial(jax.jit, static_argnames=("dtype",))
def _where(cond: jax.Array, x: jax.Array, y: jax.Array, dtype: np.dtype) -> jax.Array:
    return jnp.where(cond.astype(bool), x.astype(dtype), y.astype(dtype))


_UMATH_CLIP = np._core.umath.clip


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
        raise unsupported("clip", next(iter(kwargs)))
    av = _jx(a)
    if av.dtype.kind in "iu":
        info = np.iinfo(av.dtype)
        if type(lo) is int and lo <= info.min:
            lo = None
        if type(hi) is int and hi >= info.max:
            hi = None
    from npjax._ufuncs import UFUNCS

    if lo is None and hi is None:
        return UFUNCS["positive"](av, out=out, casting=casting)
    if lo is None:
        return UFUNCS["minimum"](av, hi, out=out, casting=casting)
    if hi is None:
        return UFUNCS["maximum"](av, lo, out=out, casting=casting)
    lov, hiv = _weak_or_array(lo), _weak_or_array(hi)
    loop = _clip_loop((av.dtype, _key(lov), _key(hiv)), casting)
    dtype = loop[3]
    ops = [_cast(v, d, True) for v, d in zip((av, lov, hiv), loop)]
    np.broadcast_shapes(*[np.shape(v) for v in ops])
    result = _clip_kernel(*ops, loop)
    if out is not None:
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        if dtype != out.dtype and not _dtypes.can_cast(dtype, out.dtype, casting):
            raise output_casting_error("clip", casting, dtype, out.dtype)
        return write_out(out, result, "unsafe", "clip")
    return ndarray._owner(result, result.ndim == 0)


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


# --- sorting ----------------------------------------------------------------------------------


@npfunc
def sort(a: ArrayIn, axis: Any = -1, kind: Any = None, order: Any = None, *,
         stable: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.sort`` (always a stable sort)."""
    _check_sort_args(kind, order, stable)
    return _along(a, axis, "values")


@npfunc
def argsort(a: ArrayIn, axis: Any = -1, kind: Any = None, order: Any = None, *,
            stable: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.argsort`` (always stable, whatever ``kind``)."""
    _check_sort_args(kind, order, stable)
    if a.ndim == 0 and axis is not None:
        normalize_axis(axis, 1)
        a = a.reshape(1)
    return _along(a, axis, "indices")


def _check_kth(kth: Any, n: int, empty: bool) -> None:
    host = np.asarray(kth)
    if host.dtype.kind == "b":
        raise ValueError("Booleans unacceptable as partition index")
    if host.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if empty:  # NumPy returns before checking the range
        return
    for k in host.ravel().tolist():
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")


def _partition(a: jax.Array, kth: Any, axis: Any, kind: str, order: Any, want: str) -> Any:
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if axis is None:
        a = a.ravel()
        axis = -1
    elif a.ndim == 0 and want == "indices":
        a = a.reshape(1)
    ax = normalize_axis(axis, a.ndim)
    _check_kth(kth, a.shape[ax], a.size == 0)
    return _along(a, ax, want)


@npfunc
def partition(a: ArrayIn, kth: Any, axis: Any = -1, kind: str = "introselect",
              order: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.partition``.

    Differences from NumPy: the whole axis is sorted (a valid, deterministic partition).
    """
    return _partition(a, kth, axis, kind, order, "values")


@npfunc
def argpartition(a: ArrayIn, kth: Any, axis: Any = -1, kind: str = "introselect",
                 order: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.argpartition``.

    Differences from NumPy: the indices fully (stably) sort the axis.
    """
    return _partition(a, kth, axis, kind, order, "indices")


@npfunc(scalar=True)
def lexsort(keys: Any, axis: Any = -1) -> jax.Array:
    """npjax implementation of ``numpy.lexsort`` (the last key is the primary one)."""
    if isinstance(keys, ndarray | np.ndarray | jax.Array):
        arr = _jx(keys)
        if arr.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        cols = [arr[i] for i in range(arr.shape[0])]
    else:
        cols = [_jx(k) for k in keys]
    if not cols:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = cols[0].shape
    if any(c.shape != shape for c in cols):
        raise ValueError("all keys need to be the same shape")
    axis = operator.index(axis)
    if len(shape) == 0:
        if axis not in (0, -1):
            raise AxisError(axis, 0)
        return jnp.zeros((), _INTP)
    ax = normalize_axis(axis, len(shape))
    return _lexsort(tuple(cols), ax)


@functools.partial(jax.jit, static_argnames=("axis",))
def _lexsort(cols: tuple, axis: int) -> jax.Array:
    last = cols[0].ndim - 1
    keys = [k for c in reversed(cols) for k in _keys(jnp.moveaxis(c, axis, last))]
    iota = lax.broadcasted_iota(_INTP, keys[0].shape, last)
    perm = lax.sort((*keys, iota), dimension=last, num_keys=len(keys), is_stable=True)[-1]
    return jnp.moveaxis(perm, last, axis)


@npfunc(scalar=True)
def searchsorted(a: ArrayIn, v: Any, side: str = "left", sorter: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.searchsorted``.

    Differences from NumPy: out-of-range ``sorter`` entries always raise ``ValueError``.
    """
    if side not in ("left", "right") and not (isinstance(side, str) and side[:1].lower() in
                                               ("l", "r")):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    right = side[:1].lower() == "r"
    if a.ndim != 1:
        raise ValueError("object too deep for desired array" if a.ndim > 1 else
                         "object of too small depth for desired array")
    vv = _jx(v)
    dtype = _dtypes.result_type(a.dtype, vv.dtype)
    if sorter is not None:
        s = _jx(sorter)
        if s.dtype.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if s.ndim != 1 or s.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        if s.size:
            lo, hi = (int(t) for t in _min_max(s))
            if lo < 0 or hi >= a.size:
                raise ValueError("Sorter index out of range.")
        a = _take(a, s, 0)
    return _bsearch(a, vv, right, dtype)


# --- nonzero ----------------------------------------------------------------------------------


@jax.jit
def _nonzero_mask(x: jax.Array) -> jax.Array:
    """``x != 0`` as NumPy means it (bit test for floats: XLA flushes subnormals)."""
    if x.dtype.kind == "c":
        return _nonzero_mask(jnp.real(x)) | _nonzero_mask(jnp.imag(x))
    if x.dtype.kind == "f":
        itype = _INT_OF[x.dtype.itemsize]
        return (lax.bitcast_convert_type(x, itype) & np.iinfo(itype).max) != 0
    return x != 0


def _host_mask(x: jax.Array) -> np.ndarray:
    return np.asarray(_nonzero_mask(x)) if x.size else np.zeros(x.shape, bool)


def _device(host: np.ndarray, dtype: Any = None) -> jax.Array:
    """A host result on the policy's device (``device_put``: no per-shape compilation)."""
    host = np.asarray(host, dtype=_INTP if dtype is None else dtype)
    return _normalize.place(jax.device_put(host), current())


def _nonzero_tuple(x: jax.Array) -> tuple:
    if x.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.")
    return tuple(_device(i) for i in np.nonzero(_host_mask(x)))


@npfunc
def nonzero(a: ArrayIn) -> tuple:
    """npjax implementation of ``numpy.nonzero``."""
    return _nonzero_tuple(a)


@npfunc
def argwhere(a: ArrayIn) -> jax.Array:
    """npjax implementation of ``numpy.argwhere``."""
    return _device(np.argwhere(_host_mask(a)))


@npfunc
def flatnonzero(a: ArrayIn) -> jax.Array:
    """npjax implementation of ``numpy.flatnonzero``."""
    return _device(np.flatnonzero(_host_mask(a)))


# --- take / put family ------------------------------------------------------------------------


def _axis_for_take(a: jax.Array, axis: Any) -> tuple[jax.Array, int]:
    if axis is None:
        return a.ravel(), 0
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


@npfunc(name="take", scalar=True)
def _take_impl(a: ArrayIn, indices: ArrayIn, axis: Any = None, out: Out = None,
               mode: str = "raise") -> jax.Array:
    """npjax implementation of ``numpy.take``."""
    _check_mode(mode)
    a, ax = _axis_for_take(a, axis)
    return _take_axis(a, _as_intp(indices), ax, mode)


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


def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    """npjax implementation of ``numpy.take``."""
    if out is not None:
        av, ax = _axis_for_take(_jx(a), axis)
        ind = _jx(indices)
        shape = av.shape[:ax] + ind.shape + av.shape[ax + 1:]
        _check_take_out(out, jax.ShapeDtypeStruct(shape, av.dtype))
    return _take_impl(a, indices, axis, out, mode)


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


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """npjax implementation of ``numpy.put_along_axis`` (mutates ``arr``)."""
    if not isinstance(arr, ndarray):
        raise AttributeError(f"{type(arr).__name__!r} object has no attribute 'ndim'")
    a = arr
    ind = _jx(indices)
    if axis is None:
        if ind.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        flat = ndarray._owner(a._read().ravel())
        flat[_along_axis_index(flat.shape, ind, 0)] = values
        a._write(flat._read().reshape(a.shape))
        return
    axis = normalize_axis(axis, a.ndim)
    fancy = _along_axis_index(a.shape, ind, axis)
    if 0 in np.broadcast_shapes(*[f.shape for f in fancy]):
        _store_values(values, a.dtype)
        return
    a[fancy] = values


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """npjax implementation of ``numpy.put`` (mutates ``a``)."""
    a = _require_ndarray(a, "put")
    _check_mode(mode)
    idx = _as_intp(_jx(ind)).ravel()
    if a.size == 0 and idx.size:
        raise IndexError("cannot replace elements of an empty array")
    vals = _store_values(v, a.dtype).ravel()
    if idx.size == 0 or vals.size == 0:
        return
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    idx = _fix_indices(idx, a.size, mode, 0, "put")
    flat = ndarray._owner(a._read().ravel())
    flat[idx] = _cycle(vals, idx.size)
    a._write(flat._read().reshape(a.shape))


def place(arr: Any, mask: Any, vals: Any) -> None:
    """npjax implementation of ``numpy.place`` (mutates ``arr``)."""
    if not isinstance(arr, ndarray):
        raise TypeError(f"place() argument 1 must be numpy.ndarray, not {type(arr).__name__}")
    m = _jx(mask).astype(bool).ravel()
    if m.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    values = _store_values(vals, arr.dtype).ravel()
    count = int(jnp.sum(m))
    if count == 0:
        return
    if values.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    arr._write(_place(arr._read().ravel(), m, values, count).reshape(arr.shape))


@functools.partial(jax.jit, static_argnames=("count",))
def _place(flat: jax.Array, m: jax.Array, values: jax.Array, count: int) -> jax.Array:
    pos = jnp.nonzero(m, size=count)[0]
    return flat.at[pos].set(jnp.resize(values, (count,)))


def putmask(a: Any, mask: Any, values: Any) -> None:
    """npjax implementation of ``numpy.putmask`` (mutates ``a``)."""
    if not isinstance(a, ndarray):
        raise TypeError("putmask: first argument must be an array")
    m = _jx(mask).astype(bool)
    if m.size != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    if type(values) in _dtypes.WEAK_TYPES:
        v = _store_values(values, a.dtype)
    else:
        v = _jx(values)
        if not _dtypes.can_cast(v.dtype, a.dtype, "safe"):
            raise TypeError(f"Cannot cast array data from {v.dtype!r} to {a.dtype!r} "
                            "according to the rule 'safe'")
        v = v.astype(a.dtype)
    if v.size == 0 or a.size == 0:
        return
    new = jnp.where(m.reshape(a.shape), _cycle(v, a.size).reshape(a.shape), a._read())
    a._write(new)


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
    arrays = [jnp.asarray(np.asarray(c)).astype(dtype) if type(c) in _dtypes.WEAK_TYPES
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


@npfunc(name="compress")
def _compress_impl(condition: ArrayIn, a: ArrayIn, axis: Any = None, out: Out = None) -> jax.Array:
    """npjax implementation of ``numpy.compress``."""
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    a, ax = _axis_for_take(a, axis)
    return _take_axis(a, _nonzero_tuple(condition)[0], ax, "raise")


def compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.compress``."""
    if out is not None:
        av, ax = _axis_for_take(_jx(a), axis)
        cond = _jx(condition)
        if cond.ndim == 1:
            count = int(jnp.sum(cond[: av.shape[ax]] != 0))
            shape = av.shape[:ax] + (count,) + av.shape[ax + 1:]
            _check_take_out(out, jax.ShapeDtypeStruct(shape, av.dtype))
    return _compress_impl(condition, a, axis, out)


@npfunc
def extract(condition: ArrayIn, arr: ArrayIn) -> jax.Array:
    """npjax implementation of ``numpy.extract``."""
    return _take_axis(arr.ravel(), _nonzero_tuple(condition.ravel())[0], 0, "raise")


def select(condlist: Any, choicelist: Any, default: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.select``."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [_weak_or_array(c) for c in choicelist] + [_weak_or_array(default)]
    dtype = _dtypes.result_type(*[_key(c) for c in choices])
    choices = [_jx(c) if type(c) in _dtypes.WEAK_TYPES else c for c in choices]
    conds = [_jx(c) for c in condlist]
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
    result = jnp.broadcast_to(choices[-1].astype(dtype), shape)
    for choice, cond in zip(choices[-2::-1], conds[::-1]):
        result = jnp.where(cond, choice.astype(dtype), result)
    return ndarray._owner(result)


def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> ndarray:
    """npjax implementation of ``numpy.piecewise`` (functions receive npjax arrays)."""
    xa = x if isinstance(x, ndarray) else ndarray._owner(_jx(x))
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
    y = ndarray._owner(jnp.zeros(xa.shape, xa.dtype))
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
        else:
            vals = xa[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
    return y


# --- differences ------------------------------------------------------------------------------


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = _NoValue,
         append: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.diff``."""
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    x = _jx(a)
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, x.ndim)
    parts = []
    for extra, first in ((prepend, True), (append, False)):
        if extra is _NoValue:
            continue
        e = _jx(extra)
        if e.ndim == 0:
            shape = list(x.shape)
            shape[axis] = 1
            e = jnp.broadcast_to(e, tuple(shape))
        parts.append((first, e))
    if parts:
        arrays = [e for f, e in parts if f] + [x] + [e for f, e in parts if not f]
        normalize_axis(axis, arrays[0].ndim)
        for i, e in enumerate(arrays):
            if e.ndim != x.ndim:
                raise ValueError("all the input arrays must have same number of dimensions")
            if any(s != t for d, (s, t) in enumerate(zip(e.shape, x.shape)) if d != axis):
                raise ValueError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but the array at index {i} differs")
        dtype = _dtypes.result_type(*[e.dtype for e in arrays])
        x = jnp.concatenate([e.astype(dtype) for e in arrays], axis=axis)
    return ndarray._owner(_diff(x, n, axis))


@functools.partial(jax.jit, static_argnames=("n", "axis"))
def _diff(x: jax.Array, n: int, axis: int) -> jax.Array:
    for _ in range(n):
        m = x.shape[axis]
        hi = lax.slice_in_dim(x, min(1, m), m, axis=axis)
        lo = lax.slice_in_dim(x, 0, max(m - 1, 0), axis=axis)
        x = (hi != lo) if x.dtype == np.bool_ else hi - lo
    return x


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> ndarray:
    """npjax implementation of ``numpy.ediff1d``."""
    x = _jx(ary).ravel()
    dtype = x.dtype
    if dtype == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    parts = []
    for extra, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if extra is None:
            parts.append(None)
            continue
        e = _jx(extra)
        if not _dtypes.can_cast(e.dtype, dtype, "same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                            "`same_kind` rule.")
        parts.append(e.ravel().astype(dtype))
    d = x[1:] - x[:-1]
    pieces = [p for p in (parts[0], d, parts[1]) if p is not None]
    return ndarray._owner(jnp.concatenate(pieces) if len(pieces) > 1 else d)


# --- unique and set operations ----------------------------------------------------------------


def _nan_mask(x: jax.Array) -> jax.Array:
    if x.dtype.kind == "f":
        return _nan_bits(x)
    if x.dtype.kind == "c":
        return _nan_bits(jnp.real(x)) | _nan_bits(jnp.imag(x))
    return jnp.zeros(x.shape, bool)


@functools.partial(jax.jit, static_argnames=("equal_nan",))
def _unique_core(ar: jax.Array, equal_nan: bool) -> tuple:
    """Sorted values, the sorting permutation and the first-of-a-run mask (non-empty)."""
    ar = ar.ravel()
    values, perm = _sort_last(ar, "both")
    mask = jnp.concatenate([jnp.ones(1, bool), ~_eq(values[1:], values[:-1])])
    if equal_nan and ar.dtype.kind in "fc":
        nan = _nan_mask(values)
        first = jnp.argmax(nan)
        mask = jnp.where(nan & nan[-1], jnp.arange(ar.shape[0]) == first, mask)
    return values, perm, mask


def _unique_finish(values: np.ndarray, perm: np.ndarray, mask: np.ndarray,
                   return_index: bool, return_inverse: bool, return_counts: bool,
                   inverse_shape: tuple | None, dtype: np.dtype) -> tuple:
    """NumPy's outputs from the sorted values, permutation and run mask (host arrays)."""
    where_ = np.flatnonzero(mask)
    ret = [_device(values[where_], dtype)]
    if return_index:
        ret.append(_device(perm[where_]))
    if return_inverse:
        inv = np.empty(mask.shape, _INTP)
        inv[perm] = np.cumsum(mask) - 1
        ret.append(_device(inv.reshape(inverse_shape) if inverse_shape is not None else inv))
    if return_counts:
        ret.append(_device(np.diff(np.append(where_, mask.size))))
    return tuple(ret)


def _unique1d(ar: jax.Array, return_index: bool, return_inverse: bool, return_counts: bool,
              equal_nan: bool, inverse_shape: tuple | None) -> tuple:
    if ar.size:
        values, perm, mask = jax.device_get(_unique_core(ar, equal_nan))
    else:
        values, perm, mask = np.zeros(0, ar.dtype), np.zeros(0, _INTP), np.zeros(0, bool)
    return _unique_finish(values, perm, mask, return_index, return_inverse, return_counts,
                          inverse_shape, ar.dtype)


@jax.jit
def _unique_rows_core(ar: jax.Array) -> tuple:
    perm = _lexsort(tuple(ar[:, j] for j in range(ar.shape[1]))[::-1], 0)
    rows = ar[perm]
    neq = jnp.any(~_eq(rows[1:], rows[:-1]), axis=1)
    return rows, perm, jnp.concatenate([jnp.ones(1, bool), neq])


def _unique_rows(ar: jax.Array, return_index: bool, return_inverse: bool,
                 return_counts: bool) -> tuple:
    """``_unique1d`` over rows of a 2-D array (structured-dtype semantics: NaN != NaN)."""
    n, m = ar.shape
    if m == 0 or n == 0:
        perm = np.arange(n, dtype=_INTP)
        mask = np.zeros(n, bool)
        mask[:1] = True
        rows = np.zeros((n, m), ar.dtype)
    else:
        rows, perm, mask = jax.device_get(_unique_rows_core(ar))
    return _unique_finish(rows, perm, mask, return_index, return_inverse, return_counts, None,
                          ar.dtype)


@npfunc
def unique(ar: ArrayIn, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True,
           sorted: bool = True) -> Any:
    """npjax implementation of ``numpy.unique``.

    Differences from NumPy: ``sorted=False`` still returns sorted values (NumPy's order is
    then unspecified).
    """
    if axis is None or ar.ndim == 1:
        if axis is not None:
            normalize_axis(axis, ar.ndim)
        ret = _unique1d(ar, return_index, return_inverse, return_counts, equal_nan, ar.shape)
        return ret[0] if len(ret) == 1 else ret
    ax = normalize_axis(axis, ar.ndim)
    moved = jnp.moveaxis(ar, ax, 0)
    orig = moved.shape
    rows = moved.reshape(orig[0], int(np.prod(orig[1:], dtype=np.int64)))
    ret = _unique_rows(rows, return_index, return_inverse, return_counts)
    uniq = jnp.moveaxis(ret[0].reshape((ret[0].shape[0],) + orig[1:]), 0, ax)
    ret = (uniq,) + ret[1:]
    return ret[0] if len(ret) == 1 else ret


def unique_values(x: Any) -> ndarray:
    """npjax implementation of ``numpy.unique_values``.

    Differences from NumPy: the values are sorted (NumPy's order is unspecified).
    """
    return unique(x, equal_nan=False, sorted=False)


def unique_counts(x: Any) -> UniqueCountsResult:
    """npjax implementation of ``numpy.unique_counts``."""
    v, c = unique(x, return_counts=True, equal_nan=False)
    return UniqueCountsResult(v, c)


def unique_inverse(x: Any) -> UniqueInverseResult:
    """npjax implementation of ``numpy.unique_inverse``."""
    v, inv = unique(x, return_inverse=True, equal_nan=False)
    return UniqueInverseResult(v, inv)


def unique_all(x: Any) -> UniqueAllResult:
    """npjax implementation of ``numpy.unique_all``."""
    v, i, inv, c = unique(x, return_index=True, return_inverse=True, return_counts=True,
                          equal_nan=False)
    return UniqueAllResult(v, i, inv, c)


@functools.partial(jax.jit, static_argnames=("dtype",))
def _in_table(x: jax.Array, table: jax.Array, dtype: np.dtype) -> jax.Array:
    """``x == any element of table`` elementwise (NaN never equal), compared in ``dtype``."""
    x, table = x.astype(dtype), table.astype(dtype)
    sorted_table = _sort_last(table.ravel(), "values")
    pos = _bsearch(sorted_table, x.ravel(), False)
    hit = sorted_table[jnp.minimum(pos, table.size - 1)]
    return ((pos < table.size) & _eq(hit, x.ravel())).reshape(x.shape)


def _in_sorted(x: jax.Array, table: jax.Array) -> jax.Array:
    if table.size == 0 or x.size == 0:
        return jnp.zeros(x.shape, bool)
    return _in_table(x, table, _dtypes.result_type(x.dtype, table.dtype))


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, kind: Any = None) -> ndarray:
    """npjax implementation of ``numpy.isin``."""
    e, t = _jx(element), _jx(test_elements)
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    ints = all(x.dtype.kind in "iub" for x in (e, t))
    if kind == "table":
        if not ints:
            raise ValueError("The 'table' method is only supported for boolean or integer "
                             "arrays. Please select 'sort' or None for kind.")
        if t.size:
            t8 = t.astype(np.uint8) if t.dtype == np.bool_ else t
            lo, hi = (int(v) for v in _min_max(t8))
            if hi - lo >= np.iinfo(np.intp).max:
                raise ValueError("Maximum allowed dimension exceeded")
            if hi - lo > np.iinfo(t8.dtype).max:
                raise RuntimeError("You have specified kind='table', but the range of values "
                                   "in `ar2` or `ar1` exceed the maximum integer of the "
                                   "datatype. Please set `kind` to None or 'sort'.")
    found = _in_sorted(e, t)
    return ndarray._owner(~found if invert else found)


def _host_unique(x: Any) -> jax.Array:
    return _unique1d(_jx(x), False, False, False, True, None)[0]


def _concat(a: jax.Array, b: jax.Array) -> jax.Array:
    dtype = _dtypes.result_type(a.dtype, b.dtype)
    return jnp.concatenate([a.ravel().astype(dtype), b.ravel().astype(dtype)])


@jax.jit
def _sorted_runs(aux: jax.Array) -> tuple:
    """Sorted values, permutation and ``sorted[1:] == sorted[:-1]`` (NumPy equality)."""
    values, perm = _sort_last(aux, "both")
    return values, perm, _eq(values[1:], values[:-1])


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    """npjax implementation of ``numpy.intersect1d``."""
    a1, a2 = _jx(ar1), _jx(ar2)
    if not assume_unique:
        if return_indices:
            a1, ind1 = _unique1d(a1, True, False, False, True, None)
            a2, ind2 = _unique1d(a2, True, False, False, True, None)
        else:
            a1 = _unique1d(a1, False, False, False, True, None)[0]
            a2 = _unique1d(a2, False, False, False, True, None)[0]
    else:
        a1, a2 = a1.ravel(), a2.ravel()
    aux = _concat(a1, a2)
    if aux.size:
        values, order, same = jax.device_get(_sorted_runs(aux))
    else:
        values, order, same = np.zeros(0, aux.dtype), np.zeros(0, _INTP), np.zeros(0, bool)
    sel = np.flatnonzero(same)
    int1d = ndarray._owner(_device(values[:-1][sel], aux.dtype))
    if not return_indices:
        return int1d
    i1 = order[:-1][sel]
    i2 = order[1:][sel] - a1.size
    if not assume_unique:
        i1, i2 = np.asarray(ind1)[i1], np.asarray(ind2)[i2]
    return int1d, ndarray._owner(_device(i1)), ndarray._owner(_device(i2))


def union1d(ar1: Any, ar2: Any) -> ndarray:
    """npjax implementation of ``numpy.union1d``."""
    return ndarray._owner(_host_unique(_concat(_jx(ar1), _jx(ar2))))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """npjax implementation of ``numpy.setdiff1d``."""
    if assume_unique:
        a1, a2 = _jx(ar1).ravel(), _jx(ar2).ravel()
    else:
        a1, a2 = _host_unique(ar1), _host_unique(ar2)
    keep = np.asarray(~_in_sorted(a1, a2))
    return ndarray._owner(_device(np.asarray(a1)[keep], a1.dtype))


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """npjax implementation of ``numpy.setxor1d``."""
    a1, a2 = (_jx(ar1), _jx(ar2)) if assume_unique else (_host_unique(ar1), _host_unique(ar2))
    aux = _concat(a1, a2)
    if aux.size == 0:
        return ndarray._owner(aux)
    values, _, same = jax.device_get(_sorted_runs(aux))
    flag = np.concatenate([[True], ~same, [True]])
    return ndarray._owner(_device(values[flag[1:] & flag[:-1]], aux.dtype))


# --- counting and binning ---------------------------------------------------------------------


def bincount(x: Any, weights: Any = None, minlength: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.bincount``."""
    xv = _jx(x)
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if xv.ndim != 1:
        raise ValueError("object too deep for desired array" if xv.ndim > 1 else
                         "object of too small depth for desired array")
    if xv.dtype.kind == "c":
        raise TypeError("Cannot cast array data from dtype('complex128') to dtype('int64') "
                        "according to the rule 'safe'")
    if xv.dtype.kind == "f" and xv.size:
        warnings.warn("Non-integer input passed to bincount. In a future version of NumPy, "
                      "this will be an error. (Deprecated NumPy 2.1)", DeprecationWarning,
                      stacklevel=2)
    xi = xv.astype(_INTP)
    if xi.size == 0:  # NumPy returns before looking at the weights
        return ndarray._owner(jnp.zeros(minlength, _INTP))
    length = minlength
    if xi.size:
        lo, hi = (int(t) for t in _min_max(xi))
        if lo < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = builtins_max(hi + 1, minlength)
    if weights is None:
        return ndarray._owner(jnp.zeros(length, _INTP).at[xi].add(1))
    w = _jx(weights)
    if w.dtype.kind == "c":
        raise TypeError("float() argument must be a string or a real number, not 'complex'")
    if w.shape != xi.shape:
        raise ValueError("The weights and list don't have the same length.")
    return ndarray._owner(jnp.zeros(length, np.float64).at[xi].add(w.astype(np.float64)))


builtins_max = max


def _monotonicity(bins: np.ndarray) -> int:
    a = bins.astype(np.float64)
    n = a.size
    if n == 0:
        return 1
    i = 1
    while i < n and a[i] == a[0]:
        i += 1
    if i == n:
        return 1
    if a[0] < a[i]:
        return 0 if np.any(a[i:-1] > a[i + 1:]) else 1
    return 0 if np.any(a[i:-1] < a[i + 1:]) else -1


def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """npjax implementation of ``numpy.digitize``."""
    xv, bv = _jx(x), _jx(bins)
    if xv.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bv.ndim != 1:
        raise ValueError("object too deep for desired array" if bv.ndim > 1 else
                         "object of too small depth for desired array")
    mono = _monotonicity(np.asarray(bv))
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    dtype = _dtypes.result_type(xv.dtype, bv.dtype)
    if mono == -1:
        pos = bv.shape[0] - _bsearch(bv, xv, side == "right", dtype, True)
    else:
        pos = _bsearch(bv, xv, side == "right", dtype)
    return ndarray._owner(pos, pos.ndim == 0)


# --- ndarray methods --------------------------------------------------------------------------


def _sort_method(self: ndarray, axis: Any = -1, kind: Any = None, order: Any = None, *,
                 stable: Any = None) -> None:
    _check_sort_args(kind, order, stable)
    value = self._read()
    self._write(_along(value, operator.index(axis), "values"))


def _partition_method(self: ndarray, kth: Any, axis: Any = -1, kind: str = "introselect",
                      order: Any = None) -> None:
    value = self._read()
    self._write(_partition(value, kth, operator.index(axis), kind, order, "values"))


def _method(fn: Callable) -> Callable:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _searchsorted_method(self: ndarray, v: Any, side: str = "left", sorter: Any = None) -> Any:
    return searchsorted(self, v, side, sorter)


def _choose_method(self: ndarray, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    return choose(self, choices, out=out, mode=mode)


def _compress_method(self: ndarray, condition: Any, axis: Any = None, out: Any = None) -> Any:
    return compress(condition, self, axis, out)


def _take_method(self: ndarray, indices: Any, axis: Any = None, out: Any = None,
                 mode: str = "raise") -> Any:
    return take(self, indices, axis, out, mode)


install_methods({
    "sort": _sort_method,
    "argsort": _method(argsort),
    "partition": _partition_method,
    "argpartition": _method(argpartition),
    "searchsorted": _searchsorted_method,
    "nonzero": _method(nonzero),
    "take": _take_method,
    "put": _method(put),
    "choose": _choose_method,
    "compress": _compress_method,
    "clip": _clip_method,
})
