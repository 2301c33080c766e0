"""Elementwise helpers that are not ufuncs: isclose, angle, real, fix, round, nan_to_num, ...

These are NumPy's own Python-level compositions, ported onto npjax's ufuncs, views and
indexing, so NEP 50 promotion, 0-d scalar results and exception classes come out as NumPy's.
``round`` reproduces ``PyArray_Round``: scale by NumPy's ``power_of_ten``, ``rint`` (half to
even), unscale, each step in the output dtype; integer inputs with negative ``decimals`` are
computed in float64 and cast back as NumPy does on x86-64 (out-of-range values wrap or become
the "integer indefinite" value). Data-dependent answers (``allclose``, ``array_equal``,
``real_if_close``) transfer one flag to the host.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._calls import _ufuncs
from npjax._calls._dispatch import npfunc
from npjax._core._ndarray import install_methods, ndarray
from npjax._core._out import write_out
from npjax._core._subclasses import is_subclass, plain
from npjax._core._normalize import to_jax
from npjax._placement._route import hand_written
from npjax._pure import _dtypes
from npjax._pure._declared import CREATION

__all__ = [
    "isclose", "allclose", "array_equal", "array_equiv", "angle", "real", "imag",
    "iscomplex", "iscomplexobj", "isreal", "isrealobj", "isneginf", "isposinf", "fix",
    "around", "round", "real_if_close", "nan_to_num", "sort_complex", "astype", "require",
    "isfortran",
]

_U = _ufuncs.UFUNCS
_PY_NUMBERS = (int, float, complex)


def _asarray(x: Any, dtype: Any = None) -> ndarray:
    """``numpy.asanyarray`` for npjax: npjax arrays pass through unchanged."""
    from npjax._library._creation import asarray

    return asarray(x, dtype=dtype)


# --- comparisons -------------------------------------------------------------------------


@npfunc
def isclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
            equal_nan: bool = False) -> Any:
    """npjax implementation of ``numpy.isclose`` (NumPy's formula, NEP 50 promotion)."""
    x, y, atol, rtol = (v if isinstance(v, _PY_NUMBERS) else _asarray(v)
                        for v in (a, b, atol, rtol))
    if isinstance(y, ndarray):
        dt = np.result_type(y.dtype, 1.)
        if y.dtype != dt:
            y = y.astype(dt)
    elif isinstance(y, int):
        y = float(y)
    _check_tolerances(atol, rtol)
    result = _U["logical_or"](
        _U["logical_and"](_U["less_equal"](abs(x - y), atol + rtol * abs(y)),
                          _U["isfinite"](y)),
        _U["equal"](x, y))
    if equal_nan:
        result = _U["logical_or"](result, _U["logical_and"](_U["isnan"](x), _U["isnan"](y)))
    return result[()]


def _check_tolerances(atol: Any, rtol: Any) -> None:
    """NumPy's warning (or error, per ``numpy.errstate``) for non-finite tolerances."""
    def finite(v: Any) -> bool:
        if isinstance(v, _PY_NUMBERS):
            return bool(np.isfinite(v))
        return bool(_U["isfinite"](v).all())

    if finite(atol) and finite(rtol):
        return
    mode = np.geterr()["invalid"]
    msg = f"One of rtol or atol is not valid, atol: {atol}, rtol: {rtol}"
    if mode == "warn":
        warnings.warn(msg, RuntimeWarning, stacklevel=_stacklevel())
    elif mode == "raise":
        raise FloatingPointError(msg)
    elif mode == "print":
        print(msg)


@npfunc
def allclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
             equal_nan: bool = False) -> bool:
    """npjax implementation of ``numpy.allclose`` (a Python bool, as in NumPy: also for
    subclass operands, read through plain views)."""
    a, b = (plain(x) if is_subclass(x) else x for x in (a, b))
    res = isclose.__wrapped__(a, b, rtol, atol, equal_nan)  # (the body: one pass of the door)
    return builtins.bool(res.all() if isinstance(res, ndarray) else res)


@npfunc
def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    """npjax implementation of ``numpy.array_equal`` (a Python bool)."""
    try:
        a1, a2 = _asarray(a1), _asarray(a2)
    except Exception:  # NumPy's rule: anything that is not an array is "not equal"
        return False
    if a1.shape != a2.shape:
        return False
    if not equal_nan or (a1.dtype.kind not in "fc" and a2.dtype.kind not in "fc"):
        return builtins.bool(_U["equal"](a1, a2).all())
    if a1 is a2:
        return True
    return builtins.bool(_equal_nan(a1._read(), a2._read()))


