"""The C module's host paths added for issue 35 (``_hostpath.c``), each against NumPy and
against the Python members they stand in for (``_fast.python_only``): indexes holding host
arrays, NumPy's arrays or NumPy's integer scalars (``a[mask]``, ``a[idx] = v``,
``a[np.int64(3)]``); ``npjax.maximum(s, 1)`` on two numbers; ``a.sum(axis=...)``; operators
on arrays of NumPy's elision size (written into a temporary, and in place). Values, dtypes,
views (``base``, writes through), exceptions and warnings (at the user's line) are compared."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import npjax
from npjax._placement import _fast
from npjax._core._array_base import HOSTPATH
from tests._parity import assert_same

ROUTES = ["c", "python"]

pytestmark = pytest.mark.host_placement  # (the C host paths: host arrays)


def _route(route):
    if route == "c" and not _fast.ENABLED:
        pytest.skip("the C module is not built")
    return _fast.python_only() if route == "python" else contextlib.nullcontext()


def _outcome(fn, *args):
    """(result or None, exception type or None, warnings as (category, message, file))."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result, exc = fn(*args), None
        except Exception as e:  # the exception type is what is compared
            result, exc = None, type(e)
    return result, exc, [(w.category, str(w.message), w.filename) for w in seen]


def _same_outcome(fn, ours, theirs):
    got, want = _outcome(fn, *ours), _outcome(fn, *theirs)
    assert got[1] is want[1], (got[1], want[1])
    assert got[2] == want[2]
    if want[1] is None and want[0] is not None:
        assert_same(got[0], want[0])
    if isinstance(theirs[0], np.ndarray):  # the array indexed, written or reduced
        assert_same(ours[0], theirs[0])
    return got[0], want[0]


def _arrays(dtype="float64"):
    rng = np.random.default_rng(0)
    base = (rng.random((6, 5)) * 10).astype(dtype)
    mask = rng.random((6, 5)) > 0.5
    return base, mask


INDEXES = {
    "mask": lambda m: m,
    "row mask": lambda m: m[:, 0],
    "int array": lambda m: np.array([0, 2, 5, -1]),
    "int array out of bounds": lambda m: np.array([0, 9]),
    "mask of another shape": lambda m: m[:3],
    "numpy int": lambda m: np.int64(3),
    "numpy int out of bounds": lambda m: np.int64(-9),
    "numpy uint8": lambda m: np.uint8(1),
    "numpy bool": lambda m: np.bool_(True),
    "numpy float": lambda m: np.float64(1.0),
    "tuple, mask and int": lambda m: (m[:, 0], 1),
    "tuple, numpy ints": lambda m: (np.int64(2), np.int32(-1)),
    "tuple, int array and slice": lambda m: (np.array([1, 3]), slice(1, None)),
    "tuple, array and None": lambda m: (np.array([1, 3]), None),
}


def _index(name, mask, npjax_arrays):
    """The index named ``name`` (its arrays as npjax host arrays when ``npjax_arrays``)."""
    index = INDEXES[name](mask)
    wrap = (lambda k: npjax.asarray(k) if type(k) is np.ndarray else k) if npjax_arrays \
        else (lambda k: k)
    return tuple(wrap(k) for k in index) if type(index) is tuple else wrap(index)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("as_npjax", [True, False], ids=["npjax index", "numpy index"])
@pytest.mark.parametrize("name", list(INDEXES))
def test_array_and_numpy_scalar_indexes_read_as_numpy(route, as_npjax, name):
    base, mask = _arrays()
    ours, theirs = npjax.asarray(base.copy()), base.copy()
    with _route(route):
        got, want = _same_outcome(lambda a, k: a[k], (ours, _index(name, mask, as_npjax)),
                                  (theirs, _index(name, mask, False)))
    if isinstance(want, np.ndarray):
        assert got._host() is not None  # computed and kept on the host
        assert (got.base is None) is (want.base is None)
        if want.base is not None:  # a view (``a[np.int64(3)]``): writes show in ``a``
            got[...] = -1.0
            want[...] = -1.0
            assert_same(ours, theirs)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
