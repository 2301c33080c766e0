"""The legacy polynomial functions: poly, polyval, polyfit, roots, poly1d, ...

Ported from NumPy's ``numpy/lib/_polynomial_impl.py`` step by step on npjax arrays, so dtypes
follow NumPy's promotion exactly; the numeric kernels (Horner evaluation, products of linear
factors, eigenvalues of the companion matrix, least squares) are jitted JAX code. The
eigenvalue and least-squares helpers here follow ``numpy.linalg``'s dtype rules (real
eigenvalues come back real; LinAlgError for non-finite input or a singular matrix).

Differences from NumPy: eigenvalues and least-squares solutions come from XLA's LAPACK
bindings, not NumPy's, so they agree to round-off of the problem's conditioning (and a
polynomial with repeated roots has ill-conditioned roots, as in NumPy).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from numpy.exceptions import RankWarning
from numpy.linalg import LinAlgError

from npjax._runtime._errstate import _stacklevel
from npjax._calls._dispatch import npfunc, wrap
from npjax._pure import _dtypes
from npjax._pure._errors import unsupported
from npjax._pure._impl import linalg as _linalg_kernels
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._placement._route import public
from npjax._placement._made import from_device, place_made
from npjax._library._creation import array, asanyarray, asarray, ones, zeros, zeros_like
from npjax._library._joining import concatenate
from npjax._library._ranges import arange as _arange
from npjax._library._rearranging import trim_zeros
from npjax._library._shape_ops import atleast_1d
from npjax._library._sorting import sort
from npjax._runtime._context import current

# The public function (with the host route, as ``npjax.arange`` has it).
arange = public(_arange)

__all__ = ["poly", "roots", "polyint", "polyder", "polyadd", "polysub", "polymul", "polydiv",
           "polyval", "poly1d", "polyfit"]


def _coeffs(p: Any) -> Any:
    return p.coeffs if isinstance(p, poly1d | np.poly1d) else p


def _dispatch_iterable(x: Any) -> None:
    """NumPy's ``__array_function__`` dispatcher needs an iterable argument (poly, roots)."""
    try:
        iter(x)
    except TypeError:
        raise TypeError("dispatcher for __array_function__ did not return an iterable") from None


def _jx(x: Any) -> jax.Array:
    return to_jax(x, current())


# --- linear algebra with numpy.linalg's dtype rules -------------------------------------------


def _eigvals(a: jax.Array) -> jax.Array:
    """numpy.linalg.eigvals of a square matrix: real dtype when every imaginary part is 0."""
    t, result_t = _linalg_kernels.common_type(np.dtype(a.dtype))
    w, finite, all_real = _linalg_kernels.eigvals_as(a, t=t, rt=result_t)
    finite, all_real = jax.device_get((finite, all_real))  # (one transfer)
    if not finite:
        raise LinAlgError("Array must not contain infs or NaNs")
    if t.kind != "c" and all_real:
        return w.real.astype(np.finfo(result_t).dtype)
    return w.astype(np.result_type(result_t, np.complex64))


def _inv(a: jax.Array) -> jax.Array:
    """numpy.linalg.inv: LinAlgError('Singular matrix') on an exactly zero pivot."""
    t, result_t = _linalg_kernels.common_type(np.dtype(a.dtype))
    x, _, singular = _linalg_kernels.inv_as(a, t=t, rt=result_t)
    if bool(singular):
        raise LinAlgError("Singular matrix")
    return x


def _lstsq(a: jax.Array, b: jax.Array, rcond: Any) -> tuple:
    """numpy.linalg.lstsq for a 2-D ``a`` and 1-D or 2-D ``b`` (raw jax values, host rank)."""
    is_1d = b.ndim == 1
    if is_1d:
        b = b[:, None]
    m, n = a.shape
    t, result_t = _linalg_kernels.common_type(np.dtype(a.dtype), np.dtype(b.dtype))
    real_t = np.finfo(result_t).dtype
    if not bool(jnp.isfinite(a).all()) or not bool(jnp.isfinite(b).all()):
        raise LinAlgError("SVD did not converge in Linear Least Squares")
    x, resids, rank, s, _ = _linalg_kernels.lstsq_as(
        a, b, jnp.asarray(rcond, np.finfo(t).dtype), t=t, rt=result_t)
    rank = int(rank)
    if is_1d:
        x = x[:, 0]
    if rank != n or m <= n:
        resids = jnp.zeros((0,), real_t)
    return x.astype(result_t), resids.astype(real_t), rank, s.astype(real_t)


