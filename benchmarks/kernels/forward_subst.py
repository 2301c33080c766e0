"""Forward substitution for a lower-triangular system, one row per Python iteration:
``x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]`` (a dot product over a growing slice)."""

import jax
import jax.numpy as jnp
from jax import lax

NAME, KIND = "forward_subst", "slices"
SIZES = {"small": dict(n=48), "large": dict(n=1000)}
STATIC = ()


def setup(rng, n):
    numpy = __import__("numpy")
    # Unit-ish diagonal, small off-diagonal entries: well conditioned at every size.
    L = numpy.tril(rng.random((n, n)) - 0.5, -1) * (2.0 / n) + numpy.diag(1.0 + rng.random(n))
    return L, rng.random(n)


def kernel(np, L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


@jax.jit
def reference(L, b):
    n = b.shape[0]
    idx = jnp.arange(n)

    def body(i, x):
        row = jnp.where(idx < i, L[i], 0.0)
        return x.at[i].set((b[i] - row @ x) / L[i, i])
    return lax.fori_loop(0, n, body, jnp.zeros_like(b))
