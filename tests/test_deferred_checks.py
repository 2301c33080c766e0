"""Deferred floating-point checks of results in accelerator memory (``_deferred_checks._defer``).

This machine's device is the CPU, whose results are checked at the call (reading them costs
no transfer); the tests make npjax treat device results as accelerator memory
(``on_host`` False) and compare the warnings with NumPy's: same messages, each naming the
line of its operation, issued before the next value is read on the host."""

from __future__ import annotations

import subprocess
import sys
import warnings

import jax
import numpy as np
import pytest

import npjax
from npjax._calls._ufuncs import UFUNCS
from npjax._runtime import _deferred_checks, _host_reads
from tests._parity import DEVICE_FLOAT as F

# (float64, or float32 where the accelerator holds no float64: there float64 arrays are NumPy's)
BIG = float(np.finfo(F).max) / 1.5  # twice it, or ten times, overflows
TINY = {np.float64: 1e-300, np.float32: 1e-30}[F]  # its square underflows

pytestmark = pytest.mark.device_placement


@pytest.fixture
def accelerator(monkeypatch):
    """Device results count as accelerator memory; warnings go to a list, not pytest's
    recorder, so that the plain (deferring) filters are in force."""
    monkeypatch.setattr(_host_reads, "on_host", lambda x: not isinstance(x, jax.Array))
    issued = []
    monkeypatch.setattr(warnings, "warn_explicit",
                        lambda text, category, filename, lineno, *rest: issued.append(
                            (str(text), filename, lineno)))
    npjax.reset_stats()
    yield issued
    _deferred_checks.flush_deferred()


def _plain_filters(monkeypatch) -> None:
    """Plain filters, as in a script: the test's own list counts as the base one (pytest runs
    each test inside ``catch_warnings``), without the suite's "error" filter."""
    monkeypatch.setattr(warnings, "filters", [f for f in warnings.filters if f[0] != "error"])
    warnings._filters_mutated()
    monkeypatch.setattr(_deferred_checks, "_BASE_FILTERS", warnings.filters)


def _line_of(fn) -> int:
    return fn.__code__.co_firstlineno + 1


def test_a_loop_of_float_operations_waits_for_nothing(accelerator, monkeypatch):
    """1000 operations that raise flags, no read: no device read at all; the first read
    issues every warning first, at the line of its operation."""
    _plain_filters(monkeypatch)
    a, z = npjax.asarray([1.0, 0.0, -1.0], F), npjax.zeros(3, F)

    def divide(x, y):
        return x / y

    for _ in range(1000):
        q = divide(a, z)
    syncs = npjax.stats()["syncs"]
    assert accelerator == []
    assert syncs["checks"] == 0 and syncs["deferred_reads"] == 0
    assert syncs["deferred_checks"] == 1000
    assert q.tolist()[1] != q.tolist()[1]  # the read: nan
    assert npjax.stats()["syncs"]["deferred_reads"] == 1
    assert len(accelerator) == 2000
    assert {(text, line) for text, _, line in accelerator} == {
        ("divide by zero encountered in divide", _line_of(divide)),
        ("invalid value encountered in divide", _line_of(divide))}


def test_messages_and_order_are_numpys(accelerator, monkeypatch):
    """The warnings of several operations, read once: NumPy's messages, in NumPy's order."""
    def run(xp):
        a = xp.asarray([BIG, 0.0, -1.0], F)
        b = a * 10.0
        c = xp.sqrt(a - 2.0)
        d = xp.log(a)
        e = xp.asarray([5, 1]) // xp.asarray([0, 1])
        f = xp.asarray([[BIG, BIG]], F) @ xp.asarray([[10.0], [10.0]], F)  # a gufunc's flags
        return b, c, d, e, f

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = run(np)
    want = [str(w.message) for w in caught]
    _plain_filters(monkeypatch)
    got = run(npjax)
    assert accelerator == []
    for g, w in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), w)
    assert [text for text, _, _ in accelerator] == want


