"""An index as NumPy reads it, planned on the host: which items it holds, the lens steps of a
basic index, the template and checked index arrays of an advanced one, and the result's shape.

Basic indices (ints, slices, ``...``, ``None``) make views: each becomes lens steps (a ``Box``
with runtime start positions for ints and unit-step slices, then a static ``Strided`` for
slices with other steps, then a ``Reshape`` dropping int axes and adding ``None`` axes).
Advanced indices (integer and boolean arrays) copy: a hashable *template* of the index (the
kernels of ``_index_kernels`` apply it) and the list of its integer index arrays. Every index is
bounds-checked (``IndexError``, never JAX's clamp or drop): Python ints and slices on the host,
integer arrays with one device reduction (a device-side check under ``npjax.jit``). Errors
come in NumPy's order.

The bounds check of a device index array is not deferred (issue 16 asked whether it could be,
as floating-point warnings are): NumPy raises ``IndexError`` at the indexing line, and a check
read at the next host observation would raise at a later line, after the statements between
had run (their prints, writes and control flow), so the program would behave differently.
Warnings can wait (they name their line and change nothing); an exception cannot. So the check
stays at the call, made as cheap as it can be: no wait at all where the array's bounds are
known (``_bounds``: arrays made by ``argsort``, ``nonzero``, an integer ``arange``, or checked
before); in host memory (the CPU backend) a NumPy min/max of the buffer in place; in
accelerator memory the min and max computed by the gather's own program (``_gather_checked``)
and read in one small transfer. ``npjax.stats()["syncs"]["index_bounds"]`` counts the waits.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _bounds
from npjax._core import _buckets, _views
from npjax._runtime._host_reads import SYNCS, on_host
from npjax._core._array_base import ArrayBase
from npjax._core._executor import traced_bounds
from npjax._core._normalize import array_method_value, to_jax
from npjax._core._traced_index import traced_int, traced_slice

_INDEX_TYPES_MSG = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                    "integer or boolean arrays are valid indices")


# --- parsing --------------------------------------------------------------------------------


def _as_tuple(index: Any) -> tuple:
    return index if isinstance(index, tuple) else (index,)


# Types of traced index arrays of npjax.jit that are not arrays (``_compile._masked_index``)
INDEX_ARRAYS: set = set()


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
    if isinstance(item, ArrayBase | np.ndarray | jax.Array):
        if item.dtype.kind not in "iub":
            raise IndexError(_INDEX_TYPES_MSG if item.ndim == 0 else
                             "arrays used as indices must be of integer (or boolean) type")
        if item.ndim == 0 and item.dtype.kind in "iu":
            return "int"
        return "array"
    if isinstance(item, list | tuple) or type(item) in INDEX_ARRAYS:
        return "array"
    if hasattr(item, "__index__") and not isinstance(item, float | complex):
        return "int"
    raise IndexError(_INDEX_TYPES_MSG)


_FAST_ITEMS = frozenset({int, slice, type(None), type(Ellipsis), bool, list, tuple})


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


def _expand(index: Any, ndim: int, shape: tuple | None = None) -> tuple[list, list, bool, bool]:
    """Index items with ``...`` expanded; their kinds; whether any is advanced; and whether
    it is a full integer index (NumPy returns a scalar and writes one element). With the
    array's ``shape``: NumPy's limit of 63 index arrays where the rest is one element."""
    items = [it if type(it) in _FAST_ITEMS else array_method_value(it)
             for it in _as_tuple(index)]
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
    if advanced and shape is not None and len(kinds) > 63:
        _index_arrays_limit(items, kinds, shape)
    return items, kinds, advanced, single


def _index_arrays_limit(items: list, kinds: list, shape: tuple) -> None:
    """NumPy's IndexError for more than 64 index arrays (booleans count), or more than 63 when
    the dimensions the other items give hold one element (NumPy: no subspace)."""
    count = dim = 0
    subspace = 1
    for kind, item in zip(kinds, items):
        if kind in ("array", "bool"):
            n = _consumed(kind, item)
            count += max(n, 1)
            dim += n
        elif kind == "slice":
            subspace *= len(range(*item.indices(shape[dim])))
            dim += 1
        elif kind == "int":
            dim += 1
    if count > 64:
        raise IndexError("too many advanced (array) indices. This probably means you are "
                         "indexing with too many booleans. (more than 64 found)")
    if count > 63 and subspace == 1:
        raise IndexError("when no subspace is given, the number of index arrays cannot be "
                         f"above 63, but {count} index arrays found")


def _check_int(k: Any, axis: int, n: int) -> int:
    if type(k) is not int and not isinstance(k, np.integer):
        got = traced_int(k, axis, n)
        if got is not None:
            return got
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


_PLAIN = (int, type(None))


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
            host.append(k if isinstance(k, int) else 0)  # (a traced position: its box moves)
        else:
            moving = traced_slice(item, n) if kind == "slice" and (
                type(item.start) not in _PLAIN or type(item.stop) not in _PLAIN or
                type(item.step) not in _PLAIN) else None
            if moving is not None:  # bounds read from an array: a box that moves
                starts.append(moving[0])
                sizes.append(moving[1])
                strided.append((0, moving[1], 1))
                host.append(slice(0, moving[1]))
                out_shape.append(moving[1])
                axis += 1
                continue
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


def _remember_bounds(arr: Any, lo: int, hi: int) -> None:
    if isinstance(arr, jax.Array) and not isinstance(arr, jax.core.Tracer):
        _bounds.remember(arr, lo, hi)


def _host_min_max(arr: Any) -> tuple[int, int]:
    """(min, max) of a concrete index array, read now: in place on the host where the buffer
    is host memory (CPU backend: no copy, no kernel), else one fused reduction and one
    transfer; remembered for the array (``_bounds``)."""
    SYNCS["bounds"] += 1
    if on_host(arr):
        h = np.asarray(arr)
        lo, hi = int(h.min()), int(h.max())
    else:
        lo, hi = (int(v) for v in jax.device_get(_min_max(arr)))
    _remember_bounds(arr, lo, hi)
    return lo, hi


def _check_bounds(checks: list, shape: tuple) -> None:
    """NumPy's IndexError for an index array with an entry out of bounds, raised here (see
    the module docstring): bounds known for the array (``_bounds``) that fit the axis cost
    nothing; otherwise its min and max are read (one wait for a device array)."""
    for arr, axis in checks:
        n = shape[axis]
        if arr.size:
            if isinstance(arr, jax.core.Tracer) and traced_bounds(arr, n, axis, _min_max):
                continue  # npjax.jit: known to fit, or checked after the call
            known = _bounds.known(arr)
            if known is not None and -n <= known[0] and known[1] < n:
                continue
            lo, hi = _host_min_max(arr)  # (known bounds may be looser than the values)
            if lo < -n or hi >= n:
                bad = hi if hi >= n else lo
                raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def _device_checks(checks: list, shape: tuple, arrays: list) -> tuple | None:
    """Where every bounds check still to do needs a read from accelerator memory (no known
    bounds fit, not traced, not host memory): the positions of those arrays in ``arrays``,
    for a gather that computes their min and max in its own program (``_gather_checked``:
    one program, one small transfer, instead of a reduction's program and a transfer per
    array before the gather); else None."""
    slots = []
    for arr, axis in checks:
        n = shape[axis]
        if not arr.size:
            continue
        known = _bounds.known(arr)
        if known is not None and -n <= known[0] and known[1] < n:
            continue
        if n == 0 or isinstance(arr, jax.core.Tracer) or on_host(arr):
            return None  # (a gather from a size-0 axis does not trace on every JAX version)
        slots.append(next(i for i, x in enumerate(arrays) if x is arr))
    return tuple(slots) if slots else None


def _raise_out_of_bounds(checks: list, shape: tuple, arrays: list, slots: tuple,
                         bounds: Any) -> None:
    """After ``_gather_checked``: read the min and max it computed (one wait) and raise
    NumPy's IndexError for the first index array out of bounds."""
    SYNCS["bounds"] += 1
    found = {id(arrays[s]): (int(lo), int(hi)) for s, (lo, hi) in
             zip(slots, jax.device_get(bounds))}
    for arr, axis in checks:
        if id(arr) not in found:
            continue
        lo, hi = found[id(arr)]
        _remember_bounds(arr, lo, hi)
        n = shape[axis]
        if lo < -n or hi >= n:
            bad = hi if hi >= n else lo
            raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def _empty_list(item: Any) -> bool:
    """Whether ``item`` is a list or tuple with no element but empty lists or tuples."""
    return isinstance(item, list | tuple) and all(_empty_list(x) for x in item)


