"""NumPy's ufuncs as npjax ufunc objects: one table, one class.

Every ``numpy.ufunc`` in NumPy's namespace gets an npjax ``ufunc`` of the same name. Type
resolution is NumPy's own (``numpy.ufunc.resolve_dtypes``, NEP 50 weak Python scalars), so
result dtypes are NumPy's exactly; the computation is a cached ``jax.jit`` kernel per
(ufunc, loop dtypes) that casts the inputs to the loop dtypes, calls ``jax.numpy`` (or the
implementation in ``_impl/ufuncs.py`` where ``jax.numpy``'s is not NumPy's) and casts the
outputs. ``reduce``/``accumulate``/``outer``/``reduceat``/``at`` live in
``_ufunc_methods.py`` and are attached to the class there.

Differences from NumPy:
- Floating-point errors (divide/over/under/invalid) follow ``numpy.errstate`` but are
  inferred from the values after the kernel (``_errstate.py``: rules, cost, limits).
  Integer division and remainder by zero give 0 with NumPy's "divide by zero" warning.
- Complex functions: branch cuts (signed zeros) match NumPy; non-finite parts match on the
  tested edge set, other inf/nan combinations may follow XLA rather than C99 Annex G.
- XLA's CPU backend flushes subnormal results to zero (NumPy keeps them).
- The fast path (npjax array operands, no keywords) caches one compiled kernel per operand
  dtypes on the ufunc object.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._core import _casts
from npjax._execution import _lazy
from npjax._runtime import _context, _errstate, _finite_watch, _host_reads, _numpy_calls
from npjax._pure import _dtypes
from npjax._pure._axes import axis_argument
from npjax._runtime import _stats, _thread_checks, _ufunc_checks
from npjax._core._out import check_cast, write_out
from npjax._pure._errors import HostOnly, NpjaxUnsupported
from npjax._pure._declared import declare
from npjax._calls._fallback import call_numpy
from npjax._calls._ufunc_keywords import as_signature, resolve_loop, sig_keyword
from npjax._pure._impl.ufuncs import IMPL_OVERRIDES
from npjax._execution._lazy import Kernel, Lazy, concrete
from npjax._core._ndarray import ndarray
from npjax._core._normalize import foreign_override, to_jax, to_jax_lazy, where_mask
from npjax._core._host_only import has_host_only
from npjax._placement._made import as_arrays
from npjax._placement._route import (DEFERRED_UFUNC,
                                    DEVICE, NOT_HOST, forced_host, host_operands,
                                    npjax_operands, place_new, place_result)
from npjax._placement._host_paths import host_path, ufunc_call
from npjax._core import _window_reads
from npjax._calls._pair_calls import NOT_FAST, pair_call
from npjax._core._subclasses import SubclassOperand, call_ufunc, has_subclass
from npjax._calls._ufunc_routes import call_into_numpy_out, numpy_out
from npjax._core._array_base import HOSTPATH
from npjax._runtime._context import current, trace
from npjax._runtime._deferred_checks import defer_flags, flagging_state
from npjax._runtime._fp_flags import SCALAR_OVER, _float_flags, _int_over

_CONCRETE = _host_reads.CONCRETE

_WEAK = _dtypes.WEAK_TYPES
_get_context = _context.get
_calls = _stats.calls


# A comparison with a Python int outside the integer loop dtype's range is decided by the
# side the int lies on: (ufunc, int above the range) -> (ufunc, replacement) with the int
# replaced by the range's end (NumPy 2 compares exactly).
_CMP_ABOVE = {"less": "less_equal", "less_equal": "less_equal", "not_equal": "less_equal",
              "greater": "greater", "greater_equal": "greater", "equal": "greater"}
_CMP_BELOW = {"less": "less", "less_equal": "less", "equal": "less",
              "greater": "greater_equal", "greater_equal": "greater_equal",
              "not_equal": "greater_equal"}
_CMP_SWAP = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
             "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}

# Ufuncs that run on host NumPy (no JAX equivalent for their dtypes).
_HOST_ONLY = {"isnat"}

# Comparisons accept Python ints outside the array's range (NumPy 2 compares exactly).
_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


# The C base whose call runs ``npjax.add(a, b)``'s common case (``_core/_hostpath.c``; see
# ``_fast.py``), where it is built; ``ufunc.__call__`` below is the one definition of the call.
_UfuncBase: Any = object if HOSTPATH is None else HOSTPATH.UfuncBase


class ufunc(_UfuncBase):
    """An elementwise function with NumPy's ufunc interface, computed by JAX."""

    def __init__(self, name: str) -> None:
        np_ufunc = getattr(np, name)
        self.__name__ = np_ufunc.__name__
        self.__qualname__ = self.__name__
        self._np = np_ufunc
        self._impl = IMPL_OVERRIDES.get(self.__name__) or getattr(jnp, self.__name__, None)
        self._fast: dict[tuple, Callable] = {}  # operand dtypes -> compiled kernel
        self._scalar_fast: dict[tuple, tuple] = {}  # the same for ``scalar_call``
        self.nin = np_ufunc.nin
        self.nout = np_ufunc.nout
        self._pair = self.nin == 2 and self.nout == 1  # (``_device_call``'s commonest call)
        self._bounded = np_ufunc.signature is None  # elementwise: see ``host_path``
        self._count = _stats.host_cell(self.__name__)  # its host calls
        # NumPy's loop on host operands (``_host_paths.host_path``; None: three or more)
        self._host_path = host_path(np_ufunc, self.nin, self._count, self._bounded) \
            if self.nin <= 2 else None
        if HOSTPATH is not None:  # the C call's facts
            self._hostpath_set(np_ufunc, self._count, self._bounded and self.nin == 2
                               and self.nout == 1, self._bounded and self.nin == 1
                               and self.nout == 1)
        self.nargs = np_ufunc.nargs
        self.identity = np_ufunc.identity
        self.signature = np_ufunc.signature
        self.ntypes = np_ufunc.ntypes
        self.types = np_ufunc.types
        self.__doc__ = f"npjax implementation of the NumPy ufunc ``numpy.{self.__name__}``."
        self.__signature__ = getattr(np_ufunc, "__signature__", None)  # inspect.signature
        self.spec = declare("numpy", self.__name__, "ufunc", lazy=True)  # (_declared)

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"

    def __reduce__(self) -> tuple:
        """Pickled by name: unpickling gives the same object, as NumPy's ufuncs do."""
        return _ufunc_by_name, (self.__name__,)

    def resolve_dtypes(self, dtypes: tuple, **options: Any) -> tuple:
        """NumPy's ``ufunc.resolve_dtypes`` (``signature=``, ``casting=``, ``reduction=``):
        the loop's operand and result dtypes, the ones npjax computes in."""
        return self._np.resolve_dtypes(dtypes, **options)

    def scalar_call(self, *args: Any) -> Any:
        """An operator on scalars (``_operators``): NumPy's scalar math, whose reports say
        "... encountered in scalar <name>" and which reports integer overflow."""
        if all(type(a) is ndarray for a in args):  # the loop seen before: its kernel, check
            policy = current()
            if policy.device is None and policy.sharding is None:
                lazy = policy.lazy
                vals = [a._read_lazy() if lazy else a._read() for a in args]
                entry = self._scalar_fast.get(tuple(v.dtype for v in vals))
                if entry is not None:
                    kernel, check, over = entry
                    if not lazy:
                        results = kernel.now(vals)
                        if check is not None:
                            check(vals, results, True)
                    elif over is not None:
                        return _lazy_scalar_over(self.__name__, *over, vals)
                    else:
                        results = kernel(*vals)
                        if check is not None:
                            _run_check(check, vals, results, True, True)
                    if self.nout == 1:
                        return ndarray._owner(results[0], True)
                    return tuple(ndarray._owner(r, True) for r in results)
        try:
            return self._call(*args, _scalar=True)
        except SubclassOperand:
            return call_ufunc(self, args, {})

    def _remember_scalar(self, args: tuple, keys: tuple, loop_in: tuple, loop_out: tuple,
                         dtype: Any, casting: str) -> None:
        """``scalar_call``'s entry for a call of ``_call`` on device scalars alone: kernel,
        check, and the loops where lazy mode records the overflow flag."""
        if dtype is None and casting == "same_kind" and self.__name__ != "power" and all(
                type(a) is ndarray for a in args):
            over = (loop_in, loop_out) if self.__name__ in SCALAR_OVER and all(
                dt.kind in "iu" for dt in loop_out) else None
            self._scalar_fast[keys] = (
                _kernel(self.__name__, loop_in, loop_out, False, False),
                _ufunc_checks.checker(self.__name__, loop_in, loop_out, True), over)

    def _body(self, loops: tuple) -> Callable:
        """Un-jitted body for loop dtypes ``(loop_in, loop_out)`` (for the ufunc methods)."""
        return _make_body(self.__name__, tuple(loops[0]), tuple(loops[1]))

    def _any_call(self, *args: Any, **kwargs: Any) -> Any:
        """``ufunc.__call__`` (below: its host hot path first, ``_host_paths.ufunc_call``)."""
        if kwargs and kwargs.get("out", None) is Ellipsis:  # NumPy: arrays, never scalars
            del kwargs["out"]
            return as_arrays(self(*args, **kwargs))
        if len(args) > self.nin and numpy_out(args[self.nin:]):  # NumPy arrays as outputs
            return self(*args[:self.nin], out=args[self.nin:], **kwargs)
        try:
            ctx = _get_context()
            limit = ctx.host
            if limit >= 0:  # host operands: NumPy's own ufunc
                nin = self.nin
                if not kwargs and len(args) == nin:  # no out=: a new result
                    if nin == 2:  # the hot path (``npjax.add(a, b)``): ``host_path``'s
                        result = self._host_path(args[0], args[1], limit)
                    elif nin == 1:
                        result = self._host_path(args[0], limit)
                    else:
                        result = NOT_HOST
                    if result is NOT_HOST:  # other operands: placed, or a device array
                        values = host_operands(args, kwargs, limit)
                        if values is not None:
                            self._count[0] += 1
                            return place_new(_numpy_calls.call_numpy_ufunc(self._np, *values),
                                             args, limit)
                    elif result is not DEVICE:
                        return result
                else:
                    ops = host_operands(args, kwargs, limit)
                    if ops is not None:
                        self._count[0] += 1
                        return place_result(_numpy_calls.call_numpy_ufunc(
                            self._np, *ops), npjax_operands(args, kwargs), limit)
            return self._device_call(args, kwargs, ctx)
        except SubclassOperand:  # NumPy's rules: results take the operand's subclass
            return call_ufunc(self, args, kwargs)
        except HostOnly:  # an object, str, datetime... operand read for the device
            return self._host_only(args, kwargs)

    def _device_call(self, args: tuple, kwargs: dict, ctx: Any) -> Any:
        """The call past the host route: an operand is a device array (``ufunc_call`` comes
        here at once when its host path finds one), or the policy puts the work there."""
        try:
            if not kwargs and len(args) == 2 and self._pair:  # (``_pair_calls``)
                got = pair_call(self, args[0], args[1], ctx.policy)
                if got is not NOT_FAST:
                    return got
            if kwargs and has_host_only(args, kwargs):  # (operands: ``HostOnly`` below)
                return self._host_only(args, kwargs)
            policy = ctx.policy
            _calls[self.__name__] += 1
            for a in args:  # a window of a length seen before: its bucket's programs
                if type(a) is ndarray and a._base is not None:
                    got = _window_reads.ufunc_call(self, args, kwargs)
                    if got is not _window_reads.NO:
                        return got
                    break
            # Fast path: npjax array operands, no keywords, loop already seen (one dict lookup
            # keyed by the operand dtypes), no placement asked for (operands stay where they
            # are). Anything else takes the full path below, which places operands.
            if (not kwargs and len(args) == self.nin and policy.device is None
                    and policy.sharding is None):
                lazy = policy.lazy
                vals = [(a._read_lazy() if lazy else a._read()) if type(a) is ndarray else a
                        for a in args if type(a) is ndarray or type(a) is float]
                try:
                    entry = self._fast.get(tuple(float if type(v) is float else v.dtype
                                                 for v in vals))
                except AttributeError:
                    entry = None
                if entry is not None and len(vals) == self.nin and not any(
                        type(v) is float and abs(v) > entry[3] for v in vals):
                    kernel, check, flagged, _ = entry
                    st = None
                    if flagged is not None and not lazy and all(
                            type(v) is _CONCRETE or type(v) is float for v in vals):
                        st = flagging_state()
                    try:
                        if st is None:
                            results = kernel(*vals)
                        else:  # the flags come with the results, read later
                            results, flags = flagged[st["under"] != "ignore"](*vals)
                    except (TypeError, IndexError):
                        pass  # shape errors: the full path raises NumPy's exception
                    else:
                        if st is not None:
                            defer_flags(flags, self.__name__, st)
                        elif check is not None:  # floating-point error state (_errstate.py)
                            _run_check(check, vals, results, True, lazy)
                        if self.nout == 1:
                            r = results[0]
                            return ndarray._owner(r, r.ndim == 0)
                        return tuple(ndarray._owner(r, r.ndim == 0) for r in results)
            if foreign_override(args, kwargs):  # pandas' Series...: theirs, as NumPy's
                return self._host_only(args, kwargs)
            return self._call(*args, **kwargs)
        except SubclassOperand:  # NumPy's rules: results take the operand's subclass
            return call_ufunc(self, args, kwargs)
        except HostOnly:  # an object, str, datetime... operand read for the device
            return self._host_only(args, kwargs)

    def _host_only(self, args: tuple, kwargs: dict) -> Any:
        """NumPy's own ufunc on the host: an operand has a dtype the device cannot hold
        (NumPy's rules first for a subclass operand: ``call_ufunc``, on plain views)."""
        if has_subclass(args, kwargs):
            return call_ufunc(self, args, kwargs)
        return forced_host(self.__name__, self._np, args, kwargs, _numpy_calls.call_numpy_ufunc)

    def _call(self, *args: Any, out: Any = None, where: Any = True,
              casting: str = "same_kind", order: str = "K", dtype: Any = None,
              subok: bool = True, signature: Any = None, _scalar: bool = False,
              **extra: Any) -> Any:
        """The full path. ``_scalar``: an operator on scalars (``scalar_call``)."""
        nin = self.nin
        if len(args) != nin:
            if nin < len(args) <= self.nargs and out is None:
                args, out = args[:nin], args[nin:]
            else:
                raise TypeError(f"{self.__name__}() takes from {nin} to {self.nargs} "
                                f"positional arguments but {len(args)} were given")
        if "axis" in extra and self.signature is not None:
            args = _core_axis(self.__name__, args, extra.pop("axis"))
        if extra:  # ``sig=``, NumPy's older spelling of ``signature=`` (``_ufunc_keywords``)
            signature = sig_keyword(self.__name__, extra, signature)
        if has_subclass(args, {"out": out}):
            raise SubclassOperand
        if DEFERRED_UFUNC:
            for a in (*args, where):  # a stand-in under npjax.jit (``_masked``, ``_windows``)
                handler = DEFERRED_UFUNC.get(type(a))
                if handler is not None:
                    return handler(self, args, {"out": out, "where": where,
                                                "casting": casting, "order": order,
                                                "dtype": dtype, "subok": subok,
                                                "signature": signature})
        if signature is not None:  # NumPy's loop for it: ``resolve_loop`` (as ``dtype``)
            dtype = as_signature(signature, dtype)
        if self._impl is None:
            if self.__name__ == "isnat":
                _check_isnat(args[0])
            return call_numpy(self.__name__, self._np, args,
                              {"out": out, "where": where, "casting": casting,
                               "dtype": dtype}, current(), "no JAX implementation")
        if out is not None and numpy_out(out):  # NumPy's ufunc writes a NumPy array
            return call_into_numpy_out(self, args, dict(
                out=out, where=where, casting=casting, order=order, dtype=dtype, subok=subok))
        policy = current()
        outs = _as_out_tuple(out, self.nout)
        lazy = policy.lazy
        read = to_jax_lazy if lazy else to_jax
        try:
            vals = [a if type(a) in _WEAK else read(a, policy) for a in args]
        except NpjaxUnsupported as exc:
            if self.__name__ in ("equal", "not_equal") and any(a is None for a in args):
                return _compare_none(self, args, out)
            if any(a is None or isinstance(a, str | bytes) for a in args) and any(
                    isinstance(a, ndarray) for a in args):
                raise TypeError(f"ufunc '{self.__name__}' did not contain a loop with "
                                "signature matching types") from None
            return call_numpy(self.__name__, self._np, args,
                              {"out": out, "where": where, "casting": casting,
                               "dtype": dtype}, policy, str(exc), isinstance(exc, HostOnly))
        keys = tuple(type(v) if type(v) in _WEAK else v.dtype for v in vals)
        loop_in, loop_out = resolve_loop(self._np, keys, dtype, casting)
        for i, v in enumerate(vals):
            if type(v) is int:
                dt = loop_in[i]
                if dt.kind in "iu" and self.__name__ in _COMPARISONS and getattr(
                        keys[1 - i], "kind", "i") != "b":  # bool == 2**63: OverflowError
                    info = _iinfo(dt)
                    if not info.min <= v <= info.max:
                        return self._compare_out_of_range(i, args, out, where, casting,
                                                          dtype, v > info.max, info)
                vals[i] = _weak_int(v, dt, self.__name__)
            elif type(v) is float or type(v) is complex:
                vals[i] = _weak_float(v, loop_in[i])
        if dtype is not None or casting == "unsafe":  # inputs cast by NumPy's rules
            vals = [v if type(v) in _WEAK else _casts.precast(v, dt)
                    for v, dt in zip(vals, loop_in)]
        if self.signature is not None:  # after the Python ints' OverflowError, as NumPy
            _check_core_dims(self.__name__, vals)
        if outs is not None:  # NumPy checks the output cast before computing anything
            for o, dt in zip(outs, loop_out):
                if o is not None:
                    check_cast(self.__name__, casting, dt, o)
        if self.__name__ == "power" and loop_in[1].kind == "i" and all(
                getattr(v, "size", 1) for v in vals):
            _check_power(vals[1])
        if where is True:
            if _scalar and lazy and self.__name__ in SCALAR_OVER and all(
                    dt.kind in "iu" for dt in loop_out):
                self._remember_scalar(args, keys, loop_in, loop_out, dtype, casting)
                return _lazy_scalar_over(self.__name__, loop_in, loop_out, vals)
            try:
                results = _kernel(self.__name__, loop_in, loop_out, False, False)(*vals)
            except (TypeError, IndexError) as exc:  # types resolved: this is a shape error
                raise _shape_error(self, vals, exc) from None
        else:
            mask = read(where_mask(where), policy)
            if mask.dtype != np.bool_:
                raise TypeError("Cannot cast array data from dtype('"
                                f"{mask.dtype}') to dtype('bool') according to the rule 'safe'")
            olds = [(o._read_lazy() if lazy else o._read()) if o is not None else None
                    for o in outs] if outs else []
            has_old = bool(olds) and all(o is not None for o in olds)
            try:
                results = _kernel(self.__name__, loop_in, loop_out, True, has_old)(
                    *vals, mask, *(olds if has_old else ()))
            except TypeError as exc:
                raise _shape_error(self, [*vals, mask, *(olds if has_old else ())],
                                   exc) from None
        check = _ufunc_checks.checker(self.__name__, loop_in, loop_out, _scalar)
        if outs is None:
            if check is not None:
                _run_check(check, vals, results, True if where is True else mask, lazy)
            if _scalar and where is True:
                self._remember_scalar(args, keys, loop_in, loop_out, dtype, casting)
            if (where is True and dtype is None and casting == "same_kind" and not _scalar
                    and self.signature is None and self.__name__ != "power"
                    and all(type(a) is ndarray or type(a) is float for a in args)):
                flagged = None  # results in accelerator memory (not traced): checks wait
                if check is not None and check.__name__ == "check_float" and any(
                        dt.kind in "fc" for dt in loop_out) and type(
                        results[0]) is _CONCRETE and not _host_reads.on_host(results[0]):
                    flagged = _flagged_kernels(self.__name__, loop_in, loop_out)
                # (the largest Python float the loop takes as it is: ``_weak_float``)
                limit = min((_NARROW_MAX.get(dt, np.inf) for dt, k in zip(loop_in, keys)
                             if k is float), default=np.inf)
                self._fast[keys] = (_kernel(self.__name__, loop_in, loop_out, False, False),
                                    check, flagged, limit)
            if self.nout == 1:
                return ndarray._owner(results[0], results[0].ndim == 0)
            return tuple(ndarray._owner(r, r.ndim == 0) for r in results)
        written = []
        for r, o in zip(results, outs):
            if o is None:
                written.append(ndarray._owner(r, r.ndim == 0))
                continue
            written.append(write_out(o, r, "unsafe", self.__name__, self.__name__))
        if check is not None:  # after the write, as NumPy (its loop has filled ``out``)
            _run_check(check, vals, results, True if where is True else mask, lazy)
        return written[0] if self.nout == 1 else tuple(written)


