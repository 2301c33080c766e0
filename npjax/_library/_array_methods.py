"""The rest of ``numpy.ndarray``'s methods and protocol members on ``npjax.ndarray``: ``dot``,
``conj``/``conjugate``, ``to_device``, byte-level ``byteswap``/``getfield``/``setfield``,
``__array_wrap__``, ``__array_finalize__``, ``__setstate__``, ``__delitem__``, ``__sizeof__`` and
``__class_getitem__``.

Byte-level methods move bytes on the device (``lax.bitcast_convert_type``), so their results are
bit-exact. ``getfield`` is a view in NumPy; here it is a read-only copy, so a write to it raises
instead of silently not reaching the original (``setfield`` is the way to write a field).
"""

from __future__ import annotations

import functools
import types
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._execution import _lazy_cold
from npjax._execution._lazy_cold import is_held
from npjax._pure._dtypes import is_device_dtype
from npjax._core._ndarray import (HOST_STORAGE, _set_owner, detach_views, install_methods,
                                 ndarray)
from npjax._core._views import from_bytes, to_bytes


@functools.lru_cache(maxsize=64)
def _byteswap_kernel(dtype: np.dtype):
    def swap(x: jax.Array) -> jax.Array:
        if dtype.kind == "c":
            half = np.dtype(f"f{dtype.itemsize // 2}")
            return lax.complex(_byteswap_kernel(half)(jnp.real(x)),
                               _byteswap_kernel(half)(jnp.imag(x)))
        if dtype.itemsize == 1:
            return x
        return lax.bitcast_convert_type(to_bytes(x)[..., ::-1], dtype)

    return jax.jit(swap)


@functools.lru_cache(maxsize=64)
def _getfield_kernel(src: np.dtype, dtype: np.dtype, offset: int):
    return jax.jit(lambda x: from_bytes(to_bytes(x)[..., offset:offset + dtype.itemsize],
                                         dtype))


@functools.lru_cache(maxsize=64)
def _setfield_kernel(src: np.dtype, dtype: np.dtype, offset: int):
    def put(x: jax.Array, val: jax.Array) -> jax.Array:
        raw = to_bytes(x)
        field = jnp.broadcast_to(to_bytes(val), raw.shape[:-1] + (dtype.itemsize,))
        return from_bytes(raw.at[..., offset:offset + dtype.itemsize].set(field), src)

    return jax.jit(put)


def _field_dtype(self: ndarray, dtype: Any, offset: Any, name: str) -> tuple[np.dtype, int]:
    """NumPy's checks of a field request, and npjax's refusal of bool reinterpretations."""
    dtype, offset = np.dtype(dtype), int(offset)
    if offset < 0:
        raise ValueError("offset is negative")
    if dtype.itemsize > self.dtype.itemsize:
        raise ValueError("new type is larger than original type")
    if offset + dtype.itemsize > self.dtype.itemsize:
        raise ValueError("new type plus offset is larger than original type")
    stored = dtype if name == "getfield" else self.dtype  # the dtype whose bytes are new
    if stored == np.bool_ and (dtype == np.bool_) != (self.dtype == np.bool_):
        raise NotImplementedError(
            f"npjax.ndarray.{name}: reinterpreting bytes as or into a bool array (NumPy keeps "
            "bytes other than 0/1 in it); convert with astype instead")
    if dtype.fields is not None or not (is_device_dtype(dtype) or is_held(dtype)):
        raise NotImplementedError(f"npjax.ndarray.{name}: dtype {dtype} is not a device dtype")
    return dtype, offset


def _dot(self: ndarray, b: Any, /, out: Any = None) -> Any:
    """npjax implementation of ``numpy.ndarray.dot`` (``npjax.dot(self, b, out)``)."""
    from npjax._library._products import dot

    return dot(self, b, out)


def _conjugate(self: ndarray) -> ndarray:
    """npjax implementation of ``numpy.ndarray.conjugate``: the array itself when it is not
    complex (as in NumPy), else ``npjax.conjugate(self)``."""
    if self.dtype.kind != "c":
        return ndarray._owner(self._read(), True) if self._scalar else self
    from npjax._calls._ufuncs import UFUNCS

    return UFUNCS["conjugate"](self)


def _to_device(self: ndarray, device: Any, /, *, stream: Any = None) -> ndarray:
    """Array API ``to_device``: ``self`` when it is on ``device`` already (a ``jax.Device`` or a
    platform name such as "cpu"), else a copy placed there. A host array of a dtype the
    accelerator cannot hold (float64 on a TPU) goes to a CPU device only: itself otherwise."""
    if stream is not None:
        raise ValueError("The stream argument in to_device() is not supported")
    if isinstance(device, str):
        try:
            device = jax.devices(device)[0]
        except RuntimeError:
            raise ValueError(f"Unsupported device: {device}.") from None
    if not isinstance(device, jax.Device):
        raise ValueError(f"Unsupported device: {device!r}.")
    data = self._host()
    if data is not None and not is_device_dtype(self.dtype):  # (float64 on a TPU: host data)
        if device == self.device or device.platform != "cpu":  # (it never lives there)
            return self
        value = _lazy_cold.on_cpu_backend(data)
        if value is not None:
            return ndarray._owner(value, self._scalar)
    value = self._read()
    if value.devices() == {device}:
        return self
    return ndarray._owner(jax.device_put(value, device), self._scalar)


