"""Placement (npjax/_placement/_route.py): host arrays computed by NumPy, device arrays by JAX.

Under ``placement="auto"`` a call whose array operands all live on the host runs in NumPy and
its result stays on the host when it has at most ``host_threshold`` elements. These tests
check where results live, that views and ``np.asarray`` alias as in NumPy, that host and
device arrays mix correctly, and (by rerunning the core parity suites) that values, dtypes
and errors stay NumPy's.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT as F
from tests._parity import assert_parity, assert_same
from tests._rerun import rerun, suites_id


@pytest.fixture(autouse=True)
def _auto():
    with npjax.policy(placement="auto", host_threshold=64):
        yield


def _on_host(x: npjax.ndarray) -> bool:
    return x._host() is not None


def test_small_results_of_host_operands_stay_on_the_host():
    a = npjax.arange(10.0)
    assert _on_host(a)
    b = npjax.sin(a) * 2 + a[::2].sum()
    assert _on_host(b) and _on_host(a.reshape(2, 5).T)
    assert_same(b, np.sin(np.arange(10.0)) * 2 + np.arange(10.0)[::2].sum())
    assert type(a[3]) is np.float64 and type(npjax.sum(a)) is np.float64  # NumPy's scalars


def test_numpy_functions_on_host_arrays_give_npjax_arrays_and_numpy_scalars():
    x = npjax.arange(6.0).reshape(2, 3)
    host = np.arange(6.0).reshape(2, 3)
    for got, want in [(np.add(x, 1), np.add(host, 1)), (np.sum(x, axis=0), host.sum(axis=0)),
                      (np.concatenate([x, x]), np.concatenate([host, host])),
                      (np.fft.fft(x), np.fft.fft(host)), (np.ones(3) + x, np.ones(3) + host),
                      (np.where(x > 0, x, 0.0), np.where(host > 0, host, 0.0))]:
        assert isinstance(got, npjax.ndarray)
        assert_same(got, want)
    assert type(np.linalg.norm(x)) is np.float64 and np.mean(x) == host.mean()


def test_large_results_and_device_operands_run_on_the_device():
    # (F: float32 where the accelerator holds no float64, whose arrays are host ones there)
    big = npjax.zeros(100, F)  # over the threshold of 64: made by NumPy, then moved once
    assert not _on_host(big)
    small = npjax.ones(4, F)
    with npjax.policy(placement="device"):
        dev = npjax.ones(4, F)
    mixed = small + dev
    assert not _on_host(dev) and not _on_host(mixed)
    assert_same(mixed, np.full(4, 2.0, F))
    assert not _on_host(npjax.outer(small, npjax.ones(20, F)))  # 80 elements: small inputs


def test_views_of_host_arrays_alias_as_numpy_views():
    def fn(xp):
        a = xp.arange(12.0).reshape(3, 4)
        v = a[1:, ::2]
        v += 100
        t = a.T
        t[0, 0] = -1
        r = a.ravel()
        r[-1] = 7
        return a, v, t, v.base is a, t.base is a, xp.shares_memory(a, v)

    assert_parity(fn)


def test_asarray_of_a_host_array_shares_memory():
    a = npjax.arange(4.0)
    kept = np.asarray(a)
    a[1:] *= 10
    assert kept.tolist() == [0.0, 10.0, 20.0, 30.0]
    # NumPy reads a host array through __array_struct__: a new view of the same memory
    assert npjax.asarray(a) is a and np.shares_memory(np.array(a, copy=False), kept)


def test_foreign_numpy_arrays_are_never_aliased():
    h = np.arange(4.0)
    a = npjax.asarray(h)
    a[0] = 9
    assert h[0] == 0.0
    t = npjax.transpose(h)
    t[1] = 9
    assert h[1] == 1.0


def test_device_values_written_into_host_arrays():
    a = npjax.zeros(4)
    with npjax.policy(placement="device"):
        d = npjax.arange(4.0)
    a[1:3] = d[1:3]
    a += d
    assert _on_host(a)
    assert_same(a, np.array([0.0, 2.0, 4.0, 3.0]))


def test_errors_and_scalars_are_numpys():
    assert_parity(lambda xp: xp.arange(3)[5])
    assert_parity(lambda xp: xp.linalg.inv(xp.zeros((2, 2))))
    assert_parity(lambda xp: xp.asarray([1, 2], xp.int8)[0] + xp.asarray([1.5])[0])
    assert_parity(lambda xp: xp.float32(1.5) * xp.arange(3, dtype=xp.float32))


def test_jit_with_host_arguments():
    def step(xp, a, v):
        v += 1
        a[0] = a.sum()
        return a * 2

    f = npjax.jit(step, static_argnums=0)
    a = npjax.arange(6.0)
    out = f(npjax, a, a[2:])  # a view NumPy made: the call runs eagerly, exactly
    host = np.arange(6.0)
    assert_same(out, step(np, host, host[2:]))
    assert_same(a, host)
    b = npjax.arange(6.0)
    out = f(npjax, b, b.reshape(2, 3)[1])  # a view npjax made: traced, written back
    host = np.arange(6.0)
    assert_same(out, step(np, host, host.reshape(2, 3)[1]))
    assert_same(b, host)
    assert _on_host(b)


def test_small_random_draws_are_host_arrays():
    np.random.seed(3)
    expected = np.random.rand(5)
    npjax.random.seed(3)
    got = npjax.random.rand(5)
    assert _on_host(got)
    assert_same(got, expected)
    gen = npjax.random.default_rng(0)
    assert _on_host(gen.normal(size=8)) and type(gen.normal()) is float
    assert not _on_host(gen.normal(size=100))  # over the threshold of 64: on the device
    out = npjax.zeros(3)
    assert gen.random(out=out) is out and _on_host(out)


def test_stats_count_host_calls():
    npjax.reset_stats()
    a = npjax.arange(5.0)
    npjax.sum(a + 1)
    placed = npjax.stats()["placement"]
    assert placed["host"] >= 3 and placed["host_calls"]["sum"] == 1


def test_lazy_mode_runs_host_arrays_at_once_and_records_device_work():
    with npjax.policy(mode="lazy"):
        small = npjax.arange(3.0, dtype=F) * 2
        big = npjax.arange(100.0, dtype=F) * 2
        assert _on_host(small) and not _on_host(big)
        mixed = big[:3] + small
    assert_same(mixed, np.arange(3.0, dtype=F) * 4)


def test_device_policy_puts_new_arrays_on_the_device():
    with npjax.policy(placement="device"):
        assert not _on_host(npjax.arange(3.0, dtype=F))
    with npjax.policy(placement="host", host_threshold=0):
        assert _on_host(npjax.zeros(1000))


@pytest.mark.parametrize("call", [
    lambda xp, a: a.astype(xp.int64), lambda xp, a: a[1:].sum(),
    lambda xp, a: a[:0].mean(), lambda xp, a: (a * 1j).astype(float),
    lambda xp, a: a.cumsum(dtype=xp.float32), lambda xp, a: a.round(-400)])
def test_warnings_of_host_astype_and_methods_are_where_numpy_issues_them(call):
    def files(xp):
        a = xp.array([np.nan, 1e308, 1e308])
        with pytest.warns(Warning) as caught:
            call(xp, a)
        return [(w.filename, w.category, str(w.message)) for w in caught]

    ours = files(npjax)
    assert ours == files(np) and ours


def test_astype_of_a_host_array_warns_at_the_callers_line():
    a = npjax.array([np.nan, 1.0])
    assert _on_host(a)
    with pytest.warns(RuntimeWarning, match="invalid value encountered in cast") as caught:
        assert a.astype(npjax.int64)[0] == np.iinfo(np.int64).min
    assert caught[0].filename == __file__


def test_host_functions_give_operands_back_and_warn_at_the_callers_line():
    a = npjax.array([300.0, 300.0], dtype=npjax.float16)  # a C function's loop overflows
    assert _on_host(a) and npjax.atleast_1d(a) is a  # NumPy gives the operand back
    with pytest.warns(RuntimeWarning, match="overflow encountered in dot") as caught:
        assert npjax.dot(a, a) == np.inf
    assert caught[0].filename == __file__
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        npjax.dot(a, a)
    z = npjax.zeros(3)
    assert _on_host(z) and z.base is None and z.tolist() == [0.0, 0.0, 0.0]


def test_host_writes_of_the_same_dtype_are_numpys():
    for xp in (np, npjax):  # overlapping, broadcast, read-only and out-of-range writes
        x = xp.arange(6.0)
        x[1:] = x[:-1]
        x[2:4] += x[2:4]
        assert x.tolist() == [0.0, 0.0, 2.0, 4.0, 3.0, 4.0]
        with pytest.raises(ValueError, match="could not broadcast"):
            x[:2] = x[:3]
        with pytest.raises(IndexError):
            x[7, :] = x[:1]
        y = xp.arange(3.0)
        y.flags.writeable = False
        with pytest.raises(ValueError, match="read-only"):
            y[:] = x[:3]
        t = xp.zeros((2, 3))
        t.T[0] = x[2:4]  # ``.T`` is a view NumPy made: it writes through
        assert t[:, 0].tolist() == [2.0, 4.0] and t.T.base is t


def test_device_nan_written_into_a_host_integer_array():
    host = npjax.zeros(3, npjax.int8)
    with npjax.policy(placement="device"):
        dev = npjax.array([np.nan, 300.0, 1.0])
    with pytest.warns(RuntimeWarning, match="invalid value encountered in cast") as caught:
        host[...] = dev
    assert _on_host(host) and host.tolist() == [0, 44, 1]
    assert caught[0].filename == __file__


# The parity suites rerun with every array on the device (the default run keeps small arrays
# on the host), so the device path stays proven for the arrays that use it. Each group is one
# process (common kernels compile once); the groups take about the same time, and the rerun
# marker starts them first on both workers (tests/conftest.py).
# test_ufuncs's group waits for HYPOTHESIS_PROFILE=full/thorough: the op table runs every
# ufunc's loops on the device (eager, lazy, npjax.jit) and test_device_special_values their
# special values there in the default run; the group took 111 s of a CI worker alone.
# test_jit waits for it too: npjax.jit's programs run on the device under every placement
# (the placement changes only where its inputs were made), and it took 80 of its group's
# 140 s in a CI run that came within 2 minutes of CI's 20.
_FULL = os.environ.get("HYPOTHESIS_PROFILE", "ci") in ("full", "thorough")
DEVICE_SUITES = [*(["tests/test_ufuncs.py", "tests/test_jit.py"] if _FULL else []),
                 "tests/test_statistics.py tests/test_selection.py",
                 "tests/test_linalg.py tests/test_errstate.py",
                 "tests/test_views.py tests/test_indexing.py tests/test_operators.py "
                 "tests/test_reductions.py tests/test_scalars.py tests/test_smoke_parity.py "
                 "tests/test_ufunc_methods.py tests/test_shape_ops.py tests/test_creation.py"]


@pytest.mark.rerun
@pytest.mark.parametrize("suite", DEVICE_SUITES, ids=suites_id)
def test_parity_suites_pass_with_every_array_on_the_device(suite):
    rerun(suite, "--npjax-placement=device")


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.float32(2.5), np.int8(-3),
                                    np.uint64(7), np.bool_(True), np.complex64(1j)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8", "bool"])
def test_numpy_scalar_operands_run_on_the_host(scalar, dtype):
    """NumPy's scalars (what element reads return) are plain operands of the host route, in
    either order: NumPy's values and NEP 50 dtypes, and no device call."""
    ours = npjax.asarray(np.arange(4).astype(dtype))
    theirs = np.arange(4).astype(dtype)
    for op in (lambda x, s: x * s, lambda x, s: s - x, lambda x, s: npjax.add(x, s)
               if isinstance(x, npjax.ndarray) else np.add(x, s)):
        npjax.reset_stats()
        with np.errstate(all="ignore"):
            try:
                expected = op(theirs, scalar)
            except TypeError:  # bool - bool
                with pytest.raises(TypeError):
                    op(ours, scalar)
                continue
            assert_same(op(ours, scalar), expected)
        assert sum(npjax.stats()["calls"].values()) == npjax.stats()["placement"]["host"]


