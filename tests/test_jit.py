"""npjax.jit: jitted vs eager npjax vs NumPy, including mutation of arguments and views."""

from __future__ import annotations

import ast
import inspect
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import assert_same, assert_same_outcome
from tests._rerun import rerun, suites_id
from tests.strategies import arrays
from tests._threads import run_threads


def _args(xp, host_args):
    return [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in host_args]


_JITTED: dict = {}


def _outcome(run, xp, args):
    try:
        with np.errstate(all="ignore"):  # npjax does not give NumPy's float warnings
            return run(xp, *args), None
    except Exception as exc:  # compared with NumPy's exception below
        return None, exc


def check_kernel(kernel, *host_args, static=(), calls=2):
    """Run ``kernel(xp, *args)`` with NumPy, eager npjax and npjax.jit (twice, so the cached
    program runs too): same results and the same final state of every array argument."""
    key = (kernel.__code__, static)
    jitted = _JITTED.get(key)
    if jitted is None:  # one per kernel: Hypothesis examples reuse its compiled programs
        jitted = _JITTED[key] = npjax.jit(kernel, static_argnums=(0, *[i + 1 for i in static]))
    for _ in range(calls):
        np_args = _args(np, [a.copy() if isinstance(a, np.ndarray) else a for a in host_args])
        expected, np_exc = _outcome(kernel, np, np_args)
        for run in (kernel, jitted):
            args = _args(npjax, host_args)
            actual, exc = _outcome(run, npjax, args)
            assert_same_outcome(actual, exc, expected, np_exc, args, np_args)
    return jitted


def loop_rows(xp, a, b, n):
    for i in range(n):
        a[i] = a[i] * 2 + b[i]
    a += b
    return a.sum()


