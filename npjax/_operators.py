"""``ndarray`` operators from one table: each dunder is a ufunc call.

Reflected operators swap the operands; in-place operators are the ufunc with ``out=self``
(NumPy's same-kind casting, so ``int_array += 1.5`` raises). A NumPy scalar is immutable, so
an in-place operator on a scalar result rebinds the name to a new scalar instead.
"""

from __future__ import annotations

from typing import Any

from npjax._ndarray import ndarray
from npjax._ufuncs import UFUNCS

BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift",
}
COMPARISON = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
              "gt": "greater", "ge": "greater_equal"}
UNARY = {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}


def _forward(uf):
    def op(self, other):
        return uf(self, other)
    return op


def _reflected(uf):
    def op(self, other):
        return uf(other, self)
    return op


def _inplace(uf):
    def op(self, other):
        if self._scalar:
            return uf(self, other)
        return uf(self, other, out=self)
    return op


def _unary(uf):
    def op(self):
        return uf(self)
    return op


def _divmod(self: ndarray, other: Any) -> Any:
    return UFUNCS["divmod"](self, other)


def _rdivmod(self: ndarray, other: Any) -> Any:
    return UFUNCS["divmod"](other, self)


def install() -> None:
    for short, name in BINARY.items():
        uf = UFUNCS[name]
        for prefix, make in (("", _forward), ("r", _reflected), ("i", _inplace)):
            op = make(uf)
            op.__name__ = f"__{prefix}{short}__"
            setattr(ndarray, op.__name__, op)
    for short, name in COMPARISON.items():
        op = _forward(UFUNCS[name])
        op.__name__ = f"__{short}__"
        setattr(ndarray, op.__name__, op)
    for short, name in UNARY.items():
        op = _unary(UFUNCS[name])
        op.__name__ = f"__{short}__"
        setattr(ndarray, op.__name__, op)
    ndarray.__divmod__ = _divmod
    ndarray.__rdivmod__ = _rdivmod


install()
