"""Reductions against NumPy: values, dtypes, scalar-vs-array, out=, where=, errors.

NumPy's RuntimeWarnings (empty slices, all-NaN slices, overflow) are silenced on both sides:
npjax does not emit them (see npjax/_library/_reductions.py), the values are compared.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npjax
from tests._parity import assert_parity
from tests.strategies import ALL, FLOAT, INTEGER, NUMERIC, arrays, shapes
from tests.tolerances import OVERRIDES

# float16 results of variance-like reductions go through a float16 mean: a few ulps apart
OVERRIDES["var"] = OVERRIDES["std"] = OVERRIDES["nanvar"] = OVERRIDES["nanstd"] = {
    np.dtype(np.float16): dict(rtol=1e-2, atol=1e-2)}


def quiet(fn):
    """``fn`` run with NumPy's floating-point warnings and RuntimeWarnings silenced."""

    def run(xp):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(xp)

    return run


@st.composite
def array_and_axis(draw, dtypes=ALL, tuple_axes=True, max_dims=3):
    dtype = draw(st.sampled_from(dtypes))
    a = draw(arrays(dtype, shapes(max_dims=max_dims)))
    nd = a.ndim
    choices = [st.none()]
    if nd:
        choices.append(st.integers(-nd, nd - 1))
        if tuple_axes:
            choices.append(st.lists(st.integers(-nd, nd - 1), unique_by=lambda i: i % nd,
                                    max_size=nd).map(tuple))
    axis = draw(st.one_of(*choices))
    return a, axis


# Each Hypothesis test draws the function too: every example compiles a fresh kernel
# (~30 ms of CPU), so one test per family keeps the file inside its time budget.
SUM_LIKE = ["sum", "prod", "nansum", "nanprod", "mean", "nanmean", "average",
            "count_nonzero"]
VAR_LIKE = ["std", "var", "nanstd", "nanvar"]
ORDER_LIKE = ["min", "max", "amin", "amax", "nanmin", "nanmax", "ptp", "any", "all",
              "median", "nanmedian"]


def _axis_reduction(data, names):
    name = data.draw(st.sampled_from(names))
    a, axis = data.draw(array_and_axis(ALL))
    keepdims = data.draw(st.booleans())

    def call(xp):
        return getattr(xp, name)(xp.asarray(a), axis=axis, keepdims=keepdims)

    assert_parity(quiet(call), name=name, context=(name, repr(a), axis, keepdims))


@given(data=st.data())
def test_sum_like_parity(data):
    _axis_reduction(data, SUM_LIKE)


@given(data=st.data())
def test_var_like_parity(data):
    _axis_reduction(data, VAR_LIKE)


@given(data=st.data())
def test_order_like_parity(data):
    _axis_reduction(data, ORDER_LIKE)


@given(data=st.data())
def test_arg_reduction_parity(data):
    name = data.draw(st.sampled_from(["argmin", "argmax", "nanargmin", "nanargmax"]))
    a, axis = data.draw(array_and_axis(ALL, tuple_axes=False))
    keepdims = data.draw(st.booleans())
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), axis=axis,
                                                     keepdims=keepdims)),
                  context=(name, repr(a), axis, keepdims))


@given(data=st.data())
def test_cumulative_parity(data):
    name = data.draw(st.sampled_from(["cumsum", "cumprod", "nancumsum", "nancumprod",
                                      "cumulative_sum", "cumulative_prod"]))
    a, axis = data.draw(array_and_axis(ALL, tuple_axes=False))
    kw = {"axis": axis}
    if name.startswith("cumulative"):
        kw["include_initial"] = data.draw(st.booleans())
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), **kw)),
                  name=name, context=(name, repr(a), kw))


METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased"]
REAL = [np.dtype(np.bool_)] + INTEGER + FLOAT


@given(data=st.data())
def test_quantile_parity(data):
    name = data.draw(st.sampled_from(["percentile", "quantile", "nanpercentile",
                                      "nanquantile"]))
    a, axis = data.draw(array_and_axis(REAL))
    method = data.draw(st.sampled_from(METHODS))
    scale = 100.0 if "percentile" in name else 1.0
    unit = st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.1, 0.999, 1 / 3])
    q = data.draw(st.one_of(
        unit.map(lambda v: v * scale),
        st.lists(unit, min_size=1, max_size=3).map(lambda v: np.array(v) * scale),
        unit.map(lambda v: np.float32(v * scale))))
    keepdims = data.draw(st.booleans())
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), q, axis=axis,
                                                     method=method, keepdims=keepdims)),
                  name=name, context=(repr(a), q, axis, method, keepdims))


