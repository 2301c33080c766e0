"""Counting and binning: ``bincount`` and ``digitize`` (binary search in
``npjax/_pure/_impl/sorting.py``)."""

from __future__ import annotations

import operator
import warnings
from typing import Any

import jax.numpy as jnp
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._pure import _dtypes, _scatter_add
from npjax._pure._impl.sorting import _bsearch
from npjax._calls._dispatch import npfunc
from npjax._core._ndarray import ndarray
from npjax._library._selection import _jx, _min_max

__all__ = ["bincount", "digitize"]

_INTP = np.dtype(np.intp)
_F64 = np.dtype(np.float64)


def bincount(x: Any, weights: Any = None, minlength: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.bincount``."""
    if weights is not None:  # (a float64 result: on a TPU, NumPy's bincount on the host)
        _dtypes.device_only(_F64)
    xv = _jx(x)
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if xv.ndim != 1:
        raise ValueError("object too deep for desired array" if xv.ndim > 1 else
                         "object of too small depth for desired array")
    if xv.dtype.kind == "c":
        raise TypeError("Cannot cast array data from dtype('complex128') to dtype('int64') "
                        "according to the rule 'safe'")
    if xv.dtype.kind == "f" and xv.size:
        warnings.warn("Non-integer input passed to bincount. In a future version of NumPy, "
                      "this will be an error. (Deprecated NumPy 2.1)", DeprecationWarning,
                      stacklevel=_stacklevel())
    xi = xv.astype(_INTP)
    if xi.size == 0:  # NumPy returns before looking at the weights
        return ndarray._owner(jnp.zeros(minlength, _INTP))
    length = minlength
    if xi.size:
        lo, hi = (int(t) for t in _min_max(xi))
        if lo < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = builtins_max(hi + 1, minlength)
    if weights is None:
        return ndarray._owner(_scatter_add.add_at(jnp.zeros(length, _INTP), xi, 1))
    w = _jx(weights)
    if w.dtype.kind == "c":
        raise TypeError("float() argument must be a string or a real number, not 'complex'")
    if w.shape != xi.shape:
        raise ValueError("The weights and list don't have the same length.")
    return ndarray._owner(jnp.zeros(length, _F64).at[xi].add(w.astype(_F64)))


builtins_max = max
_bincount = bincount  # the raw body, named as NumPy's (histogramdd calls it: one door)
bincount = npfunc(_bincount)


def _monotonicity(bins: np.ndarray) -> int:
    a = bins.astype(np.float64)
    n = a.size
    if n == 0:
        return 1
    i = 1
    while i < n and a[i] == a[0]:
        i += 1
    if i == n:
        return 1
    if a[0] < a[i]:
        return 0 if np.any(a[i:-1] > a[i + 1:]) else 1
    return 0 if np.any(a[i:-1] < a[i + 1:]) else -1


@npfunc
def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """npjax implementation of ``numpy.digitize``."""
    xv, bv = _jx(x), _jx(bins)
    if xv.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bv.ndim != 1:
        raise ValueError("object too deep for desired array" if bv.ndim > 1 else
                         "object of too small depth for desired array")
    mono = _monotonicity(np.asarray(bv))
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    dtype = _dtypes.result_type(xv.dtype, bv.dtype)
    if mono == -1:
        pos = bv.shape[0] - _bsearch(bv, xv, side == "right", dtype, True)
    else:
        pos = _bsearch(bv, xv, side == "right", dtype)
    return ndarray._owner(pos, pos.ndim == 0)
