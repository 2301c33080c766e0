"""Python lists of arrays indexed by the loop index of a rolled loop (issue 17: ``particles``).

NumPy users keep small vectors in lists (``P = [pos[i].copy() for i in range(n)]``) and
loop over them: ``d = P[i + 1] - P[i]``, ``F[i] += f``, ``P[i] = P[i] + dt * V[i]``. A rolled
body (``_loops``) cannot pick one Python object by a traced index, so such a list is
carried through the ``lax.fori_loop`` as one *stacked* array (its items along a new first
axis), and its items are written back, as new arrays, after the rolled iterations (the last
one runs as written, on the list).

A list of arrays bound to a free name of a loop body that the body changes otherwise (an
inner rolled loop writes it back, ``P[0] = ...`` stores into it) is *kept*: in each traced
iteration its items are new arrays holding the rows of a carried stacked value
(``_Stacked.materialize``), stacked again when the iteration ends (``gather``); inner loops
may then stack it in turn (``Frame.owns``: a body owns its kept lists and the lists it
makes, ``made``, and only those may be stacked or stored into inside it). So the time loop
of ``particles`` rolls around its three loops over particles.

Exactness: a list is stacked only where nobody can tell its items were replaced. When its
loop starts, every item must be a plain, writeable, same-shape, same-dtype npjax owner
array held by that list alone (reference counts: no other name, list, view or NumPy view
of its data sees it), each object once. Inside one traced iteration ``lst[i]`` gives the
same object for the same position (so ``x = P[i]; x += 1`` changes ``P[i]``, as in NumPy);
``lst[i] = v`` puts ``v`` itself there (a plain owner of the items' shape and dtype, else
the roll is abandoned). When the iteration ends, every object in a touched position must
again be held by that position alone (not by a carried name, a view, another position or
list): then only its value matters, and the iteration's stacked array is the old one with
those positions updated. Positions of one list are ``k * mul + add`` for one ``mul`` (so
two of them are the same slot exactly when ``add`` is); they must be in bounds on every
iteration. Everything else is refused (the loop unrolls as before): an index of a stacked
list that is not the loop index (``P[0]``), a slice, a list of other items, a list of an
enclosing rolled body that it does not own, a list reassigned or changed in length
(``append`` and friends are refused by the call guard, ``P = [...]`` by the carried names).
A kept list's items must likewise be plain arrays held by the list alone when each
iteration ends (a name, a view or another list holding one abandons the roll). While a
body is traced a stacked list holds placeholders (``Stale``) that abandon the roll when
used, so ``len(P)`` is the list's length but ``np.stack(P)`` or ``for p in P`` inside the
body abandon it (only ``is`` between a placeholder and another object goes unseen).
The reference counts discount what npjax itself holds (the error-state watch,
``FiniteWatch.holds``); the rewritten body clears its temporaries after each store
(``_loop_source._forget``).
"""

from __future__ import annotations

import contextvars
import sys
import weakref
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._compile._loop_index import LoopIndex, NoRoll, bounded
from npjax._compile._jit_inputs import sole_buffer
from npjax._core._ndarray import HOST_STORAGE, ndarray

__all__ = ["Lists", "Stale", "active", "getitem", "made", "setitem"]


class Again(NoRoll):
    """Abandons one probe of a loop body: probe it again (``Lists.index``)."""


class Stale:
    """What a stacked list holds while a rolled body is traced: any use abandons the roll."""

    __slots__ = ("pos",)

    def __init__(self, pos: int) -> None:
        self.pos = pos

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise NoRoll("an item of a stacked list is used other than as lst[loop index]")

    __getattr__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = _refuse
    __bool__ = __len__ = __iter__ = __getitem__ = __setitem__ = __contains__ = _refuse
    __array__ = __jax_array__ = __index__ = __int__ = __float__ = __complex__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _refuse
    __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = _refuse
    __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = _refuse
    __iadd__ = __isub__ = __imul__ = __itruediv__ = __call__ = __format__ = _refuse


