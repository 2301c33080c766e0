"""Windows whose length changes, read and written at a bucketed length on the device path,
eager or lazy (issue 16).

A loop over ``x[:k]``, ``x[k:]``, ``A[k, :k]`` or ``y[:k][::-1]`` on a device array made
views of a new length on every iteration, and each length compiled its own programs (the
view read, then the product, reduction, ufunc or write that used it). Here a 1-D view of a
1-D or 2-D device array is a *window*: element ``i`` of it is element ``offset + stride * i``
of its root's flat value, for ``i < length`` (``window``, read from NumPy's layout of the
view). A window is read as a *padded* value: the root's elements at the window's positions,
``bucket(length)`` of them (the next power of two, at least ``FLOOR``), zeros after
``length``; one program per (root shape, dtype, stride, bucket) with the offset and length
passed as data (``padded``). Consumers take padded values:

- ufuncs of windows of one length, scalars and 0-d arrays: the ufunc's own call on the
  padded operands with ``where=`` the first ``length`` lanes (NumPy's dtypes, casts and
  floating-point checks, on those lanes only); the result is a view ``[:length]`` of a
  padded owner (``wrap``), itself a window; ``out=`` a window is written back by one
  scatter program per bucket (``store``), so ``y[:k] += a * y[:k][::-1]`` compiles per
  bucket;
- ``@``/``matmul``/``dot`` of two 1-D windows and ``w.sum()``: the padded values added with
  zeros (floating-point sums equal NumPy's up to the order of the additions);
- ``x[a:b] = w``: one scatter per bucket.

The first length seen for a (root shape, dtype, stride) is left to the exact path (a view
of one fixed size in a loop keeps its exact programs); later lengths take the buckets.
Anything else (exact values: printing, other functions) reads the view exactly, as before.

Lazy mode: the padded reads and scatters are ``Kernel``s with the offset and length as data
operands, recorded like any other kernel (a pending root is read without being computed),
so a loop's graph has one structure per bucket and compiles once per bucket. A 1-D host
array of the window's length beside a device window (``L[i, :i] @ x[:i]`` with ``x`` small,
on the host under ``placement="auto"``; a ufunc operand; the value of a write) is padded by
NumPy with zeros to the bucket and sent as a device value (``host_padded``; in lazy mode an
input of the program): the same padded values as a device window of it, so the same sums.
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._core import _index_write, _views
from npjax._core._index_values import cast_device
from npjax._pure._dtypes import is_device_dtype
from npjax._pure._impl.reductions import pairwise_upto
from npjax._core._executor import Kernel, Lazy, as_input, concrete_if_done, windows_eligible
from npjax._core._device_copies import _to_device
from npjax._core._ndarray import PADDED, ndarray

__all__ = ["FLOOR", "NO", "Win", "bucket", "host_padded", "mask", "one", "padded", "pair",
           "setitem", "store", "summed", "ufunc_call", "window", "wrap"]

_STEPS = (_views.Box, _views.Strided, _views.Reshape, _views.Transpose)
# (root shape, dtype, stride) -> the first length seen (left to the exact path)
_SEEN: dict[tuple, int] = {}


class Win(NamedTuple):
    """A window: ``root`` (the owner), its value, the flat ``offset`` and ``stride`` of the
    window's first element and step, and its ``length``."""
    root: ndarray
    value: Any  # a jax.Array, or in lazy mode possibly a pending ``Lazy``
    offset: int
    stride: int
    length: int


# Smallest bucket. A window's programs are a gather, the ufunc, product or sum, and a
# scatter: at 256 elements each runs in well under the ~10-40 us of one dispatch on the CPU,
# and a loop to n = 4096 compiles 5 buckets where 64 made 7.
FLOOR = 256


def bucket(length: int) -> int:
    """The padded length of a window of ``length`` elements."""
    return FLOOR if length <= FLOOR else 1 << (length - 1).bit_length()


