"""One ``Declaration`` per public callable of npjax's own: what its door does and what the
registry says of it, made once at import and attached to the callable as ``spec``.

``npfunc`` makes one for each of its functions (the parameter tags, ``out=``, lazy, the host
route...) and builds the door from it; each npjax ``ufunc`` makes one for itself; the
hand-written functions behind ``_route.host_first`` (and the few public functions with a
door of their own) get one from ``declare_by_hand``, with the reason they stay by hand.
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


_QUESTION = ("a host-side question (dtypes, shapes, layouts; the answer is a Python value or "
             "a NumPy dtype): no array data computed")
_CREATION = ("creation or conversion with its own placement, device and view rules (an "
             "operand given back, a view kept by flags, device=/like= read in the body)")
_FOREIGN = "reads a foreign buffer or iterator (the result views host memory on the host route)"
_VIEWS = "gives views of its operands (read-only broadcast views, a diagonal view)"
_OWN_ROUTE = "not routed by NumPy's name (_route._NOT_ROUTED): it routes its operands itself"

# Why each hand-written public function stays by hand (benchmarks/results/issue33_doors.md);
# a name not here takes its module's reason (``BY_HAND_MODULES``).
BY_HAND = {
    **dict.fromkeys(("result_type", "can_cast", "min_scalar_type", "isscalar",
                     "broadcast_shapes", "shares_memory", "may_share_memory"), _QUESTION),
    **dict.fromkeys(("ndim", "shape", "size"), _QUESTION + "; host-quiet NumPy calls on the "
                    "host route, ~1 us on device arrays, where a door's conversion would cost "
                    "most"),
    "arange": _CREATION + "; long ranges on the device, others by NumPy",
    **dict.fromkeys(("copy", "astype", "require", "ascontiguousarray", "asfortranarray",
                     "asarray_chkfinite"), _CREATION),
    **dict.fromkeys(("frombuffer", "fromiter", "fromstring"), _FOREIGN),
    "from_dlpack": _FOREIGN + "; device='cpu' imports to the host",
    **dict.fromkeys(("meshgrid", "ix_", "diag"), _VIEWS),
    "row_stack": "NumPy's DeprecationWarning, then vstack",
    **dict.fromkeys(("array", "asarray", "asanyarray"), _OWN_ROUTE + " (the array's "
                    "conversion rules)"),
    "frompyfunc": _OWN_ROUTE + ": gives a ufunc-like object that computes with NumPy",
    **dict.fromkeys(("fromfunction", "apply_along_axis", "apply_over_axes", "piecewise"),
                    _OWN_ROUTE + ": calls the user's function, which calls npjax"),
}
BY_HAND_MODULES = {
    "numpy.linalg": "NumPy's linalg checks (square and stacked matrices, LinAlgError) in its "
                    "own body; not yet moved onto npfunc tags",
    "numpy.fft": "NumPy's fft checks (n, axes, norm) in its own body; not yet moved onto "
                 "npfunc tags",
    "numpy.random": "draws from npjax's random streams (npjax.random), placed by "
                    "_host_draws.route_draws",
}


def by_hand(module: str, name: str) -> Declaration:
    """The declaration of a hand-written public function, with why it stays by hand."""
    why = BY_HAND.get(key(module, name)) or BY_HAND_MODULES.get(module, "")
    return declare(module, name, "hand-written", by_hand=why)
