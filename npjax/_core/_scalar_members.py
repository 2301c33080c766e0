"""Members NumPy's scalars have and ``numpy.ndarray`` lacks, for the 0-d npjax arrays that
stand for scalars on the device.

Where NumPy returns a scalar (``a[0]``, a full reduction), a host computation gives NumPy's
own scalar, and a device one a 0-d ``npjax.ndarray`` marked as a scalar (``_scalar``). On
those, ``round(x)``, ``math.trunc(x)``, ``x.is_integer()``, ``x.as_integer_ratio()``,
``x.bit_count()``, ``x.numerator``, ``x.hex()``... answer as NumPy's scalar of that dtype
does (it is read to the host: the answers are Python values), raising what it raises where
its type lacks the member (``round`` of a complex). On every other array they behave as on
``numpy.ndarray``: the attributes do not exist, ``round``/``math.trunc`` raise TypeError and
``math.floor``/``math.ceil`` convert with ``float`` first.
"""

from __future__ import annotations

import math
from typing import Any

from npjax._core._ndarray import ndarray

# attributes of some scalar types (``is_integer`` of floats and integers, ``numerator`` of
# integers...), looked up on the NumPy scalar
ATTRIBUTES = ("as_integer_ratio", "is_integer", "bit_count", "numerator", "denominator", "hex")


def _attribute(name: str) -> property:
    def get(self: ndarray) -> Any:
        if not self._scalar:
            raise AttributeError(f"'ndarray' object has no attribute '{name}'")
        return getattr(self._host_scalar(), name)

    get.__name__ = name
    get.__doc__ = f"``{name}`` of the NumPy scalar this array stands for (scalars only)."
    return property(get)


def __round__(self: ndarray, ndigits: int | None = None) -> Any:
    if not self._scalar:
        raise TypeError("type numpy.ndarray doesn't define __round__ method")
    scalar = self._host_scalar()
    return round(scalar) if ndigits is None else round(scalar, ndigits)


def __trunc__(self: ndarray) -> int:
    if not self._scalar:
        raise TypeError("type numpy.ndarray doesn't define __trunc__ method")
    return math.trunc(self._host_scalar())


def __floor__(self: ndarray) -> int:
    return math.floor(self._host_scalar() if self._scalar else float(self))


def __ceil__(self: ndarray) -> int:
    return math.ceil(self._host_scalar() if self._scalar else float(self))


METHODS = {fn.__name__: fn for fn in (__round__, __trunc__, __floor__, __ceil__)}


def install() -> None:
    """Attach the members to ``npjax.ndarray``."""
    for name, fn in METHODS.items():
        fn.__qualname__ = f"ndarray.{name}"
        setattr(ndarray, name, fn)
    for name in ATTRIBUTES:
        setattr(ndarray, name, _attribute(name))


install()
