"""Leftovers of NumPy's own tests on the device (issue 36, ``benchmarks/results/numpy_tests.md``),
each compared with NumPy exactly (value, dtype, shape, exception class and message, warnings)
on host arrays, device arrays and device arrays in lazy mode:

1. broadcast-assignment errors: NumPy's messages ("shape mismatch: value array of shape
   (100,100) could not be broadcast to indexing result of shape (3,4)", shapes without spaces);
2. division ufunc methods (``reduce``/``accumulate``/``reduceat``/``at``) report each step's
   divide-by-zero and overflow flags as NumPy does (lost on the device before), and float
   ``ufunc.at`` reports its flags;
3. ``order=`` as NumPy reads it (any case, bytes, None; NumPy's errors) in ``flatten``,
   ``ravel``, ``copy``, ``reshape``, ``astype`` (``.flatten('f')`` in NumPy's division tests);
4. int64 against uint64 comparisons are exact (through float64 on the device before:
   ``2**60 + 1 > 2**60`` was False);
5. a ``dtype=`` with no device form (long double, object, big-endian) in device work: NumPy
   computes on the host (JAX's TypeError "JAX only supports number, bool, and string dtypes"
   before);
6. ``einsum`` of one operand with nothing summed is NumPy's writeable view of it (a copy on the
   device before: writes through it were lost);
7. more than 63 index arrays (booleans count) where the rest is one element, or more than 64:
   NumPy's IndexError (the device indexed them before);
8. booleans where NumPy requires an integer in a shape or an axis list (``reshape``,
   ``transpose``, ``broadcast_to``, ``resize``): NumPy's TypeError;
9. device ``log1p``, ``arctanh`` and ``exp2`` within 3 ulps of NumPy's (XLA's: 128, 128 and 83
   ulps off; ``benchmarks/ulps.py`` measures every function);
10. a generator given to ``stack``/``hstack``/.../``concatenate``: NumPy's TypeError (the device
    stacked it before);
11. ``ufunc.at`` of NumPy's own array with npjax operands: NumPy's ``at``, in place (TypeError
    before);
12. set routines of an int64 and a uint64 array (``isin``, ``setdiff1d``, ...): NumPy's answer
    (the device compared them as float64: ``2**63 - 1`` was in ``[2**63 + 5]``);
13. ``ufunc.reduce`` into an ``out=`` of another shape: NumPy's ValueError (the device broadcast
    the result into it before);
14. ``where=`` given as a Python list of numbers is converted to bool as NumPy converts it
    (the device refused ``where=[[0, 1], [1, 0]]`` with TypeError); arrays still cast safely.
"""

from __future__ import annotations

import operator

import numpy
import pytest

import npjax
from tests._parity import assert_same, check_exactly

MODES = {
    "host": {},
    "device": {"placement": "device"},
    "lazy": {"placement": "device", "mode": "lazy"},
}


@pytest.fixture(params=list(MODES))
def mode(request):
    with npjax.policy(**MODES[request.param]):
        yield request.param


def check(fn, state="warn"):
    """``check_exactly`` under ``errstate(all=state)``."""
    check_exactly(fn, state)


# --- 1. broadcast-assignment messages --------------------------------------------------------

_INDEXES = {
    "basic": lambda xp: slice(None),
    "basic-leading-1": lambda xp: (slice(None), slice(None)),
    "int": lambda xp: 1,
    "fancy-last": lambda xp: (Ellipsis, [1, 2]),
    "fancy-first": lambda xp: ([1, 2], Ellipsis),
    "fancy-broadcast": lambda xp: ([0, 1], [[0], [1]]),
    "fancy-slice": lambda xp: ([0, 1], slice(None)),
    "empty-fancy": lambda xp: ([], slice(None)),
    "bool-1d": lambda xp: (xp.array([True, False, True]),),
    "bool-2d": lambda xp: xp.arange(12).reshape(3, 4) > 5,
}
_VALUES = [(100, 100), (1, 5), (2, 1, 4), (1, 2, 3), (5,), (3,), (2, 3)]


@pytest.mark.parametrize("index", list(_INDEXES))
@pytest.mark.parametrize("value_shape", _VALUES)
def test_broadcast_assignment_errors(mode, index, value_shape):
    def fn(xp):
        a = xp.zeros((3, 4))
        a[_INDEXES[index](xp)] = xp.zeros(value_shape)
        return a
    check(fn)


