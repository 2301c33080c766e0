"""The host route's commonest operations in C (issue 37, ``npjax/_core/_hostpath.c`` through
``npjax/_placement/_fast.py``): each operation gives what ndarray's Python members give (results,
dtypes, views, warnings at the user's line, exceptions, host-call counts) on the cases the C
slots run and on those they hand to Python; the pure-Python build (``NPJAX_PURE_PYTHON=1``,
as without a compiler) runs the core parity files."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import npjax
from npjax._placement import _fast
from npjax._core._array_base import HOSTPATH
from npjax._runtime import _stats
from tests._parity import DEVICE_FLOAT

BUILT = _fast.ENABLED
needs_c = pytest.mark.skipif(not BUILT, reason="the C module is not built (no compiler)")


def _outcome(make, op):
    """(result or exception class, warnings, host-call counts) of ``op(*make())``."""
    operands = make()
    before = dict(_stats.host_counts())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            got = op(*operands)
        except Exception as e:  # the class is compared
            got = type(e)
    after = dict(_stats.host_counts())
    counts = {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}
    return got, operands, [(w.category, str(w.message), w.filename, w.lineno)
                           for w in seen], counts


def assert_same(got, want):
    """The same result: class, npjax kind (scalar, host or device), dtype, shape, values."""
    assert type(got) is type(want)
    if isinstance(want, tuple | list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    if isinstance(want, npjax.ndarray):
        assert got._scalar == want._scalar
        assert (got._host() is None) == (want._host() is None)
        got, want = np.asarray(got), np.asarray(want)
    if isinstance(want, np.ndarray | np.generic):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (got != got and want != want)


def _same_as_python(make, op):
    """``op`` on fresh operands from ``make`` gives with the C slots what the Python members
    give: result (value, dtype, class; ``self`` for in-place), operands after the call,
    warnings (message and line), exceptions, host-call counts."""
    got, ops_c, warned_c, counts_c = _outcome(make, op)
    with _fast.python_only():
        want, ops_py, warned_py, counts_py = _outcome(make, op)
    if isinstance(want, type):
        assert got is want
    else:
        assert type(got) is type(want)
        if isinstance(want, npjax.ndarray):
            assert (got.base is None) == (want.base is None)
            for mine, theirs in zip(ops_c, ops_py):
                assert (got is mine) == (want is theirs)  # in place: the operand itself
                if isinstance(mine, npjax.ndarray) and got.base is not None:
                    assert (got.base is mine) == (want.base is theirs)
        assert_same(got, want)
    for mine, theirs in zip(ops_c, ops_py):
        if isinstance(theirs, npjax.ndarray | np.ndarray):
            assert_same(mine, theirs)
    assert warned_c == warned_py
    assert counts_c == counts_py


def _host(x):
    return npjax.asarray(np.array(x))


def _device(x):
    with npjax.policy(placement="device"):
        return npjax.asarray(np.array(x))


OPERANDS = {
    "f8": lambda: _host([1.0, 0.0, -2.0, 1e308]),
    "f8 view": lambda: _host([9.0, 1.0, 0.0, -2.0, 1e308])[1:],
    "f8 row": lambda: _host([[1.0, 0.0, -2.0, 1e308]] * 2)[1],
    "f8 T": lambda: _host([[1.0, 0.0], [-2.0, 1e308]]).T,
    "f4": lambda: _host(np.array([1.0, 0.0, -2.0, 3e38], np.float32)),
    "i8": lambda: _host([3, 0, -2, 7]),
    "u1": lambda: _host(np.array([3, 0, 2, 250], np.uint8)),
    "b1": lambda: _host([True, False, True, True]),
    "c16": lambda: _host([1 + 1j, 0j, 2.0, -1j]),
    "2x1": lambda: _host([[1.0], [2.0]]),
    "scalar": lambda: npjax.sum(_host([1.0, 2.0])),
    "0-d": lambda: _host(2.0),
    "device": lambda: _device([1.0, 0.0, -2.0, 1e308]),
    "large": lambda: _host(np.arange(10000.0)),
    "float": lambda: 2.5,
    "int": lambda: 3,
    "big int": lambda: 2**70,
    "bool": lambda: True,
    "complex": lambda: 1j,
    "np.float64": lambda: np.float64(0.0),
    "np.int8": lambda: np.int8(7),
    "numpy array": lambda: np.array([1.0, 2.0, 3.0, 4.0]),
    "list": lambda: [1.0, 2.0, 3.0, 4.0],
}
ARRAYS = [k for k in OPERANDS if k in ("f8", "f8 view", "f8 row", "f8 T", "f4", "i8", "u1",
                                       "b1", "c16", "2x1", "scalar", "0-d", "device",
                                       "large")]
OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "@": lambda a, b: a @ b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}
INPLACE = {
    "+=": lambda a, b: a.__iadd__(b), "-=": lambda a, b: a.__isub__(b),
    "*=": lambda a, b: a.__imul__(b), "/=": lambda a, b: a.__itruediv__(b),
    "@=": lambda a, b: a.__imatmul__(b),
}
UFUNCS = {name: getattr(npjax, name) for name in ("add", "subtract", "multiply",
                                                     "true_divide", "maximum", "less")}


def _pair(x, y):
    return lambda: (OPERANDS[x](), OPERANDS[y]())


@needs_c
@pytest.mark.parametrize("x", ARRAYS)
@pytest.mark.parametrize("y", list(OPERANDS))
@pytest.mark.parametrize("op", list(OPS))
def test_operators_as_the_python_members(x, y, op):
    _same_as_python(_pair(x, y), OPS[op])
    _same_as_python(_pair(y, x), OPS[op])  # reflected


@needs_c
@pytest.mark.parametrize("x", ARRAYS)
@pytest.mark.parametrize("y", list(OPERANDS))
@pytest.mark.parametrize("op", list(INPLACE))
def test_in_place_operators_as_the_python_members(x, y, op):
    _same_as_python(_pair(x, y), INPLACE[op])


@needs_c
@pytest.mark.parametrize("x", ARRAYS + ["float", "np.float64"])
@pytest.mark.parametrize("y", list(OPERANDS))
@pytest.mark.parametrize("name", list(UFUNCS))
def test_ufunc_calls_as_the_python_call(x, y, name):
    _same_as_python(_pair(x, y), UFUNCS[name])


UNARY = {name: getattr(npjax, name) for name in ("sqrt", "negative", "absolute", "isnan",
                                                   "modf", "floor")}


@needs_c
@pytest.mark.parametrize("x", list(OPERANDS))
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_ufunc_calls_as_the_python_call(x, name):
    _same_as_python(lambda: (OPERANDS[x](),), UNARY[name])


@needs_c
@pytest.mark.parametrize("x", list(OPERANDS))
@pytest.mark.parametrize("op", ["-", "+", "abs", "~"])
def test_unary_operators_as_the_python_members(x, op):
    fn = {"-": lambda a: -a, "+": lambda a: +a, "abs": abs, "~": lambda a: ~a}[op]
    _same_as_python(lambda: (OPERANDS[x](),), fn)


@needs_c
def test_comparisons_with_none_and_strings_as_the_python_members():
    for other in (None, "a", b"a", [1, 2, 3, 4], (1.0,)):
        for op in ("==", "!=", "<"):
            _same_as_python(lambda o=other: (OPERANDS["f8"](), o), OPS[op])


@needs_c
def test_matrix_products_whose_result_outgrows_the_operands():
    """``(n, 0) @ (0, n)``: a result larger than the operands' sizes' product, placed by its
    own size; ``(300,) * (300, 1)``: a broadcast result over the host limit."""
    wide = lambda: (_host(np.ones((300, 0))), _host(np.ones((0, 300))))  # noqa: E731
    _same_as_python(wide, lambda a, b: a @ b)
    tall = lambda: (_host(np.ones(300)), _host(np.ones((300, 1))))  # noqa: E731
    _same_as_python(tall, lambda a, b: a * b)
    _same_as_python(tall, lambda a, b: npjax.multiply(a, b))


@needs_c
@pytest.mark.parametrize("out", ["f8", "f8 view", "f4", "i8", "2x1", "scalar", "device",
                                 "numpy array", "float"])
@pytest.mark.parametrize("x", ["f8", "f8 view", "i8", "float", "np.float64", "device"])
@pytest.mark.parametrize("name", ["add", "minimum", "true_divide", "less"])
def test_ufunc_calls_into_out_as_the_python_call(out, x, name):
    def call(a, b, o):
        return getattr(npjax, name)(a, b, out=o)

    _same_as_python(lambda: (OPERANDS[x](), OPERANDS["f8"](), OPERANDS[out]()), call)
    _same_as_python(lambda: (OPERANDS["f8"](), OPERANDS[x](), OPERANDS[out]()), call)


@needs_c
def test_ufunc_keywords_and_other_arities_as_the_python_call():
    make = _pair("f8", "f8")
    _same_as_python(make, lambda a, b: npjax.add(a, b, out=a))
    _same_as_python(make, lambda a, b: npjax.add(a, b, dtype=np.float32))
    _same_as_python(make, lambda a, b: npjax.add(a))
    _same_as_python(make, lambda a, b: npjax.add(a, b, a, a))
    _same_as_python(make, lambda a, b: npjax.negative(a))
    _same_as_python(make, lambda a, b: npjax.divmod(a, b))
    _same_as_python(make, lambda a, b: npjax.matmul(a, b))


INDEXES = [0, -1, 3, 4, -5, slice(1, -1), slice(None, None, -2), (0,), (slice(1, 3),), (),
           Ellipsis, None, (None, 0), (Ellipsis, 1), True, 1.0, [0, 2], (0, 0), (0, slice(1)),
           np.int64(1), np.array([True, False, True, False])]


@needs_c
@pytest.mark.parametrize("x", ARRAYS)
@pytest.mark.parametrize("index", INDEXES, ids=repr)
def test_reads_as_the_python_member(x, index):
    _same_as_python(lambda: (OPERANDS[x](),), lambda a: a[index])


VALUES = ["float", "int", "big int", "bool", "complex", "np.float64", "np.int8", "f8 view",
          "numpy array", "list", "scalar", "device"]


@needs_c
@pytest.mark.parametrize("x", ["f8", "f8 view", "f4", "i8", "u1", "b1", "scalar", "device"])
@pytest.mark.parametrize("index", INDEXES, ids=repr)
@pytest.mark.parametrize("value", VALUES)
def test_writes_as_the_python_member(x, index, value):
    def write(a, v):
        a[index] = v

    _same_as_python(_pair(x, value), write)


@needs_c
def test_delete_as_the_python_member():
    def delete(a):
        del a[0]

    _same_as_python(lambda: (OPERANDS["f8"](),), delete)


# Function and method calls (``_fast_calls.HostFunction``): (operands, call).
CALLS = {
    "zeros(3)": (lambda: (), lambda: npjax.zeros(3)),
    "zeros(shape, dtype=int)": (lambda: (), lambda: npjax.zeros((2, 3), dtype=int)),
    "zeros(-1)": (lambda: (), lambda: npjax.zeros(-1)),
    "zeros(big)": (lambda: (), lambda: npjax.zeros(70000)),
    "empty((2, 0), 'f4')": (lambda: (), lambda: npjax.empty((2, 0), "f4")),
    "ones(2, like=)": (lambda: (OPERANDS["f8"](),), lambda a: npjax.ones(2, like=a)),
    "full(3, 2.5)": (lambda: (), lambda: npjax.full(3, 2.5)),
    "empty_like(a, shape=0)": (lambda: (OPERANDS["f8 view"](),),
                               lambda a: npjax.empty_like(a, shape=0)),
    "zeros_like(a, dtype)": (lambda: (OPERANDS["i8"](),),
                             lambda a: npjax.zeros_like(a, dtype=np.float32)),
    "zeros(object)": (lambda: (), lambda: npjax.zeros(2, dtype=object)),
    "sum(a)": (lambda: (OPERANDS["f8"](),), lambda a: npjax.sum(a)),
    "sum(a, axis=0)": (lambda: (OPERANDS["2x1"](),), lambda a: npjax.sum(a, axis=0)),
    "sum(a, axis=5)": (lambda: (OPERANDS["2x1"](),), lambda a: npjax.sum(a, axis=5)),
    "sum(device)": (lambda: (OPERANDS["device"](),), lambda a: npjax.sum(a)),
    "sum(scalar)": (lambda: (OPERANDS["scalar"](),), lambda a: npjax.sum(a)),
    "sum(a, out=b)": (lambda: (OPERANDS["2x1"](), _host([0.0])),
                      lambda a, b: npjax.sum(a, axis=0, out=b)),
    "mean(empty)": (lambda: (_host(np.zeros(0)),), lambda a: npjax.mean(a)),
    "a.mean() of empty": (lambda: (_host(np.zeros(0)),), lambda a: a.mean()),
    "a.sum()": (lambda: (OPERANDS["i8"](),), lambda a: a.sum()),
    "a.max(axis=1)": (lambda: (OPERANDS["2x1"](),), lambda a: a.max(axis=1)),
    "a.ravel()": (lambda: (OPERANDS["f8 view"](),), lambda a: a.ravel()),
    "linalg.norm(a)": (lambda: (OPERANDS["f8"](),), lambda a: npjax.linalg.norm(a)),
    "outer(a, b)": (lambda: (OPERANDS["f8"](), OPERANDS["i8"]()),
                    lambda a, b: npjax.outer(a, b)),
    "outer(a, numpy)": (lambda: (OPERANDS["f8"](), OPERANDS["numpy array"]()),
                        lambda a, b: npjax.outer(a, b)),
    "stack([a, b])": (lambda: (OPERANDS["f8"](), OPERANDS["f8 row"]()),
                      lambda a, b: npjax.stack([a, b])),
    "stack((a, 1.0))": (lambda: (OPERANDS["f8"](),), lambda a: npjax.stack((a, 1.0))),
    "stack([a, device])": (lambda: (OPERANDS["f8"](), OPERANDS["device"]()),
                           lambda a, b: npjax.stack([a, b])),
    "concatenate((a, b))": (lambda: (OPERANDS["f8"](), OPERANDS["b1"]()),
                            lambda a, b: npjax.concatenate((a, b))),
    "dot(a, a)": (lambda: (OPERANDS["f8 view"](),), lambda a: npjax.dot(a, a)),
    "reshape(a, (2, 2))": (lambda: (OPERANDS["f8"](),), lambda a: npjax.reshape(a, (2, 2))),
    "transpose(T)": (lambda: (OPERANDS["f8 T"](),), lambda a: npjax.transpose(a)),
    "atleast_1d(a)": (lambda: (OPERANDS["f8"](),), lambda a: npjax.atleast_1d(a)),
    "split(a, 2)": (lambda: (OPERANDS["f8"](),), lambda a: npjax.split(a, 2)),
    "where(a > 0, a, 0.0)": (lambda: (OPERANDS["f8"](),), lambda a: npjax.where(a > 0, a, 0.0)),
    "exp(a) overflow": (lambda: (OPERANDS["f8"](),), lambda a: npjax.exp(a)),
    "a.copy()": (lambda: (OPERANDS["f8 row"](),), lambda a: a.copy()),
    "a.copy('F')": (lambda: (OPERANDS["f8 T"](),), lambda a: a.copy("F")),
    "large.copy()": (lambda: (OPERANDS["large"](),), lambda a: a.copy()),
    "scalar.copy()": (lambda: (OPERANDS["scalar"](),), lambda a: a.copy()),
    "device.copy()": (lambda: (OPERANDS["device"](),), lambda a: a.copy()),
    "a.T": (lambda: (OPERANDS["f8 T"](),), lambda a: a.T),
    "view.T": (lambda: (OPERANDS["f8 view"](),), lambda a: a.T),
    "2x1.T": (lambda: (OPERANDS["2x1"](),), lambda a: a.T),
    "scalar.T": (lambda: (OPERANDS["scalar"](),), lambda a: a.T),
    "device.T": (lambda: (OPERANDS["device"](),), lambda a: a.T),
    "list(a)": (lambda: (OPERANDS["i8"](),), lambda a: list(a)),
    "list(view)": (lambda: (OPERANDS["f8 view"](),), lambda a: list(a)),
    "list(2x1)": (lambda: (OPERANDS["2x1"](),), lambda a: list(a)),
    "list(0-d)": (lambda: (OPERANDS["0-d"](),), lambda a: list(a)),
    "list(device)": (lambda: (OPERANDS["device"](),), lambda a: list(a)),
}


@needs_c
@pytest.mark.parametrize("name", list(CALLS))
def test_function_and_method_calls_as_the_python_functions(name):
    make, op = CALLS[name]
    _same_as_python(make, op)


@needs_c
@pytest.mark.parametrize("placement", ["device", "host"])
def test_function_calls_follow_the_placement_policy(placement):
    with npjax.policy(placement=placement):
        _same_as_python(lambda: (), lambda: npjax.zeros(3))
        _same_as_python(lambda: (_host([1.0, 2.0]),), lambda a: npjax.outer(a, a))
        made = npjax.zeros(3, DEVICE_FLOAT)  # (float32 where the accelerator holds no float64)
    assert (made._host() is None) == (placement == "device")


@needs_c
def test_host_functions_stand_for_their_python_functions():
    import inspect
    import pickle

    from npjax._calls import _dispatch
    from npjax._placement import _fast_calls

    assert type(npjax.zeros) is _fast_calls.HostFunction  # NumPy's built-in: no binding
    assert type(npjax.sum) is _fast_calls.HostMethod  # NumPy's Python function: binds
    for f in (npjax.zeros, npjax.sum, npjax.linalg.norm, npjax.ndarray.sum,
              npjax.ndarray.copy):
        assert pickle.loads(pickle.dumps(f)) is f
        assert inspect.signature(f) == inspect.signature(f.__wrapped__)
        assert f.__doc__ == f.__wrapped__.__doc__ and f.__wrapped__.__name__ == f.__name__
    assert inspect.unwrap(npjax.sum) is inspect.unwrap(_dispatch.FUNCTIONS["sum"])
    holder = type("T", (), {"zeros": npjax.zeros, "sum": npjax.sum})()
    assert holder.zeros(2).tolist() == [0.0, 0.0]
    assert holder.sum.__self__ is holder  # bound, as a Python function is
    assert npjax.ndarray.T.__get__(_host([[1.0, 2.0]])).shape == (2, 1)


@needs_c
def test_c_slots_are_in_place():
    assert isinstance(npjax.ndarray.__mro__[1], type) and npjax.ndarray.__mro__[1] is \
        HOSTPATH.ArrayBase
    for name in _fast.MEMBERS:
        assert name not in vars(npjax.ndarray)
    assert "__call__" not in vars(npjax.ufunc)


@needs_c
def test_warnings_name_the_user_line_without_a_context_switch():
    a = _host([1e308, 1.0])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        a + a, a * 10.0, npjax.add(a, a), a.__iadd__(a)
    assert [(str(w.message), w.filename, w.lineno) for w in seen] == [
        (f"overflow encountered in {name}", __file__, line)
        for name in ("add", "multiply", "add", "add")]


@needs_c
@pytest.mark.host_placement
def test_npjax_code_runs_the_python_members(monkeypatch):
    """Called from npjax's own frames (a module ``npjax.*``), the C slots run the Python
    members (which name the first frame outside npjax); from the user's, they do not."""
    from npjax._placement import _host_paths

    seen = []
    errstate = _host_paths.numpy_errstate

    def watched():  # read by the Python member ``binary`` of each operator call
        seen.append(1)
        return errstate()

    monkeypatch.setattr(_host_paths, "numpy_errstate", watched)
    a, results = _host([1.0, 2.0]), []
    code = compile("results.append(a + a)", "<npjax-internal>", "exec")
    exec(code, {"__name__": "npjax._core._test_only", "a": a, "results": results})
    assert seen == [1]
    exec(code, {"__name__": "user_module", "a": a, "results": results})
    assert seen == [1]
    for got in results:
        np.testing.assert_array_equal(np.asarray(got), [2.0, 4.0])


