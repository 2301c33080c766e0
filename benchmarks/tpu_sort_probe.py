"""Which sorts abort the process on the device (issue 34: ``test_lexsort`` aborted pytest on
the TPU): ``sort`` and ``argsort`` of each dtype, ``lexsort`` of one and three keys (a list
and a stacked array) of several shapes (empty ones too), every array on the device. The
cases run in a child process that prints each before it starts; where the child dies, the
parent records that case and starts a new child at the next one (on the TPU: a lexsort
along an axis of length 1 with 8-bit keys; ``_lowerings.install_sorts`` mends it).
Run: ``python benchmarks/tpu_sort_probe.py [--child FIRST]``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

DTYPES = ("bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", "float16",
          "float32", "float64", "complex64", "complex128")
SHAPES = ((5,), (3, 5), (0,), (2, 0), (1,))
CASES = [(d, f, 1, (3, 5)) for d in DTYPES for f in ("sort", "argsort")] + [
    (d, f, n, s) for d in DTYPES for f, n in (("lexsort", 1), ("lexsort", 3), ("stacked", 3))
    for s in SHAPES]


def run_case(dtype: str, fn: str, nkeys: int, shape: tuple) -> str:
    import npjax
    rng = np.random.default_rng(0)
    keys = [(rng.standard_normal(shape) * 3).astype(dtype) for _ in range(nkeys)]
    with npjax.policy(placement="device"):
        if fn == "lexsort":
            got = npjax.lexsort([npjax.asarray(k) for k in keys], axis=-1)
            want = np.lexsort(keys, axis=-1)
        elif fn == "stacked":
            got = npjax.lexsort(npjax.asarray(np.stack(keys)), axis=0)
            want = np.lexsort(np.stack(keys), axis=0)
        else:
            got = getattr(npjax, fn)(npjax.asarray(keys[0]), axis=-1)
            want = getattr(np, fn)(keys[0], axis=-1)
        return "same" if np.array_equal(np.asarray(got), want, equal_nan=fn == "sort") \
            else "DIFFERENT"


def child(first: int) -> None:
    for i in range(first, len(CASES)):
        print(f"start {i} {CASES[i]}", flush=True)
        try:
            print(f"done {i} {run_case(*CASES[i])}", flush=True)
        except Exception as exc:
            print(f"done {i} raised {type(exc).__name__}: {str(exc)[:200]}", flush=True)


def main() -> None:
    first = 0
    while first < len(CASES):
        proc = subprocess.run([sys.executable, __file__, "--child", str(first)],
                              capture_output=True, text=True, timeout=300)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("start", "done"))]
        for ln in lines:
            if ln.startswith("done"):
                print(ln, CASES[int(ln.split()[1])], flush=True)
        if proc.returncode == 0:
            return
        last = int(lines[-1].split()[1]) if lines else first
        print(f"ABORT (exit {proc.returncode}) at {last} {CASES[last]}:",
              proc.stderr.strip().splitlines()[-3:] if proc.stderr else "", flush=True)
        first = last + 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]))
    else:
        main()