def test_broadcast_error_reports_the_indexing_result_shape(mode):
    # NumPy's test_indexing.py::TestBroadcastedAssignments::test_broadcast_error_reports_...
    for index in [(..., [1, 2]), ([1, 2], ...), (0, [1, 2], slice(None)), ([[1], [2]],)]:
        check(lambda xp, index=index: xp.zeros((3, 4, 5, 6, 7)).__setitem__(
            index, xp.zeros((100, 100))))


def test_full_of_an_unbroadcastable_fill(mode):
    check(lambda xp: xp.full((3, 4), xp.zeros(5)))
    check(lambda xp: xp.full((3, 4), xp.arange(4.0)))


# --- 2. division ufunc methods ---------------------------------------------------------------

_INTS = ["int8", "int16", "int32", "int64", "uint8", "uint64"]


def _min(t):
    return int(numpy.iinfo(t).min)


_METHODS = {
    "reduce-zero": lambda xp, t: xp.floor_divide.reduce(xp.arange(0, 100).astype(t)[::-1]),
    "reduce-zero-first": lambda xp, t: xp.floor_divide.reduce(xp.arange(0, 100).astype(t)),
    "reduce-overflow": lambda xp, t: xp.floor_divide.reduce(
        xp.array([_min(t), 1, -1]).astype(t)),
    "reduce-fine": lambda xp, t: xp.floor_divide.reduce(xp.array([100, 1, 2, 1, 3], dtype=t)),
    "remainder-reduce": lambda xp, t: xp.remainder.reduce(xp.arange(0, 5).astype(t)[::-1]),
    "fmod-reduce": lambda xp, t: xp.fmod.reduce(xp.arange(0, 5).astype(t)[::-1]),
    "accumulate-zero": lambda xp, t: xp.floor_divide.accumulate(
        xp.arange(0, 5).astype(t)[::-1]),
    "accumulate-overflow": lambda xp, t: xp.floor_divide.accumulate(
        xp.array([_min(t), 1, -1]).astype(t)),
    "remainder-accumulate": lambda xp, t: xp.remainder.accumulate(
        xp.arange(0, 5).astype(t)[::-1]),
    "reduceat": lambda xp, t: xp.floor_divide.reduceat(xp.arange(0, 6).astype(t)[::-1],
                                                       [0, 3]),
    "reduce-axis": lambda xp, t: xp.floor_divide.reduce(
        xp.arange(0, 6).astype(t).reshape(2, 3), axis=0),
    "at": lambda xp, t: _at(xp, "floor_divide", xp.arange(0, 6).astype(t), [0, 1], 0),
}


def _at(xp, name, a, index, *b):
    getattr(xp, name).at(a, index, *b)
    return a


@pytest.mark.parametrize("state", ["raise", "warn", "ignore"])
@pytest.mark.parametrize("case", list(_METHODS))
@pytest.mark.parametrize("dtype", _INTS)
def test_integer_division_methods(mode, case, dtype, state):
    check(lambda xp: _METHODS[case](xp, dtype), state)


def _rows(xp):
    return xp.array([[8, 0, 2], [8, 2, 0]], dtype="i4")


_KEYWORDS = {
    "where": lambda xp: xp.floor_divide.reduce(_rows(xp), axis=1,
                                               where=xp.array([True, False, True])),
    "where-initial": lambda xp: xp.floor_divide.reduce(
        _rows(xp), axis=1, where=xp.array([True, True, False]), initial=100),
    "initial": lambda xp: xp.floor_divide.reduce(xp.array([0, 4, 2], dtype="i4"), initial=100),
    "keepdims": lambda xp: xp.remainder.reduce(_rows(xp), axis=1, keepdims=True),
    "out": lambda xp: (lambda o: (xp.floor_divide.reduce(_rows(xp), axis=1, out=o), o)[1])(
        xp.zeros(2, "i4")),
    "dtype": lambda xp: xp.floor_divide.reduce(xp.array([-128, -1], dtype="i1"), dtype="i2"),
    "scalar": lambda xp: xp.floor_divide.reduce(xp.array([-128, -1], dtype="i1")),
    "accumulate-axis": lambda xp: xp.floor_divide.accumulate(_rows(xp), axis=1),
    "reduceat-2d": lambda xp: xp.fmod.reduceat(_rows(xp).astype("u2"), [0, 1, 1], axis=1),
    "at-2d": lambda xp: _at(xp, "remainder", xp.arange(6, dtype="i2").reshape(2, 3),
                            (xp.array([0, 1]), 1), xp.array([0, 3])),
    "at-float-operand": lambda xp: _at(xp, "floor_divide", xp.arange(3, dtype="i4"),
                                       [0, 0], 0.0),
    "float-reduce": lambda xp: xp.floor_divide.reduce(xp.array([1.0, 0.0, 2.0])),
    "float-remainder-reduce": lambda xp: xp.remainder.reduce(xp.array([1.0, 0.0, 2.0])),
    "float-accumulate": lambda xp: xp.floor_divide.accumulate(xp.array([1.0, 0.0, 2.0])),
    "float-at": lambda xp: _at(xp, "floor_divide", xp.arange(3, dtype="f4"), [0, 0], 0),
}


