"""``a[index]`` and ``a[index] = value`` with NumPy's rules, on immutable JAX values.

Basic indices (ints, slices, ``...``, ``None``) make views: each becomes lens steps (a ``Box``
with runtime start positions for ints and unit-step slices, then a static ``Strided`` for
slices with other steps, then a ``Reshape`` dropping int axes and adding ``None`` axes).
Advanced indices (integer and boolean arrays) copy. Every index is bounds-checked
(``IndexError``, never JAX's clamp or drop): Python ints and slices on the host, integer arrays
with one device reduction.

Values are converted as NumPy converts them: host values (Python scalars, lists, NumPy
arrays and scalars) by NumPy itself on the host, so ``int_array[0] = 2.9`` stores 2,
``int8_array[0] = 1000`` raises ``OverflowError`` and NaN into an integer array raises
``ValueError``; device values are cast by the update kernel, except where JAX's cast is not
NumPy's (floats into integers: ``_casts``).

Writes go through one compiled, buffer-donating update kernel per lens *structure*, so a loop
``for i in range(n): a[i] = v`` compiles once, and so does ``a[i]`` read in a loop. Advanced
writes use "last write wins" for repeated indices, as NumPy does (JAX leaves the order of
conflicting scatters unspecified).
"""

from __future__ import annotations

import functools
import operator
import sys
import warnings
import weakref
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import SingleDeviceSharding

from npjax import _buckets, _casts, _views
from npjax._views import settled
from npjax._context import trace
from npjax._errors import ComplexWarning, JitError
from npjax._errstate import _stacklevel, call_numpy_ufunc, on_host
from npjax._impl.positions import selected
from npjax._lazy import Kernel, Lazy
from npjax._lazy import is_on as _lazy_on
from npjax import _stats
from npjax._ndarray import host_view, install_methods, ndarray
from npjax._normalize import to_jax
from npjax._placement import host_limit, place_result

_INDEX_TYPES_MSG = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                    "integer or boolean arrays are valid indices")
_HOST_SCALARS = (int, float, complex, bool, np.generic)
_FLOAT64 = np.dtype(np.float64)


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
        if item.dtype.kind not in "iub":
            raise IndexError(_INDEX_TYPES_MSG if item.ndim == 0 else
                             "arrays used as indices must be of integer (or boolean) type")
        if item.ndim == 0 and item.dtype.kind in "iu":
            return "int"
        return "array"
    if isinstance(item, list | tuple):
        return "array"
    if hasattr(item, "__index__") and not isinstance(item, float | complex):
        return "int"
    raise IndexError(_INDEX_TYPES_MSG)


def _consumed(kind: str, item: Any) -> int:
    if kind in ("int", "slice"):
        return 1
    if kind == "array":
        dtype = getattr(item, "dtype", None)
        if dtype is None:
            item = np.asarray(item)  # ragged lists raise NumPy's ValueError here
            dtype = item.dtype
        return item.ndim if dtype == np.bool_ else 1
    return 0


def _expand(index: Any, ndim: int) -> tuple[list, list, bool, bool]:
    """Index items with ``...`` expanded; their kinds; whether any is advanced; and whether
    it is a full integer index (NumPy returns a scalar and writes one element)."""
    items = list(_as_tuple(index))
    kinds = [_classify(it) for it in items]
    n_ellipsis = kinds.count("ellipsis")
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed(k, it) for k, it in zip(kinds, items))
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                         f"but {used} were indexed")
    single = n_ellipsis == 0 and used == ndim and all(k == "int" for k in kinds)
    fill = ndim - used
    if n_ellipsis:
        at = kinds.index("ellipsis")
        items[at:at + 1] = [slice(None)] * fill
        kinds[at:at + 1] = ["slice"] * fill
    else:
        items += [slice(None)] * fill
        kinds += ["slice"] * fill
    advanced = any(k in ("array", "bool") for k in kinds)
    return items, kinds, advanced, single


def _check_int(k: Any, axis: int, n: int) -> int:
    k = operator.index(k)
    if not -n <= k < n:
        raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
    return k + n if k < 0 else k


def _int_positions(index: Any, shape: tuple) -> tuple | None:
    """Checked positions when ``index`` is a plain full integer index, else None (fast path)."""
    t = type(index)
    if t is int:
        if len(shape) != 1:
            return None
        n = shape[0]
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of bounds for axis 0 with size {n}")
        return (index + n if index < 0 else index,)
    if t is not tuple or len(index) != len(shape):
        return None
    out = []
    for axis, k in enumerate(index):
        if type(k) is not int:
            if not isinstance(k, np.integer):
                return None
            k = int(k)
        n = shape[axis]
        if not -n <= k < n:
            raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
        out.append(k + n if k < 0 else k)
    return tuple(out)


