"""Device copies of host data: one counted transfer, and sent once while the data stays
the same (``_sent``: a host owner's copy kept with a snapshot of its bytes)."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from npjax._pure._dtypes import MAX_DEVICE_NDIM, device_only
from npjax._pure._errors import HostOnly
from npjax._runtime import _stats

# host data up to this size keeps its device copy (and a snapshot to tell it is unchanged)
SEND_ONCE_BYTES = 1 << 22


def _sent(owner: Any, data: np.ndarray) -> jax.Array:
    """The device copy of a host owner's data, sent once while the data stays the same.

    A lazy program, or a loop of device calls, reads a small host array once per operation;
    each read used to send it again. The copy is kept with a snapshot of the bytes it was
    made from, and used again only when the data is bit for bit the snapshot (NumPy code may
    write the memory directly, so no version number can tell)."""
    cache = owner._cache
    flat = data.reshape(-1) if data.flags.c_contiguous else None
    if cache is not None and flat is not None:
        snap, value = cache
        if snap.dtype == data.dtype and snap.shape == data.shape and np.array_equal(
                snap.reshape(-1).view(np.uint8), flat.view(np.uint8)):
            return value
    value = _to_device(data)
    if flat is not None and data.nbytes <= SEND_ONCE_BYTES:
        owner._cache = (data.copy(), value)
    return value


def _to_device(data: np.ndarray, owned: bool = False) -> jax.Array:
    """A device copy of host data, for code that computes with JAX (a counted transfer).

    XLA on a CPU may keep aligned NumPy memory as the device buffer (even with
    ``may_alias=False``), so data others can write (``owned=False``: an array's storage, the
    caller's NumPy array) is copied first: a write after a lazy call, or while an
    asynchronous one runs, must not reach its operand."""
    device_only(data.dtype)  # never a raw JAX error: the caller's NumPy runs it
    if data.ndim > MAX_DEVICE_NDIM:
        raise HostOnly(f"an array of {data.ndim} dimensions lives on the host only")
    _stats.record_transfer("host_to_device", data.nbytes)
    return jax.device_put(data if owned else np.array(data))
