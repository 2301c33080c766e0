"""npjax.jit: loops over Python lists of arrays indexed by the loop index (issue 17,
``particles``; ``npjax/_compile/_loop_lists.py``).

A list of same-shape, same-dtype arrays that a loop body indexes with the loop index rolls
as one stacked array carried by the ``fori_loop``; its items are written back after the
loop. Each case compares with NumPy (values, dtypes, exceptions, final arguments, warnings)
and asserts whether each loop rolled: aliasing the stacking cannot see through, and changes
of the list's structure, leave the loop unrolled as before.
"""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from benchmarks.kernels import particles as _particles
from tests.test_jit_loops import (_array_copies_in_loop_bodies, _program_text, _traced_program,
                                  check, check_reports)


def _rows(n=6, m=3, dtype=np.float64, seed=3):
    return np.random.default_rng(seed).random((n, m)).astype(dtype)


# --- lists that roll ------------------------------------------------------------------------


def recurrence(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(1, len(P)):
        P[i] = P[i - 1] * 0.5 + P[i]
    return xp.stack(P)


def springs(xp, a):
    n = a.shape[0]
    P = [a[i].copy() for i in range(n)]
    F = [xp.zeros(a.shape[1], a.dtype) for _ in range(n)]
    for i in range(n - 1):
        d = P[i + 1] - P[i]
        f = 2.0 * d
        F[i] += f
        F[i + 1] -= f
    return xp.stack(F), xp.stack(P)


def through_a_name(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        x = P[i]
        x += 1.0  # changes P[i] too (the same object)
        x = None
    return xp.stack(P)


def replaced_then_old_changed(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        x = P[i]
        P[i] = x * 2.0
        x += 100.0  # the old object: no longer in P
        x = None
    return xp.stack(P)


def through_a_view(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        v = P[i][1:]
        v *= 3.0
        P[i][0] = P[i][1] - 1.0
        v = None
    return xp.stack(P)


def negative_positions(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(1, len(P)):
        P[-i] = P[-i] + P[-i - 1] * 0.25
    return xp.stack(P)


def two_lists(xp, a, b):
    P = [a[i].copy() for i in range(a.shape[0])]
    V = [b[i].copy() for i in range(b.shape[0])]
    Q = P  # the same list under two names
    for i in range(len(P)):
        V[i] = V[i] * 0.9 + Q[i]
        P[i] = P[i] + 0.1 * V[i]
    return xp.stack(P), xp.stack(V)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_lists_indexed_by_the_loop_index_roll(dtype):
    a = (_rows(dtype=np.float64) * 10).astype(dtype)
    # integers: ``P[i] * 0.5`` is float64 (another dtype: unrolled), ``x += 1.0`` raises
    integer = dtype == np.int64
    for kernel in (recurrence, springs, through_a_name, replaced_then_old_changed,
                   through_a_view, negative_positions):
        check(kernel, a, rolled=None if integer else True)
    b = (_rows(seed=4) * 10).astype(dtype)
    check(two_lists, a, b, rolled=not integer)
    if integer:
        check(integer_recurrence, a, rolled=True)


def integer_recurrence(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(1, len(P)):
        P[i] = P[i - 1] // 2 + P[i]
        P[i - 1] -= 1
    return xp.stack(P)


def test_particles_rolls_its_particle_loops():
    # the time loop rolls too, carrying P and V (lists of its closure) and the loops over
    # particles inside it, all iterations (nothing reads their names after the loops; the
    # three inner loops are noted from the trace of the time loop's body)
    pos, vel, steps = _particles.setup(np.random.default_rng(0), n=7, steps=5)
    jitted = check(_particles.kernel, pos, vel, steps, static=(2,), rolled=True)
    assert len(jitted.loops) == 4, jitted.loops
    # with two steps the time loop unrolls (too short): its six loops roll
    pos, vel, steps = _particles.setup(np.random.default_rng(1), n=7, steps=2)
    check(_particles.kernel, pos, vel, steps, static=(2,), rolled=[False] + [True] * 6)


def test_particles_program_is_smaller():
    # unrolled (before): 8 x 45 bodies, 4358 equations at the top of the program
    pos, vel, steps = _particles.setup(np.random.default_rng(0), **_particles.SIZES["small"])
    jitted = npjax.jit(_particles.kernel, static_argnums=(0, 3))
    traced = _traced_program(jitted, npjax, npjax.array(pos), npjax.array(vel), steps)
    assert [o.rolled for o in jitted.loops] == [True] * 4, jitted.loops
    assert len(traced.jaxpr.eqns) < 500, len(traced.jaxpr.eqns)


def pulls(xp, a, steps):
    n = a.shape[0]
    P = [a[i].copy() for i in range(n)]
    for _ in range(steps):
        F = [xp.zeros(a.shape[1], a.dtype) for _ in range(n)]
        for i in range(n - 1):
            f = 0.5 * (P[i + 1] - P[i])
            F[i] += f
            F[i + 1] -= f
        for i in range(n):
            P[i] = P[i] * 1e5 + F[i]
    return xp.stack(P)


def test_items_stored_in_a_rolled_loop_are_checked_where_they_were_stored():
    # The error-state check of ``F[i] += f`` read ``F[i] + f`` computed again from the
    # stacked value before the iteration's stores: XLA copied that value to update it in
    # place (13 array copies in the loop bodies here); the rows are read back instead.
    a = _rows(n=8)
    check(pulls, a, 5, static=(1,), rolled=True)
    check(pulls, a.astype(np.float32), 5, static=(1,), rolled=True)
    jitted = npjax.jit(pulls, static_argnums=(0, 2))
    text = _program_text(jitted, npjax, npjax.array(a), 5)
    assert _array_copies_in_loop_bodies(text) <= 9
    check_reports(pulls, a, 5, static=(1,), reruns=False)
    check_reports(pulls, a, 70, static=(1,))  # overflows (1e5 ** 70)
    b = a.copy()
    b[3, 1] = np.inf  # inf - inf in the first step: invalid
    check_reports(pulls, b, 5, static=(1,))


# --- aliasing and structure: the loop unrolls, NumPy's answer ----------------------------


def same_object_twice(xp, a):
    x = a[0].copy()
    P = [x, x] + [a[i].copy() for i in range(2, a.shape[0])]
    x = None
    for i in range(len(P)):
        P[i] += 1.0  # P[0] and P[1] are one array: it gets both
    return xp.stack(P)


def item_held_elsewhere(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    keep = P[2]
    for i in range(len(P)):
        P[i] += 1.0
    return xp.stack(P), keep


def stored_in_two_places(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P) - 1):
        P[i + 1] = P[i]
        P[i] *= 2.0  # changes P[i + 1] too
    return xp.stack(P)


def carried_item(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    prev = a[0] * 0.0
    for i in range(len(P)):
        prev += 1.0  # the previous iteration's P[i]
        prev = P[i]
    return xp.stack(P), prev


def views_of_an_argument(xp, a):
    P = [a[i] for i in range(a.shape[0])]  # views of a: writes reach a
    for i in range(len(P)):
        P[i] += 1.0
    return xp.stack(P)


def appended(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        P.append(P[i] * 2.0)
    return xp.stack(P)


def other_shapes(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])] + [a[0, :2].copy()]
    for i in range(a.shape[0]):
        P[i] = P[i] * 2.0
    return xp.stack(P[:-1])


def fixed_position(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(1, len(P)):
        P[i] = P[i] + P[0]
        P[0] = P[0] * 0.5
    return xp.stack(P)


def stacked_in_the_body(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    out = a * 0.0
    for i in range(len(P)):
        P[i] = P[i] * 2.0
        out[i] = xp.stack(P).sum(axis=0)
    return out


def iterated_in_the_body(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    out = a * 0.0
    for i in range(len(P)):
        P[i] = P[i] + 1.0
        for p in P:
            out[i] += p
    return out


def python_value_stored(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        P[i] = 1.5
    return P


def other_dtype_stored(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        P[i] = (P[i] * 10).astype(np.int64)
    return xp.stack(P)


def out_of_bounds(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        P[i] = P[i] + P[i + 1]
    return xp.stack(P)


def reassigned(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(len(P)):
        P = P[:i] + [P[i] * 2.0] + P[i + 1:]
    return xp.stack(P)


def test_aliasing_the_stacking_cannot_see_leaves_the_loop_unrolled():
    a = _rows()
    for kernel in (same_object_twice, item_held_elsewhere, stored_in_two_places, carried_item,
                   views_of_an_argument, appended, other_shapes, fixed_position,
                   stacked_in_the_body, iterated_in_the_body, python_value_stored,
                   other_dtype_stored, reassigned):
        check(kernel, a, rolled=False)
    check(out_of_bounds, a)  # IndexError at NumPy's iteration (the trace stops there)


# --- lists of an enclosing rolled body: made anew in each of its iterations ----------------


def nested(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    for _ in range(reps):
        for i in range(len(P)):
            P[i] = P[i] * 0.5 + 1.0
    return xp.stack(P)


def nested_with_a_new_list(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    for _ in range(reps):
        F = [xp.zeros(a.shape[1]) for _ in range(len(P))]
        for i in range(len(P) - 1):
            F[i] += P[i + 1] - P[i]
        F[-1] = F[0] * 2.0
        P[0] = P[0] + 1.0  # a store by a Python int into a list the body owns
        for i in range(len(P)):
            P[i] = P[i] + 0.1 * F[i]
    return xp.stack(P)


def nested_item_carried(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    first = a[0] * 0.0
    for _ in range(reps):
        first += 1.0  # the previous iteration's P[0] (the same array)
        for i in range(len(P)):
            P[i] = P[i] * 0.5
        first = P[0]
    return xp.stack(P), first


def nested_item_in_a_new_list(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    Q = None
    for _ in range(reps):
        for i in range(len(P)):
            P[i] = P[i] * 0.5
        Q = [P[0], P[1]]  # P's items, held by Q after the iteration
    Q[0] += 1.0
    return xp.stack(P), xp.stack(Q)


def nested_python_value(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    for r in range(reps):
        for i in range(len(P)):
            P[i] = P[i] * 0.5
        P[0] = 2.0 if r == reps - 1 else P[0]  # (rolled: the last iteration runs as written)
        P[1] = 3.0  # a Python float: P is no list of arrays after the iteration
    return P


def nested_list_of_other_shapes(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])] + [a[0, :2].copy()]
    for _ in range(reps):
        P[0] = P[0] * 0.5
    return xp.stack(P[:-1])


def nested_list_changes_length(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    for _ in range(reps):
        P[0] = P[0] * 0.5
        P.pop()
    return xp.stack(P)


def test_lists_of_an_enclosing_rolled_body():
    a = _rows(n=7)
    check(nested, a, 5, static=(1,), rolled=True)
    check(nested_with_a_new_list, a, 5, static=(1,), rolled=True)
    for kernel in (nested_item_carried, nested_item_in_a_new_list, nested_python_value):
        jitted = check(kernel, a, 5, static=(1,))
        outer = min(jitted.loops, key=lambda o: o.line)
        assert not outer.rolled, jitted.loops
    check(nested_list_of_other_shapes, a, 5, static=(1,), rolled=False)
    check(nested_list_changes_length, a, 5, static=(1,), rolled=False)


def nested_overflow(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    for _ in range(reps):
        for i in range(1, len(P)):
            P[i] = P[i] * 1e100 + P[i - 1]
        P[0] = P[0] * 0.5
    return xp.stack(P)


def test_warnings_of_nested_list_loops_are_numpys():
    a = _rows(n=6) * 1e-300
    check_reports(nested_overflow, a, 4, static=(1,), reruns=False)
    check_reports(nested_overflow, _rows(n=6), 4, static=(1,), reruns=True)


# --- floating-point reports -------------------------------------------------------------


def overflows(xp, a):
    P = [a[i].copy() for i in range(a.shape[0])]
    for i in range(1, len(P)):
        P[i] = P[i] * 1e300 + P[i - 1]
        P[i - 1] = P[i - 1] * 0.5
    return xp.stack(P)


def test_warnings_of_a_rolled_list_loop_are_numpys():
    a = _rows(n=8)
    check_reports(overflows, a, reruns=False)
    a[3, 1] = 1e10  # overflows in one iteration
    check_reports(overflows, a, reruns=True)
    b = _rows(n=8)
    b[-1, 0] = np.inf  # the last iteration's (run as written)
    b[2, 2] = -np.inf  # an item not finite before the loop: inf * 1e300 warns nothing
    check_reports(overflows, b, reruns=True)
    with npjax.errstate(over="raise"):
        with pytest.raises(FloatingPointError) as np_info:
            overflows(np, a)
        with pytest.raises(FloatingPointError) as info:
            npjax.jit(overflows, static_argnums=0)(npjax, npjax.array(a))
    assert str(info.value) == str(np_info.value)


def stacked_each_step(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    out = xp.zeros((reps,) + a.shape)
    for t in range(reps):
        for i in range(len(P) - 1):
            P[i + 1] = P[i + 1] + 0.5 * P[i]
        out[t] = xp.stack(P)  # the whole list, in the enclosing body: its own arrays
    return out


def through_a_tuple(xp, a, reps):
    P = [a[i].copy() for i in range(a.shape[0])]
    T = (P, 2.0)
    for _ in range(reps):
        for i in range(a.shape[0]):  # (P itself is no name of the body: T holds it)
            T[0][i] = T[0][i] * T[1]  # not a list the outer body owns
    return xp.stack(P)


def test_more_lists_of_enclosing_bodies():
    a = _rows(n=6)
    check(stacked_each_step, a, 5, static=(1,), rolled=True)
    jitted = check(through_a_tuple, a, 5, static=(1,))
    assert not min(jitted.loops, key=lambda o: o.line).rolled, jitted.loops


def lists_as_arguments(xp, P, V):
    for i in range(len(P)):
        P[i] += V[i]  # NumPy changes the caller's arrays
    return P[0] * 1.0


def test_lists_passed_to_the_function_change_the_callers_arrays():
    # (the items are the caller's arrays: held elsewhere, so the loop unrolls; written back)
    a, b = _rows(n=5), _rows(n=5, seed=9)
    P = [a[i].copy() for i in range(5)]
    want = lists_as_arguments(np, P, [b[i].copy() for i in range(5)])
    jitted = npjax.jit(lists_as_arguments, static_argnums=0)
    for _ in range(2):
        P2 = [npjax.array(a[i]) for i in range(5)]
        got = jitted(npjax, P2, [npjax.array(b[i]) for i in range(5)])
        np.testing.assert_array_equal(np.asarray(got), want)
        for x, y in zip(P2, P):
            np.testing.assert_array_equal(np.asarray(x), y)