def stencil(xp, u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def with_out(xp, a, b, out):
    xp.multiply(a, b, out=out)
    xp.add(out, 1, out=out)
    return out


def through_views(xp, a):
    v = a[::2]
    v *= 10
    t = a.reshape(2, 3).T
    t[0] = -1
    return a[1:4]


def aliasing(xp, a, v):
    v += 1  # v is a view of a
    return a.sum() + v.sum()


def returned_view(xp, a):
    a[0] = 5
    return a[1:], a.T, (a + 1)[::2]


def scalar_writes(xp, a, b):
    a[0] = b[1]  # a NumPy scalar into an array of another dtype
    a[1:2] = b[0]
    return a


def fancy(xp, a, idx):
    a[0] = 7
    a[idx] = 0
    return a[idx]


def test_loop_writes_and_inplace():
    check_kernel(loop_rows, np.arange(5.0), np.ones(5), 3, static=(2,))


def test_stencil_2d():
    u = np.zeros((4, 4))
    u[0] = 1.0
    check_kernel(stencil, u, 3, static=(1,))


def test_out_parameter():
    check_kernel(with_out, np.arange(3.0), np.arange(3.0), np.zeros(3))


def test_writes_through_views():
    check_kernel(through_views, np.arange(6.0))


def test_aliasing_arguments():
    a = npjax.arange(4.0)
    f = npjax.jit(aliasing, static_argnums=0)
    r = f(npjax, a, a[::2])
    host = np.arange(4.0)
    expected = aliasing(np, host, host[::2])
    assert_same(r, expected)
    assert_same(a, host)


def test_returned_views_are_views_of_the_caller_array():
    a = npjax.arange(4.0)
    f = npjax.jit(returned_view, static_argnums=0)
    v, t, c = f(npjax, a)
    assert v.base is a and t.base is a
    v[0] = 42.0  # writes through to the caller's array, as in NumPy
    assert float(a[1]) == 42.0
    assert c.base is not a
    host = np.arange(4.0)
    hv, ht, hc = returned_view(np, host)
    hv[0] = 42.0
    assert_same(a, host)
    assert_same(c, hc)


def test_returns_the_argument_itself():
    a = npjax.zeros(3)

    @npjax.jit
    def f(x):
        x[1] = 2.0
        return x

    assert f(a) is a
    assert_same(a, np.array([0.0, 2.0, 0.0]))


@pytest.mark.parametrize("b", [[-7.5, 2.5], [1e300, 2.5], [np.nan, 1.0]])
def test_numpy_scalar_stores_keep_numpy_checks(b):
    check_kernel(scalar_writes, np.zeros(3, np.int64), np.array(b), calls=1)


def test_fancy_index_out_of_bounds_raises_index_error():
    check_kernel(fancy, np.arange(4.0), np.array([1, 3]))
    check_kernel(fancy, np.arange(4.0), np.array([1, -5]), calls=1)
    check_kernel(fancy, np.arange(4.0), np.array([4]), calls=1)


def test_negative_integer_power_raises():
    check_kernel(lambda xp, a, b: a ** b, np.arange(3), np.array([1, -1, 2]), calls=1)


def test_static_arguments_retrace():
    f = npjax.jit(loop_rows, static_argnums=0)
    a, b = npjax.arange(5.0), npjax.ones(5)
    f(npjax, a, b, 2)
    f(npjax, a, b, 2)
    assert f._cache_size() == 1
    f(npjax, a, b, 3)
    assert f._cache_size() == 2
    f(npjax, npjax.arange(6.0), npjax.ones(6), 3)  # a new shape: a new program
    assert f._cache_size() == 3
    host_a, host_b = np.arange(5.0), np.ones(5)
    for n in (2, 2, 3):
        loop_rows(np, host_a, host_b, n)
    assert_same(a, host_a)


@pytest.mark.device_placement
def test_views_with_other_offsets_share_a_program():
    @npjax.jit
    def f(row):
        row *= 2

    # float32: a device dtype everywhere (float64 arrays are host arrays on a TPU)
    a = npjax.arange(12, dtype=np.float32).reshape(3, 4)
    for i in range(3):
        f(a[i, 1:])
    assert f._cache_size() == 1
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    host[:, 1:] *= 2
    assert_same(a, host)


def test_static_argnames_and_keywords():
    @npjax.jit(static_argnames="k")
    def f(x, *, k, y):
        return x * k + y

    assert_same(f(npjax.arange(3.0), k=2, y=npjax.ones(3)), np.arange(3.0) * 2 + 1)


def _value_branch(x):
    if x.sum() > 0:  # the line the error must name
        return x
    return -x


def test_value_dependent_branch_names_the_line():
    line = inspect.getsourcelines(_value_branch)[1] + 1
    f = npjax.jit(_value_branch)
    with pytest.raises(npjax.JitError, match=rf"test_jit\.py:{line}:"):
        f(npjax.arange(3.0))


def test_data_dependent_shape_raises_jit_error():
    f = npjax.jit(lambda x: x[x > 1])
    with pytest.raises(npjax.JitError):
        f(npjax.arange(3.0))


def test_fallback_eager():
    f = npjax.jit(_value_branch, fallback="eager")
    a = npjax.arange(3.0)
    assert_same(f(a), np.arange(3.0))
    assert_same(f(-a), np.arange(3.0))
    g = npjax.jit(lambda x: x[x > 1], fallback="eager")
    assert_same(g(a), np.array([2.0]))
    assert_same(g(a), np.array([2.0]))


def test_fallback_eager_is_counted_at_the_line_that_could_not_trace():
    """npjax.stats() (and the runner's report) name the line that made a call run eagerly."""
    from npjax._tools import _report

    line = inspect.getsourcelines(_value_branch)[1] + 1
    f = npjax.jit(_value_branch, fallback="eager")
    npjax.reset_stats()
    f(npjax.arange(3.0))
    f(npjax.arange(3.0))  # the cached decision: eager again, counted again
    eager = npjax.stats()["jit_eager"]
    assert [(e["function"], e["count"]) for e in eager] == [("_value_branch", 2)]
    assert eager[0]["site"].endswith(f"test_jit.py:{line}")
    assert eager[0]["why"].startswith("TracerArrayConversionError: "), eager[0]["why"]
    text = _report.format_report(npjax.stats())
    assert "npjax.jit functions run eagerly" in text and f"test_jit.py:{line}" in text
    assert eager[0]["why"] in text


@pytest.mark.device_placement
def test_writing_a_captured_array_raises():
    captured = npjax.zeros(3, np.float32)  # (a device dtype everywhere, as above)

    @npjax.jit
    def f(x):
        captured[0] = x[0]
        return x

    with pytest.raises(npjax.JitError, match="not one of its arguments"):
        f(npjax.ones(2, np.float32))
    assert_same(captured, np.zeros(3, np.float32))  # unchanged, and no tracer leaked into it
    captured[1] = 1.0


def test_new_arrays_inside_and_host_arguments():
    @npjax.jit
    def f(x, h):
        b = npjax.zeros(3)
        b[0] = x[0]
        h *= 2  # a host NumPy argument: written back, as NumPy would have mutated it
        return b, b[1:], x.sum(), jnp.float64(1.5) * h

    h = np.arange(3.0)
    b, v, s, j = f(npjax.ones(3), h)
    np.testing.assert_array_equal(h, np.arange(3.0) * 2)
    assert_same(b, np.array([1.0, 0.0, 0.0]))
    assert v.base is b
    assert_same(s, np.float64(3.0))
    assert isinstance(j, jax.Array)


def test_jax_array_arguments_and_bad_arguments():
    f = npjax.jit(lambda x, y: npjax.add(x, y))
    assert_same(f(jnp.arange(3.0), npjax.ones(3)), np.arange(3.0) + 1)
    with pytest.raises(TypeError, match="cannot be static"):
        f({1, 2} and [set()], 1)


def test_readonly_view_argument():
    f = npjax.jit(lambda x: x.__setitem__(0, 1.0))
    b = npjax.broadcast_to(npjax.ones(1), (3,))
    with pytest.raises(ValueError, match="read-only"):
        f(b)


@given(arrays(np.float64, (4, 3)), st.integers(0, 3))
def test_random_stencil_parity(host, i):
    def k(xp, a, i):
        a[i] = a[i] + a[(i + 1) % 4]
        a[:, 1:] -= a[:, :-1]
        return a.sum(axis=0)

    check_kernel(k, host, i, static=(1,), calls=1)


def test_float_error_state_under_jit():
    f = npjax.jit(lambda a: a / 0)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        f(npjax.ones(2))
    with np.errstate(all="ignore"):
        assert_same(f(npjax.ones(2)), np.full(2, np.inf))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(npjax.ones(2))
    assert_same(f(npjax.zeros(0)), np.zeros(0))


def test_updates_whose_results_have_several_users():
    # XLA's CPU backend duplicated an in-place update into each user of its result; the
    # copies then shared one buffer (a wrong element here before the update kernels ended
    # in an optimisation barrier).
    def h(xp, a):
        v = a[::2]
        v += 1
        a[1:] = a[:-1] * 0.5
        b = a.reshape(-1, 1).T
        b[0, :2] = -3.0
        return v, a, b.sum(axis=1)

    f = npjax.jit(h, static_argnums=0)
    got = f(npjax, npjax.asarray(np.zeros(3)))
    want = h(np, np.zeros(3))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_trace_in_one_thread_does_not_see_writes_in_another():
    # The trace state lived in module globals: thread B's write, made while thread A traced,
    # was taken for a write by A's function (JitError) and undone (B's value lost).
    import threading

    tracing, written = threading.Event(), threading.Event()

    def body(x):
        tracing.set()
        assert written.wait(30)
        return x * 2.0

    f = npjax.jit(body)
    b = npjax.zeros(3)
    results = {}

    def trace_in_a():
        results["a"] = f(npjax.ones(3))

    def write_in_b():
        assert tracing.wait(30)
        b[1] = 7.0
        written.set()

    run_threads([(trace_in_a, ()), (write_in_b, ())], timeout=60)
    assert_same(results["a"], np.full(3, 2.0))
    assert_same(b, np.array([0.0, 7.0, 0.0]))


def test_concurrent_calls_of_one_jitted_function_use_their_own_arguments():

    f = npjax.jit(lambda x: x + 1.0)
    outs = {}

    def call(i):
        outs[i] = f(npjax.full(4, float(i)))

    run_threads([(call, (i,)) for i in range(8)], timeout=60)
    for i in range(8):
        assert_same(outs[i], np.full(4, i + 1.0))


@pytest.mark.parametrize("name", ["inv", "solve", "cholesky"])
def test_linalg_errors_are_device_checks(name):
    # They raised JitError (a host read of the singular flag) blaming the user's line.
    good = np.array([[4.0, 1.0], [1.0, 3.0]])
    bad = np.array([[1.0, 2.0], [2.0, 4.0]]) if name != "cholesky" else -good
    check_kernel(_linalg_call, name, good, np.ones(2), static=(0,))
    check_kernel(_linalg_call, name, bad, np.ones(2), static=(0,), calls=1)


def _linalg_call(xp, name, a, b):
    la = xp.linalg
    return la.solve(a, b) if name == "solve" else getattr(la, name)(a)


def _mask_writes(xp, a, z):
    a[a <= 0.1] = 1.0  # traced as a select: no shape depends on the data
    z[1:-1][z[1:-1] > 2] = 0
    return a.sum() + z.sum()


def test_mask_writes_trace():
    rng = np.random.default_rng(5)
    check_kernel(_mask_writes, rng.random((6, 5)), rng.integers(0, 5, (7, 3)))


def _eig_call(xp, name, a):
    r = getattr(xp.linalg, name)(a)
    return r if name == "eigvals" else r.eigenvalues


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eig_checks_are_device_checks(name):
    # Finite input and the real-or-complex result dtype were read on the host (JitError).
    # Traced, the result is complex; all-real eigenvalues rerun eagerly (NumPy's real dtype).
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    check_kernel(_eig_call, name, rotation, static=(0,))
    check_kernel(_eig_call, name, np.array([[2.0, 0.0], [0.0, 1.0]]), static=(0,), calls=1)
    check_kernel(_eig_call, name, np.array([[np.nan, 0.0], [0.0, 1.0]]), static=(0,),
                 calls=1)


def _lstsq_call(xp, a, b):
    x, resids, rank, s = xp.linalg.lstsq(a, b)
    return x.round(8), resids.round(8), rank, s.round(8)


def test_lstsq_under_jit():
    rng = np.random.default_rng(11)
    check_kernel(_lstsq_call, rng.standard_normal((5, 3)), rng.standard_normal(5))
    deficient = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])  # rank 1: no residuals
    check_kernel(_lstsq_call, deficient, np.ones(3), calls=1)
    check_kernel(_lstsq_call, rng.standard_normal((2, 3)), rng.standard_normal(2))


