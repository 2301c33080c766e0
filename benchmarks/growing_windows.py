"""Programs compiled by growing-window loops on the device (issue 16, item 3): measurement only.

Each loop runs ``for k in range(1, n)`` over windows ``r[:k]``, ``A[k, :k]``, ``y[:k]`` with
``placement="device"`` and prints the XLA programs compiled (``npjax.stats()``) and the time.
Measured at n = 200 (2 shared CPUs, before any change for windows): ``r[:k] @ y[:k]`` 398
programs (a view read and a product per length), ``r[:k].sum()`` 199 (the reduction per
length), the triangular solve step ``x[k] = (b[k] - A[k, :k] @ x[:k]) / A[k, k]`` 205 (the view
read per length), ``y[:k] += 0.5 * y[:k][::-1]`` 795 (reads, elementwise ops and the update per
length).

Usage: ``python benchmarks/growing_windows.py [n]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import npjax


def main(n: int = 200) -> None:
    rng = np.random.default_rng(0)
    with npjax.policy(placement="device"):
        r = npjax.asarray(rng.random(n))
        y = npjax.asarray(rng.random(n))
        A = npjax.asarray(rng.random((n, n)) + n * np.eye(n))
        b = npjax.asarray(rng.random(n))
        x = npjax.zeros(n)

        def solve_step(k):
            x[k] = (b[k] - A[k, :k] @ x[:k]) / A[k, k]

        def update(k):
            y[:k] += 0.5 * y[:k][::-1]

        loops = {"s = r[:k] @ y[:k]": lambda k: r[:k] @ y[:k],
                 "s = r[:k].sum()": lambda k: r[:k].sum(),
                 "x[k] = (b[k] - A[k, :k] @ x[:k]) / A[k, k]": solve_step,
                 "y[:k] += 0.5 * y[:k][::-1]": update}
        for name, step in loops.items():
            npjax.reset_stats()
            start = time.perf_counter()
            for k in range(1, n):
                step(k)
            seconds = time.perf_counter() - start
            s = npjax.stats()["compiles"]
            print(f"{name:45s} programs {s['count']:5d}  {seconds:6.1f} s  "
                  f"{dict(list(s['by_function'].items())[:4])}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
