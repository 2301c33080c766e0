"""Differences, gradients, integration and interpolation: gradient, trapezoid, interp, unwrap.

``gradient``, ``trapezoid`` and ``unwrap`` are NumPy's Python code run on npjax arrays (its
ufuncs, slicing and in-place writes), so intermediate dtypes (NEP 50) are NumPy's. ``interp``
is one compiled kernel reproducing NumPy's C loop (``arr_interp``): binary search, slope
``(fp[j+1] - fp[j]) / (xp[j+1] - xp[j])``, the exact-hit and NaN-retry rules, and per-part
slopes (times ``1 / dx``) for complex ``fp``. ``diff`` and ``ediff1d`` live in
``npjax/_library/_differences.py``; NumPy has no ``cumulative_trapezoid``.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._calls import _ufuncs
from npjax._calls._dispatch import npfunc
from npjax._pure import _dtypes
from npjax._pure._axes import normalize_axes
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._runtime._context import current

__all__ = ["gradient", "trapezoid", "interp", "unwrap"]

_U = _ufuncs.UFUNCS
_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)


def _asarray(x: Any, dtype: Any = None) -> ndarray:
    from npjax._library._creation import asarray

    return asarray(x, dtype=dtype)


def _diff(a: Any, axis: int = -1) -> ndarray:
    from npjax._library._differences import difference as diff

    return diff(a, axis=axis)


def _empty(shape: tuple, dtype: np.dtype) -> ndarray:
    return ndarray._owner(jnp.zeros(shape, dtype))


def _ndim(x: Any) -> int:
    return x.ndim if isinstance(x, ndarray) else np.ndim(x)


# --- gradient ----------------------------------------------------------------------------


@npfunc
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """npjax implementation of ``numpy.gradient`` (second-order central differences inside,
    first- or second-order one-sided differences at the edges)."""
    f = _asarray(f)
    n_dims = f.ndim
    axes = tuple(range(n_dims)) if axis is None else normalize_axes(axis, n_dims)
    len_axes = len(axes)
    n = len(varargs)
    if n == 0:
        dx = [1.0] * len_axes
    elif n == 1 and _ndim(varargs[0]) == 0:
        dx = list(varargs) * len_axes
    elif n == len_axes:
        dx = list(varargs)
        for i, distances in enumerate(dx):
            distances = _asarray(distances)
            if distances.ndim == 0:
                continue
            if distances.ndim != 1:
                raise ValueError("distances must be either scalars or 1d")
            if len(distances) != f.shape[axes[i]]:
                raise ValueError("when 1d, distances must match "
                                 "the length of the corresponding dimension")
            if distances.dtype.kind in "iu":
                distances = distances.astype(np.float64)
            diffx = _diff(distances)
            if bool(_U["equal"](diffx, diffx[0]).all()):
                diffx = diffx[0]
            dx[i] = diffx
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")

    otype = f.dtype
    if otype.kind not in "fc":
        otype = _dtypes.device_only(_F64)  # (a host dtype on a TPU: NumPy's gradient there)
        if f.dtype.kind in "iu":
            f = f.astype(otype)

    outvals = []
    s1 = [slice(None)] * n_dims
    s2 = [slice(None)] * n_dims
    s3 = [slice(None)] * n_dims
    s4 = [slice(None)] * n_dims
    for ax, ax_dx in zip(axes, dx):
        if f.shape[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, "
                "at least (edge_order + 1) elements are required.")
        out = _empty(f.shape, otype)
        uniform = _ndim(ax_dx) == 0

        s1[ax], s2[ax], s3[ax], s4[ax] = slice(1, -1), slice(None, -2), slice(1, -1), slice(2, None)
        if uniform:
            out[tuple(s1)] = (f[tuple(s4)] - f[tuple(s2)]) / (2. * ax_dx)
        else:
            dx1 = ax_dx[0:-1]
            dx2 = ax_dx[1:]
            a = -(dx2) / (dx1 * (dx1 + dx2))
            b = (dx2 - dx1) / (dx1 * dx2)
            c = dx1 / (dx2 * (dx1 + dx2))
            shape = [1] * n_dims
            shape[ax] = -1
            a, b, c = a.reshape(shape), b.reshape(shape), c.reshape(shape)
            out[tuple(s1)] = a * f[tuple(s2)] + b * f[tuple(s3)] + c * f[tuple(s4)]

        if edge_order == 1:
            s1[ax], s2[ax], s3[ax] = 0, 1, 0
            dx_0 = ax_dx if uniform else ax_dx[0]
            out[tuple(s1)] = (f[tuple(s2)] - f[tuple(s3)]) / dx_0
            s1[ax], s2[ax], s3[ax] = -1, -1, -2
            dx_n = ax_dx if uniform else ax_dx[-1]
            out[tuple(s1)] = (f[tuple(s2)] - f[tuple(s3)]) / dx_n
        else:
            s1[ax], s2[ax], s3[ax], s4[ax] = 0, 0, 1, 2
            if uniform:
                a, b, c = -1.5 / ax_dx, 2. / ax_dx, -0.5 / ax_dx
            else:
                dx1, dx2 = ax_dx[0], ax_dx[1]
                a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
                b = (dx1 + dx2) / (dx1 * dx2)
                c = - dx1 / (dx2 * (dx1 + dx2))
            out[tuple(s1)] = a * f[tuple(s2)] + b * f[tuple(s3)] + c * f[tuple(s4)]
            s1[ax], s2[ax], s3[ax], s4[ax] = -1, -3, -2, -1
            if uniform:
                a, b, c = 0.5 / ax_dx, -2. / ax_dx, 1.5 / ax_dx
            else:
                dx1, dx2 = ax_dx[-2], ax_dx[-1]
                a = (dx2) / (dx1 * (dx1 + dx2))
                b = - (dx2 + dx1) / (dx1 * dx2)
                c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
            out[tuple(s1)] = a * f[tuple(s2)] + b * f[tuple(s3)] + c * f[tuple(s4)]

        outvals.append(out)
        s1[ax] = s2[ax] = s3[ax] = s4[ax] = slice(None)

    if len_axes == 1:
        return outvals[0]
    return tuple(outvals)


# --- trapezoid ---------------------------------------------------------------------------


@npfunc
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """npjax implementation of ``numpy.trapezoid`` (NumPy's formula and summation)."""
    y = _asarray(y)
    if x is None:
        d = dx
    else:
        x = _asarray(x)
        if x.ndim == 1:
            d = _diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = _diff(x, axis=axis)
    nd = y.ndim
    slice1 = [slice(None)] * nd
    slice2 = [slice(None)] * nd
    slice1[axis] = slice(1, None)
    slice2[axis] = slice(None, -1)
    return (d * (y[tuple(slice1)] + y[tuple(slice2)]) / 2.0).sum(axis)


# --- interp ------------------------------------------------------------------------------


def _interp_part(x: jax.Array, xp: jax.Array, fp: jax.Array, slope: jax.Array,
                 j: jax.Array) -> jax.Array:
    """One real part of NumPy's inner interpolation step, for ``0 <= j < len(xp) - 1``."""
    x_lo, x_hi = xp[j], xp[j + 1]
    y_lo, y_hi = fp[j], fp[j + 1]
    s = slope[j]
    r = s * (x - x_lo) + y_lo
    retry = s * (x - x_hi) + y_hi
    r = jnp.where(jnp.isnan(r), jnp.where(jnp.isnan(retry) & (y_lo == y_hi), y_lo, retry), r)
    return jnp.where(x_lo == x, y_lo, r)


@functools.lru_cache(maxsize=16)
def _interp_kernel(is_complex: bool):
    def kernel(x, xp, fp, lval, rval):
        n = xp.shape[0]
        if n == 1:
            res = jnp.where(x < xp[0], lval, jnp.where(x > xp[0], rval, fp[0]))
        else:
            j = jnp.searchsorted(xp, x, side="right") - 1
            jc = jnp.clip(j, 0, n - 2)
            dxs = xp[1:] - xp[:-1]
            if is_complex:
                inv = 1.0 / dxs
                re, im = jnp.real(fp), jnp.imag(fp)
                mid = jax.lax.complex(
                    _interp_part(x, xp, re, (re[1:] - re[:-1]) * inv, jc),
                    _interp_part(x, xp, im, (im[1:] - im[:-1]) * inv, jc))
            else:
                mid = _interp_part(x, xp, fp, (fp[1:] - fp[:-1]) / dxs, jc)
            res = jnp.where(x > xp[n - 1], rval,
                            jnp.where(x < xp[0], lval,
                                      jnp.where(x == xp[n - 1], fp[n - 1], mid)))
        nan = jnp.isnan(x)
        return jnp.where(nan, x.astype(res.dtype), res)

    return jax.jit(kernel)


def _fill_value(v: Any, is_complex: bool) -> Any:
    """NumPy's conversion of ``left``/``right`` (``PyFloat_AsDouble`` / complex parts)."""
    if isinstance(v, ndarray):
        if v.ndim != 0:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        v = v._host_scalar()
    if is_complex:
        return complex(v)
    if isinstance(v, complex | np.complexfloating):
        raise TypeError("must be real number, not complex")
    if not isinstance(v, int | float | np.number | np.bool_ | np.ndarray):
        raise TypeError(f"must be real number, not {type(v).__name__}")
    return float(v)


def _as_1d(x: Any, dtype: np.dtype) -> ndarray:
    a = _asarray(x)
    if a.ndim != 1:
        raise ValueError("object of too small depth for desired array" if a.ndim == 0
                         else "setting an array element with a sequence. The requested "
                         "array would exceed the maximum number of dimension of 1.")
    return _cast_safe(a, dtype)


def _cast_safe(a: ndarray, dtype: np.dtype) -> ndarray:
    if a.dtype.kind == "c" and dtype.kind != "c":
        raise TypeError("float() argument must be a string or a real number, not 'complex'")
    return a if a.dtype == dtype else a.astype(dtype)


@npfunc
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:
    """npjax implementation of ``numpy.interp`` (float64 or complex128 results)."""
    fp_a = _asarray(fp)
    is_complex = fp_a.dtype.kind == "c"
    in_dt = _C128 if is_complex else _F64
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        x_a = _cast_safe(_asarray(x), _F64)
        xp_a = _cast_safe(_asarray(xp), _F64)
        fp_a = _cast_safe(fp_a, in_dt)
        if xp_a.ndim != 1 or fp_a.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp_a.shape[0] != fp_a.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x_a = _U["remainder"](x_a, period)
        xp_a = _U["remainder"](xp_a, period)
        xv, fv = _periodic(xp_a._read(), fp_a._read(), to_jax(np.float64(period), current()))
        xp_a, fp_a = ndarray._owner(xv), ndarray._owner(fv)
    else:
        x_a = _cast_safe(_asarray(x), _F64)
        fp_a = _as_1d(fp_a, in_dt)
        xp_a = _as_1d(xp, _F64)
    n = xp_a.shape[0]
    if n == 0:
        raise ValueError("array of sample points is empty")
    if fp_a.shape[0] != n:
        raise ValueError("fp and xp are not of the same length.")
    fpv = fp_a._read()
    lval = fpv[0] if left is None else jnp.asarray(_fill_value(left, is_complex), in_dt)
    rval = fpv[n - 1] if right is None else jnp.asarray(_fill_value(right, is_complex), in_dt)
    res = _interp_kernel(is_complex)(x_a._read(), xp_a._read(), fpv, lval, rval)
    return ndarray._owner(res, res.ndim == 0)


@jax.jit
def _periodic(xp: jax.Array, fp: jax.Array, period: jax.Array) -> tuple:
    order = jnp.argsort(xp)
    xp, fp = xp[order], fp[order]
    xp = jnp.concatenate((xp[-1:] - period, xp, xp[0:1] + period))
    fp = jnp.concatenate((fp[-1:], fp, fp[0:1]))
    return xp, fp


# --- unwrap ------------------------------------------------------------------------------


@npfunc
def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: Any = 2 * np.pi) -> ndarray:
    """npjax implementation of ``numpy.unwrap``."""
    from npjax._library._creation import array
    from npjax._library._rearranging import _copyto as copyto
    from npjax._library._reductions import cumsum

    p = _asarray(p)
    nd = p.ndim
    dd = _diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    slice1 = [slice(None, None)] * nd
    slice1[axis] = slice(1, None)
    slice1 = tuple(slice1)
    pkey = period.dtype if isinstance(period, ndarray) else period
    dtype = np.result_type(dd.dtype, pkey)
    if dtype.kind in "iu":
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = _U["remainder"](dd - interval_low, period) + interval_low
    if boundary_ambiguous:
        copyto(ddmod, interval_high, where=(ddmod == interval_low) & (dd > 0))
    ph_correct = ddmod - dd
    copyto(ph_correct, 0, where=abs(dd) < discont)
    up = array(p, copy=True, dtype=dtype)
    up[slice1] = p[slice1] + cumsum(ph_correct, axis)
    return up



for _name in __all__:  # public functions report NumPy-style as members of npjax
    globals()[_name].__module__ = "npjax"
del _name
