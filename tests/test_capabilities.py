"""The capability table's host route, with a simulated table on the backend the tests run on.

On a TPU, XLA refuses float64/complex128 LU and FFTs; ``_capabilities.route`` stages NumPy's
own computation (a host callback) into the kernel for the platforms the table names. CI has no
TPU, so these tests pretend the backend (the CPU there) lacks a family
(``_capabilities.simulate`` for ``PLATFORM``) and check that
every public function built on it gives NumPy's values, dtypes and exceptions in each mode
(eager, lazy, ``npjax.jit``) with the work counted as a host route, and that nothing routes
where the table says the backend computes it.
"""

from __future__ import annotations

import contextlib
import warnings

import jax
import numpy as np
import pytest

import npjax
from npjax._pure import _capabilities, _dtypes
from tests._parity import assert_same

pytestmark = pytest.mark.device_placement

# the platform the tests' programs are lowered for: its table entry is the one simulated
PLATFORM = jax.default_backend()
_CPU_ONLY = pytest.mark.skipif(PLATFORM != "cpu", reason="registers the TPU's lowering rules "
                               "for the CPU; on a TPU they are the platform's own")

_RNG = np.random.default_rng(7)
_A = _RNG.standard_normal((5, 5)) + 5 * np.eye(5)
_B = _RNG.standard_normal(5)
_S = _A @ _A.T + np.eye(5)
_R = _RNG.standard_normal((6, 4))
_X = _RNG.standard_normal((3, 16))
_N = _RNG.integers(-9, 9, (4, 4)) * 2**29 + 3  # products beyond 2**53, sums that wrap
_N3 = _RNG.integers(-2**40, 2**40, (2, 3, 4))
_W = _RNG.integers(-100, 100, 4000) * 1.25  # long enough for the primitive (not unrolled)
_T = np.array([[3.0, -0.0, np.nan, 0.0, 1.0, 3.0, -np.inf], [2, 2, 1, np.nan, 0.0, -1, 5]])

