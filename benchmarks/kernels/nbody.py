"""Direct-sum gravitational n-body, leapfrog-style steps with in-place updates."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "nbody", "particles"
SIZES = {"small": dict(n=256, steps=10), "large": dict(n=2048, steps=20)}
STATIC = (3,)


def setup(rng, n, steps):
    return rng.random((n, 3)), rng.random((n, 3)) - 0.5, rng.random(n) + 0.5, steps


def kernel(np, pos, vel, mass, steps):
    dt, eps = 1e-3, 1e-2
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d * d).sum(axis=2) + eps * eps
        inv = mass[None, :] / (r2 * np.sqrt(r2))
        acc = (d * inv[:, :, None]).sum(axis=1)
        vel += dt * acc
        pos += dt * vel
    return pos


@functools.partial(jax.jit, static_argnums=3)
def reference(pos, vel, mass, steps):
    dt, eps = 1e-3, 1e-2

    def body(_, state):
        pos, vel = state
        d = pos[None, :, :] - pos[:, None, :]
        r2 = jnp.sum(d * d, axis=2) + eps * eps
        inv = mass[None, :] / (r2 * jnp.sqrt(r2))
        vel = vel + dt * jnp.sum(d * inv[:, :, None], axis=1)
        return pos + dt * vel, vel
    return lax.fori_loop(0, steps, body, (pos, vel))[0]
