"""Host NumPy round trip for calls npjax does not run on JAX, announced by the policy.

Only two things lead here: a function registered as a fallback, or an implementation that
raises ``NpjaxUnsupported`` on purpose. Never a blanket ``except Exception``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from npjax._errors import FallbackWarning
from npjax._ndarray import ndarray
from npjax._policy import Policy


def to_host(x: Any) -> Any:
    """npjax arrays (also inside lists, tuples and dicts) as NumPy arrays."""
    if isinstance(x, ndarray):
        host = np.asarray(x._read())
        return host[()] if x._scalar else host
    if isinstance(x, list | tuple):
        return type(x)(to_host(v) for v in x) if not hasattr(x, "_fields") else type(x)(
            *(to_host(v) for v in x))
    if isinstance(x, dict):
        return {k: to_host(v) for k, v in x.items()}
    return x


def from_host(x: Any) -> Any:
    """NumPy results back as npjax arrays (host-only dtypes stay NumPy arrays)."""
    from npjax._normalize import to_jax

    if isinstance(x, np.ndarray) and x.dtype.kind in "biufc":
        return ndarray._owner(to_jax(x))
    if isinstance(x, np.generic) and x.dtype.kind in "biufc":
        return ndarray._owner(to_jax(np.asarray(x)), True)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(from_host(v) for v in x))
    if isinstance(x, list | tuple):
        return type(x)(from_host(v) for v in x)
    return x


def announce(name: str, reason: str, policy: Policy) -> None:
    if policy.fallback == "raise":
        raise NotImplementedError(
            f"npjax.{name} would run on host NumPy ({reason}) and the policy says "
            "fallback='raise'")
    if policy.fallback == "warn":
        warnings.warn(f"npjax.{name} runs on host NumPy: {reason}", FallbackWarning,
                      stacklevel=4)


def call_numpy(name: str, numpy_fn: Any, args: tuple, kwargs: dict, policy: Policy,
               reason: str) -> Any:
    """Run ``numpy_fn`` on host copies of the arguments; results go back to the device."""
    announce(name, reason, policy)
    out = kwargs.pop("out", None)
    result = from_host(numpy_fn(*to_host(args), **to_host(kwargs)))
    if out is not None:
        from npjax._dispatch import write_out

        return write_out(out, result._read(), "unsafe", name)
    return result
