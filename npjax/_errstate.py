"""Floating-point error state: errstate, seterr, geterr, seterrcall, geterrcall.

npjax has no error state of its own: these names *are* NumPy's (``npjax.errstate is
numpy.errstate``), so ``with np.errstate(...)`` from either library controls both, per thread
and per asyncio task as in NumPy. npjax ufuncs (and the operators, which are ufunc calls)
honour it as NumPy's loops do: for each of divide / over / under / invalid, "ignore" is
silent, "warn" warns ``RuntimeWarning: divide by zero encountered in divide`` at the user's
line, "raise" raises ``FloatingPointError``, "call" calls the ``seterrcall`` function with
(kind, flags), "print" writes to stderr and "log" calls ``.write`` on the ``seterrcall``
object. NumPy's default is warn for divide/over/invalid and ignore for under.

How the flags are found. XLA has no floating-point status flags, so npjax infers them from
the values, after the kernel, at the operation (so warnings and errors appear where NumPy
raises them; nothing is deferred):

1. Screen (every float ufunc call whose categories are not all "ignore"): are all float
   outputs finite (and, when "under" is not ignored, none tiny)? The answer needs the result
   on the host: on the CPU backend the result buffer is read in place (no copy) and
   screened by ``np.isfinite`` (a dot product for large arrays); on an accelerator a small
   reduction kernel runs and one boolean is transferred (a device sync per float ufunc call).
   Measured cost on CPU (2-core VM, 100-element float64 ``add``): about +3.5 µs per call
   (kernel 5.5 -> 8.9 µs), so ``npjax.add`` goes from about 8.5 to 13 µs
   (``benchmarks/overhead.py``: 1.16x -> 1.6-1.9x raw ``jax.numpy``); under
   ``np.errstate(all="ignore")`` the check is one context-variable read (about +0.3 µs).
   Ufuncs with integer or boolean outputs (comparisons, bitwise, integer arithmetic) pay
   nothing, except integer ``//``, ``%``, ``divmod``, ``fmod`` and ``reciprocal``, which look
   at the divisor (free for a Python-scalar divisor).
2. Only when the screen finds a non-finite output, the flags are computed from inputs and
   outputs: invalid = a NaN output where no input is NaN; divide = an infinite output from
   finite inputs at a pole of the function (x/0, log(0), log1p(-1), arctanh(±1), 0**-n);
   overflow = any other infinite output from finite inputs; underflow = a zero or subnormal
   output from nonzero finite inputs of multiply/divide/exp/exp2/power/square/ldexp. Integer
   division by zero gives 0 and "divide by zero"; ``MIN // -1`` gives MIN and "overflow".
   ``np.errstate(all="ignore")`` skips both steps.

Differences from NumPy:
- Underflow is inferred (an exactly representable subnormal product is flagged, which NumPy
  does not); XLA on CPU flushes subnormals to zero anyway.
- Reductions and statistics (``sum`` overflowing, ``mean`` of an empty slice, ``nanmean``
  of NaNs...) are checked by ``_reduction_checks`` with the same deferral (``defer_events``).
- Not covered: NumPy-scalar integer overflow (``np.int8(127) + 1`` warns in NumPy): NumPy's
  value without the warning.
  Casts (``astype``, writes, ``out=`` of another dtype) are checked by ``_casts``.
- gufuncs (``matmul``...) decide per call, not per element: invalid when an output is NaN and
  no input is; overflow when an output is infinite and every input finite.
"""

from __future__ import annotations

import atexit
import collections
import contextvars
import functools
import inspect
import math
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

errstate = np.errstate
seterr = np.seterr
geterr = np.geterr
seterrcall = np.seterrcall
geterrcall = np.geterrcall

__all__: list[str] = ["errstate", "geterr", "geterrcall", "seterr", "seterrcall"]

try:  # NumPy's context variable: one ``get`` per call instead of building a dict
    from numpy._core._ufunc_config import _extobj_contextvar, _get_extobj_dict
    from numpy._core._ufunc_config import _make_extobj as _numpy_make_extobj
except ImportError:  # pragma: no cover - other NumPy layouts
    _extobj_contextvar = None

_cache: tuple = (None, None)  # (NumPy's extobj, its state as a dict); replaced atomically


def state() -> dict:
    """The error state in force here: divide/over/under/invalid modes and ``call``."""
    global _cache
    if _extobj_contextvar is None:  # pragma: no cover
        return {**np.geterr(), "call": np.geterrcall()}
    obj = _extobj_contextvar.get()
    cached = _cache
    if cached[0] is obj:
        return cached[1]
    d = _get_extobj_dict()
    _cache = (obj, d)
    return d


_quiet_state: Any = None  # the last state dict seen with every category "ignore"


def _remember_quiet(st: dict) -> None:
    global _quiet_state
    _quiet_state = st


