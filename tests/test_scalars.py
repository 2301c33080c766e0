"""Results NumPy gives as scalars behave as NumPy scalars for Python; arrays print as NumPy's.

Each check runs the same expression on NumPy and npjax and compares the Python-level
outcome: the value and its Python type, or the exception family.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._pure._dtypes import is_device_dtype
from tests import strategies as S
from tests._parity import assert_parity, family

PY_FUNCS = [float, int, bool, complex, operator.index, hash, len, str, repr,
            lambda x: f"{x:.3f}", lambda x: f"{x}", lambda x: f"{x:>12}", lambda x: x.item(),
            lambda x: x.tolist(), lambda x: [10, 20, 30, 40][x], lambda x: list(range(x)),
            lambda x: list(iter(x)), lambda x: x.item(0), math.isnan, math.floor,
            # members of NumPy's scalars that numpy.ndarray lacks (npjax/_core/_scalar_members.py)
            round, lambda x: round(x, 1), math.trunc, math.ceil, lambda x: x.is_integer(),
            lambda x: x.as_integer_ratio(), lambda x: x.bit_count(), lambda x: x.numerator,
            lambda x: x.denominator, lambda x: x.hex()]


def outcome(fn, x):
    """Python-level result (value, type) or the exception family of ``fn(x)``."""
    try:
        r = fn(x)
    except Exception as exc:
        return ("raised", family(exc).__name__)
    if isinstance(r, np.generic | np.ndarray | npjax.ndarray):
        return ("array or scalar", repr(r))
    if isinstance(r, float) and r != r:
        return ("nan", type(r).__name__)
    if isinstance(r, list):
        return ([outcome(lambda y: y, e) for e in r], "list")
    return (r, type(r).__name__)


def same_python_behaviour(make):
    e, a = outcome(make, np), outcome(make, npjax)
    if isinstance(e[0], str) or isinstance(a[0], str):  # ("raised", family)
        assert a == e
        return
    expected, actual = make(np), make(npjax)
    assert repr(actual) == repr(expected)
    assert str(actual) == str(expected)
    nan = np.isnan(expected).any() if expected.dtype.kind in "fc" else False
    for i, fn in enumerate(PY_FUNCS):
        if fn is hash and nan:  # Python hashes each NaN object differently
            continue
        e, a = outcome(fn, expected), outcome(fn, actual)
        assert _same(a, e), f"function #{i}: npjax {a}, numpy {e} for {expected!r}"


def _same(a, e) -> bool:
    if isinstance(e[0], complex) and isinstance(a[0], complex):
        return a[1] == e[1] and np.array_equal(a[0], e[0], equal_nan=True)
    return a == e


@given(S.arrays(S.dtypes, S.shapes(min_dims=1, max_dims=2, min_side=1, max_side=3)),
       st.data())
def test_element_is_a_numpy_like_scalar(host, data):
    index = tuple(data.draw(st.integers(-n, n - 1)) for n in host.shape)
    same_python_behaviour(lambda xp: xp.asarray(host)[index])


@given(S.arrays(S.dtypes, S.shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)))
def test_arrays_behave_and_print_as_numpy_arrays(host):
    same_python_behaviour(lambda xp: xp.asarray(host))


@pytest.mark.parametrize("value", [1.5, -0.0, np.nan, np.inf, 3, -7, True, 2 + 3j, 0])
@pytest.mark.parametrize("dtype", [None, np.float32, np.int8, np.uint16, np.complex64,
                                   np.float16, np.bool_])
def test_ufunc_results_on_0d_are_scalars(value, dtype):
    if isinstance(value, complex) and dtype not in (None, np.complex64):
        return
    try:
        host = np.asarray(value, dtype=dtype)
    except (ValueError, OverflowError):
        return
    same_python_behaviour(lambda xp: xp.positive(xp.asarray(host)))
    same_python_behaviour(lambda xp: xp.add(xp.asarray(host), xp.asarray(host)))
    same_python_behaviour(lambda xp: xp.asarray(host))


def test_scalar_comparisons_and_arithmetic():
    for op in (operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
               operator.add, operator.mul, operator.truediv, operator.floordiv, operator.pow,
               operator.sub):
        assert_parity(lambda xp, op=op: op(xp.asarray([1.5, 2.5])[1], 2))
        assert_parity(lambda xp, op=op: op(3, xp.asarray([1, 2])[0]))
        assert_parity(lambda xp, op=op: op(xp.asarray([1, 2], np.int8)[0],
                                           xp.asarray([1.5])[0]))
    s = npjax.asarray([1.0, 2.0])[1]
    assert s == 2.0 and 2.0 == s and s > 1 and not s < 1
    assert sorted([npjax.asarray([3.0])[0], 1.0, 2.0])[0] == 1.0
    assert {npjax.asarray([2.0])[0]: "x"}[2.0] == "x"  # hash equals the Python value's


def test_scalars_in_python_protocols():
    a = npjax.asarray([3, 1, 2])
    k = a[1]
    assert [10, 20, 30][k] == 20 and list(range(a[0])) == [0, 1, 2]
    assert "abc"[a[1]:a[0]] == "bc"
    assert operator.index(k) == 1 and isinstance(operator.index(k), int)
    assert f"{npjax.asarray([1.23456])[0]:.3f}" == "1.235"
    assert f"{npjax.asarray([7])[0]:04d}" == "0007"
    assert "%.2f" % npjax.asarray([1.5])[0] == "1.50"  # noqa: UP031
    assert math.isclose(npjax.asarray([2.0])[0], 2.0)
    assert round(float(npjax.asarray([2.5])[0])) == 2


def test_truth_and_conversion_errors():
    for host in [np.array([]), np.array([1.0, 2.0]), np.array([1.0]), np.array([[0]]),
                 np.array(0.0), np.array(3), np.array([2])]:
        for fn in (bool, float, int, complex, operator.index, len, iter):
            assert_parity(lambda xp, fn=fn, host=host: (fn(xp.asarray(host)), None)[1],
                          context=(host, fn))
            e, a = outcome(fn, host), outcome(fn, npjax.asarray(host))
            if fn is not iter:
                assert a == e, (host, fn, a, e)


def test_iteration():
    def fn(xp):
        a = xp.asarray(np.arange(6.0).reshape(2, 3))
        rows = list(a)
        rows[0][1] = 9.0  # rows are views
        return a, [list(r) for r in rows], list(xp.asarray([1, 2]))

    assert_parity(fn)
    assert [repr(x) for x in npjax.asarray([1.5, 2.0])] == ["np.float64(1.5)",
                                                         "np.float64(2.0)"]


def test_print_like_numpy():
    for host in [np.array(1.5), np.array([1.5, 2.0]), np.arange(12).reshape(3, 4),
                 np.array([], np.float32), np.array([1 + 2j], np.complex64),
                 np.array([True, False]), np.array(np.nan), np.linspace(0, 1, 2000),
                 np.array([1e-10, 1e10])]:
        for fn in (repr, str):
            assert fn(npjax.asarray(host)) == fn(host)
    assert repr(npjax.asarray([1.5, 2.0])[0]) == "np.float64(1.5)"
    assert str(npjax.asarray([1.5, 2.0])[0]) == "1.5"
    assert repr(npjax.asarray(np.array([3], np.int8))[0]) == "np.int8(3)"
    assert repr(npjax.asarray([True])[0]) == "np.True_"


def test_contains():
    def fn(xp):
        a = xp.asarray(np.arange(6.0).reshape(2, 3))
        return (2.0 in a, 7 in a, [0.0, 1.0, 2.0] in a, xp.nan in a)

    assert_parity(fn)


@pytest.mark.parametrize("host", [np.array([1.5, 2.0]), np.array([1 + 2j]), np.array([3])])
@pytest.mark.parametrize("method", [
    lambda s: s.T, lambda s: s.transpose(), lambda s: s.view(), lambda s: s.real,
    lambda s: s.imag, lambda s: s.squeeze(), lambda s: s.reshape(()), lambda s: s.copy(),
    lambda s: s.ravel(), lambda s: s.flatten(), lambda s: s[...], lambda s: s[()],
    lambda s: s[None], lambda s: s.astype(np.float32), lambda s: s.reshape(1)])
@pytest.mark.device_placement  # npjax's scalars; a host array's are NumPy's own
def test_scalar_methods_give_scalars_as_numpy(host, method):
    if not is_device_dtype(host.dtype):  # (float64 on a TPU: a host array, NumPy's scalars)
        pytest.skip(f"{host.dtype} is a host dtype on this backend")
    assert_parity(lambda xp: method(xp.asarray(host)[0]))


@pytest.mark.device_placement
@given(S.arrays(S.dtypes, S.shapes(min_dims=1, max_dims=1, min_side=1, max_side=3)))
def test_device_scalars_have_numpy_scalar_members(host):
    """On the device a scalar result is a 0-d npjax array: it answers Python and NumPy's
    scalar-only members (round, is_integer, bit_count, hex...) as NumPy's scalar does."""
    same_python_behaviour(lambda xp: xp.asarray(host)[0])
    same_python_behaviour(lambda xp: xp.asarray(host).max())


def test_host_scalars_are_numpys_own():
    """Small (host) arrays give NumPy's own scalars: every scalar attribute is NumPy's."""
    with npjax.policy(placement="host"):
        a = npjax.asarray([1.5, 2.5])
        for s in (a[0], a.sum(), npjax.asarray([3], np.int8)[0]):
            assert type(s).__module__ == "numpy" and isinstance(s, np.generic)
