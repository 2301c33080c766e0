"""Device ufuncs against NumPy's, in ulps: share of elements that differ and the largest
difference, per function and dtype (``python benchmarks/ulps.py``; docs/differences.md).

Inputs: 200000 values per function from a fixed seed, in each function's usual domain
(uniform; ``exp`` over its finite range). Values are compared as integers of their bits
(ulps), NaNs where both are NaN counted equal.
"""

from __future__ import annotations

import numpy as np

import npjax

N = 200_000
_DOMAINS = {
    "exp": (-80.0, 80.0), "exp2": (-100.0, 100.0), "expm1": (-10.0, 10.0),
    "log": (1e-3, 1e3), "log2": (1e-3, 1e3), "log10": (1e-3, 1e3), "log1p": (-0.9, 10.0),
    "sin": (-100.0, 100.0), "cos": (-100.0, 100.0), "tan": (-1.5, 1.5),
    "arcsin": (-1.0, 1.0), "arccos": (-1.0, 1.0), "arctan": (-100.0, 100.0),
    "sinh": (-20.0, 20.0), "cosh": (-20.0, 20.0), "tanh": (-10.0, 10.0),
    "arcsinh": (-100.0, 100.0), "arccosh": (1.0, 100.0), "arctanh": (-0.99, 0.99),
    "cbrt": (-1e3, 1e3), "sqrt": (0.0, 1e3),
}
_BINARY = {"arctan2": (-10.0, 10.0), "hypot": (-1e3, 1e3), "power": (0.1, 10.0),
           "logaddexp": (-50.0, 50.0), "logaddexp2": (-50.0, 50.0)}


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    bits = {4: np.int32, 8: np.int64}[got.dtype.itemsize]
    g, w = got.view(bits).astype(np.int64), want.view(bits).astype(np.int64)
    # order the bit patterns of negative numbers as their values
    g = np.where(g < 0, np.iinfo(bits).min - g, g)
    w = np.where(w < 0, np.iinfo(bits).min - w, w)
    d = np.abs(g - w)
    return np.where(np.isnan(got) & np.isnan(want), 0, d)


def measure(name: str, dtype: str, rng: np.random.Generator) -> tuple[float, int]:
    lo, hi = _DOMAINS.get(name) or _BINARY[name]
    args = [rng.uniform(lo, hi, N).astype(dtype) for _ in range(2 if name in _BINARY else 1)]
    want = getattr(np, name)(*args)
    with npjax.policy(placement="device"):
        got = np.asarray(getattr(npjax, name)(*[npjax.asarray(a) for a in args]))
    d = _ulps(got, want)
    return float((d > 0).mean()), int(d.max())


def main() -> None:
    rng = np.random.default_rng(0)
    print("| function | float32: differ, max ulps | float64: differ, max ulps |")
    print("|---|---:|---:|")
    for name in [*_DOMAINS, *_BINARY]:
        cells = []
        for dtype in ("float32", "float64"):
            share, worst = measure(name, dtype, rng)
            cells.append(f"{share:.1%}, {worst}" if worst else "0")
        print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
