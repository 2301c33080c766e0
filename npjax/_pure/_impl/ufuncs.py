"""Pure-JAX implementations of NumPy's ufuncs where ``jax.numpy.<name>`` is not NumPy's
(integer division by zero, shifts past the width, complex signs, divisions and powers,
branch cuts, exact integer powers, gcd/lcm...): ``IMPL_OVERRIDES`` maps a NumPy ufunc name to
its JAX function. Each gets its inputs already cast to the loop dtypes (``npjax._calls._ufuncs``).
The complex functions' special values (C99 Annex G) are ``annex_g``'s.

Moved from ``npjax/_calls/_ufuncs.py``, which holds the ufunc objects and their call path.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure._impl import exact_math
from npjax._pure._impl.annex_g import (
    _annex_g, _arctan_ref, _arctanh_ref, _cosh_ref, _exp, _log_fix, _next_to_one, _odd_conj_complex,
    _past_overflow, _rotated, _sin_ref, _sinh_ref, _tanh_ref, _turned)
from npjax._pure._impl.int_compare import exact_integers


def _int_safe(fn: Callable, zero_value: Callable) -> Callable:
    """Integer loops: NumPy gives 0 where the divisor is 0 (JAX gives -1 or garbage)."""

    def impl(x, y):
        if x.dtype.kind not in "iub":
            return fn(x, y)
        x, y = jnp.broadcast_arrays(x, y)
        zero = y == 0
        res = fn(x, jnp.where(zero, jnp.ones_like(y), y))
        if isinstance(res, tuple):
            return tuple(jnp.where(zero, jnp.zeros_like(r), r) for r in res)
        return jnp.where(zero, zero_value(x), res)

    return impl


def _zeros(x):
    return jnp.zeros_like(x)


def _fmod(x, y):
    if x.dtype.kind in "iu":
        return _int_safe(lax.rem, _zeros)(x, y)
    return jnp.fmod(x, y)


def _shift(name: str) -> Callable:
    def impl(x, y):
        bits = x.dtype.itemsize * 8
        big = (y >= bits) | (y < 0) if y.dtype.kind == "i" else y >= bits
        safe = jnp.where(big, jnp.zeros_like(y), y)
        if name == "left_shift":
            return jnp.where(big, jnp.zeros_like(x), jnp.left_shift(x, safe))
        fill = jnp.where(x < 0, -jnp.ones_like(x), jnp.zeros_like(x)) if x.dtype.kind == "i" \
            else jnp.zeros_like(x)
        return jnp.where(big, fill, jnp.right_shift(x, safe))

    return impl


def _sign(x):
    if x.dtype.kind == "c":  # NumPy 2: x / |x| part by part; one infinite part gives its
        # unit direction (whatever the other part, NaN too); a NaN part otherwise gives NaN
        xr, xi = x.real, x.imag
        mag = jnp.abs(x)
        safe = jnp.where(mag == 0, 1, mag)
        zero = jnp.zeros_like(xr)
        res = jnp.where(mag == 0, jnp.zeros_like(x), lax.complex(xr / safe, xi / safe))
        re_inf, im_inf = jnp.isinf(xr), jnp.isinf(xi)
        res = jnp.where(re_inf & ~im_inf, lax.complex(jnp.sign(xr), zero), res)
        res = jnp.where(im_inf & ~re_inf, lax.complex(zero, jnp.sign(xi)), res)
        nan = jnp.full_like(xr, jnp.nan)
        return jnp.where((re_inf & im_inf) | (~re_inf & ~im_inf & _cnan(x)),
                         lax.complex(nan, nan), res)
    if x.dtype.kind == "f":  # NumPy: sign(-0.0) is +0.0
        return jnp.where(x == 0, jnp.zeros_like(x), jnp.sign(x))
    return jnp.sign(x)


def _rounded(p):
    """``p`` itself, rounded to its dtype before any later add: XLA's CPU backend otherwise
    fuses ``a * b + c`` into one fused multiply-add, while NumPy's C loops (no FMA) round the
    product first. A select on ``p`` stands between the two (an optimization barrier does
    not: it is gone by the time LLVM contracts). A NaN keeps its sign, not its payload."""
    return jnp.where(p != p, jnp.copysign(jnp.asarray(np.nan, p.dtype), p), p)


def _cmul(a, b):
    """Complex product by the textbook formula, each product rounded (NumPy's ``nc_prod``)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    r = _rounded
    return lax.complex(r(ar * br) - r(ai * bi), r(ar * bi) + r(ai * br))


def _fused_cmul(a, b):
    """Complex product as NumPy's SIMD multiply loop computes it on CPUs with fused
    multiply-adds (x86-64 with FMA): real part ``fma(ar, br, -(ai * bi))``, imaginary part
    ``fma(ar, bi, ai * br)``, the other product rounded first. XLA contracts the unrounded
    product and the add into that fused multiply-add; its own complex multiply puts the
    other product of the imaginary part in the fma (a last-bit difference in a third of
    the products)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    q, s = _rounded(ai * bi), _rounded(ai * br)
    # a fused multiply-add of finite factors next to an infinite product gives that infinity,
    # where the overflowed product minus it gives NaN: a TPU does not contract (the chip gave
    # NaN for (-1e30 - inf j) * (1e30 + 1j), NumPy inf - inf j), so it is spelt out
    re = jnp.where(jnp.isinf(q) & jnp.isfinite(ar) & jnp.isfinite(br), -q, ar * br - q)
    im = jnp.where(jnp.isinf(s) & jnp.isfinite(ar) & jnp.isfinite(bi), s, ar * bi + s)
    return lax.complex(re, im)


def _numpy_fuses(dtype: type, a: complex, b: complex, fused: complex) -> bool:
    """Whether NumPy's multiply loop for ``dtype`` on this CPU gives ``fused`` (the fused
    multiply-add product of ``a`` and ``b``; the rounded products give another value)."""
    return bool((np.full(16, a, dtype) * np.full(16, b, dtype))[0] == dtype(fused))


# NumPy's complex multiply per dtype: fused multiply-adds (its SIMD loop on FMA CPUs) or the
# textbook formula with rounded products (``_cmul``), told by one product of each dtype.
_COMPLEX_PRODUCT = {
    np.dtype(np.complex128): _fused_cmul if _numpy_fuses(
        np.complex128, 1.0039615758421696 - 0.6179070447076008j,
        1.8220113633283233 - 1.3204309700132935j,
        1.0133258011081383 - 2.4514956143832216j) else _cmul,
    np.dtype(np.complex64): _fused_cmul if _numpy_fuses(
        np.complex64, -0.6676873 + 0.16324401j, -0.83075196 + 2.345808j,
        0.17174342 - 1.7018815j) else _cmul,
}


def _multiply(x, y):
    dtype = jnp.result_type(x, y)
    product = _COMPLEX_PRODUCT.get(np.dtype(dtype))
    if product is None:
        return jnp.multiply(x, y)
    return product(jnp.asarray(x, dtype), jnp.asarray(y, dtype))


def _cdiv(a, b):
    """Complex quotient by Smith's method, as NumPy's complex divide loop computes it."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    abr, abi = jnp.abs(br), jnp.abs(bi)
    big_r = abr >= abi
    both_zero = (abr == 0) & (abi == 0)
    rat1 = bi / jnp.where(big_r & ~both_zero, br, 1)
    r = _rounded
    scl1 = 1 / (br + r(bi * rat1))
    r1 = lax.complex((ar + r(ai * rat1)) * scl1, (ai - r(ar * rat1)) * scl1)
    r0 = lax.complex(ar / abr, ai / abi)
    rat2 = br / jnp.where(big_r, 1, bi)
    scl2 = 1 / (bi + r(br * rat2))
    r2 = lax.complex((r(ar * rat2) + ai) * scl2, (r(ai * rat2) - ar) * scl2)
    return jnp.where(big_r, jnp.where(both_zero, r0, r1), r2)


