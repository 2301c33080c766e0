"""Iteration over npjax arrays: ``a.flat`` (flatiter), ndenumerate, broadcast, nditer.

They keep NumPy's bookkeeping (order, ``multi_index``, ``index``) by running NumPy's own
iterator over *layout* arrays (uninitialised host arrays with the npjax arrays' shapes and
strides, never read) and fetch the values from the device in chunks.
"""

from __future__ import annotations

import functools
import inspect
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._library._creation import _astype
from npjax._core._index_values import _single_value, as_value
from npjax._core._index_write import setitem
from npjax._pure._errors import unsupported
from npjax._placement._made import place_made
from npjax._core._ndarray import install_methods, ndarray
from npjax._pure._dtypes import is_device_dtype
from npjax._library._creation import asarray
from npjax._core._normalize import to_jax
from npjax._core._views import settled
from npjax._execution._lazy_cold import is_held

__all__ = ["ndenumerate", "nditer", "flatiter", "broadcast"]

_INTP = np.dtype(np.intp)
_CHUNK = 256


def _root_version(a: ndarray) -> tuple:
    root = a if a._base is None else a._base
    return (id(root), root._version, id(root._value))


class _Elements:
    """Elements of a 1-d array as 0-d ``jax.Array`` values, from one host copy (no per-size
    compilation, which unstacking on the device would need)."""

    __slots__ = ("_host",)

    def __init__(self, flat: Any) -> None:
        self._host = np.asarray(flat)

    def __getitem__(self, k: int) -> Any:
        value = self._host[k]
        if is_held(value.dtype):  # (float64 on a TPU: a host array's 0-d value)
            return np.array(value)
        return to_jax(value)


def _host_only_data(a: ndarray) -> np.ndarray | None:
    """The NumPy data of an array of a host-only dtype (iterated by NumPy), else None."""
    data = a._host()
    return data if data is not None and not is_device_dtype(data.dtype) else None


def _host_key(x: Any) -> Any:
    """An index or value for NumPy: npjax arrays as host data."""
    if isinstance(x, ndarray):
        data = x._fetch()
        return data[()] if x._scalar else data
    return x


# --- flatiter and ndarray.flat ---------------------------------------------------------------

_BAD_FLAT_INDEX = ("only integers, slices (`:`), ellipsis (`...`) and integer or boolean "
                   "arrays are valid indices")


_BOOL_FLAT_INDEX = ("boolean indices for iterators are not supported because of previous "
                    "behavior that was confusing (valid boolean indices are expected to work "
                    "in the future)")


def _flat_mask(key: Any, size: int) -> None:
    """NumPy's error for a boolean mask of another length than the flat iterator's."""
    if (isinstance(key, ndarray | np.ndarray) and key.dtype == np.bool_ and key.ndim == 1
            and key.shape[0] != size):
        raise IndexError("boolean index did not match indexed flat iterator along axis 0; "
                         f"size of axis is {size} but size of corresponding boolean axis "
                         f"is {key.shape[0]}")


