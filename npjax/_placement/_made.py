"""Placement of arrays NumPy made outside the host route (files, buffers, grids of Python
numbers, fallbacks, host functions): ``place_made``, and ``from_device`` for its inputs."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import _CONSTRUCTOR, ndarray
from npjax._core._normalize import to_jax
from npjax._placement._route import device_dtype_of, npjax_operands, place_result
from npjax._pure._dtypes import MAX_DEVICE_NDIM
from npjax._runtime import _context


def place_made(result: Any, device: bool = False) -> Any:
    """A new array NumPy made outside the host route (read from a file or a buffer, a grid of
    Python numbers, a fallback's or a host function's result), placed as the host route
    places its results: a host array when the policy computes a result of its size on the
    host and it was not made from a device array (``device``: ``from_device`` of its
    inputs), else moved once to the policy's device. On the host route NumPy's scalars stay
    NumPy's; host-only dtypes are host arrays whatever the policy; a NumPy subclass
    instance (``memmap``) becomes a plain copy. The one placement decision of every
    array-making function that does not itself run through ``try_host``: never ``to_jax`` a
    new host array directly."""
    if type(result) is not np.ndarray:
        if isinstance(result, np.ndarray):
            result = np.array(result, subok=False)
        elif isinstance(result, np.generic):
            if not device_dtype_of(result.dtype):
                return result
            limit = _context.get().host
            if limit >= 0 and not device:
                return result
            return ndarray._owner(to_jax(np.asarray(result)), True)
        else:
            return result
    if not device_dtype_of(result.dtype) or result.ndim > MAX_DEVICE_NDIM:  # no device form:
        # a host array whatever the policy
        return place_result(result, (), -1)
    limit = _context.get().host
    if limit >= 0 and not device:
        return place_result(result, (), limit)
    return ndarray._owner(to_jax(result))


def from_device(inputs: Any) -> bool:
    """Whether any of ``inputs`` (one level into lists, tuples and dicts) is a device array
    (an npjax device array or a ``jax.Array``)."""
    if isinstance(inputs, dict):
        inputs = inputs.values()
    for x in inputs:
        if type(x) is ndarray or isinstance(x, ndarray):
            if x._host() is None:
                return True
        elif isinstance(x, jax.Array):
            return True
        elif type(x) is list or type(x) is tuple:
            if any(isinstance(y, jax.Array) or (isinstance(y, ndarray) and y._host() is None)
                   for y in x):
                return True
    return False


def place_numpy(result: Any, args: tuple, kwargs: dict) -> Any:
    """The result of NumPy's own code run on the arguments ``args``/``kwargs`` (npjax arrays
    handed to it as their NumPy data: host arrays share their memory), placed as the host
    route places its results: NumPy's arrays become npjax arrays (a view of an argument's
    memory a view of that argument), on the device under a device policy or beside a device
    argument; host-only dtypes are host arrays; anything else (NumPy's scalars, its
    subclasses such as ``recarray`` and ``MaskedArray``) as it is."""
    limit = _context.get().host
    device = limit < 0 or from_device(args) or from_device(kwargs)
    return place_result(result, npjax_operands(args, kwargs), -1 if device else limit)


def as_arrays(result: Any) -> Any:
    """A result as arrays (a ufunc's ``out=...``): scalars, NumPy's or npjax's, become 0-d
    arrays placed as new ones; a tuple item by item."""
    if isinstance(result, tuple):
        return tuple(as_arrays(r) for r in result)
    if isinstance(result, ndarray) and not result._scalar:
        return result
    return place_made(np.asarray(result), from_device((result,)))


def constructed(shape: Any, dtype: Any, buffer: Any, offset: Any, strides: Any,
                order: Any) -> Any:
    """The storage of ``npjax.ndarray(shape, dtype, buffer, offset, strides, order)``: NumPy's
    constructor makes the array (its errors, layout and flags). Without ``buffer``, zeros
    where NumPy leaves memory uninitialised (an object array holds None, as NumPy's), placed
    as any new array; with one, a host array over the buffer's memory, as NumPy's (writes
    reach the buffer; read-only over ``bytes``), whatever the policy."""
    data = np.ndarray(shape, dtype, buffer, offset, strides, order)
    if buffer is not None:
        return data
    if not data.dtype.hasobject:
        data[...] = np.zeros((), data.dtype)  # ('' for strings; fill(0) would write '0')
    return place_made(data)._value


_CONSTRUCTOR.append(constructed)  # ``ndarray(shape...)`` (``_ndarray``)