# --- the functions ----------------------------------------------------------------------------


@functools.partial(jax.jit, static_argnames=("dtype",))
def _poly_kernel(zeros: jax.Array, *, dtype: np.dtype) -> jax.Array:
    """Coefficients of prod(x - z): NumPy's repeated ``convolve(a, [1, -z])``."""
    n = zeros.shape[0]
    a = jnp.zeros((n + 1,), dtype).at[0].set(1)

    idx = jnp.arange(n + 1)

    def body(k, a):
        # Only the terms NumPy's convolve forms: a[i-1] * -z for 1 <= i <= k + 1 (so a nan or
        # inf root does not meet the zero padding).
        shifted = jnp.concatenate([jnp.zeros((1,), dtype), a[:-1]])
        term = jnp.where((idx >= 1) & (idx <= k + 1), shifted * -zeros[k], 0)
        return a + term

    return lax.fori_loop(0, n, body, a)


def _poly(seq_of_zeros: Any) -> Any:
    """npjax implementation of numpy.poly (coefficients from roots or a matrix)."""
    _dispatch_iterable(seq_of_zeros)
    seq = atleast_1d(_coeffs(seq_of_zeros))
    sh = seq.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        zeros = _eigvals(seq._read())
    elif len(sh) == 1:
        zeros = seq._read().astype(_dtypes.device_only(np.dtype(np.mintypecode(
            seq.dtype.char))))
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if zeros.shape[0] == 0:
        return 1.0
    dt = np.dtype(zeros.dtype)
    a = _poly_kernel(zeros, dtype=dt)
    if dt.kind == "c":
        r = zeros  # (NumPy's complex128 orders and compares complex64 values as they are)
        if bool(jnp.all(_lexsort_complex(r) == _lexsort_complex(jnp.conj(r)))):
            a = a.real
    return wrap(a)


def _lexsort_complex(z: jax.Array) -> jax.Array:
    return sort(wrap(z))._read()


def _roots(p: Any) -> Any:
    """npjax implementation of numpy.roots (eigenvalues of the companion matrix)."""
    _dispatch_iterable(p)
    p = atleast_1d(_coeffs(p))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    value = p._read()
    non_zero = np.asarray(jnp.flatnonzero(value))  # indices only: NumPy's eager slicing
    if len(non_zero) == 0:
        return array([])
    trailing_zeros = len(value) - int(non_zero[-1]) - 1
    value = value[int(non_zero[0]):int(non_zero[-1]) + 1]
    if value.dtype.kind not in "fc":  # (float64; HostOnly where the backend holds none)
        value = value.astype(_linalg_kernels.common_type(value.dtype)[0])
    n = value.shape[0]
    if n > 1:
        a = jnp.diag(jnp.ones((n - 2,), value.dtype), -1)
        a = a.at[0, :].set(-value[1:] / value[0])
        r = _eigvals(a)
    else:
        r = jnp.zeros((0,), np.float64)
    return wrap(jnp.concatenate([r, jnp.zeros((trailing_zeros,), r.dtype)]))


def _polyint(p: Any, m: Any = 1, k: Any = None) -> Any:
    """npjax implementation of numpy.polyint (antiderivative)."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = zeros(m, float)
    k = atleast_1d(k)
    if len(k) == 1 and m > 1:
        k = k[0] * ones(m, float)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    truepoly = isinstance(p, poly1d)
    p = asarray(_coeffs(p))
    if m == 0:
        return poly1d(p) if truepoly else p
    y = concatenate((p / arange(len(p), 0, -1), k[0:1]))
    val = _polyint(y, m - 1, k=k[1:])
    return poly1d(val) if truepoly else val


def _polyder(p: Any, m: Any = 1) -> Any:
    """npjax implementation of numpy.polyder (derivative)."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    truepoly = isinstance(p, poly1d)
    p = asarray(_coeffs(p))
    n = len(p) - 1
    y = p[:-1] * arange(n, 0, -1)
    val = p if m == 0 else _polyder(y, m - 1)
    return poly1d(val) if truepoly else val


