"""NumPy computing on npjax arrays whose data is in host memory (the CPU backend).

Where a result's length depends on the data (``a[mask]``), or a call must read values anyway
(``ufunc.at``'s bounds, ``linalg``'s singular checks), NumPy reading the device buffers in
place gives NumPy's values, errors and warnings by construction, without a compiled program
per length, and on the CPU faster than XLA's scatters and LAPACK wrappers. Each caller
checks ``_executor.numpy_reads_in_place`` first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from npjax._core._buckets import in_host_memory
from npjax._core._ndarray import host_owner, ndarray
from npjax._core._normalize import to_jax
from npjax._runtime import _context, _stats
from npjax._runtime._context import current

__all__ = ["from_numpy", "host_view", "host_views"]

_HOST_ITEMS = (int, float, complex, bool, slice, type(None), type(Ellipsis), np.ndarray,
               np.generic)


def host_view(x: Any) -> Any:
    """An npjax array's data in host memory as NumPy's array (a host array's own data; a
    device array of the CPU backend read in place, computed first if pending), a number,
    NumPy array or basic index item as it is; None for anything else (a device array off
    the CPU, a list, a subclass)."""
    if type(x) is not ndarray:
        return x if isinstance(x, _HOST_ITEMS) else None
    data = x._host()
    if data is not None:
        return data
    value = x._read()
    return _stats.fetch(value) if in_host_memory(value) else None


def host_views(xs: Any) -> list | None:
    """``host_view`` of each of ``xs``, or None when one of them has none."""
    views = [host_view(x) for x in xs]
    return None if any(v is None for v in views) else views


def from_numpy(result: np.ndarray, any_size: bool = False) -> ndarray:
    """A new array NumPy made from ``host_view`` data, placed as the placement places a new
    array: a host array up to the host limit, else a device array. ``any_size``: a host array
    whatever its size where host arrays are allowed (one of a data-dependent length: on the
    device, every program taking it would compile once per length)."""
    limit = _context.get().host
    if limit < 0 or (result.size > limit and not any_size):
        return ndarray._owner(to_jax(result, current()))
    return host_owner(result)
