"""What ``npjax.jit`` costs per call for large host inputs (issue 35, item 6).

Kernels: a matrix-vector product in a short loop (``y = A @ x`` five times, ``A`` 4000x4000
float64: 128 MB) and one that writes into an argument in place (``y[:] = A @ x; x += y``).
Columns, in one run (milliseconds per call, best of ``--reps``, and the ratio to NumPy):
NumPy; ``npjax.jit`` given host arrays (npjax arrays in NumPy memory, the CPU default);
``npjax.jit`` given device arrays; a hand-written ``jax.jit`` given device arrays. Also the
bytes ``npjax.stats()`` counts as sent to the device per call, and whether the host array's
memory is what the program read (``aliased``: no copy).

    PYTHONPATH=TREE python benchmarks/jit_inputs.py [--n 4000] [--reps 5]
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as onp

import npjax as np


def matvec(A, x):
    y = A @ x
    for _ in range(4):
        y = A @ (x + 1e-9 * y)
    return y


def inplace(A, x, y):
    y[:] = A @ x
    x += y * 1e-9
    return y.sum()


def hand_matvec(A, x):
    y = A @ x
    for _ in range(4):
        y = A @ (x + 1e-9 * y)
    return y


def hand_inplace(A, x):
    y = A @ x
    return x + y * 1e-9, y, y.sum()


def _best(fn, reps):
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def _sent():
    return np.stats()["transfers"]["host_to_device"]["bytes"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    rng = onp.random.default_rng(0)
    A0, x0 = rng.random((n, n)), rng.random(n)
    An, xn, yn = A0.copy(), x0.copy(), onp.zeros(n)
    Ah, xh, yh = np.array(A0), np.array(x0), np.zeros(n)  # host arrays (CPU backend)
    with np.policy(placement="device"):
        Ad, xd, yd = np.array(A0), np.array(x0), np.zeros(n)
    Aj, xj = jnp.asarray(A0), jnp.asarray(x0)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; A {n}x{n} float64 "
          f"({A0.nbytes / 1e6:.0f} MB); host A storage at {Ah._host() is not None and 1}"
          f" (address mod 64: {Ah._host().ctypes.data % 64 if Ah._host() is not None else '-'})")
    jm, ji = np.jit(matvec), np.jit(inplace)
    hm, hi = jax.jit(hand_matvec), jax.jit(hand_inplace)

    def sync(r):
        return float(r[0]) if r.ndim else float(r)

    rows = [
        ("matvec", lambda: matvec(An, xn),
         lambda: sync(jm(Ah, xh)), lambda: sync(jm(Ad, xd)),
         lambda: hm(Aj, xj).block_until_ready(), lambda: jm(Ah, xh)),
        ("inplace", lambda: inplace(An, xn, yn),
         lambda: float(ji(Ah, xh, yh)), lambda: float(ji(Ad, xd, yd)),
         lambda: hi(Aj, xj)[2].block_until_ready(), lambda: ji(Ah, xh, yh)),
    ]
    print(f"{'kernel':8} {'numpy ms':>9} {'host ms':>8} {'(x np)':>7} {'dev ms':>8} "
          f"{'(x np)':>7} {'hand ms':>8} {'(x np)':>7} {'host MB sent/call':>18}")
    for name, f_np, f_host, f_dev, f_hand, once in rows:
        t_np = _best(f_np, args.reps)
        t_host = _best(f_host, args.reps)
        t_dev = _best(f_dev, args.reps)
        t_hand = _best(f_hand, args.reps)
        before = _sent()
        once()
        sent = (_sent() - before) / 1e6
        print(f"{name:8} {t_np:9.1f} {t_host:8.1f} {t_host / t_np:6.2f}x {t_dev:8.1f} "
              f"{t_dev / t_np:6.2f}x {t_hand:8.1f} {t_hand / t_np:6.2f}x {sent:18.1f}")


if __name__ == "__main__":
    main()