def test_value_checks_of_reductions_are_device_checks():
    avg = lambda xp, a, w: xp.average(a, weights=w)  # noqa: E731
    check_kernel(avg, np.arange(3.0), np.array([1.0, 2.0, 3.0]))
    check_kernel(avg, np.arange(3.0), np.array([1.0, -1.0, 0.0]), calls=1)
    nanarg = lambda xp, a: (xp.nanargmax(a), xp.nanargmin(a, axis=0))  # noqa: E731
    check_kernel(nanarg, np.array([[np.nan, 1.0], [2.0, np.nan]]))
    check_kernel(nanarg, np.array([[np.nan, 1.0], [np.nan, np.nan]]), calls=1)


def _draws(xp, p, lam):
    rng = xp.random.default_rng(3)
    return rng.binomial(10, p), rng.poisson(lam)


def test_random_parameter_checks_are_device_checks():
    # The traced draws come from the JAX key (operands traced on the device), so under the
    # default random="auto" the eager reference, with host operands, must use that key too.
    npjax.set_policy(random="jax")
    f = npjax.jit(_draws, static_argnums=0)
    p, lam = np.array([0.2, 0.9]), np.array([1.0, 4.0])
    want = _draws(npjax, npjax.asarray(p), npjax.asarray(lam))
    got = f(npjax, npjax.asarray(p), npjax.asarray(lam))
    for g, w in zip(got, want):
        assert_same(g, np.asarray(w))
    for bad_p, bad_lam in ((np.array([0.2, 1.5]), lam), (p, np.array([1.0, -1.0]))):
        with pytest.raises(ValueError):
            f(npjax, npjax.asarray(bad_p), npjax.asarray(bad_lam))
        with pytest.raises(ValueError):
            _draws(np, bad_p, bad_lam)


