"""Data-dependent result lengths at bucketed lengths (npjax/_core/_buckets.py), on the device.

``a[mask]``, ``nonzero``, ``argwhere``, ``flatnonzero``, ``compress``, ``extract``,
``unique`` (and its variants), the set operations and ``place`` must give NumPy's results
exactly, and a loop over many different counts must compile O(log n) programs, not one per
count. The parity tests shrink the smallest bucket (``FLOOR``) so that small arrays are padded
and cut too, and run each of the three routes: the CPU backend's (NumPy finds the positions in
place, results cut on the host), an accelerator's (the positions found in the program, results
cut on the host) and an accelerator's for large results (cut on the device).
"""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._core import _buckets
from tests import strategies as S
from tests._parity import assert_parity

pytestmark = pytest.mark.device_placement

REAL = S.BOOL + S.INTEGER + S.FLOAT
ROUTES = ["cpu", "accelerator", "accelerator, large"]
CUTS = st.sampled_from(ROUTES)


@contextlib.contextmanager
def buckets(route: str, floor: int = 1):
    """Small buckets (``floor``), and the route taken as on the CPU backend or on an
    accelerator (device arrays not read in place; large results cut on the device)."""
    saved = _buckets.FLOOR, _buckets.HOST_CUT_BYTES, _buckets.in_host_memory
    _buckets.FLOOR = floor
    if route != "cpu":
        _buckets.in_host_memory = lambda x: isinstance(x, np.ndarray)
    if route == "accelerator, large":
        _buckets.HOST_CUT_BYTES = 0
    try:
        yield
    finally:
        _buckets.FLOOR, _buckets.HOST_CUT_BYTES, _buckets.in_host_memory = saved


def parity(fn, context, cut):
    with buckets(cut):
        assert_parity(fn, context=context)


def shapes(min_dims=0, max_dims=3):
    return S.shapes(min_dims=min_dims, max_dims=max_dims, max_side=5)


def test_bucket_sizes():
    assert [_buckets.bucket(c, 10**6) for c in (0, 1, 64, 65, 128, 129, 1000)] == [
        64, 64, 64, 128, 128, 256, 1024]
    assert _buckets.bucket(70, 100) == 100 and _buckets.bucket(3, 5) == 5
    with pytest.raises(ValueError):
        _buckets.bucket(6, 5)


# --- parity -----------------------------------------------------------------------------------


@st.composite
def mask_reads(draw):
    """An array, and an index with one boolean array: basic items in front of it (ints,
    slices, None), the mask over the next axes, then maybe ``...`` or a slice."""
    shape = draw(shapes(min_dims=1))
    host = draw(S.arrays(st.sampled_from(S.ALL), st.just(shape)))
    lead = draw(st.integers(0, len(shape) - 1))
    front = [draw(st.sampled_from([slice(None), slice(1, None), 0, -1, None]))
             for _ in range(lead)]
    k = draw(st.integers(1, len(shape) - lead))
    axes = shape[lead:lead + k]
    mask = draw(S.hnp.arrays(np.bool_, axes))
    back = draw(st.sampled_from([[], [Ellipsis], [slice(None, None, -1)]]))
    if back and lead + k == len(shape):
        back = [Ellipsis] if back == [Ellipsis] else []
    source = draw(st.sampled_from(["np", "xp", "list"]))
    return host, front, mask, back, source


@given(mask_reads(), CUTS)
def test_mask_read(case, cut):
    host, front, mask, back, source = case

    def fn(xp):
        m = {"np": mask, "xp": xp.asarray(mask), "list": mask.tolist()}[source]
        return xp.asarray(host)[tuple(front) + (m,) + tuple(back)]

    parity(fn, (host, front, mask, back, source), cut)


@given(S.arrays(st.sampled_from(S.ALL), shapes()), CUTS)
def test_nonzero_family(a, cut):
    for name in ("nonzero", "argwhere", "flatnonzero"):
        parity(lambda xp, name=name: getattr(xp, name)(xp.asarray(a)), (name, a), cut)
    parity(lambda xp: xp.where(xp.asarray(a)), ("where", a), cut)
    parity(lambda xp: xp.asarray(a).nonzero(), ("method", a), cut)


@given(S.arrays(st.sampled_from(REAL), shapes()), st.data(), CUTS)
def test_compress_extract(a, data, cut):
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim, a.ndim))), label="axis")
    n = a.size if axis is None else a.shape[axis]
    cond = data.draw(S.arrays(st.sampled_from([np.bool_, np.int8, np.float64]),
                              st.integers(0, n + 2).map(lambda k: (k,))), label="cond")
    parity(lambda xp: xp.compress(xp.asarray(cond), xp.asarray(a), axis=axis),
           ("compress", a, cond, axis), cut)
    parity(lambda xp: xp.extract(xp.asarray(cond), xp.asarray(a)), ("extract", a, cond), cut)
    full = data.draw(S.hnp.arrays(np.bool_, st.just(a.shape)), label="full")
    parity(lambda xp: xp.extract(xp.asarray(full), xp.asarray(a)), ("extract", a, full), cut)