def _operands(x, y):
    """Broadcast operands behind an optimization barrier: XLA's CPU backend otherwise turns
    ``x / broadcast(y)`` into ``x * (1 / y)``, which is not correctly rounded (and gives
    inf * 0 = nan for inf / huge). XLA's TPU compiler does so for a constant divisor only:
    there the barrier hides ``y`` alone, and the operands, unmaterialised, fuse with the
    division (a barrier on the full-shape pair cost a kernel to broadcast the divisor, and
    split the division from its producers, in every loop iteration)."""
    return lax.platform_dependent(x, y, tpu=_divisor_hidden, default=_both_hidden)


def _both_hidden(x, y):
    return lax.optimization_barrier(tuple(jnp.broadcast_arrays(x, y)))


def _divisor_hidden(x, y):
    return tuple(jnp.broadcast_arrays(x, lax.optimization_barrier(y)))


def _divide(x, y):
    x, y = _operands(x, y)
    if x.dtype.kind != "c":
        return jnp.true_divide(x, y)
    return _cdiv(x, y)


def _float_divmod(a, b):
    """NumPy's npy_divmod for floats: (floor quotient, remainder), exact at the extremes."""
    a, b = _operands(a, b)
    mod = jnp.fmod(a, b)
    div = (a - mod) / b
    fix = (mod != 0) & ((b < 0) != (mod < 0))
    mod = jnp.where(mod != 0, jnp.where(fix, mod + b, mod), jnp.copysign(jnp.zeros_like(b), b))
    div = jnp.where(fix, div - 1, div)
    floordiv = jnp.floor(div)
    floordiv = jnp.where(div - floordiv > 0.5, floordiv + 1, floordiv)
    floordiv = jnp.where(div != 0, floordiv, jnp.copysign(jnp.zeros_like(div), a / b))
    zero = b == 0
    return jnp.where(zero, a / b, floordiv), jnp.where(zero, jnp.fmod(a, b), mod)


