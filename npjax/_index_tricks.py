"""Index helpers: r_, c_, s_, ix_, ndindex, ndenumerate, nditer, tril_indices, unravel_index, ...

Index arithmetic that depends only on shapes runs on the host (it touches no array data);
everything that reads or writes array elements runs on the device. Iteration protocols
(``flat``, ``ndenumerate``, ``nditer``, ``broadcast``) keep NumPy's bookkeeping (order,
``multi_index``, ``index``) by running NumPy's own iterator over *layout* arrays (uninitialised
host arrays with the npjax arrays' shapes and strides, never read) and fetch the values from the
device in chunks.
"""

from __future__ import annotations

import functools
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._creation import _astype
from npjax import _indexing
from npjax._dispatch import wrap
from npjax._errors import unsupported
from npjax._ndarray import install_methods, ndarray
from npjax._normalize import to_jax

__all__ = [
    "r_", "c_", "s_", "index_exp", "ix_", "ndindex", "ndenumerate", "nditer", "flatiter",
    "broadcast", "diag_indices", "diag_indices_from", "tril_indices", "tril_indices_from",
    "triu_indices", "triu_indices_from", "mask_indices", "ravel_multi_index", "unravel_index",
    "fill_diagonal",
]

# Pure shape iteration: NumPy's own class (it never sees array data).
ndindex = np.ndindex

_INTP = np.dtype(np.intp)
_CHUNK = 256


def _api():
    """The public npjax namespace (imported late: this module is part of it)."""
    import npjax

    return npjax


def _root_version(a: ndarray) -> tuple:
    root = a if a._base is None else a._base
    return (id(root), root._version, id(root._value))


class _Elements:
    """Elements of a 1-d array as 0-d ``jax.Array`` values, from one host copy (no per-size
    compilation, which unstacking on the device would need)."""

    __slots__ = ("_host",)

    def __init__(self, flat: Any) -> None:
        self._host = np.asarray(flat)

    def __getitem__(self, k: int) -> jax.Array:
        return to_jax(self._host[k])


# --- s_, index_exp --------------------------------------------------------------------------


class _IndexExpression:
    """``s_`` / ``index_exp``: the index expression written inside the brackets."""

    __slots__ = ("maketuple",)

    def __init__(self, maketuple: bool) -> None:
        self.maketuple = maketuple

    def __getitem__(self, item: Any) -> Any:
        if self.maketuple and not isinstance(item, tuple):
            return (item,)
        return item


s_ = _IndexExpression(maketuple=False)
index_exp = _IndexExpression(maketuple=True)


# --- r_, c_ ---------------------------------------------------------------------------------


class AxisConcatenator:
    """npjax implementation of NumPy's ``AxisConcatenator`` (``r_``, ``c_``).

    Differences from NumPy: the ``'r'``/``'c'`` directives give a host ``numpy.matrix``
    (npjax has no matrix class); a plain string key (``numpy.bmat`` syntax) is not supported.
    """

    __slots__ = ("axis", "matrix", "ndmin", "trans1d")

    def __init__(self, axis: int = 0, matrix: bool = False, ndmin: int = 1,
                 trans1d: int = -1) -> None:
        self.axis = axis
        self.matrix = matrix
        self.trans1d = trans1d
        self.ndmin = ndmin

    def __getitem__(self, key: Any) -> Any:
        xp = _api()
        if isinstance(key, str):
            raise unsupported(type(self).__name__.lower()[0] + "_", "key",
                              "matrix strings (numpy.bmat syntax)")
        if not isinstance(key, tuple):
            key = (key,)
        trans1d, ndmin, matrix, axis = self.trans1d, self.ndmin, self.matrix, self.axis
        col = False
        objs: list = []
        rtype_objs: list = []
        for k, item in enumerate(key):
            scalar = False
            if isinstance(item, slice):
                start = 0 if item.start is None else item.start
                step = 1 if item.step is None else item.step
                if isinstance(step, np.complexfloating | complex):
                    newobj = xp.linspace(start, item.stop, num=int(abs(step)))
                else:
                    newobj = xp.arange(start, item.stop, step)
                if ndmin > 1:
                    newobj = xp.array(newobj, copy=None, ndmin=ndmin)
                    if trans1d != -1:
                        newobj = newobj.swapaxes(-1, trans1d)
            elif isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                if item in ("r", "c"):
                    matrix = True
                    col = item == "c"
                    continue
                if "," in item:
                    vec = item.split(",")
                    try:
                        axis, ndmin = (int(x) for x in vec[:2])
                        if len(vec) == 3:
                            trans1d = int(vec[2])
                        continue
                    except Exception as e:
                        raise ValueError(f"unknown special directive {item!r}") from e
                try:
                    axis = int(item)
                    continue
                except (ValueError, TypeError) as e:
                    raise ValueError("unknown special directive") from e
            elif type(item) in np.ScalarType:
                scalar = True
                newobj = item
            else:
                item_ndim = xp.ndim(item)
                newobj = xp.array(item, copy=None, ndmin=ndmin)
                if trans1d != -1 and item_ndim < ndmin:
                    k2 = ndmin - item_ndim
                    k1 = trans1d
                    if k1 < 0:
                        k1 += k2 + 1
                    defaxes = list(range(ndmin))
                    newobj = newobj.transpose(defaxes[:k1] + defaxes[k2:] + defaxes[k1:k2])
            objs.append(newobj)
            rtype_objs.append(item if scalar else newobj.dtype)
        if rtype_objs:
            final = xp.result_type(*rtype_objs)
            objs = [xp.array(obj, copy=None, ndmin=ndmin, dtype=final) for obj in objs]
        res = xp.concatenate(tuple(objs), axis=axis)
        if matrix:
            oldndim = res.ndim
            res = np.matrix(np.asarray(res))
            if oldndim == 1 and col:
                res = res.T
        return res

    def __len__(self) -> int:
        return 0


