"""Where should small arrays stop running on NumPy? Times one elementwise chain (10 ufunc
calls, as a NumPy user writes it) at growing sizes under three policies, in one run:
``placement="host"`` (NumPy does everything), ``placement="device"`` eager (one JAX dispatch
per call) and ``placement="device", mode="lazy"`` (the chain fused into one program), and
NumPy itself. The default ``host_threshold`` comes from this table (`docs/placement.md`).

Usage: ``python benchmarks/threshold.py [--quick] [--float32]`` (float64 unless told).
"""

from __future__ import annotations

import sys
import timeit

import jax
import numpy

import npjax


def chain(np, x):
    y = np.sin(x) * 2.0 + 1.0
    y = np.sqrt(y * y + 1.0) - x / 3.0
    return np.exp(-y) * np.cos(x) + y


def best(fn, repeat: int) -> float:
    fn()
    fn()
    n = 3
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n


def main() -> None:
    quick = "--quick" in sys.argv
    repeat = 3 if quick else 7
    dtype = numpy.float32 if "--float32" in sys.argv else numpy.float64
    policies = {"host": dict(placement="host"), "device eager": dict(placement="device"),
                "device lazy": dict(placement="device", mode="lazy")}
    print(f"{'elements':>10} {'NumPy us':>10} " + " ".join(f"{k + ' us':>16}" for k in policies))
    for exp in range(8, 23, 2):
        n = 2 ** exp
        host = numpy.linspace(0.0, 1.0, n, dtype=dtype)
        row = [best(lambda host=host: chain(numpy, host), repeat)]
        for fields in policies.values():
            with npjax.policy(**fields):
                x = npjax.asarray(host)

                def run(x=x):
                    out = chain(npjax, x)
                    data = out._host()
                    if data is None:
                        jax.block_until_ready(out._read())
                row.append(best(run, repeat))
        print(f"{n:>10} " + " ".join(f"{t * 1e6:>10.1f}" if i == 0 else f"{t * 1e6:>16.1f}"
                                       for i, t in enumerate(row)))


if __name__ == "__main__":
    main()
