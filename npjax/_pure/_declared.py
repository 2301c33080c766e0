"""One ``Declaration`` per public callable of npjax's own: what its door does and what the
registry says of it, made once at import and attached to the callable as ``spec``.

``npfunc`` makes one for each of its functions (the parameter tags, ``out=``, lazy, the host
route...) and builds the door from it; each npjax ``ufunc`` makes one for itself; the
hand-written function declares its own where it is defined (``_route.hand_written``, with
the reason it stays by hand and NumPy's function of its name), and ``_route.host_first``
builds its door from it; ``linalg``'s and ``fft``'s take their module's reason (``_BY_HAND``)
when routed, ``random``'s when ``_registry.declare_by_hand`` declares them.
``_registry.classify`` reads a callable's ``spec`` for its row; ``tests/test_declared.py``
checks that every native public function carries one and that its row says what it says.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from npjax._pure._facts import NOT_LAZY, NOT_TRACEABLE, VIEWS


class Param(NamedTuple):
    """One tagged parameter of an ``npfunc`` body."""
    position: int | None  # its index, None when keyword-only
    name: str
    tag: Any  # the ``_dispatch.Tag`` or ``Unsupported`` of its annotation
    star: bool = False  # ``*args``: the tag converts every argument from ``position`` on


class Declaration(NamedTuple):
    """How npjax provides one public callable (its door) and the facts its registry row
    states (``status``, ``reason``, ``kind``, ``view``, ``lazy``, ``trace``)."""
    module: str  # NumPy's module of the name: "numpy", "numpy.linalg"...
    name: str  # the public name (a ufunc's canonical one)
    door: str  # "npfunc", "ufunc" or "hand-written"
    kind: str  # "function" or "ufunc"
    lazy: bool | None  # lazy mode records its work; None: the door does not decide it
    view: str  # ``_facts.VIEWS``: "always", "may" or ""
    trace: str  # ``_facts.NOT_TRACEABLE``: why it cannot trace under npjax.jit, or ""
    by_hand: str = ""  # why a hand-written function is not an ``npfunc``
    params: tuple[Param, ...] = ()  # npfunc: its tagged parameters, in order
    scalar: bool = False  # npfunc: 0-d results are NumPy-style scalars
    numpy_fn: Any = None  # npfunc: run on the host when the body raises NpjaxUnsupported
    out_casting: str = "unsafe"  # npfunc: the casting rule of its ``out=``
    host_route: bool = False  # npfunc: HostOnly from the body runs as the host route does
    host_fn: Any = None  # NumPy's function of this name, which runs host operands
    status: str = "native"
    reason: str = ""


def key(module: str, name: str) -> str:
    """The fact tables' key of a name: bare for ``numpy``, ``"linalg.inv"`` for submodules."""
    return name if module == "numpy" else f"{module[6:]}.{name}"


def declare(module: str, name: str, door: str, *, lazy: bool | None = None,
            **fields: Any) -> Declaration:
    """The declaration of ``module.name`` made by ``door``, the facts read from ``_facts``."""
    qualified = key(module, name)
    if door == "npfunc":
        lazy = name not in NOT_LAZY
    return Declaration(module, name, door, "ufunc" if door == "ufunc" else "function", lazy,
                       VIEWS.get(qualified, ""), NOT_TRACEABLE.get(qualified, ""), **fields)


# Reasons shared by several hand-written functions, named by ``_route.hand_written`` where
# each is defined (benchmarks/results/issue33_doors.md says why each stays by hand).
QUESTION = ("a host-side question (dtypes, shapes, layouts; the answer is a Python value or "
            "a NumPy dtype): no array data computed")
CREATION = ("creation or conversion with its own placement, device and view rules (an "
            "operand given back, a view kept by flags, device=/like= read in the body)")
FOREIGN = "reads a foreign buffer or iterator (the result views host memory on the host route)"
OWN_VIEWS = "gives views of its operands (read-only broadcast views, a diagonal view)"
OWN_ROUTE = "not routed by NumPy's name (_route._NOT_ROUTED): it routes its operands itself"
