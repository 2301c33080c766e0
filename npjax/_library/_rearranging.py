"""Rearranging and padding functions (roll, tile, repeat, resize, insert, delete, pad, ...).

These return new owners (a view of a temporary where NumPy gives one; ``trim_zeros`` a
view). Also home of the small helpers shared with ``_shape_ops.py`` and ``_joining.py``.
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

from npjax._runtime._errstate import _stacklevel
from npjax._core import _casts
from npjax._pure import _dtypes
from npjax._calls._dispatch import ArrayIn, AxisIn, DTypeIn, npfunc
from npjax._core._out import write_out
from npjax._pure._errors import ComplexWarning, unsupported
from npjax._pure._axes import diagonal_axes, integer, normalize_axes, normalize_axis
from npjax._execution._lazy import concrete  # copyto: a cast recorded in lazy mode, computed
from npjax._core._ndarray import install_methods, ndarray
from npjax._core._normalize import to_jax

__all__ = [
    "roll", "tile", "repeat", "pad", "resize", "insert", "delete", "trim_zeros", "trace",
    "copyto",
]
# Only names this NumPy has (row_stack, unstack, concat... come and go between versions).
__all__ = [name for name in __all__ if hasattr(np, name)]


# --- helpers shared with _shape_ops.py and _joining.py ---------------------------------------

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _hidden(value: jax.Array) -> ndarray:
    """A result NumPy gives as a view of a temporary (``base`` set, ``owndata`` False)."""
    owner = ndarray._owner(value)
    return owner._view((), owner._layout_array()[...])


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | np.integer) or (
            isinstance(shape, ndarray) and shape.ndim == 0):
        return (integer(shape),)
    return tuple(integer(n) for n in shape)


def _warn_complex(dtypes: list, target: np.dtype) -> None:
    if target.kind not in "cb" and any(np.dtype(d).kind == "c" for d in dtypes):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      ComplexWarning, stacklevel=_stacklevel())


# --- copies: roll, tile, repeat, resize, insert, delete --------------------------------------


@npfunc
def roll(a: ArrayIn, shift: Any, axis: Any = None) -> Any:
    """npjax implementation of ``numpy.roll`` (a new array; with ``axis=None`` a view of a
    temporary, as in NumPy)."""
    if axis is None:
        return _hidden(roll(ndarray._owner(a.reshape(-1)), shift, 0)._read().reshape(a.shape))
    axes = axis if isinstance(axis, tuple | list) else (axis,)
    axes = [normalize_axis(ax, a.ndim) for ax in axes]
    try:
        pairs = np.broadcast(np.asarray(_host_index(shift)), np.asarray(axes, dtype=np.intp))
    except ValueError:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences") from None
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    if a.ndim == 0:  # NumPy's loop over no axes fails to unpack
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    total = [0] * a.ndim
    for sh, ax in pairs:
        total[int(ax)] += int(sh)
    moves = tuple((ax, total[ax] % a.shape[ax]) for ax in range(a.ndim)
                  if a.shape[ax] and total[ax] % a.shape[ax])
    if not moves:
        return a
    return jnp.roll(a, tuple(s for _, s in moves), tuple(ax for ax, _ in moves))


@npfunc
def tile(A: Any, reps: Any) -> Any:
    """npjax implementation of ``numpy.tile`` (a new array; a view of a temporary where
    NumPy gives one)."""
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    tup = tuple(operator.index(r) for r in tup)
    d = len(tup)
    own = all(r == 1 for r in tup) and isinstance(A, ndarray | np.ndarray | jax.Array)
    A = to_jax(A)
    c = A.reshape((1,) * (d - A.ndim) + A.shape) if A.ndim < d else A
    if d < c.ndim:
        tup = (1,) * (c.ndim - d) + tup
    if any(r < 0 for r in tup):
        raise ValueError("negative dimensions are not allowed")
    result = jnp.tile(c, tup)
    return result if own else _hidden(result)


def _repeats_host(repeats: Any) -> np.ndarray:
    """``repeats`` as host intp: Python data converts as NumPy does, arrays cast safely."""
    if isinstance(repeats, ndarray | jax.Array | np.ndarray):
        r = np.asarray(repeats)
        if not np.can_cast(r.dtype, np.intp, "safe"):
            raise TypeError(f"Cannot cast array data from {r.dtype!r} to dtype('int64') "
                            "according to the rule 'safe'")
        r = r.astype(np.intp)
    else:
        r = np.asarray(_host_index(repeats), dtype=np.intp)
    if r.ndim > 1:
        raise ValueError("object too deep for desired array")
    if (r < 0).any():
        raise ValueError("repeats may not contain negative values.")
    return r


@npfunc
def repeat(a: ArrayIn, repeats: Any, axis: AxisIn = None) -> jax.Array:
    """npjax implementation of ``numpy.repeat`` (a new array)."""
    r = _repeats_host(repeats)
    if axis is None or a.ndim == 0:  # NumPy takes a 0-d array as 1-d
        a = a.reshape(-1) if axis is None else a.reshape(1)
        axis = 0 if axis is None else axis
    axis = normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    if r.ndim == 1 and r.shape[0] not in (1, n):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                         f"{r.shape}")
    if r.size == 1:
        return jnp.repeat(a, int(r.reshape(())), axis=axis)
    return jnp.repeat(a, jnp.asarray(r), axis=axis, total_repeat_length=int(r.sum()))


@npfunc
def resize(a: ArrayIn, new_shape: Any) -> Any:
    """npjax implementation of ``numpy.resize`` (a new array, the input repeated)."""
    new_shape = _shape_tuple(new_shape)
    a = a.reshape(-1)
    new_size = 1
    for n in new_shape:
        new_size *= n
        if n < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    if a.size == 0 or new_size == 0:
        return jnp.zeros(new_shape, a.dtype)
    repeats = -(-new_size // a.size)
    return _hidden(jnp.tile(a, repeats)[:new_size].reshape(new_shape))


def _host_index(obj: Any) -> Any:
    if isinstance(obj, ndarray):
        host = obj._fetch()
        return host[()] if obj._scalar else host
    if isinstance(obj, list | tuple) and any(isinstance(o, ndarray) for o in obj):
        return [_host_index(o) for o in obj]
    return obj


@functools.lru_cache(maxsize=512)
def _placing_kernel():
    def place(arr, v, placed):
        from_arr = jnp.take(arr.reshape(-1), jnp.maximum(placed, 0), mode="clip") \
            if arr.size else jnp.zeros(placed.shape, arr.dtype)
        from_val = jnp.take(v.reshape(-1), jnp.maximum(-1 - placed, 0), mode="clip") \
            if v.size else jnp.zeros(placed.shape, arr.dtype)
        return jnp.where(placed >= 0, from_arr, from_val.astype(arr.dtype))
    return jax.jit(place)


@npfunc
def delete(arr: ArrayIn, obj: Any, axis: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.delete`` (a new array).

    The positions to keep are worked out by NumPy itself on an index array of the same
    shape, so every form of ``obj`` (and every error) is NumPy's.
    """
    ids = np.arange(arr.size, dtype=np.intp).reshape(arr.shape)
    kept = np.delete(ids, _host_index(obj), axis)
    return _placing_kernel()(arr, jnp.zeros((0,), arr.dtype), jnp.asarray(kept))


