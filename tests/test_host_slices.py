"""The host route's paths for views of host arrays (issue 15: ``examples/heat_equation.py``'s
loops, ``u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])``): operators with a view
on either side, basic-slice reads and writes. Each is checked against NumPy on the cases the
short paths hand on: 0-d, empty, negative steps, views of views, read-only views, mixed
dtypes, Python and NumPy scalars, npjax scalars, device operands, results past the host
threshold, out-of-bounds indexes, warnings at the user's line, aliasing after writes."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import npjax
from npjax._core._ndarray import ndarray
from tests._parity import DEVICE_FLOAT, assert_same
from tests.test_host_overhead import _outcome, _same_outcome


@pytest.fixture(autouse=True)
def _auto():
    with npjax.policy(placement="auto", host_threshold=64):
        yield


BASES = {
    "float64": np.array([1.0, 0.0, -2.0, 1e308, 4.0, -0.0, 3.0]),
    "int64": np.array([3, 0, -2, 7, 1, 5, -9]),
    "float32": np.array([1.0, 0.0, -2.0, 3e38, 2.0, 1.0, 0.5], np.float32),
    "uint8": np.array([3, 0, 2, 250, 1, 7, 9], np.uint8),
}
# (a name, how a view is made from the base): the left and right operands of the operators
VIEWS = {
    "[1:-1]": lambda x: x[1:-1], "[2:]": lambda x: x[2:], "[:-2]": lambda x: x[:-2],
    "[::-1][1:-1]": lambda x: x[::-1][1:-1], "[5:0:-1]": lambda x: x[5:0:-1],
    "[6:1:-1]": lambda x: x[6:1:-1],
}
OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
       operator.pow, operator.lt, operator.eq]


@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("right", list(VIEWS), ids=str)
@pytest.mark.parametrize("left", list(VIEWS), ids=str)
@pytest.mark.parametrize("dtype", list(BASES))
def test_operators_of_two_views(dtype, left, right, op):
    """A view on either side (the other a view too), values, dtypes, warnings at the user's
    line, under "warn" and "raise"."""
    x = BASES[dtype]
    a = npjax.asarray(x.copy())
    ours = lambda: op(VIEWS[left](a), VIEWS[right](a))  # noqa: E731
    theirs = lambda: op(VIEWS[left](x), VIEWS[right](x))  # noqa: E731
    _same_outcome(ours, theirs)
    _same_outcome(ours, theirs, all="raise")


OTHERS = [0.4, 2, -3, True, 10**20, np.float64(0.0), np.float32(2.0), np.int8(3),
          np.uint8(200)]


@pytest.mark.parametrize("other", OTHERS, ids=repr)
@pytest.mark.parametrize("dtype", list(BASES))
def test_views_with_numbers_on_either_side(dtype, other):
    """``r * v``, ``2 * v``, ``v - 1.5``: reflected and plain operators of a view with Python
    and NumPy numbers (NEP 50's OverflowError for 10**20 with integers)."""
    x = BASES[dtype]
    a = npjax.asarray(x.copy())
    for op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow):
        _same_outcome(lambda op=op: op(a[1:-1], other), lambda op=op: op(x[1:-1], other))
        _same_outcome(lambda op=op: op(other, a[1:-1]), lambda op=op: op(other, x[1:-1]))
        _same_outcome(lambda op=op: op(other, a[::-2]), lambda op=op: op(other, x[::-2]),
                      all="raise")


