"""Windows whose length changes, in lazy mode (``npjax._core._window_reads``): growing-slice
loops record their window reads, products, sums, ufuncs and writes at bucketed lengths, so
they compile per bucket, not per length; a host view paired with a device window is padded
by NumPy. NumPy is the oracle for values, dtypes and shapes (float sums of windows add zeros
past the length: equal up to the order of the additions, ``tests/tolerances.py``; integers
exact); ``npjax.stats()`` counts the programs compiled."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from benchmarks.growing_windows import levinson as _levinson
from benchmarks.kernels.forward_subst import kernel as _solve
from tests._parity import DEVICE_FLOAT
from tests._op_rows import THOROUGH
from tests.test_windows_eager import _same
from tests.test_windows_eager import \
    test_window_sums_are_numpys_whatever_lengths_came_first as _eager_window_sums


def _compiles() -> int:
    return npjax.stats()["compiles"]["count"]


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_forward_substitution_compiles_per_bucket(placement):
    # L has more elements than the host limit: on the device under "auto" too, while x and
    # b stay on the host there (``L[i, :i] @ x[:i]``: a device window and a host view)
    n = 307  # buckets 256 and 512; a length no other test uses
    rng = np.random.default_rng(5)
    L0 = np.tril(rng.random((n, n)) - 0.5, -1) * (2.0 / n) + np.diag(1.0 + rng.random(n))
    b0 = rng.random(n)
    want = _solve(np, L0, b0)
    with npjax.policy(mode="lazy", placement=placement):
        L, b = npjax.asarray(L0), npjax.asarray(b0)
        npjax.reset_stats()
        got = _solve(npjax, L, b)
        _same(got, want)
        compiled = _compiles()
        npjax.reset_stats()  # the same lengths again (long graphs may be cut elsewhere)
        _same(_solve(npjax, npjax.asarray(L0), npjax.asarray(b0)), want)
        assert _compiles() <= 4
    assert compiled <= 12  # it was one program per length (~n)


def test_levinson_lazy_device_matches_numpy():
    n = 97  # (long graphs, not a flush per iteration: a correctness check)
    r0 = 0.5 ** np.arange(1, n + 1) * (1 + 0.1 * np.random.default_rng(6).random(n))
    want = _levinson(np, r0, n)
    with npjax.policy(mode="lazy", placement="device"):
        _same(_levinson(npjax, npjax.asarray(r0), n), want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_growing_dot_matmul_sum(dtype):
    n = 269
    rng = np.random.default_rng(7)
    a0 = rng.integers(-9, 9, n).astype(dtype)
    b0 = rng.integers(-9, 9, n).astype(dtype)
    with npjax.policy(mode="lazy", placement="device"):
        a, b = npjax.asarray(a0), npjax.asarray(b0)
        npjax.reset_stats()
        for k in [0, 1, 2, 5, 9, 256, 257, n - 1, n]:
            _same(a[:k] @ b[:k], a0[:k] @ b0[:k])
            _same(npjax.dot(a[k:][::-1], b[:n - k]), np.dot(a0[k:][::-1], b0[:n - k]))
            _same(npjax.matmul(a[:k], b[n - k:]), np.matmul(a0[:k], b0[n - k:]))
            _same(a[:k][::-1].sum(), a0[:k][::-1].sum())
            _same(a[n - k:].sum(), a0[n - k:].sum())
        compiled = _compiles()
        npjax.reset_stats()
        for k in range(3, n, 11):  # more lengths of the same buckets: nothing new
            _same(a[:k] @ b[:k], a0[:k] @ b0[:k])
            _same(a[:k][::-1].sum(), a0[:k][::-1].sum())
        assert _compiles() == 0
    assert compiled <= 40


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_growing_update_with_reversed_window(dtype):
    n = 281
    y0 = np.arange(1, n + 1).astype(dtype)
    want = y0.copy()
    with npjax.policy(mode="lazy", placement="device"):
        y = npjax.asarray(y0)
        npjax.reset_stats()
        for k in range(0, n + 1, 5):
            want[:k] += 3 * want[:k][::-1]
            y[:k] += 3 * y[:k][::-1]
            want[k // 2:k] = want[:k - k // 2] - 1
            y[k // 2:k] = y[:k - k // 2] - 1
            assert y[k // 2].item() == want[k // 2]  # a read: a graph per iteration
            if k % 50 == 0:
                _same(y, want)
        _same(y, want)
        assert _compiles() <= 30  # it was a program per length (57 lengths)


def test_ufuncs_of_windows_are_arrays_of_the_window_length():
    n = 311
    y0 = np.linspace(-1, 1, n)
    with npjax.policy(mode="lazy", placement="device"):
        y = npjax.asarray(y0)
        npjax.reset_stats()
        for k in range(2, n, 3):
            got = 2.0 * y[:k][::-1] + npjax.sqrt(npjax.abs(y[n - k:]))
            assert got.shape == (k,)
            got.sum().item()  # a read: a graph per iteration
            if k % 30 == 2:
                _same(got, 2.0 * y0[:k][::-1] + np.sqrt(np.abs(y0[n - k:])))
        assert _compiles() <= 20


@pytest.mark.parametrize("placement", ["auto", "device"])
@pytest.mark.parametrize("hdtype", [DEVICE_FLOAT, np.int32])
def test_device_window_with_host_view(placement, hdtype):
    n = 293  # A on the device (over the host limit), h on the host under "auto"
    rng = np.random.default_rng(8)
    A0 = rng.random((n, n)).astype(DEVICE_FLOAT)  # (float32 where float64 is a host dtype)
    h0 = rng.integers(-5, 5, n).astype(hdtype)
    with npjax.policy(mode="lazy", placement=placement):
        A, h = npjax.asarray(A0), npjax.asarray(h0)
        npjax.reset_stats()
        for k in range(0, n + 1, 4):
            _same(A[k % n, :k] @ h[:k], A0[k % n, :k] @ h0[:k])
            _same(h[:k][::-1] @ A[:k, k % n], h0[:k][::-1] @ A0[:k, k % n])
            _same(npjax.dot(A[k % n, n - k:], h[:k]), np.dot(A0[k % n, n - k:], h0[:k]))
        assert _compiles() <= 24  # 74 lengths: it was a program per length and product


def test_eager_device_window_with_host_view():
    n = 297
    rng = np.random.default_rng(9)
    A0, h0 = rng.random((n, n)), rng.random(n)
    # eager, A on the device (over the threshold), h on the host
    with npjax.policy(placement="auto", host_threshold=2**16):
        A, h = npjax.asarray(A0), npjax.asarray(h0)
        npjax.reset_stats()
        for k in range(0, n + 1, 3):
            _same(A[k % n, :k] @ h[:k], A0[k % n, :k] @ h0[:k])
        assert _compiles() <= 12


def test_floating_point_checks_see_only_the_window():
    n = 299
    y0 = np.zeros(n)
    y0[100:] = 1.0
    with npjax.policy(mode="lazy", placement="device"):
        y = npjax.asarray(y0)
        for k in (10, 20, 90, 95):  # 1 / y[:k] would divide by zero; y[100:] never is
            with np.errstate(divide="raise"):
                got = 1.0 / y[n - k:]
                _same(got, 1.0 / y0[n - k:])  # (its padded lanes: zeros, never checked)
        with pytest.warns(RuntimeWarning, match="divide by zero"):
            out = 1.0 / y[:30]
            out = np.asarray(out)  # lazy mode: the warning comes with the value
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal(out, 1.0 / y0[:30])


# (7 s each: the eager test runs every dtype; here float32 and complex64 but in the
# thorough profiles)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64] + (
    [np.float64, np.float16] if THOROUGH else []))
@pytest.mark.parametrize("order", ["short_first", "long_first"])
def test_window_sums_are_numpys_whatever_lengths_came_first(dtype, order):
    """Hunt item 6 in lazy mode: a float sum of a window is NumPy's pairwise sum of its
    length bit for bit, whatever window lengths the process recorded before."""
    with npjax.policy(placement="device", mode="lazy"):
        _eager_window_sums(dtype, order)
