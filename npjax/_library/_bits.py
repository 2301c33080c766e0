"""Bit packing: packbits, unpackbits (uint8 results; one compiled kernel per shape/axis)."""

from __future__ import annotations

import functools
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._calls._dispatch import npfunc
from npjax._pure._axes import normalize_axis
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._runtime._context import current

__all__ = ["packbits", "unpackbits"]

_U8 = np.dtype(np.uint8)


def _prepare(a: Any, axis: Any, kinds: str, msg: str) -> tuple[jax.Array, int]:
    x = to_jax(a, current())
    if x.dtype.kind not in kinds or (kinds == "u" and x.dtype != _U8):
        raise TypeError(msg)
    if axis is None:
        return x.reshape(-1), 0
    if x.ndim == 0:
        x = x.reshape(1)
    return x, normalize_axis(operator.index(axis), x.ndim)


def _order_arg(fn: str, bitorder: Any) -> None:
    if not isinstance(bitorder, str):
        raise TypeError(f"{fn}() argument 3 must be str, not {type(bitorder).__name__}")


@functools.lru_cache(maxsize=128)
def _pack_kernel(axis: int, little: bool):
    def kernel(x):
        n = x.shape[axis]
        bits = (x != 0).astype(_U8)
        pad = (-n) % 8
        if pad:
            widths = [(0, 0)] * x.ndim
            widths[axis] = (0, pad)
            bits = jnp.pad(bits, widths)
        bits = jnp.moveaxis(bits, axis, -1)
        bits = bits.reshape(bits.shape[:-1] + ((n + pad) // 8, 8))
        shifts = np.arange(8, dtype=_U8) if little else np.arange(7, -1, -1, dtype=_U8)
        packed = jnp.sum(bits << shifts, axis=-1, dtype=_U8)
        return jnp.moveaxis(packed, -1, axis)
    return jax.jit(kernel)


@npfunc
def packbits(a: Any, /, axis: Any = None, bitorder: str = "big") -> ndarray:
    """npjax implementation of ``numpy.packbits``."""
    x, ax = _prepare(a, axis, "biu", "Expected an input array of integer or boolean data type")
    _order_arg("pack", bitorder)
    if bitorder.startswith("little"):
        little = True
    elif bitorder.startswith("big"):
        little = False
    else:
        raise ValueError("'order' must be either 'little' or 'big'")
    return ndarray._owner(_pack_kernel(ax, little)(x))


@functools.lru_cache(maxsize=128)
def _unpack_kernel(axis: int, count: int, little: bool):
    def kernel(x):
        shifts = np.arange(8, dtype=_U8) if little else np.arange(7, -1, -1, dtype=_U8)
        y = jnp.moveaxis(x, axis, -1)
        bits = (y[..., None] >> shifts) & np.uint8(1)
        bits = bits.reshape(y.shape[:-1] + (y.shape[-1] * 8,))
        total = bits.shape[-1]
        if count <= total:
            bits = bits[..., :count]
        else:
            bits = jnp.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, count - total)])
        return jnp.moveaxis(bits.astype(_U8), -1, axis)
    return jax.jit(kernel)


@npfunc
def unpackbits(a: Any, /, axis: Any = None, count: Any = None, bitorder: str = "big"
               ) -> ndarray:
    """npjax implementation of ``numpy.unpackbits``."""
    x, ax = _prepare(a, axis, "u", "Expected an input array of unsigned byte data type")
    _order_arg("unpack", bitorder)
    if not bitorder or bitorder[0] not in "lb":
        raise ValueError("'order' must begin with 'l' or 'b'")
    total = x.shape[ax] * 8
    if count is None:
        n = total
    else:
        n = operator.index(count)
        if n < 0:
            n += total
            if n < 0:
                raise ValueError("-count larger than number of elements")
    return ndarray._owner(_unpack_kernel(ax, n, bitorder[0] == "l")(x))
