"""The host route's shortest paths (issue 15, per-call overhead): ``npjax.add(a, b)`` and
``a + b`` of two host arrays in one frame, NumPy's default error state in one Context shared
by every thread, host calls counted in per-name cells, ``a[i] = number`` with the scalar check
left to NumPy's IndexError, ndarray methods under the shared Context. Each is checked against
NumPy on the cases the short path must hand to the general one: Python and NumPy scalars,
0-d arrays and npjax scalars, views, mixed dtypes, subclasses, ``out=``, error states "warn"
and "raise", device arrays, results whose size the operands do not bound."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import npjax
from npjax._placement import _fast
from npjax._core._ndarray import ndarray
from npjax._runtime import _numpy_calls
from tests._parity import DEVICE_FLOAT as F
from tests._parity import assert_same


@pytest.fixture(autouse=True)
def _auto():
    with npjax.policy(placement="auto", host_threshold=64):
        yield


def _outcome(fn):
    """(result or exception class, [(category, message, filename)]) of ``fn()``."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            got = fn()
        except Exception as e:  # the exception class is what is compared
            got = type(e)
    return got, [(w.category, str(w.message), w.filename) for w in seen]


def _same_outcome(ours, theirs, at_line=True, **errstate):
    """The same outcome of ``ours()`` and ``theirs()`` run under NumPy's ``errstate``;
    ``at_line``: npjax's warnings name the file of ``ours`` (NumPy's loops name the
    caller's line)."""
    with np.errstate(**errstate):
        got, got_warnings = _outcome(ours)
        want, want_warnings = _outcome(theirs)
    if isinstance(want, type):
        assert got is want
    else:
        assert_same(got, want)
    assert [w[:2] for w in got_warnings] == [w[:2] for w in want_warnings]
    if at_line:
        assert all(w[2] == ours.__code__.co_filename for w in got_warnings)


OPERANDS = {
    "float64": np.array([1.0, 0.0, -2.0, 1e308]),
    "float32": np.array([1.0, 0.0, -2.0, 3e38], np.float32),
    "int64": np.array([3, 0, -2, 7]),
    "uint8": np.array([3, 0, 2, 250], np.uint8),
    "bool": np.array([True, False, True, False]),
    "0-d": np.array(2.5),
}
OTHERS = [1.5, 2, True, np.float64(0.0), np.float32(2.0), np.int8(3), 10**20]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "true_divide", "power",
                                  "less", "maximum", "arctan2", "floor_divide"])
@pytest.mark.parametrize("left", list(OPERANDS), ids=str)
@pytest.mark.parametrize("right", list(OPERANDS), ids=str)
def test_binary_ufuncs_of_two_host_arrays(name, left, right):
    """``npjax.<ufunc>(a, b)`` of two host arrays (the path written out in ``__call__``):
    NumPy's values, dtypes, warnings at the user's line and exceptions."""
    x, y = OPERANDS[left], OPERANDS[right]
    a, b = npjax.asarray(x.copy()), npjax.asarray(y.copy())
    _same_outcome(lambda: getattr(npjax, name)(a, b), lambda: getattr(np, name)(x, y))
    _same_outcome(lambda: getattr(npjax, name)(a, b), lambda: getattr(np, name)(x, y),
                  all="raise")
    _same_outcome(lambda: getattr(npjax, name)(a, b), lambda: getattr(np, name)(x, y),
                  all="ignore")


@pytest.mark.parametrize("other", OTHERS, ids=repr)
@pytest.mark.parametrize("left", ["float64", "int64", "uint8", "0-d"], ids=str)
def test_operators_and_ufuncs_with_numbers(left, other):
    """Python and NumPy numbers on either side (NEP 50: OverflowError for 10**20 with
    integers), through the operators, the ufunc and NumPy's scalar operators."""
    x = OPERANDS[left]
    a = npjax.asarray(x.copy())
    for op in (lambda p, q: p + q, lambda p, q: q - p, lambda p, q: p * q,
               lambda p, q: q / p, lambda p, q: p < q):
        _same_outcome(lambda op=op: op(a, other), lambda op=op: op(x, other))
    _same_outcome(lambda: npjax.multiply(other, a), lambda: np.multiply(other, x))
    _same_outcome(lambda: npjax.add(a, other), lambda: np.add(x, other))


