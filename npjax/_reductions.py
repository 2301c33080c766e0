"""Reductions (sum, mean, std, median, percentile, ...): shared cores, one kernel cache.

Result dtypes are NumPy's own: NumPy is asked once per (function, input dtype, dtype-relevant
parameters) on a one-element sample and the answer is cached (``_oracle``). Every computation
is a pure-JAX core, compiled once per (core, static parameters) by ``_jit``; the public
functions only normalise arguments, check what NumPy checks and call the kernel.

Float sums follow NumPy's order of operations: ``add.reduce`` uses pairwise summation along
the innermost reduced run (8 accumulators for real, 4 for complex types, 128/64-element
blocks) and a sequential fold across the outer reduced axes; products and cumulative
functions are sequential. ``float16`` inner loops accumulate in ``float32`` as NumPy's do.
This is reproduced exactly for reductions of up to a few hundred steps; larger ones use
XLA's reduction (same values up to the last bits of rounding).

Data-dependent errors NumPy raises (``nanargmin`` of an all-NaN slice, ``average`` weights
summing to zero, quantile weights that are NaN) need a device-to-host transfer of one flag.
NumPy's RuntimeWarnings ("Mean of empty slice", "All-NaN slice encountered", "Degrees of
freedom <= 0") are not emitted: checking for them would need a device sync on every call.
"""

from __future__ import annotations

import functools
import math
import threading
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax import _dtypes
from npjax._dispatch import ArrayIn, DTypeIn, npfunc, write_out
from npjax._errors import output_casting_error
from npjax._ndarray import install_methods, ndarray, normalize_axes, normalize_axis
from npjax._normalize import to_jax
from npjax._policy import current

__all__ = [
    "sum", "prod", "mean", "std", "var", "min", "max", "amin", "amax", "argmin", "argmax",
    "any", "all", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "nansum",
    "nanprod", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax", "nanargmin", "nanargmax",
    "nancumsum", "nancumprod", "median", "nanmedian", "percentile", "nanpercentile",
    "quantile", "nanquantile", "ptp", "average", "count_nonzero",
]

_NoValue = np._NoValue
_builtin_sum = sum
_builtin_any = any
_builtin_all = all
_builtin_max = max
_builtin_min = min
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_INTP = np.dtype(np.intp)
_BOOL = np.dtype(np.bool_)

# Unrolled NumPy-order reductions are built up to about this many elementary steps.
_UNROLL = 600


# --- the two caches: NumPy's result dtypes and compiled kernels ------------------------------

@functools.lru_cache(maxsize=4096)
def _oracle(name: str, dtype: np.dtype, dtype_arg: Any = None, kwargs: tuple = ()) -> np.dtype:
    """The dtype NumPy's ``name`` returns for a one-element input of ``dtype``."""
    kw = dict(kwargs)
    if dtype_arg is not None:
        kw["dtype"] = dtype_arg
    q = kw.pop("q", None)
    sample = np.ones(1, dtype)
    args = (sample,) if q is None else (sample, _q_sample(q))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(getattr(np, name)(*args, **kw)).dtype


def _q_sample(q: Any) -> Any:
    kind, value = q
    return value(0.5 if value is float else 0) if kind == "weak" else np.zeros(1, value)


# XLA's CPU backend contracts ``a*b + c`` into one FMA (openxla/xla#41579), which rounds
# differently from NumPy's separate multiply and add. Adding a zero the compiler cannot see
# (a runtime argument) after a product makes the product round on its own, as in NumPy.
_TRACE = threading.local()


@functools.lru_cache(maxsize=8192)
def _compiled(core: Callable, static: tuple) -> Callable:
    def kernel(zero: Any, *args: Any) -> Any:
        previous = getattr(_TRACE, "zero", None)
        _TRACE.zero = zero
        try:
            return core(*static, *args)
        finally:
            _TRACE.zero = previous

    return jax.jit(kernel)


@functools.lru_cache(maxsize=1)
def _zero() -> Any:
    return jnp.zeros((), _F64)


@functools.lru_cache(maxsize=8192)
def _jit(core: Callable, static: tuple) -> Callable:
    """One compiled kernel per (core, static parameters); shapes are jit's own cache key."""
    return functools.partial(_compiled(core, static), _zero())


@functools.lru_cache(maxsize=8192)
def _jit_plain(core: Callable, static: tuple) -> Callable:
    """``_jit`` for kernels without products (no FMA guard needed): one argument less."""
    return jax.jit(functools.partial(core, *static))


def _r(p: Any) -> Any:
    """``p`` rounded as a product on its own (no FMA contraction with a following add)."""
    zero = getattr(_TRACE, "zero", None)
    return p if zero is None else p + zero.astype(p.dtype)


# --- argument handling -----------------------------------------------------------------------

def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(normalize_axes(axis, ndim)))


