"""What a failed trace or a probed loop body leaves behind under ``npjax.jit``: NumPy's writes
before an exception raised while tracing, and no traced value cached on a user's view."""

from __future__ import annotations

import jax
import numpy as np

import npjax
from npjax._core import _window_reads
from npjax._execution import _lazy
from npjax._pure._impl import reductions as _raw
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


def test_cached_device_constants_made_while_tracing_are_arrays():
    """The -0.0 of eager reduction kernels (and of lazy programs, and a window's mask) is made
    once per process; made first inside a trace (``cross`` under ``npjax.jit`` asked for it
    there), it was that trace's tracer, which every later kernel then took as an operand: on
    an accelerator's first runs on the CPU, XLA's "Execution supplied 8 arguments but
    compiled program expected 9" for a lazy ``var``."""
    makers = [(_raw._zero, ()), (_lazy.neg_zero, ()),
              (_window_reads._mask, (4, 2, jax.devices()[0]))]
    for maker, args in makers:
        maker.cache_clear()
        try:
            jax.jit(lambda x, maker=maker, args=args: (maker(*args), x)[1])(1.0)
            assert isinstance(maker(*args), jax.Array)
            assert not isinstance(maker(*args), jax.core.Tracer)
        finally:
            maker.cache_clear()


def test_cross_under_npjax_jit_takes_the_traces_zero():
    """``cross`` built its kernel with the eager -0.0 also inside a trace (a constant of the
    traced program, the first call of a process caching a tracer); it takes the trace's."""
    _raw._zero.cache_clear()
    f = npjax.jit(lambda a, b: npjax.cross(a, b))
    a0, b0 = np.array([[0.0, -0.0, 2.0], [1.0, 2.0, 3.0]]), np.array([[1.0, 1.0, 1.0]] * 2)
    with npjax.policy(placement="device"):
        got = f(npjax.asarray(a0), npjax.asarray(b0))
        assert np.asarray(got).tobytes() == np.cross(a0, b0).tobytes()
        assert not isinstance(_raw._zero(), jax.core.Tracer)
        x = npjax.asarray(np.arange(12.0).reshape(3, 4))
        with npjax.policy(mode="lazy"):
            got = npjax.std(x + 1, axis=1)
        np.testing.assert_array_equal(np.asarray(got), np.std(np.arange(12.0).reshape(3, 4)
                                                              + 1, axis=1))
