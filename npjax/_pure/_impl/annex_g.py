"""Complex ufuncs with C99 Annex G's special values (NumPy's loops follow them): JAX's
function where its value stands, a textbook formula's parts where JAX's lose a tiny part or a
sign, the special cases spelled out; ``sinh``/``cosh``/``sin``/``cos`` scaled past exp's
overflow, ``arctanh``/``arctan`` next to their singularities (``jax.Array`` in and out)."""

from __future__ import annotations

import math
from collections.abc import Callable

import jax.numpy as jnp
import numpy as np
from jax import lax


# C99 Annex G special values (NumPy's loops follow them): ``_annex_g(today, ref)`` keeps the
# JAX function's bits wherever the input is finite and the result part is not zero; a zero part
# takes ``ref``'s value (a cheap textbook formula as NumPy's C library computes it; JAX's own
# cancels to zero at tiny parts), or, with ``values=False``, only its sign; an input with an
# infinite or NaN part takes ``ref`` whole (each ``ref`` spells out Annex G's special cases).


def _annex_g(today: Callable, ref: Callable, values: bool = True) -> Callable:
    def impl(z):
        if z.dtype.kind != "c":
            return today(z)
        t = today(z)
        # (the barrier keeps XLA from sharing the textbook's products with JAX's own
        # function, which changed a last bit of complex64 power)
        zb = lax.optimization_barrier(z)
        rr, ri = ref(zb.real, zb.imag)
        finite = jnp.isfinite(z.real) & jnp.isfinite(z.imag)

        def part(tp, rp):
            signed = jnp.where(tp == 0, rp if values else jnp.copysign(jnp.zeros_like(tp),
                                                                       rp), tp)
            return jnp.where(finite, signed, rp)

        return lax.complex(part(t.real, rr), part(t.imag, ri))

    return impl


def _nonfinite(v):
    return ~jnp.isfinite(v)


def _sinh_ref(x, y):
    re = jnp.sinh(x) * jnp.cos(y)
    im = jnp.cosh(x) * jnp.sin(y)
    im = jnp.where(y == 0, y, im)  # sinh(x +- 0i) = sinh(x) +- 0i, x infinite or NaN too
    re = jnp.where((x == 0) & _nonfinite(y), x, re)  # +-0 + i NaN
    re = jnp.where(jnp.isinf(x) & _nonfinite(y), jnp.abs(x), re)  # +inf + i NaN
    return re, im


def _cosh_ref(x, y):
    re = jnp.cosh(x) * jnp.cos(y)
    im = jnp.sinh(x) * jnp.sin(y)
    im = jnp.where(y == 0, jnp.where(jnp.signbit(x) & ~jnp.isnan(x), -y, y), im)
    im = jnp.where((x == 0) & _nonfinite(y), jnp.zeros_like(y), im)  # NaN + 0i
    re = jnp.where(jnp.isinf(x) & _nonfinite(y), jnp.full_like(x, jnp.inf), re)
    return re, im


def _tanh_ref(x, y):
    nan = jnp.full_like(x, jnp.nan)
    s2y = jnp.where(y == 0, y, jnp.sin(2 * y))  # the sign of the imaginary part
    re = jnp.where(jnp.isinf(x), jnp.copysign(jnp.ones_like(x), x),
                   jnp.where(jnp.isfinite(y) | (x == 0), x, nan))
    im = jnp.where(jnp.isinf(x), jnp.copysign(jnp.zeros_like(y), jnp.where(
        jnp.isfinite(y), s2y, y)), jnp.where(
        jnp.isnan(x), jnp.where(y == 0, y, nan), jnp.where(jnp.isfinite(y), s2y, nan)))
    return re, im


def _exp_ref(x, y):
    e = jnp.exp(x)
    re, im = e * jnp.cos(y), e * jnp.sin(y)
    im = jnp.where(y == 0, y, im)
    low = (x == -jnp.inf) & _nonfinite(y)  # exp(-inf + i inf|nan) = 0 +- 0i
    re = jnp.where(low, jnp.zeros_like(x), re)
    im = jnp.where(low, jnp.copysign(jnp.zeros_like(y), y), im)
    re = jnp.where((x == jnp.inf) & _nonfinite(y), x, re)  # inf + i NaN
    return re, im


_exp = _annex_g(jnp.exp, _exp_ref)


def _past_overflow(impl: Callable, odd: bool, turn: bool = False) -> Callable:
    """``impl`` (complex sinh, odd, or cosh; ``turn``: of iz, as sin and cos are) where
    exp(|x|) overflows but its product with cos y or sin y need not: e**|x| / 2 * c as
    (e**(|x|/2) * c / 2) * e**(|x|/2), as the C library scales it (XLA's gave
    sin(1e-30 + 100j) = inf + inf j in complex64, NumPy 1.3e13 + inf j)."""

    def wrapped(z):
        res = impl(z)
        if z.dtype.kind != "c":
            return res
        x, y = (-z.imag, z.real) if turn else (z.real, z.imag)
        limit = np.log(np.finfo(x.dtype).max) - 1
        big = (jnp.abs(x) > limit) & jnp.isfinite(x) & jnp.isfinite(y)
        h = jnp.exp(jnp.where(big, jnp.abs(x), 0) / 2)
        sign = jnp.where(jnp.signbit(x), -1, 1).astype(x.dtype)
        c, s = (h * jnp.cos(y) / 2) * h, (h * jnp.sin(y) / 2) * h
        s = jnp.where(y == 0, y, s)  # (inf * 0 past 2 * limit: the zero keeps its sign)
        re, im = (sign * c, s) if odd else (c, sign * s)
        if turn:  # f(z) = -i g(iz) for sin (odd), g(iz) for cos
            re, im = (im, -re) if odd else (re, im)
        return jnp.where(big, lax.complex(re, im), res)

    return wrapped


