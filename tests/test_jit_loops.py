"""npjax.jit loop rolling (issue 17, item 3): ``for i in range(...)`` as one ``lax.fori_loop``.

Each case runs ``kernel(numpy, ...)`` eagerly and ``npjax.jit(kernel)(npjax, ...)`` (twice, so
the compiled program runs too) and compares results, dtypes, exception families and the final
state of every array argument (``tests/test_jit_masks.check``). ``rolled`` asserts what the
trace did with each loop (``Jitted.loops``): rolled loops run their body a bounded number of
times in Python whatever the trip count; loops that must not roll still give NumPy's answer.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npjax
from benchmarks.kernels import cholesky as _cholesky
from benchmarks.kernels import forward_subst as _forward_subst
from benchmarks.kernels import levinson as _levinson
from benchmarks.kernels import lu as _lu
from npjax._compile import _loop_source
from tests._parity import assert_same, assert_same_outcome
from tests.test_jit_masks import _count_eager, compare_calls


def check(kernel, *host_args, static=(), rolled=None, traced=True, calls=2, roll_loops=True):
    """NumPy eagerly, then npjax.jit: the same outcome and final arguments. ``rolled``: a
    bool per loop the trace met (in order), or one bool for all of them."""
    jitted = npjax.jit(kernel, static_argnums=(0, *[i + 1 for i in static]),
                       roll_loops=roll_loops)
    for runs, np_exc in compare_calls(jitted, kernel, host_args, calls):
        if traced is not None and np_exc is None:
            assert bool(runs) is not traced, f"eager reruns: {len(runs)}"
    if rolled is not None:
        got = [o.rolled for o in jitted.loops]
        want = rolled if isinstance(rolled, list) else [rolled] * max(1, len(got))
        assert got == want, jitted.loops
        for o in jitted.loops:
            if o.rolled:
                assert o.body_runs <= 6, o
    return jitted


# --- loops that roll ------------------------------------------------------------------------


def rows(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + b[i]
    return a


def stencil(xp, u, c, steps):
    for _t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def row_add(xp, a, b):
    for i in range(a.shape[0]):
        a[i, :] += b[i] * 2
    return a


def rebind(xp, x, a):
    for i in range(a.shape[0]):
        x = x * 0.5 + a[i]
    return x


def accumulate(xp, a):
    s = 0.0  # a Python float, then a scalar: the first iteration runs unrolled
    for i in range(a.shape[0]):
        s = s + a[i] * 2
    return s


def backwards(xp, a):
    for i in range(a.shape[0] - 2, -1, -1):
        a[i] = a[i] + a[i + 1] * 0.25
    return a


def negative_index(xp, a):
    for i in range(1, a.shape[0]):
        a[-i - 1] += a[-i]
    return a


def windows(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = a[i:i + 3].sum()
    return out


def names_after(xp, a):
    for i in range(a.shape[0]):
        row = a[i]
        row *= 2
        j = i + 1
    row[0] = -1.0  # the last row, a view of a
    return a, i, j, row


def nested(xp, a):
    n, m = a.shape
    for i in range(1, n):
        for j in range(m):
            a[i, j] = a[i - 1, j] + a[i, j] * 0.5
    return a


def with_sin(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = xp.sin(a[i - 1]) + xp.maximum(b[i], 0.25) + abs(b[i - 1])
    return a


def float32_rows(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * np.float32(0.5) + b[i] * 3
    return a


def int_rows(xp, a):
    for i in range(2, a.shape[0]):
        a[i] = a[i - 1] + a[i - 2]
    return a


def orelse(xp, a):
    for i in range(1, a.shape[0]):
        a[i] += a[i - 1]
    else:
        a[0] = -5
    return a


@pytest.mark.parametrize("n", [5, 40])
def test_row_recurrence(n):
    rng = np.random.default_rng(0)
    check(rows, rng.random(n), rng.random(n), rolled=True)
    check(rows, rng.random((n, 3)), rng.random((n, 3)), rolled=True)


def test_stencil():
    u = np.linspace(0.0, 1.0, 32) ** 2
    check(stencil, u, 0.1, 100, static=(1, 2), rolled=True)


def test_row_update_2d():
    rng = np.random.default_rng(1)
    check(row_add, rng.random((8, 4)), rng.random((8, 4)), rolled=True)


def test_rebinding_a_carried_array():
    rng = np.random.default_rng(2)
    check(rebind, rng.random(3), rng.random((10, 3)), rolled=True)


def test_a_python_float_accumulator_peels_one_iteration():
    jitted = check(accumulate, np.arange(9.0), rolled=True)
    assert jitted.loops[0].body_runs <= 6


def test_negative_step_and_negative_indices():
    rng = np.random.default_rng(3)
    check(backwards, rng.random(12), rolled=True)
    check(negative_index, rng.random(12), rolled=True)


def test_sliding_window_of_fixed_length():
    check(windows, np.arange(12.0), np.zeros(10), rolled=True)


def test_names_left_after_the_loop():
    check(names_after, np.arange(12.0).reshape(6, 2), rolled=True)


def test_nested_loops_roll_inside_each_other():
    rng = np.random.default_rng(4)
    jitted = check(nested, rng.random((6, 5)), rolled=True)
    assert len(jitted.loops) == 2


def test_ufuncs_and_builtins_in_the_body():
    rng = np.random.default_rng(5)
    check(with_sin, rng.random(9), rng.random(9) - 0.5, rolled=True)


def test_dtypes_follow_numpy():
    rng = np.random.default_rng(6)
    a = rng.random(7).astype(np.float32)
    check(float32_rows, a, rng.random(7).astype(np.float32), rolled=True)
    check(int_rows, np.arange(10, dtype=np.int32), rolled=True)
    # wraps as NumPy, with NumPy's "overflow encountered in scalar add" (a[i - 1] is a
    # scalar): the overflow check of the trace reruns the call eagerly
    check_reports(int_rows, np.arange(10, dtype=np.int8) + 100, rolled=True, reruns=True)


def test_for_else():
    check(orelse, np.arange(6), rolled=True)


def test_trace_runs_the_body_a_bounded_number_of_times():
    counter = []

    def body_count(xp, a):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] + 1.0
        return a

    jitted = npjax.jit(body_count, static_argnums=0)
    out = jitted(npjax, npjax.zeros(2000))
    assert float(out[-1]) == 1999.0
    (loop,) = jitted.loops
    assert loop.rolled and loop.trips == 1999 and loop.body_runs <= 6, loop
    del counter


def test_roll_loops_false_unrolls():
    jitted = npjax.jit(rows, static_argnums=0, roll_loops=False)
    out = jitted(npjax, npjax.ones(6), npjax.ones(6))
    assert jitted.loops == ()
    assert_same(out, rows(np, np.ones(6), np.ones(6)))


# --- loops that must not roll, with NumPy's answer --------------------------------------------


def breaks(xp, a):
    for i in range(a.shape[0]):
        if i == 3:
            break
        a[i] = 7
    return a


def branches_on_index(xp, a):
    for i in range(a.shape[0]):
        if i % 2 == 0:
            a[i] = -a[i]
    return a


def prefix_max(xp, a, out):
    for i in range(1, a.shape[0]):
        out[i] = a[:i].max()  # the shape changes with i: max takes no masked window
    return out


def appends(xp, a):
    got = []
    for i in range(a.shape[0]):
        got.append(a[i] * 2)  # noqa: PERF401 (the side effect under test)
    return xp.stack(got)


def prints(xp, a):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1
        print("step", i)
    return a


def counter(xp, a):
    k = 0
    for i in range(a.shape[0]):
        a[i] = a[i] + k
        k += 1
    return a, k


def index_as_value(xp, a):
    for i in range(a.shape[0]):
        a[i] = a[i] * i + 0.5 * i
    return a


def user_function(xp, a):
    def half(v):
        return v * 0.5

    for i in range(1, a.shape[0]):
        a[i] = half(a[i - 1]) + a[i]
    return a


def out_of_bounds_late(xp, a):
    for i in range(a.shape[0]):
        a[i] = a[i + 1]  # IndexError at the last iteration
    return a


def list_store(xp, a):
    vals = [0.0] * a.shape[0]
    for i in range(a.shape[0]):
        vals[i] = a[i] * 2
    return xp.stack(vals)


def short(xp, a):
    for i in range(2):
        a[i] = 3
    return a


def test_break_is_left_as_written():
    jitted = check(breaks, np.arange(8.0))
    assert jitted.loops == ()


def test_branch_on_the_index_unrolls():
    check(branches_on_index, np.arange(8.0), rolled=False)


def branch_all_but_last(xp, a, out):
    n = a.shape[0]
    for k in range(1, n):
        out[k] = a[:k] @ a[:k]
        if k < n - 1:  # false only on the last iteration, which runs as written
            out[k] += a[k + 1]
        if k >= 1 and n - 1 > k and k != 0 and not k == -5:
            out[k] *= 2.0
    return out


def branch_changing(xp, a, out):
    for k in range(1, a.shape[0]):
        if k < 3:  # true on some rolled iterations only
            out[k] = a[k]
    return out


def test_branches_every_rolled_iteration_takes_alike_roll():
    a = np.random.default_rng(14).random(9)
    check(branch_all_but_last, a, np.zeros(9), rolled=True)
    check(branch_changing, a, np.zeros(9), rolled=False)


def unaligned_product(xp, r, x, out):
    for k in range(out.shape[0]):
        out[k] = r[k:] @ x[k:]  # lengths n - 1 - k and n - k: NumPy's error, unrolled
    return out


def test_levinson_rolls_and_unaligned_windows_unroll():
    rng = np.random.default_rng(15)
    r = 0.4 * 0.5 ** np.arange(11) * (rng.random(11) - 0.5)
    jitted = check(_levinson.kernel, r, rng.random(12), rolled=True)
    assert jitted.loops[0].body_runs <= 6
    check(unaligned_product, rng.random(5), rng.random(6), np.zeros(5))  # the same error


def test_shape_changing_body_unrolls():
    check(prefix_max, np.arange(8.0), np.zeros(8), rolled=False)


def test_appending_to_a_list_unrolls():
    check(appends, np.arange(6.0), rolled=False)


def test_print_unrolls_and_prints_each_step():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        check(prints, np.arange(5.0), rolled=False, calls=1)
    text = buf.getvalue()
    assert [line for line in text.splitlines() if line.startswith("step")] == [
        f"step {i}" for i in range(5)] * 2  # NumPy's run, then the trace's


def test_python_counter_rolls():
    # (carried Python numbers: tests/test_jit_loop_scalars.py)
    check(counter, np.arange(6.0), rolled=True)


def test_index_times_a_float_rolls():
    # ``0.5 * i`` is a Python float of the index, computed on the host (_loop_scalars)
    check(index_as_value, np.arange(6.0), rolled=True)
    check(index_as_value, np.arange(6, dtype=np.float32), rolled=True)


def test_user_function_call_without_side_effects_rolls():
    # (functions with side effects: tests/test_jit_callee_loops.py)
    check(user_function, np.arange(6.0), rolled=True)


def test_out_of_bounds_on_the_last_iteration_raises_indexerror():
    # (npjax.jit leaves the arguments unchanged when a call raises: module docstring)
    with pytest.raises(IndexError):
        out_of_bounds_late(np, np.arange(6.0))
    jitted = npjax.jit(out_of_bounds_late, static_argnums=0)
    with pytest.raises(IndexError):
        jitted(npjax, npjax.arange(6.0))
    assert [o.rolled for o in jitted.loops] in ([], [True])


def test_item_store_into_a_list_unrolls():
    check(list_store, np.arange(6.0), rolled=False)


def test_short_loops_unroll():
    check(short, np.arange(4.0), rolled=False)


def test_traced_range_bound_raises_jiterror_as_before():
    def bound(a, n):
        for i in range(n):
            a[i] = 0
        return a

    with pytest.raises(npjax.JitError):
        npjax.jit(bound)(npjax.ones(4), npjax.asarray(3))


def test_device_checks_inside_a_rolled_loop_rerun_eagerly():
    def overflow(xp, a):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * 1e200
        return a

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FloatingPointError), npjax.errstate(over="raise"):
            npjax.jit(overflow, static_argnums=0)(npjax, npjax.ones(5))
    check(overflow, np.ones(5), rolled=True, traced=False)


def test_the_transformation_keeps_closures_defaults_and_lines():
    scale = 3.0

    def kernel(xp, a, shift=1.0):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * scale + shift
        return a

    check(kernel, np.zeros(6), rolled=True)
    new = _loop_source.rolled(kernel)
    assert new is not kernel and new.__code__.co_filename == kernel.__code__.co_filename
    assert new.__defaults__ == (1.0,)


def test_functions_without_source_are_left_alone():
    namespace: dict = {}
    exec("def f(a):\n    for i in range(4):\n        a[i] = 1\n    return a\n", namespace)
    f = namespace["f"]
    assert _loop_source.rolled(f) is f
    out = npjax.jit(f)(npjax.zeros(5))
    assert_same(out, np.array([1.0, 1, 1, 1, 0]))


# --- floating-point reports of rolled loops -----------------------------------------------
# A rolled body's float results are checked on the device in every iteration (a stored result
# is read back from the array it was stored into, ``_finite_watch.FiniteWatch.stored``); when one
# is not finite, the call reruns eagerly and NumPy's warnings (or FloatingPointError) follow.


def transient_overwritten(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = b[i] * 1e300 + a[i - 1]  # infinite where b is large...
        a[i] = b[i]  # ...and overwritten in the same iteration: finite at the end
    return a


def transient_next_iteration(xp, a, b):
    for i in range(1, b.shape[0]):
        a[0] = b[i] * 1e300  # infinite in one iteration only, finite in the next
    return a


def transient_temporary(xp, a, b):
    for i in range(1, a.shape[0]):
        t = b[i] * 1e300  # never stored
        a[i] = xp.minimum(t, 1.0) - t * 0 + a[i - 1] * 0.5
    return a


def transient_element(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = b[i] * 1e300
        a[i] = b[i] * 0.5
    return a


def transient_float32(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = b[i] * 1e300  # float64 results stored into float32 rows
        a[i - 1] = 0.0
    return a


def transient_stencil(xp, u, c, steps):
    for _t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u[1:-1] = xp.minimum(u[1:-1], 1.0)
    return u


def stored_then_other_parts(xp, u, b):
    for i in range(b.shape[0]):
        u[1:-1] = b[i] * 1e300  # infinite in one iteration only...
        u[0] = 1.0  # ...then stores that miss it (it is read back from the final u)
        u[-1] = u[0]
    return u


def stored_then_overwritten(xp, u, b):
    for i in range(b.shape[0]):
        u[1:-1] = b[i] * 1e300
        u[0] = 1.0
        u[2:4] = 0.0  # overlaps the first store
    return u


def _reports(run, xp, args):
    """(result, exception, [(category, message)]) of one run, every warning recorded."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        try:
            result, exc = run(xp, *args), None
        except Exception as e:  # compared with NumPy's below
            result, exc = None, e
    return result, exc, [(w.category, str(w.message)) for w in got]