class _LoopsRun:
    """The NumPy functions the operator members ran (``operator.iadd`` for an elided
    temporary), with the C slots' elisions (``_hostpath.elided_counts``) counted as the
    in-place operators they run."""

    def __init__(self) -> None:
        import operator

        from npjax._core._array_base import HOSTPATH

        self.python: list = []
        self._ops = (operator.iadd, operator.isub, operator.imul, operator.itruediv, None,
                     operator.iand, operator.ior, operator.ixor)  # (``_fast.OPERATORS``)
        self._counts = HOSTPATH.elided_counts if HOSTPATH is not None else lambda: (0,) * 8
        self.clear()

    def clear(self) -> None:
        self.python.clear()
        self._start = self._counts()

    def __iter__(self):
        in_c = [fn for fn, now, then in zip(self._ops, self._counts(), self._start)
                for _ in range(now - then)]
        return iter(self.python + in_c)

    def count(self, fn) -> int:
        return list(self).count(fn)


@pytest.fixture(params=["c", "python"])
def loops_run(request, monkeypatch):
    """The NumPy functions the operator members run (``_LoopsRun``), every array on the host;
    by the C slots where the C module is built ("c") and by the Python members ("python")."""
    from npjax._placement import _fast, _host_paths

    if request.param == "c" and not _fast.ENABLED:
        pytest.skip("the C module is not built")
    seen = _LoopsRun()
    real = _host_paths.run_loops
    monkeypatch.setattr(_host_paths, "run_loops",
                        lambda fn, *a: (seen.python.append(fn), real(fn, *a))[1])
    only = _fast.python_only() if request.param == "python" else contextlib.nullcontext()
    with npjax.policy(placement="host"), only:
        yield seen


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_temporaries_are_reused_as_numpy_reuses_them(dtype, loops_run):
    """``x * x + 2 * x + 1`` on large host arrays writes into its temporaries as NumPy does
    (temporary elision: no new array, no page faults): NumPy's values and dtypes, operands
    untouched."""
    import operator

    base = np.random.default_rng(0).random(200_000).astype(dtype)
    ours = npjax.asarray(base.copy())

    def chain(xp, x):
        return xp.sqrt(x * x + 2 * x + 1.0) - 0.5 * x

    assert_same(chain(npjax, ours), chain(np, base))
    assert np.asarray(ours).tolist() == base.tolist()
    assert loops_run.count(operator.iadd) == 2 and loops_run.count(operator.isub) == 1
    loops_run.clear()
    small = npjax.asarray(base[:1000])
    assert_same(small * small + 1.0, base[:1000] * base[:1000] + 1.0)
    assert operator.iadd not in loops_run  # under NumPy's 256 KiB: a new array, as NumPy


