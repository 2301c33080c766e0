"""Python numbers a rolled loop carries (``t += dt``, ``count = count + 1``), computed on the
host (``npjax._compile._loops``).

NumPy code keeps time and counters in Python numbers: ``t = 0.0; for _ in range(n): ...;
t += dt``. Such a name changes every iteration, so a traced body cannot hold its value as
a Python number. When the body changes it only by Python arithmetic with Python numbers
(and other such names), its values do not depend on any array: the loop replays that
arithmetic on the host, in Python, for every iteration (``Replay.run``), so every value is
the one NumPy's run computes, bit for bit, and the name holds a Python number after the
loop. Inside the traced body the name is a ``LoopScalar``: Python arithmetic with numbers
gives another; as an operand of a ufunc or an array's operator it is the weak Python
scalar NumPy sees (NEP 50), a 0-d array read from the host values at the fori_loop
counter. Anything else needing its value (a comparison, ``float()``, an index, a store into
an array) abandons the roll, as does a name whose Python type changes between iterations
(``t = 0`` then ``t += 0.5``). An exception of the Python arithmetic (``ZeroDivisionError``)
abandons it too, so the unrolled loop raises it at its iteration.
"""

from __future__ import annotations

import contextvars
import operator
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from npjax._compile import _loop_index
from npjax._compile._loop_index import ARRAY_TYPES, LoopIndex, NoRoll
from npjax._core._ndarray import ndarray

__all__ = ["LoopScalar", "Replay", "current", "numbers"]

NUMBER_TYPES = (int, float)


def numbers(v0: Any, v1: Any) -> bool:
    """Whether a carried name starts and ends one iteration as Python numbers (not bool)."""
    return type(v0) in NUMBER_TYPES and (type(v1) in NUMBER_TYPES or type(v1) is LoopScalar)


class Replay:
    """The carried numbers of one rolled loop: their start values, the host functions of
    one iteration (``fns``, from the body's trace), the values at the start of every rolled
    iteration (``states``) and the traced fori_loop counter of the body being traced."""

    def __init__(self, at: list[int], start: tuple) -> None:
        self.at = at  # positions of the carried names
        self.start = start
        self.kinds = tuple(type(v) for v in start)
        self.states: list[tuple] | None = None  # None while probing
        self.counter: Any = None
        self.made: list[LoopScalar] = []  # every number the body's trace computed
        self.fns: list[Callable] = []  # one iteration's function per number (``learn``)

    def inputs(self) -> list[LoopScalar]:
        return [LoopScalar(_reader(i), self, kind) for i, kind in enumerate(self.kinds)]

    def learn(self, outs: tuple) -> None:
        """The functions of one iteration from what the body's names end as."""
        fns = []
        for j, kind in zip(self.at, self.kinds):
            v = outs[j]
            if type(v) is LoopScalar and v.replay is self:
                got_kind, fn = v.kind, v.fn
            elif type(v) in NUMBER_TYPES:
                got_kind, fn = type(v), _constant(v)
            else:
                raise NoRoll("a carried Python number ends as something else")
            if got_kind is not kind:
                raise NoRoll("a carried Python number changes type")
            fns.append(fn)
        self.fns = fns

    def run(self, counters: range) -> tuple:
        """The values at the start of every iteration of ``counters``; returns those after
        the last one."""
        state, states = self.start, []
        try:
            for c in counters:
                states.append(state)
                state = tuple(fn(c, state) for fn in self.fns)
            for x in self.made:  # (NumPy's run computes each, and may raise there)
                for c, s in enumerate(states):
                    x.fn(c, s)
        except ArithmeticError as exc:  # ZeroDivisionError, OverflowError: unrolled, it raises
            raise NoRoll(f"a carried Python number raises {type(exc).__name__}") from None
        if any(type(v) is not kind for v, kind in zip(state, self.kinds)):
            raise NoRoll("a carried Python number changes type")
        self.states, self.made = states, []
        return state


def _reader(i: int) -> Callable:
    return lambda c, state: state[i]


def _constant(v: Any) -> Callable:
    return lambda c, state: v


def _kind(a: type, b: type, name: str) -> type:
    if name == "truediv":
        return float
    return float if float in (a, b) else int


def _binary(name: str, reflected: bool) -> Callable:
    op = getattr(operator, name)

    def method(self: LoopScalar, other: Any) -> Any:
        kind = type(other)
        if kind in ARRAY_TYPES:
            return NotImplemented
        if kind is LoopIndex:  # (``t + i``)
            return from_index(other, self, name, not reflected)
        if kind in NUMBER_TYPES:
            f, g = self.fn, _constant(other)
        elif kind is LoopScalar and other.replay is self.replay:
            f, g = self.fn, other.fn
            kind = other.kind
        else:
            raise NoRoll("a carried Python number in arithmetic with another value")
        if reflected:
            f, g = g, f
        return LoopScalar(lambda c, s: op(f(c, s), g(c, s)), self.replay,
                          _kind(self.kind, kind, name))
    return method


def _unary(name: str) -> Callable:
    op = getattr(operator, name)

    def method(self: LoopScalar) -> LoopScalar:
        f = self.fn
        return LoopScalar(lambda c, s: op(f(c, s)), self.replay, self.kind)
    return method


