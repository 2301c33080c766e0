"""Classical Gram–Schmidt QR, column by column (PolyBench gramschmidt style)."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "gram_schmidt", "linalg"
SIZES = {"small": dict(m=96, n=48), "large": dict(m=400, n=160)}
STATIC = ()


def setup(rng, m, n):
    return (rng.random((m, n)),)


def kernel(np, a):
    m, n = a.shape
    q = np.zeros((m, n))
    r = np.zeros((n, n))
    for j in range(n):
        v = a[:, j].copy()
        r[:j, j] = q[:, :j].T @ a[:, j]
        v -= q[:, :j] @ r[:j, j]
        r[j, j] = np.sqrt(v @ v)
        q[:, j] = v / r[j, j]
    return q


@jax.jit
def reference(a):
    m, n = a.shape
    idx = jnp.arange(n)

    def body(j, state):
        q, r = state
        col = a[:, j]
        proj = jnp.where(idx < j, q.T @ col, 0.0)
        v = col - q @ proj
        norm = jnp.sqrt(v @ v)
        r = r.at[:, j].set(jnp.where(idx == j, norm, proj))
        return q.at[:, j].set(v / norm), r
    return lax.fori_loop(0, n, body, (jnp.zeros((m, n)), jnp.zeros((n, n))))[0]
