"""Levenshtein edit distance between two small integer sequences: the dynamic-programming
table filled cell by cell in two nested Python loops (scalar reads, a Python ``if`` on an
array comparison, the builtin ``min`` of three array scalars, a scalar store)."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "edit_distance", "scalar_loops"
SIZES = {"small": dict(m=20, n=24), "large": dict(m=150, n=160)}
STATIC = ()


def setup(rng, m, n):
    # DNA-like alphabet of 4 symbols.
    return rng.integers(0, 4, m), rng.integers(0, 4, n)


def kernel(np, a, b):
    m, n = a.shape[0], b.shape[0]
    D = np.zeros((m + 1, n + 1), dtype=np.int64)
    D[:, 0] = np.arange(m + 1)
    D[0, :] = np.arange(n + 1)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D


@jax.jit
def reference(a, b):
    # Row by row: t[j] = min(up + 1, diagonal + cost) (t[0] = i), then the left-to-right
    # recurrence D[i, j] = min(t[j], D[i, j - 1] + 1) is j + cummin(t[k] - k).
    m, n = a.shape[0], b.shape[0]
    cols = jnp.arange(n + 1, dtype=jnp.int64)
    D = jnp.zeros((m + 1, n + 1), jnp.int64).at[:, 0].set(jnp.arange(m + 1)).at[0].set(cols)

    def body(i, D):
        up = D[i - 1]
        cost = (a[i - 1] != b).astype(jnp.int64)
        t = jnp.concatenate([jnp.full(1, i, jnp.int64),
                             jnp.minimum(up[1:] + 1, up[:-1] + cost)])
        return D.at[i].set(cols + lax.cummin(t - cols))
    return lax.fori_loop(1, m + 1, body, D)
