"""Placement: which calls NumPy computes on the host, and where their results live.

A *host* array is an ``npjax.ndarray`` whose storage is a NumPy array (``_ndarray.py``). A call
runs on the host, by NumPy itself, when the policy allows it (``Policy.host_limit`` >= 0: an
x64 policy without ``device``/``sharding``, outside ``npjax.jit``) and none of its operands is
a device array; NumPy's values, dtypes, views, errors and warnings are then NumPy's by construction.
Its results stay on the host when they have at most ``host_limit`` elements (views and 0-d
results always do); larger new arrays move to the device once, as they are made. A call with
a device operand runs on the device and reads each host operand as a device copy: a host array
never turns into a device array, so NumPy's views of it stay valid.

Anchor: cuPyNumeric's eager (NumPy) and deferred (Legate) thunks; results eager when small and
all inputs eager.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any

import jax
import numpy as np

from npjax._runtime import _context, _rerun_warnings, _stats
from npjax._runtime._policy import DEFAULT_LIMIT
from npjax._pure._dtypes import DEVICE_DTYPE as _DEVICE_DTYPE
from npjax._pure._dtypes import MAX_DEVICE_NDIM, device_dtype_of
from npjax._pure._declared import Declaration, declare
from npjax._pure._errors import HostOnly
from npjax._execution import _lazy_cold
from npjax._runtime._numpy_calls import (call_numpy_method, call_numpy_python,
                                         run_loops, runs_loops)
from npjax._core._device_copies import _to_device
from npjax._core._normalize import array_method_value, foreign_override
from npjax._placement._fast_calls import MANY, parameters
from npjax._core._host_only import has_host_only, host_only, run_fetched
from npjax._core._ndarray import HOST_STORAGE, from_numpy, host_owner, ndarray
from npjax._core._out import DEVICE_WRITES, out_buffer
from npjax._core._subclasses import (HANDLED, SubclassOperand, call_function, call_method,
                                     has_subclass)


def host_limit() -> int:
    """The largest result the current context computes on the host, or -1 (no host work)."""
    return _context.get().host


def beyond(size: int, limit: int) -> bool:
    """Whether an array of ``size`` elements leaves the host under ``limit`` (on a CPU backend
    the default limit is lifted for eager work: ``Policy.keeps_large``)."""
    return size > limit and not (limit == DEFAULT_LIMIT and _context.get().policy.keeps_large())


def grows_off_host(x: Any, y: Any, limit: int) -> bool:
    """Whether broadcasting two host operands makes a result that leaves the host (``beyond``):
    such a call runs on the device from copies of the small operands, rather than NumPy
    computing the large result here and moving it (on a GPU, n-body's ``pos[None] -
    pos[:, None]``: 12.6M elements made by NumPy and sent across each step, 25x the device's
    time). The product of the sizes bounds the result's size, so small operands cost one
    multiplication; JAX's backend is asked (``beyond``) only for a result over the limit."""
    if type(x) is not np.ndarray or type(y) is not np.ndarray or x.size * y.size <= limit:
        return False
    xs, ys = x.shape, y.shape
    if xs == ys:
        return False  # no larger than its operands
    size = _broadcast_size(xs, ys)
    return size > max(x.size, y.size) and beyond(size, limit)


@functools.lru_cache(maxsize=4096)
def _broadcast_size(xs: tuple, ys: tuple) -> int:
    """The number of elements of shapes ``xs`` and ``ys`` broadcast together, or -1 where
    NumPy raises its own error (``np.broadcast_shapes`` costs microseconds: loops repeat)."""
    try:
        shape = np.broadcast_shapes(xs, ys)
    except ValueError:
        return -1
    size = 1
    for n in shape:
        size *= n
    return size


_PLAIN_SCALARS = {int, float, bool, complex}

# NumPy's number scalars (what a host array's element read returns): plain operands too.
_NUMBER_SCALARS = frozenset(np.dtype(c).type for c in np.typecodes["All"] if c not in "OSUVMm")
_F8, _B1 = np.dtype(np.float64), np.dtype(np.bool_)