def test_views_with_owners_scalars_and_0d_arrays():
    x = np.arange(1.0, 13.0).reshape(3, 4)
    a = npjax.asarray(x.copy())
    owner = a[1] * 1.0  # a new host array (owns its data)
    assert_same(owner + a[2], x[1] + x[2])
    assert_same(a[2] - owner, x[2] - x[1])
    assert_same(a[1:, 1:] * a[:-1, :-1], x[1:, 1:] * x[:-1, :-1])
    assert_same(a[:, 1:][::-1] / a[:, :-1][::2][:1], x[:, 1:][::-1] / x[:, :-1][::2][:1])
    scalar = ndarray._owner(np.array(2.0), True)  # an npjax scalar: NumPy's scalar rules
    assert_same(a[1:] - scalar, x[1:] - np.float64(2.0))
    assert_same(scalar * a[::2], np.float64(2.0) * x[::2])
    zero_d = npjax.asarray(np.array(3.0))
    assert_same(a[1] + zero_d, x[1] + np.array(3.0))
    assert_same(zero_d - a[:, 2], np.array(3.0) - x[:, 2])
    assert_same(a[1, 2] * a[0], x[1, 2] * x[0])  # a NumPy scalar read from the array
    empty, empty_np = a[1:1], x[1:1]
    assert_same(empty + empty, empty_np + empty_np)
    assert_same(2 * empty, 2 * empty_np)
    with pytest.raises(ValueError):
        a[1:] + a[:, :2]
    with pytest.raises(ValueError):
        a[:, 1:] - a


def test_views_of_other_dtypes_and_read_only_views():
    x, y = np.arange(6, dtype=np.int32), np.linspace(0.0, 1.0, 6, dtype=np.float32)
    a, b = npjax.asarray(x.copy()), npjax.asarray(y.copy())
    assert_same(a[1:] + b[:-1], x[1:] + y[:-1])
    assert_same(b[::-1] * a[::-1], y[::-1] * x[::-1])
    ro, ro_np = npjax.asarray(x.copy()), x.copy()
    ro.flags.writeable = False
    ro_np.flags.writeable = False
    assert_same(ro[1:] + ro[:-1], ro_np[1:] + ro_np[:-1])
    assert (ro[1:] + 1).flags.writeable  # a new array
    with pytest.raises(ValueError):
        ro[1:] += 1


def test_equal_shapes_stay_on_the_host_and_broadcasts_leave_it():
    """Operands of one shape make a result of that shape: views of 7x7 (49 elements, under
    the threshold of 64) stay host arrays though the product of their sizes is past it; a
    broadcast that makes more than the threshold runs on the device."""
    x = np.arange(64.0).reshape(8, 8)
    a = npjax.asarray(x.copy())
    got = a[1:, 1:] + a[:-1, ::-1][:, 1:]
    assert_same(got, x[1:, 1:] + x[:-1, ::-1][:, 1:])
    assert got._host() is not None
    got = a[:, :1] * a[:1, :]  # (8, 1) and (1, 8): 64 elements
    assert_same(got, x[:, :1] * x[:1, :])
    assert got._host() is not None
    y = np.arange(18.0, dtype=DEVICE_FLOAT).reshape(9, 2)  # (float32 on a TPU: float64
    z = y.reshape(2, 9)  # arrays are host arrays there)
    b, c = npjax.asarray(y.copy()), npjax.asarray(z.copy())
    got = b[:, :1] + c[:1, :]  # (9, 1) and (1, 9): 81 elements
    assert_same(got, y[:, :1] + z[:1, :])
    assert got._host() is None
    got = c[1:, :] - b[:, 1:]
    assert_same(got, z[1:, :] - y[:, 1:])
    assert got._host() is None


def test_views_with_device_operands():
    x = np.arange(6.0, dtype=DEVICE_FLOAT)
    with npjax.policy(placement="device"):
        device = npjax.asarray(x)
    host = npjax.asarray(x)
    for got in (host[1:] + device[1:], device[:-1] * host[1:], host[::2] - device[::2][0],
                2.0 * device[1:] + host[1:]):
        assert got._host() is None
    assert_same(host[1:] + device[1:], x[1:] * 2)
    assert_same(device[:-1] * host[1:], x[:-1] * x[1:])


