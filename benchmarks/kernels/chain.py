"""The elementwise chain sqrt(x*x + 2*x + 1).sum() (the issue's fusion example)."""

import jax
import jax.numpy as jnp

NAME, KIND = "chain", "elementwise"
SIZES = {"small": dict(n=2_000_000), "large": dict(n=20_000_000)}
STATIC = ()


def setup(rng, n):
    return (rng.random(n),)


def kernel(np, x):
    return np.sqrt(x * x + 2 * x + 1).sum()


@jax.jit
def reference(x):
    return jnp.sqrt(x * x + 2 * x + 1).sum()