def _floor_divide(x, y):
    if x.dtype.kind == "f":
        return _float_divmod(x, y)[0]
    return _int_safe(jnp.floor_divide, _zeros)(x, y)


def _remainder(x, y):
    if x.dtype.kind == "f":
        return _float_divmod(x, y)[1]
    return _int_safe(jnp.remainder, _zeros)(x, y)


def _divmod(x, y):
    if x.dtype.kind == "f":
        return _float_divmod(x, y)
    return _int_safe(jnp.divmod, _zeros)(x, y)


def _cpow(a, b):
    """NumPy's complex power: special zeros, small integer exponents by multiplication."""
    a, b = jnp.broadcast_arrays(a, b)
    br, bi, ar, ai = b.real, b.imag, a.real, a.imag
    one = jnp.ones_like(a)
    nan = jnp.full_like(ar, jnp.nan)
    t = _cmul(b, jnp.log(a))  # C's cpow: cexp(b * clog(a)); cexp(-inf + iy) is 0 in C99
    general = jnp.where(t.real == -jnp.inf, jnp.zeros_like(a), _exp(t))
    n = jnp.where((bi == 0) & (jnp.abs(br) < 100), br, 0.0)
    is_int = (bi == 0) & (br == jnp.trunc(br)) & (jnp.abs(br) < 100)
    k = jnp.abs(n).astype(np.int32)
    aa, p = one, a
    for bit in range(7):
        aa = jnp.where(((k >> bit) & 1) == 1, _cmul(aa, p), aa)
        p = _cmul(p, p)
    # 1 behind a barrier: XLA would fold 1 * r + 0 into r, which loses NumPy's -0.0
    aa = jnp.where(br < 0, _cdiv(lax.optimization_barrier(one), aa), aa)
    sq = _cmul(a, a)
    pos = br > 0  # n = 1, 2, 3 are special-cased for positive n only
    aa = jnp.where(pos & (k == 1), a, aa)
    aa = jnp.where(pos & (k == 2), sq, aa)
    aa = jnp.where(pos & (k == 3), _cmul(a, sq), aa)
    res = jnp.where(is_int, aa, general)
    zero_a = (ar == 0) & (ai == 0)
    res = jnp.where(zero_a, jnp.where(br > 0, jnp.zeros_like(a), lax.complex(nan, nan)), res)
    return jnp.where((br == 0) & (bi == 0), one, res)


def _exp2(x):
    if x.dtype.kind != "c":
        return exact_math.exp2(x)
    ln2 = np.log(2.0)
    return _exp(lax.complex(x.real * ln2, x.imag * ln2))


