"""Programs compiled and time per call when the number of selected elements changes.

A loop calls each function on inputs of one fixed shape whose count of True elements (or of
distinct values) is different every time: ``a[mask]``, ``nonzero``, ``flatnonzero``,
``argwhere``, ``compress``, ``extract``, ``unique`` (plain, and with every output), and the
set operations. Every array is on the device (``placement="device"``). For each function:

- programs: XLA compiles during the first pass over the counts (JAX's caches cleared, then
  one warm-up call with every element selected, which compiles what depends on the shape
  only);
- first pass: time per call, compiles included (what a script with changing counts pays);
- later passes: time per call over the same inputs again, every program compiled (the best
  of three passes).

The persistent compilation cache is off (``NPJAX_CACHE_DIR=off``), so every compile is real.
Issue 16 target: n different counts compile O(log n) programs, not n.

Usage: ``python benchmarks/mask_reads.py [--quick] [--before PATH]``. ``--quick``: 50 counts
instead of 200. ``--before PATH``: also run this script against the npjax checkout at PATH (in
a child process, ``PYTHONPATH=PATH``) and print both. Results go to
``benchmarks/results/mask_reads.json``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ["NPJAX_CACHE_DIR"] = "off"  # before npjax is imported: compiles are real

import jax
import numpy as np

import npjax

SHAPE = (100, 100)
RESULTS = Path(__file__).resolve().parent / "results"


def _ready(result: object) -> None:
    for r in result if isinstance(result, tuple) else (result,):
        r.to_jax().block_until_ready()


def cases(a: npjax.ndarray, half: npjax.ndarray, few: npjax.ndarray) -> dict[str, Callable]:
    """The functions timed, each of (mask, values): ``values`` has count + 1 distinct values
    (the masked elements of ``a``, and 0). ``half``: half of ``a``'s values, ``few``: 100 of
    them (so that the size of every set operation's result changes with the count)."""
    flat = a.ravel()
    return {
        "a[mask]": lambda m, v: a[m],
        "nonzero": lambda m, v: npjax.nonzero(m),
        "flatnonzero": lambda m, v: npjax.flatnonzero(m),
        "argwhere": lambda m, v: npjax.argwhere(m),
        "compress": lambda m, v: npjax.compress(m.ravel(), flat),
        "extract": lambda m, v: npjax.extract(m, a),
        "unique": lambda m, v: npjax.unique(v),
        "unique (all outputs)": lambda m, v: npjax.unique(v, return_index=True,
                                                          return_inverse=True,
                                                          return_counts=True),
        "intersect1d": lambda m, v: npjax.intersect1d(v, half),
        "setdiff1d": lambda m, v: npjax.setdiff1d(v, half),
        "union1d": lambda m, v: npjax.union1d(v, few),
        "setxor1d": lambda m, v: npjax.setxor1d(v, few),
    }


def measure(n_counts: int) -> dict:
    """Programs and times per function (see the module docstring)."""
    rng = np.random.default_rng(0)
    size = int(np.prod(SHAPE))
    order = rng.permutation(size)
    host = rng.standard_normal(SHAPE)
    counts = sorted({int(c) for c in np.linspace(1, size - 1, n_counts)})
    with npjax.policy(placement="device"):
        a = npjax.asarray(host)
        half = npjax.asarray(host.ravel()[: size // 2])
        few = npjax.asarray(host.ravel()[:100])
        inputs = []
        for count in [size] + counts:  # the first: the warm-up, everything selected
            mask = np.zeros(size, bool)
            mask[order[:count]] = True
            mask = mask.reshape(SHAPE)
            inputs.append((npjax.asarray(mask), npjax.asarray(np.where(mask, host, 0.0))))
        results = {}
        for name, fn in cases(a, half, few).items():
            jax.clear_caches()  # each function's programs counted alone
            _ready(fn(*inputs[0]))
            npjax.reset_stats()
            start = time.perf_counter()
            for m, v in inputs[1:]:
                _ready(fn(m, v))
            first = time.perf_counter() - start
            programs = npjax.stats()["compiles"]["count"]
            second = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                for m, v in inputs[1:]:
                    _ready(fn(m, v))
                second = min(second, time.perf_counter() - start)
            results[name] = {"programs": programs,
                             "first_ms": first / len(counts) * 1e3,
                             "second_ms": second / len(counts) * 1e3}
            r = results[name]
            print(f"  {name:22s} {programs:5d} programs  first pass {r['first_ms']:8.2f} ms/call"
                  f"  later passes {r['second_ms']:6.3f} ms/call", flush=True)
    return {"counts": len(counts), "shape": list(SHAPE), "results": results}


def _table(runs: dict[str, dict]) -> str:
    labels = list(runs)
    head = "| function | " + " | ".join(
        f"{k} programs | {k} 1st pass ms/call | {k} later ms/call" for k in labels) + " |"
    rule = "|---|" + "---:|" * (3 * len(labels))
    rows = [head, rule]
    for name in runs[labels[-1]]["results"]:
        cells = []
        for k in labels:
            r = runs[k]["results"].get(name)
            cells += ["-"] * 3 if r is None else [str(r["programs"]), f"{r['first_ms']:.2f}",
                                                  f"{r['second_ms']:.3f}"]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    n_counts = 50 if quick else 200
    if "--child" in argv:  # the --before run: results as JSON on stdout's last line
        print(json.dumps(measure(n_counts)))
        return 0
    device = jax.devices()[0]
    print(f"npjax mask-read benchmark: {platform.node()}, {os.cpu_count()} CPUs; JAX "
          f"{jax.__version__} on {device.platform}; shape {SHAPE}, {n_counts} counts")
    runs = {}
    if "--before" in argv:
        tree = argv[argv.index("--before") + 1]
        print(f"before ({tree}):", flush=True)
        env = dict(os.environ, PYTHONPATH=tree)
        child = subprocess.run([sys.executable, __file__, "--child"] + (["--quick"] * quick),
                               env=env, check=True, capture_output=True, text=True)
        sys.stdout.write("".join(child.stdout.splitlines(True)[:-1]))
        runs["before"] = json.loads(child.stdout.splitlines()[-1])
    print("after (this checkout):" if runs else "this checkout:", flush=True)
    runs["after" if runs else "now"] = measure(n_counts)
    print()
    print(_table(runs))
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / "mask_reads.json", "w") as f:
        json.dump({"machine": platform.node(), "cpus": os.cpu_count(),
                   "platform": device.platform, "jax": jax.__version__, "runs": runs}, f,
                  indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
