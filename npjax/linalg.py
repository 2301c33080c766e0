"""npjax.linalg: numpy.linalg on JAX.

Every function follows NumPy 2's ``numpy.linalg``: the same result types (NumPy's own
``EigResult``, ``EighResult``, ``SVDResult``, ``QRResult``, ``SlogdetResult``), dtypes (integer
and boolean inputs give float64, float32 stays float32, complex stays complex, ``eig`` is real
when every eigenvalue is), batching over leading dimensions and ``LinAlgError`` (NumPy's own
class) where NumPy raises it. As NumPy does, every float type is computed in double precision
and the result cast back, so float32 results are NumPy's to the last bit or two.

Differences from NumPy:
- Data-dependent errors (singular ``inv``/``solve``/``tensorinv``/``tensorsolve``/negative
  ``matrix_power``, non-positive-definite ``cholesky``, NaN input to SVD-based functions and
  to ``eig``/``eigvals``) cost one device-to-host transfer of a flag per call. ``eig``/
  ``eigvals`` of real input read one more flag (are all eigenvalues real), ``lstsq`` reads its
  rank, ``matrix_rank`` of a 0-d/1-d input reads one boolean.
- LAPACK's non-convergence of ``eig``/``eigh`` (which practically never happens for finite
  input) is not detected; ``eigh``/``eigvalsh`` of input holding NaN give JAX's values (NumPy
  gives LAPACK's arbitrary ones). Singular vectors and eigenvectors are unique only up to
  sign/phase; JAX's LAPACK calls usually agree with NumPy's, GPU solvers may not.
- ``qr(mode='raw')`` of empty input and the deprecated modes are computed as NumPy does, but
  ``qr``'s Householder signs come from the backend (CPU: LAPACK, as NumPy).
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg._linalg import EighResult, EigResult, QRResult, SlogdetResult, SVDResult

from npjax._errstate import _stacklevel
from npjax import _products
from npjax._dispatch import wrap
from npjax._errors import HostOnly
from npjax._fallback import call_numpy
from npjax._impl import linalg as _k
from npjax._ndarray import ndarray, normalize_axis
from npjax._normalize import to_jax
from npjax import _context
from npjax._context import current

__all__ = [
    "matrix_power", "solve", "tensorsolve", "tensorinv", "inv", "cholesky", "eigvals",
    "eigvalsh", "pinv", "slogdet", "det", "svd", "svdvals", "eig", "eigh", "lstsq", "norm",
    "qr", "cond", "matrix_rank", "LinAlgError", "multi_dot", "trace", "diagonal", "cross",
    "outer", "tensordot", "matmul", "matrix_transpose", "matrix_norm", "vector_norm", "vecdot",
]

_NoValue = np._NoValue
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_REAL = {_F32: _F32, _F64: _F64, _C64: _F32, _C128: _F64}
_COMPLEX = {_F32: _C64, _F64: _C128, _C64: _C64, _C128: _C128}


# --- NumPy's argument rules ------------------------------------------------------------------

def _arr(x: Any) -> jax.Array:
    return to_jax(x, current())


def _common_type(*dtypes: np.dtype) -> tuple[np.dtype, np.dtype]:
    """(compute dtype, result dtype) as NumPy's ``_commonType``: double compute, single
    result only when every input is single precision."""
    single, is_complex = True, False
    for dt in dtypes:
        dt = np.dtype(dt)
        if dt.kind in "fc":
            is_complex |= dt.kind == "c"
            real = _REAL.get(dt)
            if real is None:
                raise TypeError(f"array type {dt.name} is unsupported in linalg")
            if real == _F64:
                single = False
        elif dt.kind in "biu":
            single = False
        else:
            raise TypeError(f"Cannot cast ufunc 'linalg' input from {dt!r} to "
                            "dtype('float64') with casting rule 'same_kind'")
    result = _F32 if single else _F64
    if is_complex:
        return _C128, _COMPLEX[result]
    return _F64, result


def _check_stacked_2d(a: jax.Array) -> None:
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")


def _check_square(a: jax.Array) -> None:
    _check_stacked_2d(a)
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


def _check_2d(*arrays: jax.Array) -> None:
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be "
                              "two-dimensional")


def _flag(x: jax.Array) -> bool:
    """A data-dependent condition NumPy raises on: one device-to-host transfer, or inside
    ``npjax.jit`` a device-side check (the call then reruns eagerly and raises here)."""
    if isinstance(x, jax.core.Tracer):
        tr = _context.trace()
        if tr is not None:
            tr.check(jnp.any(x))
            return False
    return bool(x)


def _out(x: Any) -> Any:
    return wrap(x, True)


# --- factorizations and solvers (jax.Array level, raising as NumPy) --------------------------

def _inv(a: jax.Array) -> jax.Array:
    _check_square(a)
    t, rt = _common_type(a.dtype)
    x, _, singular = _k.inv(a.astype(t))
    if _flag(singular):
        raise LinAlgError("Singular matrix")
    return x.astype(rt)


def _svdvals(a: jax.Array) -> jax.Array:
    _check_stacked_2d(a)
    t, rt = _common_type(a.dtype)
    s, bad = _k.svd(a.astype(t), full_matrices=False, compute_uv=False)
    if _flag(bad):
        raise LinAlgError("SVD did not converge")
    return s.astype(_REAL[rt])


def _svd(a: jax.Array, full_matrices: bool = True, hermitian: bool = False) -> tuple:
    if hermitian:
        _check_square(a)
        t, rt = _common_type(a.dtype)
        u, s, vt = _k.svd_hermitian(a.astype(t))
        return u.astype(rt), s.astype(_REAL[rt]), vt.astype(rt)
    _check_stacked_2d(a)
    t, rt = _common_type(a.dtype)
    u, s, vh, bad = _k.svd(a.astype(t), full_matrices=bool(full_matrices), compute_uv=True)
    if _flag(bad):
        raise LinAlgError("SVD did not converge")
    return u.astype(rt), s.astype(_REAL[rt]), vh.astype(rt)


def _svdvals_any(a: jax.Array, hermitian: bool) -> jax.Array:
    if hermitian:
        _check_square(a)
        t, rt = _common_type(a.dtype)
        return _k.svdvals_hermitian(a.astype(t)).astype(_REAL[rt])
    return _svdvals(a)


def inv(a: Any) -> ndarray:
    """npjax implementation of numpy.linalg.inv."""
    return _out(_inv(_arr(a)))


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
    x, singular = _k.solve(aa.astype(t), bb.astype(t))
    if _flag(singular):
        raise LinAlgError("Singular matrix")
    if b.ndim == 1:
        x = x[..., 0]
    return _out(x.astype(rt))


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


def cholesky(a: Any, /, *, upper: bool = False) -> ndarray:
    """npjax implementation of numpy.linalg.cholesky (reads one triangle, as LAPACK)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    c, failed = _k.cholesky(a.astype(t), upper=bool(upper))
    if _flag(failed):
        raise LinAlgError("Matrix is not positive definite")
    return _out(c.astype(rt))