def operand(x: Any, limit: int) -> Any:
    """``x`` as NumPy gets it: a host array's data (a NumPy scalar for an npjax scalar), a
    small foreign NumPy array as it is, or the marker ``DEVICE`` for a device array, a
    ``jax.Array`` or a large NumPy array."""
    kind = type(x)
    if kind is ndarray:
        data = x._host()
        if data is None:
            return DEVICE
        return data[()] if x._scalar else data
    if kind in _PLAIN_SCALARS or isinstance(x, np.generic):
        return x
    if kind is np.ndarray:  # results that alias it are copied (``place_result``)
        return DEVICE if beyond(x.size, limit) else x
    if kind is list or kind is tuple:
        for item in x:
            kind = type(item)
            if kind in _PLAIN_SCALARS:
                continue
            if kind is ndarray or kind is np.ndarray or kind is list or kind is tuple or \
                    isinstance(item, jax.Array | ndarray) or \
                    getattr(kind, "__array__", None) is not None:
                return _sequence(x, limit)  # nested: NumPy must never meet an npjax array
        return x
    if isinstance(x, jax.Array):
        return DEVICE
    if isinstance(x, ndarray):  # a subclass instance: the caller applies NumPy's rules
        raise SubclassOperand
    converted = array_method_value(x)  # (an ``__array__`` that returns an npjax array)
    return x if converted is x else operand(converted, limit)


def _sequence(xs: Any, limit: int) -> Any:
    items = []
    for item in xs:
        item = operand(item, limit)
        if item is DEVICE:
            return DEVICE
        items.append(item)
    return type(xs)(items)


DEVICE = object()  # marker: a device operand


def host_operands(args: tuple, kwargs: dict, limit: int) -> tuple[tuple, dict] | None:
    """The operands as NumPy sees them, or None when one of them lives on the device (or an
    ``out=`` is not a host npjax array: ``out_buffer``, the out writer's host branch, says
    what NumPy writes into)."""
    out = _sequence(args, limit)
    if out is DEVICE:
        return None
    if kwargs:
        kw = {}
        for k, v in kwargs.items():
            if (k == "device" or k == "like") and v is not None:
                return None  # an explicit device (or like=): the device path decides
            if k == "out":
                v = out_buffer(v)
                if v is DEVICE_WRITES:
                    return None
                kw[k] = v
                continue
            v = operand(v, limit)
            if v is DEVICE:
                return None
            kw[k] = v
        return out, kw
    return out, kwargs


NOT_HOST = object()  # ``try_host``'s answer when the call must run on the device


def forced_host(name: str, fn: Any, args: tuple, kwargs: dict, run: Any = None,
                owner: Any = None) -> Any:
    """``fn(*args, **kwargs)`` run by NumPy on the host because an operand has a host-only
    dtype (``has_host_only``), whatever the policy: device operands come to the host once
    (counted); results of host-only dtypes are host arrays, others are placed as the policy
    and the operands say (on the device under a device policy or beside a device operand).
    ``run``: how NumPy's function is called (``_runner(fn)`` by default); ``owner``: the
    array whose NumPy method ``fn`` is (its views are views of it)."""
    result, device = run_fetched(name, fn, args, kwargs, run or _runner(fn))
    limit = _context.get().host
    inputs = npjax_operands(args, kwargs)
    limit = -1 if device or limit < 0 else limit
    given = {id(x) for x in inputs if type(x) is np.ndarray} if owner is None else ()
    if given:  # (the caller's NumPy arrays: an ``out=`` NumPy gives back as it is)
        items = result if type(result) is tuple else (result,)
        if any(id(r) in given for r in items):
            placed = tuple(r if id(r) in given else place_result(r, inputs, limit)
                           for r in items)
            return placed if type(result) is tuple else placed[0]
    return place_result(result, inputs if owner is None else (owner, *inputs), limit)


