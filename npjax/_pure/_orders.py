"""NumPy's reading of an ``order=`` argument (its ``PyArray_OrderConverter``)."""

from __future__ import annotations

from typing import Any


def order_code(order: Any, default: str = "C") -> str:
    """'C', 'F', 'A' or 'K' for ``order`` as NumPy reads it: any case, str or bytes, None
    for ``default``; NumPy's ValueError or TypeError for anything else."""
    if order is None:
        return default
    text = order.decode("latin-1") if isinstance(order, bytes) else order
    if not isinstance(text, str):
        raise TypeError(f"order must be str, not {type(order).__name__}")
    if len(text) != 1 or text.upper() not in "CFAK":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return text.upper()
