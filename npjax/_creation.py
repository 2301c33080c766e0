"""Array creation: ``array``/``asarray``, filled arrays, ranges, matrices, grids.

Defaults are NumPy's (float64, int64) unless the policy asks for ``x64=False``, where they
become float32/int32 (explicit dtypes are kept). New arrays are placed on the policy's device.

Exactness: float ranges (``linspace``) are computed with one eager JAX operation per NumPy
operation, in NumPy's order: a jitted kernel would let XLA fuse ``y * step + start`` into an
FMA and change the last bit. Values that NumPy computes from Python scalars alone
(``arange``, ``mgrid``/``ogrid``, ``fromiter``...) are computed by NumPy itself on the host and
then placed, which is exact by construction.
"""

from __future__ import annotations

import functools
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._errstate import _stacklevel
from npjax import _casts, _dtypes, _sharding, _stats
from npjax._dispatch import ArrayIn, DeviceIn, DTypeIn, Unsupported, npfunc, with_device
from npjax._errors import ComplexWarning, HostOnly, unsupported
from npjax._ndarray import ndarray, normalize_axis
from npjax._normalize import as_host, place, resolve_device, to_jax
from npjax._context import current
from npjax._policy import Policy
from npjax._fallback import to_host
from npjax._subclasses import as_subclass, is_subclass, plain
from npjax._placement import NOT_HOST, host_limit, host_operands, npjax_operands, place_result

__all__ = ["array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
           "asarray_chkfinite", "copy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace",
           "geomspace", "eye", "identity", "tri", "tril", "triu", "diag", "diagflat",
           "vander", "meshgrid", "mgrid", "ogrid", "indices", "fromfunction", "frombuffer",
           "fromiter", "fromstring"]

_MAXDIMS = 64
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


def _device_dtype(dtype: np.dtype, name: str) -> np.dtype:
    """``dtype`` unchanged when JAX can hold it; NotImplementedError naming it otherwise."""
    if not _dtypes.is_device_dtype(dtype):
        raise HostOnly(f"dtype {dtype} lives on the host only")
    return dtype


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


def _host_to_array(host: np.ndarray, name: str, policy: Policy | None = None) -> ndarray:
    """A host NumPy result as a new npjax array on the policy's device (host-only dtypes stay
    the NumPy array)."""
    if not _dtypes.is_device_dtype(host.dtype):
        _stats.host_only[name] += 1
        return host
    return ndarray._owner(to_jax(host, policy or current()))


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


