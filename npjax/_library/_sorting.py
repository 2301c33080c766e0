"""Sorting, searching and set operations (sort, argsort, partition, lexsort, searchsorted,
unique, isin, intersect1d, ...).

Orderings are NumPy's: NaN sorts last, ``-0.0`` equals ``0.0``, complex numbers sort
lexicographically with NumPy's NaN classes (``R+Rj < R+nanj < nan+Rj < nan+nanj``). Every
value is mapped to integer sort keys with exactly that order (``_keys``), so sorting, binary
search and lexsort share one definition of "less than". Sorts are stable, which makes
``partition`` / ``argpartition`` (done by a full sort) deterministic.

Functions with data-dependent output shapes (``unique``, the set operations) read concrete
values eagerly, as NumPy does, and compute their results at a bucketed length
(``npjax/_core/_buckets.py``): n different result lengths make O(log n) programs.
``ndarray.sort`` / ``ndarray.partition`` compute the new value and store it with
``ndarray._write`` (through views, ``ValueError`` on read-only arrays).

The pure-JAX sort keys and kernels are in ``npjax/_pure/_impl/sorting.py`` and
``npjax/_pure/_impl/setops.py``; shared argument helpers come from ``npjax/_library/_selection.py``.
"""

from __future__ import annotations

import functools
import operator
from collections import namedtuple
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _bounds, _stats
from npjax._core import _buckets
from npjax._pure import _dtypes
from npjax._calls._dispatch import ArrayIn, AxisIn, npfunc
from npjax._pure._errors import AxisError
from npjax._pure._impl.setops import (_concat, _in_sorted, _in_sorted_set, _intersect_core,
                                      _setdiff_keep, _setxor_core, _unique_core, _unique_inverse,
                                      _unique_outputs, _unique_rows_core)
from npjax._pure._impl.sorting import _bsearch, _lexsort, _sort_axis
from npjax._pure._axes import normalize_axis
from npjax._core._ndarray import install_methods, ndarray
from npjax._library._mixed_ints import host_for_mixed_integers
from npjax._library._selection import _device, _jx, _method, _min_max, _take
from npjax._runtime._context import trace
from npjax._runtime._host_reads import SYNCS

__all__ = [
    "sort", "argsort", "partition", "argpartition", "lexsort", "searchsorted", "unique",
    "unique_values", "unique_counts", "unique_inverse", "unique_all", "isin", "intersect1d",
    "union1d", "setdiff1d", "setxor1d",
]

_INTP = np.dtype(np.intp)
_SORT_KINDS = {None: None, "quicksort": "quick", "quick": "quick", "q": "quick",
               "mergesort": "stable", "merge": "stable", "m": "stable", "stable": "stable",
               "s": "stable", "heapsort": "heap", "heap": "heap", "h": "heap"}

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


# --- helpers ----------------------------------------------------------------------------------


def _along(x: jax.Array, axis: Any, want: str) -> Any:
    if axis is not None:
        axis = normalize_axis(axis, x.ndim)
    if x.size == 0:
        shape = (0,) if axis is None else x.shape
        return x.reshape(shape) if want == "values" else jnp.zeros(shape, _INTP)
    out = _sort_axis(x, axis, want)
    if want == "indices":  # an index array in bounds by construction (no check to wait on)
        _bounds.remember(out, 0, (x.size if axis is None else x.shape[axis]) - 1)
    return out


def _check_sort_args(kind: Any, order: Any, stable: Any) -> None:
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if kind is not None and (not isinstance(kind, str) or kind.lower() not in _SORT_KINDS):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


# --- sorting ----------------------------------------------------------------------------------


