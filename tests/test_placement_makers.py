"""Placement of the array-making functions (issue 33): every public function that makes an
array follows the placement policy. Under the CPU default its result is a host array (NumPy
storage), under ``placement="device"`` a device array; values, dtypes and shapes are
NumPy's either way. One row per function: creation, ranges, grids, loaders, polynomial
evaluation, function application, host functions, fallbacks and random draws.
"""

from __future__ import annotations

import pickle

import jax
import numpy as np
import pytest

import npjax
from npjax._pure._dtypes import backend_host_dtypes
from tests._parity import DEVICE_FLOAT, assert_same

ON_CPU = jax.default_backend() == "cpu"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Files the loaders read (written by NumPy)."""
    d = tmp_path_factory.mktemp("makers")
    paths = {"txt": d / "a.txt", "csv": d / "a.csv", "npy": d / "a.npy", "npz": d / "a.npz",
             "bin": d / "a.bin"}
    np.savetxt(paths["txt"], np.arange(6.0).reshape(2, 3))
    np.savetxt(paths["csv"], np.arange(6).reshape(3, 2), delimiter=",", fmt="%d")
    np.save(paths["npy"], np.arange(5))
    np.savez(paths["npz"], x=np.arange(4.0), y=np.eye(2, dtype=np.int32))
    np.arange(4.0).tofile(paths["bin"])
    return {k: str(v) for k, v in paths.items()}


def _npz(xp, f, key):
    with xp.load(f["npz"]) as archive:
        return archive[key]


# name -> (call(xp, files), compare values). Values are not compared where NumPy's are
# uninitialised (``ndarray``) or npjax draws from its own stream (JAX random draws).
ROWS = {
    # creation
    "zeros": (lambda xp, f: xp.zeros((2, 3)), True),
    "ones": (lambda xp, f: xp.ones(3, dtype=np.int32), True),
    "empty": (lambda xp, f: xp.empty((2, 2)), False),
    "full": (lambda xp, f: xp.full(3, 2.5), True),
    "zeros_like": (lambda xp, f: xp.zeros_like([1, 2]), True),
    "ones_like": (lambda xp, f: xp.ones_like([[1.0]]), True),
    "empty_like": (lambda xp, f: xp.empty_like([1.0, 2.0]), False),
    "full_like": (lambda xp, f: xp.full_like([1, 2], 7), True),
    "array": (lambda xp, f: xp.array([[1, 2], [3, 4]]), True),
    "asarray": (lambda xp, f: xp.asarray([1.0, 2.0]), True),
    "asanyarray": (lambda xp, f: xp.asanyarray((1, 2)), True),
    "ascontiguousarray": (lambda xp, f: xp.ascontiguousarray([1.0]), True),
    "asfortranarray": (lambda xp, f: xp.asfortranarray([[1.0, 2.0]]), True),
    "asarray_chkfinite": (lambda xp, f: xp.asarray_chkfinite([1.0, 2.0]), True),
    "copy": (lambda xp, f: xp.copy([1, 2, 3]), True),
    "require": (lambda xp, f: xp.require([1.0, 2.0]), True),
    "frombuffer": (lambda xp, f: xp.frombuffer(np.arange(3.0).tobytes()), True),
    "fromiter": (lambda xp, f: xp.fromiter(range(4), dtype=int), True),
    "fromstring": (lambda xp, f: xp.fromstring("1 2 3", sep=" "), True),
    "ndarray": (lambda xp, f: xp.ndarray((2, 3)), False),
    "ndarray_dtype": (lambda xp, f: xp.ndarray(4, dtype=np.int32), False),
    "eye": (lambda xp, f: xp.eye(3, k=1), True),
    "identity": (lambda xp, f: xp.identity(2), True),
    "tri": (lambda xp, f: xp.tri(3), True),
    "diag": (lambda xp, f: xp.diag([1, 2]), True),
    "diagflat": (lambda xp, f: xp.diagflat([1, 2]), True),
    "vander": (lambda xp, f: xp.vander([1, 2, 3]), True),
    # ranges and grids
    "arange": (lambda xp, f: xp.arange(2, 11, 3), True),
    "arange_float": (lambda xp, f: xp.arange(0.0, 1.0, 0.25), True),
    "linspace": (lambda xp, f: xp.linspace(0, 1, 5), True),
    "logspace": (lambda xp, f: xp.logspace(0, 2, 3), True),
    "logspace_int": (lambda xp, f: xp.logspace(0, 2, 3, dtype=int), True),
    "geomspace": (lambda xp, f: xp.geomspace(1, 8, 4), True),
    "geomspace_int": (lambda xp, f: xp.geomspace(1, 8, 4, dtype=int), True),
    "indices": (lambda xp, f: xp.indices((2, 3)), True),
    "indices_sparse": (lambda xp, f: xp.indices((2, 3), sparse=True), True),
    "mgrid": (lambda xp, f: xp.mgrid[0:3, 0:2], True),
    "mgrid_1d": (lambda xp, f: xp.mgrid[1:4], True),
    "mgrid_complex_step": (lambda xp, f: xp.mgrid[-2:1:7j, -1:1:5j], True),
    "ogrid": (lambda xp, f: xp.ogrid[0:3, 0:2], True),
    "ogrid_complex_step": (lambda xp, f: xp.ogrid[0:1:4j], True),
    "meshgrid": (lambda xp, f: xp.meshgrid([1, 2], [3.0, 4.0, 5.0]), True),
    "fromfunction": (lambda xp, f: xp.fromfunction(lambda i, j: i * 10 + j, (2, 3)), True),
    "fromfunction_int": (lambda xp, f: xp.fromfunction(lambda i, j: i, (2, 3), dtype=int),
                         True),
    "r_": (lambda xp, f: xp.r_[1:4, 7], True),
    "c_": (lambda xp, f: xp.c_[[1, 2], [3, 4]], True),
    "tril_indices": (lambda xp, f: xp.tril_indices(3), True),
    "triu_indices": (lambda xp, f: xp.triu_indices(3, 1), True),
    "diag_indices": (lambda xp, f: xp.diag_indices(2), True),
    "unravel_index": (lambda xp, f: xp.unravel_index([1, 5], (2, 3)), True),
    "ravel_multi_index": (lambda xp, f: xp.ravel_multi_index(([0, 1], [1, 2]), (2, 3)),
                          True),
    # loaders (host functions)
    "loadtxt": (lambda xp, f: xp.loadtxt(f["txt"]), True),
    "loadtxt_csv_int": (lambda xp, f: xp.loadtxt(f["csv"], delimiter=",", dtype=int), True),
    "genfromtxt": (lambda xp, f: xp.genfromtxt(f["txt"]), True),
    "load_npy": (lambda xp, f: xp.load(f["npy"]), True),
    "load_npz": (lambda xp, f: _npz(xp, f, "x"), True),
    "load_npz_int": (lambda xp, f: _npz(xp, f, "y"), True),
    "fromfile": (lambda xp, f: xp.fromfile(f["bin"]), True),
    "fromfile_text": (lambda xp, f: xp.fromfile(f["txt"], sep=" "), True),
    # other host functions
    "is_busday": (lambda xp, f: xp.is_busday(["2024-01-06", "2024-01-08"]), True),
    "busday_count": (lambda xp, f: xp.busday_count("2024-01-01", ["2024-02-01"]), True),
    # polynomials
    "poly1d_call": (lambda xp, f: xp.poly1d([1, 2, 3])(xp.arange(3.0)), True),
    "poly1d_call_list": (lambda xp, f: xp.poly1d([1.0, -3.0])([0.0, 1.0, 2.0]), True),
    "poly1d_roots": (lambda xp, f: xp.poly1d([1.0, -3.0, 2.0]).roots, True),
    "poly1d_coeffs": (lambda xp, f: (xp.poly1d([1, 2]) * xp.poly1d([1, 3])).coeffs, True),
    "poly1d_deriv": (lambda xp, f: xp.poly1d([1, 2, 3]).deriv().coeffs, True),
    "poly1d_integ": (lambda xp, f: xp.poly1d([3.0, 2.0]).integ().coeffs, True),
    "polyval": (lambda xp, f: xp.polyval([1, 2, 3], [0.0, 1.0]), True),
    "poly": (lambda xp, f: xp.poly([1.0, 2.0]), True),
    "roots": (lambda xp, f: xp.roots([1.0, -3.0, 2.0]), True),
    "polyfit": (lambda xp, f: xp.polyfit([0.0, 1.0, 2.0], [1.0, 2.0, 5.0], 2), True),
    "polyadd": (lambda xp, f: xp.polyadd([1, 2], [3]), True),
    "polymul": (lambda xp, f: xp.polymul([1, 2], [3, 4]), True),
    "polyint": (lambda xp, f: xp.polyint([1.0, 2.0, 3.0]), True),
    # function application
    "vectorize": (lambda xp, f: xp.vectorize(lambda x: x + 1)([1, 2, 3]), True),
    "vectorize_signature": (lambda xp, f: xp.vectorize(
        lambda a, b: (a * b).sum(), signature="(n),(n)->()")(
            xp.arange(6.0).reshape(2, 3), xp.ones(3)), True),
    "apply_along_axis": (lambda xp, f: xp.apply_along_axis(
        lambda r: r * 2, 1, xp.arange(6.0).reshape(2, 3)), True),
    "apply_along_axis_scalar": (lambda xp, f: xp.apply_along_axis(
        lambda r: r.sum(), 0, xp.arange(6.0).reshape(2, 3)), True),
    "piecewise": (lambda xp, f: xp.piecewise(
        xp.arange(-2.0, 3.0), [xp.arange(-2.0, 3.0) < 0], [lambda x: -x, 1.0]), True),
    "piecewise_list": (lambda xp, f: xp.piecewise([1.0, -1.0], [[True, False]], [1, 2]),
                       True),
    # window functions, frequencies, histograms
    "hanning": (lambda xp, f: xp.hanning(4), True),
    "kaiser": (lambda xp, f: xp.kaiser(4, 1.0), True),
    "fftfreq": (lambda xp, f: xp.fft.fftfreq(4), True),
    "rfftfreq": (lambda xp, f: xp.fft.rfftfreq(4, 0.5), True),
    "histogram": (lambda xp, f: xp.histogram([1.0, 2.0, 2.5, 3.0], bins=2), True),
    "bincount": (lambda xp, f: xp.bincount([0, 1, 1, 3]), True),
    # random draws
    "random_rand": (lambda xp, f: xp.random.rand(3), False),
    "random_randint": (lambda xp, f: xp.random.randint(0, 5, 3), False),
    "random_permutation": (lambda xp, f: xp.random.permutation(4), False),
    "random_choice": (lambda xp, f: xp.random.choice(4, 2), False),
    "default_rng_random": (lambda xp, f: xp.random.default_rng(0).random(3), False),
    "default_rng_integers": (lambda xp, f: xp.random.default_rng(0).integers(0, 5, 3), False),
    "default_rng_choice": (lambda xp, f: xp.random.default_rng(0).choice([1.0, 2.0], 2),
                           False),
    "RandomState_rand": (lambda xp, f: xp.random.RandomState(0).rand(3), True),
    "RandomState_permutation": (lambda xp, f: xp.random.RandomState(0).permutation(5), True),
}

# Calls that run a NumPy fallback (announced: the tests' policy raises by default).
FALLBACKS = {"emath_sqrt": (lambda xp, f: xp.emath.sqrt([-1.0, 4.0]), True),
             "emath_log": (lambda xp, f: xp.emath.log([-1.0, 1.0]), True)}
ROWS.update(FALLBACKS)


def _arrays(result):
    """The npjax arrays of a result (tuples and lists item by item)."""
    if isinstance(result, tuple | list):
        return [a for r in result for a in _arrays(r)]
    return [result] if isinstance(result, npjax.ndarray) else []


def _kind(x: npjax.ndarray) -> str:
    """"host" (NumPy's storage), "device", or "cold": a device array on the host's CPU
    backend, not the accelerator (a dtype the accelerator cannot hold: float64 on a TPU)."""
    if x._host() is not None:
        return "host"
    value = (x if x._base is None else x._base)._value
    if isinstance(value, jax.Array) and jax.devices()[0] not in value.devices():
        return "cold"
    return "device"


def _compare(got, want, values: bool) -> None:
    if values:
        assert_same(got, want)
        return
    got, want = (list(got), list(want)) if isinstance(want, tuple) else ([got], [want])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, npjax.ndarray)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)


def _run(name, files, **policy):
    call, values = ROWS[name]
    if name in FALLBACKS:
        policy["fallback"] = "allow"
    with npjax.policy(**policy):
        got = call(npjax, files)
    _compare(got, call(np, files), values)
    arrays = _arrays(got)
    assert arrays, f"{name}: no npjax array in {got!r}"
    return arrays


@pytest.mark.skipif(not ON_CPU, reason="the CPU default keeps results on the host")
@pytest.mark.parametrize("name", ROWS)
def test_cpu_default_makes_host_arrays(name, files):
    assert {_kind(a) for a in _run(name, files, placement="auto")} == {"host"}


@pytest.mark.parametrize("name", ROWS)
def test_device_placement_makes_device_arrays(name, files):
    """Device arrays, but of a dtype the backend's arrays cannot hold (float64 on a TPU):
    host arrays, or arrays of the host's CPU backend."""
    host = backend_host_dtypes()
    for a in _run(name, files, placement="device"):
        assert _kind(a) in (("host", "cold") if a.dtype.name in host else ("device",)), (
            a.dtype, _kind(a))


def test_large_grid_stays_on_the_host_and_compiles_nothing():
    """The Mandelbrot pattern: an ``mgrid`` over the limit of 2**16 elements, then
    elementwise arithmetic; under the CPU default NumPy does all of it (no XLA compile)."""
    with npjax.policy(placement="auto"):
        if not npjax.get_policy().keeps_large():
            pytest.skip("large results stay on the host only under the CPU default (eager)")
        npjax.reset_stats()
        y, x = npjax.mgrid[-1:1:300j, -2:1:300j]
        c = x + 1j * y
        z = npjax.zeros_like(c)
        for _ in range(3):
            z = z * z + c
        assert _kind(x) == _kind(y) == _kind(z) == "host"
        assert npjax.stats()["compiles"]["count"] == 0
    yw, xw = np.mgrid[-1:1:300j, -2:1:300j]
    cw = xw + 1j * yw
    zw = np.zeros_like(cw)
    for _ in range(3):
        zw = zw * zw + cw
    assert_same(z, zw)


def test_results_of_device_operands_stay_on_the_device(files):
    """A result is a host array only when every array it was made from is one."""
    with npjax.policy(placement="device"):
        dev = npjax.asarray(np.array([-1.0, 4.0], DEVICE_FLOAT))
        three = npjax.asarray(3)
    with npjax.policy(placement="auto", fallback="allow"):
        assert _kind(npjax.emath.sqrt(dev)) == "device"
        assert _kind(npjax.emath.sqrt(npjax.asarray([-1.0, 4.0]))) == "host"
        assert _kind(npjax.vectorize(lambda v: v * 2)(dev)) == "device"
        assert _kind(npjax.piecewise(dev, [dev < 0], [0.0, 1.0])) == "device"
        assert _kind(npjax.apply_along_axis(lambda r: r * 2, 0, dev)) == "device"
        assert _kind(npjax.mgrid[0:three]) == "device"
        assert _kind(npjax.arange(three)) == "device"


def test_views_flags_and_scalars_are_numpy_s(files):
    """Host results keep NumPy's views, flags and scalars."""
    with npjax.policy(placement="auto"):
        got = npjax.fromfunction(lambda i, j: i, (2, 3), dtype=int)
        assert got.base is not None  # a row of the index grid, as in NumPy
        buf = npjax.frombuffer(b"\x00" * 16)
        assert not buf.flags.writeable
        p = npjax.poly1d([1, 2, 3])
        assert type(p[7]) is type(np.poly1d([1, 2, 3])[7])
        assert type(p(2.0)) is np.float64
        a = npjax.loadtxt(files["txt"])
        a[0, 0] = 9.0
        assert a.flags.writeable and a[0, 0] == 9.0
        again = pickle.loads(pickle.dumps(npjax.arange(3.0)))
        assert _kind(again) == "host"
        assert_same(again, np.arange(3.0))
    with npjax.policy(placement="device"):
        again = pickle.loads(pickle.dumps(npjax.arange(3.0, dtype=DEVICE_FLOAT)))
        assert _kind(again) == "device"