@pytest.mark.parametrize("value", [2.5, 7, np.float64(1.5), np.float32(3.0), "array", 1e300],
                         ids=repr)
@pytest.mark.parametrize("name", list(INDEXES))
def test_array_and_numpy_scalar_indexes_write_as_numpy(route, dtype, value, name):
    base, mask = _arrays(dtype)
    ours, theirs = npjax.asarray(base.copy()), base.copy()
    if value == "array":  # the selected elements' own values, doubled: a host array
        try:
            picked = theirs[_index(name, mask, False)]
        except IndexError:
            picked = np.ones(2, dtype)
        mine, value = npjax.asarray(picked * 2), picked * 2

    def write(a, k, v):
        a[k] = v

    with _route(route):
        _same_outcome(write, (ours, _index(name, mask, True),
                              mine if isinstance(value, np.ndarray) else value),
                      (theirs, _index(name, mask, False), value))


@pytest.mark.parametrize("route", ROUTES)
def test_object_arrays_indexed_by_masks_as_numpy(route):
    theirs = np.array([np.arange(2.0), "a", 3, None], dtype=object)
    ours = npjax.asarray(theirs)
    mask = np.array([True, False, True, True])
    with _route(route):
        got = ours[npjax.asarray(mask)]
        assert list(np.asarray(got)[1:]) == list(theirs[mask][1:])
        assert ours[np.int64(0)] is theirs[0] or np.array_equal(ours[np.int64(0)], theirs[0])


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("pair", [(np.int64(3), 1), (np.float32(2.5), 1), (2.0, np.int8(4)),
                                  (3, 4), (np.uint8(200), np.uint8(100)), (2**70, 1),
                                  (np.float64(1e308), 10.0), (True, 1)], ids=repr)
@pytest.mark.parametrize("ufunc", ["maximum", "add", "multiply", "subtract"])
def test_ufuncs_of_two_numbers_are_numpys(route, pair, ufunc):
    """Two numbers (no array): NumPy's scalar, its dtype, exceptions and warnings; a host
    call counted as such."""
    def call(module):
        return getattr(module, ufunc)(*pair)

    with _route(route):
        npjax.reset_stats()
        got, want = _same_outcome(call, (npjax,), (np,))
        if want is not None:
            assert type(got) is type(want)
            assert npjax.stats()["placement"]["host"] == 1


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kw", [dict(axis=0), dict(axis=1), dict(axis=(0, 1)),
                                dict(axis=0, keepdims=True), dict(dtype="float32"),
                                dict(axis=1, initial=5.0), dict(axis=0, where="mask"),
                                dict(axis=2), dict(a=1), dict(axis=0, out="host")], ids=repr)
def test_sum_method_keywords_as_numpy(route, kw):
    base, mask = _arrays()
    ours, theirs = npjax.asarray(base.copy()), base.copy()
    ours_kw, theirs_kw = dict(kw), dict(kw)
    if kw.get("where") == "mask":
        ours_kw["where"], theirs_kw["where"] = npjax.asarray(mask[0]), mask[0]
    if kw.get("out") == "host":
        ours_kw["out"], theirs_kw["out"] = npjax.zeros(5), np.zeros(5)
    with _route(route):
        got, want = _same_outcome(lambda a, k: a.sum(**k), (ours, ours_kw), (theirs, theirs_kw))
    if "out" in kw:
        assert got is ours_kw["out"]
        assert_same(ours_kw["out"], theirs_kw["out"])


