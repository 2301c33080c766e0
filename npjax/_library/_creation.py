"""Array creation from data: ``array``/``asarray`` and kin, ``copy``, filled arrays
(``zeros``, ``full``, ``*_like``...), and arrays read from host data (``frombuffer``,
``fromiter``, ``fromstring``). Ranges and grids are in ``_ranges``, matrices in
``_matrix_builders``; both use the helpers here.

Defaults are NumPy's (float64, int64) unless the policy asks for ``x64=False``, where they
become float32/int32 (explicit dtypes are kept). Placement: where the policy allows it the
host route (``_route.try_host``) runs NumPy's own function and these are the device path;
values that NumPy computes from Python scalars alone (``fromiter``...) are computed by NumPy
itself on the host, exact by construction, and placed by ``_made.place_made``
(``_host_to_array``), the one decision for arrays made outside the host route.
"""

from __future__ import annotations

import functools
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._core import _casts, _sharding
from npjax._execution import _lazy_cold
from npjax._pure import _dtypes
from npjax._runtime import _stats
from npjax._calls._dispatch import DeviceIn, DTypeIn, Unsupported, npfunc, with_device
from npjax._pure._errors import ComplexWarning, HostOnly, unsupported
from npjax._core._ndarray import ndarray
from npjax._pure._axes import shape_text
from npjax._core._normalize import as_host, place, resolve_device, to_jax
from npjax._runtime._context import current
from npjax._runtime._policy import Policy
from npjax._calls._fallback import to_host
from npjax._core._subclasses import as_subclass, is_subclass, plain
from npjax._placement._route import (NOT_HOST, hand_written, host_limit, host_operands,
                                     npjax_operands, place_result)
from npjax._placement._made import from_device, place_made
from npjax._pure._declared import CREATION, FOREIGN, OWN_ROUTE

