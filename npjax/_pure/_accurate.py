"""float32 transcendental functions from operations a TPU computes exactly, as lowering rules.

XLA's TPU computes float32 ``log`` (and ``log1p``, ``tanh``, ``asinh``...) some 4000 ulps
from the correctly rounded value, ``log1p`` of the largest floats as 0, and ``rem`` of a
large quotient as 0 (``_capabilities.ACCURATE_FLOAT32`` has the measurements); NumPy's are
within an ulp or two. The functions here compute them from additions, multiplications,
comparisons, ``sqrt``, division, and integer and bit operations (exponents and mantissas
read off the bits, so subnormal inputs are exact even where the arithmetic flushes them):

- ``log``: Cephes' ``logf`` (the mantissa in [sqrt(1/2), sqrt(2)), a degree-9 polynomial);
  ``log1p`` the same polynomial at ``x`` itself near 0, else ``log(1 + x)`` plus the
  rounding of ``1 + x`` divided by it;
- ``exp``/``exp2``/``expm1``: ``x = n ln2 + r`` (Cody and Waite's two-part ``ln2``), a
  Taylor polynomial of ``expm1(r)`` and ``2 ** n`` built from its bits;
- ``tanh``, ``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``: Cephes' polynomials near 0,
  ``expm1``/``exp``/``log``/``log1p`` above (fdlibm's formulas for the inverse functions);
- ``rem`` (C's ``fmod``): exact, by binary long division of the integer mantissas;
- ``pow``: fdlibm's ``powf``, ``2 ** (y log2|x|)`` with the logarithm and the product
  carried in two floats (12-bit halves cut by bit masks, their products exact);
- complex64 ``log`` (``log|z|`` from the larger part and ``log1p``), ``log1p`` (NumPy's
  formula: ``log(hypot(1 + re, im))``) and ``pow`` (NumPy's ``npy_cpow``); ``asin``,
  ``acos``, ``asinh``, ``acosh`` (Kahan's formulas from complex square roots, ``atan2`` and
  the real ``asinh``), ``atanh`` and ``atan`` (``-i atanh(iz)``), ``tanh`` (Kahan's, as
  FreeBSD's ``ctanhf``), ``tan`` (``-i tanh(iz)``), ``exp``, ``sinh`` and ``cosh`` (on the
  real rules), with JAX's own rule for infinite and nan parts.

float16 and bfloat16 are computed in float32 and rounded back. ``install_accurate`` registers
them (``_lowerings._register``) for the platforms ``_capabilities`` names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import lax

from npjax._pure import _lowerings
from npjax._pure._impl.annex_g import _cosh_ref, _sinh_ref

_F32 = np.dtype(np.float32)
_HALF = (np.dtype(np.float16), np.dtype("bfloat16"))
_C64 = np.dtype(np.complex64)
_LN2_HI, _LN2_LO = 0.693359375, -2.12194440e-4  # ln2 = hi + lo; hi has 9 bits
_LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
          1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
          3.3333331174e-1)  # Cephes logf
_TANH_P = (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
           -3.33332819422e-1)  # Cephes tanhf, |x| < 0.625
_SINH_P = (2.03721912945e-4, 8.33028376239e-3, 1.66667160211e-1)  # Cephes sinhf, |x| <= 1
_EXPM1_T = tuple(1.0 / float(np.prod(np.arange(1, k + 1))) for k in range(10, 1, -1))


def _c(x: Any, v: float) -> Any:
    return lax.full_like(x, v)


def _poly(x: Any, coefs: tuple[float, ...]) -> Any:
    """Horner's scheme, highest coefficient first."""
    acc = _c(x, coefs[0])
    for k in coefs[1:]:
        acc = lax.add(lax.mul(acc, x), _c(x, k))
    return acc


def _bits(x: Any) -> Any:
    return lax.bitcast_convert_type(x, np.int32)


def _float(i: Any) -> Any:
    return lax.bitcast_convert_type(i, _F32)


def _pow2(n: Any) -> Any:
    """2.0 ** n (float32) for integer ``n`` in [-126, 127]."""
    return _float(lax.shift_left(lax.add(n, lax.full_like(n, 127)), lax.full_like(n, 23)))


def _log_core(e: Any, f: Any) -> Any:
    """log((1 + f) * 2 ** e), f in [sqrt(1/2) - 1, sqrt(2) - 1) (Cephes)."""
    z = lax.mul(f, f)
    y = lax.mul(lax.mul(_poly(f, _LOG_P), f), z)
    y = lax.add(y, lax.mul(e, _c(f, _LN2_LO)))
    y = lax.sub(y, lax.mul(_c(f, 0.5), z))
    return lax.add(lax.add(f, y), lax.mul(e, _c(f, _LN2_HI)))


def _log(x: Any) -> Any:
    ix = _bits(x)
    zero = lax.full_like(ix, 0)
    sub = lax.lt(ix, lax.full_like(ix, 0x00800000))  # subnormal or +-0 (or negative)
    lz = lax.sub(lax.clz(ix), lax.full_like(ix, 8))
    norm = lax.select(sub & lax.gt(ix, zero), lax.shift_left(ix, lz), ix)
    e = lax.sub(lax.shift_right_logical(norm, lax.full_like(ix, 23)), lax.full_like(ix, 126))
    e = lax.select(sub & lax.gt(ix, zero), lax.sub(e, lz), e)
    m = _float(lax.bitwise_or(lax.bitwise_and(norm, lax.full_like(ix, 0x7FFFFF)),
                              lax.full_like(ix, 0x3F000000)))  # [0.5, 1)
    low = lax.lt(m, _c(x, 0.70710677))
    e = lax.select(low, lax.sub(e, lax.full_like(e, 1)), e)
    f = lax.select(low, lax.sub(lax.add(m, m), _c(x, 1)), lax.sub(m, _c(x, 1)))
    out = _log_core(lax.convert_element_type(e, _F32), f)
    mag = lax.bitwise_and(ix, lax.full_like(ix, 0x7FFFFFFF))
    out = lax.select(lax.eq(mag, zero), _c(x, -np.inf), out)
    out = lax.select(lax.eq(ix, lax.full_like(ix, 0x7F800000)), _c(x, np.inf), out)
    bad = lax.gt(mag, lax.full_like(ix, 0x7F800000)) | (lax.lt(ix, zero) & lax.ne(mag, zero))
    return lax.select(bad, _c(x, np.nan), out)