def test_a_call_counts_its_host_arguments_as_transfers_at_the_callers_line():
    # One record per call (the caller's line is looked up once): count and bytes per argument.
    f = npjax.jit(lambda a, b: a * b)
    # float32 and float16: device dtypes everywhere (float64 lives on the host on a TPU)
    a, b = npjax.asarray(np.ones(4, np.float32)), npjax.asarray(np.ones(4, np.float16))
    f(a, b)
    npjax.reset_stats()
    f(a, b); line = sys._getframe().f_lineno  # noqa: E702
    s = npjax.stats()
    if a._host() is None:  # a policy that keeps small arrays on the device: nothing is sent
        assert s["transfers"]["host_to_device"]["count"] == 0
        return
    assert s["transfers"]["host_to_device"] == {"count": 2, "bytes": 24}
    sites = {(e["direction"], e["site"]): e for e in s["transfer_sites"]}
    assert sites[("host_to_device", f"{__file__}:{line}")]["count"] == 2


def test_an_index_array_into_an_empty_axis_raises_index_error():
    # NumPy: any entry is out of bounds for a size-0 axis; the trace knows it from the shape
    # (it raised JAX's gather TypeError; found by the parity suites under --npjax-jit).
    f = npjax.jit(lambda a, i: a[i])
    with pytest.raises(IndexError):
        np.zeros(0)[np.array([0])]
    with pytest.raises(IndexError):
        f(npjax.zeros(0), npjax.asarray([0]))
    assert f(npjax.zeros(0), npjax.asarray([], dtype=np.intp)).shape == (0,)