_KINDS = (("divide", 1, "divide by zero"), ("over", 2, "overflow"),
          ("under", 4, "underflow"), ("invalid", 8, "invalid value"))
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _stacklevel() -> int:
    """The warnings stacklevel of the first caller outside npjax (NumPy warns at that line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


# A host computation runs NumPy's loops under a copy of NumPy's error state in which "warn"
# is "log" to a writer that keeps the message (it carries the loop's name: "... encountered
# in reduce"); npjax issues it after the call at the user's line, where NumPy's C loops would
# name the npjax frame that called them. Private NumPy API (its error-state context
# variable): without it NumPy warns itself.
class _Pending(threading.local):
    """This thread's logged messages, not yet issued."""

    def __init__(self) -> None:
        self.messages: list[tuple] = []  # (text, (filename, lineno, globals) or None)


_pending = _Pending()
ever_logged = [False]  # set once any thread has logged: then each call looks at its own list


class _LogToPending:
    """NumPy's "log" target: keeps ``Warning: <kind> encountered in <name>`` messages."""

    def write(self, message: str) -> None:
        text = message[9:-1] if message.startswith("Warning: ") else message.rstrip()
        frame = sys._getframe(1)  # where NumPy warns: the innermost frame outside npjax
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
            frame = frame.f_back
        where = None if frame is None else (frame.f_code.co_filename, frame.f_lineno,
                                            frame.f_globals)
        _pending.messages.append((text, where))
        ever_logged[0] = True


_LOG_TO_PENDING = _LogToPending()


@functools.lru_cache(maxsize=64)
def _logging_copy(extobj: Any) -> Any:
    """NumPy's error state ``extobj`` with "warn" turned into "log" to ``_LogToPending``;
    None when nothing warns or the user's own "call"/"log" target is in use."""
    state = _get_extobj_dict()
    modes = {key: state[key] for key in ("divide", "over", "under", "invalid")}
    if "warn" not in modes.values() or any(m in ("call", "log") for m in modes.values()):
        return None
    return _numpy_make_extobj(
        call=_LOG_TO_PENDING, **{key: "log" if m == "warn" else m for key, m in modes.items()})


def issue_pending() -> None:
    """Issue the messages NumPy's loops logged in this thread as RuntimeWarnings, each where
    NumPy would have issued it (``warn_explicit``, with that module's registry)."""
    messages = _pending.messages
    if not messages:
        return
    messages = messages[:]
    _pending.messages.clear()
    for text, where in messages:
        if where is None:
            warnings.warn(text, RuntimeWarning, stacklevel=2)
            continue
        filename, lineno, module_globals = where
        warnings.warn_explicit(text, RuntimeWarning, filename, lineno,
                               module_globals.get("__name__", "<string>"),
                               module_globals.setdefault("__warningregistry__", {}))


