"""Traced integers in basic indices under ``npjax.jit``: ``G[1, idx[2]]`` and
``a[idx[0]:idx[0] + 3]``, where ``idx`` is an array argument.

A traced 0-d integer names a position the program computes: the box of the view moves there
(``_views.Box`` takes traced starts, as the loop index of a rolled loop does), negative
positions wrap, and NumPy's bounds check is a device-side check (``trace.check``: a call
whose index is out of bounds reruns eagerly and raises NumPy's ``IndexError``).

A slice with traced bounds has a length that may depend on their values, and a shape must be
known while tracing. It is known where both bounds are one traced value plus Python ints
(``a[s:s + 3]``, ``a[idx[0] - 1:idx[0] + 2]``): the trace notes, for each traced scalar, the
element it was read from (two reads of ``idx[0]`` with no write between are the same value)
and the Python ints added to or subtracted from it (``_calls._operators``). The program then
has that length, and a device-side check that NumPy's clamping leaves it so (the start is
not negative and the stop is at most the axis' length; otherwise the call reruns eagerly and
gives NumPy's shorter slice). Any other slice with traced bounds (``a[idx[1]:idx[0]]``,
``a[:idx[0]]``) has a length only the values tell: ``ShapeNeeded`` (``npjax.JitError``).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from npjax._core._array_base import ArrayBase
from npjax._pure._errors import ShapeNeeded
from npjax._runtime._context import trace

__all__ = ["note_offset", "note_read", "traced_int", "traced_slice"]


def _traced(k: Any) -> Any:
    """The traced 0-d integer value of ``k`` (an npjax scalar or a tracer), else None."""
    v = k._read() if isinstance(k, ArrayBase) else k
    if isinstance(v, jax.core.Tracer) and not v.ndim and v.dtype.kind in "iu":
        return v
    return None


def _symbols(tr: Any) -> dict | None:
    return getattr(tr, "symbols", None)


def note_read(value: Any, source: Any, pos: tuple) -> None:
    """``value`` (traced) was read at positions ``pos`` (Python ints, or traced positions
    a rolled loop's index gives) of the owner value ``source``: another read there before a
    write is the same value."""
    tr = trace()
    symbols = _symbols(tr)
    if symbols is not None and isinstance(value, jax.core.Tracer) and value.ndim == 0:
        symbols[id(value)] = (value, source, tuple(pos), 0)


def note_offset(result: Any, operand: Any, add: int) -> None:
    """``result`` is the npjax scalar ``operand`` plus the Python int ``add``."""
    symbols = _symbols(trace())
    if symbols is None or not isinstance(result, ArrayBase):
        return
    v, r = _traced(operand), _traced(result)
    if v is None or r is None:
        return
    _, source, pos, off = _symbol(symbols, v)
    symbols[id(r)] = (r, source, pos, off + add)


def _symbol(symbols: dict, v: Any) -> tuple:
    got = symbols.get(id(v))
    if got is not None and got[0] is v:
        return got
    return v, v, None, 0


def _same_positions(p: tuple | None, q: tuple | None) -> bool:
    """Positions of two reads: Python ints alike, or the same traced object (a rolled
    loop's index, ``_loop_index.LoopIndex.traced``)."""
    if p is None or q is None:
        return p is q
    return len(p) == len(q) and all(
        u is v or (type(u) is int and type(v) is int and u == v) for u, v in zip(p, q))


def _int_dtype() -> Any:
    return jnp.int64 if jax.config.jax_enable_x64 else jnp.int32


def traced_int(k: Any, axis: int, n: int) -> Any:
    """The position a traced 0-d integer names, traced (negative ones wrapped), its bounds
    checked on the device; None when ``k`` is not traced or no trace runs."""
    tr = trace()
    if tr is None:
        return None
    v = _traced(k)
    if v is None:
        return None
    if n == 0:
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")
    if v.dtype.kind == "u":
        tr.check(v >= n)
    v = v.astype(_int_dtype())
    tr.check((v < -n) | (v >= n))
    return jnp.where(v < 0, v + n, v)


def traced_slice(item: slice, n: int) -> tuple | None:
    """(traced start, static length) of a unit-step slice with traced bounds, the bounds
    checked on the device to give that length; None when no bound is traced."""
    tr = trace()
    if tr is None:
        return None
    start, stop, step = item.start, item.stop, item.step
    bounds = [_traced(b) if b is not None and not isinstance(b, int) else None
              for b in (start, stop, step)]
    if not any(b is not None for b in bounds):
        return None
    symbols = _symbols(tr)
    if bounds[2] is not None or step not in (None, 1) or symbols is None or \
            bounds[0] is None or bounds[1] is None:
        raise ShapeNeeded("a slice whose bounds are read from an array has a length that "
                          "depends on their values (a shape must be known when traced); "
                          "bounds of one value plus Python ints (a[s:s + 3]) have a "
                          "static length")
    a, b = _symbol(symbols, bounds[0]), _symbol(symbols, bounds[1])
    if a[1] is not b[1] or not _same_positions(a[2], b[2]):
        raise ShapeNeeded("a slice whose bounds are two values read from an array "
                          "(a[idx[1]:idx[0]]) has a length that depends on them (a shape "
                          "must be known when traced); bounds of one value plus Python ints "
                          "(a[s:s + 3]) have a static length")
    length = b[3] - a[3]
    if length == 0:  # a[s:s]: empty wherever s falls
        return 0, 0
    if length > n:
        raise ShapeNeeded(f"a slice of length {length} read from an axis of length {n} "
                          "is clamped to a length that depends on its traced start")
    if length < 0:  # NumPy's length depends on where the bounds fall (a[s:s - 1])
        raise ShapeNeeded("a slice whose traced stop is before its start has a length "
                          "that depends on their values")
    s = bounds[0].astype(_int_dtype())
    tr.check((s < 0) | (s > n - length))
    return s, length
