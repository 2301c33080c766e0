"""Module-level loops under the runner (docs/autojit.md): four loops timed by the script.

    NPJAX_CACHE_DIR=off python -m npjax run --no-report --jit explicit|auto \
        benchmarks/module_loops.py
"""

import time
import numpy as np

def step(u):
    v = u.copy()
    v[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
    return v

T = {}
t = time.perf_counter()
x = np.zeros(8)
for _i in range(20000):                 # short: never compiled
    x = x * 0.5 + 1.0
T["short 20k"] = time.perf_counter() - t

t = time.perf_counter()
n = 2000000
a = np.zeros(n)
b = np.linspace(0.0, 1.0, n)
for i in range(1, n):                   # recurrence
    a[i] = a[i - 1] * 0.5 + b[i]
T["recurrence 2M"] = time.perf_counter() - t

t = time.perf_counter()
u = np.linspace(0.0, 1.0, 1000) ** 2
for _s in range(50000):                 # time steps through a function of the script
    u = step(u)
T["stencil 50k steps"] = time.perf_counter() - t

t = time.perf_counter()
c = np.zeros(n)
for i in range(1, n):                   # value-dependent branch: cannot trace
    if c[i - 1] > 0.5:
        c[i] = c[i - 1] * 0.5
    else:
        c[i] = c[i - 1] + b[i]
T["branch 2M (refused)"] = time.perf_counter() - t

print(float(a.sum()), float(u.sum()), float(c.sum()), float(x.sum()))
print("; ".join(f"{k} {v:.3f} s" for k, v in T.items()))