def _byteswap(self: ndarray, inplace: bool = False) -> ndarray:
    """npjax implementation of ``numpy.ndarray.byteswap`` (each element's bytes reversed;
    complex parts separately), bit-exact on the device."""
    if self._scalar and inplace:
        raise ValueError("cannot byteswap a scalar in-place")
    swapped = _byteswap_kernel(self.dtype)(self._read())
    if inplace:
        self._write(swapped)
        return self
    return ndarray._owner(swapped, self._scalar)


def _getfield(self: ndarray, dtype: Any, offset: int = 0) -> ndarray:
    """npjax implementation of ``numpy.ndarray.getfield`` (bytes ``offset`` onwards read as
    ``dtype``). Differences from NumPy: a read-only copy, not a view."""
    dtype, offset = _field_dtype(self, dtype, offset, "getfield")
    if is_held(self.dtype, dtype):  # NumPy's bytes; a host array for a held dtype
        from npjax._core._normalize import to_jax

        field = np.array(self._fetch().getfield(dtype, offset))
        field.flags.writeable = self._scalar
        out = ndarray._owner(field if is_held(dtype) else to_jax(field), self._scalar)
        out._readonly = not self._scalar
        return out
    out = ndarray._owner(_getfield_kernel(self.dtype, dtype, offset)(self._read()),
                         self._scalar)
    out._readonly = not self._scalar
    return out


def _setfield(self: ndarray, val: Any, dtype: Any, offset: int = 0) -> None:
    """npjax implementation of ``numpy.ndarray.setfield``: write ``val`` as ``dtype`` into
    bytes ``offset`` onwards of every element."""
    from npjax._core._normalize import to_jax

    dtype, offset = _field_dtype(self, dtype, offset, "setfield")
    if self._scalar:
        raise ValueError("assignment destination is read-only")
    if is_held(self.dtype, dtype, getattr(val, "dtype", None)):  # NumPy writes the bytes
        if not self.flags.writeable:
            raise ValueError("assignment destination is read-only")
        new = np.array(self._fetch())
        new.setfield(val._fetch() if isinstance(val, ndarray) else val, dtype, offset)
        self._write(new if self._host() is not None else to_jax(new))
        return
    value = jnp.asarray(to_jax(val)).astype(dtype)
    value = jnp.broadcast_to(value, self.shape)
    self._write(_setfield_kernel(self.dtype, dtype, offset)(self._read(), value))


def _array_wrap(self: ndarray, array: Any, context: Any = None,
                return_scalar: bool = False, /) -> Any:
    """``__array_wrap__``: ``array`` as an npjax array (a scalar for a 0-d result when
    ``return_scalar``), npjax's one array type."""
    from npjax._library._creation import asarray

    out = asarray(array)
    if return_scalar and out.ndim == 0:
        return ndarray._owner(out._read(), True)
    return out


def _array_finalize(self: ndarray, obj: Any, /) -> None:
    """``__array_finalize__``: nothing to do for the base class (NumPy's does nothing)."""
    return None


def _setstate(self: ndarray, state: tuple, /) -> None:
    """``__setstate__``: NumPy's pickle state (version, shape, dtype, is_fortran, raw data).
    This array gets new storage; views made before keep the old data, as in NumPy."""
    from npjax._core._normalize import to_jax

    if type(self._value) is HOST_STORAGE and not self._scalar:  # a host owner: NumPy's own
        self._value.__setstate__(state)
        self._rebind(self._value)
        return
    host = np.empty(0)
    host.__setstate__(state)
    detach_views(self)
    scalar = self._scalar
    _set_owner(self, to_jax(host), scalar)
    if host.ndim > 1 and host.flags.f_contiguous and not host.flags.c_contiguous:
        self._layout = np.empty(host.shape, host.dtype, order="F")


def _reduce_ex(self: ndarray, protocol: int, /) -> tuple:
    return self.__reduce__()


def _sizeof(self: ndarray) -> int:
    """``sys.getsizeof``: the handle plus, for an owner, its data (device memory here)."""
    return object.__sizeof__(self) + (self.nbytes if self._base is None else 0)


def _delitem(self: ndarray, index: Any) -> None:
    raise ValueError("cannot delete array elements")


def _class_getitem(cls: type, item: Any, /) -> types.GenericAlias:
    """``npjax.ndarray[shape_type, dtype_type]`` in annotations, as NumPy's."""
    n = len(item) if isinstance(item, tuple) else 1
    if n not in (1, 2):
        raise TypeError(f"Too {'many' if n > 2 else 'few'} arguments for npjax.ndarray")
    return types.GenericAlias(cls, item)


install_methods({
    "dot": _dot, "conj": _conjugate, "conjugate": _conjugate, "to_device": _to_device,
    "byteswap": _byteswap, "getfield": _getfield, "setfield": _setfield,
    "__array_wrap__": _array_wrap, "__array_finalize__": _array_finalize,
    "__setstate__": _setstate, "__reduce_ex__": _reduce_ex, "__delitem__": _delitem,
    "__sizeof__": _sizeof,
    "__class_getitem__": classmethod(_class_getitem),
})