def call_numpy_ufunc(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """``fn(*args, **kwargs)``, a NumPy computation that warns only from its C loops (a ufunc
    or an operator), its floating-point warnings issued where NumPy issues them (not at
    npjax's frame that called NumPy)."""
    if _extobj_contextvar is None:  # pragma: no cover
        return fn(*args, **kwargs)
    swapped = _logging_copy(_extobj_contextvar.get())
    if swapped is None:
        return fn(*args, **kwargs)
    token = _extobj_contextvar.set(swapped)
    try:
        return fn(*args, **kwargs)
    finally:
        _extobj_contextvar.reset(token)
        if ever_logged[0]:
            issue_pending()


# (NumPy's error state, a Context holding only its logging copy, or None): ``run_loops``'s
# cache, per context like NumPy's error state itself. (Without NumPy's private API the state
# reads None, matching the default: no context, NumPy warns itself.)
numpy_errstate = _extobj_contextvar.get if _extobj_contextvar is not None else lambda: None
loops_context: contextvars.ContextVar[tuple] = contextvars.ContextVar(
    "npjax_loops_context", default=(None, None))


_UNARY = object()  # run_loops's second operand when there is none


def run_loops(fn: Callable, x: Any, y: Any = _UNARY) -> Any:
    """``fn(x)`` or ``fn(x, y)`` as ``call_numpy_ufunc`` runs it, for operands that are
    NumPy arrays of numbers and numbers only, so that no Python code runs inside: the call
    runs in a context that holds just the logging error state (``Context.run`` costs a
    fraction of setting and resetting NumPy's context variable: this is the hot path of
    small-array code, written for speed)."""
    extobj = numpy_errstate()
    cached = loops_context.get()
    if cached[0] is not extobj:
        cached = cache_loops_context(extobj)
    context = cached[1]
    try:
        if context is None:
            return fn(x) if y is _UNARY else fn(x, y)
        return context.run(fn, x) if y is _UNARY else context.run(fn, x, y)
    except RuntimeError as e:  # entered already: another thread runs in it (a copied context)
        if "cannot enter context" not in str(e):
            raise
        return call_numpy_ufunc(fn, (x,) if y is _UNARY else (x, y), {})
    finally:
        if ever_logged[0]:
            issue_pending()


def cache_loops_context(extobj: Any) -> tuple:
    """``run_loops``'s (NumPy's error state, a Context holding only its logging copy, or
    None), remembered in this context."""
    swapped = _logging_copy(extobj)
    context = None
    if swapped is not None:
        context = contextvars.Context()
        context.run(_extobj_contextvar.set, swapped)
    cached = (extobj, context)
    loops_context.set(cached)
    return cached


_python_warn = warnings.warn


def _warn_past_npjax(message: Any, category: Any = None, stacklevel: int = 1,
                     source: Any = None, **kwargs: Any) -> None:
    """``warnings.warn`` while NumPy's Python code runs for npjax: a warning NumPy would
    attribute to its caller (npjax) is attributed to the user's line instead."""
    level = stacklevel
    try:
        frame = sys._getframe(level)
    except ValueError:
        frame = None
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    _python_warn(message, category, level + 1, source, **kwargs)


def call_numpy_function(fn: Callable, args: tuple, kwargs: dict, loops: bool = True) -> Any:
    """``fn(*args, **kwargs)``, any NumPy function or method, its warnings issued where NumPy
    issues them. ``loops``: ``fn`` is C code that may run NumPy's loops itself (a method, a
    C function), whose floating-point warnings would name npjax's frame: it runs as in
    ``call_numpy_ufunc``. A NumPy function written in Python (``loops=False``) runs under the
    user's own error state, which its code may read (``isclose`` does), and its loops' warnings
    name its own frames as in NumPy. Either way ``warnings.warn`` is swapped for the call, so
    that a warning NumPy's Python code attributes to its caller (npjax) names the user's line
    (process-wide for the call, like ``catch_warnings``; C code's other warnings, rare, keep
    naming npjax)."""
    run = call_numpy_ufunc if loops else _call
    if warnings.warn is not _python_warn:  # re-entered, or someone else's warn: leave it
        return run(fn, args, kwargs)
    warnings.warn = _warn_past_npjax
    try:
        return run(fn, args, kwargs)
    finally:
        warnings.warn = _python_warn


def _call(fn: Callable, args: tuple, kwargs: dict) -> Any:
    return fn(*args, **kwargs)


def runs_loops(fn: Callable) -> bool:
    """Whether the NumPy function ``fn`` is C code (``call_numpy_function``'s ``loops``), not
    Python code behind NumPy's dispatcher."""
    return not inspect.isfunction(getattr(fn, "_implementation", fn))


def report(flags: int, name: str, st: dict | None = None) -> None:
    """Act on ``flags`` (NumPy's bits: divide 1, over 2, under 4, invalid 8) for ``name``."""
    st = state() if st is None else st
    for key, bit, text in _KINDS:
        if not flags & bit:
            continue
        mode = st[key]
        if mode == "ignore":
            continue
        msg = f"{text} encountered in {name}"
        if mode == "warn":
            warnings.warn(msg, RuntimeWarning, stacklevel=_stacklevel())
        elif mode == "raise":
            raise FloatingPointError(msg)
        elif mode == "call":
            func = st.get("call")
            if func is None:
                raise NameError(f"python callback specified for {text} (in  {name}) but no "
                                "function found.")
            func(text, flags)
        elif mode == "print":
            print(f"Warning: {msg}", file=sys.stderr)
        elif mode == "log":
            log = st.get("call")
            if log is None:
                raise NameError(f"log specified for {text} (in {name}) but no object with "
                                "write method found.")
            log.write(f"Warning: {msg}\n")


# --- the rules --------------------------------------------------------------------------

_INT_DIV = frozenset({"floor_divide", "remainder", "divmod", "fmod"})
_GUFUNCS = frozenset({"matmul", "vecdot", "matvec", "vecmat"})
_UNDER = frozenset({"multiply", "divide", "true_divide", "exp", "exp2", "power",
                    "float_power", "square", "ldexp"})


def _pole(xp: Any, name: str, vals: list) -> Any:
    """Where an infinite result from finite inputs is a division by zero (not an overflow)."""
    if name in ("divide", "true_divide", "floor_divide", "divmod"):
        return vals[1] == 0
    if name in ("reciprocal", "log", "log2", "log10"):
        return vals[0] == 0
    if name == "log1p":
        return vals[0] == -1
    if name == "arctanh":
        return xp.abs(vals[0]) == 1
    if name == "arctan" and _kind(vals[0]) == "c":
        return (vals[0] == 1j) | (vals[0] == -1j)
    if name in ("power", "float_power"):
        return (vals[0] == 0) & (xp.real(vals[1]) < 0)
    return False


_CMP = frozenset({"less", "less_equal", "greater", "greater_equal"})


def _extra_invalid(xp: Any, name: str, vals: list) -> Any:
    """Invalid flags NumPy's loops raise with a NaN operand (ordered comparisons inside)."""
    if name in ("logaddexp", "logaddexp2"):
        return xp.isnan(vals[0]) | xp.isnan(vals[1])
    if not any(_kind(v) == "c" for v in vals):
        return False
    if name in _CMP:  # lexicographic order: real parts, then imaginary parts if equal
        xr, yr = xp.real(vals[0]), xp.real(vals[1])
        return (xp.isnan(xr) | xp.isnan(yr)
                | ((xr == yr) & (xp.isnan(xp.imag(vals[0])) | xp.isnan(xp.imag(vals[1])))))
    if name == "divide" or name == "true_divide":  # Smith's method compares |yr| and |yi|
        x, y = vals
        return xp.isnan(y) | ((y == 0) & ((xp.real(x) == 0) | (xp.imag(x) == 0)))
    if name == "reciprocal":
        return xp.isnan(vals[0])
    if name in ("power", "float_power"):
        return xp.isnan(vals[1])
    if name == "multiply":  # inf * 0 in one of the four real products
        x, y = vals
        parts_x, parts_y = (xp.real(x), xp.imag(x)), (xp.real(y), xp.imag(y))
        bad = False
        for p in parts_x:
            for q in parts_y:
                bad = bad | (xp.isinf(p) & (q == 0)) | ((p == 0) & xp.isinf(q))
        return bad
    return False


def _nonzero_exact(name: str, vals: list) -> Any:
    """Where a tiny result of ``name`` is an underflow (the exact result is not zero)."""
    if name in ("multiply",):
        return (vals[0] != 0) & (vals[1] != 0)
    if name in ("divide", "true_divide", "power", "float_power", "square", "ldexp"):
        return vals[0] != 0
    return True


def _kind(v: Any) -> str:
    dt = getattr(v, "dtype", None)
    return np.asarray(v).dtype.kind if dt is None else dt.kind


def _float_flags(xp: Any, name: str, under: bool, vals: list, outs: list, mask: Any) -> Any:
    """NumPy's flag bits for a float ufunc call, from its inputs and outputs (traceable)."""
    floats = [v for v in vals if _kind(v) in "fc"]
    outs = [o for o in outs if o.dtype.kind in "fc"]
    if name in _GUFUNCS:  # core dimensions: decide for the whole call (traceable: no
        nan_in, fin_in, nan_out, inf_out = False, True, False, False  # Python any/all)
        for v in floats:
            nan_in, fin_in = nan_in | xp.any(xp.isnan(v)), fin_in & xp.all(xp.isfinite(v))
        for o in outs:
            nan_out, inf_out = nan_out | xp.any(xp.isnan(o)), inf_out | xp.any(xp.isinf(o))
        return xp.where(inf_out & fin_in, 2, 0) + xp.where(nan_out & ~nan_in, 8, 0)
    nan_in, fin_in = False, True
    for v in floats:
        spacing = name == "spacing" and v.dtype != np.float16  # spacing(inf): no flag
        nan_in = nan_in | (~xp.isfinite(v) if spacing else xp.isnan(v))
    for v in (vals[:1] if name == "nextafter" else floats):
        fin_in = fin_in & xp.isfinite(v)
    pole = _pole(xp, name, vals)
    inv = _extra_invalid(xp, name, vals)
    div = over = und = False
    for o in outs:
        inv = inv | (xp.isnan(o) & ~nan_in)
        new_inf = xp.isinf(o) & fin_in
        div = div | (new_inf & pole)
        over = over | (new_inf & ~pole)
        if name in ("floor_divide", "divmod"):  # NumPy's npy_divmod: inf - inf inside
            inv = inv | (new_inf & ~pole)
        if under and name in _UNDER:
            tiny = np.finfo(o.dtype).tiny
            und = und | ((xp.abs(o) < tiny) & fin_in & _nonzero_exact(name, vals))
    bits = 0
    for flag, bit in ((div, 1), (over, 2), (und, 4), (inv, 8)):
        if flag is not False:
            bits = bits + xp.where(xp.any(flag & mask), bit, 0)
    return bits


def _int_flags(xp: Any, name: str, low: int | None, vals: list, mask: Any) -> Any:
    """Integer ``//``, ``%``, ``divmod``, ``fmod`` (divisor 0; MIN // -1) and ``reciprocal``
    (1 / 0: divide and invalid, as NumPy's cast of inf)."""
    if name == "reciprocal":
        return xp.where(xp.any((vals[0] == 0) & mask), 9, 0)
    x, y = vals
    bits = xp.where(xp.any((y == 0) & mask), 1, 0)
    if low is not None:  # signed floor division: MIN // -1 overflows
        bits = bits + xp.where(xp.any((x == low) & (y == -1) & mask), 2, 0)
    return bits


@functools.lru_cache(maxsize=1024)
def _device_flags(name: str, kind: str, under: bool, low: int | None) -> Callable:
    if kind == "int":
        return jax.jit(lambda vals, outs, mask: _int_flags(jnp, name, low, vals, mask))
    return jax.jit(lambda vals, outs, mask: _float_flags(jnp, name, under, vals, outs, mask))


_all_cpu: bool | None = None
_Tracer = jax.core.Tracer


_host_only = False  # CPU-only JAX in one process: every array is host memory here


def on_host(x: Any) -> bool:
    """Whether ``x`` can be read on the host without a transfer (CPU backend or host data)."""
    global _all_cpu, _host_only
    if _host_only:  # the hot path: one global read
        return True
    if not isinstance(x, jax.Array):
        return True
    if _all_cpu is None:
        _all_cpu = all(d.platform == "cpu" for d in jax.devices())
        _host_only = _all_cpu and jax.process_count() == 1
    if _all_cpu:  # a global array over several processes (npjax.distributed) is not
        return x.is_fully_addressable  # readable here: checked on the devices instead
    return all(d.platform == "cpu" for d in x.devices())


@jax.jit
def _device_finite(x: jax.Array) -> jax.Array:
    return jnp.all(jnp.isfinite(x))


@functools.lru_cache(maxsize=64)
def _device_no_tiny(tiny: float) -> Callable:
    return jax.jit(lambda x: jnp.all((jnp.abs(x) >= tiny) | ~jnp.isfinite(x)))


_isfinite = np.isfinite
_all = np.logical_and.reduce


def _all_finite(r: jax.Array) -> bool:
    if not on_host(r):
        SYNCS["checks"] += 1
        return bool(_device_finite(r))
    h = np.asarray(r)  # the CPU buffer itself, no copy
    if h.dtype.char in "fd":
        # float32/64: an inf or NaN anywhere makes the dot product non-finite, at a third of
        # the cost of ``isfinite`` and ``all`` (a false alarm from its overflow: step 2)
        h = h.ravel()
        try:
            return math.isfinite(_QUIET.run(h.dot, h))
        except RuntimeError as e:  # entered already: another thread runs in it
            if "cannot enter context" not in str(e):
                raise
            with np.errstate(all="ignore"):
                return math.isfinite(h.dot(h))
    return bool(_all(_isfinite(h), axis=None))


class _IgnoreAll:
    """``_QUIET`` without NumPy's private error-state variable: ``errstate(all="ignore")``."""

    def run(self, fn: Callable, *args: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args)


if _extobj_contextvar is not None:  # NumPy's error state "ignore" everywhere, nothing else
    _QUIET: Any = contextvars.Context()
    _QUIET.run(_extobj_contextvar.set, _numpy_make_extobj(all="ignore"))
else:  # pragma: no cover - other NumPy layouts
    _QUIET = _IgnoreAll()


def _no_tiny(r: jax.Array) -> bool:
    tiny = float(np.finfo(r.dtype).tiny)
    if not on_host(r):
        SYNCS["checks"] += 1
        return bool(_device_no_tiny(tiny)(r))
    h = np.asarray(r)
    with np.errstate(all="ignore"):
        return bool(((np.abs(h) >= tiny) | ~np.isfinite(h)).all())


def _host(v: Any) -> Any:
    return np.asarray(v) if isinstance(v, jax.Array) else v


def _flags(name: str, kind: str, under: bool, vals: list, outs: list, mask: Any,
           low: int | None = None) -> int:
    if all(on_host(v) for v in (*vals, *outs, mask)):
        hv, ho, hm = [_host(v) for v in vals], [_host(o) for o in outs], _host(mask)
        with np.errstate(all="ignore"):
            if kind == "int":
                return int(_int_flags(np, name, low, hv, hm))
            return int(_float_flags(np, name, under, hv, ho, hm))
    SYNCS["checks"] += 1
    return int(_device_flags(name, kind, under, low)(list(vals), list(outs), mask))


# --- deferred checks ---------------------------------------------------------------------
# Checking a result in accelerator memory at the call waits for the device at every call.
# Where the error state only warns (or ignores), the check's flags are computed on the device
# instead (no wait) and read all at once when a value is next read on the host
# (``flush_deferred``: ``_stats.fetch`` calls it), after ``DEFER_BOUND`` pending checks, or
# at exit; each warning is then issued naming the user's line of the operation that raised
# it. The check is made at the call, as before, where the user watches for it: a "raise",
# "call", "print" or "log" state, warnings turned into errors, and ``catch_warnings`` blocks
# (``pytest.warns`` among them). Results on the host (the CPU backend) are checked at the
# call: reading them costs no transfer.

DEFER_BOUND = 4096
# "checks": device reads made by checks at the call; "deferred": checks deferred;
# "deferred_reads": reads of deferred checks (one per flush).
SYNCS: collections.Counter = collections.Counter()
_BASE_FILTERS = warnings.filters  # a catch_warnings block installs another list


class _Deferred(threading.local):
    """This thread's deferred checks: (device values, events, error state, user's line);
    a ufunc's events are ``(("flags", name),)``."""

    def __init__(self) -> None:
        self.items: list[tuple] = []


_deferred = _Deferred()


def _deferrable(result: Any, st: dict) -> bool:
    """Whether the check of ``result`` under the error state ``st`` may wait for the next
    host read: a result in accelerator memory of this process only (a global array over
    several processes is checked at the call by all of them), a state that only warns."""
    if on_host(result) or not getattr(result, "is_fully_addressable", False):
        return False
    return _may_defer(st)


def _may_defer(st: dict) -> bool:
    """Whether the error state ``st`` and the warnings filters allow a check to wait."""
    if any(st[key] not in ("ignore", "warn") for key in ("divide", "over", "under", "invalid")):
        return False
    filters = warnings.filters
    return filters is _BASE_FILTERS and not any(f[0] == "error" for f in filters)


def _user_line() -> tuple | None:
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno,
                                       frame.f_globals)


