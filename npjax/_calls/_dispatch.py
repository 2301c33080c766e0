"""The one call path: ``@npfunc`` turns a pure-JAX body into a public NumPy-style function.

Parameters carry tags as annotations (``ArrayIn``, ``ArraySeq``, ``ArrayKeep``, ``DTypeIn``,
``AxisIn``, ``Out``, ``Unsupported(default)``); a tag is ``Annotated[<what the body sees>,
Tag]``, so a type checker reads the body's types and the decorator the ``Tag``, once, at
import, into a list of (position, name, converter); a call converts by position and keyword
without binding a signature. Then: fallback if registered, run the body (it sees ``jax.Array``
values, never npjax arrays unless tagged ``ArrayKeep``), write ``out=`` and wrap results."""

from __future__ import annotations

import contextlib
import functools
import inspect
import types
from collections.abc import Callable
from typing import Annotated, Any, get_args, get_origin

import jax
import numpy as np

from npjax._pure import _dtypes
from npjax._runtime import _rerun_warnings, _stats
from npjax._pure._axes import axis_argument
from npjax._pure._errors import HostOnly, NpjaxUnsupported, unsupported
from npjax._calls._fallback import call_numpy
from npjax._execution import _lazy_cold
from npjax._execution._lazy import Lazy
from npjax._core._ndarray import ndarray
from npjax._core._out import write_out
from npjax._core._normalize import foreign_override, to_jax, to_jax_lazy
from npjax._placement._fast_calls import MANY, parameters
from npjax._placement._route import DEFERRED, NOT_HOST, forced_host, try_host
from npjax._pure._declared import Declaration, Param, declare
from npjax._runtime._context import current
from npjax._runtime._policy import Policy
from npjax._runtime._context import policy as using_policy


class Tag:
    """A parameter tag: how the call path converts one argument."""

    def __init__(self, name: str, convert: Callable[[Any, Policy], Any]) -> None:
        self.name = name
        self.convert = convert

    def __repr__(self) -> str:
        return self.name


class Unsupported:
    """Tag of a NumPy parameter npjax accepts only at its default value."""

    def __init__(self, default: Any = None) -> None:
        self.default = default

    def __repr__(self) -> str:
        return f"Unsupported({self.default!r})"


def _keep(x: Any, policy: Policy) -> ndarray:
    return x if isinstance(x, ndarray) else ndarray._owner(to_jax(x, policy))


def _opt_array(x: Any, policy: Policy) -> Any:
    return None if x is None else to_jax(x, policy)


def _opt_array_lazy(x: Any, policy: Policy) -> Any:
    return None if x is None else to_jax_lazy(x, policy)


_NOTHING = contextlib.nullcontext()  # (a ``with`` that does nothing, reused)
_OUT = Tag("Out", lambda x, policy: x)
_DEVICE = Tag("DeviceIn", lambda x, policy: x)
ArrayIn = Annotated[jax.Array, Tag("ArrayIn", to_jax)]
OptArrayIn = Annotated["jax.Array | None", Tag("OptArrayIn", _opt_array)]


def _array_seq(xs: Any, policy: Policy) -> list:
    if not hasattr(xs, "__getitem__"):  # NumPy's stacking functions refuse iterators
        raise TypeError('arrays to stack must be passed as a "sequence" type such as list or '
                        'tuple.')
    return [to_jax(x, policy) for x in xs]


ArraySeq = Annotated[list[jax.Array], Tag("ArraySeq", _array_seq)]
ArrayKeep = Annotated[ndarray, Tag("ArrayKeep", _keep)]


def _dtype_in(d: Any, policy: Policy) -> Any:
    """A ``dtype=`` argument of device work: one with no device form (long double, object...)
    sends the call to NumPy on the host (``HostOnly``), never to JAX's TypeError."""
    dtype = _dtypes.canonical_dtype(d)
    if dtype is not None:
        _dtypes.device_only(dtype)
    return dtype


