"""The host route's hot paths: operator members and ufunc calls on host operands, made by one
factory (``host_path``). ``route_methods`` puts ``host_operator`` and ``host_method``
(``_placement``) in front of ndarray's members; each npjax ufunc holds a ``host_path`` of its
NumPy ufunc for ``ufunc.__call__`` and ``__array_ufunc__``. The rest of the route
(``try_host``, ``place_result``...) is in ``_route.py``.
"""

from __future__ import annotations

import dis
import functools
import inspect
import linecache
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
from npjax._placement._route import (_B1, _DEVICE_DTYPE, _F8, _NUMBER_SCALARS, _OWN_MEMBERS,
                                    DEVICE, NOT_HOST, _device_or_numbers, forced_host,
                                    grows_off_host, host_method, operand, place_new)
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


# --- the hot paths: ``host_path`` makes them from one text ----------------------------------
#
# ``a + b``, ``a += 1``, ``-a`` (the operator members) and ``npjax.add(a, b)``,
# ``npjax.sqrt(a)`` (``ufunc.__call__``, ``__array_ufunc__``) on host arrays and numbers are
# the hot path of small-array code: one Python frame each, where every call, attribute read
# or tuple saved is measurable (``benchmarks/overhead.py``; where ``_hostpath.c`` is built it
# runs the commonest of them and calls these for the rest). ``host_path`` builds each such
# frame, once at import, from the texts below: an operand read (``_read``: what ``host_data``
# answers), NumPy's loop under the error state (``run_loops``), the result placed
# (``place_new``'s common case). Each kind of frame is compiled once (``_maker``) and made per
# ufunc or member as a closure over its NumPy function, counter and fallbacks.


# The names those texts read (``_maker`` compiles them in this module's globals, where a test
# may replace one, as ``numpy_errstate`` in tests/test_hostpath.py).
_TEXT_NAMES = (HOST_STORAGE, SHARED, entered, ever_logged, issue_pending, loops_context_for,
               numpy_errstate, run_loops, _B1, _F8, _DEVICE_DTYPE, _NUMBER_SCALARS, DEVICE,
               NOT_HOST, grows_off_host, host_owner, place_new)


def _read(a: str, x: str, device: str, other: str, scalar: str | None = None,
          then: tuple = ()) -> list[str]:
    """Lines that set ``x`` to what NumPy gets for the operand ``a`` (``host_data``'s answer),
    or return ``device`` for a device array and ``other`` for an operand of another kind
    (``other`` empty: ``a`` is known to be an array, an operator member's ``self``, maybe of
    a subclass). ``scalar``: returned for an npjax scalar instead of reading it; ``then``:
    lines run after an array is read. A view NumPy made of a host array has no lens
    (``_lens`` None: one read tells it); the code runs where host work is allowed, outside
    ``npjax.jit``."""
    lines = [f"{x} = {a}._value",
             f"if type({x}) is not storage:",
             f"    if {a}._lens is not None:  # (None: a view NumPy made of a host array)",
             f"        base = {a}._base",
             "        if base is None or type(base._value) is not storage:",
             f"            return {device}",
             f"    {x} = {a}._layout",
             f"elif {a}._scalar:",
             f"    return {scalar}" if scalar else f"    {x} = {x}[()]", *then]
    if not other:
        return lines
    return ([f"kind = type({a})", "if kind is ndarray:"] + ["    " + s for s in lines] +
            ["elif kind is float or kind is int or kind in _NUMBER_SCALARS:", f"    {x} = {a}",
             "else:", f"    return {other}"])


def _run(ops: str) -> list[str]:
    """Lines that set ``result`` to ``fn(ops)`` run as ``run_loops`` runs it."""
    return ["extobj = numpy_errstate()",
            "context = SHARED[1] if extobj is SHARED[0] else loops_context_for(extobj)",
            "try:",
            f"    result = fn({ops}) if context is None else context.run(fn, {ops})",
            "except RuntimeError as e:",
            f"    result = entered(e, fn, ({ops},))",
            "finally:",
            "    if ever_logged[0]:",
            "        issue_pending()"]


def _compile(key: str, params: str, body: list[str]) -> Any:
    """``make(fn, count, bounded, elide, impl, method)`` returning a function of ``params``
    running ``body``, compiled in this module's globals; its constants are the closure's
    (``storage``: ``HOST_STORAGE``; ``array``: the NumPy array type of NumPy's data and
    results), which read faster than module attributes."""
    source = "\n".join(
        ["def make(fn, count, bounded, elide, impl, method):",
         "    get_context, storage, array, new_host = _context.get, HOST_STORAGE, np.ndarray, "
         "host_owner",
         f"    def {key}({params}):"] + ["        " + s for s in body] +
        [f"    return {key}", ""])
    filename = f"{__file__} ({key})"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), globals(), namespace)
    return namespace["make"]


