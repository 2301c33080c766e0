"""Windows whose length changes on the eager device path (``npjax._core._window_reads``):
NumPy is the oracle for values, dtypes and shapes; ``npjax.stats()`` counts the programs a
loop compiles. Float sums and products of windows add zeros past the length, so they equal
NumPy's up to the order of the additions (``tests/tolerances.py``); integers are exact."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npjax
from npjax._core import _window_reads
from npjax._pure import _dtypes
from benchmarks.growing_windows import levinson as _levinson
from tests._parity import DEVICE_FLOAT
from tests.tolerances import tolerance

_FULL = os.environ.get("HYPOTHESIS_PROFILE", "ci") in ("full", "thorough")


def _same(got, want, dtype=None):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, **tolerance(dtype or want.dtype))


def _programs() -> int:
    return npjax.stats()["compiles"]["count"]


def test_levinson_matches_numpy_and_compiles_per_bucket():
    n = 301  # buckets 256 and 512; a root length no other test uses
    r0 = 0.5 ** np.arange(1, n + 1) * (1 + 0.1 * np.random.default_rng(1).random(n))
    want = _levinson(np, r0, n)
    with npjax.policy(placement="device"):
        r = npjax.asarray(r0)
        npjax.reset_stats()
        got = _levinson(npjax, r, n)
        compiled = _programs()
        _same(got, want)
        npjax.reset_stats()  # the same lengths again: nothing new
        _same(_levinson(npjax, npjax.asarray(r0), n), want)
        assert _programs() == 0
    assert compiled <= 4 * 9  # issue 16: at most 4 log2(n) programs (it was ~6 per length)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32, np.int32])
def test_growing_dot_matmul_sum(dtype):
    n = 263
    rng = np.random.default_rng(2)
    a0 = rng.integers(-9, 9, n).astype(dtype)
    b0 = rng.integers(-9, 9, n).astype(dtype)
    with npjax.policy(placement="device"):
        a, b = npjax.asarray(a0), npjax.asarray(b0)
        for k in [0, 1, 2, 5, 256, 257, n - 1, n]:
            _same(a[:k] @ b[:k], a0[:k] @ b0[:k])
            _same(npjax.dot(a[k:][::-1], b[:n - k]), np.dot(a0[k:][::-1], b0[:n - k]))
            _same(a[:k][::-1].sum(), a0[:k][::-1].sum())
            _same(a[n - k:].sum(), a0[n - k:].sum())


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_growing_update_with_reversed_window(dtype):
    n = 277
    y0 = np.arange(1, n + 1).astype(dtype)
    want = y0.copy()
    with npjax.policy(placement="device"):
        y = npjax.asarray(y0)
        for k in range(0, n + 1, 7):
            want[:k] += 3 * want[:k][::-1]
            y[:k] += 3 * y[:k][::-1]
            _same(y, want)
            want[k // 2:k] = want[:k - k // 2] - 1
            y[k // 2:k] = y[:k - k // 2] - 1
            _same(y, want)


def test_triangular_solve_rows_and_columns():
    n = 71
    rng = np.random.default_rng(3)
    A0 = rng.random((n, n)) + n * np.eye(n)
    b0 = rng.random(n)
    x0 = np.zeros(n)
    with npjax.policy(placement="device"):
        A, b, x = npjax.asarray(A0), npjax.asarray(b0), npjax.zeros(n)
        npjax.reset_stats()
        for k in range(n):
            x0[k] = (b0[k] - A0[k, :k] @ x0[:k]) / A0[k, k]
            x[k] = (b[k] - A[k, :k] @ x[:k]) / A[k, k]
            _same(A[:k, k] @ x[:k], A0[:k, k] @ x0[:k])  # a column: stride n
        _same(x, x0)
        assert _programs() <= 16


def test_results_are_arrays_of_the_window_length():
    n = 289
    y0 = np.linspace(-1, 1, n).astype(DEVICE_FLOAT)
    with npjax.policy(placement="device"):
        y = npjax.asarray(y0)
        for k in (3, 4, 280):
            got = 2.0 * y[:k][::-1] + y[:k]
            want = 2.0 * y0[:k][::-1] + y0[:k]
            assert got.shape == (k,) and len(got) == k
            _same(got, want)
            _same(got[1:3], want[1:3])
            _same(npjax.max(got), np.max(want))
            # a later length: the result is padded, itself a window (3 was the exact path)
            assert (_window_reads.window(got) is None) == (k == 3)
            # a new array to the user, as NumPy's result: no base, owns its data
            assert got.base is None and got.flags.owndata == want.flags.owndata
            view = got[1:]  # a view aliases it (its ``base``: see docs/architecture.md)
            view[0] = 7.0
            assert float(got[1]) == 7.0


def test_store_casts_as_numpy_and_refuses_complex():
    n = 291
    with npjax.policy(placement="device"):
        f = npjax.zeros(n)
        i = npjax.arange(n)
        want = np.zeros(n)
        for k in (5, 9, 260):
            f[1:k + 1] = i[:k][::-1]
            want[1:k + 1] = np.arange(n)[:k][::-1]
            _same(f, want)
        c = npjax.asarray(np.arange(n) * 1j)
        with pytest.warns(np.exceptions.ComplexWarning):
            for k in (5, 9):
                f[:k] = c[:k]


def test_floating_point_warnings_only_inside_the_window():
    n = 293
    y0 = np.zeros(n)
    y0[100:] = 1.0
    with npjax.policy(placement="device"):
        y = npjax.asarray(y0)
        for k in (10, 20, 90):  # 1 / y[:k] would divide by zero; y[100:] never is
            with np.errstate(divide="raise"):
                _same(1.0 / y[n - k:], 1.0 / y0[n - k:])
        with pytest.warns(RuntimeWarning, match="divide by zero"):
            out = 1.0 / y[:30]
        with np.errstate(divide="ignore"):
            _same(out, 1.0 / y0[:30])


def test_growing_loop_compiles_once_per_bucket():
    n = 613
    rng = np.random.default_rng(4)
    r0, y0 = rng.random(n), rng.random(n)
    with npjax.policy(placement="device"):
        r, y = npjax.asarray(r0), npjax.asarray(y0)
        npjax.reset_stats()
        for k in range(1, n):
            s = r[:k] @ y[:k]
            t = r[:k].sum()
        _same(s, r0[:-1] @ y0[:-1])
        _same(t, r0[:-1].sum())
        # 3 buckets (256, 512, 1024), each with its read, product, sum and NumPy-order sum
        # (and at most two exact-path programs of the first length): it was 3 per length
        assert _programs() <= 16


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 300), st.integers(0, 300), st.booleans(),
       st.sampled_from([np.float64, np.int64, np.int32]))
def test_windows_against_numpy(k, start, reverse, dtype):
    n = 301
    x0 = (np.arange(n) % 17 - 8).astype(dtype)
    y0 = (np.arange(n) % 5 - 2).astype(dtype)
    k = min(k, n - start)
    with npjax.policy(placement="device"):
        x, y = npjax.asarray(x0), npjax.asarray(y0)
        for length in (k, max(k - 1, 0)):  # two lengths: the second takes the buckets
            w0, w = x0[start:start + length], x[start:start + length]
            if reverse:
                w0, w = w0[::-1], w[::-1]
            _same(w @ y[:length], w0 @ y0[:length])
            _same(w.sum(), w0.sum())
            _same(w * 2 - y[:length], w0 * 2 - y0[:length])
            want = y0.copy()
            want[:length] -= w0
            y[:length] -= w
            _same(y, want)
            y0 = want


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.complex64])
@pytest.mark.parametrize("order", ["short_first", "long_first"])
def test_window_sums_are_numpys_whatever_lengths_came_first(dtype, order):
    """A float sum of a window is NumPy's pairwise sum of its length, bit for bit, whether
    the window took the exact path (the first length of its family) or a bucket, and so
    does not depend on the lengths the process saw before (hunt item 6)."""
    if np.dtype(dtype).name in _dtypes.backend_host_dtypes():
        pytest.skip(f"{np.dtype(dtype)} arrays are host arrays on this backend")
    rng = np.random.default_rng(7)
    x0 = rng.standard_normal(3001).astype(dtype)
    if x0.dtype.kind == "c":
        x0 = (x0 + 1j * rng.standard_normal(3001)).astype(dtype)
    # (CI: both ends and a bucket edge on each side; HYPOTHESIS_PROFILE=full/thorough: all)
    lengths = [5, 100, 129, 300, 1000, 2999] if _FULL else [5, 129, 1000, 2999]
    if order == "long_first":
        lengths = lengths[::-1]
    with npjax.policy(placement="device"):
        x = npjax.asarray(x0)
        for k in lengths:
            for start in (0, 1, 3001 - k):
                for w, w0 in ((x[start:start + k], x0[start:start + k]),
                              (x[start:start + k][::-1], x0[start:start + k][::-1]),
                              (x[start:start + k:2], x0[start:start + k:2])):
                    got, want = w.sum(), w0.sum()
                    assert type(got) is npjax.ndarray and got.dtype == want.dtype
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (k, start)
