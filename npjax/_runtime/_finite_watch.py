"""The floating-point check of traced results under ``npjax.jit``: one device boolean for the
float results of a traced function (``FiniteWatch``). A result whose check implies its
operands' (it is not finite wherever they are not) *covers* them: they are not read again."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure import _boolsums
from npjax._runtime._errstate import state

# Ufuncs whose result is not finite wherever an operand is not (inf * 0 is nan, sqrt(-inf)
# is nan, log(-inf) is nan, ...), for float loops: a check of their result covers their
# operands (``FiniteWatch``).
PROPAGATING = frozenset({"add", "subtract", "multiply", "negative", "positive", "absolute",
                         "sqrt", "square", "log", "conjugate"})


# Ufuncs that never raise a floating-point flag on real float loops (a non-finite result
# comes only from a non-finite operand): their results need no check of their own.
QUIET = frozenset({"maximum", "minimum", "fmax", "fmin", "copysign", "floor", "ceil", "trunc",
                   "rint", "fabs", "sign", "heaviside"})


class FiniteWatch:
    """Traced float results gathered into one check: is any of them not finite (or tiny,
    when underflow is reported)? ``x * 0`` is NaN exactly where ``x`` is not finite, and
    NaN survives sums, so results of one shape are summed elementwise into one accumulator:
    XLA fuses that sum into the loops that compute the results, and only one reduction per
    shape is left (a reduction per result would stop the fusion of elementwise chains).

    A result stored whole into an array (``a[i] = expr``) is checked where it was stored,
    read back from the array's final value (``stored``), not from the expression: XLA
    would otherwise compute the expression a second time for the check, reading the old
    value of the array that the store updates in place, and so copy the array before each
    update (in a rolled loop: a copy of every carried array per iteration). Not on a TPU,
    where the expression's check joins its kernel (``_result``)."""

    def __init__(self) -> None:
        self._results: list = []
        self._covered: set = set()
        self._tiny: list = []
        self._ids: set = set()  # ids of the watched values (kept alive by ``_results``,
        self._implied: list = []  # and ``_implied``: values not finite only where a
        # watched value is, ``implied``)
        self._poisoned: dict = {}  # id of a result made by ``poison`` -> the operands
        self._stored: dict = {}  # id(value) -> (holder, position in its chain, read, value)
        self._chains: dict = {}  # id(holder) -> [(value before, value after, box)] of stores
        self._inside: dict = {}  # id(filled value) -> the watched value it shows (``inside``)
        self._through: dict = {}  # id(value) -> (holder, its new value, mask) (``through``)
        self._shown: dict = {}  # id(value) -> (value, the same read back) (``shown``)

    def add(self, outs: Any, under: bool = False, operands: Any = None) -> None:
        """Watch ``outs``. ``operands``: those of a call of a PROPAGATING ufunc that gave
        ``outs`` (non-finite where an operand is, every operand element used): they need no
        check of their own, ``outs`` shows theirs (this is what lets XLA fuse the chain)."""
        outs = [o for o in outs if o.dtype.kind in "fc"]
        self._results.extend(outs)
        self._ids.update(id(o) for o in outs)
        if operands is not None and not under and all(o.size for o in outs):
            for v in operands:
                while v is not None:
                    self._covered.add(id(v))
                    v = self._inside.get(id(v))
        if under:
            for o in outs:
                if o.size:
                    tiny = float(np.finfo(o.dtype).tiny)
                    self._tiny.append(jnp.any((jnp.abs(o) < tiny) & (o != 0)))

    def poison(self, outs: tuple, operands: tuple, every: bool, first: bool = False) -> tuple:
        """``outs`` of a traced elementwise ufunc call whose results need not show
        non-finite operands (``exp(-inf)`` is 0, ``maximum(-inf, 0)`` is 0), made to show
        those of its watched float operands: ``o - (v - v)`` is ``o`` bit for bit where
        ``v`` is finite (``v - v`` is +0.0, and ``o - 0.0`` keeps even a -0.0) and NaN where
        it is not. Done only where the call's check watches ``outs`` (the error state
        reports a flag, underflow ignored): a NaN made here then reruns the call eagerly
        anyway, and ``outs`` cover those operands (``poisoned``), which then need no pass
        of their own over memory. ``every``: only when every traced float operand is
        watched (``QUIET`` ufuncs, whose results are watched only then). ``first``: the
        results show the first operand's non-finite values already (real ``divide``)."""
        st = state()
        if st["under"] != "ignore" or (st["divide"] == "ignore" and st["over"] == "ignore"
                                       and st["invalid"] == "ignore"):
            return outs
        floats = [v for v in operands if isinstance(v, jax.core.Tracer)
                  and v.dtype.kind in "fc"]
        watched = [v for v in floats if id(v) in self._ids]
        if not watched or (every and len(watched) < len(floats)) or not all(
                o.size and o.dtype.kind in "fc" and all(_fits(v.shape, o.shape)
                                                        for v in watched) for o in outs):
            return outs
        # ``first``: the first operand shows in the results already (a real division is
        # not finite wherever its numerator is not): it is covered without a poison
        made, shown = [], [v for v in watched if not (first and v is operands[0])]
        if not shown:
            self._implied.extend(outs)  # kept alive: their ids stay theirs
            self._poisoned[id(outs[0])] = watched
            return outs
        for o in outs:
            for v in shown:
                d = v - v
                if d.dtype.kind == "c" and o.dtype.kind != "c":
                    d = jnp.real(d) + jnp.imag(d)
                o = o - (d if d.dtype.kind == "c" else d.astype(o.dtype))
            made.append(o)
        self._implied.extend(made)  # kept alive: their ids stay theirs
        self._poisoned[id(made[0])] = watched
        return tuple(made)

    def poisoned(self, outs: Any) -> list | None:
        """The operands ``outs`` were made to show (``poison``), or None."""
        return self._poisoned.get(id(outs[0]))

    def implied(self, outs: Any, operands: Any) -> None:
        """``outs`` of a call that cannot raise a flag (``QUIET``) are not finite only where
        an operand is not: when every float operand is watched, so are they (no check of
        their own); else nothing is watched."""
        if self.watches(operands):
            self._implied.extend(outs)  # kept alive: their ids stay theirs
            self._ids.update(id(o) for o in outs)

    def cover(self, value: Any) -> None:
        """``value``, if watched, needs no check of its own: another device-side check of
        the trace is True wherever it is not finite (a float to integer cast's), and that
        reruns the call eagerly, with NumPy's reports."""
        while value is not None and id(value) in self._ids:
            self._covered.add(id(value))
            value = self._inside.get(id(value))

    def inside(self, filled: Any, value: Any) -> None:
        """``filled`` is ``value`` inside a part (a moving slice's bounds, ``_windows``) and
        a finite constant outside it, where ``value`` holds padding that no NumPy value
        holds: when ``value`` is watched, ``filled`` is watched too (it is not finite only
        where ``value`` is), and a result that covers ``filled`` covers ``value`` (its only
        elements NumPy computes are inside the part)."""
        if id(value) in self._ids and getattr(filled, "dtype", None) == value.dtype:
            self._implied.append(filled)  # kept alive: its id stays its own
            self._ids.add(id(filled))
            self._inside[id(filled)] = value

    def watches(self, values: Any) -> bool:
        """Whether every traced float array among ``values`` (a pytree) is a watched result:
        a check of a value computed from them needs no look at them (theirs are made)."""
        return all(id(v) in self._ids for v in jax.tree.leaves(values)
                   if getattr(v, "dtype", None) is not None and v.dtype.kind in "fc")

    def stored(self, value: Any, holder: Any, before: Any, left: Any, read: Callable,
               box: Any = None) -> None:
        """``value`` was just stored into ``holder`` (an array whose ``_value`` the store
        changed from ``before`` to ``left``); ``read(v)`` reads the stored part of a value
        ``v`` of the array back; ``box``: the part as ((start, ...), (size, ...)) when its
        place is known, else None. What ``read`` gives is checked instead of ``value``
        (when it has ``value``'s dtype and size), read from the array's final value when
        every later store into it is recorded here and misses the part, else not at all:
        reading a value that a later store updates in place would bring the copy back."""
        chain = self._chains.setdefault(id(holder), [])
        chain.append((before, left, box))
        # ``value`` may be watched later (a ufunc with ``out=`` stores, then is watched):
        # it is kept alive here, so its id stays its own.
        self._stored[id(value)] = (holder, len(chain) - 1, read, value)

    def holds_value(self, holder: Any, value: Any) -> int:
        """How many references to ``value`` (a value of ``holder``) ``stored`` keeps."""
        return sum((b is value) + (a is value) for b, a, _ in self._chains.get(id(holder), ()))

    def through(self, value: Any, holder: Any, new: Any, mask: Any) -> None:
        """``new``, the next value of ``holder`` (an array), is ``value`` where ``mask`` is
        True (a store into a moving slice, ``_windows.store``), and ``value`` elsewhere is
        padding that no NumPy value holds: ``value`` is checked as ``new`` inside ``mask``,
        read back from ``holder``'s final value (``stored``): checking ``value`` itself
        made XLA compute it a second time (in a rolled loop, on every iteration)."""
        if getattr(new, "dtype", None) == value.dtype and new.shape == value.shape:
            self._through[id(value)] = (holder, new, mask, value)  # (kept alive)

    def shown(self, value: Any, back: Any) -> None:
        """``back`` is watched ``value`` read back from the array it was stored into as it
        is when the iteration ends (an item of a stacked list, ``_loop_lists``): checked
        instead of ``value``, which XLA would compute a second time from the array before
        the store, and so copy that array to update it in place."""
        if id(value) in self._ids and getattr(back, "dtype", None) == value.dtype and \
                back.shape == value.shape:
            self._shown[id(value)] = (value, back)  # (kept alive: its id stays its own)

    def _checked(self, o: Any) -> Any:
        """What to check for result ``o``: ``o``, or the part of an array it was stored
        into (``stored``, ``through``, ``shown``)."""
        shown = self._shown.get(id(o))
        if shown is not None:
            return shown[1]
        t = self._through.get(id(o))
        if t is not None:
            holder, new, mask, _ = t
            c = self._checked(new)
            if c is new and holder._value is not new:  # (updated since, or scattered into
                return jnp.where(mask, o, jnp.zeros((), o.dtype))  # it: not read back)
            if c.dtype == o.dtype and c.shape == o.shape:
                return jnp.where(mask, c, jnp.zeros((), c.dtype))
            return o
        s = self._stored.get(id(o))
        left = self._final(s)
        if left is None:
            return o
        r = s[2](left)
        if r.dtype != o.dtype or r.size != o.size:
            return o
        return lax.platform_dependent(o, r.reshape(o.shape), tpu=_result, default=_stored)

    def _final(self, s: Any) -> Any:
        """The array's final value that a store (a ``stored`` entry, or None) is read back
        from: None when a later store may overwrite its part, or an unrecorded one did."""
        if s is None:
            return None
        holder, k, _, _ = s
        chain = self._chains[id(holder)]
        _, left, box = chain[k]
        for before, after, other in chain[k + 1:]:
            if before is not left or not apart(box, other):
                return None
            left = after
        return left if holder._value is left else None

    def _merged(self, results: list) -> tuple[list, list]:
        """(results left, parts to check): results stored whole into boxes of one array
        that together fill a box exactly (``u[0] = x`` and ``u[1:] = y``) are checked as
        that box, read back once from the array's final value (one pass instead of one
        per store)."""
        groups: dict = {}
        for o in results:
            s = self._stored.get(id(o))
            if id(o) in self._shown or id(o) in self._through or s is None:
                continue
            box = self._chains[id(s[0])][s[1]][2]
            left = self._final(s)
            if left is None or box is None or left.dtype != o.dtype or \
                    len(box[0]) != left.ndim or math.prod(box[1]) != o.size:
                continue
            groups.setdefault(id(left), (left, []))[1].append((o, box))
        done, parts = set(), []
        for left, members in groups.values():
            boxes = [b for _, b in members]
            if len(boxes) < 2 or not all(apart(a, b) for i, a in enumerate(boxes)
                                         for b in boxes[i + 1:]):
                continue
            lo = [min(b[0][d] for b in boxes) for d in range(left.ndim)]
            hi = [max(b[0][d] + b[1][d] for b in boxes) for d in range(left.ndim)]
            if math.prod(h - low for low, h in zip(lo, hi)) != sum(math.prod(b[1])
                                                                 for b in boxes):
                continue  # (elements no store wrote: not checked)
            parts.append(lax.slice(left, lo, hi))
            done.update(id(o) for o, _ in members)
        return [o for o in results if id(o) not in done], parts

    def flag(self) -> Any:
        """The traced boolean (None when nothing was added)."""
        sums, tiny = self.parts()
        parts = [any_nan(acc) for acc in sums.values()] + tiny
        if not parts:
            return None
        bad = parts[0]
        for p in parts[1:]:
            bad = bad | p
        return bad

    def holds(self, holder: Any) -> int:
        """How many references to ``holder`` (an array values were stored into) this watch
        keeps (``stored``, ``through``): reference counts that look for other holders
        of an array discount them (``_loop_lists``)."""
        return sum(t[0] is holder for t in self._stored.values()) + \
            sum(t[0] is holder for t in self._through.values())

    def covers(self, value: Any) -> bool:
        """Whether ``value`` (not a result watched here: an input of a loop body) is shown
        by a result watched here (a ``PROPAGATING`` ufunc took it whole)."""
        return id(value) in self._covered

    def checks_itself(self, value: Any) -> bool:
        """Whether ``parts`` checks ``value``, a result watched here, as itself (it is not
        covered by another result): a caller may leave it out (``later``) and check it where
        it was stored instead (``npjax._compile._loop_vector``)."""
        return id(value) not in self._covered and any(o is value for o in self._results)

    def parts(self, later: frozenset = frozenset()) -> tuple[dict, list]:
        """({shape: float32 accumulator, NaN where a result is not finite}, [traced
        booleans of tiny results]): a rolled loop folds each iteration's accumulators into
        its flag (``any_nan``; ``npjax._compile._loops``: carried across the iterations,
        they cost XLA a kernel to make, one to add and a tree to reduce). ``later``: ids of
        results checked later (a loop body's carried values that the next iteration's
        results show, ``covers``), left out."""
        sums: dict = {}
        results = [o for o in self._results
                   if id(o) not in self._covered and o.size and id(o) not in later]
        results, merged = self._merged(results)
        for o in results + merged:
            c = self._checked(o)
            zero = lax.platform_dependent(c, tpu=_nan_where_not_finite, default=_zero_times)
            acc = sums.get(c.shape)
            sums[c.shape] = zero if acc is None else acc + zero
        return sums, list(self._tiny)


