"""A boolean ``axis`` as NumPy takes it: the functions NumPy reads the axis of in C
(``cumsum``, ``argmax``, ``take``, ``concatenate``, ``repeat``, ``argsort``...) raise
TypeError ("an integer is required for the axis"); its Python-level functions (``flip``,
``roll``, ``expand_dims``, ``moveaxis``) take ``True`` as 1. Against NumPy, under the default
placement and with every array on the device (where npjax read ``True`` as 1 everywhere)."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import npjax

A = np.arange(6.0).reshape(2, 3)

CALLS = {
    "argmin": lambda xp, a, ax: xp.argmin(a, axis=ax),
    "argmax": lambda xp, a, ax: xp.argmax(a, axis=ax),
    "a.argmax": lambda xp, a, ax: a.argmax(axis=ax),
    "nanargmax": lambda xp, a, ax: xp.nanargmax(a, axis=ax),
    "nanargmin": lambda xp, a, ax: xp.nanargmin(a, axis=ax),
    "cumsum": lambda xp, a, ax: xp.cumsum(a, axis=ax),
    "a.cumsum": lambda xp, a, ax: a.cumsum(axis=ax),
    "cumprod": lambda xp, a, ax: xp.cumprod(a, axis=ax),
    "nancumsum": lambda xp, a, ax: xp.nancumsum(a, axis=ax),
    "nancumprod": lambda xp, a, ax: xp.nancumprod(a, axis=ax),
    "cumulative_sum": lambda xp, a, ax: xp.cumulative_sum(a, axis=ax),
    "cumulative_prod": lambda xp, a, ax: xp.cumulative_prod(a, axis=ax),
    "take": lambda xp, a, ax: xp.take(a, [0], axis=ax),
    "a.take": lambda xp, a, ax: a.take([0], axis=ax),
    "take, out=": lambda xp, a, ax: xp.take(a, [0], axis=ax, out=xp.zeros((2, 1))),
    "compress": lambda xp, a, ax: xp.compress([True, False], a, axis=ax),
    "concatenate": lambda xp, a, ax: xp.concatenate([a, a], axis=ax),
    "append": lambda xp, a, ax: xp.append(a, a, axis=ax),
    "argsort": lambda xp, a, ax: xp.argsort(a, axis=ax),
    "a.argsort": lambda xp, a, ax: a.argsort(axis=ax),
    "argpartition": lambda xp, a, ax: xp.argpartition(a, 1, axis=ax),
    "repeat": lambda xp, a, ax: xp.repeat(a, 2, axis=ax),
    "a.repeat": lambda xp, a, ax: a.repeat(2, axis=ax),
    "squeeze": lambda xp, a, ax: xp.squeeze(a[None], axis=ax),
    "a.squeeze": lambda xp, a, ax: a[None].squeeze(axis=ax),
    "a.squeeze, a tuple": lambda xp, a, ax: a[None].squeeze(axis=(ax,)),
    # NumPy's Python-level functions: True is axis 1, False axis 0
    "sort": lambda xp, a, ax: xp.sort(a, axis=ax),
    "flip": lambda xp, a, ax: xp.flip(a, axis=ax),
    "roll": lambda xp, a, ax: xp.roll(a, 1, axis=ax),
    "expand_dims": lambda xp, a, ax: xp.expand_dims(a, axis=ax),
    "moveaxis": lambda xp, a, ax: xp.moveaxis(a, ax, 0),
    "stack": lambda xp, a, ax: xp.stack([a, a], axis=ax),
    "split": lambda xp, a, ax: xp.split(a, 1, axis=ax),
    "diff": lambda xp, a, ax: xp.diff(a, axis=ax),
    # reductions: TypeError ("an integer is required")
    "sum": lambda xp, a, ax: xp.sum(a, axis=ax),
    "max": lambda xp, a, ax: xp.max(a, axis=ax),
    "add.reduce": lambda xp, a, ax: xp.add.reduce(a, axis=ax),
    "add.accumulate": lambda xp, a, ax: xp.add.accumulate(a, axis=ax),
    "add.reduceat": lambda xp, a, ax: xp.add.reduceat(a, [0], ax),
    "vecdot": lambda xp, a, ax: xp.vecdot(a, a, axis=ax),
    "a.transpose": lambda xp, a, ax: a.transpose(ax, 0),
    "take_along_axis": lambda xp, a, ax: xp.take_along_axis(a, xp.zeros((2, 1), int), axis=ax),
}


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fn()
    except Exception as exc:
        return type(exc), str(exc)
    return "value", np.asarray(got).tolist() if not isinstance(got, list) else [
        np.asarray(g).tolist() for g in got]


@pytest.mark.parametrize("placement", ("auto", "device"))
@pytest.mark.parametrize("axis", [True, False, np.True_], ids=["True", "False", "np.True_"])
@pytest.mark.parametrize("name", list(CALLS))
def test_boolean_axis(name, axis, placement):
    call = CALLS[name]
    want = _outcome(lambda: call(np, A.copy(), axis))
    with npjax.policy(placement="device") if placement == "device" else \
            contextlib.nullcontext():
        got = _outcome(lambda: call(npjax, npjax.asarray(A), axis))
    if want[0] == "value" or "integer" in want[1] and "required" in want[1]:
        assert got == want  # values, or the exception and NumPy's message
    else:  # np.True_ in a Python-level function: NumPy's class (its message is accidental:
        assert got[0] is want[0]  # "'numpy.bool' object is not iterable")
