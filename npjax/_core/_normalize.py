"""The only way data enters npjax: ``to_jax`` turns any array-like into a placed ``jax.Array``.

Host data (lists, tuples, NumPy arrays and scalars) gets NumPy's own dtype inference first, so
``[1, 2]`` is int64 and ``[1.0]`` float64 exactly as in NumPy; then it is put on the policy's
device with ``jax.device_put``. npjax arrays give their current value (views materialise here).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core import _casts, _sharding
from npjax._pure import _dtypes
from npjax._runtime import _stats
from npjax._pure._errors import HostOnly
from npjax._core._array_base import ArrayBase
from npjax._runtime._context import current
from npjax._runtime._policy import Policy


@functools.lru_cache(maxsize=64)
def resolve_device(device: Any) -> Any:
    """A policy ``device`` value as a ``jax.Device`` (platform names pick the first device)."""
    if device is None or isinstance(device, jax.Device):
        return device
    return jax.devices(device)[0]


def place(value: jax.Array, policy: Policy) -> jax.Array:
    """``value`` on the policy's device(s); a move between devices is counted."""
    if policy.sharding is not None:
        return _sharding.place(value, policy)
    if policy.device is None:
        return value
    device = resolve_device(policy.device)
    # device_put to the device an array already lives on returns a *new* Array object that
    # shares the buffer; that would defeat the refcount check guarding buffer donation.
    if isinstance(value, jax.Array):
        if isinstance(value, jax.core.Tracer) or value.sharding.device_set == {device}:
            return value
        _stats.record_transfer("device_to_device", value.nbytes)
    return jax.device_put(value, device)


# npjax's own operand stand-ins with an ``__array__`` that refuses (``_masked.MaskedValue``
# registers itself): never converted here, they run npjax's functions their own way.
STAND_INS: set[type] = set()


def array_method_value(x: Any) -> Any:
    """What a foreign object's ``__array__()`` returns, or ``x`` itself.

    NumPy takes only its own arrays from ``__array__`` ("object __array__ method not producing
    an array"); a class written for ``import npjax as np`` returns ``np.array(...)``, an npjax
    array. So where npjax hands an operand to NumPy (or reads it), an object that converts
    itself only by ``__array__`` (no ``__array_ufunc__``/``__array_function__``, whose
    libraries decide themselves: pandas) is converted once here, as NumPy would have done."""
    kind = type(x)
    if (getattr(kind, "__array__", None) is None or kind is np.ndarray or kind in STAND_INS
            or isinstance(x, ArrayBase | np.ndarray | np.generic | jax.Array | type)
            or hasattr(kind, "__array_ufunc__")  # (None: it refuses ufuncs)
            or getattr(kind, "__array_function__", None) is not None):
        return x
    value = x.__array__()
    return value if isinstance(value, ArrayBase | np.ndarray) else x


_NUMPY_UFUNC, _NUMPY_FUNCTION = np.ndarray.__array_ufunc__, np.ndarray.__array_function__
_ABSENT = object()
_PLAIN = frozenset({int, float, complex, bool, str, list, tuple, type(None), np.ndarray})
_OURS: set = set()  # the ArrayBase subclasses met so far (npjax's arrays: never foreign)


def foreign_override(args: tuple, kwargs: dict, functions: bool = False) -> bool:
    """Whether an argument (or ``out=``) is another library's object in NumPy's protocols
    (NEP 13, and NEP 18 for ``functions``): its class defines ``__array_ufunc__`` (None: it
    refuses ufuncs) or, for functions, ``__array_function__``, NumPy's and npjax's aside.
    NumPy hands such a call to the object (``np.exp(series)``, ``np.round(series)`` are
    pandas' Series); npjax then runs NumPy's own ufunc or function on the host data of its
    operands (a device array's copy, counted), so the object decides as with NumPy arrays."""
    if kwargs:
        out = kwargs.get("out")
        args = (*args, *kwargs.values(), *(out if type(out) is tuple else ()))
    for a in args:
        kind = type(a)
        if kind in _OURS or kind in _PLAIN or kind.__module__ == "numpy":
            continue
        if issubclass(kind, ArrayBase):
            _OURS.add(kind)  # (a class's bases never change: asked once per class)
            continue
        found = getattr(kind, "__array_ufunc__", _ABSENT)
        if found is not _ABSENT and found is not _NUMPY_UFUNC:
            return True
        if functions and getattr(kind, "__array_function__", _NUMPY_FUNCTION) not in (
                _NUMPY_FUNCTION, None):
            return True
    return False