DTYPE_ARGS = [None, np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64,
              np.complex128, np.bool_]
DTYPE_INEXACT = [None, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@given(data=st.data())
def test_dtype_argument_parity(data):
    name = data.draw(st.sampled_from(["sum", "prod", "mean", "std", "var", "cumsum",
                                      "cumprod", "nansum", "nanmean", "nanprod"]))
    # mean/var/std with an integer dtype= cast a float quotient to it: NaN or out-of-range
    # quotients give platform-specific values in NumPy (C casts), so those draw inexact dtypes
    divides = name in ("mean", "std", "var", "nanmean")
    dtype = data.draw(st.sampled_from(DTYPE_INEXACT if divides else DTYPE_ARGS))
    if dtype is not None and np.dtype(dtype).kind in "biu":
        # float -> int casts of NaN/inf/out-of-range values are C undefined behaviour in
        # NumPy, and complex -> int warns: finite small floats and integers only
        src = data.draw(st.sampled_from(INTEGER + FLOAT))
        low = 0 if np.dtype(dtype).kind in "bu" else -100
        kw = {} if src.kind in "iu" else dict(min_value=low, max_value=100, allow_nan=False,
                                               allow_infinity=False)
        a = data.draw(arrays(src, shapes(), **kw))
        axis = data.draw(st.sampled_from([None, -1] if a.ndim else [None]))
    else:
        a, axis = data.draw(array_and_axis(NUMERIC, tuple_axes=name[:3] != "cum"))
    if dtype is not None and np.dtype(dtype).kind != "c" and a.dtype.kind == "c":
        dtype = np.complex128  # NumPy warns (ComplexWarning) when discarding imaginary parts
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), axis=axis, dtype=dtype)),
                  name=name, context=(repr(a), axis, dtype))


@given(data=st.data())
def test_where_parity(data):
    name = data.draw(st.sampled_from(["sum", "prod", "mean", "std", "var", "min", "max",
                                      "any", "all", "nansum", "nanmean", "nanvar", "nanmax"]))
    dtype = data.draw(st.sampled_from(INTEGER + FLOAT))
    shape = data.draw(shapes(min_dims=1, max_dims=2, min_side=1))
    a = data.draw(arrays(dtype, st.just(shape)))
    where = data.draw(arrays(np.bool_, st.just(shape[-1:])))
    axis = data.draw(st.sampled_from([None, -1, 0]))
    kw = {"where": where, "axis": axis}
    if name in ("min", "max", "nanmax"):
        kw["initial"] = data.draw(st.sampled_from([0, 3, -7]))
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), **kw)), name=name,
                  context=(repr(a), kw))


@given(data=st.data())
def test_initial_parity(data):
    name = data.draw(st.sampled_from(["sum", "prod", "min", "max", "nansum", "nanmin"]))
    a, axis = data.draw(array_and_axis(INTEGER + FLOAT))
    initial = data.draw(st.sampled_from([0, 1, -5, 100, 2.5, 1000]))
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), axis=axis,
                                                     initial=initial)),
                  name=name, context=(repr(a), axis, initial))


@given(data=st.data())
def test_ddof_correction_parity(data):
    name = data.draw(st.sampled_from(["std", "var", "nanstd", "nanvar"]))
    a, axis = data.draw(array_and_axis(INTEGER + FLOAT + [np.dtype(np.complex128)]))
    ddof = data.draw(st.sampled_from([0, 1, 2, 0.5]))
    kw = {"ddof": ddof} if data.draw(st.booleans()) else {"correction": ddof}
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), axis=axis, **kw)),
                  name=name, context=(repr(a), axis, kw))


def test_std_mean_argument_parity():
    a = np.arange(12.0).reshape(3, 4)
    for fn in ("std", "var", "nanvar"):
        assert_parity(lambda xp, fn=fn: getattr(xp, fn)(xp.asarray(a), axis=1,
                                                        mean=xp.mean(xp.asarray(a), axis=1,
                                                                     keepdims=True)))
    assert_parity(lambda xp: xp.std(xp.asarray(a), ddof=1, correction=1))


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "std", "var", "min", "max", "argmax",
                                  "argmin", "any", "all", "cumsum", "cumprod", "median",
                                  "percentile", "nanmean", "nanmax", "nanargmin", "ptp",
                                  "nancumsum"])
