"""A float32 divided by an element count, as NumPy rounds it, in 32-bit integer steps.

NumPy's ``mean``, ``var`` and their nan-variants of float32 data divide the float32 sum by
the count (an ``intp``): a float64 division, then a cast to float32. That double rounding is
exact for counts below ``LIMIT``: the float64 quotient of a 24-bit significand by such a
count is never close enough to a float32 rounding boundary to change the float32 result, so
NumPy's answer is the correctly rounded float32 quotient (larger counts keep the float64
division). Where float64 is a host dtype (a TPU), a float64 division
would send the program to the host's CPU backend, and the chip's float32 division is up to 2
ulps off (``benchmarks/results/tpu/ulps_arithmetic_chip.md``); ``by_count`` computes the
correctly rounded quotient with int32 long division instead (subnormal results included), so
the program stays on the chip.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["LIMIT", "LIMIT_COMPLEX", "by_count"]

# counts below which NumPy's float64 step never moves the float32 result: a quotient of a
# 24-bit significand by n is at least 2 ** -(25 + log2 n) (relative) from a float32 rounding
# boundary, and NumPy's float64 division is within 2 ** -53 (complex: a product by 1 / n,
# within 2 ** -52) of the exact quotient
LIMIT = 1 << 28
LIMIT_COMPLEX = 1 << 27

_I32 = np.dtype(np.int32)
_STEPS = 32  # quotient bits: 26 significant ones after at most 5 leading zeros (see below)


def by_count(num: Any, count: Any) -> Any:
    """``float32(float64(num) / count)``: ``num`` float32, ``count`` integers below
    ``LIMIT`` (broadcast against ``num``); a count of 0 or less gives ``num / 0.0`` (inf
    or NaN; callers replace the results of negative counts)."""
    bits = lax.bitcast_convert_type(num, jnp.int32)
    expo = (bits >> 23) & 0xFF
    frac = bits & 0x7FFFFF
    # |num| = m * 2 ** (e - 150) with m in [2**23, 2**24): a subnormal's significand moved up
    m = jnp.where(expo == 0, frac, frac | 0x800000)
    shift = jnp.maximum(lax.clz(m) - 8, 0)
    m = m << shift
    e = jnp.maximum(expo, 1) - shift
    n = jnp.broadcast_to(count, num.shape).astype(_I32)
    n_safe = jnp.maximum(n, 1)
    # long division: the integer part, then one bit a step until the quotient holds 26 bits
    # (m / n > 2**23 / 2**28, so at most 5 leading zero bits come first)
    q, r = m // n_safe, m % n_safe
    took = jnp.zeros_like(m)  # fraction bits taken

    def step(_: int, state: tuple) -> tuple:
        q, r, took = state
        more = q < (1 << 25)
        r2 = r << 1
        bit = (r2 >= n_safe).astype(_I32)
        return (jnp.where(more, (q << 1) | bit, q), jnp.where(more, r2 - bit * n_safe, r),
                took + more.astype(_I32))

    q, r, took = lax.fori_loop(0, _STEPS, step, (q, r, took))
    # exact quotient = (q + r / n) * 2 ** e0, q in [2**25, 2**26); keep 24 bits (fewer where
    # the result is subnormal: float32's last bit is 2 ** -149), rounded half to even
    e0 = e - 150 - took
    drop = jnp.clip(-149 - e0, 2, 27)
    kept = q >> drop
    guard = (q >> (drop - 1)) & 1
    rest = ((q & ((1 << (drop - 1)) - 1)) != 0) | (r != 0)
    kept = kept + (guard & (rest | ((kept & 1) == 1)).astype(_I32))
    # kept * 2 ** (e0 + drop) as bits, no float arithmetic (XLA's CPU backend flushes a
    # subnormal product to zero): a subnormal's bits are kept itself (e0 + drop = -149), a
    # normal's exponent field counts from there, the carry of a rounding included
    out_bits = jnp.where(kept == 0, 0, ((e0 + drop + 149) << 23) + kept)
    out = lax.bitcast_convert_type(out_bits | (bits & np.int32(-(1 << 31))), jnp.float32)
    # inf, NaN and zero are their own quotients; by no count: NaN for 0 and NaN, else inf
    nan = (expo == 0xFF) & (frac != 0)
    inf = lax.bitcast_convert_type((bits & np.int32(-(1 << 31))) | 0x7F800000, jnp.float32)
    by_zero = jnp.where(nan | (m == 0), jnp.float32(np.nan), inf)
    return jnp.where(n <= 0, by_zero, jnp.where((expo == 0xFF) | (m == 0), num, out))
