"""Function application: apply_along_axis, apply_over_axes, vectorize, frompyfunc.

These call a Python function once per slice or element, as NumPy does. ``apply_along_axis``
and ``vectorize`` with a ``signature`` hand the function npjax arrays (slices of the input)
and stack the results: by NumPy's own loop into a new array placed as any other
(``place_made``) when the inputs and results are host data, else on the device. ``vectorize``
without a signature hands it the same Python objects NumPy's object loop does (device inputs
are fetched once) and places the results as any new array (device inputs: on the device).
``frompyfunc`` returns object arrays, which live on the host as in NumPy.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._library._creation import _astype, asarray
from npjax._core._subclasses import refuse
from npjax._pure import _dtypes
from npjax._core._index_values import convert_value
from npjax._pure._errors import unsupported
from npjax._execution._lazy import concrete
from npjax._pure._axes import normalize_axis
from npjax._core._host_only import host_only
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._placement._route import DEVICE, forced_host, hand_written, host_limit, operand
from npjax._placement._made import from_device, place_made
from npjax._core._subclasses import SubclassOperand
from npjax._library._shape_ops import expand_dims
from npjax._core._views import settled
from npjax._pure._declared import OWN_ROUTE

__all__ = ["apply_along_axis", "apply_over_axes", "vectorize", "frompyfunc"]

_NoValue = np._NoValue


@functools.lru_cache(maxsize=256)
def _put_kernel(shape: tuple, dtype: np.dtype) -> Any:
    def put(buff, i, v):
        return settled(lax.dynamic_update_index_in_dim(buff, v.astype(dtype)[None], i, 0))

    return jax.jit(put, donate_argnums=(0,))


def _stack_results(results: list, dtype: np.dtype, shape: tuple) -> jax.Array:
    """Results of ``shape`` (each converted as ``buff[i] = r`` converts it) stacked."""
    values = []
    for r in results:
        v = concrete(convert_value(r, dtype, shape))
        if isinstance(v, np.ndarray):
            v = np.broadcast_to(v.astype(dtype, copy=False), shape)
        else:
            v = jnp.broadcast_to(concrete(_astype(v, np.dtype(dtype), warn=False)), shape)
        values.append(v)
    if all(isinstance(v, np.ndarray) for v in values):  # host values: one transfer
        return to_jax(np.stack(values) if values else np.zeros((0,) + shape, dtype))
    # Device values: written one by one into a donated buffer, as NumPy's ``buff[i] = r``
    # (one compiled kernel per shape, whatever the number of results).
    buff = jnp.zeros((len(values),) + shape, dtype)
    put = _put_kernel(buff.shape, np.dtype(dtype))
    for i, v in enumerate(values):
        buff = put(buff, np.intp(i), v)
    return buff


# --- apply_along_axis, apply_over_axes ---------------------------------------------------------


@hand_written(OWN_ROUTE + ": calls the user's function, which calls npjax")
def apply_along_axis(func1d: Any, axis: int, arr: Any, *args: Any, **kwargs: Any) -> ndarray:
    """npjax implementation of ``numpy.apply_along_axis``: ``func1d`` gets 1-d npjax views
    of ``arr``; the results are stacked on the device."""
    refuse("apply_along_axis", arr)
    arr = asarray(arr)
    nd = arr.ndim
    axis = normalize_axis(axis, nd)
    in_dims = list(range(nd))
    inarr_view = arr.transpose(in_dims[:axis] + in_dims[axis + 1:] + [axis])
    inds = (ind + (Ellipsis,) for ind in np.ndindex(inarr_view.shape[:-1]))
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0"
                         ) from None
    res = asarray(func1d(inarr_view[ind0], *args, **kwargs))
    results = [res]
    results.extend(func1d(inarr_view[ind], *args, **kwargs) for ind in inds)
    shape = inarr_view.shape[:-1] + res.shape
    ndim = len(shape)
    buff_dims = list(range(ndim))
    permute = (buff_dims[0:axis] + buff_dims[ndim - res.ndim:ndim]
               + buff_dims[axis:ndim - res.ndim])
    device = arr._host() is None
    host = _stacked_on_host(results, res.dtype, device)
    if host is not None:  # NumPy's own loop, its result placed as any new array
        buff = np.empty(shape, res.dtype)
        for ind, value in zip(np.ndindex(inarr_view.shape[:-1]), host):
            buff[ind + (Ellipsis,)] = value
        return place_made(np.transpose(buff, permute), device)
    stacked = _stack_results(results, res.dtype, res.shape)
    return ndarray._owner(jnp.transpose(stacked.reshape(shape), permute))


_NO_LIMIT = 2**62


def _host_values(results: list) -> list | None:
    """``results`` as NumPy gets them on the host route (``operand``), or None when one is
    a device array (or a subclass instance) or the policy computes nothing on the host
    (unless one is of a host-only dtype: those are always computed there)."""
    limit = host_limit()
    if limit < 0:
        if not any(host_only(r) for r in results):
            return None
        limit = _NO_LIMIT
    values = []
    for r in results:
        try:
            v = operand(r, limit)
        except SubclassOperand:
            return None
        if v is DEVICE:
            return None
        values.append(v)
    return values


def _stacked_on_host(results: list, dtype: np.dtype, device: bool) -> list | None:
    """``results`` as NumPy's loop gets them where they are stacked on the host (None: on the
    device): host inputs' host results (``_host_values``), and every result, fetched, where
    the stack's dtype or a result's has no device form (object, str; float64 and complex128
    where the accelerator cannot hold them: ``_capabilities.HOST_DTYPES``)."""
    host = None if device else _host_values(results)
    if host is None and (not _dtypes.is_device_dtype(np.dtype(dtype))
                         or any(host_only(r) for r in results)):
        host = _host_args(list(results))
    return host


@hand_written(OWN_ROUTE + ": calls the user's function, which calls npjax")
def apply_over_axes(func: Any, a: Any, axes: Any) -> ndarray:
    """npjax implementation of ``numpy.apply_over_axes``."""
    refuse("apply_over_axes", a)
    val = asarray(a)
    n = a.ndim
    if np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = n + axis
        res = func(val, axis)
        if res.ndim == val.ndim:
            val = res
        else:
            res = expand_dims(res, axis)
            if res.ndim == val.ndim:
                val = res
            else:
                raise ValueError("function is not returning an array of the correct shape")
    return val


# --- frompyfunc --------------------------------------------------------------------------------


def _host_args(args: Any) -> Any:
    """npjax arrays as host arrays (object loops run on the host)."""
    if isinstance(args, ndarray):
        host = args._fetch()
        return host[()] if args._scalar else host
    if isinstance(args, tuple):
        return tuple(_host_args(a) for a in args)
    if isinstance(args, list):
        return [_host_args(a) for a in args]
    return args


class _PyFunc:
    """A ufunc made by ``frompyfunc``: object-dtype loops on the host, as in NumPy."""

    def __init__(self, ufunc: np.ufunc) -> None:
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__
        self.__doc__ = ufunc.__doc__

    def _run(self, method: str, args: tuple, kwargs: dict) -> Any:
        """NumPy's object loops on the host; results are host arrays (object dtype), device
        arrays given as ``out=`` get them written back."""
        fn = self._ufunc if method == "__call__" else getattr(self._ufunc, method)
        return forced_host(self.__name__, fn, args, kwargs, _call_plain)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("__call__", args, kwargs)

    def reduce(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("reduce", args, kwargs)

    def accumulate(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("accumulate", args, kwargs)

    def reduceat(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("reduceat", args, kwargs)

    def outer(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("outer", args, kwargs)

    def at(self, a: Any, *args: Any) -> None:
        if isinstance(a, ndarray) and a._host() is None:
            raise unsupported(self.__name__ + ".at", "a",
                              "object loops cannot write into device arrays")
        self._run("at", (a, *args), {})

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_ufunc"], name)

    def __repr__(self) -> str:
        return f"<npjax ufunc {self.__name__!r}>"


def _call_plain(fn: Any, args: tuple, kwargs: dict) -> Any:
    return fn(*args, **kwargs)


@hand_written(OWN_ROUTE + ": gives a ufunc-like object that computes with NumPy")
def frompyfunc(func: Any, nin: int, nout: int, *, identity: Any = None) -> _PyFunc:
    """npjax implementation of ``numpy.frompyfunc``: a ufunc over Python objects.

    Differences from NumPy: the result is not a ``numpy.ufunc`` instance (it wraps one); npjax
    arguments are fetched to the host, results are object-dtype host arrays as in NumPy;
    a device array as the target of ``.at`` raises ``NotImplementedError``.
    """
    return _PyFunc(np.frompyfunc(func, nin, nout, identity=identity))


# --- vectorize ---------------------------------------------------------------------------------

_DIMENSION_NAME = r"\w+"
_CORE_DIMENSION_LIST = f"(?:{_DIMENSION_NAME}(?:,{_DIMENSION_NAME})*)?"
_ARGUMENT = rf"\({_CORE_DIMENSION_LIST}\)"
_ARGUMENT_LIST = f"{_ARGUMENT}(?:,{_ARGUMENT})*"
_SIGNATURE = f"^{_ARGUMENT_LIST}->{_ARGUMENT_LIST}$"


def _parse_gufunc_signature(signature: str) -> tuple:
    signature = re.sub(r"\s+", "", signature)
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return tuple([tuple(re.findall(_DIMENSION_NAME, arg))
                  for arg in re.findall(_ARGUMENT, arg_list)]
                 for arg_list in signature.split("->"))


def _update_dim_sizes(dim_sizes: dict, arg: Any, core_dims: tuple) -> None:
    if not core_dims:
        return
    num_core_dims = len(core_dims)
    if arg.ndim < num_core_dims:
        raise ValueError(f"{arg.ndim}-dimensional argument does not have enough dimensions "
                         f"for all core dimensions {core_dims!r}")
    core_shape = arg.shape[-num_core_dims:]
    for dim, size in zip(core_dims, core_shape):
        if dim in dim_sizes:
            if size != dim_sizes[dim]:
                raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs "
                                 f"{dim_sizes[dim]!r}")
        else:
            dim_sizes[dim] = size


def _dtype_of(x: Any) -> np.dtype:
    """The dtype ``numpy.asarray(x)`` would have, without fetching npjax data."""
    if isinstance(x, ndarray | jax.Array):
        return np.dtype(x.dtype)
    return np.asarray(x).dtype


def _vectorize_dtype(dtype: np.dtype) -> Any:
    return dtype.char if dtype.char in "SU" else dtype


def _to_host_objects(values: list) -> list:
    """Replace npjax arrays among ``values`` by host values, one transfer per kind."""
    groups: dict = {}
    for i, v in enumerate(values):
        if isinstance(v, ndarray):
            groups.setdefault((v.shape, v.dtype, v._scalar), []).append(i)
    out = list(values)
    for (_, _, scalar), idx in groups.items():
        host = jax.device_get([values[i]._read() for i in idx])
        for i, h in zip(idx, host):
            out[i] = h[()] if scalar else h
    return out


def _result_array(objects: np.ndarray, dtype: Any, device: bool) -> Any:
    """Object results as NumPy converts them to ``dtype``: an npjax array (never a scalar)
    placed as any new array (``place_made``; ``device``: an input was a device array);
    host-only dtypes (object, str...) are host arrays."""
    flat = _to_host_objects(list(objects.reshape(-1)))
    host_objects = np.empty(len(flat), dtype=object)
    host_objects[:] = flat
    host = np.asarray(host_objects.reshape(objects.shape), dtype=dtype)
    return place_made(host, device)


class vectorize:
    """npjax implementation of ``numpy.vectorize`` (otypes, excluded, cache, signature).

    Without ``signature`` the function is called per element with the Python objects NumPy
    passes (its first-element probe, when ``otypes`` is None, gets NumPy scalars); with a
    ``signature`` it gets npjax arrays (scalars for 0-d core). Results are npjax arrays (host
    arrays for host-only dtypes such as str).

    Differences from NumPy: elements are visited in C order of the broadcast inputs (NumPy's
    object loop may follow the memory order of non-contiguous inputs); it matters only for
    functions with side effects.
    """

    def __init__(self, pyfunc: Any = _NoValue, otypes: Any = None, doc: Any = None,
                 excluded: Any = None, cache: bool = False, signature: Any = None) -> None:
        if (pyfunc is not _NoValue) and (not callable(pyfunc)):
            raise TypeError("When used as a decorator, only accepts keyword arguments.")
        self.pyfunc = pyfunc
        self.cache = cache
        self.signature = signature
        if pyfunc is not _NoValue and hasattr(pyfunc, "__name__"):
            self.__name__ = pyfunc.__name__
        self._doc = None
        self.__doc__ = doc
        if doc is None and hasattr(pyfunc, "__doc__"):
            self.__doc__ = pyfunc.__doc__
        else:
            self._doc = doc
        if isinstance(otypes, str):
            for char in otypes:
                if char not in np.typecodes["All"]:
                    raise ValueError(f"Invalid otype specified: {char}")
        elif np.iterable(otypes):
            otypes = [_vectorize_dtype(np.dtype(x)) for x in otypes]
        elif otypes is not None:
            raise ValueError("Invalid otype specification")
        self.otypes = otypes
        self.excluded = set() if excluded is None else set(excluded)
        self._in_and_out_core_dims = (None if signature is None
                                      else _parse_gufunc_signature(signature))

    def _init_stage_2(self, pyfunc: Any, *args: Any, **kwargs: Any) -> vectorize:
        self.__name__ = pyfunc.__name__
        self.pyfunc = pyfunc
        self.__doc__ = pyfunc.__doc__ if self._doc is None else self._doc
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.pyfunc is _NoValue:
            return self._init_stage_2(*args, **kwargs)
        excluded = self.excluded
        if not kwargs and not excluded:
            func = self.pyfunc
            vargs = list(args)
        else:
            names = [n for n in kwargs if n not in excluded]
            inds = [i for i in range(len(args)) if i not in excluded]
            the_args = list(args)

            def func(*vargs: Any) -> Any:
                for n, i in enumerate(inds):
                    the_args[i] = vargs[n]
                kwargs.update(zip(names, vargs[len(inds):]))
                return self.pyfunc(*the_args, **kwargs)

            vargs = [args[i] for i in inds]
            vargs.extend([kwargs[n] for n in names])
        if self.signature is not None:
            return self._call_with_signature(func, vargs)
        if not vargs:
            return func()
        return self._call_elementwise(func, vargs)

    def _call_elementwise(self, func: Any, args: list) -> Any:
        hosts = [a._fetch() if isinstance(a, ndarray) else np.asarray(a)
                 for a in args]
        first = None
        if self.otypes is not None:
            otypes = self.otypes
            nout = len(otypes)
        else:
            if any(h.size == 0 for h in hosts):
                raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` "
                                 "is set")
            outputs = func(*[h.flat[0] for h in hosts])
            if self.cache:
                first = outputs
            if isinstance(outputs, tuple):
                nout = len(outputs)
            else:
                nout = 1
                outputs = (outputs,)
            otypes = "".join(_dtype_of(outputs[k]).char for k in range(nout))
        objects = [h.astype(object) for h in hosts]
        b = np.broadcast(*objects)
        shape = b.shape
        results = [np.empty(shape, dtype=object) for _ in range(nout)]
        flats = [r.reshape(-1) for r in results]
        for i, values in enumerate(b):
            if i == 0 and first is not None:
                out = first
            else:
                out = func(*values)
            if nout == 1:
                flats[0][i] = out
            else:
                if not isinstance(out, tuple) or len(out) != nout:
                    continue  # NumPy's object loop leaves these outputs None
                for f, o in zip(flats, out):
                    f[i] = o
        device = from_device(args)
        if nout == 1:
            return _result_array(results[0], otypes[0], device)
        return tuple(_result_array(r, t, device) for r, t in zip(results, otypes))

    def _call_with_signature(self, func: Any, args: list) -> Any:
        input_core_dims, output_core_dims = self._in_and_out_core_dims
        if len(args) != len(input_core_dims):
            raise TypeError(f"wrong number of positional arguments: expected "
                            f"{len(input_core_dims)!r}, got {len(args)!r}")
        args = [asarray(a) for a in args]
        dim_sizes: dict = {}
        loop_shapes = []
        for arg, core_dims in zip(args, input_core_dims):
            _update_dim_sizes(dim_sizes, arg, core_dims)
            loop_shapes.append(arg.shape[:arg.ndim - len(core_dims)])
        broadcast_shape = np.broadcast_shapes(*loop_shapes)
        args = [a._broadcast_to(broadcast_shape + tuple(dim_sizes[d] for d in core))
                for a, core in zip(args, input_core_dims)]
        otypes = self.otypes
        nout = len(output_core_dims)
        collected: list[list] | None = None
        core_shapes: list = []
        dtypes: list = []
        for index in np.ndindex(*broadcast_shape):
            results = func(*(arg[index] for arg in args))
            n_results = len(results) if isinstance(results, tuple) else 1
            if nout != n_results:
                raise ValueError(f"wrong number of outputs from pyfunc: expected {nout!r}, "
                                 f"got {n_results!r}")
            if nout == 1:
                results = (results,)
            if collected is None:
                for result, core_dims in zip(results, output_core_dims):
                    _update_dim_sizes(dim_sizes, result, core_dims)
                core_shapes = [tuple(dim_sizes[d] for d in core) for core in output_core_dims]
                dtypes = [np.dtype(otypes[k]) if otypes is not None else _dtype_of(r)
                          for k, r in enumerate(results)]
                collected = [[] for _ in range(nout)]
            for store, result in zip(collected, results):
                store.append(result)
        if collected is None:
            if otypes is None:
                raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` "
                                 "is set")
            if any(dim not in dim_sizes for dims in output_core_dims for dim in dims):
                raise ValueError("cannot call `vectorize` with a signature including new "
                                 "output dimensions on size 0 inputs")
            core_shapes = [tuple(dim_sizes[d] for d in core) for core in output_core_dims]
            dtypes = [np.dtype(t) for t in otypes]
            collected = [[] for _ in range(nout)]
        outputs = []
        device = from_device(args)
        for store, core, dtype in zip(collected, core_shapes, dtypes):
            host = _stacked_on_host(store, dtype, device)
            if host is not None:  # NumPy's own loop, its result placed as any new array
                buff = np.empty(broadcast_shape + core, dtype)
                for index, value in zip(np.ndindex(*broadcast_shape), host):
                    buff[index] = value
                outputs.append(place_made(buff, device))
                continue
            stacked = _stack_results(store, dtype, core)
            outputs.append(ndarray._owner(stacked.reshape(broadcast_shape + core)))
        return outputs[0] if nout == 1 else tuple(outputs)
