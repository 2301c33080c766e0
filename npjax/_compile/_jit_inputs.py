"""npjax.jit's view of one call's arguments: the cache key of each (its kind, shape, dtype,
flags and layout, or a static value's key) and the distinct arrays it holds (``Inputs``);
and how their values reach the program (``send``, ``unpin``).

Host memory without a copy (issue 35, item 6). XLA's CPU backend reads a NumPy buffer in
place when its address is a multiple of 64 (``ALIGN``): ``jax.jit`` given such an array
makes no copy (a 242 MB matrix took 200-290 ms a call to copy; in place, nothing). NumPy's
own allocator puts large blocks at 16 mod 64; npjax's memory handler (``_core/_aligned.c``,
installed at import with ``NPJAX_ALIGNED_MEMORY=1``) puts blocks of 1 KB or more at a
multiple of 64, so fresh arrays, ones a NumPy view shares and the caller's NumPy arrays are
read in place on every call. Where it is not (off, not built, memory made before import or
in another thread), a host array of ``REALIGN_BYTES`` or more that npjax alone holds (no
NumPy view, no ``np.asarray`` of it alive: its reference count tells) moves once, at its
first call, into a 64-aligned buffer; later calls read it in place. A program
that reads memory in place is waited for before the call returns (nothing may write that
memory while it runs: XLA's CPU backend runs asynchronously), and an output that is an
input's buffer itself (JAX forwards an unchanged input) is copied, so no result ever shares
NumPy's memory. Smaller host data goes as a private copy where XLA would read it in place
(no wait for it; data up to ``COPY_BYTES`` always: cheaper than reading its address).
Writes go back into NumPy's memory as before, only for the arguments the function wrote (a
program never writes its inputs); the pre-existing race (a program still reading aligned
NumPy memory when the call returned, with no device check to wait for) is gone.

Hot arguments on an accelerator: a host array is sent through ``_device_copies._sent``,
which keeps its device copy while its bytes stay the same (a snapshot compare; NumPy code may
write the memory directly, so no version number can tell), so an unchanged argument is not
sent again (up to ``_device_copies.SEND_ONCE_BYTES``; larger ones are sent each call).
``RESIDENT`` forces that path on the CPU backend (tests). Host writes do not bump an
array's ``_version`` (NumPy writes the memory), so the version cannot tell.
"""

from __future__ import annotations

import sys
from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import ndarray
from npjax._pure._dtypes import is_device_dtype
from npjax._runtime import _stats

ALIGN = 64  # XLA's CPU backend reads host memory in place at this alignment
REALIGN_BYTES = 1 << 16  # host arrays this large move once into aligned memory
COPY_BYTES = 1 << 14  # smaller host data goes as a private copy (cheaper than its address)
RESIDENT: bool | None = None  # None: on every backend but the CPU; True/False: forced
_backend: list[str] = []  # (the default backend's platform, read once)

STATIC_SCALARS = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis))


class Unhashable(TypeError):
    """An argument that is neither an array nor hashable (so it cannot be static)."""


class HostView(Exception):
    """An argument is a view NumPy made of a host array (no lens to trace it through)."""


def static_key(x: Any) -> Any:
    """A hashable key for a static value that tells apart 1, 1.0, True, -0.0 and nan."""
    t = type(x)
    if t is float or t is complex or isinstance(x, np.generic):
        return (t, repr(x))
    if t in STATIC_SCALARS:
        return (t, x)
    try:
        hash(x)
    except TypeError:
        raise Unhashable(f"an argument of type {t.__name__} is neither an array nor "
                          "hashable, so it cannot be static") from None
    return (t, x)


def layout_key(layout: np.ndarray | None) -> Any:
    """The part of an owner's layout that can change the traced code (None: C order)."""
    if layout is None or layout.flags.c_contiguous:
        return None
    return layout.strides