def check_reports(kernel, *host_args, static=(), rolled=True, reruns=True):
    """NumPy eagerly, then npjax.jit (twice): the same result, arguments, exception and
    warnings (class and text, in order); ``reruns``: whether the call reran eagerly."""
    jitted = npjax.jit(kernel, static_argnums=(0, *[i + 1 for i in static]))
    for _ in range(2):
        np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in host_args]
        expected, np_exc, np_warns = _reports(kernel, np, np_args)
        args = [npjax.array(a) if isinstance(a, np.ndarray) else a for a in host_args]
        with _count_eager() as runs:
            actual, exc, warns = _reports(jitted, npjax, args)
        assert_same_outcome(actual, exc, expected, np_exc, args, np_args)
        assert warns == np_warns
        assert bool(runs) is reruns, f"eager reruns: {len(runs)}"
    assert [o.rolled for o in jitted.loops] == [rolled] * len(jitted.loops)
    return jitted


def _rows(n=8, m=3, big=()):
    rng = np.random.default_rng(7)
    a, b = rng.random((n, m)), rng.random((n, m))
    for i in big:
        b[i] = 1e10
    return a, b


def test_a_transient_overflow_overwritten_in_the_same_iteration_warns():
    check_reports(transient_overwritten, *_rows(big=(3,)))


