"""Boolean and integer reductions in the forms XLA's CPU backend compiles fastest, for
traced checks and counts.

It splits a reduction of one operand over more than a few dozen elements into a tree of
``reduce-window`` kernels, each compiled on its own, while a variadic reduction (several
operands, one ``lax.reduce``) over the same elements is one kernel with the elementwise work
that feeds it: five ``any`` over 2000 x 16 booleans compiled in three times the time of one
variadic reduction of the five (``fold_many``); one reduction is made variadic by folding
the two halves of its elements as two operands (``split_fold``). The answers are those of
``jnp.any``/``jnp.all``/``jnp.sum`` bit for bit: on booleans and integers (which wrap) these
operations give the same result in any order.
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["all_", "all_finite", "any_", "anys", "count", "fold_many", "running_count",
           "split_fold", "splits"]

_OPS = {"or": (lax.bitwise_or, False), "and": (lax.bitwise_and, True), "add": (lax.add, 0),
        "mul": (lax.mul, 1)}
SPLIT_FROM = 32  # (XLA's CPU backend made a tree of a reduction of 40 elements, not of 16)


def splits(shape: tuple, axes: tuple) -> bool:
    """Whether ``split_fold`` is the better form of a reduction over ``axes``: over many
    elements, the last axis among them. (Keeping the last axis, as a column sum does, XLA's
    code for the variadic reduction ran 30 to 170 times slower than its tree for 4000 x
    4000 elements; reducing it, or all axes, it ran faster.)"""
    return bool(shape) and len(shape) - 1 in axes and \
        math.prod(shape[a] for a in axes) >= SPLIT_FROM


def split_fold(x: Any, axes: tuple, op: str) -> Any:
    """``x`` (bool or integer) reduced over ``axes`` by ``op`` ("or", "and", "add", "mul"),
    as two halves of the longest reduced axis folded by one variadic reduction and then
    combined: one kernel where a reduction of one operand became a tree of them. Exact in
    any order (these operations are associative and commutative on booleans and on
    integers, which wrap)."""
    fn, unit = _OPS[op]
    unit = np.asarray(unit).astype(x.dtype)
    k = max(axes, key=lambda a: x.shape[a])
    if x.shape[k] % 2:
        pad = [(0, 0)] * x.ndim
        pad[k] = (0, 1)
        x = jnp.pad(x, pad, constant_values=unit)
    h = x.shape[k] // 2
    a, b = lax.slice_in_dim(x, 0, h, axis=k), lax.slice_in_dim(x, h, 2 * h, axis=k)
    ra, rb = lax.reduce((a, b), (unit, unit),
                        lambda p, q: (fn(p[0], q[0]), fn(p[1], q[1])), axes)
    return fn(ra, rb)


def _fold_one(m: Any, axis: Any, keepdims: bool, op: str, dtype: Any) -> Any:
    m = jnp.asarray(m).astype(dtype)
    axes = tuple(range(m.ndim)) if axis is None else tuple(
        a % m.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    if m.size == 0 or not splits(m.shape, axes):
        r = {"or": jnp.any, "and": jnp.all, "add": jnp.sum}[op](m, axis=axes)
    else:
        r = split_fold(m, axes, op)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else n for i, n in enumerate(m.shape)))
    return r.astype(dtype)


def any_(m: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``jnp.any(m, axis)`` for a boolean ``m``."""
    return _fold_one(m, axis, keepdims, "or", bool)


def all_(m: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``jnp.all(m, axis)`` for a boolean ``m``."""
    return _fold_one(m, axis, keepdims, "and", bool)


def count(m: Any, axis: Any = None, keepdims: bool = False, dtype: Any = np.int64) -> Any:
    """``jnp.sum(m, axis, dtype=dtype)`` for a boolean ``m`` (the number of True)."""
    return _fold_one(m, axis, keepdims, "add", dtype)


def running_count(m: Any, axis: int | None = None) -> Any:
    """``jnp.cumsum(m, axis)`` of a boolean (or 0/1) ``m``: the True elements up to each
    element, in int32 where the axis is shorter than 2**31 (exact), else int64. (A TPU
    computes a 64-bit scan on the host, ``_capabilities``: a mask's positions counted in
    int64 sent every iteration of gravity_masks' loop to the host three times.)"""
    n = m.size if axis is None else m.shape[axis]
    return jnp.cumsum(m, axis, dtype=np.int32 if n < 2 ** 31 else np.int64)


def all_finite(x: Any) -> Any:
    """``jnp.all(jnp.isfinite(x))`` for a float or complex ``x``: ``x - x`` is zero where
    ``x`` is finite and NaN where it is not, and a NaN survives the sum."""
    zero = x - x
    if zero.dtype.kind == "c":
        zero = jnp.real(zero) + jnp.imag(zero)
    return jnp.isfinite(jnp.sum(zero.astype(np.float32)))



def fold_many(items: list, axis: Any = None, keepdims: bool = False) -> list:
    """Several boolean reductions over the same ``axis`` as one variadic reduction: per
    ``(mask, kind)`` of ``items`` (masks that broadcast to one shape), ``kind`` "or" gives
    ``jnp.any(mask, axis)``, "and" ``jnp.all(mask, axis)``, "count" the number of True
    (int64). XLA's CPU backend compiles the variadic reduction and the elementwise work
    feeding it as one kernel, where each reduction of its own compiled several."""
    shape = jnp.broadcast_shapes(*(jnp.shape(m) for m, _ in items))
    ndim = len(shape)
    axes = tuple(range(ndim)) if axis is None else tuple(
        a % ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    if len(items) == 1:  # (a reduction of one operand is split into a tree of kernels)
        m, kind = items[0]
        one = {"or": any_, "and": all_, "count": count}[kind]
        return [one(jnp.broadcast_to(m, shape), axes, keepdims)]
    kinds = [kind for _, kind in items]
    ops = tuple(jnp.broadcast_to(m, shape).astype(np.int64 if kind == "count" else bool)
                for m, kind in items)
    inits = tuple(np.int64(0) if kind == "count" else np.bool_(kind == "and")
                  for kind in kinds)

    def combine(a: tuple, b: tuple) -> tuple:
        return tuple(p + q if kind == "count" else (p & q if kind == "and" else p | q)
                     for p, q, kind in zip(a, b, kinds))

    outs = lax.reduce(ops, inits, combine, axes)
    if keepdims:
        kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
        outs = [o.reshape(kept) for o in outs]
    return list(outs)


def anys(masks: list, axis: Any = None, keepdims: bool = False) -> list:
    """``[jnp.any(m, axis) for m in masks]`` as one reduction (``fold_many``)."""
    return fold_many([(m, "or") for m in masks], axis, keepdims)