# family -> calls (xp, dtype) whose kernels use it
CALLS = {
    "lu": [lambda xp, dt: xp.linalg.solve(xp.asarray(_A.astype(dt)), xp.asarray(_B.astype(dt))),
           lambda xp, dt: xp.linalg.inv(xp.asarray(_A.astype(dt))),
           lambda xp, dt: xp.linalg.det(xp.asarray(_A.astype(dt))),
           lambda xp, dt: xp.linalg.slogdet(xp.asarray(_A.astype(dt))),
           lambda xp, dt: xp.linalg.matrix_power(xp.asarray(_A.astype(dt)), -2),
           lambda xp, dt: xp.linalg.tensorinv(xp.asarray(_A.astype(dt)), ind=1)],
    "cholesky": [lambda xp, dt: xp.linalg.cholesky(xp.asarray(_S.astype(dt))),
                 lambda xp, dt: xp.linalg.cholesky(xp.asarray(_S.astype(dt)), upper=True)],
    "qr": [lambda xp, dt: xp.linalg.qr(xp.asarray(_R.astype(dt))),
           lambda xp, dt: xp.linalg.qr(xp.asarray(_R.astype(dt)), mode="r"),
           lambda xp, dt: xp.linalg.qr(xp.asarray(_R.astype(dt)), mode="complete")],
    "svd": [lambda xp, dt: xp.linalg.svd(xp.asarray(_R.astype(dt)), full_matrices=False),
            lambda xp, dt: xp.linalg.svd(xp.asarray(_R.astype(dt)), compute_uv=False),
            lambda xp, dt: xp.linalg.pinv(xp.asarray(_R.astype(dt))),
            lambda xp, dt: xp.linalg.lstsq(xp.asarray(_R.astype(dt)),
                                           xp.asarray(_R[:, 0].astype(dt)))[:3],
            lambda xp, dt: xp.linalg.matrix_rank(xp.asarray(_R.astype(dt))),
            lambda xp, dt: xp.linalg.norm(xp.asarray(_R.astype(dt)), 2)],
    "eigh": [lambda xp, dt: xp.linalg.eigvalsh(xp.asarray(_S.astype(dt))),
             lambda xp, dt: abs(xp.linalg.eigh(xp.asarray(_S.astype(dt)))[1])],
    "eig": [lambda xp, dt: xp.sort_complex(xp.linalg.eigvals(xp.asarray(_A.astype(dt))))],
    "fft": [lambda xp, dt: xp.fft.fft(xp.asarray(_X.astype(dt))),
            lambda xp, dt: xp.fft.ifft(xp.asarray(_X.astype(dt)), norm="ortho"),
            lambda xp, dt: xp.fft.rfft(xp.asarray(_X.real.astype(dt)), n=20),
            lambda xp, dt: xp.fft.irfft(xp.asarray(_X.astype(dt)), n=9, norm="forward"),
            lambda xp, dt: xp.fft.hfft(xp.asarray(_X.astype(dt))),
            lambda xp, dt: xp.fft.fft2(xp.asarray(_X.astype(dt))),
            lambda xp, dt: xp.fft.irfftn(xp.asarray(_X.astype(dt)))],
    "sort": [lambda xp, dt: xp.sort(xp.asarray(_T.astype(dt)), axis=1),
             lambda xp, dt: xp.argsort(xp.asarray(_T.astype(dt)), axis=0, kind="stable"),
             lambda xp, dt: xp.argsort(xp.asarray(_T.astype(dt))),
             lambda xp, dt: xp.unique(xp.asarray(_T.astype(dt))),
             lambda xp, dt: xp.lexsort(xp.asarray(_T.astype(dt))),
             lambda xp, dt: xp.searchsorted(xp.sort(xp.asarray(_T[0].astype(dt))),
                                            xp.asarray(_T[1].astype(dt)), side="right"),
             # jax.numpy's sorts inside npjax's kernels: the sort primitive's host rule
             lambda xp, dt: xp.median(xp.asarray(_T.astype(dt)), axis=1),
             lambda xp, dt: xp.partition(xp.asarray(_T.astype(dt)), 3, axis=1)[:, 3]],
    # primitives routed where a program meets them (``_lowerings.install_on_host``)
    "dot_general": [lambda xp, dt: xp.asarray(_N.astype(dt)) @ xp.asarray(_N.T.astype(dt)),
                    lambda xp, dt: xp.einsum("ij,kj->ik", xp.asarray(_N.astype(dt)),
                                             xp.asarray(_N.astype(dt))),
                    lambda xp, dt: xp.tensordot(xp.asarray(_N3.astype(dt)),
                                                xp.asarray(_N.astype(dt)), axes=([2], [1])),
                    lambda xp, dt: xp.linalg.matrix_power(xp.asarray(_N.astype(dt)), 3)],
    "cumsum": [lambda xp, dt: xp.cumsum(xp.asarray((_W.reshape(10, 400) * 2**33).astype(dt)),
                                        axis=1),
               lambda xp, dt: xp.cumsum(xp.asarray(_W.astype(dt))),
               lambda xp, dt: xp.cumsum(xp.asarray(_W.reshape(-1, 50).astype(dt)), axis=1)],
    "cumprod": [lambda xp, dt: xp.cumprod(xp.asarray((_W[:60] / 64).astype(dt)))],
}
# the dtype a family computes in, where it is not the input's
COMPUTE = {"fft": {"float64": "complex128", "complex128": "complex128"}}
DTYPES = {"dot_general": ("int64", "float64", "complex128"), "cumsum": ("int64", "float64"),
          "cumprod": ("float64", "complex128")}
CASES = [(family, k, dt) for family, calls in CALLS.items() for k in range(len(calls))
         for dt in DTYPES.get(family, ("float64", "complex128"))
         if not (family == "fft" and k == 2 and dt == "complex128")]


def _host(x):
    if isinstance(x, tuple | list):
        return [_host(y) for y in x]
    return np.asarray(x)


def _same(expected, got):
    if isinstance(expected, list):
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            _same(e, g)
        return
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@contextlib.contextmanager
def _routed(family, dtype):
    computes = {COMPUTE.get(family, {}).get(dtype, dtype), dtype}
    if family == "sort":  # as on the TPU: complex medians sort an int8 class key first
        computes |= _capabilities.TABLE["sort"]["tpu"]
    with _capabilities.simulate(family, PLATFORM, tuple(computes)):
        _capabilities.ROUTED.clear()
        yield lambda: sum(_capabilities.ROUTED[(family, c)] for c in computes)


# calls whose result's length depends on the data (they cannot trace under npjax.jit)
UNTRACEABLE = {("sort", 3)}


