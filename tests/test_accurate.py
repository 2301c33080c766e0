"""The TPU's accurate float32 lowering rules (``npjax/_pure/_accurate.py``), registered for
the CPU here: NumPy's values within a few ulps over every float32 exponent (subnormal inputs,
signed zeros, inf, nan and the largest floats included), ``fmod`` bit for bit, complex64
``log``/``log1p``, float16 through float32, and npjax's public functions on top of them."""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import npjax
from npjax._pure import _accurate

pytestmark = pytest.mark.skipif(jax.default_backend() != "cpu", reason="registers the TPU's "
                                "rules for the CPU; on a TPU they are the platform's own")

_TINY = np.finfo(np.float32).tiny
_EDGES = np.array([0.0, 1e-45, 1e-40, 1.1754942e-38, _TINY, 1e-30, 2.0 ** -25, 1e-7, 0.5,
                   0.625, 1.0, 1.0000001, 0.99999994, 2.0, 3.0, 10.0, 88.72283, 88.72284,
                   89.41598, 89.416, 128.0, 3.4028235e38, np.inf], np.float32)
# every 65521st positive float32 bit pattern (all exponents), the edges, their negatives, nan
_POS = np.arange(0, 0x7F800000, 65521, dtype=np.int64).astype(np.uint32).view(np.float32)
_SWEEP = np.concatenate([_POS, _EDGES, -_POS, -_EDGES, [np.nan]]).astype(np.float32)
_UNARY = ("log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "tanh", "sinh", "cosh",
          "arcsinh", "arccosh", "arctanh")


@contextlib.contextmanager
def _accurate_on_cpu():
    """The rules registered for the CPU inside; JAX's own afterwards."""
    from jax._src.interpreters import mlir

    saved = dict(mlir._platform_specific_lowerings["cpu"])
    jax.clear_caches()
    try:
        assert _accurate.install_accurate(("cpu",))
        yield
    finally:
        mlir._platform_specific_lowerings["cpu"].clear()
        mlir._platform_specific_lowerings["cpu"].update(saved)
        jax.clear_caches()


@pytest.fixture(scope="module")
def rules():
    with _accurate_on_cpu():
        yield


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    g = got.view(np.int32).astype(np.int64)
    w = want.view(np.int32).astype(np.int64)
    g, w = (np.where(v < 0, -(2**31) - v, v) for v in (g, w))
    return np.abs(g - w)


def _close(got: np.ndarray, want: np.ndarray, ulps: int) -> None:
    """Same dtype and nan places; within ``ulps`` (results XLA's CPU flushes to zero, below
    the smallest normal float, within that)."""
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    g, w = got[ok], want[ok]
    far = _ulps(g, w) > ulps
    far &= ~((np.abs(w) < _TINY) & (np.abs(g) < _TINY))
    assert not far.any(), list(zip(g[far][:5], w[far][:5]))


@pytest.mark.parametrize("name", _UNARY)
def test_float32_functions_are_within_a_few_ulps_of_numpy(rules, name):
    f = jax.jit(getattr(jnp, name))
    got = np.asarray(f(_SWEEP))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(_SWEEP)
    _close(got, want, 3)
    # the rule replaced XLA's function: no log, tanh... left in the program
    text = f.lower(_SWEEP).as_text()
    assert not any(op in text for op in ("stablehlo.log", "stablehlo.exponential",
                                         "stablehlo.tanh", "chlo.")), name
    assert "stablehlo.bitcast_convert" in text


