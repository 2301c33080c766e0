"""Small powers bit for bit as NumPy computes them: ``**`` (NumPy's fast_scalar_power: square,
reciprocal, sqrt), ``np.power``'s float fast path for scalar exponents, and the complex power
loop's products (each rounded, no fused multiply-add)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests.strategies import arrays, shapes

COMPLEX = [np.dtype(np.complex64), np.dtype(np.complex128)]
FLOAT = [np.dtype(np.float32), np.dtype(np.float64)]
# Float exponents NumPy answers without C's pow (others: libm/SVML pow, not reproducible).
FLOAT_EXPONENTS = [2, -1, 0.5, 2.0, -1.0, 1, 0, 1.0, 0.0]
COMPLEX_EXPONENTS = [2, 3, -1, 2.0, 3.0, -1.0, -2, 4, 7, 1, 0]


def _assert_bits(ours, theirs):
    got, want = np.asarray(ours), np.asarray(theirs)
    assert got.dtype == want.dtype and got.shape == want.shape
    for part in ((lambda a: a.real), (lambda a: a.imag)) if want.dtype.kind == "c" else (
            (lambda a: a),):
        g, w = part(got), part(want)
        # XLA on CPU flushes subnormal results to zero (a documented deviation)
        sub = (w != 0) & (np.abs(w) < np.finfo(w.dtype).tiny) & (g == 0)
        g, w = g[~sub], w[~sub]
        nan = np.isnan(w)
        assert (np.isnan(g) == nan).all(), (got, want)
        assert g[~nan].tobytes() == w[~nan].tobytes(), (got, want)


def _both(fn, a):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        _assert_bits(fn(npjax, npjax.asarray(a)), fn(np, a))


@given(arrays(st.sampled_from(COMPLEX), shapes(max_side=5)), st.sampled_from(COMPLEX_EXPONENTS))
def test_complex_small_powers(a, e):
    _both(lambda xp, x: x ** e, a)
    _both(lambda xp, x: xp.power(x, e), a)


@given(arrays(st.sampled_from(FLOAT), shapes(max_side=5)), st.sampled_from(FLOAT_EXPONENTS))
def test_float_fast_powers(a, e):
    _both(lambda xp, x: x ** e, a)
    _both(lambda xp, x: xp.power(x, e), a)


@given(arrays(st.sampled_from(COMPLEX + FLOAT), shapes(max_side=5)))
def test_square_is_the_product(a):
    _both(lambda xp, x: x ** 2 - x * x, a)
    _both(lambda xp, x: xp.square(x), a)
    _both(lambda xp, x: xp.reciprocal(x), a)


# Finite operands: with an infinite part NumPy's own answer depends on its loop (its SIMD
# loop gives inf+nanj for (0+infj) / (0+4.5e307j), its scalar path nan+nanj).
@given(arrays(st.sampled_from(COMPLEX), shapes(max_side=5), allow_nan=False,
              allow_infinity=False),
       arrays(st.sampled_from(COMPLEX), shapes(max_side=5), allow_nan=False,
              allow_infinity=False))
def test_complex_divide(a, b):
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return
    _both(lambda xp, x: x / (xp.asarray(b) if xp is npjax else b), a)


def test_mandelbrot_iteration_counts():
    """The published-script case: z = z**2 + c gives NumPy's iteration counts."""
    def run(xp):
        x = xp.linspace(-2.0, 0.5, 60)
        y = xp.linspace(-1.25, 1.25, 60)
        c = x[None, :] + 1j * y[:, None]
        z = xp.zeros_like(c)
        counts = xp.zeros(c.shape, dtype=int)
        for _ in range(40):
            inside = abs(z) <= 2
            z = xp.where(inside, z ** 2 + c, z)
            counts = counts + inside
        return np.asarray(counts), np.asarray(z)
    with np.errstate(all="ignore"):
        ours, theirs = run(npjax), run(np)
    assert (ours[0] == theirs[0]).all()
    _assert_bits(ours[1], theirs[1])