@pytest.mark.parametrize(("family", "k", "dtype", "mode"),
                         [(*case, mode) for case in CASES for mode in ("eager", "lazy", "jit")
                          if not (mode == "jit" and case[:2] in UNTRACEABLE)])
def test_a_family_the_backend_lacks_is_numpys_on_the_host(family, k, dtype, mode):
    call = CALLS[family][k]
    expected = _host(call(np, dtype))
    with _routed(family, dtype) as runs, npjax.policy(placement="device"):
        if mode == "jit":
            got = npjax.jit(lambda: call(npjax, dtype))()
        else:
            with npjax.policy(mode=mode):
                got = call(npjax, dtype)
        got = _host(got)
        # lazy mode on the CPU backend runs these three as NumPy on the data in place
        in_place = mode == "lazy" and (family, k) in {("lu", 0), ("lu", 1), ("cholesky", 0),
                                                        ("cholesky", 1)}
        # where the backend's arrays cannot hold the dtype (float64, complex128 on a TPU)
        # NumPy computes it on host arrays, or the CPU backend (the values below); a lazy
        # program's first run on the CPU backend needs no route either (_lazy_cold)
        held = {dtype, *COMPUTE.get(family, {}).values()} & _dtypes.backend_host_dtypes()
        cold = mode == "lazy" and jax.default_backend() in _capabilities.COLD_ON_CPU
        assert runs() >= (0 if in_place or held or cold else 1)
    _same(expected, got)


@pytest.mark.parametrize("mode", ["eager", "lazy", "jit"])
def test_numpys_linalg_errors_come_through_the_host_route(mode):
    singular = np.ones((3, 3))
    not_pd = -np.eye(3)

    def calls(xp):
        return [lambda: xp.linalg.inv(xp.asarray(singular)),
                lambda: xp.linalg.solve(xp.asarray(singular), xp.asarray(np.ones(3))),
                lambda: xp.linalg.cholesky(xp.asarray(not_pd)),
                lambda: xp.linalg.svd(xp.asarray(np.full((2, 2), np.nan)))]

    with contextlib.ExitStack() as stack:
        for family in ("lu", "cholesky", "svd"):
            stack.enter_context(_capabilities.simulate(family, PLATFORM, ("float64",)))
        stack.enter_context(npjax.policy(placement="device"))
        for np_call, npjax_call in zip(calls(np), calls(npjax)):
            with pytest.raises(np.linalg.LinAlgError) as want:
                np_call()
            with pytest.raises(np.linalg.LinAlgError) as got:
                if mode == "jit":
                    npjax.jit(npjax_call)()
                else:
                    with npjax.policy(mode=mode):
                        _host(npjax_call())
            assert str(got.value) == str(want.value)


@_CPU_ONLY
def test_nothing_routes_where_the_backend_computes_the_family():
    _capabilities.ROUTED.clear()
    with npjax.policy(placement="device"):
        for calls in CALLS.values():
            for call in calls:
                _host(call(npjax, "float64"))
    assert not _capabilities.ROUTED


def test_host_routes_are_in_stats_and_the_report():
    from npjax._tools import _report

    npjax.reset_stats()
    # float32 operands (a device dtype everywhere; float64 arrays are host arrays on a TPU),
    # whose LU NumPy computes in float64, as npjax does: the float64 LU is the routed one
    with _routed("lu", "float64"), npjax.policy(placement="device"):
        npjax.linalg.inv(npjax.asarray(_A.astype(np.float32)))
    routes = npjax.stats()["host_routes"]
    assert routes == [{"family": "lu", "dtype": "float64", "count": 1,
                       "reason": _capabilities.reason("lu")}]
    assert "Host routes" in _report.format_report(npjax.stats())


def test_the_table_names_known_platforms_and_dtypes():
    for family, platforms in _capabilities.TABLE.items():
        assert family in _capabilities.REASONS
        for platform, dtypes in platforms.items():
            assert platform in ("cpu", "gpu", "cuda", "rocm", "tpu")
            for dt in dtypes:
                np.dtype(dt)
    assert _capabilities.host_platforms("lu", np.float64) == ("tpu",)
    assert _capabilities.host_platforms("lu", np.float32) == ()


