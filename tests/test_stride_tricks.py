"""``npjax.lib``: NumPy's ``numpy.lib`` names, and ``stride_tricks`` views compared with NumPy
(values, dtypes, shapes, strides, flags, aliasing, exceptions)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import assert_parity, assert_same
from tests.strategies import ALL, arrays, shapes
from tests.test_shape_ops import assert_alias_parity


def _layout(v):
    return v.shape, v.strides, v.flags.writeable, v.flags.c_contiguous, v.base is not None


def test_version_is_numpys():
    assert npjax.__version__ == np.__version__


def test_lib_mirrors_numpy_lib():
    ours = {n for n in dir(npjax.lib) if not n.startswith("_")}
    assert ours >= {n for n in dir(np.lib) if not n.startswith("_")}
    assert npjax.lib.scimath is npjax.emath
    assert npjax.lib.stride_tricks.sliding_window_view is not \
        np.lib.stride_tricks.sliding_window_view
    assert npjax.lib.NumpyVersion is np.lib.NumpyVersion
    assert npjax.lib.NumpyVersion(npjax.__version__) == np.__version__
    with pytest.raises(AttributeError):
        npjax.lib.no_such_name  # noqa: B018


@given(data=st.data(), dtype=st.sampled_from(ALL))
def test_sliding_window_view_values(data, dtype):
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3, max_side=5)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    window = data.draw(st.integers(0, x.shape[axis] + 1))
    assert_parity(lambda xp: xp.lib.stride_tricks.sliding_window_view(xp.asarray(x), window,
                                                                       axis=axis),
                  context=(x, window, axis))


@pytest.mark.parametrize(("shape", "window", "axis"), [
    ((5,), 3, None), ((4, 5), (2, 3), None), ((4, 5), (2, 2), (1, 1)), ((3, 4, 5), 2, -1),
    ((4, 5), (2, 3), (1, 0)), ((4,), 5, None), ((4,), -1, None), ((4, 5), 2, None),
    ((4, 5), (2, 2), 2), ((4, 5), (2,), (0, 1)), ((), 1, None),
])
def test_sliding_window_view_cases(shape, window, axis):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    assert_parity(lambda xp: xp.lib.stride_tricks.sliding_window_view(xp.asarray(x), window,
                                                                      axis),
                  context=(shape, window, axis))
    try:
        expected = np.lib.stride_tricks.sliding_window_view(x, window, axis)
    except ValueError:
        return
    ours = npjax.lib.stride_tricks.sliding_window_view(npjax.asarray(x), window, axis)
    assert _layout(ours) == _layout(expected)


def test_sliding_window_view_reads_later_writes_and_is_read_only():
    seen = []
    for xp in (np, npjax):
        x = xp.arange(6.0)
        v = xp.lib.stride_tricks.sliding_window_view(x, 3)
        x[2] = 50.0
        with pytest.raises(ValueError):
            v[0, 0] = 1.0
        seen.append(v)
    assert_same(seen[1], seen[0])


@pytest.mark.parametrize("index", [(0, 1), (1, 0), (-1, -1), (1, slice(None))])
def test_sliding_window_view_writeable_writes_back(index):
    def write(xp, v):
        v[index] = -7

    assert_alias_parity(lambda xp: xp.arange(12).reshape(3, 4),
                        lambda xp, a: xp.lib.stride_tricks.sliding_window_view(
                            a, (2, 2), writeable=True), write)


def test_numpy_function_dispatches_to_npjax():
    x = npjax.arange(5.0)
    v = np.lib.stride_tricks.sliding_window_view(x, 2)
    assert isinstance(v, npjax.ndarray)
    assert_same(v, np.lib.stride_tricks.sliding_window_view(np.arange(5.0), 2))


@pytest.mark.parametrize(("make", "shape", "strides"), [
    (lambda xp: xp.arange(10.0), (4, 3), (16, 8)),
    (lambda xp: xp.arange(12).reshape(3, 4)[:, 1:], (2, 5), (32, 8)),
    (lambda xp: xp.arange(12).reshape(3, 4).T, (4, 2), (8, 32)),
    (lambda xp: xp.arange(6.0).reshape(2, 3).copy(order="F"), (6,), (8,)),
    (lambda xp: xp.arange(5, dtype=xp.int32)[::-1], (3,), (-4,)),
    (lambda xp: xp.arange(4.0), (3, 3), (0, 8)),
    (lambda xp: xp.arange(4.0), None, None),
    (lambda xp: xp.ones((1, 10, 10), "i8"), None, (-1, 80, 8)),  # (length 1: any stride)
])
def test_as_strided(make, shape, strides):
    assert_parity(lambda xp: xp.lib.stride_tricks.as_strided(make(xp), shape, strides))
    expected = np.lib.stride_tricks.as_strided(make(np), shape, strides)
    ours = npjax.lib.stride_tricks.as_strided(make(npjax), shape, strides)
    assert _layout(ours) == _layout(expected)


@pytest.mark.parametrize("index", [(0, 0), (1, 2), (-1, slice(None))])
def test_as_strided_writes_back(index):
    def write(xp, v):
        v[index] = -3.0

    assert_alias_parity(lambda xp: xp.arange(10.0),
                        lambda xp, a: xp.lib.stride_tricks.as_strided(a[1:], (3, 4), (16, 8)),
                        write)


def test_as_strided_read_only_and_outside_memory():
    for xp in (np, npjax):
        v = xp.lib.stride_tricks.as_strided(xp.arange(4.0), (2,), (8,), writeable=False)
        assert not v.flags.writeable
        w = xp.lib.stride_tricks.as_strided(xp.broadcast_to(xp.arange(2.0), (2, 2)))
        assert not w.flags.writeable
    with pytest.raises(ValueError, match="outside the array's memory"):  # NumPy reads junk
        npjax.lib.stride_tricks.as_strided(npjax.arange(4.0), (5,), (8,))
    with pytest.raises(NotImplementedError):
        npjax.lib.stride_tricks.as_strided(npjax.arange(4.0), (2,), (4,))
