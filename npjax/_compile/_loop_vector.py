"""Rolled loops whose iterations are independent, run at once (``_loops``): the body is
traced once under ``jax.vmap`` over the loop counter instead of as a ``lax.fori_loop``.

Only Python lists of arrays carried stacked (``_loop_lists``) may change, and each changed
list must follow one of two patterns, read from the log of the probe's accesses
(``Frame.log``); everything else keeps the ``fori_loop``:

- *map*: the body touches the list at one position ``k * mul + add`` only (``mul != 0``):
  iteration ``k`` reads and writes its own slot, which no other iteration touches, so the
  body traced once for all ``k`` from the values before the loop gives each slot what the
  loop gives it; the rows are put in place at once.
- *accumulation*: every access to the list is ``lst[k * mul + add] op= e`` (its read, the
  operator on the object read, its store; each position once per iteration): ``e`` reads
  nothing of the list, so it is the same run at once. Slot ``s`` gets the statement of
  offset ``add`` at iteration ``(s - add) / mul``; whole statements applied in the order
  of those iterations (decreasing ``add`` for ``mul > 0``) apply each slot's operators in
  the loop's order, each the same npjax operator on the same operands (no reassociation).

No array root may be written, no carried name may change, no closure list may be made per
iteration (``Lists.kept``), and no loop inside the body may roll as a ``fori_loop``.
XLA's reductions, products and scans of floats do not promise one order for a batch and
for one item (a float64 ``reduce_sum`` of 3 elements, batched, differed from the same one
alone in about 1 of 7 random cases on the CPU), so a body whose program holds one
(``reduce_sum`` of floats, as ``np.linalg.norm`` makes, ``dot_general``, ...) is refused.

Error state: the body's checks are batched and folded with ``or``; the values the
accumulation operators leave are checked as the loop checks them. The body's own results
of an operator on a slot's old value are checked too (they are values the loop does not
make: a flag raised only by them reruns the call eagerly, as any flag does).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.extend import core as jcore

from npjax._compile import _loop_lists
from npjax._compile import _user_code as _watch
from npjax._compile._loop_index import LoopIndex, NoRoll
from npjax._core._ndarray import ndarray
from npjax._runtime import _finite_watch
from npjax._runtime._policy import _cpu_backend

__all__ = ["attempt", "ordered", "plan", "run"]

# On XLA's CPU backend a fori_loop of a few iterations costs less than the batched run (its
# kernels are more, each a task of the runtime): particles with 16 beads (loops of 14 to 16
# iterations over 3-vectors) took 0.080 ms a call as fori_loops and 0.104 ms batched; with
# 24 beads (22 to 24 iterations, 30 steps) 0.93 ms and 0.52 ms.
MIN_TRIPS_CPU = 20

# primitives whose result on floats may depend on an order XLA picks per program
_ORDERED = frozenset((
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce", "cumsum", "cumprod",
    "cummax", "cummin", "cumlogsumexp", "dot_general", "conv_general_dilated", "fft",
    "reduce_window_sum", "reduce_window", "reduce_window_max", "reduce_window_min",
    "select_and_scatter_add", "select_and_gather_add", "cholesky", "lu", "qr", "eigh", "eig",
    "svd", "triangular_solve", "schur", "hessenberg", "tridiagonal", "tridiagonal_solve",
    "householder_product", "psum", "custom_linear_solve"))
_SCATTERS = frozenset(("scatter", "scatter-add", "scatter_add", "scatter-mul", "scatter_mul",
                       "scatter-min", "scatter_min", "scatter-max", "scatter_max"))
_REFUSED = frozenset(("while", "scan", "ffi_call", "custom_call", "pure_callback",
                      "io_callback", "debug_callback"))
_OPS = frozenset(("Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow", "LShift", "RShift",
                  "BitAnd", "BitOr", "BitXor"))


def _floats(eqn: Any) -> bool:
    return any(getattr(getattr(v, "aval", None), "dtype", None) is not None and
               v.aval.dtype.kind in "fc" for v in list(eqn.invars) + list(eqn.outvars))


def _subjaxprs(value: Any) -> list:
    if isinstance(value, jcore.ClosedJaxpr):
        return [value.jaxpr]
    if isinstance(value, jcore.Jaxpr):
        return [value]
    if isinstance(value, tuple | list):
        return [j for v in value for j in _subjaxprs(v)]
    return []


def ordered(jaxpr: Any) -> str | None:
    """The first primitive of ``jaxpr`` (nested ones too) that a batch may not compute as
    each item alone, bit for bit, or None."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _REFUSED or (name in _ORDERED and _floats(eqn)) or (
                name in _SCATTERS and not eqn.params.get("unique_indices", False)):
            return name
        for v in eqn.params.values():
            for sub in _subjaxprs(v):
                got = ordered(sub)
                if got is not None:
                    return got
    return None


