"""Real ``log1p``, ``arctanh`` and ``exp2`` on the device within a few ulps of NumPy's (the C
library's), where XLA's lose digits: float64 ``log1p`` near -0.41 (128 ulps: it takes
``log(1 + x)`` there) and so ``arctanh``; ``exp2`` of large arguments (83 ulps: it takes
``exp(x * ln 2)``). Complex arguments go to JAX's functions as they are."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

# float dtype -> (integer type of its bits, mantissa bits, exponent bias, largest |n| of exp2)
_BITS = {np.dtype(np.float64): (np.int64, 52, 1023, 2000),
         np.dtype(np.float32): (np.int32, 23, 127, 250)}


def log1p(x):
    """Kahan's ``log1p``: ``log(u) * x / (u - 1)`` with ``u = 1 + x`` (``x`` where ``u`` is 1,
    ``log(u)`` from ``2**mantissa bits`` up, where ``u`` is ``x`` to the last bit and a
    TPU's division by ``u - 1`` would flush: its reciprocal is subnormal near the largest
    float, and ``log1p(3.4e38)`` came out 0)."""
    if x.dtype.kind != "f":
        return jnp.log1p(x)
    u = lax.optimization_barrier(1 + x)  # (XLA would simplify (1 + x) - 1 to x)
    d = u - 1
    plain = (d == 0) | (x >= 2.0 ** _BITS[x.dtype][1])
    exact = jnp.log(u) * (x / jnp.where(plain, 1, d))
    return jnp.where(plain | jnp.isinf(u), jnp.where(d == 0, x, jnp.log(u)), exact)


def arctanh(x):
    """glibc's: ``0.5 * log1p(2a + 2a*a / (1 - a))`` below 0.5, ``0.5 * log1p(2a / (1 - a))``
    above, for ``a = |x|``, with the sign of ``x``."""
    if x.dtype.kind != "f":
        return jnp.arctanh(x)
    a = jnp.abs(x)
    small = 2 * a + 2 * a * a / (1 - a)
    t = jnp.where(a < 0.5, small, 2 * a / (1 - a))
    return jnp.copysign(0.5 * log1p(t), x)


def _pow2(n, dtype):
    """2**n for integers n of the normal range, built from its bits (exact)."""
    ints, mant, bias, _ = _BITS[dtype]
    return lax.bitcast_convert_type((n.astype(ints) + bias) << mant, dtype)


def exp2(x):
    """``2**n * exp2(f)`` for ``x = n + f``, ``|f| <= 0.5``: the power exact, in two halves."""
    dt = np.dtype(x.dtype)
    if dt not in _BITS:
        return jnp.exp2(x)
    limit = _BITS[dt][3]
    finite = jnp.isfinite(x)
    n = jnp.clip(jnp.round(jnp.where(finite, x, 0)), -limit, limit)
    f = jnp.where(finite, x, 0) - n
    half = jnp.trunc(n / 2)
    m = jnp.exp2(f) * _pow2(half, dt) * _pow2(n - half, dt)
    return jnp.where(finite, m, jnp.exp2(x))

