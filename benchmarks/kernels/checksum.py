"""Adler-32 checksum of a byte array, one element per Python iteration: integer ``+`` and
``%`` on array scalars (exact integer arithmetic), the two sums and the packed checksum
returned as an array."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "checksum", "scalar_loops"
SIZES = {"small": dict(n=1000), "large": dict(n=50_000)}
STATIC = ()


def setup(rng, n):
    return (rng.integers(0, 256, n).astype("uint8"),)


def kernel(np, data):
    MOD = 65521
    a = np.int64(1)
    b = np.int64(0)
    for x in data.astype(np.int64):  # uint8 + uint8 would wrap around
        a = (a + x) % MOD
        b = (b + a) % MOD
    return np.array([a, b, (b << 16) | a])


@jax.jit
def reference(data):
    MOD = 65521

    def step(carry, x):
        a, b = carry
        a = (a + x) % MOD
        return (a, (b + a) % MOD), None

    one, zero = jnp.int64(1), jnp.int64(0)
    (a, b), _ = lax.scan(step, (one, zero), data.astype(jnp.int64))
    return jnp.stack([a, b, (b << 16) | a])
