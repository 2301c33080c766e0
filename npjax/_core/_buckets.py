"""Results whose length depends on the data, computed at a bucketed length.

``a[mask]``, ``nonzero``, ``compress``, ``unique`` and the set operations return as many
elements as the data selects. A compiled program has fixed output shapes, so computing such a
result exactly compiled one program per distinct count: a loop over masks with n different
counts compiled n programs (and more, for each eager ``jnp`` call on the way).

Here every such result goes through ``run``. The positions of the selected elements are
found first, padded to a *bucket* (``bucket``: the next power of two of their count, at least
``FLOOR``, at most the largest count possible); the result is computed by one program per
bucket from them, and cut to the count (``cut``). So n distinct counts make O(log n) programs.

Where the data lives in host memory (the CPU backend), NumPy finds the positions reading the
device buffer in place (XLA's running sums on the CPU are 10 times slower than NumPy's), and
the padded result is cut on the host and placed back: no program besides the bucket's. On an
accelerator the count is read first (one small transfer: NumPy's result shape needs it), the
program finds the positions itself (``npjax/_pure/_impl/positions.py``), and the result is cut on
the host too when it is small (``HOST_CUT_BYTES``); a larger one is cut on the device by one
slicing program per count, since moving it twice would cost about as much as compiling that.

Under ``npjax.jit`` a count computed from traced values cannot be read: JAX's tracer error
becomes ``npjax.JitError``, as before (``a[mask]`` with a traced mask does not come here: it
is a masked value, ``npjax._compile._masked``). A count known when tracing (``a[mask]`` with a NumPy
mask) gives a traced cut. Lazy mode runs these functions on computed values.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._runtime import _bounds, _stats
from npjax._runtime._context import current
from npjax._pure._impl.positions import nonzero_mask, selected
from npjax._core._normalize import to_jax

__all__ = ["FLOOR", "HOST_CUT_BYTES", "bucket", "count_nonzero", "cut", "in_host_memory",
           "nonzero", "pad", "pick", "read", "run", "zeros"]

# Smallest bucket: results up to FLOOR elements share one program. On the CPU backend a[mask]
# with 5 True elements took the same time (within the noise of a busy 2-CPU VM) padded to 16,
# 64 or 256, for masks of 10**2 to 10**6 elements; 64 saves the programs of 16 and 32.
FLOOR = 64
# On an accelerator, padded results up to this many bytes are cut on the host.
HOST_CUT_BYTES = 1 << 26
_INTP = np.dtype(np.intp)


def bucket(count: int, limit: int) -> int:
    """The padded length for ``count`` results when at most ``limit`` are possible."""
    if count > limit:
        raise ValueError(f"count {count} exceeds its limit {limit}")
    size = FLOOR if count <= FLOOR else 1 << (count - 1).bit_length()
    return min(size, limit)


def in_host_memory(x: Any) -> bool:
    """Whether NumPy reads ``x`` in place: a NumPy array, or a concrete array on the CPU
    backend."""
    if isinstance(x, np.ndarray):
        return True
    if isinstance(x, jax.core.Tracer):
        return False
    return all(d.platform == "cpu" for d in x.sharding.device_set)


def _host(x: Any) -> np.ndarray:
    return x if isinstance(x, np.ndarray) else _stats.fetch(x)


@jax.jit
def _count(x: jax.Array) -> jax.Array:
    return jnp.sum(nonzero_mask(x), dtype=_INTP)


def read(count: jax.Array) -> int:
    """A count computed on the device, read on the host (one small transfer)."""
    return int(_stats.fetch(count))


def count_nonzero(x: Any) -> int:
    """How many elements of ``x`` are nonzero (True), read on the host: by NumPy in host
    memory, else by one program per shape and dtype and one small transfer (under
    ``npjax.jit``, JAX's tracer error)."""
    if x.size == 0:
        return 0
    if in_host_memory(x):
        return int(np.count_nonzero(_host(x)))
    return read(_count(x))


def zeros(shape: tuple, dtype: Any) -> jax.Array:
    """An all-zero device array placed by the policy, without compiling a program per shape
    (an empty result has a shape that depends on the data too)."""
    return to_jax(np.zeros(shape, dtype), current())


@functools.lru_cache(maxsize=256)
def _slicer(axis: int, count: int) -> Callable:
    return jax.jit(lambda x: lax.slice_in_dim(x, 0, count, axis=axis))


def _cut_on_host(x: jax.Array) -> bool:
    return in_host_memory(x) or x.nbytes <= HOST_CUT_BYTES


def cut(x: jax.Array, axis: int, count: int) -> jax.Array:
    """The first ``count`` entries of ``x`` along ``axis`` (see the module docstring)."""
    if x.shape[axis] == count:
        return x
    if isinstance(x, jax.core.Tracer):  # npjax.jit, with a count known when tracing
        return lax.slice_in_dim(x, 0, count, axis=axis)
    if _cut_on_host(x):
        part = _stats.fetch(x)[(slice(None),) * axis + (slice(0, count),)]
        return to_jax(np.ascontiguousarray(part), current())
    return _slicer(axis, count)(x)


@functools.lru_cache(maxsize=256)
def _padder(axis: int, size: int) -> Callable:
    def pad(x):
        widths = [(0, 0, 0)] * x.ndim
        widths[axis] = (0, size - x.shape[axis], 0)
        return lax.pad(x, jnp.zeros((), x.dtype), widths)

    return jax.jit(pad)


def pad(x: Any, axis: int, size: int) -> Any:
    """``x`` padded with zeros along ``axis`` to ``size`` entries: the reverse of ``cut``, for
    values of a data-dependent length that a program of the bucket's length takes (a mask
    write's values). A host array is padded by NumPy; a device array in host memory, or a
    small one, on the host and placed back (no program); a large one on an accelerator by one
    padding program per length (as ``cut`` cuts)."""
    n = x.shape[axis]
    if n == size:
        return x
    if isinstance(x, jax.core.Tracer):  # npjax.jit, with a length known when tracing
        return _padder(axis, size)(x)
    if isinstance(x, np.ndarray) or _cut_on_host(x):
        host = x if isinstance(x, np.ndarray) else _stats.fetch(x)
        out = np.zeros(host.shape[:axis] + (size,) + host.shape[axis + 1:], host.dtype)
        out[(slice(None),) * axis + (slice(0, n),)] = host
        return to_jax(out, current())
    return _padder(axis, size)(x)


def run(kernel: Callable[..., Any], keep: Any, *args: Any,
        axes: int | Sequence[int | None] = 0, fill: int = 0,
        count: int | jax.Array | None = None) -> tuple[tuple[jax.Array, ...], int]:
    """``kernel(*args, sel, size=B)`` for the nonzero elements of ``keep``, each output cut
    to their count along its entry of ``axes`` (None: kept whole); and the count.

    ``B`` is the bucket of the count (out of ``keep.size``). ``sel`` gives the kernel the
    selected elements' flat positions (``npjax._pure._impl.positions.selected(sel, size, fill)``:
    found by NumPy in host memory, padded with ``fill``; else found in the kernel). Its
    outputs have ``B`` entries along ``axes``, the first ``count`` of them the result.
    ``count``, when known (a device scalar is read only where needed), saves a reduction.
    """
    if in_host_memory(keep):
        flat = np.flatnonzero(_host(keep))
        count = flat.size
        size = bucket(count, keep.size)
        at = np.full(size, fill, _INTP)
        at[:count] = flat
        sel = (to_jax(at, current()), None)
    else:
        if count is None:
            count = count_nonzero(keep)
        elif not isinstance(count, int):
            count = read(count)
        size = bucket(count, keep.size)
        sel = (None, keep)
    out = kernel(*args, sel, size=size)
    outs = out if isinstance(out, tuple) else (out,)
    if isinstance(axes, int):
        axes = (axes,) * len(outs)
    if len(outs) > 1:  # several to fetch: their copies overlap
        for x, ax in zip(outs, axes):
            if ax is not None and x.shape[ax] != count and not isinstance(
                    x, jax.core.Tracer) and _cut_on_host(x):
                x.copy_to_host_async()
    return tuple(x if ax is None else cut(x, ax, count) for x, ax in zip(outs, axes)), count


@functools.partial(jax.jit, static_argnames=("size",))
def pick(*arrays: jax.Array, size: int) -> tuple:
    """The selected entries of each 1-D array (the last argument: ``sel``), padded to
    ``size`` (a kernel for ``run``)."""
    *arrays, sel = arrays
    at = selected(sel, size)
    return tuple(x[at] for x in arrays)


@functools.partial(jax.jit, static_argnames=("shape", "size"))
def _nonzero_kernel(sel: tuple, shape: tuple, size: int) -> tuple:
    at = selected(sel, size)
    return (at,) if len(shape) == 1 else tuple(jnp.unravel_index(at, shape))


def nonzero(x: jax.Array, count: int | None = None) -> tuple[jax.Array, ...]:
    """NumPy's ``nonzero(x)`` for an array of at least one dimension: intp index arrays on
    the device, one per axis (``count``: the number of nonzero elements, when known)."""
    if in_host_memory(x):  # NumPy's own answer, exact
        out = tuple(to_jax(i.astype(_INTP, copy=False), current())
                    for i in np.nonzero(_host(x)))
    elif (count := count_nonzero(x) if count is None else count) == 0:
        return tuple(zeros(0, _INTP) for _ in range(x.ndim))
    else:
        kernel = functools.partial(_nonzero_kernel, shape=x.shape)
        out = run(kernel, x, count=count)[0]
    for i, n in zip(out, x.shape):  # index arrays in bounds by construction
        _bounds.remember(i, 0, n - 1)
    return out
