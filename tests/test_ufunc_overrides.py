"""Other libraries' objects in NumPy's ufunc protocol (NEP 13) meeting npjax arrays, against
the same calls with NumPy arrays, under the default placement and with every array on the
device: an object whose class defines ``__array_ufunc__`` decides the ufunc (pandas' Series,
xarray's DataArray: ``np.exp(series)`` is a Series), and one that sets it to None takes
over the binary operators (``NotImplemented``, then its reflected method) and refuses ufuncs.
(pandas itself: tests/test_third_party.py.)"""

from __future__ import annotations

import contextlib
import numbers

import numpy as np
import pytest

import npjax

PLACEMENTS = ("auto", "device")
A = np.array([0.5, -1.0, 2.0])
B = np.array([1.5, 2.0, -0.25])


def _under(placement: str):
    return npjax.policy(placement="device") if placement == "device" else \
        contextlib.nullcontext()


class Boxed:
    """A container in the ufunc protocol, strict as pandas is: it computes with NumPy arrays
    and numbers only and leaves any other operand (an npjax array) to the others."""

    def __init__(self, values):
        self.values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self.values

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if kwargs.get("out"):
            return NotImplemented
        values = [i.values if isinstance(i, Boxed) else i for i in inputs]
        if not all(isinstance(v, np.ndarray | numbers.Number) for v in values):
            return NotImplemented
        return Boxed(getattr(ufunc, method)(*values, **kwargs))


class Refusing:
    """A class that takes over NumPy's binary operators (``__array_ufunc__ = None``)."""

    __array_ufunc__ = None

    def __array__(self, dtype=None, copy=None):
        return np.ones(3)

    def __radd__(self, other):
        return "radd"

    def __rmul__(self, other):
        return "rmul"

    def __rlt__(self, other):
        return "rlt"

    def __gt__(self, other):
        return "gt"  # ``a < r`` reflects to ``r > a``


BOXED_CALLS = {
    "exp": lambda xp, a, b: xp.exp(Boxed(b)),
    "add": lambda xp, a, b: xp.add(a, Boxed(b)),
    "arctan2 (no operator of its own)": lambda xp, a, b: xp.arctan2(a, Boxed(b)),
    "a + boxed": lambda xp, a, b: a + Boxed(b),
    "boxed + a": lambda xp, a, b: Boxed(b) + a,
    "a < boxed": lambda xp, a, b: a < Boxed(b),
    "a ** boxed": lambda xp, a, b: a ** Boxed(b),
    "add.reduce": lambda xp, a, b: xp.add.reduce(Boxed(b)),
    "maximum.accumulate": lambda xp, a, b: xp.maximum.accumulate(Boxed(b)),
    "multiply.outer": lambda xp, a, b: xp.multiply.outer(Boxed(a), Boxed(b)),
    "divmod": lambda xp, a, b: xp.divmod(a, Boxed(b)),
}


def _outcome(fn):
    try:
        got = fn()
    except Exception as exc:  # the exception class and message are compared
        # (Python's own "unsupported operand type(s)" names the class: npjax's is ndarray)
        return type(exc), str(exc).replace("'numpy.ndarray'", "'ndarray'")
    if isinstance(got, tuple):
        return tuple(_value(g) for g in got)
    return _value(got)


def _value(got):
    if isinstance(got, Boxed):
        return "Boxed", got.values.dtype, got.values.tolist()
    return type(got).__name__, got


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(BOXED_CALLS))
def test_an_object_with_array_ufunc_decides(name, placement):
    call = BOXED_CALLS[name]
    want = _outcome(lambda: call(np, A, B))
    assert want[0] == "Boxed" or isinstance(want[0], tuple)
    with _under(placement):
        got = _outcome(lambda: call(npjax, npjax.asarray(A), npjax.asarray(B)))
    assert got == want


