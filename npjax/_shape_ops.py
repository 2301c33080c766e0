"""Shape and joining functions (reshape, concatenate, stack, split, flip, pad, ...).

Which functions return views is NumPy's rule, function by function: the view functions take
their input as an npjax array (``ArrayKeep``) and build the result from the ndarray view
methods or basic indexing, so the result aliases the input exactly as in NumPy; the others
return new owners. Result dtypes of joins are NumPy's (``_dtypes.result_type``), cast before
JAX sees them, since JAX's promotion lattice differs (int8 with uint16 is int32 in both, but
int16 with float16 is float32 in NumPy and float16 in JAX).
"""

from __future__ import annotations

import functools
import math
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax import _dtypes, _views
from npjax._dispatch import ArrayIn, ArrayKeep, ArraySeq, DTypeIn, npfunc, write_out
from npjax._errors import AxisError, ComplexWarning, NpjaxUnsupported, unsupported
from npjax._ndarray import install_methods, ndarray, normalize_axes, normalize_axis
from npjax._normalize import to_jax

__all__ = [
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "squeeze",
    "expand_dims", "matrix_transpose", "permute_dims", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d", "concatenate", "concat",
    "stack", "unstack", "hstack", "vstack", "dstack", "column_stack", "row_stack", "block",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "flip", "fliplr", "flipud", "roll",
    "rot90", "tile", "repeat", "pad", "resize", "append", "insert", "delete", "trim_zeros",
    "diagonal", "trace", "ndim", "shape", "size", "copyto",
]
# Only names this NumPy has (row_stack, unstack, concat... come and go between versions).
__all__ = [name for name in __all__ if hasattr(np, name)]

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _as_keep(x: Any) -> ndarray:
    return x if isinstance(x, ndarray) else ndarray._owner(to_jax(x))


def _hidden(value: jax.Array) -> ndarray:
    """A result NumPy gives as a view of a temporary (``base`` set, ``owndata`` False)."""
    owner = ndarray._owner(value)
    return owner._view((), owner._layout_array()[...])


# --- views: reshaping and axes ---------------------------------------------------------------


@npfunc
def reshape(a: ArrayKeep, shape: Any = None, order: str = "C", *,
            copy: bool | None = None) -> ndarray:
    """npjax implementation of ``numpy.reshape`` (a view where NumPy gives one)."""
    if shape is None:
        raise TypeError("reshape() missing 1 required positional argument: 'shape'")
    return a.reshape(shape, order=order, copy=copy)


@npfunc
def ravel(a: ArrayKeep, order: str = "C") -> ndarray:
    """npjax implementation of ``numpy.ravel`` (a view where NumPy gives one)."""
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return a.ravel(order)


@npfunc
def transpose(a: ArrayKeep, axes: Any = None) -> ndarray:
    """npjax implementation of ``numpy.transpose`` (a view)."""
    return a.transpose(axes)


@npfunc
def permute_dims(a: ArrayKeep, axes: Any = None) -> ndarray:
    """npjax implementation of ``numpy.permute_dims`` (a view)."""
    return a.transpose(axes)


@npfunc
def matrix_transpose(x: ArrayKeep) -> ndarray:
    """npjax implementation of ``numpy.matrix_transpose`` (a view)."""
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return x.swapaxes(-1, -2)


@npfunc
def swapaxes(a: ArrayKeep, axis1: int, axis2: int) -> ndarray:
    """npjax implementation of ``numpy.swapaxes`` (a view)."""
    return a.swapaxes(axis1, axis2)


@npfunc
def moveaxis(a: ArrayKeep, source: Any, destination: Any) -> ndarray:
    """npjax implementation of ``numpy.moveaxis`` (a view)."""
    source = normalize_axes(source, a.ndim)
    destination = normalize_axes(destination, a.ndim)
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.transpose(order)


@npfunc
def rollaxis(a: ArrayKeep, axis: int, start: int = 0) -> ndarray:
    """npjax implementation of ``numpy.rollaxis`` (a view)."""
    n = a.ndim
    axis = normalize_axis(axis, n)
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was "
                        "passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


@npfunc
def squeeze(a: ArrayKeep, axis: Any = None) -> ndarray:
    """npjax implementation of ``numpy.squeeze`` (a view; the input itself when no axis
    has length one, as in NumPy)."""
    return a.squeeze(axis)


