"""``_quotient.by_count`` against NumPy's ``float32(float64(x) / n)``, bit for bit: random
float32 bit patterns (subnormals, infinities, NaN, signed zeros) by counts up to its limit,
quotients near float32's rounding boundaries, subnormal results and counts of zero."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from npjax._pure import _quotient

_by_count = jax.jit(_quotient.by_count)


def _mismatches(num: np.ndarray, n: np.ndarray) -> list:
    num = np.asarray(num, np.float32)
    n = np.broadcast_to(np.asarray(n, np.int64), num.shape)
    with np.errstate(all="ignore"):
        want = (num.astype(np.float64) / n).astype(np.float32)
    got = np.asarray(_by_count(jnp.asarray(num), jnp.asarray(n.astype(np.int32))))
    same = (want.view(np.int32) == got.view(np.int32)) | (np.isnan(want) & np.isnan(got))
    return [(float(a), int(c), float(w), float(g))
            for a, c, w, g in zip(num[~same], n[~same], want[~same], got[~same])][:5]


@given(st.floats(width=32), st.integers(0, _quotient.LIMIT - 1))
def test_one_value_by_one_count(x, n):
    assert _mismatches(np.array([x]), np.array([n])) == []


def test_random_bit_patterns_by_counts_of_every_size():
    gen = np.random.default_rng(7)
    num = gen.integers(-2**31, 2**31, 100_000).astype(np.int32).view(np.float32)
    for n in (gen.integers(1, _quotient.LIMIT, num.size), gen.integers(1, 100, num.size),
              1, 3, 7, 65536, 4096000, _quotient.LIMIT - 1, 0):
        assert _mismatches(num, n) == [], n


def test_quotients_near_rounding_boundaries_and_subnormal_results():
    gen = np.random.default_rng(8)
    n = gen.integers(1, 64, 100_000)
    exact = gen.integers(2**23, 2**24, n.size).astype(np.float32)  # k * n / n = k
    assert _mismatches(exact * n.astype(np.float32), n) == []
    # float32 midpoints times n, rounded to float32: quotients just off a midpoint
    mid = (gen.integers(2**23, 2**24, n.size) * 2 + 1) * 2.0 ** -20
    assert _mismatches((mid * n).astype(np.float32), n) == []
    edge = np.array([1.1754942e-38, 1.1754944e-38, 2.3509887e-38, 3.5e-38, 1e-45, 4e-45,
                     3.4028235e38, 0.0, np.inf, np.nan], np.float32)
    for count in (1, 2, 3, 5, 7, 2**27, 0):
        assert _mismatches(np.concatenate([edge, -edge]), count) == [], count
    sub = gen.integers(1, 2**23, n.size).astype(np.int32).view(np.float32)
    assert _mismatches(sub, n) == []
