"""npjax.jit rolls the last iteration of a loop too when the code after the loop cannot read
what only that iteration, run in Python, would give (``_loop_source._Live``; ``peeled`` of
``Jitted.loops``): the loop variable of a range is bound to its last value, names nobody
reads are left unbound. Names that may be read after the loop (later statements, the
``else`` clause, the next iteration of an enclosing loop, a nested function, ``locals()``,
``del``) keep the peeled last iteration. Each case is compared with NumPy (values, dtypes,
arguments; warnings and exceptions where they matter)."""

from __future__ import annotations

import ast
import contextlib
import re

import numpy as np
import pytest

import npjax
from benchmarks.kernels import cholesky as _cholesky
from benchmarks.kernels import particles as _particles
from npjax._compile import _loop_source, _loops
from tests.test_jit_carried_views import _data, transposed_copies
from tests.test_jit_loops import _traced_program, branch_all_but_last, check, check_reports


def _rows(n=9, m=3, seed=2):
    rng = np.random.default_rng(seed)
    return rng.random((n, m)), rng.random((n, m))


def _peeled(jitted):
    return [o.peeled for o in jitted.loops if o.rolled]


# --- the liveness pass ------------------------------------------------------------------


def _after_each_loop(fn):
    """The names ``_Live`` finds readable after each ``for`` of ``fn`` (by line order)."""
    fdef = _loop_source._parse(fn)
    live = _loop_source._Live(fdef)
    loops = sorted((n for n in ast.walk(fdef) if isinstance(n, ast.For)),
                   key=lambda n: n.lineno)
    return [live.at_end(n) for n in loops]


def liveness_cases(a, n):
    s = 0.0
    for i in range(n):  # t and i are rebound below before any read
        t = a[i]
        s = s + t
    t = 1.0
    for i in range(n):  # the else clause reads u
        u = a[i] * 2
    else:
        s = s + u
    k = 0
    while k < 2:
        s = s + w if k else s  # noqa: F821 (w: bound by the previous iteration)
        for j in range(n):
            w = a[j]
            v = w * 3  # noqa: F841 (never read)
        k += 1
    return s + t


def test_liveness_follows_statements_else_clauses_and_enclosing_loops():
    first, second, third = _after_each_loop(liveness_cases)
    # u and w: the loops that bind them may run no iteration before the reads
    assert first == {"a", "n", "s", "u", "w", "range"}
    assert second == {"a", "n", "s", "t", "u", "w", "range"}
    assert third == {"a", "n", "s", "t", "w", "k", "range"}  # not i, j, u, v


def generator_and_augmented(a, n):
    g = (t for _ in range(1))  # noqa: F821 (reads t when iterated, after the loop)
    for i in range(n):
        t = a[i]  # noqa: F841 (read by the generator)
        c = a[i]  # noqa: F841 (never read)
        k = 1
    k += 1  # reads k
    return list(g), k


def break_in_an_else_clause(a, n):
    for _i in range(n):
        for j in range(n):
            e = a[j]
        else:
            break  # leaves the outer loop: e is read next
        e = 0
    return e


def test_generators_augmented_assignments_and_breaks_in_else_clauses():
    (after,) = _after_each_loop(generator_and_augmented)
    assert {"t", "k"} <= after and not {"c", "i"} & after
    outer, inner = _after_each_loop(break_in_an_else_clause)
    assert "e" in inner and "e" in outer


def suppressed(a, n):
    with contextlib.suppress(ValueError):
        for i in range(n):
            t = a[i]
        t = 0  # not reached when the loop raises ValueError
    return t


def test_a_with_statement_may_end_its_body_anywhere():
    (after,) = _after_each_loop(suppressed)
    assert "t" in after and "i" not in after


def closure_and_locals(a, n):
    def last():
        return r
    for i in range(n):
        r = a[i]
    return last()


def frames(a, n):
    for i in range(n):
        r = a[i]
    return locals()


def test_nested_functions_and_frame_readers_keep_names_live():
    (after,) = _after_each_loop(closure_and_locals)
    assert "r" in after
    assert _after_each_loop(frames) == [None]


# --- loops that roll every iteration -----------------------------------------------------


def dead_scratch(xp, a, b):
    for i in range(1, a.shape[0]):
        t = a[i - 1] * 0.5
        a[i] = t + b[i]
    return a, i


