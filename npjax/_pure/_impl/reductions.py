"""Pure-JAX reduction cores: NumPy's order of operations for sums, products, means,
variances, min/max, arg-min/max and cumulative functions, and the compiled-kernel cache.

Moved from ``npjax/_library/_reductions.py``, which holds the NumPy-facing wrappers.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._pure import _boolsums, _dtypes, _quotient
from npjax._pure._capabilities import route

_builtin_any = any
_builtin_max = max
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_C64 = np.dtype(np.complex64)
_INTP = np.dtype(np.intp)
_BOOL = np.dtype(np.bool_)

# Unrolled NumPy-order reductions are built up to about this many elementary steps.
_UNROLL = 600
PAIRWISE_UPTO_MAX = 4096  # elements of a float sum ``pairwise_upto`` computes (see below)


# --- compiled kernels ------------------------------------------------------------------------

# XLA's CPU backend contracts ``a*b + c`` into one FMA (openxla/xla#41579), which rounds
# differently from NumPy's separate multiply and add. Adding a zero the compiler cannot see
# (a runtime argument) after a product makes the product round on its own, as in NumPy.
# The zero is -0.0: x + -0.0 is x for every x, where x + 0.0 turns a product's -0.0 into
# 0.0 (``cross`` of vectors with signed zeros); complex products add -0.0 to both parts.
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
    """The -0.0 of eager kernels, an array whatever traces (made first inside one, it was
    that trace's tracer, kept for every later kernel of the process); float32, as lazy
    programs' (``_lazy.neg_zero``): a float64 operand took every float32 kernel with products
    (``var``, ``std``) to the host's CPU backend where float64 is a host dtype."""
    with jax.ensure_compile_time_eval():
        return jnp.asarray(-0.0, _F32)


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
    if zero is None:
        return p
    if p.dtype.kind == "c":
        return p + jax.lax.complex(zero, zero).astype(p.dtype)
    return p + zero.astype(p.dtype)


# --- shapes and dtypes -----------------------------------------------------------------------

def _kept_shape(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _keep(value: Any, shape: tuple, axes: tuple, keepdims: bool) -> Any:
    return value.reshape(_kept_shape(shape, axes, True)) if keepdims else value


def _comp(dtype: np.dtype) -> np.dtype:
    """The dtype NumPy's inner loops accumulate in (float32 for float16)."""
    return _F32 if dtype == _F16 else dtype


def _cast(x: Any, dtype: np.dtype) -> Any:
    return x if x.dtype == dtype else x.astype(dtype)


def _div_dtype(a: np.dtype, b: np.dtype) -> np.dtype:
    return _dtypes.result_type(a, b)


# --- pure-JAX cores: NumPy's order of operations -----------------------------------------

def _exact_fold(x: Any, axes: tuple, op: str) -> Any:
    """A reduction of booleans or integers (in their own dtype), whose result no order
    changes: where ``_boolsums.splits``, as ``_boolsums.split_fold`` (one kernel for XLA's
    CPU backend, where ``jnp.sum`` compiled a tree of them)."""
    if x.size and _boolsums.splits(x.shape, axes):
        return _boolsums.split_fold(x, axes, op)
    return {"or": jnp.any, "and": jnp.all, "add": jnp.sum, "mul": jnp.prod}[op](x, axis=axes)


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


def pairwise_upto(y: Any, n: Any, cplx: bool) -> Any:
    """NumPy's pairwise sum of ``y[..., :n]`` for a traced ``n`` (``_pairwise`` for every
    length up to ``y``'s at once). NumPy's recursion is laid out level by level: each node's
    (start, length), every node's run summed as a leaf in parallel (NumPy's 8, complex 4,
    running sums and its tail), and a node longer than a block taking its children's sum."""
    size = y.shape[-1]
    lanes, block = (4, 64) if cplx else (8, 128)
    starts = [jnp.zeros((1,), np.int32)]
    lens = [jnp.reshape(n, (1,)).astype(np.int32)]
    longest = size
    while longest > block:  # a bound on the longest node of the next level
        s, ln = starts[-1], lens[-1]
        half = (ln - ln % 8) // 2 if cplx else ln // 2 - (ln // 2) % 8
        starts.append(jnp.stack([s, s + half], -1).reshape(-1))
        lens.append(jnp.stack([half, ln - half], -1).reshape(-1))
        longest = (longest + 1) // 2 + 8
    start, ln = jnp.concatenate(starts), jnp.concatenate(lens)
    g = y[..., jnp.clip(start[:, None] + jnp.arange(block, dtype=np.int32), 0, size - 1)]
    m = ln - ln % lanes
    acc = g[..., :lanes]
    for t in range(1, block // lanes):
        acc = jnp.where((lanes * t < m)[:, None], acc + g[..., lanes * t:lanes * (t + 1)], acc)
    r = [acc[..., j] for j in range(lanes)]
    leaf = (r[0] + r[1]) + (r[2] + r[3])
    if not cplx:
        leaf = leaf + ((r[4] + r[5]) + (r[6] + r[7]))
    seq = jnp.zeros(g.shape[:-1], g.dtype)
    for j in range(lanes - 1):
        at = jnp.broadcast_to(jnp.clip(m + j, 0, block - 1)[:, None], g.shape[:-1] + (1,))
        leaf = jnp.where(j < ln % lanes, leaf + jnp.take_along_axis(g, at, -1)[..., 0], leaf)
        seq = jnp.where(j < ln, seq + g[..., j], seq)
    leaf = jnp.where(ln < lanes, seq, leaf)
    firsts = np.cumsum([0] + [1 << k for k in range(len(lens))])
    val = leaf[..., firsts[-2]:]
    for k in range(len(lens) - 2, -1, -1):
        pairs = val.reshape(val.shape[:-1] + (1 << k, 2))
        val = jnp.where(lens[k] <= block, leaf[..., firsts[k]:firsts[k + 1]],
                        pairs[..., 0] + pairs[..., 1])
    return val[..., 0]


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
    """Multiplication whose first use, by the identity ``1+0j``, is spelled in parts as NumPy
    computes it (``re = ar - ai*0``, ``im = ai + ar*0``): XLA would fold a constant ``1*x``
    to ``x``."""
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
    n = math.prod(x.shape[i] for i in axes)
    if n and math.prod(kept) and x.dtype == _BOOL and op == "add" and init is None and \
            dtype.kind == "f" and n <= 2 ** (np.finfo(dtype).nmant + 1):
        # Booleans summed in a float type (the mean of a mask): every partial sum is a whole
        # number the type holds, so NumPy's order gives the count. Counted as integers, it
        # is one kernel with the loop that makes the booleans, where XLA's CPU backend wrote
        # them out widened to floats and summed them in a second pass.
        r = _exact_fold(x.astype(np.int32 if n < 2 ** 31 else np.int64), axes, "add")
        return _cast(_cast(r, _comp(dtype)), dtype)
    init = _identity(op, dtype) if init is None else _cast(jnp.asarray(init), dtype)
    if n == 0 or math.prod(kept) == 0:
        return jnp.broadcast_to(init, kept)
    if dtype.kind not in "fc":
        x = _cast(x, dtype)
        if dtype == _BOOL:
            r = _exact_fold(x, axes, "or" if op == "add" else "and")
            return (r | init) if op == "add" else (r & init)
        r = _exact_fold(x, axes, op)
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
    # one run of up to PAIRWISE_UPTO_MAX elements in all: NumPy's order by ``pairwise_upto``
    # (a few dozen operations at any length), whatever its length
    upto = op == "add" and inner_reduced and groups[-1][0] > 128 and x.size <= PAIRWISE_UPTO_MAX
    if op == "add" and inner_reduced:
        outer = outer[:-1]
        n_outer = math.prod(groups[i][0] for i in outer)
        cost = n_outer * (1 + (1 if upto else _pairwise_cost(groups[-1][0], cplx)))
    else:
        n_outer = math.prod(groups[i][0] for i in outer)
        cost = n_outer
    if cost > _UNROLL:  # large: XLA's own reduction order
        r = jnp.sum(x, axis=tuple(i for i, (_, red) in enumerate(groups) if red)) \
            if op == "add" else jnp.prod(x, axis=tuple(i for i, (_, red) in enumerate(groups)
                                                       if red))
        return _cast(binop(_cast(init, comp), r), dtype).reshape(kept)
    if op == "add" and inner_reduced:
        x = pairwise_upto(x, groups[-1][0], cplx) if upto else _pairwise(x)
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
    # A left fold in NumPy's order. The first step is peeled off (``_first_mul`` writes it
    # out); the rest is one ``lax.scan``: an unrolled chain of complex products used each
    # partial product four times, and XLA's fused code for it grew exponentially with the
    # length (prod of 400 complex64 values never finished compiling).
    acc = _cast(binop(_cast(jnp.broadcast_to(init, y.shape[1:]), comp), y[0]), dtype)

    def step(acc: Any, row: Any) -> tuple:
        return _cast(binop(_cast(acc, comp), row), dtype), None

    if y.shape[0] > 1:  # (a scan of no rows would still compile to a loop)
        acc, _ = jax.lax.scan(step, acc, y[1:])
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
    family, ufunc = ("cumsum", np.add) if op == "add" else ("cumprod", np.multiply)
    return route(family, dtype, functools.partial(_accumulate_floats, axis=axis, op=op,
                                                  dtype=dtype),
                 lambda h: ufunc.accumulate(h.astype(dtype), axis=axis, dtype=dtype), x)


def _accumulate_floats(x: Any, axis: int, op: str, dtype: np.dtype) -> Any:
    """``_accumulate`` of a float or complex ``dtype``: NumPy's running order (one step per
    element, a ``lax.scan``) up to ``_UNROLL // 2`` elements, XLA's scan beyond. (Unrolled,
    the steps compiled for 11 s at 200 float64 elements and 25 s at 300 on the CPU backend:
    the op table, tests/test_op_table.py.)"""
    n = x.shape[axis]
    comp = _comp(dtype)
    x = _cast(_cast(x, dtype), comp)  # NumPy casts to the loop dtype first
    if n > _UNROLL // 2:
        r = jnp.cumsum(x, axis) if op == "add" else jnp.cumprod(x, axis)
        return _cast(r, dtype)
    binop = jnp.add if op == "add" else (_cmul if dtype.kind == "c" else jnp.multiply)
    y = jnp.moveaxis(x, axis, 0)
    first = _cast(y[0], dtype)

    def step(acc: Any, row: Any) -> tuple:
        acc = _cast(binop(_cast(acc, comp), row), dtype)
        return acc, acc

    if n > 1:  # (a scan of no rows would still compile to a loop)
        _, rest = jax.lax.scan(step, first, y[1:])
        return jnp.moveaxis(jnp.concatenate([first[None], rest]), 0, axis)
    return jnp.moveaxis(first[None], 0, axis)


def _count(shape: tuple, axes: tuple, mask: Any, keepdims: bool) -> Any:
    """Number of elements reduced per output (intp), as NumPy's ``_count_reduce_items``."""
    if mask is None:
        return jnp.asarray(math.prod(shape[i] for i in axes), _INTP)
    m = jnp.broadcast_to(mask, shape)
    return _keep(_boolsums.count(m, axes, dtype=_INTP), shape, axes, keepdims)


def _most(shape: tuple, axes: tuple) -> int:
    """The largest count of a reduction over ``axes`` (where= and NaNs only lower it)."""
    return math.prod(shape[i] for i in axes)


def _masked(x: Any, mask: Any, fill: Any) -> Any:
    return x if mask is None else jnp.where(mask, x, jnp.asarray(fill, x.dtype))


def _true_div(a: Any, b: Any) -> Any:
    """``a / b`` correctly rounded. XLA rewrites a division by a broadcast or a constant into
    a multiplication by its reciprocal, which rounds differently; an optimisation barrier on
    the full-shape divisor keeps the division."""
    shape = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
    a = jnp.broadcast_to(a, shape)
    return a / jax.lax.optimization_barrier(jnp.broadcast_to(b, shape).astype(a.dtype))


def _by_count(s: Any, count: Any, dtype: np.dtype, most: int, limit: int) -> bool:
    """Whether ``_divide`` takes ``_quotient.by_count``: a float32 (complex64) sum divided by
    a count of at most ``most`` (below ``limit``) into float32, where float64 is a host
    dtype (a float64 division would run the program on the host's CPU backend)."""
    return (0 < most < limit and count.dtype.kind in "iu" and s.dtype in (_F32, _C64)
            and np.dtype(dtype) == s.dtype and "float64" in _dtypes.backend_host_dtypes())


def _divide(s: Any, count: Any, dtype: np.dtype, most: int = 0) -> Any:
    """``true_divide(s, count, out=s, casting='unsafe')``: divide in the promoted dtype
    (``most``: the largest ``count`` can be, 0 where not known).

    A complex numerator uses NumPy's complex division (Smith's method with a real divisor):
    ``re = (ar + ai*0) * (1/n)``, ``im = (ai - ar*0) * (1/n)``, so infinities give NaN parts
    exactly where NumPy's do.
    """
    div = _div_dtype(s.dtype, count.dtype)
    if div.kind != "c":
        if _by_count(s, count, dtype, most, _quotient.LIMIT):
            return _quotient.by_count(*jnp.broadcast_arrays(s, count))
        return _cast(_true_div(_cast(s, div), _cast(count, div)), dtype)
    if _by_count(s, count, dtype, most, _quotient.LIMIT_COMPLEX):
        ar, ai = jnp.broadcast_arrays(jnp.real(s), jnp.imag(s), count)[:2]
        zero = jnp.zeros((), _F32)
        n = jnp.broadcast_to(count, ar.shape)
        by_zero = n == 0  # (NumPy's zero branch divides the parts alone)
        re = jnp.where(by_zero, ar, ar + _r(ai * zero))
        im = jnp.where(by_zero, ai, ai - _r(ar * zero))
        return jax.lax.complex(_quotient.by_count(re, n), _quotient.by_count(im, n))
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


def _k_mean(axes, keepdims, sum_dt, res_dt, div_dt, x, mask=None):
    """The sum in ``sum_dt``, cast to ``div_dt`` and divided there (NumPy's ``out``)."""
    s = _fold(_masked(x, mask, 0), axes, "add", sum_dt)
    s = _cast(_keep(s, x.shape, axes, keepdims), div_dt)
    r = _divide(s, _count(x.shape, axes, mask, keepdims), div_dt, _most(x.shape, axes))
    return _cast(r, res_dt)


# the largest magnitude of booleans and ints a mean sums as int32 where float64 is a host dtype
_LARGEST = {np.dtype(t): m for t, m in ((np.bool_, 1), (np.int8, 128), (np.uint8, 255),
                                         (np.int16, 2**15), (np.uint16, 2**16 - 1))}


def counted_in_int32(x: Any, axes: tuple) -> int:
    """The count of ``x``'s float64 ``mean`` over ``axes`` (no ``where``, ``out`` or
    ``dtype``) where it is counted on the accelerator (``_k_int_sum``) and only the counts
    divided on the host (``_k_mean_of_sum``), else 0: float64 is a host dtype, and every
    partial sum a whole number below 2**31, so NumPy's float64 sum is the integer sum,
    exactly (and no flag or warning is possible: finite sums, a positive count)."""
    n = _most(x.shape, axes)
    fits = 0 < n * _LARGEST.get(x.dtype, 2**31) < 2**31
    return n if fits and "float64" in _dtypes.backend_host_dtypes() else 0


def _k_int_sum(axes, keepdims, x):
    """The int32 sum of booleans or small integers whose float64 sum it is exactly (every
    partial sum a whole number below 2**31): the part of their float64 ``mean`` an
    accelerator without float64 computes (``_library._reductions.mean``)."""
    return _keep(_exact_fold(x.astype(np.int32), axes, "add"), x.shape, axes, keepdims)


def _k_mean_of_sum(n, div_dt, res_dt, s):
    """``_k_mean``'s division of such a sum by its count ``n`` (float64: on the host)."""
    return _cast(_divide(_cast(s, _F64), jnp.asarray(n, _INTP), div_dt, n), res_dt)


def _var_core(axes, keepdims, dtype, ddof, x, mask, mean):
    """NumPy's ``_var``: returns the variance (before any square root)."""
    sum_dt = dtype if dtype is not None else (_F64 if x.dtype.kind in "biu" else x.dtype)
    count = _count(x.shape, axes, mask, True)
    if mean is None:
        m = _keep(_fold(_masked(x, mask, 0), axes, "add", sum_dt), x.shape, axes, True)
        m = _divide(m, count, sum_dt, _most(x.shape, axes))
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
    return _divide(ret, rcount, ret_dt, _most(x.shape, axes) - min(ddof, 0))


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
        avg = _divide(avg, cnt, avg.dtype, _most(x.shape, axes))
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
    v = _divide(v, dof, v.dtype, _most(x.shape, axes) - min(ddof, 0))
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
    return _cast(_divide(tot, cnt, tot.dtype, _most(x.shape, axes)), res_dt)


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
    r = red(x, axis=axes, where=mask, keepdims=keepdims, **kw)
    if x.dtype.kind == "f":  # XLA's cross-device max/min on CPU drops NaN: NumPy keeps it
        nan = jnp.isnan(x) if mask is None else jnp.isnan(x) & mask
        r = jnp.where(jnp.any(nan, axis=axes, keepdims=keepdims), jnp.asarray(np.nan, x.dtype), r)
    return r


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


def _k_average(axes, keepdims, rd, x, w):
    # the weight sum is over the weights as given (1s on the other axes), as NumPy's is
    scl = _keep(_fold(w, axes, "add", rd), w.shape, axes, keepdims)
    wb = jnp.broadcast_to(w, x.shape)
    prod = _cmul(_cast(x, rd), _cast(wb, rd)) if rd.kind == "c" else _r(
        _cast(x, rd) * _cast(wb, rd))
    s = _keep(_fold(prod, axes, "add", rd), x.shape, axes, keepdims)
    return _true_div(s, scl), scl, jnp.any(scl == 0)