def window(x: Any) -> Win | None:
    """``x`` as a window, or None (not a 1-D view of a concrete 1-D/2-D device array made of
    slices, ints, transposes; or a length first seen for its family: see the docstring)."""
    if type(x) is not ndarray:
        return None
    base = x._base
    if base is None or x._lens is None or not windows_eligible():
        return None
    value = concrete_if_done(base._value)  # lazy mode: possibly pending
    lay = x._layout
    if not (type(value) is Lazy or isinstance(value, jax.Array)) or \
            isinstance(value, jax.core.Tracer) or lay is None or lay.ndim != 1 or \
            not 1 <= value.ndim <= 2 or x._root_shape != value.shape:
        return None
    for step in x._lens:
        if type(step) not in _STEPS:
            return None
    rl = base._layout
    if rl is None or rl.dtype != lay.dtype or not rl.flags.c_contiguous:
        return None
    item = lay.itemsize
    delta = lay.__array_interface__["data"][0] - rl.__array_interface__["data"][0]
    length = lay.shape[0]
    stride = lay.strides[0] // item
    if delta % item or lay.strides[0] % item:
        return None
    offset = delta // item
    last = offset + stride * (length - 1)
    if length and not (0 <= offset < rl.size and 0 <= last < rl.size):
        return None
    if PADDED.get(id(base)) is not base and \
            _SEEN.setdefault((value.shape, value.dtype, stride), length) == length:
        return None
    return Win(base, value, offset, stride, length)


@functools.lru_cache(maxsize=512)
def _reader(shape: tuple, dtype: np.dtype, stride: int, size: int) -> Any:
    n = math.prod(shape)

    def read(root: jax.Array, offset: jax.Array, length: jax.Array) -> jax.Array:
        i = lax.iota(np.int32, size)
        got = root.reshape(n)[jnp.clip(offset + stride * i, 0, n - 1)]
        return jnp.where(i < length, got, jnp.zeros((), dtype))

    return Kernel(jax.jit(read))


@functools.lru_cache(maxsize=512)
def _writer(shape: tuple, dtype: np.dtype, stride: int, size: int) -> Any:
    n = math.prod(shape)

    def write(root: jax.Array, new: jax.Array, offset: jax.Array,
              length: jax.Array) -> jax.Array:
        i = lax.iota(np.int32, size)
        at = jnp.where(i < length, offset + stride * i, n)  # n: dropped
        return root.reshape(n).at[at].set(new.astype(dtype), mode="drop").reshape(shape)

    return Kernel(jax.jit(write))


def padded(w: Win, size: int) -> jax.Array:
    """The window's elements, zeros after its length, ``size`` of them."""
    v = w.value
    if w.offset == 0 and w.stride == 1 and v.shape == (size,) and \
            PADDED.get(id(w.root)) is w.root:
        return v
    return _reader(v.shape, v.dtype, w.stride, size)(v, np.int32(w.offset),
                                                      np.int32(w.length))


@functools.lru_cache(maxsize=256)
def _mask(size: int, length: int, device: Any) -> jax.Array:
    with jax.ensure_compile_time_eval():  # (an array, also when first asked while tracing)
        return jax.device_put(np.arange(size) < length, device)


@functools.lru_cache(maxsize=64)
def _mask_kernel(size: int) -> Kernel:
    return Kernel(jax.jit(lambda length: lax.iota(np.int32, size) < length))


def mask(size: int, length: int, like: jax.Array) -> Any:
    """True on the first ``length`` of ``size`` lanes, placed as ``like`` is (committed to
    its device or not: a committed operand makes programs compile again for that); in lazy
    mode a pending value the program computes."""
    # lazy mode: made by the program from the length (a loop's graphs then repeat, and roll;
    # sending one per length measured slower)
    return as_input(_mask_kernel(size), (np.int32(length),), lambda: _mask(
        size, length, next(iter(like.devices())) if like.committed else None))


def wrap(value: jax.Array, length: int) -> ndarray:
    """A padded value as the array of its first ``length`` elements (a view of an owner
    nothing else sees; zeros in its padding lanes)."""
    owner = ndarray._owner(value)
    PADDED[id(owner)] = owner
    layout = owner._layout_array()[:length]
    return owner._view((_views.Box((length,), (0,)),), layout)