def _log1p(x: Any) -> Any:
    one = _c(x, 1)
    u = lax.add(one, x)
    c = lax.div(lax.sub(x, lax.sub(u, one)), u)  # the rounding of 1 + x, relative
    keep = lax.is_finite(u) & lax.ne(u, lax.full_like(x, 0))
    far = lax.add(_log(u), lax.select(keep, c, lax.full_like(x, 0)))
    near = (lax.gt(x, _c(x, -0.29289323)) & lax.lt(x, _c(x, 0.41421357)))
    small = _log_core(lax.full_like(x, 0), lax.select(near, x, lax.full_like(x, 0)))
    out = lax.select(near, small, far)
    return lax.select(lax.eq(x, _c(x, 0)), x, out)  # -0.0 (and what the chip flushes)


def _exp_parts(x: Any) -> tuple[Any, Any]:
    """(n, expm1(r)) with x = n ln2 + r, |r| <= ln2 / 2, n an int32."""
    nf = lax.floor(lax.add(lax.mul(x, _c(x, 1.4426950408889634)), _c(x, 0.5)))
    r = lax.sub(lax.sub(x, lax.mul(nf, _c(x, _LN2_HI))), lax.mul(nf, _c(x, _LN2_LO)))
    em = lax.add(r, lax.mul(lax.mul(r, r), _poly(r, _EXPM1_T)))
    return lax.convert_element_type(nf, np.int32), em


def _scaled(p: Any, n: Any) -> Any:
    """p * 2 ** n in two exact steps (n in [-300, 254])."""
    half = lax.div(n, lax.full_like(n, 2))
    return lax.mul(lax.mul(p, _pow2(half)), _pow2(lax.sub(n, half)))


def _exp(x: Any) -> Any:
    xc = lax.clamp(_c(x, -104.0), x, _c(x, 89.0))
    n, em = _exp_parts(xc)
    out = _scaled(lax.add(_c(x, 1), em), n)
    out = lax.select(lax.gt(x, _c(x, 88.72284)), _c(x, np.inf), out)
    out = lax.select(lax.lt(x, _c(x, -103.97208)), _c(x, 0), out)
    return lax.select(lax.ne(x, x), x, out)


def _exp2(x: Any) -> Any:
    xc = lax.clamp(_c(x, -150.0), x, _c(x, 128.0))
    nf = lax.round(xc, lax.RoundingMethod.TO_NEAREST_EVEN)
    r = lax.mul(lax.sub(xc, nf), _c(x, 0.6931471805599453))
    em = lax.add(r, lax.mul(lax.mul(r, r), _poly(r, _EXPM1_T)))
    out = _scaled(lax.add(_c(x, 1), em), lax.convert_element_type(nf, np.int32))
    out = lax.select(lax.ge(x, _c(x, 128.0)), _c(x, np.inf), out)
    out = lax.select(lax.lt(x, _c(x, -150.0)), _c(x, 0), out)
    return lax.select(lax.ne(x, x), x, out)


def _expm1(x: Any) -> Any:
    xc = lax.clamp(_c(x, -40.0), x, _c(x, 89.0))
    n, em = _exp_parts(xc)
    t = _pow2(lax.min(n, lax.full_like(n, 24)))
    mid = lax.add(lax.sub(t, _c(x, 1)), lax.mul(t, em))  # 2**n - 1 is exact here
    big = lax.sub(_scaled(lax.add(_c(x, 1), em), n), _c(x, 1))
    out = lax.select(lax.gt(n, lax.full_like(n, 24)), big, mid)
    out = lax.select(lax.gt(x, _c(x, 88.72284)), _c(x, np.inf), out)
    tiny = lax.lt(lax.abs(x), _c(x, 2.0 ** -25))
    return lax.select(tiny | lax.ne(x, x), x, out)


def _sign_of(x: Any, v: Any) -> Any:
    """|v| with the sign bit of ``x``."""
    sign = lax.bitwise_and(_bits(x), lax.full_like(_bits(x), -0x80000000))
    return _float(lax.bitwise_or(_bits(lax.abs(v)), sign))


def _tanh(x: Any) -> Any:
    """Cephes' polynomial below 0.625; above, ``e / (e + 2)`` with ``e = expm1(2|x|)``
    (``2**n - 1 + 2**n expm1(r)``: one reduction, no overflow below the clamp at 9.2, where
    tanh rounds to 1)."""
    a = lax.min(lax.abs(x), _c(x, 9.2))
    n, em = _exp_parts(lax.add(a, a))
    t = _pow2(n)
    e = lax.add(lax.sub(t, _c(x, 1)), lax.mul(t, em))
    big = _sign_of(x, lax.div(e, lax.add(e, _c(x, 2))))
    z = lax.mul(x, x)
    small = lax.add(x, lax.mul(lax.mul(x, z), _poly(z, _TANH_P)))
    out = lax.select(lax.lt(a, _c(x, 0.625)), small, big)
    return lax.select(lax.ne(x, x) | lax.lt(a, _c(x, 2.0 ** -13)), x, out)


