"""The two streams' seeds and the bridge to the host NumPy stream: the JAX key derived from a
``SeedSequence``, ``numpy_mode`` (which stream a draw uses), host arguments and placed
results for NumPy's generator, and the ``streamed`` method decorator."""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from npjax._core._host_only import host_only
from npjax._core._out import DEVICE_WRITES, out_buffer, write_out
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._placement._route import beyond, host_limit
from npjax._placement._made import place_made
from npjax._runtime import _stats
from npjax._runtime._context import current


# --- keys ------------------------------------------------------------------------------------

def key_from_seed_seq(seq: Any) -> jax.Array:
    """A threefry key (``uint32[2]``) derived from a ``SeedSequence`` (fresh entropy if none).

    It starts as host data (the first draw moves it to the device), so that creating a
    generator, and importing npjax with its global one, starts no JAX backend: that keeps
    ``npjax.distributed.initialize`` possible after ``import npjax``."""
    if not isinstance(seq, np.random.SeedSequence):
        seq = np.random.SeedSequence()
    return seq.generate_state(2, np.uint32)


# --- the numpy-policy bridge -----------------------------------------------------------------

def numpy_mode(gen: Any = None, *operands: Any, size: Any = None) -> bool:
    """Whether ``gen`` draws from NumPy's stream: always for the legacy ``RandomState`` (NumPy
    keeps its streams forever, NEP 19); for a ``Generator`` by the ``random`` policy: "numpy"
    always, "jax" never, "auto" where the draw is placed on the host (``host_draw``)."""
    if getattr(gen, "_legacy", False):
        return True
    kind = current().random
    if kind == "auto":
        return host_draw(operands, size)
    return kind == "numpy"


def host_draw(operands: Any, size: Any = None) -> bool:
    """Whether a draw of ``size`` (None: the operands' broadcast size) with these array
    operands is placed on the host, as any result without device inputs is: the policy keeps
    results on the host (``host_limit``), no operand lives on the device, and the draw is
    not larger than the host limit (on a CPU backend in eager mode every size stays)."""
    limit = host_limit()
    if limit < 0:
        return False
    n = 1
    for x in operands:
        if isinstance(x, ndarray):
            if x._host() is None:
                return False
            n = max(n, x.size)
        elif isinstance(x, jax.Array):
            return False
        elif isinstance(x, np.ndarray):
            n = max(n, x.size)
        elif isinstance(x, list | tuple):
            if any(isinstance(i, jax.Array) or (isinstance(i, ndarray) and i._host() is None)
                   for i in x):
                return False
            n = max(n, len(x))
    if size is not None:
        try:
            shape = (size,) if isinstance(size, int | np.integer) else tuple(size)
            n = max(n, math.prod(int(d) for d in shape))
        except (TypeError, ValueError):  # NumPy's error comes from the draw itself
            pass
    return not beyond(n, limit)


def to_host(x: Any) -> Any:
    """Arguments for the host NumPy generator: npjax/JAX arrays become NumPy arrays."""
    if isinstance(x, ndarray):
        host = np.asarray(x)
        return host[()] if x._scalar else host
    if isinstance(x, jax.Array):
        return np.asarray(x)
    if isinstance(x, list | tuple) and any(isinstance(i, ndarray | jax.Array) for i in x):
        return type(x)(to_host(i) for i in x)
    return x


def held_data(x: Any) -> np.ndarray | None:
    """``x``'s NumPy data where its dtype has no device form (object, str; float64 and
    complex128 where the accelerator cannot hold them, ``_capabilities.HOST_DTYPES``), else
    None: draws read, permute and pick from such data on the host."""
    if isinstance(x, ndarray):
        return x._fetch() if host_only(x) else None
    if isinstance(x, jax.Array) or (isinstance(x, list | tuple) and any(
            isinstance(i, ndarray | jax.Array) for i in x)):
        return None
    data = np.asarray(x)
    return data if host_only(data) else None


def from_host(result: Any) -> Any:
    """A host NumPy draw placed as any new array (``place_made``): a host array (NumPy's
    scalar for a scalar) where the policy keeps it on the host, else on the device (an npjax
    scalar for a scalar). Draws ignore their inputs' kinds, as ``_host_draws`` does."""
    return place_made(result)


def _check_out_flags(out: Any) -> None:
    if not isinstance(out, ndarray):
        raise TypeError("out must be an npjax array")
    if not out.flags.c_contiguous or out._readonly:
        raise ValueError("Supplied output array is not contiguous, writable or aligned.")


def call_numpy(np_gen: Any, name: str, args: tuple, kwargs: dict) -> Any:
    """Run ``np_gen.name(*args, **kwargs)`` on host arguments and place the result."""
    args = tuple(to_host(a) for a in args)
    kwargs = {k: to_host(v) for k, v in kwargs.items()}
    result = from_host(getattr(np_gen, name)(*args, **kwargs))
    on_device = isinstance(result, ndarray) and result._host() is None
    (_stats.calls if on_device else _stats.host_calls)["random." + name] += 1
    return result


def streamed(fn: Callable) -> Callable:
    """Method decorator: where ``numpy_mode(self)``, run NumPy's method of the host generator."""
    name = fn.__name__
    params = list(inspect.signature(fn).parameters)
    at = params.index("size") - 1 if "size" in params else None  # (after self)

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        size = kwargs.get("size")
        if size is None and at is not None and at < len(args):
            size = args[at]
        if numpy_mode(self, *args, *kwargs.values(), size=size):
            out = kwargs.get("out")
            if isinstance(out, ndarray):
                _check_out_flags(out)
                data = out_buffer(out)  # the out writer's host branch
                if data is not DEVICE_WRITES:  # a host array: NumPy draws into its memory
                    getattr(self._np, name)(*(to_host(a) for a in args),
                                            **{k: to_host(v) for k, v in kwargs.items()
                                               if k != "out"}, out=data)
                    _stats.host_calls["random." + name] += 1
                    return out
                twin = np.empty(out.shape, out.dtype)
                kwargs = dict(kwargs, out=twin)
                call_numpy(self._np, name, args, kwargs)
                return write_out(out, to_jax(twin), "no", name)
            return call_numpy(self._np, name, args, kwargs)
        return fn(self, *args, **kwargs)

    return method