def _defer(name: str, kind: str, vals: Any, outs: Any, mask: Any, st: dict,
           low: int | None = None) -> None:
    """Compute a check's flags on the device; read them at the next host read."""
    flags = _device_flags(name, kind, True, low)(list(vals), list(outs), mask)
    _push(flags, (("flags", name),), st, _user_line())


def defer_events(values: Any, events: tuple, st: dict) -> None:
    """Defer a check of several ``events`` (see ``issue_events``) whose ``values`` (one
    device integer each) are read at the next host read."""
    _push(values, events, st, _user_line())


def _push(values: Any, events: tuple, st: dict, where: tuple | None) -> None:
    items = _deferred.items
    items.append((values, events, st, where))
    SYNCS["deferred"] += 1
    if len(items) >= DEFER_BOUND:
        flush_deferred()


def issue_events(values: Any, events: tuple, st: dict | None = None) -> None:
    """Act now, at the user's line, on checked ``events``: ``("flags", name)`` events carry
    NumPy's flag bits and follow the error state ``st`` ("... encountered in <name>");
    ``("warn", message)`` events carry a count of plain RuntimeWarnings (NumPy's "Mean of
    empty slice", "All-NaN slice encountered"...), which the error state does not govern.
    Deferred warnings of earlier operations come first: while some are pending, these wait
    with them where they may (no read of the device), else all are issued now."""
    st = state() if st is None else st
    if _deferred.items:
        if _may_defer(st):
            _push(np.asarray(values), events, st, _user_line())
            return
        flush_deferred()
    for (kind, text), value in zip(events, np.atleast_1d(np.asarray(values))):
        value = int(value)
        if not value:
            continue
        if kind == "warn":
            for _ in range(value):
                warnings.warn(text, RuntimeWarning, stacklevel=_stacklevel())
        else:
            report(value, text, st)