# Parity suites with every test body traced by npjax.jit (tests/_parity.py, --npjax-jit): one
# group in CI; docs/development.md's command runs every suite so.
# (test_reductions.py, the longest, reruns in lazy mode and on the device already.)
JIT_SUITES = ["tests/test_views.py tests/test_indexing.py tests/test_operators.py "
              "tests/test_scalars.py tests/test_smoke_parity.py tests/test_selection.py"]


@pytest.mark.rerun
@pytest.mark.parametrize("suite", JIT_SUITES, ids=suites_id)
def test_core_parity_suites_pass_with_bodies_under_npjax_jit(suite):
    out = rerun(suite, "-x", "--npjax-jit")
    line = next(s for s in out.splitlines() if s.startswith("npjax.jit parity bodies:"))
    counts = ast.literal_eval(line.split(":", 1)[1].strip())
    # Most bodies trace; the rest (float(), data-dependent shapes) run eagerly by fallback.
    assert counts["traced"] >= 3 * counts["eager"], counts


def test_a_gather_view_returned_from_a_trace():
    # as_strided's view carries an array of positions (found by --npjax-jit: it raised
    # JAX's TypeError when the view was rebuilt after the call)
    def f(xp, a):
        return xp.lib.stride_tricks.as_strided(a, (4, 3), (a.strides[0], a.strides[0]))

    want = f(np, np.arange(6.0))
    got = npjax.jit(f, static_argnums=0)(npjax, npjax.asarray(np.arange(6.0)))
    assert_same(got, want)


def test_an_array_from_outside_returned_from_a_trace_is_that_array():
    # as NumPy returns it (found by --npjax-jit: a pending lazy value left the trace)
    with npjax.policy(mode="lazy", placement="device"):
        outside = npjax.asarray(np.arange(4.0)) * 2  # pending
        got = npjax.jit(lambda x: (x + 1, outside))(npjax.asarray(np.ones(2)))
    assert got[1] is outside
    assert_same(got[1], np.arange(4.0) * 2)
    assert_same(got[0], np.full(2, 2.0))
