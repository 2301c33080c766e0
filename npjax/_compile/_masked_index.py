"""A masked read of integers used as an index under ``npjax.jit``: ``N[xi[mask]] = 1`` and
``N[xi[mask]]`` with a traced ``mask`` (``_masked.MaskedValue`` of an integer dtype).

The index has as many entries as the mask selects, a count only the values tell, yet
neither needs it. A store of one value for every index (a scalar, or a value that
broadcasts along the index axis: each index then gets the same value) is a scatter at the
selected positions, the unselected ones dropped: duplicates write the same value, so NumPy's
last write is every write. A read is the gather at every position (the unselected ones read
a valid position), a masked value under the same mask: used elementwise, written back or
reduced as any ``x[mask]`` is. Negative positions wrap; a selected position out of bounds is
a device-side check (the call reruns eagerly and raises NumPy's ``IndexError``). The index
may be one masked value beside full slices (``N[:, xi[m]]``); anything else, and a value
with one entry per index (``N[xi[m]] = v[m]`` whose count must match), raises
``CountNeeded``.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _context
from npjax._core import _index_plan
from npjax._core._index_plan import _FULL
from npjax._core._index_values import cast_device, convert_value
from npjax._core._index_write import write_through
from npjax._core._ndarray import ndarray
from npjax._compile import _masked
from npjax._compile._masked import MaskedValue, _refuse

__all__ = ["mask_read", "mask_store", "read", "store"]

_index_plan.INDEX_ARRAYS.add(MaskedValue)  # classified as an index array, not an int


def _plan(items: list, kinds: list, shape: tuple) -> tuple | None:
    """(axis, positions, mask) of one integer masked value among full slices; None where
    no masked value is among the items."""
    at = [i for i, it in enumerate(items) if type(it) is MaskedValue]
    if not at:
        return None
    k = at[0]
    mv = items[k]
    if len(at) > 1 or mv.dtype.kind not in "iu" or mv.ndim != 1 or any(
            kind != "slice" or it != _FULL for i, (kind, it) in enumerate(zip(kinds, items))
            if i != k):
        raise _refuse("an index of x[mask] beside other index arrays, ints or slices")
    n = shape[k]
    m = mv.mask.ravel()
    pos = mv.full._read().ravel()
    if n == 0:
        _context.trace().check(jnp.any(m))
        pos = jnp.zeros_like(pos)
    else:
        _context.trace().check(jnp.any(m & ((pos < -n) | (pos >= n))))
    if pos.dtype.kind == "i":
        pos = jnp.where(pos < 0, pos + n, pos)
    return k, pos, m


@functools.lru_cache(maxsize=64)
def _scatter(k: int) -> Any:
    def run(x, pos, m, v):
        drop = jnp.where(m, pos, x.shape[k])  # past the end: dropped
        target = x.shape[:k] + (pos.shape[0],) + x.shape[k + 1:]
        return x.at[(slice(None),) * k + (drop,)].set(jnp.broadcast_to(v, target),
                                                      mode="drop")
    return jax.jit(run)


def store(a: ndarray, items: list, kinds: list, shape: tuple, value: Any) -> bool:
    """``a[..., xi[mask], ...] = value`` under a trace (False: no masked value indexes)."""
    plan = _plan(items, kinds, shape)
    if plan is None:
        return False
    if type(value) is MaskedValue:
        raise _refuse("storing x[mask] through an index of x[mask]")
    k, pos, m = plan
    target = tuple(shape[:k]) + (1,) + tuple(shape[k + 1:])
    v = convert_value(value, a.dtype, target, advanced=True)  # NumPy's value errors first
    vshape = np.shape(v)
    count_axis = len(vshape) - (len(shape) - k)
    if len(vshape) > len(shape) or (count_axis >= 0 and vshape[count_axis] != 1):
        raise _refuse("a value with one entry per index of x[mask]")
    try:
        np.broadcast_shapes(vshape, target)
    except ValueError:
        _context.trace().check(True)  # NumPy's shape error names the count: eager rerun
        return True
    v = cast_device(jnp.asarray(v) if isinstance(v, np.ndarray) else v, a.dtype)
    write_through(a, (), _scatter(k)(a._read(), pos, m, jnp.asarray(v).astype(a.dtype)))
    return True


def read(a: ndarray, items: list, kinds: list, shape: tuple) -> MaskedValue | None:
    """``a[..., xi[mask], ...]`` under a trace: a masked value under ``mask`` (None: no
    masked value indexes)."""
    plan = _plan(items, kinds, shape)
    if plan is None:
        return None
    k, pos, m = plan
    if k:
        raise _refuse("reading through an index of x[mask] after other axes")
    got = jnp.take(a._read(), jnp.where(m, pos, 0), axis=0)
    return MaskedValue(ndarray._owner(got), m)


def mask_read(a: ndarray, items: list, kinds: list, shape: tuple) -> MaskedValue | None:
    """``_jit._Trace.mask_read``: ``N[xi[mask]]`` here, ``x[mask]`` by ``_masked``."""
    got = read(a, items, kinds, shape)
    return _masked.read(a, items, kinds, shape) if got is None else got


def mask_store(a: ndarray, items: list, kinds: list, shape: tuple, value: Any) -> bool:
    """``_jit._Trace.mask_store``: ``N[xi[mask]] = v`` here, ``x[m] = x[m] * 2`` by
    ``_masked``."""
    return store(a, items, kinds, shape, value) or _masked.store(a, items, kinds, shape, value)
