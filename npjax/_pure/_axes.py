"""Axis arguments with NumPy's rules and errors: ``normalize_axis``, ``normalize_axes``,
``axis_argument``, ``diagonal_axes``, ``reduction_axes`` and ``reshape_target`` (pure: ints
and shapes in, ints and shapes out); and ``ravel_is_view``, NumPy's rule for when ``ravel``
is a view (from a layout's strides)."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from npjax._pure._errors import AxisError


def integer(n: Any, what: str = "") -> int:
    """``operator.index(n)``, refusing booleans as NumPy does ("an integer is required")."""
    if isinstance(n, bool | np.bool_):
        raise TypeError(f"an integer is required{what}")
    return operator.index(n)


def normalize_axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def diagonal_axes(ndim: int, axis1: int, axis2: int) -> tuple[int, int]:
    """The two axes of a diagonal (``diagonal``, ``trace``), with NumPy's errors."""
    if ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1, a2 = normalize_axis(axis1, ndim), normalize_axis(axis2, ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return a1, a2


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """An int or a sequence of ints as non-negative axes (``AxisError``, repeated → ValueError)."""
    if isinstance(axis, tuple | list):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        return axes
    return (normalize_axis(axis, ndim),)


def axis_argument(axis: Any, what: str = " for the axis", tuples: bool = False) -> Any:
    """An ``axis=`` as NumPy's C functions read it (``cumsum``, ``argmax``, ``take``,
    ``concatenate``, ``repeat``, ``argsort``...): a boolean is refused with TypeError ("an
    integer is required for the axis"; ``what`` ends NumPy's message), anything else is
    returned as it is; ``tuples``: a tuple of axes is taken (``squeeze``), its booleans
    refused too. NumPy's Python-level functions (``flip``, ``roll``, ``expand_dims``) take
    booleans as 0 and 1: they do not use this."""
    if isinstance(axis, bool | np.bool_):
        raise TypeError(f"an integer is required{what}")
    if tuples and type(axis) is tuple and any(isinstance(a, bool | np.bool_) for a in axis):
        raise TypeError("integers are required for the axis tuple elements")
    return axis


def refuse_bool_axes(axis: Any) -> None:
    """NumPy's reductions refuse booleans as axes (``TypeError``, "an integer is required")."""
    for a in axis if isinstance(axis, tuple | list) else (axis,):
        if isinstance(a, bool | np.bool_):
            raise TypeError("an integer is required")


def reduction_axes(axis: Any, ndim: int, bools: bool = False) -> tuple[int, ...]:
    """The sorted axes a reduction over ``axis`` (not None) runs over, with NumPy's errors
    (``bools``: booleans taken as 0 and 1, as NumPy's Python-level functions take them)."""
    if not bools:
        refuse_bool_axes(axis)
    return tuple(sorted(normalize_axes(axis, ndim)))


def reshape_target(size: int, shape: Any) -> tuple[int, ...]:
    """The shape ``reshape`` produces, with NumPy's errors for bad requests."""
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    shape = tuple(integer(n) for n in shape)
    unknown = [i for i, n in enumerate(shape) if n < 0]  # NumPy: any negative is unknown
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = math.prod(n for n in shape if n >= 0)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape "
                             f"{_requested_text(shape)}")
        shape = tuple(size // known if n < 0 else n for n in shape)
    elif known != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape_text(shape)}")
    return shape


def _requested_text(shape: tuple) -> str:
    """A requested shape with an unknown (negative) dimension as NumPy's reshape message
    writes it: leading unknowns left out, later ones as ``newaxis`` (``(5,newaxis)``)."""
    i = next((i for i, n in enumerate(shape) if n >= 0), len(shape))
    if i == len(shape):
        return "()"
    return "(" + ",".join(str(n) if n >= 0 else "newaxis" for n in shape[i:]) + \
        ("," if len(shape) == 1 else "") + ")"


def shape_text(shape: tuple) -> str:
    """A shape as NumPy's messages write it: ``(2,3)``, ``(2,)``."""
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def ravel_is_view(layout: np.ndarray, order: str) -> bool:
    """NumPy's ``PyArray_Ravel`` rule, from strides alone (no copy of the layout array)."""
    flags = layout.flags
    if order == "C" or (order == "A" and not flags.f_contiguous):
        return flags.c_contiguous
    if order in ("F", "A"):
        return flags.f_contiguous
    if flags.c_contiguous or flags.f_contiguous:
        return True
    stride = layout.itemsize  # order "K": strides sorted by size must form one block
    for i in sorted(range(layout.ndim), key=lambda i: abs(layout.strides[i])):
        if layout.shape[i] == 1:
            continue
        if layout.strides[i] != stride:
            return False
        stride *= layout.shape[i]
    return True
