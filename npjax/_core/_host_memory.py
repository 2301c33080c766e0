"""The host-memory protocols of npjax arrays: ``__array_interface__``, ``__array_struct__``,
``ctypes``, ``data`` and ``__buffer__`` (PEP 688).

Each of them hands out the address of live memory, which NumPy users rely on: a C library,
``ctypes`` or Cython writes through it, and NumPy wraps it without copying. So:

- A *host* array (placement: its data is a NumPy array) gives its NumPy data's own: the same
  memory, writes through it are writes to the array, and NumPy, ``memoryview``, PIL and
  ``ctypes`` see it as they see a NumPy array.
- A *device* array has no host memory. A host copy would look live while writes to it are
  lost, would have to be kept alive for as long as any pointer to it may be used, and NumPy
  (which asks for these protocols before ``__array__``) would then turn
  ``np.asarray(a, copy=False)`` into a silent copy. These attributes therefore raise
  ``AttributeError`` naming the copy to make (``np.asarray(a)`` or ``npjax.asnumpy(a)``),
  so ``hasattr`` is False, as for any object without host memory, and NumPy's conversion
  falls back to ``__array__`` (a host copy, with NumPy's ``copy=`` rules). ``__buffer__``
  raises ``BufferError`` (the buffer protocol's error).

``memoryview(a)``, ``bytes(a)``, ``struct``, ``array.array`` and NumPy's own conversion read
``__buffer__``: from Python 3.12 on directly (PEP 688), on 3.11 through the buffer slot of the C
base class (``_hostpath.c``, ``array_getbuffer``). Without the C module (no compiler at install,
or ``NPJAX_PURE_PYTHON=1``) Python 3.11 classes cannot export buffers and ``memoryview(a)``
raises Python's ``TypeError``: use ``a.data`` or ``memoryview(np.asarray(a))`` there.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from npjax._core._ndarray import install_methods, ndarray
from npjax._pure._dtypes import is_xla_dtype

_COPY = {"__array_interface__": "np.asarray(a).__array_interface__",
         "__array_struct__": "np.asarray(a).__array_struct__",
         "ctypes": "np.asarray(a).ctypes", "data": "memoryview(np.asarray(a))"}


def _host_data(a: ndarray, name: str) -> np.ndarray:
    """The NumPy data of host array ``a``; for a device array, AttributeError."""
    data = a._host()
    if data is None:
        raise AttributeError(
            f"npjax.ndarray.{name}: this array lives on the device and has no host memory; "
            f"make a host copy with np.asarray(a) or npjax.asnumpy(a) ({_COPY[name]}), "
            "whose writes do not reach the array")
    return data


def _array_interface(self: ndarray) -> dict:
    """NumPy's array interface of a host array's own memory (live: writes reach the array).
    Arrays of a dtype the interface cannot say exactly (a structured view with offsets) have
    none: NumPy takes ``__array__`` instead (the data itself)."""
    data = _host_data(self, "__array_interface__")
    if not is_xla_dtype(data.dtype) and not _exact_interface(data.dtype):
        raise AttributeError("npjax.ndarray.__array_interface__: not given for this dtype "
                             "(np.asarray(a) gives the data itself)")
    return data.__array_interface__


class _Interface:
    def __init__(self, data: np.ndarray) -> None:
        self.__array_interface__ = data.__array_interface__


@functools.lru_cache(maxsize=256)
def _exact_interface(dtype: np.dtype) -> bool:
    """Whether NumPy reads an array of ``dtype`` back from its array interface as that dtype."""
    try:
        return np.asarray(_Interface(np.zeros(1, dtype))).dtype == dtype
    except (TypeError, ValueError):
        return False


def _array_struct(self: ndarray) -> Any:
    """The C array interface (a capsule) of a host array's own memory. Arrays of the dtypes
    only the host holds have none: NumPy reads a capsule of str, datetime or structured data
    wrongly (``'<U2'`` as 8 characters), and takes ``__array__`` instead (the data)."""
    data = _host_data(self, "__array_struct__")
    if not is_xla_dtype(data.dtype):  # (float64 on a TPU has one: NumPy reads it exactly)
        raise AttributeError("npjax.ndarray.__array_struct__: not given for host-only dtypes "
                             "(np.asarray(a) gives the data itself)")
    return data.__array_struct__


def _ctypes(self: ndarray) -> Any:
    """NumPy's ``ctypes`` helper over a host array's own memory (it keeps the memory alive)."""
    return _host_data(self, "ctypes").ctypes


def _data(self: ndarray) -> memoryview:
    """A memoryview of a host array's own memory."""
    return _host_data(self, "data").data


def _buffer(self: ndarray, flags: int) -> memoryview:
    """PEP 688: a host array exports its NumPy data's buffer (a writable buffer only when the
    array is writeable); a device array has none (``BufferError``)."""
    data = self._host()
    if data is None:
        raise BufferError("npjax.ndarray: a device array has no host buffer; "
                          "memoryview(np.asarray(a)) gives one of a host copy")
    if not _exact_buffer(data.dtype):
        raise BufferError(f"npjax.ndarray: no buffer for dtype {data.dtype} (NumPy reads its "
                          "PEP 3118 format back as another dtype); memoryview(np.asarray(a)) "
                          "gives NumPy's")
    view = memoryview(data)
    if flags & 1 and view.readonly:  # PyBUF_WRITABLE
        raise BufferError("npjax.ndarray: the array is read-only")
    return view


@functools.lru_cache(maxsize=256)
def _exact_buffer(dtype: np.dtype) -> bool:
    """Whether NumPy reads a buffer of ``dtype`` back as that dtype. NumPy converts an object
    with a buffer from its buffer before it asks for ``__array_interface__`` or ``__array__``
    (``np.asarray(a)``): an array of a dtype whose format reads back as another (``'V8'``
    becomes a structured dtype of no fields) exports none, so NumPy takes the exact route."""
    try:
        return np.asarray(memoryview(np.zeros(1, dtype))).dtype == dtype
    except (TypeError, ValueError, NotImplementedError, BufferError):
        return True  # NumPy exports no buffer of it either: memoryview raises as NumPy's


def _release_buffer(self: ndarray, view: memoryview) -> None:
    """PEP 688: nothing to do (the memoryview ``__buffer__`` made releases itself)."""


install_methods({
    "__array_interface__": property(_array_interface),
    "__array_struct__": property(_array_struct),
    "ctypes": property(_ctypes),
    "data": property(_data),
    "__buffer__": _buffer,
    "__release_buffer__": _release_buffer,
})