def test_a_transient_overflow_overwritten_in_the_next_iteration_warns():
    a, b = _rows(big=(3,))
    check_reports(transient_next_iteration, a[:1].copy(), b)


def test_an_overflow_in_a_temporary_warns():
    check_reports(transient_temporary, *_rows(big=(4,)))


def test_a_transient_element_overflow_warns():
    a, b = _rows(big=(2, 5))
    check_reports(transient_element, a[:, 0].copy(), b[:, 0].copy())


def test_a_transient_overflow_stored_with_a_cast_warns():
    a, b = _rows(big=(5,))
    check_reports(transient_float32, a.astype(np.float32), b)


def test_a_transient_overflow_in_a_stencil_warns():
    u = np.linspace(0.0, 1.0, 32)
    u[7] = 1e308
    check_reports(transient_stencil, u, 0.9, 12, static=(1, 2))


@pytest.mark.parametrize("kernel", [stored_then_other_parts, stored_then_overwritten])
def test_a_transient_overflow_followed_by_other_stores_warns(kernel):
    b = np.random.default_rng(8).random((9, 6))
    b[4, 2] = 1e10
    check_reports(kernel, np.zeros(8), b)
    b[4, 2] = 0.5
    check_reports(kernel, np.zeros(8), b, reruns=False)