DTypeIn = Annotated[Any, Tag("DTypeIn", _dtype_in)]
# ``axis=`` of a function whose NumPy counterpart reads it in C: booleans refused with NumPy's
# TypeError (``axis_argument``); ``IntAxisIn`` where NumPy's message has no " for the axis".
AxisIn = Annotated[Any, Tag("AxisIn", lambda axis, policy: axis_argument(axis))]
IntAxisIn = Annotated[Any, Tag("IntAxisIn", lambda axis, policy: axis_argument(axis, ""))]
Out = Annotated[Any, _OUT]
DeviceIn = Annotated[Any, _DEVICE]


def tag_of(annotation: Any) -> Any:
    """The ``Tag`` or ``Unsupported`` a parameter's annotation carries, or None."""
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[1]
    return annotation if isinstance(annotation, Tag | Unsupported) else None


def wrap(result: Any, scalar: bool = False) -> Any:
    """Raw JAX results as npjax arrays; 0-d results are NumPy-style scalars when ``scalar``."""
    if type(result) is ndarray:  # (a body's own npjax array: before the slower ABC check)
        return result
    if isinstance(result, jax.Array) or type(result) is Lazy:
        return ndarray._owner(result, scalar and result.ndim == 0)
    if isinstance(result, tuple | list):
        items = [wrap(r, scalar) for r in result]
        if all(i is r for i, r in zip(items, result)):  # nothing raw: the object itself (a
            return result  # body may give back its operand, as ``diff(a, n=0)`` does)
        if isinstance(result, list):
            return items
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    return result


# Results larger than this are waited for inside the call, so that an allocation the device
# cannot make raises MemoryError at the call (JAX dispatches asynchronously).
_SYNC_BYTES = 1 << 30


# Every ``npfunc`` function by public name (``tests/test_lazy_capable.py`` reads it).
FUNCTIONS: dict[str, Callable] = {}


