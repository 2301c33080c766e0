"""numpy.linalg against NumPy: values, result types, dtypes, batching, LinAlgError parity.

Inputs are small (at most 4x4, batches of at most 2) and, for value comparisons, well
conditioned: a random matrix plus a multiple of the identity (SPD: B B^H + n I). Both sides
compute every float type in double precision (NumPy's rule), but in different LAPACK builds
and with a different algorithm for some routines (npjax's ``det`` via JAX's LU, ``lstsq``
via the SVD), so values are compared with the "linalg" tolerance below: 1e-9 relative for
double, 1e-5 for single precision (float32 results are double results rounded once).
Eigenvectors and singular vectors are unique only up to sign/phase: they are checked by
reconstruction and orthonormality; their dtypes and shapes are compared exactly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npjax
from tests._parity import assert_parity, assert_same
from tests.tolerances import OVERRIDES

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
OVERRIDES["linalg"] = {
    _F64: dict(rtol=1e-9, atol=1e-10), _C128: dict(rtol=1e-9, atol=1e-10),
    _F32: dict(rtol=1e-5, atol=1e-5), _C64: dict(rtol=1e-5, atol=1e-5),
}
LIN = "linalg"

DTYPES = [np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128,
                                np.int64, np.int8, np.bool_)]
INEXACT = [_F32, _F64, _C64, _C128]

# Few distinct shapes: each new shape compiles new XLA kernels (about a second each), the
# values are what Hypothesis varies. Edge shapes (0, 1, 4) have parametrized tests.
batches = st.sampled_from([(), (2,)])
sides = st.sampled_from([2, 3])


def _values(dtype: np.dtype, shape: tuple, lo: int = -3, hi: int = 3):
    """Small exactly representable values (integers, halves) of ``dtype``."""
    if dtype.kind == "b":
        return hnp.arrays(dtype, shape)
    if dtype.kind in "iu":
        return hnp.arrays(dtype, shape, elements=st.integers(lo, hi))
    half = st.integers(2 * lo, 2 * hi).map(lambda v: v / 2)
    if dtype.kind == "c":
        return st.tuples(hnp.arrays(_F64, shape, elements=half),
                         hnp.arrays(_F64, shape, elements=half)).map(
            lambda p: (p[0] + 1j * p[1]).astype(dtype))
    return hnp.arrays(_F64, shape, elements=half).map(lambda a: a.astype(dtype))


@st.composite
def square(draw, dtypes=DTYPES, well=True):
    """A stack of square matrices; ``well``: diagonally dominant (well conditioned)."""
    dtype = draw(st.sampled_from(dtypes))
    n = draw(sides)
    a = draw(_values(dtype, draw(batches) + (n, n)))
    if well and dtype.kind != "b":
        shift = np.eye(n, dtype=dtype) * (4 * n if dtype.kind in "fc" else min(4 * n, 20))
        a = (a + shift).astype(dtype)
    elif well:
        a = a | np.eye(n, dtype=bool)
    return a


@st.composite
def spd(draw, dtypes=DTYPES):
    dtype = draw(st.sampled_from(dtypes))
    n = draw(sides)
    b = draw(_values(np.dtype(np.int64) if dtype.kind in "biu" else dtype,
                     draw(batches) + (n, n)))
    a = b @ np.conj(np.swapaxes(b, -1, -2)) + n * np.eye(n, dtype=b.dtype)
    return a.astype(dtype) if dtype.kind != "b" else np.eye(n, dtype=bool)


@st.composite
def rect(draw, dtypes=DTYPES, batch=True):
    dtype = draw(st.sampled_from(dtypes))
    m, n = draw(sides), draw(sides)
    return draw(_values(dtype, (draw(batches) if batch else ()) + (m, n)))


def quiet(fn):
    def run(xp):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(xp)
    return run


def host(x):
    return np.asarray(x)


# --- namespace -------------------------------------------------------------------------------

def test_every_numpy_linalg_name_exists():
    missing = [n for n in np.linalg.__all__ if not hasattr(npjax.linalg, n)]
    assert not missing
    assert npjax.linalg.LinAlgError is np.linalg.LinAlgError
    assert sorted(npjax.linalg.__all__) == sorted(np.linalg.__all__)


# --- inverse, determinant, solve -------------------------------------------------------------

@given(square())
def test_inv_det_slogdet(a):
    for name in ("inv", "det", "slogdet"):
        assert_parity(lambda xp, name=name: getattr(xp.linalg, name)(xp.asarray(a)), name=LIN,
                      context=(name, a))


@given(square(), st.data())
def test_solve(a, data):
    n = a.shape[-1]
    kind = data.draw(st.sampled_from(["vec", "mat", "batch"]))
    shape = {"vec": (n,), "mat": (n, 2), "batch": a.shape[:-2] + (n, 1)}[kind]
    b = data.draw(_values(data.draw(st.sampled_from(DTYPES)), shape))
    assert_parity(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(b)), name=LIN,
                  context=(a, b))


def _singular(n: int, dtype, how: str, batch: bool):
    a = (np.arange(n * n).reshape(n, n) % 5 + np.eye(n, dtype=int) * 7).astype(dtype)
    if how == "zero_row":
        a[n - 1] = 0
    elif how == "zero_col":
        a[:, 0] = 0
    else:
        a[n - 1] = a[0]
    if batch:
        good = (np.eye(n) * 3).astype(dtype)
        a = np.stack([good, a])
    return a


@pytest.mark.parametrize("dtype", [_F32, _F64, _C128, np.dtype(np.int64)])
@pytest.mark.parametrize("how", ["zero_row", "zero_col", "dup_row"])
@pytest.mark.parametrize("batch", [False, True])
def test_singular_raises_linalgerror(dtype, how, batch):
    for n in (1, 2, 3):
        if n == 1 and how == "dup_row":
            continue
        a = _singular(n, dtype, how, batch)
        b = np.ones(a.shape[:-1])
        ctx = (how, a)
        assert_parity(lambda xp, a=a: xp.linalg.inv(xp.asarray(a)), context=ctx)
        assert_parity(lambda xp, a=a, b=b: xp.linalg.solve(xp.asarray(a), xp.asarray(b[..., None])),
                      context=ctx)
        assert_parity(lambda xp, a=a: xp.linalg.matrix_power(xp.asarray(a), -2), context=ctx)
        assert_parity(lambda xp, a=a: xp.linalg.det(xp.asarray(a)), name=LIN, context=ctx)
        assert_parity(lambda xp, a=a: xp.linalg.slogdet(xp.asarray(a)), name=LIN, context=ctx)
        if not batch:
            t = a.reshape(1, n, n) if n > 1 else a
            assert_parity(lambda xp, t=t: xp.linalg.tensorinv(xp.asarray(t), 1), context=ctx)
            assert_parity(lambda xp, a=a, n=n: xp.linalg.tensorsolve(xp.asarray(a), xp.ones(n)),
                          context=ctx)


_SQUARE_FUNCS = ["inv", "det", "slogdet", "cholesky", "eig", "eigvals", "eigh", "eigvalsh"]


@pytest.mark.parametrize("name", _SQUARE_FUNCS + ["matrix_power"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 2), (0, 1)])
def test_shape_errors(name, shape):
    a = np.ones(shape)

    def call(xp):
        fn = getattr(xp.linalg, name)
        return fn(xp.asarray(a), 2) if name == "matrix_power" else fn(xp.asarray(a))
    assert_parity(call, name=LIN, context=shape)


@pytest.mark.parametrize("name", _SQUARE_FUNCS + ["svd", "qr", "pinv", "svdvals",
                                                  "matrix_rank", "cond"])
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 2, 2), (1, 1)])
def test_empty_and_tiny(name, shape):
    a = np.ones(shape)
    assert_parity(lambda xp: getattr(xp.linalg, name)(xp.asarray(a)), name=LIN,
                  context=shape)


@pytest.mark.parametrize("name", _SQUARE_FUNCS + ["svd", "qr", "pinv", "norm", "cond",
                                                  "matrix_rank", "lstsq", "solve"])
@pytest.mark.parametrize("dtype", [np.float16, "U1"])
def test_unsupported_dtypes(name, dtype):
    a = np.ones((2, 2), dtype=dtype)

    def call(xp):
        x = xp.asarray(a)
        fn = getattr(xp.linalg, name)
        return fn(x, x) if name in ("lstsq", "solve") else fn(x)
    assert_parity(call, name=LIN)


def test_solve_shape_errors():
    for sa, sb in [((2, 2), (3,)), ((2, 2), (3, 1)), ((2, 2, 2), (3, 2, 1)), ((2, 3), (2,))]:
        a, b = np.eye(*sa[-2:]) + np.zeros(sa), np.ones(sb)
        assert_parity(lambda xp, a=a, b=b: xp.linalg.solve(xp.asarray(a), xp.asarray(b)),
                      context=(sa, sb))


# --- matrix_power, tensorinv, tensorsolve, multi_dot -----------------------------------------

@given(square(well=False), st.integers(-3, 6))
def test_matrix_power(a, n):
    if n < 0:
        a = a if a.dtype.kind == "b" else (a + np.eye(a.shape[-1], dtype=a.dtype) * 9)
    assert_parity(lambda xp: xp.linalg.matrix_power(xp.asarray(a), n), name=LIN,
                  context=(a, n))


def test_matrix_power_bad_exponent():
    assert_parity(lambda xp: xp.linalg.matrix_power(xp.eye(2), 2.0))
    assert_parity(lambda xp: xp.linalg.matrix_power(xp.eye(2), np.int8(3)))


def test_tensorinv_tensorsolve():
    a = np.eye(6).reshape(6, 2, 3) * 2 + 0.25
    assert_parity(lambda xp: xp.linalg.tensorinv(xp.asarray(a), ind=1), name=LIN)
    assert_parity(lambda xp: xp.linalg.tensorinv(xp.asarray(a), ind=0))
    b = np.eye(6).reshape(2, 3, 6) * 3 + np.arange(36).reshape(2, 3, 6) / 50
    assert_parity(lambda xp: xp.linalg.tensorsolve(xp.asarray(b.reshape(2, 3, 2, 3)),
                                                   xp.ones((2, 3))), name=LIN)
    c = np.arange(24.0).reshape(2, 3, 4) + np.eye(24).reshape(2, 3, 4, 24)[..., 0] * 0
    c = np.eye(6).reshape(3, 2, 6) + 1
    assert_parity(lambda xp: xp.linalg.tensorsolve(xp.asarray(c.reshape(3, 2, 2, 3)),
                                                   xp.ones((3, 2)), axes=(2,)), name=LIN)
    assert_parity(lambda xp: xp.linalg.tensorsolve(xp.ones((2, 3, 4)), xp.ones((2, 3))))


@pytest.mark.parametrize("shapes", [[(2,), (2, 3), (3,)], [(3, 2), (2, 4), (4, 1)],
                                    [(2, 3), (3, 4), (4, 2), (2, 2)], [(3,), (3, 2), (2, 4),
                                                                        (4, 3), (3,)],
                                    [(2, 2), (2, 2)], [(2, 3)], [(2, 3), (3, 2, 1), (1, 2)]])
@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.complex128, np.bool_])
def test_multi_dot(shapes, dtype):
    arrs = [(np.arange(np.prod(s)).reshape(s) % 3 + 1).astype(dtype) for s in shapes]
    assert_parity(lambda xp: xp.linalg.multi_dot([xp.asarray(x) for x in arrs]), name=LIN,
                  context=shapes)


# --- Cholesky, QR ----------------------------------------------------------------------------

@given(spd(), st.booleans())
def test_cholesky(a, upper):
    assert_parity(lambda xp: xp.linalg.cholesky(xp.asarray(a), upper=upper), name=LIN,
                  context=(a, upper))


@given(square(dtypes=INEXACT + [np.dtype(np.int64)], well=False), st.booleans())
def test_cholesky_not_positive_definite_and_triangle(a, upper):
    n = a.shape[-1]
    neg = (-a @ np.conj(np.swapaxes(a, -1, -2)) - np.eye(n)).astype(a.dtype)
    assert_parity(lambda xp: xp.linalg.cholesky(xp.asarray(neg), upper=upper), context=(neg,))
    # only one triangle is read: garbage (even NaN) in the other one does not matter
    s = (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(a.dtype)
    other = np.triu(np.ones((n, n), bool), 1)
    if upper:
        other = other.T
    if a.dtype.kind in "fc":
        s = np.where(other, np.nan, s).astype(a.dtype)
    else:
        s = np.where(other, 99, s).astype(a.dtype)
    assert_parity(lambda xp: xp.linalg.cholesky(xp.asarray(s), upper=upper), name=LIN,
                  context=(s,))


@given(rect(), st.sampled_from(["reduced", "complete", "r", "raw"]))
def test_qr(a, mode):
    def call(xp):
        res = xp.linalg.qr(xp.asarray(a), mode=mode)
        if mode in ("reduced", "complete"):
            q, r = host(res.Q), host(res.R)
            m = a.shape[-1] if mode == "reduced" else a.shape[-2]
            np.testing.assert_allclose(q @ r, a, atol=1e-4, rtol=1e-4)
            eye = np.conj(np.swapaxes(q, -1, -2)) @ q
            np.testing.assert_allclose(eye, np.broadcast_to(np.eye(eye.shape[-1]), eye.shape),
                                       atol=1e-5)
            assert np.all(np.tril(r, -1) == 0) and q.shape[-1] <= max(m, a.shape[-2])
        return res
    got = call(npjax)
    want = call(np)
    assert isinstance(got, tuple) == isinstance(want, tuple)
    parts = got if isinstance(got, tuple) else (got,)
    wparts = want if isinstance(want, tuple) else (want,)
    for g, w in zip(parts, wparts):
        assert g.shape == w.shape and g.dtype == w.dtype
    if mode in ("r", "raw"):  # the same Householder convention (LAPACK geqrf) on the CPU
        assert_same(got, want, name=LIN)


def test_qr_modes_and_errors():
    a = np.arange(6.0).reshape(3, 2) + 1
    assert_parity(lambda xp: xp.linalg.qr(xp.asarray(a), mode="bogus"))
    assert_parity(lambda xp: xp.linalg.qr(xp.ones(3)))
    for mode in ("full", "economic"):
        with pytest.warns(DeprecationWarning):
            got = npjax.linalg.qr(npjax.asarray(a), mode=mode)
        with pytest.warns(DeprecationWarning):
            want = np.linalg.qr(a, mode=mode)
        if mode == "economic":
            assert_same(got, want, name=LIN)
        else:
            assert type(got) is type(want) and got.Q.shape == want.Q.shape


# --- eigenvalues -----------------------------------------------------------------------------

def _check_eig_result(xp_res, np_res, a, hermitian):
    """Eigenpairs: dtypes/shapes as NumPy, eigenvalues equal (sorted), A v = v w."""
    assert type(xp_res) is type(np_res)
    w, v = host(xp_res[0]), host(xp_res[1])
    nw, nv = np_res
    assert (w.dtype, w.shape, v.dtype, v.shape) == (nw.dtype, nw.shape, nv.dtype, nv.shape)
    tol = 1e-4 if w.dtype in (_F32, _C64) else 1e-8
    if hermitian:
        np.testing.assert_allclose(w, nw, rtol=tol, atol=tol)
    else:
        np.testing.assert_allclose(np.sort_complex(w.astype(complex)),
                                   np.sort_complex(nw.astype(complex)), rtol=tol, atol=tol)
    full = a.astype(v.dtype if v.dtype.kind == "c" else np.result_type(a.dtype, v.dtype))
    if hermitian:
        low = np.tril(full)
        full = low + np.conj(np.swapaxes(np.tril(full, -1), -1, -2))
        full = full - 1j * np.imag(np.eye(a.shape[-1]) * full) if full.dtype.kind == "c" \
            else full
    np.testing.assert_allclose(full @ v, v * w[..., None, :], rtol=tol, atol=tol * 10)


@given(square(well=False))
def test_eig_eigvals(a):
    res = npjax.linalg.eig(npjax.asarray(a))
    _check_eig_result(res, np.linalg.eig(a), a, False)
    w, nw = host(npjax.linalg.eigvals(npjax.asarray(a))), np.linalg.eigvals(a)
    assert w.dtype == nw.dtype and w.shape == nw.shape


def test_eig_real_or_complex_dtype():
    rot = np.array([[0, -1], [1, 0]])
    sym = np.array([[2.0, 1], [1, 3]], dtype=np.float32)
    for a in (rot, rot.astype(np.float32), sym, np.stack([sym, sym]), np.eye(3, dtype=bool)):
        assert host(npjax.linalg.eigvals(npjax.asarray(a))).dtype == np.linalg.eigvals(a).dtype
        got, want = npjax.linalg.eig(npjax.asarray(a)), np.linalg.eig(a)
        assert host(got.eigenvectors).dtype == want.eigenvectors.dtype


@pytest.mark.parametrize("name", ["eig", "eigvals", "svd", "svdvals", "pinv", "matrix_rank",
                                  "cond", "lstsq"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_input(name, bad):
    a = np.array([[1.0, 2.0], [bad, 4.0]])
    if bad == np.inf and name in ("svd", "svdvals", "pinv", "matrix_rank", "cond", "lstsq"):
        pytest.skip("LAPACK's SVD of inf input: NaN values, no error; not compared")

    def call(xp):
        fn = getattr(xp.linalg, name)
        return fn(xp.asarray(a), xp.ones(2)) if name == "lstsq" else fn(xp.asarray(a))
    assert_parity(quiet(call), name=LIN)


@given(square(well=False), st.sampled_from(["L", "U", "l", "u"]))
def test_eigh_eigvalsh(a, uplo):
    if a.dtype.kind == "c":  # LAPACK ignores the imaginary part of the diagonal
        pass
    res = npjax.linalg.eigh(npjax.asarray(a), UPLO=uplo)
    want = np.linalg.eigh(a, UPLO=uplo)
    b = a if uplo in "Ll" else np.conj(np.swapaxes(a, -1, -2))
    _check_eig_result(res, want, b, True)
    assert_parity(lambda xp: xp.linalg.eigvalsh(xp.asarray(a), UPLO=uplo), name=LIN,
                  context=(a, uplo))


def test_eigh_bad_uplo():
    assert_parity(lambda xp: xp.linalg.eigh(xp.eye(2), UPLO="X"))
    assert_parity(lambda xp: xp.linalg.eigvalsh(xp.eye(2), UPLO="X"))


# --- SVD, pinv, rank, cond, lstsq ------------------------------------------------------------

@given(rect(), st.booleans())
def test_svd(a, full):
    got = npjax.linalg.svd(npjax.asarray(a), full_matrices=full)
    want = np.linalg.svd(a, full_matrices=full)
    assert type(got) is type(want)
    u, s, vh = (host(x) for x in got)
    for g, w in zip((u, s, vh), want):
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
    assert_same(got.S, want.S, name=LIN)
    k = s.shape[-1]
    tol = 1e-4 if s.dtype == _F32 else 1e-9
    recon = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    np.testing.assert_allclose(recon, a, rtol=tol, atol=tol)
    assert_parity(lambda xp: xp.linalg.svd(xp.asarray(a), compute_uv=False), name=LIN)
    assert_parity(lambda xp: xp.linalg.svdvals(xp.asarray(a)), name=LIN)


@given(spd(dtypes=INEXACT), st.booleans())
def test_svd_hermitian(a, flip):
    if flip:  # indefinite: negative eigenvalues exercise the sign handling
        a = (a - 2 * a.shape[-1] * np.eye(a.shape[-1])).astype(a.dtype)
    got = npjax.linalg.svd(npjax.asarray(a), hermitian=True)
    want = np.linalg.svd(a, hermitian=True)
    assert_same(got.S, want.S, name=LIN)
    u, s, vh = (host(x) for x in got)
    assert u.dtype == want.U.dtype and vh.dtype == want.Vh.dtype
    tol = 1e-4 if s.dtype == _F32 else 1e-9
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, rtol=tol, atol=tol * 10)
    assert_parity(lambda xp: xp.linalg.svd(xp.asarray(a), compute_uv=False, hermitian=True),
                  name=LIN)


@given(rect(), st.sampled_from([None, 1e-3, 0.5]), st.booleans(), st.integers(0, 2))
def test_pinv_rank_cond(a, rtol, herm, variant):
    if herm:
        a = a[..., :1, :1] if a.shape[-1] != a.shape[-2] else a
        a = (a + np.conj(np.swapaxes(a, -1, -2))) if a.dtype.kind != "b" else a
    pinv_kw = [dict(hermitian=herm), dict(rtol=rtol), dict(rcond=0.1)][variant]
    if "rtol" in pinv_kw and a.dtype.kind not in "fc":
        pinv_kw = {}
    assert_parity(lambda xp: xp.linalg.pinv(xp.asarray(a), **pinv_kw), name=LIN,
                  context=(a, pinv_kw))
    rank_kw = [dict(hermitian=herm), dict(rtol=rtol), dict(tol=0.5)][variant]
    assert_parity(lambda xp: xp.linalg.matrix_rank(xp.asarray(a), **rank_kw),
                  context=(a, rank_kw))
    p = [None, 2, -2][variant]
    # exact rank deficiency: both give a huge or infinite value, compared as "large"
    got = host(npjax.linalg.cond(npjax.asarray(a), p))
    with np.errstate(all="ignore"):
        want = np.linalg.cond(a, p)
    assert got.dtype == want.dtype and got.shape == want.shape
    fine = np.isfinite(want) & (want < 1e6)
    np.testing.assert_allclose(got[fine], want[fine], rtol=1e-4)
    assert np.all(~np.isfinite(got[~fine]) | (got[~fine] > 1e5))


@given(square(), st.sampled_from([1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc", None]))
def test_cond_p(a, p):
    assert_parity(quiet(lambda xp: xp.linalg.cond(xp.asarray(a), p)), name=LIN, context=(a,))


def test_cond_singular_and_errors():
    sing = np.array([[1.0, 1], [1, 1]])
    for p in (None, 1, -1, np.inf, "fro", "nuc"):
        assert_parity(quiet(lambda xp, p=p: xp.linalg.cond(xp.asarray(sing), p)), context=p)
    assert_parity(lambda xp: xp.linalg.cond(xp.ones((2, 3)), 1))
    assert_parity(lambda xp: xp.linalg.cond(xp.ones((0, 2))))
    assert_parity(lambda xp: xp.linalg.cond(xp.eye(2), "bogus"))


def test_rank_pinv_arguments():
    a = np.array([[1.0, 2], [2, 4.0000001]])
    assert_parity(lambda xp: xp.linalg.matrix_rank(xp.asarray(a), tol=1, rtol=1))
    assert_parity(lambda xp: xp.linalg.pinv(xp.asarray(a), rcond=1, rtol=1))
    assert_parity(lambda xp: xp.linalg.pinv(xp.asarray(a.astype(int)), rtol=None))
    assert_parity(lambda xp: xp.linalg.pinv(xp.asarray(a), rtol=None), name=LIN)
    for x in (np.zeros(3), np.ones(2), np.float64(0), 3, np.zeros((2, 0))):
        assert_parity(lambda xp, x=x: xp.linalg.matrix_rank(xp.asarray(x)), context=(x,))
    assert_parity(lambda xp: xp.linalg.matrix_rank(xp.asarray(np.stack([a, a])),
                                                   tol=np.array([0.1, 10])))
    assert_parity(lambda xp: xp.linalg.pinv(xp.ones((2, 0, 3), dtype=int)))


@given(rect(batch=False), st.data())
def test_lstsq(a, data):
    m = a.shape[0]
    bshape = data.draw(st.sampled_from([(m,), (m, 1), (m, 2), (m, 0)]))
    b = data.draw(_values(data.draw(st.sampled_from(DTYPES)), bshape))
    rcond = data.draw(st.sampled_from([None, -1, 0.1]))
    assert_parity(lambda xp: xp.linalg.lstsq(xp.asarray(a), xp.asarray(b), rcond=rcond),
                  name=LIN, context=(a, b, rcond))


def test_lstsq_errors_and_empty():
    assert_parity(lambda xp: xp.linalg.lstsq(xp.ones((3, 2)), xp.ones(2)))
    assert_parity(lambda xp: xp.linalg.lstsq(xp.ones((2, 3, 2)), xp.ones((2, 3))))
    assert_parity(lambda xp: xp.linalg.lstsq(xp.ones((0, 2)), xp.ones(0)), name=LIN)
    assert_parity(lambda xp: xp.linalg.lstsq(xp.ones((2, 0)), xp.ones(2)), name=LIN)
    assert_parity(lambda xp: xp.linalg.lstsq(xp.ones((3, 2)), xp.ones((3, 2))), name=LIN)


# --- norms -----------------------------------------------------------------------------------

_VEC_ORDS = [None, 0, 1, 2, 3, 0.5, -1, -2, np.inf, -np.inf, "fro", "nuc"]
_MAT_ORDS = [None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "f", "nuc", 3, "bogus"]


@given(st.data())
def test_norm(data):
    dtype = data.draw(st.sampled_from(DTYPES + [np.dtype(np.float16)]))
    shape = data.draw(st.sampled_from([(3,), (0,), (2, 3), (3, 0), (2, 2, 3)]))
    nd = len(shape)
    x = data.draw(_values(dtype, shape))
    axis = data.draw(st.sampled_from([None, 0, -1, (0,), (0, -1), (-1, 0), (0, 0), (0, 1, 2),
                                      1.5, 5]))
    ords = _MAT_ORDS if isinstance(axis, tuple) and len(axis) == 2 or (
        axis is None and nd == 2) else _VEC_ORDS
    ord = data.draw(st.sampled_from(ords))
    keep = data.draw(st.booleans())
    name = LIN if dtype != np.float16 else None
    assert_parity(quiet(lambda xp: xp.linalg.norm(xp.asarray(x), ord=ord, axis=axis,
                                                  keepdims=keep)),
                  name=name, context=(x, ord, axis, keep))


@given(st.data())
def test_vector_and_matrix_norm(data):
    dtype = data.draw(st.sampled_from(INEXACT + [np.dtype(np.int64)]))
    x = data.draw(_values(dtype, data.draw(st.sampled_from([(2, 3), (3, 2, 2)]))))
    axis = data.draw(st.sampled_from([None, -1, 0, (0, 1), (1, 0), (-1,)]))
    ord = data.draw(st.sampled_from([2, 1, np.inf, -np.inf, 0, 3]))
    keep = data.draw(st.booleans())
    assert_parity(quiet(lambda xp: xp.linalg.vector_norm(xp.asarray(x), axis=axis, ord=ord,
                                                         keepdims=keep)),
                  name=LIN, context=(x, axis, ord, keep))
    mord = data.draw(st.sampled_from(["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]))
    assert_parity(quiet(lambda xp: xp.linalg.matrix_norm(xp.asarray(x), ord=mord,
                                                         keepdims=keep)),
                  name=LIN, context=(x, mord, keep))


# --- functions numpy.linalg shares with numpy ------------------------------------------------

def test_shared_functions():
    a = np.arange(12.0).reshape(2, 2, 3)
    v = np.arange(3.0)
    cases = [
        lambda xp: xp.linalg.matmul(xp.asarray(a), xp.asarray(v)),
        lambda xp: xp.linalg.vecdot(xp.asarray(a), xp.asarray(v)),
        lambda xp: xp.linalg.vecdot(xp.asarray(v), xp.asarray(v)),
        lambda xp: xp.linalg.tensordot(xp.asarray(a), xp.asarray(v), axes=1),
        lambda xp: xp.linalg.matrix_transpose(xp.asarray(a)),
        lambda xp: xp.linalg.matrix_transpose(xp.asarray(v)),
        lambda xp: xp.linalg.diagonal(xp.asarray(a), offset=1),
        lambda xp: xp.linalg.trace(xp.asarray(a)),
        lambda xp: xp.linalg.trace(xp.asarray(a[0].astype(np.int8)), dtype=np.int16),
        lambda xp: xp.linalg.outer(xp.asarray(v), xp.asarray(v[:2])),
        lambda xp: xp.linalg.outer(xp.asarray(a), xp.asarray(v)),
        lambda xp: xp.linalg.cross(xp.asarray(a), xp.asarray(v)),
        lambda xp: xp.linalg.cross(xp.asarray(a[..., :2]), xp.asarray(v[:2])),
        lambda xp: xp.linalg.cross(xp.asarray(a), xp.asarray(a), axis=0),
    ]
    for i, case in enumerate(cases):
        assert_parity(case, context=i)
