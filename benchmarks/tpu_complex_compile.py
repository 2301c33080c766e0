"""Which complex128 operations a TPU compiles and computes, run through npjax's lowering rules.

XLA's TPU compiler aborts the whole process on some complex128 primitives (``abs``, division,
``tan``...: "xprecision_rewriter.cc: Check failed") and refuses others with a layout error at
some shapes; ``npjax/_pure/_lowerings.py`` lowers those another way. This script compiles
each case of ``CASES`` at each shape (``jax.jit`` of the ``jax.numpy`` call, with npjax
imported so that its rules are installed) and, on a TPU machine, runs it and compares the
values with NumPy's. The cases run one after the other in a child process; when one aborts
the child, the next child starts after it, so one abort costs one case.

On a TPU machine::

    python benchmarks/tpu_complex_compile.py [--shapes 5,5:10,5] [--out DIR]

On any machine, for a compile-only TPU v5e (libtpu on ``PYTHONPATH``, as for
``tpu_op_compile.py``)::

    JAX_PLATFORMS=cpu PYTHONPATH=.:DIR python benchmarks/tpu_complex_compile.py --compile-only

Prints one line per case and shape: ``ok`` (and the largest relative difference from NumPy
on a chip), ``abort`` or the first line of the error.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

UNARY = ("abs", "exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "arctan", "arcsinh",
         "log1p", "expm1", "square", "reciprocal", "sign", "conj", "real", "angle", "isnan",
         "sum", "prod", "mean", "var", "cumsum", "sort_complex", "flip", "transpose",
         "ravel", "negative")
BINARY = ("add", "subtract", "multiply", "divide", "power", "equal", "matmul", "where",
          "concatenate", "stack", "isclose", "getitem", "setitem", "complex_parts")


def _case(name: str):
    import jax.numpy as jnp
    from jax import lax

    special = {"where": lambda a, b: jnp.where(a.real > 0, a, b),
               "concatenate": lambda a, b: jnp.concatenate([a, b]),
               "stack": lambda a, b: jnp.stack([a, b]),
               "getitem": lambda a, b: a[jnp.array([0, 2])] + b[1],
               "setitem": lambda a, b: a.at[1:3].set(b[0:2]),
               "complex_parts": lambda a, b: lax.complex(a.real, b.imag)}
    if name in special:
        return special[name], 2
    return getattr(jnp, name), (2 if name in BINARY else 1)


def _child(todo: list[tuple[str, tuple]], compile_only: bool) -> None:
    os.environ.setdefault("NPJAX_CACHE_DIR", "off")
    import jax
    import numpy as np

    import npjax  # noqa: F401  (x64, and npjax's TPU lowering rules)
    sharding = None
    if compile_only:
        from benchmarks.tpu_compile_probe import _aot_sharding
        sharding = _aot_sharding()
    rng = np.random.default_rng(0)
    cpu = jax.devices("cpu")[0]
    for name, shape in todo:
        fn, arity = _case(name)
        print(json.dumps({"start": [name, shape]}), flush=True)
        t = time.perf_counter()
        row: dict = {"case": name, "shape": shape}
        try:
            if compile_only:
                x = jax.ShapeDtypeStruct(shape, np.complex128, sharding=sharding)
                jax.jit(fn).trace(*[x] * arity).lower(lowering_platforms=("tpu",)).compile()
            else:
                xs = [rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
                      for _ in range(arity)]
                got = np.asarray(jax.jit(fn)(*map(jax.device_put, xs)))
                want = np.asarray(jax.jit(fn)(*(jax.device_put(x, cpu) for x in xs)))
                scale = np.maximum(np.abs(want), 1e-300)
                row["max_rel_diff"] = float(np.max(np.abs(got - want) / scale)) if want.size \
                    else 0.0
            row["result"] = "ok"
        except Exception as exc:
            row["result"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        row["seconds"] = round(time.perf_counter() - t, 2)
        print(json.dumps({"row": row}), flush=True)


def _save(out: str, rows: list) -> None:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "complex_compile.json"), "w") as f:
        json.dump(rows, f, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="5,5:10,5:8,128:7:2,3,4")
    ap.add_argument("--cases", default=",".join(UNARY + BINARY))
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    options = ap.parse_args()
    if options.child:
        _child([(n, tuple(s)) for n, s in json.loads(options.child)], options.compile_only)
        return
    shapes = [tuple(int(n) for n in s.split(",")) for s in options.shapes.split(":")]
    todo = [(n, s) for n in options.cases.split(",") for s in shapes]
    rows: list[dict] = []
    while todo:
        cmd = [sys.executable, __file__, "--child", json.dumps(todo)] + (
            ["--compile-only"] if options.compile_only else [])
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True)
        current = None
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))  # (``timeout``: the child too)
        try:
            for line in child.stdout:
                if not line.startswith("{"):
                    continue
                msg = json.loads(line)
                if "start" in msg:
                    current = (msg["start"][0], tuple(msg["start"][1]))
                else:
                    row = msg["row"]
                    rows.append(row)
                    todo.remove((row["case"], tuple(row["shape"])))
                    current = None
                    extra = f" {row['max_rel_diff']:.1e}" if "max_rel_diff" in row else ""
                    print(f"{row['case']:14s} {str(tuple(row['shape'])):12s} {row['result']}"
                          f"{extra} ({row['seconds']} s)", flush=True)
        except BaseException:  # (SIGTERM, ^C: the child holds the chip, so it goes too)
            child.kill()
            raise
        finally:
            if options.out:
                _save(options.out, rows)
        code = child.wait()
        if current is not None:  # the child died in this case
            rows.append({"case": current[0], "shape": current[1],
                         "result": f"abort (exit {code})"})
            todo.remove(current)
            print(f"{current[0]:14s} {str(current[1]):12s} abort (exit {code})", flush=True)
        elif code != 0 and todo:
            print(f"the child exited {code} between cases: stopped", flush=True)
            break


if __name__ == "__main__":
    main()
