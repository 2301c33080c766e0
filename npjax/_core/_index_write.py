"""``a[index] = value`` with NumPy's rules, on immutable JAX values.

Writes go through one compiled, buffer-donating update kernel per lens *structure*
(``write_through``), so a loop ``for i in range(n): a[i] = v`` compiles once. A basic index
writes through the lens of the view it names; ``a[k] = a[k]`` (the store of ``a[k] += v``) is
skipped; a boolean mask over the leading axes with one value for every selected element is a
``where``; other advanced indices scatter with "last write wins" for repeated indices, as
NumPy does.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core import _buckets, _views
from npjax._runtime import _stats
from npjax._pure._axes import shape_text
from npjax._core._host_only import host_only
from npjax._core._index_kernels import _mask_place, _mask_scatter, _scatter_last
from npjax._core._index_plan import (_FULL, _advanced_shape, _advanced_unchecked, _as_tuple,
                                     _basic_plan, _bucketed_arrays, _check_bounds, _check_int,
                                     _expand, _int_positions)
from npjax._core._index_values import _complex_warning, _single_value, cast_device, convert_value
from npjax._core._executor import (Kernel, multi_device_sharding, numpy_reads_in_place,
                                   refuse_host_write, store, write_advanced, write_element)
from npjax._core._ndarray import HOST_STORAGE, ndarray
from npjax._core._normalize import to_jax
from npjax._core._views import settled


def _check_mask_value(index: Any, ndim: int, value: Any) -> None:
    """NumPy's full-mask assignment (the index is one boolean array of the array's ndim)
    takes a 0-d or 1-d value only (TypeError otherwise)."""
    items = _as_tuple(index)
    if len(items) != 1:
        return
    mask = items[0]
    if not isinstance(mask, ndarray | np.ndarray | jax.Array) or mask.dtype != np.bool_ \
            or mask.ndim != ndim:
        return
    try:
        value_ndim = value.ndim if isinstance(value, ndarray | np.ndarray | jax.Array) \
            else np.ndim(value)
    except ValueError:  # ragged: NumPy's own conversion error comes later
        return
    if value_ndim > 1:
        raise TypeError("NumPy boolean array indexing assignment requires a 0 or "
                        f"1-dimensional input, input has {value_ndim} dimensions")


def setitem(a: ndarray, index: Any, value: Any) -> None:
    if a._scalar:
        raise TypeError(f"'numpy.{a.dtype.type.__name__}' object does not support item "
                        "assignment")
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    if isinstance(value, ndarray) and host_only(value):  # (object, str...: NumPy casts it)
        value = value._host()
    shape = a.shape
    pos = _int_positions(index, shape)
    if pos is not None:
        _write_one(a, pos, value)
        return
    items, kinds, advanced, single = _expand(index, len(shape), shape)
    dtype = a.dtype
    if advanced:
        if write_advanced(a, items, kinds, shape, value):
            return  # npjax.jit: a masked value written back under its mask (_masked)
        if _mask_store(a, items, kinds, shape, value):
            return
        template, arrays, checks, empty, _ = _advanced_unchecked(items, kinds, shape)
        _check_mask_value(index, len(shape), value)
        target = _advanced_shape(template, shape, tuple(np.shape(x) for x in arrays))
        v = convert_value(value, dtype, target, advanced=True)  # NumPy: value errors first
        if empty:
            return
        bucketed = _bucketed_arrays(template, shape, arrays)
        if bucketed is not None:
            arrays, axis, length, size = bucketed
            v = _pad_value(v, target, axis, length, size)
        v = cast_device(v, dtype)
        _check_bounds(checks, shape)
        current = a._read()
        sharding = multi_device_sharding(current)
        if bucketed is None:
            new = _scatter_last(template, sharding)(current, arrays, v)
        else:  # one program per bucket of the index arrays' length
            new = _scatter_last(template, sharding, axis)(current, arrays, v, _INTP(length))
        write_through(a, (), new)
        return
    steps, host = _basic_plan(items, kinds, shape)
    if single:
        _write_one(a, tuple(_check_int(k, i, n) for i, (k, n) in enumerate(zip(items, shape))),
                   value)
        return
    if type(value) is ndarray and value._base is not None and _is_same_view(a, steps, value):
        return  # ``a[k] = a[k]``, the store of ``a[k] += v``: nothing changes
    target = a._layout_array()[host].shape
    write_through(a, steps, convert_value(value, dtype, target))


_INTP = np.intp


def _pad_value(v: Any, target: tuple, axis: int, length: int, size: int) -> Any:
    """The value of ``a[index] = v`` for index arrays padded from ``length`` to ``size``
    (the result's ``axis``): padded too where it has one entry per index there."""
    vshape = np.shape(v)
    at = axis + len(vshape) - len(target)
    if length != 1 and 0 <= at < len(vshape) and vshape[at] == length:
        return _buckets.pad(v, at, size)
    return v


def _is_same_view(a: ndarray, steps: tuple, value: ndarray) -> bool:
    """Whether ``value`` is a view of exactly the elements ``a`` seen through ``steps``."""
    root = a if a._base is None else a._base
    if value._base is not root:
        return False
    lens = _views.compose(a._full_lens() if a._base is not None else (), *steps)
    other = value._full_lens()  # steps compare by structure; positions are dynamic
    return other == lens and _views.dynamic_args(other) == _views.dynamic_args(lens)


def _mask_store(a: ndarray, items: list, kinds: list, shape: tuple, value: Any) -> bool:
    """``a[mask] = value`` where ``mask`` covers the leading axes (the rest are ``:``): one
    compiled program per shape, dtype and bucket, whatever the number of True elements (a
    scatter at the selected positions compiled once per count). Returns False for other
    indexes.

    A value that fits the unmasked axes (every selected element gets the same value) is a
    ``where`` of one program per shape. A value with one entry per True element is padded to
    the bucket of their count (``_buckets``) and placed by a running count of the mask
    (``_mask_place``): the count is read on the host, as NumPy's errors need it. NumPy's
    value conversion and errors are kept (a wrong number of values: its ValueError; a 2-d
    value for a mask over every axis: its TypeError); a mask whose shape does not match the
    array's leads to the general path (which raises NumPy's IndexError)."""
    mask = items[0]
    if kinds[0] != "array" or any(k != "slice" or it != _FULL for k, it in
                                  zip(kinds[1:], items[1:])):
        return False
    if not isinstance(mask, ndarray | np.ndarray | jax.Array) or mask.dtype != np.bool_:
        return False
    n = mask.ndim
    if n == 0 or tuple(mask.shape) != shape[:n]:
        return False
    rest = shape[n:]
    device_value = isinstance(value, ndarray | jax.Array)
    if not device_value:
        value = np.asarray(value, dtype=a.dtype)  # NumPy's conversion of fancy-assigned values
    vshape = tuple(value.shape)
    if not rest and len(vshape) > 1:
        raise TypeError("NumPy boolean array indexing assignment requires a 0 or "
                        f"1-dimensional input, input has {len(vshape)} dimensions")
    lead = 0  # NumPy drops leading 1s the target does not have
    while len(vshape) - lead > len(rest) and vshape[lead] == 1:
        lead += 1
    if device_value:
        _complex_warning(value.dtype, a.dtype)
    if len(vshape) - lead <= len(rest) and _broadcasts(vshape[lead:], rest):
        v = value  # (``_views.fit`` drops the leading 1s)
        if device_value:
            v = value._read_lazy() if isinstance(value, ndarray) else value
            v = cast_device(v, a.dtype)
        m = mask._read_lazy() if isinstance(mask, ndarray) else to_jax(mask)
        write_through(a, (), _mask_where(len(rest))(a._read_lazy(), m, v))
        return True
    # one value per True element
    m = mask._read() if isinstance(mask, ndarray) else mask
    count = _buckets.count_nonzero(m if isinstance(m, np.ndarray) else to_jax(m))
    if len(vshape) - lead != len(rest) + 1 or vshape[lead] != count or not _broadcasts(
            vshape[lead + 1:], rest):
        if not rest:
            raise ValueError(f"NumPy boolean array indexing assignment cannot assign "
                             f"{value.size} input values to the {count} output values where "
                             "the mask is true")
        raise ValueError(f"shape mismatch: value array of shape {shape_text(vshape)} could "
                         "not be broadcast to indexing result of shape "
                         f"{shape_text((count,) + rest)}")
    if count == 0:
        return True
    v = value._read() if isinstance(value, ndarray) else value
    size = _buckets.bucket(count, m.size)
    v = cast_device(_buckets.pad(v, lead, size), a.dtype)
    if isinstance(m, np.ndarray) or (numpy_reads_in_place() and
                                     _buckets.in_host_memory(m)):
        at = np.full(size, m.size, np.intp)  # positions found by NumPy (see _mask_scatter)
        at[:count] = np.flatnonzero(m if isinstance(m, np.ndarray) else _stats.fetch(m))
        store = Kernel(_mask_scatter(len(rest), lead))
        write_through(a, (), store(a._read_lazy(), to_jax(at), v))
        return True
    m = to_jax(m)
    write_through(a, (), Kernel(_mask_place(len(rest), lead))(a._read_lazy(), m, v))
    return True


def _broadcasts(vshape: tuple, target: tuple) -> bool:
    return len(vshape) <= len(target) and all(
        v in (1, t) for v, t in zip(vshape[::-1], target[::-1]))


@functools.lru_cache(maxsize=64)
def _mask_where(n_rest: int):
    def store(x, mask, v):
        keep = mask.reshape(mask.shape + (1,) * n_rest)
        return jnp.where(keep, _views.fit(v, x.shape[mask.ndim:], x.dtype), x)

    return Kernel(jax.jit(store))


@functools.lru_cache(maxsize=64)
def _owner_scalar_writer(ndim: int, donate: bool):
    ones = (1,) * ndim
    box = _views.Box(ones)

    def write(x, starts, v):
        return settled(box.set(x, starts, _views.fit(v, ones, x.dtype)))

    return Kernel(_views.Positional(write, donate_argnums=(0,) if donate else ()),
                  store=("element", ndim))


def _write_one(a: ndarray, pos: tuple, value: Any) -> None:
    """``a[pos] = value`` for one element (the hot path of element loops)."""
    v = cast_device(_single_value(value, a.dtype), a.dtype)
    if a._base is None and pos and type(a._value) is not HOST_STORAGE:
        write_element(a, pos, v, _owner_scalar_writer)
        return
    write_through(a, (_views.Box((1,) * len(pos), pos),) if pos else (), v)


@functools.lru_cache(maxsize=2048)
def _updater(lens: tuple, donate: bool, sharding: Any = None):
    """The update kernel of one lens structure; a root spread over several devices keeps its
    sharding (XLA would otherwise replicate the result of a scatter)."""
    def update(root, dyns, new):
        return settled(_views.apply_set(lens, root, dyns, new))

    return Kernel(_views.Positional(update, donate_argnums=(0,) if donate else (),
                                    out_shardings=sharding), store=("view", lens))


def write_through(a: ndarray, steps: tuple, new: Any) -> None:
    """Store ``new`` (broadcastable; a jax.Array or a host array) at ``a`` seen through
    ``steps``, updating the root."""
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    new = cast_device(new, a.dtype)
    root = a if a._base is None else a._base
    if type(root._value) is HOST_STORAGE:  # a host array: the new part computed, then stored
        refuse_host_write()
        target = a._host()
        value = _views.apply_set(steps, jax.device_put(target), _views.dynamic_args(steps),
                                 jnp.asarray(new))
        target[...] = _stats.fetch(value)
        return
    store(root, _views.compose(a._full_lens() if a._base is not None else (), *steps), new,
          _updater)
    if root._layout is not None and root._layout.shape != root._value.shape:
        root._layout = None