@jax.jit
def _equal_nan(x: jax.Array, y: jax.Array) -> jax.Array:
    xn, yn = jnp.isnan(x), jnp.isnan(y)
    return jnp.all(xn == yn) & jnp.all(xn | (x == y))


@npfunc
def array_equiv(a1: Any, a2: Any) -> bool:
    """npjax implementation of ``numpy.array_equiv`` (equal after broadcasting)."""
    try:
        a1, a2 = _asarray(a1), _asarray(a2)
    except Exception:
        return False
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return builtins.bool(_U["equal"](a1, a2).all())


# --- complex parts and type predicates ---------------------------------------------------


def _as_npjax(val: Any) -> Any:
    """NumPy scalars become npjax scalars; host arrays and sequences npjax arrays."""
    if isinstance(val, np.generic):
        return ndarray._owner(to_jax(val), True)
    return _asarray(val)


@npfunc
def real(val: Any) -> Any:
    """npjax implementation of ``numpy.real`` (a view for complex npjax arrays)."""
    if isinstance(val, (ndarray, *_PY_NUMBERS)):
        return val.real
    return _as_npjax(val).real


@npfunc
def imag(val: Any) -> Any:
    """npjax implementation of ``numpy.imag`` (a view for complex npjax arrays; read-only
    zeros for real ones)."""
    if isinstance(val, (ndarray, *_PY_NUMBERS)):
        return val.imag
    return _as_npjax(val).imag


@npfunc
def angle(z: Any, deg: bool = False) -> Any:
    """npjax implementation of ``numpy.angle``."""
    z = _as_npjax(z) if not isinstance(z, ndarray) else z
    if z.dtype.kind == "c":
        zimag, zreal = z.imag, z.real
    else:
        zimag, zreal = 0, z
    a = _U["arctan2"](zimag, zreal)
    if deg:
        a = _U["multiply"](a, 180 / np.pi)
    return a


@npfunc
def iscomplex(x: Any) -> Any:
    """npjax implementation of ``numpy.iscomplex``."""
    ax = _asarray(x)
    if ax.dtype.kind == "c":
        return _U["not_equal"](ax.imag, 0)
    return ndarray._owner(jnp.zeros(ax.shape, bool))[()]


def _iscomplexobj(x: Any) -> bool:
    try:
        dtype = x.dtype
        type_ = dtype.type
    except AttributeError:
        type_ = _asarray(x).dtype.type
    return issubclass(type_, np.complexfloating)


@npfunc
def iscomplexobj(x: Any) -> bool:
    """npjax implementation of ``numpy.iscomplexobj``."""
    return _iscomplexobj(x)


@npfunc
def isreal(x: Any) -> Any:
    """npjax implementation of ``numpy.isreal``."""
    return imag.__wrapped__(x) == 0


@npfunc
def isrealobj(x: Any) -> bool:
    """npjax implementation of ``numpy.isrealobj``."""
    return not _iscomplexobj(x)


def _signed_inf(x: Any, out: Any, negative: bool) -> Any:
    is_inf = _U["isinf"](x)
    try:
        signbit = _U["signbit"](x)
    except TypeError as e:
        dtype = _asarray(x).dtype
        raise TypeError(f"This operation is not supported for {dtype} values "
                        "because it would be ambiguous.") from e
    return _U["logical_and"](is_inf, signbit if negative else _U["logical_not"](signbit),
                             out=out)


# ``out`` untagged: NumPy writes it through ``logical_and``'s ``out=`` (the ufunc's rules).
@npfunc
def isneginf(x: Any, out: Any = None) -> Any:
    """npjax implementation of ``numpy.isneginf``."""
    return _signed_inf(x, out, True)


@npfunc
def isposinf(x: Any, out: Any = None) -> Any:
    """npjax implementation of ``numpy.isposinf``."""
    return _signed_inf(x, out, False)


@npfunc
def fix(x: Any, out: Any = None) -> Any:
    """npjax implementation of ``numpy.fix`` (``trunc``)."""
    return _U["trunc"](x, out=out)


# --- rounding -----------------------------------------------------------------------------
# (``out`` untagged in fix, round, around: the bodies write it by NumPy's rules for them)


def _power_of_ten(n: int) -> float:
    """NumPy's ``power_of_ten`` (a table to 1e8, then repeated multiplication by 10)."""
    if n < 9:
        return (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)[n]
    ret = 1e9
    for _ in range(n - 9):
        ret *= 10.
        if math.isinf(ret):
            break
    return ret


