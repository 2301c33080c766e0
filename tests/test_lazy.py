"""Lazy mode: recorded calls run as one compiled program when a value is needed.

Values, dtypes, shapes and exceptions must be NumPy's (and eager npjax's, bit for bit); the
rest checks what lazy mode adds: when programs run, that they are reused, that dead
temporaries are not kept, and that floating-point warnings come when the value is read.
The whole parity suite also runs under lazy mode with ``pytest --npjax-mode=lazy``.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._execution import _lazy
from tests._parity import DEVICE_FLOAT as F
from tests._parity import assert_parity
from tests._rerun import rerun, suites_id
from tests._threads import run_threads

# Lazy mode records device work: arrays made outside it are device arrays here too.
pytestmark = pytest.mark.device_placement

LAZY = dict(mode="lazy")
# Float arrays meaning device ones are F: float64, or float32 where the accelerator holds no
# float64 (there float64 arrays are host arrays, NumPy's); a float32 sum is XLA's order there.
RTOL = 1e-12 if F is np.float64 else 1e-5


def _close(got, want) -> None:
    """Bit for bit in float64; within RTOL in float32 (XLA's order of a sum, not NumPy's)."""
    if F is np.float64:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=RTOL)


def _lazy_counts() -> dict:
    return npjax.stats()["lazy"]


def test_chain_records_then_runs_once():
    x = np.random.default_rng(0).random(1000).astype(F)
    a = npjax.asarray(x)
    npjax.reset_stats()
    with npjax.policy(**LAZY):
        s = npjax.sqrt(a * a + 2 * a + 1).sum()
        assert _lazy_counts()["flushes"] == 0
        assert _lazy_counts()["recorded"] >= 5
        assert s.shape == () and s.dtype == F  # known without running anything
        value = float(s)
    assert _lazy_counts()["flushes"] == 1
    _close(value, float(np.sqrt(x * x + 2 * x + 1).sum()))


def _jacobi(xp, u, steps):
    total = 0.0
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        total += float(u.sum())  # a read every iteration: one flush per iteration
    return u, total


def test_loop_body_compiles_once():
    u0 = np.random.default_rng(1).random((12, 12)).astype(F)
    want = _jacobi(np, u0.copy(), 6)
    u = npjax.asarray(u0)
    npjax.reset_stats()
    with npjax.policy(**LAZY):
        got = _jacobi(npjax, u, 6)
    counts = _lazy_counts()
    assert counts["flushes"] == 6
    assert counts["programs"] <= 2  # the first iteration's program may differ (no cache yet)
    np.testing.assert_array_equal(np.asarray(got[0]), want[0])
    _close(got[1], want[1])


def test_dead_temporaries_are_not_kept():
    a = npjax.asarray(np.arange(6.0, dtype=F))
    with npjax.policy(**LAZY):
        t = a * 2
        y = t + 1
        del t
        npjax.reset_stats()
        y._read()
    assert _lazy_counts()["outputs"] == 1
    with npjax.policy(**LAZY):
        t = a * 2
        y = t + 1
        npjax.reset_stats()
        y._read()
    assert _lazy_counts()["outputs"] == 2  # t is still referenced: computed too
    np.testing.assert_array_equal(np.asarray(t), np.arange(6.0) * 2)


def _script(xp, x):
    """NumPy-style code with views, in-place operators, out= and element loops."""
    a = x.copy()
    v = a[::2]
    v += 1
    a[1:] = a[:-1] * 0.5  # overlapping: NumPy reads before it writes
    b = a.reshape(-1, 1).T
    b[0, :2] = -3.0
    c = xp.empty_like(a)
    xp.multiply(a, a, out=c)
    for i in range(min(3, a.shape[0])):
        c[i] = a[i] + c[-1 - i]
    m = xp.maximum(c, 0.0).mean()
    return a, c, b.sum(axis=1), m, x


@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=12))
def test_script_matches_numpy(values):
    x = np.array(values)
    with npjax.policy(**LAZY):
        assert_parity(lambda xp: _script(xp, xp.asarray(x)))


_OPS = [
    lambda xp, a, b: a + b, lambda xp, a, b: a * b - b, lambda xp, a, b: xp.sqrt(xp.abs(a)),
    lambda xp, a, b: xp.where(a > b, a, b), lambda xp, a, b: a[::-1] / (b + 2.0),
    lambda xp, a, b: xp.exp(-a * a), lambda xp, a, b: (a - a.mean()) * b.max(),
    lambda xp, a, b: xp.cumsum(a) + b, lambda xp, a, b: a.astype(np.float32) * 2,
    lambda xp, a, b: xp.minimum(a, 1.0) ** 2,
]


@given(st.lists(st.integers(0, len(_OPS) - 1), min_size=1, max_size=8),
       st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.25, 1e300, np.inf, -np.inf, np.nan, 3.0]),
                min_size=4, max_size=4))
def test_lazy_equals_eager_bit_for_bit(ops, values):
    def run(xp):
        a = xp.asarray(np.array(values))
        b = xp.asarray(np.array(values[::-1]))
        for k in ops:
            a, b = _OPS[k](xp, a, b).astype(np.float64), a
        return a

    with np.errstate(all="ignore"):
        eager = np.asarray(run(npjax))
        with npjax.policy(**LAZY):
            lazy = np.asarray(run(npjax))
        expected = run(np)
    np.testing.assert_array_equal(lazy, eager)
    numbers = ~np.isnan(eager)  # the sign of a NaN is not specified (NumPy's differs too)
    np.testing.assert_array_equal(np.signbit(lazy[numbers]), np.signbit(eager[numbers]))
    np.testing.assert_allclose(lazy, expected, rtol=1e-12)


def test_floating_point_warnings_come_when_the_value_is_read():
    a = npjax.asarray(np.array([0.0, 1.0], F))
    with npjax.policy(**LAZY):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = 1 / a  # recorded: nothing is computed, nothing warns yet
            z = npjax.log(a - 1)
        with pytest.warns(RuntimeWarning) as caught:
            values = np.asarray(y), np.asarray(z)
    texts = sorted(str(w.message) for w in caught)
    assert texts == ["divide by zero encountered in divide", "divide by zero encountered in log",
                     "invalid value encountered in log"]
    np.testing.assert_array_equal(values[0], [np.inf, 1.0])


def test_error_state_of_the_recording_applies():
    a = npjax.asarray(np.array([0.0, 1.0]))
    with npjax.policy(**LAZY):
        with np.errstate(divide="ignore"):
            y = 1 / a
        with np.errstate(divide="raise"), pytest.raises(FloatingPointError,
                                                        match="divide by zero"):
            2 / a  # raised at its own line, as NumPy's (computed at once under "raise")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.asarray(y)[0] == np.inf  # ignored when recorded: silent when read


def test_bound_flushes_long_graphs(monkeypatch):
    monkeypatch.setattr(_lazy, "BOUND", 10)
    u0 = np.random.default_rng(2).random((8, 8)).astype(F)
    u = npjax.asarray(u0)
    npjax.reset_stats()
    with npjax.policy(**LAZY):
        for _ in range(20):
            u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    flushes, programs = _lazy_counts()["flushes"], _lazy_counts()["programs"]
    result = np.asarray(u)
    for _ in range(20):
        u0[1:-1, 1:-1] = 0.25 * (u0[:-2, 1:-1] + u0[2:, 1:-1] + u0[1:-1, :-2] + u0[1:-1, 2:])
    assert flushes >= 10
    assert programs <= 2  # every cut falls at the same point of the loop body
    np.testing.assert_array_equal(result, u0)


def test_values_recorded_in_lazy_mode_work_after_it():
    with npjax.policy(**LAZY):
        a = npjax.arange(5.0) * 2
        v = a[1:3]
        v[...] = -1
    assert a.tolist() == [0.0, -1.0, -1.0, 6.0, 8.0]
    a[0] = 7  # eager write on a value computed by a lazy program
    assert a.tolist() == [7.0, -1.0, -1.0, 6.0, 8.0]


def test_errors_are_raised_at_the_call():
    a = npjax.asarray(np.arange(4.0))
    with npjax.policy(**LAZY):
        with pytest.raises(ValueError):
            a + npjax.ones(3)
        with pytest.raises(IndexError):
            a[4] = 1.0
        with pytest.raises(np.exceptions.AxisError):
            (a * 2).sum(axis=1)


def test_functions_without_a_lazy_path_get_values():
    x = np.random.default_rng(3).random((4, 4)) + np.eye(4)
    with npjax.policy(**LAZY):
        a = npjax.asarray(x) * 2
        inv = npjax.linalg.inv(a)  # runs on computed values
        s = npjax.sort(a, axis=0)
        nz = npjax.nonzero(a > 1)  # a data-dependent shape
    np.testing.assert_allclose(np.asarray(inv), np.linalg.inv(x * 2), rtol=1e-10)
    np.testing.assert_array_equal(np.asarray(s), np.sort(x * 2, axis=0))
    for got, want in zip(nz, np.nonzero(x * 2 > 1)):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_jit_functions_called_in_lazy_mode():
    def step(u):
        u[1:] += u[:-1]
        return u.sum()

    f = npjax.jit(step)
    x = np.arange(5.0)
    with npjax.policy(**LAZY):
        a = npjax.asarray(x) + 1
        s = f(a)
    x = x + 1
    want = step(x)
    assert float(s) == float(want)
    np.testing.assert_array_equal(np.asarray(a), x)


def test_kernels_run_now_compute_lazy_operands_first():
    # Kernel.now decides before the call (no retry on a TypeError): a pending or computed
    # lazy operand is computed, then the kernel runs once
    import jax
    import jax.numpy as jnp

    k = _lazy.Kernel(jax.jit(lambda x, ys: x + ys[0] * ys[1]))
    with npjax.policy(**LAZY):
        pending = k(jnp.ones(3), (jnp.ones(3), 2.0))  # recorded, not run
    assert type(pending) is _lazy.Lazy and pending.value is None
    eager = k(pending, (pending, 1.0))  # outside lazy mode, nested in a pytree too
    np.testing.assert_array_equal(np.asarray(eager), [6.0, 6.0, 6.0])
    assert type(pending) is _lazy.Lazy and pending.value is not None


def test_traces_in_lazy_mode_read_pending_values():
    # A jax transform traced while lazy mode records meets a pending operand: it is computed
    # outside the trace (the array keeps a value, not a tracer), and the kernel runs in the
    # trace on it
    import jax

    with npjax.policy(**LAZY):
        a = npjax.arange(4.0, dtype=F) * 2.0
        assert type(a._value) is _lazy.Lazy
        got = jax.jit(lambda x: npjax.add(a, x))(npjax.ones(4, F))
        np.testing.assert_array_equal(np.asarray(got), [1.0, 3.0, 5.0, 7.0])
        assert not isinstance(a._read(), jax.core.Tracer)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_runner_lazy_mode_matches_numpy():
    done = subprocess.run([sys.executable, "-m", "npjax", "run", "--mode", "lazy", "--compare",
                           "--no-report", "examples/heat_equation.py"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "MATCH" in done.stdout + done.stderr


# The core parity suites, rerun under lazy mode (the whole suite: ``--npjax-mode=lazy``), in
# two processes of about the same time (see DEVICE_SUITES in tests/test_placement.py).
LAZY_SUITES = ["tests/test_reductions.py tests/test_scalars.py",
               "tests/test_views.py tests/test_indexing.py tests/test_operators.py "
               "tests/test_smoke_parity.py"]


@pytest.mark.rerun
@pytest.mark.parametrize("suite", LAZY_SUITES, ids=suites_id)
def test_core_parity_suites_pass_under_lazy_mode(suite):
    rerun(suite, "-x", "--npjax-mode=lazy", "--npjax-placement=device")


@pytest.mark.parametrize("expression", [
    lambda xp, x: (1 / x) + 1,               # the divide's result shows in the add's
    lambda xp, x: xp.exp(-(1 / x)) * 2,      # exp(-inf) is 0: the divide is checked itself
    lambda xp, x: (1 / x)[1:] + 1,           # the inf is sliced away: checked itself
    lambda xp, x: xp.sqrt(xp.log(x) - 1),    # log(0) and sqrt(-inf): both reported
])
@pytest.mark.parametrize("how", ["lazy", "jit"])
def test_warnings_of_fused_intermediates_match_numpy(expression, how):
    # lazy programs and npjax.jit check only results whose uses would not show a non-finite
    # value; every warning NumPy gives must still come
    x = np.array([0.0, 1.0, 2.0])
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        expected = expression(np, x)
    a = npjax.asarray(x)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        if how == "jit":
            result = np.asarray(npjax.jit(expression, static_argnums=0)(npjax, a))
        else:
            with npjax.policy(**LAZY):
                result = np.asarray(expression(npjax, a))
    assert sorted(str(w.message) for w in got) == sorted(str(w.message) for w in want)
    np.testing.assert_allclose(result, expected, rtol=1e-15)  # XLA's exp: within an ulp


def _assert_recorded(run):
    """``run(xp)`` records in lazy mode (no flush until a value is read), and its results equal
    eager npjax bit for bit and NumPy within rounding."""
    eager = run(npjax)
    with npjax.policy(**LAZY):
        npjax.reset_stats()
        lazy = run(npjax)
        assert _lazy_counts()["flushes"] == 0
        for got, want, host in zip(lazy, eager, run(np)):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))  # bit for bit
            np.testing.assert_allclose(np.asarray(got), host, rtol=RTOL, atol=RTOL)
        assert _lazy_counts()["flushes"] == 1


def test_dot_and_inner_are_recorded():
    # They ran at once on computed values, so each flushed the pending graph.
    rng = np.random.default_rng(11)
    A, B = rng.random((5, 4)).astype(F), rng.random((4, 3)).astype(F)

    def run(xp):
        a, b = xp.asarray(A), xp.asarray(B)
        # (F(2.0): NumPy's dot of a float32 array and a Python float is float64, a host
        # dtype on a TPU, computed by NumPy there)
        return xp.dot(a * 2, b) + 1, xp.inner(a, a) * 3, xp.dot(a[0], F(2.0))

    _assert_recorded(run)


def test_select_is_recorded():
    # It read its operands computed, so each call flushed the pending graph.
    X = np.linspace(-2, 2, 12, dtype=F).reshape(3, 4)

    def run(xp):
        a = xp.asarray(X) * 2
        return (xp.select([a > 1, a < -1], [a, a * a], 0.5) + 1,
                xp.select([a > 0], [xp.arange(4)], default=-1) * 2)

    _assert_recorded(run)


def test_fft_transforms_are_recorded():
    X = np.random.default_rng(12).random((4, 6)).astype(F)

    def run(xp):
        a = xp.asarray(X) * 2
        return (xp.fft.fft(a) + 1, xp.fft.irfft(xp.fft.rfft(a)), xp.fft.fft2(a) * 2,
                xp.fft.fftn(a))

    _assert_recorded(run)


def test_threads_record_and_compute_at_once():
    """Lazy mode in several threads at once: each thread's values are NumPy's (the pending
    graph is shared and locked; a flush in one thread never frees what another still uses)."""

    def work(seed: int) -> None:
        with npjax.policy(mode="lazy", placement="device"):
            ref = np.random.default_rng(seed).random(50)
            x = npjax.asarray(ref)
            for i in range(100):
                x = x * 1.0001 + 0.5
                ref = ref * 1.0001 + 0.5
                x[i % 50] = float(i)
                ref[i % 50] = float(i)
                if i % 40 == 0:
                    assert float(x.sum()) == pytest.approx(ref.sum(), rel=1e-12)
            results[seed] = np.asarray(x).tolist() == ref.tolist()

    results: dict = {}
    run_threads([(work, (seed,)) for seed in range(4)])
    assert results == dict.fromkeys(range(4), True)
