"""Parity of sorting, searching and selection functions (npjax/_library/_selection.py) with
NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import assert_parity
from tests.strategies import ALL, COMPLEX, FLOAT, INTEGER, NUMERIC, arrays

REAL = [np.dtype(np.bool_)] + INTEGER + FLOAT

# A fixed palette of shapes (0-d, empty, 1-3 dims): every new shape costs JAX compilations, so
# a small palette keeps the suite fast while still covering the shape edge cases.
PALETTE = [(), (0,), (1,), (3,), (4,), (2, 3), (3, 1), (1, 4), (0, 2), (2, 0), (2, 2, 2),
           (1, 3, 2), (2, 0, 3)]


def shapes(min_dims=0, max_dims=3, min_side=0, max_side=4):
    return st.sampled_from([s for s in PALETTE if min_dims <= len(s) <= max_dims
                            and all(min_side <= n <= max_side for n in s)])


small = shapes(max_dims=2, max_side=4)
axes = st.sampled_from([None, -1, 0, 1, 2, -3])


def _host(x):
    return np.asarray(x)


# --- sort / argsort ---------------------------------------------------------------------------


@given(arrays(st.sampled_from(ALL), shapes()), axes)
def test_sort(a, axis):
    assert_parity(lambda xp: xp.sort(xp.asarray(a), axis=axis), context=(a, axis))


@given(arrays(st.sampled_from(ALL), shapes()), axes, st.sampled_from(["stable", "mergesort"]))
def test_argsort_stable(a, axis, kind):
    assert_parity(lambda xp: xp.argsort(xp.asarray(a), axis=axis, kind=kind), context=(a, axis))
    assert_parity(lambda xp: xp.argsort(xp.asarray(a), axis=axis, stable=True),
                  context=(a, axis))


@given(arrays(st.sampled_from(ALL), shapes(min_dims=1)), st.sampled_from([None, -1, 0]))
def test_argsort_default_sorts(a, axis):
    idx = npjax.argsort(npjax.asarray(a), axis=axis)
    want = np.argsort(a, axis=axis)
    got = _host(idx)
    assert got.dtype == want.dtype and got.shape == want.shape
    flat = a.ravel() if axis is None else a
    ax = 0 if axis is None else axis
    np.testing.assert_array_equal(np.take_along_axis(flat, got, ax), np.sort(flat, axis=ax))


def test_sort_arguments():
    a = [3, 1, 2]
    assert_parity(lambda xp: xp.sort(xp.asarray(a), kind="foo"))
    assert_parity(lambda xp: xp.sort(xp.asarray(a), kind="stable", stable=True))
    assert_parity(lambda xp: xp.sort(xp.asarray(a), kind="heapsort"))
    assert_parity(lambda xp: xp.sort(xp.asarray(a), order="x"))
    assert_parity(lambda xp: xp.sort(xp.asarray(5)))
    assert_parity(lambda xp: xp.sort(xp.asarray(5), axis=None))
    assert_parity(lambda xp: xp.argsort([2, 1], stable=False))


def test_sort_edge_values():
    vals = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -0.0, 0.0])
    assert_parity(lambda xp: xp.argsort(xp.asarray(vals), kind="stable"))
    c = np.array([complex(np.nan, np.nan), complex(1, np.nan), complex(np.nan, 1), 1 + 1j,
                  complex(-np.inf, 0), complex(2, np.nan), complex(np.nan, -1), 0j, -0j])
    assert_parity(lambda xp: xp.argsort(xp.asarray(c), kind="stable"))
    assert_parity(lambda xp: xp.sort(xp.asarray(c)))
    i = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, -1])
    assert_parity(lambda xp: xp.argsort(xp.asarray(i), kind="stable"))


@given(arrays(st.sampled_from(REAL + COMPLEX), shapes(min_dims=1)), st.sampled_from([-1, 0]))
def test_sort_method_in_place_on_view(a, axis):
    def run(xp):
        base = xp.array(a)
        view = base[::-1]
        view.sort(axis=axis)
        return base, view

    assert_parity(run, context=(a,))


def test_sort_method_read_only():
    def run(xp):
        x = xp.broadcast_to(xp.asarray([3, 1]), (2, 2)) if xp is np else \
            npjax.asarray([3, 1])._broadcast_to((2, 2))
        x.sort()

    assert_parity(run)


# --- partition --------------------------------------------------------------------------------


@given(arrays(st.sampled_from(REAL + COMPLEX), shapes(min_dims=1)), st.data())
def test_partition(a, data):
    axis = data.draw(st.sampled_from([None, -1, 0]))
    n = a.size if axis is None else a.shape[axis]
    kth = data.draw(st.one_of(st.integers(-n - 1, n), st.lists(
        st.integers(-max(n, 1), max(n, 1) - 1), max_size=2)))
    try:
        want = np.partition(a, kth, axis=axis)
    except (ValueError, TypeError):  # then npjax must raise the same family
        assert_parity(lambda xp: xp.partition(xp.asarray(a), kth, axis=axis),
                      context=(a, kth))
        assert_parity(lambda xp: xp.argpartition(xp.asarray(a), kth, axis=axis),
                      context=(a, kth))
        return
    got = _host(npjax.partition(npjax.asarray(a), kth, axis=axis))
    idx = _host(npjax.argpartition(npjax.asarray(a), kth, axis=axis))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert idx.dtype == np.intp and idx.shape == want.shape
    if want.size == 0:
        return
    ax = 0 if axis is None else axis
    flat = a.ravel() if axis is None else a
    by_idx = np.take_along_axis(flat, idx, ax)
    for k in np.atleast_1d(kth):
        kv = np.take(want, [k], axis=ax)
        np.testing.assert_array_equal(np.take(got, [k], axis=ax), kv)
        np.testing.assert_array_equal(np.take(by_idx, [k], axis=ax), kv)
    # Same multiset of values along the axis, and the kth entries are in place: together
    # with sorted order on both sides (checked by comparing with a full sort) a partition.
    np.testing.assert_array_equal(np.sort(got, axis=ax), np.sort(flat, axis=ax))
    np.testing.assert_array_equal(np.sort(by_idx, axis=ax), np.sort(flat, axis=ax))


def test_partition_arguments():
    a = [3, 1, 2]
    for kth in (3, -4, True, 1.0, []):
        assert_parity(lambda xp, k=kth: xp.partition(xp.asarray(a), k), context=kth)
        assert_parity(lambda xp, k=kth: xp.argpartition(xp.asarray(a), k), context=kth)
    assert_parity(lambda xp: xp.partition(xp.asarray(a), 1, kind="quick"))
    assert_parity(lambda xp: xp.partition(xp.asarray(5), 0))
    assert_parity(lambda xp: xp.argpartition(xp.asarray(5), 0))

    def run(xp):
        x = xp.array([[4, 3, 1], [0, 9, 2]])
        x[1].partition(1)
        return x

    assert_parity(run)
    for method in ("sort", "partition"):
        args = (1,) if method == "partition" else ()
        assert_parity(lambda xp, m=method, args=args: getattr(xp.asarray([3, 1]), m)(
            *args, axis=None))
    assert_parity(lambda xp: xp.asarray(5).argsort())
    assert_parity(lambda xp: xp.asarray([3, 1]).argpartition(0, axis=None))


# --- lexsort / searchsorted -------------------------------------------------------------------


@given(st.sampled_from(REAL + COMPLEX).flatmap(
    lambda d: shapes(min_dims=1, max_dims=2).flatmap(
        lambda s: st.lists(arrays(d, st.just(s)), min_size=1, max_size=3))),
    st.sampled_from([-1, 0]))
def test_lexsort(keys, axis):
    assert_parity(lambda xp: xp.lexsort([xp.asarray(k) for k in keys], axis=axis),
                  context=keys)
    assert_parity(lambda xp: xp.lexsort(xp.asarray(np.stack(keys)), axis=axis), context=keys)


def test_lexsort_errors():
    assert_parity(lambda xp: xp.lexsort([]))
    assert_parity(lambda xp: xp.lexsort(([1, 2], [1, 2, 3])))
    assert_parity(lambda xp: xp.lexsort(xp.asarray([1, 2])))
    assert_parity(lambda xp: xp.lexsort(xp.asarray(5)))


@given(st.sampled_from(REAL + COMPLEX).flatmap(
    lambda d: st.tuples(arrays(d, shapes(1, 1)), arrays(d, shapes(max_dims=2)))),
    st.sampled_from(["left", "right"]))
def test_searchsorted(av, side):
    a, v = av
    s = np.sort(a)
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(s), xp.asarray(v), side=side),
                  context=(s, v))
    sorter = np.argsort(a, kind="stable")
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(a), xp.asarray(v), side, sorter),
                  context=(a, v))
    assert_parity(lambda xp: xp.asarray(s).searchsorted(xp.asarray(v), side=side))


def test_searchsorted_mixed_and_errors():
    a = [1, 2, 3]
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(a, dtype=np.int8), 1000))
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(a), 2.5))
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(a), [2.5, -1]))
    assert_parity(lambda xp: xp.searchsorted(xp.asarray([[1, 2]]), 2))
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(3), 2))
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(a), 2, side="x"))
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(a), 2, sorter=[0, 1]))
    assert_parity(lambda xp: xp.searchsorted(xp.asarray(a), 2, sorter=[0.0, 1, 2]))


# --- where / nonzero --------------------------------------------------------------------------


@given(arrays(st.sampled_from(ALL), shapes()))
def test_nonzero_family(a):
    assert_parity(lambda xp: xp.nonzero(xp.asarray(a)), context=(a,))
    assert_parity(lambda xp: xp.where(xp.asarray(a)), context=(a,))
    assert_parity(lambda xp: xp.argwhere(xp.asarray(a)), context=(a,))
    assert_parity(lambda xp: xp.flatnonzero(xp.asarray(a)), context=(a,))
    assert_parity(lambda xp: xp.asarray(a).nonzero(), context=(a,))


operand = st.one_of(
    st.sampled_from(NUMERIC + [np.dtype(np.bool_)]).flatmap(lambda d: arrays(d, small)),
    st.sampled_from([0, 1, -1, 2.5, -0.0, 1j, 300, np.nan]))


def _on(xp, v):
    """A Hypothesis NumPy array as an ``xp`` array; other values unchanged."""
    return xp.asarray(v) if isinstance(v, np.ndarray) else v


@given(arrays(np.bool_, small), operand, operand)
def test_where_three(cond, x, y):
    def run(xp):
        return xp.where(xp.asarray(cond), _on(xp, x), _on(xp, y))

    assert_parity(run, context=(cond, x, y))


def test_where_errors_and_scalars():
    assert_parity(lambda xp: xp.where(True, 1, 2))
    assert_parity(lambda xp: xp.where(1, 2))
    assert_parity(lambda xp: xp.where(xp.asarray(1)))
    assert_parity(lambda xp: xp.where([1, 0], xp.ones(2, np.int16), xp.ones(2, np.float16)))
    assert_parity(lambda xp: xp.where([1, 0], xp.ones(2, np.int8), 1000))
    assert_parity(lambda xp: xp.where([np.nan, 0.0], 1, 2))


# --- clip -------------------------------------------------------------------------------------

bound = st.one_of(st.none(), st.sampled_from([0, -1, 1, 2, 1.5, -1000, 1000, np.nan, -0.0]),
                  st.sampled_from(REAL).flatmap(lambda d: arrays(d, shapes(max_dims=1))))


@given(arrays(st.sampled_from(REAL), small), bound, bound)
def test_clip(a, lo, hi):
    def run(xp):
        return xp.clip(xp.asarray(a), _on(xp, lo), _on(xp, hi))

    assert_parity(run, context=(a, lo, hi))
    assert_parity(lambda xp: xp.asarray(a).clip(min=lo if not isinstance(lo, np.ndarray)
                                                else None, max=hi if not isinstance(
                                                    hi, np.ndarray) else None))


def test_clip_signatures_and_out():
    a = [0, 1, 2, 5]
    assert_parity(lambda xp: xp.clip(5, 1, 3))
    assert_parity(lambda xp: xp.clip(xp.asarray(a), max=1))
    assert_parity(lambda xp: xp.clip(xp.asarray(a), min=1))
    assert_parity(lambda xp: xp.clip(xp.asarray(a)))
    assert_parity(lambda xp: xp.clip(xp.asarray(a), 1))
    assert_parity(lambda xp: xp.clip(xp.asarray(a), 1, 2, min=1))
    assert_parity(lambda xp: xp.clip(xp.asarray(a), 3, 1))
    assert_parity(lambda xp: xp.clip(xp.asarray(a, dtype=np.int8), np.int16(1), 2))
    assert_parity(lambda xp: xp.clip(xp.asarray(a), [0, 1], 2))
    assert_parity(lambda xp: xp.clip(xp.asarray([True]), None, None))
    assert_parity(lambda xp: xp.clip(xp.asarray([1 + 2j, 3 - 1j]), 1 + 0j, 2 + 5j))
    assert_parity(lambda xp: xp.asarray(a).clip(1))

    def into(out_dtype, casting="same_kind", hi=2):
        def run(xp):
            out = xp.zeros(4, out_dtype)
            r = xp.clip(xp.asarray(a), 1, hi, out=out, casting=casting)
            return r is out, out
        return run

    assert_parity(into(np.int8))
    assert_parity(into(np.int64, hi=2.5))
    assert_parity(into(np.int64, casting="unsafe", hi=2.5))
    assert_parity(into(np.float64))

    def mutate(xp):
        x = xp.array([[5.0, -1.0], [0.5, 3.0]])
        xp.clip(x[:, 0], 0, 1, out=x[:, 0])
        return x

    assert_parity(mutate)


# --- take / put -------------------------------------------------------------------------------

modes = st.sampled_from(["raise", "wrap", "clip"])


@given(arrays(st.sampled_from(ALL), shapes(max_dims=2)),
       arrays(np.int64, shapes(max_dims=2), min_value=-6, max_value=6),
       st.sampled_from([None, 0, -1, 1]), modes)
def test_take(a, ind, axis, mode):
    assert_parity(lambda xp: xp.take(xp.asarray(a), xp.asarray(ind), axis=axis, mode=mode),
                  context=(a, ind, axis, mode))
    assert_parity(lambda xp: xp.asarray(a).take(int(ind.ravel()[0]) if ind.size else 0,
                                                axis=axis, mode=mode))


def test_take_details():
    x = np.arange(6).reshape(2, 3)
    assert_parity(lambda xp: xp.take([1, 2], 0))
    assert_parity(lambda xp: xp.take(xp.asarray(5), 0))
    assert_parity(lambda xp: xp.take(xp.asarray(5), 0, axis=0))
    assert_parity(lambda xp: xp.take(xp.asarray(x), [0.7]))
    assert_parity(lambda xp: xp.take(xp.asarray(x), [True]))
    assert_parity(lambda xp: xp.take(xp.asarray(x), [1 + 0j]))
    assert_parity(lambda xp: xp.take(xp.asarray(x), xp.asarray([2**63], np.uint64)))
    assert_parity(lambda xp: xp.take(xp.zeros(0), [0], mode="clip"))
    assert_parity(lambda xp: xp.take(xp.zeros(0), [], mode="wrap"))
    assert_parity(lambda xp: xp.take(xp.asarray(x), [1], mode="x"))
    assert_parity(lambda xp: xp.take(xp.asarray(x), [1], axis=2))

    def out(dtype, n=2):
        def run(xp):
            o = xp.zeros(n, dtype)
            r = xp.take(xp.asarray(x), [5, 0], out=o)
            return r is o, o
        return run

    for dtype in (np.int64, np.int8, np.float64):
        assert_parity(out(dtype), context=dtype)
    assert_parity(out(np.int64, 3))


@given(arrays(st.sampled_from(REAL), shapes(min_dims=1, max_dims=2)), st.data())
def test_take_along_axis(a, data):
    axis = data.draw(st.sampled_from([None, 0, -1]))
    if axis is None:
        ishape = data.draw(shapes(1, 1))
    else:
        ishape = tuple(data.draw(st.sampled_from([1, n])) for n in a.shape)
        ishape = tuple(data.draw(st.integers(0, 4)) if i == axis % a.ndim else n
                       for i, n in enumerate(ishape))
    n = a.size if axis is None else a.shape[axis]
    ind = data.draw(arrays(np.int64, st.just(ishape), min_value=-n - 1, max_value=n))
    assert_parity(lambda xp: xp.take_along_axis(xp.asarray(a), xp.asarray(ind), axis),
                  context=(a, ind, axis))

    def put(xp):
        x = xp.array(a)
        xp.put_along_axis(x, xp.asarray(ind), 7, axis)
        return x

    assert_parity(put, context=(a, ind, axis))


def test_along_axis_errors():
    x = np.arange(6).reshape(2, 3)
    assert_parity(lambda xp: xp.take_along_axis(xp.asarray(x), xp.asarray([[0.0]]), 1))
    assert_parity(lambda xp: xp.take_along_axis(xp.asarray(x), xp.asarray([0]), 1))
    assert_parity(lambda xp: xp.take_along_axis(xp.asarray(x), xp.asarray([[0]]), None))
    assert_parity(lambda xp: xp.take_along_axis(xp.asarray(x), xp.asarray([[0], [1], [2]]), 1))

    def dup(xp):
        y = xp.zeros(3)
        xp.put_along_axis(y, xp.asarray([0, 0, 2]), xp.asarray([1.0, 2.0, 3.0]), 0)
        return y

    assert_parity(dup)
    assert_parity(lambda xp: xp.put_along_axis([1, 2], xp.asarray([0]), 1, 0))


@given(arrays(st.sampled_from(REAL + COMPLEX), shapes(min_dims=1, max_dims=2)),
       arrays(np.int64, shapes(max_dims=1), min_value=-9, max_value=9),
       st.one_of(st.sampled_from([0, 1, 2.7, -1]),
                 arrays(np.float64, shapes(max_dims=1), allow_nan=False, allow_infinity=False,
                        min_value=0, max_value=100)),
       modes)
def test_put(a, ind, v, mode):
    def run(xp):
        x = xp.array(a)
        view = x.T[::-1] if x.ndim == 2 else x[::-1]
        vals = xp.asarray(v) if isinstance(v, np.ndarray) else v
        xp.put(view, xp.asarray(ind), vals, mode=mode)
        return x

    assert_parity(run, context=(a, ind, v, mode))

    def method(xp):
        x = xp.array(a)
        x.put(xp.asarray(ind), v if not isinstance(v, np.ndarray) else xp.asarray(v), mode)
        return x

    assert_parity(method, context=(a, ind, v, mode))


def test_put_details():
    def run(ind, v, dtype=np.int8, mode="raise", n=3):
        def fn(xp):
            x = xp.zeros(n, dtype)
            xp.put(x, ind, v, mode=mode)
            return x
        return fn

    assert_parity(run(0, 1000))
    assert_parity(run([0, 1], []))
    assert_parity(run([], []))
    assert_parity(run([0], 1.7))
    assert_parity(run([5], 1))
    assert_parity(run([0], 1 + 1j))
    assert_parity(run([0], 1, np.float64, "clip", 0))
    assert_parity(run([0], [1], mode="y"))
    assert_parity(run([0, 0, 1, 0], [1, 2, 3, 4]))
    assert_parity(run([0.0], [1]))
    assert_parity(lambda xp: xp.put([1, 2], 0, 1))


@given(arrays(st.sampled_from(REAL), shapes(max_dims=2)), st.data())
def test_place_putmask(a, data):
    mask = data.draw(arrays(np.bool_, st.sampled_from([a.shape, (a.size,), (a.size + 1,)])))
    vals = data.draw(st.one_of(st.sampled_from([0, 1, 2.5]),
                               arrays(a.dtype, shapes(1, 1, max_side=3))))

    def place(xp):
        x = xp.array(a)
        xp.place(x, xp.asarray(mask), xp.asarray(vals) if isinstance(vals, np.ndarray)
                 else [vals])
        return x

    def putmask(xp):
        x = xp.array(a)
        xp.putmask(x, xp.asarray(mask), xp.asarray(vals) if isinstance(vals, np.ndarray)
                   else vals)
        return x

    assert_parity(place, context=(a, mask, vals))
    assert_parity(putmask, context=(a, mask, vals))


def test_place_putmask_details():
    def place(mask, vals, dtype=np.float64):
        def fn(xp):
            x = xp.zeros(3, dtype)
            xp.place(x, mask, vals)
            return x
        return fn

    def putmask(mask, vals, dtype=np.float64):
        def fn(xp):
            x = xp.zeros(3, dtype)
            xp.putmask(x, mask, vals)
            return x
        return fn

    assert_parity(place([True, False, True], []))
    assert_parity(place([True, False], [1]))
    assert_parity(place([1, 0, 2], [5, 6]))
    assert_parity(place([1, 0, 1], [1.5], np.int64))
    assert_parity(place([1, 0, 1], [1000], np.int8))
    assert_parity(lambda xp: xp.place([0, 1], [True, False], [1]))
    assert_parity(putmask([1, 0, 1], 1.5, np.int64))
    assert_parity(putmask([1, 0, 1], []))
    assert_parity(putmask([1, 0], [1]))
    assert_parity(putmask([1, 0, 1], 1000, np.int8))
    assert_parity(putmask([1, 0, 1], np.array([1000]), np.int8))
    assert_parity(putmask([1, 0, 1], np.array([1.5]), np.int8))
    assert_parity(putmask([1, 1, 1], np.array([1.0, 2.0])))
    assert_parity(lambda xp: xp.putmask([1, 2], [1, 0], 3))


# --- choose / compress / extract / select / piecewise -----------------------------------------


@given(arrays(np.int64, small, min_value=-3, max_value=4),
       st.lists(st.one_of(st.sampled_from(REAL).flatmap(lambda d: arrays(d, small)),
                          st.sampled_from([1, 2.5, 1000])), min_size=1, max_size=3),
       modes)
def test_choose(a, choices, mode):
    def run(xp):
        cs = [xp.asarray(c) if isinstance(c, np.ndarray) else c for c in choices]
        return xp.choose(xp.asarray(a), cs, mode=mode)

    assert_parity(run, context=(a, choices, mode))


def test_choose_details():
    assert_parity(lambda xp: xp.choose(0, [1, 2]))
    assert_parity(lambda xp: xp.choose([0, 1], []))
    assert_parity(lambda xp: xp.choose([0.0, 1], [[1, 2], [3, 4]]))
    assert_parity(lambda xp: xp.choose([0, 1], [[1, 2], [3, 4]], mode="x"))
    assert_parity(lambda xp: xp.choose([0, 1], xp.asarray([[1, 2], [3, 4]])))
    assert_parity(lambda xp: xp.asarray([1, 0]).choose([[1, 2], [3, 4]]))

    def out(xp):
        o = xp.zeros(2)
        r = xp.choose([0, 1], [[1, 2], [3, 4]], out=o)
        return r is o, o

    assert_parity(out)


@given(arrays(st.sampled_from(ALL), shapes(max_dims=2)),
       st.lists(st.integers(-1, 2), max_size=5), st.sampled_from([None, 0, -1, 1]))
def test_compress_extract(a, cond, axis):
    assert_parity(lambda xp: xp.compress(cond, xp.asarray(a), axis=axis),
                  context=(a, cond, axis))
    assert_parity(lambda xp: xp.asarray(a).compress(cond, axis=axis), context=(a, cond, axis))
    assert_parity(lambda xp: xp.extract(cond, xp.asarray(a)), context=(a, cond))
    c = np.asarray(cond, dtype=bool).reshape(-1)[: a.size]
    full = np.zeros(a.size, bool)
    full[: c.size] = c
    assert_parity(lambda xp: xp.extract(xp.asarray(full.reshape(a.shape)), xp.asarray(a)),
                  context=(a, full))


def test_compress_details():
    assert_parity(lambda xp: xp.compress([[1, 0]], [1, 2, 3]))
    assert_parity(lambda xp: xp.compress([1, 0], xp.asarray(5), axis=0))

    def out(dtype):
        def run(xp):
            o = xp.zeros(1, dtype)
            r = xp.compress([1], xp.arange(3), out=o)
            return r is o, o
        return run

    assert_parity(out(np.float64))
    assert_parity(out(np.int8))


@given(st.lists(arrays(np.bool_, small), min_size=1, max_size=3), st.data())
def test_select(conds, data):
    choices = data.draw(st.lists(st.one_of(
        st.sampled_from(REAL + COMPLEX).flatmap(lambda d: arrays(d, small)),
        st.sampled_from([1, 2.5, 1000, -1])), min_size=len(conds), max_size=len(conds)))
    default = data.draw(st.sampled_from([0, 1.5, 1000, np.int8(3), np.nan]))

    def run(xp):
        cs = [xp.asarray(c) if isinstance(c, np.ndarray) else c for c in choices]
        return xp.select([xp.asarray(c) for c in conds], cs, default=default)

    assert_parity(run, context=(conds, choices, default))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.complex64])
@pytest.mark.parametrize("default", [0.1, 1e300, -1e5, 2j, 7])
def test_select_python_default_of_device_arrays(dtype, default):
    """A Python number default is cast to the result where NumPy casts it (NumPy's rounding,
    its overflow warning), not made a float64 array first (a host array on a TPU)."""
    x = (np.linspace(-2, 2, 7) * 3).astype(dtype)

    def run(xp):
        a = xp.asarray(x)
        return xp.select([a.real > 0, a.real < -3], [a, a * 2], default)

    with npjax.policy(placement="device"):
        assert_parity(run, context=(dtype, default))


def test_select_errors():
    assert_parity(lambda xp: xp.select([[1, 0]], [[1, 2]]))
    assert_parity(lambda xp: xp.select([], []))
    assert_parity(lambda xp: xp.select([xp.asarray([True])], [1, 2]))
    assert_parity(lambda xp: xp.select([True], [1]))


def test_piecewise():
    x = np.linspace(-2.5, 2.5, 6)

    def run(funcs, k=0):
        def fn(xp):
            v = xp.asarray(x)
            return xp.piecewise(v, [v < k, v >= k], funcs)
        return fn

    assert_parity(run([-1, 1]))
    assert_parity(run([lambda t: -t, lambda t: t * 2]))
    assert_parity(run([lambda t: -t, lambda t: t * 2, 9]))
    assert_parity(run([1]))
    assert_parity(lambda xp: xp.piecewise(-2, [True], [lambda t: -t]))
    assert_parity(lambda xp: xp.piecewise(xp.asarray([1, 2, 3]), xp.asarray([1, 2, 3]) > 1,
                                          [lambda t, s: t * s, 0], 10))


# --- diff / ediff1d ---------------------------------------------------------------------------


@given(arrays(st.sampled_from(ALL), shapes()), st.integers(0, 3), st.sampled_from([-1, 0, 1]),
       st.sampled_from([None, 0, 1.5, [1, 2]]), st.sampled_from([None, 0, -1]))
def test_diff(a, n, axis, prepend, append):
    kw = {}
    if prepend is not None:
        kw["prepend"] = prepend
    if append is not None:
        kw["append"] = append
    with np.errstate(all="ignore"):  # inf - inf: NumPy warns, npjax does not
        assert_parity(lambda xp: xp.diff(xp.asarray(a), n=n, axis=axis, **kw),
                      context=(a, n, axis, kw), name="diff")


def test_diff_details():
    assert_parity(lambda xp: xp.diff([1, 2], n=-1))
    assert_parity(lambda xp: xp.diff([1, 2], n=5))
    assert_parity(lambda xp: xp.diff([1, 2], prepend=[[0]]))
    assert_parity(lambda xp: xp.diff(xp.zeros((2, 3)), prepend=xp.zeros((2, 2)), axis=0))
    assert np.diff([1, 2], n=0) == npjax.diff([1, 2], n=0) == [1, 2]


@given(arrays(st.sampled_from(ALL), shapes()),
       st.sampled_from([None, 0, 1.5, 1000, [1, 2], np.float64(2)]),
       st.sampled_from([None, -1, np.array([3, 4], np.int8)]))
def test_ediff1d(a, to_begin, to_end):
    with np.errstate(all="ignore"):
        assert_parity(lambda xp: xp.ediff1d(xp.asarray(a), to_end=to_end, to_begin=to_begin),
                      context=(a, to_begin, to_end))


# --- unique and set operations ----------------------------------------------------------------

flags = st.booleans()


@given(arrays(st.sampled_from(ALL), shapes()), flags, flags, flags, flags)
def test_unique(a, ri, rv, rc, equal_nan):
    assert_parity(lambda xp: xp.unique(xp.asarray(a), ri, rv, rc, equal_nan=equal_nan),
                  context=(a, ri, rv, rc, equal_nan))


@given(arrays(st.sampled_from(REAL + COMPLEX), shapes(min_dims=1, max_dims=3, max_side=3)),
       st.integers(-3, 2), flags, flags, flags)
def test_unique_axis(a, axis, ri, rv, rc):
    assert_parity(lambda xp: xp.unique(xp.asarray(a), ri, rv, rc, axis=axis),
                  context=(a, axis, ri, rv, rc))


@given(arrays(st.sampled_from(ALL), shapes()))
def test_unique_array_api(a):
    assert_parity(lambda xp: xp.unique_counts(xp.asarray(a)), context=(a,))
    assert_parity(lambda xp: xp.unique_inverse(xp.asarray(a)), context=(a,))
    assert_parity(lambda xp: xp.unique_all(xp.asarray(a)), context=(a,))
    # NumPy's unique_values order is unspecified (hash based for some dtypes): compare sorted.
    assert_parity(lambda xp: xp.sort(xp.unique_values(xp.asarray(a))), context=(a,))
    r = npjax.unique_all(npjax.asarray(a))
    assert type(r).__name__ == "UniqueAllResult" and r._fields == np.unique_all(a)._fields


def test_unique_details():
    assert_parity(lambda xp: xp.unique(xp.asarray([3, 1, 2, 1]), sorted=True))
    assert_parity(lambda xp: xp.sort(xp.unique(xp.asarray([3, 1, 2, 1]), sorted=False)))
    assert_parity(lambda xp: xp.unique(xp.asarray([1, 2]), axis=1))
    assert_parity(lambda xp: xp.unique(xp.asarray(5), axis=0))
    assert_parity(lambda xp: xp.unique(xp.zeros((2, 0)), axis=0, return_inverse=True,
                                       return_counts=True, return_index=True))
    assert_parity(lambda xp: xp.unique(xp.zeros((0, 2)), axis=0, return_inverse=True))
    assert_parity(lambda xp: xp.unique(xp.asarray([[np.nan], [np.nan], [-0.0], [0.0]]),
                                       axis=0, return_counts=True))


set_pair = st.sampled_from(REAL + COMPLEX).flatmap(
    lambda d: st.tuples(arrays(d, shapes(max_dims=2)), arrays(d, shapes(max_dims=2))))


@given(set_pair, flags, flags)
def test_isin(pair, invert, assume_unique):
    e, t = pair
    assert_parity(lambda xp: xp.isin(xp.asarray(e), xp.asarray(t), invert=invert),
                  context=(e, t))
    if e.dtype.kind in "iub" and (t.size == 0 or int(t.max()) - int(t.min()) < 1000):
        assert_parity(lambda xp: xp.isin(xp.asarray(e), xp.asarray(t), kind="table"),
                      context=(e, t))


def test_isin_details():
    assert_parity(lambda xp: xp.isin([1.0, 2], [2], kind="table"))
    assert_parity(lambda xp: xp.isin([1, 2], [2], kind="x"))
    assert_parity(lambda xp: xp.isin(5, [5]))
    assert_parity(lambda xp: xp.isin([1, 2, 3], [2.0, 3.5, np.nan]))
    assert_parity(lambda xp: xp.isin(xp.asarray([1, 2], np.int8), [2, 1000]))
    assert not hasattr(np, "in1d") and not hasattr(npjax, "in1d")


@given(set_pair, flags)
def test_set_operations(pair, assume_unique):
    a, b = pair
    if assume_unique:  # give what the flag promises: unique inputs (NumPy's own precondition)
        a, b = np.unique(a), np.unique(b)
    for fn in ("intersect1d", "setdiff1d", "setxor1d"):
        assert_parity(lambda xp, fn=fn: getattr(xp, fn)(xp.asarray(a), xp.asarray(b),
                                                 assume_unique=assume_unique),
                      context=(fn, a, b))
    assert_parity(lambda xp: xp.union1d(xp.asarray(a), xp.asarray(b)), context=(a, b))
    assert_parity(lambda xp: xp.intersect1d(xp.asarray(a), xp.asarray(b),
                                            assume_unique=assume_unique, return_indices=True),
                  context=(a, b))


def test_set_operations_mixed_dtypes():
    a, b = [1, 2, 3, np.nan], np.array([2, 5], np.int8)
    for fn in ("intersect1d", "setdiff1d", "setxor1d", "union1d"):
        assert_parity(lambda xp, fn=fn: getattr(xp, fn)(a, xp.asarray(b)), context=fn)


# --- bincount / digitize ----------------------------------------------------------------------


def _counts(d):
    if d.kind == "b":
        return arrays(d, shapes(max_dims=1))
    return arrays(d, shapes(max_dims=1), min_value=-1 if d.kind == "i" else 0, max_value=9)


@given(st.sampled_from([np.dtype(np.bool_)] + INTEGER).flatmap(_counts),
       st.integers(0, 12), flags)
def test_bincount(x, minlength, weighted):
    if x.dtype == np.bool_:
        x = x.astype(bool)
    w = np.linspace(-1.0, 2.0, x.size) if weighted else None
    assert_parity(lambda xp: xp.bincount(xp.asarray(x), weights=None if w is None else
                                         xp.asarray(w), minlength=minlength),
                  context=(x, minlength, w), name="bincount")


def test_bincount_details():
    assert_parity(lambda xp: xp.bincount([1, 2], minlength=-1))
    assert_parity(lambda xp: xp.bincount([-1]))
    assert_parity(lambda xp: xp.bincount(xp.asarray(1)))
    assert_parity(lambda xp: xp.bincount([[1]]))
    assert_parity(lambda xp: xp.bincount([], minlength=2))
    assert_parity(lambda xp: xp.bincount([1, 2], weights=[1 + 1j, 2]))
    assert_parity(lambda xp: xp.bincount([1, 2], weights=[1, 2, 3]))
    assert_parity(lambda xp: xp.bincount([True, True]))
    assert_parity(lambda xp: xp.bincount(xp.asarray([1], np.uint64)))
    assert_parity(lambda xp: xp.bincount([1, 2], weights=xp.asarray([1, 2], np.float16)))
    assert_parity(lambda xp: xp.bincount([1, 2], minlength=None))
    with pytest.warns(DeprecationWarning):
        assert_parity(lambda xp: xp.bincount([1.0, 2.7]))


@given(arrays(st.sampled_from(INTEGER + FLOAT), shapes(max_dims=2)),
       st.lists(st.integers(-3, 3), max_size=4), flags, flags)
def test_digitize(x, bins, decreasing, right):
    b = np.sort(np.asarray(bins, dtype=np.int64))
    if decreasing:
        b = b[::-1]
    assert_parity(lambda xp: xp.digitize(xp.asarray(x), xp.asarray(b), right=right),
                  context=(x, b, right))
    assert_parity(lambda xp: xp.digitize(xp.asarray(x), xp.asarray(bins), right=right),
                  context=(x, bins, right))


def test_digitize_details():
    assert_parity(lambda xp: xp.digitize([1 + 0j], [1]))
    assert_parity(lambda xp: xp.digitize(2, [1, 3]))
    assert_parity(lambda xp: xp.digitize([1, 2], [[1, 3]]))
    assert_parity(lambda xp: xp.digitize([1.5, np.nan], [np.nan, 1]))
    assert_parity(lambda xp: xp.digitize([2, np.nan], [1, np.nan], right=True))
    assert_parity(lambda xp: xp.digitize([2, 3], [1, 3, 2]))


# --- fill -------------------------------------------------------------------------------------


FILL_VALUES = [1000, np.int64(1000), 2.7, 1 + 1j, [1], np.array([1, 2]), -1, True, np.nan,
               np.float32(1.5)]
FILL_DTYPES = [np.int8, np.uint8, np.float32, np.complex64, np.bool_]


# NaN into an integer array is undefined in NumPy (a platform value), so that pair is left out.
@pytest.mark.parametrize(("value", "dtype"), [
    (v, d) for v in FILL_VALUES for d in FILL_DTYPES
    if not (isinstance(v, float) and v != v and np.dtype(d).kind in "iu")])
def test_fill(value, dtype):
    def run(xp):
        x = xp.zeros((2, 3), dtype)
        v = x[:, ::2]
        v.fill(value)
        return x

    assert_parity(run, context=(value, dtype))


# --- in-place functions through views ---------------------------------------------------------

MUTATIONS = {
    "put": lambda xp, v: xp.put(v, [0, -1, 0], [7, 8, 9]),
    "place": lambda xp, v: xp.place(v, v > 2, [10, 20]),
    "putmask": lambda xp, v: xp.putmask(v, v > 2, xp.asarray([10, 20, 30])),
    "put_along_axis": lambda xp, v: xp.put_along_axis(v, xp.asarray([[1], [0], [1]]), 5, 1),
    "sort": lambda xp, v: v.sort(axis=0),
    "partition": lambda xp, v: v.partition(1, axis=0),
    "put_method": lambda xp, v: v.put([1], 4, mode="clip"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_in_place_through_views(name):
    def run(xp):
        base = xp.asarray(np.arange(12).reshape(4, 3)[::-1] * 5 % 7).copy()
        view = base[1:, ::-1]  # a strided view: the write must reach ``base``
        assert MUTATIONS[name](xp, view) is None
        return base, view

    assert_parity(run, context=name)

    def read_only(xp):
        ro = xp.broadcast_to(xp.asarray([[3, 1, 2]]), (3, 3)) if xp is np else \
            npjax.asarray([[3, 1, 2]])._broadcast_to((3, 3))
        MUTATIONS[name](xp, ro)

    assert_parity(read_only, context=name)
