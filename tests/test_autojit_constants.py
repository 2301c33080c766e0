"""npjax.autojit and what a function reads besides its arguments: NumPy arrays of globals,
closures and default values are constants of the compiled program, guarded by their bytes (a
changed array is compiled anew; a function writing into one runs as written, each write made
once); NumPy's module (not its random draws), ``operator``'s functions and builtins as default
values pass the check. Every run is compared with the same function run as written on NumPy."""

from __future__ import annotations

import operator

import numpy
import pytest

import npjax
from npjax._compile import _autojit_check
from tests._parity import assert_same

CALLS = 5


@pytest.fixture(autouse=True)
def hot_at_second_call(autojit_hot):
    yield


def _auto():
    return npjax.stats()["autojit"]


def _compiles():
    return npjax.stats()["compiles"]["count"]


def _reasons():
    return {e["function"].rsplit(".", 1)[-1]: e["reason"] for e in _auto()["refused"]}


def _make_table_user(table):
    def shifted(x):
        return x * 2.0 + table

    return shifted


def test_a_closure_numpy_array_is_a_constant_guarded_by_its_bytes():
    ours_table, their_table = numpy.arange(3.0), numpy.arange(3.0)
    f = npjax.autojit(_make_table_user(ours_table))
    g = _make_table_user(their_table)
    x = numpy.linspace(0.0, 1.0, 3)
    for _ in range(CALLS):
        assert_same(f(npjax.asarray(x)), g(x))
    assert [e["signatures"] for e in _auto()["compiled"]] == [1]
    compiles = _compiles()
    for table in (ours_table, their_table):  # the program holds the old values: compiled anew
        table[1] = 10.0
    for _ in range(CALLS):
        assert_same(f(npjax.asarray(x)), g(x))
    assert _compiles() > compiles
    assert [e["signatures"] for e in _auto()["compiled"]] == [2]
    for table in (ours_table, their_table):  # the same bytes in another shape
        table.shape = (3, 1)
    for _ in range(CALLS):
        assert_same(f(npjax.asarray(x)), g(x))
    assert [e["signatures"] for e in _auto()["compiled"]] == [3]
    assert _auto()["refused"] == []


def _make_counter(count, kind):
    def counts(x):
        count[0] += 1  # a write into the closure's array: once per call, as written
        return x + 1.0

    def counts_then_cannot_trace(x):
        count[0] += 1
        return float(x.sum())  # (a JitError under a trace, after the write)

    def counts_in_a_loop(x):
        for _ in range(40):  # (a rolled loop's body is traced once for its 40 iterations)
            count[0] += 1
            x = x * 0.5 + 1.0
        return x

    return {"traces": counts, "cannot-trace": counts_then_cannot_trace,
            "loop": counts_in_a_loop}[kind]


@pytest.mark.parametrize("kind", ["traces", "cannot-trace", "loop"])
def test_a_function_writing_into_its_closure_array_runs_as_written(kind):
    ours, theirs = numpy.zeros(1, numpy.int64), numpy.zeros(1, numpy.int64)
    f = npjax.autojit(_make_counter(ours, kind))
    g = _make_counter(theirs, kind)
    x = numpy.arange(3.0)
    for _ in range(CALLS):
        assert_same(f(npjax.asarray(x)), g(x))
        numpy.testing.assert_array_equal(ours, theirs)
    assert ours[0] == CALLS * (40 if kind == "loop" else 1)
    assert ours.flags.writeable
    assert _auto()["compiled"] == []
    assert _reasons() == {f.__name__: "writes into the array count it reads from a global or "
                                      "closure variable"}
    assert f.signatures()[0]["state"] == "as written"


BIG = numpy.ones(_autojit_check.CONST_BYTES // 8 + 1)
SMALL = numpy.ones(4)
OBJECTS = numpy.array([1, "a"], dtype=object)


def adds_big(x):
    return x + BIG[:3]


def adds_objects(x):
    return x + OBJECTS[0]


def adds_small(x):
    return x + SMALL[:3]


def test_large_and_object_arrays_are_refused_small_ones_compiled():
    x = npjax.asarray(numpy.arange(3.0))
    for fn in (adds_big, adds_objects, adds_small):
        f = npjax.autojit(fn)
        for _ in range(CALLS):
            assert_same(f(x), fn(numpy.arange(3.0)))
    assert _reasons() == {
        name: f"reads the array {array} (over {_autojit_check.CONST_BYTES} bytes or not of "
              "numbers: a compiled function would keep its value)"
        for name, array in (("adds_big", "BIG"), ("adds_objects", "OBJECTS"))}
    assert [e["function"] for e in _auto()["compiled"]] == ["adds_small"]


def quiet_with_numpy(x):
    with numpy.errstate(divide="ignore"):  # NumPy's error state is npjax's
        return x / 0.0 + numpy.pi


def draws_with_numpy(x):
    return x + numpy.random.rand(3)


def test_numpys_module_is_allowed_but_not_its_random_draws():
    x = npjax.asarray(numpy.arange(1.0, 4.0))
    f = npjax.autojit(quiet_with_numpy)
    for _ in range(CALLS):
        assert_same(f(x), quiet_with_numpy(numpy.arange(1.0, 4.0)))
    assert [e["function"] for e in _auto()["compiled"]] == ["quiet_with_numpy"]
    with pytest.raises(_autojit_check.Refused, match="draws random numbers"):
        _autojit_check.check(draws_with_numpy)


def _make_op_user(op):
    def applies(x, k=operator.neg, scale=SMALL, part=slice(0, 3)):
        return k(op(x, 2.0)) * scale[part]

    return applies


def test_operators_functions_and_default_values_are_compiled_and_guarded():
    ours = _make_op_user(operator.mul)
    f, g = npjax.autojit(ours), _make_op_user(operator.mul)
    x = numpy.arange(3.0)
    for _ in range(CALLS):
        assert_same(f(npjax.asarray(x)), g(x))
    assert [e["signatures"] for e in _auto()["compiled"]] == [1]
    for fn in (ours, g):  # new default values: compiled anew
        fn.__defaults__ = (operator.pos, numpy.full(4, 3.0), slice(1, 4))
    for _ in range(CALLS):
        assert_same(f(npjax.asarray(x)), g(x))
    assert [e["signatures"] for e in _auto()["compiled"]] == [2]
    assert _auto()["refused"] == []
