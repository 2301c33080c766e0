"""Norms, determinants, condition number and rank: ``norm``, ``matrix_norm``,
``vector_norm``, ``det``, ``slogdet``, ``cond`` and ``matrix_rank``."""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg._linalg import SlogdetResult

from npjax._pure._impl import linalg as _k
from npjax._core._ndarray import normalize_axis
from npjax.linalg._decompositions import _svdvals, _svdvals_any
from npjax.linalg._rules import (_F32, _F64, _REAL, _arr, _check_square, _common_type, _flag,
                                 _out, host_data_to_numpy)


@host_data_to_numpy
def slogdet(a: Any) -> SlogdetResult:
    """npjax implementation of numpy.linalg.slogdet (singular: sign 0, logabsdet -inf)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    sign, logdet = _k.slogdet_as(a, t=t, rt=rt)
    return SlogdetResult(_out(sign), _out(logdet))


@host_data_to_numpy
def det(a: Any) -> Any:
    """npjax implementation of numpy.linalg.det (sign * exp(log|det|), as NumPy)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    return _out(_k.det_as(a, t=t, rt=rt))


def _zero_size_check(shape: tuple, axis: int, name: str) -> None:
    if shape[axis] == 0:
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         "identity")


def _norm(x: jax.Array, ord: Any, axis: Any, keepdims: bool) -> jax.Array:
    """numpy.linalg.norm on a jax.Array: one compiled kernel per (ord, axis, keepdims); SVD
    based orders read one flag (NaN input: LinAlgError, as NumPy's SVD)."""
    if x.dtype.kind not in "fc":  # (float64; HostOnly where the backend holds none)
        x = x.astype(_common_type(x.dtype)[0])
    try:
        key = (ord, axis, keepdims)
        hash(key)
    except TypeError:
        key = None
    if key is None:
        ret, bad = _norm_kernel(x, ord=ord, axis=axis, keepdims=keepdims)
    else:
        ret, bad = _norm_jit(*key)(x)
    if bad is not None and _flag(bad):
        raise LinAlgError("SVD did not converge")
    return ret


@functools.lru_cache(maxsize=512)


def _norm_jit(ord: Any, axis: Any, keepdims: bool) -> Any:
    return jax.jit(functools.partial(_norm_kernel, ord=ord, axis=axis, keepdims=keepdims))


def _norm_kernel(x: jax.Array, *, ord: Any, axis: Any, keepdims: bool) -> tuple:
    """(norm, NaN-for-SVD flag or None); float16 is computed in float32, rounded once."""
    res_t = np.dtype(x.real.dtype)
    orig = np.dtype(x.dtype)
    if res_t == np.float16:
        x = x.astype(_F32)
    flags: list = []
    ret = _norm_core(x, ord, axis, keepdims, orig, flags)
    return ret.astype(res_t), (flags[0] if flags else None)


def _svdvals_traced(y: jax.Array, orig: np.dtype, flags: list) -> jax.Array:
    t, rt = _common_type(orig)
    s, bad = _k.svd_as(y, full_matrices=False, compute_uv=False, t=t, rt=rt)
    flags.append(bad)
    return s


def _norm_core(x: jax.Array, ord: Any, axis: Any, keepdims: bool, orig: np.dtype,
               flags: list) -> jax.Array:
    nd = x.ndim
    if axis is None:
        if ord is None or (_is_str(ord) and ord in ("f", "fro") and nd == 2) or (
                _eq(ord, 2) and nd == 1):
            ret = jnp.sqrt(jnp.sum((jnp.conj(x) * x).real))
            return ret.reshape((1,) * nd) if keepdims else ret
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = int(axis)
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
        axis = (axis,)
    if len(axis) == 1:
        ax = normalize_axis(axis[0], nd)
        if _eq(ord, np.inf):
            return jnp.max(jnp.abs(x), axis=ax, keepdims=keepdims, initial=0)
        if _eq(ord, -np.inf):
            _zero_size_check(x.shape, ax, "minimum")
            return jnp.min(jnp.abs(x), axis=ax, keepdims=keepdims)
        if _eq(ord, 0):
            return jnp.sum((x != 0).astype(x.real.dtype), axis=ax, keepdims=keepdims)
        if _eq(ord, 1):
            return jnp.sum(jnp.abs(x), axis=ax, keepdims=keepdims)
        if ord is None or _eq(ord, 2):
            return jnp.sqrt(jnp.sum((jnp.conj(x) * x).real, axis=ax, keepdims=keepdims))
        if _is_str(ord):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        absx = jnp.abs(x)
        ret = jnp.sum(absx ** jnp.asarray(ord, absx.dtype), axis=ax, keepdims=keepdims)
        return ret ** (1 / jnp.asarray(ord, ret.dtype))
    if len(axis) == 2:
        row_axis = normalize_axis(axis[0], nd)
        col_axis = normalize_axis(axis[1], nd)
        if row_axis == col_axis:
            raise ValueError("Duplicate axes given.")
        ax = (row_axis, col_axis)
        if _eq(ord, 2) or _eq(ord, -2):
            s = _svdvals_traced(jnp.moveaxis(x, ax, (-2, -1)), orig, flags)
            if _eq(ord, 2):
                ret = jnp.max(s, axis=-1, initial=0)
            else:
                _zero_size_check(s.shape, -1, "minimum")
                ret = jnp.min(s, axis=-1)
        elif _eq(ord, 1) or _eq(ord, -1):
            c = col_axis - 1 if col_axis > row_axis else col_axis
            colsum = jnp.sum(jnp.abs(x), axis=row_axis)
            if _eq(ord, 1):
                ret = jnp.max(colsum, axis=c, initial=0)
            else:
                _zero_size_check(colsum.shape, c, "minimum")
                ret = jnp.min(colsum, axis=c)
        elif _eq(ord, np.inf) or _eq(ord, -np.inf):
            r = row_axis - 1 if row_axis > col_axis else row_axis
            rowsum = jnp.sum(jnp.abs(x), axis=col_axis)
            if _eq(ord, np.inf):
                ret = jnp.max(rowsum, axis=r, initial=0)
            else:
                _zero_size_check(rowsum.shape, r, "minimum")
                ret = jnp.min(rowsum, axis=r)
        elif ord is None or (_is_str(ord) and ord in ("fro", "f")):
            ret = jnp.sqrt(jnp.sum((jnp.conj(x) * x).real, axis=ax))
        elif _is_str(ord) and ord == "nuc":
            s = _svdvals_traced(jnp.moveaxis(x, ax, (-2, -1)), orig, flags)
            ret = jnp.sum(s, axis=-1)
        else:
            raise ValueError("Invalid norm order for matrices.")
        if keepdims:
            shape = list(x.shape)
            shape[axis[0]] = 1
            shape[axis[1]] = 1
            ret = ret.reshape(shape)
        return ret
    raise ValueError("Improper number of dimensions to norm.")


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _eq(ord: Any, value: Any) -> bool:
    return not isinstance(ord, str) and ord is not None and bool(ord == value)


