"""Whether float64 values keep their bits on the default device (an accelerator may emulate
float64): a round trip, ``x + 0.0``, ``x * 1.0``, sums and products, extreme exponents and
-0.0, through raw JAX, or through npjax with every array on the device (``--npjax``):
``python benchmarks/tpu_float64_bits.py [--npjax]`` (docs/tpu.md)."""

from __future__ import annotations

import sys

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)


def _report(name: str, got: np.ndarray, want: np.ndarray) -> None:
    same = (got.view(np.int64) == want.view(np.int64)) | (np.isnan(got) & np.isnan(want))
    with np.errstate(all="ignore"):
        rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-300)
    print(f"{name:28s} identical {same.mean():7.1%}  max relative difference "
          f"{np.nanmax(np.where(same, 0.0, rel)):.2e}")


def main() -> None:
    if "--npjax" in sys.argv:
        import npjax

        npjax.set_policy(placement="device")
        put, jit, xp = npjax.asarray, lambda f: f, npjax
    else:
        import jax.numpy as jnp

        put, jit, xp = jax.device_put, jax.jit, jnp
    print("devices", jax.devices())
    rng = np.random.default_rng(0)
    x = rng.uniform(-1e3, 1e3, 100_000)
    y = rng.uniform(-1e3, 1e3, 100_000)
    extremes = np.array([1e300, -1e300, 1e-300, 5e-324, 2.2e-308, 1.0 + 2.0**-52, np.pi,
                         1e38, 3.5e38, 1e-38, 1e-45, np.inf, -0.0, np.nan])
    dx, dy, de = (put(v) for v in (x, y, extremes))
    _report("round trip", np.asarray(dx), x)
    _report("round trip, extremes", np.asarray(de), extremes)
    for v in extremes:
        print(f"   {v!r:32s} -> {np.asarray(put(np.array([v])))[0]!r}")
    _report("x + 0.0", np.asarray(jit(lambda a: a + 0.0)(dx)), x + 0.0)
    _report("x * 1.0", np.asarray(jit(lambda a: a * 1.0)(dx)), x * 1.0)
    _report("x + y", np.asarray(jit(xp.add)(dx, dy)), x + y)
    _report("x * y", np.asarray(jit(xp.multiply)(dx, dy)), x * y)
    _report("sin(x)", np.asarray(jit(xp.sin)(dx)), np.sin(x))
    with np.errstate(all="ignore"):
        _report("extremes * 1.0", np.asarray(jit(lambda a: a * 1.0)(de)), extremes * 1.0)
    big = put(np.array([1e200]))
    print("1e200 * 1e100 ->", np.asarray(jit(lambda a: a * 1e100)(big)))
    if "--npjax" in sys.argv:
        print("stats lazy", npjax.stats()["lazy"], "transfers", npjax.stats()["transfers"])


if __name__ == "__main__":
    main()
