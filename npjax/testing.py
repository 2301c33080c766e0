"""npjax.testing: ``numpy.testing`` for npjax arrays.

NumPy's assertions recognise arrays by ``isinstance(x, numpy.ndarray)``; an npjax array is not
one (docs/interop.md, "Where a library tests for numpy.ndarray"), so ``assert_equal(a, [0, 1])``
fell through to ``bool(a == [0, 1])`` and raised "The truth value of an array ... is
ambiguous", and ``assert_almost_equal(a, b)`` of two npjax arrays likewise. The value
assertions here hand NumPy's own the data: npjax arrays (also inside lists, tuples and dicts)
as NumPy arrays (``np.asarray``: a host array's own memory, a device array's host copy), npjax
scalars as NumPy's scalars. Everything else in this module is ``numpy.testing``'s own
(``assert_raises``, ``suppress_warnings``...; their callables get the arguments as given).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.testing as _numpy_testing
from numpy.testing import *  # noqa: F403 (NumPy's names, the value assertions replaced below)

from npjax._core._ndarray import ndarray
from npjax._core._normalize import array_method_value

__all__ = list(_numpy_testing.__all__)

_VALUE_ASSERTIONS = (
    "assert_equal", "assert_almost_equal", "assert_approx_equal", "assert_array_equal",
    "assert_array_almost_equal", "assert_allclose", "assert_array_less",
    "assert_array_max_ulp", "assert_array_almost_equal_nulp", "assert_array_compare",
    "print_assert_equal",
)


def _numpy_data(x: Any) -> Any:
    """``x`` as NumPy's assertions take it: npjax arrays as NumPy's, containers item by item."""
    if isinstance(x, ndarray):
        data = np.asarray(x)
        return data[()] if x._scalar else data
    kind = type(x)
    if kind is list or kind is tuple:
        return kind(_numpy_data(v) for v in x)
    if kind is dict:
        return {k: _numpy_data(v) for k, v in x.items()}
    converted = array_method_value(x)  # an ``__array__`` that returns an npjax array
    return x if converted is x else _numpy_data(converted)


def _taking_npjax(fn: Any) -> Any:
    @functools.wraps(fn)
    def assertion(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # pytest: the caller's line, as for NumPy's own
        return fn(*[_numpy_data(a) for a in args],
                  **{k: _numpy_data(v) for k, v in kwargs.items()})

    assertion.__module__ = __name__
    return assertion


for _name in _VALUE_ASSERTIONS:
    globals()[_name] = _taking_npjax(getattr(_numpy_testing, _name))
del _name


def __getattr__(name: str) -> Any:
    """``numpy.testing``'s other names (those outside its ``__all__``), as NumPy's."""
    return getattr(_numpy_testing, name)
