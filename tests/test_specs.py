"""The specs' facts (``npjax/_pure/_facts.py``) against the oracles: a function declared a view
shares memory with its argument exactly where NumPy's does, writes through it reach the
argument, and a function declared not traceable raises JitError under ``npjax.jit`` and gives
NumPy's answer with ``fallback="eager"``. Each table names exactly the functions called here."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from npjax._calls import _registry, _registry_methods
from npjax._pure import _facts
from tests._parity import assert_same


def _complex(xp, a):
    return a.astype(np.complex128) * (1 + 2j)


# name -> (make the argument from a 4x4 float64 array, call): the result (or its first part)
VIEW_CALLS = {
    "transpose": (None, lambda xp, a: xp.transpose(a)),
    "swapaxes": (None, lambda xp, a: xp.swapaxes(a, 0, 1)),
    "moveaxis": (None, lambda xp, a: xp.moveaxis(a, 0, -1)),
    "rollaxis": (None, lambda xp, a: xp.rollaxis(a, 1)),
    "permute_dims": (None, lambda xp, a: xp.permute_dims(a, (1, 0))),
    "matrix_transpose": (None, lambda xp, a: xp.matrix_transpose(a)),
    "squeeze": (lambda xp, a: a[None], lambda xp, a: xp.squeeze(a)),
    "expand_dims": (None, lambda xp, a: xp.expand_dims(a, 0)),
    "diagonal": (None, lambda xp, a: xp.diagonal(a)),
    "broadcast_to": (None, lambda xp, a: xp.broadcast_to(a, (2, 4, 4))),
    "broadcast_arrays": (None, lambda xp, a: xp.broadcast_arrays(a, a[:1])[0]),
    "atleast_1d": (None, lambda xp, a: xp.atleast_1d(a)),
    "atleast_2d": (None, lambda xp, a: xp.atleast_2d(a)),
    "atleast_3d": (None, lambda xp, a: xp.atleast_3d(a)),
    "flip": (None, lambda xp, a: xp.flip(a)),
    "fliplr": (None, lambda xp, a: xp.fliplr(a)),
    "flipud": (None, lambda xp, a: xp.flipud(a)),
    "rot90": (None, lambda xp, a: xp.rot90(a)),
    "split": (None, lambda xp, a: xp.split(a, 2)[1]),
    "array_split": (None, lambda xp, a: xp.array_split(a, 3)[1]),
    "hsplit": (None, lambda xp, a: xp.hsplit(a, 2)[1]),
    "vsplit": (None, lambda xp, a: xp.vsplit(a, 2)[1]),
    "dsplit": (lambda xp, a: a[..., None], lambda xp, a: xp.dsplit(a, 1)[0]),
    "unstack": (None, lambda xp, a: xp.unstack(a)[1]),
    "trim_zeros": (lambda xp, a: a[0], lambda xp, a: xp.trim_zeros(a)),
    "linalg.matrix_transpose": (None, lambda xp, a: xp.linalg.matrix_transpose(a)),
    "linalg.diagonal": (None, lambda xp, a: xp.linalg.diagonal(a)),
    "lib.stride_tricks.as_strided": (
        None, lambda xp, a: xp.lib.stride_tricks.as_strided(a, (2,), (a.strides[0],))),
    "lib.stride_tricks.sliding_window_view": (
        None, lambda xp, a: xp.lib.stride_tricks.sliding_window_view(a, 2, axis=0)),
    "reshape": (None, lambda xp, a: xp.reshape(a, -1)),
    "ravel": (None, lambda xp, a: xp.ravel(a)),
    "real": (_complex, lambda xp, a: xp.real(a)),
    "imag": (_complex, lambda xp, a: xp.imag(a)),
    "asarray": (None, lambda xp, a: xp.asarray(a)),
    "asanyarray": (None, lambda xp, a: xp.asanyarray(a)),
    "ascontiguousarray": (None, lambda xp, a: xp.ascontiguousarray(a)),
    "asfortranarray": (None, lambda xp, a: xp.asfortranarray(a)),
    "require": (None, lambda xp, a: xp.require(a)),
    "array": (None, lambda xp, a: xp.array(a, copy=None)),
    "ndarray.view": (None, lambda xp, a: a.view()),
    "ndarray.T": (None, lambda xp, a: a.T),
    "ndarray.mT": (None, lambda xp, a: a.mT),
    "ndarray.transpose": (None, lambda xp, a: a.transpose()),
    "ndarray.swapaxes": (None, lambda xp, a: a.swapaxes(0, 1)),
    "ndarray.squeeze": (lambda xp, a: a[None], lambda xp, a: a.squeeze()),
    "ndarray.diagonal": (None, lambda xp, a: a.diagonal()),
    "ndarray.reshape": (None, lambda xp, a: a.reshape(-1)),
    "ndarray.ravel": (None, lambda xp, a: a.ravel()),
    "ndarray.real": (_complex, lambda xp, a: a.real),
    "ndarray.imag": (_complex, lambda xp, a: a.imag),
}

# C-contiguous, and a strided view (where the "may" functions copy)
INPUTS = {"contiguous": lambda xp: xp.arange(1.0, 17.0).reshape(4, 4),
          "strided": lambda xp: xp.arange(1.0, 33.0).reshape(4, 8)[:, ::2]}


def test_the_view_table_is_exactly_the_functions_checked_here():
    assert set(VIEW_CALLS) == set(_facts.VIEWS)


@pytest.mark.parametrize("layout", INPUTS)
@pytest.mark.parametrize("name", sorted(VIEW_CALLS))
def test_views_share_memory_where_numpy_does(name, layout):
    make, call = VIEW_CALLS[name]
    theirs_in, ours_in = INPUTS[layout](np), INPUTS[layout](npjax)
    if make:
        theirs_in, ours_in = make(np, theirs_in), make(npjax, ours_in)
    theirs, ours = call(np, theirs_in), call(npjax, ours_in)
    assert_same(ours, theirs)
    shared = np.shares_memory(theirs, theirs_in)
    if _facts.VIEWS[name] == "always":
        assert shared, f"NumPy's {name} is not a view: the table is wrong"
    assert npjax.shares_memory(ours, ours_in) == shared
    if shared and theirs.flags.writeable and theirs.size:
        theirs.reshape(-1)[0] = ours.reshape(-1)[0] = -5.0
        assert_same(ours_in, theirs_in)  # the write reached the argument, as in NumPy


# name -> a call of traced arguments x (float64, 6), i (int64, 6), m (bool, 6)
TRACE_CALLS = {
    "nonzero": lambda xp, x, i, m: xp.nonzero(x),
    "argwhere": lambda xp, x, i, m: xp.argwhere(x),
    "flatnonzero": lambda xp, x, i, m: xp.flatnonzero(x),
    "unique": lambda xp, x, i, m: xp.unique(x),
    "unique_all": lambda xp, x, i, m: tuple(xp.unique_all(x)),
    "unique_counts": lambda xp, x, i, m: tuple(xp.unique_counts(x)),
    "unique_inverse": lambda xp, x, i, m: tuple(xp.unique_inverse(x)),
    "unique_values": lambda xp, x, i, m: xp.unique_values(x),
    "intersect1d": lambda xp, x, i, m: xp.intersect1d(x, i),
    "union1d": lambda xp, x, i, m: xp.union1d(x, i),
    "setdiff1d": lambda xp, x, i, m: xp.setdiff1d(x, i),
    "setxor1d": lambda xp, x, i, m: xp.setxor1d(x, i),
    "compress": lambda xp, x, i, m: xp.compress(m, x),
    "extract": lambda xp, x, i, m: xp.extract(m, x),
    "trim_zeros": lambda xp, x, i, m: xp.trim_zeros(x),
    "repeat": lambda xp, x, i, m: xp.repeat(x, i),
    "delete": lambda xp, x, i, m: xp.delete(x, i),
    "insert": lambda xp, x, i, m: xp.insert(x, i, 1.0),
    "piecewise": lambda xp, x, i, m: xp.piecewise(x, [m], [lambda v: v * 2, 0.5]),
    "bincount": lambda xp, x, i, m: xp.bincount(i),
    "roots": lambda xp, x, i, m: xp.roots(x),
    "histogram2d": lambda xp, x, i, m: xp.histogram2d(x, x),
    "histogramdd": lambda xp, x, i, m: xp.histogramdd(x[:, None]),
    "digitize": lambda xp, x, i, m: xp.digitize(x, xp.cumsum(i)),
    "take": lambda xp, x, i, m: xp.take(x, i),
    "put": lambda xp, x, i, m: (xp.put(x, i, 7.0), x)[1],
    "choose": lambda xp, x, i, m: xp.choose(i % 2, (x, -x)),
    "array_equal": lambda xp, x, i, m: xp.array_equal(x, i),
    "allclose": lambda xp, x, i, m: xp.allclose(x, i),
    "polyfit": lambda xp, x, i, m: xp.polyfit(i, x, 2),
}
X, I, M = (np.array([3.0, 0.0, 1.0, 0.0, 2.0, 2.0]), np.array([0, 2, 1, 1, 5, 3]),
           np.array([True, False, True, False, True, True]))


def test_the_trace_table_is_exactly_the_functions_checked_here():
    assert set(TRACE_CALLS) == set(_facts.NOT_TRACEABLE)


@pytest.mark.parametrize("name", sorted(TRACE_CALLS))
def test_declared_not_traceable_raises_jit_error_and_runs_eagerly(name):
    call = TRACE_CALLS[name]

    def body(x, i, m):
        return call(npjax, x, i, m)

    args = [npjax.asarray(a.copy()) for a in (X, I, M)]
    with pytest.raises(npjax.JitError):
        npjax.jit(body)(*args)
    want = call(np, X.copy(), I.copy(), M.copy())
    assert_same(npjax.jit(body, fallback="eager")(*args), want)


def test_specs_carry_their_facts():
    specs = {(s.module, s.name): s for s in _registry.records()}
    for key, view in _facts.VIEWS.items():
        if key.startswith("ndarray."):
            continue
        module, _, name = ("numpy." + key).rpartition(".")
        assert specs[(module, name)].view == view and specs[(module, name)].status == "native"
    for key, why in _facts.NOT_TRACEABLE.items():
        assert specs[("numpy", key)].trace == why
    assert specs[("numpy", "add")].kind == "ufunc" and specs[("numpy", "add")].lazy is True
    assert specs[("numpy", "sort")].lazy is False and specs[("numpy", "sum")].lazy is True
    assert {s.kind for s in specs.values()} <= {"function", "ufunc", "class", "module",
                                                "constant"}
    methods = {s.name: s for s in _registry_methods.records()}
    assert methods["T"].kind == "property" and methods["T"].view == "always"
    assert methods["__add__"].kind == "dunder" and methods["sum"].kind == "method"
