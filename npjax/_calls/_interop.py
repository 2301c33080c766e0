"""npjax arrays among other libraries: NumPy's dispatch protocols, DLPack, the Array API, JAX
pytrees, and explicit conversions.

- ``numpy.add(x, 1)``, ``numpy.sum(x)``, ``numpy.linalg.inv(x)``, ``numpy_array + x`` on npjax
  arrays run npjax's function of the same name (``__array_ufunc__``, ``__array_function__``):
  they stay on the device and return npjax arrays. npjax's fallbacks announce themselves as
  usual. NumPy functions npjax takes as they are (data-free helpers) run NumPy's own code,
  which reads the array through ``__array__`` (a host copy).
- A NumPy array passed as ``out=`` to a NumPy ufunc gets the result copied into it.
- ``jax.jit``/``jax.grad``/``jax.vmap`` accept npjax arrays: the class is a pytree whose one
  leaf is the current value (a view contributes its materialised value; the function gets a
  fresh owner, so writes inside a JAX transform never reach the caller's array).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core._ndarray import install_methods, ndarray
from npjax._execution import _lazy_cold
from npjax._core._out import write_numpy_out
from npjax._core._normalize import to_jax
from npjax._calls._registry import public_module, public_namespace
from npjax._placement._route import DEVICE, NOT_HOST, forced_host, hand_written
from npjax._runtime._numpy_calls import call_numpy_ufunc
from npjax._placement._made import place_made, place_numpy
from npjax._pure._dtypes import is_device_dtype
from npjax._runtime import _context
from npjax._calls._ufuncs import UFUNCS
from npjax._core._array_base import HOSTPATH
from npjax._pure._declared import FOREIGN

_get_context = _context.get

__all__ = ["asnumpy", "from_dlpack", "from_jax"]

_NAMESPACES = ("numpy", "numpy.linalg", "numpy.fft", "numpy.lib.stride_tricks")
_targets: dict[Any, Any] = {}


def _target(func: Any) -> Any:
    """npjax's function for NumPy's ``func`` (cached; ``None`` when npjax has no such name)."""
    try:
        return _targets[func]
    except KeyError:
        pass
    module = getattr(func, "__module__", "")
    found = None
    if module in _NAMESPACES:  # npjax's public function of that name (the registry's record)
        found = public_namespace(module).get(func.__name__)
    _targets[func] = found
    return found


def _array_function(self: ndarray, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    target = _target(func)
    if target is None or target is func:  # npjax uses NumPy's own: run it without dispatch
        return place_numpy(func._implementation(*args, **kwargs), args, kwargs)
    return target(*args, **kwargs)


def _array_ufunc(self: ndarray, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any
                 ) -> Any:
    ours = _OURS.get(ufunc)  # (NumPy's ufunc objects only: SciPy's may share their names)
    if ours is None:  # a ufunc npjax does not have (``numpy.strings``', SciPy's...): its
        if method == "at" and isinstance(inputs[0], ndarray):  # own loops; ``at`` in place
            data = np.array(inputs[0]._fetch())
            ufunc.at(data, *(np.asarray(x) if isinstance(x, ndarray) else x
                             for x in inputs[1:]), **kwargs)
            inputs[0][...] = data
            return None
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        return forced_host(ufunc.__name__, fn, inputs, kwargs, call_numpy_ufunc)
    if not kwargs and method == "__call__":  # NumPy's scalar operators land here
        if len(inputs) == 2 and ours.nin == 2:  # a NumPy scalar with a host array: NumPy's
            limit = _get_context().host  # own ufunc, without ``ufunc.__call__``'s keywords
            if limit >= 0:
                result = ours._host_path(inputs[0], inputs[1], limit)
                if result is not DEVICE and result is not NOT_HOST:
                    return result
        return ours(*inputs)
    fn = ours if method == "__call__" else getattr(ours, method, None)
    if fn is None:
        return NotImplemented
    out = kwargs.pop("out", None)
    outs = out if isinstance(out, tuple) else (out,) if out is not None else ()
    host_outs = [o for o in outs if isinstance(o, np.ndarray)]
    if not host_outs:
        if out is not None:
            kwargs["out"] = out
        return fn(*inputs, **kwargs)
    if len(outs) != 1:
        raise NotImplementedError("npjax: several NumPy arrays as 'out' of one ufunc")
    result = fn(*inputs, **kwargs)
    return write_numpy_out(outs[0], result, kwargs.get("casting", "same_kind"))


_OURS = {ours._np: ours for ours in UFUNCS.values()}  # NumPy's ufunc -> npjax's
_SCALAR_TYPES = (np.float64, np.float32, np.float16, np.complex128, np.complex64, np.int64,
                 np.int32, np.uint8)
_SCALAR_UFUNCS = (np.add, np.subtract, np.multiply, np.true_divide)  # (their slots' ufuncs)



def _dlpack(self: ndarray, *, stream: Any = None, max_version: Any = None,
            dl_device: Any = None, copy: Any = None) -> Any:
    """A host array's capsule is NumPy's (its memory, every DLPack version NumPy serves); a
    device array's is JAX's, or a host copy's where JAX refuses the version asked for."""
    options = {"stream": stream, "max_version": max_version, "dl_device": dl_device,
               "copy": copy}
    host = self._host()
    if host is not None:
        return host.__dlpack__(**options)
    value = self._read()
    try:
        return value.__dlpack__(**{k: v for k, v in options.items() if v is not None})
    except BufferError:
        if max_version is None or tuple(max_version) >= (1, 0):
            raise
        return np.array(value).__dlpack__(**options)


