"""A damped bead-spring chain in 3-D written particle by particle: positions and velocities
kept as Python lists of 3-element arrays, forces from the neighbours (springs to i + 1 via
``np.linalg.norm``, a soft repulsion from i + 2 via ``np.sqrt(np.sum(d * d))``) accumulated
in per-particle Python loops, explicit Euler steps in a time loop."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "particles", "small_arrays"
SIZES = {"small": dict(n=16, steps=8), "large": dict(n=100, steps=60)}
STATIC = (2,)

DT, K, R0, A, GAMMA = 0.01, 20.0, 1.0, 0.5, 0.1


def setup(rng, n, steps):
    pos = (rng.random((n, 3)) - 0.5).cumsum(axis=0) + rng.random((n, 3)) * [1.0, 0.0, 0.0]
    return pos, 0.1 * (rng.random((n, 3)) - 0.5), steps


def kernel(np, pos, vel, steps):
    n = pos.shape[0]
    P = [pos[i].copy() for i in range(n)]
    V = [vel[i].copy() for i in range(n)]
    for _ in range(steps):
        F = [np.zeros(3) for _ in range(n)]
        for i in range(n - 1):  # springs between consecutive beads
            d = P[i + 1] - P[i]
            r = np.linalg.norm(d)
            f = K * (r - R0) / r * d
            F[i] += f
            F[i + 1] -= f
        for i in range(n - 2):  # soft repulsion between second neighbours
            d = P[i + 2] - P[i]
            r = np.sqrt(np.sum(d * d))
            f = A / (r * r * r + 1.0) * d
            F[i] -= f
            F[i + 2] += f
        for i in range(n):
            V[i] = (1.0 - GAMMA * DT) * V[i] + DT * F[i]
            P[i] = P[i] + DT * V[i]
    return np.stack(P)


@functools.partial(jax.jit, static_argnums=2)
def reference(pos, vel, steps):
    def body(_, state):
        P, V = state
        d = P[1:] - P[:-1]
        r = jnp.linalg.norm(d, axis=1, keepdims=True)
        f = K * (r - R0) / r * d
        F = jnp.zeros_like(P).at[:-1].add(f).at[1:].add(-f)
        d = P[2:] - P[:-2]
        r = jnp.sqrt(jnp.sum(d * d, axis=1, keepdims=True))
        f = A / (r * r * r + 1.0) * d
        F = F.at[:-2].add(-f).at[2:].add(f)
        V = (1.0 - GAMMA * DT) * V + DT * F
        return P + DT * V, V
    return lax.fori_loop(0, steps, body, (pos, vel))[0]
