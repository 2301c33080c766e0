"""Joining and splitting functions (concatenate, stack, hstack, block, split, append, ...).

Joins return new owners; the split functions return views, as in NumPy. Result dtypes of
joins are NumPy's (``_dtypes.result_type``), cast before JAX sees them, since JAX's
promotion lattice differs (int8 with uint16 is int32 in both, but int16 with float16 is
float32 in NumPy and float16 in JAX).
"""

from __future__ import annotations

import functools
import warnings
from typing import Annotated, Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._core import _casts
from npjax._pure import _dtypes
from npjax._calls._dispatch import ArrayIn, ArrayKeep, ArraySeq, AxisIn, DTypeIn, Tag, npfunc
from npjax._core._out import write_out
from npjax._pure._axes import normalize_axis
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._runtime._context import current
from npjax._library._rearranging import _CASTINGS, _warn_complex
from npjax._library._shape_ops import moveaxis
from npjax._placement._route import hand_written

__all__ = [
    "concatenate", "concat", "stack", "unstack", "hstack", "vstack", "dstack", "column_stack",
    "row_stack", "block", "split", "array_split", "hsplit", "vsplit", "dsplit", "append",
]
# Only names this NumPy has (row_stack, unstack, concat... come and go between versions).
__all__ = [name for name in __all__ if hasattr(np, name)]


# --- joining ---------------------------------------------------------------------------------


def _join_target(dtypes: list, dtype: Any, out: Any, casting: str, name: str) -> np.dtype:
    """The dtype a join computes in, with NumPy's checks of ``dtype``/``out``/``casting``."""
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         f"'unsafe' (got {casting!r})")
    if out is not None and dtype is not None:
        raise TypeError(f"{name}() only takes `out` or `dtype` as an argument, but both "
                        "were provided.")
    if dtype is not None:
        target = np.dtype(dtype)
    elif out is not None:
        if not isinstance(out, ndarray):
            raise TypeError(f"npjax.{name}: 'out' must be an npjax array")
        target = out.dtype
    else:
        target = _dtypes.result_type(*dtypes)
    for d in dtypes:  # (Python numbers, weak, are cast whatever the rule, as NumPy does)
        if d != target and type(d) is not type and not _dtypes.can_cast(np.dtype(d), target,
                                                                         casting):
            raise TypeError(f"Cannot cast array data from {np.dtype(d)!r} to {target!r} "
                            f"according to the rule {casting!r}")
    _dtypes.device_only(target)
    _warn_complex(dtypes, target)
    return target


@functools.lru_cache(maxsize=512)
def _concat_kernel(axis: int, dtype: np.dtype):
    return jax.jit(lambda xs: jnp.concatenate([x.astype(dtype) for x in xs], axis=axis))


# ``concatenate``'s sequence: Python numbers stay as they are, weak in the result dtype (NEP 50:
# ``concatenate([np.float32(1), 1.0], axis=None)`` is float32, as a ufunc's would be).
def _weak_seq(xs: Any, policy: Any) -> list:
    if not (hasattr(xs, "__getitem__") and hasattr(xs, "__len__")):  # NumPy: a sequence
        raise TypeError("The first input argument needs to be a sequence")
    return [x if type(x) in _dtypes.WEAK_TYPES else to_jax(x, policy) for x in xs]


WeakSeq = Annotated[list, Tag("WeakSeq", _weak_seq)]


def _concat(values: list, axis: Any, out: Any, dtype: Any, casting: str, name: str) -> Any:
    """``numpy.concatenate`` on jax values (Python numbers weak); a jax value or ``out``."""
    if not values:
        raise ValueError("need at least one array to concatenate")
    keys = None
    if any(type(v) in _dtypes.WEAK_TYPES for v in values):  # NumPy's arrays of them
        keys = [type(v) if type(v) in _dtypes.WEAK_TYPES else v.dtype for v in values]
        values = [to_jax(v, current()) if type(v) in _dtypes.WEAK_TYPES else v for v in values]
    if axis is None:
        values = [v.reshape(-1) for v in values]
        axis = 0
    else:
        ndim = values[0].ndim
        if ndim == 0:
            raise ValueError("zero-dimensional arrays cannot be concatenated")
        axis = normalize_axis(axis, ndim)
        first = values[0].shape
        for i, v in enumerate(values[1:], 1):
            if v.ndim != ndim:
                raise ValueError(
                    "all the input arrays must have same number of dimensions, but the array "
                    f"at index 0 has {ndim} dimension(s) and the array at index {i} has "
                    f"{v.ndim} dimension(s)")
            for d in range(ndim):
                if d != axis and v.shape[d] != first[d]:
                    raise ValueError(
                        "all the input array dimensions except for the concatenation axis "
                        f"must match exactly, but along dimension {d}, the array at index 0 "
                        f"has size {first[d]} and the array at index {i} has size "
                        f"{v.shape[d]}")
    target = _join_target(keys or [v.dtype for v in values], dtype, out, casting, name)
    values = [_casts.precast(v, target) for v in values]  # NumPy's values for NaN to int...
    result = _concat_kernel(axis, target)(values)
    if out is not None:
        if out.shape != result.shape:
            if out.ndim != result.ndim:
                raise ValueError("Output array has wrong dimensionality")
            raise ValueError("Output array is the wrong shape")
        return write_out(out, result, "unsafe", name)
    return result


