"""Game of Life written as NumPy users write it: neighbour counts from slices, then boolean
mask writes into a view of the interior, in a time loop (the count of true cells changes
every step)."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "life", "masks"
SIZES = {"small": dict(h=64, w=128, steps=30), "large": dict(h=300, w=600, steps=100)}
STATIC = (1,)


def setup(rng, h, w, steps):
    return (rng.random((h, w)) < 0.3).astype("int64"), steps


def kernel(np, Z, steps):
    for _ in range(steps):
        N = (Z[0:-2, 0:-2] + Z[0:-2, 1:-1] + Z[0:-2, 2:] +
             Z[1:-1, 0:-2] + Z[1:-1, 2:] +
             Z[2:, 0:-2] + Z[2:, 1:-1] + Z[2:, 2:])
        birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
        survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
        Z[...] = 0
        Z[1:-1, 1:-1][birth | survive] = 1
    return Z


@functools.partial(jax.jit, static_argnums=1)
def reference(Z, steps):
    def body(_, Z):
        N = (Z[0:-2, 0:-2] + Z[0:-2, 1:-1] + Z[0:-2, 2:] + Z[1:-1, 0:-2] + Z[1:-1, 2:]
             + Z[2:, 0:-2] + Z[2:, 1:-1] + Z[2:, 2:])
        inner = Z[1:-1, 1:-1]
        alive = ((N == 3) & (inner == 0)) | (((N == 2) | (N == 3)) & (inner == 1))
        return jnp.zeros_like(Z).at[1:-1, 1:-1].set(alive.astype(Z.dtype))
    return lax.fori_loop(0, steps, body, Z)
