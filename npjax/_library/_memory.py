"""Memory questions answered as NumPy would: shares_memory, may_share_memory.

Two npjax arrays can only overlap when they are views of the same root owner. Each array
carries a host layout array made by applying NumPy's own view operations to its root's layout
(``ndarray._layout_array``), so NumPy's answer on those layouts is the answer NumPy would give
for the same arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from npjax._core._ndarray import ndarray
from npjax._placement._route import hand_written
from npjax._pure._declared import QUESTION

__all__ = ["shares_memory", "may_share_memory"]


def _layouts(a: Any, b: Any) -> tuple[Any, Any] | None:
    """The pair of host arrays to ask NumPy about, or None when the answer is "no"."""
    a_ours, b_ours = isinstance(a, ndarray), isinstance(b, ndarray)
    if not (a_ours or b_ours):
        return a, b
    if not (a_ours and b_ours):
        return None  # npjax data never lives in a NumPy array's memory
    root_a = a if a._base is None else a._base
    root_b = b if b._base is None else b._base
    if root_a is not root_b:
        return None
    return a._layout_array(), b._layout_array()


@hand_written(QUESTION)
def shares_memory(a: Any, b: Any, max_work: int | None = None) -> bool:
    """npjax implementation of ``numpy.shares_memory``.

    Differences from NumPy: none for npjax arrays (views of one root are compared by their
    NumPy layouts); an npjax array never shares memory with a non-npjax object.
    """
    pair = _layouts(a, b)
    if pair is None:
        return False
    return bool(np.shares_memory(pair[0], pair[1], max_work=max_work))


@hand_written(QUESTION)
def may_share_memory(a: Any, b: Any, max_work: int | None = None) -> bool:
    """npjax implementation of ``numpy.may_share_memory`` (same rules as ``shares_memory``)."""
    pair = _layouts(a, b)
    if pair is None:
        return False
    return bool(np.may_share_memory(pair[0], pair[1], max_work=max_work))
