"""Values stored by ``a[index] = value``, converted as NumPy converts them.

Host values (Python scalars, lists, NumPy arrays and scalars) are converted by NumPy itself
on the host, so ``int_array[0] = 2.9`` stores 2, ``int8_array[0] = 1000`` raises
``OverflowError`` and NaN into an integer array raises ``ValueError``; device values are cast
by the update kernel, except where JAX's cast is not NumPy's (floats into integers:
``_casts``). Under ``npjax.jit`` a traced NumPy scalar is cast on the device with a
device-side check.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core import _casts
from npjax._pure._axes import shape_text
from npjax._pure._dtypes import is_device_dtype
from npjax._pure._errors import ComplexWarning
from npjax._runtime._errstate import _stacklevel
from npjax._core._executor import DEVICE_VALUES, device_check, traced_value
from npjax._core._ndarray import ndarray
from npjax._core._normalize import array_method_value, to_jax

_HOST_SCALARS = (int, float, complex, bool, np.generic)
_FLOAT64 = np.dtype(np.float64)


def _value_shape(value_shape: tuple, target: tuple, empty_advanced: bool = False,
                 advanced: bool = False) -> None:
    """Raise NumPy's ValueError unless a value of ``value_shape`` fits ``target`` (NumPy drops
    extra leading 1s of the value; any extra leading dims of an empty value when an advanced
    index selects nothing). ``advanced``: NumPy's message of a fancy index."""
    given = value_shape
    extra = len(value_shape) - len(target)
    if extra > 0 and ((empty_advanced and 0 in value_shape) or
                      all(n == 1 for n in value_shape[:extra])):
        value_shape = value_shape[extra:]
    while not advanced and len(given) > len(target) and given[0] == 1:
        given = given[1:]  # NumPy's message names the value without its extra leading 1s
    if len(value_shape) <= len(target) and all(
            v in (1, t) for v, t in zip(value_shape[::-1], target[::-1])):
        return
    given, target = shape_text(given), shape_text(target)
    if advanced:
        raise ValueError(f"shape mismatch: value array of shape {given} could not be broadcast "
                         f"to indexing result of shape {target}")
    raise ValueError(f"could not broadcast input array from shape {given} into shape {target}")


def _complex_warning(from_dtype: np.dtype, to_dtype: np.dtype) -> None:
    if from_dtype.kind == "c" and to_dtype.kind not in "cb":  # (to bool: nonzero, silent)
        warnings.warn("Casting complex values to real discards the imaginary part",
                      ComplexWarning, stacklevel=_stacklevel())  # at the user's line


def _held(value: Any) -> bool:
    """Whether ``value`` is an npjax host array of a dtype the device cannot hold (object,
    str; float64 and complex128 on a TPU, ``_capabilities.HOST_DTYPES``; not a traced one)."""
    return isinstance(value, ndarray) and not is_device_dtype(value.dtype) and \
        value._host() is not None


def _single_value(value: Any, dtype: np.dtype) -> Any:
    """The value for one element, converted as NumPy converts it (``arr[i] = value``)."""
    if type(value) is float and dtype == _FLOAT64:  # exact as it is: skip the host array
        return value
    if _held(value):  # (float64 on a TPU, object...: its host data, converted by NumPy)
        if not value._scalar:
            _complex_warning(value.dtype, dtype)
            return _casts.cast(value._fetch(), dtype)
        value = value._host_scalar()
    if isinstance(value, ndarray | jax.Array):
        if value.ndim == 0:
            if np.can_cast(value.dtype, dtype, "safe"):
                return value._read_lazy() if isinstance(value, ndarray) else value
            if not (isinstance(value, ndarray) and value._scalar):
                _complex_warning(value.dtype, dtype)
                return value._read_lazy() if isinstance(value, ndarray) else value
            if (traced := traced_value(value)) is not None:  # (npjax.jit)
                return _traced_scalar(traced, dtype)
        value = value._host_scalar() if isinstance(value, ndarray) and value._scalar else \
            np.asarray(value)
    tmp = np.empty((), dtype)
    tmp[()] = value
    return tmp