def _basic_plan(items: list, kinds: list, shape: tuple) -> tuple[tuple, tuple]:
    """Lens steps for a basic index and the host index for the layout array."""
    starts, sizes, strided, host, out_shape = [], [], [], [], []
    any_strided = False
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
            strided.append((0, 1, 1))
            host.append(k)
        else:
            b, e, s = item.indices(n)
            length = len(range(b, e, s))
            if s == 1 or length <= 1:
                starts.append(b if length else 0)
                sizes.append(length)
                strided.append((0, length, 1))
            else:
                any_strided = True
                starts.append(0)
                sizes.append(n)
                strided.append((b, e, s))
            host.append(item)
            out_shape.append(length)
        axis += 1
    steps: list = []
    if tuple(sizes) != tuple(shape):
        steps.append(_views.Box(tuple(sizes), tuple(starts)))
    if any_strided:
        steps.append(_views.Strided(tuple(strided)))
    mid = tuple(e - b if s == 1 else len(range(b, e, s)) for b, e, s in strided)
    if tuple(out_shape) != mid:
        steps.append(_views.Reshape((mid, tuple(out_shape), "C")))
    host.append(Ellipsis)  # so that the layout index is a view even when it selects one item
    return tuple(steps), tuple(host)


# --- advanced indices -----------------------------------------------------------------------