@pytest.mark.parametrize("state", ["raise", "warn", "ignore"])
@pytest.mark.parametrize("case", list(_KEYWORDS))
def test_division_methods_keywords(mode, case, state):
    check(_KEYWORDS[case], state)


_FLOAT_AT = {
    "divide-by-zero": ("divide", [1.0, 2, 0], [0, 2], (0.0,)),
    "log-zero": ("log", [1.0, 0.0, 3.0], [1], ()),
    "log-negative-twice": ("log", [1.0, -1.0, 3.0], [1, 1], ()),
    "add-overflow": ("add", [1e308, 2.0], [0, 0], (1e308,)),
    "add-nan-operand": ("add", [1.0, 2.0], [0], (numpy.nan,)),
    "add-fine": ("add", [1.0, 2.0], [0, 0, 1], (3.0,)),
    "sqrt-negative": ("sqrt", [4.0, -1.0], [0, 1], ()),
    "float32-multiply-overflow": ("multiply", numpy.array([1e30, 2.0], "f4"), [0],
                                  (numpy.float32(1e30),)),
}


@pytest.mark.parametrize("state", ["raise", "warn", "ignore"])
@pytest.mark.parametrize("case", list(_FLOAT_AT))
def test_float_at_reports_flags(mode, case, state):
    name, values, index, b = _FLOAT_AT[case]
    check(lambda xp: _at(xp, name, xp.array(values), index, *b), state)


# --- 3. order= spellings ---------------------------------------------------------------------

_ORDER_CALLS = {
    "flatten": lambda xp, a, o: a.flatten(o),
    "ravel": lambda xp, a, o: a.ravel(o),
    "ravel-function": lambda xp, a, o: xp.ravel(a, order=o),
    "copy": lambda xp, a, o: a.copy(o),
    "reshape": lambda xp, a, o: a.reshape((3, 2), order=o),
    "reshape-function": lambda xp, a, o: xp.reshape(a, (3, 2), order=o),
    "astype": lambda xp, a, o: a.astype("f4", order=o),
}


@pytest.mark.parametrize("order", [None, "C", "F", "A", "K", "c", "f", "a", "k", b"F", "x",
                                   "FF", b"x", 1])
@pytest.mark.parametrize("call", list(_ORDER_CALLS))
def test_order_spellings(mode, call, order):
    check(lambda xp: _ORDER_CALLS[call](xp, xp.arange(6).reshape(2, 3), order))
    check(lambda xp: _ORDER_CALLS[call](xp, xp.arange(6).reshape(3, 2).T, order))


# --- 4. int64 against uint64 comparisons -----------------------------------------------------

_COMPARE = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]
_PAIRS = [(2**60, 2**60 + 1), (2**60 + 1, 2**60), (-1, 2**64 - 1), (2**63 - 1, 2**63),
          (-(2**63), 0), (5, 5)]