def qr(a: Any, mode: str = "reduced") -> Any:
    """npjax implementation of numpy.linalg.qr."""
    import warnings

    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full"):
            msg = ("The 'full' option is deprecated in favor of 'reduced'.\n"
                   "For backward compatibility let mode default.")
            warnings.warn(msg, DeprecationWarning, stacklevel=_stacklevel())
            mode = "reduced"
        elif mode in ("e", "economic"):
            warnings.warn("The 'economic' option is deprecated.", DeprecationWarning,
                          stacklevel=_stacklevel())
            mode = "economic"
        else:
            raise ValueError(f"Unrecognized mode '{mode}'")
    a = _arr(a)
    _check_stacked_2d(a)
    t, rt = _common_type(a.dtype)
    a = a.astype(t)
    if mode in ("raw", "economic"):
        m, n = a.shape[-2:]
        if a.size == 0:
            h, tau = a, jnp.zeros((*a.shape[:-2], min(m, n)), t)
        else:
            h, tau = _k.qr(a, mode="raw")
        if mode == "economic":
            return _out(h.astype(rt))
        return (_out(jnp.swapaxes(h, -1, -2).astype(rt)), _out(tau.astype(rt)))
    if mode == "r":
        (r,) = _k.qr(a, mode="r")
        return _out(r.astype(rt))
    q, r = _k.qr(a, mode=mode)
    return QRResult(_out(q.astype(rt)), _out(r.astype(rt)))