@jax.jit
def _min_max(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jnp.min(a), jnp.max(a)


def _advanced_parts(items: list, kinds: list, shape: tuple) -> tuple[tuple, list]:
    """A hashable template of the index and the list of (checked) integer index arrays."""
    template, arrays, checks, empty, _ = _advanced_unchecked(items, kinds, shape)
    if not empty:
        _check_bounds(checks, shape)
    return template, arrays


# (min, max) of recently checked index arrays, by id, with a weak reference to confirm the
# identity: a jax.Array never changes, so a loop reusing one index array checks it once.
_BOUNDS_CACHE: dict[int, tuple] = {}


def _remember_bounds(arr: Any, lo: int, hi: int) -> None:
    if len(_BOUNDS_CACHE) >= 64:
        _BOUNDS_CACHE.clear()  # (atomic: safe with other threads indexing)
    _BOUNDS_CACHE[id(arr)] = (weakref.ref(arr), lo, hi)


def _host_min_max(arr: Any) -> tuple[int, int]:
    """(min, max) of a concrete index array: cached per array; read in place on the host
    where the buffer is host memory (CPU backend: no copy, no kernel), else one fused
    reduction and one transfer."""
    hit = _BOUNDS_CACHE.get(id(arr))
    if hit is not None and hit[0]() is arr:
        return hit[1], hit[2]
    if on_host(arr):
        h = np.asarray(arr)
        lo, hi = int(h.min()), int(h.max())
    else:
        lo, hi = (int(v) for v in jax.device_get(_min_max(arr)))
    if isinstance(arr, jax.Array):
        _remember_bounds(arr, lo, hi)
    return lo, hi


def _check_bounds(checks: list, shape: tuple) -> None:
    for arr, axis in checks:
        n = shape[axis]
        if arr.size:
            tr = trace()
            if tr is not None and isinstance(arr, jax.core.Tracer):
                lo, hi = _min_max(arr)
                tr.check((lo < -n) | (hi >= n))  # npjax.jit: checked after the call
                continue
            lo, hi = _host_min_max(arr)
            if lo < -n or hi >= n:
                bad = hi if hi >= n else lo
                raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def _advanced_unchecked(items: list, kinds: list, shape: tuple,
                        pad: bool = False) -> tuple[tuple, list, list, bool, Any]:
    """The template, the index arrays, the (array, axis) bounds checks still to do, whether
    the index arrays broadcast to an empty shape, and the mask left to the caller.

    A boolean array becomes the index arrays of its True elements (``npjax._buckets``: one
    program per bucket of their count). With ``pad`` (the caller checked that the mask is the
    only index array that is not a scalar) and some True elements, the mask is left to the
    caller instead, as ``(count, mask, slots)``: ``arrays`` holds placeholders of the right
    shape at ``slots`` (``_gather_masked`` computes those index arrays, padded to a bucket).

    Errors come in NumPy's order: from left to right, index arrays' types, boolean shapes,
    ints' bounds and zero slice steps; then the broadcasting of the index arrays; then the
    bounds of integer arrays. NumPy checks no bounds at all when the index arrays broadcast
    to an empty shape (nothing is selected).
    """
    parts: list = []  # per item: (tag, index arrays); tag None for slices and None
    axis = 0
    masked = None
    for item, kind in zip(items, kinds):
        if kind == "bool":
            parts.append(("b", [np.zeros(1 if item else 0, np.intp)]))
            continue
        if kind == "int":  # checked even when nothing is selected
            parts.append(("int", [np.intp(_check_int(item, axis, shape[axis]))]))
            axis += 1
            continue
        if kind == "slice" and item.step == 0:
            raise ValueError("slice step cannot be zero")
        if kind != "array":
            parts.append((None, []))
            axis += kind == "slice"
            continue
        try:
            arr = to_jax(item)
        except Exception:  # lists of non-numbers (slices, None, strings)
            raise IndexError(_INDEX_TYPES_MSG) from None
        if isinstance(item, list | tuple) and arr.size == 0:
            arr = arr.astype(np.intp)
        if arr.dtype.kind not in "iub":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if arr.dtype != np.bool_:
            if isinstance(item, np.ndarray) and item.size:  # host data: bounds from it, so
                _remember_bounds(arr, int(item.min()), int(item.max()))  # no wait on arr
            parts.append(("iarr", [arr]))
            axis += 1
            continue
        n = arr.ndim
        if n == 0:
            parts.append(("b", [np.zeros(1 if bool(arr) else 0, np.intp)]))
            continue
        # NumPy: each mask axis must match, except that a mask axis of length 0 fits any
        bad = next((i for i in range(n) if arr.shape[i] and (
            axis + i >= len(shape) or arr.shape[i] != shape[axis + i])), None)
        if bad is not None:
            size = shape[axis + bad] if axis + bad < len(shape) else 0
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis + bad}; "
                f"size of axis is {size} but size of corresponding boolean axis is "
                f"{arr.shape[bad]}")
        source = item if isinstance(item, np.ndarray) else arr  # host data: read there
        count = _buckets.count_nonzero(source)
        if pad and count:
            masked = (count, source)
            parts.append(("mask", [np.broadcast_to(_ZERO, (count,))] * n))  # placeholders
        else:
            parts.append(("mask", list(_buckets.nonzero(arr, count))))
        axis += n
    shapes = [np.shape(x) for _, xs in parts for x in xs]
    try:
        empty = 0 in np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         "with shapes " + " ".join(str(s) for s in shapes)) from None
    template, arrays, checks = [], [], []
    axis = 0
    for item, kind, (tag, xs) in zip(items, kinds, parts):
        if kind == "new":
            template.append(None)
            continue
        if kind == "slice":
            template.append(("s", item.start, item.stop, item.step))
            axis += 1
            continue
        if tag == "iarr":
            checks.append((xs[0], axis))
        if tag == "mask" and masked is not None:
            masked += (tuple(range(len(arrays), len(arrays) + len(xs))),)
        for x in xs:
            arrays.append(x)
            template.append(("b" if tag == "b" else "a", len(arrays) - 1))
            axis += tag != "b"
    return tuple(template), arrays, checks, empty, masked


_ZERO = np.intp(0)


def _take(template: tuple, x: jax.Array, arrays: Any) -> jax.Array:
    """``x[index]`` for the index ``template`` describes (traced).

    A 0-d boolean is an advanced index over a new axis of length 1 (NumPy): the axis is
    inserted and indexed by ``[0]`` (True) or ``[]`` (False), which places the result's axis
    by NumPy's rules (JAX's own scalar-boolean indexing misplaces it next to ``None``).
    """
    index, axis, new_axes = [], 0, []
    for t in template:
        if t is None:
            index.append(None)
            continue
        if t[0] == "s":
            index.append(slice(t[1], t[2], t[3]))
        else:
            if t[0] == "b":
                new_axes.append(axis)
            index.append(arrays[t[1]])
        axis += 1
    if new_axes:
        x = jnp.expand_dims(x, new_axes)
    return x[tuple(index)]


@functools.lru_cache(maxsize=512)
def _gather(template: tuple):
    return jax.jit(functools.partial(_take, template))


