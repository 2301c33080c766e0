"""Explicit heat equation in 3-D (7-point stencil), two buffers swapped by copying back."""

import functools

import jax
from jax import lax

NAME, KIND = "heat_3d", "stencil"
SIZES = {"small": dict(n=32, steps=20), "large": dict(n=128, steps=50)}
STATIC = (1,)


def setup(rng, n, steps):
    return rng.random((n, n, n)), steps


def kernel(np, a, steps):
    b = a.copy()
    for _ in range(steps):
        b[1:-1, 1:-1, 1:-1] = a[1:-1, 1:-1, 1:-1] + 0.125 * (
            a[2:, 1:-1, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[:-2, 1:-1, 1:-1]
            + a[1:-1, 2:, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1]
            + a[1:-1, 1:-1, 2:] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, 1:-1, :-2])
        a[...] = b
    return a


@functools.partial(jax.jit, static_argnums=1)
def reference(a, steps):
    def body(_, a):
        c = a[1:-1, 1:-1, 1:-1]
        lap = (a[2:, 1:-1, 1:-1] - 2.0 * c + a[:-2, 1:-1, 1:-1]
               + a[1:-1, 2:, 1:-1] - 2.0 * c + a[1:-1, :-2, 1:-1]
               + a[1:-1, 1:-1, 2:] - 2.0 * c + a[1:-1, 1:-1, :-2])
        return a.at[1:-1, 1:-1, 1:-1].set(c + 0.125 * lap)
    return lax.fori_loop(0, steps, body, a)