flags = st.booleans()


@given(S.arrays(st.sampled_from(S.ALL), shapes()), flags, flags, flags, flags, CUTS)
def test_unique(a, ri, rv, rc, equal_nan, cut):
    parity(lambda xp: xp.unique(xp.asarray(a), ri, rv, rc, equal_nan=equal_nan),
           (a, ri, rv, rc, equal_nan), cut)


# float16 left out: NumPy sorts float16 rows with NaN first (its float16 row comparison), npjax
# NaN last, as for the other float types; a deviation older than the buckets.
@given(S.arrays(st.sampled_from([d for d in REAL + S.COMPLEX if d != np.float16]),
                shapes(min_dims=1)), st.data(), flags, flags, flags, CUTS)
def test_unique_axis(a, data, ri, rv, rc, cut):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    parity(lambda xp: xp.unique(xp.asarray(a), ri, rv, rc, axis=axis), (a, axis, ri, rv, rc),
           cut)


@given(S.arrays(st.sampled_from(S.ALL), shapes()), CUTS)
def test_unique_variants(a, cut):
    # With several NaNs (never equal here: equal_nan=False) NumPy's indices and inverse follow
    # its unstable sort of the NaNs; npjax's sort is stable (older than the buckets).
    several_nans = a.dtype.kind in "fc" and np.isnan(a).sum() > 1
    names = ("unique_counts",) if several_nans else ("unique_counts", "unique_inverse",
                                                     "unique_all")
    for name in names:
        parity(lambda xp, name=name: tuple(getattr(xp, name)(xp.asarray(a))), (name, a), cut)
    parity(lambda xp: xp.sort(xp.unique_values(xp.asarray(a))), ("unique_values", a), cut)


set_pair = st.sampled_from(REAL + S.COMPLEX).flatmap(
    lambda d: st.tuples(S.arrays(d, shapes(max_dims=2)), S.arrays(d, shapes(max_dims=2))))


@given(set_pair, flags, CUTS)
def test_set_operations(pair, assume_unique, cut):
    a, b = pair
    if assume_unique:  # NumPy's precondition for the flag
        a, b = np.unique(a), np.unique(b)
    for name in ("intersect1d", "setdiff1d", "setxor1d"):
        parity(lambda xp, name=name: getattr(xp, name)(xp.asarray(a), xp.asarray(b),
                                                       assume_unique=assume_unique),
               (name, a, b, assume_unique), cut)
    parity(lambda xp: xp.intersect1d(xp.asarray(a), xp.asarray(b),
                                     assume_unique=assume_unique, return_indices=True),
           ("intersect1d indices", a, b, assume_unique), cut)
    parity(lambda xp: xp.union1d(xp.asarray(a), xp.asarray(b)), ("union1d", a, b), cut)


def test_set_operations_mixed_dtypes():
    # Each input's duplicates are removed in its own dtype, then the two are promoted: int64
    # values that are distinct but equal as float64 stay two entries (NumPy's order of work).
    big = np.array([2**53, 2**53 + 1, 3], np.int64)
    pairs = [(big, np.array([2.0**53, 3.0])), (big, np.array([2.0**53])),
             (np.array([2**53, 2**53 + 1, 2**53 + 2, 2**53 + 3]), np.array([2.0**53])),
             ([1, 2, 3, np.nan], np.array([2, 5], np.int8)),
             (np.array([np.nan, np.nan, 1.0]), np.array([np.nan, 1.0])),
             (np.array([-0.0, 0.0, 1.0]), np.array([0.0]))]
    for i, (a, b) in enumerate(pairs):
        for name in ("intersect1d", "setdiff1d", "setxor1d", "union1d"):
            parity(lambda xp, name=name, a=a, b=b: getattr(xp, name)(xp.asarray(a),
                                                                     xp.asarray(b)),
                   (name, a, b), ROUTES[i % 3])
        parity(lambda xp, a=a, b=b: xp.intersect1d(xp.asarray(a), xp.asarray(b),
                                                   return_indices=True), (a, b), "cpu")


@given(S.arrays(st.sampled_from(REAL), shapes(min_dims=1)), st.data())
def test_place(a, data):
    mask = data.draw(S.hnp.arrays(np.bool_, st.just(a.shape)), label="mask")
    vals = data.draw(S.arrays(a.dtype, st.integers(0, 4).map(lambda k: (k,))), label="vals")

    def fn(xp):
        x = xp.asarray(a.copy())
        xp.place(x, xp.asarray(mask), xp.asarray(vals))
        return x

    assert_parity(fn, context=(a, mask, vals))


def test_place_read_only():
    x = npjax.asarray(np.arange(4.0))
    view = npjax.broadcast_to(x, (2, 4))
    for mask in ([False] * 8, [True] + [False] * 7):
        with pytest.raises(ValueError):
            npjax.place(view, mask, [1.0])