def test_views_scalars_and_broadcasts():
    x = np.arange(12.0).reshape(3, 4)
    a = npjax.asarray(x.copy())
    assert_same(npjax.add(a[1], a[:, 2:3]), np.add(x[1], x[:, 2:3]))
    assert_same(a[0, 1:] * a[::2, 1:], x[0, 1:] * x[::2, 1:])
    assert_same(npjax.add(a[1, 2], a), np.add(x[1, 2], x))  # a NumPy scalar operand
    scalar = ndarray._owner(np.array(2.0), True)  # an npjax scalar: NumPy's scalar rules
    assert_same(npjax.multiply(scalar, a), np.multiply(np.float64(2.0), x))
    assert_same(a - scalar, x - np.float64(2.0))
    with pytest.raises(ValueError):
        npjax.add(a, a[:2])
    with pytest.raises(ValueError):
        a + a[:, :3]


def test_results_over_the_threshold_and_device_operands_leave_the_host():
    """The operands' sizes bound an elementwise result; ``(n, 0) @ (0, n)`` has more elements
    than its operands (none): its size is read."""
    ten = np.arange(10.0, dtype=F)  # (float32 where the accelerator holds no float64)
    col, row = npjax.asarray(ten[:, None]), npjax.asarray(ten[None])
    got = npjax.add(col, row)  # 100 elements from 10 and 10: past the threshold of 64
    assert_same(got, ten[:, None] + ten[None])
    assert got._host() is None
    left, right = npjax.asarray(np.zeros((10, 0), F)), npjax.asarray(np.zeros((0, 10), F))
    for got in (npjax.matmul(left, right), left @ right):
        assert_same(got, np.zeros((10, 10), F))
        assert got._host() is None
    with npjax.policy(placement="device"):
        device = npjax.asarray(np.arange(4.0, dtype=F))
    host = npjax.asarray(np.arange(4.0, dtype=F))
    for got in (npjax.add(host, device), host + device, device + host):
        assert_same(got, np.arange(4.0, dtype=F) * 2)
        assert got._host() is None


def test_out_where_and_subclasses_take_the_general_path():
    x = np.arange(4.0)
    a, out = npjax.asarray(x.copy()), npjax.zeros(4)
    assert npjax.add(a, a, out=out) is out
    assert_same(out, x + x)
    assert npjax.add(a, 1.0, where=a > 1.0, out=out) is out
    assert np.asarray(out).tolist() == np.add(x, 1.0, where=x > 1.0, out=2 * x).tolist()

    class Sub(npjax.ndarray):
        pass

    sub = a.view(Sub)
    assert type(npjax.add(sub, a)) is Sub and type(a + sub) is Sub
    assert np.asarray(npjax.add(sub, a)).tolist() == (x + x).tolist()


def test_host_calls_are_counted_per_name():
    a = npjax.asarray(np.arange(3.0))
    npjax.reset_stats()
    npjax.add(a, a)
    a + a
    a * 2.0
    np.float64(2.0) * a
    a.sum()
    placed = npjax.stats()["placement"]
    assert placed["host_calls"] == {"add": 1, "__add__": 1, "__mul__": 1, "multiply": 1,
                                    "sum": 1}
    assert placed["host"] == 5 and npjax.stats()["calls"]["add"] == 1
    npjax.reset_stats()
    assert npjax.stats()["placement"]["host"] == 0
    a + a
    assert npjax.stats()["placement"]["host_calls"] == {"__add__": 1}


def test_a_context_entered_by_another_call_stops_sharing(monkeypatch):
    """The shared Context of NumPy's default error state is entered by one call at a time;
    a call that finds it entered (another thread's, here this thread's own) runs as
    ``call_numpy_ufunc`` runs it, and sharing stops: each context keeps its own."""
    monkeypatch.setattr(_numpy_calls, "SHARED", list(_numpy_calls.SHARED))
    from npjax._placement import _host_paths  # (the operators' and ufuncs' paths: ``host_path``)

    monkeypatch.setattr(_host_paths, "SHARED", _numpy_calls.SHARED)
    shared = _numpy_calls.SHARED
    x = np.array([1.0, 0.0])
    a = npjax.asarray(x.copy())
    entered, release = threading.Event(), threading.Event()

    def hold():  # another thread inside the shared Context
        entered.set()
        release.wait(30)

    holder = threading.Thread(target=lambda: shared[1].run(hold))
    holder.start()
    entered.wait(30)
    try:  # (the Python members: the C slots need no Context, npjax/_placement/_fast.py)
        with warnings.catch_warnings(record=True) as seen, _fast.python_only():
            warnings.simplefilter("always")
            got = a / a[::-1] + npjax.true_divide(a, 0.0)
    finally:
        release.set()
        holder.join()
    assert [str(w.message) for w in seen] == [
        "divide by zero encountered in divide", "divide by zero encountered in divide",
        "invalid value encountered in divide"]
    assert all(w.filename == __file__ for w in seen)
    assert shared[0] is not np._core._ufunc_config._extobj_contextvar.get()  # stopped
    with np.errstate(all="ignore"):
        assert_same(got, x / x[::-1] + x / 0.0)
    with pytest.warns(RuntimeWarning, match="divide by zero") as seen:
        assert_same(a[:1] / 0.0, x[:1] / 0.0)  # the per-context cache from now on
    assert seen[0].filename == __file__


