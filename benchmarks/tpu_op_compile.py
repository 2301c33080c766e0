"""How long XLA's TPU compiler takes for single elementwise operations of one dtype: the
programs of lazy mode and ``npjax.jit`` pay the sum of their operations' compiles on their
first run (a float64 ``exp`` of (20000, 50) is most of ``examples/option_pricing.py``'s 7.4 s
lazy-program compile on the chip).

On a TPU machine::

    python benchmarks/tpu_op_compile.py [--dtype float64] [--shape 20000,50]

On any machine, for a compile-only TPU v5e (the libtpu wheel ``jax[tpu]`` pins on
``PYTHONPATH``, e.g. ``pip install --no-deps --target DIR libtpu==0.0.42.*``)::

    JAX_PLATFORMS=cpu PYTHONPATH=.:DIR python benchmarks/tpu_op_compile.py --compile-only

prints one line per operation: seconds of ``Lowered.compile()`` (the first line, ``z + 1``,
also pays the compiler's one-time start).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

UNARY = ("exp", "log", "sin", "cos", "tanh", "sqrt", "log1p", "expm1", "arctan", "arcsin",
         "sinh", "cbrt", "exp2", "log2", "log10")


def cases() -> dict:
    import jax
    import jax.numpy as jnp

    out = {"z + 1 (warm-up)": lambda z: z + 1.0}
    for name in UNARY:
        out[name] = getattr(jnp, name)
    out["z ** 1.7"] = lambda z: z ** 1.7
    out["arctan2"] = lambda z: jnp.arctan2(z, z + 1)
    out["z / (z + 1)"] = lambda z: z / (z + 1)
    out["erf"] = jax.scipy.special.erf
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", default="float64")
    ap.add_argument("--shape", default="20000,50")
    ap.add_argument("--compile-only", action="store_true",
                    help="compile for a compile-only TPU v5e (no chip needed; libtpu)")
    options = ap.parse_args()
    os.environ.setdefault("NPJAX_CACHE_DIR", "off")  # (every compile measured; read at import)
    import jax
    import numpy as np

    import npjax  # noqa: F401  (x64, and npjax's TPU lowering rules)
    sharding = None
    if options.compile_only:
        from benchmarks.tpu_compile_probe import _aot_sharding
        sharding = _aot_sharding()
    shape = tuple(int(n) for n in options.shape.split(","))
    x = jax.ShapeDtypeStruct(shape, np.dtype(options.dtype), sharding=sharding)
    where = "compile-only v5e" if sharding else jax.default_backend()
    print(f"{options.dtype}{list(shape)}, {where}")
    for name, fn in cases().items():
        lowered = jax.jit(fn).trace(x).lower(lowering_platforms=("tpu",))
        t = time.perf_counter()
        lowered.compile()
        print(f"  {name:16s} {time.perf_counter() - t:6.2f} s", flush=True)


if __name__ == "__main__":
    main()
