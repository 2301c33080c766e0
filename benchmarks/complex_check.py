"""complex128 work of a NumPy script under npjax's default policy, against NumPy: values,
time and how the lazy programs ran (on an accelerator whose XLA fails on complex128, the
programs holding it run on the host's CPU backend: ``stats()["lazy"]["complex_on_cpu"]``).

    python benchmarks/complex_check.py [--placement device] [--mode lazy]
"""

from __future__ import annotations

import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def snippets(np):
    x = np.linspace(-2.0, 2.0, 50).reshape(10, 5)
    z = np.exp(1j * x)
    out = {"abs": np.abs(z + x), "divide": z / (x + 2j), "transpose": z.T.copy(),
           "concatenate": np.concatenate([z, z[:3]]), "tan": np.tan(z), "mean": z.mean(axis=0),
           "power": z ** -2, "sort_complex": np.sort_complex(z.ravel())}
    xs, ys = np.linspace(-2.0, 0.6, 300), np.linspace(-1.2, 1.2, 200)
    c = xs[None, :] + 1j * ys[:, None]
    w = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    for _ in range(20):
        w = np.where(np.abs(w) <= 2.0, w * w + c, w)
        count += np.abs(w) <= 2.0
    out["mandelbrot"] = count
    return out


def main() -> None:
    import argparse

    import npjax

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--placement", default=None)
    ap.add_argument("--mode", default=None)
    options = ap.parse_args()
    npjax.set_policy(**{k: v for k, v in vars(options).items() if v is not None})

    t = time.perf_counter()
    want = snippets(numpy)
    t_numpy = time.perf_counter() - t
    for run in ("first", "second"):
        t = time.perf_counter()
        try:
            got = {k: numpy.asarray(v) for k, v in snippets(npjax).items()}
        except Exception as exc:
            print(f"{run} run: {type(exc).__name__}: {str(exc)[:300]}")
            raise
        t_npjax = time.perf_counter() - t
        print(f"{run} run: npjax {t_npjax:.3f} s, NumPy {t_numpy:.3f} s")
    for k, w in want.items():
        g = got[k]
        scale = numpy.maximum(numpy.abs(w), 1e-300)
        diff = float(numpy.max(numpy.abs(g - w) / scale)) if w.size else 0.0
        print(f"  {k:13s} {g.dtype} {g.shape} max relative difference {diff:.1e}")
    print("lazy:", npjax.stats()["lazy"], "host routes:", npjax.stats().get("host_routes"))


if __name__ == "__main__":
    main()