def _eig_result(w: jax.Array, all_real: jax.Array, rt: np.dtype, real_input: bool) -> tuple:
    if real_input and _flag(all_real):
        return _REAL[rt], True
    return _COMPLEX[rt], False


def eig(a: Any) -> EigResult:
    """npjax implementation of numpy.linalg.eig (real result when every eigenvalue is)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    w, v, finite, all_real = _k.eig(a.astype(t))
    if not isinstance(finite, jax.core.Tracer):  # one transfer for both flags
        finite, all_real = jax.device_get((finite, all_real))
    if _flag(jnp.logical_not(finite)):
        raise LinAlgError("Array must not contain infs or NaNs")
    out_t, real = _eig_result(w, all_real, rt, t.kind == "f")
    if real:
        w, v = w.real, v.real
    return EigResult(_out(w.astype(out_t)), _out(v.astype(out_t)))


def eigvals(a: Any) -> ndarray:
    """npjax implementation of numpy.linalg.eigvals."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    w, finite, all_real = _k.eigvals(a.astype(t))
    if not isinstance(finite, jax.core.Tracer):  # one transfer for both flags
        finite, all_real = jax.device_get((finite, all_real))
    if _flag(jnp.logical_not(finite)):
        raise LinAlgError("Array must not contain infs or NaNs")
    out_t, real = _eig_result(w, all_real, rt, t.kind == "f")
    return _out((w.real if real else w).astype(out_t))


def _uplo(UPLO: str) -> bool:
    UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "L"


def eigh(a: Any, UPLO: str = "L") -> EighResult:
    """npjax implementation of numpy.linalg.eigh (reads the ``UPLO`` triangle only)."""
    lower = _uplo(UPLO)
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    w, v = _k.eigh(a.astype(t), lower=lower, vectors=True)
    return EighResult(_out(w.astype(_REAL[rt])), _out(v.astype(rt)))


def eigvalsh(a: Any, UPLO: str = "L") -> ndarray:
    """npjax implementation of numpy.linalg.eigvalsh."""
    lower = _uplo(UPLO)
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    (w,) = _k.eigh(a.astype(t), lower=lower, vectors=False)
    return _out(w.astype(_REAL[rt]))


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """npjax implementation of numpy.linalg.svd."""
    a = _arr(a)
    if not compute_uv:
        return _out(_svdvals_any(a, hermitian))
    u, s, vh = _svd(a, full_matrices, hermitian)
    return SVDResult(_out(u), _out(s), _out(vh))


def svdvals(x: Any, /) -> ndarray:
    """npjax implementation of numpy.linalg.svdvals."""
    return _out(_svdvals(_arr(x)))


def slogdet(a: Any) -> SlogdetResult:
    """npjax implementation of numpy.linalg.slogdet (singular: sign 0, logabsdet -inf)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    sign, logdet = _k.slogdet(a.astype(t))
    return SlogdetResult(_out(sign.astype(rt)), _out(logdet.astype(_REAL[rt])))


def det(a: Any) -> Any:
    """npjax implementation of numpy.linalg.det (sign * exp(log|det|), as NumPy)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    return _out(_k.det(a.astype(t)).astype(rt))


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
    x, resids, rank, s, bad = _k.lstsq(a.astype(t), b.astype(t),
                                      jnp.asarray(float(rcond), _F64))
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


# --- norms, condition number, rank, pseudo-inverse -------------------------------------------

def _zero_size_check(shape: tuple, axis: int, name: str) -> None:
    if shape[axis] == 0:
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         "identity")


