"""The host route's commonest operations in C, when ``_hostpath.c`` is built (issue 37).

``enable()`` (called once by ``npjax/__init__.py``, after every member is installed and routed)
hands the C base class ``_hostpath.ArrayBase`` ndarray's layout and the Python members it takes
over (``a + b``, ``-``, ``*``, ``/``, ``@``, ``&``, ``|``, ``^``, reflected and in place;
``a[index]``, ``a[index] = v``), then removes those members from ``ndarray`` so that its type
slots are the C ones (and its deallocation the C module's, which keeps a few freed arrays to
build results from). The C slots run the common case (host arrays and numbers; indexes of ints,
slices and arrays; numbers written without a cast that could warn) and call the Python member
for everything else, so the Python members stay the one definition of these operations, and the
pure-Python build (no compiler, or ``NPJAX_PURE_PYTHON=1``) runs them all. With no Python frame
between the user's line and NumPy, NumPy's warnings name the user's line without the error-state
switch the Python path needs (``_numpy_calls.run_loops``); called from npjax's own code, the C
slots run the Python member.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from npjax._runtime import _context, _deferred_checks, _stats
from npjax._placement import _element_access, _host_paths, _route
from npjax._core._array_base import HOSTPATH
from npjax._core._ndarray import ndarray

# The members the C slots take over (a binary slot serves ``__op__`` and ``__rop__``; the
# comparison slot all six comparisons).
OPERATORS = ("add", "sub", "mul", "truediv", "matmul", "and", "or", "xor")
COMPARISONS = ("__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__")
UNARY = ("__neg__", "__pos__", "__abs__", "__invert__")
COUNTED = tuple(f"__{p}{op}__" for op in OPERATORS for p in ("", "r", "i")) + COMPARISONS + UNARY
MEMBERS = COUNTED + ("__getitem__", "__setitem__", "__delitem__")

ENABLED = False  # whether the C slots are in place


def _layout_samples() -> list[tuple]:
    """NumPy arrays with what Python says of them, for ``_hostpath.layout_agrees``."""
    owner = np.arange(12.0).reshape(3, 4)
    fixed = np.arange(3, dtype=np.complex64)
    fixed.flags.writeable = False
    samples = [owner, owner[1:], np.zeros((2, 0, 3), np.int8), np.array(True), owner.T, fixed,
               np.zeros(2, np.uint16)]
    return [(a, a.ndim, a.size, a.base, a.dtype, a.flags.writeable, a.dtype.kind)
            for a in samples]


def _elision_facts() -> dict:
    """What the C slots need to elide temporaries as the Python members do
    (``_host_paths._ELIDABLE`` and ``_temporary``): per operator of ``OPERATORS`` the dtype
    kinds of its member and reflected member (None: never), NumPy's byte limit, the opcodes
    that apply an operator, and the references a temporary and its buffer have in a C slot
    (``_temporary`` counts three more: the member's and its own parameters, getrefcount's)."""
    kinds = tuple(tuple("".join(sorted(e[1])) if (e := _host_paths._ELIDABLE.get(name))
                        else None for name in (f"__{op}__", f"__r{op}__"))
                  for op in OPERATORS)
    return {"elide_kinds": kinds, "elide_bytes": _host_paths._ELIDE_BYTES,
            "binary_opcodes": sorted(_host_paths._BINARY_OPCODES),
            "temporary_refs": _host_paths._TEMPORARY_REFS - 3,
            "buffer_refs": _host_paths._BUFFER_REFS - 3}


def enable() -> bool:
    """Put the C slots in place (once); False where the module is not built."""
    global ENABLED
    if ENABLED:
        return True
    if HOSTPATH is None or not HOSTPATH.layout_agrees(_layout_samples()):
        return False
    members = vars(ndarray)
    fallbacks = {name: members[name] for name in MEMBERS}
    HOSTPATH.configure({
        "ndarray": ndarray, "numpy_ndarray": np.ndarray, "context": _context._var,
        "float64": np.dtype(np.float64),
        "bool": np.dtype(np.bool_), "int64": np.dtype(np.int64),
        "device_dtypes": _route._DEVICE_DTYPE,
        "quiet_scalars": _element_access._QUIET_SCALARS, "fallbacks": fallbacks,
        "cells": {name: _stats.host_cell(name) for name in COUNTED},
        "place_new": _route.place_new, "place_got": _element_access._place_got,
        "elide_items": _host_paths._ELIDE_ITEMS, "number_scalars": _route._NUMBER_SCALARS,
        "grows_off_host": _route.grows_off_host,
        "operator_ufuncs": (np.add, np.subtract, np.multiply, np.true_divide, np.matmul,
                            np.bitwise_and, np.bitwise_or, np.bitwise_xor),
        **_elision_facts()})
    for name in MEMBERS:
        delattr(ndarray, name)
    _stats.flushers.append(HOSTPATH.flush_counts)  # (host calls counted in C)
    _deferred_checks.WAITING_HOOKS.append(_deferred_waiting)
    ENABLED = True
    return True


_OFF = {"python_only": False, "deferred": False}  # why the C slots stand aside now


def _stand_aside(reason: str, off: bool) -> None:
    _OFF[reason] = off
    HOSTPATH.set_enabled(not any(_OFF.values()))


def _deferred_waiting(waiting: bool) -> None:
    """While deferred checks of device results wait, the Python members run (they issue
    those checks' warnings before NumPy's own, in the order of the operations)."""
    _stand_aside("deferred", waiting)


@contextlib.contextmanager
def python_only() -> Iterator[None]:
    """Run the block with the C slots calling the Python members for every operation (tests
    of the Python members' own mechanisms; process-wide while the block runs)."""
    if not ENABLED:
        yield
        return
    _stand_aside("python_only", True)
    try:
        yield
    finally:
        _stand_aside("python_only", False)
