"""What npjax.jit's program costs against the hand-written port on one suite kernel: its time
under NumPy's default error state (results checked for non-finite values, warnings as NumPy
gives them) and under ``errstate(all="ignore")`` (no check made), the hand-written
``jax.jit`` port's, and the kernels (fusions) each compiled program launches; float32 inputs,
large preset (``SIZE=small`` for the small one), on the default backend.

    python benchmarks/check_cost.py cfd_1d [KERNEL ...]
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax

import npjax
from benchmarks.suite import Runner, _block


def timed(fn, make, repeats: int = 7) -> tuple[float, float]:
    t = time.perf_counter()
    _block(fn(*make()))
    first = time.perf_counter() - t
    times = []
    for _ in range(repeats):
        args = make()
        t = time.perf_counter()
        _block(fn(*args))
        times.append(time.perf_counter() - t)
    return statistics.median(times), first


def fusions(compiled_text: str) -> int:
    """Fusion calls in an optimized HLO module (the loop body's count once per module)."""
    return len(re.findall(r"= \S+ fusion\(", compiled_text))


def npjax_program(runner: Runner) -> str:
    """The optimized HLO of the program npjax.jit's last call ran."""
    entry = runner.jitted._last[1]
    compiled, seen = entry.compiled, []

    def recording(*a):
        seen.append(a)
        return compiled(*a)

    entry.compiled = recording
    try:
        _block(runner.jitted(npjax, *runner.prepare("npjax_jit")))
    finally:
        entry.compiled = compiled
    return compiled.lower(*seen[0]).compile().as_text()


def one(name: str) -> None:
    mod = __import__(f"benchmarks.kernels.{name}", fromlist=["kernel"])
    runner = Runner(mod, os.environ.get("SIZE", "large"), float32=True)
    hand = timed(mod.reference, lambda: runner.prepare("jax_hand"))
    jitted = lambda *a: runner.jitted(npjax, *a)  # noqa: E731
    checked = timed(jitted, lambda: runner.prepare("npjax_jit"))
    hand_hlo = mod.reference.lower(*runner.prepare("jax_hand")).compile().as_text()
    ours = fusions(npjax_program(runner))
    with npjax.errstate(all="ignore"):
        unchecked = timed(jitted, lambda: runner.prepare("npjax_jit"))
        quiet = fusions(npjax_program(runner))
    print(f"{name} ({jax.default_backend()}): hand {hand[0] * 1e3:.3f} ms, npjax.jit "
          f"checked {checked[0] * 1e3:.3f} ms ({checked[0] / hand[0]:.2f}x), "
          f"errstate ignore {unchecked[0] * 1e3:.3f} ms ({unchecked[0] / hand[0]:.2f}x); "
          f"fusions {fusions(hand_hlo)} / {ours} / {quiet}; "
          f"first calls {hand[1]:.2f} / {checked[1]:.2f} / {unchecked[1]:.2f} s", flush=True)


if __name__ == "__main__":
    for kernel in sys.argv[1:]:
        one(kernel)
