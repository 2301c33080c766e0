"""Products and views that ``numpy.linalg`` shares with ``numpy``: ``multi_dot`` (NumPy's
chain order), ``diagonal``, ``trace``, ``cross``, ``outer``, ``matmul``, ``tensordot``,
``matrix_transpose`` and ``vecdot`` with the array API's argument rules. Those that are
``numpy`` functions with other defaults call the public namespace (``public_module``: as
``npjax`` holds them, host route included)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from npjax._library import _products
from npjax._core._ndarray import ndarray
from npjax._calls._registry import public_module
from npjax.linalg._rules import _arr, _check_2d, host_data_to_numpy


@host_data_to_numpy
def multi_dot(arrays: Any, *, out: Any = None) -> Any:
    """npjax implementation of numpy.linalg.multi_dot (NumPy's chain order)."""
    dot = _products.dot
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    arrays = [_arr(a) for a in arrays]
    ndim_first, ndim_last = arrays[0].ndim, arrays[-1].ndim
    if arrays[0].ndim == 1:
        arrays[0] = arrays[0][None, :]
    if arrays[-1].ndim == 1:
        arrays[-1] = arrays[-1][:, None]
    _check_2d(*arrays)
    if n == 3:
        A, B, C = arrays
        a0, a1b0 = A.shape
        b1c0, c1 = C.shape
        cost1 = a0 * b1c0 * (a1b0 + c1)
        cost2 = a1b0 * c1 * (a0 + b1c0)
        if cost1 < cost2:
            result = dot(dot(A, B), C, out=out)
        else:
            result = dot(A, dot(B, C), out=out)
    else:
        order = _chain_order([a.shape for a in arrays])
        result = _multi(arrays, order, 0, n - 1, out)
    if ndim_first == 1 and ndim_last == 1:
        return result[0, 0]
    if ndim_first == 1 or ndim_last == 1:
        return result.ravel()
    return result


def _chain_order(shapes: list) -> list:
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = [[0.0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = math.inf
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i][j]:
                    m[i][j] = q
                    s[i][j] = k
    return s


def _multi(arrays: list, order: list, i: int, j: int, out: Any = None) -> Any:
    if i == j:
        return arrays[i]
    return _products.dot(_multi(arrays, order, i, order[i][j]),
                         _multi(arrays, order, order[i][j] + 1, j), out=out)


@host_data_to_numpy
def diagonal(x: Any, /, *, offset: int = 0) -> ndarray:
    """npjax implementation of numpy.linalg.diagonal."""
    return public_module().diagonal(x, offset, axis1=-2, axis2=-1)


@host_data_to_numpy
def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """npjax implementation of numpy.linalg.trace."""
    return public_module().trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


@host_data_to_numpy
def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> ndarray:
    """npjax implementation of numpy.linalg.cross (3-vectors only)."""
    s1, s2 = np.shape(x1), np.shape(x2)
    if s1[axis] != 3 or s2[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {s1[axis]} and {s2[axis]} dimensional instead.")
    return _products.cross(x1, x2, axis=axis)


@host_data_to_numpy
def outer(x1: Any, x2: Any, /) -> ndarray:
    """npjax implementation of numpy.linalg.outer (1-d inputs only)."""
    n1, n2 = np.ndim(x1), np.ndim(x2)
    if n1 != 1 or n2 != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={n1!r} and x2.ndim={n2!r}.")
    return _products.outer(x1, x2)


@host_data_to_numpy
def matmul(x1: Any, x2: Any, /) -> Any:
    """npjax implementation of numpy.linalg.matmul."""
    return public_module().matmul(x1, x2)


@host_data_to_numpy
def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> ndarray:
    """npjax implementation of numpy.linalg.tensordot."""
    return _products.tensordot(x1, x2, axes=axes)


@host_data_to_numpy
def matrix_transpose(x: Any, /) -> ndarray:
    """npjax implementation of numpy.linalg.matrix_transpose."""
    return public_module().matrix_transpose(x)


@host_data_to_numpy
def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """npjax implementation of numpy.linalg.vecdot."""
    npjax = public_module()
    if axis != -1:
        x1 = npjax.moveaxis(x1, axis, -1)
        x2 = npjax.moveaxis(x2, axis, -1)
    return npjax.vecdot(x1, x2)
