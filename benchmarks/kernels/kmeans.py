"""Lloyd's k-means: distances, labels, centroid update by a loop over clusters."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "kmeans", "ml"
SIZES = {"small": dict(n=2000, k=8, iters=10), "large": dict(n=100_000, k=16, iters=20)}
STATIC = (2,)


def setup(rng, n, k, iters):
    centers = rng.random((k, 2)) * 10
    x = centers[rng.integers(0, k, n)] + rng.standard_normal((n, 2))
    return x, x[:k].copy(), iters


def kernel(np, x, c, iters):
    k = c.shape[0]
    for _ in range(iters):
        d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
        labels = d.argmin(axis=1)
        for j in range(k):
            m = labels == j
            count = m.sum()
            c[j] = (x * m[:, None]).sum(axis=0) / np.maximum(count, 1)
    return c


@functools.partial(jax.jit, static_argnums=2)
def reference(x, c, iters):
    k = c.shape[0]

    def body(_, c):
        d = jnp.sum((x[:, None, :] - c[None, :, :]) ** 2, axis=2)
        onehot = jax.nn.one_hot(jnp.argmin(d, axis=1), k, dtype=x.dtype)
        counts = jnp.maximum(onehot.sum(axis=0), 1)
        return (onehot.T @ x) / counts[:, None]
    return lax.fori_loop(0, iters, body, c)