@pytest.mark.parametrize("op", _COMPARE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("pair", _PAIRS)
def test_signed_unsigned_comparisons(mode, op, pair):
    v1, v2 = pair

    def arrays(xp):
        return xp.array([v1, 0, -3], dtype="q"), xp.array([v2, 1, 2**63 + 7], dtype="Q")

    check(lambda xp: op(*arrays(xp)))
    check(lambda xp: op(*arrays(xp)[::-1]))
    check(lambda xp: getattr(xp, {"lt": "less", "le": "less_equal", "gt": "greater",
                                  "ge": "greater_equal", "eq": "equal",
                                  "ne": "not_equal"}[op.__name__])(*arrays(xp)))
    check(lambda xp: op(arrays(xp)[0][0], arrays(xp)[1][0]) == op(v1, v2))
    check(lambda xp: op(arrays(xp)[1], v1))


def test_signed_unsigned_comparisons_jit():
    a1 = numpy.array([2**60 + 1, -1], dtype="q")
    a2 = numpy.array([2**60, 2**64 - 1], dtype="Q")
    for op in _COMPARE:
        got = npjax.jit(lambda a, b, op=op: op(a, b))(npjax.asarray(a1), npjax.asarray(a2))
        assert_same(got, op(a1, a2))


# --- 5. dtype= with no device form -----------------------------------------------------------

_HOST_DTYPE_CALLS = {
    "sum": lambda xp, d: xp.sum(xp.eye(3), dtype=d),
    "sum-method": lambda xp, d: xp.eye(3).sum(axis=0, dtype=d),
    "mean": lambda xp, d: xp.mean(xp.eye(3), dtype=d, axis=1),
    "nanmean": lambda xp, d: xp.nanmean(xp.eye(3), dtype=d, axis=1),
    "nansum": lambda xp, d: xp.nansum(xp.eye(3), dtype=d, axis=1),
    "var": lambda xp, d: xp.var(xp.eye(3), dtype=d),
    "nanvar": lambda xp, d: xp.nanvar(xp.eye(3), dtype=d, axis=1),
    "prod": lambda xp, d: xp.prod(xp.eye(2) + 1, dtype=d),
    "cumsum": lambda xp, d: xp.cumsum(xp.eye(3), dtype=d),
    "einsum": lambda xp, d: xp.einsum("ii", xp.eye(3), dtype=d),
    "add.reduce": lambda xp, d: xp.add.reduce(xp.eye(3), dtype=d),
    "add.accumulate": lambda xp, d: xp.add.accumulate(xp.eye(3), dtype=d),
    "add.reduceat": lambda xp, d: xp.add.reduceat(xp.arange(4.0), [0, 2], dtype=d),
    "add": lambda xp, d: xp.add(xp.eye(2), 1, dtype=d),
}


@pytest.mark.parametrize("dtype", ["g", "G", ">f8", object])
@pytest.mark.parametrize("call", list(_HOST_DTYPE_CALLS))
def test_dtype_with_no_device_form(mode, call, dtype):
    check(lambda xp: _HOST_DTYPE_CALLS[call](xp, dtype))


# --- 6. einsum views -------------------------------------------------------------------------

_EINSUM_VIEWS = [
    ((2, 3), ("...",)), ((2, 3), ("ij",)), ((2, 3), ("ji",)), ((2, 3), ([0, 1],)),
    ((2, 3), ([1, 0],)), ((2, 3), ([Ellipsis],)), ((3, 3), ("ii->i",)),
    ((3, 3), ([0, 0], [0])), ((3, 3, 3), ("...ii->...i",)), ((3, 3, 3), ("ii...->...i",)),
    ((3, 3, 3), ("...ii->i...",)), ((3, 3, 3), ("iii->i",)), ((3, 3, 3), ("iij->ji",)),
    ((3, 1, 3), ("iji->ij",)), ((2, 3, 4), ("ijk->kji",)), ((3, 3), ("ij->i",)),
    ((3, 3), ("ii",)), ((2, 3), ("ij->ij",)),
]


def _einsum_of(xp, shape, spec, **kw):
    a = xp.arange(int(numpy.prod(shape))).reshape(shape)
    if isinstance(spec[0], str):
        return a, xp.einsum(spec[0], a, **kw)
    return a, xp.einsum(a, *spec, **kw)


@pytest.mark.parametrize("case", range(len(_EINSUM_VIEWS)))
@pytest.mark.parametrize("kw", [{}, {"optimize": True}, {"dtype": float}])
def test_einsum_views(mode, case, kw):
    shape, spec = _EINSUM_VIEWS[case]

    def fn(xp):
        a, b = _einsum_of(xp, shape, spec, **kw)
        base = b.base is a.base
        if b.ndim:
            b[(0,) * b.ndim] = -5
        b += 1000
        return a, b, base, b.flags.writeable, b.strides, b.flags.c_contiguous
    check(fn)


def test_einsum_view_of_read_only_operand(mode):
    def fn(xp):
        a = xp.arange(6).reshape(2, 3)
        a.flags.writeable = False
        b = xp.einsum("ji", a)
        return b, b.flags.writeable
    check(fn)


# --- 7. too many index arrays ----------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1,), (3,), (1, 1), (2, 1), (0,), ()])
@pytest.mark.parametrize("count", [63, 64, 65])
@pytest.mark.parametrize("tail", [(), (Ellipsis,), (None,), (slice(0, 1),)], ids=str)
@pytest.mark.parametrize("item", [True, False, "array"])
def test_too_many_index_arrays(mode, shape, count, tail, item):
    def index(xp):
        return (xp.array([0]) if item == "array" else item,) * count + tail

    def read(xp):
        return xp.ones(shape)[index(xp)]

    def write(xp):
        a = xp.ones(shape)
        a[index(xp)] = 2
        return a
    check(read)
    check(write)


# --- 8. booleans as shapes -------------------------------------------------------------------

_BOOL_SHAPES = {
    "reshape": lambda xp, a: xp.reshape(a, (True, -1)),
    "reshape-numpy-bool": lambda xp, a: xp.reshape(a, (numpy.True_, -1)),
    "reshape-method": lambda xp, a: a.reshape(True, -1),
    "reshape-tuple": lambda xp, a: a.reshape((True, 1, 1)),
    "transpose": lambda xp, a: a.transpose(True, 0, 2),
    "broadcast_to": lambda xp, a: xp.broadcast_to(a, (True, 1, 1)),
    "resize": lambda xp, a: xp.resize(a, (True,)),
    "zeros": lambda xp, a: xp.zeros((True, 2)),
    "swapaxes-accepts": lambda xp, a: xp.swapaxes(a, True, 0),
    "moveaxis-accepts": lambda xp, a: xp.moveaxis(a, True, 0),
    "expand_dims-accepts": lambda xp, a: xp.expand_dims(a, True),
}


@pytest.mark.parametrize("call", list(_BOOL_SHAPES))
def test_booleans_as_shapes(mode, call):
    check(lambda xp: _BOOL_SHAPES[call](xp, xp.array([[[1]]])))


# --- 9. log1p, arctanh, exp2 in NumPy's bits within 3 ulps ------------------------------------

_ULP_DOMAINS = {"log1p": (-0.9, 10.0), "arctanh": (-0.99, 0.99), "exp2": (-100.0, 100.0)}


def _ulps(got, want):
    bits = {4: numpy.int32, 8: numpy.int64}[got.dtype.itemsize]
    g, w = got.view(bits).astype(numpy.int64), want.view(bits).astype(numpy.int64)
    g = numpy.where(g < 0, numpy.iinfo(bits).min - g, g)
    w = numpy.where(w < 0, numpy.iinfo(bits).min - w, w)
    return numpy.where(numpy.isnan(got) & numpy.isnan(want), 0, numpy.abs(g - w))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(_ULP_DOMAINS))