class Inputs:
    """Inputs of one call: distinct roots (by identity), lens positions and the key."""

    __slots__ = ("containers", "dyns", "objs", "root_ids", "roots")

    def __init__(self) -> None:
        self.roots: list[Any] = []  # ndarray root owners, np.ndarray, jax.Array
        self.root_ids: dict[int, int] = {}
        self.dyns: list[int] = []
        self.objs: list[Any] = []  # every array argument, in walk order
        # every list and dict among the arguments, in walk order (the function may change
        # their items: ``_jit`` writes them back)
        self.containers: list[Any] = []

    def root(self, obj: Any) -> int:
        k = self.root_ids.get(id(obj))
        if k is None:
            k = self.root_ids[id(obj)] = len(self.roots)
            self.roots.append(obj)
        return k

    def owner(self, x: ndarray) -> tuple:
        """The spec of an owner: its root index, shape, dtype, flags and layout."""
        v = x._value
        return ("A", self.root(x), v.shape, v.dtype, x._scalar, x._readonly,
                layout_key(x._layout))

    def walk_args(self, args: tuple, static: frozenset) -> tuple:
        """The specs of the positional arguments: ``walk`` of each (``static``: the static
        positions), with owners and scalars, the common case, handled inline."""
        specs = []
        for i, x in enumerate(args):
            t = type(x)
            if static and i in static:
                specs.append(("S", static_key(x)))
            elif t is ndarray and x._base is None and x._lens is not None:
                self.objs.append(x)
                specs.append(self.owner(x))
            elif t is float or t is int or t is bool or t is complex:
                specs.append(("S", static_key(x)))
            else:
                specs.append(self.walk(x))
        return tuple(specs)

    def walk(self, x: Any) -> Any:
        t = type(x)
        if t is ndarray or isinstance(x, ndarray):
            if t is not ndarray:  # the trace computes with plain arrays: no subclass results
                raise NotImplementedError(
                    f"npjax.jit: an argument is an instance of the ndarray subclass "
                    f"{t.__name__}; pass x.view(npjax.ndarray) (the same memory)")
            self.objs.append(x)
            base = x._base
            if x._lens is None:
                raise HostView  # a view NumPy made of a host array: the call runs eagerly
            if base is None:
                return self.owner(x)
            k = self.root(base)
            steps = []
            for step in x._lens:
                steps.append((step, len(step.dynamic)))
                self.dyns.extend(step.dynamic)
            vl = x._layout
            return ("V", k, base._value.shape, base._value.dtype, base._scalar,
                    base._readonly, layout_key(base._layout), tuple(steps),
                    x._root_shape, vl.shape, vl.strides, x._readonly)
        if t is tuple:
            return (t, tuple(self.walk(v) for v in x))
        if t is list:
            self.containers.append(x)
            return (t, tuple(self.walk(v) for v in x))
        if t is dict:
            self.containers.append(x)
            return (dict, tuple((k, self.walk(x[k])) for k in x))
        if isinstance(x, jax.Array):
            self.objs.append(x)
            return ("J", self.root(x), x.shape, x.dtype, x.weak_type)
        if t is np.ndarray:
            self.objs.append(x)
            if not jax.dtypes.issubdtype(x.dtype, np.number) and x.dtype != np.bool_:
                raise Unhashable(f"a host array of dtype {x.dtype} cannot be traced")
            return ("H", self.root(x), x.shape, x.dtype, x.flags.writeable)
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return (t, tuple(self.walk(v) for v in x))
        return ("S", static_key(x))


def _platform() -> str:
    if not _backend:
        _backend.append(jax.default_backend())
    return _backend[0]


def _resident() -> bool:
    return RESIDENT if RESIDENT is not None else _platform() != "cpu"


def _address(data: np.ndarray) -> int:
    return data.__array_interface__["data"][0]  # (faster than ``data.ctypes.data``)


def aligned(data: np.ndarray) -> bool:
    """Whether XLA's CPU backend reads ``data`` in place (C order, 64-aligned)."""
    return _address(data) % ALIGN == 0 and data.flags.c_contiguous


def aligned_copy(data: np.ndarray) -> np.ndarray:
    """A C-order copy of ``data`` in 64-aligned memory (its base: the byte buffer)."""
    buf = np.empty(data.nbytes + ALIGN, np.uint8)
    at = (-_address(buf)) % ALIGN
    new = buf[at:at + data.nbytes].view(data.dtype).reshape(data.shape)
    new[...] = data
    return new


