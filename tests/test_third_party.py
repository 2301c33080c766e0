"""npjax arrays where other libraries look for NumPy arrays (issue 36, item 3), each call
against the same call with plain NumPy arrays, under the default placement and with every
array on the device.

What works: libraries that convert with ``np.asarray`` or run ufuncs (``scipy.special``), and
pandas' objects in ufuncs and operators with npjax arrays (NumPy's ufunc protocol: the Series
decides). What does not: code that tests ``isinstance(x, numpy.ndarray)`` and takes another branch
(pandas ``groupby``/``loc`` with an npjax key), and ``numpy_array.view(type(x))``
(matplotlib's ``LightSource``), which needs ``type(x)`` to be a ``numpy.ndarray`` subclass.
npjax arrays are not (docs/interop.md, "Where a library tests for numpy.ndarray"): those tests
are strict xfails, to turn green the day host arrays become NumPy subclasses."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT, assert_same

PLACEMENTS = ("auto", "device")
pd = pytest.importorskip("pandas")
special = pytest.importorskip("scipy.special")


def _under(placement: str):
    return npjax.policy(placement="device") if placement == "device" else \
        contextlib.nullcontext()


# --- scipy.special: ufuncs of another library ------------------------------------------------

X = np.array([[0.0, 0.5, 1.5], [2.0, -0.75, 3.25]])
SPECIAL_CALLS = {
    "erf": lambda x: special.erf(x),
    "gamma": lambda x: special.gamma(x),
    "gammaln": lambda x: special.gammaln(x),
    "expit": lambda x: special.expit(x),
    "jv": lambda x: special.jv(x, x),
    "jv with a number": lambda x: special.jv(1, x),
    "ellipj": lambda x: special.ellipj(x, 0.5),
    "erf of a 0-d array": lambda x: special.erf(x[0, 1]),
    "erf of a row": lambda x: special.erf(x[1]),
    "erf of a transposed view": lambda x: special.erf(x.T),
    "erf float32": lambda x: special.erf(x.astype(np.float32)),
}
# No ``where=`` case: SciPy 1.17's C++ (xsf) loops read and write past the operands under
# NumPy's masked loop (valgrind, on NumPy arrays alone), which corrupted the heap and crashed
# later tests at random.


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(SPECIAL_CALLS))
def test_scipy_special_ufuncs(name, placement):
    call = SPECIAL_CALLS[name]
    want = call(X.copy())
    with _under(placement), warnings.catch_warnings():
        warnings.simplefilter("error")
        got = call(npjax.asarray(X))
        assert_same(got, want)


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_scipy_special_out_is_written(placement):
    want = np.zeros(3)
    special.erf(X[0], out=want)
    with _under(placement):
        out = npjax.zeros(3)
        got = special.erf(npjax.asarray(X[0]), out=out)
        assert got is out
        assert_same(out, want)


# --- pandas ----------------------------------------------------------------------------------

VALUES = [1.0, 2.0, 3.0, 4.0, 5.0]
KEY = np.array([0, 1, 0, 1, 1])


def _groupby_sum(key):
    return pd.Series(VALUES).groupby(key).sum().to_numpy()


# pandas' Grouping (pandas/core/groupby/grouper.py) keeps a key that passes
# ``isinstance(key, (Series, Index, ExtensionArray, np.ndarray))`` as the grouping values;
# any other key goes to ``index.map(key)``, which calls it per label.
@pytest.mark.xfail(raises=TypeError, reason="pandas tests isinstance(key, numpy.ndarray): an "
                   "npjax key is taken as a mapping function ('ndarray' object is not "
                   "callable); npjax arrays are not numpy.ndarray instances")
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_pandas_groupby_with_an_npjax_key(placement):
    with _under(placement):
        got = _groupby_sum(npjax.asarray(KEY))
    np.testing.assert_array_equal(got, _groupby_sum(KEY))


# pandas' ``is_bool_indexer`` recognises a mask by ``isinstance(key, np.ndarray)`` (or Series,
# Index, ExtensionArray); an npjax mask is taken as a list of labels.
@pytest.mark.xfail(raises=KeyError, reason="pandas tests isinstance(mask, numpy.ndarray): an "
                   "npjax boolean mask is read as labels")
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_pandas_loc_with_an_npjax_mask(placement):
    mask = KEY == 1
    with _under(placement):
        got = pd.Series(VALUES).loc[npjax.asarray(mask)].to_numpy()
    np.testing.assert_array_equal(got, pd.Series(VALUES).loc[mask].to_numpy())


@pytest.mark.xfail(raises=KeyError, reason="pandas tests isinstance(mask, numpy.ndarray): an "
                   "npjax boolean mask is read as column labels")
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_pandas_frame_rows_by_an_npjax_mask(placement):
    mask = KEY == 1
    frame = pd.DataFrame({"v": VALUES})
    with _under(placement):
        got = frame[npjax.asarray(mask)].to_numpy()
    np.testing.assert_array_equal(got, frame[mask].to_numpy())


# ``pd.unique`` and ``set_index`` test the same isinstance and refuse other objects.
@pytest.mark.xfail(raises=TypeError, reason="pandas tests isinstance(x, numpy.ndarray) and "
                   "refuses other array-likes")
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("call", [
    lambda k: pd.unique(k),
    lambda k: pd.DataFrame({"v": VALUES}).set_index(k).index.to_numpy(),
], ids=["unique", "set_index"])
def test_pandas_calls_that_refuse_npjax_arrays(call, placement):
    with _under(placement):
        got = call(npjax.asarray(KEY))
    np.testing.assert_array_equal(got, call(KEY))


# With every array on the device, pandas' ``list(x)`` (taken for an object that is not an
# np.ndarray) holds npjax 0-d arrays, not NumPy scalars: their categories are objects.
@pytest.mark.xfail(reason="a device array's elements are npjax 0-d arrays, not NumPy "
                   "scalars; pandas infers object")
def test_pandas_categorical_of_a_device_array():
    with _under("device"):
        got = pd.Categorical(npjax.asarray(KEY)).categories
    assert got.dtype == pd.Categorical(KEY).categories.dtype


PANDAS_CALLS = {
    "groupby of np.asarray(key)": lambda a, xp: _groupby_sum(np.asarray(a)),
    "Series": lambda a, xp: pd.Series(a).to_numpy(),
    "DataFrame": lambda a, xp: pd.DataFrame({"k": a, "v": VALUES}).groupby("k").sum()
    .to_numpy(),
    "Series + array": lambda a, xp: (pd.Series(VALUES) + a).to_numpy(),
    "isin": lambda a, xp: pd.Series([0, 1, 2, 3, 4]).isin(a).to_numpy(),
    "Index": lambda a, xp: pd.Index(a).to_numpy(),
    "cut": lambda a, xp: pd.cut(a, 2, labels=False),
    "np.unique of a Series": lambda a, xp: xp.unique(pd.Series(a).to_numpy()),
}


# pandas' objects are in NumPy's ufunc protocol (``__array_ufunc__``): a ufunc or an operator
# of an array with a Series or a frame gives pandas' object, as with NumPy arrays (npjax hands
# the call to NumPy's ufunc with its operands' host data, a device array's copy).
PANDAS_UFUNCS = {
    "exp(Series)": lambda a, xp: xp.exp(pd.Series(VALUES)),
    "add(array, Series)": lambda a, xp: xp.add(a, pd.Series(VALUES)),
    "arctan2(array, Series)": lambda a, xp: xp.arctan2(a, pd.Series(VALUES)),
    "array + Series": lambda a, xp: a + pd.Series(VALUES),
    "array == Series": lambda a, xp: a == pd.Series(VALUES),
    "array * DataFrame": lambda a, xp: a[:, None] * pd.DataFrame({"p": VALUES, "q": VALUES}),
    "add.reduce(Series)": lambda a, xp: xp.add.reduce(pd.Series(VALUES)),
    "maximum.accumulate(Series)": lambda a, xp: xp.maximum.accumulate(pd.Series(VALUES)),
}


# NumPy's functions given a pandas object call its method (``np.round(s)`` is ``s.round()``):
# npjax runs NumPy's function on the host, as for any object in NumPy's protocols.
PANDAS_UFUNCS |= {
    "round(Series)": lambda a, xp: xp.round(pd.Series(VALUES) / 3, 2),
    "clip(Series)": lambda a, xp: xp.clip(pd.Series(VALUES), 2, 4),
    "cumsum(Series)": lambda a, xp: xp.cumsum(pd.Series(VALUES)),
    "repeat(Series)": lambda a, xp: xp.repeat(pd.Series(VALUES), 2),
    "sum(Series)": lambda a, xp: xp.sum(pd.Series(VALUES)),
    "mean(DataFrame, axis=0)": lambda a, xp: xp.mean(pd.DataFrame({"p": VALUES}), axis=0),
    "transpose(DataFrame)": lambda a, xp: xp.transpose(pd.DataFrame({"p": VALUES})),
    "where(Series > 2, array, 0)": lambda a, xp: xp.where(pd.Series(VALUES) > 2, a, 0),
}


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(PANDAS_UFUNCS))
def test_pandas_objects_decide_ufuncs(name, placement):
    call = PANDAS_UFUNCS[name]
    want = call(KEY.astype(float), np)
    with _under(placement):
        got = call(npjax.asarray(KEY.astype(float)), npjax)
    if not isinstance(want, np.ndarray):  # (an array: npjax's, with NumPy's values)
        assert type(got) is type(want)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    elif isinstance(want, pd.Series):
        pd.testing.assert_series_equal(got, want)
    else:
        assert_same(got, want)


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(PANDAS_CALLS))
def test_pandas_calls_that_convert(name, placement):
    call = PANDAS_CALLS[name]
    want = call(KEY, np)
    with _under(placement):
        got = call(npjax.asarray(KEY), npjax)
    np.testing.assert_array_equal(np.asarray(got), want)


# --- matplotlib ------------------------------------------------------------------------------

def _shade(z):
    import matplotlib
    from matplotlib.colors import LightSource

    return LightSource(azdeg=315, altdeg=45).shade(z, cmap=matplotlib.colormaps["viridis"],
                                                   vert_exag=2)


Z = np.sin(np.arange(48.0).reshape(6, 8) / 5.0)


# matplotlib's LightSource.hillshade makes ``np.empty(shape).view(type(elevation))``: NumPy's
# ``view`` takes a type only when it subclasses numpy.ndarray, else reads it as a dtype
# (``np.dtype(npjax.ndarray)`` is object) and refuses the view.
@pytest.mark.xfail(raises=TypeError, reason="numpy_array.view(type(x)) needs type(x) to be a "
                   "numpy.ndarray subclass; npjax.ndarray is not")
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_matplotlib_lightsource_shade(placement):
    pytest.importorskip("matplotlib")
    with _under(placement):
        got = _shade(npjax.asarray(Z))
    np.testing.assert_array_equal(np.asarray(got), _shade(Z))


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_matplotlib_lightsource_shade_of_asarray(placement):
    pytest.importorskip("matplotlib")
    with _under(placement):
        got = _shade(np.asarray(npjax.asarray(Z)))
    np.testing.assert_array_equal(got, _shade(Z))


# --- numpy.testing ---------------------------------------------------------------------------

# numpy.testing.assert_equal takes the array branch only for ``isinstance(x, np.ndarray)``;
# otherwise it ends in ``bool(desired == actual)``. npjax.testing hands it NumPy's data.
@pytest.mark.xfail(raises=ValueError, reason="numpy.testing.assert_equal tests isinstance(x, "
                   "numpy.ndarray) and then takes bool() of an elementwise comparison")
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_numpy_testing_assert_equal_of_npjax_arrays(placement):
    with _under(placement):
        np.testing.assert_equal(npjax.arange(3.0), [0.0, 1.0, 2.0])


ASSERTIONS = {
    "assert_equal with a list": ("assert_equal", lambda xp: (xp.arange(3.0), [0.0, 1.0, 2.0])),
    "assert_equal of two arrays": ("assert_equal", lambda xp: (xp.arange(3.0),
                                                               xp.arange(3.0))),
    "assert_equal of lists of arrays": ("assert_equal", lambda xp: ([xp.arange(2)],
                                                                    [xp.arange(2)])),
    "assert_equal of a dict": ("assert_equal", lambda xp: ({"a": xp.arange(2)},
                                                           {"a": [0, 1]})),
    "assert_equal of a scalar, strict": ("assert_equal", lambda xp: (
        xp.arange(3.0).sum(), np.float64(3.0))),
    "assert_equal of NaNs": ("assert_equal", lambda xp: (xp.array([np.nan, 1.0]),
                                                         [np.nan, 1.0])),
    "assert_equal of strings": ("assert_equal", lambda xp: (xp.array(["a", "b"]), ["a", "b"])),
    "assert_equal that fails": ("assert_equal", lambda xp: (xp.arange(3.0), [0.0, 1.0, 3.0])),
    "assert_almost_equal of two arrays": ("assert_almost_equal", lambda xp: (
        xp.arange(3.0), xp.arange(3.0) + 1e-9)),
    "assert_almost_equal that fails": ("assert_almost_equal", lambda xp: (
        xp.arange(3.0), xp.arange(3.0) + 1e-3)),
    "assert_allclose": ("assert_allclose", lambda xp: (xp.arange(3.0), [0.0, 1.0, 2.0])),
    "assert_array_less": ("assert_array_less", lambda xp: (xp.arange(3.0), xp.arange(3.0))),
    "assert_array_max_ulp": ("assert_array_max_ulp", lambda xp: (xp.arange(3.0),
                                                                 xp.arange(3.0))),
}


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(ASSERTIONS))
def test_npjax_testing_assertions(name, placement):
    """npjax.testing's value assertions: NumPy's outcome and message for the same values."""
    fname, make = ASSERTIONS[name]
    kwargs = {"strict": True} if "strict" in name else {}
    try:
        getattr(np.testing, fname)(*make(np), **kwargs)
        want = None
    except AssertionError as exc:
        want = str(exc)
    with _under(placement):
        try:
            getattr(npjax.testing, fname)(*make(npjax), **kwargs)
            got = None
        except AssertionError as exc:
            got = str(exc)
    assert got == want


def test_npjax_testing_keeps_numpy_testing_names():
    assert npjax.testing.assert_raises is np.testing.assert_raises
    assert npjax.testing.suppress_warnings is np.testing.suppress_warnings
    assert npjax.testing.HAS_REFCOUNT == np.testing.HAS_REFCOUNT
    assert set(np.testing.__all__) <= set(dir(npjax.testing))
    # assert_raises is NumPy's: the callable gets the npjax array as given
    npjax.testing.assert_raises(ValueError, bool, npjax.arange(3))


# --- what remains: the type checks themselves ------------------------------------------------

@pytest.mark.parametrize("placement", PLACEMENTS)
def test_npjax_arrays_are_not_numpy_arrays(placement):
    """The measured state: neither ``isinstance`` nor ``view(type(x))`` takes an npjax array,
    host or device. (A test that flips when host arrays become numpy.ndarray subclasses.)"""
    with _under(placement):
        x = npjax.arange(3.0, dtype=DEVICE_FLOAT if placement == "device" else None)
        assert not isinstance(x, np.ndarray)
        assert not issubclass(type(x), np.ndarray)
        with pytest.raises(TypeError, match="array of references"):
            np.empty(3).view(type(x))
        # what libraries that convert see: NumPy's data (a host array's own memory)
        assert type(np.asarray(x)) is np.ndarray
        assert (x._host() is not None) == (placement == "auto")
        if placement == "auto":
            assert np.shares_memory(np.asarray(x), x._host())