def test_signed_zeros_and_the_chips_wrong_values(rules):
    z = np.array([0.0, -0.0], np.float32)
    for name in ("log1p", "expm1", "tanh", "sinh", "arcsinh", "arctanh"):
        got = np.asarray(jax.jit(getattr(jnp, name))(z))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(z), err_msg=name)
    # measured wrong on a TPU v5e before the rules (_capabilities.ACCURATE_FLOAT32)
    for name, x in (("log1p", 3.4028235e38), ("log", 3.0), ("log10", 3.0), ("tanh", 1.5),
                    ("arccosh", 3.0), ("log2", 8.0), ("log2", 2.0 ** -140)):
        got = np.asarray(jax.jit(getattr(jnp, name))(np.float32(x)))
        want = getattr(np, name)(np.float32(x))
        assert _ulps(got[None], want[None])[0] <= 1, (name, x, got, want)


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    n = 20000
    a = rng.integers(0, 0x7F800000, n).astype(np.uint32).view(np.float32)
    b = rng.integers(0, 0x7F800000, n).astype(np.uint32).view(np.float32)
    tiny = rng.integers(1, 0x01000000, n).astype(np.uint32).view(np.float32)  # subnormals
    near = (b * np.exp2(rng.integers(-12, 12, n))).clip(0, 3e38).astype(np.float32)
    a, b = np.concatenate([a, a, tiny, b]), np.concatenate([b, tiny, a[::-1], near])
    signs = np.where(rng.random((2, a.size)) < 0.5, -1, 1).astype(np.float32)
    special = np.array([[-3.4028235e38, -4.1200732e16], [5, 3], [-5, 3], [5, -3], [0.0, 1],
                        [-0.0, 1], [1, 0.0], [np.inf, 1], [1, np.inf], [np.nan, 1],
                        [1, np.nan], [6, 3], [-6, 3], [3.4028235e38, 1e-45]], np.float32)
    return (np.concatenate([a * signs[0], special[:, 0]]),
            np.concatenate([b * signs[1], special[:, 1]]))


def test_fmod_is_exact(rules):
    """C's fmod bit for bit (XLA's TPU rem gave -0.0 for the first special pair)."""
    a, b = _pairs()
    got = np.asarray(jax.jit(jnp.fmod)(a, b))
    with np.errstate(all="ignore"):
        want = np.fmod(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.int32)[~np.isnan(want)],
                                  want.view(np.int32)[~np.isnan(want)])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    col, row = a[:40].reshape(8, 5, 1), b[:6].reshape(1, 6)  # (the primitive broadcasts)
    np.testing.assert_array_equal(np.asarray(jax.jit(jnp.fmod)(col, row)), np.fmod(col, row))
    # (jnp's sign fix compares the fmod with 0 and adds: XLA's CPU flushes subnormals there)
    normal = ((np.abs(want) >= _TINY) | (want == 0)) & (np.abs(a) >= _TINY)
    got = np.asarray(jax.jit(jnp.remainder)(a[normal], b[normal]))
    with np.errstate(all="ignore"):
        want = np.remainder(a[normal], b[normal])
    _close(got, want, 0)


def test_complex64_log_and_log1p(rules):
    rng = np.random.default_rng(5)
    re = rng.standard_normal(5000) * np.exp(rng.uniform(-30, 30, 5000))
    im = rng.standard_normal(5000) * np.exp(rng.uniform(-30, 30, 5000))
    z = np.concatenate([(re + 1j * im), [1 + 1j, 0.6 + 0.8j, 0, -0.0 + 0j, 1e-40 + 0j,
                                          np.inf + 1j, 1j * np.inf, np.nan + 0j, -1 + 0j,
                                          3e38 + 3e38j]]).astype(np.complex64)
    for name in ("log", "log1p"):
        f = jax.jit(getattr(jnp, name))
        got = np.asarray(f(z))
        with np.errstate(all="ignore"):
            want = getattr(np, name.removeprefix("npjax."))(z)
        assert got.dtype == want.dtype == np.complex64
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=3e-7, equal_nan=True)
        assert "stablehlo.log" not in f.lower(z).as_text()


