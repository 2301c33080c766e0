"""Issue 33's one declaration per public callable (``npjax/_pure/_declared.py``): every native
public function and ufunc carries its ``Declaration`` as ``spec``, made with its door
(``npfunc``, the ``ufunc`` class, ``_registry.declare_by_hand``), and its registry row says
exactly what the declaration says."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import npjax
from npjax._calls import _registry
from npjax._pure._declared import BY_HAND, Declaration, key
from npjax._calls._dispatch import FUNCTIONS, ArrayIn, Out, Unsupported, npfunc
from npjax._pure._facts import NOT_LAZY, NOT_TRACEABLE, VIEWS


def _declared_rows() -> list[tuple[Any, Any]]:
    """(row, npjax's object) of every native function and ufunc of NumPy's namespaces."""
    return [(r, _registry.public_namespace(r.module)[r.name]) for r in _registry.records()
            if r.status == "native" and r.kind in ("function", "ufunc")]


def test_every_native_callable_carries_its_declaration():
    rows = _declared_rows()
    assert len(rows) > 400
    missing = [f"{r.module}.{r.name}" for r, obj in rows
               if not isinstance(getattr(obj, "spec", None), Declaration)]
    assert not missing, missing


def test_the_registry_row_is_the_declaration():
    for row, obj in _declared_rows():
        spec = obj.spec
        assert (row.status, row.reason, row.kind, row.view, row.lazy, row.trace) == (
            spec.status, spec.reason, spec.kind, spec.view, spec.lazy, spec.trace), row
        assert spec.module == row.module, row
        assert spec.name == (obj.__name__ if spec.kind == "ufunc" else row.name), row


def test_the_declarations_state_the_fact_tables():
    """Each declaration's facts are the tables' (``_facts``), keyed by its own name."""
    for _, obj in _declared_rows():
        spec = obj.spec
        qualified = key(spec.module, spec.name)
        assert spec.view == VIEWS.get(qualified, ""), qualified
        assert spec.trace == NOT_TRACEABLE.get(qualified, ""), qualified
        expected_lazy = {"npfunc": spec.name not in NOT_LAZY, "ufunc": True,
                         "hand-written": None}[spec.door]
        assert spec.lazy is expected_lazy, qualified


def test_doors_by_kind():
    """npfunc functions carry the npfunc door's declaration (and its ``lazy``), ufuncs the
    ufunc's, the rest a hand-written one with the reason it stays by hand."""
    doors = {}
    for row, obj in _declared_rows():
        spec = obj.spec
        doors.setdefault(spec.door, set()).add(key(row.module, row.name))
        if spec.door == "npfunc":
            assert spec.name in FUNCTIONS
            assert obj.lazy is spec.lazy
            assert spec.host_fn is getattr(np, spec.name, None)
        elif spec.door == "ufunc":
            assert isinstance(obj, npjax.ufunc) and spec.kind == "ufunc"
        else:
            assert spec.door == "hand-written" and spec.by_hand, row
            assert not hasattr(obj, "lazy"), row
    assert len(doors["npfunc"]) > 200 and len(doors["ufunc"]) > 100
    assert set(BY_HAND) <= doors["hand-written"], set(BY_HAND) - doors["hand-written"]
    assert {"arange", "result_type", "linalg.inv", "fft.fft"} <= doors["hand-written"]


def test_every_npfunc_function_is_declared():
    assert all(isinstance(f.spec, Declaration) and f.spec.door == "npfunc"
               for f in FUNCTIONS.values())


def test_the_door_is_made_from_its_declaration():
    """The declaration lists the tagged parameters as the door uses them: the positional
    ``out`` is taken from the arguments, a non-default ``Unsupported`` value is refused."""

    @npfunc(name="declared_probe", scalar=True)
    def probe(a: ArrayIn, out: Out = None, *, order: Unsupported("K") = "K") -> Any:
        return a + 1

    spec = probe.spec
    assert [(p.position, p.name) for p in spec.params] == [(0, "a"), (1, "out"),
                                                           (None, "order")]
    assert spec.scalar and spec.door == "npfunc" and spec.lazy and spec.host_fn is None
    target = npjax.zeros(3)
    assert probe(npjax.arange(3.0), target) is target
    np.testing.assert_array_equal(np.asarray(target), np.arange(3.0) + 1)
    with pytest.raises(NotImplementedError):
        probe(npjax.arange(3.0), order="C")
    FUNCTIONS.pop("declared_probe", None)
