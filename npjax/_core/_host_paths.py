"""The host route's operator members and ufunc calls: ``route_methods`` puts ``host_operator``
and ``host_method`` (``_placement``) in front of ndarray's members; ``host_ufunc2`` and
``host_ufunc1`` run a ufunc's NumPy loop on host operands for ``ufunc.__call__`` and
``__array_ufunc__``. The rest of the route (``try_host``, ``place_result``...) is in
``_placement.py``.
"""

from __future__ import annotations

import dis
import functools
import inspect
import operator
import sys
from typing import Any

import numpy as np

from npjax._runtime import _context, _stats
from npjax._runtime._numpy_calls import (SHARED, call_numpy_ufunc, entered, ever_logged,
                                         issue_pending, loops_context_for, numpy_errstate,
                                         run_loops)
from npjax._core._host_only import has_host_only
from npjax._core._ndarray import HOST_STORAGE, host_owner, ndarray
from npjax._core._placement import (_B1, _DEVICE_DTYPE, _F8, _NUMBER_SCALARS, _OWN_MEMBERS,
                                    DEVICE, NOT_HOST, forced_host, grows_off_host,
                                    host_method, operand, place_new, place_result,
                                    npjax_operands)
from npjax._core._subclasses import SubclassOperand, call_method

# ndarray's operator members, by Python's operator functions: a call runs Python's whole
# binary-operator protocol on the NumPy operands (NotImplemented, reflection, scalars).
_OPERATORS = {}
_REFLECTED = {}  # reflected member -> the operator it runs with operands swapped
for _short in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
               "or", "xor", "lshift", "rshift"):
    _fn = getattr(operator, _short + "_" if _short in ("and", "or") else _short)
    _OPERATORS[f"__{_short}__"] = _fn
    _OPERATORS[f"__r{_short}__"] = functools.partial(lambda f, a, b: f(b, a), _fn)
    _REFLECTED[f"__r{_short}__"] = _fn
    _OPERATORS[f"__i{_short}__"] = getattr(operator, f"i{_short}")
for _short in ("lt", "le", "eq", "ne", "gt", "ge", "neg", "pos", "abs", "invert"):
    _OPERATORS[f"__{_short}__"] = getattr(operator, _short)
_OPERATORS["__divmod__"] = divmod
_OPERATORS["__rdivmod__"] = lambda a, b: divmod(b, a)


new_host = host_owner


def host_data(x: Any) -> Any:
    """What NumPy gets for ``x`` on the host route: a host array's data (its NumPy view for a
    view, a NumPy scalar for a scalar), a Python or NumPy number as it is; ``DEVICE`` for a
    device array, ``NOT_HOST`` for anything else. Operands like these run no Python code inside
    NumPy's loops (``run_loops``)."""
    kind = type(x)
    if kind is ndarray:  # ``x._host()`` written out: this is every host operation's path
        data = x._value
        if type(data) is not HOST_STORAGE:
            base = x._base  # a view (``_value`` None) or a device array
            if base is None or type(base._value) is not HOST_STORAGE:
                return DEVICE
            data = x._layout
        return data[()] if x._scalar else data
    if kind is float or kind is int or kind in _NUMBER_SCALARS:
        return x
    return NOT_HOST


