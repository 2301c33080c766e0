"""Regressions of the adversarial hunt (issue 36): silent differences from NumPy, each
checked against NumPy exactly (values with the sign of zero, dtype, scalar or array, warning
class and message, exception class) in every mode: host arrays (NumPy computes), device
arrays eager, device arrays in lazy mode, and under ``npjax.jit`` where it applies.

1. integer -> float16 casts of device arrays (OverflowError before: ``_casts._limits``);
2. ``argsort``'s unstable kinds with ties (always the stable order before), and ``sort``'s
   order of equal values of other bits (-0.0 and 0.0, NaNs);
3. ``float16_array * 1e5``: NumPy reports the cast of the Python float, not the multiply;
4. NumPy's scalar math on scalars of device arrays ("overflow encountered in scalar add");
5. ``cross`` with signed zeros (the products' FMA guard added +0.0, turning -0.0 into 0.0);
6. lazy mode, two threads: a check of one thread's pending value is that thread's, even when
   another thread's read computes the value;
7. float32 sums: NumPy's bits within NumPy's order's limits, the documented bound past them.
"""

from __future__ import annotations

import operator
import subprocess
import sys
import threading
import warnings

import numpy
import pytest

import npjax
from tests._parity import DEVICE_FLOAT, check_exactly
from tests._threads import run_threads

MODES = {
    "host": {"placement": "auto"},  # (also under --npjax-placement=device)
    "device": {"placement": "device"},
    "lazy": {"placement": "device", "mode": "lazy"},
}


# npjax.jit runs on the device; its eager rerun (when a check of the trace is set) too.
_JIT_DEVICE = pytest.mark.device_placement


@pytest.fixture(params=list(MODES))
def mode(request):
    with npjax.policy(**MODES[request.param]):
        yield request.param


check = check_exactly


def _a(lib, values, dtype):
    """An array of ``values``: NumPy's, or npjax's placed by the mode in force."""
    host = numpy.array(values, dtype)
    return host if lib is numpy else npjax.asarray(host)


# --- 1. integer -> float16 -------------------------------------------------------------------

_INTS = ["int32", "int64", "uint32", "uint64"]


def _int_values(src):
    info = numpy.iinfo(src)
    values = [0, 1, 65504, 65519, 65520, 70000, int(info.max)]
    if info.min < 0:
        values += [-65519, -65520, int(info.min)]
    return values


@pytest.mark.parametrize("src", _INTS)
@pytest.mark.parametrize("path", ["astype", "asarray", "setitem", "fits"])
def test_int_to_float16(mode, src, path):
    values = _int_values(src)

    def fn(m):
        x = _a(m, values if path != "fits" else [0, 1, 65519, 2048], src)
        if path == "asarray":
            return m.asarray(x, dtype=m.float16)
        if path == "setitem":
            out = m.zeros(len(values), m.float16)
            out[:] = x
            return out
        return x.astype(m.float16)

    check(fn)


@pytest.mark.parametrize("state", ["raise", "ignore"])
def test_int_to_float16_errstate(mode, state):
    def fn(m):
        with m.errstate(over=state):
            return _a(m, [1, 70000], numpy.int64).astype(m.float16)

    check(fn)


@_JIT_DEVICE
def test_int_to_float16_jit():
    fn = npjax.jit(lambda x: x.astype(npjax.float16))
    for values in ([1, 2, 65519], [1, 70000, -70000]):
        check(lambda m, x=values: (fn if m is npjax else (lambda v: v.astype(m.float16)))(
            _a(m, x, numpy.int64)))


# --- 2. argsort with ties --------------------------------------------------------------------

_rng = numpy.random.default_rng(36)
_TIES = {
    "int64": _rng.integers(0, 4, 200),
    "int8-2d": _rng.integers(0, 3, (5, 40)).astype(numpy.int8),
    "float64": numpy.array([1.0, numpy.nan, 0.0, -0.0, 2.0] * 12),
    "float32": _rng.integers(0, 5, 100).astype(numpy.float32),
    "bool": _rng.integers(0, 2, 60).astype(bool),
    "complex": _rng.integers(0, 3, 50) + 1j * _rng.integers(0, 2, 50),
    "distinct": _rng.permutation(300).astype(numpy.float64),
}


