"""Issue 33 doors: run each expression of a file in four modes (host, device, lazy, npjax.jit)
and print one line per run (result kind, host or device, dtype, shape, values, exception,
warnings), so the outputs of two trees can be compared with ``diff``:

    PYTHONPATH=/work/main python benchmarks/issue33_probe.py FILE > main.txt
    PYTHONPATH=. python benchmarks/issue33_probe.py FILE > branch.txt
    diff main.txt branch.txt

The expression files are ``benchmarks/results/issue33_probes/*.txt`` (``xp`` is npjax,
``D(x)`` makes a device array).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

import npjax

MODES = {"host": {}, "device": dict(placement="device", mode="eager"),
         "lazy": dict(placement="device", mode="lazy")}


def describe(r: Any) -> str:
    """One line for a result: kind, host (h) or device (d), dtype, shape, first values."""
    if isinstance(r, tuple | list):
        return type(r).__name__ + "[" + ", ".join(describe(x) for x in r) + "]"
    if isinstance(r, npjax.ndarray):
        a = np.asarray(r)
        kind = ("S" if r._scalar else "") + ("h" if r._host() is not None else "d")
        values = np.array2string(a.ravel()[:6], precision=6)
        return f"nd{kind}({a.dtype},{a.shape},{values})"
    if isinstance(r, np.generic):
        return f"np{type(r).__name__}({r!r})"
    return f"{type(r).__name__}({r!r})"


def D(x: Any) -> Any:
    """``x`` as an npjax array on the device."""
    with npjax.policy(placement="device"):
        return npjax.asarray(x)


def run(expr: str, mode: str) -> str:
    names = {"np": np, "xp": npjax, "npjax": npjax, "D": D}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if mode == "jit":
                out = describe(npjax.jit(eval("lambda: " + expr, names), fallback="eager")())
            else:
                with npjax.policy(**MODES[mode]):
                    out = describe(eval(expr, names))
        except Exception as exc:
            out = f"EXC {type(exc).__name__}: {str(exc)[:80]}"
    shown = ";".join(f"{w.category.__name__}:{str(w.message)[:50]}" for w in caught)
    return out + (f" W[{shown}]" if shown else "")


def main(path: str) -> None:
    exprs = [line.rstrip("\n") for line in open(path)
             if line.strip() and not line.startswith("#")]
    for expr in exprs:
        for mode in ("host", "device", "lazy", "jit"):
            print(f"{mode:6} {expr} -> {run(expr, mode)}")


if __name__ == "__main__":
    main(sys.argv[1])
