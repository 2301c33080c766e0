"""Known bounds of integer device arrays: what an index check needs, without reading them.

NumPy raises ``IndexError`` at the line that indexes out of bounds; JAX clamps silently. To
raise at that line, npjax needs the smallest and largest entry of a device index array before
the indexing call returns: a wait for the device (``npjax.stats()["syncs"]["index_bounds"]``)
unless they are known already. They are known, exactly and without a wait, when the function
that made the array bounds its values by construction (``argsort``: 0 to n-1; ``nonzero``:
within the shape; an integer ``arange``: its end points) or when a check read them before
(a ``jax.Array`` never changes). Those facts are kept here, per array object (by id, with a
weak reference that drops the entry when the array goes).
"""

from __future__ import annotations

import weakref
from typing import Any

import jax

__all__ = ["known", "remember"]

_LIMIT = 4096  # entries kept at most (live arrays hold theirs; the rest are dropped early)
_FACTS: dict[int, tuple] = {}


def _forget(key: int, ref: weakref.ref) -> None:
    entry = _FACTS.get(key)
    if entry is not None and entry[0] is ref:
        del _FACTS[key]


def remember(arr: Any, lo: int, hi: int) -> None:
    """Record that every entry of the ``jax.Array`` ``arr`` lies in ``[lo, hi]`` (other
    values, such as tracers or pending lazy values, are not recorded)."""
    if not isinstance(arr, jax.Array) or isinstance(arr, jax.core.Tracer):
        return
    key = id(arr)
    ref = weakref.ref(arr, lambda r, key=key: _forget(key, r))
    if len(_FACTS) >= _LIMIT:
        _FACTS.clear()  # (atomic: safe with other threads indexing)
    _FACTS[key] = (ref, int(lo), int(hi))


def known(arr: Any) -> tuple[int, int] | None:
    """``(lo, hi)`` recorded for ``arr``, or None."""
    entry = _FACTS.get(id(arr))
    if entry is not None and entry[0]() is arr:
        return entry[1], entry[2]
    return None
