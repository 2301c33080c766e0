"""Floyd–Warshall all-pairs shortest paths: one in-place minimum per intermediate vertex."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "floyd_warshall", "graph"
SIZES = {"small": dict(n=64), "large": dict(n=256)}
STATIC = ()


def setup(rng, n):
    d = rng.random((n, n)) * 10
    d[rng.random((n, n)) < 0.7] = 1e9
    d[range(n), range(n)] = 0.0
    return (d,)


def kernel(np, d):
    n = d.shape[0]
    for k in range(n):
        np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :], out=d)
    return d


@jax.jit
def reference(d):
    def body(k, d):
        col = lax.dynamic_slice_in_dim(d, k, 1, axis=1)
        row = lax.dynamic_slice_in_dim(d, k, 1, axis=0)
        return jnp.minimum(d, col + row)
    return lax.fori_loop(0, d.shape[0], body, d)
