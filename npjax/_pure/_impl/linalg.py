"""Pure-JAX linear-algebra kernels behind ``npjax.linalg``.

The ``*_as`` kernels, which ``npjax.linalg`` calls, take the operands in their own dtypes and
a compute dtype (float64 or complex128: NumPy's ``linalg`` computes every float type in double
precision and casts the result back) and cast inside their host route (``staged``); the
kernels they wrap take operands already cast to the compute dtype. Each kernel
returns the values plus, where NumPy can raise ``LinAlgError``, a boolean flag that the
wrapper reads on the host (one device-to-host transfer per call). Kernels are ``jax.jit``
functions; static parameters are keyword-only and part of jit's cache key. A decomposition
that the backend's XLA cannot compute in the dtype (``_capabilities.TABLE``) is NumPy's own
on the host, staged into the same kernel (``_capabilities.route``): the ``_np_*`` functions
give the kernels' results, flags included, from NumPy's LAPACK.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from numpy.linalg import LinAlgError

from npjax._pure._capabilities import route
from npjax._pure._dtypes import is_device_dtype
from npjax._pure._errors import HostOnly

_HI = lax.Precision.HIGHEST


def _mT(a: jax.Array) -> jax.Array:
    return jnp.swapaxes(a, -1, -2)


def _mH(a: jax.Array) -> jax.Array:
    return jnp.conj(_mT(a)) if jnp.iscomplexobj(a) else _mT(a)


def _diag(a: jax.Array) -> jax.Array:
    return jnp.diagonal(a, axis1=-2, axis2=-1)


def _mm(a: jax.Array, b: jax.Array) -> jax.Array:
    return jnp.matmul(a, b, precision=_HI)


def _hermitian(a: jax.Array, lower: bool) -> jax.Array:
    """The Hermitian matrix LAPACK sees when it reads only one triangle of ``a`` (the
    diagonal's imaginary part is ignored, as LAPACK's Hermitian routines do)."""
    if not lower:
        a = _mH(a)
    low = jnp.tril(a, -1)
    d = _diag(a)
    if jnp.iscomplexobj(a):
        d = d.real.astype(a.dtype)
    n = a.shape[-1]
    eye = jnp.eye(n, dtype=bool)
    return low + _mH(low) + jnp.where(eye, d[..., None, :], jnp.zeros((), a.dtype))


def _lu_solve(lu: jax.Array, perm: jax.Array, b: jax.Array) -> jax.Array:
    """Solve with a factor ``a[perm] = L U`` for a stack of right-hand-side matrices ``b``."""
    b = jnp.take_along_axis(b, perm[..., :, None], axis=-2)
    x = lax.linalg.triangular_solve(lu, b, left_side=True, lower=True, unit_diagonal=True)
    return lax.linalg.triangular_solve(lu, x, left_side=True, lower=False)


def _each_matrix(fn: Callable, a: np.ndarray, out_shape: tuple) -> tuple:
    """``fn`` of each matrix of the stack ``a``: (results, NaN where ``fn`` raised
    LinAlgError; the per-matrix flags)."""
    flat = a.reshape(-1, *a.shape[-2:])
    out = np.full((flat.shape[0], *out_shape), np.nan, a.dtype)
    failed = np.zeros(flat.shape[0], bool)
    for i, m in enumerate(flat):
        try:
            out[i] = fn(m)
        except LinAlgError:  # noqa: PERF203 - NumPy tells a singular matrix by raising
            failed[i] = True
    return out.reshape(*a.shape[:-2], *out_shape), failed.reshape(a.shape[:-2])


def _np_inv(a: np.ndarray) -> tuple:
    try:
        x, singular = np.linalg.inv(a), np.zeros(a.shape[:-2], bool)
    except LinAlgError:
        x, singular = _each_matrix(np.linalg.inv, a, a.shape[-2:])
    return x, singular, singular.any()


def _inv(a: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    lu, _, perm = lax.linalg.lu(a)
    singular = jnp.any(_diag(lu) == 0, axis=-1)
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return _lu_solve(lu, perm, eye), singular, jnp.any(singular)


@jax.jit
def inv(a: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Inverse by LU (as LAPACK gesv with an identity); flags: an exactly zero pivot, per
    matrix and anywhere."""
    return route("lu", a.dtype, _inv, _np_inv, a)