def _device_or_numbers(args: tuple) -> bool:
    """Whether every argument is a plain npjax device array or a Python number: then none is
    a subclass instance or an array of a host-only dtype (what ``try_host`` asks on a device
    call), answered in one pass."""
    for a in args:
        kind = type(a)
        if kind is ndarray:
            if type(a._value) is HOST_STORAGE or (
                    a._base is not None and type(a._base._value) is HOST_STORAGE):
                return False
        elif not (kind is int or kind is float or kind in _PLAIN_SCALARS):
            return False
    return True


def try_host(name: str, fn: Any, args: tuple, kwargs: dict, public: Any = None) -> Any:
    """``fn(*args, **kwargs)`` run by NumPy when the context and the operands allow it (its
    results placed), else ``NOT_HOST``. ``public``: the npjax function (for subclass rules)."""
    limit = _context.get().host
    if limit < 0:
        if not kwargs and _device_or_numbers(args):  # the common device call
            return NOT_HOST
        if has_subclass(args, kwargs):  # (HANDLED: the function's own code keeps the class)
            if name in HANDLED:
                return NOT_HOST
            return call_function(name, fn, args, kwargs, public)
        if has_host_only(args, kwargs):
            return forced_host(name, fn, args, kwargs)
        return NOT_HOST
    if not kwargs:  # the common case, host arrays and numbers, in one pass
        ops, inputs = [], []
        for a in args:
            kind = type(a)
            if kind is ndarray:
                data = a._value  # (``a._host()``, read here: a call costs ~0.1 us)
                if type(data) is not HOST_STORAGE:
                    base = a._base
                    if base is None or type(base._value) is not HOST_STORAGE:
                        if _device_or_numbers(args):  # (no host-only operand among them)
                            return NOT_HOST
                        if has_host_only(args, kwargs):
                            return forced_host(name, fn, args, kwargs)
                        return NOT_HOST
                    data = a._layout
                elif a._scalar:
                    data = data[()]
                ops.append(data)
                inputs.append(a)
            elif kind is int or kind is float or kind in _PLAIN_SCALARS:
                ops.append(a)
            else:
                break
        else:
            _stats.host_calls[name] += 1
            run = _RUNNERS.get(fn) or _runner(fn)
            if run is _run_quiet:
                result = fn(*ops)
            elif run is _run_function and 0 < len(ops) < 3:  # C code on NumPy arrays and
                result = run_loops(fn, *ops)  # numbers: no Python code inside that could warn
            else:
                result = run(fn, ops, kwargs)
            if type(result) is np.ndarray:  # a new array, unless an operand given back
                for x in ops:  # (``atleast_1d``): that array, as ``place_result`` says
                    if x is result:
                        break
                else:
                    return place_new(result, inputs, limit)
            return place_result(result, inputs, limit)
    try:
        ops = host_operands(args, kwargs, limit)
    except SubclassOperand:  # NumPy's rules for subclass operands (_subclasses)
        if name in HANDLED:
            return NOT_HOST
        return call_function(name, fn, args, kwargs, public)
    if ops is None:
        if has_host_only(args, kwargs):
            return forced_host(name, fn, args, kwargs)
        return NOT_HOST
    _stats.host_calls[name] += 1
    return place_result(_runner(fn)(fn, *ops), npjax_operands(args, kwargs), limit)


# NumPy functions that compute no values from their operands (nothing to cast, no loop to
# report a floating-point error): they run as they are, without the warning machinery.
_QUIET = frozenset(getattr(np, name) for name in (
    "zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like", "eye", "identity",
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "squeeze", "expand_dims",
    "atleast_1d", "atleast_2d", "atleast_3d", "shape", "ndim", "size"))
_RUNNERS: dict = {}  # NumPy function -> how the host route calls it


def _run_quiet(fn: Any, args: Any, kwargs: dict) -> Any:
    return fn(*args, **kwargs)


_run_function = call_numpy_method  # C code: ``call_numpy_function(..., loops=True)``
_run_python_function = call_numpy_python  # Python code: ``loops=False``