def _sinh_cosh(x: Any, odd: bool) -> Any:
    a = lax.abs(x)
    ac = lax.min(a, _c(x, 90.0))
    n, em = _exp_parts(ac)
    half_e = _scaled(lax.add(_c(x, 1), em), lax.sub(n, lax.full_like(n, 1)))  # e**a / 2
    inv = lax.div(_c(x, 0.25), lax.select(lax.gt(a, _c(x, 20.0)), _c(x, 1e30), half_e))
    out = lax.sub(half_e, inv) if odd else lax.add(half_e, inv)
    if odd:
        z = lax.mul(x, x)
        small = lax.add(x, lax.mul(lax.mul(x, z), _poly(z, _SINH_P)))
        out = lax.select(lax.le(a, _c(x, 1)), small, _sign_of(x, out))
        out = lax.select(lax.lt(a, _c(x, 2.0 ** -13)), x, out)
    return lax.select(lax.ne(x, x), x, out)


def _asinh(x: Any) -> Any:
    a = lax.abs(x)
    t = lax.mul(a, a)
    one = _c(x, 1)
    huge = lax.add(_log(a), _c(x, 0.6931471805599453))
    ab = lax.min(a, _c(x, 2.0 ** 28))
    big = _log(lax.add(lax.add(ab, ab), lax.div(one, lax.add(lax.sqrt(
        lax.add(lax.mul(ab, ab), one)), ab))))
    mid = _log1p(lax.add(a, lax.div(t, lax.add(one, lax.sqrt(lax.add(one, t))))))
    out = lax.select(lax.gt(a, _c(x, 2.0 ** 28)), huge, lax.select(lax.gt(a, _c(x, 2)), big,
                                                                   mid))
    out = lax.select(lax.lt(a, _c(x, 2.0 ** -12)), a, out)
    return lax.select(lax.ne(x, x), x, _sign_of(x, out))


def _acosh(x: Any) -> Any:
    one = _c(x, 1)
    huge = lax.add(_log(x), _c(x, 0.6931471805599453))
    xb = lax.clamp(one, x, _c(x, 2.0 ** 28))
    big = _log(lax.sub(lax.add(xb, xb), lax.div(one, lax.add(xb, lax.sqrt(
        lax.sub(lax.mul(xb, xb), one))))))
    t = lax.sub(xb, one)
    mid = _log1p(lax.add(t, lax.sqrt(lax.add(lax.add(t, t), lax.mul(t, t)))))
    out = lax.select(lax.gt(x, _c(x, 2.0 ** 28)), huge, lax.select(lax.gt(x, _c(x, 2)), big,
                                                                   mid))
    return lax.select(lax.lt(x, one) | lax.ne(x, x), _c(x, np.nan), out)


def _atanh(x: Any) -> Any:
    a = lax.abs(x)
    one = _c(x, 1)
    rest = lax.sub(one, a)
    t = lax.add(a, a)
    small = lax.mul(_c(x, 0.5), _log1p(lax.add(t, lax.div(lax.mul(t, a), rest))))
    big = lax.mul(_c(x, 0.5), _log1p(lax.div(t, rest)))
    out = lax.select(lax.lt(a, _c(x, 0.5)), small, big)
    out = lax.select(lax.eq(a, one), _c(x, np.inf), out)
    out = lax.select(lax.lt(a, _c(x, 2.0 ** -28)), a, out)
    return lax.select(lax.gt(a, one) | lax.ne(x, x), _c(x, np.nan), _sign_of(x, out))


def _rem(x: Any, y: Any) -> Any:
    """C's ``fmod``: exact, the sign of ``x``; binary long division of the integer
    mantissas (compare and subtract, four bits a loop step, as many steps as the largest
    exponent difference needs)."""
    ix, iy = _bits(x), _bits(y)
    k = lax.full_like(ix, 0x7FFFFFFF)
    ax, ay = lax.bitwise_and(ix, k), lax.bitwise_and(iy, k)

    def split(a: Any) -> tuple[Any, Any]:
        """(exponent, mantissa in [2**23, 2**24)) with a = mantissa * 2 ** (exponent - 150);
        subnormals normalised (exponent <= 0)."""
        e = lax.shift_right_logical(a, lax.full_like(a, 23))
        m = lax.bitwise_and(a, lax.full_like(a, 0x7FFFFF))
        lz = lax.max(lax.sub(lax.clz(m), lax.full_like(m, 8)), lax.full_like(m, 0))
        normal = lax.gt(e, lax.full_like(e, 0))
        return (lax.select(normal, e, lax.sub(lax.full_like(e, 1), lz)),
                lax.select(normal, lax.bitwise_or(m, lax.full_like(m, 0x800000)),
                           lax.shift_left(m, lz)))

    ex, mx = split(ax)
    ey, my = split(ay)

    def step(r: Any) -> Any:
        return lax.select(lax.ge(r, my), lax.sub(r, my), r)

    inf = lax.full_like(ix, 0x7F800000)
    nan = (lax.ge(ax, inf) | lax.gt(ay, inf) | lax.eq(ay, lax.full_like(ay, 0)))
    small = lax.lt(ax, ay)  # (x itself)
    steps = lax.select(nan | small, lax.full_like(ex, 0), lax.sub(ex, ey))
    most = lax.reduce_max(steps, tuple(range(steps.ndim)))

    def body(i: Any, r: Any) -> Any:
        for j in range(4):
            r = lax.select(lax.gt(steps, lax.broadcast(4 * i + j, steps.shape)),
                           step(lax.shift_left(r, lax.full_like(r, 1))), r)
        return r

    r = lax.fori_loop(np.int32(0), lax.div(lax.add(most, np.int32(3)), np.int32(4)), body,
                      step(mx))
    # r * 2 ** (ey - 150): the leading bit to bit 23, subnormal if the exponent is low
    lz = lax.sub(lax.clz(r), lax.full_like(r, 8))
    m = lax.shift_left(r, lax.max(lz, lax.full_like(lz, 0)))
    e = lax.sub(ey, lz)
    normal = lax.bitwise_or(lax.shift_left(e, lax.full_like(e, 23)),
                            lax.bitwise_and(m, lax.full_like(m, 0x7FFFFF)))
    sub = lax.shift_right_logical(m, lax.clamp(lax.full_like(e, 0), lax.sub(
        lax.full_like(e, 1), e), lax.full_like(e, 31)))
    mag = lax.select(lax.eq(r, lax.full_like(r, 0)), r,
                     lax.select(lax.ge(e, lax.full_like(e, 1)), normal, sub))
    sign = lax.bitwise_and(ix, lax.full_like(ix, -0x80000000))
    out = lax.select(small, x, _float(lax.bitwise_or(mag, sign)))
    return lax.select(nan, _c(x, np.nan), out)