def store(target: Win, view: ndarray, value: jax.Array) -> None:
    """Write the padded ``value`` (already of the target's dtype, cast by the caller) into
    the window ``target`` (``view``: its array)."""
    if view._readonly:
        raise ValueError("assignment destination is read-only")
    root = target.root
    old = root._read_lazy()
    new = _writer(old.shape, old.dtype, target.stride, value.shape[0])(
        old, value, np.int32(target.offset), np.int32(target.length))
    _index_write.write_through(root, (), new)


# --- consumers ---------------------------------------------------------------------------

NO = object()  # marker: not for windows, the caller goes on as before
_SCALARS = (int, float, complex, bool)


def _owner(value: jax.Array) -> ndarray:
    return ndarray._owner(value)


def ufunc_call(uf: Any, args: tuple, kwargs: dict) -> Any:
    """``uf(*args, **kwargs)`` through windows when its array operands (and ``out=``) are
    windows of one length (scalars, 0-d arrays and 1-D host arrays of that length beside
    them), else ``NO``."""
    if len(args) != uf.nin or uf.nout != 1:
        return NO
    out = None
    if kwargs:
        if kwargs.keys() != {"out"}:
            return NO
        out = kwargs["out"]
        if type(out) is tuple:
            if len(out) != 1:
                return NO
            out = out[0]
        if type(out) is not ndarray:
            return NO
    if uf.__name__ == "matmul":
        if out is not None:
            return NO
        ops = pair(*args)
        return NO if ops is None else uf._call(_owner(ops[0]), _owner(ops[1]))
    if uf.signature is not None:
        return NO
    wins: dict[int, Win | None] = {}
    hosts: dict[int, ndarray] = {}  # 1-D host arrays beside windows: padded by NumPy
    for a in args if out is None else (*args, out):  # every operand's length is recorded
        if type(a) is ndarray:
            if not is_device_dtype(a.dtype):  # (float64 on a TPU: NumPy computes it, where
                return NO  # its ``where=`` without ``out=`` would warn)
            if (a.ndim == 0 and a is not out) or id(a) in wins or id(a) in hosts:
                continue
            w = window(a)
            if w is None and a is not out and a.ndim == 1 and a._host() is not None:
                hosts[id(a)] = a
            else:
                wins[id(a)] = w
        elif not (type(a) in _SCALARS or isinstance(a, np.generic)) or (
                type(a) not in _SCALARS and not is_device_dtype(a.dtype)):
            return NO
    lengths = {None if w is None else w.length for w in wins.values()}
    if len(lengths) != 1 or None in lengths:
        return NO
    length = lengths.pop()
    size = bucket(length)
    values = {key: _owner(padded(w, size)) for key, w in wins.items() if w is not None}
    for key, a in hosts.items():
        got = host_padded(a, length, size)
        if got is None:
            return NO
        values[key] = _owner(got)
    ops = [values[id(a)] if id(a) in values else a for a in args]
    where = _owner(mask(size, length, next(iter(values.values()))._value))
    if out is None:
        return wrap(uf._call(*ops, where=where)._read_lazy(), length)
    target = values[id(out)]
    uf._call(*ops, out=target, where=where)
    store(wins[id(out)], out, target._read_lazy())  # type: ignore[arg-type]
    return out


_SEND = Kernel(jax.jit(lambda x: x))  # in lazy mode: a host value as a program input


def host_padded(x: Any, length: int, size: int, dtype: Any = None) -> Any:
    """A 1-D host array of ``length`` elements padded by NumPy with zeros to ``size`` (cast
    to ``dtype`` if given) and sent to the device (the operand a device window is paired
    with; in lazy mode a pending value), or None."""
    if type(x) is not ndarray:
        return None
    data = x._host()
    if data is None or data.shape != (length,):
        return None
    dtype = data.dtype if dtype is None else dtype
    if dtype.kind not in "biufc" or not is_device_dtype(dtype):
        return None
    buf = np.zeros(size, dtype)
    buf[:length] = data
    # lazy mode: an input of the program (no transfer of its own)
    return as_input(_SEND, (buf,), lambda: _to_device(buf, owned=True))