def _kept_shape(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _keep(value: Any, shape: tuple, axes: tuple, keepdims: bool) -> Any:
    return value.reshape(_kept_shape(shape, axes, True)) if keepdims else value


def _mask(where: Any, shape: tuple) -> Any:
    if where is True or where is _NoValue:
        return None
    if isinstance(where, bool | np.bool_) and where:
        return None
    mask = to_jax(where, current())
    if mask.dtype != _BOOL:
        raise TypeError(f"Cannot cast array data from dtype('{mask.dtype}') to dtype('bool') "
                        "according to the rule 'safe'")
    if np.broadcast_shapes(mask.shape, shape) != tuple(shape):
        raise ValueError(f"operands could not be broadcast together with shapes "
                         f"{tuple(shape)} {tuple(mask.shape)}")
    return mask


def _initial(initial: Any, dtype: np.dtype) -> Any:
    if initial is _NoValue or initial is None:
        return None
    if type(initial) is int:
        _dtypes.check_python_int(initial, dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(initial).astype(dtype)


def _finish(result: Any, out: Any, name: str, casting: str = "unsafe") -> Any:
    """Return the raw result, or write it into ``out`` (exact shape; NumPy's casting rule:
    "unsafe" for reductions, "same_kind" where NumPy ends with a ufunc writing into ``out``)."""
    if out is None:
        return result
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not isinstance(out, ndarray):
        raise TypeError(f"npjax.{name}: 'out' must be an npjax array")
    if out.shape != tuple(result.shape):
        raise ValueError(f"output parameter for reduction operation {name} has the wrong "
                         f"shape: found {out.shape} but expected {tuple(result.shape)}")
    if casting != "unsafe" and not _dtypes.can_cast(result.dtype, out.dtype, casting):
        raise output_casting_error(name, casting, result.dtype, out.dtype)
    return write_out(out, result, "unsafe", name)


def _comp(dtype: np.dtype) -> np.dtype:
    """The dtype NumPy's inner loops accumulate in (float32 for float16)."""
    return _F32 if dtype == _F16 else dtype


def _cast(x: Any, dtype: np.dtype) -> Any:
    return x if x.dtype == dtype else x.astype(dtype)


def _div_dtype(a: np.dtype, b: np.dtype) -> np.dtype:
    return _dtypes.result_type(a, b)


def _inexact(dtype: np.dtype) -> bool:
    return dtype.kind in "fc"


def _ddof(ddof: Any, correction: Any) -> Any:
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return correction
    return ddof


# --- pure-JAX cores: NumPy's order of operations -----------------------------------------

def _pairwise(x: Any) -> Any:
    """NumPy's pairwise sum along the last axis (x already in the accumulation dtype)."""
    n = x.shape[-1]
    cplx = x.dtype.kind == "c"
    lanes, block = (4, 64) if cplx else (8, 128)
    if n < lanes:
        res = jnp.zeros(x.shape[:-1], x.dtype)
        for i in range(n):
            res = res + x[..., i]
        return res
    if n <= block:
        m = n - n % lanes
        r = x[..., :lanes]
        for i in range(lanes, m, lanes):
            r = r + x[..., i:i + lanes]
        if cplx:
            res = (r[..., 0] + r[..., 1]) + (r[..., 2] + r[..., 3])
        else:
            res = (((r[..., 0] + r[..., 1]) + (r[..., 2] + r[..., 3]))
                   + ((r[..., 4] + r[..., 5]) + (r[..., 6] + r[..., 7])))
        for i in range(m, n):
            res = res + x[..., i]
        return res
    n2 = (n - n % 8) // 2 if cplx else n // 2 - (n // 2) % 8
    return _pairwise(x[..., :n2]) + _pairwise(x[..., n2:])


def _pairwise_cost(n: int, cplx: bool) -> int:
    lanes, block = (4, 64) if cplx else (8, 128)
    if n < lanes:
        return n
    if n <= block:
        return n // lanes + lanes + n % lanes
    n2 = (n - n % 8) // 2 if cplx else n // 2 - (n // 2) % 8
    return _pairwise_cost(n2, cplx) + _pairwise_cost(n - n2, cplx) + 1


def _identity(op: str, dtype: np.dtype) -> Any:
    return jnp.asarray(0 if op == "add" else 1, dtype)


def _cmul(a: Any, b: Any) -> Any:
    """Complex product with NumPy's formula (XLA's complex multiply differs at overflow)."""
    ar, ai, br, bi = jnp.real(a), jnp.imag(a), jnp.real(b), jnp.imag(b)
    return jax.lax.complex(_r(ar * br) - _r(ai * bi), _r(ar * bi) + _r(ai * br))


def _first_mul(binop: Callable) -> Callable:
    """Multiplication whose first use is by the identity ``1+0j`` written out as NumPy computes
    it (``re = ar - ai*0``, ``im = ai + ar*0``): XLA would fold a constant ``1*x`` to ``x``."""
    state = {"first": True}

    def mul(acc: Any, y: Any) -> Any:
        if state["first"]:
            state["first"] = False
            ar, ai = jnp.real(y), jnp.imag(y)
            zero = jnp.zeros((), ar.dtype)
            return jax.lax.complex(ar - _r(ai * zero), ai + _r(ar * zero))
        return binop(acc, y)

    return mul


def _fold(x: Any, axes: tuple, op: str, dtype: np.dtype, init: Any = None) -> Any:
    """``np.add.reduce``/``np.multiply.reduce`` of x over ``axes`` in ``dtype`` (no keepdims)."""
    kept = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    cplx_identity = init is None and dtype.kind == "c"
    init = _identity(op, dtype) if init is None else _cast(jnp.asarray(init), dtype)
    if math.prod(x.shape[i] for i in axes) == 0 or math.prod(kept) == 0:
        return jnp.broadcast_to(init, kept)
    if dtype.kind not in "fc":
        x = _cast(x, dtype)
        if dtype == _BOOL:
            r = jnp.any(x, axis=axes) if op == "add" else jnp.all(x, axis=axes)
            return (r | init) if op == "add" else (r & init)
        r = jnp.sum(x, axis=axes, dtype=dtype) if op == "add" else jnp.prod(x, axis=axes,
                                                                          dtype=dtype)
        return _cast(init + r if op == "add" else init * r, dtype)
    comp = _comp(dtype)
    x = _cast(_cast(x, dtype), comp)  # NumPy casts to the loop dtype first
    groups: list[list] = []
    for i, n in enumerate(x.shape):
        if n == 1:
            continue
        red = i in axes
        if groups and groups[-1][1] == red:
            groups[-1][0] *= n
        else:
            groups.append([n, red])
    binop = jnp.add if op == "add" else (_cmul if dtype.kind == "c" else jnp.multiply)
    if op == "mul" and cplx_identity:
        binop = _first_mul(binop)
    if not _builtin_any(red for _, red in groups):
        return _cast(binop(_cast(init, comp), x.reshape(kept)), dtype)
    x = x.reshape([n for n, _ in groups])
    inner_reduced = groups[-1][1]
    cplx = dtype.kind == "c"
    outer = [i for i, (_, red) in enumerate(groups) if red]
    if op == "add" and inner_reduced:
        outer = outer[:-1]
        n_outer = math.prod(groups[i][0] for i in outer)
        cost = n_outer * (1 + _pairwise_cost(groups[-1][0], cplx))
    else:
        n_outer = math.prod(groups[i][0] for i in outer)
        cost = n_outer
    if cost > _UNROLL:  # large: XLA's own reduction order
        r = jnp.sum(x, axis=tuple(i for i, (_, red) in enumerate(groups) if red)) \
            if op == "add" else jnp.prod(x, axis=tuple(i for i, (_, red) in enumerate(groups)
                                                       if red))
        return _cast(binop(_cast(init, comp), r), dtype).reshape(kept)
    if op == "add" and inner_reduced:
        x = _pairwise(x)
        groups = groups[:-1]
    if op == "mul" and inner_reduced and comp != dtype:
        # float16 products: each inner run is multiplied in float32, then rounded.
        rows = list(outer[:-1])
        inner_n = groups[-1][0]
        rest = [i for i in range(len(groups)) if i not in outer]
        y = jnp.transpose(x, rows + [len(groups) - 1] + rest)
        y = y.reshape((math.prod(groups[i][0] for i in rows), inner_n)
                      + tuple(groups[i][0] for i in rest))
        acc = jnp.broadcast_to(init, y.shape[2:])
        for r in range(y.shape[0]):
            run = _cast(acc, comp)
            for j in range(inner_n):
                run = run * y[r, j]
            acc = _cast(run, dtype)
        return acc.reshape(kept)
    outer = [i for i, (_, red) in enumerate(groups) if red]
    rest = [i for i in range(len(groups)) if i not in outer]
    y = jnp.transpose(x, outer + rest)
    y = y.reshape((math.prod(groups[i][0] for i in outer),)
                  + tuple(groups[i][0] for i in rest))
    acc = jnp.broadcast_to(init, y.shape[1:])
    for r in range(y.shape[0]):
        acc = _cast(binop(_cast(acc, comp), y[r]), dtype)
    return acc.reshape(kept)


def _accumulate(x: Any, axis: int, op: str, dtype: np.dtype) -> Any:
    """``np.add.accumulate``/``np.multiply.accumulate`` along ``axis`` in ``dtype``."""
    n = x.shape[axis]
    if dtype == _BOOL:
        x = _cast(x, _BOOL).astype(np.int8)
        r = jax.lax.cummax(x, axis) if op == "add" else jax.lax.cummin(x, axis)
        return r.astype(_BOOL)
    if dtype.kind not in "fc" or n == 0:
        x = _cast(x, dtype)
        return jnp.cumsum(x, axis, dtype=dtype) if op == "add" else jnp.cumprod(
            x, axis, dtype=dtype)
    comp = _comp(dtype)
    x = _cast(_cast(x, dtype), comp)  # NumPy casts to the loop dtype first
    if n > _UNROLL // 2:
        r = jnp.cumsum(x, axis) if op == "add" else jnp.cumprod(x, axis)
        return _cast(r, dtype)
    binop = jnp.add if op == "add" else (_cmul if dtype.kind == "c" else jnp.multiply)
    y = jnp.moveaxis(x, axis, 0)
    acc = _cast(y[0], dtype)
    parts = [acc]
    for i in range(1, n):
        acc = _cast(binop(_cast(acc, comp), y[i]), dtype)
        parts.append(acc)
    return jnp.moveaxis(jnp.stack(parts), 0, axis)


def _count(shape: tuple, axes: tuple, mask: Any, keepdims: bool) -> Any:
    """Number of elements reduced per output (intp), as NumPy's ``_count_reduce_items``."""
    if mask is None:
        return jnp.asarray(math.prod(shape[i] for i in axes), _INTP)
    m = jnp.broadcast_to(mask, shape)
    return _keep(jnp.sum(m, axis=axes, dtype=_INTP), shape, axes, keepdims)


def _masked(x: Any, mask: Any, fill: Any) -> Any:
    return x if mask is None else jnp.where(mask, x, jnp.asarray(fill, x.dtype))


def _true_div(a: Any, b: Any) -> Any:
    """``a / b`` correctly rounded. XLA rewrites a division by a broadcast or a constant into
    a multiplication by its reciprocal, which rounds differently; an optimisation barrier on
    the full-shape divisor keeps the division."""
    shape = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
    a = jnp.broadcast_to(a, shape)
    return a / jax.lax.optimization_barrier(jnp.broadcast_to(b, shape).astype(a.dtype))


def _divide(s: Any, count: Any, dtype: np.dtype) -> Any:
    """``true_divide(s, count, out=s, casting='unsafe')``: divide in the promoted dtype.

    A complex numerator uses NumPy's complex division (Smith's method with a real divisor):
    ``re = (ar + ai*0) * (1/n)``, ``im = (ai - ar*0) * (1/n)``, so infinities give NaN parts
    exactly where NumPy's do.
    """
    div = _div_dtype(s.dtype, count.dtype)
    if div.kind != "c":
        return _cast(_true_div(_cast(s, div), _cast(count, div)), dtype)
    fl = np.dtype(div.char.lower()) if div.char in "FD" else _F64
    br = _cast(jnp.real(count) if count.dtype.kind == "c" else count, fl)
    ar, ai = _cast(jnp.real(s), fl), _cast(jnp.imag(s), fl)
    rat = jnp.zeros_like(br)
    scl = _true_div(jnp.ones_like(br), br)
    zero = br == 0
    re = jnp.where(zero, _true_div(ar, jnp.abs(br)), _r((ar + _r(ai * rat)) * scl))
    im = jnp.where(zero, _true_div(ai, jnp.abs(br)), _r((ai - _r(ar * rat)) * scl))
    return _cast(jax.lax.complex(re, im), dtype)


# kernels: (static...) then runtime arrays

def _k_fold(axes, keepdims, op, dtype, nan_fill, x, mask, init):
    if nan_fill is not None and x.dtype.kind in "fc":
        x = jnp.where(jnp.isnan(x), jnp.asarray(nan_fill, x.dtype), x)
    x = _masked(x, mask, 0 if op == "add" else 1)
    return _keep(_fold(x, axes, op, dtype, init), x.shape, axes, keepdims)


def _k_fold_plain(axes, keepdims, op, dtype, nan_fill, x):
    return _k_fold(axes, keepdims, op, dtype, nan_fill, x, None, None)


def _k_mean(axes, keepdims, sum_dt, res_dt, x, mask=None):
    s = _fold(_masked(x, mask, 0), axes, "add", sum_dt)
    s = _keep(s, x.shape, axes, keepdims)
    r = _divide(s, _count(x.shape, axes, mask, keepdims), sum_dt)
    return _cast(r, res_dt)


def _var_core(axes, keepdims, dtype, ddof, x, mask, mean):
    """NumPy's ``_var``: returns the variance (before any square root)."""
    sum_dt = dtype if dtype is not None else (_F64 if x.dtype.kind in "biu" else x.dtype)
    count = _count(x.shape, axes, mask, True)
    if mean is None:
        m = _keep(_fold(_masked(x, mask, 0), axes, "add", sum_dt), x.shape, axes, True)
        m = _divide(m, count, sum_dt)
    else:
        m = mean
    d_dt = _dtypes.result_type(x.dtype, m.dtype)
    d = _cast(x, d_dt) - _cast(m, d_dt)
    if d_dt.kind == "c":
        sq = _r(jnp.real(d) * jnp.real(d)) + _r(jnp.imag(d) * jnp.imag(d))
    elif d_dt == _BOOL:
        sq = d & d
    else:
        sq = _r(d * d)
    ret_dt = dtype if dtype is not None else sq.dtype
    ret = _keep(_fold(_masked(sq, mask, 0), axes, "add", ret_dt), x.shape, axes, keepdims)
    if not keepdims:
        count = count.reshape(ret.shape) if count.ndim else count
    rcount = jnp.maximum(count - ddof, 0)
    return _divide(ret, rcount, ret_dt)


def _k_var(axes, keepdims, dtype, ddof, res_dt, root, x, mask, mean):
    v = _var_core(axes, keepdims, dtype, ddof, x, mask, mean)
    if root:
        v = jnp.sqrt(v)
    return _cast(v, res_dt)


def _k_nanvar(axes, keepdims, dtype, ddof, res_dt, root, x, mask, mean):
    nan = jnp.isnan(x)
    arr = jnp.where(nan, jnp.zeros((), x.dtype), x)
    valid = ~nan if mask is None else (~nan & mask)
    cnt = jnp.sum(valid, axis=axes, dtype=_INTP, keepdims=True)
    sum_dt = dtype if dtype is not None else x.dtype
    if mean is None:
        avg = _keep(_fold(_masked(arr, mask, 0), axes, "add", sum_dt), x.shape, axes, True)
        avg = _divide(avg, cnt, avg.dtype)
    else:
        avg = mean
    sub_dt = _dtypes.result_type(arr.dtype, avg.dtype)
    arr = _cast(_cast(arr, sub_dt) - _cast(avg, sub_dt), x.dtype)
    arr = jnp.where(nan, jnp.zeros((), x.dtype), arr)
    if x.dtype.kind == "c":
        ar, ai = jnp.real(arr), jnp.imag(arr)
        sqr = _r(ar * ar) - _r(ai * -ai)
    else:
        sqr = _r(arr * arr)
    v_dt = dtype if dtype is not None else sqr.dtype
    v = _keep(_fold(_masked(sqr, mask, 0), axes, "add", v_dt), x.shape, axes, keepdims)
    if not keepdims:
        cnt = cnt.reshape(v.shape)
    dof = cnt - ddof
    v = _divide(v, dof, v.dtype)
    v = jnp.where(dof <= 0, jnp.asarray(np.nan, v.dtype), v)
    if root:
        v = jnp.sqrt(v)
    return _cast(v, res_dt)


def _k_nanmean(axes, keepdims, sum_dt, res_dt, x, mask):
    nan = jnp.isnan(x)
    arr = jnp.where(nan, jnp.zeros((), x.dtype), x)
    valid = ~nan if mask is None else (~nan & mask)
    cnt = jnp.sum(valid, axis=axes, dtype=_INTP, keepdims=keepdims)
    tot = _keep(_fold(_masked(arr, mask, 0), axes, "add", sum_dt), x.shape, axes, keepdims)
    return _cast(_divide(tot, cnt, tot.dtype), res_dt)


def _flat_last(x: Any, axes: tuple) -> Any:
    """Reduced axes moved to the end and merged (NumPy's ``_ureduce`` layout)."""
    keep = [i for i in range(x.ndim) if i not in axes]
    y = jnp.transpose(x, keep + list(axes))
    return y.reshape(tuple(x.shape[i] for i in keep) + (math.prod(x.shape[i] for i in axes),))


def _lex_best(x: Any, is_max: bool, valid: Any, nan_first: bool) -> Any:
    """Index (last axis) of the lexicographic max/min of complex x, NumPy's tie and NaN rules."""
    re, im = jnp.real(x), jnp.imag(x)
    nan = jnp.isnan(re) | jnp.isnan(im)
    if not is_max:
        re, im = -re, -im
    ok = valid & ~nan
    neg = jnp.asarray(-np.inf, re.dtype)
    m_re = jnp.max(jnp.where(ok, re, neg), axis=-1, keepdims=True)
    cand = ok & (re == m_re)
    m_im = jnp.max(jnp.where(cand, im, neg), axis=-1, keepdims=True)
    best = jnp.argmax(cand & (im == m_im), axis=-1)
    if nan_first:
        has_nan = jnp.any(nan & valid, axis=-1)
        best = jnp.where(has_nan, jnp.argmax(nan & valid, axis=-1), best)
    return best


def _k_minmax(axes, keepdims, is_max, ignore_nan, x, mask, init):
    shape = x.shape
    if x.dtype.kind == "c":
        if x.size == 0:
            return jnp.zeros(_kept_shape(shape, axes, keepdims), x.dtype)
        y = _flat_last(x, axes)
        valid = jnp.ones(y.shape, bool) if mask is None else _flat_last(
            jnp.broadcast_to(mask, shape), axes)
        if init is not None:
            y = jnp.concatenate([jnp.broadcast_to(init.astype(x.dtype), y.shape[:-1] + (1,)),
                                 y], axis=-1)
            valid = jnp.concatenate([jnp.ones(y.shape[:-1] + (1,), bool), valid], axis=-1)
        idx = _lex_best(y, is_max, valid, not ignore_nan)
        r = jnp.take_along_axis(y, idx[..., None], axis=-1)[..., 0]
        if ignore_nan:
            allnan = ~jnp.any(valid & ~(jnp.isnan(y.real) | jnp.isnan(y.imag)), axis=-1)
            r = jnp.where(allnan, jnp.asarray(complex(np.nan, 0), x.dtype), r)
        return _keep(r, shape, axes, keepdims)
    red = jnp.max if is_max else jnp.min
    kw = {} if init is None else {"initial": init}
    if ignore_nan and x.dtype.kind == "f":
        nan = jnp.isnan(x)
        fill = -np.inf if is_max else np.inf
        r = red(jnp.where(nan, jnp.asarray(fill, x.dtype), x), axis=axes, where=mask,
                keepdims=keepdims, **kw)
        if init is None:
            seen = ~nan if mask is None else (~nan & mask)
            allnan = ~jnp.any(seen, axis=axes, keepdims=keepdims)
            r = jnp.where(allnan, jnp.asarray(np.nan, x.dtype), r)
        return r
    return red(x, axis=axes, where=mask, keepdims=keepdims, **kw)


def _k_minmax_plain(axes, keepdims, is_max, ignore_nan, x):
    return _k_minmax(axes, keepdims, is_max, ignore_nan, x, None, None)


def _k_arg(is_max, axis, keepdims, ignore_nan, x):
    if axis is None:
        y, ax = x.reshape(-1), 0
    else:
        y, ax = x, axis
    if x.dtype.kind == "c":
        y = jnp.moveaxis(y, ax, -1)
        r = _lex_best(y, is_max, jnp.ones(y.shape, bool), not ignore_nan)
    else:
        if ignore_nan and x.dtype.kind == "f":
            y = jnp.where(jnp.isnan(y), jnp.asarray(-np.inf if is_max else np.inf, y.dtype), y)
        r = (jnp.argmax if is_max else jnp.argmin)(y, axis=ax)
    r = r.astype(_INTP)
    if keepdims:
        r = r.reshape((1,) * x.ndim if axis is None else
                      tuple(1 if i == axis else n for i, n in enumerate(x.shape)))
    return r


def _k_allnan(axis, x):
    nan = jnp.isnan(x)
    return jnp.any(jnp.all(nan, axis=axis)) if x.size else jnp.asarray(False)


def _k_anyall(axes, keepdims, is_any, x, mask):
    fn = jnp.any if is_any else jnp.all
    if x.dtype.kind == "c":  # JAX's complex -> bool looks at the real part only
        x = x != 0
    return fn(x, axis=axes, keepdims=keepdims, where=mask)


def _k_accumulate(axis, op, dtype, nan_fill, initial_pad, x):
    if axis is None:
        x, axis = x.reshape(-1), 0
    if nan_fill is not None and x.dtype.kind in "fc":
        x = jnp.where(jnp.isnan(x), jnp.asarray(nan_fill, x.dtype), x)
    r = _accumulate(x, axis, op, dtype)
    if initial_pad:
        shape = list(r.shape)
        shape[axis] = 1
        r = jnp.concatenate([jnp.full(shape, 0 if op == "add" else 1, dtype), r], axis=axis)
    return r


def _k_ptp(axes, keepdims, x):
    hi = _k_minmax(axes, keepdims, True, False, x, None, None)
    lo = _k_minmax(axes, keepdims, False, False, x, None, None)
    return hi - lo


def _k_count_nonzero(axes, keepdims, x):
    return jnp.sum(x != 0, axis=axes, keepdims=keepdims, dtype=_INTP)


def _sort_last(y: Any) -> Any:
    """Sorted along the last axis in NumPy's order (NaNs last: only their count matters)."""
    if y.dtype.kind == "c":
        re, im = jnp.real(y), jnp.imag(y)
        nre, nim = jnp.isnan(re), jnp.isnan(im)
        cat = nre.astype(np.int8) * 2 + nim.astype(np.int8)
        zero = jnp.zeros((), re.dtype)
        order = jnp.lexsort((jnp.where(nim, zero, im), jnp.where(nre, zero, re), cat), axis=-1)
        return jnp.take_along_axis(y, order, axis=-1)
    if y.dtype.kind == "f":
        return jnp.sort(jnp.where(jnp.isnan(y), jnp.asarray(np.inf, y.dtype), y), axis=-1)
    return jnp.sort(y, axis=-1)


def _isnan_any(y: Any) -> Any:
    if y.dtype.kind not in "fc":
        return jnp.zeros(y.shape[:-1], bool)
    return jnp.any(jnp.isnan(y), axis=-1)


def _nan_last(y: Any) -> Any:
    """The value NumPy's partition leaves last in a slice that holds a NaN."""
    if y.dtype.kind == "c":
        return _sort_last(y)[..., -1]
    return jnp.full(y.shape[:-1], np.nan, y.dtype)


def _mean_of(part: Any, res_dt: np.dtype) -> Any:
    """``np.mean(part, axis=-1)`` for the one or two middle values of a median."""
    kind = part.dtype
    sum_dt = _F64 if kind.kind in "biu" else (_F32 if kind == _F16 else kind)
    s = _fold(part, (part.ndim - 1,), "add", sum_dt)
    return _cast(_divide(s, jnp.asarray(part.shape[-1], _INTP), sum_dt), res_dt)


def _k_median(axes, keepdims, res_dt, ma_pairs, x):
    shape = x.shape
    y = _flat_last(x, axes)
    n = y.shape[-1]
    if n == 0 or y.size == 0:
        r = jnp.full(y.shape[:-1], np.nan, res_dt)
    else:
        s = _sort_last(y)
        h = n // 2
        part = s[..., h:h + 1] if n % 2 else s[..., h - 1:h + 1]
        if ma_pairs and n % 2 == 0 and y.dtype.kind == "f":
            r = _cast(_fold(part, (part.ndim - 1,), "add", y.dtype) / 2.0, res_dt)
        else:
            r = _mean_of(part, res_dt)
        if y.dtype.kind in "fc":
            r = jnp.where(_isnan_any(y), _cast(_nan_last(y), res_dt), r)
    return _keep(r, shape, axes, keepdims)


def _k_nanmedian(axes, keepdims, res_dt, ma_pairs, x):
    shape = x.shape
    y = _flat_last(x, axes)
    n_valid = jnp.sum(~jnp.isnan(y), axis=-1)
    s = _sort_last(y)  # NaNs (as +inf) after every valid value
    n = y.shape[-1]
    hi = n_valid // 2
    lo = jnp.where(n_valid % 2 == 1, hi, jnp.maximum(hi - 1, 0))
    a = jnp.take_along_axis(s, jnp.minimum(lo, n - 1)[..., None], axis=-1)
    b = jnp.take_along_axis(s, jnp.minimum(hi, n - 1)[..., None], axis=-1)
    odd = (n_valid % 2 == 1)
    if ma_pairs:  # numpy.ma.median: (low + high) / 2 in the dtype, odd counts too
        pair = _fold(jnp.concatenate([a, b], axis=-1), (y.ndim - 1,), "add", y.dtype)
        r = _cast(_divide(pair, jnp.asarray(2.0, _F64), y.dtype), res_dt)
    else:
        pair = _mean_of(jnp.concatenate([a, b], axis=-1), res_dt)
        r = jnp.where(odd, _mean_of(a, res_dt), pair)
    r = jnp.where(n_valid == 0, jnp.asarray(np.nan, res_dt), r)
    return _keep(r, shape, axes, keepdims)


# --- quantiles ---------------------------------------------------------------------------

_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
            "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
            "normal_unbiased", "lower", "higher", "midpoint", "nearest")
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}


