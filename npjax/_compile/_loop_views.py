"""Carried views for rolled loops.

A loop name that each iteration rebinds to a view of an array the body made
(``x = np.linalg.solve(L, z.T).T``) is carried as that array's value. Each traced iteration
starts with a view of it made as the previous iteration's was: the same lens from the same
kind of root, and the same NumPy layout (shape, strides, offset), so strides, flags and
every read the body makes are those of the unrolled loop. The first iteration, where the
name may hold something else (the function's argument), runs unrolled first (``_Peel``).

Exact only where nothing but that name can reach the new array: the body's Python side
effects are refused by the probe (``_loops``), so what outlives an iteration is what its
names hold, and the name must be the only one that holds the array or a view of it.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import ndarray


def internal(v: Any, inner: Any) -> bool:
    """Whether ``v`` is a view (with a lens) of an array the body made, traced by
    ``inner``, the loop body's trace."""
    if type(v) is not ndarray or v._base is None or v._lens is None:
        return False
    root = v._base
    value = root._value
    return root._base is None and not root._scalar and root._layout is not None and \
        isinstance(value, jax.core.Tracer) and value._trace is inner


def _structure(v: ndarray) -> tuple | None:
    """What a view made anew must repeat (None: a view this module does not carry)."""
    root = v._base
    layout, root_layout = v._layout, root._layout
    if root_layout is None or layout is None or layout.base is not root_layout or \
            np.empty_like(root_layout).strides != root_layout.strides:
        return None
    dynamic = tuple(d for step in v._lens for d in step.dynamic)
    if not all(type(d) is int for d in dynamic):
        return None
    offset = layout.__array_interface__["data"][0] - \
        root_layout.__array_interface__["data"][0]
    return (tuple((type(s), s.static) for s in v._lens), dynamic, v._root_shape,
            root._value.shape, root._value.dtype, root._readonly, root_layout.strides,
            layout.shape, layout.strides, offset, v._readonly)


def carryable(v0: Any, v1: ndarray, outs: tuple, written: dict) -> bool:
    """Whether the name that held ``v0`` when the body started and holds ``v1`` (an
    ``internal`` view) after it can be carried: ``v0`` a view of the same structure, of a
    root the body does not write, and ``v1``'s root reachable from no other name."""
    if type(v0) is not ndarray or v0._base is None or v0._lens is None or \
            id(v0._base) in written:
        return False
    s0 = _structure(v0)
    if s0 is None or s0 != _structure(v1):
        return False
    root = v1._base
    holders = sum(1 for o in outs if type(o) is ndarray and (o is root or o._base is root))
    return holders == 1 and sum(1 for o in outs if o is v1) == 1


def value(v: ndarray) -> Any:
    """The value a carried view's name carries: its root's."""
    return v._base._read()


def remade(v0: ndarray, new: Any) -> ndarray:
    """A view of a new root holding ``new``, made as ``v0`` was made from its root."""
    old_root = v0._base
    root = ndarray._owner(new)
    root._readonly = old_root._readonly
    root._layout = np.empty_like(old_root._layout)
    layout = v0._layout
    offset = layout.__array_interface__["data"][0] - \
        old_root._layout.__array_interface__["data"][0]
    return root._view(v0._lens, np.ndarray(layout.shape, layout.dtype, buffer=root._layout,
                                           offset=offset, strides=layout.strides),
                      v0._readonly)
