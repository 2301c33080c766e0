"""Ranges and grids: ``arange``, ``linspace``/``logspace``/``geomspace``, ``meshgrid``,
``mgrid``/``ogrid``, ``indices``, ``fromfunction``.

Exactness: float ranges (``linspace``) are computed with one eager JAX operation per NumPy
operation, in NumPy's order: a jitted kernel would let XLA fuse ``y * step + start`` into an
FMA and change the last bit. Values that NumPy computes from Python scalars alone
(``arange``, ``mgrid``/``ogrid``) are computed by NumPy itself on the host and then placed,
which is exact by construction. Defaults and placement are those of ``_creation``.
"""

from __future__ import annotations

import functools
import inspect
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._runtime._errstate import _stacklevel
from npjax._runtime import _bounds, _stats
from npjax._core import _casts, _sharding
from npjax._pure import _dtypes
from npjax._calls._dispatch import DeviceIn, DTypeIn, npfunc, with_device
from npjax._pure._errors import ComplexWarning, unsupported
from npjax._pure._axes import normalize_axis
from npjax._core._ndarray import ndarray
from npjax._core._normalize import place, to_jax
from npjax._runtime._context import current
from npjax._runtime._policy import Policy
from npjax._library._creation import (_astype, _default_dtype, _device,
                                      _explicit_64, _host_to_array, _is_int_dtype, _narrow, array,
                                      asanyarray)
from npjax._placement._route import hand_written
from npjax._pure._declared import CREATION, OWN_ROUTE, OWN_VIEWS

__all__ = ["arange", "linspace", "logspace", "geomspace", "meshgrid", "mgrid", "ogrid",
           "indices", "fromfunction"]


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


@hand_written(CREATION + "; long ranges on the device, others by NumPy")
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
    inputs = (*args, *kwargs.values())  # (a device operand makes a device result)
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
            out = ndarray._owner(place(fast, policy))
            first, by = given.get("start") or 0, given.get("step") or 1
            ends = (first, first + (out.size - 1) * by)
            info = np.iinfo(out.dtype)
            if info.min <= min(ends) and max(ends) <= info.max:  # (no wrap-around)
                _bounds.remember(out._value, min(ends), max(ends))  # for index checks
            return out
    host = np.arange(*args, **kwargs)
    if dtype is None and not policy.x64:
        narrow = _narrow(host.dtype, policy)
        if narrow != host.dtype:
            host = np.arange(*args, **(kwargs | {"dtype": narrow}))
    out = _host_to_array(host, "arange", inputs)
    if host.dtype.kind in "iu" and host.size:  # bounds for index checks, read on the host
        _bounds.remember(out._value, min(host[0], host[-1]), max(host[0], host[-1]))
    return out


arange.__signature__ = inspect.signature(np.arange)  # its arguments are parsed as NumPy's


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
        _dtypes.device_only(dtype)
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
        host = x._fetch()
        return host[()] if x._scalar else host
    return np.asarray(x) if isinstance(x, jax.Array) else x


def _ufunc(name: str) -> Any:
    from npjax._calls._ufuncs import UFUNCS

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
        _dtypes.device_only(dtype)
        if dtype.kind in "biu":
            host = np.logspace(_host_copy(start), _host_copy(stop), num, endpoint,
                               _host_copy(base), dtype, axis)
            return _host_to_array(host, "logspace", (start, stop, base))
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
        _dtypes.device_only(dtype)
        if dtype.kind in "biu":
            host = np.geomspace(_host_copy(start), _host_copy(stop), num, endpoint, dtype, axis)
            return _host_to_array(host, "geomspace", (start, stop))
    policy = current()
    explicit = _explicit_64(start, stop)
    # on the host: XLA's CPU kernels treat subnormals as zero. Python numbers are checked
    # before they become arrays (traced ones under npjax.jit, whose values are unknown).
    if any(np.any((end._fetch() if isinstance(end, ndarray) else np.asarray(end)) == 0)
           for end in (start, stop)):
        raise ValueError("Geometric sequence cannot include zero")
    start, stop = asanyarray(start), asanyarray(stop)
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


# --- grids -----------------------------------------------------------------------------------


@hand_written(OWN_VIEWS)
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
    inputs are Python scalars), narrowed under ``x64=False`` and placed as any new array
    (``_host_to_array``: host arrays under the CPU default)."""

    def __init__(self, sparse: bool) -> None:
        self._np = np.ogrid if sparse else np.mgrid
        self._name = "ogrid" if sparse else "mgrid"

    def __getitem__(self, key: Any) -> Any:
        policy = current()
        result = self._np[_host_key(key)]
        parts = key if isinstance(key, tuple) else (key,)
        inputs = [v for s in parts for v in ((s.start, s.stop, s.step) if isinstance(
            s, slice) else (s,))]

        def conv(host: np.ndarray) -> ndarray:
            return _host_to_array(host.astype(_narrow(host.dtype, policy), copy=False),
                                  self._name, inputs)

        made = tuple(conv(r) for r in result) if isinstance(result, tuple) else conv(result)
        first = made[0] if isinstance(made, tuple) and made else made
        on_host = not isinstance(first, ndarray) or first._host() is not None
        (_stats.host_calls if on_host else _stats.calls)[self._name] += 1  # (the report)
        return made

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
    dtype = _dtypes.default_int(policy.x64) if dtype is None else _dtypes.device_only(dtype)
    return _indices(dims, dtype, sparse, policy)


@hand_written(OWN_ROUTE + ": calls the user's function, which calls npjax")
def fromfunction(function: Any, shape: Any, *, dtype: Any = None, like: Any = None,
                 **kwargs: Any) -> Any:
    """npjax implementation of ``numpy.fromfunction``: ``function`` gets the rows of
    ``indices(shape, dtype)`` as npjax arrays (default dtype float64; float32 if x64=False),
    placed as ``indices`` places them, and its result is returned as is."""
    if like is not None:
        raise unsupported("fromfunction", "like")
    dtype = _default_dtype(_dtypes.canonical_dtype(dtype), "fromfunction")
    dims = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    grid = indices(dims, dtype)
    return function(*(grid[i] for i in range(len(dims))), **kwargs)
