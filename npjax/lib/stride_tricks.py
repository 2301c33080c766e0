"""npjax's ``numpy.lib.stride_tricks``: ``sliding_window_view`` and ``as_strided`` as views.

Both results alias their input as in NumPy: reads see later writes to the input, and a
writeable result writes back into it. Several result positions can share one input element;
a write then stores, per input element, the value of the last position (C order) whose bits
changed (the rule of ``broadcast_arrays`` results). The layout (strides, flags) is NumPy's,
computed on an empty host array of the same layout.

Differences from NumPy: ``as_strided`` raises ``ValueError`` when the strides reach outside the
array's memory (NumPy reads whatever lies there) and ``NotImplementedError`` for strides that
are not multiples of the item size; ``subok`` is accepted and has no effect (npjax has no
subclasses).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core import _views
from npjax._calls._dispatch import ArrayKeep, npfunc
from npjax._core._ndarray import ndarray
from npjax._library._shape_ops import _same_bits

__all__ = ["as_strided", "sliding_window_view"]


def _aliased_set(step: _views.Step, x: jax.Array, dyn: tuple, new: jax.Array) -> jax.Array:
    """Write ``new`` (the whole view's value) back through a view whose positions may share
    elements of ``x``: the last changed position (C order) of each element wins."""
    ids = step.get(jnp.arange(x.size).reshape(x.shape), dyn).reshape(-1)
    new = new.astype(x.dtype).reshape(-1)
    changed = ~_same_bits(new, step.get(x, dyn).reshape(-1))
    order = jnp.where(changed, jnp.arange(ids.size), -1)
    last = jnp.full(x.size, -1, order.dtype).at[ids].max(order)
    picked = new[jnp.maximum(last, 0)] if new.size else jnp.zeros(x.size, x.dtype)
    return jnp.where(last >= 0, picked, x.reshape(-1)).reshape(x.shape)


class SlidingWindow(_views.Step):
    """``static`` = ((axis, window length), ...): each window axis appended at the end."""

    def get(self, x, dyn):
        for axis, size in self.static:
            starts = x.shape[axis] - size + 1
            if starts * size == 0:  # jnp.take mishandles an empty index array
                x = jnp.zeros((*x.shape[:axis], starts, *x.shape[axis + 1:], size), x.dtype)
                continue
            index = jnp.arange(starts)[:, None] + jnp.arange(size)[None, :]
            x = jnp.moveaxis(jnp.take(x, index, axis=axis), axis + 1, -1)
        return x

    def set(self, x, dyn, new):
        return _aliased_set(self, x, dyn, new)


class Gather(_views.Step):
    """Elements picked by flat index: ``static`` = view shape, ``dynamic`` = (indices,)."""

    def get(self, x, dyn):
        return x.reshape(-1)[dyn[0]]

    def set(self, x, dyn, new):
        return _aliased_set(self, x, dyn, new)


def _window_axes(window_shape: Any, axis: Any, ndim: int) -> tuple[tuple[int, int], ...]:
    window = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    if axis is None:
        axes: tuple[int, ...] = tuple(range(ndim))
    else:
        axes = np.lib.array_utils.normalize_axis_tuple(axis, ndim, allow_duplicate=True)
    return tuple((a, int(w)) for a, w in zip(axes, window))


@npfunc(module="numpy.lib.stride_tricks")
def sliding_window_view(x: ArrayKeep, window_shape: Any, axis: Any = None, *,
                        subok: bool = False, writeable: bool = False) -> ndarray:
    """npjax implementation of ``numpy.lib.stride_tricks.sliding_window_view``: a view of
    every window (read-only unless ``writeable=True``)."""
    # NumPy's own function on the layout checks the arguments and gives the strides.
    layout = np.lib.stride_tricks.sliding_window_view(
        x._layout_array(), window_shape, axis, writeable=writeable)
    step = SlidingWindow(_window_axes(window_shape, axis, x.ndim))
    return x._view((step,), layout, readonly=not writeable)


def _memory_index(root: np.ndarray) -> np.ndarray:
    """Per element of ``root``'s memory (in item units), its C-order index (-1: none)."""
    item = root.itemsize
    span = 1 + sum((n - 1) * abs(s) for n, s in zip(root.shape, root.strides)) // item
    where = np.full(span if root.size else 0, -1, np.int64)
    if root.size:
        offsets = sum(np.indices(root.shape, np.int64)[k] * (s // item)
                      for k, s in enumerate(root.strides))
        where[np.asarray(offsets).reshape(-1)] = np.arange(root.size)
    return where


@npfunc(module="numpy.lib.stride_tricks")
def as_strided(x: ArrayKeep, shape: Any = None, strides: Any = None, subok: bool = False,
               writeable: bool = True) -> ndarray:
    """npjax implementation of ``numpy.lib.stride_tricks.as_strided``: a view of the input's
    memory with the given shape and byte strides (writeable if the input is)."""
    src = x._layout_array()
    layout = np.lib.stride_tricks.as_strided(src, shape, strides, writeable=writeable)
    item = src.itemsize
    if any(s % item for s, n in zip(layout.strides, layout.shape) if n > 1):  # (an axis of
        # length 1 never steps: NumPy's relaxed strides give it any stride)
        raise NotImplementedError(
            "npjax.as_strided: strides that are not multiples of the item size")
    root = x if x._base is None else x._base
    root_layout = root._layout_array()
    memory = _memory_index(root_layout)
    start = (src.__array_interface__["data"][0]
             - root_layout.__array_interface__["data"][0]) // item
    offsets = np.full(layout.shape, start, np.int64)
    for k, s in enumerate(layout.strides):
        shape_k = [1] * layout.ndim
        shape_k[k] = layout.shape[k]
        offsets = offsets + np.arange(layout.shape[k]).reshape(shape_k) * (s // item)
    if offsets.size and (offsets.min() < 0 or offsets.max() >= memory.size
                         or (memory[offsets] < 0).any()):
        raise ValueError("npjax.as_strided: the strides reach outside the array's memory")
    index = jnp.asarray(memory[offsets] if offsets.size else offsets)
    step = Gather((layout.shape,), (index,))
    return root._view((step,), layout, readonly=not writeable or x._readonly)
