"""Signal helpers: convolve, correlate, window functions, sinc, i0.

``convolve``/``correlate`` follow NumPy's C routine (``_pyarray_correlate``): the longer input
slides over the shorter one, each output element is a dot product, the result is reversed when
the inputs were swapped. The dot products are accumulated term by term in the result dtype
(integers wrap exactly as NumPy's, booleans are or-of-ands, float16 accumulates in float32 as
NumPy's ``HALF_dot``), never through a float FFT.

Differences from NumPy: NumPy's float32/float64/complex dot products go through BLAS, whose
summation order differs from the term-by-term order used here (a few ulps); for complex inputs
holding inf or NaN, BLAS's complex dot can give NaN where the plain sum gives inf.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure import _dtypes
from npjax._calls._dispatch import ArrayIn, npfunc
from npjax._pure._errors import unsupported
from npjax._core._normalize import to_jax
from npjax._runtime._context import current

__all__ = ["convolve", "correlate", "bartlett", "blackman", "hamming", "hanning", "kaiser",
           "i0", "sinc"]

_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode(mode: Any) -> int:
    if isinstance(mode, str):
        if mode not in _MODES:
            raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
        return _MODES[mode]
    try:
        value = operator.index(mode)
    except TypeError:
        raise TypeError("convolve/correlate mode must be a string or an integer") from None
    if value not in (0, 1, 2):
        raise ValueError("integer convolve/correlate mode must be 0, 1, or 2")
    return value


@functools.partial(jax.jit, static_argnames=("mode", "inverted", "dtype"))
def _correlate_kernel(p: jax.Array, q: jax.Array, *, mode: int, inverted: bool,
                      dtype: np.dtype) -> jax.Array:
    """NumPy's ``_pyarray_correlate(p, q)`` with ``len(p) >= len(q)`` (q already conjugated)."""
    n1, n2 = p.shape[0], q.shape[0]
    acc_dtype = np.dtype(np.float32) if dtype == np.float16 else dtype
    p = p.astype(acc_dtype)
    q = q.astype(acc_dtype)
    full = n1 + n2 - 1
    pad = jnp.zeros((n2 - 1,), acc_dtype)
    p_pad = jnp.concatenate([pad, p, pad])
    # full[i] = sum_j q[j] * p_pad[i + j], summed in increasing j as NumPy's dot loops. Only
    # overlapping terms count (padding times an inf or nan in q must not make a nan).
    inside = jnp.concatenate([jnp.zeros((n2 - 1,), bool), jnp.ones((n1,), bool),
                              jnp.zeros((n2 - 1,), bool)])
    if dtype == np.bool_:
        def body(j, acc):
            return acc | (lax.dynamic_slice_in_dim(p_pad, j, full) & q[j])
        acc = jnp.zeros((full,), np.bool_)
    else:
        def body(j, acc):
            term = lax.dynamic_slice_in_dim(p_pad, j, full) * q[j]
            return acc + jnp.where(lax.dynamic_slice_in_dim(inside, j, full), term, 0)
        acc = jnp.zeros((full,), acc_dtype)
    acc = lax.fori_loop(0, n2, body, acc, unroll=min(n2, 8))
    if mode == 0:
        out = acc[n2 - 1:n1]
    elif mode == 1:
        start = n2 - 1 - n2 // 2
        out = acc[start:start + n1]
    else:
        out = acc
    if inverted:
        out = out[::-1]
    return out.astype(dtype)


def _as_1d(x: Any, ndmin: bool = True) -> jax.Array:
    value = to_jax(x, current())
    if value.ndim == 0:
        if not ndmin:
            raise ValueError("object of too small depth for desired array")
        value = value.reshape(1)
    if value.ndim > 1:
        raise ValueError("object too deep for desired array")
    return value


