"""One record per public attribute of NumPy's scalar types: how npjax's scalars provide it.

Where NumPy returns a scalar (``a[0]``, ``a.sum()``), npjax gives one of two things:
- from a host computation (small arrays, the default placement): NumPy's own scalar, the
  very ``numpy.float64`` (``npjax.float64 is numpy.float64``), so every attribute is NumPy's by
  construction (``tests/test_registry.py`` checks the type);
- from a device computation: a 0-d ``npjax.ndarray`` marked as a scalar, which stands for it.

The records describe the second: the attributes are those the scalar types of npjax's dtypes
(bool, the integers, the floats, the complex types) define, with their bases up to ``object``
(Python's ``float`` and ``complex`` included, as ``numpy.float64`` and ``numpy.complex128``
derive from them). Statuses as for ``numpy.ndarray``'s attributes (``_registry_methods``):
``native``, ``host`` (answered from the NumPy scalar read to the host, or host memory),
``excluded`` (with the reason) and ``missing`` (a test fails).
"""

from __future__ import annotations

import functools

import numpy as np

from npjax._calls import _registry_methods
from npjax._calls._registry import Spec

MODULE = "numpy scalars"

TYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
         np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)

HOST = dict(_registry_methods.HOST)
HOST.update(dict.fromkeys(
    ("__round__", "__trunc__", "__floor__", "__ceil__", "as_integer_ratio", "is_integer",
     "bit_count", "numerator", "denominator", "hex"),
    "a Python value: answered by the NumPy scalar, read to the host (_scalar_members)"))

EXCLUDED = {
    "fromhex": "a class method of Python's float that makes a float; npjax's scalar types are "
               "NumPy's own (npjax.float64.fromhex is numpy.float64.fromhex)",
    "__getformat__": "a class method of Python's float describing the platform's format; "
                     "npjax.float64 is numpy.float64",
    "__getnewargs__": "pickling support of Python's float and complex; a 0-d npjax array "
                      "pickles through __reduce__",
    "__getattribute__": "NumPy's scalar types customise attribute look-up in C; npjax arrays "
                        "use Python's (every attribute here resolves)",
}

_SKIP = ("__doc__", "__new__")  # class machinery, not scalar behaviour


def public_attributes() -> list[str]:
    """Every attribute the scalar types of npjax's dtypes define (bases up to ``object``)."""
    return sorted({n for t in TYPES for cls in t.__mro__ if cls is not object
                   for n in vars(cls) if n not in _SKIP})


def classify(name: str) -> Spec:
    return _registry_methods.classify_attribute(MODULE, name, EXCLUDED, HOST,
                                                "npjax's 0-d scalar arrays lack it")


@functools.cache
def records() -> tuple[Spec, ...]:
    return tuple(classify(n) for n in public_attributes())
