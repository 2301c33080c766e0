"""``np.histogram(x, bins=int)`` of traced data under ``npjax.jit``.

NumPy reads the data's min and max on the host, widens them by 0.5 where they are equal,
makes the edges with ``np.linspace`` and counts with its equal-bin arithmetic. Under a trace
the bin count is static (a Python int) and everything else is computed in the program, as
NumPy computes it: the widening is a select, the edges are NumPy's linspace step by step in
its dtype (``arange * step + start``, ``(arange / div) * delta`` where the step is zero,
the last edge ``stop``; a barrier keeps the multiply and the add two roundings), and the
counts are npjax's equal-bin kernel (``_statistics._uniform_kernel``). NumPy's errors are
device-side checks (the call reruns eagerly and raises them): a range that is not finite
(NaN or infinite data), edges that do not increase ("Too many bins for data range"), and
the bin arithmetic's overflow.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._context import trace

__all__ = ["outer_edges", "traced"]

_UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
             np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def traced(x: Any) -> bool:
    """Whether histogram's data is traced (``npjax.jit``)."""
    return trace() is not None and isinstance(x._read(), jax.core.Tracer)


def check(bad: Any) -> None:
    trace().check(bad)


def _linspace(start: Any, stop: Any, num: int, dt: np.dtype) -> Any:
    """NumPy's ``linspace(start, stop, num, dtype=dt)`` for ``dt`` its own result dtype.

    Each operation rounds as NumPy's does. XLA's CPU backend contracts a multiply and the
    add after it into one fused multiply-add, and divides by a constant as a multiply by its
    reciprocal: products are added to the trace's ``-0.0`` (a value of the program, so no
    pass removes it; ``p + -0.0`` is ``p``), which their contraction rounds as the product
    alone, and the divisor is such a value too. float16 is computed in float32 rounded to
    float16 after each operation, as NumPy's float16 loops are (XLA would keep a float16
    chain in float32)."""
    nz = trace().neg_zero
    if dt == np.float16:  # (rounding flushes float16's subnormals: those rerun eagerly)
        def r(x: Any) -> Any:
            check(jnp.any((x != 0) & (jnp.abs(x) < 2.0 ** -14)))
            return jax.lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)
        work = np.dtype(np.float32)
    else:
        def r(x: Any) -> Any:
            return x
        work = dt
    nz = nz.astype(work)
    div = jnp.asarray(num - 1, work) + nz
    start, stop = start.astype(dt).astype(work), stop.astype(dt).astype(work)
    delta = r(stop - start)
    y = jnp.arange(num, dtype=work)
    step = r(delta / div)
    small = r(r(y / div) * delta + nz)
    y = jnp.where(step == 0, small, r(y * step + nz))
    y = r(y + start)
    return y.at[-1].set(stop).astype(dt)


def outer_edges(a: Any, n: int) -> tuple:
    """(edges, first edge, denominator, sub dtype, div dtype) of ``histogram(a, n)`` for
    traced ``a`` without ``range`` (``a.size`` > 0), as ``_statistics.histogram`` uses them."""
    dtype = a.dtype
    v = a._read()
    lo, hi = jnp.min(v), jnp.max(v)
    check(~jnp.isfinite(lo) | ~jnp.isfinite(hi))  # NumPy: "autodetected range ... not finite"
    equal = lo == hi
    if dtype.kind in "iub":  # the widened edges are float64, the others the data's ints
        unsigned = _UNSIGNED.get(dtype)
        spread = (hi.astype(unsigned) - lo.astype(unsigned) if unsigned is not None
                  else hi - lo).astype(np.float64)
        lo, hi = lo.astype(np.float64), hi.astype(np.float64)
        first, last = jnp.where(equal, lo - 0.5, lo), jnp.where(equal, hi + 0.5, hi)
        denom = jnp.where(equal, last - first, spread)
        dt = np.dtype(np.float64)
    else:
        first = jnp.where(equal, lo - jnp.asarray(0.5, dtype), lo)
        last = jnp.where(equal, hi + jnp.asarray(0.5, dtype), hi)
        denom = last - first
        dt = dtype
    edges = _linspace(first, last, n + 1, dt)
    check(jnp.any(edges[:-1] >= edges[1:]))  # NumPy: "Too many bins for data range"
    # an overflow (float16 data spanning more than its range): NumPy's warnings, eagerly
    check(~jnp.all(jnp.isfinite(edges)) | ~jnp.isfinite(denom))
    return edges, first, denom, dt, dt