def test_device_math_within_3_ulps(mode, name, dtype):
    lo, hi = _ULP_DOMAINS[name]
    x = numpy.random.default_rng(1).uniform(lo, hi, 20000).astype(dtype)
    edges = [v for v in (-0.41415790294862, -0.4141495311372253, 98.97827988432499, 0.0,
                         -0.0, 1e-30, -1e-30, 0.49999997) if lo <= v <= hi]
    x[:len(edges)] = edges
    want = getattr(numpy, name)(x)
    got = numpy.asarray(getattr(npjax, name)(npjax.asarray(x)))
    assert _ulps(got, want).max() <= 3
    jitted = numpy.asarray(npjax.jit(getattr(npjax, name))(npjax.asarray(x)))
    assert _ulps(jitted, want).max() <= 3


_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, numpy.inf, -numpy.inf, numpy.nan,
            1e-300, -1e-300, 1023.5, 1024.0, -1022.5, -1074.0, -1075.0, 127.5, 128.0, -149.0,
            1e10, -1e10, 0.9999999999, -0.9999999999]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", list(_ULP_DOMAINS))
def test_device_math_special_values(mode, name, dtype):
    check(lambda xp: getattr(xp, name)(xp.array(_SPECIAL, dtype)), "ignore")


# --- 10. generators to the joining functions ---------------------------------------------------


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "stack",
                                  "concatenate"])
