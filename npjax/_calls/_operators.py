"""``ndarray`` operators from one table: each dunder is a ufunc call.

Reflected operators swap the operands; in-place operators are the ufunc with ``out=self``
(NumPy's same-kind casting, so ``int_array += 1.5`` raises). A NumPy scalar is immutable, so
an in-place operator on a scalar result rebinds the name to a new scalar instead.

An operator whose operands are all scalars (scalar results of device arrays, Python numbers,
NumPy scalars) is NumPy's scalar math: its warnings say "... encountered in scalar add", and
integer ``+``, ``-``, ``*``, negation and ``abs`` report overflow (``ufunc.scalar_call``).
Scalars of host arrays are NumPy's own.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._placement._host_paths import numpy_operator
from npjax._placement._route import DEFERRED_UFUNC
from npjax._runtime import _context
from npjax._runtime._context import trace
from npjax._core._traced_index import note_offset
from npjax._calls._ufuncs import UFUNCS
from npjax._calls._pair_calls import NOT_FAST, pair_call

BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift",
}
COMPARISON = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
              "gt": "greater", "ge": "greater_equal"}
UNARY = {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}


_PY_NUMBERS = (int, float, complex, bool)


def _scalar_math(*args: Any) -> bool:
    """Whether an operator on ``args`` is NumPy's scalar math computed on the device: every
    operand a scalar, one of them an npjax device scalar."""
    device = False
    for a in args:
        if type(a) is ndarray:
            if not a._scalar:
                return False
            device = device or a._host() is None
        elif type(a) not in _PY_NUMBERS and not isinstance(a, np.generic):
            return False
    return device


def _forward(uf):
    def op(self, other):
        if self._scalar and _scalar_math(self, other):
            return uf.scalar_call(self, other)
        return uf(self, other)
    return op


def _offset(uf, sign: int, reflected: bool):
    """``+``/``-`` (``sign``) of a scalar and a Python int: under ``npjax.jit`` the result
    of a traced scalar is noted as it plus that int (``a[s:s + 3]``: ``_traced_index``)."""
    def op(self, other):
        if self._scalar and _scalar_math(self, other):
            got = uf.scalar_call(other, self) if reflected else uf.scalar_call(self, other)
            if type(other) is int and trace() is not None:
                note_offset(got, self, other * sign)
            return got
        return uf(other, self) if reflected else uf(self, other)
    return op


def _reflected(uf):
    def op(self, other):
        if self._scalar and _scalar_math(self, other):
            return uf.scalar_call(other, self)
        return uf(other, self)
    return op


def _equality(uf, const: bool):
    """``==``/``!=``: None and strings compare elementwise as unequal objects (NumPy)."""
    def op(self, other):
        if other is None or isinstance(other, str | bytes):
            if self._scalar and other is None:
                return const
            return ndarray._owner(jnp.full(self.shape, const), self.ndim == 0)
        return uf(self, other)
    return op


def _inplace(uf):
    def op(self, other):
        if self._scalar:
            if _scalar_math(self, other):
                return uf.scalar_call(self, other)
            return uf(self, other)
        tr = trace()
        if tr is None or self._base is None:
            return uf(self, other, out=self)
        # npjax.jit: the view is read to be stored back in place (``_Trace.read_source``)
        tr.updating, outer = self, tr.updating
        try:
            return uf(self, other, out=self)
        finally:
            tr.updating = outer
    return op


def _unary(uf):
    def op(self):
        if self._scalar and _scalar_math(self):
            return uf.scalar_call(self)
        return uf(self)
    return op


# ``float_or_complex_array ** python_scalar``: NumPy's operator (``fast_scalar_power``) calls
# square for the int 2, reciprocal for the int -1 and sqrt for the float 0.5; any other
# exponent (2.0, -1.0, NumPy scalars) goes to np.power. Results differ in the last bit
# (complex) and at non-finite values.
_FAST_POWER = {(int, 2): "square", (int, -1): "reciprocal", (float, 0.5): "sqrt"}


def _power_ufunc(self: ndarray, other: Any) -> tuple[Any, tuple]:
    """The ufunc and operands NumPy's ``**``/``**=`` use for ``self ** other``."""
    kind = type(other)
    if kind in (int, float) and self.dtype.kind in "fc":
        fast = _FAST_POWER.get((kind, other))
        if fast is not None:
            return UFUNCS[fast], (self,)
    return UFUNCS["power"], (self, other)


def _pow(self, other):
    if self._scalar and _scalar_math(self, other):  # (scalar math: no square fast path)
        return UFUNCS["power"].scalar_call(self, other)
    uf, operands = _power_ufunc(self, other)
    return uf(*operands)


def _ipow(self, other):
    if self._scalar:
        return _pow(self, other)
    uf, operands = _power_ufunc(self, other)
    return uf(*operands, out=self)


def _divmod(self: ndarray, other: Any) -> Any:
    if self._scalar and _scalar_math(self, other):
        return UFUNCS["divmod"].scalar_call(self, other)
    return UFUNCS["divmod"](self, other)


def _rdivmod(self: ndarray, other: Any) -> Any:
    if self._scalar and _scalar_math(self, other):
        return UFUNCS["divmod"].scalar_call(other, self)
    return UFUNCS["divmod"](other, self)