def _compare_out_of_range(self: ufunc, i: int, args: tuple, out: Any, where: Any,
                          casting: str, dtype: Any, above: bool, info: Any) -> Any:
    name = self.__name__
    if i == 0:
        name = _CMP_SWAP[name]
        args = (args[1], args[0])
    new = (_CMP_ABOVE if above else _CMP_BELOW)[name]
    end = int(info.max if above else info.min)
    return UFUNCS[new](args[0], end, out=out, where=where, casting=casting, dtype=dtype)


ufunc._compare_out_of_range = _compare_out_of_range


def _run_check(check: Callable, vals: list, results: tuple, mask: Any, lazy: bool) -> None:
    """The floating-point error-state check of one call; in lazy mode float checks go with
    the recorded call (made when its program runs), others need the values now."""
    if lazy and type(results[0]) is Lazy:
        # (a result already computed, e.g. written into a host array: checked now)
        if check.__name__ in _LAZY_CHECKS and results[0].value is None and (
                mask is True or type(mask) is Lazy or isinstance(mask, jax.Array)):
            st = _errstate.state()
            if any(st[key] != "ignore" for key in ("divide", "over", "under", "invalid")):
                _lazy.defer_check(results, check if mask is True else
                                  functools.partial(_masked_check, check, len(vals)), st)
            return
        if check.__name__ == "check_quiet":  # no flag to report outside a trace: nothing
            return  # to compute (``np.sign`` of a pending value stays pending)
        vals = [concrete(v) for v in vals]
        results = tuple(concrete(r) for r in results)
    check(vals, results, mask)


