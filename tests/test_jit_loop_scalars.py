"""Python numbers a rolled loop carries (``t += dt``, ``count = count + 1``) are replayed on
the host (``_compile/_loop_scalars``): the loop rolls, each value is the one NumPy's run
computes, the name holds a Python number after the loop, and the arrays that use it as a
weak scalar operand are NumPy's. Compared with NumPy (values, dtypes, Python types, final
arguments, warnings and exceptions); ``f.loops`` shows what rolled."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from tests.test_jit_loops import check_reports


def time_steps(xp, x, n, dt):
    t = 0.0
    for _ in range(n):
        x = x + dt * xp.sin(t) * x - t * 1e-3
        t += dt
    return x, t


def counted_rows(xp, a):
    count = 0
    for i in range(a.shape[0]):
        a[i] = a[i] * 2.0 + count
        count = count + 3
    return a, count


def weak_float32(xp, x, n):
    w = 0.1
    for _ in range(n):
        x = x * w + 1.0
        w = w * 1.5
    return x, w


def two_numbers(xp, x, n):
    t, s = 0.0, 1.0
    for _ in range(n):
        x = x * s - t
        t, s = t + 0.25, s / 2.0 + t
    return x, t, s


def int_into_int32(xp, a, n):
    k = 0
    for i in range(n):
        a[i] = a[i] + k  # int32 + Python int (NEP 50: an int32 operand)
        k = k + 1
    return a, k


def inner_uses_outer(xp, x, n):
    t = 0.5
    for _ in range(n):
        for j in range(x.shape[0]):
            x[j] = x[j] * t + 1.0
        t = t * 0.75
    return x, t


def divides_by_zero(xp, a):
    t = 3.0
    for i in range(a.shape[0]):
        a[i] = a[i] + 1.0
        inv = 1.0 / t  # t reaches 0 at the fourth iteration: ZeroDivisionError there
        t -= 1.0
    return a, inv


def changes_type(xp, a):
    s = 0
    for i in range(a.shape[0]):
        a[i] = a[i] + s
        s = s + 0.5  # int, then float
    return a, s


def compared(xp, x, n):
    t = 0.0
    for _ in range(n):
        if t > 1.0:  # a value of the number decides: unrolled
            x = x * 0.5
        x = x + 1.0
        t += 0.3
    return x, t


def as_index(xp, a):
    k = 0
    for _ in range(a.shape[0] - 1):
        a[k + 1] = a[k] * 0.5
        k += 1
    return a, k


def _check(kernel, *args, static=(), rolled=True):
    f = check_reports(kernel, *args, static=static, rolled=rolled, reruns=False)
    assert f.loops and all(o.rolled is rolled for o in f.loops)
    return f


def _types_match(kernel, *args, static=()):
    """The Python types of the results (a Python float stays a float, an int an int)."""
    want = kernel(np, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    jitted = npjax.jit(kernel, static_argnums=(0, *[i + 1 for i in static]))
    got = jitted(npjax, *[npjax.array(a) if isinstance(a, np.ndarray) else a for a in args])
    for g, w in zip(got, want):
        if not isinstance(w, np.ndarray):
            assert type(g) is type(w) and g == w


def _rng(seed=0):
    return np.random.default_rng(seed)


def test_a_time_accumulator_rolls():
    args = (_rng().random(6), 300, 0.01)
    _check(time_steps, *args, static=(1, 2))
    _types_match(time_steps, *args, static=(1, 2))


def test_an_int_counter_rolls():
    _check(counted_rows, _rng().random((20, 3)))
    _types_match(counted_rows, _rng().random((20, 3)))


def test_a_weak_python_float_with_float32():
    args = (_rng().random(4).astype(np.float32), 20)
    _check(weak_float32, *args, static=(1,))
    _types_match(weak_float32, *args, static=(1,))


def test_numbers_that_depend_on_each_other():
    args = (_rng().random(3), 12)
    _check(two_numbers, *args, static=(1,))
    _types_match(two_numbers, *args, static=(1,))


def test_an_int_operand_of_an_int32_array():
    _check(int_into_int32, np.arange(40, dtype=np.int32), 40, static=(1,))


def test_an_outer_number_used_in_an_inner_rolled_loop():
    f = _check(inner_uses_outer, _rng().random(8), 6, static=(1,))
    assert len(f.loops) == 2


@pytest.mark.parametrize("kernel", [changes_type, compared, as_index])
def test_numbers_used_otherwise_unroll(kernel):
    args = (_rng().random(10), 10) if kernel is compared else (_rng().random(10),)
    _check(kernel, *args, static=(1,) if kernel is compared else (), rolled=False)


def test_an_exception_of_the_arithmetic_comes_at_its_iteration():
    # NumPy raises ZeroDivisionError at the fourth iteration, after three stores
    a = _rng().random(8)
    with pytest.raises(ZeroDivisionError):
        divides_by_zero(np, a.copy())
    jitted = npjax.jit(divides_by_zero, static_argnums=0)
    with pytest.raises(ZeroDivisionError):
        jitted(npjax, npjax.array(a))


def scratch_and_number(xp, x, n):
    h = 1.0  # rebound before it is read in every iteration: scratch
    t = 0.0
    for _ in range(n):
        h = 0.5
        x = x * h + t
        t = t + h
    return x, t, h


def test_a_scratch_name_beside_a_number():
    _check(scratch_and_number, _rng().random(3), 10, static=(1,))


def index_times_float(xp, x, n, dt):
    for i in range(n):
        t = i * dt  # a Python float of the index (NumPy's run: i * dt in Python)
        x = x + xp.sin(t) * dt - i / n
    return x, t


def index_and_number(xp, x, n):
    t = 0.0
    for i in range(n):
        x = x + (t + i) * 0.5 - 0.25 * i
        t += 0.1
    return x, t


def index_divides_by_zero(xp, x):
    for i in range(8):
        x = x + 1.0 / (i - 3.0)  # ZeroDivisionError at i == 3, after three updates
    return x


def test_a_float_of_the_loop_index_rolls():
    args = (_rng().random(4), 30, 0.01)
    _check(index_times_float, *args, static=(1, 2))
    _types_match(index_times_float, *args, static=(1, 2))
    _check(index_times_float, _rng().random(4).astype(np.float32), 30, 0.01, static=(1, 2))


def test_the_loop_index_with_a_carried_number():
    args = (_rng().random(3), 25)
    _check(index_and_number, *args, static=(1,))
    _types_match(index_and_number, *args, static=(1,))


def test_an_exception_of_the_index_arithmetic_comes_at_its_iteration():
    with pytest.raises(ZeroDivisionError):
        index_divides_by_zero(np, _rng().random(3))
    jitted = npjax.jit(index_divides_by_zero, static_argnums=0)
    with pytest.raises(ZeroDivisionError):
        jitted(npjax, npjax.array(_rng().random(3)))
