"""The one ``out=`` writer: every public callable's ``out=`` is stored here, on every route.

- Host route (NumPy computes): ``out_buffer`` hands NumPy the host storage of an npjax
  ``out`` (NumPy's own shape, casting and read-only checks then apply, and it writes in place;
  ``from_numpy`` gives back ``out`` itself), or says that the device route writes it. The C
  module's ``ufunc_fast_out`` (``_hostpath.c``) is this branch for ``ufunc(a, b, out=c)`` and
  ``ufunc(a, out=c)``.
- Every other route (device eager, lazy, ``npjax.jit``'s trace, NumPy's fallbacks) computes a
  value and ``write_out`` stores it, with NumPy's checks: an npjax array, writable, a shape
  the value broadcasts to, the ``casting=`` rule (``check_cast``, which ufuncs also call before
  computing, as NumPy does), NumPy's values and warnings for the cast into ``out``.
- A NumPy array given as ``out`` to an npjax call through NumPy's protocol:
  ``write_numpy_out`` (NumPy's ``copyto``).

``tests/test_one_door.py`` checks that no other module writes into an ``out`` argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from npjax._core import _casts
from npjax._core._ndarray import HOST_STORAGE, ndarray
from npjax._core._normalize import to_jax
from npjax._pure import _dtypes
from npjax._pure._errors import output_casting_error

__all__ = ["check_cast", "out_buffer", "write_numpy_out", "write_out"]

DEVICE_WRITES = object()  # ``out_buffer``'s answer when the device route must write ``out``


def out_buffer(out: Any) -> Any:
    """What NumPy gets as ``out=`` on the host route: None and ``...`` as they are (NumPy's
    own rules for ``out=...``), a host npjax array's NumPy data (a view's NumPy view; a NumPy
    scalar for a scalar, which NumPy refuses as NumPy does), a tuple of those;
    ``DEVICE_WRITES`` when an ``out`` lives on the device or is not an npjax array (the device
    route writes it, or gives npjax's error)."""
    if out is None or out is Ellipsis:
        return out
    if type(out) is ndarray:
        base = out._base
        if base is None:
            data = out._value
            if type(data) is not HOST_STORAGE:
                return DEVICE_WRITES
            return data[()] if out._scalar else data
        return out._layout if type(base._value) is HOST_STORAGE else DEVICE_WRITES
    if type(out) is tuple:
        buffers = tuple(out_buffer(o) for o in out)
        return DEVICE_WRITES if any(b is DEVICE_WRITES for b in buffers) else buffers
    return DEVICE_WRITES


def check_cast(name: str, casting: str, dtype: Any, out: Any) -> None:
    """NumPy's casting check of a result of ``dtype`` into ``out`` (``casting=``'s rule):
    NumPy's ``UFuncTypeError`` for a ufunc (``name``), else its ``TypeError``."""
    if dtype != out.dtype and not _dtypes.can_cast(dtype, out.dtype, casting):
        raise output_casting_error(name, casting, dtype, out.dtype)


def write_out(out: Any, value: Any, casting: str, name: str, loop: str = "cast") -> ndarray:
    """Store a computed result (a ``jax.Array``, a pending lazy value, a tracer, or NumPy's
    array from a fallback) into the npjax array ``out`` with NumPy's checks, and return
    ``out``. ``loop``: where NumPy says a floating-point error of the cast into ``out``
    happened."""
    if not isinstance(out, ndarray):
        raise TypeError(f"npjax.{name}: 'out' must be an npjax array")
    shape = tuple(value.shape)
    if shape != out.shape:
        try:
            if np.broadcast_shapes(shape, out.shape) != out.shape:
                raise ValueError
        except ValueError:
            raise ValueError(f"non-broadcastable output operand with shape {out.shape} "
                             f"doesn't match the broadcast shape {shape}") from None
    check_cast(name, casting, value.dtype, out)
    data = out._host()
    if not (data.flags.writeable if data is not None else not out._readonly):
        raise ValueError("output array is read-only")
    if type(value) is HOST_STORAGE:
        if data is None:  # NumPy's result for a device ``out``
            value = to_jax(value)
        else:  # NumPy's cast, NumPy's values
            np.copyto(data, value, casting="unsafe")
            return out
    if _casts.needs_check(value.dtype, out.dtype):  # NumPy's values and warnings
        value = _casts.cast(value, out.dtype, loop)
    out._write(value)
    return out


def write_numpy_out(out: np.ndarray, result: Any, casting: str) -> np.ndarray:
    """Store an npjax result into a NumPy array given as ``out`` (NumPy's ``copyto``, its
    casting rule and errors); return ``out``."""
    np.copyto(out, np.asarray(result), casting=casting)
    return out
