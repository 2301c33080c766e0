"""Whitening of a data set as NumPy users write it: standard deviations floored with a mask
write (``std[std <= 0.1] = 1.0``), outliers clipped with a read-modify-write under a mask,
the mean of the positive entries as a masked reduction, then a Cholesky factorisation and a
triangular solve whose ``LinAlgError`` checks read a value (issue 17, causes 1 and 2)."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "whiten_checks", "masks"
SIZES = {"small": dict(n=2000, d=16, steps=5), "large": dict(n=20000, d=64, steps=10)}
STATIC = (1,)


def setup(rng, n, d, steps):
    x = rng.standard_normal((n, d)) * rng.random(d) * 3
    x[:, 0] = 0.05 * rng.standard_normal(n)  # one column with a tiny spread
    return x, steps


def kernel(np, x, steps):
    total = 0.0
    for _ in range(steps):
        mu = x.mean(axis=0)
        std = x.std(axis=0)
        std[std <= 0.1] = 1.0
        z = (x - mu) / std
        big = np.abs(z) > 3.0
        z[big] = np.sign(z[big]) * 3.0
        total = total + z[z > 0].mean()
        cov = z.T @ z / z.shape[0] + 1e-3 * np.eye(z.shape[1])
        L = np.linalg.cholesky(cov)
        x = np.linalg.solve(L, z.T).T
    return x.sum(axis=1) + total  # one array: the suite compares one result


@functools.partial(jax.jit, static_argnums=1)
def reference(x, steps):
    def body(_, state):
        x, total = state
        mu = jnp.mean(x, axis=0)
        std = jnp.std(x, axis=0)
        std = jnp.where(std <= 0.1, 1.0, std)
        z = (x - mu) / std
        z = jnp.clip(z, -3.0, 3.0)
        pos = z > 0
        total = total + jnp.sum(jnp.where(pos, z, 0.0)) / jnp.sum(pos)
        cov = z.T @ z / z.shape[0] + 1e-3 * jnp.eye(z.shape[1], dtype=x.dtype)
        L = jnp.linalg.cholesky(cov)
        return jax.scipy.linalg.solve_triangular(L, z.T, lower=True).T, total
    x, total = lax.fori_loop(0, steps, body, (x, jnp.zeros((), x.dtype)))
    return jnp.sum(x, axis=1) + total