@functools.lru_cache(maxsize=512)
def _gather_masked(template: tuple, slots: tuple, shape: tuple):
    """Compiled ``x[index]`` where the index arrays at ``slots`` are those of the True elements
    of a boolean mask of ``shape``, padded to ``size`` (a kernel for ``npjax._buckets.run``:
    one program per bucket)."""

    def masked_take(x, arrays, sel, size):
        at = selected(sel, size)
        found = (at,) if len(shape) == 1 else jnp.unravel_index(at, shape)
        arrays = list(arrays)
        for at, f in zip(slots, found):
            arrays[at] = f
        return _take(template, x, arrays)

    return jax.jit(masked_take, static_argnames=("size",))


@functools.lru_cache(maxsize=512)
def _scatter_last(template: tuple, sharding: Any = None):
    """Compiled ``x[index] = value`` where repeated targets take the last value (NumPy)."""

    def scatter(x, arrays, value):
        ids = _take(template, jnp.arange(x.size).reshape(x.shape), arrays)
        value = _views.fit(value, ids.shape, x.dtype).ravel()
        ids = ids.ravel()
        order = jnp.arange(ids.size)
        winner = jnp.full(x.size, -1, order.dtype).at[ids].max(order)
        ids = jnp.where(winner[ids] == order, ids, x.size)
        return settled(x.ravel().at[ids].set(value, mode="drop").reshape(x.shape))

    return jax.jit(scatter, out_shardings=sharding)


@functools.lru_cache(maxsize=1024)
def _advanced_shape(template: tuple, shape: tuple, array_shapes: tuple) -> tuple:
    """Result shape of an advanced index, by NumPy's rule: the broadcast index arrays' shape
    replaces the advanced items when they are adjacent, else it comes first."""
    adv = np.broadcast_shapes(*[array_shapes[t[1]] for t in template
                                if t is not None and t[0] != "s"])
    out: list = []
    at, last, adjacent, axis = None, None, True, 0
    for k, t in enumerate(template):
        if t is None:
            out.append(1)
        elif t[0] == "s":
            out.append(len(range(*slice(t[1], t[2], t[3]).indices(shape[axis]))))
            axis += 1
        else:
            if at is None:
                at = len(out)
            elif last != k - 1:
                adjacent = False
            last = k
            axis += t[0] == "a"
    at = at if adjacent else 0
    return tuple(out[:at]) + tuple(adv) + tuple(out[at:])


def index_ids(template: tuple, arrays: list, shape: tuple) -> jax.Array:
    """Flat positions an index selects (for ``ufunc.at``)."""
    size = int(np.prod(shape, dtype=np.int64))
    return _take(template, jnp.arange(size).reshape(shape), arrays)


# --- values ---------------------------------------------------------------------------------


def _value_shape(value_shape: tuple, target: tuple, empty_advanced: bool = False) -> None:
    """Raise NumPy's ValueError unless a value of ``value_shape`` fits ``target`` (NumPy drops
    extra leading 1s of the value; any extra leading dims when an advanced index selects
    nothing)."""
    extra = len(value_shape) - len(target)
    if extra > 0 and (empty_advanced or all(n == 1 for n in value_shape[:extra])):
        value_shape = value_shape[extra:]
    if len(value_shape) <= len(target) and all(
            v in (1, t) for v, t in zip(value_shape[::-1], target[::-1])):
        return
    raise ValueError(f"could not broadcast input array from shape {value_shape} into shape "
                     f"{target}")


def _complex_warning(from_dtype: np.dtype, to_dtype: np.dtype) -> None:
    if from_dtype.kind == "c" and to_dtype.kind not in "cb":  # (to bool: nonzero, silent)
        warnings.warn("Casting complex values to real discards the imaginary part",
                      ComplexWarning, stacklevel=_stacklevel())  # at the user's line


def _single_value(value: Any, dtype: np.dtype) -> Any:
    """The value for one element, converted as NumPy converts it (``arr[i] = value``)."""
    if type(value) is float and dtype == _FLOAT64:  # exact as it is: skip the host array
        return value
    if isinstance(value, ndarray | jax.Array):
        if value.ndim == 0:
            if np.can_cast(value.dtype, dtype, "safe"):
                return value._read_lazy() if isinstance(value, ndarray) else value
            if not (isinstance(value, ndarray) and value._scalar):
                _complex_warning(value.dtype, dtype)
                return value._read_lazy() if isinstance(value, ndarray) else value
            if trace() is not None and isinstance(value._read(), jax.core.Tracer):
                return _traced_scalar(value._read(), dtype)
        value = value._host_scalar() if isinstance(value, ndarray) and value._scalar else \
            np.asarray(value)
    tmp = np.empty((), dtype)
    tmp[()] = value
    return tmp