def _boundaries(index: Any, gamma_fun: Callable) -> Any:
    prev = jnp.floor(index)
    nxt = prev + 1
    gamma = index - prev
    res = jnp.where(gamma_fun(gamma, index), prev, nxt).astype(_INTP)
    return jnp.where(res < 0, 0, res)


def _virtual_index(method: str, n: Any, q: Any) -> Any:
    """NumPy's ``get_virtual_index`` (n: per-slice counts as an array of q's dtype or int)."""
    if method == "linear":
        return _r((n - 1) * q)
    if method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        return _r(n * q) + (alpha + _r(q * (1 - alpha - beta))) - 1
    if method == "averaged_inverted_cdf":
        return _r(n * q) - 1
    if method == "inverted_cdf":
        return _boundaries(_r(n * q) - 1, lambda g, _: g == 0)
    if method == "closest_observation":
        return _boundaries(_r(n * q) - 1 - 0.5,
                           lambda g, i: (g == 0) & (jnp.floor(i) % 2 == 1))
    if method == "lower":
        return jnp.floor(_r((n - 1) * q)).astype(_INTP)
    if method == "higher":
        return jnp.ceil(_r((n - 1) * q)).astype(_INTP)
    if method == "nearest":
        return jnp.round(_r((n - 1) * q)).astype(_INTP)
    if method == "midpoint":
        return _r(0.5 * (jnp.floor(_r((n - 1) * q)) + jnp.ceil(_r((n - 1) * q))))
    raise AssertionError(method)


