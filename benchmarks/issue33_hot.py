"""Issue 33 doors: per-call time (us, best of ``--repeat`` repeats) of ``where``, ``clip`` and
``take`` (and of ``copyto``, ``put``, ``putmask``, ``isin``) on host arrays of 10 and 10000
float64 (the host route) and on device arrays (made
under ``placement="device"``, called under the default policy), and of the data-dependent
shapes (``bincount``, the set functions, ``compress``, histograms) on host arrays of 10.
Prints one JSON object. Run it alternately on two trees, e.g.
``PYTHONPATH=/work/main python benchmarks/issue33_hot.py`` then
``PYTHONPATH=. python benchmarks/issue33_hot.py``."""

from __future__ import annotations

import argparse
import json
import timeit

import numpy as np

import npjax as xp


def cases() -> dict:
    """name -> a call without arguments."""
    found = {}
    for n in (10, 10000):
        base = np.linspace(-2, 2, n)
        a, b = xp.asarray(base), xp.asarray(base[::-1].copy())
        cond = xp.asarray(base > 0)
        idx = xp.asarray(np.arange(0, n, 3))
        found.update({
            f"where(c, a, b) n={n}": lambda c=cond, a=a, b=b: xp.where(c, a, b),
            f"where(c, a, 0.0) n={n}": lambda c=cond, a=a: xp.where(c, a, 0.0),
            f"where(c) n={n}": lambda c=cond: xp.where(c),
            f"clip(a, -1, 1) n={n}": lambda a=a: xp.clip(a, -1, 1),
            f"clip(a, None, 1) n={n}": lambda a=a: xp.clip(a, None, 1),
            f"take(a, i) n={n}": lambda a=a, i=idx: xp.take(a, i),
            f"a.take(i) n={n}": lambda a=a, i=idx: a.take(i),
        })
        # the in-place writers and isin (a target of their own: the writes change it)
        w = xp.asarray(base.copy())
        vals = xp.asarray(np.ones(idx.shape[0]))
        ints = xp.asarray(np.arange(n) % 7)
        wanted = xp.asarray(np.array([1, 3, 5]))
        found.update({
            f"copyto(w, b) n={n}": lambda w=w, b=b: xp.copyto(w, b),
            f"put(w, i, v) n={n}": lambda w=w, i=idx, v=vals: xp.put(w, i, v),
            f"putmask(w, c, b) n={n}": lambda w=w, c=cond, b=b: xp.putmask(w, c, b),
            f"isin(k, t) n={n}": lambda k=ints, t=wanted: xp.isin(k, t),
        })
    small = xp.asarray(np.array([3., 1, 2, 3, 0, 1, 2, 2, 1, 0]))
    ints = xp.asarray(np.array([3, 1, 2, 3, 0, 1, 2, 2, 1, 0]))
    mask = xp.asarray(np.arange(10) % 3 == 0)
    found.update({  # the data-dependent shapes, host arrays of 10
        "bincount(i)": lambda: xp.bincount(ints),
        "unique_values(a)": lambda: xp.unique_values(small),
        "unique_counts(a)": lambda: xp.unique_counts(small),
        "intersect1d(a, i)": lambda: xp.intersect1d(small, ints),
        "setdiff1d(a, i)": lambda: xp.setdiff1d(small, ints),
        "compress(m, a)": lambda: xp.compress(mask, small),
        "histogram(a)": lambda: xp.histogram(small),
        "histogram2d(a, a)": lambda: xp.histogram2d(small, small, bins=3),
    })
    with xp.policy(placement="device"):
        base = np.linspace(-2, 2, 10)
        da, dc = xp.asarray(base), xp.asarray(base > 0)
        di = xp.asarray(np.arange(0, 10, 3))
    found.update({
        "dev where(c, a, 0.0)": lambda: xp.where(dc, da, 0.0),
        "dev clip(a, -1, 1)": lambda: xp.clip(da, -1, 1),
        "dev take(a, i)": lambda: xp.take(da, di),
    })
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="", help="comma-separated parts of case names")
    args = parser.parse_args()
    result = {}
    for name, fn in cases().items():
        if args.only and not any(part in name for part in args.only.split(",")):
            continue
        fn()
        number = args.number // 10 if name.startswith("dev") else args.number
        best = min(timeit.repeat(fn, number=number, repeat=args.repeat))
        result[name] = round(best / number * 1e6, 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