def _count(x: Any) -> int:
    """The reference count of ``x`` as this call sees it."""
    return sys.getrefcount(x)


def _calibrate() -> int:
    """What ``_count(c[j])`` gives for an object that only the container ``c`` holds (the
    interpreter's own references differ between versions: measured, not assumed)."""
    held = [object()]
    return _count(held[0])


_ONE = _calibrate()


def _alone(holder: Any, key: Any, also: int = 0) -> bool:
    """Whether ``holder[key]`` is held by ``holder`` alone (and ``also`` known others)."""
    return _count(holder[key]) <= _ONE + also


def _plain(x: Any) -> bool:
    """A plain writeable owner array (device value, or host data it owns alone)."""
    if type(x) is not ndarray or x._base is not None or x._scalar or x._readonly or \
            x._lens != ():
        return False
    v = x._value
    if isinstance(v, jax.Array):  # (a C-order layout is the default one: as None)
        lay = x._layout
        return lay is None or (type(lay) is np.ndarray and lay.flags.c_contiguous and
                               lay.shape == v.shape and lay.dtype == v.dtype)
    return type(v) is HOST_STORAGE and x._layout is v and v.flags.c_contiguous and \
        v.flags.writeable and (v.base is None or sole_buffer(v)) and _count(x._value) <= _ONE + 2
    # (host data: held by the array's value and layout, and by ``v`` here; or moved into
    # aligned memory by npjax.jit, ``_jit_inputs``: a buffer only ``v`` holds)


class _Stacked:
    """One list a rolled loop carries stacked."""

    __slots__ = ("dtype", "items", "lst", "made", "n", "shape")

    def __init__(self, lst: list) -> None:
        n = len(lst)
        if n == 0:
            raise NoRoll("an empty list is indexed by the loop index")
        first = lst[0]
        if not _plain(first):
            raise NoRoll("a list item indexed by the loop index is not a plain npjax array")
        shape, dtype = first._value.shape, first._value.dtype
        del first
        ids = set()
        for j in range(n):
            # held by the list alone: nothing else sees it (and each object once)
            if id(lst[j]) in ids or not _alone(lst, j):
                raise NoRoll("an item of a list indexed by the loop index is also held "
                             "elsewhere")
            ids.add(id(lst[j]))
            if not _plain(lst[j]) or lst[j]._value.shape != shape or \
                    lst[j]._value.dtype != dtype:
                raise NoRoll("a list indexed by the loop index holds arrays of different "
                             "shapes or dtypes, or not plain npjax arrays")
        self.lst, self.n, self.shape, self.dtype = lst, n, shape, dtype
        self.items = None
        self.made: list = []

    def stack(self, cache: dict, remember: bool = True) -> Any:
        """The items stacked (from what ``cache`` remembers of this list, updated where an
        item is another object or holds another value since; ``cache``: the stacks of the
        trace, ``write_back`` and ``stack`` outside a probe store into it)."""
        got = cache.get(id(self.lst))
        if got is not None and got[0] is self.lst and len(got[1]) == self.n:
            _lst, refs, values, stacked = got
            changed = [j for j, x in enumerate(self.lst)  # (host data may change in place)
                       if refs[j]() is not x or x._value is not values[j] or
                       not isinstance(x._value, jax.Array)]
            if len(changed) * 4 <= self.n:
                for j in changed:
                    stacked = lax.dynamic_update_index_in_dim(
                        stacked, jnp.asarray(self.lst[j]._value), j, 0)
                if remember:
                    self._remember(cache, stacked)
                return stacked
        stacked = jnp.stack([jnp.asarray(x._value) for x in self.lst])
        if remember:
            self._remember(cache, stacked)
        return stacked

    def _remember(self, cache: dict, stacked: Any) -> None:
        cache[id(self.lst)] = (self.lst, tuple(weakref.ref(x) for x in self.lst),
                               tuple(x._value for x in self.lst), stacked)

    def hide(self) -> None:
        """Put placeholders in the list while a body is traced (``restore`` undoes it)."""
        if self.items is None:
            self.items = list(self.lst)
            self.lst[:] = [Stale(j) for j in range(self.n)]

    def restore(self) -> None:
        if self.items is not None:
            self.lst[:] = self.items
            self.items = None

    def materialize(self, value: Any) -> None:
        """For one traced iteration: the items are new arrays holding the rows of ``value``
        (``restore`` puts the list's own items back)."""
        self.items = list(self.lst)
        rows = lax.split(value, [1] * self.n, axis=0)
        made = [ndarray._owner(lax.squeeze(r, (0,)), False) for r in rows]
        self.made = [(weakref.ref(x), x._value) for x in made]
        self.lst[:] = made

    def gather(self, value: Any) -> Any:
        """When a traced iteration ends: the items stacked (``value``, the one they were
        made from, when no item changed); each a plain array of the shape and dtype, held
        by the list alone."""
        lst = self.lst
        if type(lst) is not list or len(lst) != self.n:
            raise NoRoll("a list changes length in a rolled body")
        same = True
        ids = set()
        for j in range(self.n):
            if id(lst[j]) in ids or not _alone(lst, j):
                raise NoRoll("an item of a list is also held elsewhere when an iteration "
                             "ends")
            ids.add(id(lst[j]))
            if not _plain(lst[j]) or lst[j]._value.shape != self.shape or \
                    lst[j]._value.dtype != self.dtype:
                raise NoRoll("a list item is left as something other than a plain array of "
                             "its items' shape and dtype")
            ref, v = self.made[j]
            same = same and ref() is lst[j] and lst[j]._value is v
        if same:
            return value
        return jnp.stack([jnp.asarray(x._value) for x in lst])

    def write_back(self, value: Any, cache: dict) -> None:
        """After the rolled iterations: the items are the rows of the final stacked value."""
        rows = lax.split(value, [1] * self.n, axis=0)
        self.lst[:] = [ndarray._owner(lax.squeeze(r, (0,)), False) for r in rows]
        self._remember(cache, value)