def scratch_read_after(xp, a, b):
    for i in range(1, a.shape[0]):
        t = a[i - 1] * 0.5
        a[i] = t + b[i]
    return a, t


def scratch_in_else(xp, a, b):
    for i in range(1, a.shape[0]):
        t = a[i - 1] * 0.5
        a[i] = t + b[i]
    else:
        a[0] = t
    return a


def scratch_deleted(xp, a, b):
    for i in range(1, a.shape[0]):
        t = a[i - 1] * 0.5
        a[i] = t + b[i]
    del t
    return a


def scratch_in_a_closure(xp, a, b):
    def last():
        return t * 2
    for i in range(1, a.shape[0]):
        t = a[i - 1] * 0.5
        a[i] = t + b[i]
    return a, last()


def scratch_in_a_generator(xp, a, b):
    g = (t * 2 for _ in range(1))  # noqa: F821 (t: read when iterated)
    for i in range(1, a.shape[0]):
        t = a[i - 1] * 0.5
        a[i] = t + b[i]
    return a, next(g)


def scratch_in_a_with(xp, a, b):
    with xp.errstate(over="ignore"):
        for i in range(1, a.shape[0]):
            t = a[i - 1] * 0.5
            a[i] = t + b[i]
    return a


def scratch_read_in_the_with(xp, a, b):
    with xp.errstate(over="ignore"):
        for i in range(1, a.shape[0]):
            t = a[i - 1] * 0.5
            a[i] = t + b[i]
        a[0] = t
    return a


def scratch_through_locals(xp, a, b):
    for i in range(1, a.shape[0]):
        t = a[i - 1] * 0.5
        a[i] = t + b[i]
    return a, locals()["t"]


def carried_read_after(xp, x, b):
    for i in range(b.shape[0]):
        x = x * 0.5 + b[i]
        y = x * 2  # noqa: F841 (a scratch name nobody reads)
    return x