class RClass(AxisConcatenator):
    """``r_``: concatenation along the first axis (npjax arrays)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(0)


class CClass(AxisConcatenator):
    """``c_``: concatenation along the last axis, 1-d items as columns (npjax arrays)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(-1, ndmin=2, trans1d=0)


r_ = RClass()
c_ = CClass()


# --- ix_ --------------------------------------------------------------------------------------


def ix_(*args: Any) -> tuple:
    """npjax implementation of ``numpy.ix_`` (npjax arrays; views of npjax inputs)."""
    xp = _api()
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, ndarray | np.ndarray):
            new = xp.asarray(new)
            if new.size == 0:
                new = new.astype(_INTP)
        elif isinstance(new, np.ndarray):
            new = xp.asarray(new)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype == np.bool_:
            new, = new.nonzero()
        new = new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1))
        out.append(new)
    return tuple(out)


# --- flatiter and ndarray.flat ---------------------------------------------------------------

_BAD_FLAT_INDEX = ("only integers, slices (`:`), ellipsis (`...`) and integer or boolean "
                   "arrays are valid indices")


def _flat_key(key: Any) -> Any:
    """A ``flat`` index in the forms NumPy accepts: an int, or a key for a 1-d array."""
    if isinstance(key, tuple):
        if len(key) > 1:
            raise IndexError("too many indices for flat iterator: flat iterator is "
                             f"1-dimensional, but {len(key)} were indexed")
        key = key[0] if key else Ellipsis
    if isinstance(key, bool | np.bool_):
        warnings.warn("Indexing flat iterators with a 0-dimensional boolean index is "
                      "deprecated and may be removed in a future version. (Deprecated "
                      "NumPy 2.4)", DeprecationWarning, stacklevel=3)
        return slice(None) if key else slice(0, 0)
    if isinstance(key, int | np.integer):
        return operator.index(key)
    if isinstance(key, float | np.floating):
        warnings.warn("Invalid non-array indices for iterator objects are deprecated and "
                      "will be removed in a future version. (Deprecated NumPy 2.4)",
                      DeprecationWarning, stacklevel=3)
        return int(key)
    if isinstance(key, slice) or key is Ellipsis:
        return key
    if isinstance(key, list):
        host = np.asarray(key)
        if host.size == 0:
            return host.astype(_INTP)
        if host.dtype == np.bool_:
            raise IndexError("boolean indices for iterators are not supported because of "
                             "previous behavior that was confusing (valid boolean indices "
                             "are expected to work in the future)")
        if host.dtype.kind == "f":
            warnings.warn("Invalid non-array indices for iterator objects are deprecated "
                          "and will be removed in a future version. (Deprecated NumPy 2.4)",
                          DeprecationWarning, stacklevel=3)
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

    __slots__ = ("_arr", "_chunks", "_index", "_seen")

    def __init__(self, arr: ndarray) -> None:
        self._arr = arr
        self._index = 0
        self._chunks: _Elements | None = None
        self._seen: tuple | None = None

    @property
    def base(self) -> ndarray:
        return self._arr

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

    def copy(self) -> ndarray:
        """A 1-d copy of the array (C order)."""
        return ndarray._owner(self._arr._read().reshape(-1))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.copy(), dtype=dtype)

    def __getitem__(self, key: Any) -> ndarray:
        a = self._arr
        key = _flat_key(key)
        if isinstance(key, int):
            size = a.size
            if not -size <= key < size:
                raise IndexError(f"index {key} is out of bounds for size {size}")
            pos = np.unravel_index(key % size, a.shape) if a.shape else ()
            return _indexing.getitem(a, tuple(int(p) for p in pos))
        result = ndarray._owner(a._read().reshape(-1))[key]
        return result if result._base is None else result.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        a = self._arr
        if a._readonly or a._scalar:
            raise ValueError("assignment destination is read-only")
        key = _flat_key(key)
        size = a.size
        if isinstance(key, int):
            if not -size <= key < size:
                raise IndexError(f"index {key} is out of bounds for size {size}")
            try:
                v = _indexing._single_value(value, a.dtype)
            except (TypeError, ValueError, OverflowError):
                raise ValueError("Error setting single item of array.") from None
            pos = np.unravel_index(key % size, a.shape) if a.shape else ()
            _indexing.setitem(a, tuple(int(p) for p in pos), v)
            return
        if isinstance(key, slice) or key is Ellipsis:  # positions from the shape alone
            span = range(size)[key] if isinstance(key, slice) else range(size)
            ids_value, unique = None, True
            n = len(span)
        else:
            ids = ndarray._owner(jnp.arange(size, dtype=_INTP))[key]
            ids_value, unique = ids._read().reshape(-1), False
            n = ids_value.shape[0]
        v = _indexing.as_value(value, a.dtype)
        v = jnp.asarray(v).reshape(-1)
        if n == 0 or v.shape[0] == 0:
            return
        v = _cast(v, a.dtype)
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
        return x.reshape(-1).at[ids].set(v, unique_indices=True).reshape(shape)

    return jax.jit(update)