@npfunc(numpy_fn=np.concatenate)
def concatenate(arrays: WeakSeq, axis: AxisIn = 0, out: Any = None, *, dtype: DTypeIn = None,
                casting: str = "same_kind") -> Any:
    """npjax implementation of ``numpy.concatenate`` (a new array)."""
    return _concat(arrays, axis, out, dtype, casting, "concatenate")


if hasattr(np, "concat"):
    @npfunc(numpy_fn=np.concat)
    def concat(arrays: WeakSeq, axis: Any = 0, out: Any = None, *, dtype: DTypeIn = None,
               casting: str = "same_kind") -> Any:
        """npjax implementation of ``numpy.concat`` (a new array)."""
        return _concat(arrays, axis, out, dtype, casting, "concatenate")


def _stack(values: list, axis: Any, out: Any, dtype: Any, casting: str, name: str) -> Any:
    if not values:
        raise ValueError("need at least one array to stack")
    if len({v.shape for v in values}) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, values[0].ndim + 1)
    values = [jnp.expand_dims(v, axis) for v in values]
    return _concat(values, axis, out, dtype, casting, name)


@npfunc(numpy_fn=np.stack)
def stack(arrays: ArraySeq, axis: int = 0, out: Any = None, *, dtype: DTypeIn = None,
          casting: str = "same_kind") -> Any:
    """npjax implementation of ``numpy.stack`` (a new array)."""
    return _stack(arrays, axis, out, dtype, casting, "concatenate")


if hasattr(np, "unstack"):
    @npfunc
    def unstack(x: ArrayKeep, *, axis: int = 0) -> tuple:
        """npjax implementation of ``numpy.unstack`` (a tuple of views)."""
        if x.ndim == 0:
            raise ValueError("Input array must be at least 1-d.")
        moved = moveaxis(x, axis, 0)
        return tuple(moved[i] for i in range(moved.shape[0]))


def _v1(v: jax.Array) -> jax.Array:
    return v.reshape(1) if v.ndim == 0 else v


def _v2(v: jax.Array) -> jax.Array:
    return v.reshape((1,) * (2 - v.ndim) + v.shape) if v.ndim < 2 else v


def _v3(v: jax.Array) -> jax.Array:
    if v.ndim == 0:
        return v.reshape(1, 1, 1)
    if v.ndim == 1:
        return v.reshape(1, v.shape[0], 1)
    return v.reshape(v.shape + (1,)) if v.ndim == 2 else v


@npfunc(numpy_fn=np.hstack)
def hstack(tup: ArraySeq, *, dtype: DTypeIn = None, casting: str = "same_kind") -> Any:
    """npjax implementation of ``numpy.hstack`` (a new array)."""
    values = [_v1(v) for v in tup]
    axis = 0 if values and values[0].ndim == 1 else 1
    return _concat(values, axis, None, dtype, casting, "concatenate")


@npfunc(numpy_fn=np.vstack)
def vstack(tup: ArraySeq, *, dtype: DTypeIn = None, casting: str = "same_kind") -> Any:
    """npjax implementation of ``numpy.vstack`` (a new array)."""
    return _concat([_v2(v) for v in tup], 0, None, dtype, casting, "concatenate")


if hasattr(np, "row_stack"):
    @hand_written("NumPy's DeprecationWarning, then vstack")
    def row_stack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
        """npjax implementation of the deprecated ``numpy.row_stack`` (``vstack``)."""
        warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                      DeprecationWarning, stacklevel=_stacklevel())
        return vstack(tup, dtype=dtype, casting=casting)

    row_stack.__module__ = "npjax"


@npfunc(numpy_fn=np.dstack)
def dstack(tup: ArraySeq) -> Any:
    """npjax implementation of ``numpy.dstack`` (a new array)."""
    return _concat([_v3(v) for v in tup], 2, None, None, "same_kind", "concatenate")


@npfunc(numpy_fn=np.column_stack)
def column_stack(tup: ArraySeq) -> Any:
    """npjax implementation of ``numpy.column_stack`` (a new array)."""
    values = [v.reshape((1,) * (2 - v.ndim) + v.shape).T if v.ndim < 2 else v for v in tup]
    return _concat(values, 1, None, None, "same_kind", "concatenate")


