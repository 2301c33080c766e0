"""Every native function accepts every parameter of its NumPy counterpart (by name), so a NumPy
call never dies on an unexpected keyword; parameters npjax does not support are declared
(``Unsupported(default)``) and raise NotImplementedError naming themselves when given."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

import npjax
from npjax._calls import _registry

SKIP_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _signature(fn):
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins without text signatures
        return None


def _native_functions():
    for r in _registry.records():
        if r.status != "native":
            continue
        theirs = getattr(importlib.import_module(r.module), r.name)
        ours = getattr(importlib.import_module("npjax" + r.module[5:]), r.name)
        if isinstance(theirs, type | np.ufunc) or not callable(theirs):
            continue
        yield f"{r.module}.{r.name}", theirs, ours


def test_every_numpy_parameter_is_accepted():
    problems, checked = [], 0
    for name, theirs, ours in _native_functions():
        expected = _signature(theirs)
        if expected is None:
            continue
        got = _signature(ours)
        assert got is not None, f"{name}: npjax's function has no signature"
        checked += 1
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in got.values()):
            continue
        lacking = [p for p, v in expected.items() if v.kind not in SKIP_KINDS and p not in got]
        if lacking:
            problems.append(f"{name}: {lacking}")
    assert checked > 150
    assert problems == []


def test_ufuncs_accept_numpy_keywords():
    x = npjax.asarray([1.0, 2.0])
    for name, kw in (("add", {"where": True, "casting": "same_kind", "order": "K",
                              "dtype": None, "subok": True}),):
        assert getattr(npjax, name)(x, x, **kw).tolist() == [2.0, 4.0]


@pytest.mark.parametrize("call", [
    lambda: npjax.asarray([1.0], like=np.zeros(1)),
    lambda: npjax.zeros(2, like=np.zeros(1)),
])
def test_unsupported_parameters_raise_naming_themselves(call):
    with pytest.raises(NotImplementedError, match="parameter .like."):
        call()