def flush_deferred() -> None:
    """Read this thread's deferred checks (one wait for the device) and issue their
    warnings, each at the line of its operation, in the order the operations ran."""
    items = _deferred.items
    if not items:
        return
    _deferred.items = []
    SYNCS["deferred_reads"] += 1
    values = jax.device_get([flags for flags, *_ in items])
    for value, (_, events, st, where) in zip(values, items):
        for (kind, name), v in zip(events, np.atleast_1d(value)):
            flags = int(v)
            if kind == "warn":
                _pending.messages.extend([(name, where)] * flags)
                continue
            for key, bit, text in _KINDS:
                if flags & bit and st[key] == "warn":
                    _pending.messages.append((f"{text} encountered in {name}", where))
    issue_pending()


atexit.register(flush_deferred)


def _traced(outs: Any, st: dict, flags: Callable | None, operands: Any = None) -> bool:
    """Under ``npjax.jit`` (traced results): record a device-side check that is True when the
    call could warn or raise; the jitted call then reruns eagerly, with NumPy's reports.
    Float calls (``flags`` None) check only what every flag needs first, as ``check_float``
    does: a non-finite output (or, when underflow is reported, a tiny one)."""
    if not isinstance(outs[0], _Tracer):  # outputs are all traced or none is
        return False
    from npjax._context import trace

    tr = trace()
    if tr is None:  # traced by plain jax.jit: no place to report, no check
        return True
    if flags is not None:
        active = sum(bit for key, bit, _ in _KINDS if st[key] != "ignore")
        tr.check((flags() & active) != 0)
        return True
    tr.watch.add(outs, st["under"] != "ignore", operands)
    return True


