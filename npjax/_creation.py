"""Array creation: ``array``/``asarray`` and the filled-array constructors.

Defaults are NumPy's (float64, int64) unless the policy asks for ``x64=False``. New arrays
are placed on the policy's device.
"""

from __future__ import annotations

import operator
from typing import Any

import jax.numpy as jnp
import numpy as np

from npjax import _dtypes
from npjax._dispatch import DTypeIn, Unsupported, npfunc
from npjax._ndarray import ndarray
from npjax._normalize import place, to_jax
from npjax._policy import current

__all__ = ["array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
           "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
           "full_like", "arange"]


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | np.integer) or hasattr(shape, "__index__"):
        shape = (operator.index(shape),)
    shape = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _default_dtype(dtype: Any) -> np.dtype:
    if dtype is None:
        return _dtypes.default_float(current().x64)
    return np.dtype(dtype)


def array(object: Any, dtype: Any = None, *, copy: bool | None = True, order: str = "K",
          subok: bool = False, ndmin: int = 0, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.array``: a new array on the policy's device."""
    if like is not None:
        raise NotImplementedError("npjax.array: parameter 'like' is not supported")
    dtype = _dtypes.canonical_dtype(dtype)
    if isinstance(object, ndarray) and copy is not True:
        if (dtype is None or dtype == object.dtype) and object.ndim >= ndmin:
            return object
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
    elif copy is False and not isinstance(object, ndarray):
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    value = to_jax(object, current(), dtype)
    if value.ndim < ndmin:
        value = value.reshape((1,) * (ndmin - value.ndim) + value.shape)
    if isinstance(object, ndarray) and value is object._read():
        return object.copy()
    return ndarray._owner(value)


def asarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None,
            copy: bool | None = None, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asarray``: no copy when ``a`` already fits."""
    if device is not None:
        raise NotImplementedError("npjax.asarray: parameter 'device' is not supported")
    return array(a, dtype, copy=copy, like=like)


def asanyarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None,
               copy: bool | None = None, like: Any = None) -> ndarray:
    return asarray(a, dtype, order, device=device, copy=copy, like=like)


def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> ndarray:
    out = array(a, dtype, copy=None, ndmin=1, like=like)
    return out if out.flags.c_contiguous else out.copy()


def asfortranarray(a: Any, dtype: Any = None, *, like: Any = None) -> ndarray:
    out = array(a, dtype, copy=None, ndmin=1, like=like)
    return out if out.flags.f_contiguous else out.copy()


def _filled(shape: Any, fill: Any, dtype: np.dtype) -> ndarray:
    shape = _shape(shape)
    if isinstance(fill, ndarray):
        value = jnp.broadcast_to(fill._read().astype(dtype), shape)
    else:
        value = jnp.full(shape, np.asarray(fill, dtype=dtype), dtype)
    return ndarray._owner(place(value, current()))


@npfunc
def zeros(shape: Any, dtype: DTypeIn = None, order: str = "C", *,
          device: Unsupported(None) = None, like: Unsupported(None) = None) -> ndarray:
    return _filled(shape, 0, _default_dtype(dtype))


@npfunc
def ones(shape: Any, dtype: DTypeIn = None, order: str = "C", *,
         device: Unsupported(None) = None, like: Unsupported(None) = None) -> ndarray:
    return _filled(shape, 1, _default_dtype(dtype))


@npfunc
def empty(shape: Any, dtype: DTypeIn = None, order: str = "C", *,
          device: Unsupported(None) = None, like: Unsupported(None) = None) -> ndarray:
    """Like ``numpy.empty``; the contents are zeros (JAX has no uninitialised memory)."""
    return _filled(shape, 0, _default_dtype(dtype))


def _fill_dtype(fill_value: Any) -> np.dtype:
    if isinstance(fill_value, ndarray):
        return fill_value.dtype
    host = np.asarray(fill_value)
    return _dtypes.narrow_default(host.dtype, current().x64) if not isinstance(
        fill_value, np.generic | np.ndarray) else host.dtype


@npfunc
def full(shape: Any, fill_value: Any, dtype: DTypeIn = None, order: str = "C", *,
         device: Unsupported(None) = None, like: Unsupported(None) = None) -> ndarray:
    return _filled(shape, fill_value, dtype if dtype is not None else _fill_dtype(fill_value))


def _like_shape(a: Any, shape: Any) -> tuple:
    return _shape(shape) if shape is not None else np.shape(a) if not isinstance(
        a, ndarray) else a.shape


def _like_dtype(a: Any, dtype: Any) -> np.dtype:
    if dtype is not None:
        return np.dtype(dtype)
    return a.dtype if isinstance(a, ndarray) else to_jax(a).dtype


@npfunc
def zeros_like(a: Any, dtype: DTypeIn = None, order: str = "K", subok: bool = True,
               shape: Any = None, *, device: Unsupported(None) = None) -> ndarray:
    return _filled(_like_shape(a, shape), 0, _like_dtype(a, dtype))


@npfunc
def ones_like(a: Any, dtype: DTypeIn = None, order: str = "K", subok: bool = True,
              shape: Any = None, *, device: Unsupported(None) = None) -> ndarray:
    return _filled(_like_shape(a, shape), 1, _like_dtype(a, dtype))


@npfunc
def empty_like(prototype: Any, dtype: DTypeIn = None, order: str = "K", subok: bool = True,
               shape: Any = None, *, device: Unsupported(None) = None) -> ndarray:
    return _filled(_like_shape(prototype, shape), 0, _like_dtype(prototype, dtype))


@npfunc
def full_like(a: Any, fill_value: Any, dtype: DTypeIn = None, order: str = "K",
              subok: bool = True, shape: Any = None, *,
              device: Unsupported(None) = None) -> ndarray:
    return _filled(_like_shape(a, shape), fill_value, _like_dtype(a, dtype))


def arange(start: Any = None, stop: Any = None, step: Any = None, dtype: Any = None, *,
           device: Any = None, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.arange`` (the values are NumPy's, computed on host)."""
    if device is not None or like is not None:
        raise NotImplementedError("npjax.arange: parameters 'device' and 'like' are not "
                                  "supported")
    if start is None and stop is None:
        raise TypeError("arange() requires stop to be specified.")
    args = [v._host_scalar() if isinstance(v, ndarray) else v for v in (start, stop, step)]
    args = [a for a in args if a is not None] if stop is not None else [args[0]]
    host = np.arange(*args, dtype=dtype)
    if dtype is None and not current().x64:
        host = host.astype(_dtypes.narrow_default(host.dtype, False))
    return ndarray._owner(to_jax(host))