def _norm(x: jax.Array, ord: Any, axis: Any, keepdims: bool) -> jax.Array:
    """numpy.linalg.norm on a jax.Array: one compiled kernel per (ord, axis, keepdims); SVD
    based orders read one flag (NaN input: LinAlgError, as NumPy's SVD)."""
    if x.dtype.kind not in "fc":
        x = x.astype(_F64)
    try:
        key = (ord, axis, keepdims)
        hash(key)
    except TypeError:
        key = None
    if key is None:
        ret, bad = _norm_kernel(x, ord=ord, axis=axis, keepdims=keepdims)
    else:
        ret, bad = _norm_jit(*key)(x)
    if bad is not None and _flag(bad):
        raise LinAlgError("SVD did not converge")
    return ret


@functools.lru_cache(maxsize=512)
def _norm_jit(ord: Any, axis: Any, keepdims: bool) -> Any:
    return jax.jit(functools.partial(_norm_kernel, ord=ord, axis=axis, keepdims=keepdims))


def _norm_kernel(x: jax.Array, *, ord: Any, axis: Any, keepdims: bool) -> tuple:
    """(norm, NaN-for-SVD flag or None); float16 is computed in float32, rounded once."""
    res_t = np.dtype(x.real.dtype)
    orig = np.dtype(x.dtype)
    if res_t == np.float16:
        x = x.astype(_F32)
    flags: list = []
    ret = _norm_core(x, ord, axis, keepdims, orig, flags)
    return ret.astype(res_t), (flags[0] if flags else None)


def _svdvals_traced(y: jax.Array, orig: np.dtype, flags: list) -> jax.Array:
    t, rt = _common_type(orig)
    s, bad = _k.svd(y.astype(t), full_matrices=False, compute_uv=False)
    flags.append(bad)
    return s.astype(_REAL[rt])


def _norm_core(x: jax.Array, ord: Any, axis: Any, keepdims: bool, orig: np.dtype,
               flags: list) -> jax.Array:
    nd = x.ndim
    if axis is None:
        if ord is None or (_is_str(ord) and ord in ("f", "fro") and nd == 2) or (
                _eq(ord, 2) and nd == 1):
            ret = jnp.sqrt(jnp.sum((jnp.conj(x) * x).real))
            return ret.reshape((1,) * nd) if keepdims else ret
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = int(axis)
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
        axis = (axis,)
    if len(axis) == 1:
        ax = normalize_axis(axis[0], nd)
        if _eq(ord, np.inf):
            return jnp.max(jnp.abs(x), axis=ax, keepdims=keepdims, initial=0)
        if _eq(ord, -np.inf):
            _zero_size_check(x.shape, ax, "minimum")
            return jnp.min(jnp.abs(x), axis=ax, keepdims=keepdims)
        if _eq(ord, 0):
            return jnp.sum((x != 0).astype(x.real.dtype), axis=ax, keepdims=keepdims)
        if _eq(ord, 1):
            return jnp.sum(jnp.abs(x), axis=ax, keepdims=keepdims)
        if ord is None or _eq(ord, 2):
            return jnp.sqrt(jnp.sum((jnp.conj(x) * x).real, axis=ax, keepdims=keepdims))
        if _is_str(ord):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        absx = jnp.abs(x)
        ret = jnp.sum(absx ** jnp.asarray(ord, absx.dtype), axis=ax, keepdims=keepdims)
        return ret ** (1 / jnp.asarray(ord, ret.dtype))
    if len(axis) == 2:
        row_axis = normalize_axis(axis[0], nd)
        col_axis = normalize_axis(axis[1], nd)
        if row_axis == col_axis:
            raise ValueError("Duplicate axes given.")
        ax = (row_axis, col_axis)
        if _eq(ord, 2) or _eq(ord, -2):
            s = _svdvals_traced(jnp.moveaxis(x, ax, (-2, -1)), orig, flags)
            if _eq(ord, 2):
                ret = jnp.max(s, axis=-1, initial=0)
            else:
                _zero_size_check(s.shape, -1, "minimum")
                ret = jnp.min(s, axis=-1)
        elif _eq(ord, 1) or _eq(ord, -1):
            c = col_axis - 1 if col_axis > row_axis else col_axis
            colsum = jnp.sum(jnp.abs(x), axis=row_axis)
            if _eq(ord, 1):
                ret = jnp.max(colsum, axis=c, initial=0)
            else:
                _zero_size_check(colsum.shape, c, "minimum")
                ret = jnp.min(colsum, axis=c)
        elif _eq(ord, np.inf) or _eq(ord, -np.inf):
            r = row_axis - 1 if row_axis > col_axis else row_axis
            rowsum = jnp.sum(jnp.abs(x), axis=col_axis)
            if _eq(ord, np.inf):
                ret = jnp.max(rowsum, axis=r, initial=0)
            else:
                _zero_size_check(rowsum.shape, r, "minimum")
                ret = jnp.min(rowsum, axis=r)
        elif ord is None or (_is_str(ord) and ord in ("fro", "f")):
            ret = jnp.sqrt(jnp.sum((jnp.conj(x) * x).real, axis=ax))
        elif _is_str(ord) and ord == "nuc":
            s = _svdvals_traced(jnp.moveaxis(x, ax, (-2, -1)), orig, flags)
            ret = jnp.sum(s, axis=-1)
        else:
            raise ValueError("Invalid norm order for matrices.")
        if keepdims:
            shape = list(x.shape)
            shape[axis[0]] = 1
            shape[axis[1]] = 1
            ret = ret.reshape(shape)
        return ret
    raise ValueError("Improper number of dimensions to norm.")


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _eq(ord: Any, value: Any) -> bool:
    return not isinstance(ord, str) and ord is not None and bool(ord == value)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """npjax implementation of numpy.linalg.norm."""
    return _out(_norm(_arr(x), ord, axis, keepdims))


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """npjax implementation of numpy.linalg.matrix_norm."""
    return norm(x, axis=(-2, -1), keepdims=keepdims, ord=ord)


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """npjax implementation of numpy.linalg.vector_norm."""
    x = _arr(x)
    shape = list(x.shape)
    if axis is None:
        y, _axis = x.ravel(), 0
    elif isinstance(axis, tuple):
        normalized = tuple(normalize_axis(a, x.ndim) for a in axis)
        if len(set(normalized)) != len(normalized):
            raise ValueError("repeated axis")
        rest = tuple(i for i in range(x.ndim) if i not in normalized)
        y = jnp.transpose(x, axis + rest).reshape(
            (math.prod(x.shape[i] for i in axis), *[x.shape[i] for i in rest]))
        _axis = 0
    else:
        y, _axis = x, axis
    res = _norm(y, ord, _axis, False)
    if keepdims:
        axes = range(len(shape)) if axis is None else (axis if isinstance(axis, tuple)
                                                        else (axis,))
        for i in axes:
            shape[normalize_axis(i, len(shape))] = 1
        res = res.reshape(tuple(shape))
    return _out(res)