@contextlib.contextmanager
def _cpu_lowerings():
    """Register the TPU's lowering rules for the CPU inside; JAX's own afterwards."""
    from jax._src.interpreters import mlir

    saved = dict(mlir._platform_specific_lowerings["cpu"])
    try:
        yield
    finally:
        mlir._platform_specific_lowerings["cpu"].clear()
        mlir._platform_specific_lowerings["cpu"].update(saved)
        jax.clear_caches()


_SOURCES = {"bool": np.array([[True, False], [False, True], [True, True]]),
            "int64": np.array([[-(2**62), 3], [0, 2**53 + 1], [7, -1]]),
            "uint8": np.array([[255, 0], [1, 7], [2, 3]], np.uint8),
            "float32": np.array([[-0.0, np.inf], [np.nan, 1.5], [3, -4]], np.float32),
            "float64": np.array([[-0.0, -np.inf], [np.nan, 5e-324], [1e300, -2]]),
            "complex64": np.array([[1 - 0j, np.inf * 1j], [np.nan, -2.5j], [0, 1]],
                                  np.complex64),
            "complex128": np.array([[1 - 0j, np.inf * 1j], [np.nan + 2j, -2.5j],
                                    [-0.0 - 0j, 3e30 + 1e-300j]])}


def _wide(src, dt):
    """The conversions the TPU's rule takes over (the rest are JAX's own)."""
    return ((src == "complex128") != (dt == "complex128")
            or (src == "bool" and dt in ("int64", "uint64", "float64")))


@_CPU_ONLY
@pytest.mark.parametrize("src", list(_SOURCES))
def test_conversions_the_tpu_aborts_on_are_lowered_another_way(src):
    """The TPU's conversion fix (to and from complex128, booleans to 64 bits), lowered for
    the CPU here: NumPy's values, signed zeros, inf and nan included, 2-D operands built
    flat around ``complex``."""

    from npjax._pure import _lowerings

    x = _SOURCES[src]
    with _cpu_lowerings():
        assert _lowerings.install_conversions(("cpu",))
        for dt in ("complex128", "complex64", "float64", "float32", "int64", "uint64", "int32",
                   "bool"):
            if not _wide(src, dt) or (x.dtype.kind in "fc" and dt[0] in "iu"):
                continue  # (float -> int of nan or inf: undefined in NumPy)
            f = jax.jit(lambda x, dt=dt: x.astype(dt))
            got = np.asarray(f(x))
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                want = x.astype(dt)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))
            if dt in ("complex128", "complex64"):
                text = f.lower(x).as_text()
                assert "stablehlo.complex" in text and "tensor<6xf" in text, (src, dt)
        with npjax.policy(placement="device"):
            np.testing.assert_array_equal(np.asarray(npjax.eye(3, dtype=complex)),
                                          np.eye(3, dtype=complex))
            t = np.linspace(0, 1, 5)
            np.testing.assert_allclose(np.asarray(npjax.exp(1j * npjax.asarray(t))),
                                       np.exp(1j * t), rtol=1e-15)
            z = npjax.asarray(_SOURCES["complex128"])
            np.testing.assert_array_equal(np.asarray(z.astype(np.complex64)),
                                          _SOURCES["complex128"].astype(np.complex64))
            np.testing.assert_array_equal(np.asarray(z.T), _SOURCES["complex128"].T)
            w = _RNG.standard_normal((2, 3, 4)) + 1j * _RNG.standard_normal((2, 3, 4))
            np.testing.assert_array_equal(np.asarray(npjax.transpose(npjax.asarray(w),
                                                                     (2, 0, 1))),
                                          np.transpose(w, (2, 0, 1)))


