"""Results whose length depends on the data, computed at a bucketed length.

``a[mask]``, ``nonzero``, ``compress``, ``unique`` and the set operations return as many
elements as the data selects. A compiled program has fixed output shapes, so computing such a
result exactly compiled one program per distinct count: a loop over masks with n different
counts compiled n programs (and more, for each eager ``jnp`` call on the way).

Here every such result goes through ``run``: the count is read first (NumPy's result shape
needs it on the host anyway: one small transfer), the work runs in one program per *bucket*
(``bucket``: the next power of two of the count, at least ``FLOOR``, at most the largest count
possible), its unused tail padded (``npjax/_impl/positions.py``), and the padded outputs are
cut to the count (``cut``). The cut compiles nothing: the padded result is fetched, cut on the
host and placed back (on the CPU backend both copies are nearly free). On an accelerator a
result over ``HOST_CUT_BYTES`` is cut on the device instead, by one small slicing program per
count: moving it twice would cost about as much as compiling that program. So n distinct
counts make O(log n) programs.

Under ``npjax.jit`` reading a count computed from traced values raises JAX's tracer error
(``npjax.JitError`` for the user, as before); a count known when tracing (``a[mask]`` with a
NumPy mask) gives a traced cut. Lazy mode runs these functions on computed values.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax import _stats
from npjax._context import current
from npjax._impl.positions import nonzero_mask, padded_nonzero as _padded, true_positions
from npjax._normalize import to_jax

__all__ = ["FLOOR", "HOST_CUT_BYTES", "bucket", "count_nonzero", "cut", "nonzero",
           "padded_nonzero", "pick", "read", "run", "zeros"]

# Smallest bucket: results up to FLOOR elements share one program. On the CPU backend a[mask]
# with 5 True elements took the same time (within the noise of a busy 2-CPU VM) padded to 16,
# 64 or 256, for masks of 10**2 to 10**6 elements; 64 saves the programs of 16 and 32.
FLOOR = 64
# Padded results up to this many bytes are cut on the host (accelerators; always on the CPU).
HOST_CUT_BYTES = 1 << 26
_INTP = np.dtype(np.intp)


def bucket(count: int, limit: int) -> int:
    """The padded length for ``count`` results when at most ``limit`` are possible."""
    if count > limit:
        raise ValueError(f"count {count} exceeds its limit {limit}")
    size = FLOOR if count <= FLOOR else 1 << (count - 1).bit_length()
    return min(size, limit)


@jax.jit
def _count(x: jax.Array) -> jax.Array:
    return jnp.sum(nonzero_mask(x), dtype=_INTP)


def count_nonzero(x: Any) -> int:
    """How many elements of ``x`` are nonzero (True), read on the host.

    A NumPy array is counted by NumPy; a device array by one program per shape and dtype and
    one small transfer (under ``npjax.jit`` this raises JAX's tracer error)."""
    if isinstance(x, np.ndarray):
        return int(np.count_nonzero(x))
    if x.size == 0:
        return 0
    return read(_count(x))


def read(count: jax.Array) -> int:
    """A count computed on the device, read on the host (one small transfer)."""
    return int(_stats.fetch(count))


def zeros(shape: tuple, dtype: Any) -> jax.Array:
    """An all-zero device array placed by the policy, without compiling a program per shape
    (an empty result has a shape that depends on the data too)."""
    return to_jax(np.zeros(shape, dtype), current())


@functools.lru_cache(maxsize=256)
def _slicer(axis: int, count: int) -> Callable:
    return jax.jit(lambda x: lax.slice_in_dim(x, 0, count, axis=axis))


def _on_cpu(x: jax.Array) -> bool:
    return all(d.platform == "cpu" for d in x.sharding.device_set)


def _on_host(x: jax.Array) -> bool:
    """Whether ``cut`` cuts ``x`` on the host."""
    return x.nbytes <= HOST_CUT_BYTES or _on_cpu(x)


def cut(x: jax.Array, axis: int, count: int) -> jax.Array:
    """The first ``count`` entries of ``x`` along ``axis`` (see the module docstring)."""
    if x.shape[axis] == count:
        return x
    if isinstance(x, jax.core.Tracer):  # npjax.jit, with a count known when tracing
        return lax.slice_in_dim(x, 0, count, axis=axis)
    if _on_host(x):
        part = _stats.fetch(x)[(slice(None),) * axis + (slice(0, count),)]
        return to_jax(np.ascontiguousarray(part), current())
    return _slicer(axis, count)(x)


def run(kernel: Callable[..., Any], count: int, limit: int, *args: Any,
        axes: int | Sequence[int | None] = 0) -> tuple[jax.Array, ...]:
    """``kernel(*args, size=B)`` at the bucket ``B`` of ``count`` (out of at most ``limit``),
    each output cut to ``count`` along its entry of ``axes`` (None: kept whole).

    ``kernel`` is a compiled function whose outputs have ``size`` entries along those axes,
    the first ``count`` of them the result (a tuple of outputs, or one)."""
    out = kernel(*args, size=bucket(count, limit))
    outs = out if isinstance(out, tuple) else (out,)
    if isinstance(axes, int):
        axes = (axes,) * len(outs)
    if len(outs) > 1:  # several to fetch: their copies overlap
        for x, ax in zip(outs, axes):
            if ax is not None and x.shape[ax] != count and not isinstance(
                    x, jax.core.Tracer) and _on_host(x):
                x.copy_to_host_async()
    return tuple(x if ax is None else cut(x, ax, count) for x, ax in zip(outs, axes))


@functools.partial(jax.jit, static_argnames=("size",))
def pick(keep: jax.Array, *arrays: jax.Array, size: int) -> tuple:
    """The entries of each 1-D array where ``keep`` is True, padded to ``size`` (a kernel for
    ``run``)."""
    at = true_positions(keep, size)
    return tuple(x[at] for x in arrays)


@functools.partial(jax.jit, static_argnames=("size",))
def padded_nonzero(x: jax.Array, size: int) -> tuple:
    """NumPy's ``nonzero(x)`` padded with zeros to ``size`` entries (a kernel for ``run``)."""
    return _padded(nonzero_mask(x), size)


def nonzero(x: jax.Array, count: int | None = None) -> tuple[jax.Array, ...]:
    """NumPy's ``nonzero(x)`` for a device array of at least one dimension: intp index
    arrays, one per axis (``count``: the number of nonzero elements, when known)."""
    if count is None:
        count = count_nonzero(x)
    if count == 0:
        return tuple(zeros(0, _INTP) for _ in range(x.ndim))
    return run(padded_nonzero, count, x.size, x)