def cond(x: Any, p: Any = None) -> Any:
    """npjax implementation of numpy.linalg.cond."""
    x = _arr(x)
    if x.size == 0 and math.prod(x.shape[-2:]) == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or _eq(p, 2) or _eq(p, -2):
        s = _svdvals(x)
        r = s[..., -1] / s[..., 0] if _eq(p, -2) else s[..., 0] / s[..., -1]
    else:
        _check_square(x)
        t, rt = _common_type(x.dtype)
        invx, singular, _ = _k.inv(x.astype(t))
        invx = jnp.where(singular[..., None, None], jnp.nan, invx)
        r = _norm(x, p, (-2, -1), False) * _norm(invx, p, (-2, -1), False)
        r = r.astype(_REAL[rt])
    nan_mask = jnp.isnan(r) & ~jnp.any(jnp.isnan(x), axis=(-2, -1))
    return _out(jnp.where(nan_mask, jnp.inf, r).astype(r.dtype))


def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:
    """npjax implementation of numpy.linalg.matrix_rank."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = _arr(A)
    if A.ndim < 2:
        return int(not _flag(jnp.all(A == 0)))
    S = _svdvals_any(A, hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * np.finfo(S.dtype).eps
        else:
            rtol = _arr(rtol)[..., None]
        tol = jnp.max(S, axis=-1, keepdims=True, initial=0) * rtol
    else:
        tol = _arr(tol)[..., None]
    return _out(jnp.sum(S > tol, axis=-1).astype(np.intp))


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


# --- products and views that numpy.linalg shares with numpy ----------------------------------

def multi_dot(arrays: Any, *, out: Any = None) -> Any:
    """npjax implementation of numpy.linalg.multi_dot (NumPy's chain order)."""
    dot = _products.dot
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    arrays = [_arr(a) for a in arrays]
    ndim_first, ndim_last = arrays[0].ndim, arrays[-1].ndim
    if arrays[0].ndim == 1:
        arrays[0] = arrays[0][None, :]
    if arrays[-1].ndim == 1:
        arrays[-1] = arrays[-1][:, None]
    _check_2d(*arrays)
    if n == 3:
        A, B, C = arrays
        a0, a1b0 = A.shape
        b1c0, c1 = C.shape
        cost1 = a0 * b1c0 * (a1b0 + c1)
        cost2 = a1b0 * c1 * (a0 + b1c0)
        if cost1 < cost2:
            result = dot(dot(A, B), C, out=out)
        else:
            result = dot(A, dot(B, C), out=out)
    else:
        order = _chain_order([a.shape for a in arrays])
        result = _multi(arrays, order, 0, n - 1, out)
    if ndim_first == 1 and ndim_last == 1:
        return result[0, 0]
    if ndim_first == 1 or ndim_last == 1:
        return result.ravel()
    return result


def _chain_order(shapes: list) -> list:
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = [[0.0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = math.inf
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i][j]:
                    m[i][j] = q
                    s[i][j] = k
    return s


def _multi(arrays: list, order: list, i: int, j: int, out: Any = None) -> Any:
    if i == j:
        return arrays[i]
    return _products.dot(_multi(arrays, order, i, order[i][j]),
                         _multi(arrays, order, order[i][j] + 1, j), out=out)


def diagonal(x: Any, /, *, offset: int = 0) -> ndarray:
    """npjax implementation of numpy.linalg.diagonal."""
    import npjax

    return npjax.diagonal(x, offset, axis1=-2, axis2=-1)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """npjax implementation of numpy.linalg.trace."""
    import npjax

    return npjax.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> ndarray:
    """npjax implementation of numpy.linalg.cross (3-vectors only)."""
    s1, s2 = np.shape(x1), np.shape(x2)
    if s1[axis] != 3 or s2[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {s1[axis]} and {s2[axis]} dimensional instead.")
    return _products.cross(x1, x2, axis=axis)


def outer(x1: Any, x2: Any, /) -> ndarray:
    """npjax implementation of numpy.linalg.outer (1-d inputs only)."""
    n1, n2 = np.ndim(x1), np.ndim(x2)
    if n1 != 1 or n2 != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={n1!r} and x2.ndim={n2!r}.")
    return _products.outer(x1, x2)


def matmul(x1: Any, x2: Any, /) -> Any:
    """npjax implementation of numpy.linalg.matmul."""
    import npjax

    return npjax.matmul(x1, x2)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> ndarray:
    """npjax implementation of numpy.linalg.tensordot."""
    return _products.tensordot(x1, x2, axes=axes)


def matrix_transpose(x: Any, /) -> ndarray:
    """npjax implementation of numpy.linalg.matrix_transpose."""
    import npjax

    return npjax.matrix_transpose(x)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """npjax implementation of numpy.linalg.vecdot."""
    import npjax

    if axis != -1:
        x1 = npjax.moveaxis(x1, axis, -1)
        x2 = npjax.moveaxis(x2, axis, -1)
    return npjax.vecdot(x1, x2)


def _host_data_to_numpy(fn: Any, numpy_fn: Any) -> Any:
    """Data of a host-only dtype (str, object, ...) goes to NumPy's own function, quietly
    (as everywhere in npjax); NumPy raises its own error for most of them."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except HostOnly as exc:
            return call_numpy(f"linalg.{fn.__name__}", numpy_fn, args, kwargs, current(),
                              str(exc), quiet=True)

    call.__module__ = "npjax.linalg"
    return call


for _name in __all__:
    _f = globals()[_name]
    if callable(_f) and getattr(_f, "__module__", None) == __name__:
        globals()[_name] = _host_data_to_numpy(_f, getattr(np.linalg, _name))
del _name, _f