def _result(o: Any, stored: Any) -> Any:
    """On a TPU a stored result is checked as computed: XLA there makes the check's reduction
    one kernel with the loop that computes it, and copies no array for it (an iteration of
    the suite's float32 jacobi_2d runs 2 kernels, as the hand-written one, where the check
    read back from the array made 3; fdtd_2d 9 against 12, heat_3d 3 against 4:
    ``tpu_compile_probe.py --ops --compile --float32``; on the chip the check cost jacobi_2d
    and fdtd_2d a third of the hand-written time, ``benchmarks/check_cost.py``)."""
    return o


def _stored(o: Any, stored: Any) -> Any:
    return stored


def _zero_times(c: Any) -> Any:
    """float32, 0 where ``c`` is finite and NaN where not: ``c - c`` (``c * 0`` broadcast
    a zero that XLA's CPU backend materialised)."""
    zero = c - c
    if zero.dtype.kind == "c":
        zero = jnp.real(zero) + jnp.imag(zero)
    return zero.astype(np.float32)


def _nan_where_not_finite(c: Any) -> Any:
    """``_zero_times`` on a TPU: there float64 is emulated, and ``c - c`` and its conversion
    are some 30 32-bit operations an element (for XLA to compile as well as run, in every
    loop body), where ``isfinite`` reads the exponent bits."""
    return jnp.where(jnp.isfinite(c), np.float32(0), np.float32(np.nan))


def any_nan(acc: Any) -> Any:
    """Whether an accumulator of ``parts`` (0 where its results are finite, NaN where not)
    holds a NaN, as one boolean fold (``_boolsums``, for XLA's CPU backend; on a TPU one
    reduction, which fuses the test into itself where the two halves' fold did not)."""
    return lax.platform_dependent(acc, tpu=_any_nan_tpu,
                                  default=lambda a: _boolsums.any_(jnp.isnan(a)))


def _any_nan_tpu(acc: Any) -> Any:
    return jnp.any(jnp.isnan(acc))


def _fits(shape: tuple, target: tuple) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (each of its elements shows there)."""
    if len(shape) > len(target):
        return False
    return all(n == 1 or n == m for n, m in zip(shape[::-1], target[::-1]))


def apart(a: Any, b: Any) -> bool:
    """Whether two boxes ((start, ...), (size, ...)) are known to share no element."""
    if a is None or b is None:
        return False
    return any(s0 + n0 <= s1 or s1 + n1 <= s0
               for s0, n0, s1, n1 in zip(a[0], a[1], b[0], b[1]))