def test_integer_and_boolean_temporaries_are_reused(loops_run):
    """Integers add, subtract and multiply into a temporary of their dtype; booleans and
    integers combine bitwise into one (Game of Life's neighbour counts and rules)."""
    import operator

    rng = np.random.default_rng(2)
    Z = (rng.random((600, 800)) < 0.3).astype(np.int64)  # bool results over 256 KiB
    z = npjax.asarray(Z.copy())

    def rules(xp, Z):
        N = Z[:-2, :-2] + Z[:-2, 1:-1] + Z[:-2, 2:] + Z[1:-1, :-2] + Z[1:-1, 2:] + Z[2:, 1:-1]
        return ((N == 3) & (Z[1:-1, 1:-1] == 0)) | ((N == 2) & (Z[1:-1, 1:-1] == 1)), N * 2 - N

    assert_same(rules(npjax, z), rules(np, Z))
    assert loops_run.count(operator.iadd) == 4  # the sum's later additions
    assert {operator.iand, operator.ior, operator.isub} <= set(loops_run)
    assert np.asarray(z).tolist() == Z.tolist()
    loops_run.clear()
    assert_same(z[1:] * z[1:] + 2, Z[1:] * Z[1:] + 2)  # a Python int: a new array
    assert operator.iadd not in loops_run


