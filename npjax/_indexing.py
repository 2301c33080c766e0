"""``a[index]`` and ``a[index] = value`` with NumPy's rules, on immutable JAX values.

Basic indices (ints, slices, ``...``, ``None``) make views: each becomes lens steps (a ``Box``
with runtime start positions when every step is 1, else a static ``Strided``). Advanced indices
(integer and boolean arrays) copy. Every index is bounds-checked (``IndexError``, never JAX's
clamp or drop): Python ints and slices on the host, integer arrays with one device reduction.

Writes go through one compiled, buffer-donating update kernel per lens *structure*, so a loop
``for i in range(n): a[i] = v`` compiles once. Advanced writes use "last write wins" for
repeated indices, as NumPy does (JAX leaves the order of conflicting scatters unspecified).
"""

from __future__ import annotations

import functools
import operator
import sys
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax import _views
from npjax._errors import ComplexWarning
from npjax._ndarray import ndarray
from npjax._normalize import to_jax

_INDEX_TYPES_MSG = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                    "integer or boolean arrays are valid indices")
_ARRAY_TYPES = (ndarray, np.ndarray, jax.Array, list)


# --- parsing --------------------------------------------------------------------------------


def _as_tuple(index: Any) -> tuple:
    return index if isinstance(index, tuple) else (index,)


def _classify(item: Any) -> str:
    """'new', 'ellipsis', 'slice', 'int', 'bool' (a Python/NumPy bool) or 'array'."""
    if item is None:
        return "new"
    if item is Ellipsis:
        return "ellipsis"
    if isinstance(item, slice):
        return "slice"
    if isinstance(item, bool | np.bool_):
        return "bool"
    if isinstance(item, int | np.integer):
        return "int"
    if isinstance(item, ndarray | np.ndarray | jax.Array):
        if item.ndim == 0 and item.dtype.kind in "iu":
            return "int"
        if item.dtype.kind not in "iub":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return "array"
    if isinstance(item, list | tuple):
        return "array"
    if hasattr(item, "__index__"):
        return "int"
    raise IndexError(_INDEX_TYPES_MSG)


def _consumed(kind: str, item: Any) -> int:
    if kind in ("int", "slice"):
        return 1
    if kind == "array":
        dtype = getattr(item, "dtype", None)
        if dtype is None:
            item = np.asarray(item)
            dtype = item.dtype
        return item.ndim if dtype == np.bool_ else 1
    return 0


def _expand(index: Any, ndim: int) -> tuple[list, list, bool]:
    """Index items with ``...`` expanded; their kinds; and whether any is advanced."""
    items = list(_as_tuple(index))
    kinds = [_classify(it) for it in items]
    if kinds.count("ellipsis") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed(k, it) for k, it in zip(kinds, items))
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                         f"but {used} were indexed")
    fill = ndim - used
    if "ellipsis" in kinds:
        at = kinds.index("ellipsis")
        items[at:at + 1] = [slice(None)] * fill
        kinds[at:at + 1] = ["slice"] * fill
    else:
        items += [slice(None)] * fill
        kinds += ["slice"] * fill
    advanced = any(k in ("array", "bool") for k in kinds)
    return items, kinds, advanced


def _check_int(k: Any, axis: int, n: int) -> int:
    k = operator.index(k)
    if not -n <= k < n:
        raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
    return k + n if k < 0 else k