@npfunc
def expand_dims(a: ArrayKeep, axis: Any) -> ndarray:
    """npjax implementation of ``numpy.expand_dims`` (a view)."""
    if not isinstance(axis, tuple | list):
        axis = (axis,)
    return a._expand_dims(tuple(axis))


@npfunc
def diagonal(a: ArrayKeep, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
    """npjax implementation of ``numpy.diagonal`` (a read-only view, as in NumPy)."""
    return a.diagonal(offset, axis1, axis2)


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | np.integer) or (
            isinstance(shape, ndarray) and shape.ndim == 0):
        return (operator.index(shape),)
    return tuple(operator.index(n) for n in shape)


@npfunc
def broadcast_to(array: ArrayKeep, shape: Any, subok: bool = False) -> ndarray:
    """npjax implementation of ``numpy.broadcast_to`` (a read-only view)."""
    shape = _shape_tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    return array._broadcast_to(shape)


class BroadcastWritable(_views.Step):
    """Lens step of a ``broadcast_arrays`` result, writeable as in NumPy 2.

    ``static`` = target shape. Several view positions alias one source element; a write
    stores, for each source element, the value of the last position (C order) whose bits
    changed, so a single-element write lands and a whole-view write keeps the last copy.
    """

    def get(self, x, dyn):
        return jnp.broadcast_to(x, self.static)

    def set(self, x, dyn, new):
        shape = self.static
        lead = len(shape) - x.ndim
        new = new.astype(x.dtype)
        spread = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(x.shape) if n == 1 and shape[lead + i] != 1)
        if not spread:
            return new.reshape(x.shape)
        keep = [i for i in range(len(shape)) if i not in spread]
        kept_shape = tuple(shape[i] for i in keep)
        copies = math.prod(shape[i] for i in spread)
        if copies == 0:
            return x
        perm = spread + tuple(keep)
        new_p = jnp.transpose(new, perm).reshape((copies,) + kept_shape)
        old_p = jnp.broadcast_to(x.reshape((1,) + kept_shape), new_p.shape)
        changed = ~_same_bits(new_p, old_p)
        ids = jnp.arange(copies).reshape((copies,) + (1,) * len(kept_shape))
        last = jnp.max(jnp.where(changed, ids, -1), axis=0)
        picked = jnp.take_along_axis(new_p, jnp.maximum(last, 0)[None], axis=0)[0]
        return jnp.where(last >= 0, picked, x.reshape(kept_shape)).reshape(x.shape)


def _same_bits(a: jax.Array, b: jax.Array) -> jax.Array:
    kind = a.dtype.kind
    if kind == "c":
        return _same_bits(jnp.real(a), jnp.real(b)) & _same_bits(jnp.imag(a), jnp.imag(b))
    if kind == "f":
        utype = np.dtype(f"uint{a.dtype.itemsize * 8}")
        return lax.bitcast_convert_type(a, utype) == lax.bitcast_convert_type(b, utype)
    return a == b


@npfunc
def broadcast_arrays(*args: Any, subok: bool = False) -> tuple:
    """npjax implementation of ``numpy.broadcast_arrays``.

    Results are writeable views (NumPy 2.4 still makes them writeable, with a FutureWarning
    on reading ``flags.writeable`` that npjax does not give).
    """
    arrays = [_as_keep(x) for x in args]
    target = np.broadcast_shapes(*(x.shape for x in arrays))
    out = []
    for x in arrays:
        if x.shape == target:
            out.append(x)
            continue
        layout = np.broadcast_to(x._layout_array(), target)
        out.append(x._view((BroadcastWritable(target),), layout))
    return tuple(out)


def broadcast_shapes(*args: Any) -> tuple[int, ...]:
    """npjax implementation of ``numpy.broadcast_shapes`` (host only: shapes are Python)."""
    return np.broadcast_shapes(*args)


broadcast_shapes.__module__ = "npjax"


def _atleast(arys: tuple, fn: Any) -> Any:
    result = tuple(fn(_as_keep(a)) for a in arys)
    return result[0] if len(result) == 1 else result


def _at1(a: ndarray) -> ndarray:
    return a.reshape(1) if a.ndim == 0 else a


def _at2(a: ndarray) -> ndarray:
    if a.ndim == 0:
        return a.reshape(1, 1)
    return a[None, :] if a.ndim == 1 else a


def _at3(a: ndarray) -> ndarray:
    if a.ndim == 0:
        return a.reshape(1, 1, 1)
    if a.ndim == 1:
        return a[None, :, None]
    return a[:, :, None] if a.ndim == 2 else a


