"""Fixed-width histogram by scatter-add (numpy.add.at) of computed bin indices."""

import functools

import jax
import jax.numpy as jnp

NAME, KIND = "histogram", "scatter"
SIZES = {"small": dict(n=100_000, bins=64), "large": dict(n=4_000_000, bins=256)}
STATIC = (1,)


def setup(rng, n, bins):
    return rng.standard_normal(n), bins


def kernel(np, x, bins):
    lo, hi = -4.0, 4.0
    idx = np.floor((x - lo) * (bins / (hi - lo))).astype(np.int64)
    np.clip(idx, 0, bins - 1, out=idx)
    counts = np.zeros(bins, dtype=np.int64)
    np.add.at(counts, idx, 1)
    return counts


@functools.partial(jax.jit, static_argnums=1)
def reference(x, bins):
    lo, hi = -4.0, 4.0
    idx = jnp.clip(jnp.floor((x - lo) * (bins / (hi - lo))).astype(jnp.int64), 0, bins - 1)
    return jnp.zeros(bins, jnp.int64).at[idx].add(1)
