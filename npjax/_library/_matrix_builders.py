"""Building matrices: ``eye``, ``identity``, ``tri``, ``tril``/``triu``, ``diag``, ``diagflat``,
``vander``. Defaults and placement are those of ``_creation``."""

from __future__ import annotations

import functools
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure import _dtypes
from npjax._calls._dispatch import ArrayIn, DeviceIn, DTypeIn, Unsupported, npfunc
from npjax._core._ndarray import ndarray
from npjax._core._normalize import place, to_jax
from npjax._runtime._context import current
from npjax._library._creation import (_check_order, _check_size, _default_dtype, _device,
                                      _shape, asanyarray)
from npjax._placement._route import hand_written
from npjax._pure._declared import OWN_VIEWS

__all__ = ["eye", "identity", "tri", "tril", "triu", "diag", "diagflat", "vander"]


# --- matrices --------------------------------------------------------------------------------


@npfunc
def eye(N: Any, M: Any = None, k: Any = 0, dtype: DTypeIn = None, order: Any = "C", *,
        device: DeviceIn = None, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.eye`` (default dtype float64; float32 if x64=False)."""
    _check_order(order, "CF")
    dtype = _default_dtype(dtype, "eye")
    shape = _shape((N, N if M is None else M))
    _check_size(shape, dtype)
    if k >= shape[1]:  # NumPy returns before checking that k is an integer
        return place(jnp.zeros(shape, dtype, device=_device(current())), current())
    return place(_eye_kernel(shape[0], shape[1], operator.index(k), dtype)(), current())


@functools.lru_cache(maxsize=256)
def _eye_kernel(n: int, m: int, k: int, dtype: np.dtype) -> Any:
    return jax.jit(lambda: jnp.eye(n, m, k, dtype=dtype))


@npfunc
def identity(n: Any, dtype: DTypeIn = None, *, like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.identity``."""
    return eye(n, dtype=dtype)


def _min_int(low: Any, high: Any) -> type:
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if high <= info.max and low >= info.min:
            return t
    return np.int64


def _tri_mask(N: Any, M: Any = None, k: Any = 0) -> jax.Array:
    """NumPy's ``tri(N, M, k, dtype=bool)``: the row and column ranges come from NumPy's
    ``arange`` on the host (so float ``N`` or ``k`` behave as in NumPy), the mask from JAX."""
    if M is None:
        M = N
    rows = np.arange(N, dtype=_min_int(0, N))
    cols = np.arange(-k, M - k, dtype=_min_int(-k, M - k))
    policy = current()
    r, c = to_jax(rows, policy), to_jax(cols, policy)
    common = np.promote_types(rows.dtype, cols.dtype)
    return r.astype(common)[:, None] >= c.astype(common)[None, :]


@npfunc
def tri(N: Any, M: Any = None, k: Any = 0, dtype: DTypeIn = None, *,
        like: Unsupported(None) = None) -> ndarray:
    """npjax implementation of ``numpy.tri``."""
    dtype = _default_dtype(dtype, "tri")
    return _tri_mask(N, M, k).astype(dtype)


def _trilu(m: jax.Array, k: Any, lower: bool) -> jax.Array:
    if m.ndim == 0:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    mask = _tri_mask(*m.shape[-2:], k=k if lower else k - 1)
    zero = jnp.zeros((), m.dtype)
    return jnp.where(mask, m, zero) if lower else jnp.where(mask, zero, m)


@npfunc
def tril(m: ArrayIn, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.tril`` (stacks of matrices too; 1-d gives 2-d)."""
    return _trilu(m, k, True)


@npfunc
def triu(m: ArrayIn, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.triu`` (stacks of matrices too; 1-d gives 2-d)."""
    return _trilu(m, k, False)


@hand_written(OWN_VIEWS)
def diag(v: Any, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.diag``: 1-d -> a new 2-d array; 2-d -> the read-only
    diagonal view, as NumPy returns."""
    v = asanyarray(v)
    if v.ndim == 1:
        k = operator.index(k)
        return ndarray._owner(jnp.diag(v._read(), k))
    if v.ndim == 2:
        return v.diagonal(operator.index(k))
    raise ValueError("Input must be 1- or 2-d.")


@npfunc
def diagflat(v: ArrayIn, k: Any = 0) -> ndarray:
    """npjax implementation of ``numpy.diagflat``."""
    return jnp.diag(v.ravel(), operator.index(k))


@functools.lru_cache(maxsize=128)
def _vander_kernel(n_cols: int) -> Any:
    def powers(x: jax.Array) -> jax.Array:
        one = jnp.ones_like(x)

        def step(c: jax.Array, _: Any) -> tuple:
            nxt = c * x
            return nxt, nxt

        # NumPy copies x into column 1 and multiplies from there (1 * x is not x for
        # complex infinities)
        _, rest = lax.scan(step, x, None, length=n_cols - 2)
        return jnp.concatenate([one[None], x[None], rest], 0).T

    return jax.jit(powers)


@npfunc
def vander(x: ArrayIn, N: Any = None, increasing: bool = False) -> ndarray:
    """npjax implementation of ``numpy.vander`` (powers by repeated multiplication, in
    NumPy's order).

    Differences from NumPy: under ``x64=False`` the result dtype is
    ``promote_types(x.dtype, int32)``.
    """
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n_cols = x.shape[0] if N is None else operator.index(N)
    if n_cols < 0:
        raise ValueError("negative dimensions are not allowed")
    dt = np.promote_types(x.dtype, _dtypes.default_int(current().x64))
    x = x.astype(dt)
    if n_cols == 0:
        return jnp.zeros((x.shape[0], 0), dt)
    v = _vander_kernel(n_cols)(x) if n_cols > 1 else jnp.ones((x.shape[0], 1), dt)
    return v if increasing else v[:, ::-1]