def _polyfit(x: Any, y: Any, deg: Any, rcond: Any = None, full: bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """npjax implementation of numpy.polyfit (least-squares polynomial fit).

    Emits numpy.exceptions.RankWarning when the scaled Vandermonde matrix is rank-deficient.
    """
    order = int(deg) + 1
    x = _plus_zero(_jx(x))
    y = _plus_zero(_jx(y))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    # the fit is float64 or complex128 (``vander`` promotes x with int): where the backend
    # holds neither (a TPU, whose compiler fails on complex128 results), common_type raises
    # HostOnly: NumPy's on the host
    _linalg_kernels.common_type(np.promote_types(x.dtype, np.int64), np.dtype(y.dtype))
    if rcond is None:
        rcond = len(x) * np.finfo(x.dtype).eps
    lhs = _vander(x, order=order)
    rhs = y
    if w is not None:
        w = _plus_zero(_jx(w))
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = (lhs * w[:, None]).astype(lhs.dtype)
        rhs = (rhs * (w[:, None] if rhs.ndim == 2 else w)).astype(rhs.dtype)
    scale = jnp.sqrt((lhs * lhs).sum(axis=0))
    lhs = (lhs / scale).astype(lhs.dtype)
    c, resids, rank, s = _lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", RankWarning, stacklevel=_stacklevel())
    if full:
        rank_out = wrap(jnp.asarray(rank, np.int32), scalar=True)
        rcond_out = wrap(jnp.asarray(rcond), scalar=True) if isinstance(rcond, np.generic) \
            else rcond
        return wrap(c), wrap(resids), rank_out, wrap(s), rcond_out
    if cov:
        vbase = _inv(jnp.matmul(lhs.T, lhs, precision=lax.Precision.HIGHEST))
        vbase = vbase / jnp.outer(scale, scale)
        if cov == "unscaled":
            fac: Any = 1
        else:
            if len(x) <= order:
                raise ValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix")
            fac = resids / (len(x) - order)
        vbase = wrap(vbase)
        fac = wrap(fac) if isinstance(fac, jax.Array) else fac
        if y.ndim == 1:
            return wrap(c), vbase * fac
        return wrap(c), vbase[:, :, None] * fac
    return wrap(c)


def _plus_zero(x: jax.Array) -> jax.Array:
    """NumPy's ``asarray(x) + 0.0``: integers and booleans become float64."""
    return x.astype(np.result_type(x.dtype, 0.0)) + 0.0


@functools.partial(jax.jit, static_argnames=("order",))
def _vander(x: jax.Array, *, order: int) -> jax.Array:
    """numpy.vander(x, order): powers by repeated multiplication, highest first."""
    x = x.astype(np.promote_types(x.dtype, np.int64))
    cols = [jnp.ones_like(x)]
    for _ in range(order - 1):
        cols.append(cols[-1] * x)
    return jnp.stack(cols[::-1], axis=1)


@functools.partial(jax.jit, static_argnames=("dtype",))
def _horner(p: jax.Array, x: jax.Array, *, dtype: np.dtype) -> jax.Array:
    x = x.astype(dtype)
    p = p.astype(dtype)

    def body(i, y):
        return y * x + p[i]

    return lax.fori_loop(0, p.shape[0], body, jnp.zeros(x.shape, dtype))


def _polyval(p: Any, x: Any) -> Any:
    """npjax implementation of numpy.polyval (Horner's scheme)."""
    p = asarray(_coeffs(p))
    if isinstance(x, poly1d):
        y: Any = 0
        for pv in p:
            y = y * x + pv
        return y
    xa = asanyarray(x)
    if p.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    if p.ndim > 1:
        raise unsupported("polyval", "p", "coefficients must be 1-d")
    if len(p) == 0:
        return zeros_like(xa)
    dtype = _dtypes.device_only(np.result_type(xa.dtype, p.dtype))  # (float64 on a TPU)
    pv = p._read()
    return wrap(_horner(pv, xa._read(), dtype=dtype), scalar=True)


def _binary_setup(a1: Any, a2: Any) -> tuple[bool, Any, Any]:
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    return truepoly, atleast_1d(_coeffs(a1)), atleast_1d(_coeffs(a2))


def _pad_front(a: Any, k: int, dtype: np.dtype) -> Any:
    return concatenate((zeros(k, dtype), a))


def _polyadd(a1: Any, a2: Any) -> Any:
    """npjax implementation of numpy.polyadd."""
    truepoly, a1, a2 = _binary_setup(a1, a2)
    diff = len(a2) - len(a1)
    if diff == 0:
        val = a1 + a2
    elif diff > 0:
        val = _pad_front(a1, diff, a1.dtype) + a2
    else:
        val = a1 + _pad_front(a2, -diff, a2.dtype)
    return poly1d(val) if truepoly else val


def _polysub(a1: Any, a2: Any) -> Any:
    """npjax implementation of numpy.polysub."""
    truepoly, a1, a2 = _binary_setup(a1, a2)
    diff = len(a2) - len(a1)
    if diff == 0:
        val = a1 - a2
    elif diff > 0:
        val = _pad_front(a1, diff, a1.dtype) - a2
    else:
        val = a1 - _pad_front(a2, -diff, a2.dtype)
    return poly1d(val) if truepoly else val


def _polymul(a1: Any, a2: Any) -> Any:
    """npjax implementation of numpy.polymul."""
    from npjax._library._signal import convolve

    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    a1, a2 = poly1d(a1), poly1d(a2)
    val = convolve(a1.coeffs, a2.coeffs)
    return poly1d(val) if truepoly else val


def _polydiv(u: Any, v: Any) -> Any:
    """npjax implementation of numpy.polydiv (quotient and remainder)."""
    truepoly = isinstance(u, poly1d) or isinstance(v, poly1d)
    u = atleast_1d(_coeffs(u)) + 0.0
    v = atleast_1d(_coeffs(v)) + 0.0
    w = u[0] + v[0]
    m = len(u) - 1
    n = len(v) - 1
    scale = 1.0 / v[0]
    q = zeros((max(m - n + 1, 1),), w.dtype)
    r = u.astype(w.dtype)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] -= d * v
    while _isclose0(r[0]) and r.shape[-1] > 1:
        r = r[1:]
    if truepoly:
        return poly1d(q), poly1d(r)
    return q, r