def _basic_plan(items: list, kinds: list, shape: tuple) -> tuple[tuple, tuple, bool]:
    """Lens steps for a basic index, the host index for the layout array, and scalar-ness."""
    starts, sizes, strided, host, out_shape = [], [], [], [], []
    contiguous = True
    axis = 0
    for item, kind in zip(items, kinds):
        if kind == "new":
            host.append(None)
            out_shape.append(1)
            continue
        n = shape[axis]
        if kind == "int":
            k = _check_int(item, axis, n)
            starts.append(k)
            sizes.append(1)
            strided.append((k, k + 1, 1))
            host.append(k)
        else:
            b, e, s = item.indices(n)
            length = len(range(b, e, s))
            contiguous = contiguous and s == 1
            starts.append(b if length else 0)
            sizes.append(length)
            strided.append((b, e, s))
            host.append(slice(b, e if e >= 0 else None, s))
            out_shape.append(length)
        axis += 1
    steps: list = []
    if contiguous:
        if tuple(sizes) != tuple(shape):
            steps.append(_views.Box(tuple(sizes), tuple(starts)))
    else:
        steps.append(_views.Strided(tuple(strided)))
    if tuple(out_shape) != tuple(sizes):
        steps.append(_views.Reshape((tuple(sizes), tuple(out_shape), "C")))
    scalar = not out_shape and "new" not in kinds
    return tuple(steps), tuple(host), scalar


# --- advanced indices -----------------------------------------------------------------------


@jax.jit
def _min_max(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jnp.min(a), jnp.max(a)


def _advanced_parts(items: list, kinds: list, shape: tuple) -> tuple[tuple, list]:
    """A hashable template of the index and the list of (checked) integer index arrays."""
    template, arrays = [], []
    axis = 0
    for item, kind in zip(items, kinds):
        if kind == "new":
            template.append(None)
            continue
        if kind == "slice":
            template.append(("s", item.start, item.stop, item.step))
            axis += 1
            continue
        if kind == "bool":
            template.append(("b", bool(item)))
            continue
        if kind == "int":
            k = _check_int(item, axis, shape[axis])
            arrays.append(jnp.asarray(k, dtype=np.intp))
            template.append(("a", len(arrays) - 1))
            axis += 1
            continue
        arr = to_jax(item)
        if isinstance(item, list | tuple) and arr.size == 0:
            arr = arr.astype(np.intp)
        if arr.dtype == np.bool_:
            n = arr.ndim
            if arr.shape != tuple(shape[axis:axis + n]):
                raise IndexError(
                    f"boolean index did not match indexed array along axis {axis}; size of "
                    f"axis is {shape[axis] if axis < len(shape) else 0} but size of "
                    f"corresponding boolean axis is {arr.shape[0] if n else 0}")
            for part in jnp.nonzero(arr):
                arrays.append(part)
                template.append(("a", len(arrays) - 1))
            axis += n
            continue
        if arr.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        n = shape[axis]
        if arr.size:
            lo, hi = (int(v) for v in _min_max(arr))
            if lo < -n or hi >= n:
                bad = hi if hi >= n else lo
                raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
        arrays.append(arr)
        template.append(("a", len(arrays) - 1))
        axis += 1
    return tuple(template), arrays


def _rebuild(template: tuple, arrays: Any) -> tuple:
    index = []
    for t in template:
        if t is None:
            index.append(None)
        elif t[0] == "s":
            index.append(slice(t[1], t[2], t[3]))
        elif t[0] == "b":
            index.append(t[1])
        else:
            index.append(arrays[t[1]])
    return tuple(index)


@functools.lru_cache(maxsize=512)
def _gather(template: tuple):
    return jax.jit(lambda x, arrays: x[_rebuild(template, arrays)])


@functools.lru_cache(maxsize=512)
def _scatter_last(template: tuple):
    """Compiled ``x[index] = value`` where repeated targets take the last value (NumPy)."""

    def scatter(x, arrays, value):
        ids = jnp.arange(x.size).reshape(x.shape)[_rebuild(template, arrays)]
        value = jnp.broadcast_to(value, ids.shape).astype(x.dtype).ravel()
        ids = ids.ravel()
        order = jnp.arange(ids.size)
        winner = jnp.full(x.size, -1, order.dtype).at[ids].max(order)
        ids = jnp.where(winner[ids] == order, ids, x.size)
        return x.ravel().at[ids].set(value, mode="drop").reshape(x.shape)

    return jax.jit(scatter)


@functools.lru_cache(maxsize=1024)
def _advanced_shape(template: tuple, shape: tuple, array_shapes: tuple) -> tuple:
    """Result shape of an advanced index, from its structure alone."""
    arrays = [jax.ShapeDtypeStruct(s, np.intp) for s in array_shapes]
    x = jax.ShapeDtypeStruct(shape, np.float32)
    return jax.eval_shape(lambda x, arrs: x[_rebuild(template, arrs)], x, arrays).shape


def index_ids(template: tuple, arrays: list, shape: tuple) -> jax.Array:
    """Flat positions an index selects (for ``ufunc.at``)."""
    size = int(np.prod(shape, dtype=np.int64))
    return jnp.arange(size).reshape(shape)[_rebuild(template, arrays)]


# --- public entry points --------------------------------------------------------------------


def getitem(a: ndarray, index: Any) -> ndarray:
    shape = a.shape
    items, kinds, advanced = _expand(index, len(shape))
    if advanced:
        template, arrays = _advanced_parts(items, kinds, shape)
        return ndarray._owner(_gather(template)(a._read(), arrays))
    steps, host, scalar = _basic_plan(items, kinds, shape)
    if scalar:
        root = a if a._base is None else a._base
        lens = _views.compose(a._lens, *steps)
        return ndarray._owner(_views.read(lens, root._value), True)
    return a._view(steps, a._layout_array()[host])


def _value_shape(value_shape: tuple, target: tuple) -> tuple:
    """Shape the value takes for the target region (NumPy drops extra leading 1s)."""
    extra = len(value_shape) - len(target)
    if extra > 0 and all(n == 1 for n in value_shape[:extra]):
        value_shape = value_shape[extra:]
    try:
        if np.broadcast_shapes(value_shape, target) == target:
            return value_shape
    except ValueError:
        pass
    raise ValueError(f"could not broadcast input array from shape {value_shape} into shape "
                     f"{target}")


def as_value(value: Any, dtype: np.dtype) -> jax.Array:
    """A value to store into an array of ``dtype``, converted as NumPy's setitem does."""
    if isinstance(value, ndarray | jax.Array):
        v = value._read() if isinstance(value, ndarray) else value
        if v.dtype.kind == "c" and dtype.kind != "c":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          ComplexWarning, stacklevel=3)
        return v
    return to_jax(np.asarray(value, dtype=dtype))