@host_data_to_numpy
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """npjax implementation of numpy.linalg.norm."""
    return _out(_norm(_arr(x), ord, axis, keepdims))


@host_data_to_numpy
def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """npjax implementation of numpy.linalg.matrix_norm."""
    return norm(x, axis=(-2, -1), keepdims=keepdims, ord=ord)


@host_data_to_numpy
def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """npjax implementation of numpy.linalg.vector_norm."""
    x = _arr(x)
    shape = list(x.shape)
    if axis is None:
        y, _axis = x.ravel(), 0
    elif isinstance(axis, tuple):
        normalized = tuple(normalize_axis(a, x.ndim) for a in axis)
        if len(set(normalized)) != len(normalized):
            raise ValueError("repeated axis")
        rest = tuple(i for i in range(x.ndim) if i not in normalized)
        y = jnp.transpose(x, axis + rest).reshape(
            (math.prod(x.shape[i] for i in axis), *[x.shape[i] for i in rest]))
        _axis = 0
    else:
        y, _axis = x, axis
    res = _norm(y, ord, _axis, False)
    if keepdims:
        axes = range(len(shape)) if axis is None else (axis if isinstance(axis, tuple)
                                                        else (axis,))
        for i in axes:
            shape[normalize_axis(i, len(shape))] = 1
        res = res.reshape(tuple(shape))
    return _out(res)


@host_data_to_numpy
def cond(x: Any, p: Any = None) -> Any:
    """npjax implementation of numpy.linalg.cond."""
    x = _arr(x)
    if x.size == 0 and math.prod(x.shape[-2:]) == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or _eq(p, 2) or _eq(p, -2):
        s = _svdvals(x)
        r = s[..., -1] / s[..., 0] if _eq(p, -2) else s[..., 0] / s[..., -1]
    else:
        _check_square(x)
        t, rt = _common_type(x.dtype)
        try:
            hash(p)
        except TypeError:
            p = float(p)
        r, bad = _cond_jit(p, t, rt)(x)
        if _flag(bad):
            raise LinAlgError("SVD did not converge")
    nan_mask = jnp.isnan(r) & ~jnp.any(jnp.isnan(x), axis=(-2, -1))
    return _out(jnp.where(nan_mask, jnp.inf, r).astype(r.dtype))


@functools.lru_cache(maxsize=64)
def _cond_jit(p: Any, t: np.dtype, rt: np.dtype) -> Any:
    """``norm(x, p) * norm(inv(x), p)`` of square matrices (the inverse computed in ``t``,
    the product in ``rt``'s real type) and the NaN flag of a ``'nuc'`` norm's SVD; where
    the backend has no LU in ``t``, NumPy's ``cond`` on the host (``_k._staged``)."""
    def device(x: jax.Array) -> tuple:
        invx, singular, _ = _k.inv(x.astype(t))
        invx = jnp.where(singular[..., None, None], jnp.nan, invx)
        x = x if x.dtype.kind in "fc" else x.astype(_F64)  # (as ``_norm``)
        (nx, bad_x), (ni, bad_i) = (_norm_kernel(y, ord=p, axis=(-2, -1), keepdims=False)
                                    for y in (x, invx))
        bad = jnp.zeros((), bool) if bad_x is None else bad_x | bad_i
        return nx * ni, bad

    def numpy_fn(x: np.ndarray) -> tuple:
        try:
            return np.linalg.cond(x, p), False
        except LinAlgError:
            return np.full(x.shape[:-2], np.nan), True

    return jax.jit(lambda x: _k.staged("lu", t, (_REAL[rt], None), device, numpy_fn, x,
                                        cast=0))


@host_data_to_numpy
def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:
    """npjax implementation of numpy.linalg.matrix_rank."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = _arr(A)
    if A.ndim < 2:
        return int(not _flag(jnp.all(A == 0)))
    S = _svdvals_any(A, hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * np.finfo(S.dtype).eps
        else:
            rtol = _arr(rtol)[..., None]
        tol = jnp.max(S, axis=-1, keepdims=True, initial=0) * rtol
    else:
        tol = _arr(tol)[..., None]
    return _out(jnp.sum(S > tol, axis=-1).astype(np.intp))