def test_finite_rolled_loops_do_not_rerun():
    check_reports(rows, *_rows(), reruns=False)
    check_reports(stencil, np.linspace(0.0, 1.0, 32) ** 2, 0.1, 20, static=(1, 2),
                  reruns=False)
    check_reports(transient_overwritten, *_rows(n=1 + 1), rolled=False, reruns=False)


@pytest.mark.parametrize("kernel, big", [(transient_overwritten, (3,)),
                                         (transient_next_iteration, (3,)),
                                         (transient_element, (2,))])
def test_errstate_raise_and_ignore_in_rolled_loops(kernel, big):
    a, b = _rows(big=big)
    if kernel is transient_next_iteration:
        a = a[:1].copy()
    if kernel is transient_element:
        a, b = a[:, 0].copy(), b[:, 0].copy()
    jitted = npjax.jit(kernel, static_argnums=0)
    with npjax.errstate(over="raise"):
        with pytest.raises(FloatingPointError) as np_info:
            kernel(np, a.copy(), b)
        with pytest.raises(FloatingPointError) as info:
            jitted(npjax, npjax.array(a), b)
    assert str(info.value) == str(np_info.value)
    with npjax.errstate(all="ignore"):
        check_reports(kernel, a, b, reruns=False)


def test_stores_outside_loops_are_checked_the_same_way():
    def straight(xp, a, b):
        a[1:] = b * 1e300
        a[0] = 1.0
        c = a * 1.0  # reads the stored infinity: checked again
        a[1:] = 0.0
        return a, c

    b = np.array([1.0, 1e10, 2.0])
    check_reports(straight, np.zeros(4), b)
    check_reports(straight, np.zeros(4), b * 0, reruns=False)


# --- the compiled program of a rolled loop ---------------------------------------------------


def _program_text(jitted, *args):
    """The optimised HLO text of the program ``jitted`` runs for ``args``."""
    return _traced_program(jitted, *args).lower().compile().as_text()


def _array_copies_in_loop_bodies(text):
    """How many arrays (not scalars) the while-loop bodies of an HLO module copy."""
    bodies = set(re.findall(r"body=(%[\w.\-]+)", text))
    assert bodies, "no while loop in the program"
    count, current = 0, None
    for line in text.splitlines():
        head = re.match(r"(%[\w.\-]+) \(", line)
        if head:
            current = head.group(1)
        elif current in bodies and re.search(r"= \w+\[\d[\d,]*\]\S* copy\(", line):
            count += 1
    return count


def slice_updates(xp, ey, hz, steps):
    for _t in range(steps):
        ey[1:, :] -= 0.1 * (hz[1:, :] - hz[:-1, :])  # a ufunc with out=: stored, then watched
        hz[:, 1:] *= 0.5 + 0.01 * ey[:, :-1]
    return ey, hz


def test_in_place_slice_updates_in_a_rolled_loop_copy_no_array():
    # The error-state check of an in-place result reads it back from the array it was
    # stored into; checking the expression instead made XLA copy each array per iteration.
    rng = np.random.default_rng(3)
    ey, hz = rng.random((16, 12)), rng.random((16, 12))
    check(slice_updates, ey, hz, 6, static=(2,), rolled=True)
    jitted = npjax.jit(slice_updates, static_argnums=(0, 3))
    text = _program_text(jitted, npjax, npjax.array(ey), npjax.array(hz), 6)
    assert _array_copies_in_loop_bodies(text) == 0
    hz[5, 7] = 1e308  # overflows in the loop: NumPy's warnings, after an eager rerun
    check_reports(slice_updates, ey, hz, 6, static=(2,))
    check_reports(slice_updates, ey, hz * 0, 6, static=(2,), reruns=False)


def row_then_rest(xp, ey, hz, fict, steps):
    for t in range(steps):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])  # apart from the row just stored
        hz[:-1, :] -= 0.7 * (ey[1:, :] - ey[:-1, :])
    return ey, hz


def test_an_in_place_update_apart_from_the_latest_store_copies_no_array():
    # ``ey[1:, :] -= x`` read ``ey[1:, :]`` from the value before ``ey[0, :] = y`` (a part
    # apart from that store): XLA, updating that value in place for the row, copied it
    # first, and the loop's result back (two copies of ey per iteration)
    rng = np.random.default_rng(4)
    ey, hz, fict = rng.random((10, 8)), rng.random((10, 8)), rng.random(6)
    check(row_then_rest, ey, hz, fict, 6, static=(3,), rolled=True)
    check(row_then_rest, ey.astype(np.float32), hz, fict, 6, static=(3,), rolled=True)
    jitted = npjax.jit(row_then_rest, static_argnums=(0, 4))
    text = _program_text(jitted, npjax, npjax.array(ey), npjax.array(hz), fict, 6)
    assert _array_copies_in_loop_bodies(text) == 0
    hz[3, 2], hz[4, 2] = 1.7e308, -1.7e308  # overflows in the loop: NumPy's warnings
    check_reports(row_then_rest, ey, hz, fict, 6, static=(3,))


