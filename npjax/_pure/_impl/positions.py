"""Positions of True elements at a fixed length (``jax.Array`` in, ``jax.Array`` out).

The kernels of ``npjax/_core/_buckets.py`` compute results of data-dependent length padded to a
bucket; these are their building blocks. A kernel receives the positions of the selected
elements already found (on the CPU backend NumPy finds them, reading the device buffer in
place) or finds them itself (``selected``). ``true_positions`` is a running count and one
scatter: on the CPU backend it runs 1.5-2.5 times faster than ``jnp.nonzero(size=...)``
(two running sums and a histogram) for 10**4 to 10**6 elements.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure._boolsums import running_count

_INTP = np.dtype(np.intp)
_INT_OF = {2: np.int16, 4: np.int32, 8: np.int64}


def nonzero_mask(x: jax.Array) -> jax.Array:
    """``x != 0`` as NumPy means it (a bit test for floats: XLA flushes subnormals)."""
    if x.dtype.kind == "c":
        return nonzero_mask(jnp.real(x)) | nonzero_mask(jnp.imag(x))
    if x.dtype.kind == "f":
        itype = _INT_OF[x.dtype.itemsize]
        return (lax.bitcast_convert_type(x, itype) & np.iinfo(itype).max) != 0
    return x != 0


def true_positions(keep: jax.Array, size: int, fill: int = 0) -> jax.Array:
    """Flat positions of the True elements of the boolean ``keep``, in order, then ``fill``
    up to ``size`` entries (``size`` at least their number)."""
    keep = keep.ravel()
    rank = running_count(keep) - 1
    slot = jnp.where(keep, rank, size)  # past the end: dropped
    start = jnp.full(size, fill, _INTP)
    return start.at[slot].set(jnp.arange(keep.shape[0], dtype=_INTP), mode="drop")


def padded_nonzero(keep: jax.Array, size: int) -> tuple[jax.Array, ...]:
    """``nonzero`` of the boolean ``keep`` (one index array per axis), padded with 0 to
    ``size`` entries."""
    flat = true_positions(keep, size)
    if keep.ndim <= 1:
        return (flat,)
    return tuple(jnp.unravel_index(flat, keep.shape))


def selected(sel: tuple, size: int, fill: int = 0) -> jax.Array:
    """Padded positions of selected elements from ``sel``: ``(positions, None)`` when they
    were found already (padded to ``size`` with ``fill``), or ``(None, keep)`` to find the
    nonzero elements of ``keep`` here (NumPy's truth: subnormal floats are nonzero)."""
    at, keep = sel
    if keep is None:
        return at
    return true_positions(nonzero_mask(keep), size, fill)