@npfunc
def correlate(a: Any, v: Any, mode: Any = "valid") -> jax.Array:
    """npjax implementation of numpy.correlate (conjugates ``v`` for complex input)."""
    a, v = _as_1d(a, False), _as_1d(v, False)
    dtype = _dtypes.result_type(a.dtype, v.dtype)
    m = _mode(mode)
    if a.shape[0] == 0:
        raise ValueError("first array argument cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("second array argument cannot be empty")
    a, v = a.astype(dtype), v.astype(dtype)
    if dtype.kind == "c":
        v = jnp.conj(v)
    if a.shape[0] < v.shape[0]:
        return _correlate_kernel(v, a, mode=m, inverted=True, dtype=dtype)
    return _correlate_kernel(a, v, mode=m, inverted=False, dtype=dtype)


@npfunc
def convolve(a: Any, v: Any, mode: Any = "full") -> jax.Array:
    """npjax implementation of numpy.convolve (exact for integer and boolean inputs)."""
    a, v = _as_1d(a), _as_1d(v)
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    dtype = _dtypes.result_type(a.dtype, v.dtype)
    m = _mode(mode)
    return _correlate_kernel(a.astype(dtype), v[::-1].astype(dtype), mode=m, inverted=False,
                             dtype=dtype)


# --- windows ----------------------------------------------------------------------------------


def _window_args(*values: Any) -> tuple[np.ndarray, list]:
    """NumPy's ``values = np.array([0.0, M, ...])`` (scalar parameters, no array data)."""
    arr = np.array([0.0, *values])
    return arr, [arr[i + 1] for i in range(len(values))]


def _arange_len(start: Any, stop: Any, step: Any) -> int:
    """The length NumPy's float ``arange`` gives (its ValueError for a non-finite one)."""
    span = (stop - start) / step
    if not np.isfinite(span):
        raise ValueError("arange: cannot compute length")
    return max(math.ceil(span), 0)


@functools.partial(jax.jit, static_argnames=("kind", "length"))
def _window_kernel(m: jax.Array, *, kind: str, length: int) -> jax.Array:
    start = 1 - m
    delta = (start + 2) - start
    n = jnp.arange(length, dtype=m.dtype) * delta + start
    if kind == "bartlett":
        return jnp.where(n <= 0, 1 + n / (m - 1), 1 - n / (m - 1))
    if kind == "blackman":
        return (0.42 + 0.5 * jnp.cos(np.pi * n / (m - 1))
                + 0.08 * jnp.cos(2.0 * np.pi * n / (m - 1)))
    if kind == "hanning":
        return 0.5 + 0.5 * jnp.cos(np.pi * n / (m - 1))
    return 0.54 + 0.46 * jnp.cos(np.pi * n / (m - 1))


def _window(M: Any, kind: str) -> jax.Array:
    values, (m,) = _window_args(M)
    if values.dtype.kind == "c":
        raise unsupported(kind, "M", "complex window lengths")
    if m < 1:
        return jnp.zeros((0,), values.dtype)
    if m == 1:
        return jnp.ones((1,), values.dtype)
    length = _arange_len(1 - m, m, 2)
    return _window_kernel(to_jax(np.asarray(m), current()), kind=kind, length=length)


@npfunc
def bartlett(M: Any) -> jax.Array:
    """npjax implementation of numpy.bartlett (triangular window)."""
    return _window(M, "bartlett")


@npfunc
def blackman(M: Any) -> jax.Array:
    """npjax implementation of numpy.blackman."""
    return _window(M, "blackman")


@npfunc
def hamming(M: Any) -> jax.Array:
    """npjax implementation of numpy.hamming."""
    return _window(M, "hamming")


@npfunc
def hanning(M: Any) -> jax.Array:
    """npjax implementation of numpy.hanning."""
    return _window(M, "hanning")


# --- i0, kaiser, sinc -------------------------------------------------------------------------

# Cephes' Chebyshev coefficients, the same as NumPy's ``_i0A``/``_i0B``.
_I0A = [
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1]

_I0B = [
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1]


def _chbevl(x: jax.Array, vals: list) -> jax.Array:
    """NumPy's ``_chbevl`` with the same operation order (Python floats stay weak)."""
    b0: Any = vals[0]
    b1: Any = 0.0
    b2: Any = 0.0
    for i in range(1, len(vals)):
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + vals[i]
    return 0.5 * (b0 - b2)


@jax.jit
def _i0_kernel(x: jax.Array) -> jax.Array:
    x = jnp.abs(x)
    small = jnp.exp(x) * _chbevl(x / 2.0 - 2, _I0A)
    safe = jnp.where(x <= 8.0, 8.0, x).astype(x.dtype)
    large = jnp.exp(safe) * _chbevl(32.0 / safe - 2.0, _I0B) / jnp.sqrt(safe)
    return jnp.where(x <= 8.0, small, large)


def _i0(x: jax.Array) -> jax.Array:
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    return _i0_kernel(x)


@npfunc
def i0(x: ArrayIn) -> jax.Array:
    """npjax implementation of numpy.i0 (modified Bessel function of order 0)."""
    return _i0(x)


@npfunc
def kaiser(M: Any, beta: Any) -> jax.Array:
    """npjax implementation of numpy.kaiser."""
    values, (m, b) = _window_args(M, beta)
    if m == 1:
        return jnp.ones((1,), values.dtype)
    if values.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    length = _arange_len(0, m, 1)
    policy = current()
    return _kaiser_kernel(to_jax(np.asarray(m), policy), to_jax(np.asarray(b), policy),
                          length=length)


@functools.partial(jax.jit, static_argnames=("length",))
def _kaiser_kernel(m: jax.Array, beta: jax.Array, *, length: int) -> jax.Array:
    n = jnp.arange(length, dtype=m.dtype)
    alpha = (m - 1) / 2.0
    return _i0_kernel(beta * jnp.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / _i0_kernel(beta)



@jax.jit
def _sinc_kernel(x: jax.Array) -> jax.Array:
    x = np.pi * x
    eps = np.finfo(x.dtype).eps if x.dtype.kind == "f" else 1e-20
    y = jnp.where(x != 0, x, jnp.asarray(eps).astype(x.dtype))
    return jnp.sin(y) / y


@npfunc(scalar=True)
def sinc(x: ArrayIn) -> jax.Array:
    """npjax implementation of numpy.sinc (normalised sinc, sin(pi x) / (pi x))."""
    dtype = _dtypes.result_type(x.dtype, float)
    return _sinc_kernel(x.astype(dtype))