def _clog(re: Any, im: Any) -> tuple[Any, Any]:
    """log|z| without overflow, cancellation near |z| = 1 kept small; and atan2."""
    k = lax.full_like(_bits(re), 0x7FFFFFFF)
    ia, ib = lax.bitwise_and(_bits(re), k), lax.bitwise_and(_bits(im), k)
    a, b = _float(ia), _float(ib)
    first = lax.ge(ia, ib)  # (on the bits: subnormals are not zeros here)
    big, small = lax.select(first, a, b), lax.select(first, b, a)
    safe = lax.select(lax.eq(big, _c(big, 0)), _c(big, 1), big)
    q = lax.div(small, safe)
    far = lax.add(_log(big), lax.mul(_c(big, 0.5), _log1p(lax.mul(q, q))))
    near_one = lax.gt(big, _c(big, 0.5)) & lax.lt(big, _c(big, 2.0))
    d = lax.add(lax.mul(lax.sub(big, _c(big, 1)), lax.add(big, _c(big, 1))),
                lax.mul(small, small))
    near = lax.mul(_c(big, 0.5), _log1p(d))
    mag = lax.select(near_one, near, far)
    mag = lax.select(lax.eq(a, _c(a, np.inf)) | lax.eq(b, _c(b, np.inf)), _c(a, np.inf), mag)
    zero = lax.eq(_bits(big), lax.full_like(_bits(big), 0))  # (not a flushed subnormal)
    mag = lax.select(zero, _c(big, -np.inf), mag)
    return mag, lax.atan2(im, re)


def _complex_log(z: Any) -> Any:
    re, im = _clog(lax.real(z), lax.imag(z))
    return lax.complex(re, im)


def _complex_log1p(z: Any) -> Any:
    """NumPy's: ``log(hypot(1 + re, im)) + 1j * atan2(im, 1 + re)``."""
    re, im = lax.add(lax.real(z), _c(lax.real(z), 1)), lax.imag(z)
    # hypot: directly where the squares neither overflow nor underflow (nearer C's hypotf,
    # correctly rounded, than the scaled form)
    big = lax.max(lax.abs(re), lax.abs(im))
    plain = lax.gt(big, _c(big, 1e-15)) & lax.lt(big, _c(big, 1e15))
    h = lax.select(plain, lax.sqrt(lax.add(lax.mul(re, re), lax.mul(im, im))),
                   _lowerings._hypot(re, im))
    return lax.complex(_log(h), lax.atan2(im, re))


def _complex_exp(z: Any) -> Any:
    """exp(x) (cos y + i sin y) on the real ``exp`` above (XLA's complex exp on the chip used
    its own: 3e-6 off at -2.5); past x = 88.7 as exp(x/2) twice, so that a result in range
    is not lost to an overflowed exp(x)."""
    x, y = lax.real(z), lax.imag(z)
    big = lax.gt(x, _c(x, 88.0))
    e = _exp(lax.select(big, lax.mul(x, _c(x, 0.5)), x))
    f = lax.select(big, e, _c(x, 1))
    re = lax.mul(lax.mul(e, lax.cos(y)), f)
    im = lax.select(lax.eq(y, _c(y, 0)), y, lax.mul(lax.mul(e, lax.sin(y)), f))
    return _finite_or_jax(z, lax.exp_p, (re, im))


def _word(w: int) -> float:
    """The float32 whose bits are ``w`` (fdlibm's constants), as a Python float."""
    return float(np.array([w], np.uint32).view(np.float32)[0])


# fdlibm's e_powf.c: log2 on [1, 1.5) pieces, 2 ** r for |r| <= 1/2
_POW_L = tuple(_word(w) for w in (0x3E53F142, 0x3E6C3255, 0x3E8BA305, 0x3EAAAAAB, 0x3EDB6DB7,
                                  0x3F19999A))  # (3/2) (log(x) - 2s - 2/3 s**3) / s**4
_POW_P = tuple(_word(w) for w in (0x3331BB4C, 0xB5DDEA0E, 0x388AB355, 0xBB360B61, 0x3E2AAAAB))
_DP_H, _DP_L = _word(0x3F15C000), _word(0x35D1CFDC)  # log2(1.5) = hi + lo
_CP, _CP_H, _CP_L = _word(0x3F76384F), _word(0x3F764000), _word(0xB8F623C6)  # 2 / (3 ln2)
_LG2, _LG2_H, _LG2_L = _word(0x3F317218), _word(0x3F317200), _word(0x35BFBE8C)  # ln2


