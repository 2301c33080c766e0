"""A lazy program's first run on the CPU backend where the accelerator compiles slowly
(``_execution/_lazy_cold.py``; on by default for the TPU only). Simulated here with two CPU devices
in a subprocess: the arrays live on the first, "cold" programs run on the second."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

import npjax
from npjax._execution import _lazy_cold

# (the simulation takes the CPU backend for the accelerator; on a TPU the real route runs)
pytestmark = pytest.mark.skipif(jax.default_backend() != "cpu", reason="simulated on the CPU")

SCRIPT = textwrap.dedent("""
    import jax, numpy as np, npjax
    from npjax._execution import _lazy_cold
    from npjax._pure import _capabilities
    home, cold = jax.devices("cpu")
    _capabilities.COLD_ON_CPU = frozenset({"cpu"})
    _lazy_cold.cold_device = lambda: cold
    xn = np.linspace(-3.0, 3.0, 1001)
    got = []
    with npjax.policy(mode="lazy", placement="device"):
        x = npjax.asarray(xn)
        for a in (x, x, x, npjax.asarray(xn.astype(np.float32))):
            y = npjax.exp(a) * 2.0 + npjax.sin(a)
            value = y._read()
            got.append(np.asarray(y))
            print("run", npjax.stats()["lazy"]["cold_on_cpu"], sorted(value.devices()) == [home],
                  value.dtype)
        with np.errstate(divide="raise"):
            try:
                np.asarray(npjax.log(x * 0.0))
            except FloatingPointError as exc:
                print("raised", type(exc).__name__, npjax.stats()["lazy"]["cold_on_cpu"])
    want = np.exp(xn) * 2.0 + np.sin(xn)
    print("same", all(np.array_equal(g, got[0]) for g in got[1:3]),
          np.allclose(got[0], want, rtol=1e-13, atol=1e-15))
    t = npjax.stats()["transfers"]
    print("sent", t["device_to_host"]["count"] >= 1, t["host_to_device"]["count"] >= 1)
    """)


def _two_cpu_devices(script: str) -> list[str]:
    """The lines ``script`` prints in a process with two CPU devices."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               PYTHONPATH=os.path.dirname(os.path.dirname(npjax.__file__)))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return [ln for ln in out.stdout.splitlines() if ln]


def test_first_run_of_a_program_on_the_cpu_backend():
    lines = _two_cpu_devices(SCRIPT)
    # the first float64 program runs cold, its reruns on the arrays' device; float32: never
    assert [ln for ln in lines if ln.startswith("run")] == [
        "run 1 True float64", "run 1 True float64", "run 1 True float64", "run 1 True float32"]
    assert "raised FloatingPointError 3" in lines  # (two new programs, one per call: cold)
    assert "same True True" in lines and "sent True True" in lines


COMPLEX_SCRIPT = textwrap.dedent("""
    import jax, numpy as np, npjax
    from npjax._execution import _lazy_cold
    from npjax._pure import _capabilities
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"complex128"})}
    _lazy_cold.cold_device = lambda: cold
    xn = np.linspace(-3.0, 3.0, 50).reshape(10, 5)
    with npjax.policy(mode="lazy", placement="device"):
        x = npjax.asarray(xn)
        for _ in range(3):  # complex128 inside only (float64 in and out), then out too
            r = npjax.abs(npjax.exp(1j * x) + x)
            z = npjax.exp(1j * x) / (x + 2j)
            same = (np.array_equal(np.asarray(r), np.abs(np.exp(1j * xn) + xn)),
                    np.allclose(np.asarray(z), np.exp(1j * xn) / (xn + 2j), rtol=1e-15))
            print("run", npjax.stats()["lazy"]["host_dtype_on_cpu"], same,
                  sorted(r._read().devices()) == [home])
        y = npjax.sin(x) * 2.0
        np.asarray(y)
        print("float", npjax.stats()["lazy"]["host_dtype_on_cpu"])
    """)


def test_programs_holding_complex128_run_on_the_cpu_backend_every_time():
    lines = _two_cpu_devices(COMPLEX_SCRIPT)
    # one program a round (both results), on the CPU each time; the float64 one: never
    assert lines == ["run 1 (True, True) True", "run 2 (True, True) True",
                     "run 3 (True, True) True", "float 3"], lines


def test_not_on_a_cpu_backend_or_without_64_bit_values():
    x64 = npjax.asarray(np.ones(3))._read()
    x32 = npjax.asarray(np.ones(3, np.float32))._read()
    assert _lazy_cold._home((x64,)) is None  # (the CPU is not in COLD_ON_CPU)
    assert _lazy_cold.run(lambda *a: a, x64[0], [x32, 1.0]) is None


def test_the_report_counts_them():
    from npjax._tools import _report

    data = npjax.stats()
    data["lazy"]["cold_on_cpu"] = 2
    assert "CPU backend (this accelerator compiles their 64-bit work slowly): 2" in \
        _report.format_report(data)