def test_temporaries_seen_elsewhere_are_not_reused(loops_run):
    """A temporary that other code still holds, or one whose result would change dtype or
    shape, gets a new result array."""
    import functools
    import operator

    base = np.random.default_rng(1).random(100_000)
    x = npjax.asarray(base.copy())
    b32 = base.astype(np.float32)
    x32 = npjax.asarray(b32)
    col = npjax.asarray(base[:300].reshape(300, 1))
    row = npjax.asarray(base[:400].reshape(1, 400))
    t = x * x
    alias = np.asarray(t)  # the buffer is visible to NumPy code
    cases = [
        (lambda: t + 1.0, base * base + 1.0),
        # called from C code (which may use its operand again), not by the interpreter
        (lambda: operator.add(x * x, 1.0), base * base + 1.0),
        (lambda: functools.reduce(operator.add, [x * x, x, x]), base * base + base + base),
        (lambda: sum([x * x, x]), sum([base * base, base])),
        # NEP 50: a float64 NumPy scalar makes float32 temporaries float64
        (lambda: x32 * x32 + np.float64(1.0), b32 * b32 + np.float64(1.0)),
        # broadcasting to a larger shape
        (lambda: (col * 2.0) + row, base[:300].reshape(300, 1) * 2.0 + base[:400].reshape(1, 400)),
    ]
    for fn, expected in cases:
        loops_run.clear()
        assert_same(fn(), expected)
        assert not {operator.iadd, operator.imul} & set(loops_run)
    assert_same(npjax.asarray(alias), base * base)
    assert_same(x32 * x32 + 1.0, b32 * b32 + 1.0)  # Python floats keep float32: reused
    assert operator.iadd in loops_run


