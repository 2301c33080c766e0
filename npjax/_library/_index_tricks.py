"""Index helpers: r_, c_, s_, ix_, ndindex, tril_indices, unravel_index, fill_diagonal, ...

Index arithmetic that depends only on shapes runs on the host (it touches no array data);
everything that reads or writes array elements runs on the device. Iteration (``flat``,
``ndenumerate``, ``nditer``, ``broadcast``) is in ``_iterators.py``.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._calls._dispatch import npfunc, wrap
from npjax._pure._errors import unsupported
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._placement._route import hand_written, public
from npjax._library._creation import array, asarray, ones
from npjax._library._dtype_functions import result_type as _result_type
from npjax._library._joining import concatenate
from npjax._library._ranges import arange as _arange, linspace
from npjax._library._selection import nonzero
from npjax._library._shape_ops import ndim as _ndim
from npjax._pure._declared import OWN_VIEWS

__all__ = [
    "r_", "c_", "s_", "index_exp", "ix_", "ndindex", "diag_indices", "diag_indices_from",
    "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from", "mask_indices",
    "ravel_multi_index", "unravel_index", "fill_diagonal",
]

# Pure shape iteration: NumPy's own class (it never sees array data).
ndindex = np.ndindex

_INTP = np.dtype(np.intp)

# The public functions (with the host route, as ``npjax.arange`` etc. have it).
arange, ndim, result_type = public(_arange), public(_ndim), public(_result_type)


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
                    newobj = linspace(start, item.stop, num=int(abs(step)))
                else:
                    newobj = arange(start, item.stop, step)
                if ndmin > 1:
                    newobj = array(newobj, copy=None, ndmin=ndmin)
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
                item_ndim = ndim(item)
                newobj = array(item, copy=None, ndmin=ndmin)
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
            final = result_type(*rtype_objs)
            objs = [array(obj, copy=None, ndmin=ndmin, dtype=final) for obj in objs]
        res = concatenate(tuple(objs), axis=axis)
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


@hand_written(OWN_VIEWS)
def ix_(*args: Any) -> tuple:
    """npjax implementation of ``numpy.ix_`` (npjax arrays; views of npjax inputs)."""
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, ndarray | np.ndarray):
            new = asarray(new)
            if new.size == 0:
                new = new.astype(_INTP)
        elif isinstance(new, np.ndarray):
            new = asarray(new)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype == np.bool_:
            new, = new.nonzero()
        new = new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1))
        out.append(new)
    return tuple(out)


# --- diagonal and triangle indices --------------------------------------------------------------


def _diag_indices(n: Any, ndim: int) -> tuple:
    idx = arange(n)
    return (idx,) * ndim


@npfunc
def diag_indices(n: Any, ndim: int = 2) -> tuple:
    """npjax implementation of ``numpy.diag_indices`` (npjax arrays)."""
    return _diag_indices(n, ndim)


@npfunc
def diag_indices_from(arr: Any) -> tuple:
    """npjax implementation of ``numpy.diag_indices_from``."""
    if not arr.ndim >= 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return _diag_indices(arr.shape[0], arr.ndim)


def _tri_indices(n: Any, k: Any, m: Any, upper: bool) -> tuple:
    # Index arithmetic on shapes only (no array data): NumPy's triangle mask on the host.
    mask = np.tri(n, m, k=k - 1 if upper else k, dtype=bool)
    if upper:
        mask = ~mask
    return tuple(to_jax(i.astype(_INTP)) for i in np.nonzero(mask))


@npfunc
def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple:
    """npjax implementation of ``numpy.tril_indices`` (npjax arrays)."""
    return _tri_indices(n, k, m, False)


@npfunc
def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple:
    """npjax implementation of ``numpy.triu_indices`` (npjax arrays)."""
    return _tri_indices(n, k, m, True)


@npfunc
def tril_indices_from(arr: Any, k: Any = 0) -> tuple:
    """npjax implementation of ``numpy.tril_indices_from``."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return _tri_indices(arr.shape[-2], k, arr.shape[-1], False)


@npfunc
def triu_indices_from(arr: Any, k: Any = 0) -> tuple:
    """npjax implementation of ``numpy.triu_indices_from``."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return _tri_indices(arr.shape[-2], k, arr.shape[-1], True)


@npfunc
def mask_indices(n: int, mask_func: Any, k: Any = 0) -> tuple:
    """npjax implementation of ``numpy.mask_indices``."""
    a = mask_func(ones((n, n), int), k)
    return nonzero(asarray(a) != 0)


@npfunc(host_route=True)
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


@npfunc
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


@npfunc
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

