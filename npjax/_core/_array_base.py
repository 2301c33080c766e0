"""``ArrayBase``: the base class of ``npjax.ndarray``, so that modules below the array (the
index plan, argument conversion) recognise an npjax array without importing it. They use only
what every array has: ``_read()`` (its value as a ``jax.Array``) and ``_read_lazy()``.

Where the C module ``_hostpath`` is built (``pip install -e .`` with a C compiler), the base is
its ``ArrayBase``, whose slots run the host route's commonest operations in C (``_fast.py``);
otherwise, or with the environment variable ``NPJAX_PURE_PYTHON=1``, the pure-Python class
below, and ndarray's Python members do all of it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

HOSTPATH: Any = None  # the C module, when it is built and not turned off
if os.environ.get("NPJAX_PURE_PYTHON", "") in ("", "0"):
    try:
        from npjax._core import _hostpath as HOSTPATH
    except ImportError:  # no compiler at install time: the pure-Python base
        HOSTPATH = None

if TYPE_CHECKING or HOSTPATH is None:  # (type checkers see this class: ndarray's fields)
    class ArrayBase:
        """The base of ``npjax.ndarray`` (no state, no behaviour of its own)."""

        __slots__ = ()
else:
    ArrayBase = HOSTPATH.ArrayBase
