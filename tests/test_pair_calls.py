"""The commonest device call of a two-operand ufunc (``_calls/_pair_calls.py``): computed
device arrays and Python floats, ``npjax.add(a, b)``, ``a + b``, ``1.5 - a``, ``a < b``,
against NumPy: values, dtypes, exceptions and warnings under each error state, and under
``npjax.jit`` for arrays a function closes over. Each case runs twice: the first call finds
the loop (the general path), the second takes the pair path."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import npjax
from npjax._execution._lazy import Kernel
from tests._parity import assert_same, family

pytestmark = [pytest.mark.device_placement, pytest.mark.eager_only]

BIG = {"float64": 1e308, "float32": 3e38}  # their sums and products overflow


def _operands(xp, case):
    kind_a, kind_b, shapes = case
    out = []
    for kind, shape, scale in ((kind_a, shapes[0], 1.0), (kind_b, shapes[1], 2.0)):
        if kind == "float":
            out.append(scale * 1.25)
        else:
            data = np.linspace(-2.0, 3.0, int(np.prod(shape))).reshape(shape) * scale
            data = data.astype(kind)
            if data.size:
                data.flat[0] = BIG[kind]
                data.flat[-1] = 0.0  # a division by zero, and 0/0
            out.append(xp.asarray(data))
    return out


CASES = [(a, b, shapes)
         for a, b in [("float64", "float64"), ("float32", "float32"), ("float32", "float64"),
                      ("float64", "float"), ("float", "float32")]
         for shapes in [((4,), (4,)), ((2, 4), (4,)), ((), ()), ((4,), (5,))]]

CALLS = {
    "npjax.add": lambda xp, a, b: xp.add(a, b),
    "true_divide": lambda xp, a, b: xp.true_divide(a, b),
    "a + b": lambda xp, a, b: a + b,
    "a * b": lambda xp, a, b: a * b,
    "a / b": lambda xp, a, b: a / b,
    "a - b": lambda xp, a, b: a - b,
    "a < b": lambda xp, a, b: a < b,
    "a == b": lambda xp, a, b: a == b,
    "a ** b": lambda xp, a, b: a ** b,
}


def _run(xp, call, case, state):
    """``call`` on the case's operands under NumPy's error state ``state``: its result or
    exception class, and the warnings' messages."""
    a, b = _operands(xp, case)
    with warnings.catch_warnings(record=True) as got, np.errstate(all=state):
        warnings.simplefilter("always")
        try:
            result = CALLS[call](xp, a, b)
        except Exception as exc:  # the exception's family is compared
            result = exc
    return result, sorted(str(w.message) for w in got)


@pytest.mark.parametrize("state", ["ignore", "warn", "raise"])
@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("case", CASES, ids=str)
def test_pair_calls_as_numpy(case, call, state):
    want, want_warned = _run(np, call, case, state)
    for _ in range(2):  # the loop found, then the pair path
        got, warned = _run(npjax, call, case, state)
        if isinstance(want, Exception):
            assert isinstance(got, Exception) and family(got) is family(want), (got, want)
        else:
            assert_same(got, want)
        assert warned == want_warned


def test_pair_path_runs_no_kernel_now(monkeypatch):
    """The second ``a + b`` of device arrays calls the compiled kernel itself (no
    ``Kernel.now``), with the same result as the first."""
    a, b = npjax.asarray(np.arange(3.0)), npjax.asarray(np.ones(3))

    def calls():
        return a + b, npjax.add(a, b), 1.5 - a, a < b

    first = calls()  # the loops found
    ran = []
    real = Kernel.now
    monkeypatch.setattr(Kernel, "now", lambda self, args: ran.append(self) or real(self, args))
    second = calls()
    assert not ran
    for got, want in zip(second, first):
        assert type(got) is npjax.ndarray
        assert_same(got, np.asarray(want))


def test_pair_calls_traced():
    """Arrays a jitted function closes over: the kernel's traced results are finished as
    ``Kernel.now`` finishes them; overflow in a traced call is NumPy's warning."""
    a = npjax.asarray(np.array([1.0, 2.0, 1e308]))
    b = npjax.asarray(np.array([3.0, 0.5, 1e308]))
    with np.errstate(all="ignore"):
        eager = a * b + a  # (the loops found)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        traced = npjax.jit(lambda: a * b + a)()
    assert_same(traced, np.asarray(eager))
    x, y = np.array([1.0, 2.0, 1e308]), np.array([3.0, 0.5, 1e308])
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        assert_same(traced, x * y + x)
    assert sorted(str(w.message) for w in got) == sorted(str(w.message) for w in want)
