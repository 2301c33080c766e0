"""Differences along an axis: ``diff`` and ``ediff1d``."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure import _dtypes
from npjax._pure._axes import normalize_axis
from npjax._calls._dispatch import npfunc
from npjax._core._ndarray import ndarray
from npjax._library._selection import _jx

__all__ = ["diff", "ediff1d"]

_NoValue = np._NoValue


# Operands untagged: ``diff`` with ``n=0`` gives ``a`` back as it is (a list stays a list), and
# both read their operands in NumPy's order (errors as NumPy raises them).
@npfunc
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = _NoValue,
         append: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.diff``."""
    return difference(a, n, axis, prepend, append)


def difference(a: Any, n: int = 1, axis: int = -1, prepend: Any = _NoValue,
               append: Any = _NoValue) -> Any:
    """``diff``'s body, for library code (no second pass through the door)."""
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    x = _jx(a)
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, x.ndim)
    parts = []
    for extra, first in ((prepend, True), (append, False)):
        if extra is _NoValue:
            continue
        e = _jx(extra)
        if e.ndim == 0:
            shape = list(x.shape)
            shape[axis] = 1
            e = jnp.broadcast_to(e, tuple(shape))
        parts.append((first, e))
    if parts:
        arrays = [e for f, e in parts if f] + [x] + [e for f, e in parts if not f]
        normalize_axis(axis, arrays[0].ndim)
        for i, e in enumerate(arrays):
            if e.ndim != x.ndim:
                raise ValueError("all the input arrays must have same number of dimensions")
            if any(s != t for d, (s, t) in enumerate(zip(e.shape, x.shape)) if d != axis):
                raise ValueError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but the array at index {i} differs")
        dtype = _dtypes.device_only(_dtypes.result_type(*[e.dtype for e in arrays]))
        x = jnp.concatenate([e.astype(dtype) for e in arrays], axis=axis)
    return ndarray._owner(_diff(x, n, axis))


@functools.partial(jax.jit, static_argnames=("n", "axis"))
def _diff(x: jax.Array, n: int, axis: int) -> jax.Array:
    for _ in range(n):
        m = x.shape[axis]
        hi = lax.slice_in_dim(x, min(1, m), m, axis=axis)
        lo = lax.slice_in_dim(x, 0, max(m - 1, 0), axis=axis)
        x = (hi != lo) if x.dtype == np.bool_ else hi - lo
    return x


@npfunc
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.ediff1d``."""
    x = _jx(ary).ravel()
    dtype = x.dtype
    if dtype == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    parts = []
    for extra, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if extra is None:
            parts.append(None)
            continue
        e = _jx(extra)
        if not _dtypes.can_cast(e.dtype, dtype, "same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                            "`same_kind` rule.")
        parts.append(e.ravel().astype(dtype))
    d = x[1:] - x[:-1]
    pieces = [p for p in (parts[0], d, parts[1]) if p is not None]
    return jnp.concatenate(pieces) if len(pieces) > 1 else d
