"""Single-precision linear algebra where the backend computes no double-precision linalg and
holds no float64/complex128 arrays (a TPU): NumPy computes float32 and complex64 in double,
and a kernel cast to double outside its host route put complex128 arrays into the programs
the TPU compiles (where complex128 fails a layout check: benchmarks/tpu_linalg_compile.py).
CI has no TPU: a subprocess names the CPU in ``_capabilities.TABLE``'s linalg rows and in
``HOST_DTYPES`` (as the TPU is there), runs each call on float32 and complex64 device arrays
eagerly, in lazy mode and under ``npjax.jit`` against NumPy, and records every program JAX
compiles for it: none may hold a complex128 value (nor, for real input, a float64 array)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import jax
import pytest

import npjax

pytestmark = pytest.mark.skipif(jax.default_backend() != "cpu", reason="simulated on the CPU")

SCRIPT = textwrap.dedent("""
    import json, re, warnings
    import jax, numpy as np, npjax
    from jax._src import core, pjit
    from npjax._pure import _capabilities
    _capabilities.HOST_DTYPES = {"cpu": _capabilities.HOST_DTYPES["tpu"]}
    for family in ("lu", "cholesky", "qr", "svd", "eigh", "eig"):
        _capabilities.TABLE[family] = {**_capabilities.TABLE[family],
                                       "cpu": _capabilities.TABLE[family]["tpu"]}
    texts = []
    base = pjit._pjit_call_impl_python

    def spy(*args, jaxpr, **kw):  # each program JAX compiles, as StableHLO
        specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in jaxpr.in_avals]
        texts.append(jax.jit(core.jaxpr_as_fun(jaxpr)).trace(*specs).lower().as_text())
        return base(*args, jaxpr=jaxpr, **kw)

    pjit._pjit_call_impl_python = spy
    rng = np.random.default_rng(3)
    A = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3))
    R = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    H = A @ np.conj(np.swapaxes(A, -1, -2)) + 3 * np.eye(3)
    CALLS = {
        "svd": lambda m, a, r, h: m.linalg.svd(r),
        "svd batched": lambda m, a, r, h: m.linalg.svd(a, full_matrices=False),
        "svdvals": lambda m, a, r, h: m.linalg.svd(a, compute_uv=False),
        "svd hermitian": lambda m, a, r, h: m.linalg.svd(h, hermitian=True)[1],
        "svd hermitian values": lambda m, a, r, h: m.linalg.svd(h, compute_uv=False,
                                                                hermitian=True),
        "eig values": lambda m, a, r, h: m.sort_complex(m.linalg.eig(a)[0].ravel()),
        "eigvals": lambda m, a, r, h: m.sort_complex(m.linalg.eigvals(a).ravel()),
        "eigh": lambda m, a, r, h: m.linalg.eigh(h)[0],
        "eigvalsh": lambda m, a, r, h: m.linalg.eigvalsh(h, UPLO="U"),
        "lstsq": lambda m, a, r, h: m.linalg.lstsq(r, r[:, 0])[:2],
        "pinv": lambda m, a, r, h: m.linalg.pinv(a),
        "matrix_rank": lambda m, a, r, h: m.linalg.matrix_rank(a),
        "solve": lambda m, a, r, h: m.linalg.solve(a, a[..., :1]),
        "inv": lambda m, a, r, h: m.linalg.inv(a),
        "det": lambda m, a, r, h: m.linalg.det(a),
        "slogdet": lambda m, a, r, h: m.linalg.slogdet(a),
        "qr": lambda m, a, r, h: m.linalg.qr(a),
        "qr raw": lambda m, a, r, h: m.linalg.qr(r, mode="raw"),
        "cholesky": lambda m, a, r, h: m.linalg.cholesky(h, upper=True),
        "norm nuc": lambda m, a, r, h: m.linalg.norm(a, "nuc", axis=(-2, -1)),
        "cond": lambda m, a, r, h: m.linalg.cond(a),
        "cond fro": lambda m, a, r, h: m.linalg.cond(a, "fro"),
        "matrix_power": lambda m, a, r, h: m.linalg.matrix_power(a, -2),
        "tensorinv": lambda m, a, r, h: m.linalg.tensorinv(a[0], ind=1),
        "roots": lambda m, a, r, h: m.sort_complex(m.roots(a[0, 0])),
        "polyfit": lambda m, a, r, h: m.polyfit(a[0, 0].real, a[0, 1], 1),
    }

    def host(x):
        return [host(y) for y in x] if isinstance(x, tuple | list) else np.asarray(x)

    def same(want, got):
        if isinstance(want, list):
            return len(want) == len(got) and all(same(w, g) for w, g in zip(want, got))
        return (want.dtype == got.dtype and want.shape == got.shape
                and np.allclose(got, want, rtol=2e-5, atol=2e-5))

    rows = []
    for dt in ("float32", "complex64", "int64"):
        args = [x.astype(dt) if dt == "complex64" else np.round(4 * x.real).astype(dt)
                if dt == "int64" else x.real.astype(dt) for x in (A, R, H)]
        for name, call in CALLS.items():
            if dt == "int64" and name in ("roots", "polyfit", "cholesky"):
                continue  # (integer data of their own: below)
            want = host(call(np, *args))
            for mode in ("eager", "lazy", "jit"):
                texts.clear()
                _capabilities.ROUTED.clear()
                with warnings.catch_warnings(), npjax.policy(placement="device"):
                    warnings.simplefilter("ignore")
                    xs = [npjax.asarray(x) for x in args]
                    if mode == "jit":
                        got = npjax.jit(lambda *xs: call(npjax, *xs), fallback="eager")(*xs)
                    else:
                        with npjax.policy(mode=mode):
                            got = call(npjax, *xs)
                    got = host(got)
                wide = re.compile("complex<f64>" if dt == "complex64"
                                  else r"complex<f64>|tensor<(\\d+x)+f64>")
                rows.append({"dt": dt, "call": name, "mode": mode, "same": same(want, got),
                             "routed": sum(_capabilities.ROUTED.values()),
                             "wide": sum(bool(wide.search(t)) for t in texts)})
    # integer or mixed operands whose result NumPy gives in float64/complex128: no program
    # on the device, NumPy's own call (the chip refused solve(int64, complex64)'s complex128)
    mixed = {
        "solve int complex64": lambda m: m.linalg.solve(m.asarray(np.array([[8, 0], [0, 8]])),
                                                        m.asarray(np.ones(2, np.complex64))),
        "inv int": lambda m: m.linalg.inv(m.asarray(np.array([[2, 1], [1, 3]]))),
        "det int": lambda m: m.linalg.det(m.asarray(np.array([[2, 1], [1, 3]]))),
        "roots int": lambda m: m.roots(m.asarray(np.array([1, -3, 2]))),
    }
    for name, call in mixed.items():
        want = host(call(np))
        for mode in ("eager", "lazy"):
            texts.clear()
            with warnings.catch_warnings(), npjax.policy(placement="device", mode=mode):
                warnings.simplefilter("ignore")
                got = host(call(npjax))
            rows.append({"dt": "mixed", "call": name, "mode": mode, "same": same(want, got),
                         "routed": 0, "wide": sum("f64" in t for t in texts)})
    print(json.dumps(rows))
    """)


def test_single_precision_linalg_has_no_double_arrays_on_a_backend_without_them():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(npjax.__file__)))
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = json.loads(out.stdout.splitlines()[-1])
    assert len(rows) == (2 * 26 + 23) * 3 + 4 * 2
    assert [r for r in rows if not r["same"]] == []
    # no program held a complex128 value (or, of real input, a float64 array): on a TPU
    # those fail its compiler's layout check. But under npjax.jit pinv's rcond (a float64
    # array) and integer operands' float64 results are the trace's own values
    # (_dtypes.TRACING), and a program holding float64 runs on the host's CPU backend there
    # (_lazy_cold.traces_host_dtype), never on the chip
    assert [r for r in rows if r["wide"] and not (
        r["mode"] == "jit" and (r["call"] == "pinv" or r["dt"] == "int64"))] == []
    # the linalg work ran as NumPy on the host, through the route (pinv's rcond is a float64
    # array, a host array there, and polyfit's result is float64 or complex128, so NumPy's
    # functions run whole; lazy mode on the CPU backend may run some calls as NumPy on the
    # data in place)
    eager = [r for r in rows if r["mode"] == "eager" and r["call"] not in ("pinv", "polyfit")
             and r["dt"] in ("float32", "complex64")]
    assert all(r["routed"] >= 1 for r in eager), [r for r in eager if not r["routed"]]