def _advanced_unchecked(items: list, kinds: list, shape: tuple,
                        pad: bool = False) -> tuple[tuple, list, list, bool, Any]:
    """The template, the index arrays, the (array, axis) bounds checks still to do, whether
    the index arrays broadcast to an empty shape, and the mask left to the caller.

    A boolean array becomes the index arrays of its True elements (``npjax._core._buckets``: one
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
        try:  # (an empty list is an intp index: NumPy's float64 of it no index, nor an
            # array a TPU holds)
            arr = to_jax(np.zeros(np.shape(item), np.intp) if _empty_list(item) else item)
        except Exception:  # lists of non-numbers (slices, None, strings)
            raise IndexError(_INDEX_TYPES_MSG) from None
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



def _one_mask(items: list, kinds: list) -> bool:
    """Whether the only index array is one boolean array of at least one dimension (the
    other items basic, or integers): ``a[mask]`` then reads at a bucketed length."""
    masks = 0
    for item, kind in zip(items, kinds):
        if kind == "array":
            if not (isinstance(item, ArrayBase | np.ndarray | jax.Array) and
                    item.dtype == np.bool_ and item.ndim):
                return False
            masks += 1
        elif kind == "bool":
            return False
    return masks == 1



# Index arrays of a length that changes from call to call (``a[idx] = v`` in a loop with idx
# of a new length each time) made one program per length. Per template and array shape, the
# first _EXACT_LENGTHS lengths get programs of their own length (a loop with one length
# never pads, never waits for the device); later ones are padded to a bucket (``_buckets``:
# O(log n) programs for n lengths), which reads the arrays on the host where they live on
# the device (one wait; in place on the CPU backend).
_EXACT_LENGTHS = 4
_LENGTHS_SEEN: dict[tuple, set] = {}


def _bucketed_arrays(template: tuple, shape: tuple, arrays: list) -> tuple | None:
    """The index arrays padded with 0 to a bucket of their length, the result's axis that
    pads, their length and the bucket; or None: not bucketed (the arrays are not 1-d of one
    length besides 0-d ones, the length is one of the first few seen, or the arrays are
    traced)."""
    length = None
    for x in arrays:
        s = np.shape(x)
        if len(s) > 1 or (len(s) == 1 and length not in (None, s[0])):
            return None
        if len(s) == 1:
            length = s[0]
        if isinstance(x, jax.core.Tracer):
            return None
    if not length:
        return None
    seen = _LENGTHS_SEEN.setdefault((template, shape), set())
    if length in seen or len(seen) < _EXACT_LENGTHS:
        if len(_LENGTHS_SEEN) > 4096:
            _LENGTHS_SEEN.clear()
        seen.add(length)
        return None
    size = _buckets.bucket(length, 1 << 62)
    if size == length:
        return None
    shapes = tuple(np.shape(x) for x in arrays)
    longer = tuple((length + 1,) if len(s) else s for s in shapes)
    axis = next(i for i, (m, n) in enumerate(zip(_advanced_shape(template, shape, shapes),
                                                 _advanced_shape(template, shape, longer)))
                if m != n)
    padded = [_buckets.pad(x, 0, size) if np.ndim(x) else x for x in arrays]
    return padded, axis, length, size


_FULL = slice(None)