def _runner(fn: Any) -> Any:
    """How NumPy's ``fn`` runs for the host route: ``call_numpy_function`` (its warnings at
    the user's line), or directly for the functions in ``_QUIET``."""
    found = _RUNNERS.get(fn)
    if found is None:
        found = _RUNNERS[fn] = (_run_quiet if fn in _QUIET else
                                _run_function if runs_loops(fn) else _run_python_function)
    return found



# type -> handler(public name, function, args, kwargs): operand types that are not arrays and
# run npjax functions their own way (``npjax._compile._masked.MaskedValue`` registers itself; read
# by ``host_first``, ``_dispatch.npfunc`` and the ufuncs).
DEFERRED: dict[type, Any] = {}
# type -> handler(ufunc, args, keywords): the same for ufunc calls (operators included), with
# every keyword of ``ufunc.__call__`` given (``_masked.MaskedValue``, ``_windows.Window``).
DEFERRED_UFUNC: dict[type, Any] = {}


def hand_written(by_hand: str, module: str = "numpy") -> Any:
    """Declare a hand-written public function where it is defined: its ``Declaration``
    (``_declared``: door "hand-written", ``by_hand`` the reason it is not an ``npfunc``,
    ``host_fn`` NumPy's function of its name, None where ``_NOT_ROUTED`` names it) is made
    now and attached as ``spec``. The function itself is unchanged (npjax's modules call it
    without the host route); ``route_namespace`` and ``public`` put ``host_first``, made
    from that declaration, in front of it."""

    def declared(fn: Any) -> Any:
        fn.spec = _declaration(fn.__name__, module, by_hand)
        return fn

    return declared


def _declaration(name: str, module: str, by_hand: str) -> Declaration:
    """The hand-written declaration of NumPy's ``module.name``, with NumPy's function of the
    name as ``host_fn`` (None where it is no function or ``_NOT_ROUTED`` names it)."""
    host_fn = None if name in _NOT_ROUTED else getattr(importlib.import_module(module), name,
                                                       None)
    if isinstance(host_fn, type) or not callable(host_fn):
        host_fn = None
    return declare(module, name, "hand-written", by_hand=by_hand, host_fn=host_fn)


def device_or_host(impl: Any, args: tuple, kwargs: dict, host: Any, *host_args: Any) -> Any:
    """``impl(*args, **kwargs)``, or NumPy's ``host(*host_args)`` where it stops on an operand of a
    dtype the device cannot hold (``HostOnly``, made on the way: 2**70 an object) or makes a
    float64 result the accelerator cannot hold (by ``jax.numpy`` directly: a TPU). NumPy's
    rerun does not give again the warnings ``impl`` gave (``_rerun_warnings``)."""
    given = None
    try:
        if not _lazy_cold.held_on_cpu():
            return impl(*args, **kwargs)
        with _rerun_warnings.body() as given:
            result = impl(*args, **kwargs)
        if not _lazy_cold.on_accelerator(result):
            return result
    except HostOnly:
        pass
    with _rerun_warnings.rerun(given or ()):
        return host(*host_args)


def host_first(impl: Any, spec: Declaration) -> Any:
    """``impl`` preceded by the host route, made from its declaration ``spec``: NumPy's
    ``spec.host_fn`` runs host operands, counted under ``spec.name``."""
    name, host_fn = spec.name, spec.host_fn

    def call(*args: Any, **kwargs: Any) -> Any:
        for a in args:  # a stand-in such as a masked read under npjax.jit
            handler = DEFERRED.get(type(a))
            if handler is not None:
                return handler(name, impl, args, kwargs)
        try:
            result = try_host(name, host_fn, args, kwargs, call)
            if result is NOT_HOST and foreign_override(args, kwargs, True):  # (pandas...)
                return forced_host(name, host_fn, args, kwargs)
            if result is not NOT_HOST:
                return result
        except HostOnly:  # an operand of a host-only dtype (2**70: object)
            return forced_host(name, host_fn, args, kwargs)
        return device_or_host(impl, args, kwargs, forced_host, name, host_fn, args, kwargs)

    functools.update_wrapper(call, impl)
    call.spec = spec
    call.host_first = True
    call.host_fast = (name, host_fn, parameters(impl), MANY)  # (``_fast_calls``)
    return call