N_ELIDE = 40_000  # float64 elements over NumPy's 256 KiB: temporaries are written into


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32", "complex128"])
def test_large_operators_match_numpy(route, dtype):
    """Operators on arrays past NumPy's elision size: NumPy's values and dtypes, operands
    untouched, in-place ones writing into the very array (and views)."""
    rng = np.random.default_rng(3)
    base = (rng.random(N_ELIDE) * 100).astype(dtype)
    other = (rng.random(N_ELIDE) * 100 + 1).astype(dtype)
    x, y = npjax.asarray(base.copy()), npjax.asarray(other.copy())
    with _route(route), np.errstate(all="ignore"):
        for fn in (lambda a, b: a * b + b, lambda a, b: 2 * (a - b) * 3, lambda a, b: a + a * b,
                   lambda a, b: (a / b) * 2 if a.dtype.kind in "fc" else (a // b) * 2,
                   lambda a, b: a @ b, lambda a, b: -(a + 1) * (b - 1),
                   lambda a, b: ((a & b) | (a ^ 3)) & 7 if a.dtype.kind in "iu" else a - b,
                   lambda a, b: (a > 50) & (b < 50) | (a < 10) ^ True):
            assert_same(fn(x, y), fn(base, other))
        assert_same(x, base)
        assert_same(y, other)
        view, kept = x[1:], x
        view -= y[:-1]
        base[1:] -= other[:-1]
        assert kept is x
        assert_same(x, base)
        x += 1
        base += 1
        assert_same(x, base)
        if base.dtype.kind in "iu":
            x &= y
            base &= other
            x |= 5
            base |= 5
            assert kept is x
            assert_same(x, base)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8", "float64"])
@pytest.mark.parametrize("other", [3, True, 2.5, np.int8(-1), np.uint8(7), "array"], ids=repr)
def test_bitwise_operators_match_numpy(route, dtype, other):
    """``a & b``, ``b | a``, ``a ^ b`` and in place on small host arrays: NumPy's values,
    dtypes and exceptions (``float & int``: TypeError)."""
    base = np.arange(-3, 9).astype(dtype)
    theirs_other = base[::-1].copy() if other == "array" else other
    ours_other = npjax.asarray(theirs_other) if other == "array" else other
    for fn in (lambda a, b: a & b, lambda a, b: b | a, lambda a, b: a ^ b):
        with _route(route):
            _same_outcome(fn, (npjax.asarray(base.copy()), ours_other),
                          (base.copy(), theirs_other))

    def in_place(a, b):
        a ^= b
        a |= b
        return a

    with _route(route):
        _same_outcome(in_place, (npjax.asarray(base.copy()), ours_other),
                      (base.copy(), theirs_other))


@pytest.mark.parametrize("route", ROUTES)
def test_large_temporaries_warn_at_the_users_line(route):
    """An overflow in an operator whose result is written into a temporary: NumPy's warning,
    at the user's line, as NumPy's own operator gives it."""
    base = np.full(N_ELIDE, 1e200)
    x = npjax.asarray(base.copy())
    with _route(route):
        got, want = _same_outcome(lambda a: (a * 1e100) * 1e100, (x,), (base,))
    assert np.isinf(np.asarray(got)).all()


@pytest.mark.skipif(not _fast.ENABLED, reason="the C module is not built")
def test_the_c_slots_elide_where_the_python_members_would():
    """``elided_counts``: the C slots wrote into a temporary where the Python members write
    into one (``_host_paths._temporary``), not into an array someone holds, and not where
    the operator was applied by a call from C code."""
    import operator

    base = np.random.default_rng(4).random(N_ELIDE)
    x = npjax.asarray(base.copy())
    start = HOSTPATH.elided_counts()
    r = x * x + 1.0  # the product is a temporary: the + writes into it
    assert HOSTPATH.elided_counts()[0] == start[0] + 1
    t = x * x
    r2 = t + 1.0  # held: a new array
    r3 = operator.add(x * x, 1.0)  # applied by C code
    r4 = 2.0 * (x * 3.0)  # reflected multiply into the temporary
    counts = HOSTPATH.elided_counts()
    assert counts[0] == start[0] + 1 and counts[2] == start[2] + 1
    for got, want in ((r, base * base + 1.0), (r2, base * base + 1.0),
                      (r3, base * base + 1.0), (r4, 2.0 * (base * 3.0))):
        assert_same(got, want)
    assert_same(x, base)
