"""Cholesky factorisation by columns (Cholesky–Banachiewicz), one Python loop."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "cholesky", "linalg"
SIZES = {"small": dict(n=48), "large": dict(n=160)}
STATIC = ()


def setup(rng, n):
    m = rng.random((n, n))
    return (m @ m.T + n * __import__("numpy").eye(n),)


def kernel(np, a):
    n = a.shape[0]
    L = np.zeros_like(a)
    for j in range(n):
        L[j, j] = np.sqrt(a[j, j] - L[j, :j] @ L[j, :j])
        L[j + 1:, j] = (a[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L


@jax.jit
def reference(a):
    n = a.shape[0]
    idx = jnp.arange(n)

    def body(j, L):
        row = jnp.where(idx < j, L[j, :], 0.0)
        d = jnp.sqrt(a[j, j] - row @ row)
        col = (a[:, j] - L @ row) / d
        col = jnp.where(idx > j, col, jnp.where(idx == j, d, 0.0))
        return L.at[:, j].set(col)
    return lax.fori_loop(0, n, body, jnp.zeros_like(a))