def _fix_gamma(method: str, gamma: Any, index: Any) -> Any:
    if method == "averaged_inverted_cdf":
        return jnp.where(gamma == 0, 0.5, 1.0).astype(_F64)
    if method == "midpoint":
        return jnp.where(index % 1 == 0, 0.0, 0.5).astype(_F64)
    return gamma


def _k_quantile(method, weak, res_dt, nan_mode, q_dt, q_ndim, keepdims, axes, x, q):
    """NumPy's ``_quantile`` along the merged reduced axes; result shape q.shape + rest."""
    shape = x.shape
    y = _flat_last(x, axes)
    n = y.shape[-1]
    s = _sort_last(y)
    if nan_mode:
        n_valid = jnp.sum(~jnp.isnan(y), axis=-1) if y.dtype.kind == "f" else jnp.full(
            y.shape[:-1], n)
    else:
        n_valid = jnp.full(y.shape[:-1], n)
    rest = y.shape[:-1]
    qb = q.reshape(q.shape + (1,) * len(rest))
    nb = n_valid.reshape((1,) * q_ndim + rest)
    nq = nb.astype(q_dt) if q_dt.kind == "f" else nb
    vi = _virtual_index(method, nq, qb)
    vi = jnp.broadcast_to(vi, q.shape + rest)
    integer_index = jnp.issubdtype(vi.dtype, jnp.integer)
    take_idx = lambda idx: jnp.take_along_axis(  # noqa: E731
        jnp.broadcast_to(s, q.shape + s.shape), jnp.clip(idx, 0, _builtin_max(n - 1, 0))[
            ..., None].astype(_INTP), axis=-1)[..., 0]
    if method in _DISCRETE or (method == "linear" and integer_index):
        result = _cast(take_idx(vi.astype(_INTP)), res_dt)
    else:
        nvf = nb.astype(vi.dtype)
        prev = jnp.floor(vi)
        nxt = prev + 1
        above = vi >= nvf - 1
        prev = jnp.where(above, -1, prev)
        nxt = jnp.where(above, -1, nxt)
        below = vi < 0
        prev = jnp.where(below, 0, prev)
        nxt = jnp.where(below, 0, nxt)
        prev_i = prev.astype(_INTP)
        nxt_i = nxt.astype(_INTP)
        # index -1 means "the last valid value" of the slice
        last = jnp.broadcast_to(nb - 1, prev_i.shape)
        prev_i = jnp.where(prev_i < 0, last, prev_i)
        nxt_i = jnp.where(nxt_i < 0, last, nxt_i)
        a = take_idx(prev_i)
        b = take_idx(nxt_i)
        gamma = _fix_gamma(method, vi - prev, vi).astype(vi.dtype)
        # Python-float gamma (weak q) rounds to the lerp dtype; an array gamma keeps its own
        t = _cast(gamma, res_dt) if weak else gamma
        one_minus_t = _cast(1 - gamma, res_dt) if weak else 1 - gamma
        diff = b - a
        lerp = _cast(a, res_dt) + _r(_cast(diff, res_dt) * _cast(t, res_dt))
        alt = _cast(b, res_dt) - _r(_cast(diff, res_dt) * _cast(one_minus_t, res_dt))
        result = _cast(jnp.where(gamma >= 0.5, alt, lerp), res_dt)
    if y.dtype.kind == "f":
        if nan_mode:
            result = jnp.where(jnp.broadcast_to(n_valid == 0, result.shape),
                               jnp.asarray(np.nan, res_dt), result)
        else:
            result = jnp.where(jnp.broadcast_to(_isnan_any(y), result.shape),
                               jnp.asarray(np.nan, res_dt), result)
    if keepdims:
        result = result.reshape(q.shape + _kept_shape(shape, axes, True))
    return result


