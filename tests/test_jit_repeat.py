"""npjax.jit repeat calls: what a cached program is reused for and what makes a new one."""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import npjax
from tests._parity import assert_same
from tests._threads import run_threads


def _scale_add(xp, a, b, s):
    return a * s + b


def test_repeat_calls_reuse_one_program_and_a_new_layout_makes_another():
    f = npjax.jit(_scale_add, static_argnums=0)
    a, b = np.arange(4.0), np.ones(4)
    calls = [  # (arguments, programs cached after the call)
        ((a, b, 2.0), 1),
        ((a, b, 2.0), 1),
        ((a, b, 3.0), 2),  # a new static value
        ((a, b, 3), 3),  # the same value as an int
        ((a, b, True), 4),  # and as a bool
        ((a.astype(np.float32), b, 2.0), 5),  # a new dtype
        ((np.arange(5.0), np.ones(5), 2.0), 6),  # a new shape
        ((a, b, 2.0), 6),  # back to the first layout: its program again
    ]
    for host_args, size in calls:
        got = f(npjax, *(npjax.asarray(x) if isinstance(x, np.ndarray) else x
                         for x in host_args))
        assert_same(got, _scale_add(np, *host_args))
        assert f._cache_size() == size


def test_argument_kinds_and_aliasing_key_the_program():
    @npjax.jit
    def f(x, y):
        x += 1.0
        return x * y

    host = np.arange(3.0)
    a, b = npjax.asarray(host), npjax.asarray(host)
    kinds = [
        ((lambda: (a, b)), 1),
        ((lambda: (a, b)), 1),
        ((lambda: (a, a)), 2),  # one array twice: the write is seen through both
        ((lambda: (a, np.arange(3.0))), 3),  # a host NumPy array
        ((lambda: (a, jnp.arange(3.0))), 4),  # a jax.Array
        ((lambda: (a, 2.0)), 5),  # a Python scalar
        ((lambda: (a, b)), 5),
    ]
    want_a = host.copy()
    for make, size in kinds:
        x, y = make()
        want_y = y if isinstance(y, float) else np.array(y)
        want_a += 1.0
        if y is a:
            want_y = want_a
        assert_same(f(x, y), want_a * want_y)
        assert_same(a, want_a)
        assert f._cache_size() == size
    assert_same(b, host)


def test_mutations_are_written_back_on_every_repeat_call():
    @npjax.jit
    def f(a, h, v):
        a[1:] += v
        h[0] = a[1]
        return a.sum()

    a, h = npjax.zeros(3), np.zeros(2)
    ref_a, ref_h = np.zeros(3), np.zeros(2)
    for v in (1.0, 1.0, 2.5, 2.5):
        got = f(a, h, v)
        ref_a[1:] += v
        ref_h[0] = ref_a[1]
        assert_same(got, ref_a.sum())
        assert_same(a, ref_a)
        np.testing.assert_array_equal(h, ref_h)
    assert f._cache_size() == 2


def test_a_failing_device_check_on_a_repeat_call_runs_numpy_eagerly():
    @npjax.jit
    def f(a, i):
        a[0] = 5.0
        return a[i]

    a = npjax.arange(4.0)
    assert_same(f(a, npjax.asarray([1, 3])), np.array([1.0, 3.0]))
    with pytest.raises(IndexError):
        f(a, npjax.asarray([1, 4]))  # the same layout: the cached program finds it
    assert f._cache_size() == 1
    assert_same(a, np.array([5.0, 1.0, 2.0, 3.0]))  # NumPy's write before the failure
    assert_same(f(a, npjax.asarray([0, 2])), np.array([5.0, 2.0]))


def test_error_state_keys_repeat_calls():
    f = npjax.jit(lambda a, b: a / b)
    a, b = npjax.ones(2), npjax.zeros(2)
    for _ in range(2):
        with pytest.warns(RuntimeWarning, match="divide by zero"):
            assert_same(f(a, b), np.full(2, np.inf))
        with np.errstate(divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error")
            assert_same(f(a, b), np.full(2, np.inf))
        with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
            f(a, b)
    assert f._cache_size() == 3  # one program per error state: only "warn" and "raise" check
    assert_same(f(a, a), np.ones(2))


def test_equal_static_scalars_of_other_types_are_other_programs():
    f = npjax.jit(lambda a, s: a + s)
    for host in (np.array([False, True]), np.arange(2)):
        for s in (1, True, 1.0, 1, True, 1.0):
            assert_same(f(npjax.asarray(host), s), host + s)
    assert f._cache_size() == 6


def test_repeat_results_keep_their_kind():
    @npjax.jit
    def f(a):
        return a.sum(), a.T * 2, a[0]

    a = npjax.arange(6.0).reshape(2, 3)
    for _ in range(3):
        got = f(a)
        want = (np.arange(6.0).reshape(2, 3).sum(), np.arange(6.0).reshape(2, 3).T * 2,
                np.arange(3.0))
        assert_same(got, want)
    g = npjax.jit(lambda a: a.sum())
    for _ in range(3):
        assert_same(g(a), np.float64(15.0))


def test_threads_calling_one_function_with_different_layouts():
    f = npjax.jit(lambda a, s: a * s)
    inputs = [np.arange(4.0), np.arange(5, dtype=np.float32), np.arange(3.0).reshape(3, 1)]

    def call(k):
        for n in range(20):
            host = inputs[(k + n) % len(inputs)]
            assert_same(f(npjax.asarray(host), 2.0), host * 2.0)

    run_threads([(call, (k,)) for k in range(3)])
    assert f._cache_size() == len(inputs)
