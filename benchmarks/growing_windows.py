"""Programs compiled by growing-window loops on the device (issue 16, item 3): measurement only.

Each loop runs ``for k in range(1, n)`` over windows ``r[:k]``, ``A[k, :k]``, ``y[:k]`` with
``placement="device"`` and prints the XLA programs compiled (``npjax.stats()``) and the time.
Measured at n = 200 (2 shared CPUs, before any change for windows): ``r[:k] @ y[:k]`` 398
programs (a view read and a product per length), ``r[:k].sum()`` 199 (the reduction per
length), the triangular solve step ``x[k] = (b[k] - A[k, :k] @ x[:k]) / A[k, k]`` 205 (the view
read per length), ``y[:k] += 0.5 * y[:k][::-1]`` 795 (reads, elementwise ops and the update per
length). After ``npjax/_core/_window_reads.py`` (windows of a length seen before at buckets of
256, 512, ...): 2, 2, 3 and 3 programs (run alone, n = 200); the Levinson loop 1203 programs
and 109 s at n = 200 before, 21 at n = 200 and 45 at n = 4096 after (28 s against NumPy's
0.06 s on 2 busy CPUs: ~14 dispatches per iteration, not the issue's 3x).

With ``--levinson N`` it also runs the Levinson-Durbin recursion of issue 16 at ``N``
(``alpha = -(r[k] + dot(r[:k][::-1], y[:k])) / beta; y[:k] += alpha * y[:k][::-1];
y[k] = alpha``) with NumPy and with npjax on the device, and prints programs, both times and
the largest difference.

Usage: ``python benchmarks/growing_windows.py [n] [--levinson N]``.
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


def levinson(xp, r, n):
    """Durbin's recursion for the Yule-Walker system of ``r`` (Golub and Van Loan 4.7.1)."""
    y = xp.zeros(n)
    y[0] = -r[0]
    alpha, beta = -r[0], 1.0
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        alpha = -(r[k] + xp.dot(r[:k][::-1], y[:k])) / beta
        y[:k] += alpha * y[:k][::-1]
        y[k] = alpha
    return y


def main_levinson(n: int) -> None:
    r0 = 0.5 ** np.arange(1, n + 1) * (1 + 0.1 * np.random.default_rng(0).random(n))
    start = time.perf_counter()
    want = levinson(np, r0, n)
    numpy_s = time.perf_counter() - start
    with npjax.policy(placement="device"):
        r = npjax.asarray(r0)
        npjax.reset_stats()
        start = time.perf_counter()
        got = np.asarray(levinson(npjax, r, n))
        seconds = time.perf_counter() - start
    s = npjax.stats()["compiles"]
    print(f"levinson n={n:<5d} programs {s['count']:5d}  npjax {seconds:7.2f} s  numpy "
          f"{numpy_s:7.4f} s  ({seconds / numpy_s:.0f}x)  max |diff| "
          f"{np.max(np.abs(got - want)):.1e}  {dict(list(s['by_function'].items())[:5])}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--levinson" in args:
        at = args.index("--levinson")
        main_levinson(int(args[at + 1]))
        del args[at:at + 2]
        if not args:
            sys.exit(0)
    main(int(args[0]) if args else 200)
