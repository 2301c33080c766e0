"""In-place selection writes: ``put``, ``put_along_axis``, ``place``, ``putmask`` (and the
``ndarray.put`` method). Each computes the new value and stores it with ``ndarray._write``
(through views; ``ValueError`` on read-only arrays). ``place`` is a ``where``: one program
per shape, whatever the number of true elements."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._calls._dispatch import npfunc
from npjax._pure import _boolsums
from npjax._core import _buckets
from npjax._pure import _dtypes
from npjax._pure._impl.positions import nonzero_mask
from npjax._pure._axes import normalize_axis
from npjax._core._ndarray import install_methods, ndarray
from npjax._library._selection import (_along_axis_index, _as_intp, _check_mode, _cycle,
                                       _fix_indices, _jx, _method, _require_ndarray,
                                       _store_values)

__all__ = ["put", "put_along_axis", "place", "putmask"]

_INTP = np.dtype(np.intp)


@npfunc(host_route=True)
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


_put = put  # the raw body (the ndarray.put method calls it: one door)
put = npfunc(_put, host_route=True)


@npfunc(host_route=True)
def place(arr: Any, mask: Any, vals: Any) -> None:
    """npjax implementation of ``numpy.place`` (mutates ``arr``)."""
    if not isinstance(arr, ndarray):
        raise TypeError(f"place() argument 1 must be numpy.ndarray, not {type(arr).__name__}")
    if arr._readonly:
        raise ValueError("assignment destination is read-only")
    m = _jx(mask).ravel()
    if m.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    if isinstance(vals, ndarray | np.ndarray | jax.Array) and not _dtypes.can_cast(
            vals.dtype, arr.dtype, "safe"):  # NumPy: arrays are cast safely, lists forced
        raise TypeError(f"Cannot cast array data from {vals.dtype!r} to {arr.dtype!r} "
                        "according to the rule 'safe'")
    values = _store_values(vals, arr.dtype).ravel()
    if values.size == 0:
        if _buckets.count_nonzero(m):
            raise ValueError("Cannot insert from an empty array!")
        return
    if arr.size == 0:
        return
    arr._write(_place(arr._read().ravel(), m, values).reshape(arr.shape))


@jax.jit
def _place(flat: jax.Array, m: jax.Array, values: jax.Array) -> jax.Array:
    """The i-th True of ``m`` takes ``values[i % len(values)]``: one program per shape,
    whatever the number of True entries (a scatter at their positions compiled per count)."""
    keep = nonzero_mask(m)
    rank = _boolsums.running_count(keep) - 1
    return jnp.where(keep, values[jnp.maximum(rank, 0) % values.shape[0]], flat)


@npfunc(host_route=True)
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


install_methods({"put": _method(_put)})