@pytest.mark.parametrize("state", ["raise", "call", "print"])
def test_other_error_states_check_at_the_call(accelerator, state, capsys, monkeypatch):
    _plain_filters(monkeypatch)
    calls = []
    kwargs = {"call": lambda kind, flag: calls.append(kind)} if state == "call" else {}
    with np.errstate(divide=state, **kwargs):
        if state == "raise":
            with pytest.raises(FloatingPointError, match="divide by zero"):
                npjax.asarray([1.0], F) / npjax.zeros(1, F)
        else:
            npjax.asarray([1.0], F) / npjax.zeros(1, F)
    assert npjax.stats()["syncs"]["deferred_checks"] == 0
    assert calls == (["divide by zero"] if state == "call" else [])
    if state == "print":
        assert "divide by zero" in capsys.readouterr().err


def test_catch_warnings_and_error_filters_check_at_the_call(accelerator, monkeypatch):
    _plain_filters(monkeypatch)
    a, z = npjax.asarray([1.0], F), npjax.zeros(1, F)
    with warnings.catch_warnings(record=True) as caught:  # the user watches this block
        warnings.simplefilter("always")
        a / z
    assert [str(w.message) for w in caught] == ["divide by zero encountered in divide"]
    warnings.filterwarnings("error", category=RuntimeWarning)
    with pytest.raises(RuntimeWarning, match="divide by zero"):
        a / z
    assert npjax.stats()["syncs"]["deferred_checks"] == 0


def test_ignored_flags_are_not_issued(accelerator, monkeypatch):
    _plain_filters(monkeypatch)
    with np.errstate(divide="ignore"):
        q = npjax.asarray([1.0, 0.0], F) / npjax.zeros(2, F)
    q.tolist()
    assert [text for text, _, _ in accelerator] == ["invalid value encountered in divide"]


def test_reductions_wait_for_nothing_and_warn_like_numpy(accelerator, monkeypatch):
    """Reductions' warnings (data-dependent and shape-only alike) wait with the ufunc flags
    for the next read: no device read in the loop, then NumPy's messages in NumPy's order,
    each at the line of its operation."""
    def run(xp):
        x = xp.asarray([[np.nan, 1.0], [np.nan, 2.0]], F)
        a = xp.nanmean(x, axis=0)
        b = xp.sum(xp.asarray([BIG, BIG], F))
        c = xp.mean(xp.zeros((0, 2), F), axis=0)
        d = xp.var(xp.asarray([1.0, 2.0], F), ddof=2)
        e = xp.nanmax(x, axis=0)
        return a, b, c, d, e

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = run(np)
    want = [str(w.message) for w in caught]
    _plain_filters(monkeypatch)
    for _ in range(3):
        got = run(npjax)
    syncs = npjax.stats()["syncs"]
    assert accelerator == [] and syncs["checks"] == 0 and syncs["deferred_reads"] == 0
    for g, w in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), w)
    assert npjax.stats()["syncs"]["deferred_reads"] == 1
    assert [text for text, _, _ in accelerator] == want * 3
    first = run.__code__.co_firstlineno
    assert [line - first for _, _, line in accelerator[:len(want)]] == [2, 3, 4, 4, 5, 5, 6]


def test_reductions_under_raise_check_at_the_call(accelerator, monkeypatch):
    _plain_filters(monkeypatch)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError, match="overflow encountered in reduce"):
            npjax.sum(npjax.asarray([BIG, BIG], F))
    syncs = npjax.stats()["syncs"]
    assert syncs["deferred_checks"] == 0 and syncs["checks"] == 1


def _fast_path_ops(xp):
    """Fast-path ufunc calls that raise flags: arrays with arrays, a Python float, unary."""
    a, z = xp.asarray([1.0, 0.0, -1.0], F), xp.zeros(3, F)
    q = a / z
    r = xp.sqrt(a)
    s = xp.multiply(a, BIG) * 10.0
    t = xp.log(a)
    return q, r, s, t


