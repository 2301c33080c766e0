"""Set routines of an int64 and a uint64 array, computed by NumPy on the host.

Their common dtype is float64, where distinct integers beyond 2**53 become equal
(``2**63 - 1`` and ``2**63 + 5``); NumPy compares them exactly for small second operands
(``ar1 == a`` for each ``a``) and through float64 for large ones, so NumPy decides.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from npjax._calls._fallback import call_numpy
from npjax._pure import _dtypes
from npjax._runtime._context import current


def _dtype(x: Any) -> np.dtype | None:
    dtype = getattr(x, "dtype", None)
    if dtype is None and isinstance(x, list | tuple | int):
        dtype = np.asarray(x).dtype
    return None if dtype is None else np.dtype(dtype)


def mixed_integers(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are integers whose common dtype is a float (int64, uint64)."""
    da, db = _dtype(a), _dtype(b)
    if da is None or db is None or da.kind not in "iu" or db.kind not in "iu":
        return False
    return _dtypes.result_type(da, db).kind == "f"


def host_for_mixed_integers(numpy_fn: Callable) -> Callable:
    """``fn(ar1, ar2, ...)``, or ``numpy_fn`` on host copies where ``mixed_integers``."""

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def call(ar1: Any, ar2: Any, *args: Any, **kwargs: Any) -> Any:
            if mixed_integers(ar1, ar2):  # (traced: NumPy cannot read it, npjax.jit refuses)
                return call_numpy(fn.__name__, numpy_fn, (ar1, ar2, *args), kwargs, current(),
                                  "int64 with uint64", quiet=True)
            return fn(ar1, ar2, *args, **kwargs)

        return call

    return wrap
