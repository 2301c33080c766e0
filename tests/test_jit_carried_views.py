"""Loops whose body rebinds a name to a view of an array it made (``x = solve(L, z.T).T``)
roll under ``npjax.jit`` (``_compile/_loop_views``): the view is carried as its array's
value and made anew, with NumPy's layout, at each iteration. Compared with NumPy: values,
dtypes, the final view's strides and flags, warnings; and loops where another name holds
the array too stay unrolled."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from tests.test_jit_loops import check_reports


def transposed_copies(xp, x, steps):
    for _ in range(steps):
        z = (x - x.mean(axis=0)) / (x.std(axis=0) + 1.0)
        x = (z * 0.5 + 1.0).T.copy().T  # a transposed view of a new (d, n) array
    return x


def boxed(xp, x, steps):
    for _ in range(steps):
        x = xp.concatenate([x * 0.5, x + 1.0])[2:2 + x.shape[0]]  # a box of a new array
    return x


def strided_rows(xp, x, steps):
    for _ in range(steps):
        x = xp.repeat(x * 0.75 + 0.5, 2, axis=0)[::2]  # every other row of a new array
    return x


def two_holders(xp, x, steps):
    for _ in range(steps):
        b = (x * 0.5).T.copy()
        x = b.T  # b and x share the new array: not carried as a view
    return x, b


def whitening(xp, x, steps):
    total = 0.0
    for _ in range(steps):
        mu = x.mean(axis=0)
        std = x.std(axis=0)
        z = (x - mu) / std
        total = total + z[z > 0].mean()
        cov = z.T @ z / z.shape[0] + 1e-3 * xp.eye(z.shape[1])
        x = xp.linalg.solve(xp.linalg.cholesky(cov), z.T).T
    return x.sum(axis=1) + total


def _data(n=12, d=3, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


def _layout(a):  # (npjax arrays report NumPy's layout)
    return a.shape, a.strides, a.flags["C_CONTIGUOUS"], a.flags["F_CONTIGUOUS"], \
        a.flags["OWNDATA"]


@pytest.mark.parametrize("kernel", [transposed_copies, boxed, strided_rows])
def test_a_name_rebound_to_a_view_of_a_new_array_rolls(kernel):
    jitted = check_reports(kernel, _data(), 12, static=(1,), reruns=False)
    got = jitted(npjax, npjax.array(_data()), 12)
    want = kernel(np, _data(), 12)
    assert _layout(got) == _layout(want)
    assert got.base is not None and want.base is not None


def test_a_view_of_the_argument_before_the_loop_is_carried_too():
    def kernel(xp, x, steps):
        x = x.T
        for _ in range(steps):
            x = (x + 1.0).T.copy().T
        return x
    check_reports(kernel, _data().T.copy(), 11, static=(1,), reruns=False)


def test_a_new_array_another_name_also_holds_stays_unrolled():
    check_reports(two_holders, _data(), 12, static=(1,), rolled=False, reruns=False)


def test_short_loops_with_a_carried_view_unroll():
    check_reports(transposed_copies, _data(), 6, static=(1,), rolled=False, reruns=False)


def test_a_whitening_loop_with_linalg_rolls_and_matches_numpy():
    jitted = npjax.jit(whitening, static_argnums=(0, 2))
    x = _data(64, 4, seed=3)
    got = np.asarray(jitted(npjax, npjax.array(x), 12))
    want = whitening(np, x.copy(), 12)
    assert [o.rolled for o in jitted.loops] == [True]
    # LAPACK and XLA's Cholesky and triangular solves differ in the last bits
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert got.dtype == want.dtype and got.shape == want.shape


def test_an_overflow_in_a_carried_view_warns_as_numpy():
    def kernel(xp, x, steps):
        for _ in range(steps):
            x = (x * 1e30).T.copy().T
        return x
    check_reports(kernel, _data(), 12, static=(1,))


def test_a_float32_whitening_loop_in_lazy_mode_compiles():
    """float32 data becomes float64 at the first step (``xp.eye``'s float64) and ``total``
    a NumPy scalar: the carried values change kind, so the loop is traced unrolled, after
    a probe of its body. Under the lazy policy that probe read the carried view through a
    recorded read, which kept its value, a tracer of the probe: the trace then raised
    ``UnexpectedTracerError`` and every call ran eagerly (whiten_checks in the suite, on
    the CPU and the TPU)."""
    jitted = npjax.jit(whitening, static_argnums=(0, 2))
    x = _data(64, 4, seed=3).astype(np.float32)
    with npjax.policy(mode="lazy"):
        got = np.asarray(jitted(npjax, npjax.array(x), 12))
    want = whitening(np, x.copy(), 12)
    assert jitted._last[1].eager is None, jitted._last[1].eager_why
    assert [o.body_runs for o in jitted.loops] == [12]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    assert got.dtype == want.dtype == np.float64 and got.shape == want.shape