def _expm1(x):
    if x.dtype.kind != "c":
        return jnp.expm1(x)
    xr, xi = x.real, x.imag
    a = jnp.sin(xi / 2)
    return lax.complex(jnp.expm1(xr) * jnp.cos(xi) - 2 * a * a, jnp.exp(xr) * jnp.sin(xi))


def _arctan2(y, x):
    """``jnp.arctan2`` with two zeros decided by a select: XLA's CPU code for atan2 folds to
    NaN when it sees two constant zeros (``npjax.jit`` compiles without XLA's constant
    folding); NumPy's ``arctan2(+-0, +0)`` is +-0 and ``arctan2(+-0, -0)`` is +-pi."""
    r = jnp.arctan2(y, x)
    y, x = y.astype(r.dtype), x.astype(r.dtype)
    pole = jnp.where(jnp.signbit(x), jnp.copysign(jnp.asarray(np.pi, r.dtype), y), y)
    return jnp.where((y == 0) & (x == 0), pole, r)


def _absolute(x):
    if x.dtype.kind == "c":  # C99 hypot: an infinite part makes the magnitude inf
        inf = jnp.isinf(x.real) | jnp.isinf(x.imag)
        return jnp.where(inf, jnp.inf, jnp.abs(x)).astype(x.real.dtype)
    return jnp.abs(x)


def _int_power(x, y):
    """Integer power by square-and-multiply in the loop dtype (wraps like NumPy's loop)."""
    if x.dtype.kind == "c":
        return _cpow(x, y)
    if x.dtype.kind == "f":
        res = jnp.power(x, y)
        if y.size == 1 and x.dtype.itemsize >= 4:
            # NumPy's float32/64 loop (POWER_FAST_PATH) answers a scalar exponent -1, 0, 0.5,
            # 1 or 2 with reciprocal, ones, sqrt, a copy or square, not C's pow: so x**2 is
            # x*x bit for bit, (-inf)**0.5 is nan and (-0.0)**0.5 is -0.0.
            e = y.reshape(())
            for value, fast in ((-1.0, lambda: 1 / x), (0.0, lambda: jnp.ones_like(x)),
                                (0.5, lambda: jnp.sqrt(x)), (1.0, lambda: x),
                                (2.0, lambda: x * x)):
                res = jnp.where(e == value, fast(), res)
        return res
    if x.dtype.kind not in "iu":
        return jnp.power(x, y)
    x, y = jnp.broadcast_arrays(x, y)

    def step(_, state):
        result, base, e = state
        result = jnp.where((e & 1) == 1, result * base, result)
        return result, base * base, e >> 1

    bits = x.dtype.itemsize * 8
    result, _, _ = lax.fori_loop(0, bits, step, (jnp.ones_like(x), x, y))
    return result


def _complex_reciprocal(x):
    """NumPy's complex reciprocal loop (Smith's method): infinities give nan+nanj there."""
    xr, xi = x.real, x.imag
    real_big = jnp.abs(xi) <= jnp.abs(xr)
    # _rounded(r): XLA would rewrite (xr / xi) / d as xr / (xi * d)
    r1 = _rounded(xi / xr)
    d1 = xr + _rounded(xi * r1)
    r2 = _rounded(xr / xi)
    d2 = _rounded(xr * r2) + xi
    return jnp.where(real_big, lax.complex(1 / d1, -r1 / d1), lax.complex(r2 / d2, -1 / d2))


def _square(x):
    """Complex square as NumPy's loop computes it: the same as its multiply loop, x * x."""
    return _multiply(x, x) if x.dtype.kind == "c" else jnp.square(x)


def _int_reciprocal(x):
    if x.dtype.kind == "c":
        return _complex_reciprocal(x)
    if x.dtype.kind not in "iub":
        return jnp.reciprocal(x)
    zero = x == 0
    # NumPy computes (type)(1.0 / x): x86 turns inf into INT_MIN for 32/64-bit ints and the
    # narrower ones keep its low bits (0).
    at_zero = np.iinfo(x.dtype).min if x.dtype.kind == "i" and x.dtype.itemsize >= 4 else 0
    return jnp.where(zero, jnp.full_like(x, at_zero), lax.div(jnp.ones_like(x),
                                                      jnp.where(zero, jnp.ones_like(x), x)))


