"""The rules: NumPy's floating-point flag bits (divide 1, over 2, under 4, invalid 8) of a
ufunc call or a division ``reduce``, inferred from its inputs and outputs (XLA has no status
flags). The functions take the array module (``np`` on the host, ``jnp`` traced on the
device); ``_device_flags`` and ``_reduce_flags`` are their jitted forms."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_INT_DIV = frozenset({"floor_divide", "remainder", "divmod", "fmod"})
_GUFUNCS = frozenset({"matmul", "vecdot", "matvec", "vecmat"})
_UNDER = frozenset({"multiply", "divide", "true_divide", "exp", "exp2", "power",
                    "float_power", "square", "ldexp"})


def _pole(xp: Any, name: str, vals: list) -> Any:
    """Where an infinite result from finite inputs is a division by zero (not an overflow)."""
    if name in ("divide", "true_divide", "floor_divide", "divmod"):
        return vals[1] == 0
    if name in ("reciprocal", "log", "log2", "log10"):
        return vals[0] == 0
    if name == "log1p":
        return vals[0] == -1
    if name == "arctanh":
        return xp.abs(vals[0]) == 1
    if name == "arctan" and _kind(vals[0]) == "c":
        return (vals[0] == 1j) | (vals[0] == -1j)
    if name in ("power", "float_power"):
        return (vals[0] == 0) & (xp.real(vals[1]) < 0)
    return False


_CMP = frozenset({"less", "less_equal", "greater", "greater_equal"})


def _extra_invalid(xp: Any, name: str, vals: list) -> Any:
    """Invalid flags NumPy's loops raise with a NaN operand (ordered comparisons inside)."""
    if name in ("logaddexp", "logaddexp2"):
        return xp.isnan(vals[0]) | xp.isnan(vals[1])
    if not any(_kind(v) == "c" for v in vals):
        return False
    if name in _CMP:  # lexicographic order: real parts, then imaginary parts if equal
        xr, yr = xp.real(vals[0]), xp.real(vals[1])
        return (xp.isnan(xr) | xp.isnan(yr)
                | ((xr == yr) & (xp.isnan(xp.imag(vals[0])) | xp.isnan(xp.imag(vals[1])))))
    if name == "divide" or name == "true_divide":  # Smith's method compares |yr| and |yi|
        x, y = vals
        return xp.isnan(y) | ((y == 0) & ((xp.real(x) == 0) | (xp.imag(x) == 0)))
    if name == "reciprocal":
        return xp.isnan(vals[0])
    if name in ("power", "float_power"):
        return xp.isnan(vals[1])
    if name == "multiply":  # inf * 0 in one of the four real products
        x, y = vals
        parts_x, parts_y = (xp.real(x), xp.imag(x)), (xp.real(y), xp.imag(y))
        bad = False
        for p in parts_x:
            for q in parts_y:
                bad = bad | (xp.isinf(p) & (q == 0)) | ((p == 0) & xp.isinf(q))
        return bad
    return False


def _nonzero_exact(name: str, vals: list) -> Any:
    """Where a tiny result of ``name`` is an underflow (the exact result is not zero)."""
    if name in ("multiply",):
        return (vals[0] != 0) & (vals[1] != 0)
    if name in ("divide", "true_divide", "power", "float_power", "square", "ldexp"):
        return vals[0] != 0
    return True


def _kind(v: Any) -> str:
    dt = getattr(v, "dtype", None)
    return np.asarray(v).dtype.kind if dt is None else dt.kind


def _float_flags(xp: Any, name: str, under: bool, vals: list, outs: list, mask: Any) -> Any:
    """NumPy's flag bits for a float ufunc call, from its inputs and outputs (traceable)."""
    floats = [v for v in vals if _kind(v) in "fc"]
    outs = [o for o in outs if o.dtype.kind in "fc"]
    if name in _GUFUNCS:  # core dimensions: decide for the whole call (traceable: no
        nan_in, fin_in, nan_out, inf_out = False, True, False, False  # Python any/all)
        for v in floats:
            nan_in, fin_in = nan_in | xp.any(xp.isnan(v)), fin_in & xp.all(xp.isfinite(v))
        for o in outs:
            nan_out, inf_out = nan_out | xp.any(xp.isnan(o)), inf_out | xp.any(xp.isinf(o))
        return xp.where(inf_out & fin_in, 2, 0) + xp.where(nan_out & xp.logical_not(nan_in), 8, 0)
    nan_in, fin_in = False, True
    for v in floats:
        spacing = name == "spacing" and v.dtype != np.float16  # spacing(inf): no flag
        nan_in = nan_in | (~xp.isfinite(v) if spacing else xp.isnan(v))
    for v in (vals[:1] if name == "nextafter" else floats):
        fin_in = fin_in & xp.isfinite(v)
    pole = _pole(xp, name, vals)
    inv = _extra_invalid(xp, name, vals)
    div = over = und = False
    # logical_not, not ~: either may be a Python bool, whose ~ is an int (deprecated in 3.12)
    not_nan_in, not_pole = xp.logical_not(nan_in), xp.logical_not(pole)
    for o in outs:
        inv = inv | (xp.isnan(o) & not_nan_in)
        new_inf = xp.isinf(o) & fin_in
        div = div | (new_inf & pole)
        over = over | (new_inf & not_pole)
        if name in ("floor_divide", "divmod"):  # NumPy's npy_divmod: inf - inf inside
            inv = inv | (new_inf & not_pole)
        if under and name in _UNDER:
            tiny = np.finfo(o.dtype).tiny
            und = und | ((xp.abs(o) < tiny) & fin_in & _nonzero_exact(name, vals))
    bits = 0
    for flag, bit in ((div, 1), (over, 2), (und, 4), (inv, 8)):
        if flag is not False:
            bits = bits + xp.where(xp.any(flag & mask), bit, 0)
    return bits