def test_complex64_power_follows_numpys_cases(rules):
    """npy_cpow: zero exponent, zero base, integer exponents in (-100, 100) multiplied out
    (float and integer exponent arrays), the rest exp(y log x)."""
    rng = np.random.default_rng(9)
    n = 3000
    a = (rng.standard_normal(n) * np.exp(rng.uniform(-2, 2, n))
         + 1j * rng.standard_normal(n) * np.exp(rng.uniform(-2, 2, n))).astype(np.complex64)
    cases = [(a, (rng.standard_normal(n) * 3 + 2j * rng.standard_normal(n))),
             (a, rng.integers(-12, 12, n).astype(np.complex64)),
             (a, rng.integers(-12, 12, n).astype(np.int16)),
             (a, (rng.integers(-8, 8, n) / 2).astype(np.float32)),
             (np.array([0, 0, 0, 1 + 1j, 2, -2, 1j, 0, 3 - 4j], np.complex64),
              np.array([0, 2, -2, 0, 0.5, 0.5, 1j, 1j, 3], np.complex64)),
             (np.full(3, 2, np.float32), np.array([1j, 2j, -1j], np.complex64))]
    for x, y in cases:
        y = np.asarray(y).astype(y.dtype if y.dtype != np.complex128 else np.complex64)
        f = jax.jit(jnp.power)
        got = np.asarray(f(x, y))
        with np.errstate(all="ignore"):
            want = np.power(x, y)
        assert got.dtype == want.dtype == np.complex64
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-30, equal_nan=True)
        assert "stablehlo.power" not in f.lower(x, y).as_text()


def test_complex64_inverse_functions(rules):
    """arcsin, arccos, arcsinh, arccosh, arctanh of complex64 (Kahan's formulas on the rules'
    real asinh): NumPy's values, the sides of the branch cuts by the signed zeros, JAX's own
    special values for infinite and nan parts."""
    rng = np.random.default_rng(11)
    n = 4000
    x, y = rng.uniform(-2, 2, n), np.sign(rng.standard_normal(n)) * 10 ** rng.uniform(-8, 1, n)
    edges = np.array([0, 1, 2, 0.5, 1j, 2j, 1 + 1j, 1e-30, 1e30 + 1e30j, 1e30j], np.complex64)
    edges = np.concatenate([edges, np.conj(edges), -edges, -np.conj(edges)])
    z = np.concatenate([x + 1j * y, y + 1j * x, edges]).astype(np.complex64)
    for name in ("arcsin", "arccos", "arcsinh", "arccosh", "arctanh"):
        f = jax.jit(getattr(jnp, name))
        got = np.asarray(f(z))
        with np.errstate(all="ignore"):
            want = getattr(np, name.removeprefix("npjax."))(z)
        assert got.dtype == want.dtype == np.complex64
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30, err_msg=name)
        for part in (np.real, np.imag):
            np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)),
                                          err_msg=name)
        text = f.lower(z).as_text()
        assert "chlo." in text and "stablehlo.atan2" in text  # (chlo: the special values)
    special = np.array([complex(np.inf, 1), complex(1, np.inf), complex(np.nan, 1)],
                       np.complex64)
    got = np.asarray(jax.jit(jnp.arcsin)(special))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(np.arcsin(special)))


def _grid_c64() -> np.ndarray:
    parts = np.array([0.0, -0.0, 1e-30, -1e-30, 0.5, 1.0, -2.5, 8.9, 9.0, 11.0, -12.0, 50.0,
                      100.0, 1e30, -1e30], np.float32)
    z = np.empty((parts.size, parts.size), np.complex64)
    z.real, z.imag = parts[:, None], parts[None, :]
    rng = np.random.default_rng(13)
    r = (rng.standard_normal((2, 4000)) * 10 ** rng.uniform(-6, 1.5, (2, 4000))).astype(
        np.float32)
    return np.concatenate([z.ravel(), (r[0] + 1j * r[1]).astype(np.complex64)])


@pytest.mark.parametrize("name", ["tanh", "tan", "arctan", "sinh", "cosh", "npjax.sinh",
                                  "npjax.cosh"])