@npfunc
def atleast_1d(*arys: Any) -> Any:
    """npjax implementation of ``numpy.atleast_1d`` (the input itself or a view)."""
    return _atleast(arys, _at1)


@npfunc
def atleast_2d(*arys: Any) -> Any:
    """npjax implementation of ``numpy.atleast_2d`` (the input itself or a view)."""
    return _atleast(arys, _at2)


@npfunc
def atleast_3d(*arys: Any) -> Any:
    """npjax implementation of ``numpy.atleast_3d`` (the input itself or a view)."""
    return _atleast(arys, _at3)


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
    for d in dtypes:
        if d != target and not _dtypes.can_cast(np.dtype(d), target, casting):
            raise TypeError(f"Cannot cast array data from {np.dtype(d)!r} to {target!r} "
                            f"according to the rule {casting!r}")
    if not _dtypes.is_device_dtype(target):
        raise NpjaxUnsupported(f"dtype {target} lives on the host only")
    _warn_complex(dtypes, target)
    return target


def _warn_complex(dtypes: list, target: np.dtype) -> None:
    if target.kind != "c" and any(np.dtype(d).kind == "c" for d in dtypes):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      ComplexWarning, stacklevel=4)


@functools.lru_cache(maxsize=512)
def _concat_kernel(axis: int, dtype: np.dtype):
    return jax.jit(lambda xs: jnp.concatenate([x.astype(dtype) for x in xs], axis=axis))


def _concat(values: list, axis: Any, out: Any, dtype: Any, casting: str, name: str) -> Any:
    """``numpy.concatenate`` on jax values; returns a jax value or the written ``out``."""
    if not values:
        raise ValueError("need at least one array to concatenate")
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
    target = _join_target([v.dtype for v in values], dtype, out, casting, name)
    result = _concat_kernel(axis, target)(values)
    if out is not None:
        if out.shape != result.shape:
            if out.ndim != result.ndim:
                raise ValueError("Output array has wrong dimensionality")
            raise ValueError("Output array is the wrong shape")
        return write_out(out, result, "unsafe", name)
    return result


@npfunc(numpy_fn=np.concatenate)
def concatenate(arrays: ArraySeq, axis: Any = 0, out: Any = None, *, dtype: DTypeIn = None,
                casting: str = "same_kind") -> Any:
    """npjax implementation of ``numpy.concatenate`` (a new array)."""
    return _concat(arrays, axis, out, dtype, casting, "concatenate")


if hasattr(np, "concat"):
    @npfunc(numpy_fn=np.concat)
    def concat(arrays: ArraySeq, axis: Any = 0, out: Any = None, *, dtype: DTypeIn = None,
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
    def row_stack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
        """npjax implementation of the deprecated ``numpy.row_stack`` (``vstack``)."""
        warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                      DeprecationWarning, stacklevel=2)
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


# --- splitting (views) ----------------------------------------------------------------------


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


# --- flips and rotations (views) ------------------------------------------------------------


def _flip(m: ndarray, axis: Any) -> ndarray:
    if axis is None:
        return m[(slice(None, None, -1),) * m.ndim]
    axes = normalize_axes(axis, m.ndim)
    return m[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(m.ndim))]


@npfunc
def flip(m: ArrayKeep, axis: Any = None) -> ndarray:
    """npjax implementation of ``numpy.flip`` (a view)."""
    return _flip(m, axis)


@npfunc
def fliplr(m: ArrayKeep) -> ndarray:
    """npjax implementation of ``numpy.fliplr`` (a view)."""
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return m[:, ::-1]


@npfunc
def flipud(m: ArrayKeep) -> ndarray:
    """npjax implementation of ``numpy.flipud`` (a view)."""
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return m[::-1, ...]