def _head(x: Any, keep: int = -4096) -> Any:
    """x with its significand cut to 12 bits (``keep`` 0xFFFFF000; 0xFFFF8000: 9 bits), so
    that products of two such are exact."""
    return _float(lax.bitwise_and(_bits(x), lax.full_like(_bits(x), keep)))


def _log2_parts(x: Any) -> tuple[Any, Any]:
    """log2|x| = t1 + t2 to some 36 bits, t1 with 12 significant bits, for finite nonzero x
    (fdlibm's ``__ieee754_powf``: the mantissa near 1 or 1.5, s = (m - b) / (m + b) split
    in two by bit masks, and the polynomial's leading terms carried in two parts)."""
    ix = lax.bitwise_and(_bits(x), lax.full_like(_bits(x), 0x7FFFFFFF))
    sub = lax.lt(ix, lax.full_like(ix, 0x00800000))
    lz = lax.sub(lax.clz(ix), lax.full_like(ix, 8))
    norm = lax.select(sub, lax.shift_left(ix, lz), ix)
    n = lax.sub(lax.shift_right_logical(norm, lax.full_like(ix, 23)), lax.full_like(ix, 127))
    n = lax.select(sub, lax.sub(n, lz), n)
    j = lax.bitwise_and(norm, lax.full_like(ix, 0x7FFFFF))
    up = lax.ge(j, lax.full_like(j, 0x5DB3D7))  # m >= sqrt(3): m / 2, one more in n
    mid = lax.gt(j, lax.full_like(j, 0x1CC471)) & ~up  # sqrt(3/2) < m < sqrt(3): near 1.5
    n = lax.select(up, lax.add(n, lax.full_like(n, 1)), n)
    j = lax.bitwise_or(j, lax.full_like(j, 0x3F800000))
    ax = _float(lax.select(up, lax.sub(j, lax.full_like(j, 0x00800000)), j))
    zero = _c(ax, 0)
    bp = lax.select(mid, _c(ax, 1.5), _c(ax, 1))
    u = lax.sub(ax, bp)
    v = lax.div(_c(ax, 1), lax.add(ax, bp))
    s = lax.mul(u, v)
    s_h = _head(s)
    t_h = _head(lax.add(ax, bp))
    t_l = lax.sub(ax, lax.sub(t_h, bp))
    s_l = lax.mul(v, lax.sub(lax.sub(u, lax.mul(s_h, t_h)), lax.mul(s_h, t_l)))
    s2 = lax.mul(s, s)
    r = lax.mul(lax.mul(s2, s2), _poly(s2, _POW_L))
    r = lax.add(r, lax.mul(s_l, lax.add(s_h, s)))
    s2 = lax.mul(s_h, s_h)
    three = _c(ax, 3)
    t_h = _head(lax.add(lax.add(three, s2), r))
    t_l = lax.sub(r, lax.sub(lax.sub(t_h, three), s2))
    u = lax.mul(s_h, t_h)
    v = lax.add(lax.mul(s_l, t_h), lax.mul(t_l, s))
    p_h = _head(lax.add(u, v))
    p_l = lax.sub(v, lax.sub(p_h, u))
    z_h = lax.mul(_c(ax, _CP_H), p_h)
    dp_h = lax.select(mid, _c(ax, _DP_H), zero)
    z_l = lax.add(lax.add(lax.mul(_c(ax, _CP_L), p_h), lax.mul(p_l, _c(ax, _CP))),
                  lax.select(mid, _c(ax, _DP_L), zero))
    t = lax.convert_element_type(n, _F32)
    t1 = _head(lax.add(lax.add(lax.add(z_h, z_l), dp_h), t))
    t2 = lax.sub(z_l, lax.sub(lax.sub(lax.sub(t1, t), dp_h), z_h))
    return t1, t2


def _exp2_sum(p_h: Any, p_l: Any) -> Any:
    """2 ** (p_h + p_l) for |p_h + p_l| <= 160, p_h a product of two 12-bit halves (fdlibm:
    r = p_h + p_l - n cut to 9 bits times ln2 in two parts, a rational approximation)."""
    nf = lax.round(lax.add(p_h, p_l))
    p_h = lax.sub(p_h, nf)
    t = _head(lax.add(p_l, p_h), -32768)
    u = lax.mul(t, _c(t, _LG2_H))
    v = lax.add(lax.mul(lax.sub(p_l, lax.sub(t, p_h)), _c(t, _LG2)), lax.mul(t, _c(t, _LG2_L)))
    z = lax.add(u, v)
    w = lax.sub(v, lax.sub(z, u))
    t = lax.mul(z, z)
    t1 = lax.sub(z, lax.mul(t, _poly(t, _POW_P)))
    r = lax.sub(lax.div(lax.mul(z, t1), lax.sub(t1, _c(t, 2))), lax.add(w, lax.mul(z, w)))
    z = lax.sub(_c(t, 1), lax.sub(r, z))
    return _scaled(z, lax.convert_element_type(nf, np.int32))


