"""The host route's direct paths for slice-and-scalar loops (issue 15): ``a[i, j] = v`` with
a number NumPy writes as it is, ``a[i, :j]`` reads, ``@`` of two views giving a NumPy scalar,
and a NumPy scalar on the left of an operator (``np.float64(2) * a``, through
``__array_ufunc__``). Each is checked against NumPy on the cases the direct path tells apart:
dtypes, 0-d arrays, views, negative and out-of-bounds indices, warnings at the user's line,
device operands."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT as F
from tests._parity import assert_same


@pytest.fixture(autouse=True)
def _auto():
    with npjax.policy(placement="auto", host_threshold=64):
        yield


VALUES = [1.5, -3, True, np.float64(2.25), np.float32(-0.5), np.int64(-7), np.int8(5),
          np.uint64(9), np.bool_(True), np.complex128(1 + 2j), np.float16(3.0), 10**30]
DTYPES = ["float64", "float32", "int64", "int8", "uint8", "bool", "complex128"]
INDICES = [2, -1, (1, 2), (-2, -1), (1, slice(None)), (slice(1, None), 0), slice(0, 2), ()]


def _pair(dtype):
    theirs = np.arange(12).reshape(3, 4).astype(dtype)
    return npjax.asarray(theirs.copy()), theirs


def _outcome(fn, *args):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            fn(*args)
            exc = None
        except Exception as e:  # the exception type is what is compared
            exc = type(e)
    return exc, [(w.category, str(w.message), w.filename) for w in seen]


def _set(a, index, value):
    a[index] = value


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_number_writes_match_numpy(dtype, value, index):
    """``a[index] = number``: NumPy's values, exceptions (overflow, complex into real) and
    warnings, whether or not the write takes the direct path."""
    ours, theirs = _pair(dtype)
    expected = _outcome(_set, theirs, index, value)
    got = _outcome(_set, ours, index, value)
    assert got[0] is expected[0]
    assert [w[:2] for w in got[1]] == [w[:2] for w in expected[1]]
    assert all(w[2] == __file__ for w in got[1])  # at the user's line, as NumPy's
    assert_same(ours, theirs)


@pytest.mark.parametrize("index", [(3, 0), (0, 4), (-4, 0), 3, (0, 0, 0)], ids=repr)
def test_number_writes_out_of_bounds_raise_numpys_error(index):
    ours, theirs = _pair("float64")
    with pytest.raises(IndexError) as want:
        theirs[index] = np.float64(1.0)
    with pytest.raises(IndexError) as got:
        ours[index] = np.float64(1.0)
    assert str(got.value) == str(want.value)


def test_number_writes_reach_views_and_respect_read_only_arrays():
    ours, theirs = _pair("float64")
    view = ours[1:, ::2]
    ours[2, 2] = np.float64(-1.0)
    theirs[2, 2] = -1.0
    assert_same(view, theirs[1:, ::2])
    view[0, 1] = 5.0  # a view's write: the general path, into the same memory
    theirs[1, 2] = 5.0
    assert_same(ours, theirs)
    ours.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ours[0, 0] = np.float64(1.0)
    with pytest.raises(ValueError, match="read-only"):
        ours[0] = 1.0


def test_number_writes_into_a_0d_array():
    zero_d, theirs = npjax.asarray(np.array(1.5)), np.array(1.5)
    zero_d[()] = np.float64(4.0)
    theirs[()] = 4.0
    assert_same(zero_d, theirs)
    zero_d[...] = 2
    theirs[...] = 2
    assert_same(zero_d, theirs)


def test_number_writes_with_device_arrays_in_the_index():
    ours, theirs = _pair("float64")
    with npjax.policy(placement="device"):
        i = npjax.asarray(1)
    ours[i, 2] = np.float64(8.0)
    theirs[1, 2] = 8.0
    assert_same(ours, theirs)


@pytest.mark.parametrize("index", [(1, slice(None, 2)), (-1, slice(None, None, -1)),
                                   (slice(1, None), 0), (1, 2), (-3, -4), (None, 1),
                                   (Ellipsis, 1), (1, Ellipsis, slice(1, 3))], ids=repr)
def test_tuple_reads_match_numpy_and_alias(index):
    ours, theirs = _pair("float64")
    got, want = ours[index], theirs[index]
    assert_same(got, want)
    if isinstance(want, np.ndarray):  # a view: writes through it reach the array
        assert got.base is ours and got._host() is not None
        got[...] = -1.0
        want[...] = -1.0
        assert_same(ours, theirs)
    else:
        assert type(got) is type(want)


@pytest.mark.parametrize("index", [(3, 0), (0, -5), (0, slice(None), 1)], ids=repr)
def test_tuple_reads_out_of_bounds_raise_numpys_error(index):
    ours, theirs = _pair("float64")
    with pytest.raises(IndexError) as want:
        theirs[index]
    with pytest.raises(IndexError) as got:
        ours[index]
    assert str(got.value) == str(want.value)


def test_tuple_reads_with_npjax_arrays_in_the_index():
    ours, theirs = _pair("float64")
    host_index = npjax.asarray(np.array([0, 2]))
    assert_same(ours[1, host_index], theirs[1, [0, 2]])
    with npjax.policy(placement="device"):
        device_index = npjax.asarray(np.array([0, 2]))
    got = ours[1, device_index]
    assert_same(got, theirs[1, [0, 2]])


def test_views_of_views_stay_views_of_the_root():
    ours, theirs = npjax.asarray(np.arange(10.0)), np.arange(10.0)
    rev = ours[:6][::-1]
    assert rev.base is ours
    rev[0] = 100.0
    theirs[:6][::-1][0] = 100.0
    assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
def test_matmul_of_views_gives_numpys_scalar(dtype):
    ours, theirs = _pair(dtype)
    got, want = ours[1, :3] @ ours[2, 1:], theirs[1, :3] @ theirs[2, 1:]
    assert type(got) is type(want) and got == want
    assert_same(ours[:2, :3] @ ours[1:, 1:].T, theirs[:2, :3] @ theirs[1:, 1:].T)


def test_matmul_overflow_warns_at_the_users_line():
    ours = npjax.asarray(np.full(4, 1e300))
    with pytest.warns(RuntimeWarning, match="overflow") as seen:
        got = ours[:2] @ ours[2:]
    assert got == np.inf and seen[0].filename == __file__


@pytest.mark.parametrize("scalar", [np.float64(1.5), np.float32(1.5), np.int8(3), np.uint64(2),
                                    np.complex64(1j), np.bool_(True)], ids=repr)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool"])
def test_numpy_scalar_on_the_left_of_a_view(scalar, dtype):
    """``s * a[:k]``: NumPy's scalar operator reaches ``__array_ufunc__``, which runs NumPy's
    ufunc on the host: NumPy's values and NEP 50 dtypes, a new host array."""
    ours, theirs = _pair(dtype)
    for op in (lambda s, x: s * x, lambda s, x: s + x, lambda s, x: s / x, lambda s, x: s ** x):
        with np.errstate(all="ignore"):
            try:
                want = op(scalar, theirs[1, ::-1])
            except TypeError:
                with pytest.raises(TypeError):
                    op(scalar, ours[1, ::-1])
                continue
            got = op(scalar, ours[1, ::-1])
        assert_same(got, want)
        assert got._host() is not None and got.base is None


def test_numpy_scalar_on_the_left_warns_at_the_users_line_and_follows_errstate():
    ours = npjax.asarray(np.zeros(3))
    with pytest.warns(RuntimeWarning, match="divide by zero") as seen:
        got = np.float64(1.0) / ours[1:]
    assert seen[0].filename == __file__
    with np.errstate(divide="ignore"):
        assert_same(got, np.float64(1.0) / np.zeros(2))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        np.float64(1.0) / ours[1:]


def test_numpy_scalar_on_the_left_of_a_device_array_or_a_large_result():
    with npjax.policy(placement="device"):
        device = npjax.asarray(np.arange(4.0, dtype=F))
    got = F(2.0) * device
    assert got._host() is None
    assert_same(got, F(2.0) * np.arange(4.0, dtype=F))
    large = npjax.asarray(np.arange(100.0, dtype=F))  # 100 elements: past the threshold of 64
    got = F(2.0) * large
    assert_same(got, F(2.0) * np.arange(100.0, dtype=F))
    assert got._host() is None
    assert npjax.stats()["placement"]["host_calls"].get("multiply", 0) >= 1
