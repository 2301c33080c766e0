"""Monte Carlo pricing of a European call (given normal samples) plus a pi estimate."""

import jax
import jax.numpy as jnp

NAME, KIND = "monte_carlo", "elementwise"
SIZES = {"small": dict(n=200_000), "large": dict(n=8_000_000)}
STATIC = ()


def setup(rng, n):
    # Samples are inputs so that every implementation sees the same numbers.
    return rng.standard_normal(n), rng.random(n), rng.random(n)


def kernel(np, z, u, v):
    s0, k, r, sigma, t = 100.0, 105.0, 0.03, 0.2, 1.0
    s = s0 * np.exp((r - 0.5 * sigma ** 2) * t + sigma * t ** 0.5 * z)
    s -= k
    np.maximum(s, 0.0, out=s)
    price = np.exp(-r * t) * s.mean()
    pi = 4.0 * (u * u + v * v <= 1.0).mean()
    return np.stack([price, pi])


@jax.jit
def reference(z, u, v):
    s0, k, r, sigma, t = 100.0, 105.0, 0.03, 0.2, 1.0
    s = s0 * jnp.exp((r - 0.5 * sigma ** 2) * t + sigma * t ** 0.5 * z)
    price = jnp.exp(-r * t) * jnp.maximum(s - k, 0.0).mean()
    pi = 4.0 * (u * u + v * v <= 1.0).mean()
    return jnp.stack([price, pi])
