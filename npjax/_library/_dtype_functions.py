"""Questions about dtypes that accept npjax arrays: result_type, can_cast, min_scalar_type,
isscalar. An npjax array answers with its dtype, as a NumPy array or NumPy scalar would (NEP 50);
nothing runs on the device."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import ndarray
from npjax._placement._route import hand_written
from npjax._pure._declared import QUESTION

__all__ = ["can_cast", "isscalar", "min_scalar_type", "result_type"]


def _dtype_of(x: Any) -> Any:
    return x.dtype if isinstance(x, ndarray | jax.Array) else x


@hand_written(QUESTION)
def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """npjax implementation of ``numpy.result_type`` (NumPy's rules; arrays give their dtype)."""
    return np.result_type(*[_dtype_of(x) for x in arrays_and_dtypes])


@hand_written(QUESTION)
def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """npjax implementation of ``numpy.can_cast`` (an npjax array stands for its dtype)."""
    return np.can_cast(_dtype_of(from_), to, casting)


@hand_written(QUESTION)
def min_scalar_type(a: Any, /) -> np.dtype:
    """npjax implementation of ``numpy.min_scalar_type``: value-based for 0-d input (one read of
    that element), the dtype itself for arrays with dimensions."""
    if isinstance(a, ndarray):
        return a.dtype if a.ndim else np.min_scalar_type(a._fetch())
    return np.min_scalar_type(a)


@hand_written(QUESTION)
def isscalar(element: Any) -> bool:
    """npjax implementation of ``numpy.isscalar``: npjax scalars (what NumPy returns as
    ``numpy.float64`` and friends) count, 0-d arrays do not."""
    if isinstance(element, ndarray):
        return element._scalar
    return np.isscalar(element)