@npfunc
def sort(a: ArrayIn, axis: Any = -1, kind: Any = None, order: Any = None, *,
         stable: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.sort``: NumPy's order of equal floats of other bits
    (-0.0 and 0.0, NaNs) for every ``kind`` (``_unstable_sort``)."""
    _check_sort_args(kind, order, stable)
    return _sort_values(a, axis, kind, stable)


def _is_stable(kind: Any, stable: Any) -> bool:
    return bool(stable) or _SORT_KINDS[kind.lower() if isinstance(kind, str) else kind] == \
        "stable"


def _sort_values(a: jax.Array, axis: Any, kind: Any, stable: Any) -> jax.Array:
    """``sort``: a stable sort, the answer of every kind for integers and for floats
    without ties of equal values of other bits (-0.0 and 0.0, NaNs), which NumPy's unstable
    kinds may order either way; those are sorted by NumPy on a host copy (one boolean read
    back says whether there are any), as ``_unstable_argsort``."""
    if _is_stable(kind, stable) or a.dtype.kind not in "fc":
        return _along(a, axis, "values")
    return _unstable(a, axis, kind, "value_ties", np.sort)


@npfunc
def argsort(a: ArrayIn, axis: AxisIn = -1, kind: Any = None, order: Any = None, *,
            stable: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.argsort``: NumPy's permutation for every ``kind``
    (``_unstable_argsort``)."""
    _check_sort_args(kind, order, stable)
    if a.ndim == 0 and axis is not None:
        normalize_axis(axis, 1)
        a = a.reshape(1)
    if _is_stable(kind, stable):
        return _along(a, axis, "indices")
    return _unstable(a, axis, kind, "ties", np.argsort)


def _unstable(a: jax.Array, axis: Any, kind: Any, want: str, numpy_fn: Any) -> jax.Array:
    """``argsort`` (``want`` "ties") or ``sort`` ("value_ties") with NumPy's unstable kinds
    (quicksort, its default, and heapsort): a stable sort gives NumPy's answer except where
    two elements of a lane compare equal (for values: and differ in their bits), which
    NumPy's introsort (or its SIMD sort) may order either way. The device sort also says
    whether the array has such ties (one boolean read back); only then is NumPy's own
    ``numpy_fn`` run on a host copy. Under ``npjax.jit`` the flag is a check of the trace
    (the call reruns eagerly when it is set); under plain ``jax.jit`` the stable order is
    kept."""
    if axis is not None:
        axis = normalize_axis(axis, a.ndim)
    n = a.size if axis is None else a.shape[axis]
    indices = want == "ties"
    if n < 2 or a.size == 0:
        return _along(a, axis, "indices" if indices else "values")
    got, ties = _sort_axis(a, axis, want)
    if isinstance(ties, jax.core.Tracer):
        tr = trace()
        if tr is not None:
            tr.check(ties)
    else:
        SYNCS["checks"] += 1
        if bool(ties):
            host = numpy_fn(_stats.fetch(a), axis=axis, kind=kind)
            got = _device(host, None if indices else host.dtype)
    if indices:
        _bounds.remember(got, 0, n - 1)
    return got


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
def argpartition(a: ArrayIn, kth: Any, axis: AxisIn = -1, kind: str = "introselect",
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


# --- unique and set operations ----------------------------------------------------------------


def _unique_empty(values: np.ndarray, perm: np.ndarray, mask: np.ndarray, return_index: bool,
                  return_inverse: bool, return_counts: bool, inverse_shape: tuple | None,
                  dtype: np.dtype) -> tuple:
    """NumPy's outputs from the sorted values, permutation and run mask of an input with no
    elements or empty rows (host arrays: placed without a program)."""
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


def _unique_picked(core: tuple, return_index: bool, return_inverse: bool, return_counts: bool,
                   inverse_shape: tuple | None, rest: tuple = (), axis: int = 0) -> tuple:
    """NumPy's ``unique`` outputs from a ``_unique_core``: one program per bucket of the
    number of unique values (``npjax._core._buckets``)."""
    values, perm, mask, count = core
    kernel = functools.partial(_unique_outputs, index=return_index, counts=return_counts,
                               rest=rest, axis=axis)
    axes = [axis] + [0] * (return_index + return_counts)
    ret = list(_buckets.run(kernel, mask, values, perm, axes=axes, fill=mask.shape[0],
                            count=count)[0])
    if return_inverse:  # not of data-dependent length: one program per shape
        shape = mask.shape if inverse_shape is None else inverse_shape
        ret.insert(1 + return_index, _unique_inverse(perm, mask, tuple(shape)))
    return tuple(ret)


def _unique1d(ar: jax.Array, return_index: bool, return_inverse: bool, return_counts: bool,
              equal_nan: bool, inverse_shape: tuple | None) -> tuple:
    if ar.size == 0:
        empty = np.zeros(0, ar.dtype), np.zeros(0, _INTP), np.zeros(0, bool)
        return _unique_empty(*empty, return_index, return_inverse, return_counts,
                             inverse_shape, ar.dtype)
    return _unique_picked(_unique_core(ar, equal_nan), return_index, return_inverse,
                          return_counts, inverse_shape)


def _unique_rows(ar: jax.Array, return_index: bool, return_inverse: bool,
                 return_counts: bool, rest: tuple, axis: int) -> tuple:
    """``_unique1d`` over rows of a 2-D array (structured-dtype semantics: NaN != NaN); the
    unique rows come back reshaped to ``(count,) + rest`` and moved to ``axis``."""
    n, m = ar.shape
    if m == 0 or n == 0:
        perm = np.arange(n, dtype=_INTP)
        mask = np.zeros(n, bool)
        mask[:1] = True
        ret = _unique_empty(np.zeros((n, m), ar.dtype), perm, mask, return_index,
                            return_inverse, return_counts, None, ar.dtype)
        rows = np.zeros((int(mask.sum()),) + rest, ar.dtype)
        return (_device(np.moveaxis(rows, 0, axis), ar.dtype),) + ret[1:]
    return _unique_picked(_unique_rows_core(ar), return_index, return_inverse, return_counts,
                          None, rest, axis)


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
    ret = _unique_rows(rows, return_index, return_inverse, return_counts, orig[1:], ax)
    return ret[0] if len(ret) == 1 else ret


@npfunc
def unique_values(x: Any) -> ndarray:
    """npjax implementation of ``numpy.unique_values``.

    Differences from NumPy: the values are sorted (NumPy's order is unspecified).
    """
    return unique(x, equal_nan=False, sorted=False)


@npfunc
def unique_counts(x: Any) -> UniqueCountsResult:
    """npjax implementation of ``numpy.unique_counts``."""
    v, c = unique(x, return_counts=True, equal_nan=False)
    return UniqueCountsResult(v, c)


@npfunc
def unique_inverse(x: Any) -> UniqueInverseResult:
    """npjax implementation of ``numpy.unique_inverse``."""
    v, inv = unique(x, return_inverse=True, equal_nan=False)
    return UniqueInverseResult(v, inv)


@npfunc
def unique_all(x: Any) -> UniqueAllResult:
    """npjax implementation of ``numpy.unique_all``."""
    v, i, inv, c = unique(x, return_index=True, return_inverse=True, return_counts=True,
                          equal_nan=False)
    return UniqueAllResult(v, i, inv, c)


@npfunc(host_route=True)
@host_for_mixed_integers(np.isin)
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


def _as_set(x: jax.Array, assume_unique: bool) -> tuple:
    """A set as fixed-shape arrays: values, the mask of the entries in the set, and the
    position of each entry in ``x`` (flattened; ``x`` non-empty). Unless ``assume_unique``,
    the values are sorted and only the first of each run of equal values is in the set
    (``numpy.unique``, NaNs equal)."""
    if assume_unique:
        flat = x.ravel()
        return flat, jnp.ones(flat.shape, bool), jnp.arange(flat.size, dtype=_INTP)
    values, perm, mask, _ = _unique_core(x, True)
    return values, mask, perm


@npfunc
@host_for_mixed_integers(np.intersect1d)
def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    """npjax implementation of ``numpy.intersect1d``."""
    a1, a2 = _jx(ar1), _jx(ar2)
    dtype = _dtypes.result_type(a1.dtype, a2.dtype)
    if a1.size == 0 or a2.size == 0:
        empty = ndarray._owner(_buckets.zeros(0, dtype))
        if not return_indices:
            return empty
        return (empty, ndarray._owner(_buckets.zeros(0, _INTP)),
                ndarray._owner(_buckets.zeros(0, _INTP)))
    if not assume_unique and a1.dtype == a2.dtype:
        # one dtype: no two distinct values become equal, so the intersection is the unique
        # values of ar1 found in ar2 (binary search, no sort of the two sets together)
        v1, perm1, first1, _ = _unique_core(a1, True)
        if return_indices:
            v2, perm2, _, _ = _unique_core(a2, True)
            keep, count, at2 = _in_sorted_set(v1, first1, v2)
            picked = (v1, perm1, perm2[at2])
        else:
            keep, count = _setdiff_keep(v1, first1, a2, True)
            picked = (v1,)
        got, _ = _buckets.run(_buckets.pick, keep, *picked, count=count)
        return tuple(ndarray._owner(g) for g in got) if return_indices else ndarray._owner(
            got[0])
    v1, valid1, perm1 = _as_set(a1, assume_unique)
    v2, valid2, perm2 = _as_set(a2, assume_unique)
    same, stat, *picked = _intersect_core(v1, valid1, perm1, v2, valid2, perm2, dtype,
                                          return_indices)
    count, bad = _stats.fetch(stat).tolist()
    if bad:
        raise IndexError("index out of bounds in intersect1d's indices (NumPy: two values of "
                         "ar1 are equal after promotion to the common dtype)")
    got, _ = _buckets.run(_buckets.pick, same, *picked, count=count)
    if not return_indices:
        return ndarray._owner(got[0])
    return tuple(ndarray._owner(g) for g in got)


@npfunc
@host_for_mixed_integers(np.union1d)
def union1d(ar1: Any, ar2: Any) -> ndarray:
    """npjax implementation of ``numpy.union1d``."""
    return ndarray._owner(_host_unique(_concat(_jx(ar1), _jx(ar2))))


@npfunc
@host_for_mixed_integers(np.setdiff1d)
def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """npjax implementation of ``numpy.setdiff1d``."""
    a1, a2 = _jx(ar1), _jx(ar2)
    if a1.size == 0:
        return ndarray._owner(_buckets.zeros(0, a1.dtype))
    v1, valid1, _ = _as_set(a1, assume_unique)
    keep, count = _setdiff_keep(v1, valid1, a2, False)
    return ndarray._owner(_buckets.run(_buckets.pick, keep, v1, count=count)[0][0])


@npfunc
@host_for_mixed_integers(np.setxor1d)
def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    """npjax implementation of ``numpy.setxor1d``."""
    a1, a2 = _jx(ar1), _jx(ar2)
    dtype = _dtypes.result_type(a1.dtype, a2.dtype)
    if a1.size == 0 and a2.size == 0:
        return ndarray._owner(_buckets.zeros(0, dtype))
    sets = [_as_set(a, assume_unique)[:2] if a.size else (a.ravel(), jnp.zeros(0, bool))
            for a in (a1, a2)]
    values, keep, count = _setxor_core(*sets[0], *sets[1], dtype)
    return ndarray._owner(_buckets.run(_buckets.pick, keep, values, count=count)[0][0])


# --- ndarray methods --------------------------------------------------------------------------


def _sort_method(self: ndarray, axis: Any = -1, kind: Any = None, order: Any = None, *,
                 stable: Any = None) -> None:
    _check_sort_args(kind, order, stable)
    value = self._read()
    self._write(_sort_values(value, operator.index(axis), kind, stable))


def _partition_method(self: ndarray, kth: Any, axis: Any = -1, kind: str = "introselect",
                      order: Any = None) -> None:
    value = self._read()
    self._write(_partition(value, kth, operator.index(axis), kind, order, "values"))


def _searchsorted_method(self: ndarray, v: Any, side: str = "left", sorter: Any = None) -> Any:
    return searchsorted(self, v, side, sorter)


install_methods({
    "sort": _sort_method,
    "argsort": _method(argsort),
    "partition": _partition_method,
    "argpartition": _method(argpartition),
    "searchsorted": _searchsorted_method,
})