def _modf(x):
    frac, whole = jnp.modf(x)
    if x.dtype.kind == "f":
        frac = jnp.where(jnp.isinf(x) | (frac == 0), jnp.copysign(jnp.zeros_like(x), x), frac)
    return frac, whole


def _cnan(x):
    return jnp.isnan(x.real) | jnp.isnan(x.imag)


def _cge(x, y):
    """NumPy's complex ordering: lexicographic, false with a NaN part."""
    xr, xi, yr, yi = x.real, x.imag, y.real, y.imag
    return ((xr > yr) & ~jnp.isnan(xi) & ~jnp.isnan(yi)) | ((xr == yr) & (xi >= yi))


def _cgt(x, y):
    """NumPy's complex ``>``: lexicographic, false with a NaN part."""
    xr, xi, yr, yi = x.real, x.imag, y.real, y.imag
    return ((xr > yr) & ~jnp.isnan(xi) & ~jnp.isnan(yi)) | ((xr == yr) & (xi > yi))


def _ordering(name: str) -> Callable:
    real = getattr(jnp, name)
    fn, swap = {"greater": (_cgt, False), "greater_equal": (_cge, False),
                "less": (_cgt, True), "less_equal": (_cge, True)}[name]

    def impl(x, y):
        if x.dtype.kind != "c":
            return real(x, y)
        return fn(y, x) if swap else fn(x, y)

    return impl


def _logaddexp2(x, y):
    """NumPy's: equal operands give x + 1 exactly (infinities of one sign too)."""
    return jnp.where(x == y, x + 1, jnp.logaddexp2(x, y))


def _extreme(name: str) -> Callable:
    real = getattr(jnp, name)
    is_max = name in ("maximum", "fmax")
    propagate = name in ("maximum", "minimum")

    def impl(x, y):
        if x.dtype.kind != "c":
            return real(x, y)
        x, y = jnp.broadcast_arrays(x, y)
        pick_x = _cge(x, y) if is_max else _cge(y, x)
        pick_x = pick_x | (_cnan(x) if propagate else _cnan(y))
        return jnp.where(pick_x, x, y)

    return impl


def _truth(x):
    return x if x.dtype == np.bool_ else x != 0


def _logical(fn: Callable) -> Callable:
    return lambda *xs: fn(*[_truth(x) for x in xs])


def _conj_symmetric(fn: Callable) -> Callable:
    """f(conj z) = conj f(z): evaluate on the upper half plane so that a signed-zero
    imaginary part picks NumPy's (C99) side of the branch cut."""

    def impl(z):
        if z.dtype.kind != "c":
            return fn(z)
        w = fn(lax.complex(z.real, jnp.abs(z.imag)))
        return jnp.where(jnp.signbit(z.imag), jnp.conj(w), w)

    return impl


def _arcsinh(z):
    """asinh is odd: for x < 0 (also -0.0), asinh(x + iy) = -asinh(|x| - iy)."""
    if z.dtype.kind != "c":
        return jnp.arcsinh(z)
    neg = jnp.signbit(z.real)
    w = _conj_symmetric(jnp.arcsinh)(lax.complex(jnp.abs(z.real),
                                                 jnp.where(neg, -z.imag, z.imag)))
    return jnp.where(neg, -w, w)


def _sqrt(z):
    res = _conj_symmetric(jnp.sqrt)(z)
    if z.dtype.kind != "c":
        return res
    x, y = z.real, z.imag
    inf, nan = jnp.full_like(x, jnp.inf), jnp.full_like(x, jnp.nan)
    res = jnp.where(x == jnp.inf, lax.complex(inf, jnp.where(jnp.isnan(y), nan, res.imag)),
                    res)  # sqrt(inf + i NaN) = inf + i NaN
    res = jnp.where(x == -jnp.inf, lax.complex(jnp.where(jnp.isnan(y), nan, res.real),
                                               jnp.where(jnp.isnan(y), inf, res.imag)), res)
    return jnp.where(jnp.isinf(y), lax.complex(inf, y), res)  # sqrt(x +- i inf) = inf +- i inf


