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
    significant first)."""
    return tuple(lax.sort((*keys, iota), dimension=iota.ndim - 1, num_keys=len(keys),
                          is_stable=True))


def _host_same(v: np.ndarray) -> np.ndarray:
    """NumPy's stable order's ties between neighbours of sorted ``v`` (last axis): equal
    values, ``-0.0 == 0.0``, NaNs equal to NaNs (of the same real/imaginary class)."""
    def eq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b

    if v.dtype.kind != "c":
        return eq(v[..., 1:], v[..., :-1])
    return eq(v.real[..., 1:], v.real[..., :-1]) & eq(v.imag[..., 1:], v.imag[..., :-1])


def _sort_last_host(x: np.ndarray, want: str) -> Any:
    """``_sort_last`` by NumPy's stable sort (the backends whose sorts the capability table
    sends to the host: their keys of emulated float64 bits are not exact)."""
    perm = np.argsort(x, axis=-1, kind="stable")
    if want == "indices":
        return perm
    values = np.take_along_axis(x, perm, axis=-1)
    if want == "ties":
        return perm, np.any(_host_same(values))
    if want == "value_ties":
        same = _host_same(values)
        differ = np.zeros(same.shape, bool)
        for p in (values.real, values.imag) if x.dtype.kind == "c" else (values,):
            b = p.view(_INT_OF[p.dtype.itemsize]) if p.dtype.kind == "f" else p
            differ |= b[..., 1:] != b[..., :-1]
        return values, np.any(same & differ)
    return values if want == "values" else (values, perm)


@functools.partial(jax.jit, static_argnames=("want",))
def _sort_last(x: jax.Array, want: str) -> Any:
    """Stable sort along the last axis: values, indices or both; "ties": the indices and
    whether two elements of a lane compare equal (where an unstable sort may order them
    otherwise), from the sorted keys, in the same program. NumPy's on the host where the
    backend's sort is too slow to compile or inexact (``_capabilities.TABLE["sort"]``)."""
    return route("sort", x.dtype, functools.partial(_sort_last_device, want=want),
                 functools.partial(_sort_last_host, want=want), x)


def _sort_last_device(x: jax.Array, want: str) -> Any:
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
    side = "right" if right else "left"
    return route("sort", a.dtype, functools.partial(_bsearch_device, right=right),
                 lambda a, v: np.searchsorted(a, v, side).astype(_INTP), a, v)


def _bsearch_device(a: jax.Array, v: jax.Array, right: bool) -> jax.Array:
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
    cols = tuple(jnp.moveaxis(c, axis, last) for c in cols)

    def on_device(*cols: jax.Array) -> jax.Array:
        keys = [k for c in reversed(cols) for k in _keys(c)]
        return _stable_sort(keys, lax.broadcasted_iota(_INTP, keys[0].shape, last))[-1]

    def on_host(*cols: np.ndarray) -> np.ndarray:
        return np.lexsort(cols, axis=-1)

    wide = max(cols, key=lambda c: (c.dtype.kind in "fc", c.dtype.itemsize)).dtype
    return jnp.moveaxis(route("sort", wide, on_device, on_host, *cols), last, axis)
