"""Python's builtin ``max``/``min`` of traced 0-d values under ``npjax.jit``
(``max(a[0], b[0])``, ``min(x.sum(), 3.0)``).

Python's ``max(a, b)`` keeps ``a`` and replaces it by each later argument that compares
greater (``b > a``; ``min``: ``b < a``), so it returns one of its arguments, the first where
no comparison is true (NaN: ``max(nan, 1.0)`` is nan, ``max(1.0, nan)`` is 1.0). With traced
values that comparison is a traced bool a Python ``if`` cannot take, but the rule is a
select: each comparison, made with NumPy's operator on the arguments as Python makes it,
picks the value with ``where``.

The result must have one type whatever the values. It is an npjax scalar of the first traced
argument's dtype (``kind``). Another argument of the same kind (an npjax scalar of that dtype)
is picked as Python picks it; one of another kind (a Python number, a NumPy scalar or an
npjax scalar of another dtype: Python's ``max`` would return it, with its own type and
promotion rules downstream) is a device-side check when it is picked, so such a call reruns
eagerly and gives NumPy's object. Calls with keywords (``key=``, ``default=``), an iterable
argument, 0-d arrays that are not scalars (Python returns the object itself, which may be
written through) or other objects go to the builtin as written.
"""

from __future__ import annotations

import builtins
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._context import trace
from npjax._core._ndarray import ndarray

__all__ = ["swap"]

_NUMBERS = (int, float, bool)


def _traced(a: Any) -> bool:
    return type(a) is ndarray and a.ndim == 0 and isinstance(a._read(), jax.core.Tracer)


def _plain(a: Any) -> bool:
    return (type(a) is ndarray and a.ndim == 0) or type(a) in _NUMBERS or (
        isinstance(a, np.generic) and a.dtype.kind in "biuf")


def _select(builtin: Any, greater: bool, args: tuple) -> Any:
    first = next(a for a in args if _traced(a))
    if not first._scalar or first.dtype.kind not in "biuf":
        return builtin(*args)
    dtype = first.dtype

    def same(a: Any) -> bool:
        return type(a) is ndarray and a._scalar and a.dtype == dtype

    def value(a: Any) -> Any:  # (picked, a value of another kind reruns eagerly)
        if type(a) is ndarray:
            return a._read().astype(dtype)
        return jnp.asarray(np.asarray(a)).astype(dtype)

    cur, val, bad = args[0], None, not same(args[0])
    for b in args[1:]:
        cond = b > cur if greater else b < cur
        if type(cond) is ndarray:
            cond = cond._read()
        elif not isinstance(cond, bool | np.bool_ | jax.Array):
            return builtin(*args)
        if val is None:
            val = value(cur)
        val = jnp.where(cond, value(b), val)
        bad = jnp.where(cond, not same(b), bad)
        cur = ndarray._owner(val, True)
    tr = trace()
    if isinstance(bad, jax.Array) or bad:
        tr.check(bad)
    return cur


def _make(builtin: Any, greater: bool) -> Any:
    def run(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) < 2 or trace() is None or not any(map(_traced, args)) or \
                not all(map(_plain, args)):
            return builtin(*args, **kwargs)
        return _select(builtin, greater, args)
    run.__name__ = run.__qualname__ = builtin.__name__
    run.__doc__ = builtin.__doc__
    return run


_TRACED = {id(builtins.max): _make(builtins.max, True),
           id(builtins.min): _make(builtins.min, False)}


def swap(f: Any) -> Any:
    """The callee of a call in a rewritten function: builtin ``max``/``min`` as above."""
    return _TRACED.get(id(f), f) if type(f) is type(builtins.max) else f
