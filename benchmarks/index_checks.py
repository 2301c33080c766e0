"""Cost of npjax's bounds checks on integer-array (fancy) indices.

A loop reads ``a[idx]`` and one writes ``a[idx] = v`` (1000-element float64 array, 100
integer indices), with the index held as an npjax (device) array and as a host NumPy array.
Each loop runs three ways:

- ``npjax checked``: npjax as shipped (``IndexError`` for an out-of-bounds index);
- ``npjax unchecked``: the same npjax call path with the bounds check switched off (the
  check function replaced by a no-op for the measurement only), the reference for the ratio;
- ``jax clip``: a hand-written ``jax.jit`` gather / donated scatter with ``mode='clip'`` (no
  check at all, for scale).

The overhead is the median over rounds of ``checked / unchecked - 1`` (each round times both
loops back to back, in alternating order); the target (issue 4) is below 20%. Times shown are
the best per iteration over all rounds; compile excluded, results waited on. The check itself
is also timed alone: a cached hit (an index array already checked) and the host min/max of a
host index array. Results
also go to ``benchmarks/results/index_checks.json``.

Usage: ``python benchmarks/index_checks.py [--quick]``.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import timeit

import jax
import jax.numpy as jnp
import numpy as np

import npjax
from npjax._core import _index_plan, _index_read, _index_write

N = 1000
K = 100
LOOP = 50
TARGET = 0.20


def _loops(idx_kind: str) -> dict:
    rng = np.random.default_rng(0)
    idx_host = rng.integers(0, N, K)
    v_host = rng.random(K)
    idx = npjax.asarray(idx_host) if idx_kind == "npjax" else idx_host
    v = npjax.asarray(v_host)

    def read() -> None:
        a = npjax.arange(float(N))
        for _ in range(LOOP):
            r = a[idx]
        r.to_jax().block_until_ready()

    def write() -> None:
        a = npjax.arange(float(N))
        for _ in range(LOOP):
            a[idx] = v
        a.to_jax().block_until_ready()

    return {"read": read, "write": write}


def _jax_loops() -> dict:
    rng = np.random.default_rng(0)
    idx = jnp.asarray(rng.integers(0, N, K))
    v = jnp.asarray(rng.random(K))
    get = jax.jit(lambda x, i: x.at[i].get(mode="clip"))
    put = jax.jit(lambda x, i, v: x.at[i].set(v, mode="clip"), donate_argnums=0)

    def read() -> None:
        x = jnp.arange(float(N))
        for _ in range(LOOP):
            r = get(x, idx)
        r.block_until_ready()

    def write() -> None:
        x = jnp.arange(float(N))
        for _ in range(LOOP):
            x = put(x, idx, v)
        x.block_until_ready()

    return {"read": read, "write": write}


def _unchecked(fn):
    """``fn`` run with npjax's bounds check replaced by a no-op."""
    def run() -> None:
        users = (_index_read, _index_write)  # the modules that call the check
        saved = [m._check_bounds for m in users]
        for m in users:
            m._check_bounds = lambda checks, shape: None
        try:
            fn()
        finally:
            for m, check in zip(users, saved):
                m._check_bounds = check
    return run


def measure(repeat: int) -> dict:
    results = {}
    raw = _jax_loops()
    for idx_kind in ("npjax", "numpy"):
        loops = _loops(idx_kind)
        for op in ("read", "write"):
            fns = {"npjax checked": loops[op], "npjax unchecked": _unchecked(loops[op]),
                   "jax clip": raw[op]}
            for fn in fns.values():
                fn()  # warm-up: compile
            best = dict.fromkeys(fns, float("inf"))
            ratios = []
            for k in range(repeat):
                # Alternate the order each round; the ratio of a checked run to the unchecked
                # run next to it is robust to a machine whose load changes during the run.
                order = list(fns) if k % 2 else list(fns)[::-1]
                times = {name: timeit.timeit(fns[name], number=1) for name in order}
                for name, t in times.items():
                    best[name] = min(best[name], t)
                ratios.append(times["npjax checked"] / times["npjax unchecked"])
            row = {name: t / LOOP * 1e6 for name, t in best.items()}
            row["overhead"] = float(np.median(ratios)) - 1
            results[f"{op} a[idx], idx an {idx_kind} array"] = row
    return results


def check_alone() -> dict:
    """The bounds check by itself, per call, in µs."""
    rng = np.random.default_rng(0)
    host = rng.integers(0, N, K)
    arr = npjax.asarray(host).to_jax()
    _index_plan._check_bounds([(arr, 0)], (N,))  # now cached
    fns = {"npjax index array (cached)": lambda: _index_plan._check_bounds([(arr, 0)], (N,)),
           "host index array (min/max)": lambda: (int(host.min()), int(host.max()))}
    return {name: min(timeit.repeat(fn, number=2000, repeat=7)) / 2000 * 1e6
            for name, fn in fns.items()}


def main(argv: list[str]) -> int:
    repeat = 15 if "--quick" in argv else 60
    device = jax.devices()[0]
    print(f"npjax index-check benchmark: {platform.node()}, {os.cpu_count()} CPUs; "
          f"JAX {jax.__version__} on {device.platform}; NumPy {np.__version__}")
    print(f"{N}-element float64 array, {K} indices, {LOOP} iterations per loop, best of "
          f"{repeat}\n")
    results = measure(repeat)
    alone = check_alone()
    worst = 0.0
    for title, row in results.items():
        print(title)
        for name in ("npjax checked", "npjax unchecked", "jax clip"):
            print(f"  {name:<18} {row[name]:8.2f} µs/iteration")
        print(f"  check overhead     {row['overhead'] * 100:7.1f} %")
        worst = max(worst, row["overhead"])
    for name, us in alone.items():
        print(f"check alone, {name:<32} {us:6.2f} µs")
    verdict = "PASS" if worst < TARGET else "MISS"
    print(f"\nworst overhead {worst * 100:.1f} % (target < {TARGET * 100:.0f} %)  {verdict}")
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "index_checks.json")
    with open(path, "w") as f:
        json.dump({"machine": platform.node(), "platform": device.platform,
                   "jax": jax.__version__, "numpy": np.__version__, "unit": "us_per_iteration",
                   "results": results, "check_alone_us": alone, "worst_overhead": worst,
                   "target": TARGET, "verdict": verdict}, f, indent=2)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