@npfunc
def insert(arr: ArrayIn, obj: Any, values: Any, axis: Any = None) -> jax.Array:
    """npjax implementation of ``numpy.insert`` (a new array of ``arr``'s dtype).

    NumPy's own ``insert`` runs on index arrays (source positions, values as negative ids)
    to place every element, so every form of ``obj`` (and every error) is NumPy's.
    """
    ids = np.arange(arr.size, dtype=np.intp).reshape(arr.shape)
    obj = _host_index(obj)
    np.insert(ids, obj, -1, axis)  # NumPy's axis and index errors come before value errors
    if isinstance(values, ndarray | jax.Array):
        v = to_jax(values)
        _warn_complex([v.dtype], arr.dtype)
    else:
        v = to_jax(np.asarray(values, dtype=arr.dtype))
    vids = -1 - np.arange(v.size, dtype=np.intp).reshape(v.shape)
    placed = np.insert(ids, obj, vids, axis)
    return _placing_kernel()(arr, v, jnp.asarray(placed))


@npfunc
def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """npjax implementation of ``numpy.trim_zeros`` (a view; a list stays a list)."""
    plain = isinstance(filt, list | tuple)
    arr = ndarray._owner(to_jax(filt)) if not isinstance(filt, ndarray) else filt
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    ndim = arr.ndim
    axis_tuple = tuple(range(ndim)) if axis is None else normalize_axes(axis, ndim)
    if not axis_tuple:
        return filt
    nonzero = np.argwhere(arr._fetch())
    if nonzero.size == 0:
        start = stop = [0] * ndim
    else:
        start = nonzero.min(axis=0).tolist()
        stop = (nonzero.max(axis=0) + 1).tolist()
        if "f" not in trim:
            start = [None] * ndim
        if "b" not in trim:
            stop = [None] * ndim
    sl = tuple(slice(start[ax], stop[ax]) if ax in axis_tuple else slice(None)
               for ax in range(ndim))
    if len(sl) == 1:
        return filt[sl[0]] if plain else arr[sl[0]]
    return arr[sl]