_BACKEND_PROBE = """
import numpy as np
import npjax
from jax._src import xla_bridge

a = npjax.arange(50.0)
b = (a * 2 + 1)[1:-1].sum() + npjax.sin(a)[3]
m = npjax.ones((33, 33))  # operands whose size product passes the limit: no backend either
m[1:-1, 1:-1] = m[1:-1, 1:-1] + 0.2 * (m[2:, 1:-1] - m[1:-1, 1:-1]) + m[0, 1:-1] * m[1:-1, :1]
started_small = xla_bridge.backends_are_initialized()
big = npjax.ones(100_000) + 1  # over the accelerator limit: now the backend is asked
import jax
on_cpu = jax.default_backend() == "cpu"
print(started_small, big._host() is not None, on_cpu, xla_bridge.backends_are_initialized())
"""


def test_small_host_work_does_not_start_jax():
    """Starting JAX's backend costs tens of milliseconds, most of a small script's time: host
    work under the default limit never asks for it; a larger result does (and stays on the
    host on a CPU backend)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _BACKEND_PROBE], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    started_small, big_on_host, on_cpu, started = done.stdout.split()
    assert (started_small, big_on_host, started) == ("False", on_cpu, "True")


@pytest.mark.parametrize("mode", ["eager", "lazy"])
def test_broadcast_past_the_threshold_runs_on_the_device(mode):
    """Two small host operands that broadcast into a result over the threshold run on the
    device from copies of them (NumPy does not make the large result here to move it);
    values, dtypes, warnings and broadcasting errors stay NumPy's."""
    x = np.linspace(-1.0, 1.0, 100, dtype=F)
    z = np.zeros(100, F)
    with npjax.policy(host_threshold=1000, mode=mode):
        a, zero = npjax.asarray(x), npjax.asarray(z)
        npjax.reset_stats()
        got = [a[None, :] - a[:, None], npjax.multiply(a[:, None], a[None, :]),
               a[:, None] + np.float32(2.0)]  # the last does not grow: NumPy's
        assert npjax.stats()["placement"]["device"] == 2
        assert [g._host() is None for g in got] == [True, True, False]
        with pytest.warns(RuntimeWarning, match="divide by zero"):
            q = a[:, None] / zero[None, :]
            q_host = np.asarray(q)
        with pytest.raises(ValueError, match="could not be broadcast"):
            a.reshape(10, 10) + a[:11]
    want = [x[None, :] - x[:, None], np.multiply(x[:, None], x[None, :]), x[:, None] + 2.0]
    for g, w in zip(got, want):
        assert_same(g, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(q_host, x[:, None] / z[None, :], strict=True)


def test_broadcast_on_a_cpu_backend_stays_numpy():
    """Under the default eager policy on a CPU backend every size stays NumPy's."""
    import jax

    if jax.default_backend() != "cpu":
        pytest.skip("a CPU backend's rule")
    with npjax.policy(host_threshold=None):  # the default (this module's is 64)
        a = npjax.arange(300.0)
        assert (a[None, :] - a[:, None])._host() is not None
