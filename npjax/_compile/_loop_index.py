"""The loop index of a rolled loop (``LoopIndex``: the ``fori_loop`` counter times a step plus
a start, knowing the interval of its values) and ``NoRoll``, which abandons a roll
(``npjax._compile._loops``)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from npjax._core._ndarray import ndarray

__all__ = ["LoopIndex", "NoRoll", "index_operand"]


# The array types (npjax's ndarray, registered by ``_loops``) whose reflected operators take
# the loop index as an operand (``labels == k``, ``k * x``).
ARRAY_TYPES: set = set()
# The loop index in arithmetic with a Python float or a carried Python number (``i * dt``,
# ``i / n``): ``_loop_scalars.from_index(index, other, op name, reflected)`` gives a number
# computed on the host (registered by ``_loop_scalars``, with the carried numbers' type).
SCALARS: list = []


class NoRoll(BaseException):
    """Raised inside a probe to abandon rolling (a BaseException: user code never catches it,
    ``try`` being refused in rolled bodies)."""



def _ordering(test: Any) -> Any:
    """``<``, ``<=``, ``>`` or ``>=`` of a loop index (``test`` of the difference): the Python
    bool every rolled iteration gives alike (``if k < n - 1:``, false only on the last
    iteration, which runs as written), else NoRoll."""
    def compare(self: LoopIndex, other: Any) -> bool:
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        d = self._difference(other)
        answer = test(d.lo)
        if test(d.hi) is not answer:
            raise NoRoll("a comparison of the loop index that changes with it")
        d.note_next(test(d.next) is not answer)
        return answer
    return compare


class LoopIndex:
    """The loop variable of a rolled loop: ``k * mul + add`` for the fori_loop counter ``k``
    in ``[0, kmax]``. Integer arithmetic with Python ints stays a LoopIndex; it can index
    npjax arrays (``a[i]``, ``a[i - 1, :]``, ``a[i:i + 2]``) where every value is in bounds.
    A comparison with a Python int that every value answers alike is that Python bool. As
    an operand of a ufunc or an array's operator it is the Python int NumPy sees there
    (``_loops._index_operand``); anything else needing its value (``int``, ``bool``, array
    data) abandons the roll."""

    __slots__ = ("add", "k", "kmax", "memo", "mul")

    def __init__(self, k: Any, kmax: int, mul: int, add: int, memo: dict | None = None) -> None:
        self.k, self.kmax, self.mul, self.add = k, kmax, mul, add
        self.memo = {} if memo is None else memo  # (mul, add) -> traced value, per body
        if max(abs(self.lo), abs(self.hi)) >= 2 ** 31 - 1:
            raise NoRoll("the loop index leaves the 32-bit range")

    @property
    def lo(self) -> int:
        return min(self.add, self.add + self.mul * self.kmax)

    @property
    def hi(self) -> int:
        return max(self.add, self.add + self.mul * self.kmax)

    @property
    def next(self) -> int:
        """The value after the last of the interval (``k = kmax + 1``)."""
        return self.add + self.mul * (self.kmax + 1)

    def note_next(self, differs: bool) -> None:
        """Remember (in ``memo``, shared by the indices of one body) that a decision taken
        alike for every value would differ for ``next``: a probe over all iterations but the
        last then knows that the last needs its own trace (``_loops._roll``)."""
        if differs:
            self.memo["next differs"] = True

    def traced(self) -> Any:
        """``k * mul + add`` traced, one object for equal indices of one body (so a store
        and a later read at ``a[i, i]`` name the same position, ``_jit._Trace.read_source``)."""
        got = self.memo.get((self.mul, self.add))
        if got is None:
            got = self.k * self.mul + self.add
            if getattr(got, "_trace", None) is getattr(self.k, "_trace", False):
                self.memo[self.mul, self.add] = got  # (not one made in an inner body)
        return got

    def _affine(self, mul: int, add: int) -> LoopIndex:
        return LoopIndex(self.k, self.kmax, mul, add, self.memo)

    def __add__(self, other: Any) -> LoopIndex:
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        if type(other) is int:
            return self._affine(self.mul, self.add + other)
        if type(other) is LoopIndex and other.k is self.k:
            return self._affine(self.mul + other.mul, self.add + other.add)
        return _number(self, other, "add", False)

    __radd__ = __add__

    def __sub__(self, other: Any) -> LoopIndex:
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        if type(other) is int:
            return self._affine(self.mul, self.add - other)
        if type(other) is LoopIndex and other.k is self.k:
            return self._affine(self.mul - other.mul, self.add - other.add)
        return _number(self, other, "sub", False)

    def __rsub__(self, other: Any) -> LoopIndex:
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        if type(other) is int:
            return self._affine(-self.mul, other - self.add)
        return _number(self, other, "sub", True)

    def __mul__(self, other: Any) -> LoopIndex:
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        if type(other) is int:
            return self._affine(self.mul * other, self.add * other)
        return _number(self, other, "mul", False)

    __rmul__ = __mul__

    def __neg__(self) -> LoopIndex:
        return self._affine(-self.mul, -self.add)

    def __pos__(self) -> LoopIndex:
        return self

    def _needs_value(self, *args: Any) -> Any:
        if args and type(args[0]) in ARRAY_TYPES:  # an array's reflected operator takes it
            return NotImplemented
        raise NoRoll("the loop index is used as a value")

    def _difference(self, other: Any) -> LoopIndex:
        if type(other) is int or (type(other) is LoopIndex and other.k is self.k):
            return self - other
        raise NoRoll("the loop index compared with a value that is not a Python int")

    __lt__ = _ordering(lambda d: d < 0)
    __le__ = _ordering(lambda d: d <= 0)
    __gt__ = _ordering(lambda d: d > 0)
    __ge__ = _ordering(lambda d: d >= 0)

    def __eq__(self, other: Any) -> bool:  # type: ignore[override]
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        d = self._difference(other)
        if d.lo == d.hi or d.lo > 0 or d.hi < 0:
            d.note_next((d.next == 0) is not (d.lo == 0))
            return d.lo == 0
        raise NoRoll("a comparison of the loop index that changes with it")

    def __ne__(self, other: Any) -> bool:  # type: ignore[override]
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __index__ = __int__ = __float__ = __complex__ = __bool__ = __hash__ = _needs_value
    def __truediv__(self, other: Any) -> Any:
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        return _number(self, other, "truediv", False)

    def __rtruediv__(self, other: Any) -> Any:
        if type(other) in ARRAY_TYPES:
            return NotImplemented
        return _number(self, other, "truediv", True)

    __floordiv__ = __rfloordiv__ = _needs_value
    __mod__ = __rmod__ = __pow__ = __rpow__ = __abs__ = __divmod__ = _needs_value
    __and__ = __or__ = __xor__ = __lshift__ = __rshift__ = __invert__ = _needs_value
    __array__ = __jax_array__ = __iter__ = __len__ = __format__ = _needs_value

    def __getattr__(self, name: str) -> Any:
        raise NoRoll(f"the loop index's attribute {name!r} is read")

    def __repr__(self) -> str:
        return f"<npjax loop index {self.mul}*k+{self.add}, k in [0, {self.kmax}]>"


def _number(index: LoopIndex, other: Any, op: str, reflected: bool) -> Any:
    """``index op other`` with a Python float, or ``/`` with a Python int, or with a carried
    Python number (``_loop_scalars``), else NoRoll."""
    if SCALARS and (type(other) is float or type(other) is SCALARS[1] or
                    (op == "truediv" and type(other) is int)):
        return SCALARS[0](index, other, op, reflected)
    raise NoRoll("the loop index in arithmetic with a value that is not a Python int")


def bounded(index: LoopIndex, n: int, where: str) -> LoopIndex:
    """``index`` as a position in ``range(n)`` on every iteration (negative ones counted from
    the end, as NumPy does), else ``NoRoll`` naming ``where``."""
    if index.lo >= 0 and index.hi < n:
        return index
    if index.lo >= -n and index.hi < 0:
        return index + n
    raise NoRoll(f"a loop index out of bounds (or of both signs) {where}")


def index_operand(fn: Any, args: tuple, kwargs: dict) -> Any:
    """A ufunc call with the loop index among its operands: the index becomes a 0-d array
    of the dtype NumPy gives a Python int there (NEP 50: the other operands' dtype, or the
    default int), where every value of the index fits that dtype (else NumPy's
    OverflowError, or its exact comparison, comes from the unrolled loop)."""
    if kwargs["dtype"] is not None or kwargs["casting"] != "same_kind" or \
            kwargs["signature"] is not None:
        raise NoRoll("the loop index in a ufunc call with dtype, casting or signature")
    others = [a.dtype if type(a) is ndarray or isinstance(a, np.generic) else a
              for a in args if type(a) is not LoopIndex]
    if any(not isinstance(a, np.dtype | int | float | complex) for a in others):
        raise NoRoll(f"the loop index in {fn.__name__} with a {type(others[0]).__name__}")
    dt = np.result_type(*others, 0)
    new = []
    for a in args:
        if type(a) is LoopIndex:
            if dt.kind in "iu":
                info = np.iinfo(dt)
                if a.lo < info.min or a.hi > info.max:
                    raise NoRoll(f"the loop index leaves the range of {dt}")
            a = ndarray._owner(jnp.asarray(a.traced()).astype(dt), True)
        new.append(a)
    return fn(*new, **kwargs)
