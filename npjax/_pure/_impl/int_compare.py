"""Comparisons of a signed with an unsigned integer, exact (NumPy's ``qQ->?`` loops).

JAX promotes int64 with uint64 to float64 before comparing, so ``2**60 + 1 > 2**60`` is
False there; these compare the integers themselves.
"""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp
import numpy as np

_U64 = np.dtype(np.uint64)


def _less(x, y):
    if x.dtype.kind == "i":
        return (x < 0) | (x.astype(_U64) < y.astype(_U64))
    return (y >= 0) & (x.astype(_U64) < y.astype(_U64))


def _equal(x, y):
    s, u = (x, y) if x.dtype.kind == "i" else (y, x)
    return (s >= 0) & (s.astype(_U64) == u.astype(_U64))


_MIXED = {
    "less": _less,
    "less_equal": lambda x, y: _less(x, y) | _equal(x, y),
    "greater": lambda x, y: _less(y, x),
    "greater_equal": lambda x, y: _less(y, x) | _equal(x, y),
    "equal": _equal,
    "not_equal": lambda x, y: ~_equal(x, y),
}


def exact_integers(name: str, inner: Callable) -> Callable:
    """``inner`` (a comparison ufunc's body), exact for a signed and an unsigned integer."""
    mixed = _MIXED[name]

    def impl(x, y):
        x, y = jnp.asarray(x), jnp.asarray(y)
        if {x.dtype.kind, y.dtype.kind} == {"i", "u"}:
            return mixed(x, y)
        return inner(x, y)

    return impl