def diag_then_column(xp, a):
    L = xp.zeros_like(a)
    for j in range(a.shape[0]):
        L[j, j] = xp.sqrt(a[j, j])
        L[j, 0] += L[j, j] * 0.5  # the element just stored, at the loop index
    return L


def other_positions(xp, a):
    for j in range(1, a.shape[0] - 1):
        a[j, j] = a[j - 1, j] + 1.0
        a[j, 0] = a[j, j] * 2 + a[j + 1, j + 1] + a[j, j - 1]  # the same, then others
    return a


def nested_positions(xp, a, reps):
    for j in range(a.shape[0]):
        a[j, j] = a[j, j] * 0.5
        for _r in range(reps):  # the outer index inside an inner rolled body
            a[j, j] = a[j, j] * 0.5 + 1.0
            a[j, 0] = a[j, j] + a[j, 0]
        a[j, 1] = a[j, j] - 1.0
    return a


def _slices_in_the_loop(jaxpr):
    """How many ``dynamic_slice`` equations the scan body of ``jaxpr`` holds (nested too)."""
    def count(jx):
        n = 0
        for e in jx.eqns:
            n += e.primitive.name == "dynamic_slice"
            for p in e.params.values():
                inner = getattr(p, "jaxpr", None)
                if hasattr(inner, "eqns"):
                    n += count(inner)
        return n
    (scan,) = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    return count(scan.params["jaxpr"].jaxpr)


def test_an_element_read_at_the_loop_index_after_its_store_is_the_stored_value():
    # ``L[j, j] = v`` then ``L[j, j]``: the same traced position (one per loop index of a
    # body), so the read is ``v``, not a read of the updated array (XLA fused the update
    # into that read: cholesky)
    a = np.random.default_rng(5).random((9, 9)) + 1.0
    check(diag_then_column, a, rolled=True)
    check(other_positions, a, rolled=True)
    check(other_positions, (a * 10).astype(np.int64), rolled=True)
    check(nested_positions, a, 5, static=(1,))
    check_reports(diag_then_column, a - 1.5, reruns=True)  # sqrt of negatives: invalid
    jitted = npjax.jit(diag_then_column, static_argnums=0)
    traced = _traced_program(jitted, npjax, npjax.array(a))
    assert _slices_in_the_loop(traced.jaxpr) == 3  # a[j, j] and the two of L[j, 0] +=


def gap_left(xp, u, steps):
    for _t in range(steps):
        un = u.copy()
        u[2:] = un[2:] * 0.5 + un[3:4]  # u[1] is neither read nor written
        u[0] = un[0] * 0.5
    return u


def _f32_converts(jitted, *args):
    """The shapes the error-state checks of the lowered program convert to float32."""
    text = _traced_program(jitted, *args).lower().as_text()
    return re.findall(r"stablehlo.convert %\S+ : \(tensor<([\dx]*)f64>\) -> tensor<\1f32>",
                      text)


def test_stores_that_fill_a_box_are_checked_as_that_box():
    # u[1:-1] and u[-1] (the value stored at u[0] too) fill u[1:]: one read back of u[1:]
    # per iteration and one float32 accumulator, not one of each shape (38 and a scalar);
    # every iteration rolls (nothing reads ``un`` after the loop): one body, one of them
    u = np.sin(np.linspace(0.0, 6.0, 40))
    jitted = npjax.jit(periodic_ends, static_argnums=(0, 2))
    assert _f32_converts(jitted, npjax, npjax.array(u), 8) == ["39x"]
    for i, j in ((1, -2), (2, 0)):  # overflows at the boundary element, then inside
        u2 = u.copy()
        u2[i], u2[j] = 1.7e308, -1.7e308
        check_reports(periodic_ends, u2, 8, static=(1,))
    check_reports(periodic_ends, u, 8, static=(1,), reruns=False)
    # a gap no store writes is not checked: its NaN reruns nothing
    v = u.copy()
    v[1] = np.nan
    check(gap_left, v, 6, static=(1,), rolled=True)
    jitted = npjax.jit(gap_left, static_argnums=(0, 2))
    assert sorted(_f32_converts(jitted, npjax, npjax.array(v), 6)) == ["", "38x"]  # one body


# --- loops over an array: ``for x in a`` rolls as ``x = a[k]`` -------------------------------


def over_values(xp, data):
    a, b = xp.int64(1), xp.int64(0)
    for x in data.astype(xp.int64):
        a = (a + x) % 65521
        b = (b + a) % 65521
    return xp.array([a, b, (b << 16) | a]), x


def over_rows(xp, m, out):
    for row in m:
        row *= 2  # through the row, a view of m
        out += row
    return out, row


def over_itself(xp, a):
    for x in a:  # each element read when its iteration starts, as NumPy's iterator does
        a[0] = a[0] + x
    return a


def over_a_list(xp, a):
    for v in [1.0, 2.0, 3.0, 4.0, 5.0]:
        a = a * v
    return a


def over_zero_d(xp, a):
    for x in a[0, 0]:
        a += x
    return a


def test_a_loop_over_a_vector_rolls():
    data = np.random.default_rng(4).integers(0, 256, 300).astype(np.uint8)
    check(over_values, data, rolled=True)
    check(over_itself, np.arange(1.0, 9.0), rolled=True)


def test_a_loop_over_matrix_rows_rolls_and_writes_through_the_rows():
    m = np.random.default_rng(5).random((7, 3))
    check(over_rows, m, np.zeros(3), rolled=True)


def test_loops_over_other_iterables_run_as_written():
    check(over_a_list, np.arange(3.0), rolled=[])
    check(over_zero_d, np.ones((2, 2)), rolled=[])  # TypeError: iteration over a 0-d array
    check(over_values, np.array([7, 9], np.uint8), rolled=False)  # too short to roll