def test_threads_compute_host_operators_at_once():
    a = npjax.asarray(np.arange(5000.0))
    want = np.arange(5000.0) * 2 + 1
    errors = []

    def work():
        try:
            for _ in range(200):
                assert_same(a * 2.0 + 1.0, want)
                assert_same(npjax.add(a, a), 2 * np.arange(5000.0))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("index", [0, slice(None), (), (0,), Ellipsis])
@pytest.mark.parametrize("value", [2.0, 3, np.float64(1.5)], ids=repr)
def test_writes_into_npjax_scalars_and_0d_arrays(index, value):
    """``a[i] = number``: an npjax scalar refuses item assignment as NumPy's scalars do; a 0-d
    array takes ``()`` and ``...`` and raises NumPy's IndexError for ints and slices."""
    scalar = ndarray._owner(np.array(1.5), True)
    with pytest.raises(TypeError):
        scalar[index] = value
    ours, theirs = npjax.asarray(np.array(1.5)), np.array(1.5)
    _same_outcome(lambda: ours.__setitem__(index, value),
                  lambda: theirs.__setitem__(index, value))
    assert_same(ours, theirs)


@pytest.mark.parametrize("value", [1.5, -3, np.float64(1e300), np.float32(2.5), np.int8(-4),
                                   1e300, np.float64(np.nan)], ids=repr)
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32", "float16", "uint8"])
def test_number_writes_at_int_and_slice_indexes(value, dtype):
    ours, theirs = npjax.asarray(np.zeros(4, dtype)), np.zeros(4, dtype)
    for index in (1, -1, slice(1, 3), 7):
        _same_outcome(lambda i=index: ours.__setitem__(i, value),
                      lambda i=index: theirs.__setitem__(i, value))
    assert_same(ours, theirs)


def test_array_writes_from_views_and_copies():
    x = np.arange(20.0).reshape(4, 5)
    a = npjax.asarray(x.copy())
    a[1] = a[0] * 0.5 + a[2]
    x[1] = x[0] * 0.5 + x[2]
    a[2:, 1] /= a[1, 1]
    x[2:, 1] /= x[1, 1]
    a[:, 3] = a[1][:4]
    x[:, 3] = x[1][:4]
    assert_same(a, x)
    ints = npjax.asarray(np.zeros(3, np.int64))
    with pytest.warns(RuntimeWarning) as seen:
        ints[:] = npjax.asarray(np.array([1.0, np.nan, 2.0]))
    assert seen[0].filename == __file__


@pytest.mark.parametrize("method", ["sum", "mean", "max", "std", "cumsum", "argmax"])
def test_methods_under_the_shared_context(method):
    """ndarray methods on host arrays: NumPy's results and warnings (empty means, overflow)
    at the user's line, under every error state."""
    for x in (np.arange(6.0).reshape(2, 3), np.array([]), np.array([1e308, 1e308])):
        a = npjax.asarray(x.copy())
        # (NumPy's loops name its own _methods.py here; npjax names the user's line)
        _same_outcome(lambda a=a: getattr(a, method)(), lambda x=x: getattr(x, method)(),
                      at_line=False)
        _same_outcome(lambda a=a: getattr(a, method)(), lambda x=x: getattr(x, method)(),
                      at_line=False, all="raise")


def test_functions_keep_devices_and_warnings():
    _same_outcome(lambda: npjax.mean(npjax.asarray(np.array([]))),
                  lambda: np.mean(np.array([])), at_line=False)  # NumPy's fromnumeric.py
    import jax

    device = jax.devices()[0]
    assert npjax.zeros(3, device=device)._host() is None or device.platform == "cpu"
    assert_same(npjax.zeros(3, device="cpu"), np.zeros(3))
    assert_same(npjax.zeros((2, 2)), np.zeros((2, 2)))