def _renamed(fn: types.FunctionType, name: str) -> types.FunctionType:
    """A copy of ``fn`` called ``name`` (a raw body ``_poly`` behind the door ``poly``)."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__, copy.__dict__ = fn.__kwdefaults__, dict(fn.__dict__)
    copy.__qualname__, copy.__module__, copy.__doc__ = name, fn.__module__, fn.__doc__
    copy.__annotations__ = fn.__annotations__
    return copy


def npfunc(fn: Callable | None = None, *, name: str | None = None, scalar: bool = False,
           numpy_fn: Any = None, out_casting: str = "unsafe", host_route: bool = False,
           module: str = "numpy") -> Any:
    """Make ``fn`` (parameters tagged by annotation, body in pure JAX) a public function.

    scalar: 0-d results are NumPy-style scalars (reductions and the like).
    numpy_fn: run this on the host when the body raises ``NpjaxUnsupported``.
    out_casting: the casting rule for ``out=`` (NumPy functions use "unsafe").
    host_route: host-only data met in the body (``HostOnly``) runs NumPy's function as the
    host route runs it (``forced_host``: results placed by the host-size limit, written
    operands written back) rather than by ``call_numpy`` (the in-place writers, ``isin``).
    module: NumPy's module of the public name (its facts' key: ``lib.stride_tricks.*``).

    Everything the door decides is first written into the function's ``Declaration``
    (``_declared``; the public function's ``spec``), which the registry reads too; the door is
    made from it. Lazy mode: a function is lazy-capable unless ``_facts.NOT_LAZY`` names it. A
    lazy-capable body gets its array operands pending (``_lazy.Lazy``; its ``Kernel`` calls
    are recorded); any other body runs eagerly on computed operands. Decided here, once.
    """
    if fn is None:
        return functools.partial(npfunc, name=name, scalar=scalar, numpy_fn=numpy_fn,
                                 out_casting=out_casting, host_route=host_route,
                                 module=module)
    public = name or fn.__name__
    if public != fn.__name__ and isinstance(fn, types.FunctionType):
        fn = _renamed(fn, public)  # (Python's argument errors name NumPy's function)
    spec = declare(module, public, "npfunc", params=_params(fn), scalar=scalar,
                   numpy_fn=numpy_fn, out_casting=out_casting, host_route=host_route,
                   host_fn=getattr(np, public, None))
    return _door(fn, spec)


def _params(fn: Callable) -> tuple[Param, ...]:
    """The tagged parameters of ``fn``, read from its annotations once."""
    # Evaluated, so modules using ``from __future__ import annotations`` get tag objects too.
    annotations = {key: tag_of(a)
                   for key, a in inspect.get_annotations(fn, eval_str=True).items()}
    found = []
    for i, p in enumerate(inspect.signature(fn).parameters.values()):
        tag = annotations.get(p.name)
        if p.kind is p.VAR_POSITIONAL:
            if isinstance(tag, Tag):
                found.append(Param(i, p.name, tag, True))
        elif tag is not None:
            found.append(Param(None if p.kind is p.KEYWORD_ONLY else i, p.name, tag))
    return tuple(found)


def _door(fn: Callable, spec: Declaration) -> Callable:
    """The public function of the body ``fn``, made from its declaration ``spec``."""
    public, lazy, scalar, host_route = spec.name, spec.lazy, spec.scalar, spec.host_route
    out_casting, numpy_target, host_fn = spec.out_casting, spec.numpy_fn, spec.host_fn
    n_params = len(inspect.signature(fn).parameters)
    by_position, by_name, checks = [], {}, []
    star_tag = star_at = None
    out_position = None
    has_out = has_device = False
    for param in spec.params:
        tag, i = param.tag, param.position
        if param.star:
            star_tag, star_at = tag, i
        elif isinstance(tag, Unsupported):
            checks.append((i, param.name, tag.default))
        elif tag is _OUT:
            out_position = i
            has_out = has_out or param.name == "out"
        elif tag is _DEVICE:  # keyword-only in NumPy; handled around the call below
            has_device = has_device or param.name == "device"
        else:
            if i is not None:
                by_position.append((i, tag.convert))
            by_name[param.name] = tag.convert
    # Fewer positional arguments than this and no keywords: every check sees its default.
    checks_from = min((pos for pos, _, _ in checks if pos is not None), default=n_params)
    # Lazy mode, decided here: a lazy-capable body gets pending array operands (its
    # ``_lazy.Kernel`` calls are recorded); a body declared not lazy-capable (``NOT_LAZY``)
    # runs eagerly on computed operands; others (no array operand to keep pending) run as
    # called, their kernels recorded.
    lazy_of = {to_jax: to_jax_lazy, _opt_array: _opt_array_lazy}
    lazy_position = [(pos, lazy_of.get(convert, convert)) for pos, convert in by_position]
    lazy_name = {key: lazy_of.get(convert, convert) for key, convert in by_name.items()}
    defer = lazy and star_tag is None and any(c in lazy_of for _, c in by_position)
    # No argument to convert (a body that reads its operands itself): called as it is.
    plain = star_tag is None and not by_position and not by_name

    def convert_and_run(args: Any, kwargs: dict, policy: Policy, positions: list,
                        names: dict) -> Any:
        if star_tag is not None:
            args = tuple(star_tag.convert(a, policy) if i >= star_at else a
                         for i, a in enumerate(args))
        if positions:
            args = list(args)
            n = len(args)
            for pos, convert in positions:
                if pos < n:
                    args[pos] = convert(args[pos], policy)
        for key in kwargs.keys() & names.keys():
            kwargs[key] = names[key](kwargs[key], policy)
        return fn(*args, **kwargs)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs and has_device and kwargs.get("device") is not None:
            return with_device(call)(*args, **kwargs)  # the call under that device policy
        for a in args:  # a stand-in such as a masked read under npjax.jit (``_masked``)
            if type(a) in DEFERRED:
                return DEFERRED[type(a)](public, call, args, kwargs)
        if checks and (kwargs or len(args) > checks_from):
            for pos, pname, default in checks:
                value = args[pos] if pos is not None and pos < len(args) else kwargs.get(
                    pname, default)
                if value is not default and not _same(value, default):
                    raise unsupported(public, pname)
        if host_fn is not None:
            result = try_host(public, host_fn, args, kwargs, call)
            if result is not NOT_HOST:
                return result
            if foreign_override(args, kwargs, True):  # pandas' Series...: NumPy's function
                return forced_host(public, host_fn, args, kwargs)
        _stats.calls[public] += 1
        out = None
        if has_out:
            if out_position is not None and out_position < len(args):
                out = args[out_position]
                args = args[:out_position] + (None,) + args[out_position + 1:]
            else:
                out = kwargs.pop("out", None)
            if isinstance(out, tuple) and len(out) == 1:
                out = out[0]
        raw_args, raw_kwargs = args, (kwargs if plain else dict(kwargs))
        policy = None  # (read below where the body's run depends on it)
        try:
            # (where float64 is a host dtype, the warnings the body gives are noted:
            # NumPy's rerun after a ``HostOnly`` does not give them again)
            held = _lazy_cold.held_on_cpu()
            with _rerun_warnings.body() if held else _NOTHING as given:
                if plain and lazy:  # a lazy-capable body that reads its operands: as called
                    result = fn(*args, **kwargs)
                elif not (policy := current()).lazy:
                    result = fn(*args, **kwargs) if plain else convert_and_run(
                        args, kwargs, policy, by_position, by_name)
                elif defer:  # pending operands in, the body's kernels recorded
                    result = convert_and_run(args, kwargs, policy, lazy_position, lazy_name)
                elif not lazy:  # computed operands, the body run now (nothing recorded)
                    with using_policy(mode="eager"):
                        result = convert_and_run(args, kwargs, policy, by_position, by_name)
                else:
                    result = convert_and_run(args, kwargs, policy, by_position, by_name)
                if type(result) is not ndarray and isinstance(result, jax.Array) and (
                        result.nbytes > _SYNC_BYTES):
                    result.block_until_ready()  # a failed allocation surfaces here, not later
                if held and _lazy_cold.on_accelerator(result):
                    raise HostOnly("a float64/complex128 result this accelerator cannot hold")
        except jax.errors.JaxRuntimeError as exc:
            if "RESOURCE_EXHAUSTED" in str(exc):  # NumPy: MemoryError for too large arrays
                raise MemoryError(f"npjax.{public}: {exc}") from None
            raise
        except NpjaxUnsupported as exc:
            quiet = isinstance(exc, HostOnly)
            with _rerun_warnings.rerun(given) if given else _NOTHING:
                if quiet and host_route and host_fn is not None:  # as ``host_first`` ran it
                    return forced_host(public, host_fn, raw_args, raw_kwargs)
                target = numpy_target or (host_fn if quiet else None)
                if target is None:
                    raise NotImplementedError(f"npjax.{public}: {exc}") from None
                if out is not None:
                    raw_kwargs["out"] = out
                return call_numpy(public, target, tuple(raw_args), raw_kwargs,
                                  policy or current(), str(exc), quiet)
        if out is not None:
            return write_out(out, result, out_casting, public)
        if type(result) is ndarray:  # (the common result: no call of ``wrap``)
            return result
        return wrap(result, scalar)

    call.__module__ = "npjax"
    call.__name__ = call.__qualname__ = public
    call.__wrapped__ = fn
    call.host_first = True  # placement is decided inside (``try_host``)
    if host_fn is not None:  # the C call's facts (``_fast_calls``): it runs the common case
        # only where no check applies (no keyword it checks, no argument past ``checks_from``)
        call.host_fast = (public, host_fn, parameters(fn) - {name for _, name, _ in checks},
                          checks_from if checks else MANY)
    call.lazy = lazy
    call.spec = spec
    FUNCTIONS[public] = call
    return call


def with_device(call: Callable) -> Callable:
    """Honour a ``device=`` keyword (NumPy's "cpu", or a ``jax.Device`` such as ``x.device``,
    as the Array API passes it) by running the call under that device policy."""

    @functools.wraps(call)
    def placed(*args: Any, **kwargs: Any) -> Any:
        device = kwargs.get("device")
        if device is None:
            return call(*args, **kwargs)
        kwargs["device"] = None
        with using_policy(device=device):
            return call(*args, **kwargs)

    return placed


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default)
    except Exception:  # arrays and odd objects: anything not identical counts as given
        return False