def host_ufunc2(np_ufunc: Any, a: Any, b: Any, limit: int, bounded: bool = False) -> Any:
    """NumPy's binary ``np_ufunc(a, b)`` placed as a new result, for operands ``host_data``
    accepts; otherwise its answer (``DEVICE`` or ``NOT_HOST``) for the first it refuses.
    ``bounded``: an elementwise ufunc, whose result has at most as many elements as the
    product of its operands' sizes. The hot path of ``npjax.add(a, b)``: ``host_data``,
    ``run_loops`` and ``place_new`` are written out for the common case."""
    kind = type(a)
    if kind is ndarray:
        x = a._value
        if type(x) is not HOST_STORAGE or a._scalar:
            x = host_data(a)
            if x is DEVICE or x is NOT_HOST:
                return x
    elif kind is not float and kind is not int:
        x = host_data(a)
        if x is DEVICE or x is NOT_HOST:
            return x
    else:
        x = a
    kind = type(b)
    if kind is ndarray:
        y = b._value
        if type(y) is not HOST_STORAGE or b._scalar:
            y = host_data(b)
            if y is DEVICE or y is NOT_HOST:
                return y
    elif kind is not float and kind is not int:
        y = host_data(b)
        if y is DEVICE or y is NOT_HOST:
            return y
    else:
        y = b
    if type(x) is HOST_STORAGE:
        size = x.size
        if type(y) is HOST_STORAGE:
            size *= y.size
            if size > limit and grows_off_host(x, y, limit):
                return DEVICE
    else:
        size = y.size if type(y) is HOST_STORAGE else 1
    extobj = numpy_errstate()  # ``run_loops`` written out
    context = SHARED[1] if extobj is SHARED[0] else loops_context_for(extobj)
    try:
        result = np_ufunc(x, y) if context is None else context.run(np_ufunc, x, y)
    except RuntimeError as e:
        result = entered(e, np_ufunc, (x, y))
    finally:
        if ever_logged[0]:
            issue_pending()
    if type(result) is np.ndarray:  # ``place_new`` written out (a ufunc's new array)
        if (bounded and size <= limit) or result.size <= limit:
            dtype = result.dtype
            if dtype is _F8 or dtype is _B1 or _DEVICE_DTYPE.get(dtype):
                return new_host(result)
    elif type(result) is not tuple:
        return result
    return place_result(result, npjax_operands((a, b), {}), limit)


def host_ufunc1(np_ufunc: Any, a: Any, limit: int) -> Any:
    """``host_ufunc2`` for a unary ufunc."""
    kind = type(a)
    if kind is ndarray:
        x = a._value
        if type(x) is not HOST_STORAGE or a._scalar:
            x = host_data(a)
            if x is DEVICE or x is NOT_HOST:
                return x
    elif kind is not float and kind is not int:
        x = host_data(a)
        if x is DEVICE or x is NOT_HOST:
            return x
    else:
        x = a
    extobj = numpy_errstate()  # ``run_loops`` written out
    context = SHARED[1] if extobj is SHARED[0] else loops_context_for(extobj)
    try:
        result = np_ufunc(x) if context is None else context.run(np_ufunc, x)
    except RuntimeError as e:
        result = entered(e, np_ufunc, (x,))
    finally:
        if ever_logged[0]:
            issue_pending()
    if type(result) is np.ndarray:  # ``place_new`` written out (a ufunc's new array)
        if result.size <= limit:
            dtype = result.dtype
            if dtype is _F8 or dtype is _B1 or _DEVICE_DTYPE.get(dtype):
                return new_host(result)
    elif type(result) is not tuple:
        return result
    return place_result(result, npjax_operands((a,), {}), limit)


