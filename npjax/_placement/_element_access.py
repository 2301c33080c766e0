"""The array's element access members: ``__getitem__``, ``__setitem__``, ``_write`` and
``fill``.

A host array (its root value a NumPy array) is indexed and written by NumPy itself (views,
errors, warnings at the user's line); npjax arrays in the index or the value are read as
their data. Anything on the device (or traced) goes to ``_index_read.getitem`` and
``_index_write.setitem``/``write_through``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core import _index_write
from npjax._runtime import _stats
from npjax._runtime._numpy_calls import call_numpy_ufunc
from npjax._core._index_read import getitem
from npjax._core._index_values import _complex_warning, _single_value, cast_device
from npjax._core._executor import Lazy
from npjax._core._ndarray import HOST_STORAGE, host_view, install_methods, ndarray
from npjax._core._normalize import array_method_value
from npjax._placement._route import host_limit, place_result
from npjax._core import _window_reads


def _getitem_method(self: ndarray, index: Any) -> ndarray:
    data = self._value
    if type(data) is HOST_STORAGE:  # a host array: NumPy's indexing (views, errors)
        if type(index) is int:  # the scalar loop's read first (an npjax scalar's 0-d data:
            got = data[index]  # NumPy's IndexError)
            if type(got) is not _NUMPY_ARRAY:  # an element: NumPy's scalar
                return got
            return _host_got(self, data, got)
        root = self
        value = data
    elif data is None and type(value := self._base._value) is HOST_STORAGE:  # a host view
        root = self._base
        data = self._layout
    else:
        _device_calls[_GET] += 1  # the report's placement line: indexing on the device
        return getitem(self, index)
    kind = type(index)
    if kind is int:  # the scalar loop's read first (an npjax scalar's 0-d data: IndexError)
        got = data[index]
        if type(got) is not _NUMPY_ARRAY:  # an element: NumPy's scalar
            return got
    elif kind is slice:  # (stencils' views)
        got = data[index]
    elif kind is tuple:  # ints, slices, None, Ellipsis: as it is (``_host_index``)
        for k in index:
            kind = type(k)
            if kind is not slice and kind is not int and kind not in _PLAIN:
                key = _host_index(index)
                if key is _DEVICE:
                    _device_calls[_GET] += 1
                    return getitem(self, index)
                got = data[key]
                break
        else:
            got = data[index]
        if type(got) is not _NUMPY_ARRAY:  # an element: NumPy's scalar
            return got
    else:
        key = _host_index(index)
        if key is _DEVICE:
            _device_calls[_GET] += 1
            return getitem(self, index)
        got = data[key]
        if type(got) is not _NUMPY_ARRAY:  # an element: NumPy's scalar
            return got
    if got.base is value:  # the common view, of the root's own memory: ``host_view``
        return host_view(root, got)
    if data.dtype.hasobject and _element(index, data.ndim):
        return got  # an array stored in an object array: the object itself
    return place_result(got, (self,), host_limit())


def _place_got(self: ndarray, got: np.ndarray) -> ndarray:
    """NumPy's indexing result ``got`` of the host array ``self``, when it does not view the
    root's own memory (the C slot's rare case, ``_fast.py``); an array stored in an object
    array (an element of another dtype) is that object itself."""
    if self._host().dtype.hasobject and not got.dtype.hasobject:
        return got
    return place_result(got, (self,), host_limit())


def _host_got(self: ndarray, data: np.ndarray, got: np.ndarray) -> ndarray:
    """The array NumPy's indexing of the host owner ``self`` (its data ``data``) gave."""
    if got.base is data:
        return host_view(self, got)
    if data.dtype.hasobject and not got.dtype.hasobject:
        return got  # an array stored in an object array: the object itself
    return place_result(got, (self,), host_limit())