def sole_buffer(v: np.ndarray) -> bool:
    """Whether ``v``'s base is a buffer of ``aligned_copy`` that only ``v`` holds."""
    b = v.base
    return type(b) is np.ndarray and b.dtype == np.uint8 and b.ndim == 1 and \
        b.base is None and sys.getrefcount(b) <= 3  # (v.base, ``b``, the argument)


def _realign(r: ndarray, data: np.ndarray) -> np.ndarray | None:
    """Move a host root's data into aligned memory where nothing but ``r`` can reach it:
    its value and layout are the data itself, and no NumPy view or other name holds it."""
    if data.nbytes < REALIGN_BYTES or r._layout is not data or data.base is not None or \
            not data.flags.c_contiguous or not data.flags.writeable or r._scalar:
        return None
    # held by r._value, r._layout, ``data`` in ``send``, ``_host_value`` and here, and
    # getrefcount's argument
    if sys.getrefcount(data) > 6:
        return None
    new = aligned_copy(data)
    _stats.record_transfer("host_to_device", data.nbytes)  # (once: later calls send nothing)
    r._rebind(new, bump=False)  # the same values, moved
    r._layout = new
    return new


def _host_value(data: np.ndarray, r: ndarray | None) -> tuple[Any, int, int]:
    """(the value of host data for the program, the address it reads in place or 0, the
    bytes copied). Small data that XLA would read in place goes as a private copy (nothing
    to wait for); large data of a host array ``r`` moves into aligned memory once."""
    if data.nbytes <= COPY_BYTES:
        return data.copy(), 0, data.nbytes
    at = _address(data)
    if at % ALIGN or not data.flags.c_contiguous:
        new = None if r is None else _realign(r, data)
        if new is None:
            return data, 0, data.nbytes  # (JAX copies it)
        return new, _address(new), 0
    if data.nbytes < REALIGN_BYTES:
        return data.copy(), 0, data.nbytes
    return data, at, 0


def send(roots: list) -> tuple[list, list[int]]:
    """The values of the roots for the program, and the addresses of host memory it will
    read in place (``unpin`` after the call)."""
    direct = jax.config.jax_enable_x64  # (else jnp's dtype rules: a device copy)
    resident = _resident()
    vals: list = []
    pinned: list[int] = []
    sent = nbytes = 0
    for r in roots:
        if type(r) is ndarray or isinstance(r, ndarray):
            data = r._host() if direct and r._base is None else None
            if data is None:
                vals.append(r._read())
                continue
            if resident and is_device_dtype(data.dtype):
                vals.append(r._read())  # kept on the device while its bytes are the same
                continue
            # (a dtype the accelerator cannot hold: the program runs on the CPU backend)
            val, at, copied = _host_value(data, r)
        elif isinstance(r, np.ndarray):
            if not direct:
                vals.append(jax.numpy.asarray(r))
                continue
            if resident and _platform() != "cpu" and is_device_dtype(r.dtype):
                val, at, copied = r, 0, r.nbytes
            else:  # (the caller's memory: read in place only where it is large)
                val, at, copied = _host_value(r, None)
        else:
            vals.append(r)
            continue
        vals.append(val)
        if at:
            pinned.append(at)
        if copied:
            sent += 1
            nbytes += copied
    if sent:
        _stats.record_transfer("host_to_device", nbytes, sent)
    return vals, pinned


def _own(v: Any, pinned: set) -> Any:
    if isinstance(v, jax.Array) and v.size and v.unsafe_buffer_pointer() in pinned:
        return jax.device_put(np.array(v))  # (an input forwarded: NumPy's memory)
    return v


def unpin(pinned: list[int], outs: list, written: list, flags: Any) -> tuple[list, list]:
    """After a program that read host memory in place: wait until it has run (the memory
    may be written once the call returns), and copy any output that is that memory."""
    jax.block_until_ready((outs, written, flags))
    at = set(pinned)
    return [_own(v, at) for v in outs], [_own(v, at) for v in written]


def write_back(data: np.ndarray, new: jax.Array) -> None:
    """Store a program's new value of a host root into its NumPy memory (a counted copy:
    only roots the function wrote come here)."""
    _stats.record_transfer("device_to_host", data.nbytes)
    data[...] = np.asarray(new)