def _ufunc_reads(nin: int, device: str, other: str) -> list[str]:
    """A ufunc's operand reads (``a``, ``b``) and the bound on its result's ``size``."""
    body = _read("a", "x", device, other)
    if nin == 1:
        return body + ["size = x.size if type(x) is array else 1"]
    return body + _read("b", "y", device, other) + [
        "if type(x) is array:",
        "    size = x.size",
        "    if type(y) is array:",
        "        size *= y.size",
        "        if size > limit and grows_off_host(x, y, limit):",
        f"            return {device}",
        "else:",
        "    size = y.size if type(y) is array else 1"]


def _ufunc_result(nin: int) -> list[str]:
    """A ufunc's NumPy call on ``x`` (and ``y``), counted (as the C call counts: after
    NumPy's call), and its result placed."""
    return _run("x, y" if nin == 2 else "x") + ["count[0] += 1"] + _placed(
        False, "a, b" if nin == 2 else "a")


def _placed(writes_self: bool, operands: str) -> list[str]:
    """NumPy's ``result`` placed (``place_new``'s common case first)."""
    return ["if type(result) is array:"] + (
        ["    if result is x:", "        return self  # in place"] if writes_self else []) + [
        "    if (bounded and size <= limit) or result.size <= limit:",
        "        dtype = result.dtype",
        "        if dtype is _F8 or dtype is _B1 or _DEVICE_DTYPE.get(dtype):",
        "            return new_host(result)",
        "elif type(result) is not tuple:  # a NumPy scalar",
        "    return result",
        f"return place_new(result, ({operands},), limit)"]


@functools.cache
def _maker(nin: int, member: bool, swapped: bool, writes_self: bool, elides: bool) -> Any:
    """``make`` (``_compile``) of one kind of hot path (``host_path`` says which)."""
    if not member:  # a ufunc's call: misses answer DEVICE or NOT_HOST
        return _compile(f"path{nin}", "a, b, limit" if nin == 2 else "a, limit",
                        _ufunc_reads(nin, "DEVICE", "NOT_HOST") + _ufunc_result(nin))
    # an operator member: misses go to the member's general path (``method``)
    body = ["limit = get_context().host",
            f"if limit < 0{' or rest' if nin == 2 else ''}:"]
    if nin == 2:  # (a device policy's common case, device arrays or a Python number: what
        # ``method`` does for them, without its frame)
        body += ["    if not rest and type(self._value) is not storage and self._base is None:",
                 "        kind = type(other)",
                 "        if kind is float or kind is int or kind is ndarray and type(",
                 "                other._value) is not storage and other._base is None:",
                 "            return impl(self, other)"]
    body += [f"    return method({'self, other, *rest' if nin == 2 else 'self'})"]
    if nin == 2:  # (the product of the sizes bounds an elementwise result's size)
        body += _read("self", "x", "impl(self, other, *rest)", "", "method(self, other)",
                      ("items = size = x.size",))
        body += _read("other", "y", "method(self, other)", "method(self, other)", None, (
            "size *= y.size",
            "if size > limit and grows_off_host(x, y, limit):",
            "    return method(self, other)"))
    else:
        body += _read("self", "x", "method(self)", "", "method(self)", ("size = x.size",))
    body += ["count[0] += 1"]  # (counted as the C slots count: before NumPy's call)
    run = _run(("y, x" if swapped else "x, y") if nin == 2 else "x")
    if elides:  # NumPy's temporary elision (``_temporary``): the result written into ``x``
        body += ["if items >= _ELIDE_ITEMS and x.nbytes >= _ELIDE_BYTES and "
                 "x.dtype.kind in elide[1] and _temporary(self, x, y):",
                 "    result = run_loops(elide[0], x, y)",
                 "else:"] + ["    " + s for s in run]
    else:
        body += run
    body += _placed(writes_self, "self, other" if nin == 2 else "self")
    return _compile(f"member{nin}{'_swapped' * swapped}{'_self' * writes_self}"
                    f"{'_elides' * elides}", "self, other, *rest" if nin == 2 else "self", body)


def host_path(fn: Any, nin: int, count: list, bounded: bool = True, member: str | None = None,
              impl: Any = None, method: Any = None) -> Any:
    """The hot path of NumPy's ``fn`` on ``nin`` (1 or 2) host operands, made from the texts
    above, its host calls counted in ``count`` (``_stats.host_cell``). ``bounded``: the
    result has at most as many elements as the product of the operands' sizes (an
    elementwise ufunc, not a matrix product).

    For a ufunc (``member`` None): ``path(a, b, limit)`` or ``path(a, limit)``, NumPy's result
    placed, or ``DEVICE`` / ``NOT_HOST`` for the first operand it refuses (a device array;
    anything but a host array, a Python or a NumPy number); a result that would grow off the
    host answers ``DEVICE``. For the operator member ``member`` (``__add__``, ``__radd__``,
    ``__iadd__``, ``__neg__``...): the member itself, which calls ``impl`` (npjax's device
    member) for a device ``self`` and ``method`` (the general host route) for anything else
    it refuses; reflected members run ``fn`` with the operands swapped, in-place ones and
    those that elide a temporary (``_ELIDABLE``) return ``self`` when NumPy wrote into it."""
    elide = None if member is None else _ELIDABLE.get(member)
    writes_self = member is not None and (member.startswith("__i") or elide is not None)
    make = _maker(nin, member is not None, member in _REFLECTED, writes_self,
                  elide is not None)
    return make(fn, count, bounded, elide, impl, method)