def _k_quantile_weighted(res_dt, nan_mode, q_ndim, keepdims, axes, x, w, q):
    shape = x.shape
    y = _flat_last(x, axes)
    wy = _flat_last(jnp.broadcast_to(w, shape), axes)
    n = y.shape[-1]
    nan = jnp.isnan(y) if y.dtype.kind == "f" else jnp.zeros(y.shape, bool)
    key = jnp.where(nan, jnp.asarray(np.inf, y.dtype), y) if y.dtype.kind == "f" else y
    order = jnp.argsort(key, axis=-1, stable=True)
    s = jnp.take_along_axis(y, order, axis=-1)
    ws = jnp.take_along_axis(wy, order, axis=-1)
    if nan_mode:
        ws = jnp.where(jnp.take_along_axis(nan, order, axis=-1), jnp.zeros((), ws.dtype), ws)
    cdf = jnp.cumsum(ws.astype(_F64), axis=-1)
    cdf = _true_div(cdf, cdf[..., -1:])
    bad = jnp.isnan(cdf[..., -1])
    if nan_mode:  # an all-NaN slice gives NaN before NumPy looks at its weights
        bad = bad & jnp.any(~nan, axis=-1)
    bad = jnp.any(bad)
    if q.dtype.kind == "f":
        cdf = cdf.astype(q.dtype)
    cdf = jnp.where(jnp.any(cdf[..., :1] == 0, axis=None) & (cdf == 0), -1, cdf)
    qb = q.reshape(q.shape + (1,) * (y.ndim - 1) + (1,))
    idx = jnp.sum(cdf < qb, axis=-1)
    idx = jnp.minimum(idx, n - 1)
    result = jnp.take_along_axis(jnp.broadcast_to(s, q.shape + s.shape), idx[..., None],
                                 axis=-1)[..., 0]
    result = _cast(result, res_dt)
    if y.dtype.kind == "f":
        flag = (jnp.sum(~nan, axis=-1) == 0) if nan_mode else jnp.any(nan, axis=-1)
        result = jnp.where(jnp.broadcast_to(flag, result.shape), jnp.asarray(np.nan, res_dt),
                           result)
    if keepdims:
        result = result.reshape(q.shape + _kept_shape(shape, axes, True))
    return result, bad


