"""Ufuncs on the device give NumPy's special values (C99 Annex G for complex functions): for
every unary ufunc on a grid of 0, -0, +-1, +-inf, NaN, large and small values in each part
(complex) or alone (real), and the binary ones on pairs of them, the result has NumPy's NaN
positions, infinities, zeros and sign bits in each part, and its other values to a few
units in the last place, in eager calls, lazy mode and npjax.jit (issue 36).

Left out, as README's line on complex special values lists: complex power (``power``,
``float_power``) with an infinite or NaN part; subnormal results (XLA's CPU backend flushes
them to zero); log1p of a tiny complex number (NumPy computes log(1 + z), 0);
complex64 exp2 of a huge imaginary part (the argument rounds in float32 first); real
``maximum``/``minimum`` of two zeros of opposite signs (NumPy gives the second operand, XLA's
max/min +0.0 / -0.0: a select that gave NumPy's split the fused programs of npjax.jit);
complex power where |Im(y log x)| is past 1/eps, so the result's phase is rounding noise
(NumPy's own signs there differ between C libraries: (-2.5+1j) ** 1e30 in complex64 was
-inf - inf j here, inf + inf j on the TPU machine's host); on a
TPU, complex ``multiply``/``square`` whose two products cancel (NumPy's loop keeps the
rounding error of one in a fused multiply-add, which the chip does not have:
(1e-30 + 1j) * (1e30 + 1j) has the real part 1.8e-8 there, 0 on the chip)."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

import npjax
from npjax._calls._ufuncs import NAMES

pytestmark = pytest.mark.device_placement

_EDGE = {np.float64: (1e300, 1e-300), np.float32: (1e30, 1e-30), np.float16: (1e4, 1e-2)}
_REAL = {np.complex128: np.float64, np.complex64: np.float32}
_RTOL = {np.float64: 1e-13, np.float32: 2e-6, np.float16: 2e-3}
_GUFUNCS = ("matmul", "vecdot", "matvec", "vecmat")


def _parts(real):
    big, small = _EDGE[real]
    return np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, big, -big, small, 0.5,
                     -2.5], real)


def _grid(dtype):
    if dtype in _REAL:
        p = _parts(_REAL[dtype])
        z = np.empty((p.size, p.size), dtype)
        z.real, z.imag = p[:, None], p[None, :]  # (1j * inf would be nan + inf j)
        return z.ravel()
    return _parts(dtype)


def _loops(nin, dtype):
    """The ufuncs with ``nin`` operands that NumPy computes for ``dtype`` in ``dtype``."""
    names = []
    for name in NAMES:
        uf = getattr(np, name)
        if uf.nin != nin or name in _GUFUNCS or name == "isnat" or uf.__name__ != name:
            continue  # (aliases such as acos: the same ufunc object as arccos)
        try:
            uf.resolve_dtypes((np.dtype(dtype),) * nin + (None,) * uf.nout)
        except TypeError:
            continue
        names.append(name)
    return names


def _skipped(name, dtype, *operands):
    """Where a documented difference (module docstring) leaves the grid."""
    real = _REAL.get(dtype, dtype)
    small = _EDGE[real][1]
    z = operands[0]
    if name in ("power", "float_power") and dtype in _REAL:
        a, b = operands
        with np.errstate(all="ignore"):
            phase = np.abs((np.log(a.astype(np.complex128)) * b).imag)
        noise = phase * np.finfo(real).eps > 1  # (the result's phase: rounding noise)
        return ~(np.isfinite(a) & np.isfinite(b)) | noise
    if name == "log1p" and dtype in _REAL:
        return ((np.abs(z.real) == small) | (z.real == -1)) & (np.abs(z.imag) <= small)
    if name == "exp2" and dtype == np.complex64:
        return np.abs(z.imag) == _EDGE[real][0]
    if name == "spacing":
        return np.abs(z) == small
    if name in ("maximum", "minimum") and dtype not in _REAL:
        return (operands[0] == 0) & (operands[1] == 0)
    if name in ("multiply", "square") and dtype in _REAL and jax.default_backend() == "tpu":
        a, b = (operands * 2)[:2]
        a, b = a.astype(np.complex128), b.astype(np.complex128)
        with np.errstate(all="ignore"):
            pairs = ((a.real * b.real, a.imag * b.imag), (a.real * b.imag, -a.imag * b.real))
            return np.logical_or.reduce([np.abs(p - q) < 1e-6 * np.abs(p) for p, q in pairs])
    return np.zeros(z.shape, bool)


def _assert_same(name, got, want, skip, operands):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, want.dtype)
    if want.dtype.kind in "c":
        pairs = [(got.real, want.real), (got.imag, want.imag)]
    else:
        pairs = [(got, want)]
    bad = np.zeros(want.shape, bool)
    for g, w in pairs:
        if w.dtype.kind != "f":
            bad |= g != w
            continue
        nan = np.isnan(w)
        with np.errstate(all="ignore"):
            close = (g == w) | (np.abs(g - w) <= _RTOL[w.dtype.type] * np.abs(w))
        same = np.where(nan, np.isnan(g), close & (np.signbit(g) == np.signbit(w)))
        bad |= ~same
    bad &= ~skip
    where = np.nonzero(bad)[0][:4]
    assert not bad.any(), [(name, *(o[i] for o in operands), want[i], got[i]) for i in where]


def _run(name, mode, *operands):
    fn = getattr(npjax, name)
    with npjax.policy(placement="device"), npjax.errstate(all="ignore"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        args = [npjax.asarray(o) for o in operands]
        if mode == "jit":
            return npjax.jit(fn)(*args)
        with npjax.policy(mode=mode):
            res = fn(*args)
            return tuple(np.asarray(r) for r in res) if isinstance(res, tuple) else \
                np.asarray(res)


def _check(name, dtype, mode, *operands):
    with np.errstate(all="ignore"):
        want = getattr(np, name)(*operands)
    got = _run(name, mode, *operands)
    skip = _skipped(name, dtype, *operands)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            _assert_same(name, g, w, skip, operands)
    else:
        _assert_same(name, got, want, skip, operands)


_MODES = ["eager", "lazy", "jit"]
_UNARY = [(name, dt) for dt in (np.complex128, np.complex64, np.float64, np.float32, np.float16)
          for name in _loops(1, dt)]
_BINARY = [(name, dt) for dt in (np.complex128, np.complex64, np.float64, np.float32)
           for name in _loops(2, dt)]


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize(("name", "dtype"), _UNARY,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in _UNARY])
def test_unary_special_values_are_numpys(name, dtype, mode):
    _check(name, dtype, mode, _grid(dtype))


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize(("name", "dtype"), _BINARY,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in _BINARY])
def test_binary_special_values_are_numpys(name, dtype, mode):
    g = _grid(dtype)
    if dtype in _REAL:  # a coarser grid: the pairs of 144 values are many
        g = g[np.isin(np.arange(g.size) % 12, [0, 1, 2, 4, 5, 6])][::2]
    a, b = np.meshgrid(g, g)
    _check(name, dtype, mode, a.ravel(), b.ravel())


@pytest.mark.parametrize("mode", _MODES)
def test_the_cases_of_issue_36(mode):
    z = np.array([complex(-0.0, np.inf), complex(np.nan, 0), complex(np.inf, np.nan),
                  complex(-np.inf, 1)])
    for name in ("sqrt", "exp", "log", "log1p", "sinh", "cosh", "tanh", "sign", "arctanh",
                 "arcsinh"):
        _check(name, np.complex128, mode, z)
    _check("sign", np.float64, mode, np.array([-0.0, 0.0, -1.0, np.nan]))


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_vecdot_axis(mode, axis):
    a = np.arange(24.0).reshape(2, 3, 4)
    b = (np.ones((2, 3, 4)) + 1j) * np.arange(4)
    want = np.vecdot(a, b, axis=axis)
    with npjax.policy(placement="device"):
        x, y = npjax.asarray(a), npjax.asarray(b)
        if mode == "jit":
            got = npjax.jit(lambda p, q: npjax.vecdot(p, q, axis=axis))(x, y)
        else:
            with npjax.policy(mode=mode):
                got = np.asarray(npjax.vecdot(x, y, axis=axis))
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).dtype == want.dtype


@pytest.mark.parametrize("xp", [np, npjax])
def test_vecdot_axis_errors(xp):
    with npjax.policy(placement="device"):
        a = xp.asarray(np.ones((2, 3)))
        with pytest.raises(np.exceptions.AxisError):
            xp.vecdot(a, a, axis=2)
        with pytest.raises(TypeError):
            xp.matmul(a, a.T, axis=0)


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log1p_of_the_largest_floats(mode, dtype):
    """``log1p`` from 2**mantissa-bits up takes ``log(1 + x)`` (a TPU flushes the reciprocal
    of ``u - 1`` near the largest float: it gave 0.0); NumPy's values on either side of it."""
    fi = np.finfo(dtype)
    x = np.array([fi.max, fi.max / 3, 2.0 ** (fi.nmant - 1), 2.0 ** fi.nmant,
                  2.0 ** fi.nmant + 2, 1e30, 3.0, 1e-8], dtype)
    _check("log1p", dtype, mode, x)


_PAST = {np.complex64: (89.0, 100.0, 150.0, 177.0, 200.0),
         np.complex128: (710.0, 800.0, 1400.0, 1419.0, 1500.0)}


@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["sinh", "cosh", "sin", "cos"])
def test_hyperbolic_parts_past_exp_overflow(name, dtype, mode):
    """sinh/cosh (and sin/cos of the turned argument) where exp(|x|) overflows but its
    product with a small cos y or sin y does not: NumPy's finite part (XLA's gave
    sin(1e-30 + 100j) = inf + inf j in complex64, NumPy 1.3e13 + inf j)."""
    big = np.array(_PAST[dtype])
    parts = np.concatenate([[0.0, -0.0, 1e-30, -1e-30, 0.5, -2.5, 3.0], big, -big])
    z = np.empty((parts.size, parts.size), dtype)
    z.real, z.imag = parts[:, None], parts[None, :]
    _check(name, dtype, mode, z.ravel())
