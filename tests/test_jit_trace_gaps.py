"""npjax.jit on code that JAX compiles once rewritten as hand ports are (issue 35, item 5):
``np.histogram`` with a static bin count, a traced integer element as an index, slice bounds
read from an array, ``while`` on a traced condition, builtin ``max``/``min`` of traced 0-d
values, and a store through a masked index array.

Each case runs ``kernel(numpy, ...)`` and ``npjax.jit(kernel)(npjax, ...)`` (twice, so the
compiled program runs too) and compares results (value, dtype, shape), the exception family,
the warnings and the final state of every array argument. ``traced=True`` also asserts the
call ran as the compiled program (no eager rerun after a device-side check); ``traced=False``
that a device-side check failed and the call reran eagerly (NumPy's exception or result).
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

import npjax
from npjax._compile._jit import Jitted
from tests._parity import assert_same_outcome

_JITTED: dict = {}


@contextlib.contextmanager
def _count_eager():
    runs = []
    original = Jitted._eager

    def spy(self, args, kwargs):
        runs.append(1)
        return original(self, args, kwargs)

    Jitted._eager = spy
    try:
        yield runs
    finally:
        Jitted._eager = original


def _outcome(run, xp, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got, exc = run(xp, *args), None
        except Exception as e:  # compared with NumPy's exception
            got, exc = None, e
    return got, exc, [(w.category, str(w.message)) for w in caught]


def check(kernel, *host_args, traced=None, calls=2):
    """NumPy eagerly, then npjax.jit: the same outcome, warnings and final arguments."""
    jitted = _JITTED.get(kernel)
    if jitted is None:
        jitted = _JITTED[kernel] = npjax.jit(kernel, static_argnums=(0,))
    for _ in range(calls):
        np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in host_args]
        expected, np_exc, np_warns = _outcome(kernel, np, np_args)
        args = [npjax.array(a) if isinstance(a, np.ndarray) else a for a in host_args]
        with _count_eager() as runs:
            actual, exc, warns = _outcome(jitted, npjax, args)
        assert_same_outcome(actual, exc, expected, np_exc, args, np_args)
        if exc is not None:
            assert type(exc) is type(np_exc), (exc, np_exc)
        assert warns == np_warns
        if traced is not None:
            assert bool(runs) is not traced, f"eager reruns: {len(runs)}"
    return jitted


def _grid():
    return np.arange(12.0).reshape(3, 4)


# --- a traced integer element as an index -----------------------------------------------------


def element_index(xp, G, idx):
    G[1, idx[2]] = 7.0
    G[idx[1], idx[2]] += 1
    r = G[idx[0]]  # a view at a traced row: writes through it reach G
    r[1] = -5.0
    return G[1, idx[2]] * 2, G[-1, idx[2]] + G[idx[1]].sum()


def test_traced_element_index():
    check(element_index, _grid(), np.array([2, -1, 3]), traced=True)
    check(element_index, _grid(), np.array([0, 1, -4], dtype=np.int32), traced=True)


def test_traced_element_index_out_of_bounds():
    check(element_index, _grid(), np.array([2, 3, 3]), traced=False)
    check(element_index, _grid(), np.array([2, 1, -5]), traced=False)
    check(element_index, _grid(), np.array([2, 1, 4], dtype=np.uint8), traced=False)


def element_index_loop(xp, a, idx):
    for i in range(8):
        a[idx[1]] = a[idx[0]] + i
    return a


def test_traced_element_index_in_loop():
    check(element_index_loop, np.arange(5.0), np.array([1, 3]), traced=True)