_LAZY_CHECKS = ("check_float",)  # checks that may go with the recorded call


def _lazy_scalar_over(name: str, loop_in: tuple, loop_out: tuple, vals: list) -> ndarray:
    """Integer scalar math in lazy mode: the recorded call also gives a float flag, NaN
    where the operation overflowed, which the lazy program's check of non-finite results
    sees (``_lazy.FiniteWatch``): the overflow is reported when the value is computed, as
    lazy mode reports floating-point errors, without computing anything now."""
    st = _errstate.state()
    res, flag = _over_kernel(name, loop_in, loop_out)(*vals)
    if isinstance(res, jax.core.Tracer):  # npjax.jit in lazy mode: the trace's check
        _ufunc_checks.checker(name, loop_in, loop_out, True)(vals, (res,), True)
    elif st["over"] != "ignore":
        label = f"scalar {name}"
        if type(flag) is Lazy and flag.value is None:
            _lazy.defer_check((res, flag), functools.partial(_report_over, label, st), st)
        else:
            _report_over(label, st, vals, (res, concrete(flag)))
    return ndarray._owner(res, True)


def _report_over(label: str, st: dict, leaves: list, outs: tuple) -> None:
    if np.isnan(np.asarray(outs[1])):
        _errstate.report(2, label, st)


