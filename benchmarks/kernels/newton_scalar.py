"""Scalar-heavy code: Newton's method for the roots of a polynomial, one starting point at a
time, with Horner evaluation of p and p' on array scalars (``x = starts[k]``, coefficients
taken one by one out of an array), each root stored into a result array."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "newton_scalar", "scalars"
SIZES = {"small": dict(deg=8, m=8, iters=6), "large": dict(deg=8, m=600, iters=8)}
STATIC = (2,)


def setup(rng, deg, m, iters):
    numpy = __import__("numpy")
    roots = numpy.arange(1.0, deg + 1.0) + 0.2 * (rng.random(deg) - 0.5)  # simple, apart
    coeffs = numpy.poly(roots)  # highest degree first
    # Each start within 0.3 of a root: Newton converges to that root in a few steps.
    starts = roots[rng.integers(0, deg, m)] + 0.3 * (rng.random(m) - 0.5)
    return coeffs, starts, iters


def kernel(np, coeffs, starts, iters):
    out = np.empty_like(starts)
    for k in range(starts.shape[0]):
        x = starts[k]
        for _ in range(iters):
            p = coeffs[0]
            dp = 0.0
            for c in coeffs[1:]:
                dp = dp * x + p
                p = p * x + c
            x = x - p / dp
        out[k] = x
    return out


@functools.partial(jax.jit, static_argnums=2)
def reference(coeffs, starts, iters):
    def newton(_, x):  # all starting points at once
        def horner(i, pd):
            p, dp = pd
            return p * x + coeffs[i], dp * x + p
        p, dp = lax.fori_loop(1, coeffs.shape[0], horner,
                              (jnp.full_like(x, coeffs[0]), jnp.zeros_like(x)))
        return x - p / dp
    return lax.fori_loop(0, iters, newton, starts)
