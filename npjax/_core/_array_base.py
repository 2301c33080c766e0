"""``ArrayBase``: the base class of ``npjax.ndarray``, so that modules below the array (the
index plan, argument conversion) recognise an npjax array without importing it. They use only
what every array has: ``_read()`` (its value as a ``jax.Array``) and ``_read_lazy()``."""

from __future__ import annotations


class ArrayBase:
    """The base of ``npjax.ndarray`` (no state, no behaviour of its own)."""

    __slots__ = ()
