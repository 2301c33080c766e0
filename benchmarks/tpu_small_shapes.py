"""Small 2-D arrays of emulated 64-bit types on a TPU, op by op, in raw JAX against NumPy.

The capability probe found complex128 and int64 results at shapes such as 4x4, 4x3 and 4x1
wrong or refused ("RET_CHECK ... Layout::Equal") while 64x64 and larger were right. This
runs each op on each dtype and shape, a process per dtype (an abort costs the rest of that
dtype only), and prints one line per case: ok, WRONG (largest difference) or the error.

    python benchmarks/tpu_small_shapes.py [--npjax]

With ``--npjax``, npjax is imported first, so its TPU lowering rules (npjax/_pure/_lowerings.py)
and the host routes of its capability table take part.
"""

from __future__ import annotations

import subprocess
import sys

OPS = ["roundtrip", "transpose", "add", "matmul", "callback", "callback_T", "reshape",
       "complex_parts"]
DTYPES = ["int64", "float64", "complex128"]
SHAPES = [(4, 4), (4, 3), (4, 1), (64, 64)]


def case(op: str, dt: str, shape: tuple) -> str:
    import jax
    import numpy as np
    from jax import lax

    jax.config.update("jax_enable_x64", True)
    if "--npjax" in sys.argv:
        import npjax  # noqa: F401  (its lowering rules)
    rng = np.random.default_rng(0)
    x = rng.integers(-50, 50, shape).astype(dt)
    if dt == "complex128":
        x = x + 1j * rng.integers(-50, 50, shape)
    want = {"roundtrip": lambda: x, "transpose": lambda: x.T, "add": lambda: x + x,
            "matmul": lambda: x @ x.T, "callback": lambda: x, "callback_T": lambda: x.T,
            "reshape": lambda: x, "complex_parts": lambda: x}[op]()
    fns = {"roundtrip": lambda a: a, "transpose": lambda a: a.T, "add": lambda a: a + a,
           "matmul": lambda a: a @ a.T,
           "callback": lambda a: jax.pure_callback(np.asarray, jax.ShapeDtypeStruct(
               a.shape, a.dtype), a),
           "callback_T": lambda a: jax.pure_callback(lambda h: np.asarray(h).T.copy(),
                                                     jax.ShapeDtypeStruct(a.shape[::-1],
                                                                          a.dtype), a),
           "reshape": lambda a: a.reshape(-1).reshape(a.shape),
           "complex_parts": lambda a: lax.complex(a.real, a.imag) if dt == "complex128"
           else a}
    got = np.asarray(jax.jit(fns[op])(jax.device_put(x)))
    if got.shape != want.shape:
        return f"WRONG shape {got.shape}"
    diff = np.abs(got - want).max(initial=0)
    return "ok" if diff == 0 else f"WRONG by {diff:.3g}"


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--dtype":
        dt = sys.argv[2]
        for op in OPS:
            for shape in SHAPES:
                try:
                    line = case(op, dt, shape)
                except Exception as exc:
                    line = f"{type(exc).__name__}: {str(exc)[:120]}"
                print(f"{dt:10s} {op:13s} {shape!s:8s} {line}", flush=True)
        return 0
    for dt in DTYPES:  # a process per dtype: an abort costs the rest of that dtype only
        r = subprocess.run(["timeout", "120", sys.executable, __file__, "--dtype", dt,
                            *sys.argv[1:]],
                           text=True, check=False)
        print(f"{dt}: exit {r.returncode}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