def periodic_ends(xp, u, steps):
    for _t in range(steps):
        un = u.copy()
        u[1:-1] = un[1:-1] - 0.25 * (un[2:] - un[:-2])
        u[0] = un[0] - 0.25 * (un[1] - un[-2])
        u[-1] = u[0]  # the element just stored: read as the stored value
    return u


def element_reads_after_other_writes(xp, u, steps):
    for _t in range(steps):
        u[0] = u[1] * 0.5
        u[0] += 1.0  # written again: the read below sees this value
        w = u[:2]
        u[-1] = u[0]
        w[0] = 7.0  # through a view: not the element stored last
        u[-2] = u[0] * 2
    return u


def test_an_element_read_after_its_store_copies_no_array():
    u = np.sin(np.linspace(0.0, 6.0, 40))
    check(periodic_ends, u, 8, static=(1,), rolled=True)
    check(element_reads_after_other_writes, u, 8, static=(1,), rolled=True)
    check(element_reads_after_other_writes, (u * 8).astype(np.int32), 8, static=(1,),
          rolled=True)
    jitted = npjax.jit(periodic_ends, static_argnums=(0, 2))
    text = _program_text(jitted, npjax, npjax.array(u), 8)
    assert _array_copies_in_loop_bodies(text) <= 2  # u.copy() and the in-place update of u


def parts_after_a_store(xp, a):
    for k in range(a.shape[0] - 1):  # unrolled below (roll_loops=False): static positions
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= xp.outer(a[k + 1:, k], a[k, k + 1:])  # the part just stored
    a[0, 0] = a[1, 1] * 2  # an element...
    b = a[0, :2] + a[0, 0] + a[1, 0]  # ...then reads that overlap it, equal it, miss it
    a[1:3, 1:3] = 5  # a broadcast store, then reads of it
    return a, b, a[1:3, 1:3] * 1, a[1, 1:], a[0, 1:3].copy()


def test_parts_read_after_a_store_are_numpys_and_copy_less():
    a = np.random.default_rng(6).random((7, 7)) + 7 * np.eye(7)
    check(parts_after_a_store, a, rolled=[], roll_loops=False)
    check(parts_after_a_store, a.astype(np.float32), rolled=[], roll_loops=False)
    jitted = npjax.jit(parts_after_a_store, static_argnums=0, roll_loops=False)
    text = _program_text(jitted, npjax, npjax.array(a))
    # 13 array copies when every read went through the updated array (XLA fused the update
    # into the read); the rest come from the error-state checks of overlapping stores
    assert len(re.findall(r"= \w+\[\d[\d,]*\]\S* copy\(", text)) <= 9


# --- slices whose extent moves with the index: masked windows (npjax._compile._windows) ---


# The suite's own NumPy-style kernels (benchmarks/kernels): forward_subst, cholesky, lu,
# levinson.
forward_subst, cholesky, lu = (k.kernel for k in (_forward_subst, _cholesky, _lu))