def _flat_key(key: Any) -> Any:
    """A ``flat`` index in the forms NumPy accepts: an int, or a key for a 1-d array."""
    if isinstance(key, tuple):
        if len(key) > 1:
            raise IndexError("too many indices for flat iterator: flat iterator is "
                             f"1-dimensional, but {len(key)} were indexed")
        key = key[0] if key else Ellipsis
    if isinstance(key, np.bool_):  # (NumPy 2.4: a NumPy bool is refused, a Python one not)
        raise IndexError(_BOOL_FLAT_INDEX)
    if isinstance(key, bool) or (isinstance(key, ndarray | np.ndarray) and key.ndim == 0
                                 and key.dtype == np.bool_):
        warnings.warn("Indexing flat iterators with a 0-dimensional boolean index is "
                      "deprecated and may be removed in a future version. (Deprecated "
                      "NumPy 2.4)", DeprecationWarning, stacklevel=_stacklevel())
        # NumPy 2.4: True is the first element (a scalar), False selects nothing
        return 0 if bool(key) else np.empty(0, _INTP)
    if isinstance(key, flatiter | np.flatiter):  # its elements, as an index array
        key = np.asarray(key) if isinstance(key, np.flatiter) else key.copy()
        if key.size == 0:
            return np.empty(0, _INTP)
        if key.dtype.kind not in "iub":
            raise IndexError(_BAD_FLAT_INDEX)
    if isinstance(key, int | np.integer):
        return operator.index(key)
    if isinstance(key, float | np.floating):
        warnings.warn("Invalid non-array indices for iterator objects are deprecated and "
                      "will be removed in a future version. (Deprecated NumPy 2.4)",
                      DeprecationWarning, stacklevel=_stacklevel())
        return int(key)
    if isinstance(key, slice) or key is Ellipsis:
        return key
    if isinstance(key, list):
        host = np.asarray(key)
        if host.size == 0:
            return host.astype(_INTP)
        if host.dtype == np.bool_:
            raise IndexError(_BOOL_FLAT_INDEX)
        if host.dtype.kind == "f":
            warnings.warn("Invalid non-array indices for iterator objects are deprecated "
                          "and will be removed in a future version. (Deprecated NumPy 2.4)",
                          DeprecationWarning, stacklevel=_stacklevel())
            host = host.astype(_INTP)
        return host
    if isinstance(key, ndarray | np.ndarray | jax.Array):
        if key.ndim == 0 and key.dtype.kind in "iu":
            return operator.index(np.asarray(key)[()])
        return key
    raise IndexError(_BAD_FLAT_INDEX)