@pytest.mark.parametrize("out_dtype", [np.float64, np.int64])
def test_out_returns_out(name, out_dtype):
    a = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    args = (50,) if name == "percentile" else ()
    shape = (6,) if name in ("cumsum", "cumprod", "nancumsum") else (3,)
    axis = None if shape == (6,) else 0

    def call(xp):
        out = xp.zeros(shape, dtype=out_dtype)
        res = getattr(xp, name)(xp.asarray(a), *args, axis=axis, out=out)
        assert res is out
        return out

    assert_parity(call, name=name)


def test_out_wrong_shape_and_type():
    a = np.ones((2, 3))
    assert_parity(lambda xp: xp.sum(xp.asarray(a), axis=0, out=xp.zeros((2, 3))))
    assert_parity(lambda xp: xp.max(xp.asarray(a), axis=1, out=xp.zeros(3)))
    assert_parity(lambda xp: xp.argmax(xp.asarray(a), axis=0, out=xp.zeros(3)))
    assert_parity(lambda xp: xp.sum(xp.asarray(a), out=xp.zeros(())))


def test_out_view_is_written_through():
    def call(xp):
        base = xp.zeros((2, 3))
        res = xp.sum(xp.asarray(np.ones((4, 3))), axis=0, out=base[1])
        assert res is not None
        return base

    assert_parity(call)


# --- errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SUM_LIKE + VAR_LIKE + ORDER_LIKE + ["argmax", "nanargmin",
                                                                    "cumsum", "percentile"])
@pytest.mark.parametrize("axis", [2, -3, (0, 0), (0, 5), 1.0])
def test_bad_axis(name, axis):
    args = (50,) if name == "percentile" else ()
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(np.ones((2, 3))), *args,
                                                     axis=axis)))


@pytest.mark.parametrize("name", ["min", "max", "amin", "amax", "argmin", "argmax", "ptp",
                                  "nanmin", "nanmax", "nanargmin", "nanargmax", "median",
                                  "percentile", "quantile", "nanmedian", "nanpercentile",
                                  "mean", "std", "nanmean", "average", "sum", "prod"])
@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 3), 0), ((0, 3), 1), ((3, 0), 0),
                                        ((0, 0), None)])
def test_empty_reductions(name, shape, axis):
    args = ((50,) if "percentile" in name else (0.5,) if "quantile" in name else ())
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(np.zeros(shape)), *args,
                                                     axis=axis)))


def test_nan_arg_all_nan_slice():
    a = np.array([[np.nan, 1.0], [np.nan, np.nan]])
    for name in ("nanargmin", "nanargmax"):
        for axis in (None, 0, 1):
            assert_parity(lambda xp, n=name, ax=axis: getattr(xp, n)(xp.asarray(a), axis=ax))
    assert_parity(lambda xp: xp.nanargmax(xp.asarray(np.array([np.nan, 2.0]))))


def test_nan_reductions_all_nan_values():
    a = np.array([[np.nan, 1.0], [np.nan, np.nan]])
    for name in ("nanmin", "nanmax", "nanmean", "nanmedian", "nanvar", "nanstd"):
        for axis in (None, 0, 1):
            assert_parity(quiet(lambda xp, n=name, ax=axis: getattr(xp, n)(xp.asarray(a),
                                                                           axis=ax)))
    assert_parity(quiet(lambda xp: xp.nanpercentile(xp.asarray(a), [10, 90], axis=1)))


@pytest.mark.parametrize("q", [-1, 101, [50, 150], np.nan])
def test_percentile_q_out_of_range(q):
    assert_parity(lambda xp: xp.percentile(xp.asarray(np.arange(5.0)), q))
    assert_parity(lambda xp: xp.quantile(xp.asarray(np.arange(5.0)), np.asarray(q) / 50))


def test_quantile_bad_inputs():
    a = np.arange(6.0).reshape(2, 3)
    assert_parity(lambda xp: xp.quantile(xp.asarray(a), 0.5, method="bogus"))
    assert_parity(lambda xp: xp.percentile(xp.asarray(a + 1j), 50))
    assert_parity(lambda xp: xp.percentile(xp.asarray(a > 2), 50))
    assert_parity(lambda xp: xp.quantile(xp.asarray(a), 0.5, weights=np.ones(3)))
    assert_parity(lambda xp: xp.quantile(xp.asarray(a), 0.5, weights=np.ones((2, 3)),
                                         method="linear"))


