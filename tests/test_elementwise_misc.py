"""Parity of the non-ufunc elementwise helpers (npjax/_library/_elementwise_misc.py) with NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import assert_parity
from tests.strategies import ALL, COMPLEX, FLOAT, INTEGER, NUMERIC, arrays

PALETTE = [(), (0,), (1,), (3,), (2, 3), (3, 1), (0, 2), (2, 2, 2)]
shapes = st.sampled_from(PALETTE)
REAL = [np.dtype(np.bool_)] + INTEGER + FLOAT
PY_SCALARS = st.sampled_from([0, 1, -3, 2.5, -0.0, float("nan"), float("inf"), 1.5 + 2j, True])


def _quiet(fn):
    def run(xp):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(xp)
    return run


# --- isclose / allclose / array_equal / array_equiv ----------------------------------------


@given(arrays(st.sampled_from(NUMERIC), shapes), arrays(st.sampled_from(NUMERIC), shapes),
       st.booleans())
def test_isclose_arrays(a, b, equal_nan):
    f = _quiet(lambda xp: xp.isclose(xp.asarray(a), xp.asarray(b), equal_nan=equal_nan))
    assert_parity(f, context=(a, b))
    g = _quiet(lambda xp: xp.allclose(xp.asarray(a), xp.asarray(b), equal_nan=equal_nan))
    assert_parity(g, context=(a, b))


@given(arrays(st.sampled_from(NUMERIC), shapes), PY_SCALARS,
       st.sampled_from([1e-5, 0, 1, 0.5]), st.sampled_from([1e-8, 0, 2, np.float32(0.25)]))
def test_isclose_scalars_and_tolerances(a, s, rtol, atol):
    assert_parity(_quiet(lambda xp: xp.isclose(xp.asarray(a), s, rtol=rtol, atol=atol)),
                  context=(a, s, rtol, atol))
    assert_parity(_quiet(lambda xp: xp.isclose(s, xp.asarray(a), rtol=rtol, atol=atol)),
                  context=(a, s, rtol, atol))


@pytest.mark.parametrize("a,b", [(1, 1.0), (1.0, 1 + 1e-9), (float("nan"), float("nan")),
                                 (2, 3), (1j, 1j), (True, 1)])
def test_isclose_python_scalars(a, b):
    assert_parity(lambda xp: xp.isclose(a, b), context=(a, b))
    assert_parity(lambda xp: xp.isclose(a, b, equal_nan=True), context=(a, b))
    assert_parity(lambda xp: xp.allclose(a, b), context=(a, b))


def test_isclose_nonfinite_tolerance_warns():
    for xp in (np, npjax):
        with pytest.warns(RuntimeWarning):
            xp.isclose(xp.asarray([1.0]), 1.0, atol=np.inf)


@given(arrays(st.sampled_from(ALL), shapes), arrays(st.sampled_from(ALL), shapes),
       st.booleans())
def test_array_equal(a, b, equal_nan):
    assert_parity(lambda xp: xp.array_equal(xp.asarray(a), xp.asarray(b), equal_nan=equal_nan),
                  context=(a, b))
    assert_parity(lambda xp: xp.array_equal(xp.asarray(a), xp.asarray(a), equal_nan=equal_nan),
                  context=(a,))
    assert_parity(lambda xp: xp.array_equiv(xp.asarray(a), xp.asarray(b)), context=(a, b))


@pytest.mark.parametrize("a,b", [([1, 2], [[1, 2], [1, 2]]), ([1, 2], [[1, 2], [3]]),
                                 (1, [1, 1]), ([np.nan], [np.nan]), ([], [])])
def test_array_equal_lists(a, b):
    assert_parity(lambda xp: xp.array_equal(a, b), context=(a, b))
    assert_parity(lambda xp: xp.array_equal(a, b, equal_nan=True), context=(a, b))
    assert_parity(lambda xp: xp.array_equiv(a, b), context=(a, b))


# --- complex parts and predicates ----------------------------------------------------------


@given(arrays(st.sampled_from(ALL), shapes), st.booleans())
def test_angle_real_imag(a, deg):
    assert_parity(_quiet(lambda xp: xp.angle(xp.asarray(a), deg=deg)), context=(a,))
    for name in ("real", "imag", "iscomplex", "isreal", "iscomplexobj", "isrealobj"):
        assert_parity(lambda xp, name=name: getattr(xp, name)(xp.asarray(a)), context=(name, a))


@pytest.mark.parametrize("v", [1, 2.5, 1 + 2j, True, np.float32(3), np.complex64(1 - 1j),
                               np.int8(-2), [1, 2j], [[1.5]], []])
@pytest.mark.parametrize("name", ["real", "imag", "iscomplex", "isreal", "iscomplexobj",
                                  "isrealobj", "angle"])
def test_complex_parts_of_scalars_and_lists(name, v):
    assert_parity(lambda xp, name=name: getattr(xp, name)(v), context=(name, v))


def test_real_imag_are_views():
    a = npjax.asarray([1 + 2j, 3 - 4j])
    npjax.real(a)[0] = 10
    npjax.imag(a)[1] = 7
    np.testing.assert_array_equal(np.asarray(a), [10 + 2j, 3 + 7j])


@given(arrays(st.sampled_from(NUMERIC), shapes))
def test_isneginf_isposinf_fix(a):
    for name in ("isneginf", "isposinf", "fix"):
        assert_parity(_quiet(lambda xp, name=name: getattr(xp, name)(xp.asarray(a))),
                      context=(name, a))


@pytest.mark.parametrize("v", [1.5, -np.inf, np.inf, 3, True, 1j])
def test_isneginf_scalars(v):
    for name in ("isneginf", "isposinf", "fix"):
        assert_parity(lambda xp, name=name: getattr(xp, name)(v), context=(name, v))


def test_isposinf_out():
    def f(xp):
        out = xp.zeros(3, bool)
        r = xp.isposinf(xp.asarray([np.inf, -np.inf, 1.0]), out)
        return r, out
    assert_parity(f)
    res = npjax.zeros(2, bool)
    assert npjax.isneginf(npjax.asarray([-np.inf, 0.0]), out=res) is res


# --- round ---------------------------------------------------------------------------------


@given(arrays(st.sampled_from(REAL + COMPLEX), shapes), st.integers(-12, 12))
def test_round(a, decimals):
    if a.dtype == np.uint32:  # NumPy's own overflow result depends on its SIMD block size
        a = np.minimum(a, 4_200_000_000)
    assert_parity(_quiet(lambda xp: xp.round(xp.asarray(a), decimals)), context=(a, decimals))
    assert_parity(_quiet(lambda xp: xp.around(xp.asarray(a), decimals)), context=(a, decimals))
    assert_parity(_quiet(lambda xp: xp.asarray(a).round(decimals)), context=(a, decimals))


@given(arrays(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64]),
              shapes), st.sampled_from([-1, -2, -18, -19, -20, -400]))
def test_round_int_negative_decimals(a, decimals):
    assert_parity(_quiet(lambda xp: xp.round(xp.asarray(a), decimals)), context=(a, decimals))


@given(arrays(st.sampled_from(FLOAT), shapes), st.sampled_from([-400, -308, 15, 22, 23, 30,
                                                                  300, 400]))
def test_round_extreme_decimals(a, decimals):
    assert_parity(_quiet(lambda xp: xp.round(xp.asarray(a), decimals)), context=(a, decimals))


@pytest.mark.parametrize("v", [1.5, 2.5, -0.5, 2, True, 1.25 + 2.5j, np.float32(2.675),
                               np.int8(15), [0.125, 0.375], [[25, 35]]])
@pytest.mark.parametrize("decimals", [0, 1, 2, -1])
def test_round_scalars(v, decimals):
    assert_parity(_quiet(lambda xp: xp.round(v, decimals)), context=(v, decimals))
    assert_parity(_quiet(lambda xp: xp.round(xp.asarray(v), decimals)), context=(v, decimals))


@pytest.mark.parametrize("src,dst,decimals", [
    (np.float64, np.float32, 1), (np.float64, np.float64, 2), (np.int64, np.float32, -1),
    (np.float64, np.int64, 0), (np.float64, np.int64, 1), (np.int64, np.int8, 0),
    (np.int64, np.bool_, 0), (np.complex128, np.float64, 0), (np.complex128, np.complex64, 1)])
def test_round_out(src, dst, decimals):
    host = np.array([1.55, -2.5, 15.0, 0.125]).astype(src)

    def f(xp):
        out = xp.zeros(4, dst)
        r = xp.round(xp.asarray(host), decimals, out)
        return r, out
    assert_parity(_quiet(f), context=(src, dst, decimals))
    assert_parity(lambda xp: xp.round(xp.asarray(host), decimals, xp.zeros(3, dst)))


def test_round_bad_decimals():
    assert_parity(lambda xp: xp.round(xp.asarray([1.5]), 1.5))
    assert_parity(lambda xp: xp.round(xp.asarray([True]), 1))


# --- real_if_close / nan_to_num / sort_complex -----------------------------------------------


@given(arrays(st.sampled_from(NUMERIC), shapes), st.sampled_from([100, 1, 0.5, 1e-20, 1000]))
def test_real_if_close(a, tol):
    assert_parity(lambda xp: xp.real_if_close(xp.asarray(a), tol=tol), context=(a, tol))


@given(arrays(st.sampled_from(ALL), shapes),
       st.sampled_from([{}, {"nan": -1.0}, {"posinf": 7, "neginf": -7.5}, {"nan": 2j}]))
def test_nan_to_num(a, kw):
    assert_parity(_quiet(lambda xp: xp.nan_to_num(xp.asarray(a), **kw)), context=(a, kw))


@pytest.mark.parametrize("v", [np.nan, np.inf, -np.inf, 1.5, 3, complex(np.inf, np.nan),
                               [1.0, np.nan], np.float32(np.inf)])
def test_nan_to_num_scalars(v):
    assert_parity(lambda xp: xp.nan_to_num(v), context=v)
    assert_parity(lambda xp: xp.nan_to_num(v, copy=False), context=v)


def test_nan_to_num_in_place():
    def f(xp):
        a = xp.asarray([np.nan, np.inf, 1.0, -np.inf + 1j])
        r = xp.nan_to_num(a, copy=False)
        return r, a
    assert_parity(f)
    a = npjax.asarray([np.nan, 2.0])
    assert npjax.nan_to_num(a, copy=False) is a


@given(arrays(st.sampled_from(NUMERIC), st.sampled_from([(), (0,), (3,), (2, 3)])))
def test_sort_complex(a):
    assert_parity(lambda xp: xp.sort_complex(xp.asarray(a)), context=(a,))


# --- astype / require / isfortran ------------------------------------------------------------


@given(arrays(st.sampled_from(ALL), shapes), st.sampled_from(ALL), st.booleans())
def test_astype(a, dtype, copy):
    if a.dtype.kind in "fc" and dtype.kind in "iu":  # out-of-range casts: ndarray.astype's
        a = np.where(np.isfinite(a) & (abs(a) < 100), abs(a), 0).astype(a.dtype)
    assert_parity(_quiet(lambda xp: xp.astype(xp.asarray(a), dtype, copy=copy)),
                  context=(a, dtype))


@pytest.mark.parametrize("v", [1.5, [1, 2], np.float32(2.5), np.int8(3)])
def test_astype_inputs(v):
    assert_parity(lambda xp: xp.astype(v, np.int16), context=v)


def test_astype_device_and_copy():
    a = npjax.asarray([1, 2])
    assert npjax.astype(a, np.int64, copy=False) is a
    assert npjax.astype(a, np.int64) is not a
    with pytest.raises(ValueError):
        npjax.astype(a, np.int64, device="gpu")
    with pytest.raises(NotImplementedError):
        npjax.astype(a, np.int64, device="cpu")


@pytest.mark.parametrize("req", [None, [], "C", "F", ["F", "W"], ["A", "O"], "E", ["C", "F"],
                                 ["ALIGNED", "WRITEABLE"], ["OWNDATA"]])
@pytest.mark.parametrize("dtype", [None, np.float32])
def test_require(req, dtype):
    def f(xp):
        r = xp.require(xp.ones((2, 3)).T, dtype, req)
        return r, r.flags.c_contiguous, r.flags.f_contiguous, xp.isfortran(r)
    assert_parity(f, context=(req, dtype))
    assert_parity(lambda xp: xp.require([1, 2], dtype, req), context=(req, dtype))


def test_require_like_unsupported():
    with pytest.raises(NotImplementedError):
        npjax.require([1], like=npjax.asarray([1]))


@pytest.mark.parametrize("make", [lambda xp: xp.ones((2, 3)), lambda xp: xp.ones((2, 3)).T,
                                  lambda xp: xp.ones(3), lambda xp: xp.ones((2, 3))[:, ::2],
                                  lambda xp: xp.ones((3, 2)).copy("F")])
def test_isfortran(make):
    assert_parity(lambda xp: xp.isfortran(make(xp)))


def test_isfortran_needs_array():
    assert_parity(lambda xp: xp.isfortran([1, 2]))
