"""Pure-JAX median and quantile kernels (NumPy's ``_median``/``_quantile``).

Moved from ``npjax/_library/_reductions.py``, which holds the NumPy-facing wrappers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from npjax._pure._impl.reductions import (
    _F16, _F32, _F64, _INTP, _builtin_max, _cast, _divide, _flat_last, _fold, _keep,
    _kept_shape, _r, _true_div,
)


# --- medians -----------------------------------------------------------------------------

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
    return _cast(_divide(s, jnp.asarray(part.shape[-1], _INTP), sum_dt, part.shape[-1]),
                 res_dt)


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