def _traced_scalar(v: jax.Array, dtype: np.dtype) -> jax.Array:
    """npjax.jit: a traced NumPy scalar stored into an array of ``dtype``. NumPy converts it
    on the host (as a Python value); here it is cast on the device, and a device-side check
    (conservative) sends the call to eager NumPy semantics when the two could differ."""
    bad = jnp.zeros((), bool)
    if v.dtype.kind == "c" and dtype.kind != "c":
        bad = v.imag != 0  # NumPy warns (ComplexWarning)
        v = jnp.real(v)
    src = np.dtype(v.dtype)
    if dtype.kind in "iu" and src.kind == "f":
        info = np.iinfo(dtype)
        t = jnp.trunc(v)
        bad = bad | ~jnp.isfinite(v) | (t < float(info.min)) | (t >= float(info.max + 1))
    elif dtype.kind in "iu" and src.kind in "iu" and not np.can_cast(src, dtype):
        info, sinfo = np.iinfo(dtype), np.iinfo(src)
        bad = bad | (v < max(info.min, sinfo.min)) | (v > min(info.max, sinfo.max))
    elif dtype.kind in "fc" and src.kind in "fc":
        bad = bad | (jnp.isfinite(v) & ~jnp.isfinite(v.astype(dtype)))  # NumPy warns
    trace().check(bad)
    return v


def convert_value(value: Any, dtype: np.dtype, target: tuple, advanced: bool = False) -> Any:
    """A value to store into a ``target``-shaped region of an array of ``dtype``, converted
    as NumPy's setitem does: a host ``numpy.ndarray`` or a ``jax.Array`` (cast later)."""
    if isinstance(value, ndarray) and value._scalar and not advanced and not np.can_cast(
            value.dtype, dtype, "safe"):
        if trace() is not None and isinstance(value._read(), jax.core.Tracer):
            return _traced_scalar(value._read(), dtype)
        value = value._host_scalar()  # a NumPy scalar: NumPy converts it as a Python value
    if isinstance(value, ndarray | jax.Array):
        _complex_warning(value.dtype, dtype)
        if isinstance(value, ndarray):  # basic writes are recorded in lazy mode
            v = value._read() if advanced else value._read_lazy()
        else:
            v = value
    elif isinstance(value, np.ndarray):
        v = value.astype(dtype, copy=False)
    elif advanced:
        v = np.asarray(value, dtype=dtype)
    elif isinstance(value, _HOST_SCALARS):
        v = np.empty((), dtype)
        v[...] = value
    elif isinstance(value, list | tuple) and any(
            isinstance(x, ndarray | jax.Array) for x in value):
        v = to_jax(value)
        _complex_warning(v.dtype, dtype)
    else:  # lists and other host objects: NumPy fills the target region itself
        v = np.empty(target, dtype)
        v[...] = value
        return v
    _value_shape(v.shape, target, advanced and 0 in target)
    return v


def cast_device(v: Any, dtype: np.dtype) -> Any:
    """A device value to store into an array of ``dtype``, cast by ``_casts`` where JAX's
    cast is not NumPy's (floats to integers: NaN, infinities, out of range). Host values are
    NumPy's already; other device values are cast by the update kernel."""
    if isinstance(v, jax.Array | Lazy):
        return _casts.precast(v, dtype)
    return v


def as_value(value: Any, dtype: np.dtype) -> Any:
    """A value to store into an array of ``dtype`` as NumPy's fancy assignment converts it
    (``numpy.asarray(value, dtype)`` on the host; device values are returned as they are)."""
    if isinstance(value, ndarray | jax.Array):
        _complex_warning(value.dtype, dtype)
        return value._read() if isinstance(value, ndarray) else value
    return to_jax(np.asarray(value, dtype=dtype))


# --- reading --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _owner_scalar_reader(ndim: int):
    ones = (1,) * ndim
    return Kernel(jax.jit(lambda x, starts: lax.dynamic_slice(x, starts, ones).reshape(())))


