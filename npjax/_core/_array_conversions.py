"""Conversions between npjax arrays and NumPy or Python values: the ``ndarray`` members
``__array__``, ``__repr__``/``__str__``/``__format__``, ``__bool__``/``__float__``/``__int__``/
``__complex__``/``__index__``, ``__jax_array__``, ``item``, ``tolist``, ``tobytes``,
``to_jax`` and ``astype`` (attached to the class with ``install_methods``), and NumPy's
own ``astype`` for host data.

A host array (placement) hands its NumPy data over as it is; a device array is fetched once
(``ndarray._fetch``). Python's conversions see what NumPy would hand them (``_for_python``),
so they raise and warn as NumPy's do.
"""

from __future__ import annotations

import operator
from typing import Any

import jax
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._runtime._numpy_calls import call_numpy_ufunc
from npjax._pure._orders import order_code
from npjax._core import _casts
from npjax._core._ndarray import install_methods, ndarray


# --- members of ndarray ----------------------------------------------------------------------


def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    data = self._host()
    if data is not None:  # NumPy shares a host array's memory, as with its own arrays
        if copy:
            return np.array(data, dtype)
        return data if dtype is None else data.astype(dtype, copy=False)
    if copy is False:
        raise ValueError("npjax.ndarray.__array__: a host copy is always needed "
                         "(copy=False is impossible for device arrays)")
    host = np.array(self._fetch())
    if dtype is not None:
        host = host.astype(dtype, copy=False)
    return host

def _host_scalar(self) -> Any:
    """The NumPy scalar this 0-d array stands for."""
    return self._fetch()[()]

def __repr__(self) -> str:
    if self._scalar:
        return repr(self._host_scalar())
    return repr(self._fetch())

def __str__(self) -> str:
    if self._scalar:
        return str(self._host_scalar())
    return str(self._fetch())

def __format__(self, spec: str) -> str:
    if self.ndim == 0:
        return format(self._host_scalar(), spec)
    return format(self._fetch(), spec)

def _for_python(self) -> Any:
    """What NumPy would hand to Python's conversions: its scalar (for a scalar result)
    or its array, so ``bool``/``float``/``int``/``complex``/``index`` raise and warn
    exactly as NumPy's do. Arrays of several elements are not transferred: a two-element
    stand-in raises the same errors."""
    if self.size > 1:
        return np.zeros(2, self.dtype)
    host = self._fetch()
    return host[()] if self._scalar else host

def __bool__(self) -> bool:
    return bool(self._for_python())

def __float__(self) -> float:
    return float(self._for_python())

def __int__(self) -> int:
    return int(self._for_python())

def __complex__(self) -> complex:
    return complex(self._for_python())

def __index__(self) -> int:
    return operator.index(self._for_python())

def __jax_array__(self) -> jax.Array:
    return self._read()

def item(self, *args: Any) -> Any:
    """npjax implementation of ``numpy.ndarray.item``."""
    if not args:
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._fetch().item()
    return self._fetch().item(*args)

def tolist(self) -> Any:
    """npjax implementation of ``numpy.ndarray.tolist``."""
    return self._fetch().tolist()

def tobytes(self, order: str = "C") -> bytes:
    """npjax implementation of ``numpy.ndarray.tobytes`` (order 'K'/'A' follow the
    NumPy layout of this array)."""
    return self._fetch().tobytes(self._order(order))

def to_jax(self) -> jax.Array:
    """The current value as a ``jax.Array`` (no copy)."""
    return self._read()

def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True,
           copy: bool = True) -> ndarray:
    """npjax implementation of ``numpy.ndarray.astype``.

    NaN, infinities and out-of-range floats cast to integers give NumPy's values and
    its ``RuntimeWarning`` (computed by NumPy when there are any: ``_casts``).
    """
    from npjax._pure import _dtypes
    from npjax._pure._errors import ComplexWarning

    dtype = np.dtype(dtype)
    data = self._host()
    if data is not None:  # NumPy's cast and warnings
        new = _host_astype(data, (dtype, order, casting, subok, copy))
        return self if new is data else ndarray._owner(new, self._scalar)
    if not _dtypes.is_device_dtype(dtype):  # object, str, datetime...: a host array
        new = _host_astype(np.array(self._fetch()), (dtype, order, casting, subok, False))
        return ndarray._owner(new, self._scalar)
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', "
                         "or 'unsafe'")
    if not np.can_cast(self.dtype, dtype, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} "
                        f"according to the rule {casting!r}")
    mem = self._order(order)
    if not copy and dtype == self.dtype and (
            order_code(order, "K") in "KA" or self.ndim < 2
            or self._layout_array().flags[f"{mem}_CONTIGUOUS"]):
        return self
    value = self._read_lazy()
    if value.dtype != dtype:
        if value.dtype.kind == "c" and dtype.kind not in "cb":
            import warnings

            warnings.warn("Casting complex values to real discards the imaginary part",
                          ComplexWarning, stacklevel=_stacklevel())
        value = _casts.cast(value, dtype)
    return self._new_owner(value, mem)


_MEMBERS = {fn.__name__: fn for fn in (
    __array__, _host_scalar, __repr__, __str__, __format__, _for_python, __bool__, __float__,
    __int__, __complex__, __index__, __jax_array__, item, tolist, tobytes, to_jax, astype)}
for _name, _fn in _MEMBERS.items():
    _fn.__qualname__ = f"ndarray.{_name}"
install_methods(_MEMBERS)


# --- host data ---------------------------------------------------------------------------------


def _casts_by(data: np.ndarray, args: tuple) -> bool:
    """Whether ``data.astype(*args)`` casts (NumPy raises before warning otherwise: a cast
    its ``casting`` rule forbids, or a rule it does not know)."""
    try:
        return bool(np.can_cast(data.dtype, np.dtype(args[0]), args[2]))
    except (TypeError, ValueError):
        return False


def _host_astype(data: np.ndarray, args: tuple) -> np.ndarray:
    """NumPy's ``astype`` of host data, its warnings at the user's line (NumPy's C code would
    name npjax's frame): floating-point ones through ``call_numpy_ufunc``, the ComplexWarning
    given here."""
    if data.dtype.kind == "c" and np.dtype(args[0]).kind in "iuf" and _casts_by(data, args):
        import warnings

        from npjax._pure._errors import ComplexWarning

        warnings.warn("Casting complex values to real discards the imaginary part",
                      ComplexWarning, stacklevel=_stacklevel())
        with warnings.catch_warnings():  # (process-wide; a rare path)
            warnings.simplefilter("ignore", ComplexWarning)
            return call_numpy_ufunc(data.astype, args, {})
    return call_numpy_ufunc(data.astype, args, {})