# Integer operations NumPy's scalar math checks for overflow (its ufuncs do not).
SCALAR_OVER = frozenset({"add", "subtract", "multiply", "negative", "absolute"})


def _int_over(xp: Any, name: str, vals: list, r: Any) -> Any:
    """Where integer ``name`` (of ``SCALAR_OVER``) overflowed, from its operands and its
    wrapped result ``r``."""
    x = vals[0]
    signed = r.dtype.kind == "i"
    low = int(np.iinfo(r.dtype).min) if signed else 0
    if name == "negative":
        return (x == low) if signed else (x != 0)
    if name == "absolute":
        return (x == low) if signed else False
    y = vals[1]
    if name == "add":
        return ((x ^ r) & (y ^ r)) < 0 if signed else r < x
    if name == "subtract":
        return ((x ^ y) & (x ^ r)) < 0 if signed else x < y
    # multiply: exact iff r // x == y (r is x*y modulo 2**bits); x == -1 apart (MIN // -1)
    plain = (x != 0) & (x != -1) if signed else x != 0
    q = r // xp.where(plain, x, xp.ones_like(x))
    bad = plain & (q != y)
    if signed:
        bad = bad | ((x == -1) & (y == low))
    return bad


def _int_flags(xp: Any, name: str, low: int | None, vals: list, mask: Any,
               outs: Any = ()) -> Any:
    """Integer ``//``, ``%``, ``divmod``, ``fmod`` (divisor 0; MIN // -1), ``reciprocal``
    (1 / 0: divide and invalid, as NumPy's cast of inf) and, for scalar math, the overflow
    of ``SCALAR_OVER``."""
    if name in SCALAR_OVER:
        return xp.where(xp.any(_int_over(xp, name, vals, outs[0]) & mask), 2, 0)
    if name == "reciprocal":
        return xp.where(xp.any((vals[0] == 0) & mask), 9, 0)
    x, y = vals
    bits = xp.where(xp.any((y == 0) & mask), 1, 0)
    if low is not None:  # signed floor division: MIN // -1 overflows
        bits = bits + xp.where(xp.any((x == low) & (y == -1) & mask), 2, 0)
    return bits


@functools.lru_cache(maxsize=1024)
def _device_flags(name: str, kind: str, under: bool, low: int | None) -> Callable:
    if kind == "int":
        return jax.jit(lambda vals, outs, mask: _int_flags(jnp, name, low, vals, mask, outs))
    return jax.jit(lambda vals, outs, mask: _float_flags(jnp, name, under, vals, outs, mask))



@functools.lru_cache(maxsize=256)
def _reduce_flags(axes: tuple, all_divisors: bool) -> Callable:
    def flags(x, res, mask):
        m = jnp.broadcast_to(mask, x.shape)
        if axes:  # divisions are not reorderable: one axis
            axis = axes[0]
            divisors = x if all_divisors else lax.slice_in_dim(x, 1, x.shape[axis], axis=axis)
            dm = m if all_divisors else lax.slice_in_dim(m, 1, x.shape[axis], axis=axis)
            pole = jnp.any((divisors == 0) & dm, axis=axis)
        else:
            pole = jnp.zeros((), bool)
        if res.dtype.kind not in "fc":  # integer division: only the zero divisor
            return jnp.where(jnp.any(pole), 1, 0)
        nan_in = jnp.any(jnp.isnan(x) & m, axis=axes)
        fin_in = jnp.all(jnp.isfinite(x) | ~m, axis=axes)
        r = res.reshape(nan_in.shape)
        new_inf = jnp.isinf(r) & fin_in
        div = jnp.any(new_inf & pole)
        over = jnp.any(new_inf & ~pole)
        inv = jnp.any(jnp.isnan(r) & ~nan_in)
        return jnp.where(div, 1, 0) + jnp.where(over, 2, 0) + jnp.where(inv, 8, 0)

    return jax.jit(flags)
