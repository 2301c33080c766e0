"""Device-array call overhead of several npjax trees, measured in turn (issue 33).

Times ``a + b``, ``npjax.add(a, b)`` and ``a.sum()`` on device arrays of 100 float64 elements
(eager mode), each result waited on, beside ``jax.numpy``'s ``add`` and ``sum`` on the same
data, in one process per tree and round; the trees alternate (their order reversed every other
round), so a change in the machine's load reaches them alike. Prints the median per call over
every round's samples and the ratios to ``jax.numpy``.

Usage: ``OPENBLAS_NUM_THREADS=1 python benchmarks/device_alternate.py [--rounds 10]
[--set-policy] [--sizes 3,1000] [--dtypes float64,float32] [--cpu-time] TREE [TREE...]`` (a
TREE is a directory put first on ``PYTHONPATH``: a checkout or worktree of npjax, its C modules
built). Without ``--set-policy`` the arrays are made under ``placement="device"`` and called
under the default policy (as ``overhead.py`` does); with it
``npjax.set_policy(placement="device")`` holds for the calls too. ``--sizes``/``--dtypes``: the
arrays measured (100 float64 by default); ``--cpu-time``: the calling thread's CPU time
(``time.thread_time``) instead of the wall clock, which another process's load reaches less;
the best sample is printed beside the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

N, CALLS, REPEAT = 100, 2000, 5


def _functions(set_policy: bool, n: int, dtype: str) -> dict:
    """The calls timed, on arrays of ``n`` elements of ``dtype``."""
    import jax.numpy as jnp
    import numpy as np

    import npjax

    a_np = np.linspace(0.0, 1.0, n).astype(dtype)
    b_np = np.linspace(1.0, 2.0, n).astype(dtype)
    if set_policy:
        npjax.set_policy(placement="device")
        a, b = npjax.asarray(a_np), npjax.asarray(b_np)
    else:
        with npjax.policy(placement="device"):
            a, b = npjax.asarray(a_np), npjax.asarray(b_np)
    assert a._host() is None and b._host() is None  # device arrays
    a_j, b_j = jnp.asarray(a_np), jnp.asarray(b_np)
    return {
        "a + b": lambda: (a + b).to_jax().block_until_ready(),
        "npjax.add": lambda: npjax.add(a, b).to_jax().block_until_ready(),
        "a.sum()": lambda: a.sum().to_jax().block_until_ready(),
        "jnp.add": lambda: jnp.add(a_j, b_j).block_until_ready(),
        "jnp.sum": lambda: jnp.sum(a_j).block_until_ready(),
    }


def child(set_policy: bool, cases: list[tuple[int, str]], cpu: bool) -> None:
    """One tree's timings (the ``npjax`` on ``PYTHONPATH``), printed as JSON: microseconds
    per call, ``REPEAT`` samples per function and case (``n dtype``)."""
    import npjax

    timer = time.thread_time if cpu else time.perf_counter
    fns = {f"{n} {dtype}|{name}": fn for n, dtype in cases
           for name, fn in _functions(set_policy, n, dtype).items()}
    for fn in fns.values():  # warm-up: compile, fill caches
        for _ in range(50):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(REPEAT):
        for name, fn in fns.items():
            samples[name].append(timeit.timeit(fn, timer=timer, number=CALLS) / CALLS * 1e6)
    print(json.dumps({"npjax": npjax.__file__, "us": samples}))


def main() -> None:
    """Run the trees in turn and print each one's medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--set-policy", action="store_true")
    parser.add_argument("--sizes", default=str(N), help="array sizes, comma-separated")
    parser.add_argument("--dtypes", default="float64", help="dtypes, comma-separated")
    parser.add_argument("--cpu-time", action="store_true", help="thread CPU time")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = [(int(n), dtype) for n in args.sizes.split(",") for dtype in args.dtypes.split(",")]
    flags = ["--sizes", args.sizes, "--dtypes", args.dtypes] + (
        ["--set-policy"] if args.set_policy else []) + (["--cpu-time"] if args.cpu_time else [])
    if args.child:
        child(args.set_policy, cases, args.cpu_time)
        return
    got: dict[str, dict[str, list[float]]] = {tree: {} for tree in args.trees}
    for r in range(args.rounds):
        for tree in args.trees if r % 2 == 0 else args.trees[::-1]:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
            command = [sys.executable, __file__, "--child", tree] + flags
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            for name, us in json.loads(out.stdout.splitlines()[-1])["us"].items():
                got[tree].setdefault(name, []).extend(us)
    for n, dtype in cases:
        print(f"{n} x {dtype}: median (best) µs per call")
        for tree, samples in got.items():
            mine = {name.split("|")[1]: us for name, us in samples.items()
                    if name.split("|")[0] == f"{n} {dtype}"}
            med = {name: statistics.median(us) for name, us in mine.items()}
            low = {name: min(us) for name, us in mine.items()}
            print(" ", tree, " ".join(f"{name} {med[name]:.2f} ({low[name]:.2f})"
                                      for name in med),
                  f"| add/jnp {med['npjax.add'] / med['jnp.add']:.2f}x"
                  f" ({low['npjax.add'] / low['jnp.add']:.2f}x)"
                  f" a+b/jnp {med['a + b'] / med['jnp.add']:.2f}x"
                  f" ({low['a + b'] / low['jnp.add']:.2f}x)"
                  f" sum/jnp {med['a.sum()'] / med['jnp.sum']:.2f}x"
                  f" ({low['a.sum()'] / low['jnp.sum']:.2f}x)")


if __name__ == "__main__":
    main()
