"""Inverses and solvers: ``inv``, ``solve``, ``tensorinv``, ``tensorsolve``,
``matrix_power``, ``lstsq`` and ``pinv``."""

from __future__ import annotations

import math
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.linalg import LinAlgError

from npjax._library import _products
from npjax._pure._impl import linalg as _k
from npjax._core._ndarray import ndarray
from npjax.linalg._decompositions import _svd
from npjax.linalg._rules import (_F64, _REAL, _NoValue, _arr, _check_2d, _check_square,
                                 _common_type, _flag, _out, host_data_to_numpy)


def _inv(a: jax.Array) -> jax.Array:
    _check_square(a)
    t, rt = _common_type(a.dtype)
    x, _, singular = _k.inv_as(a, t=t, rt=rt)
    if _flag(singular):
        raise LinAlgError("Singular matrix")
    return x


@host_data_to_numpy
def inv(a: Any) -> ndarray:
    """npjax implementation of numpy.linalg.inv."""
    return _out(_inv(_arr(a)))


@host_data_to_numpy
def solve(a: Any, b: Any) -> ndarray:
    """npjax implementation of numpy.linalg.solve (``b`` is a vector only when 1-d)."""
    a = _arr(a)
    _check_square(a)
    b = _arr(b)
    t, rt = _common_type(a.dtype, b.dtype)
    m = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != m:
            raise ValueError(f"solve1: Input operand 1 has a mismatch in its core dimension 0, "
                             f"with gufunc signature (m,m),(m)->(m) (size {b.shape[0]} is "
                             f"different from {m})")
        batch = a.shape[:-2]
        bb = jnp.broadcast_to(b[:, None], (*batch, m, 1))
    else:
        if b.shape[-2] != m:
            raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0, "
                             f"with gufunc signature (m,m),(m,n)->(m,n) (size {b.shape[-2]} "
                             f"is different from {m})")
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        bb = jnp.broadcast_to(b, (*batch, *b.shape[-2:]))
    aa = jnp.broadcast_to(a, (*batch, m, m))
    x, singular = _k.solve_as(aa, bb, t=t, rt=rt)
    if _flag(singular):
        raise LinAlgError("Singular matrix")
    if b.ndim == 1:
        x = x[..., 0]
    return _out(x)


@host_data_to_numpy
def tensorsolve(a: Any, b: Any, axes: Any = None) -> ndarray:
    """npjax implementation of numpy.linalg.tensorsolve."""
    a, b = _arr(a), _arr(b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = jnp.transpose(a, allaxes)
    oldshape = a.shape[-(an - b.ndim):]
    prod = math.prod(oldshape)
    if a.size != prod ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    res = solve(a.reshape(prod, prod), b.ravel())
    return res.reshape(oldshape)


@host_data_to_numpy
def tensorinv(a: Any, ind: int = 2) -> ndarray:
    """npjax implementation of numpy.linalg.tensorinv."""
    a = _arr(a)
    oldshape = a.shape
    if ind > 0:
        invshape = oldshape[ind:] + oldshape[:ind]
        prod = math.prod(oldshape[ind:])
    else:
        raise ValueError("Invalid ind argument.")
    if prod == 0 or a.size % prod:
        raise ValueError(f"cannot reshape array of size {a.size} into shape ({prod},newaxis)")
    return _out(_inv(a.reshape(prod, -1)).reshape(invshape))


@host_data_to_numpy
def matrix_power(a: Any, n: Any) -> ndarray:
    """npjax implementation of numpy.linalg.matrix_power (integer powers stay exact)."""
    a = _arr(a)
    _check_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        eye = jnp.eye(a.shape[-2], dtype=a.dtype)
        return _out(jnp.broadcast_to(eye, a.shape))
    if n < 0:
        a = _inv(a)
        n = abs(n)
    mul = _products._matmul_raw
    if n == 1:
        return _out(a)
    if n == 2:
        return _out(mul(a, a))
    if n == 3:
        return _out(mul(mul(a, a), a))
    z = result = None
    while n > 0:
        z = a if z is None else mul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else mul(result, z)
    return _out(result)


@host_data_to_numpy
def lstsq(a: Any, b: Any, rcond: Any = None) -> tuple:
    """npjax implementation of numpy.linalg.lstsq (SVD based, as LAPACK gelsd)."""
    a, b = _arr(a), _arr(b)
    is_1d = b.ndim == 1
    if is_1d:
        b = b[:, None]
    _check_2d(a, b)
    m, n = a.shape[-2:]
    m2, n_rhs = b.shape[-2:]
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t, rt = _common_type(a.dtype, b.dtype)
    real_t = _REAL[rt]
    if rcond is None:
        rcond = np.finfo(t).eps * max(n, m)
    if n_rhs == 0:
        b = jnp.zeros((m, 1), b.dtype)
    x, resids, rank, s, bad = _k.lstsq_as(a, b, jnp.asarray(float(rcond), _F64), t=t, rt=rt)
    traced = isinstance(rank, jax.core.Tracer)
    if not traced:  # one transfer for both
        bad, rank = jax.device_get((bad, rank))
    if _flag(bad):
        raise LinAlgError("SVD did not converge in Linear Least Squares")
    if n_rhs == 0:
        x, resids = x[..., :0], resids[..., :0]
    if is_1d:
        x = x[..., 0]
    if m <= n:
        resids = jnp.zeros((0,), real_t)
    elif traced:  # npjax.jit: traced for full rank; another rank (no residuals) reruns
        _flag(rank != n)
    elif int(rank) != n:
        resids = jnp.zeros((0,), real_t)
    return (_out(x.astype(rt)), _out(resids.astype(real_t)),
            ndarray._owner(jnp.asarray(rank, np.int32), True), _out(s.astype(real_t)))


@host_data_to_numpy
def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = _NoValue) -> Any:
    """npjax implementation of numpy.linalg.pinv."""
    a = _arr(a)
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    rcond = _arr(rcond)
    if a.size == 0 and math.prod(a.shape[-2:]) == 0:
        m, n = a.shape[-2:]
        return _out(jnp.zeros((*a.shape[:-2], n, m), a.dtype))
    u, s, vt = _svd(jnp.conj(a), False, hermitian)
    cutoff = rcond[..., None] * jnp.max(s, axis=-1, keepdims=True)
    large = s > cutoff
    s = jnp.where(large, 1 / jnp.where(large, s, 1), 0).astype(s.dtype)
    mul = _products._matmul_raw
    res = mul(jnp.swapaxes(vt, -1, -2), s[..., None].astype(u.dtype) * jnp.swapaxes(u, -1, -2))
    return _out(res)
