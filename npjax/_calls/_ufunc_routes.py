"""The host route in front of the npjax ufunc class's methods (reduce, accumulate, reduceat,
outer, at): NumPy's own method runs host operands, host-only data is forced to the host, the
rest is npjax's method (``_library/_ufunc_methods``). Operands of other libraries that take
part in NumPy's ufunc protocol (``foreign_override``) go to NumPy's own ufunc as well."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from npjax._runtime import _context, _numpy_calls, _stats
from npjax._core._host_only import has_host_only
from npjax._placement._made import as_arrays
from npjax._core._normalize import foreign_override
from npjax._core._ndarray import ndarray
from npjax._placement._route import (device_or_host, forced_host, host_operands,
                                     npjax_operands, place_result)
from npjax._core._subclasses import SubclassOperand, call_ufunc, has_subclass

_get_context = _context.get


def host_ufunc_method(name: str, impl: Any) -> Any:
    """The ufunc method ``impl`` (reduce, accumulate, ...) preceded by the host route: NumPy's
    ufunc's own method runs host operands."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("out", None) is Ellipsis and name != "at":  # arrays, never scalars
            del kwargs["out"]
            return as_arrays(method(self, *args, **kwargs))
        limit = _get_context().host
        if limit < 0:
            if has_subclass(args, kwargs):  # NumPy's rules for subclass operands
                return call_ufunc(self, args, kwargs, name)
        else:
            try:
                ops = host_operands(args, kwargs, limit)
            except SubclassOperand:
                return call_ufunc(self, args, kwargs, name)
            if ops is not None:
                _stats.host_calls[f"{self.__name__}.{name}"] += 1
                return place_result(_numpy_calls.call_numpy_ufunc(getattr(self._np, name), *ops),
                                    npjax_operands(args, kwargs), limit)
        def host() -> Any:
            return forced_host(f"{self.__name__}.{name}", getattr(self._np, name), args,
                               kwargs, _numpy_calls.call_numpy_ufunc)

        if has_host_only(args, kwargs) or foreign_override(args, kwargs):
            return host()
        # (on a TPU: an operand made for the device in a dtype it cannot hold, a list of
        # floats, a float into an int8 array's ``at``; a float64 result, ``divide.reduce``
        # of ints: NumPy's)
        return device_or_host(impl, (self, *args), kwargs, host)

    functools.update_wrapper(method, impl)
    return method


def route_ufunc_methods(ufunc_class: type) -> None:
    """Put the host route in front of the npjax ufunc class's methods."""
    for name in ("reduce", "accumulate", "reduceat", "outer", "at"):
        setattr(ufunc_class, name, host_ufunc_method(name, getattr(ufunc_class, name)))


def numpy_out(out: Any) -> bool:
    """Whether ``out=`` holds a NumPy array (not an npjax array): NumPy's ufunc writes it."""
    if type(out) is tuple:
        return any(isinstance(o, np.ndarray) for o in out)
    return isinstance(out, np.ndarray)


def _host(x: Any) -> Any:
    if isinstance(x, ndarray):
        data = x._fetch()  # a host array's own data; a device array's copy (counted)
        return data[()] if x._scalar else data
    if type(x) is tuple or type(x) is list:
        return type(x)(_host(v) for v in x)
    return x


def call_into_numpy_out(ufunc: Any, args: tuple, kwargs: dict) -> Any:
    """An npjax ufunc given a NumPy array as ``out=`` (``np.sin(x, out=numpy_array)``, as
    ``numpy.sin(npjax_array, out=numpy_array)`` through ``__array_ufunc__``): NumPy's own ufunc
    runs on the operands' host data and writes the NumPy array, with NumPy's casting, ``where``,
    warnings and errors, and returns it (as NumPy returns its ``out``)."""
    out = kwargs["out"]
    if any(isinstance(o, ndarray) for o in (out if type(out) is tuple else (out,))):
        raise NotImplementedError(f"npjax.{ufunc.__name__}: parameter 'out' holding both NumPy "
                                  "and npjax arrays is not supported")
    _stats.host_calls[ufunc.__name__] += 1
    return _numpy_calls.call_numpy_ufunc(ufunc._np, tuple(_host(a) for a in args),
                                         {k: _host(v) for k, v in kwargs.items()})
