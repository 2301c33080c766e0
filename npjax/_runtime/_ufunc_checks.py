"""The error-state check after a ufunc call (``checker``) or a division ``reduce``
(``check_reduce``): traced (``npjax.jit``), deferred (accelerator memory) or at the call."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _fp_screen, _host_reads
from npjax._runtime._deferred_checks import _defer, _deferrable
from npjax._runtime._errstate import _KINDS, report, state
from npjax._runtime._finite_watch import PROPAGATING, QUIET
from npjax._runtime._fp_flags import (_CMP, _INT_DIV, SCALAR_OVER, _float_flags, _int_flags,
                                     _reduce_flags)
from npjax._runtime._fp_screen import _all_finite, _flags, _no_tiny

_Tracer = jax.core.Tracer
_CONCRETE = _host_reads.CONCRETE

_quiet_state: Any = None  # the last state dict seen with every category "ignore"


def _remember_quiet(st: dict) -> None:
    global _quiet_state
    _quiet_state = st


def _traced(outs: Any, st: dict, flags: Callable | None, operands: Any = None) -> bool:
    """Under ``npjax.jit`` (traced results): record a device-side check that is True when the
    call could warn or raise; the jitted call then reruns eagerly, with NumPy's reports.
    Float calls (``flags`` None) check only what every flag needs first, as ``check_float``
    does: a non-finite output (or, when underflow is reported, a tiny one)."""
    if not isinstance(outs[0], _Tracer):  # outputs are all traced or none is
        return False
    from npjax._runtime._context import trace

    tr = trace()
    if tr is None:  # traced by plain jax.jit: no place to report, no check
        return True
    if flags is not None:
        active = sum(bit for key, bit, _ in _KINDS if st[key] != "ignore")
        tr.check((flags() & active) != 0)
        return True
    tr.watch.add(outs, st["under"] != "ignore", operands)
    return True


def _poisoned(outs: tuple) -> list | None:
    """The operands whose non-finite values traced ``outs`` show (``poison``), or None."""
    from npjax._runtime._context import trace

    tr = trace()
    return None if tr is None else tr.watch.poisoned(outs)


_EXACT = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
          "negative": operator.neg, "absolute": abs}


def _is_host_scalar(v: Any) -> bool:
    return isinstance(v, int | float | complex | np.generic)


@functools.lru_cache(maxsize=8192)
def checker(name: str, loop_in: tuple, loop_out: tuple, scalar: bool = False
            ) -> Callable | None:
    """The error-state check after a call of ufunc ``name`` with these loop dtypes, or None
    when such a call cannot raise a floating-point flag. ``check(vals, outs, mask=True)``
    takes the operands (as given to the kernel) and the results; it warns, raises or calls
    as the error state says. ``scalar``: the call is NumPy's scalar math (an operator on
    scalars): its reports say "... encountered in scalar <name>", and integer ``+``, ``-``,
    ``*``, negation and ``abs`` report their overflow."""
    label = f"scalar {name}" if scalar else name
    int_kind = bool(loop_in) and all(dt.kind in "iub" for dt in loop_in)
    if scalar and name in SCALAR_OVER and all(dt.kind in "iu" for dt in loop_out):
        info = np.iinfo(loop_out[0])
        bounds = int(info.min), int(info.max)

        def check_over(vals: list, outs: tuple, mask: Any = True) -> None:
            st = state()
            if st["over"] == "ignore":
                return
            if _traced(outs, st, lambda: _int_flags(jnp, name, None, list(vals), mask,
                                                    list(outs))):
                return
            if _deferrable(outs[0], st):
                _defer(name, "int", vals, outs, mask, st, None, label)
                return
            r = outs[0]
            if mask is True and r.ndim == 0 and _host_reads.on_host(r):  # Python's exact
                exact = _EXACT[name](*(int(np.asarray(v)) for v in vals))  # value: fastest
                if not bounds[0] <= exact <= bounds[1]:
                    report(2, label, st)
                return
            flags = _flags(name, "int", False, vals, outs, mask)
            if flags:
                report(flags, label, st)

        return check_over
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
                _defer(name, "int", vals, outs, mask, st, low, label)
                return
            flags = _flags(name, "int", False, vals, outs, mask, low)
            if flags:
                report(flags, label, st)

        return check_int
    if not any(dt.kind in "fc" for dt in loop_out) and not (
            name in _CMP and loop_in[0].kind == "c"):
        return None
    floats = [i for i, dt in enumerate(loop_out) if dt.kind in "fc"]
    covers = name in PROPAGATING and all(dt.kind in "fc" for dt in loop_in)
    compare = name in _CMP  # complex comparisons: flags come from NaN operands
    if name in QUIET and all(dt.kind == "f" for dt in (*loop_in, *loop_out)):
        def check_quiet(vals: list, outs: tuple, mask: Any = True) -> None:
            """No flag to report; under ``npjax.jit`` the results of watched operands
            are watched too (``FiniteWatch.implied``)."""
            if isinstance(outs[0], _Tracer):
                from npjax._runtime._context import trace

                tr = trace()
                if tr is not None and mask is True:
                    shown = tr.watch.poisoned(outs)
                    if shown is not None:
                        tr.watch.add(outs, False, shown)
                    else:
                        tr.watch.implied(outs, vals)

        return check_quiet

    # One float result, no flag from NaN operands: a computed result in this process's host
    # memory (a CPU-only process) that the screen finds finite has no flag to report
    # (underflow aside), which is what the steps below find for it.
    screen = _fp_screen.screen if floats == [0] and not compare else None

    def check_float(vals: list, outs: tuple, mask: Any = True) -> None:
        st = state()
        if st is _quiet_state:  # the same state object as last time, with nothing to report
            return
        under = st["under"] != "ignore"
        if not under and st["divide"] == "ignore" and st["over"] == "ignore" \
                and st["invalid"] == "ignore":
            _remember_quiet(st)
            return
        if screen is not None and not under and type(outs[0]) is _CONCRETE and \
                _host_reads._host_only and screen(outs[0]) is True:
            return
        if isinstance(outs[0], _Tracer):
            if under:  # an underflow to 0 is finite: the finite watch would not see it
                _traced(outs, st, lambda: _float_flags(jnp, name, True, list(vals),
                                                       list(outs), mask))
                return
            shown = vals if covers else _poisoned(outs)
            _traced(outs, st, None, shown if mask is True else None)
            return
        if floats and _deferrable(outs[floats[0]], st):
            _defer(name, "float", vals, outs, mask, st, label=label)
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
            report(flags, label, st)

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