def _np_solve(a: np.ndarray, b: np.ndarray) -> tuple:
    try:
        return np.linalg.solve(a, b), False
    except LinAlgError:
        return np.full(b.shape, np.nan, b.dtype), True


def _solve(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    lu, _, perm = lax.linalg.lu(a)
    return _lu_solve(lu, perm, b), jnp.any(_diag(lu) == 0)


@jax.jit
def solve(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``a x = b`` for ``b`` a stack of matrices with the same batch shape as ``a``."""
    return route("lu", a.dtype, _solve, _np_solve, a, b)


@jax.jit
def slogdet(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(sign, log|det|) as NumPy's LU-based loop: singular gives (0, -inf)."""
    return route("lu", a.dtype, _slogdet, np.linalg.slogdet, a)


def _slogdet(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    n = a.shape[-1]
    lu, piv, _ = lax.linalg.lu(a)
    d = _diag(lu)
    swaps = jnp.sum(piv != jnp.arange(n, dtype=piv.dtype), axis=-1)
    parity = jnp.where(swaps % 2 == 1, -1.0, 1.0).astype(a.real.dtype)
    absd = jnp.abs(d)
    if jnp.iscomplexobj(a):
        unit = d / jnp.where(absd == 0, 1, absd).astype(a.dtype)
        sign = parity.astype(a.dtype) * jnp.prod(unit, axis=-1)
    else:
        sign = parity * jnp.prod(jnp.where(d < 0, -1.0, 1.0).astype(a.dtype), axis=-1)
    logdet = jnp.sum(jnp.log(absd), axis=-1)
    singular = jnp.any(d == 0, axis=-1)
    sign = jnp.where(singular, jnp.zeros((), sign.dtype), sign)
    logdet = jnp.where(singular, -jnp.inf, logdet)
    return sign, logdet


@jax.jit
def det(a: jax.Array) -> jax.Array:
    """NumPy computes det as sign * exp(log|det|)."""
    sign, logdet = slogdet(a)
    return sign * jnp.exp(logdet).astype(sign.dtype)


@functools.partial(jax.jit, static_argnames=("upper",))
def cholesky(a: jax.Array, *, upper: bool) -> tuple[jax.Array, jax.Array]:
    """Cholesky factor from one triangle; flag: not positive definite (JAX gives NaN)."""
    low, failed = route("cholesky", a.dtype, _cholesky, _np_cholesky, _hermitian(a, not upper))
    return (_mH(low) if upper else low), failed


def _cholesky(h: jax.Array) -> tuple[jax.Array, jax.Array]:
    low = jnp.tril(lax.linalg.cholesky(h, symmetrize_input=False))
    return low, jnp.any(jnp.isnan(low))


def _np_cholesky(h: np.ndarray) -> tuple:
    try:
        return np.linalg.cholesky(h), False
    except LinAlgError:
        return np.full(h.shape, np.nan, h.dtype), True


@functools.partial(jax.jit, static_argnames=("mode",))
def qr(a: jax.Array, *, mode: str) -> tuple[jax.Array, ...]:
    return route("qr", a.dtype, functools.partial(_qr, mode=mode),
                 functools.partial(_np_qr, mode=mode), a)


def _np_qr(a: np.ndarray, *, mode: str) -> tuple:
    if mode == "raw":
        h, tau = np.linalg.qr(a, mode="raw")
        return np.swapaxes(h, -1, -2), tau
    got = np.linalg.qr(a, mode=mode)
    return (got,) if mode == "r" else tuple(got)


def _qr(a: jax.Array, *, mode: str) -> tuple[jax.Array, ...]:
    if mode == "raw":
        from jax._src.lax.linalg import geqrf

        h, tau = geqrf(a)
        return h, tau
    if mode == "r":
        return (jnp.linalg.qr(a, mode="r"),)
    q, r = jnp.linalg.qr(a, mode=mode)
    return q, r


@jax.jit
def eig(a: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Eigen-decomposition; flags: input not finite, all eigenvalues real."""
    finite = jnp.all(jnp.isfinite(a))
    w, v = route("eig", a.dtype, jnp.linalg.eig, np.linalg.eig,
                 jnp.where(finite, a, jnp.zeros((), a.dtype)))
    return w, v, finite, jnp.all(w.imag == 0)


@jax.jit
def eigvals(a: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    finite = jnp.all(jnp.isfinite(a))
    w = route("eig", a.dtype, jnp.linalg.eigvals, np.linalg.eigvals,
              jnp.where(finite, a, jnp.zeros((), a.dtype)))
    return w, finite, jnp.all(w.imag == 0)


@functools.partial(jax.jit, static_argnames=("lower", "vectors"))
def eigh(a: jax.Array, *, lower: bool, vectors: bool) -> tuple[jax.Array, ...]:
    if vectors:
        return route("eigh", a.dtype, _eigh, np.linalg.eigh, _hermitian(a, lower))
    return (route("eigh", a.dtype, _eigvalsh, np.linalg.eigvalsh, _hermitian(a, lower)),)


def _eigh(h: jax.Array) -> tuple[jax.Array, jax.Array]:
    w, v = jnp.linalg.eigh(h, symmetrize_input=False)
    return w, v


def _eigvalsh(h: jax.Array) -> jax.Array:
    return jnp.linalg.eigh(h, symmetrize_input=False)[0]


@functools.partial(jax.jit, static_argnames=("full_matrices", "compute_uv"))
def svd(a: jax.Array, *, full_matrices: bool, compute_uv: bool) -> tuple[jax.Array, ...]:
    """SVD; last item: the input holds NaN (LAPACK's gesdd refuses it: NumPy raises)."""
    bad = jnp.any(jnp.isnan(a))
    opts = {"full_matrices": full_matrices, "compute_uv": compute_uv}
    got = route("svd", a.dtype, functools.partial(jnp.linalg.svd, **opts),
                lambda x: np.linalg.svd(np.nan_to_num(x), **opts), a)  # NaN: values unused
    return (*got, bad) if compute_uv else (got, bad)


@jax.jit
def svd_hermitian(a: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """NumPy's ``svd(hermitian=True)``: from eigh, sorted by decreasing |eigenvalue|."""
    s, u = eigh(a, lower=True, vectors=True)
    sgn = jnp.copysign(1.0, s)
    s = jnp.abs(s)
    idx = jnp.flip(jnp.argsort(s, axis=-1, stable=True), axis=-1)
    sgn = jnp.take_along_axis(sgn, idx, axis=-1)
    s = jnp.take_along_axis(s, idx, axis=-1)
    u = jnp.take_along_axis(u, idx[..., None, :], axis=-1)
    vt = jnp.conj(_mT(u * sgn[..., None, :].astype(u.dtype)))
    return u, s, vt


@jax.jit
def svdvals_hermitian(a: jax.Array) -> jax.Array:
    (w,) = eigh(a, lower=True, vectors=False)
    return jnp.flip(jnp.sort(jnp.abs(w), axis=-1), axis=-1)


@jax.jit
def lstsq(a: jax.Array, b: jax.Array, rcond: jax.Array) -> tuple[jax.Array, ...]:
    """Least squares by SVD as LAPACK gelsd: singular values <= rcond * s_max count as zero
    (rcond < 0: machine precision). Returns x, residuals, rank, s, input-has-NaN."""
    u, s, vh, bad = svd(a, full_matrices=False, compute_uv=True)
    eps = jnp.finfo(s.dtype).eps
    rcond = jnp.where(rcond < 0, eps, rcond)
    smax = s[..., :1] if s.shape[-1] else jnp.zeros((1,), s.dtype)
    keep = s > rcond * smax
    rank = jnp.sum(keep, axis=-1).astype(jnp.int32)
    inv_s = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(a.dtype)
    x = _mm(_mH(vh), inv_s[:, None] * _mm(_mH(u), b))
    r = b - _mm(a, x)
    resid = jnp.sum((jnp.conj(r) * r).real, axis=-2)
    return x, resid, rank, s, bad


# --- kernels of operands in their own dtypes --------------------------------------------------


def common_type(*dtypes: np.dtype) -> tuple[np.dtype, np.dtype]:
    """(compute dtype, result dtype) as NumPy's ``_commonType``: double compute, single
    result only when every input is single precision. HostOnly where the backend holds no
    such result (float64/complex128 on a TPU): NumPy computes the call."""
    single, is_complex = True, False
    for dt in dtypes:
        dt = np.dtype(dt)
        if dt.kind in "fc":
            is_complex |= dt.kind == "c"
            if dt not in (np.float32, np.float64, np.complex64, np.complex128):
                raise TypeError(f"array type {dt.name} is unsupported in linalg")
            if dt in (np.float64, np.complex128):
                single = False
        elif dt.kind in "biu":
            single = False
        else:
            raise TypeError(f"Cannot cast ufunc 'linalg' input from {dt!r} to "
                            "dtype('float64') with casting rule 'same_kind'")
    if is_complex:
        t, rt = np.dtype(np.complex128), np.dtype(np.complex64 if single else np.complex128)
    else:
        t, rt = np.dtype(np.float64), np.dtype(np.float32 if single else np.float64)
    if not is_device_dtype(rt):
        raise HostOnly(f"a linalg result of {rt} lives on the host on this backend")
    return t, rt
# NumPy computes single precision in double and casts the results back. Casting outside the
# kernels put complex128 (and float64) arrays into the programs a TPU compiles around its host
# route, where complex128 fails a layout check (benchmarks/tpu_linalg_compile.py); these take
# the operands as they are, cast to the compute dtype ``t`` inside the device branch and cast
# the results to the result dtype ``rt`` there, so that where the family goes to the host the
# whole kernel does, NumPy given the operands as they are (values and dtypes as NumPy's own).


def staged(family: str, t: np.dtype, dtypes: tuple, device_fn: Callable,
            numpy_fn: Callable, *args: jax.Array, cast: int = 1) -> tuple:
    """``route`` of ``device_fn`` of the first ``cast`` operands cast to ``t``, its results
    cast to ``dtypes`` (None: as they are), and of ``numpy_fn`` of the operands."""
    def on_device(*xs: jax.Array) -> tuple:
        got = device_fn(*(x.astype(t) if i < cast else x for i, x in enumerate(xs)))
        return tuple(g if d is None else g.astype(d) for g, d in zip(got, dtypes))

    return tuple(route(family, t, on_device, numpy_fn, *args))


def _real(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.finfo(dtype).dtype)


def _complex(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, np.complex64)


_STATIC = ("t", "rt")


@functools.partial(jax.jit, static_argnames=_STATIC)
def inv_as(a: jax.Array, *, t: np.dtype, rt: np.dtype) -> tuple:
    """``inv`` of ``a`` computed in ``t``, the inverse in ``rt``."""
    return staged("lu", t, (rt, None, None), inv, _np_inv, a)


@functools.partial(jax.jit, static_argnames=_STATIC)
def solve_as(a: jax.Array, b: jax.Array, *, t: np.dtype, rt: np.dtype) -> tuple:
    return staged("lu", t, (rt, None), solve, _np_solve, a, b, cast=2)


@functools.partial(jax.jit, static_argnames=_STATIC)
def slogdet_as(a: jax.Array, *, t: np.dtype, rt: np.dtype) -> tuple:
    return staged("lu", t, (rt, _real(rt)), slogdet, lambda x: tuple(np.linalg.slogdet(x)), a)


@functools.partial(jax.jit, static_argnames=_STATIC)
def det_as(a: jax.Array, *, t: np.dtype, rt: np.dtype) -> jax.Array:
    return staged("lu", t, (rt,), lambda x: (det(x),), lambda x: (np.linalg.det(x),), a)[0]


@functools.partial(jax.jit, static_argnames=("upper", *_STATIC))
def cholesky_as(a: jax.Array, *, upper: bool, t: np.dtype, rt: np.dtype) -> tuple:
    return staged("cholesky", t, (rt, None), functools.partial(cholesky, upper=upper),
                   functools.partial(_np_cholesky_of, upper=upper), a)


def _np_cholesky_of(a: np.ndarray, *, upper: bool) -> tuple:
    try:
        return np.linalg.cholesky(a, upper=upper), False
    except LinAlgError:
        return np.full(a.shape, np.nan, a.dtype), True


@functools.partial(jax.jit, static_argnames=("mode", *_STATIC))
def qr_as(a: jax.Array, *, mode: str, t: np.dtype, rt: np.dtype) -> tuple:
    n = 1 if mode == "r" else 2
    return staged("qr", t, (rt,) * n, functools.partial(qr, mode=mode),
                   functools.partial(_np_qr, mode=mode), a)


def _np_eig(a: np.ndarray, *, vectors: bool) -> tuple:
    """NumPy's eig (or eigvals) of ``a`` (zeros where it is not finite), and the flags."""
    finite = bool(np.isfinite(a).all())
    x = a if finite else np.zeros_like(a)
    got = np.linalg.eig(x) if vectors else (np.linalg.eigvals(x),)
    return (*got, finite, bool(np.all(got[0].imag == 0)))


@functools.partial(jax.jit, static_argnames=_STATIC)
def eig_as(a: jax.Array, *, t: np.dtype, rt: np.dtype) -> tuple:
    """``eig`` computed in ``t``: eigenvalues and vectors in the complex type of ``rt``."""
    c = _complex(rt)
    return staged("eig", t, (c, c, None, None), eig,
                   functools.partial(_np_eig, vectors=True), a)


@functools.partial(jax.jit, static_argnames=_STATIC)
def eigvals_as(a: jax.Array, *, t: np.dtype, rt: np.dtype) -> tuple:
    return staged("eig", t, (_complex(rt), None, None), eigvals,
                   functools.partial(_np_eig, vectors=False), a)


@functools.partial(jax.jit, static_argnames=("lower", "vectors", *_STATIC))
def eigh_as(a: jax.Array, *, lower: bool, vectors: bool, t: np.dtype, rt: np.dtype) -> tuple:
    uplo = "L" if lower else "U"
    if vectors:
        np_fn = lambda x: tuple(np.linalg.eigh(x, UPLO=uplo))  # noqa: E731
    else:
        np_fn = lambda x: (np.linalg.eigvalsh(x, UPLO=uplo),)  # noqa: E731
    return staged("eigh", t, (_real(rt), rt)[:1 + vectors],
                   functools.partial(eigh, lower=lower, vectors=vectors), np_fn, a)


def _np_svd(a: np.ndarray, **opts: bool) -> tuple:
    got = np.linalg.svd(np.nan_to_num(a), **opts)  # NaN: values unused (LinAlgError)
    bad = bool(np.isnan(a).any())
    return (*got, bad) if opts["compute_uv"] else (got, bad)


@functools.partial(jax.jit, static_argnames=("full_matrices", "compute_uv", *_STATIC))
def svd_as(a: jax.Array, *, full_matrices: bool, compute_uv: bool, t: np.dtype,
           rt: np.dtype) -> tuple:
    """``svd`` computed in ``t``: vectors in ``rt``, values in its real type, NaN flag."""
    opts = {"full_matrices": full_matrices, "compute_uv": compute_uv}
    dtypes = (rt, _real(rt), rt, None) if compute_uv else (_real(rt), None)
    return staged("svd", t, dtypes, functools.partial(svd, **opts),
                   functools.partial(_np_svd, **opts), a)


@functools.partial(jax.jit, static_argnames=_STATIC)
def svd_hermitian_as(a: jax.Array, *, t: np.dtype, rt: np.dtype) -> tuple:
    return staged("eigh", t, (rt, _real(rt), rt), svd_hermitian,
                   lambda x: tuple(np.linalg.svd(x, hermitian=True)), a)


@functools.partial(jax.jit, static_argnames=_STATIC)
def svdvals_hermitian_as(a: jax.Array, *, t: np.dtype, rt: np.dtype) -> jax.Array:
    return staged("eigh", t, (_real(rt),), lambda x: (svdvals_hermitian(x),),
                   lambda x: (np.linalg.svd(x, compute_uv=False, hermitian=True),), a)[0]


def _np_lstsq(a: np.ndarray, b: np.ndarray, rcond: np.ndarray) -> tuple:
    """``lstsq``'s results from NumPy's (residuals: of every column, as the kernel's)."""
    bad = bool(np.isnan(a).any())
    x, res, rank, s = np.linalg.lstsq(np.nan_to_num(a), b, rcond=float(rcond))
    if not res.size:
        r = b - np.matmul(a, x)
        res = np.sum((np.conj(r) * r).real, axis=-2)
    return x, res, rank, s, bad


@functools.partial(jax.jit, static_argnames=_STATIC)
def lstsq_as(a: jax.Array, b: jax.Array, rcond: jax.Array, *, t: np.dtype,
             rt: np.dtype) -> tuple:
    """``lstsq`` computed in ``t``: x in ``rt``, residuals and values in its real type."""
    r = _real(rt)
    return staged("svd", t, (rt, r, None, r, None), lstsq, _np_lstsq, a, b, rcond, cast=2)
