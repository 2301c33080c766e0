"""Pure-JAX cores of ``unique``, ``isin`` and the set operations: sorted values, sorting
permutations and run masks, membership by binary search (``jax.Array`` in, ``jax.Array`` out).

The results of ``unique`` and the set operations have data-dependent lengths. The cores here
have fixed shapes (one program per input shape): a set is kept as a sorted array with a mask
of the entries that belong to it (``unique``: the first of each run of equal values), and the
number of entries selected is an output. Only the last step, taking the selected entries, has
the data's length; it runs at a bucketed length (``_unique_outputs``,
``npjax._core._buckets.pick``).

Moved from ``npjax/_library/_selection.py``; the NumPy-facing wrappers are in
``npjax/_library/_sorting.py``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jax import lax

from npjax._pure import _dtypes
from npjax._pure._boolsums import running_count
from npjax._pure._impl.positions import selected, true_positions
from npjax._pure._impl.sorting import _bsearch, _eq, _keys, _lexsort, _nan_bits, _sort_last

_INTP = np.dtype(np.intp)


def _nan_mask(x: jax.Array) -> jax.Array:
    if x.dtype.kind == "f":
        return _nan_bits(x)
    if x.dtype.kind == "c":
        return _nan_bits(jnp.real(x)) | _nan_bits(jnp.imag(x))
    return jnp.zeros(x.shape, bool)


@functools.partial(jax.jit, static_argnames=("equal_nan",))
def _unique_core(ar: jax.Array, equal_nan: bool) -> tuple:
    """Sorted values, the sorting permutation, the first-of-a-run mask and its number of
    True entries (``ar`` non-empty, flattened)."""
    ar = ar.ravel()
    values, perm = _sort_last(ar, "both")
    mask = jnp.concatenate([jnp.ones(1, bool), ~_eq(values[1:], values[:-1])])
    if equal_nan and ar.dtype.kind in "fc":
        nan = _nan_mask(values)
        first = jnp.argmax(nan)
        mask = jnp.where(nan & nan[-1], jnp.arange(ar.shape[0]) == first, mask)
    return values, perm, mask, jnp.sum(mask, dtype=_INTP)


@jax.jit
def _unique_rows_core(ar: jax.Array) -> tuple:
    """``_unique_core`` over the rows of a 2-D array (non-empty; NaN rows never equal)."""
    perm = _lexsort(tuple(ar[:, j] for j in range(ar.shape[1]))[::-1], 0)
    rows = ar[perm]
    neq = jnp.any(~_eq(rows[1:], rows[:-1]), axis=1)
    mask = jnp.concatenate([jnp.ones(1, bool), neq])
    return rows, perm, mask, jnp.sum(mask, dtype=_INTP)


@functools.partial(jax.jit, static_argnames=("size", "index", "counts", "rest", "axis"))
def _unique_outputs(values: jax.Array, perm: jax.Array, sel: tuple, *, size: int,
                    index: bool, counts: bool, rest: tuple = (), axis: int = 0) -> tuple:
    """NumPy's ``unique`` outputs of data-dependent length from a ``_unique_core`` and the
    positions of the first of each run (``sel``, padded with the input's length): the unique
    values (rows reshaped to ``(size,) + rest`` and moved to ``axis``), first indices and
    counts, their first ``count`` entries the result and the rest padding."""
    n = perm.shape[0]
    first = selected(sel, size, n)
    at = jnp.minimum(first, n - 1)
    uniq = jnp.moveaxis(values[at].reshape((size,) + rest), 0, axis)
    out = [uniq]
    if index:
        out.append(perm[at])
    if counts:
        out.append(jnp.diff(jnp.append(first, n)))
    return tuple(out)


@functools.partial(jax.jit, static_argnames=("shape",))
def _unique_inverse(perm: jax.Array, mask: jax.Array, shape: tuple) -> jax.Array:
    """``unique``'s inverse from a ``_unique_core`` (one program per shape), as ``shape``."""
    inverse = jnp.zeros(perm.shape[0], _INTP).at[perm].set(running_count(mask).astype(_INTP) - 1)
    return inverse.reshape(shape)


def _sort_valid_first(x: jax.Array, valid: jax.Array) -> tuple:
    """Stable sort of 1-D ``x`` with the ``valid`` entries first: values, permutation and
    the sorted validity."""
    keys = [(~valid).astype(np.uint8), *_keys(x)]
    iota = jnp.arange(x.shape[0], dtype=_INTP)
    perm = lax.sort((*keys, iota), num_keys=len(keys), is_stable=True)[-1]
    return x[perm], perm, valid[perm]


@functools.partial(jax.jit, static_argnames=("dtype", "indices"))
def _intersect_core(v1: jax.Array, valid1: jax.Array, perm1: jax.Array, v2: jax.Array,
                    valid2: jax.Array, perm2: jax.Array, dtype: np.dtype,
                    indices: bool) -> tuple:
    """NumPy's ``intersect1d`` over two sets (values, the mask of entries in the set, and the
    positions they came from in the input).

    Returns which of the sorted values (all but the last) start a pair of equal values, then
    ``[count, bad]`` (how many do; whether NumPy's index arithmetic fails), the values and,
    with ``indices``, their positions in each input. NumPy computes those positions from
    indices into the concatenation of the two sets: when promotion makes two values of the
    first set equal (int64 beyond 2**53 against floats), its index into the second set is
    negative and wraps around, or is out of range (IndexError: ``bad``). The same arithmetic
    is done here on each entry's rank in its set.
    """
    n1, n2 = v1.shape[0], v2.shape[0]
    aux = jnp.concatenate([v1.astype(dtype), v2.astype(dtype)])
    valid_both = jnp.concatenate([valid1, valid2])
    values, order, valid = _sort_valid_first(aux, valid_both)
    same = _eq(values[1:], values[:-1]) & valid[1:]
    count = jnp.sum(same, dtype=_INTP)
    if not indices:
        return same, jnp.stack([count, jnp.zeros((), _INTP)]), values[:-1]
    c1, c2 = jnp.sum(valid1, dtype=_INTP), jnp.sum(valid2, dtype=_INTP)
    rank = (running_count(valid_both).astype(_INTP) - 1)[order]  # index into the two sets
    i1, i2 = rank[:-1], rank[1:] - c1
    bad = jnp.any(same & ((i1 >= c1) | (i2 < -c2)))
    first1 = perm1[true_positions(valid1, n1)]  # the sets' members' positions
    first2 = perm2[true_positions(valid2, n2)]
    ind1 = first1[jnp.clip(i1, 0, n1 - 1)]
    ind2 = first2[jnp.clip(jnp.where(i2 < 0, i2 + c2, i2), 0, n2 - 1)]
    return same, jnp.stack([count, bad.astype(_INTP)]), values[:-1], ind1, ind2


@functools.partial(jax.jit, static_argnames=("dtype",))
def _setxor_core(v1: jax.Array, valid1: jax.Array, v2: jax.Array, valid2: jax.Array,
                 dtype: np.dtype) -> tuple:
    """NumPy's ``setxor1d`` over two sets (values and the mask of entries in the set): the
    sorted values, which of them are in exactly one set, and how many are."""
    aux = jnp.concatenate([v1.astype(dtype), v2.astype(dtype)])
    values, _, valid = _sort_valid_first(aux, jnp.concatenate([valid1, valid2]))
    n = jnp.sum(valid, dtype=_INTP)
    at = jnp.arange(1, values.shape[0])
    flag = jnp.concatenate([jnp.ones(1, bool), ~_eq(values[1:], values[:-1]) | (at >= n),
                            jnp.ones(1, bool)])
    keep = flag[1:] & flag[:-1] & valid
    return values, keep, jnp.sum(keep, dtype=_INTP)


@functools.partial(jax.jit, static_argnames=("found",))
def _setdiff_keep(v1: jax.Array, valid1: jax.Array, table: jax.Array, found: bool) -> tuple:
    """Entries of the set ``v1`` (values, mask of entries in it) not in ``table`` (``found``:
    those in it), and how many."""
    hit = _in_sorted(v1, table)
    keep = valid1 & (hit if found else ~hit)
    return keep, jnp.sum(keep, dtype=_INTP)


@jax.jit
def _in_sorted_set(v1: jax.Array, valid1: jax.Array, v2: jax.Array) -> tuple:
    """Entries of the set ``v1`` (values, mask of entries in it) found in the sorted ``v2``
    (same dtype), how many, and where each is first in ``v2``."""
    at = _bsearch(v2, v1, False)
    inside = jnp.minimum(at, v2.shape[0] - 1)
    keep = valid1 & (at < v2.shape[0]) & _eq(v2[inside], v1)
    return keep, jnp.sum(keep, dtype=_INTP), inside


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
