"""The C module's host paths for the small kernels' operations (issue 35, ``_hostpath.c``),
each against NumPy and against the Python members they stand in for
(``_fast.python_only``): NumPy's scalar on the left of ``+ - * /`` with a host array
(``mu * a``: the scalar types' wrapped slots); ``a.astype(...)`` as NumPy's method of the
data (``_fast_calls.OWN``); result wrappers reused from the C free list. Values, dtypes,
exceptions and warnings (at the user's line) are compared."""

from __future__ import annotations

import gc
import operator
import warnings
import weakref

import numpy as np
import pytest

import npjax
from tests._parity import assert_same
from tests.test_host_c_paths import ROUTES, _route, _same_outcome

pytestmark = pytest.mark.host_placement  # (the C host paths: host arrays)

SCALARS = [np.float64(2.5), np.float32(-1.5), np.float16(3.0), np.complex128(1 - 2j),
           np.complex64(0.5j), np.int64(-3), np.int32(7), np.uint8(200), np.int8(-4),
           np.bool_(True), np.float64(1e308), np.float64(0.0), np.int64(0)]
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def _operand(dtype):
    if dtype == "bool":
        return np.array([True, False, True])
    values = np.array([[0, 1, 2], [3, 250, 5]])
    return values.astype(dtype) if dtype != "float64" else values * 10.0 ** 300


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8", "complex64", "bool"])
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_numpy_scalar_left_of_a_host_array_as_numpy(route, dtype, op, scalar):
    """``s <op> a``: NumPy's value, dtype, exception and warnings (overflow, division by
    zero at the user's line); a host array as the result, counted as a host call."""
    base = _operand(dtype)
    fn, ours = OPS[op], npjax.asarray(base)
    with _route(route):
        npjax.reset_stats()
        got, want = _same_outcome(lambda a: fn(scalar, a), (ours,), (base,))
        if want is not None:
            assert type(got) is npjax.ndarray
            assert npjax.stats()["placement"]["host"] == 1


NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "truediv"}


def _by_original_slots(op, scalar, other):
    """``scalar <op> other`` by Python's protocol with NumPy's own slots: the scalar type's
    ``__mul__`` (its slot wrapper keeps the slot NumPy set), then ``other.__rmul__``."""
    name = NAMES[op]
    result = getattr(type(scalar), f"__{name}__")(scalar, other)
    if result is NotImplemented and hasattr(type(other), f"__r{name}__"):
        result = getattr(type(other), f"__r{name}__")(other, scalar)
    if result is NotImplemented:
        raise TypeError("unsupported operand types")
    return result


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("other", ["0-d", "subclass"])
def test_numpy_scalar_left_of_other_npjax_arrays(route, other):
    """The wrapped slots with an npjax array they do not take (a 0-d array, a subclass):
    NumPy's own operator and npjax's ``__array_ufunc__``, as NumPy."""
    theirs = np.array(3.0) if other == "0-d" else np.array([1.0, 2.0, 4.0])

    class Sub(npjax.ndarray):
        pass

    ours = npjax.asarray(theirs) if other == "0-d" else npjax.asarray(theirs).view(Sub)
    with _route(route):
        for fn in OPS.values():
            for scalar in (np.float64(1.5), np.int64(2), np.float32(0.5)):
                got, _ = _same_outcome(lambda a, f=fn, s=scalar: f(s, a), (ours,), (theirs,))
                if other == "subclass":
                    assert type(got) is Sub


@pytest.mark.parametrize("other", ["numpy array", "list", "number", "numpy scalar", "string"])
@pytest.mark.parametrize("op", list(OPS))
def test_numpy_scalar_slots_keep_numpys_operator_for_the_rest(op, other):
    """Anything but an npjax array on the right of a wrapped slot: NumPy's own operator
    (value and type, or the exception)."""
    other_value = {"numpy array": np.array([1.0, 2.0]), "list": [1, 2], "number": 3,
                   "numpy scalar": np.int8(3), "string": "x"}[other]
    for scalar in (np.float64(1.5), np.int64(2), np.float32(0.5), np.uint8(7)):
        got = _outcome_of(OPS[op], scalar, other_value)
        want = _outcome_of(lambda s, o: _by_original_slots(op, s, o), scalar, other_value)
        assert got[1] is want[1]
        if want[1] is None:
            assert type(got[0]) is type(want[0])
            np.testing.assert_array_equal(got[0], want[0])
            assert np.asarray(got[0]).dtype == np.asarray(want[0]).dtype


