"""Device ufuncs against NumPy's, in ulps: share of elements that differ and the largest
difference, per function and dtype and the largest in units of the parity suites' tolerance
(``python benchmarks/ulps.py [NAMES [DTYPES]]``, comma separated; docs/differences.md).

Inputs: 200000 values per function from a fixed seed, in each function's usual domain
(uniform; ``exp`` over its finite range). Values are compared as integers of their bits
(ulps), NaNs where both are NaN counted equal.
"""

from __future__ import annotations

import sys

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


# arithmetic and reductions: (operands, domain, call on the module)
_ARITHMETIC = {
    "add": (2, (-1e3, 1e3), lambda m, a, b: m.add(a, b)),
    "multiply": (2, (-1e3, 1e3), lambda m, a, b: m.multiply(a, b)),
    "divide": (2, (0.5, 1e3), lambda m, a, b: m.divide(a, b)),
    "reciprocal": (1, (0.5, 1e3), lambda m, a: m.reciprocal(a)),
    "remainder": (2, (0.5, 1e3), lambda m, a, b: m.remainder(a, b)),
    "sum": (1, (-1e3, 1e3), lambda m, a: m.cumsum(a.reshape(-1, 100), axis=1)),
    "matmul": (2, (-1.0, 1.0), lambda m, a, b: m.matmul(a.reshape(400, 500),
                                                          b.reshape(500, 400))),
}


# the parity suites' tolerance of each dtype (tests/tolerances.py)
_TOLERANCE = {"float32": (2e-6, 1e-6), "float64": (1e-12, 1e-14)}


def measure(name: str, dtype: str, rng: np.random.Generator) -> tuple[float, int, float]:
    """(share of elements that differ, largest difference in ulps, largest difference in
    units of the parity suites' tolerance: over 1 fails them)."""
    if name in _ARITHMETIC:
        count, (lo, hi), call = _ARITHMETIC[name]
    else:
        lo, hi = _DOMAINS.get(name) or _BINARY[name]
        count = 2 if name in _BINARY else 1

        def call(m, *xs):
            return getattr(m, name)(*xs)
    args = [rng.uniform(lo, hi, N).astype(dtype) for _ in range(count)]
    want = call(np, *args)
    with npjax.policy(placement="device"):
        got = np.asarray(call(npjax, *[npjax.asarray(a) for a in args]))
    d = _ulps(got, want)
    rtol, atol = _TOLERANCE[dtype]
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(np.float64) - want) / (rtol * np.abs(want) + atol)
    err = np.where(np.isnan(got) & np.isnan(want), 0.0, err)
    return float((d > 0).mean()), int(d.max()), float(np.nanmax(err))


def main() -> None:
    rng = np.random.default_rng(0)
    dtypes = sys.argv[2].split(",") if len(sys.argv) > 2 else ["float32", "float64"]
    print("| function | " + " | ".join(f"{d}: differ, max ulps, max / tolerance"
                                       for d in dtypes) + " |")
    print("|---|" + "---:|" * len(dtypes))
    names = sys.argv[1].split(",") if len(sys.argv) > 1 else [*_DOMAINS, *_BINARY,
                                                                *_ARITHMETIC]
    for name in names:
        cells = []
        for dtype in dtypes:
            share, worst, tol = measure(name, dtype, rng)
            cells.append(f"{share:.1%}, {worst}, {tol:.2g}" if worst else "0")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