def _to_int_x86(v: jax.Array, dtype: np.dtype) -> jax.Array:
    """float64 -> integer ``dtype`` as NumPy's C casts do on x86-64 (SSE truncation)."""
    ok64 = jnp.isfinite(v) & (v >= -2.0 ** 63) & (v < 2.0 ** 63)
    i64 = jnp.where(ok64, v, 0).astype(jnp.int64)
    if dtype == np.int64:
        return jnp.where(ok64, i64, np.iinfo(np.int64).min)
    if dtype == np.uint64:
        big = jnp.isfinite(v) & (v >= 2.0 ** 63) & (v < 2.0 ** 64)
        u = jnp.where(big, jnp.where(big, v - 2.0 ** 63, 0).astype(jnp.int64), i64)
        u = u.astype(jnp.uint64) + jnp.where(big, np.uint64(2 ** 63), np.uint64(0))
        special = jnp.where(jnp.isnan(v), np.uint64(2 ** 63), np.uint64(0))
        return jnp.where(ok64 | big, u, special)
    if dtype == np.uint32:  # NumPy's scalar loop (its SIMD loop differs out of range)
        return i64.astype(dtype)
    ok32 = ok64 & (v >= -2.0 ** 31) & (v < 2.0 ** 31)
    # int32 and narrower: through a 32-bit conversion, then two's complement truncation
    return jnp.where(ok32, i64, np.iinfo(np.int32).min).astype(dtype)


_to_int_x86_jit = jax.jit(_to_int_x86, static_argnums=1)


def _round(a: Any, decimals: Any, out: Any) -> Any:
    """``PyArray_Round`` step by step with npjax ufuncs (``out`` used as NumPy uses it)."""
    decimals = operator.index(decimals)
    if not -2 ** 31 <= decimals < 2 ** 31:
        raise OverflowError("Python int too large to convert to C int")
    scalar_in = not isinstance(a, ndarray) and np.ndim(a) == 0
    a = _as_npjax(a) if not isinstance(a, ndarray) else a
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("return arrays must be of ArrayType")
        if out.shape != a.shape:
            raise ValueError("invalid output shape")
    kind = a.dtype.kind
    if kind == "c":
        _dtypes.device_only(a.dtype)  # (complex128 on a TPU: NumPy's round there)
        if out is None:
            res = ndarray._owner(jnp.zeros(a.shape, a.dtype))
        else:
            res = out
            if res.dtype.kind != "c":
                raise TypeError("array does not have imaginary part to set")
        _round(a.real, decimals, res.real)
        _round(a.imag, decimals, res.imag)
        return res if out is not None else _finish(res, scalar_in or a._scalar)
    if decimals >= 0 and kind in "iu":
        if out is None:
            return _finish(ndarray._owner(a._read()), scalar_in or a._scalar)
        return write_out(out, a._read(), "same_kind", "round")
    if decimals == 0:
        res = _U["rint"](a, out=out)
        return res if out is not None else _finish(res, scalar_in or a._scalar)
    op1, op2 = _U["multiply"], _U["true_divide"]
    if decimals < 0:
        op1, op2 = op2, op1
        decimals = -decimals
    f = _power_of_ten(decimals)
    ret = out
    if ret is None:
        dt = _dtypes.device_only(np.dtype(np.float64) if kind in "iu" else a.dtype)
        ret = ndarray._owner(jnp.zeros(a.shape, dt))
    op1(a, f, out=ret)
    _U["rint"](ret, out=ret)
    op2(ret, f, out=ret)
    if out is not None:
        return out
    if kind in "iu":
        ret = ndarray._owner(_to_int_x86_jit(ret._read(), a.dtype))
    return _finish(ret, scalar_in or a._scalar or a.ndim == 0)


def _finish(res: Any, scalar: bool) -> Any:
    if isinstance(res, np.generic):  # (NumPy's scalar: the host route of a host 0-d array)
        return res
    if res.ndim == 0 and not res._scalar:
        return ndarray._owner(res._read(), True)
    return res