@functools.lru_cache(maxsize=256)
def _over_kernel(name: str, loop_in: tuple, loop_out: tuple) -> Kernel:
    body = _make_body(name, loop_in, loop_out)

    def run(*xs):
        (r,) = body(*xs)
        bad = _int_over(jnp, name, [jnp.asarray(x).astype(dt) for x, dt in zip(xs, loop_in)],
                        r)
        return r, jnp.where(jnp.any(bad), jnp.nan, 0.0)

    return Kernel(jax.jit(run))


def _masked_check(check: Callable, n: int, leaves: list, results: tuple) -> None:
    """A deferred check of a ``where=`` call: its kernel's operands are the ``n`` values,
    the mask, then the old values of ``out`` (``_kernel``)."""
    check(leaves[:n], results, leaves[n])


@functools.lru_cache(maxsize=64)
def _iinfo(dt: np.dtype) -> Any:
    return np.iinfo(dt)


def _check_power(exponent: Any) -> None:
    """NumPy refuses negative integer exponents for integer loops (ValueError)."""
    exponent = concrete(exponent)
    if isinstance(exponent, float):  # cast into the integer loop (``dtype=``, unsafe) first
        bad = not exponent > -1
    elif isinstance(exponent, np.generic | int):
        bad = exponent < 0
    elif exponent.size == 0:
        return
    elif exponent.dtype.kind != "i":
        return
    else:
        bad = jnp.any(exponent < 0)
        if isinstance(bad, jax.core.Tracer):
            tr = trace()
            if tr is not None:  # npjax.jit: checked on the device
                tr.check(bad)
                return
        bad = bool(bad)
    if bad:
        raise ValueError("Integers to negative integer powers are not allowed.")