@pytest.mark.parametrize("case", list(_TIES))
@pytest.mark.parametrize("kw", [{}, {"kind": None}, {"kind": "quicksort"}, {"kind": "heapsort"},
                                {"kind": "stable"}, {"kind": "mergesort"}, {"stable": True},
                                {"stable": False}, {"axis": None}, {"axis": 0}],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_argsort_ties(mode, case, kw):
    values = _TIES[case]
    check(lambda m: m.argsort(_a(m, values, values.dtype), **kw))
    check(lambda m: _a(m, values, values.dtype).argsort(**kw))


_SIGNED = {
    "zeros": numpy.array([0.0, -0.0, 1.0, -0.0, 0.0] * 10),
    "nans": numpy.array([numpy.nan, -numpy.nan, 1.0, 0.0, -0.0] * 10),
    "zeros-f32-2d": numpy.array([[0.0, -0.0, 2.0, -0.0] * 8] * 3, numpy.float32),
    "complex": numpy.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), 1 + 0j] * 10),
    "distinct": _TIES["distinct"],
}


@pytest.mark.parametrize("case", list(_SIGNED))
@pytest.mark.parametrize("kw", [{}, {"kind": "quicksort"}, {"kind": "stable"}, {"axis": None},
                                {"axis": 0}],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_sort_equal_values_of_other_bits(mode, case, kw):
    """NumPy's unstable sorts order -0.0 and 0.0 (and NaNs) their own way."""
    values = _SIGNED[case]
    check(lambda m: m.sort(_a(m, values, values.dtype), **kw))
    if "axis" not in kw or kw["axis"] is not None:
        def method(m):
            x = _a(m, values, values.dtype)
            x.sort(**kw)
            return x

        check(method)


@_JIT_DEVICE
def test_argsort_ties_jit():
    """Under npjax.jit ties are a check of the trace: the call reruns eagerly."""
    fn = npjax.jit(lambda x: npjax.argsort(x))
    for values in (_TIES["int64"], _TIES["distinct"], _TIES["float64"]):
        check(lambda m, v=values: (fn if m is npjax else m.argsort)(_a(m, v, v.dtype)))


def test_argsort_without_ties_reads_no_host_copy():
    """Without ties the device sort is the answer: no NumPy argsort, no copy of the array."""
    from npjax._runtime import _stats

    with npjax.policy(placement="device"):
        x = npjax.asarray(_TIES["distinct"])
        before = _stats.device_wait[1]
        got = npjax.argsort(x)
        assert _stats.device_wait[1] == before
    assert numpy.array_equal(numpy.asarray(got), numpy.argsort(_TIES["distinct"]))


# --- 3. a Python float beyond a narrower float loop's range ----------------------------------

_WEAK = [
    ("f16 * 1e5", lambda m: _a(m, [1.0, 0.0], numpy.float16) * 1e5),
    ("f16 * -1e5", lambda m: _a(m, [1.0, 2.0], numpy.float16) * -1e5),
    ("f16 + 1e5", lambda m: _a(m, [1.0, 2.0], numpy.float16) + 1e5),
    ("1e5 * f16", lambda m: 1e5 * _a(m, [1.0, 2.0], numpy.float16)),
    ("f16 < 1e5", lambda m: _a(m, [1.0, 2.0], numpy.float16) < 1e5),
    ("maximum", lambda m: m.maximum(_a(m, [1.0, 2.0], numpy.float16), 1e5)),
    ("f16 * 65519.99", lambda m: _a(m, [1.0, 2.0], numpy.float16) * 65519.99),
    ("f16 * 100000", lambda m: _a(m, [1.0, 2.0], numpy.float16) * 100000),
    ("f32 + 1e300", lambda m: _a(m, [1.0, 2.0], numpy.float32) + 1e300),
    ("c64 * 1e39+1j", lambda m: _a(m, [1.0, 2.0], numpy.complex64) * complex(1e39, 1)),
    ("c64 * 1e39", lambda m: _a(m, [1.0, 0.0], numpy.complex64) * 1e39),
    ("f32 * 1e39+0j", lambda m: _a(m, [1.0, 0.0], numpy.float32) * complex(1e39, 0)),
    ("f16 * nan", lambda m: _a(m, [1.0, 2.0], numpy.float16) * float("nan")),
    ("f16 * inf", lambda m: _a(m, [1.0, 0.0], numpy.float16) * float("inf")),
]


@pytest.mark.parametrize("fn", [f for _, f in _WEAK], ids=[n for n, _ in _WEAK])
def test_python_float_cast_overflow(mode, fn):
    check(fn)


def test_python_float_cast_overflow_after_fast_path(mode):
    """A loop seen before takes its fast path; a Python float beyond its range does not."""
    def fn(m):
        x = _a(m, [1.0, 0.0], numpy.float16)
        return x * 2.0, x * 1e5, x * 3.0, 2.0 - x, 1e6 - x

    check(fn)


def test_python_float_cast_overflow_raises(mode):
    def fn(m):
        with m.errstate(over="raise"):
            return _a(m, [1.0, 2.0], numpy.float16) * 1e5

    check(fn)


@_JIT_DEVICE
def test_python_float_cast_overflow_jit():
    fn = npjax.jit(lambda x: x * 1e5)
    check(lambda m: (fn if m is npjax else (lambda x: x * 1e5))(
        _a(m, [1.0, 0.0], numpy.float16)))


# --- 4. NumPy's scalar math on scalars of device arrays --------------------------------------

def _pair(op, values, dtype):
    return lambda m: (lambda a: op(a[0], a[1]))(_a(m, values, dtype))


_SCALAR = [
    ("int8 add", _pair(lambda x, y: x + y, [127, 1], numpy.int8)),
    ("int8 add ok", _pair(lambda x, y: x + y, [100, 1], numpy.int8)),
    ("int64 mul", _pair(lambda x, y: x * y, [2**62, 4], numpy.int64)),
    ("int64 mul -1", _pair(lambda x, y: x * y, [-1, -2**63], numpy.int64)),
    ("int64 mul ok", _pair(lambda x, y: x * y, [-2**31, 2**32], numpy.int64)),
    ("uint8 sub", _pair(lambda x, y: x - y, [0, 1], numpy.uint8)),
    ("uint64 mul", _pair(lambda x, y: x * y, [2**63, 2], numpy.uint64)),
    ("int16 sub", _pair(lambda x, y: x - y, [-32768, 1], numpy.int16)),
    ("int8 neg", _pair(lambda x, y: -x, [-128, 1], numpy.int8)),
    ("uint8 neg", _pair(lambda x, y: -x, [1, 0], numpy.uint8)),
    ("int8 abs", _pair(lambda x, y: abs(x), [-128, 1], numpy.int8)),
    ("int8 + 1", _pair(lambda x, y: x + 1, [127, 1], numpy.int8)),
    ("2 * int8", _pair(lambda x, y: 2 * x, [100, 1], numpy.int8)),
    ("int8 iadd", _pair(operator.iadd, [127, 1], numpy.int8)),
    ("int8 floordiv", _pair(lambda x, y: x // y, [-128, -1], numpy.int8)),
    ("int8 floordiv 0", _pair(lambda x, y: x // y, [5, 0], numpy.int8)),
    ("int8 mod 0", _pair(lambda x, y: x % y, [5, 0], numpy.int8)),
    ("int8 divmod 0", _pair(divmod, [5, 0], numpy.int8)),
    ("int8 pow", _pair(lambda x, y: x ** y, [2, 10], numpy.int8)),
    ("int8 lshift", _pair(lambda x, y: x << y, [127, 1], numpy.int8)),
    ("f64 mul", _pair(lambda x, y: x * y, [1e308, 10], numpy.float64)),
    ("f64 div 0", _pair(lambda x, y: x / y, [1.0, 0.0], numpy.float64)),
    ("f64 0/0", _pair(lambda x, y: x / y, [0.0, 0.0], numpy.float64)),
    ("f32 mul", _pair(lambda x, y: x * y, [3e38, 10], numpy.float32)),
    ("f64 pow", _pair(lambda x, y: x ** y, [10.0, 400.0], numpy.float64)),
    ("int8 / 0", _pair(lambda x, y: x / y, [5, 0], numpy.int8)),
    ("f64 divmod 0", _pair(divmod, [1.0, 0.0], numpy.float64)),
    ("f64 floordiv 0", _pair(lambda x, y: x // y, [1.0, 0.0], numpy.float64)),
    ("f16 * 1e5", _pair(lambda x, y: x * 1e5, [2.0, 0.0], numpy.float16)),
    ("f16 mul", _pair(lambda x, y: x * y, [300.0, 300.0], numpy.float16)),
    ("c128 mul", _pair(lambda x, y: x * y, [1e308, 10], numpy.complex128)),
    ("f64 neg", _pair(lambda x, y: -x, [0.0, 1.0], numpy.float64)),
    ("ufunc add (no scalar math)", lambda m: (lambda a: m.add(a[0], a[1]))(
        _a(m, [127, 1], numpy.int8))),
    ("0-d array add (no scalar math)", lambda m: (lambda a: a[()] + a[()])(
        _a(m, 127, numpy.int8))),
]


@pytest.mark.parametrize("fn", [f for _, f in _SCALAR], ids=[n for n, _ in _SCALAR])
def test_scalar_math(mode, fn):
    check(fn)


@pytest.mark.parametrize("state", ["raise", "ignore"])
def test_scalar_math_errstate(mode, state):
    def fn(m):
        a = _a(m, [127, 1], numpy.int8)
        with m.errstate(over=state):
            return a[0] + a[1]

    check(fn)


def test_scalar_math_loop_chains(mode):
    """A scalar carried through a loop: one warning per overflowing step, as NumPy."""
    def fn(m):
        a = _a(m, [100, 20, 5, 3], numpy.int8)
        s = a[0]
        for i in range(1, 4):
            s = s + a[i]
        return s

    check(fn)


@_JIT_DEVICE
def test_scalar_math_jit():
    def body(m):
        return lambda a: a[0] + a[1]

    fn = npjax.jit(body(npjax))
    for values in ([1, 2], [127, 1], [1, 2]):
        check(lambda m, v=values: (fn if m is npjax else body(m))(_a(m, v, numpy.int8)))


# --- 5. cross with signed zeros --------------------------------------------------------------

_Z = [0.0, -0.0, 1.0, -1.0, 2.0]
_rz = numpy.random.default_rng(5)
_CROSS = {f"{na}x{nb}": (_rz.choice(_Z, (60, na)), _rz.choice(_Z, (60, nb)))
          for na, nb in ((3, 3), (2, 3), (3, 2), (2, 2))}


@pytest.mark.parametrize("case", list(_CROSS))
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex128"])
def test_cross_signed_zeros(mode, case, dtype):
    x, y = _CROSS[case]
    check(lambda m: m.cross(_a(m, x, dtype), _a(m, y, dtype)))  # (2-vectors: both warn)


@_JIT_DEVICE
def test_cross_signed_zeros_jit():
    fn = npjax.jit(lambda a, b: npjax.cross(a, b))
    x, y = _CROSS["3x3"]
    check(lambda m: (fn if m is npjax else m.cross)(_a(m, x, "float64"), _a(m, y, "float64")))


# --- 6. lazy mode: errors of pending values go to the thread that made them ------------------

@pytest.mark.parametrize("state", ["raise", "call"])
def test_lazy_errors_stay_with_their_thread(state):
    """Thread B holds a pending value when thread A records ``big / 0.0`` under
    ``errstate(divide=...)``: A's call is computed at once (NumPy raises at the line), B's
    pending value with it (one graph per process). A gets NumPy's FloatingPointError (or its
    callback call) at its line; B sees nothing."""
    b_recorded, a_done = threading.Event(), threading.Event()
    seen: dict = {"A": [], "B": []}

    def a():
        me = threading.get_ident()
        assert b_recorded.wait(60)
        try:
            with npjax.policy(placement="device", mode="lazy"):
                big = npjax.asarray(numpy.full(100, 1.0))
                with npjax.errstate(divide=state, call=lambda kind, flag: seen["A"].append(
                        (kind, threading.get_ident() == me))):
                    try:
                        r = big / 0.0
                        seen["A"].append(float(r[0]))
                    except FloatingPointError as exc:
                        seen["A"].append(str(exc))
        finally:
            a_done.set()

    def b():
        with npjax.policy(placement="device", mode="lazy"):
            with npjax.errstate(all="call", call=lambda kind, flag: seen["B"].append(kind)):
                x = npjax.asarray(numpy.arange(5.0)) + 1
                b_recorded.set()
                assert a_done.wait(60)
                seen["B"].append(float(x.sum()))

    run_threads([(a, ()), (b, ())])
    assert seen["B"] == [15.0]
    if state == "raise":
        assert seen["A"] == ["divide by zero encountered in divide"]
    else:
        assert seen["A"] == [("divide by zero", True), float("inf")]  # called in A


# --- 3. lazy mode: the error of a value never read is not lost ---------------------------

def test_lazy_raise_at_the_line():
    """Under ``errstate(divide="raise")`` the division raises at its own line, as NumPy's,
    even though lazy mode would otherwise wait for a read."""
    with npjax.policy(placement="device", mode="lazy"):
        x = npjax.asarray(numpy.ones(200))
        with npjax.errstate(divide="raise"), pytest.raises(FloatingPointError,
                                                           match="divide by zero"):
            x / 0.0  # never read


def test_lazy_unread_value_is_checked_at_the_next_flush():
    with npjax.policy(placement="device", mode="lazy"):
        x = npjax.asarray(numpy.ones(200, DEVICE_FLOAT))
        r = x / 0.0
        del r
        y = x + 1
        with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide"):
            assert float(y[0]) == 2.0


def test_lazy_unread_value_is_checked_at_exit():
    code = ("import numpy, npjax\n"
            "with npjax.policy(placement='device', mode='lazy'):\n"
            "    r = npjax.asarray(numpy.ones(200)) / 0.0\n"
            "    del r\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    # at the line of the division (line 3), as NumPy's
    assert "<string>:3: RuntimeWarning: divide by zero encountered in divide" in out.stderr


def _warning_lines(m):
    """Warnings (message, line) of operations read at once, read later and never read."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        x = m.asarray(numpy.array([1.0, -1.0, 1000.0]))
        h = m.asarray(numpy.array([1.0, 2.0], numpy.float16))
        a = m.sqrt(x)
        float(a[0])
        b = m.exp(x)
        c = h * 1e5
        d = x / 0.0
        del d  # never read
        e = x.astype(numpy.float32) * numpy.float32(1e38)
        float(b[0] + c[0] + e[0])
    return [(str(w.message), w.lineno, w.filename) for w in seen]


@pytest.mark.parametrize("placement", ["device", "lazy"])
def test_warnings_name_the_line_of_their_operation(placement):
    """Hunt item 3: lazy mode reports a pending value's warnings at a later read (or flush),
    each naming the line of the operation that made it, as NumPy's."""
    want = _warning_lines(numpy)
    with npjax.policy(**MODES[placement]):
        got = _warning_lines(npjax)
    assert got == want


# --- 5. float32 sums past NumPy's order: NumPy's bits where documented, bounded past it ------

_EPS32 = float(numpy.finfo(numpy.float32).eps)


def _f32(seed, shape, dist):
    rng = numpy.random.default_rng(seed)
    draw = rng.random if dist == "uniform" else rng.standard_normal
    return draw(shape).astype(numpy.float32)


@pytest.mark.parametrize("shape, axis", [((4096,), None), ((500, 100), 0), ((600, 7), 0)])
def test_float32_sums_within_numpys_order_are_numpys_bits(mode, shape, axis):
    """docs/differences.md: sums of at most 4096 elements and reductions of up to ~600 steps
    follow NumPy's pairwise order, bit for bit."""
    check(lambda m: _a(m, _f32(36, shape, "normal"), numpy.float32).sum(axis=axis))


def _sum_bounds(fn, seeds=(0, 1, 2)):
    """(largest |npjax - NumPy|, largest |npjax - exact|), each over eps32 * sum(|x|) of the
    same terms, over uniform and normal draws; dtypes and shapes NumPy's."""
    diff = err = 0.0
    for dist in ("uniform", "normal"):
        for seed in seeds:
            got, want, exact, scale = fn(seed, dist)
            got = numpy.asarray(got)
            assert got.dtype == want.dtype and got.shape == want.shape
            diff = max(diff, float(numpy.max(numpy.abs(got - want) / scale)) / _EPS32)
            err = max(err, float(numpy.max(numpy.abs(got - exact) / scale)) / _EPS32)
    return diff, err


def _cumsum_70000(run):
    def fn(seed, dist):
        x = _f32(seed, 70000, dist)
        wide = x.astype(numpy.float64)
        return run(npjax.asarray(x)), numpy.cumsum(x), numpy.cumsum(wide), \
            numpy.cumsum(numpy.abs(wide))
    return fn


def _sum_700x100(run):
    def fn(seed, dist):
        x = _f32(seed, (700, 100), dist)
        wide = x.astype(numpy.float64)
        return run(npjax.asarray(x)), x.sum(axis=0), wide.sum(axis=0), \
            numpy.abs(wide).sum(axis=0)
    return fn


@pytest.mark.parametrize("case", ["cumsum-70000", "sum-700x100-axis0"])
@pytest.mark.parametrize("how", ["eager", "jit"])
def test_float32_sums_past_numpys_order_within_the_documented_bound(mode, case, how):
    """Hunt item 5: past NumPy's order the device sums in XLA's; docs/differences.md gives the
    measured bound (npjax within 73 eps*sum|x| of NumPy's cumsum and 12 of its sum, itself
    within 2.9 and 1.5 of the exact sum). Asserted with a margin: 80/16 and 4/2."""
    op = (lambda x: npjax.cumsum(x)) if case.startswith("cumsum") else \
        (lambda x: npjax.sum(x, axis=0))
    if how == "jit":
        if mode == "host":
            pytest.skip("npjax.jit runs on the device")
        op = npjax.jit(op)
    make = _cumsum_70000 if case.startswith("cumsum") else _sum_700x100
    diff, err = _sum_bounds(make(op))
    if mode == "host" and how == "eager":  # NumPy computes: NumPy's bits (and error)
        assert diff == 0.0
        return
    bound_diff, bound_err = (80, 4) if case.startswith("cumsum") else (16, 2)
    assert diff <= bound_diff and err <= bound_err, (diff, err)