def test_complex64_tanh_tan_arctan_sinh_cosh(rules, name):
    """Kahan's tanh (and tan = -i tanh(iz), arctan = -i atanh(iz)), sinh and cosh: NumPy's
    values within a few float32 ulps, tiny parts kept (the chip's own gave tanh(1e-30 + 0.5j)
    = 0.546j, sinh(3 + 0j) 2.4e-6 off, arctan(1e-30 + 1j) inf j), +-1 at a large real part
    (the chip's own: NaN), results below the smallest normal float aside (XLA's CPU flushes
    them). sinh and cosh past exp's overflow through npjax's functions, which scale there."""
    z = _grid_c64()
    if name in ("sinh", "cosh"):
        z = z[np.abs(z.real) < 88]
    if name.startswith("npjax."):
        def f(v):
            with npjax.policy(placement="device"), npjax.errstate(all="ignore"):
                return getattr(npjax, name[6:])(npjax.asarray(v))
    else:
        f = jax.jit(getattr(jnp, name))
    got = np.asarray(f(z))
    with np.errstate(all="ignore"):
        want = getattr(np, name.removeprefix("npjax."))(z)
    assert got.dtype == want.dtype == np.complex64
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        flushed = (np.abs(w) < _TINY) & (np.abs(g) < _TINY)
        close = np.isclose(g, w, rtol=1e-6, atol=0) | flushed
        assert close.all(), list(zip(z[~close][:4], got[~close][:4], want[~close][:4]))
        assert (np.signbit(g) == np.signbit(w))[~flushed].all(), name
    if not name.startswith("npjax."):  # the formula is in the program (the primitive itself
        # only for infinite and NaN parts)
        text = f.lower(z).as_text()
        assert ("stablehlo.atan2" if name == "arctan" else "stablehlo.sine") in text


def _power_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """(x, y) pairs: the sweep's finite nonzero x to fixed exponents (integers up to 50000,
    +-0.5, fractions), and results near the ends of the range (|y ln x| near 88, y log2 x
    in [-150, 128]), x within 1e-3 or a few ulps of 1 to exponents up to 1e8, negative x
    to integers, and the brief's examples."""
    x = _SWEEP[np.isfinite(_SWEEP) & (_SWEEP != 0)]
    cases = [(x, np.full_like(x, y)) for y in (
        -127, -7, -3, -2, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.2, 3, 7, 100, 127, 128, -129, -2.5,
        1e-3, 10.3, 0.1, -40.7, 50000.0, 1e10)]
    rng = np.random.default_rng(19)
    n = 20000
    big = np.exp(rng.uniform(-87, 87, n)).astype(np.float32)
    ln = np.log(big.astype(np.float64))
    cases.append((big, (rng.choice([-1, 1], n) * rng.uniform(85, 89, n) / ln).astype(np.float32)))
    cases.append((big, (rng.uniform(-150, 128, n) / np.log2(big.astype(np.float64))).astype(
        np.float32)))
    near = np.concatenate([1 + rng.uniform(-1e-3, 1e-3, n),
                           1 + rng.integers(1, 40, n) * rng.choice([-2.0**-24, 2.0**-23], n)])
    near = near.astype(np.float32)
    y = (rng.uniform(-88, 88, 2 * n) / np.log(near.astype(np.float64))).astype(np.float32)
    cases += [(near, y), (near, np.round(y)), (-near, np.round(y))]
    neg = rng.uniform(-100, 100, n).astype(np.float32)
    cases.append((neg, rng.integers(-130, 130, n).astype(np.float32)))
    cases.append((np.array([1.0001, 0.8175, 3183, 1.63, -1.0001, -1.0001, 1e30, 2, 1e-45],
                           np.float32),
                  np.array([50000.0, -127, 10.3, -127, 50001, 50000, -1, -149, -1], np.float32)))
    return cases