@_CPU_ONLY
def test_float64_bitcasts_through_32_bit_words_keep_every_bit():
    """The TPU's bitcast fix, lowered for the CPU: float64 <-> (u)int64 bit patterns, and
    npjax's sorts (whose keys are float64 bits) still NumPy's order."""
    from jax import lax

    from npjax._pure import _lowerings

    x = np.array([[-0.0, 1.5, np.nan, -np.inf], [5e-324, -2.0, 1e300, 0.0]])
    with _cpu_lowerings():
        assert _lowerings.install_bitcasts(("cpu",))
        for dt in (np.int64, np.uint64):
            f = jax.jit(lambda x, dt=dt: lax.bitcast_convert_type(x, dt))
            np.testing.assert_array_equal(np.asarray(f(x)), x.view(dt))
            assert "tensor<2x4x2xui32>" in f.lower(x).as_text()
            back = jax.jit(lambda i: lax.bitcast_convert_type(i, np.float64))(x.view(dt))
            np.testing.assert_array_equal(np.asarray(back).view(dt), x.view(dt))
        a = _RNG.standard_normal(500)
        a[::7], a[::11] = -0.0, np.nan
        with npjax.policy(placement="device"):
            np.testing.assert_array_equal(np.asarray(npjax.sort(npjax.asarray(a))), np.sort(a))
            np.testing.assert_array_equal(np.asarray(npjax.unique(npjax.asarray(a))),
                                          np.unique(a))


@_CPU_ONLY
def test_sorts_of_one_element_are_their_operands():
    """The TPU's fix for sorts along an axis of length 0 or 1 or of no elements (one bool's
    lexsort, a 3 x 2 x 0 stack's, aborted its runtime), lowered for the CPU: no sort in the
    program, NumPy's results."""
    from jax import lax

    from npjax._pure import _lowerings

    with _cpu_lowerings():
        assert _lowerings.install_sorts(("cpu",))
        for shape, dim in ((1,), 0), ((3, 1), 1), ((1, 4), 0), ((2, 0), 1), ((2, 0), 0):
            k = np.ones(shape, np.bool_)
            f = jax.jit(lambda k, dim=dim: lax.sort((k, lax.broadcasted_iota(np.int64, k.shape,
                                                                             dim)),
                                                    dimension=dim, num_keys=1)[1])
            assert "sort" not in f.lower(k).as_text()
            np.testing.assert_array_equal(np.asarray(f(k)), np.argsort(k, axis=dim, kind="stable"))
        assert "sort" in jax.jit(lambda k: lax.sort(k)).lower(np.ones(2, np.int8)).as_text()
        with npjax.policy(placement="device"):
            for dt in (np.bool_, np.int8, np.uint8, np.float32):
                keys = [np.ones(1, dt), np.zeros(1, dt)]
                np.testing.assert_array_equal(
                    np.asarray(npjax.lexsort([npjax.asarray(k) for k in keys])),
                    np.lexsort(keys))
                np.testing.assert_array_equal(np.asarray(npjax.sort(npjax.asarray(keys[0]))),
                                              keys[0])


@_CPU_ONLY
def test_cumulative_scans_lowered_as_a_tree_give_the_same_values():
    """The TPU's scan lowering (``install_scans``), lowered for the CPU here."""
    from jax import lax

    from npjax._pure import _lowerings

    with _cpu_lowerings():
        assert _lowerings.install_scans(("cpu",))
        x = np.array([[3, -1, 2, 5, -4], [0, 7, -2**40, 9, 1]])
        for axis in (0, 1):
            for reverse in (False, True):
                for prim, ref in ((lax.cumsum, np.add), (lax.cumprod, np.multiply),
                                  (lax.cummax, np.maximum), (lax.cummin, np.minimum)):
                    got = np.asarray(jax.jit(lambda a, prim=prim, axis=axis, reverse=reverse:
                                             prim(a, axis=axis, reverse=reverse))(x))
                    y = np.flip(x, axis) if reverse else x
                    want = ref.accumulate(y, axis=axis)
                    np.testing.assert_array_equal(got, np.flip(want, axis) if reverse else want)
        with npjax.policy(placement="device"):
            v = np.arange(1000) % 7 - 3
            np.testing.assert_array_equal(np.asarray(npjax.cumsum(npjax.asarray(v))),
                                          np.cumsum(v))