def _cast(v: jax.Array, dtype: np.dtype) -> jax.Array:
    """NumPy's silent cast of values being stored (as ``a[...] = v`` casts)."""
    return _astype(v, np.dtype(dtype), warn=False)


def _get_flat(self: ndarray) -> flatiter:
    return flatiter(self)


def _set_flat(self: ndarray, value: Any) -> None:
    flatiter(self)[...] = value


install_methods({"flat": property(_get_flat, _set_flat, doc="A flat iterator over the array.")})


# --- ndenumerate, broadcast -------------------------------------------------------------------


class ndenumerate:
    """npjax implementation of ``numpy.ndenumerate``: (index tuple, scalar) pairs, C order."""

    def __init__(self, arr: Any) -> None:
        self.iter = _api().asarray(arr).flat

    def __next__(self) -> tuple:
        return self.iter.coords, next(self.iter)

    def __iter__(self) -> ndenumerate:
        return self


def _shape_dummy(shape: tuple) -> np.ndarray:
    return np.broadcast_to(np.empty((), np.bool_), shape)


class broadcast:
    """npjax implementation of ``numpy.broadcast``: the broadcast shape of its arguments and
    iteration over tuples of their (broadcast) elements as scalars."""

    def __init__(self, *args: Any) -> None:
        xp = _api()
        arrays: list = []
        for x in args:
            if isinstance(x, broadcast):
                arrays.extend(x._arrays)
            elif isinstance(x, np.broadcast):
                arrays.extend(xp.asarray(it.base) for it in x.iters)
            else:
                arrays.append(x if isinstance(x, ndarray) else xp.asarray(x))
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
        """Flat iterators over the broadcast arguments, at the current position."""
        out = []
        for a in self._arrays:
            it = flatiter(a._broadcast_to(self.shape))
            it._index = self.index
            out.append(it)
        return tuple(out)

    def reset(self) -> None:
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

    def __init__(self, op: Any, flags: Any = None, op_flags: Any = None, op_dtypes: Any = None,
                 order: str = "K", casting: str = "safe", op_axes: Any = None,
                 itershape: Any = None, buffersize: int = 0) -> None:
        xp = _api()
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
                arr, lay, sink = xp.asarray(x), x, x
            else:
                arr = xp.asarray(x)
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
                arrays[j] = ndarray._owner(jnp.zeros(allocated.shape, allocated.dtype))
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
            host = np.asarray(_cast(self._arrays[j]._read(), self._dtypes[j]))
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
                           if jj == j and e._version)
            if not items:
                continue
            ks = np.array([k for k, _ in items], dtype=np.int64)
            values = np.array(jax.device_get([e._read() for _, e in items]))
            values = _cast(to_jax(values), arr.dtype)
            flat = arr._read().reshape(-1)
            new = flat.at[to_jax(self._order[ks])].set(values, unique_indices=True)
            new = new.reshape(arr.shape)
            arr._write(new)
            if self._sinks[j] is not None:
                self._sinks[j][...] = np.asarray(new)
        self._elements = {}
        self._chunks = [None] * len(self._arrays)

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


