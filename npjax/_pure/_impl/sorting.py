"""Pure-JAX sorting cores: NumPy's sort order as integer keys, stable sorts, binary search
and lexsort (``jax.Array`` in, ``jax.Array`` out).

Orderings are NumPy's: NaN sorts last, ``-0.0`` equals ``0.0``, complex numbers sort
lexicographically with NumPy's NaN classes (``R+Rj < R+nanj < nan+Rj < nan+nanj``). Every
value is mapped to integer sort keys with exactly that order (``_keys``), so sorting, binary
search and lexsort share one definition of "less than".

Moved from ``npjax/_library/_selection.py``; the NumPy-facing wrappers are in
``npjax/_library/_sorting.py``.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure._capabilities import route

_INTP = np.dtype(np.intp)

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


def _stable_sort(keys: list, iota: jax.Array) -> tuple:
    """``lax.sort`` of ``(*keys, iota)`` along the last axis, stable, by the keys (most
    significant first); NumPy's stable sort on the host where the backend's sort compiles
    too slowly (``_capabilities.TABLE["sort"]``)."""
    last = iota.ndim - 1

    def on_device(*ops: jax.Array) -> tuple:
        return tuple(lax.sort(ops, dimension=last, num_keys=len(ops) - 1, is_stable=True))

    def on_host(*ops: np.ndarray) -> tuple:
        ks = ops[:-1]
        perm = (np.argsort(ks[0], axis=-1, kind="stable") if len(ks) == 1
                else np.lexsort(ks[::-1], axis=-1))
        return tuple(np.take_along_axis(a, perm, axis=-1) for a in ops)

    return route("sort", keys[0].dtype, on_device, on_host, *keys, iota)


@functools.partial(jax.jit, static_argnames=("want",))
def _sort_last(x: jax.Array, want: str) -> Any:
    """Stable sort along the last axis: values, indices or both; "ties": the indices and
    whether two elements of a lane compare equal (where an unstable sort may order them
    otherwise), from the sorted keys, in the same program."""
    keys = _keys(x)
    iota = lax.broadcasted_iota(_INTP, x.shape, x.ndim - 1)
    out = _stable_sort(keys, iota)
    perm = out[-1]
    if want == "indices":
        return perm
    if want in ("ties", "value_ties"):
        same = jnp.ones(x.shape[:-1] + (max(x.shape[-1] - 1, 0),), bool)
        for k in out[:-1]:
            same = same & (k[..., 1:] == k[..., :-1])
        if want == "ties":
            return perm, jnp.any(same)
        # values: ties show only between equal values of other bits (-0.0 and 0.0, NaNs)
        values = jnp.take_along_axis(x, perm, axis=-1)
        parts = (jnp.real(values), jnp.imag(values)) if x.dtype.kind == "c" else (values,)
        differ = jnp.zeros(same.shape, bool)
        for p in parts:
            b = lax.bitcast_convert_type(p, _INT_OF[p.dtype.itemsize])
            differ = differ | (b[..., 1:] != b[..., :-1])
        return values, jnp.any(same & differ)
    values = jnp.take_along_axis(x, perm, axis=-1)
    return values if want == "values" else (values, perm)


@functools.partial(jax.jit, static_argnames=("axis", "want"))
def _sort_axis(x: jax.Array, axis: int | None, want: str) -> Any:
    if axis is None:
        return _sort_last(x.ravel(), want)
    last = x.ndim - 1
    if axis == last:
        return _sort_last(x, want)
    got = _sort_last(jnp.moveaxis(x, axis, last), want)
    if want in ("ties", "value_ties"):
        return jnp.moveaxis(got[0], last, axis), got[1]
    return jnp.moveaxis(got, last, axis)


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


@functools.partial(jax.jit, static_argnames=("axis",))
def _lexsort(cols: tuple, axis: int) -> jax.Array:
    last = cols[0].ndim - 1
    keys = [k for c in reversed(cols) for k in _keys(jnp.moveaxis(c, axis, last))]
    iota = lax.broadcasted_iota(_INTP, keys[0].shape, last)
    perm = _stable_sort(keys, iota)[-1]
    return jnp.moveaxis(perm, last, axis)
