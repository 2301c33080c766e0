"""Integer scatter-add into a small target, several ways, on the default backend.

``np.add.at(counts, idx, 1)`` (the suite's histogram: 4M indices into 256 int64 bins) is one
XLA scatter, which a TPU applies about one update at a time. This times the same counts made
as a scatter (int64, int32), as compare-and-sum (``sum(idx[:, None] == arange(m))``, whole or
in chunks), and from a sort, each checked against NumPy's ``add.at``.

    python benchmarks/scatter_forms.py [--n 4000000] [--bins 256]
"""

from __future__ import annotations

import argparse
import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)


def scatter64(idx, m):
    return jnp.zeros(m, jnp.int64).at[idx].add(1)


def scatter32(idx, m):
    return jnp.zeros(m, jnp.int32).at[idx.astype(jnp.int32)].add(1).astype(jnp.int64)


def compare(idx, m):
    hit = idx.astype(jnp.int32)[:, None] == jnp.arange(m, dtype=jnp.int32)
    return jnp.sum(hit, axis=0, dtype=jnp.int32).astype(jnp.int64)


def compare_chunks(idx, m, chunk=1 << 16):
    n = idx.shape[0]
    pad = (-n) % chunk
    i = jnp.pad(idx.astype(jnp.int32), (0, pad), constant_values=-1).reshape(-1, chunk)
    hit = i[:, :, None] == jnp.arange(m, dtype=jnp.int32)
    return jnp.sum(jnp.sum(hit, axis=1, dtype=jnp.int32), axis=0).astype(jnp.int64)


def onehot_matmul(idx, m, chunk=1 << 16):
    n = idx.shape[0]
    pad = (-n) % chunk
    i = jnp.pad(idx.astype(jnp.int32), (0, pad), constant_values=-1).reshape(-1, chunk)
    hot = (i[:, :, None] == jnp.arange(m, dtype=jnp.int32)).astype(jnp.bfloat16)
    ones = jnp.ones((chunk,), jnp.bfloat16)
    per = jnp.einsum("cnm,n->cm", hot, ones, preferred_element_type=jnp.float32)
    return jnp.sum(per.astype(jnp.int32), axis=0).astype(jnp.int64)  # (chunk < 2**24: exact)


def sorted_counts(idx, m):
    s = jnp.sort(idx.astype(jnp.int32))
    edges = jnp.searchsorted(s, jnp.arange(m + 1, dtype=jnp.int32))
    return jnp.diff(edges).astype(jnp.int64)


FORMS = dict(scatter64=scatter64, scatter32=scatter32, compare=compare,
             compare_chunks=compare_chunks, onehot_matmul=onehot_matmul,
             sorted_counts=sorted_counts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4_000_000)
    ap.add_argument("--bins", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=5)
    o = ap.parse_args()
    rng = np.random.default_rng(0)
    idx = np.clip(np.floor((rng.standard_normal(o.n) + 4) * o.bins / 8), 0, o.bins - 1)
    idx = idx.astype(np.int64)
    want = np.zeros(o.bins, np.int64)
    t = time.perf_counter()
    np.add.at(want, idx, 1)
    print(f"{jax.default_backend()}: n={o.n} bins={o.bins}; numpy add.at "
          f"{(time.perf_counter() - t) * 1e3:.2f} ms")
    d = jax.device_put(idx)
    for name, form in FORMS.items():
        fn = jax.jit(functools.partial(form, m=o.bins))
        try:
            t = time.perf_counter()
            got = np.asarray(fn(d))
            first = time.perf_counter() - t
            times = []
            for _ in range(o.repeats):
                t = time.perf_counter()
                fn(d).block_until_ready()
                times.append(time.perf_counter() - t)
            print(f"{name:15s} {np.median(times) * 1e3:9.3f} ms  first {first:.2f} s  "
                  f"exact {bool(np.array_equal(got, want))}", flush=True)
        except Exception as exc:  # (reported, the others go on)
            print(f"{name:15s} FAILED {type(exc).__name__}: {str(exc)[:200]}", flush=True)


if __name__ == "__main__":
    main()
