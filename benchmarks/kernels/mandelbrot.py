"""Mandelbrot escape counts on a grid (masked updates with where, no overflow)."""

import functools

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "mandelbrot", "elementwise"
SIZES = {"small": dict(n=200, iters=30), "large": dict(n=1000, iters=100)}
STATIC = (2,)


def setup(rng, n, iters):
    xs = [-2.0 + 2.5 * i / (n - 1) for i in range(n)]
    ys = [-1.25 + 2.5 * i / (n - 1) for i in range(n)]
    import numpy
    re, im = numpy.meshgrid(numpy.array(xs), numpy.array(ys))
    return re, im, iters


def kernel(np, re, im, iters):
    zr = np.zeros_like(re)
    zi = np.zeros_like(re)
    count = np.zeros(re.shape, dtype=np.int64)
    for _ in range(iters):
        inside = zr * zr + zi * zi <= 4.0
        new_r = zr * zr - zi * zi + re
        zi[...] = np.where(inside, 2.0 * zr * zi + im, zi)
        zr[...] = np.where(inside, new_r, zr)
        count += inside
    return count


@functools.partial(jax.jit, static_argnums=2)
def reference(re, im, iters):
    def body(_, state):
        zr, zi, count = state
        inside = zr * zr + zi * zi <= 4.0
        new_r = zr * zr - zi * zi + re
        zi = jnp.where(inside, 2.0 * zr * zi + im, zi)
        zr = jnp.where(inside, new_r, zr)
        return zr, zi, count + inside
    zero = jnp.zeros_like(re)
    return lax.fori_loop(0, iters, body, (zero, zero, jnp.zeros(re.shape, jnp.int64)))[2]
