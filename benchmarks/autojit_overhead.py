"""What ``npjax.autojit`` adds to a call it runs as written, per kernel of the suite.

Each round runs, in a random order (the round's number seeds it: a variant that always follows
JAX work runs slower, ``benchmarks/README.md``), NumPy, eager npjax, the hand-written
``jax.jit`` and the kernel under ``npjax.autojit`` on fresh inputs. The autojit call is timed
from outside and the kernel inside it (a wrapper of the kernel that autojit calls): the
difference is autojit's own time (looks: signature and bookkeeping). A compile never pays
here (``expected_compile_s``: 1e9 s), so every call runs as written. Reports per kernel the
median and mean of that time (µs, the first call apart), the kernel's median and the share of
calls looked at. Counts, not speeds, go in the tests (``tests/test_autojit.py``).

Usage: ``NPJAX_CACHE_DIR=off python benchmarks/autojit_overhead.py [--rounds N] [--only k1,k2]
[--out DIR]`` (writes ``autojit_overhead.json`` into ``--out``, default ``./npjax-bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.dirname(HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(HERE))

import npjax  # noqa: E402
from benchmarks import kernels as kernel_pkg  # noqa: E402
from benchmarks import suite  # noqa: E402
from npjax._compile import _autojit  # noqa: E402

OTHERS = ("numpy", "npjax_eager", "jax_hand")


def measure(mod: object, rounds: int) -> dict:
    """Autojit's own time per call of one kernel (see the module docstring)."""
    runner = suite.Runner(mod, "small")
    kernel, inner, looks = mod.kernel, [], [0]

    def timed_kernel(*args: object) -> object:
        t0 = time.perf_counter()
        try:
            return kernel(*args)
        finally:
            inner.append(time.perf_counter() - t0)

    runner.auto._autojit_fn = timed_kernel
    signature = _autojit._signature

    def counted(args: tuple, kwargs: dict) -> object:
        looks[0] += 1
        return signature(args, kwargs)

    _autojit._signature = counted
    expected = _autojit.expected_compile_s
    _autojit.expected_compile_s = lambda: 1e9  # (only calls as written are measured)
    outer = []
    try:
        for r in range(rounds):
            for variant in random.Random(r).sample((*OTHERS, "autojit"), len(OTHERS) + 1):
                if variant == "autojit":
                    args = runner.prepare("npjax_autojit")
                    t0 = time.perf_counter()
                    suite._block(runner.auto(npjax, *args))
                    outer.append(time.perf_counter() - t0)
                else:
                    runner.call(variant, runner.prepare(variant))
    finally:
        _autojit._signature = signature
        _autojit.expected_compile_s = expected
    own = [(o - i) * 1e6 for o, i in zip(outer, inner, strict=False)][1:]
    return {"name": mod.NAME, "kernel_ms": statistics.median(inner) * 1e3,
            "own_us_median": statistics.median(own), "own_us_mean": statistics.mean(own),
            "first_call_own_us": (outer[0] - inner[0]) * 1e6,
            "looked_at": looks[0] / rounds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--only", default="")
    parser.add_argument("--out", default="npjax-bench")
    options = parser.parse_args(argv)
    npjax.set_policy(fallback="raise")
    mods = kernel_pkg.load_all()
    if options.only:
        mods = [m for m in mods if m.NAME in options.only.split(",")]
    rows = []
    for mod in mods:
        try:
            row = measure(mod, options.rounds)
        except Exception as exc:  # (a kernel the hand-written version cannot run)
            print(f"{mod.NAME}: {type(exc).__name__}: {exc}"[:200])
            continue
        rows.append(row)
        print(f"{row['name']:15s} kernel {row['kernel_ms']:7.3f} ms  autojit's own "
              f"{row['own_us_median']:5.1f} us median, {row['own_us_mean']:5.1f} mean, "
              f"first call {row['first_call_own_us']:5.1f}; looked at "
              f"{row['looked_at']:.0%} of calls", flush=True)
    os.makedirs(options.out, exist_ok=True)
    with open(os.path.join(options.out, "autojit_overhead.json"), "w") as f:
        json.dump({"rounds": options.rounds, "kernels": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