def array(object: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K",
          subok: bool = False, ndmin: int = 0, ndmax: int = 0, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.array``: a new array on the policy's device.

    Differences from NumPy: ``copy=False`` on host data (NumPy arrays, lists, scalars) raises
    ValueError because device memory can never alias host memory; ``order`` changes no layout
    (npjax owners are C-ordered). Host-only dtypes (str, bytes, datetime64, object,
    structured) give NumPy's own array, as NumPy would.
    """
    if is_subclass(object):  # NumPy: the base class; with ``subok``, the subclass kept
        base = plain(object)
        out = array(base, dtype, copy=copy, order=order, ndmin=ndmin, ndmax=ndmax, like=like)
        if not subok:
            return out
        return object if out is base else as_subclass(out, type(object), object)
    if ndmax:  # NumPy decides how deep nested sequences go (deeper ones become objects)
        object = np.array(to_host(object), dtype, ndmax=ndmax)
    if like is None:
        host = _host_array(object, dtype, copy, order, ndmin)
        if host is not NOT_HOST:
            return host
    try:
        return _array(object, dtype, copy, order, subok, ndmin, like)
    except HostOnly:
        _stats.host_only["array"] += 1
        return np.array(to_host(object), dtype, copy=copy, order=order, subok=subok,
                        ndmin=ndmin)


def _host_array(object: Any, dtype: Any, copy: Any, order: Any, ndmin: int) -> Any:
    """``array`` made by NumPy as a host array, when placement allows it; else NOT_HOST.
    Foreign NumPy arrays are copied (``_placement``); data of a dtype that cannot live on
    the device takes the other path (NumPy's own array)."""
    limit = host_limit()
    if limit < 0:
        return NOT_HOST
    if type(object) is np.ndarray and copy is False:
        return NOT_HOST  # npjax never aliases a foreign array: the other path raises
    ops = host_operands((object,), {}, limit)
    if ops is None:
        return NOT_HOST
    data = np.array(ops[0][0], dtype, copy=copy, order=order, ndmin=ndmin)
    if not _dtypes.is_device_dtype(data.dtype):
        return NOT_HOST
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
        _device_dtype(dtype, "array")
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


@with_device
def asarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None,
            copy: Any = None, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asarray``: ``a`` itself when it already fits."""
    return array(a, dtype, copy=copy, order=order, like=like)


@with_device
def asanyarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None,
               copy: Any = None, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asanyarray``: subclass instances are kept."""
    return array(a, dtype, copy=copy, order=order, subok=True, like=like)


def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.ascontiguousarray`` (at least 1-d, C-contiguous)."""
    out = array(a, dtype, copy=None, ndmin=1, like=like)
    return out if out.flags.c_contiguous else ndarray._owner(out._read())


def asfortranarray(a: Any, dtype: Any = None, *, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asfortranarray``.

    Differences from NumPy: a copy is C-ordered (``flags.f_contiguous`` is False for a new
    2-d copy); the values are the same.
    """
    out = array(a, dtype, copy=None, ndmin=1, like=like)
    return out if out.flags.f_contiguous else ndarray._owner(out._read())


def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> ndarray:
    """npjax implementation of ``numpy.asarray_chkfinite``."""
    a = asarray(a, dtype=dtype, order=order)
    if a.dtype.kind in "fc" and not bool(jnp.all(jnp.isfinite(a._read()))):
        raise ValueError("array must not contain infs or NaNs")
    return a


def copy(a: Any, order: str = "K", subok: bool = False) -> ndarray:
    """npjax implementation of ``numpy.copy``: always a new owner (of the subclass of
    ``a`` with ``subok``, else a base-class array)."""
    _check_order(order)
    if isinstance(a, ndarray):
        out = ndarray._owner(a._read_lazy())
        return as_subclass(out, type(a), a) if subok and is_subclass(a) else out
    return array(a, copy=True, order=order)


# --- filled arrays ---------------------------------------------------------------------------


def _host_fill(fill: Any, dtype: np.dtype) -> np.ndarray:
    """``fill`` converted as NumPy's ``full`` converts it (its own errors included)."""
    return np.full(np.shape(fill), fill, dtype)


def _filled(name: str, shape: Any, fill: Any, dtype: np.dtype) -> ndarray:
    shape = _shape(shape)
    dtype = _device_dtype(np.dtype(dtype), name)
    _check_size(shape, dtype)
    policy = current()
    if isinstance(fill, ndarray | jax.Array):
        value = _astype(fill._read() if isinstance(fill, ndarray) else fill, dtype)
    else:
        value = _host_fill(fill, dtype)
    if np.broadcast_shapes(value.shape, shape) != shape:
        raise ValueError(f"could not broadcast input array from shape {value.shape} into "
                         f"shape {shape}")
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
    return _device_dtype(dtype, name)


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


@npfunc
def zeros_like(a: Any, dtype: DTypeIn = None, order: Any = "K", subok: bool = True,
               shape: Any = None, *, device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.zeros_like``."""
    shape, dtype = _like(a, dtype, order, shape)
    return _filled("zeros_like", shape, 0, dtype)


@npfunc
def ones_like(a: Any, dtype: DTypeIn = None, order: Any = "K", subok: bool = True,
              shape: Any = None, *, device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.ones_like``."""
    shape, dtype = _like(a, dtype, order, shape)
    return _filled("ones_like", shape, 1, dtype)


@npfunc
def empty_like(prototype: Any, dtype: DTypeIn = None, order: Any = "K", subok: bool = True,
               shape: Any = None, *, device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.empty_like``.

    Differences from NumPy: the contents are zeros.
    """
    shape, dtype = _like(prototype, dtype, order, shape)
    return _filled("empty_like", shape, 0, dtype)


@npfunc
def full_like(a: Any, fill_value: Any, dtype: DTypeIn = None, order: Any = "K",
              subok: bool = True, shape: Any = None, *,
              device: DeviceIn = None) -> ndarray:
    """npjax implementation of ``numpy.full_like``."""
    shape, dtype = _like(a, dtype, order, shape)
    return _filled("full_like", shape, fill_value, dtype)


# --- ranges ----------------------------------------------------------------------------------

_DEVICE_ARANGE_MIN = 1 << 16  # below this, NumPy on the host and one transfer is cheaper
_EXACT_INT = 1 << 40


def _arange_on_device(start: Any, stop: Any, step: Any, dtype: np.dtype | None,
                      policy: Policy) -> jax.Array | None:
    """Long integer ranges built on the device (``start + i * step``, exactly NumPy's)."""
    args = [0 if start is None else start, stop, 1 if step is None else step]
    if not all(type(v) is int for v in args) or any(abs(v) >= _EXACT_INT for v in args):
        return None
    first, last, by = args
    if by == 0:
        return None
    n = len(range(first, last, by))
    out = np.dtype(dtype) if dtype is not None else _dtypes.default_int(policy.x64)
    if n < _DEVICE_ARANGE_MIN or out.kind not in "iu":
        return None
    for v in (first, first + by):  # NumPy casts the first two values, then fills
        _dtypes.check_python_int(v, out)
    iota = jnp.arange(n, dtype=np.int64, device=_device(policy))
    return (iota * by + first).astype(out)


@with_device
def arange(*args: Any, **kwargs: Any) -> ndarray:
    """npjax implementation of ``numpy.arange([start,] stop[, step,], dtype=None)``.

    The values are NumPy's: long integer ranges are built on the device, others by NumPy on
    the host, then placed. Under ``x64=False`` the default dtype is NumPy's with an explicit
    32-bit dtype (``numpy.arange(..., dtype=float32)``).
    """
    if kwargs.pop("like", None) is not None:
        raise unsupported("arange", "like")
    kwargs.pop("device", None)  # honoured by @with_device
    policy = current()
    args = [_host_copy(v) for v in args]
    kwargs = {k: _host_copy(v) for k, v in kwargs.items()}
    names = ("start", "stop", "step", "dtype")
    given = dict(zip(names, args)) | kwargs
    if len(args) == 1 and "stop" not in given:  # arange(stop)
        given = {"stop": args[0]} | kwargs
    dtype = _dtypes.canonical_dtype(given.get("dtype"))
    if len(args) <= len(names) and given.keys() <= set(names):
        fast = _arange_on_device(given.get("start"), given.get("stop"), given.get("step"),
                                 dtype, policy)
        if fast is not None:
            return ndarray._owner(place(fast, policy))
    host = np.arange(*args, **kwargs)
    if dtype is None and not policy.x64:
        narrow = _narrow(host.dtype, policy)
        if narrow != host.dtype:
            host = np.arange(*args, **(kwargs | {"dtype": narrow}))
    return _host_to_array(host, "arange", policy)


def _scalar_or_array(x: Any, policy: Policy) -> Any:
    """Python scalars stay weak (NEP 50); everything else becomes a jax.Array."""
    return x if type(x) in _dtypes.WEAK_TYPES else to_jax(x, policy)


def _key(x: Any) -> Any:
    return type(x) if type(x) in _dtypes.WEAK_TYPES else np.dtype(x.dtype)


def _as_dt(x: Any, dt: np.dtype, policy: Policy) -> Any:
    """A linspace end point in the working dtype (weak Python scalars convert exactly)."""
    if type(x) in _dtypes.WEAK_TYPES:
        host = np.asarray(x, dt)
        return host if policy.device is None else place(jnp.asarray(host), policy)
    return _astype(x, dt)


@functools.lru_cache(maxsize=256)
def _linspace_scale(num: int, dt: np.dtype, ndim: int, div_positive: bool) -> Any:
    """First kernel: ``arange(num) * step`` (no addition here: XLA would fuse a multiply and
    an add into an FMA and change the last bit)."""

    def scale(start: jax.Array, stop: jax.Array, div: jax.Array) -> tuple:
        delta = stop - start
        y = lax.iota(np.int64, num).astype(dt).reshape((-1,) + (1,) * ndim)
        if not div_positive:
            return y * delta, delta
        step = delta / div
        return jnp.where(jnp.any(step == 0), (y / div) * delta, y * step), step

    return jax.jit(scale)


@functools.lru_cache(maxsize=256)
def _linspace_finish(endpoint: bool, axis: int, dtype: np.dtype | None) -> Any:
    """Second kernel: ``+ start``, the exact end point, the axis and the output dtype."""

    def finish(y: jax.Array, start: jax.Array, stop: jax.Array) -> jax.Array:
        y = y + start
        if endpoint and y.shape[0] > 1:
            y = y.at[-1].set(jnp.broadcast_to(stop, y.shape[1:]))
        if axis != 0:
            y = jnp.moveaxis(y, 0, axis)
        if dtype is not None:
            if _is_int_dtype(dtype):
                y = jnp.floor(y)
            if not _casts.needs_check(y.dtype, dtype):  # else cast after the kernel
                y = _casts.jax_cast(y, dtype)
        return y

    return jax.jit(finish)


@npfunc
def linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
             retstep: bool = False, dtype: DTypeIn = None, axis: Any = 0, *,
             device: DeviceIn = None) -> Any:
    """npjax implementation of ``numpy.linspace``: NumPy's algorithm, operation by operation
    (two compiled kernels, split so that no FMA changes a bit)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    policy = current()
    if type(start) in _dtypes.WEAK_TYPES and type(stop) in _dtypes.WEAK_TYPES:
        start, stop = to_jax(start, policy), to_jax(stop, policy)
    else:
        start, stop = _scalar_or_array(start, policy), _scalar_or_array(stop, policy)
    shape = np.broadcast_shapes(np.shape(start), np.shape(stop))
    dt = _dtypes.result_type(_key(start), _key(stop))
    if dt.kind not in "fc":
        dt = _dtypes.result_type(dt, float)
    if not policy.x64 and not _explicit_64(start, stop):
        dt = _narrow(dt, policy)
    if dtype is not None:
        _device_dtype(dtype, "linspace")
        if dt.kind == "c" and dtype.kind != "c":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          ComplexWarning, stacklevel=_stacklevel())
    start_d, stop_d = _as_dt(start, dt, policy), _as_dt(stop, dt, policy)
    y, step = _linspace_scale(num, dt, len(shape), div > 0)(start_d, stop_d,
                                                            np.asarray(max(div, 1), dt))
    axis = normalize_axis(axis, len(shape) + 1) if axis != 0 else 0
    result = _linspace_finish(endpoint, axis, dtype)(y, start_d, stop_d)
    if dtype is not None and result.dtype != dtype:  # a checked cast (``_casts``)
        result = _astype(result, dtype, warn=False)
    if policy.sharding is not None:  # split like any new array (the inputs are replicated)
        result = _sharding.place_new(result, policy)
    out = ndarray._owner(result)
    if not retstep:
        return out
    if div <= 0:
        return out, float("nan")
    return out, ndarray._owner(step, step.ndim == 0)


def _host_copy(x: Any) -> Any:
    if isinstance(x, ndarray):
        host = np.asarray(x._read())
        return host[()] if x._scalar else host
    return np.asarray(x) if isinstance(x, jax.Array) else x


def _ufunc(name: str) -> Any:
    from npjax._ufuncs import UFUNCS

    return UFUNCS[name]


@npfunc
def logspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: DTypeIn = None, axis: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.logspace``.

    Integer and boolean ``dtype`` results are computed by NumPy on the host (JAX's ``pow``
    may miss an exact integer by one unit in the last place, which truncation would turn
    into an off-by-one); floating results are computed on the device.
    """
    if dtype is not None:
        _device_dtype(dtype, "logspace")
        if dtype.kind in "biu":
            host = np.logspace(_host_copy(start), _host_copy(stop), num, endpoint,
                               _host_copy(base), dtype, axis)
            return _host_to_array(host, "logspace")
    policy = current()
    if not isinstance(base, float | int) and np.ndim(base):
        start, stop, base = (_scalar_or_array(v, policy) for v in (start, stop, base))
        ndmax = len(np.broadcast_shapes(*(np.shape(v) for v in (start, stop, base))))
        start, stop, base = (array(v, copy=None, ndmin=ndmax) for v in (start, stop, base))
        base = base.reshape(_expanded_shape(base.shape, axis))
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    out = _ufunc("power")(base, y)
    if not isinstance(out, ndarray) or out._scalar:
        out = ndarray._owner(out._read())
    return out if dtype is None else ndarray._owner(_astype(out._read(), dtype))


def _expanded_shape(shape: tuple, axis: Any) -> tuple:
    ndim = len(shape) + 1
    axis = normalize_axis(axis, ndim)
    return shape[:axis] + (1,) + shape[axis:]


@npfunc
def geomspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
              dtype: DTypeIn = None, axis: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.geomspace`` (NumPy's algorithm on the device).

    Integer and boolean ``dtype`` results are computed by NumPy on the host, as in
    ``logspace``.
    """
    if dtype is not None:
        _device_dtype(dtype, "geomspace")
        if dtype.kind in "biu":
            host = np.geomspace(_host_copy(start), _host_copy(stop), num, endpoint, dtype, axis)
            return _host_to_array(host, "geomspace")
    policy = current()
    explicit = _explicit_64(start, stop)
    start, stop = asanyarray(start), asanyarray(stop)
    # on the host: XLA's CPU kernels treat subnormals as zero
    if np.any(np.asarray(start._read()) == 0) or np.any(np.asarray(stop._read()) == 0):
        raise ValueError("Geometric sequence cannot include zero")
    zeros_dt = dtype if dtype is not None else _dtypes.default_float(policy.x64)
    dt = _dtypes.result_type(start.dtype, stop.dtype, float, zeros_dt)
    if dtype is None:
        if not policy.x64 and not explicit:
            dt = _narrow(dt, policy)
        dtype = dt
    start = ndarray._owner(_astype(start._read(), dt))
    stop = ndarray._owner(_astype(stop._read(), dt))
    divide, log10 = _ufunc("divide"), _ufunc("log10")
    out_sign = _ufunc("sign")(start)
    start = divide(start, out_sign)
    stop = divide(stop, out_sign)
    result = logspace(log10(start), log10(stop), num=num, endpoint=endpoint, base=10.0,
                      dtype=dt)
    value = result._read()
    if num > 0:
        value = value.at[0].set(jnp.broadcast_to(start._read(), value.shape[1:]))
        if num > 1 and endpoint:
            value = value.at[-1].set(jnp.broadcast_to(stop._read(), value.shape[1:]))
    value = _ufunc("multiply")(ndarray._owner(value), out_sign)._read()
    if axis != 0:
        value = jnp.moveaxis(value, 0, normalize_axis(axis, value.ndim))
    return ndarray._owner(_astype(value, np.dtype(dtype)))


# --- matrices --------------------------------------------------------------------------------


@npfunc
def eye(N: Any, M: Any = None, k: Any = 0, dtype: DTypeIn = None, order: Any = "C", *,
        device: DeviceIn = None, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.eye`` (default dtype float64; float32 if x64=False)."""
    _check_order(order, "CF")
    dtype = _default_dtype(dtype, "eye")
    shape = _shape((N, N if M is None else M))
    _check_size(shape, dtype)
    if k >= shape[1]:  # NumPy returns before checking that k is an integer
        return place(jnp.zeros(shape, dtype, device=_device(current())), current())
    return place(_eye_kernel(shape[0], shape[1], operator.index(k), dtype)(), current())


@functools.lru_cache(maxsize=256)
def _eye_kernel(n: int, m: int, k: int, dtype: np.dtype) -> Any:
    return jax.jit(lambda: jnp.eye(n, m, k, dtype=dtype))


@npfunc
def identity(n: Any, dtype: DTypeIn = None, *, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.identity``."""
    return eye(n, dtype=dtype)


def _min_int(low: Any, high: Any) -> type:
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if high <= info.max and low >= info.min:
            return t
    return np.int64


def _tri_mask(N: Any, M: Any = None, k: Any = 0) -> jax.Array:
    """NumPy's ``tri(N, M, k, dtype=bool)``: the row and column ranges come from NumPy's
    ``arange`` on the host (so float ``N`` or ``k`` behave as in NumPy), the mask from JAX."""
    if M is None:
        M = N
    rows = np.arange(N, dtype=_min_int(0, N))
    cols = np.arange(-k, M - k, dtype=_min_int(-k, M - k))
    policy = current()
    r, c = to_jax(rows, policy), to_jax(cols, policy)
    common = np.promote_types(rows.dtype, cols.dtype)
    return r.astype(common)[:, None] >= c.astype(common)[None, :]


@npfunc
def tri(N: Any, M: Any = None, k: Any = 0, dtype: DTypeIn = None, *,
        like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.tri``."""
    dtype = _default_dtype(dtype, "tri")
    return _tri_mask(N, M, k).astype(dtype)


def _trilu(m: jax.Array, k: Any, lower: bool) -> jax.Array:
    if m.ndim == 0:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    mask = _tri_mask(*m.shape[-2:], k=k if lower else k - 1)
    zero = jnp.zeros((), m.dtype)
    return jnp.where(mask, m, zero) if lower else jnp.where(mask, zero, m)


@npfunc
def tril(m: ArrayIn, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.tril`` (stacks of matrices too; 1-d gives 2-d)."""
    return _trilu(m, k, True)


@npfunc
def triu(m: ArrayIn, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.triu`` (stacks of matrices too; 1-d gives 2-d)."""
    return _trilu(m, k, False)


def diag(v: Any, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.diag``: 1-d -> a new 2-d array; 2-d -> the read-only
    diagonal view, as NumPy returns."""
    v = asanyarray(v)
    if v.ndim == 1:
        k = operator.index(k)
        return ndarray._owner(jnp.diag(v._read(), k))
    if v.ndim == 2:
        return v.diagonal(operator.index(k))
    raise ValueError("Input must be 1- or 2-d.")


@npfunc
def diagflat(v: ArrayIn, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.diagflat``."""
    return jnp.diag(v.ravel(), operator.index(k))


@functools.lru_cache(maxsize=128)
def _vander_kernel(n_cols: int) -> Any:
    def powers(x: jax.Array) -> jax.Array:
        one = jnp.ones_like(x)

        def step(c: jax.Array, _: Any) -> tuple:
            nxt = c * x
            return nxt, nxt

        # NumPy copies x into column 1 and multiplies from there (1 * x is not x for
        # complex infinities)
        _, rest = lax.scan(step, x, None, length=n_cols - 2)
        return jnp.concatenate([one[None], x[None], rest], 0).T

    return jax.jit(powers)


@npfunc
def vander(x: ArrayIn, N: Any = None, increasing: bool = False) -> ndarray:
    """npjax implementation of ``numpy.vander`` (powers by repeated multiplication, in
    NumPy's order).

    Differences from NumPy: under ``x64=False`` the result dtype is
    ``promote_types(x.dtype, int32)``.
    """
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n_cols = x.shape[0] if N is None else operator.index(N)
    if n_cols < 0:
        raise ValueError("negative dimensions are not allowed")
    dt = np.promote_types(x.dtype, _dtypes.default_int(current().x64))
    x = x.astype(dt)
    if n_cols == 0:
        return jnp.zeros((x.shape[0], 0), dt)
    v = _vander_kernel(n_cols)(x) if n_cols > 1 else jnp.ones((x.shape[0], 1), dt)
    return v if increasing else v[:, ::-1]


# --- grids -----------------------------------------------------------------------------------


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> Any:
    """npjax implementation of ``numpy.meshgrid``.

    Differences from NumPy: with ``copy=False, sparse=False`` the results are read-only
    broadcast views (NumPy's are writeable, with a warning on write).
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    s0 = (1,) * ndim
    output = [asanyarray(x).reshape(s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        output[0] = output[0].reshape((1, -1) + s0[2:])
        output[1] = output[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        shape = np.broadcast_shapes(*(o.shape for o in output))
        output = tuple(o._broadcast_to(shape) for o in output)
    if copy:
        return tuple(ndarray._owner(o._read()) for o in output)
    return output


def _host_key(key: Any) -> Any:
    def one(v: Any) -> Any:
        return v._host_scalar() if isinstance(v, ndarray) and v.ndim == 0 else _host_copy(v)

    def part(s: Any) -> Any:
        return slice(one(s.start), one(s.stop), one(s.step)) if isinstance(s, slice) else one(s)

    return tuple(part(s) for s in key) if isinstance(key, tuple) else part(key)


class _Grid:
    """``mgrid``/``ogrid``: NumPy's grid of a slice key, computed by NumPy on the host (all
    inputs are Python scalars), narrowed under ``x64=False`` and placed on the device."""

    def __init__(self, sparse: bool) -> None:
        self._np = np.ogrid if sparse else np.mgrid
        self._name = "ogrid" if sparse else "mgrid"

    def __getitem__(self, key: Any) -> Any:
        policy = current()
        result = self._np[_host_key(key)]

        def conv(host: np.ndarray) -> ndarray:
            return _host_to_array(host.astype(_narrow(host.dtype, policy), copy=False),
                                  self._name, policy)

        if isinstance(result, tuple):
            return tuple(conv(r) for r in result)
        return conv(result)

    def __repr__(self) -> str:
        return f"<npjax.{self._name}>"


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


def _indices(dims: tuple, dtype: np.dtype, sparse: bool, policy: Policy) -> Any:
    if dtype == np.bool_ and any(d > 2 for d in dims):
        raise TypeError("arange() is only supported for booleans when the result has at "
                        "most length 2.")
    dev = _device(policy)
    n = len(dims)
    parts = []
    for i, d in enumerate(dims):
        idx = jnp.arange(d, dtype=np.int64, device=dev).astype(dtype)
        parts.append(idx.reshape((1,) * i + (d,) + (1,) * (n - i - 1)))
    if sparse:
        return tuple(parts)
    if not parts:
        return jnp.zeros((0,), dtype, device=dev)
    return jnp.stack([jnp.broadcast_to(p, dims) for p in parts])


@npfunc
def indices(dimensions: Any, dtype: DTypeIn = None, sparse: bool = False) -> Any:
    """npjax implementation of ``numpy.indices`` (default dtype int64; int32 if x64=False)."""
    dims = tuple(operator.index(d) for d in dimensions)
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    policy = current()
    dtype = _dtypes.default_int(policy.x64) if dtype is None else _device_dtype(dtype,
                                                                               "indices")
    return _indices(dims, dtype, sparse, policy)


def fromfunction(function: Any, shape: Any, *, dtype: Any = None, like: Any = None,
                 **kwargs: Any) -> Any:
    """npjax implementation of ``numpy.fromfunction``: ``function`` gets npjax index arrays
    (default dtype float64; float32 if x64=False) and its result is returned as is."""
    if like is not None:
        raise unsupported("fromfunction", "like")
    policy = current()
    dtype = _default_dtype(_dtypes.canonical_dtype(dtype), "fromfunction")
    dims = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    grid = _indices(dims, dtype, False, policy)
    return function(*(ndarray._owner(grid[i]) for i in range(len(dims))), **kwargs)


# --- from host data --------------------------------------------------------------------------


def frombuffer(buffer: Any, dtype: Any = float, count: Any = -1, offset: Any = 0, *,
               like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.frombuffer``.

    Differences from NumPy: the result is a copy on the device, so later changes to a
    mutable buffer (``bytearray``) are not seen; it is read-only exactly when NumPy's is.
    The default dtype stays float64 under ``x64=False`` (it says what the bytes mean).
    """
    if like is not None:
        raise unsupported("frombuffer", "like")
    host = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)
    out = _host_to_array(host, "frombuffer")
    out._readonly = not host.flags.writeable
    return out


def fromiter(iter: Any, dtype: Any, count: Any = -1, *, like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.fromiter`` (read by NumPy on the host, then placed)."""
    if like is not None:
        raise unsupported("fromiter", "like")
    return _host_to_array(np.fromiter(iter, dtype=dtype, count=count), "fromiter")


def fromstring(string: Any, dtype: Any = None, count: Any = -1, *, sep: str = "",
               like: Any = None) -> ndarray:
    """npjax implementation of ``numpy.fromstring`` (parsed by NumPy on the host; default
    dtype float64, float32 if x64=False)."""
    if like is not None:
        raise unsupported("fromstring", "like")
    policy = current()
    dtype = _dtypes.default_float(policy.x64) if dtype is None else dtype
    return _host_to_array(np.fromstring(string, dtype=dtype, count=count, sep=sep),
                          "fromstring", policy)
