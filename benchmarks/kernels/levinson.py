"""Levinson's algorithm for a symmetric positive definite Toeplitz system (Golub & Van Loan,
Algorithm 4.7.2): one Python loop over k with dot products and updates on the growing slices
``r[:k]``, ``x[:k][::-1]``, ``y[:k][::-1]`` (a new shape every step)."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "levinson", "slices"
SIZES = {"small": dict(n=32), "large": dict(n=600)}
STATIC = ()


def setup(rng, n):
    # T[i, j] = r[|i - j| - 1] off the diagonal, 1 on it; sum 2 |r| <= 0.8 keeps T well
    # conditioned (diagonally dominant).
    numpy = __import__("numpy")
    r = 0.4 * 0.5 ** numpy.arange(n - 1) * (rng.random(n - 1) - 0.5)
    return r, rng.random(n)


def kernel(np, r, b):
    n = b.shape[0]
    x = np.zeros(n)
    y = np.zeros(n)
    y[0] = -r[0]
    x[0] = b[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, n):
        beta = (1.0 - alpha * alpha) * beta
        mu = (b[k] - r[:k] @ x[:k][::-1]) / beta
        x[:k] = x[:k] + mu * y[:k][::-1]
        x[k] = mu
        if k < n - 1:
            alpha = (-r[k] - r[:k] @ y[:k][::-1]) / beta
            y[:k] = y[:k] + alpha * y[:k][::-1]
            y[k] = alpha
    return x


@jax.jit
def reference(r, b):
    n = b.shape[0]
    idx = jnp.arange(n)
    rp = jnp.concatenate([r, jnp.zeros(1, r.dtype)])  # r[n - 1] is never used

    def rev(v, k):  # v[:k][::-1], zero-padded to length n
        return jnp.where(idx < k, v[jnp.clip(k - 1 - idx, 0, n - 1)], 0.0)

    def body(k, state):
        x, y, alpha, beta = state
        head = jnp.where(idx < k, rp, 0.0)
        beta = (1.0 - alpha * alpha) * beta
        mu = (b[k] - head @ rev(x, k)) / beta
        x = jnp.where(idx < k, x + mu * rev(y, k), x).at[k].set(mu)
        alpha = (-rp[k] - head @ rev(y, k)) / beta
        y = jnp.where(idx < k, y + alpha * rev(y, k), y).at[k].set(alpha)
        return x, y, alpha, beta

    x0 = jnp.zeros(n).at[0].set(b[0])
    y0 = jnp.zeros(n).at[0].set(-r[0])
    return lax.fori_loop(1, n, body, (x0, y0, -r[0], jnp.asarray(1.0, b.dtype)))[0]
