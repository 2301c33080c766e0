"""Run the same code through NumPy and npjax and compare everything NumPy fixes.

``assert_parity(fn, name=...)`` calls ``fn(numpy)`` and ``fn(npjax)``. Both must raise an
exception of the same family, or both must return results with the same type category (array,
scalar, Python value), shape, dtype and values (tolerances.py; NaN positions must match).
A failure message carries the inputs so the case can be rerun. Under ``pytest --npjax-jit``
npjax's side runs as one ``npjax.jit`` call of ``fn`` (the body traced as a function, NumPy's
answer still the oracle); a body that cannot trace runs eagerly (``fallback="eager"``) and is
counted in ``JIT_COUNTS``. Under ``pytest --npjax-autojit`` npjax's side runs twice through
one ``npjax.autojit`` of ``fn``, hot at its second call: the first call runs as written, the
second compiled where autojit compiles it; both are compared with NumPy's answer and what the
second call did is counted in ``AUTOJIT_COUNTS``.
"""

from __future__ import annotations

import contextlib
import re
import types
import warnings
from typing import Any

import numpy as np

import npjax
from npjax._pure import _dtypes
from npjax._runtime import _stats
from tests.tolerances import tolerance

# float64, or float32 where the backend's arrays cannot hold float64 (a TPU): for tests that
# mean device arrays (a float64 array there is a host array: NumPy's memory and scalars)
DEVICE_FLOAT = np.float32 if "float64" in _dtypes.backend_host_dtypes() else np.float64

# Most specific first: AxisError is both a ValueError and an IndexError.
_FAMILIES = (np.exceptions.AxisError, np.linalg.LinAlgError, IndexError, OverflowError,
             ZeroDivisionError, FloatingPointError, KeyError, ValueError, TypeError,
             NotImplementedError, RuntimeError)


def family(exc: BaseException) -> type:
    for cls in _FAMILIES:
        if isinstance(exc, cls):
            return cls
    return type(exc)


# Set by tests/conftest.py from ``--npjax-jit``.
JIT = False
JIT_COUNTS = {"traced": 0, "eager": 0}
# Set by tests/conftest.py from ``--npjax-autojit``: what the second call of each body did
# ("compiled", "as written") and why the as-written ones were (``signatures()``'s ``why``,
# without its file:line).
AUTOJIT = False
PLACEMENT = None  # --npjax-placement: the suite's placement, when given
AUTOJIT_COUNTS: dict[str, int] = {"compiled": 0, "as written": 0}
AUTOJIT_WHY: dict[str, int] = {}


def _run(fn, xp):
    try:
        return fn(xp), None
    except Exception as exc:  # the exception itself is what is compared
        return None, exc


def assert_parity(fn, *, name: str | None = None, context: Any = "", check_sign_of_zero=False):
    """Assert ``fn(numpy)`` and ``fn(npjax)`` agree (value, dtype, shape, exception)."""
    expected, np_exc = _run(fn, np)
    if AUTOJIT:
        return _autojit_parity(fn, expected, np_exc, name, context, check_sign_of_zero)
    actual, our_exc = _run(_jitted(fn) if JIT else fn, npjax)
    return _compare(actual, our_exc, expected, np_exc, name, context, check_sign_of_zero)


def _compare(actual, our_exc, expected, np_exc, name, context, check_sign_of_zero):
    where = f"\n  case: {context}" if context != "" else ""
    if np_exc is not None or our_exc is not None:
        if np_exc is None:
            raise AssertionError(f"npjax raised {our_exc!r}, NumPy returned {expected!r}{where}"
                                 ) from our_exc
        if our_exc is None:
            raise AssertionError(f"NumPy raised {np_exc!r}, npjax returned {actual!r}{where}")
        assert family(our_exc) is family(np_exc), (
            f"NumPy raised {np_exc!r}, npjax raised {our_exc!r}{where}")
        return None
    assert_same(actual, expected, name=name, where=where, check_sign_of_zero=check_sign_of_zero)
    return actual


def _autojit_parity(fn, expected, np_exc, name, context, check_sign_of_zero):
    """npjax's side twice through ``npjax.autojit(fn)`` (hot at its second call: conftest.py):
    as written, then compiled where autojit compiles it; each compared with NumPy's."""
    if not isinstance(fn, types.FunctionType):  # (autojit takes Python functions)
        AUTOJIT_WHY["not a Python function"] = AUTOJIT_WHY.get("not a Python function", 0) + 1
        AUTOJIT_COUNTS["as written"] += 1
        actual, our_exc = _run(fn, npjax)
        return _compare(actual, our_exc, expected, np_exc, name, context, check_sign_of_zero)
    wrapped = npjax.autojit(fn)
    actual, our_exc = _run(wrapped, npjax)
    assert all(s["state"] != "compiled" for s in wrapped.signatures()), "compiled at call 1"
    _compare(actual, our_exc, expected, np_exc, name, f"{context} (autojit, as written)",
             check_sign_of_zero)
    actual, our_exc = _run(wrapped, npjax)
    sigs = wrapped.signatures()
    state = sigs[0]["state"] if len(sigs) == 1 else "as written"
    AUTOJIT_COUNTS[state] = AUTOJIT_COUNTS.get(state, 0) + 1
    if state != "compiled":
        why = sigs[0]["why"] if len(sigs) == 1 else "no signature"
        # (cold: compiled, but a device check of the program reran it eagerly: NumPy's
        # exception, at every call)
        why = _SHAPE.sub("with shape ...", _SITE.sub("", why or "cold: a device check "
                                                     "reran the compiled call eagerly"))
        AUTOJIT_WHY[why] = AUTOJIT_WHY.get(why, 0) + 1
    return _compare(actual, our_exc, expected, np_exc, name,
                    f"{context} (autojit, second call: {state})", check_sign_of_zero)


