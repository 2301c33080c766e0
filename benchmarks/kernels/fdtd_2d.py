"""2-D FDTD (Yee scheme, PolyBench fdtd-2d): three fields updated in place each step."""

import functools

import jax
from jax import lax

NAME, KIND = "fdtd_2d", "stencil"
SIZES = {"small": dict(n=128, steps=40), "large": dict(n=1024, steps=100)}
STATIC = (4,)


def setup(rng, n, steps):
    return (rng.random((n, n)), rng.random((n, n)), rng.random((n, n)), rng.random(steps),
            steps)


def kernel(np, ex, ey, hz, fict, steps):
    for t in range(steps):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return hz


@functools.partial(jax.jit, static_argnums=4)
def reference(ex, ey, hz, fict, steps):
    def body(t, state):
        ex, ey, hz = state
        ey = ey.at[0, :].set(fict[t])
        ey = ey.at[1:, :].add(-0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].add(-0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].add(-0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1]
                                         - ey[:-1, :-1]))
        return ex, ey, hz
    return lax.fori_loop(0, steps, body, (ex, ey, hz))[2]