@npfunc
def round(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """npjax implementation of ``numpy.round``: NumPy's scale/``rint``/unscale (half to even
    after scaling, so ``round(2.675, 2)`` is 2.67 as in NumPy).

    Differences from NumPy: integer results that overflow are cast as on x86-64 NumPy.
    """
    return _round(a, decimals, out)


@npfunc
def around(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """npjax implementation of ``numpy.around`` (an alias of ``round``)."""
    return _round(a, decimals, out)


def _round_method(self: ndarray, decimals: Any = 0, out: Any = None) -> Any:
    return round(self, decimals, out)  # (its door: on a TPU, NumPy's round of ints to tens)


# --- value replacement, sorting, conversion ----------------------------------------------


@npfunc
def real_if_close(a: Any, tol: Any = 100) -> ndarray:
    """npjax implementation of ``numpy.real_if_close``."""
    a = _asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    if builtins.bool(_U["less"](_U["absolute"](a.imag), tol).all()):
        a = a.real
    return a


@npfunc
def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    """npjax implementation of ``numpy.nan_to_num`` (``copy=False`` replaces in place)."""
    from npjax._library._creation import array
    from npjax._library._rearranging import _copyto as copyto

    x = array(x, copy=copy)
    isscalar = x.ndim == 0
    if x.dtype.kind not in "fc":
        return x[()] if isscalar else x
    dest = (x.real, x.imag) if x.dtype.kind == "c" else (x,)
    info = np.finfo(x.real.dtype)
    maxf = info.max if posinf is None else posinf
    minf = info.min if neginf is None else neginf
    for d in dest:
        value = d._read()
        idx_nan = ndarray._owner(jnp.isnan(value))
        idx_posinf = ndarray._owner(jnp.isposinf(value))
        idx_neginf = ndarray._owner(jnp.isneginf(value))
        copyto(d, nan, where=idx_nan)
        copyto(d, maxf, where=idx_posinf)
        copyto(d, minf, where=idx_neginf)
    return x[()] if isscalar else x


@npfunc
def sort_complex(a: Any) -> ndarray:
    """npjax implementation of ``numpy.sort_complex``."""
    from npjax._library._creation import array

    b = array(a, copy=True)
    b.sort()
    if b.dtype.kind != "c":
        return b.astype("F" if b.dtype.char in "bhBH" else "D")
    return b


@hand_written(CREATION)
def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    """npjax implementation of ``numpy.astype``.

    Differences from NumPy: ``device`` other than None raises (NumPy accepts "cpu").
    """
    if not (isinstance(x, ndarray | np.ndarray) or np.isscalar(x)):
        raise TypeError(f"Input should be a NumPy array or scalar. It is a {type(x)} instead.")
    if device is not None:
        if device != "cpu":
            raise ValueError('Device not understood. Only "cpu" is allowed, but received:'
                             f' {device}')
        raise NotImplementedError("npjax.astype: parameter 'device' is not supported")
    if not isinstance(x, ndarray):
        if not isinstance(x, np.generic | np.ndarray):
            raise AttributeError(f"'{type(x).__name__}' object has no attribute 'astype'")
        x = _as_npjax(x)
    return x.astype(dtype, copy=copy)


_POSSIBLE_FLAGS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F",
                   "F_CONTIGUOUS": "F", "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W",
                   "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


@hand_written(CREATION)
def require(a: Any, dtype: Any = None, requirements: Any = None, *, like: Any = None) -> Any:
    """npjax implementation of ``numpy.require`` (an npjax array meeting the flags)."""
    from npjax._library._creation import array

    if like is not None:
        raise NotImplementedError("npjax.require: parameter 'like' is not supported")
    if not requirements:  # NumPy: ``asanyarray`` (a subclass kept)
        if is_subclass(a):
            return array(a, dtype=dtype, copy=None, subok=True)
        return _keep_fortran(a, _asarray(a, dtype=dtype))
    requirements = {_POSSIBLE_FLAGS[x.upper()] for x in requirements}
    subok = "E" not in requirements  # "E": a base-class array
    requirements.discard("E")
    order = "A"
    if requirements >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    if "F" in requirements:
        order = "F"
        requirements.remove("F")
    elif "C" in requirements:
        order = "C"
        requirements.remove("C")
    arr = array(a, dtype=dtype, order=order, copy=None, subok=subok)
    if order != "A" and not arr.flags[order]:
        return arr.copy(order)
    if order == "A":
        arr = _keep_fortran(a, arr)
    for prop in requirements:
        if prop != "A" and not arr.flags[prop]:  # npjax arrays are always aligned
            return arr.copy(order)
    return arr


def _keep_fortran(src: Any, arr: ndarray) -> ndarray:
    """A converted copy of an F-contiguous array stays F-contiguous (NumPy's order 'A'/'K')."""
    if (isinstance(src, ndarray) and arr is not src and _isfortran(src)
            and not arr.flags.f_contiguous):
        return arr.copy("F")
    return arr


@npfunc
def isfortran(a: Any) -> bool:
    """npjax implementation of ``numpy.isfortran`` (F-contiguous and not C-contiguous)."""
    return _isfortran(a)


def _isfortran(a: Any) -> bool:
    if isinstance(a, ndarray):
        flags = a.flags
        return flags.f_contiguous and not flags.c_contiguous
    return a.flags.fnc


install_methods({"round": _round_method})


for _name in __all__:  # public functions report NumPy-style as members of npjax
    globals()[_name].__module__ = "npjax"
del _name