def _rotated(ref: Callable) -> Callable:
    """f(z) = -i g(iz) (sin from sinh, tan from tanh, arctan from arctanh, C99's definitions)."""

    def impl(x, y):
        re, im = ref(-y, x)
        return im, -re

    return impl



def _sin_ref(x, y):
    re, im = _rotated(_sinh_ref)(x, y)
    wild = _nonfinite(x) & jnp.isinf(y)  # sin(inf|NaN +- i inf) = NaN + i inf
    return (jnp.where(wild, jnp.full_like(x, jnp.nan), re),
            jnp.where(wild, jnp.full_like(y, jnp.inf), im))


def _turned(ref: Callable) -> Callable:
    """f(z) = g(iz) (cos from cosh)."""
    return lambda x, y: ref(-y, x)


def _odd_conj(fn: Callable) -> Callable:
    """An odd function with f(conj z) = conj f(z), evaluated in the first quadrant."""

    def impl(x, y):
        w = fn(lax.complex(jnp.abs(x), jnp.abs(y)))
        re = jnp.where(jnp.signbit(x), -w.real, w.real)
        im = jnp.where(jnp.signbit(y), -w.imag, w.imag)
        return re, im

    return impl


def _arctanh_ref(x, y):
    re, im = _odd_conj(jnp.arctanh)(x, y)
    nan = jnp.full_like(x, jnp.nan)
    half_pi = jnp.copysign(jnp.full_like(y, np.pi / 2), y)
    zero_x = jnp.copysign(jnp.zeros_like(x), x)
    # x infinite, or y infinite: +-0 + i pi/2 (y NaN: +-0 + i NaN)
    big = jnp.isinf(x) | jnp.isinf(y)
    re = jnp.where(big, jnp.where(jnp.isnan(x), jnp.zeros_like(x), zero_x), re)
    im = jnp.where(jnp.isinf(y), half_pi, jnp.where(jnp.isinf(x), jnp.where(
        jnp.isnan(y), nan, jnp.copysign(jnp.full_like(y, np.pi / 2), y)), im))
    # a NaN part with a finite other: NaN + i NaN, but +-0 + i NaN keeps its zero
    small_nan = (jnp.isnan(x) & jnp.isfinite(y)) | (jnp.isnan(y) & jnp.isfinite(x))
    re = jnp.where(small_nan, jnp.where(x == 0, x, nan), re)
    im = jnp.where(small_nan | (jnp.isnan(x) & jnp.isnan(y)), nan, im)
    return re, im


def _odd_conj_complex(fn: Callable) -> Callable:
    """``fn`` (real dtypes as it is) with ``_odd_conj`` on complex: the signed zero of a part
    picks NumPy's side of a branch cut (JAX ignores it there)."""

    def impl(z):
        if z.dtype.kind != "c":
            return fn(z)
        return lax.complex(*_odd_conj(fn)(z.real, z.imag))

    return impl


def _next_to_one(fn: Callable, turn: bool = False) -> Callable:
    """complex arctanh (``turn``: arctan, rotated) where the argument is +-1 + i t (arctan:
    t +- i), 0 < |t| < eps: a real part (ln 2 - ln|t|) / 2 as NumPy's (FreeBSD's ``catanh``)
    gives it; JAX's squares underflow there (arctanh(1 + 1e-300j) was inf)."""

    def impl(z):
        res = fn(z)
        if z.dtype.kind != "c":
            return res
        one, t = (z.imag, z.real) if turn else (z.real, z.imag)
        at = jnp.abs(t)
        near = (jnp.abs(one) == 1) & (at > 0) & (at < np.finfo(at.dtype).eps)
        part = 0.5 * (math.log(2.0) - jnp.log(jnp.where(near, at, 1)))
        if turn:
            return lax.complex(res.real, jnp.where(near, jnp.copysign(part, one), res.imag))
        return lax.complex(jnp.where(near, jnp.copysign(part, one), res.real), res.imag)

    return impl


def _arctan_ref(x, y):
    re, im = _rotated(_arctanh_ref)(x, y)
    # the rotation negates a NaN part (its sign bit): arctan(+-inf + i NaN) = +-pi/2 + 0i
    return re, jnp.where(jnp.isinf(x) & jnp.isnan(y), jnp.zeros_like(y), im)


def _log_fix(fn: Callable) -> Callable:
    """log(+-inf + i NaN) = log(NaN +- i inf) = inf + i NaN (jnp gives NaN + i NaN)."""

    def impl(z):
        res = fn(z)
        if z.dtype.kind != "c":
            return res
        inf = jnp.isinf(z.real) | jnp.isinf(z.imag)
        nan = jnp.isnan(z.real) | jnp.isnan(z.imag)
        r = jnp.full_like(res.real, jnp.inf)
        return jnp.where(inf & nan, lax.complex(r, jnp.full_like(r, jnp.nan)), res)

    return impl
