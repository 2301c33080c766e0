"""Python's conditional expression between two numbers, with a traced condition, under
``npjax.jit``: ``cost = 0 if a[i] == b[j] else 1``.

Python evaluates ``YES if COND else NO`` by asking ``bool(COND)``; a traced 0-d boolean
cannot answer while tracing. When both branches are number literals of one type (two ints
or two floats, as the rewrite of ``_loop_source`` checks), evaluating both costs nothing and
changes nothing, so the expression becomes a ``Picked``: the number Python would pick, as a
select on the device. It stands for a Python number: as an operand of a ufunc or of an
array's operator it is the weak scalar NumPy sees there (NEP 50: ``x_f32 + cost`` stays
float32), made of the two literals converted to the dtype NumPy gives it, which must hold
both exactly. Python arithmetic with numbers of its type (``cost + 1``, ``2 * cost``)
gives another ``Picked`` (both branches computed in Python). Anything else that needs its
value (a comparison, ``int()``, an index, printing) asks the traced condition, and
``npjax.jit`` reports the line as it reports any value-dependent Python code. A condition
that is not traced takes Python's own branch: the same objects, no select.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core._ndarray import ndarray
from npjax._placement._route import DEFERRED_UFUNC

__all__ = ["Picked", "operand", "pick"]


def pick(cond: Any, yes: Any, no: Any) -> Any:
    """``yes if cond else no`` for two number literals (the rewrite's helper)."""
    if type(cond) is ndarray and cond.ndim == 0 and cond.dtype == np.bool_ and \
            type(yes) is type(no) and type(yes) in (int, float):
        value = cond._read()
        if isinstance(value, jax.core.Tracer):
            return Picked(value, yes, no)
    return yes if cond else no


def _binary(op: Callable, reflected: bool) -> Callable:
    def method(self: Picked, other: Any) -> Any:
        if type(other) is not self.kind:  # (arrays, other number types: their own rules)
            return NotImplemented
        fn = (lambda v: op(other, v)) if reflected else (lambda v: op(v, other))
        try:
            yes, no = fn(self.yes), fn(self.no)
        except ArithmeticError:
            return self._needs_value()
        if type(yes) is not self.kind or type(no) is not self.kind:
            return self._needs_value()  # (``int / int`` is a float: Python's own types)
        return Picked(self.cond, yes, no)
    return method


class Picked:
    """One of two Python numbers, picked by a traced condition (see the module docstring)."""

    __slots__ = ("cond", "kind", "no", "yes")

    def __init__(self, cond: Any, yes: Any, no: Any) -> None:
        self.cond, self.yes, self.no, self.kind = cond, yes, no, type(yes)

    def _needs_value(self, *args: Any) -> Any:
        if args and type(args[0]) is ndarray:  # an array's reflected operator takes it
            return NotImplemented
        return bool(self.cond)  # (a traced bool: npjax.jit names the line)

    __add__, __radd__ = _binary(operator.add, False), _binary(operator.add, True)
    __sub__, __rsub__ = _binary(operator.sub, False), _binary(operator.sub, True)
    __mul__, __rmul__ = _binary(operator.mul, False), _binary(operator.mul, True)

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _needs_value  # type: ignore
    __index__ = __int__ = __float__ = __complex__ = __bool__ = __hash__ = _needs_value
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = \
        __pow__ = __rpow__ = __neg__ = __abs__ = __round__ = _needs_value
    __array__ = __jax_array__ = __iter__ = __len__ = __format__ = _needs_value

    def traced(self, dtype: np.dtype) -> Any:
        """The picked number as a 0-d array of ``dtype``, which holds both exactly."""
        pair = np.array([self.yes, self.no])
        with np.errstate(all="ignore"):
            held = pair.astype(dtype)
        if dtype.kind not in "iufc" or not np.array_equal(held, pair):
            return self._needs_value()
        return jnp.where(self.cond, held[0], held[1])


def operand(fn: Any, args: tuple, kwargs: dict) -> Any:
    """A ufunc call (operators included) with a ``Picked`` among its operands: it becomes a
    0-d array of the dtype NumPy gives its Python number there (NEP 50)."""
    if kwargs["dtype"] is not None or kwargs["casting"] != "same_kind" or \
            kwargs["signature"] is not None:
        return args[[type(a) for a in args].index(Picked)]._needs_value()
    others = [a.dtype if type(a) is ndarray or isinstance(a, np.generic) else
              a.kind(0) if type(a) is Picked else a for a in args]
    if any(not isinstance(a, np.dtype | int | float | complex) for a in others):
        return args[[type(a) for a in args].index(Picked)]._needs_value()
    dt = np.result_type(*others)
    new = [ndarray._owner(a.traced(dt), True) if type(a) is Picked else a for a in args]
    return fn(*new, **kwargs)


DEFERRED_UFUNC[Picked] = operand