def _nan_fix(fn: Callable, cases: Callable) -> Callable:
    """``fn`` with Annex G's results where one part is NaN (``cases(x, y, res)``)."""

    def impl(z):
        res = fn(z)
        if z.dtype.kind != "c":
            return res
        re, im = cases(z.real, z.imag, res.real, res.imag)
        return lax.complex(re, im)

    return impl


def _asinh_nan(x, y, re, im):
    nan = jnp.full_like(x, jnp.nan)
    # asinh(NaN + i0) = NaN + i0; asinh(NaN + iy), y finite nonzero: NaN + i NaN
    fx = jnp.isnan(x) & jnp.isfinite(y)
    return (jnp.where(fx, nan, re), jnp.where(fx, jnp.where(y == 0, y, nan), im))


def _asin_nan(x, y, re, im):
    nan = jnp.full_like(x, jnp.nan)
    fy = jnp.isnan(y) & jnp.isfinite(x)  # asin(+-0 + i NaN) = +-0 + i NaN
    return (jnp.where(fy, jnp.where(x == 0, x, nan), re), jnp.where(fy, nan, im))


def _acos_nan(x, y, re, im):
    nan = jnp.full_like(x, jnp.nan)
    fy = jnp.isnan(y) & jnp.isfinite(x)  # acos(+-0 + i NaN) = pi/2 + i NaN
    return (jnp.where(fy, jnp.where(x == 0, np.pi / 2, nan), re), jnp.where(fy, nan, im))


def _acosh_nan(x, y, re, im):
    nan = jnp.full_like(x, jnp.nan)
    fy = jnp.isnan(y) & jnp.isfinite(x)  # acosh(+-0 + i NaN) = NaN + i pi/2
    return (jnp.where(fy, nan, re), jnp.where(fy, jnp.where(x == 0, np.pi / 2, nan), im))



def _as_unsigned_abs(x):
    """|x| in the unsigned twin dtype, wrapping like C's ``(unsigned)(x < 0 ? -x : x)``."""
    if x.dtype.kind == "u":
        return x
    u = np.dtype(f"uint{x.dtype.itemsize * 8}")
    return lax.bitcast_convert_type(jnp.where(x < 0, -x, x), u)


def _gcd_unsigned(a, b):
    """Euclid with a fixed number of steps (enough for the bit width; no data-dependent loop)."""
    def step(_, state):
        a, b = state
        nz = b != 0
        return jnp.where(nz, b, a), jnp.where(nz, a % jnp.where(nz, b, 1), b)

    steps = a.dtype.itemsize * 8 * 3 // 2 + 2
    return lax.fori_loop(0, steps, step, (a, b))[0]