def as_host(x: Any, policy: Policy, dtype: Any = None) -> np.ndarray:
    """Host data as a NumPy array with NumPy's dtype inference (narrowed when ``x64=False``)."""
    x = array_method_value(x)
    if isinstance(x, ArrayBase):
        host = np.asarray(x._fetch(), dtype=dtype)
        _dtypes.device_only(host.dtype)
        return host
    host = np.asarray(x, dtype=dtype)
    if dtype is None and not policy.x64 and not isinstance(x, np.ndarray | np.generic):
        narrow = _dtypes.narrow_default(host.dtype, False)
        if narrow.kind in "iu" and narrow != host.dtype and host.size:
            info = np.iinfo(narrow)  # Python ints that do not fit: NumPy's OverflowError
            if host.min() < info.min or host.max() > info.max:
                raise OverflowError(f"Python integer out of bounds for {narrow}")
        host = host.astype(narrow, copy=False)
    _dtypes.device_only(host.dtype)
    if host.ndim > _dtypes.MAX_DEVICE_NDIM:
        raise HostOnly(f"an array of {host.ndim} dimensions lives on the host only")
    return host


def _has_array(seq: Any) -> bool:
    return any(isinstance(item, ArrayBase | jax.Array) for item in seq)


def to_jax_lazy(x: Any, policy: Policy) -> Any:
    """``to_jax`` for code whose kernels are ``_lazy.Kernel``: in lazy mode an npjax array's
    pending value is returned as it is (a ``_lazy.Lazy``)."""
    if isinstance(x, ArrayBase) and policy.device is None and policy.sharding is None:
        return x._read_lazy()
    return to_jax(x, policy)


def to_jax(x: Any, policy: Policy | None = None, dtype: Any = None) -> jax.Array:
    """Any array-like as a ``jax.Array`` on the policy's device (optionally cast to ``dtype``)."""
    if policy is None:
        policy = current()
    if isinstance(x, ArrayBase):
        value = x._read()
    elif isinstance(x, jax.Array):
        value = x
    elif isinstance(x, list | tuple) and _has_array(x):
        parts = [to_jax(item, policy) for item in x]
        rtype = _dtypes.device_only(_dtypes.result_type(*[p.dtype for p in parts]))
        value = jnp.stack([p.astype(rtype) for p in parts]) if parts else jnp.zeros(0)
    else:
        # device_put, not jnp.asarray: the latter compiles a small kernel per shape and dtype.
        host = as_host(x, policy, dtype)
        _stats.record_transfer("host_to_device", host.nbytes)
        if policy.sharding is not None:
            return _sharding.put_host(host, policy)
        # a copy, never the caller's memory (``_device_copies._to_device``)
        if host is x or host.base is not None:
            host = np.array(host)
        if policy.device is None:
            return jax.device_put(host)
        return jax.device_put(host, resolve_device(policy.device))
    if dtype is not None and value.dtype != np.dtype(dtype):
        value = _casts.cast(value, dtype)
    return place(value, policy)


def where_mask(where: Any) -> Any:
    """A ufunc's ``where=`` as NumPy reads it: Python lists, tuples and numbers converted to
    bool (``where=[1, 0]``); arrays as they are (NumPy casts them to bool only safely)."""
    if isinstance(where, list | tuple | int | float):
        return np.asarray(where, dtype=bool)
    return where