def _pow(x: Any, y: Any) -> Any:
    """float32 ``x ** y`` for finite nonzero ``x`` and finite ``y`` (XLA's own elsewhere):
    fdlibm's ``powf``, ``2 ** (y log2|x|)`` with ``log2|x|`` and the product each carried in
    two floats split by bit masks (exact products of 12-bit halves, so the same with or
    without fused multiply-adds), the sign of an odd power of a negative x. Within 1 ulp
    of the correctly rounded value and of NumPy's ``powf`` wherever the result is a normal
    float (integer exponents of any size, |y log x| up to 88 included, on XLA's CPU and op
    by op); XLA's on the chip: 1e30 ** -1 = 9.999959e-31, 35 ulps."""
    if np.dtype(y.dtype) != np.dtype(x.dtype):
        y = lax.convert_element_type(y, x.dtype)
    t1, t2 = _log2_parts(x)
    y1 = _head(y)
    p_l = lax.add(lax.mul(lax.sub(y, y1), t1), lax.mul(y, t2))
    p_h = lax.mul(y1, t1)
    z = lax.add(p_h, p_l)
    over, under = lax.gt(z, _c(z, 160.0)), lax.lt(z, _c(z, -160.0))
    inside = ~(over | under)
    out = _exp2_sum(lax.select(inside, p_h, _c(z, 0)), lax.select(inside, p_l, _c(z, 0)))
    out = lax.select(over, _c(z, np.inf), lax.select(under, _c(z, 0), out))
    integral = lax.eq(lax.round(y), y)
    k = lax.convert_element_type(lax.min(lax.abs(y), _c(y, 2.0 ** 24)), np.int32)
    odd = integral & lax.ne(lax.bitwise_and(k, lax.full_like(k, 1)), lax.full_like(k, 0))
    sign = lax.lt(_bits(x), lax.full_like(_bits(x), 0))
    out = lax.select(sign & odd, lax.neg(out), out)
    nonzero = lax.ne(lax.bitwise_and(_bits(x), lax.full_like(_bits(x), 0x7FFFFFFF)),
                     lax.full_like(_bits(x), 0))
    usable = lax.is_finite(x) & lax.is_finite(y) & nonzero & (~sign | integral)
    return lax.select(usable, out, lax.pow(x, y))


def _cmul(ar: Any, ai: Any, br: Any, bi: Any) -> tuple[Any, Any]:
    return (lax.sub(lax.mul(ar, br), lax.mul(ai, bi)),
            lax.add(lax.mul(ar, bi), lax.mul(ai, br)))


def _complex_pow(x: Any, y: Any) -> Any:
    """NumPy's complex ``power`` (``npy_cpow``): 1 for a zero exponent, 0 or nan for a zero
    base, repeated multiplication for integer exponents in (-100, 100) (the reciprocal by
    Smith's division for negative ones), else ``exp(y * log(x))`` as C's ``cpowf``."""
    if np.dtype(y.dtype) != _C64:
        y = lax.convert_element_type(y, _C64)
    ar, ai, br, bi = lax.real(x), lax.imag(x), lax.real(y), lax.imag(y)
    zero, one = lax.full_like(ar, 0), lax.full_like(ar, 1)
    lr, li = _clog(ar, ai)
    wr, wi = _cmul(br, bi, lr, li)
    n, em = _exp_parts(lax.clamp(_c(wr, -170.0), wr, _c(wr, 170.0)))
    p = lax.add(one, em)
    gr = _scaled(lax.mul(p, lax.select(lax.eq(wi, zero), one, lax.cos(wi))), n)
    gi = lax.select(lax.eq(wi, zero), wi, _scaled(lax.mul(p, lax.sin(wi)), n))
    # integer exponents: binary powers, every product as NumPy's cmul computes it
    k = lax.convert_element_type(lax.abs(lax.clamp(_c(br, -99.0), br, _c(br, 99.0))), np.int32)
    integral = lax.eq(bi, zero) & lax.eq(lax.round(br), br) & lax.lt(lax.abs(br), _c(br, 100))
    qr, qi, pr, pi = one, zero, ar, ai
    for bit in range(7):
        on = lax.ne(lax.bitwise_and(k, lax.full_like(k, 1 << bit)), lax.full_like(k, 0))
        tr, ti = _cmul(qr, qi, pr, pi)
        qr, qi = lax.select(on, tr, qr), lax.select(on, ti, qi)
        pr, pi = _cmul(pr, pi, pr, pi)
    sr, si = _cmul(ar, ai, ar, ai)
    cr, ci = _cmul(ar, ai, sr, si)
    inv = _lowerings._divided(one, zero, qr, qi)
    ir, ii = lax.real(inv), lax.imag(inv)
    negative = lax.lt(br, zero)
    qr, qi = lax.select(negative, ir, qr), lax.select(negative, ii, qi)
    for m, (vr, vi) in ((1, (ar, ai)), (2, (sr, si)), (3, (cr, ci))):
        hit = lax.eq(br, _c(br, m))
        qr, qi = lax.select(hit, vr, qr), lax.select(hit, vi, qi)
    re, im = lax.select(integral, qr, gr), lax.select(integral, qi, gi)
    base0 = lax.eq(ar, zero) & lax.eq(ai, zero)
    nan = _c(ar, np.nan)
    re = lax.select(base0, lax.select(lax.gt(br, zero), zero, nan), re)
    im = lax.select(base0, lax.select(lax.gt(br, zero), zero, nan), im)
    exp0 = lax.eq(br, zero) & lax.eq(bi, zero)
    return lax.complex(lax.select(exp0, one, re), lax.select(exp0, zero, im))


def _csqrt(re: Any, im: Any) -> tuple[Any, Any]:
    """The principal square root's parts, its imaginary part of the sign of ``im`` (-0.0
    included: XLA's complex sqrt loses it, which moves values across the branch cuts)."""
    r = lax.sqrt(lax.complex(re, im))
    return lax.abs(lax.real(r)), _sign_of(im, lax.imag(r))


