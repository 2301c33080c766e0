"""``a[index]``: an element, a view (basic index) or a copy (advanced index).

An integer position reads one element through one compiled kernel per number of axes, so
``a[i]`` read in a loop compiles once; a basic index is a view (``ndarray._view`` with the
plan's lens steps); an advanced index gathers (a boolean mask at a bucketed length,
``_buckets``). Under ``npjax.jit`` a traced mask's read is a masked value (``_masked``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from npjax._core import _buckets, _views
from npjax._core._index_kernels import _gather, _gather_checked, _gather_masked
from npjax._core._index_plan import (_advanced_shape, _advanced_unchecked, _basic_plan,
                                     _bucketed_arrays, _device_checks, _raise_out_of_bounds,
                                     _check_bounds, _check_int, _expand, _int_positions, _one_mask)
from npjax._core._executor import Kernel, numpy_reads_in_place, read_advanced, read_element
from npjax._core._ndarray import ndarray
from npjax._core._numpy_in_place import from_numpy, host_views


@functools.lru_cache(maxsize=64)
def _owner_scalar_reader(ndim: int):
    box = _views.Box((1,) * ndim)

    def read(x, starts):
        return box.get(x, starts).reshape(())

    return Kernel(_views.Positional(read))


def getitem(a: ndarray, index: Any) -> ndarray:
    shape = a.shape
    pos = _int_positions(index, shape)
    if pos is not None:
        return _read_one(a, pos)
    items, kinds, advanced, single = _expand(index, len(shape), shape)
    if advanced:
        one = _one_mask(items, kinds)
        got = read_advanced(a, index, items, kinds, shape, one, _mask_read_on_host)
        if got is not None:  # (a traced mask's masked value; a mask read by NumPy)
            return got
        template, arrays, checks, empty, masked = _advanced_unchecked(items, kinds, shape, one)
        if empty:  # nothing selected: NumPy checks no bounds
            target = _advanced_shape(template, shape, tuple(np.shape(x) for x in arrays))
            return ndarray._owner(_buckets.zeros(target, a.dtype))
        if masked is None:
            bucketed = _bucketed_arrays(template, shape, arrays)
            slots = None if bucketed else _device_checks(checks, shape, arrays)
            if slots is not None:  # the bounds computed by the gather's own program
                got, bounds = _gather_checked(template, slots)(a._read(), arrays)
                _raise_out_of_bounds(checks, shape, arrays, slots, bounds)
                return ndarray._owner(got)
            _check_bounds(checks, shape)
            if bucketed is None:
                return ndarray._owner(_gather(template)(a._read(), arrays))
            padded, axis, length, _ = bucketed  # one program per bucket of their length
            return ndarray._owner(_buckets.cut(_gather(template)(a._read(), padded), axis,
                                               length))
        _check_bounds(checks, shape)
        count, mask, slots = masked
        # the result's axis of the mask's elements: where a longer mask makes it longer
        longer = [np.shape(x) for x in arrays]
        for s in slots:
            longer[s] = (count + 1,)
        axis = next(i for i, (m, n) in enumerate(zip(
            _advanced_shape(template, shape, tuple(np.shape(x) for x in arrays)),
            _advanced_shape(template, shape, tuple(longer)))) if m != n)
        others = [None if i in slots else x for i, x in enumerate(arrays)]
        got, _ = _buckets.run(_gather_masked(template, slots, mask.shape), mask, a._read(),
                              others, axes=axis, count=count)
        return ndarray._owner(got[0])
    steps, host = _basic_plan(items, kinds, shape)
    if single:
        return _read_one(a, tuple(_check_int(k, i, n) for i, (k, n) in
                                  enumerate(zip(items, shape))))
    return a._view(steps, a._layout_array()[host])



def _mask_read_on_host(a: ndarray, index: Any) -> ndarray | None:
    """``a[mask]`` in lazy mode (``read_advanced``) where the array and the mask are in host
    memory (the CPU backend): NumPy's own read, kept on the host whatever its size where the
    placement allows host arrays (None: not so).

    Its length depends on the data: a device program taking it compiles once per length
    (``z[z > 0].mean()`` in a loop compiled a program at every trip). NumPy computes it and
    what is made from it on the host instead, without the bucketed gather's program.
    """
    if not numpy_reads_in_place():
        return None
    views = host_views((a, *index) if type(index) is tuple else (a, index))
    if views is None:
        return None
    data = views[0]
    return from_numpy(data[tuple(views[1:]) if type(index) is tuple else views[1]], True)


def _read_one(a: ndarray, pos: tuple) -> ndarray:
    """The element at checked positions ``pos``, as a NumPy-style scalar."""
    if a._base is None:
        if not pos:
            return ndarray._owner(a._read_lazy(), True)
        return ndarray._owner(read_element(a, pos, _owner_scalar_reader(len(pos))), True)
    if not pos:
        return ndarray._owner(a._read_lazy(), True)
    ones = (1,) * len(pos)
    lens = _views.compose(a._full_lens(), _views.Box(ones, pos),
                          _views.Reshape((ones, (), "C")))
    return ndarray._owner(Kernel(_views.getter(lens))(a._base._read_lazy(),
                                                      _views.dynamic_args(lens)), True)
