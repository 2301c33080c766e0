"""NumPy's RuntimeWarnings of reductions and statistics on device arrays
(``npjax/_library/_reduction_checks.py``): value, dtype, and the warnings (class, message, order)
compared with NumPy's; npjax's name the test's own line."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import DEVICE_FLOAT, assert_same

pytestmark = pytest.mark.device_placement
NAN, INF = np.nan, np.inf


def _run(xp, fn):
    """``fn(xp)``'s result and warnings: (category, message, file, line) in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(xp)
        except ArithmeticError as exc:  # NumPy's ZeroDivisionError of average: compared too
            result = type(exc)
        if xp is npjax:
            np.asarray(result)  # a read: nothing is left pending
    return result, [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


def assert_warns_like_numpy(fn) -> list:
    """Same result and the same warnings as NumPy, each naming the caller's line (or the
    line NumPy's names)."""
    expected, want = _run(np, fn)
    actual, got = _run(npjax, fn)
    if isinstance(expected, type):
        assert actual is expected
    else:
        assert_same(actual, expected)
    assert [w[:2] for w in got] == [w[:2] for w in want]
    here = fn.__code__.co_filename  # (or NumPy's own place: a host array's warning is
    numpys = {w[2:] for w in want}  # NumPy's, float64 ones where a TPU cannot hold them)
    assert all(w[2] == here or w[2:] in numpys for w in got), got
    return [w[1] for w in got]


CASES = {
    "mean of empty": lambda xp: xp.mean(xp.zeros(0)),
    "mean of empty axis": lambda xp: xp.mean(xp.zeros((0, 3)), axis=0),
    "mean of empty, empty result": lambda xp: xp.mean(xp.zeros((0, 0)), axis=0),
    "mean of empty float32": lambda xp: xp.mean(xp.zeros(0, xp.float32)),
    "mean of empty float16": lambda xp: xp.mean(xp.zeros(0, xp.float16)),
    "mean of empty complex": lambda xp: xp.mean(xp.zeros(0, xp.complex128)),
    "mean of empty int": lambda xp: xp.mean(xp.zeros(0, xp.int64)),
    "mean keepdims": lambda xp: xp.mean(xp.zeros(0), keepdims=True),
    "mean where all False": lambda xp: xp.mean(xp.ones(4), where=xp.zeros(4, bool)),
    "mean where some lanes": lambda xp: xp.mean(xp.ones((2, 2)), axis=1,
                                                where=xp.asarray([[True, True], [False, False]])),
    "mean overflow": lambda xp: xp.mean(xp.asarray([1e308, 1e308])),
    "average of empty": lambda xp: xp.average(xp.zeros((0, 3)), axis=0),
    "var of empty": lambda xp: xp.var(xp.zeros(0)),
    "var of empty float32": lambda xp: xp.var(xp.zeros(0, xp.float32)),
    "var of empty complex": lambda xp: xp.var(xp.zeros(0, xp.complex128)),
    "var ddof = n": lambda xp: xp.var(xp.ones(2), ddof=2),
    "var ddof = n, spread": lambda xp: xp.var(xp.asarray([1.0, 2.0]), ddof=2),
    "var ddof axis": lambda xp: xp.var(xp.ones((2, 3)), axis=0, ddof=2),
    "var where": lambda xp: xp.var(xp.ones((2, 2)), axis=1, ddof=1,
                                   where=xp.asarray([[True, True], [True, False]])),
    "var overflow": lambda xp: xp.var(xp.asarray([1e308, -1e308])),
    "var with mean": lambda xp: xp.var(xp.asarray([1.0, 2.0]), ddof=2,
                                       mean=xp.asarray([1.5])),
    "std ddof": lambda xp: xp.std(xp.ones((2, 3)), axis=0, ddof=3),
    "std of empty axis": lambda xp: xp.std(xp.zeros((0, 3)), axis=0),
    "nanmean all-NaN": lambda xp: xp.nanmean(xp.asarray([NAN, NAN])),
    "nanmean all-NaN lane": lambda xp: xp.nanmean(xp.asarray([[NAN, 1.0], [NAN, 2.0]]), axis=0),
    "nanmean of empty": lambda xp: xp.nanmean(xp.zeros(0)),
    "nanmean of empty lanes": lambda xp: xp.nanmean(xp.zeros((0, 3)), axis=0),
    "nanmean overflow": lambda xp: xp.nanmean(xp.asarray([1e308, 1e308, NAN])),
    "nanvar all-NaN": lambda xp: xp.nanvar(xp.asarray([NAN, NAN])),
    "nanvar ddof": lambda xp: xp.nanvar(xp.asarray([1.0, NAN]), ddof=1),
    "nanvar of empty": lambda xp: xp.nanvar(xp.zeros((0, 3)), axis=0),
    "nanstd all-NaN": lambda xp: xp.nanstd(xp.asarray([NAN, NAN])),
    "nanmin all-NaN": lambda xp: xp.nanmin(xp.asarray([NAN, NAN])),
    "nanmax all-NaN lane": lambda xp: xp.nanmax(xp.asarray([[NAN, 1.0], [NAN, 2.0]]), axis=0),
    "nanmedian all-NaN": lambda xp: xp.nanmedian(xp.asarray([NAN, NAN])),
    "nanmedian all-NaN lanes": lambda xp: xp.nanmedian(xp.full((2, 3), NAN), axis=1),
    "nanmedian of empty": lambda xp: xp.nanmedian(xp.zeros(0)),
    "nanpercentile all-NaN": lambda xp: xp.nanpercentile(xp.asarray([NAN, NAN]), 50),
    "nanquantile all-NaN lanes": lambda xp: xp.nanquantile(xp.full((2, 3), NAN), [0.1, 0.5],
                                                           axis=1),
    "median of empty": lambda xp: xp.median(xp.zeros(0)),
    "median of empty lanes": lambda xp: xp.median(xp.zeros((0, 3)), axis=0),
    "sum overflow": lambda xp: xp.sum(xp.asarray([1e308, 1e308])),
    "sum float32 overflow": lambda xp: xp.sum(xp.asarray([3e38, 3e38], xp.float32)),
    "sum inf - inf": lambda xp: xp.sum(xp.asarray([INF, -INF])),
    "sum where overflow": lambda xp: xp.sum(xp.asarray([1e308, 1e308, 1e308]),
                                            where=xp.asarray([True, False, True])),
    "prod overflow": lambda xp: xp.prod(xp.asarray([1e308, 1e308])),
    "nansum overflow": lambda xp: xp.nansum(xp.asarray([1e308, 1e308, NAN])),
    "add.reduce overflow": lambda xp: xp.add.reduce(xp.asarray([1e308, 1e308])),
    "cumsum overflow": lambda xp: xp.cumsum(xp.asarray([1e308, 1e308])),
    "cumprod inf * 0": lambda xp: xp.cumprod(xp.asarray([1e200, 1e200, 0.0])),
    "ptp overflow": lambda xp: xp.ptp(xp.asarray([1e308, -1e308])),
    "no warning: sum of inf": lambda xp: xp.sum(xp.asarray([INF, 1.0])),
    "no warning: mean with NaN": lambda xp: xp.mean(xp.asarray([NAN, 1.0])),
    "no warning: int sum": lambda xp: xp.sum(xp.asarray([2**62, 2**62])),
}


@pytest.mark.parametrize("case", CASES)
def test_warnings_are_numpys(case):
    assert_warns_like_numpy(CASES[case])


def test_numpy_warns_in_the_cases_above():
    """The table is not vacuous: NumPy warns in every case not named "no warning"."""
    for name, fn in CASES.items():
        _, want = _run(np, fn)
        assert bool(want) is not name.startswith("no warning"), name


def test_float_flags_follow_errstate_and_plain_warnings_do_not():
    with np.errstate(invalid="ignore"):
        got = assert_warns_like_numpy(lambda xp: xp.mean(xp.zeros(0)))
    assert got == ["Mean of empty slice"]
    with np.errstate(all="ignore"):
        assert assert_warns_like_numpy(lambda xp: xp.sum(xp.asarray([1e308, 1e308]))) == []
        assert assert_warns_like_numpy(lambda xp: xp.nanmin(xp.asarray([NAN]))) == [
            "All-NaN slice encountered"]


@pytest.mark.parametrize("fn", [
    lambda xp: xp.mean(xp.zeros(0)),
    lambda xp: xp.sum(xp.asarray([1e308, 1e308])),
    lambda xp: xp.var(xp.asarray([1.0, 2.0]), ddof=2),
])
def test_errstate_raise(fn):
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("ignore", RuntimeWarning)  # "Mean of empty slice" comes first
        with pytest.raises(FloatingPointError) as theirs:
            fn(np)
        with pytest.raises(FloatingPointError) as ours:
            fn(npjax)
    assert str(ours.value) == str(theirs.value)


def test_error_filters_raise_the_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning, match="All-NaN slice encountered"):
            npjax.nanmax(npjax.asarray([NAN, NAN]))
        with pytest.raises(RuntimeWarning, match="Mean of empty slice"):
            npjax.mean(npjax.zeros((0, 2)), axis=0)


