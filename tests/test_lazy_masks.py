"""Lazy mode with boolean masks and ``ufunc.at`` on the CPU backend.

A mask read's length depends on the data: its value is NumPy's, kept on the host, so that a
loop whose counts change compiles no program per count. ``ufunc.at`` with operands in host
memory is NumPy's own (values, dtypes, errors), not XLA's scatter. Each test compares with
NumPy and counts what the old code did more of (programs compiled, flushes).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import npjax

# The counts hold where NumPy reads device buffers in place: the CPU backend.
CPU = jax.default_backend() == "cpu"

LAZY = dict(mode="lazy", placement="auto")
N = 300  # 90000 elements: device arrays under lazy mode's host limit


def _program_compiles() -> int:
    return npjax.stats()["compiles"]["by_function"].get("jit(program)", 0)


def _whiten(xp, x, steps):
    total = 0.0
    for _ in range(steps):
        std = x.std(axis=0)
        std[std <= 0.1] = 1.0
        z = (x - x.mean(axis=0)) / std
        big = xp.abs(z) > 1.5
        z[big] = xp.sign(z[big]) * 1.5
        total = total + z[z > 0].mean()
        x = z * 1.1 + 0.01
    return x, total


def test_mask_loop_matches_numpy_without_a_program_per_count():
    x = np.random.default_rng(1).standard_normal((N, N)) * np.linspace(0.05, 3, N)
    want_x, want_t = _whiten(np, x.copy(), 6)
    npjax.reset_stats()
    with npjax.policy(**LAZY):
        got_x, got_t = _whiten(npjax, npjax.asarray(x), 6)
        got_x = np.asarray(got_x)
    np.testing.assert_allclose(got_x, want_x, rtol=1e-12, atol=1e-12)
    assert float(got_t) == pytest.approx(want_t, rel=1e-12)
    assert got_x.dtype == want_x.dtype and got_x.shape == want_x.shape
    # counts of True change at every trip: the old code compiled a program for most of them
    if CPU:
        assert _program_compiles() <= 8
        # one flush per mask whose count is needed (the old code: three for ``z[big] = ...``)
        assert npjax.stats()["lazy"]["flushes"] <= 2 * 6 + 1


@pytest.mark.parametrize("placement", ["auto", "device"])
@pytest.mark.parametrize("index", ["mask", "rows", "tuple"])
def test_mask_read_values_dtype_shape(index, placement):
    x = np.random.default_rng(2).standard_normal((N, N))
    with npjax.policy(mode="lazy", placement=placement):
        a = npjax.asarray(x) * 2.0
        if index == "mask":
            want, got = (x * 2.0)[x * 2.0 > 1.0], a[a > 1.0]
        elif index == "rows":
            want, got = (x * 2.0)[x[:, 0] > 0], a[a[:, 0] > 0]
        else:
            want, got = (x * 2.0)[x[:, 0] > 0, 1:3], a[a[:, 0] > 0, 1:3]
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
        got += 1.0  # a copy, as NumPy's: the source is unchanged
        np.testing.assert_array_equal(np.asarray(a), x * 2.0)


def test_mask_read_shape_error_is_numpys():
    x = np.ones((N, N))
    with npjax.policy(**LAZY):
        a = npjax.asarray(x) + 0.0
        with pytest.raises(IndexError) as got:
            a[npjax.asarray(np.ones((N, N - 1), bool))]
    with pytest.raises(IndexError) as want:
        x[np.ones((N, N - 1), bool)]
    assert str(got.value) == str(want.value)


def test_sign_of_a_pending_value_stays_pending():
    x = np.random.default_rng(3).standard_normal(N * N)
    with npjax.policy(**LAZY):
        a = npjax.asarray(x) * 3.0
        npjax.reset_stats()
        s = npjax.sign(a)
        assert npjax.stats()["lazy"]["flushes"] == 0  # the old code computed ``a`` here
        np.testing.assert_array_equal(np.asarray(s), np.sign(x * 3.0))


def _histogram(xp, x, bins):
    idx = xp.floor((x + 4.0) * (bins / 8.0)).astype(xp.int64)
    xp.clip(idx, 0, bins - 1, out=idx)
    counts = xp.zeros(bins, dtype=xp.int64)
    xp.add.at(counts, idx, 1)
    return counts


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_add_at_counts_exact(placement):
    x = np.random.default_rng(4).standard_normal(200_000)
    want = _histogram(np, x, 64)
    with npjax.policy(mode="lazy", placement=placement):
        got = np.asarray(_histogram(npjax, npjax.asarray(x), 64))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_add_at_compiles_nothing(placement):
    n = 123_457 if placement == "auto" else 123_458  # a length no other test compiled for
    idx = np.random.default_rng(6).integers(0, 256, n)
    want = np.zeros(256, np.int64)
    np.add.at(want, idx, 1)
    with npjax.policy(mode="lazy", placement=placement):
        i = npjax.asarray(idx) + 0
        counts = npjax.zeros(256, dtype=npjax.int64)
        float(i[0])  # computed: what follows is add.at alone
        before = npjax.stats()["compiles"]["count"]
        npjax.add.at(counts, i, 1)
        got = np.asarray(counts)
        # the old code compiled a scatter kernel and eager index kernels per length
        assert npjax.stats()["compiles"]["count"] == before or not CPU
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_ufunc_at_floats_and_index_forms(placement):
    rng = np.random.default_rng(5)
    idx = rng.integers(-50, 50, 100_000)
    vals = rng.standard_normal(100_000)
    want = np.zeros(50)
    np.add.at(want, idx, vals)  # repeated indices, in order: NumPy's sums exactly
    want2 = np.ones((50, 4))
    np.multiply.at(want2, (idx[:100] // 2 + 25, slice(1, 3)), 1.5)
    with npjax.policy(mode="lazy", placement=placement):
        got = npjax.zeros(50)
        npjax.add.at(got, npjax.asarray(idx) + 0, npjax.asarray(vals) * 1.0)
        got2 = npjax.ones((50, 4))
        npjax.multiply.at(got2, (npjax.asarray(idx[:100]) // 2 + 25, slice(1, 3)), 1.5)
        got, got2 = np.asarray(got), np.asarray(got2)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got2, want2)


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_add_at_out_of_bounds_is_numpys_error(placement):
    idx = np.arange(100_000) % 7
    idx[5000] = 7
    want = np.zeros(7, np.int64)
    with pytest.raises(IndexError) as raised:
        np.add.at(want, idx, 1)
    with npjax.policy(mode="lazy", placement=placement):
        got = npjax.zeros(7, np.int64)
        with pytest.raises(IndexError) as got_raised:
            npjax.add.at(got, npjax.asarray(idx) * 1, 1)
        got = np.asarray(got)
    assert str(got_raised.value) == str(raised.value)
    np.testing.assert_array_equal(got, want)  # nothing added, as NumPy


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_linalg_checks_are_numpys_lapack(placement):
    rng = np.random.default_rng(7)
    z = rng.standard_normal((2003, 37))  # device-sized; shapes no other test compiled for
    cov = z.T @ z / z.shape[0] + 1e-3 * np.eye(37)
    want_l = np.linalg.cholesky(cov)
    want_x = np.linalg.solve(want_l, z.T)
    with npjax.policy(mode="lazy", placement=placement):
        zj = npjax.asarray(z) * 1.0
        c = zj.T @ zj / zj.shape[0] + 1e-3 * npjax.eye(37)
        before = npjax.stats()["compiles"]["by_function"]
        lo = npjax.linalg.cholesky(c)
        x = npjax.linalg.solve(lo, zj.T)
        inv = npjax.linalg.inv(lo)
        after = npjax.stats()["compiles"]["by_function"]
        # the old code compiled XLA's LU and Cholesky programs for these shapes
        assert not CPU or not {"jit(solve)", "jit(cholesky)", "jit(inv)"} & {
            k for k in after if after[k] != before.get(k, 0)}
        got_l, got_x = np.asarray(lo), np.asarray(x)
        assert x.shape == want_x.shape and x.dtype == want_x.dtype
        exact = dict(rtol=0, atol=0) if CPU else dict(rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got_l, np.linalg.cholesky(np.asarray(c)), **exact)
        np.testing.assert_allclose(got_x, np.linalg.solve(got_l, z.T), **exact)
        np.testing.assert_allclose(np.asarray(inv), np.linalg.inv(got_l), **exact)
        singular = npjax.zeros((N, N)) + npjax.ones(N)
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            npjax.linalg.solve(singular, npjax.ones(N))
        with pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"):
            npjax.linalg.cholesky(-npjax.eye(N) * 1.0)
    np.testing.assert_allclose(got_x, want_x, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("placement", ["auto", "device"])
@pytest.mark.parametrize("case", ["flat", "rows", "lead", "host_mask", "int"])
def test_mask_write_one_value_per_true_element(case, placement):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((N, N))
    want = x.copy()
    with npjax.policy(mode="lazy", placement=placement):
        a = npjax.asarray(x) + 0.0
        if case == "flat":
            m = x > 0.5
            want[m] = np.arange(m.sum()) * 0.5
            a[a > 0.5] = npjax.asarray(np.arange(m.sum()) * 0.5)
        elif case == "rows":
            m = x[:, 0] > 0
            want[m] = np.arange(m.sum())[:, None] * 1.0
            a[a[:, 0] > 0] = npjax.asarray(np.arange(m.sum())[:, None] * 1.0)
        elif case == "lead":
            m = x[:, 1] > 1.0
            v = -np.arange(m.sum() * N).reshape(1, -1, N)
            want[m] = v
            a[a[:, 1] > 1.0] = npjax.asarray(v)
        elif case == "host_mask":
            m = x < -1.0
            want[m] = x[m] * 2
            a[m] = a[m] * 2
        else:
            want = (x * 100).astype(np.int64)
            a = (a * 100).astype(npjax.int64)
            m = want % 3 == 0
            want[m] = want[m] // 3
            a[a % 3 == 0] = a[a % 3 == 0] // 3
        got = np.asarray(a)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