def setitem(a: ndarray, index: Any, value: Any) -> None:
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    shape = a.shape
    items, kinds, advanced = _expand(index, len(shape))
    v = as_value(value, a.dtype)
    if advanced:
        template, arrays = _advanced_parts(items, kinds, shape)
        target_shape = _advanced_shape(template, shape, tuple(x.shape for x in arrays))
        v = v.reshape(_value_shape(v.shape, target_shape))
        write_through(a, (), _scatter_last(template)(a._read(), arrays, v))
        return
    steps, host, _ = _basic_plan(items, kinds, shape)
    target = a._layout_array()[host].shape
    write_through(a, steps, v.reshape(_value_shape(v.shape, target)))


@functools.lru_cache(maxsize=2048)
def _updater(lens: tuple, donate: bool):
    return jax.jit(functools.partial(_views.apply_set, lens),
                   donate_argnums=(0,) if donate else ())


def write_through(a: ndarray, steps: tuple, new: jax.Array) -> None:
    """Store ``new`` (broadcastable) at ``a`` seen through ``steps``, updating the root."""
    root = a if a._base is None else a._base
    lens = _views.compose(a._lens, *steps)
    if not lens and new.shape == root._value.shape and new.dtype == root._value.dtype:
        root._value = new
        root._mine = False
    else:
        # Donate the old buffer only when this array made it and nothing else refers to it
        # (the slot and getrefcount's own argument are the only two references).
        donate = root._mine and sys.getrefcount(root._value) == 2
        root._value = _updater(lens, donate)(root._value, _views.dynamic_args(lens), new)
        root._mine = True
    root._version += 1
    if root._layout is not None and root._layout.shape != root._value.shape:
        root._layout = None