def test_joining_refuses_generators(mode, name):
    check(lambda xp: getattr(xp, name)(xp.arange(3) * k for k in range(2)))
    check(lambda xp: getattr(xp, name)([xp.arange(3) * k for k in range(2)]))
    check(lambda xp: getattr(xp, name)(tuple(xp.arange(3) * k for k in range(2))))


# --- 11. ufunc.at of a NumPy array -----------------------------------------------------------


@pytest.mark.parametrize("b", ["scalar", "array", "none"])
@pytest.mark.parametrize("name", ["add", "multiply", "floor_divide", "negative"])
def test_at_of_a_numpy_array(mode, name, b):
    def fn(xp):
        a = numpy.arange(1.0, 5.0)
        index = xp.asarray([0, 0, 2])
        ufunc = getattr(xp, name)
        if ufunc.nin == 1:
            ufunc.at(a, index)
        else:
            ufunc.at(a, index, *{"scalar": (2.0,), "array": (xp.asarray([2.0, 3.0, 0.5]),),
                                 "none": ()}[b])
        return a.tolist()  # (NumPy's array on both sides)
    check(fn)


# --- 12. set routines of int64 with uint64 ---------------------------------------------------

_SETS = {
    "isin": lambda xp, a, b: xp.isin(a, b),
    "isin-invert": lambda xp, a, b: xp.isin(b, a, invert=True),
    "setdiff1d": lambda xp, a, b: xp.setdiff1d(a, b),
    "intersect1d": lambda xp, a, b: xp.intersect1d(a, b),
    "union1d": lambda xp, a, b: xp.union1d(a, b),
    "setxor1d": lambda xp, a, b: xp.setxor1d(a, b),
}


@pytest.mark.parametrize("repeat", [1, 40])
@pytest.mark.parametrize("call", list(_SETS))
def test_sets_of_int64_and_uint64(mode, call, repeat):
    def fn(xp):
        a = xp.array([2**60, 2**60 + 1, -5, 2**63 - 1], dtype="q")
        b = xp.array([2**60 + 1, 2**60, 2**63 + 5, 7] * repeat, dtype="Q")
        return _SETS[call](xp, a, b)
    check(fn)


def test_isin_of_int64_and_uint64_is_refused_under_jit():
    # traced, NumPy cannot compute it and the device's float64 comparison is wrong
    a = numpy.array([2**63 - 1], "q")
    b = numpy.array([2**63 + 5], "Q")
    with pytest.raises(npjax.JitError):
        npjax.jit(lambda x, y: npjax.isin(x, y))(npjax.asarray(a), npjax.asarray(b))
    got = npjax.jit(lambda x, y: npjax.isin(x, y), fallback="eager")(npjax.asarray(a),
                                                                       npjax.asarray(b))
    assert_same(got, numpy.isin(a, b))


# --- 13. reduce into an out= of another shape ------------------------------------------------


@pytest.mark.parametrize("out_shape", [(), (1,), (3,), (1, 1), (1, 3), (4, 3), (2, 3)])
@pytest.mark.parametrize("keepdims", [True, False])
@pytest.mark.parametrize("name", ["add", "minimum", "floor_divide"])
def test_reduce_out_of_another_shape(mode, name, keepdims, out_shape):
    def fn(xp):
        out = xp.empty(out_shape)
        got = getattr(xp, name).reduce(xp.arange(1.0, 13.0).reshape(4, 3), axis=0, out=out,
                                       keepdims=keepdims)
        return got is out, out
    check(fn)


# --- 14. where= as a Python list -------------------------------------------------------------

_WHERE = {
    "power-out": lambda xp: _into(xp, xp.arange(4).reshape(2, 2) + 2, lambda a: xp.power(
        a, [2, 3], out=a, where=[[0, 1], [1, 0]])),
    "add-buffer": lambda xp: _into(xp, 1.5 * xp.ones(10), lambda c: xp.add(
        xp.ones(10, "i8"), xp.ones(10, "i8"), out=c, where=[1, 0, 0, 1, 0, 0, 1, 1, 1, 0])),
    "int-array-refused": lambda xp: _into(xp, xp.zeros(3), lambda c: xp.add(
        xp.ones(3), 1, out=c, where=xp.array([1, 0, 2]))),
    "float-list": lambda xp: _into(xp, xp.zeros(3), lambda c: xp.add(
        xp.ones(3), 1, out=c, where=[1.0, 0.0, 2.0])),
    "reduce": lambda xp: xp.add.reduce(xp.ones(3), where=[1, 0, 1]),
    "sum": lambda xp: xp.sum(xp.ones(3), where=[1, 0, 1]),
    "mean": lambda xp: xp.mean(xp.arange(3.0), where=[1, 0, 1]),
}


def _into(xp, target, fn):
    fn(target)
    return target


@pytest.mark.parametrize("case", list(_WHERE))
def test_where_as_a_list(mode, case):
    check(_WHERE[case])


# --- 15. host-only values stored into device arrays ------------------------------------------
# (an object or str array of npjax's stored into a float array: NumPy casts its elements; the
# device raised its internal HostOnly)

def _stored(xp, index, value):
    a = xp.arange(4.0)
    a[index(a)] = value(xp)
    return a


_STORES = {
    "all-object": (lambda a: slice(None), lambda xp: xp.array([1, 2, 3, 4], dtype=object)),
    "mask-object": (lambda a: a > 1, lambda xp: xp.array([7], dtype=object)),
    "fancy-object": (lambda a: [0, 2], lambda xp: xp.array([9, 8], dtype=object)),
    "element-object": (lambda a: 1, lambda xp: xp.array(5, dtype=object)),
    "all-str": (lambda a: slice(None), lambda xp: xp.array(["1.5", "2", "3", "4"])),
    "bad-str": (lambda a: slice(None), lambda xp: xp.array(["a", "2", "3", "4"])),
    "complex-object": (lambda a: slice(None), lambda xp: xp.array([1j, 2, 3, 4], dtype=object)),
}


@pytest.mark.parametrize("case", list(_STORES))
def test_host_only_values_stored(mode, case):
    index, value = _STORES[case]
    check(lambda xp: _stored(xp, index, value))


# --- 16. booleans as reduction axes ----------------------------------------------------------
# (NumPy's reductions refuse them, its Python-level median/quantile/average read them as 0/1)

_BOOL_AXES = {
    "sum": lambda xp, ax: xp.sum(xp.ones((2, 3)), axis=ax),
    "mean": lambda xp, ax: xp.mean(xp.ones((2, 3)), axis=ax),
    "std": lambda xp, ax: xp.std(xp.ones((2, 3)), axis=ax),
    "max": lambda xp, ax: xp.max(xp.ones((2, 3)), axis=ax),
    "any": lambda xp, ax: xp.any(xp.ones((2, 3)), axis=ax),
    "nansum": lambda xp, ax: xp.nansum(xp.ones((2, 3)), axis=ax),
    "ptp": lambda xp, ax: xp.ptp(xp.ones((2, 3)), axis=ax),
    "count_nonzero": lambda xp, ax: xp.count_nonzero(xp.ones((2, 3)), axis=ax),
    "method": lambda xp, ax: xp.ones((2, 3)).sum(axis=ax),
    "add.reduce": lambda xp, ax: xp.add.reduce(xp.ones((2, 3)), axis=ax),
    "median": lambda xp, ax: xp.median(xp.arange(6.0).reshape(2, 3), axis=ax),
    "percentile": lambda xp, ax: xp.percentile(xp.arange(6.0).reshape(2, 3), 30, axis=ax),
    "average": lambda xp, ax: xp.average(xp.arange(6.0).reshape(2, 3), axis=ax),
}


@pytest.mark.parametrize("axis", [True, (0, True)], ids=str)
@pytest.mark.parametrize("case", list(_BOOL_AXES))
def test_bool_reduction_axes(mode, case, axis):
    check(lambda xp: _BOOL_AXES[case](xp, axis))


# --- 17. reshape's message --------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 7), (5,), (-1, 5), (-1, 5, 7), (5, -1), (0, -1),
                                   (-1,), (2, -1, -1)], ids=str)
def test_reshape_message(mode, shape):
    check(lambda xp: xp.arange(12.0).reshape(shape))