# Ufuncs whose result is not finite wherever an operand is not (inf * 0 is nan, sqrt(-inf)
# is nan, log(-inf) is nan, ...), for float loops: a check of their result covers their
# operands (``FiniteWatch``).
PROPAGATING = frozenset({"add", "subtract", "multiply", "negative", "positive", "absolute",
                         "sqrt", "square", "log", "conjugate"})


class FiniteWatch:
    """Traced float results gathered into one check: is any of them not finite (or tiny,
    when underflow is reported)? ``x * 0`` is NaN exactly where ``x`` is not finite, and
    NaN survives sums, so results of one shape are summed elementwise into one accumulator:
    XLA fuses that sum into the loops that compute the results, and only one reduction per
    shape is left (a reduction per result would stop the fusion of elementwise chains).

    A result stored whole into an array (``a[i] = expr``) is checked where it was stored,
    read back from the array's final value (``stored``), not from the expression: XLA
    would otherwise compute the expression a second time for the check, reading the old
    value of the array that the store updates in place, and so copy the array before each
    update (in a rolled loop: a copy of every carried array per iteration)."""

    def __init__(self) -> None:
        self._results: list = []
        self._covered: set = set()
        self._tiny: list = []
        self._ids: set = set()  # ids of the watched results (kept alive by ``_results``)
        self._stored: dict = {}  # id(value) -> (holder, position in its chain, read, value)
        self._chains: dict = {}  # id(holder) -> [(value before, value after, box)] of stores

    def add(self, outs: Any, under: bool = False, operands: Any = None) -> None:
        """Watch ``outs``. ``operands``: those of a call of a PROPAGATING ufunc that gave
        ``outs`` (non-finite where an operand is, every operand element used): they need no
        check of their own, ``outs`` shows theirs (this is what lets XLA fuse the chain)."""
        outs = [o for o in outs if o.dtype.kind in "fc"]
        self._results.extend(outs)
        self._ids.update(id(o) for o in outs)
        if operands is not None and not under and all(o.size for o in outs):
            self._covered.update(id(v) for v in operands)
        if under:
            for o in outs:
                if o.size:
                    tiny = float(np.finfo(o.dtype).tiny)
                    self._tiny.append(jnp.any((jnp.abs(o) < tiny) & (o != 0)))

    def stored(self, value: Any, holder: Any, before: Any, left: Any, read: Callable,
               box: Any = None) -> None:
        """``value`` was just stored into ``holder`` (an array whose ``_value`` the store
        changed from ``before`` to ``left``); ``read(v)`` reads the stored part of a value
        ``v`` of the array back; ``box``: the part as ((start, ...), (size, ...)) when its
        place is known, else None. What ``read`` gives is checked instead of ``value``
        (when it has ``value``'s dtype and size), read from the array's final value when
        every later store into it is recorded here and misses the part, else not at all:
        reading a value that a later store updates in place would bring the copy back."""
        chain = self._chains.setdefault(id(holder), [])
        chain.append((before, left, box))
        # ``value`` may be watched later (a ufunc with ``out=`` stores, then is watched):
        # it is kept alive here, so its id stays its own.
        self._stored[id(value)] = (holder, len(chain) - 1, read, value)

    def _checked(self, o: Any) -> Any:
        """What to check for result ``o``: ``o``, or the part of an array it was stored
        into (``stored``)."""
        s = self._stored.get(id(o))
        if s is None:
            return o
        holder, k, read, _ = s
        chain = self._chains[id(holder)]
        _, left, box = chain[k]
        for before, after, other in chain[k + 1:]:
            if before is not left or not _apart(box, other):
                return o
            left = after
        if holder._value is not left:
            return o
        r = read(left)
        if r.dtype != o.dtype or r.size != o.size:
            return o
        return r.reshape(o.shape)

    def flag(self) -> Any:
        """The traced boolean (None when nothing was added)."""
        sums, tiny = self.parts()
        parts = [~jnp.isfinite(jnp.sum(acc)) for acc in sums.values()] + tiny
        if not parts:
            return None
        bad = parts[0]
        for p in parts[1:]:
            bad = bad | p
        return bad

    def parts(self) -> tuple[dict, list]:
        """({shape: float32 accumulator, NaN where a result is not finite}, [traced
        booleans of tiny results]): a rolled loop carries the accumulators across its
        iterations and reduces them once (``npjax._loops``)."""
        sums: dict = {}
        for o in self._results:
            if id(o) in self._covered or not o.size:
                continue
            zero = self._checked(o) * 0
            if zero.dtype.kind == "c":
                zero = jnp.real(zero) + jnp.imag(zero)
            zero = zero.astype(np.float32)
            acc = sums.get(o.shape)
            sums[o.shape] = zero if acc is None else acc + zero
        return sums, list(self._tiny)