# gufuncs: the fewest dimensions each operand needs for its core signature.
_CORE_NDIM = {"matmul": (1, 1), "vecdot": (1, 1), "matvec": (2, 1), "vecmat": (1, 2)}


def _check_core_dims(name: str, vals: list) -> None:
    for i, (v, need) in enumerate(zip(vals, _CORE_NDIM[name])):
        ndim = np.ndim(v)
        if ndim < need:
            raise ValueError(f"{name}: Input operand {i} does not have enough dimensions "
                             f"(has {ndim}, gufunc core with signature "
                             f"{UFUNCS[name].signature} requires {need})")


def _core_axis(name: str, args: tuple, axis: Any) -> tuple:
    """A gufunc's ``axis=``: the core dimension of every operand moved to the end, as NumPy
    reads it (only ``vecdot`` has the one shared core dimension it needs)."""
    if axis is None:
        return args
    if name != "vecdot":
        raise TypeError(f"{name}: axis can only be used with a single shared core dimension, "
                        "not with the distinct ones implied by signature "
                        f"{UFUNCS[name].signature}.")
    moved = []
    for a in args:
        if not isinstance(a, ndarray):
            a = np.asarray(a)
        ax = np.lib.array_utils.normalize_axis_index(operator.index(axis_argument(axis, "")),
                                                     a.ndim)
        moved.append(a.transpose([i for i in range(a.ndim) if i != ax] + [ax]))
    return tuple(moved)