def pair(a: Any, b: Any) -> tuple | None:
    """Padded values of two windows of one length (a product's operands: the zeros after
    the length add nothing), or None. One of them may be a 1-D host array (``host_padded``)."""
    wa, wb = window(a), window(b)  # (both lengths recorded)
    if wa is None and wb is None:
        return None
    size = bucket((wa or wb).length)  # type: ignore[union-attr]
    if wa is None:
        pa = host_padded(a, wb.length, size)  # type: ignore[union-attr]
        return None if pa is None else (pa, padded(wb, size))  # type: ignore[arg-type]
    if wb is None:
        pb = host_padded(b, wa.length, size)
        return None if pb is None else (padded(wa, size), pb)
    if wb.length != wa.length:
        return None
    return padded(wa, size), padded(wb, size)


def one(a: Any) -> tuple | None:
    """The padded value of a window and its length (for sums: ``summed``), or None."""
    w = window(a)
    return None if w is None else (padded(w, bucket(w.length)), w.length)


# The longest bucket whose float sums are NumPy's pairwise sums of the window's length (the
# program gathers about four times the bucket: 0.1 ms and 0.25 s of compile at 4096 on a
# CPU, 1.4 ms and 3 s at 65536); longer windows keep XLA's sum of the padded value.
EXACT_SUM_MAX = 4096


@functools.lru_cache(maxsize=64)
def _pairwise_kernel(dtype: np.dtype) -> Kernel:
    comp = np.dtype(np.float32) if dtype == np.float16 else dtype

    def total(value: jax.Array, length: jax.Array) -> jax.Array:
        summed = pairwise_upto(value.astype(comp), length, comp.kind == "c")
        return (jnp.zeros((), comp) + summed).astype(dtype)  # NumPy starts from 0.0

    return Kernel(jax.jit(total))


def summed(out: Any, value: Any, length: int) -> Any:
    """``out``, the sum of a window's padded ``value`` (NumPy's dtype, checks and warnings),
    with a float sum computed in NumPy's pairwise order for the window's ``length``: the
    same value whatever bucket the window was read at (or the exact path, for the first
    length seen)."""
    if type(out) is not ndarray or out.dtype.kind not in "fc" or out.dtype != value.dtype or \
            value.shape[-1] > EXACT_SUM_MAX:
        return out
    return ndarray._owner(_pairwise_kernel(value.dtype)(value, np.int32(length)),
                          scalar=out._scalar)


def setitem(a: ndarray, view: Any, value: Any) -> bool:
    """``a[index] = value`` where ``view`` is ``a[index]``: True when both are windows of
    one length (or ``value`` a 1-D host array of that length) and the write is done (a
    window written into itself: nothing to do)."""
    tw = window(view)
    if tw is None:
        return False
    vw = window(value)
    if vw is None:  # a 1-D host array: padded by NumPy in the target's dtype
        dtype = view.dtype
        data = value._host() if type(value) is ndarray else None
        if data is None or not np.can_cast(data.dtype, dtype, "safe"):
            return False  # (NumPy's warnings of other casts: the exact path)
        got = host_padded(value, tw.length, bucket(tw.length), dtype)
        if got is None:
            return False
        store(tw, view, got)
        return True
    if vw.length != tw.length:
        return False
    if vw.root is tw.root and vw.offset == tw.offset and vw.stride == tw.stride:
        return True  # ``y[:k] = y[:k]``, the store of ``y[:k] += v``
    dtype = view.dtype
    if vw.value.dtype != dtype and (not np.can_cast(vw.value.dtype, dtype, "same_kind") or
                                    vw.value.dtype.kind == "c" and dtype.kind != "c"):
        return False  # NumPy's casts and warnings: the exact path
    new = padded(vw, bucket(vw.length))
    if new.dtype != dtype:
        new = cast_device(new, dtype)
    store(tw, view, new)
    return True