def test_under_npjax_jit_and_lazy_mode():
    """As for ufunc flags: npjax.jit reruns the call eagerly (the line inside the function);
    lazy mode checks when the program runs (the line that reads the value)."""
    def f(x):
        return npjax.nanmean(x) + x.sum()

    # (float32 where the backend cannot hold float64: float64 arrays are host arrays there,
    # whose warnings NumPy gives at the call)
    dt = DEVICE_FLOAT
    x = npjax.asarray(np.array([NAN, NAN], dt))
    y = npjax.asarray(np.full(2, np.finfo(dt).max * 0.75, dt))
    for arg, want in ((x, ["Mean of empty slice"]),
                      (y, ["overflow encountered in reduce"] * 2)):
        _, got = _run(npjax, lambda xp, arg=arg: npjax.jit(f)(arg))
        assert [w[1] for w in got] == want
        assert {w[3] for w in got} == {f.__code__.co_firstlineno + 1}
        with npjax.policy(mode="lazy"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = f(arg)
            at_call = list(caught)
            float(r)
        assert [str(w.message) for w in caught] == want
        # (where float64 is a host dtype, nanmean's float64 division by its count runs on
        # the host at the call, and warnings may come then, as NumPy gives them)
        assert at_call == [] or dt == np.float32


FLOATS = st.sampled_from([np.float64, np.float32])
SHAPES = st.sampled_from([(0,), (1,), (3,), (0, 3), (3, 0), (2, 3), (2, 1, 2)])


@st.composite
def _data(draw, nan_rate=0.5):
    shape = draw(SHAPES)
    dtype = draw(FLOATS)
    n = int(np.prod(shape))
    values = draw(st.lists(st.one_of(st.floats(-4, 4, width=32), st.just(NAN)) if nan_rate
                           else st.floats(-4, 4, width=32), min_size=n, max_size=n))
    axis = draw(st.sampled_from([None, *range(len(shape)), tuple(range(len(shape)))]))
    return np.asarray(values, dtype).reshape(shape), axis


@given(_data(), st.integers(0, 3), st.sampled_from(["nanmean", "nanvar", "nanstd", "nanmin",
                                                    "nanmax", "nanmedian", "nanquantile"]))
def test_nan_functions_hypothesis(data, ddof, name):
    x, axis = data

    def fn(xp):
        kw = {"ddof": ddof} if name in ("nanvar", "nanstd") else {}
        if name == "nanquantile":
            return xp.nanquantile(xp.asarray(x), 0.25, axis=axis)
        if name in ("nanmin", "nanmax") and 0 in [x.shape[i] for i in _axes(axis, x.ndim)]:
            return None  # an identity error, not a warning (tested elsewhere)
        return getattr(xp, name)(xp.asarray(x), axis=axis, **kw)

    assert_warns_like_numpy(fn)


@given(_data(nan_rate=0), st.integers(0, 4), st.sampled_from(["mean", "var", "std", "median",
                                                              "sum", "average"]))
def test_plain_functions_hypothesis(data, ddof, name):
    x, axis = data
    kw = {"ddof": ddof} if name in ("var", "std") else {}
    assert_warns_like_numpy(lambda xp: getattr(xp, name)(xp.asarray(x), axis=axis, **kw))


def _axes(axis, ndim):
    if axis is None:
        return range(ndim)
    return axis if isinstance(axis, tuple) else (axis,)


def test_messages_name_the_callers_line():
    _, got = _run(npjax, lambda xp: xp.nanmean(xp.asarray([NAN])))
    assert got[0][2] == __file__ and got[0][3] == sys._getframe().f_lineno - 1
