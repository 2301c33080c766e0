"""The compiled gathers and scatters of advanced indices: pure JAX programs that apply an
index *template* (``_index_plan``) to a ``jax.Array``.

Reads gather (``_gather``; ``_gather_masked`` where the index arrays are the True elements of
a mask, padded to a bucket); writes scatter with NumPy's "last write wins" for repeated
indices (``_scatter_last``; JAX leaves the order of conflicting scatters unspecified);
``ufunc.at`` takes the flat positions an index selects (``index_ids``).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core import _views
from npjax._pure._impl.positions import selected
from npjax._pure import _boolsums
from npjax._core._views import settled


def _take(template: tuple, x: jax.Array, arrays: Any) -> jax.Array:
    """``x[index]`` for the index ``template`` describes (traced).

    A 0-d boolean is an advanced index over a new axis of length 1 (NumPy): the axis is
    inserted and indexed by ``[0]`` (True) or ``[]`` (False), which places the result's axis
    by NumPy's rules (JAX's own scalar-boolean indexing misplaces it next to ``None``).
    """
    index, axis, new_axes = [], 0, []
    for t in template:
        if t is None:
            index.append(None)
            continue
        if t[0] == "s":
            index.append(slice(t[1], t[2], t[3]))
        else:
            if t[0] == "b":
                new_axes.append(axis)
            index.append(arrays[t[1]])
        axis += 1
    if new_axes:
        x = jnp.expand_dims(x, new_axes)
    return x[tuple(index)]


@functools.lru_cache(maxsize=512)
def _gather(template: tuple):
    return jax.jit(functools.partial(_take, template))


@functools.lru_cache(maxsize=512)
def _gather_checked(template: tuple, slots: tuple):
    """Compiled ``x[index]`` and the (min, max) of each index array at ``slots``, computed
    in the same program for the bounds check."""

    def take_checked(x, arrays):
        bounds = tuple((jnp.min(arrays[s]), jnp.max(arrays[s])) for s in slots)
        return _take(template, x, arrays), bounds

    return jax.jit(take_checked)


@functools.lru_cache(maxsize=512)
def _gather_masked(template: tuple, slots: tuple, shape: tuple):
    """Compiled ``x[index]`` where the index arrays at ``slots`` are those of the True elements
    of a boolean mask of ``shape``, padded to ``size`` (a kernel for ``npjax._core._buckets.run``:
    one program per bucket)."""

    def masked_take(x, arrays, sel, size):
        at = selected(sel, size)
        found = (at,) if len(shape) == 1 else jnp.unravel_index(at, shape)
        arrays = list(arrays)
        for at, f in zip(slots, found):
            arrays[at] = f
        return _take(template, x, arrays)

    return jax.jit(masked_take, static_argnames=("size",))


@functools.lru_cache(maxsize=512)
def _scatter_last(template: tuple, sharding: Any = None, axis: int | None = None):
    """Compiled ``x[index] = value`` where repeated targets take the last value (NumPy).

    With ``axis``, the index arrays are padded (to a bucket) along the result's ``axis`` and
    the program takes one more argument, ``count``: the entries from ``count`` on along that
    axis are padding, and write nothing (one program per bucket, not per length)."""

    def scatter(x, arrays, value, count=None):
        ids = _take(template, jnp.arange(x.size).reshape(x.shape), arrays)
        value = _views.fit(value, ids.shape, x.dtype).ravel()
        if axis is not None:
            valid = jnp.arange(ids.shape[axis]) < count
            valid = valid.reshape((1,) * axis + (-1,) + (1,) * (ids.ndim - axis - 1))
            ids = jnp.where(valid, ids, x.size)
        ids = ids.ravel()
        order = jnp.arange(ids.size)
        winner = jnp.full(x.size, -1, order.dtype).at[ids].max(order, mode="drop")
        ids = jnp.where(winner[ids] == order, ids, x.size)
        return settled(x.ravel().at[ids].set(value, mode="drop").reshape(x.shape))

    return jax.jit(scatter, out_shardings=sharding)


@functools.lru_cache(maxsize=64)
def _mask_place(n_rest: int, lead: int):
    """Compiled ``x[mask] = values`` for a mask over the leading axes of ``x`` and one value
    for each True element: ``values`` (after ``lead`` leading axes of length 1) padded to a
    bucket along its first axis, placed by a running count of the mask. One program per
    shape, dtype and bucket, whatever the number of True elements."""

    def store(x, mask, values):
        values = values.reshape(values.shape[lead:])
        flat = mask.ravel()
        rank = jnp.clip(_boolsums.running_count(flat) - 1, 0,
                        values.shape[0] - 1)
        picked = jnp.take(values, rank, axis=0).reshape(mask.shape + values.shape[1:])
        keep = mask.reshape(mask.shape + (1,) * n_rest)
        return jnp.where(keep, _views.fit(picked, x.shape, x.dtype), x)

    return jax.jit(store)


@functools.lru_cache(maxsize=64)
def _mask_scatter(n_rest: int, lead: int):
    """Compiled ``x[mask] = values`` from the flat positions of the mask's True elements (over
    the leading axes of ``x``; sorted, padded to a bucket with one past the last position)
    and ``values`` padded alike along its first axis (after ``lead`` leading axes of length
    1). Where NumPy found the positions in host memory, this scatter of unique sorted
    positions replaces ``_mask_place``'s running count of the whole mask (XLA's running sums
    on the CPU: 1.28M elements in 15 ms against the scatter's 1 ms)."""

    def store(x, at, values):
        rest = x.shape[x.ndim - n_rest:]
        flat = x.reshape((-1,) + rest)
        values = _views.fit(values.reshape(values.shape[lead:]), at.shape + rest, x.dtype)
        new = flat.at[at].set(values, mode="drop", unique_indices=True,
                              indices_are_sorted=True)
        return settled(new.reshape(x.shape))

    return jax.jit(store)


def index_ids(template: tuple, arrays: list, shape: tuple) -> jax.Array:
    """Flat positions an index selects (for ``ufunc.at``)."""
    size = int(np.prod(shape, dtype=np.int64))
    if shape and len(template) == len(shape) and all(t is not None and t[0] == "a"
                                                     for t in template):
        # one index array per axis (``np.add.at(counts, idx, 1)``): the row-major position
        # of each (bounds were checked), without gathering from ``arange(size)``
        dt = jnp.arange(0).dtype
        ids, stride = None, 1
        for t, n in zip(template[::-1], shape[::-1]):
            a = jnp.asarray(arrays[t[1]]).astype(dt)
            a = jnp.where(a < 0, a + n, a) * stride
            ids = a if ids is None else ids + a
            stride *= n
        return ids
    return _take(template, jnp.arange(size).reshape(shape), arrays)
