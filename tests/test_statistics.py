"""Parity of histograms, cov and corrcoef (npjax/_library/_statistics.py) with NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import assert_parity
from tests.strategies import COMPLEX, FLOAT, INTEGER, arrays
from tests.tolerances import OVERRIDES

# cov/corrcoef: a matrix product (XLA) against BLAS, different summation orders
OVERRIDES["cov"] = {np.dtype(np.float64): dict(rtol=1e-10, atol=1e-10),
                    np.dtype(np.complex128): dict(rtol=1e-10, atol=1e-10),
                    np.dtype(np.float32): dict(rtol=1e-5, atol=1e-5),
                    np.dtype(np.complex64): dict(rtol=1e-5, atol=1e-5)}

BOOL = [np.dtype(np.bool_)]
REAL = INTEGER + FLOAT
DATA_SHAPES = st.sampled_from([(), (0,), (1,), (3,), (7,), (2, 3), (4, 4)])
ESTIMATORS = ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]
FINITE = dict(allow_nan=False, allow_infinity=False)


def _quiet(fn):
    def run(xp):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(xp)
    return run


def _opt(xp, w):
    return None if w is None else xp.asarray(w)


# --- histogram ----------------------------------------------------------------------------


@given(arrays(st.sampled_from(REAL + BOOL), DATA_SHAPES), st.sampled_from([1, 2, 3, 10]),
       st.sampled_from([None, (0, 1), (-1.5, 2.5), (0, 0), (-100, 100), (2, 1),
                        (0, float("inf"))]),
       st.booleans())
def test_histogram_equal_bins(a, bins, rng, density):
    assert_parity(_quiet(lambda xp: xp.histogram(xp.asarray(a), bins=bins, range=rng,
                                                 density=density)),
                  context=(a, bins, rng, density))


@given(st.data(), st.sampled_from(REAL + COMPLEX + BOOL), st.booleans())
def test_histogram_weights(data, wtype, density):
    a = data.draw(arrays(st.sampled_from(FLOAT + INTEGER[:4]), DATA_SHAPES))
    w = data.draw(arrays(wtype, st.just(a.shape), **({} if wtype.kind in "biu" else FINITE)))
    if wtype.kind in "iu":  # float64 accumulation of huge integers: rounding, then the cast
        w = (w % 100).astype(wtype)
    bins = data.draw(st.sampled_from([1, 3, [-1, 0, 0.5, 2], [0, 1], [-10.0, 10.0, 300.0]]))
    assert_parity(_quiet(lambda xp: xp.histogram(xp.asarray(a), bins=bins, density=density,
                                                 weights=xp.asarray(w))),
                  context=(a, w, bins))


@given(arrays(st.sampled_from(REAL), DATA_SHAPES),
       st.sampled_from([[0, 1], [-1, 0, 0.5, 2], [-3, -3, 0, 4], [1.5], [],
                        [-np.inf, 0, np.inf], [0, 1, 2, 3, 4, 5, 6, 7, 8]]))
def test_histogram_edges(a, bins):
    assert_parity(_quiet(lambda xp: xp.histogram(xp.asarray(a), bins=bins)),
                  context=(a, bins))
    assert_parity(_quiet(lambda xp: xp.histogram(xp.asarray(a), bins=xp.asarray(bins),
                                                 density=True)), context=(a, bins))


@given(arrays(st.sampled_from(REAL), st.sampled_from([(0,), (1,), (5,), (12,), (3, 4)])),
       st.sampled_from(ESTIMATORS), st.sampled_from([None, (0, 5), (-2.5, 1)]))
def test_histogram_bin_edges_estimators(a, estimator, rng):
    assert_parity(_quiet(lambda xp: xp.histogram_bin_edges(xp.asarray(a), bins=estimator,
                                                           range=rng)),
                  context=(a, estimator, rng))


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_histogram_estimators_data(estimator, dtype):
    data = np.random.default_rng(3).normal(size=60) * 10
    a = data.astype(dtype)
    assert_parity(_quiet(lambda xp: xp.histogram(xp.asarray(a), bins=estimator)),
                  context=(estimator, dtype))


@pytest.mark.parametrize("call", [
    lambda xp: xp.histogram([1, 2, np.nan]),
    lambda xp: xp.histogram([1, 2], bins=0),
    lambda xp: xp.histogram([1, 2], bins=2.5),
    lambda xp: xp.histogram([1, 2], bins=[[1]]),
    lambda xp: xp.histogram([1, 2], bins=[2, 1]),
    lambda xp: xp.histogram([1, 2], bins="nope"),
    lambda xp: xp.histogram([1, 2], bins="auto", weights=[1, 1]),
    lambda xp: xp.histogram([1, 2], weights=[1]),
    lambda xp: xp.histogram([1, 2], range=(3, 1)),
    lambda xp: xp.histogram([1, 2], range=(0, np.nan)),
    lambda xp: xp.histogram([1.0, 1.0 + 1e-15], bins=1000),
    lambda xp: xp.histogram(xp.asarray([1.0, 2.0]), [0, 1], weights=xp.asarray([True, False])),
    lambda xp: xp.histogram([True, False, True]),
    lambda xp: xp.histogram(xp.asarray(np.array([-128, 127], np.int8)), 3),
    lambda xp: xp.histogram(xp.asarray(np.array([0, 2**64 - 1], np.uint64)), 4),
    lambda xp: xp.histogram(xp.asarray(np.array([-2**63, 2**63 - 1])), 5),
    lambda xp: xp.histogram(xp.asarray(np.array([5, 5, 5], np.int16))),
    lambda xp: xp.histogram(xp.asarray(np.array([0.1, 0.2, 0.3], np.float16)), 7),
    lambda xp: xp.histogram([0.1, 0.2, 0.3], 3, range=(np.float32(0.1), np.float32(0.3))),
    lambda xp: xp.histogram([1, 2, 3], 2, range=(np.int8(0), np.int8(4))),
    lambda xp: xp.histogram(xp.asarray([1.0, 2.0, 3.0, 4.0]), [1, 2, 3, 4],
                            weights=xp.asarray([1, 2, 3, 4], np.int8)),
])
def test_histogram_cases(call):
    assert_parity(_quiet(call))


def test_histogram_bin_edges_matches_histogram():
    a = np.random.default_rng(0).normal(size=33)
    for bins in (5, "auto", [0, 1, 2]):
        edges = npjax.histogram_bin_edges(npjax.asarray(a), bins)
        np.testing.assert_array_equal(np.asarray(edges), np.histogram_bin_edges(a, bins))


# --- histogram2d / histogramdd ------------------------------------------------------------


@given(st.data(), st.sampled_from([2, 3, [2, 3], [[-1, 0, 1], 2], [[0, 1, 2], [0, 5]]]),
       st.sampled_from([None, [(0, 1), (-1, 1)], [None, (0, 2)]]), st.booleans())
def test_histogram2d(data, bins, rng, density):
    n = data.draw(st.sampled_from([0, 1, 4, 6]))
    x = data.draw(arrays(st.sampled_from(FLOAT + INTEGER[:4]), st.just((n,)), **FINITE))
    y = data.draw(arrays(st.sampled_from(FLOAT + INTEGER[:4]), st.just((n,)), **FINITE))
    w = data.draw(st.sampled_from([None, np.arange(n, dtype=np.float64) - 1.5,
                                   np.arange(n) % 3]))
    assert_parity(_quiet(lambda xp: xp.histogram2d(xp.asarray(x), xp.asarray(y), bins=bins,
                                                   range=rng, density=density,
                                                   weights=_opt(xp, w))),
                  context=(x, y, bins, rng, w))


@given(arrays(st.sampled_from(FLOAT + INTEGER[:4]),
              st.sampled_from([(0, 2), (3, 1), (4, 2), (5, 3)]), **FINITE),
       st.sampled_from([1, 2, 3]), st.booleans())
def test_histogramdd(sample, bins, density):
    assert_parity(_quiet(lambda xp: xp.histogramdd(xp.asarray(sample), bins=bins,
                                                   density=density)),
                  context=(sample, bins))
    assert_parity(_quiet(lambda xp: xp.histogramdd(sample, bins=bins, density=density)),
                  context=(sample, bins))


@pytest.mark.parametrize("call", [
    lambda xp: xp.histogramdd([[1, 2], [3, 4], [5, 6]], bins=[2, 3]),
    lambda xp: xp.histogramdd(([1, 2, 3], [3, 4, 5]), bins=[2, 3]),
    lambda xp: xp.histogramdd([1, 2, 3], bins=2),
    lambda xp: xp.histogramdd([[1, 2], [3, 4]], bins=[2, 3, 4]),
    lambda xp: xp.histogramdd([[1, 2], [3, 4]], bins=[0, 3]),
    lambda xp: xp.histogramdd([[1, 2], [3, 4]], bins=[2.5, 3]),
    lambda xp: xp.histogramdd([[1, 2], [3, 4]], bins=[[2, 1], 3]),
    lambda xp: xp.histogramdd([[1, 2], [3, 4]], range=[(0, 1)]),
    lambda xp: xp.histogramdd([[1, 2], [3, 4]], weights=[1j, 2]),
    lambda xp: xp.histogram2d([1, 2], [1]),
    lambda xp: xp.histogram2d([1, 2, 3], [1, 4, 2], bins=[0, 1, 2, 3]),
])
def test_histogramdd_cases(call):
    assert_parity(_quiet(call))


# --- cov / corrcoef -----------------------------------------------------------------------


@given(arrays(st.sampled_from(FLOAT + INTEGER[:4] + COMPLEX + BOOL),
              st.sampled_from([(), (0,), (1,), (4,), (2, 3), (3, 4), (1, 5), (0, 3)]),
              **FINITE),
       st.booleans(), st.booleans(), st.sampled_from([None, 0, 1, 2]))
def test_cov(m, rowvar, bias, ddof):
    if m.dtype.kind in "iu":
        m = (m % 50).astype(m.dtype)
    if m.dtype.kind in "fc":  # moderate magnitudes: products of huge values lose all digits
        m = np.where(abs(m) < 1e3, m, 7).astype(m.dtype)
    assert_parity(_quiet(lambda xp: xp.cov(xp.asarray(m), rowvar=rowvar, bias=bias, ddof=ddof)),
                  context=(m, rowvar, bias, ddof), name="cov")
    assert_parity(_quiet(lambda xp: xp.corrcoef(xp.asarray(m), rowvar=rowvar)),
                  context=(m, rowvar), name="cov")


@given(st.data(), st.sampled_from([None, 0, 1]))
def test_cov_weights_and_y(data, ddof):
    n = data.draw(st.sampled_from([3, 5]))
    m = data.draw(arrays(st.sampled_from([np.float64, np.float32, np.int64]), st.just((2, n)),
                         **FINITE, min_value=-100, max_value=100))
    y = data.draw(st.sampled_from([None, np.linspace(-1, 3, n)]))
    fw = data.draw(st.sampled_from([None, np.arange(n) % 3 + 1, np.ones(n, np.int8)]))
    aw = data.draw(st.sampled_from([None, np.linspace(0.5, 2, n), np.arange(n) * 1.0]))

    def f(xp):
        return xp.cov(xp.asarray(m), None if y is None else xp.asarray(y), ddof=ddof,
                      fweights=_opt(xp, fw), aweights=_opt(xp, aw))
    assert_parity(_quiet(f), context=(m, y, fw, aw, ddof), name="cov")
    assert_parity(_quiet(lambda xp: xp.corrcoef(xp.asarray(m),
                                                None if y is None else xp.asarray(y))),
                  context=(m, y), name="cov")


@pytest.mark.parametrize("call", [
    lambda xp: xp.cov([1, 2, 3], ddof=1.5),
    lambda xp: xp.cov(xp.ones((2, 2, 2))),
    lambda xp: xp.cov([1, 2], xp.ones((2, 2, 2))),
    lambda xp: xp.cov([[1, 2, 3]], fweights=[1, 2.5, 1]),
    lambda xp: xp.cov([[1, 2, 3]], fweights=[[1, 2, 1]]),
    lambda xp: xp.cov([[1, 2, 3]], fweights=[1, 2]),
    lambda xp: xp.cov([[1, 2, 3]], fweights=[1, -2, 1]),
    lambda xp: xp.cov([[1, 2, 3]], aweights=[1, -2, 1]),
    lambda xp: xp.cov([[1, 2, 3]], aweights=[[1, 2, 1]]),
    lambda xp: xp.cov([[1, 2, 3]], aweights=[1, 2]),
    lambda xp: xp.cov([1, 2, 3], dtype=np.float32),
    lambda xp: xp.cov([1, 2, 3], [1, 0, 2], rowvar=False),
    lambda xp: xp.cov([[1, 2, 3]], ddof=3),
    lambda xp: xp.cov([]),
    lambda xp: xp.corrcoef([1, 2, 3]),
    lambda xp: xp.corrcoef([1, 1, 1]),
    lambda xp: xp.corrcoef([[1, 2, 3], [2, 2, 2]]),
    lambda xp: xp.corrcoef([[1, 2j, 3], [2, 1, 2 - 1j]]),
])
def test_cov_cases(call):
    assert_parity(_quiet(call), name="cov")