class Lists:
    """The lists one rolled loop stacks, in the order its first probe met them."""

    def __init__(self, outer: Frame | None, top: bool, cache: dict) -> None:
        # lists are stacked at the top level of a trace, or inside an enclosing rolled body
        # (``outer``) when that body owns them (``Frame.owns``)
        self.outer = outer
        self.enabled = top or outer is not None
        self.cache = cache  # what was stacked (the trace's at the top level)
        self.order: list[_Stacked] = []  # lists indexed by the loop index
        self.grew = False
        self.changed: set[int] = set()  # the lists whose items the probed body changes
        self.kept: list[_Stacked] = []  # lists of the body's closure, made per iteration
        self.kept_changed: set[int] = set()
        self.log: list = []  # the probe's accesses to the lists (``Frame.log``)
        self.jaxpr: Any = None  # the probe's program (``_loop_vector.ordered``)

    def _owned(self, lst: list) -> bool:
        return self.outer is None or self.outer.owns(lst)

    def index(self, lst: list, discover: bool) -> int:
        for j, s in enumerate(self.order):
            if s.lst is lst:
                return j
        if not self.enabled or not self._owned(lst):
            raise NoRoll("a loop index subscripts something that is not an npjax array")
        if not discover:
            raise NoRoll("the body indexes another list than when probed")
        if any(s.lst is lst for s in self.kept):  # indexed: stacked, not made per iteration
            self.kept = [s for s in self.kept if s.lst is not lst]
            self.grew = True
            raise Again("a list of the body's closure is indexed by the loop index")
        self.order.append(_Stacked(lst))
        self.grew = True
        return len(self.order) - 1

    def keep(self, fn: Any) -> None:
        """The lists of arrays bound to free names of the loop body ``fn`` are made anew in
        each traced iteration from a carried stacked value (``materialize``, ``gather``):
        inner loops and stores by a Python int may then change their items."""
        if not self.enabled:
            return
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if type(v) is list and v and self._owned(v) and \
                    not any(s.lst is v for s in self.kept):
                try:
                    self.kept.append(_Stacked(v))
                except NoRoll:
                    pass
            v = None

    def drop_unchanged(self) -> None:
        """After the probe: a closure list whose items the body does not change is left as
        it is (its items are read as they are)."""
        self.kept = [s for j, s in enumerate(self.kept) if j in self.kept_changed]
        self.kept_changed = set(range(len(self.kept)))


