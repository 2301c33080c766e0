"""Copies per call of ``npjax.jit`` given host memory (issue 35, item 6), against NumPy and
against the same function given device arrays. Kernels: elementwise ``sqrt(x) * 2 + 1`` and a
matrix-vector product ``A @ v``, each of ``--mb`` megabytes of float64. Inputs: a host array
(the CPU default) kept across calls; a fresh host array each call (as a script makes them);
a host array some NumPy view shares; a NumPy array; a device array. Columns: best time of
``--reps`` calls (ms) and the megabytes ``npjax.stats()`` counts as sent to the device per
call. Compare ``NPJAX_ALIGNED_MEMORY=0`` (NumPy's allocator) with the default.

    PYTHONPATH=TREE OPENBLAS_NUM_THREADS=1 python benchmarks/host_copies.py [--mb 16 240]
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as onp

import npjax as np


def elem(x):
    return np.sqrt(x) * 2 + 1


def matvec(A, v):
    return A @ v


def _sent() -> int:
    return np.stats()["transfers"]["host_to_device"]["bytes"]


def _done(r):
    if r._host() is None:
        jax.block_until_ready(r._read())


def _time(make, call, reps):
    """(best ms, MB sent per call) of ``call(*make())``, the inputs made outside the timer."""
    call(*make())
    best, sent = float("inf"), 0
    for _ in range(reps):
        args = make()
        s0 = _sent()
        t0 = time.perf_counter()
        call(*args)
        best = min(best, time.perf_counter() - t0)
        sent += _sent() - s0
    return best * 1e3, sent / reps / 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, nargs="+", default=[16, 240])
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    rng = onp.random.default_rng(0)
    je, jm = np.jit(elem), np.jit(matvec)
    print(f"{'MB':>4} {'kernel':7} {'input':18} {'ms':>8} {'x NumPy':>8} {'MB sent/call':>13}")
    for mb in args.mb:
        n = mb * 1_000_000 // 8
        m = int(n ** 0.5)
        x0, A0, v0 = rng.random(n), rng.random((m, m)), rng.random(m)
        for name, fn, ins in (("elem", je, (x0,)), ("matvec", jm, (A0, v0))):
            t_np, _ = _time(lambda ins=ins: ins, lambda *a, name=name: (
                onp.sqrt(a[0]) * 2 + 1 if name == "elem" else a[0] @ a[1]), args.reps)
            kept = [np.array(a) for a in ins]
            shared = [np.array(a) for a in ins]
            views = [onp.asarray(a) for a in shared]  # noqa: F841 (alive: NumPy views)
            with np.policy(placement="device"):
                dev = [np.array(a) for a in ins]
            cases = (("host array, kept", lambda kept=kept: kept),
                     ("host array, fresh", lambda ins=ins: [np.asarray(a) for a in ins]),
                     ("host, NumPy view", lambda shared=shared: shared),
                     ("NumPy array", lambda ins=ins: ins),
                     ("device array", lambda dev=dev: dev))
            print(f"{mb:4d} {name:7} {'NumPy':18} {t_np:8.2f} {1.0:8.2f} {0.0:13.1f}")
            for label, make in cases:
                t, sent = _time(make, lambda *a, fn=fn: _done(fn(*a)), args.reps)
                print(f"{mb:4d} {name:7} {label:18} {t:8.2f} {t / t_np:8.2f} {sent:13.1f}",
                      flush=True)


if __name__ == "__main__":
    main()
