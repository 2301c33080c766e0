"""ndarray operators (binary, reflected, in-place, unary, comparisons) against NumPy."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npjax
from tests import strategies as S
from tests._parity import assert_parity

_N = max(3, settings().max_examples // 6)

BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
          "lshift", "rshift"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
UNARY = ["neg", "pos", "abs", "invert"]


def _call(fn):
    def run(xp):
        with np.errstate(all="ignore"):
            return fn(xp)
    return run


def _small(draw, dt, shape):
    kw = {}
    if dt.kind in "iu":
        info = np.iinfo(dt)
        kw = dict(min_value=max(info.min, -20), max_value=min(info.max, 20))
    return draw(S.arrays(dt, shape, **kw))


@st.composite
def _pair(draw):
    sa, sb = draw(S.broadcastable_shapes(2))
    da = draw(S.dtypes)
    db = draw(st.one_of(st.just(da), S.dtypes))
    a = _small(draw, da, sa)
    b = draw(st.one_of(st.builds(lambda: None).map(lambda _: _small(draw, db, sb)),
                       st.sampled_from([2, -1, 0.5, True, 3j])))
    return a, b


def _operand(xp, v):
    return xp.asarray(v) if isinstance(v, np.ndarray) else v


@pytest.mark.parametrize("op", BINARY + COMPARE)
@settings(max_examples=_N)
@given(case=_pair())
def test_binary_and_reflected(op, case):
    a, b = case
    fn = getattr(operator, op if op not in ("and", "or") else op + "_")
    assert_parity(_call(lambda xp: fn(xp.asarray(a), _operand(xp, b))), context=(op, a, b))
    assert_parity(_call(lambda xp: fn(_operand(xp, b), xp.asarray(a))), context=(op, b, a))


@pytest.mark.parametrize("op", BINARY)
@settings(max_examples=_N)
@given(case=_pair())
def test_inplace(op, case):
    a, b = case
    name = "i" + op
    fn = getattr(operator, name)

    def run(xp):
        x = xp.asarray(a.copy())
        alias = x[...]
        y = fn(x, _operand(xp, b))
        return y is x, x, alias

    assert_parity(_call(run), context=(op, a, b))


@pytest.mark.parametrize("op", UNARY)
@settings(max_examples=_N)
@given(a=S.arrays(S.dtypes))
def test_unary(op, a):
    assert_parity(_call(lambda xp: getattr(operator, op)(xp.asarray(a))), context=(a,))


def test_inplace_on_views_changes_base():
    def run(xp):
        a = xp.arange(6.0)
        v = a[1:]
        v += 1
        w = a.reshape(2, 3).T
        w *= 2
        return a, v, w

    assert_parity(run)


def test_inplace_casting_errors():
    def int_plus_float(xp):
        a = xp.arange(3)
        a += 1.5
        return a

    def int_true_divide(xp):
        a = xp.arange(3)
        a /= 2
        return a

    def float_plus_int(xp):
        a = xp.arange(3.0, dtype=np.float32)
        a += xp.arange(3)
        return a

    def int8_plus_big(xp):
        a = xp.arange(3, dtype=np.int8)
        a += 1000
        return a

    for fn in (int_plus_float, int_true_divide, float_plus_int, int8_plus_big):
        assert_parity(fn, context=fn.__name__)
    with pytest.raises(np._core._exceptions.UFuncTypeError):
        a = npjax.arange(3)
        a += 1.5


def test_inplace_on_scalar_rebinds():
    def run(xp):
        a = xp.arange(3)
        x = a[0]
        y = x
        x += 1
        z = a.sum()
        w = z
        z *= 2
        return x, y, a, z, w

    assert_parity(run)


def test_mixed_numpy_and_npjax_operands():
    a = np.arange(4.0)
    b = npjax.arange(4.0)
    for fn in (operator.add, operator.mul, operator.lt, operator.sub):
        got = fn(a, b)
        np.testing.assert_array_equal(np.asarray(got), fn(a, np.arange(4.0)))
        got = fn(b, a)
        np.testing.assert_array_equal(np.asarray(got), fn(np.arange(4.0), a))


def test_divmod_and_matmul():
    a = np.array([[1, -2], [3, 4]])
    assert_parity(lambda xp: divmod(xp.asarray(a), 3))
    assert_parity(lambda xp: divmod(7, xp.asarray(a)))
    assert_parity(lambda xp: divmod(xp.asarray(a), xp.asarray(a)))
    assert_parity(lambda xp: xp.asarray(a) @ xp.asarray(a))
    assert_parity(lambda xp: [[1, 0], [0, 1]] @ xp.asarray(a))
    assert_parity(lambda xp: xp.asarray(a) @ xp.asarray([1, 2]))
    assert_parity(lambda xp: xp.asarray(a) @ xp.asarray([1, 2, 3]))

    def imatmul(xp):
        m = xp.asarray(a.copy())
        alias = m[:]
        m @= m
        return m, alias

    assert_parity(imatmul)

    def imatmul_bad(xp):
        m = xp.asarray(a.copy())
        m @= xp.ones((2, 3), dtype=int)
        return m

    assert_parity(imatmul_bad)


def test_equality_with_none_and_strings():
    a = np.arange(3)
    assert_parity(lambda xp: xp.asarray(a) == None)  # noqa: E711
    assert_parity(lambda xp: xp.asarray(a) != None)  # noqa: E711
    assert_parity(lambda xp: xp.asarray(a) == "abc")
    assert_parity(lambda xp: xp.asarray(a) != "abc")
    assert_parity(lambda xp: xp.asarray(a) < "abc")
    assert_parity(lambda xp: xp.asarray(1.0) == "abc")


def test_bool_and_int_operator_rules():
    t = np.array([True, False])
    assert_parity(lambda xp: -xp.asarray(t))
    assert_parity(lambda xp: xp.asarray(t) - xp.asarray(t))
    assert_parity(lambda xp: ~xp.asarray(t))
    assert_parity(lambda xp: xp.asarray(t) + xp.asarray(t))
    assert_parity(lambda xp: ~xp.asarray([1.5]))
    assert_parity(lambda xp: xp.asarray([1, 2]) ** -1)
    assert_parity(lambda xp: xp.asarray([1, 2], dtype=np.uint8) << 9)
    assert_parity(lambda xp: xp.asarray([1, 2], dtype=np.int8) + 1000)
    assert_parity(lambda xp: xp.asarray([1, 2], dtype=np.int8) < 1000)
