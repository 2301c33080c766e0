"""The check at the call: the screen (are all float results finite, and none tiny when
underflow is reported?) read in place on the host or by a small kernel on the device, then,
only when it finds something, the flags of ``_fp_flags`` (``_errstate``'s steps 1 and 2)."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _host_reads
from npjax._runtime._fp_flags import _device_flags, _float_flags, _int_flags
from npjax._runtime._host_reads import SYNCS
from npjax._runtime._numpy_calls import run_quietly


@jax.jit
def _device_finite(x: jax.Array) -> jax.Array:
    return jnp.all(jnp.isfinite(x))


@functools.lru_cache(maxsize=64)
def _device_no_tiny(tiny: float) -> Callable:
    return jax.jit(lambda x: jnp.all((jnp.abs(x) >= tiny) | ~jnp.isfinite(x)))


_isfinite = np.isfinite
_all = np.logical_and.reduce

# The C screen (``_finite.c``): True or False for a small float buffer read in place, None
# for anything else; None here where it is not built or C is turned off.
_screen: Callable | None = None
if os.environ.get("NPJAX_PURE_PYTHON", "") in ("", "0"):
    try:
        from npjax._runtime._finite import all_finite as _screen
    except ImportError:  # (no compiler at install time)
        _screen = None


_SMALL = 64  # elements: past these, NumPy's dot product costs less than Python's sum


def _py_screen(r: Any) -> bool | None:
    """The C screen's work in Python (where it is not built), for a small contiguous float64
    or float32 buffer: whether the sum of its elements is finite (an inf or NaN anywhere
    makes it not; a false alarm from its overflow: step 2), read through the buffer without
    NumPy's view or error state (Python floats raise no flag). None for anything else."""
    try:
        view = memoryview(r)
    except (BufferError, TypeError):  # (bfloat16, a deleted array...): NumPy's answer
        return None
    code = view.format.lstrip("=@")
    if code != "d" and code != "f" or view.nbytes > _SMALL * view.itemsize or \
            not view.c_contiguous:
        return None
    return math.isfinite(sum(view.cast("B").cast(code).tolist()))


# What ``_all_finite`` asks first of a result in host memory: the C screen, else Python's.
screen: Callable = _screen if _screen is not None else _py_screen


def _all_finite(r: jax.Array) -> bool:
    if not _host_reads.on_host(r):
        SYNCS["checks"] += 1
        return bool(_device_finite(r))
    got = screen(r)  # the CPU buffer itself, read in place
    if got is not None:
        return got
    h = np.asarray(r)  # the CPU buffer itself, no copy
    if h.dtype.char in "fd":
        # float32/64: an inf or NaN anywhere makes the dot product non-finite, at a third of
        # the cost of ``isfinite`` and ``all`` (a false alarm from its overflow: step 2)
        h = h.ravel()
        return math.isfinite(run_quietly(h.dot, h))
    return bool(_all(_isfinite(h), axis=None))


def _no_tiny(r: jax.Array) -> bool:
    tiny = float(np.finfo(r.dtype).tiny)
    if not _host_reads.on_host(r):
        SYNCS["checks"] += 1
        return bool(_device_no_tiny(tiny)(r))
    h = np.asarray(r)
    with np.errstate(all="ignore"):
        return bool(((np.abs(h) >= tiny) | ~np.isfinite(h)).all())


def _host(v: Any) -> Any:
    return np.asarray(v) if isinstance(v, jax.Array) else v


def _flags(name: str, kind: str, under: bool, vals: list, outs: list, mask: Any,
           low: int | None = None) -> int:
    if all(_host_reads.on_host(v) for v in (*vals, *outs, mask)):
        hv, ho, hm = [_host(v) for v in vals], [_host(o) for o in outs], _host(mask)
        with np.errstate(all="ignore"):
            if kind == "int":
                return int(_int_flags(np, name, low, hv, hm, ho))
            return int(_float_flags(np, name, under, hv, ho, hm))
    SYNCS["checks"] += 1
    return int(_device_flags(name, kind, under, low)(list(vals), list(outs), mask))