def _setitem_method(self: ndarray, index: Any, value: Any) -> None:
    data = self._value
    if type(data) is HOST_STORAGE:
        # The scalar loop's write into a host array (``a[i] = v``, ``a[i, j] = v``): the hot
        # path. A number whose write NumPy cannot warn about goes to NumPy as it is. (An npjax
        # scalar's data is 0-d: an int or a slice is NumPy's IndexError there, the scalar's
        # TypeError comes from the general path below.)
        kind = type(value)  # (an npjax array: the path below, without the lookups)
        if data.dtype in _QUIET_PYTHON if kind is float or kind is int else \
                kind is not ndarray and data.dtype is _QUIET_SCALARS.get(kind):
            kind = type(index)
            if kind is int or kind is slice:
                try:
                    data[index] = value
                    return
                except IndexError:
                    if not self._scalar:
                        raise
            elif kind is tuple and not self._scalar:
                for k in index:
                    kind = type(k)
                    if kind is not int and kind is not slice and kind not in _PLAIN:
                        break
                else:
                    data[index] = value
                    return
    else:
        data = self._host()
    if data is not None and not self._scalar:
        key = index if type(index) is int or type(index) is slice else _host_index(index)
        if type(value) is ndarray and data.dtype.hasobject:  # NumPy stores the object
            new = value  # itself (NumPy converts it, through ``__array__``, where it must)
        else:
            new = _host_part(value)
        if type(new) is np.ndarray and new.dtype is data.dtype and key is not _DEVICE:
            data[key] = new  # no cast: nothing to warn
            return
        if key is not _DEVICE and new is not _DEVICE:
            if data.dtype.kind in "fiu" and getattr(new, "dtype", None) is not None and \
                    new.dtype.kind == "c":  # NumPy's warning, at the user's line
                data[_checked_first(key)]  # NumPy's IndexError of these comes first, alone
                _complex_warning(new.dtype, data.dtype)
                new = new.real
            if _cast_may_warn(new, data.dtype):  # NumPy's warning, at the user's line
                call_numpy_ufunc(data.__setitem__, (key, new), {})
            else:
                data[key] = new
            return
    if self._host() is None:  # the report's placement line: a write on the device
        _device_calls[_SET] += 1
    if type(value) is ndarray and value._base is not None and _basic(index) and \
            _window_reads.setitem(self, getitem(self, index), value):
        return  # windows of a length seen before: one scatter per bucket
    _stats.record_scalar_write(index)  # the report's advice is about device writes
    _index_write.setitem(self, index, value)


def _element(index: Any, ndim: int) -> bool:
    """Whether ``index`` picks one element of an array of ``ndim`` dimensions (integers)."""
    if type(index) is not tuple:
        index = (index,)
    return len(index) == ndim and all(
        isinstance(k, int | np.integer) and not isinstance(k, bool | np.bool_) for k in index)


def _checked_first(key: Any) -> Any:
    """The part of a host key NumPy checks before it converts the value to write: every
    part but integer arrays and lists (advanced integer indexing checks them afterwards),
    which become whole slices of their axis."""
    if type(key) is not tuple:
        return slice(None) if _integer_array(key) else key
    return tuple(slice(None) if _integer_array(k) else k for k in key)


def _integer_array(k: Any) -> bool:
    return type(k) is list or (type(k) is np.ndarray and k.dtype.kind in "iu" and k.ndim > 0)


# Indexing that runs on the device counts as a device call of these names (``npjax.stats()``,
# the runner's placement line); NumPy's indexing of host arrays is not counted.
_device_calls = _stats.calls
_GET, _SET = "ndarray.__getitem__", "ndarray.__setitem__"
_NUMPY_ARRAY = np.ndarray  # (NumPy's results; a storage is asked about by ``HOST_STORAGE``)
_FLOAT64, _INT64 = np.dtype(np.float64), np.dtype(np.int64)
# A number's type -> the two array dtypes (the same one twice for NumPy's scalars) it is
# written into by NumPy's own ``__setitem__`` without a cast that could warn
# (``_cast_may_warn``): Python floats and ints into float64 and int64 arrays, a NumPy scalar
# into an array of its own dtype.
_QUIET_NUMBERS = {float: (_FLOAT64, _INT64), int: (_FLOAT64, _INT64)}
_QUIET_NUMBERS.update((np.dtype(c).type, (np.dtype(c), np.dtype(c)))
                      for c in np.typecodes["AllInteger"] + np.typecodes["AllFloat"] + "?")