@pytest.mark.parametrize("dt", ["int64", "float64", "complex128"])
def test_dot_general_on_the_host_takes_every_dimension_layout(dt):
    """The host rule of ``dot_general`` (NumPy's einsum) against XLA's own product, for
    batch dimensions, several contracting dimensions and operands in any axis order."""
    from jax import lax

    if dt in _dtypes.backend_host_dtypes():
        pytest.skip(f"this backend's arrays cannot hold {dt}")

    a = (_RNG.integers(-50, 50, (2, 3, 4, 5)) + (1j if dt == "complex128" else 0)).astype(dt)
    b = (_RNG.integers(-50, 50, (5, 2, 4, 6)) * (1 - 2j if dt == "complex128" else 1)).astype(dt)
    layouts = [(((3,), (0,)), ((), ())), (((2, 3), (2, 0)), ((0,), (1,))),
               (((2,), (2,)), ((0,), (1,))), (((0, 2), (1, 2)), ((), ()))]
    for dims in layouts:
        f = jax.jit(lambda x, y, dims=dims: lax.dot_general(x, y, dims))
        want = np.asarray(f(a, b))
        with _capabilities.simulate("dot_general", PLATFORM, (dt,)):
            _capabilities.ROUTED.clear()
            got = np.asarray(f(a, b))
            assert _capabilities.ROUTED[("dot_general", dt)] == 1
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


_Z = np.array([3 + 4j, -0.0 - 0j, 0j, np.inf + 1j, 1 - np.inf * 1j, np.nan + 1j,
               np.inf + np.nan * 1j, 1e300 + 1e300j, 5e-324 - 5e-324j, -2.5 + 1e-300j,
               *(_RNG.standard_normal(6) + 1j * _RNG.standard_normal(6))])


@_CPU_ONLY
def test_complex128_abs_and_division_the_tpu_aborts_on_are_built_from_parts():
    """The TPU's complex128 ``abs``, division and negative powers (XLA's TPU compiler aborts
    the process on them), lowered for the CPU here: NumPy's values within two ulps, its
    infinities, nans and zero divisors exactly."""
    from npjax._pure import _lowerings

    y = np.roll(_Z, 3)
    with _cpu_lowerings():
        assert _lowerings.install_complex128(("cpu",))
        got_abs = np.asarray(jax.jit(jax.numpy.abs)(_Z))
        got_div = np.asarray(jax.jit(lambda a, b: a / b)(_Z, y))
        got_pow = np.asarray(jax.jit(lambda a: (a ** -1, a ** -3))(_Z[10:]))
        assert "stablehlo.abs %arg0" not in jax.jit(jax.numpy.abs).lower(_Z).as_text()
    with np.errstate(all="ignore"):
        want_abs, want_div = np.abs(_Z), _Z / y
        want_pow = (1 / _Z[10:], 1 / _Z[10:] ** 3)
    np.testing.assert_array_equal(np.isnan(got_abs), np.isnan(want_abs))
    np.testing.assert_array_max_ulp(got_abs, want_abs, maxulp=2)
    for got, want in ((got_div, want_div), *zip(got_pow, want_pow)):
        for part in (np.real, np.imag):
            g, w = part(got), part(want)
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
            np.testing.assert_array_equal(np.isinf(g), np.isinf(w))
            finite = np.isfinite(w)
            np.testing.assert_allclose(g[finite], w[finite], rtol=1e-15, atol=1e-300)


@_CPU_ONLY  # (on a TPU a complex128 result of shape (2, 3, 4) fails its layout check)
@pytest.mark.parametrize("family", ["tan", "tanh", "expm1", "sign", "pow", "transpose",
                                    "concatenate"])
def test_complex128_primitives_the_tpu_fails_on_are_numpys_on_the_host(family):
    """Where the table sends a complex128 primitive to the host, NumPy computes it inside
    the program (the parts cross flat), also in a rank-3 shape the TPU's layouts refused."""
    z = (_RNG.standard_normal((2, 3, 4)) + 1j * _RNG.standard_normal((2, 3, 4))).round(1)
    jnp = jax.numpy
    fn = {"tan": jnp.tan, "tanh": jnp.tanh, "expm1": jnp.expm1, "sign": jnp.sign,
          "pow": lambda a: a ** (0.5 + 1j), "transpose": lambda a: jnp.transpose(a, (2, 0, 1)),
          "concatenate": lambda a: jnp.concatenate([a, a[:1]])}[family]
    want = {"tan": np.tan, "tanh": np.tanh, "expm1": np.expm1, "sign": np.sign,
            "pow": lambda a: a ** (0.5 + 1j), "transpose": lambda a: np.transpose(a, (2, 0, 1)),
            "concatenate": lambda a: np.concatenate([a, a[:1]])}[family](z)
    with _capabilities.simulate(family, PLATFORM, ("complex128",)):
        _capabilities.ROUTED.clear()
        got = np.asarray(jax.jit(fn)(z))
        assert _capabilities.ROUTED[(family, "complex128")] == 1
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@_CPU_ONLY
def test_each_use_of_a_host_primitive_has_its_own_callback():
    # JAX lowers equal uses of a primitive (same shapes and parameters) once and repeats the
    # lowering; a host callback repeated so kept one TPU channel id, which the TPU's compiler
    # refused where the repeated sends' operands differed in layout (lstsq's three float64
    # products: "send/recv instructions that use the same channel must be identical")
    import re

    import jax.numpy as jnp

    def three(a, b):
        return jnp.matmul(a, b), jnp.matmul(a.T, b), jnp.matmul(a, b * 2)

    a, b = _A[:2, :2], _A[:2, 2:3]
    with _capabilities.simulate("dot_general", PLATFORM, ("float64",)):
        text = jax.jit(three).lower(a, b).as_text()
        got = jax.jit(three)(a, b)
    indices = re.findall(r"python_cpu_callback.*?index = (\d+)", text)
    assert len(indices) == 3 and len(set(indices)) == 3, indices
    for g, want in zip(got, (a @ b, a.T @ b, a @ (b * 2))):
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-15)


