"""Issue 33 doors: per-call time (us, best of 7 repeats) of functions moved onto ``npfunc``, on
small host operands (the host route) and on device operands (made under
``placement="device"``, called under the default policy). Prints one JSON object. Run it
alternately on two trees: ``PYTHONPATH=/work/main python benchmarks/issue33_doors.py`` and
with ``PYTHONPATH=.``."""

from __future__ import annotations

import json
import timeit

import numpy as np

import npjax as xp

a = xp.asarray(np.linspace(-2, 2, 16))
c = xp.asarray(np.linspace(-2, 2, 16) + 1j)
m = xp.asarray(np.arange(9.).reshape(3, 3))
with xp.policy(placement="device"):
    da = xp.asarray(np.linspace(-2, 2, 16))
    dm = xp.asarray(np.arange(9.).reshape(3, 3))
CASES = {
    "hamming(16)": lambda: xp.hamming(16),
    "isposinf(a)": lambda: xp.isposinf(a),
    "real(c)": lambda: xp.real(c),
    "angle(c)": lambda: xp.angle(c),
    "round(a, 2)": lambda: xp.round(a, 2),
    "diff(a)": lambda: xp.diff(a),
    "dot(m, m)": lambda: xp.dot(m, m),
    "outer(a, a)": lambda: xp.outer(a, a),
    "polyval(a, 2.0)": lambda: xp.polyval(a, 2.0),
    "isclose(a, a)": lambda: xp.isclose(a, a),
    "tril_indices(4)": lambda: xp.tril_indices(4),
    "dev diff(da)": lambda: xp.diff(da),
    "dev dot(dm, dm)": lambda: xp.dot(dm, dm),
    "dev isposinf(da)": lambda: xp.isposinf(da),
    "dev real(da)": lambda: xp.real(da),
}

if __name__ == "__main__":
    times = {}
    for name, f in CASES.items():
        f()
        f()
        n = 300 if name.startswith("dev") else 2000
        times[name] = min(timeit.repeat(f, number=n, repeat=7)) / n * 1e6
    print(json.dumps(times))