# --- diagonal and triangle indices --------------------------------------------------------------


def diag_indices(n: Any, ndim: int = 2) -> tuple:
    """npjax implementation of ``numpy.diag_indices`` (npjax arrays)."""
    idx = _api().arange(n)
    return (idx,) * ndim


def diag_indices_from(arr: Any) -> tuple:
    """npjax implementation of ``numpy.diag_indices_from``."""
    if not arr.ndim >= 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def _tri_indices(n: Any, k: Any, m: Any, upper: bool) -> tuple:
    # Index arithmetic on shapes only (no array data): NumPy's triangle mask on the host.
    mask = np.tri(n, m, k=k - 1 if upper else k, dtype=bool)
    if upper:
        mask = ~mask
    return tuple(ndarray._owner(to_jax(i.astype(_INTP))) for i in np.nonzero(mask))


def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple:
    """npjax implementation of ``numpy.tril_indices`` (npjax arrays)."""
    return _tri_indices(n, k, m, False)


def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple:
    """npjax implementation of ``numpy.triu_indices`` (npjax arrays)."""
    return _tri_indices(n, k, m, True)


def tril_indices_from(arr: Any, k: Any = 0) -> tuple:
    """npjax implementation of ``numpy.tril_indices_from``."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr: Any, k: Any = 0) -> tuple:
    """npjax implementation of ``numpy.triu_indices_from``."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def mask_indices(n: int, mask_func: Any, k: Any = 0) -> tuple:
    """npjax implementation of ``numpy.mask_indices``."""
    xp = _api()
    a = mask_func(xp.ones((n, n), int), k)
    return xp.nonzero(xp.asarray(a) != 0)


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """npjax implementation of ``numpy.fill_diagonal``: writes into ``a`` in place (views
    write through to their base)."""
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    end = None
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:
            end = a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
    a.flat[:end:step] = val


# --- ravel_multi_index, unravel_index ----------------------------------------------------------

_MODES = {"raise": "raise", "wrap": "wrap", "clip": "clip"}
_INT_MODES = {0: "clip", 1: "wrap"}


def _dims(dims: Any) -> tuple[int, ...]:
    if isinstance(dims, int | np.integer):
        return (operator.index(dims),)
    if isinstance(dims, ndarray):
        dims = np.asarray(dims)
    return tuple(operator.index(d) for d in dims)


def _order(order: Any) -> str:
    if order is None:
        return "C"
    if isinstance(order, str) and order.upper() in ("C", "F"):
        return order.upper()
    raise ValueError("only 'C' or 'F' order is permitted")


def _mode(mode: Any) -> str:
    if mode is None:
        return "raise"
    if isinstance(mode, int | np.integer) and not isinstance(mode, bool):
        return _INT_MODES.get(int(mode), "raise")
    if isinstance(mode, str) and mode in _MODES:
        return mode
    raise ValueError("Use one of 'clip', 'raise', or 'wrap' for clip mode")


def _index_operand(x: Any) -> jax.Array:
    """An index argument as an intp ``jax.Array`` (NumPy's 'same_kind' cast rule)."""
    if isinstance(x, ndarray | jax.Array):
        dtype = x.dtype
        value = x._read() if isinstance(x, ndarray) else x
    else:
        host = np.asarray(x)
        if host.size == 0 and not isinstance(x, np.ndarray) and host.dtype.kind == "f":
            raise TypeError("indices must be integral: the provided empty sequence was "
                            "inferred as float. Wrap it with 'np.array(indices, "
                            "dtype=np.intp)'")
        dtype = host.dtype
        value = host
    if not np.can_cast(dtype, _INTP, "same_kind"):
        raise TypeError("only int indices permitted")
    if isinstance(value, np.ndarray):
        return to_jax(value.astype(_INTP))
    return value.astype(_INTP)


def _c_rem(a: jax.Array, b: Any) -> jax.Array:
    return lax.rem(a, jnp.asarray(b, a.dtype))


