"""The views NumPy's ``einsum`` gives: one operand with nothing summed (``einsum('ji', a)``,
``einsum('ii->i', a)``, ``einsum('...', a)``) is a writeable view of it (a transpose, a
diagonal), whatever ``dtype=`` asks. NumPy decides, on the operand's layout; a device operand
gets a lens that reads and writes the elements NumPy's view walks."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._core import _views
from npjax._core._ndarray import ndarray


class EinsumAxes(_views.Step):
    """``static`` = (view shape, for each axis of the array the view axis that walks it, or
    -1 for an axis of length 1): repeated view axes take diagonals."""

    def _index(self) -> tuple:
        shape, walks = self.static
        return tuple(jnp.zeros(shape, jnp.int32) if k < 0 else
                     lax.broadcasted_iota(jnp.int32, shape, k) for k in walks)

    def get(self, x, dyn):
        return x[self._index()]

    def set(self, x, dyn, new):
        return x.at[self._index()].set(new.astype(x.dtype))


def einsum_view(subscripts: str, a: Any, kwargs: dict) -> ndarray | None:
    """NumPy's view ``einsum(subscripts, a, **kwargs)`` of a device array ``a``, or None
    where NumPy computes a new array."""
    if not isinstance(a, ndarray) or a._host() is not None or a.size == 0:
        return None
    layout = a._layout_array()
    made = np.einsum(subscripts, layout, **kwargs)
    if not isinstance(made, np.ndarray) or not np.shares_memory(made, layout):
        return None
    walks = []
    for axis, n in enumerate(a.shape):
        probe = np.broadcast_to(np.arange(n).reshape([-1 if i == axis else 1
                                                       for i in range(a.ndim)]), a.shape)
        moved = [k for k, s in enumerate(np.einsum(subscripts, probe, **kwargs).strides) if s]
        walks.append(moved[0] if moved else -1)
    if sorted(walks) == list(range(made.ndim)):  # every axis once: a transpose
        perm = tuple(walks.index(k) for k in range(made.ndim))
        step = _views.Transpose(perm)
    else:
        step = EinsumAxes((made.shape, tuple(walks)))
    return a._view((step,), made)