@given(data=st.data())
def test_weighted_quantile_parity(data):
    name = data.draw(st.sampled_from(["quantile", "nanquantile", "percentile",
                                      "nanpercentile"]))
    a, axis = data.draw(array_and_axis(FLOAT + INTEGER, tuple_axes=False, max_dims=2))
    # weights far from the subnormal range: XLA on CPU flushes subnormal results to zero
    w = data.draw(hnp.arrays(np.float64, a.shape, elements=st.one_of(
        st.sampled_from([0.0, 1.0, 2.0]), st.floats(1e-3, 5.0))))
    q = data.draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    q = q * 100 if "percentile" in name else q
    assert_parity(quiet(lambda xp: getattr(xp, name)(xp.asarray(a), q, axis=axis,
                                                     method="inverted_cdf", weights=w)),
                  context=(repr(a), repr(w), axis, q))


@given(data=st.data())
def test_average_weights_parity(data):
    a, axis = data.draw(array_and_axis(NUMERIC, tuple_axes=True, max_dims=2))
    full = data.draw(st.booleans()) or axis is None
    if full:
        wshape = a.shape
    else:
        ax = (axis,) if isinstance(axis, int) else axis
        wshape = tuple(a.shape[i] for i in ax)
    # weights far from the subnormal range: XLA on CPU flushes subnormal results to zero
    w = data.draw(hnp.arrays(np.float64, wshape, elements=st.one_of(
        st.sampled_from([0.0, 1.0, -1.0, 2.0]), st.floats(1e-3, 5.0), st.floats(-2.0, -1e-3))))
    returned = data.draw(st.booleans())
    keepdims = data.draw(st.booleans())
    assert_parity(quiet(lambda xp: xp.average(xp.asarray(a), axis=axis, weights=w,
                                              returned=returned, keepdims=keepdims)),
                  context=(repr(a), repr(w), axis, returned, keepdims))


def test_average_errors_and_returned():
    a = np.arange(6.0).reshape(2, 3)
    assert_parity(lambda xp: xp.average(xp.asarray(a), weights=np.ones(3)))
    assert_parity(lambda xp: xp.average(xp.asarray(a), axis=1, weights=np.ones(2)))
    assert_parity(lambda xp: xp.average(xp.asarray(a), axis=1, weights=np.zeros(3)))
    assert_parity(lambda xp: xp.average(xp.asarray(a), axis=0, returned=True))
    assert_parity(lambda xp: xp.average(xp.asarray(a), returned=True))


# --- specific NumPy behaviours -----------------------------------------------------------

def test_result_dtypes():
    cases = [(np.int8, "sum"), (np.bool_, "sum"), (np.uint8, "cumsum"), (np.int16, "mean"),
             (np.float16, "mean"), (np.complex64, "std"), (np.int32, "argmax"),
             (np.uint8, "prod"), (np.float16, "median"), (np.int8, "percentile")]
    for dtype, name in cases:
        args = (30,) if name == "percentile" else ()
        assert_parity(lambda xp, n=name, d=dtype, args=args: getattr(xp, n)(
            xp.asarray(np.arange(1, 5, dtype=d)), *args))


def test_mean_integer_dtype_truncates():
    a = np.array([[1, 2, 4], [7, -3, 3]])
    assert_parity(lambda xp: xp.mean(xp.asarray(a), axis=1, dtype=np.int64))
    assert_parity(lambda xp: xp.var(xp.asarray(a), dtype=np.int32))


def test_integer_sums_wrap():
    a = np.array([np.iinfo(np.int64).max, 1, 2], dtype=np.int64)
    assert_parity(lambda xp: xp.sum(xp.asarray(a)))
    assert_parity(lambda xp: xp.prod(xp.asarray(a)))
    assert_parity(lambda xp: xp.cumsum(xp.asarray(a)))
    u = np.array([200, 100], dtype=np.uint8)
    assert_parity(lambda xp: xp.sum(xp.asarray(u), dtype=np.uint8))


