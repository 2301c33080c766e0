"""Dtypes: NumPy's own dtype objects, NumPy 2 (NEP 50) promotion with NumPy as the oracle.

JAX's promotion lattice is not NumPy's (int16 + float16 is float16 in JAX, float32 in NumPy),
so npjax asks NumPy which dtype a result has and casts explicitly before calling JAX.
Python scalars are "weak" (NEP 50): they take the dtype of the array they meet, and a Python
int that does not fit that dtype raises ``OverflowError`` as in NumPy.
"""

from __future__ import annotations

import contextvars
import functools
from typing import Any

import numpy as np

from npjax._pure._errors import HostOnly

# Python scalar types stand for themselves in dtype keys: NumPy's resolve_dtypes treats them
# as weak (NEP 50) abstract dtypes. A Python bool is not weak: it is a NumPy bool.
WEAK_TYPES = (int, float, complex)

# The dtypes JAX can hold on a device. Others (strings, objects, datetimes) stay on the host.
DEVICE_KINDS = frozenset("biufc")


def dtype_key(x: Any) -> Any:
    """The promotion key of an operand: its dtype, or the Python type of a weak scalar."""
    t = type(x)
    if t in WEAK_TYPES:
        return t
    return x.dtype


@functools.lru_cache(maxsize=4096)
def result_type(*keys: Any) -> np.dtype:
    """NumPy's result dtype for the given dtypes / weak Python scalar types."""
    samples = [_weak_sample(k) if isinstance(k, type) and k in WEAK_TYPES else np.dtype(k)
               for k in keys]
    return np.result_type(*samples)


def _weak_sample(t: type) -> Any:
    return t(0)


def check_python_int(value: int, dtype: np.dtype, where: str = "npjax") -> None:
    """Raise OverflowError as NumPy 2 does when a Python int does not fit an integer dtype."""
    if dtype.kind in "iu" and type(value) is int:
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            if not -2**63 <= value < 2**63 and not (dtype.kind == "u" and 0 <= value < 2**64):
                # NumPy converts through a C long (an unsigned one for unsigned dtypes) first
                raise OverflowError("Python int too large to convert to C long")
            raise OverflowError(f"Python integer {value} out of bounds for {dtype}")


def default_float(x64: bool) -> np.dtype:
    return np.dtype(np.float64 if x64 else np.float32)


def default_int(x64: bool) -> np.dtype:
    return np.dtype(np.int64 if x64 else np.int32)


def default_complex(x64: bool) -> np.dtype:
    return np.dtype(np.complex128 if x64 else np.complex64)


_NARROW = {
    np.dtype(np.float64): np.dtype(np.float32),
    np.dtype(np.int64): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.uint32),
    np.dtype(np.complex128): np.dtype(np.complex64),
}


def narrow_default(dtype: np.dtype, x64: bool) -> np.dtype:
    """Under ``x64=False``, an inferred 64-bit default becomes its 32-bit twin."""
    if x64:
        return dtype
    return _NARROW.get(dtype, dtype)


def canonical_dtype(dtype: Any) -> np.dtype | None:
    """``dtype=`` argument as a NumPy dtype (``TypeError`` for unknown names, like NumPy)."""
    if dtype is None:
        return None
    return np.dtype(dtype)


@functools.lru_cache(maxsize=4096)
def can_cast(from_: np.dtype, to: np.dtype, casting: str) -> bool:
    return bool(np.can_cast(from_, to, casting))


# The widest item of each kind a device holds: long double (float128, complex256 on x86) has
# no JAX dtype and lives on the host, computed by NumPy.
_MAX_ITEMSIZE = {"b": 1, "i": 8, "u": 8, "f": 8, "c": 16}


# The most dimensions a device array has: NumPy's own helpers (``np.broadcast``,
# ``broadcast_shapes``, ``nditer``) take at most 32, and npjax's device code calls them, so
# an array of more dimensions (NumPy allows 64) is a host array whatever the policy, computed
# by NumPy, as the host-only dtypes are.
MAX_DEVICE_NDIM = 32


def is_xla_dtype(dtype: np.dtype) -> bool:
    """Whether an XLA type holds ``dtype``, whatever the backend: numeric, native byte order
    (a byte-swapped ``'>f8'`` from a file stays a host array, as NumPy keeps it), at most
    64-bit floats."""
    return (dtype.kind in DEVICE_KINDS and dtype.isnative
            and dtype.itemsize <= _MAX_ITEMSIZE[dtype.kind])


def is_device_dtype(dtype: np.dtype) -> bool:
    """Whether the device can hold ``dtype``: ``is_xla_dtype``, and not one the default
    backend's platform cannot hold (``_capabilities.HOST_DTYPES``: float64 and complex128 on
    a TPU) unless ``npjax.jit`` is tracing (``TRACING``)."""
    return (is_xla_dtype(dtype)
            and (dtype.kind not in "fc" or dtype.itemsize < 8
                 or dtype.name not in backend_host_dtypes() or TRACING.get()))


DEVICE_DTYPE: dict = {}  # dtype -> is_device_dtype(dtype), filled as arrays appear


def device_dtype_of(dtype: np.dtype) -> bool:
    """``is_device_dtype(dtype)``, remembered in ``DEVICE_DTYPE`` but for the backend's host
    dtypes (float64 on a TPU), whose answer changes inside an ``npjax.jit`` trace."""
    found = DEVICE_DTYPE.get(dtype)
    if found is None:
        found = is_device_dtype(dtype)
        if dtype.name not in backend_host_dtypes():
            DEVICE_DTYPE[dtype] = found
    return found


def device_only(dtype: np.dtype) -> np.dtype:
    """``dtype``, where the device can hold it (``device_dtype_of``); otherwise ``HostOnly``,
    raised before any device work, so NumPy computes the call on the host (float64 on a TPU)."""
    if not device_dtype_of(dtype):
        raise HostOnly(f"dtype {dtype} lives on the host only")
    return dtype


# True while ``npjax.jit`` traces a function: every value made there is its program's (a
# program holding one of ``backend_host_dtypes`` runs on the host's CPU backend:
# ``_execution/_lazy_cold``), so those dtypes are device dtypes inside a trace; a float64
# made there as a host array would hold no traced value (``np.zeros(3)[0] = x[0]``)
TRACING: contextvars.ContextVar[bool] = contextvars.ContextVar("npjax_tracing", default=False)


@functools.cache
def backend_host_dtypes() -> frozenset[str]:
    """The dtype names the default backend's arrays never hold (asked at the first 64-bit
    float or complex dtype, never at import: ``jax.distributed.initialize`` must come before
    the backend; answered without starting a TPU's runtime: ``_platform``)."""
    from npjax._pure import _capabilities, _platform

    table = _capabilities.HOST_DTYPES
    return table.get(_platform.default_platform(table), frozenset())