@npfunc
def rot90(m: ArrayKeep, k: int = 1, axes: Any = (0, 1)) -> ndarray:
    """npjax implementation of ``numpy.rot90`` (a view)."""
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if (axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return m[:]
    if k == 2:
        return _flip(_flip(m, axes[0]), axes[1])
    axes_list = list(range(m.ndim))
    axes_list[axes[0]], axes_list[axes[1]] = axes_list[axes[1]], axes_list[axes[0]]
    if k == 1:
        return _flip(m, axes[1]).transpose(axes_list)
    return _flip(m.transpose(axes_list), axes[1])


# --- copies: roll, tile, repeat, resize, append, insert, delete ------------------------------


@npfunc
def roll(a: ArrayIn, shift: Any, axis: Any = None) -> Any:
    """npjax implementation of ``numpy.roll`` (a new array; with ``axis=None`` a view of a
    temporary, as in NumPy)."""
    if axis is None:
        return _hidden(roll(ndarray._owner(a.reshape(-1)), shift, 0)._read().reshape(a.shape))
    axes = axis if isinstance(axis, tuple | list) else (axis,)
    axes = [normalize_axis(ax, a.ndim) for ax in axes]
    try:
        pairs = np.broadcast(np.asarray(_host_index(shift)), np.asarray(axes, dtype=np.intp))
    except ValueError:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences") from None
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    if a.ndim == 0:  # NumPy's loop over no axes fails to unpack
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    total = [0] * a.ndim
    for sh, ax in pairs:
        total[int(ax)] += int(sh)
    moves = tuple((ax, total[ax] % a.shape[ax]) for ax in range(a.ndim)
                  if a.shape[ax] and total[ax] % a.shape[ax])
    if not moves:
        return a
    return jnp.roll(a, tuple(s for _, s in moves), tuple(ax for ax, _ in moves))


@npfunc
def tile(A: Any, reps: Any) -> Any:
    """npjax implementation of ``numpy.tile`` (a new array; a view of a temporary where
    NumPy gives one)."""
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    tup = tuple(operator.index(r) for r in tup)
    d = len(tup)
    own = all(r == 1 for r in tup) and isinstance(A, ndarray | np.ndarray | jax.Array)
    A = to_jax(A)
    c = A.reshape((1,) * (d - A.ndim) + A.shape) if A.ndim < d else A
    if d < c.ndim:
        tup = (1,) * (c.ndim - d) + tup
    if any(r < 0 for r in tup):
        raise ValueError("negative dimensions are not allowed")
    result = jnp.tile(c, tup)
    return result if own else _hidden(result)


def _repeats_host(repeats: Any) -> np.ndarray:
    """``repeats`` as host intp: Python data converts as NumPy does, arrays cast safely."""
    if isinstance(repeats, ndarray | jax.Array | np.ndarray):
        r = np.asarray(repeats)
        if not np.can_cast(r.dtype, np.intp, "safe"):
            raise TypeError(f"Cannot cast array data from {r.dtype!r} to dtype('int64') "
                            "according to the rule 'safe'")
        r = r.astype(np.intp)
    else:
        r = np.asarray(_host_index(repeats), dtype=np.intp)
    if r.ndim > 1:
        raise ValueError("object too deep for desired array")
    if (r < 0).any():
        raise ValueError("repeats may not contain negative values.")
    return r


@npfunc
def repeat(a: ArrayIn, repeats: Any, axis: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.repeat`` (a new array)."""
    r = _repeats_host(repeats)
    if axis is None or a.ndim == 0:  # NumPy takes a 0-d array as 1-d
        a = a.reshape(-1) if axis is None else a.reshape(1)
        axis = 0 if axis is None else axis
    axis = normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    if r.ndim == 1 and r.shape[0] not in (1, n):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                         f"{r.shape}")
    if r.size == 1:
        return jnp.repeat(a, int(r.reshape(())), axis=axis)
    return jnp.repeat(a, jnp.asarray(r), axis=axis, total_repeat_length=int(r.sum()))


@npfunc
def resize(a: ArrayIn, new_shape: Any) -> Any:
    """npjax implementation of ``numpy.resize`` (a new array, the input repeated)."""
    new_shape = _shape_tuple(new_shape)
    a = a.reshape(-1)
    new_size = 1
    for n in new_shape:
        new_size *= n
        if n < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    if a.size == 0 or new_size == 0:
        return jnp.zeros(new_shape, a.dtype)
    repeats = -(-new_size // a.size)
    return _hidden(jnp.tile(a, repeats)[:new_size].reshape(new_shape))


@npfunc(numpy_fn=np.append)
def append(arr: ArrayIn, values: ArrayIn, axis: Any = None) -> Any:
    """npjax implementation of ``numpy.append`` (a new array)."""
    if axis is None:
        if arr.ndim != 1:
            arr = arr.reshape(-1)
        values = values.reshape(-1)
        axis = arr.ndim - 1
    return _concat([arr, values], axis, None, None, "same_kind", "concatenate")


def _host_index(obj: Any) -> Any:
    if isinstance(obj, ndarray):
        host = np.asarray(obj._read())
        return host[()] if obj._scalar else host
    if isinstance(obj, list | tuple) and any(isinstance(o, ndarray) for o in obj):
        return [_host_index(o) for o in obj]
    return obj


@functools.lru_cache(maxsize=512)
def _placing_kernel():
    def place(arr, v, placed):
        from_arr = jnp.take(arr.reshape(-1), jnp.maximum(placed, 0), mode="clip") \
            if arr.size else jnp.zeros(placed.shape, arr.dtype)
        from_val = jnp.take(v.reshape(-1), jnp.maximum(-1 - placed, 0), mode="clip") \
            if v.size else jnp.zeros(placed.shape, arr.dtype)
        return jnp.where(placed >= 0, from_arr, from_val.astype(arr.dtype))
    return jax.jit(place)


@npfunc
def delete(arr: ArrayIn, obj: Any, axis: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.delete`` (a new array).

    The positions to keep are worked out by NumPy itself on an index array of the same
    shape, so every form of ``obj`` (and every error) is NumPy's.
    """
    ids = np.arange(arr.size, dtype=np.intp).reshape(arr.shape)
    kept = np.delete(ids, _host_index(obj), axis)
    return _placing_kernel()(arr, jnp.zeros((0,), arr.dtype), jnp.asarray(kept))


@npfunc
def insert(arr: ArrayIn, obj: Any, values: Any, axis: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.insert`` (a new array of ``arr``'s dtype).

    NumPy's own ``insert`` runs on index arrays (source positions, values as negative ids)
    to place every element, so every form of ``obj`` (and every error) is NumPy's.
    """
    ids = np.arange(arr.size, dtype=np.intp).reshape(arr.shape)
    obj = _host_index(obj)
    np.insert(ids, obj, -1, axis)  # NumPy's axis and index errors come before value errors
    if isinstance(values, ndarray | jax.Array):
        v = to_jax(values)
        _warn_complex([v.dtype], arr.dtype)
    else:
        v = to_jax(np.asarray(values, dtype=arr.dtype))
    vids = -1 - np.arange(v.size, dtype=np.intp).reshape(v.shape)
    placed = np.insert(ids, obj, vids, axis)
    return _placing_kernel()(arr, v, jnp.asarray(placed))


@npfunc
def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """npjax implementation of ``numpy.trim_zeros`` (a view; a list stays a list)."""
    plain = isinstance(filt, list | tuple)
    arr = ndarray._owner(to_jax(filt)) if not isinstance(filt, ndarray) else filt
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    ndim = arr.ndim
    axis_tuple = tuple(range(ndim)) if axis is None else normalize_axes(axis, ndim)
    if not axis_tuple:
        return filt
    nonzero = np.argwhere(np.asarray(arr._read()))
    if nonzero.size == 0:
        start = stop = [0] * ndim
    else:
        start = nonzero.min(axis=0).tolist()
        stop = (nonzero.max(axis=0) + 1).tolist()
        if "f" not in trim:
            start = [None] * ndim
        if "b" not in trim:
            stop = [None] * ndim
    sl = tuple(slice(start[ax], stop[ax]) if ax in axis_tuple else slice(None)
               for ax in range(ndim))
    if len(sl) == 1:
        return filt[sl[0]] if plain else arr[sl[0]]
    return arr[sl]


# --- pad -------------------------------------------------------------------------------------

_PAD_KWARGS = {
    "empty": (), "edge": (), "wrap": (), "constant": ("constant_values",),
    "linear_ramp": ("end_values",), "maximum": ("stat_length",), "mean": ("stat_length",),
    "median": ("stat_length",), "minimum": ("stat_length",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}


def _as_pairs(x: Any, ndim: int, as_index: bool = False) -> Any:
    from numpy.lib._arraypad_impl import _as_pairs as np_as_pairs

    return np_as_pairs(_host_index(x), ndim, as_index=as_index)


@npfunc
def pad(array: ArrayIn, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> jax.Array:
    """npjax implementation of ``numpy.pad`` (a new array).

    Differences from NumPy: a callable ``mode`` is not supported; ``mode='empty'`` fills the
    pad area with zeros (NumPy leaves it uninitialised); boolean arrays with
    ``reflect_type='odd'`` wider than one reflection raise NotImplementedError.
    """
    if callable(mode):
        raise unsupported("pad", "mode", "a callable mode")
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * array.ndim
        for ax, width in pad_width.items():
            seq[ax] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = seq
    widths = np.asarray(_host_index(pad_width))
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    widths = _as_pairs(widths, array.ndim, as_index=True)
    try:
        allowed = _PAD_KWARGS[mode]
    except (KeyError, TypeError):
        raise ValueError(f"mode '{mode}' is not supported") from None
    extra = set(kwargs) - set(allowed)
    if extra:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
    widths = [tuple(int(w) for w in pair) for pair in widths]
    new_shape = tuple(n + lo + hi for n, (lo, hi) in zip(array.shape, widths))
    if mode in ("constant", "empty"):
        values = np.asarray(_as_pairs(kwargs.get("constant_values", 0), array.ndim)
                            if mode == "constant" else np.zeros((array.ndim, 2)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's own unsafe cast, e.g. nan into ints
            extra = _host_key(np.asarray(values).astype(array.dtype))
        return _pad_kernel("constant", tuple(widths), extra)(array)
    if array.size == 0:
        for ax, pair in enumerate(widths):
            if array.shape[ax] == 0 and any(pair):
                raise ValueError(f"can't extend empty axis {ax} using modes other than "
                                 "'constant' or 'empty'")
        return jnp.zeros(new_shape, array.dtype)
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = _as_pairs(kwargs.get("stat_length"), array.ndim, as_index=True)
        lengths = tuple(tuple(None if n is None else int(n) for n in pair) for pair in lengths)
        for ax, (lo, hi) in enumerate(lengths):
            n = array.shape[ax]
            if mode in ("maximum", "minimum") and 0 in (lo, hi) and n:
                raise ValueError("stat_length of 0 yields no value for padding")
        return _pad_kernel(mode, tuple(widths), lengths)(array)
    if mode == "linear_ramp":
        ends = np.asarray(_as_pairs(kwargs.get("end_values", 0), array.ndim))
        return _pad_kernel(mode, tuple(widths), _host_key(ends))(array)
    if mode in ("reflect", "symmetric"):
        reflect_type = kwargs.get("reflect_type", "even")
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"unsupported reflect_type {reflect_type!r}")
        return _pad_kernel(mode, tuple(widths), reflect_type)(array)
    return _pad_kernel(mode, tuple(widths), None)(array)


def _host_key(x: np.ndarray) -> tuple:
    """A bit-exact, hashable key for host values (0 == 0.0 == 0j and -0.0 == 0.0 in Python)."""
    x = np.ascontiguousarray(x)
    return (x.tobytes(), x.dtype.str, x.shape)


def _from_key(key: tuple) -> np.ndarray:
    return np.frombuffer(key[0], dtype=np.dtype(key[1])).reshape(key[2])


@functools.lru_cache(maxsize=512)
def _pad_kernel(mode: str, widths: tuple, extra: Any):
    """One compiled pad per (mode, widths, static extras); NumPy's per-axis algorithm."""

    def run(x):
        if x.ndim == 0:  # nothing to pad
            return x + jnp.zeros((), x.dtype)
        if mode == "constant":
            return _pad_constant(x, widths, _from_key(extra))
        if mode in ("maximum", "minimum", "mean", "median"):
            return _pad_stat(x, widths, extra, mode)
        if mode == "linear_ramp":
            return _pad_ramp(x, widths, _from_key(extra))
        if mode in ("reflect", "symmetric"):
            return _pad_reflect(x, widths, mode, extra)
        return jnp.pad(x, widths, mode=mode)

    return jax.jit(run)


def _pad_constant(x: jax.Array, widths: tuple, host: np.ndarray) -> jax.Array:
    for ax, (lo, hi) in enumerate(widths):
        shape = list(x.shape)
        parts = []
        if lo:
            shape[ax] = lo
            parts.append(jnp.full(shape, host[ax][0], x.dtype))
        parts.append(x)
        if hi:
            shape[ax] = hi
            parts.append(jnp.full(shape, host[ax][1], x.dtype))
        if len(parts) > 1:
            x = jnp.concatenate(parts, axis=ax)
    return x


def _take(x: jax.Array, ax: int, start: int, stop: int) -> jax.Array:
    return lax.slice_in_dim(x, start, stop, axis=ax)


def _round_to(stat: jax.Array, dtype: np.dtype) -> jax.Array:
    if dtype.kind in "iu":
        stat = jnp.round(stat)
    return stat.astype(dtype)


def _complex_median(chunk: jax.Array, axis: int, keepdims: bool = True) -> jax.Array:
    """NumPy's median of complex values: lexicographic sort, mean of the middle pair."""
    s = jnp.sort(chunk, axis=axis)
    n = s.shape[axis]
    hi = lax.slice_in_dim(s, n // 2, n // 2 + 1, axis=axis)
    if n % 2:
        return hi
    lo = lax.slice_in_dim(s, n // 2 - 1, n // 2, axis=axis)
    return (lo + hi) / 2


def _pad_stat(x: jax.Array, widths: list, lengths: Any, mode: str) -> jax.Array:
    funcs = {"maximum": jnp.max, "minimum": jnp.min, "mean": jnp.mean,
             "median": _complex_median if x.dtype.kind == "c" else jnp.median}
    func = funcs[mode]
    for ax, (lo, hi) in enumerate(widths):
        n = x.shape[ax]
        left_len, right_len = lengths[ax]
        left_len = n if left_len is None or n < left_len else int(left_len)
        right_len = n if right_len is None or n < right_len else int(right_len)
        stats = []
        for length, start in ((left_len, 0), (right_len, n - right_len)):
            chunk = _take(x, ax, start, start + length)
            if mode == "mean" and x.dtype.kind in "iub":
                chunk = chunk.astype(np.float64)
            if chunk.shape[ax] == 0:
                shape = list(chunk.shape)
                shape[ax] = 1
                kind = np.float64 if x.dtype.kind in "iub" else x.dtype
                stat = jnp.full(shape, np.nan, kind)
            else:
                stat = func(chunk, axis=ax, keepdims=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                stats.append(_round_to(stat, x.dtype))
        parts = []
        if lo:
            parts.append(jnp.repeat(stats[0], lo, axis=ax))
        parts.append(x)
        if hi:
            parts.append(jnp.repeat(stats[1], hi, axis=ax))
        if len(parts) > 1:
            x = jnp.concatenate(parts, axis=ax)
    return x


def _pad_ramp(x: jax.Array, widths: list, ends: np.ndarray) -> jax.Array:
    """NumPy's ``linspace``-based ramps, computed in NumPy's working dtype."""
    work = np.result_type(ends.dtype, x.dtype, np.float64 if x.dtype.kind in "iub" else
                          np.float16)
    if work.kind in "iub":
        work = np.dtype(np.float64)
    for ax, (lo, hi) in enumerate(widths):
        n = x.shape[ax]
        parts = []
        for width, end, edge_at, reverse in ((lo, ends[ax][0], 0, False),
                                             (hi, ends[ax][1], n - 1, True)):
            if not width:
                parts.append(None)
                continue
            edge = _take(x, ax, edge_at, edge_at + 1).astype(work)
            start = jnp.asarray(np.asarray(end).astype(work))
            step_shape = [1] * x.ndim
            step_shape[ax] = width
            steps = jnp.arange(width, dtype=work).reshape(step_shape)
            delta = edge - start
            step = delta / width
            ramp = jnp.where(step == 0, steps / width * delta, steps * step) + start
            if x.dtype.kind in "iu":  # NumPy: floor, then a C cast (wraps, via int64 here)
                ramp = jnp.floor(ramp).astype(np.int64)
            ramp = ramp.astype(x.dtype)
            if reverse:
                ramp = jnp.flip(ramp, axis=ax)
            parts.append(ramp)
        pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
        if len(pieces) > 1:
            x = jnp.concatenate(pieces, axis=ax)
    return x


def _pad_reflect(x: jax.Array, widths: list, mode: str, reflect_type: str) -> jax.Array:
    for ax, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        if x.shape[ax] == 1:
            x = jnp.pad(x, [(0, 0)] * ax + [(lo, hi)] + [(0, 0)] * (x.ndim - ax - 1),
                        mode="edge")
            continue
        widths_ax = [(0, 0)] * ax + [(lo, hi)] + [(0, 0)] * (x.ndim - ax - 1)
        if x.dtype == np.bool_ and reflect_type == "odd":
            # NumPy computes 2*edge - x in int64 and stores it as bool, one reflection at a
            # time; only a single reflection is reproduced here.
            if max(lo, hi) > x.shape[ax] - (mode == "reflect"):
                raise unsupported("pad", "reflect_type", "'odd' for booleans wider than "
                                  "one reflection")
            x = jnp.pad(x.astype(np.int64), widths_ax, mode=mode, reflect_type="odd") != 0
            continue
        x = jnp.pad(x, widths_ax, mode=mode, reflect_type=reflect_type)
    return x


# --- reductions and queries ------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _trace_dtype(dtype: np.dtype, requested: np.dtype | None) -> np.dtype:
    return np.trace(np.zeros((1, 1), dtype), dtype=requested).dtype


@npfunc(scalar=True)
def trace(a: ArrayIn, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.trace``."""
    ndim = a.ndim
    if ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = normalize_axis(axis1, ndim), normalize_axis(axis2, ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rtype = _trace_dtype(a.dtype, dtype)
    result = jnp.trace(a.astype(rtype), operator.index(offset), a1, a2, dtype=rtype)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("npjax.trace: 'out' must be an npjax array")
        if out.ndim != result.ndim:
            raise ValueError("output parameter for reduction operation add has the wrong "
                             f"number of dimensions: Found {out.ndim} but expected "
                             f"{result.ndim}")
        return write_out(out, result, "unsafe", "trace")
    return result


def ndim(a: Any) -> int:
    """npjax implementation of ``numpy.ndim`` (a Python int)."""
    if isinstance(a, ndarray | jax.Array | np.ndarray | np.generic):
        return a.ndim
    return np.ndim(_host_index(a))


def shape(a: Any) -> tuple[int, ...]:
    """npjax implementation of ``numpy.shape`` (a tuple of Python ints)."""
    if isinstance(a, ndarray | jax.Array | np.ndarray | np.generic):
        return tuple(a.shape)
    return np.shape(_host_index(a))


def size(a: Any, axis: Any = None) -> int:
    """npjax implementation of ``numpy.size`` (a Python int)."""
    s = shape(a)
    if axis is None:
        return math.prod(s)
    return math.prod(s[ax] for ax in normalize_axes(axis, len(s)))


for _fn in (ndim, shape, size):
    _fn.__module__ = "npjax"


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """npjax implementation of ``numpy.copyto``: writes into ``dst`` (and all its aliases)."""
    if not isinstance(dst, ndarray) or dst._scalar:
        what = "a NumPy scalar" if isinstance(dst, ndarray) else type(dst).__name__
        raise TypeError(f"copyto() argument 1 must be an npjax.ndarray, not {what}")
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         f"'unsafe' (got {casting!r})")
    if type(src) in _dtypes.WEAK_TYPES:
        # Python scalars are weak (NEP 50): NumPy itself judges value and kind.
        np.copyto(np.empty((), dst.dtype), src, casting=casting)
        value = to_jax(np.asarray(src, dtype=dst.dtype))
    else:
        value = to_jax(src)
        if value.dtype != dst.dtype and not _dtypes.can_cast(value.dtype, dst.dtype, casting):
            raise TypeError(f"Cannot cast array data from {value.dtype!r} to {dst.dtype!r} "
                            f"according to the rule {casting!r}")
        _warn_complex([value.dtype], dst.dtype)
    target = dst.shape
    try:
        if np.broadcast_shapes(value.shape, target) != target:
            raise ValueError
    except ValueError:
        raise ValueError(f"could not broadcast input array from shape {value.shape} into "
                         f"shape {target}") from None
    if dst._readonly:
        raise ValueError("assignment destination is read-only")
    if where is True:
        dst._write(jnp.broadcast_to(value.astype(dst.dtype), target))
        return
    mask = to_jax(where)
    if mask.dtype != np.bool_ and not _dtypes.can_cast(mask.dtype, np.dtype(bool), "safe"):
        raise TypeError(f"Cannot cast array data from {mask.dtype!r} to dtype('bool') "
                        "according to the rule 'safe'")
    try:
        if np.broadcast_shapes(mask.shape, target) != target:
            raise ValueError
    except ValueError:
        raise ValueError(f"could not broadcast where mask from shape {mask.shape} into "
                         f"shape {target}") from None
    dst._write(jnp.where(mask, value.astype(dst.dtype), dst._read()))


copyto.__module__ = "npjax"


# --- ndarray methods NumPy has and _ndarray.py does not define ------------------------------

def _method_repeat(self: ndarray, repeats: Any, axis: Any = None) -> ndarray:
    return repeat(self, repeats, axis)


def _method_trace(self: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1,
                  dtype: Any = None, out: Any = None) -> Any:
    return trace(self, offset, axis1, axis2, dtype, out)


install_methods({name: fn for name, fn in (("repeat", _method_repeat),
                                           ("trace", _method_trace))
                 if hasattr(np.ndarray, name) and name not in vars(ndarray)})