def test_results_of_views_are_new_arrays():
    """An operator's result owns its data: later writes to the base change views, never
    results; the loop's update reads every view before the write."""
    x = np.sin(np.arange(11.0))
    u = npjax.asarray(x.copy())
    v = u[1:-1]
    got = v + v
    u[1] = 100.0
    x2 = x.copy()
    want = x2[1:-1] + x2[1:-1]
    x2[1] = 100.0
    assert_same(got, want)
    assert_same(v, x2[1:-1])
    assert got.base is None and v.base is u
    for _ in range(5):
        u[1:-1] = u[1:-1] + 0.4 * (u[2:] - 2 * u[1:-1] + u[:-2])
        x2[1:-1] = x2[1:-1] + 0.4 * (x2[2:] - 2 * x2[1:-1] + x2[:-2])
    assert_same(u, x2)
    plate, plate_np = npjax.zeros((7, 7)), np.zeros((7, 7))
    plate[2:5, 2:5] = 100.0
    plate_np[2:5, 2:5] = 100.0
    for _ in range(5):
        plate[1:-1, 1:-1] = plate[1:-1, 1:-1] + 0.2 * (
            plate[2:, 1:-1] + plate[:-2, 1:-1] + plate[1:-1, 2:] + plate[1:-1, :-2]
            - 4 * plate[1:-1, 1:-1])
        plate_np[1:-1, 1:-1] = plate_np[1:-1, 1:-1] + 0.2 * (
            plate_np[2:, 1:-1] + plate_np[:-2, 1:-1] + plate_np[1:-1, 2:]
            + plate_np[1:-1, :-2] - 4 * plate_np[1:-1, 1:-1])
    assert_same(plate, plate_np)


def test_operators_of_views_are_counted():
    a = npjax.asarray(np.arange(5.0))
    npjax.reset_stats()
    a[1:] + a[:-1]
    2 * a[1:]
    a[1:] - 1.0
    assert npjax.stats()["placement"]["host_calls"] == {"__add__": 1, "__rmul__": 1,
                                                        "__sub__": 1}


KEYS = [slice(1, -1), slice(2, None), slice(None, -2), slice(None, None, -1), slice(5, 0, -2),
        slice(3, 3), slice(10, 20), (slice(1, -1),), 1, -1, 7, -8, (), Ellipsis, (1, 2)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (), (0,)], ids=str)
def test_basic_reads(shape, key):
    """Slices, ints and tuples of them on host arrays and their views: NumPy's values,
    scalars, views that alias the base, IndexError out of bounds."""
    x = np.arange(float(np.prod(shape))).reshape(shape)
    a = npjax.asarray(x.copy())
    for ours, theirs in ((a, x), (a[...], x[...])):
        got, want = _outcome(lambda o=ours: o[key]), _outcome(lambda t=theirs: t[key])
        if isinstance(want[0], type):
            assert got[0] is want[0]
            continue
        assert_same(got[0], want[0])
        if isinstance(want[0], np.ndarray) and want[0].size:
            got[0][...] = -1.0  # a view: the write shows in the base
            want[0][...] = -1.0
            assert_same(a, x)


def test_reads_of_views_of_views_and_read_only_arrays():
    x = np.arange(24.0).reshape(4, 6)
    a = npjax.asarray(x.copy())
    v, w = a[1:, ::-1][::2, 1:-1], x[1:, ::-1][::2, 1:-1]
    assert_same(v, w)
    assert v.base is a and v[1:].base is a
    v[0, 1:3] = 7.0
    w[0, 1:3] = 7.0
    assert_same(a, x)
    ro = npjax.asarray(x.copy())
    ro.flags.writeable = False
    assert not ro[1:].flags.writeable
    with pytest.raises(ValueError):
        ro[1:][0] = 1.0
    with pytest.raises(ValueError):
        ro[1:, 1:] = a[1:, 1:]


VALUES = {
    "same dtype": lambda a: a[:-2] * 1.0,
    "view": lambda a: a[2:],
    "reversed view": lambda a: a[::-1][1:-1],
    "int64": lambda a: np.arange(5),
    "float32": lambda a: np.linspace(0.0, 1.0, 5, dtype=np.float32),
    "nan into int": lambda a: np.array([1.0, np.nan, 2.0, 3.0, 4.0]),
    "broadcast": lambda a: a[3:4],
    "wrong shape": lambda a: a[:3],
    "number": lambda a: 2.5,
}


