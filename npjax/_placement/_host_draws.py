"""Placement of random draws: the results of ``npjax.random``'s functions and of its
generators' methods are placed like any other result without array inputs (``_placement``):
a small device draw (from a JAX stream) is fetched once and becomes a host array."""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from npjax._runtime import _stats
from npjax._core._ndarray import ndarray
from npjax._placement._route import beyond, host_limit


def drawn_on_host(result: Any, args: tuple, kwargs: dict) -> Any:
    """A random draw placed like any other result without array inputs: small device
    results move to the host (NumPy scalars for scalars); an ``out=`` array stays itself."""
    kind = type(result)
    if kind is tuple or kind is list:
        return kind(drawn_on_host(r, args, kwargs) for r in result)
    if kind is not ndarray or result._base is not None or result._host() is not None:
        return result
    limit = host_limit()
    if limit < 0 or beyond(result.size, limit) or result is kwargs.get("out") or any(
            result is a for a in args):
        return result
    data = np.array(_stats.fetch(result._read()))
    return data[()] if result._scalar else ndarray._owner(data)


def host_draws(impl: Any) -> Any:
    """A random function or method whose results are placed by ``drawn_on_host``."""

    def draw(*args: Any, **kwargs: Any) -> Any:
        return drawn_on_host(impl(*args, **kwargs), args, kwargs)

    functools.update_wrapper(draw, impl)
    draw.host_draws = True
    return draw


def route_draws(namespace: dict) -> None:
    """Place the draws of the public functions in ``namespace`` (``npjax.random``'s) and of
    the methods of the classes there (``Generator``, ``RandomState``)."""
    for name, obj in list(namespace.items()):
        if name.startswith("_"):
            continue
        if inspect.isfunction(obj):
            namespace[name] = host_draws(obj)
        elif isinstance(obj, type) and obj.__module__.startswith("npjax"):
            for cls in obj.__mro__[:-1]:  # their bases' methods too (not object's)
                for attr, fn in list(vars(cls).items()):
                    if not attr.startswith("_") and inspect.isfunction(fn) and not getattr(
                            fn, "host_draws", False):
                        setattr(cls, attr, host_draws(fn))
