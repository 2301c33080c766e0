"""Jacobi iteration for the 2-D Laplace equation (5-point stencil, in-place interior update)."""

import functools

import jax
from jax import lax

NAME, KIND = "jacobi_2d", "stencil"
SIZES = {"small": dict(n=128, steps=50), "large": dict(n=1024, steps=100)}
STATIC = (1,)


def setup(rng, n, steps):
    u = rng.random((n, n))
    u[0, :] = 1.0
    return u, steps


def kernel(np, u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


@functools.partial(jax.jit, static_argnums=1)
def reference(u, steps):
    def body(_, u):
        return u.at[1:-1, 1:-1].set(
            0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]))
    return lax.fori_loop(0, steps, body, u)