def host_operator(name: str, impl: Any) -> Any:
    """An operator member (``__add__``, ``__iadd__``, ``__neg__``...) preceded by the host
    route, by Python's operator on the NumPy operands. This is the hot path of small-array
    code, so the common case (a host array with a host array or a Python number) is written
    out: every call or tuple saved here is measurable (``benchmarks/overhead.py``)."""
    op = _OPERATORS[name]
    get_context = _context.get
    count = _stats.host_cell(name)  # its host calls

    def method(self: ndarray, *args: Any) -> Any:
        limit = get_context().host
        data = self._host()
        if data is None or limit < 0:
            if has_host_only((self, *args), {}):
                return _forced_operator(name, op, self, args)
            return impl(self, *args)
        x = data[()] if self._scalar else data
        if not args:
            count[0] += 1
            result = run_loops(op, x)
        else:
            y = host_data(args[0])
            if y is not DEVICE and y is not NOT_HOST and len(args) == 1:
                if grows_off_host(x, y, limit):
                    return impl(self, *args)
                count[0] += 1
                result = run_loops(op, x, y)
            else:
                try:
                    y = operand(args[0], limit)
                except SubclassOperand:  # NumPy's rules (a plain self: plain results)
                    return call_method(name, method, self, args, {})
                if y is DEVICE:
                    if has_host_only((self, *args), {}):
                        return _forced_operator(name, op, self, args)
                    return impl(self, *args)
                count[0] += 1
                result = call_numpy_ufunc(op, (x, y, *args[1:]), {})
        return _operator_result(self, data, result, args, limit)

    if name in _UNARY_OPERATORS:
        functools.update_wrapper(method, impl)
        method.host_first = method.host_method = True
        return method
    swapped = name in _REFLECTED
    fn = _REFLECTED.get(name, op)
    elide = _ELIDABLE.get(name)
    # An elementwise result has at most as many elements as the product of its operands'
    # sizes; a matrix product may have more (``(n, 0) @ (0, n)``): its size is read.
    elementwise = name not in _MATMULS
    new_host = host_owner

    def binary(self: ndarray, other: Any, *rest: Any) -> Any:
        """``method``'s commonest case first: a host array with a host array, a Python or a
        NumPy number. Every attribute read and call here is measurable
        (``benchmarks/overhead.py``), so ``host_data``, ``run_loops`` and
        ``_operator_result`` are written out for it; anything else goes to ``method``."""
        data = self._value
        if type(data) is not HOST_STORAGE:
            # A view of a host array: its NumPy view (``_lens`` None: a view NumPy made, the
            # commonest, told by one read; a host root stays one, and under ``npjax.jit``
            # the limit below is -1: ``method`` looks again)
            if self._lens is not None:
                base = self._base
                if base is None or type(base._value) is not HOST_STORAGE:
                    return impl(self, other, *rest)  # a device array: as ``method`` would
            data = self._layout
        elif self._scalar:
            return method(self, other, *rest)
        limit = get_context().host
        if limit < 0 or rest:
            return method(self, other, *rest)
        kind = type(other)
        size = items = data.size
        if kind is ndarray:  # ``host_data`` written out for a host array or a host view
            y = other._value
            if type(y) is not HOST_STORAGE:  # (views are never scalars)
                if other._lens is not None:  # (None: a view NumPy made of a host array)
                    base = other._base
                    if base is None or type(base._value) is not HOST_STORAGE:
                        return method(self, other)  # a device operand
                y = other._layout
            elif other._scalar:
                y = y[()]
            # The product of the sizes bounds an elementwise result (a NumPy scalar's size is
            # 1); operands of one shape make a result of that shape (no call: measurable).
            size *= y.size
            if size > limit and data.shape != y.shape and grows_off_host(data, y, limit):
                return method(self, other)
        elif kind is float or kind is int:
            y = other
        else:
            y = host_data(other)  # a NumPy number, or refused
            if y is DEVICE or y is NOT_HOST:
                return method(self, other)
        count[0] += 1
        if elide is not None and items >= _ELIDE_ITEMS and data.nbytes >= _ELIDE_BYTES and \
                data.dtype.kind in elide[1] and _temporary(self, data, y):
            result = run_loops(elide[0], data, y)  # NumPy's temporary elision: into ``data``
        else:  # ``run_loops`` written out
            extobj = numpy_errstate()
            context = SHARED[1] if extobj is SHARED[0] else loops_context_for(extobj)
            try:
                if context is None:
                    result = fn(y, data) if swapped else fn(data, y)
                else:
                    result = context.run(fn, y, data) if swapped else context.run(fn, data, y)
            except RuntimeError as e:
                result = entered(e, fn, (y, data) if swapped else (data, y))
            finally:
                if ever_logged[0]:
                    issue_pending()
        if type(result) is np.ndarray:  # ``_operator_result`` written out
            if result is data:
                return self  # in place
            # (NumPy's operators on its arrays and numbers make new arrays: no ``base``)
            if (elementwise and size <= limit) or result.size <= limit:
                dtype = result.dtype
                if dtype is _F8 or dtype is _B1 or _DEVICE_DTYPE.get(dtype):
                    return new_host(result)
        elif type(result) is not tuple:  # a NumPy scalar (``a @ b`` of vectors)
            return result
        return place_new(result, (self, other), limit)

    functools.update_wrapper(binary, impl)
    binary.host_first = binary.host_method = True
    return binary


def _forced_operator(name: str, op: Any, self: ndarray, args: tuple) -> Any:
    """Python's operator ``op`` on NumPy operands, run by ``forced_host`` (an in-place
    operator's result is ``self``)."""
    return forced_host(f"ndarray.{name}", op, (self, *args), {}, call_numpy_ufunc)


_UNARY_OPERATORS = frozenset({"__neg__", "__pos__", "__abs__", "__invert__"})
_MATMULS = frozenset({"__matmul__", "__rmatmul__", "__imatmul__"})