# The same, as the write's hot path reads it: the dtypes of Python numbers, the dtype of each
# NumPy scalar type.
_QUIET_PYTHON = _QUIET_NUMBERS[float]
_QUIET_SCALARS = {kind: dtypes[0] for kind, dtypes in _QUIET_NUMBERS.items()
                  if kind is not float and kind is not int}
_DEVICE = object()  # marker: this part lives on the device (or is being traced)
_F16 = np.dtype(np.float16)
_NARROW = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.complex64))


def _cast_may_warn(new: Any, dtype: np.dtype) -> bool:
    """Whether NumPy's cast of ``new`` into an array of ``dtype`` may report a floating-point
    error (a float to an integer or to another float dtype; a Python float or int into a
    narrow float)."""
    src = getattr(new, "dtype", None)
    if src is None:
        kind = type(new)
        return ((kind is float or kind is complex) and dtype in _NARROW) or (
            kind is int and dtype == _F16)
    return src.kind in "fc" and src != dtype and dtype.kind in "iufc"


_PLAIN = {int, float, bool, complex, slice, type(None), type(Ellipsis)}


def _host_part(x: Any) -> Any:
    kind = type(x)
    if kind in _PLAIN:
        return x
    if kind is ndarray:
        data = x._host()
        if data is None:
            return _stats.fetch(x._read())
        return data[()] if x._scalar else data
    if kind is np.ndarray or kind in _QUIET_NUMBERS:  # NumPy's arrays and scalars
        return x
    if isinstance(x, jax.Array):
        return _DEVICE if isinstance(x, jax.core.Tracer) else _stats.fetch(x)
    converted = array_method_value(x)  # (an ``__array__`` that returns an npjax array)
    return x if converted is x else _host_part(converted)


def _host_index(index: Any) -> Any:
    """An index as NumPy takes it: npjax arrays as their data (device ones fetched)."""
    if type(index) is tuple:
        for k in index:
            if type(k) not in _PLAIN:
                break
        else:
            return index  # ints, slices, None, Ellipsis: as it is
        parts = []
        for k in index:
            if type(k) not in _PLAIN:
                k = _host_part(k)
                if k is _DEVICE:
                    return _DEVICE
            parts.append(k)
        return tuple(parts)
    return _host_part(index)


def _basic(index: Any) -> bool:
    """Whether ``index`` is a slice, or a tuple of ints and slices (with one slice)."""
    if type(index) is slice:
        return True
    return type(index) is tuple and sum(type(k) is slice for k in index) == 1 and all(
        type(k) is int or type(k) is slice for k in index)


def _write_method(self: ndarray, new: Any) -> None:
    """Replace this array's value (already of this shape and dtype) everywhere it shows."""
    data = self._host()
    if data is not None:
        if type(new) is Lazy:
            new = new.get()
        data[...] = new if type(new) is np.ndarray else np.asarray(
            new._fetch() if type(new) is ndarray else _stats.fetch(new))
        return
    if self._readonly:
        raise ValueError("assignment destination is read-only")
    _index_write.write_through(self, (), new)


def _fill_method(self: ndarray, value: Any) -> None:
    """npjax implementation of ``numpy.ndarray.fill`` (NumPy's scalar conversion)."""
    data = self._host()
    if data is not None:
        new = _host_part(value)
        if new is not _DEVICE:
            data.fill(new)
            return
    one = cast_device(_single_value(value, self.dtype), self.dtype)
    self._write(jnp.broadcast_to(jnp.asarray(one, self.dtype), self.shape))


install_methods({"__getitem__": _getitem_method, "__setitem__": _setitem_method,
                 "_write": _write_method, "fill": _fill_method})