def test_recycled_arrays_keep_weakrefs_subclasses_and_views():
    """Arrays the C module reuses (its free list) start as new: no weak reference of the old
    object reaches them, subclasses are freed as before, views stay findable by the garbage
    collector (``detach_views`` looks for them), and the type's reference count stays put."""
    import gc
    import weakref

    a, b = _host([1.0, 2.0]), _host([3.0, 4.0])
    dead = weakref.ref(a + b)
    assert dead() is None
    again = a + b
    assert dead() is None and weakref.ref(again)() is again

    class Sub(npjax.ndarray):
        pass

    s = npjax.asarray([1.0, 2.0]).view(Sub)
    watched = weakref.ref(s)
    del s
    assert watched() is None
    view = a[1:]
    assert any(r is view for r in gc.get_referrers(a))
    counts = []
    for _ in range(3):  # (kept objects hold the type: a few more after the first round)
        for _ in range(200):
            a + b, a[1:], b * 2.0
        counts.append(sys.getrefcount(npjax.ndarray))
    assert counts[1] == counts[2]
    np.testing.assert_array_equal(np.asarray(view), [2.0])
    views = [_host([float(i), 1.0])[1:] for i in range(100)]  # each the last of its root
    del views  # (freeing a view frees its root inside: the list fills on the way)
    for _ in range(100):
        np.testing.assert_array_equal(np.asarray(a + b), [4.0, 6.0])


