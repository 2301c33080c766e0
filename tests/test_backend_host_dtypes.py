"""Dtypes a backend's arrays never hold (``_capabilities.HOST_DTYPES``: complex128 on a TPU,
whose XLA fails on it at many shapes) are host arrays there, computed by NumPy. CI has no
TPU: a subprocess names the CPU in the table and runs complex128 work with every array on
the device, eagerly and in lazy mode, against NumPy."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import pytest

import npjax

pytestmark = pytest.mark.skipif(jax.default_backend() != "cpu", reason="simulated on the CPU")

SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np, npjax
    from npjax._pure import _capabilities
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"complex128"})}
    x = np.linspace(-2.0, 2.0, 50).reshape(10, 5)
    calls = {
        "asarray": lambda m, xx: m.asarray(np.exp(1j * x)),
        "exp": lambda m, xx: m.exp(1j * xx),
        "abs": lambda m, xx: m.abs(m.exp(1j * xx) + xx),
        "divide": lambda m, xx: m.exp(1j * xx) / (xx + 2j),
        "concatenate": lambda m, xx: m.concatenate([m.asarray(np.exp(1j * x)), xx[:3]]),
        "astype": lambda m, xx: xx.astype(complex) * 2,
        "zeros": lambda m, xx: m.zeros((10, 5), complex) + xx,
        "fft": lambda m, xx: m.fft.fft(xx),
        "solve": lambda m, xx: m.linalg.solve(m.eye(5) * (1 + 1j) + xx[:5], xx[:5, 0] + 0j),
    }
    for mode in ("eager", "lazy"):
        with npjax.policy(placement="device", mode=mode):
            xd = npjax.asarray(x)
            for name, f in calls.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got, want = f(npjax, xd), f(np, x)
                g = np.asarray(got)
                same = g.dtype == want.dtype and np.allclose(g, want, rtol=1e-14, atol=0)
                print(mode, name, same, "host" if got._host() is not None else "device")
    """)


def _simulated(script: str) -> tuple[list[list[str]], str]:
    """The rows ``script`` prints (run in a fresh interpreter), and its whole output."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(npjax.__file__)))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return [ln.split() for ln in out.stdout.splitlines() if ln], out.stdout


def test_complex128_arrays_are_host_arrays_where_the_backend_cannot_hold_them():
    rows, out = _simulated(SCRIPT)
    assert len(rows) == 18 and all(r[2] == "True" for r in rows), out
    # arrays made from complex128 data, or cast or created as complex128, are host arrays;
    # complex128 results a device program makes from float64 device arrays (exp(1j * x)) are
    # not yet (on a TPU lazy mode runs those programs on the CPU: _lazy_cold)
    host = {(r[0], r[1]) for r in rows if r[3] == "host"}
    for mode in ("eager", "lazy"):
        assert {(mode, n) for n in ("asarray", "concatenate", "astype", "zeros")} <= host


JIT_SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np, npjax
    from npjax._pure import _capabilities
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"float64", "complex128"})}

    def written(b, x):
        b[0] = x[0]
        return b

    def filled(b, x):
        b[:] = x[:2]
        return b

    calls = {
        "zeros": lambda m, x: m.zeros(3) + x[0],
        "zeros_written": lambda m, x: written(m.zeros(3), x),
        "empty_filled": lambda m, x: filled(m.empty(2), x),
        "full": lambda m, x: m.full(3, 2.0) * x[:3],
        "arange": lambda m, x: m.arange(3.0) * x[:3],
        "asarray": lambda m, x: m.asarray([1.0, 2.0, 3.0]) * x[:3],
        "astype": lambda m, x: x.astype(np.float32).astype(np.float64) + 1,
        "stack": lambda m, x: m.stack([x, x]),
        "concatenate": lambda m, x: m.concatenate([x, m.zeros(2)]),
        "complex": lambda m, x: m.zeros(3, complex) + x[:3],
    }
    x = np.arange(4.0)
    for placement in ("host", "device"):
        with npjax.policy(placement=placement):
            for name, f in calls.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    got = npjax.jit(lambda xx: f(npjax, xx))(npjax.asarray(x))
                want = f(np, x.copy())
                g = np.asarray(got)
                print(placement, name, g.dtype == want.dtype and np.array_equal(g, want))
    """)


def test_float64_made_inside_npjax_jit_is_the_programs_where_the_backend_cannot_hold_it():
    # On a TPU float64 arrays are host arrays; inside an npjax.jit trace an array made in
    # float64 (zeros, arange, a list, a cast) must still be the program's: as a host array it
    # could hold no traced value (JitError on the chip: "np.zeros(3)[0] = x[0]")
    rows, out = _simulated(JIT_SCRIPT)
    assert len(rows) == 20 and all(r[2] == "True" for r in rows), out
