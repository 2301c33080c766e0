"""Drawing 10^7 standard normals and 10^7 uniform int64s: npjax (policy random="jax") against
NumPy's ``default_rng`` and raw ``jax.random`` (a jitted draw with a split key, the idiomatic
JAX way), on this machine.

JAX results are waited on with ``block_until_ready``; compilation is excluded (warm-up); the
median of the repeats is kept, with the repeats interleaved so a change in load affects every
candidate alike. Target (issue 5): npjax within 1.2x of raw ``jax.random``. Results also go to
``benchmarks/results/random_draws.json``.

Usage: ``python benchmarks/random_draws.py [--quick]`` (``--quick``: 10^6 draws, 3 repeats).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import jax
import numpy as np

import npjax

TARGET = 1.2


def median_seconds(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    for fn in fns.values():
        fn()  # warm-up: compile, fill caches
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    quick = "--quick" in sys.argv
    n = 10**6 if quick else 10**7
    repeat = 3 if quick else 7

    gen = npjax.random.default_rng(0)
    host = np.random.default_rng(0)
    state = {"key": jax.random.PRNGKey(0)}

    @jax.jit
    def raw_normal(key):
        key, sub = jax.random.split(key)
        return key, jax.random.normal(sub, (n,), np.float64)

    @jax.jit
    def raw_ints(key):
        key, sub = jax.random.split(key)
        return key, jax.random.randint(sub, (n,), 0, 1000, np.int64)

    def raw(fn):
        def run():
            state["key"], value = fn(state["key"])
            value.block_until_ready()
        return run

    cases = {
        "normal": {
            "npjax": lambda: gen.standard_normal(n).to_jax().block_until_ready(),
            "numpy": lambda: host.standard_normal(n),
            "jax.random": raw(raw_normal),
        },
        "integers": {
            "npjax": lambda: gen.integers(0, 1000, n).to_jax().block_until_ready(),
            "numpy": lambda: host.integers(0, 1000, n),
            "jax.random": raw(raw_ints),
        },
    }
    results = {}
    for case, fns in cases.items():
        t = median_seconds(fns, repeat)
        ratio = t["npjax"] / t["jax.random"]
        results[case] = {"seconds": t, "npjax/jax.random": ratio,
                         "npjax/numpy": t["npjax"] / t["numpy"],
                         "target_met": ratio <= TARGET}
        print(f"{case:9s} n={n:.0e}  npjax {t['npjax'] * 1e3:8.2f} ms  numpy "
              f"{t['numpy'] * 1e3:8.2f} ms  jax.random {t['jax.random'] * 1e3:8.2f} ms  "
              f"npjax/jax.random {ratio:5.2f}x (target <= {TARGET})  "
              f"npjax/numpy {t['npjax'] / t['numpy']:5.2f}x")
    out = {"n": n, "repeat": repeat, "device": str(jax.devices()[0]),
           "platform": platform.platform(), "cpus": os.cpu_count(), "results": results}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                        "random_draws.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