# --- pad -------------------------------------------------------------------------------------

_PAD_KWARGS = {
    "empty": (), "edge": (), "wrap": (), "constant": ("constant_values",),
    "linear_ramp": ("end_values",), "maximum": ("stat_length",), "mean": ("stat_length",),
    "median": ("stat_length",), "minimum": ("stat_length",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}


def _as_pairs(x: Any, ndim: int, as_index: bool = False) -> Any:
    from numpy.lib._arraypad_impl import _as_pairs as np_as_pairs

    return np_as_pairs(_host_index(x), ndim, as_index=as_index)


@npfunc
def pad(array: ArrayIn, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> jax.Array:
    """npjax implementation of ``numpy.pad`` (a new array).

    Differences from NumPy: a callable ``mode`` is not supported; ``mode='empty'`` fills the
    pad area with zeros (NumPy leaves it uninitialised); boolean arrays with
    ``reflect_type='odd'`` wider than one reflection raise NotImplementedError.
    """
    if callable(mode):
        raise unsupported("pad", "mode", "a callable mode")
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * array.ndim
        for ax, width in pad_width.items():
            seq[ax] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = seq
    widths = np.asarray(_host_index(pad_width))
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    widths = _as_pairs(widths, array.ndim, as_index=True)
    try:
        allowed = _PAD_KWARGS[mode]
    except (KeyError, TypeError):
        raise ValueError(f"mode '{mode}' is not supported") from None
    extra = set(kwargs) - set(allowed)
    if extra:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
    widths = [tuple(int(w) for w in pair) for pair in widths]
    new_shape = tuple(n + lo + hi for n, (lo, hi) in zip(array.shape, widths))
    if mode in ("constant", "empty"):
        values = np.asarray(_as_pairs(kwargs.get("constant_values", 0), array.ndim)
                            if mode == "constant" else np.zeros((array.ndim, 2)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's own unsafe cast, e.g. nan into ints
            extra = _host_key(np.asarray(values).astype(array.dtype))
        return _pad_kernel("constant", tuple(widths), extra)(array)
    if array.size == 0:
        for ax, pair in enumerate(widths):
            if array.shape[ax] == 0 and any(pair):
                raise ValueError(f"can't extend empty axis {ax} using modes other than "
                                 "'constant' or 'empty'")
        return jnp.zeros(new_shape, array.dtype)
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = _as_pairs(kwargs.get("stat_length"), array.ndim, as_index=True)
        lengths = tuple(tuple(None if n is None else int(n) for n in pair) for pair in lengths)
        for ax, (lo, hi) in enumerate(lengths):
            n = array.shape[ax]
            if mode in ("maximum", "minimum") and 0 in (lo, hi) and n:
                raise ValueError("stat_length of 0 yields no value for padding")
        return _pad_kernel(mode, tuple(widths), lengths)(array)
    if mode == "linear_ramp":
        ends = np.asarray(_as_pairs(kwargs.get("end_values", 0), array.ndim))
        return _pad_kernel(mode, tuple(widths), _host_key(ends))(array)
    if mode in ("reflect", "symmetric"):
        reflect_type = kwargs.get("reflect_type", "even")
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"unsupported reflect_type {reflect_type!r}")
        return _pad_kernel(mode, tuple(widths), reflect_type)(array)
    return _pad_kernel(mode, tuple(widths), None)(array)


def _host_key(x: np.ndarray) -> tuple:
    """A bit-exact, hashable key for host values (0 == 0.0 == 0j and -0.0 == 0.0 in Python)."""
    x = np.ascontiguousarray(x)
    return (x.tobytes(), x.dtype.str, x.shape)


def _from_key(key: tuple) -> np.ndarray:
    return np.frombuffer(key[0], dtype=np.dtype(key[1])).reshape(key[2])


@functools.lru_cache(maxsize=512)
def _pad_kernel(mode: str, widths: tuple, extra: Any):
    """One compiled pad per (mode, widths, static extras); NumPy's per-axis algorithm."""

    def run(x):
        if x.ndim == 0:  # nothing to pad
            return x + jnp.zeros((), x.dtype)
        if mode == "constant":
            return _pad_constant(x, widths, _from_key(extra))
        if mode in ("maximum", "minimum", "mean", "median"):
            return _pad_stat(x, widths, extra, mode)
        if mode == "linear_ramp":
            return _pad_ramp(x, widths, _from_key(extra))
        if mode in ("reflect", "symmetric"):
            return _pad_reflect(x, widths, mode, extra)
        return jnp.pad(x, widths, mode=mode)

    return jax.jit(run)


def _pad_constant(x: jax.Array, widths: tuple, host: np.ndarray) -> jax.Array:
    for ax, (lo, hi) in enumerate(widths):
        shape = list(x.shape)
        parts = []
        if lo:
            shape[ax] = lo
            parts.append(jnp.full(shape, host[ax][0], x.dtype))
        parts.append(x)
        if hi:
            shape[ax] = hi
            parts.append(jnp.full(shape, host[ax][1], x.dtype))
        if len(parts) > 1:
            x = jnp.concatenate(parts, axis=ax)
    return x


def _take(x: jax.Array, ax: int, start: int, stop: int) -> jax.Array:
    return lax.slice_in_dim(x, start, stop, axis=ax)


def _round_to(stat: jax.Array, dtype: np.dtype) -> jax.Array:
    if dtype.kind in "iu":
        stat = jnp.round(stat)
    return stat.astype(dtype)


def _complex_median(chunk: jax.Array, axis: int, keepdims: bool = True) -> jax.Array:
    """NumPy's median of complex values: lexicographic sort, mean of the middle pair."""
    s = jnp.sort(chunk, axis=axis)
    n = s.shape[axis]
    hi = lax.slice_in_dim(s, n // 2, n // 2 + 1, axis=axis)
    if n % 2:
        return hi
    lo = lax.slice_in_dim(s, n // 2 - 1, n // 2, axis=axis)
    return (lo + hi) / 2


def _pad_stat(x: jax.Array, widths: list, lengths: Any, mode: str) -> jax.Array:
    funcs = {"maximum": jnp.max, "minimum": jnp.min, "mean": jnp.mean,
             "median": _complex_median if x.dtype.kind == "c" else jnp.median}
    func = funcs[mode]
    for ax, (lo, hi) in enumerate(widths):
        n = x.shape[ax]
        left_len, right_len = lengths[ax]
        left_len = n if left_len is None or n < left_len else int(left_len)
        right_len = n if right_len is None or n < right_len else int(right_len)
        stats = []
        for length, start in ((left_len, 0), (right_len, n - right_len)):
            chunk = _take(x, ax, start, start + length)
            if mode == "mean" and x.dtype.kind in "iub":
                chunk = chunk.astype(np.float64)
            if chunk.shape[ax] == 0:
                shape = list(chunk.shape)
                shape[ax] = 1
                kind = np.float64 if x.dtype.kind in "iub" else x.dtype
                stat = jnp.full(shape, np.nan, kind)
            else:
                stat = func(chunk, axis=ax, keepdims=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                stats.append(_round_to(stat, x.dtype))
        parts = []
        if lo:
            parts.append(jnp.repeat(stats[0], lo, axis=ax))
        parts.append(x)
        if hi:
            parts.append(jnp.repeat(stats[1], hi, axis=ax))
        if len(parts) > 1:
            x = jnp.concatenate(parts, axis=ax)
    return x


def _pad_ramp(x: jax.Array, widths: list, ends: np.ndarray) -> jax.Array:
    """NumPy's ``linspace``-based ramps, computed in NumPy's working dtype."""
    work = np.result_type(ends.dtype, x.dtype, np.float64 if x.dtype.kind in "iub" else
                          np.float16)
    if work.kind in "iub":
        work = np.dtype(np.float64)
    for ax, (lo, hi) in enumerate(widths):
        n = x.shape[ax]
        parts = []
        for width, end, edge_at, reverse in ((lo, ends[ax][0], 0, False),
                                             (hi, ends[ax][1], n - 1, True)):
            if not width:
                parts.append(None)
                continue
            edge = _take(x, ax, edge_at, edge_at + 1).astype(work)
            start = jnp.asarray(np.asarray(end).astype(work))
            step_shape = [1] * x.ndim
            step_shape[ax] = width
            steps = jnp.arange(width, dtype=work).reshape(step_shape)
            delta = edge - start
            step = delta / width
            ramp = jnp.where(step == 0, steps / width * delta, steps * step) + start
            if x.dtype.kind in "iu":  # NumPy: floor, then a C cast (wraps, via int64 here)
                ramp = jnp.floor(ramp).astype(np.int64)
            ramp = ramp.astype(x.dtype)
            if reverse:
                ramp = jnp.flip(ramp, axis=ax)
            parts.append(ramp)
        pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
        if len(pieces) > 1:
            x = jnp.concatenate(pieces, axis=ax)
    return x


def _pad_reflect(x: jax.Array, widths: list, mode: str, reflect_type: str) -> jax.Array:
    for ax, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        if x.shape[ax] == 1:
            x = jnp.pad(x, [(0, 0)] * ax + [(lo, hi)] + [(0, 0)] * (x.ndim - ax - 1),
                        mode="edge")
            continue
        widths_ax = [(0, 0)] * ax + [(lo, hi)] + [(0, 0)] * (x.ndim - ax - 1)
        if x.dtype == np.bool_ and reflect_type == "odd":
            # NumPy computes 2*edge - x in int64 and stores it as bool, one reflection at a
            # time; only a single reflection is reproduced here.
            if max(lo, hi) > x.shape[ax] - (mode == "reflect"):
                raise unsupported("pad", "reflect_type", "'odd' for booleans wider than "
                                  "one reflection")
            x = jnp.pad(x.astype(np.int64), widths_ax, mode=mode, reflect_type="odd") != 0
            continue
        x = jnp.pad(x, widths_ax, mode=mode, reflect_type=reflect_type)
    return x


# --- trace and copyto ------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _trace_dtype(dtype: np.dtype, requested: np.dtype | None) -> np.dtype:
    return np.trace(np.zeros((1, 1), dtype), dtype=requested).dtype


@npfunc(scalar=True)
def trace(a: ArrayIn, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.trace``."""
    a1, a2 = diagonal_axes(a.ndim, axis1, axis2)
    rtype = _trace_dtype(a.dtype, dtype)
    result = jnp.trace(a.astype(rtype), operator.index(offset), a1, a2, dtype=rtype)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("npjax.trace: 'out' must be an npjax array")
        if out.ndim != result.ndim:
            raise ValueError("output parameter for reduction operation add has the wrong "
                             f"number of dimensions: Found {out.ndim} but expected "
                             f"{result.ndim}")
        return write_out(out, result, "unsafe", "trace")
    return result


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """npjax implementation of ``numpy.copyto``: writes into ``dst`` (and all its aliases)."""
    if not isinstance(dst, ndarray) or dst._scalar:
        what = "a NumPy scalar" if isinstance(dst, ndarray) else type(dst).__name__
        raise TypeError(f"copyto() argument 1 must be an npjax.ndarray, not {what}")
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         f"'unsafe' (got {casting!r})")
    if type(src) in _dtypes.WEAK_TYPES:
        # Python scalars are weak (NEP 50): NumPy itself judges value and kind.
        np.copyto(np.empty((), dst.dtype), src, casting=casting)
        value = to_jax(np.asarray(src, dtype=dst.dtype))
    else:
        value = to_jax(src)
        if value.dtype != dst.dtype and not _dtypes.can_cast(value.dtype, dst.dtype, casting):
            raise TypeError(f"Cannot cast array data from {value.dtype!r} to {dst.dtype!r} "
                            f"according to the rule {casting!r}")
        _warn_complex([value.dtype], dst.dtype)
    target = dst.shape
    _check_fits(value.shape, target, "input array")
    if dst._readonly:
        raise ValueError("assignment destination is read-only")
    if where is True:
        dst._write(jnp.broadcast_to(concrete(_casts.cast(value, dst.dtype)), target))
        return
    mask = to_jax(where)
    if mask.dtype != np.bool_ and not _dtypes.can_cast(mask.dtype, np.dtype(bool), "safe"):
        raise TypeError(f"Cannot cast array data from {mask.dtype!r} to dtype('bool') "
                        "according to the rule 'safe'")
    _check_fits(mask.shape, target, "where mask")
    if _casts.needs_check(value.dtype, dst.dtype):  # only the elements copied are cast
        value = jnp.where(mask, value, jnp.zeros((), value.dtype))
    dst._write(jnp.where(mask, concrete(_casts.cast(value, dst.dtype)), dst._read()))


_copyto = copyto  # the raw body (unwrap and nan_to_num call it: one door)
copyto = npfunc(_copyto, host_route=True)


def _check_fits(shape: tuple, target: tuple, what: str) -> None:
    """NumPy's ValueError when ``shape`` does not broadcast to exactly ``target``."""
    try:
        fits = np.broadcast_shapes(shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"could not broadcast {what} from shape {shape} into shape {target}")


# --- ndarray methods NumPy has and _ndarray.py does not define -------------------------------

def _method_repeat(self: ndarray, repeats: Any, axis: Any = None) -> ndarray:
    return repeat(self, repeats, axis)


def _method_trace(self: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1,
                  dtype: Any = None, out: Any = None) -> Any:
    return trace(self, offset, axis1, axis2, dtype, out)


install_methods({name: fn for name, fn in (("repeat", _method_repeat),
                                           ("trace", _method_trace))
                 if hasattr(np.ndarray, name) and name not in vars(ndarray)})
