"""Parity of the legacy polynomial functions and poly1d with NumPy.

Exact for integer results. Roots and fits come from LAPACK on both sides; they are compared with
rtol=1e-7, atol=1e-7 (float64) and rtol=1e-3, atol=1e-3 (float32), since ill-conditioned (for
example repeated) roots amplify round-off. Fits use distinct abscissae and degree <= 3.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npjax
from tests._parity import assert_parity as _assert_parity
from tests.strategies import elements
from tests.tolerances import OVERRIDES

_LOOSE = {np.dtype(np.float64): dict(rtol=1e-7, atol=1e-7),
          np.dtype(np.complex128): dict(rtol=1e-7, atol=1e-7),
          np.dtype(np.float32): dict(rtol=1e-3, atol=1e-3),
          np.dtype(np.complex64): dict(rtol=1e-3, atol=1e-3)}
OVERRIDES["roots"] = OVERRIDES["polyfit"] = _LOOSE

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int64, np.uint8, np.float32, np.float64,
                                np.complex64, np.complex128)]


def assert_parity(fn, **kwargs):
    with np.errstate(all="ignore"):
        return _assert_parity(fn, **kwargs)


def coeffs(dtypes=DTYPES, min_size=0, max_size=5, small=False):
    def arr(d):
        if small:
            el = st.integers(-5, 5) if d.kind not in "bu" else st.integers(0, 1 if d.kind == "b"
                                                                           else 5)
            el = el.map(lambda v: d.type(v))
        else:
            el = elements(d)
        return hnp.arrays(d, st.integers(min_size, max_size).map(lambda n: (n,)), elements=el)

    return st.sampled_from(dtypes).flatmap(arr)


@given(r=coeffs(small=True))
def test_poly(r):
    assert_parity(lambda xp: xp.poly(xp.asarray(r)), context=(r,))


@pytest.mark.parametrize("m", [[[1, 2], [3, 4]], [[0, 1], [-1, 0]], np.eye(3), [[1.5]],
                               np.zeros((2, 3)), [[np.nan]], np.zeros((0, 0)),
                               np.float32([[1, 2], [3, 4]]), [[1j, 0], [0, 2]]])
def test_poly_of_matrix(m):
    assert_parity(lambda xp: xp.poly(xp.asarray(m)), name="roots", context=(m,))


@pytest.mark.parametrize("r", [[1j, -1j, 2], [1 + 1j, 2], [np.nan, 1], [np.inf, 2, 3], [],
                               np.complex64([1j, -1j])])
def test_poly_cases(r):
    assert_parity(lambda xp: xp.poly(xp.asarray(r)), context=(r,))


@given(p=coeffs(dtypes=[np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.complex128),
                        np.dtype(np.float32), np.dtype(np.int8)], small=True))
def test_roots(p):
    assert_parity(lambda xp: xp.roots(xp.asarray(p)), name="roots", context=(p,))


@pytest.mark.parametrize("p", [[1, -3, 2], [0, 0, 1, 2, 0, 0], [1, 0, 1], [0, 0], [5],
                               np.float16([1, 2, 3]), [[1, 2]], [1, np.inf, 2], 3,
                               [1, 2, 3, 4, 5]])
def test_roots_cases(p):
    assert_parity(lambda xp: xp.roots(p), name="roots", context=(p,))


@given(p=coeffs(), x=st.one_of(st.sampled_from(DTYPES).flatmap(lambda d: hnp.arrays(
    d, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
    elements=st.integers(0, 1 if d == np.bool_ else 3))),  # a bool holds 0 and 1 only
    st.sampled_from([2, 2.5, -1, np.float32(1.5), 1j])))
def test_polyval(p, x):
    assert_parity(lambda xp: xp.polyval(xp.asarray(p), x if np.isscalar(x) else xp.asarray(x)),
                  context=(p, x))


@pytest.mark.parametrize("name", ["polyadd", "polysub", "polydiv"])
@given(a=coeffs(min_size=1, max_size=4), b=coeffs(min_size=1, max_size=4))
def test_binary(name, a, b):
    assert_parity(lambda xp: getattr(xp, name)(xp.asarray(a), xp.asarray(b)), context=(a, b))


@given(a=coeffs(min_size=1, max_size=4, small=True), b=coeffs(min_size=1, max_size=4, small=True))
def test_polymul(a, b):
    name = "polymul"
    assert_parity(lambda xp: getattr(xp, name)(xp.asarray(a), xp.asarray(b)), context=(a, b))


@given(p=coeffs(min_size=1), m=st.integers(-1, 3),
       k=st.sampled_from([None, 0, 2.5, [1, 2, 3], [1j], [1, 2]]))
def test_polyder_polyint(p, m, k):
    assert_parity(lambda xp: xp.polyder(xp.asarray(p), m), context=(p, m))
    assert_parity(lambda xp: xp.polyint(xp.asarray(p), m, k=k), context=(p, m, k))


@st.composite
def fits(draw):
    n = draw(st.sampled_from([1, 3, 6]))
    xs = draw(st.lists(st.integers(-20, 20), min_size=n, max_size=n, unique=True))
    x = np.array(xs, float) / 4
    y = draw(hnp.arrays(np.float64, (n,) if draw(st.booleans()) else (n, 2),
                        elements=st.floats(-10, 10)))
    w = draw(st.none() | hnp.arrays(np.float64, (n,), elements=st.floats(0.5, 2)))
    return x, y, w


@given(fit=fits(), deg=st.integers(0, 3),
       how=st.sampled_from([{}, dict(full=True), dict(cov=True), dict(cov="unscaled")]))
def test_polyfit(fit, deg, how):
    x, y, w = fit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.RankWarning)
        assert_parity(lambda xp: xp.polyfit(xp.asarray(x), xp.asarray(y), deg, w=w, **how),
                      name="polyfit", context=(x, y, w, deg, how))


@pytest.mark.parametrize("x, y, deg", [
    ([1, 2, 3], [1, 2, 4], 1), (np.float32([1, 2, 3]), [1, 2, 4], 1), ([1, 2, 3], [1, 2, 4], -1),
    ([[1, 2]], [1, 2], 1), ([], [], 1), ([1, 2], [[[1]], [[2]]], 1), ([1, 2], [1, 2, 3], 1),
    (np.float16([1, 2, 3]), [1, 2, 3], 1), ([1, np.nan, 3], [1, 2, 3], 1)])
def test_polyfit_cases(x, y, deg):
    assert_parity(lambda xp: xp.polyfit(x, y, deg), name="polyfit", context=(x, y, deg))


def test_polyfit_rank_warning():
    for xp in (np, npjax):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            xp.polyfit([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], 2)
        assert [w.category for w in rec] == [np.exceptions.RankWarning]
        assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.RankWarning)
        assert_parity(lambda xp: xp.polyfit([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], 2, full=True),
                      name="polyfit")


# --- poly1d -----------------------------------------------------------------------------------

POLYS = [[1, 2, 3], [0, 0, 1.5, -2], [1j, 2, 0], [0], np.float32([1, -1]), np.int8([3, 0, -1])]


def _ops(xp, c):
    P = xp.poly1d(xp.asarray(c))
    Q = xp.poly1d([1, 1])
    out = [str(P), repr(P), P.coeffs, P.c, P.coef, P.coefficients, P.order, len(P), P.variable,
           P(2.0), P(xp.asarray([1, 2])), P(Q).coeffs, (P * 2).coeffs, (2 * P).coeffs,
           (P + P).coeffs, (P + 1).coeffs, (1 + P).coeffs, (P - [1, 2]).coeffs,
           ([1, 2] - P).coeffs, (P * Q).coeffs, (P ** 3).coeffs, (P ** 0).coeffs,
           (P / 2).coeffs, [q.coeffs for q in P / Q], [q.coeffs for q in [1, 2, 3] / P],
           P.deriv().coeffs, P.deriv(2).coeffs, P.integ().coeffs, P.integ(2, 1).coeffs,
           P == P, P == Q, P != Q, P[0], P[1], P[9], P[-1], list(P), (-P).coeffs,
           (+P).coeffs, str(xp.poly1d(xp.asarray(c), variable="z")),
           xp.poly1d(P).coeffs, xp.poly1d(P, variable="t").variable]
    return out


@pytest.mark.parametrize("c", POLYS)
def test_poly1d(c):
    assert_parity(lambda xp: tuple(_ops(xp, c)), context=(c,))
    assert_parity(lambda xp: xp.poly1d(xp.asarray(c)).roots, name="roots", context=(c,))


@pytest.mark.parametrize("c", POLYS[:3])
def test_poly1d_setitem_and_errors(c):
    def setitem(xp, key, val):
        p = xp.poly1d(xp.asarray(c))
        p[key] = val
        return p.coeffs, p.order

    assert_parity(lambda xp: setitem(xp, 0, 7))
    assert_parity(lambda xp: setitem(xp, 5, 2))
    assert_parity(lambda xp: setitem(xp, -1, 2))
    assert_parity(lambda xp: xp.poly1d(xp.asarray(c)) ** -1)
    assert_parity(lambda xp: xp.poly1d(xp.asarray(c)) ** 1.5)
    assert_parity(lambda xp: xp.poly1d([[1, 2]]))
    assert_parity(lambda xp: xp.poly1d([1, 2], r=True).coeffs)
    assert_parity(lambda xp: np.asarray(xp.poly1d(xp.asarray(c))).tolist())

    def set_coeffs(xp):
        xp.poly1d([1, 2]).coeffs = [3]

    assert_parity(set_coeffs)


@pytest.mark.parametrize("c", [[1] + [0] * 27 + [1], [1.25] * 30, [1 + 1j, 0, 3j], [0, 0, 0]])
def test_poly1d_long_text(c):
    assert_parity(lambda xp: (str(xp.poly1d(xp.asarray(c))), repr(xp.poly1d(xp.asarray(c)))),
                  context=(c,))


@given(c=coeffs(min_size=0, max_size=4))
def test_poly1d_text_and_value(c):
    assert_parity(lambda xp: (str(xp.poly1d(xp.asarray(c))), repr(xp.poly1d(xp.asarray(c))),
                              xp.poly1d(xp.asarray(c))(1)), context=(c,))