class flatiter:
    """npjax implementation of ``numpy.flatiter`` (``a.flat``): C-order access to an npjax
    array, with reads, writes (values repeated to fill the selection, as NumPy) and iteration.

    Differences from NumPy: elements are fetched from the device a chunk at a time; a write
    to the array during iteration is seen from the next chunk on.
    """

    __slots__ = ("_arr", "_chunks", "_index", "_seen", "_of")

    def __init__(self, arr: ndarray) -> None:
        if arr.ndim > 32:  # NumPy's flat iterator (NPY_MAXDIMS_LEGACY_ITERS)
            raise RuntimeError("this function only supports up to 32 dimensions but the "
                               f"array has {arr.ndim}.")
        self._arr = arr
        self._index = 0
        self._chunks: _Elements | None = None
        self._seen: tuple | None = None
        self._of: ndarray | None = None  # ``base`` where it is not ``_arr`` (broadcast.iters)

    @property
    def base(self) -> ndarray:
        return self._arr if self._of is None else self._of

    @property
    def index(self) -> int:
        return self._index

    @property
    def coords(self) -> tuple:
        shape = self._arr.shape
        if not shape:
            return ()
        size = self._arr.size
        if size == 0:
            return (0,) * len(shape)
        if self._index >= size:  # NumPy's counter after the last element
            return (shape[0],) + (0,) * (len(shape) - 1)
        return tuple(int(i) for i in np.unravel_index(self._index, shape))

    def __len__(self) -> int:
        return self._arr.size

    def __iter__(self) -> flatiter:
        return self

    def _element(self, k: int) -> ndarray:
        a = self._arr
        data = _host_only_data(a)
        if data is not None:  # NumPy's scalar, as NumPy's iterator gives
            return data.flat[k]
        seen = _root_version(a)
        if self._chunks is None or seen != self._seen:
            self._chunks = _Elements(a._read().reshape(-1))
            self._seen = seen
        return ndarray._owner(self._chunks[k], True)

    def __next__(self) -> ndarray:
        if self._index >= self._arr.size:
            raise StopIteration
        value = self._element(self._index)
        self._index += 1
        return value

    def copy(self, /) -> ndarray:
        """A 1-d copy of the array (C order)."""
        data = _host_only_data(self._arr)
        if data is not None:
            return ndarray._owner(data.flatten())
        return ndarray._owner(self._arr._read().reshape(-1))

    def __array__(self, dtype: Any = None, /, *, copy: Any = None) -> np.ndarray:
        return np.asarray(self.copy(), dtype=dtype)

    def __getitem__(self, key: Any) -> ndarray:
        a = self._arr
        key = _flat_key(key)
        _flat_mask(key, a.size)
        if isinstance(key, int):
            size = a.size
            if not -size <= key < size:
                raise IndexError(f"index {key} is out of bounds for size {size}")
            pos = np.unravel_index(key % size, a.shape) if a.shape else ()
            return a[tuple(int(p) for p in pos)]  # the host route for host arrays
        data = _host_only_data(a)
        if data is not None:  # NumPy's own (a copy)
            return place_made(data.flat[_host_key(key)])
        result = ndarray._owner(a._read().reshape(-1))[key]
        return result if result._base is None else result.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        a = self._arr
        if a._readonly or a._scalar:
            raise ValueError("assignment destination is read-only")
        if type(key) is tuple and not key:
            raise IndexError("Assigning to a flat iterator with a 0-D index is not supported")
        key = _flat_key(key)
        _flat_mask(key, a.size)
        data = _host_only_data(a)
        if data is not None:  # NumPy's own write
            data.flat[_host_key(key)] = _host_key(value)
            return
        size = a.size
        if isinstance(key, int):
            if not -size <= key < size:
                raise IndexError(f"index {key} is out of bounds for size {size}")
            try:
                v = _single_value(value, a.dtype)
            except (TypeError, ValueError, OverflowError):
                raise ValueError("Error setting single item of array.") from None
            pos = np.unravel_index(key % size, a.shape) if a.shape else ()
            setitem(a, tuple(int(p) for p in pos), v)
            return
        if isinstance(key, slice) or key is Ellipsis:  # positions from the shape alone
            span = range(size)[key] if isinstance(key, slice) else range(size)
            ids_value, unique = None, True
            n = len(span)
        else:
            ids = ndarray._owner(jnp.arange(size, dtype=_INTP))[key]
            ids_value, unique = ids._read().reshape(-1), False
            n = ids_value.shape[0]
        v = as_value(value, a.dtype)
        v = jnp.asarray(v).reshape(-1)
        if n == 0 or v.shape[0] == 0:
            return
        v = _astype(v, a.dtype, warn=False)
        if v.shape[0] != n:
            v = jnp.tile(v, -(-n // v.shape[0]))[:n]
        if unique:
            new = _slice_setter(a.shape, span.start, span.step, n)(a._read(), v)
            a._write(new)
            return
        flat = ndarray._owner(a._read().reshape(-1))
        flat[ndarray._owner(ids_value)] = ndarray._owner(v)
        a._write(flat._read().reshape(a.shape))

    def __eq__(self, other: Any) -> Any:
        return self.copy() == other

    def __ne__(self, other: Any) -> Any:
        return self.copy() != other

    __hash__ = None  # type: ignore[assignment]


@functools.lru_cache(maxsize=256)
def _slice_setter(shape: tuple, start: int, step: int, n: int) -> Any:
    def update(x, v):
        ids = start + step * jnp.arange(n, dtype=_INTP)
        return settled(x.reshape(-1).at[ids].set(v, unique_indices=True).reshape(shape))

    return jax.jit(update)


def _get_flat(self: ndarray) -> flatiter:
    return flatiter(self)


def _set_flat(self: ndarray, value: Any) -> None:
    flatiter(self)[...] = value


install_methods({"flat": property(_get_flat, _set_flat, doc="A flat iterator over the array.")})


# --- ndenumerate, broadcast -------------------------------------------------------------------


class ndenumerate:
    """npjax implementation of ``numpy.ndenumerate``: (index tuple, scalar) pairs, C order."""

    def __init__(self, arr: Any) -> None:
        arr = asarray(arr)
        data = _host_only_data(arr)
        self.iter = arr.flat if data is None else data.flat  # (host-only: NumPy's own)

    def __next__(self) -> tuple:
        return self.iter.coords, next(self.iter)

    def __iter__(self) -> ndenumerate:
        return self


def _shape_dummy(shape: tuple) -> np.ndarray:
    return np.broadcast_to(np.empty((), np.bool_), shape)


class broadcast:
    """npjax implementation of ``numpy.broadcast``: the broadcast shape of its arguments and
    iteration over tuples of their (broadcast) elements as scalars."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise ValueError("keyword arguments not accepted.")
        arrays: list = []
        for x in args:
            if isinstance(x, broadcast):
                arrays.extend(x._arrays)
            elif isinstance(x, np.broadcast):
                arrays.extend(asarray(it.base) for it in x.iters)
            else:
                arrays.append(x if isinstance(x, ndarray) else asarray(x))
        self._np = np.broadcast(*[_shape_dummy(a.shape) for a in arrays])
        self._arrays = arrays
        self._chunks: list | None = None

    shape = property(lambda self: self._np.shape)
    nd = property(lambda self: self._np.nd)
    ndim = property(lambda self: self._np.ndim)
    size = property(lambda self: self._np.size)
    numiter = property(lambda self: self._np.numiter)
    index = property(lambda self: self._np.index)

    @property
    def iters(self) -> tuple:
        """Flat iterators over the broadcast arguments, at the current position (their
        ``base``: the argument itself, as NumPy's)."""
        out = []
        for a in self._arrays:
            it = flatiter(a._broadcast_to(self.shape))
            it._index = self.index
            it._of = a
            out.append(it)
        return tuple(out)

    def reset(self, /) -> None:
        self._np.reset()

    def __iter__(self) -> broadcast:
        return self

    def __next__(self) -> tuple:
        k = self._np.index
        next(self._np)
        if self._chunks is None:
            shape = self.shape
            self._chunks = [_Elements(np.broadcast_to(np.asarray(a._read()), shape).reshape(-1))
                            for a in self._arrays]
        return tuple(ndarray._owner(c[k], True) for c in self._chunks)


broadcast.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("arrays", inspect.Parameter.VAR_POSITIONAL)])  # NumPy's: (*arrays)


# --- nditer -----------------------------------------------------------------------------------

_NDITER_UNSUPPORTED = {"external_loop", "reduce_ok", "delay_bufalloc", "ranged"}
_NDITER_VALUE_ONLY = {"buffered", "grow_inner", "common_dtype", "copy_if_overlap"}
_NDITER_DELEGATED = {"shape", "ndim", "nop", "itersize", "multi_index", "index", "iterindex",
                     "finished", "has_multi_index", "has_index", "iterrange",
                     "has_delayed_bufalloc", "iterationneedsapi"}


def _op_flag_lists(op_flags: Any, ops: list) -> list[list[str]]:
    if op_flags is None:
        return [["writeonly", "allocate"] if x is None else ["readonly"] for x in ops]
    op_flags = list(op_flags)
    if not op_flags or isinstance(op_flags[0], str):
        return [list(op_flags) for _ in ops]
    return [list(f) for f in op_flags]


class nditer:
    """npjax implementation of ``numpy.nditer`` (basic use): iteration over one or more
    broadcast npjax arrays in NumPy's order, yielding 0-d npjax arrays; ``readwrite`` and
    ``writeonly``/``allocate`` operands are written back into their npjax arrays.

    NumPy's own iterator, run over layout arrays, validates the arguments (same errors) and
    keeps the position (``multi_index``, ``index``, ``iterindex``, ``finished``).

    Differences from NumPy: writes through the yielded elements reach the operands when the
    iteration ends, at ``close()`` or at the end of the ``with`` block, not element by element;
    the flags ``external_loop``, ``reduce_ok``, ``delay_bufalloc``, ``ranged`` and the
    parameter ``op_axes`` are not supported (``NotImplementedError``).
    """

    def __new__(cls, op: Any, *args: Any, **kwargs: Any) -> Any:
        ops = op if isinstance(op, tuple | list) else (op,)
        if any(isinstance(x, ndarray) and _host_only_data(x) is not None
               and not is_held(x.dtype) for x in ops):
            # NumPy's own iterator over the host data (writes reach it as they are made)
            host = [_host_key(x) for x in ops]
            return np.nditer(host if isinstance(op, tuple | list) else host[0], *args,
                             **kwargs)
        return super().__new__(cls)

    def __init__(self, op: Any, flags: Any = None, op_flags: Any = None, op_dtypes: Any = None,
                 order: str = "K", casting: str = "safe", op_axes: Any = None,
                 itershape: Any = None, buffersize: int = 0) -> None:
        if op_axes is not None:
            raise unsupported("nditer", "op_axes")
        flags = [flags] if isinstance(flags, str) else list(flags or [])
        for f in flags:
            if f in _NDITER_UNSUPPORTED:
                raise unsupported("nditer", "flags", repr(f))
        single = not isinstance(op, tuple | list)
        ops = [op] if single else list(op)
        arrays: list = []
        layouts: list = []
        sinks: list = []
        for x in ops:
            sink = None
            if x is None:
                arr = lay = None
            elif isinstance(x, ndarray):
                arr, lay = x, x._layout_array()
                if x._readonly and lay.flags.writeable:
                    lay = lay.view()
                    lay.flags.writeable = False
            elif isinstance(x, np.ndarray):
                arr, lay, sink = asarray(x), x, x
            else:
                arr = asarray(x)
                lay = arr._layout_array()
            arrays.append(arr)
            layouts.append(lay)
            sinks.append(sink)
        flag_lists = _op_flag_lists(op_flags, ops)
        np_op = layouts[0] if single else layouts
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            check = np.nditer(np_op, flags, op_flags, op_dtypes, order, casting, None,
                              itershape, buffersize)
            dtypes = check.dtypes
            host_ops = check.operands
            check.close()
        for j, arr in enumerate(arrays):
            if arr is None:
                allocated = host_ops[j]
                arrays[j] = ndarray._owner(np.zeros(allocated.shape, allocated.dtype)
                                           if is_held(allocated.dtype) else
                                           jnp.zeros(allocated.shape, allocated.dtype))
                layouts[j] = allocated
        n = len(arrays)
        self._arrays = arrays
        self._sinks = sinks
        self._dtypes = dtypes
        self._single = single or n == 1
        self._writable = [bool({"readwrite", "writeonly"} & set(fl))
                          for fl in flag_lists]
        keep = [f for f in flags if f not in _NDITER_VALUE_ONLY]
        self._it = np.nditer(layouts, keep, [["readonly"]] * n, order=order,
                             itershape=itershape)
        aux = np.nditer(layouts, ["multi_index", "refs_ok", "zerosize_ok"], [["readonly"]] * n,
                        order=order, itershape=itershape)
        try:
            self._shape = tuple(aux.shape)
        except ValueError:  # an empty iteration has no position to ask
            shapes = [lay.shape for lay in layouts]
            if itershape is not None:
                shapes.append(tuple(itershape))
            self._shape = np.broadcast_shapes(*shapes)
        positions = []
        while not aux.finished:
            positions.append(aux.multi_index)
            aux.iternext()
        strides = np.array([int(np.prod(self._shape[i + 1:], dtype=np.int64))
                            for i in range(len(self._shape))], dtype=np.int64)
        pos = np.array(positions, dtype=np.int64).reshape(len(positions), len(self._shape))
        self._order = pos @ strides if len(self._shape) else np.zeros(len(positions), np.int64)
        self._chunks: list = [None] * n
        self._elements: dict = {}
        self._closed = False

    # values

    def _values(self, j: int) -> _Elements:
        chunks = self._chunks[j]
        if chunks is None:
            arr, dtype = self._arrays[j], np.dtype(self._dtypes[j])
            if is_held(arr.dtype, dtype):  # NumPy's cast of the host data
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    host = np.asarray(arr._fetch()).astype(dtype)
            else:
                host = np.asarray(_astype(arr._read(), dtype, warn=False))
            chunks = _Elements(np.broadcast_to(host, self._shape).reshape(-1)[self._order])
            self._chunks[j] = chunks
        return chunks

    def _element(self, j: int, k: int) -> ndarray:
        key = (j, k)
        element = self._elements.get(key)
        if element is None:
            element = ndarray._owner(self._values(j)[k])
            if self._writable[j]:
                self._elements[key] = element
            else:
                element._readonly = True
        return element

    def _current(self) -> tuple:
        self._check_open()
        if self._it.finished:
            raise IndexError("Iterator is past the end")
        k = self._it.iterindex
        return tuple(self._element(j, k) for j in range(len(self._arrays)))

    @property
    def value(self) -> Any:
        values = self._current()
        return values[0] if self._single else values

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("Iterator is invalid")

    @property
    def operands(self) -> tuple:
        self._check_open()
        return tuple(self._arrays)

    @property
    def dtypes(self) -> tuple:
        self._check_open()
        return self._dtypes

    def __getitem__(self, i: Any) -> Any:
        return self._current()[i]

    def __setitem__(self, i: int, value: Any) -> None:
        self._current()[i][...] = value

    def __len__(self) -> int:
        return len(self._arrays)

    def __getattr__(self, name: str) -> Any:
        if name in _NDITER_DELEGATED:
            it = self.__dict__.get("_it")
            if it is not None:
                return getattr(it, name)
        raise AttributeError(f"'npjax.nditer' object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("multi_index", "index", "iterindex", "iterrange"):
            setattr(self._it, name, value)
        else:
            object.__setattr__(self, name, value)

    # iteration

    def __iter__(self) -> nditer:
        return self

    def __next__(self) -> Any:
        if self._closed:
            raise ValueError("Iteration of a closed iterator is not possible")
        try:
            next(self._it)
        except StopIteration:
            self._write_back()
            raise
        return self.value

    def iternext(self) -> bool:
        more = self._it.iternext()
        if not more:
            self._write_back()
        return more

    def reset(self) -> None:
        self._it.reset()

    def _write_back(self) -> None:
        if not self._elements:
            return
        for j, arr in enumerate(self._arrays):
            if not self._writable[j]:
                continue
            items = sorted((k, e) for (jj, k), e in self._elements.items()
                           if jj == j and (e._version or self._changed(j, k, e)))
            if not items:
                continue
            ks = np.array([k for k, _ in items], dtype=np.int64)
            if is_held(arr.dtype, *(e.dtype for _, e in items)):
                self._write_host(j, arr, ks, [e for _, e in items])
                continue
            values = np.array(jax.device_get([e._read() for _, e in items]))
            values = _astype(to_jax(values), arr.dtype, warn=False)
            flat = arr._read().reshape(-1)
            new = flat.at[to_jax(self._order[ks])].set(values, unique_indices=True)
            new = new.reshape(arr.shape)
            arr._write(new)
            if self._sinks[j] is not None:
                self._sinks[j][...] = np.asarray(new)
        self._elements = {}
        self._chunks = [None] * len(self._arrays)

    def _changed(self, j: int, k: int, e: ndarray) -> bool:
        """Whether a host element (float64 on a TPU; NumPy's writes to it move no version)
        holds other bytes than the value read."""
        data, chunks = e._host(), self._chunks[j]
        return data is not None and chunks is not None and \
            data.tobytes() != np.asarray(chunks._host[k]).tobytes()

    def _write_host(self, j: int, arr: ndarray, ks: np.ndarray, elements: list) -> None:
        """``_write_back`` by NumPy, where a held dtype (float64 on a TPU) is involved."""
        new = np.array(arr._fetch(), order="C")
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = np.array([np.asarray(e._fetch()) for e in elements]).astype(arr.dtype)
        new.reshape(-1)[self._order[ks]] = values
        arr._write(new if arr._host() is not None else to_jax(new))
        if self._sinks[j] is not None:
            self._sinks[j][...] = new

    def close(self) -> None:
        """Write modified elements back into the operands and end the iteration."""
        if not self._closed:
            self._write_back()
            self._closed = True
            self._it.close()

    def __enter__(self) -> nditer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
