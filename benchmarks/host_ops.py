"""Per-operation cost of the host route against NumPy's own operation: the operations of the
slice-and-scalar loop kernels (``forward_subst``, ``levinson``, ``cholesky``, ``lu``,
``gram_schmidt``, ``particles``, ``edit_distance``) on small host arrays.

For each: NumPy's and npjax's time per call (``time.thread_time``, best of several rounds of
many calls: thread time is steadier than wall time on a shared machine) and the Python calls
npjax makes (``sys.setprofile``: 'call' events, Python frames, and 'c_call' events, C
functions called from Python; the lambda that wraps the operation and ``setprofile`` itself
count one each, as for NumPy).

Usage: ``python benchmarks/host_ops.py [NAME ...]`` (names as printed; all by default). To
compare two versions, run it alternately with each on ``PYTHONPATH``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy

import npjax


def count_calls(fn: Callable[[], object]) -> tuple[int, int]:
    """Python frames and C calls made by one call of ``fn``."""
    counts = [0, 0]

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "call":
            counts[0] += 1
        elif event == "c_call":
            counts[1] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return counts[0], counts[1]


def per_call(fn: Callable[[], object], calls: int = 20000, rounds: int = 5) -> float:
    """Best thread time per call of ``fn``, in µs."""
    for _ in range(200):
        fn()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.thread_time()
        for _ in range(calls):
            fn()
        best = min(best, time.thread_time() - t0)
    return best / calls * 1e6


def operations(np: object) -> dict[str, Callable[[], object]]:
    """The operations, on arrays made by ``np`` (NumPy or npjax) from the same data."""
    rng = numpy.random.default_rng(0)
    L = np.asarray(rng.random((48, 48)))
    x, b = np.asarray(rng.random(48)), np.asarray(rng.random(48))
    D = np.asarray(rng.integers(0, 9, (21, 25)))
    d3, v27 = np.asarray(rng.random(3)), np.asarray(rng.random(27))
    i, j = 20, 20
    s = b[3]
    return {
        "L[i, :i]": lambda: L[i, :i],
        "L[i, i]": lambda: L[i, i],
        "L[j+1:, j]": lambda: L[j + 1:, j],
        "b[i]": lambda: b[i],
        "x[:i][::-1]": lambda: x[:i][::-1],
        "view @ view": lambda u=L[i, :i], w=x[:i]: u @ w,
        "npscalar * view": lambda u=x[:i]: s * u,
        "view * npscalar": lambda u=x[:i]: u * s,
        "view + view": lambda u=x[:i], w=b[:i]: u + w,
        "x[i] = npscalar": lambda: x.__setitem__(i, s),
        "L[i, j] = npscalar": lambda: L.__setitem__((i, j), s),
        "D[i, j] = npint": lambda v=D[1, 1]: D.__setitem__((i, j), v),
        "x[:i] = view": lambda u=b[:i]: x.__setitem__(slice(None, i), u),
        "L[j+1:, j] = array": lambda: L.__setitem__((slice(j + 1, None), j), v27),
        "sqrt(npscalar)": lambda: np.sqrt(s),
        "outer(view, view)": lambda u=L[i, :i], w=x[:i]: np.outer(u, w),
        "view /= npscalar": lambda u=L[i + 1:, i]: u.__itruediv__(1.0),
        "zeros(3)": lambda: np.zeros(3),
        "linalg.norm(3)": lambda: np.linalg.norm(d3),
        "sum(3)": lambda: np.sum(d3),
        "float * array(3)": lambda: 2.0 * d3,
        "array(3).sum()": lambda: d3.sum(),
        "array(3).copy()": lambda: d3.copy(),
        "L[:, :i].T": lambda u=L[:, :i]: u.T,
        "empty_like(48)": lambda: np.empty_like(x),
        "stack(16 x array(3))": lambda P=[d3] * 16: np.stack(P),
    }


def main(argv: list[str]) -> int:
    ours, theirs = operations(npjax), operations(numpy)
    for name in argv or list(ours):
        t_numpy, t_npjax = per_call(theirs[name]), per_call(ours[name])
        frames, c_calls = count_calls(ours[name])
        print(f"{name:20s} NumPy {t_numpy:6.2f} µs  npjax {t_npjax:6.2f} µs  "
              f"x{t_npjax / t_numpy:5.2f}  npjax calls: {frames} Python, {c_calls} C",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
