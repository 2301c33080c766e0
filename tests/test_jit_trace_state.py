"""What a failed trace or a probed loop body leaves behind under ``npjax.jit``: NumPy's writes
before an exception raised while tracing, and no traced value cached on a user's view."""

from __future__ import annotations

import numpy as np

from tests.test_jit_loops import check


def test_an_exception_while_tracing_leaves_numpys_writes():
    def partial(xp, a):
        for i in range(a.shape[0]):
            a[i] = a[i] + (300 if i == 5 else 1)
        return a

    check(partial, np.zeros(8, np.int8), traced=None)


def test_a_view_read_in_a_probe_keeps_no_traced_value():
    """A carried name that ends as a view (``z.T.T``) beside a carried scalar: the loop body
    is probed (and refused: such a view is not carried); the view's value read in the probe
    is not cached on it, so the loop then unrolls and traces (it raised JAX's
    UnexpectedTracerError before)."""
    def transposed(xp, x, steps):
        total = 0.0
        for _ in range(steps):
            z = x * 1.0
            total = total + z.mean()
            x = z.T.T
        return x.sum(axis=1) + total

    check(transposed, np.random.default_rng(1).standard_normal((4, 4)), 6, static=(1,),
          rolled=False)