def test_float32_power(rules):
    """x ** y of finite nonzero x (subnormal and negative x, integer exponents of any size
    too): within 2 ulps of NumPy's powf (1 measured) and 1 of the correctly rounded value
    (float64's, rounded); infinities, NaN and zeros as NumPy's, results below the smallest
    normal float aside (XLA's CPU flushes them)."""
    f = jax.jit(jnp.power)
    for x, y in _power_cases():
        got = np.asarray(f(x, y))
        with np.errstate(all="ignore"):
            want = np.power(x, y)
            exact = (x.astype(np.float64) ** y.astype(np.float64)).astype(np.float32)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want) & ~((np.abs(want) < _TINY) & (np.abs(got) < _TINY))
        far = (_ulps(got[ok], want[ok]) > 2) | (_ulps(got[ok], exact[ok]) > 1)
        assert not far.any(), (x[ok][far][:4], y[ok][far][:4], got[ok][far][:4],
                               want[ok][far][:4])
    assert np.asarray(f(np.float32(1e30), np.float32(-1))) == np.float32(1e-30)
    x = _SWEEP[:8]
    assert "stablehlo.power" not in f.lower(x, x).as_text().split("stablehlo.select")[0]


def test_complex64_exp(rules):
    """exp(x)(cos y + i sin y) on the real rule: NumPy's values (past x = 88.7 too, where
    exp(x) alone overflows) and the signs of zero parts."""
    rng = np.random.default_rng(17)
    z = (rng.uniform(-100, 100, 4000) + 1j * rng.uniform(-20, 20, 4000)).astype(np.complex64)
    z = np.concatenate([z, _grid_c64(), np.array([89 + 0.5j, 120 - 1j, 170 + 3j, -2.5 - 0j],
                                                 np.complex64)])
    got = np.asarray(jax.jit(jnp.exp)(z))
    with np.errstate(all="ignore"):
        want = np.exp(z)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        flushed = (np.abs(w) < _TINY) & (np.abs(g) < _TINY)
        close = np.isclose(g, w, rtol=1e-6, atol=0, equal_nan=True) | flushed
        assert close.all(), list(zip(z[~close][:4], got[~close][:4], want[~close][:4]))
        assert (np.signbit(g) == np.signbit(w))[~flushed & ~np.isnan(w)].all()


def test_float16_goes_through_float32(rules):
    x = np.arange(0, 0x7C01, 7, dtype=np.uint16).view(np.float16)
    x = np.concatenate([x, -x])
    for name in ("log", "log1p", "expm1", "tanh", "arcsinh", "fmod"):
        f = jax.jit(getattr(jnp, name))
        args = (x, np.float16(0.3)) if name == "fmod" else (x,)
        got = np.asarray(f(*args))
        with np.errstate(all="ignore"):
            want = getattr(np, name)(*args)
        assert got.dtype == want.dtype == np.float16
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        d = np.abs(got[ok].view(np.int16).astype(int) - want[ok].view(np.int16).astype(int))
        assert d.max() <= 1, name  # (NumPy rounds its float32 result too: ties may differ)


def test_npjax_functions_on_the_rules(rules):
    x = np.array([[0.5, 3.0, 1e-3, 1e30], [7.0, 1.5, 2.0, 1e-38]], np.float32)
    with npjax.policy(placement="device"), npjax.errstate(all="ignore"), \
            np.errstate(all="ignore"):
        for name in ("log", "log1p", "tanh", "arcsinh", "arccosh", "sinh", "expm1"):
            got = getattr(npjax, name)(npjax.asarray(x))
            want = getattr(np, name)(x)
            assert got.dtype == want.dtype
            _close(np.asarray(got), want, 3)
        got = npjax.fmod(npjax.asarray(x), npjax.asarray(np.float32(0.7)))
        np.testing.assert_array_equal(np.asarray(got), np.fmod(x, np.float32(0.7)))