def _k_average(axes, keepdims, rd, x, w):
    # the weight sum is over the weights as given (1s on the other axes), as NumPy's is
    scl = _keep(_fold(w, axes, "add", rd), w.shape, axes, keepdims)
    wb = jnp.broadcast_to(w, x.shape)
    prod = _cmul(_cast(x, rd), _cast(wb, rd)) if rd.kind == "c" else _r(
        _cast(x, rd) * _cast(wb, rd))
    s = _keep(_fold(prod, axes, "add", rd), x.shape, axes, keepdims)
    return _true_div(s, scl), scl, jnp.any(scl == 0)


# --- public functions --------------------------------------------------------------------

def _fold_public(name: str, op: str, a: Any, axis: Any, dtype: Any, out: Any, keepdims: Any,
                 initial: Any, where: Any, nan_fill: Any = None) -> Any:
    axes = _axes(axis, a.ndim)
    res_dt = _oracle(name, a.dtype, dtype)
    static = (axes, keepdims is True, op, res_dt, nan_fill)
    if where is True and initial is _NoValue and (op == "add" or res_dt.kind != "c"):
        r = _jit_plain(_k_fold_plain, static)(a)
    else:
        r = _jit(_k_fold, static)(a, _mask(where, a.shape), _initial(initial, res_dt))
    return _finish(r, out, name)