def plan(log: list, changed: set, lists: Any) -> dict | None:
    """{list: ("map", position) or ("acc", [(position, op), ...] in the order to apply)}
    for every changed list (positions ``(mul, add)``), or None when one follows neither
    pattern."""
    events: dict[int, list] = {j: [] for j in changed}
    for e in log:
        if e[1] in events:
            events[e[1]].append(e)
    out: dict = {}
    for j, evs in events.items():
        positions = {e[2] for e in evs}
        if not positions or any(p[0] == 0 for p in positions):
            return None  # (every iteration at one slot)
        if len(positions) == 1:
            out[j] = ("map", positions.pop())
            continue
        if len(evs) != 3 * len(positions):
            return None
        steps = []
        for a in range(0, len(evs), 3):
            (r, _, p0), aug, (w, _, p2) = evs[a:a + 3]
            if r != "read" or aug[0] != "aug" or w != "write" or not aug[2] == p0 == p2 or \
                    aug[3] not in _OPS:
                return None
            steps.append((p0, aug[3]))
        mul = steps[0][0][0]
        # slot s meets offset ``add`` at iteration (s - add) / mul: apply in that order
        out[j] = ("acc", sorted(steps, key=lambda s: -s[0][1] if mul > 0 else s[0][1]))
    return out


def attempt(tr: Any, body: Any, r: range, ins: tuple, classes: list, written: list,
            checks: tuple, lists: Any) -> tuple | None:
    """The loop's names after running it at once (``run``), or None where its iterations
    are not shown independent (then it rolls as a ``fori_loop``). A carried array that the
    body writes before reading it (a name left by an earlier loop) is proved scratch by a
    probe with the name unbound."""
    from npjax._compile import _loops as L
    if len(r) - 1 < MIN_TRIPS_CPU and _cpu_backend():
        return None
    if not lists.enabled or lists.kept or written or \
            not set(classes) <= {"index", "same", "scratch", "carry"} or \
            ordered(lists.jaxpr) is not None or \
            plan(lists.log, lists.changed, lists) is None:
        return None
    kmax, mul, add = len(r) - 2, r.step, r.start
    if "carry" in classes:
        saved = (list(lists.order), set(lists.changed), lists.log, lists.jaxpr)
        unbound = tuple(L.UNBOUND if c == "carry" else v for c, v in zip(classes, ins))
        try:
            classes, written, checks, _ = L._probe(tr, body, kmax, mul, add, unbound, lists)
        except NoRoll:
            classes = ["carry"]
        except Exception as exc:
            if _watch.users_in_body(exc):  # (a signal handler's: the user's, at once)
                raise
            classes = ["carry"]
        if not set(classes) <= {"index", "same", "scratch"} or written or lists.kept or \
                ordered(lists.jaxpr) is not None:
            lists.order[:], lists.changed, lists.log, lists.jaxpr = saved
            return None
        ins = unbound
    how = plan(lists.log, lists.changed, lists)
    if how is None:
        return None
    try:
        return run(tr, body, r, ins, lists, how, checks, kmax, mul, add)
    except NoRoll:  # (nothing is changed yet: the fori_loop decides)
        return None
    except Exception as exc:
        if _watch.users_in_body(exc):  # (a signal handler's: the user's, at once)
            raise
        return None