def _operator_result(self: ndarray, data: np.ndarray, result: Any, args: tuple,
                     limit: int) -> Any:
    """An operator member's result: ``self`` when NumPy wrote into its data (in place), a
    new host array or a NumPy scalar in the common cases, else ``place_new``'s answer."""
    kind = type(result)
    if kind is np.ndarray:
        if result is data:
            return self
        if result.base is None and result.size <= limit and _DEVICE_DTYPE.get(result.dtype):
            return new_host(result)
    elif kind is not tuple:  # a NumPy scalar (``a @ b`` of vectors), as ``place_new`` says
        return result
    return place_new(result, (self, *args), limit)

# NumPy's temporary elision: in ``x * x + 1`` the ``+`` writes into the temporary ``x * x``
# (no new array, no page faults: large arrays run markedly faster). npjax wraps that
# temporary, so NumPy cannot see it is one; the operator members below do it instead, on
# NumPy's conditions: an operator of the interpreter (not a call from C code, which may
# still use the operand), an array nobody else can reach (the wrapper and its buffer
# referenced only by this call), NumPy's own array of at least 256 KiB (NumPy's limit), and
# a result of the same dtype and shape as the temporary (the other operand of its dtype and
# shape, or a Python number where that keeps the dtype).
_ARITHMETIC, _BITWISE = frozenset("fciu"), frozenset("biu")
# member -> (its in-place operator, dtype kinds of temporaries it may write into)
_ELIDABLE = {"__add__": (operator.iadd, _ARITHMETIC), "__sub__": (operator.isub, _ARITHMETIC),
             "__mul__": (operator.imul, _ARITHMETIC), "__radd__": (operator.iadd, _ARITHMETIC),
             "__rmul__": (operator.imul, _ARITHMETIC),
             "__truediv__": (operator.itruediv, frozenset("fc")),
             "__and__": (operator.iand, _BITWISE), "__or__": (operator.ior, _BITWISE),
             "__xor__": (operator.ixor, _BITWISE), "__rand__": (operator.iand, _BITWISE),
             "__ror__": (operator.ior, _BITWISE), "__rxor__": (operator.ixor, _BITWISE)}
_ELIDE_BYTES = 256 * 1024
_ELIDE_ITEMS = _ELIDE_BYTES // 32  # fewer elements than this are under it at any itemsize
_BINARY_OPCODES = frozenset(code for opname, code in dis.opmap.items() if opname == "BINARY_OP"
                            or opname.startswith(("BINARY_", "INPLACE_")) and opname not in (
                                "BINARY_SUBSCR", "BINARY_SLICE"))
# References to a temporary while ``_temporary`` looks: the interpreter's stack, the member's
# parameter and this function's, getrefcount's argument; to its buffer: the wrapper's
# ``_value`` and ``_layout``, the member's local, this function's parameter, getrefcount's.
_TEMPORARY_REFS, _BUFFER_REFS = 4, 5


def _temporary(self: ndarray, data: np.ndarray, other: Any) -> bool:
    """Whether the operator member may write its result into ``self``'s buffer (``data``)."""
    kind = type(other)
    if kind is np.ndarray:
        if other.dtype != data.dtype or (other.shape != data.shape and other.ndim != 0):
            return False
    elif kind is float or kind is int:  # (with integers NEP 50 may raise OverflowError)
        if data.dtype.kind not in "fc":
            return False
    elif getattr(other, "dtype", None) != data.dtype:  # NumPy's scalars keep their dtype
        return False
    if type(self) is not ndarray or self._cache is not None \
            or self._readonly or data.base is not None or not data.flags.writeable:
        return False
    if sys.getrefcount(self) > _TEMPORARY_REFS or sys.getrefcount(data) > _BUFFER_REFS:
        return False
    frame = sys._getframe(2)  # the code that applied the operator
    return frame.f_code.co_code[frame.f_lasti] in _BINARY_OPCODES


def route_methods() -> None:
    """Put the host route in front of ``ndarray``'s methods NumPy's ndarray also has: on a
    host array NumPy's own method runs (``a.sum()`` is NumPy's ``ndarray.sum``, also where
    npjax's method is its module function ``npjax.sum``)."""
    for name, impl in list(vars(ndarray).items()):
        if name in _OWN_MEMBERS or not inspect.isfunction(impl) or getattr(
                impl, "host_method", False) or not hasattr(np.ndarray, name):
            continue
        route = host_operator if name in _OPERATORS else host_method
        setattr(ndarray, name, route(name, impl))