SCRIPT_EVERY_CALL = textwrap.dedent("""
    import sys, warnings
    import jax, numpy as np, npjax
    from npjax._execution import _lazy_cold
    from npjax._pure import _capabilities
    sys.path.insert(0, "benchmarks")
    import complex_check
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"complex128"})}
    _lazy_cold.cold_device = lambda: cold
    want = complex_check.snippets(np)
    for mode in ("eager", "lazy"):
        with npjax.policy(mode=mode, placement="device"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = complex_check.snippets(npjax)
            for k, w in want.items():
                g = got[k]
                where = "host" if g._host() is not None else \\
                    "cold" if sorted(g._read().devices()) == [cold] else "home"
                same = g.dtype == w.dtype and g.shape == w.shape and np.allclose(
                    np.asarray(g), w, rtol=1e-13, atol=1e-300)
                print(mode, k, g.dtype, same, where)
    print("counted", npjax.stats()["lazy"]["host_dtype_on_cpu"] > 0)
    """)


def test_complex128_never_lives_on_the_accelerator():
    """Eager kernels and lazy programs given or making complex128 run on the CPU backend;
    their complex128 results stay there (host memory), the others go back to the
    accelerator (on a TPU a complex128 array on the chip can halt it when read)."""
    lines = _two_cpu_devices(SCRIPT_EVERY_CALL)
    rows = [ln.split() for ln in lines if not ln.startswith("counted")]
    assert len(rows) == 18 and all(r[3] == "True" for r in rows), lines
    for mode, name, dtype, _, where in rows:
        assert where in (("host", "cold") if dtype == "complex128" else ("host", "home")), \
            (mode, name, dtype, where)
    assert "counted True" in lines


SCRIPT_FLOAT64 = textwrap.dedent("""
    import warnings
    import jax, numpy as np, npjax
    from npjax._execution import _lazy_cold
    from npjax._pure import _capabilities
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"float64", "complex128"})}
    _lazy_cold.cold_device = lambda: cold
    from npjax._compile import _jit_inputs
    _jit_inputs.RESIDENT = True  # (npjax.jit's inputs as on an accelerator)

    def calls(m, i, f):
        return {"true_divide": i / 4, "times_float": i * 1.5, "astype": f.astype(np.float64),
                "mean": m.mean(i), "sum_f64": m.sum(f, dtype=np.float64), "f32": f * 2,
                "int": i * 3, "exp_of_int": m.exp(i[:5]), "linspace": m.linspace(0, 1, 7),
                "mixed": (i / 4).sum() + f.sum(), "eye": m.eye(3),  # (jax.numpy directly)
                "det_int": m.linalg.det(m.eye(4, dtype=int) * 2 + i[:16].reshape(4, 4) % 3)}

    i_n, f_n = np.arange(-20, 20), np.linspace(-1, 1, 40, dtype=np.float32)
    want = calls(np, i_n, f_n)
    for mode in ("eager", "lazy"):
        with npjax.policy(mode=mode, placement="device"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            i, f = npjax.asarray(i_n), npjax.asarray(f_n)
            got = calls(npjax, i, f)
            for k, w in want.items():
                g, w = got[k], np.asarray(w)
                where = "host" if not isinstance(g, npjax.ndarray) or g._host() is not None \\
                    else "cold" if sorted(g._read().devices()) == [cold] else "home"
                same = g.dtype == w.dtype and np.shape(g) == w.shape and np.allclose(
                    np.asarray(g), w, rtol=1e-14, atol=0)
                print(mode, k, g.dtype, same, where)

    def kernel(m, a, b):
        for j in range(1, a.shape[0]):
            a[j] = a[j - 1] * 0.5 + b[j]
        return a * 3

    with npjax.policy(placement="device"):
        jitted = npjax.jit(kernel, static_argnums=0)
        for a_n in (f_n.astype(np.float64), f_n):
            before = npjax.stats()["lazy"]["host_dtype_on_cpu"]
            g, w = jitted(npjax, npjax.asarray(a_n), npjax.asarray(f_n)), kernel(np, a_n, f_n)
            on_cpu = npjax.stats()["lazy"]["host_dtype_on_cpu"] > before
            where = "host" if g._host() is not None else \\
                "cold" if sorted(g._read().devices()) == [cold] else "home"
            print("jit", on_cpu, g.dtype, np.array_equal(np.asarray(g), w), where)
    with npjax.policy(placement="device", random="jax"):
        for dt in (np.float64, np.float32):  # a device draw (JAX's stream)
            g = npjax.random.default_rng(0).random(70000, dtype=dt)
            where = "host" if g._host() is not None else \\
                "cold" if sorted(g._read().devices()) == [cold] else "home"
            print("random", g.dtype, where)
    """)


def test_float64_never_lives_on_an_accelerator_that_cannot_hold_it():
    """Where the backend's arrays cannot hold float64 (a TPU keeps it as two float32 values),
    float64 values computed from device arrays of other dtypes stay in host memory, equal to
    NumPy's; the int and float32 results stay on the accelerator."""
    lines = _two_cpu_devices(SCRIPT_FLOAT64)
    rows = [ln.split() for ln in lines if not ln.startswith(("jit", "random"))]
    assert len(rows) == 24 and all(r[3] == "True" for r in rows), lines
    # npjax.jit: a program holding float64 runs on the CPU backend, a float32 one does not
    assert [ln for ln in lines if ln.startswith("jit")] == [
        "jit True float64 True cold", "jit False float32 True home"], lines
    assert [ln for ln in lines if ln.startswith("random")] == [
        "random float64 cold", "random float32 home"], lines
    for mode, name, dtype, _, where in rows:
        assert where in (("host", "cold") if dtype == "float64" else ("home",)), \
            (mode, name, dtype, where)