def getitem(a: ndarray, index: Any) -> ndarray:
    shape = a.shape
    pos = _int_positions(index, shape)
    if pos is not None:
        return _read_one(a, pos)
    items, kinds, advanced, single = _expand(index, len(shape))
    if advanced:
        tr = trace()
        if tr is not None:  # npjax.jit: a traced mask's read is a masked value (_masked)
            got = tr.mask_read(a, items, kinds, shape)
            if got is not None:
                return got
        template, arrays, checks, empty, masked = _advanced_unchecked(
            items, kinds, shape, _one_mask(items, kinds))
        if empty:  # nothing selected: NumPy checks no bounds
            target = _advanced_shape(template, shape, tuple(np.shape(x) for x in arrays))
            return ndarray._owner(_buckets.zeros(target, a.dtype))
        _check_bounds(checks, shape)
        if masked is None:
            return ndarray._owner(_gather(template)(a._read(), arrays))
        count, mask, slots = masked
        # the result's axis of the mask's elements: where a longer mask makes it longer
        longer = [np.shape(x) for x in arrays]
        for s in slots:
            longer[s] = (count + 1,)
        axis = next(i for i, (m, n) in enumerate(zip(
            _advanced_shape(template, shape, tuple(np.shape(x) for x in arrays)),
            _advanced_shape(template, shape, tuple(longer)))) if m != n)
        others = [None if i in slots else x for i, x in enumerate(arrays)]
        got, _ = _buckets.run(_gather_masked(template, slots, mask.shape), mask, a._read(),
                              others, axes=axis, count=count)
        return ndarray._owner(got[0])
    steps, host = _basic_plan(items, kinds, shape)
    if single:
        return _read_one(a, tuple(_check_int(k, i, n) for i, (k, n) in
                                  enumerate(zip(items, shape))))
    return a._view(steps, a._layout_array()[host])


def _one_mask(items: list, kinds: list) -> bool:
    """Whether the only index array is one boolean array of at least one dimension (the
    other items basic, or integers): ``a[mask]`` then reads at a bucketed length."""
    masks = 0
    for item, kind in zip(items, kinds):
        if kind == "array":
            if not (isinstance(item, ndarray | np.ndarray | jax.Array) and
                    item.dtype == np.bool_ and item.ndim):
                return False
            masks += 1
        elif kind == "bool":
            return False
    return masks == 1


def _read_one(a: ndarray, pos: tuple) -> ndarray:
    """The element at checked positions ``pos``, as a NumPy-style scalar."""
    if a._base is None:
        if not pos:
            return ndarray._owner(a._read_lazy(), True)
        return ndarray._owner(_owner_scalar_reader(len(pos))(a._read_lazy(), pos), True)
    if not pos:
        return ndarray._owner(a._read_lazy(), True)
    ones = (1,) * len(pos)
    lens = _views.compose(a._full_lens(), _views.Box(ones, pos),
                          _views.Reshape((ones, (), "C")))
    return ndarray._owner(Kernel(_views.getter(lens))(a._base._read_lazy(),
                                                      _views.dynamic_args(lens)), True)


# --- writing --------------------------------------------------------------------------------


def _check_mask_value(index: Any, ndim: int, value: Any) -> None:
    """NumPy's full-mask assignment (the index is one boolean array of the array's ndim)
    takes a 0-d or 1-d value only (TypeError otherwise)."""
    items = _as_tuple(index)
    if len(items) != 1:
        return
    mask = items[0]
    if not isinstance(mask, ndarray | np.ndarray | jax.Array) or mask.dtype != np.bool_ \
            or mask.ndim != ndim:
        return
    try:
        value_ndim = value.ndim if isinstance(value, ndarray | np.ndarray | jax.Array) \
            else np.ndim(value)
    except ValueError:  # ragged: NumPy's own conversion error comes later
        return
    if value_ndim > 1:
        raise TypeError("NumPy boolean array indexing assignment requires a 0 or "
                        f"1-dimensional input, input has {value_ndim} dimensions")


def setitem(a: ndarray, index: Any, value: Any) -> None:
    if a._scalar:
        raise TypeError(f"'numpy.{a.dtype.type.__name__}' object does not support item "
                        "assignment")
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    shape = a.shape
    pos = _int_positions(index, shape)
    if pos is not None:
        _write_one(a, pos, value)
        return
    items, kinds, advanced, single = _expand(index, len(shape))
    dtype = a.dtype
    if advanced:
        tr = trace()
        if tr is not None and tr.mask_store(a, items, kinds, shape, value):
            return  # npjax.jit: a masked value written back under its mask (_masked)
        if _mask_store(a, items, kinds, shape, value):
            return
        template, arrays, checks, empty, _ = _advanced_unchecked(items, kinds, shape)
        _check_mask_value(index, len(shape), value)
        target = _advanced_shape(template, shape, tuple(np.shape(x) for x in arrays))
        v = convert_value(value, dtype, target, advanced=True)  # NumPy: value errors first
        if empty:
            return
        v = cast_device(v, dtype)
        _check_bounds(checks, shape)
        current = a._read()
        scatter = _scatter_last(template, _multi_device_sharding(current))
        write_through(a, (), scatter(current, arrays, v))
        return
    steps, host = _basic_plan(items, kinds, shape)
    if single:
        _write_one(a, tuple(_check_int(k, i, n) for i, (k, n) in enumerate(zip(items, shape))),
                   value)
        return
    if type(value) is ndarray and value._base is not None and _is_same_view(a, steps, value):
        return  # ``a[k] = a[k]``, the store of ``a[k] += v``: nothing changes
    target = a._layout_array()[host].shape
    write_through(a, steps, convert_value(value, dtype, target))