class Frame:
    """One traced iteration: the stacked value of each list when it starts, and the object
    in each position it touched."""

    def __init__(self, lists: Lists, k: Any, values: list | None, discover: bool,
                 watch: Any, kept: list | None = None) -> None:
        self.lists, self.k, self.discover = lists, k, discover
        cache = self.cache = lists.cache
        self.local: dict = {}  # what loops inside this body stack
        self.made: dict[int, list] = {}  # lists the body made (``made``): it owns them
        self.watch = watch
        self.kept = list(kept) if kept is not None else [
            s.stack(cache, False) for s in lists.kept]
        self.kept_lists = list(lists.kept)  # (``Lists.index`` may drop one meanwhile)
        for s, v in zip(self.kept_lists, self.kept):
            s.materialize(v)
        self.values = list(values) if values is not None else [
            s.stack(cache, False) for s in lists.order]
        self.slots: list[dict] = [{} for _ in self.values]
        self.got: list[dict] = [{} for _ in self.values]  # position -> the value read
        self.mul: list[int | None] = [None] * len(self.values)
        # (what, list, position[, op, operand]) of each access in order (``_loop_vector``)
        self.log: list[tuple] = []
        self.operands = False  # whether ``note_aug`` keeps the operands (``_loop_vector``)
        self.rows: dict = {}  # (list, position) -> the item read there, if given (same)
        for s in lists.order:
            s.hide()

    def restore(self) -> None:
        for s in self.lists.order + self.kept_lists:
            s.restore()

    def owns(self, lst: list) -> bool:
        """Whether item stores into ``lst`` stay inside this body's trace: a list it made,
        or one made anew for each iteration (``Lists.keep``)."""
        return self.made.get(id(lst)) is lst or any(s.lst is lst for s in self.lists.kept)

    def _where(self, lst: list, key: Any) -> tuple[int, tuple, Any]:
        if type(key) is not LoopIndex or key.k is not self.k:
            raise NoRoll("a stacked list is indexed by something other than the loop index")
        j = self.lists.index(lst, self.discover)
        if j == len(self.values):  # found now: stacked from its items, then hidden
            s = self.lists.order[j]
            self.values.append(s.stack(self.cache, False))
            self.slots.append({})
            self.got.append({})
            self.mul.append(None)
            s.hide()
        n = self.lists.order[j].n
        pos = bounded(key, n, "of a list")
        if self.mul[j] is None:
            self.mul[j] = pos.mul
        elif self.mul[j] != pos.mul:
            raise NoRoll("a list indexed at positions that may meet on some iteration")
        return j, (pos.mul, pos.add), pos

    def read(self, lst: list, key: Any) -> ndarray:
        j, p, pos = self._where(lst, key)
        self.log.append(("read", j, p))
        got = self.slots[j].get(p)
        if got is None:
            v = self.rows.get((j, p))
            if v is None:
                v = lax.dynamic_index_in_dim(self.values[j], pos.traced(), 0, keepdims=False)
            got = self.slots[j][p] = ndarray._owner(v, False)
            self.got[j][p] = v
        return got

    def write(self, lst: list, key: Any, value: Any) -> None:
        j, p, _pos = self._where(lst, key)
        self.log.append(("write", j, p))
        s = self.lists.order[j]
        if not _plain(value) or value._value.shape != s.shape or \
                value._value.dtype != s.dtype:
            raise NoRoll("a list item is assigned something other than a plain array of "
                         "its items' shape and dtype")
        self.slots[j][p] = value

    def changes(self) -> list[dict]:
        """Per list, {position: object} of the positions the iteration changed, each object
        held by its position alone (and by the error-state watch, for values stored into
        it), else NoRoll."""
        seen: set[int] = set()
        out = []
        for j, slots in enumerate(self.slots):
            changed = {}
            for p in list(slots):
                if id(slots[p]) in seen or not _plain(slots[p]) or \
                        not _alone(slots, p, self.watch.holds(slots[p])):
                    raise NoRoll("an item of a stacked list is also held elsewhere when "
                                 "an iteration ends")
                seen.add(id(slots[p]))
                if slots[p]._value is not self.got[j].get(p):  # (else read, not changed)
                    changed[p] = slots[p]
            out.append(changed)
        return out

    def finish(self) -> list:
        """The stacked values the iteration leaves (``changes``); a list no position of
        which changed keeps its value object."""
        out = []
        for value, changed in zip(self.values, self.changes()):
            stored = []  # (item value, its row): distinct rows (``add`` tells them apart)
            for p, obj in changed.items():
                mul, add = p
                at = self.k * mul + add
                value = lax.dynamic_update_index_in_dim(
                    value, jnp.asarray(obj._read()).astype(value.dtype), at, 0)
                stored.append((obj._value, at))
            for v, at in stored:  # their error-state checks read them back from here
                self.watch.shown(v, lax.dynamic_index_in_dim(value, at, 0, keepdims=False))
            out.append(value)
        return out

    def finish_kept(self) -> list:
        """The stacked values of the lists made per iteration, as the iteration leaves them."""
        return [s.gather(v) for s, v in zip(self.kept_lists, self.kept)]