def _traced_scalar(v: jax.Array, dtype: np.dtype) -> jax.Array:
    """npjax.jit: a traced NumPy scalar stored into an array of ``dtype``. NumPy converts it
    on the host (as a Python value); here it is cast on the device, and a device-side check
    (conservative) sends the call to eager NumPy semantics when the two could differ."""
    bad = jnp.zeros((), bool)
    if v.dtype.kind == "c" and dtype.kind != "c":
        bad = v.imag != 0  # NumPy warns (ComplexWarning)
        v = jnp.real(v)
    src = np.dtype(v.dtype)
    if dtype.kind in "iu" and src.kind == "f":
        info = np.iinfo(dtype)
        t = jnp.trunc(v)
        bad = bad | ~jnp.isfinite(v) | (t < float(info.min)) | (t >= float(info.max + 1))
    elif dtype.kind in "iu" and src.kind in "iu" and not np.can_cast(src, dtype):
        info, sinfo = np.iinfo(dtype), np.iinfo(src)
        bad = bad | (v < max(info.min, sinfo.min)) | (v > min(info.max, sinfo.max))
    elif dtype.kind in "fc" and src.kind in "fc":
        bad = bad | (jnp.isfinite(v) & ~jnp.isfinite(v.astype(dtype)))  # NumPy warns
    device_check(bad)
    return v


def convert_value(value: Any, dtype: np.dtype, target: tuple, advanced: bool = False) -> Any:
    """A value to store into a ``target``-shaped region of an array of ``dtype``, converted
    as NumPy's setitem does: a host ``numpy.ndarray`` or a ``jax.Array`` (cast later)."""
    if isinstance(value, ndarray) and value._scalar and not advanced and not np.can_cast(
            value.dtype, dtype, "safe"):
        if (traced := traced_value(value)) is not None:  # (npjax.jit)
            return _traced_scalar(traced, dtype)
        value = value._host_scalar()  # a NumPy scalar: NumPy converts it as a Python value
    if _held(value):
        value = value._fetch()  # (its host data, cast below by NumPy)
    if isinstance(value, ndarray | jax.Array):
        _complex_warning(value.dtype, dtype)
        if isinstance(value, ndarray):  # basic writes are recorded in lazy mode
            v = value._read() if advanced else value._read_lazy()
        else:
            v = value
    elif isinstance(value, np.ndarray):  # NumPy's cast, its warnings at the caller's line
        _complex_warning(value.dtype, dtype)
        v = _casts.cast(value, dtype)
    elif (converted := array_method_value(value)) is not value:  # (``__array__``: an array)
        return convert_value(converted, dtype, target, advanced)
    elif advanced:
        v = np.asarray(value, dtype=dtype)
    elif isinstance(value, _HOST_SCALARS):
        v = np.empty((), dtype)
        v[...] = value
    elif isinstance(value, list | tuple) and any(
            isinstance(x, ndarray | jax.Array) for x in value):
        v = to_jax(value)
        _complex_warning(v.dtype, dtype)
    else:  # lists and other host objects: NumPy fills the target region itself
        v = np.empty(target, dtype)
        v[...] = value
        return v
    _value_shape(v.shape, target, advanced and 0 in target, advanced)
    return v


def cast_device(v: Any, dtype: np.dtype) -> Any:
    """A device value to store into an array of ``dtype``, cast by ``_casts`` where JAX's
    cast is not NumPy's (floats to integers: NaN, infinities, out of range). Host values are
    NumPy's already; other device values are cast by the update kernel."""
    if isinstance(v, DEVICE_VALUES):
        return _casts.precast(v, dtype)
    return v


def as_value(value: Any, dtype: np.dtype) -> Any:
    """A value to store into an array of ``dtype`` as NumPy's fancy assignment converts it
    (``numpy.asarray(value, dtype)`` on the host; device values are returned as they are)."""
    if _held(value):  # (float64 on a TPU, object...: NumPy's cast of its host data)
        _complex_warning(value.dtype, dtype)
        return to_jax(_casts.cast(value._fetch(), dtype))
    if isinstance(value, ndarray | jax.Array):
        _complex_warning(value.dtype, dtype)
        return value._read() if isinstance(value, ndarray) else value
    return to_jax(np.asarray(value, dtype=dtype))