@_CPU_ONLY
def test_empty_arrays_do_not_cross_to_the_host():
    """A TPU's runtime aborted on a host transfer of no elements (a sort of a 2 x 0 stack, a
    float16 ``cumsum`` of 0 x 1 inside ``unwrap``): an empty operand is not sent and an empty
    result not received; an all-empty primitive makes no callback; values are NumPy's."""
    import jax.numpy as jnp

    z = np.zeros((2, 0), np.int64)
    w = (_RNG.standard_normal((2, 3)) + 1j).astype(np.complex128)
    cases = [("sort", "int32", lambda a: jnp.sort(a, axis=0), np.zeros((2, 0), np.int32), 0),
             ("cumsum", "float16", lambda a: jnp.cumsum(a, axis=0),
              np.zeros((0, 1), np.float16), 0),
             ("dot_general", "int64", lambda a: a @ a.T, z, 1),  # 2 x 2 zeros from none
             ("dot_general", "int64", lambda a: a.T @ a, z, 0),
             ("concatenate", "complex128", lambda a: jnp.concatenate([a, w[:0]]), w, 1)]
    for family, dt, fn, x, calls in cases:
        want = np.asarray(jax.jit(fn)(x))
        with _capabilities.simulate(family, PLATFORM, (dt,)):
            _capabilities.ROUTED.clear()
            text = jax.jit(fn).lower(x).as_text()
            got = np.asarray(jax.jit(fn)(x))
            assert _capabilities.ROUTED[(family, dt)] == calls, family
        assert text.count("python_cpu_callback") == calls, family
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    # npjax's own host routes (``route``): a searchsorted of no values makes no callback;
    # of values into no elements, one without the empty operand
    a, v = np.array([1.0, 2.0, 3.0], np.float32), np.array([[2.5], [0.5]], np.float32)
    with _capabilities.simulate("sort", PLATFORM, ("float32",)):
        for sorted_, values, calls in ((a, v[:, :0], 0), (a[:0], v, 1), (a, v, 1)):
            _capabilities.ROUTED.clear()
            with npjax.policy(placement="device"):
                got = npjax.searchsorted(npjax.asarray(sorted_), npjax.asarray(values))
                stacked = npjax.lexsort(npjax.asarray(np.zeros((3, 2, 0), np.float32)), axis=0)
            assert sum(_capabilities.ROUTED.values()) == calls
            assert_same(got, np.searchsorted(sorted_, values))
            assert_same(stacked, np.lexsort(np.zeros((3, 2, 0)), axis=0))


def test_every_host_callback_goes_through_host_call():
    """The empty-array guard has one place: no other npjax code makes a host callback."""
    import ast
    import pathlib

    def callers(path: pathlib.Path) -> list[str]:
        found = []
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, ast.FunctionDef):
                found += [fn.name for c in ast.walk(fn) if isinstance(c, ast.Call)
                          and getattr(c.func, "attr", getattr(c.func, "id", "")) in (
                              "pure_callback", "io_callback", "debug_callback")]
        return found

    root = pathlib.Path(npjax.__file__).parent
    found = {str(p.relative_to(root)): callers(p) for p in root.rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {"_pure/_lowerings.py": ["host_call"]}