_FRAME: contextvars.ContextVar[Frame | None] = contextvars.ContextVar(
    "npjax_loop_lists", default=None)


def active() -> contextvars.ContextVar:
    return _FRAME


def getitem(lst: Any, key: Any) -> Any:
    """``lst[key]`` of a list in a rolled body (a loop index key, or a stacked list)."""
    frame = _FRAME.get()
    if frame is None:
        raise NoRoll("a loop index subscripts something that is not an npjax array")
    return frame.read(lst, key)


def setitem(lst: Any, key: Any, value: Any) -> None:
    """``lst[key] = value`` in a rolled body: by the loop index into a stacked list, or by
    anything into a list the body owns (``Frame.owns``)."""
    frame = _FRAME.get()
    if frame is None:
        raise NoRoll(f"an item of a {type(lst).__name__} is assigned")
    if type(key) is not LoopIndex and frame.owns(lst):
        lst[key] = value
        return
    frame.write(lst, key, value)


def note_aug(op: str, cur: Any, value: Any) -> None:
    """``x[key] op= value`` is about to apply to ``cur``: logged when ``cur`` is the object
    of a stacked list's position still holding the value read there (``_loop_vector``)."""
    frame = _FRAME.get()
    if frame is None:
        return
    for j, slots in enumerate(frame.slots):
        for p, obj in slots.items():
            if obj is cur:
                fresh = cur._value is frame.got[j].get(p)
                operand = _operand(value) if frame.operands else None
                frame.log.append(("aug" if fresh else "aug-again", j, p, op, operand))
                return


def _operand(value: Any) -> Any:
    """What an in-place operator's operand is, apart from its Python object: (value, dtype,
    scalar) of an npjax array, a Python or NumPy scalar itself, else None."""
    if type(value) is ndarray:
        return (value._read(), value.dtype, value._scalar)
    if type(value) in (int, float, complex, bool) or isinstance(value, np.generic):
        return value
    return None


def made(lst: list) -> list:
    """A list display or comprehension in a loop body: the body owns the new list."""
    frame = _FRAME.get()
    if frame is not None:
        frame.made[id(lst)] = lst
    return lst
