"""Decompositions: Cholesky, QR, eigenvalues (``eig``, ``eigh`` and their values only) and
singular values (``svd``, ``svdvals``), with NumPy's result types and dtypes."""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg._linalg import EighResult, EigResult, QRResult, SVDResult

from npjax._runtime._errstate import _stacklevel
from npjax._pure._impl import linalg as _k
from npjax._core._ndarray import ndarray
from npjax.linalg._rules import (_COMPLEX, _REAL, _arr, _check_square, _check_stacked_2d,
                                 _common_type, _flag, _out, host_data_to_numpy)


def _svdvals(a: jax.Array) -> jax.Array:
    _check_stacked_2d(a)
    t, rt = _common_type(a.dtype)
    s, bad = _k.svd_as(a, full_matrices=False, compute_uv=False, t=t, rt=rt)
    if _flag(bad):
        raise LinAlgError("SVD did not converge")
    return s


def _svd(a: jax.Array, full_matrices: bool = True, hermitian: bool = False) -> tuple:
    if hermitian:
        _check_square(a)
        t, rt = _common_type(a.dtype)
        return _k.svd_hermitian_as(a, t=t, rt=rt)
    _check_stacked_2d(a)
    t, rt = _common_type(a.dtype)
    u, s, vh, bad = _k.svd_as(a, full_matrices=bool(full_matrices), compute_uv=True, t=t,
                              rt=rt)
    if _flag(bad):
        raise LinAlgError("SVD did not converge")
    return u, s, vh


def _svdvals_any(a: jax.Array, hermitian: bool) -> jax.Array:
    if hermitian:
        _check_square(a)
        t, rt = _common_type(a.dtype)
        return _k.svdvals_hermitian_as(a, t=t, rt=rt)
    return _svdvals(a)


@host_data_to_numpy
def cholesky(a: Any, /, *, upper: bool = False) -> ndarray:
    """npjax implementation of numpy.linalg.cholesky (reads one triangle, as LAPACK)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    c, failed = _k.cholesky_as(a, upper=bool(upper), t=t, rt=rt)
    if _flag(failed):
        raise LinAlgError("Matrix is not positive definite")
    return _out(c)


@host_data_to_numpy
def qr(a: Any, mode: str = "reduced") -> Any:
    """npjax implementation of numpy.linalg.qr."""
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
    if mode in ("raw", "economic"):
        m, n = a.shape[-2:]
        if a.size == 0:
            h, tau = a.astype(rt), jnp.zeros((*a.shape[:-2], min(m, n)), rt)
        else:
            h, tau = _k.qr_as(a, mode="raw", t=t, rt=rt)
        if mode == "economic":
            return _out(h)
        return (_out(jnp.swapaxes(h, -1, -2)), _out(tau))
    if mode == "r":
        (r,) = _k.qr_as(a, mode="r", t=t, rt=rt)
        return _out(r)
    q, r = _k.qr_as(a, mode=mode, t=t, rt=rt)
    return QRResult(_out(q), _out(r))


def _eig_result(w: jax.Array, all_real: jax.Array, rt: np.dtype, real_input: bool) -> tuple:
    if real_input and _flag(all_real):
        return _REAL[rt], True
    return _COMPLEX[rt], False


@host_data_to_numpy
def eig(a: Any) -> EigResult:
    """npjax implementation of numpy.linalg.eig (real result when every eigenvalue is)."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    w, v, finite, all_real = _k.eig_as(a, t=t, rt=rt)
    if not isinstance(finite, jax.core.Tracer):  # one transfer for both flags
        finite, all_real = jax.device_get((finite, all_real))
    if _flag(jnp.logical_not(finite)):
        raise LinAlgError("Array must not contain infs or NaNs")
    out_t, real = _eig_result(w, all_real, rt, t.kind == "f")
    if real:
        w, v = w.real, v.real
    return EigResult(_out(w.astype(out_t)), _out(v.astype(out_t)))


@host_data_to_numpy
def eigvals(a: Any) -> ndarray:
    """npjax implementation of numpy.linalg.eigvals."""
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    w, finite, all_real = _k.eigvals_as(a, t=t, rt=rt)
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


@host_data_to_numpy
def eigh(a: Any, UPLO: str = "L") -> EighResult:
    """npjax implementation of numpy.linalg.eigh (reads the ``UPLO`` triangle only)."""
    lower = _uplo(UPLO)
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    w, v = _k.eigh_as(a, lower=lower, vectors=True, t=t, rt=rt)
    return EighResult(_out(w), _out(v))


@host_data_to_numpy
def eigvalsh(a: Any, UPLO: str = "L") -> ndarray:
    """npjax implementation of numpy.linalg.eigvalsh."""
    lower = _uplo(UPLO)
    a = _arr(a)
    _check_square(a)
    t, rt = _common_type(a.dtype)
    (w,) = _k.eigh_as(a, lower=lower, vectors=False, t=t, rt=rt)
    return _out(w)


@host_data_to_numpy
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """npjax implementation of numpy.linalg.svd."""
    a = _arr(a)
    if not compute_uv:
        return _out(_svdvals_any(a, hermitian))
    u, s, vh = _svd(a, full_matrices, hermitian)
    return SVDResult(_out(u), _out(s), _out(vh))


@host_data_to_numpy
def svdvals(x: Any, /) -> ndarray:
    """npjax implementation of numpy.linalg.svdvals."""
    return _out(_svdvals(_arr(x)))