def _check_isnat(x: Any) -> None:
    """isnat is defined for datetimes only (host arrays); numbers raise NumPy's TypeError."""
    if isinstance(x, ndarray) or np.asarray(x).dtype.kind not in "mM":
        raise TypeError("ufunc 'isnat' is only defined for np.datetime64 and np.timedelta64.")


def _compare_none(uf: ufunc, args: tuple, out: Any) -> Any:
    """``x == None`` compares as objects in NumPy: elementwise False (True for !=)."""
    shapes = [np.shape(a) if not isinstance(a, ndarray) else a.shape for a in args]
    shape = np.broadcast_shapes(*shapes)
    value = jnp.full(shape, uf.__name__ == "not_equal")
    if out is not None:
        return write_out(out[0] if isinstance(out, tuple) else out, value, "unsafe",
                         uf.__name__)
    return ndarray._owner(value, not shape and all(not isinstance(a, ndarray) or a._scalar
                                                  for a in args))


def _shape_error(uf: ufunc, vals: list, exc: Exception) -> ValueError:
    """NumPy's ValueError for operands whose shapes do not fit (JAX raises TypeError)."""
    shapes = " ".join(str(tuple(np.shape(v))) for v in vals)
    if uf.signature is not None:
        return ValueError(f"{uf.__name__}: operand shapes {shapes} do not match the core "
                          f"signature {uf.signature} ({exc})")
    return ValueError(f"operands could not be broadcast together with shapes {shapes} ")