@npfunc(scalar=True)
def sum(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
        keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.sum`` (NumPy's pairwise order for small float sums)."""
    return _fold_public("sum", "add", a, axis, dtype, out, keepdims, initial, where)


@npfunc(scalar=True)
def prod(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
         keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.prod``."""
    return _fold_public("prod", "mul", a, axis, dtype, out, keepdims, initial, where)


@npfunc(scalar=True)
def nansum(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
           keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nansum``."""
    return _fold_public("nansum", "add", a, axis, dtype, out, keepdims, initial, where, 0)


@npfunc(scalar=True)
def nanprod(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
            keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanprod``."""
    return _fold_public("nanprod", "mul", a, axis, dtype, out, keepdims, initial, where, 1)


def _mean_dtypes(a_dt: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
    res_dt = _oracle("mean", a_dt, dtype)
    if dtype is not None:
        return dtype, res_dt
    if a_dt.kind in "biu":
        return _F64, res_dt
    return (_F32 if a_dt == _F16 else a_dt), res_dt


@npfunc(scalar=True)
def mean(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
         keepdims: Any = False, *, where: Any = True) -> Any:
    """npjax implementation of ``numpy.mean`` (sum in NumPy's order, then divide)."""
    axes = _axes(axis, a.ndim)
    sum_dt, res_dt = _mean_dtypes(a.dtype, dtype)
    if out is not None and dtype is None and a.dtype.kind not in "biu" and a.dtype != _F16:
        sum_dt = res_dt = getattr(out, "dtype", res_dt)
    mask = _mask(where, a.shape)
    kernel = _jit_plain(_k_mean, (axes, keepdims is True, sum_dt, res_dt))
    r = kernel(a) if mask is None else kernel(a, mask)
    return _finish(r, out, "mean")


def _var_public(name: str, a: Any, axis: Any, dtype: Any, out: Any, ddof: Any,
                keepdims: Any, where: Any, mean: Any, correction: Any, root: bool,
                nan: bool) -> Any:
    axes = _axes(axis, a.ndim)
    ddof = _ddof(ddof, correction)
    res_dt = _oracle(name, a.dtype, dtype)
    mask = _mask(where, a.shape)
    m = None if mean is _NoValue or mean is None else to_jax(mean, current())
    if nan and _inexact(a.dtype):
        if dtype is not None and not _inexact(dtype):
            raise TypeError("If a is inexact, then dtype must be inexact")
        if out is not None and not _inexact(out.dtype):
            raise TypeError("If a is inexact, then out must be inexact")
        core = _k_nanvar
    else:
        core = _k_var
    if dtype is None and a.dtype.kind in "biu":
        dtype = _F64
    r = _jit(core, (axes, keepdims is True, dtype, ddof, res_dt, root))(a, mask, m)
    return _finish(r, out, "sqrt" if root else name, "same_kind" if root else "unsafe")


@npfunc(scalar=True)
def var(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None, ddof: Any = 0,
        keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
        correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.var``."""
    return _var_public("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       False, False)


@npfunc(scalar=True)
def std(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None, ddof: Any = 0,
        keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
        correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.std``."""
    return _var_public("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       True, False)


@npfunc(scalar=True)
def nanvar(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
           ddof: Any = 0, keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
           correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.nanvar``."""
    return _var_public("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       False, True)


@npfunc(scalar=True)
def nanstd(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
           ddof: Any = 0, keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
           correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.nanstd``."""
    return _var_public("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       True, True)


@npfunc(scalar=True)
def nanmean(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
            keepdims: Any = False, *, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanmean``."""
    if not _inexact(a.dtype):
        return mean.__wrapped__(a, axis, dtype, out, keepdims, where=where)
    if dtype is not None and not _inexact(dtype):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not _inexact(out.dtype):
        raise TypeError("If a is inexact, then out must be inexact")
    axes = _axes(axis, a.ndim)
    res_dt = _oracle("nanmean", a.dtype, dtype)
    sum_dt = dtype if dtype is not None else a.dtype
    r = _jit_plain(_k_nanmean, (axes, keepdims is True, sum_dt, res_dt))(a, _mask(where, a.shape))
    return _finish(r, out, "nanmean")


def _minmax_public(name: str, a: Any, axis: Any, out: Any, keepdims: Any, initial: Any,
                   where: Any, is_max: bool, ignore_nan: bool) -> Any:
    axes = _axes(axis, a.ndim)
    init = _initial(initial, a.dtype)
    ufunc = ("fmax" if is_max else "fmin") if ignore_nan else ("maximum" if is_max else
                                                               "minimum")
    mask = _mask(where, a.shape)
    if init is None:
        if mask is not None:
            raise ValueError(f"reduction operation '{ufunc}' does not have an identity, so "
                             "to use a where mask one has to specify 'initial'")
        if math.prod(a.shape[i] for i in axes) == 0:
            raise ValueError(f"zero-size array to reduction operation {ufunc} which has no "
                             "identity")
    static = (axes, keepdims is True, is_max, ignore_nan)
    if mask is None and init is None:
        r = _jit_plain(_k_minmax_plain, static)(a)
    else:
        r = _jit_plain(_k_minmax, static)(a, mask, init)
    return _finish(r, out, name)


@npfunc(scalar=True)
def max(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
        initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.max`` (NaN propagates; complex is lexicographic)."""
    return _minmax_public("max", a, axis, out, keepdims, initial, where, True, False)


@npfunc(scalar=True)
def min(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
        initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.min`` (NaN propagates; complex is lexicographic)."""
    return _minmax_public("min", a, axis, out, keepdims, initial, where, False, False)


@npfunc(scalar=True)
def amax(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
         initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.amax`` (alias of ``max``)."""
    return _minmax_public("amax", a, axis, out, keepdims, initial, where, True, False)


@npfunc(scalar=True)
def amin(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
         initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.amin`` (alias of ``min``)."""
    return _minmax_public("amin", a, axis, out, keepdims, initial, where, False, False)


@npfunc(scalar=True)
def nanmax(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
           initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanmax``.

    Differences from NumPy: no "All-NaN slice encountered" RuntimeWarning (value matches).
    """
    return _minmax_public("nanmax", a, axis, out, keepdims, initial, where, True, True)


@npfunc(scalar=True)
def nanmin(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
           initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanmin``.

    Differences from NumPy: no "All-NaN slice encountered" RuntimeWarning (value matches).
    """
    return _minmax_public("nanmin", a, axis, out, keepdims, initial, where, False, True)


def _arg_public(name: str, a: Any, axis: Any, out: Any, keepdims: Any, is_max: bool,
                ignore_nan: bool) -> Any:
    if ignore_nan and a.dtype.kind in "fc" and a.size and isinstance(axis, tuple | list):
        normalize_axes(axis, a.ndim)  # NumPy's all-NaN check sees the tuple first
    ax = None if axis is None else normalize_axis(axis, a.ndim)
    n = a.size if ax is None else a.shape[ax]
    if n == 0:
        raise ValueError(f"attempt to get {'argmax' if is_max else 'argmin'} of an empty "
                         "sequence")
    if ignore_nan and a.dtype.kind in "fc":
        if bool(_jit_plain(_k_allnan, (ax,))(a)):
            raise ValueError("All-NaN slice encountered")
    if out is not None and getattr(out, "dtype", _INTP).kind not in "iu":
        raise TypeError(f"Cannot cast array data from dtype('{out.dtype}') to "
                        "dtype('int64') according to the rule 'safe'")
    r = _jit_plain(_k_arg, (is_max, ax, keepdims is True, ignore_nan))(a)
    return _finish(r, out, name)


@npfunc(scalar=True)
def argmax(a: ArrayIn, axis: Any = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.argmax`` (first NaN wins, as in NumPy)."""
    return _arg_public("argmax", a, axis, out, keepdims, True, False)


@npfunc(scalar=True)
def argmin(a: ArrayIn, axis: Any = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.argmin`` (first NaN wins, as in NumPy)."""
    return _arg_public("argmin", a, axis, out, keepdims, False, False)


@npfunc(scalar=True)
def nanargmax(a: ArrayIn, axis: Any = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.nanargmax`` (the all-NaN check reads one flag back)."""
    return _arg_public("nanargmax", a, axis, out, keepdims, True, True)


@npfunc(scalar=True)
def nanargmin(a: ArrayIn, axis: Any = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.nanargmin`` (the all-NaN check reads one flag back)."""
    return _arg_public("nanargmin", a, axis, out, keepdims, False, True)


def _anyall(name: str, a: Any, axis: Any, out: Any, keepdims: Any, where: Any,
            is_any: bool) -> Any:
    axes = _axes(axis, a.ndim)
    r = _jit_plain(_k_anyall, (axes, keepdims is True, is_any))(a, _mask(where, a.shape))
    return _finish(r, out, name)


@npfunc(scalar=True)
def any(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False, *,
        where: Any = True) -> Any:
    """npjax implementation of ``numpy.any``."""
    return _anyall("any", a, axis, out, keepdims, where, True)


@npfunc(scalar=True)
def all(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False, *,
        where: Any = True) -> Any:
    """npjax implementation of ``numpy.all``."""
    return _anyall("all", a, axis, out, keepdims, where, False)


def _cum_public(name: str, op: str, a: Any, axis: Any, dtype: Any, out: Any,
                nan_fill: Any = None, include_initial: bool = False,
                array_api: bool = False) -> Any:
    if array_api:
        if a.ndim == 0:
            a = a.reshape(1)
        if axis is None:
            if a.ndim >= 2:
                raise ValueError("For arrays which have more than one dimension ``axis`` "
                                 "argument is required.")
            axis = 0
    ax = None if axis is None else normalize_axis(axis, _builtin_max(a.ndim, 1))
    if ax is not None and a.ndim == 0:
        a = a.reshape(1)
    res_dt = _oracle(name, a.dtype, dtype)
    jit = _jit if op == "mul" and res_dt.kind == "c" else _jit_plain
    r = jit(_k_accumulate, (ax, op, res_dt, nan_fill, bool(include_initial)))(a)
    return _finish(r, out, name)


@npfunc
def cumsum(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.cumsum`` (sequential, as NumPy's accumulate)."""
    return _cum_public("cumsum", "add", a, axis, dtype, out)


@npfunc
def cumprod(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.cumprod``."""
    return _cum_public("cumprod", "mul", a, axis, dtype, out)


@npfunc
def nancumsum(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.nancumsum``."""
    return _cum_public("nancumsum", "add", a, axis, dtype, out, nan_fill=0)


@npfunc
def nancumprod(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.nancumprod``."""
    return _cum_public("nancumprod", "mul", a, axis, dtype, out, nan_fill=1)


@npfunc
def cumulative_sum(x: ArrayIn, /, *, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
                   include_initial: bool = False) -> Any:
    """npjax implementation of ``numpy.cumulative_sum``."""
    return _cum_public("cumulative_sum", "add", x, axis, dtype, out,
                       include_initial=include_initial, array_api=True)


@npfunc
def cumulative_prod(x: ArrayIn, /, *, axis: Any = None, dtype: DTypeIn = None,
                    out: Any = None, include_initial: bool = False) -> Any:
    """npjax implementation of ``numpy.cumulative_prod``."""
    return _cum_public("cumulative_prod", "mul", x, axis, dtype, out,
                       include_initial=include_initial, array_api=True)


@npfunc(scalar=True)
def ptp(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.ptp`` (``max - min`` in the input dtype)."""
    axes = _axes(axis, a.ndim)
    if math.prod(a.shape[i] for i in axes) == 0:
        raise ValueError("zero-size array to reduction operation maximum which has no "
                         "identity")
    _oracle("ptp", a.dtype)  # bool raises TypeError as in NumPy
    return _finish(_jit_plain(_k_ptp, (axes, keepdims is True))(a), out, "subtract", "same_kind")


@npfunc(scalar=True)
def count_nonzero(a: ArrayIn, axis: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.count_nonzero``."""
    return _jit_plain(_k_count_nonzero, (_axes(axis, a.ndim), keepdims is True))(a)


def _check_ureduce_empty(a: Any, axes: tuple, axis: Any) -> None:
    """NumPy's ``_ureduce`` merges several reduced axes with ``reshape(kept + (-1,))``,
    which fails for an empty array whose kept dimensions hold a zero."""
    if axis is None or len(axes) == 1 or a.size:
        return
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    if math.prod(kept) == 0:
        raise ValueError(f"cannot reshape array of size 0 into shape {kept + (-1,)}")


def _median_public(name: str, a: Any, axis: Any, out: Any, keepdims: Any, nan: bool) -> Any:
    axes = _axes(axis, a.ndim)
    if nan and a.size == 0:
        return nanmean.__wrapped__(a, axis, None, out, keepdims)
    _check_ureduce_empty(a, axes, axis)
    res_dt = _oracle(name, a.dtype)
    if nan and a.dtype.kind in "fc":
        # NumPy's small-axis nanmedian goes through numpy.ma (pairs summed in the dtype)
        ma_pairs = axis is not None and a.ndim > 1 and math.prod(
            a.shape[i] for i in axes) < 600
        core = _k_nanmedian
    else:
        ma_pairs = False
        core = _k_median
    r = _jit_plain(core, (axes, keepdims is True, res_dt, ma_pairs))(a)
    return _ureduce_result(r, out, name, keepdims)


def _ureduce_result(r: Any, out: Any, name: str, keepdims: Any, casting: str = "unsafe",
                    array: bool = False) -> Any:
    """NumPy's ``_ureduce`` re-indexes a keepdims result, so it is always an array."""
    if out is None and (keepdims is True or array):
        return ndarray._owner(r)
    return _finish(r, out, "add" if casting != "unsafe" else name, casting)


@npfunc(scalar=True)
def median(a: ArrayIn, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.median`` (``overwrite_input`` has no effect).

    Differences from NumPy: an empty slice gives NaN without the RuntimeWarning.
    """
    return _median_public("median", a, axis, out, keepdims, False)


@npfunc(scalar=True)
def nanmedian(a: ArrayIn, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.nanmedian`` (``overwrite_input`` has no effect).

    Differences from NumPy: all-NaN slices give NaN without the RuntimeWarning.
    """
    return _median_public("nanmedian", a, axis, out, keepdims, True)


def _q_host(q: Any) -> np.ndarray:
    if isinstance(q, ndarray):
        return np.asarray(q)
    return np.asanyarray(q)


def _valid_q(q: np.ndarray) -> bool:
    with np.errstate(invalid="ignore"):
        if q.ndim == 1 and q.size < 10:
            return _builtin_all(0.0 <= v <= 1.0 for v in q)
        return bool(q.min() >= 0 and q.max() <= 1) if q.size else True


def _quantile_public(name: str, a: Any, q: Any, axis: Any, out: Any, method: Any,
                     keepdims: Any, weights: Any, percent: bool, nan: bool) -> Any:
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    weak = type(q) in (int, float)
    qh = _q_host(q)
    if percent:
        with np.errstate(all="ignore"):
            qh = np.true_divide(qh, 100)
    if not _valid_q(qh):
        raise ValueError("Percentiles must be in the range [0, 100]" if percent else
                         "Quantiles must be in the range [0, 1]")
    if method not in _METHODS:
        if not isinstance(method, str):
            raise NotImplementedError(f"npjax.{name}: parameter 'method' value {method!r} "
                                      "is not supported")
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    if qh.ndim > 2:  # NumPy's own limit (its message says "scalar or 1d")
        raise ValueError("q must be a scalar or 1d")
    axes = _axes(axis, a.ndim)
    if nan and a.size == 0:
        return nanmean.__wrapped__(a, axis, None, out, keepdims)
    _check_ureduce_empty(a, axes, axis)
    if math.prod(a.shape[i] for i in axes) == 0 and qh.size:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    q_key = ("weak", type(q)) if weak else ("arr", qh.dtype)
    kw = (("q", q_key), ("method", method)) + ((("weights", None),) if weights is None else ())
    policy = current()
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
        w = to_jax(weights, policy)
        if tuple(w.shape) != a.shape:
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            given = normalize_axes(axis, a.ndim)
            if tuple(w.shape) != tuple(a.shape[i] for i in given):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            w = jnp.transpose(w, np.argsort(given)).reshape(
                tuple(n if i in given else 1 for i, n in enumerate(a.shape)))
        if bool(jnp.any(w < 0)):
            raise ValueError("Weights must be non-negative.")
        res_dt = a.dtype
    else:
        res_dt = _oracle(name, a.dtype, None, kw)
    qj = to_jax(qh, policy)
    if weights is not None:
        r, bad = _jit(_k_quantile_weighted, (res_dt, nan, qh.ndim, keepdims is True, axes))(
            a, w, qj)
        if bool(bad):
            raise ValueError("Weights included NaN, inf or were all zero.")
        # NumPy's weighted result is an array, except the NaN element it returns as is
        scalar_nan = r.ndim == 0 and a.dtype.kind == "f" and not keepdims and bool(
            jnp.all(jnp.isnan(a)) if nan else jnp.any(jnp.isnan(a)))
        return _ureduce_result(r, out, name, keepdims, array=not scalar_nan)
    static = (method, weak, res_dt, nan, qh.dtype, qh.ndim, keepdims is True, axes)
    r = _jit(_k_quantile, static)(a, qj)
    if r.ndim == 0 and a.dtype.kind == "f" and res_dt != a.dtype:
        # NumPy returns the NaN element itself (the input's dtype) for a scalar result of a
        # slice holding NaN (all-NaN for the nan-variants): read one flag back to match.
        flag = jnp.all(jnp.isnan(a)) if nan else jnp.any(jnp.isnan(a))
        if bool(flag):
            r = r.astype(a.dtype)
    continuous = method not in _DISCRETE and not (method == "linear" and qh.dtype.kind in "iub")
    return _ureduce_result(r, out, name, keepdims,
                           "same_kind" if continuous and not nan else "unsafe")


@npfunc(scalar=True)
def percentile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: Any = False,
               *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.percentile`` (all 13 NumPy methods).

    ``q`` is read on the host (its range is checked as NumPy does).
    """
    return _quantile_public("percentile", a, q, axis, out, method, keepdims, weights, True,
                            False)


@npfunc(scalar=True)
def quantile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: Any = False,
             *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.quantile`` (all 13 NumPy methods)."""
    return _quantile_public("quantile", a, q, axis, out, method, keepdims, weights, False,
                            False)


@npfunc(scalar=True)
def nanpercentile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: Any = False, *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.nanpercentile``.

    Differences from NumPy: all-NaN slices give NaN in the result dtype without a warning.
    """
    return _quantile_public("nanpercentile", a, q, axis, out, method, keepdims, weights,
                            True, True)


@npfunc(scalar=True)
def nanquantile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: Any = False, *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.nanquantile``.

    Differences from NumPy: all-NaN slices give NaN in the result dtype without a warning.
    """
    return _quantile_public("nanquantile", a, q, axis, out, method, keepdims, weights,
                            False, True)


@npfunc(scalar=True)
def average(a: ArrayIn, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.average`` (zero weight sums raise after one read-back)."""
    if weights is None:
        avg = mean.__wrapped__(a, axis, None, None, keepdims)
        if avg.size == 0:
            raise ZeroDivisionError("division by zero")
        scl = jnp.full(avg.shape, a.size / avg.size, avg.dtype)
        return (avg, scl) if returned else avg
    given = None if axis is None else normalize_axes(axis, a.ndim)
    w = to_jax(weights, current())
    if tuple(w.shape) != a.shape:
        if given is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if tuple(w.shape) != tuple(a.shape[i] for i in given):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        w = jnp.transpose(w, np.argsort(given)).reshape(
            tuple(n if i in given else 1 for i, n in enumerate(a.shape)))
    if a.dtype.kind in "biu":
        rd = _dtypes.result_type(a.dtype, w.dtype, _F64)
    else:
        rd = _dtypes.result_type(a.dtype, w.dtype)
    axes = _axes(axis, a.ndim)
    avg, scl, zero = _jit(_k_average, (axes, keepdims is True, rd))(a, w)
    if bool(zero):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    if returned:
        if scl.shape != avg.shape:
            scl = jnp.broadcast_to(scl, avg.shape)
        return avg, scl
    return avg


# ndarray methods: exactly the reductions NumPy's ndarray has as methods
_METHOD_NAMES = ("sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any",
                 "all", "cumsum", "cumprod")
install_methods({name: globals()[name] for name in _METHOD_NAMES
                 if hasattr(np.ndarray, name)})