def _asin_parts(x: Any, y: Any) -> tuple[Any, Any]:
    """asin(x + iy) by Kahan's formulas (signed zeros choose the side of the cuts)."""
    one = _c(x, 1)
    ar, ai = _csqrt(lax.sub(one, x), lax.neg(y))  # sqrt(1 - z)
    br, bi = _csqrt(lax.add(one, x), y)  # sqrt(1 + z)
    re = lax.atan2(x, lax.sub(lax.mul(ar, br), lax.mul(ai, bi)))
    return re, _asinh(lax.sub(lax.mul(ar, bi), lax.mul(ai, br)))


def _complex_asin(z: Any) -> Any:
    return _finite_or_jax(z, lax.asin_p, _asin_parts(lax.real(z), lax.imag(z)))


def _complex_asinh(z: Any) -> Any:
    """asinh(z) = -i asin(iz)."""
    re, im = _asin_parts(lax.neg(lax.imag(z)), lax.real(z))
    return _finite_or_jax(z, lax.asinh_p, (im, lax.neg(re)))


def _complex_acos(z: Any) -> Any:
    x, y = lax.real(z), lax.imag(z)
    one = _c(x, 1)
    ar, ai = _csqrt(lax.sub(one, x), lax.neg(y))  # sqrt(1 - z)
    br, bi = _csqrt(lax.add(one, x), y)  # sqrt(1 + z)
    re = lax.mul(_c(x, 2), lax.atan2(ar, br))
    return _finite_or_jax(z, lax.acos_p, (re, _asinh(lax.sub(lax.mul(br, ai),
                                                                lax.mul(bi, ar)))))


def _complex_acosh(z: Any) -> Any:
    x, y = lax.real(z), lax.imag(z)
    one = _c(x, 1)
    ar, ai = _csqrt(lax.sub(x, one), y)  # sqrt(z - 1)
    br, bi = _csqrt(lax.add(x, one), y)  # sqrt(z + 1)
    re = _asinh(lax.add(lax.mul(ar, br), lax.mul(ai, bi)))
    return _finite_or_jax(z, lax.acosh_p, (re, lax.mul(_c(x, 2), lax.atan2(ai, br))))


def _tanh_parts(x: Any, y: Any) -> tuple[Any, Any]:
    """tanh(x + iy) by Kahan's formula as FreeBSD's ``ctanhf`` (``t = tan y``, ``s = sinh x``:
    ``(1 + t**2) s sqrt(1 + s**2) / d + i t / d``, ``d = 1 + (1 + t**2) s**2``), and
    ``+-1 + 4i sin y cos y exp(-2|x|)`` from |x| = 9 (XLA's own on the chip lost a tiny real
    part, tanh(1e-30 + 0.5j) = 0.546j, and gave NaN for a large one)."""
    one = _c(x, 1)
    t = lax.tan(y)
    beta = lax.add(one, lax.mul(t, t))
    sx = _sinh_cosh(lax.clamp(_c(x, -9.0), x, _c(x, 9.0)), True)
    ss = lax.mul(sx, sx)
    d = lax.add(one, lax.mul(beta, ss))
    re = lax.div(lax.mul(lax.mul(beta, sx), lax.sqrt(lax.add(one, ss))), d)
    im = lax.div(t, d)
    far = lax.ge(lax.abs(x), _c(x, 9.0))
    e = _exp(lax.neg(lax.abs(x)))
    im_far = lax.mul(lax.mul(lax.mul(_c(x, 4), lax.sin(y)), lax.cos(y)), lax.mul(e, e))
    return lax.select(far, _sign_of(x, one), re), lax.select(far, im_far, im)


def _atanh_parts(x0: Any, y0: Any) -> tuple[Any, Any]:
    """0.25 log1p(4x / ((1 - x)**2 + y**2)) + i/2 atan2(2y, (1 - x)(1 + x) - y**2) (the
    logarithms apart next to +-1, where the sum underflows), and 1/z + i pi/2 for |z| past
    1e18 (where the squares overflow)."""
    flip = lax.lt(_bits(x0), lax.full_like(_bits(x0), 0))  # atanh(-z) = -atanh(z): x >= 0
    x, y = lax.abs(x0), lax.select(flip, lax.neg(y0), y0)
    one = _c(x, 1)
    d = lax.add(lax.mul(lax.sub(one, x), lax.sub(one, x)), lax.mul(y, y))
    re = lax.mul(_c(x, 0.25), _log1p(lax.div(lax.mul(_c(x, 4), x), d)))
    # next to +-1, d underflows (atanh(1 + 1e-30j): y**2 = 0): log(4x) / 4 - log|1 - z| / 2
    near = lax.lt(d, _c(x, 2.0 ** -60))
    re = lax.select(near, lax.sub(lax.mul(_c(x, 0.25), _log(lax.mul(_c(x, 4), x))), lax.mul(
        _c(x, 0.5), _log(_lowerings._hypot(lax.sub(one, x), y)))), re)
    im = lax.mul(_c(x, 0.5), lax.atan2(lax.add(y, y), lax.sub(
        lax.mul(lax.sub(one, x), lax.add(one, x)), lax.mul(y, y))))
    big = lax.max(lax.abs(x), lax.abs(y))
    huge = lax.gt(big, _c(x, 1e18))
    # 1/z's real part x / |z|**2 with the parts scaled by 2**-k, 2**k <= |z| (exact steps: XLA
    # folds (a / b) / c into a / (b * c), which overflowed to 0 for atanh(1e30))
    k = lax.sub(lax.shift_right_logical(_bits(lax.select(huge, big, one)),
                                        lax.full_like(_bits(x), 23)), lax.full_like(_bits(x), 127))
    xs, ys = _scaled(x, lax.neg(k)), _scaled(y, lax.neg(k))
    far = _scaled(lax.div(xs, lax.add(lax.mul(xs, xs), lax.mul(ys, ys))), lax.neg(k))
    re = lax.select(huge, far, re)
    im = lax.select(huge, _sign_of(y, _c(y, np.pi / 2)), im)
    return lax.select(flip, lax.neg(re), re), lax.select(flip, lax.neg(im), im)