__all__ = ["array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
           "asarray_chkfinite", "copy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "frombuffer", "fromiter", "fromstring"]

_MAXDIMS = 64
_OBJECT = np.dtype(object)
_MAX_BYTES = np.iinfo(np.intp).max
_NO_COPY = ("Unable to avoid copy while creating an array as requested.\n"
            "If using `np.array(obj, copy=False)` replace it with `np.asarray(obj)` to allow "
            "a copy when needed.")


# --- small helpers ---------------------------------------------------------------------------


def _shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple of ints, with NumPy's errors."""
    if shape is None:
        raise TypeError("Use () not None as shape arguments")
    if isinstance(shape, bool | np.bool_):
        raise TypeError(f"expected a sequence of integers or a single integer, got '{shape}'")
    try:
        dims: tuple = (operator.index(shape),)
    except TypeError:
        try:
            dims = tuple(shape)
        except TypeError:
            raise TypeError("expected a sequence of integers or a single integer, got "
                            f"'{shape!r}'") from None
        if any(isinstance(n, bool | np.bool_) for n in dims):
            raise TypeError("an integer is required") from None
        dims = tuple(operator.index(n) for n in dims)
    if len(dims) > _MAXDIMS:
        raise ValueError(f"maximum supported dimension for an ndarray is currently "
                         f"{_MAXDIMS}, found {len(dims)}")
    if any(n < 0 for n in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


def _check_size(shape: tuple[int, ...], dtype: np.dtype) -> None:
    size = 1
    for n in shape:
        size *= n
    if size * max(dtype.itemsize, 1) > _MAX_BYTES:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than "
                         "the maximum possible size.")


def _check_order(order: Any, allowed: str = "KACF") -> None:
    if order is None:
        return
    if not isinstance(order, str) or len(order) != 1 or order.upper() not in "KACF":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order.upper() not in allowed:
        raise ValueError("only 'C' or 'F' order is permitted")


def _device(policy: Policy) -> Any:
    return resolve_device(policy.device)


def _is_int_dtype(dtype: np.dtype) -> bool:
    return dtype.kind in "iu"


def _astype(value: jax.Array, dtype: np.dtype, warn: bool = True) -> jax.Array:
    """``value.astype(dtype)`` as NumPy casts (``_casts.cast``: NaN, infinities and floats
    out of an integer target's range get NumPy's values and warnings); ``warn``: the
    ComplexWarning for complex values cast to real ones."""
    src = np.dtype(value.dtype)
    if src == dtype:
        return value
    if src.kind == "c" and dtype.kind not in "cb" and warn:  # (to bool: nonzero, silent)
        warnings.warn("Casting complex values to real discards the imaginary part",
                      ComplexWarning, stacklevel=_stacklevel())
    return _casts.cast(value, dtype)


def _narrow(dtype: np.dtype, policy: Policy) -> np.dtype:
    return _dtypes.narrow_default(np.dtype(dtype), policy.x64)


def _host_to_array(host: np.ndarray, name: str, inputs: Any = ()) -> Any:
    """A new array NumPy made on the host, placed by the placement policy (``place_made``):
    a host array where the policy keeps it on the host, unless one of ``inputs`` (the
    arguments it was made from) is a device array; else on the policy's device. Host-only
    dtypes are host arrays whatever the policy."""
    if not _dtypes.is_device_dtype(host.dtype):
        _stats.host_only[name] += 1
    return place_made(host, from_device(inputs))


def _explicit_64(*xs: Any) -> bool:
    """Whether an input carries an explicit 64-bit inexact dtype (kept under ``x64=False``)."""
    wide = (np.dtype(np.float64), np.dtype(np.complex128))
    return any(isinstance(x, ndarray | np.ndarray | np.generic | jax.Array) and
               np.dtype(x.dtype) in wide for x in xs)


# --- array / asarray -------------------------------------------------------------------------


def _copy_flag(copy: Any) -> bool | None:
    if isinstance(copy, str):
        raise ValueError("strings are not allowed for 'copy' keyword. "
                         "Use True/False/None instead.")
    return None if copy is None else bool(copy)


@hand_written(OWN_ROUTE + " (the array's conversion rules)")
def array(object: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K",
          subok: bool = False, ndmin: int = 0, ndmax: int = 0, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.array``: a new array on the policy's device.

    Differences from NumPy: ``copy=False`` on host data (NumPy arrays, lists, scalars) raises
    ValueError because device memory can never alias host memory; ``order`` changes no layout
    (npjax owners are C-ordered). Host-only dtypes (str, bytes, datetime64, object,
    structured) give host arrays computed by NumPy, whatever the policy.
    """
    if is_subclass(object):  # NumPy: the base class; with ``subok``, the subclass kept
        base = plain(object)
        out = array(base, dtype, copy=copy, order=order, ndmin=ndmin, ndmax=ndmax, like=like)
        if not subok:
            return out
        return object if out is base else as_subclass(out, type(object), object)
    if ndmax:  # NumPy decides how deep nested sequences go (deeper ones become objects)
        object = np.array(to_host(object), dtype, ndmax=ndmax)
    if like is None and type(object) in (list, tuple) and dtype is not None and \
            np.dtype(dtype) == _OBJECT:  # NumPy itself meets the items: arrays stored as themselves
        data = np.array(object, dtype, copy=copy, order=order, ndmin=ndmin)
        return place_result(data, npjax_operands((object,), {}), -1)
    if like is None:
        host = _host_array(object, dtype, copy, order, ndmin)
        if host is not NOT_HOST:
            return host
    try:
        return _array(object, dtype, copy, order, subok, ndmin, like)
    except HostOnly:
        _stats.host_only["array"] += 1
        data = np.array(to_host(object), dtype, copy=copy, order=order, ndmin=ndmin)
        if _dtypes.is_device_dtype(data.dtype):  # (from host-only data: placed as new)
            return place_made(data if data.base is None else data.copy(),
                              from_device((object,)))
        return place_result(data, npjax_operands((object,), {}), -1)


def _host_array(object: Any, dtype: Any, copy: Any, order: Any, ndmin: int) -> Any:
    """``array`` made by NumPy as a host array, when placement allows it; else NOT_HOST.
    Foreign NumPy arrays are copied (``_placement``); data of a dtype that cannot live on
    the device is a host array whatever its size."""
    limit = host_limit()
    if limit < 0:
        return NOT_HOST
    if type(object) is np.ndarray and copy is False:
        return NOT_HOST  # npjax never aliases a foreign array: the other path raises
    ops = host_operands((object,), {}, limit)
    if ops is None:
        return NOT_HOST
    data = np.array(ops[0][0], dtype, copy=copy, order=order, ndmin=ndmin)
    _stats.host_calls["array"] += 1
    return place_result(data, npjax_operands((object,), {}), limit)


def _array(object: Any, dtype: Any, copy: Any, order: Any, subok: bool, ndmin: int,
           like: Any) -> ndarray:
    if like is not None:
        raise unsupported("array", "like")
    _check_order(order)
    copy = _copy_flag(copy)
    ndmin = operator.index(ndmin)
    if ndmin > _MAXDIMS:
        raise ValueError(f"ndmin must be <= ndmax ({_MAXDIMS})")
    dtype = _dtypes.canonical_dtype(dtype)
    if dtype is not None:
        _dtypes.device_only(dtype)
    policy = current()
    if isinstance(object, ndarray):
        same = dtype is None or dtype == object.dtype
        if copy is not True and same and not object._scalar:
            out = object
            if out.ndim < ndmin:
                out = out.reshape((1,) * (ndmin - out.ndim) + out.shape)
            return out
        if copy is False:
            raise ValueError(_NO_COPY)
        value = place(object._read() if same else _astype(object._read(), dtype), policy)
    elif isinstance(object, jax.Array) and copy is not True:
        if copy is False and dtype is not None and dtype != object.dtype:
            raise ValueError(_NO_COPY)
        value = to_jax(object, policy, dtype)  # shares the immutable buffer
    else:
        if copy is False:
            raise ValueError(_NO_COPY)
        value = to_jax(object, policy, dtype)
    if value.ndim < ndmin:
        value = value.reshape((1,) * (ndmin - value.ndim) + value.shape)
    return ndarray._owner(value)


@hand_written(OWN_ROUTE + " (the array's conversion rules)")
@with_device
def asarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None,
            copy: Any = None, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asarray``: ``a`` itself when it already fits."""
    if type(a) is ndarray and dtype is None and copy is None and order is None and \
            like is None and not a._scalar:
        return a  # (what ``array`` gives then, without its checks: the common case)
    return array(a, dtype, copy=copy, order=order, like=like)


@hand_written(OWN_ROUTE + " (the array's conversion rules)")
@with_device
def asanyarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None,
               copy: Any = None, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asanyarray``: subclass instances are kept."""
    return array(a, dtype, copy=copy, order=order, subok=True, like=like)


@hand_written(CREATION)
def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.ascontiguousarray`` (at least 1-d, C-contiguous)."""
    out = array(a, dtype, copy=None, ndmin=1, like=like)
    return out if out.flags.c_contiguous else ndarray._owner(out._read())


@hand_written(CREATION)
def asfortranarray(a: Any, dtype: Any = None, *, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asfortranarray``.

    Differences from NumPy: a copy is C-ordered (``flags.f_contiguous`` is False for a new
    2-d copy); the values are the same.
    """
    out = array(a, dtype, copy=None, ndmin=1, like=like)
    return out if out.flags.f_contiguous else ndarray._owner(out._read())


@hand_written(CREATION)
def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asarray_chkfinite``."""
    a = asarray(a, dtype=dtype, order=order)
    if a.dtype.kind in "fc" and not bool(jnp.all(jnp.isfinite(a._read()))):
        raise ValueError("array must not contain infs or NaNs")
    return a


@hand_written(CREATION)
def copy(a: Any, order: str = "K", subok: bool = False) -> ndarray:
    """npjax implementation of ``numpy.copy``: always a new owner (of the subclass of
    ``a`` with ``subok``, else a base-class array)."""
    _check_order(order)
    if isinstance(a, ndarray):
        data = a._host()
        if data is not None and data.dtype in _lazy_cold.held_on_cpu():
            out = place_made(np.copy(data, order=order))  # (float64 on a TPU: a host copy)
        else:
            out = ndarray._owner(a._read_lazy())
        return as_subclass(out, type(a), a) if subok and is_subclass(a) else out
    return array(a, copy=True, order=order)


# --- filled arrays ---------------------------------------------------------------------------


def _host_fill(fill: Any, dtype: np.dtype) -> np.ndarray:
    """``fill`` converted as NumPy's ``full`` converts it (its own errors included)."""
    return np.full(np.shape(fill), fill, dtype)


def _filled(name: str, shape: Any, fill: Any, dtype: np.dtype) -> ndarray:
    shape = _shape(shape)
    dtype = np.dtype(dtype)
    held = dtype in _lazy_cold.held_on_cpu()  # (float64 on a TPU: NumPy makes a host array)
    if not held:
        _dtypes.device_only(dtype)
    _check_size(shape, dtype)
    if held:
        return place_made(np.full(shape, to_host(fill), dtype))
    if len(shape) > _dtypes.MAX_DEVICE_NDIM:  # NumPy makes it, a host array
        raise HostOnly(f"an array of {len(shape)} dimensions lives on the host only")
    policy = current()
    if isinstance(fill, ndarray | jax.Array):
        value = _astype(fill._read() if isinstance(fill, ndarray) else fill, dtype)
    else:
        value = _host_fill(fill, dtype)
    if not _fits(value.shape, shape):
        raise ValueError(f"could not broadcast input array from shape {shape_text(value.shape)}"
                         f" into shape {shape_text(shape)}")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        # the value is a runtime argument: one compiled kernel per shape and dtype
        if policy.sharding is not None:  # made in place on every device (no move)
            kernel = _full_kernel(shape, dtype, _sharding.target(shape, policy))
            return ndarray._owner(kernel(value))
        return ndarray._owner(place(_full_kernel(shape, dtype)(value), policy))
    return ndarray._owner(place(jnp.broadcast_to(jnp.asarray(value, dtype), shape), policy))


@functools.lru_cache(maxsize=512)
def _full_kernel(shape: tuple, dtype: np.dtype, sharding: Any = None) -> Any:
    return jax.jit(lambda value: jnp.full(shape, value, dtype), out_shardings=sharding)


def _default_dtype(dtype: np.dtype | None, name: str) -> np.dtype:
    if dtype is None:
        return _dtypes.default_float(current().x64)
    return _dtypes.device_only(dtype)


@npfunc
def zeros(shape: Any, dtype: DTypeIn = None, order: Any = "C", *,
          device: DeviceIn = None, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.zeros`` (``order`` is accepted, not a layout)."""
    _check_order(order, "CF")
    return _filled("zeros", shape, 0, _default_dtype(dtype, "zeros"))


@npfunc
def ones(shape: Any, dtype: DTypeIn = None, order: Any = "C", *,
         device: DeviceIn = None, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.ones`` (``order`` is accepted, not a layout)."""
    _check_order(order, "CF")
    return _filled("ones", shape, 1, _default_dtype(dtype, "ones"))


@npfunc
def empty(shape: Any, dtype: DTypeIn = None, order: Any = "C", *,
          device: DeviceIn = None, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.empty``.

    Differences from NumPy: the contents are zeros (JAX has no uninitialised memory).
    """
    _check_order(order, "CF")
    return _filled("empty", shape, 0, _default_dtype(dtype, "empty"))


def _fill_dtype(fill_value: Any) -> np.dtype:
    if isinstance(fill_value, ndarray | np.ndarray | np.generic | jax.Array):
        return np.dtype(fill_value.dtype)
    return _narrow(np.asarray(fill_value).dtype, current())


@npfunc
def full(shape: Any, fill_value: Any, dtype: DTypeIn = None, order: Any = "C", *,
         device: DeviceIn = None, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.full`` (``order`` is accepted, not a layout)."""
    _check_order(order, "CF")
    return _filled("full", shape, fill_value,
                   dtype if dtype is not None else _fill_dtype(fill_value))


def _like(a: Any, dtype: np.dtype | None, order: Any, shape: Any) -> tuple:
    _check_order(order)
    if isinstance(a, ndarray | np.ndarray | np.generic | jax.Array):
        a_shape, a_dtype = tuple(a.shape), np.dtype(a.dtype)
    else:
        host = as_host(a, current())
        a_shape, a_dtype = host.shape, host.dtype
    return (a_shape if shape is None else _shape(shape)), (a_dtype if dtype is None else dtype)


def _keep_class(out: ndarray, a: Any, subok: bool) -> ndarray:
    """NumPy's ``*_like``: with ``subok`` (the default) the result is of ``a``'s subclass,
    its ``__array_finalize__`` called with ``a``; otherwise a base-class array."""
    return as_subclass(out, type(a), a) if subok and is_subclass(a) else out


@npfunc
def zeros_like(a: Any, dtype: DTypeIn = None, order: Any = "K", subok: bool = True,
               shape: Any = None, *, device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.zeros_like``."""
    shape, dtype = _like(a, dtype, order, shape)
    return _keep_class(_filled("zeros_like", shape, 0, dtype), a, subok)


@npfunc
def ones_like(a: Any, dtype: DTypeIn = None, order: Any = "K", subok: bool = True,
              shape: Any = None, *, device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.ones_like``."""
    shape, dtype = _like(a, dtype, order, shape)
    return _keep_class(_filled("ones_like", shape, 1, dtype), a, subok)


@npfunc
def empty_like(prototype: Any, dtype: DTypeIn = None, order: Any = "K", subok: bool = True,
               shape: Any = None, *, device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.empty_like``.

    Differences from NumPy: the contents are zeros.
    """
    shape, dtype = _like(prototype, dtype, order, shape)
    return _keep_class(_filled("empty_like", shape, 0, dtype), prototype, subok)


@npfunc
def full_like(a: Any, fill_value: Any, dtype: DTypeIn = None, order: Any = "K",
              subok: bool = True, shape: Any = None, *,
              device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.full_like``."""
    shape, dtype = _like(a, dtype, order, shape)
    return _keep_class(_filled("full_like", shape, fill_value, dtype), a, subok)


# --- from host data --------------------------------------------------------------------------


@hand_written(FOREIGN)
def frombuffer(buffer: Any, dtype: Any = float, count: Any = -1, offset: Any = 0, *,
               like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.frombuffer``.

    Host operands run NumPy's own ``frombuffer`` (the host route: the result views the
    buffer). Differences from NumPy, on the device path: the result is a device copy, so
    later changes to a mutable buffer (``bytearray``) are not seen; it is read-only exactly
    when NumPy's is.
    The default dtype stays float64 under ``x64=False`` (it says what the bytes mean).
    """
    if like is not None:
        raise unsupported("frombuffer", "like")
    host = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)
    out = _host_to_array(host, "frombuffer", (buffer,))
    if out._host() is None:  # (a host array's flags are NumPy's own)
        out._readonly = not host.flags.writeable
    return out


@hand_written(FOREIGN)
def fromiter(iter: Any, dtype: Any, count: Any = -1, *, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.fromiter`` (read by NumPy on the host, then placed)."""
    if like is not None:
        raise unsupported("fromiter", "like")
    return _host_to_array(np.fromiter(iter, dtype=dtype, count=count), "fromiter")


@hand_written(FOREIGN)
def fromstring(string: Any, dtype: Any = None, count: Any = -1, *, sep: str = "",
               like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.fromstring`` (parsed by NumPy on the host; default
    dtype float64, float32 if x64=False)."""
    if like is not None:
        raise unsupported("fromstring", "like")
    policy = current()
    dtype = _dtypes.default_float(policy.x64) if dtype is None else dtype
    return _host_to_array(np.fromstring(string, dtype=dtype, count=count, sep=sep),
                          "fromstring", (string,))


def _fits(value_shape: tuple, shape: tuple) -> bool:
    """Whether a fill value of ``value_shape`` broadcasts to ``shape`` itself."""
    try:
        return np.broadcast_shapes(value_shape, shape) == shape
    except ValueError:
        return False