@needs_c
@pytest.mark.host_placement
def test_the_kept_host_limit_follows_policies_threads_and_contexts():
    """The C slots keep the last host limit they read; a policy, another thread or another
    context (``contextvars.Context.run``) reads it anew."""
    import contextvars
    import threading

    a = _host(np.array([1.0, 2.0], DEVICE_FLOAT))  # (results over the limit: device ones)

    def kind(x):
        return "host" if x._host() is not None else "device"

    assert kind(a + a) == "host"
    with npjax.policy(host_threshold=1):
        assert kind(a + a) == kind(npjax.add(a, a)) == "device"
        assert kind(contextvars.copy_context().run(lambda: a * a)) == "device"
        seen = []
        thread = threading.Thread(target=lambda: seen.append(kind(a - a)))
        thread.start()
        thread.join()
        assert seen == ["host"]  # (a new thread starts from the default policy)
    assert kind(a + a) == kind(npjax.add(a, a)) == "host"
    assert kind(contextvars.copy_context().run(lambda: a / a)) == "host"


def test_pure_python_build_when_asked():
    """Under ``NPJAX_PURE_PYTHON=1`` (the subprocess below) nothing of the C module is used."""
    if os.environ.get("NPJAX_PURE_PYTHON", "") in ("", "0"):
        pytest.skip("the C module's run")
    assert HOSTPATH is None and not _fast.ENABLED
    assert "__add__" in vars(npjax.ndarray) and "__call__" in vars(npjax.ufunc)


# The core parity files, rerun with the pure-Python members (CI runs both builds).
CORE = ["tests/test_operators.py", "tests/test_indexing.py", "tests/test_host_fast_paths.py",
        "tests/test_host_overhead.py", "tests/test_host_slices.py", "tests/test_views.py",
        "tests/test_errstate.py", "tests/test_subclasses.py", "tests/test_ufuncs.py",
        "tests/test_hostpath.py"]


@pytest.mark.skipif(os.environ.get("NPJAX_PURE_PYTHON", "") not in ("", "0"),
                    reason="already the pure-Python run")
def test_core_parity_files_pass_with_the_pure_python_members():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NPJAX_PURE_PYTHON="1")
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p",
         "no:xdist", *CORE], cwd=root, env=env, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout
