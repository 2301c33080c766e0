"""ufunc.reduce/accumulate/outer/reduceat/at, attached to the ufunc class.

Result dtypes and NumPy's errors come from NumPy itself: each method first runs the NumPy
method on a tiny host sample (same dtypes and ndim, every non-empty axis of length 1) and
caches the result dtype; an error NumPy raises there is raised to the caller as is. The
computation is a cached ``jax.jit`` kernel: ``jnp`` reductions for the common ufuncs, a
pairwise tree of the ufunc's own kernel for other reorderable ufuncs and a left fold
(``lax.scan``) for the rest (``subtract.reduce`` is ``((a0 - a1) - a2) ...`` as in NumPy).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure import _dtypes, _scatter_add
from npjax._library import _methods_on_host as _on_host
from npjax._library import _reductions
from npjax._runtime import _ufunc_checks
from npjax._core._index_kernels import index_ids
from npjax._core._index_plan import _advanced_parts, _expand
from npjax._core._out import write_out
from npjax._pure._axes import axis_argument, normalize_axis, refuse_bool_axes
from npjax._core._ndarray import ndarray
from npjax._pure._axes import shape_text
from npjax._core._normalize import to_jax, where_mask
from npjax._runtime import _stats
from npjax._runtime._context import current
from npjax._runtime._numpy_calls import call_numpy_ufunc
from npjax._calls._ufuncs import UFUNCS, ufunc
from npjax._core._buckets import in_host_memory
from npjax._core._executor import numpy_reads_in_place
from npjax._core._numpy_in_place import host_views

__all__: list[str] = []

_NoValue = np._NoValue

# Reorderable ufuncs without an identity (NumPy's "reorderable none").
_REORDERABLE_NONE = {"minimum", "maximum", "fmin", "fmax"}

# Ufuncs whose reduce is ``sum``/``prod`` (NumPy: the same function) and the fold op naming them.
_FOLDS = {"add": "add", "multiply": "mul"}
_FAST_REDUCE: dict[str, Callable] = {
    "add": jnp.sum, "multiply": jnp.prod,
    "logical_and": jnp.all, "logical_or": jnp.any,
}
_FAST_REAL_REDUCE: dict[str, Callable] = {"minimum": jnp.min, "maximum": jnp.max}
_BITWISE = {"bitwise_and": lax.bitwise_and, "bitwise_or": lax.bitwise_or,
            "bitwise_xor": lax.bitwise_xor}
_BITWISE_INIT = {"bitwise_and": -1, "bitwise_or": 0, "bitwise_xor": 0}


def _reorderable(uf: ufunc) -> bool:
    return uf.identity is not None or uf.__name__ in _REORDERABLE_NONE


def _sample_shape(shape: tuple) -> tuple:
    return tuple(min(n, 1) for n in shape)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _probe_cached(name: str, method: str, dtype: np.dtype, shape: tuple, kwargs: tuple) -> Any:
    return _probe(name, method, dtype, shape, dict(kwargs))


def _probe(name: str, method: str, dtype: np.dtype, shape: tuple, kwargs: dict) -> np.dtype:
    """Run NumPy's method on a tiny sample; its errors propagate, its result dtype returns."""
    sample = np.ones(_sample_shape(shape), dtype)
    with np.errstate(all="ignore"):
        result = getattr(getattr(np, name), method)(sample, **kwargs)
    return np.asarray(result).dtype


def _probe_dtype(name: str, method: str, dtype: np.dtype, shape: tuple, kwargs: dict) -> np.dtype:
    items = tuple(sorted(kwargs.items()))
    if _hashable(items):
        return _probe_cached(name, method, dtype, _sample_shape(shape), items)
    return _probe(name, method, dtype, shape, kwargs)


def _as_input(array: Any) -> tuple[jax.Array, bool]:
    """The operand as a jax.Array, and whether it was a 0-d NumPy-style scalar input."""
    if isinstance(array, ndarray):
        return array._read(), array._scalar
    value = to_jax(array, current())
    return value, not isinstance(array, np.ndarray | list | tuple)


def _binary(name: str, loop_dtype: np.dtype) -> Callable:
    """The ufunc's two-argument JAX kernel body on one loop dtype (no jit, for tracing)."""
    uf = UFUNCS[name]
    kernel = uf._body(((loop_dtype, loop_dtype), (loop_dtype,)))

    def f(x, y):
        return kernel(x, y)[0]

    return f


def _fold_last(name: str, dt: np.dtype, x: jax.Array, reorderable: bool) -> jax.Array:
    """Reduce the last axis (length >= 1) of ``x`` with the ufunc ``name``."""
    f = _binary(name, dt)
    if reorderable:
        while x.shape[-1] > 1:
            n = x.shape[-1]
            half = n // 2
            paired = f(x[..., :half], x[..., half:2 * half])
            x = jnp.concatenate([paired, x[..., 2 * half:]], axis=-1) if n % 2 else paired
        return x[..., 0]
    xs = jnp.moveaxis(x, -1, 0)
    carry, _ = lax.scan(lambda c, v: (f(c, v), None), xs[0], xs[1:])
    return carry


@functools.lru_cache(maxsize=2048)
def _reduce_kernel(name: str, dt: np.dtype, axes: tuple, keepdims: bool, has_initial: bool,
                   has_where: bool) -> Callable:
    uf = UFUNCS[name]
    reorderable = _reorderable(uf)
    identity = uf.identity

    def kernel(x, initial, where):
        x = x.astype(dt)
        full_shape = x.shape
        ndim = x.ndim
        keep = [i for i in range(ndim) if i not in axes]
        out_shape = tuple(x.shape[i] for i in keep)
        order = keep + list(axes)
        length = int(np.prod([full_shape[i] for i in axes], dtype=np.int64))
        x = jnp.transpose(x, order).reshape(out_shape + (length,))
        # NumPy starts from ``initial``, else from the identity (even for a non-empty
        # reduction: gcd.reduce([-4]) is 4), else from the first element.
        start = None
        if has_initial:
            start = jnp.asarray(initial).astype(dt)
        elif identity is not None:
            start = jnp.asarray(identity).astype(dt)
        f = _binary(name, dt)
        if has_where:
            w = jnp.transpose(jnp.broadcast_to(where, full_shape), order)
            w = w.reshape(out_shape + (length,))
            if identity is not None:
                x = jnp.where(w, x, jnp.asarray(identity).astype(dt))
            elif reorderable:  # minimum/maximum/fmin/fmax: idempotent, fill with the start
                x = jnp.where(w, x, start)
        if not reorderable and start is not None:  # left fold from the start value
            carry = jnp.broadcast_to(start, out_shape)
            xs = jnp.moveaxis(x, -1, 0)
            ws = jnp.moveaxis(w, -1, 0) if has_where else jnp.ones(xs.shape[:1], bool)
            carry, _ = lax.scan(lambda c, vw: (jnp.where(vw[1], f(c, vw[0]), c), None),
                                carry, (xs, ws))
            res = carry
        elif length == 0:
            res = jnp.broadcast_to(start, out_shape)
        else:
            res = _reduce_values(name, dt, x, reorderable)
            if start is not None:
                res = f(jnp.broadcast_to(start, out_shape), res)
        if keepdims:
            res = jnp.expand_dims(res, axes)
        return res

    return jax.jit(kernel)


def _reduce_values(name: str, dt: np.dtype, x: jax.Array, reorderable: bool) -> jax.Array:
    """Reduce the last axis of ``x`` (loop dtype ``dt``), no identity or initial involved."""
    if x.shape[-1] == 0:
        return jnp.zeros(x.shape[:-1], dt)  # replaced by the start value by the caller
    fast = _FAST_REDUCE.get(name)
    if fast is not None and dt.kind != "b" or name in ("logical_and", "logical_or"):
        return fast(x, axis=-1).astype(dt)
    if name in _FAST_REAL_REDUCE and dt.kind in "iuf":
        return _FAST_REAL_REDUCE[name](x, axis=-1)
    if name in _BITWISE and dt.kind in "iub":
        init = jnp.asarray(_BITWISE_INIT[name]).astype(dt)
        return lax.reduce(x, init, _BITWISE[name], (x.ndim - 1,))
    return _fold_last(name, dt, x, reorderable)


def _reduce_axes(axis: Any, ndim: int) -> tuple:
    if axis is None or ndim == 0:  # NumPy accepts axis=0 on a 0-d operand
        return tuple(range(ndim))
    refuse_bool_axes(axis)
    if isinstance(axis, tuple | list):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim),)


def reduce(self: ufunc, array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
           keepdims: bool = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.ufunc.reduce``.

    ``add.reduce`` and ``multiply.reduce`` run the core of ``sum`` and ``prod`` (NumPy's
    order of operations), as in NumPy, where ``sum`` is ``add.reduce``.
    """
    if _on_host.host_dtype(dtype):
        return _on_host.numpy_method(self.__name__, "reduce", (array,), {
            "axis": axis, "dtype": dtype, "out": out, "keepdims": keepdims,
            "initial": initial, "where": where})
    x, _ = _as_input(array)
    dtype = _dtypes.canonical_dtype(dtype)
    name = self.__name__
    if isinstance(axis, list):
        axis = tuple(axis)
    kwargs: dict[str, Any] = {"axis": axis, "dtype": dtype, "keepdims": bool(keepdims)}
    if initial is not _NoValue:
        kwargs["initial"] = initial.item() if isinstance(initial, ndarray) else initial
    has_where = where is not True
    if has_where:
        mask = to_jax(where_mask(where), current())
        if mask.dtype != np.bool_:
            mask = mask.astype(bool) if mask.dtype.kind in "b" else _bool_mask(mask)
        np.broadcast_shapes(mask.shape, x.shape)
        kwargs["where"] = np.ones(_sample_shape(x.shape), bool)
    result_dt = _probe_dtype(name, "reduce", x.dtype, x.shape, kwargs)
    axes = _reduce_axes(axis, x.ndim)
    if has_where and np.broadcast_shapes(mask.shape, x.shape) != x.shape:
        raise ValueError(f"non-broadcastable operand with shape {mask.shape} doesn't match "
                         f"the broadcast shape {x.shape}")
    loop_dt = _reduce_loop_dtype(name, x.dtype, result_dt, dtype)
    if _on_host.reduce_on_host(name, loop_dt, x):
        host_kw = {k: v for k, v in kwargs.items() if k != "where"}
        res = _on_host.run_method(name, "reduce", x, **host_kw,
                                  **({"where": where} if has_where else {}))
        out = _reduce_out(name, out, res.shape, keepdims, x.shape, axes)
        return _finish(res, result_dt, out, name, res.ndim == 0 and out is None)
    x = _reductions.precast(x, loop_dt, mask if has_where else True)
    has_initial = initial is not _NoValue
    init = jnp.asarray(kwargs["initial"]) if has_initial and kwargs["initial"] is not None \
        else jnp.zeros(())
    if has_initial and kwargs["initial"] is None:
        has_initial = False
    _check_power(name, loop_dt, x, axes[0] if axes else 0, has_initial)
    fold = _FOLDS.get(name)
    if fold is not None and loop_dt == result_dt:  # as ``sum``/``prod``: one core for both
        res = _reductions.fold(x, axes, bool(keepdims), fold, result_dt,
                               kwargs["initial"] if has_initial else _NoValue,
                               mask if has_where else True)
    else:
        res = _reduce_kernel(name, loop_dt, axes, bool(keepdims), has_initial, has_where)(
            x, init, mask if has_where else jnp.zeros((), bool))
    if res.dtype != result_dt:
        res = res.astype(result_dt)
    _ufunc_checks.check_reduce(name, x, res, axes, has_initial, mask if has_where else True)
    if out is not None:
        return write_out(_reduce_out(name, out, res.shape, keepdims, x.shape, axes), res,
                         "unsafe", name)
    return ndarray._owner(res, res.ndim == 0)


def _reduce_out(name: str, out: Any, shape: tuple, keepdims: bool, in_shape: tuple,
                axes: tuple) -> Any:
    """``out`` of a reduction (a 1-tuple unwrapped), refused with NumPy's messages unless it
    has the result's shape (NumPy does not broadcast a reduction into ``out``)."""
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if out is None or np.shape(out) == shape:
        return out
    got = np.shape(out)
    if len(got) != len(shape):
        raise ValueError(f"output parameter for reduction operation {name} has the wrong "
                         f"number of dimensions: Found {len(got)} but expected {len(shape)}"
                         + (" (must match the operand's when keepdims=True)" if keepdims
                            else ""))
    for i, (g, n) in enumerate(zip(got, shape)):
        if g == 1 and n != 1:
            raise ValueError(f"output operand requires a reduction along dimension {i}, but "
                             "the reduction is not enabled. The dimension size of 1 does not "
                             "match the expected output shape.")
    if keepdims:
        for i in axes:
            if got[i] != 1 and got[i] == in_shape[i]:
                raise ValueError(f"operand was set up as a reduction along axis {i}, but the "
                                 f"length of the axis is {got[i]} (it has to be 1)")
        mapped = [str(g) for g in got]
    else:  # the reduced axes as NumPy's iterator shows them (leading ones dropped)
        dims = iter(got)
        mapped = ["newaxis" if i in axes else str(next(dims)) for i in range(len(in_shape))]
        while mapped and mapped[0] == "newaxis":
            mapped.pop(0)
    raise ValueError("operands could not be broadcast together with remapped shapes "
                     f"[original->remapped]: {shape_text(got)}->({','.join(mapped)}) "
                     f"{shape_text(in_shape)} ")


def _check_power(name: str, dt: np.dtype, x: jax.Array, axis: int, all_exponents: bool) -> None:
    """Integer power folds refuse negative exponents (every element after the first)."""
    if name != "power" or dt.kind != "i" or x.size == 0 or x.dtype.kind != "i" or (
            x.ndim == 0 and not all_exponents):  # one element, no initial: nothing raised
        return
    exps = x if all_exponents or x.ndim == 0 else lax.slice_in_dim(x, 1, x.shape[axis],
                                                                    axis=axis)
    if exps.size and bool(jnp.any(exps < 0)):
        raise ValueError("Integers to negative integer powers are not allowed.")


def _bool_mask(mask: jax.Array) -> jax.Array:
    raise TypeError(f"Cannot cast array data from dtype('{mask.dtype}') to dtype('bool') "
                    "according to the rule 'safe'")


def _reduce_loop_dtype(name: str, in_dt: np.dtype, result_dt: np.dtype,
                       dtype: np.dtype | None) -> np.dtype:
    """The dtype NumPy computes a reduction in (the resolved loop's output dtype); ``HostOnly``
    where the device cannot hold it or ``result_dt`` (float64 on a TPU: NumPy's method)."""
    _dtypes.device_only(result_dt)
    uf = getattr(np, name)
    try:
        sig = (dtype, dtype, dtype) if dtype is not None else (None, None, None)
        loop = uf.resolve_dtypes((result_dt if dtype is None else dtype,) * 2 + (None,),
                                 signature=sig if dtype is not None else None, reduction=True)
        return _dtypes.device_only(loop[2])
    except (TypeError, ValueError):
        return result_dt


# --- accumulate ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=2048)
def _accumulate_kernel(name: str, dt: np.dtype, axis: int) -> Callable:
    uf = UFUNCS[name]
    reorderable = _reorderable(uf)
    f = _binary(name, dt)

    def kernel(x):
        x = x.astype(dt)
        if x.shape[axis] == 0:
            return x
        if name == "add" and dt.kind != "b":
            return jnp.cumsum(x, axis=axis, dtype=dt)
        if name == "multiply" and dt.kind != "b":
            return jnp.cumprod(x, axis=axis, dtype=dt)
        if reorderable:
            return lax.associative_scan(f, x, axis=axis)
        xs = jnp.moveaxis(x, axis, 0)

        def step(c, v):
            c = f(c, v)
            return c, c

        _, ys = lax.scan(step, xs[0], xs[1:])
        return jnp.moveaxis(jnp.concatenate([xs[:1], ys], axis=0), 0, axis)

    return jax.jit(kernel)


def accumulate(self: ufunc, array: Any, axis: Any = 0, dtype: Any = None,
               out: Any = None) -> Any:
    """npjax implementation of ``numpy.ufunc.accumulate``.

    Differences from NumPy: reorderable ufuncs are scanned in tree order (float results may
    differ in the last ulp).
    """
    if _on_host.host_dtype(dtype):
        return _on_host.numpy_method(self.__name__, "accumulate", (array,), {
            "axis": axis, "dtype": dtype, "out": out})
    x, _ = _as_input(array)
    dtype = _dtypes.canonical_dtype(dtype)
    name = self.__name__
    kwargs = {"axis": axis, "dtype": dtype}
    result_dt = _probe_dtype(name, "accumulate", x.dtype, x.shape, kwargs)
    ax = normalize_axis(0 if axis is None else axis, x.ndim)
    if out is not None and np.shape(out[0] if type(out) is tuple else out) != x.shape:
        raise ValueError("provided out is the wrong size for the accumulation.")  # no broadcast
    loop_dt = _reduce_loop_dtype(name, x.dtype, result_dt, dtype)
    if _on_host.reduce_on_host(name, loop_dt, x):
        return _finish(_on_host.run_method(name, "accumulate", x, axis=ax, dtype=dtype),
                       result_dt, out, name)
    x = _reductions.precast(x, loop_dt)
    _check_power(name, loop_dt, x, ax, False)
    res = _accumulate_kernel(name, loop_dt, ax)(x)
    return _finish(res, result_dt, out, name)


# --- outer -----------------------------------------------------------------------------------


def outer(self: ufunc, A: Any, B: Any, /, **kwargs: Any) -> Any:
    """npjax implementation of ``numpy.ufunc.outer``."""
    if self.signature is not None:
        raise TypeError("method outer is not allowed in ufunc with non-trivial signature")
    if self.nin != 2:
        raise ValueError("outer product only supported for binary functions")
    policy = current()
    a = A._read() if isinstance(A, ndarray) else to_jax(A, policy)
    b = B._read() if isinstance(B, ndarray) else to_jax(B, policy)
    a = a.reshape(a.shape + (1,) * b.ndim)
    return self(ndarray._owner(a), ndarray._owner(b), **kwargs)


# --- reduceat --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _reduceat_kernel(name: str, dt: np.dtype, axis: int) -> Callable:
    f = _binary(name, dt)

    def kernel(x, starts, ends):
        x = jnp.moveaxis(x.astype(dt), axis, 0)
        n = x.shape[0]
        carry = x[starts]  # (m, ...)
        lo = starts.reshape((-1,) + (1,) * (x.ndim - 1))
        hi = ends.reshape(lo.shape)

        def step(c, j):
            take = (lo < j) & (j < hi)
            return jnp.where(take, f(c, jnp.broadcast_to(x[j], c.shape[1:])), c), None

        carry, _ = lax.scan(step, carry, jnp.arange(n))
        return jnp.moveaxis(carry, 0, axis)

    return jax.jit(kernel)


def reduceat(self: ufunc, array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
             out: Any = None) -> Any:
    """npjax implementation of ``numpy.ufunc.reduceat``.

    Differences from NumPy: every segment is reduced left to right (same values; float sums
    may differ from NumPy's in the last ulp).
    """
    if _on_host.host_dtype(dtype):
        return _on_host.numpy_method(self.__name__, "reduceat", (array, indices), {
            "axis": axis, "dtype": dtype, "out": out})
    x, _ = _as_input(array)
    dtype = _dtypes.canonical_dtype(dtype)
    name = self.__name__
    idx = np.asarray(indices._read() if isinstance(indices, ndarray) else indices)
    if idx.dtype.kind not in "iu" and idx.size:
        raise TypeError("Cannot cast array data from dtype('float64') to dtype('int64') "
                        "according to the rule 'safe'")
    idx = idx.astype(np.intp).ravel()
    if x.ndim == 0:
        raise TypeError("cannot reduceat on a scalar")
    ax = normalize_axis(axis_argument(axis, ""), x.ndim)
    n = x.shape[ax]
    for k in idx:
        if not 0 <= k < n:
            raise IndexError(f"index {k} out-of-bounds in {name}.reduceat [0, {n})")
    _probe_dtype(name, "reduce", x.dtype, x.shape, {"axis": axis, "dtype": dtype})
    # NumPy's reduceat keeps the input's (loop) dtype rather than reduce's upcast.
    with np.errstate(all="ignore"):
        result_dt = getattr(np, name).reduceat(np.ones(_sample_shape(x.shape)[:ax] + (1,)
                                                       + _sample_shape(x.shape)[ax + 1:],
                                                       x.dtype),
                                               [0], axis=ax, dtype=dtype).dtype
    loop_dt = _reduce_loop_dtype(name, x.dtype, result_dt, dtype)
    ends = np.append(idx[1:], n)
    ends = np.where(idx < ends, ends, idx + 1)
    if idx.size and _on_host.reduce_on_host(name, loop_dt, x):
        res = _on_host.run_method(name, "reduceat", x, idx, axis=ax, dtype=dtype)
    elif idx.size == 0:
        res = jnp.zeros(x.shape[:ax] + (0,) + x.shape[ax + 1:], result_dt)
    else:
        res = _reduceat_kernel(name, loop_dt, ax)(x, jnp.asarray(idx), jnp.asarray(ends))
    return _finish(res, result_dt, out, name)


# --- at --------------------------------------------------------------------------------------

_SCATTER = {"add": "add", "multiply": "multiply", "minimum": "min", "maximum": "max"}


def _unsafe_cast(r: jax.Array, target: np.dtype) -> jax.Array:
    """NumPy's (C's) unsafe cast: float -> narrow int goes through int64 and wraps."""
    if r.dtype.kind in "fc" and target.kind in "iu" and target.itemsize < 8:
        return jnp.real(r).astype(np.int64).astype(target)
    return r.astype(target)


@functools.lru_cache(maxsize=1024)
def _at_kernel(name: str, loop_in: tuple, loop_out: np.dtype, target: np.dtype,
               unary: bool) -> Callable:
    uf = UFUNCS[name]
    body = uf._body((loop_in, (loop_out,)))
    scatter = _SCATTER.get(name)
    direct = (scatter is not None and loop_in == (target, target) and loop_out == target
              and (scatter in ("add", "multiply") or target.kind in "iuf")
              and target.kind != "b")

    def kernel(flat, ids, b):
        if direct and scatter == "add":
            return _scatter_add.add_at(flat, ids, b.astype(target))
        if direct:
            return getattr(flat.at[ids], scatter)(b.astype(target))

        def step(i, x):
            k = ids[i]
            args = (x[k],) if unary else (x[k], b[i])
            return x.at[k].set(_unsafe_cast(body(*args)[0], target))

        return lax.fori_loop(0, ids.shape[0], step, flat)

    return jax.jit(kernel)


def at(self: ufunc, a: Any, indices: Any, b: Any = None, /) -> None:
    """npjax implementation of ``numpy.ufunc.at``: ``a[indices] = ufunc(a[indices], b)``
    in place, applied once per index occurrence (repeated indices accumulate)."""
    name = self.__name__
    if isinstance(a, np.ndarray) and not isinstance(a, ndarray):  # NumPy's array, in place
        return _on_host.numpy_at(name, a, indices, b)
    if not isinstance(a, ndarray):
        raise TypeError("npjax.ufunc.at: the first operand must be an npjax array")
    if self.signature is not None:
        raise TypeError("ufunc.at does not support gufuncs")
    if self.nout != 1:
        raise ValueError("Only single output ufuncs supported at this time")
    if self.nin == 1 and b is not None:
        raise ValueError("second operand needed for ufunc")
    if self.nin == 2 and b is None:
        raise ValueError("second operand needed for ufunc")
    if a._readonly:
        raise ValueError("assignment destination is read-only")
    if _at_on_host(self, a, indices, b):
        return
    if _on_host.at_on_host(name, a, b):
        _on_host.run_at(name, a, indices, b)
        return
    shape = a.shape
    unary = self.nin == 1
    if unary:
        keys = (a.dtype,)
    else:
        bv = b._read() if isinstance(b, ndarray) else to_jax(b, current())
        keys = (a.dtype, bv.dtype)
    # NumPy resolves the loop (TypeError) before it looks at the indices.
    resolved = getattr(np, name).resolve_dtypes(keys + (None,), casting="unsafe")
    loop_in, loop_out = tuple(resolved[:-1]), resolved[-1]
    parts = _expand(indices, len(shape))  # (items, kinds, ...)
    items, kinds = parts[0], parts[1]
    template, arrays = _advanced_parts(items, kinds, shape)
    ids = index_ids(template, arrays, shape)
    if unary:
        bv = jnp.zeros(ids.size, a.dtype)
    else:
        try:
            bv = jnp.broadcast_to(bv, ids.shape)
        except ValueError:
            raise ValueError(f"array is not broadcastable to correct shape "
                             f"{tuple(ids.shape)} from {tuple(bv.shape)}") from None
        bv = bv.ravel()
    if not unary and name == "power" and loop_in[1].kind == "i" and bv.size:
        if bool(jnp.any(bv < 0)):
            raise ValueError("Integers to negative integer powers are not allowed.")
    if ids.size == 0:
        return
    flat = a._read().ravel()
    new = _at_kernel(name, loop_in, loop_out, a.dtype, unary)(flat, ids.ravel(), bv)
    if _on_host.at_flags_possible(loop_out, flat, new):
        _on_host.run_at(name, a, indices, b)
        return
    a._write(new.reshape(shape))


def _at_on_host(self: ufunc, a: ndarray, indices: Any, b: Any) -> bool:
    """``ufunc.at`` by NumPy itself where every operand is in host memory (host arrays,
    device arrays of the CPU backend read in place): NumPy's values, errors and warnings by
    construction, and on the CPU faster than XLA's scatter, which applies repeated indices
    one by one (``np.add.at(counts, idx, 1)`` with 4M indices into 256 bins: NumPy ~10 ms).
    A device target is updated from a host copy (written back only when NumPy succeeds).
    False: not every operand is (an accelerator, a trace, a subclass, a nested list, an
    x32 policy)."""
    np_ufunc = getattr(self, "_np", None)
    if np_ufunc is None or type(a) is not ndarray or not numpy_reads_in_place():
        return False
    items = indices if type(indices) is tuple else (indices,)
    views = host_views((*items, *(() if b is None else (b,))))
    if views is None:
        return False
    ops = views[len(items):]
    views = views[:len(items)]
    target = a._host()
    if target is None:
        value = a._read()
        if not in_host_memory(value):
            return False
        target = np.array(_stats.fetch(value))
    where = tuple(views) if type(indices) is tuple else views[0]
    call_numpy_ufunc(np_ufunc.at, (target, where, *ops), {})
    if a._host() is None:
        a._write(to_jax(target, current()))
    return True


def install() -> None:
    ufunc.reduce = reduce
    ufunc.accumulate = accumulate
    ufunc.outer = outer
    ufunc.reduceat = reduceat
    ufunc.at = at


install()


def _finish(res: Any, result_dt: np.dtype, out: Any, name: str, scalar: bool = False) -> Any:
    """Cast to NumPy's result dtype; write ``out`` (returned itself) or wrap a new array."""
    if res.dtype != result_dt:
        res = res.astype(result_dt)
    if out is not None:
        out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return write_out(out, res, "unsafe", name)
    return ndarray._owner(res, scalar)