_OFFSETS = {("add", ""): (1, False), ("add", "r"): (1, True), ("sub", ""): (-1, False)}


_ABSENT = object()
_REFUSES, _OUTRANKS = "refuses", "outranks"


def _defers(other: Any, short: str, inplace: bool, reflected: bool) -> Any:
    """Whether a NumPy array's operator ``short`` (``add``; comparisons: "") would give way to
    ``other``, as NumPy's ``binop_should_defer`` decides (a NumPy array's own
    ``__array_priority__`` is 0): ``_REFUSES`` for an object whose class sets
    ``__array_ufunc__ = None`` (NEP 13; not in place or reflected: the ufunc then raises
    NumPy's TypeError), ``_OUTRANKS`` for one with no ``__array_ufunc__``, a higher
    ``__array_priority__`` and an operator of its own (scipy.sparse's arrays; JAX's arrays
    aside: npjax computes with them); else None."""
    kind = type(other)
    if kind is ndarray or kind in _PY_NUMBERS or kind is np.ndarray or kind in DEFERRED_UFUNC \
            or isinstance(other, np.generic | ndarray | jax.Array):  # (JAX's: npjax computes)
        return None
    found = getattr(kind, "__array_ufunc__", _ABSENT)
    if found is not _ABSENT:
        return _REFUSES if found is None and not (inplace or reflected) else None
    if short and not (hasattr(kind, f"__r{short}__") or hasattr(kind, f"__{short}__")):
        return None  # (NumPy: an operand without this operator's slot is not deferred to)
    return _OUTRANKS if getattr(other, "__array_priority__", -1000000.0) > 0.0 else None


def _deferring(op, name: str, short: str = "", inplace: bool = False, reflected: bool = False):
    """``op`` (the member ``name``) after NumPy's deferral to the other operand: it gets
    ``NotImplemented`` (then Python tries its reflected method with the npjax array) when it
    refuses ufuncs; one that outranks a NumPy array gets Python's operator on NumPy operands
    (``numpy_operator``): libraries such as scipy.sparse act on NumPy arrays they recognise
    by ``isinstance`` (``x @ sparse``, ``x + sparse``), as they would in a NumPy program."""
    def deferring(self, other):
        if type(other) is not ndarray:
            how = _defers(other, short, inplace, reflected)
            if how is _REFUSES or (how is _OUTRANKS and inplace):
                return NotImplemented  # (``a += o`` then runs ``a + o``, as with NumPy)
            if how is _OUTRANKS:
                return numpy_operator(name, self, other)
        return op(self, other)
    return deferring


def device_first(uf, member, name: str, reflected: bool = False):
    """``member`` (``a + b``, ``b + a``, ``a < b``: the deferring operator member ``name`` of
    the elementwise ``uf``) preceded by ``pair_call``, the commonest device call, which NumPy's
    deferral, scalar math and the ufunc's call would all come to for a non-scalar ``self``
    and another device array or a Python float."""
    get_context = _context.get

    def first(self, other):
        kind = type(other)  # (others: the member's way, at once)
        if (kind is ndarray or kind is float) and not self._scalar:
            got = (pair_call(uf, other, self, get_context().policy) if reflected else
                   pair_call(uf, self, other, get_context().policy))
            if got is not NOT_FAST:
                return got
        return member(self, other)
    first.__name__ = name
    first.__qualname__ = f"ndarray.{name}"
    return first


def install() -> None:
    for short, name in BINARY.items():
        uf = UFUNCS[name]
        for prefix, make in (("", _forward), ("r", _reflected), ("i", _inplace)):
            op = make(uf)
            if (short, prefix) in _OFFSETS:
                op = _offset(uf, *_OFFSETS[short, prefix])
            member = op.__name__ = f"__{prefix}{short}__"
            op = _deferring(op, member, short, prefix == "i", prefix == "r")
            if prefix != "i" and uf._pair and uf.signature is None:
                op = device_first(uf, op, member, prefix == "r")
            setattr(ndarray, member, op)
    for short, name in COMPARISON.items():
        if short in ("eq", "ne"):
            op = _equality(UFUNCS[name], short == "ne")
        else:
            op = _forward(UFUNCS[name])
        member = op.__name__ = f"__{short}__"
        setattr(ndarray, member, device_first(UFUNCS[name], _deferring(op, member), member))
    for short, name in UNARY.items():
        op = _unary(UFUNCS[name])
        op.__name__ = f"__{short}__"
        setattr(ndarray, op.__name__, op)
    ndarray.__pow__ = _deferring(_pow, "__pow__", "pow")
    ndarray.__ipow__ = _deferring(_ipow, "__ipow__", "pow", True)
    ndarray.__divmod__ = _deferring(_divmod, "__divmod__", "divmod")
    ndarray.__rdivmod__ = _deferring(_rdivmod, "__rdivmod__", "divmod", reflected=True)
    ndarray.__contains__ = _contains


def _contains(self: ndarray, value: Any) -> bool:
    """``value in a``: whether any element equals ``value`` (NumPy's ``(a == value).any()``)."""
    return bool(jnp.any(self._read() == to_jax(value)))


install()
