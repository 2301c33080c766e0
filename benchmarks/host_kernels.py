"""The small kernels on the host route: npjax under its default policy against NumPy itself.

Under the default policy on a CPU machine (placement ``auto``) NumPy computes every small
kernel of ``benchmarks/kernels`` on the host and npjax adds only its per-call Python and C
work; this script measures how much that costs (issue 35: the host route at NumPy's speed).

For each kernel, NumPy and npjax run alternately in the same process (one call of each per
round, which goes first alternating with the round), on fresh copies of the same inputs
made before the timer; the medians of the rounds are compared. Times are the calling
thread's CPU time by default (both run there, single-threaded with
``OPENBLAS_NUM_THREADS=1``, so waiting for a core of a shared machine does not count);
``--wall`` uses wall time. Prints per kernel NumPy ms, npjax ms, and NumPy's speed over
npjax's (``speed``: above 1 means npjax is faster), then their geometric mean.

``--profile`` lists instead, per kernel, where npjax's Python code spends time: five kernel
calls under ``cProfile`` (after a warm-up), the npjax functions with the largest own time
(``tottime``) and their calls per kernel call. What the C module runs (``_hostpath.c``: the
operators, indexing and the function calls it takes) has no Python frame and does not show
there; the table's ``npjax - NumPy`` column is all of npjax's cost. cProfile does not see
calls of NumPy's ufunc objects nor of operator slots either: a Python function's own time
includes the NumPy work it runs that way, so a function listed here is a place where the
call left the C paths (a miss to look at), its own time an upper bound of its cost.

Usage: ``OPENBLAS_NUM_THREADS=1 python benchmarks/host_kernels.py [--only k1,k2]
[--rounds N] [--wall] [--out FILE.md] [--profile [--top N]]``.
"""

from __future__ import annotations

import argparse
import cProfile
import math
import os
import pstats
import statistics
import sys
import time
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import npjax  # noqa: E402
from benchmarks import kernels as kernel_pkg  # noqa: E402

NPJAX_DIR = os.path.dirname(os.path.abspath(npjax.__file__))


def _fresh(host_args: tuple, convert: Any) -> list:
    return [convert(a.copy()) if isinstance(a, numpy.ndarray) else a for a in host_args]


def _timer(wall: bool) -> Any:
    return time.perf_counter if wall else time.thread_time


def measure(mod: Any, rounds: int, min_s: float, wall: bool) -> dict:
    """Medians of alternate NumPy and npjax calls of one kernel (at least ``rounds``
    rounds, more until each side spent ``min_s`` seconds, at most 20 times ``rounds``)."""
    host_args = mod.setup(numpy.random.default_rng(0), **mod.SIZES["small"])
    clock = _timer(wall)
    sides = {"numpy": (numpy, lambda a: a), "npjax": (npjax, npjax.asarray)}
    for module, convert in sides.values():  # warm-up: first-call costs out of the timing
        for _ in range(2):
            mod.kernel(module, *_fresh(host_args, convert))
    times: dict[str, list[float]] = {"numpy": [], "npjax": []}
    r = 0
    while r < rounds or (r < 20 * rounds and min(sum(t) for t in times.values()) < min_s):
        order = ("numpy", "npjax") if r % 2 == 0 else ("npjax", "numpy")
        for side in order:
            module, convert = sides[side]
            args = _fresh(host_args, convert)
            t0 = clock()
            mod.kernel(module, *args)
            times[side].append(clock() - t0)
        r += 1
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"name": mod.NAME, "numpy_ms": med["numpy"] * 1e3, "npjax_ms": med["npjax"] * 1e3,
            "speed": med["numpy"] / med["npjax"], "rounds": r}


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def table(rows: list[dict], wall: bool) -> str:
    g = geomean([r["speed"] for r in rows])
    low = [r["name"] for r in rows if r["speed"] < 0.5]
    lines = [f"Host route, default policy; npjax from {os.path.dirname(NPJAX_DIR)}; "
             f"{'wall' if wall else 'thread CPU'} time; NumPy {numpy.__version__}; "
             "OPENBLAS_NUM_THREADS="
             f"{os.environ.get('OPENBLAS_NUM_THREADS')}.", "",
             "| kernel | NumPy ms | npjax ms | npjax - NumPy ms | NumPy's time / npjax's "
             "| rounds |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['name']} | {r['numpy_ms']:.3f} | {r['npjax_ms']:.3f} | "
              f"{r['npjax_ms'] - r['numpy_ms']:+.3f} | {r['speed']:.3f} | {r['rounds']} |"
              for r in rows]
    lines += ["", f"Geometric mean of NumPy's time / npjax's: {g:.3f}; under 0.5: "
              f"{', '.join(low) or 'none'}."]
    return "\n".join(lines)


def _where(filename: str) -> str:
    if filename.startswith(NPJAX_DIR):
        return "npjax/" + os.path.relpath(filename, NPJAX_DIR)
    return filename


def profile(mod: Any, top: int) -> str:
    """The npjax functions with the largest own time in one kernel call (after two warm-up
    calls); NumPy's and Python's functions are left out, C members of npjax's module kept."""
    host_args = mod.setup(numpy.random.default_rng(0), **mod.SIZES["small"])
    for _ in range(2):
        mod.kernel(npjax, *_fresh(host_args, npjax.asarray))
    calls = 5
    prof = cProfile.Profile()
    argsets = [_fresh(host_args, npjax.asarray) for _ in range(calls)]
    prof.enable()
    for args in argsets:
        mod.kernel(npjax, *args)
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    rows = []
    total = 0.0
    for (filename, line, name), (_cc, nc, tt, ct, _callers) in stats.items():
        total += tt
        ours = filename.startswith(NPJAX_DIR) or "_hostpath" in name
        if ours:
            rows.append((tt, nc, ct, f"{_where(filename)}:{line} {name}"))
    rows.sort(reverse=True)
    ours_total = sum(r[0] for r in rows)
    out = [f"### {mod.NAME}: npjax's own time {ours_total / calls * 1e3:.3f} ms of "
           f"{total / calls * 1e3:.3f} ms profiled per call", "",
           "| own ms/call | calls/call | cum ms/call | function |", "|---:|---:|---:|---|"]
    for tt, nc, ct, where in rows[:top]:
        out.append(f"| {tt / calls * 1e3:.3f} | {nc / calls:g} | {ct / calls * 1e3:.3f} | "
                   f"`{where}` |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="comma-separated kernel names")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--min-s", type=float, default=0.3,
                   help="more rounds until each side spent this long (default 0.3 s)")
    p.add_argument("--wall", action="store_true", help="wall time, not thread CPU time")
    p.add_argument("--out", default="", help="also write the table (markdown) here")
    p.add_argument("--profile", action="store_true", help="where npjax's own time goes")
    p.add_argument("--top", type=int, default=12)
    a = p.parse_args(argv)
    only = {s for s in a.only.split(",") if s}
    mods = [m for m in kernel_pkg.load_all() if not only or m.NAME in only]
    if a.profile:
        text = "\n\n".join(profile(m, a.top) for m in mods)
        print(text)
    else:
        rows = []
        for m in mods:
            rows.append(measure(m, a.rounds, a.min_s, a.wall))
            r = rows[-1]
            print(f"{r['name']:16s} numpy {r['numpy_ms']:9.3f} ms  npjax {r['npjax_ms']:9.3f} "
                  f"ms  speed {r['speed']:.3f}", flush=True)
        text = table(rows, a.wall)
        print("\n" + text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
