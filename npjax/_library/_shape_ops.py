"""Shape and view functions (reshape, transpose, broadcast_to, atleast_*, flip, rot90, ...).

Which functions return views is NumPy's rule, function by function: the view functions take
their input as an npjax array (``ArrayKeep``) and build the result from the ndarray view
methods or basic indexing, so the result aliases the input exactly as in NumPy; the others
return new owners. Joining and splitting live in ``_joining.py``; roll, tile, repeat, pad
and the other copying rearrangements in ``_rearranging.py``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._core import _views
from npjax._calls._dispatch import ArrayKeep, AxisIn, npfunc
from npjax._pure._errors import AxisError
from npjax._pure._axes import normalize_axes, normalize_axis
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._library._rearranging import _host_index, _shape_tuple
from npjax._placement._route import hand_written
from npjax._pure._declared import QUESTION

__all__ = [
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "squeeze",
    "expand_dims", "matrix_transpose", "permute_dims", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud",
    "rot90", "diagonal", "ndim", "shape", "size",
]
# Only names this NumPy has (row_stack, unstack, concat... come and go between versions).
__all__ = [name for name in __all__ if hasattr(np, name)]


def _as_keep(x: Any) -> ndarray:
    return x if isinstance(x, ndarray) else ndarray._owner(to_jax(x))


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
def squeeze(a: ArrayKeep, axis: AxisIn = None) -> ndarray:
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


@hand_written(QUESTION)
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

# --- flips and rotations (views) -------------------------------------------------------------


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


# --- queries ---------------------------------------------------------------------------------


# Why ndim, shape and size stay by hand (their declarations, ``_route.hand_written``).
_QUIET_QUESTION = (QUESTION + "; host-quiet NumPy calls on the host route, ~1 us on device "
                   "arrays, where a door's conversion would cost most")


@hand_written(_QUIET_QUESTION)
def ndim(a: Any) -> int:
    """npjax implementation of ``numpy.ndim`` (a Python int)."""
    if isinstance(a, ndarray | jax.Array | np.ndarray | np.generic):
        return a.ndim
    return np.ndim(_host_index(a))


@hand_written(_QUIET_QUESTION)
def shape(a: Any) -> tuple[int, ...]:
    """npjax implementation of ``numpy.shape`` (a tuple of Python ints)."""
    if isinstance(a, ndarray | jax.Array | np.ndarray | np.generic):
        return tuple(a.shape)
    return np.shape(_host_index(a))


@hand_written(_QUIET_QUESTION)
def size(a: Any, axis: Any = None) -> int:
    """npjax implementation of ``numpy.size`` (a Python int)."""
    s = shape(a)
    if axis is None:
        return math.prod(s)
    return math.prod(s[ax] for ax in normalize_axes(axis, len(s)))


for _fn in (ndim, shape, size):
    _fn.__module__ = "npjax"