def _isclose0(value: Any) -> bool:
    """NumPy's ``allclose(value, 0, rtol=1e-14)`` for one scalar."""
    return bool(abs(complex(value)) <= 1e-8) if value.dtype.kind == "c" else bool(
        abs(float(value)) <= 1e-8)


def _isscalar(x: Any) -> bool:
    return np.isscalar(x) or (isinstance(x, ndarray) and x._scalar)


class poly1d:
    """npjax implementation of numpy.poly1d (a one-dimensional polynomial class)."""

    __hash__ = None  # type: ignore[assignment]

    @property
    def coeffs(self) -> Any:
        """The polynomial coefficients, highest power first."""
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value: Any) -> None:
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    @property
    def variable(self) -> str:
        """The name of the polynomial variable."""
        return self._variable

    @property
    def order(self) -> int:
        """The order or degree of the polynomial."""
        return len(self._coeffs) - 1

    @property
    def roots(self) -> Any:
        """The roots of the polynomial, where self(x) == 0."""
        return _public_roots(self._coeffs)

    @property
    def _coeffs(self) -> Any:
        return self.__dict__["coeffs"]

    @_coeffs.setter
    def _coeffs(self, coeffs: Any) -> None:
        self.__dict__["coeffs"] = coeffs

    r = roots
    c = coef = coefficients = coeffs
    o = order

    def __init__(self, c_or_r: Any, r: bool = False, variable: str | None = None) -> None:
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable
            self._coeffs = c_or_r._coeffs
            if set(c_or_r.__dict__) - set(self.__dict__):
                warnings.warn("In the future extra properties will not be copied across when "
                              "constructing one poly1d from another", FutureWarning,
                              stacklevel=_stacklevel())
                self.__dict__.update(c_or_r.__dict__)
            if variable is not None:
                self._variable = variable
            return
        if r:
            c_or_r = poly(c_or_r)  # (its door: on a TPU, NumPy's poly of int roots)
        c_or_r = atleast_1d(_coeffs(c_or_r))
        if c_or_r.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c_or_r = trim_zeros(c_or_r, trim="f")
        if len(c_or_r) == 0:
            c_or_r = array([0], dtype=c_or_r.dtype)
        self._coeffs = c_or_r
        if variable is None:
            variable = "x"
        self._variable = variable

    def __array__(self, t: Any = None, copy: bool | None = None) -> np.ndarray:
        if t:
            return np.asarray(self.coeffs, t, copy=copy)
        return np.asarray(self.coeffs, copy=copy)

    def __repr__(self) -> str:
        vals = repr(self.coeffs)
        vals = vals[6:-1]
        return f"poly1d({vals})"

    def __len__(self) -> int:
        return self.order

    def __str__(self) -> str:
        # Printing is host work: NumPy's own formatter on the host copy of the coefficients.
        return str(np.poly1d(np.asarray(self.coeffs), variable=self.variable))

    def __call__(self, val: Any) -> Any:
        if isinstance(val, poly1d):  # composition (NumPy's host function would see an array)
            return _polyval(self.coeffs, val)
        return _public_polyval(self.coeffs, val)

    def __neg__(self) -> poly1d:
        return poly1d(-self.coeffs)

    def __pos__(self) -> poly1d:
        return self

    def __mul__(self, other: Any) -> poly1d:
        if _isscalar(other):
            return poly1d(self.coeffs * other)
        other = poly1d(other)
        return poly1d(_polymul(self.coeffs, other.coeffs))

    def __rmul__(self, other: Any) -> poly1d:
        if _isscalar(other):
            return poly1d(other * self.coeffs)
        other = poly1d(other)
        return poly1d(_polymul(self.coeffs, other.coeffs))

    def __add__(self, other: Any) -> poly1d:
        other = poly1d(other)
        return poly1d(_polyadd(self.coeffs, other.coeffs))

    def __radd__(self, other: Any) -> poly1d:
        other = poly1d(other)
        return poly1d(_polyadd(self.coeffs, other.coeffs))

    def __pow__(self, val: Any) -> poly1d:
        if not _isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res: Any = [1]
        for _ in range(val):
            res = _polymul(self.coeffs, res)
        return poly1d(res)

    def __sub__(self, other: Any) -> poly1d:
        other = poly1d(other)
        return poly1d(_polysub(self.coeffs, other.coeffs))

    def __rsub__(self, other: Any) -> poly1d:
        other = poly1d(other)
        return poly1d(_polysub(other.coeffs, self.coeffs))

    def __truediv__(self, other: Any) -> Any:
        if _isscalar(other):
            return poly1d(self.coeffs / other)
        other = poly1d(other)
        return _polydiv(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        if _isscalar(other):
            return poly1d(other / self.coeffs)
        other = poly1d(other)
        return _polydiv(other, self)

    def __eq__(self, other: Any) -> Any:
        if not isinstance(other, poly1d):
            return NotImplemented
        if self.coeffs.shape != other.coeffs.shape:
            return False
        return (self.coeffs == other.coeffs).all()

    def __ne__(self, other: Any) -> Any:
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val: Any) -> Any:
        ind = self.order - val
        if val > self.order or val < 0:  # NumPy's zero scalar, placed as a new value
            return place_made(self.coeffs.dtype.type(0), from_device((self.coeffs,)))
        return self.coeffs[ind]

    def __setitem__(self, key: Any, val: Any) -> None:
        ind = self.order - key
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            zr = zeros(key - self.order, self.coeffs.dtype)
            self._coeffs = concatenate((zr, self.coeffs))
            ind = 0
        self._coeffs[ind] = val

    def __iter__(self) -> Any:
        return iter(self.coeffs)

    def integ(self, m: Any = 1, k: Any = 0) -> poly1d:
        """An antiderivative (indefinite integral) of this polynomial."""
        return poly1d(_polyint(self.coeffs, m=m, k=k))

    def deriv(self, m: Any = 1) -> poly1d:
        """A derivative of this polynomial."""
        return poly1d(_polyder(self.coeffs, m=m))


# The public functions: each ``_<name>`` body behind ``npfunc``'s door (operands untagged: the
# bodies read them as NumPy's functions do, poly1d coefficients included). The bodies call
# one another, and poly1d's members call them, directly, as NumPy's code does.
poly = npfunc(_poly, name="poly")
roots = npfunc(_roots, name="roots")
polyint = npfunc(_polyint, name="polyint")
polyder = npfunc(_polyder, name="polyder")
polyfit = npfunc(_polyfit, name="polyfit")
polyval = npfunc(_polyval, name="polyval")
polyadd = npfunc(_polyadd, name="polyadd")
polysub = npfunc(_polysub, name="polysub")
polymul = npfunc(_polymul, name="polymul")
polydiv = npfunc(_polydiv, name="polydiv")
# The public functions (with the host route) that poly1d's members call.
_public_polyval, _public_roots = polyval, roots

poly1d.__module__ = "npjax"
warnings.simplefilter("always", RankWarning)
