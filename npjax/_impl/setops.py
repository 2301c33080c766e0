"""Pure-JAX cores of ``unique``, ``isin`` and the set operations: sorted values, sorting
permutations and run masks, membership by binary search (``jax.Array`` in, ``jax.Array`` out).

Moved from ``npjax/_selection.py``; the NumPy-facing wrappers are in ``npjax/_sorting.py``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from npjax import _dtypes
from npjax._impl.sorting import _bsearch, _eq, _lexsort, _nan_bits, _sort_last


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


@jax.jit
def _unique_rows_core(ar: jax.Array) -> tuple:
    perm = _lexsort(tuple(ar[:, j] for j in range(ar.shape[1]))[::-1], 0)
    rows = ar[perm]
    neq = jnp.any(~_eq(rows[1:], rows[:-1]), axis=1)
    return rows, perm, jnp.concatenate([jnp.ones(1, bool), neq])


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


def _concat(a: jax.Array, b: jax.Array) -> jax.Array:
    dtype = _dtypes.result_type(a.dtype, b.dtype)
    return jnp.concatenate([a.ravel().astype(dtype), b.ravel().astype(dtype)])


@jax.jit
def _sorted_runs(aux: jax.Array) -> tuple:
    """Sorted values, permutation and ``sorted[1:] == sorted[:-1]`` (NumPy equality)."""
    values, perm = _sort_last(aux, "both")
    return values, perm, _eq(values[1:], values[:-1])