def index_rebound(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + b[i]
        i = i * 2
    return a, i


def rows_dead(xp, a, s):
    for row in a:
        s = s + row
    return s


def rows_live(xp, a, s):
    for row in a:
        s = s + row
    return s, row


@pytest.mark.parametrize("kernel, peeled", [
    (dead_scratch, False), (scratch_read_after, True), (scratch_in_else, True),
    (scratch_deleted, True), (scratch_in_a_closure, True), (scratch_in_a_generator, True),
    (scratch_through_locals, True), (scratch_in_a_with, False), (scratch_read_in_the_with, True),
    (index_rebound, True)])
def test_the_last_iteration_rolls_unless_something_reads_its_names(kernel, peeled):
    jitted = check(kernel, *_rows(), rolled=True)
    assert _peeled(jitted) == [peeled]
    assert jitted.loops[0].body_runs == (4 if peeled else 3)


def test_a_carried_array_is_known_without_the_last_iteration():
    a, b = _rows()
    jitted = check(carried_read_after, a[0].copy(), b, rolled=True)
    assert _peeled(jitted) == [False]


def test_the_variable_of_a_loop_over_an_array_keeps_the_last_iteration_when_read():
    a, b = _rows()
    assert _peeled(check(rows_dead, a, b[0].copy(), rolled=True)) == [False]
    assert _peeled(check(rows_live, a, b[0].copy(), rolled=True)) == [True]


def test_the_probe_sees_a_branch_decided_otherwise_on_the_last_iteration(monkeypatch):
    # ``LoopIndex.note_next``: no trace of all iterations that the branch would abandon
    traces = []
    real = _loops._enter_body
    monkeypatch.setattr(_loops, "_enter_body", lambda *a: traces.append(1) or real(*a))
    rng = np.random.default_rng(3)
    jitted = check(branch_all_but_last, rng.random(9), np.zeros(9), rolled=True)
    assert _peeled(jitted) == [True]
    assert len(traces) == 2  # the probe, the roll of all iterations but the last


def late(xp, a):
    for i in range(a.shape[0]):
        a[i] = a[i + 1] * 2  # a[n] on the last iteration
    return a


def test_a_last_iteration_unlike_the_others_runs_in_python():
    # ``if i < n - 1``: decided for every iteration but the last, which then runs in Python
    rng = np.random.default_rng(1)
    jitted = check(branch_all_but_last, rng.random(9), np.zeros(9), rolled=True)
    assert _peeled(jitted) == [True]
    # an index out of bounds on the last iteration: NumPy's IndexError, from that iteration
    with pytest.raises(IndexError):
        late(np, np.arange(6.0))
    with pytest.raises(IndexError):
        npjax.jit(late, static_argnums=0)(npjax, npjax.arange(6.0))


def inner_dead(xp, a):
    n, m = a.shape
    for i in range(1, n):
        for j in range(m):
            d = a[i - 1, j] * 0.5
            a[i, j] = d + a[i, j]
    return a


def inner_read_in_outer_body(xp, a):
    n, m = a.shape
    for i in range(1, n):
        for j in range(m):
            d = a[i - 1, j] * 0.5
            a[i, j] = d + a[i, j]
        a[i, 0] += d
    return a


def inner_read_next_outer_iteration(xp, a):
    n, m = a.shape
    k = m - 1
    for i in range(1, n):
        a[i, 0] += k  # the k the inner loop left in the previous iteration
        for j in range(m):
            a[i, j] = a[i - 1, j] * 0.5 + a[i, j]
            k = j
    return a, k


def inner_rebound_before_read(xp, a):
    n, m = a.shape
    d = a[0, 0] * 0.0
    for i in range(1, n):
        for j in range(m):
            d = a[i - 1, j] * 0.5
            a[i, j] = d + a[i, j]
        d = a[i, 0] * 0.25
        a[i, 1] -= d
    return a


@pytest.mark.parametrize("kernel, peeled", [
    (inner_dead, [False, False]), (inner_read_in_outer_body, [True, False]),
    (inner_read_next_outer_iteration, [True, False]),
    (inner_rebound_before_read, [False, False])])
def test_nested_loops(kernel, peeled):
    # inner loop first: it is noted when the trace of the outer body that runs it ends
    jitted = check(kernel, _rows(7, 5)[0], rolled=True)
    assert _peeled(jitted) == peeled


def test_particles_rolls_all_its_loops_whole():
    # the lists the time loop carries are written back after the rolled iterations
    pos, vel, steps = _particles.setup(np.random.default_rng(0), n=7, steps=5)
    jitted = check(_particles.kernel, pos, vel, steps, static=(2,), rolled=True)
    assert _peeled(jitted) == [False] * 4


def test_a_carried_view_rolls_whole_with_its_layout():
    jitted = check_reports(transposed_copies, _data(), 12, static=(1,), reruns=False)
    assert _peeled(jitted) == [False]
    got, want = jitted(npjax, npjax.array(_data()), 12), transposed_copies(np, _data(), 12)
    assert (got.shape, got.strides, got.flags["F_CONTIGUOUS"]) == \
        (want.shape, want.strides, want.flags["F_CONTIGUOUS"])


# --- error state after a loop rolled whole --------------------------------------------------


def overflow_in_a_temporary(xp, a, b):
    for i in range(1, a.shape[0]):
        t = a[i] * b[i]
        a[i] = t - t
    return a


def overflow_carried(xp, x, b):
    for i in range(b.shape[0]):
        x = x * b[i]
    return x


@pytest.mark.parametrize("row", [3, 8])
def test_an_overflow_in_any_iteration_warns_as_numpy(row):
    a, b = _rows()
    a *= 1e300
    b[row] = 1e300
    jitted = check_reports(overflow_in_a_temporary, a, b)
    assert _peeled(jitted) == [False]
    x = np.full(3, 1e290)
    jitted = check_reports(overflow_carried, x, b)
    assert _peeled(jitted) == [False]


# --- the program ----------------------------------------------------------------------------


def test_the_rolled_program_holds_one_body():
    # cholesky's body takes one square root: the peeled last iteration was a second one
    a = _cholesky.setup(np.random.default_rng(0), n=12)[0]
    jitted = npjax.jit(_cholesky.kernel, static_argnums=0)
    text = _traced_program(jitted, npjax, npjax.array(a)).lower().as_text()
    assert len(re.findall(r"stablehlo\.sqrt", text)) == 1
    assert _peeled(jitted) == [False]
    np.testing.assert_allclose(np.asarray(jitted(npjax, npjax.array(a))),
                               _cholesky.kernel(np, a.copy()), rtol=1e-12, atol=1e-12)
