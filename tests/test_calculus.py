"""Parity of gradient, trapezoid, interp and unwrap (npjax/_library/_calculus.py) with NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._parity import assert_parity
from tests.strategies import COMPLEX, FLOAT, INTEGER, arrays

BOOL = [np.dtype(np.bool_)]
SHAPES = st.sampled_from([(), (0,), (1,), (2,), (3,), (5,), (2, 3), (3, 4), (4, 1), (2, 3, 3)])
FINITE = dict(allow_nan=False, allow_infinity=False)


def _quiet(fn):
    def run(xp):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(xp)
    return run


def _coords(n, dtype=np.float64):
    """Strictly increasing coordinates of length ``n`` (gaps of 0.5 to 3)."""
    return st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]), min_size=n, max_size=n).map(
        lambda gaps: (np.cumsum(gaps) - 2.0).astype(dtype))


# --- gradient -----------------------------------------------------------------------------


@given(arrays(st.sampled_from(FLOAT + INTEGER + COMPLEX + BOOL), SHAPES),
       st.sampled_from([1, 2]), st.sampled_from([None, 0, -1, (0, -1)]))
def test_gradient_uniform(f, edge_order, axis):
    assert_parity(_quiet(lambda xp: xp.gradient(xp.asarray(f), axis=axis, edge_order=edge_order)),
                  context=(f, edge_order, axis))


@given(arrays(st.sampled_from(FLOAT + INTEGER), st.sampled_from([(3,), (4,), (5, 3)])),
       st.sampled_from([0.5, 2, -1.5, np.float32(0.25), np.int8(3)]), st.sampled_from([1, 2]))
def test_gradient_scalar_spacing(f, dx, edge_order):
    assert_parity(_quiet(lambda xp: xp.gradient(xp.asarray(f), dx, edge_order=edge_order)),
                  context=(f, dx))


@given(st.data(), st.sampled_from([np.float64, np.float32, np.float16, np.int64]),
       st.sampled_from([1, 2]))
def test_gradient_coordinates(data, ftype, edge_order):
    f = data.draw(arrays(np.dtype(ftype), st.sampled_from([(3,), (4,), (5,), (4, 3)])))
    xs = [data.draw(_coords(n, data.draw(st.sampled_from([np.float64, np.float32, np.int64]))))
          for n in f.shape]
    assert_parity(_quiet(lambda xp: xp.gradient(xp.asarray(f), *[xp.asarray(x) for x in xs],
                                                edge_order=edge_order)),
                  context=(f, xs), name="gradient")
    assert_parity(_quiet(lambda xp: xp.gradient(xp.asarray(f), xp.asarray(xs[-1]), axis=-1,
                                                edge_order=edge_order)),
                  context=(f, xs), name="gradient")


@pytest.mark.parametrize("call", [
    lambda xp: xp.gradient(xp.asarray([1.0, 2.0]), edge_order=2),
    lambda xp: xp.gradient(xp.asarray([1.0, 2.0, 4.0]), edge_order=3),
    lambda xp: xp.gradient(xp.asarray([1.0, 2.0, 4.0]), [1, 2]),
    lambda xp: xp.gradient(xp.asarray([1.0, 2.0, 4.0]), [[1, 2, 3]]),
    lambda xp: xp.gradient(xp.asarray([[1.0, 2.0], [4.0, 5.0]]), 1, 2, 3),
    lambda xp: xp.gradient(xp.asarray([1.0, 2.0, 4.0]), axis=1),
    lambda xp: xp.gradient([1, 4, 9, 16]),
    lambda xp: xp.gradient(xp.asarray([[1, 4], [9, 16]]), [0, 1], 2.0),
    lambda xp: xp.gradient(xp.asarray([1.0, 2.0, 4.0]), xp.asarray([0, 0, 1])),
])
def test_gradient_cases(call):
    assert_parity(_quiet(call))


# --- trapezoid ----------------------------------------------------------------------------


@given(arrays(st.sampled_from(FLOAT + INTEGER + COMPLEX + BOOL), SHAPES),
       st.sampled_from([1.0, 0.5, 2, np.float32(0.1)]), st.sampled_from([-1, 0]))
def test_trapezoid_dx(y, dx, axis):
    assert_parity(_quiet(lambda xp: xp.trapezoid(xp.asarray(y), dx=dx, axis=axis)),
                  context=(y, dx, axis))


@given(st.data(), st.sampled_from(FLOAT + INTEGER))
def test_trapezoid_x(data, dtype):
    y = data.draw(arrays(dtype, st.sampled_from([(3,), (4,), (2, 3), (3, 4)])))
    axis = data.draw(st.sampled_from([-1, 0]))
    n = y.shape[axis]
    x1 = data.draw(_coords(n, data.draw(st.sampled_from([np.float64, np.float32, np.int64]))))
    assert_parity(_quiet(lambda xp: xp.trapezoid(xp.asarray(y), x=xp.asarray(x1), axis=axis)),
                  context=(y, x1, axis))
    xfull = data.draw(arrays(np.float64, st.just(y.shape), **FINITE))
    assert_parity(_quiet(lambda xp: xp.trapezoid(xp.asarray(y), x=xp.asarray(xfull),
                                                 axis=axis)), context=(y, xfull, axis))


@pytest.mark.parametrize("call", [lambda xp: xp.trapezoid([1, 2, 3]),
                                  lambda xp: xp.trapezoid([]), lambda xp: xp.trapezoid(1),
                                  lambda xp: xp.trapezoid([[1, 2], [3, 4]], axis=2)])
def test_trapezoid_cases(call):
    assert_parity(_quiet(call))


# --- interp -------------------------------------------------------------------------------


@given(st.data(), st.sampled_from(FLOAT + INTEGER + COMPLEX + BOOL),
       st.sampled_from([1, 2, 3, 5]))
def test_interp(data, fp_dtype, n):
    xp_ = data.draw(_coords(n))
    fp = data.draw(arrays(fp_dtype, st.just((n,))))
    x = data.draw(arrays(st.sampled_from([np.float64, np.float32, np.int64]),
                         st.sampled_from([(), (0,), (4,), (2, 3)])))
    fill = data.draw(st.sampled_from([None, -1.0, 7, np.nan]))
    kind = fp.dtype.kind
    left = right = fill if (fill is None or kind != "c") else complex(fill, 1)
    assert_parity(_quiet(lambda xp: xp.interp(xp.asarray(x), xp.asarray(xp_), xp.asarray(fp),
                                              left=left, right=right)),
                  context=(x, xp_, fp, fill))
    # the sample points themselves (exact hits) and midpoints
    mids = np.concatenate([xp_, (xp_[:-1] + xp_[1:]) / 2])
    assert_parity(_quiet(lambda xp: xp.interp(xp.asarray(mids), xp.asarray(xp_),
                                              xp.asarray(fp))), context=(mids, xp_, fp))


@given(st.data(), st.sampled_from([2.0, -3.0, 360, 0.5]))
def test_interp_period(data, period):
    xp_ = data.draw(arrays(np.float64, st.just((4,)), **FINITE, min_value=-10, max_value=10))
    fp = data.draw(arrays(st.sampled_from([np.float64, np.complex128]), st.just((4,)),
                          **FINITE))
    x = data.draw(arrays(np.float64, st.sampled_from([(), (3,)]), **FINITE))
    assert_parity(_quiet(lambda xp: xp.interp(xp.asarray(x), xp.asarray(xp_), xp.asarray(fp),
                                              period=period)), context=(x, xp_, fp, period))


@pytest.mark.parametrize("call", [
    lambda xp: xp.interp(1.5, [1, 2], [3, 4]),
    lambda xp: xp.interp([1j], [1, 2], [3, 4]),
    lambda xp: xp.interp([1], [], []),
    lambda xp: xp.interp([1], [1, 2], [3]),
    lambda xp: xp.interp([1], [[1, 2]], [3, 4]),
    lambda xp: xp.interp([0], [1, 2], [3, 4], left=1j),
    lambda xp: xp.interp([0, 3], [1, 2], [3j, 4], left=1j, right=2),
    lambda xp: xp.interp([0], [1, 2], [3, 4], left=[1.0]),
    lambda xp: xp.interp([0, 1, 2], [1], [3], left=-1, right=7),
    lambda xp: xp.interp([0.5], [1, 2], [3, 4], period=0),
    lambda xp: xp.interp([1.5, 2.5], [1, 2, 3], [np.inf, np.inf, -np.inf]),
    lambda xp: xp.interp([1.5, 1, 2], [1, 2, 2, 3], [0, np.inf, 1, 2]),
    lambda xp: xp.interp([np.nan, np.inf, -np.inf], [1, 2], [3j, 4]),
])
def test_interp_cases(call):
    assert_parity(_quiet(call))


# --- unwrap -------------------------------------------------------------------------------


@given(arrays(st.sampled_from(FLOAT + [np.dtype(np.int64), np.dtype(np.int8)]), SHAPES),
       st.sampled_from([None, 1.0, 4]), st.sampled_from([-1, 0]),
       st.sampled_from([2 * np.pi, 360, 4, 5, 1.5]))
def test_unwrap(p, discont, axis, period):
    if p.dtype.kind in "iu":
        p = (p % 100).astype(p.dtype)  # keep integer differences from wrapping
    assert_parity(_quiet(lambda xp: xp.unwrap(xp.asarray(p), discont, axis, period=period)),
                  context=(p, discont, axis, period))


def test_unwrap_list():
    assert_parity(lambda xp: xp.unwrap([0.0, 3.5, 7.0, 0.5, -3.0]))
    assert_parity(lambda xp: xp.unwrap([[0, 4], [8, 1]], axis=0, period=6))