def _is_same_view(a: ndarray, steps: tuple, value: ndarray) -> bool:
    """Whether ``value`` is a view of exactly the elements ``a`` seen through ``steps``."""
    root = a if a._base is None else a._base
    if value._base is not root:
        return False
    lens = _views.compose(a._full_lens() if a._base is not None else (), *steps)
    other = value._full_lens()  # steps compare by structure; positions are dynamic
    return other == lens and _views.dynamic_args(other) == _views.dynamic_args(lens)


def _mask_store(a: ndarray, items: list, kinds: list, shape: tuple, value: Any) -> bool:
    """``a[mask] = value`` where ``mask`` covers the leading axes and every selected element
    gets the same value (a scalar, or a value that fits the unmasked axes): a ``where`` of
    one compiled program per shape, whatever the number of true elements (a scatter at the
    selected positions compiles once per count). Returns False for other indexes.

    NumPy's value conversion and errors are kept: only values that fit every count take
    this path, and a mask whose shape does not match the array's leads to the general path
    (which raises NumPy's IndexError)."""
    mask = items[0]
    if kinds[0] != "array" or any(k != "slice" or it != _FULL for k, it in
                                  zip(kinds[1:], items[1:])):
        return False
    if not isinstance(mask, ndarray | np.ndarray | jax.Array) or mask.dtype != np.bool_:
        return False
    n = mask.ndim
    if n == 0 or tuple(mask.shape) != shape[:n]:
        return False
    rest = shape[n:]
    device_value = isinstance(value, ndarray | jax.Array)
    if not device_value:
        value = np.asarray(value, dtype=a.dtype)  # NumPy's conversion of fancy-assigned values
    vshape = tuple(value.shape)
    if len(vshape) > len(rest) or np.broadcast_shapes(vshape, rest) != rest:
        return False  # values per selected element (or a shape error): the general path
    v = value
    if device_value:
        _complex_warning(value.dtype, a.dtype)
        v = value._read_lazy() if isinstance(value, ndarray) else value
        v = cast_device(v, a.dtype)
    m = mask._read_lazy() if isinstance(mask, ndarray) else to_jax(mask)
    write_through(a, (), _mask_where(len(rest))(a._read_lazy(), m, v))
    return True


_FULL = slice(None)


@functools.lru_cache(maxsize=64)
def _mask_where(n_rest: int):
    def store(x, mask, v):
        keep = mask.reshape(mask.shape + (1,) * n_rest)
        return jnp.where(keep, _views.fit(v, x.shape[mask.ndim:], x.dtype), x)

    return Kernel(jax.jit(store))


@functools.lru_cache(maxsize=64)
def _owner_scalar_writer(ndim: int, donate: bool):
    ones = (1,) * ndim

    def write(x, starts, v):
        return settled(lax.dynamic_update_slice(x, _views.fit(v, ones, x.dtype), starts))

    return Kernel(jax.jit(write, donate_argnums=(0,) if donate else ()))


def _write_one(a: ndarray, pos: tuple, value: Any) -> None:
    """``a[pos] = value`` for one element (the hot path of element loops)."""
    v = cast_device(_single_value(value, a.dtype), a.dtype)
    if a._base is None and pos and type(a._value) is not np.ndarray:
        tr = trace()
        if tr is not None:
            tr.note_write(a)
        # Donate the old buffer only when this array made it and nothing else refers to it
        # (the slot and getrefcount's own argument are the only two references); never in
        # lazy mode (recorded calls hold their operands).
        lazy = _lazy_on()
        if not lazy:
            a._read()  # a value left by lazy mode: computed now
        donate = not lazy and a._mine and sys.getrefcount(a._value) == 2
        a._value = _owner_scalar_writer(len(pos), donate)(a._value, pos, v)
        a._mine = True
        a._version += 1
        return
    write_through(a, (_views.Box((1,) * len(pos), pos),) if pos else (), v)


