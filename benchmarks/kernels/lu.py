"""LU decomposition without pivoting (Doolittle), in place, one Python loop over columns."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "lu", "linalg"
SIZES = {"small": dict(n=48), "large": dict(n=160)}
STATIC = ()


def setup(rng, n):
    return (rng.random((n, n)) + n * __import__("numpy").eye(n),)


def kernel(np, a):
    n = a.shape[0]
    for k in range(n - 1):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


@jax.jit
def reference(a):
    n = a.shape[0]
    idx = jnp.arange(n)

    def body(k, a):
        below = idx > k
        col = jnp.where(below, a[:, k] / a[k, k], a[:, k])
        a = a.at[:, k].set(col)
        upd = jnp.outer(jnp.where(below, col, 0.0), jnp.where(below, a[k, :], 0.0))
        return a - upd
    return lax.fori_loop(0, n - 1, body, a)