def host_method(name: str, impl: Any) -> Any:
    """The ndarray method ``impl`` preceded by the host route: on a host array (and host
    operands) NumPy's own method of that name runs on its data (a NumPy scalar's for an npjax
    scalar), its warnings where NumPy issues them."""

    count = _stats.host_cell(name)  # its host calls

    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        data = self._value  # (``self._host()``, read here: a call costs ~0.1 us)
        if type(data) is not HOST_STORAGE:
            base = self._base
            if base is None or type(base._value) is not HOST_STORAGE:
                return impl(self, *args, **kwargs)
            data = self._layout
        limit = _context.get().host
        if limit >= 0:
            if args or kwargs:
                try:
                    ops = host_operands(args, kwargs, limit)
                except SubclassOperand:  # NumPy's rules (a plain self: plain results)
                    return call_method(name, method, self, args, kwargs)
                if ops is None:
                    if host_only(self) or has_host_only(args, kwargs):
                        return _forced_method(name, self, data, args, kwargs)
                    return impl(self, *args, **kwargs)
                inputs = (self, *npjax_operands(args, kwargs))
            else:
                ops, inputs = (args, kwargs), (self,)
            bound = getattr(data[()] if self._scalar else data, name, None)
            if bound is None:
                return impl(self, *args, **kwargs)
            result = call_numpy_method(bound, *ops)
            count[0] += 1
            kind = type(result)
            if kind in _NUMBER_SCALARS:  # ``a.sum()``: NumPy's scalar, as ``place_result``
                return result
            return place_result(result, inputs, limit)
        if host_only(self) or has_host_only(args, kwargs):
            return _forced_method(name, self, data, args, kwargs)
        return impl(self, *args, **kwargs)

    functools.update_wrapper(method, impl)
    method.host_first = method.host_method = True
    method.host_fast = (name, None, parameters(impl) - {"self"}, MANY)  # (``_fast_calls``)
    return method


def _forced_method(name: str, self: ndarray, data: np.ndarray, args: tuple,
                   kwargs: dict) -> Any:
    """NumPy's method ``name`` of a host array's ``data``, run by ``forced_host``."""
    bound = getattr(data[()] if self._scalar else data, name)
    return forced_host(f"ndarray.{name}", bound, args, kwargs, call_numpy_method, self)


# Public names whose NumPy function must not run host operands: it returns objects that
# compute with NumPy (frompyfunc's ufunc), or npjax's own version already routes.
_NOT_ROUTED = {"frompyfunc", "array", "asarray", "asanyarray", "load", "fromfunction",
               "apply_along_axis", "apply_over_axes", "piecewise"}
# ndarray members that are not routed: storage, conversion and protocol members npjax
# implements for both kinds itself.
_OWN_MEMBERS = {
    "__getitem__", "__setitem__", "__array__", "__array_ufunc__", "__array_function__",
    "__array_namespace__", "__init__", "__new__", "__repr__", "__str__", "__format__",
    "__len__", "__iter__", "__bool__", "__float__", "__int__", "__complex__", "__index__",
    "__hash__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__", "__setstate__",
    "__getattribute__", "__setattr__", "__delattr__", "__class_getitem__",
    "__init_subclass__", "__sizeof__", "__dir__", "__jax_array__", "__dlpack__",
    "__dlpack_device__", "__array_priority__", "__getstate__", "__subclasshook__",
    "__buffer__", "__release_buffer__", "__array_wrap__", "__array_finalize__", "copy",
    "astype", "view", "fill", "item", "tolist", "tobytes", "reshape", "transpose",
    "to_device", "resize", "setflags", "__class__", "dump", "dumps", "getfield", "setfield",
}


