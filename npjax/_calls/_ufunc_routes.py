"""The host route in front of the npjax ufunc class's methods (reduce, accumulate, reduceat,
outer, at): NumPy's own method runs host operands, host-only data is forced to the host, the
rest is npjax's method (``_library/_ufunc_methods``)."""

from __future__ import annotations

import functools
from typing import Any

from npjax._runtime import _context, _numpy_calls, _stats
from npjax._core._host_only import has_host_only
from npjax._core._made import as_arrays
from npjax._core._placement import forced_host, host_operands, npjax_operands, place_result
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
        if has_host_only(args, kwargs):
            return forced_host(f"{self.__name__}.{name}", getattr(self._np, name), args,
                               kwargs, _numpy_calls.call_numpy_ufunc)
        return impl(self, *args, **kwargs)

    functools.update_wrapper(method, impl)
    return method


def route_ufunc_methods(ufunc_class: type) -> None:
    """Put the host route in front of the npjax ufunc class's methods."""
    for name in ("reduce", "accumulate", "reduceat", "outer", "at"):
        setattr(ufunc_class, name, host_ufunc_method(name, getattr(ufunc_class, name)))
