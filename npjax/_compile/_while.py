"""``while`` loops of a function ``npjax.jit`` traces (``_loop_source`` rewrites each
eligible ``while TEST: BODY`` as ``run_while(test, body, names)``).

Python runs a ``while`` loop until its test is false, so a test that is a traced value
(``while x.sum() < 100:``, ``while err > tol:`` once ``err`` is an array's result) cannot
be iterated while tracing. ``run_while`` iterates as written while the test is a Python
value (``err = 1.0`` before the first iteration), and rolls the rest into one
``lax.while_loop`` from the first test that is traced (a 0-d npjax array). The loop carries:
- the names the body binds that hold arrays when the loop starts (writable, C-ordered
  owners), where the body leaves each a new array of the same shape, dtype and kind
  (scalar or array); names it leaves as they were (the same object) stay. Such a name is a
  new array after the loop, as NumPy's is after one iteration or more; where no iteration
  runs it must be the object it held, so that call reruns eagerly (a device-side check);
- every array the body writes in place (``x[i] = ...``, ``x *= 2``), found by tracing the
  body once first (``_loop_probe``), as a rolled ``for`` loop's writes are;
- the test's value after each iteration, and one flag gathering the device-side checks of
  every iteration (index bounds, NumPy's error state: each non-finite float result of the
  body or the test reruns the call eagerly, which gives NumPy's warnings).
Safety is the rolled ``for`` loop's (``_loops``): the body and the test are traced with the
guard up, so a call of anything but npjax, JAX, ``math`` and pure builtins, a store into
anything but an npjax array, or code of the user's run implicitly stops the roll. A name
bound before the loop to a Python number or another object that the body changes (``it +=
1``), a name the body binds for the first time that the code after the loop may read (bound
or not depends on the trip count), or anything else that stops the roll raises
``LoopNeeded`` (``npjax.JitError``): the loop's trip count is a traced value, so it cannot
run as written.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from npjax._compile import _user_code as _watch
from npjax._compile._loop_index import NoRoll
from npjax._compile._loop_probe import _enter_body, _leave_body, _reset, _state
from npjax._compile._loops import UNBOUND, LoopOutcome, _internal, _NOTE
from npjax._core._ndarray import ndarray
from npjax._pure._errors import JitError
from npjax._runtime import _context, _finite_watch

__all__ = ["LoopNeeded", "run_while"]

_Tracer = jax.core.Tracer


class LoopNeeded(JitError):
    """A ``while`` loop whose test is traced cannot be rolled."""


def _traced(c: Any) -> bool:
    return type(c) is ndarray and c.ndim == 0 and isinstance(c._read(), _Tracer)


def _truth(c: ndarray) -> Any:
    v = c._read()
    return v if v.dtype == bool else v != 0  # (Python's truth of a number)


def _fold(tr: Any, bad: Any) -> Any:
    """``bad`` or any device-side check the trace gathered since the body began."""
    sums, tiny = tr.watch.parts(frozenset())
    for f in tr.checks + tiny:
        bad = bad | jnp.asarray(f, bool).reshape(())
    for shape in sorted(sums):
        bad = bad | _finite_watch.any_nan(sums[shape])
    return bad


def _restore(roots: list, values: list) -> None:
    for root, v in zip(roots, values):
        root._rebind(v, clear=True)


def _roll(tr: Any, test: Any, body: Any, vals: tuple, c: ndarray, keep: Any,
          names: tuple) -> tuple:
    state = _state(tr)
    found: dict = {}

    def probe(x: Any) -> Any:  # one trace of the body: what it writes, what names end as
        inner = x._trace
        p, token = _enter_body(tr, inner, state)
        try:
            outs = tuple(body(*vals))
            _watch.check()
            found["outs"] = [(_internal(v, inner), v is v0, v0) for v, v0 in zip(outs, vals)]
            found["written"] = [(r, v, layout) for r, v, _, layout in p.saved.values()]
            found["shapes"] = [(r._value.shape, r._value.dtype) for r, *_ in
                               p.saved.values()]
            found["out_kinds"] = [(v._value.shape, v._value.dtype, v._scalar)
                                  if type(v) is ndarray and v._base is None else None
                                  for v in outs]
        finally:
            _leave_body(token)
            p.restore()
        return x

    try:
        jax.make_jaxpr(probe)(jax.ShapeDtypeStruct((), bool))
    finally:
        _reset(tr, state)
    carry_at = []
    for j, (internal, same, v0) in enumerate(found["outs"]):
        if same:
            continue
        kind = found["out_kinds"][j]
        if v0 is UNBOUND:
            if keep is None or j in keep:
                raise NoRoll(f"{names[j]!r}, which the body binds first, is read after the "
                             "loop (bound or not depends on the trip count)")
            continue
        if not internal or type(v0) is not ndarray or v0._base is not None or \
                v0._readonly or (v0._layout is not None and not v0._layout.flags.c_contiguous) \
                or kind != (v0._value.shape, v0._value.dtype, v0._scalar):
            what = "a Python number" if isinstance(v0, int | float | complex) else \
                f"a {type(v0).__name__}"
            raise NoRoll(f"{names[j]!r} holds {what} before the loop and the body rebinds it "
                         "to something else than a new array of the same shape and dtype "
                         "(its value would depend on the traced trip count)")
        carry_at.append(j)
    written = found["written"]
    roots = [r for r, _, _ in written]
    known = {id(r) for r in roots}
    for (root, v, layout), (shape, dtype) in zip(written, found["shapes"]):
        if not isinstance(v, jax.Array) or root._layout is not layout or \
                v.shape != shape or v.dtype != dtype:
            raise NoRoll("the body changes an array's shape or dtype")

    def step(carry: tuple) -> tuple:
        bad, _, _, root_vals, name_vals = carry
        inner = bad._trace
        _restore(roots, root_vals)
        cur = list(vals)
        for j, v in zip(carry_at, name_vals):
            cur[j] = ndarray._owner(v, vals[j]._scalar)
        p, token = _enter_body(tr, inner, state, False)
        try:
            outs = tuple(body(*cur))
            again = test(*outs)
            _watch.check()
        finally:
            _leave_body(token)
        if any(key not in known for key in p.saved):
            raise NoRoll("the body writes other arrays than when probed")
        if not _traced(again):
            raise NoRoll("the test is not a traced 0-d value on every iteration")
        bad = _fold(tr, bad)
        new_roots = [lax.convert_element_type(r._read(), v.dtype)
                     for r, v in zip(roots, root_vals)]
        new_names = []
        for j, v in zip(carry_at, name_vals):
            o = outs[j]
            if type(o) is not ndarray or o._base is not None or o._value.shape != v.shape \
                    or o._value.dtype != v.dtype:
                raise NoRoll("a carried name changes kind")
            new_names.append(o._read())
        return bad, _truth(again), jnp.ones((), bool), new_roots, new_names

    init = (jnp.zeros((), bool), _truth(c), jnp.zeros((), bool), [r._value for r in roots],
            [vals[j]._read() for j in carry_at])
    starts = [r._value for r in roots]
    try:
        bad, _, ran, root_vals, name_vals = lax.while_loop(lambda s: s[1] & ~s[0], step,
                                                            init)
    except BaseException:
        _restore(roots, starts)
        raise
    finally:
        _reset(tr, state)
    _restore(roots, root_vals)
    tr.check(bad)
    if carry_at:  # no iteration: the names hold the objects they held (identity), eagerly
        tr.check(~ran)
    out = list(vals)
    for j, v in zip(carry_at, name_vals):
        out[j] = ndarray._owner(v, vals[j]._scalar)
    return tuple(out)


def run_while(test: Any, body: Any, ins: tuple, line: int, keep: Any = None,
              names: tuple = ()) -> tuple:
    """``while test(*names): names = body(*names)`` of the transformed function: as written
    while the test is a Python value; rolled from the first traced one."""
    tr = _context.trace()
    vals = tuple(ins)
    runs = 0
    while True:
        c = test(*vals)
        if tr is not None and _traced(c):
            break
        if not c:
            return vals
        vals = tuple(body(*vals))
        runs += 1
    try:
        out = _roll(tr, test, body, vals, c, keep, names)
    except NoRoll as exc:
        raise LoopNeeded(f"this while loop's test is a traced value, and the loop cannot "
                         f"roll into lax.while_loop: {exc}") from None
    # (any other exception is the trace's: npjax.jit reruns the call eagerly for NumPy's,
    # reports what cannot trace, or lets the user's propagate)
    if _NOTE.get():
        tr.loops.append(LoopOutcome(line, -1, True, runs + 2, ""))
    return out
