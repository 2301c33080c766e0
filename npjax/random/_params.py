"""Draw parameters read as NumPy reads them: ``size`` (``size_shape``), distribution
parameters as float64/int64 arrays (``as_param``) and the broadcast shape of a draw."""

from __future__ import annotations

import operator
from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import ndarray
from npjax._execution._lazy_cold import on_cpu_backend
from npjax.random._bridge import held_data, to_host

# --- parameters ------------------------------------------------------------------------------

def size_shape(size: Any) -> tuple[int, ...]:
    """NumPy's ``np.empty(size)`` reading of ``size`` (TypeError / ValueError as NumPy)."""
    if isinstance(size, ndarray):
        size = to_host(size)
    try:
        dims = (operator.index(size),)
    except TypeError:
        dims = tuple(operator.index(d) for d in size)
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


def as_param(value: Any, kind: str = "f") -> Any:
    """A distribution parameter as a host NumPy array or a ``jax.Array`` (float64 / int64)."""
    target = np.float64 if kind == "f" else np.int64
    if isinstance(value, ndarray) and (held := held_data(value)) is not None:
        value = held  # (read as NumPy's data below: float64 on a TPU, str...)
    if isinstance(value, ndarray | jax.Array):
        arr = value._read() if isinstance(value, ndarray) else value
        if np.dtype(arr.dtype).kind == "c" and kind == "f":
            raise TypeError(f"Cannot cast array data from {arr.dtype} to float64")
        return arr.astype(target)
    arr = np.asarray(value)
    if kind == "f":
        if arr.dtype.kind in "cOSUV" and not np.can_cast(arr.dtype, np.float64):
            if arr.dtype.kind in "SU":
                raise ValueError(f"could not convert string to float: {value!r}")
            raise TypeError(f"Cannot cast array data from {arr.dtype} to float64")
        return arr.astype(np.float64)
    return arr.astype(np.int64)


def _scalar_value(arr: Any, kind: str) -> float | int:
    return float(arr) if kind == "f" else int(arr)


def _broadcast_size(size: Any, shapes: list) -> tuple[int, ...]:
    if size is None:
        return np.broadcast_shapes(*shapes)
    shape = size_shape(size)
    if shapes:
        try:
            full = np.broadcast_shapes(shape, *shapes)
        except ValueError:
            full = None
        if full != shape:
            raise ValueError(f"Output size {shape} is not compatible with broadcast "
                             f"dimensions of inputs {np.broadcast_shapes(*shapes)}.")
    return shape


def _device_arg(arr: Any) -> Any:
    """A NumPy parameter as a JAX value: on the CPU backend where the accelerator cannot
    hold its dtype (float64 on a TPU: 1e300 would come back inf), else on the device."""
    if isinstance(arr, np.ndarray):
        on_cpu = on_cpu_backend(arr)
        return jax.device_put(arr) if on_cpu is None else on_cpu
    return arr