def _slots(mul: int, add: int, n: int) -> Any:
    return add + mul * jnp.arange(n)


def _take(value: Any, mul: int, add: int, n: int) -> Any:
    """The rows ``k * mul + add`` of ``value`` for k in range(n) (a strided slice)."""
    if mul > 0:
        return lax.slice_in_dim(value, add, add + mul * (n - 1) + 1, mul, axis=0)
    last = add + mul * (n - 1)
    return lax.rev(lax.slice_in_dim(value, last, add + 1, -mul, axis=0), (0,))


def _put(value: Any, rows: Any, mul: int, add: int) -> Any:
    """``value`` with rows ``k * mul + add`` replaced by ``rows`` (distinct slots)."""
    rows = rows.astype(value.dtype)
    if mul == 1:
        return lax.dynamic_update_slice_in_dim(value, rows, add, axis=0)
    return value.at[_slots(mul, add, rows.shape[0])].set(rows, unique_indices=True,
                                                         indices_are_sorted=mul > 0)


def _flag(tr: Any, bad: Any, later: frozenset = frozenset()) -> tuple:
    """(``bad`` or'ed with the checks the trace ``tr`` gathered since they were reset, but
    those of the results ``later`` names, the shapes of its error-state sums, whether there
    was any check)."""
    sums, tiny = tr.watch.parts(later)
    for f in tr.checks + tiny:
        bad = bad | jnp.asarray(f, bool).reshape(())
    for shape in sums:
        bad = bad | _finite_watch.any_nan(sums[shape])
    return bad, tuple(sorted(sums)), bool(sums or tiny or tr.checks)


def _nonfinite(x: Any) -> Any:
    """Whether ``x`` holds a value that is not finite (as ``FiniteWatch.parts`` checks)."""
    zero = x - x
    if zero.dtype.kind == "c":
        zero = jnp.real(zero) + jnp.imag(zero)
    return _finite_watch.any_nan(zero.astype(jnp.float32))