REFUSING_CALLS = {
    "a + r": lambda xp, a: a + Refusing(),
    "a * r": lambda xp, a: a * Refusing(),
    "a < r": lambda xp, a: a < Refusing(),
    "a - r (no reflected method)": lambda xp, a: a - Refusing(),
    "a == r": lambda xp, a: a == Refusing(),
    "add(a, r)": lambda xp, a: xp.add(a, Refusing()),
    "exp(r)": lambda xp, a: xp.exp(Refusing()),
    "a += r": lambda xp, a: a.__iadd__(Refusing()),
    "add.reduce(r)": lambda xp, a: xp.add.reduce(Refusing()),
}


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(REFUSING_CALLS))
def test_an_object_with_array_ufunc_none_takes_the_operators(name, placement):
    call = REFUSING_CALLS[name]
    want = _outcome(lambda: call(np, A.copy()))
    with _under(placement):
        got = _outcome(lambda: call(npjax, npjax.asarray(A)))
    assert got == want


class Outranking:
    """An operand in NumPy's older protocol, as scipy.sparse's arrays are: no
    ``__array_ufunc__``, a higher ``__array_priority__`` and operators of its own that act on
    the NumPy arrays they recognise (``isinstance``)."""

    __array_priority__ = 10.1

    def _apply(self, other, fn):
        if isinstance(other, np.ndarray):
            return ("Outranking", fn(other).tolist())
        return NotImplemented

    def __add__(self, other):
        return self._apply(other, lambda v: v + 10)

    __radd__ = __add__

    def __rmatmul__(self, other):
        return self._apply(other, lambda v: v.sum(axis=-1))

    def __lt__(self, other):
        return self._apply(other, lambda v: v > 1)

    def __gt__(self, other):
        return self._apply(other, lambda v: v < 1)


OUTRANKING_CALLS = {
    "a + o": lambda a, o: a + o,
    "o + a": lambda a, o: o + a,
    "a @ o": lambda a, o: a @ o,
    "a < o": lambda a, o: a < o,
    "a > o": lambda a, o: a > o,
    "a * o (no operator of its own)": lambda a, o: a * o,
    "a += o": lambda a, o: _iadd(a, o),
}


def _iadd(a, o):
    a += o
    return a


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(OUTRANKING_CALLS))
def test_an_object_of_higher_priority_takes_the_operators(name, placement):
    call = OUTRANKING_CALLS[name]
    want = _outcome(lambda: call(A.copy(), Outranking()))
    with _under(placement):
        got = _outcome(lambda: call(npjax.asarray(A), Outranking()))
    if "no operator" in name:  # NumPy's object loop raises for the element: "'float' and"
        assert got[0] is want[0] is TypeError
    else:
        assert got == want


SPARSE_CALLS = {
    "x @ sparse": lambda x, s: x @ s,
    "x + sparse": lambda x, s: x + s,
    "sparse + x": lambda x, s: s + x,
    "x - sparse": lambda x, s: x - s,
    "sparse @ x.T": lambda x, s: s @ x.T,
    "x == sparse": lambda x, s: x == s,
    "x += sparse": lambda x, s: _iadd(x, s),
}


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("kind", ["csr_array", "csr_matrix"])
@pytest.mark.parametrize("name", list(SPARSE_CALLS))
def test_scipy_sparse_operators(name, kind, placement):
    sparse = pytest.importorskip("scipy.sparse")
    s = getattr(sparse, kind)(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    dense = np.arange(6.0).reshape(2, 3)
    if name == "x @ sparse":
        dense, s = dense.T, s.T
    call = SPARSE_CALLS[name]

    def outcome(x):
        try:
            got = call(x, s)
        except Exception as exc:
            return type(exc), str(exc)
        if sparse.issparse(got):
            return type(got), got.toarray().tolist()
        return np.asarray(got).dtype, np.asarray(got).tolist()

    want = outcome(dense.copy())
    with _under(placement):
        got = outcome(npjax.asarray(dense))
    assert got == want


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_npjax_arrays_compute_as_before(placement):
    """Operands that are no such objects (lists, NumPy arrays and scalars, objects with
    ``__array__`` alone) still compute with npjax: results are npjax arrays."""

    class Plain:
        def __array__(self, dtype=None, copy=None):
            return B

    with _under(placement):
        a = npjax.asarray(A)
        for got in (a + [1.0, 2.0, 3.0], a + B, npjax.add(a, np.float64(2.0)), a + Plain(),
                    npjax.exp(Plain())):
            assert isinstance(got, npjax.ndarray)