@pytest.mark.parametrize("value", list(VALUES), ids=str)
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_slice_writes(dtype, value):
    """``u[1:-1] = value`` into host arrays and host views, values of every kind: NumPy's
    casts, warnings at the user's line, errors, overlapping views."""
    x = np.arange(7).astype(dtype)
    a = npjax.asarray(x.copy())

    def wrap(v):
        return npjax.asarray(v) if isinstance(v, np.ndarray) else v

    ours = lambda: a.__setitem__(slice(1, -1), wrap(VALUES[value](a)))  # noqa: E731
    theirs = lambda: x.__setitem__(slice(1, -1), VALUES[value](x))  # noqa: E731
    _same_outcome(ours, theirs)
    assert_same(a, x)
    view, view_np = a[::-1], x[::-1]  # writes through a view of a host array
    _same_outcome(lambda: view.__setitem__(slice(1, -1), wrap(VALUES[value](a))),
                  lambda: view_np.__setitem__(slice(1, -1), VALUES[value](x)))
    assert_same(a, x)


def test_tuple_writes_scalars_and_device_values():
    x = np.zeros((5, 5))
    a = npjax.asarray(x.copy())
    a[1:-1, 1:-1] = a[2:, 1:-1] + 1.0
    x[1:-1, 1:-1] = x[2:, 1:-1] + 1.0
    a[1:-1, 0] = a[1:-1, 1][::-1]
    x[1:-1, 0] = x[1:-1, 1][::-1]
    assert_same(a, x)
    scalar = ndarray._owner(np.array(3.0), True)
    a[1:3, 2:4] = scalar
    x[1:3, 2:4] = 3.0
    assert_same(a, x)
    with npjax.policy(placement="device"):
        device = npjax.asarray(np.arange(3.0))
    a[1:-1, 4] = device
    x[1:-1, 4] = np.arange(3.0)
    assert_same(a, x)
    assert a._host() is not None
    with pytest.raises(IndexError):
        a[1:-1, 5] = a[1:-1, 0]
    with pytest.raises(ValueError):
        a[1:-1, 1:-1] = a[1:, 1:]
    zero_d, zero_d_np = npjax.asarray(np.array(1.0)), np.array(1.0)
    zero_d[...] = npjax.asarray(np.array(4.0))
    zero_d_np[...] = 4.0
    assert_same(zero_d, zero_d_np)
    with pytest.raises(IndexError):
        zero_d[0:1] = a[0, :1]


def test_views_of_host_arrays_inside_jit():
    """Under ``npjax.jit`` the host route is off: a view NumPy made of a host array (read
    by the operators in one step) computes with the traced operand as a device array."""
    x = np.arange(6.0)
    a = npjax.asarray(x.copy())
    v = a[1:][::-1]

    @npjax.jit
    def f(t):
        return (v + t) * 2.0 - t * v[::-1]

    got = f(npjax.asarray(np.ones(5)))
    assert_same(got, (x[1:][::-1] + 1.0) * 2.0 - x[1:])
    a[1] = 10.0  # the view still aliases its base afterwards
    assert_same(v, np.array([5.0, 4.0, 3.0, 2.0, 10.0]))


COMPLEX_WRITES = [  # (shape, key): NumPy checks ints, slices and booleans before it casts
    ((3,), 5), ((3, 3), (0, 7)), ((3, 3), (slice(None), 5)), ((3,), np.array(9)),
    ((3,), np.array([True, False])), ((3, 3), (np.array([0, 1]), 9)),
    # ... and integer arrays after: the ComplexWarning, then the IndexError
    ((3,), [0, 9]), ((3,), np.array([0, 9])), ((3, 3), (0, [1, 5])),
    # in bounds: the warning and the real parts written
    ((3,), 1), ((3,), slice(0, 2)), ((3,), [True, False, True]), ((3, 3), Ellipsis),
]


@pytest.mark.parametrize("shape, key", COMPLEX_WRITES)
@pytest.mark.parametrize("value", [np.complex128(1 + 2j), np.complex64(3j)])
def test_complex_writes_into_real_arrays_warn_and_raise_in_numpys_order(shape, key, value):
    ours, theirs = npjax.zeros(shape), np.zeros(shape)

    def write(target):
        target[key] = value
        return target

    _same_outcome(lambda: write(ours), lambda: write(theirs))
