"""The executor core code hands device work to, and what each mode does around it.

``Kernel`` (``_execution/_lazy``) runs a compiled kernel in the mode in force: now (eager),
recorded for one program later (lazy mode, ``policy(mode="lazy")``), or inside
``npjax.jit``'s trace. Reading and writing an array's value around a kernel differs by mode
as well: a read of the part a store just wrote is that stored value (lazy mode:
``_lazy.stored_part``; the trace: its ``read_source``), a write under a trace is noted for
the write-back and the error-state checks (``note_write``, ``note_stored``), buffers are
donated only when eager, and a small input is made by the pending program in lazy mode and
sent now otherwise.

Those decisions are made here, each behind one hook named for what it does, so core indexing
(``_index_read``, ``_index_write``, ``_index_values``, ``_index_plan``, ``_window_reads``,
``_element_access``, ``_buckets``) and the array's storage reads (``_ndarray``) call the hook
and never ask which mode they are in (``tests/test_layers.py`` keeps it so). Lazy mode's
machinery is ``_execution/_lazy``; the trace is ``npjax._compile._jit._Trace``, found in the
execution context. Each hook reads the context once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

from npjax._core import _views
from npjax._execution._lazy import Kernel, Lazy, concrete_if_done, stored_part
from npjax._core._normalize import to_jax
from npjax._core._traced_index import note_read
from npjax._pure._errors import JitError
from npjax._runtime._context import get as _get

__all__ = ["DEVICE_VALUES", "Kernel", "Lazy", "as_input", "concrete_if_done",
           "device_check", "multi_device_sharding", "read_advanced", "read_element",
           "recording", "refuse_host_write", "store", "stored_part", "traced_bounds",
           "numpy_reads_in_place", "traced_value", "view_source", "windows_eligible",
           "write_advanced", "write_element"]

# A device value: computed, or pending in lazy mode.
DEVICE_VALUES = (jax.Array, Lazy)
_Tracer = jax.core.Tracer
_UNSHARDED = (_Tracer, Lazy)  # traced or pending: no sharding to keep


# --- reads --------------------------------------------------------------------------------


def read_advanced(a: Any, index: Any, items: list, kinds: list, shape: tuple,
                  one_mask: bool, host_read: Callable) -> Any:
    """``a[index]`` (an advanced index) where the mode reads it its own way, else None:
    under ``npjax.jit`` a traced mask's read is a masked value (``_compile._masked``); in
    lazy mode a read by one boolean mask is ``host_read(a, index)`` (NumPy's, on the host
    where it can: its length depends on the data, and a program taking it would compile
    once per length)."""
    ctx = _get()
    tr = ctx.trace
    if tr is not None:
        got = tr.mask_read(a, items, kinds, shape)
        if got is not None:
            return got
    if one_mask and ctx.policy.lazy:
        return host_read(a, index)
    return None


def read_element(a: Any, pos: tuple, reader: Kernel) -> Any:
    """The value of the element at positions ``pos`` (checked, not empty) of the device
    owner ``a``, read by ``reader`` (``(value, positions) -> 0-d value``): in lazy mode
    and under ``npjax.jit`` the value a store just put there, if one did (no read of the
    array's new value: see ``_lazy.stored_part``); under ``npjax.jit`` a part apart from the
    latest store is read from the value before it, and the read is noted
    (``a[s:s + 3]`` with ``s`` read here: ``_traced_index``)."""
    ctx = _get()
    tr = ctx.trace
    if tr is not None:
        src, stored = tr.read_source(a._value, ("element", tuple(pos)))
        if stored:
            return src
        if src is not a._value:
            got = reader(src, pos)
            note_read(got, src, pos)
            return got
    elif not ctx.policy.lazy:
        return reader.now((a._read(), pos))  # eager (``Kernel.__call__`` without its look)
    value = a._read_lazy()  # lazy mode: the element a pending store just put there
    part = stored_part(value, ("element", len(pos)), pos, (), a.dtype)
    if part is not None:
        return part
    got = reader(value, pos)
    if tr is not None:
        note_read(got, a._value, pos)
    return got


def recording() -> bool:
    """Whether kernels called now are recorded (lazy mode): an array then hands them its
    value pending, and its view reads are recorded too (``ndarray._read_lazy``)."""
    return _get().policy.lazy


def view_source(view: Any, root: Any, lens: tuple, dyns: tuple) -> tuple[Any, bool]:
    """Where the view ``view`` (``lens`` at positions ``dyns`` of its owner's traced value
    ``root``) reads from under ``npjax.jit``: (the part a store just put there, True), or
    (the value to read it from, False): ``root``, or the value before the latest store for a
    part apart from it (``_Trace.read_source``; ``view`` may be the view an in-place
    operator updates). Outside a trace: (``root``, False)."""
    tr = _get().trace
    if tr is None:
        return root, False
    return tr.read_source(root, ("view", lens, dyns), tr.updating is view)


def traced_value(value: Any) -> Any:
    """Under ``npjax.jit``: the traced value of the npjax array ``value`` (None for a
    concrete one); None outside a trace."""
    if _get().trace is None:
        return None
    v = value._read()
    return v if isinstance(v, _Tracer) else None


def device_check(bad: Any) -> None:
    """Under ``npjax.jit``: ``bad`` (traced boolean) is True where eager NumPy would have
    raised or warned; the call then runs again with eager NumPy semantics."""
    _get().trace.check(bad)


def traced_bounds(arr: Any, n: int, axis: int, min_max: Callable) -> bool:
    """The bounds check of the traced index array ``arr`` on an axis of length ``n``, under
    ``npjax.jit``: nothing where its entries are known to fit (``_Trace.bounds``), else a
    device-side check of its min and max (``min_max``) after the call. False (nothing
    done) outside a trace."""
    tr = _get().trace
    if tr is None:
        return False
    if n == 0:  # every entry is out of bounds: known without the values
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")
    known = tr.bounds.get(id(arr))
    if known is not None and known[0] is arr and -n <= known[1] and known[2] < n:
        return True
    lo, hi = min_max(arr)
    tr.check((lo < -n) | (hi >= n))  # npjax.jit: checked after the call
    return True


# --- writes -------------------------------------------------------------------------------


def write_advanced(a: Any, items: list, kinds: list, shape: tuple, value: Any) -> bool:
    """``a[index] = value`` (an advanced index) where the mode writes it its own way (True):
    under ``npjax.jit`` a masked value written back under its mask (``_compile._masked``)."""
    tr = _get().trace
    return tr is not None and tr.mask_store(a, items, kinds, shape, value)


def write_element(a: Any, pos: tuple, v: Any, writer: Callable) -> None:
    """Store ``v`` (cast) at positions ``pos`` of the device owner ``a`` by the kernel
    ``writer(len(pos), donate)`` (``(value, positions, v) -> new value``).

    The old buffer is donated only when eager and when this array made it and nothing else
    refers to it (the slot and getrefcount's own argument are the only two references);
    never in lazy mode (recorded calls hold their operands). Under ``npjax.jit`` the write
    is noted (the write-back, the error-state checks, the part stored: ``read_element``)."""
    ctx = _get()
    tr = ctx.trace
    if tr is not None:
        tr.note_write(a)
    lazy = ctx.policy.lazy
    if not lazy:
        a._read()  # a value left by lazy mode: computed now
    donate = not lazy and a._mine and sys.getrefcount(a._value) == 2
    before = a._value
    a._rebind(writer(len(pos), donate)(before, pos, v), True)
    if tr is not None:
        tr.note_stored(a, v, (_views.Box((1,) * len(pos)),), (pos,), before)
        part = jnp.asarray(v, v.dtype).reshape(()) if isinstance(v, jax.Array) and \
            v.dtype == a._value.dtype and v.size == 1 else None
        tr.note_part(before, a._value, ("element", tuple(pos)), part)


def refuse_host_write() -> None:
    """A write to an array in host memory: refused under ``npjax.jit`` (such an array is not
    one of the function's arguments)."""
    if _get().trace is not None:
        raise JitError("npjax.jit: the function writes to an array that is not one of its "
                       "arguments (captured from an enclosing scope); pass that array as an "
                       "argument")


def store(root: Any, lens: tuple, new: Any, updater: Callable) -> None:
    """Store ``new`` (cast, broadcastable) at ``lens`` of the device owner ``root`` by the
    kernel ``updater(lens, donate, sharding)`` (``(root, positions, new) -> new root``); a
    value that replaces the whole root is rebound as it is (sent, for a host one).

    Donation as ``write_element``; a root spread over several devices keeps its sharding
    (not under a trace, nor for a pending value). Under ``npjax.jit`` the write is noted."""
    ctx = _get()
    tr = ctx.trace
    if tr is not None:
        tr.note_write(root)
    lazy = ctx.policy.lazy
    old = root._read_lazy() if lazy else root._read()
    if not lens and getattr(new, "shape", None) == old.shape and new.dtype == old.dtype:
        root._rebind(new if isinstance(new, DEVICE_VALUES) else to_jax(new), False)
        return
    del old
    donate = not lazy and root._mine and sys.getrefcount(root._value) == 2
    keep = None if tr is not None else multi_device_sharding(root._value)
    dyns, before = _views.dynamic_args(lens), root._value
    root._rebind(updater(lens, donate, keep)(before, dyns, new), True)
    if tr is not None:
        tr.note_stored(root, new, lens, dyns, before)


def multi_device_sharding(value: Any) -> Any:
    """The sharding of a concrete value spread over several devices (a scatter's result
    keeps it; XLA would otherwise replicate it), else None."""
    if isinstance(value, _UNSHARDED):
        return None
    sharding = getattr(value, "sharding", None)
    return None if isinstance(sharding, SingleDeviceSharding) else sharding


# --- windows (``_window_reads``) --------------------------------------------------------


def windows_eligible() -> bool:
    """Whether the context runs device code eagerly or lazily, outside a trace, with no
    device or sharding asked for (where ``_window_reads`` reads windows at bucketed
    lengths)."""
    ctx = _get()
    policy = ctx.policy
    return ctx.trace is None and policy.device is None and policy.sharding is None


def numpy_reads_in_place() -> bool:
    """Whether NumPy may compute on device data it reads in place (``_buckets.in_host_memory``
    says which data): not under a trace, an x64 policy (NumPy's dtypes) on the default
    devices."""
    ctx = _get()
    policy = ctx.policy
    return ctx.trace is None and policy.x64 and policy.device is None and \
        policy.sharding is None


def as_input(kernel: Kernel, args: tuple, now: Callable) -> Any:
    """A small value a device program takes: in lazy mode ``kernel(*args)`` recorded (made
    by the pending program, or an input of it; a loop's graphs then repeat), else ``now()``
    (made or sent at once, cheaper than running a kernel)."""
    if _get().policy.lazy:
        return kernel(*args)
    return now()
