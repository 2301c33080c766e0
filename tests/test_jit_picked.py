"""``YES if COND else NO`` between two number literals with a traced condition under
``npjax.jit`` (``npjax/_compile/_picked.py``): a select that stands for the Python number
NumPy's run picks, against NumPy's own run."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from benchmarks.kernels import edit_distance as _edit_distance


def _eager_runs(name):
    """This process's eager runs of the ``npjax.jit`` function ``name`` (``stats()`` counts
    those of every test that ran before in the process: only the function's own tell)."""
    return [e for e in npjax.stats()["jit_eager"] if e["function"] == name]


def test_edit_distance_compiles_and_gives_numpys_table():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 4, 9), rng.integers(0, 4, 11)
    f = npjax.jit(_edit_distance.kernel, static_argnums=(0,))  # (cost = 0 if ... else 1)
    got = f(npjax, npjax.asarray(a), npjax.asarray(b))
    want = _edit_distance.kernel(np, a, b)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    assert not _eager_runs("kernel")


def _value_branch(xp, x):
    if x[0] > 0:  # (cannot trace: with fallback="eager" every call runs eagerly)
        return x + 1
    return x - 1


def test_an_earlier_eager_run_elsewhere_is_not_the_kernels():
    """The full suite's order: a test before this one ran a function eagerly under
    ``fallback="eager"`` (tests/test_jit_masks.py, tests/test_buckets.py), which stays in
    ``stats()["jit_eager"]``; the kernel still compiles, and its own record is empty."""
    x = np.array([2.0, 3.0])
    g = npjax.jit(_value_branch, static_argnums=(0,), fallback="eager")
    np.testing.assert_array_equal(np.asarray(g(npjax, npjax.asarray(x))), _value_branch(np, x))
    assert _eager_runs("_value_branch")
    test_edit_distance_compiles_and_gives_numpys_table()


def _weak(xp, x, flags):
    out = xp.zeros_like(x)
    for i in range(x.shape[0]):
        scale = 2.5 if flags[i] else 0.5  # Python floats: float32 stays float32 (NEP 50)
        step = 1 if flags[i] else 3
        out[i] = x[i] * scale + (step + 1) * 2 - step
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_the_picked_number_is_numpys_weak_python_scalar(dtype):
    x = (np.arange(6) * 3 - 4).astype(dtype)
    flags = np.array([True, False, True, True, False, False])
    f = npjax.jit(_weak, static_argnums=(0,))
    got = np.asarray(f(npjax, npjax.asarray(x), npjax.asarray(flags)))
    want = _weak(np, x, flags)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def _needs_value(xp, x):
    cost = 1 if x[0] > 0 else 300
    return x + cost, int(cost)


def _out_of_range(xp, x):
    return x + (1 if x[0] > 0 else 300)


def test_a_value_it_cannot_stand_for_is_the_users_line_or_numpys_answer():
    x = np.array([1, 2, 3], np.int8)
    with pytest.raises(npjax.JitError, match="only known when the function runs"):
        npjax.jit(_needs_value, static_argnums=(0,))(npjax, npjax.asarray(x))
    for fn in (_needs_value, _out_of_range):  # (300 does not fit int8: NumPy's rules decide)
        got = npjax.jit(fn, static_argnums=(0,), fallback="eager")(npjax, npjax.asarray(x))
        want = fn(np, x)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            if isinstance(w, int):
                assert type(g) is int and g == w
            else:
                assert np.asarray(g).dtype == w.dtype
                np.testing.assert_array_equal(np.asarray(g), w)
    with pytest.raises(OverflowError):  # NumPy's error where the literal it picks is out of range
        npjax.jit(_out_of_range, static_argnums=(0,), fallback="eager")(
            npjax, npjax.asarray(-x))


def test_a_condition_known_while_tracing_takes_pythons_branch():
    def f(xp, x, flag):
        return x * (2 if flag else 3)

    x = np.arange(4.0)
    g = npjax.jit(f, static_argnums=(0, 2))
    np.testing.assert_array_equal(np.asarray(g(npjax, npjax.asarray(x), True)), x * 2)
    np.testing.assert_array_equal(np.asarray(g(npjax, npjax.asarray(x), False)), x * 3)


def _no_loop(xp, x):
    return x * (2.5 if x[0] > 0 else 0.5)  # (no loop, no call: the pick alone is rewritten)


@pytest.mark.parametrize("sign", [1, -1])
def test_a_function_with_only_a_pick_compiles(sign):
    x = (np.arange(1, 5) * sign).astype(np.float32)
    got = npjax.jit(_no_loop, static_argnums=(0,))(npjax, npjax.asarray(x))
    want = _no_loop(np, x)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