def _with_rotated(parts: Callable, prim: Any, rotated_prim: Any) -> tuple[Callable, Callable]:
    """The complex rules of a hyperbolic function from its ``parts(x, y)`` and of the
    trigonometric one ``-i f(iz)`` (atan from atanh, tan from tanh: XLA's own expansions
    of those on the chip were 4e-6 off at -2.5j, or lost tiny parts)."""

    def hyperbolic(z: Any) -> Any:
        return _finite_or_jax(z, prim, parts(lax.real(z), lax.imag(z)))

    def trigonometric(z: Any) -> Any:
        re, im = parts(lax.neg(lax.imag(z)), lax.real(z))
        return _finite_or_jax(z, rotated_prim, (im, lax.neg(re)))

    return hyperbolic, trigonometric


_complex_atanh, _complex_atan = _with_rotated(_atanh_parts, lax.atanh_p, lax.atan_p)
_complex_tanh, _complex_tan = _with_rotated(_tanh_parts, lax.tanh_p, lax.tan_p)


def _complex_sinh(z: Any) -> Any:
    """sinh x cos y + i cosh x sin y (``annex_g``'s formula) on the real rules (XLA's own
    complex sinh on the chip: 2.4e-6 off at 3 + 0j); cosh likewise."""
    return _finite_or_jax(z, lax.sinh_p, _sinh_ref(lax.real(z), lax.imag(z)))


def _complex_cosh(z: Any) -> Any:
    return _finite_or_jax(z, lax.cosh_p, _cosh_ref(lax.real(z), lax.imag(z)))


def _finite_or_jax(z: Any, prim: Any, parts: tuple[Any, Any]) -> Any:
    """The formula's value where both parts of ``z`` are finite, JAX's own elsewhere (C99's
    special values)."""
    finite = lax.is_finite(lax.real(z)) & lax.is_finite(lax.imag(z))
    return lax.select(finite, lax.complex(*parts), prim.bind(z))


def _in_float32(fn: Callable) -> Callable:
    """``fn`` for float16/bfloat16 operands: in float32, rounded back."""
    def rule(*xs: Any, **_: Any) -> Any:
        shape = np.broadcast_shapes(*(x.shape for x in xs))  # (size-1 axes of binary ones)
        xs = tuple(x if x.shape == shape else lax.broadcast_in_dim(
            x, shape, tuple(range(len(shape) - x.ndim, len(shape)))) for x in xs)
        dtype = np.dtype(xs[0].dtype)
        if dtype == _F32 or dtype == _C64:
            return fn(*xs)
        got = fn(*(lax.convert_element_type(x, _F32) for x in xs))
        return lax.convert_element_type(got, dtype)
    return rule


def _handles(kinds: tuple[np.dtype, ...]) -> Callable:
    def handles(avals_in: Any, avals_out: Any, params: dict) -> bool:
        return np.dtype(avals_in[0].dtype) in kinds
    return handles


def rules() -> dict:
    """Primitive -> (its dtypes here, the function of its operands)."""
    real = (_F32, *_HALF)
    both = (*real, _C64)

    def log(z: Any) -> Any:
        return _complex_log(z) if np.dtype(z.dtype) == _C64 else _log(z)

    def log1p(z: Any) -> Any:
        return _complex_log1p(z) if np.dtype(z.dtype) == _C64 else _log1p(z)

    def power(x: Any, y: Any) -> Any:
        return _complex_pow(x, y) if np.dtype(x.dtype) == _C64 else _pow(x, y)

    return {lax.log_p: (both, log), lax.log1p_p: (both, log1p),
            lax.exp_p: (real, _exp), lax.exp2_p: (real, _exp2),
            lax.expm1_p: (real, _expm1), lax.tanh_p: (real, _tanh),
            lax.sinh_p: (real, lambda x: _sinh_cosh(x, True)),
            lax.cosh_p: (real, lambda x: _sinh_cosh(x, False)),
            lax.asinh_p: (real, _asinh), lax.acosh_p: (real, _acosh),
            lax.atanh_p: (real, _atanh), lax.rem_p: (real, _rem),
            lax.pow_p: (both, power)}


def complex_rules() -> dict:
    """complex64 inverse trigonometric and hyperbolic functions (XLA expands them with its
    own log, log1p; Kahan's formulas here, on the real ``asinh`` above), tanh and tan."""
    return {lax.asin_p: _complex_asin, lax.acos_p: _complex_acos, lax.asinh_p: _complex_asinh,
            lax.acosh_p: _complex_acosh, lax.atanh_p: _complex_atanh, lax.atan_p: _complex_atan,
            lax.tanh_p: _complex_tanh, lax.tan_p: _complex_tan, lax.exp_p: _complex_exp,
            lax.sinh_p: _complex_sinh, lax.cosh_p: _complex_cosh}


def install_accurate(platforms: tuple[str, ...]) -> bool:
    """Register the functions above for their primitives' float32 (float16, bfloat16,
    complex64 where given) operands on ``platforms``."""
    mlir = _lowerings._lowering_api()
    if mlir is None:
        return False
    for prim, (kinds, fn) in rules().items():
        for platform in platforms:
            _lowerings._register(mlir, prim, platform, _handles(kinds), _in_float32(fn))
    for prim, fn in complex_rules().items():
        for platform in platforms:
            _lowerings._register(mlir, prim, platform, _handles((_C64,)), _in_float32(fn))
    return True
