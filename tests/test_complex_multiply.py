"""Complex products on the device are NumPy's bit for bit: its SIMD multiply loop on this
CPU (fused multiply-adds where the CPU has them), in eager calls, lazy mode and npjax.jit,
for random values and for infinities, NaNs, signed zeros and overflow. (XLA's own complex
multiply fuses the other product of the imaginary part: a last-bit difference in about a
third of the products, and nan where NumPy gives an infinity.)"""

from __future__ import annotations

import numpy as np
import pytest

import npjax

pytestmark = pytest.mark.device_placement

_REAL = {np.complex128: np.float64, np.complex64: np.float32}
# (subnormal results are left out: XLA's CPU backend flushes them to zero, README)
_SPECIAL = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e38, 1e308, 1.5, -2.0])


def _values(dtype, kind):
    if kind == "random":
        rng = np.random.default_rng(5)
        a = rng.standard_normal((2, 500)) + 1j * rng.standard_normal((2, 500))
        return a[0].astype(dtype), a[1].astype(dtype)
    with np.errstate(all="ignore"):
        s = (_SPECIAL[:, None] + 1j * _SPECIAL[None, :]).ravel().astype(dtype)
    a, b = np.meshgrid(s, s)
    return a.ravel(), b.ravel()


def _assert_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    g, w = got.view(_REAL[want.dtype.type]), want.view(_REAL[want.dtype.type])
    same = ((g == w) & (np.signbit(g) == np.signbit(w))) | (np.isnan(g) & np.isnan(w))
    assert same.all(), (got[~same.reshape(got.shape + (2,)).all(-1)][:3],
                        want[~same.reshape(got.shape + (2,)).all(-1)][:3])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("kind", ["random", "special"])
@pytest.mark.parametrize("mode", ["eager", "lazy", "jit"])
def test_complex_products_are_numpys(dtype, kind, mode):
    a, b = _values(dtype, kind)

    def kernel(xp, x, y):
        p = x * y
        q = xp.multiply(p, y)  # a product of a product, fused under jit and lazy mode
        x *= y  # in place
        return p, q, x

    with np.errstate(all="ignore"):
        want = kernel(np, a.copy(), b)
    with npjax.errstate(all="ignore"):
        args = npjax.array(a), npjax.array(b)
        if mode == "jit":
            got = npjax.jit(kernel, static_argnums=(0,))(npjax, *args)
        else:
            with npjax.policy(mode=mode):
                got = kernel(npjax, *args)
    for g, w in zip(got, want):
        _assert_bits(g, w)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_times_real_and_python_scalars_are_numpys(dtype):
    a, b = _values(dtype, "random")
    r = b.real.copy()
    got = [npjax.array(a) * npjax.array(r), npjax.array(r) * npjax.array(a),
           npjax.array(a) * (1.25 - 0.5j), (3 + 1j) * npjax.array(a)]
    want = [a * r, r * a, a * (1.25 - 0.5j), (3 + 1j) * a]
    for g, w in zip(got, want):
        _assert_bits(g, w)