def prefix_sums(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = a[:i].sum() + xp.sum(a[i:]) * 2
    return out


def prefix_dots(xp, a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[:i] @ b[:i] + xp.dot(a[i:], b[i:]) + xp.matmul(a[:i], b[:i])
    return out


def clamped(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = a[i - 2:i + 5].sum() + a[:i + 5].sum() * 3  # i - 2 < 0: from the end
    return out


def windowed_updates(xp, x, y):
    for i in range(1, x.shape[0]):
        x[1:i] = x[1:i] * 0.5 + y[1:i] - 1
        x[i:] += xp.sqrt(abs(y[i:])) / 2
        x[:i] -= 1.0 - x[:i]
    return x


def reversed_dots(xp, r, x, out):
    for k in range(1, out.shape[0]):
        out[k] = r[:k] @ x[:k][::-1]
        x[:k] = x[:k] + 0.5 * x[:k][::-1]
    return out, x


def matrix_windows(xp, m, v, out):
    for j in range(out.shape[0]):
        out[j:] = m[j:, :j] @ v[:j] + m[j:, j:].sum(axis=1) - xp.sum(m[j:, :], axis=1)
    return out


def scratch_window(xp, a, out):
    for i in range(out.shape[0]):
        w = a[:i + 1]
        out[i] = w.sum()
    return out, w


def gram_schmidt(xp, a):
    m, n = a.shape
    q = xp.zeros((m, n), a.dtype)
    r = xp.zeros((n, n), a.dtype)
    for j in range(n):
        v = a[:, j].copy()
        r[:j, j] = q[:, :j].T @ a[:, j]  # a transposed window
        v -= q[:, :j] @ r[:j, j]
        r[j, j] = xp.sqrt(v @ v)
        q[:, j] = v / r[j, j]
    return q, r


def transposed_after_a_write(xp, a, out):
    for j in range(1, out.shape[0]):
        w = a[:, :j].T
        a[0, 0] += 1.0  # NumPy's view sees this write: a window of the old value may not
        out[j] = w.sum()
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_transposed_moving_slices_roll(dtype):
    a = np.random.default_rng(13).random((12, 6)).astype(dtype)
    jitted = check(gram_schmidt, a, rolled=True)
    assert jitted.loops[0].body_runs <= 4
    check(transposed_after_a_write, np.ones((3, 6), dtype), np.zeros(6, dtype), rolled=False)


@pytest.mark.parametrize("n", [5, 24])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_triangular_kernels_roll_over_moving_slices(n, dtype):
    rng = np.random.default_rng(11)
    m = rng.random((n, n))
    L = (np.tril(m, -1) * (2.0 / n) + np.diag(1.0 + rng.random(n))).astype(dtype)
    for kernel, args in [(forward_subst, (L, rng.random(n).astype(dtype))),
                         (cholesky, ((m @ m.T + n * np.eye(n)).astype(dtype),)),
                         (lu, ((m + n * np.eye(n)).astype(dtype),))]:
        jitted = check(kernel, *args, rolled=True)
        assert jitted.loops[0].body_runs <= 4


def test_lu_of_integers_raises_numpys_casting_error():
    # ``int_array[k + 1:, k] /= ...``: the in-place operator's same-kind rule, as NumPy's
    check(lu, np.arange(36).reshape(6, 6) + 40 * np.eye(6, dtype=np.int64))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.bool_,
                                   np.complex128])
def test_sums_and_dots_of_moving_slices_follow_numpys_dtypes(dtype):
    rng = np.random.default_rng(12)
    a = (rng.random(9) * 10).astype(dtype)
    b = (rng.random(9) * 10 - 5).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a, b = a + 1j * b.real, b - 2j * a.real
    check(prefix_sums, a, np.zeros(9, np.result_type(a.sum())), rolled=True)
    check(prefix_dots, a, b, np.zeros(9, (a[:1] @ b[:1]).dtype), rolled=True)


def test_empty_windows_and_clamped_ends():
    # i = 0: ``a[:0] @ b[:0]`` is 0; ``a[i - 2:i + 5]`` starts from the end, then clamps
    rng = np.random.default_rng(13)
    check(prefix_dots, rng.random(8), rng.random(8), np.full(8, -1.0), rolled=True)
    check(clamped, rng.random(9), np.zeros(9), rolled=True)
    check(clamped, np.arange(9), np.zeros(9, np.int64), rolled=True)


def prefix_only(xp, a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[:i] @ b[:i] + (a[:i] / b[:i]).sum()
    return out


def test_non_finite_values_outside_a_window_never_reach_it():
    a, b = np.arange(1.0, 10.0), np.ones(9)
    a[-1], b[-1] = np.inf, np.nan  # outside every window
    check(prefix_only, a, b, np.zeros(8), rolled=True)  # no eager rerun: nothing warns
    a[-1] = -0.0
    check(prefix_only, a, b * 0 + 2, np.zeros(8), rolled=True)
    b[-1] = 0.0  # 0 / 0 outside the windows
    check(prefix_only, a, b, np.zeros(8), rolled=True)
    check(prefix_sums, np.array([np.nan, -0.0, 1e308, 1e308, 2.0, 3.0, 4.0]),
          np.zeros(7), rolled=True, traced=None)  # overflows: NumPy's warnings


def test_elementwise_updates_and_stores_of_moving_slices():
    rng = np.random.default_rng(14)
    check(windowed_updates, rng.random(10), rng.random(10) - 0.5, rolled=True)
    check(windowed_updates, rng.random(10).astype(np.float32),
          rng.random(10).astype(np.float32), rolled=True)


def test_reversed_moving_slices():
    rng = np.random.default_rng(15)
    check(reversed_dots, rng.random(9), rng.random(9), np.zeros(9), rolled=True)


def test_products_and_axis_sums_of_2d_moving_slices():
    rng = np.random.default_rng(16)
    check(matrix_windows, rng.random((7, 7)), rng.random(7), np.zeros(7), rolled=True)


def test_a_window_bound_in_the_body_is_numpys_view_after_the_loop():
    check(scratch_window, np.arange(6.0), np.zeros(6), rolled=True)


def _moving_sums(p, q, s, t):
    def kernel(xp, a, out):
        for i in range(out.shape[0]):
            out[i] = a[p * i + q:s * i + t].sum() - a[p * i + q:s * i + t] @ a[p * i + q:s * i + t]
        return out
    return kernel


@settings(max_examples=15, deadline=None)
@given(p=st.integers(-2, 2), q=st.integers(-12, 12), s=st.integers(-2, 2),
       t=st.integers(-12, 12), dtype=st.sampled_from([np.float64, np.int32]))
def test_moving_slice_bounds_follow_python_slicing(p, q, s, t, dtype):
    a = (np.arange(1, 11) * 1.5).astype(dtype)
    check(_moving_sums(p, q, s, t), a, np.zeros(6, a.dtype), rolled=True)


# --- uses of a moving slice that are not exact as a window: unrolled, NumPy's answer


def window_length(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = len(a[:i]) + a[:i].shape[0]
    return out


def window_to_other_function(xp, a, out):
    for i in range(1, out.shape[0]):
        out[i] = xp.mean(a[:i]) + xp.asarray(a[:i]).max()
    return out


def different_bounds(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = a[:i] @ a[1:i + 1]  # equal lengths, but bounds of other forms
    return out


def in_place_through_a_window(xp, a):
    for i in range(a.shape[0]):
        w = a[:i]
        w += 1  # writes through NumPy's view
    return a


def written_under_a_window(xp, a, out):
    for i in range(out.shape[0]):
        w = a[:i + 1]
        a[0] = a[0] + 1  # the view sees this write
        out[i] = w.sum()
    return out


def array_on_the_left(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = (a[i] * a[:i]).sum() + (a[:i] * a[i]).sum()
    return out


def printed_window(xp, a):
    for i in range(a.shape[0]):
        print(a[:i])
    return a


@pytest.mark.parametrize("kernel", [window_length, window_to_other_function, different_bounds,
                                    written_under_a_window])
def test_other_uses_of_a_moving_slice_unroll(kernel):
    check(kernel, np.arange(1.0, 8.0), np.zeros(6), rolled=False)


def matrix_on_the_left(xp, a, m, out):
    for i in range(out.shape[0]):
        out[i] = (m * a[:i]).sum()  # a 1-d array (of one element) beside a window: refused
    return out


def test_operands_on_the_left_of_a_moving_slice():
    """A 0-d value on the left of a window rolls (the operator's ufunc hands the window to
    ``_windows``); an array that is not 0-d still unrolls."""
    check(array_on_the_left, np.arange(1.0, 8.0), np.zeros(6), rolled=True)
    check(matrix_on_the_left, np.arange(1.0, 8.0), np.full(1, 2.0), np.zeros(6), rolled=False)


def test_in_place_operators_and_printing_of_a_moving_slice_unroll():
    check(in_place_through_a_window, np.arange(6.0), rolled=False)
    jitted = npjax.jit(printed_window, static_argnums=0)
    with pytest.raises(npjax.JitError, match="print of an array"):  # as when it unrolled
        jitted(npjax, npjax.arange(5.0))


# --- the error-state check of moving slices (issue 17: npjax.jit near hand-written jax.jit) --


def lu_overwritten(xp, a):
    for k in range(a.shape[0] - 1):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= xp.outer(a[k + 1:, k], a[k, k + 1:])  # stored...
        a[-1, k + 1:] = 0.5  # ...then partly overwritten: checked as computed
    return a


def _lu_input(n=8, big=()):
    a = np.random.default_rng(21).random((n, n)) + n * np.eye(n)
    for pos in big:
        a[pos] = 1e200  # the outer product overflows inside the window
    return a


@pytest.mark.parametrize("kernel", [lu, lu_overwritten])
def test_overflow_in_a_product_of_moving_slices_warns(kernel):
    check_reports(kernel, _lu_input(big=[(2, 6), (5, 2)]))
    check_reports(kernel, _lu_input(big=[(3, 4), (4, 3)]))
    check_reports(kernel, _lu_input(), reruns=False)
    with npjax.errstate(over="raise"):
        with pytest.raises(FloatingPointError) as np_info:
            kernel(np, _lu_input(big=[(2, 6), (5, 2)]))
        with pytest.raises(FloatingPointError) as info:
            npjax.jit(kernel, static_argnums=0)(npjax, npjax.array(_lu_input(big=[(2, 6), (5, 2)])))
    assert str(info.value) == str(np_info.value)


def _traced_program(jitted, *args):
    """The program ``jitted`` runs for ``args``, traced (``.jaxpr``, ``.lower()``)."""
    jitted(*args)
    (entry,) = jitted._cache.values()
    compiled, seen = entry.compiled, []
    entry.compiled = lambda *a: seen.append(a) or compiled(*a)
    try:
        jitted(*args)
    finally:
        entry.compiled = compiled
    return compiled.trace(*seen[0])


def _float32_accumulators(jitted, *args):
    """The float32 accumulators of the error-state check in the lowered program, by shape."""
    text = _traced_program(jitted, *args).lower().as_text()
    return re.findall(r"stablehlo.convert %\S+ : \(tensor<([\dx]*)xf64>\) -> tensor<\1xf32>",
                      text)


def test_a_product_of_moving_slices_is_checked_once_where_it_is_stored():
    # lu: the product ``outer(...)`` (at its full padded size) is covered by the difference
    # stored into the window, which is checked as read back from ``a`` inside the window:
    # one 2-d check per iteration, none recomputing the product.
    a = _lu_input(n=12)
    jitted = npjax.jit(lu, static_argnums=0)
    shapes = _float32_accumulators(jitted, npjax, npjax.array(a))
    assert shapes.count("12x12") == 1, shapes
    check_reports(lu, a, reruns=False)


def small_sums(xp, d):
    return xp.sqrt(xp.sum(d * d)) + d.sum()


def test_sums_of_a_few_elements_stage_no_loop():
    # NumPy's order of a short sum is written out; the rest of the fold (no rows here) was
    # a scan of length 0, one while loop per sum for XLA to compile away (particles: 112)
    d = np.array([1.0, 2.0, 3.0])
    check(small_sums, d, rolled=[])
    traced = _traced_program(npjax.jit(small_sums, static_argnums=0), npjax, npjax.array(d))
    assert "scan[" not in str(traced.jaxpr)


# --- carried values checked by the next iteration (issue 17: newton_scalar) --------------


def horner(xp, coeffs, x):
    p, dp = coeffs[0] * 1.0, coeffs[0] * 0.0
    for c in coeffs[1:]:
        dp = dp * x + p  # shows the p and dp this iteration started with
        p = p * x + c
    return p, dp


def resets(xp, a):
    s = a[0] * 1.0
    for i in range(a.shape[0]):
        t = s * 2.0  # shows the s this iteration started with, and is checked
        s = a[i] * 3.0  # not computed from the old s
    return s, t


@pytest.mark.parametrize("big", [None, 2, 5])
def test_carried_values_are_checked_by_the_next_iteration(big):
    coeffs = np.linspace(1.0, 2.0, 9)
    x = np.array(1.5)
    if big is not None:
        coeffs[big] = 1e308  # p overflows after it, then stays infinite (or becomes nan)
    check_reports(horner, coeffs, x, reruns=big is not None)
    a = np.linspace(0.5, 4.0, 12)
    if big is not None:
        a[big] = 1e308  # a * 3.0 overflows, the next iteration's s * 2.0 sees it
    check_reports(resets, a, reruns=big is not None)
    a[-1] = 1e308  # the last value only: checked after the loop
    check_reports(resets, a, reruns=True)


def test_a_rolled_horner_loop_accumulates_no_check():
    coeffs = npjax.asarray(np.linspace(1.0, 2.0, 9))
    traced = _traced_program(npjax.jit(horner, static_argnums=0), npjax, coeffs,
                             npjax.asarray(1.5))
    scans = [e for e in traced.jaxpr.eqns if e.primitive.name == "scan"]
    assert len(scans) == 1
    carried = [v.aval.dtype for v in scans[0].outvars]
    assert np.dtype(np.float32) not in carried, carried  # no float32 accumulator