def _apart(a: Any, b: Any) -> bool:
    """Whether two boxes ((start, ...), (size, ...)) are known to share no element."""
    if a is None or b is None:
        return False
    return any(s0 + n0 <= s1 or s1 + n1 <= s0
               for s0, n0, s1, n1 in zip(a[0], a[1], b[0], b[1]))


def _is_host_scalar(v: Any) -> bool:
    return isinstance(v, int | float | complex | np.generic)


@functools.lru_cache(maxsize=8192)
def checker(name: str, loop_in: tuple, loop_out: tuple) -> Callable | None:
    """The error-state check after a call of ufunc ``name`` with these loop dtypes, or None
    when such a call cannot raise a floating-point flag. ``check(vals, outs, mask=True)``
    takes the operands (as given to the kernel) and the results; it warns, raises or calls
    as the error state says."""
    int_kind = bool(loop_in) and all(dt.kind in "iub" for dt in loop_in)
    if int_kind and (name in _INT_DIV or name == "reciprocal"):
        keys = ("divide", "invalid") if name == "reciprocal" else ("divide", "over")
        low = (int(np.iinfo(loop_in[0]).min) if name in ("floor_divide", "divmod")
               and loop_in[0].kind == "i" else None)

        def check_int(vals: list, outs: tuple, mask: Any = True) -> None:
            st = state()
            if st[keys[0]] == "ignore" and st[keys[1]] == "ignore":
                return
            d = vals[-1]
            if _is_host_scalar(d) and d != 0 and (d != -1 or name == "reciprocal"):
                return
            if mask is True and getattr(outs[0], "size", 1) == 0:
                return
            if _traced(outs, st, lambda: _int_flags(jnp, name, low, list(vals), mask)):
                return
            if _deferrable(outs[0], st):
                _defer(name, "int", vals, outs, mask, st, low)
                return
            flags = _flags(name, "int", False, vals, outs, mask, low)
            if flags:
                report(flags, name, st)

        return check_int
    if not any(dt.kind in "fc" for dt in loop_out) and not (
            name in _CMP and loop_in[0].kind == "c"):
        return None
    floats = [i for i, dt in enumerate(loop_out) if dt.kind in "fc"]
    covers = name in PROPAGATING and all(dt.kind in "fc" for dt in loop_in)
    compare = name in _CMP  # complex comparisons: flags come from NaN operands

    def check_float(vals: list, outs: tuple, mask: Any = True) -> None:
        st = state()
        if st is _quiet_state:  # the same state object as last time, with nothing to report
            return
        under = st["under"] != "ignore"
        if not under and st["divide"] == "ignore" and st["over"] == "ignore" \
                and st["invalid"] == "ignore":
            _remember_quiet(st)
            return
        if isinstance(outs[0], _Tracer):
            _traced(outs, st, None, vals if covers and mask is True else None)
            return
        if floats and _deferrable(outs[floats[0]], st):
            _defer(name, "float", vals, outs, mask, st)
            return
        hit = compare
        for i in floats:
            o = outs[i]
            if not _all_finite(o) or (under and not _no_tiny(o)):
                hit = True
                break
        if not hit:
            return
        # underflow too even when ignored: NumPy's "call" callback gets every raised bit
        flags = _flags(name, "float", True, vals, outs, mask)
        if flags:
            report(flags, name, st)

    return check_float