def _as_out_tuple(out: Any, nout: int) -> tuple | None:
    if out is None:
        return None
    if not isinstance(out, tuple):
        out = (out,)
    if len(out) != nout:
        raise ValueError(f"The 'out' tuple must have exactly {nout} entries: one per ufunc "
                         "output")
    if all(o is None for o in out):
        return None
    for o in out:
        if o is not None and not isinstance(o, ndarray):
            raise TypeError("return arrays must be of ArrayType")
    return out


def _weak_int(value: int, dtype: np.dtype, name: str) -> Any:
    """A Python int operand as a NumPy scalar of its loop dtype (OverflowError as NumPy)."""
    if dtype.kind in "iu":
        _dtypes.check_python_int(value, dtype, name)
        return dtype.type(value)
    if dtype.kind == "b":
        if not -(2**63) <= value < 2**63:  # NumPy converts the int to a C long first
            raise OverflowError("Python int too large to convert to C long")
        return np.bool_(value)
    # beyond int64 JAX cannot take a Python int; past float16's range NumPy may warn of the
    # cast (at the user's line, under the user's error state)
    if -65504 <= value <= 65504:
        return dtype.type(value)
    return _numpy_calls.call_numpy_ufunc(dtype.type, (value,), {})


# The largest finite values of the loop dtypes narrower than a Python float.
_NARROW_MAX = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32)}
_NARROW_MAX[np.dtype(np.complex64)] = _NARROW_MAX[np.dtype(np.float32)]


def _weak_float(value: float | complex, dtype: np.dtype) -> Any:
    """A Python float or complex operand as NumPy takes it into a narrower float loop: cast
    to ``dtype`` first, so one beyond its range is an infinity and NumPy reports "overflow
    encountered in cast" (under the user's error state) rather than an overflow of the
    loop's own operation (``float16_array * 1e5``). In lazy mode the pending values are
    computed first (a rare case), so that their warnings come before this one, as in
    NumPy."""
    top = _NARROW_MAX.get(dtype)
    if top is None:
        return value
    parts = (value.real, value.imag) if type(value) is complex else (value,)
    if all(not (p < -top or p > top) or p in (np.inf, -np.inf) for p in parts):
        return value  # (NaN compares False)
    if current().lazy:
        _lazy.flush()
        _thread_checks.run_held()
    if type(value) is complex:
        return complex(_numpy_calls.call_numpy_ufunc(dtype.type, (value,), {}))
    real = np.float32 if dtype.kind == "c" else dtype.type  # (complex64: its real part)
    return float(_numpy_calls.call_numpy_ufunc(real, (value,), {}))


# Ufuncs whose float16 loop must stay in float16 (they look at the float16 bit pattern).
_NO_UPCAST = {"nextafter", "spacing"}


