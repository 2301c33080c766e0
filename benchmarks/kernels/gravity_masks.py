"""N-body accelerations as NumPy users write them with masks: the self-distances (zero) are
left out with ``inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0] ** -1.5`` and the fast particles
are damped with a read-modify-write under a mask; the kinetic energy of the moving ones is a
masked reduction. The number of selected elements changes from step to step (issue 17)."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "gravity_masks", "masks"
SIZES = {"small": dict(n=128, steps=10), "large": dict(n=1024, steps=20)}
STATIC = (3,)


def setup(rng, n, steps):
    return rng.random((n, 3)), rng.random((n, 3)) - 0.5, rng.random(n) + 0.5, steps


def kernel(np, pos, vel, mass, steps):
    dt, vmax = 1e-3, 0.8
    energy = 0.0
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        inv_r3 = (d * d).sum(axis=2)
        inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0] ** -1.5
        acc = (d * (inv_r3 * mass[None, :])[:, :, None]).sum(axis=1)
        vel += dt * acc
        speed = np.sqrt((vel * vel).sum(axis=1))
        fast = speed > vmax
        vel[fast] = vel[fast] * 0.5
        moving = speed > 0.1
        energy = energy + 0.5 * np.sum(mass[moving] * speed[moving] ** 2)
        pos += dt * vel
    return pos.sum(axis=1) + energy  # one array: the suite compares one result


@functools.partial(jax.jit, static_argnums=3)
def reference(pos, vel, mass, steps):
    dt, vmax = 1e-3, 0.8

    def body(_, state):
        pos, vel, energy = state
        d = pos[None, :, :] - pos[:, None, :]
        r2 = jnp.sum(d * d, axis=2)
        inv_r3 = jnp.where(r2 > 0, jnp.where(r2 > 0, r2, 1.0) ** -1.5, r2)
        vel = vel + dt * jnp.sum(d * (inv_r3 * mass[None, :])[:, :, None], axis=1)
        speed = jnp.sqrt(jnp.sum(vel * vel, axis=1))
        vel = jnp.where((speed > vmax)[:, None], vel * 0.5, vel)
        moving = speed > 0.1
        energy = energy + 0.5 * jnp.sum(jnp.where(moving, mass * speed ** 2, 0.0))
        return pos + dt * vel, vel, energy
    pos, _, energy = lax.fori_loop(0, steps, body, (pos, vel, jnp.float64(0.0)))
    return jnp.sum(pos, axis=1) + energy