_SITE = re.compile(r" \([^()]*:\d+\)$")  # the file:line ending a ``why``
_SHAPE = re.compile(r"with shape \S+")


def _jitted(fn):
    """``fn`` compiled by ``npjax.jit`` (the namespace static), counting how it ran."""
    jitted = npjax.jit(fn, static_argnums=0, fallback="eager")

    def run(xp):
        before = _stats.jit_eager.total()
        try:
            return jitted(xp)
        finally:
            eager = _stats.jit_eager.total() > before
            JIT_COUNTS["eager" if eager else "traced"] += 1
    return run


def assert_same(actual, expected, *, name=None, where="", check_sign_of_zero=False):
    """Compare one npjax result with NumPy's (recursing into tuples and lists)."""
    if isinstance(expected, tuple | list):
        assert type(actual) is type(expected) or (
            isinstance(actual, tuple) and isinstance(expected, tuple)), (
            f"type {type(actual)} != {type(expected)}{where}")
        assert len(actual) == len(expected), f"length {len(actual)} != {len(expected)}{where}"
        for a, e in zip(actual, expected):
            assert_same(a, e, name=name, where=where, check_sign_of_zero=check_sign_of_zero)
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, npjax.ndarray) and not actual._scalar, (
            f"NumPy gave an array, npjax gave {type(actual).__name__}"
            f"{' scalar' if getattr(actual, '_scalar', False) else ''}{where}")
    elif isinstance(expected, np.generic):  # an npjax scalar, or NumPy's own (host arrays)
        assert (isinstance(actual, npjax.ndarray) and actual._scalar and actual.ndim == 0) or (
            type(actual) is type(expected)), (
            f"NumPy gave a scalar {expected!r}, npjax gave {actual!r}{where}")
    elif isinstance(expected, np.dtype):  # uint64 has two equal dtype classes in NumPy
        assert isinstance(actual, np.dtype) and actual == expected, (
            f"dtype {actual!r} != {expected!r}{where}")
        return
    else:
        assert type(actual) is type(expected), (
            f"NumPy gave {type(expected).__name__} {expected!r}, npjax gave "
            f"{type(actual).__name__} {actual!r}{where}")
        if not isinstance(expected, int | float | complex | bool):
            assert actual == expected, f"{actual!r} != {expected!r}{where}"
            return
    assert_values(np.asarray(actual), np.asarray(expected), name=name, where=where,
                  check_sign_of_zero=check_sign_of_zero)


def assert_values(got, want, *, name=None, where="", check_sign_of_zero=False):
    """Compare two NumPy arrays: shape, dtype, then values by the tolerance table."""
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}{where}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}{where}"
    tol = tolerance(want.dtype, name)
    if tol["rtol"] == 0 and tol["atol"] == 0:
        np.testing.assert_array_equal(got, want, err_msg=where, strict=True)
    elif want.dtype.kind == "c":
        # As numpy.testing: a complex value with a NaN part is "NaN" (C99 leaves the other part
        # loose). The other values are compared part by part, because numpy.testing mishandles
        # complex infinities (inf+1j against itself fails).
        nan_got, nan_want = np.isnan(got), np.isnan(want)
        assert np.array_equal(nan_got, nan_want), f"complex NaN positions{where}"
        keep = ~nan_want
        _close(got.real[keep], want.real[keep], tol, where, check_sign_of_zero)
        _close(got.imag[keep], want.imag[keep], tol, where, check_sign_of_zero)
    else:
        _close(got, want, tol, where, check_sign_of_zero)


def _close(got, want, tol, where, check_sign_of_zero):
    """Real floats: within tolerance, NaN and infinity at the same places (and signs)."""
    np.testing.assert_allclose(got, want, err_msg=where, equal_nan=True, **tol)
    assert np.array_equal(np.isinf(got), np.isinf(want)), f"inf positions{where}"
    if check_sign_of_zero:
        zeros = (want == 0) & (got == 0)  # (a tiny value within tolerance has its own sign)
        assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros])), (
            f"sign of zero{where}")


def assert_same_outcome(actual, exc, expected, expected_exc, args, expected_args):
    """One run of a kernel against NumPy's run: the same exception family, or the same
    result; and the same final state of every array argument."""
    if expected_exc is not None:
        assert exc is not None and family(exc) is family(expected_exc), (exc, expected_exc)
    else:
        assert exc is None, exc
        assert_same(actual, expected)
    for got, want in zip(args, expected_args):
        if isinstance(want, np.ndarray):
            assert_same(got, want)


def _outcome(lib, fn, state):
    """``fn(lib)``: its result (or exception) and its warnings as (class name, message), the
    result read inside the block (lazy mode reports when a value is read); ``state``: the
    error state it runs under (None: the one in force)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with lib.errstate(all=state) if state else contextlib.nullcontext():
                result = fn(lib)
                for r in result if isinstance(result, tuple) else (result,):
                    if isinstance(r, npjax.ndarray):
                        np.asarray(r)
        except Exception as exc:  # compared with NumPy's
            result = exc
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def check_exactly(fn, state=None):
    """``fn(numpy)`` against ``fn(npjax)``: the same exception class and message, or the same
    result (the sign of zero too); the same warnings in the same order."""
    want, want_warn = _outcome(np, fn, state)
    got, got_warn = _outcome(npjax, fn, state)
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert isinstance(want, Exception) and isinstance(got, Exception), (want, got)
        assert family(got) is family(want), (want, got)
        assert str(got) == str(want), (want, got)
    else:
        assert_same(got, want, check_sign_of_zero=True)
    assert got_warn == want_warn