# --- ufunc.reduce -------------------------------------------------------------------------

_DIVISIONS = _INT_DIV | {"divide", "true_divide"}


def check_reduce(name: str, x: Any, res: Any, axes: tuple, all_divisors: bool,
                 mask: Any = True) -> None:
    """The error-state check after ``reduce`` of a division ufunc (NumPy: "... encountered
    in reduce").

    A zero among the divisors (every element after the first along the reduced axis, or all
    of them after an ``initial``) gives "divide"; for float loops a non-finite result from
    finite operands gives "divide" at such a zero, else "overflow" (inf) or "invalid" (NaN),
    decided per output lane (``axes``: the reduced axes of ``x``). Sums and products are
    checked by ``_reduction_checks``. Under ``npjax.jit`` and in lazy mode nothing is
    checked here."""
    if name not in _DIVISIONS:
        return
    st = state()
    if st["divide"] == "ignore" and st["over"] == "ignore" and st["invalid"] == "ignore":
        return
    if not isinstance(res, jax.Array) or isinstance(res, _Tracer) or x.size == 0:
        return  # traced (npjax.jit) or pending (lazy mode): not checked here
    flags = int(_reduce_flags(axes, all_divisors)(x, res, mask))
    if flags:
        report(flags, "reduce", st)


@functools.lru_cache(maxsize=256)
def _reduce_flags(axes: tuple, all_divisors: bool) -> Callable:
    def flags(x, res, mask):
        m = jnp.broadcast_to(mask, x.shape)
        if axes:  # divisions are not reorderable: one axis
            axis = axes[0]
            divisors = x if all_divisors else lax.slice_in_dim(x, 1, x.shape[axis], axis=axis)
            dm = m if all_divisors else lax.slice_in_dim(m, 1, x.shape[axis], axis=axis)
            pole = jnp.any((divisors == 0) & dm, axis=axis)
        else:
            pole = jnp.zeros((), bool)
        if res.dtype.kind not in "fc":  # integer division: only the zero divisor
            return jnp.where(jnp.any(pole), 1, 0)
        nan_in = jnp.any(jnp.isnan(x) & m, axis=axes)
        fin_in = jnp.all(jnp.isfinite(x) | ~m, axis=axes)
        r = res.reshape(nan_in.shape)
        new_inf = jnp.isinf(r) & fin_in
        div = jnp.any(new_inf & pole)
        over = jnp.any(new_inf & ~pole)
        inv = jnp.any(jnp.isnan(r) & ~nan_in)
        return jnp.where(div, 1, 0) + jnp.where(over, 2, 0) + jnp.where(inv, 8, 0)

    return jax.jit(flags)