def route_namespace(namespace: dict, numpy_module: Any) -> None:
    """Put the host route in front of every public function of ``namespace`` that NumPy's
    module has under the same name (npfunc functions and ufuncs already route); a function
    not declared where it is defined (``hand_written``) takes the namespace's reason
    (``_BY_HAND``: ``linalg``'s, ``fft``'s)."""
    by_hand = namespace.get("_BY_HAND", "")
    for name, impl in list(namespace.items()):
        if not name.startswith("_"):
            namespace[name] = public(impl, numpy_module, name, by_hand)


def public(impl: Any, numpy_module: Any = np, name: str | None = None,
           by_hand: str = "") -> Any:
    """The function the public namespace holds for ``impl``: ``impl`` preceded by the host
    route (``host_first``, made from its declaration) when NumPy's module has a function of
    that name (what ``route_namespace`` puts in ``npjax``). Library modules call other public
    functions through this, never through ``import npjax``. ``by_hand``: the reason of a
    function that carries no declaration of its own."""
    name = name or getattr(impl, "__name__", "")
    if name in _NOT_ROUTED or not inspect.isfunction(impl) or getattr(impl, "host_first",
                                                                       False):
        return impl
    spec = getattr(impl, "spec", None)
    module = numpy_module.__name__
    if not isinstance(spec, Declaration) or spec.name != name or spec.module != module:
        spec = _declaration(name, module, by_hand)
    if spec.host_fn is None or spec.host_fn is impl:
        return impl
    return host_first(impl, spec)


def place_new(result: Any, args: tuple, limit: int) -> Any:
    """``place_result`` with the common case first: a new small array of a device dtype."""
    if type(result) is np.ndarray:
        if result.base is None and result.size <= limit:
            dtype = result.dtype
            if dtype is _F8 or dtype is _B1 or _DEVICE_DTYPE.get(dtype):
                return host_owner(result)
    elif type(result) is not tuple:
        return result
    return place_result(result, npjax_operands(args, {}), limit)


def npjax_operands(args: tuple, kwargs: dict) -> tuple:
    """The arrays among the arguments, npjax and foreign NumPy ones (one level into
    sequences, and ``out=``)."""
    found = []
    for a in (*args, *kwargs.values()):
        kind = type(a)
        if kind is ndarray or kind is np.ndarray:
            found.append(a)
        elif kind is tuple or kind is list:
            found.extend(x for x in a if type(x) is ndarray or type(x) is np.ndarray)
    return tuple(found)


def place_result(result: Any, inputs: tuple, limit: int) -> Any:
    """NumPy's result as npjax arrays (``from_numpy``); new arrays over ``limit`` elements
    move to the device."""
    kind = type(result)
    if kind is np.ndarray:
        device_dtype = _DEVICE_DTYPE.get(result.dtype)
        if device_dtype is None:
            device_dtype = device_dtype_of(result.dtype)
        # host-only dtypes (object, str, datetime...) and > 32 dimensions stay host arrays
        if device_dtype and result.base is None and beyond(result.size, limit) and \
                result.ndim <= MAX_DEVICE_NDIM:
            moved = ndarray._owner(_to_device(result, owned=True))  # (NumPy's new array)
            if result.ndim > 1 and result.flags.f_contiguous and not result.flags.c_contiguous:
                moved._layout = np.empty(result.shape, result.dtype, order="F")  # (its order)
            return moved
        mine = inputs
        for x in inputs:
            if type(x) is np.ndarray:  # npjax arrays never alias memory npjax does not own
                if np.may_share_memory(result, x):
                    return ndarray._owner(result.copy())
                mine = tuple(x for x in inputs if type(x) is ndarray)
        return from_numpy(result, mine)
    if kind is tuple or kind is list:
        return kind(place_result(r, inputs, limit) for r in result)
    if isinstance(result, tuple):  # named tuples
        return kind(*(place_result(r, inputs, limit) for r in result))
    return result  # NumPy's scalars and other objects, as they are
