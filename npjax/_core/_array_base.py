"""``ArrayBase``: the base class of ``npjax.ndarray``, so that modules below the array (the
index plan, argument conversion) recognise an npjax array without importing it. They use only
what every array has: ``_read()`` (its value as a ``jax.Array``) and ``_read_lazy()``.

Where the C module ``_hostpath`` is built (``pip install -e .`` with a C compiler), the base is
its ``ArrayBase``, whose slots run the host route's commonest operations in C (``_fast.py``);
otherwise, or with the environment variable ``NPJAX_PURE_PYTHON=1``, the pure-Python class
below, and ndarray's Python members do all of it.

The C module ``_aligned`` (issue 35, item 6), where built, is installed here, at import, when
the environment says ``NPJAX_ALIGNED_MEMORY=1``: NumPy then allocates blocks of 1 KB or more at
a multiple of 64 bytes, which XLA's CPU backend reads in place, so ``npjax.jit`` given a host
array sends nothing (``_jit_inputs``). It is opt-in: it replaces NumPy's allocator for the
whole process (other libraries' arrays too), and in a process mixing NumPy and compiled calls
NumPy's own kernels ran slower with it (6.6 -> 10.5 ms, five times the page faults, cause not
found: docs/jit.md). ``ALIGNED`` says whether it is on."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

HOSTPATH: Any = None  # the C module, when it is built and not turned off
if os.environ.get("NPJAX_PURE_PYTHON", "") in ("", "0"):
    try:
        from npjax._core import _hostpath as HOSTPATH
    except ImportError:  # no compiler at install time: the pure-Python base
        HOSTPATH = None

ALIGNED = False  # NumPy's blocks of 1 KB or more start at a multiple of 64 bytes
if os.environ.get("NPJAX_ALIGNED_MEMORY", "") == "1":
    try:
        from npjax._core import _aligned
    except ImportError:  # (no compiler, or no NumPy headers, at install time)
        _aligned = None  # type: ignore[assignment]
    ALIGNED = _aligned is not None and _aligned.install()

if TYPE_CHECKING or HOSTPATH is None:  # (type checkers see this class: ndarray's fields)
    class ArrayBase:
        """The base of ``npjax.ndarray`` (no state, no behaviour of its own)."""

        __slots__ = ()
        # (for type checkers) what the modules below the array use (ndarray defines it)
        _read: Callable[..., Any]
        _read_lazy: Callable[..., Any]
        _fetch: Callable[..., Any]
        # members the families' modules attach to ndarray (``_ndarray.install_methods``)
        # that npjax's own code calls
        _write: Callable[..., Any]
        _host_scalar: Callable[..., Any]
        __getitem__: Callable[..., Any]
        __setitem__: Callable[..., Any]
        __array_finalize__: Callable[..., Any]
        __array_wrap__: Callable[..., Any]
        all: Callable[..., Any]
        astype: Callable[..., Any]
        conj: Callable[..., Any]
        item: Callable[..., Any]
        round: Callable[..., Any]
        sort: Callable[..., Any]
        sum: Callable[..., Any]
        # operators (``_calls/_operators.py`` installs them)
        __add__: Callable[..., Any]
        __radd__: Callable[..., Any]
        __sub__: Callable[..., Any]
        __rsub__: Callable[..., Any]
        __mul__: Callable[..., Any]
        __rmul__: Callable[..., Any]
        __truediv__: Callable[..., Any]
        __rtruediv__: Callable[..., Any]
        __pow__: Callable[..., Any]
        __ipow__: Callable[..., Any]
        __divmod__: Callable[..., Any]
        __rdivmod__: Callable[..., Any]
        __lt__: Callable[..., Any]
        __le__: Callable[..., Any]
        __gt__: Callable[..., Any]
        __ge__: Callable[..., Any]
        __contains__: Callable[..., Any]
        __array_ufunc__: Callable[..., Any]
else:
    ArrayBase = HOSTPATH.ArrayBase
