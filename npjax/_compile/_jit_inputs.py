"""npjax.jit's view of one call's arguments: the cache key of each (its kind, shape, dtype,
flags and layout, or a static value's key) and the distinct arrays it holds (``Inputs``)."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import ndarray

STATIC_SCALARS = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis))


class Unhashable(TypeError):
    """An argument that is neither an array nor hashable (so it cannot be static)."""


class HostView(Exception):
    """An argument is a view NumPy made of a host array (no lens to trace it through)."""


def static_key(x: Any) -> Any:
    """A hashable key for a static value that tells apart 1, 1.0, True, -0.0 and nan."""
    t = type(x)
    if t is float or t is complex or isinstance(x, np.generic):
        return (t, repr(x))
    if t in STATIC_SCALARS:
        return (t, x)
    try:
        hash(x)
    except TypeError:
        raise Unhashable(f"an argument of type {t.__name__} is neither an array nor "
                          "hashable, so it cannot be static") from None
    return (t, x)


def layout_key(layout: np.ndarray | None) -> Any:
    """The part of an owner's layout that can change the traced code (None: C order)."""
    if layout is None or layout.flags.c_contiguous:
        return None
    return layout.strides


class Inputs:
    """Inputs of one call: distinct roots (by identity), lens positions and the key."""

    __slots__ = ("containers", "dyns", "objs", "root_ids", "roots")

    def __init__(self) -> None:
        self.roots: list[Any] = []  # ndarray root owners, np.ndarray, jax.Array
        self.root_ids: dict[int, int] = {}
        self.dyns: list[int] = []
        self.objs: list[Any] = []  # every array argument, in walk order
        # every list and dict among the arguments, in walk order (the function may change
        # their items: ``_jit`` writes them back)
        self.containers: list[Any] = []

    def root(self, obj: Any) -> int:
        k = self.root_ids.get(id(obj))
        if k is None:
            k = self.root_ids[id(obj)] = len(self.roots)
            self.roots.append(obj)
        return k

    def owner(self, x: ndarray) -> tuple:
        """The spec of an owner: its root index, shape, dtype, flags and layout."""
        v = x._value
        return ("A", self.root(x), v.shape, v.dtype, x._scalar, x._readonly,
                layout_key(x._layout))

    def walk_args(self, args: tuple, static: frozenset) -> tuple:
        """The specs of the positional arguments: ``walk`` of each (``static``: the static
        positions), with owners and scalars, the common case, handled inline."""
        specs = []
        for i, x in enumerate(args):
            t = type(x)
            if static and i in static:
                specs.append(("S", static_key(x)))
            elif t is ndarray and x._base is None and x._lens is not None:
                self.objs.append(x)
                specs.append(self.owner(x))
            elif t is float or t is int or t is bool or t is complex:
                specs.append(("S", static_key(x)))
            else:
                specs.append(self.walk(x))
        return tuple(specs)

    def walk(self, x: Any) -> Any:
        t = type(x)
        if t is ndarray or isinstance(x, ndarray):
            if t is not ndarray:  # the trace computes with plain arrays: no subclass results
                raise NotImplementedError(
                    f"npjax.jit: an argument is an instance of the ndarray subclass "
                    f"{t.__name__}; pass x.view(npjax.ndarray) (the same memory)")
            self.objs.append(x)
            base = x._base
            if x._lens is None:
                raise HostView  # a view NumPy made of a host array: the call runs eagerly
            if base is None:
                return self.owner(x)
            k = self.root(base)
            steps = []
            for step in x._lens:
                steps.append((step, len(step.dynamic)))
                self.dyns.extend(step.dynamic)
            vl = x._layout
            return ("V", k, base._value.shape, base._value.dtype, base._scalar,
                    base._readonly, layout_key(base._layout), tuple(steps),
                    x._root_shape, vl.shape, vl.strides, x._readonly)
        if t is tuple:
            return (t, tuple(self.walk(v) for v in x))
        if t is list:
            self.containers.append(x)
            return (t, tuple(self.walk(v) for v in x))
        if t is dict:
            self.containers.append(x)
            return (dict, tuple((k, self.walk(x[k])) for k in x))
        if isinstance(x, jax.Array):
            self.objs.append(x)
            return ("J", self.root(x), x.shape, x.dtype, x.weak_type)
        if t is np.ndarray:
            self.objs.append(x)
            if not jax.dtypes.issubdtype(x.dtype, np.number) and x.dtype != np.bool_:
                raise Unhashable(f"a host array of dtype {x.dtype} cannot be traced")
            return ("H", self.root(x), x.shape, x.dtype, x.flags.writeable)
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return (t, tuple(self.walk(v) for v in x))
        return ("S", static_key(x))
