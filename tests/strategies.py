"""Hypothesis strategies: dtypes, shapes and edge-rich values shared by the parity tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

BOOL = [np.dtype(np.bool_)]
SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
INTEGER = SIGNED + UNSIGNED
FLOAT = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
COMPLEX = [np.dtype(t) for t in (np.complex64, np.complex128)]
NUMERIC = INTEGER + FLOAT + COMPLEX
ALL = BOOL + NUMERIC

dtypes = st.sampled_from(ALL)


def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 4):
    """Shapes including 0-d and empty ones."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def _edges(dtype: np.dtype) -> list:
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [0, 1, info.min, info.max, info.min + 1, info.max - 1] + (
            [-1] if dtype.kind == "i" else [])
    if dtype.kind == "f":
        info = np.finfo(dtype)
        return [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, np.inf, -np.inf, np.nan,
                float(info.max), float(info.tiny), float(-info.max)]
    if dtype.kind == "c":
        return [0j, 1 + 1j, complex(np.inf, 0), complex(np.nan, 1), -1.5 + 0.5j]
    return []


def elements(dtype: np.dtype, edge_rich: bool = True, **kw):
    """Values of ``dtype``, edge values mixed in. Subnormal floats are left out unless asked
    for: XLA on CPU flushes them to zero (a documented deviation, see README)."""
    if dtype.kind in "fc":
        kw.setdefault("allow_subnormal", False)
    base = hnp.from_dtype(dtype, **kw)
    if not edge_rich:
        return base
    edges = [v for v in _edges(dtype) if _allowed(v, kw)]
    return st.one_of(st.sampled_from(edges), base) if edges else base


def _allowed(value, kw) -> bool:
    if isinstance(value, float) and not kw.get("allow_nan", True) and value != value:
        return False
    if isinstance(value, float) and not kw.get("allow_infinity", True) and abs(value) == np.inf:
        return False
    if "min_value" in kw and not isinstance(value, complex) and value < kw["min_value"]:
        return False
    if "max_value" in kw and not isinstance(value, complex) and value > kw["max_value"]:
        return False
    return True


def arrays(dtype, shape=None, **kw):
    """Edge-rich arrays of ``dtype`` (a dtype or a strategy of dtypes)."""
    shape = shapes() if shape is None else shape
    if isinstance(dtype, st.SearchStrategy):
        return dtype.flatmap(lambda d: arrays(d, shape, **kw))
    return hnp.arrays(np.dtype(dtype), shape, elements=elements(np.dtype(dtype), **kw))


def broadcastable_shapes(n: int = 2, max_dims: int = 3):
    """``n`` shapes that broadcast together (some 0-d, some with 1s and 0s)."""
    return hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=0, max_dims=max_dims,
                                             min_side=0, max_side=4).map(
        lambda r: r.input_shapes)