def test_large_results_at_the_real_buckets():
    rng = np.random.default_rng(5)
    host = rng.standard_normal((37, 29))
    for cut in ROUTES:
        for threshold in (-3.0, -0.5, 0.0, 1.2, 5.0):
            with buckets(cut, _buckets.FLOOR):
                assert_parity(lambda xp, t=threshold: xp.asarray(host)[xp.asarray(host) > t])
                assert_parity(lambda xp, t=threshold: xp.nonzero(xp.asarray(host) > t))
                assert_parity(lambda xp, t=threshold: xp.compress(
                    xp.asarray(host)[:, 0] > t, xp.asarray(host), axis=0))
                assert_parity(lambda xp, t=threshold: xp.unique(
                    xp.round(xp.asarray(host) * t), return_index=True, return_inverse=True,
                    return_counts=True))


# --- programs: O(log n) for n different counts -------------------------------------------------


def _distinct_counts(n_elements, how_many):
    return sorted({int(round(c)) for c in np.linspace(0, n_elements, how_many)})


@pytest.mark.eager_only
@pytest.mark.parametrize("route", ["cpu", "accelerator"])
@pytest.mark.parametrize("name", ["mask read", "nonzero", "compress", "unique"])
def test_many_counts_compile_few_programs(name, route):
    shape = (50, 40)
    n = math.prod(shape)
    rng = np.random.default_rng(0)
    order = rng.permutation(n)
    host = rng.standard_normal(shape)
    a = npjax.asarray(host)
    counts = _distinct_counts(n, 200)
    assert len(counts) == 200

    def inputs(count):
        mask = np.zeros(n, bool)
        mask[order[:count]] = True
        if name == "unique":  # ``count`` distinct values (at least one)
            return npjax.asarray(np.arange(n) % max(count, 1))
        return npjax.asarray(mask.reshape(shape))

    ops = {"mask read": lambda m: a[m], "nonzero": lambda m: npjax.nonzero(m)[0],
           "compress": lambda m: npjax.compress(m.ravel(), a.ravel()),
           "unique": lambda x: npjax.unique(x, return_counts=True)[0]}
    op = ops[name]
    data = [inputs(c) for c in counts]
    npjax.reset_stats()
    with buckets(route, _buckets.FLOOR):
        for count, x in zip(counts, data):
            got = op(x)
            assert got.shape[0] == max(count, 1 if name == "unique" else 0)
    programs = npjax.stats()["compiles"]["count"]
    n_buckets = len({_buckets.bucket(c, n) for c in counts})
    assert n_buckets == 6  # 64, 128, 256, 512, 1024 and 2000 (the cap)
    # at most one program per bucket, a few per shape (the count, unique's sort, the ravel);
    # before, 200 counts compiled 400 programs (compress) or 1200 (a mask read), and
    # nonzero and unique fetched their whole input to compute on the host
    assert programs <= n_buckets + 4, npjax.stats()["compiles"]["by_function"]
    assert programs <= math.log2(n)


# --- lazy mode and npjax.jit ---------------------------------------------------------------------


CASES = {
    "mask read": lambda xp, x: x[x > 0.3],
    "nonzero": lambda xp, x: xp.nonzero(x > 0.3),
    "argwhere": lambda xp, x: xp.argwhere(x > 0.3),
    "flatnonzero": lambda xp, x: xp.flatnonzero(x > 0.3),
    "compress": lambda xp, x: xp.compress(x[0] > 0.3, x, axis=1),
    "extract": lambda xp, x: xp.extract(x > 0.3, x),
    "unique": lambda xp, x: xp.unique(xp.round(x * 4), return_inverse=True),
    "intersect1d": lambda xp, x: xp.intersect1d(xp.round(x * 4), xp.round(x[0] * 2)),
    "setdiff1d": lambda xp, x: xp.setdiff1d(xp.round(x * 4), xp.round(x[0] * 2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lazy_mode(name):
    host = np.random.default_rng(1).random((6, 7))
    fn = CASES[name]
    with npjax.policy(mode="lazy"):
        x = npjax.asarray(host) * 2 - 0.5  # pending
        got = fn(npjax, x)
    want = fn(np, host * 2 - 0.5)
    assert_parity(lambda xp: got if xp is npjax else want, context=name)


def test_jit_with_a_numpy_mask():
    # the count is known when tracing: the result is cut in the traced program
    mask = np.array([[True, False, True], [False, False, True]])

    def fn(x):
        return x[mask] * 2, x[1:, mask[0]]

    x = np.arange(6.0).reshape(2, 3)
    got = npjax.jit(fn)(npjax.asarray(x))
    assert_parity(lambda xp: got if xp is npjax else fn(x))


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_raises_jit_error(name):
    fn = CASES[name]
    jitted = npjax.jit(lambda x: fn(npjax, x))
    with pytest.raises(npjax.JitError):
        jitted(npjax.asarray(np.random.default_rng(2).random((6, 7))))
    eager = npjax.jit(lambda x: fn(npjax, x), fallback="eager")
    x = np.random.default_rng(2).random((6, 7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = eager(npjax.asarray(x))
    assert_parity(lambda xp: got if xp is npjax else fn(np, x), context=name)