def _outcome_of(fn, *args):
    try:
        return fn(*args), None
    except Exception as e:  # the exception type is what is compared
        return None, type(e)


@pytest.mark.parametrize("route", ROUTES)
def test_numpy_scalar_operators_in_a_kernel_loop(route):
    """A loop of the kind levinson runs (``mu * y[:k][::-1]`` added to a slice) against
    NumPy's, step for step."""
    rng = np.random.default_rng(1)
    y0 = rng.random(12)
    with _route(route):
        outs = []
        for module, y in ((npjax, npjax.asarray(y0)), (np, y0.copy())):
            x = module.zeros(12)
            for k in range(1, 12):
                mu = (y[k] - y[:k] @ x[:k][::-1]) / 2.0
                x[:k] = x[:k] + mu * y[:k][::-1]
                x[k] = mu - x[k - 1] / mu
            outs.append(x)
    assert_same(outs[0], outs[1])


ASTYPE_SOURCES = {
    "float64": lambda: np.array([[1.5, -2.5, 300.0], [0.0, 7.25, -0.5]]),
    "float64 nan": lambda: np.array([1.0, np.nan, np.inf, -1e300]),
    "uint8": lambda: np.arange(250, 256, dtype=np.uint8),
    "complex128": lambda: np.array([1 + 2j, -3.5j]),
    "bool": lambda: np.array([True, False]),
    "0-d": lambda: np.array(2.75),
    "fortran": lambda: np.asfortranarray(np.arange(6.0).reshape(2, 3)),
}
ASTYPE_CALLS = {
    "int64": lambda a: a.astype(np.int64),
    "int8 string": lambda a: a.astype("int8"),
    "float32": lambda a: a.astype(np.float32),
    "float64 no copy": lambda a: a.astype(np.float64, copy=False),
    "same dtype no copy": lambda a: a.astype(a.dtype, copy=False),
    "dtype keyword": lambda a: a.astype(dtype=np.float64),
    "None": lambda a: a.astype(None),
    "order F": lambda a: a.astype(np.float32, order="F"),
    "positional order": lambda a: a.astype(np.float32, "C"),
    "casting safe": lambda a: a.astype(np.int32, casting="safe"),
    "casting bad": lambda a: a.astype(np.int32, casting="nope"),
    "object": lambda a: a[:1].astype(object),  # (assert_same: no NaN in object arrays)
    "str": lambda a: a.astype("U8"),
    "bad dtype": lambda a: a.astype("nope"),
    "unknown keyword": lambda a: a.astype(np.int64, nope=1),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("source", list(ASTYPE_SOURCES))
@pytest.mark.parametrize("call", list(ASTYPE_CALLS))
def test_astype_as_numpy(route, source, call):
    """``a.astype(...)``: NumPy's value, dtype, layout, exceptions and warnings (invalid
    casts, complex to real, at the user's line); the array itself where NumPy gives the same
    array back, a new array owning its data (written apart from ``a``) otherwise."""
    theirs = ASTYPE_SOURCES[source]()
    ours = npjax.asarray(theirs.copy(order="K"))
    with _route(route):
        got, want = _same_outcome(ASTYPE_CALLS[call], (ours,), (theirs,))
    if want is None:
        return
    assert (got is ours) == (want is theirs)
    with warnings.catch_warnings():  # (the layout NumPy gives ours: npjax keeps C order)
        warnings.simplefilter("ignore")
        layout = ASTYPE_CALLS[call](np.asarray(ours)).flags
    assert got.flags["F_CONTIGUOUS"] == layout["F_CONTIGUOUS"]
    assert got.flags["C_CONTIGUOUS"] == layout["C_CONTIGUOUS"]
    if want is not theirs and want.size and want.dtype.kind in "iufc":
        got[...] = 0
        assert_same(ours, theirs)


@pytest.mark.parametrize("route", ROUTES)
def test_astype_of_a_view(route):
    """A host view's ``astype``: NumPy's cast of the view's elements, a new array."""
    theirs = np.arange(12.0).reshape(3, 4)
    ours = npjax.asarray(theirs)
    with _route(route):
        got, want = _same_outcome(lambda a: a[1:, ::2].astype(np.int16), (ours,), (theirs,))
    assert got.base is None and want.base is None


@pytest.mark.parametrize("route", ROUTES)
def test_reused_result_wrappers_are_fresh_arrays(route):
    """Views and results made and dropped in a loop (their wrappers kept and handed out
    again by the C free list) with collections in between: each one NumPy's values, none
    aliased with another; an array with a weak reference dies (its callback runs)."""
    rng = np.random.default_rng(2)
    base = rng.random(40)
    ours = npjax.asarray(base)
    died = []
    with _route(route):
        kept_ours, kept_np = [], []
        for i in range(300):
            v, w = ours[i % 30:i % 30 + 5], base[i % 30:i % 30 + 5]
            r, s = v * 2.0 - v[::-1], w * 2.0 - w[::-1]
            if i % 7 == 0:
                kept_ours.append(r)
                kept_np.append(s)
            if i % 50 == 0:
                gc.collect()
        ref = weakref.ref(ours[3:9] + 1.0, died.append)
        gc.collect()
    assert ref() is None and len(died) == 1
    assert len({id(r) for r in kept_ours}) == len(kept_ours)
    for got, want in zip(kept_ours, kept_np):
        assert_same(got, want)


@pytest.mark.parametrize("route", ROUTES)
def test_scalar_writes_and_operands_of_changing_types(route):
    """NumPy's scalars of one type after another written into arrays of several dtypes and
    used as operands (the C paths keep the last scalar type they looked up): NumPy's values,
    dtypes, warnings and exceptions for each, in the same order."""
    scalars = [np.float64(1.5), np.float32(2.5), np.float64(1e300), np.int64(-3),
               np.float16(0.5), np.int8(7), np.complex128(1j), np.float64(2.0), "x"]
    with _route(route):
        for dtype in ("float64", "float32", "int64"):
            base = np.arange(4.0).astype(dtype)
            ours = npjax.asarray(base.copy())
            for i, s in enumerate(scalars):
                _same_outcome(lambda a, s=s, i=i: a.__setitem__(i % 4, s), [ours], [base])
                _same_outcome(lambda a, s=s: a * s, [ours], [base])
                _same_outcome(lambda a, s=s: s - a, [ours], [base])


@pytest.mark.parametrize("route", ROUTES)
def test_method_calls_on_views_and_results(route):
    """Methods NumPy's array runs for a host array (``copy``, ``sum``, ``astype``, ``mean``)
    on an owner, a strided view and an operator's result: NumPy's values and dtypes, each
    result a new array that shares no memory with its operand."""
    base = np.arange(24.0).reshape(4, 6)
    with _route(route):
        ours = npjax.asarray(base.copy())
        for pick in (lambda a: a, lambda a: a[:, 2], lambda a: a[1:, ::2] * 2.0):
            for call in (lambda a: a.copy(), lambda a: a.sum(axis=0), lambda a: a.sum(),
                         lambda a: a.astype(np.int32), lambda a: a.mean(axis=-1)):
                got, want = _same_outcome(lambda a, c=call, p=pick: c(p(a)), [ours], [base])
                if isinstance(want, np.ndarray):
                    assert not np.shares_memory(np.asarray(got), np.asarray(ours))


@pytest.mark.parametrize("route", ROUTES)
def test_results_in_a_cycle_are_collected(route):
    """Results of the host route held only by a reference cycle die in a collection (their
    weak references' callbacks run), and a view of such a result keeps it alive."""
    died = []
    with _route(route):
        a = npjax.asarray(np.arange(6.0))
        result = a * 2.0 + a
        holder = [result]
        holder.append(holder)
        ref = weakref.ref(result, died.append)
        view = (a - 1.0)[2:]
        del result, holder
        gc.collect()
        assert ref() is None and len(died) == 1
        gc.collect()
        assert_same(view, (np.arange(6.0) - 1.0)[2:])


@pytest.mark.parametrize("route", ROUTES)
def test_views_of_a_result_are_found_by_the_collector(route):
    """A view of an operator's result (a host owner the C route made) is among the result's
    referrers the collector knows (``detach_views`` finds a root's views that way), and it
    reads the result's values."""
    with _route(route):
        a = npjax.asarray(np.arange(6.0))
        target = a * 2.0
        view = target[1:]
        assert any(r is view for r in gc.get_referrers(target))
        assert_same(view, (np.arange(6.0) * 2.0)[1:])
