"""npjax.jit: stores into touching boxes of one array, each made from the array's value
before the first of them, traced as one store.

``un = u.copy(); u[1:-1] = f(un); u[0] = g(un); u[-1] = u[0]``: traced as written, the
program updates ``un``'s buffer in place at ``[1:-1]`` and then still reads ``un`` for
``g(un)`` (XLA fuses that read into the next update), so XLA copies the whole array before
the first update, and in a rolled loop copies the result back into the loop's buffer. When
a read took the old value after a store, the next store into a box touching it (their
union is a box) is joined to it: both parts are concatenated and stored once into the old
value, and later stores that touch the union join it too. The values are the same, element
for element; every read of the old value comes before its one update.
"""

from __future__ import annotations

import sys
from typing import Any

import jax.numpy as jnp

from npjax._core import _views


class Record:
    """The latest store into an array's value: ``after`` is ``before`` with ``part`` (an
    array that broadcasts to the box's shape) at ``box`` ((start, ...), (size, ...));
    ``read``: whether a read took ``before`` since; ``joined``: whether ``after`` is a
    joined store."""

    __slots__ = ("after", "before", "box", "part", "read", "joined")

    def __init__(self, after: Any, before: Any, box: tuple, part: Any, joined: bool) -> None:
        self.after, self.before, self.box, self.part = after, before, box, part
        self.read, self.joined = False, joined


def box_part(where: tuple, part: Any) -> tuple | None:
    """(box, part) of a store ``_jit._Trace.note_part`` names (``part`` broadcasts to the
    box's shape), or None when the place is not one static box or the part is unknown."""
    if part is None:
        return None
    if where[0] == "element":
        pos, sizes = where[1], (1,) * len(where[1])
    else:
        lens, dyns = where[1], where[2]
        if len(lens) != 1 or type(lens[0]) is not _views.Box:
            return None
        pos, sizes = dyns[0], lens[0].static
    if not all(type(p) is int for p in pos) or len(part.shape) > len(sizes) or not all(
            n in (1, m) for n, m in zip(part.shape[::-1], sizes[::-1])):
        return None
    return (tuple(pos), tuple(sizes)), part


def _union(a: tuple, b: tuple) -> tuple | None:
    """(axis, first, second) when boxes ``a`` and ``b`` touch along one axis and agree on
    the others (their union is a box), ``first`` the one that comes first; else None."""
    differ = [d for d in range(len(a[0])) if (a[0][d], a[1][d]) != (b[0][d], b[1][d])]
    if len(differ) != 1:
        return None
    d = differ[0]
    if a[0][d] + a[1][d] == b[0][d]:
        return d, a, b
    if b[0][d] + b[1][d] == a[0][d]:
        return d, b, a
    return None


class Joins:
    """What one trace knows of the latest store (``_jit._Trace`` asks it at each store and
    at reads of a stored array's parts)."""

    __slots__ = ("record",)

    def __init__(self) -> None:
        self.record: Record | None = None

    def read(self, value: Any) -> None:
        """A read took (a part of) ``value``."""
        rec = self.record
        if rec is not None and rec.before is value:
            rec.read = True

    def noted(self, before: Any, value: Any, where: tuple, part: Any) -> Any:
        """A store changed an array's value from ``before`` to ``value`` (``part`` at
        ``where``): recorded. Returns the value that parts apart from ``where`` are to be
        read from: ``before``, or ``value`` after a joined store (the value between the
        joined stores is not in the program)."""
        rec = self.record
        if rec is not None and rec.joined and rec.after is value:
            return value
        got = box_part(where, part)
        self.record = None if got is None else Record(value, before, got[0], got[1], False)
        return before

    def join(self, root: Any, where: tuple, part: Any, before: Any, latest: tuple | None,
             watch: Any) -> None:
        """The store just traced into ``root`` (an owner; ``before`` was its value) put
        ``part`` at ``where``: when ``before`` is the latest store's value (``record``),
        made after a read of the value before that store, and the two boxes touch, the
        owner's value becomes one store of both parts at the union of the boxes into that
        older value. Not when something outside the trace's own records holds ``before``
        (a traced operation holds its operands: something read it): both updates of the
        old value would then be in the program. ``latest``: ``_Trace._part``; ``watch``:
        the error-state watch."""
        got, rec = box_part(where, part), self.record
        if got is None or rec is None or rec.after is not before or \
                not (rec.read or rec.joined) or len(got[0][0]) != before.ndim or \
                part.dtype != before.dtype or rec.part.dtype != before.dtype:
            return
        box = got[0]
        union = _union(rec.box, box)
        if union is None:
            return
        # the names of the caller, of note_stored and of this call, the store just traced,
        # ``latest``, ``record`` and the watch's chain (and getrefcount's own argument)
        held = 3 + 1 + (latest is not None and latest[0] is before) + \
            (latest is not None and latest[3] is before) + 1 + watch.holds_value(root, before)
        if sys.getrefcount(before) > held + 1:
            return
        axis, first, _ = union
        parts = (jnp.broadcast_to(rec.part, rec.box[1]), jnp.broadcast_to(part, box[1]))
        if first is not rec.box:
            parts = parts[::-1]
        joined = jnp.concatenate(parts, axis=axis)
        starts = tuple(min(p, q) for p, q in zip(rec.box[0], box[0]))
        after = _views.settled(_views.Box(joined.shape).set(rec.before, starts, joined))
        root._rebind(after, bump=False)  # (the store this joins moved the version on)
        self.record = Record(after, rec.before, (starts, joined.shape), joined, True)