def test_float_sum_order_matches_numpy():
    big = np.finfo(np.float64).max
    for a in ([big, big, -big], [1e16, 1.0, -1e16, 1.0], np.r_[[1e17], np.full(20, 1.0),
                                                                  [-1e17]]):
        a = np.asarray(a)
        assert_parity(quiet(lambda xp, a=a: xp.sum(xp.asarray(a))))
        assert_parity(quiet(lambda xp, a=a: xp.cumsum(xp.asarray(a))))
    x = np.random.default_rng(0).normal(size=(3, 200)) * 1e8
    assert_parity(lambda xp: xp.sum(xp.asarray(x), axis=1))
    assert_parity(lambda xp: xp.sum(xp.asarray(x), axis=0))
    h = np.full(300, 1000.0, np.float16)
    assert_parity(quiet(lambda xp: xp.sum(xp.asarray(h))))
    assert_parity(quiet(lambda xp: xp.mean(xp.asarray(h))))


def test_complex_min_max_lexicographic():
    a = np.array([1 + 2j, 2 + 0j, 1 + 3j, 2 - 1j])
    for name in ("min", "max", "argmin", "argmax", "ptp"):
        assert_parity(lambda xp, n=name: getattr(xp, n)(xp.asarray(a)))
    b = np.array([1 + 2j, complex(np.nan, 1), 2 + 0j])
    for name in ("min", "max", "argmin", "argmax", "nanmin", "nanmax", "nanargmax"):
        assert_parity(lambda xp, n=name: getattr(xp, n)(xp.asarray(b)))


def test_scalar_results():
    a = np.arange(6.0).reshape(2, 3)
    for call in (lambda xp: xp.sum(xp.asarray(a)), lambda xp: xp.mean(xp.asarray(a)),
                 lambda xp: xp.sum(xp.asarray(a), keepdims=True),
                 lambda xp: xp.median(xp.asarray(a), keepdims=True),
                 lambda xp: xp.percentile(xp.asarray(a), 50, keepdims=True),
                 lambda xp: xp.count_nonzero(xp.asarray(a)),
                 lambda xp: xp.argmax(xp.asarray(a)), lambda xp: xp.asarray(a).max(),
                 lambda xp: xp.sum(xp.asarray(5.0), axis=())):
        assert_parity(call)


def test_ndarray_methods_match_numpy():
    names = ["sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any",
             "all", "cumsum", "cumprod", "ptp", "amin", "amax", "median", "nansum"]
    for name in names:
        assert hasattr(npjax.ndarray, name) == hasattr(np.ndarray, name), name
    a = np.arange(12.0).reshape(3, 4)
    assert_parity(lambda xp: xp.asarray(a).sum(1, None, None, True))
    assert_parity(lambda xp: xp.asarray(a).std(0, None, None, 1))
    assert_parity(lambda xp: xp.asarray(a).argmax(axis=1, keepdims=True))
    assert_parity(lambda xp: xp.asarray(a).cumprod(0))
    assert_parity(lambda xp: xp.asarray(a).min(initial=-1, where=xp.asarray(a) > 3))


def test_where_needs_initial_and_bool():
    a = np.arange(4.0)
    assert_parity(lambda xp: xp.max(xp.asarray(a), where=np.array([True, False] * 2)))
    assert_parity(lambda xp: xp.sum(xp.asarray(a), where=np.array([1, 0, 1, 0])))
    assert_parity(lambda xp: xp.max(xp.asarray(np.arange(4, dtype=np.int8)), initial=1000))


def test_median_keepdims_and_tuple_axes():
    a = np.arange(24.0).reshape(2, 3, 4)
    for axis in (None, (0, 2), (-1, 0, 1), 1):
        assert_parity(lambda xp, ax=axis: xp.median(xp.asarray(a), axis=ax, keepdims=True))
        assert_parity(lambda xp, ax=axis: xp.percentile(xp.asarray(a), [25, 75], axis=ax,
                                                        keepdims=True))


def test_overwrite_input_accepted():
    a = np.array([3.0, 1.0, 2.0])

    def call(xp):
        x = xp.asarray(a)
        r = xp.median(x, overwrite_input=True)
        return r, xp.percentile(x, 50, overwrite_input=True)

    assert_parity(call)


def test_cumulative_sum_needs_axis():
    assert_parity(lambda xp: xp.cumulative_sum(xp.asarray(np.ones((2, 2)))))
    assert_parity(lambda xp: xp.cumulative_prod(xp.asarray(np.ones(3)), include_initial=True))
    assert_parity(lambda xp: xp.cumsum(xp.asarray(np.array(5.0)), axis=0))