def _block_depth(arrays: Any, index: tuple = ()) -> tuple[tuple, int, int]:
    """NumPy's ``_block_check_depths_match``: (first index, list depth, max array ndim)."""
    if type(arrays) is tuple:
        raise TypeError(
            f"{_index_text(index)} is a tuple. Only lists can be used to arrange blocks, and "
            "np.block does not allow implicit conversion from tuple to ndarray.")
    if type(arrays) is list and len(arrays) > 0:
        results = [_block_depth(arr, index + (i,)) for i, arr in enumerate(arrays)]
        first_index, max_depth, max_ndim = results[0]
        for idx, depth, nd in results[1:]:
            max_ndim = max(max_ndim, nd)
            if depth != max_depth:
                raise ValueError(
                    f"List depths are mismatched. First element was at depth {max_depth}, "
                    f"but there is an element at depth {depth} ({_index_text(idx)})")
        return first_index, max_depth, max_ndim
    if type(arrays) is list:
        return index + (None,), len(index) + 1, 0
    return index, len(index), np.ndim(arrays) if not isinstance(arrays, ndarray) else \
        arrays.ndim


def _index_text(index: tuple) -> str:
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


@npfunc(numpy_fn=np.block)
def block(arrays: Any) -> Any:
    """npjax implementation of ``numpy.block`` (a new array)."""
    if type(arrays) is tuple:
        raise TypeError("arrays is a tuple. Only lists can be used to arrange blocks, and "
                        "np.block does not allow implicit conversion from tuple to ndarray.")
    bottom, list_ndim, max_ndim = _block_depth(arrays)
    if bottom and bottom[-1] is None:
        raise ValueError(f"List at {_index_text(bottom)} cannot be empty")
    result_ndim = max(list_ndim, max_ndim)
    leaves: list = []

    def convert(node: Any, depth: int) -> Any:
        if depth < list_ndim:
            return [convert(n, depth + 1) for n in node]
        v = to_jax(node)
        leaves.append(v)
        return v.reshape((1,) * (result_ndim - v.ndim) + v.shape)

    tree = convert(arrays, 0)
    if list_ndim == 0:
        return tree
    # NumPy concatenates level by level for small results and preallocates the common
    # result type for large ones; the two can differ in dtype (promotion is not associative).
    final_size = sum(int(np.prod(v.shape)) for v in leaves)
    if list_ndim * final_size > 2 * 512 * 512:
        common = _dtypes.result_type(*[v.dtype for v in leaves])
    else:
        common = None

    def join(node: Any, depth: int) -> jax.Array:
        if depth == list_ndim:
            return node if common is None else node.astype(common)
        parts = [join(n, depth + 1) for n in node]
        return _concat(parts, -(list_ndim - depth), None, None, "same_kind", "concatenate")

    return join(tree, 0)


# --- splitting (views) -----------------------------------------------------------------------


def _split_views(ary: ndarray, indices_or_sections: Any, axis: int) -> list:
    ntotal = ary.shape[axis]  # IndexError for a bad axis, as in NumPy
    if isinstance(indices_or_sections, ndarray):
        indices_or_sections = np.asarray(indices_or_sections)
    try:
        nsections = len(indices_or_sections) + 1
        div_points = [0, *list(indices_or_sections), ntotal]
    except TypeError:
        nsections = int(indices_or_sections)
        if nsections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(ntotal, nsections)
        sizes = [0] + extras * [each + 1] + (nsections - extras) * [each]
        div_points = np.array(sizes, dtype=np.intp).cumsum().tolist()
    axis = normalize_axis(axis, ary.ndim)
    lead = (slice(None),) * axis
    return [ary[(*lead, slice(div_points[i], div_points[i + 1]))] for i in range(nsections)]


@npfunc
def array_split(ary: ArrayKeep, indices_or_sections: Any, axis: int = 0) -> list:
    """npjax implementation of ``numpy.array_split`` (a list of views)."""
    return _split_views(ary, indices_or_sections, axis)


def _split(ary: ndarray, indices_or_sections: Any, axis: int) -> list:
    try:
        len(indices_or_sections)
    except TypeError:
        n = ary.shape[axis]
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division") from None
    return _split_views(ary, indices_or_sections, axis)


@npfunc
def split(ary: ArrayKeep, indices_or_sections: Any, axis: int = 0) -> list:
    """npjax implementation of ``numpy.split`` (a list of views)."""
    return _split(ary, indices_or_sections, axis)


@npfunc
def hsplit(ary: ArrayKeep, indices_or_sections: Any) -> list:
    """npjax implementation of ``numpy.hsplit`` (a list of views)."""
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return _split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


@npfunc
def vsplit(ary: ArrayKeep, indices_or_sections: Any) -> list:
    """npjax implementation of ``numpy.vsplit`` (a list of views)."""
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return _split(ary, indices_or_sections, 0)


@npfunc
def dsplit(ary: ArrayKeep, indices_or_sections: Any) -> list:
    """npjax implementation of ``numpy.dsplit`` (a list of views)."""
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split(ary, indices_or_sections, 2)


# --- append ----------------------------------------------------------------------------------


@npfunc(numpy_fn=np.append)
def append(arr: ArrayIn, values: ArrayIn, axis: AxisIn = None) -> Any:
    """npjax implementation of ``numpy.append`` (a new array)."""
    if axis is None:
        if arr.ndim != 1:
            arr = arr.reshape(-1)
        values = values.reshape(-1)
        axis = arr.ndim - 1
    return _concat([arr, values], axis, None, None, "same_kind", "concatenate")