class LoopScalar:
    """A Python number a rolled loop carries, inside the traced body: ``fn(counter, state)``
    gives its value at an iteration (see the module docstring)."""

    __slots__ = ("fn", "kind", "replay")

    def __init__(self, fn: Callable, replay: Replay, kind: type) -> None:
        self.fn, self.replay, self.kind = fn, replay, kind
        if replay.states is None:
            replay.made.append(self)

    __add__, __radd__ = _binary("add", False), _binary("add", True)
    __sub__, __rsub__ = _binary("sub", False), _binary("sub", True)
    __mul__, __rmul__ = _binary("mul", False), _binary("mul", True)
    __truediv__, __rtruediv__ = _binary("truediv", False), _binary("truediv", True)
    __floordiv__, __rfloordiv__ = _binary("floordiv", False), _binary("floordiv", True)
    __mod__, __rmod__ = _binary("mod", False), _binary("mod", True)
    __neg__, __pos__, __abs__ = _unary("neg"), _unary("pos"), _unary("abs")

    def _needs_value(self, *args: Any) -> Any:
        if args and type(args[0]) in ARRAY_TYPES:  # an array's reflected operator takes it
            return NotImplemented
        raise NoRoll("a carried Python number is used as a value")

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _needs_value  # type: ignore
    __index__ = __int__ = __float__ = __complex__ = __bool__ = __hash__ = _needs_value
    __pow__ = __rpow__ = __divmod__ = __rdivmod__ = __round__ = _needs_value
    __array__ = __jax_array__ = __iter__ = __len__ = __format__ = _needs_value

    def __getattr__(self, name: str) -> Any:
        raise NoRoll(f"a carried Python number's attribute {name!r} is read")

    def values(self) -> list:
        """Its value at every rolled iteration (zeros while probing)."""
        rp = self.replay
        if rp.states is None:
            return [self.kind(0)]
        return [self.fn(c, s) for c, s in enumerate(rp.states)]

    def traced(self, dtype: np.dtype) -> Any:
        """Its value at the traced counter, as a 0-d array of ``dtype``."""
        vals = self.values()
        host = np.asarray(vals, dtype=np.float64 if self.kind is float else np.int64)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if min(vals) < info.min or max(vals) > info.max:
                raise NoRoll(f"a carried Python int leaves the range of {dtype}")
        elif dtype.kind in "fc":
            if dtype not in (np.float64, np.float32, np.complex128, np.complex64):
                raise NoRoll(f"a carried Python number as a {dtype} operand")
            real = np.finfo(dtype)
            mags = np.abs(host)
            if np.any(mags > real.max) or np.any((mags < real.smallest_normal) & (mags > 0)):
                raise NoRoll(f"a carried Python number out of {dtype}'s normal range")
        else:
            raise NoRoll(f"a carried Python number as a {dtype} operand")
        table = jnp.asarray(host)
        x = table[0] if self.replay.states is None else table[self.replay.counter]
        return x.astype(dtype)


def operand(fn: Any, args: tuple, kwargs: dict) -> Any:
    """A ufunc call with a carried Python number among its operands: it becomes a 0-d array
    of the dtype NumPy gives that Python number there (NEP 50)."""
    if kwargs["dtype"] is not None or kwargs["casting"] != "same_kind" or \
            kwargs["signature"] is not None:
        raise NoRoll("a carried Python number in a ufunc call with dtype, casting or signature")
    others = [a.dtype if type(a) is ndarray or isinstance(a, np.generic) else
              a.kind(0) if type(a) is LoopScalar else a for a in args]
    if any(not isinstance(a, np.dtype | int | float | complex) for a in others):
        raise NoRoll(f"a carried Python number in {fn.__name__} with another operand")
    dt = np.result_type(*others)
    new = [ndarray._owner(a.traced(dt), True) if type(a) is LoopScalar else a for a in args]
    return fn(*new, **kwargs)


class _Counter:
    """The values of the loop index alone, where its loop carries no numbers (``i * dt``)."""

    def __init__(self, counter: Any, n: int) -> None:
        self.counter, self.states, self.made = counter, [()] * n, []


def from_index(index: LoopIndex, other: Any, op: str, reflected: bool) -> LoopScalar:
    """``index op other`` (``other op index`` when ``reflected``) with a Python number or a
    carried one: a number of the loop's iteration, computed on the host. Where the index
    alone decides it, it is computed for every iteration now (an exception, ``i / 0.0``,
    abandons the roll, and the unrolled loop raises it at its iteration)."""
    rp = _CURRENT.get()
    if rp is None or rp.counter is not index.k:
        rp = _Counter(index.k, index.kmax + 1)
    mul, add = index.mul, index.add

    def f(c: int, s: tuple) -> int:
        return c * mul + add
    if type(other) is LoopScalar:
        if other.replay is not rp:
            raise NoRoll("the loop index in arithmetic with another loop's number")
        g, kind = other.fn, other.kind
    else:
        g, kind = _constant(other), type(other)
    if reflected:
        f, g = g, f
    fn = getattr(operator, op)
    new = LoopScalar(lambda c, s: fn(f(c, s), g(c, s)), rp, _kind(int, kind, op))
    if rp.states is not None:
        try:
            new.values()
        except ArithmeticError as exc:
            raise NoRoll(f"the loop index's arithmetic raises {type(exc).__name__}") from None
    return new


_CURRENT: contextvars.ContextVar[Replay | None] = contextvars.ContextVar(
    "npjax_loop_scalars", default=None)


def current() -> contextvars.ContextVar[Replay | None]:
    """The replay of the loop whose body is being traced (its counter is set per trace)."""
    return _CURRENT


_loop_index.SCALARS[:] = [from_index, LoopScalar]
