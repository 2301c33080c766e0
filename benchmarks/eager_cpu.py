"""The small preset's eager ratios in process CPU time: NumPy against eager npjax, per kernel.

On a loaded shared machine wall-clock medians of calls of a few hundred microseconds move by
10-30% between runs; the CPU time a process spends (``time.process_time``) moves much less.
Each kernel is run as ``suite.Runner`` runs it (fresh copies of the same inputs, made before
the timer; ``npjax.policy(mode="eager")`` around the npjax call), NumPy and npjax alternating
call by call; a round times a batch of calls of each (enough for about ``--batch-ms`` of
NumPy's time) and the median over ``--rounds`` rounds of the per-call time is reported.

BLAS worker threads that spin after a matrix product count in process time too (``softmax_mlp``
moved between 0.24x and 1.05x): ``OPENBLAS_NUM_THREADS=1`` takes that out of both sides.

Usage: ``python benchmarks/eager_cpu.py [--only k1,k2] [--rounds 21] [--json FILE]``. To
compare two versions, run it alternately with each on ``PYTHONPATH`` (``--merge A.json
B.json ...`` prints the medians of several runs' per-kernel ratios).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.dirname(HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(HERE))

from benchmarks import kernels as kernel_pkg  # noqa: E402
from benchmarks import suite  # noqa: E402


def measure(mod: object, rounds: int, batch_ms: float) -> dict:
    runner = suite.Runner(mod, "small")
    variants = ("numpy", "npjax_eager")
    for v in variants:  # first calls
        runner.call(v, runner.prepare(v))
    t0 = time.process_time()
    runner.call("numpy", runner.prepare("numpy"))
    one = max(time.process_time() - t0, 1e-6)
    calls = max(1, min(200, int(batch_ms * 1e-3 / one)))
    samples: dict[str, list[float]] = {v: [] for v in variants}
    for _ in range(rounds):
        spent = dict.fromkeys(variants, 0.0)
        for _ in range(calls):
            for v in variants:
                args = runner.prepare(v)
                t0 = time.process_time()
                runner.call(v, args)
                spent[v] += time.process_time() - t0
        for v in variants:
            samples[v].append(spent[v] / calls)
    med = {v: statistics.median(s) for v, s in samples.items()}
    return {"numpy_us": med["numpy"] * 1e6, "npjax_us": med["npjax_eager"] * 1e6,
            "ratio": med["numpy"] / med["npjax_eager"], "calls": calls}


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def show(per: dict) -> None:
    for name, r in per.items():
        print(f"{name:16s} numpy {r['numpy_us']:9.1f} us  npjax {r['npjax_us']:9.1f} us  "
              f"ratio {r['ratio']:.2f}")
    ratios = [r["ratio"] for r in per.values()]
    print(f"geomean {geomean(ratios):.3f}  below 0.7: "
          f"{[k for k, r in per.items() if r['ratio'] < 0.7]}")


def merge(paths: list[str]) -> None:
    runs = [json.load(open(p)) for p in paths]
    per = {}
    for name in runs[0]:
        per[name] = {key: statistics.median(run[name][key] for run in runs if name in run)
                     for key in ("numpy_us", "npjax_us", "ratio")}
    show(per)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--batch-ms", type=float, default=2.0)
    parser.add_argument("--json", default="")
    parser.add_argument("--merge", nargs="*")
    args = parser.parse_args(argv)
    if args.merge:
        merge(args.merge)
        return 0
    mods = kernel_pkg.load_all()
    only = [s for s in args.only.split(",") if s]
    per = {}
    for mod in mods:
        if only and mod.NAME not in only:
            continue
        per[mod.NAME] = measure(mod, args.rounds, args.batch_ms)
        r = per[mod.NAME]
        print(f"{mod.NAME:16s} ratio {r['ratio']:.2f}", file=sys.stderr, flush=True)
    show(per)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(per, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