def run(tr: Any, body: Any, r: range, ins: tuple, lists: Any, how: dict, checks: tuple,
        kmax: int, mul: int, add: int) -> tuple:
    """All iterations of ``r`` but the last at once (``how``: ``plan``), then the last one
    in Python; NoRoll (everything as it was) where the batched trace differs from the
    probe's."""
    from npjax._compile import _loops as L  # (``_loops`` imports this module)
    n = len(r) - 1
    state = L._state(tr)
    stacks = [s.stack(lists.cache) for s in lists.order]

    # the items the probe read, by iteration: slices (a gather by the batched index would
    # be a kernel of its own)
    reads = {(e[1], e[2]) for e in lists.log if e[0] == "read"}
    pre = {jp: _take(stacks[jp[0]], *jp[1], n) for jp in reads}

    def one(k: Any, rows: dict) -> tuple:
        probe, token = L._enter_body(tr, k._trace, (None,) * 5, False)  # (probed)
        frame, ftoken = L._frame(lists, k, list(stacks), False)
        frame.operands, frame.rows = True, rows
        try:
            outs = body(LoopIndex(k, kmax, mul, add), *ins[1:])
            _watch.check()
            changes = frame.changes()
            log = list(frame.log)
        finally:
            L._leave_body(token)
            L._leave(frame, ftoken)
            written = bool(probe.saved)
            probe.restore()
        if written:
            raise NoRoll("the body writes an array")
        if {j for j, c in enumerate(changes) if c} != set(how) or \
                plan(log, set(how), lists) != how:
            raise NoRoll("the body accesses its lists otherwise than when probed")
        for v0, v1 in zip(ins[1:], outs[1:]):
            if not (v1 is v0 or v0 is L.UNBOUND or L._static_same(v0, v1)):
                raise NoRoll("a carried name changes")
        if tuple(sorted(tr.watch.parts()[0])) != checks[1]:
            raise NoRoll("the body's error-state checks differ from the probe's")
        rows, operands, later = {}, {}, set()
        for j, (kind, p) in ((j, (h[0], h[1])) for j, h in how.items()):
            if kind == "map":
                rows[j] = jnp.asarray(changes[j][p]._read())
                if tr.watch.checks_itself(changes[j][p]._value):
                    later.add(id(changes[j][p]._value))
                    after.add(j)
        # (a stored row is checked as read back from the list's new value: checking the
        # row itself beside its store cost XLA's CPU runtime 35 us more per call)
        bad, _, _ = _flag(tr, jnp.zeros((), bool), frozenset(later))
        for e in log:
            if e[0] == "aug" and e[1] in how and how[e[1]][0] == "acc":
                if e[4] is None:
                    raise NoRoll("an in-place operator on a list item with an operand of "
                                 "another kind")
                array = type(e[4]) is tuple
                operands[e[1], e[2]] = e[4][0] if array else None
                statics[e[1], e[2]] = e[4][2] if array else e[4]
        return bad, rows, operands

    statics: dict = {}
    after: set = set()  # the lists whose stored rows are checked where they are stored
    try:
        bad, rows, operands = jax.vmap(one)(jnp.arange(n, dtype=L._index_dtype()), pre)
    finally:
        L._reset(tr, state)
    bad, some = jnp.any(bad), bool(checks[0] or checks[1])
    values = list(stacks)
    for j, h in how.items():
        if h[0] == "map":
            values[j] = _put(values[j], rows[j], *h[1])
            if j in after:
                bad = bad | _nonfinite(_take(values[j], *h[1], n))
            continue
        for p, op in h[1]:
            cur = _take(values[j], p[0], p[1], n)
            new, flags, more, stored = _apply(tr, op, cur, operands[j, p], statics[j, p])
            bad, some = bad | jnp.any(flags), some or more
            values[j] = _put(values[j], new, *p)
            if stored:
                bad = bad | _nonfinite(_take(values[j], *p, n))
    for j in how:
        lists.order[j].write_back(values[j], lists.cache)
    if some:
        tr.check(bad)
    return tuple(body(r[-1], *ins[1:]))


def _apply(tr: Any, op: str, cur: Any, batched: Any, static: Any) -> tuple:
    """``row op= e`` for each row of ``cur`` and operand ``e`` (``batched``: an array
    operand's values by iteration, else the Python or NumPy scalar ``static``), as the body
    applies it (npjax's in-place operator on a plain array), with its checks."""
    from npjax._compile import _loops as L
    state = L._state(tr)
    some, stored = [], []

    def each(row: Any, e: Any) -> tuple:
        tr.checks, tr.watch = [], _finite_watch.FiniteWatch()
        tr.loop_probe = L._Probe(row._trace, None)  # (the rows are this trace's own)
        obj = ndarray._owner(row, False)
        operand = static if e is None else ndarray._owner(e, static)
        res = L._AUG_OPS[op](obj, operand)
        if not _loop_lists._plain(res) or res._value.shape != row.shape:
            raise NoRoll("an in-place operator leaves another kind of list item")
        stored.append(tr.watch.checks_itself(res._value))  # (checked where it is stored)
        bad, _, found = _flag(tr, jnp.zeros((), bool),
                              frozenset((id(res._value),) if stored[-1] else ()))
        some.append(found or stored[-1])
        return jnp.asarray(res._read()).astype(row.dtype), bad

    try:
        new, bad = jax.vmap(each)(cur, batched) if batched is not None else \
            jax.vmap(lambda row: each(row, None))(cur)
    finally:
        L._reset(tr, state)
    return new, bad, any(some), any(stored)