def ufunc_call(general: Any, device: Any) -> Any:
    """``ufunc.__call__``: one- and two-operand calls without keywords on host operands
    (``npjax.add(a, b)``, ``npjax.sqrt(a)``) run the texts above in this one frame; a device
    array among them, or a policy with no host route (``placement="device"``), runs
    ``device(self, args, {}, context)`` (the call past its host route);
    any other call, and any other operand they refuse, runs ``general(self, *args,
    **kwargs)`` (the whole call, whose host route asks the ufunc's ``host_path``)."""
    body = ["if not kwargs:",
            "    n = len(args)",
            "    if n == 2 and self.nin == 2 or n == 1 and self.nin == 1:",
            "        ctx = get_context()",
            "        limit = ctx.host",
            "        if limit >= 0:",
            "            fn, count, bounded = self._np, self._count, self._bounded",
            "            if n == 2:",
            "                a, b = args"]
    on_device = "impl(self, args, kwargs, ctx)"
    body += ["                " + s for s in _ufunc_reads(2, on_device, "method(self, *args)")]
    body += ["                " + s for s in _ufunc_result(2)]
    body += ["            a = args[0]"]
    body += ["            " + s for s in _ufunc_reads(1, on_device, "method(self, *args)")]
    body += ["            " + s for s in _ufunc_result(1)]
    body += ["        return " + on_device]  # (a device policy: no host route to ask)
    body += ["return method(self, *args, **kwargs)"]
    call = _compile("ufunc_call", "self, *args, **kwargs", body)(None, None, None, None, device,
                                                                 general)
    functools.update_wrapper(call, general)
    call.__name__, call.__qualname__ = "__call__", general.__qualname__.replace(
        general.__name__, "__call__")
    return call


host_data = _compile("host_data", "x", _read("x", "data", "DEVICE", "NOT_HOST") +
                     ["return data"])(None, None, None, None, None, None)
host_data.__doc__ = """What NumPy gets for ``x`` on the host route (``_read``): a host array's data
    (its NumPy view for a view, a NumPy scalar for a scalar), a Python or NumPy number as it
    is; ``DEVICE`` for a device array, ``NOT_HOST`` for anything else. Operands like these
    run no Python code inside NumPy's loops (``run_loops``). Where host work is allowed."""


def host_operator(name: str, impl: Any) -> Any:
    """An operator member (``__add__``, ``__iadd__``, ``__neg__``...) preceded by the host
    route, by Python's operator on the NumPy operands: ``host_path``'s member for the common
    case (host arrays and numbers), ``method`` below for the rest."""
    op = _OPERATORS[name]
    get_context = _context.get
    count = _stats.host_cell(name)  # its host calls

    def method(self: ndarray, *args: Any) -> Any:
        limit = get_context().host
        data = self._host()
        if data is None or limit < 0:  # (a device self and device or number operands:
            # no host-only operand, asked in one pass)
            if not (data is None and _device_or_numbers(args)) and has_host_only(
                    (self, *args), {}):
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

    nin = 1 if name in _UNARY_OPERATORS else 2
    # An elementwise result has at most as many elements as the product of its operands'
    # sizes; a matrix product may have more (``(n, 0) @ (0, n)``): its size is read.
    member = host_path(_REFLECTED.get(name, op), nin, count, name not in _MATMULS, name, impl,
                       method)
    functools.update_wrapper(member, impl)
    member.host_first = member.host_method = True
    return member


def _forced_operator(name: str, op: Any, self: ndarray, args: tuple) -> Any:
    """Python's operator ``op`` on NumPy operands, run by ``forced_host`` (an in-place
    operator's result is ``self``)."""
    return forced_host(f"ndarray.{name}", op, (self, *args), {}, call_numpy_ufunc)


def numpy_operator(name: str, self: ndarray, other: Any) -> Any:
    """The operator member ``name`` (``__add__``...) as Python's operator on NumPy operands
    (``self``'s host data, a device array's copy, counted): NumPy's whole protocol, for an
    operand NumPy's own array treats its own way (``_operators._defers``)."""
    return _forced_operator(name, _OPERATORS[name], self, (other,))


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
            return host_owner(result)
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
