"""Function and method calls of the host route in C, when ``_hostpath.c`` is built (issue 37).

The host route's two factories, ``_route.host_first`` (and ``host_method``) and
``_dispatch.npfunc``, mark each function they make with its C call's facts (``host_fast``:
the name its host calls are counted under, NumPy's function, the keywords it may hand to
NumPy as they are, the most positional arguments). ``enable()`` (called once by
``npjax/__init__.py``, after the public namespaces and ``ndarray``'s members are complete)
puts a ``HostFunction`` in place of every function so marked: a C callable
(``_hostpath.FunctionBase``) whose call runs the common case (host arrays, numbers, tuples
and lists of them, dtypes and other plain arguments, called from the user's code) by calling
NumPy's function, or NumPy's method of the array's data, from C, and places the result as
``try_host`` does; anything else calls the Python function it stands for, which stays the one
definition of the call. With no Python frame between the user's line and NumPy, NumPy's
values, errors and warnings are NumPy's own (the Python path's error-state switch and
``warnings.warn`` swap are not needed). A ``HostFunction`` behaves as the function it stands
for: its name, docstring, signature and ``__wrapped__``, its attributes, binding as a method
(NumPy's built-in functions do not bind: nor do their stand-ins), pickling by name. The
pure-Python build (no compiler, ``NPJAX_PURE_PYTHON=1``) keeps the Python functions.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import types
from typing import Any

import numpy as np

from npjax._core._array_base import HOSTPATH
from npjax._runtime import _stats

MANY = sys.maxsize  # (no bound on the positional arguments of a fast call)


def parameters(fn: Any) -> frozenset:
    """The keyword names the C call may hand to NumPy's function as they are: ``fn``'s named
    parameters but ``out``, ``device`` and ``like`` (the Python call decides those); those of
    ``fn.keywords_of`` for a function that takes ``*args, **kwargs`` and passes them on to it
    (``ndarray.sum``)."""
    code = getattr(inspect.unwrap(getattr(fn, "keywords_of", fn)), "__code__", None)
    if code is None:
        return frozenset()
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return frozenset(names) - {"out", "device", "like"}


def _named(module: str, name: str) -> Any:
    """``module.name`` (unpickling a ``HostFunction``)."""
    return getattr(importlib.import_module(module), name)


if HOSTPATH is not None:
    class HostFunction(HOSTPATH.FunctionBase):
        """A function or method of the host route, its common case called in C."""

        def __getattr__(self, name: str) -> Any:  # the function's own (``__code__``...)
            try:
                wrapped = vars(self)["__wrapped__"]
            except KeyError:
                raise AttributeError(name) from None
            return getattr(wrapped, name)

        def __reduce__(self) -> tuple:
            return vars(self)["_npjax_where"]

        def __repr__(self) -> str:
            return repr(vars(self)["__wrapped__"])

    class HostMethod(HostFunction):
        """A ``HostFunction`` that binds as a method (a Python function's stand-in)."""

    HOSTPATH.use_function_vectorcall(HostFunction, False)
    HOSTPATH.use_function_vectorcall(HostMethod, True)
else:  # pragma: no cover - the pure-Python build
    HostFunction = HostMethod = None

ENABLED = False


def is_function(f: Any) -> bool:
    """Whether ``f`` is a Python function or a ``HostFunction`` standing for one."""
    return type(f) is types.FunctionType or (HostFunction is not None and
                                             type(f) in (HostFunction, HostMethod))


def host_function(fn: Any, binds: bool, where: tuple, method: str | None = None,
                  owns: bool = False) -> Any:
    """The ``HostFunction`` standing for ``fn`` (marked ``host_fast`` by its factory; its
    host calls counted under the name given there, or not at all for None). ``owns``: its
    new array is a new host owner whatever its size and dtype (``ndarray.copy``)."""
    name, np_fn, keywords, max_args = fn.host_fast
    made = HostMethod() if binds else HostFunction()
    functools.update_wrapper(made, fn)
    made._npjax_where = where
    made._hostpath_set(None if method else np_fn, fn, method, keywords,
                       [0] if name is None else _stats.host_cell(name), max_args, binds, owns)
    return made


# ndarray's own members whose common case on a host array is NumPy's method of its data:
# name -> (keywords, most positional arguments with self). ``a.copy()`` (no order: C order)
# is ``host_owner(data.copy())``, and not counted as a host call, as the Python member says;
# ``a.astype(dtype, ...)`` is ``data.astype(dtype, ...)`` as a new owner (``a`` itself where
# NumPy gives its data back), its cast warnings NumPy's own at the user's line.
OWN = {"copy": (frozenset(), 1),
       "astype": (frozenset({"dtype", "order", "casting", "subok", "copy"}), 6)}


def _install(namespace: dict, module: str) -> None:
    for name, obj in list(namespace.items()):
        binds = type(obj) is types.FunctionType
        fn = obj if binds else getattr(obj, "__func__", None) if isinstance(
            obj, staticmethod) else None
        if type(fn) is types.FunctionType and getattr(fn, "host_fast", None) is not None and \
                fn.__name__ == name:
            namespace[name] = host_function(fn, binds, (_named, (module, name)))


def enable(namespaces: dict) -> bool:
    """Put ``HostFunction``s in place (once) in ``namespaces`` (module name -> its namespace)
    and in ``ndarray``'s methods; False where the C module is not built."""
    global ENABLED
    from npjax._placement import _fast, _route
    from npjax._core._ndarray import ndarray

    if ENABLED:
        return True
    if HOSTPATH is None or not _fast.ENABLED:
        return False
    HOSTPATH.configure_calls(_route.place_result, np.dtype)
    for module, namespace in namespaces.items():
        _install(namespace, module)
    for name, fn in list(vars(ndarray).items()):
        if not name.startswith("_") and type(fn) is types.FunctionType and \
                getattr(fn, "host_method", False) and getattr(fn, "host_fast", None):
            setattr(ndarray, name, host_function(fn, True, (getattr, (ndarray, name)), name))
    for name, (keywords, max_args) in OWN.items():
        fn = vars(ndarray)[name]
        fn.host_fast = (None, None, keywords, max_args)
        setattr(ndarray, name, host_function(fn, True, (getattr, (ndarray, name)), name, True))
    HOSTPATH.set_transpose(vars(ndarray)["T"].fget)  # ``a.T``: the C base's getter
    HOSTPATH.set_iter(vars(ndarray)["__iter__"])  # ``iter(a)``: the C base's slot
    delattr(ndarray, "T")
    delattr(ndarray, "__iter__")
    ENABLED = True
    return True
