"""1-D viscous Burgers' equation, explicit upwind/central scheme, periodic ends."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "cfd_1d", "stencil"
SIZES = {"small": dict(n=1001, steps=100), "large": dict(n=100_001, steps=500)}
STATIC = (1,)


def setup(rng, n, steps):
    import numpy
    x = numpy.linspace(0.0, 2 * numpy.pi, n)
    return 1.0 + 0.5 * numpy.sin(x) + 0.01 * rng.random(n), steps


def kernel(np, u, steps):
    n = u.shape[0]
    dx = 2 * 3.141592653589793 / (n - 1)
    nu, dt = 0.07, 0.1 * (2 * 3.141592653589793 / (n - 1)) ** 2 / 0.07 * 0.5
    for _ in range(steps):
        un = u.copy()
        u[1:-1] = (un[1:-1] - un[1:-1] * dt / dx * (un[1:-1] - un[:-2])
                   + nu * dt / dx ** 2 * (un[2:] - 2 * un[1:-1] + un[:-2]))
        u[0] = (un[0] - un[0] * dt / dx * (un[0] - un[-2])
                + nu * dt / dx ** 2 * (un[1] - 2 * un[0] + un[-2]))
        u[-1] = u[0]
    return u


@functools.partial(jax.jit, static_argnums=1)
def reference(u, steps):
    n = u.shape[0]
    dx = 2 * 3.141592653589793 / (n - 1)
    nu, dt = 0.07, 0.1 * (2 * 3.141592653589793 / (n - 1)) ** 2 / 0.07 * 0.5

    def body(_, u):
        left = jnp.concatenate([u[-2:-1], u[:-2]])  # u[i-1], periodic at i = 0
        right = u[1:]
        mid = u[:-1]
        new = (mid - mid * dt / dx * (mid - left)
               + nu * dt / dx ** 2 * (right - 2 * mid + left))
        return jnp.concatenate([new, new[:1]])
    return lax.fori_loop(0, steps, body, u)