def _dlpack_device(self: ndarray) -> tuple:
    host = self._host()
    return host.__dlpack_device__() if host is not None else self._read().__dlpack_device__()


def _array_namespace(self: ndarray, api_version: str | None = None) -> Any:
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(f"npjax: unsupported Array API version {api_version!r}")
    return public_module("numpy")


_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def _to_jax(self: ndarray) -> jax.Array:
    """The current value as an immutable ``jax.Array`` (no copy; a host array of a dtype the
    accelerator cannot hold, float64 on a TPU: a copy on the CPU backend)."""
    data = self._host()
    if data is not None and not is_device_dtype(self.dtype):
        value = _lazy_cold.on_cpu_backend(data)
        if value is not None:
            return value
    return self._read()


@hand_written(FOREIGN + "; device='cpu' imports to the host")
def from_dlpack(x: Any, /, *, device: Any = None, copy: Any = None) -> ndarray:
    """npjax implementation of ``numpy.from_dlpack``: a new npjax array from any DLPack
    producer (a copy on the device; npjax never writes into the producer's memory). With
    ``device="cpu"`` (the one device NumPy names) NumPy's own import: a host array, sharing
    the producer's memory unless ``copy=True``, NumPy's errors for other devices."""
    if device is not None:
        return ndarray._owner(np.from_dlpack(x, device=device, copy=copy))
    return ndarray._owner(jnp.from_dlpack(x, copy=copy))


def asnumpy(x: Any) -> np.ndarray:
    """A host NumPy copy of ``x`` (npjax arrays, JAX arrays, anything array-like)."""
    return np.asarray(x)


def from_jax(a: jax.Array) -> ndarray:
    """An npjax array holding the ``jax.Array`` ``a`` (no copy; ``a`` itself stays as it is)."""
    if not isinstance(a, jax.Array):
        raise TypeError(f"npjax.from_jax: expected a jax.Array, got {type(a).__name__}")
    return ndarray._owner(a)


def _flatten(x: ndarray) -> tuple:
    """The pytree leaf: ``to_jax()`` (a host array the accelerator cannot hold, float64 on a
    TPU: its copy on the CPU backend, which JAX then computes on)."""
    return (_to_jax(x),), x._scalar


def _unflatten(scalar: bool, children: tuple) -> ndarray:
    return ndarray._owner(children[0], scalar)


def _reduce(self: ndarray) -> tuple:
    """Pickling: the value travels as a host NumPy array (and the class of a subclass
    instance, rebuilt with ``__array_finalize__(None)`` as NumPy's pickles are)."""
    host = self._fetch()
    if type(self) is not ndarray:
        return (_subclass_from_host, (type(self), host))
    return (_from_host, (host, self._scalar))


def _from_host(host: np.ndarray, scalar: bool) -> ndarray:
    """An unpickled array: placed as any new array (``place_made``); scalars on the device."""
    if scalar:
        if not is_device_dtype(host.dtype):
            return ndarray._owner(host, scalar)
        return ndarray._owner(to_jax(host), scalar)
    return place_made(host)


def _subclass_from_host(cls: type, host: np.ndarray) -> ndarray:
    from npjax._core._subclasses import as_subclass

    if not is_device_dtype(host.dtype):  # (float64 on a TPU: a host array)
        return as_subclass(ndarray._owner(host), cls, None)
    return as_subclass(ndarray._owner(to_jax(host)), cls, None)


jax.tree_util.register_pytree_node(ndarray, _flatten, _unflatten)
install_methods({"__reduce__": _reduce,
    "__array_function__": _array_function, "__array_ufunc__": _array_ufunc,
    "__dlpack__": _dlpack, "__dlpack_device__": _dlpack_device,
    "__array_namespace__": _array_namespace, "to_jax": _to_jax,
})
if HOSTPATH is not None:  # the C base's member runs this one but for the common case
    HOSTPATH.set_array_ufunc(_array_ufunc, _OURS)  # (``s * a``: npjax/_placement/_fast.py)
    del ndarray.__array_ufunc__
    # ``s * a`` (``s`` one of these NumPy scalars) calls npjax's ufunc as __array_ufunc__ would,
    # without NumPy's override protocol in between (``scalar_operators`` in _hostpath.c).
    HOSTPATH.scalar_operators(_SCALAR_TYPES, tuple(_OURS[u] for u in _SCALAR_UFUNCS))
