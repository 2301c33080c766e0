"""Issue 33's one declaration per public callable (``npjax/_pure/_declared.py``): every native
public function and ufunc carries its ``Declaration`` as ``spec``, made with its door
(``npfunc``, the ``ufunc`` class, ``_route.hand_written`` where a hand-written function is
defined, ``_route.route_namespace`` for ``linalg``'s and ``fft``'s, ``_registry.declare_by_hand``
for ``random``'s), and its registry row says exactly what the declaration says; a hand-written
function's door (``_route.host_first``) is made from its declaration."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import npjax
from npjax._calls import _registry
from npjax._calls._dispatch import FUNCTIONS, ArrayIn, Out, Unsupported, npfunc
from npjax._placement import _route
from npjax._pure._declared import Declaration, key
from npjax._pure._facts import NOT_LAZY, NOT_TRACEABLE, VIEWS
from tests._parity import DEVICE_FLOAT

# The hand-written functions of ``npjax`` behind ``host_first`` (each declares its reason
# where it is defined, ``_route.hand_written``), and those with a route of their own.
HAND_WRITTEN = ("result_type", "can_cast", "min_scalar_type", "isscalar", "broadcast_shapes",
                "shares_memory", "may_share_memory", "ndim", "shape", "size", "arange", "copy",
                "astype", "require", "ascontiguousarray", "asfortranarray",
                "asarray_chkfinite", "frombuffer", "fromiter", "fromstring", "from_dlpack",
                "meshgrid", "ix_", "diag", "row_stack")
OWN_ROUTE = ("array", "asarray", "asanyarray", "frompyfunc", "fromfunction",
             "apply_along_axis", "apply_over_axes", "piecewise")


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
    hand = {*HAND_WRITTEN, *OWN_ROUTE} - {n for n in HAND_WRITTEN if not hasattr(np, n)}
    assert hand <= doors["hand-written"], hand - doors["hand-written"]
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
    target = npjax.zeros(3, DEVICE_FLOAT)  # (a device array also where float64 is not one)
    assert probe(npjax.arange(3.0, dtype=DEVICE_FLOAT), target) is target
    np.testing.assert_array_equal(np.asarray(target), np.arange(3.0, dtype=DEVICE_FLOAT) + 1)
    with pytest.raises(NotImplementedError):
        probe(npjax.arange(3.0, dtype=DEVICE_FLOAT), order="C")
    FUNCTIONS.pop("declared_probe", None)


def _host_first_functions() -> list[tuple[str, str, Any]]:
    """(NumPy's module, name, npjax's function) of every public function behind
    ``host_first`` that is not an ``npfunc``."""
    found = []
    for module in ("numpy", "numpy.linalg", "numpy.fft"):
        for name, obj in sorted(_registry.public_namespace(module).items()):
            if getattr(obj, "host_first", False) and getattr(obj, "host_fast", None) \
                    and getattr(obj, "spec", None) is not None \
                    and obj.spec.door == "hand-written":
                found.append((module, name, obj))
    return found


def test_every_host_first_function_declares_why_it_stays_by_hand():
    found = _host_first_functions()
    assert len(found) >= 74
    names = {(m, n) for m, n, _ in found}
    assert {("numpy", n) for n in HAND_WRITTEN if hasattr(np, n)} <= names
    assert not [f"{m}.{n}" for m, n, obj in found if not obj.spec.by_hand.strip()]
    assert {obj.spec.by_hand for m, _, obj in found if m == "numpy.linalg"} == {
        npjax.linalg._BY_HAND}
    assert {obj.spec.by_hand for m, _, obj in found if m == "numpy.fft"} == {
        npjax.fft._BY_HAND}


def test_a_hand_written_door_is_made_from_its_declaration():
    """What the door runs host operands with (and counts them under) is its declaration's:
    NumPy's function of the name, the public name."""
    for module, name, obj in _host_first_functions():
        numpy_fn = getattr(__import__(module, fromlist=["_"]), name)
        spec = obj.spec
        assert (spec.module, spec.name, spec.host_fn) == (module, name, numpy_fn), name
        assert obj.host_fast[:2] == (spec.name, spec.host_fn), name
        assert spec.lazy is None and spec.kind == "function", name


def test_the_declared_host_function_runs_host_operands():
    calls = []

    @_route.hand_written("a probe of the hand-written door")
    def ndim(a: Any) -> int:
        calls.append(a)
        return -1

    door = _route.public(ndim)
    assert door is not ndim and door.spec is ndim.spec
    assert (door.spec.name, door.spec.host_fn, door.spec.door) == ("ndim", np.ndim,
                                                                   "hand-written")
    with npjax.policy(placement="auto"):  # (also under --npjax-placement=device)
        host = npjax.asarray(np.zeros((2, 3)))
        assert host._host() is not None
        npjax.reset_stats()
        assert door(host) == np.ndim(np.zeros((2, 3))) == 2 and not calls
        assert npjax.stats()["placement"]["host_calls"] == {"ndim": 1}
    with npjax.policy(placement="device"):
        device = npjax.zeros((2, 3), DEVICE_FLOAT)
        assert door(device) == -1 and calls == [device]


def test_functions_with_a_route_of_their_own_are_declared_but_not_routed():
    for name in OWN_ROUTE:
        obj = getattr(npjax, name)
        spec = obj.spec
        assert spec.door == "hand-written" and spec.host_fn is None and spec.by_hand, name
        assert not getattr(obj, "host_first", False), name