def _make_body(name: str, loop_in: tuple, loop_out: tuple) -> Callable:
    """The pure-JAX body of one ufunc loop: cast inputs to ``loop_in``, compute, cast out.

    float16 loops compute in float32 and round once, as NumPy's float16 loops do.
    """
    impl = UFUNCS[name]._impl
    f16 = np.dtype(np.float16)
    up = name not in _NO_UPCAST and any(dt == f16 for dt in loop_in)
    compute = tuple(np.dtype(np.float32) if up and dt == f16 else dt for dt in loop_in)
    if name == "power" and loop_in[0] == f16:
        impl = jnp.power  # NumPy's float16 loop has no sqrt fast path

    def body(*xs):
        ins = [_cast_in(x, dt) for x, dt in zip(xs, loop_in)]
        if up:  # operands take float16 values first, then the loop computes in float32
            ins = [x.astype(dt) if x.dtype != dt else x for x, dt in zip(ins, compute)]
        if any(jnp.asarray(x).dtype == np.bool_ and dt.kind in "fc" for x, dt in zip(xs, loop_in)):
            # XLA rewrites x * convert(bool) as a select (inf * False gives 0, not NumPy's nan)
            ins = list(lax.optimization_barrier(tuple(ins)))
        res = impl(*ins)
        res = res if isinstance(res, tuple) else (res,)
        return tuple(jnp.asarray(r).astype(dt) for r, dt in zip(res, loop_out))

    return body


def _cast_in(x: Any, dt: np.dtype) -> jax.Array:
    x = jnp.asarray(x)
    if dt == np.bool_ and x.dtype != np.bool_:  # truth value (complex: either part)
        return x != 0
    return x.astype(dt)


@functools.lru_cache(maxsize=8192)
def _kernel(name: str, loop_in: tuple, loop_out: tuple, with_where: bool,
            has_old: bool) -> Callable:
    body = _make_body(name, loop_in, loop_out)
    nin = len(loop_in)
    products = name in _PRODUCTS and any(dt.kind in "fc" for dt in loop_out)
    if not with_where:
        k = Kernel(jax.jit(body), products)
        k.propagates = name in _finite_watch.PROPAGATING and all(dt.kind in "fc" for dt in loop_in)
        if not k.propagates and getattr(np, name).signature is None and all(
                dt.kind in "fc" for dt in loop_out):
            k.poisons = "every" if name in _finite_watch.QUIET else "some"
            if name == "divide" and all(dt.kind == "f" for dt in (*loop_in, *loop_out)):
                k.poisons = "first"  # x / y is not finite wherever x is not
        return k

    def kernel(*xs):
        res = body(*xs[:nin])
        mask = xs[nin]
        olds = xs[nin + 1:] if has_old else [jnp.zeros_like(r) for r in res]
        return tuple(jnp.where(mask, r, o) for r, o in zip(res, olds))

    return Kernel(jax.jit(kernel), products)


@functools.lru_cache(maxsize=8192)
def _flagged_kernels(name: str, loop_in: tuple, loop_out: tuple) -> tuple:
    """The fast path's kernels that also return NumPy's flag bits of the call, computed in
    the same program (``_deferred_checks.defer_flags``): without, with the underflow bit.
    For results in accelerator memory only: on the CPU backend reading the result costs less
    than the reductions (about 2.6 µs each for 100 elements, twice an add's time at 10**6)."""
    body = _make_body(name, loop_in, loop_out)

    def make(under: bool) -> Callable:
        def flagged(*xs):
            outs = body(*xs)
            return outs, _float_flags(jnp, name, under, list(xs), list(outs), True)
        return jax.jit(flagged)

    return make(False), make(True)


# Ufuncs whose results are floating-point products (see ``_lazy.round_products``).
_PRODUCTS = {"multiply", "square", "power", "float_power"}


NAMES = tuple(sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)))
UFUNCS: dict[str, ufunc] = {}
for _name in NAMES:
    _canonical = getattr(np, _name).__name__
    if _canonical not in UFUNCS:
        UFUNCS[_canonical] = ufunc(_canonical)
    UFUNCS[_name] = UFUNCS[_canonical]


def _ufunc_by_name(name: str) -> ufunc:
    """The ufunc a pickle names (``ufunc.__reduce__``)."""
    return UFUNCS[name]


ufunc.__call__ = ufunc_call(ufunc._any_call, ufunc._device_call)  # (made by ``host_path``)
if HOSTPATH is not None:  # the C base's call runs this one but for the common case (_fast.py)
    HOSTPATH.set_ufunc_call(vars(ufunc)["__call__"])
    del ufunc.__call__
    HOSTPATH.use_vectorcall(ufunc)