def test_fast_path_flags_come_with_the_result(accelerator, monkeypatch):
    """Once a loop is known, a fast-path call computes its flags in its own program: no
    second program for the check, no device read, NumPy's warnings at each call's line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = _fast_path_ops(np)
    want = [str(w.message) for w in caught]
    _plain_filters(monkeypatch)
    for uf in set(UFUNCS.values()):  # fast paths learnt here, with accelerator results
        monkeypatch.setattr(uf, "_fast", {})
    _fast_path_ops(npjax)  # first calls: the full path (their checks are separate programs)
    _deferred_checks.flush_deferred()
    accelerator.clear()
    separate = []
    monkeypatch.setattr(_deferred_checks, "_device_flags", lambda *key: separate.append(key))
    npjax.reset_stats()
    for _ in range(5):
        got = _fast_path_ops(npjax)
    syncs = npjax.stats()["syncs"]
    assert separate == [] and accelerator == []
    assert syncs["checks"] == 0 and syncs["deferred_reads"] == 0
    assert syncs["deferred_checks"] == 5 * 5  # one per call (multiply's product is finite)
    for g, w in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), w)
    assert [text for text, _, _ in accelerator] == want * 5
    first = _fast_path_ops.__code__.co_firstlineno
    assert [line - first for _, _, line in accelerator[:len(want)]] == [3, 3, 4, 5, 6, 6]


def test_fast_path_underflow_when_reported(accelerator, monkeypatch):
    def run(xp):
        a = xp.asarray([TINY, 1.0], F)
        return xp.multiply(a, a), a * a

    _plain_filters(monkeypatch)
    for uf in set(UFUNCS.values()):
        monkeypatch.setattr(uf, "_fast", {})
    run(npjax)  # the loops' first calls
    npjax.reset_stats()
    with np.errstate(under="warn"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            expected = run(np)
        _plain_filters(monkeypatch)
        got = run(npjax)
    assert npjax.stats()["syncs"]["deferred_checks"] == 2
    for g, w in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), w)
    assert [text for text, _, _ in accelerator] == [str(w.message) for w in caught] == [
        "underflow encountered in multiply"] * 2


def test_later_warnings_wait_for_earlier_deferred_ones(accelerator, monkeypatch):
    """A host array's NumPy warning, or a check made at the call, comes after the deferred
    warnings of the operations before it, as each comes in NumPy."""
    _plain_filters(monkeypatch)
    a, z = npjax.asarray([1.0], F), npjax.zeros(1, F)
    a / z
    with npjax.policy(placement="auto"):
        host = npjax.asarray([0.0])
        assert host._host() is not None
        npjax.log(host)  # NumPy's own warning
    a / z
    with np.errstate(invalid="print"):  # checked at the call
        npjax.sqrt(npjax.asarray([-1.0], F))
    assert [text for text, _, _ in accelerator] == [
        "divide by zero encountered in divide", "divide by zero encountered in log",
        "divide by zero encountered in divide"]


def test_a_fresh_process_rolls_a_loop_of_fast_path_calls(tmp_path):
    """The fused check is decided on computed results only: in a fresh process the first
    traced call (whose backend is not known yet) still rolls."""
    code = """if True:
        import numpy as np, npjax
        def kernel(xp, a, b):
            for i in range(1, a.shape[0]):
                a[i] = a[i - 1] * 0.5 + b[i]
            return a
        jitted = npjax.jit(kernel, static_argnums=0)
        a, b = np.random.rand(20, 3), np.random.rand(20, 3)
        got = jitted(npjax, npjax.asarray(a), npjax.asarray(b))
        np.testing.assert_array_equal(np.asarray(got), kernel(np, a.copy(), b))
        print([loop.rolled for loop in jitted.loops])
    """
    script = tmp_path / "roll.py"  # (a loop is rolled from its source file)
    script.write_text(code)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["[True]"]