@functools.lru_cache(maxsize=2048)
def _updater(lens: tuple, donate: bool, sharding: Any = None):
    """The update kernel of one lens structure; a root spread over several devices keeps its
    sharding (XLA would otherwise replicate the result of a scatter)."""
    def update(root, dyns, new):
        return settled(_views.apply_set(lens, root, dyns, new))

    return Kernel(jax.jit(update, donate_argnums=(0,) if donate else (),
                          out_shardings=sharding))


def _multi_device_sharding(value: Any) -> Any:
    if isinstance(value, jax.core.Tracer | Lazy):
        return None
    sharding = getattr(value, "sharding", None)
    return None if isinstance(sharding, SingleDeviceSharding) else sharding


def write_through(a: ndarray, steps: tuple, new: Any) -> None:
    """Store ``new`` (broadcastable; a jax.Array or a host array) at ``a`` seen through
    ``steps``, updating the root."""
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    new = cast_device(new, a.dtype)
    root = a if a._base is None else a._base
    tr = trace()
    if type(root._value) is np.ndarray:  # a host array: the new part computed, then stored
        if tr is not None:
            raise JitError("npjax.jit: the function writes to an array that is not one of "
                           "its arguments (captured from an enclosing scope); pass that "
                           "array as an argument")
        target = a._host()
        value = _views.apply_set(steps, jax.device_put(target), _views.dynamic_args(steps),
                                 jnp.asarray(new))
        target[...] = _stats.fetch(value)
        return
    if tr is not None:
        tr.note_write(root)
    lens = _views.compose(a._full_lens() if a._base is not None else (), *steps)
    lazy = _lazy_on()
    old = root._read_lazy() if lazy else root._read()
    if not lens and getattr(new, "shape", None) == old.shape and new.dtype == old.dtype:
        root._value = new if isinstance(new, jax.Array | Lazy) else to_jax(new)
        root._mine = False
    else:
        del old
        donate = not lazy and root._mine and sys.getrefcount(root._value) == 2
        keep = None if tr is not None else _multi_device_sharding(root._value)
        root._value = _updater(lens, donate, keep)(root._value, _views.dynamic_args(lens), new)
        root._mine = True
    root._version += 1
    if root._layout is not None and root._layout.shape != root._value.shape:
        root._layout = None


# --- the array's element access ---------------------------------------------------------------


def _getitem_method(self: ndarray, index: Any) -> ndarray:
    root = self._base
    if root is None:
        root, data = self, self._value
    else:
        data = self._layout
    if type(root._value) is np.ndarray:  # a host array: NumPy's indexing (views, errors)
        kind = type(index)
        if kind is int and data.ndim == 1:
            return data[index]  # the scalar loop's read: NumPy's scalar
        if kind is slice or kind is int:
            key = index
        else:
            key = _host_index(index)
            if key is _DEVICE:
                return getitem(self, index)
        got = data[key]
        if type(got) is not np.ndarray:  # an element: NumPy's scalar
            return got
        if got.base is root._value:  # the common view: of the root's own memory
            return host_view(root, got)
        return place_result(got, (self,), host_limit())
    return getitem(self, index)


_FLOAT64, _INT64 = np.dtype(np.float64), np.dtype(np.int64)


def _setitem_method(self: ndarray, index: Any, value: Any) -> None:
    data = self._host()
    if data is not None and not self._scalar:
        if type(index) is int and (type(value) is float or type(value) is int) and (
                data.dtype is _FLOAT64 or data.dtype is _INT64):
            data[index] = value  # the scalar loop's write, NumPy's own (it cannot warn)
            return
        key = _host_index(index)
        new = _host_part(value)
        if key is not _DEVICE and new is not _DEVICE:
            if data.dtype.kind in "fiu" and getattr(new, "dtype", None) is not None and \
                    new.dtype.kind == "c":  # NumPy's warning, at the user's line
                _complex_warning(new.dtype, data.dtype)
                new = new.real
            if _cast_may_warn(new, data.dtype):  # NumPy's warning, at the user's line
                call_numpy_ufunc(data.__setitem__, (key, new), {})
            else:
                data[key] = new
            return
    _stats.record_scalar_write(index)  # the report's advice is about device writes
    setitem(self, index, value)


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
    if isinstance(x, jax.Array):
        return _DEVICE if isinstance(x, jax.core.Tracer) else _stats.fetch(x)
    return x


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
    write_through(self, (), new)


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
