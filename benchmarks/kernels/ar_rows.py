"""A row-by-row recurrence (an AR(1) filter down the rows of a matrix), one row per Python
iteration: ``a[i] = a[i - 1] * 0.5 + b[i]``. Unrolled by tracing it is n copies of the body;
``npjax.jit`` rolls it into one ``lax.fori_loop``."""

import jax
from jax import lax

NAME, KIND = "ar_rows", "loop"
SIZES = {"small": dict(n=1000, m=8), "large": dict(n=20_000, m=64)}
STATIC = ()


def setup(rng, n, m):
    return rng.random((n, m)), rng.random((n, m))


def kernel(np, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + b[i]
    return a


@jax.jit
def reference(a, b):
    def body(i, a):
        return a.at[i].set(a[i - 1] * 0.5 + b[i])
    return lax.fori_loop(1, a.shape[0], body, a)
