"""npjax arrays handed to NumPy itself, JAX transforms and the libraries scripts use."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import warnings

import jax
import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT, assert_same

HOST = np.array([[1.0, -2.0, 3.5], [0.25, 5.0, -1.0]], DEVICE_FLOAT)  # (these mean device arrays)


@pytest.fixture
def x():
    return npjax.asarray(HOST)


# --- NumPy's protocols ---------------------------------------------------------------------


@pytest.mark.device_placement  # host arrays give NumPy's own scalars (test_placement.py)
def test_numpy_functions_on_npjax_arrays_stay_npjax(x):
    npjax.reset_stats()
    for got, want in [(np.add(x, 1), np.add(HOST, 1)), (np.sum(x), np.sum(HOST)),
                      (np.sum(x, axis=0), np.sum(HOST, axis=0)),
                      (np.concatenate([x, x]), np.concatenate([HOST, HOST])),
                      (np.linalg.norm(x), np.linalg.norm(HOST)),
                      (np.fft.fft(x), np.fft.fft(HOST)), (np.mean(x), np.mean(HOST)),
                      (np.where(x > 0, x, 0.0), np.where(HOST > 0, HOST, 0.0)),
                      (np.add.reduce(x, axis=1), np.add.reduce(HOST, axis=1)),
                      (np.ones(3) + x, np.ones(3) + HOST), (x + np.ones(3), HOST + np.ones(3)),
                      (np.ones(3) * x[0], np.ones(3) * HOST[0])]:
        assert isinstance(got, npjax.ndarray)
        assert_same(got, want)
    assert npjax.stats()["fallbacks"] == {}


@pytest.mark.device_placement
def test_other_libraries_ufuncs_take_npjax_arrays(x):
    """A ufunc that is not NumPy's (scipy.special's) runs its own code on host copies, as on
    NumPy arrays: NumPy's values, scalars for 0-d results, npjax arrays otherwise, an npjax
    ``out=`` (with ``where=``, of ``np.frompyfunc``'s ufunc) written through; and no fallback
    warning."""
    special = pytest.importorskip("scipy.special")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = special.erf(x)
        assert isinstance(got, npjax.ndarray)
        assert_same(got, special.erf(HOST))
        assert_same(special.gamma(npjax.asarray(3.5)), special.gamma(np.asarray(3.5)))
        pair = special.ellipj(x, 0.5)
        for g, w in zip(pair, special.ellipj(HOST, 0.5)):
            assert isinstance(g, npjax.ndarray)
            assert_same(g, w)
        # ``where=`` with a ufunc of Python code: SciPy's own loops read and write past
        # their operands under NumPy's masked loop (valgrind, on NumPy arrays alone)
        plus_one = np.frompyfunc(lambda v: v + 1, 1, 1)
        out, want = npjax.full(HOST.shape, 7.0), np.full(HOST.shape, 7.0)
        mask = HOST > 0
        assert plus_one(x, out=out, where=npjax.asarray(mask), casting="unsafe") is out
        plus_one(HOST, out=want, where=mask, casting="unsafe")
        assert_same(out, want)
        y, want = npjax.asarray(HOST.copy()), HOST.copy()
        special.erf.at(y, [1, 1])
        special.erf.at(want, [1, 1])
        assert_same(y, want)
        with pytest.raises(TypeError):  # its own casting rule: float -> int refused
            special.erf(x, out=npjax.zeros(HOST.shape, dtype=int))
    assert npjax.stats()["fallbacks"] == {}


def test_numpy_array_as_out_receives_the_result(x):
    out = np.zeros_like(HOST)
    assert np.multiply(x, 2, out=out) is out
    np.testing.assert_array_equal(out, HOST * 2)


def test_data_free_numpy_helpers_read_through_array(x):
    assert np.common_type(x) is HOST.dtype.type
    assert np.shape(x) == (2, 3) and np.ndim(x) == 2


@pytest.mark.device_placement
def test_array_copy_semantics(x):
    host = np.asarray(x)
    np.testing.assert_array_equal(host, HOST)
    host[0, 0] = 99.0  # a host copy: the npjax array is unchanged
    assert float(x[0, 0]) == 1.0
    with pytest.raises(ValueError):
        np.array(x, copy=False)
    assert np.array(x, dtype=np.float32).dtype == np.float32


def test_numpy_testing_accepts_npjax_arrays(x):
    np.testing.assert_allclose(x, HOST)
    np.testing.assert_array_equal(x, HOST)
    np.testing.assert_array_almost_equal(npjax.sin(x), np.sin(HOST))
    with pytest.raises(AssertionError):
        np.testing.assert_array_equal(x + 1, HOST)


def test_npjax_testing_takes_objects_whose_array_method_returns_npjax_arrays():
    like, _ = _array_likes(npjax)
    npjax.testing.assert_array_equal(like, [1.0, 2.0])
    npjax.testing.assert_allclose(npjax.intersect1d(like, like), like)
    with pytest.raises(AssertionError):
        npjax.testing.assert_array_equal(like, [1.0, 3.0])


def test_pickle_and_copies(x):
    view = x[1]
    for clone in (pickle.loads(pickle.dumps(view)), copy.copy(view), copy.deepcopy(view)):
        assert_same(clone, HOST[1])
        clone[0] = 7.0
        assert float(x[1, 0]) == 0.25
    assert_same(pickle.loads(pickle.dumps(x.sum())), HOST.sum())


@pytest.mark.device_placement
def test_dlpack_round_trip(x):
    y = npjax.from_dlpack(x)
    assert_same(y, HOST)
    assert_same(npjax.from_dlpack(np.arange(3)), np.arange(3))
    np.testing.assert_array_equal(np.from_dlpack(x), HOST)
    assert x.__dlpack_device__()[0] == 1  # kDLCPU on this machine
    y[0, 0] = 5.0
    assert float(x[0, 0]) == 1.0


def _parameters(fn):
    import inspect

    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_dlpack_as_numpy_speaks_it(placement):
    """The Array API's checks: ``__dlpack__``'s and ``arange``'s signatures are NumPy's, an
    old ``max_version`` still gets a capsule (NumPy's for a host array, a host copy's where
    JAX refuses the version), ``from_dlpack(device="cpu")`` is NumPy's import."""
    with npjax.policy(placement=placement):
        x = npjax.asarray(HOST)
        assert _parameters(x.__dlpack__) == _parameters(HOST.__dlpack__)
        assert _parameters(npjax.arange) == _parameters(np.arange)
        for version in (None, (0, 0), (1, 0)):
            capsule = x.__dlpack__(max_version=version)
            assert type(capsule).__name__ == "PyCapsule"
        assert x.__dlpack_device__() == HOST.__dlpack_device__()
        shared = np.arange(4.0)
        y = npjax.from_dlpack(shared, device="cpu")
        assert y._host() is not None
        assert_same(y, shared)
        assert_same(npjax.from_dlpack(shared, device="cpu", copy=True), shared)
        with pytest.raises(ValueError):
            npjax.from_dlpack(shared, device="cuda")


def test_explicit_conversions(x):
    a = x.to_jax()
    assert isinstance(a, jax.Array) and a.shape == (2, 3)
    assert type(npjax.asnumpy(x)) is np.ndarray
    assert_same(npjax.from_jax(a), HOST)
    with pytest.raises(TypeError):
        npjax.from_jax(HOST)


# --- JAX transforms ------------------------------------------------------------------------


def test_jax_transforms_take_npjax_arrays(x):
    doubled = jax.jit(lambda a: a * 2)(x)
    assert isinstance(doubled, npjax.ndarray)
    assert_same(doubled, HOST * 2)
    grad = jax.grad(lambda a: (a * a).sum().to_jax())(x)
    assert_same(grad, 2 * HOST)
    rows = jax.vmap(lambda r: r.sum())(x)
    np.testing.assert_allclose(np.asarray(rows), HOST.sum(axis=1))


# --- Array API -----------------------------------------------------------------------------


def test_array_api_namespace(x):
    import array_api_compat

    assert array_api_compat.is_array_api_obj(x)
    xp = array_api_compat.array_namespace(x)
    assert xp is npjax and npjax.__array_api_version__ == "2024.12"
    assert_same(xp.concat([x, x], axis=1), np.concat([HOST, HOST], axis=1))
    assert_same(xp.permute_dims(x, (1, 0)), HOST.T)
    assert_same(xp.matrix_transpose(x), HOST.T)
    assert_same(xp.pow(x, 2), HOST**2)
    assert_same(xp.astype(x, xp.int32), HOST.astype(np.int32))
    assert_same(xp.unique_values(xp.asarray([3, 1, 3])), np.array([1, 3]))
    assert xp.isdtype(x.dtype, "real floating")
    assert_same(xp.sum(xp.asarray([1, 2], dtype=xp.int8)), np.sum(np.array([1, 2], np.int8)))
    assert_same(xp.linalg.vector_norm(x), np.linalg.vector_norm(HOST))


# --- the libraries -------------------------------------------------------------------------


def test_matplotlib_plots_npjax_arrays(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = npjax.linspace(0.0, 1.0, 50)
    y = npjax.sin(2 * npjax.pi * t)
    fig, axes = plt.subplots(2, 2)
    (line,) = axes[0, 0].plot(t, y)
    image = axes[0, 1].imshow(npjax.outer(y, y))
    counts, edges, _ = axes[1, 0].hist(y, bins=5)
    dots = axes[1, 1].scatter(t, y)
    path = tmp_path / "plot.png"
    fig.savefig(path)
    plt.close(fig)
    assert path.stat().st_size > 1000
    host_t = np.linspace(0.0, 1.0, 50)
    host_y = np.sin(2 * np.pi * host_t)
    np.testing.assert_allclose(line.get_ydata(), host_y, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(image.get_array()), np.outer(host_y, host_y),
                               rtol=1e-12, atol=1e-15)
    want_counts, want_edges = np.histogram(host_y, bins=5)
    np.testing.assert_array_equal(counts, want_counts)
    np.testing.assert_allclose(edges, want_edges)
    np.testing.assert_allclose(dots.get_offsets(), np.c_[host_t, host_y], atol=1e-15)


def test_pandas_frames_from_npjax_arrays(x):
    import pandas as pd

    pd.testing.assert_frame_equal(pd.DataFrame(x, columns=list("abc")),
                                  pd.DataFrame(HOST, columns=list("abc")))
    pd.testing.assert_series_equal(pd.Series(x[0]), pd.Series(HOST[0]))
    assert pd.Series(npjax.arange(3)).dtype == np.int64


def test_scipy_on_npjax(x):
    import scipy.linalg
    import scipy.optimize
    import scipy.signal

    def rosen(xp):
        def f(v):
            v = xp.asarray(v)
            return xp.sum(100.0 * (v[1:] - v[:-1] ** 2) ** 2 + (1 - v[:-1]) ** 2)
        return f

    start = np.array([1.3, 0.7, 0.8, 1.9, 1.2])
    ours = scipy.optimize.minimize(rosen(npjax), start, method="Nelder-Mead",
                                   options={"xatol": 1e-8, "maxiter": 4000})
    theirs = scipy.optimize.minimize(rosen(np), start, method="Nelder-Mead",
                                     options={"xatol": 1e-8, "maxiter": 4000})
    np.testing.assert_allclose(ours.x, theirs.x, rtol=1e-10)
    np.testing.assert_allclose(scipy.signal.convolve(x[0], x[1]),
                               scipy.signal.convolve(HOST[0], HOST[1]))
    a = npjax.asarray([[3.0, 1.0], [1.0, 2.0]])
    np.testing.assert_allclose(scipy.linalg.solve(a, x[:, :2].T),
                               scipy.linalg.solve(np.asarray(a), HOST[:, :2].T))


def test_sklearn_fits_on_npjax():
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    features = rng.normal(size=(60, 3))
    target = features @ np.array([1.5, -2.0, 0.5]) + 0.1 * rng.normal(size=60)
    ours = LinearRegression().fit(npjax.asarray(features), npjax.asarray(target))
    theirs = LinearRegression().fit(features, target)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-10, atol=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # threadpoolctl and friends
        km_ours = KMeans(n_clusters=3, n_init=2, random_state=0).fit(npjax.asarray(features))
        km_theirs = KMeans(n_clusters=3, n_init=2, random_state=0).fit(features)
    np.testing.assert_array_equal(km_ours.labels_, km_theirs.labels_)
    np.testing.assert_allclose(km_ours.cluster_centers_, km_theirs.cluster_centers_)


SKLEARN_ARRAY_API = """
import numpy as np, npjax, sklearn
from sklearn.decomposition import PCA
rng = np.random.default_rng(0)
data = rng.normal(size=(40, 5))
sklearn.set_config(array_api_dispatch=True)
ours = PCA(n_components=2, svd_solver="full").fit(npjax.asarray(data))
sklearn.set_config(array_api_dispatch=False)
theirs = PCA(n_components=2, svd_solver="full").fit(data)
assert isinstance(ours.components_, npjax.ndarray), type(ours.components_)
np.testing.assert_allclose(np.abs(np.asarray(ours.components_)), np.abs(theirs.components_),
                           rtol=1e-8, atol=1e-12)
np.testing.assert_allclose(np.asarray(ours.explained_variance_), theirs.explained_variance_,
                           rtol=1e-10)
print("ok")
"""


def test_sklearn_array_api_dispatch_with_pca():
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    done = subprocess.run([sys.executable, "-c", SKLEARN_ARRAY_API], env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


# --- objects whose __array__ returns an npjax array ----------------------------------------

# A class written for ``import npjax as np`` converts itself with ``np.array(...)``: an npjax
# array, which NumPy refuses from ``__array__``; npjax converts such objects itself.
ARRAY_METHOD_CALLS = {
    "asarray": lambda xp, o, z: xp.asarray(o),
    "array": lambda xp, o, z: xp.array(o, dtype=xp.float32),
    "ufunc": lambda xp, o, z: xp.add(o, 1),
    "operator": lambda xp, o, z: xp.zeros((2, 2)) + o,
    "reduction": lambda xp, o, z: xp.sum(o),
    "sin": lambda xp, o, z: xp.sin(o),
    "concatenate": lambda xp, o, z: xp.concatenate([o, o]),
    "index": lambda xp, o, z: xp.arange(4.0).reshape(2, 2)[1, z],
    "setitem": lambda xp, o, z: _stored(xp.zeros((2, 2)), o),
}


def _stored(a, o):
    a[0] = o
    return a


def _array_likes(xp):
    class ArrayLike:
        def __array__(self, dtype=None, copy=None):
            return xp.array([1.0, 2.0])

    class Zero:
        def __array__(self, dtype=None, copy=None):
            return xp.array(0)

    return ArrayLike(), Zero()


@pytest.mark.parametrize("placement", ["auto", "device"])
@pytest.mark.parametrize("call", sorted(ARRAY_METHOD_CALLS))
def test_array_method_returning_an_npjax_array(call, placement):
    fn = ARRAY_METHOD_CALLS[call]
    want = fn(np, *_array_likes(np))
    with npjax.policy(placement=placement):
        got = fn(npjax, *_array_likes(npjax))
    assert_same(got, want)


# --- npjax ufuncs writing a NumPy array given as out= --------------------------------------

NUMPY_OUT_CALLS = {
    "kw": lambda xp, o: xp.sin(xp.arange(3.0), out=o[0]),
    "tuple": lambda xp, o: xp.add(xp.arange(3.0), 1, out=(o[0],)),
    "positional": lambda xp, o: xp.multiply(xp.arange(3.0), 2, o[0]),
    "in_place": lambda xp, o: xp.sqrt(o[0], out=o[0]),
    "where": lambda xp, o: xp.add(xp.arange(3.0), 1, out=o[0], where=xp.asarray([1, 0, 1]) > 0),
    "two_outputs": lambda xp, o: xp.modf(xp.arange(3.0) / 2, o[0], o[1]),
    "two_outputs_kw": lambda xp, o: xp.divmod(xp.arange(3.0), 2, out=(o[0], o[1])),
    "casting_error": lambda xp, o: xp.add(xp.arange(3.0), 1, out=o[2]),
    "unsafe_cast": lambda xp, o: xp.add(xp.arange(3.0), 0.5, out=o[2], casting="unsafe"),
}


@pytest.mark.parametrize("placement", ["auto", "device"])
@pytest.mark.parametrize("call", sorted(NUMPY_OUT_CALLS))
def test_numpy_array_as_out_of_an_npjax_ufunc(call, placement):
    def run(xp):
        outs = [np.full(3, 4.0), np.full(3, 5.0), np.zeros(3, np.int64)]
        try:
            got = NUMPY_OUT_CALLS[call](xp, outs)
        except TypeError as exc:  # (NumPy's UFuncTypeError)
            return ("TypeError", str(exc)), outs
        same = tuple(any(g is o for o in outs) for g in (got if type(got) is tuple else (got,)))
        return same, outs

    want = run(np)
    with npjax.policy(placement=placement):
        got = run(npjax)
    assert got[0] == want[0]
    for g, w in zip(got[1], want[1]):
        np.testing.assert_array_equal(g, w)
