"""Whether the programs ``npjax.linalg`` and ``npjax.fft`` build for float32 and complex64
device arrays compile for a TPU (no chip needed: a compile-only TPU v5e from libtpu).

On a TPU float64 and complex128 arrays are host arrays (``_capabilities.HOST_DTYPES``), so the
programs the chip compiles hold float32/complex64 operands, and the families of
``_capabilities.TABLE`` go to the host inside them (``route``). Each case is run twice here:

- ``eager``: the call runs on this CPU with every array on the device (HOST_DTYPES of the
  TPU named for the CPU, as on the chip) and each program JAX compiles for it is lowered
  again for the TPU (its ``lax.platform_dependent`` branches resolved for the TPU) and
  compiled for the compile-only device;
- ``jit``: the program ``npjax.jit`` (and lazy mode, which records the same calls) builds for
  the whole call, lowered for the TPU and compiled.

Usage (libtpu on ``PYTHONPATH``, e.g. ``pip install --no-deps --target DIR libtpu==0.0.42.*``)::

    JAX_PLATFORMS=cpu PYTHONPATH=.:DIR python benchmarks/tpu_linalg_compile.py [--cases svd,eig]

Prints one line per case, dtype and mode: ``ok`` or the first line of the first error. A
case whose compile aborts the process is reported as ``abort`` and the next child goes on.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

SQ, BATCH, RECT = (3, 3), (2, 3, 3), (3, 2)


def _cases() -> dict:
    """name -> (function of (module, *arrays), shapes of the arrays)."""
    import numpy as np
    la = lambda name, **kw: (lambda m, a: getattr(m.linalg, name)(a, **kw))  # noqa: E731
    out: dict = {}
    for shape, tag in ((RECT, "3x2"), (BATCH, "2x3x3")):
        out[f"svd {tag}"] = (la("svd"), [shape])
        out[f"svd uv=False {tag}"] = (la("svd", compute_uv=False), [shape])
        out[f"pinv {tag}"] = (la("pinv"), [shape])
        out[f"matrix_rank {tag}"] = (la("matrix_rank"), [shape])
        out[f"qr {tag}"] = (la("qr"), [shape])
        out[f"qr r {tag}"] = (la("qr", mode="r"), [shape])
        out[f"qr raw {tag}"] = (la("qr", mode="raw"), [shape])
        for ord_ in (2, -2, "nuc", "fro", 1, np.inf):
            out[f"norm {ord_} {tag}"] = (la("norm", ord=ord_, axis=(-2, -1)), [shape])
    for shape, tag in ((SQ, "3x3"), (BATCH, "2x3x3")):
        for name in ("eig", "eigvals", "eigh", "eigvalsh", "inv", "det", "slogdet",
                     "cholesky", "cond"):
            out[f"{name} {tag}"] = (la(name), [shape])
        out[f"svd hermitian {tag}"] = (la("svd", hermitian=True), [shape])
        out[f"svd hermitian uv=False {tag}"] = (la("svd", hermitian=True, compute_uv=False),
                                                [shape])
        out[f"pinv hermitian {tag}"] = (la("pinv", hermitian=True), [shape])
        out[f"matrix_rank hermitian {tag}"] = (la("matrix_rank", hermitian=True), [shape])
        for p in ("fro", "nuc", 1, -np.inf):
            out[f"cond {p} {tag}"] = (la("cond", p=p), [shape])
        out[f"matrix_power 3 {tag}"] = (lambda m, a: m.linalg.matrix_power(a, 3), [shape])
        out[f"matrix_power -2 {tag}"] = (lambda m, a: m.linalg.matrix_power(a, -2), [shape])
        out[f"solve {tag}"] = (lambda m, a, b: m.linalg.solve(a, b), [shape, shape])
    out["lstsq 2x2"] = (lambda m, a, b: m.linalg.lstsq(a, b), [(2, 2), (2,)])
    out["lstsq 3x2"] = (lambda m, a, b: m.linalg.lstsq(a, b), [RECT, (3, 2)])
    out["tensorinv 2x3x6"] = (lambda m, a: m.linalg.tensorinv(a, ind=2), [(2, 3, 6)])
    out["tensorsolve 6x2x3"] = (lambda m, a, b: m.linalg.tensorsolve(a, b), [(6, 2, 3), (6,)])
    out["multi_dot 3x2,2x3,3x3"] = (lambda m, a, b, c: m.linalg.multi_dot([a, b, c]),
                                    [RECT, (2, 3), SQ])
    for name in ("fft", "ifft", "fft2", "ifftn"):
        out[f"fft.{name} 3x4"] = (lambda m, a, name=name: getattr(m.fft, name)(a), [(3, 4)])
    out["fft.rfft 3x4"] = (lambda m, a: m.fft.rfft(a.real), [(3, 4)])
    out["fft.irfft 3x4"] = (lambda m, a: m.fft.irfft(a), [(3, 4)])
    out["roots 4"] = (lambda m, a: m.roots(a.real), [(4,)])
    out["poly 3"] = (lambda m, a: m.poly(a), [(3,)])
    out["polyfit 6 deg 2"] = (lambda m, a, b: m.polyfit(a.real, b, 2), [(6,), (6,)])
    out["polyfit cov 6 deg 2"] = (lambda m, a, b: m.polyfit(a.real, b, 2, cov=True),
                                  [(6,), (6,)])
    return out


def _data(shapes: list, dtype: str, name: str) -> list:
    import numpy as np
    rng = np.random.default_rng(0)
    arrays = []
    for s in shapes:
        x = rng.standard_normal(s)
        if dtype.startswith("complex"):
            x = x + 1j * rng.standard_normal(s)
        if name.startswith(("cholesky", "eigh", "eigvalsh")) or "hermitian" in name:
            x = x @ np.conj(np.swapaxes(x, -1, -2)) + 3 * np.eye(s[-1])
        arrays.append((x * 3).round().astype(dtype) if dtype.startswith("int")
                      else x.astype(dtype))
    return arrays


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {(text[0] if text else '')[:240]}"


def _eager(fn: Any, xs: list, sharding: Any) -> str:
    """Run ``fn`` on the CPU (arrays on the device), compiling every program JAX compiles
    for it again for the TPU; the first error, or "ok"."""
    import jax
    from jax._src import core, pjit

    import npjax
    errors: list = []
    seen = [0]
    base = pjit._pjit_call_impl_python

    def spy(*args: Any, jaxpr: Any, **kw: Any) -> Any:
        seen[0] += 1
        if not errors:
            specs = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding)
                     for a in jaxpr.in_avals]
            try:
                jax.jit(core.jaxpr_as_fun(jaxpr)).trace(*specs).lower(
                    lowering_platforms=("tpu",)).compile()
            except Exception as exc:
                avals = ", ".join(str(a) for a in jaxpr.in_avals)
                errors.append(f"{_first_line(exc)} [program {kw.get('name')}({avals})]")
        return base(*args, jaxpr=jaxpr, **kw)

    jax.clear_caches()
    pjit._pjit_call_impl_python = spy
    try:
        with npjax.policy(placement="device", mode="eager"):
            got = fn(npjax, *(npjax.asarray(x) for x in xs))
            jax.block_until_ready(jax.tree.map(lambda g: getattr(g, "_jax", g), got))
    except Exception as exc:
        errors.append(f"{_first_line(exc)} [running]")
    finally:
        pjit._pjit_call_impl_python = base
    return errors[0] if errors else f"ok ({seen[0]} programs)"


def _jit(fn: Any, xs: list, sharding: Any) -> str:
    import npjax
    from npjax._compile._jit import _TRACE_ERRORS
    from npjax._compile._jit_lower import lower
    try:
        with npjax.policy(placement="device"):
            args = [npjax.asarray(x) for x in xs]
            lower(npjax.jit(fn, static_argnums=(0,)), (npjax, *args), platforms=("tpu",),
                  sharding=sharding).compile()
    except _TRACE_ERRORS as exc:  # (npjax.jit runs such a call eagerly: no program)
        return f"ok (not traced: {type(exc).__name__})"
    except Exception as exc:
        return _first_line(exc)
    return "ok"


def _child(todo: list) -> None:
    os.environ.setdefault("NPJAX_CACHE_DIR", "off")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")  # (compile-only: no chip held)
    import warnings

    from npjax._pure import _capabilities
    from benchmarks.tpu_compile_probe import _aot_sharding
    # as on the chip: float64/complex128 arrays are host arrays
    _capabilities.HOST_DTYPES = {**_capabilities.HOST_DTYPES,
                                 "cpu": _capabilities.HOST_DTYPES["tpu"]}
    warnings.simplefilter("ignore")
    sharding = _aot_sharding()
    cases = _cases()
    for name, dtype, mode in todo:
        print(json.dumps({"start": [name, dtype, mode]}), flush=True)
        fn, shapes = cases[name]
        xs = _data(shapes, dtype, name)
        result = (_eager if mode == "eager" else _jit)(fn, xs, sharding)
        print(json.dumps({"row": [name, dtype, mode, result]}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=None, help="comma-separated name prefixes")
    ap.add_argument("--dtypes", default="float32,complex64")
    ap.add_argument("--modes", default="eager,jit")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    options = ap.parse_args()
    if options.child:
        _child([tuple(t) for t in json.loads(options.child)])
        return
    names = [n for n in _cases() if options.cases is None
             or any(n.startswith(p) for p in options.cases.split(","))]
    todo = [(n, d, m) for n in names for d in options.dtypes.split(",")
            for m in options.modes.split(",")]
    failed = 0
    while todo:
        child = subprocess.Popen([sys.executable, __file__, "--child", json.dumps(todo)],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        current = None
        for line in child.stdout:
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if "start" in msg:
                current = tuple(msg["start"])
                continue
            name, dtype, mode, result = msg["row"]
            todo.remove((name, dtype, mode))
            current = None
            failed += not result.startswith("ok")
            print(f"{name:30s} {dtype:10s} {mode:6s} {result}", flush=True)
        code = child.wait()
        if current is not None:
            todo.remove(current)
            failed += 1
            print(f"{current[0]:30s} {current[1]:10s} {current[2]:6s} abort (exit {code})",
                  flush=True)
        elif code != 0 and todo:
            print(f"the child exited {code} between cases: stopped", flush=True)
            break
    print(f"{failed} failed", flush=True)


if __name__ == "__main__":
    main()