def _gcd(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    g = _gcd_unsigned(_as_unsigned_abs(x), _as_unsigned_abs(y))
    return g if x.dtype.kind == "u" else lax.bitcast_convert_type(g, x.dtype)


def _lcm(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    a, b = _as_unsigned_abs(x), _as_unsigned_abs(y)
    g = _gcd_unsigned(a, b)
    res = jnp.where(g == 0, jnp.zeros_like(a), a // jnp.where(g == 0, 1, g) * b)
    return res if x.dtype.kind == "u" else lax.bitcast_convert_type(res, x.dtype)


def _float_power(x, y):
    return _cpow(x, y) if x.dtype.kind == "c" else jnp.float_power(x, y)


def _spacing(x):
    res = jnp.where(x == 0, jnp.spacing(jnp.zeros_like(x)), jnp.spacing(x))  # -0: NumPy's +
    return jnp.where(jnp.isinf(x), jnp.full_like(x, jnp.nan), res)


_HIGHEST = jax.lax.Precision.HIGHEST  # full float32 products on GPUs too (no TF32)

def _domain_nan(name: str, probe: float, fn: Callable | None = None) -> Callable:
    """``jnp.<name>`` with the NaN it makes of a number outside its domain signed as NumPy's
    loop signs it on this CPU (x86-64: -nan, the default NaN of an invalid operation; XLA's
    own gives +nan), told by NumPy's result at ``probe``."""
    fn = fn or getattr(jnp, name)
    with np.errstate(all="ignore"):
        negative = bool(np.signbit(getattr(np, name)(np.array([probe]))[0]))

    def impl(x):
        res = fn(x)
        if res.dtype.kind != "f":
            return res
        nan = jnp.copysign(jnp.asarray(np.nan, res.dtype), -1.0 if negative else 1.0)
        return jnp.where(jnp.isnan(res) & ~jnp.isnan(x), nan, res)

    return impl


IMPL_OVERRIDES: dict[str, Callable] = {
    "log": _log_fix(_domain_nan("log", -1.0)),
    "log2": _log_fix(_domain_nan("log2", -1.0)),
    "log10": _log_fix(_domain_nan("log10", -1.0)),
    "log1p": _log_fix(_domain_nan("log1p", -2.0, exact_math.log1p)),
    "arctanh": _next_to_one(_annex_g(_odd_conj_complex(_domain_nan(
        "arctanh", 2.0, exact_math.arctanh)), _arctanh_ref)),
    "arctan": _next_to_one(_annex_g(_odd_conj_complex(jnp.arctan), _arctan_ref), turn=True),
    "exp": _exp,
    "arctan2": _arctan2,
    "sinh": _past_overflow(_annex_g(jnp.sinh, _sinh_ref), odd=True),
    "cosh": _past_overflow(_annex_g(jnp.cosh, _cosh_ref), odd=False),
    "tanh": _annex_g(jnp.tanh, _tanh_ref, values=False),
    "sin": _past_overflow(_annex_g(jnp.sin, _sin_ref), odd=True, turn=True),
    "cos": _past_overflow(_annex_g(jnp.cos, _turned(_cosh_ref)), odd=False, turn=True),
    "tan": _annex_g(jnp.tan, _rotated(_tanh_ref), values=False),
    "matmul": lambda a, b: jnp.matmul(a, b, precision=_HIGHEST),
    "vecdot": lambda a, b: jnp.vecdot(a, b, precision=_HIGHEST),
    "matvec": lambda a, b: jnp.matmul(a, b[..., None], precision=_HIGHEST)[..., 0],
    "vecmat": lambda a, b: jnp.matmul(jnp.conj(a)[..., None, :], b,
                                      precision=_HIGHEST)[..., 0, :],
    "spacing": _spacing,
    "float_power": _float_power,
    "divide": _divide,
    "multiply": _multiply,
    "exp2": _exp2,
    "expm1": _expm1,
    "gcd": _gcd,
    "lcm": _lcm,
    "sqrt": _sqrt,
    "arcsin": _nan_fix(_conj_symmetric(jnp.arcsin), _asin_nan),
    "arccos": _nan_fix(_conj_symmetric(jnp.arccos), _acos_nan),
    "arccosh": _nan_fix(_conj_symmetric(jnp.arccosh), _acosh_nan),
    "arcsinh": _nan_fix(_arcsinh, _asinh_nan),
    "power": _int_power,
    "reciprocal": _int_reciprocal,
    "square": _square,
    "modf": _modf,
    "maximum": _extreme("maximum"),
    "minimum": _extreme("minimum"),
    "fmax": _extreme("fmax"),
    "fmin": _extreme("fmin"),
    "greater": exact_integers("greater", _ordering("greater")),
    "greater_equal": exact_integers("greater_equal", _ordering("greater_equal")),
    "less": exact_integers("less", _ordering("less")),
    "less_equal": exact_integers("less_equal", _ordering("less_equal")),
    "equal": exact_integers("equal", jnp.equal),
    "not_equal": exact_integers("not_equal", jnp.not_equal),
    "logaddexp2": _logaddexp2,
    "logical_and": _logical(jnp.logical_and),
    "logical_or": _logical(jnp.logical_or),
    "logical_xor": _logical(jnp.logical_xor),
    "logical_not": _logical(jnp.logical_not),
    "floor_divide": _floor_divide,
    "remainder": _remainder,
    "divmod": _divmod,
    "fmod": _fmod,
    "left_shift": _shift("left_shift"),
    "right_shift": _shift("right_shift"),
    "sign": _sign,
    "absolute": _absolute,
}
