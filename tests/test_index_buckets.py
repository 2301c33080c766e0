"""Writes (and reads) whose index or values have a data-dependent length, on the device.

``a[mask] = values`` (one value per True element), ``a[idx] = values`` and ``a[idx]`` with
integer index arrays of a length that changes from call to call, and their read-modify-writes
(``a[mask] += 1``) must give NumPy's results and errors, and a loop over many lengths must
compile O(log n) programs (issue 16), not one per length. The parity tests shrink the smallest
bucket so that small arrays are padded too, and take both routes of ``_buckets.pad``: on the
host (the CPU backend, small arrays) and by a padding program (large arrays on an accelerator).
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
from npjax._core import _buckets, _index_plan
from tests import strategies as S
from tests._parity import assert_parity
from tests.test_buckets import buckets

pytestmark = pytest.mark.device_placement

ROUTES = st.sampled_from(["cpu", "accelerator, large"])


@contextlib.contextmanager
def bucketed(route: str, floor: int = 1, exact: int = 0):
    """Small buckets, the given route, and integer index arrays padded from the first
    length on (``exact``: how many lengths keep programs of their own)."""
    saved = _index_plan._EXACT_LENGTHS
    _index_plan._EXACT_LENGTHS = exact
    _index_plan._LENGTHS_SEEN.clear()
    try:
        with buckets(route, floor):
            yield
    finally:
        _index_plan._EXACT_LENGTHS = saved
        _index_plan._LENGTHS_SEEN.clear()


def values_of(dtype, shape, draw):
    """Values of ``dtype`` that every dtype holds (small integers): NumPy's casts of NaN or
    out-of-range values into integers are not defined."""
    ints = draw(S.hnp.arrays(np.int64, shape, elements=st.integers(0, 100)))
    return ints.astype(dtype)


@st.composite
def mask_writes(draw):
    shape = draw(S.shapes(min_dims=1, max_dims=3, max_side=5))
    host = draw(S.arrays(st.sampled_from(S.ALL), st.just(shape)))
    n = draw(st.integers(1, len(shape)))
    mask = draw(S.hnp.arrays(np.bool_, st.just(shape[:n])))
    count = int(mask.sum())
    rest = shape[n:]
    how = draw(st.sampled_from(["exact", "exact", "exact", "lead1", "more", "fewer", "2d"]))
    rows = {"more": count + 1, "fewer": max(count - 1, 0)}.get(how, count)
    vshape = (rows,) + rest
    if how == "lead1":
        vshape = (1,) + vshape
    elif how == "2d":
        vshape = (rows, 1) + rest
    vals = values_of(draw(st.sampled_from(S.ALL)), vshape, draw)
    source = draw(st.sampled_from(["np", "xp", "list"]))
    view = draw(st.booleans())
    return host, mask, vals, source, view


def _value(xp, vals, source):
    return {"np": vals, "xp": xp.asarray(vals), "list": vals.tolist()}[source]


@given(mask_writes(), ROUTES)
def test_mask_write_of_values(case, route):
    host, mask, vals, source, view = case

    def fn(xp):
        a = xp.asarray(host.copy())
        target = a[...] if view else a
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # complex to real: values compared
            target[xp.asarray(mask)] = _value(xp, vals, source)
        return a

    with bucketed(route):
        assert_parity(fn, context=(host, mask, vals, source, view))


@given(mask_writes(), ROUTES)
def test_mask_read_modify_write(case, route):
    host, mask, _, _, _ = case
    if host.dtype == np.bool_:
        host = host.astype(np.int8)

    def fn(xp):
        a = xp.asarray(host.copy())
        m = xp.asarray(mask)
        a[m] += 1
        a[m] = a[m] * 2
        return a

    with bucketed(route):
        assert_parity(fn, context=(host, mask))


def test_mask_write_errors_are_numpys():
    for placement in ("device", "host"):
        with npjax.policy(placement=placement):
            a = npjax.zeros(5)
            full = a == 0
            b = npjax.zeros((4, 3))
            m = npjax.asarray([True, False, True, True])
            cases = [(a, full, np.ones(2)), (a, full, np.ones((5, 1))),
                     (b, m, np.ones(2)), (b, m, np.ones((2, 3)))]
            for x, mask, v in cases:
                want = x._fetch().copy()
                with pytest.raises((ValueError, TypeError)) as ours:
                    x[mask] = v
                with pytest.raises((ValueError, TypeError)) as numpys:
                    want[np.asarray(mask)] = v
                assert type(ours.value) is type(numpys.value)
                assert str(ours.value) == str(numpys.value)


@st.composite
def int_index_writes(draw):
    shape = draw(S.shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    host = draw(S.arrays(st.sampled_from(S.ALL), st.just(shape)))
    axis = draw(st.integers(0, len(shape) - 1))
    side = shape[axis]
    length = draw(st.integers(0, 9))
    bad = draw(st.integers(0, 9)) == 0  # sometimes out of bounds
    idx = draw(S.hnp.arrays(np.int64, (length,), elements=st.integers(
        -side - bad, side - 1 + bad)))
    front = [draw(st.sampled_from([slice(None), 0, slice(1, None)])) for _ in range(axis)]
    how = draw(st.sampled_from(["per_index", "per_index", "scalar", "row"]))
    source = draw(st.sampled_from(["np", "xp", "list"]))
    return host, front, idx, how, source


def _int_case_value(xp, host, front, idx, how):
    target = np.empty(host.shape)[tuple(front) + (idx,)].shape
    if how == "scalar":
        return 7
    if how == "row":
        return xp.asarray(np.arange(target[-1] if target else 1) % 5, dtype=host.dtype)
    return xp.asarray(np.arange(math.prod(target)).reshape(target) % 100, dtype=host.dtype)


@given(int_index_writes(), ROUTES)
def test_int_index_write_and_read(case, route):
    host, front, idx, how, source = case

    def write(xp):
        a = xp.asarray(host.copy())
        index = tuple(front) + (_value(xp, idx, source),)
        a[index] = _int_case_value(xp, host, front, idx, how)
        return a

    def read(xp):
        return xp.asarray(host)[tuple(front) + (_value(xp, idx, source),)]

    def update(xp):
        a = xp.asarray(host.astype(np.int16) if host.dtype == np.bool_ else host.copy())
        index = tuple(front) + (_value(xp, idx, source),)
        a[index] += 1  # repeated indices: one increment (NumPy)
        return a

    with bucketed(route):
        for fn in (write, read, update):
            assert_parity(fn, context=(fn.__name__, host, front, idx, how, source))


def test_repeated_indices_in_a_padded_write_take_the_last_value():
    with bucketed("cpu", floor=_buckets.FLOOR):
        a = npjax.zeros(6)
        a[npjax.asarray([1, 1, -5, 3, 3, 3])] = npjax.asarray([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        assert a.tolist() == [0.0, 3.0, 0.0, 6.0, 0.0, 0.0]


def test_lazy_mode_mask_write_of_values():
    host = np.arange(12.0).reshape(3, 4)
    mask = host % 3 == 1
    want = host.copy()
    want[mask] = -want[mask]
    with bucketed("cpu"), npjax.policy(mode="lazy"):
        a = npjax.asarray(host) * 1  # pending
        a[npjax.asarray(mask)] = -a[npjax.asarray(mask)]
    assert_parity(lambda xp: a if xp is npjax else want)


# --- programs: O(log n) for n different lengths -------------------------------------------------


def _counts(n, how_many):
    return sorted({int(round(c)) for c in np.linspace(1, n, how_many)})


@pytest.mark.eager_only
@pytest.mark.parametrize("route", ["cpu", "accelerator"])
@pytest.mark.parametrize("name", ["mask = values", "a[mask] += values", "a[idx] = values",
                                  "a[idx]", "a[idx, :] = values"])
def test_many_lengths_compile_few_programs(name, route):
    shape = (50, 40)
    n = math.prod(shape)
    rng = np.random.default_rng(0)
    order = rng.permutation(n)
    a = npjax.asarray(rng.standard_normal(shape))
    flat = npjax.asarray(rng.standard_normal(n))
    counts = _counts(n, 100)
    assert len(counts) == 100

    def mask_of(count):
        mask = np.zeros(n, bool)
        mask[order[:count]] = True
        return npjax.asarray(mask.reshape(shape))

    if name in ("mask = values", "a[mask] += values"):
        data = [(mask_of(c), npjax.asarray(rng.standard_normal(c))) for c in counts]
    elif name == "a[idx, :] = values":
        data = [(npjax.asarray(order[:c] % 50), npjax.asarray(rng.standard_normal((c, 40))))
                for c in counts]
    else:
        data = [(npjax.asarray(order[:c]), npjax.asarray(rng.standard_normal(c)))
                for c in counts]

    def op(index, values):
        if name == "mask = values":
            a[index] = values
        elif name == "a[mask] += values":
            a[index] += values  # the read and the write (the add is per count: a ufunc)
        elif name == "a[idx] = values":
            flat[index] = values
        elif name == "a[idx]":
            return flat[index]
        else:
            a[index, :] = values
        return None

    npjax.reset_stats()
    with bucketed(route, _buckets.FLOOR, exact=_index_plan._EXACT_LENGTHS):
        for index, values in data:
            op(index, values)
    by = npjax.stats()["compiles"]["by_function"]
    programs = sum(k for f, k in by.items() if f != "jit(body)")  # ufuncs: not indexing
    n_buckets = len({_buckets.bucket(c, n) for c in counts})
    assert n_buckets == 6  # 64, 128, ..., 1024 and 2000 (the cap)
    # before: one program per count (100, a scatter each)
    assert programs <= n_buckets + _index_plan._EXACT_LENGTHS + 3, by
    assert programs <= math.log2(n) + _index_plan._EXACT_LENGTHS, by