@functools.lru_cache(maxsize=128)
def _ravel_kernel(dims: tuple, strides: tuple, modes: tuple) -> Any:
    def kernel(*coords):
        total = jnp.zeros(coords[0].shape, _INTP) if coords else jnp.zeros((), _INTP)
        bad = jnp.zeros(total.shape, bool)
        for j, m, s, mode in zip(coords, dims, strides, modes):
            if mode == "raise":
                bad = bad | (j < 0) | (j >= m)
            elif mode == "wrap":
                neg = j + m
                neg = jnp.where(neg < 0, _c_rem(neg, m), neg)
                neg = jnp.where((j + m < 0) & (neg != 0), neg + m, neg)
                big = j - m
                big = jnp.where(big >= m, _c_rem(big, m), big)
                j = jnp.where(j < 0, neg, jnp.where(j >= m, big, j))
            else:
                j = jnp.where(j < 0, 0, jnp.where(j >= m, m - 1, j))
            total = total + j * s
        return total, jnp.any(bad)

    return jax.jit(kernel)


def _mul_overflows(dims: tuple, order: str) -> tuple[list, bool]:
    strides = [0] * len(dims)
    s = 1
    limit = np.iinfo(_INTP)
    seq = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    overflow = False
    for i in seq:
        strides[i] = s
        s *= dims[i]
        if not limit.min <= s <= limit.max:
            overflow = True
    return strides, overflow


def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise",
                      order: Any = "C") -> Any:
    """npjax implementation of ``numpy.ravel_multi_index`` (modes raise/wrap/clip, order
    C/F); NumPy's errors, out-of-bounds entries in 'raise' mode included."""
    dims = _dims(dims)
    order = _order(order)
    if isinstance(mode, tuple | list):
        modes = tuple(_mode(m) for m in mode)
        if len(modes) != len(dims):
            raise ValueError(f"list of clipmodes has wrong length ({len(modes)} instead of "
                             f"{len(dims)})")
    else:
        modes = (_mode(mode),) * len(dims)
    if not hasattr(multi_index, "__len__") or isinstance(multi_index, str):
        raise TypeError("dispatcher for __array_function__ did not return an iterable")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    strides, overflow = _mul_overflows(dims, order)
    if overflow:
        raise ValueError("invalid dims: array size defined by dims is larger than the "
                         "maximum possible size.")
    coords = [_index_operand(multi_index[i]) for i in range(len(dims))]
    shape = np.broadcast_shapes(*(c.shape for c in coords))
    coords = [jnp.broadcast_to(c, shape) for c in coords]
    count = int(np.prod(shape, dtype=np.int64))
    if count and any(d == 0 for d in dims):
        raise ValueError("cannot unravel if shape has zero entries (is empty).")
    total, bad = _ravel_kernel(dims, tuple(strides), modes)(*coords)
    if count and bool(bad):
        raise ValueError("invalid entry in coordinates array")
    return wrap(total, True)


@functools.lru_cache(maxsize=128)
def _unravel_kernel(dims: tuple, order: str) -> Any:
    def kernel(val):
        out = [None] * len(dims)
        seq = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
        for i in seq:
            d = jnp.asarray(dims[i], _INTP)
            out[i] = lax.rem(val, d)
            val = lax.div(val, d)
        return tuple(out)

    return jax.jit(kernel)


def unravel_index(indices: Any, shape: Any, order: Any = "C") -> tuple:
    """npjax implementation of ``numpy.unravel_index`` (a tuple of npjax arrays, scalars for
    a scalar index); out-of-bounds indices raise NumPy's ValueError."""
    dims = _dims(shape)
    order = _order(order)
    size = 1
    limit = np.iinfo(_INTP)
    for d in dims:
        if d == 0:
            size = 0
            break
        size *= d
        if not limit.min <= size <= limit.max:
            raise ValueError("dimensions are too large; arrays and shapes with a total size "
                             "greater than 'intp' are not supported.")
    val = _index_operand(indices)
    if val.size:
        bad = (val < 0) | (val >= size)
        if bool(jnp.any(bad)):
            first = int(val.reshape(-1)[jnp.argmax(bad.reshape(-1))])
            raise ValueError(f"index {first} is out of bounds for array with size {size}")
    if not dims:
        return ()
    if size == 0:  # no valid index exists: only empty index arrays get here
        return tuple(wrap(jnp.zeros(val.shape, _INTP), True) for _ in dims)
    return tuple(wrap(r, True) for r in _unravel_kernel(dims, order)(val))

